//! Board simulators, the shell's part: a simulated board served on a real pseudo-terminal
//! ([`serve`], `tactus sim`), and the simulated players' hands behind the daemon's
//! `port = "sim"` ([`players`]). The simulated board's protocol side, the hands' scripts, what a
//! simulated player does next and the randomized table are pure and live in the core
//! (`tactus_core::sim`); `tactus demo`, which runs the daemon on simulated boards, is
//! `crate::demo`, above the daemon.

pub mod players;
pub mod serve;
