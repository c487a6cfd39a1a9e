//! A game taken up again from its journal: the clocks stop (Art. 6.12) until the assistant or
//! the arbiter resumes them, both players hear that the game is back and its last move (the
//! [`recovery_words`], which `tactus run` prints too), the mateability searches the journal left
//! pending run again, and the announcements of the game a crash cut off are said again once the
//! clocks run. Notices of the moment are not: they are stale.

use std::collections::BTreeMap;

use tracing::{debug, info};

use super::Hub;
use tactus_core::{
    announce::{Announcement, Audience, count},
    arbiter::{Arbiter, Input},
    console::answer::words_of,
    rules::{dead::Query, game},
};

/// What a replayed journal left open.
#[derive(Debug, Clone, Default)]
pub struct Recovery {
    pub inputs: usize,
    pub unfinished: BTreeMap<u64, (Audience, Announcement)>,
    pub pending_analyses: BTreeMap<u64, Query>,
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
        | GameStarted { .. }
        | ClocksPaused
        | ClocksResumed
        | SpeechFallback
        | MoveHeld
        | MoveRequired { .. }
        | NoMoveToCount
        | OwnMove(_)
        | ClockChanged { .. }
        | OutOfTurn
        | Hint(_)
        | Standing(_)
        | OpponentAway
        | OpponentBack
        | TrainingOnly
        | ReviewMoment { .. }
        | ReviewEnd
        | RequestSwitchedOff
        | RecordingHalted
        | RecordingRestored
        | Refused(_)
        | ButtonUnassigned { .. } => false,
    }
}

/// What both players hear when an unfinished game is taken up again, in this order: the game
/// is back, the last move (nobody has to know to ask `last` after a restart; unless its
/// announcement was cut off by the crash, in `unfinished`: that is said again once the clocks
/// run, and counts then), whose move it is, and (with a clock that had started) that the clocks
/// stand until the arbiter or assistant resumes them (6.12). `tactus run` prints the same words.
pub fn recovery_words(
    arbiter: &Arbiter,
    unfinished: &BTreeMap<u64, (Audience, Announcement)>,
) -> Vec<Announcement> {
    let game = arbiter.game();
    let mut words = vec![Announcement::GameRecovered];
    if let Some(last) = game.moves().last() {
        let said = Announcement::Move(words_of(last));
        if !unfinished.values().any(|(_, cut)| *cut == said) {
            words.push(said);
        }
    }
    words.push(Announcement::ToMove {
        side: game.to_move(),
    });
    if game
        .clock()
        .is_some_and(|c| c.is_paused() || c.running().is_some())
    {
        words.push(Announcement::ClocksPaused);
    }
    words
}

impl Hub {
    /// A resumed game: the clocks stop (Art. 6.12) until the assistant or arbiter resumes them,
    /// both players are told, and whatever was left half-done is taken up again.
    pub(super) fn recover(&mut self, recovery: Recovery) {
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
        // Said in the order of `recovery_words`: the game is back, the last move, whose move it
        // is, and that the clocks stand; the pause of running clocks says the last itself.
        if !self.arbiter.game().is_over() {
            for announcement in recovery_words(&self.arbiter, &recovery.unfinished) {
                if announcement == Announcement::ClocksPaused && running {
                    continue;
                }
                self.say_own(Audience::Both, announcement, true);
            }
        }
        if running {
            self.accept(
                Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
                now,
                None,
            );
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

    /// The recovered announcements, once the clocks run again (they were cut off by the crash
    /// and are said as the arbiter's: their end is an input).
    pub(super) fn say_deferred(&mut self) {
        if !self.clocks_paused() && !self.deferred.is_empty() {
            for (id, audience, announcement) in std::mem::take(&mut self.deferred) {
                self.says.insert(id, (audience, announcement.clone()));
                self.speak(id, audience, announcement, true);
            }
        }
    }
}
