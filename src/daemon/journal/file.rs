//! The journal's file: reading it back and appending to it, each entry synced to the disk before
//! the hub applies its input.
//!
//! Reading trusts nothing it cannot check. Only a last line without its newline is torn (a crash
//! or a power cut in the middle of the one `write`); every other unreadable line, a missing or
//! second header, an input after the end line, and an entry whose number is not the next one (a
//! line lost or repeated in the middle) is [`Damage`]: the caller refuses to resume and says
//! what to do, it never guesses the game. Before a torn tail is cut off, the original is copied
//! beside the journal (`journal.jsonl.damaged-<time>`), never overwriting an earlier copy.
//!
//! Appending survives a full disk: a failed write is cut back to the last whole line, the entry
//! and those after it are held in memory in order and written as soon as the disk takes them
//! again ([`Journal::outage`] tells the hub while it lasts). The file is opened without following
//! symbolic links and created with mode 0600: it holds the sealed move.
//!
//! Each input and end line carries its number (`"n"`, counting from 1 after the header), written
//! in front of the entry's own fields, so that the entry types of [`super::format`] stay as they
//! are and journals written before the numbers read as before (a line without `"n"` is not
//! checked).

use std::{
    collections::VecDeque,
    fmt,
    fs::{File, OpenOptions},
    io::{self, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use tracing::{error, info};

use super::format::{Entry, FORMAT_VERSION, Header, InputRecord};
use crate::store::private::open_no_follow;
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

/// The mode of a new journal: it holds the sealed move, so only the daemon's user reads it.
pub const JOURNAL_MODE: u32 = 0o600;

/// A journal that cannot be resumed as it stands: which file, which line, what is wrong. The
/// message says what the user can do (repair and `--resume`, or `--new`) and what each costs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Damage {
    pub path: PathBuf,
    /// 1-based line number in the file.
    pub line: usize,
    pub what: String,
}

impl Damage {
    /// The game folder (the journal's parent).
    pub fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let folder = self.folder().display();
        write!(
            f,
            "the journal of the game in {folder} is damaged at line {} of {}: {}. tactus starts \
             nothing rather than guess the game. Either repair the journal and run `tactus run \
             --resume {folder}`: put the line back as it was, or cut the file before line {} \
             (the game resumes as it stood there; every input from that line on is lost); \
             deleting only the damaged line is no repair, the lines after it would be replayed \
             without it. Or start a new game with `tactus run --new` (this folder is kept as it \
             is)",
            self.line,
            self.path.file_name().map_or_else(
                || self.path.display().to_string(),
                |n| n.to_string_lossy().into_owned()
            ),
            self.what,
            self.line,
        )
    }
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

/// The entry number in front of a line (absent in journals written before the numbers).
#[derive(Deserialize)]
struct Numbered {
    n: Option<u64>,
}

/// Read a journal. A torn last line is dropped (see the module docs); damage is an error whose
/// root is a [`Damage`] (`err.downcast_ref::<Damage>()`).
pub fn read(path: &Path) -> Result<JournalFile> {
    let bytes = read_no_follow(path)
        .with_context(|| format!("cannot read the journal {}", path.display()))?;
    parse(path, &bytes)
}

/// How much of a journal's end [`ends_finished`] reads: far more than any end line.
const TAIL_BYTES: u64 = 64 * 1024;

/// Whether the journal at `path` ends with its end line, from its last 64 KiB only: how
/// the folders of finished games are passed over without reading (or trusting) their whole
/// journals while the unfinished one is looked for. A torn or unreadable last line is no end.
pub fn ends_finished(path: &Path) -> io::Result<bool> {
    let mut file = open_no_follow(path, OpenOptions::new().read(true))?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    io::Read::read_to_end(&mut file, &mut tail)?;
    let Some(body) = tail.strip_suffix(b"\n") else {
        return Ok(false);
    };
    let last = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) => &body[i + 1..],
        None if start == 0 => body,
        // A last line longer than the tail: no end line is that long.
        None => return Ok(false),
    };
    Ok(matches!(
        serde_json::from_slice::<Entry>(last),
        Ok(Entry::End { .. })
    ))
}

