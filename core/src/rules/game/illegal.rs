//! Illegal moves (7.4): the arbiter's two minutes to the opponent and the third that loses (7.4 b),
//! and in blitz the opponent's claim of the win (Appendix C). The record never holds an illegal
//! move: the position before it stands (7.4 a) until the arbiter sets one up (`moves`).

use shakmaty::{Color, KnownOutcome};

use super::{EndReason, Event, Game, RulesError, TWO_MINUTES_MS};
use crate::rules::{Millis, PlayMode};

/// 7.4 b: the third illegal move by the same player loses.
pub const ILLEGAL_MOVES_THAT_LOSE: u8 = 3;

impl Game {
    pub(super) fn illegal_move(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.laws() == PlayMode::Blitz {
            // Appendix C: the illegal move is completed once the opponent's clock is started (no
            // extra time); the opponent may claim a win before he moves. The record keeps only
            // legal moves, so while the offender still has the move here the position after the
            // illegal move is not in it: his clock goes on running, as pressing it would charge
            // his opponent for his thinking (and leave a running clock for a player who cannot
            // move). If the opponent does not claim, the arbiter sets up the position the illegal
            // move produced (Input::SetPosition): that starts the opponent's clock, and the claim
            // stays open until he makes his own move.
            self.illegal_claimable = Some(by);
            events.push(Event::IllegalMoveClaimable { offender: by });
            return Ok(());
        }
        // 7.4 a: the position before the irregularity is reinstated. The record only ever holds
        // legal moves, so it already is; the offender's clock goes on running.
        let count = self.illegal_moves.get_mut(by);
        *count = count.saturating_add(1);
        let count = *count;
        if count >= ILLEGAL_MOVES_THAT_LOSE {
            self.stop_clock(now);
            if self
                .config
                .edition
                .rules()
                .third_illegal_move_drawn_if_opponent_cannot_mate
            {
                self.lose_unless_opponent_cannot_mate(
                    by,
                    EndReason::IllegalMoves { offender: by },
                    now,
                    events,
                );
            } else {
                self.finish(
                    KnownOutcome::Decisive { winner: by.other() },
                    EndReason::IllegalMoves { offender: by },
                    now,
                    events,
                );
            }
        } else {
            let bonus_ms = if let Some(clock) = self.clock.as_mut() {
                clock.add_time(by.other(), TWO_MINUTES_MS, now);
                TWO_MINUTES_MS
            } else {
                0
            };
            events.push(Event::IllegalMovePenalty {
                offender: by,
                count,
                bonus_ms,
            });
        }
        Ok(())
    }

    /// `by` claims that his opponent's last move was illegal (blitz, Appendix C).
    pub(super) fn claim_illegal_move(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.illegal_claimable != Some(by.other()) {
            return Err(RulesError::NothingToClaim { by });
        }
        self.stop_clock(now);
        self.illegal_claimable = None;
        self.lose_unless_opponent_cannot_mate(
            by.other(),
            EndReason::IllegalMoveClaimed {
                offender: by.other(),
            },
            now,
            events,
        );
        Ok(())
    }
}
