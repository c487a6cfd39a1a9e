//! The game folder: where a game's files are (a new folder per game under `[record] dir`, or the
//! unfinished one a restarted daemon resumes), the blind players' score files in it (the names of
//! the folder's files are the core's, `tactus_core::folder`), its mode, and what a failed write
//! left behind.
//!
//! The files are kept beside it: `record` (the record writer: a thread that rewrites `game.pgn`,
//! `scoresheet.txt`, `blind-score.brf`, `blind-score.txt` and an adjourned game's envelope after
//! every move, and appends the new moves to the audio scoresheet `blind-score.wav` and its cue
//! list),
//! `lines` (`touches.txt`, every lift on both boards, and the notes the hub adds to
//! `transcript.txt`, appended line by line; the speech task writes the spoken lines to the same
//! file) and `outage` (what `status` and the arbiter are told while a file is not written). Their
//! items are used from here (`files::RecordWriter`, `files::LineLog`, ...).
//!
//! Trust: the output folder, and every folder and link on the way to it, must be the daemon's
//! user's or root's and closed to other users (a sticky folder like /tmp may be on the way;
//! [`check_record_dir`], with the store's `trusted` walk), only folders the daemon's user owns are
//! resumed, a game folder is 0700 (0750 with `[console] group`: the journal in it holds the sealed
//! move) and is held open from the moment it is made or found trusted: its lock, journal, the
//! transcript (the speech task's lines and the hub's notes), `touches.txt`, the arbiter's token,
//! record files and audio scoresheets are opened relative to it, never through its path (the record
//! writer checks before every record that its path still leads there, and reports an outage when it
//! does not); files appended to are created 0600 and never opened through a symbolic link.

mod lines;
mod outage;
mod record;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tracing::{debug, warn};

pub use self::{
    lines::{LineLog, note_line, touch_line},
    outage::{outage_news, outage_status},
    record::{
        AudioSettings, BlindScore, RECORD_RETRY_FIRST, RECORD_RETRY_MAX, RecordHealth,
        RecordSettings, RecordSnapshot, RecordWriter, write_audio_scores, write_envelope,
        write_record,
    },
};
use super::journal;
pub use super::uid::daemon_uid;
use crate::store::{
    at::At,
    audio::AudioScoresheet,
    trusted::{Last, TrustedDir, check_folder},
};
use tactus_core::{
    announce::voice::RecordWords,
    folder::{BLIND_SCORE_STEM, JOURNAL_FILE, MARK_FILE},
    journal::NothingPlayed,
    record::date::civil,
};

/// The record's files, named in the core with the folder's others; here too, where they were
/// declared before.
pub use tactus_core::folder::{
    BRAILLE_FILE, BRF_FILE, ENVELOPE_PREFIX, PGN_FILE, TEXT_FILE, TOUCHES_FILE, TRANSCRIPT_FILE,
    WAV_FILE,
};

/// A blind player's own scoresheets (F.5): the Braille score for an embosser (`.brf`) and for a
/// display (`.txt`), and the audio recording (`.wav`) with its cue list. `blind-score.*` at a
/// table with one blind player; with two, `blind-score-white.*` and `blind-score-black.*`. The
/// Braille score is headed in his language: his voice pack's `[record]` words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreFiles {
    stem: String,
    /// The Braille score's headings (None: the Braille profile's own).
    headings: Option<RecordWords>,
}

impl ScoreFiles {
    /// The scoresheets of the blind player of `seat` (None: the table's one blind player).
    pub fn of(seat: Option<shakmaty::Color>) -> ScoreFiles {
        ScoreFiles {
            stem: match seat {
                None => BLIND_SCORE_STEM.into(),
                Some(c) => format!("{BLIND_SCORE_STEM}-{c}"),
            },
            headings: None,
        }
    }

