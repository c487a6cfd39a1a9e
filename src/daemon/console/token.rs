//! The arbiter's token file: read if it is a private file of the daemon's user (never through a
//! link), else made from the system's random source with mode 0600; the token is never printed.
//! Its folder must be reached through folders no other user can change (the store's `trusted`
//! walk). [`check_token_file`] checks a configured one without making it, before a game folder
//! is made.

use std::{os::unix::fs::MetadataExt, path::Path};

use anyhow::{Context, Result, anyhow, bail};

use super::own_uid;
use crate::store::trusted::{Last, check_folder};

/// The arbiter's token: read from `path` if it is there (a resumed game, or the arbiter's own
/// file), else made from the system's random source and written there with mode 0600.
/// `configured`: the path is the `console.token_file` key (named in errors).
///
/// An existing file is trusted only if it is a regular file (not a link: it is opened without
/// following one, and checked to be the file that was looked at), belongs to the daemon's user,
/// and no one else may read or write it; its token must be as hard to guess as ours.
pub fn arbiter_token(path: &Path, configured: bool, origin: &str) -> Result<String> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let key = if configured {
        format!(" ({origin}: key console.token_file)")
    } else {
        String::new()
    };
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            check_token_folder(path, &key)?;
            let text = read_private_file(path, &meta)
                .map_err(|e| anyhow!("the arbiter's token file {}{key}: {e}", path.display()))?;
            return tactus_core::console::token::parse_file(&text).map_err(|e| {
                anyhow!(
                    "the arbiter's token file {}{key}: {e}; delete it to have a new one made",
                    path.display()
                )
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!(
            "cannot read the arbiter's token file {}{key}: {e}",
            path.display()
        ),
    }
    check_token_folder(path, &key)?;
    let mut random = [0u8; tactus_core::console::token::TOKEN_BYTES];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut random))
        .context("cannot read random bytes from /dev/urandom for the arbiter's token")?;
    let token = tactus_core::console::token::from_bytes(&random);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}{key}", dir.display()))?;
    }
    // `create_new` (O_CREAT|O_EXCL) never follows a link, so nothing planted at the path since
    // it was looked at is written through.
    let mut file = std::fs::OpenOptions::new()
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
    file.write_all(format!("{token}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write the arbiter's token file {}", path.display()))?;
    Ok(token)
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
            tactus_core::console::token::parse_file(&text).map_err(|e| {
                anyhow!(
                    "the arbiter's token file {}{key}: {e}; delete it to have a new one made",
                    path.display()
                )
            })?;
            Ok(())
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
    use std::io::Read;
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
    let owner = own_uid().context("cannot find the daemon's own user id")?;
    let file = std::fs::File::open(path).context("cannot open it")?;
    let meta = file.metadata().context("cannot look at it")?;
    if (meta.dev(), meta.ino()) != (seen.dev(), seen.ino()) {
        bail!("was replaced while it was being opened; nothing was read");
    }
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
