//! The console socket: a Unix socket (mode 0600, or 0660 with a configured group) speaking the
//! line protocol of [`tactus_core::console::wire`], one task per connection.
//!
//! This module owns the connections: reading lines (capped at
//! [`MAX_LINE`](tactus_core::console::MAX_LINE), binary garbage and half lines refused without
//! harm), each connection's [`Session`] (its role: every connection starts as the assistant's;
//! `role player` for the blind player's keypad; `login TOKEN` makes it the arbiter's), `help`,
//! `role`, `login` and `quit`, which need no game, and the event lines (`# ...`) every console
//! sees. It must not touch the game: every other command goes to the hub, which owns the
//! arbiter, and the reply comes back from there. A command the role may not use is refused here,
//! before the hub hears of it, so it changes nothing. A rude client (garbage, endless lines, a
//! disconnect mid-reply, hundreds of idle connections) only costs its own task, and never locks
//! the arbiter out: a connection that has not said who it is (`role` or `login`) is closed after
//! [`IDLE_TIMEOUT`] without a line, and the last [`ARBITER_PLACES`] places of the cap are kept
//! for connections that log in as the arbiter: until his logins hold them, connections wait
//! there for his login ([`WAITING_FOR_ARBITER`] at most, a newer one taking the place of the
//! oldest), so that no number of connections, whatever they claim to be, keeps him out.
//!
//! It trusts only the daemon's user: [`ConsoleSocket::bind`] removes nothing but a stale socket
//! of its own, takes a live one for another tactus only when its listener is the daemon's user,
//! names the user holding the path when it is another's, and refuses a folder others can write
//! to (unless sticky) or reach through folders and links others can change; without a console
//! group, a connection of another user is refused. It caps the connections ([`MAX_CONSOLES`], fewer when
//! file descriptors are short: the game's own files come first), slows down and then closes a
//! connection after wrong logins, logs repeated refusals as a summary, never logs a sealed move,
//! and escapes control characters in every line it sends.
//!
//! It also keeps the arbiter's token file ([`arbiter_token_in`] the game folder held open, or
//! [`arbiter_token`] the configured file): read if it is a private file of the daemon's user
//! (never through a link), else made from the system's random source with mode 0600, never
//! printed.
//!
//! This file holds the listener: [`ConsoleSocket`] (bind, serve, admit, remove on drop). Beside
//! it: `security` (what the socket's path, folder and group must be, a stale socket, the peer's
//! user), `limits` (the connection cap from the file descriptor limit, the rlimit FFI), `token`
//! (the arbiter's token file), `connection` (one connection's loop), `lines` (reading bounded
//! lines), `pace` (how fast one console may ask the game) and `refusals` (repeated refusals
//! logged as a summary).

mod connection;
mod limits;
mod lines;
mod pace;
mod refusals;
mod security;
mod token;

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::Duration,
};

use anyhow::{Context, Result};
use tokio::{
    net::{UnixListener, UnixStream},
    sync::{Semaphore, broadcast, mpsc},
};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info_span, warn};

use self::{
    connection::connection,
    refusals::{Refusals, lock},
    security::clear_stale_socket,
};
pub use self::{
    limits::{connection_cap, raise_fd_limit},
    security::{check_socket_path, own_uid, peer_cred, peer_uid},
    token::{arbiter_token, arbiter_token_in, check_token_file},
};
use super::hub::{Broadcast, HubMsg};
use tactus_core::console::{Keypads, Role, Session, wire::Reply};

