//! The chess clock and time controls of the FIDE Laws (2001 text, Article 6).
//!
//! This module owns two things: [`TimeControl`], the agreed periods (6.1: "a minimum number of
//! moves or all moves in an allotted period of time and/or an additional amount of time with each
//! move"), with its PGN `TimeControl` tag notation; and [`Clock`], the state of both players'
//! clocks under such a control: remaining main time, time used, moves completed, the period each
//! side is in, Fischer increments, the 6.2 time-delay mode, arbiter pauses (6.12) and adjustments
//! (6.13).
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
//! Conventions: instants are `Millis` (u64); durations and remaining times are `i64`
//! milliseconds, negative once a flag has fallen. All arithmetic saturates, so times of days or
//! absurd arbiter inputs cannot panic.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::Color;
use thiserror::Error;

use crate::rules::Millis;

/// The accepted notation, repeated in every parse error so that the reader can fix the text
/// without looking anything up.
const FORMS: &str = "MOVES/SECONDS or SECONDS (sudden death, last period only), each with an \
                     optional +INCREMENT or dDELAY in seconds, periods separated by ':' \
                     (e.g. '40/7200:3600', '5400+30', '5400d30')";

// ---------------------------------------------------------------------------------------------
// Time controls
// ---------------------------------------------------------------------------------------------

/// One period of a time control.
///
/// The fields are public so that the game module and tests can build controls directly; a
/// control built that way can be checked with [`TimeControl::validate`]. The [`Clock`] never
/// panics on an invalid control (see the notes on [`Clock::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Period {
    /// `Some(n)`: n moves must be completed in this period. `None`: all remaining moves (sudden
    /// death); only the last period may be `None`.
    pub moves: Option<u32>,
    /// Time allotted for the period, in ms. Added to what the player has left when the period
    /// begins (6.2: time saved carries over).
    pub base_ms: i64,
    /// Fischer increment, in ms, added after every move completed in this period.
    pub increment_ms: i64,
    /// 6.2 time-delay mode: the "fixed extra time" per move, in ms, used before the main time
    /// starts counting down. Unused delay is lost, never banked.
    pub delay_ms: i64,
}

impl Period {
    /// `moves` moves in `base_ms`, no increment, no delay.
    pub const fn moves_in(moves: u32, base_ms: i64) -> Period {
        Period {
            moves: Some(moves),
            base_ms,
            increment_ms: 0,
            delay_ms: 0,
        }
    }

    /// All remaining moves in `base_ms`, no increment, no delay.
    pub const fn sudden_death(base_ms: i64) -> Period {
        Period {
            moves: None,
            base_ms,
            increment_ms: 0,
            delay_ms: 0,
        }
    }

    /// The same period with a Fischer increment per move.
    pub const fn with_increment(self, increment_ms: i64) -> Period {
        Period {
            increment_ms,
            ..self
        }
    }

    /// The same period in 6.2 time-delay mode.
    pub const fn with_delay(self, delay_ms: i64) -> Period {
        Period { delay_ms, ..self }
    }

    /// The move count that ends this period. A zero count (which parsing and `validate` reject)
    /// is read as sudden death so that the clock can neither loop nor divide by zero on it.
    fn control(&self) -> Option<u32> {
        self.moves.filter(|&n| n > 0)
    }

    /// The delay per move; a negative delay (rejected by `validate`) means no delay.
    fn delay(&self) -> i64 {
        self.delay_ms.max(0)
    }
}

/// The periods that make up a time control, in order.
///
/// After the last period, play continues in it: a sudden-death last period simply never ends,
/// and a last period with a move count *repeats* (`40/7200:20/3600` gives another 3600 s after
/// moves 60, 80, 100, ...). That is how clubs and FIDE events write "then 20 moves per hour"
/// and it is what mechanical clocks with a move counter do; a control that wants to end in
/// sudden death says so with a last period without a move count.
///
/// In 6.2 time-delay mode, "the time saved ... is added ... except in the 'time delay' mode" is
/// read as: the unused fixed extra time of a move is lost, never saved; main time left at a
/// control still carries into the next period, as in every other mode (otherwise a multi-period
/// delay control would throw away the main time a player saved).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TimeControl {
    /// At least one period; only the last may be sudden death.
    pub periods: Vec<Period>,
}

