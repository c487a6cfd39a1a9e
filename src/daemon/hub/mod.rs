//! The hub: the one task that owns the [`Arbiter`] (DESIGN §2). Everything that happens at the
//! table arrives here as a message (board link events, speech events, console commands,
//! mateability verdicts, the training engine's events, the timer), becomes an arbiter [`Input`]
//! with a time on the game's time line, is journaled, is applied, and the
//! [`Effect`](tactus_core::arbiter::Effect)s go out to the tasks that carry them out: speech,
//! the board links, the record writer, `touches.txt`, the transcript's notes and the console.
//!
//! This file holds the hub itself: what it hears ([`HubMsg`]), what it is built from
//! ([`HubParts`]), its run loop (the timer's ticks at the arbiter's deadlines and the heartbeat of
//! a running clock), the dispatch of every message to its duty, and the shutdown. The duties
//! live beside it:
//! - `inputs`: link, speech and verdict messages and the console's game commands become
//!   arbiter inputs, journaled, then applied;
//! - `effects`: carrying out the arbiter's effects (speech, links, records, notes, consoles);
//! - `requests`: the blind player's requests (F.9 d), `repeat`, the reply said part by part;
//! - `start`: whether the boards are ready for play to start, and the start they make;
//! - `status`: the console's `status` and the [`Progress`] the simulated boards watch;
//! - `recovery`: a game taken up again from its journal;
//! - `opponent`: the training engine's seat at the table;
//! - `table_clock`: the DGT clock on the table, set to the official clock, and its lever.
//!
//! It must not block for long (the journal's fsync is the one deliberate wait: an input is on
//! disk before it is applied), must not read the clock except through [`GameClock`], and must not
//! make rulings of its own: the arbiter decides, the hub carries out. A failing port, speaker,
//! disk or console client never ends the game; it becomes a note, a log line and, where the
//! players need to know, an announcement.

mod effects;
mod inputs;
mod opponent;
mod recovery;
mod requests;
mod start;
mod status;
mod table_clock;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use shakmaty::Color;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tracing::info;

use self::{effects::HUB_SPEECH_BASE, inputs::BoardLink, requests::asked_by};
pub use self::{
    effects::{ANALYSIS_DEADLINE, Broadcast, Outcome, Views},
    recovery::{Recovery, recovery_words},
    status::Progress,
};
use super::{
    files::{self, LineLog, RecordWriter},
    journal::Journal,
};
pub use crate::daemon::clock::GameClock;
use crate::{
    daemon::{
        engine::{EngineEvent, EngineRequest},
        link::{LinkCommand, LinkEvent, Timed},
    },
    speech::{SpeechEvent, SpeechRequest, Wording},
};
use tactus_core::{
    announce::{Announcement, Audience},
    arbiter::{Arbiter, BoardId, ByBoard, Input},
    console::{Command, Role, wire::Reply},
    rules::{Millis, dead::Mateability},
};

/// A deadline the arbiter keeps reporting after a tick at it is retried this much later, so that
/// a deadline that does not move can never spin the hub.
const DEADLINE_RETRY_MS: Millis = 20;
/// While a clock runs, a tick is journaled at least this often, so that a crash loses at most
/// this much of a player's thinking time (the clocks resume from the journal's last time). Below
/// a second with room for a slow disk's sync: a recovered clock stands within a second of where
/// it stood at the crash.
const HEARTBEAT_MS: Millis = 800;
/// Messages waiting for the hub.
pub const HUB_QUEUE: usize = 1024;

