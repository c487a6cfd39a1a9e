//! No move counts that is not on the disk (issue 25, point 3). When the journal cannot take an
//! input (a full or read-only disk, a vanished folder), the input is not applied: play halts.
//! The clocks stop (a pause the arbiter did not type, held for the journal so that a replay
//! pauses where the table paused), both players hear "Aufzeichnung gestört, Uhren angehalten",
//! and the staff are told why. While the halt lasts, what the boards, speech and the engine
//! report waits in order, unapplied; the consoles' game commands are refused with the reason
//! (the arbiter types them again); queries and speech go on. Every second the journal is tried
//! again; once it takes the held lines, both players hear "Aufzeichnung wieder möglich", the
//! clocks run again if the halt stopped them, and what waited is journaled and applied in
//! order, as if it had just happened (no one's clock ran meanwhile).
//!
//! A restart during the halt loses nothing that counted: nothing counted.

use std::collections::VecDeque;

use tactus_core::{
    announce::{Announcement, Audience},
    arbiter::Input,
    rules::{Millis, game},
};
use tracing::{error, info, warn};

use super::{Hub, Outcome};
use crate::daemon::link::LinkCommand;

/// How often the journal is tried again while play is halted.
pub(super) const RETRY_MS: Millis = 1_000;
/// The inputs kept while play is halted; beyond, board events are dropped and every board is
/// read whole again when play goes on (a chattering board must not fill the memory).
const QUEUE_MAX: usize = 10_000;

/// Play halted because the journal cannot be written.
#[derive(Debug)]
pub(super) struct Halt {
    /// Why (the journal's error).
    pub(super) error: String,
    /// The game time the halt began.
    pub(super) since: Millis,
    /// Inputs that came meanwhile, in order, not yet journaled or applied.
    queue: VecDeque<Input>,
    /// Inputs dropped because the queue was full.
    dropped: usize,
    /// The halt stopped the clocks (and starts them again).
    paused: bool,
    /// When the journal is tried next.
    pub(super) next_try: Millis,
}

impl Hub {
    /// Whether play is halted (the journal cannot be written).
    pub(super) fn halted(&self) -> bool {
        self.halt.is_some()
    }

    /// The journal refused an input at `now` with `error`: halt play. `input` waits, unless
    /// it is a tick or a console's command (refused, typed again).
    pub(super) fn halt_play(&mut self, input: Option<Input>, now: Millis, error: String) {
        error!("{error}; play halts until the journal can be written");
        let queue: VecDeque<Input> = input
            .into_iter()
            .filter(|i| !matches!(i, Input::Tick))
            .collect();
        let pause = self.clocks_running() && !self.arbiter.game().is_over();
        self.halt = Some(Halt {
            error: error.clone(),
            since: now,
            queue,
            dropped: 0,
            paused: pause,
            next_try: now + RETRY_MS,
        });
        self.broadcast_staff(
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
        );
        self.say_own(Audience::Both, Announcement::RecordingHalted, true);
        if pause {
            // The pause is held for the journal (written first when it takes lines again), so
            // that a replay pauses where the table paused; it only stops the clocks.
            let pause = Input::Rules(game::Input::Pause(game::PauseReason::Arbiter));
            if let Some(journal) = &mut self.journal {
                let _ = journal.input(now, &pause);
            }
            let effects = self.arbiter.handle(pause, now);
            // Its own "clocks stopped" is in RecordingHalted's words already.
            let effects = effects
                .into_iter()
                .filter(|e| {
                    !matches!(
                        e,
                        tactus_core::arbiter::Effect::Say {
                            announcement: Announcement::ClocksPaused,
                            ..
                        }
                    )
                })
                .collect();
            self.effects(effects, now, None);
        }
    }

    /// While halted: an input that came. A console's game command is refused with the reason;
    /// anything else waits in order (a tick is not kept: time goes on by itself).
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
    pub(super) fn halt_refusal(&self) -> Outcome {
        let why = self.halt.as_ref().map_or("", |h| h.error.as_str());
        Outcome {
            notes: Vec::new(),
            refused: vec![format!(
                "play is halted: the journal cannot be written ({why}); nothing counts until it \
                 can, type it again then"
            )],
        }
    }

    /// Try the journal again; if it takes the held lines, play goes on.
    pub(super) fn retry_journal(&mut self, now: Millis) {
        let Some(journal) = &mut self.journal else {
            self.halt = None;
            return;
        };
        if let Err(e) = journal.flush_held() {
            if let Some(halt) = &mut self.halt {
                halt.error = format!("{e:#}");
                halt.next_try = now + RETRY_MS;
            }
            return;
        }
        let Some(halt) = self.halt.take() else {
            return;
        };
        info!(
            "the journal is written again after {} s: play goes on ({} inputs waited{})",
            now.saturating_sub(halt.since) / 1000,
            halt.queue.len(),
            if halt.dropped > 0 {
                format!(", {} dropped", halt.dropped)
            } else {
                String::new()
            }
        );
        self.broadcast_staff(
            format!(
                "the journal is written again: play goes on{}",
                if halt.paused {
                    ", the clocks run again"
                } else {
                    ""
                }
            ),
            None,
        );
        self.say_own(Audience::Both, Announcement::RecordingRestored, true);
        if halt.paused {
            self.accept(
                Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
                now,
                None,
            );
        }
        let mut queue = halt.queue;
        while let Some(input) = queue.pop_front() {
            self.accept(input, now, None);
            if let Some(again) = &mut self.halt {
                // Halted again: what is left waits behind the input that failed.
                again.queue.extend(queue);
                return;
            }
        }
        if halt.dropped > 0 {
            warn!(
                "{} board events were dropped while play was halted; every board is read again",
                halt.dropped
            );
            for tx in self.links.iter().flatten() {
                let _ = tx.try_send(LinkCommand::RequestSnapshot);
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
