//! Calendar dates and times of day for the record: the PGN `Date` tag, folder names, the
//! transcript's time stamps, and the date of an instant of the game's time line ([`Calendar`]).
//! Pure arithmetic on numbers the shell reads from the wall clock.

use std::time::Duration;

use crate::rules::Millis;

const MS_PER_DAY: u128 = 24 * 60 * 60 * 1000;

/// A calendar date and time (UTC) from Unix milliseconds: (year, month, day, h, m, s).
pub fn civil(unix_ms: u64) -> (i64, u32, u32, u32, u32, u32) {
    let secs = (unix_ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = if m <= 2 { y + 1 } else { y };
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem / 60 % 60) as u32,
        (rem % 60) as u32,
    )
}

/// The PGN `Date` of a Unix time (`2026.11.30`).
pub fn pgn_date(unix_ms: u64) -> String {
    let (y, m, d, ..) = civil(unix_ms);
    format!("{y:04}.{m:02}.{d:02}")
}

/// `HH:MM:SS.mmm` for a time of day given as the time since midnight (wrapped at 24 h).
pub fn format_time_of_day(since_midnight: Duration) -> String {
    let ms = since_midnight.as_millis() % MS_PER_DAY;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Where the game's time line stood on the calendar: the Unix time of some of its instants, so
/// that a time on the line (when a move was sealed) becomes a date. The line counts only the time
/// a daemon ran the game (a resumed game goes on from its journal's last time), so each stretch
/// of it has its own distance to the calendar: every journaled input carries both its time on
/// the line and its Unix time, and the running daemon knows both for now. A time is dated from
/// the last instant known before it (the first one known, for a time before them all). Where one
/// stretch ends the next begins, at the same time on the line: that instant is the earlier
/// stretch's, for what was journaled at it (a sealed move, the last input before a stop) happened
/// then.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calendar {
    /// (time on the line, Unix ms), in the line's order; one per stretch, or per step of the
    /// wall clock within one.
    marks: Vec<(Millis, u64)>,
}

/// How far a mark may stand from where the last one puts it and still add nothing: the two
/// clocks (the time line is monotonic, the calendar is the wall clock) drift apart by less in a
/// stretch; a restart or a step of the wall clock moves it by more.
const SAME_STRETCH_MS: u64 = 1_000;

impl Calendar {
    /// A calendar that knows these instants, `(time on the line, Unix ms)` in the line's order
    /// (a journal's inputs, `t` and `wall`).
    pub fn from_marks(marks: impl IntoIterator<Item = (Millis, u64)>) -> Calendar {
        let mut calendar = Calendar::default();
        for (t, unix_ms) in marks {
            calendar.mark(t, unix_ms);
        }
        calendar
    }

    /// The time line stood at `t` at the Unix time `unix_ms`. Marks come in the line's order; one
    /// that the calendar already dates to within a second is not kept.
    pub fn mark(&mut self, t: Millis, unix_ms: u64) {
        match self.marks.last() {
            // Behind the last: the line is monotonic, so this is no news of a later stretch.
            Some(&(last_t, _)) if t < last_t => {}
            Some(_) if self.date(t).abs_diff(unix_ms) <= SAME_STRETCH_MS => {}
            _ => self.marks.push((t, unix_ms)),
        }
    }

    /// The Unix time of `t` on the line, in milliseconds; None while no instant is known.
    pub fn unix_ms(&self, t: Millis) -> Option<u64> {
        (!self.marks.is_empty()).then(|| self.date(t))
    }

    /// [`Calendar::unix_ms`] with at least one mark.
    fn date(&self, t: Millis) -> u64 {
        let before = self.marks.partition_point(|&(mark_t, _)| mark_t < t);
        let (mark_t, mark_unix) = self.marks[before.saturating_sub(1)];
        if t >= mark_t {
            mark_unix.saturating_add(t - mark_t)
        } else {
            mark_unix.saturating_sub(mark_t - t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hms(h: u64, m: u64, s: u64, ms: u64) -> Duration {
        Duration::from_millis(((h * 60 + m) * 60 + s) * 1000 + ms)
    }

    #[test]
    fn times_of_day_are_zero_padded_with_milliseconds() {
        assert_eq!(format_time_of_day(Duration::ZERO), "00:00:00.000");
        assert_eq!(format_time_of_day(hms(9, 5, 7, 42)), "09:05:07.042");
        assert_eq!(format_time_of_day(hms(23, 59, 59, 999)), "23:59:59.999");
        assert_eq!(
            format_time_of_day(hms(24, 0, 1, 0)),
            "00:00:01.000",
            "wraps at midnight"
        );
        // Sub-millisecond parts are truncated, not rounded up into the next second.
        assert_eq!(
            format_time_of_day(hms(1, 2, 3, 999) + Duration::from_micros(999)),
            "01:02:03.999"
        );
    }

    #[test]
    fn a_time_on_the_line_is_dated_from_its_own_stretch() {
        assert_eq!(Calendar::default().unix_ms(5), None);
        // A first run from 10:00:00 (line 0), stopped at line 60 s; resumed an hour later.
        let ten = 1_764_000_000_000;
        let hour = 3_600_000;
        let mut calendar =
            Calendar::from_marks([(0, ten), (30_000, ten + 30_000), (60_000, ten + 60_000)]);
        calendar.mark(60_000, ten + hour + 60_000);
        calendar.mark(90_000, ten + hour + 90_000 + 400);
        assert_eq!(
            calendar.marks.len(),
            2,
            "one mark per stretch: {:?}",
            calendar.marks
        );
        assert_eq!(
            calendar.unix_ms(45_000),
            Some(ten + 45_000),
            "in the first run"
        );
        assert_eq!(
            calendar.unix_ms(60_000),
            Some(ten + 60_000),
            "where the first ended and the second began: the first's"
        );
        assert_eq!(calendar.unix_ms(60_001), Some(ten + hour + 60_001));
        assert_eq!(calendar.unix_ms(120_000), Some(ten + hour + 120_000));
        // Out of the line's order: nothing new.
        calendar.mark(10_000, 0);
        assert_eq!(calendar.unix_ms(10_000), Some(ten + 10_000));
        // Before every mark known: counted back from the first.
        let later = Calendar::from_marks([(10_000, ten)]);
        assert_eq!(later.unix_ms(4_000), Some(ten - 6_000));
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC
        assert_eq!(civil(1_709_210_096_000), (2024, 2, 29, 12, 34, 56));
        assert_eq!(pgn_date(1_709_210_096_000), "2024.02.29");
    }
}
