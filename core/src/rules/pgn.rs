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
//! visitor, so each game's stretch of text is also scanned here ([`first_unknown`]), and the
//! first such token is an error naming it, its line and its column: a file holding "hello
//! world" is not a game, and an unknown word inside a game is not silently dropped. Tag values
//! and comments that are not UTF-8 are decoded lossily (U+FFFD). The `FEN` tag is honoured with
//! or without `SetUp`, in standard-chess castling mode.

use std::{
    io::{self, Seek},
    ops::ControlFlow,
};

use pgn_reader::{Outcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, Move, Position,
    fen::Fen,
    san::{San, SanError},
};

/// One game read from a PGN file: tags as written, moves replayed and legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnGame {
    /// 1-based position of the game in the file.
    pub index: usize,
    /// Tag pairs in file order, values unescaped (invalid UTF-8 replaced by U+FFFD).
    pub tags: Vec<(String, String)>,
    /// The starting position: the `FEN` tag if present (with or without `SetUp`), else the
    /// standard position.
    pub start: Chess,
    /// The `FEN` tag as given, if any.
    pub start_fen: Option<String>,
    /// The mainline moves, each legal in the position before it. Variations are skipped.
    pub moves: Vec<Move>,
    /// The SAN of each move as written in the file (for round-trip checks), as shakmaty parsed
    /// it: `0-0` reads as `O-O` and a redundant `P` is dropped, anything else is kept verbatim.
    pub sans: Vec<SanPlus>,
    /// The movetext termination token (`1-0`, `0-1`, `1/2-1/2`, `*`), if the movetext had one.
    pub result: Option<String>,
    /// Per ply: the clock in milliseconds from a `[%clk h:mm:ss(.f)]` comment after the move.
    pub clocks: Vec<Option<i64>>,
    /// Per ply: the mover offered a draw, marked `(=)` in a comment after the move (as
    /// [`write_pgn`] writes it), so that an offer survives PGN -> Braille or text.
    pub draw_offers: Vec<bool>,
}

impl PgnGame {
    /// The value of the first tag called `name` (tag names are case-sensitive in PGN).
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag_value(&self.tags, name)
    }

    /// The `White` tag, or `?` as PGN writes an unknown value.
    pub fn white(&self) -> &str {
        self.tag("White").unwrap_or("?")
    }

    /// The `Black` tag, or `?`.
    pub fn black(&self) -> &str {
        self.tag("Black").unwrap_or("?")
    }

    /// The moves in the form [`write_pgn`] takes: SAN regenerated from the moves (canonical, with
    /// `+`/`#` as the position has it), the clocks and the draw offers read.
    pub fn export_moves(&self) -> Vec<ExportMove> {
        let mut pos = self.start.clone();
        self.moves
            .iter()
            .zip(&self.clocks)
            .zip(&self.draw_offers)
            .map(|((&m, &clock_ms), &draw_offer)| ExportMove {
                san: SanPlus::from_move_and_play_unchecked(&mut pos, m),
                clock_ms,
                draw_offer,
            })
            .collect()
    }

    /// This game written back as PGN with [`write_pgn`]: same tags, start, moves, clocks and
    /// result (the movetext result, else the `Result` tag, else `*`).
    pub fn to_pgn(&self) -> String {
        let moves = self.export_moves();
        let result = self.result.as_deref().or(self.tag("Result")).unwrap_or("*");
        write_pgn(&Export {
            tags: &self.tags,
            start: Some(&self.start),
            moves: &moves,
            result,
            termination: None,
            notes: &[],
        })
    }
}

/// A game that could not be read, with where and why.
///
/// Displays like `game 3 (Carlsen - Nakamura), ply 82 (41... --): null moves (Z0, --) are not
/// allowed in a game record; ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {game} ({white} - {black}){place}: {kind}", place = self.place())]
pub struct PgnError {
    /// 1-based position of the game in the file.
    pub game: usize,
    /// The `White` tag so far, or `?`.
    pub white: String,
    /// The `Black` tag so far, or `?`.
    pub black: String,
    /// The ply of the offending move (see the module doc), for move errors.
    pub ply: Option<usize>,
    pub kind: PgnErrorKind,
    /// The game as read before the error: tags, start, and the legal moves and clocks before the
    /// bad ply, so that an audit can still analyse the legal prefix. `None` when the error came
    /// before the movetext (a bad FEN, a broken tag).
    pub partial: Option<Box<PgnGame>>,
}

impl PgnError {
    /// The legal moves before the bad ply (empty if the error came before any move).
    pub fn legal_prefix(&self) -> &[Move] {
        self.partial.as_deref().map_or(&[], |g| g.moves.as_slice())
    }

    /// The position the legal prefix starts from, if the movetext was reached.
    pub fn start(&self) -> Option<&Chess> {
        self.partial.as_deref().map(|g| &g.start)
    }

    /// The offending move as written (`--` for any null move), for move errors; the token
    /// itself when it is not PGN.
    pub fn san(&self) -> Option<&str> {
        match &self.kind {
            PgnErrorKind::NullMove { san, .. }
            | PgnErrorKind::IllegalMove { san, .. }
            | PgnErrorKind::MoveAfterResult { san, .. } => Some(san),
            PgnErrorKind::NotPgn { token, .. } => Some(token),
            PgnErrorKind::BadFen { .. } | PgnErrorKind::Syntax(_) => None,
        }
    }

    /// Whether this stretch of the file holds nothing of a game (no tag, no move, no result),
    /// only text that is not PGN: not a game with an error, but no game at all.
    pub fn is_not_a_game(&self) -> bool {
        matches!(self.kind, PgnErrorKind::NotPgn { alone: true, .. })
    }

    /// `, ply 82 (41... --)` for move errors, empty otherwise (a token that is not PGN says its
    /// line and column itself).
    fn place(&self) -> String {
        let number = match &self.kind {
            PgnErrorKind::NullMove { number, .. }
            | PgnErrorKind::IllegalMove { number, .. }
            | PgnErrorKind::MoveAfterResult { number, .. } => Some(number),
            PgnErrorKind::NotPgn { .. } => return String::new(),
            PgnErrorKind::BadFen { .. } | PgnErrorKind::Syntax(_) => None,
        };
        match (self.ply, number, self.san()) {
            (Some(ply), Some(number), Some(san)) => format!(", ply {ply} ({number} {san})"),
            (Some(ply), _, _) => format!(", ply {ply}"),
            _ => String::new(),
        }
    }
}

