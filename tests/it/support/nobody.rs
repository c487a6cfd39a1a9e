//! A second user for the tests about trust: `nobody` (uid 65534). Acting as him needs the tests
//! to run as root and `setpriv` to be there; where they do not, the point is SKIPPED and says so.

use std::{path::Path, process::Command};

/// `nobody`'s user and group id.
pub const NOBODY: u32 = 65534;

/// Whether the tests run as root (as `id -u` says).
pub fn root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// `program args` as `nobody` (his user and group, no other groups), when the tests run as root
/// and `setpriv` is there; `None` otherwise: see [`skipped`].
pub fn as_nobody(program: &str, args: &[&str]) -> Option<Command> {
    if !root() || !Path::new("/usr/bin/setpriv").exists() {
        return None;
    }
    let mut command = Command::new("/usr/bin/setpriv");
    command.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--",
        program,
    ]);
    command.args(args);
    Some(command)
}

/// Says that `test` (or a point of it) did not run for want of a second user.
pub fn skipped(test: &str) {
    eprintln!("SKIPPED {test}: needs root and setpriv to act as a second user (nobody)");
}
