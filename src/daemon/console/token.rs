//! The arbiter's token file: read if it is a private file of the daemon's user (never through a
//! link), else made from the system's random source with mode 0600; the token is never printed.
//! By default it is `arbiter.token` in the game folder, read and made relative to the folder held
//! open ([`arbiter_token_in`]), never through the folder's path; a file the configuration names
//! (`console.token_file`, [`arbiter_token`]) is the user's own path, whose folder must be
//! reached through folders no other user can change (the store's `trusted` walk).
//! [`check_token_file`] checks a configured one without making it, before a game folder is made.

use std::{
    fs::File,
    io::{Read, Write},
    os::unix::fs::MetadataExt,
    path::Path,
};

use anyhow::{Context, Result, anyhow, bail};
use nix::fcntl::OFlag;

use super::own_uid;
use crate::store::trusted::{Last, TrustedDir, check_folder};
use tactus_core::folder::TOKEN_FILE;

/// The arbiter's token in the file `path` that key `console.token_file` of `origin` names (the
/// key is named in errors): read if it is there (the arbiter's own file, a resumed game), else
/// made from the system's random source and written there with mode 0600. Its folder, and every
/// folder and link on the way, must be trusted.
///
/// An existing file is trusted only if it is a regular file (not a link: it is opened without
/// following one, and checked to be the file that was looked at), belongs to the daemon's user,
/// and no one else may read or write it; its token must be as hard to guess as ours.
pub fn arbiter_token(path: &Path, origin: &str) -> Result<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let key = format!(" ({origin}: key console.token_file)");
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            check_token_folder(path, &key)?;
            let text = read_private_file(path, &meta)
                .map_err(|e| anyhow!("the arbiter's token file {}{key}: {e}", path.display()))?;
            return parse_token(&text, path, &key);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!(
            "cannot read the arbiter's token file {}{key}: {e}",
            path.display()
        ),
    }
    check_token_folder(path, &key)?;
    let token = new_token()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}{key}", dir.display()))?;
    }
    // `create_new` (O_CREAT|O_EXCL) never follows a link, so nothing planted at the path since
    // it was looked at is written through.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| {
            format!(
                "cannot create the arbiter's token file {}{key}",
                path.display()
            )
        })?;
    write_token(file, &token, path)?;
    Ok(token)
}

/// The arbiter's token in `arbiter.token` of the game folder held open, `folder`: read if it is
/// there (a resumed game), else made and written there with mode 0600, as [`arbiter_token`]
/// does, but relative to the folder held, never through its path: a folder on the way
/// re-pointed since the folder was found trusted takes no token elsewhere, and gives none of
/// another's. A link in its place is neither read nor written through (`O_NOFOLLOW`, `O_EXCL`).
pub fn arbiter_token_in(folder: &TrustedDir) -> Result<String> {
    let at = folder.at();
    let path = at.file_path(TOKEN_FILE);
    // Not blocked by a pipe put there: what is opened must be a regular file.
    match at.open(TOKEN_FILE, OFlag::O_RDONLY | OFlag::O_NONBLOCK, 0) {
        Ok(file) => {
            let text = read_private(file)
                .map_err(|e| anyhow!("the arbiter's token file {}: {e}", path.display()))?;
            return parse_token(&text, &path, "");
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        // A link or a pipe there: the message names the file already.
        Err(e) if e.raw_os_error().is_none() => bail!("cannot read the arbiter's token: {e}"),
        Err(e) => bail!(
            "cannot read the arbiter's token file {}: {e}",
            path.display()
        ),
    }
    let token = new_token()?;
    let file = at
        .open(
            TOKEN_FILE,
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL,
            0o600,
        )
        .with_context(|| format!("cannot create the arbiter's token file {}", path.display()))?;
    write_token(file, &token, &path)?;
    at.sync();
    Ok(token)
}

/// A new token from the system's random source.
fn new_token() -> Result<String> {
    let mut random = [0u8; tactus_core::console::token::TOKEN_BYTES];
    getrandom::fill(&mut random).map_err(|e| {
        anyhow!("cannot get random bytes from the system for the arbiter's token: {e}")
    })?;
    Ok(tactus_core::console::token::from_bytes(&random))
}

/// Write `token` to the new token file `file` (at `path`, for messages), on the disk.
fn write_token(mut file: File, token: &str, path: &Path) -> Result<()> {
    file.write_all(format!("{token}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write the arbiter's token file {}", path.display()))
}

/// The token in the text of the token file `path` (`key`: the key that named it, if one did).
fn parse_token(text: &str, path: &Path, key: &str) -> Result<String> {
    tactus_core::console::token::parse_file(text).map_err(|e| {
        anyhow!(
            "the arbiter's token file {}{key}: {e}; delete it to have a new one made",
            path.display()
        )
    })
}

/// What `tactus run` will require of the arbiter's token file `path` (key console.token_file of
/// `origin`), checked without making it: its folder is trusted, and a file already there is a
/// private file of the daemon's user holding a good token. For `check-config` and before a new
/// game folder is made.
pub fn check_token_file(path: &Path, origin: &str) -> Result<()> {
    let key = format!(" ({origin}: key console.token_file)");
    check_token_folder(path, &key)?;
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            let text = read_private_file(path, &meta)
                .map_err(|e| anyhow!("the arbiter's token file {}{key}: {e}", path.display()))?;
            parse_token(&text, path, &key).map(drop)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => bail!(
            "cannot read the arbiter's token file {}{key}: {e}",
            path.display()
        ),
    }
}

