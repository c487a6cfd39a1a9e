//! One console connection: the greeting, the event lines (`# ...`) of the consoles this one's role
//! sees, and each line read answered: `help`, `role`, `login` and `quit` here (they need no game),
//! every other command by the hub (a Braille scoresheet pasted line by line is gathered by the
//! session and reaches the hub whole, at `end`). A command the role may not use is refused by the session,
//! before the hub hears of it; at the blind player's keypad the hub then tells him (aloud, in his
//! words), and answers his `help`. Wrong logins are answered ever more slowly, then the connection is
//! closed; a sealed move never reaches the log; every line written has its control characters
//! escaped; commands beyond the console's pace ([`Pace`]) are refused before the hub hears of
//! them, so a flooding keypad grows neither the journal nor the transcript. A rude client only
//! costs its own task.
//!
//! A connection that has not said who it is (`role` or `login`) is closed after
//! [`ConsoleTimes::idle`](super::ConsoleTimes) without a whole line: forgotten or half-open
//! connections give their places back. One in a place kept for the arbiter
//! ([`Place::KeptForArbiter`]) takes nothing but `login`, within
//! [`ConsoleTimes::arbiter_login`](super::ConsoleTimes), once, and gives the place up to a newer
//! connection while the login has not come ([`super::WAITING_FOR_ARBITER`]).

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{
    io::AsyncWriteExt,
    net::{UnixStream, unix::OwnedWriteHalf},
    sync::{broadcast, mpsc, oneshot},
    time::Instant,
};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{
    Conn, KeptPlace, LOGIN_DELAY, MAX_LOGIN_FAILURES, Place,
    lines::{BadLine, LineReader},
    pace::{Pace, Verdict},
    refusals::{Refusals, lock},
};
use crate::{
    daemon::hub::{Broadcast, HubMsg},
    speech::transcript::escape_controls,
};
use tactus_core::{
    commands,
    console::{
        Command, ConsoleError, MAX_LINE, Paste, Role, Session, Side, help_lines,
        wire::{self, End, Reply},
    },
};

/// Longest time a reply may take to be written: a client that does not read its replies is
/// dropped rather than holding its task (and its memory) forever.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

async fn write_all(write: &mut OwnedWriteHalf, text: &str) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, write.write_all(text.as_bytes())).await,
        Ok(Ok(()))
    )
}

/// Serve one connection until its client goes, its role's events end, it stays silent too long
/// without having said who it is, or `cancel`.
pub(super) async fn connection(
    place: Conn,
    stream: UnixStream,
    session: Session,
    hub: mpsc::Sender<HubMsg>,
    mut events: broadcast::Receiver<Broadcast>,
    refusals: Arc<Mutex<Refusals>>,
    cancel: CancellationToken,
) {
    debug!(place = ?place.place, "console connection opened");
    let (read, write) = stream.into_split();
    let mut lines = LineReader::new(read);
    let times = place.times;
    // Cancelled when a newer connection is given this place kept for the arbiter before his
    // login came (never, in an open place).
    let taken = place
        .kept
        .as_ref()
        .map_or_else(CancellationToken::new, |k| k.taken.clone());
    let mut conn = Connection {
        id: place.id,
        place: place.place,
        session,
        write,
        hub,
        refusals,
        cancel: cancel.clone(),
        failed_logins: 0,
        identified: false,
        pace: Pace::new(Instant::now()),
        flood_line: None,
        kept: place.kept,
    };
    let greeting = match conn.place {
        Place::Open => format!(
            "tactus console, role {}; type help for the commands",
            conn.session.role()
        ),
        Place::KeptForArbiter => format!(
            "tactus console: all {} places for consoles are taken; this one is kept for the \
             arbiter: log in within {} (login TOKEN), or it is closed",
            place.open_places,
            seconds(times.arbiter_login)
        ),
    };
    if !write_all(&mut conn.write, &wire::encode_event(&greeting)).await {
        return;
    }
    // Until the connection says who it is: when it is closed for silence. A place kept for the
    // arbiter is given for one login, so its time is not renewed by other lines.
    let mut deadline = Instant::now()
        + match conn.place {
            Place::Open => times.idle,
            Place::KeptForArbiter => times.arbiter_login,
        };
    loop {
        let line = tokio::select! {
            _ = cancel.cancelled() => break,
            () = tokio::time::sleep_until(deadline), if !conn.identified => {
                conn.timed_out(times).await;
                break;
            }
            () = taken.cancelled(), if !conn.identified => {
                lock(&conn.refusals).closed_silent();
                let reply = Reply::error(
                    "closed: every place for consoles is taken, and this one, kept for the \
                     arbiter, was given to a newer connection before a login came here",
                );
                let _ = write_all(&mut conn.write, &clean(reply).encode()).await;
                break;
            }
            event = events.recv() => {
                if conn.event(event).await {
                    continue;
                }
                break;
            }
            line = lines.next() => line,
        };
        if conn.place == Place::Open {
            deadline = Instant::now() + times.idle;
        }
        let step = match line {
            Err(e) => {
                debug!("console read failed: {e}");
                break;
            }
            Ok(None) => break,
            Ok(Some(line)) => conn.line(line).await,
        };
        match step {
            Step::Reply(reply) => {
                if !write_all(&mut conn.write, &clean(reply).encode()).await {
                    break;
                }
            }
            Step::Nothing => {}
            Step::Close => break,
        }
    }
    debug!("console connection closed");
}