    /// These scoresheets with the Braille score headed in `words` (a voice pack's `[record]`:
    /// the language the player hears; None keeps the Braille profile's words).
    pub fn headed_in(mut self, words: Option<RecordWords>) -> ScoreFiles {
        self.headings = words;
        self
    }

    /// The words the Braille score is headed with, if not the Braille profile's.
    pub fn headings(&self) -> Option<&RecordWords> {
        self.headings.as_ref()
    }

    /// The scoresheets of each blind player at a table whose blind seats are `blind`.
    pub fn at_table(blind: shakmaty::ByColor<bool>) -> Vec<(shakmaty::Color, ScoreFiles)> {
        let one = blind.white != blind.black;
        shakmaty::Color::ALL
            .into_iter()
            .filter(|&c| blind[c])
            .map(|c| (c, ScoreFiles::of((!one).then_some(c))))
            .collect()
    }

    pub fn brf(&self) -> String {
        format!("{}.brf", self.stem)
    }
    pub fn braille(&self) -> String {
        format!("{}.txt", self.stem)
    }
    pub fn wav(&self) -> String {
        format!("{}.wav", self.stem)
    }
    pub fn cues(&self) -> String {
        AudioScoresheet::cue_path_for(Path::new(&self.wav()))
            .to_string_lossy()
            .into_owned()
    }
    /// A recording written anew (the game changed other than by growing: a takeback, a
    /// correction) is made in this hidden file, then renamed over [`ScoreFiles::wav`].
    pub(super) fn audio_temp(&self) -> String {
        format!(".{}.tmp.wav", self.stem)
    }
    pub(super) fn audio_temp_cues(&self) -> String {
        AudioScoresheet::cue_path_for(Path::new(&self.audio_temp()))
            .to_string_lossy()
            .into_owned()
    }
    /// Every file of these scoresheets.
    pub fn all(&self) -> Vec<String> {
        vec![self.brf(), self.braille(), self.wav(), self.cues()]
    }
}

/// Every file a game folder holds once the first record has been written, at a table with one
/// blind player.
pub fn all_files() -> Vec<String> {
    all_files_at(shakmaty::ByColor {
        white: true,
        black: false,
    })
}

/// Every file a game folder holds once the first record has been written, at a table whose
/// blind seats are `blind`.
pub fn all_files_at(blind: shakmaty::ByColor<bool>) -> Vec<String> {
    let mut files: Vec<String> = [
        PGN_FILE,
        TEXT_FILE,
        TRANSCRIPT_FILE,
        TOUCHES_FILE,
        JOURNAL_FILE,
        MARK_FILE,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (_, scores) in ScoreFiles::at_table(blind) {
        files.extend(scores.all());
    }
    files
}

/// A name safe in a folder name: letters, digits and `-`, at most 24 characters.
fn folder_word(name: &str) -> String {
    let word: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    let word = word
        .split('-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let word: String = word.chars().take(24).collect();
    if word.is_empty() {
        "player".into()
    } else {
        word
    }
}

/// The mode of a game folder: the journal in it holds the sealed move (kept secret until the
/// envelope is opened at the resumption), so only the daemon's user may enter it; with `[console]
/// group`, that group may read the record too (0750), never write.
pub const FOLDER_MODE: u32 = 0o700;
/// The game folder's mode when `[console] group` is set.
pub const FOLDER_MODE_GROUP: u32 = 0o750;

/// Make the output folder if needed and check that nobody but the daemon's user (or root) can
/// plant a game in it or re-point it: the output folder and every folder and link on the way to
/// it must be trusted ([`check_folder`]: the daemon's user's or root's, the output folder closed
/// to other users, a folder on the way only if sticky). Else another user could have a daemon
/// running as root write the record where he likes, or resume a game of his. Refused naming the
/// key, the folder and its owner.
pub fn check_record_dir(dir: &Path) -> Result<()> {
    // What exists of the path first: `create_dir_all` would follow another user's link, or make
    // the folder where he can rename it.
    trusted_record_dir(dir)?;
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "cannot create the output folder {} (key record.dir)",
            dir.display()
        )
    })?;
    trusted_record_dir(dir)
}

