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
//! - `requests`: the blind player's requests (F.9 d), `repeat`, the reply said part by part,
//!   the requests the arbiter switches off (12.3 a), his keypad's refusals (said to him) and help;
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
mod halt;
mod inputs;
mod opponent;
mod recovery;
mod requests;
mod start;
mod status;
mod table_clock;
mod view;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use shakmaty::{ByColor, Color};
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
    arbiter::{Arbiter, Input},
    console::{Command, ConsoleError, Role, Switchable, wire::Reply},
    record::braille::Profile as BrailleProfile,
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
    /// An event of `seat`'s board's link.
    Link {
        seat: Color,
        event: Timed<LinkEvent>,
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
    pub arbiter: Arbiter,
    pub clock: GameClock,
    pub journal: Option<Journal>,
    /// The game folder, held open: `touches.txt` and the transcript's notes are opened relative
    /// to it, never through its path.
    pub folder: crate::store::trusted::TrustedDir,
    pub tags: Vec<(String, String)>,
    pub speech: Option<mpsc::Sender<SpeechRequest>>,
    /// Each seat's board's link.
    pub links: ByColor<Option<mpsc::Sender<LinkCommand>>>,
    /// Whether each seat's board has sensors (a link).
    pub sensors: ByColor<bool>,
    /// A DGT clock lever completes the sighted player's move.
    pub lever_completes_move: bool,
    /// A DGT clock on the sighted player's board: its seat, and the colour of the player on the
    /// clock's left.
    pub table_clock: Option<(Color, Color)>,
    /// Play starts by itself once every board with sensors shows the position (`game.start =
    /// "boards"`); otherwise only at the console's `start` (the arbiter's).
    pub start_by_boards: bool,
    /// How much faster than a person each board's player acts (a simulated board's factor; 1
    /// for a real one): what its chatter is cut down to scales with it.
    pub intake_speed: ByColor<f64>,
    pub record: RecordWriter,
    /// Each seat's words: what is said to him, and what is printed of it.
    pub wording: ByColor<Wording>,
    pub broadcast: broadcast::Sender<Broadcast>,
    pub progress: watch::Sender<Progress>,
    /// For the hub's own helpers (analyses) to report back.
    pub messages: mpsc::Sender<HubMsg>,
    /// Print announcements and notes on standard output (the demo).
    pub echo: bool,
    /// A resumed game: replay leftovers.
    pub recovery: Option<Recovery>,
    /// Each blind player's board's buttons: his requests, by button number.
    pub buttons: ByColor<BTreeMap<u8, String>>,
    /// A training game: the engine task that plays the other side.
    pub engine: Option<mpsc::Sender<EngineRequest>>,
    /// The table's Braille profile (`[record] braille_profile`): the players' Braille
    /// scoresheets entered at the console are read with it (F.8).
    pub braille: BrailleProfile,
    /// The players' requests switched off (12.3 a): from the file, or as the journal left them.
    pub requests_off: BTreeSet<Switchable>,
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
    /// Play halted: the journal cannot be written (`halt`).
    halt: Option<halt::Halt>,
    tags: Vec<(String, String)>,
    speech: Option<mpsc::Sender<SpeechRequest>>,
    links: ByColor<Option<mpsc::Sender<LinkCommand>>>,
    sensors: ByColor<bool>,
    board_links: ByColor<BoardLink>,
    /// What each board's chatter is cut down to.
    intake: ByColor<inputs::Intake>,
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
    wording: ByColor<Wording>,
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
    /// What was last said to each blind player, for `repeat`: the game's, not a reply to a
    /// request (what he asks again is what he was told, not what he asked).
    last_told: ByColor<requests::Told>,
    /// Each message the hub handles is one step: what one step says to a player is one thing
    /// told (a move and the result it brings, the guidance for a board), repeated as one.
    step: u64,
    /// How many announcements each player has been handed (said, or written as not spoken): a
    /// refusal at his keypad that said nothing to him is said ("Jetzt nicht möglich").
    told: ByColor<u64>,
    /// The rest of a reply said to a player one announcement after the other (a game read back,
    /// a list of pieces): the next goes when the one with this speech id has been said. A new
    /// request of his or `stop` drops it.
    reply: ByColor<Option<(u64, std::collections::VecDeque<Announcement>)>>,
    last_t: Millis,
    last_tick: Option<Millis>,
    guidance: ByColor<u64>,
    recovery: Option<Recovery>,
    buttons: ByColor<BTreeMap<u8, String>>,
    opponent: Option<opponent::Opponent>,
    braille: BrailleProfile,
    /// The players' requests the arbiter has switched off (12.3 a).
    requests_off: BTreeSet<Switchable>,
    /// The table's page and live PGN (`view`), when a viewer is configured.
    view: Option<watch::Sender<std::sync::Arc<crate::web::view::TableView>>>,
}

