//! Writing PGN in export format: the Seven Tag Roster and the other tags, the movetext with
//! `[%clk]` comments, `(=)` draw-offer marks and people's notes, wrapped at 80 columns.

use pgn_reader::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Position, fen::Fen};

use super::{DRAW_OFFER_MARK, format_clk, tag_value};

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
