//! The mark the record leaves of the journal it was written from ([`RecordMark`], `record.json`
//! in the game folder): whenever the record files (`game.pgn`, the scoresheets) are written, the
//! mark says from how many journal entries, with which checksum at the last of them
//! ([`super::check`]), for which game, and how many half-moves the record holds. A journal cut
//! at a line boundary, emptied, or replaced by another game's reads cleanly but cannot match the
//! mark: [`check_mark`] refuses it, so a game is never resumed shorter than its record, and the
//! record is never overwritten with fewer moves. A journal that came with its own mark (another
//! game's, put in the folder with its `record.json`), or whose mark is gone, is held against the
//! record itself: [`check_record`] refuses a journal whose game is not the one `game.pgn` shows
//! ([`OtherGame`]), since a game folder belongs to one game.
//!
//! Apart from the line checksums: the mark holds a journal as read ([`JournalFile`]) against the
//! record, and the reader needs the checksums, so the reader stands between the two.
//!
//! Pure: bytes and values in, bytes and verdicts out.

use std::{fmt, path::PathBuf};

use serde::{Deserialize, Serialize};

use super::{check::hex, parse::JournalFile};
use crate::rules::{Millis, pgn::PgnGame};

/// The record mark's file name in a game folder (named with the folder's other files).
pub use crate::folder::MARK_FILE;

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
    /// The game time the record was written at (None: a mark of an earlier version): what a
    /// journal cut short of the mark lost of the game's time is said from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<Millis>,
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

    /// This mark, of a record written at `t` on the game's time line.
    pub fn at(mut self, t: Millis) -> RecordMark {
        self.t = Some(t);
        self
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
    /// Boxed: the error stays small on the `Ok` path of every check.
    pub mark: Box<RecordMark>,
}

/// The game folder a journal at `path` is in, as the messages name it.
fn folder_of(path: &std::path::Path) -> String {
    path.parent()
        .map_or_else(|| ".".into(), |p| p.display().to_string())
}

impl fmt::Display for RecordAhead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let folder = folder_of(&self.path);
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
        mark: Box::new(mark.clone()),
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
        let lost = match mark.t {
            Some(t) if t > journal.last_time() => format!(
                ": the last {} input{} of the game are lost, up to {} of play after {} on the \
                 game's time line (the clocks would stand that much fuller, and whatever was \
                 done then would be undone)",
                mark.entries - held,
                if mark.entries - held == 1 { "" } else { "s" },
                duration(t - journal.last_time()),
                duration(journal.last_time()),
            ),
            _ => String::new(),
        };
        return Err(ahead(format!(
            "the journal holds {held} entr{}, {} fewer than the record was written from (lines \
             were cut off its end{lost})",
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

/// A game folder's record (`game.pgn`) that is not of the game its journal replays to: another
/// game's journal was put in the folder, with its own mark (`record.json`) or none. A game
/// folder belongs to one game: resuming the other would overwrite the record with another game.
/// The message says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct OtherGame {
    /// The journal's path.
    pub path: PathBuf,
    pub what: String,
}

impl fmt::Display for OtherGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let folder = folder_of(&self.path);
        write!(
            f,
            "the journal {} is not of the game the record in {folder} shows: {}. A game folder \
             holds one game: tactus resumes no other game's journal in it and overwrites no \
             record with another game. Put the folder's own journal back (a \
             `journal.jsonl.damaged-*` file beside it, or a backup) and run `tactus run --resume \
             {folder}`; to go on with the other game, move its journal (with its record.json, if \
             it has one) into a folder of its own under the output folder and give that folder \
             to `tactus run --resume`; or start a new game with `tactus run --new` (this folder \
             is kept as it is)",
            self.path.display(),
            self.what,
        )
    }
}

/// Whether the record in a game folder (`record`: its `game.pgn` read) is of the game its
/// journal replays to (`journal`, replayed to the moves `played`), as the record's mark alone
/// cannot tell when the mark came with the journal (or is gone): the players must be the
/// header's, and the record's moves the journal's first moves, or (a takeback, a retrace
/// since the record was written) as many as the mark, checked against the same journal, says
/// the record holds. A record of more or other moves would be overwritten with another game.
pub fn check_record(
    journal: &JournalFile,
    mark: Option<&RecordMark>,
    record: &PgnGame,
    played: &[shakmaty::Move],
) -> Result<(), OtherGame> {
    let other = |what: String| OtherGame {
        path: journal.path.clone(),
        what,
    };
    let tag = |tags: &[(String, String)], name: &str| {
        tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    };
    for name in ["White", "Black"] {
        if let (Some(ours), Some(theirs)) = (
            tag(&journal.header.tags, name),
            record.tag(name).map(str::to_string),
        ) && ours != theirs
        {
            return Err(other(format!(
                "game.pgn is of a game whose {name} is {theirs:?}, the journal's game's is \
                 {ours:?}"
            )));
        }
    }
    let shown = record.moves.len();
    if played.starts_with(&record.moves) || mark.is_some_and(|m| m.half_moves == shown) {
        return Ok(());
    }
    let parts = played
        .iter()
        .zip(&record.moves)
        .take_while(|(a, b)| a == b)
        .count();
    Err(other(format!(
        "game.pgn holds {shown} half-move{}, the journal's game holds {} of them (it has {} in all){}",
        if shown == 1 { "" } else { "s" },
        if parts == 0 {
            "none".to_string()
        } else {
            format!("only the first {parts}")
        },
        played.len(),
        match mark {
            Some(m) => format!(
                ", and the record's mark (record.json, game {}) says {} half-moves: it came with \
                 the journal, not with the record",
                shown_id(&m.game),
                m.half_moves
            ),
            None => ", and record.json, which says what the record was written from, is missing"
                .to_string(),
        }
    )))
}

/// A span of game time as people say it: `25 s`, `3 min 5 s`, `1 h 2 min 3 s`.
fn duration(ms: Millis) -> String {
    let s = ms / 1000;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, m, s) => format!("{h} h {m} min {s} s"),
    }
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

    #[test]
    fn a_record_is_replaced_only_by_one_from_as_many_entries() {
        let mark = |entries| RecordMark {
            game: "g".into(),
            entries,
            check: "00000000".into(),
            half_moves: 3,
            finished: false,
            t: None,
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
