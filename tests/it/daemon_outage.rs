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
