//! The boards' links as the table sees them (connected, read, lost: [`Boards`]), and what a
//! chattering board is cut down to before anything of it reaches the journal, the transcript or
//! speech ([`Table::admit`]: a stuck button pressed 5,000 times made 2.2 MB of each). A board
//! lost is said to both players (the arbiter says it once for a flapping cable); a board that
//! comes back is read whole again; a board's own fault lines reach the staff at most once a
//! second.

use shakmaty::{ByColor, Color};

use super::{Table, TableEffect, TableInput, TableSettings, Views};
use crate::{
    arbiter::Input,
    board::{
        SensorEvent,
        dgt::ClockMessage,
        session::LinkEvent,
        throttle::{Bucket, Throttle, held_words},
    },
    rules::Millis,
};

/// Per board: its link as the table sees it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BoardLink {
    pub(super) connected: bool,
    /// A full reading has come since the connection: what the board shows is its own word, not
    /// the recogniser's assumption that it shows what it should.
    pub(super) read: bool,
    /// Lost (or never found) since the last connection: the next one is a reconnection.
    pub(super) lost: bool,
}

/// Per board: what a chattering board is cut down to. Far above what a player's hands make:
/// four button presses at once, then four a second; sixty piece events at once, then ten a
/// second. Dropped piece events mean the board is read whole again.
#[derive(Debug, Clone)]
struct Intake {
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
    fn at_speed(speed: f64) -> Intake {
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

/// The boards' links and intakes.
#[derive(Debug, Clone)]
pub(super) struct Boards {
    links: ByColor<BoardLink>,
    intake: ByColor<Intake>,
}

impl Boards {
    pub(super) fn new(settings: &TableSettings) -> Boards {
        Boards {
            links: ByColor::default(),
            intake: settings.intake_speed.map(Intake::at_speed),
        }
    }

    pub(super) fn link(&self, seat: Color) -> BoardLink {
        self.links[seat]
    }

    pub(super) fn connected(&self) -> ByColor<bool> {
        self.links.map(|l| l.connected)
    }
}

/// Whether an input is taken in ([`Table::admit`]).
#[derive(Debug)]
pub enum Admission {
    /// Taken: journal it, then hand it to [`Table::handle`].
    Take(TableInput),
    /// Not taken: it changes nothing in the table (carry out these effects, notes of a board's
    /// chatter or faults; journal nothing).
    Drop(Vec<TableEffect>),
}

impl Table {
    /// Before the journal: whether an input is taken in. A chattering board's events beyond what
    /// a player makes are dropped here (noted at most once a second, with the count; dropped
    /// piece events mean the board is read whole again at its next event), so that they fill
    /// neither the journal nor the transcript; so are what changes nothing at the table: a
    /// clock reading whose lever did not move, a board's line noise, its fault lines (noted, at
    /// most once a second), a speech event or a verdict no longer awaited.
    pub fn admit(&mut self, input: TableInput, now: Millis) -> Admission {
        let now = now.max(self.last_t);
        let mut out = Vec::new();
        let taken = match &input {
            TableInput::Link { seat, event } => self.admit_link(*seat, event, now, &mut out),
            TableInput::SpeechFinished { id, .. } => self.awaits_speech(*id),
            TableInput::Verdict { ticket, .. } => self.analyses.contains_key(ticket),
            _ => true,
        };
        if taken {
            Admission::Take(input)
        } else {
            Admission::Drop(out)
        }
    }

    /// Whether a link's event is taken in (see [`Table::admit`]).
    fn admit_link(
        &mut self,
        seat: Color,
        event: &LinkEvent,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> bool {
        let name = self.arbiter.config().names().board(seat);
        match event {
            LinkEvent::Sensor(SensorEvent::Button(_)) if self.arbiter.config().is_blind(seat) => {
                if self.boards.intake[seat].buttons.take(now) {
                    return true;
                }
                self.chatter(seat, "button presses", now, out);
                false
            }
            // A whole reading: what was dropped is in it.
            LinkEvent::Sensor(SensorEvent::Snapshot(_)) => true,
            LinkEvent::Sensor(_) => {
                if self.boards.intake[seat].pieces.take(now) {
                    return true;
                }
                self.boards.intake[seat].resync = true;
                self.chatter(seat, "piece events", now, out);
                false
            }
            LinkEvent::Clock(ClockMessage::Times {
                lever_right_high,
                no_clock: false,
                ..
            }) => self.lever_moved(seat, *lever_right_high),
            LinkEvent::Clock(_) => false,
            LinkEvent::ClockNote(note) => self.clock_note_taken(note),
            LinkEvent::BoardFault { text } => {
                if let Some(held) = self.boards.intake[seat].faults.admit(now) {
                    let text = format!("{name} board reports: {text}{}", held_words(held));
                    self.note(text, None, out);
                }
                false
            }
            LinkEvent::Garbage { bytes } => {
                tracing::debug!(board = name, bytes, "garbage");
                false
            }
            LinkEvent::Rejected { reason } => {
                tracing::debug!(board = name, reason, "rejected");
                false
            }
            LinkEvent::Unknown { message } => {
                tracing::debug!(board = name, message, "unknown");
                false
            }
            LinkEvent::Connected { .. }
            | LinkEvent::Disconnected { .. }
            | LinkEvent::Unavailable { .. } => true,
        }
    }

    /// A chattering board's event dropped: noted at most once a second, with the count.
    fn chatter(&mut self, seat: Color, what: &str, now: Millis, out: &mut Vec<TableEffect>) {
        if let Some(held) = self.boards.intake[seat].dropped.admit(now) {
            let name = self.arbiter.config().names().board(seat);
            let text = format!(
                "{name} board: {what} ignored, more than a player makes (a chattering board?){}",
                held_words(held)
            );
            tracing::warn!("{text}");
            self.note(text, None, out);
        }
    }

    /// An event of `seat`'s board's link, taken in.
    pub(super) fn link_event(
        &mut self,
        seat: Color,
        event: LinkEvent,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) {
        let name = self.arbiter.config().names().board(seat);
        match event {
            LinkEvent::Connected { info } => {
                tracing::info!(board = name, "board connected: {info}");
                let link = &mut self.boards.links[seat];
                let reconnection = link.lost;
                link.connected = true;
                link.lost = false;
                self.broadcast(
                    format!("{name} board connected: {info}"),
                    None,
                    Views::Staff,
                    out,
                );
                if reconnection {
                    self.apply(Input::BoardConnected { seat }, now, None, out);
                }
                self.maybe_start(now, out);
            }
            LinkEvent::Sensor(SensorEvent::Button(n)) if self.arbiter.config().is_blind(seat) => {
                self.button(seat, n, now, out);
            }
            LinkEvent::Sensor(event) => {
                if matches!(event, SensorEvent::Snapshot(_)) {
                    self.boards.links[seat].read = true;
                    self.boards.intake[seat].resync = false;
                } else if std::mem::take(&mut self.boards.intake[seat].resync) {
                    // Events were dropped: the board is read whole again.
                    self.read_board(seat, out);
                }
                self.apply(Input::Board { seat, event }, now, None, out);
                self.maybe_start(now, out);
            }
            LinkEvent::Clock(ClockMessage::Times {
                lever_right_high,
                no_clock: false,
                ..
            }) => self.lever(seat, lever_right_high, now, out),
            LinkEvent::Clock(_) => {}
            LinkEvent::ClockNote(note) => self.clock_note(note, out),
            LinkEvent::Disconnected { reason } => {
                tracing::warn!(board = name, "board disconnected: {reason}");
                self.boards.links[seat] = BoardLink {
                    connected: false,
                    read: false,
                    lost: true,
                };
                self.note(format!("{name} board disconnected: {reason}"), None, out);
                self.apply(Input::BoardDisconnected { seat }, now, None, out);
            }
            LinkEvent::Unavailable { reason } => {
                tracing::warn!(board = name, "board unavailable: {reason}");
                self.note(format!("{name} board not available: {reason}"), None, out);
                let link = &mut self.boards.links[seat];
                if !link.lost && !link.connected {
                    // Never found: the players hear that the board is missing, once; its
                    // connection then counts as a reconnection and is announced.
                    link.lost = true;
                    self.apply(Input::BoardDisconnected { seat }, now, None, out);
                }
            }
            // Dropped at the intake (see `admit`).
            LinkEvent::BoardFault { .. }
            | LinkEvent::Garbage { .. }
            | LinkEvent::Rejected { .. }
            | LinkEvent::Unknown { .. } => {}
        }
    }

    /// A new session (a restart): no link is up yet, nothing has been read, the intakes start
    /// full.
    pub(super) fn boards_anew(&mut self) {
        self.boards = Boards::new(&self.settings);
    }
}
