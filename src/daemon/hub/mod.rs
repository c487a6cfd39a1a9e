//! The hub: the one task that owns the [`Table`] (docs/architecture.md, "The hub is a pump").
//! Everything that happens at the table arrives here as a message (board link events, speech
//! events, console commands, mateability verdicts, the training engine's events) or as the
//! timer at the table's next deadline; the hub stamps it with a time on the game's time line,
//! asks the table whether it takes it in ([`Table::admit`]: a chattering board is cut down
//! before the journal), journals it, hands it to [`Table::handle`], and carries out the
//! [`TableEffect`](tactus_core::table::TableEffect)s: speech, the board links, the consoles,
//! the transcript, `touches.txt`, the record, the engine, the searches. It decides nothing about
//! the game or the table: the table does.
//!
//! The duties beside this file: `effects` carries out what the table decided; `journaling`
//! writes what the table received, and when the journal cannot take it, halts play and tries
//! again every second (the table decides what a halt means for the players).
//!
//! It must not block for long (the journal's fsync is the one deliberate wait: an input is on
//! disk before it is applied), and must not read the clock except through [`GameClock`]. A
//! failing port, speaker, disk or console client never ends the game; it becomes a note, a log
//! line and, where the players need to know, an announcement (the table's).

mod effects;
mod journaling;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use shakmaty::{ByColor, Color};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

pub use self::effects::{ANALYSIS_DEADLINE, MARK_EVERY};
use self::journaling::SPEECH_WAIT;
use super::{
    files::{self, LineLog, RecordWriter},
    journal::Journal,
};
pub use crate::daemon::clock::GameClock;
use crate::{
    daemon::engine::{EngineEvent, EngineRequest},
    speech::{Outcome as Spoken, SpeechEvent, SpeechRequest},
};
pub use tactus_core::table::{Broadcast, Progress, Views, recovery_words};
use tactus_core::{
    board::{dgt_clock::ClockFace, session::LinkCommand, session::Timed},
    console::{Command, ConsoleError, Role, wire::Reply},
    rules::{Millis, dead::Mateability},
    table::{Admission, Table, TableInput, TableSettings},
};

/// Messages waiting for the hub.
pub const HUB_QUEUE: usize = 1024;
/// The most inputs one message may lead to (its own, announcements speech could not take and
/// that count as said, what waited while the journal could not be written): far beyond a real
/// table's, a bound so that speech gone for good can never spin the hub.
const INPUTS_PER_MESSAGE: usize = 100_000;

/// What the hub hears.
#[derive(Debug)]
pub enum HubMsg {
    /// An event of `seat`'s board's link.
    Link {
        seat: Color,
        event: Timed<tactus_core::board::session::LinkEvent>,
    },
    Speech(SpeechEvent),
    /// A console command, already checked against the connection's `role`.
    Console {
        conn: u64,
        role: Role,
        /// The seat a player's keypad named (`role player white`).
        seat: Option<Color>,
        command: Command,
        reply: oneshot::Sender<Reply>,
    },
    /// A line of a player's keypad that its session refused (a word no command has, a command
    /// not his, arguments that do not read): he is told why, in his voice and his words.
    Refused {
        /// The seat the keypad named.
        seat: Option<Color>,
        error: ConsoleError,
        reply: oneshot::Sender<Reply>,
    },
    Verdict {
        ticket: u64,
        mateability: Mateability,
    },
    /// The training opponent's engine (`daemon::engine`).
    Engine(EngineEvent),
}

/// What the hub is built from.
pub struct HubParts {
    /// The table: a new game's, or the one its journal was replayed into.
    pub table: Table,
    /// A resumed game: the table's settings of the day, told to the table as it starts.
    pub resumed: Option<TableSettings>,
    pub clock: GameClock,
    pub journal: Option<Journal>,
    /// The game folder, held open: `touches.txt` and the transcript's notes are opened relative
    /// to it, never through its path.
    pub folder: crate::store::trusted::TrustedDir,
    pub speech: Option<mpsc::Sender<SpeechRequest>>,
    /// Each seat's board's link.
    pub links: ByColor<Option<mpsc::Sender<LinkCommand>>>,
    /// A training game: the engine task that plays the other side.
    pub engine: Option<mpsc::Sender<EngineRequest>>,
    pub record: RecordWriter,
    pub broadcast: broadcast::Sender<Broadcast>,
    pub progress: watch::Sender<Progress>,
    /// For the hub's own helpers (analyses) to report back.
    pub messages: mpsc::Sender<HubMsg>,
    /// Print announcements and notes on standard output (the demo).
    pub echo: bool,
}

