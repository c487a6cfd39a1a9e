//! The console socket: a Unix socket (mode 0600, or 0660 with a configured group) speaking the
//! line protocol of [`tactus_core::console::wire`], one task per connection.
//!
//! This module owns the connections: reading lines (capped at [`MAX_LINE`], binary garbage and
//! half lines refused without harm), each connection's [`Session`] (its role: every connection
//! starts as the assistant's; `role player` for the blind player's keypad; `login TOKEN` makes it
//! the arbiter's), `help`, `role`, `login` and `quit`, which need no game, and the event lines
//! (`# ...`) every console sees. It must not touch the game: every other command goes to the
//! hub, which owns the arbiter, and the reply comes back from there. A command the role may not
//! use is refused here, before the hub hears of it, so it changes nothing. A rude client
//! (garbage, endless lines, a disconnect mid-reply, hundreds of idle connections) only costs its
//! own task.
//!
//! It trusts only the daemon's user: [`ConsoleSocket::bind`] removes nothing but a stale socket
//! of its own, takes a live one for another tactus only when its listener is the daemon's user,
//! and refuses a folder others can write to (unless sticky); without a console group, a
//! connection of another user is refused. It caps the connections ([`MAX_CONSOLES`], fewer when
//! file descriptors are short: the game's own files come first), slows down and then closes a
//! connection after wrong logins, logs repeated refusals as a summary, never logs a sealed move,
//! and escapes control characters in every line it sends.
//!
//! It also keeps the arbiter's token file ([`arbiter_token`]): read if it is a private file of the
//! daemon's user (never through a link), else made from the system's random source with mode
//! 0600, never printed.

use std::{
    os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, anyhow, bail};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::{UnixListener, UnixStream},
    sync::{Semaphore, broadcast, mpsc, oneshot},
};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

use super::hub::{Broadcast, HubMsg};
use crate::speech::transcript::escape_controls;
use tactus_core::console::{
    Command, MAX_LINE, Role, Session, help_lines, table,
    wire::{self, End, Reply},
};

/// Most console connections open at once. A table has a handful (the assistant, the arbiter, the
/// blind player's keypad, a watcher or two); the rest is headroom for tests and scripts. Beyond
/// it a connection is told why and closed, so that idle connections cannot take the file
/// descriptors the journal, the PGN and the boards need.
pub const MAX_CONSOLES: usize = 256;
/// File descriptors kept for the game itself (its files, the boards, audio, the runtime) when the
/// console's share is worked out from the soft limit.
pub const FD_RESERVE: u64 = 256;
/// Failed logins after which a connection is closed.
pub const MAX_LOGIN_FAILURES: u32 = 5;
/// The wait before the reply to the first failed login of a connection; it doubles with each.
pub const LOGIN_DELAY: Duration = Duration::from_millis(100);
/// How often repeated refusals (failed logins, connections over the cap) are logged as one line.
const SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// The listening socket; removed again when dropped.
pub struct ConsoleSocket {
    path: PathBuf,
    listener: UnixListener,
    /// The daemon's user: the only one that may connect when there is no console group.
    owner: u32,
    /// Whether other users may connect (`console.group`: the socket's mode lets them in).
    group: bool,
    /// Connections served at once.
    cap: usize,
}

