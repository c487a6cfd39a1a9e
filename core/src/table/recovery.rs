//! A game taken up again after a restart ([`TableInput::Resumed`](super::TableInput::Resumed)):
//! the sessions begin anew (no board is connected yet, nothing is being said, the DGT clock is
//! read afresh), the clocks stop (Art. 6.12) until the assistant or the arbiter resumes them,
//! both players hear that the game is back and its last move (the [`recovery_words`], which
//! `tactus run` prints too), the mateability searches left unanswered run again, and the
//! announcements of the game a restart cut off are said again once the clocks run. Notices of
//! the moment are not: they are stale.

use std::collections::BTreeMap;

use super::{Table, TableEffect, TableSettings};
use crate::{
    announce::{Announcement, Audience, count},
    arbiter::{Arbiter, Input},
    console::answer::words_of,
    rules::{Millis, game},
};

/// Whether an announcement cut off by a restart is said again after it: what happened in the
/// game (a move, an offer, a claim, a flag, the end), not notices of the moment.
pub fn worth_repeating(announcement: &Announcement) -> bool {
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
        | ResignAsked
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
/// announcement was cut off by the restart, in `unfinished`: that is said again once the clocks
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

/// What a game taken up now would leave unsaid: the announcements whose end never came.
#[derive(Debug, Clone, Default)]
pub struct Recovery {
    pub unfinished: BTreeMap<u64, (Audience, Announcement)>,
}

impl Table {
    /// What a restart now would find unsaid (for the words `tactus run` prints before the table
    /// is told it was resumed).
    pub fn recovery(&self) -> Recovery {
        Recovery {
            unfinished: self.said.unfinished(),
        }
    }

    /// The daemon was started again on this game: sessions begin anew with the settings of the
    /// day, the clocks stop (6.12) until the assistant or arbiter resumes them, both players are
    /// told, and whatever was left half-done is taken up again.
    pub(super) fn resumed(
        &mut self,
        settings: TableSettings,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) {
        let unfinished = self.said.unfinished();
        self.settings = settings;
        self.said.begin_anew();
        self.boards_anew();
        self.clock_anew();
        self.opponent = self.settings.training.then(Default::default);
        self.halt = None;
        let ply = self.arbiter.game().ply();
        let running = self.clocks_running();
        tracing::info!(inputs = self.inputs, ply, "game recovered from its journal");
        self.note(
            format!(
                "game recovered from its journal ({}, {} played){}",
                count(self.inputs, "input", "inputs"),
                count(ply, "half-move", "half-moves"),
                if running {
                    "; clocks paused (6.12): `resume` when both players are ready"
                } else {
                    ""
                }
            ),
            None,
            out,
        );
        // Said in the order of `recovery_words`: the game is back, the last move, whose move it
        // is, and that the clocks stand; the pause of running clocks says the last itself.
        if !self.arbiter.game().is_over() {
            for announcement in recovery_words(&self.arbiter, &unfinished) {
                if announcement == Announcement::ClocksPaused && running {
                    continue;
                }
                self.say_own(Audience::Both, announcement, true, out);
            }
        }
        if running {
            self.apply(
                Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
                now,
                None,
                out,
            );
            self.training_recovered(out);
        }
        for (ticket, query) in &self.analyses {
            out.push(TableEffect::Analyse {
                ticket: *ticket,
                query: query.clone(),
            });
        }
        // Announcements of the game whose end never came are said again: the player may not
        // have heard them, and the blind player's move counts only once its announcement ends.
        // Notices of the moment (clocks paused, a board gone, guidance, which the boards give
        // again) are not: they are stale, and said again after every restart they would pile up
        // in front of the next move.
        for (id, (audience, announcement)) in unfinished {
            if worth_repeating(&announcement) {
                self.said.defer(id, audience, announcement);
            } else {
                tracing::debug!(id, ?announcement, "not repeated after the recovery");
            }
        }
    }
}
