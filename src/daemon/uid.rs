//! The daemon's own user id, from the kernel (POSIX `geteuid`): the owner of every file and
//! folder it trusts (the output folder, the game folders it resumes). `libc` is no dependency, so
//! the one call is declared here.

unsafe extern "C" {
    /// POSIX `geteuid`: cannot fail, touches nothing.
    safe fn geteuid() -> u32;
}

/// The daemon's (effective) user id: the owner of every file and folder it trusts.
pub fn daemon_uid() -> u32 {
    geteuid()
}
