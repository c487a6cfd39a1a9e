//! The blind player's score in Braille (Appendix F.5): chess cells written from the move model,
//! laid out in pages as BRF (North American Braille ASCII, for embossers and note-takers) or as
//! Unicode Braille text (for refreshable displays and screen readers), and read back into moves.
//!
//! Chess moves are not literary text: running SAN through a literary table gives number and
//! capital signs no chess player reads. So the score is built cell by cell: files as letters,
//! ranks and move numbers as lower-cell digits, piece letters and marks from a [`Profile`] (a data
//! table, `profiles.toml`). Only the header's free text (event, names) is literary Braille.
//!
//! * [`cell`]: the cell and its BRF and Unicode forms;
//! * [`profile`]: the profile table;
//! * [`coding`]: one move to cells and back, each written move proven by reading it back;
//! * [`literary`]: the header's free text, uncontracted, built in;
//! * [`layout`]: the score as pages (header, running head with the page number, moves never split);
//! * [`read`]: a whole score, rendered or typed on a note-taker, back into moves.
//!
//! Everything here is pure; the one optional helper that runs liblouis lives in
//! `store::louis` in the shell (the `tactus` crate).

pub mod cell;
pub mod coding;
pub mod layout;
pub mod literary;
pub mod profile;
pub mod read;

pub use cell::Cell;
pub use coding::{Marks, MoveError, read_move, write_move};
pub use layout::{BrailleOptions, Document, LayoutError, PageSize, render, render_with};
pub use profile::{DEFAULT_PROFILE, Profile, ProfileError};
pub use read::{BrailleFormat, ReadError, read_score};
