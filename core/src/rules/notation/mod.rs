//! Lenient move matching for human input, typed or spoken (and then transcribed).
//!
//! This module owns the question "which legal move did the player mean by this text?" and the
//! canonical SAN we say back ([`san`]). It must not guess: every reading of the input is matched
//! against the legal moves of the position, and anything other than exactly one match is an error
//! that says what was wrong ([`MatchError`]). It performs no I/O and keeps no state.
//!
//! Strict SAN, as a PGN file needs it, is the job of [`super::pgn`]; this matcher accepts a
//! superset of it (every SAN shakmaty writes is accepted here, with the one deliberate exception of
//! a lower-case `b` that could equally be a bishop, see [`match_move`]).
//!
//! Accepted forms, all matched over the legal moves only:
//!
//! * standard SAN (`Nf3`, `exd5`, `Nbd2`, `R1a3`, `e8=Q`, `O-O`), also with a redundant `P`;
//! * castling as `O-O`, `0-0`, `o-o`, `O-O-O`, `0-0-0` and the king move (`e1g1`, `Kg1`,
//!   `e1-c1`, `Ke1c1`), or the king "capturing" its own rook in UCI style (`e1h1`, only with the
//!   full from-square, as shakmaty's `UciMove` does);
//! * a missing or extra capture mark (`x`, `:` or `×`): for pieces it is ignored, because what
//!   stands on the destination square already decides whether a move captures;
//! * trailing `+`, `#`, `++`, `!`, `?`, `!!`, `!?`, `?!`, `??`, `e.p.`, `ep` (ignored: the position
//!   decides check and mate, so a wrong suffix is not a reason to refuse the move);
//! * promotions as `e8Q`, `e8=Q`, `e8/Q`, `e8(Q)`, `e8=q`, `exd8=N`, UCI `e7e8q`;
//! * long algebraic and UCI: `g1f3`, `g1-f3`, `g1xf3`, `Ng1-f3`, `Ng1f3`, `e7e8q`;
//! * surrounding and inner whitespace (`" e7 e8 Q "`), en and em dashes for `-`;
//! * lower-case piece letters `n r q k p`; lower-case `b` reads as bishop *and* as the b-file
//!   (`bc4`, `bxc3`) unless the next character is a digit (`b4`, `b2b4` are squares);
//! * as a last resort, the whole input in lower case (`NF3`, `E4`, `BXC3`).
//!
//! What a player wrote on paper (a scoresheet under F.8, a sealed move) is read differently, by
//! [`readings`] and [`read_recorded`]: Appendix E lets each player use the piece letters of his
//! country, so the same letter can name different pieces (`R` is a rook in English and a king in
//! Spanish and French) and the answer is every legal move any of those notations gives, never a
//! preference for one language. Correct SAN still means what it says there (`bxc3` is always the
//! pawn: a lower-case letter is a file on paper).
//!
//! Where things live: this file reads typed and spoken input ([`match_move`], [`candidates`]) and
//! says moves back ([`san`]); `written` reads what is written on paper ([`readings`],
//! [`read_recorded`], the national [`PieceLetters`]), on top of this file's patterns.

mod written;

#[cfg(test)]
mod tests;

use shakmaty::{CastlingSide, Chess, File, Move, Position, Rank, Role, Square, san::SanPlus};

pub use written::{
    CZECH, HUNGARIAN, PIECE_LETTERS, PieceLetters, Unclear, letters_of, read_recorded, read_sealed,
    readable, readings, readings_with, unambiguous,
};

