//! The table around the arbiter: Appendix F's policy for everything that is not a ruling on the
//! game. The [`Arbiter`] decides the game (moves, clocks, claims, guidance of a board that
//! differs); the [`Table`] decides what the table does around it: what each seat was told and may
//! hear again, the blind player's requests (F.9 d) from his keypad, his board's buttons or his
//! assistant, the refusals at his keypad (never silent), the start of play, the boards' links and
//! what their chatter is cut down to, the training engine's seat, the DGT clock on the table and
//! its lever, the console's `status`, a game taken up again after a restart, and the halt of play
//! while the journal cannot be written.
//!
//! Pure, as the arbiter is: [`Table::handle`] takes a [`TableInput`] (everything the daemon's hub
//! receives: a board link's events, speech's, a console command with its role and seat, a
//! verdict, the engine's events, the journal's outage) and the time it happened, and returns
//! [`TableEffect`]s (what to say to whom, what to ask of a link, the engine or a search, the
//! reply to one console and the lines for the others, the transcript's and `touches.txt`'s
//! lines, the record to write). It never awaits, reads a clock or touches a file or a port: the
//! hub (`src/daemon/hub/`) receives, stamps the time, journals what the table receives, calls
//! [`Table::handle`] and carries the effects out. The journal holds what the table received, and
//! replaying it through a new table rebuilds the table (`crate::journal::replay`).
//!
//! Where things live: this file holds the [`Table`], what goes in and comes out, its settings,
//! the dispatch and the application of an input to the arbiter. Each duty has a file and a state
//! of its own:
//! - `told`: what each seat was told ([`told::Said`]): speech in flight, `repeat`'s memory, the
//!   reply said part by part, the announcements a restart left to say;
//! - `requests`: the blind player's requests (F.9 d), the board's buttons, the requests the
//!   arbiter switches off (12.3 a);
//! - `keypad`: the player's keypad: his refusals said aloud in his words, his help;
//! - `console`: a console command, by role and seat, to the duty that answers it;
//! - `start`: whether the boards are ready for play to start ([`start::StartGate`]);
//! - `boards`: each board's link as the table sees it and what its chatter is cut down to;
//! - `training`: the engine's seat in a training game ([`training::Opponent`]);
//! - `clock`: the DGT clock on the table, set to the official clock, and its lever;
//! - `status`: the console's `status` and the [`Progress`] the simulated boards watch;
//! - `halt`: play halted while the journal cannot be written;
//! - `recovery`: a game taken up again after a restart.

mod boards;
mod clock;
mod console;
mod halt;
mod keypad;
mod recovery;
mod requests;
mod start;
mod status;
mod told;
mod training;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use shakmaty::{ByColor, Color};

use crate::{
    announce::{Announcement, Audience, Wording},
    arbiter::{Arbiter, Effect, Input},
    board::session::{LinkCommand, LinkEvent},
    console::{Command, Role, Switchable, wire::Reply},
    engine::{EngineEvent, EngineRequest},
    record::braille::Profile as BrailleProfile,
    rules::{
        Millis,
        dead::{Mateability, Query},
        game::GameEnd,
    },
};

pub use boards::Admission;
pub use halt::RETRY_MS;
pub use keypad::{KeypadError, KeypadRefusal, RESIGN_CONFIRM_MS};
pub use recovery::{Recovery, recovery_words, worth_repeating};
pub use requests::{Asked, AskedBy, switch_note};
pub use status::Progress;
pub use told::OWN_SPEECH_BASE;

/// While a clock runs, a tick comes at least this often, so that the journal holds the time at
/// most this far behind (a restarted game's clocks resume from the journal's last time). Below a
/// second with room for a slow disk's sync.
pub const HEARTBEAT_MS: Millis = 800;
/// A deadline the arbiter keeps reporting after a tick at it is retried this much later, so
/// that a deadline that does not move can never spin the table.
const DEADLINE_RETRY_MS: Millis = 20;

