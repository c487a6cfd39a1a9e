//! The game folder and the files the daemon keeps in it.
//!
//! Owns: where a game's folder is (a new one per game under `[record] dir`, or the unfinished
//! one a restarted daemon resumes), the record writer (a thread that rewrites `game.pgn`,
//! `scoresheet.txt`, `blind-score.brf`, `blind-score.txt` and the audio scoresheet
//! `blind-score.wav` with its cue list after every move, each file atomically), `touches.txt`
//! (every lift on both boards, appended and flushed line by line), and the notes the hub adds to
//! `transcript.txt` (the speech task writes the spoken lines to the same file).
//!
//! It renders nothing itself: scoresheets come from [`tactus_core::record`], words from the voice
//! pack. A file that cannot be written is tried again (the record with a growing pause, a line
//! log with its next line), logged once when the outage starts and once when it ends, and can be
//! read while it lasts ([`RecordWriter::outage`], [`LineLog::failing`]); the game never stops
//! for it.
//!
//! Trust: the output folder must not be writable by other users, only folders the daemon's user
//! owns are resumed, a game folder is 0700 (0750 with `[console] group`: the journal in it holds
//! the sealed move), files appended to are created 0600 and never opened through a symbolic
//! link.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
    sync::mpsc as std_mpsc,
    thread::JoinHandle,
};

use anyhow::{Context, Result};
use shakmaty::{Piece, Square};
use tracing::{debug, error, info, warn};

use super::journal;
use crate::{
    store::{atomic::write_atomically, audio::AudioScoresheet, voices::Clips},
    wall::{time_of_day, unix_ms},
};
use tactus_core::{
    announce::voice::Style,
    arbiter::BoardId,
    journal::{JOURNAL_FILE, NothingPlayed},
    record::date::civil,
    record::{
        braille::{BrailleOptions, PageSize, Profile as BrailleProfile},
        envelope::Envelope,
        format::{self, Format},
        score::Score,
        wav::{self, Spacing},
    },
    rules::{Millis, game::Game},
};

pub const PGN_FILE: &str = "game.pgn";
pub const BRF_FILE: &str = "blind-score.brf";
pub const BRAILLE_FILE: &str = "blind-score.txt";
pub const TEXT_FILE: &str = "scoresheet.txt";
pub const WAV_FILE: &str = "blind-score.wav";
pub const TRANSCRIPT_FILE: &str = "transcript.txt";
pub const TOUCHES_FILE: &str = "touches.txt";
/// The adjournment envelope's record, as text and as Braille, one pair per adjournment:
/// `envelope-<move number>-<colour of the sealer>.txt` / `.brf`.
pub const ENVELOPE_PREFIX: &str = "envelope-";

/// The cue list of the audio scoresheet (`blind-score.cues.txt`).
pub fn cues_file() -> String {
    AudioScoresheet::cue_path_for(Path::new(WAV_FILE))
        .to_string_lossy()
        .into_owned()
}

/// Every file a game folder holds once the first record has been written.
pub fn all_files() -> Vec<String> {
    [
        PGN_FILE,
        BRF_FILE,
        BRAILLE_FILE,
        TEXT_FILE,
        WAV_FILE,
        TRANSCRIPT_FILE,
        TOUCHES_FILE,
        JOURNAL_FILE,
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([cues_file()])
    .collect()
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

unsafe extern "C" {
    /// POSIX `geteuid`: cannot fail, touches nothing.
    safe fn geteuid() -> u32;
}

/// The daemon's (effective) user id: the owner of every file and folder it trusts.
pub fn daemon_uid() -> u32 {
    geteuid()
}

/// Make the output folder if needed and check that nobody but the daemon's user (or root) can
/// plant a game in it: a folder other users can write to, or one owned by another user, is
/// refused, naming the key.
pub fn check_record_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "cannot create the output folder {} (key record.dir)",
            dir.display()
        )
    })?;
    let meta = std::fs::metadata(dir).with_context(|| {
        format!(
            "cannot look at the output folder {} (key record.dir)",
            dir.display()
        )
    })?;
    let mode = meta.permissions().mode();
    if mode & 0o002 != 0 {
        anyhow::bail!(
            "the output folder {} (key record.dir) is writable by every user (mode {:o}): \
             another user could plant a game for tactus to resume; use a folder of the \
             daemon's own (`chmod o-w` it, or give another key record.dir)",
            dir.display(),
            mode & 0o7777
        );
    }
    let uid = daemon_uid();
    if meta.uid() != uid && meta.uid() != 0 {
        anyhow::bail!(
            "the output folder {} (key record.dir) belongs to another user (uid {}, the daemon \
             runs as {uid}): that user could plant a game for tactus to resume; use a folder of \
             the daemon's own",
            dir.display(),
            meta.uid()
        );
    }
    Ok(())
}

