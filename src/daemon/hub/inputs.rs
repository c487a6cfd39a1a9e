//! The hub's inputs: what the table says (a board link's events, speech's, a mateability
//! verdict, a game command typed at the console) becomes an arbiter [`Input`] at a time on the
//! game's time line, is journaled, and only then applied ([`Hub::accept`]: journal, apply, carry
//! out). An input the journal cannot take is not applied: play halts (`halt`) until it can.
//!
//! Also the state of each board's link as the hub sees it (connected, read, lost).

use shakmaty::{Color, Position};
use tracing::{debug, info, warn};

use super::{Hub, Outcome};
use crate::{daemon::link::LinkEvent, speech::SpeechEvent};
use tactus_core::{
    announce::count,
    arbiter::Input,
    board::throttle::{Bucket, Throttle, held_words},
    board::{SensorEvent, dgt::ClockMessage},
    console::{self, Action, Command, Role, wire::Reply},
    rules::{Millis, dead::Mateability, game, pgn::format_clk},
};

/// Per board: what a chattering board is cut down to before anything of it reaches the
/// journal, the transcript or speech (a stuck button pressed 5,000 times made 2.2 MB of each).
/// Far above what a player's hands make: four button presses at once, then four a second;
/// sixty piece events at once, then ten a second. Dropped piece events mean the board is read
/// whole again.
#[derive(Debug, Clone)]
pub(super) struct Intake {
    buttons: Bucket,
    pieces: Bucket,
    /// Dropped events and fault lines: noted at most once a second each, with the count.
    dropped: Throttle,
    faults: Throttle,
    /// Piece events were dropped: the board is to be read whole.
    resync: bool,
}

impl Intake {
    /// For a board whose player acts `speed` times as fast as a person (a simulated one).
    pub(super) fn at_speed(speed: f64) -> Intake {
        let speed = speed.max(1.0);
        let every = |ms: f64| ((ms / speed) as Millis).max(1);
        Intake {
            buttons: Bucket::new((4.0 * speed) as u32, every(250.0)),
            pieces: Bucket::new((60.0 * speed) as u32, every(100.0)),
            dropped: Throttle::default(),
            faults: Throttle::default(),
            resync: false,
        }
    }
}

/// Per board: link state as the hub sees it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BoardLink {
    pub(super) connected: bool,
    /// A full reading has come since the connection: what the board shows is its own word, not
    /// the recogniser's assumption that it shows what it should.
    pub(super) read: bool,
    /// Lost (or never found) since the last connection: the next one is a reconnection.
    pub(super) lost: bool,
}

impl Hub {
    /// Journal, apply, carry out. Returns what the input produced (the console's reply).
    pub(super) fn accept(&mut self, input: Input, t: Millis, origin: Option<u64>) -> Outcome {
        let now = t.max(self.last_t);
        self.last_t = now;
        if self.halted() {
            return self.hold_back(input, origin);
        }
        let mut stalled = None;
        if let Some(journal) = &mut self.journal
            && let Err(e) = journal.input(now, &input)
        {
            if journal.stalled() {
                // Handed to a disk that stalled: it lands when the disk wakes, in order, so it
                // is applied now (the table and the journal keep one order) and play halts
                // behind it.
                stalled = Some(format!("{e:#}"));
            } else {
                // Not on the disk, so not applied: play halts until it can be written.
                journal.withdraw_last();
                // A console's command is not kept: its reply says why; it is typed again.
                let kept = origin.is_none().then_some(input);
                self.halt_play(kept, now, format!("{e:#}"));
                self.after();
                return match origin {
                    Some(_) => self.halt_refusal(),
                    None => Outcome::default(),
                };
            }
        }
        let before = self.arbiter.game().ply();
        let effects = self.arbiter.handle(input, now);
        self.log_moves(before);
        let notes = self.effects(effects, now, origin);
        if let Some(error) = stalled {
            self.halt_play(None, now, error);
        }
        self.after();
        notes
    }

    /// A chattering board's event dropped: noted at most once a second, with the count.
    fn chatter(&mut self, seat: Color, what: &str, t: Millis) {
        if let Some(held) = self.intake[seat].dropped.admit(t) {
            let name = self.arbiter.config().names().board(seat);
            let text = format!(
                "{name} board: {what} ignored, more than a player makes (a chattering board?){}",
                held_words(held)
            );
            warn!("{text}");
            self.note(text, None);
        }
    }

