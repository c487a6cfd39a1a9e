//! The console socket: a Unix socket (mode 0600, or 0660 with a configured group) speaking the
//! line protocol of [`crate::console::wire`], one task per connection.
//!
//! This module owns the connections: reading lines (capped at [`MAX_LINE`], binary garbage and
//! half lines refused without harm), each connection's [`Session`] (its role: every connection
//! starts as the assistant's; `role player` for the blind player's keypad; `login TOKEN` makes it
//! the arbiter's), `help`, `role`, `login` and `quit`, which need no game, and the event lines
//! (`# ...`) every console sees. It must not touch the game: every other command goes to the
//! hub, which owns the arbiter, and the reply comes back from there. A command the role may not
//! use is refused here, before the hub hears of it, so it changes nothing. A rude client
//! (garbage, endless lines, a disconnect mid-reply, hundreds of idle connections) only costs its
//! own task.
//!
//! It also keeps the arbiter's token file ([`arbiter_token`]): read if it is there, else made
//! from the system's random source with mode 0600, never printed.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::{UnixListener, UnixStream},
    sync::{broadcast, mpsc, oneshot},
};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

use super::hub::{Broadcast, HubMsg};
use crate::console::{
    Command, MAX_LINE, Role, Session, help_lines,
    wire::{self, End, Reply},
};

/// The listening socket; removed again when dropped.
pub struct ConsoleSocket {
    path: PathBuf,
    listener: UnixListener,
}

impl ConsoleSocket {
    /// Bind `path` (a stale socket from a crashed run is replaced) with mode 0600: the console
    /// can change the game, so only the daemon's user may connect; with `group`, mode 0660 and
    /// that group (the assistant's own account, say).
    pub fn bind(path: &Path, group: Option<&str>) -> Result<ConsoleSocket> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| {
                format!(
                    "cannot create the folder {} for the console socket (key console.socket)",
                    dir.display()
                )
            })?;
        }
        if path.exists() {
            // A live daemon answers; a stale socket file refuses the connection.
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                anyhow::bail!(
                    "another tactus is already listening on the console socket {}; stop it, or \
                     give this one another console.socket",
                    path.display()
                );
            }
            std::fs::remove_file(path).with_context(|| {
                format!("cannot remove the stale console socket {}", path.display())
            })?;
        }
        let listener = UnixListener::bind(path).with_context(|| {
            format!(
                "cannot create the console socket {} (key console.socket)",
                path.display()
            )
        })?;
        match group {
            None => std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .with_context(|| format!("cannot make {} private (mode 0600)", path.display()))?,
            Some(group) => {
                let gid = group_id(group)?;
                std::os::unix::fs::chown(path, None, Some(gid)).with_context(|| {
                    format!(
                        "cannot give the console socket {} to the group {group} (key \
                         console.group); the daemon's user must be a member of it",
                        path.display()
                    )
                })?;
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
                    .with_context(|| format!("cannot set mode 0660 on {}", path.display()))?;
            }
        }
        Ok(ConsoleSocket {
            path: path.to_owned(),
            listener,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Accept connections until `cancel`; each is served by a task of its own.
    /// `token`: the arbiter's token `login` must match (`None`: nobody can be the arbiter).
    pub async fn serve(
        self,
        hub: mpsc::Sender<HubMsg>,
        events: broadcast::Sender<Broadcast>,
        token: Option<String>,
        cancel: CancellationToken,
    ) {
        let mut next_id = 1u64;
        loop {
            tokio::select! {
                _ = cancel.cancelled() => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let id = next_id;
                        next_id += 1;
                        let span = info_span!("console", conn = id);
                        let session = Session::new(Role::Assistant, token.clone());
                        tokio::spawn(
                            connection(
                                id,
                                stream,
                                session,
                                hub.clone(),
                                events.subscribe(),
                                cancel.clone(),
                            )
                            .instrument(span),
                        );
                    }
                    Err(e) => {
                        // Out of file descriptors and the like: wait a little, keep serving.
                        warn!("console: cannot accept a connection: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    }
                },
            }
        }
        // Dropping the listener closes it; the file goes in Drop.
    }
}

impl Drop for ConsoleSocket {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            warn!(
                "cannot remove the console socket {}: {e}",
                self.path.display()
            );
        }
    }
}

/// The arbiter's token: read from `path` if it is there (a resumed game, or the arbiter's own
/// file), else made from the system's random source and written there with mode 0600.
/// `configured`: the path is the `console.token_file` key (named in errors).
pub fn arbiter_token(path: &Path, configured: bool, origin: &str) -> Result<String> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let key = if configured {
        format!(" ({origin}: key console.token_file)")
    } else {
        String::new()
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            return crate::console::token::parse_file(&text).map_err(|e| {
                anyhow!(
                    "the arbiter's token file {}{key}: {e}; delete it to have a new one made",
                    path.display()
                )
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!(
            "cannot read the arbiter's token file {}{key}: {e}",
            path.display()
        ),
    }
    let mut random = [0u8; crate::console::token::TOKEN_BYTES];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut random))
        .context("cannot read random bytes from /dev/urandom for the arbiter's token")?;
    let token = crate::console::token::from_bytes(&random);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}{key}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| {
            format!(
                "cannot create the arbiter's token file {}{key}",
                path.display()
            )
        })?;
    file.write_all(format!("{token}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write the arbiter's token file {}", path.display()))?;
    Ok(token)
}