/// Read a file without following a symbolic link in its last component: another user who could
/// plant a link must not make the daemon read (or later append to) a file of his choice.
fn read_no_follow(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_no_follow(path, OpenOptions::new().read(true))?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// Parse a journal's bytes (see [`read`]).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<JournalFile> {
    let damage = |line: usize, what: String| {
        anyhow::Error::new(Damage {
            path: path.to_owned(),
            line,
            what,
        })
    };
    let mut entries = Vec::new();
    let mut header = None;
    let mut good_len = 0u64;
    let mut torn = false;
    let mut offset = 0usize;
    let mut number = 0usize;
    let mut ended_at = None;
    while offset < bytes.len() {
        number += 1;
        let (line, complete, next) = match bytes[offset..].iter().position(|&b| b == b'\n') {
            Some(i) => (&bytes[offset..offset + i], true, offset + i + 1),
            None => (&bytes[offset..], false, bytes.len()),
        };
        // Only the last line can lack its newline: the one write of a line was cut off by a
        // crash, and everything before it was synced. A complete line that does not parse was
        // written whole and damaged later: that is not a tear, and its input is not dropped.
        if !complete {
            torn = true;
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            offset = next;
            good_len = next as u64;
            continue;
        }
        let entry: Entry = serde_json::from_slice(line).map_err(|e| {
            let shown: String = String::from_utf8_lossy(&line[..line.len().min(60)])
                .chars()
                .flat_map(|c| {
                    // NULs and escape codes shown, not sent to a terminal.
                    let shown: Vec<char> = if c.is_control() {
                        c.escape_default().collect()
                    } else {
                        vec![c]
                    };
                    shown
                })
                .collect();
            damage(number, format!("it cannot be read ({e}): '{shown}'"))
        })?;
        let n = serde_json::from_slice::<Numbered>(line)
            .ok()
            .and_then(|x| x.n);
        match entry {
            Entry::Header(h) => {
                if header.is_some() {
                    return Err(damage(number, "a second header".into()));
                }
                if !entries.is_empty() {
                    return Err(damage(number, "a header after the first inputs".into()));
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
                    return Err(damage(
                        number,
                        "an input before the header (the header line is missing)".into(),
                    ));
                }
                if let Some(end_line) = ended_at {
                    return Err(damage(
                        number,
                        format!(
                            "a line after the end of the game (the end line is line {end_line})"
                        ),
                    ));
                }
                let expected = entries.len() as u64 + 1;
                if let Some(n) = n
                    && n != expected
                {
                    return Err(damage(
                        number,
                        format!(
                            "entry number {n} where {expected} was due: {}",
                            if n > expected {
                                "lines are missing before it"
                            } else {
                                "a line is repeated or out of order"
                            }
                        ),
                    ));
                }
                if matches!(other, Entry::End { .. }) {
                    ended_at = Some(number);
                }
                entries.push(other);
            }
        }
        good_len = next as u64;
        offset = next;
    }
    let Some(header) = header else {
        // No whole line at all: the crash came while the header was written, before any input
        // (an input is journaled only after its header is on the disk). Nothing was played.
        if entries.is_empty()
            && bytes[..good_len as usize]
                .iter()
                .all(u8::is_ascii_whitespace)
        {
            return Err(anyhow::Error::new(NothingPlayed {
                path: path.to_owned(),
            }));
        }
        return Err(damage(1, "no header line".into()));
    };
    Ok(JournalFile {
        path: path.to_owned(),
        header,
        entries,
        good_len,
        torn,
    })
}

/// A journal with no whole line: the daemon stopped while creating the game, before anything
/// was played. Nothing can be lost by leaving it alone; it is not a game to resume.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} holds no whole line: the game was never started in it (nothing was played); move the \
     folder away, or start a new game with `tactus run --new`",
    .path.display()
)]
pub struct NothingPlayed {
    pub path: PathBuf,
}

/// Where the journal's bytes go: the file, or (in tests) a file whose disk fills up.
pub trait Sink: Send + fmt::Debug {
    /// Append all of `bytes` (a failure may have written part of them).
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Make what was written durable.
    fn sync(&mut self) -> io::Result<()>;
    /// Cut the file back to `len` bytes and go on writing there.
    fn cut(&mut self, len: u64) -> io::Result<()>;
}

impl Sink for File {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(self, bytes)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.sync_data()
    }

    fn cut(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)?;
        self.seek(SeekFrom::Start(len)).map(|_| ())
    }
}

/// The journal cannot be written (a full disk, a read-only or vanished folder): what failed,
/// since when, and how many entries wait in memory. A restart now would lose them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    pub error: String,
    /// Entries accepted but not on the disk, in order.
    pub held: usize,
    pub since_unix_ms: u64,
}

