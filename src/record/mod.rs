//! The renderers of the game record: PGN, Braille, text and WAV (the audio scoresheet that
//! Appendix F.5 allows the blind player to keep).
//!
//! Rendering is pure: a record goes in, bytes or samples come out. The only I/O here is in the
//! writer types that say so in their names and docs (such as [`wav::AudioScoresheet`], which
//! appends to a file as the game goes); they hold no game state of their own.

pub mod wav;
