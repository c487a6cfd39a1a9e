//! Whom the console socket trusts: only the daemon's user. What its path must be (an existing
//! folder of the daemon's user or root that others cannot write to unless it is sticky, reached
//! through folders and links no other user can change: the store's `trusted` walk; a console
//! group the daemon's user is in), what may be removed there (only a stale socket of its own),
//! who holds a path taken first (named, with the fix), and who is at the other end of a socket
//! (`SO_PEERCRED`).

use std::{
    os::unix::fs::{FileTypeExt, MetadataExt},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, bail};

use crate::store::trusted::{Last, check_folder, who};

/// What `bind` requires of the socket's path and group, checked without making anything (for
/// `check-config` and before a new game): nothing but a socket of the daemon's user is at the
/// path, the folder exists (never made here: a daemon run as
/// root would make folders anywhere, `/` included, for a mistyped path), belongs to the
/// daemon's user or root and cannot be written by others unless sticky; the console group
/// exists and the daemon's user is in it (else the socket cannot be given to it).
pub fn check_socket_path(path: &Path, group: Option<&str>) -> Result<()> {
    let owner = own_uid().context("cannot find the daemon's own user id")?;
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => {
            if !dir.is_dir() {
                anyhow::bail!(
                    "the folder {} for the console socket does not exist (key \
                     console.socket): create it, or give the socket a path in an existing folder",
                    dir.display()
                );
            }
            dir.to_path_buf()
        }
        None => PathBuf::from("."),
    };
    check_socket_folder(&dir, owner)?;
    // A socket of another user already there: the daemon could not start (and a client might
    // talk to him); said now, naming him.
    existing_socket(path, owner)?;
    if let Some(group) = group {
        let gid = crate::store::private::group_id(group)?;
        // Root may give a file to any group.
        if owner != 0 && !own_groups().contains(&gid) {
            bail!(
                "key console.group = \"{group}\": the daemon's user is not a member of it, so the \
                 console socket cannot be given to it; add the user to the group (usermod -aG \
                 {group} USER, then log in again or restart the service)"
            );
        }
    }
    Ok(())
}

/// The daemon process's groups (effective and supplementary), from /proc/self/status.
fn own_groups() -> Vec<u32> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> Vec<u32> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|rest| {
                rest.split_whitespace()
                    .filter_map(|w| w.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut groups = field("Groups:");
    // Gid: real, effective, saved, filesystem.
    groups.extend(field("Gid:").get(1).copied());
    groups
}

/// The socket's folder, and every folder and link on the way to it, must belong to the daemon's
/// user or root, and other users must not be able to write to any of them unless it is sticky
/// (see [`ConsoleSocket::bind`](super::ConsoleSocket::bind)): else they could rename a folder on
/// the way and put a socket of their own where the clients look.
fn check_socket_folder(dir: &Path, owner: u32) -> Result<()> {
    check_folder(dir, Last::Shared).map(drop).map_err(|e| {
        anyhow::anyhow!(
            "the console socket's folder {} (key console.socket) is not safe: {e}; another user \
             could put a socket of his own in the socket's place. Put it in a folder of the \
             daemon's {} that nobody else may write to (like /run/user/{owner} or /run/tactus), \
             or make a shared folder sticky (chmod +t, as /tmp is)",
            dir.display(),
            who(owner)
        )
    })
}

/// What is at `path` already, when it may be removed as a stale socket of the daemon's user:
/// `None` when nothing is there, the error that names it (a file, a folder, a link, a socket of
/// another user, and who that is) when it may not.
fn existing_socket(path: &Path, owner: u32) -> Result<Option<std::fs::Metadata>> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| {
                format!("cannot look at {} (key console.socket)", path.display())
            });
        }
    };
    let kind = meta.file_type();
    if !kind.is_socket() {
        let what = if kind.is_file() {
            "a regular file"
        } else if kind.is_dir() {
            "a folder"
        } else if kind.is_symlink() {
            "a symbolic link"
        } else {
            "not a socket"
        };
        bail!(
            "console.socket = {} names {what}, not a socket; tactus removes only a stale socket \
             of its own there, so nothing was touched: give console.socket a path of its own",
            path.display()
        );
    }
    if meta.uid() != owner {
        bail!(
            "the console socket {} (key console.socket) belongs to {}, not to the daemon's \
             {}: another user may be posing as tactus there (in a folder others may write to, \
             he can take the name first); nothing was touched. Give console.socket a path in a \
             folder of the daemon's user that nobody else may write to (like /run/tactus or \
             /run/user/{owner}; see [console] socket in the README), or remove the socket as \
             that user or root",
            path.display(),
            who(meta.uid()),
            who(owner)
        );
    }
    Ok(Some(meta))
}

/// Remove what is at `path` if it is a stale socket of the daemon's user; refuse anything else.
pub(super) fn clear_stale_socket(path: &Path, owner: u32) -> Result<()> {
    if existing_socket(path, owner)?.is_none() {
        return Ok(());
    }
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(stream) => {
            let uid = peer_uid(&stream).with_context(|| {
                format!(
                    "cannot tell who listens on {} (key console.socket)",
                    path.display()
                )
            })?;
            if uid == owner {
                bail!(
                    "another tactus is already listening on the console socket {}; stop it, or \
                     give this one another console.socket",
                    path.display()
                );
            }
            bail!(
                "a process of {}, not of the daemon's {}, listens on the console socket {} (key \
                 console.socket); it is not this tactus: stop it, or give console.socket a path \
                 in a folder of the daemon's user that nobody else may write to (see [console] \
                 socket in the README)",
                who(uid),
                who(owner),
                path.display()
            );
        }
        // No one listens: a crashed run's socket.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => std::fs::remove_file(path)
            .with_context(|| format!("cannot remove the stale console socket {}", path.display())),
        Err(e) => Err(e).with_context(|| {
            format!(
                "cannot tell whether the console socket {} (key console.socket) is in use",
                path.display()
            )
        }),
    }
}

/// The user id of the process at the other end of a connected Unix socket (`SO_PEERCRED`,
/// through tokio, as std's is unstable and `libc` is no dependency). Works with or without a
/// tokio runtime around (the console client has none). Leaves `stream` in blocking mode.
pub fn peer_uid(stream: &std::os::unix::net::UnixStream) -> std::io::Result<u32> {
    peer_cred(stream).map(|(uid, _)| uid)
}

/// The user id and, where the kernel tells it, the process id of the process at the other end
/// of a connected Unix socket (as [`peer_uid`]). The process id is that of the process that
/// listened: the console client finds by it the game folder that daemon plays (its lock).
pub fn peer_cred(stream: &std::os::unix::net::UnixStream) -> std::io::Result<(u32, Option<i32>)> {
    let peer = |stream: &std::os::unix::net::UnixStream| -> std::io::Result<(u32, Option<i32>)> {
        // A duplicate, handed to tokio only to ask the kernel; no I/O is done on it. Tokio takes
        // non-blocking sockets only, and the mode is shared with the caller's stream: restored
        // below.
        let dup = stream.try_clone()?;
        dup.set_nonblocking(true)?;
        let cred = tokio::net::UnixStream::from_std(dup).and_then(|dup| dup.peer_cred());
        stream.set_nonblocking(false)?;
        let cred = cred?;
        Ok((cred.uid(), cred.pid()))
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        return peer(stream);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let _inside = runtime.enter();
    peer(stream)
}

/// The daemon's own (effective) user id, as the kernel gives it to the peer of a socket pair.
pub fn own_uid() -> std::io::Result<u32> {
    let (mine, _) = std::os::unix::net::UnixStream::pair()?;
    peer_uid(&mine)
}
