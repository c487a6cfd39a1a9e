//! The record's mark on the disk (`record.json` in the game folder): read back without following
//! a link, by the journal (a journal is held against the record it left, before it is resumed)
//! and by the record writer (a record is never overwritten with less than it showed). The mark
//! itself, and what it is checked against, are the core's (`tactus_core::journal::mark`).
//!
//! With the journal, not with the record writer: the game folder's search (`files`) reads
//! journals, so the journal stands below the files and the files take the mark from here.

use std::{ffi::OsStr, path::Path};

use anyhow::{Context, Result, anyhow};
use nix::fcntl::OFlag;
use tactus_core::journal::RecordMark;

use crate::store::at::{At, OpenFolder};

/// The record's mark in a game folder (`record.json`), if there is one; read without following
/// a link. A mark that cannot be read is an error naming the file: it is never taken as absent,
/// which would let a shorter record replace the one it guards.
pub fn read_mark(path: &Path) -> Result<Option<RecordMark>> {
    match OpenFolder::of_file(path) {
        Ok((folder, name)) => read_mark_at(folder.at(), name),
        // No folder, no mark.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// [`read_mark`]: the mark `name` in the open folder `at` (the game folder held open).
pub fn read_mark_at(at: At<'_>, name: impl AsRef<OsStr>) -> Result<Option<RecordMark>> {
    let path = at.file_path(&name);
    let bytes = match at.open(&name, OFlag::O_RDONLY, 0).and_then(|mut f| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut bytes).map(|_| bytes)
    }) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    RecordMark::from_bytes(&bytes).map(Some).map_err(|e| {
        anyhow!(
            "{} cannot be read ({e}); it says what the record was written from: put it back \
                 as it was",
            path.display()
        )
    })
}
