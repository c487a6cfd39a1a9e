//! The daemon's own user id, from the kernel (POSIX `geteuid`, through `nix`): the owner of every
//! file and folder it trusts (the output folder, the game folders it resumes).

/// The daemon's (effective) user id: the owner of every file and folder it trusts.
pub fn daemon_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}