/// Make a new game folder under `dir`: `2026-11-30_143005_White-Black`, mode 0700 (0750 and
/// the group `group` when one is given: the console's group may read the record).
pub fn new_game_folder(
    dir: &Path,
    white: &str,
    black: &str,
    unix_ms: u64,
    group: Option<u32>,
) -> Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    check_record_dir(dir)?;
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
        let path = dir.join(name);
        match std::fs::DirBuilder::new().mode(mode).create(&path) {
            Ok(()) => {
                // The group first, then the mode (the umask may have taken bits away; it never
                // adds any).
                if let Some(gid) = group {
                    std::os::unix::fs::chown(&path, None, Some(gid)).with_context(|| {
                        format!(
                            "cannot give the game folder {} to the group {gid} (key \
                             console.group); the daemon's user must be a member of it",
                            path.display()
                        )
                    })?;
                }
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                    .with_context(|| {
                        format!("cannot protect the game folder {}", path.display())
                    })?;
                return Ok(path);
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
/// fresh game in its place would tell the blind player a wrong board. Folders another user owns
/// and symbolic links are passed over with a warning (they are not the daemon's games); so is a
/// journal with no whole line (the daemon stopped while creating it: nothing was played).
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
        let Ok(meta) = std::fs::symlink_metadata(&journal_path) else {
            continue;
        };
        if !folder.is_dir() || folder.uid() != uid || !meta.is_file() || meta.uid() != uid {
            warn!(
                "not resuming {}: {}",
                path.display(),
                if folder.file_type().is_symlink() || meta.file_type().is_symlink() {
                    "a symbolic link (tactus follows none in its output folder)"
                } else if !meta.is_file() {
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
                warn!("not resuming {}: {e:#}", path.display())
            }
            Err(e) => return Err(e),
        }
    }
    candidates.sort();
    Ok(candidates.pop().map(|(_, p)| p))
}

/// Everything the record writer needs for one write: the game as it stands.
#[derive(Debug, Clone)]
pub struct RecordSnapshot {
    pub game: Game,
    pub tags: Vec<(String, String)>,
    /// The game time of the snapshot (the envelope's times are read at it).
    pub now: Millis,
}

/// What the audio scoresheet is made with: the voice pack and style, the silences between words,
/// the clips.
pub type AudioSettings = (
    tactus_core::announce::voice::VoicePack,
    Style,
    Spacing,
    Clips,
);

/// How the writer renders.
pub struct RecordSettings {
    pub folder: PathBuf,
    pub braille: BrailleOptions,
    /// The voice pack and style of the audio scoresheet, with its clips (None: no WAV, the
    /// reason was reported when the clips failed to load).
    pub audio: Option<AudioSettings>,
}

impl RecordSettings {
    /// Braille options from the configuration's keys (checked when the configuration was read).
    pub fn braille_options(profile: &str, cells: usize, lines: usize) -> Result<BrailleOptions> {
        let profile = BrailleProfile::named(profile)
            .map_err(|e| anyhow::anyhow!("key record.braille_profile: {e}"))?;
        let mut opts = BrailleOptions::new(profile);
        opts.page = PageSize::new(cells, lines)
            .map_err(|e| anyhow::anyhow!("keys record.page_cells, record.page_lines: {e}"))?;
        Ok(opts)
    }
}

/// The first wait before a failed record is written again; it doubles up to
/// [`RECORD_RETRY_MAX`] while the outage lasts.
pub const RECORD_RETRY_FIRST: std::time::Duration = std::time::Duration::from_millis(500);
/// The longest wait between two tries of a failed record.
pub const RECORD_RETRY_MAX: std::time::Duration = std::time::Duration::from_secs(30);
/// At shutdown, a failed record is tried this many more times, [`RECORD_RETRY_FIRST`] apart.
const FINAL_TRIES: u32 = 3;

/// Whether the game's files stand where the game is, shared between the writer thread and
/// whoever reports it (the hub's `status`, the exit message).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordHealth {
    /// While the files are stale: the error of the last try.
    pub failing: Option<String>,
    /// The outage that just ended (its first error), until it is collected with
    /// [`RecordWriter::take_recovered`].
    pub recovered: Option<String>,
    /// Half-moves in the files on the disk (the last record written whole).
    pub written_ply: Option<usize>,
    /// What the arbiter has not been told yet: an outage began, an outage ended (in order; see
    /// [`RecordWriter::take_news`]).
    pub news: Vec<String>,
}

