//! The renderers of the game record: PGN, Braille, text and WAV (the audio scoresheet that
//! Appendix F.5 allows the blind player to keep).
//!
//! Rendering is pure: a record goes in, bytes or samples come out. The only I/O here is in the
//! writer types that say so in their names and docs (such as [`wav::AudioScoresheet`], which
//! appends to a file as the game goes); they hold no game state of their own.
//!
//! The written scoresheets share one model, [`score::Score`] (built from a PGN game, a game in
//! play, or a Braille score read back), and one entry point, [`format::render`]:
//! * [`braille`]: the blind player's score in chess Braille, BRF and Unicode, and reading it back;
//! * [`text`]: the printable two-column scoresheet for the arbiter;
//! * PGN through the rules module's writer ([`score::Score::to_pgn`]).
//!
//! The other I/O pieces, each named for it: [`atomic`] (replace a file whole, never half),
//! [`louis`] (optional liblouis for the header's names) and [`cli`] (`tactus scoresheet`).

pub mod atomic;
pub mod braille;
pub mod cli;
pub mod format;
pub mod louis;
pub mod score;
pub mod text;
pub mod wav;
