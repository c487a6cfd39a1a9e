//! Shared helpers for the integration tests: where `../shared/chess-data/` is, and the rule that a
//! missing corpus is a loud failure under CI but a visible skip on a developer's machine.
#![allow(dead_code)]

use std::path::PathBuf;

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