/// The record writer thread. Snapshots sent while it is busy are coalesced: only the newest is
/// written (each write is the whole record). A record that fails (a full disk, a read-only
/// folder, no file descriptors left) is tried again with a growing pause until it is written or
/// a newer one replaces it; the outage is logged once when it starts and once when it ends, and
/// can be read at any time ([`RecordWriter::outage`]).
pub struct RecordWriter {
    tx: Option<std_mpsc::Sender<RecordSnapshot>>,
    thread: Option<JoinHandle<()>>,
    health: std::sync::Arc<std::sync::Mutex<RecordHealth>>,
}

impl RecordWriter {
    pub fn spawn(settings: RecordSettings) -> RecordWriter {
        let (tx, rx) = std_mpsc::channel::<RecordSnapshot>();
        let health = std::sync::Arc::new(std::sync::Mutex::new(RecordHealth::default()));
        let shared = health.clone();
        let thread = std::thread::Builder::new()
            .name("tactus-record".into())
            .spawn(move || record_loop(&settings, &rx, &shared));
        match thread {
            Ok(thread) => RecordWriter {
                tx: Some(tx),
                thread: Some(thread),
                health,
            },
            Err(e) => {
                error!(
                    "cannot start the record writer thread: {e}; the game's files will not be written"
                );
                let failed = RecordHealth {
                    failing: Some(format!("cannot start the record writer thread: {e}")),
                    ..RecordHealth::default()
                };
                RecordWriter {
                    tx: None,
                    thread: None,
                    health: std::sync::Arc::new(std::sync::Mutex::new(failed)),
                }
            }
        }
    }

    /// Write this record (soon, on the writer's thread).
    pub fn write(&self, snapshot: RecordSnapshot) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(snapshot);
        }
    }

    /// The files as they stand.
    pub fn health(&self) -> RecordHealth {
        lock(&self.health).clone()
    }

    /// While the game's files cannot be written: why (for `status` and the arbiter).
    pub fn outage(&self) -> Option<String> {
        lock(&self.health).failing.clone()
    }

    /// The outage that ended since the last call, once (to say that it is over).
    pub fn take_recovered(&self) -> Option<String> {
        lock(&self.health).recovered.take()
    }

    /// What the arbiter has not been told yet (an outage of the game's files began or ended),
    /// once each, in order.
    pub fn take_news(&self) -> Vec<String> {
        std::mem::take(&mut lock(&self.health).news)
    }

    /// Write what is pending and stop (on shutdown). Blocks until the files are on disk or the
    /// last tries failed; returns how the files stand.
    pub fn finish(mut self) -> RecordHealth {
        self.tx = None;
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            error!("the record writer thread panicked; the last files may be older");
            let mut health = lock(&self.health);
            health
                .failing
                .get_or_insert_with(|| "the record writer thread panicked".into());
        }
        self.health()
    }
}

/// The `status` lines about the game's files, one per outage (none while all is written): the
/// journal (entries held in memory), the record (`game.pgn` and the scoresheets behind the
/// game), the appended logs. For the hub's `status`.
pub fn outage_status(
    journal: Option<&journal::Journal>,
    record: Option<&RecordWriter>,
    logs: &[&LineLog],
) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(o) = journal.and_then(|j| j.outage()) {
        let (.., h, m, s) = civil(o.since_unix_ms);
        lines.push(format!(
            "journal NOT WRITTEN since {h:02}:{m:02}:{s:02} UTC, {} entries held in memory (a \
             restart now loses them): {}",
            o.held, o.error
        ));
    }
    if let Some(record) = record {
        let health = record.health();
        if let Some(error) = health.failing {
            lines.push(format!(
                "files NOT WRITTEN (game.pgn and the scoresheets stand at half-move {}; tried \
                 again): {error}",
                health.written_ply.map_or("none".into(), |p| p.to_string())
            ));
        }
    }
    for log in logs.iter().filter(|l| l.failing()) {
        lines.push(format!(
            "{} NOT WRITTEN (its lines are lost while this lasts)",
            log.path.display()
        ));
    }
    lines
}

