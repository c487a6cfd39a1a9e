//! tactus: over-the-board tournament chess for blind and visually impaired players, under the FIDE
//! Laws of Chess and their appendix for blind players (Appendix F of the 2001 Laws).
//!
//! Two crates. The pure core, `tactus_core` (`core/`): the Laws, Appendix F at the table, the
//! board codecs and move recognition, announcements, records, the console language, the engine's
//! conversation, the journal's format and replay, the pure simulators. This crate is the shell
//! around it: the edges that do I/O, and the commands. A layer uses only those below it.
//!
//! **The shell**
//! - [`output`]: the daemon's lines on standard output and error, never a reason to stop.
//! - [`port`]: a board's serial port, opened with its profile's settings.
//! - [`wall`]: the wall clock (names, the transcript's stamps, the PGN date; never the game's time).
//! - [`config`]: `config.toml`, checked with errors that name the key and the file.
//! - [`store`]: files: atomic writes, the audio scoresheet, voice packs and clips, liblouis.
//! - [`speech`]: the speakers (clips through cpal, text-to-speech) and their queues.
//! - [`sim`]: simulation: simulated boards served on pseudo-terminals, the simulated players'
//!   hands behind `port = "sim"`.
//! - [`daemon`]: the tokio daemon: setting a game up, the hub that owns the arbiter, board
//!   links, the journal, the game folder, the console socket, the simulated players' seat.
//!
//! **The tools** (above the daemon's parts they use):
//! - [`board_test`]: the board-test tool: a board's link joined to a recogniser, live reports.
//! - [`client`]: the console client: the connection to the daemon's socket, one-shot and
//!   interactive sessions.
//! - [`demo`]: `tactus demo`, the daemon on a built-in table of simulated boards.
//!
//! **The commands**: [`cli`], one file per `tactus` subcommand (its arguments and the call).

pub mod output;
pub mod port;
pub mod wall;
pub mod web;

pub mod config;
pub mod daemon;
pub mod sim;
pub mod speech;
pub mod store;

pub mod board_test;
pub mod client;
pub mod demo;

pub mod cli;
