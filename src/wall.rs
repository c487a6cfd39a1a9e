//! The wall clock: the shell's only reads of the time of day, for folder names, the journal's
//! `wall` field, the PGN `Date` and the transcript's time stamps. Never for the game: its time
//! line is the monotonic clock (`daemon::clock`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tactus_core::record::date::format_time_of_day;

/// The Unix time in milliseconds.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// The wall clock's time of day in UTC (std has no time zones; a caller that knows the local
/// offset passes its own clock).
pub fn utc_time_of_day() -> Duration {
    Duration::from_millis(unix_ms() % 86_400_000)
}

/// The time of day for log lines (`HH:MM:SS.mmm`, UTC, as the transcript).
pub fn time_of_day() -> String {
    format_time_of_day(utc_time_of_day())
}
