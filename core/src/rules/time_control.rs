//! Time controls of the FIDE Laws (2001 text, Article 6.1): the agreed periods ("a minimum number
//! of moves or all moves in an allotted period of time and/or an additional amount of time with
//! each move"), with the PGN `TimeControl` tag notation they are written in, parsed with errors
//! that name the period, the part and the forms allowed. The clock that runs under a control is
//! [`super::clock`].
//!
//! Pure: text in, values out. Conventions as in [`super::clock`]: durations are `i64`
//! milliseconds.

use std::{fmt, str::FromStr};

use super::ClockMillis;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The accepted notation, repeated in every parse error so that the reader can fix the text
/// without looking anything up.
const FORMS: &str = "MOVES/SECONDS or SECONDS (sudden death, last period only), each with an \
                     optional +INCREMENT or dDELAY in seconds, periods separated by ':' \
                     (e.g. '40/7200:3600', '5400+30', '5400d30')";

/// One period of a time control.
///
/// The fields are public so that the game module and tests can build controls directly; a
/// control built that way can be checked with [`TimeControl::validate`]. The
/// [`Clock`](super::clock::Clock) never panics on an invalid control (see the notes on
/// [`Clock::new`](super::clock::Clock::new)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Period {
    /// `Some(n)`: n moves must be completed in this period. `None`: all remaining moves (sudden
    /// death); only the last period may be `None`.
    pub moves: Option<u32>,
    /// Time allotted for the period, in ms. Added to what the player has left when the period
    /// begins (6.2: time saved carries over).
    pub base_ms: ClockMillis,
    /// Fischer increment, in ms, added after every move completed in this period.
    pub increment_ms: ClockMillis,
    /// 6.2 time-delay mode: the "fixed extra time" per move, in ms, used before the main time
    /// starts counting down. Unused delay is lost, never banked.
    pub delay_ms: ClockMillis,
}

impl Period {
    /// `moves` moves in `base_ms`, no increment, no delay.
    pub const fn moves_in(moves: u32, base_ms: ClockMillis) -> Period {
        Period {
            moves: Some(moves),
            base_ms,
            increment_ms: 0,
            delay_ms: 0,
        }
    }

    /// All remaining moves in `base_ms`, no increment, no delay.
    pub const fn sudden_death(base_ms: ClockMillis) -> Period {
        Period {
            moves: None,
            base_ms,
            increment_ms: 0,
            delay_ms: 0,
        }
    }

    /// The same period with a Fischer increment per move.
    pub const fn with_increment(self, increment_ms: ClockMillis) -> Period {
        Period {
            increment_ms,
            ..self
        }
    }

    /// The same period in 6.2 time-delay mode.
    pub const fn with_delay(self, delay_ms: ClockMillis) -> Period {
        Period { delay_ms, ..self }
    }

    /// The move count that ends this period. A zero count (which parsing and `validate` reject)
    /// is read as sudden death so that the clock can neither loop nor divide by zero on it.
    pub(crate) fn control(&self) -> Option<u32> {
        self.moves.filter(|&n| n > 0)
    }

