//! Files at the edge of the core: the atomic writer, the audio scoresheet file, the optional
//! liblouis transcription (a child process) and the `tactus scoresheet` command; which folders
//! the daemon trusts, and the game folder held open (`trusted`), whose files are opened relative
//! to it (`at`).
//!
//! The renderers they write are pure and live in [`tactus_core::record`]; this module only touches the
//! file system and processes, so that the core stays free of I/O.

pub mod at;
pub mod atomic;
pub mod audio;
pub mod louis;
pub mod private;
pub mod trusted;
pub mod voices;

/// A fresh empty folder for a unit test: `tactus-TAG-PID-N` in the system's temporary folder,
/// a new `N` each call, so that tests running at once never share one.
#[cfg(test)]
pub(crate) fn scratch(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tactus-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