/// What the arbiter's console is told, once each, about the game's files since the last call:
/// an outage of the record began or ended, the journal's outage ended (its beginning is the
/// error of the write that failed, which the hub reports).
pub fn outage_news(
    journal: Option<&mut journal::Journal>,
    record: Option<&RecordWriter>,
) -> Vec<String> {
    let mut news = Vec::new();
    if let Some(o) = journal.and_then(|j| j.take_recovered()) {
        news.push(format!(
            "the journal is written again: the {} entries held in memory are on the disk",
            o.held
        ));
    }
    if let Some(record) = record {
        news.extend(record.take_news());
    }
    news
}

/// The health is plain data: a panic elsewhere while it was held leaves it usable.
fn lock(health: &std::sync::Mutex<RecordHealth>) -> std::sync::MutexGuard<'_, RecordHealth> {
    health.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writer thread: newest snapshot first, a failed one again after a pause, until the
/// channel closes (then a few last tries).
fn record_loop(
    settings: &RecordSettings,
    rx: &std_mpsc::Receiver<RecordSnapshot>,
    health: &std::sync::Mutex<RecordHealth>,
) {
    let mut pending: Option<RecordSnapshot> = None;
    let mut pause = RECORD_RETRY_FIRST;
    let mut final_tries = None;
    loop {
        let next = match (&pending, final_tries) {
            (_, Some(0)) => break,
            (Some(_), Some(n)) => {
                std::thread::sleep(RECORD_RETRY_FIRST);
                final_tries = Some(n - 1);
                None
            }
            (Some(_), None) => match rx.recv_timeout(pause) {
                Ok(s) => Some(s),
                Err(std_mpsc::RecvTimeoutError::Timeout) => None,
                Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                    final_tries = Some(FINAL_TRIES);
                    None
                }
            },
            (None, _) => match rx.recv() {
                Ok(s) => Some(s),
                Err(_) => break,
            },
        };
        let Some(mut snapshot) = next.or_else(|| pending.take()) else {
            continue;
        };
        while let Ok(newer) = rx.try_recv() {
            snapshot = newer;
        }
        match write_record(settings, &snapshot) {
            Ok(()) => {
                pause = RECORD_RETRY_FIRST;
                pending = None;
                let mut h = lock(health);
                h.written_ply = Some(snapshot.game.ply());
                if let Some(was) = h.failing.take() {
                    let text = format!(
                        "the game's files in {} are written again (up to half-move {})",
                        settings.folder.display(),
                        snapshot.game.ply()
                    );
                    info!("{text}");
                    h.news.push(text);
                    h.recovered = Some(was);
                }
            }
            Err(e) => {
                remove_leftovers(&settings.folder);
                let text = format!("{e:#}");
                let mut h = lock(health);
                // Once per outage: a full disk would otherwise log every move.
                if h.failing.is_none() {
                    let news = format!(
                        "{text}; the game's files stay at half-move {}, tried again until they \
                         can be written (the journal keeps the game)",
                        h.written_ply.map_or("none".into(), |p| p.to_string())
                    );
                    error!("{news}");
                    h.news.push(news);
                }
                h.failing = Some(text);
                drop(h);
                pending = Some(snapshot);
                if final_tries.is_none() {
                    pause = (pause * 2).min(RECORD_RETRY_MAX);
                }
            }
        }
    }
    debug!("record writer ends");
}

/// Remove what a failed or interrupted write left in a game folder: the atomic writes'
/// temporary files (`.game.pgn.tmp-...`) and the audio scoresheet's (`.blind-score.tmp.wav`
/// and its cue list). Only hidden files of those exact shapes are touched.
pub fn remove_leftovers(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with('.')
            && (name.contains(".tmp-") || name == AUDIO_TEMP || name == audio_temp_cues());
        if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
            match std::fs::remove_file(entry.path()) {
                Ok(()) => debug!("removed the leftover {}", entry.path().display()),
                Err(e) => warn!("cannot remove the leftover {}: {e}", entry.path().display()),
            }
        }
    }
}

