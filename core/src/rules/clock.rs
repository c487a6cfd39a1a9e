//! The chess clock and time controls of the FIDE Laws (2001 text, Article 6).
//!
//! This module owns [`Clock`], the state of both players' clocks under a [`TimeControl`] (the
//! agreed periods, in [`super::time_control`]): remaining main time, time used, moves completed,
//! the period each side is in, Fischer increments, the 6.2 time-delay mode, arbiter pauses (6.12)
//! and adjustments (6.13).
//!
//! What it must not do:
//! - read the time: every operation takes `now` ([`Millis`] on the caller's monotonic time line),
//!   so the clock is a pure state machine that tests drive with virtual time and that a replay
//!   reproduces exactly;
//! - perform I/O, spawn threads or sleep;
//! - decide results. A flag fall is *reported* ([`Clock::flag_fallen`], [`Clock::first_flag`]);
//!   whether it loses, draws (6.9, insufficient material) or must first be claimed (Appendices B
//!   and C) is the game module's business.
//!
//! Conventions: instants are `Millis` (u64); durations and remaining times are `ClockMillis` (i64)
//! milliseconds, negative once a flag has fallen. All arithmetic saturates, so times of days or
//! absurd arbiter inputs cannot panic.

use serde::{Deserialize, Serialize};
use shakmaty::Color;
use thiserror::Error;

use super::time_control::TimeControl;
use super::{ClockMillis, Millis};

/// Why a clock operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ClockError {
    #[error("no clock is running: start a side's clock before pressing or pausing it")]
    NotRunning,
    #[error(
        "the clocks are paused by the arbiter (6.12): resume them before pressing or pausing again"
    )]
    Paused,
    #[error(
        "the clocks are not paused: only paused clocks can be resumed; use start to run a stopped clock"
    )]
    NotPaused,
}

/// One player's side of the clock, as of the last settled instant (for the running side, the
/// instant its current run began).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Side {
    /// Main thinking time left, ms.
    remaining_ms: ClockMillis,
    /// Real thinking time consumed, delay included, ms.
    used_ms: ClockMillis,
    /// Moves completed (presses, or as set by the arbiter).
    moves: u32,
    /// Delay still unused in the move in progress (or, between moves, the full delay the next
    /// move will get).
    delay_left_ms: ClockMillis,
    /// When the flag fell. Sticky: a flag that fell stays fallen even if an increment or the
    /// next period's time later lifts the remaining time above zero, because the move was not
    /// completed in time (6.9). Only arbiter adjustments recompute it.
    fallen_at: Option<Millis>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum State {
    /// Neither clock runs (before the game, after `stop`).
    Stopped,
    /// `side`'s clock has been running since `since`.
    Running {
        #[serde(with = "color_serde")]
        side: Color,
        since: Millis,
    },
    /// Frozen by the arbiter while `side`'s move was in progress.
    Paused {
        #[serde(with = "color_serde")]
        side: Color,
    },
}

/// A two-sided chess clock under a [`TimeControl`], driven by the caller's time.
///
/// Time never runs backwards here: an operation whose `now` is earlier than the last operation's
/// is treated as happening at that last instant, so it never adds time to anyone and never
/// panics; queries likewise never look before the last operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    tc: TimeControl,
    white: Side,
    black: Side,
    state: State,
    /// The latest `now` any mutating operation has seen.
    last_event: Millis,
}

/// Milliseconds from `from` to `to`, zero if `to` is earlier, capped at `i64::MAX`.
fn ms_between(from: Millis, to: Millis) -> i64 {
    i64::try_from(to.saturating_sub(from)).unwrap_or(i64::MAX)
}

impl Clock {
    /// Both sides get the first period's base time and its delay for their first move; no clock
    /// runs.
    ///
    /// The control is not validated here (use [`TimeControl::new`] or the parser for that), but
    /// nothing panics on an invalid one: an empty control gives no time, a zero move count is
    /// sudden death, a negative delay is none. A side that starts with no time at all has its
    /// flag down from instant 0.
    pub fn new(tc: TimeControl) -> Clock {
        let first = *tc.period(0);
        let side = Side {
            remaining_ms: first.base_ms,
            used_ms: 0,
            moves: 0,
            delay_left_ms: first.delay(),
            fallen_at: (first.base_ms <= 0).then_some(0),
        };
        Clock {
            tc,
            white: side,
            black: side,
            state: State::Stopped,
            last_event: 0,
        }
    }