/// The output folder (key record.dir) as far as it exists, checked with [`check_folder`].
pub fn trusted_record_dir(dir: &Path) -> Result<()> {
    check_folder(dir, Last::Private).map(drop).map_err(|e| {
        anyhow::anyhow!(
            "the output folder {} (key record.dir) cannot be trusted: {e}. Another user could \
             then make tactus write the game's files where he likes, or resume a game of his; \
             use a folder of the daemon's user whose every folder on the way belongs to it or \
             to root and cannot be written by other users (a sticky one like /tmp may be on the \
             way; see [record] dir in the README)",
            dir.display()
        )
    })
}

/// The broadcast folder (key web.broadcast_dir) as far as it exists, trusted as the output
/// folder is ([`check_folder`], [`Last::Private`]): another user who could re-point it, or write
/// in it, could have tactus write `games.pgn` where he likes, or swap in a game of his for the
/// broadcaster to show.
pub fn trusted_broadcast_dir(dir: &Path) -> Result<()> {
    check_folder(dir, Last::Private).map(drop).map_err(|e| {
        anyhow::anyhow!(
            "the broadcast folder {} (key web.broadcast_dir) cannot be trusted: {e}. Another \
             user could then make tactus write games.pgn where he likes, or put a game of his in \
             its place for the broadcast; use a folder of the daemon's user whose every folder \
             on the way belongs to it or to root and cannot be written by other users (a sticky \
             one like /tmp may be on the way), as for [record] dir",
            dir.display()
        )
    })
}

/// The broadcast folder (key web.broadcast_dir), made if need be ([`trusted_broadcast_dir`]
/// before and after) and held open: `games.pgn` is written in it, never through its path.
pub fn open_broadcast_dir(dir: &Path) -> Result<TrustedDir> {
    trusted_broadcast_dir(dir)?;
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "cannot create the broadcast folder {} (key web.broadcast_dir)",
            dir.display()
        )
    })?;
    trusted_broadcast_dir(dir)?;
    TrustedDir::open(dir).with_context(|| {
        format!(
            "cannot open the broadcast folder {} (key web.broadcast_dir)",
            dir.display()
        )
    })
}

/// Make a new game folder under `dir`: `2026-11-30_143005_White-Black`, mode 0700 (0750 and
/// the group `group` when one is given: the console's group may read the record). It is made
/// in the output folder held open ([`TrustedDir::make_dir`]) after [`check_record_dir`], and its
/// group and mode are set through the new folder itself, so no path is followed twice. Returned
/// held open: the game's files are made in it, never through its path.
pub fn new_game_folder(
    dir: &Path,
    white: &str,
    black: &str,
    unix_ms: u64,
    group: Option<u32>,
) -> Result<TrustedDir> {
    use std::os::unix::fs::PermissionsExt;
    check_record_dir(dir)?;
    let record = TrustedDir::open(dir).with_context(|| {
        format!(
            "cannot open the output folder {} (key record.dir)",
            dir.display()
        )
    })?;
    let (y, mo, d, h, mi, s) = civil(unix_ms);
    let stem = format!(
        "{y:04}-{mo:02}-{d:02}_{h:02}{mi:02}{s:02}_{}-{}",
        folder_word(white),
        folder_word(black)
    );
    let mode = if group.is_some() {
        FOLDER_MODE_GROUP
    } else {
        FOLDER_MODE
    };
    for n in 1..1000 {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        let path = dir.join(&name);
        match record.make_dir(&name, mode) {
            Ok(folder) => {
                // The group first, then the mode (the umask may have taken bits away; it never
                // adds any).
                if let Some(gid) = group {
                    std::os::unix::fs::fchown(folder.as_file(), None, Some(gid)).with_context(
                        || {
                            format!(
                                "cannot give the game folder {} to the group {gid} (key \
                                 console.group); the daemon's user must be a member of it",
                                path.display()
                            )
                        },
                    )?;
                }
                folder
                    .as_file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))
                    .with_context(|| {
                        format!("cannot protect the game folder {}", path.display())
                    })?;
                return Ok(folder);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("cannot create the game folder {}", path.display()));
            }
        }
    }
    anyhow::bail!(
        "cannot find a free game folder name {stem} in {}",
        dir.display()
    )
}

