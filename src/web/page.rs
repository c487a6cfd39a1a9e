//! The table's page: both boards as they stand (SVG, drawn from their own seat's side, a square
//! that differs from the game's position outlined thickly and labelled), the official clocks in
//! large type, whose turn, each side's last move in SAN and in the words it was announced in,
//! offers and claims pending, the game's state and the moves. Plain HTML with a few lines of
//! JavaScript that take each update from `/events` (Server-Sent Events) and count the running
//! clock down between updates. Large type, high contrast, semantic HTML; the last moves and the
//! state are `aria-live="polite"` regions, replaced only when they change, so that a screen
//! reader hears each move once and the clocks are not read out every second.

use serde::Serialize;

use super::{
    http::Update,
    view::{BoardView, TableView, clock_text},
};

/// The parts of the page an update replaces, each an HTML fragment.
#[derive(Debug)]
struct Regions {
    pub heading: String,
    pub turn: String,
    /// Each board's figure, in seat order (at most two: each its own part of an update).
    pub boards: Vec<String>,
    pub last: String,
    pub state: String,
    pub moves: String,
    /// The clocks' values for the script to count down.
    pub clocks: Option<super::view::ClocksView>,
}

/// The regions of `view`.
fn regions(view: &TableView) -> Regions {
    Regions {
        heading: escape(&format!(
            "{} – {}: {}",
            view.tag("White"),
            view.tag("Black"),
            view.state
        )),
        turn: turn_html(view),
        boards: view
            .boards
            .iter()
            .take(BOARD_PARTS.len())
            .map(board_html)
            .collect(),
        last: last_html(view),
        state: state_html(view),
        moves: moves_html(view),
        clocks: view.clocks.clone(),
    }
}

/// One update on `/events`: each region as a JSON value (a viewer is sent those that changed).
pub fn update(view: &TableView) -> Update {
    let r = regions(view);
    Update {
        parts: vec![
            ("heading", json(&r.heading)),
            ("turn", json(&r.turn)),
            ("last", json(&r.last)),
            ("state", json(&r.state)),
            ("moves", json(&r.moves)),
        ]
        .into_iter()
        .chain(
            BOARD_PARTS
                .iter()
                .zip(&r.boards)
                .map(|(&name, board)| (name, json(board))),
        )
        .collect(),
        clocks: r.clocks.map(|clocks| (clocks, view.made)),
    }
}

/// A part of an update: a value as JSON.
fn json<T: Serialize>(value: &T) -> std::sync::Arc<str> {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".into())
        .into()
}