impl ConsoleSocket {
    /// Bind `path` with mode 0600: the console can change the game, so only the daemon's user
    /// may connect; with `group`, mode 0660 and that group (the assistant's own account, say).
    ///
    /// Nothing at `path` is removed unless it is a stale socket of the daemon's own user (a
    /// crashed run's): a regular file, a folder, a link or anything of another user is refused,
    /// naming the key. A live socket is believed to be another tactus only when the process
    /// listening on it is the daemon's user (`SO_PEERCRED`); another user's listener is an
    /// impostor. The socket's folder must not be writable by other users, unless it is sticky
    /// (`/tmp`): there nobody else can remove or rename our socket, and a name taken before us
    /// is seen above; a plain writable folder would let anyone replace the socket under us.
    pub fn bind(path: &Path, group: Option<&str>) -> Result<ConsoleSocket> {
        let owner = own_uid().context("cannot find the daemon's own user id")?;
        check_socket_path(path, group)?;
        clear_stale_socket(path, owner)?;
        let listener = UnixListener::bind(path).with_context(|| {
            format!(
                "cannot create the console socket {} (key console.socket)",
                path.display()
            )
        })?;
        // From here the file is ours: dropping the socket (on an error too) removes it.
        let socket = ConsoleSocket {
            path: path.to_owned(),
            listener,
            owner,
            group: group.is_some(),
            cap: connection_cap(raise_fd_limit()),
        };
        match group {
            None => std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .with_context(|| format!("cannot make {} private (mode 0600)", path.display()))?,
            Some(group) => {
                let gid = crate::store::private::group_id(group)?;
                std::os::unix::fs::chown(path, None, Some(gid)).with_context(|| {
                    format!(
                        "cannot give the console socket {} to the group {group} (key \
                         console.group); the daemon's user must be a member of it",
                        path.display()
                    )
                })?;
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))
                    .with_context(|| format!("cannot set mode 0660 on {}", path.display()))?;
            }
        }
        Ok(socket)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many connections are served at once (see [`MAX_CONSOLES`]).
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Accept connections until `cancel`; each is served by a task of its own, at most
    /// [`ConsoleSocket::cap`] at once.
    /// `token`: the arbiter's token `login` must match (`None`: nobody can be the arbiter).
    pub async fn serve(
        self,
        hub: mpsc::Sender<HubMsg>,
        events: broadcast::Sender<Broadcast>,
        token: Option<String>,
        cancel: CancellationToken,
    ) {
        let mut next_id = 1u64;
        let slots = Arc::new(Semaphore::new(self.cap));
        let refusals = Arc::new(Mutex::new(Refusals::default()));
        // The first summary a full period after the start (an interval's first tick is at once).
        let mut summary =
            tokio::time::interval_at(tokio::time::Instant::now() + SUMMARY_EVERY, SUMMARY_EVERY);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => break,
                _ = summary.tick() => refusals.lock().unwrap_or_else(|e| e.into_inner()).log(),
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let id = next_id;
                        next_id += 1;
                        let refused = if let Err(why) = self.admit(&stream) {
                            Some(why)
                        } else {
                            match slots.clone().try_acquire_owned() {
                                Ok(slot) => {
                                    let span = info_span!("console", conn = id);
                                    let session = Session::new(Role::Assistant, token.clone());
                                    let serve = connection(
                                        id,
                                        stream,
                                        session,
                                        hub.clone(),
                                        events.subscribe(),
                                        refusals.clone(),
                                        cancel.clone(),
                                    );
                                    tokio::spawn(
                                        async move {
                                            serve.await;
                                            drop(slot);
                                        }
                                        .instrument(span),
                                    );
                                    continue;
                                }
                                Err(_) => {
                                    refusals.lock().unwrap_or_else(|e| e.into_inner()).over_cap(self.cap);
                                    // The stream is still here (the closure above did not run).
                                    Some(format!(
                                        "{} consoles are open, the most this daemon serves; close \
                                         one and connect again",
                                        self.cap
                                    ))
                                }
                            }
                        };
                        if let Some(why) = refused {
                            refuse(stream, why);
                        }
                    }
                    Err(e) => {
                        // Out of file descriptors and the like: wait a little, keep serving.
                        warn!("console: cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }
        refusals.lock().unwrap_or_else(|e| e.into_inner()).log();
        // Dropping the listener closes it; the file goes in Drop.
    }

    /// Whether a connecting process may use the console: without a console group only the
    /// daemon's user (and root) may. The socket's mode already says so; this holds also for a
    /// connection made in the instant between `bind` and `chmod`.
    fn admit(&self, stream: &UnixStream) -> Result<(), String> {
        if self.group {
            return Ok(());
        }
        match stream.peer_cred() {
            Ok(cred) if cred.uid() == self.owner || cred.uid() == 0 => Ok(()),
            Ok(cred) => {
                warn!(
                    "console: refused a connection of user {} (only the daemon's user {} may \
                     connect; key console.group lets others in)",
                    cred.uid(),
                    self.owner
                );
                Err("this console is only for the daemon's own user".to_string())
            }
            Err(e) => Err(format!("cannot tell who is connecting: {e}")),
        }
    }
}

