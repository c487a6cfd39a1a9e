//! The simulators' random numbers: one small generator, the same everywhere, so that a run is
//! replayed exactly from its seed. The table, the simulated players and the simulated boards'
//! line noise draw from it, and so do the shell's tests and benchmarks that want a fixed
//! pseudo-random sequence (line noise, garbage on the console, a long game). No cryptographic
//! use.

/// SplitMix64: small, fast, and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// Uniform in [0, n) (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Uniform in [lo, hi].
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
    /// An index into a slice of `len` items: uniform in [0, len) (len > 0).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
    /// Fills `bytes` with random bytes.
    pub fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_the_same_everywhere() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert!((0..1000).all(|_| a.unit() < 1.0));
        assert!((0..1000).all(|_| (3..=9).contains(&a.between(3, 9))));
        assert!((0..1000).all(|_| a.index(5) < 5));
    }

    #[test]
    fn filled_bytes_come_from_the_sequence_and_vary() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut bytes = [0u8; 20];
        a.fill(&mut bytes);
        let words: Vec<u8> = (0..3).flat_map(|_| b.next_u64().to_le_bytes()).collect();
        assert_eq!(bytes[..], words[..20]);
        assert_eq!(
            a.next_u64(),
            b.next_u64(),
            "a short last chunk takes one word"
        );
        let mut many = [0u8; 4096];
        a.fill(&mut many);
        let mut seen = [false; 256];
        many.iter().for_each(|&x| seen[x as usize] = true);
        assert!(
            seen.iter().all(|&s| s),
            "every byte value in 4 KiB of noise"
        );
    }
}
