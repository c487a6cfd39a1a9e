//! The quickplay finish (10.2): the claim of the player having the move with less than two minutes
//! left, and the consequences of the arbiter's ruling (draw, postponement, rejection). The game
//! cannot judge "no effort to win by normal means"; it only applies what the arbiter rules.

use shakmaty::{Color, KnownOutcome, Position};

use super::{EndReason, Event, Game, RulesError, TWO_MINUTES_MS};
use crate::rules::{Millis, PlayMode};

/// The arbiter's ruling on a 10.2 claim (quickplay finish). The game cannot judge "no effort to
/// win by normal means"; it only applies the consequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuickplayRuling {
    /// 10.2 a: the game is drawn.
    Draw,
    /// 10.2 b: decision postponed; the opponent may be given two extra minutes.
    Postpone { extra_time_to_opponent: bool },
    /// 10.2 c: claim rejected; the opponent gets two extra minutes.
    Reject,
}

impl Game {
    /// Whether every remaining move must be made in the current period (10.1) for both players.
    pub(super) fn in_quickplay_finish(&self) -> bool {
        self.clock
            .as_ref()
            .is_some_and(|c| Color::ALL.iter().all(|&s| c.moves_to_control(s).is_none()))
    }

    pub(super) fn claim_quickplay(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.laws() == PlayMode::Blitz {
            return Err(RulesError::QuickplayNotApplicable(
                "it does not apply in blitz (Appendix C)",
            ));
        }
        self.check_to_move(by)?;
        let clock = self.clock.as_ref().ok_or(RulesError::NoClock)?;
        if clock.moves_to_control(by).is_some() {
            return Err(RulesError::QuickplayNotApplicable(
                "the game is not in its quickplay finish (a period with a move count)",
            ));
        }
        let left = clock.remaining(by, now);
        if left >= TWO_MINUTES_MS {
            return Err(RulesError::QuickplayNotApplicable(
                "the claimant has two minutes or more left",
            ));
        }
        if clock.flag_fallen(by, now) {
            return Err(RulesError::QuickplayNotApplicable(
                "the claimant's flag has already fallen",
            ));
        }
        self.stop_clock(now);
        self.quickplay_claim = Some(by);
        events.push(Event::QuickplayClaimed { by });
        // 9.1 c: a 10.2 claim counts as a draw offer.
        self.record_offer(by, now, events);
        Ok(())
    }

    pub(super) fn quickplay_ruling(
        &mut self,
        ruling: QuickplayRuling,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let by = self
            .quickplay_claim
            .or(self.quickplay_postponed)
            .ok_or(RulesError::NoQuickplayClaim)?;
        // 10.2 b of 2001: a postponed decision is taken after a flag has fallen, and then the
        // game is already stopped for the arbiter's result (`ArbiterResult`); before that there
        // is nothing to rule. 2009 lets him declare it "later during the game" too.
        if self.quickplay_claim.is_none()
            && self
                .config
                .edition
                .rules()
                .postponed_quickplay_ruled_only_after_a_flag
        {
            return Err(RulesError::QuickplayResultOnlyAfterAFlag);
        }
        match ruling {
            QuickplayRuling::Draw => {
                self.finish(KnownOutcome::Draw, EndReason::QuickplayDraw, now, events);
                return Ok(());
            }
            QuickplayRuling::Postpone {
                extra_time_to_opponent,
            } => {
                let bonus_ms = if extra_time_to_opponent {
                    TWO_MINUTES_MS
                } else {
                    0
                };
                self.bonus(by.other(), bonus_ms, now);
                events.push(Event::QuickplayPostponed { bonus_ms });
                // 10.2 b: the arbiter may still declare the draw, and declares the final result
                // after a flag has fallen; the postponement survives the moves that follow.
                self.quickplay_claim = None;
                self.quickplay_postponed = Some(by);
            }
            QuickplayRuling::Reject => {
                self.bonus(by.other(), TWO_MINUTES_MS, now);
                self.quickplay_claim = None;
                self.quickplay_postponed = None;
                events.push(Event::QuickplayRejected {
                    bonus_ms: TWO_MINUTES_MS,
                });
            }
        }
        // The game goes on: the claimant's clock runs again, unless the arbiter holds the clocks
        // (6.12), who then restarts them with `Resume`.
        if let Some(clock) = self.clock.as_mut()
            && clock.running().is_none()
            && !clock.is_paused()
            && self.started
        {
            clock.start(self.position.turn(), now);
        }
        Ok(())
    }
}
