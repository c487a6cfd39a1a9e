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

/// A rate a board's events are taken at: `capacity` at once, then one per `every_ms` (a token
/// bucket). A chattering board (a stuck button, a sensor toggling) is cut down to this before
/// anything of it reaches the journal, the transcript or speech.
#[derive(Debug, Clone)]
pub struct Bucket {
    capacity: u32,
    every_ms: Millis,
    tokens: u32,
    /// When the last token was counted in.
    filled: Millis,
}

impl Bucket {
    pub fn new(capacity: u32, every_ms: Millis) -> Bucket {
        Bucket {
            capacity,
            every_ms,
            tokens: capacity,
            filled: 0,
        }
    }

    /// Whether an event at `now` is taken.
    pub fn take(&mut self, now: Millis) -> bool {
        if now > self.filled {
            let earned = (now - self.filled) / self.every_ms.max(1);
            if earned > 0 {
                self.tokens = (self.tokens as u64 + earned).min(self.capacity as u64) as u32;
                self.filled += earned * self.every_ms.max(1);
                if self.tokens == self.capacity {
                    self.filled = now;
                }
            }
        }
        if self.tokens > 0 {
            self.tokens -= 1;
            true
        } else {
            false
        }
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
    fn a_bucket_takes_a_burst_then_its_rate() {
        let mut b = Bucket::new(4, 250);
        let taken = (0..5_000).filter(|_| b.take(1_000)).count();
        assert_eq!(taken, 4, "a burst of four");
        // Then one each 250 ms: 40 over ten seconds of pressing every millisecond.
        let taken = (1_001..11_001).filter(|&t| b.take(t)).count();
        assert_eq!(taken, 40);
        // A quiet while fills it again, to its capacity only.
        let taken = (0..100).filter(|_| b.take(60_000)).count();
        assert_eq!(taken, 4);
    }

    #[test]
    fn the_words_say_how_many_were_held() {
        assert_eq!(held_words(0), "");
        assert!(held_words(12).contains("12 more like it"));
    }
}
