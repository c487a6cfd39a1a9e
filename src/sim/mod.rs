//! Board simulators, the shell's part: a simulated board served on a real pseudo-terminal
//! ([`serve`], `tactus sim`), and the simulated players' hands behind the daemon's
//! `port = "sim"` ([`players`]), and `tactus demo` ([`demo`]: the daemon on a built-in table of
//! simulated boards; it runs the daemon, the others are below it). The simulated board's protocol side, the hands' scripts, what a
//! simulated player does next and the randomized table are pure and live in the core
//! (`tactus_core::sim`).

pub mod demo;
pub mod players;
pub mod serve;