/// What is wrong with one period of a time control. Shown inside
/// [`TimeControlError::Period`], which says which period and shows the allowed forms.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PeriodProblem {
    #[error("the period is empty")]
    Empty,
    #[error("'{0}' has more than one '/'; a period has at most one MOVES/ prefix")]
    ExtraSlash(String),
    #[error("the {0} is missing")]
    Missing(Part),
    #[error("'{text}' is not a number of {}", .part.unit())]
    NotANumber { part: Part, text: String },
    #[error("'{text}' is negative; the {part} cannot be negative")]
    Negative { part: Part, text: String },
    #[error("the {0} is 0; it must be {min}", min = .0.minimum())]
    Zero(Part),
    #[error("'{text}' has more than 3 decimals; the {part} is kept in whole milliseconds")]
    TooManyDecimals { part: Part, text: String },
    #[error("'{text}' is too large for the {part}")]
    TooLarge { part: Part, text: String },
    #[error("'{0}' has both an increment (+) and a delay (d); a period may have one or the other")]
    IncrementAndDelay(String),
    #[error(
        "'{0}' is sudden death (no MOVES/) but is not the last period; only the last period may be sudden death"
    )]
    SuddenDeathNotLast(String),
    #[error("'{0}' is an hourglass control, which this clock does not support")]
    Hourglass(String),
}

/// Which number of a period a [`PeriodProblem`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Moves,
    Base,
    Increment,
    Delay,
}

impl Part {
    fn unit(self) -> &'static str {
        match self {
            Part::Moves => "moves",
            Part::Base => "seconds",
            Part::Increment => "seconds for the increment",
            Part::Delay => "seconds for the delay",
        }
    }

    fn minimum(self) -> &'static str {
        match self {
            Part::Moves => "at least 1 move",
            Part::Base => "more than 0 seconds",
            Part::Increment | Part::Delay => "0 or more seconds",
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Moves => "move count",
            Part::Base => "base time",
            Part::Increment => "increment",
            Part::Delay => "delay",
        })
    }
}

/// Why a time control was rejected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimeControlError {
    #[error("no time control given: the text is empty; expected {forms}", forms = FORMS)]
    Empty,
    #[error("no time control given: '-' means the game is played without a clock; expected {forms}", forms = FORMS)]
    NoClock,
    #[error("no time control given: '?' means the time control is unknown; expected {forms}", forms = FORMS)]
    Unknown,
    #[error("no time control given: the control has no periods; expected {forms}", forms = FORMS)]
    NoPeriods,
    /// `index` is 1-based; `text` is the whole control as given (or as displayed, for a control
    /// built in code).
    #[error("period {index} of '{text}': {problem}; expected {forms}", forms = FORMS)]
    Period {
        index: usize,
        text: String,
        problem: PeriodProblem,
    },
}

/// A period that has no periods at all stands in for the missing one of an empty (invalid)
/// control, so that the clock always has something to read.
const NO_PERIOD: Period = Period::sudden_death(0);

impl TimeControl {
    /// A validated control.
    pub fn new(periods: Vec<Period>) -> Result<TimeControl, TimeControlError> {
        let tc = TimeControl { periods };
        tc.validate()?;
        Ok(tc)
    }

    /// Parses the notation described on [`FromStr`](#impl-FromStr-for-TimeControl).
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        text.parse()
    }

    /// Checks a control built in code against the same rules as the parser: at least one
    /// period, only the last without a move count, positive move counts and base times,
    /// non-negative increments and delays, never both on one period.
    pub fn validate(&self) -> Result<(), TimeControlError> {
        if self.periods.is_empty() {
            return Err(TimeControlError::NoPeriods);
        }
        let last = self.periods.len() - 1;
        for (i, p) in self.periods.iter().enumerate() {
            let problem = if p.moves == Some(0) {
                Some(PeriodProblem::Zero(Part::Moves))
            } else if p.base_ms < 0 {
                Some(PeriodProblem::Negative {
                    part: Part::Base,
                    text: seconds(p.base_ms),
                })
            } else if p.base_ms == 0 {
                Some(PeriodProblem::Zero(Part::Base))
            } else if p.increment_ms < 0 {
                Some(PeriodProblem::Negative {
                    part: Part::Increment,
                    text: seconds(p.increment_ms),
                })
            } else if p.delay_ms < 0 {
                Some(PeriodProblem::Negative {
                    part: Part::Delay,
                    text: seconds(p.delay_ms),
                })
            } else if p.increment_ms > 0 && p.delay_ms > 0 {
                Some(PeriodProblem::IncrementAndDelay(p.to_string()))
            } else if p.moves.is_none() && i != last {
                Some(PeriodProblem::SuddenDeathNotLast(p.to_string()))
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(TimeControlError::Period {
                    index: i + 1,
                    text: self.to_string(),
                    problem,
                });
            }
        }
        Ok(())
    }

    /// The period at `index`, or a zero sudden-death period for an (invalid) empty control.
    fn period(&self, index: usize) -> &Period {
        self.periods.get(index).unwrap_or(&NO_PERIOD)
    }

    /// Where a side stands after `moves` completed moves: the index of its current period and
    /// the number of moves it had completed when that period (or, for a repeating last period,
    /// its current repetition) began.
    fn position(&self, moves: u32) -> (usize, u32) {
        let last = self.periods.len().saturating_sub(1);
        // Invariant: start <= moves, because start only grows by n once moves >= start + n.
        let mut start: u32 = 0;
        for (i, p) in self.periods.iter().enumerate() {
            let Some(n) = p.control() else {
                return (i, start);
            };
            let done = moves - start;
            if done < n {
                return (i, start);
            }
            if i == last {
                // The last period repeats: skip whole repetitions.
                return (i, start + done / n * n);
            }
            start += n;
        }
        (0, 0)
    }
}