/// The audio scoresheet is rendered into this file, then renamed over [`WAV_FILE`].
const AUDIO_TEMP: &str = ".blind-score.tmp.wav";

fn audio_temp_cues() -> String {
    AudioScoresheet::cue_path_for(Path::new(AUDIO_TEMP))
        .to_string_lossy()
        .into_owned()
}

/// Rewrite every record file of the folder from `snapshot`.
pub fn write_record(settings: &RecordSettings, snapshot: &RecordSnapshot) -> Result<()> {
    let dir = &settings.folder;
    let score = Score::from_game(&snapshot.game, &snapshot.tags);
    let pgn = snapshot.game.to_pgn(&snapshot.tags);
    write_atomically(&dir.join(PGN_FILE), pgn.as_bytes())?;
    let text = format::render(&score, Format::Text, &settings.braille)
        .context("cannot render the text scoresheet")?;
    write_atomically(&dir.join(TEXT_FILE), text.as_bytes())?;
    let brf = format::render(&score, Format::Brf, &settings.braille)
        .context("cannot lay out the Braille score (keys record.page_cells, record.page_lines)")?;
    write_atomically(&dir.join(BRF_FILE), brf.as_bytes())?;
    let braille = format::render(&score, Format::Braille, &settings.braille)
        .context("cannot lay out the Braille score")?;
    write_atomically(&dir.join(BRAILLE_FILE), braille.as_bytes())?;
    write_envelope(settings, snapshot)?;
    if let Some((pack, style, spacing, clips)) = &settings.audio {
        write_audio(dir, &snapshot.game, pack, *style, *spacing, clips)?;
    }
    Ok(())
}

/// The envelope's files of an adjourned game (the Laws' seven items; never the sealed move), in
/// text and Braille. Rewritten when what they show changes (a draw offer, the resumption); the
/// time of sealing is the one the first write recorded.
pub fn write_envelope(settings: &RecordSettings, snapshot: &RecordSnapshot) -> Result<()> {
    let Some(adjournment) = snapshot.game.adjournment() else {
        return Ok(());
    };
    let stem = format!(
        "{ENVELOPE_PREFIX}{}-{}",
        adjournment.move_number, adjournment.by
    );
    let text_path = settings.folder.join(format!("{stem}.txt"));
    // Read without following a link: the envelope's time comes from our own file or is new.
    let sealed_at =
        crate::store::private::open_no_follow(&text_path, OpenOptions::new().read(true))
            .and_then(|mut f| {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut f, &mut text).map(|_| text)
            })
            .ok()
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix(SEALED_PREFIX).map(str::to_owned))
            })
            .unwrap_or_else(|| {
                let (y, mo, d, h, mi, _) = civil(unix_ms());
                format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC")
            });
    let Some(envelope) =
        Envelope::from_game(&snapshot.game, &snapshot.tags, snapshot.now, sealed_at)
    else {
        return Ok(());
    };
    write_atomically(&text_path, envelope.text().as_bytes())?;
    let brf = envelope.braille(&settings.braille).to_brf();
    write_atomically(&settings.folder.join(format!("{stem}.brf")), brf.as_bytes())?;
    Ok(())
}

/// How the envelope's text begins the line with the time of sealing.
const SEALED_PREFIX: &str = "Sealed: ";

/// The audio scoresheet (F.5): every move as the blind player's voice pack says it, rendered
/// whole into a temporary file and renamed over the old one with its cue list.
fn write_audio(
    dir: &Path,
    game: &Game,
    pack: &tactus_core::announce::voice::VoicePack,
    style: Style,
    spacing: Spacing,
    clips: &Clips,
) -> Result<()> {
    let temp = dir.join(AUDIO_TEMP);
    let written = render_audio(&temp, game, pack, style, spacing, clips);
    if written.is_err() {
        // A full disk leaves a half-written recording: it must not fill the disk further.
        let _ = std::fs::remove_file(&temp);
        let _ = std::fs::remove_file(dir.join(audio_temp_cues()));
    }
    let temp_cues = written?;
    let wav_path = dir.join(WAV_FILE);
    let cues_path = dir.join(cues_file());
    std::fs::rename(&temp, &wav_path).with_context(|| {
        format!(
            "cannot replace {} with {}",
            wav_path.display(),
            temp.display()
        )
    })?;
    std::fs::rename(&temp_cues, &cues_path).with_context(|| {
        format!(
            "cannot replace {} with {}",
            cues_path.display(),
            temp_cues.display()
        )
    })?;
    Ok(())
}