/// How the hub ended.
#[derive(Debug, Clone)]
pub struct HubEnd {
    pub pgn: String,
    /// The game has a result (its end is journaled).
    pub over: bool,
    /// Half-moves played, and whose move it is.
    pub ply: usize,
    pub to_move: Color,
}

pub struct Hub {
    table: Table,
    resumed: Option<TableSettings>,
    clock: GameClock,
    journal: Option<Journal>,
    speech: Option<mpsc::Sender<SpeechRequest>>,
    links: ByColor<Option<mpsc::Sender<LinkCommand>>>,
    /// A face of the DGT clock its link could not take yet (its queue was full): handed over
    /// again after the next input.
    pending_face: Option<(Color, ClockFace)>,
    engine: Option<mpsc::Sender<EngineRequest>>,
    record: Option<RecordWriter>,
    record_dirty: bool,
    /// The journal entries on the disk and the game time when the record was last written: its
    /// mark is brought up to the journal every [`effects::MARK_EVERY`] while it grows.
    marked: (u64, Millis),
    touches: LineLog,
    notes: LineLog,
    broadcast: broadcast::Sender<Broadcast>,
    progress: watch::Sender<Progress>,
    messages: mpsc::Sender<HubMsg>,
    echo: bool,
    /// The table's page and live PGN (`crate::web`), when a viewer is configured.
    view: Option<watch::Sender<std::sync::Arc<crate::web::view::TableView>>>,
    /// What waited while play was halted, handed back by the table in order: applied one at a
    /// time, each once the announcements before it have ended (`journaling`), with what the
    /// boards report meanwhile queued behind it.
    waited: VecDeque<TableInput>,
    /// Announcements handed to speech and not ended yet: their ids, and when they were handed
    /// over on the game's time line.
    speaking: Vec<(u64, Millis)>,
}

impl Hub {
    pub fn new(parts: HubParts) -> Hub {
        let folder = std::sync::Arc::new(parts.folder);
        Hub {
            touches: LineLog::open_in(folder.clone(), files::TOUCHES_FILE),
            notes: LineLog::open_in(folder, files::TRANSCRIPT_FILE),
            table: parts.table,
            resumed: parts.resumed,
            clock: parts.clock,
            journal: parts.journal,
            speech: parts.speech,
            links: parts.links,
            pending_face: None,
            engine: parts.engine,
            record: Some(parts.record),
            record_dirty: true,
            marked: (0, 0),
            broadcast: parts.broadcast,
            progress: parts.progress,
            messages: parts.messages,
            echo: parts.echo,
            view: None,
            waited: VecDeque::new(),
            speaking: Vec::new(),
        }
    }

    /// Publish a [`TableView`](crate::web::view::TableView) after every change, for the table's
    /// page, its live PGN and the hall (`crate::web`).
    pub fn with_view(
        mut self,
        view: watch::Sender<std::sync::Arc<crate::web::view::TableView>>,
    ) -> Hub {
        self.view = Some(view);
        self
    }

