//! The journal's file (`journal.jsonl`): reading it from the disk and appending to it, each entry
//! synced to the disk before the hub applies its input. The format, its parsing and the replay
//! are the core's (`tactus_core::journal`).
//!
//! Reading trusts nothing it cannot check: the core's parser names every damage by line; before
//! a torn tail is cut off, the original is copied beside the journal
//! (`journal.jsonl.damaged-<time>`), never overwriting an earlier copy.
//!
//! Appending survives a full disk: a failed write is cut back to the last whole line, the entry
//! and those after it are held in memory in order and written as soon as the disk takes them
//! again ([`Journal::outage`] tells the hub while it lasts). The hub applies nothing the journal
//! did not take ([`Journal::withdraw_last`]): play halts until it does.
//!
//! Every line is numbered and checksummed, chained to the line before
//! (`tactus_core::journal::check`); [`read_against_record`] also holds the journal against the
//! record's mark (`record.json`), so a journal cut, emptied, deleted or swapped is refused, and
//! [`check_record_at`] holds it against the record itself (`game.pgn`), so that another game's
//! journal brought with its own mark, or without one, is refused too. The file is opened without following
//! symbolic links and created with mode 0600: it holds the sealed move. The daemon's journal is
//! created, continued and written back relative to the game folder it holds open
//! ([`Journal::create_in`], [`Journal::append_in`]): a folder on the way re-pointed under the
//! game redirects none of its lines.
use std::{
    collections::VecDeque,
    ffi::{OsStr, OsString},
    fmt,
    fs::File,
    io::{self, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};
use shakmaty::{ByColor, Color};
use tracing::{error, info, warn};

mod behind;
mod mark;

pub use self::{
    behind::{Behind, STALL},
    mark::{read_mark, read_mark_at},
};
use crate::{
    store::{
        at::{At, OpenFolder, still_named},
        trusted::TrustedDir,
    },
    wall::unix_ms,
};
use nix::fcntl::OFlag;
use tactus_core::{
    announce::Wording,
    arbiter::Input,
    folder::{JOURNAL_FILE, MARK_FILE, PGN_FILE},
    journal::{
        Entry, Header, JournalFile, NothingPlayed, Parser, RecordAhead, RecordMark, Replayed,
        TableRecord,
        check::{self, encode_line},
        check_mark, check_record, replay,
    },
    record::date::civil,
    rules::{
        Millis,
        game::{Game, GameEnd},
        pgn::read_pgn,
    },
    table::TableInput,
};

/// The mode of a new journal: it holds the sealed move, so only the daemon's user reads it.
pub const JOURNAL_MODE: u32 = 0o600;

/// Each seat's words for the game of `header`: the packs its header names, from the voices
/// folder `dir` (or built into tactus).
pub fn wording(header: &Header, dir: &Path) -> Result<ByColor<Wording>> {
    let setup = &header.setup;
    let load = |seat: Color| -> Result<Wording> {
        let pack = crate::store::voices::load_words(dir, setup.pack_of(seat))
            .with_context(|| format!("the voice pack of the {seat} player"))?;
        Ok(Wording::new(pack, setup.voice_style))
    };
    Ok(ByColor {
        white: load(Color::White)?,
        black: load(Color::Black)?,
    })
}

/// A journal replayed into a new table, its seats worded from the default voices folder (for
/// what needs the game and the table, not the words: the record's checks, tests).
pub fn replayed(read: &JournalFile) -> Result<Replayed> {
    let dir = crate::store::voices::default_dir();
    replay(read, wording(&read.header, &dir)?, |_, _| {})
}

/// Read a journal. A torn last line is dropped; damage is an error whose root is a
/// [`tactus_core::journal::Damage`] (`err.downcast_ref::<Damage>()`).
pub fn read(path: &Path) -> Result<JournalFile> {
    let cannot = || format!("cannot read the journal {}", path.display());
    let (folder, name) = OpenFolder::of_file(path).with_context(cannot)?;
    read_at(folder.at(), &name)
}

/// [`read`] the journal `name` of the open folder `at`.
pub fn read_at(at: At<'_>, name: impl AsRef<OsStr>) -> Result<JournalFile> {
    use std::io::BufRead;
    let path = at.file_path(&name);
    let path = path.as_path();
    let cannot = || format!("cannot read the journal {}", path.display());
    let file = at.open(&name, OFlag::O_RDONLY, 0).with_context(cannot)?;
    // Line by line: a long journal is never held whole as bytes beside its entries.
    let mut lines = io::BufReader::with_capacity(64 * 1024, file);
    let mut parser = Parser::new(path);
    let mut line = Vec::new();
    loop {
        line.clear();
        if lines.read_until(b'\n', &mut line).with_context(cannot)? == 0 {
            break;
        }
        parser.push(&line)?;
    }
    parser.finish()
}

/// Read the journal of the game in `folder` and check it against the record's mark
/// (`record.json`, [`tactus_core::journal::check_mark`]): a journal that is missing, empty,
/// shorter than the record or of another game is refused (the error's root is a
/// [`RecordAhead`]), never resumed.
pub fn read_against_record(folder: &Path) -> Result<JournalFile> {
    let held = match File::open(folder) {
        Ok(held) => held,
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
            "{} holds no journal ({JOURNAL_FILE}); give the folder of a game tactus played",
            folder.display()
        ),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot open the folder {}", folder.display()));
        }
    };
    read_against_record_at(At::new(&held, folder))
}