/// Tell a refused client why, then close, at once: one line fits in a fresh socket's buffer, so
/// a write that does not return now is not waited for (no task, no descriptor held: a flood of
/// connections over the cap costs nothing that outlasts it).
fn refuse(stream: UnixStream, why: String) {
    let _ = stream.try_write(Reply::error(why).encode().as_bytes());
}

/// Refusals that repeat, counted and logged as one line a minute rather than one each: an
/// attacker must not flood the log (journald) nor hide the first refusal in the noise.
#[derive(Default)]
struct Refusals {
    failed_logins: u64,
    closed_for_logins: u64,
    over_cap: u64,
    cap: usize,
    since: Option<Instant>,
}

impl Refusals {
    fn failed_login(&mut self, conn: u64) {
        if self.failed_logins == 0 && self.since.is_none() {
            // The first of a burst is logged at once; the rest go into the summary.
            warn!(conn, "console: a failed arbiter login");
        }
        self.failed_logins += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    fn closed_for_logins(&mut self) {
        self.closed_for_logins += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    fn over_cap(&mut self, cap: usize) {
        if self.over_cap == 0 && self.since.is_none() {
            warn!("console: {cap} connections are open; refusing more");
        }
        self.over_cap += 1;
        self.cap = cap;
        self.since.get_or_insert_with(Instant::now);
    }

    /// Log what was counted since the last summary, and start counting again.
    fn log(&mut self) {
        let Some(since) = self.since.take() else {
            return;
        };
        let mut parts = Vec::new();
        if self.failed_logins > 0 {
            parts.push(format!(
                "{} failed arbiter logins ({} connections closed for them)",
                self.failed_logins, self.closed_for_logins
            ));
        }
        if self.over_cap > 0 {
            parts.push(format!(
                "{} connections refused over the cap of {}",
                self.over_cap, self.cap
            ));
        }
        if !parts.is_empty() {
            warn!(
                "console: in the last {} s: {}",
                since.elapsed().as_secs(),
                parts.join("; ")
            );
        }
        *self = Refusals::default();
    }
}

impl Drop for ConsoleSocket {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            warn!(
                "cannot remove the console socket {}: {e}",
                self.path.display()
            );
        }
    }
}

/// What `bind` requires of the socket's path and group, checked without making anything (for
/// `check-config` and before a new game): the folder exists (never made here: a daemon run as
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

/// The socket's folder must belong to the daemon's user or root, and other users must not be
/// able to write to it unless it is sticky (see [`ConsoleSocket::bind`]).
fn check_socket_folder(dir: &Path, owner: u32) -> Result<()> {
    let meta = std::fs::metadata(dir).with_context(|| {
        format!(
            "cannot look at the console socket's folder {} (key console.socket)",
            dir.display()
        )
    })?;
    let mode = meta.mode();
    if meta.uid() != owner && meta.uid() != 0 {
        bail!(
            "the console socket's folder {} (key console.socket) belongs to user {}, who could \
             replace the socket with one of his own; put the socket in a folder of the daemon's \
             user {owner} (like /run/user/{owner} or /run/tactus)",
            dir.display(),
            meta.uid()
        );
    }
    let sticky = mode & 0o1000 != 0;
    let group_may_write = mode & 0o020 != 0 && !private_group(meta.gid(), owner);
    if !sticky && (mode & 0o002 != 0 || group_may_write) {
        bail!(
            "the console socket's folder {} (key console.socket) can be written by other users \
             (mode {:04o}), who could replace the socket with one of their own; put it in a \
             private folder (like /run/user/{owner}), or make this one sticky (chmod +t, as /tmp is)",
            dir.display(),
            mode & 0o7777
        );
    }
    Ok(())
}

