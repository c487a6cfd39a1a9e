//! The game folder and the files the daemon keeps in it.
//!
//! Owns: where a game's folder is (a new one per game under `[record] dir`, or the unfinished
//! one a restarted daemon resumes), the record writer (a thread that rewrites `game.pgn`,
//! `scoresheet.txt`, `blind-score.brf`, `blind-score.txt` and the audio scoresheet
//! `blind-score.wav` with its cue list after every move, each file atomically), `touches.txt`
//! (every lift on both boards, appended and flushed line by line), and the notes the hub adds to
//! `transcript.txt` (the speech task writes the spoken lines to the same file).
//!
//! It renders nothing itself: scoresheets come from [`crate::record`], words from the voice
//! pack. A file that cannot be written is logged and reported once per outage to the caller; the
//! game never stops for it.

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
    sync::mpsc as std_mpsc,
    thread::JoinHandle,
};

use anyhow::{Context, Result};
use shakmaty::{Color, Piece, Position, Square};
use tracing::{debug, error, warn};

use super::journal::{self, JOURNAL_FILE};
use crate::{
    announce::{Announcement, MoveWords, voice::Style},
    arbiter::BoardId,
    record::{
        braille::{BrailleOptions, PageSize, Profile as BrailleProfile},
        envelope::Envelope,
        format::{self, Format},
        score::Score,
        wav::{self, Spacing},
    },
    rules::{Millis, game::Game},
    speech::{task::utc_time_of_day, transcript::format_time_of_day},
    store::{atomic::write_atomically, audio::AudioScoresheet, voices::Clips},
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

/// A calendar date and time (UTC) from Unix milliseconds: (year, month, day, h, m, s).
pub fn civil(unix_ms: u64) -> (i64, u32, u32, u32, u32, u32) {
    let secs = (unix_ms / 1000) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = if m <= 2 { y + 1 } else { y };
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem / 60 % 60) as u32,
        (rem % 60) as u32,
    )
}

/// The PGN `Date` of a Unix time (`2026.11.30`).
pub fn pgn_date(unix_ms: u64) -> String {
    let (y, m, d, ..) = civil(unix_ms);
    format!("{y:04}.{m:02}.{d:02}")
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

/// Make a new game folder under `dir`: `2026-11-30_143005_White-Black`.
pub fn new_game_folder(dir: &Path, white: &str, black: &str, unix_ms: u64) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| {
        format!(
            "cannot create the output folder {} (key record.dir)",
            dir.display()
        )
    })?;
    let (y, mo, d, h, mi, s) = civil(unix_ms);
    let stem = format!(
        "{y:04}-{mo:02}-{d:02}_{h:02}{mi:02}{s:02}_{}-{}",
        folder_word(white),
        folder_word(black)
    );
    for n in 1..1000 {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        let path = dir.join(name);
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
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
pub fn find_unfinished(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let journal_path = path.join(JOURNAL_FILE);
        let Ok(meta) = std::fs::metadata(&journal_path) else {
            continue;
        };
        match journal::read(&journal_path) {
            Ok(j) if !j.is_finished() => {
                candidates.push((meta.modified().unwrap_or(std::time::UNIX_EPOCH), path));
            }
            Ok(_) => {}
            Err(e) => warn!("skipping {}: {e:#}", path.display()),
        }
    }
    candidates.sort();
    candidates.pop().map(|(_, p)| p)
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
pub type AudioSettings = (crate::announce::voice::VoicePack, Style, Spacing, Clips);

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

/// The record writer thread. Snapshots sent while it is busy are coalesced: only the newest is
/// written (each write is the whole record).
pub struct RecordWriter {
    tx: Option<std_mpsc::Sender<RecordSnapshot>>,
    thread: Option<JoinHandle<()>>,
}

impl RecordWriter {
    pub fn spawn(settings: RecordSettings) -> RecordWriter {
        let (tx, rx) = std_mpsc::channel::<RecordSnapshot>();
        let thread = std::thread::Builder::new()
            .name("tactus-record".into())
            .spawn(move || {
                let mut failing = false;
                while let Ok(mut snapshot) = rx.recv() {
                    while let Ok(newer) = rx.try_recv() {
                        snapshot = newer;
                    }
                    match write_record(&settings, &snapshot) {
                        Ok(()) => failing = false,
                        Err(e) => {
                            // Once per outage: a full disk would otherwise log every move.
                            if !failing {
                                error!("{e:#}");
                            }
                            failing = true;
                        }
                    }
                }
                debug!("record writer ends");
            });
        match thread {
            Ok(thread) => RecordWriter {
                tx: Some(tx),
                thread: Some(thread),
            },
            Err(e) => {
                error!(
                    "cannot start the record writer thread: {e}; the game's files will not be written"
                );
                RecordWriter {
                    tx: None,
                    thread: None,
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

    /// Write what is pending and stop (on shutdown). Blocks until the files are on disk.
    pub fn finish(mut self) {
        self.tx = None;
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            error!("the record writer thread panicked; the last files may be older");
        }
    }
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
    let sealed_at = std::fs::read_to_string(&text_path)
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix(SEALED_PREFIX).map(str::to_owned))
        })
        .unwrap_or_else(|| {
            let (y, mo, d, h, mi, _) = civil(journal::unix_ms());
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
    pack: &crate::announce::voice::VoicePack,
    style: Style,
    spacing: Spacing,
    clips: &Clips,
) -> Result<()> {
    let temp = dir.join(".blind-score.tmp.wav");
    let mut sheet = AudioScoresheet::create(&temp, wav::BETWEEN_ANNOUNCEMENTS_MS)?;
    let mut pos = game.start_position().clone();
    for record in game.moves() {
        let label = format!(
            "{}{}",
            pos.fullmoves(),
            if pos.turn() == Color::White {
                "."
            } else {
                "..."
            }
        );
        let utterance = pack.render(&Announcement::Move(MoveWords::new(&pos, record.mv)), style);
        let samples = wav::assemble(&utterance, spacing, clips.loader())
            .map_err(|e| anyhow::anyhow!("voice pack '{}': {e}", pack.name()))?;
        sheet.append(&label, &utterance.text, &samples)?;
        pos.play_unchecked(record.mv);
    }
    let temp_cues = sheet.cue_path().to_owned();
    sheet.finish()?;
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
        let file = OpenOptions::new().create(true).append(true).open(path);
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
        let Some(file) = &mut self.file else {
            return;
        };
        let mut text = line.replace(['\n', '\r'], " ");
        text.push('\n');
        match file.write_all(text.as_bytes()) {
            Ok(()) => self.failing = false,
            Err(e) => {
                if !self.failing {
                    error!("cannot write to {}: {e}", self.path.display());
                }
                self.failing = true;
            }
        }
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

/// The time of day for log lines (UTC, as the transcript).
pub fn time_of_day() -> String {
    format_time_of_day(utc_time_of_day())
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
    fn dates_are_civil() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC
        assert_eq!(civil(1_709_210_096_000), (2024, 2, 29, 12, 34, 56));
        assert_eq!(pgn_date(1_709_210_096_000), "2024.02.29");
    }

    #[test]
    fn folder_names_are_safe_and_unique() {
        let dir = std::env::temp_dir().join(format!("tactus-folders-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = new_game_folder(&dir, "Müller, Hans/../x", "", 0).unwrap();
        let b = new_game_folder(&dir, "Müller, Hans/../x", "", 0).unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, "1970-01-01_000000_Müller-Hans-x-player");
        assert!(b.to_string_lossy().ends_with("-2"));
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
