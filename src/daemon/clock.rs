//! The shell's monotonic clock, on tokio's clock: milliseconds since the program (or a test)
//! started it, and the game's time line on top of it ([`GameClock`]: a resumed game goes on
//! from its journal's last time). The pure core never reads a clock; it gets these numbers with
//! every event and deadline. On tokio's clock, an in-process daemon under `tokio::time::pause`
//! runs on virtual time, exactly.

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

/// The game's time line: the shell's [`MonotonicClock`] plus an offset. A resumed game continues the
/// time line of its journal (the offset is the journal's last time), so clocks and settle times
/// go on from where they stood.
#[derive(Debug, Clone, Copy)]
pub struct GameClock {
    pub link: MonotonicClock,
    pub offset: Millis,
}

impl GameClock {
    pub fn now(&self) -> Millis {
        self.link.now() + self.offset
    }
    /// A link's time stamp on the game's time line.
    pub fn from_link(&self, at: Millis) -> Millis {
        at + self.offset
    }
    /// The instant of a game time, for timers.
    pub fn instant(&self, t: Millis) -> tokio::time::Instant {
        self.link.instant(t.saturating_sub(self.offset))
    }
}