/// What was wrong with a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnErrorKind {
    /// The `FEN` tag does not parse or is not a legal standard-chess position.
    #[error(
        "the FEN tag \"{fen}\" is not a usable starting position ({reason}); correct the FEN tag, \
         or remove the SetUp and FEN tags if the game starts from the initial position"
    )]
    BadFen { fen: String, reason: String },
    /// A null move (`Z0` or `--`; shakmaty reads both as `San::Null` and does not keep which one
    /// was written, so `san` is always `--`).
    #[error(
        "null moves (Z0, --) are not allowed in a game record; replace it with the move actually \
         played, or end the movetext before it"
    )]
    NullMove {
        san: String,
        /// `41.` or `41...`.
        number: String,
    },
    /// A SAN that is not exactly one legal move in the position reached.
    #[error(
        "{} move in position {position_fen}; PGN needs exact SAN (piece letter, disambiguation, \
         capture mark, promotion), so correct the move in the movetext",
        if *.ambiguous { "ambiguous" } else { "illegal" }
    )]
    IllegalMove {
        san: String,
        /// `6.` or `6...`.
        number: String,
        /// FEN of the position the move was tried in.
        position_fen: String,
        /// True if several legal moves fit (`Nd2` with two knights), false if none does.
        ambiguous: bool,
    },
    /// A move after the movetext's result token (`1-0 2. Nf3`): the record says the game was
    /// over, so the moves after it cannot be trusted to belong to it.
    #[error(
        "the movetext goes on after the result {result}; delete the moves after the result or \
         move the result token to the end of the movetext"
    )]
    MoveAfterResult {
        san: String,
        /// `2.` or `2...`.
        number: String,
        result: String,
    },
    /// A token in the movetext that is none of the things PGN has there: a move in SAN, a move
    /// number, a result, a comment, a NAG or annotation, a variation. The first one of a game
    /// is reported; the game's moves before it are its legal prefix.
    #[error(
        "line {line}, column {column}: '{token}' is not PGN (not a move in SAN, a move number, a \
         result, a comment in braces, an annotation or a variation){}",
        if *.alone {
            "; no game here: a PGN game is tags such as [White \"...\"] and moves such as 1. e4 e5"
        } else {
            "; correct the move, or put the words in braces { } as a comment"
        }
    )]
    NotPgn {
        /// As written (lossily decoded if not UTF-8).
        token: String,
        /// 1-based line of the file.
        line: usize,
        /// 1-based column, counted in characters.
        column: usize,
        /// Nothing around it is PGN either (no tag, move or result): not a game at all.
        alone: bool,
    },
    /// The PGN text itself is broken (pgn-reader's "unterminated tag" or "unterminated
    /// comment"). Reading stops there: pgn-reader cannot resynchronise reliably after it.
    #[error(
        "PGN syntax error: {0}; close the tag with \"] or the comment with }} (games after this \
         point were not read)"
    )]
    Syntax(String),
}

/// Reads every game, stopping at (and returning) the first one that fails.
#[allow(
    clippy::result_large_err,
    reason = "the error carries the names, place and legal prefix an audit reports; it is built \
              once per bad file, so its size costs nothing worth boxing for"
)]
pub fn read_pgn(bytes: &[u8]) -> Result<Vec<PgnGame>, PgnError> {
    games(bytes).collect()
}

/// Reads every game, each `Ok` or its error (a bad game does not stop the next one from being
/// read; only a syntax error ends the file, see [`PgnErrorKind::Syntax`]).
pub fn read_pgn_each(bytes: &[u8]) -> Vec<Result<PgnGame, PgnError>> {
    games(bytes).collect()
}

/// Tags up to this long and comments up to this long are handed over whole; pgn-reader's default
/// (255 bytes) would split long comments and reject long tag lines.
const LINE_BYTES: usize = 16 * 1024;

fn games(bytes: &[u8]) -> impl Iterator<Item = Result<PgnGame, PgnError>> + '_ {
    let mut reader = Reader::build(io::Cursor::new(bytes))
        .set_supported_tag_line_length(LINE_BYTES)
        .set_supported_comment_length(LINE_BYTES)
        .finish();
    let mut collector = Collector::default();
    let mut done = false;
    // Where the next game starts: pgn-reader has skipped the rest of the last game and the
    // blank lines. Its position is exact (it subtracts what it has buffered).
    let next_start = |reader: &mut Reader<io::Cursor<&[u8]>>| -> io::Result<Option<usize>> {
        if !reader.has_more()? {
            return Ok(None);
        }
        Ok(Some(
            usize::try_from(reader.stream_position()?).unwrap_or(bytes.len()),
        ))
    };
    let mut start = next_start(&mut reader);
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let from = match std::mem::replace(&mut start, Ok(None)) {
            Ok(Some(from)) => from,
            Ok(None) => {
                done = true;
                return None;
            }
            Err(err) => {
                done = true;
                return Some(Err(collector.syntax_error(&err)));
            }
        };
        let read = match reader.read_game(&mut collector) {
            Ok(Some(game)) => game,
            Ok(None) => {
                done = true;
                return None;
            }
            Err(err) => {
                done = true;
                return Some(Err(collector.syntax_error(&err)));
            }
        };
        start = next_start(&mut reader);
        let to = match &start {
            Ok(Some(to)) => *to,
            // The end of the file, or a syntax error the next round reports.
            _ => bytes.len(),
        };
        Some(match first_unknown(bytes, from, to) {
            Some(unknown) => collector.not_pgn(read, &unknown, bytes),
            None => read,
        })
    })
}

/// A token pgn-reader would drop, found by [`first_unknown`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unknown {
    /// Byte offset in the file.
    at: usize,
    token: String,
    /// Moves of the main line written before it.
    moves_before: usize,
    /// Nothing of a game (tag, move, result) anywhere in its stretch of text.
    alone: bool,
}

/// pgn-reader's token boundaries in movetext.
fn is_token_end(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
    )
}

/// The results PGN knows, with the dashes and halves pgn-reader also takes.
fn is_result(token: &str) -> bool {
    let token = token.replace(['\u{2013}', '\u{2014}'], "-");
    matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "\u{bd}-\u{bd}")
}

/// `0-0` or `0-0-0` (with `+` or `#`): castling as people write it, which pgn-reader reads (and
/// shakmaty's strict SAN does not).
fn is_castling_with_zeros(token: &[u8]) -> bool {
    let token = token
        .strip_suffix(b"+")
        .or_else(|| token.strip_suffix(b"#"))
        .unwrap_or(token);
    token == b"0-0" || token == b"0-0-0"
}