    /// The control the clock was created with.
    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    fn side(&self, color: Color) -> &Side {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn side_mut(&mut self, color: Color) -> &mut Side {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Records `now` as the latest instant, clamped so that time never goes backwards.
    fn advance(&mut self, now: Millis) -> Millis {
        self.last_event = self.last_event.max(now);
        self.last_event
    }

    /// `color`'s side as it stands at `now`: for the running side, the current run is charged
    /// (delay first, then main time) and a flag fall during it is dated exactly.
    fn view(&self, color: Color, now: Millis) -> Side {
        let mut s = *self.side(color);
        if let State::Running { side, since } = self.state
            && side == color
        {
            let elapsed = ms_between(since, now.max(self.last_event));
            let delay_left = s.delay_left_ms.max(0);
            let delay_spent = elapsed.min(delay_left);
            let main_spent = elapsed - delay_spent;
            // The flag falls when the delay is gone and the main time reaches zero; a main time
            // already at or below zero falls as soon as the delay is gone.
            let fall_after = delay_left.saturating_add(s.remaining_ms.max(0));
            if s.fallen_at.is_none() && elapsed >= fall_after {
                s.fallen_at = Some(since.saturating_add(fall_after.unsigned_abs()));
            }
            s.remaining_ms = s.remaining_ms.saturating_sub(main_spent);
            s.used_ms = s.used_ms.saturating_add(elapsed);
            s.delay_left_ms = delay_left - delay_spent;
        }
        s
    }

    /// Charges the running side up to `now` (already advanced) and restarts its run there.
    fn settle(&mut self, now: Millis) {
        if let State::Running { side, .. } = self.state {
            let settled = self.view(side, now);
            *self.side_mut(side) = settled;
            self.state = State::Running { side, since: now };
        }
    }

    /// Starts `side`'s clock. Another running clock is stopped first, charged for its time but
    /// without completing a move; a pause is ended. If `side` was stopped mid-move (a claim, an
    /// arbiter's stop) the move continues: delay already used stays used.
    pub fn start(&mut self, side: Color, now: Millis) {
        let now = self.advance(now);
        self.settle(now);
        self.state = State::Running { side, since: now };
    }

    /// The side whose clock is counting down; `None` when stopped or paused.
    pub fn running(&self) -> Option<Color> {
        match self.state {
            State::Running { side, .. } => Some(side),
            _ => None,
        }
    }

    /// Whether the arbiter has paused the clocks (6.12).
    pub fn is_paused(&self) -> bool {
        matches!(self.state, State::Paused { .. })
    }

    /// The side whose move was in progress when the clocks were paused.
    pub fn paused_side(&self) -> Option<Color> {
        match self.state {
            State::Paused { side } => Some(side),
            _ => None,
        }
    }

    /// The running side has completed a move (6.7 a: it stops its own clock and starts the
    /// opponent's). In order: its time is charged (delay first), its move is counted, the
    /// increment of the period the move was made in is added (from move 1 on), and if that move
    /// reached the period's control the next period's base time is added to what is left (6.2:
    /// time saved carries over; a repeating last period adds its own base again). Then the
    /// opponent's clock starts with a fresh delay.
    pub fn press(&mut self, now: Millis) -> Result<(), ClockError> {
        let side = match self.state {
            State::Running { side, .. } => side,
            State::Paused { .. } => return Err(ClockError::Paused),
            State::Stopped => return Err(ClockError::NotRunning),
        };
        let now = self.advance(now);
        self.settle(now);

        let moves_before = self.side(side).moves;
        let (index, start) = self.tc.position(moves_before);
        let period = *self.tc.period(index);
        let moves = moves_before.saturating_add(1);
        let mut gain = period.increment_ms;
        if period.control().is_some_and(|n| moves - start == n) {
            // `position` already knows where the next period is (or that the last repeats).
            gain = gain.saturating_add(self.tc.period(self.tc.position(moves).0).base_ms);
        }
        let next_delay = self.tc.period(self.tc.position(moves).0).delay();

        let opponent = !side;
        let opponent_delay = self
            .tc
            .period(self.tc.position(self.side(opponent).moves).0)
            .delay();

        let s = self.side_mut(side);
        s.moves = moves;
        s.remaining_ms = s.remaining_ms.saturating_add(gain);
        s.delay_left_ms = next_delay;
        // The opponent begins a new move, whatever was left of an abandoned one.
        self.side_mut(opponent).delay_left_ms = opponent_delay;
        self.state = State::Running {
            side: opponent,
            since: now,
        };
        Ok(())
    }

    /// Stops the clocks without completing a move (a claim, the end of the game, a sealed
    /// move). The running side is charged up to `now`; its move stays in progress, so
    /// `start(side, now)` continues it. Ends a pause too. Does nothing when already stopped.
    pub fn stop(&mut self, now: Millis) {
        let now = self.advance(now);
        self.settle(now);
        self.state = State::Stopped;
    }

    /// The arbiter interrupts the game (6.12 a): the times freeze, remembering whose move is in
    /// progress.
    pub fn pause(&mut self, now: Millis) -> Result<(), ClockError> {
        match self.state {
            State::Running { side, .. } => {
                let now = self.advance(now);
                self.settle(now);
                self.state = State::Paused { side };
                Ok(())
            }
            State::Paused { .. } => Err(ClockError::Paused),
            State::Stopped => Err(ClockError::NotRunning),
        }
    }

    /// The arbiter restarts the game (6.12 c): the side whose move was in progress continues
    /// it from `now`; the paused time is charged to no one, and delay already used stays used.
    pub fn resume(&mut self, now: Millis) -> Result<(), ClockError> {
        match self.state {
            State::Paused { side } => {
                let now = self.advance(now);
                self.state = State::Running { side, since: now };
                Ok(())
            }
            _ => Err(ClockError::NotPaused),
        }
    }

    /// Main thinking time left at `now`, ms; zero or negative once the flag has fallen. In delay
    /// mode the unused delay of the current move is not included (see [`Clock::delay_left`]).
    pub fn remaining(&self, side: Color, now: Millis) -> i64 {
        self.view(side, now).remaining_ms
    }

    /// Delay still unused in `side`'s move in progress: non-zero only in delay mode while the
    /// side's clock runs or is paused mid-move.
    pub fn delay_left(&self, side: Color, now: Millis) -> i64 {
        match self.state {
            State::Running { side: s, .. } | State::Paused { side: s } if s == side => {
                self.view(side, now).delay_left_ms
            }
            _ => 0,
        }
    }

    /// Total real thinking time `side` has consumed, ms, including time spent within a 6.2
    /// delay (the player did think for it, and Appendix F.9 d "time used up" is what a blind
    /// player asks for). In delay mode this exceeds the main time consumed.
    pub fn used(&self, side: Color, now: Millis) -> i64 {
        self.view(side, now).used_ms
    }

    /// Moves `side` has completed.
    pub fn moves_completed(&self, side: Color) -> u32 {
        self.side(side).moves
    }

    /// The 0-based period `side` is in, given its completed moves.
    pub fn period_index(&self, side: Color) -> usize {
        self.tc.position(self.side(side).moves).0
    }

    /// Moves `side` must still complete to reach the current period's control; `None` in
    /// sudden death.
    pub fn moves_to_control(&self, side: Color) -> Option<u32> {
        let moves = self.side(side).moves;
        let (index, start) = self.tc.position(moves);
        self.tc.period(index).control().map(|n| n - (moves - start))
    }

    /// Whether `side`'s flag has fallen by `now`: its main time reached zero (in delay mode,
    /// after that move's delay ran out). Sticky: an increment or a new period's time added
    /// afterwards does not raise the flag again; arbiter adjustments do recompute it.
    pub fn flag_fallen(&self, side: Color, now: Millis) -> bool {
        self.view(side, now).fallen_at.is_some()
    }

    /// The instant `side`'s flag fell, if it has fallen by `now`.
    pub fn fallen_at(&self, side: Color, now: Millis) -> Option<Millis> {
        self.view(side, now).fallen_at
    }

    /// The side whose flag fell first by `now`, and the exact instant. Only one clock runs at a
    /// time, so the order is always known (6.11's "impossible to establish" cannot arise). Ties,
    /// possible only when the arbiter zeroes both clocks at one instant, go to White.
    pub fn first_flag(&self, now: Millis) -> Option<(Color, Millis)> {
        let white = self
            .view(Color::White, now)
            .fallen_at
            .map(|t| (Color::White, t));
        let black = self
            .view(Color::Black, now)
            .fallen_at
            .map(|t| (Color::Black, t));
        match (white, black) {
            (Some(w), Some(b)) => Some(if b.1 < w.1 { b } else { w }),
            (w, b) => w.or(b),
        }
    }

    /// The instant `side`'s flag falls if its clock keeps running (or fell, if it already has);
    /// `None` unless `side`'s clock is running.
    pub fn flag_instant(&self, side: Color) -> Option<Millis> {
        match self.state {
            State::Running { side: s, since } if s == side => {
                let d = self.side(side);
                d.fallen_at.or_else(|| {
                    let fall_after = d.delay_left_ms.max(0).saturating_add(d.remaining_ms.max(0));
                    Some(since.saturating_add(fall_after.unsigned_abs()))
                })
            }
            _ => None,
        }
    }

    /// The arbiter sets `side`'s main time (6.13). If `side` is running, its time so far is
    /// charged and its move continues from `now` with the new value (delay already used stays
    /// used). The flag is recomputed: raised if `ms > 0`, fallen at `now` if `ms <= 0` (unless
    /// it had already fallen earlier).
    pub fn set_remaining(&mut self, side: Color, ms: i64, now: Millis) {
        let now = self.advance(now);
        self.settle(now);
        let s = self.side_mut(side);
        s.remaining_ms = ms;
        if ms > 0 {
            s.fallen_at = None;
        } else if s.fallen_at.is_none() {
            s.fallen_at = Some(now);
        }
    }

    /// Adds `ms` (negative to take away) to `side`'s main time: 7.4 b's two minutes, 9.5 b's
    /// incorrect-claim adjustments, other arbiter decisions. Same rules as
    /// [`Clock::set_remaining`].
    pub fn add_time(&mut self, side: Color, ms: i64, now: Millis) {
        let now = self.advance(now);
        let current = self.remaining(side, now);
        self.set_remaining(side, current.saturating_add(ms), now);
    }

    /// The arbiter corrects `side`'s move counter (6.13); the period index follows (moves
    /// beyond a control put the side in a later period, or a later repetition of the last).
    /// It does NOT add or remove any period's base time: the arbiter sets the times explicitly
    /// with [`Clock::set_remaining`]. A move in progress keeps the delay it started with.
    pub fn set_moves_completed(&mut self, side: Color, moves: u32) {
        self.side_mut(side).moves = moves;
    }
}

/// `shakmaty::Color` as `"white"` / `"black"` (shakmaty's serde feature is not enabled).
mod color_serde {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match color {
            Color::White => "white",
            Color::Black => "black",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let text = String::deserialize(d)?;
        match text.as_str() {
            "white" => Ok(Color::White),
            "black" => Ok(Color::Black),
            other => Err(D::Error::custom(format!(
                "unknown side '{other}'; allowed: white, black"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::time_control::Period;
    use shakmaty::Color::{Black, White};

    const S: i64 = 1000;
    const MIN: i64 = 60 * S;

    fn tc(text: &str) -> TimeControl {
        TimeControl::parse(text).expect("test control parses")
    }

    fn clock(text: &str) -> Clock {
        Clock::new(tc(text))
    }

    // --- clock --------------------------------------------------------------------------------

    #[test]
    fn new_clock_gives_both_sides_first_base_and_does_not_run() {
        let c = clock("40/7200:3600");
        for side in [White, Black] {
            assert_eq!(c.remaining(side, 1_000_000), 7200 * S);
            assert_eq!(c.used(side, 1_000_000), 0);
            assert_eq!(c.moves_completed(side), 0);
            assert_eq!(c.period_index(side), 0);
            assert_eq!(c.moves_to_control(side), Some(40));
            assert!(!c.flag_fallen(side, 1_000_000));
        }
        assert_eq!(c.running(), None);
        assert!(!c.is_paused());
        assert_eq!(c.time_control(), &tc("40/7200:3600"));
    }

    #[test]
    fn sudden_death_game_and_flag_instant() {
        let mut c = clock("300");
        let t0 = 10_000;
        c.start(White, t0);
        assert_eq!(c.running(), Some(White));
        assert_eq!(c.remaining(White, t0 + 7 * 1000), 293 * S);
        c.press(t0 + 10_000).unwrap();
        assert_eq!(c.running(), Some(Black));
        assert_eq!(c.moves_completed(White), 1);
        assert_eq!(
            c.remaining(White, t0 + 50_000),
            290 * S,
            "a stopped side's time does not move"
        );
        assert_eq!(c.remaining(Black, t0 + 15_000), 295 * S);
        c.press(t0 + 20_000).unwrap();
        assert_eq!(c.remaining(Black, t0 + 20_000), 290 * S);
        assert_eq!(c.used(Black, t0 + 20_000), 10 * S);
        assert_eq!(c.moves_to_control(White), None);

        // White now thinks until the flag falls.
        let fall = t0 + 20_000 + 290_000;
        assert_eq!(c.flag_instant(White), Some(fall));
        assert_eq!(c.flag_instant(Black), None);
        assert!(!c.flag_fallen(White, fall - 1));
        assert_eq!(c.remaining(White, fall - 1), 1);
        assert!(c.flag_fallen(White, fall));
        assert_eq!(c.remaining(White, fall + 5_000), -5 * S);
        assert_eq!(c.first_flag(fall - 1), None);
        assert_eq!(c.first_flag(fall + 5_000), Some((White, fall)));
        assert!(!c.flag_fallen(Black, fall + 5_000));
    }

    #[test]
    fn two_periods_time_saved_carries_over_at_move_40() {
        let mut c = clock("40/7200:3600");
        let mut t = 0;
        c.start(White, t);
        // Each side spends 60 s per move.
        for _ in 0..39 {
            t += 60_000;
            c.press(t).unwrap();
            t += 60_000;
            c.press(t).unwrap();
        }
        assert_eq!(c.moves_completed(White), 39);
        assert_eq!(c.period_index(White), 0);
        assert_eq!(c.moves_to_control(White), Some(1));
        assert_eq!(c.remaining(White, t), 7200 * S - 39 * 60 * S);

        t += 60_000;
        c.press(t).unwrap(); // White's 40th move
        assert_eq!(c.moves_completed(White), 40);
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.moves_to_control(White), None);
        // 7200 - 40 * 60 = 4800 s saved, plus 3600 s.
        assert_eq!(c.remaining(White, t), 4800 * S + 3600 * S);
        // Black has not reached move 40 yet.
        assert_eq!(c.period_index(Black), 0);
        assert_eq!(c.moves_to_control(Black), Some(1));
        assert_eq!(c.remaining(Black, t), 7200 * S - 39 * 60 * S);

        t += 60_000;
        c.press(t).unwrap();
        assert_eq!(c.period_index(Black), 1);
        assert_eq!(c.remaining(Black, t), 4800 * S + 3600 * S);

        // Sudden death from now on: no more additions.
        t += 60_000;
        c.press(t).unwrap();
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.remaining(White, t), 8400 * S - 60 * S);
    }

    #[test]
    fn repeating_last_period_with_moves() {
        let mut c = clock("2/60:1/10");
        c.start(White, 0);
        // White moves instantly each time; Black's presses also instant.
        c.press(1000).unwrap(); // W1
        c.press(1000).unwrap(); // B1
        assert_eq!(c.remaining(White, 1000), 59 * S);
        c.press(2000).unwrap(); // W2: control of period 1 reached, +10 s
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.remaining(White, 2000), 58 * S + 10 * S);
        assert_eq!(c.moves_to_control(White), Some(1));
        c.press(2000).unwrap(); // B2
        c.press(3000).unwrap(); // W3: last period repeats, +10 s again
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.remaining(White, 3000), 67 * S + 10 * S);
        assert_eq!(c.moves_to_control(White), Some(1));
        c.press(3000).unwrap();
        c.press(4000).unwrap(); // W4
        assert_eq!(c.remaining(White, 4000), 76 * S + 10 * S);
        assert_eq!(c.moves_completed(White), 4);
    }

    #[test]
    fn repeating_last_period_of_several_moves() {
        let mut c = clock("4/100:2/50");
        c.set_moves_completed(White, 5);
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.moves_to_control(White), Some(1));
        c.start(White, 0);
        c.press(0).unwrap(); // W6: 4 + 2 reached, another 50 s
        assert_eq!(c.remaining(White, 0), 150 * S);
        assert_eq!(c.moves_to_control(White), Some(2));
        c.press(0).unwrap();
        c.press(0).unwrap(); // W7: no addition
        assert_eq!(c.remaining(White, 0), 150 * S);
        assert_eq!(c.moves_to_control(White), Some(1));
    }

    #[test]
    fn fischer_increment_every_move_including_first() {
        let mut c = clock("60+2");
        c.start(White, 0);
        c.press(1000).unwrap();
        assert_eq!(c.remaining(White, 1000), 61 * S);
        c.press(1500).unwrap();
        assert_eq!(c.remaining(Black, 1500), 61500);
        c.press(1500).unwrap(); // instant move: +2 s
        assert_eq!(c.remaining(White, 1500), 63 * S);
        assert_eq!(c.used(White, 1500), S);
    }

    #[test]
    fn increment_is_the_one_of_the_period_the_move_was_made_in() {
        let mut c = clock("1/60+5:60+1");
        c.start(White, 0);
        c.press(0).unwrap(); // move 1 in period 1: +5 s, then period 2's 60 s
        assert_eq!(c.remaining(White, 0), 125 * S);
        assert_eq!(c.period_index(White), 1);
        c.press(0).unwrap();
        c.press(0).unwrap(); // move 2 in period 2: +1 s
        assert_eq!(c.remaining(White, 0), 126 * S);
    }

    #[test]
    fn delay_press_within_delay_keeps_main_time() {
        let mut c = clock("60d5");
        c.start(White, 0);
        assert_eq!(c.delay_left(White, 2000), 3000);
        assert_eq!(c.delay_left(Black, 2000), 0);
        assert_eq!(c.remaining(White, 4999), 60 * S);
        c.press(4999).unwrap();
        assert_eq!(c.remaining(White, 4999), 60 * S);
        assert_eq!(c.used(White, 4999), 4999, "used counts real thinking time");
        // Unused delay is not banked: the next move gets exactly 5 s again.
        c.press(4999).unwrap();
        assert_eq!(c.delay_left(White, 4999), 5000);
    }

    #[test]
    fn delay_press_after_delay_charges_only_the_excess() {
        let mut c = clock("60d5");
        c.start(White, 0);
        assert_eq!(c.remaining(White, 8000), 57 * S);
        assert_eq!(c.delay_left(White, 8000), 0);
        c.press(8000).unwrap();
        assert_eq!(c.remaining(White, 8000), 57 * S);
        assert_eq!(c.used(White, 8000), 8 * S);
        assert_eq!(c.delay_left(Black, 8000), 5 * S);
    }

    #[test]
    fn delay_flag_falls_only_after_delay_and_main() {
        let mut c = clock("60d5");
        c.start(White, 1000);
        let fall = 1000 + 5000 + 60_000;
        assert_eq!(c.flag_instant(White), Some(fall));
        assert!(!c.flag_fallen(White, fall - 1));
        assert_eq!(c.remaining(White, fall - 1), 1);
        assert!(c.flag_fallen(White, fall));
        assert_eq!(c.first_flag(fall + 10), Some((White, fall)));
    }

    #[test]
    fn delay_in_a_later_period_applies_from_that_period() {
        let mut c = clock("1/60:60d5");
        c.start(White, 0);
        c.press(3000).unwrap(); // no delay in period 1: charged 3 s, then +60 s
        assert_eq!(c.remaining(White, 3000), 117 * S);
        c.press(3000).unwrap();
        assert_eq!(c.delay_left(White, 3000), 5000);
        c.press(6000).unwrap(); // within the delay of period 2
        assert_eq!(c.remaining(White, 6000), 117 * S);
    }

    #[test]
    fn pause_and_resume_do_not_charge_paused_time() {
        let mut c = clock("60d5");
        c.start(White, 0);
        c.pause(3000).unwrap();
        assert!(c.is_paused());
        assert_eq!(c.running(), None);
        assert_eq!(c.paused_side(), Some(White));
        assert_eq!(c.delay_left(White, 1_000_000), 2000);
        assert_eq!(c.remaining(White, 1_000_000), 60 * S);
        assert_eq!(c.used(White, 1_000_000), 3000);
        assert_eq!(c.flag_instant(White), None);
        assert_eq!(c.press(500_000), Err(ClockError::Paused));
        assert_eq!(c.pause(500_000), Err(ClockError::Paused));
        c.resume(1_000_000).unwrap();
        assert_eq!(c.running(), Some(White));
        // The delay already used stays used: 2 s of delay left, then main time.
        assert_eq!(c.remaining(White, 1_004_000), 58 * S);
        assert_eq!(c.used(White, 1_004_000), 7000);
        assert_eq!(c.resume(1_004_000), Err(ClockError::NotPaused));
        c.press(1_004_000).unwrap();
        assert_eq!(c.remaining(White, 1_004_000), 58 * S);
        assert_eq!(c.running(), Some(Black));
    }

    #[test]
    fn press_pause_resume_errors_when_nothing_runs() {
        let mut c = clock("300");
        assert_eq!(c.press(0), Err(ClockError::NotRunning));
        assert_eq!(c.pause(0), Err(ClockError::NotRunning));
        assert_eq!(c.resume(0), Err(ClockError::NotPaused));
        assert!(
            ClockError::NotRunning
                .to_string()
                .contains("no clock is running")
        );
        assert!(ClockError::Paused.to_string().contains("paused"));
        assert!(ClockError::NotPaused.to_string().contains("not paused"));
        c.start(White, 0);
        c.stop(5000);
        assert_eq!(c.press(6000), Err(ClockError::NotRunning));
        assert_eq!(c.moves_completed(White), 0);
        assert_eq!(c.remaining(White, 6000), 295 * S);
    }

    #[test]
    fn stop_and_start_continue_the_move_in_progress() {
        let mut c = clock("60d5");
        c.start(White, 0);
        c.stop(3000); // e.g. a claim
        assert_eq!(c.running(), None);
        assert_eq!(
            c.delay_left(White, 3000),
            0,
            "a stopped clock shows no delay"
        );
        c.start(White, 100_000);
        assert_eq!(c.delay_left(White, 100_000), 2000);
        assert_eq!(c.remaining(White, 104_000), 58 * S);
        assert_eq!(c.moves_completed(White), 0);
    }

    #[test]
    fn start_other_side_stops_running_one_without_a_move() {
        let mut c = clock("300+10");
        c.start(White, 0);
        c.start(Black, 4000);
        assert_eq!(c.running(), Some(Black));
        assert_eq!(
            c.remaining(White, 4000),
            296 * S,
            "charged, but no increment"
        );
        assert_eq!(c.moves_completed(White), 0);
        assert_eq!(c.remaining(Black, 6000), 298 * S);
    }

    #[test]
    fn set_remaining_on_running_and_stopped_sides() {
        let mut c = clock("300");
        c.start(White, 0);
        c.set_remaining(White, 100 * S, 50_000);
        assert_eq!(c.remaining(White, 50_000), 100 * S);
        assert_eq!(
            c.remaining(White, 60_000),
            90 * S,
            "counts on from the new value"
        );
        assert_eq!(c.flag_instant(White), Some(150_000));
        assert_eq!(
            c.used(White, 60_000),
            60 * S,
            "used is real time, not adjusted"
        );
        c.set_remaining(Black, 42 * S, 60_000);
        assert_eq!(c.remaining(Black, 90_000), 42 * S);
        assert_eq!(c.running(), Some(White));
    }

    #[test]
    fn add_time_on_running_and_stopped_sides() {
        let mut c = clock("300");
        c.start(White, 0);
        c.add_time(Black, 2 * MIN, 10_000); // 7.4 b
        assert_eq!(c.remaining(Black, 10_000), 420 * S);
        c.add_time(White, -30 * S, 10_000);
        assert_eq!(c.remaining(White, 10_000), 260 * S);
        assert_eq!(c.remaining(White, 20_000), 250 * S);
        c.add_time(Black, i64::MAX, 20_000);
        assert_eq!(c.remaining(Black, 20_000), i64::MAX, "saturates");
    }

    #[test]
    fn adjustments_recompute_the_flag() {
        let mut c = clock("300");
        c.add_time(Black, -400 * S, 5000);
        assert!(c.flag_fallen(Black, 5000));
        assert_eq!(c.first_flag(5000), Some((Black, 5000)));
        c.set_remaining(Black, 60 * S, 6000);
        assert!(!c.flag_fallen(Black, 6000));
        assert_eq!(c.first_flag(6000), None);
    }

    #[test]
    fn flag_stays_fallen_after_increment_lifts_the_time() {
        let mut c = clock("10+20");
        c.start(White, 0);
        c.press(12_000).unwrap(); // flag fell at 10 s; +20 s afterwards
        assert_eq!(c.remaining(White, 12_000), 18 * S);
        assert!(c.flag_fallen(White, 12_000));
        assert_eq!(c.first_flag(12_000), Some((White, 10_000)));
    }

    #[test]
    fn set_moves_completed_recomputes_period_but_not_times() {
        let mut c = clock("40/7200:20/3600");
        c.set_moves_completed(White, 45);
        assert_eq!(c.moves_completed(White), 45);
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.moves_to_control(White), Some(15));
        assert_eq!(c.remaining(White, 0), 7200 * S, "no base time re-added");
        c.set_moves_completed(White, 60);
        assert_eq!(c.period_index(White), 1);
        assert_eq!(c.moves_to_control(White), Some(20));
        c.set_moves_completed(White, 10);
        assert_eq!(c.period_index(White), 0);
        assert_eq!(c.moves_to_control(White), Some(30));
        assert_eq!(c.moves_completed(Black), 0);

        let mut c = clock("40/7200:3600");
        c.set_moves_completed(Black, 1000);
        assert_eq!(c.period_index(Black), 1);
        assert_eq!(c.moves_to_control(Black), None);
    }

    #[test]
    fn first_flag_with_one_side_negative_and_stopped() {
        let mut c = clock("60");
        c.start(White, 0);
        c.press(70_000).unwrap(); // White overstepped at 60 s and then moved
        assert!(c.remaining(White, 70_000) < 0);
        assert_eq!(c.first_flag(70_000), Some((White, 60_000)));
        // Black's flag falls later; White's remains the first.
        assert_eq!(c.flag_instant(Black), Some(130_000));
        assert_eq!(c.first_flag(200_000), Some((White, 60_000)));
        assert!(c.flag_fallen(Black, 200_000));
        c.stop(200_000);
        assert_eq!(c.first_flag(300_000), Some((White, 60_000)));
        assert!(c.flag_fallen(Black, 300_000));
        assert_eq!(c.remaining(Black, 300_000), -70 * S);
    }

    #[test]
    fn first_flag_picks_the_earlier_even_if_black() {
        let mut c = clock("60");
        c.start(Black, 0);
        c.press(61_000).unwrap(); // Black fell at 60 s
        c.stop(200_000); // White also fell, at 121 s
        assert_eq!(c.first_flag(200_000), Some((Black, 60_000)));
        assert!(c.flag_fallen(White, 200_000));
    }

    #[test]
    fn time_going_backwards_adds_no_time_and_does_not_panic() {
        let mut c = clock("300");
        c.start(White, 10_000);
        c.press(5_000).unwrap(); // treated as 10_000: nothing charged
        assert_eq!(c.remaining(White, 0), 300 * S);
        assert_eq!(c.used(White, 0), 0);
        assert_eq!(
            c.remaining(Black, 0),
            300 * S,
            "queries never look before the last event"
        );
        c.start(White, 20_000);
        c.stop(15_000); // treated as 20_000
        assert_eq!(c.remaining(Black, 20_000), 290 * S);
        assert_eq!(c.remaining(White, 0), 300 * S);
        c.start(White, 20_000);
        c.start(Black, 20_000);
        c.start(White, 20_000);
        c.pause(1).unwrap();
        c.resume(0).unwrap();
        c.press(0).unwrap();
        assert_eq!(c.remaining(White, 20_000), 300 * S);
        assert_eq!(c.moves_completed(White), 2);
    }

    #[test]
    fn huge_times_saturate_instead_of_panicking() {
        let mut c = clock("9223372036854775+9223372036854775");
        c.start(White, 0);
        c.press(u64::MAX).unwrap();
        // Elapsed time is capped at i64::MAX ms: White overstepped by 807 ms, then the increment.
        let big = 9_223_372_036_854_775_000;
        assert_eq!(c.remaining(White, u64::MAX), big - i64::MAX + big);
        assert!(c.flag_fallen(White, u64::MAX));
        assert_eq!(c.flag_instant(Black), Some(u64::MAX));
        assert!(!c.flag_fallen(Black, u64::MAX));
        c.add_time(White, i64::MIN, u64::MAX);
        assert!(c.flag_fallen(White, u64::MAX));
        c.add_time(White, i64::MIN, u64::MAX);
        assert_eq!(c.remaining(White, u64::MAX), i64::MIN);

        // Invalid controls built in code: no panic, sensible readings.
        let empty = Clock::new(TimeControl { periods: vec![] });
        assert_eq!(empty.remaining(White, 0), 0);
        assert_eq!(empty.first_flag(0), Some((White, 0)));
        assert_eq!(empty.moves_to_control(White), None);
        let mut zero = Clock::new(TimeControl {
            periods: vec![Period::moves_in(0, 60 * S)],
        });
        zero.start(White, 0);
        zero.press(0).unwrap();
        assert_eq!(zero.moves_to_control(White), None);
        assert_eq!(zero.remaining(White, 0), 60 * S);
    }

    #[test]
    fn serde_round_trips_clock() {
        let mut c = clock("40/7200d5:3600d5");
        c.start(White, 0);
        c.press(9000).unwrap();
        c.pause(10_000).unwrap();
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains("\"black\""), "{json}");
        let back: Clock = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.paused_side(), Some(Black));
        let bad = json.replace("\"side\":\"black\"", "\"side\":\"blue\"");
        let e = serde_json::from_str::<Clock>(&bad).unwrap_err().to_string();
        assert!(e.contains("unknown side 'blue'"), "{e}");
    }
}
