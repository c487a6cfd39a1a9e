//! Support for the integration tests, one module per topic:
//!
//! - [`corpus`]: the chess-data corpus (`../shared/chess-data/`, found by the core tests' finder)
//!   and its games; a missing corpus fails under CI and is a visible skip elsewhere.
//! - [`games`]: games as move lists: SAN in and out, a PGN file for the simulated boards, where a
//!   game ends under the Laws.
//! - [`table`]: a test table on disk: its temporary folder, its configuration file, faster board
//!   profiles, the time control, speech on the null sound device.
//! - [`process`]: the `tactus` binary as a child process the test owns.
//! - [`console`]: one console command over the socket, and reading a `status` reply.
//! - [`record`]: what a game left in its folder: the game folder, its PGN, the transcript's
//!   lines, the clocks the journal charged.
//! - [`inproc`]: the daemon in the test's own process, with console clients.
//! - [`journal`]: what a game's journal replays to: the arbiter's inputs, the requests.
//! - [`pty`]: a linked pseudo-terminal pair made by socat, and skipping where socat is missing.
//! - [`pegged`]: a pegged tactile board the test plays itself, over a real pty pair.
//! - [`line_table`]: a real `tactus run` whose blind player's line-protocol board is on a port
//!   the test provides (its pegged board, the simulated firmware), the sighted player's typed.
//! - [`nobody`]: commands run as a second user (`nobody`), for the tests about trust.
//! - [`net`]: connections from an address of their own (a crowd on one, viewers on another).
//!
//! One test binary (`tests/it/main.rs`) compiles all of it, so a helper nobody uses is dead code
//! and the compiler says so.

pub mod console;
pub mod corpus;
pub mod games;
pub mod inproc;
pub mod journal;
pub mod line_table;
pub mod net;
pub mod nobody;
pub mod pegged;
pub mod process;
pub mod pty;
pub mod record;
pub mod table;