impl Hub {
    pub fn new(parts: HubParts) -> Hub {
        let folder = std::sync::Arc::new(parts.folder);
        let touches = LineLog::open_in(folder.clone(), files::TOUCHES_FILE);
        let notes = LineLog::open_in(folder, files::TRANSCRIPT_FILE);
        let last_t = parts.clock.offset;
        Hub {
            arbiter: parts.arbiter,
            clock: parts.clock,
            journal: parts.journal,
            halt: None,
            tags: parts.tags,
            speech: parts.speech,
            links: parts.links,
            sensors: parts.sensors,
            board_links: ByColor::default(),
            intake: parts.intake_speed.map(inputs::Intake::at_speed),
            lever_completes_move: parts.lever_completes_move,
            table_clock: parts
                .table_clock
                .map(|(seat, left)| table_clock::TableClock::new(seat, left)),
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
            last_told: ByColor::default(),
            step: 0,
            told: ByColor::default(),
            reply: ByColor::default(),
            last_t,
            last_tick: None,
            guidance: ByColor::default(),
            recovery: parts.recovery,
            buttons: parts.buttons,
            opponent: parts.engine.map(opponent::Opponent::new),
            braille: parts.braille,
            requests_off: parts.requests_off,
            view: None,
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
        if let Some(recovery) = self.recovery.take() {
            self.step += 1;
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
            // Halted: the one deadline is the journal's next try.
            if let Some(halt) = &self.halt {
                deadline = Some(halt.next_try);
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
                    self.step += 1;
                    let now = self.clock.now();
                    if self.halted() {
                        self.retry_journal(now);
                        self.after();
                        continue;
                    }
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
        self.step += 1;
        match msg {
            HubMsg::Link { seat, event } => {
                let t = self.clock.from_link(event.at);
                self.link_event(seat, event.event, t);
            }
            HubMsg::Speech(event) => self.speech_event(event),
            HubMsg::Engine(event) => self.engine_event(event),
            HubMsg::Console {
                conn,
                role,
                seat,
                command,
                reply,
            } => {
                let answer = self.console(conn, role, seat, command);
                // A client that went away does not need its reply.
                let _ = reply.send(answer);
            }
            HubMsg::Refused { seat, error, reply } => {
                let answer = self.refused(seat, error);
                let _ = reply.send(answer);
            }
            HubMsg::Verdict {
                ticket,
                mateability,
            } => self.verdict(ticket, mateability),
        }
    }

    /// A console command the connection's role may use (checked there): `status` is answered
    /// here, a request is answered to its blind player and printed, a training request goes to
    /// the engine's seat, a game action to the arbiter like any input. `seat`: the seat a
    /// player's keypad named.
    ///
    /// At a blind player's keypad nothing is refused in silence: a refusal that said nothing to
    /// him is said to him ("Jetzt nicht möglich"), and his `help` is his, in his words.
    fn console(&mut self, conn: u64, role: Role, seat: Option<Color>, command: Command) -> Reply {
        // Whom the console speaks for: the seat a keypad or a player's assistant named; at a
        // table with one blind player, he; with two and no seat, nobody (colours name them).
        let me = seat.or(self.arbiter.config().the_blind());
        if role == Role::Player
            && let Some(reason) = self.keypad_refusal(seat)
        {
            return Reply::error(reason);
        }
        let his_keypad = me.filter(|&c| role == Role::Player && self.arbiter.config().is_blind(c));
        let heard = his_keypad.map(|c| self.told[c]);
        let reply = match command {
            Command::Help(topic) if role == Role::Player => self.player_help(me, topic),
            command => self.console_command(conn, role, me, command),
        };
        match his_keypad {
            Some(him) if heard == Some(self.told[him]) => self.refused_aloud(him, reply),
            _ => reply,
        }
    }

    /// A console command, once the keypad's checks are done; `me`: whom it speaks for.
    fn console_command(
        &mut self,
        conn: u64,
        role: Role,
        me: Option<Color>,
        command: Command,
    ) -> Reply {
        match command {
            Command::Status => Reply::ok(self.status()),
            // F.9 d: his own keypad speaks to him; the assistant's or the arbiter's question is
            // theirs, and reaches his ear only when they pass it on with `tell`.
            Command::Request(request) => {
                let by = asked_by(role);
                match me {
                    Some(me) if self.arbiter.config().is_blind(me) => {
                        self.request(&request, by, me, role == Role::Player)
                    }
                    Some(me) => Self::sighted_asks(me),
                    None => self.which_player(),
                }
            }
            Command::Tell(request) => match me {
                Some(me) if self.arbiter.config().is_blind(me) => {
                    self.request(&request, asked_by(role), me, true)
                }
                Some(me) => Self::sighted_asks(me),
                None => self.which_player(),
            },
            Command::Training(request) => self.training(conn, role, request),
            Command::Requests(switch) => self.switch_requests(conn, switch),
            Command::Game(_) => self.game_command(conn, role, me, &command),
            // The connection answers these itself.
            Command::Help(_)
            | Command::Quit
            | Command::Role { .. }
            | Command::Login { .. }
            | Command::Paste(_) => Reply::error("not a game command; nothing was done"),
        }
    }

    /// Why a player's keypad cannot ask: at a table with two blind players it must say whose it
    /// is; a seat must be a blind player's.
    fn keypad_refusal(&self, seat: Option<Color>) -> Option<String> {
        let names = self.arbiter.config().names();
        match seat {
            None if names.both_blind() => Some(
                "this keypad does not say whose it is; two blind players play here: `role player \
                 white` or `role player black` (tactus console --role player --seat white)"
                    .into(),
            ),
            Some(seat) if !names.is_blind(seat) => Some(format!(
                "{seat}'s player is sighted: his keypad has no requests (F.9 d is the blind \
                 player's)"
            )),
            _ => None,
        }
    }

    /// A request for a sighted player: F.9 d is the blind player's.
    fn sighted_asks(seat: Color) -> Reply {
        Reply::error(format!(
            "{seat}'s player is sighted: the requests are the blind player's (F.9 d)"
        ))
    }

    /// At a table with two blind players a request from a console that speaks for neither must
    /// say whose it is.
    fn which_player(&self) -> Reply {
        Reply::error(
            "two blind players play here: whose request? Ask at his keypad (role player white), \
             or from his assistant's console (role assistant white)",
        )
    }

    /// The seats in the order the table is served: the blind player's first (at a table with
    /// one), else White's.
    fn seat_order(&self) -> [Color; 2] {
        match self.arbiter.config().the_blind() {
            Some(blind) => [blind, !blind],
            None => Color::ALL,
        }
    }

    /// The words of what is said to `audience`: the player's pack (to both: the first seat's,
    /// as the transcript's `both` line has it when both hear one pack).
    fn wording_for(&self, audience: Audience) -> &Wording {
        match audience {
            Audience::Player(seat) => &self.wording[seat],
            Audience::Both => &self.wording[self.seat_order()[0]],
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