/// How the table is set up beyond the arbiter's seats and rules: its devices and its habits.
/// Journaled with the game (the header, and again at a restart), so that a replay rebuilds the
/// same table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSettings {
    /// Whether each seat's board has a link (a port): a board with sensors, or a sighted board
    /// without sensors that carries the DGT clock.
    pub links: ByColor<bool>,
    /// Whether each seat's board has sensors.
    pub sensors: ByColor<bool>,
    /// A DGT clock on a board: where it is and how its lever is read.
    pub clock: Option<ClockSeat>,
    /// Play starts by itself once every board with sensors shows the position (`game.start =
    /// "boards"`); otherwise only at the console's `start`.
    pub start_by_boards: bool,
    /// How much faster than a person each board's player acts (a simulated board's factor; 1 for
    /// a real one): what its chatter is cut down to scales with it.
    pub intake_speed: ByColor<f64>,
    /// Each blind player's board's buttons: his requests, by button number.
    pub buttons: ByColor<BTreeMap<u8, String>>,
    /// A training game: an engine plays the sighted side (`tactus train`).
    pub training: bool,
}

impl Default for TableSettings {
    /// No links, no clock, play started by the arbiter, a person's pace, no buttons.
    fn default() -> Self {
        TableSettings {
            links: ByColor::default(),
            sensors: ByColor::default(),
            clock: None,
            start_by_boards: false,
            intake_speed: ByColor::new_with(|_| 1.0),
            buttons: ByColor::default(),
            training: false,
        }
    }
}

/// A DGT clock on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSeat {
    /// The seat whose board the clock is plugged into (the sighted player's).
    pub seat: Color,
    /// The colour of the player the arbiter seated on the clock's left.
    pub left: Color,
    /// Whether a press of the lever completes the sighted player's move (`completion =
    /// "press"`); otherwise his board's rest does and the lever is only the clock's.
    pub lever_completes_move: bool,
}

/// What a table is built from.
#[derive(Debug, Clone)]
pub struct TableParts {
    pub arbiter: Arbiter,
    pub settings: TableSettings,
    /// The PGN tags (for `status`, the record and the page).
    pub tags: Vec<(String, String)>,
    /// Each seat's words: what is said to him, and what is printed of it.
    pub wording: ByColor<Wording>,
    /// Each seat's Braille profile: a player's Braille scoresheet entered at the console is read
    /// in his (F.8), as his own score is written.
    pub braille: ByColor<BrailleProfile>,
    /// The players' requests switched off when the game began (12.3 a).
    pub requests_off: BTreeSet<Switchable>,
}

/// Everything the table receives, with the time it happened (the argument of
/// [`Table::handle`]).
#[derive(Debug, Clone, PartialEq)]
pub enum TableInput {
    /// An event of `seat`'s board's link.
    Link { seat: Color, event: LinkEvent },
    /// Speech has finished an announcement (every announcement handed over ends exactly once);
    /// `cut`: it was cut off, replaced or dropped before its end.
    SpeechFinished { id: u64, cut: bool },
    /// A speaker stopped working, or works again (for the staff's consoles and the transcript).
    SpeechNote {
        audience: Audience,
        message: String,
        recovered: bool,
    },
    /// A console command, already checked against the connection's role. `seat`: the seat the
    /// console named (`role player white`, `role assistant black`).
    Console {
        conn: u64,
        role: Role,
        seat: Option<Color>,
        command: Command,
    },
    /// A line of a player's keypad that its session refused (a word no command has, a command
    /// not his, arguments that do not read): he is told why, in his voice and his words.
    Keypad {
        conn: u64,
        seat: Option<Color>,
        refusal: KeypadRefusal,
    },
    /// A mateability search's verdict.
    Verdict {
        ticket: u64,
        mateability: Mateability,
    },
    /// The training engine's news.
    Engine(EngineEvent),
    /// Time passes (at [`Table::next_deadline`], or the heartbeat of a running clock).
    Tick,
    /// The journal could not take an input: play halts until it can (`halt`).
    JournalDown { error: String },
    /// The journal was tried again while play is halted, and still cannot be written (never
    /// journaled: nothing changes but the error and the next try).
    JournalStillDown { error: String },
    /// The journal takes lines again: play goes on.
    JournalBack,
    /// The daemon was started again on this game (after a crash, a power cut, a stop): its
    /// settings of the day. Sessions (links, keypads, speech) begin anew.
    Resumed { settings: TableSettings },
    /// An input to the arbiter as a journal of format 2 holds it: the hub of then had already
    /// decided on it, so it is applied as it stands (replays of such journals only).
    Recorded(Input),
}