/// Whether `gid` is the private group of user `uid` (user private groups, umask 002: folders are
/// group-writable, but the group is the user alone): `uid`'s primary group in /etc/passwd, no
/// other user's primary group, and no other member listed in /etc/group. When the files cannot
/// be read, it is not.
fn private_group(gid: u32, uid: u32) -> bool {
    let (Ok(passwd), Ok(groups)) = (
        std::fs::read_to_string("/etc/passwd"),
        std::fs::read_to_string("/etc/group"),
    ) else {
        return false;
    };
    // name, uid, primary gid
    let users: Vec<(&str, u32, u32)> = passwd
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(':').collect();
            Some((
                *f.first()?,
                f.get(2)?.parse().ok()?,
                f.get(3)?.parse().ok()?,
            ))
        })
        .collect();
    let Some(&(name, _, primary)) = users.iter().find(|u| u.1 == uid) else {
        return false;
    };
    if primary != gid || users.iter().any(|u| u.2 == gid && u.1 != uid) {
        return false;
    }
    groups.lines().all(|line| {
        let f: Vec<&str> = line.split(':').collect();
        if f.get(2).and_then(|g| g.parse::<u32>().ok()) != Some(gid) {
            return true;
        }
        f.get(3)
            .is_none_or(|members| members.split(',').all(|m| m.is_empty() || m == name))
    })
}

/// Remove what is at `path` if it is a stale socket of the daemon's user; refuse anything else.
fn clear_stale_socket(path: &Path, owner: u32) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
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
            "the console socket {} (key console.socket) belongs to user {}, not to the daemon's \
             user {owner}: another user may be posing as tactus there; nothing was touched. \
             Remove it as that user or root, or give console.socket a path in a private folder",
            path.display(),
            meta.uid()
        );
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
                "a process of user {uid}, not of the daemon's user {owner}, listens on the \
                 console socket {} (key console.socket); it is not this tactus: stop it, or \
                 give console.socket a path in a private folder",
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
    let peer = |stream: &std::os::unix::net::UnixStream| -> std::io::Result<u32> {
        // A duplicate, handed to tokio only to ask the kernel; no I/O is done on it. Tokio takes
        // non-blocking sockets only, and the mode is shared with the caller's stream: restored
        // below.
        let dup = stream.try_clone()?;
        dup.set_nonblocking(true)?;
        let uid = tokio::net::UnixStream::from_std(dup).and_then(|dup| dup.peer_cred());
        stream.set_nonblocking(false)?;
        Ok(uid?.uid())
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

/// The connections served at once for a soft file descriptor limit: [`MAX_CONSOLES`], fewer when
/// the limit would leave less than [`FD_RESERVE`] descriptors for the game.
pub fn connection_cap(soft_limit: Option<u64>) -> usize {
    let share = soft_limit.map_or(MAX_CONSOLES as u64, |soft| soft.saturating_sub(FD_RESERVE));
    (share.min(MAX_CONSOLES as u64) as usize).max(4)
}

/// Raise the soft limit of open files to the hard limit (a user may, without privileges), and
/// return the soft limit in effect. The default soft limit (1024) is low for a daemon holding
/// boards, audio, its files and the consoles; the hard one is what the administrator allows.
pub fn raise_fd_limit() -> Option<u64> {
    match rlimit::raise_nofile() {
        Ok(soft) => Some(soft),
        Err(e) => {
            warn!("cannot raise the limit of open files: {e}");
            rlimit::soft_nofile_from_proc()
        }
    }
}

/// `getrlimit`/`setrlimit` for `RLIMIT_NOFILE`. The `libc` crate is not a dependency, so the two
/// calls are declared here, for the Linux targets whose constants and types are known (these
/// are the values of glibc and musl on x86_64 and aarch64).
mod rlimit {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    pub fn raise_nofile() -> std::io::Result<u64> {
        #[repr(C)]
        struct Rlimit {
            cur: u64,
            max: u64,
        }
        const RLIMIT_NOFILE: i32 = 7;
        unsafe extern "C" {
            fn getrlimit(resource: i32, rlim: *mut Rlimit) -> i32;
            fn setrlimit(resource: i32, rlim: *const Rlimit) -> i32;
        }
        let mut limit = Rlimit { cur: 0, max: 0 };
        // SAFETY: `limit` is a valid, writable `struct rlimit` (two `rlim_t`, u64 on these
        // targets) that outlives the call.
        if unsafe { getrlimit(RLIMIT_NOFILE, &mut limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if limit.cur < limit.max {
            let raised = Rlimit {
                cur: limit.max,
                max: limit.max,
            };
            // SAFETY: `raised` is a valid `struct rlimit` that outlives the call.
            if unsafe { setrlimit(RLIMIT_NOFILE, &raised) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            limit.cur = limit.max;
        }
        Ok(limit.cur)
    }

    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    pub fn raise_nofile() -> std::io::Result<u64> {
        Err(std::io::Error::other("not supported on this platform"))
    }

    /// The soft limit as `/proc/self/limits` shows it (`Max open files  1024  4096  files`).
    pub fn soft_nofile_from_proc() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/self/limits").ok()?;
        let line = text.lines().find(|l| l.starts_with("Max open files"))?;
        line["Max open files".len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    }
}

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

/// A line that is refused before it is read as a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BadLine {
    TooLong,
    NotText,
}

/// Reads lines of at most [`MAX_LINE`] bytes. Cancel-safe: the partial line lives here, not in
/// the future, so a broadcast written between two reads loses nothing of a line still arriving.
struct LineReader {
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    buf: Vec<u8>,
    too_long: bool,
}

impl LineReader {
    /// The next line. `Ok(None)` at the end of the stream; an over-long line is consumed to its
    /// end and reported as `Err(BadLine::TooLong)`, one that is not UTF-8 as
    /// `Err(BadLine::NotText)`. A half line at the end of the stream is a line.
    async fn next(&mut self) -> std::io::Result<Option<Result<String, BadLine>>> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                if self.buf.is_empty() && !self.too_long {
                    return Ok(None);
                }
                return Ok(Some(self.take()));
            }
            let (chunk, found) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.too_long {
                if self.buf.len() + chunk.len() > MAX_LINE {
                    self.too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = found.unwrap_or(available.len());
            self.reader.consume(used);
            if found.is_some() {
                return Ok(Some(self.take()));
            }
        }
    }

    fn take(&mut self) -> Result<String, BadLine> {
        let line = std::mem::take(&mut self.buf);
        if std::mem::replace(&mut self.too_long, false) {
            return Err(BadLine::TooLong);
        }
        String::from_utf8(line).map_err(|_| BadLine::NotText)
    }
}

/// Longest time a reply may take to be written: a client that does not read its replies is
/// dropped rather than holding its task (and its memory) forever.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

async fn write_all(write: &mut tokio::net::unix::OwnedWriteHalf, text: &str) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, write.write_all(text.as_bytes())).await,
        Ok(Ok(()))
    )
}

