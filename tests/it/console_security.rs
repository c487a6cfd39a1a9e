//! The console socket and the arbiter's token trust only their owner (issue 14, points 5, 6, 7,
//! 8, 10 and 11): nothing at the socket's path is removed unless it is our own stale socket, a
//! listener or a socket of another user is never taken for a tactus, a folder others can write to
//! is refused, the client sends the token only to the token file's owner, the token file is
//! opened without following links and must be private, terminal escapes reach no console and no
//! transcript raw, wrong logins cost time and then the connection, connections are capped, the
//! soft limit of open files is raised, and a sealed move is never logged.
//!
//! The points about another user run as `nobody` (uid 65534, through `setpriv`) when the tests
//! run as root, and say SKIPPED otherwise.

use crate::support;

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    os::unix::{
        fs::{MetadataExt, PermissionsExt},
        net::UnixStream,
    },
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use support::nobody::{NOBODY, as_nobody, skipped};
use tactus::daemon::{
    console::{
        self, ARBITER_PLACES, ConsoleSocket, ConsoleTimes, IDLE_TIMEOUT, LOGIN_DELAY, MAX_CONSOLES,
        MAX_LOGIN_FAILURES,
    },
    hub::{Broadcast, HubMsg, Views},
};
use tactus::store::trusted::TrustedDir;
use tactus_core::console::{Command as ConsoleCommand, wire::Reply};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "3fa107c29e5510d86b2ce4817a0fb346";

fn temp_dir() -> PathBuf {
    crate::support::table::temp_dir("security")
}

/// A folder everybody may create files in, sticky as /tmp is: where another user can squat.
fn shared_dir() -> PathBuf {
    let dir = temp_dir();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o1777)).unwrap();
    dir
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn bind(path: &Path) -> anyhow::Result<ConsoleSocket> {
    let rt = runtime();
    let _inside = rt.enter();
    ConsoleSocket::bind(path, None)
}

fn bind_error(path: &Path) -> String {
    match bind(path) {
        Ok(_) => panic!("{} was bound", path.display()),
        Err(e) => format!("{e:#}"),
    }
}

/// A Unix socket listener of `nobody` at `path`: it prints `ready`, accepts one connection and
/// writes what it receives to its standard output. `None`: SKIPPED.
fn nobody_listener(path: &Path, greeting: &str) -> Option<Child> {
    let script = "import socket,sys\n\
        s=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(1)\n\
        print('ready',flush=True)\nc,_=s.accept()\nc.sendall(sys.argv[2].encode())\n\
        c.settimeout(3)\ndata=b''\n\
        try:\n  while True:\n    b=c.recv(4096)\n    if not b: break\n    data+=b\n\
        except Exception: pass\nsys.stdout.write(data.decode(errors='replace'))\n";
    let mut child = as_nobody(
        "/usr/bin/python3",
        &["-c", script, path.to_str().unwrap(), greeting],
    )?
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n", "the listener of nobody did not start");
    Some(child)
}

// Point 5: only our own stale socket is ever removed.

#[test]
fn a_socket_path_naming_a_file_a_folder_or_a_link_is_refused_and_left_alone() {
    let dir = temp_dir();
    let file = dir.join("config.toml");
    fs::write(&file, "[console]\nsocket = \"config.toml\"\n").unwrap();
    let err = bind_error(&file);
    assert!(err.contains("console.socket"), "{err}");
    assert!(err.contains("a regular file"), "{err}");
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "[console]\nsocket = \"config.toml\"\n",
        "the file was touched"
    );
    let folder = dir.join("a-folder");
    fs::create_dir(&folder).unwrap();
    let err = bind_error(&folder);
    assert!(err.contains("a folder"), "{err}");
    assert!(folder.is_dir());
    let link = dir.join("link.sock");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let err = bind_error(&link);
    assert!(err.contains("a symbolic link"), "{err}");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(file.exists());
}

#[test]
fn our_own_stale_socket_is_replaced() {
    let dir = temp_dir();
    let path = dir.join("console.sock");
    // A crashed run's socket: bound, never removed, nobody listening.
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists());
    let rt = runtime();
    let _inside = rt.enter();
    let socket = ConsoleSocket::bind(&path, None).unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().mode() & 0o777,
        0o600,
        "the socket is private"
    );
    drop(socket);
    assert!(!path.exists(), "the socket is removed when dropped");
}

