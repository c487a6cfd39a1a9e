//! What board-test tells the user ([`Report`]), each in two forms: a plain sentence for people and
//! screen readers, and one JSON object per line for scripts and tests; the board as a diagram;
//! and the [`Printer`] that writes them, flushing every line.

use std::io::Write;

use anyhow::Result;
use serde_json::{Value, json};
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use tactus_core::{
    announce::count,
    board::{
        Sensing,
        recognize::{BoardDiff, Found, Recognizer},
    },
};

/// One thing to tell the user. Each has a plain-text and a JSON form.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    Start {
        profile: String,
        description: String,
        port: String,
    },
    Unavailable {
        reason: String,
    },
    Connected {
        info: String,
    },
    Board {
        rows: Vec<String>,
        sensing: Sensing,
        diff: BoardDiff,
    },
    Disconnected {
        reason: String,
    },
    /// `identified`: the board itself told the piece (DGT); on an occupancy board the piece is
    /// only what the events suggest.
    Touched {
        square: Square,
        piece: Option<Piece>,
        identified: bool,
    },
    Lifted {
        square: Square,
        piece: Option<Piece>,
        identified: bool,
    },
    Move {
        ply: usize,
        number: String,
        san: String,
        uci: String,
        touches: Vec<Square>,
    },
    Promotion {
        from: Square,
        to: Square,
    },
    InputError {
        text: String,
    },
    Differs {
        diff: BoardDiff,
    },
    Matches,
    ChangedWhileAway {
        squares: Bitboard,
    },
    Button {
        number: u8,
    },
    Garbage {
        bytes: u64,
    },
    Rejected {
        reason: String,
    },
    Unknown {
        message: String,
    },
    BoardFault {
        text: String,
    },
    End {
        reason: String,
        result: String,
    },
}

fn piece_letter(p: Option<Piece>) -> Value {
    p.map_or(Value::Null, |p| Value::String(p.char().to_string()))
}

fn piece_words(p: Piece) -> String {
    let color = match p.color {
        Color::White => "white",
        Color::Black => "black",
    };
    let role = match p.role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    };
    format!("{color} {role}")
}

fn squares_json(squares: impl IntoIterator<Item = Square>) -> Value {
    Value::Array(
        squares
            .into_iter()
            .map(|s| Value::String(s.to_string()))
            .collect(),
    )
}

