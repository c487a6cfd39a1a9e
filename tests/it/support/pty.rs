//! A linked pseudo-terminal pair made by `socat`, as a bridge (ser2net, a USB adapter) makes a
//! serial port: two paths, each the far end of the other, for as long as the pair lives. `socat`
//! must be installed (scripts/setup installs it); [`socat_or_skip`] lets a test say SKIPPED
//! where it is not, except under CI.

use std::{
    fs,
    path::Path,
    process::{Child, Command, Stdio},
    thread,
    time::{Duration, Instant},
};

/// How long socat may take to make its links.
const LINK_WAIT: Duration = Duration::from_secs(5);

/// A running socat joining two ptys linked at two paths; dropping it kills socat (both ends see
/// a hang-up: a pulled cable).
pub struct PtyPair {
    socat: Child,
}

impl PtyPair {
    /// A pair linked at `a` and `b`, returned once both paths lead to live ptys (links left by a
    /// pair killed before may still be there, leading nowhere).
    pub fn new(a: &Path, b: &Path) -> PtyPair {
        let socat = Command::new("socat")
            .arg(format!("pty,raw,echo=0,link={}", a.display()))
            .arg(format!("pty,raw,echo=0,link={}", b.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat starts (scripts/setup installs it)");
        // Killed on drop even if the links never come.
        let pair = PtyPair { socat };
        let t = Instant::now();
        while !(fs::metadata(a).is_ok() && fs::metadata(b).is_ok()) {
            assert!(
                t.elapsed() < LINK_WAIT,
                "socat did not create {} and {}",
                a.display(),
                b.display()
            );
            thread::sleep(Duration::from_millis(10));
        }
        pair
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        let _ = self.socat.kill();
        let _ = self.socat.wait();
    }
}

/// Whether socat is installed. Without it, says SKIPPED and returns false, except under CI
/// (`CI` set), which must not skip: there it panics.
pub fn socat_or_skip() -> bool {
    let ok = Command::new("socat")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "socat is not installed (scripts/setup installs it); CI must not skip"
        );
        eprintln!("SKIPPED: socat is not installed (run scripts/setup)");
    }
    ok
}
