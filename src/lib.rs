//! tactus: over-the-board tournament chess for blind and visually impaired players, under the FIDE
//! Laws of Chess and their appendix for blind players (Appendix F of the 2001 Laws).
//!
//! One library and a thin binary (`src/main.rs`, the list of commands). The layers, from the
//! bottom up; a layer uses only those below it.
//!
//! **The core, pure**: no I/O, no clock reads, no runtime (time comes in as an argument, results
//! go out as values; `tests/purity.rs` keeps it so).
//! - [`rules`]: the Laws: the game, its clock and time controls, claims, dead positions, notation
//!   for people, PGN.
//! - [`board`]: sensor boards: the DGT and line protocol codecs, profiles, a link's protocol
//!   session, move recognition from lift and place events.
//! - [`arbiter`]: Appendix F at the table: two boards, announcements and their timing, execution,
//!   guidance, corrections, retraces. `Arbiter::handle(Input, now) -> Vec<Effect>`.
//! - [`announce`]: what is said, voice packs and their wording.
//! - [`record`]: scoresheets: PGN, Braille, text, WAV, the adjournment envelope.
//! - [`console`]: the assistant's and arbiter's command language: parsing, roles, answers, wire.
//! - [`sim`]: simulated boards and people: how hands move pieces, the simulated board's side of
//!   the protocol, the randomized table on virtual time (`sim::serve` is its tokio loop).
//! - [`audit`]: the audit report of a PGN file.
//! - [`engine`]: the training opponent's UCI conversation (the engine's process is the shell's),
//!   and an evaluation in words.
//!
//! **The shell**: the edges that do I/O.
//! - [`config`]: `config.toml`, checked with errors that name the key and the file.
//! - [`store`]: files: atomic writes, the audio scoresheet, voice packs and clips, liblouis.
//! - [`speech`]: the speakers (clips through cpal, text-to-speech) and their queues.
//! - [`daemon`]: the tokio daemon: setting a game up, the hub that owns the arbiter, board
//!   links, the journal, the game folder, the console socket, the simulated players.
//!
//! **The commands**: [`cli`], one file per `tactus` subcommand.

pub mod announce;
pub mod arbiter;
pub mod audit;
pub mod board;
pub mod console;
pub mod engine;
pub mod record;
pub mod rules;
pub mod sim;

pub mod config;
pub mod daemon;
pub mod speech;
pub mod store;

pub mod cli;
