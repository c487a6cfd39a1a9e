//! The chess-data corpus (`../shared/chess-data/`, or `TACTUS_CHESS_DATA`): where it is, the rule
//! that a missing corpus is a loud failure under CI but a visible skip on a developer's machine,
//! and its PGN games.

use std::{
    fs,
    path::{Path, PathBuf},
};

use tactus_core::rules::pgn::{PgnGame, read_pgn};

/// The chess-data directory, or `None` (after saying so on stderr) when it is absent outside CI.
///
/// Under `CI=true` a missing corpus panics: a green run that silently tested nothing would be a lie.
pub fn chess_data() -> Option<PathBuf> {
    let dir = match std::env::var_os("TACTUS_CHESS_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/chess-data"),
    };
    if dir.join("SOURCES.md").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "chess-data corpus not found at {} (set TACTUS_CHESS_DATA); CI must not skip corpus tests",
            dir.display()
        );
    }
    eprintln!("SKIPPED: chess-data corpus not found at {}", dir.display());
    None
}

/// The `n`-th game (1-based) of a chess-data PGN file.
pub fn corpus_game(data: &Path, file: &str, n: usize) -> PgnGame {
    let bytes = fs::read(data.join("pgn").join(file)).unwrap();
    let games = read_pgn(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    games
        .into_iter()
        .nth(n - 1)
        .unwrap_or_else(|| panic!("{file} has no game {n}"))
}
