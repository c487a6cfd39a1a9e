//! Repeated reports counted, not repeated: at most one log line a second per kind of fault, the
//! next one saying how many were not logged. A board sending line noise at its full rate made a
//! WARN line for every framing error (6.3 MB of noise: 1.55 million lines, 447 MB), which under
//! journald hits the rate limit and hides the warnings that matter. Pure: the caller passes the
//! time.

use crate::rules::Millis;

/// The window of one logged line per kind.
pub const WINDOW_MS: Millis = 1_000;

/// One kind of repeated report.
#[derive(Debug, Clone, Default)]
pub struct Throttle {
    /// When the last line was let through.
    last: Option<Millis>,
    /// Reports since then that were not.
    held: u64,
}

impl Throttle {
    /// A report at `now`: `Some(n)` if it is to be logged, `n` being how many since the last
    /// logged one were not; None if it is only counted.
    pub fn admit(&mut self, now: Millis) -> Option<u64> {
        match self.last {
            Some(last) if now < last + WINDOW_MS => {
                self.held += 1;
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held))
            }
        }
    }

    /// At `now`, the count of reports not logged, once the window they fell in has passed (for a
    /// summary line when the reports stop), else None.
    pub fn summary(&mut self, now: Millis) -> Option<u64> {
        match self.last {
            Some(last) if self.held > 0 && now >= last + WINDOW_MS => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held))
            }
            _ => None,
        }
    }

    /// When a summary is due (reports are held), for the caller's deadline.
    pub fn due(&self) -> Option<Millis> {
        (self.held > 0).then(|| self.last.unwrap_or(0) + WINDOW_MS)
    }
}

/// The words added to a logged line for the reports held before it.
pub fn held_words(held: u64) -> String {
    if held == 0 {
        String::new()
    } else {
        format!(" ({held} more like it in the last second, not logged one by one)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_is_one_line_a_second_with_the_count() {
        let mut t = Throttle::default();
        assert_eq!(t.admit(0), Some(0));
        let logged: Vec<_> = (1..5_000).filter_map(|ms| t.admit(ms / 10)).collect();
        // 5,000 reports over half a second: none more logged, all counted.
        assert!(logged.is_empty());
        assert_eq!(t.due(), Some(1_000));
        assert_eq!(t.summary(999), None);
        assert_eq!(t.summary(1_000), Some(4_999));
        assert_eq!(t.summary(5_000), None);
        assert_eq!(t.due(), None);
        // After a quiet second, the next is logged at once.
        assert_eq!(t.admit(2_500), Some(0));
        assert_eq!(t.admit(2_600), None);
        assert_eq!(t.admit(3_500), Some(1));
    }

    #[test]
    fn the_words_say_how_many_were_held() {
        assert_eq!(held_words(0), "");
        assert!(held_words(12).contains("12 more like it"));
    }
}
