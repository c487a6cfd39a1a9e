//! The `tactus` binary as a child process the test owns: started in the table's folder with
//! its output in log files ([`spawn`]), killed through its own handle when the [`Guard`] goes
//! (never by name), the end of its logs for failure messages, and waiting on it or on anything
//! else with a limit.

use std::{
    ffi::OsStr,
    fs,
    path::Path,
    process::{Child, Command, ExitStatus, Stdio},
    thread,
    time::{Duration, Instant},
};

use super::console::ask;

pub const TACTUS: &str = env!("CARGO_BIN_EXE_tactus");

/// A child killed (by its own handle) when the guard goes, passing or not.
pub struct Guard(pub Option<Child>);

impl Guard {
    pub fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("the child is still there")
    }
    pub fn pid(&mut self) -> u32 {
        self.child().id()
    }
    /// Wait for the child to end, polling; fails the test past `limit`.
    pub fn wait_limit(&mut self, limit: Duration) -> ExitStatus {
        let t = Instant::now();
        loop {
            if let Some(status) = self.child().try_wait().unwrap() {
                return status;
            }
            assert!(t.elapsed() < limit, "tactus did not end within {limit:?}");
            thread::sleep(Duration::from_millis(20));
        }
    }
    /// SIGKILL (through the child's own handle) and reap it.
    pub fn sigkill(&mut self) {
        let child = self.child();
        child.kill().unwrap();
        child.wait().unwrap();
    }
    /// Send a signal to this child by its pid.
    pub fn signal(&mut self, sig: &str) {
        let pid = self.pid().to_string();
        let ok = Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig} {pid}");
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `tactus ARGS` in `dir`, standard output and error into `dir/LOG.out` and `dir/LOG.err`.
pub fn spawn(args: &[&str], dir: &Path, log: &str, env: &[(&str, &OsStr)]) -> Guard {
    let out = fs::File::create(dir.join(format!("{log}.out"))).unwrap();
    let err = fs::File::create(dir.join(format!("{log}.err"))).unwrap();
    let mut command = Command::new(TACTUS);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    for (key, value) in env {
        command.env(key, value);
    }
    Guard(Some(command.spawn().expect("tactus starts")))
}

/// The end of a run's output, for failure messages.
pub fn show(dir: &Path, log: &str) -> String {
    let out = fs::read_to_string(dir.join(format!("{log}.out"))).unwrap_or_default();
    let err = fs::read_to_string(dir.join(format!("{log}.err"))).unwrap_or_default();
    let err: Vec<&str> = err.lines().filter(|l| !l.starts_with("ALSA lib")).collect();
    let tail = err[err.len().saturating_sub(40)..].join("\n");
    format!("--- {log}.out\n{out}\n--- {log}.err (last 40 lines)\n{tail}")
}

/// Ask until the daemon answers (it may still be starting); fails if the child ends first.
pub fn ask_when_up(
    socket: &Path,
    command: &str,
    guard: &mut Guard,
    dir: &Path,
    log: &str,
    limit: Duration,
) -> Vec<String> {
    let t = Instant::now();
    loop {
        if let Ok(lines) = ask(socket, command) {
            return lines;
        }
        if let Some(status) = guard.child().try_wait().unwrap() {
            panic!(
                "tactus ended ({status}) before answering\n{}",
                show(dir, log)
            );
        }
        assert!(t.elapsed() < limit, "no console answer\n{}", show(dir, log));
        thread::sleep(Duration::from_millis(20));
    }
}

/// Poll `check` every 20 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    loop {
        if check() {
            return true;
        }
        if t.elapsed() > limit {
            return false;
        }
        thread::sleep(Duration::from_millis(20));
    }
}
