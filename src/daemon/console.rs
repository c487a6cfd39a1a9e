//! The minimal console: a Unix socket (mode 0600) with a line protocol, for the assistant and the
//! arbiter (and for tests). The full console language with roles comes with the next issue; this
//! one is built so that it grows by adding rows to [`COMMANDS`] and arms to [`parse`].
//!
//! Protocol: one command per line. The reply is zero or more lines saying what happened (the
//! notes the command produced), then `ok`; a line that is not a command gets one
//! `error: ...` line. Lines starting with `#` may arrive at any time between replies: what
//! happens in the game (announcements, notes), for a watching assistant.
//!
//! This module owns the parsing ([`parse`], pure, unit-tested) and the socket server (one task
//! per connection). It must not touch the game: every command goes to the hub, which owns the
//! arbiter, and the reply comes back from there. A rude client (garbage, endless lines, a
//! disconnect mid-reply) only ends its own connection.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use shakmaty::{Color, KnownOutcome, Role};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::{UnixListener, UnixStream},
    sync::{broadcast, mpsc, oneshot},
};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

use super::hub::{Broadcast, HubMsg};
use crate::{arbiter::Input, console::table::edit_distance, rules::game};

/// Longest command line accepted; a longer one is refused and the rest of it skipped.
pub const MAX_LINE: usize = 4096;

/// A console command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// The sighted player stops his clock.
    Press,
    /// The sighted player's move (boards without sensors).
    Move(String),
    /// The promotion piece the blind player announced.
    Promote(Role),
    /// F.6: the move just announced was wrong; this is the right one.
    Correct(String),
    /// F.8: a player's own scoresheet.
    Scoresheet {
        side: Color,
        sans: Vec<String>,
    },
    ConfirmClocks,
    Pause,
    Resume,
    Offer(Color),
    Accept(Color),
    Decline(Color),
    Resign(Color),
    /// The arbiter declares the result.
    Result(KnownOutcome),
    /// Start the clocks (when the boards did not start the game by themselves).
    Start,
    Status,
    Help,
    Quit,
}

/// Every command: name, arguments, what it does. `help` prints this; unknown commands are
/// matched against the names.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    ("press", "", "the sighted player stops his clock"),
    (
        "move",
        "SAN",
        "enter the sighted player's move (board without sensors)",
    ),
    (
        "promote",
        "q|r|b|n",
        "the promotion piece the blind player announced",
    ),
    (
        "correct",
        "SAN",
        "F.6: the move just announced was wrong; announce this one",
    ),
    (
        "scoresheet",
        "white|black MOVES...",
        "F.8: enter a player's own scoresheet",
    ),
    (
        "confirm-clocks",
        "",
        "accept the clock times proposed after a retrace",
    ),
    ("pause", "", "6.12: stop the clocks"),
    ("resume", "", "6.12: restart the clocks"),
    ("offer", "white|black", "a draw offer"),
    ("accept", "white|black", "accept the draw offer"),
    ("decline", "white|black", "decline the draw offer"),
    ("resign", "white|black", "resignation"),
    (
        "result",
        "1-0|0-1|1/2-1/2",
        "the arbiter declares the result",
    ),
    ("start", "", "start the clocks"),
    (
        "status",
        "",
        "the position, whose move it is, the clocks and the boards",
    ),
    ("help", "", "this list"),
    ("quit", "", "close this connection"),
];

/// Why a line is not a command; the text is for the person typing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

fn err<T>(text: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(text.into()))
}

fn side(word: Option<&str>, command: &str) -> Result<Color, ParseError> {
    match word.map(str::to_ascii_lowercase).as_deref() {
        Some("white" | "w") => Ok(Color::White),
        Some("black" | "b") => Ok(Color::Black),
        Some(other) => err(format!("'{command}' needs white or black, not '{other}'")),
        None => err(format!("'{command}' needs a side: {command} white|black")),
    }
}

fn rest(words: &[&str], command: &str, what: &str) -> Result<String, ParseError> {
    if words.is_empty() {
        return err(format!("'{command}' needs {what}: {command} {what}"));
    }
    Ok(words.join(" "))
}

