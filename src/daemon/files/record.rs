//! The record writer: a thread that rewrites every record file of the game folder after every
//! move (`game.pgn`, `scoresheet.txt`, each blind player's `blind-score.brf`, `blind-score.txt`, the audio
//! scoresheet `blind-score.wav` with its cue list, an adjourned game's envelope), each file
//! atomically, the newest record first.
//!
//! It renders nothing itself: scoresheets come from [`tactus_core::record`], words from the voice
//! pack. A record that cannot be written is tried again with a growing pause, logged once when
//! the outage starts and once when it ends, and can be read while it lasts
//! ([`RecordWriter::outage`]); the game never stops for it.

use std::{
    path::{Path, PathBuf},
    sync::mpsc as std_mpsc,
    thread::JoinHandle,
};

use anyhow::{Context, Result};
use tracing::{debug, error, info};

use super::{ENVELOPE_PREFIX, PGN_FILE, ScoreFiles, TEXT_FILE, remove_leftovers};
use crate::{
    store::{audio::AudioScoresheet, trusted::TrustedDir, voices::Clips},
    wall::unix_ms,
};
use tactus_core::{
    announce::voice::Style,
    record::date::civil,
    record::{
        braille::BrailleOptions,
        envelope::Envelope,
        format::{self, Format},
        score::Score,
        wav::{self, Spacing},
    },
    rules::{Millis, game::Game},
};

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

/// One blind player's own scoresheets (F.5): their files, and the voice his recording is made
/// in.
pub struct BlindScore {
    pub files: ScoreFiles,
    /// His voice pack and style, the silences between words, with the clips (None: no WAV, the
    /// reason was reported when the clips failed to load).
    pub audio: Option<AudioSettings>,
}

/// How the writer renders.
pub struct RecordSettings {
    /// The game folder, held open: every record file is written relative to it, and its path
    /// must still lead to it (through trusted folders) before each record is written.
    pub folder: TrustedDir,
    pub braille: BrailleOptions,
    /// Each blind player's scoresheets.
    pub blind_scores: Vec<BlindScore>,
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

/// The health is plain data: a panic elsewhere while it was held leaves it usable.
pub(super) fn lock(
    health: &std::sync::Mutex<RecordHealth>,
) -> std::sync::MutexGuard<'_, RecordHealth> {
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
                        settings.folder.path().display(),
                        snapshot.game.ply()
                    );
                    info!("{text}");
                    h.news.push(text);
                    h.recovered = Some(was);
                }
            }
            Err(e) => {
                // Not through a path that leads elsewhere now.
                if settings.folder.verify().is_ok() {
                    remove_leftovers(settings.folder.path());
                }
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

/// Rewrite every record file of the folder from `snapshot`. Nothing is written unless the game
/// folder's path still leads to the folder held, through trusted folders only: a folder on the
/// way renamed, or replaced by a link, is an outage of the record (the journal, held open, keeps
/// the game), never a write elsewhere.
pub fn write_record(settings: &RecordSettings, snapshot: &RecordSnapshot) -> Result<()> {
    let dir = &settings.folder;
    dir.verify().map_err(|e| {
        anyhow::anyhow!(
            "the game folder cannot be trusted now: {e}; nothing is written through its path"
        )
    })?;
    let score = Score::from_game(&snapshot.game, &snapshot.tags);
    let pgn = snapshot.game.to_pgn(&snapshot.tags);
    dir.write_atomically(PGN_FILE, pgn.as_bytes())?;
    let text = format::render(&score, Format::Text, &settings.braille)
        .context("cannot render the text scoresheet")?;
    dir.write_atomically(TEXT_FILE, text.as_bytes())?;
    let brf = format::render(&score, Format::Brf, &settings.braille)
        .context("cannot lay out the Braille score (keys record.page_cells, record.page_lines)")?;
    let braille = format::render(&score, Format::Braille, &settings.braille)
        .context("cannot lay out the Braille score")?;
    for blind in &settings.blind_scores {
        dir.write_atomically(&blind.files.brf(), brf.as_bytes())?;
        dir.write_atomically(&blind.files.braille(), braille.as_bytes())?;
    }
    write_envelope(settings, snapshot)?;
    for blind in &settings.blind_scores {
        if let Some((pack, style, spacing, clips)) = &blind.audio {
            write_audio(
                dir.path(),
                &blind.files,
                &snapshot.game,
                pack,
                *style,
                *spacing,
                clips,
            )?;
        }
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
    let text_name = format!("{stem}.txt");
    // Read without following a link: the envelope's time comes from our own file or is new.
    let sealed_at = settings
        .folder
        .read_to_string(&text_name, ENVELOPE_READ_LIMIT)
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
    settings
        .folder
        .write_atomically(&text_name, envelope.text().as_bytes())?;
    let brf = envelope.braille(&settings.braille).to_brf();
    settings
        .folder
        .write_atomically(&format!("{stem}.brf"), brf.as_bytes())?;
    Ok(())
}

/// An envelope's text is a page; anything longer is not ours.
const ENVELOPE_READ_LIMIT: u64 = 64 * 1024;

/// How the envelope's text begins the line with the time of sealing.
const SEALED_PREFIX: &str = "Sealed: ";

/// The audio scoresheet (F.5): every move as the blind player's voice pack says it, rendered
/// whole into a temporary file and renamed over the old one with its cue list.
fn write_audio(
    dir: &Path,
    files: &ScoreFiles,
    game: &Game,
    pack: &tactus_core::announce::voice::VoicePack,
    style: Style,
    spacing: Spacing,
    clips: &Clips,
) -> Result<()> {
    let temp = dir.join(files.audio_temp());
    let written = render_audio(&temp, game, pack, style, spacing, clips);
    if written.is_err() {
        // A full disk leaves a half-written recording: it must not fill the disk further.
        let _ = std::fs::remove_file(&temp);
        let _ = std::fs::remove_file(dir.join(files.audio_temp_cues()));
    }
    let temp_cues = written?;
    let wav_path = dir.join(files.wav());
    let cues_path = dir.join(files.cues());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::files::{outage_news, outage_status};

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
            folder: TrustedDir::open(&dir).unwrap(),
            braille: crate::config::braille_options(
                tactus_core::record::braille::DEFAULT_PROFILE,
                40,
                25,
            )
            .unwrap(),
            blind_scores: vec![BlindScore {
                files: ScoreFiles::of(None),
                audio: None,
            }],
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
}