/// The audio scoresheet into `temp`; returns its cue list's path.
fn render_audio(
    temp: &Path,
    game: &Game,
    pack: &tactus_core::announce::voice::VoicePack,
    style: Style,
    spacing: Spacing,
    clips: &Clips,
) -> Result<PathBuf> {
    // The recording is the scoresheet read aloud: White's moves under their spoken numbers
    // ("Zug eins, ..."), so that a player navigating the file hears where he is.
    let entries = wav::scoresheet(&Score::from_game(game, &[]), pack, style);
    AudioScoresheet::record(
        temp,
        &entries,
        spacing,
        wav::BETWEEN_ANNOUNCEMENTS_MS,
        clips.loader(),
    )
    .with_context(|| format!("voice pack '{}'", pack.name()))?;
    Ok(AudioScoresheet::cue_path_for(temp))
}

/// An append-only text file written line by line (touches, transcript notes): each line one
/// `write` and flushed, so a crash loses at most the line being written. Failures are logged
/// once per outage; the game goes on.
#[derive(Debug)]
pub struct LineLog {
    path: PathBuf,
    file: Option<File>,
    failing: bool,
}

impl LineLog {
    pub fn open(path: &Path) -> LineLog {
        let file = crate::store::private::open_append(path);
        let failing = file.is_err();
        if let Err(e) = &file {
            error!("cannot open {}: {e}", path.display());
        }
        LineLog {
            path: path.to_owned(),
            file: file.ok(),
            failing,
        }
    }

    pub fn append(&mut self, line: &str) {
        // A file that could not be opened (no descriptors left, a folder gone read-only) is
        // tried again with every line: the outage ends when the cause does.
        if self.file.is_none() {
            match crate::store::private::open_append(&self.path) {
                Ok(file) => self.file = Some(file),
                Err(e) => {
                    if !self.failing {
                        error!("cannot open {}: {e}", self.path.display());
                    }
                    self.failing = true;
                    return;
                }
            }
        }
        let Some(file) = &mut self.file else {
            return;
        };
        let mut text = line.replace(['\n', '\r'], " ");
        text.push('\n');
        match file.write_all(text.as_bytes()) {
            Ok(()) => {
                if self.failing {
                    info!("{} is written again", self.path.display());
                }
                self.failing = false;
            }
            Err(e) => {
                if !self.failing {
                    error!("cannot write to {}: {e}", self.path.display());
                }
                self.failing = true;
            }
        }
    }

    /// Whether the last line could not be written (for `status`).
    pub fn failing(&self) -> bool {
        self.failing
    }

    /// Flush to the disk (shutdown).
    pub fn sync(&mut self) {
        if let Some(file) = &mut self.file
            && let Err(e) = file.sync_data()
        {
            warn!("cannot flush {}: {e}", self.path.display());
        }
    }
}

/// A transcript line for a note (the speech task writes `<time> blind|sighted|both <words>`).
pub fn note_line(text: &str) -> String {
    format!("{} note {}", time_of_day(), text.trim())
}

/// A `touches.txt` line: time of day, game time in seconds, board, square, piece.
pub fn touch_line(t: Millis, board: BoardId, square: Square, piece: Option<Piece>) -> String {
    let board = board.name();
    let piece = match piece {
        Some(p) => format!("{} {}", p.color, role_name(p.role)),
        None => "piece".to_string(),
    };
    format!(
        "{} {:>10.3} {board:<7} {square} {piece}",
        time_of_day(),
        t as f64 / 1000.0
    )
}

