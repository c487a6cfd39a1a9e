//! A journal that proves itself: every line's checksum, chained through the file, and the mark
//! the record leaves of the journal it was written from.
//!
//! **Checksums.** From format version 2 every line carries `"c"`, eight hex digits: the CRC-32C
//! of the file up to and including this line, each line taken without its `"c"` field (the
//! checksum of line k continues the one of line k-1, `crc32c_append`). So one changed byte
//! anywhere, a line lost, repeated, swapped or taken from another journal breaks the checksum of
//! that line and of every line after it, and the reader names the first. The field stands in
//! front (`{"c":"..","kind":"header",..}`, `{"n":7,"c":"..","kind":..}`) for people reading the
//! file, and the rest of the line is the JSON the entry types write, unchanged.
//!
//! **The record's mark** ([`RecordMark`], `record.json` in the game folder): whenever the record
//! files (`game.pgn`, the scoresheets) are written, the mark says from how many journal entries,
//! with which checksum at the last of them, for which game, and how many half-moves the record
//! holds. A journal cut at a line boundary, emptied, or replaced by another game's reads
//! cleanly but cannot match the mark: [`check_mark`] refuses it, so a game is never resumed
//! shorter than its record, and the record is never overwritten with fewer moves.
//!
//! Pure: bytes and values in, bytes and verdicts out.

use std::{fmt, path::PathBuf};

use serde::{Deserialize, Serialize};

use super::{format::Entry, parse::JournalFile};

/// The record mark's file name in a game folder.
pub const MARK_FILE: &str = "record.json";

/// `"c":"` + 8 hex digits + `",`: the checksum field as it stands in a line.
const FIELD_LEN: usize = 15;

/// A line of the journal (with its newline) for `entry`, numbered `n` (ignored for the header),
/// whose checksum continues `previous` (the checksum of the line before; 0 for the header).
/// Returns the line and its checksum.
pub fn encode_line(entry: &Entry, n: u64, previous: u32) -> serde_json::Result<(Vec<u8>, u32)> {
    let json = serde_json::to_vec(entry)?;
    // `{` + rest; the number first for entries (`{"n":7,`), then the checksum.
    let rest = json.get(1..).unwrap_or_default();
    let mut covered = b"{".to_vec();
    if !matches!(entry, Entry::Header(_)) {
        covered.extend_from_slice(format!("\"n\":{n},").as_bytes());
    }
    let at = covered.len();
    covered.extend_from_slice(rest);
    let check = crc32c::crc32c_append(previous, &covered);
    let mut line = Vec::with_capacity(covered.len() + FIELD_LEN + 1);
    line.extend_from_slice(&covered[..at]);
    line.extend_from_slice(format!("\"c\":\"{check:08x}\",").as_bytes());
    line.extend_from_slice(&covered[at..]);
    line.push(b'\n');
    Ok((line, check))
}

/// A whole journal's bytes for `entries` (the header first), numbered and checksummed as the
/// daemon writes them: for tests and tools that make journals without a daemon.
pub fn encode_journal(entries: &[Entry]) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let (mut previous, mut n) = (0, 0);
    for entry in entries {
        if !matches!(entry, Entry::Header(_)) {
            n += 1;
        }
        let (line, check) = encode_line(entry, n, previous)?;
        bytes.extend_from_slice(&line);
        previous = check;
    }
    Ok(bytes)
}

/// A line's checksum and the bytes it covers (the line without its `"c"` field), or None when
/// the line carries no checksum where one stands (`{"c":` or `{"n":<digits>,"c":`).
pub fn split_check(line: &[u8]) -> Option<(u32, Vec<u8>)> {
    let mut at = 1;
    if !line.starts_with(b"{") {
        return None;
    }
    if line[at..].starts_with(b"\"n\":") {
        at += 4;
        let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || line.get(at + digits) != Some(&b',') {
            return None;
        }
        at += digits + 1;
    }
    let field = line.get(at..at + FIELD_LEN)?;
    if !field.starts_with(b"\"c\":\"") || !field.ends_with(b"\",") {
        return None;
    }
    let hex = std::str::from_utf8(&field[5..13]).ok()?;
    if !hex
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return None;
    }
    let check = u32::from_str_radix(hex, 16).ok()?;
    let mut covered = line[..at].to_vec();
    covered.extend_from_slice(&line[at + FIELD_LEN..]);
    Some((check, covered))
}

/// The checksum shown in files and messages.
pub fn hex(check: u32) -> String {
    format!("{check:08x}")
}

/// What the record files of a game folder were written from (`record.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordMark {
    /// The game's identity (the journal header's `game`).
    pub game: String,
    /// How many input and end lines of the journal the record was written from.
    pub entries: u64,
    /// The checksum of the last of them (of the header when `entries` is 0), hex.
    pub check: String,
    /// The half-moves in the record (`game.pgn`).
    pub half_moves: usize,
    /// Whether the record is of a finished game.
    pub finished: bool,
}

impl RecordMark {
    /// The mark's file content (one JSON object and a newline).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// A mark read back, or what is wrong with it.
    pub fn from_bytes(bytes: &[u8]) -> Result<RecordMark, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }

    /// Whether a record written from `self` may be replaced by one written from `newer`: only
    /// by one of the same game from at least as many journal entries (never by a stale writer's,
    /// or from a journal that lost lines, or another game's), so that a record file is never
    /// overwritten with less than it showed.
    pub fn may_be_replaced_by(&self, newer: &RecordMark) -> bool {
        self.game == newer.game && newer.entries >= self.entries
    }
}

