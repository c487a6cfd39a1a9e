//! The hub's inputs: what the table says (a board link's events, speech's, a mateability
//! verdict, a game command typed at the console) becomes an arbiter [`Input`] at a time on the
//! game's time line, is journaled, and only then applied ([`Hub::accept`]: journal, apply, carry
//! out). A journal that cannot be written does not stop the game; the assistant is told at once.
//!
//! Also the state of each board's link as the hub sees it (connected, read, lost).

use shakmaty::Color;
use tracing::{debug, info, warn};

use super::{Hub, Outcome};
use crate::{
    daemon::link::LinkEvent,
    speech::{SpeechEvent, transcript::audience_word},
};
use tactus_core::{
    announce::count,
    arbiter::{BoardId, Input},
    board::{SensorEvent, dgt::ClockMessage},
    console::{self, Command, Role, wire::Reply},
    rules::{Millis, dead::Mateability, game, pgn::format_clk},
};

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
        let before = self.arbiter.game().ply();
        let effects = self.arbiter.handle(input, now);
        self.log_moves(before);
        let notes = self.effects(effects, now, origin);
        self.after();
        notes
    }

    /// The log (journald's `journalctl -u tactus -f`) follows the game: every move as it
    /// counts, with both clocks, and a takeback.
    pub(super) fn log_moves(&self, before: usize) {
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

    pub(super) fn link_event(&mut self, board: BoardId, event: LinkEvent, t: Millis) {
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
                if matches!(event, SensorEvent::Snapshot(_)) {
                    self.board_links[board].read = true;
                }
                self.accept(Input::Board { board, event }, t, None);
                self.maybe_start(t);
            }
            LinkEvent::Clock(ClockMessage::Times {
                lever_right_high,
                no_clock: false,
                ..
            }) if board == BoardId::Sighted => self.lever(lever_right_high, t),
            LinkEvent::Clock(_) => {}
            LinkEvent::ClockNote(note) => self.clock_note(note),
            LinkEvent::Disconnected { reason } => {
                warn!(board = board.name(), "board disconnected: {reason}");
                self.board_links[board].connected = false;
                self.board_links[board].read = false;
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

    /// A game command typed at the console: the arbiter's input, or why it is none.
    pub(super) fn game_command(&mut self, conn: u64, role: Role, command: &Command) -> Reply {
        if let Some(refused) = self.start_command(role, command) {
            return refused;
        }
        let blind = self.arbiter.config().blind;
        match console::to_input(command, self.arbiter.game(), blind) {
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
}