    /// The log (journald's `journalctl -u tactus -f`) follows the game: every move as it
    /// counts, with both clocks, and a takeback.
    pub(super) fn log_moves(&self, before: usize) {
        let game = self.arbiter.game();
        if game.ply() < before {
            let stand = count(game.ply(), "half-move", "half-moves");
            info!(ply = game.ply(), "moves taken back; {stand} stand");
            self.echo_line("move", &format!("taken back; {stand} stand"));
            return;
        }
        for (i, record) in game.moves().iter().enumerate().skip(before) {
            let number = i / 2 + 1;
            let label = match record.side {
                Color::White => format!("{number}. {}", record.san),
                Color::Black => format!("{number}... {}", record.san),
            };
            match record.clocks_after {
                Some(clocks) => {
                    info!(
                        ply = i + 1,
                        "move counted: {label} (clocks: white {}, black {})",
                        format_clk(clocks.white),
                        format_clk(clocks.black)
                    );
                    self.echo_line(
                        "move",
                        &format!(
                            "{label:<14} white {}  black {}",
                            format_clk(clocks.white),
                            format_clk(clocks.black)
                        ),
                    );
                }
                None => {
                    info!(ply = i + 1, "move counted: {label}");
                    self.echo_line("move", &label);
                }
            }
        }
    }

    pub(super) fn link_event(&mut self, seat: Color, event: LinkEvent, t: Millis) {
        let name = self.arbiter.config().names().board(seat);
        match event {
            LinkEvent::Connected { info } => {
                info!(board = name, "board connected: {info}");
                let reconnection = self.board_links[seat].lost;
                self.board_links[seat].connected = true;
                self.board_links[seat].lost = false;
                self.broadcast_staff(format!("{name} board connected: {info}"), None);
                if reconnection {
                    self.accept(Input::BoardConnected { seat }, t, None);
                }
                self.maybe_start(t);
            }
            LinkEvent::Sensor(SensorEvent::Button(n)) if self.arbiter.config().is_blind(seat) => {
                if !self.intake[seat].buttons.take(t) {
                    self.chatter(seat, "button presses", t);
                    return;
                }
                self.button(seat, n);
            }
            LinkEvent::Sensor(event) => {
                if matches!(event, SensorEvent::Snapshot(_)) {
                    // A whole reading: what was dropped is in it.
                    self.board_links[seat].read = true;
                    self.intake[seat].resync = false;
                } else if !self.intake[seat].pieces.take(t) {
                    self.intake[seat].resync = true;
                    self.chatter(seat, "piece events", t);
                    return;
                } else if std::mem::take(&mut self.intake[seat].resync)
                    && let Some(tx) = &self.links[seat]
                {
                    let _ = tx.try_send(crate::daemon::link::LinkCommand::RequestSnapshot);
                }
                self.accept(Input::Board { seat, event }, t, None);
                self.maybe_start(t);
            }
            LinkEvent::Clock(ClockMessage::Times {
                lever_right_high,
                no_clock: false,
                ..
            }) if self.table_clock.as_ref().is_some_and(|c| c.seat == seat) => {
                self.lever(lever_right_high, t)
            }
            LinkEvent::Clock(_) => {}
            LinkEvent::ClockNote(note) => self.clock_note(note),
            LinkEvent::Disconnected { reason } => {
                warn!(board = name, "board disconnected: {reason}");
                self.board_links[seat].connected = false;
                self.board_links[seat].read = false;
                self.board_links[seat].lost = true;
                self.note(format!("{name} board disconnected: {reason}"), None);
                self.accept(Input::BoardDisconnected { seat }, t, None);
            }
            LinkEvent::Unavailable { reason } => {
                warn!(board = name, "board unavailable: {reason}");
                self.note(format!("{name} board not available: {reason}"), None);
                if !self.board_links[seat].lost && !self.board_links[seat].connected {
                    // Never found: the players hear that the board is missing, once; its
                    // connection then counts as a reconnection and is announced.
                    self.board_links[seat].lost = true;
                    self.accept(Input::BoardDisconnected { seat }, t, None);
                }
            }
            LinkEvent::BoardFault { text } => {
                if let Some(held) = self.intake[seat].faults.admit(t) {
                    self.note(
                        format!("{name} board reports: {text}{}", held_words(held)),
                        None,
                    );
                }
            }
            LinkEvent::Garbage { bytes } => debug!(board = name, bytes, "garbage"),
            LinkEvent::Rejected { reason } => debug!(board = name, reason, "rejected"),
            LinkEvent::Unknown { message } => debug!(board = name, message, "unknown"),
        }
    }

