//! Board simulators, the pure part: play a game on a simulated sensor board, in the ways real
//! hands do.
//!
//! [`script`] turns a move into the lift and place events a person produces on a board, in a
//! chosen style (capture order, castling order, en passant order, sensor bounce, DGT reordering
//! and sliding). It serves both the recognition tests and the simulators that speak the real
//! protocols over a pseudo-terminal: [`board`] is a simulated sensor board speaking any protocol
//! through the protocol's own side of the line (`board::protocol`), as bytes in and bytes out (the
//! shell serves it on a pty); [`clock`] is a DGT 3000 on
//! such a board, obeying the clock commands and running its own times from them. [`player`]
//! decides what a simulated player at the daemon's table does next (the shell's hands only sleep
//! and send). [`table`] puts two
//! boards, two players, speech and the arbiter around the pure arbiter on virtual time, for the
//! randomized table test; [`sweep`] is how a DGT board samples its squares, for both. [`hands`] drives the move recogniser with scripted events on virtual
//! time, for the recogniser's tests and its benchmark. [`appendix_e`] is the demo's game.
//!
//! [`Rng`] is the one seeded generator they all draw from, and the shell's tests and benchmarks
//! too; [`long_game`] is a game of pseudo-random legal moves of a given length, from it.

pub mod appendix_e;
pub mod board;
pub mod clock;
pub mod hands;
pub mod player;
pub mod random_game;
mod rng;
pub mod script;
pub mod sweep;
pub mod table;

pub use random_game::long_game;
pub use rng::Rng;