/// [`read_against_record`] in the open folder `at` (the game folder held open: what is read is
/// what will be continued).
pub fn read_against_record_at(at: At<'_>) -> Result<JournalFile> {
    let folder = at.path();
    let path = at.file_path(JOURNAL_FILE);
    let mark = read_mark_at(at, MARK_FILE)?;
    let ahead = |mark: &RecordMark, what: &str| {
        anyhow::Error::new(RecordAhead {
            path: path.clone(),
            what: what.into(),
            mark: Box::new(mark.clone()),
        })
    };
    if !at.exists(JOURNAL_FILE) {
        if let Some(mark) = &mark {
            return Err(ahead(
                mark,
                "the journal is missing (deleted or moved away)",
            ));
        }
        bail!(
            "{} holds no journal ({JOURNAL_FILE}); give the folder of a game tactus played",
            folder.display()
        );
    }
    let read = match read_at(at, JOURNAL_FILE) {
        Err(e) if e.downcast_ref::<NothingPlayed>().is_some() => {
            return Err(match &mark {
                Some(mark) => ahead(mark, "the journal is empty"),
                None => e,
            });
        }
        other => other?,
    };
    if let Some(mark) = &mark {
        check_mark(&read, mark)?;
    }
    Ok(read)
}

/// Whether the record in the game folder `at` (its `game.pgn`) is of the game its journal,
/// `read`, replays to (`game`): a journal of another game put in the folder, with its own mark or
/// none, is refused ([`tactus_core::journal::check_record`], the error's root an
/// [`OtherGame`]), never resumed over the record. No `game.pgn` is nothing to overwrite; one
/// that does not read as PGN is damage to the record, which the journal writes anew (said).
pub fn check_record_at(at: At<'_>, read: &JournalFile, game: &Game) -> Result<()> {
    if !at.exists(PGN_FILE) {
        return Ok(());
    }
    let path = at.file_path(PGN_FILE);
    let bytes = read_no_follow(at, OsStr::new(PGN_FILE))
        .with_context(|| format!("cannot read the record {}", path.display()))?;
    let record = match read_pgn(&bytes) {
        Ok(games) => match games.into_iter().next() {
            Some(record) => record,
            None => return Ok(()),
        },
        Err(e) => {
            warn!(
                "{} does not read as PGN ({e}); it is written anew from the journal",
                path.display()
            );
            return Ok(());
        }
    };
    let mark = read_mark_at(at, MARK_FILE)?;
    let played: Vec<shakmaty::Move> = game.moves().iter().map(|m| m.mv).collect();
    check_record(read, mark.as_ref(), &record, &played)?;
    Ok(())
}

/// How much of a journal's end [`ends_finished`] reads: far more than any end line.
const TAIL_BYTES: u64 = 64 * 1024;