impl TableInput {
    /// Whether the journal holds this input. What changes neither the game nor what a restart
    /// takes up is not journaled: a line of a keypad its session refused, `help` (both said to
    /// the player who typed them, and nothing else), `status`, and the journal's own retries.
    /// Everything else is, before the table is handed it.
    pub fn journaled(&self) -> bool {
        match self {
            TableInput::Keypad { .. } | TableInput::JournalStillDown { .. } => false,
            TableInput::Console { command, .. } => {
                !matches!(command, Command::Help(_) | Command::Status)
            }
            _ => true,
        }
    }

    /// The input for a line of `seat`'s keypad its session refused.
    pub fn keypad(conn: u64, seat: Option<Color>, error: &crate::console::ConsoleError) -> Self {
        TableInput::Keypad {
            conn,
            seat,
            refusal: KeypadRefusal::of(error),
        }
    }
}

/// What the shell must do.
#[derive(Debug, Clone, PartialEq)]
pub enum TableEffect {
    /// Say this to `audience` (`text`: its words, for the echo and for a transcript that notes
    /// it unspoken); report [`TableInput::SpeechFinished`] with the id when it has been said.
    Say {
        id: u64,
        audience: Audience,
        announcement: Announcement,
        text: String,
    },
    /// Silence what is being said to `audience` (a reply he cut with `stop`).
    Silence { audience: Audience },
    /// A command for `seat`'s board's link (a reading, the DGT clock's face or text).
    Link { seat: Color, command: LinkCommand },
    /// Run the mateability search; answer with [`TableInput::Verdict`].
    Analyse { ticket: u64, query: Query },
    /// A request for the training engine.
    Engine(EngineRequest),
    /// The reply to the console command of connection `conn`.
    Reply { conn: u64, reply: Reply },
    /// A line for the consoles.
    Broadcast(Broadcast),
    /// A note: the transcript, the assistant's and the arbiter's consoles (not `origin`, which
    /// has it in its reply), the log.
    Note { text: String, origin: Option<u64> },
    /// A line for the transcript only.
    Transcript(String),
    /// A touch, for `touches.txt`.
    Touch {
        seat: Color,
        square: shakmaty::Square,
        piece: Option<shakmaty::Piece>,
    },
    /// A request of a blind player and its answer (F.9 d), for the transcript (`record.note()`).
    Asked(Asked),
    /// The record changed: write the game's files.
    RecordChanged,
    /// The game ended: the journal's end line.
    GameOver(GameEnd),
    /// An input that waited while the journal could not be written: journal it and hand it to
    /// the table again, in this order (`halt`).
    Resubmit(TableInput),
}

/// A line for the consoles ("# ..."), with the connection whose command caused it (that one got
/// it in its reply already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broadcast {
    pub origin: Option<u64>,
    pub text: String,
    /// Which consoles see it.
    pub to: Views,
    /// What a blind player's own keypad shows instead of `text` (his Braille display): what his
    /// ear heard, in his own language and nothing else; the staff's line names who heard it, in
    /// the staff's words. None: one line for everyone.
    pub keypad: Option<KeypadLine>,
}

/// A line of what was said, as each blind player's keypad shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeypadLine {
    /// The words for a keypad that named its seat.
    pub words: ByColor<String>,
    /// The seat of a keypad that named none (the blind player's, at a table with one).
    pub seatless: Color,
}

impl Broadcast {
    /// The line a console in `role`, speaking for `seat` if it named one, shows.
    pub fn text_for(&self, role: Role, seat: Option<Color>) -> &str {
        match &self.keypad {
            Some(k) if role == Role::Player => &k.words[seat.unwrap_or(k.seatless)],
            _ => &self.text,
        }
    }
}

/// Which consoles an event is for. A player's console (his keypad, his Braille display) shows
/// what is said to him; notes (touches, possible claims, boards, files) are the assistant's and
/// the arbiter's view (F.9 e).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Views {
    Everyone,
    /// The assistant's and the arbiter's consoles.
    Staff,
    /// The staff's and the keypad of the player of this seat (what is said to him alone);
    /// `seatless`: a keypad that named no seat is his (a table with one blind player).
    Player {
        seat: Color,
        seatless: bool,
    },
}