/// PGN `TimeControl` tag syntax, in seconds, plus a delay suffix:
///
/// - periods separated by `:`;
/// - each period `MOVES/SECONDS`, or `SECONDS` for sudden death (last period only);
/// - optionally followed by `+INC` (Fischer increment, seconds) or `dN` (6.2 delay of N seconds
///   per move), not both.
///
/// Examples: `40/7200:3600`, `5400+30`, `300`, `40/5400+30:1800+30`, `5400d30`,
/// `40/7200d5:1800d5`. Seconds may carry up to three decimals (`0.5`), so that every control the
/// clock can hold has a notation; whole seconds are the PGN norm. A zero increment or delay
/// (`300+0`, as some servers write) is accepted and means none. `-` (no clock), `?` (unknown)
/// and the empty text are rejected: a clock needs a control. Surrounding whitespace is ignored.
impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let trimmed = text.trim();
        match trimmed {
            "" => return Err(TimeControlError::Empty),
            "-" => return Err(TimeControlError::NoClock),
            "?" => return Err(TimeControlError::Unknown),
            _ => {}
        }
        let parts: Vec<&str> = trimmed.split(':').collect();
        let last = parts.len() - 1;
        let mut periods = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter().enumerate() {
            let period = parse_period(part).and_then(|p| {
                if p.moves.is_none() && i != last {
                    Err(PeriodProblem::SuddenDeathNotLast((*part).to_string()))
                } else {
                    Ok(p)
                }
            });
            match period {
                Ok(p) => periods.push(p),
                Err(problem) => {
                    return Err(TimeControlError::Period {
                        index: i + 1,
                        text: trimmed.to_string(),
                        problem,
                    });
                }
            }
        }
        Ok(TimeControl { periods })
    }
}

fn parse_period(text: &str) -> Result<Period, PeriodProblem> {
    if text.is_empty() {
        return Err(PeriodProblem::Empty);
    }
    if text.starts_with('*') {
        return Err(PeriodProblem::Hourglass(text.to_string()));
    }
    let (moves_text, rest) = match text.split_once('/') {
        Some((m, r)) => (Some(m), r),
        None => (None, text),
    };
    if rest.contains('/') {
        return Err(PeriodProblem::ExtraSlash(text.to_string()));
    }
    let moves = moves_text.map(parse_moves).transpose()?;
    let (base_text, extra) = match (rest.find('+'), rest.find('d')) {
        (Some(_), Some(_)) => return Err(PeriodProblem::IncrementAndDelay(text.to_string())),
        (Some(i), None) => (&rest[..i], Some((Part::Increment, &rest[i + 1..]))),
        (None, Some(i)) => (&rest[..i], Some((Part::Delay, &rest[i + 1..]))),
        (None, None) => (rest, None),
    };
    let base_ms = parse_seconds(base_text, Part::Base)?;
    if base_ms == 0 {
        return Err(PeriodProblem::Zero(Part::Base));
    }
    let mut period = Period {
        moves,
        base_ms,
        increment_ms: 0,
        delay_ms: 0,
    };
    match extra {
        Some((Part::Delay, t)) => period.delay_ms = parse_seconds(t, Part::Delay)?,
        Some((part, t)) => period.increment_ms = parse_seconds(t, part)?,
        None => {}
    }
    Ok(period)
}