/// Why a text could not be turned into exactly one legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// Nothing but whitespace was given.
    #[error("no move given: type or say a move such as e4, Nf3, exd5, O-O or e7e8q")]
    Empty,
    /// The text is not a move in any notation we know.
    #[error(
        "'{input}' is not a move in any notation we know; write it like Nf3, exd5, Nbd2, e8=Q, \
         O-O, 0-0-0, g1f3, Ng1-f3 or e7e8q"
    )]
    Unreadable { input: String },
    /// The text reads as a move, but no legal move in this position fits it.
    #[error(
        "no legal move matches '{input}' in this position; check the piece, the squares and whose \
         turn it is"
    )]
    NoLegalMove { input: String },
    /// More than one legal move fits; `candidates` holds the SAN of each, in a fixed order (by
    /// from-square, then to-square, then promotion piece Q, R, B, N).
    #[error("'{input}' could mean {}; say which one", .candidates.join(" or "))]
    Ambiguous {
        input: String,
        candidates: Vec<String>,
    },
}

/// The SAN of a legal move in `pos`, with `+` or `#` when the move gives check or mate.
///
/// This is the form we read back to the player and write to PGN.
pub fn san(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// The one legal move that `input` means in `pos`.
///
/// Input that is correct SAN for a legal move means that move (`bxc3` is the b-pawn, `Bxc3` the
/// bishop). Anything else is read leniently; a lower-case `b` followed by a file letter without
/// the capture mark (`bc3`) reads both as a bishop move and as a b-pawn capture, and when both are
/// legal the answer is [`MatchError::Ambiguous`]: a carelessly typed "b" is not evidence enough
/// for a player who cannot see the board.
pub fn match_move(pos: &Chess, input: &str) -> Result<Move, MatchError> {
    // Correct SAN means exactly one move (`bxc3` is the pawn, `Bxc3` the bishop): it wins over
    // every lenient reading. Only input that is not correct SAN for a legal move is guessed at.
    if let Ok(strict) = SanPlus::from_ascii(input.trim().as_bytes())
        && let Ok(m) = strict.san.to_move(pos)
    {
        return Ok(m);
    }
    let found = candidates(pos, input)?;
    match found.as_slice() {
        [m] => Ok(*m),
        [] => Err(MatchError::NoLegalMove {
            input: input.trim().to_owned(),
        }),
        many => Err(MatchError::Ambiguous {
            input: input.trim().to_owned(),
            candidates: many.iter().map(|m| san(pos, *m)).collect(),
        }),
    }
}

/// Every legal move of `pos` that `input` could mean, in a fixed order (from-square, to-square,
/// promotion Q, R, B, N). `Ok(vec![])` means the input was readable but nothing legal fits.
pub fn candidates(pos: &Chess, input: &str) -> Result<Vec<Move>, MatchError> {
    let patterns = read(input)?;
    let mut found: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| patterns.iter().any(|p| p.matches(*m)))
        .collect();
    found.sort_by_key(|m| order_key(*m));
    Ok(found)
}

/// Sort key so that ambiguity lists read the same every time (`Nbd2` before `Nfd2`, `e8=Q` before
/// `e8=N`).
fn order_key(m: Move) -> (Option<Square>, Square, u8) {
    let promotion = match m.promotion() {
        None => 0,
        Some(Role::Queen) => 1,
        Some(Role::Rook) => 2,
        Some(Role::Bishop) => 3,
        Some(_) => 4,
    };
    (m.from(), king_or_normal_to(m), promotion)
}

/// Where the moving king ends up for castling (g- or c-file), the plain destination otherwise.
/// shakmaty represents castling as "king takes own rook", so `Move::to` is the rook's square.
fn king_or_normal_to(m: Move) -> Square {
    match m {
        Move::Castle { king, rook } => {
            let file = if rook > king { File::G } else { File::C };
            Square::from_coords(file, king.rank())
        }
        other => other.to(),
    }
}

/// One way of reading the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    Castle(CastlingSide),
    /// `--`, `Z0`, `0000`: a null move, readable but never legal.
    Null,
    Coords {
        /// `None` when no piece letter was given and the full from-square was (UCI, `g1f3`): any
        /// piece standing there.
        role: Option<Role>,
        from_file: Option<File>,
        from_rank: Option<Rank>,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
}