async fn connection(
    id: u64,
    stream: UnixStream,
    mut session: Session,
    hub: mpsc::Sender<HubMsg>,
    mut events: broadcast::Receiver<Broadcast>,
    refusals: Arc<Mutex<Refusals>>,
    cancel: CancellationToken,
) {
    let mut failed_logins = 0u32;
    debug!("console connection opened");
    let (read, mut write) = stream.into_split();
    let mut lines = LineReader {
        reader: BufReader::new(read),
        buf: Vec::new(),
        too_long: false,
    };
    let greeting = wire::encode_event(&format!(
        "tactus console, role {}; type help for the commands",
        session.role()
    ));
    if !write_all(&mut write, &greeting).await {
        return;
    }
    loop {
        let line = tokio::select! {
            _ = cancel.cancelled() => break,
            event = events.recv() => {
                let text = match event {
                    Ok(b) if b.origin != Some(id) && b.to.reach(session.role()) => {
                        wire::encode_event(&escape_controls(&b.text))
                    }
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(n)) => wire::encode_event(&format!(
                        "({n} events skipped: this client reads too slowly)"
                    )),
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if !write_all(&mut write, &text).await {
                    break;
                }
                continue;
            }
            line = lines.next() => line,
        };
        let reply = match line {
            Err(e) => {
                debug!("console read failed: {e}");
                break;
            }
            Ok(None) => break,
            Ok(Some(Err(BadLine::TooLong))) => Reply::error(format!(
                "the line is longer than the {MAX_LINE} bytes a command may have; nothing was done"
            )),
            Ok(Some(Err(BadLine::NotText))) => {
                Reply::error("the line is not UTF-8 text (binary data?); nothing was done")
            }
            Ok(Some(Ok(text))) => {
                // A blank line (an extra Enter) is no command and gets no reply.
                if text.trim().is_empty() {
                    continue;
                }
                let name = command_name(&text);
                match session.parse(&text) {
                    Err(e) if name == Some("login") => {
                        // Slower with each failure, then closed: guessing costs time, and the
                        // log gets a summary rather than a line per guess.
                        failed_logins += 1;
                        refusals
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .failed_login(id);
                        let wait = LOGIN_DELAY * 2u32.pow(failed_logins.min(8) - 1);
                        tokio::select! {
                            _ = cancel.cancelled() => break,
                            _ = tokio::time::sleep(wait) => {}
                        }
                        if failed_logins >= MAX_LOGIN_FAILURES {
                            refusals
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .closed_for_logins();
                            let reply = Reply::error(format!(
                                "{e}; {MAX_LOGIN_FAILURES} failed logins: the connection is closed"
                            ));
                            let _ = write_all(&mut write, &clean(reply).encode()).await;
                            break;
                        }
                        Reply::error(e.to_string())
                    }
                    Err(e) if name == Some("seal") => {
                        // The error may quote the sealed move: only the refusal is logged.
                        info!(role = %session.role(), "console seal refused");
                        Reply::error(e.to_string())
                    }
                    Err(e) => {
                        info!(role = %session.role(), "console line refused: {e}");
                        Reply::error(e.to_string())
                    }
                    Ok(Command::Quit) => {
                        let _ = write_all(&mut write, &end_reply("bye")).await;
                        break;
                    }
                    Ok(Command::Help(topic)) => Reply::ok(help_lines(session.role(), topic)),
                    Ok(Command::Role(role)) => {
                        info!(%role, "console role");
                        ended(format!("role {role}"))
                    }
                    Ok(Command::Login { .. }) => {
                        info!("console logged in as the arbiter");
                        ended("role arbiter".to_string())
                    }
                    Ok(command) => {
                        // The sealed move is secret until the envelope is opened at the
                        // resumption (the adjournment rules): never in the log.
                        let logged = if name == Some("seal") {
                            "seal (move withheld)"
                        } else {
                            text.trim()
                        };
                        info!(role = %session.role(), command = logged, "console command");
                        ask_hub(&hub, id, session.role(), command).await
                    }
                }
            }
        };
        if !write_all(&mut write, &clean(reply).encode()).await {
            break;
        }
    }
    debug!("console connection closed");
}