#[test]
fn a_stale_socket_of_another_user_is_not_removed() {
    let dir = shared_dir();
    let path = dir.join("console.sock");
    let script = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\n";
    let Some(mut command) = as_nobody("/usr/bin/python3", &["-c", script, path.to_str().unwrap()])
    else {
        return skipped("a_stale_socket_of_another_user_is_not_removed");
    };
    assert!(command.status().unwrap().success());
    assert_eq!(fs::symlink_metadata(&path).unwrap().uid(), NOBODY);
    let err = bind_error(&path);
    assert!(err.contains("belongs to user 65534"), "{err}");
    assert!(err.contains("console.socket"), "{err}");
    assert!(path.exists(), "another user's socket was removed");
}

// Point 7: a listener of another user is an impostor, not "another tactus".

#[test]
fn a_listener_of_another_user_is_not_taken_for_a_tactus() {
    let dir = shared_dir();
    let path = dir.join("console.sock");
    let Some(mut squatter) = nobody_listener(&path, "# tactus console\n") else {
        return skipped("a_listener_of_another_user_is_not_taken_for_a_tactus");
    };
    let err = bind_error(&path);
    assert!(!err.contains("another tactus"), "{err}");
    assert!(err.contains("user 65534"), "{err}");
    assert!(err.contains("console.socket"), "{err}");
    assert!(path.exists());
    let _ = squatter.kill();
    let _ = squatter.wait();
}

