//! The clock in play: the start of play (6.5), flags (6.9 in standard play, claimed flags in rapid
//! and blitz, Appendix B; both flags, 6.11), and the arbiter's powers over the clocks: interrupting
//! the game (6.12), setting a clock or the move counter (6.13, 6.14). The clock itself, periods,
//! increments and delays, is `rules::clock`'s.

use shakmaty::{Color, KnownOutcome, Position};

use super::{EndReason, Event, Game, RulesError};
use crate::rules::{ClockMillis, Millis, PlayMode};

/// Why the arbiter stops the clocks (6.12) or lets them run again. The Laws treat every pause
/// alike; the reason is carried to the events so that the players hear why in the same words
/// that stop the clocks (a separate notice would say "clocks stopped" twice, or in the wrong
/// words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseReason {
    /// The arbiter's own decision (the console's `pause`), and the daemon's other pauses, in
    /// the ordinary words: a game taken up from its journal, a break.
    Arbiter,
    /// The game's record (the journal) cannot be written: nothing may count that a restart
    /// would lose, so play halts until it can.
    Recording,
    /// Training: the engine that plays the other side stopped answering; the game waits for its
    /// opponent until a new engine answers.
    Opponent,
    /// 9.5: a claim under 9.2 or 9.3 waits for the arbiter's decision; both clocks stand until
    /// he decides (neither player's time runs on while the arbiter checks).
    Claim,
}