/// The open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    sink: Box<dyn Sink>,
    /// Bytes of whole lines on the disk: where a failed write is cut back to.
    good_len: u64,
    /// The number of the next input or end line.
    next: u64,
    /// Encoded lines not yet on the disk, oldest first.
    held: VecDeque<Vec<u8>>,
    outage: Option<Outage>,
    /// The outage that just ended, until [`Journal::take_recovered`] collects it.
    recovered: Option<Outage>,
    /// The end line is written: nothing follows it (an end in mid-file is damage), so what the
    /// table still does after the game (speech finishing, a request) is not journaled.
    ended: bool,
}

impl Journal {
    /// Start a new journal at `path` with `header` (the file must not exist yet; a symbolic link
    /// there is refused, not followed). Mode 0600: the journal holds the sealed move.
    pub fn create(path: &Path, header: &Header) -> Result<Journal> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(JOURNAL_MODE)
            .open(path)
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        let journal = Journal::create_with(path, header, Box::new(file));
        if journal.is_err() {
            // The file is ours (just created) and holds no whole line: nothing to keep.
            let _ = std::fs::remove_file(path);
        }
        let journal = journal?;
        // The folder entry of a new file must reach the disk too, or a power cut could lose it.
        if let Some(dir) = path.parent()
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(journal)
    }

    /// Start a new journal in `sink` (empty): the header must reach the disk, or there is no
    /// game to play.
    pub fn create_with(path: &Path, header: &Header, sink: Box<dyn Sink>) -> Result<Journal> {
        let mut journal = Journal {
            path: path.to_owned(),
            sink,
            good_len: 0,
            next: 1,
            held: VecDeque::new(),
            outage: None,
            recovered: None,
            ended: false,
        };
        journal.write(&Entry::Header(header.clone()))?;
        Ok(journal)
    }

    /// Continue a journal that was read with [`read`]. A torn last line is cut off, after the
    /// whole original has been copied to `journal.jsonl.damaged-<time>` beside it.
    pub fn append_to(read: &JournalFile) -> Result<Journal> {
        let open = || {
            open_no_follow(&read.path, OpenOptions::new().read(true).write(true)).with_context(
                || {
                    format!(
                        "cannot open the journal {} to continue it",
                        read.path.display()
                    )
                },
            )
        };
        let file = open()?;
        let len = file
            .metadata()
            .with_context(|| format!("cannot look at {}", read.path.display()))?
            .len();
        if len > read.good_len {
            let kept = keep_original(&read.path)?;
            info!(
                "{}: the torn last line is cut off; the original is kept as {}",
                read.path.display(),
                kept.display()
            );
        }
        let mut journal = Journal::append_with(read, Box::new(file));
        journal
            .sink
            .cut(read.good_len)
            .with_context(|| format!("cannot cut the torn last line of {}", read.path.display()))?;
        journal.good_len = read.good_len;
        Ok(journal)
    }

    /// Continue `read` in `sink`, which stands at the end of its whole lines.
    pub fn append_with(read: &JournalFile, sink: Box<dyn Sink>) -> Journal {
        Journal {
            path: read.path.clone(),
            sink,
            good_len: read.good_len,
            next: read.entries.len() as u64 + 1,
            held: VecDeque::new(),
            outage: None,
            recovered: None,
            ended: read.is_finished(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// While the journal cannot be written: what failed and how much is held.
    pub fn outage(&self) -> Option<&Outage> {
        self.outage.as_ref()
    }

    /// The outage that ended with the last successful write, once (for the hub to say that it
    /// is over).
    pub fn take_recovered(&mut self) -> Option<Outage> {
        self.recovered.take()
    }

    fn encode(&mut self, entry: &Entry) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(entry)
            .with_context(|| format!("cannot encode a journal line for {}", self.path.display()))?;
        let mut line = match (entry, json.split_first()) {
            (Entry::Header(_), _) | (_, None) => json,
            (_, Some((_, rest))) => {
                // `{"n":7,"kind":...}`: the number first, for people reading the file.
                let mut line = format!("{{\"n\":{},", self.next).into_bytes();
                self.next += 1;
                line.extend_from_slice(rest);
                line
            }
        };
        line.push(b'\n');
        Ok(line)
    }

    fn write(&mut self, entry: &Entry) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        self.ended = matches!(entry, Entry::End { .. });
        let line = self.encode(entry)?;
        self.held.push_back(line);
        self.flush_held()
    }

    /// Write the held entries, oldest first. One write per line, then the data to the disk: the
    /// input is durable before it is applied (event sourcing). A failure cuts the file back to
    /// its whole lines, so a partial line never has another appended to it.
    pub fn flush_held(&mut self) -> Result<()> {
        while let Some(line) = self.held.front() {
            let written = self.sink.append(line).and_then(|()| self.sink.sync());
            match written {
                Ok(()) => {
                    self.good_len += line.len() as u64;
                    self.held.pop_front();
                }
                Err(e) => {
                    let mut text =
                        format!("cannot write to the journal {}: {e}", self.path.display());
                    if let Err(cut) = self.sink.cut(self.good_len) {
                        text.push_str(&format!(
                            "; and cannot cut it back to its last whole line ({cut}): it may end \
                             in a damaged line"
                        ));
                    }
                    let held = self.held.len();
                    let since_unix_ms = self
                        .outage
                        .as_ref()
                        .map_or_else(unix_ms, |o| o.since_unix_ms);
                    self.outage = Some(Outage {
                        error: text.clone(),
                        held,
                        since_unix_ms,
                    });
                    bail!(
                        "{text}; {held} journal entr{} held in memory and written as soon as the \
                         disk takes {} (a restart before that loses {})",
                        if held == 1 { "y is" } else { "ies are" },
                        if held == 1 { "it" } else { "them" },
                        if held == 1 { "it" } else { "them" },
                    );
                }
            }
        }
        if let Some(outage) = self.outage.take() {
            info!(
                "the journal {} is written again; the held entries are on the disk",
                self.path.display()
            );
            self.recovered = Some(outage);
        }
        Ok(())
    }

    /// Append an input accepted at `t`.
    pub fn input(&mut self, t: Millis, input: &Input) -> Result<()> {
        self.write(&Entry::Input {
            t,
            wall: unix_ms(),
            input: input.into(),
        })
    }

    /// Append a record that is no input to the arbiter (a request of the blind player, F.9 d),
    /// so that `tactus replay` writes the transcript as it was.
    pub fn record(&mut self, t: Millis, input: InputRecord) -> Result<()> {
        self.write(&Entry::Input {
            t,
            wall: unix_ms(),
            input,
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

impl Drop for Journal {
    /// A last try for held entries (the disk may have room again at shutdown); what still
    /// cannot be written is said, never dropped in silence.
    fn drop(&mut self) {
        if !self.held.is_empty() && self.flush_held().is_err() {
            error!(
                "{} journal entries could not be written to {} and are lost: a resume of this \
                 game stops before them",
                self.held.len(),
                self.path.display()
            );
        }
    }
}

/// Copy the journal to `journal.jsonl.damaged-<UTC time>` (a new name each time, never
/// overwriting an earlier copy) before anything of it is cut: the evidence stays.
pub fn keep_original(path: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let bytes = read_no_follow(path)
        .with_context(|| format!("cannot read {} to keep a copy", path.display()))?;
    let (y, mo, d, h, mi, s) = crate::daemon::files::civil(unix_ms());
    let stem = format!(
        "{}.damaged-{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let dir = path.parent().unwrap_or(Path::new("."));
    for n in 1..1000 {
        let copy = if n == 1 {
            dir.join(&stem)
        } else {
            dir.join(format!("{stem}-{n}"))
        };
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(JOURNAL_MODE)
            .open(&copy);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(e).with_context(|| {
                    format!(
                        "cannot keep a copy of {} before cutting its torn last line",
                        path.display()
                    )
                });
            }
        };
        file.write_all(&bytes)
            .and_then(|()| file.sync_all())
            .with_context(|| {
                format!(
                    "cannot keep a copy of {} as {} before cutting its torn last line",
                    path.display(),
                    copy.display()
                )
            })?;
        return Ok(copy);
    }
    Err(anyhow!(
        "cannot find a free name {stem} beside {}",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    };

    use super::*;
    use crate::daemon::journal::replay;

    /// A real file on a disk that fills up: `room` bytes more fit (shared, so the test can free
    /// space while the journal holds the sink), then a write puts in what fits and fails with
    /// ENOSPC, as `write(2)` does on a full disk.
    #[derive(Debug)]
    struct FillingDisk {
        file: File,
        room: Arc<AtomicU64>,
    }

    impl Sink for FillingDisk {
        fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
            let room = self.room.load(Ordering::SeqCst);
            let fits = (bytes.len() as u64).min(room) as usize;
            Write::write_all(&mut self.file, &bytes[..fits])?;
            self.room.fetch_sub(fits as u64, Ordering::SeqCst);
            if fits < bytes.len() {
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            Ok(())
        }

        fn sync(&mut self) -> io::Result<()> {
            // What reaches the disk is what was written; the test has no power to cut.
            Ok(())
        }

        fn cut(&mut self, len: u64) -> io::Result<()> {
            let before = self.file.metadata()?.len();
            Sink::cut(&mut self.file, len)?;
            // Cutting frees the bytes it cut.
            self.room
                .fetch_add(before.saturating_sub(len), Ordering::SeqCst);
            Ok(())
        }
    }

    fn header() -> Header {
        crate::daemon::journal::test_header(shakmaty::Color::Black, Some("300+2"))
    }

    /// A short game: the sighted player (White) enters his moves at the console and presses
    /// his clock; ticks between.
    fn short_game() -> Vec<Input> {
        vec![
            Input::Start,
            Input::EnterMove("e4".into()),
            Input::ClockPress,
            Input::Tick,
            Input::Tick,
            Input::Tick,
        ]
    }

    fn scratch(name: &str) -> PathBuf {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tactus-journal-file-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn open_disk(path: &Path, room: &Arc<AtomicU64>) -> Box<dyn Sink> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .unwrap();
        Box::new(FillingDisk {
            file,
            room: room.clone(),
        })
    }

    /// Issue 14, point 3: a full disk cut a line in half, the next entry was appended to the
    /// half line, and the journal was damaged in the middle. Now the half line is cut off, the
    /// entries are held, the outage is visible, and when the disk has room again they are
    /// written in order and the outage is reported over.
    #[test]
    fn a_full_disk_cuts_back_holds_and_writes_later() {
        let dir = scratch("full");
        let path = dir.join("journal.jsonl");
        let room = Arc::new(AtomicU64::new(u64::MAX / 2));
        let mut j = Journal::create_with(&path, &header(), open_disk(&path, &room)).unwrap();
        j.input(0, &Input::Start).unwrap();
        let whole = std::fs::read(&path).unwrap();
        room.store(10, Ordering::SeqCst);
        let err = j.input(100, &Input::Tick).unwrap_err().to_string();
        assert!(err.contains("1 journal entry is held"), "{err}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            whole,
            "cut back to the whole lines"
        );
        assert!(j.input(200, &Input::Tick).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), whole);
        let outage = j.outage().expect("an outage").clone();
        assert_eq!(outage.held, 2);
        let status = crate::daemon::files::outage_status(Some(&j), None, &[]);
        assert!(
            status.len() == 1 && status[0].contains("2 entries held"),
            "{status:?}"
        );
        assert!(outage.error.contains("journal.jsonl"), "{}", outage.error);
        assert!(j.take_recovered().is_none());
        // The disk has room again: the held entries go first, in order, then the new one.
        room.store(u64::MAX / 2, Ordering::SeqCst);
        j.input(300, &Input::Tick).unwrap();
        assert!(j.outage().is_none());
        let news = crate::daemon::files::outage_news(Some(&mut j), None);
        assert!(
            news.len() == 1 && news[0].contains("written again"),
            "{news:?}"
        );
        assert!(j.take_recovered().is_none(), "said once");
        assert!(crate::daemon::files::outage_status(Some(&j), None, &[]).is_empty());
        drop(j);
        let read = read(&path).unwrap();
        assert!(!read.torn);
        let times: Vec<Millis> = read
            .entries
            .iter()
            .map(|e| match e {
                Entry::Input { t, .. } => *t,
                _ => panic!(),
            })
            .collect();
        assert_eq!(times, [0, 100, 200, 300]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, fault injection: a short game journaled through a disk that fills up at every
    /// byte offset. While it is full every file on the disk reads back as the game up to the last
    /// input that was reported written (never damage, never a lost acknowledged input); once it
    /// has room, the whole game is there and replays exactly. A crash at any byte (the file cut
    /// anywhere) reads back as a prefix of the game, or as a game never started.
    #[test]
    fn a_disk_full_at_every_byte_loses_nothing() {
        let dir = scratch("every-byte");
        let game = short_game();
        // The whole game once, for its length and its replay.
        let full_path = dir.join("full.jsonl");
        let mut j = Journal::create(&full_path, &header()).unwrap();
        for (i, input) in game.iter().enumerate() {
            j.input(i as u64 * 1000, input).unwrap();
        }
        drop(j);
        let full = std::fs::read(&full_path).unwrap();
        let expected = replay(&read(&full_path).unwrap(), |_, _| {}).unwrap();
        assert_eq!(expected.arbiter.game().ply(), 1, "the game has a move");

        for room_at in 0..full.len() as u64 {
            let path = dir.join(format!("j-{room_at}.jsonl"));
            let room = Arc::new(AtomicU64::new(room_at));
            let created = Journal::create_with(&path, &header(), open_disk(&path, &room));
            let Ok(mut j) = created else {
                // The header did not fit: no game was started (the daemon refuses to start).
                let err = read(&path).unwrap_err();
                assert!(err.downcast_ref::<NothingPlayed>().is_some(), "{err:#}");
                continue;
            };
            let mut acknowledged = 0;
            for (i, input) in game.iter().enumerate() {
                if j.input(i as u64 * 1000, input).is_ok() {
                    acknowledged = i + 1;
                }
                let on_disk = read(&path).unwrap();
                assert!(!on_disk.torn, "offset {room_at}: cut back");
                assert_eq!(on_disk.entries.len(), acknowledged, "offset {room_at}");
            }
            room.store(u64::MAX / 2, Ordering::SeqCst);
            j.flush_held().unwrap();
            drop(j);
            assert_eq!(std::fs::read(&path).unwrap().len(), full.len());
            let back = replay(&read(&path).unwrap(), |_, _| {}).unwrap();
            assert_eq!(back.inputs, expected.inputs, "offset {room_at}");
            assert_eq!(back.arbiter.game().ply(), 1);
            let _ = std::fs::remove_file(&path);
        }

        // A crash at any byte.
        let entries = read(&full_path).unwrap().entries;
        for cut in 0..full.len() {
            match parse(&full_path, &full[..cut]) {
                Ok(j) => {
                    assert_eq!(j.entries[..], entries[..j.entries.len()], "cut at {cut}");
                    assert_eq!(j.torn, cut > 0 && full[cut - 1] != b'\n', "cut at {cut}");
                }
                Err(e) => assert!(
                    e.downcast_ref::<NothingPlayed>().is_some(),
                    "cut at {cut}: {e:#}"
                ),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What the table does after the end (speech finishing, a request) is not journaled: the
    /// end line stays the last, so a finished game's journal reads back whole.
    #[test]
    fn nothing_is_journaled_after_the_end_line() {
        let dir = scratch("after-end");
        let path = dir.join(crate::daemon::journal::JOURNAL_FILE);
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.input(1, &Input::Start).unwrap();
        let end = crate::rules::game::GameEnd {
            outcome: shakmaty::KnownOutcome::Draw,
            reason: crate::rules::game::EndReason::Agreement,
            at: 2,
            ply: 0,
        };
        journal.end(2, &end).unwrap();
        journal.input(3, &Input::Tick).unwrap();
        drop(journal);
        let read = read(&path).unwrap();
        assert!(read.is_finished());
        assert!(matches!(read.entries.last(), Some(Entry::End { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14 (smaller): looking for the unfinished game read every folder's whole journal
    /// (a 50 MB line cost 255 MB). A finished journal is known by its last line, whatever is
    /// before it; a journal that ends in an input, or torn, is not finished.
    #[test]
    fn a_finished_journal_is_known_by_its_last_line_alone() {
        let dir = scratch("ends-finished");
        let path = dir.join(crate::daemon::journal::JOURNAL_FILE);
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.input(1, &Input::Start).unwrap();
        drop(journal);
        assert!(!ends_finished(&path).unwrap());
        // Megabytes of garbage in the middle, then an end line: read from the end only.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend(std::iter::repeat_n(b'x', 3 * 1024 * 1024));
        bytes.push(b'\n');
        bytes.extend(br#"{"kind":"end","t":5,"result":"1/2-1/2","reason":"draw by agreement"}"#);
        bytes.push(b'\n');
        std::fs::write(&path, &bytes).unwrap();
        assert!(ends_finished(&path).unwrap());
        // Torn: the end line without its newline is no end.
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        assert!(!ends_finished(&path).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