/// A journal that cannot be the one the record was written from: resuming it would play a
/// shorter or another game than the record shows. The message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RecordAhead {
    /// The journal's path.
    pub path: PathBuf,
    pub what: String,
    pub mark: RecordMark,
}

impl fmt::Display for RecordAhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let folder = self
            .path
            .parent()
            .map_or_else(|| ".".into(), |p| p.display().to_string());
        write!(
            f,
            "the journal of the game in {folder} does not hold the game its record shows: {}. \
             The record (game.pgn and the scoresheets, {} half-move{}) was written from {} journal \
             entr{} (checksum {}); tactus resumes nothing shorter than its record and overwrites \
             no record with fewer moves. Put the journal back from a copy (a \
             `journal.jsonl.damaged-*` file beside it, or a backup) and run `tactus run --resume \
             {folder}`, or start a new game with `tactus run --new` (this folder is kept as it is)",
            self.what,
            self.mark.half_moves,
            if self.mark.half_moves == 1 { "" } else { "s" },
            self.mark.entries,
            if self.mark.entries == 1 { "y" } else { "ies" },
            self.mark.check,
        )
    }
}

/// Whether `journal` holds what `mark` says the record was written from: the same game, at
/// least as many entries, the same checksum at the mark's last entry (so its first entries are
/// the very ones the record saw).
pub fn check_mark(journal: &JournalFile, mark: &RecordMark) -> Result<(), RecordAhead> {
    let ahead = |what: String| RecordAhead {
        path: journal.path.clone(),
        what,
        mark: mark.clone(),
    };
    if journal.header.game != mark.game {
        return Err(ahead(format!(
            "the journal is of another game (game {}, the record's is {})",
            shown_id(&journal.header.game),
            shown_id(&mark.game)
        )));
    }
    let held = journal.entries.len() as u64;
    if held < mark.entries {
        return Err(ahead(format!(
            "the journal holds {held} entr{}, {} fewer than the record was written from (lines \
             were cut off its end)",
            if held == 1 { "y" } else { "ies" },
            mark.entries - held
        )));
    }
    if let Some(check) = journal.checks.get(mark.entries as usize)
        && hex(*check) != mark.check
    {
        return Err(ahead(format!(
            "its entry {} has the checksum {}, the record's was {} (its first entries are not \
             the ones the record was written from)",
            mark.entries,
            hex(*check),
            mark.check
        )));
    }
    Ok(())
}

fn shown_id(id: &str) -> String {
    if id.is_empty() {
        "without identity".into()
    } else {
        id.chars()
            .filter(char::is_ascii_alphanumeric)
            .take(32)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{format::Entry, test_header};

    #[test]
    fn crc32c_is_castagnoli() {
        // The catalogued check value of CRC-32C (RFC 3720), not the zlib CRC-32's cbf43926.
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn a_line_carries_its_checksum_in_front_and_reads_back() {
        let header = Entry::Header(Box::new(test_header(shakmaty::Color::White, None)));
        let (line, check) = encode_line(&header, 0, 0).unwrap();
        assert!(
            line.starts_with(b"{\"c\":\""),
            "{}",
            String::from_utf8_lossy(&line)
        );
        let body = &line[..line.len() - 1];
        let (read, covered) = split_check(body).unwrap();
        assert_eq!(read, check);
        assert_eq!(crc32c::crc32c(&covered), check);
        // The line is JSON the entry types read.
        let back: Entry = serde_json::from_slice(body).unwrap();
        assert_eq!(back, header);
        let end = Entry::End {
            t: 5,
            result: "1-0".into(),
            reason: "resigned".into(),
        };
        let (line, second) = encode_line(&end, 7, check).unwrap();
        assert!(line.starts_with(b"{\"n\":7,\"c\":\""));
        let (read, covered) = split_check(&line[..line.len() - 1]).unwrap();
        assert_eq!(read, second);
        assert_eq!(crc32c::crc32c_append(check, &covered), second);
    }

    #[test]
    fn a_line_without_its_field_has_no_checksum() {
        assert_eq!(split_check(b"{\"n\":7,\"kind\":\"end\"}"), None);
        assert_eq!(split_check(b"{\"kind\":\"header\"}"), None);
        assert_eq!(split_check(b"{\"c\":\"0000000g\",\"kind\":1}"), None);
        assert_eq!(split_check(b"{\"c\":\"0000000A\",\"kind\":1}"), None);
        assert_eq!(split_check(b""), None);
    }

    #[test]
    fn a_record_is_replaced_only_by_one_from_as_many_entries() {
        let mark = |entries| RecordMark {
            game: "g".into(),
            entries,
            check: "00000000".into(),
            half_moves: 3,
            finished: false,
        };
        assert!(mark(10).may_be_replaced_by(&mark(10)));
        assert!(mark(10).may_be_replaced_by(&mark(11)));
        assert!(!mark(10).may_be_replaced_by(&mark(9)));
        let other = RecordMark {
            game: "h".into(),
            ..mark(1)
        };
        assert!(!mark(10).may_be_replaced_by(&other));
    }
}
