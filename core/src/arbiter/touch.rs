//! What a player's touches before his move may give his opponent to claim (Art. 4.3, 4.4, 4.6).
//!
//! Pure: the position before the move, the move made and the squares lifted for it, in order
//! (F.2: on the tactile board only a lift out of an aperture is a touch). The arbiter rules only
//! on a claim (4.7), so this decides nothing: it says which article the touches may give a claim
//! under, in words for the arbiter's console and the transcript. The game goes on.

use shakmaty::{Chess, Move, Position, Square};

use super::describe;
use crate::rules::notation;

/// The possible claims the touches give, most specific first; empty when the move kept the
/// rules of touching.
pub fn possible_claims(before: &Chess, mv: Move, touches: &[Square]) -> Vec<String> {
    let player = before.turn();
    let board = before.board();
    let legal = before.legal_moves();
    let played = notation::san(before, mv);
    let moved_from = match mv {
        Move::Castle { king, .. } => king,
        _ => mv.from().unwrap_or(mv.to()),
    };
    let mut claims = Vec::new();

    // 4.6: a piece released on a square (a legal move) was then moved on to another. After the
    // moved piece was lifted, a lift of an empty square is a lift of the piece he had put there;
    // on a square of the opponent's it is the second lift there (the captured piece first).
    let after_lift = touches
        .iter()
        .position(|&s| s == moved_from)
        .map_or(&[][..], |i| &touches[i + 1..]);
    for (i, &square) in after_lift.iter().enumerate() {
        let released_there = match board.piece_at(square) {
            None => true,
            Some(p) if p.color != player => after_lift[..i].contains(&square),
            Some(_) => false,
        };
        let reached = legal
            .iter()
            .any(|m| m.from() == Some(moved_from) && m.to() == square);
        if released_there && square != mv.to() && reached {
            claims.push(format!(
                "possible claim (Art. 4.6): {player} released the piece on {square}, a legal move, \
                 then moved it on: {played}"
            ));
            return claims;
        }
    }

    let own: Vec<Square> = touches
        .iter()
        .copied()
        .filter(|&s| board.piece_at(s).is_some_and(|p| p.color == player))
        .collect();
    let theirs: Vec<Square> = touches
        .iter()
        .copied()
        .filter(|&s| board.piece_at(s).is_some_and(|p| p.color != player))
        .collect();

    // 4.4 b: the rook touched before the king, then castled.
    if let Move::Castle { rook, king } = mv
        && own.first() == Some(&rook)
        && own.contains(&king)
    {
        claims.push(format!(
            "possible claim (Art. 4.4 b): {player} touched the rook on {rook} before the king and \
             castled"
        ));
        return claims;
    }
    // 4.4 a: king and rook touched, castling on that side legal, another move played.
    let king = board.king_of(player);
    if let Some(king) = king
        && own.contains(&king)
        && !matches!(mv, Move::Castle { .. })
    {
        for m in legal.iter() {
            if let Move::Castle { rook, .. } = *m
                && own.contains(&rook)
            {
                claims.push(format!(
                    "possible claim (Art. 4.4 a): {player} touched his king and the rook on {rook} \
                     and did not castle ({played})"
                ));
                return claims;
            }
        }
    }

    let can_move = |s: Square| legal.iter().any(|m| m.from() == Some(s));
    let can_be_taken = |s: Square| {
        legal
            .iter()
            .any(|m| m.is_capture() && capture_square(m) == s)
    };
    let first_movable = own.iter().copied().find(|&s| can_move(s));
    let first_takeable = theirs.iter().copied().find(|&s| can_be_taken(s));

    // 4.3 c: pieces of both colours touched: the first of his takes the first of the opponent's
    // if that is legal; otherwise the first that can be moved or taken.
    if let (Some(&mine), Some(&target)) = (own.first(), theirs.first()) {
        let capture_possible = legal
            .iter()
            .any(|m| m.from() == Some(mine) && m.is_capture() && capture_square(m) == target);
        let obeyed = if capture_possible {
            mv.from() == Some(mine) && mv.is_capture() && capture_square(&mv) == target
        } else {
            // Whichever was touched first and can be moved or taken.
            let first = touches.iter().copied().find(|&s| {
                (own.contains(&s) && can_move(s)) || (theirs.contains(&s) && can_be_taken(s))
            });
            match first {
                Some(s) if own.contains(&s) => moved_from == s,
                Some(s) => mv.is_capture() && capture_square(&mv) == s,
                None => true,
            }
        };
        if !obeyed {
            claims.push(format!(
                "possible claim (Art. 4.3 c): {player} touched pieces of both colours ({} and {}) \
                 and played {played}",
                describe(mine, board.piece_at(mine)),
                describe(target, board.piece_at(target))
            ));
        }
        return claims;
    }
    // 4.3 a: his first touched piece that can be moved must be moved.
    if let Some(first) = first_movable
        && first != moved_from
    {
        claims.push(format!(
            "possible claim (Art. 4.3 a): {player} touched {} first, which could move, and \
             played {played}",
            describe(first, board.piece_at(first))
        ));
    }
    // 4.3 b: the first touched piece of the opponent's that can be taken must be taken.
    if let Some(target) = first_takeable
        && !(mv.is_capture() && capture_square(&mv) == target)
    {
        claims.push(format!(
            "possible claim (Art. 4.3 b): {player} touched {} first, which could be captured, and \
             played {played}",
            describe(target, board.piece_at(target))
        ));
    }
    claims
}

