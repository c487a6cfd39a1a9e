//! Reading a Braille score back into moves: a score tactus rendered (to verify it), or one a
//! blind player typed on his Braille note-taker (to turn it into PGN).
//!
//! What is read: pages split by form feeds, lines by LF or CR LF. Everything up to the first
//! separation line (a line of dots 25 only) is the header and is skipped, as is every running
//! head (a line ending in a literary page number, `#A`, with the lines under it that repeat the
//! first page's: a head too long for one line); a typed score needs neither. The rest
//! is move numbers (lower-cell digits, checked against the position), moves in the profile's
//! notation (each matched through the rules module's lenient matcher, see [`coding`]), and the
//! result. Every error names the page and line, and the token as it was written.
//!
//! Pure; the caller reads the file.
//!
//! [`coding`]: super::coding

use std::fmt;

use shakmaty::{Chess, Color, Position};

use super::{
    cell::{self, Cell, digit_of, letter_of},
    coding::{MoveError, read_move},
    layout::{NUMBER_SIGN, SEPARATOR, move_label},
    profile::Profile,
};
use crate::record::score::{Score, ScoreMove};

/// The two spellings of Braille a score can come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrailleFormat {
    /// North American Braille ASCII (a `.brf` file); lower case is read as upper case.
    Brf,
    /// Unicode Braille (U+2800-U+283F), UTF-8.
    Unicode,
}

impl fmt::Display for BrailleFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BrailleFormat::Brf => "BRF",
            BrailleFormat::Unicode => "Unicode Braille",
        })
    }
}

/// Where and why a Braille score could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("page {page}, line {line}{}: {kind}", self.token.as_ref().map(|t| format!(", '{t}'")).unwrap_or_default())]
pub struct ReadError {
    /// 1-based, counted by form feeds.
    pub page: usize,
    /// 1-based within the page.
    pub line: usize,
    /// The offending token as written (BRF or Unicode), when there is one.
    pub token: Option<String>,
    pub kind: ReadErrorKind,
}

/// What was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadErrorKind {
    #[error("{found:?} is not a {format} character")]
    BadCharacter { found: char, format: BrailleFormat },
    #[error("the file is not UTF-8 text; is it BRF rather than Unicode Braille?")]
    NotUtf8,
    #[error("move {label}: {source}")]
    Move {
        label: String,
        #[source]
        source: MoveError,
    },
    /// The very first token of the score is not a move: most likely a header line that no
    /// separation line closes.
    #[error(
        "move {label}: {source}; if this line is a header, close the header with a line of \
         dots 25 (BRF 333333)"
    )]
    NotAScore {
        label: String,
        #[source]
        source: MoveError,
    },
    #[error("move number {found}, but the game is at move {expected}")]
    WrongNumber { found: u64, expected: u32 },
    #[error("the Black marker (dots 36) before White's move {label}")]
    BlackMarkerOnWhite { label: String },
    #[error("a move after the result; the result ends the score")]
    AfterResult,
}

/// A line of cells and where it was.
struct Line {
    page: usize,
    line: usize,
    cells: Vec<Cell>,
    /// The line as written, for quoting tokens.
    text: Vec<char>,
}

