//! The console client: a connection to the daemon's console socket and the sessions over it,
//! interactive or one-shot (`tactus console` is its command).
//!
//! It trusts the socket only as far as it can check it, before it sends anything: the process
//! listening (the peer's user id, `SO_PEERCRED`) must be this user's, root's or the owner of a
//! folder only he may write to, and the arbiter's token is sent only to a daemon running as the
//! token file's owner, since another user may have taken the socket's name in a shared folder;
//! and control characters from the daemon are shown escaped, never handed to the terminal.
//!
//! This is the only part of [`tactus_core::console`] that does I/O: a Unix socket, standard input and
//! output, and two threads for the interactive mode. Here the connection and the token file;
//! the sessions (one-shot and interactive) in `session`; the token of the game the daemon plays
//! now, for a console that connects again or starts with an older game's, in `follow`; reading
//! the daemon's lines with a deadline in `lines`. The protocol is [`tactus_core::console::wire`]'s.

mod follow;
mod lines;
mod session;

use std::{io, os::unix::net::UnixStream, path::Path};

use anyhow::{Context, Result, bail};

pub use self::{
    follow::current_token,
    session::{
        Reconnect, Relogin, interactive, interactive_following, interactive_reconnecting, one_shot,
    },
};
use crate::store::trusted::{Last, check_folder_of, who};
use tactus_core::console::token;

/// Connect to the daemon's socket, and check who serves it before anything is sent
/// (`SO_PEERCRED`): another user may have bound the socket's name first in a shared folder
/// (`/tmp`), and would then read every command and answer as he likes. With `token_owner` (the
/// user id owning the token file: the daemon's user, since the token file is private to it), the
/// process listening must be that user's, or the token would go to whoever took the name.
/// Without, it must be this user's own, root's, or the owner of the socket's folder when nobody
/// else may write there (`/run/tactus` of a daemon user `tactus`: only he can have made the
/// socket in it).
pub fn connect(path: &Path, token_owner: Option<u32>) -> Result<UnixStream> {
    let stream = UnixStream::connect(path).map_err(|e| {
        let why = connect_failure(path, &e);
        anyhow::Error::new(e).context(why)
    })?;
    let peer = crate::daemon::console::peer_uid(&stream)
        .with_context(|| format!("cannot tell who listens on {}", path.display()))?;
    match token_owner {
        Some(owner) if peer != owner => bail!(
            "the console socket {} is served by {}, but the token file belongs to {}, the \
             daemon's: this is not that daemon (another user may have taken the socket's name), \
             so the token was not sent",
            path.display(),
            who(peer),
            who(owner)
        ),
        Some(_) => {}
        None => {
            let me =
                crate::daemon::console::own_uid().context("cannot find this user's own user id")?;
            if peer != me && peer != 0 && folder_owner_alone(path) != Some(peer) {
                bail!(
                    "the console socket {} is held by {}: not this user ({me}), not root, not the \
                     owner of its folder. Another user may have taken the socket's name before \
                     the daemon started, so nothing was sent. If that user does run the daemon, \
                     put the socket in a folder of his that nobody else may write to (like \
                     /run/tactus; see [console] socket in the README), or log in with \
                     --token-file",
                    path.display(),
                    who(peer)
                );
            }
        }
    }
    Ok(stream)
}

/// The owner of the socket's folder, when no one else may write to it (neither its group nor
/// others) nor change the way to it (every folder and link on the way his or root's, closed to
/// others unless sticky): then no one else can have bound a name in it.
fn folder_owner_alone(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let owner = std::fs::metadata(folder).ok()?.uid();
    check_folder_of(folder, Last::Private, owner).ok()?;
    Some(owner)
}

/// Why connecting to the socket at `path` failed, in the words its user needs. A refused
/// permission means the daemon is most likely running: the user is not one the socket lets in
/// (its owner, or the group `[console] group` names), or cannot enter a folder on its path; asking
/// whether `tactus run` runs would send him looking in the wrong place.
fn connect_failure(path: &Path, error: &io::Error) -> String {
    if error.kind() == io::ErrorKind::PermissionDenied {
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| ".".to_string(), |p| p.display().to_string());
        format!(
            "cannot connect to the console socket {}: permission denied. The socket lets in the \
             daemon's user and the group that `[console] group` names in the daemon's \
             configuration: add this user to that group (and log in again), and check that this \
             user may enter the socket's folder {folder} and every folder above it",
            path.display()
        )
    } else {
        format!(
            "cannot connect to the console socket {}; is `tactus run` running? (choose the \
             socket with --socket or --config)",
            path.display()
        )
    }
}

/// The arbiter's token and the user owning its file.
pub struct TokenFile {
    pub token: String,
    pub owner: u32,
}

/// Read the token file; a file others may read is used (the arbiter may need the game now) with
/// a warning on stderr, since its token is no longer a secret.
pub fn read_token(path: &Path) -> Result<TokenFile> {
    use std::os::unix::fs::MetadataExt;
    let mut file = std::fs::File::open(path)
        .with_context(|| format!("cannot read the arbiter's token file {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read the arbiter's token file {}", path.display()))?;
    let mut text = String::new();
    io::Read::read_to_string(&mut io::Read::take(&mut file, 64 * 1024), &mut text)
        .with_context(|| format!("cannot read the arbiter's token file {}", path.display()))?;
    let token =
        token::parse_file(&text).with_context(|| format!("{} holds no token", path.display()))?;
    if meta.mode() & 0o077 != 0 {
        eprintln!(
            "warning: the token file {} can be read by others (mode {:04o}); the daemon will \
             refuse it at its next start: chmod 600 it",
            path.display(),
            meta.mode() & 0o7777
        );
    }
    Ok(TokenFile {
        token,
        owner: meta.uid(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_permission_names_the_group_and_the_folder_not_the_daemon() {
        let path = Path::new("/run/tactus/console.sock");
        let denied = io::Error::from(io::ErrorKind::PermissionDenied);
        let said = connect_failure(path, &denied);
        assert!(
            said.contains("/run/tactus/console.sock: permission denied"),
            "{said}"
        );
        assert!(said.contains("`[console] group`"), "{said}");
        assert!(said.contains("socket's folder /run/tactus "), "{said}");
        assert!(!said.contains("tactus run"), "{said}");
    }

    #[test]
    fn a_missing_socket_asks_whether_the_daemon_runs() {
        let path = Path::new("console.sock");
        for kind in [io::ErrorKind::NotFound, io::ErrorKind::ConnectionRefused] {
            let said = connect_failure(path, &io::Error::from(kind));
            assert!(said.contains("is `tactus run` running?"), "{said}");
            assert!(!said.contains("group"), "{said}");
        }
    }
}
