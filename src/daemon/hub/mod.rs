//! The hub: the one task that owns the [`Arbiter`] (DESIGN §2). Everything that happens at the
//! table arrives here as a message (board link events, speech events, console commands,
//! mateability verdicts, the timer), becomes an arbiter [`Input`] with a time on the game's time
//! line, is journaled, is applied, and the [`Effect`]s go out to the tasks that carry them out:
//! speech, the board links, the record writer, `touches.txt`, the transcript's notes and the
//! console.
//!
//! It must not block for long (the journal's fsync is the one deliberate wait: an input is on
//! disk before it is applied), must not read the clock except through [`GameClock`], and must not
//! make rulings of its own: the arbiter decides, the hub carries out. A failing port, speaker,
//! disk or console client never ends the game; it becomes a note, a log line and, where the
//! players need to know, an announcement.

use std::{
    collections::{BTreeMap, BTreeSet},
    time::Duration,
};

use shakmaty::{Chess, Color, EnPassantMode, Position, fen::Fen};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{
    files::{self, LineLog, RecordSnapshot, RecordWriter},
    journal::Journal,
};
use crate::{
    daemon::link::{LinkCommand, LinkEvent, MonotonicClock, Timed},
    speech::{SpeechEvent, SpeechId, SpeechRequest},
};
use tactus_core::{
    announce::{Announcement, Audience, count, voice::Style, voice::VoicePack},
    arbiter::{Arbiter, BoardId, ByBoard, Effect, Input},
    board::{SensorEvent, dgt::ClockMessage, recognize::Mode},
    console::{self, Answer, Command, Request, Role, wire::Reply},
    journal::{AskedBy, InputRecord, RequestRecord},
    rules::{
        Millis,
        dead::{self, Mateability, Query},
        game,
        pgn::format_clk,
    },
};

/// How long a mateability search may run before its verdict is "undecided" (which never ends a
/// game; the arbiter then rules).
pub const ANALYSIS_DEADLINE: Duration = Duration::from_secs(3);
/// Speech ids the hub uses for its own announcements (game recovered): far above the arbiter's.
const HUB_SPEECH_BASE: u64 = 1 << 48;
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

/// The game's time line: the shell's [`MonotonicClock`] plus an offset. A resumed game continues the
/// time line of its journal (the offset is the journal's last time), so clocks and settle times
/// go on from where they stood.
#[derive(Debug, Clone, Copy)]
pub struct GameClock {
    pub link: MonotonicClock,
    pub offset: Millis,
}

impl GameClock {
    pub fn now(&self) -> Millis {
        self.link.now() + self.offset
    }
    /// A link's time stamp on the game's time line.
    pub fn from_link(&self, at: Millis) -> Millis {
        at + self.offset
    }
    /// The instant of a game time, for timers.
    pub fn instant(&self, t: Millis) -> tokio::time::Instant {
        self.link.instant(t.saturating_sub(self.offset))
    }
}

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
    Engine(super::engine::EngineEvent),
}

/// What one input produced, for the console's reply: the notes, and why it was refused if it
/// was (then nothing changed).
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub notes: Vec<String>,
    pub refused: Vec<String>,
}

impl Outcome {
    /// The console's reply: the notes, then `ok`, or `error:` with the reasons of a refusal.
    pub fn into_reply(self) -> Reply {
        if self.refused.is_empty() {
            Reply::ok(self.notes)
        } else {
            let mut reply = Reply::error(self.refused.join("; "));
            reply.body = self.notes;
            reply
        }
    }
}

/// A line for every console ("# ..."), with the connection whose command caused it (that one got
/// it in its reply already).
#[derive(Debug, Clone)]
pub struct Broadcast {
    pub origin: Option<u64>,
    pub text: String,
    /// Which consoles see it.
    pub to: Views,
}

/// Which consoles an event is for. A player's console (his keypad, his Braille display) shows
/// what is said to him; notes (touches, possible claims, boards, files) are the assistant's and
/// the arbiter's view (F.9 e).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Views {
    Everyone,
    /// The assistant's and the arbiter's consoles.
    Staff,
}

impl Views {
    /// Whether a console in `role` sees an event for these views.
    pub fn reach(self, role: Role) -> bool {
        match self {
            Views::Everyone => true,
            Views::Staff => role >= Role::Assistant,
        }
    }
}

