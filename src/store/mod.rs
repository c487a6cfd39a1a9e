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

/// A fresh empty folder for a unit test (`tactus-TAG-XXXXXX` in the system's temporary folder,
/// made by `tempfile`: a new name each call, so that tests running at once never share one),
/// removed with what it holds when the test lets go of it, unless the test failed.
#[cfg(test)]
pub(crate) fn scratch(tag: &str) -> Scratch {
    Scratch(
        tempfile::Builder::new()
            .prefix(&format!("tactus-{tag}-"))
            .tempdir()
            .expect("a folder in the system's temporary folder"),
    )
}

/// A unit test's folder ([`scratch`]): used as the path it is, removed when dropped.
#[cfg(test)]
pub(crate) struct Scratch(tempfile::TempDir);

#[cfg(test)]
impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

#[cfg(test)]
impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

/// A test that fails keeps its folder for a look, and says where.
#[cfg(test)]
impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.disable_cleanup(true);
            eprintln!("kept for a look: {}", self.0.path().display());
        }
    }
}

/// As a path is (`PathBuf::from(&scratch)`).
#[cfg(test)]
impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}
