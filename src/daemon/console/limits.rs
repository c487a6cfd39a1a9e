//! How many consoles may be open at once: [`MAX_CONSOLES`], fewer when the soft limit of open
//! files would leave the game too few descriptors; the soft limit is raised to the hard one first
//! (`getrlimit`/`setrlimit`, through `nix`).

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
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok(limits) => limits,
        Err(e) => {
            warn!("cannot read the limit of open files: {e}");
            return None;
        }
    };
    if soft >= hard {
        return Some(soft);
    }
    match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        Ok(()) => Some(hard),
        Err(e) => {
            warn!("cannot raise the limit of open files: {e}");
            Some(soft)
        }
    }
}