/// Whether a scoresheet word is a move number (`12.`, `12...`) or a result, not a move.
fn is_number_or_result(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    (!digits.is_empty() && digits.len() < token.len() && digits.bytes().all(|b| b.is_ascii_digit()))
        || matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// The moves of a scoresheet line: move numbers and a result are skipped, `12.Nf3` is `Nf3`.
pub fn scoresheet_moves(words: &[&str]) -> Vec<String> {
    words
        .iter()
        .filter(|w| !is_number_or_result(w))
        .map(|w| {
            // "12.Nf3" or "12...Nf6": the number glued to the move.
            match w.rfind('.') {
                Some(i)
                    if w[..i]
                        .trim_end_matches('.')
                        .bytes()
                        .all(|b| b.is_ascii_digit()) =>
                {
                    w[i + 1..].to_string()
                }
                _ => (*w).to_string(),
            }
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The closest command name, for "did you mean".
fn suggestion(word: &str) -> Option<&'static str> {
    COMMANDS
        .iter()
        .map(|(name, _, _)| (*name, edit_distance(word, name)))
        .filter(|(name, d)| *d <= 2.max(name.len() / 3))
        .min_by_key(|(_, d)| *d)
        .map(|(name, _)| name)
}

/// Parse one line. Pure.
pub fn parse(line: &str) -> Result<Command, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, args)) = words.split_first() else {
        return err("empty line; type help for the commands");
    };
    let name = first.to_ascii_lowercase();
    let no_args = |c: Command| {
        if args.is_empty() {
            Ok(c)
        } else {
            err(format!("'{name}' takes no arguments"))
        }
    };
    match name.as_str() {
        "press" => no_args(Command::Press),
        "move" => Ok(Command::Move(rest(args, "move", "SAN")?)),
        "correct" => Ok(Command::Correct(rest(args, "correct", "SAN")?)),
        "promote" => {
            let piece = rest(args, "promote", "q|r|b|n")?;
            let role = match piece.to_ascii_lowercase().as_str() {
                "q" | "queen" | "d" | "dame" => Role::Queen,
                "r" | "rook" | "t" | "turm" => Role::Rook,
                "b" | "bishop" | "l" | "laeufer" | "läufer" => Role::Bishop,
                "n" | "knight" | "s" | "springer" => Role::Knight,
                other => {
                    return err(format!("'{other}' is not a promotion piece: q, r, b or n"));
                }
            };
            Ok(Command::Promote(role))
        }
        "scoresheet" => {
            let side = side(args.first().copied(), "scoresheet")?;
            let sans = scoresheet_moves(&args[1..]);
            Ok(Command::Scoresheet { side, sans })
        }
        "confirm-clocks" => no_args(Command::ConfirmClocks),
        "pause" => no_args(Command::Pause),
        "resume" => no_args(Command::Resume),
        "start" => no_args(Command::Start),
        "status" => no_args(Command::Status),
        "help" => Ok(Command::Help),
        "quit" | "exit" => no_args(Command::Quit),
        "offer" | "accept" | "decline" | "resign" => {
            if args.len() > 1 {
                return err(format!("'{name}' takes one side: {name} white|black"));
            }
            let by = side(args.first().copied(), &name)?;
            Ok(match name.as_str() {
                "offer" => Command::Offer(by),
                "accept" => Command::Accept(by),
                "decline" => Command::Decline(by),
                _ => Command::Resign(by),
            })
        }
        "result" => {
            let text = rest(args, "result", "1-0|0-1|1/2-1/2")?;
            match text.as_str() {
                "1-0" | "0-1" | "1/2-1/2" => Ok(Command::Result(
                    text.parse::<KnownOutcome>()
                        .map_err(|_| ParseError(format!("'{text}' is not a result")))?,
                )),
                _ => err(format!("'{text}' is not a result: 1-0, 0-1 or 1/2-1/2")),
            }
        }
        other => match suggestion(other) {
            Some(s) => err(format!(
                "unknown command '{other}'; did you mean '{s}'? (help lists the commands)"
            )),
            None => err(format!(
                "unknown command '{other}'; help lists the commands"
            )),
        },
    }
}

