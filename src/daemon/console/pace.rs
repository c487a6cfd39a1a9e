//! How fast one console may ask the game: a token bucket per connection. Every command the hub
//! carries out (but `status`, which changes nothing and is written nowhere) is journaled and
//! written to the transcript, so a keypad that floods (a stuck key, a script: `time` 2,000 times a
//! second, `moves all`) grew both files by megabytes a second. A console may ask in bursts (a
//! person pressing keys, a script entering moves), then at a steady pace; beyond it a command is
//! refused before the hub hears of it (nothing journaled, nothing said), and the console is told
//! why once per flood, each further refusal of the same flood said in a word. A blind player's
//! keypad is the one exception the connection makes: the first refusal of a flood goes to the
//! hub, to be said to him in his words (one line journaled per flood), and each further one
//! repeats that line.

use std::time::Duration;

use tokio::time::Instant;

use tactus_core::console::Role;

/// The blind player's keypad: a person pressing keys asks a few things a second at most; the
/// burst leaves room for a script that tries every command at a keypad (the tests do), and
/// bounds a flood to a few dozen kilobytes before the pace bites.
pub const KEYPAD_BURST: u32 = 80;
pub const KEYPAD_PER_SECOND: u32 = 5;
/// The assistant's and the arbiter's consoles: a script may enter a game's moves at once.
pub const STAFF_BURST: u32 = 100;
pub const STAFF_PER_SECOND: u32 = 20;

/// A connection's pace: how many commands it may send now, refilled with time.
#[derive(Debug)]
pub struct Pace {
    /// Commands it may send now, in thousandths (refilled by the millisecond).
    milli_tokens: u64,
    last: Instant,
    /// Whether this flood has been told: its further refusals are said in a word.
    told: bool,
    /// Refused since the flood began.
    refused: u64,
}

/// What becomes of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Carried out.
    Go,
    /// Refused, with what to say: the whole reason at the first refusal of a flood, a word
    /// after.
    Refused(String),
}

impl Pace {
    pub fn new(now: Instant) -> Pace {
        Pace {
            milli_tokens: u64::from(STAFF_BURST) * 1000,
            last: now,
            told: false,
            refused: 0,
        }
    }

    /// The pace of a console in `role`: (burst, per second).
    fn limits(role: Role) -> (u32, u32) {
        match role {
            Role::Player => (KEYPAD_BURST, KEYPAD_PER_SECOND),
            _ => (STAFF_BURST, STAFF_PER_SECOND),
        }
    }

    /// A command from a console in `role` at `now`: carried out, or refused for its pace.
    pub fn take(&mut self, role: Role, now: Instant) -> Verdict {
        let (burst, rate) = Pace::limits(role);
        let elapsed = now.saturating_duration_since(self.last);
        self.last = now;
        let full = u64::from(burst) * 1000;
        let refill = (elapsed.as_millis() as u64).saturating_mul(u64::from(rate));
        self.milli_tokens = self.milli_tokens.saturating_add(refill).min(full);
        if self.milli_tokens >= 1000 {
            self.milli_tokens -= 1000;
            if self.told && self.milli_tokens >= full / 2 {
                // The pace fell back: a new flood is told again.
                self.told = false;
                self.refused = 0;
            }
            return Verdict::Go;
        }
        self.refused += 1;
        if self.told {
            return Verdict::Refused(format!(
                "too fast: refused, nothing was done ({} since this console was told)",
                self.refused
            ));
        }
        self.told = true;
        let wait = Duration::from_millis(1000 / u64::from(rate));
        Verdict::Refused(format!(
            "this console asks faster than the game takes it ({burst} at once, then {rate} a \
             second): this command and every other beyond that pace are refused, not carried \
             out, journaled or said, until it slows down (one every {} s is always taken); this \
             is said once, each further refusal in a word",
            wait.as_secs_f64()
        ))
    }

    /// Whether a flood is going on (told, not yet over): for the log, once per flood.
    pub fn flooding(&self) -> bool {
        self.told
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_taken_then_the_pace_and_the_flood_is_told_once() {
        let t0 = Instant::now();
        let mut pace = Pace::new(t0);
        let verdicts: Vec<Verdict> = (0..KEYPAD_BURST + 5)
            .map(|_| pace.take(Role::Player, t0))
            .collect();
        assert!(
            verdicts[..KEYPAD_BURST as usize]
                .iter()
                .all(|v| *v == Verdict::Go)
        );
        let refused: Vec<&String> = verdicts
            .iter()
            .filter_map(|v| match v {
                Verdict::Refused(why) => Some(why),
                Verdict::Go => None,
            })
            .collect();
        assert_eq!(refused.len(), 5);
        assert!(refused[0].contains("faster than the game takes it"));
        assert!(refused[1..].iter().all(|w| w.starts_with("too fast")));
        // A fifth of a second later, one more is taken.
        assert_eq!(
            pace.take(Role::Player, t0 + Duration::from_millis(200)),
            Verdict::Go
        );
        // Quiet long enough, the bucket is full again and a new flood is told again.
        let later = t0 + Duration::from_secs(u64::from(KEYPAD_BURST / KEYPAD_PER_SECOND) + 1);
        for _ in 0..KEYPAD_BURST {
            assert_eq!(pace.take(Role::Player, later), Verdict::Go);
        }
        match pace.take(Role::Player, later) {
            Verdict::Refused(why) => assert!(why.contains("faster than"), "{why}"),
            Verdict::Go => panic!("over the burst"),
        }
    }
}