/// The first token of `bytes[from..to]` (one game's stretch of text, tags and movetext, as
/// pgn-reader delimited it) that pgn-reader would skip without a word, with what is known of
/// its place. Tags are skipped as pgn-reader reads them; comments, `;` comments, `%` escape
/// lines, NAGs, annotations (`!`, `?!`), move numbers, results and variations are PGN; every
/// other token must be a SAN (legal or not: the replay judges that). Tokens in variations are
/// checked too: a variation is movetext.
fn first_unknown(bytes: &[u8], from: usize, to: usize) -> Option<Unknown> {
    let text = &bytes[..to.min(bytes.len())];
    let mut i = from;
    if text[i..].starts_with(b"\xef\xbb\xbf") {
        i += 3;
    }
    let mut tags = false;
    let mut line_start = true;
    // The tag section: `[Name "value"]`, as many as there are, with blank and `%` lines.
    loop {
        while let Some(&b) = text.get(i) {
            match b {
                b' ' | b'\t' | b'\r' => i += 1,
                b'\n' => {
                    i += 1;
                    line_start = true;
                }
                b'%' if line_start => i = line_end(text, i),
                _ => break,
            }
        }
        if text.get(i) != Some(&b'[') {
            break;
        }
        tags = true;
        line_start = false;
        i = tag_end(text, i + 1);
    }

    let mut depth = 0usize;
    let mut moves = 0usize;
    let mut recognised = tags;
    let mut unknown: Option<(usize, usize)> = None;
    while let Some(&b) = text.get(i) {
        match b {
            b'{' => match text[i..].iter().position(|&c| c == b'}') {
                Some(close) => i += close + 1,
                // pgn-reader reports the unterminated comment.
                None => break,
            },
            b'\n' => {
                i += 1;
                if text.get(i) == Some(&b'%') {
                    i = line_end(text, i);
                }
            }
            b';' => i = line_end(text, i),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'.' | b'!' | b'?' => i += 1,
            b'*' => {
                recognised = true;
                i += 1;
            }
            _ => {
                // A NAG's `$` is itself a token end: its digits follow it.
                let body = if b == b'$' { i + 1 } else { i };
                let end = text[body..]
                    .iter()
                    .position(|&c| is_token_end(c))
                    .map_or(text.len(), |e| body + e);
                let token = &text[i..end];
                let word = String::from_utf8_lossy(token);
                let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
                let ok = if b == b'$' {
                    // A NAG: `$` and digits.
                    token.len() > 1 && token[1..].iter().all(u8::is_ascii_digit)
                } else if is_result(&word) {
                    recognised = true;
                    true
                } else if is_castling_with_zeros(token) {
                    recognised = true;
                    if depth == 0 {
                        moves += 1;
                    }
                    true
                } else if digits == token.len() {
                    // A move number (its dots are token ends).
                    true
                } else if SanPlus::from_ascii(&token[digits..]).is_ok() {
                    // A move, after its number when written as `1e4`; castling with zeros
                    // (`0-0`) reads as SAN too.
                    recognised = true;
                    if depth == 0 {
                        moves += 1;
                    }
                    true
                } else {
                    false
                };
                if !ok && unknown.is_none() {
                    unknown = Some((i, moves));
                }
                i = end;
            }
        }
    }
    let (at, moves_before) = unknown?;
    // Named as the reader sees it on the line: the whole word, `e.p.` rather than its `e`
    // (PGN's token ends include `.`, `!` and `?`), up to a blank, a brace or a parenthesis.
    let end = text[at..]
        .iter()
        .position(|c| c.is_ascii_whitespace() || b"(){};".contains(c))
        .map_or(text.len(), |e| at + e);
    Some(Unknown {
        at,
        token: String::from_utf8_lossy(&text[at..end]).into_owned(),
        moves_before,
        alone: !recognised,
    })
}

/// The index of the newline ending the line at `i` (or the end).
fn line_end(text: &[u8], i: usize) -> usize {
    text[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(text.len(), |e| i + e)
}

/// Past a tag whose `[` is before `i`, as pgn-reader reads it: up to the closing quote of its
/// value (backslash escapes skipped) and the `]`; a line without a value ends the tag.
fn tag_end(text: &[u8], mut i: usize) -> usize {
    match text[i..]
        .iter()
        .position(|&c| matches!(c, b'"' | b'\n' | b']'))
    {
        Some(q) if text[i + q] == b'"' => i += q + 1,
        Some(q) => return i + q + 1,
        None => return text.len(),
    }
    while let Some(&c) = text.get(i) {
        match c {
            b'\\' => i += 2,
            b'"' => {
                i += 1;
                break;
            }
            b'\n' => break,
            _ => i += 1,
        }
    }
    while let Some(b' ' | b'\t' | b'\r') = text.get(i) {
        i += 1;
    }
    if text.get(i) == Some(&b']') {
        i += 1;
    }
    i.min(text.len())
}

/// 1-based line and column (in characters) of byte `at`.
fn line_and_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// The game being read. Lives in the visitor (not in pgn-reader's `Tags`/`Movetext` values) so
/// that a syntax error, which pgn-reader reports outside the visitor, can still name the game.
#[derive(Default)]
struct Collector {
    index: usize,
    tags: Vec<(String, String)>,
    start: Chess,
    start_fen: Option<String>,
    pos: Chess,
    moves: Vec<Move>,
    sans: Vec<SanPlus>,
    clocks: Vec<Option<i64>>,
    draw_offers: Vec<bool>,
    result: Option<String>,
    /// Chunks of a comment longer than the reader's buffer.
    comment: String,
    in_movetext: bool,
}

impl Collector {
    fn game_so_far(&self) -> PgnGame {
        PgnGame {
            index: self.index,
            tags: self.tags.clone(),
            start: self.start.clone(),
            start_fen: self.start_fen.clone(),
            moves: self.moves.clone(),
            sans: self.sans.clone(),
            result: self.result.clone(),
            clocks: self.clocks.clone(),
            draw_offers: self.draw_offers.clone(),
        }
    }

    fn error(&self, ply: Option<usize>, kind: PgnErrorKind) -> PgnError {
        PgnError {
            game: self.index,
            white: tag_value(&self.tags, "White").unwrap_or("?").to_owned(),
            black: tag_value(&self.tags, "Black").unwrap_or("?").to_owned(),
            ply,
            kind,
            partial: self.in_movetext.then(|| Box::new(self.game_so_far())),
        }
    }

    fn syntax_error(&self, err: &io::Error) -> PgnError {
        self.error(None, PgnErrorKind::Syntax(err.to_string()))
    }

    /// The game as read, unless `unknown` (a token pgn-reader dropped) comes before whatever
    /// else went wrong: then the error names the token, and the game's legal prefix is the
    /// moves before it.
    #[allow(
        clippy::result_large_err,
        reason = "the reader's own result type (see `read_pgn`), passed through"
    )]
    fn not_pgn(
        &self,
        read: Result<PgnGame, PgnError>,
        unknown: &Unknown,
        bytes: &[u8],
    ) -> Result<PgnGame, PgnError> {
        let partial = match read {
            Ok(game) => game,
            // A move error after the token: the token explains it (the dropped token made the
            // next move the wrong side's), or at least comes first in the file.
            Err(PgnError {
                ply: Some(ply),
                partial: Some(partial),
                ..
            }) if unknown.moves_before < ply => *partial,
            Err(other) => return Err(other),
        };
        let (line, column) = line_and_column(bytes, unknown.at);
        let mut partial = partial;
        let keep = unknown.moves_before.min(partial.moves.len());
        partial.moves.truncate(keep);
        partial.sans.truncate(keep);
        partial.clocks.truncate(keep);
        partial.draw_offers.truncate(keep);
        partial.result = None;
        Err(PgnError {
            game: partial.index,
            white: partial.white().to_owned(),
            black: partial.black().to_owned(),
            ply: Some(keep + 1),
            kind: PgnErrorKind::NotPgn {
                token: unknown.token.clone(),
                line,
                column,
                alone: unknown.alone,
            },
            partial: Some(Box::new(partial)),
        })
    }

    /// `41.` or `41...` for the move about to be played.
    fn number(&self) -> String {
        let dots = if self.pos.turn() == Color::White {
            "."
        } else {
            "..."
        };
        format!("{}{dots}", self.pos.fullmoves())
    }

    fn start_position(&self) -> Result<Option<(Chess, String)>, PgnErrorKind> {
        let Some(fen) = tag_value(&self.tags, "FEN") else {
            return Ok(None);
        };
        let bad = |reason: String| PgnErrorKind::BadFen {
            fen: fen.to_owned(),
            reason,
        };
        let parsed = Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| bad(e.to_string()))?;
        // Standard castling: tactus plays standard chess, and Chess960 castling rights in a FEN
        // would make every later castling move mean something else.
        let pos = parsed
            .into_position(CastlingMode::Standard)
            .map_err(|e| bad(e.to_string()))?;
        Ok(Some((pos, fen.to_owned())))
    }
}