/// A duration as a console line says it: "60 s", "0.3 s".
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// A connection's side of the conversation: its session (its role), where it writes, and whom it
/// asks.
struct Connection {
    id: u64,
    place: Place,
    session: Session,
    write: OwnedWriteHalf,
    hub: mpsc::Sender<HubMsg>,
    refusals: Arc<Mutex<Refusals>>,
    cancel: CancellationToken,
    failed_logins: u32,
    /// Whether it has said who it is (a role chosen, or the arbiter's login): then it is kept
    /// however long it is quiet.
    identified: bool,
    /// How fast it may ask the game ([`Pace`]): a flood is refused before the hub hears it.
    pace: Pace,
    /// His keypad's line for the flood going on, in his words (the hub's answer to its first
    /// refusal): each further refusal repeats it.
    flood_line: Option<String>,
    /// Its claim on a place kept for the arbiter (given back when the connection ends).
    kept: Option<KeptPlace>,
}

/// What becomes of a line read.
enum Step {
    Reply(Reply),
    /// No reply (a blank line).
    Nothing,
    /// The connection ends; its last words, if any, are written.
    Close,
}

impl Connection {
    /// Silent too long without having said who it is: told why, and closed.
    async fn timed_out(&mut self, times: super::ConsoleTimes) {
        lock(&self.refusals).closed_silent();
        let why = match self.place {
            Place::Open => format!(
                "closed: nothing was sent for {} and this console has not said who it is; a \
                 console that says its role first (role assistant, role player, or login TOKEN) \
                 stays open however long it is quiet",
                seconds(times.idle)
            ),
            Place::KeptForArbiter => format!(
                "closed: no login within {}; this place is kept for the arbiter",
                seconds(times.arbiter_login)
            ),
        };
        debug!("console closed for silence");
        let _ = write_all(&mut self.write, &clean(Reply::error(why)).encode()).await;
    }

    /// An event line of the consoles: written if it is for this one (not caused by its own
    /// command, and for its role). False: the connection ends.
    async fn event(&mut self, event: Result<Broadcast, broadcast::error::RecvError>) -> bool {
        let text = match event {
            Ok(b)
                if b.origin != Some(self.id)
                    && b.to.reach(self.session.role(), self.session.seat()) =>
            {
                let text = b.text_for(self.session.role(), self.session.seat());
                wire::encode_event(&escape_controls(text))
            }
            Ok(_) => return true,
            Err(broadcast::error::RecvError::Lagged(n)) => wire::encode_event(&format!(
                "({n} events skipped: this client reads too slowly)"
            )),
            Err(broadcast::error::RecvError::Closed) => return false,
        };
        write_all(&mut self.write, &text).await
    }

    /// A line read: refused before it is read as a command when it is too long or no text.
    async fn line(&mut self, line: Result<String, BadLine>) -> Step {
        match line {
            Err(BadLine::TooLong) => Step::Reply(Reply::error(format!(
                "the line is longer than the {MAX_LINE} bytes a command may have; nothing was done"
            ))),
            Err(BadLine::NotText) => Step::Reply(Reply::error(
                "the line is not UTF-8 text (binary data?); nothing was done",
            )),
            // A blank line (an extra Enter) is no command and gets no reply; in a Braille
            // scoresheet being pasted it is one of its lines (the line numbers of its errors
            // count it), still without a reply.
            Ok(text) if text.trim().is_empty() && !self.session.pasting() => Step::Nothing,
            Ok(text) => self.command(&text).await,
        }
    }