/// The id of a group given by name (from /etc/group) or by number.
fn group_id(group: &str) -> Result<u32> {
    if let Ok(gid) = group.parse::<u32>() {
        return Ok(gid);
    }
    let text = std::fs::read_to_string("/etc/group")
        .context("cannot read /etc/group to find the console group (key console.group)")?;
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split(':');
            let name = fields.next()?;
            let gid = fields.nth(1)?.parse::<u32>().ok()?;
            (name == group).then_some(gid)
        })
        .next()
        .with_context(|| {
            format!(
                "there is no group '{group}' (key console.group); give an existing group's \
                 name or number"
            )
        })
}

/// A line that is refused before it is read as a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BadLine {
    TooLong,
    NotText,
}

/// Reads lines of at most [`MAX_LINE`] bytes. Cancel-safe: the partial line lives here, not in
/// the future, so a broadcast written between two reads loses nothing of a line still arriving.
struct LineReader {
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    buf: Vec<u8>,
    too_long: bool,
}

impl LineReader {
    /// The next line. `Ok(None)` at the end of the stream; an over-long line is consumed to its
    /// end and reported as `Err(BadLine::TooLong)`, one that is not UTF-8 as
    /// `Err(BadLine::NotText)`. A half line at the end of the stream is a line.
    async fn next(&mut self) -> std::io::Result<Option<Result<String, BadLine>>> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if self.buf.is_empty() && !self.too_long {
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.too_long {
                if self.buf.len() + chunk.len() > MAX_LINE {
                    self.too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(available.len());
            self.reader.consume(used);
            if found.is_some() {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> Result<String, BadLine> {
        let line = std::mem::take(&mut self.buf);
        if std::mem::replace(&mut self.too_long, false) {
            return Err(BadLine::TooLong);
        }
        String::from_utf8(line).map_err(|_| BadLine::NotText)
    }
}

/// Longest time a reply may take to be written: a client that does not read its replies is
/// dropped rather than holding its task (and its memory) forever.
const WRITE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

async fn write_all(write: &mut tokio::net::unix::OwnedWriteHalf, text: &str) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, write.write_all(text.as_bytes())).await,
        Ok(Ok(()))
    )
}

async fn connection(
    id: u64,
    stream: UnixStream,
    mut session: Session,
    hub: mpsc::Sender<HubMsg>,
    mut events: broadcast::Receiver<Broadcast>,
    cancel: CancellationToken,
) {
    debug!("console connection opened");
    let (read, mut write) = stream.into_split();
    let mut lines = LineReader {
        reader: BufReader::new(read),
        buf: Vec::new(),
        too_long: false,
    };
    let greeting = wire::encode_event(&format!(
        "tactus console, role {}; type help for the commands",
        session.role()
    ));
    if !write_all(&mut write, &greeting).await {
        return;
    }
    loop {
        let line = tokio::select! {
            _ = cancel.cancelled() => break,
            event = events.recv() => {
                let text = match event {
                    Ok(b) if b.origin != Some(id) => wire::encode_event(&b.text),
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(n)) => wire::encode_event(&format!(
                        "({n} events skipped: this client reads too slowly)"
                    )),
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if !write_all(&mut write, &text).await {
                    break;
                }
                continue;
            }
            line = lines.next() => line,
        };
        let reply = match line {
            Err(e) => {
                debug!("console read failed: {e}");
                break;
            }
            Ok(None) => break,
            Ok(Some(Err(BadLine::TooLong))) => Reply::error(format!(
                "the line is longer than the {MAX_LINE} bytes a command may have; nothing was done"
            )),
            Ok(Some(Err(BadLine::NotText))) => {
                Reply::error("the line is not UTF-8 text (binary data?); nothing was done")
            }
            Ok(Some(Ok(text))) => {
                // A blank line (an extra Enter) is no command and gets no reply.
                if text.trim().is_empty() {
                    continue;
                }
                match session.parse(&text) {
                    Err(e) => {
                        info!(role = %session.role(), "console line refused: {e}");
                        Reply::error(e.to_string())
                    }
                    Ok(Command::Quit) => {
                        let _ = write_all(&mut write, &end_reply("bye")).await;
                        break;
                    }
                    Ok(Command::Help(topic)) => Reply::ok(help_lines(session.role(), topic)),
                    Ok(Command::Role(role)) => {
                        info!(%role, "console role");
                        ended(format!("role {role}"))
                    }
                    Ok(Command::Login { .. }) => {
                        info!("console logged in as the arbiter");
                        ended("role arbiter".to_string())
                    }
                    Ok(command) => {
                        info!(role = %session.role(), command = text.trim(), "console command");
                        ask_hub(&hub, id, session.role(), command).await
                    }
                }
            }
        };
        if !write_all(&mut write, &reply.encode()).await {
            break;
        }
    }
    debug!("console connection closed");
}

/// A reply with no body and a summary.
fn ended(summary: String) -> Reply {
    Reply {
        body: Vec::new(),
        end: End::Ok(summary),
    }
}

fn end_reply(summary: &str) -> String {
    ended(summary.to_string()).encode()
}

async fn ask_hub(hub: &mpsc::Sender<HubMsg>, conn: u64, role: Role, command: Command) -> Reply {
    let (tx, rx) = oneshot::channel();
    let msg = HubMsg::Console {
        conn,
        role,
        command,
        reply: tx,
    };
    if hub.send(msg).await.is_err() {
        return Reply::error("the game is shutting down; nothing was done");
    }
    rx.await
        .unwrap_or_else(|_| Reply::error("the game is shutting down; nothing was done"))
}