/// The whole page as it stands now (it is complete without its script).
pub fn page(view: &TableView) -> String {
    let r = regions(view);
    let clock = |side: &str, ms: i64, running: bool| {
        format!(
            "<div class=\"clock{run}\"><span class=\"who\">{side}</span> \
             <span id=\"clock-{lower}\" class=\"time\" role=\"timer\">{}</span>{mark}</div>",
            clock_text(ms),
            run = if running { " running" } else { "" },
            lower = side.to_lowercase(),
            mark = if running {
                " <span class=\"runs\">(running)</span>"
            } else {
                ""
            },
        )
    };
    let clocks = match &view.clocks {
        Some(c) => format!(
            "{}{}",
            clock("White", c.white_ms, c.running.as_deref() == Some("white")),
            clock("Black", c.black_ms, c.running.as_deref() == Some("black"))
        ),
        None => "<p>No clock.</p>".into(),
    };
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ background: #000; color: #fff; font: 1.5rem/1.4 system-ui, sans-serif; margin: 1rem; }}
h1 {{ font-size: 1.8rem; margin: 0 0 .5rem; }}
h2 {{ font-size: 1.4rem; margin: .8rem 0 .3rem; }}
#clocks {{ display: flex; gap: 2rem; flex-wrap: wrap; }}
.clock {{ border: 4px solid #666; padding: .3rem 1rem; }}
.clock.running {{ border-color: #ff0; }}
.time {{ font-size: 4rem; font-weight: bold; font-variant-numeric: tabular-nums; }}
.runs {{ font-size: 1.2rem; }}
#boards {{ display: flex; gap: 2rem; flex-wrap: wrap; }}
figure {{ margin: 0; }}
a {{ color: #9cf; }}
figcaption {{ font-size: 1.2rem; }}
.differs {{ color: #ff0; font-weight: bold; }}
#moves ol {{ columns: 3; font-size: 1.2rem; }}
</style>
</head>
<body>
<header><h1 id="heading">{heading}</h1></header>
<main>
<section aria-labelledby="h-clocks"><h2 id="h-clocks">Clocks</h2>
<div id="clocks">{clocks}</div>
<p id="turn" aria-live="polite">{turn}</p></section>
<section aria-labelledby="h-last"><h2 id="h-last">Last moves</h2>
<div id="last" aria-live="polite">{last}</div></section>
<section aria-labelledby="h-state"><h2 id="h-state">State</h2>
<div id="state" aria-live="polite">{state}</div></section>
<section aria-labelledby="h-boards"><h2 id="h-boards">Boards</h2>
<div id="boards">{boards}</div></section>
<section aria-labelledby="h-moves"><h2 id="h-moves">Moves</h2>
<div id="moves">{moves}</div>
<p><a href="/game.pgn">The game as PGN</a></p></section>
</main>
<script>
"use strict";
let clocks = null, base = 0;
const shown = {{}};
function fmt(ms) {{
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const p = (n) => String(n).padStart(2, "0");
  return h > 0 ? h + ":" + p(m) + ":" + p(r) : m + ":" + p(r);
}}
function tick() {{
  if (!clocks) return;
  const gone = performance.now() - base;
  for (const side of ["white", "black"]) {{
    const el = document.getElementById("clock-" + side);
    if (!el) continue;
    let ms = clocks[side + "_ms"];
    // A 6.2 delay is spent before the main time goes down.
    if (clocks.running === side) ms -= Math.max(0, gone - (clocks.delay_ms || 0));
    el.textContent = fmt(ms);
    el.parentElement.classList.toggle("running", clocks.running === side);
  }}
}}
// Each update holds only what changed since the last one this page was sent.
function update(d) {{
  for (const k of ["heading", "turn", "board-0", "board-1", "last", "state", "moves"]) {{
    const el = document.getElementById(k);
    if (el && k in d && shown[k] !== d[k]) {{ el.innerHTML = d[k]; shown[k] = d[k]; }}
  }}
  if ("clocks" in d) {{ clocks = d.clocks; base = performance.now(); tick(); }}
}}
if (window.EventSource) {{
  const es = new EventSource("/events");
  es.onmessage = (e) => update(JSON.parse(e.data));
}}
setInterval(tick, 250);
</script>
</body>
</html>
"#,
        title = r.heading,
        heading = r.heading,
        turn = r.turn,
        last = r.last,
        state = r.state,
        boards = BOARD_PARTS
            .iter()
            .zip(&r.boards)
            .map(|(id, board)| format!("<div id=\"{id}\">{board}</div>"))
            .collect::<String>(),
        moves = r.moves,
    )
}

fn turn_html(view: &TableView) -> String {
    if view.result != "*" {
        return escape(&format!("The game is over: {}", view.result));
    }
    let mut text = format!("{} to move", capital(&view.to_move));
    match view.clocks.as_ref().and_then(|c| c.running.as_deref()) {
        Some(side) => text.push_str(&format!("; {}'s clock runs", capital(side))),
        None if view.clocks.is_some() => text.push_str("; the clocks are stopped"),
        None => {}
    }
    escape(&text)
}

fn last_html(view: &TableView) -> String {
    if view.last.is_empty() {
        return "<p>No move yet.</p>".into();
    }
    let mut out = String::from("<ul>");
    for m in &view.last {
        out.push_str(&format!(
            "<li>{}: <strong>{}</strong>{}</li>",
            capital(&m.side),
            escape(&m.san),
            if m.words.is_empty() {
                String::new()
            } else {
                format!(", said “{}”", escape(&m.words))
            }
        ));
    }
    out.push_str("</ul>");
    out
}

fn state_html(view: &TableView) -> String {
    let mut out = format!("<p>{}</p>", escape(&capital(&view.state)));
    if !view.pending.is_empty() {
        out.push_str("<ul>");
        for p in &view.pending {
            out.push_str(&format!("<li>{}</li>", escape(&capital(p))));
        }
        out.push_str("</ul>");
    }
    for board in view.boards.iter().filter(|b| !b.differs.is_empty()) {
        out.push_str(&format!(
            "<p class=\"differs\">{} differs from the game on {}</p>",
            escape(&capital(&board.name)),
            board.differs.join(", ")
        ));
    }
    out
}

fn moves_html(view: &TableView) -> String {
    if view.moves.is_empty() {
        return "<p>No move yet.</p>".into();
    }
    let mut out = String::from("<ol>");
    for pair in view.moves.chunks(2) {
        out.push_str(&format!(
            "<li>{}{}</li>",
            escape(&pair[0]),
            pair.get(1)
                .map(|b| format!(" {}", escape(b)))
                .unwrap_or_default()
        ));
    }
    out.push_str("</ol>");
    if view.result != "*" {
        out.push_str(&format!("<p>Result {}</p>", escape(&view.result)));
    }
    out
}

/// The boards' parts of an update and their elements' ids: a lift on one board sends that
/// board alone.
const BOARD_PARTS: [&str; 2] = ["board-0", "board-1"];

/// Square size in the SVG.
const SQ: u32 = 44;

/// One board as an SVG figure, from its seat's side. Compact (the squares are one patterned
/// rectangle, the pieces and coordinates share their styles): a board is sent to every viewer
/// each time a piece on it is lifted or placed.
fn board_html(board: &BoardView) -> String {
    let from_black = board.seat == "black";
    let chars: Vec<char> = board.squares.chars().collect();
    let w = SQ * 8 + 24;
    let id = format!("sq-{}", escape(&board.seat));
    // Seen from either side, the square in column `col`, row `row` from the top-left is dark
    // when col + row is odd (a1 is dark and stands bottom-left for White, top-right for Black).
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{w}\" viewBox=\"0 0 {w} {w}\" \
         role=\"img\" aria-label=\"{label}\"><defs><pattern id=\"{id}\" x=\"24\" width=\"{two}\" \
         height=\"{two}\" patternUnits=\"userSpaceOnUse\"><rect width=\"{two}\" height=\"{two}\" \
         fill=\"#e8e8e8\"/><path d=\"M{SQ} 0h{SQ}v{SQ}h-{SQ}zM0 {SQ}h{SQ}v{SQ}h-{SQ}z\" fill=\"#7a8a99\"/>\
         </pattern></defs><rect width=\"{w}\" height=\"{w}\" fill=\"#fff\"/><rect x=\"24\" \
         width=\"{board}\" height=\"{board}\" fill=\"url(#{id})\"/><g font-size=\"36\" \
         text-anchor=\"middle\">",
        two = SQ * 2,
        board = SQ * 8,
        label = escape(&board_label(board)),
    );
    let mut marks = String::new();
    for (index, &c) in chars.iter().enumerate().take(64) {
        // index 0 is a8; rank 8 - index / 8, file index % 8.
        let (rank, file) = (7 - index / 8, index % 8);
        let (col, row) = if from_black {
            (7 - file, rank)
        } else {
            (file, 7 - rank)
        };
        let (x, y) = (24 + col as u32 * SQ, row as u32 * SQ);
        if c != '.' {
            svg.push_str(&format!(
                "<text x=\"{}\" y=\"{}\">{}</text>",
                x + SQ / 2,
                y + SQ - 8,
                glyph(c)
            ));
        }
        let name = format!("{}{}", (b'a' + file as u8) as char, rank + 1);
        if board.differs.contains(&name) {
            marks.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#d00\" \
                 stroke-width=\"5\" stroke-dasharray=\"8 4\"/><text x=\"{}\" y=\"{}\" \
                 font-size=\"11\" font-weight=\"bold\" fill=\"#d00\">≠ {name}</text>",
                x + 3,
                y + 3,
                SQ - 6,
                SQ - 6,
                x + 5,
                y + 13
            ));
        }
    }
    svg.push_str("</g>");
    svg.push_str(&marks);
    // Coordinates along the left and bottom edges.
    svg.push_str("<g font-size=\"14\" text-anchor=\"middle\">");
    for i in 0..8u32 {
        let rank = if from_black { i + 1 } else { 8 - i };
        let file = if from_black { 7 - i } else { i };
        svg.push_str(&format!(
            "<text x=\"11\" y=\"{}\">{rank}</text><text x=\"{}\" y=\"{}\">{}</text>",
            i * SQ + SQ / 2 + 5,
            24 + i * SQ + SQ / 2,
            SQ * 8 + 18,
            (b'a' + file as u8) as char
        ));
    }
    svg.push_str("</g>");
    svg.push_str("</svg>");
    format!(
        "<figure>{svg}<figcaption>{}{}</figcaption></figure>",
        escape(&capital(&board.name)),
        if board.differs.is_empty() {
            if board.sensed {
                ": as the game stands".to_string()
            } else {
                ": moves entered at the console".to_string()
            }
        } else {
            format!(
                ": <span class=\"differs\">differs on {}</span>",
                board.differs.join(", ")
            )
        }
    )
}

fn board_label(board: &BoardView) -> String {
    if board.differs.is_empty() {
        format!("{}, as the game stands", board.name)
    } else {
        format!(
            "{}, differs from the game on {}",
            board.name,
            board.differs.join(", ")
        )
    }
}

fn glyph(c: char) -> char {
    match c {
        'K' => '♔',
        'Q' => '♕',
        'R' => '♖',
        'B' => '♗',
        'N' => '♘',
        'P' => '♙',
        'k' => '♚',
        'q' => '♛',
        'r' => '♜',
        'b' => '♝',
        'n' => '♞',
        'p' => '♟',
        other => other,
    }
}

fn capital(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Text made safe inside HTML (element content and attribute values).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::view::{BoardView, LastMove};

    #[test]
    fn a_differing_square_is_outlined_and_labelled_and_names_are_escaped() {
        let view = TableView {
            tags: vec![("White".into(), "<script>x</script>".into())],
            to_move: "black".into(),
            boards: vec![BoardView {
                seat: "white".into(),
                name: "tactile board".into(),
                squares: format!("{}{}", ".".repeat(36), "P".repeat(28)),
                sensed: true,
                differs: vec!["e4".into()],
            }],
            last: vec![LastMove {
                side: "white".into(),
                san: "1. e4".into(),
                words: "Bauer Eva vier".into(),
            }],
            moves: vec!["e4".into()],
            state: "in play".into(),
            result: "*".into(),
            ..TableView::default()
        };
        let html = page(&view);
        assert!(html.contains("≠ e4"), "{html}");
        assert!(html.contains("stroke-width=\"5\""));
        assert!(html.contains("differs on e4"));
        assert!(html.contains("Bauer Eva vier"));
        assert!(!html.contains("<script>x"));
        assert!(html.contains("&lt;script&gt;x"));
    }

    #[test]
    fn a_board_is_small_enough_to_send_at_every_lift() {
        let board = BoardView {
            seat: "black".into(),
            name: "tactile board".into(),
            squares: "rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR".into(),
            sensed: true,
            differs: vec!["e2".into(), "e4".into()],
        };
        let html = board_html(&board);
        eprintln!("a board's figure: {} bytes", html.len());
        // Every viewer gets it at each lift and placement on that board.
        assert!(html.len() < 4096, "{} bytes", html.len());
        assert_eq!(
            html.matches("<text").count(),
            32 + 2 + 16,
            "pieces, marks, coordinates"
        );
    }
}