impl Views {
    /// Whether a console in `role`, speaking for `seat` if it named one, sees an event for these
    /// views.
    pub fn reach(self, role: Role, seat: Option<Color>) -> bool {
        match self {
            Views::Everyone => true,
            Views::Staff => role >= Role::Assistant,
            Views::Player {
                seat: his,
                seatless,
            } => role >= Role::Assistant || seat.map_or(seatless, |s| s == his),
        }
    }
}

/// What one arbiter input produced, for a console's reply: the notes, and why it was refused if
/// it was (then nothing changed).
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
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

/// The table. See the module docs.
#[derive(Debug, Clone)]
pub struct Table {
    arbiter: Arbiter,
    settings: TableSettings,
    tags: Vec<(String, String)>,
    wording: ByColor<Wording>,
    /// The notation each player's Braille scoresheet is read in.
    braille: crate::console::SheetProfiles,
    /// The latest time an input came at: the table's time line never runs backwards.
    last_t: Millis,
    /// The time of the last tick (a deadline reported again after it is retried later).
    last_tick: Option<Millis>,
    said: told::Said,
    requests: requests::Requests,
    boards: boards::Boards,
    start: start::StartGate,
    opponent: Option<training::Opponent>,
    clock: Option<clock::TableClock>,
    halt: Option<halt::Halt>,
    /// When each blind player typed `resign` at his keypad, waiting to be typed again.
    resigning: ByColor<Option<Millis>>,
    /// Mateability searches asked for and not answered yet, by ticket.
    analyses: BTreeMap<u64, Query>,
    /// The arbiter inputs applied, kept only while tracing (a replay's steps, the tests).
    applied: Option<Vec<(Millis, Input)>>,
    /// Inputs handled so far (a replayed journal's, for the recovery's note).
    inputs: usize,
}

impl Table {
    pub fn new(parts: TableParts) -> Table {
        let settings = parts.settings;
        let blind = ByColor::new_with(|seat| parts.arbiter.config().is_blind(seat));
        Table {
            boards: boards::Boards::new(&settings),
            opponent: settings.training.then(training::Opponent::default),
            clock: settings.clock.map(clock::TableClock::new),
            arbiter: parts.arbiter,
            tags: parts.tags,
            wording: parts.wording,
            braille: crate::console::SheetProfiles {
                profiles: parts.braille,
                blind,
            },
            last_t: 0,
            last_tick: None,
            said: told::Said::default(),
            requests: requests::Requests::new(parts.requests_off),
            start: start::StartGate::default(),
            halt: None,
            resigning: ByColor::default(),
            analyses: BTreeMap::new(),
            applied: None,
            inputs: 0,
            settings,
        }
    }

    /// Keep every arbiter input applied from now on, for [`Table::take_applied`].
    pub fn trace_inputs(&mut self) {
        self.applied.get_or_insert_with(Vec::new);
    }

