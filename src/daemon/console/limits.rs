//! How many consoles may be open at once: [`MAX_CONSOLES`], fewer when the soft limit of open
//! files would leave the game too few descriptors; the soft limit is raised to the hard one first
//! (`getrlimit`/`setrlimit`, declared here as `libc` is no dependency).

use tracing::warn;

use super::{FD_RESERVE, MAX_CONSOLES};

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
