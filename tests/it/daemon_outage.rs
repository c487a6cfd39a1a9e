//! A write the disk refuses, through the real binary (issue 39, points 2 and 3): a file size
//! limit (`ulimit -f`, `RLIMIT_FSIZE`) is the same outage as a full disk. The daemon ignores
//! SIGXFSZ, so a write past the limit fails with `EFBIG` instead of killing it; the journal's
//! refusal halts play (both players hear why, `status` says `PLAY HALTED`), nothing is lost, and
//! a restart under the same limit halts again instead of dying again. The limit is what makes a
//! full disk here without root or a file system of its own: it is raised again on the running
//! daemon (`prlimit --pid`) to free the disk.

use std::{
    io::Read,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    sync::{Arc, Mutex},
    thread,
    time::Duration,
};

use crate::support::{
    console::{ask, ply_of},
    process::wait_until,
    table::temp_dir,
};
use tactus::daemon::journal;
use tactus_core::journal::JOURNAL_FILE;

/// How long the daemon may take to reach a state the test waits for.
const LIMIT: Duration = Duration::from_secs(120);

/// `tactus run` under a file size limit, its output read as it comes (a pipe has no size
/// limit; a file beside the game would meet it too).
struct Limited {
    child: Option<Child>,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
}

impl Limited {
    /// `tactus run ARGS` in `dir` under `ulimit -f KB` (1 KiB blocks), with SIGXFSZ as the
    /// shell leaves it: the default, which ends a process that writes past the limit.
    fn start(dir: &Path, kb: u64, args: &str) -> Limited {
        let script = format!(
            "trap - XFSZ; ulimit -f {kb}; exec '{}' run --config config.toml {args}",
            env!("CARGO_BIN_EXE_tactus")
        );
        let mut child = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let gather = |mut from: Box<dyn Read + Send>| {
            let into = Arc::new(Mutex::new(String::new()));
            let to = into.clone();
            thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = from.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    to.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
            into
        };
        let out = gather(Box::new(child.stdout.take().unwrap()));
        let err = gather(Box::new(child.stderr.take().unwrap()));
        Limited {
            child: Some(child),
            out,
            err,
        }
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    fn output(&self) -> String {
        format!(
            "--- stdout\n{}\n--- stderr\n{}",
            self.out.lock().unwrap(),
            self.err.lock().unwrap()
        )
    }

    /// Whether the daemon has ended (and how), without waiting.
    fn ended(&mut self) -> Option<ExitStatus> {
        self.child.as_mut().unwrap().try_wait().unwrap()
    }

    /// `status` once the daemon answers with a line starting with `prefix`; fails if the
    /// daemon ends first (a signal's death included) or never says it.
    fn status_with(&mut self, socket: &Path, prefix: &str) -> Vec<String> {
        let mut last = Vec::new();
        let seen = wait_until(LIMIT, || {
            if let Some(status) = self.ended() {
                panic!(
                    "tactus ended ({status}) before its status said {prefix:?}\n{}",
                    self.output()
                );
            }
            last = ask(socket, "status").unwrap_or_default();
            last.iter().any(|l| l.starts_with(prefix))
        });
        assert!(
            seen,
            "status never said {prefix:?}: {last:?}\n{}",
            self.output()
        );
        last
    }

    /// SIGTERM; the exit status and the whole output.
    fn stop(&mut self) -> (ExitStatus, String) {
        let pid = self.pid().to_string();
        assert!(
            Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap()
                .success()
        );
        let mut child = self.child.take().unwrap();
        let mut status = None;
        wait_until(LIMIT, || {
            status = child.try_wait().unwrap();
            status.is_some()
        });
        let status = status.unwrap_or_else(|| panic!("tactus did not stop\n{}", self.output()));
        // The readers finish with the pipes.
        thread::sleep(Duration::from_millis(200));
        (status, self.output())
    }
}

impl Drop for Limited {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A table of two simulated pegged boards (the Appendix E game plays itself), no speech (what
/// is said goes to the standard output), the arbiter's token beside the socket.
fn sim_table(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let profile = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/pegged-line.toml");
    let text = format!(
        "[game]\nwhite = \"W\"\nblack = \"B\"\nblind = \"white\"\ntime_control = \"300+2\"\n\
         start = \"boards\"\n\
         [boards.blind]\nprofile = \"{p}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"{p}\"\nport = \"sim\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"none\"\n\
         [record]\ndir = \"played\"\n\
         [console]\nsocket = \"console.sock\"\ntoken_file = \"arbiter.token\"\n",
        p = profile.display()
    );
    std::fs::write(dir.join("config.toml"), text).unwrap();
    dir.join("console.sock")
}

/// The journal of the one game under `dir/played`.
fn journal_of(dir: &Path) -> PathBuf {
    crate::support::record::game_folder(&dir.join("played")).join(JOURNAL_FILE)
}

/// The half-moves the journal at `path` replays to.
fn journal_ply(path: &Path) -> usize {
    let read = journal::read(path).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(!read.torn, "the journal ends with a whole line");
    journal::replayed(&read).unwrap().table.game().ply()
}

/// Issue 39, point 2: under `ulimit -f` the daemon died of SIGXFSZ after a few plies, saying
/// nothing, and every restart died again. A write past the limit is refused with EFBIG, the
/// outage of a full disk: play halts, both players hear why, the process lives and stops
/// cleanly, the journal holds every move counted; started again under the same limit, it halts
/// again (a resumed game's first journaled input is refused) and does not die.
#[test]
fn a_file_size_limit_halts_play_and_kills_neither_the_run_nor_a_restart() {
    const LIMIT_KB: u64 = 16;
    let dir = temp_dir("outage-fsize");
    let socket = sim_table(&dir);

    let mut run = Limited::start(&dir, LIMIT_KB, "--sim-speed 20");
    let status = run.status_with(&socket, "PLAY HALTED");
    let halted = status
        .iter()
        .find(|l| l.starts_with("PLAY HALTED"))
        .unwrap();
    assert!(halted.contains("File too large"), "{status:?}");
    let ply = ply_of(&status);
    let (exit, output) = run.stop();
    assert_eq!(exit.code(), Some(0), "a clean stop\n{output}");
    assert!(
        output.contains("to both") && output.contains("Aufzeichnung gestört"),
        "both players hear why\n{output}"
    );
    let path = journal_of(&dir);
    assert_eq!(
        journal_ply(&path),
        ply,
        "every move counted is in the journal"
    );

    // Started again under the same limit: the resumed game halts at its first journaled input
    // (the arbiter's `resume` here), and the daemon lives.
    let mut again = Limited::start(&dir, LIMIT_KB, "");
    let _ = again.status_with(&socket, "ply ");
    let resume = ask(&socket, "resume").unwrap();
    assert!(
        resume.last().is_some_and(|l| l.starts_with("error:")),
        "{resume:?}"
    );
    let status = again.status_with(&socket, "PLAY HALTED");
    assert!(
        status.iter().any(|l| l.contains("File too large")),
        "{status:?}"
    );
    assert!(again.ended().is_none(), "{}", again.output());
    let (exit, output) = again.stop();
    assert_eq!(exit.code(), Some(0), "a clean stop\n{output}");
    assert_eq!(journal_ply(&path), ply, "nothing lost by the restart");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Set the file size limit of the running process `pid` (`prlimit --pid`; `None`: unlimited).
fn set_file_limit(pid: u32, bytes: Option<u64>) {
    // The soft limit only: raising a hard one needs CAP_SYS_RESOURCE, which a container's root
    // may lack.
    let limit = bytes.map_or("unlimited:".to_string(), |b| format!("{b}:"));
    let ok = Command::new("prlimit")
        .args(["--pid", &pid.to_string(), &format!("--fsize={limit}")])
        .status()
        .expect("prlimit (util-linux) runs")
        .success();
    assert!(ok, "prlimit --pid {pid} --fsize={limit}");
}

/// Whether `prlimit` is there to set a running daemon's limits; SKIPPED (said) where not.
fn prlimit_or_skip(test: &str) -> bool {
    let ok = Command::new("prlimit")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIPPED {test}: prlimit (util-linux) is not installed");
    }
    ok
}

/// Two blind players (IBCA), each on a pegged board the test plays itself over a pty pair,
/// speech off (announcements go to the transcript), the arbiter's token beside the socket.
struct IbcaTable {
    dir: PathBuf,
    white: crate::support::pegged::PeggedBoard,
    black: crate::support::pegged::PeggedBoard,
    daemon: crate::support::process::Guard,
}

impl IbcaTable {
    fn start(tag: &str) -> IbcaTable {
        use crate::support::{pegged::PeggedBoard, process::spawn, table::fast_profile};
        let dir = temp_dir(tag);
        let (w, b) = (dir.join("white"), dir.join("black"));
        std::fs::create_dir_all(&w).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let white = PeggedBoard::new(&w, &shakmaty::Chess::default());
        let black = PeggedBoard::new(&b, &shakmaty::Chess::default());
        let pegged = fast_profile(
            &dir,
            "pegged-line.toml",
            &[
                ("name = \"pegged-line\"", "name = \"fast-pegged-line\""),
                ("bounce_ms = 40", "bounce_ms = 20"),
            ],
        );
        let config = format!(
            "[game]\nwhite = \"Anna\"\nblack = \"Bert\"\nblind = \"both\"\n\
             time_control = \"5400+30\"\nguidance_repeat_ms = 60000\n\
             [boards.white]\nprofile = \"{pegged}\"\nport = \"{}\"\n\
             [boards.black]\nprofile = \"{pegged}\"\nport = \"{}\"\n\
             [voice]\npack = \"en\"\nstyle = \"san\"\nspeaker = \"none\"\n\
             [record]\ndir = \"played\"\n\
             [console]\nsocket = \"console.sock\"\ntoken_file = \"arbiter.token\"\n",
            white.port().display(),
            black.port().display()
        );
        std::fs::write(dir.join("config.toml"), config).unwrap();
        let daemon = spawn(
            &["run", "--config", "config.toml", "--new"],
            &dir,
            "run",
            &[],
        );
        let table = IbcaTable {
            dir,
            white,
            black,
            daemon,
        };
        let started = wait_until(LIMIT, || {
            ask(&table.socket(), "start")
                .ok()
                .and_then(|r| r.last().cloned())
                .is_some_and(|l| l.starts_with("ok"))
        });
        assert!(started, "start refused\n{}", table.log());
        table
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("console.sock")
    }

    fn log(&self) -> String {
        format!(
            "{}\n--- transcript\n{}",
            crate::support::process::show(&self.dir, "run"),
            self.transcript()
        )
    }

    fn transcript(&self) -> String {
        std::fs::read_to_string(
            crate::support::record::game_folder(&self.dir.join("played"))
                .join(tactus::daemon::files::TRANSCRIPT_FILE),
        )
        .unwrap_or_default()
    }

    fn status(&self) -> Vec<String> {
        ask(&self.socket(), "status").unwrap_or_default()
    }

    fn reaches_ply(&self, ply: usize) -> bool {
        wait_until(LIMIT, || {
            let status = self.status();
            !status.is_empty() && ply_of(&status) == ply
        })
    }

    /// A move on the mover's board, then executed by his opponent on his own, at a hand's pace.
    fn play(&self, mover: shakmaty::Color, from: shakmaty::Square, to: shakmaty::Square) {
        let (own, other) = match mover {
            shakmaty::Color::White => (&self.white, &self.black),
            shakmaty::Color::Black => (&self.black, &self.white),
        };
        own.shift(from, to);
        std::thread::sleep(Duration::from_millis(300));
        other.shift(from, to);
        std::thread::sleep(Duration::from_millis(300));
    }

    /// The disk full for the journal (a file size limit at its size), until play halts.
    fn fill_disk(&mut self) -> usize {
        let size = std::fs::metadata(journal_of(&self.dir)).unwrap().len();
        set_file_limit(self.daemon.pid(), Some(size));
        let mut status = Vec::new();
        let halted = wait_until(LIMIT, || {
            status = self.status();
            status.iter().any(|l| l.starts_with("PLAY HALTED"))
        });
        assert!(halted, "play never halted: {status:?}\n{}", self.log());
        ply_of(&status)
    }

    fn free_disk(&mut self) {
        set_file_limit(self.daemon.pid(), None);
        let mut status = Vec::new();
        let going = wait_until(LIMIT, || {
            status = self.status();
            !status.is_empty() && !status.iter().any(|l| l.starts_with("PLAY HALTED"))
        });
        assert!(going, "play never went on: {status:?}\n{}", self.log());
    }
}

/// Issue 39, point 3: moves made on the boards while the disk was full (play halted) were in
/// one run counted in order once the disk was free, in another guided back: the inputs that
/// waited were applied all at once, so that a move made after the opponent's had been said
/// came before that move could count (its announcement had not ended) and was taken for a move
/// out of turn. One behaviour, the one the README promised: what the boards report while play
/// is halted waits, and counts in order once the journal takes lines again, at the pace of the
/// table (each waited input once the announcements before it have ended). Both ways: three moves
/// made during a halt count (nobody is guided back), and a halt with none made changes nothing.
#[test]
fn moves_made_while_the_disk_is_full_count_in_order_once_it_is_free() {
    use crate::support::pty::socat_or_skip;
    use shakmaty::{Color::*, Square::*};
    if !socat_or_skip() || !prlimit_or_skip("moves_made_while_the_disk_is_full") {
        return;
    }
    let mut t = IbcaTable::start("outage-halt-moves");
    t.play(White, E2, E4);
    assert!(t.reaches_ply(1), "{}", t.log());
    t.play(Black, E7, E5);
    assert!(t.reaches_ply(2), "{}", t.log());

    // Three moves while the disk is full, each executed on the other board.
    assert_eq!(t.fill_disk(), 2);
    t.play(White, G1, F3);
    t.play(Black, B8, C6);
    t.play(White, F1, B5);
    let status = t.status();
    assert_eq!(
        ply_of(&status),
        2,
        "nothing counts during the halt: {status:?}"
    );
    let before = t.transcript().len();
    t.free_disk();
    assert!(t.reaches_ply(5), "the three moves count\n{}", t.log());
    let after = t.transcript()[before..].to_string();
    assert!(
        !after.contains("belongs on") && !after.contains("Not your move"),
        "nobody is guided back or told it is not his move:\n{after}"
    );
    let status = t.status();
    assert!(status.iter().any(|l| l == "last move Bb5"), "{status:?}");

    // A halt with no move made: play goes on where it stood.
    assert_eq!(t.fill_disk(), 5);
    let before = t.transcript().len();
    t.free_disk();
    t.play(Black, A7, A6);
    assert!(t.reaches_ply(6), "{}", t.log());
    let after = t.transcript()[before..].to_string();
    assert!(!after.contains("belongs on"), "{after}");
    let status = t.status();
    assert!(status.iter().any(|l| l == "last move a6"), "{status:?}");
    let folder = crate::support::record::game_folder(&t.dir.join("played"));
    drop(t);
    // The journal replays to the same game.
    assert_eq!(journal_ply(&folder.join(JOURNAL_FILE)), 6);
}
