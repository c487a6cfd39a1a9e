//! Writing a scoresheet file atomically: the whole new content or the old file, never half of
//! either, even if the process or the machine dies in the middle.
//!
//! The one I/O piece of `record`. The content goes to a temporary file in the same directory
//! (a rename is only atomic within one file system), is flushed to the disk (`fsync`), and is
//! renamed over the target; then the directory is synced so that the rename itself survives a
//! power cut. On any error the temporary file is removed and the target is untouched. The daemon
//! rewrites the PGN, BRF, Braille and text scoresheets this way after every move, in the game
//! folder it holds open ([`write_atomically_in`], through
//! [`TrustedDir`](super::trusted::TrustedDir)): every step is relative to the open folder, so a
//! folder renamed or replaced by a link on its path redirects no write.

use std::{
    ffi::OsStr,
    fs::{self, File},
    io::{self, Write},
    os::unix::{ffi::OsStrExt, fs::PermissionsExt},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use nix::{
    fcntl::{AtFlags, OFlag, openat, renameat},
    sys::stat::{Mode, fstatat},
    unistd::{UnlinkatFlags, unlinkat},
};

/// Why a file could not be written; each names the file and the step.
#[derive(Debug, thiserror::Error)]
pub enum AtomicWriteError {
    #[error("cannot write {}: it has no file name", .path.display())]
    NoFileName { path: PathBuf },
    #[error("cannot create the temporary file {} to write {}: {source}", .temp.display(), .path.display())]
    Create {
        path: PathBuf,
        temp: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write {} (through {}): {source}", .path.display(), .temp.display())]
    Write {
        path: PathBuf,
        temp: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot replace {} with the new version {}: {source}", .path.display(), .temp.display())]
    Rename {
        path: PathBuf,
        temp: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Distinguishes temporary files of concurrent writers within one process (the process id
/// distinguishes processes).
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Replaces `path` with `bytes`, atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

/// Replaces `path` with what `fill` writes, atomically: if `fill` fails, the old file stays as
/// it was and the temporary file is removed. An existing file's permissions are kept. The
/// folder is looked up by its path once, then everything happens in it (see
/// [`write_atomically_in`]).
pub fn write_atomically_with<F>(path: &Path, fill: F) -> Result<(), AtomicWriteError>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let name = path
        .file_name()
        .ok_or_else(|| AtomicWriteError::NoFileName {
            path: path.to_owned(),
        })?;
    let dir_path = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let dir = File::open(dir_path).map_err(|source| AtomicWriteError::Create {
        path: path.to_owned(),
        temp: dir_path.join(temp_name(name)),
        source,
    })?;
    write_atomically_in(&dir, dir_path, name, fill)
}

/// The hidden temporary name a new version of `name` is written under: clearly ours, so that a
/// leftover after a crash is recognisable and harmless.
fn temp_name(name: &OsStr) -> String {
    format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    )
}

/// Replaces the file `name` of the open folder `dir` (at `dir_path`, for messages) with what
/// `fill` writes, atomically. Every step is relative to `dir` (`openat`, `renameat`,
/// `unlinkat`): a folder renamed, or replaced by a link, on the way to `dir_path` meanwhile
/// redirects nothing. `name` must be a plain name in the folder.
pub fn write_atomically_in<F>(
    dir: &File,
    dir_path: &Path,
    name: &OsStr,
    fill: F,
) -> Result<(), AtomicWriteError>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let path = dir_path.join(name);
    if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
        return Err(AtomicWriteError::NoFileName { path });
    }
    let temp_name = temp_name(name);
    let temp = dir_path.join(&temp_name);
    let created = openat(
        dir,
        temp_name.as_str(),
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::from_bits_truncate(0o666),
    );
    let mut file = match created {
        Ok(fd) => File::from(fd),
        Err(e) => {
            return Err(AtomicWriteError::Create {
                path,
                temp,
                source: e.into(),
            });
        }
    };
    let remove_temp = || {
        let _ = unlinkat(dir, temp_name.as_str(), UnlinkatFlags::NoRemoveDir);
    };
    let written = (|| {
        // The old file's own permissions: not those of what a symbolic link there points to
        // (the rename replaces the link itself, never its target).
        if let Ok(old) = fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
            && old.st_mode & nix::libc::S_IFMT == nix::libc::S_IFREG
        {
            file.set_permissions(fs::Permissions::from_mode(old.st_mode & 0o7777))?;
        }
        let mut buffered = io::BufWriter::new(&mut file);
        fill(&mut buffered)?;
        buffered.flush()?;
        drop(buffered);
        file.sync_all()
    })();
    drop(file);
    if let Err(source) = written {
        remove_temp();
        return Err(AtomicWriteError::Write { path, temp, source });
    }
    if let Err(e) = renameat(dir, temp_name.as_str(), dir, name) {
        remove_temp();
        return Err(AtomicWriteError::Rename {
            path,
            temp,
            source: e.into(),
        });
    }
    // Best effort: not every platform or file system can sync a directory, and the file is
    // already complete under its name; only its survival of a power cut is at stake.
    let _ = dir.sync_all();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir, removed at the end of the test.
    struct TempDir(crate::store::Scratch);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            TempDir(crate::store::scratch(&format!("atomic-{name}")))
        }

        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(&*self.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
    }

    #[test]
    fn writes_and_replaces_leaving_no_temporary_file() {
        let dir = TempDir::new("replace");
        let path = dir.0.join("game.brf");
        write_atomically(&path, b"first").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"first");
        write_atomically(&path, b"second, longer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second, longer");
        write_atomically(&path, b"").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"");
        assert_eq!(dir.entries(), ["game.brf"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_whole() {
        let dir = TempDir::new("fail");
        let path = dir.0.join("game.pgn");
        write_atomically(&path, b"1. e4 e5 *").unwrap();
        let err = write_atomically_with(&path, |w| {
            // Half a score, then the crash.
            w.write_all(b"1. e4 e5 2. Nf")?;
            Err(io::Error::other("the writer died"))
        })
        .unwrap_err();
        assert!(matches!(err, AtomicWriteError::Write { .. }), "{err}");
        let message = err.to_string();
        assert!(
            message.contains("game.pgn") && message.contains("the writer died"),
            "{message}"
        );
        assert_eq!(fs::read(&path).unwrap(), b"1. e4 e5 *");
        assert_eq!(dir.entries(), ["game.pgn"]);
    }

    #[test]
    fn errors_name_the_file() {
        let dir = TempDir::new("errors");
        let missing = dir.0.join("no-such-dir").join("game.txt");
        let err = write_atomically(&missing, b"x").unwrap_err();
        assert!(matches!(err, AtomicWriteError::Create { .. }), "{err}");
        assert!(err.to_string().contains("no-such-dir/game.txt"), "{err}");
        // A directory in the way: the rename fails, the temporary file goes away.
        let blocked = dir.0.join("blocked");
        fs::create_dir(&blocked).unwrap();
        fs::write(blocked.join("inside"), b"keep").unwrap();
        let err = write_atomically(&blocked, b"x").unwrap_err();
        assert!(matches!(err, AtomicWriteError::Rename { .. }), "{err}");
        assert_eq!(dir.entries(), ["blocked"]);
        let err = write_atomically(Path::new("/"), b"x").unwrap_err();
        assert!(matches!(err, AtomicWriteError::NoFileName { .. }), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn permissions_of_the_old_file_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("perms");
        let path = dir.0.join("score.txt");
        fs::write(&path, b"old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"new").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    /// Issue 14, point 9: a symbolic link in place of a scoresheet is replaced, its target
    /// neither written nor its permissions copied.
    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_replaced_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("link");
        let victim = dir.0.join("victim");
        fs::write(&victim, b"keep").unwrap();
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o666)).unwrap();
        let path = dir.0.join("game.pgn");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        write_atomically(&path, b"1. e4 *").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
        let meta = fs::symlink_metadata(&path).unwrap();
        assert!(meta.is_file());
        assert_ne!(meta.permissions().mode() & 0o777, 0o666);
        assert_eq!(fs::read(&path).unwrap(), b"1. e4 *");
    }

    #[test]
    fn concurrent_writers_never_leave_a_mixed_file() {
        let dir = TempDir::new("race");
        let path = dir.0.join("game.pgn");
        let contents: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 64 * 1024]).collect();
        std::thread::scope(|s| {
            let all = &contents;
            for content in all {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..5 {
                        write_atomically(path, content).unwrap();
                        let now = fs::read(path).unwrap();
                        assert!(all.contains(&now), "a mixed or partial file");
                    }
                });
            }
        });
        assert_eq!(dir.entries(), ["game.pgn"]);
    }
}
