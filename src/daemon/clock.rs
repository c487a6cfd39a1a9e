//! The shell's monotonic clock, on tokio's clock: milliseconds since the program (or a test)
//! started it. The pure core never reads a clock; it gets these numbers with every event and
//! deadline. On tokio's clock, an in-process daemon under `tokio::time::pause` runs on virtual
//! time, exactly.

use std::time::Duration;

use tokio::time::Instant;

use tactus_core::rules::Millis;

/// The shell's monotonic clock: milliseconds since it started. The pure
/// core never reads a clock; it gets these numbers with every event and deadline.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    start: Instant,
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl MonotonicClock {
    pub fn new() -> MonotonicClock {
        MonotonicClock {
            start: Instant::now(),
        }
    }

    /// Milliseconds since the clock started.
    pub fn now(&self) -> Millis {
        self.millis_at(Instant::now())
    }

    /// The clock's reading at `instant` (0 for instants before its start).
    pub fn millis_at(&self, instant: Instant) -> Millis {
        // u64 milliseconds cover 584 million years; the cast cannot truncate in practice.
        instant.saturating_duration_since(self.start).as_millis() as Millis
    }

    /// The instant a reading stands for, for timers.
    pub fn instant(&self, at: Millis) -> Instant {
        self.start + Duration::from_millis(at)
    }
}