    pub(super) fn speech_event(&mut self, event: SpeechEvent) {
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
                let who = self.arbiter.config().names().audience(audience);
                self.note(format!("speech for {who} degraded: {message}"), None);
            }
            SpeechEvent::Recovered { audience, message } => {
                let who = self.arbiter.config().names().audience(audience);
                self.note(format!("speech for {who} works again: {message}"), None);
            }
            SpeechEvent::Ready { outputs } => {
                let names = self.arbiter.config().names();
                for (audience, speaker) in outputs {
                    info!("speech for {}: {speaker}", names.audience(audience));
                }
            }
            SpeechEvent::Started { .. } => {}
        }
    }

    /// A mateability verdict: an input, unless its search is no longer awaited.
    pub(super) fn verdict(&mut self, ticket: u64, mateability: Mateability) {
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

    /// Who may type a sealed move: the sealer's own side, never his opponent's. A sighted
    /// player's sealed move is typed at the arbiter's console (the blind player's assistant, who
    /// would type it otherwise, is his opponent's); a blind player's at his assistant's console
    /// or the arbiter's.
    fn seal_refusal(&self, role: Role, me: Option<Color>) -> Option<String> {
        if role == Role::Arbiter {
            return None;
        }
        let config = self.arbiter.config();
        let names = config.names();
        let sealer = self.arbiter.game().to_move();
        if !config.is_blind(sealer) {
            return Some(format!(
                "not sealed: the {} player's sealed move is typed at the arbiter's console \
                 (`login`), not here, so that his opponent's side does not learn it \
                 (adjournment)",
                names.player(sealer)
            ));
        }
        (me != Some(sealer)).then(|| {
            format!(
                "not sealed: it is the {} player's move to seal; it is typed at his assistant's \
                 console (`role assistant {sealer}`) or the arbiter's, not here (adjournment)",
                names.player(sealer)
            )
        })
    }

    /// A game command typed at the console: the arbiter's input, or why it is none.
    pub(super) fn game_command(
        &mut self,
        conn: u64,
        role: Role,
        me: Option<Color>,
        command: &Command,
    ) -> Reply {
        if let Some(refused) = self.start_command(role, command) {
            return refused;
        }
        if let Command::Game(Action::Seal(_)) = command
            && let Some(refused) = self.seal_refusal(role, me)
        {
            return Reply::error(refused);
        }
        match console::to_input(command, self.arbiter.game(), me, &self.braille) {
            Err(e) => Reply::error(e.to_string()),
            Ok(None) => Reply::error("not a game command; nothing was done"),
            Ok(Some(input)) => {
                // Not the input itself: a sealed move stays secret, even in the log.
                info!(%role, "console input");
                // A Braille sheet: the arbiter sees the moves it was read as, in SAN, before
                // what the comparison says of them.
                let read = match (command, &input) {
                    (
                        Command::Game(Action::BrailleScoresheet { format, .. }),
                        Input::Scoresheet { side, sans },
                    ) => Some(braille_read(*side, *format, self.arbiter.game(), sans)),
                    _ => None,
                };
                let now = self.clock.now();
                let mut reply = self.accept(input, now, Some(conn)).into_reply();
                reply.body.splice(0..0, read);
                reply
            }
        }
    }
}

/// How a Braille scoresheet entered at the console was read: `side`'s sheet in `format`, its
/// moves numbered from the game's start (`1. e4 e5 2. Nf3`).
fn braille_read(
    side: Color,
    format: tactus_core::record::braille::BrailleFormat,
    game: &game::Game,
    sans: &[String],
) -> String {
    let start = game.start_position();
    let mut number = start.fullmoves().get();
    let mut white = start.turn() == Color::White;
    let mut text = Vec::with_capacity(sans.len() * 2);
    for (i, san) in sans.iter().enumerate() {
        if white {
            text.push(format!("{number}. {san}"));
        } else {
            if i == 0 {
                text.push(format!("{number}... {san}"));
            } else {
                text.push(san.clone());
            }
            number += 1;
        }
        white = !white;
    }
    format!(
        "{side}'s scoresheet in {format} reads ({}): {}",
        count(sans.len(), "half-move", "half-moves"),
        text.join(" ")
    )
}