/// What the hub hears.
#[derive(Debug)]
pub enum HubMsg {
    Link {
        board: BoardId,
        event: Timed<LinkEvent>,
    },
    Speech(SpeechEvent),
    /// A console command, already checked against the connection's `role`.
    Console {
        conn: u64,
        role: Role,
        command: Command,
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
    pub arbiter: Arbiter,
    pub clock: GameClock,
    pub journal: Option<Journal>,
    pub folder: std::path::PathBuf,
    pub tags: Vec<(String, String)>,
    pub speech: Option<mpsc::Sender<SpeechRequest>>,
    pub links: ByBoard<Option<mpsc::Sender<LinkCommand>>>,
    /// Whether each board has sensors (a link).
    pub sensors: ByBoard<bool>,
    /// A DGT clock lever completes the sighted player's move.
    pub lever_completes_move: bool,
    /// A DGT clock on the sighted board: the colour of the player on its left.
    pub table_clock: Option<Color>,
    /// Play starts by itself once every board with sensors shows the position (`game.start =
    /// "boards"`); otherwise only at the console's `start` (the arbiter's).
    pub start_by_boards: bool,
    pub record: RecordWriter,
    /// The game's words: what is said, and what is printed of it.
    pub wording: Wording,
    pub broadcast: broadcast::Sender<Broadcast>,
    pub progress: watch::Sender<Progress>,
    /// For the hub's own helpers (analyses) to report back.
    pub messages: mpsc::Sender<HubMsg>,
    /// Print announcements and notes on standard output (the demo).
    pub echo: bool,
    /// A resumed game: replay leftovers.
    pub recovery: Option<Recovery>,
    /// The tactile board's buttons: the blind player's requests, by button number.
    pub buttons: BTreeMap<u8, String>,
    /// A training game: the engine task that plays the other side.
    pub engine: Option<mpsc::Sender<EngineRequest>>,
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
    arbiter: Arbiter,
    clock: GameClock,
    journal: Option<Journal>,
    journal_failing: bool,
    tags: Vec<(String, String)>,
    speech: Option<mpsc::Sender<SpeechRequest>>,
    links: ByBoard<Option<mpsc::Sender<LinkCommand>>>,
    sensors: ByBoard<bool>,
    board_links: ByBoard<BoardLink>,
    lever_completes_move: bool,
    table_clock: Option<table_clock::TableClock>,
    start_by_boards: bool,
    /// The staff were told that both boards show the position and `start` may be typed (told
    /// again after a board that differed again is put right).
    ready_told: bool,
    record: Option<RecordWriter>,
    record_dirty: bool,
    touches: LineLog,
    notes: LineLog,
    wording: Wording,
    broadcast: broadcast::Sender<Broadcast>,
    progress: watch::Sender<Progress>,
    messages: mpsc::Sender<HubMsg>,
    echo: bool,
    /// Announcements in flight, by arbiter id.
    says: BTreeMap<u64, (Audience, Announcement)>,
    /// Announcements to say once the clocks run again (recovered, unfinished ones).
    deferred: Vec<(u64, Audience, Announcement)>,
    /// Announcements that could not be handed to speech: finished at once.
    unspoken: Vec<u64>,
    analyses: BTreeSet<u64>,
    next_own_speech: u64,
    /// The last announcement said to the blind player, for `repeat`: the game's, not a reply
    /// to a request (what he asks again is what he was told, not what he asked).
    last_to_blind: Option<Announcement>,
    /// The rest of a reply said to him one announcement after the other (a game read back, a
    /// list of pieces): the next goes when the one with this speech id has been said. A new
    /// request or `stop` drops it.
    reply: Option<(u64, std::collections::VecDeque<Announcement>)>,
    last_t: Millis,
    last_tick: Option<Millis>,
    guidance: ByBoard<u64>,
    recovery: Option<Recovery>,
    buttons: BTreeMap<u8, String>,
    opponent: Option<opponent::Opponent>,
}

impl Hub {
    pub fn new(parts: HubParts) -> Hub {
        let touches = LineLog::open(&parts.folder.join(files::TOUCHES_FILE));
        let notes = LineLog::open(&parts.folder.join(files::TRANSCRIPT_FILE));
        let last_t = parts.clock.offset;
        Hub {
            arbiter: parts.arbiter,
            clock: parts.clock,
            journal: parts.journal,
            journal_failing: false,
            tags: parts.tags,
            speech: parts.speech,
            links: parts.links,
            sensors: parts.sensors,
            board_links: ByBoard::default(),
            lever_completes_move: parts.lever_completes_move,
            table_clock: parts.table_clock.map(table_clock::TableClock::new),
            start_by_boards: parts.start_by_boards,
            ready_told: false,
            record: Some(parts.record),
            record_dirty: true,
            touches,
            notes,
            wording: parts.wording,
            broadcast: parts.broadcast,
            progress: parts.progress,
            messages: parts.messages,
            echo: parts.echo,
            says: BTreeMap::new(),
            deferred: Vec::new(),
            unspoken: Vec::new(),
            analyses: BTreeSet::new(),
            next_own_speech: HUB_SPEECH_BASE,
            last_to_blind: None,
            reply: None,
            last_t,
            last_tick: None,
            guidance: ByBoard::default(),
            recovery: parts.recovery,
            buttons: parts.buttons,
            opponent: parts.engine.map(opponent::Opponent::new),
        }
    }

