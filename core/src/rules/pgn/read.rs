//! Reading PGN: each game's tags, its moves replayed with strict SAN and checked, its clocks;
//! every problem an error naming the game, the ply and the token (see the module docs of
//! [`super`] for how pgn-reader is complemented).

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

use super::{
    DRAW_OFFER_MARK, parse_clk, tag_value,
    write::{Export, ExportMove, write_pgn},
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