/// Reads a Braille score written in `profile` from `start` (usually the standard position).
/// The result has no tags (the header is free text) and no clocks.
pub fn read_score(
    input: &[u8],
    format: BrailleFormat,
    profile: &Profile,
    start: Chess,
) -> Result<Score, ReadError> {
    let lines = decode(input, format)?;
    // Everything up to the separation line is header; without one, everything is score.
    let first = lines
        .iter()
        .position(|l| is_separator(&l.cells))
        .map_or(0, |i| i + 1);

    // A running head too long for one line goes on in the lines under it, the same on every
    // page; the first page shows them before its separation line, among the header.
    let first_page: Vec<&[Cell]> = lines[..first]
        .iter()
        .filter(|l| l.page == 1)
        .map(|l| l.cells.as_slice())
        .collect();
    // The page whose running head is being skipped, while its lines match the first page's.
    let mut in_head: Option<usize> = None;

    let mut score = Score::new(start.clone());
    let mut pos = start;
    let mut result: Option<&'static str> = None;
    for line in &lines[first..] {
        if line.line == 1 && is_running_head(&line.cells) {
            in_head = Some(line.page);
            continue;
        }
        if in_head == Some(line.page)
            && first_page
                .get(line.line - 1)
                .is_some_and(|head| *head == line.cells.as_slice())
        {
            continue;
        }
        in_head = None;
        if is_running_head(&line.cells) {
            continue;
        }
        let mut at = 0;
        for token in line.cells.split(|c| c.is_blank()) {
            let begin = at;
            at += token.len() + 1;
            if token.is_empty() {
                continue;
            }
            let error = |kind| ReadError {
                page: line.page,
                line: line.line,
                token: Some(line.text[begin..begin + token.len()].iter().collect()),
                kind,
            };
            if result.is_some() {
                return Err(error(ReadErrorKind::AfterResult));
            }
            if let Some(token) = profile.result_of(token) {
                result = Some(token);
                continue;
            }
            if let Some(found) = number(token) {
                let expected = pos.fullmoves().get();
                if found != u64::from(expected) {
                    return Err(error(ReadErrorKind::WrongNumber { found, expected }));
                }
                continue;
            }
            let label = move_label(pos.fullmoves().get(), pos.turn());
            let read = read_move(profile, &pos, token).map_err(|source| {
                let label = label.clone();
                error(match source {
                    MoveError::Unreadable { .. } if score.moves.is_empty() => {
                        ReadErrorKind::NotAScore { label, source }
                    }
                    source => ReadErrorKind::Move { label, source },
                })
            })?;
            if read.black_marker && pos.turn() == Color::White {
                return Err(error(ReadErrorKind::BlackMarkerOnWhite { label }));
            }
            pos.play_unchecked(read.mv);
            score.moves.push(ScoreMove {
                mv: read.mv,
                clock_ms: None,
                draw_offer: read.draw_offer,
            });
        }
    }
    score.result = result.unwrap_or("*").to_owned();
    Ok(score)
}

/// A move number: lower-cell digits only.
fn number(token: &[Cell]) -> Option<u64> {
    token.iter().try_fold(0u64, |n, &c| {
        n.checked_mul(10)?.checked_add(u64::from(digit_of(c)?))
    })
}

fn is_separator(cells: &[Cell]) -> bool {
    let cells = trim(cells);
    cells.len() >= 3 && cells.iter().all(|&c| c == SEPARATOR)
}

/// A line ending in a literary page number (`#A`, `#AB`): the renderer's running head.
fn is_running_head(cells: &[Cell]) -> bool {
    let last = trim(cells)
        .split(|c| c.is_blank())
        .next_back()
        .unwrap_or(&[]);
    match last.split_first() {
        Some((&sign, digits)) if sign == NUMBER_SIGN && !digits.is_empty() => digits
            .iter()
            .all(|&c| letter_of(c).is_some_and(|l| ('a'..='j').contains(&l))),
        _ => false,
    }
}

fn trim(cells: &[Cell]) -> &[Cell] {
    let start = cells
        .iter()
        .position(|c| !c.is_blank())
        .unwrap_or(cells.len());
    let end = cells
        .iter()
        .rposition(|c| !c.is_blank())
        .map_or(start, |e| e + 1);
    &cells[start..end]
}

