//! A DGT board's sweep: its electronics sample the 64 fields one after another, in the board's
//! own numbering (a8 = 0 to h1 = 63, as seen from White when the board lies the normal way round),
//! over and over, a whole sweep taking 190-250 ms (about 3 ms a field). A change is found when its
//! field is next sampled, so the board reports a move's halves in either order, a square a slid
//! piece passed over can show for a whole sweep, and a quick touch may never be seen. The
//! randomized table ([`super::table`]) and the simulated board on a pty ([`super::board`]) share
//! this model.

use crate::rules::Millis;

/// One board's sweep: how long it takes and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sweep {
    /// The time a whole sweep takes (greater than zero).
    pub period_ms: Millis,
    /// When (modulo the period) field 0 is sampled.
    pub offset_ms: Millis,
}

impl Sweep {
    /// When the sweep next samples `field` (0-63, the board's numbering) at or after `now`.
    pub fn next_sample(&self, field: u8, now: Millis) -> Millis {
        let period = self.period_ms.max(1);
        let phase = (self.offset_ms + u64::from(field) * period / 64) % period;
        let into = now % period;
        let wait = (phase + period - into) % period;
        now + wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_is_sampled_once_a_sweep_in_order() {
        let sweep = Sweep {
            period_ms: 224,
            offset_ms: 50,
        };
        // Field 0 at the offset, field 32 half a sweep later, each again a sweep later.
        assert_eq!(sweep.next_sample(0, 0), 50);
        assert_eq!(sweep.next_sample(0, 50), 50);
        assert_eq!(sweep.next_sample(0, 51), 274);
        assert_eq!(sweep.next_sample(32, 0), 162);
        // Every field exactly once in any window of one sweep.
        for now in [0, 13, 224, 1_000] {
            let mut times: Vec<Millis> = (0..64).map(|f| sweep.next_sample(f, now)).collect();
            assert!(times.iter().all(|&t| t >= now && t < now + 224));
            times.sort_unstable();
            times.dedup();
            assert_eq!(times.len(), 64);
        }
    }
}
