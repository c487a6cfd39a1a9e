//! Files only the daemon's user may touch: a game folder's files that may hold the sealed move
//! or the arbiter's notes (created 0600), opened without following a symbolic link (a link
//! planted in a folder must never redirect a write or a read), and the console group's id.
//!
//! gpsd, chrony and SQLite are the models: lose nothing, trust no one. Every other file edge of
//! the daemon opens its private files through here.

use std::{
    fs::{File, OpenOptions},
    io,
    path::Path,
};

use anyhow::{Context, Result};

/// Open an existing file, refusing a symbolic link: the link is looked at (`lstat`), the file
/// opened, and the opened file must be the one looked at (same device and inode), so a link
/// swapped in between is caught too.
pub fn open_no_follow(path: &Path, options: &OpenOptions) -> io::Result<File> {
    use std::os::unix::fs::MetadataExt;
    let before = std::fs::symlink_metadata(path)?;
    if before.file_type().is_symlink() {
        return Err(io::Error::other(format!(
            "{} is a symbolic link; tactus does not follow links in a game folder",
            path.display()
        )));
    }
    let file = options.open(path)?;
    let after = file.metadata()?;
    if (after.dev(), after.ino()) != (before.dev(), before.ino()) || !after.is_file() {
        return Err(io::Error::other(format!(
            "{} changed while it was opened (or is not a regular file)",
            path.display()
        )));
    }
    Ok(file)
}

/// The mode of the files the daemon creates in a game folder that may hold the sealed move (the
/// transcript has the console's notes): only the daemon's user reads them.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// The id of a group given by name (from /etc/group) or by number.
pub fn group_id(group: &str) -> Result<u32> {
    if let Ok(gid) = group.parse::<u32>() {
        return Ok(gid);
    }
    let text = std::fs::read_to_string("/etc/group")
        .context("cannot read /etc/group to find the console group (key console.group)")?;
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split(':');
            let name = fields.next()?;
            let gid = fields.nth(1)?.parse::<u32>().ok()?;
            (name == group).then_some(gid)
        })
        .next()
        .with_context(|| {
            format!(
                "there is no group '{group}' (key console.group); give an existing group's \
                 name or number"
            )
        })
}