/// The input as lines of cells with their page and line numbers.
fn decode(input: &[u8], format: BrailleFormat) -> Result<Vec<Line>, ReadError> {
    let text: String = match format {
        // BRF is ASCII; anything else is reported where it stands, as the character it is in
        // UTF-8 (a Unicode Braille file given as BRF) or as U+FFFD.
        BrailleFormat::Brf => String::from_utf8_lossy(input).into_owned(),
        BrailleFormat::Unicode => {
            let text = std::str::from_utf8(input).map_err(|e| {
                let before = &input[..e.valid_up_to()];
                let page = before.iter().filter(|&&b| b == 0x0C).count() + 1;
                let page_start = before.iter().rposition(|&b| b == 0x0C).map_or(0, |i| i + 1);
                let line = before[page_start..].iter().filter(|&&b| b == b'\n').count() + 1;
                ReadError {
                    page,
                    line,
                    token: None,
                    kind: ReadErrorKind::NotUtf8,
                }
            })?;
            text.strip_prefix('\u{feff}').unwrap_or(text).to_owned()
        }
    };
    let mut lines = Vec::new();
    for (p, page) in text.split('\u{c}').enumerate() {
        for (l, raw) in page.split('\n').enumerate() {
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            let mut cells = Vec::with_capacity(raw.len());
            let mut written = Vec::with_capacity(raw.len());
            for c in raw.chars() {
                let cell = match (c, format) {
                    // A tab is a gap between words to a note-taker too.
                    ('\t', _) => Some(Cell::BLANK),
                    (c, BrailleFormat::Brf) => u8::try_from(c).ok().and_then(Cell::from_brf),
                    (c, BrailleFormat::Unicode) => Cell::from_unicode(c),
                };
                let cell = cell.ok_or_else(|| ReadError {
                    page: p + 1,
                    line: l + 1,
                    token: None,
                    kind: ReadErrorKind::BadCharacter { found: c, format },
                })?;
                cells.push(cell);
                written.push(if c == '\t' { ' ' } else { c });
            }
            lines.push(Line {
                page: p + 1,
                line: l + 1,
                cells,
                text: written,
            });
        }
    }
    Ok(lines)
}

