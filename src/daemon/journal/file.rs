//! The journal's file: reading it back (a torn last line dropped, anything else unreadable an
//! error naming the file and the line) and appending to it, each entry synced to the disk before
//! the hub applies its input.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};

use super::format::{Entry, FORMAT_VERSION, Header};
use crate::{
    arbiter::Input,
    rules::{Millis, game::GameEnd},
};

/// The Unix time in milliseconds (for the `wall` field and folder names; never for the game).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A journal read from disk.
#[derive(Debug, Clone)]
pub struct JournalFile {
    pub path: PathBuf,
    pub header: Header,
    /// The input and end lines, in order.
    pub entries: Vec<Entry>,
    /// Bytes up to the end of the last whole line (a torn last line lies beyond).
    pub good_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
}

impl JournalFile {
    /// Whether the game ended (an end line was written).
    pub fn is_finished(&self) -> bool {
        self.entries.iter().any(|e| matches!(e, Entry::End { .. }))
    }

    /// The time of the last line (0 for a journal with only its header).
    pub fn last_time(&self) -> Millis {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Input { t, .. } | Entry::End { t, .. } => Some(*t),
                Entry::Header(_) => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// Read a journal. A torn last line is dropped (see the module docs).
pub fn read(path: &Path) -> Result<JournalFile> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the journal {}", path.display()))?;
    let mut entries = Vec::new();
    let mut header = None;
    let mut good_len = 0u64;
    let mut torn = false;
    let mut offset = 0usize;
    let mut number = 0usize;
    while offset < bytes.len() {
        number += 1;
        let (line, complete, next) = match bytes[offset..].iter().position(|&b| b == b'\n') {
            Some(i) => (&bytes[offset..offset + i], true, offset + i + 1),
            None => (&bytes[offset..], false, bytes.len()),
        };
        let last = next >= bytes.len();
        if line.iter().all(u8::is_ascii_whitespace) {
            offset = next;
            if complete {
                good_len = next as u64;
            }
            continue;
        }
        let parsed: Result<Entry, _> = serde_json::from_slice(line);
        // A line without its newline (only the last can lack one), or a last line that does
        // not parse: cut off by a crash while it was being written. Everything before it was
        // synced.
        if !complete || (parsed.is_err() && last) {
            torn = true;
            offset = next;
            continue;
        }
        let entry = parsed.map_err(|e| {
            anyhow!(
                "{} line {number} cannot be read ({e}); the journal is damaged. Move the line \
                 out of the way to resume from the lines before it",
                path.display()
            )
        })?;
        match entry {
            Entry::Header(h) => {
                if header.is_some() {
                    bail!(
                        "{} line {number}: a second header; the journal is damaged",
                        path.display()
                    );
                }
                if h.version > FORMAT_VERSION {
                    bail!(
                        "{} was written by a newer tactus (journal format {}, this one reads up \
                         to {FORMAT_VERSION}); update tactus to resume it",
                        path.display(),
                        h.version
                    );
                }
                header = Some(h);
            }
            other => {
                if header.is_none() {
                    bail!(
                        "{} line {number}: an input before the header; the journal is damaged",
                        path.display()
                    );
                }
                entries.push(other);
            }
        }
        good_len = next as u64;
        offset = next;
    }
    let header = header.ok_or_else(|| {
        anyhow!(
            "{} has no header line; it is not a tactus journal (or it is empty)",
            path.display()
        )
    })?;
    Ok(JournalFile {
        path: path.to_owned(),
        header,
        entries,
        good_len,
        torn,
    })
}

/// The open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Start a new journal at `path` with `header` (the file must not exist yet).
    pub fn create(path: &Path, header: &Header) -> Result<Journal> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        let mut journal = Journal {
            path: path.to_owned(),
            file,
        };
        journal.write(&Entry::Header(header.clone()))?;
        // The folder entry of a new file must reach the disk too, or a power cut could lose it.
        if let Some(dir) = path.parent()
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(journal)
    }

    /// Continue a journal that was read with [`read`]: a torn last line is cut off first.
    pub fn append_to(read: &JournalFile) -> Result<Journal> {
        let file = OpenOptions::new()
            .write(true)
            .open(&read.path)
            .with_context(|| {
                format!(
                    "cannot open the journal {} to continue it",
                    read.path.display()
                )
            })?;
        file.set_len(read.good_len)
            .with_context(|| format!("cannot cut the torn last line of {}", read.path.display()))?;
        let mut journal = Journal {
            path: read.path.clone(),
            file,
        };
        use std::io::Seek;
        journal
            .file
            .seek(std::io::SeekFrom::End(0))
            .with_context(|| format!("cannot continue the journal {}", read.path.display()))?;
        Ok(journal)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, entry: &Entry) -> Result<()> {
        let mut line = serde_json::to_vec(entry)
            .with_context(|| format!("cannot encode a journal line for {}", self.path.display()))?;
        line.push(b'\n');
        // One write per line, then the data to the disk: the input is durable before it is
        // applied (event sourcing), and a crash leaves at most one torn last line.
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write to the journal {}", self.path.display()))
    }

    /// Append an input accepted at `t`.
    pub fn input(&mut self, t: Millis, input: &Input) -> Result<()> {
        self.write(&Entry::Input {
            t,
            wall: unix_ms(),
            input: input.into(),
        })
    }

    /// Append the end of the game.
    pub fn end(&mut self, t: Millis, end: &GameEnd) -> Result<()> {
        self.write(&Entry::End {
            t,
            result: end.outcome.to_string(),
            reason: end.reason.describe(),
        })
    }
}