/// The token file's folder, and every folder and link on the way, must be trusted (a sticky
/// folder like /tmp may hold it: the file is made with `O_EXCL` and read only if it is the
/// daemon's): else another user could re-point it to a token of his, or read ours.
fn check_token_folder(path: &Path, key: &str) -> Result<()> {
    let folder = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    check_folder(folder, Last::Shared).map(drop).map_err(|e| {
        anyhow!(
            "the arbiter's token file {}{key} cannot be trusted: {e}; keep it in a folder of the \
             daemon's user that nobody else may write to",
            path.display()
        )
    })
}

/// The text of a secret file `path` whose `lstat` is `seen`: a regular file (not a link), owned
/// by the daemon's user, mode without group or other bits, and still the file that was looked
/// at once opened (a link swapped in between is caught by its device and inode).
fn read_private_file(path: &Path, seen: &std::fs::Metadata) -> Result<String> {
    if seen.file_type().is_symlink() {
        let target = std::fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        let dangling = if path.exists() { "" } else { " (to nothing)" };
        bail!(
            "is a symbolic link{dangling} to {target}; a secret is read only from a file of its \
             own: replace the link with the file itself"
        );
    }
    if !seen.file_type().is_file() {
        bail!("is not a regular file");
    }
    let file = File::open(path).context("cannot open it")?;
    let meta = file.metadata().context("cannot look at it")?;
    if (meta.dev(), meta.ino()) != (seen.dev(), seen.ino()) {
        bail!("was replaced while it was being opened; nothing was read");
    }
    read_private(file)
}

/// The text of the open secret file `file`: owned by the daemon's user, mode without group or
/// other bits.
fn read_private(file: File) -> Result<String> {
    let owner = own_uid().context("cannot find the daemon's own user id")?;
    let meta = file.metadata().context("cannot look at it")?;
    if meta.uid() != owner {
        bail!(
            "belongs to user {}, not to the daemon's user {owner}; the token must be the daemon's \
             own (chown it, or delete it to have a new one made)",
            meta.uid()
        );
    }
    if meta.mode() & 0o077 != 0 {
        bail!(
            "can be read or written by others (mode {:04o}); the token must be private: chmod \
             600 it (and make a new token if others may have read it)",
            meta.mode() & 0o7777
        );
    }
    let mut text = String::new();
    file.take(64 * 1024)
        .read_to_string(&mut text)
        .context("cannot read it")?;
    Ok(text)
}