impl Command {
    /// The arbiter input this command is, if it is one (status, help and quit are not).
    pub fn to_input(&self) -> Option<Input> {
        Some(match self {
            Command::Press => Input::ClockPress,
            Command::Move(san) => Input::EnterMove(san.clone()),
            Command::Promote(role) => Input::Promote(*role),
            Command::Correct(san) => Input::Correct(san.clone()),
            Command::Scoresheet { side, sans } => Input::Scoresheet {
                side: *side,
                sans: sans.clone(),
            },
            Command::ConfirmClocks => Input::ConfirmClocks,
            Command::Pause => Input::Rules(game::Input::Pause),
            Command::Resume => Input::Rules(game::Input::Resume),
            Command::Offer(by) => Input::Rules(game::Input::OfferDraw { by: *by }),
            Command::Accept(by) => Input::Rules(game::Input::AcceptDraw { by: *by }),
            Command::Decline(by) => Input::Rules(game::Input::DeclineDraw { by: *by }),
            Command::Resign(by) => Input::Rules(game::Input::Resign { by: *by }),
            Command::Result(outcome) => {
                Input::Rules(game::Input::ArbiterResult { outcome: *outcome })
            }
            Command::Start => Input::Start,
            Command::Status | Command::Help | Command::Quit => return None,
        })
    }
}

/// The help text, one line per command.
pub fn help_lines() -> Vec<String> {
    COMMANDS
        .iter()
        .map(|(name, args, what)| {
            let usage = if args.is_empty() {
                (*name).to_string()
            } else {
                format!("{name} {args}")
            };
            format!("{usage:<34} {what}")
        })
        .collect()
}

/// The listening socket; removed again when dropped.
pub struct ConsoleSocket {
    path: PathBuf,
    listener: UnixListener,
}

