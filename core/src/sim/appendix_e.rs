//! The demo's game: the sample game of the Laws' Appendix E (the notation example), as SAN and
//! as moves, the half-move the demo's blind player first executes wrongly, and how the demo ends
//! the game the sample leaves unfinished (a draw offered with a move and accepted). Data only;
//! the demo that plays it is the shell's (`tactus::demo`).

use shakmaty::{Chess, Move, Position};

use crate::rules::notation;

/// The sample game of the Laws' Appendix E (the notation example), in SAN.
pub const APPENDIX_E: &str = "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.Bd2 O-O 5.e4 d5 6.exd5 exd5 7.cxd5 Bxc3 \
     8.Bxc3 Nxd5 9.Nf3 b6 10.Qb3 Nxc3 11.bxc3 c5 12.Be2 cxd4 13.Nxd4 Re8 14.O-O Nd7 15.a4 Nc5 \
     16.Qb4 Bb7 17.a5";

/// The half-move the blind player (White) first executes wrongly: 3...Bb4.
pub const MISTAKE_PLY: usize = 6;

/// The demo's ending: the sample stops at 17.a5 with no result; Black answers 17...Qc7 and
/// offers a draw with it (9.1 b), White accepts, and both players hear the result.
pub const DEMO_ENDING: &str = "Qc7";

/// The half-move Black offers the draw with: 17...Qc7.
pub const DRAW_OFFER_PLY: usize = 34;

/// The half-move at which White, to move, accepts the draw instead of moving.
pub const DRAW_ACCEPT_PLY: usize = 35;

/// The demo's moves: the Appendix E game and its ending.
pub fn demo_moves() -> Vec<Move> {
    let mut moves = appendix_e_moves();
    let mut pos = Chess::default();
    for &m in &moves {
        pos.play_unchecked(m);
    }
    // A constant checked by a test, as the game is.
    if let Ok(m) = notation::match_move(&pos, DEMO_ENDING) {
        moves.push(m);
    }
    moves
}

/// The SAN of the Appendix E game, without move numbers.
pub fn appendix_e_sans() -> Vec<String> {
    APPENDIX_E
        .split_whitespace()
        .map(|w| match w.find('.') {
            Some(i) => w[i + 1..].to_string(),
            None => w.to_string(),
        })
        .collect()
}

/// The moves of the Appendix E game from the initial position.
pub fn appendix_e_moves() -> Vec<Move> {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for san in appendix_e_sans() {
        // The game is a constant checked by a test; a bad move would be a bug here.
        let Ok(m) = notation::match_move(&pos, &san) else {
            break;
        };
        pos.play_unchecked(m);
        moves.push(m);
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_appendix_e_game_is_legal_and_whole() {
        assert_eq!(appendix_e_sans().len(), 33);
        assert_eq!(appendix_e_moves().len(), 33);
        assert_eq!(appendix_e_sans()[MISTAKE_PLY - 1], "Bb4");
        // The ending: Black's 17th move, the offer with it, White's acceptance at his 18th.
        let moves = demo_moves();
        assert_eq!(moves.len(), DRAW_OFFER_PLY);
        assert_eq!(moves[..33], appendix_e_moves()[..]);
        let mut pos = Chess::default();
        for &m in &moves[..DRAW_OFFER_PLY - 1] {
            pos.play_unchecked(m);
        }
        assert_eq!(pos.turn(), shakmaty::Color::Black);
        assert_eq!(notation::san(&pos, moves[DRAW_OFFER_PLY - 1]), "Qc7");
        assert_eq!(DRAW_ACCEPT_PLY, DRAW_OFFER_PLY + 1);
    }
}