/// Most console connections open at once. A table has a handful (the assistant, the arbiter, the
/// blind player's keypad, a watcher or two); the rest is headroom for tests and scripts. Beyond
/// it a connection is told why and closed, so that idle connections cannot take the file
/// descriptors the journal, the PGN and the boards need.
pub const MAX_CONSOLES: usize = 256;
/// Places of the cap kept for the arbiter: when every other place is taken, a new connection
/// gets one of these only to log in as the arbiter (within [`ARBITER_LOGIN_WITHIN`]). Without
/// them, connections that merely stay open (a script that forgets its sockets, or someone allowed
/// on the socket who opens hundreds) would shut out the one person who can pause the game and
/// rule on it. Two: the arbiter, and his deputy or his own console reconnecting while the old one
/// still closes.
pub const ARBITER_PLACES: usize = 2;
/// A connection that has not said who it is (`role player|assistant`, or the arbiter's `login`)
/// is closed after this long without a line. One that has is kept however long it is quiet: an
/// assistant's console or a player's keypad idles for most of a game. gpsd drops its clients
/// that have not asked to watch in the same way. `tactus console` says its role at once.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a connection given a place kept for the arbiter has to log in.
pub const ARBITER_LOGIN_WITHIN: Duration = Duration::from_secs(10);
/// File descriptors kept for the game itself (its files, the boards, audio, the runtime) when the
/// console's share is worked out from the soft limit.
pub const FD_RESERVE: u64 = 256;
/// Failed logins after which a connection is closed.
pub const MAX_LOGIN_FAILURES: u32 = 5;
/// The wait before the reply to the first failed login of a connection; it doubles with each.
pub const LOGIN_DELAY: Duration = Duration::from_millis(100);
/// How often repeated refusals (failed logins, connections over the cap) are logged as one line.
const SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// The console's timeouts ([`IDLE_TIMEOUT`], [`ARBITER_LOGIN_WITHIN`] by default); tests set
/// shorter ones with [`ConsoleSocket::set_times`] rather than wait a minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleTimes {
    /// A connection that has not said who it is is closed after this long without a line.
    pub idle: Duration,
    /// A connection in a place kept for the arbiter must log in within this.
    pub arbiter_login: Duration,
}

impl Default for ConsoleTimes {
    fn default() -> Self {
        ConsoleTimes {
            idle: IDLE_TIMEOUT,
            arbiter_login: ARBITER_LOGIN_WITHIN,
        }
    }
}

/// Connections that may wait at once for the arbiter's login in a place kept for him (on top of
/// the cap), while his logins do not hold every one of the [`ARBITER_PLACES`]. A newer one takes
/// the place of the oldest: connections that merely claim a place, however many and however
/// often they come back, cannot keep him out; his login comes at once after he connects.
pub const WAITING_FOR_ARBITER: usize = 16;

/// Which of the cap's places a connection holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// Any console's.
    Open,
    /// A place kept for the arbiter, given when every open place is taken: kept only by a
    /// connection that logs in as the arbiter at once, and given to a newer connection while it
    /// has not ([`WAITING_FOR_ARBITER`]).
    KeptForArbiter,
}

/// The places kept for the arbiter: how many his logins hold, and the connections waiting to
/// log in (oldest first), each with what closes it when a newer one takes its place.
#[derive(Debug, Default)]
pub(super) struct Kept {
    held: usize,
    waiting: std::collections::VecDeque<(u64, CancellationToken)>,
}

/// A connection's claim on a place kept for the arbiter: waiting for his login, then his (given
/// back when the connection ends).
#[derive(Debug)]
pub(super) struct KeptPlace {
    id: u64,
    kept: Arc<Mutex<Kept>>,
    /// Cancelled when a newer connection is given this place before the login came.
    pub(super) taken: CancellationToken,
    held: bool,
}

impl KeptPlace {
    /// The arbiter logged in on this connection: the place is his, unless a newer connection was
    /// given it meanwhile (false).
    pub(super) fn logged_in(&mut self) -> bool {
        let mut kept = lock_kept(&self.kept);
        let Some(i) = kept.waiting.iter().position(|(id, _)| *id == self.id) else {
            return false;
        };
        kept.waiting.remove(i);
        kept.held += 1;
        self.held = true;
        true
    }
}

impl Drop for KeptPlace {
    fn drop(&mut self) {
        let mut kept = lock_kept(&self.kept);
        if self.held {
            kept.held = kept.held.saturating_sub(1);
        } else if let Some(i) = kept.waiting.iter().position(|(id, _)| *id == self.id) {
            kept.waiting.remove(i);
        }
    }
}

/// The listening socket; removed again when dropped.
pub struct ConsoleSocket {
    path: PathBuf,
    listener: UnixListener,
    /// The daemon's user: the only one that may connect when there is no console group.
    owner: u32,
    /// Whether other users may connect (`console.group`: the socket's mode lets them in).
    group: bool,
    /// Connections served at once, [`ARBITER_PLACES`] of them kept for the arbiter.
    cap: usize,
    times: ConsoleTimes,
    /// What the blind players type at their keypads, in their languages.
    keypads: Arc<Keypads>,
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
            times: ConsoleTimes::default(),
            keypads: Arc::default(),
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

