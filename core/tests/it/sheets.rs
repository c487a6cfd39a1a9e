//! F.8 and Appendix E against real games: every move of the games in `chess-data/pgn/` (see its
//! SOURCES.md: both castlings, en passant, promotions and underpromotions), rewritten as a player
//! would write it on his scoresheet in German and Spanish letters and in long algebraic, typed as
//! tokens with move numbers and the result, compares equal with the record; one changed move is
//! found where it is; a sheet one move behind is not a difference.

use crate::support;

use shakmaty::{Chess, Color, Move, Position};
use support::corpus::chess_data;
use tactus_core::rules::{
    notation,
    pgn::{self, PgnGame},
    sheet::{self, Comparison},
};

/// The games the comparison runs on: all 15 features games and the six Kasparov–Deep Blue games.
fn games() -> Vec<PgnGame> {
    let Some(dir) = chess_data() else {
        return Vec::new();
    };
    let mut games = Vec::new();
    for name in [
        "twic1599-selected.pgn",
        "python-chess-kasparov-deep-blue-1997.pgn",
    ] {
        let bytes = std::fs::read(dir.join("pgn").join(name)).expect(name);
        games.extend(pgn::read_pgn(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")));
    }
    assert_eq!(games.len(), 21);
    games
}

/// How a player writes his moves.
struct Style {
    name: &'static str,
    /// King, queen, rook, bishop, knight.
    letters: [&'static str; 5],
    /// Long algebraic: the from-square and a dash or an `x`.
    long: bool,
    /// How the promotion piece follows the square: `"{}"`, `"={}"`, `"({})"`.
    promotion: fn(&str) -> String,
    /// The en passant mark, typed as its own token.
    en_passant: &'static str,
    /// Move numbers glued to White's move (`12.Sf3`) or apart (`12. Sf3`).
    glued_numbers: bool,
}

const GERMAN: Style = Style {
    name: "German",
    letters: ["K", "D", "T", "L", "S"],
    long: false,
    promotion: |p| p.to_owned(),
    en_passant: "e.p.",
    glued_numbers: false,
};

const SPANISH: Style = Style {
    name: "Spanish",
    letters: ["R", "D", "T", "A", "C"],
    long: false,
    promotion: |p| format!("={p}"),
    en_passant: "a.p.",
    glued_numbers: true,
};

const LONG: Style = Style {
    name: "long algebraic",
    letters: ["K", "Q", "R", "B", "N"],
    long: true,
    promotion: |p| format!("({p})"),
    en_passant: "ep",
    glued_numbers: false,
};

fn letter(style: &Style, role: shakmaty::Role) -> &'static str {
    use shakmaty::Role::*;
    match role {
        King => style.letters[0],
        Queen => style.letters[1],
        Rook => style.letters[2],
        Bishop => style.letters[3],
        Knight => style.letters[4],
        Pawn => "",
    }
}

/// One move as `style` writes it, possibly as two tokens (`exd6 e.p.`).
fn written(style: &Style, pos: &Chess, m: Move) -> Vec<String> {
    let english = notation::san(pos, m);
    if let Some(side) = m.castling_side() {
        let mut castle = if side.is_king_side() { "0-0" } else { "0-0-0" }.to_owned();
        castle.push_str(english.trim_start_matches(['O', '-']));
        return vec![castle];
    }
    let mut text = letter(style, m.role()).to_owned();
    if style.long {
        let from = m.from().expect("standard chess has no drops");
        text.push_str(&from.to_string());
        text.push(if m.is_capture() { 'x' } else { '-' });
        text.push_str(&m.to().to_string());
    } else {
        // SAN's disambiguation and capture, with the piece letter replaced.
        let body = english.trim_start_matches(['K', 'Q', 'R', 'B', 'N']);
        let end = body.find(['=', '+', '#']).unwrap_or(body.len());
        text.push_str(&body[..end]);
    }
    if let Some(p) = m.promotion() {
        text.push_str(&(style.promotion)(letter(style, p)));
    }
    // Check and mate marks as SAN has them.
    text.push_str(english.trim_start_matches(|c| c != '+' && c != '#'));
    let mut tokens = vec![text];
    if m.is_en_passant() {
        tokens.push(style.en_passant.to_owned());
    }
    tokens
}

/// The whole game typed as `style`'s player would: numbers, moves, the result.
fn typed(style: &Style, game: &PgnGame, moves: &[Move]) -> Vec<String> {
    let mut pos = game.start.clone();
    let mut tokens = Vec::new();
    for &m in moves {
        let mut these = written(style, &pos, m);
        let number = pos.fullmoves().get();
        if pos.turn() == Color::White {
            if style.glued_numbers {
                these[0] = format!("{number}.{}", these[0]);
            } else {
                tokens.push(format!("{number}."));
            }
        } else if tokens.is_empty() {
            tokens.push(format!("{number}..."));
        }
        tokens.extend(these);
        pos.play_unchecked(m);
    }
    tokens.extend(game.result.clone());
    tokens
}

fn compare_typed(game: &PgnGame, record: &[Move], tokens: &[String]) -> Comparison {
    let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    sheet::compare(&game.start, record, &sheet::sheet_moves(&refs))
}

fn label(game: &PgnGame) -> String {
    format!("game {} {}-{}", game.index, game.white(), game.black())
}

#[test]
fn f8_real_games_in_german_spanish_and_long_algebraic_agree_move_for_move() {
    let mut plies = 0;
    let mut en_passant = 0;
    let mut promotions = 0;
    for game in games() {
        for style in [&GERMAN, &SPANISH, &LONG] {
            let tokens = typed(style, &game, &game.moves);
            // The sheet is written as the player would, not as the record is: the en passant
            // mark is a token of its own, castling is `0-0`.
            if game.moves.iter().any(|m| m.is_en_passant()) {
                assert!(tokens.iter().any(|t| t == style.en_passant));
            }
            if game.moves.iter().any(|m| m.is_castle()) {
                assert!(tokens.iter().any(|t| t.contains("0-0")));
            }
            let c = compare_typed(&game, &game.moves, &tokens);
            assert_eq!(
                (c.agree, &c.first_difference, &c.unreadable),
                (game.moves.len(), &None, &vec![]),
                "{} in {}: {}",
                label(&game),
                style.name,
                tokens.join(" ")
            );
            assert!(!c.differs(Color::White) && !c.differs(Color::Black));
        }
        plies += game.moves.len();
        en_passant += game.moves.iter().filter(|m| m.is_en_passant()).count();
        promotions += game.moves.iter().filter(|m| m.is_promotion()).count();
    }
    if plies > 0 {
        // The games hold what SOURCES.md says: the comparison saw every kind of move.
        assert!(plies > 2000, "{plies}");
        assert!(en_passant >= 4, "{en_passant}");
        assert!(promotions >= 6, "{promotions}");
    }
}

#[test]
fn f8_one_changed_move_in_a_real_game_is_found_where_it_is() {
    let games = games();
    let mut checked = 0;
    for game in &games {
        let n = game.moves.len();
        for ply in [0, n / 3, n / 2, n - 1] {
            // Another legal move in the record's position at `ply`, and the sheet's game goes on
            // from there no further: the sheet ends with it.
            let mut pos = game.start.clone();
            for &m in &game.moves[..ply] {
                pos.play_unchecked(m);
            }
            // A forced move (a single legal reply to check) has no other move to write.
            let Some(other) = pos
                .legal_moves()
                .into_iter()
                .find(|&m| m != game.moves[ply])
            else {
                continue;
            };
            checked += 1;
            let mut sheet_moves = game.moves[..ply].to_vec();
            sheet_moves.push(other);
            let tokens = typed(&GERMAN, game, &sheet_moves);
            let c = compare_typed(game, &game.moves, &tokens);
            assert_eq!(c.agree, ply, "{} ply {ply}", label(game));
            let d = c.first_difference.clone().expect("a difference");
            assert_eq!(d.ply, ply);
            assert_eq!(d.recorded, Some(notation::san(&pos, game.moves[ply])));
            assert!(c.differs(Color::White) && c.differs(Color::Black));
        }
    }
    assert!(
        checked >= 3 * games.len(),
        "only {checked} changed moves checked"
    );
}

#[test]
fn article_8_1_a_real_game_one_move_behind_is_not_a_difference() {
    for game in games() {
        let n = game.moves.len();
        let tokens = typed(&SPANISH, &game, &game.moves[..n - 1]);
        let c = compare_typed(&game, &game.moves, &tokens);
        assert_eq!((c.agree, c.missing()), (n - 1, 1), "{}", label(&game));
        assert!(c.just_shorter());
        assert!(!c.differs(Color::White) && !c.differs(Color::Black));
    }
}
