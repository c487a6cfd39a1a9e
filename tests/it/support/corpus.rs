//! The chess-data corpus and its games. Where the corpus is, and the rule that a missing corpus
//! fails under CI and is a visible skip elsewhere, have one home in the core's test support
//! (`core/tests/it/support/corpus.rs`), included here as [`finder`]; reading one of its games is
//! the shell tests' own need.

use std::{fs, path::Path};

use tactus_core::rules::pgn::{PgnGame, read_pgn};

#[path = "../../../core/tests/it/support/corpus.rs"]
mod finder;

pub use finder::chess_data;

/// The `n`-th game (1-based) of a chess-data PGN file.
pub fn corpus_game(data: &Path, file: &str, n: usize) -> PgnGame {
    let bytes = fs::read(data.join("pgn").join(file)).unwrap();
    let games = read_pgn(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    games
        .into_iter()
        .nth(n - 1)
        .unwrap_or_else(|| panic!("{file} has no game {n}"))
}