    /// Run until `cancel`. Returns the final record.
    pub async fn run(
        mut self,
        mut rx: mpsc::Receiver<HubMsg>,
        cancel: CancellationToken,
    ) -> HubEnd {
        let now = self.clock.now();
        if let Some(settings) = self.resumed.take() {
            self.pump(TableInput::Resumed { settings }, now);
        }
        let effects = self.table.settle(now);
        let mut work = VecDeque::new();
        self.carry(effects, now, &mut work, &mut None);
        for input in work {
            self.pump(input, now);
        }
        self.after();
        loop {
            let deadline = self.table.next_deadline();
            let sleep = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(self.clock.instant(d)).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = cancel.cancelled() => break,
                msg = rx.recv() => match msg {
                    Some(msg) => self.message(msg),
                    None => break,
                },
                _ = sleep => {
                    let now = self.clock.now();
                    if self.table.halted() {
                        self.retry_journal(now);
                    } else {
                        self.pump(TableInput::Tick, now);
                    }
                }
            }
        }
        self.shutdown()
    }

    fn shutdown(mut self) -> HubEnd {
        info!("hub stops; writing the game's files");
        // What waited for the halt's end and was not applied yet: applied now, so that it is
        // journaled (there is no more speech to wait for).
        if !self.waited.is_empty() {
            let now = self.clock.now();
            let waited = std::mem::take(&mut self.waited);
            self.work_through(waited, now, &mut None);
        }
        // Written even when no move changed it: its mark then covers the journal to its end
        // (the clock's ticks since the last move too), so a journal later cut short of it is
        // refused, saying what was lost, rather than resumed with the clocks fuller.
        self.write_record();
        if let Some(record) = self.record.take() {
            record.finish();
        }
        self.touches.sync();
        self.notes.sync();
        let game = self.table.game();
        HubEnd {
            pgn: game.to_pgn(self.table.tags()),
            over: self.table.has_result(),
            ply: game.ply(),
            to_move: game.to_move(),
        }
    }

    /// A message, as the table's input at its time on the game's time line.
    fn message(&mut self, msg: HubMsg) {
        let now = self.clock.now();
        match msg {
            HubMsg::Link { seat, event } => {
                let t = self.clock.from_link(event.at);
                self.pump(
                    TableInput::Link {
                        seat,
                        event: event.event,
                    },
                    t,
                );
            }
            HubMsg::Speech(SpeechEvent::Finished { id, outcome, .. }) => {
                // Cut off, replaced, dropped: the rest of a reply is not said after it.
                let heard = matches!(outcome, Spoken::Spoken | Spoken::Failed | Spoken::NoOutput);
                let input = TableInput::SpeechFinished {
                    id: id.0,
                    cut: !heard,
                };
                self.pump(input, now);
            }
            HubMsg::Speech(SpeechEvent::Degraded { audience, message }) => {
                let input = TableInput::SpeechNote {
                    audience,
                    message,
                    recovered: false,
                };
                self.pump(input, now);
            }
            HubMsg::Speech(SpeechEvent::Recovered { audience, message }) => {
                let input = TableInput::SpeechNote {
                    audience,
                    message,
                    recovered: true,
                };
                self.pump(input, now);
            }
            HubMsg::Speech(SpeechEvent::Ready { outputs }) => {
                let names = self.table.arbiter().config().names();
                for (audience, speaker) in outputs {
                    info!("speech for {}: {speaker}", names.audience(audience));
                }
            }
            HubMsg::Speech(SpeechEvent::Started { .. }) => {}
            // `status` changes nothing: answered from the table as it stands, with the files the
            // shell could not write.
            HubMsg::Console {
                command: Command::Status,
                reply,
                ..
            } => {
                let files = files::outage_status(
                    self.journal.as_ref(),
                    self.record.as_ref(),
                    &[&self.touches, &self.notes],
                );
                // A client that went away does not need its reply.
                let _ = reply.send(Reply::ok(self.table.status_lines(now, files)));
            }
            HubMsg::Console {
                conn,
                role,
                seat,
                command,
                reply,
            } => {
                let input = TableInput::Console {
                    conn,
                    role,
                    seat,
                    command,
                };
                let answer = self.pump(input, now);
                let _ = reply.send(answer.unwrap_or_else(|| Reply::error("no reply")));
            }
            HubMsg::Refused { seat, error, reply } => {
                let answer = self.pump(TableInput::keypad(0, seat, &error), now);
                let _ = reply.send(answer.unwrap_or_else(|| Reply::error(error.to_string())));
            }
            HubMsg::Verdict {
                ticket,
                mateability,
            } => {
                let input = TableInput::Verdict {
                    ticket,
                    mateability,
                };
                self.pump(input, now);
            }
            HubMsg::Engine(event) => {
                self.pump(TableInput::Engine(event), now);
            }
        }
    }

    /// One input at `now`, and what it leads to (announcements speech could not take count as
    /// said; what waited while the journal could not be written follows it), each taken in,
    /// journaled, handled and carried out in order. Returns the reply to a console's command.
    fn pump(&mut self, input: TableInput, now: Millis) -> Option<Reply> {
        let mut reply = None;
        if !self.waited.is_empty() && matches!(input, TableInput::Link { .. }) {
            // What the boards report comes after what they reported during the halt.
            self.waited.push_back(input);
        } else {
            self.work_through(VecDeque::from([input]), now, &mut reply);
        }
        self.replay_waited(now, &mut reply);
        self.after();
        reply
    }

    /// Journal, apply and carry out `work` and what it leads to, in order.
    fn work_through(
        &mut self,
        mut work: VecDeque<TableInput>,
        now: Millis,
        reply: &mut Option<Reply>,
    ) {
        let mut handled = 0;
        while let Some(input) = work.pop_front() {
            if let TableInput::SpeechFinished { id, .. } = &input {
                self.speaking.retain(|(said, _)| said != id);
            }
            handled += 1;
            if handled > INPUTS_PER_MESSAGE {
                warn!(
                    "{} inputs from one message; the rest are dropped",
                    handled - 1
                );
                break;
            }
            let input = match self.table.admit(input, now) {
                Admission::Take(input) => input,
                Admission::Drop(effects) => {
                    self.carry(effects, now, &mut work, reply);
                    continue;
                }
            };
            let Some(input) = self.journal_input(input, now, &mut work) else {
                continue;
            };
            let before = self.table.game().ply();
            let effects = self.table.handle(input, now);
            self.log_moves(before);
            self.carry(effects, now, &mut work, reply);
        }
    }
}
