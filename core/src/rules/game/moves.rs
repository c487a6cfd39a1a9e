//! How the position changes: a legal move completed by the player having the move (with its clock
//! press and the ends it brings at once, 5.1 a, 5.2 a, 5.2 b, 6.7 a), a position the arbiter sets
//! up (7.4 a; the position an illegal move produced in blitz), and the retrace to the last move
//! both scoresheets share (F.8). Illegal moves never enter the record: they are the `illegal`
//! topic's.

use shakmaty::{
    ByColor, Chess, Color, EnPassantMode, KnownOutcome, Move, Position, fen::Fen, san::SanPlus,
};

use super::{EndReason, Event, Game, History, MoveRecord, RulesError};
use crate::rules::{Millis, dead};

impl Game {
    pub(super) fn play(
        &mut self,
        m: Move,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if !self.position.is_legal(m) {
            return Err(RulesError::IllegalMove {
                uci: m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
                fen: Fen::from_position(&self.position, EnPassantMode::Legal).to_string(),
            });
        }
        if let Some(required) = self.must_play
            && required != m
        {
            return Err(RulesError::MustPlayIntendedMove(
                SanPlus::from_move(self.position.clone(), required).to_string(),
            ));
        }
        let side = self.position.turn();
        // Making a move is touching a piece: it rejects an offer made to the mover. Any move
        // also ends the right to claim an earlier illegal move (Appendix C: the offender's
        // replacement, or the opponent's own move after which the illegal one stands).
        self.touched(side, events);
        self.illegal_claimable = None;
        self.must_play = None;
        let san = SanPlus::from_move_and_play_unchecked(&mut self.position, m);
        self.history.push(&self.position);
        self.dead_checks.clear();
        self.dead_answers.clear();

        let mate = self.position.is_checkmate();
        let stalemate = !mate && self.position.is_stalemate();
        let dead = !mate && !stalemate && dead::is_dead_quick(&self.position);
        let mut clocks_after = None;
        if let Some(clock) = self.clock.as_mut() {
            // A move made while the clocks stand (before the start) still counts for the move
            // counter: the mover's clock runs from now and is pressed at once.
            if clock.running() != Some(side) {
                clock.start(side, now);
            }
            if mate || stalemate || dead {
                // 6.7 a: a move that ends the game needs no press; no increment, no new period.
                clock.stop(now);
            } else {
                // The press can only fail when nothing runs, which we just ruled out.
                let _ = clock.press(now);
            }
            self.started = true;
            clocks_after = Some(ByColor::new_with(|c| clock.remaining(c, now)));
        }
        self.moves.push(MoveRecord {
            side,
            mv: m,
            san,
            at: now,
            clocks_after,
        });
        events.push(Event::MovePlayed {
            ply: self.ply(),
            side,
            san: san.to_string(),
        });

        // 5.1 a, 5.2 a, 5.2 b: the move that ends the game ends it at once.
        if mate {
            self.finish(
                KnownOutcome::Decisive { winner: side },
                EndReason::Checkmate,
                now,
                events,
            );
        } else if stalemate {
            self.finish(KnownOutcome::Draw, EndReason::Stalemate, now, events);
        } else if dead {
            self.finish(KnownOutcome::Draw, EndReason::DeadPosition, now, events);
        } else {
            self.ask_whether_dead(events);
        }
        Ok(())
    }

