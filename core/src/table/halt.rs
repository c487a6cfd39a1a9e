//! No move counts that is not on the disk. When the journal cannot take an input (a full or
//! read-only disk, a vanished folder), the shell does not apply it: it tells the table
//! ([`TableInput::JournalDown`](super::TableInput::JournalDown), itself held for the journal and
//! written first when the disk takes lines again), and play halts ([`Halt`]). The clocks stop by
//! the arbiter's pause for the recording (`PauseReason::Recording`), whose words tell both
//! players why: "Aufzeichnung gestört, Uhren angehalten" (the table says the same itself when
//! the clocks stood already); the staff are told why. While the halt lasts, what the boards,
//! speech and the engine would have the arbiter do waits in order, unapplied; the consoles' game
//! commands are refused with the reason (typed again then); queries and speech go on. Every
//! second the shell tries the journal again; once it takes the held lines
//! ([`TableInput::JournalBack`](super::TableInput::JournalBack)), the clocks the halt stopped run
//! again by the arbiter's resumption for the recording ("Aufzeichnung wieder möglich", "Uhren
//! laufen wieder"; only the first when the halt stopped no clock), and what waited is handed
//! back to the shell in order ([`TableEffect::Resubmit`]), to be journaled and applied as if it
//! had just happened (no one's clock ran meanwhile).
//!
//! A restart during the halt loses nothing that counted: nothing counted.

use std::collections::VecDeque;

use super::{Outcome, Table, TableEffect, TableInput, Views};
use crate::{
    announce::{Announcement, Audience},
    arbiter::Input,
    rules::{
        Millis,
        game::{self, PauseReason},
    },
};

/// How often the journal is tried again while play is halted.
pub const RETRY_MS: Millis = 1_000;
/// The arbiter inputs kept while play is halted; beyond, board events are dropped and every
/// board is read whole again when play goes on (a chattering board must not fill the memory).
const QUEUE_MAX: usize = 10_000;

/// Play halted because the journal cannot be written.
#[derive(Debug, Clone)]
pub(super) struct Halt {
    /// Why (the journal's error).
    error: String,
    /// The game time the halt began.
    since: Millis,
    /// Arbiter inputs that came meanwhile, in order, not yet applied.
    queue: VecDeque<Input>,
    /// Inputs dropped because the queue was full.
    dropped: usize,
    /// The clocks stand by the arbiter's pause for the recording: they run again when the halt
    /// ends.
    paused: bool,
    /// When the journal is tried next.
    pub(super) next_try: Millis,
}

impl Table {
    /// The journal refused an input at `now` with `error`: play halts. Halted already, the
    /// journal took the held lines and refused the next (the one that ends the halt): play halts
    /// again, the clocks still stopped by the first halt, and both players hear it again.
    pub(super) fn journal_down(&mut self, error: String, now: Millis, out: &mut Vec<TableEffect>) {
        tracing::error!("{error}; play halts until the journal can be written");
        let again = self.halt.is_some();
        let pause = !again && self.clocks_running() && !self.arbiter.game().is_over();
        self.broadcast(
            format!(
                "WARNING: {error}. Play is halted: nothing counts until the journal can be \
                 written{}; both players are told. Tried again every second; play goes on by \
                 itself when the disk takes the journal again (`status` shows the halt)",
                if pause {
                    ", the clocks are stopped"
                } else {
                    ""
                }
            ),
            None,
            Views::Staff,
            out,
        );
        if pause {
            // The arbiter's pause for the recording: it stops the clocks and tells both players
            // why ("recording failed, clocks stopped").
            let pause = Input::Rules(game::Input::Pause(PauseReason::Recording));
            self.apply(pause, now, None, out);
        } else {
            // The clocks stood already (or never ran, or a halt stopped them): nothing for the
            // arbiter to stop, but the players still learn that nothing counts for now.
            self.say_own(Audience::Both, Announcement::RecordingHalted, true, out);
        }
        match &mut self.halt {
            Some(halt) => {
                halt.error = error;
                halt.next_try = now + RETRY_MS;
            }
            None => {
                self.halt = Some(Halt {
                    error,
                    since: now,
                    queue: VecDeque::new(),
                    dropped: 0,
                    paused: pause,
                    next_try: now + RETRY_MS,
                })
            }
        }
    }

    /// The journal still cannot be written: the newest error, and another try in a second.
    pub(super) fn journal_still_down(&mut self, error: String, now: Millis) {
        if let Some(halt) = &mut self.halt {
            halt.error = error;
            halt.next_try = now + RETRY_MS;
        }
    }

    /// While halted: an arbiter input that came. A console's game command is refused with the
    /// reason; anything else waits in order (a tick is not kept: time goes on by itself).
    pub(super) fn hold_back(&mut self, input: Input, origin: Option<u64>) -> Outcome {
        if origin.is_some() {
            return self.halt_refusal();
        }
        let Some(halt) = &mut self.halt else {
            return Outcome::default();
        };
        match input {
            Input::Tick => {}
            input if halt.queue.len() < QUEUE_MAX => halt.queue.push_back(input),
            _ => halt.dropped += 1,
        }
        Outcome::default()
    }

    /// A console's game command while play is halted: refused with the reason.
    fn halt_refusal(&self) -> Outcome {
        let why = self.halt.as_ref().map_or("", |h| h.error.as_str());
        Outcome {
            notes: Vec::new(),
            refused: vec![format!(
                "play is halted: the journal cannot be written ({why}); nothing counts until it \
                 can, type it again then"
            )],
        }
    }

    /// The journal takes lines again: play goes on; what waited is handed back, in order.
    pub(super) fn journal_back(&mut self, now: Millis, out: &mut Vec<TableEffect>) {
        let Some(halt) = self.halt.take() else {
            return;
        };
        tracing::info!(
            "the journal is written again after {} s: play goes on ({} inputs waited{})",
            now.saturating_sub(halt.since) / 1000,
            halt.queue.len(),
            if halt.dropped > 0 {
                format!(", {} dropped", halt.dropped)
            } else {
                String::new()
            }
        );
        self.broadcast(
            format!(
                "the journal is written again: play goes on{}",
                if halt.paused {
                    ", the clocks run again"
                } else {
                    ""
                }
            ),
            None,
            Views::Staff,
            out,
        );
        if halt.paused {
            // The arbiter's resumption after the recording's pause: both players hear that the
            // recording works again and the clocks run.
            let resume = Input::Rules(game::Input::Resume(PauseReason::Recording));
            self.apply(resume, now, None, out);
        } else {
            self.say_own(Audience::Both, Announcement::RecordingRestored, true, out);
        }
        out.extend(
            halt.queue
                .into_iter()
                .map(|input| TableEffect::Resubmit(TableInput::Recorded(input))),
        );
        if halt.dropped > 0 {
            tracing::warn!(
                "{} board events were dropped while play was halted; every board is read again",
                halt.dropped
            );
            for seat in shakmaty::Color::ALL {
                self.read_board(seat, out);
            }
        }
    }

    /// The `status` line of a halt.
    pub(super) fn halt_status(&self, now: Millis) -> Option<String> {
        self.halt.as_ref().map(|h| {
            format!(
                "PLAY HALTED for {} s: the journal cannot be written ({}); nothing counts, {} \
                 inputs wait; tried again every second",
                now.saturating_sub(h.since) / 1000,
                h.error,
                h.queue.len()
            )
        })
    }
}
