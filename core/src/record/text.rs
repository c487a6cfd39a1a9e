//! The printable scoresheet: the game as an arbiter expects it on paper, in plain text.
//!
//! A header (event, site, date, round, the players with their colours, the time control, a set-up
//! position), then one line per move number with White's and Black's moves side by side, each
//! with the time its player had left after it, and `(=)` beside a move with which its player
//! offered a draw (FIDE 9.1 b); then the result and why, and lines for both players' signatures.
//! Unknown header values are left blank for the arbiter to fill in.
//!
//! Columns: the move number right-aligned in 4, two spaces, White's move (11 wide: the longest
//! SAN with ` (=)`), a space and his clock (`h:mm:ss`, right-aligned in 8), three spaces, then the
//! same for Black. Without any clock in the game the clock columns are left out. No line ends in
//! a space. Pure; no I/O.

use std::fmt::Write as _;

use shakmaty::{Chess, Color, EnPassantMode, fen::Fen, san::SanPlus};

use super::score::Score;
use crate::rules::pgn::{DRAW_OFFER_MARK, format_clk};

/// Width of a move column: `exd8=Q+ (=)`.
const MOVE_WIDTH: usize = 11;
/// Width of a clock column: `10:00:00`.
const CLOCK_WIDTH: usize = 8;
/// The line a player signs on.
const SIGNATURE_LINE: &str = "________________________";

/// The text scoresheet of `score`.
pub fn render(score: &Score) -> String {
    let mut out = String::new();
    let value = |name: &str| score.known_tag(name).unwrap_or("");
    // Writing to a String cannot fail.
    let mut line = |text: String| {
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(format!("Event: {}", value("Event")));
    line(format!("Site: {}", value("Site")));
    line(format!("Date: {}", value("Date")));
    line(format!("Round: {}", value("Round")));
    line(format!("White: {}", value("White")));
    line(format!("Black: {}", value("Black")));
    if let Some(tc) = score.known_tag("TimeControl") {
        line(format!("Time control: {tc}"));
    }
    if score.start != Chess::default() {
        let fen = Fen::from_position(&score.start, EnPassantMode::Legal);
        line(format!("Start position: {fen}"));
    }
    line(String::new());

    let clocks = score.moves.iter().any(|m| m.clock_ms.is_some());
    let row = |number: &str, white: (&str, &str), black: (&str, &str)| {
        if clocks {
            format!(
                "{number:>4}  {:<MOVE_WIDTH$} {:>CLOCK_WIDTH$}   {:<MOVE_WIDTH$} {:>CLOCK_WIDTH$}",
                white.0, white.1, black.0, black.1
            )
        } else {
            format!("{number:>4}  {:<MOVE_WIDTH$}   {}", white.0, black.0)
        }
    };
    line(row("Move", ("White", "Clock"), ("Black", "Clock")));

    // One row per move number: (number, White's move and clock, Black's).
    let mut rows: Vec<(u32, [(String, String); 2])> = Vec::new();
    for p in score.plies() {
        let mut san = SanPlus::from_move(p.before.clone(), p.entry.mv).to_string();
        if p.entry.draw_offer {
            let _ = write!(san, " {DRAW_OFFER_MARK}");
        }
        let clock = p.entry.clock_ms.map(format_clk).unwrap_or_default();
        let new_row = p.side == Color::White || rows.last().is_none_or(|(n, _)| *n != p.number);
        if new_row {
            // A game that starts with Black to move shows `...` in White's column.
            let white_placeholder = (String::from("..."), String::new());
            rows.push((p.number, [white_placeholder, Default::default()]));
        }
        if let Some((_, cols)) = rows.last_mut() {
            cols[usize::from(p.side == Color::Black)] = (san, clock);
        }
    }
    for (number, [white, black]) in &rows {
        line(row(
            &number.to_string(),
            (&white.0, &white.1),
            (&black.0, &black.1),
        ));
    }
    line(String::new());
    // The clock changes, where they happened: an arbiter checks the times against them.
    if !score.notes.is_empty() {
        line("Clock changes:".to_owned());
        for (ply, text) in &score.notes {
            let at = match *ply {
                0 => "before the first move".to_owned(),
                ply => {
                    let (number, side) = score.ply_name(ply);
                    format!(
                        "after {number}{}",
                        if side == Color::White { "." } else { "..." }
                    )
                }
            };
            line(format!("  {at}: {text}"));
        }
        line(String::new());
    }

    let result = match (score.result.as_str(), &score.reason) {
        ("*", _) => "unfinished".to_owned(),
        (result, Some(reason)) => format!("{result} ({reason})"),
        (result, None) => result.to_owned(),
    };
    line(format!("Result: {result}"));
    line(String::new());
    line(format!("White's signature: {SIGNATURE_LINE}"));
    line(format!("Black's signature: {SIGNATURE_LINE}"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::score::ScoreMove;
    use shakmaty::{CastlingMode, Position, san::San};

    fn score_from(fen: &str, sans: &str) -> Score {
        let start: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut score = Score::new(start.clone());
        let mut pos = start;
        for san in sans.split_whitespace() {
            let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
            score.moves.push(ScoreMove {
                mv,
                clock_ms: None,
                draw_offer: false,
            });
        }
        score
    }

    #[test]
    fn a_game_from_a_position_with_black_to_move() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40";
        let mut s = score_from(fen, "Kd7 e4 Ke6");
        s.moves[1].clock_ms = Some(61_000);
        s.moves[1].draw_offer = true;
        let text = render(&s);
        let expected = format!(
            "Event:\nSite:\nDate:\nRound:\nWhite:\nBlack:\nStart position: {fen}\n\n\
             Move  White          Clock   Black          Clock\n  \
             40  ...                    Kd7\n  \
             41  e4 (=)       0:01:01   Ke6\n\n\
             Result: unfinished\n\n\
             White's signature: {SIGNATURE_LINE}\nBlack's signature: {SIGNATURE_LINE}\n"
        );
        assert_eq!(text, expected);
        assert!(text.lines().all(|l| !l.ends_with(' ')));
    }

    #[test]
    fn a6_13_clock_changes_are_listed_where_they_happened() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 3 40";
        let mut s = score_from(fen, "Kd7 e4 Ke6");
        s.notes = vec![
            (0, "white's clock set to 0:10:00".into()),
            (
                1,
                "illegal move by black: 120 s added to white (7.4 b)".into(),
            ),
            (2, "black's clock set to 0:05:00".into()),
        ];
        let text = render(&s);
        assert!(
            text.contains(
                "Clock changes:\n  before the first move: white's clock set to 0:10:00\n  \
                 after 40...: illegal move by black: 120 s added to white (7.4 b)\n  \
                 after 41.: black's clock set to 0:05:00\n\nResult: unfinished"
            ),
            "{text}"
        );
    }
}
