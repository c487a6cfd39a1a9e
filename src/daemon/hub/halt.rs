//! No move counts that is not on the disk (issue 25, point 3). When the journal cannot take an
//! input (a full or read-only disk, a vanished folder), the input is not applied: play halts.
//! The clocks stop by the arbiter's pause for the recording (`PauseReason::Recording`, held for
//! the journal so that a replay pauses where the table paused), whose words tell both players
//! why: "Aufzeichnung gestört, Uhren angehalten" (the hub says the same itself when the clocks
//! stood already); the staff are told why. While the halt lasts, what the boards, speech and
//! the engine report waits in order, unapplied; the consoles' game commands are refused with
//! the reason (the arbiter types them again); queries and speech go on. Every second the
//! journal is tried again; once it takes the held lines, the clocks the halt stopped run again
//! by the arbiter's resumption for the recording, whose words are "Aufzeichnung wieder
//! möglich" and "Uhren laufen wieder" (only the first when the halt stopped no clock), and
//! what waited is journaled and applied in order, as if it had just happened (no one's clock
//! ran meanwhile).
//!
//! A restart during the halt loses nothing that counted: nothing counted.

use std::collections::VecDeque;

use tactus_core::{
    announce::{Announcement, Audience},
    arbiter::Input,
    rules::{
        Millis,
        game::{self, PauseReason},
    },
};
use tracing::{error, info, warn};

use super::{Hub, Outcome};
use crate::daemon::link::LinkCommand;

/// How often the journal is tried again while play is halted.
pub(super) const RETRY_MS: Millis = 1_000;
/// The clocks a halt stopped run again (the arbiter says why).
const RESUME: Input = Input::Rules(game::Input::Resume(PauseReason::Recording));
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
    /// The clocks stand by the arbiter's pause for the recording (this halt's, or the last
    /// one's whose resumption the journal refused): they run again when the halt ends.
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
        let pause = self.clocks_running() && !self.arbiter.game().is_over();
        // The journal refused the very resumption that ended the last halt: the clocks stay
        // stopped by that halt, and this one starts them when it ends (kept in the queue, its
        // words would come after this halt's own "recording restored").
        let resuming = input.as_ref() == Some(&RESUME);
        let queue: VecDeque<Input> = input
            .into_iter()
            .filter(|i| !matches!(i, Input::Tick) && *i != RESUME)
            .collect();
        self.halt = Some(Halt {
            error: error.clone(),
            since: now,
            queue,
            dropped: 0,
            paused: pause || resuming,
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
        if pause {
            // The arbiter's pause for the recording: it stops the clocks and tells both players
            // why ("recording failed, clocks stopped"). It is held for the journal (written
            // first when it takes lines again), so that a replay pauses where the table paused
            // and says what the table said.
            let pause = Input::Rules(game::Input::Pause(PauseReason::Recording));
            if let Some(journal) = &mut self.journal {
                let _ = journal.input(now, &pause);
            }
            let effects = self.arbiter.handle(pause, now);
            self.effects(effects, now, None);
        } else {
            // The clocks stood already (or never ran): nothing for the arbiter to stop, but the
            // players still learn that nothing counts for now.
            self.say_own(Audience::Both, Announcement::RecordingHalted, true);
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
        if halt.paused {
            // The arbiter's resumption after the recording's pause: both players hear that the
            // recording works again and the clocks run.
            self.accept(RESUME, now, None);
        } else {
            self.say_own(Audience::Both, Announcement::RecordingRestored, true);
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