/// The cells of a token as `format` writes them (for messages).
pub fn spell(cells: &[Cell], format: BrailleFormat) -> String {
    match format {
        BrailleFormat::Brf => cell::to_brf(cells),
        BrailleFormat::Unicode => cell::to_unicode(cells),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uk() -> Profile {
        Profile::named("ukaaf").unwrap()
    }

    fn sans(text: &str) -> Vec<String> {
        read_score(text.as_bytes(), BrailleFormat::Brf, &uk(), Chess::default())
            .unwrap()
            .sans()
    }

    fn err(text: &str, format: BrailleFormat) -> ReadError {
        read_score(text.as_bytes(), format, &uk(), Chess::default()).unwrap_err()
    }

    #[test]
    fn a_typed_score_without_header_or_numbers() {
        assert_eq!(
            sans("1 e4 e5 2 sf3 sc6 3 lb5"),
            ["e4", "e5", "Nf3", "Nc6", "Bb5"]
        );
        assert_eq!(
            sans("E4 E5\nSF3\tSC6\r\n\r\n  LB5  "),
            ["e4", "e5", "Nf3", "Nc6", "Bb5"]
        );
        let s = read_score(
            "⠂ ⠑⠲ ⠑⠢ ⠆ ⠎⠋⠒ ⠤⠎⠉⠖ ⠂⠤⠴".as_bytes(),
            BrailleFormat::Unicode,
            &uk(),
            Chess::default(),
        )
        .unwrap();
        assert_eq!(s.sans(), ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(s.result, "1-0");
    }

    #[test]
    fn header_and_running_heads_are_skipped() {
        let text = ",A - ,B    #A\r\nWHATEVER 12 ,TEXT\r\n3333\r\n1 E4 E5\r\n\x0c,A - ,B    #B\r\n2 SF3\"<\"7\">\r\n2 -SC6\r\n1/2-1/2\r\n\x0c";
        let s = read_score(text.as_bytes(), BrailleFormat::Brf, &uk(), Chess::default()).unwrap();
        assert_eq!(s.sans(), ["e4", "e5", "Nf3", "Nc6"]);
        assert!(s.moves[2].draw_offer);
        assert_eq!(s.result, "1/2-1/2");
    }

    #[test]
    fn a_running_head_on_two_lines_is_skipped_on_every_page() {
        // As the layout writes long names: the page number on the head's first line, Black's
        // name under it; the same two lines on every page.
        let text = ",BLIND PLAYER -   #A\r\n,SIGHTED PLAYER\r\n,WHITE3 ,BLIND PLAYER\r\n3333\r\n1 E4 E5\r\n\x0c\
                    ,BLIND PLAYER -   #B\r\n,SIGHTED PLAYER\r\n2 SF3 SC6\r\n\x0c";
        let s = read_score(text.as_bytes(), BrailleFormat::Brf, &uk(), Chess::default()).unwrap();
        assert_eq!(s.sans(), ["e4", "e5", "Nf3", "Nc6"]);
        // A line under the head that the first page does not have is read as score.
        let text = ",A -   #A\r\n,B\r\n3333\r\n1 E4\r\n\x0c,A -   #B\r\n,C\r\n";
        let e =
            read_score(text.as_bytes(), BrailleFormat::Brf, &uk(), Chess::default()).unwrap_err();
        assert_eq!((e.page, e.line, e.token.as_deref()), (2, 2, Some(",C")));
    }

    #[test]
    fn errors_name_page_line_and_token() {
        let e = err(
            "1 E4 E5\r\n\x0c2 SF3 SC6\r\n3 LC4 SF9\r\n",
            BrailleFormat::Brf,
        );
        assert_eq!((e.page, e.line), (2, 2));
        assert_eq!(e.token.as_deref(), Some("SF9"));
        assert_eq!(
            e.to_string(),
            "page 2, line 2, 'SF9': move 3...: not a move in the 'ukaaf' Braille chess notation \
             (piece letter, origin, destination such as e4, castling, promotion)"
        );
        let e = err(",EVENT3 ,OPEN\n1 E4", BrailleFormat::Brf);
        assert_eq!(
            e.to_string(),
            "page 1, line 1, ',EVENT3': move 1.: not a move in the 'ukaaf' Braille chess \
             notation (piece letter, origin, destination such as e4, castling, promotion); if \
             this line is a header, close the header with a line of dots 25 (BRF 333333)"
        );
        let e = err("1 E4 E5 2 SD4", BrailleFormat::Brf);
        assert_eq!(
            e.to_string(),
            "page 1, line 1, 'SD4': move 2.: no legal move matches it (read as Nd4)"
        );
        let e = err("1 E4 E5 3 SF3", BrailleFormat::Brf);
        assert_eq!(
            e.to_string(),
            "page 1, line 1, '3': move number 3, but the game is at move 2"
        );
        let e = err("1 -E4", BrailleFormat::Brf);
        assert_eq!(
            e.to_string(),
            "page 1, line 1, '-E4': the Black marker (dots 36) before White's move 1."
        );
        let e = err("1 E4 1-0 E5", BrailleFormat::Brf);
        assert_eq!(
            e.to_string(),
            "page 1, line 1, 'E5': a move after the result; the result ends the score"
        );
        let e = err("1 E4\n⠑⠢", BrailleFormat::Brf);
        assert_eq!(e.to_string(), "page 1, line 2: '⠑' is not a BRF character");
        let e = err("⠂ ⠑⠲ E5", BrailleFormat::Unicode);
        assert_eq!(
            e.to_string(),
            "page 1, line 1: 'E' is not a Unicode Braille character"
        );
        let e = read_score(
            b"\x0c\n\xff",
            BrailleFormat::Unicode,
            &uk(),
            Chess::default(),
        )
        .unwrap_err();
        assert_eq!((e.page, e.line, e.kind), (2, 2, ReadErrorKind::NotUtf8));
    }

    #[test]
    fn running_heads_and_separators() {
        let cells = |t: &str| cell::parse_cells(t).unwrap();
        assert!(is_running_head(&cells("   #A")));
        assert!(is_running_head(&cells(",X   #ABJ")));
        assert!(!is_running_head(&cells("1 E4 #K")));
        assert!(!is_running_head(&cells("1 E4")));
        assert!(is_separator(&cells(" 333 ")));
        assert!(!is_separator(&cells("33")));
        assert!(!is_separator(&cells("333 E4")));
    }
}