/// Where the game stands, for the simulated boards (which cannot hear speech and act as the
/// players would on what they heard), the demo and tests.
#[derive(Debug, Clone)]
pub struct Progress {
    pub ply: usize,
    pub position: Chess,
    /// What each board should show (blind, sighted) and what is expected of it.
    pub expected: ByBoard<Chess>,
    /// What each board shows as its recogniser sees it (a player watching the other's board).
    pub shown: ByBoard<shakmaty::Board>,
    pub modes: ByBoard<Mode>,
    pub started: bool,
    pub paused: bool,
    pub over: bool,
    /// Guidance announcements said so far to each board's player.
    pub guidance: ByBoard<u64>,
    /// Announcements handed to speech and not yet finished.
    pub speaking: usize,
    pub connected: ByBoard<bool>,
}

/// Per board: link state as the hub sees it.
#[derive(Debug, Clone, Copy, Default)]
struct BoardLink {
    connected: bool,
    /// Lost (or never found) since the last connection: the next one is a reconnection.
    lost: bool,
    /// The DGT clock's lever, last seen.
    lever: Option<bool>,
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
    pub record: RecordWriter,
    pub pack: VoicePack,
    pub style: Style,
    pub broadcast: broadcast::Sender<Broadcast>,
    pub progress: watch::Sender<Progress>,
    /// For the hub's own helpers (analyses) to report back.
    pub messages: mpsc::Sender<HubMsg>,
    /// Print announcements and notes on standard output (the demo).
    pub echo: bool,
    /// A resumed game: replay leftovers.
    pub recovery: Option<Recovery>,
    pub started: bool,
    /// The tactile board's buttons: the blind player's requests, by button number.
    pub buttons: BTreeMap<u8, String>,
    /// A training game: the engine task that plays the other side.
    pub engine: Option<mpsc::Sender<super::engine::EngineRequest>>,
}

/// What a replayed journal left open.
#[derive(Debug, Clone, Default)]
pub struct Recovery {
    pub inputs: usize,
    pub unfinished: BTreeMap<u64, (Audience, Announcement)>,
    pub pending_analyses: BTreeMap<u64, Query>,
}

/// How the hub ended.
#[derive(Debug, Clone)]
pub struct HubEnd {
    pub pgn: String,
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
    record: Option<RecordWriter>,
    record_dirty: bool,
    touches: LineLog,
    notes: LineLog,
    pack: VoicePack,
    style: Style,
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
    started: bool,
    over: bool,
    recovery: Option<Recovery>,
    buttons: BTreeMap<u8, String>,
    opponent: Option<opponent::Opponent>,
}

/// Whether an announcement cut off by a crash is said again after the recovery: what happened
/// in the game (a move, an offer, a claim, a flag, the end), not notices of the moment.
fn worth_repeating(announcement: &Announcement) -> bool {
    use Announcement::*;
    match announcement {
        Move(_)
        | Stalemate
        | DeadPosition
        | DrawOffered { .. }
        | DrawAccepted
        | DrawDeclined { .. }
        | ClaimMade { .. }
        | ClaimUpheld { .. }
        | ClaimRejected { .. }
        | FlagFell { .. }
        | Adjourned { .. }
        | Retraced { .. }
        | EnvelopeOpened
        | SealedMoveInvalid
        | Result(_) => true,
        Touched { .. }
        | IllegalMove
        | Guidance(_)
        | MovesCompleted { .. }
        | Recital { .. }
        | NoMoveYet
        | NoClock
        | Times { .. }
        | SquareContents { .. }
        | LineContents { .. }
        | PiecesOfKind { .. }
        | Material { .. }
        | ToMove { .. }
        | BoardDisconnected { .. }
        | BoardReconnected { .. }
        | GameRecovered
        | ClocksPaused
        | ClocksResumed
        | SpeechFallback
        | MoveHeld
        | MoveRequired { .. }
        | NoMoveToCount
        | OwnMove(_)
        | ClockChanged { .. }
        | Hint(_)
        | Standing(_)
        | OpponentAway
        | OpponentBack
        | TrainingOnly
        | ReviewMoment { .. }
        | ReviewEnd => false,
    }
}

/// What both players hear when an unfinished game is taken up again, in this order: the game
/// is back, whose move it is, and (with a clock that had started) that the clocks stand until
/// the arbiter or assistant resumes them (6.12). `tactus run` prints the same words.
pub fn recovery_words(arbiter: &Arbiter) -> Vec<Announcement> {
    let game = arbiter.game();
    let mut words = vec![
        Announcement::GameRecovered,
        Announcement::ToMove {
            side: game.to_move(),
        },
    ];
    if game
        .clock()
        .is_some_and(|c| c.is_paused() || c.running().is_some())
    {
        words.push(Announcement::ClocksPaused);
    }
    words
}

