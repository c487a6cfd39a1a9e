//! "Can this side still checkmate by any series of legal moves?" (Laws 5.2 b, 6.9, 9.6; 7.4 and
//! Appendix C in the 2009 text).
//!
//! This module owns the bridge to Ambrona's unwinnability algorithm (the `chasolver` crate) and the
//! cheap static tests in front of it. It decides nothing about a game: it answers questions about
//! one position, and the game module turns the answers into results.
//!
//! Two entry points with different costs:
//! - [`quick`] is cheap (microseconds to a few milliseconds) and sound but incomplete: it only ever
//!   proves "cannot mate". The game calls it after every move.
//! - [`solve`] is the complete helpmate search. It usually answers in milliseconds but can take
//!   about two seconds on hard positions, and it cannot be interrupted. It is a pure function on a
//!   [`Query`] value so that the daemon can run it on a blocking thread with a deadline and feed
//!   the [`Verdict`](super::game::Input::Verdict) back into the game; a search that does not answer in time is simply
//!   [`Mateability::Undecided`], which never ends a game.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, EnPassantMode, Position, fen::Fen};

/// Whether one side can still deliver checkmate with the opponent's cooperation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mateability {
    /// A helpmate exists (the search found a line).
    CanMate,
    /// Proven: no series of legal moves ends in mate by this side.
    CannotMate,
    /// The search gave up (node limit, deadline or a position it cannot read).
    Undecided,
}

/// One question for the solver: can `side` mate from `position`?
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub position: Chess,
    pub side: Color,
}

/// The cheap test: `Some(CannotMate)` when the side provably cannot mate (static material rule or
/// chasolver's fast, sound-but-incomplete analysis), `None` when this test cannot tell.
pub fn quick(position: &Chess, side: Color) -> Option<Mateability> {
    if position.has_insufficient_material(side) {
        return Some(Mateability::CannotMate);
    }
    let board = to_chess_board(position)?;
    chasolver::is_unwinnable_fast(&board, to_chess_color(side)).then_some(Mateability::CannotMate)
}

/// The complete search for one side. May take up to about two seconds; see the module docs.
pub fn solve(query: &Query) -> Mateability {
    if let Some(known) = quick(&query.position, query.side) {
        return known;
    }
    let Some(board) = to_chess_board(&query.position) else {
        return Mateability::Undecided;
    };
    match chasolver::winnability(&board, to_chess_color(query.side)) {
        Some(chasolver::Winnability::Winnable { .. }) => Mateability::CanMate,
        Some(chasolver::Winnability::Unwinnable) => Mateability::CannotMate,
        None => Mateability::Undecided,
    }
}

/// Whether the position is dead (5.2 b: neither player can mate) by the cheap tests alone.
/// `false` means "not proven dead", not "alive".
pub fn is_dead_quick(position: &Chess) -> bool {
    Color::ALL
        .iter()
        .all(|&side| quick(position, side) == Some(Mateability::CannotMate))
}

/// Whether the position is dead, using the complete search where the cheap tests cannot tell.
/// `None` when a search was undecided.
pub fn is_dead(position: &Chess) -> Option<bool> {
    let mut undecided = false;
    for side in Color::ALL {
        match solve(&Query {
            position: position.clone(),
            side,
        }) {
            Mateability::CanMate => return Some(false),
            Mateability::CannotMate => {}
            Mateability::Undecided => undecided = true,
        }
    }
    if undecided { None } else { Some(true) }
}

/// shakmaty and the `chess` crate share no types; FEN is their common language. The e.p. square
/// is written only when a capture is legal, which is exactly what matters for mating chances.
fn to_chess_board(position: &Chess) -> Option<chess::Board> {
    let fen = Fen::from_position(position, EnPassantMode::Legal).to_string();
    chess::Board::from_str(&fen).ok()
}

fn to_chess_color(color: Color) -> chess::Color {
    match color {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn bare_kings_are_dead_quickly() {
        assert!(is_dead_quick(&pos("8/5k2/8/8/8/8/3K4/8 w - - 0 1")));
        assert_eq!(is_dead(&pos("8/5k2/8/8/8/8/3K4/8 w - - 0 1")), Some(true));
    }

    #[test]
    fn start_position_is_alive() {
        let start = Chess::default();
        assert!(!is_dead_quick(&start));
        assert_eq!(
            solve(&Query {
                position: start.clone(),
                side: Color::White
            }),
            Mateability::CanMate
        );
        assert_eq!(is_dead(&start), Some(false));
    }

    #[test]
    fn locked_pawn_wall_is_dead_though_material_suffices() {
        // rules-cases D01: bishops of opposite colours behind a locked wall.
        let wall = pos("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        assert!(!wall.is_insufficient_material());
        assert_eq!(is_dead(&wall), Some(true));
    }

    #[test]
    fn one_side_can_mate_the_other_cannot() {
        // rules-cases D02 (Lichess ijyj0mHa): White can mate, Black cannot.
        let p = pos("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1");
        assert_eq!(
            solve(&Query {
                position: p.clone(),
                side: Color::White
            }),
            Mateability::CanMate
        );
        assert_eq!(
            solve(&Query {
                position: p,
                side: Color::Black
            }),
            Mateability::CannotMate
        );
    }
}