    /// This socket's keypads reading what the blind players type in their languages (their
    /// voice packs' words); without, English alone.
    pub fn with_keypads(mut self, keypads: Keypads) -> ConsoleSocket {
        self.keypads = Arc::new(keypads);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many connections are served at once (see [`MAX_CONSOLES`]), the places kept for the
    /// arbiter included.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The places any console may take: the cap less those kept for the arbiter.
    pub fn open_places(&self) -> usize {
        self.cap.saturating_sub(ARBITER_PLACES).max(1)
    }

    /// Other timeouts than [`ConsoleTimes::default`] (for tests).
    pub fn set_times(&mut self, times: ConsoleTimes) {
        self.times = times;
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
        let keypads = self.keypads.clone();
        let mut next_id = 1u64;
        let open = Arc::new(Semaphore::new(self.open_places()));
        let kept_places = self.cap - self.open_places();
        let kept = Arc::new(Mutex::new(Kept::default()));
        let refusals = Arc::new(Mutex::new(Refusals::default()));
        // The first summary a full period after the start (an interval's first tick is at once).
        let mut summary =
            tokio::time::interval_at(tokio::time::Instant::now() + SUMMARY_EVERY, SUMMARY_EVERY);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => break,
                _ = summary.tick() => lock(&refusals).log(),
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, _)) => {
                        let id = next_id;
                        next_id += 1;
                        if let Err(why) = self.admit(&stream) {
                            refuse(stream, why);
                            continue;
                        }
                        // An open place, else one kept for the arbiter (the oldest waiting
                        // for his login gives it up), else none: his logins hold them all.
                        let (slot, place) = match open.clone().try_acquire_owned() {
                            Ok(slot) => (Some(slot), None),
                            Err(_) => match wait_for_arbiter(&kept, kept_places, id) {
                                Some(place) => (None, Some(place)),
                                None => {
                                    lock(&refusals).over_cap(self.cap);
                                    refuse(
                                        stream,
                                        format!(
                                            "{} consoles are open, the most this daemon serves \
                                             (the arbiter's places too, held by his logins); \
                                             close one and connect again",
                                            self.cap
                                        ),
                                    );
                                    continue;
                                }
                            },
                        };
                        let span = info_span!("console", conn = id);
                        let session = Session::new(Role::Assistant, token.clone())
                            .with_keypads(keypads.clone());
                        let serve = connection(
                            Conn {
                                id,
                                place: if place.is_some() {
                                    Place::KeptForArbiter
                                } else {
                                    Place::Open
                                },
                                kept: place,
                                open_places: self.open_places(),
                                times: self.times,
                            },
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
                    }
                    Err(e) => {
                        // Out of file descriptors and the like: wait a little, keep serving.
                        warn!("console: cannot accept a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }
        lock(&refusals).log();
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

fn lock_kept(kept: &Mutex<Kept>) -> std::sync::MutexGuard<'_, Kept> {
    kept.lock().unwrap_or_else(|e| e.into_inner())
}

/// A place kept for the arbiter for the new connection `id`, while his logins do not hold all
/// `places` of them: the oldest connection still waiting for his login gives its place up when
/// [`WAITING_FOR_ARBITER`] wait already. None: his logins hold them all.
fn wait_for_arbiter(kept: &Arc<Mutex<Kept>>, places: usize, id: u64) -> Option<KeptPlace> {
    let mut k = lock_kept(kept);
    if k.held >= places {
        return None;
    }
    if k.waiting.len() >= WAITING_FOR_ARBITER
        && let Some((_, oldest)) = k.waiting.pop_front()
    {
        oldest.cancel();
    }
    let taken = CancellationToken::new();
    k.waiting.push_back((id, taken.clone()));
    Some(KeptPlace {
        id,
        kept: kept.clone(),
        taken,
        held: false,
    })
}

/// What a connection's task is told of its place at the console.
pub(super) struct Conn {
    pub(super) id: u64,
    pub(super) place: Place,
    /// Its claim on a place kept for the arbiter (with [`Place::KeptForArbiter`]).
    pub(super) kept: Option<KeptPlace>,
    /// How many open places there are (for the words of a kept place's greeting).
    pub(super) open_places: usize,
    pub(super) times: ConsoleTimes,
}

/// Tell a refused client why, then close, at once: one line fits in a fresh socket's buffer, so
/// a write that does not return now is not waited for (no task, no descriptor held: a flood of
/// connections over the cap costs nothing that outlasts it).
fn refuse(stream: UnixStream, why: String) {
    let _ = stream.try_write(Reply::error(why).encode().as_bytes());
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
