//! A long game for tests and benchmarks: legal moves from the start, each picked by the seeded
//! [`Rng`], the same every run. It owns only the picking; what a game is, and when it is over,
//! is the Laws' ([`Game`]).

use shakmaty::{Move, Position};

use super::Rng;
use crate::rules::game::{Game, Input, RulesConfig};

/// How many games may end early before [`long_game`] gives up.
const TRIES: usize = 1000;

/// A game of `plies` legal moves from the start, the same for the same seed: each move picked
/// among the legal ones by [`Rng`]. A game that ends before (mate, stalemate, a draw the Laws
/// make automatic) is passed over, and the next one is drawn from the same generator.
///
/// Panics if none of [`TRIES`] games lasts `plies` half-moves (random games end early rarely
/// before a few hundred).
pub fn long_game(plies: usize, seed: u64) -> Vec<Move> {
    let mut rng = Rng::new(seed);
    for _ in 0..TRIES {
        let mut game = Game::new(RulesConfig::default());
        let mut moves = Vec::with_capacity(plies);
        while moves.len() < plies && !game.is_over() {
            let legal = game.position().legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[rng.index(legal.len())];
            game.apply(Input::Move(mv), 0)
                .expect("a legal move in a game not over is accepted");
            moves.push(mv);
        }
        if moves.len() == plies {
            return moves;
        }
    }
    panic!("no game of {plies} half-moves in {TRIES} tries (seed {seed})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_game_is_legal_of_its_length_and_the_same_for_its_seed() {
        let moves = long_game(120, 1);
        assert_eq!(moves.len(), 120);
        let mut game = Game::new(RulesConfig::default());
        for &mv in &moves {
            assert!(game.position().is_legal(mv), "{mv:?}");
            game.apply(Input::Move(mv), 0).unwrap();
        }
        assert_eq!(long_game(120, 1), moves);
        assert_ne!(long_game(120, 2), moves, "another seed, another game");
        assert_eq!(long_game(0, 1), vec![]);
    }
}