impl ConsoleSocket {
    /// Bind `path` (a stale socket from a crashed run is replaced) with mode 0600: the console
    /// can change the game, so only the daemon's user may connect.
    pub fn bind(path: &Path) -> Result<ConsoleSocket> {
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
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .with_context(|| format!("cannot make {} private (mode 0600)", path.display()))?;
        Ok(ConsoleSocket {
            path: path.to_owned(),
            listener,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Accept connections until `cancel`; each is served by a task of its own.
    pub async fn serve(
        self,
        hub: mpsc::Sender<HubMsg>,
        events: broadcast::Sender<Broadcast>,
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
                        tokio::spawn(
                            connection(id, stream, hub.clone(), events.subscribe(), cancel.clone())
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

/// Reads lines of at most [`MAX_LINE`] bytes. Cancel-safe: the partial line lives here, not in
/// the future, so a broadcast written between two reads loses nothing of a line still arriving.
struct LineReader {
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    buf: Vec<u8>,
    too_long: bool,
}

impl LineReader {
    /// The next line. `Ok(None)` at the end of the stream; an over-long line is consumed to its
    /// end and reported as `Err(())`.
    async fn next(&mut self) -> std::io::Result<Option<Result<String, ()>>> {
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

    fn take(&mut self) -> Result<String, ()> {
        let line = std::mem::take(&mut self.buf);
        if std::mem::replace(&mut self.too_long, false) {
            Err(())
        } else {
            Ok(String::from_utf8_lossy(&line).into_owned())
        }
    }
}

async fn connection(
    id: u64,
    stream: UnixStream,
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
    loop {
        let line = tokio::select! {
            _ = cancel.cancelled() => break,
            event = events.recv() => {
                match event {
                    Ok(b) if b.origin != Some(id) => {
                        if write.write_all(format!("# {}\n", b.text).as_bytes()).await.is_err() {
                            break;
                        }
                    }
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        let text = format!("# ({n} events skipped: this client reads too slowly)\n");
                        if write.write_all(text.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
                continue;
            }
            line = lines.next() => line,
        };
        let reply: Vec<String> = match line {
            Err(e) => {
                debug!("console read failed: {e}");
                break;
            }
            Ok(None) => break,
            Ok(Some(Err(()))) => vec![format!("error: line longer than {MAX_LINE} bytes, ignored")],
            Ok(Some(Ok(text))) => {
                let text = text.trim();
                if text.is_empty() {
                    continue;
                }
                match parse(text) {
                    Err(e) => vec![format!("error: {e}")],
                    Ok(Command::Quit) => {
                        let _ = write.write_all(b"bye\n").await;
                        break;
                    }
                    Ok(command) => {
                        info!(command = text, "console command");
                        let (tx, rx) = oneshot::channel();
                        let msg = HubMsg::Console {
                            conn: id,
                            command,
                            reply: tx,
                        };
                        if hub.send(msg).await.is_err() {
                            vec!["error: the game is shutting down".to_string()]
                        } else {
                            rx.await.unwrap_or_else(|_| {
                                vec!["error: the game is shutting down".to_string()]
                            })
                        }
                    }
                }
            }
        };
        let mut text = String::new();
        for line in reply {
            text.push_str(&line);
            text.push('\n');
        }
        if write.write_all(text.as_bytes()).await.is_err() {
            break;
        }
    }
    debug!("console connection closed");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_parses() {
        assert_eq!(parse("press"), Ok(Command::Press));
        assert_eq!(parse("  move  Nf3 "), Ok(Command::Move("Nf3".into())));
        assert_eq!(parse("move 0-0"), Ok(Command::Move("0-0".into())));
        assert_eq!(parse("promote q"), Ok(Command::Promote(Role::Queen)));
        assert_eq!(
            parse("promote Springer"),
            Ok(Command::Promote(Role::Knight))
        );
        assert_eq!(parse("correct Nbd2"), Ok(Command::Correct("Nbd2".into())));
        assert_eq!(
            parse("scoresheet black 1. e4 e5 2.Nf3 2...Nc6 3. Bb5 *"),
            Ok(Command::Scoresheet {
                side: Color::Black,
                sans: vec![
                    "e4".into(),
                    "e5".into(),
                    "Nf3".into(),
                    "Nc6".into(),
                    "Bb5".into()
                ]
            })
        );
        assert_eq!(parse("confirm-clocks"), Ok(Command::ConfirmClocks));
        assert_eq!(parse("pause"), Ok(Command::Pause));
        assert_eq!(parse("RESUME"), Ok(Command::Resume));
        assert_eq!(parse("offer white"), Ok(Command::Offer(Color::White)));
        assert_eq!(parse("accept black"), Ok(Command::Accept(Color::Black)));
        assert_eq!(parse("decline b"), Ok(Command::Decline(Color::Black)));
        assert_eq!(parse("resign w"), Ok(Command::Resign(Color::White)));
        assert_eq!(
            parse("result 1/2-1/2"),
            Ok(Command::Result(KnownOutcome::Draw))
        );
        assert_eq!(
            parse("result 0-1"),
            Ok(Command::Result(KnownOutcome::Decisive {
                winner: Color::Black
            }))
        );
        assert_eq!(parse("status"), Ok(Command::Status));
        assert_eq!(parse("start"), Ok(Command::Start));
        assert_eq!(parse("help"), Ok(Command::Help));
        assert_eq!(parse("quit"), Ok(Command::Quit));
    }

    #[test]
    fn every_listed_command_is_parsed() {
        for (name, args, _) in COMMANDS {
            let line = match *args {
                "" => name.to_string(),
                "white|black" | "white|black MOVES..." => format!("{name} white"),
                "1-0|0-1|1/2-1/2" => format!("{name} 1-0"),
                "q|r|b|n" => format!("{name} q"),
                _ => format!("{name} e4"),
            };
            assert!(parse(&line).is_ok(), "{line}: {:?}", parse(&line));
        }
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let e = parse("stauts").unwrap_err().0;
        assert!(
            e.contains("unknown command 'stauts'") && e.contains("'status'"),
            "{e}"
        );
        assert!(parse("pres").unwrap_err().0.contains("'press'"));
        let e = parse("xyzzy").unwrap_err().0;
        assert!(e.contains("unknown command") && e.contains("help"), "{e}");
        assert!(parse("").unwrap_err().0.contains("help"));
        assert!(parse("move").unwrap_err().0.contains("SAN"));
        assert!(
            parse("offer grey")
                .unwrap_err()
                .0
                .contains("white or black")
        );
        assert!(parse("offer").unwrap_err().0.contains("white|black"));
        assert!(parse("result 2-0").unwrap_err().0.contains("1-0"));
        assert!(parse("promote k").unwrap_err().0.contains("q, r, b or n"));
        assert!(parse("press now").unwrap_err().0.contains("no arguments"));
    }

    #[test]
    fn commands_become_inputs() {
        assert_eq!(parse("press").unwrap().to_input(), Some(Input::ClockPress));
        assert_eq!(
            parse("resign black").unwrap().to_input(),
            Some(Input::Rules(game::Input::Resign { by: Color::Black }))
        );
        assert_eq!(
            parse("pause").unwrap().to_input(),
            Some(Input::Rules(game::Input::Pause))
        );
        assert_eq!(parse("status").unwrap().to_input(), None);
        assert_eq!(parse("help").unwrap().to_input(), None);
    }

    #[test]
    fn help_lists_every_command() {
        let help = help_lines();
        assert_eq!(help.len(), COMMANDS.len());
        assert!(help.iter().any(|l| l.starts_with("scoresheet white|black")));
    }
}