/// The newest game folder under `dir` whose journal has no end line (a game to resume).
///
/// Never guesses: a damaged journal anywhere is an error (the caller refuses to start, naming
/// the folder, the line and the choices), since the damaged game may be the one to resume and a
/// fresh game in its place would tell the blind player a wrong board. So is a symbolic link as a
/// game folder or as its journal: never followed, and never passed over while a new game begins
/// (the game it leads to may be the one to resume). Folders another user owns are passed over
/// with a warning (they are not the daemon's games); so is a journal with no whole line (the
/// daemon stopped while creating it: nothing was played).
pub fn find_unfinished(dir: &Path) -> Result<Option<PathBuf>> {
    use std::os::unix::fs::MetadataExt;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| {
                format!(
                    "cannot look for an unfinished game in {} (key record.dir)",
                    dir.display()
                )
            });
        }
    };
    check_record_dir(dir)?;
    let uid = daemon_uid();
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry
            .with_context(|| format!("cannot look for an unfinished game in {}", dir.display()))?;
        let path = entry.path();
        let Ok(folder) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let journal_path = path.join(JOURNAL_FILE);
        // A link where a game folder or its journal should be: the game it leads to may be the
        // one to resume, and a new game in its place would begin over it in silence. Neither
        // followed nor passed over: refused, with what to do. (A link to no folder is no game.)
        if folder.file_type().is_symlink() {
            if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                return Err(linked_game("the game folder", &path, &path, dir));
            }
            warn!(
                "not resuming {}: a symbolic link to no folder",
                path.display()
            );
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&journal_path) else {
            // A record of an unfinished game without its journal: the journal was deleted or
            // moved. Never a silent new game in its place.
            if folder.is_dir()
                && folder.uid() == uid
                && let Some(mark) = journal::read_mark(&path.join(MARK_FILE))?
                && !mark.finished
            {
                return Err(journal::read_against_record(&path)
                    .err()
                    .unwrap_or_else(|| {
                        anyhow::anyhow!("{}: the journal is missing", path.display())
                    }));
            }
            continue;
        };
        if meta.file_type().is_symlink() {
            return Err(linked_game("the journal", &journal_path, &path, dir));
        }
        if !folder.is_dir() || folder.uid() != uid || !meta.is_file() || meta.uid() != uid {
            warn!(
                "not resuming {}: {}",
                path.display(),
                if !meta.is_file() {
                    "its journal is not a regular file"
                } else {
                    "it belongs to another user, not to the daemon's"
                }
            );
            continue;
        }
        // A finished game is passed over on its last line alone: its journal, however long
        // (or damaged in the middle), is not read.
        if journal::ends_finished(&journal_path).unwrap_or(false) {
            continue;
        }
        match journal::read(&journal_path) {
            Ok(j) if !j.is_finished() => {
                candidates.push((meta.modified().unwrap_or(std::time::UNIX_EPOCH), path));
            }
            Ok(_) => {}
            Err(e) if e.downcast_ref::<NothingPlayed>().is_some() => {
                // Empty beside a record: the journal was emptied, not left by a crash.
                if journal::read_mark(&path.join(MARK_FILE))?.is_some() {
                    return journal::read_against_record(&path).map(|_| Some(path));
                }
                warn!("not resuming {}: {e:#}", path.display())
            }
            Err(e) => return Err(e),
        }
    }
    candidates.sort();
    Ok(candidates.pop().map(|(_, p)| p))
}