fn squares_words(squares: impl IntoIterator<Item = Square>) -> String {
    squares
        .into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn found_json(found: Found) -> (Value, Value) {
    match found {
        Found::Empty => (Value::Null, Value::Null),
        Found::Piece(p) => (piece_letter(Some(p)), Value::Null),
        Found::Occupied { likely } => (Value::String("occupied".into()), piece_letter(likely)),
    }
}

fn found_words(found: Found) -> String {
    match found {
        Found::Empty => "nothing".into(),
        Found::Piece(p) => format!("a {}", piece_words(p)),
        Found::Occupied { likely: Some(p) } => format!("a piece (probably the {})", piece_words(p)),
        Found::Occupied { likely: None } => "a piece".into(),
    }
}

fn diff_json(diff: &BoardDiff) -> Value {
    Value::Array(
        diff.squares
            .iter()
            .map(|d| {
                let (found, likely) = found_json(d.found);
                json!({"square": d.square.to_string(), "expected": piece_letter(d.expected), "found": found, "likely": likely})
            })
            .collect(),
    )
}

fn diff_words(diff: &BoardDiff) -> String {
    diff.squares
        .iter()
        .map(|d| {
            let expected = d
                .expected
                .map_or_else(|| "nothing".to_owned(), |p| format!("a {}", piece_words(p)));
            format!(
                "{}: {} stands there, {} belongs there",
                d.square,
                found_words(d.found),
                expected
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl Report {
    /// The JSON object, one per line.
    pub fn json(&self) -> Value {
        match self {
            Report::Start {
                profile,
                description,
                port,
            } => {
                json!({"event": "start", "profile": profile, "description": description, "port": port})
            }
            Report::Unavailable { reason } => json!({"event": "unavailable", "reason": reason}),
            Report::Connected { info } => json!({"event": "connected", "info": info}),
            Report::Board {
                rows,
                sensing,
                diff,
            } => json!({
                "event": "board",
                "rows": rows,
                "identifies_pieces": *sensing == Sensing::Identity,
                "matches": diff.squares.is_empty(),
                "differs": diff_json(diff),
            }),
            Report::Disconnected { reason } => json!({"event": "disconnected", "reason": reason}),
            // "piece" is what the board identified (null on an occupancy board); "likely" is the
            // piece the events suggest, for people setting up a tactile board.
            Report::Touched {
                square,
                piece,
                identified,
            } => json!({
                "event": "touched",
                "square": square.to_string(),
                "piece": if *identified { piece_letter(*piece) } else { Value::Null },
                "likely": piece_letter(*piece),
            }),
            Report::Lifted {
                square,
                piece,
                identified,
            } => json!({
                "event": "lifted",
                "square": square.to_string(),
                "piece": if *identified { piece_letter(*piece) } else { Value::Null },
                "likely": piece_letter(*piece),
            }),
            Report::Move {
                ply,
                san,
                uci,
                touches,
                ..
            } => json!({
                "event": "move", "ply": ply, "san": san, "uci": uci, "touches": squares_json(touches.iter().copied()),
            }),
            Report::Promotion { from, to } => {
                json!({"event": "promotion", "square": to.to_string(), "from": from.to_string()})
            }
            Report::InputError { text } => json!({"event": "input_error", "text": text}),
            Report::Differs { diff } => json!({"event": "differs", "squares": diff_json(diff)}),
            Report::Matches => json!({"event": "matches"}),
            Report::ChangedWhileAway { squares } => {
                json!({"event": "changed_while_away", "squares": squares_json(*squares)})
            }
            Report::Button { number } => json!({"event": "button", "number": number}),
            Report::Garbage { bytes } => json!({"event": "garbage", "bytes": bytes}),
            Report::Rejected { reason } => json!({"event": "rejected", "reason": reason}),
            Report::Unknown { message } => json!({"event": "unknown", "message": message}),
            Report::BoardFault { text } => json!({"event": "board_fault", "text": text}),
            Report::End { reason, result } => {
                json!({"event": "end", "reason": reason, "result": result})
            }
        }
    }

    /// Plain lines for people: one fact per line, no layout a screen reader would stumble over.
    pub fn text(&self) -> Vec<String> {
        match self {
            Report::Start {
                profile,
                description,
                port,
            } => vec![
                format!("Board test: {description} (profile {profile}) on {port}."),
                "Waiting for the board. Press Ctrl-C to stop.".into(),
            ],
            Report::Unavailable { reason } => {
                vec![format!("Board not available: {reason}. Retrying.")]
            }
            Report::Connected { info } => vec![format!("Connected: {info}.")],
            Report::Board {
                rows,
                sensing,
                diff,
            } => {
                let mut lines = vec![match sensing {
                    Sensing::Identity => "The board shows (White at the bottom, . empty):".to_owned(),
                    Sensing::Occupancy => {
                        "The board shows (White at the bottom, x occupied, . empty; this board cannot tell which piece):"
                            .to_owned()
                    }
                }];
                lines.extend(rows.iter().cloned());
                lines.push(if diff.squares.is_empty() {
                    "That is the expected position.".to_owned()
                } else {
                    format!("Not the expected position. {}.", diff_words(diff))
                });
                lines
            }
            Report::Disconnected { reason } => {
                vec![format!("Disconnected: {reason}. Reconnecting.")]
            }
            Report::Touched { square, piece, .. } => vec![match piece {
                Some(p) => format!("Touched: {} on {square}.", piece_words(*p)),
                None => format!("Touched: {square}."),
            }],
            Report::Lifted { square, piece, .. } => vec![match piece {
                Some(p) => format!("Lifted: {} on {square}.", piece_words(*p)),
                None => format!("Lifted: {square}."),
            }],
            Report::Move {
                number, san, uci, ..
            } => vec![format!("Move {number} {san} ({uci}).")],
            Report::Promotion { from, to } => vec![format!(
                "Promotion: the pawn from {from} stands on {to}. Which piece? Type q, r, b or n and press Enter."
            )],
            Report::InputError { text } => vec![text.clone()],
            Report::Differs { diff } => vec![format!("The board differs. {}.", diff_words(diff))],
            Report::Matches => vec!["The board is as expected again.".into()],
            Report::ChangedWhileAway { squares } => {
                vec![format!(
                    "Changed while the board was away: {}.",
                    squares_words(*squares)
                )]
            }
            Report::Button { number } => vec![format!("Button {number} pressed.")],
            Report::Garbage { bytes } => vec![format!(
                "Skipped {} of line noise.",
                count(*bytes, "byte", "bytes")
            )],
            Report::Rejected { reason } => vec![format!("Ignored a bad message: {reason}.")],
            Report::Unknown { message } => vec![format!("Ignored an unknown message: {message}.")],
            Report::BoardFault { text } => vec![format!("The board reports a fault: {text}.")],
            Report::End { reason, result } => vec![format!("Game over: {reason} ({result}).")],
        }
    }
}

/// The board as a diagram: rank 8 first, a letter per piece (FEN letters), `x` for an occupied
/// aperture on a board that cannot tell the piece, `.` for empty; then the file letters.
pub fn diagram(rec: &Recognizer, sensing: Sensing) -> Vec<String> {
    let mut rows = Vec::new();
    for rank in (0..8u32).rev() {
        let mut row = format!("{}", rank + 1);
        for file in 0..8u32 {
            let sq = Square::new(rank * 8 + file);
            let c = match sensing {
                Sensing::Identity => rec.pieces().piece_at(sq).map_or('.', Piece::char),
                Sensing::Occupancy => {
                    if rec.occupied().contains(sq) {
                        'x'
                    } else {
                        '.'
                    }
                }
            };
            row.push(' ');
            row.push(c);
        }
        rows.push(row);
    }
    rows.push("  a b c d e f g h".into());
    rows
}

/// Writes reports, as text or JSON lines, flushing each line (the reader may be a test or a
/// screen reader waiting for it).
pub struct Printer<W: Write> {
    out: W,
    json: bool,
}

impl<W: Write> Printer<W> {
    pub fn new(out: W, json: bool) -> Printer<W> {
        Printer { out, json }
    }

    pub fn report(&mut self, report: &Report) -> Result<()> {
        if self.json {
            writeln!(self.out, "{}", report.json())?;
        } else {
            for line in report.text() {
                writeln!(self.out, "{line}")?;
            }
        }
        self.out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Chess;

    use super::*;
    use tactus_core::board::recognize::{Mode, RecognizerConfig, SquareDiff};

    #[test]
    fn json_lines_have_the_documented_shape() {
        let touched = Report::Touched {
            square: Square::E2,
            piece: Some(Color::White.pawn()),
            identified: true,
        };
        assert_eq!(
            touched.json(),
            json!({"event": "touched", "square": "e2", "piece": "P", "likely": "P"})
        );
        let blind = Report::Touched {
            square: Square::G8,
            piece: Some(Color::Black.knight()),
            identified: false,
        };
        assert_eq!(blind.json()["piece"], Value::Null);
        assert_eq!(blind.json()["likely"], "n");
        let mv = Report::Move {
            ply: 1,
            number: "1.".into(),
            san: "e4".into(),
            uci: "e2e4".into(),
            touches: vec![Square::E2],
        };
        assert_eq!(
            mv.json(),
            json!({"event": "move", "ply": 1, "san": "e4", "uci": "e2e4", "touches": ["e2"]})
        );
        let diff = BoardDiff {
            squares: vec![
                SquareDiff {
                    square: Square::E2,
                    expected: Some(Color::White.pawn()),
                    found: Found::Empty,
                },
                SquareDiff {
                    square: Square::E3,
                    expected: None,
                    found: Found::Occupied {
                        likely: Some(Color::White.pawn()),
                    },
                },
            ],
        };
        assert_eq!(
            Report::Differs { diff }.json(),
            json!({"event": "differs", "squares": [
                {"square": "e2", "expected": "P", "found": null, "likely": null},
                {"square": "e3", "expected": null, "found": "occupied", "likely": "P"},
            ]})
        );
        assert_eq!(
            Report::Disconnected { reason: "x".into() }.json()["event"],
            "disconnected"
        );
        assert_eq!(
            Report::Connected { info: "x".into() }.json()["event"],
            "connected"
        );
        assert_eq!(
            Report::Promotion {
                from: Square::E7,
                to: Square::E8
            }
            .json(),
            json!({"event": "promotion", "square": "e8", "from": "e7"})
        );
        assert_eq!(
            Report::ChangedWhileAway {
                squares: Bitboard::from(Square::G1) | Bitboard::from(Square::F3)
            }
            .json(),
            json!({"event": "changed_while_away", "squares": ["g1", "f3"]})
        );
    }

    #[test]
    fn text_lines_are_plain_sentences() {
        let lines = Report::Touched {
            square: Square::G1,
            piece: Some(Color::White.knight()),
            identified: true,
        }
        .text();
        assert_eq!(lines, ["Touched: white knight on g1."]);
        let lines = Report::Move {
            ply: 2,
            number: "1...".into(),
            san: "e5".into(),
            uci: "e7e5".into(),
            touches: vec![],
        }
        .text();
        assert_eq!(lines, ["Move 1... e5 (e7e5)."]);
        let diff = BoardDiff {
            squares: vec![SquareDiff {
                square: Square::F3,
                expected: Some(Color::White.knight()),
                found: Found::Empty,
            }],
        };
        let lines = Report::Differs { diff }.text();
        assert_eq!(
            lines,
            ["The board differs. f3: nothing stands there, a white knight belongs there."]
        );
        for line in (Report::Promotion {
            from: Square::E7,
            to: Square::E8,
        })
        .text()
        {
            assert!(line.is_ascii() && !line.contains('\t'), "{line}");
        }
    }

    #[test]
    fn the_diagram_shows_pieces_or_occupancy() {
        let cfg = RecognizerConfig {
            sensing: Sensing::Identity,
            settle_ms: 0,
            scan_ms: 0,
            bounce_ms: 0,
            differs_after_ms: 0,
            confirm_with_snapshot: false,
        };
        let rec = Recognizer::new(cfg, Chess::default(), Mode::Move);
        let rows = diagram(&rec, Sensing::Identity);
        assert_eq!(rows[0], "8 r n b q k b n r");
        assert_eq!(rows[7], "1 R N B Q K B N R");
        assert_eq!(rows[8], "  a b c d e f g h");
        let rows = diagram(&rec, Sensing::Occupancy);
        assert_eq!(rows[1], "7 x x x x x x x x");
        assert_eq!(rows[2], "6 . . . . . . . .");
    }
}