fn parse_moves(text: &str) -> Result<u32, PeriodProblem> {
    let part = Part::Moves;
    if text.is_empty() {
        return Err(PeriodProblem::Missing(part));
    }
    if text.starts_with('-') && text.len() > 1 && text[1..].bytes().all(|b| b.is_ascii_digit()) {
        return Err(PeriodProblem::Negative {
            part,
            text: text.to_string(),
        });
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PeriodProblem::NotANumber {
            part,
            text: text.to_string(),
        });
    }
    match text.parse::<u32>() {
        Ok(0) => Err(PeriodProblem::Zero(part)),
        Ok(n) => Ok(n),
        // Only digits, so the only possible failure is overflow.
        Err(_) => Err(PeriodProblem::TooLarge {
            part,
            text: text.to_string(),
        }),
    }
}

/// `SECONDS[.FFF]` to milliseconds; zero is accepted here and rejected by the caller where it
/// matters (the base time).
fn parse_seconds(text: &str, part: Part) -> Result<i64, PeriodProblem> {
    if text.is_empty() {
        return Err(PeriodProblem::Missing(part));
    }
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(u) => (true, u),
        None => (false, text),
    };
    let (whole, frac) = match unsigned.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (unsigned, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !frac.is_none_or(digits) {
        return Err(PeriodProblem::NotANumber {
            part,
            text: text.to_string(),
        });
    }
    if negative {
        return Err(PeriodProblem::Negative {
            part,
            text: text.to_string(),
        });
    }
    let frac = frac.unwrap_or("");
    if frac.len() > 3 {
        return Err(PeriodProblem::TooManyDecimals {
            part,
            text: text.to_string(),
        });
    }
    let too_large = || PeriodProblem::TooLarge {
        part,
        text: text.to_string(),
    };
    let whole: i64 = whole.parse().map_err(|_| too_large())?;
    // At most three digits, all ASCII digits: parses and fits. Pad to milliseconds.
    let frac_ms: i64 = format!("{frac:0<3}").parse().map_err(|_| too_large())?;
    whole
        .checked_mul(1000)
        .and_then(|ms| ms.checked_add(frac_ms))
        .ok_or_else(too_large)
}

/// Milliseconds as seconds in the notation: whole seconds plainly, otherwise with the needed
/// decimals (`1500` -> `1.5`).
fn seconds(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let abs = ms.unsigned_abs();
    let (whole, frac) = (abs / 1000, abs % 1000);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        let frac = format!("{frac:03}");
        format!("{sign}{whole}.{}", frac.trim_end_matches('0'))
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.moves {
            write!(f, "{n}/")?;
        }
        f.write_str(&seconds(self.base_ms))?;
        if self.increment_ms != 0 {
            write!(f, "+{}", seconds(self.increment_ms))?;
        }
        if self.delay_ms != 0 {
            write!(f, "d{}", seconds(self.delay_ms))?;
        }
        Ok(())
    }
}