impl Pattern {
    fn matches(self, m: Move) -> bool {
        match self {
            Pattern::Castle(side) => m.castling_side() == Some(side),
            Pattern::Null => false,
            Pattern::Coords {
                role,
                from_file,
                from_rank,
                capture,
                to,
                promotion,
            } => {
                if role.is_some_and(|r| r != m.role()) {
                    return false;
                }
                let Some(from) = m.from() else {
                    return false; // drops do not exist in standard chess
                };
                if from_file.is_some_and(|f| f != from.file())
                    || from_rank.is_some_and(|r| r != from.rank())
                {
                    return false;
                }
                if promotion.is_some() && promotion != m.promotion() {
                    return false;
                }
                if let Move::Castle { rook, .. } = m {
                    // `Kg1`/`e1g1` name the king's destination; `e1h1` (king onto own rook, UCI
                    // Chess960 style) only with the full from-square, so that a bare `Kh1` never
                    // turns into castling by surprise.
                    let full_from = from_file.is_some() && from_rank.is_some();
                    return king_or_normal_to(m) == to || (full_from && rook == to);
                }
                if m.to() != to {
                    return false;
                }
                // A pawn named without its file is the pawn on the destination's file (a push),
                // unless a capture was marked (`xd5`): then any pawn capturing there.
                if role == Some(Role::Pawn) && from_file.is_none() && !capture {
                    return from.file() == to.file();
                }
                true
            }
        }
    }
}

/// Reads `input` into every pattern it could mean; errors if it is empty or unreadable.
fn read(input: &str) -> Result<Vec<Pattern>, MatchError> {
    if input.trim().is_empty() {
        return Err(MatchError::Empty);
    }
    let unreadable = || MatchError::Unreadable {
        input: input.trim().to_owned(),
    };
    let text = normalise(input).ok_or_else(unreadable)?;
    if let Some(patterns) = read_normalised(&text) {
        return Ok(patterns);
    }
    // Caps lock or a transcriber that capitalises everything: try again in lower case, where a
    // `B` becomes the ambiguous `b` and is treated as such.
    let lower = text.to_ascii_lowercase();
    if lower != text
        && let Some(patterns) = read_normalised(&lower)
    {
        return Ok(patterns);
    }
    Err(unreadable())
}

/// Removes whitespace and annotation suffixes and maps look-alike characters to ASCII. `None` when
/// a character remains that no notation uses.
fn normalise(input: &str) -> Option<String> {
    let mut text = String::with_capacity(input.len());
    for c in input.chars() {
        match c {
            c if c.is_whitespace() => {}
            '\u{2010}'..='\u{2015}' | '\u{2212}' => text.push('-'),
            '\u{00d7}' => text.push('x'),
            c if c.is_ascii() => text.push(c),
            _ => return None,
        }
    }
    // Check, mate and evaluation marks say nothing about which move is meant; en passant is
    // decided by the position. Longest suffixes first so that `e.p.` is not read as `.`.
    const SUFFIXES: [&str; 7] = ["e.p.", "e.p", "ep", "+", "#", "!", "?"];
    'strip: loop {
        for suffix in SUFFIXES {
            if let Some(rest) = text.strip_suffix(suffix) {
                text.truncate(rest.len());
                continue 'strip;
            }
        }
        break;
    }
    (!text.is_empty()).then_some(text)
}