    /// A command line: answered here when it needs no game, else by the hub.
    async fn command(&mut self, text: &str) -> Step {
        // A line of a pasted scoresheet is no command, whatever its first word.
        let name = if self.session.pasting() {
            None
        } else {
            command_name(text)
        };
        if self.place == Place::KeptForArbiter && !self.identified && name != Some("login") {
            lock(&self.refusals).closed_silent();
            let reply = Reply::error(
                "this place is kept for the arbiter and takes only his login (login TOKEN): \
                 every other place for consoles is taken; close one, or wait for a silent one \
                 to be closed; this connection is closed",
            );
            let _ = write_all(&mut self.write, &clean(reply).encode()).await;
            return Step::Close;
        }
        let parsed = self.session.parse(text);
        let role = self.session.role();
        // What reaches the hub is journaled and written to the transcript (a keypad's refusal
        // is said aloud too): one console may not flood them. `status` changes and writes
        // nothing.
        let to_hub = match &parsed {
            Ok(Command::Status | Command::Quit | Command::Role { .. } | Command::Login { .. })
            | Ok(Command::Paste(_)) => false,
            Ok(Command::Help(_)) => role == Role::Player,
            Ok(_) => true,
            Err(_) => role == Role::Player && name != Some("login"),
        };
        if to_hub {
            let flooding = self.pace.flooding();
            if let Verdict::Refused(why) = self.pace.take(role, Instant::now()) {
                if !flooding {
                    warn!(
                        role = %role,
                        conn = self.id,
                        "console {}, in the {role}'s role, sends a flood of commands; they are \
                         refused beyond the pace until it slows",
                        self.id
                    );
                }
                // His keypad: the first refusal of a flood is said to him, in his words (a
                // stuck key on a keypad without a display must not go unheard); the further
                // ones repeat its line, nothing more reaches the hub.
                if role == Role::Player {
                    if !flooding {
                        let told = tell_player(
                            &self.hub,
                            self.session.seat(),
                            ConsoleError::TooFast { why },
                        )
                        .await;
                        self.flood_line = match &told.end {
                            End::Error(line) => Some(line.clone()),
                            End::Ok(_) => None,
                        };
                        return Step::Reply(told);
                    }
                    if let Some(line) = &self.flood_line {
                        return Step::Reply(Reply::error(line.clone()));
                    }
                }
                return Step::Reply(Reply::error(why));
            }
        }
        let reply = match parsed {
            Err(e) if name == Some("login") => return self.failed_login(e).await,
            // The blind player's keypad: the hub tells him why, aloud and in his words.
            Err(e) if role == Role::Player => {
                info!(role = %role, "console line refused: {e}");
                tell_player(&self.hub, self.session.seat(), e).await
            }
            Err(e) if name == Some("seal") => {
                // The error may quote the sealed move: only the refusal is logged.
                info!(role = %role, "console seal refused");
                Reply::error(e.to_string())
            }
            Err(e) => {
                info!(role = %role, "console line refused: {e}");
                Reply::error(e.to_string())
            }
            Ok(Command::Quit) => {
                let _ = write_all(&mut self.write, &end_reply("bye")).await;
                return Step::Close;
            }
            // His help is the hub's: it knows his language and whether he trains.
            Ok(Command::Help(topic)) if role == Role::Player => {
                ask_hub(
                    &self.hub,
                    self.id,
                    role,
                    self.session.seat(),
                    Command::Help(topic),
                )
                .await
            }
            Ok(Command::Help(topic)) => Reply::ok(help_lines(role, topic)),
            Ok(Command::Role { role, seat }) => {
                self.identified = true;
                info!(%role, ?seat, "console role");
                // His keypad: one line in his words, which seat it serves and how to get help.
                if let Some(ready) = self.session.ready() {
                    return Step::Reply(ended(ready));
                }
                match self.session.seat() {
                    Some(seat) => ended(format!("role {role} {seat}")),
                    None => ended(format!("role {role}")),
                }
            }
            Ok(Command::Login { .. }) => {
                // In a place kept for him, the place becomes his, unless a newer connection
                // was given it a moment ago.
                if let Some(kept) = &mut self.kept
                    && !kept.logged_in()
                {
                    let reply = Reply::error(
                        "closed: this place, kept for the arbiter, was given to a newer \
                         connection a moment before the login came; connect again",
                    );
                    let _ = write_all(&mut self.write, &clean(reply).encode()).await;
                    return Step::Close;
                }
                self.identified = true;
                info!("console logged in as the arbiter");
                ended("role arbiter".to_string())
            }
            Ok(Command::Paste(paste)) => match paste {
                Paste::Opened { side, format } => ended(format!(
                    "paste {} scoresheet in {format} line by line (a header and page breaks may \
                     come with it), then type end to compare it, or cancel",
                    whose(side)
                )),
                Paste::Line { lines } => ended(format!("line {lines}")),
                Paste::Blank => return Step::Nothing,
                Paste::Dropped => {
                    ended("the pasted scoresheet is dropped; nothing was compared".into())
                }
            },
            Ok(command) => {
                // The sealed move is secret until the envelope is opened at the resumption (the
                // adjournment rules): never in the log.
                let logged = if name == Some("seal") {
                    "seal (move withheld)"
                } else {
                    text.trim()
                };
                info!(role = %role, command = logged, "console command");
                ask_hub(&self.hub, self.id, role, self.session.seat(), command).await
            }
        };
        Step::Reply(reply)
    }

