//! tactus-core: the pure core of tactus, the Laws of Chess and their appendix for blind players
//! (Appendix F of the 2001 Laws) at a table with two boards.
//!
//! Nothing here does I/O, reads a clock or needs a runtime: time comes in as an argument, results
//! go out as values (`docs/architecture.md`). The compiler guards it: this crate does not depend on tokio,
//! serial ports, audio or the command line, and `clippy.toml` forbids clock reads and `std::fs`.
//! The `tactus` crate is the shell around it. The modules, from the bottom up: a module uses only
//! those before it in this list (its tests may use any: they stand above everything), and
//! `tests/it/purity.rs` fails when one uses a module after it. A new module takes its place here.
//!
//! - [`rules`]: the Laws: the game, its clock and time controls, claims, dead positions, notation
//!   for people, PGN.
//! - [`folder`]: the game folder's file names, for the core and the shell.
//! - [`board`]: sensor boards: the DGT and line protocol codecs behind one seam per protocol,
//!   profiles, a link's protocol session, move recognition from lift and place events.
//! - [`engine`]: the training opponent's UCI codec and conversation, and an evaluation in words.
//! - [`audit`]: the audit report of a PGN file.
//! - [`commands`]: the console's commands: their list, the roles that may use each, and the words
//!   a voice pack gives them in its language.
//! - [`announce`]: what is said, voice packs and their wording.
//! - [`arbiter`]: Appendix F at the table: two boards, announcements and their timing, execution,
//!   guidance, corrections, retraces. `Arbiter::handle(Input, now) -> Vec<Effect>`.
//! - [`record`]: scoresheets: PGN, Braille, text, WAV, the adjournment envelope, dates.
//! - [`console`]: the assistant's and arbiter's command language: parsing, sessions, answers, wire.
//! - [`table`]: the table around the arbiter: what each seat was told, requests and keypads,
//!   the start, the boards' links, the training seat, the DGT clock, status, a restart, a halt.
//!   `Table::handle(TableInput, now) -> Vec<TableEffect>`.
//! - [`journal`]: the game's journal: its format, reading it back, replaying it.
//! - [`sim`]: simulated boards and people: how hands move pieces, a simulated board's side of the
//!   protocols, the randomized table on virtual time.

pub mod announce;
pub mod arbiter;
pub mod audit;
pub mod board;
pub mod commands;
pub mod console;
pub mod engine;
pub mod folder;
pub mod journal;
pub mod record;
pub mod rules;
pub mod sim;
pub mod table;