/// The square of the piece a capture takes (the pawn's square for en passant).
fn capture_square(m: &Move) -> Square {
    match *m {
        Move::EnPassant { from, to } => Square::from_coords(to.file(), from.rank()),
        _ => m.to(),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    use super::*;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn claims(fen: &str, uci: &str, touches: &[Square]) -> Vec<String> {
        let pos = position(fen);
        let mv = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        possible_claims(&pos, mv, touches)
    }

    const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

    #[test]
    fn touching_only_the_piece_moved_gives_nothing() {
        assert!(claims(ITALIAN, "b1c3", &[Square::B1]).is_empty());
        assert!(claims(ITALIAN, "e1g1", &[Square::E1, Square::H1]).is_empty());
    }

    #[test]
    fn art_4_3_a_the_first_touched_piece_that_can_move() {
        let c = claims(ITALIAN, "b1c3", &[Square::F3, Square::B1]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].contains("Art. 4.3 a") && c[0].contains("knight on f3"),
            "{c:?}"
        );
        // A piece that cannot move (the rook on a1, boxed in) is not the one that must move.
        assert!(claims(ITALIAN, "b1c3", &[Square::A1, Square::B1]).is_empty());
    }

    #[test]
    fn art_4_3_b_the_first_touched_piece_of_the_opponent_that_can_be_taken() {
        // Nf3 can take e5: touching the pawn on e5 (only) and playing b1c3.
        let c = claims(ITALIAN, "b1c3", &[Square::E5]);
        assert!(c.iter().any(|c| c.contains("Art. 4.3 b")), "{c:?}");
        assert!(claims(ITALIAN, "f3e5", &[Square::E5, Square::F3]).is_empty());
    }

    #[test]
    fn art_4_3_c_pieces_of_both_colours() {
        // He touches his knight on f3 and the pawn on e5: Nxe5 is legal, so it must be played.
        let c = claims(ITALIAN, "f3g5", &[Square::F3, Square::E5]);
        assert!(c.iter().any(|c| c.contains("Art. 4.3 c")), "{c:?}");
        assert!(claims(ITALIAN, "f3e5", &[Square::F3, Square::E5]).is_empty());
    }

    #[test]
    fn art_4_4_a_king_and_rook_touched_and_no_castling() {
        let c = claims(ITALIAN, "e1f1", &[Square::E1, Square::H1]);
        assert!(c.iter().any(|c| c.contains("Art. 4.4 a")), "{c:?}");
    }

    #[test]
    fn art_4_4_b_rook_first_then_castled() {
        let c = claims(ITALIAN, "e1g1", &[Square::H1, Square::E1]);
        assert!(c.iter().any(|c| c.contains("Art. 4.4 b")), "{c:?}");
    }

    #[test]
    fn art_4_6_a_piece_released_on_a_square_and_moved_on() {
        // The knight was put on c3 (legal), lifted again and played to a3.
        let c = claims(ITALIAN, "b1a3", &[Square::B1, Square::C3]);
        assert!(
            c.iter().any(|c| c.contains("Art. 4.6") && c.contains("c3")),
            "{c:?}"
        );
    }
}