/// The refusal of a symbolic link found as a game folder or as its journal (`what`, at `link`)
/// in the output folder `dir`: why tactus neither follows it nor starts a new game over it, and
/// the choices.
fn linked_game(what: &str, link: &Path, folder: &Path, dir: &Path) -> anyhow::Error {
    let target = std::fs::read_link(link).map_or_else(
        |e| format!("an unreadable target: {e}"),
        |t| t.display().to_string(),
    );
    anyhow::anyhow!(
        "{what} {} is a symbolic link (to {target}): tactus follows no link in its output folder \
         (key record.dir), since whoever can change a link could have it resume or overwrite a \
         game of his choosing, and it starts no new game over a game it cannot see. Put the \
         game's folder itself, with its {JOURNAL_FILE}, in place of the link and run `tactus run \
         --resume {}`, or move the link out of {} and run `tactus run` again, or start a new \
         game with `tactus run --new` (the link is left as it is)",
        link.display(),
        folder.display(),
        dir.display()
    )
}

/// Remove what a failed or interrupted write left in a game folder: the atomic writes'
/// temporary files (`.game.pgn.tmp-...`) and the audio scoresheet's (`.blind-score.tmp.wav`
/// and its cue list). Only hidden files of those exact shapes are touched.
pub fn remove_leftovers(folder: At<'_>) {
    let Ok(names) = folder.names() else {
        return;
    };
    for name in names {
        let Some(name) = name.to_str() else {
            continue;
        };
        let audio_temp = [
            None,
            Some(shakmaty::Color::White),
            Some(shakmaty::Color::Black),
        ]
        .into_iter()
        .map(ScoreFiles::of)
        .any(|f| name == f.audio_temp() || name == f.audio_temp_cues());
        let ours = name.starts_with('.') && (name.contains(".tmp-") || audio_temp);
        if ours && folder.is_file(name) {
            let path = folder.file_path(name);
            match folder.remove(name) {
                Ok(()) => debug!("removed the leftover {}", path.display()),
                Err(e) => warn!("cannot remove the leftover {}: {e}", path.display()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_safe_and_unique() {
        let dir = crate::store::scratch("folders");
        let a = new_game_folder(&dir, "Müller, Hans/../x", "", 0, None).unwrap();
        let b = new_game_folder(&dir, "Müller, Hans/../x", "", 0, None).unwrap();
        let (a, b) = (a.path(), b.path());
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, "1970-01-01_000000_Müller-Hans-x-player");
        assert!(b.to_string_lossy().ends_with("-2"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, point 3: a failed audio scoresheet left `.blind-score.tmp.wav` (and its cue
    /// list) behind to fill the disk further; leftovers of our exact shapes are removed, nothing
    /// else is.
    #[test]
    fn leftovers_of_failed_writes_are_removed() {
        let dir = crate::store::scratch("leftovers");
        for name in [
            ".blind-score.tmp.wav",
            ".blind-score.tmp.cues.txt",
            ".game.pgn.tmp-123-4",
            "game.pgn",
            ".hidden-of-someone",
        ] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let (held, _) = crate::store::at::OpenFolder::of_file(&dir.join("x")).unwrap();
        remove_leftovers(held.at());
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".hidden-of-someone", "game.pgn"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_file_is_listed() {
        let files = all_files();
        assert!(
            files.contains(&"blind-score.cues.txt".to_string()),
            "{files:?}"
        );
        assert_eq!(files.len(), 10);
        assert!(files.contains(&MARK_FILE.to_string()), "{files:?}");
        let two = all_files_at(shakmaty::ByColor {
            white: true,
            black: true,
        });
        assert_eq!(two.len(), 14);
        for name in [
            "blind-score-white.brf",
            "blind-score-black.brf",
            "blind-score-black.wav",
            "blind-score-white.cues.txt",
        ] {
            assert!(two.contains(&name.to_string()), "{name}: {two:?}");
        }
    }
}
