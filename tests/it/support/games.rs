//! Games as move lists: SAN moves in and out, a PGN file for the simulated boards
//! (`--sim-pgn`), and the moves the Laws let be played (where a game ends on the board).

use std::{fs, path::Path};

use shakmaty::{Chess, Move, Position};
use tactus_core::rules::{
    game::{self, Game, GameEnd, RulesConfig},
    notation::san,
};

/// The SAN of `moves` from `start`.
pub fn sans(start: &Chess, moves: &[Move]) -> Vec<String> {
    let mut pos = start.clone();
    moves
        .iter()
        .map(|&m| {
            let s = san(&pos, m);
            pos.play_unchecked(m);
            s
        })
        .collect()
}

/// SAN moves from the initial position, as moves (panics on a move that is not legal).
pub fn moves_of(sans: &str) -> Vec<Move> {
    let mut pos = Chess::default();
    sans.split_whitespace()
        .map(|s| {
            let san: shakmaty::san::San = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
            let m = san.to_move(&pos).unwrap_or_else(|e| panic!("{s}: {e}"));
            pos.play_unchecked(m);
            m
        })
        .collect()
}

/// A PGN file of `moves` for `--sim-pgn`.
pub fn write_sim_pgn(path: &Path, moves: &[Move]) {
    let mut text = String::from("[Event \"sim\"]\n[Result \"*\"]\n\n");
    for (i, s) in sans(&Chess::default(), moves).iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        }
        text.push_str(s);
        text.push(if i % 16 == 15 { '\n' } else { ' ' });
    }
    text.push_str("*\n");
    fs::write(path, text).unwrap();
}

/// The moves the Laws let be played (a mate, a stalemate or a dead position ends the game at
/// once, 5.1 a, 5.2 a, 5.2 b), with every mateability question answered at once, and how the
/// game ended, if it did.
pub fn lawful_moves(moves: &[Move]) -> (Vec<Move>, Option<GameEnd>) {
    let mut game = Game::from_position(RulesConfig::default(), Chess::default());
    let mut played = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        game.apply(game::Input::Move(m), i as u64)
            .unwrap_or_else(|e| panic!("ply {}: {e}", i + 1));
        game.resolve_analyses(i as u64);
        played.push(m);
        if game.is_over() {
            break;
        }
    }
    (played, game.end().cloned())
}