fn role_name(role: shakmaty::Role) -> &'static str {
    match role {
        shakmaty::Role::Pawn => "pawn",
        shakmaty::Role::Knight => "knight",
        shakmaty::Role::Bishop => "bishop",
        shakmaty::Role::Rook => "rook",
        shakmaty::Role::Queen => "queen",
        shakmaty::Role::King => "king",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_safe_and_unique() {
        let dir = std::env::temp_dir().join(format!("tactus-folders-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = new_game_folder(&dir, "Müller, Hans/../x", "", 0, None).unwrap();
        let b = new_game_folder(&dir, "Müller, Hans/../x", "", 0, None).unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, "1970-01-01_000000_Müller-Hans-x-player");
        assert!(b.to_string_lossy().ends_with("-2"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, point 4: a record that could not be written (the folder went stale mid-game:
    /// read-only, full, out of file descriptors) stayed behind until the next move, with one
    /// log line. Now it is tried again by itself, the outage can be read while it lasts, its end
    /// is reported once, and no temporary file is left behind. (A directory in the way of
    /// `game.pgn` fails the rename even for root, who ignores a read-only folder.)
    #[test]
    fn a_stale_record_is_retried_reported_and_cleaned_up() {
        use tactus_core::rules::game::{Input as G, RulesConfig};
        let dir = std::env::temp_dir().join(format!("tactus-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let blocker = dir.join(PGN_FILE);
        std::fs::create_dir(&blocker).unwrap();
        std::fs::write(blocker.join("x"), b"in the way").unwrap();
        let mut game = Game::new(RulesConfig::default());
        for san in ["e4", "e5"] {
            let mv = tactus_core::rules::notation::match_move(game.position(), san).unwrap();
            game.apply(G::Move(mv), 0).unwrap();
        }
        let writer = RecordWriter::spawn(RecordSettings {
            folder: dir.clone(),
            braille: RecordSettings::braille_options(
                tactus_core::record::braille::DEFAULT_PROFILE,
                40,
                25,
            )
            .unwrap(),
            audio: None,
        });
        writer.write(RecordSnapshot {
            game,
            tags: vec![],
            now: 0,
        });
        let wait = |what: &str, done: &dyn Fn() -> bool| {
            let start = std::time::Instant::now();
            while !done() {
                assert!(
                    start.elapsed() < std::time::Duration::from_secs(10),
                    "waiting for {what}"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        };
        wait("the outage", &|| writer.outage().is_some());
        let outage = writer.outage().unwrap();
        assert!(outage.contains("game.pgn"), "{outage}");
        assert!(writer.take_recovered().is_none());
        let status = outage_status(None, Some(&writer), &[]);
        assert_eq!(status.len(), 1, "{status:?}");
        assert!(
            status[0].contains("NOT WRITTEN") && status[0].contains("half-move none"),
            "{status:?}"
        );
        let news = outage_news(None, Some(&writer));
        assert!(news.len() == 1 && news[0].contains("game.pgn"), "{news:?}");
        assert!(outage_news(None, Some(&writer)).is_empty(), "told once");
        // The folder is writable again; no new move comes: the writer tries by itself.
        std::fs::remove_dir_all(&blocker).unwrap();
        wait("the retry", &|| writer.outage().is_none());
        let pgn = std::fs::read_to_string(&blocker).unwrap();
        assert!(pgn.contains("1. e4 e5"), "{pgn}");
        assert!(writer.take_recovered().unwrap().contains("game.pgn"));
        assert!(writer.take_recovered().is_none(), "reported once");
        assert!(outage_status(None, Some(&writer), &[]).is_empty());
        let news = outage_news(None, Some(&writer));
        assert!(
            news.len() == 1 && news[0].contains("written again (up to half-move 2)"),
            "{news:?}"
        );
        let health = writer.finish();
        assert_eq!(health.written_ply, Some(2));
        assert_eq!(health.failing, None);
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, point 3: a failed audio scoresheet left `.blind-score.tmp.wav` (and its cue
    /// list) behind to fill the disk further; leftovers of our exact shapes are removed, nothing
    /// else is.
    #[test]
    fn leftovers_of_failed_writes_are_removed() {
        let dir = std::env::temp_dir().join(format!("tactus-leftovers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            ".blind-score.tmp.wav",
            ".blind-score.tmp.cues.txt",
            ".game.pgn.tmp-123-4",
            "game.pgn",
            ".hidden-of-someone",
        ] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        remove_leftovers(&dir);
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
        assert_eq!(files.len(), 9);
    }
}