impl Game {
    /// The clocks start (the game starts) with the player to move.
    pub(super) fn start(&mut self, now: Millis, events: &mut Vec<Event>) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        if self.started {
            return Err(RulesError::AlreadyStarted);
        }
        let side = self.position.turn();
        clock.start(side, now);
        self.started = true;
        events.push(Event::ClockStarted { side });
        Ok(())
    }

    pub(super) fn tick(&mut self, now: Millis, events: &mut Vec<Event>) {
        if self.is_over() {
            return;
        }
        let Some(clock) = self.clock.as_ref() else {
            return;
        };
        if self.laws() != PlayMode::Standard {
            // Appendices B and C: the arbiter refrains from signalling a flag fall, but the clock
            // shows it to both (F.4: the blind player feels it), once; the game goes on until a
            // player claims it.
            for side in [Color::White, Color::Black] {
                let fallen = clock.flag_fallen(side, now);
                if fallen && !self.flags_shown[side] {
                    events.push(Event::FlagDown { side });
                }
                self.flags_shown[side] = fallen;
            }
            return;
        }
        let white = clock.fallen_at(Color::White, now);
        let black = clock.fallen_at(Color::Black, now);
        match (white, black) {
            (Some(w), Some(b)) if w != b => {
                // Our clock saw both fall and knows which fell first.
                self.flag(if w < b { Color::White } else { Color::Black }, now, events);
            }
            (Some(at), Some(_)) => {
                // 6.11 / 10.3: both flags down and which fell first cannot be established (the
                // arbiter set both clocks to zero at one instant): drawn in a quickplay finish,
                // otherwise the game goes on.
                if self.in_quickplay_finish() {
                    self.stop_clock(at);
                    self.finish_at(KnownOutcome::Draw, EndReason::BothFlags, at, events);
                }
            }
            (Some(_), None) => self.flag(Color::White, now, events),
            (None, Some(_)) => self.flag(Color::Black, now, events),
            (None, None) => {}
        }
    }

    fn flag(&mut self, side: Color, now: Millis, events: &mut Vec<Event>) {
        // The flag fell at a precise instant, possibly before `now`: the clocks stop there, and
        // that is when the game ended.
        let at = self
            .clock
            .as_ref()
            .and_then(|c| c.fallen_at(side, now))
            .unwrap_or(now);
        self.stop_clock(at);
        events.push(Event::FlagFell { side });
        self.lose_unless_opponent_cannot_mate(
            side,
            EndReason::FlagFall { flagged: side },
            at,
            events,
        );
    }

    pub(super) fn claim_flag(&mut self, by: Color, now: Millis, events: &mut Vec<Event>) {
        let Some(clock) = self.clock.as_ref() else {
            events.push(Event::FlagClaimRejected { by });
            return;
        };
        let theirs = clock.flag_fallen(by.other(), now);
        let mine = clock.flag_fallen(by, now);
        match self.laws() {
            PlayMode::Standard => {
                // The flag rules itself in standard play; a claim just makes us look now.
                if !theirs && !mine {
                    events.push(Event::FlagClaimRejected { by });
                }
                self.tick(now, events);
            }
            _ => {
                // Appendix B: the claimant stops the clocks; the claim succeeds only if his own
                // flag is still up and his opponent's is down. Both down is a draw.
                let was_running = self.stop_clock(now);
                match (theirs, mine) {
                    (true, false) => {
                        events.push(Event::FlagFell { side: by.other() });
                        self.lose_unless_opponent_cannot_mate(
                            by.other(),
                            EndReason::FlagFall {
                                flagged: by.other(),
                            },
                            now,
                            events,
                        );
                    }
                    (true, true) => {
                        events.push(Event::FlagClaimRejected { by });
                        self.finish(KnownOutcome::Draw, EndReason::BothFlags, now, events);
                    }
                    (false, _) => {
                        events.push(Event::FlagClaimRejected { by });
                        // The game goes on: restart the clock of the player having the move.
                        if was_running && let Some(clock) = self.clock.as_mut() {
                            clock.start(self.position.turn(), now);
                        }
                    }
                }
            }
        }
    }

    /// 6.12: the arbiter interrupts the game, for `reason`; the clocks stand.
    pub(super) fn pause(
        &mut self,
        reason: PauseReason,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        clock.pause(now).map_err(|_| RulesError::Paused)?;
        events.push(Event::ClocksPaused(reason));
        Ok(())
    }

    /// 6.12: the arbiter lets the game go on, `reason` having passed (whatever stopped the
    /// clocks: any resumption ends any pause).
    pub(super) fn resume(
        &mut self,
        reason: PauseReason,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        clock.resume(now).map_err(|_| RulesError::NotPaused)?;
        events.push(Event::ClocksResumed(reason));
        Ok(())
    }

    /// 6.13 / 6.14: the arbiter sets a clock.
    pub(super) fn set_clock(
        &mut self,
        side: Color,
        remaining_ms: ClockMillis,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        clock.set_remaining(side, remaining_ms, now);
        events.push(Event::ClockSet { side, remaining_ms });
        Ok(())
    }

    /// 6.13 / 6.14: the arbiter adds time to a clock (or takes it away).
    pub(super) fn adjust_clock(
        &mut self,
        side: Color,
        delta_ms: ClockMillis,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        clock.add_time(side, delta_ms, now);
        events.push(Event::ClockSet {
            side,
            remaining_ms: clock.remaining(side, now),
        });
        Ok(())
    }

    /// 6.14: the arbiter sets the move counter.
    pub(super) fn set_move_counter(&mut self, side: Color, moves: u32) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        clock.set_moves_completed(side, moves);
        // 6.13: the arbiter's correction of the move counter belongs on the record.
        self.clock_notes.push((
            self.moves.len(),
            format!("{side}'s move counter set to {moves} (6.13)"),
        ));
        Ok(())
    }

    pub(super) fn bonus(&mut self, side: Color, ms: i64, now: Millis) {
        if let Some(clock) = self.clock.as_mut()
            && ms != 0
        {
            clock.add_time(side, ms, now);
        }
    }

    /// The game is over (or its result awaits an analysis or the arbiter): no clock runs and
    /// none waits to be resumed, even when the arbiter held them (6.12) as it ended.
    pub(super) fn halt_clock(&mut self, at: Millis) {
        if let Some(clock) = self.clock.as_mut()
            && (clock.running().is_some() || clock.is_paused())
        {
            clock.stop(at);
        }
    }

    /// Stop whichever clock runs; returns whether one was running.
    pub(super) fn stop_clock(&mut self, now: Millis) -> bool {
        match self.clock.as_mut() {
            Some(clock) if clock.running().is_some() => {
                clock.stop(now);
                true
            }
            _ => false,
        }
    }
}