/// Reads whitespace-free, suffix-free ASCII text. `None` if no reading works.
fn read_normalised(text: &str) -> Option<Vec<Pattern>> {
    let bytes = text.as_bytes();
    if matches!(text, "--" | "Z0" | "z0" | "0000") {
        return Some(vec![Pattern::Null]);
    }
    let undashed: Vec<u8> = bytes.iter().copied().filter(|&b| b != b'-').collect();
    if !undashed.is_empty() && undashed.iter().all(|b| matches!(b, b'O' | b'o' | b'0')) {
        return match undashed.len() {
            2 => Some(vec![Pattern::Castle(CastlingSide::KingSide)]),
            3 => Some(vec![Pattern::Castle(CastlingSide::QueenSide)]),
            _ => None,
        };
    }

    let mut readings = Vec::new();
    let (first, rest) = bytes.split_first()?;
    match first {
        b'N' | b'n' => readings.extend(read_body(Some(Role::Knight), rest)),
        b'B' => readings.extend(read_body(Some(Role::Bishop), rest)),
        b'R' | b'r' => readings.extend(read_body(Some(Role::Rook), rest)),
        b'Q' | b'q' => readings.extend(read_body(Some(Role::Queen), rest)),
        b'K' | b'k' => readings.extend(read_body(Some(Role::King), rest)),
        b'P' | b'p' => readings.extend(read_body(Some(Role::Pawn), rest)),
        b'b' => {
            // `b` + digit is a square (`b4`, `b2b4`); otherwise it may be a bishop or the b-file.
            if !rest.first().is_some_and(u8::is_ascii_digit) {
                readings.extend(read_body(Some(Role::Bishop), rest));
            }
            readings.extend(read_body(None, bytes));
        }
        _ => readings.extend(read_body(None, bytes)),
    }
    (!readings.is_empty()).then_some(readings)
}

/// Reads `[file][rank][x|-|:]<square>[promotion]` after an optional piece letter (`role`, `None`
/// if there was none).
fn read_body(role: Option<Role>, body: &[u8]) -> Option<Pattern> {
    // The destination is the last file+rank pair: everything after it is a promotion suffix,
    // everything before it names the origin.
    let rank_at = body.iter().rposition(|b| matches!(b, b'1'..=b'8'))?;
    let file_at = rank_at.checked_sub(1)?;
    let to = Square::from_coords(file_of(body[file_at])?, rank_of(body[rank_at])?);
    let promotion = read_promotion(&body[rank_at + 1..])?;

    let mut origin = &body[..file_at];
    let mut from_file = None;
    let mut from_rank = None;
    let mut capture = false;
    if let Some((&c, rest)) = origin.split_first()
        && let Some(f) = file_of(c)
    {
        from_file = Some(f);
        origin = rest;
    }
    if let Some((&c, rest)) = origin.split_first()
        && let Some(r) = rank_of(c)
    {
        from_rank = Some(r);
        origin = rest;
    }
    match origin {
        [] => {}
        [b'x' | b':'] => capture = true,
        [b'-'] => {}
        _ => return None,
    }

    let role = match role {
        Some(role) => Some(role),
        // No letter and a full from-square: coordinates (`g1f3`), the piece is whatever stands
        // there. No letter otherwise: a pawn, as in SAN.
        None if from_file.is_some() && from_rank.is_some() => None,
        None => Some(Role::Pawn),
    };
    Some(Pattern::Coords {
        role,
        from_file,
        from_rank,
        capture,
        to,
        promotion,
    })
}

/// Reads a promotion suffix: empty, or `Q`, `=Q`, `/Q`, `(Q)` with Q, R, B, N in either case.
/// `None` if the suffix is something else; `Some(None)` if there is no suffix.
fn read_promotion(suffix: &[u8]) -> Option<Option<Role>> {
    let letter = match suffix {
        [] => return Some(None),
        [c] | [b'=' | b'/', c] | [b'(', c, b')'] | [b'=', b'(', c, b')'] => *c,
        _ => return None,
    };
    match letter.to_ascii_uppercase() {
        b'Q' => Some(Some(Role::Queen)),
        b'R' => Some(Some(Role::Rook)),
        b'B' => Some(Some(Role::Bishop)),
        b'N' => Some(Some(Role::Knight)),
        _ => None,
    }
}

fn file_of(c: u8) -> Option<File> {
    File::from_char(char::from(c))
}

fn rank_of(c: u8) -> Option<Rank> {
    Rank::from_char(char::from(c))
}