#[test]
fn a_listener_of_our_own_user_is_another_tactus() {
    let dir = temp_dir();
    let path = dir.join("console.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let err = bind_error(&path);
    assert!(err.contains("another tactus is already listening"), "{err}");
    assert!(path.exists());
}

#[test]
fn a_socket_folder_others_can_write_to_is_refused_unless_sticky() {
    let dir = temp_dir();
    let open = dir.join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let err = bind_error(&open.join("console.sock"));
    assert!(err.contains("console.socket"), "{err}");
    assert!(err.contains("can be written by other users"), "{err}");
    assert!(!open.join("console.sock").exists());
    // Group-writable is as open as world-writable when the group has others in it (nogroup is
    // nobody's primary group), but not when it is our own private group (umask 002 systems).
    fs::set_permissions(&open, fs::Permissions::from_mode(0o770)).unwrap();
    if console::own_uid().unwrap() == 0 {
        std::os::unix::fs::chown(&open, None, Some(NOBODY)).unwrap();
        assert!(bind_error(&open.join("console.sock")).contains("other users"));
        std::os::unix::fs::chown(&open, None, Some(0)).unwrap();
        assert!(
            bind(&open.join("console.sock")).is_ok(),
            "root's private group"
        );
    } else {
        skipped("a group-writable socket folder (needs root to change its group)");
    }
    // Sticky, as /tmp: nobody else can remove or rename our socket; a name taken first is seen.
    fs::set_permissions(&open, fs::Permissions::from_mode(0o1777)).unwrap();
    assert!(bind(&open.join("console.sock")).is_ok());
}

#[test]
fn a_socket_folder_of_another_user_is_refused() {
    if console::own_uid().unwrap() != 0 {
        return skipped("a_socket_folder_of_another_user_is_refused");
    }
    let dir = temp_dir().join("theirs");
    fs::create_dir(&dir).unwrap();
    std::os::unix::fs::chown(&dir, Some(NOBODY), Some(NOBODY)).unwrap();
    let err = bind_error(&dir.join("console.sock"));
    assert!(err.contains("belongs to user 65534"), "{err}");
}

#[test]
fn the_client_sends_the_token_only_to_the_token_files_owner() {
    let dir = shared_dir();
    let path = dir.join("console.sock");
    let token_file = temp_dir().join("arbiter.token");
    fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    fs::set_permissions(&token_file, fs::Permissions::from_mode(0o600)).unwrap();
    let Some(squatter) = nobody_listener(&path, "# tactus console\n") else {
        return skipped("the_client_sends_the_token_only_to_the_token_files_owner");
    };
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args(["console", "--socket", path.to_str().unwrap()])
        .args(["--token-file", token_file.to_str().unwrap(), "-c", "status"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("the token was not sent"), "{err}");
    let heard = squatter.wait_with_output().unwrap();
    let heard = String::from_utf8_lossy(&heard.stdout);
    assert!(
        !heard.contains(TOKEN),
        "the impostor got the token: {heard}"
    );
}

// Point 8: the token file is trusted only when it is a private file of the daemon's user.

fn token_error(path: &Path) -> String {
    match console::arbiter_token(path, "config.toml") {
        Ok(token) => panic!("{} was accepted: {token}", path.display()),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let dir = temp_dir();
    let path = dir.join("arbiter.token");
    fs::write(&path, format!("{TOKEN}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    let err = token_error(&path);
    assert!(err.contains("mode 0644"), "{err}");
    assert!(err.contains("console.token_file"), "{err}");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(console::arbiter_token(&path, "config.toml").unwrap(), TOKEN);
}

#[test]
fn a_token_file_is_never_read_through_a_link() {
    let dir = temp_dir();
    let real = dir.join("real.token");
    fs::write(&real, format!("{TOKEN}\n")).unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("arbiter.token");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let err = token_error(&link);
    assert!(err.contains("symbolic link"), "{err}");
    // A dangling link says what it is, not "File exists", and is not written through.
    let dangling = dir.join("dangling.token");
    let target = dir.join("nothing-here");
    std::os::unix::fs::symlink(&target, &dangling).unwrap();
    let err = token_error(&dangling);
    assert!(err.contains("symbolic link (to nothing)"), "{err}");
    assert!(!err.contains("File exists"), "{err}");
    assert!(!target.exists(), "the token was written through the link");
}

#[test]
fn a_token_file_of_another_user_is_refused() {
    if console::own_uid().unwrap() != 0 {
        return skipped("a_token_file_of_another_user_is_refused");
    }
    let dir = temp_dir();
    let path = dir.join("arbiter.token");
    fs::write(&path, format!("{TOKEN}\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::chown(&path, Some(NOBODY), Some(NOBODY)).unwrap();
    let err = token_error(&path);
    assert!(err.contains("belongs to user 65534"), "{err}");
}

#[test]
fn a_token_easy_to_guess_is_refused_and_ours_are_private() {
    let dir = temp_dir();
    let path = dir.join("arbiter.token");
    fs::write(&path, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let err = token_error(&path);
    assert!(err.contains("too easy to guess"), "{err}");
    let made = dir.join("new").join("arbiter.token");
    let token = console::arbiter_token(&made, "config.toml").unwrap();
    assert_eq!(fs::metadata(&made).unwrap().mode() & 0o777, 0o600);
    // Read back on a resumption, our own token is accepted.
    assert_eq!(console::arbiter_token(&made, "config.toml").unwrap(), token);
}

/// The review of issue 25: the default token file, `arbiter.token` in the game folder, was made
/// and read through the folder's path after the trust check, so a folder on the way re-pointed
/// in between (by root or the daemon's own user: a link the check trusts) took the token
/// elsewhere, or gave the arbiter a token found there. It is made and read in the folder held.
#[test]
fn the_token_in_the_game_folder_stays_in_the_folder_held_when_its_path_is_re_pointed() {
    let dir = temp_dir();
    let game = dir.join("games").join("g1");
    fs::create_dir_all(&game).unwrap();
    let held = TrustedDir::open(&game).unwrap();
    // The parent renamed, and a link to a folder of the same shape put in its place, with a
    // token of someone else's choosing in it.
    fs::rename(dir.join("games"), dir.join("moved")).unwrap();
    let elsewhere = dir.join("elsewhere");
    fs::create_dir_all(elsewhere.join("g1")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("games")).unwrap();
    let moved = dir.join("moved").join("g1");
    let token = console::arbiter_token_in(&held).unwrap();
    let there = fs::read_to_string(moved.join("arbiter.token")).unwrap();
    assert_eq!(there.trim(), token);
    assert_eq!(
        fs::metadata(moved.join("arbiter.token")).unwrap().mode() & 0o777,
        0o600
    );
    assert!(!elsewhere.join("g1/arbiter.token").exists());
    // Read back from the folder held (a resumed game), not the one the path leads to now.
    fs::write(elsewhere.join("g1/arbiter.token"), format!("{TOKEN}\n")).unwrap();
    fs::set_permissions(
        elsewhere.join("g1/arbiter.token"),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    assert_eq!(console::arbiter_token_in(&held).unwrap(), token);
    // A link in its place is neither read nor written through, and named.
    fs::remove_file(moved.join("arbiter.token")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("g1/arbiter.token"),
        moved.join("arbiter.token"),
    )
    .unwrap();
    let err = format!("{:#}", console::arbiter_token_in(&held).unwrap_err());
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(err.matches("arbiter.token").count(), 1, "named once: {err}");
    // Others may not read ours.
    fs::remove_file(moved.join("arbiter.token")).unwrap();
    fs::write(moved.join("arbiter.token"), format!("{TOKEN}\n")).unwrap();
    fs::set_permissions(
        moved.join("arbiter.token"),
        fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let err = format!("{:#}", console::arbiter_token_in(&held).unwrap_err());
    assert!(err.contains("mode 0644"), "{err}");
}

// Points 6, 10, 11: the socket served.

/// A served console socket whose hub answers every command with `answer`, and the log the
/// daemon wrote meanwhile.
struct Served {
    path: PathBuf,
    /// The places any console may take (the rest of the cap is kept for the arbiter).
    open_places: usize,
    events: broadcast::Sender<Broadcast>,
    cancel: CancellationToken,
    log: Arc<Mutex<Vec<u8>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Clone)]
struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Served {
    fn start(answer: Reply) -> Served {
        Served::start_with(answer, ConsoleTimes::default())
    }

    fn start_with(answer: Reply, times: ConsoleTimes) -> Served {
        let dir = temp_dir();
        let path = dir.join("console.sock");
        let (events, _) = broadcast::channel(64);
        let cancel = CancellationToken::new();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = {
            let (path, events, cancel, log) =
                (path.clone(), events.clone(), cancel.clone(), log.clone());
            std::thread::spawn(move || {
                // Everything runs on this thread, so that its log is the daemon's.
                let subscriber = tracing_subscriber::fmt()
                    .with_max_level(tracing::Level::DEBUG)
                    .with_ansi(false)
                    .with_writer(move || LogWriter(log.clone()))
                    .finish();
                let _log = tracing::subscriber::set_default(subscriber);
                let rt = runtime();
                rt.block_on(async move {
                    let mut socket = ConsoleSocket::bind(&path, None).unwrap();
                    socket.set_times(times);
                    let (hub_tx, mut hub_rx) = mpsc::channel::<HubMsg>(16);
                    tokio::spawn(async move {
                        while let Some(msg) = hub_rx.recv().await {
                            if let HubMsg::Console { reply, command, .. } = msg {
                                let _: &ConsoleCommand = &command;
                                let _ = reply.send(answer.clone());
                            }
                        }
                    });
                    ready_tx.send(socket.open_places()).unwrap();
                    socket
                        .serve(hub_tx, events, Some(TOKEN.to_string()), cancel)
                        .await;
                });
            })
        };
        let open_places = ready_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        Served {
            path,
            open_places,
            events,
            cancel,
            log,
            thread: Some(thread),
        }
    }

    /// A connection given a place kept for the arbiter (every other place is taken).
    fn connect_kept(&self) -> (UnixStream, BufReader<UnixStream>) {
        let stream = UnixStream::connect(&self.path).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let greeting = line(&mut reader);
        assert!(
            greeting.starts_with("# tactus console: all ")
                && greeting.contains("this one is kept for the arbiter"),
            "{greeting}"
        );
        (stream, reader)
    }

    fn connect(&self) -> (UnixStream, BufReader<UnixStream>) {
        let stream = UnixStream::connect(&self.path).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let greeting = line(&mut reader);
        assert!(greeting.starts_with("# tactus console"), "{greeting}");
        (stream, reader)
    }

    fn log(&self) -> String {
        String::from_utf8_lossy(&self.log.lock().unwrap()).into_owned()
    }

    /// A connection that has said who it is (`role assistant`): kept open however quiet.
    fn assistant(&self) -> (UnixStream, BufReader<UnixStream>) {
        let (mut stream, mut reader) = self.connect();
        stream.write_all(b"role assistant\n").unwrap();
        assert_eq!(line(&mut reader), "ok role assistant\n");
        (stream, reader)
    }

    /// A connection logged in as the arbiter.
    fn arbiter(&self) -> (UnixStream, BufReader<UnixStream>) {
        let (mut stream, mut reader) = self.connect();
        stream
            .write_all(format!("login {TOKEN}\n").as_bytes())
            .unwrap();
        assert_eq!(line(&mut reader), "ok role arbiter\n");
        (stream, reader)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        self.cancel.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn line(reader: &mut BufReader<UnixStream>) -> String {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    line
}

#[test]
fn terminal_escapes_reach_no_console_raw() {
    let served = Served::start(Reply::ok(vec![
        "Brett meldet \u{1b}]0;owned\u{7}\u{1b}[2J".to_string(),
    ]));
    let (mut stream, mut reader) = served.connect();
    served
        .events
        .send(Broadcast {
            origin: None,
            text: "Fehler \u{1b}]0;title\u{7}\u{1b}[2J\u{9b}1m".to_string(),
            to: Views::Everyone,
            keypad: None,
        })
        .unwrap();
    let event = line(&mut reader);
    assert_eq!(event, "# Fehler \\x1b]0;title\\x07\\x1b[2J\\u{9b}1m\n");
    stream.write_all(b"status\n").unwrap();
    let body = line(&mut reader);
    assert_eq!(body, "Brett meldet \\x1b]0;owned\\x07\\x1b[2J\n");
    assert_eq!(line(&mut reader), "ok\n");
}

#[test]
fn wrong_logins_slow_down_and_then_close_the_connection() {
    let served = Served::start(Reply::ok(vec![]));
    let (mut stream, mut reader) = served.connect();
    let started = Instant::now();
    let wrong = "login ffffffffffffffffffffffffffffffff\n";
    for n in 1..MAX_LOGIN_FAILURES {
        stream.write_all(wrong.as_bytes()).unwrap();
        let reply = line(&mut reader);
        assert!(
            reply.starts_with("error: wrong arbiter token"),
            "{n}: {reply}"
        );
    }
    stream.write_all(wrong.as_bytes()).unwrap();
    let last = line(&mut reader);
    assert!(last.contains("the connection is closed"), "{last}");
    let mut rest = String::new();
    let closed = reader.read_to_string(&mut rest);
    assert!(matches!(closed, Ok(0)), "still open: {closed:?} {rest}");
    // Each failure waited twice as long as the one before.
    let waited: u32 = (0..MAX_LOGIN_FAILURES).map(|n| 1 << n).sum();
    assert!(
        started.elapsed() >= LOGIN_DELAY * waited,
        "{:?}",
        started.elapsed()
    );
    // One line for the first, not one per guess (the summary comes once a minute or at the end).
    let log = served.log();
    assert_eq!(log.matches("failed arbiter login").count(), 1, "{log}");
    // The right token still works on a new connection.
    let (mut stream, mut reader) = served.connect();
    stream
        .write_all(format!("login {TOKEN}\n").as_bytes())
        .unwrap();
    assert_eq!(line(&mut reader), "ok role arbiter\n");
    // The rest are in the summary (once a minute, and when the daemon stops).
    let log = served.log.clone();
    drop(served);
    let log = String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
    assert!(
        log.contains("5 failed arbiter logins (1 connections closed for them)"),
        "{log}"
    );
}

#[test]
fn console_connections_are_capped_and_the_file_limit_raised() {
    let served = Served::start(Reply::ok(vec![]));
    assert_eq!(served.open_places, MAX_CONSOLES - ARBITER_PLACES);
    let mut open: Vec<_> = (0..served.open_places).map(|_| served.connect()).collect();
    // The places kept for the arbiter, taken by his logins.
    for _ in 0..ARBITER_PLACES {
        open.push(served.arbiter());
    }
    assert_eq!(open.len(), MAX_CONSOLES);
    let mut extra = UnixStream::connect(&served.path).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut said = String::new();
    extra.read_to_string(&mut said).unwrap();
    assert!(said.starts_with("error: "), "{said}");
    assert!(said.contains("consoles are open"), "{said}");
    // One closes; a new one is served, in an open place.
    drop(open.remove(0));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stream = UnixStream::connect(&served.path).unwrap();
        let mut reader = BufReader::new(stream);
        let first = line(&mut reader);
        if first.starts_with("# tactus console, role assistant") {
            break;
        }
        assert!(Instant::now() < deadline, "no slot came free: {first}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The soft limit of open files is the hard one now (the console raised it).
    let limits = fs::read_to_string("/proc/self/limits").unwrap();
    let row = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<&str> = row["Max open files".len()..].split_whitespace().collect();
    assert_eq!(numbers[0], numbers[1], "{row}");
}

/// The soft limit raised from a low one: this test runs itself again under `ulimit -Sn 200`.
#[test]
fn the_soft_limit_of_open_files_is_raised_at_bind() {
    if std::env::var_os("TACTUS_LOW_LIMIT_CHILD").is_some() {
        let before = soft_limit();
        assert_eq!(before, 200);
        let _socket = bind(&temp_dir().join("console.sock")).unwrap();
        let after = soft_limit();
        assert!(after > 200, "still {after}");
        return;
    }
    let me = std::env::current_exe().unwrap();
    // The harness names a test by its module path inside the binary (`console_security::...`).
    let name = concat!(
        module_path!(),
        "::the_soft_limit_of_open_files_is_raised_at_bind"
    );
    let name = name.split_once("::").map_or(name, |(_, rest)| rest);
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg("ulimit -Sn 200 && exec \"$0\" --exact \"$1\" --nocapture")
        .arg(&me)
        .arg(name)
        .env("TACTUS_LOW_LIMIT_CHILD", "1")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if soft_limit_hard() <= 200 {
        return skipped("the_soft_limit_of_open_files_is_raised_at_bind (hard limit too low)");
    }
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "{text}");
}

fn limits_row() -> Vec<u64> {
    let limits = fs::read_to_string("/proc/self/limits").unwrap();
    let row = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap()
        .to_string();
    row["Max open files".len()..]
        .split_whitespace()
        .take(2)
        .map(|n| n.parse().unwrap_or(u64::MAX))
        .collect()
}

fn soft_limit() -> u64 {
    limits_row()[0]
}

fn soft_limit_hard() -> u64 {
    limits_row()[1]
}

#[test]
fn connection_caps_keep_descriptors_for_the_game() {
    assert_eq!(console::connection_cap(Some(1024)), MAX_CONSOLES);
    assert_eq!(console::connection_cap(Some(300)), 300 - 256);
    assert_eq!(console::connection_cap(Some(100)), 4);
    assert_eq!(console::connection_cap(None), MAX_CONSOLES);
}

#[test]
fn a_sealed_move_is_never_logged() {
    let served = Served::start(Reply::ok(vec![]));
    let (mut stream, mut reader) = served.connect();
    stream.write_all(b"seal Bc5\n").unwrap();
    assert_eq!(line(&mut reader), "ok\n");
    // A refused seal line, too (the error might quote it).
    stream.write_all(b"seal Bc5 Bd6 Qxf7\n").unwrap();
    let _ = line(&mut reader);
    stream.write_all(b"status\n").unwrap();
    assert_eq!(line(&mut reader), "ok\n");
    let log = served.log();
    assert!(
        log.contains("seal"),
        "the seal was not logged at all: {log}"
    );
    assert!(log.contains("status"), "{log}");
    assert!(!log.contains("Bc5"), "the sealed move is in the log: {log}");
}

#[test]
fn the_client_shows_control_characters_escaped() {
    // Whoever answers on the socket (an older daemon, an impostor the client could not tell
    // apart without a token) must not reach the terminal with escape codes.
    let dir = temp_dir();
    let path = dir.join("raw.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut command = String::new();
        reader.read_line(&mut command).unwrap();
        (&stream)
            .write_all(b"Zeile \x1b]0;owned\x07\x1b[2J\nerror: nein \x1b[31mrot\n")
            .unwrap();
    });
    let stream = UnixStream::connect(&path).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let ok = tactus::client::one_shot(
        stream,
        &[],
        "status",
        Duration::from_secs(10),
        &mut out,
        &mut err,
    )
    .unwrap();
    server.join().unwrap();
    assert!(!ok);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "Zeile \\x1b]0;owned\\x07\\x1b[2J\n"
    );
    assert_eq!(
        String::from_utf8(err).unwrap(),
        "error: nein \\x1b[31mrot\n"
    );
}

/// Issue 15, point 3: a socket path under a folder that does not exist is refused, naming the
/// key; no folder is made for it.
#[test]
fn a_socket_under_a_missing_folder_is_refused_and_no_folder_is_made() {
    let dir = temp_dir();
    let missing = dir.join("no-such-folder");
    let err = bind_error(&missing.join("tactus.sock"));
    assert!(
        err.contains("does not exist") && err.contains("console.socket"),
        "{err}"
    );
    assert!(!missing.exists(), "a folder was made");
}

// Issue 25, point 8: the arbiter can never be locked out of the console.

/// What is left to read on a connection the daemon should close: `Ok` with the rest once it has
/// closed, `Err` when it is still open after `wait`.
fn rest_until_closed(reader: &mut BufReader<UnixStream>, wait: Duration) -> Result<String, String> {
    reader.get_ref().set_read_timeout(Some(wait)).unwrap();
    let mut rest = String::new();
    match reader.read_to_string(&mut rest) {
        Ok(_) => Ok(rest),
        Err(e) => Err(format!(
            "still open after {wait:?} ({e}); read so far: {rest:?}"
        )),
    }
}

#[test]
fn connections_filling_every_place_still_let_the_arbiter_in() {
    let served = Served::start_with(
        Reply::ok(vec![]),
        ConsoleTimes {
            idle: IDLE_TIMEOUT,
            arbiter_login: Duration::from_millis(500),
        },
    );
    // Every place any console may take, by consoles that said who they are: no timeout frees
    // them (an assistant's console may be quiet for hours).
    let _open: Vec<_> = (0..served.open_places)
        .map(|_| served.assistant())
        .collect();
    // The arbiter still gets in, and is the arbiter.
    let (mut stream, mut reader) = served.connect_kept();
    stream
        .write_all(format!("login {TOKEN}\n").as_bytes())
        .unwrap();
    assert_eq!(line(&mut reader), "ok role arbiter\n");
    stream.write_all(b"status\n").unwrap();
    assert_eq!(line(&mut reader), "ok\n");
    // A place kept for the arbiter takes his login only: any other line closes it at once...
    let (mut other, mut other_reader) = served.connect_kept();
    other.write_all(b"status\n").unwrap();
    let said = rest_until_closed(&mut other_reader, Duration::from_secs(5)).unwrap();
    assert!(
        said.starts_with("error: this place is kept for the arbiter"),
        "{said}"
    );
    // ... and so does a wrong token, at its first try ...
    let (mut guesser, mut guesser_reader) = served.connect_kept();
    guesser
        .write_all(b"login ffffffffffffffffffffffffffffffff\n")
        .unwrap();
    let said = rest_until_closed(&mut guesser_reader, Duration::from_secs(5)).unwrap();
    assert!(said.contains("kept for the arbiter"), "{said}");
    // ... and silence, after a short while.
    let (_silent, mut silent_reader) = served.connect_kept();
    let said = rest_until_closed(&mut silent_reader, Duration::from_secs(5)).unwrap();
    assert!(said.contains("no login within 0.5 s"), "{said}");
    // The arbiter's places have their cap too.
    let _second = served.arbiter();
    let mut extra = UnixStream::connect(&served.path).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut said = String::new();
    extra.read_to_string(&mut said).unwrap();
    assert!(said.contains("consoles are open"), "{said}");
}

#[test]
fn a_console_that_has_not_said_who_it_is_is_closed_when_quiet() {
    let idle = Duration::from_millis(500);
    let served = Served::start_with(
        Reply::ok(vec![]),
        ConsoleTimes {
            idle,
            arbiter_login: idle,
        },
    );
    let started = Instant::now();
    let (_silent, mut silent) = served.connect();
    // Half a line is not a line: it keeps nothing open.
    let (mut half, mut half_reader) = served.connect();
    half.write_all(b"stat").unwrap();
    // Lines keep a console open while they come ...
    let (mut chatty, mut chatty_reader) = served.connect();
    for _ in 0..4 {
        std::thread::sleep(idle / 2);
        chatty.write_all(b"status\n").unwrap();
        assert_eq!(line(&mut chatty_reader), "ok\n");
    }
    // ... and one that said who it is stays however long it is quiet.
    let (mut assistant, mut assistant_reader) = served.assistant();
    let (mut player, mut player_reader) = served.connect();
    player.write_all(b"role player\n").unwrap();
    assert_eq!(line(&mut player_reader), "ok role player\n");
    let (mut arbiter, mut arbiter_reader) = served.arbiter();

    let said = rest_until_closed(&mut silent, Duration::from_secs(5)).unwrap();
    assert!(
        said.starts_with("error: closed: nothing was sent for 0.5 s"),
        "{said}"
    );
    assert!(started.elapsed() >= idle);
    let said = rest_until_closed(&mut half_reader, Duration::from_secs(5)).unwrap();
    assert!(said.contains("nothing was sent"), "{said}");
    let said = rest_until_closed(&mut chatty_reader, Duration::from_secs(5)).unwrap();
    assert!(said.contains("nothing was sent"), "{said}");

    std::thread::sleep(idle * 3);
    for (stream, reader) in [
        (&mut assistant, &mut assistant_reader),
        (&mut player, &mut player_reader),
        (&mut arbiter, &mut arbiter_reader),
    ] {
        // A request every role may make.
        stream.write_all(b"time\n").unwrap();
        assert_eq!(line(reader), "ok\n");
    }
    // The log says so once, and counts them in its summary.
    let log = served.log.clone();
    drop(served);
    let log = String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
    assert_eq!(
        log.matches("closed a connection that did not say who it is")
            .count(),
        1,
        "{log}"
    );
    assert!(
        log.contains("3 connections closed before they said who they are"),
        "{log}"
    );
}

// Issue 25, point 10: a socket name another user took first, in a folder the documentation
// allows (a sticky one, like /tmp).

#[test]
fn the_client_sends_nothing_to_a_socket_another_user_took() {
    let dir = shared_dir();
    let path = dir.join("console.sock");
    let Some(squatter) = nobody_listener(
        &path,
        "# tactus console, role assistant; type help for the commands\n",
    ) else {
        return skipped("the_client_sends_nothing_to_a_socket_another_user_took");
    };
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args([
            "console",
            "--socket",
            path.to_str().unwrap(),
            "-c",
            "status",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(path.to_str().unwrap()), "{err}");
    assert!(err.contains("user 65534 (nobody)"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    let heard = squatter.wait_with_output().unwrap();
    let heard = String::from_utf8_lossy(&heard.stdout);
    assert!(heard.is_empty(), "the impostor heard: {heard}");
}

#[test]
fn the_client_trusts_the_owner_of_a_folder_only_he_may_write_to() {
    // The daemon's user (here nobody) owns the socket's folder, which nobody else may write to:
    // only he can have bound the name, so another user's console (here root's) talks to him.
    let Some(_) = as_nobody("/bin/true", &[]) else {
        return skipped("the_client_trusts_the_owner_of_a_folder_only_he_may_write_to");
    };
    let dir = temp_dir().join("run-tactus");
    fs::create_dir(&dir).unwrap();
    std::os::unix::fs::chown(&dir, Some(NOBODY), Some(NOBODY)).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    // The listener's socket goes in after the folder is his.
    let path = dir.join("console.sock");
    let daemon = nobody_listener(&path, "# tactus console, role assistant\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args(["console", "--socket", path.to_str().unwrap()])
        .args(["--timeout", "1", "-c", "status"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("nothing was sent"), "{err}");
    let heard = daemon.wait_with_output().unwrap();
    let heard = String::from_utf8_lossy(&heard.stdout);
    assert!(heard.starts_with("role assistant\n"), "{heard}");
    // Not when the way to his folder can be changed by others: in a folder everybody may write
    // to (not sticky), anyone can put a folder of his own in the socket folder's place.
    let open = temp_dir().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let theirs = open.join("run-tactus");
    fs::create_dir(&theirs).unwrap();
    std::os::unix::fs::chown(&theirs, Some(NOBODY), Some(NOBODY)).unwrap();
    let path = theirs.join("console.sock");
    let impostor = nobody_listener(&path, "# tactus console, role assistant\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args(["console", "--socket", path.to_str().unwrap()])
        .args(["--timeout", "1", "-c", "status"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    let heard = impostor.wait_with_output().unwrap();
    let heard = String::from_utf8_lossy(&heard.stdout);
    assert!(heard.is_empty(), "the impostor heard: {heard}");
}

#[test]
fn a_socket_name_another_user_took_is_refused_naming_him_and_the_fix() {
    let dir = shared_dir();
    let path = dir.join("console.sock");
    let Some(squatter) = nobody_listener(&path, "# tactus console\n") else {
        return skipped("a_socket_name_another_user_took_is_refused_naming_him_and_the_fix");
    };
    // Nobody connects to it: ended here, whatever fails below.
    let _squatter = KillOnDrop(squatter);
    let err = bind_error(&path);
    assert!(err.contains("user 65534 (nobody)"), "{err}");
    assert!(
        err.contains("a folder of the daemon's user that nobody else may write to"),
        "{err}"
    );
    assert!(err.contains("[console] socket in the README"), "{err}");
    // check-config says the same before the table, and run makes no game folder for it.
    let config = dir.join("config.toml");
    fs::write(
        &config,
        format!(
            "[console]\nsocket = \"{}\"\n[record]\ndir = \"{}\"\n",
            path.display(),
            dir.join("played").display()
        ),
    )
    .unwrap();
    for command in [&["check-config"][..], &["run", "--config"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
            .args(command)
            .arg(&config)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{command:?}: {err}");
        assert!(err.contains("user 65534 (nobody)"), "{command:?}: {err}");
        assert!(err.contains("console.socket"), "{command:?}: {err}");
    }
    assert!(!dir.join("played").exists(), "a game folder was made");
    assert!(path.exists(), "another user's socket was removed");
}

/// A child process ended when the test ends, passed or failed.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
