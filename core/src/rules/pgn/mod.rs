//! Reading and writing game records in PGN (Portable Game Notation).
//!
//! This module owns the translation between PGN text and legal move lists: reading with strict SAN
//! as the PGN standard requires (every move replayed with shakmaty and checked), and writing with
//! the Seven Tag Roster, `[%clk]` comments and `(=)` draw-offer marks. It is pure: it takes bytes
//! and returns values (the command line reads the files), never touches a file or the clock, and
//! never guesses a move (lenient human input is [`super::notation`]'s job).
//!
//! Conventions used throughout:
//!
//! * **game numbers** are 1-based positions in the file;
//! * **ply** of a move = the number of half-moves played in the game before it + 1, counted from
//!   the game's own starting position. From the standard start ply 1 is White's first move; from a
//!   FEN with Black to move ply 1 is Black's move;
//! * a move is named in messages with its PGN move number, `41.` for White and `41...` for Black.
//!
//! Reading relies on pgn-reader for the text: it skips the UTF-8 BOM, comments, NAGs and
//! variations. It drops a token it cannot read (`hello`, `Nz9`, `e.p.`) without telling the
//! visitor, so each game's stretch of text is also scanned here (`read::first_unknown`), and the
//! first such token is an error naming it, its line and its column: a file holding "hello
//! world" is not a game, and an unknown word inside a game is not silently dropped. Tag values
//! and comments that are not UTF-8 are decoded lossily (U+FFFD). The `FEN` tag is honoured with
//! or without `SetUp`, in standard-chess castling mode.
//!
//! Where things live: reading in `read` ([`read_pgn`], [`read_pgn_each`], [`PgnGame`], the
//! errors), writing in `write` ([`write_pgn`] of an [`Export`]); this file holds what both
//! directions share: the `[%clk]` comment ([`format_clk`], [`parse_clk`]), the draw-offer mark
//! and tag lookup.

mod read;
mod write;

#[cfg(test)]
mod tests;

pub use read::{PgnError, PgnErrorKind, PgnGame, read_pgn, read_pgn_each};
pub use write::{Export, ExportMove, write_pgn};

/// The scoresheet's mark for a draw offer (FIDE 9.1 b), written in the offerer's move comment
/// and read back from it.
pub const DRAW_OFFER_MARK: &str = "(=)";

/// The value of the tag `name`, the first one of that name.
fn tag_value<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Milliseconds as `h:mm:ss`, rounded down (a clock must never show more time than is left);
/// negative times are written as `0:00:00`.
pub fn format_clk(ms: i64) -> String {
    let seconds = ms.max(0) / 1000;
    format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The time in a `[%clk h:mm:ss]` or `[%clk h:mm:ss.f]` command anywhere in a comment, in
/// milliseconds (fraction digits beyond the third are ignored). `None` if there is none or it is
/// malformed (minutes or seconds of 60 or more, missing parts).
pub fn parse_clk(comment: &str) -> Option<i64> {
    let at = comment.find("[%clk")?;
    let rest = comment[at + "[%clk".len()..].trim_start();
    let end = rest.find(']')?;
    let value = rest[..end].trim();
    let (clock, fraction) = match value.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (value, None),
    };
    let mut parts = clock.split(':');
    let (hours, minutes, seconds) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let number = |s: &str, max_digits: usize| -> Option<i64> {
        let valid = !s.is_empty() && s.len() <= max_digits && s.bytes().all(|b| b.is_ascii_digit());
        valid.then(|| s.parse().ok()).flatten()
    };
    // Six digits of hours is far beyond any game and keeps the arithmetic from overflowing.
    let hours = number(hours, 6)?;
    let minutes = number(minutes, 2).filter(|&m| m < 60)?;
    let seconds = number(seconds, 2).filter(|&s| s < 60)?;
    let millis = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            digits.parse::<i64>().ok()?
        }
        Some(_) => return None,
    };
    Some(((hours * 60 + minutes) * 60 + seconds) * 1000 + millis)
}