    /// The delay per move; a negative delay (rejected by `validate`) means no delay.
    pub(crate) fn delay(&self) -> i64 {
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
    pub(crate) fn period(&self, index: usize) -> &Period {
        self.periods.get(index).unwrap_or(&NO_PERIOD)
    }

    /// Where a side stands after `moves` completed moves: the index of its current period and
    /// the number of moves it had completed when that period (or, for a repeating last period,
    /// its current repetition) began.
    pub(crate) fn position(&self, moves: u32) -> (usize, u32) {
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

/// A period looks like minutes written where the notation counts seconds (`90+30` is 90
/// seconds; 90 minutes is `5400+30`) when its base time is under a minute (no game is played
/// so), or under five minutes with a move count or with an increment of ten seconds or more
/// (short games have short increments: `180+2` is a real blitz game, `90+30` is not).
const MINUTES_SUSPECTED_BELOW_MS: ClockMillis = 5 * 60 * 1000;
const NO_GAME_BELOW_MS: ClockMillis = 60 * 1000;
const LONG_INCREMENT_MS: ClockMillis = 10 * 1000;
/// Appendices B and C of 2001 (A1 and B1 of 2009): rapid is a fixed time from 15 to 60 minutes
/// for each player, blitz less than 15.
const RAPID_FROM_MS: ClockMillis = 15 * 60 * 1000;
const RAPID_TO_MS: ClockMillis = 60 * 60 * 1000;
/// 2009 A1, B1: "the allotted time + 60 times any increment".
const INCREMENT_MOVES_2009: i64 = 60;

impl TimeControl {
    /// The control in words, for a person checking a configuration: `5400+30` is "90 minutes
    /// plus 30 seconds per move from move 1", `40/7200:3600` "40 moves in 2 hours, then 1 hour
    /// for the rest of the game".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let mut first_move: u32 = 1;
        let single = self.periods.len() == 1;
        let last = self.periods.len().saturating_sub(1);
        for (i, p) in self.periods.iter().enumerate() {
            let time = duration_words(p.base_ms);
            let mut words = match p.moves {
                None if single => format!("{time} for the whole game"),
                None => format!("{time} for the rest of the game"),
                // The last period repeats (see [`TimeControl`]).
                Some(n) if i == last => {
                    format!("{n} moves in {time}, and again for every {n} moves after")
                }
                Some(n) => format!("{n} moves in {time}"),
            };
            if p.increment_ms > 0 {
                words.push_str(&format!(
                    " plus {} per move from move {first_move}",
                    duration_words(p.increment_ms)
                ));
            }
            if p.delay_ms > 0 {
                words.push_str(&format!(
                    ", each move first using a delay of {} that is not saved (6.2 b)",
                    duration_words(p.delay_ms)
                ));
            }
            parts.push(words);
            first_move = first_move.saturating_add(p.moves.unwrap_or(0));
        }
        parts.join(", then ")
    }

    /// A warning when a base time is so short that minutes were probably meant (the notation
    /// counts seconds), with the control written in seconds as it would then be.
    pub fn minutes_suspected(&self) -> Option<String> {
        let suspicious = |p: &Period| {
            p.base_ms < NO_GAME_BELOW_MS
                || (p.base_ms < MINUTES_SUSPECTED_BELOW_MS
                    && (p.moves.is_some() || p.increment_ms >= LONG_INCREMENT_MS))
        };
        if !self.periods.iter().any(suspicious) {
            return None;
        }
        let as_minutes = TimeControl {
            periods: self
                .periods
                .iter()
                .map(|p| Period {
                    base_ms: p.base_ms.saturating_mul(60),
                    ..*p
                })
                .collect(),
        };
        Some(format!(
            "'{self}' gives {}: the notation counts seconds; if minutes were meant, write '{}' \
             ({})",
            self.describe(),
            as_minutes,
            as_minutes.describe()
        ))
    }

    /// What the Laws call a game under this control: rapid or blitz when all the moves are
    /// made in one fixed time (2001 Appendices B 1 and C 1: from 15 to 60 minutes, or less than
    /// 15; 2009 A1 and B1 count the time plus 60 times the increment), else standard.
    pub fn pace(&self, edition: super::Edition) -> super::PlayMode {
        use super::{Edition, PlayMode};
        let [period] = self.periods.as_slice() else {
            return PlayMode::Standard;
        };
        if period.moves.is_some() {
            return PlayMode::Standard;
        }
        let total = match edition {
            Edition::Fide2001 => period.base_ms,
            Edition::Fide2009 => period
                .base_ms
                .saturating_add(period.increment_ms.saturating_mul(INCREMENT_MOVES_2009)),
        };
        if total < RAPID_FROM_MS {
            PlayMode::Blitz
        } else if total <= RAPID_TO_MS {
            PlayMode::Rapid
        } else {
            PlayMode::Standard
        }
    }
}

/// A duration in words: whole hours as hours, whole minutes as minutes, else seconds.
pub fn duration_words(ms: ClockMillis) -> String {
    const HOUR: ClockMillis = 3_600_000;
    const MINUTE: ClockMillis = 60_000;
    let unit =
        |n: ClockMillis, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if ms > 0 && ms % HOUR == 0 {
        unit(ms / HOUR, "hour", "hours")
    } else if ms > 0 && ms % MINUTE == 0 {
        unit(ms / MINUTE, "minute", "minutes")
    } else if ms == 1000 {
        "1 second".to_string()
    } else {
        format!("{} seconds", seconds(ms))
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
    let frac_ms: ClockMillis = format!("{frac:0<3}").parse().map_err(|_| too_large())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1000;

    fn tc(text: &str) -> TimeControl {
        TimeControl::parse(text).expect("test control parses")
    }

    fn err(text: &str) -> String {
        TimeControl::parse(text)
            .expect_err("test control must be rejected")
            .to_string()
    }

    // --- in words -----------------------------------------------------------------------------

    #[test]
    fn a_control_is_described_in_words() {
        assert_eq!(
            tc("5400+30").describe(),
            "90 minutes for the whole game plus 30 seconds per move from move 1"
        );
        assert_eq!(
            tc("40/7200:3600").describe(),
            "40 moves in 2 hours, then 1 hour for the rest of the game"
        );
        assert_eq!(
            tc("40/5400+30:1800+30").describe(),
            "40 moves in 90 minutes plus 30 seconds per move from move 1, then 30 minutes for \
             the rest of the game plus 30 seconds per move from move 41"
        );
        assert_eq!(
            tc("40/7200:20/3600").describe(),
            "40 moves in 2 hours, then 20 moves in 1 hour, and again for every 20 moves after"
        );
        assert_eq!(tc("300").describe(), "5 minutes for the whole game");
        assert_eq!(tc("90.5").describe(), "90.5 seconds for the whole game");
        assert!(tc("5400d5").describe().contains("delay of 5 seconds"));
    }

    #[test]
    fn a_control_that_looks_like_minutes_is_warned_about() {
        let warning = tc("90+30")
            .minutes_suspected()
            .expect("90 seconds is suspicious");
        assert!(
            warning.contains("90 seconds")
                && warning.contains("counts seconds")
                && warning.contains("'5400+30'")
                && warning.contains("90 minutes"),
            "{warning}"
        );
        assert!(tc("40/120:60").minutes_suspected().is_some());
        assert!(tc("25+10").minutes_suspected().is_some());
        assert!(tc("45").minutes_suspected().is_some());
        for fine in ["5400+30", "300+2", "180+2", "60+1", "40/7200:3600", "900"] {
            assert_eq!(tc(fine).minutes_suspected(), None, "{fine}");
        }
    }

    #[test]
    fn appendix_b_1_and_c_1_rapid_and_blitz_by_their_time() {
        use crate::rules::{Edition::*, PlayMode::*};
        for (text, edition, pace) in [
            ("5400+30", Fide2001, Standard),
            ("3600", Fide2001, Rapid),
            ("900", Fide2001, Rapid),
            ("899", Fide2001, Blitz),
            ("300+3", Fide2001, Blitz),
            ("3601", Fide2001, Standard),
            ("40/1800", Fide2001, Standard),
            ("20/1800:900", Fide2001, Standard),
            // 2009 A1, B1: time + 60 x increment.
            ("3600+30", Fide2001, Rapid),
            ("3600+30", Fide2009, Standard),
            ("600+5", Fide2009, Rapid),
            ("180+2", Fide2009, Blitz),
        ] {
            assert_eq!(tc(text).pace(edition), pace, "{text} under {edition:?}");
        }
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
}