    /// The arbiter inputs applied since the last call (with [`Table::trace_inputs`]), in order,
    /// with their times.
    pub fn take_applied(&mut self) -> Vec<(Millis, Input)> {
        self.applied
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// One input at time `now` (a time before the last input's is taken as the last's).
    pub fn handle(&mut self, input: TableInput, now: Millis) -> Vec<TableEffect> {
        let now = now.max(self.last_t);
        self.last_t = now;
        self.said.next_step();
        let mut out = Vec::new();
        match input {
            TableInput::Link { seat, event } => self.link_event(seat, event, now, &mut out),
            TableInput::SpeechFinished { id, cut } => self.speech_finished(id, cut, now, &mut out),
            TableInput::SpeechNote {
                audience,
                message,
                recovered,
            } => {
                let who = self.arbiter.config().names().audience(audience);
                let state = if recovered { "works again" } else { "degraded" };
                self.note(
                    format!("speech for {who} {state}: {message}"),
                    None,
                    &mut out,
                );
            }
            TableInput::Console {
                conn,
                role,
                seat,
                command,
            } => {
                let reply = self.console(conn, role, seat, command, now, &mut out);
                out.push(TableEffect::Reply { conn, reply });
            }
            TableInput::Keypad {
                conn,
                seat,
                refusal,
            } => {
                let reply = self.keypad_refused(seat, &refusal, &mut out);
                out.push(TableEffect::Reply { conn, reply });
            }
            TableInput::Verdict {
                ticket,
                mateability,
            } => self.verdict(ticket, mateability, now, &mut out),
            TableInput::Engine(event) => self.engine_event(event, now, &mut out),
            TableInput::Tick => {
                self.last_tick = Some(now);
                self.apply(Input::Tick, now, None, &mut out);
            }
            TableInput::JournalDown { error } => self.journal_down(error, now, &mut out),
            TableInput::JournalStillDown { error } => self.journal_still_down(error, now),
            TableInput::JournalBack => self.journal_back(now, &mut out),
            TableInput::Resumed { settings } => self.resumed(settings, now, &mut out),
            TableInput::Recorded(input) => {
                // What the table keeps of it, as if it had come its own way.
                match &input {
                    Input::SpeechFinished { id } => self.said.finished(*id),
                    Input::Rules(crate::rules::game::Input::Verdict { ticket, .. }) => {
                        self.analyses.remove(ticket);
                    }
                    _ => {}
                }
                self.apply(input, now, None, &mut out);
            }
        }
        self.after(now, &mut out);
        self.inputs += 1;
        out
    }

    /// What the table does as it stands, without an input: the announcements a restart left
    /// to say once the clocks run, the engine's turn, the DGT clock's face. The hub calls it as
    /// it starts, before the first input.
    pub fn settle(&mut self, now: Millis) -> Vec<TableEffect> {
        let mut out = Vec::new();
        self.after(now.max(self.last_t), &mut out);
        out
    }

    /// When [`TableInput::Tick`] should come next: the arbiter's deadlines, the heartbeat of a
    /// running clock (so the journal keeps the time), the DGT clock's face changing by itself at
    /// the end of a delay; while play is halted, only the next try of the journal.
    pub fn next_deadline(&self) -> Option<Millis> {
        if let Some(halt) = &self.halt {
            return Some(halt.next_try);
        }
        let mut deadline = self.arbiter.next_deadline().map(|d| match self.last_tick {
            Some(last) if d <= last => last + DEADLINE_RETRY_MS,
            _ => d,
        });
        if self.clocks_running() {
            let heartbeat = self.last_t + HEARTBEAT_MS;
            deadline = Some(deadline.map_or(heartbeat, |d| d.min(heartbeat)));
        }
        if let Some(changes) = self.clock.as_ref().and_then(|c| c.changes) {
            deadline = Some(deadline.map_or(changes, |d| d.min(changes)));
        }
        deadline
    }

    pub fn arbiter(&self) -> &Arbiter {
        &self.arbiter
    }
    pub fn game(&self) -> &crate::rules::game::Game {
        self.arbiter.game()
    }
    pub fn settings(&self) -> &TableSettings {
        &self.settings
    }
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }
    /// The words of `seat`'s player.
    pub fn wording(&self, seat: Color) -> &Wording {
        &self.wording[seat]
    }
    /// The latest time the table has seen.
    pub fn last_time(&self) -> Millis {
        self.last_t
    }
    /// The players' requests switched off (12.3 a).
    pub fn requests_off(&self) -> &BTreeSet<Switchable> {
        self.requests.off()
    }
    /// Mateability searches asked for and not answered yet, by ticket.
    pub fn pending_analyses(&self) -> &BTreeMap<u64, Query> {
        &self.analyses
    }
    /// Whether play is halted because the journal cannot be written.
    pub fn halted(&self) -> bool {
        self.halt.is_some()
    }
    /// Whether the game has ended with a result.
    pub fn has_result(&self) -> bool {
        self.arbiter.game().end().is_some()
    }
    /// Announcements handed to speech whose end the arbiter waits for, and those a restart left
    /// to say once the clocks run.
    pub fn speaking(&self) -> usize {
        self.said.speaking()
    }

    /// The seats in the order the table is served: the blind player's first (at a table with
    /// one), else White's.
    pub fn seat_order(&self) -> [Color; 2] {
        match self.arbiter.config().the_blind() {
            Some(blind) => [blind, !blind],
            None => Color::ALL,
        }
    }

