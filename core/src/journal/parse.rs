//! Reading a journal's bytes back: the lines, their order and their numbers checked, damage
//! named by file and line. Pure: the shell reads the bytes (without following links) and hands
//! them here with the path they came from, for the messages.
//!
//! Only a last line without its newline is torn (a crash or a power cut in the middle of the one
//! `write`); every other unreadable line, a missing or second header, an input after the end
//! line, and an entry whose number is not the next one (a line lost or repeated in the middle)
//! is [`Damage`]: the caller refuses to resume and says what to do, it never guesses the game.
//!
//! Each input and end line carries its number (`"n"`, counting from 1 after the header), written
//! in front of the entry's own fields, so that the entry types of [`super::format`] stay as they
//! are and journals written before the numbers read as before (a line without `"n"` is not
//! checked). From format version 2 every line also carries its chained checksum (`"c"`,
//! [`super::check`]), checked before anything else of the line is believed: a line whose bytes
//! changed in any way is damage, named as such.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use anyhow::{Result, bail};
use serde::Deserialize;

use super::{
    check::split_check,
    lines::{Entry, FORMAT_VERSION, Header},
};
use crate::rules::Millis;

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
    /// The chained checksum after each line: the header's first, then one per entry (empty
    /// for a journal of format 1, which has none).
    pub checks: Vec<u32>,
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
                Entry::Input { t, .. } | Entry::Table { t, .. } | Entry::End { t, .. } => Some(*t),
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

/// Parse a journal's bytes (as the shell read them from `path`).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<JournalFile> {
    let mut parser = Parser::new(path);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        parser.push(line)?;
    }
    parser.finish()
}

/// A journal read line by line, as the shell streams it from the disk (a long journal is never
/// held whole in memory as bytes): [`Parser::push`] each line with its newline, in order, then
/// [`Parser::finish`].
pub struct Parser<'a> {
    read: Reader<'a>,
    good_len: u64,
    torn: bool,
    number: usize,
}

impl<'a> Parser<'a> {
    pub fn new(path: &'a Path) -> Parser<'a> {
        Parser {
            read: Reader {
                path,
                header: None,
                entries: Vec::new(),
                ended_at: None,
                checks: Vec::new(),
            },
            good_len: 0,
            torn: false,
            number: 0,
        }
    }

    /// The next line, with its newline; the last may lack it (torn).
    pub fn push(&mut self, line: &[u8]) -> Result<()> {
        if self.torn {
            // Nothing follows a line without its newline.
            return Ok(());
        }
        self.number += 1;
        // Only the last line can lack its newline: the one write of a line was cut off by a
        // crash, and everything before it was synced. A complete line that does not parse was
        // written whole and damaged later: that is not a tear, and its input is not dropped.
        let Some(body) = line.strip_suffix(b"\n") else {
            self.torn = !line.is_empty();
            return Ok(());
        };
        if !body.iter().all(u8::is_ascii_whitespace) {
            self.read.line(self.number, body)?;
        }
        self.good_len += line.len() as u64;
        Ok(())
    }

    /// The journal as read.
    pub fn finish(self) -> Result<JournalFile> {
        self.read.finish(self.good_len, self.torn)
    }
}

/// The lines read so far, checked one by one.
struct Reader<'a> {
    path: &'a Path,
    header: Option<Header>,
    entries: Vec<Entry>,
    /// The line number of the end line, once read.
    ended_at: Option<usize>,
    /// The chained checksums of the lines read so far.
    checks: Vec<u32>,
}

