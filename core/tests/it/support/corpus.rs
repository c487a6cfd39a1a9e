//! The chess-data corpus (`../shared/chess-data/` beside the workspace, or `TACTUS_CHESS_DATA`):
//! where it is, and the rule that a missing corpus is a loud failure under CI but a visible skip on
//! a developer's machine.
//!
//! One home for both crates' tests: the shell's test binary includes this file as its
//! `support::corpus::finder`, so the path is found from the workspace top whichever crate's
//! manifest directory the binary was built from.

use std::path::{Path, PathBuf};

/// The workspace's top folder: the first folder at or above this crate's manifest that holds the
/// workspace's `Cargo.lock` (a member crate has none of its own).
pub fn workspace_top() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The chess-data directory, or `None` (after saying so on stderr) when it is absent outside CI.
///
/// Under `CI=true` a missing corpus panics: a green run that silently tested nothing would be a lie.
pub fn chess_data() -> Option<PathBuf> {
    let dir = match std::env::var_os("TACTUS_CHESS_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_top().join("../shared/chess-data"),
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