    /// The words of what is said to `audience`: the player's pack (to both: the first seat's,
    /// as the transcript's `both` line has it when both hear one pack).
    pub fn wording_for(&self, audience: Audience) -> &Wording {
        match audience {
            Audience::Player(seat) => &self.wording[seat],
            Audience::Both => &self.wording[self.seat_order()[0]],
        }
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

    /// Apply an input to the arbiter and carry its effects into the table's (`origin`: the
    /// console whose command it is). While play is halted it waits instead (a console's command
    /// is refused: it is typed again).
    fn apply(
        &mut self,
        input: Input,
        now: Millis,
        origin: Option<u64>,
        out: &mut Vec<TableEffect>,
    ) -> Outcome {
        if self.halt.is_some() {
            return self.hold_back(input, origin);
        }
        if let Some(applied) = &mut self.applied {
            applied.push((now, input.clone()));
        }
        let effects = self.arbiter.handle(input, now);
        self.effects(effects, now, origin, out)
    }

    /// The arbiter's effects, as the table carries them.
    fn effects(
        &mut self,
        effects: Vec<Effect>,
        now: Millis,
        origin: Option<u64>,
        out: &mut Vec<TableEffect>,
    ) -> Outcome {
        let mut outcome = Outcome::default();
        for effect in effects {
            match effect {
                Effect::Say {
                    id,
                    audience,
                    announcement,
                } => self.say_game(id, audience, announcement, out),
                Effect::RequestSnapshot { seat } => self.read_board(seat, out),
                Effect::Analyse { ticket, query } => {
                    self.analyses.insert(ticket, query.clone());
                    out.push(TableEffect::Analyse { ticket, query });
                }
                Effect::Touch {
                    seat,
                    square,
                    piece,
                } => out.push(TableEffect::Touch {
                    seat,
                    square,
                    piece,
                }),
                Effect::Note(text) => {
                    self.note(text.clone(), origin, out);
                    outcome.notes.push(text);
                }
                Effect::Refused(text) => {
                    // The transcript keeps it; the console that sent it gets it as its reply.
                    // Other consoles are not told: nothing happened in the game.
                    tracing::info!("refused: {text}");
                    out.push(TableEffect::Transcript(format!("refused: {text}")));
                    outcome.refused.push(text);
                }
                Effect::RecordChanged => out.push(TableEffect::RecordChanged),
                Effect::GameOver(end) => {
                    let text = format!("game over: {} ({})", end.outcome, end.reason.describe());
                    tracing::info!("{text}");
                    out.push(TableEffect::GameOver(end));
                    // The staff's line: a blind player's keypad shows the result he heard, in
                    // his words (said to both), not this English summary.
                    self.broadcast(text.clone(), origin, Views::Staff, out);
                    outcome.notes.push(text);
                }
            }
        }
        let _ = now;
        outcome
    }

    /// After every input: announcements a restart left to say once the clocks run, the engine's
    /// turn, the DGT clock's face.
    fn after(&mut self, now: Millis, out: &mut Vec<TableEffect>) {
        self.say_deferred(out);
        self.engine_turn(now, out);
        self.sync_table_clock(now, out);
    }

    /// A mateability verdict: an input, unless its search is no longer awaited.
    fn verdict(
        &mut self,
        ticket: u64,
        mateability: Mateability,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) {
        if self.analyses.remove(&ticket).is_some() {
            let input = Input::Rules(crate::rules::game::Input::Verdict {
                ticket,
                mateability,
            });
            self.apply(input, now, None, out);
        }
    }

    /// Ask `seat`'s board for a full reading (a board away takes one when it is back).
    fn read_board(&self, seat: Color, out: &mut Vec<TableEffect>) {
        if self.settings.links[seat] {
            out.push(TableEffect::Link {
                seat,
                command: LinkCommand::RequestSnapshot,
            });
        }
    }

    /// A note: the transcript, the assistant's and arbiter's consoles, the log.
    fn note(&self, text: String, origin: Option<u64>, out: &mut Vec<TableEffect>) {
        out.push(TableEffect::Note { text, origin });
    }

    /// A line for the consoles of `views`.
    fn broadcast(
        &self,
        text: String,
        origin: Option<u64>,
        views: Views,
        out: &mut Vec<TableEffect>,
    ) {
        out.push(TableEffect::Broadcast(Broadcast {
            origin,
            text,
            to: views,
            keypad: None,
        }));
    }

    /// The consoles that see what is said to `seat`'s blind player alone: his keypad and the
    /// staff's (a keypad that named no seat is his at a table with one blind player).
    fn his_views(&self, seat: Color) -> Views {
        Views::Player {
            seat,
            seatless: !self.arbiter.config().names().both_blind(),
        }
    }
}