/// The command a line names (its first word, by any of its names), if any.
fn command_name(line: &str) -> Option<&'static str> {
    line.split_whitespace()
        .next()
        .and_then(table::lookup)
        .map(|spec| spec.name)
}

/// `reply` with the control characters in its text escaped ([`escape_controls`]): a board's or a
/// file's text must not reach a console's terminal as escape codes.
fn clean(reply: Reply) -> Reply {
    let end = match reply.end {
        End::Ok(summary) => End::Ok(escape_controls(&summary).into_owned()),
        End::Error(reason) => End::Error(escape_controls(&reason).into_owned()),
    };
    Reply {
        body: reply
            .body
            .iter()
            .map(|line| escape_controls(line).into_owned())
            .collect(),
        end,
    }
}

/// A reply with no body and a summary.
fn ended(summary: String) -> Reply {
    Reply {
        body: Vec::new(),
        end: End::Ok(summary),
    }
}

fn end_reply(summary: &str) -> String {
    ended(summary.to_string()).encode()
}

async fn ask_hub(hub: &mpsc::Sender<HubMsg>, conn: u64, role: Role, command: Command) -> Reply {
    let (tx, rx) = oneshot::channel();
    let msg = HubMsg::Console {
        conn,
        role,
        command,
        reply: tx,
    };
    if hub.send(msg).await.is_err() {
        return Reply::error("the game is shutting down; nothing was done");
    }
    rx.await
        .unwrap_or_else(|_| Reply::error("the game is shutting down; nothing was done"))
}