    /// A wrong login: slower with each failure, then closed. Guessing costs time, and the log
    /// gets a summary rather than a line per guess.
    async fn failed_login(&mut self, error: ConsoleError) -> Step {
        self.failed_logins += 1;
        lock(&self.refusals).failed_login(self.id);
        let wait = LOGIN_DELAY * 2u32.pow(self.failed_logins.min(8) - 1);
        tokio::select! {
            _ = self.cancel.cancelled() => return Step::Close,
            _ = tokio::time::sleep(wait) => {}
        }
        // A place kept for the arbiter is given for one login.
        if self.failed_logins >= MAX_LOGIN_FAILURES || self.place == Place::KeptForArbiter {
            lock(&self.refusals).closed_for_logins();
            let reply = Reply::error(if self.place == Place::KeptForArbiter {
                format!("{error}; this place is kept for the arbiter: the connection is closed")
            } else {
                format!("{error}; {MAX_LOGIN_FAILURES} failed logins: the connection is closed")
            });
            let _ = write_all(&mut self.write, &clean(reply).encode()).await;
            return Step::Close;
        }
        Step::Reply(Reply::error(error.to_string()))
    }
}

/// Whose scoresheet, as a side is named at the console.
fn whose(side: Side) -> &'static str {
    match side {
        Side::White => "white's",
        Side::Black => "black's",
        Side::Blind => "the blind player's",
        Side::Sighted => "the sighted player's",
    }
}

fn command_name(line: &str) -> Option<&'static str> {
    line.split_whitespace()
        .next()
        .and_then(commands::lookup)
        .map(|spec| spec.name)
}

/// `reply` with the control characters in its text escaped ([`escape_controls`]): a board's or a
/// file's text must not reach a console's terminal as escape codes.
fn clean(reply: Reply) -> Reply {
    let end = match reply.end {
        End::Ok(summary) => End::Ok(escape_controls(&summary).into_owned()),
        End::Error(reason) => End::Error(escape_controls(&reason).into_owned()),
    };
    Reply {
        body: reply
            .body
            .iter()
            .map(|line| escape_controls(line).into_owned())
            .collect(),
        end,
    }
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

/// A line of the player's keypad refused: the hub tells him.
async fn tell_player(
    hub: &mpsc::Sender<HubMsg>,
    seat: Option<shakmaty::Color>,
    error: ConsoleError,
) -> Reply {
    let fallback = error.to_string();
    let (tx, rx) = oneshot::channel();
    let msg = HubMsg::Refused {
        seat,
        error,
        reply: tx,
    };
    if hub.send(msg).await.is_err() {
        return Reply::error(fallback);
    }
    rx.await.unwrap_or_else(|_| Reply::error(fallback))
}

async fn ask_hub(
    hub: &mpsc::Sender<HubMsg>,
    conn: u64,
    role: Role,
    seat: Option<shakmaty::Color>,
    command: Command,
) -> Reply {
    let (tx, rx) = oneshot::channel();
    let msg = HubMsg::Console {
        conn,
        role,
        seat,
        command,
        reply: tx,
    };
    if hub.send(msg).await.is_err() {
        return Reply::error("the game is shutting down; nothing was done");
    }
    rx.await
        .unwrap_or_else(|_| Reply::error("the game is shutting down; nothing was done"))
}