/// Who asked, by the role of the console that typed the request.
fn asked_by(role: Role) -> AskedBy {
    match role {
        Role::Player => AskedBy::Player,
        Role::Assistant => AskedBy::Assistant,
        Role::Arbiter => AskedBy::Arbiter,
    }
}

fn audience_word(audience: Audience) -> &'static str {
    crate::speech::transcript::audience_word(audience)
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
            record: Some(parts.record),
            record_dirty: true,
            touches,
            notes,
            pack: parts.pack,
            style: parts.style,
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
            started: parts.started,
            over: false,
            recovery: parts.recovery,
            buttons: parts.buttons,
            opponent: parts.engine.map(opponent::Opponent::new),
        }
    }

    /// The state the simulated boards and the demo watch.
    pub fn progress_of(arbiter: &Arbiter) -> Progress {
        let game = arbiter.game();
        let sighted = arbiter.sighted_board();
        Progress {
            ply: game.ply(),
            position: game.position().clone(),
            expected: ByBoard {
                blind: arbiter.blind_board().expected().clone(),
                sighted: sighted.map_or_else(|| game.position().clone(), |r| r.expected().clone()),
            },
            shown: ByBoard {
                blind: arbiter.blind_board().pieces().clone(),
                sighted: sighted
                    .map_or_else(|| game.position().board().clone(), |r| r.pieces().clone()),
            },
            modes: ByBoard {
                blind: arbiter.blind_board().mode(),
                sighted: sighted.map_or(Mode::Hold, |r| r.mode()),
            },
            started: false,
            paused: game.clock().is_some_and(|c| c.is_paused()),
            over: game.is_over(),
            guidance: ByBoard::default(),
            speaking: 0,
            connected: ByBoard::default(),
        }
    }

    fn publish(&mut self) {
        let mut p = Hub::progress_of(&self.arbiter);
        p.started = self.started;
        p.guidance = self.guidance;
        p.speaking = self.says.len() + self.deferred.len();
        p.connected = self.board_links.map(|l| l.connected);
        self.progress.send_replace(p);
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

    /// Run until `cancel`. Returns the final record.
    pub async fn run(
        mut self,
        mut rx: mpsc::Receiver<HubMsg>,
        cancel: CancellationToken,
    ) -> HubEnd {
        self.over = self.arbiter.game().is_over();
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
            over: self.over,
            ply: self.arbiter.game().ply(),
            to_move: self.arbiter.game().to_move(),
        }
    }

    /// A resumed game: the clocks stop (Art. 6.12) until the assistant or arbiter resumes them,
    /// both players are told, and whatever was left half-done is taken up again.
    fn recover(&mut self, recovery: Recovery) {
        let now = self.clock.now();
        let ply = self.arbiter.game().ply();
        let running = self.clocks_running();
        info!(
            inputs = recovery.inputs,
            ply, "game recovered from its journal"
        );
        self.note(
            format!(
                "game recovered from its journal ({}, {} played){}",
                count(recovery.inputs, "input", "inputs"),
                count(ply, "half-move", "half-moves"),
                if running {
                    "; clocks paused (6.12): `resume` when both players are ready"
                } else {
                    ""
                }
            ),
            None,
        );
        // Said in the order of `recovery_words`: the game is back, whose move it is, and that
        // the clocks stand; the pause of running clocks says the last itself.
        if !self.over {
            for announcement in recovery_words(&self.arbiter) {
                if announcement == Announcement::ClocksPaused && running {
                    continue;
                }
                self.say_own(Audience::Both, announcement, true);
            }
        }
        if running {
            self.accept(Input::Rules(game::Input::Pause), now, None);
            self.training_recovered();
        }
        for (ticket, query) in recovery.pending_analyses {
            self.analyse(ticket, query);
        }
        // Announcements of the game whose end never reached the journal are said again: the
        // player may not have heard them, and the blind player's move counts only once its
        // announcement ends. Notices of the moment (clocks paused, a board gone, guidance, which
        // the boards give again) are not: they are stale, and said again after every crash
        // they would pile up in front of the next move.
        for (id, (audience, announcement)) in recovery.unfinished {
            if worth_repeating(&announcement) {
                self.deferred.push((id, audience, announcement));
            } else {
                debug!(id, ?announcement, "not repeated after the recovery");
            }
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
            } => {
                if self.analyses.remove(&ticket) {
                    let now = self.clock.now();
                    self.accept(
                        Input::Rules(game::Input::Verdict {
                            ticket,
                            mateability,
                        }),
                        now,
                        None,
                    );
                }
            }
        }
    }

    fn link_event(&mut self, board: BoardId, event: LinkEvent, t: Millis) {
        match event {
            LinkEvent::Connected { info } => {
                info!(board = board.name(), "board connected: {info}");
                let reconnection = self.board_links[board].lost;
                self.board_links[board].connected = true;
                self.board_links[board].lost = false;
                self.broadcast_staff(format!("{} board connected: {info}", board.name()), None);
                if reconnection {
                    self.accept(Input::BoardConnected { board }, t, None);
                }
                self.maybe_start(t);
            }
            LinkEvent::Sensor(SensorEvent::Button(n)) if board == BoardId::Blind => {
                self.button(n);
            }
            LinkEvent::Sensor(event) => {
                let reading = board == BoardId::Blind && matches!(event, SensorEvent::Snapshot(_));
                self.accept(Input::Board { board, event }, t, None);
                if board == BoardId::Blind {
                    self.tactile_board_changed(reading);
                    self.maybe_start(t);
                }
            }
            LinkEvent::Clock(ClockMessage::Times {
                lever_right_high,
                no_clock: false,
                ..
            }) if board == BoardId::Sighted && self.lever_completes_move => {
                let before = self.board_links[board].lever.replace(lever_right_high);
                if before.is_some_and(|b| b != lever_right_high) {
                    self.accept(Input::ClockPress, t, None);
                }
            }
            LinkEvent::Clock(_) => {}
            LinkEvent::Disconnected { reason } => {
                warn!(board = board.name(), "board disconnected: {reason}");
                self.board_links[board].connected = false;
                self.board_links[board].lost = true;
                self.note(
                    format!("{} board disconnected: {reason}", board.name()),
                    None,
                );
                self.accept(Input::BoardDisconnected { board }, t, None);
            }
            LinkEvent::Unavailable { reason } => {
                warn!(board = board.name(), "board unavailable: {reason}");
                self.note(
                    format!("{} board not available: {reason}", board.name()),
                    None,
                );
                if !self.board_links[board].lost && !self.board_links[board].connected {
                    // Never found: the players hear that the board is missing, once; its
                    // connection then counts as a reconnection and is announced.
                    self.board_links[board].lost = true;
                    self.accept(Input::BoardDisconnected { board }, t, None);
                }
            }
            LinkEvent::BoardFault { text } => {
                self.note(format!("{} board reports: {text}", board.name()), None);
            }
            LinkEvent::Garbage { bytes } => debug!(board = board.name(), bytes, "garbage"),
            LinkEvent::Rejected { reason } => debug!(board = board.name(), reason, "rejected"),
            LinkEvent::Unknown { message } => debug!(board = board.name(), message, "unknown"),
        }
    }

    /// Play starts once every board with sensors has been read for the first time (a board
    /// that never comes leaves it to the console's `start`).
    fn maybe_start(&mut self, t: Millis) {
        if self.started || self.over {
            return;
        }
        let ready = BoardId::ALL
            .iter()
            .all(|&b| !self.sensors[b] || self.board_links[b].connected);
        if ready && self.set_up_position_stands() {
            self.accept(Input::Start, t, None);
        }
    }

    fn speech_event(&mut self, event: SpeechEvent) {
        match event {
            SpeechEvent::Finished { id, outcome, .. } => {
                debug!(id = id.0, ?outcome, "speech finished");
                self.reply_part_done(id.0, outcome);
                if self.says.remove(&id.0).is_some() {
                    let now = self.clock.now();
                    self.accept(Input::SpeechFinished { id: id.0 }, now, None);
                }
            }
            SpeechEvent::Degraded { audience, message } => {
                self.note(
                    format!("speech for {} degraded: {message}", audience_word(audience)),
                    None,
                );
            }
            SpeechEvent::Recovered { audience, message } => {
                self.note(
                    format!(
                        "speech for {} works again: {message}",
                        audience_word(audience)
                    ),
                    None,
                );
            }
            SpeechEvent::Ready { outputs } => {
                for (audience, speaker) in outputs {
                    info!("speech for {}: {speaker}", audience_word(audience));
                }
            }
            SpeechEvent::Started { .. } => {}
        }
    }

    /// A console command the connection's role may use (checked there): a request is answered
    /// to the blind player and printed, a game action goes to the arbiter like any input.
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
            Command::Game(_) => {
                let blind = self.arbiter.config().blind;
                match console::to_input(&command, self.arbiter.game(), blind) {
                    Err(e) => Reply::error(e.to_string()),
                    Ok(None) => Reply::error("not a game command; nothing was done"),
                    Ok(Some(input)) => {
                        // Not the input itself: a sealed move stays secret, even in the log.
                        info!(%role, "console input");
                        let now = self.clock.now();
                        self.accept(input, now, Some(conn)).into_reply()
                    }
                }
            }
            // The connection answers these itself.
            Command::Help(_) | Command::Quit | Command::Role(_) | Command::Login { .. } => {
                Reply::error("not a game command; nothing was done")
            }
        }
    }

    /// A button of the tactile board: the blind player's own request (F.9 d), as configured.
    fn button(&mut self, n: u8) {
        let Some(line) = self.buttons.get(&n).cloned() else {
            // Any key cuts a long reply, as his next request would.
            if self.reply.take().is_some() {
                self.silence_reply();
            }
            self.note(
                format!(
                    "tactile board: button {n} pressed; no request is set for it (key \
                     boards.blind.buttons)"
                ),
                None,
            );
            return;
        };
        // The configuration was checked when it was read: a button holds a request.
        let reply = match console::parse(&line, Role::Player) {
            Ok(Command::Request(request)) => {
                info!(button = n, request = line, "button request");
                self.request(&request, AskedBy::Button { number: n }, true)
            }
            // A training request (`hint`, `review` ...) from his board's keypad.
            Ok(Command::Training(request)) => {
                info!(button = n, request = line, "button training request");
                self.training(0, Role::Player, request)
            }
            _ => return,
        };
        let mut text = reply.body.join("; ");
        if let tactus_core::console::wire::End::Error(error) = &reply.end {
            text = format!("{text} error: {error}");
        }
        self.broadcast(format!("button {n} ({line}): {}", text.trim()), None);
    }

    /// F.9 d: a request, answered on the console and, when `to_him` (his keypad, his board's
    /// buttons, the assistant's `tell`), said to the blind player in his voice. The game does
    /// not change; the transcript notes who asked what and what was answered.
    fn request(&mut self, request: &Request, by: AskedBy, to_him: bool) -> Reply {
        let now = self.clock.now();
        let blind = self.arbiter.config().blind;
        let answer = console::answer(request, self.arbiter.game(), blind, now);
        let said = match &answer {
            Answer::RepeatLast => self.last_to_blind.clone().into_iter().collect(),
            other => other.announcements(),
        };
        // Printed in the words he hears, in the pack's language: a Braille display shows what
        // the ear hears.
        let mut body: Vec<String> = said
            .iter()
            .map(|a| self.pack.render(a, self.style).text)
            .collect();
        if body.is_empty() {
            body = match &answer {
                Answer::RepeatLast => vec!["nothing has been said yet".to_string()],
                other => console::format_reply(other),
            };
        }
        let said = if to_him { said } else { Vec::new() };
        let record = RequestRecord {
            by,
            asked: request.line(),
            answer: body.clone(),
            said: said
                .iter()
                .map(|a| self.pack.render(a, self.style).text)
                .collect(),
        };
        // The note goes before the words said, as `tactus replay` writes them. Not shown to every
        // console: the reply carries the answer, and a flood of requests must not drown the
        // watching consoles in events.
        self.notes.append(&files::note_line(&record.note()));
        // Journalled like an input (never earlier than the last one), so that `tactus replay`
        // writes this note and the words as the transcript has them.
        let t = now.max(self.last_t);
        self.last_t = t;
        if let Some(journal) = &mut self.journal
            && let Err(e) = journal.record(t, InputRecord::Request(record))
        {
            warn!("{e:#}");
        }
        if to_him {
            // A new request to him (or `stop`) cuts what is left of the last reply; the speech
            // queue replaces the part being said by the new reply.
            let cut = self.reply.take().is_some();
            if answer == Answer::Silence && cut {
                self.silence_reply();
            }
            self.say_reply(said.into());
        }
        Reply::ok(body)
    }

    /// `stop`: the reply being said to him is cut, unless something of the game is being said
    /// to him (a move, guidance: never cut; the rest of the reply is dropped all the same, and
    /// the part being said ends by itself).
    fn silence_reply(&mut self) {
        let game_speaking = self.says.values().any(|(a, _)| a.includes_blind())
            || self.deferred.iter().any(|(_, a, _)| a.includes_blind());
        if game_speaking {
            return;
        }
        if let Some(tx) = &self.speech {
            let _ = tx.try_send(SpeechRequest::Stop {
                audience: Audience::Blind,
            });
        }
    }

    /// A reply's announcement has been said (or cut): the next part of the reply, if it was
    /// heard to the end.
    fn reply_part_done(&mut self, id: u64, outcome: crate::speech::Outcome) {
        use crate::speech::Outcome;
        let Some((playing, rest)) = &mut self.reply else {
            return;
        };
        if *playing != id {
            return;
        }
        let goes_on = matches!(
            outcome,
            Outcome::Spoken | Outcome::Failed | Outcome::NoOutput
        );
        let rest = std::mem::take(rest);
        self.reply = None;
        if goes_on {
            self.say_reply(rest);
        }
    }

    /// `status`: the position, whose move, the clocks, the boards.
    pub fn status(&self) -> Vec<String> {
        let game = self.arbiter.game();
        let now = self.clock.now();
        let pos = game.position();
        let mut lines = vec![
            format!("position {}", Fen::from_position(pos, EnPassantMode::Legal)),
            format!(
                "ply {}, move {}, {} to move",
                game.ply(),
                pos.fullmoves(),
                pos.turn()
            ),
        ];
        if let Some(last) = game.moves().last() {
            lines.push(format!("last move {}", last.san));
        }
        match game.clock() {
            Some(clock) => {
                let state = if clock.is_paused() {
                    "paused".to_string()
                } else {
                    match clock.running() {
                        Some(side) => format!("{side} running"),
                        None => "stopped".to_string(),
                    }
                };
                lines.push(format!(
                    "clocks white {} black {} ({state})",
                    format_clk(clock.remaining(Color::White, now)),
                    format_clk(clock.remaining(Color::Black, now))
                ));
            }
            None => lines.push("clocks none".into()),
        }
        let board_state = |board: BoardId| {
            if !self.sensors[board] {
                "manual"
            } else if self.board_links[board].connected {
                "connected"
            } else {
                "not connected"
            }
        };
        lines.push(format!(
            "boards tactile {}, sighted {}",
            board_state(BoardId::Blind),
            board_state(BoardId::Sighted)
        ));
        // Files that are not being written: the arbiter must know while it lasts.
        lines.extend(files::outage_status(
            self.journal.as_ref(),
            self.record.as_ref(),
            &[&self.touches, &self.notes],
        ));
        if let Some(adjourned) = game.adjournment() {
            lines.push(format!(
                "adjourned: {} sealed move {}{}; resumption {}",
                adjourned.by,
                adjourned.move_number,
                if adjourned.replier_clock_started {
                    ", the replier's clock runs, the envelope is closed"
                } else {
                    ""
                },
                adjourned.resumption.as_deref().unwrap_or("not fixed yet")
            ));
        }
        match game.end() {
            Some(end) => lines.push(format!(
                "result {} ({})",
                end.outcome,
                end.reason.describe()
            )),
            None => lines.push(format!(
                "in play{}",
                if self.started { "" } else { " (not started)" }
            )),
        }
        lines
    }

    /// Journal, apply, carry out. Returns what the input produced (the console's reply).
    fn accept(&mut self, input: Input, t: Millis, origin: Option<u64>) -> Outcome {
        let now = t.max(self.last_t);
        self.last_t = now;
        if let Some(journal) = &mut self.journal {
            match journal.input(now, &input) {
                Ok(()) => self.journal_failing = false,
                Err(e) => {
                    // The game goes on; a restart would lose what is not journaled, so the
                    // assistant is told at once.
                    if !self.journal_failing {
                        warn!("{e:#}");
                        self.journal_failing = true;
                        self.broadcast_staff(
                            format!(
                                "WARNING: {e:#}; the game goes on, but a restart would lose it"
                            ),
                            None,
                        );
                    }
                }
            }
        }
        if input == Input::Start {
            self.started = true;
        }
        let before = self.arbiter.game().ply();
        let effects = self.arbiter.handle(input, now);
        self.log_moves(before);
        let notes = self.effects(effects, now, origin);
        self.after();
        notes
    }

    /// The log (journald's `journalctl -u tactus -f`) follows the game: every move as it
    /// counts, with both clocks, and a takeback.
    fn log_moves(&self, before: usize) {
        let game = self.arbiter.game();
        if game.ply() < before {
            info!(
                ply = game.ply(),
                "moves taken back; {} stand",
                count(game.ply(), "half-move", "half-moves")
            );
            return;
        }
        for (i, record) in game.moves().iter().enumerate().skip(before) {
            let number = i / 2 + 1;
            let label = match record.side {
                Color::White => format!("{number}. {}", record.san),
                Color::Black => format!("{number}... {}", record.san),
            };
            match record.clocks_after {
                Some(clocks) => info!(
                    ply = i + 1,
                    "move counted: {label} (clocks: white {}, black {})",
                    format_clk(clocks.white),
                    format_clk(clocks.black)
                ),
                None => info!(ply = i + 1, "move counted: {label}"),
            }
        }
    }

    fn effects(&mut self, effects: Vec<Effect>, now: Millis, origin: Option<u64>) -> Outcome {
        let mut outcome = Outcome::default();
        let notes = &mut outcome.notes;
        for effect in effects {
            match effect {
                Effect::Say {
                    id,
                    audience,
                    announcement,
                } => {
                    if matches!(announcement, Announcement::Guidance(_)) {
                        if audience.includes_blind() {
                            self.guidance.blind += 1;
                        }
                        if audience.includes_sighted() {
                            self.guidance.sighted += 1;
                        }
                    }
                    self.says.insert(id, (audience, announcement.clone()));
                    self.speak(id, audience, announcement, true);
                }
                Effect::RequestSnapshot { board } => {
                    if let Some(tx) = &self.links[board] {
                        // A full queue or a board away: every (re)connection takes a snapshot.
                        let _ = tx.try_send(LinkCommand::RequestSnapshot);
                    }
                }
                Effect::Analyse { ticket, query } => self.analyse(ticket, query),
                Effect::Touch {
                    board,
                    square,
                    piece,
                } => {
                    self.touches
                        .append(&files::touch_line(now, board, square, piece));
                }
                Effect::Note(text) => {
                    self.note(text.clone(), origin);
                    notes.push(text);
                }
                Effect::Refused(text) => {
                    // The transcript keeps it; the console that sent it gets it as its reply.
                    // Other consoles are not told: nothing happened in the game.
                    info!("refused: {text}");
                    self.notes
                        .append(&files::note_line(&format!("refused: {text}")));
                    outcome.refused.push(text);
                }
                Effect::RecordChanged => self.record_dirty = true,
                Effect::GameOver(end) => {
                    self.over = true;
                    if let Some(journal) = &mut self.journal
                        && let Err(e) = journal.end(now, &end)
                    {
                        warn!("{e:#}");
                    }
                    let text = format!("game over: {} ({})", end.outcome, end.reason.describe());
                    info!("{text}");
                    self.broadcast(text.clone(), origin);
                    notes.push(text);
                }
            }
        }
        outcome
    }

    /// After every input: deferred announcements once the clocks run, announcements speech
    /// could not take, the files, the progress.
    fn after(&mut self) {
        // An outage of the game's files began or ended: every console and the transcript hear it
        // once (its details stay in `status` while it lasts).
        for news in files::outage_news(self.journal.as_mut(), self.record.as_ref()) {
            warn!("{news}");
            self.note(news, None);
        }
        if !self.clocks_paused() && !self.deferred.is_empty() {
            for (id, audience, announcement) in std::mem::take(&mut self.deferred) {
                self.says.insert(id, (audience, announcement.clone()));
                self.speak(id, audience, announcement, true);
            }
        }
        // Bounded: each pass removes what it finishes, and finishing adds no unspoken ones
        // unless speech is gone, in which case it ends with the game's announcements said.
        for _ in 0..64 {
            if self.unspoken.is_empty() {
                break;
            }
            for id in std::mem::take(&mut self.unspoken) {
                if self.says.remove(&id).is_some() {
                    let now = self.clock.now();
                    self.accept(Input::SpeechFinished { id }, now, None);
                }
            }
        }
        self.engine_turn();
        if self.record_dirty {
            self.write_record();
        }
        self.publish();
    }

    fn write_record(&mut self) {
        self.record_dirty = false;
        if let Some(record) = &self.record {
            record.write(RecordSnapshot {
                game: self.arbiter.game().clone(),
                tags: self.tags.clone(),
                now: self.clock.now(),
            });
        }
    }

    /// Hand an announcement to speech. If speech cannot take it, it is written to the
    /// transcript here and counts as said, so that no clock waits for it forever (F.3 c).
    /// `shown`: also tell every console what is said (`# said to ...`).
    /// Returns whether speech took it.
    fn speak(
        &mut self,
        id: u64,
        audience: Audience,
        announcement: Announcement,
        shown: bool,
    ) -> bool {
        let text = self.pack.render(&announcement, self.style).text;
        // `repeat` is for what he was told; his own move said back is not what he asks again,
        // and neither is a reply (said unshown, see `request`).
        if audience.includes_blind() && shown && !matches!(announcement, Announcement::OwnMove(_)) {
            self.last_to_blind = Some(announcement.clone());
        }
        if self.echo {
            println!(
                "{}  to {:<7}  {text}",
                crate::wall::time_of_day(),
                audience_word(audience)
            );
        }
        if shown {
            let line = format!("said to {}: {text}", audience_word(audience));
            // His console shows what his ear hears.
            if audience.includes_blind() {
                self.broadcast(line, None);
            } else {
                self.broadcast_staff(line, None);
            }
        }
        debug!(
            id,
            audience = audience_word(audience),
            "announcement handed to speech"
        );
        let request = SpeechRequest::announce(SpeechId(id), audience, announcement);
        let sent = match &self.speech {
            Some(tx) => tx.try_send(request).map_err(|e| e.to_string()),
            None => Err("no speech task".into()),
        };
        if let Err(e) = sent {
            warn!(
                id,
                "speech cannot take the announcement ({e}); it counts as said"
            );
            // Marked, so that the transcript never claims it was heard.
            self.notes.append(&format!(
                "{} {} {text} (not spoken: {e})",
                crate::wall::time_of_day(),
                audience_word(audience)
            ));
            if id < HUB_SPEECH_BASE {
                self.unspoken.push(id);
            }
            return false;
        }
        true
    }

    /// An announcement of the hub's own (not the arbiter's): never fed back as an input.
    /// Returns its speech id, if speech took it.
    fn say_own(
        &mut self,
        audience: Audience,
        announcement: Announcement,
        shown: bool,
    ) -> Option<u64> {
        let id = self.next_own_speech;
        self.next_own_speech += 1;
        self.speak(id, audience, announcement, shown).then_some(id)
    }

    /// The parts of a reply to him from `parts` on: the first that speech takes is said, the
    /// rest wait for it (see `reply_part_done`); a part speech cannot take is in the
    /// transcript as not spoken, and the next goes at once.
    fn say_reply(&mut self, mut parts: std::collections::VecDeque<Announcement>) {
        self.reply = None;
        while let Some(part) = parts.pop_front() {
            if let Some(id) = self.say_own(Audience::Blind, part, false) {
                if !parts.is_empty() {
                    self.reply = Some((id, parts));
                }
                return;
            }
        }
    }

    /// Run the mateability search off the hub, under a deadline.
    fn analyse(&mut self, ticket: u64, query: Query) {
        self.analyses.insert(ticket);
        let tx = self.messages.clone();
        tokio::spawn(async move {
            let search = tokio::task::spawn_blocking(move || dead::solve(&query));
            let mateability = match tokio::time::timeout(ANALYSIS_DEADLINE, search).await {
                Ok(Ok(m)) => m,
                // Past the deadline (the search runs on, unheard) or the search panicked:
                // undecided never ends a game; the arbiter rules.
                Ok(Err(_)) | Err(_) => Mateability::Undecided,
            };
            let _ = tx
                .send(HubMsg::Verdict {
                    ticket,
                    mateability,
                })
                .await;
        });
    }

    /// A note: the transcript, the assistant's and arbiter's consoles, the log.
    fn note(&mut self, text: String, origin: Option<u64>) {
        info!("note: {text}");
        self.notes.append(&files::note_line(&text));
        if self.echo {
            println!("{}  note     {text}", crate::wall::time_of_day());
        }
        self.broadcast_staff(text, origin);
    }

    /// A line for every console.
    fn broadcast(&self, text: String, origin: Option<u64>) {
        // No console connected: nobody to tell.
        let _ = self.broadcast.send(Broadcast {
            origin,
            text,
            to: Views::Everyone,
        });
    }

    /// A line for the assistant's and the arbiter's consoles.
    fn broadcast_staff(&self, text: String, origin: Option<u64>) {
        let _ = self.broadcast.send(Broadcast {
            origin,
            text,
            to: Views::Staff,
        });
    }
}
mod opponent;

#[cfg(test)]
mod tests;
