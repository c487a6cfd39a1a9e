//! The console client's sessions: one-shot (send one command, print its reply up to the end
//! line, say whether the daemon carried it out) and interactive (each line typed sent, every
//! line the daemon sends printed as it comes: plain lines, no prompt, no colours, no cursor
//! movement, so that a screen reader or a Braille display follows it). The interactive session
//! reads the socket and the keyboard on two threads, so that the daemon's event lines are
//! printed while the user types.

use std::{
    io::{self, BufRead, Write},
    os::unix::net::UnixStream,
    sync::mpsc,
    time::{Duration, Instant},
};

use super::lines::Lines;
use tactus_core::{
    announce::voice::KeypadWords,
    commands,
    console::{
        MAX_LINE,
        wire::{self, WireLine},
    },
};

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
        .and_then(commands::lookup)
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
    err: E,
    linger: Duration,
) -> io::Result<bool>
where
    I: BufRead + Send + 'static,
    O: Write + Send + 'static,
    E: Write,
{
    interactive_reconnecting(stream, preamble, input, out, err, linger, None)
}

/// A way to connect again (the socket's path, checked as at the start), tried once a second
/// while the daemon is away.
pub type Reconnect = Box<dyn FnMut() -> Option<UnixStream>>;

/// What a console connected again sends first, asked with the new connection: the preamble for
/// it (the arbiter's login with the token of the game the daemon plays now: a daemon started
/// again may play a new game, with a new token) and what to tell the user about it, if anything.
pub type Relogin = Box<dyn FnMut(&UnixStream) -> (Vec<String>, Option<String>)>;

/// [`interactive`], and when the daemon goes away (a restart), connecting again by itself with
/// `reconnect`: said on `err` ("the daemon closed the connection; connecting again ..." and
/// "connected again"), the preamble (the arbiter's login, the role) sent anew, and the session
/// goes on. Lines typed while the daemon is away are not sent, and said so.
pub fn interactive_reconnecting<I, O, E>(
    stream: UnixStream,
    preamble: &[String],
    input: I,
    out: O,
    err: E,
    linger: Duration,
    reconnect: Option<Reconnect>,
) -> io::Result<bool>
where
    I: BufRead + Send + 'static,
    O: Write + Send + 'static,
    E: Write,
{
    interactive_following(
        stream, preamble, input, out, err, linger, reconnect, None, None,
    )
}

/// [`interactive_reconnecting`], the preamble sent on a new connection asked of `relogin` (the
/// arbiter's console follows a new game's token), and what it says told on `err`.
///
/// `keypad`: this is a blind player's keypad (the preamble switches to his role), and these are
/// his words. The daemon's greeting, sent before it knows the role ("tactus console, role
/// assistant ..."), is not shown (the reply to his role, in his words, says what the console
/// is), and the console's own remarks while the daemon is away are his words, not English.
#[allow(clippy::too_many_arguments)]
pub fn interactive_following<I, O, E>(
    stream: UnixStream,
    preamble: &[String],
    input: I,
    out: O,
    mut err: E,
    linger: Duration,
    mut reconnect: Option<Reconnect>,
    mut relogin: Option<Relogin>,
    keypad: Option<KeypadWords>,
) -> io::Result<bool>
where
    I: BufRead + Send + 'static,
    O: Write + Send + 'static,
    E: Write,
{
    let (tx, rx) = mpsc::channel();
    let out = std::sync::Arc::new(std::sync::Mutex::new(out));
    let hide_greeting = keypad.is_some();
    let spawn_reader = |stream: &UnixStream| -> io::Result<std::thread::JoinHandle<()>> {
        let tx = tx.clone();
        let mut lines = Lines::new(stream.try_clone()?);
        let out = out.clone();
        Ok(std::thread::spawn(move || {
            let mut first = true;
            // The end of the stream and a read error both mean the daemon is gone.
            while let Ok(Some(line)) = lines.next_line(None) {
                let text = match wire::classify(&line) {
                    // The daemon greets every connection first, before the preamble's role.
                    WireLine::Event(_) if first && hide_greeting => {
                        first = false;
                        continue;
                    }
                    WireLine::Body(text) => shown(text),
                    _ => shown(&line),
                };
                first = false;
                let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
                    break;
                }
            }
            let _ = tx.send(Event::SocketClosed);
        }))
    };
    let mut stream = stream;
    let mut reader = Some(spawn_reader(&stream)?);
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
    let mut writer = stream.try_clone()?;
    let mut preamble = preamble.to_vec();
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
                if quit_sent {
                    break true;
                }
                let Some(again) = reconnect.as_mut() else {
                    writeln!(err, "the daemon closed the connection")?;
                    break false;
                };
                match &keypad {
                    Some(words) => writeln!(err, "{}", words.away)?,
                    None => writeln!(
                        err,
                        "the daemon closed the connection; connecting again once a second (a \
                         restarted daemon is found by itself; Ctrl-C leaves)"
                    )?,
                }
                if let Some(r) = reader.take() {
                    let _ = r.join();
                }
                // Away: typed lines are not sent; the end of the input ends the session.
                let found = loop {
                    match rx.recv_timeout(Duration::from_secs(1)) {
                        Ok(Event::InputEnded) => break None,
                        Ok(Event::Typed(line)) if !line.trim().is_empty() => match &keypad {
                            Some(words) => writeln!(err, "{}", words.not_sent(line.trim()))?,
                            None => {
                                writeln!(err, "not sent (the daemon is away): {}", line.trim())?
                            }
                        },
                        _ => {}
                    }
                    if let Some(s) = again() {
                        break Some(s);
                    }
                };
                let Some(s) = found else {
                    break false;
                };
                stream = s;
                writer = stream.try_clone()?;
                reader = Some(spawn_reader(&stream)?);
                match &keypad {
                    Some(words) => writeln!(err, "{}", words.back)?,
                    None => writeln!(err, "connected again")?,
                }
                if let Some(relogin) = relogin.as_mut() {
                    let (lines, remark) = relogin(&stream);
                    if let Some(remark) = remark {
                        writeln!(err, "{remark}")?;
                    }
                    preamble = lines;
                }
                alive = preamble.iter().all(|line| send(&mut writer, line));
            }
        }
    };
    // Wakes the reader thread if it still waits, so that it can be joined.
    let _ = stream.shutdown(std::net::Shutdown::Both);
    if let Some(r) = reader.take() {
        let _ = r.join();
    }
    Ok(by_user)
}