/// The notation of [`FromStr`](#impl-FromStr-for-TimeControl); for every valid control,
/// `tc.to_string().parse() == Ok(tc)`.
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The clock
// ---------------------------------------------------------------------------------------------

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
    remaining_ms: i64,
    /// Real thinking time consumed, delay included, ms.
    used_ms: i64,
    /// Moves completed (presses, or as set by the arbiter).
    moves: u32,
    /// Delay still unused in the move in progress (or, between moves, the full delay the next
    /// move will get).
    delay_left_ms: i64,
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
    use shakmaty::Color::{Black, White};

    const S: i64 = 1000;
    const MIN: i64 = 60 * S;

    fn tc(text: &str) -> TimeControl {
        TimeControl::parse(text).expect("test control parses")
    }

    fn clock(text: &str) -> Clock {
        Clock::new(tc(text))
    }

    fn err(text: &str) -> String {
        TimeControl::parse(text)
            .expect_err("test control must be rejected")
            .to_string()
    }

    // --- parsing ------------------------------------------------------------------------------

    #[test]
    fn parses_sudden_death() {
        assert_eq!(tc("300").periods, vec![Period::sudden_death(300 * S)]);
    }

    #[test]
    fn parses_two_periods() {
        assert_eq!(
            tc("40/7200:3600").periods,
            vec![
                Period::moves_in(40, 7200 * S),
                Period::sudden_death(3600 * S)
            ]
        );
    }

    #[test]
    fn parses_increment() {
        assert_eq!(
            tc("5400+30").periods,
            vec![Period::sudden_death(5400 * S).with_increment(30 * S)]
        );
        assert_eq!(
            tc("40/5400+30:1800+30").periods,
            vec![
                Period::moves_in(40, 5400 * S).with_increment(30 * S),
                Period::sudden_death(1800 * S).with_increment(30 * S),
            ]
        );
    }

    #[test]
    fn parses_delay() {
        assert_eq!(
            tc("5400d30").periods,
            vec![Period::sudden_death(5400 * S).with_delay(30 * S)]
        );
        assert_eq!(
            tc("40/7200d5:1800d5").periods,
            vec![
                Period::moves_in(40, 7200 * S).with_delay(5 * S),
                Period::sudden_death(1800 * S).with_delay(5 * S),
            ]
        );
    }

    #[test]
    fn parses_repeating_last_period_and_three_periods() {
        assert_eq!(
            tc("40/7200:20/3600").periods,
            vec![
                Period::moves_in(40, 7200 * S),
                Period::moves_in(20, 3600 * S)
            ]
        );
        assert_eq!(tc("40/6000:20/3000:900+30").periods.len(), 3);
    }

    #[test]
    fn parses_zero_increment_fractions_and_whitespace() {
        assert_eq!(tc("300+0"), tc("300"));
        assert_eq!(tc("300d0"), tc("300"));
        assert_eq!(tc(" 300 "), tc("300"));
        assert_eq!(
            tc("0.5+0.25").periods,
            vec![Period::sudden_death(500).with_increment(250)]
        );
        assert_eq!(tc("1.05").periods[0].base_ms, 1050);
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "300",
            "40/7200:3600",
            "5400+30",
            "40/5400+30:1800+30",
            "5400d30",
            "40/7200d5:1800d5",
            "40/7200:20/3600",
            "40/6000:20/3000:900+30",
            "0.5+0.25",
            "1.05d0.001",
        ] {
            let parsed = tc(text);
            assert_eq!(parsed.to_string(), text);
            assert_eq!(TimeControl::parse(&parsed.to_string()), Ok(parsed));
        }
        // A zero increment is not written back.
        assert_eq!(tc("300+0").to_string(), "300");
    }

    #[test]
    fn serde_round_trips_time_control() {
        let t = tc("40/5400+30:1800+30");
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), t);
    }

    // --- rejections ---------------------------------------------------------------------------

    #[test]
    fn rejects_missing_controls() {
        assert_eq!(TimeControl::parse(""), Err(TimeControlError::Empty));
        assert_eq!(TimeControl::parse("  "), Err(TimeControlError::Empty));
        assert_eq!(TimeControl::parse("-"), Err(TimeControlError::NoClock));
        assert_eq!(TimeControl::parse("?"), Err(TimeControlError::Unknown));
        assert!(err("").starts_with("no time control given"));
        assert!(err("-").contains("'-' means the game is played without a clock"));
        assert!(err("?").contains("'?' means the time control is unknown"));
        assert!(err("?").contains("expected MOVES/SECONDS"));
    }

    #[test]
    fn rejection_message_names_period_part_and_forms() {
        assert_eq!(
            err("40/7200:abc"),
            format!(
                "period 2 of '40/7200:abc': 'abc' is not a number of seconds; expected {FORMS}"
            )
        );
        assert!(FORMS.contains("MOVES/SECONDS"));
        assert!(FORMS.contains("+INCREMENT"));
        assert!(FORMS.contains("dDELAY"));
        assert!(FORMS.contains("':'"));
    }

    #[test]
    fn rejects_sudden_death_not_last() {
        let e = TimeControl::parse("3600:40/7200").unwrap_err();
        assert_eq!(
            e,
            TimeControlError::Period {
                index: 1,
                text: "3600:40/7200".into(),
                problem: PeriodProblem::SuddenDeathNotLast("3600".into()),
            }
        );
        assert!(
            e.to_string()
                .contains("only the last period may be sudden death")
        );
    }

    #[test]
    fn rejects_increment_and_delay_together() {
        let m = err("40/7200:1800+30d5");
        assert!(
            m.starts_with("period 2 of '40/7200:1800+30d5': '1800+30d5' has both an increment"),
            "{m}"
        );
    }

    #[test]
    fn rejects_zero_numbers() {
        let m = err("0");
        assert!(
            m.starts_with("period 1 of '0': the base time is 0; it must be more than 0 seconds"),
            "{m}"
        );
        let m = err("0/300");
        assert!(
            m.starts_with("period 1 of '0/300': the move count is 0; it must be at least 1 move"),
            "{m}"
        );
        let m = err("40/7200:40/0");
        assert!(
            m.starts_with("period 2 of '40/7200:40/0': the base time is 0"),
            "{m}"
        );
    }

    #[test]
    fn rejects_negative_numbers() {
        let m = err("-300");
        assert!(
            m.contains("period 1 of '-300': '-300' is negative; the base time cannot be negative"),
            "{m}"
        );
        let m = err("-40/300");
        assert!(m.contains("'-40' is negative; the move count"), "{m}");
        let m = err("300+-5");
        assert!(m.contains("'-5' is negative; the increment"), "{m}");
        let m = err("300d-5");
        assert!(m.contains("'-5' is negative; the delay"), "{m}");
    }

    #[test]
    fn rejects_overflowing_numbers() {
        let m = err("4294967296/300");
        assert!(
            m.contains("'4294967296' is too large for the move count"),
            "{m}"
        );
        let m = err("9223372036854776");
        assert!(
            m.contains("'9223372036854776' is too large for the base time"),
            "{m}"
        );
        let m = err("300+99999999999999999999");
        assert!(m.contains("too large for the increment"), "{m}");
        // The largest base that fits is accepted.
        assert_eq!(
            tc("9223372036854775").periods[0].base_ms,
            9_223_372_036_854_775_000
        );
    }

    #[test]
    fn rejects_garbage() {
        let m = err("300x");
        assert!(
            m.contains("period 1 of '300x': '300x' is not a number of seconds"),
            "{m}"
        );
        let m = err("300+5x");
        assert!(
            m.contains("'5x' is not a number of seconds for the increment"),
            "{m}"
        );
        let m = err("300d5s");
        assert!(
            m.contains("'5s' is not a number of seconds for the delay"),
            "{m}"
        );
        let m = err("forty/300");
        assert!(m.contains("'forty' is not a number of moves"), "{m}");
        let m = err("40/7200:");
        assert!(
            m.contains("period 2 of '40/7200:': the period is empty"),
            "{m}"
        );
        let m = err("40//300");
        assert!(m.contains("'40//300' has more than one '/'"), "{m}");
        let m = err("300+");
        assert!(m.contains("the increment is missing"), "{m}");
        let m = err("/300");
        assert!(m.contains("the move count is missing"), "{m}");
        let m = err("40/");
        assert!(m.contains("the base time is missing"), "{m}");
        let m = err("1.2345");
        assert!(m.contains("'1.2345' has more than 3 decimals"), "{m}");
        let m = err("1.");
        assert!(m.contains("'1.' is not a number of seconds"), "{m}");
        let m = err("*180");
        assert!(m.contains("'*180' is an hourglass control"), "{m}");
        let m = err("40 / 7200");
        assert!(m.contains("is not a number of moves"), "{m}");
        for text in ["300x", "300+5x", "40/7200:", "*180"] {
            assert!(err(text).ends_with(FORMS), "{text}");
        }
    }

    #[test]
    fn validate_checks_controls_built_in_code() {
        assert_eq!(TimeControl::new(vec![]), Err(TimeControlError::NoPeriods));
        let e = TimeControl::new(vec![
            Period::sudden_death(60 * S),
            Period::moves_in(40, 60 * S),
        ])
        .unwrap_err();
        assert!(matches!(
            e,
            TimeControlError::Period {
                index: 1,
                problem: PeriodProblem::SuddenDeathNotLast(_),
                ..
            }
        ));
        let e = TimeControl::new(vec![
            Period::sudden_death(60 * S).with_increment(S).with_delay(S),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("has both an increment"), "{e}");
        let e = TimeControl::new(vec![Period::sudden_death(-60 * S)]).unwrap_err();
        assert!(e.to_string().contains("'-60' is negative"), "{e}");
        let e = TimeControl::new(vec![Period::moves_in(0, 60 * S), Period::sudden_death(S)])
            .unwrap_err();
        assert!(e.to_string().contains("the move count is 0"), "{e}");
        assert_eq!(
            TimeControl::new(vec![
                Period::moves_in(40, 7200 * S),
                Period::sudden_death(3600 * S)
            ]),
            Ok(tc("40/7200:3600"))
        );
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