impl Reader<'_> {
    fn damage(&self, line: usize, what: String) -> anyhow::Error {
        anyhow::Error::new(Damage {
            path: self.path.to_owned(),
            line,
            what,
        })
    }

    /// One whole, non-blank line (`number` counts from 1).
    fn line(&mut self, number: usize, line: &[u8]) -> Result<()> {
        // The checksum first: what a changed line says is not to be believed.
        let checked = match split_check(line) {
            Some((check, covered)) => {
                let previous = self.checks.last().copied().unwrap_or(0);
                let expected = crc32c::crc32c_append(previous, &covered);
                if check != expected {
                    // A line lost or repeated before this one: its number says so more
                    // plainly than the checksum.
                    let n = serde_json::from_slice::<Numbered>(line)
                        .ok()
                        .and_then(|x| x.n);
                    let due = self.entries.len() as u64 + 1;
                    if let Some(n) = n
                        && n != due
                        && self.header.is_some()
                    {
                        return Err(self.damage(number, misnumbered(n, due)));
                    }
                    return Err(self.damage(
                        number,
                        format!(
                            "its checksum does not match: the line was changed after it was \
                             written, or a line before it was changed, lost or put in \
                             (checksum {check:08x}, the lines up to it give {expected:08x}): \
                             '{}'",
                            shown(line)
                        ),
                    ));
                }
                self.checks.push(check);
                true
            }
            None => false,
        };
        if !checked && self.header.as_ref().is_some_and(|h| h.version >= 2) {
            return Err(self.damage(
                number,
                format!(
                    "it has no checksum, which every line of this journal's format has: '{}'",
                    shown(line)
                ),
            ));
        }
        if !checked && !self.checks.is_empty() {
            return Err(self.damage(
                number,
                format!(
                    "it has no checksum where the lines before it have one: '{}'",
                    shown(line)
                ),
            ));
        }
        let entry: Entry = serde_json::from_slice(line).map_err(|e| {
            self.damage(
                number,
                format!("it cannot be read ({e}): '{}'", shown(line)),
            )
        })?;
        let n = serde_json::from_slice::<Numbered>(line)
            .ok()
            .and_then(|x| x.n);
        match entry {
            Entry::Header(h) => {
                if !checked && h.version >= 2 {
                    return Err(self.damage(
                        number,
                        format!(
                            "the header has no checksum, which a journal of format {} has",
                            h.version
                        ),
                    ));
                }
                self.header(number, *h)
            }
            other => self.entry(number, other, n),
        }
    }

    /// The header: once, first, and of a format this tactus reads.
    fn header(&mut self, number: usize, h: Header) -> Result<()> {
        if self.header.is_some() {
            return Err(self.damage(number, "a second header".into()));
        }
        if !self.entries.is_empty() {
            return Err(self.damage(number, "a header after the first inputs".into()));
        }
        if h.version > FORMAT_VERSION {
            bail!(
                "{} was written by a newer tactus (journal format {}, this one reads up \
                 to {FORMAT_VERSION}); update tactus to resume it",
                self.path.display(),
                h.version
            );
        }
        self.header = Some(h);
        Ok(())
    }

    /// An input or end line: after the header, before any end line, and numbered (`n`, where
    /// the journal has numbers) as the next one.
    fn entry(&mut self, number: usize, entry: Entry, n: Option<u64>) -> Result<()> {
        if self.header.is_none() {
            return Err(self.damage(
                number,
                "an input before the header (the header line is missing)".into(),
            ));
        }
        if let Some(end_line) = self.ended_at {
            return Err(self.damage(
                number,
                format!("a line after the end of the game (the end line is line {end_line})"),
            ));
        }
        let expected = self.entries.len() as u64 + 1;
        if let Some(n) = n
            && n != expected
        {
            return Err(self.damage(number, misnumbered(n, expected)));
        }
        if matches!(entry, Entry::End { .. }) {
            self.ended_at = Some(number);
        }
        self.entries.push(entry);
        Ok(())
    }

    /// The journal as read, once every line is: it must have had its header.
    fn finish(self, good_len: u64, torn: bool) -> Result<JournalFile> {
        let Some(header) = self.header else {
            // No whole line at all: the crash came while the header was written, before any
            // input (an input is journaled only after its header is on the disk). Nothing was
            // played. (Every whole line read was blank: any other was a header or an error.)
            if self.entries.is_empty() {
                return Err(anyhow::Error::new(NothingPlayed {
                    path: self.path.to_owned(),
                }));
            }
            return Err(self.damage(1, "no header line".into()));
        };
        Ok(JournalFile {
            path: self.path.to_owned(),
            header,
            entries: self.entries,
            good_len,
            torn,
            checks: self.checks,
        })
    }
}

/// What is wrong with an entry numbered `n` where `due` was due.
fn misnumbered(n: u64, due: u64) -> String {
    format!(
        "entry number {n} where {due} was due: {}",
        if n > due {
            "lines are missing before it"
        } else {
            "a line is repeated or out of order"
        }
    )
}

/// The start of a damaged line as the message shows it: NULs and escape codes shown, not sent
/// to a terminal.
fn shown(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(60)])
        .chars()
        .flat_map(|c| {
            let shown: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            shown
        })
        .collect()
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
