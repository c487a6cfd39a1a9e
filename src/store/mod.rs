//! Files at the edge of the core: the atomic writer, the audio scoresheet file, the optional
//! liblouis transcription (a child process) and the `tactus scoresheet` command; which folders
//! the daemon trusts, and the game folder held open (`trusted`), whose files are opened relative
//! to it (`at`).
//!
//! The renderers they write are pure and live in [`tactus_core::record`]; this module only touches the
//! file system and processes, so that the core stays free of I/O.

pub mod at;
pub mod atomic;
pub mod audio;
pub mod louis;
pub mod private;
pub mod trusted;
pub mod voices;
