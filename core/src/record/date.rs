//! Calendar dates and times of day for the record: the PGN `Date` tag, folder names, the
//! transcript's time stamps. Pure arithmetic on numbers the shell reads from the wall clock.

use std::time::Duration;

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
    fn dates_are_civil() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC
        assert_eq!(civil(1_709_210_096_000), (2024, 2, 29, 12, 34, 56));
        assert_eq!(pgn_date(1_709_210_096_000), "2024.02.29");
    }
}