impl Visitor for Collector {
    type Tags = ();
    type Movetext = ();
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        let index = self.index + 1;
        *self = Collector {
            index,
            ..Collector::default()
        };
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        let name = String::from_utf8_lossy(name).into_owned();
        self.tags
            .push((name, value.decode_utf8_lossy().into_owned()));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<Self::Output, Self::Movetext> {
        match self.start_position() {
            Ok(Some((pos, fen))) => {
                self.start = pos.clone();
                self.pos = pos;
                self.start_fen = Some(fen);
            }
            Ok(None) => {}
            Err(kind) => return ControlFlow::Break(Err(self.error(None, kind))),
        }
        self.in_movetext = true;
        ControlFlow::Continue(())
    }

    fn san(&mut self, _: &mut (), san_plus: SanPlus) -> ControlFlow<Self::Output> {
        let ply = Some(self.moves.len() + 1);
        if let Some(result) = &self.result {
            let kind = PgnErrorKind::MoveAfterResult {
                san: san_plus.to_string(),
                number: self.number(),
                result: result.clone(),
            };
            return ControlFlow::Break(Err(self.error(ply, kind)));
        }
        if san_plus.san == San::Null {
            let kind = PgnErrorKind::NullMove {
                san: san_plus.to_string(),
                number: self.number(),
            };
            return ControlFlow::Break(Err(self.error(ply, kind)));
        }
        match san_plus.san.to_move(&self.pos) {
            Ok(m) => {
                self.pos.play_unchecked(m);
                self.moves.push(m);
                self.sans.push(san_plus);
                self.clocks.push(None);
                self.draw_offers.push(false);
                ControlFlow::Continue(())
            }
            Err(err) => {
                let kind = PgnErrorKind::IllegalMove {
                    san: san_plus.to_string(),
                    number: self.number(),
                    position_fen: Fen::from_position(&self.pos, EnPassantMode::Legal).to_string(),
                    ambiguous: err == SanError::AmbiguousSan,
                };
                ControlFlow::Break(Err(self.error(ply, kind)))
            }
        }
    }

    fn partial_comment(
        &mut self,
        _: &mut (),
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        self.comment
            .push_str(&String::from_utf8_lossy(comment.as_bytes()));
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _: &mut (), comment: RawComment<'_>) -> ControlFlow<Self::Output> {
        let mut text = std::mem::take(&mut self.comment);
        text.push_str(&String::from_utf8_lossy(comment.as_bytes()));
        // A clock belongs to the move it follows; a comment before the first move has none.
        if let (Some(ms), Some(last)) = (parse_clk(&text), self.clocks.last_mut()) {
            *last = Some(ms);
        }
        // `(=)` is how the scoresheet (FIDE 9.1 b) and `write_pgn` mark a draw offer.
        if text.contains(DRAW_OFFER_MARK)
            && let Some(last) = self.draw_offers.last_mut()
        {
            *last = true;
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _: &mut (), outcome: Outcome) -> ControlFlow<Self::Output> {
        self.result
            .get_or_insert_with(|| outcome.as_str().to_owned());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: ()) -> Self::Output {
        Ok(self.game_so_far())
    }
}

fn tag_value<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// One move to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportMove {
    pub san: SanPlus,
    /// The mover's remaining time after the move, written as `[%clk h:mm:ss]`.
    pub clock_ms: Option<i64>,
    /// The mover offered a draw with this move (FIDE 9.1 b: recorded as `(=)` on the
    /// scoresheet). Written inside the move's comment, `{ (=) }` or `{ [%clk 0:59:58] (=) }`:
    /// PGN has no standard NAG for a draw offer, and a comment keeps the mark readable by people
    /// and by every PGN reader.
    pub draw_offer: bool,
}

/// A game to write.
#[derive(Debug, Clone, Copy)]
pub struct Export<'a> {
    /// Tags; the Seven Tag Roster is taken from here (missing ones become `?`), the rest follow.
    /// `Result`, `SetUp` and `FEN` given here are ignored: they come from `result` and `start`.
    pub tags: &'a [(String, String)],
    /// The starting position; `None` or the standard position writes no FEN. Move numbers and
    /// the side to move come from it.
    pub start: Option<&'a Chess>,
    pub moves: &'a [ExportMove],
    /// `1-0`, `0-1`, `1/2-1/2` or `*`; anything else is written as `*` (a PGN reader would not
    /// accept it).
    pub result: &'a str,
    /// Written as the `Termination` tag right after the roster (and FEN), replacing any
    /// `Termination` in `tags`.
    pub termination: Option<&'a str>,
    /// Comments for people (the arbiter's clock changes), each after the given number of
    /// half-moves (0: before the first move), written in that move's comment.
    pub notes: &'a [(usize, String)],
}

/// The scoresheet's mark for a draw offer (FIDE 9.1 b), written in the offerer's move comment.
pub const DRAW_OFFER_MARK: &str = "(=)";

/// Movetext is wrapped to lines of at most this many characters (the PGN export format says 80).
const LINE_WIDTH: usize = 80;

