//! Squares, files and ranks as they are typed: `e4`, `E4`, a file's name glued to its rank
//! (`Eva4`), the file names of the announcements (`felix`, `Hektor`) and the German rank words
//! (`vier`, `fünf`).
//!
//! Read by the parser, for a command's arguments, and by the commands' words in other languages
//! ([`super::Words`]), which must not take a word that already reads as a square, a file or a
//! rank: one reading for both, below both.

use shakmaty::{File, Rank, Square};

/// The file names of the announcements (Appendix F) and the usual variants.
const FILE_NAMES: &[(&str, File)] = &[
    ("anna", File::A),
    ("bella", File::B),
    ("cesar", File::C),
    ("caesar", File::C),
    ("david", File::D),
    ("eva", File::E),
    ("felix", File::F),
    ("gustav", File::G),
    ("hector", File::H),
    ("hektor", File::H),
];

/// The German rank words of the announcements.
const RANK_NAMES: &[&str] = &[
    "eins", "zwei", "drei", "vier", "fuenf", "sechs", "sieben", "acht",
];

/// A file: its letter, or its name in the announcements.
pub fn file_word(word: &str) -> Option<File> {
    let word = word.to_lowercase();
    let mut chars = word.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => File::from_char(c),
        _ => FILE_NAMES.iter().find(|(n, _)| *n == word).map(|(_, f)| *f),
    }
}

/// A rank: its digit, or its German word.
pub fn rank_word(word: &str) -> Option<Rank> {
    let word = word.to_lowercase().replace('ü', "ue");
    let mut chars = word.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Rank::from_char(c),
        _ => RANK_NAMES
            .iter()
            .position(|n| *n == word)
            .and_then(|i| Rank::try_from(i).ok()),
    }
}

/// `e4`, `E4`, or a file name glued to the rank (`Eva4`).
pub fn square_word(word: &str) -> Option<Square> {
    let mut chars = word.chars();
    let rank = chars.next_back()?;
    Some(Square::from_coords(
        file_word(chars.as_str())?,
        Rank::from_char(rank)?,
    ))
}