    /// The arbiter sets the position (7.4 a; blitz: the position an illegal move produced, which
    /// stands); the clock of the player to move runs, or, while the arbiter holds the clocks
    /// (6.12), is the one that runs when he resumes.
    ///
    /// Blitz (Appendix C): set up with the illegal mover's opponent to move, the illegal move is
    /// on the board and his clock runs; he may still claim it before he makes his own move. Set
    /// up with the offender to move, the illegal move is gone and so is the claim.
    pub(super) fn set_position(&mut self, position: Chess, now: Millis, events: &mut Vec<Event>) {
        self.position = position;
        self.history.push(&self.position);
        self.setups.push(self.ply());
        self.must_play = None;
        self.claim_right_lost_at = None;
        let turn = self.position.turn();
        if self.illegal_claimable == Some(turn) {
            self.illegal_claimable = None;
        }
        events.push(Event::PositionSet { ply: self.ply() });
        if let Some(clock) = self.clock.as_mut() {
            if let Some(running) = clock.running()
                && running != turn
            {
                clock.start(turn, now);
            } else if clock.paused_side().is_some_and(|side| side != turn) {
                clock.start(turn, now);
                let _ = clock.pause(now);
            }
        }
    }

    pub(super) fn retract(
        &mut self,
        to_ply: usize,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        // A position set up by the arbiter cannot be replayed from the moves before it.
        if to_ply > self.ply() || !self.setups.is_empty() {
            return Err(RulesError::NothingToRetract {
                to_ply,
                ply: self.ply(),
            });
        }
        // The clocks are held (6.12) until the arbiter has set them and lets the game go on.
        if let Some(clock) = self.clock.as_mut()
            && clock.running().is_some()
        {
            let _ = clock.pause(now);
        }
        self.moves.truncate(to_ply);
        // Clock changes made after that point still stand (a penalty is not taken back with
        // the moves): they now come after the last move kept, in the record and in the clocks
        // proposed.
        for (ply, _) in &mut self.clock_notes {
            *ply = (*ply).min(to_ply);
        }
        for (ply, _) in &mut self.clock_changes {
            *ply = (*ply).min(to_ply);
        }
        self.clocks_to_confirm = true;
        let mut position = self.start.clone();
        let mut history = History::new(&position);
        for record in &self.moves {
            position.play_unchecked(record.mv);
            history.push(&position);
        }
        self.position = position;
        self.history = history;
        self.offers.retain(|o| o.on_ply <= to_ply);
        self.offer = None;
        self.must_play = None;
        self.illegal_claimable = None;
        self.claim_right_lost_at = None;
        self.quickplay_claim = None;
        self.dead_checks.clear();
        self.dead_answers.clear();
        let turn = self.position.turn();
        if let Some(clock) = self.clock.as_mut() {
            for side in Color::ALL {
                let made = self.moves.iter().filter(|r| r.side == side).count();
                clock.set_moves_completed(side, u32::try_from(made).unwrap_or(u32::MAX));
            }
            // The move in progress is now the retraced position's: the clock that runs when
            // the arbiter resumes is that of the player to move there.
            if clock.paused_side().is_some_and(|side| side != turn) {
                clock.start(turn, now);
                let _ = clock.pause(now);
            }
        }
        events.push(Event::Retracted { ply: to_ply });
        Ok(())
    }

    /// The clocks to propose when the game is retraced to `ply` half-moves (F.8, `takeback`):
    /// both as recorded after that move (the control's start before the first), with every
    /// clock change made since (a penalty's minutes are not taken back with the moves). `None`
    /// without a clock.
    pub fn proposed_clocks(&self, ply: usize) -> Option<ByColor<i64>> {
        let clock = self.clock.as_ref()?;
        let base = self.clocks_after_ply(ply).unwrap_or_else(|| {
            let first = clock.time_control().period(0).base_ms;
            ByColor::new_with(|_| first)
        });
        Some(ByColor::new_with(|side| {
            base[side]
                + self
                    .clock_changes
                    .iter()
                    .filter(|(at, _)| *at >= ply)
                    .map(|(_, delta)| delta[side])
                    .sum::<i64>()
        }))
    }

    /// Both clocks as recorded after `ply` half-moves (None before the first move or without a
    /// clock).
    pub fn clocks_after_ply(&self, ply: usize) -> Option<ByColor<i64>> {
        ply.checked_sub(1)
            .and_then(|i| self.moves.get(i))
            .and_then(|r| r.clocks_after)
    }
}
