//! Board simulators, the shell's part: a simulated board served on a real pseudo-terminal
//! ([`serve`], `tactus sim`). The simulated board's protocol side, the hands and the randomized
//! table are pure and live in the core (`tactus_core::sim`).

pub mod serve;
