//! `tactus console`: the client of the daemon's console socket, interactive or one-shot.
//!
//! Interactive, it sends each line typed and prints every line the daemon sends, as it comes:
//! plain lines, no prompt, no colours, no cursor movement, so that a screen reader or a Braille
//! display follows it (line editing is the terminal's own; `rlwrap tactus console` adds history).
//! One-shot (`-c "time"`), it sends one command, prints its reply up to the end line, and exits
//! 0 when the daemon carried it out, 1 when it refused or did not answer in time. Before either,
//! it may log in as the arbiter (`--token-file`) or switch role (`--role`).
//!
//! It trusts the socket only as far as it can check it: the arbiter's token is sent only to a
//! daemon running as the token file's owner (the peer's user id, `SO_PEERCRED`), since another
//! user may have taken the socket's name in a shared folder; and control characters from the
//! daemon are shown escaped, never handed to the terminal.
//!
//! This is the only part of [`tactus_core::console`] that does I/O: a Unix socket, standard input and
//! output, and two threads for the interactive mode (one reads the socket, one reads the
//! keyboard), so that the daemon's event lines are printed while the user types. The protocol
//! is [`tactus_core::console::wire`]'s.

use std::{
    io::{self, BufRead, BufReader, Write},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::mpsc,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use tactus_core::console::{
    MAX_LINE, Role, table, token,
    wire::{self, WireLine},
};

/// The socket when neither `--socket` nor `--config` names one (`[console] socket`'s default).
pub const DEFAULT_SOCKET: &str = "tactus.sock";
/// Longest line read from the daemon; the rest of a longer one is dropped. Far beyond any reply
/// line, it only guards the client against a runaway peer.
const MAX_REPLY_LINE: usize = 64 * 1024;
/// How long the interactive client waits for the last replies after the input ends.
const LINGER: Duration = Duration::from_secs(2);

/// `tactus console`.
#[derive(clap::Args, Debug)]
pub struct ConsoleArgs {
    /// The daemon's console socket (default: `[console] socket` of --config, else tactus.sock).
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// The configuration file whose `[console] socket` to connect to.
    #[arg(long, value_name = "FILE", conflicts_with = "socket")]
    pub config: Option<PathBuf>,
    /// Send this one command, print its reply and exit: 0 when carried out, 1 when refused or
    /// not answered in time.
    #[arg(short = 'c', long = "command", value_name = "COMMAND")]
    pub command: Option<String>,
    /// Log in as the arbiter first, with the token in this file (the daemon writes it, mode
    /// 0600, into the game's folder).
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Switch to this role first: player (the blind player's requests) or assistant.
    #[arg(long, value_name = "ROLE")]
    pub role: Option<Role>,
    /// How long -c waits for the reply, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub timeout: f64,
}

/// Run `tactus console`.
pub fn main(args: ConsoleArgs) -> Result<ExitCode> {
    let path = socket_path(&args)?;
    let token = args.token_file.as_deref().map(read_token).transpose()?;
    let preamble = preamble(&args, token.as_ref().map(|t| t.token.as_str()))?;
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .with_context(|| format!("--timeout {} is not a number of seconds", args.timeout))?;
    if let Some(command) = &args.command {
        check_command(command)?;
    }
    let stream = connect(&path, token.as_ref().map(|t| t.owner))?;
    let ok = match &args.command {
        Some(command) => one_shot(
            stream,
            &preamble,
            command,
            timeout,
            &mut io::stdout().lock(),
            &mut io::stderr().lock(),
        )?,
        None => {
            eprintln!(
                "Connected to {}. Type help for the commands, quit to leave.",
                path.display()
            );
            let stdin = BufReader::new(io::stdin());
            interactive(stream, &preamble, stdin, io::stdout(), io::stderr(), LINGER)?
        }
    };
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The socket: `--socket`, else `--config`'s `[console] socket`, else [`DEFAULT_SOCKET`].
fn socket_path(args: &ConsoleArgs) -> Result<PathBuf> {
    if let Some(path) = &args.socket {
        return Ok(path.clone());
    }
    if let Some(config) = &args.config {
        return Ok(crate::config::Config::load(config)?.socket_path());
    }
    Ok(PathBuf::from(DEFAULT_SOCKET))
}

/// Connect to the daemon's socket. With `token_owner` (the user id owning the token file: the
/// daemon's user, since the token file is private to it), the process listening must be that
/// user's, or the token would go to whoever took the socket's name.
pub fn connect(path: &Path, token_owner: Option<u32>) -> Result<UnixStream> {
    let stream = UnixStream::connect(path).map_err(|e| {
        let why = connect_failure(path, &e);
        anyhow::Error::new(e).context(why)
    })?;
    if let Some(owner) = token_owner {
        let peer = crate::daemon::console::peer_uid(&stream)
            .with_context(|| format!("cannot tell who listens on {}", path.display()))?;
        if peer != owner {
            bail!(
                "the console socket {} is served by user {peer}, but the token file belongs to \
                 user {owner}, the daemon's: this is not that daemon (another user may have \
                 taken the socket's name), so the token was not sent",
                path.display()
            );
        }
    }
    Ok(stream)
}

/// Why connecting to the socket at `path` failed, in the words its user needs. A refused
/// permission means the daemon is most likely running: the user is not one the socket lets in
/// (its owner, or the group `[console] group` names), or cannot enter a folder on its path; asking
/// whether `tactus run` runs would send him looking in the wrong place.
fn connect_failure(path: &Path, error: &io::Error) -> String {
    if error.kind() == io::ErrorKind::PermissionDenied {
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| ".".to_string(), |p| p.display().to_string());
        format!(
            "cannot connect to the console socket {}: permission denied. The socket lets in the \
             daemon's user and the group that `[console] group` names in the daemon's \
             configuration: add this user to that group (and log in again), and check that this \
             user may enter the socket's folder {folder} and every folder above it",
            path.display()
        )
    } else {
        format!(
            "cannot connect to the console socket {}; is `tactus run` running? (choose the \
             socket with --socket or --config)",
            path.display()
        )
    }
}

/// The arbiter's token and the user owning its file.
pub struct TokenFile {
    pub token: String,
    pub owner: u32,
}

/// The lines sent before the user's: the login, then the role switch.
fn preamble(args: &ConsoleArgs, token: Option<&str>) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    if let Some(token) = token {
        lines.push(format!("login {token}"));
    }
    match args.role {
        Some(Role::Arbiter) if args.token_file.is_none() => {
            bail!("the arbiter's role needs the arbiter's token: give --token-file PATH")
        }
        // The login already made this console the arbiter's.
        Some(Role::Arbiter) | None => {}
        Some(role) => lines.push(format!("role {role}")),
    }
    Ok(lines)
}

/// Read the token file; a file others may read is used (the arbiter may need the game now) with
/// a warning on stderr, since its token is no longer a secret.
pub fn read_token(path: &Path) -> Result<TokenFile> {
    use std::os::unix::fs::MetadataExt;
    let mut file = std::fs::File::open(path)
        .with_context(|| format!("cannot read the arbiter's token file {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read the arbiter's token file {}", path.display()))?;
    let mut text = String::new();
    io::Read::read_to_string(&mut io::Read::take(&mut file, 64 * 1024), &mut text)
        .with_context(|| format!("cannot read the arbiter's token file {}", path.display()))?;
    let token =
        token::parse_file(&text).with_context(|| format!("{} holds no token", path.display()))?;
    if meta.mode() & 0o077 != 0 {
        eprintln!(
            "warning: the token file {} can be read by others (mode {:04o}); the daemon will \
             refuse it at its next start: chmod 600 it",
            path.display(),
            meta.mode() & 0o7777
        );
    }
    Ok(TokenFile {
        token,
        owner: meta.uid(),
    })
}

/// A one-shot command must be one line the daemon accepts.
fn check_command(command: &str) -> Result<()> {
    let command = command.trim_end_matches(['\n', '\r']);
    if command.contains(['\n', '\r']) {
        bail!("-c takes one command; run tactus console once per command");
    }
    if command.trim().is_empty() {
        bail!("-c needs a command, like -c time; -c help lists them");
    }
    if command.len() > MAX_LINE {
        bail!(
            "the command is {} bytes long; a command has at most {MAX_LINE}",
            command.len()
        );
    }
    Ok(())
}

/// Send the preamble and `command`, print the command's reply: body lines and an `ok` end line
/// to `out`, an `error:` end line to `err`. Events are not printed (they are not the reply).
/// Returns whether the daemon carried the command out; a refused preamble line (a wrong token)
/// stops before the command is sent.
pub fn one_shot(
    stream: UnixStream,
    preamble: &[String],
    command: &str,
    timeout: Duration,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let deadline = Instant::now() + timeout;
    let mut writer = stream.try_clone()?;
    let mut lines = Lines::new(stream);
    let command = command.trim_end_matches(['\n', '\r']);
    for line in preamble {
        if send_line(&mut writer, line).is_err() {
            return finish_without_reply(false, timeout, err);
        }
        match lines.reply_end(deadline, &mut |_| Ok(()))? {
            Some(Ok(_)) => {}
            Some(Err(reason)) => {
                writeln!(err, "error: {}", shown(&reason))?;
                return Ok(false);
            }
            None => return finish_without_reply(lines.timed_out, timeout, err),
        }
    }
    if send_line(&mut writer, command).is_err() {
        return finish_without_reply(false, timeout, err);
    }
    let end = lines.reply_end(deadline, &mut |text| writeln!(out, "{}", shown(text)))?;
    match end {
        Some(Ok(summary)) => {
            if summary.is_empty() {
                writeln!(out, "{}", wire::OK)?;
            } else {
                writeln!(out, "{} {}", wire::OK, shown(&summary))?;
            }
            Ok(true)
        }
        Some(Err(reason)) => {
            writeln!(err, "error: {}", shown(&reason))?;
            Ok(false)
        }
        // `quit` may be answered by the connection closing.
        None if !lines.timed_out && is_quit(command) => Ok(true),
        None => finish_without_reply(lines.timed_out, timeout, err),
    }
}

fn finish_without_reply(
    timed_out: bool,
    timeout: Duration,
    err: &mut dyn Write,
) -> io::Result<bool> {
    if timed_out {
        writeln!(
            err,
            "error: no reply from the daemon within {} s",
            timeout.as_secs_f64()
        )?;
    } else {
        writeln!(
            err,
            "error: the daemon closed the connection before replying"
        )?;
    }
    Ok(false)
}

/// A line from the daemon as it may be shown: control characters escaped, whatever the daemon
/// (or whoever answers on its socket) sent.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    crate::speech::transcript::escape_controls(text)
}