/// Whether the journal at `path` ends with its end line, from its last 64 KiB only: how
/// the folders of finished games are passed over without reading (or trusting) their whole
/// journals while the unfinished one is looked for. A torn or unreadable last line is no end.
pub fn ends_finished(path: &Path) -> io::Result<bool> {
    let mut file =
        crate::store::private::open_no_follow(path, std::fs::OpenOptions::new().read(true))?;
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

/// Read the file `name` of the folder `at` without following a symbolic link: another user who
/// could plant a link must not make the daemon read (or later append to) a file of his choice.
fn read_no_follow(at: At<'_>, name: &OsStr) -> io::Result<Vec<u8>> {
    let mut file = at.open(name, OFlag::O_RDONLY, 0)?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// Where the journal's bytes go: the file, or (in tests) a file whose disk fills up.
pub trait Sink: Send + fmt::Debug {
    /// Append all of `bytes` (a failure may have written part of them).
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Make what was written durable.
    fn sync(&mut self) -> io::Result<()>;
    /// Cut the file back to `len` bytes and go on writing there.
    fn cut(&mut self, len: u64) -> io::Result<()>;
    /// Whether the file written to is no longer the one named `name` in the folder `at`
    /// (deleted, or another put in its place): its lines would reach no one.
    fn gone_from(&self, _at: At<'_>, _name: &OsStr) -> bool {
        false
    }
    /// The first `len` bytes written (to put a deleted journal back).
    fn read_back(&self, _len: u64) -> io::Result<Vec<u8>> {
        Err(io::Error::other("this journal cannot be read back"))
    }
    /// After a sync that stalled ([`io::ErrorKind::TimedOut`]): whether what was written has
    /// reached the disk since (None: not yet), without waiting.
    fn landed(&mut self) -> Option<io::Result<()>> {
        Some(Ok(()))
    }
    /// As [`Sink::landed`], waiting up to `wait` (at shutdown).
    fn settle(&mut self, _wait: std::time::Duration) -> Option<io::Result<()>> {
        Some(Ok(()))
    }
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

    fn gone_from(&self, at: At<'_>, name: &OsStr) -> bool {
        // What cannot be looked at is not taken for gone.
        still_named(self, at, name).is_ok_and(|named| !named)
    }

    fn read_back(&self, len: u64) -> io::Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0; len as usize];
        self.read_exact_at(&mut bytes, 0)?;
        Ok(bytes)
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
    /// The file's path, for messages.
    path: PathBuf,
    /// The folder held open and the file's name in it: where the journal is looked for, and
    /// written back if it was deleted (None: a journal on a sink of its own, in tests).
    place: Option<(OpenFolder, OsString)>,
    sink: Box<dyn Sink>,
    /// Bytes of whole lines on the disk: where a failed write is cut back to.
    good_len: u64,
    /// The number of the next input or end line.
    next: u64,
    /// The game's identity (the header's `game`).
    game: String,
    /// The chained checksum of the last line encoded (`tactus_core::journal::check`).
    check: u32,
    /// The entries and the checksum of the last line on the disk: what the record's mark says
    /// the record was written from.
    on_disk: (u64, u32),
    /// Encoded lines not yet on the disk, oldest first, with their entry number and checksum.
    held: VecDeque<(Vec<u8>, u64, u32)>,
    outage: Option<Outage>,
    /// The outage that just ended, until [`Journal::take_recovered`] collects it.
    recovered: Option<Outage>,
    /// What was put right since the last look (a deleted journal written back), for the staff.
    news: Vec<String>,
    /// The first held line was handed to the disk, which stalled: it lands when the disk wakes
    /// (or fails then); nothing is written after it meanwhile.
    in_flight: bool,
    /// The end line is written: nothing follows it (an end in mid-file is damage), so what the
    /// table still does after the game (speech finishing, a request) is not journaled.
    ended: bool,
}

impl Journal {
    /// Start a new journal at `path` with `header` (the file must not exist yet; a symbolic link
    /// there is refused, not followed). Mode 0600: the journal holds the sealed move. Its folder
    /// is opened by its path once, and the journal made and looked for in it.
    pub fn create(path: &Path, header: &Header) -> Result<Journal> {
        let (folder, name) = OpenFolder::of_file(path)
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        Journal::create_at(folder, name, header)
    }

    /// Start the journal of the game folder held open, `folder` ([`JOURNAL_FILE`] in it), as
    /// [`Journal::create`] does: made, looked for and written back in that folder only.
    pub fn create_in(folder: &TrustedDir, header: &Header) -> Result<Journal> {
        let held = folder.hold().with_context(|| {
            format!(
                "cannot create the journal {}",
                folder.file_path(JOURNAL_FILE).display()
            )
        })?;
        Journal::create_at(held, JOURNAL_FILE.into(), header)
    }

    fn create_at(folder: OpenFolder, name: OsString, header: &Header) -> Result<Journal> {
        let at = folder.at();
        let path = at.file_path(&name);
        // Read too: a journal deleted under the game is written back from this handle.
        let file = at
            .open(
                &name,
                OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL,
                JOURNAL_MODE,
            )
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        let sink = Behind::file(file)
            .with_context(|| format!("cannot start writing the journal {}", path.display()))?;
        let journal = Journal::create_with(&path, header, Box::new(sink));
        if journal.is_err() {
            // The file is ours (just created) and holds no whole line: nothing to keep.
            let _ = at.remove(&name);
        }
        let mut journal = journal?;
        // The folder entry of a new file must reach the disk too, or a power cut could lose it.
        at.sync();
        journal.place = Some((folder, name));
        Ok(journal)
    }

    /// Start a new journal in `sink` (empty): the header must reach the disk, or there is no
    /// game to play.
    pub fn create_with(path: &Path, header: &Header, sink: Box<dyn Sink>) -> Result<Journal> {
        let mut journal = Journal {
            path: path.to_owned(),
            place: None,
            sink,
            good_len: 0,
            next: 1,
            game: header.game.clone(),
            check: 0,
            on_disk: (0, 0),
            held: VecDeque::new(),
            outage: None,
            recovered: None,
            news: Vec::new(),
            in_flight: false,
            ended: false,
        };
        journal.write(&Entry::Header(Box::new(header.clone())))?;
        Ok(journal)
    }

    /// Continue a journal that was read with [`read`]. A torn last line is cut off, after the
    /// whole original has been copied to `journal.jsonl.damaged-<time>` beside it. Its folder is
    /// opened by its path once, and the journal continued and looked for in it.
    pub fn append_to(read: &JournalFile) -> Result<Journal> {
        let (folder, name) = OpenFolder::of_file(&read.path).with_context(|| {
            format!(
                "cannot open the journal {} to continue it",
                read.path.display()
            )
        })?;
        Journal::append_at(folder, name, read)
    }

    /// Continue the journal of the game folder held open, `folder` ([`JOURNAL_FILE`] in it; read
    /// from there with [`read_against_record_at`]), as [`Journal::append_to`] does.
    pub fn append_in(folder: &TrustedDir, read: &JournalFile) -> Result<Journal> {
        let held = folder.hold().with_context(|| {
            format!(
                "cannot open the journal {} to continue it",
                read.path.display()
            )
        })?;
        Journal::append_at(held, JOURNAL_FILE.into(), read)
    }

    fn append_at(folder: OpenFolder, name: OsString, read: &JournalFile) -> Result<Journal> {
        let at = folder.at();
        let file = at.open(&name, OFlag::O_RDWR, 0).with_context(|| {
            format!(
                "cannot open the journal {} to continue it",
                read.path.display()
            )
        })?;
        let len = file
            .metadata()
            .with_context(|| format!("cannot look at {}", read.path.display()))?
            .len();
        if len > read.good_len {
            let kept = keep_original(at, &name)?;
            info!(
                "{}: the torn last line is cut off; the original is kept as {}",
                read.path.display(),
                kept.display()
            );
        }
        let sink = Behind::file(file)
            .with_context(|| format!("cannot start writing the journal {}", read.path.display()))?;
        let mut journal = Journal::append_with(read, Box::new(sink));
        journal
            .sink
            .cut(read.good_len)
            .with_context(|| format!("cannot cut the torn last line of {}", read.path.display()))?;
        journal.good_len = read.good_len;
        journal.place = Some((folder, name));
        Ok(journal)
    }

    /// Continue `read` in `sink`, which stands at the end of its whole lines.
    pub fn append_with(read: &JournalFile, sink: Box<dyn Sink>) -> Journal {
        Journal {
            path: read.path.clone(),
            place: None,
            sink,
            good_len: read.good_len,
            next: read.entries.len() as u64 + 1,
            game: read.header.game.clone(),
            check: read.checks.last().copied().unwrap_or(0),
            on_disk: (
                read.entries.len() as u64,
                read.checks.last().copied().unwrap_or(0),
            ),
            held: VecDeque::new(),
            outage: None,
            recovered: None,
            news: Vec::new(),
            in_flight: false,
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

    /// The line for `entry`: numbered (`{"n":7,...}`, the number first for people reading the
    /// file) and checksummed, chained to the line before.
    fn encode(&mut self, entry: &Entry) -> Result<(Vec<u8>, u64, u32)> {
        let header = matches!(entry, Entry::Header(_));
        let n = if header { 0 } else { self.next };
        let (line, check) = encode_line(entry, n, if header { 0 } else { self.check })
            .with_context(|| format!("cannot encode a journal line for {}", self.path.display()))?;
        if !header {
            self.next += 1;
        }
        self.check = check;
        Ok((line, n, check))
    }

    /// How many entries are on the disk, and the checksum of the last line there: what a record
    /// written now was written from (`tactus_core::journal::RecordMark`).
    pub fn on_disk(&self) -> (u64, u32) {
        self.on_disk
    }

    /// The mark of a record written now, holding `half_moves`: what of the journal it was
    /// written from (the entries on the disk, not those held in memory).
    pub fn mark(&self, half_moves: usize, finished: bool) -> RecordMark {
        RecordMark {
            game: self.game.clone(),
            entries: self.on_disk.0,
            check: check::hex(self.on_disk.1),
            half_moves,
            finished,
            t: None,
        }
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
        if !self.in_flight && !self.held.is_empty() && self.gone() {
            self.write_back()?;
        }
        while let Some((line, n, check)) = self.held.front() {
            let written = if self.in_flight {
                // The line handed over before the disk stalled: landed yet?
                match self.sink.landed() {
                    None => return Err(self.stall_error()),
                    Some(result) => {
                        self.in_flight = false;
                        result
                    }
                }
            } else {
                self.sink.append(line).and_then(|()| self.sink.sync())
            };
            match written {
                Ok(()) => {
                    self.good_len += line.len() as u64;
                    self.on_disk = (*n, *check);
                    self.held.pop_front();
                }
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    self.in_flight = true;
                    return Err(self.stall_error());
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

    /// Take back the last input held in memory: the hub did not apply it, as it could not be
    /// written (no move counts that is not on the disk); it is journaled again when it is
    /// applied. Returns whether there was one.
    pub fn withdraw_last(&mut self) -> bool {
        match self.held.back() {
            Some((_, n, _)) if *n != 0 && *n + 1 == self.next => {}
            _ => return false,
        }
        self.held.pop_back();
        self.next -= 1;
        self.check = self.held.back().map_or(self.on_disk.1, |(_, _, c)| *c);
        if let Some(outage) = &mut self.outage {
            outage.held = self.held.len();
        }
        true
    }

    /// Whether the disk stalled with a line handed to it: the line is expected to land (the
    /// hub applies the input it holds, and halts play behind it).
    pub fn stalled(&self) -> bool {
        self.in_flight
    }

    /// The error of a stall, the outage set while it lasts.
    fn stall_error(&mut self) -> anyhow::Error {
        let text = format!(
            "the journal {} is stalled: the disk has not taken its last line within {:.1} s",
            self.path.display(),
            STALL.as_secs_f64()
        );
        let since_unix_ms = self
            .outage
            .as_ref()
            .map_or_else(unix_ms, |o| o.since_unix_ms);
        self.outage = Some(Outage {
            error: text.clone(),
            held: self.held.len(),
            since_unix_ms,
        });
        anyhow!(text)
    }

    /// What was put right since the last call (a deleted journal written back), once.
    pub fn take_news(&mut self) -> Vec<String> {
        std::mem::take(&mut self.news)
    }

    /// Whether the journal is no longer in its folder under its name (deleted, or another file
    /// put in its place). A journal without a folder held (on a sink of its own) never is.
    fn gone(&self) -> bool {
        self.place
            .as_ref()
            .is_some_and(|(folder, name)| self.sink.gone_from(folder.at(), name))
    }

    /// The journal was deleted (or another file put in its place) while the game went on: its
    /// lines are written back from the handle still open, to a new file under its name in the
    /// folder held (what was put there is kept beside it, `journal.jsonl.replaced-<time>`), and
    /// writing goes on there. Without this every later line went to a file no one could find,
    /// and the next start began a new game. Everything happens in the folder held open, never
    /// through its path: a folder on the way re-pointed meanwhile (issue 25, point 1) redirects
    /// nothing, and the journal holds the sealed move.
    fn write_back(&mut self) -> Result<()> {
        let path = self.path.clone();
        let fail = |e: anyhow::Error| {
            let text = format!(
                "the journal {} was deleted or replaced during the game and cannot be written \
                 back: {e:#}",
                path.display()
            );
            anyhow!(text)
        };
        let Some((folder, name)) = &self.place else {
            return Err(fail(anyhow!("its folder is not held open")));
        };
        let at = folder.at();
        let bytes = self
            .sink
            .read_back(self.good_len)
            .map_err(|e| fail(e.into()))?;
        let mut kept = None;
        if at.exists(name) {
            let (y, mo, d, h, mi, s) = civil(unix_ms());
            let aside = format!(
                "{}.replaced-{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z",
                name.to_string_lossy()
            );
            at.rename(name, &aside).map_err(|e| fail(e.into()))?;
            kept = Some(at.file_path(&aside));
        }
        let mut file = at
            .open(
                name,
                OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_EXCL,
                JOURNAL_MODE,
            )
            .map_err(|e| fail(e.into()))?;
        file.write_all(&bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| fail(e.into()))?;
        at.sync();
        self.sink = Box::new(behind::reopen(file).map_err(|e| fail(e.into()))?);
        self.in_flight = false;
        let text = format!(
            "the journal {} was deleted{} during the game; tactus wrote it back from its open \
             copy ({} bytes, every entry) and goes on writing there",
            path.display(),
            kept.map_or(String::new(), |k| format!(
                " (what was put in its place is kept as {})",
                k.display()
            )),
            bytes.len()
        );
        error!("{text}");
        self.news.push(text);
        Ok(())
    }

    /// Append an input the table applies to the arbiter as it stands (an input that waited
    /// while the journal could not be written; the journal's own tests).
    pub fn input(&mut self, t: Millis, input: &Input) -> Result<()> {
        self.table(t, &TableInput::Recorded(input.clone()))
    }

    /// Append what the table received at `t`.
    pub fn table(&mut self, t: Millis, input: &TableInput) -> Result<()> {
        self.write(&Entry::Table {
            t,
            wall: unix_ms(),
            input: TableRecord::of(input),
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
        if self.in_flight {
            // A stalled disk gets a last while to take the line handed to it.
            match self.sink.settle(std::time::Duration::from_secs(5)) {
                // Landed: the held lines after it are written below.
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    self.in_flight = false;
                    error!(
                        "the journal {} did not take its last line ({e}); {} journal entries \
                         are lost: a resume of this game stops before them",
                        self.path.display(),
                        self.held.len()
                    );
                    return;
                }
                None => {
                    error!(
                        "the journal {} is still stalled; its last {} entries may be lost: a \
                         resume of this game may stop before them",
                        self.path.display(),
                        self.held.len()
                    );
                    return;
                }
            }
        }
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
pub fn keep_original(at: At<'_>, name: &OsStr) -> Result<PathBuf> {
    let path = at.file_path(name);
    let bytes = read_no_follow(at, name)
        .with_context(|| format!("cannot read {} to keep a copy", path.display()))?;
    let (y, mo, d, h, mi, s) = civil(unix_ms());
    let stem = format!(
        "{}.damaged-{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z",
        name.to_string_lossy()
    );
    for n in 1..1000 {
        let copy = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        let file = at.open(
            &copy,
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL,
            JOURNAL_MODE,
        );
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
        let copy = at.file_path(&copy);
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

    use std::fs::OpenOptions;

    use shakmaty::{Color, Square};
    use tactus_core::{
        announce::{Announcement, Audience},
        board::SensorEvent,
        folder::JOURNAL_FILE,
        journal::{NothingPlayed, test_header},
    };

    use super::*;

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
        test_header(Color::Black, Some("300+2"))
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

    fn scratch(name: &str) -> crate::store::Scratch {
        crate::store::scratch(&format!("journal-file-{name}"))
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
                Entry::Input { t, .. } | Entry::Table { t, .. } => *t,
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
        let expected = replayed(&read(&full_path).unwrap()).unwrap();
        assert_eq!(expected.arbiter().game().ply(), 1, "the game has a move");

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
            let back = replayed(&read(&path).unwrap()).unwrap();
            assert_eq!(back.inputs, expected.inputs, "offset {room_at}");
            assert_eq!(back.arbiter().game().ply(), 1);
            let _ = std::fs::remove_file(&path);
        }

        // A crash at any byte.
        let entries = read(&full_path).unwrap().entries;
        for cut in 0..full.len() {
            match tactus_core::journal::parse(&full_path, &full[..cut]) {
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
    /// Issue 25, point 4: a journal deleted mid-game showed nothing in `status`, every later
    /// line went to a file no one could find, and the next run started a new game. It is
    /// written back whole from the open handle at the next entry, and the staff are told; a
    /// file put in its place is kept beside it.
    #[test]
    fn a_journal_deleted_or_replaced_mid_game_is_written_back_whole() {
        let dir = scratch("deleted");
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &header()).unwrap();
        for (i, input) in short_game().iter().enumerate() {
            j.input(i as u64 * 100, input).unwrap();
        }
        std::fs::remove_file(&path).unwrap();
        j.input(1_000, &Input::Tick).unwrap();
        let news = j.take_news();
        assert!(
            news.len() == 1 && news[0].contains("was deleted") && news[0].contains("wrote it back"),
            "{news:?}"
        );
        let read1 = read(&path).unwrap();
        assert_eq!(read1.entries.len(), short_game().len() + 1);
        // Another file put in its place: kept aside, the journal written back again.
        std::fs::write(dir.join("other"), b"not the journal\n").unwrap();
        std::fs::rename(dir.join("other"), &path).unwrap();
        j.input(1_100, &Input::Tick).unwrap();
        assert_eq!(j.take_news().len(), 1);
        drop(j);
        assert_eq!(read(&path).unwrap().entries.len(), short_game().len() + 2);
        let aside: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("journal.jsonl.replaced-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert_eq!(
            std::fs::read(dir.join(&aside[0])).unwrap(),
            b"not the journal\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The review of issue 25: the journal's folder was looked for, and a deleted journal
    /// written back, through the folder's path after a trust check, so a folder on the way
    /// re-pointed in between (by root or the daemon's own user) took the journal with its
    /// sealed move elsewhere. The daemon's journal lives in the game folder held open: re-pointed,
    /// the path leads elsewhere, and every line, and a journal written back, stays in the held
    /// folder.
    #[test]
    fn a_journal_in_a_held_folder_stays_there_when_its_path_is_re_pointed() {
        let dir = scratch("re-pointed");
        let game = dir.join("games").join("g1");
        std::fs::create_dir_all(&game).unwrap();
        let held = TrustedDir::open(&game).unwrap();
        let mut j = Journal::create_in(&held, &header()).unwrap();
        j.input(0, &Input::Start).unwrap();
        // The parent renamed, and a link to a folder of the same shape put in its place.
        std::fs::rename(dir.join("games"), dir.join("moved")).unwrap();
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(elsewhere.join("g1")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("games")).unwrap();
        let moved = dir.join("moved").join("g1");
        j.input(100, &Input::Tick).unwrap();
        assert!(j.take_news().is_empty(), "the journal is where it was");
        assert_eq!(read(&moved.join(JOURNAL_FILE)).unwrap().entries.len(), 2);
        // Deleted in the held folder: written back there, never through the path.
        std::fs::remove_file(moved.join(JOURNAL_FILE)).unwrap();
        j.input(200, &Input::Tick).unwrap();
        let news = j.take_news();
        assert!(
            news.len() == 1 && news[0].contains("wrote it back"),
            "{news:?}"
        );
        drop(j);
        assert_eq!(read(&moved.join(JOURNAL_FILE)).unwrap().entries.len(), 3);
        assert_eq!(
            std::fs::read_dir(elsewhere.join("g1")).unwrap().count(),
            0,
            "nothing was written through the link"
        );
        // Continued in the held folder too.
        let again = TrustedDir::open(&moved).unwrap();
        let mut j =
            Journal::append_in(&again, &read_against_record_at(again.at()).unwrap()).unwrap();
        std::fs::remove_file(dir.join("games")).unwrap();
        std::fs::rename(dir.join("moved"), dir.join("games")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.join("moved")).unwrap();
        j.input(300, &Input::Tick).unwrap();
        drop(j);
        assert_eq!(read(&game.join(JOURNAL_FILE)).unwrap().entries.len(), 4);
        assert_eq!(std::fs::read_dir(elsewhere.join("g1")).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nothing_is_journaled_after_the_end_line() {
        let dir = scratch("after-end");
        let path = dir.join(JOURNAL_FILE);
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.input(1, &Input::Start).unwrap();
        let end = tactus_core::rules::game::GameEnd {
            outcome: shakmaty::KnownOutcome::Draw,
            reason: tactus_core::rules::game::EndReason::Agreement,
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
        let path = dir.join(JOURNAL_FILE);
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

    fn white_header() -> Header {
        let mut header = test_header(Color::White, Some("300+2"));
        header.tags = vec![("White".into(), "A".into())];
        header
    }

    #[test]
    fn a_journal_replays_and_a_torn_last_line_is_cut() {
        let dir = crate::store::scratch("journal");
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &white_header()).unwrap();
        j.input(0, &Input::Start).unwrap();
        j.input(100, &Input::EnterMove("e4".into())).unwrap();
        // White is the blind player: the console cannot enter his move.
        j.input(200, &Input::Tick).unwrap();
        drop(j);
        // A crash in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"n\":4,\"c\":\"0000").unwrap();
        drop(f);
        let read1 = read(&path).unwrap();
        assert!(read1.torn);
        assert_eq!(read1.entries.len(), 3);
        assert_eq!(read1.last_time(), 200);
        let mut j = Journal::append_to(&read1).unwrap();
        j.input(400, &Input::Tick).unwrap();
        drop(j);
        let read2 = read(&path).unwrap();
        assert!(!read2.torn);
        assert_eq!(read2.entries.len(), 4);
        let replayed = replayed(&read2).unwrap();
        assert_eq!(replayed.inputs, 4);
        assert!(replayed.started());
        assert_eq!(replayed.last_time, 400);
        assert!(replayed.arbiter().game().clock().unwrap().running() == Some(Color::White));

        // A damaged line in the middle is an error naming the line.
        let good = std::fs::read(&path).unwrap();
        let second = good.iter().position(|&b| b == b'\n').unwrap() + 1;
        let mut damaged = good[..second].to_vec();
        damaged.extend_from_slice(b"not json\n");
        damaged.extend_from_slice(&good[second..]);
        std::fs::write(&path, damaged).unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A crash between the blind player's move and the end of its announcement: the replay
    /// knows the announcement was never finished (the daemon says it again), and the move counts
    /// only once its end is journaled (F.3 c).
    #[test]
    fn an_unfinished_announcement_survives_the_replay() {
        let dir = crate::store::scratch("journal-say");
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &white_header()).unwrap();
        let blind = |event| Input::Board {
            seat: Color::White,
            event,
        };
        j.input(0, &Input::Start).unwrap();
        j.input(1000, &blind(SensorEvent::Lift { square: Square::E2 }))
            .unwrap();
        j.input(
            1200,
            &blind(SensorEvent::Place {
                square: Square::E4,
                piece: None,
            }),
        )
        .unwrap();
        drop(j);
        let replayed = replayed(&read(&path).unwrap()).unwrap();
        assert_eq!(replayed.arbiter().game().ply(), 0);
        let unfinished = replayed.unfinished();
        let (&id, (audience, announcement)) = unfinished
            .iter()
            .find(|(_, (_, a))| matches!(a, Announcement::Move(_)))
            .expect("the move's announcement is unfinished");
        assert_eq!(*audience, Audience::Player(Color::Black));
        assert!(matches!(announcement, Announcement::Move(w) if w.to == Square::E4));

        let mut j = Journal::append_to(&read(&path).unwrap()).unwrap();
        j.input(2500, &Input::SpeechFinished { id }).unwrap();
        drop(j);
        let replayed = super::replayed(&read(&path).unwrap()).unwrap();
        assert_eq!(replayed.arbiter().game().ply(), 1);
        assert!(!replayed.unfinished().contains_key(&id));
        // White's clock ran until the announcement ended: 2.5 s of 300 s, plus the increment.
        let clock = replayed.arbiter().game().clock().unwrap();
        assert_eq!(clock.remaining(Color::White, 2500), 300_000 - 2500 + 2000);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Issue 25, points 2 and 4: the journal proves itself. A short real game (12 half-moves, the
/// blind player's moves on his tactile board, the sighted player's entered and pressed, every
/// announcement finished) is journaled and its record marked; then every byte of the journal
/// is flipped in turn, and the file is cut at every line boundary. Each result either resumes
/// exactly the game that was played or is refused with a message naming the folder. Before the
/// checksums, one changed byte ("g8" to "g4" in a lift) or a clean cut resumed a shorter game.
#[cfg(test)]
mod fault_injection {
    use shakmaty::{Color, Square};
    use tactus_core::{
        arbiter::{Arbiter, Effect, Input},
        board::SensorEvent,
        folder::MARK_FILE,
        journal::test_header,
        rules::notation::match_move,
    };

    use super::*;

    /// Plays `input` on the arbiter and journals it first, as the hub does; every announcement
    /// is finished at once (speech that takes no time).
    struct Table {
        arbiter: Arbiter,
        journal: Journal,
        t: Millis,
    }

    impl Table {
        fn play(&mut self, input: Input) {
            self.t += 700;
            let mut queue = vec![input];
            while let Some(input) = queue.pop() {
                self.journal.input(self.t, &input).unwrap();
                for effect in self.arbiter.handle(input, self.t) {
                    if let Effect::Say { id, .. } = effect {
                        queue.insert(0, Input::SpeechFinished { id });
                    }
                }
            }
        }

        fn tactile(&mut self, from: Square, to: Square) {
            self.play(Input::Board {
                seat: Color::White,
                event: SensorEvent::Lift { square: from },
            });
            self.play(Input::Board {
                seat: Color::White,
                event: SensorEvent::Place {
                    square: to,
                    piece: None,
                },
            });
            self.play(Input::Tick);
        }
    }

    /// What a resumed game is: its moves, result, and both clocks at its last time.
    fn fingerprint(folder: &Path) -> Result<String> {
        let read = read_against_record(folder)?;
        let replayed = replayed(&read)?;
        let game = replayed.arbiter().game();
        let clock = game.clock().expect("a clock");
        Ok(format!(
            "{} | {} {} | {:?}",
            game.to_pgn(&[]),
            clock.remaining(Color::White, replayed.last_time),
            clock.remaining(Color::Black, replayed.last_time),
            clock.running(),
        ))
    }

    #[test]
    fn every_flipped_byte_and_every_cut_is_refused_or_resumes_the_game_exactly() {
        let dir = crate::store::scratch("faults");
        let path = dir.join(JOURNAL_FILE);
        let mut header = test_header(Color::White, Some("300+2"));
        header.game = "5eed0fa11ed0000000000000000000aa".into();
        let cfg = header.setup.arbiter_config().unwrap();
        let mut table = Table {
            arbiter: Arbiter::new(cfg, shakmaty::Chess::default()),
            journal: Journal::create(&path, &header).unwrap(),
            t: 0,
        };
        table.play(Input::Start);
        let moves = [
            "Nf3", "Nf6", "g3", "g6", "Bg2", "Bg7", "d3", "d6", "Nc3", "Nc6", "e4", "e5",
        ];
        for pair in moves.chunks(2) {
            // The blind player (White) on his tactile board.
            let pos = table.arbiter.game().position().clone();
            let mv = match_move(&pos, pair[0]).unwrap();
            table.tactile(mv.from().unwrap(), mv.to());
            // The sighted player's move, entered and pressed; the blind player executes it.
            let pos = table.arbiter.game().position().clone();
            let reply = match_move(&pos, pair[1]).unwrap();
            table.play(Input::EnterMove(pair[1].into()));
            table.play(Input::ClockPress);
            table.tactile(reply.from().unwrap(), reply.to());
        }
        assert_eq!(table.arbiter.game().ply(), 12, "the game was played");
        let mark = table.journal.mark(12, false);
        std::fs::write(dir.join(MARK_FILE), mark.to_bytes()).unwrap();
        drop(table);

        let original = std::fs::read(&path).unwrap();
        let played = fingerprint(&dir).unwrap();
        assert!(
            played.contains("6. e4") && played.contains("6... e5"),
            "{played}"
        );
        let check = |bytes: &[u8], what: &str| -> bool {
            std::fs::write(&path, bytes).unwrap();
            match fingerprint(&dir) {
                Ok(resumed) => {
                    assert_eq!(resumed, played, "{what}: resumed a different game");
                    false
                }
                Err(e) => {
                    let message = format!("{e:#}");
                    assert!(
                        message.contains(&dir.display().to_string()),
                        "{what}: the refusal names the folder: {message}"
                    );
                    true
                }
            }
        };
        let mut refused = 0;
        for i in 0..original.len() {
            let mut bytes = original.clone();
            bytes[i] ^= 0x01;
            refused += usize::from(check(&bytes, &format!("byte {i} flipped")));
        }
        // A flipped byte anywhere is seen: CRC-32C catches every one.
        assert_eq!(refused, original.len());
        let mut cuts = 0;
        let whole = original.len() - 1;
        for (i, _) in original
            .iter()
            .enumerate()
            .filter(|(i, b)| **b == b'\n' && *i < whole)
        {
            cuts += 1;
            assert!(
                check(&original[..i + 1], &format!("cut after byte {i}")),
                "a journal cut at a line boundary is shorter than the record"
            );
        }
        assert!(check(&[], "emptied"));
        assert!(cuts > 40, "{cuts} lines");
        // Put back whole, it resumes.
        assert!(!check(&original, "whole"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