const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Writes one game in PGN export format: the Seven Tag Roster (Event, Site, Date, Round, White,
/// Black, Result) in that order, then `SetUp`/`FEN` for a non-standard start, then `Termination`,
/// then the remaining tags in the given order (each name once); a blank line; the movetext
/// wrapped at 80 columns without splitting a move from its number or comment, ending with the
/// result token and a blank line.
pub fn write_pgn(e: &Export) -> String {
    let result = match e.result {
        r @ ("1-0" | "0-1" | "1/2-1/2" | "*") => r,
        _ => "*",
    };
    let start = e.start.filter(|p| fen(p) != STANDARD_FEN);
    let mut out = String::new();
    write_tags(&mut out, e, result, start);
    out.push('\n');
    wrap_movetext(&mut out, movetext_units(e, result, start));
    out.push_str("\n\n");
    out
}

/// The tag pairs: the roster in its order, `SetUp`/`FEN`, `Termination`, then the others given.
fn write_tags(out: &mut String, e: &Export, result: &str, start: Option<&Chess>) {
    let mut written: Vec<&str> = vec!["SetUp", "FEN"];
    let roster = [
        ("Event", "?"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
        ("White", "?"),
        ("Black", "?"),
    ];
    for (name, default) in roster {
        write_tag(out, name, tag_value(e.tags, name).unwrap_or(default));
        written.push(name);
    }
    write_tag(out, "Result", result);
    written.push("Result");
    if let Some(pos) = start {
        write_tag(out, "SetUp", "1");
        write_tag(out, "FEN", &fen(pos));
    }
    if let Some(termination) = e.termination {
        write_tag(out, "Termination", termination);
        written.push("Termination");
    }
    for (name, value) in e.tags {
        if !written.contains(&name.as_str()) {
            write_tag(out, name, value);
            written.push(name);
        }
    }
}

/// The movetext as units, one per move: its number, the SAN and its comment, so that a line
/// break never falls between a move and its number or its clock (a reader, or an arbiter, takes
/// in a move whole); notes before the first move lead, the result token ends it.
fn movetext_units(e: &Export, result: &str, start: Option<&Chess>) -> Vec<String> {
    let (mut number, mut turn) =
        start.map_or((1, Color::White), |p| (p.fullmoves().get(), p.turn()));
    let mut units: Vec<String> = Vec::with_capacity(e.moves.len() + 1);
    // Black's move needs its own number (`12...`) at the start and after a comment.
    let mut black_needs_number = true;
    // A brace would end the comment early; people's words never need one.
    let notes_after = |ply: usize| {
        e.notes
            .iter()
            .filter(move |(at, _)| *at == ply)
            .map(|(_, text)| text.replace(['{', '}'], ""))
    };
    // Before the first move; all of them in a record without moves.
    let before: Vec<String> = if e.moves.is_empty() {
        e.notes
            .iter()
            .map(|(_, text)| text.replace(['{', '}'], ""))
            .collect()
    } else {
        notes_after(0).collect()
    };
    if !before.is_empty() {
        units.push(format!("{{ {} }}", before.join("; ")));
    }
    for (i, m) in e.moves.iter().enumerate() {
        let mut unit = match turn {
            Color::White => format!("{number}. "),
            Color::Black if black_needs_number => format!("{number}... "),
            Color::Black => String::new(),
        };
        unit.push_str(&m.san.to_string());
        let mut comment = Vec::new();
        if let Some(ms) = m.clock_ms {
            comment.push(format!("[%clk {}]", format_clk(ms)));
        }
        if m.draw_offer {
            comment.push(DRAW_OFFER_MARK.to_owned());
        }
        // Notes for plies beyond the moves (a retrace took them back) stay after the last move.
        let ply = i + 1;
        let notes: Vec<String> = if ply == e.moves.len() {
            e.notes
                .iter()
                .filter(|(at, _)| *at >= ply)
                .map(|(_, text)| text.replace(['{', '}'], ""))
                .collect()
        } else {
            notes_after(ply).collect()
        };
        if !notes.is_empty() {
            comment.push(notes.join("; "));
        }
        black_needs_number = !comment.is_empty();
        if black_needs_number {
            unit.push_str(&format!(" {{ {} }}", comment.join(" ")));
        }
        units.push(unit);
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    units.push(result.to_owned());
    units
}

/// The units in lines of at most [`LINE_WIDTH`] characters (a longer unit stands alone).
fn wrap_movetext(out: &mut String, units: Vec<String>) {
    let mut line = String::new();
    for unit in units {
        if !line.is_empty() && line.chars().count() + 1 + unit.chars().count() > LINE_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&unit);
    }
    out.push_str(&line);
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// `[Name "value"]` with `\` and `"` escaped; line breaks become spaces, since a tag pair must
/// stay on one line.
fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
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

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = r#"[Event "Club"]
[Site "Here"]
[Date "2024.01.02"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0
"#;

    fn one(pgn: &str) -> PgnGame {
        let mut games = read_pgn(pgn.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(games.len(), 1);
        games.remove(0)
    }

    fn err(pgn: &str) -> PgnError {
        read_pgn(pgn.as_bytes()).expect_err("should fail")
    }

    fn san_list(g: &PgnGame) -> Vec<String> {
        g.sans.iter().map(ToString::to_string).collect()
    }

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn reads_a_plain_game() {
        let g = one(GAME);
        assert_eq!(g.index, 1);
        assert_eq!(g.white(), "A");
        assert_eq!(g.black(), "B");
        assert_eq!(g.tag("Site"), Some("Here"));
        assert_eq!(g.tag("site"), None);
        assert_eq!(g.tags.len(), 7);
        assert_eq!(g.tags[0], ("Event".to_owned(), "Club".to_owned()));
        assert_eq!(san_list(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert_eq!(g.moves.len(), 6);
        assert_eq!(g.clocks, vec![None; 6]);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        assert_eq!(g.start, Chess::default());
        assert_eq!(g.start_fen, None);
    }

    #[test]
    fn missing_names_default_to_question_mark() {
        let g = one("1. e4 *");
        assert_eq!((g.white(), g.black()), ("?", "?"));
        assert_eq!(g.result.as_deref(), Some("*"));
        let g = one("1. e4");
        assert_eq!(g.result, None);
    }

    #[test]
    fn numbers_games_and_skips_variations_and_nags() {
        let pgn = format!(
            "{GAME}\n[White \"C\"]\n\n1. d4 (1. e4 e5 (1... c5) 2. Nf3) 1... d5 $1 2. c4!? {{ a comment }} *\n"
        );
        let games = read_pgn(pgn.as_bytes()).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].index, 2);
        assert_eq!(san_list(&games[1]), ["d4", "d5", "c4"]);
    }

    #[test]
    fn null_move_is_an_error_at_its_ply() {
        let e = err("[White \"W\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Z0 3. Bc4 *");
        assert_eq!(e.game, 1);
        assert_eq!(e.ply, Some(4));
        assert_eq!(
            e.kind,
            PgnErrorKind::NullMove {
                san: "--".into(),
                number: "2...".into()
            }
        );
        assert_eq!(e.legal_prefix().len(), 3);
        assert_eq!(e.start(), Some(&Chess::default()));
        assert_eq!(e.san(), Some("--"));
        assert_eq!(
            e.to_string(),
            "game 1 (W - B), ply 4 (2... --): null moves (Z0, --) are not allowed in a game \
             record; replace it with the move actually played, or end the movetext before it"
        );
        let e = err("1. e4 e5 2. -- Nc6 *");
        assert_eq!(e.ply, Some(3));
        assert!(
            e.to_string()
                .starts_with("game 1 (? - ?), ply 3 (2. --): null moves"),
            "{e}"
        );
    }

    #[test]
    fn illegal_and_ambiguous_moves() {
        let e = err(&format!(
            "{GAME}\n[White \"X\"]\n[Black \"Y\"]\n\n1. e4 e5 2. Ke3 *"
        ));
        assert_eq!(e.game, 2);
        assert_eq!(e.ply, Some(3));
        assert_eq!(e.legal_prefix().len(), 2);
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        assert_eq!(
            e.kind,
            PgnErrorKind::IllegalMove {
                san: "Ke3".into(),
                number: "2.".into(),
                position_fen: fen.into(),
                ambiguous: false
            }
        );
        assert!(
            e.to_string().starts_with(&format!(
                "game 2 (X - Y), ply 3 (2. Ke3): illegal move in position {fen}"
            )),
            "{e}"
        );
        // Strict: a capture mark on a non-capture is not accepted in a PGN.
        let e = err("1. Nxf3 *");
        assert_eq!(e.ply, Some(1));
        assert!(matches!(
            e.kind,
            PgnErrorKind::IllegalMove {
                ambiguous: false,
                ..
            }
        ));
        // Two knights can reach d2.
        let e = err("1. d4 d5 2. Nf3 Nf6 3. Nd2 *");
        assert_eq!(e.ply, Some(5));
        assert!(matches!(
            e.kind,
            PgnErrorKind::IllegalMove {
                ambiguous: true,
                ..
            }
        ));
        assert!(
            e.to_string()
                .contains("(3. Nd2): ambiguous move in position"),
            "{e}"
        );
    }

    #[test]
    fn move_after_the_result_is_an_error() {
        let e = err("1. e4 e5 1-0 2. Nf3 *");
        assert_eq!(e.ply, Some(3));
        assert_eq!(
            e.kind,
            PgnErrorKind::MoveAfterResult {
                san: "Nf3".into(),
                number: "2.".into(),
                result: "1-0".into()
            }
        );
        assert!(
            e.to_string().starts_with(
                "game 1 (? - ?), ply 3 (2. Nf3): the movetext goes on after the result 1-0"
            ),
            "{e}"
        );
        assert_eq!(e.legal_prefix().len(), 2);
    }

    /// pgn-reader skips a token it cannot read as SAN without telling us, which made the next
    /// move look illegal for the wrong reason (issue 15, point 13): the token itself is the
    /// error, with its line and column, and the moves before it are the legal prefix.
    #[test]
    fn an_unreadable_token_is_named_where_it_stands() {
        let e = err("[White \"W\"]\n\n1. e4 e5\n2. Nz9 Nc6 3. Nf3 *");
        assert_eq!(e.ply, Some(3));
        assert_eq!(e.san(), Some("Nz9"));
        assert_eq!(
            e.kind,
            PgnErrorKind::NotPgn {
                token: "Nz9".into(),
                line: 4,
                column: 4,
                alone: false
            }
        );
        assert_eq!(e.legal_prefix().len(), 2);
        assert_eq!(
            e.to_string(),
            "game 1 (W - ?): line 4, column 4: 'Nz9' is not PGN (not a move in SAN, a move \
             number, a result, a comment in braces, an annotation or a variation); correct the \
             move, or put the words in braces { } as a comment"
        );
        assert!(!e.is_not_a_game());
        // A word in a game that is otherwise legal: no longer dropped.
        let e = err("1. e4 e5 2. Nf3 hello Nc6 *");
        assert_eq!((e.ply, e.san()), (Some(4), Some("hello")));
        assert_eq!(e.legal_prefix().len(), 3);
        // After the result, in a variation, a bad NAG, a figurine, columns in characters.
        for (pgn, token, column) in [
            ("1. e4 e5 1-0 hello", "hello", 14),
            ("1. e4 (1. d4 what) e5 *", "what", 14),
            ("1. e4 $x e5 *", "$x", 7),
            ("1. e4 e5 2. ♘f3 *", "♘f3", 13),
            ("{ Müller } 1. e4 e5 2. Nf3 +- *", "+-", 28),
            ("1. e4 12abc *", "12abc", 7),
            ("1. e4 d5 2. e5 f5 3. exf6 e.p. Nxf6 *", "e.p.", 27),
            ("1. e4 e5 2. Nf3 Nc6 3. Bb5 +/= *", "+/=", 28),
        ] {
            let e = err(pgn);
            assert_eq!(e.san(), Some(token), "{pgn}");
            assert!(
                matches!(e.kind, PgnErrorKind::NotPgn { line: 1, column: c, .. } if c == column),
                "{pgn}: {e}"
            );
        }
        // An illegal move before the unknown token is the error.
        let e = err("1. e4 e5 2. Ke3 hello *");
        assert_eq!((e.ply, e.san()), (Some(3), Some("Ke3")));
    }

    /// Issue 15, point 13: "hello world" was read as a game without moves.
    #[test]
    fn text_that_is_not_pgn_is_no_game() {
        let e = err("hello world\n");
        assert!(e.is_not_a_game());
        assert_eq!(
            e.kind,
            PgnErrorKind::NotPgn {
                token: "hello".into(),
                line: 1,
                column: 1,
                alone: true
            }
        );
        assert!(e.to_string().ends_with(
            "; no game here: a PGN game is tags such as [White \"...\"] and moves such as 1. e4 e5"
        ));
        // Garbage before a game is a stretch of its own (pgn-reader ends it at the tags).
        let each = read_pgn_each(b"hello\n[White \"A\"]\n\n1. e4 *\n");
        assert_eq!(each.len(), 2);
        assert!(each[0].as_ref().unwrap_err().is_not_a_game());
        assert_eq!(each[1].as_ref().unwrap().moves.len(), 1);
        // Words before the moves of a game make it a game with an error, not "no game".
        let e = err("hello 1. e4 e5 *");
        assert!(!e.is_not_a_game());
    }

    /// Everything PGN allows in movetext is still read without complaint.
    #[test]
    fn every_kind_of_pgn_token_is_accepted() {
        let pgn = "% escape line\n[Event \"A \\\"quoted\\\" ]\"]\n[Black \"B\"]\n\n\
                   1.e4 $1 e5!? 2. Nf3 (2. f4 exf4 $6 (2... d5)) 2... Nc6 ; rest of line { x }\n\
                   % escape in movetext\n3. Bb5 {a (=) comment} a6?! 4. Ba4 Nf6 5. 0-0 Be7 6. \
                   Re1+ b5 7. Bb3 d6 8. c3 0-0 9. h3 1/2-1/2\n\n\
                   1. d4 d5 ½-½\n\n1. c4 c5 1–0\n\n1e4 *\n";
        let games = read_pgn(pgn.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(games.len(), 4);
        assert_eq!(games[0].moves.len(), 17);
        assert_eq!(games[0].tag("Event"), Some("A \"quoted\" ]"));
        assert_eq!(games[3].moves.len(), 1);
    }

    #[test]
    fn read_pgn_stops_read_pgn_each_goes_on() {
        let pgn = "1. e4 Z0 *\n\n1. d4 d5 *\n\n1. e4 e5 2. Kd3 *\n\n1. c4 *\n";
        assert_eq!(read_pgn(pgn.as_bytes()).unwrap_err().game, 1);
        let each = read_pgn_each(pgn.as_bytes());
        assert_eq!(each.len(), 4);
        assert!(each[0].is_err());
        assert_eq!(each[1].as_ref().unwrap().moves.len(), 2);
        assert_eq!(each[1].as_ref().unwrap().index, 2);
        let third = each[2].as_ref().unwrap_err();
        assert_eq!((third.game, third.ply), (3, Some(3)));
        assert_eq!(each[3].as_ref().unwrap().index, 4);
    }

    #[test]
    fn bad_fen() {
        let e = err("[White \"W\"]\n[SetUp \"1\"]\n[FEN \"not a fen\"]\n\n1. e4 *");
        assert_eq!(e.ply, None);
        assert!(matches!(&e.kind, PgnErrorKind::BadFen { fen, .. } if fen == "not a fen"));
        assert_eq!(e.start(), None);
        assert!(e.legal_prefix().is_empty());
        let text = e.to_string();
        assert!(
            text.starts_with("game 1 (W - ?): the FEN tag \"not a fen\" is not a usable"),
            "{text}"
        );
        // Parses, but no kings.
        let e = err("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*");
        assert!(
            matches!(&e.kind, PgnErrorKind::BadFen { reason, .. } if reason.contains("illegal position")),
            "{e}"
        );
    }

    #[test]
    fn syntax_error_stops_reading() {
        let each = read_pgn_each(b"1. e4 *\n\n[White \"Z\"]\n\n1. e4 { never closed");
        assert_eq!(each.len(), 2);
        let e = each[1].as_ref().unwrap_err();
        assert_eq!(e.game, 2);
        assert_eq!(e.white, "Z");
        assert!(
            matches!(&e.kind, PgnErrorKind::Syntax(s) if s.contains("unterminated comment")),
            "{e}"
        );
        assert_eq!(e.legal_prefix().len(), 1);
    }

    #[test]
    fn bom_and_empty_games() {
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend_from_slice(b"[Event \"A\"]\n[White \"W\"]\n\n *\n\n[Event \"B\"]\n\n*\n\n");
        let games = read_pgn(&bytes).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("Event"), Some("A"));
        assert_eq!(games[1].tag("Event"), Some("B"));
        assert!(
            games
                .iter()
                .all(|g| g.moves.is_empty() && g.result.as_deref() == Some("*"))
        );
        assert!(read_pgn(b"").unwrap().is_empty());
        assert!(read_pgn(b"\n\n  \n").unwrap().is_empty());
    }

    #[test]
    fn fen_start_with_black_to_move() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let pgn = format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1... e5 2. Nf3 Nc6 *");
        let g = one(&pgn);
        assert_eq!(g.start_fen.as_deref(), Some(fen));
        assert_eq!(g.start.turn(), Color::Black);
        assert_eq!(san_list(&g), ["e5", "Nf3", "Nc6"]);
        // Ply 1 is Black's first move; ply 3 is Black's second.
        let e = err(&format!(
            "[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1... e5 2. Nf3 Ke5 *"
        ));
        assert_eq!(e.ply, Some(3));
        assert!(e.to_string().contains("ply 3 (2... Ke5)"), "{e}");
        assert_eq!(e.start().map(|p| p.turn()), Some(Color::Black));
        // Writing starts with `1...` and the FEN.
        let text = g.to_pgn();
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]"), "{text}");
        assert!(text.contains("\n\n1... e5 2. Nf3 Nc6 *\n\n"), "{text}");
        assert_eq!(one(&text).moves, g.moves);
    }

    #[test]
    fn fen_without_setup_is_honoured() {
        let g = one("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 40\"]\n\n40. e4 Kd7 *");
        assert_eq!(g.moves.len(), 2);
        let text = g.to_pgn();
        assert!(text.contains("\n\n40. e4 Kd7 *\n\n"), "{text}");
    }

    #[test]
    fn clocks_are_read_per_ply() {
        let g = one(
            "{ start [%clk 9:00:00] } 1. e4 { [%clk 1:30:00] } e5 {[%clk 1:29:59.5]} 2. Nf3 { [%emt 0:00:01] } *",
        );
        assert_eq!(g.clocks, [Some(5_400_000), Some(5_399_500), None]);
    }

    #[test]
    fn format_and_parse_clk() {
        assert_eq!(format_clk(0), "0:00:00");
        assert_eq!(format_clk(-5_000), "0:00:00");
        assert_eq!(format_clk(999), "0:00:00");
        assert_eq!(format_clk(61_000), "0:01:01");
        assert_eq!(format_clk(5_400_000), "1:30:00");
        assert_eq!(format_clk(36_000_000 * 3 + 59_999), "30:00:59");
        assert_eq!(parse_clk("[%clk 1:30:00]"), Some(5_400_000));
        assert_eq!(parse_clk("text [%clk  0:00:07.25 ] more"), Some(7_250));
        assert_eq!(parse_clk("[%clk 0:00:07.1]"), Some(7_100));
        assert_eq!(parse_clk("[%clk 0:00:07.12345]"), Some(7_123));
        assert_eq!(
            parse_clk("[%clk 12:5:3]"),
            Some(((12 * 60 + 5) * 60 + 3) * 1000)
        );
        for bad in [
            "",
            "no clock",
            "[%clk]",
            "[%clk 1:30]",
            "[%clk 1:60:00]",
            "[%clk 1:00:60]",
            "[%clk a:00:00]",
            "[%clk 1:00:00",
            "[%clk 1:00:00.]",
            "[%clk 1:00:00:00]",
            "[%clk -0:00:01]",
        ] {
            assert_eq!(parse_clk(bad), None, "{bad}");
        }
        for ms in [0, 1_000, 59_000, 3_599_000, 3_600_000, 7_322_000] {
            assert_eq!(parse_clk(&format!("[%clk {}]", format_clk(ms))), Some(ms));
        }
    }

    fn export_of(sans: &[&str], clocks: &[Option<i64>]) -> Vec<ExportMove> {
        sans.iter()
            .zip(clocks)
            .map(|(s, &clock_ms)| ExportMove {
                san: s.parse().unwrap(),
                clock_ms,
                draw_offer: false,
            })
            .collect()
    }

    #[test]
    fn write_read_round_trip_of_moves_clocks_and_tags() {
        let tags = vec![
            ("White".to_owned(), "Smith, J.".to_owned()),
            ("Black".to_owned(), "O\"Brien \\ Jr".to_owned()),
            ("Event".to_owned(), "Open".to_owned()),
            ("TimeControl".to_owned(), "5400+30".to_owned()),
            ("ECO".to_owned(), "C60".to_owned()),
        ];
        let clocks = [
            Some(5_400_000),
            Some(5_399_000),
            None,
            Some(5_000_000),
            Some(-3_000),
            Some(1),
        ];
        let moves = export_of(&["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"], &clocks);
        let text = write_pgn(&Export {
            tags: &tags,
            start: None,
            moves: &moves,
            result: "1/2-1/2",
            termination: Some("normal"),
            notes: &[],
        });
        let g = one(&text);
        assert_eq!(san_list(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert_eq!(
            g.clocks,
            [
                Some(5_400_000),
                Some(5_399_000),
                None,
                Some(5_000_000),
                Some(0),
                Some(0)
            ]
        );
        assert_eq!(g.white(), "Smith, J.");
        assert_eq!(g.black(), "O\"Brien \\ Jr");
        assert_eq!(g.tag("TimeControl"), Some("5400+30"));
        assert_eq!(g.tag("Termination"), Some("normal"));
        assert_eq!(g.tag("Result"), Some("1/2-1/2"));
        assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
        // Writing what was read gives the same text again.
        assert_eq!(
            write_pgn(&Export {
                tags: &g.tags,
                start: Some(&g.start),
                moves: &g.export_moves(),
                result: "1/2-1/2",
                termination: None,
                notes: &[],
            }),
            text
        );
    }

    #[test]
    fn seven_tag_roster_first_then_fen_termination_rest() {
        let tags = vec![
            ("ECO".to_owned(), "B20".to_owned()),
            ("Black".to_owned(), "B".to_owned()),
            ("Result".to_owned(), "0-1".to_owned()),
            ("FEN".to_owned(), "stale".to_owned()),
            ("Termination".to_owned(), "old".to_owned()),
            ("White".to_owned(), "W".to_owned()),
            ("ECO".to_owned(), "dup".to_owned()),
            ("Annotator".to_owned(), "me".to_owned()),
        ];
        let start = chess("4k3/8/8/8/8/8/4P3/4K3 b - - 3 17");
        let moves = export_of(&["Kd7", "e4"], &[None, None]);
        let text = write_pgn(&Export {
            tags: &tags,
            start: Some(&start),
            moves: &moves,
            result: "*",
            termination: Some("unterminated"),
            notes: &[],
        });
        let expected = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"W\"]\n\
             [Black \"B\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 3 17\"]\n\
             [Termination \"unterminated\"]\n[ECO \"B20\"]\n[Annotator \"me\"]\n\n17... Kd7 18. e4 *\n\n";
        assert_eq!(text, expected);
        // Without a termination, one given among the tags is kept; a standard start writes no FEN.
        let text = write_pgn(&Export {
            tags: &tags,
            start: Some(&Chess::default()),
            moves: &[],
            result: "0-1",
            termination: None,
            notes: &[],
        });
        assert!(
            text.contains(
                "[Result \"0-1\"]\n[ECO \"B20\"]\n[Termination \"old\"]\n[Annotator \"me\"]\n\n"
            ),
            "{text}"
        );
        assert!(!text.contains("FEN") && !text.contains("SetUp"), "{text}");
        assert!(text.ends_with("\n\n0-1\n\n"), "{text}");
        // A result that is not a PGN result token is written as `*`.
        let text = write_pgn(&Export {
            tags: &[],
            start: None,
            moves: &[],
            result: "white won",
            termination: None,
            notes: &[],
        });
        assert!(
            text.contains("[Result \"*\"]") && text.ends_with("\n\n*\n\n"),
            "{text}"
        );
    }

    #[test]
    fn tag_values_are_escaped() {
        let tags = vec![("Event".to_owned(), "a \"b\" \\c\\\nd".to_owned())];
        let text = write_pgn(&Export {
            tags: &tags,
            start: None,
            moves: &[],
            result: "*",
            termination: None,
            notes: &[],
        });
        assert!(
            text.starts_with("[Event \"a \\\"b\\\" \\\\c\\\\ d\"]\n"),
            "{text}"
        );
        assert_eq!(one(&text).tag("Event"), Some("a \"b\" \\c\\ d"));
    }

    #[test]
    fn movetext_wraps_at_80_columns_and_numbers_black_after_comments() {
        // 40 moves of knights shuffling, with clocks and a draw offer, to get long lines.
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        for i in 0..80 {
            let san: SanPlus = cycle[i % 4].parse().unwrap();
            let m = san.san.to_move(&pos).unwrap();
            moves.push(ExportMove {
                san: SanPlus::from_move_and_play_unchecked(&mut pos, m),
                clock_ms: (i % 3 == 0).then_some(3_600_000 - i as i64 * 1_000),
                draw_offer: i == 3,
            });
        }
        let text = write_pgn(&Export {
            tags: &[],
            start: None,
            moves: &moves,
            result: "1/2-1/2",
            termination: None,
            notes: &[],
        });
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert!(movetext.lines().count() > 5);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{line:?} is {} long",
                line.chars().count()
            );
            assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
        }
        // A move keeps its number and its comment on its line.
        for line in movetext.lines() {
            assert!(!line.ends_with('.') && !line.starts_with('{'), "{line:?}");
        }
        // Comments are not split; Black's move after a comment gets its number.
        let flat = text.replace('\n', " ");
        assert!(
            flat.contains(
                "1. Nf3 { [%clk 1:00:00] } 1... Nf6 2. Ng1 Ng8 { [%clk 0:59:57] (=) } 3. Nf3"
            ),
            "{text}"
        );
        assert!(text.ends_with(" 1/2-1/2\n\n"), "{text}");
        let g = one(&text);
        assert_eq!(g.moves.len(), 80);
        assert_eq!(g.clocks[3], Some(3_597_000));
        assert_eq!(g.clocks[5], None);
        // The draw offer is read back onto its move, and written again.
        let offered: Vec<usize> = (0..g.moves.len()).filter(|&i| g.draw_offers[i]).collect();
        assert_eq!(offered, [3]);
        assert_eq!(g.to_pgn(), text);
    }

    #[test]
    fn long_tokens_are_never_split() {
        let moves = vec![
            ExportMove {
                san: "e4".parse().unwrap(),
                clock_ms: Some(1_000),
                draw_offer: true
            };
            1
        ];
        let text = write_pgn(&Export {
            tags: &[],
            start: None,
            moves: &moves,
            result: "*",
            termination: None,
            notes: &[],
        });
        assert!(
            text.ends_with("\n\n1. e4 { [%clk 0:00:01] (=) } *\n\n"),
            "{text}"
        );
    }
}