/// One line in one write, so that the daemon never waits on half a command.
fn send_line(writer: &mut UnixStream, line: &str) -> io::Result<()> {
    writer.write_all(format!("{line}\n").as_bytes())
}

/// Whether a command line is `quit` (by any of its names).
fn is_quit(line: &str) -> bool {
    line.split_whitespace()
        .next()
        .and_then(table::lookup)
        .is_some_and(|s| s.name == "quit")
}

/// What the interactive loop hears from its two threads.
enum Event {
    Typed(String),
    InputEnded,
    SocketClosed,
}

/// The interactive console: `input`'s lines go to the daemon, every line from the daemon goes
/// to `out` as it comes (escaped body lines unescaped, control characters escaped), the client's own
/// remarks go to `err`. Returns `true` when the user ended it (`quit`, or the end of the input,
/// after which the last replies get `linger` to arrive), `false` when the daemon closed first.
pub fn interactive<I, O, E>(
    stream: UnixStream,
    preamble: &[String],
    input: I,
    out: O,
    mut err: E,
    linger: Duration,
) -> io::Result<bool>
where
    I: BufRead + Send + 'static,
    O: Write + Send + 'static,
    E: Write,
{
    let (tx, rx) = mpsc::channel();
    let reader = {
        let tx = tx.clone();
        let mut lines = Lines::new(stream.try_clone()?);
        let mut out = out;
        std::thread::spawn(move || {
            // The end of the stream and a read error both mean the daemon is gone.
            while let Ok(Some(line)) = lines.next_line(None) {
                let text = match wire::classify(&line) {
                    WireLine::Body(text) => shown(text),
                    _ => shown(&line),
                };
                if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
                    break;
                }
            }
            let _ = tx.send(Event::SocketClosed);
        })
    };
    {
        let tx = tx.clone();
        // Detached: a thread blocked on the keyboard cannot be woken; it ends with the process.
        std::thread::spawn(move || {
            // Bytes, not `lines()`: a keyboard in another encoding must not end the session on
            // its first non-UTF-8 byte; the daemon refuses such a line with a reason instead.
            for line in input.split(b'\n') {
                let Ok(bytes) = line else { break };
                let line = String::from_utf8_lossy(&bytes).into_owned();
                if tx.send(Event::Typed(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::InputEnded);
        });
    }
    drop(tx);
    let mut writer = stream.try_clone()?;
    let mut quit_sent = false;
    let send = |writer: &mut UnixStream, line: &str| send_line(writer, line).is_ok();
    let mut alive = preamble.iter().all(|line| send(&mut writer, line));
    let by_user = loop {
        match rx.recv() {
            Ok(Event::Typed(line)) => {
                let line = line.trim_end_matches('\r');
                if line.len() > MAX_LINE {
                    writeln!(
                        err,
                        "not sent: the line is {} bytes long; a command has at most {MAX_LINE}",
                        line.len()
                    )?;
                    continue;
                }
                // Once the socket is gone the reader thread reports it; until then, drop lines.
                if line.trim().is_empty() || !alive {
                    continue;
                }
                quit_sent |= is_quit(line);
                alive = send(&mut writer, line);
            }
            Ok(Event::InputEnded) => {
                // Let the daemon answer what was sent, then leave.
                let _ = stream.shutdown(std::net::Shutdown::Write);
                let _ = rx.recv_timeout(linger);
                break true;
            }
            Ok(Event::SocketClosed) | Err(_) => {
                if !quit_sent {
                    writeln!(err, "the daemon closed the connection")?;
                }
                break quit_sent;
            }
        }
    };
    // Wakes the reader thread if it still waits, so that it can be joined.
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let _ = reader.join();
    Ok(by_user)
}

/// Lines from the daemon, read with an optional deadline, at most [`MAX_REPLY_LINE`] bytes
/// each. A partial line survives a timeout (it stays in `line`).
struct Lines {
    reader: BufReader<UnixStream>,
    line: Vec<u8>,
    too_long: bool,
    /// Whether the last `None` was a timeout rather than the end of the stream.
    timed_out: bool,
}

impl Lines {
    fn new(stream: UnixStream) -> Lines {
        Lines {
            reader: BufReader::new(stream),
            line: Vec::new(),
            too_long: false,
            timed_out: false,
        }
    }

    /// The next line (without its end), `None` at the end of the stream or at the deadline
    /// (see `timed_out`).
    fn next_line(&mut self, deadline: Option<Instant>) -> io::Result<Option<String>> {
        self.timed_out = false;
        loop {
            if let Some(deadline) = deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    self.timed_out = true;
                    return Ok(None);
                }
                self.reader.get_ref().set_read_timeout(Some(left))?;
            }
            let available = match self.reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    self.timed_out = true;
                    return Ok(None);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                // The end of the stream: a last line without its line end still counts.
                if self.line.is_empty() && !self.too_long {
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            let room = MAX_REPLY_LINE.saturating_sub(self.line.len());
            if chunk.len() > room {
                self.too_long = true;
            }
            self.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let used = newline.map_or(available.len(), |i| i + 1);
            self.reader.consume(used);
            if newline.is_some() {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> String {
        let mut text = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
        if std::mem::take(&mut self.too_long) {
            text.push_str(" ...");
        }
        if text.ends_with('\r') {
            text.pop();
        }
        text
    }

    /// Read up to the end line of a reply, handing each body line to `body`. `Some(Ok(summary))`
    /// or `Some(Err(reason))` for the end line, `None` at the end of the stream or the deadline.
    fn reply_end(
        &mut self,
        deadline: Instant,
        body: &mut dyn FnMut(&str) -> io::Result<()>,
    ) -> io::Result<Option<Result<String, String>>> {
        while let Some(line) = self.next_line(Some(deadline))? {
            match wire::classify(&line) {
                WireLine::Body(text) => body(text)?,
                WireLine::Ok(summary) => return Ok(Some(Ok(summary.to_string()))),
                WireLine::Error(reason) => return Ok(Some(Err(reason.to_string()))),
                WireLine::Event(_) => {}
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_permission_names_the_group_and_the_folder_not_the_daemon() {
        let path = Path::new("/run/tactus/console.sock");
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        let said = connect_failure(path, &denied);
        assert!(
            said.contains("/run/tactus/console.sock: permission denied"),
            "{said}"
        );
        assert!(said.contains("`[console] group`"), "{said}");
        assert!(said.contains("socket's folder /run/tactus "), "{said}");
        assert!(!said.contains("tactus run"), "{said}");
    }

    #[test]
    fn a_missing_socket_asks_whether_the_daemon_runs() {
        let path = Path::new("console.sock");
        for kind in [io::ErrorKind::NotFound, io::ErrorKind::ConnectionRefused] {
            let said = connect_failure(path, &io::Error::from(kind));
            assert!(said.contains("is `tactus run` running?"), "{said}");
            assert!(!said.contains("group"), "{said}");
        }
    }
}