    /// Run until `cancel`. Returns the final record.
    pub async fn run(
        mut self,
        mut rx: mpsc::Receiver<HubMsg>,
        cancel: CancellationToken,
    ) -> HubEnd {
        if let Some(recovery) = self.recovery.take() {
            self.recover(recovery);
        }
        self.after();
        loop {
            let mut deadline = self.arbiter.next_deadline().map(|d| match self.last_tick {
                Some(last) if d <= last => last + DEADLINE_RETRY_MS,
                _ => d,
            });
            if self.clocks_running() {
                let heartbeat = self.last_t + HEARTBEAT_MS;
                deadline = Some(deadline.map_or(heartbeat, |d| d.min(heartbeat)));
            }
            // The DGT clock's face changes by itself at the end of a delay.
            if let Some(changes) = self.table_clock.as_ref().and_then(|c| c.changes) {
                deadline = Some(deadline.map_or(changes, |d| d.min(changes)));
            }
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
                    self.last_tick = Some(now);
                    self.accept(Input::Tick, now, None);
                }
            }
        }
        self.shutdown()
    }

    fn shutdown(mut self) -> HubEnd {
        info!("hub stops; writing the game's files");
        if self.record_dirty {
            self.write_record();
        }
        if let Some(record) = self.record.take() {
            record.finish();
        }
        self.touches.sync();
        self.notes.sync();
        HubEnd {
            pgn: self.arbiter.game().to_pgn(&self.tags),
            over: self.has_result(),
            ply: self.arbiter.game().ply(),
            to_move: self.arbiter.game().to_move(),
        }
    }

    fn message(&mut self, msg: HubMsg) {
        match msg {
            HubMsg::Link { board, event } => {
                let t = self.clock.from_link(event.at);
                self.link_event(board, event.event, t);
            }
            HubMsg::Speech(event) => self.speech_event(event),
            HubMsg::Engine(event) => self.engine_event(event),
            HubMsg::Console {
                conn,
                role,
                command,
                reply,
            } => {
                let answer = self.console(conn, role, command);
                // A client that went away does not need its reply.
                let _ = reply.send(answer);
            }
            HubMsg::Verdict {
                ticket,
                mateability,
            } => self.verdict(ticket, mateability),
        }
    }

    /// A console command the connection's role may use (checked there): `status` is answered
    /// here, a request is answered to the blind player and printed, a training request goes to
    /// the engine's seat, a game action to the arbiter like any input.
    fn console(&mut self, conn: u64, role: Role, command: Command) -> Reply {
        match command {
            Command::Status => Reply::ok(self.status()),
            // F.9 d: his own keypad speaks to him; the assistant's or the arbiter's question is
            // theirs, and reaches his ear only when they pass it on with `tell`.
            Command::Request(request) => {
                let by = asked_by(role);
                self.request(&request, by, role == Role::Player)
            }
            Command::Tell(request) => self.request(&request, asked_by(role), true),
            Command::Training(request) => self.training(conn, role, request),
            Command::Game(_) => self.game_command(conn, role, &command),
            // The connection answers these itself.
            Command::Help(_) | Command::Quit | Command::Role(_) | Command::Login { .. } => {
                Reply::error("not a game command; nothing was done")
            }
        }
    }

    /// Whether the game has ended with a result (its end is in the journal). An end that awaits
    /// an analysis or the arbiter's ruling is none yet: the game may still be taken up again.
    fn has_result(&self) -> bool {
        self.arbiter.game().end().is_some()
    }

    /// Whether a clock is running (not paused, not before the start, not after the end).
    fn clocks_running(&self) -> bool {
        self.arbiter
            .game()
            .clock()
            .is_some_and(|c| c.running().is_some())
    }

    /// Whether the clocks stand by a pause (6.12, a recovery, the engine away, a break).
    fn clocks_paused(&self) -> bool {
        self.arbiter.game().clock().is_some_and(|c| c.is_paused())
    }
}
