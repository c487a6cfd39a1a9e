//! The renderers of the game record: PGN, Braille, text and WAV (the audio scoresheet that
//! Appendix F.5 allows the blind player to keep).
//!
//! Pure: a record goes in, bytes or samples come out; no files, no processes, no clock. Writing
//! them (atomically, the audio file as the game goes, liblouis, `tactus scoresheet`) is the
//! shell's (the `tactus` crate's `store`).
//!
//! The written scoresheets share one model, [`score::Score`] (built from a PGN game, a game in
//! play, or a Braille score read back), and one entry point, [`format::render`]:
//! * [`braille`]: the blind player's score in chess Braille, BRF and Unicode, and reading it back;
//! * [`text`]: the printable two-column scoresheet for the arbiter;
//! * PGN through the rules module's writer ([`score::Score::to_pgn`]);
//! * [`date`]: calendar dates and times of day (the PGN `Date`, the transcript's stamps).

pub mod braille;
pub mod date;
pub mod envelope;
pub mod format;
pub mod score;
pub mod text;
pub mod wav;
