//! The record writer: a thread that rewrites every record file of the game folder after every
//! move (`game.pgn`, `scoresheet.txt`, each blind player's `blind-score.brf`, `blind-score.txt` in
//! his Braille chess notation, an adjourned game's envelope, its Braille in the sealer's), each
//! file atomically, the newest record first; and brings each blind player's audio scoresheet
//! `blind-score.wav` with its cue list up to the game by appending the new moves (rewritten whole,
//! atomically, only when the game changed otherwise: a takeback, a correction). The recording is
//! the one file that grows large (about 100 kB a move): rewritten after every move it cost the
//! square of the game in writes, gigabytes on a Raspberry Pi's SD card (issue 25, point 6).
//!
//! It renders nothing itself: scoresheets come from [`tactus_core::record`], words from the voice
//! pack. A record that cannot be written is tried again with a growing pause, logged once when
//! the outage starts and once when it ends, and can be read while it lasts
//! ([`RecordWriter::outage`]); the game never stops for it.

use std::{sync::mpsc as std_mpsc, thread::JoinHandle};

use anyhow::{Context, Result, anyhow, bail};
use shakmaty::ByColor;
use tracing::{debug, error, info};

use super::{ScoreFiles, remove_leftovers};
use crate::{
    daemon::journal::read_mark_at,
    store::{
        at::At,
        audio::{AudioScoresheet, ScoresheetError},
        trusted::TrustedDir,
        voices::Clips,
    },
    wall::unix_ms,
};
use tactus_core::{
    announce::voice::Style,
    folder::{ENVELOPE_PREFIX, MARK_FILE, PGN_FILE, TEXT_FILE},
    journal::RecordMark,
    record::date::{Calendar, civil},
    record::{
        braille::{BrailleOptions, Profile},
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
    /// What of the journal the snapshot was taken from, written as `record.json` after the
    /// record files (None: no journal, as in some tests).
    pub mark: Option<RecordMark>,
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
    /// His Braille chess notation (None: the table's, `RecordSettings::braille`).
    pub braille: Option<tactus_core::record::braille::Profile>,
    /// His voice pack and style, the silences between words, with the clips (None: no WAV, the
    /// reason was reported when the clips failed to load).
    pub audio: Option<AudioSettings>,
}

/// How the writer renders.
pub struct RecordSettings {
    /// The game folder, held open: every record file is written relative to it, and its path
    /// must still lead to it (through trusted folders) before each record is written.
    pub folder: TrustedDir,
    /// The table's Braille options: the page, and the profile of what is no player's own.
    pub braille: BrailleOptions,
    /// Each seat's Braille chess notation (`Settings::braille_profiles`: a blind player's own,
    /// a sighted one's the table's): an adjournment envelope's Braille is in its sealer's.
    pub profiles: ByColor<Profile>,
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
    /// Half-moves in `game.pgn` and the text and Braille scoresheets on the disk (the last
    /// record written whole).
    pub written_ply: Option<usize>,
    /// Whether an audio scoresheet is kept (a blind player with clips).
    pub keeps_audio: bool,
    /// Half-moves in the audio scoresheets on the disk (the fewest of the blind players'): they
    /// are appended move by move, so after a failure they may stand elsewhere than the rest.
    pub audio_ply: Option<usize>,
    /// What the arbiter has not been told yet: an outage began, an outage ended (in order; see
    /// [`RecordWriter::take_news`]).
    pub news: Vec<String>,
}

impl RecordHealth {
    /// Where the game's files stand, for the arbiter: "game.pgn and the scoresheets stand at
    /// half-move 8", and where the audio scoresheet stands when that is elsewhere.
    pub fn standing(&self) -> String {
        let ply = |p: Option<usize>| p.map_or("none".into(), |p| p.to_string());
        let mut text = format!(
            "game.pgn and the scoresheets stand at half-move {}",
            ply(self.written_ply)
        );
        if self.keeps_audio && self.audio_ply != self.written_ply {
            text.push_str(&format!(
                ", the audio scoresheet at half-move {}",
                ply(self.audio_ply)
            ));
        }
        text
    }
}

/// The record writer thread. Snapshots sent while it is busy are coalesced: only the newest is
/// written (each write brings the whole record up to it). A record that fails (a full disk, a
/// read-only folder, no file descriptors left) is tried again with a growing pause until it is
/// written or a newer one replaces it; the outage is logged once when it starts and once when it
/// ends, and can be read at any time ([`RecordWriter::outage`]).
pub struct RecordWriter {
    /// Each snapshot with the Unix time it was sent at: its `now` on the calendar.
    tx: Option<std_mpsc::Sender<(RecordSnapshot, u64)>>,
    thread: Option<JoinHandle<()>>,
    health: std::sync::Arc<std::sync::Mutex<RecordHealth>>,
}

impl RecordWriter {
    /// A writer whose dates (an envelope's time of sealing) are those of this run: right for a
    /// new game; a resumed one's writer is given its journal's calendar ([`RecordWriter::dated`]).
    pub fn spawn(settings: RecordSettings) -> RecordWriter {
        RecordWriter::dated(settings, Calendar::default())
    }

    /// A writer that dates times of the game's line with `calendar` (the stretches the journal
    /// holds, of the runs before this one), and with the time each snapshot is sent at.
    pub fn dated(settings: RecordSettings, calendar: Calendar) -> RecordWriter {
        let (tx, rx) = std_mpsc::channel::<(RecordSnapshot, u64)>();
        let health = std::sync::Arc::new(std::sync::Mutex::new(RecordHealth {
            keeps_audio: settings.blind_scores.iter().any(|b| b.audio.is_some()),
            ..RecordHealth::default()
        }));
        let shared = health.clone();
        let thread = std::thread::Builder::new()
            .name("tactus-record".into())
            .spawn(move || record_loop(&settings, calendar, &rx, &shared));
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

    /// Write this record (soon, on the writer's thread). Its `now` is now: the calendar learns
    /// where the time line stands, before the thread takes its time (a retry comes much later).
    pub fn write(&self, snapshot: RecordSnapshot) {
        if let Some(tx) = &self.tx {
            let _ = tx.send((snapshot, unix_ms()));
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
    mut calendar: Calendar,
    rx: &std_mpsc::Receiver<(RecordSnapshot, u64)>,
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
        let mark = |calendar: &mut Calendar, (snapshot, sent): (RecordSnapshot, u64)| {
            calendar.mark(snapshot.now, sent);
            snapshot
        };
        let next = next.map(|s| mark(&mut calendar, s));
        let Some(mut snapshot) = next.or_else(|| pending.take()) else {
            continue;
        };
        while let Ok(newer) = rx.try_recv() {
            snapshot = mark(&mut calendar, newer);
        }
        // The audio scoresheets are tried even when the other files failed: they stand where
        // they stand, and `status` says so.
        let files = write_record(settings, &snapshot, &calendar);
        let audio = write_audio_scores(settings, &snapshot);
        let audio_ply = match &audio {
            Ok(()) => Some(snapshot.game.ply()),
            Err(_) => audio_held(settings),
        };
        // In the folder held, wherever its path leads now.
        if files.is_err() || audio.is_err() {
            remove_leftovers(settings.folder.at());
        }
        let mut h = lock(health);
        if files.is_ok() {
            h.written_ply = Some(snapshot.game.ply());
        }
        if h.keeps_audio {
            h.audio_ply = audio_ply;
        }
        match files.and(audio) {
            Ok(()) => {
                pause = RECORD_RETRY_FIRST;
                pending = None;
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
                let text = format!("{e:#}");
                // Once per outage: a full disk would otherwise log every move.
                if h.failing.is_none() {
                    let news = format!(
                        "{text}; {}, tried again until they can be written (the journal keeps \
                         the game)",
                        h.standing()
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

/// Rewrite every record file of the folder from `snapshot`, but the audio scoresheets
/// ([`write_audio_scores`]). Nothing is written unless the game folder's path still leads to the
/// folder held, through trusted folders only: a folder on the way renamed, or replaced by a link,
/// is an outage of the record (the journal, held open, keeps the game), never a write elsewhere.
pub fn write_record(
    settings: &RecordSettings,
    snapshot: &RecordSnapshot,
    calendar: &Calendar,
) -> Result<()> {
    let dir = &settings.folder;
    verify_folder(dir)?;
    // Never less than the record shows: a record written from more of the journal stays.
    if let Some(new) = &snapshot.mark
        && let Some(old) = read_mark_at(dir.at(), MARK_FILE)?
        && !old.may_be_replaced_by(new)
    {
        bail!(
            "not writing the record in {}: it was written from {} journal entries of game {} \
             ({} half-moves), this one from {} of game {} ({} half-moves); a record is never \
             overwritten with less than it showed",
            dir.path().display(),
            old.entries,
            old.game,
            old.half_moves,
            new.entries,
            new.game,
            new.half_moves
        );
    }
    let score = Score::from_game(&snapshot.game, &snapshot.tags);
    let pgn = snapshot.game.to_pgn(&snapshot.tags);
    dir.write_atomically(PGN_FILE, pgn.as_bytes())?;
    let text = format::render(&score, Format::Text, &settings.braille)
        .context("cannot render the text scoresheet")?;
    dir.write_atomically(TEXT_FILE, text.as_bytes())?;
    for blind in &settings.blind_scores {
        // In his Braille chess notation and headed in his language: two blind players may
        // hear two.
        let mut own = settings.braille.clone();
        if let Some(profile) = &blind.braille {
            own.profile = profile.clone();
        }
        let braille_opts = own.headed_in(blind.files.headings());
        let brf = format::render(&score, Format::Brf, &braille_opts).context(
            "cannot lay out the Braille score (keys record.page_cells, record.page_lines)",
        )?;
        let braille = format::render(&score, Format::Braille, &braille_opts)
            .context("cannot lay out the Braille score")?;
        dir.write_atomically(&blind.files.brf(), brf.as_bytes())?;
        dir.write_atomically(&blind.files.braille(), braille.as_bytes())?;
    }
    write_envelope(settings, snapshot, calendar)?;
    if let Some(mark) = &snapshot.mark {
        dir.write_atomically(MARK_FILE, &mark.to_bytes())?;
    }
    Ok(())
}

/// Whether the game folder's path still leads to the folder held, through trusted folders only
/// (see [`TrustedDir::verify`]); else why not, as the record's outage says it.
fn verify_folder(dir: &TrustedDir) -> Result<()> {
    dir.verify().map_err(|e| {
        anyhow!("the game folder cannot be trusted now: {e}; nothing is written through its path")
    })
}

/// The envelope's files of an adjourned game (the Laws' seven items; never the sealed move), in
/// text and Braille (in the sealer's Braille chess notation, `RecordSettings::profiles`).
/// Rewritten when what they show changes (a draw offer, the resumption); the time of sealing
/// is the adjournment's, on the game's time line, dated with `calendar` (the same at every
/// rewrite, across restarts: never read back from the file).
pub fn write_envelope(
    settings: &RecordSettings,
    snapshot: &RecordSnapshot,
    calendar: &Calendar,
) -> Result<()> {
    let Some(adjournment) = snapshot.game.adjournment() else {
        return Ok(());
    };
    let stem = format!(
        "{ENVELOPE_PREFIX}{}-{}",
        adjournment.move_number, adjournment.by
    );
    let text_name = format!("{stem}.txt");
    // A calendar that knows no instant yet (a record written outside the writer) dates from now.
    let sealed_unix_ms = calendar
        .unix_ms(adjournment.at)
        .unwrap_or_else(|| unix_ms().saturating_sub(snapshot.now.saturating_sub(adjournment.at)));
    let (y, mo, d, h, mi, _) = civil(sealed_unix_ms);
    let sealed_at = format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC");
    let Some(envelope) =
        Envelope::from_game(&snapshot.game, &snapshot.tags, snapshot.now, sealed_at)
    else {
        return Ok(());
    };
    settings
        .folder
        .write_atomically(&text_name, envelope.text().as_bytes())?;
    // In the sealer's Braille chess notation: the envelope is his, as his sealed move is. A
    // sighted sealer's is the table's, which at a table of one blind player is that player's.
    let mut braille = settings.braille.clone();
    braille.profile = settings.profiles[adjournment.by].clone();
    let brf = envelope.braille(&braille).to_brf();
    settings
        .folder
        .write_atomically(&format!("{stem}.brf"), brf.as_bytes())?;
    Ok(())
}

/// Bring each blind player's audio scoresheet (F.5) up to `snapshot`: the moves it lacks
/// appended, or the whole recording written anew when the game changed otherwise (see
/// [`AudioScoresheet::update`]). Every scoresheet is tried; the first error is returned.
pub fn write_audio_scores(settings: &RecordSettings, snapshot: &RecordSnapshot) -> Result<()> {
    // In the folder held, once its path still leads there (else an outage, as the record's).
    verify_folder(&settings.folder)?;
    let mut first = Ok(());
    for blind in &settings.blind_scores {
        if let Some(audio) = &blind.audio {
            let written = write_audio(settings.folder.at(), &blind.files, &snapshot.game, audio);
            if first.is_ok() {
                first = written;
            }
        }
    }
    first
}

/// The half-moves the audio scoresheets hold on the disk (the fewest of the blind players';
/// None when one holds no recording of ours).
fn audio_held(settings: &RecordSettings) -> Option<usize> {
    settings
        .blind_scores
        .iter()
        .filter(|b| b.audio.is_some())
        .map(|b| AudioScoresheet::held(settings.folder.at(), &b.files.wav()))
        .try_fold(usize::MAX, |least, held| Some(least.min(held?)))
        .filter(|&least| least != usize::MAX)
}

/// One audio scoresheet: every move as the blind player's voice pack says it. The recording is
/// the scoresheet read aloud: White's moves under their spoken numbers ("Zug eins, ..."), so
/// that a player navigating the file hears where he is.
fn write_audio(
    dir: At<'_>,
    files: &ScoreFiles,
    game: &Game,
    (pack, style, spacing, clips): &AudioSettings,
) -> Result<()> {
    let entries = wav::scoresheet(&Score::from_game(game, &[]), pack, *style);
    let updated = AudioScoresheet::update(
        dir,
        &files.wav(),
        &files.audio_temp(),
        &entries,
        *spacing,
        wav::BETWEEN_ANNOUNCEMENTS_MS,
        clips.loader(),
    );
    match updated {
        Ok(how) => {
            debug!("{}: {how:?}", files.wav());
            Ok(())
        }
        Err(e @ ScoresheetError::Clip { .. }) => {
            Err(e).with_context(|| format!("voice pack '{}'", pack.name()))
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::files::{outage_news, outage_status};
    use crate::store::audio::{bytes_written, full_disk};
    use shakmaty::{Move, Position};
    use std::path::Path;
    use tactus_core::rules::game::{Input as G, RulesConfig};
    use tactus_core::sim::long_game;

    fn scratch(name: &str) -> crate::store::Scratch {
        crate::store::scratch(&format!("record-{name}"))
    }

    /// The shipped `de-fide` pack with its clips, loaded once for all the tests.
    fn de_fide() -> &'static AudioSettings {
        static AUDIO: std::sync::OnceLock<AudioSettings> = std::sync::OnceLock::new();
        AUDIO.get_or_init(|| {
            let voices = Path::new(env!("CARGO_MANIFEST_DIR")).join("voices");
            let (pack, clips) = crate::store::voices::load(&voices, "de-fide").unwrap();
            (pack, Style::San, Spacing::DEFAULT, clips)
        })
    }

    fn settings_with(dir: &Path, audio: Option<&AudioSettings>) -> RecordSettings {
        RecordSettings {
            folder: TrustedDir::open(dir).unwrap(),
            braille: crate::config::braille_options(
                tactus_core::record::braille::DEFAULT_PROFILE,
                40,
                25,
            )
            .unwrap(),
            profiles: ByColor::new_with(|_| {
                Profile::named(tactus_core::record::braille::DEFAULT_PROFILE).unwrap()
            }),
            blind_scores: vec![BlindScore {
                braille: None,
                files: ScoreFiles::of(None),
                audio: audio.cloned(),
            }],
        }
    }

    fn snapshot(game: &Game) -> RecordSnapshot {
        RecordSnapshot {
            game: game.clone(),
            tags: vec![],
            now: 0,
            mark: None,
        }
    }

    fn game_of(moves: &[Move]) -> Game {
        let mut game = Game::new(RulesConfig::default());
        for &mv in moves {
            game.apply(G::Move(mv), 0).unwrap();
        }
        game
    }

    /// The audio scoresheet and cue list of `game` rendered whole into a folder of their own,
    /// as bytes: what the files must equal however they were written.
    fn fresh_render(game: &Game, audio: &AudioSettings) -> (Vec<u8>, Vec<u8>) {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = scratch(&format!("fresh-{n}"));
        let path = dir.join("fresh.wav");
        let (pack, style, spacing, clips) = audio;
        let entries = wav::scoresheet(&Score::from_game(game, &[]), pack, *style);
        AudioScoresheet::record(
            &path,
            &entries,
            *spacing,
            wav::BETWEEN_ANNOUNCEMENTS_MS,
            clips.loader(),
        )
        .unwrap();
        let files = (
            std::fs::read(&path).unwrap(),
            std::fs::read(AudioScoresheet::cue_path_for(&path)).unwrap(),
        );
        std::fs::remove_dir_all(&dir).unwrap();
        files
    }

    /// The audio scoresheet and cue list in `dir`, as bytes.
    fn on_disk(dir: &Path) -> (Vec<u8>, Vec<u8>) {
        let files = ScoreFiles::of(None);
        (
            std::fs::read(dir.join(files.wav())).unwrap(),
            std::fs::read(dir.join(files.cues())).unwrap(),
        )
    }

    /// The files in `dir` are exactly the fresh recording of `game` (compared without printing
    /// megabytes).
    fn assert_recording_of(dir: &Path, game: &Game, audio: &AudioSettings, what: &str) {
        let (wav, cues) = on_disk(dir);
        let (want_wav, want_cues) = fresh_render(game, audio);
        assert_eq!(
            String::from_utf8_lossy(&cues),
            String::from_utf8_lossy(&want_cues),
            "{what}: the cue list"
        );
        assert_eq!(wav.len(), want_wav.len(), "{what}: the WAV's length");
        assert!(wav == want_wav, "{what}: the WAV's bytes differ");
        // And a player's reader agrees.
        let reader = hound::WavReader::open(dir.join(ScoreFiles::of(None).wav())).unwrap();
        assert_eq!(
            u64::from(reader.len()) * wav::BYTES_PER_SAMPLE + wav::HEADER_LEN,
            wav.len() as u64
        );
    }

    /// What this thread has written: the kernel's count of bytes handed to `write(2)` and its
    /// kin by this thread alone (`wchar` of `/proc/thread-self/io`; other test threads do not
    /// count), when the kernel keeps one.
    fn kernel_wchar() -> Option<u64> {
        let io = std::fs::read_to_string("/proc/thread-self/io").ok()?;
        io.lines()
            .find_map(|l| l.strip_prefix("wchar: "))?
            .trim()
            .parse()
            .ok()
    }

    /// Issue 25, point 6: the audio scoresheet was rendered whole and renamed over the old one
    /// after every move: 20 times the file's size written over 40 half-moves, 40 times over 80,
    /// growing with the square of the game (gigabytes on a Raspberry Pi's SD card). Now the
    /// moves are appended: over a whole game the bytes written stay within a small constant of
    /// the files' final size, at 40 half-moves as at 80, counted by the store and by the kernel.
    /// And the files are exactly the recording rendered whole.
    #[test]
    fn each_blind_players_braille_score_is_headed_in_his_language() {
        // Issue 26, point 9: two blind players, a German and a Spanish voice, one Braille
        // profile: each score's headings in the language its player hears.
        let dir = scratch("headings");
        let words = |name| {
            tactus_core::announce::voice::VoicePack::builtin(name)
                .and_then(|p| p.record_words().cloned())
        };
        let mut settings = settings_with(&dir, None);
        settings.blind_scores = vec![
            BlindScore {
                braille: None,
                files: ScoreFiles::of(Some(shakmaty::Color::White)).headed_in(words("de-fide")),
                audio: None,
            },
            BlindScore {
                braille: None,
                files: ScoreFiles::of(Some(shakmaty::Color::Black)).headed_in(words("es-fide")),
                audio: None,
            },
        ];
        let mut snap = snapshot(&game_of(&long_game(4, 1)));
        snap.tags = vec![("Event".into(), "Open".into())];
        write_record(&settings, &snap, &Calendar::default()).unwrap();
        let read = |seat: shakmaty::Color, unicode: bool| {
            let files = ScoreFiles::of(Some(seat));
            let name = if unicode {
                files.braille()
            } else {
                files.brf()
            };
            std::fs::read_to_string(dir.join(name)).unwrap()
        };
        let white = read(shakmaty::Color::White, false);
        let black = read(shakmaty::Color::Black, false);
        assert!(white.contains(",TURNIER3 ,OPEN"), "{white}");
        assert!(black.contains(",TORNEO3 ,OPEN"), "{black}");
        assert!(!white.contains(",EVENT3") && !black.contains(",EVENT3"));
        // The display's copy says the same.
        let turnier = tactus_core::record::braille::cell::parse_cells(",TURNIER3")
            .map(|c| tactus_core::record::braille::cell::to_unicode(&c))
            .unwrap();
        assert!(read(shakmaty::Color::White, true).contains(&turnier));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 37, point 10: two blind players of two languages each get their score in their own
    /// Braille chess notation (a German voice the German one, a Spanish the default), each read
    /// back to the game's moves in his own and not in the other's.
    #[test]
    fn each_blind_players_braille_score_is_in_his_own_braille_chess_notation() {
        use tactus_core::record::braille::{self, BrailleFormat, Profile};
        let dir = scratch("profiles");
        let mut settings = settings_with(&dir, None);
        let (de, ukaaf) = (
            Profile::named("de").unwrap(),
            Profile::named(braille::DEFAULT_PROFILE).unwrap(),
        );
        settings.blind_scores = vec![
            BlindScore {
                braille: Some(de.clone()),
                files: ScoreFiles::of(Some(shakmaty::Color::White)),
                audio: None,
            },
            BlindScore {
                braille: Some(ukaaf.clone()),
                files: ScoreFiles::of(Some(shakmaty::Color::Black)),
                audio: None,
            },
        ];
        // A queen's move: D in German, Q in English.
        let mut pos = shakmaty::Chess::default();
        let moves: Vec<Move> = ["e4", "e5", "Qh5", "Nc6"]
            .iter()
            .map(|san| {
                let mv = san
                    .parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(&pos)
                    .unwrap();
                pos.play_unchecked(mv);
                mv
            })
            .collect();
        write_record(&settings, &snapshot(&game_of(&moves)), &Calendar::default()).unwrap();
        let brf = |seat| std::fs::read(dir.join(ScoreFiles::of(Some(seat)).brf())).unwrap();
        let (white, black) = (brf(shakmaty::Color::White), brf(shakmaty::Color::Black));
        let moves_in = |bytes: &[u8], profile: &Profile| {
            braille::read_score(
                bytes,
                BrailleFormat::Brf,
                profile,
                shakmaty::Chess::default(),
            )
            .map(|s| s.moves.iter().map(|m| m.mv).collect::<Vec<_>>())
        };
        assert_eq!(moves_in(&white, &de).unwrap(), moves);
        assert_eq!(moves_in(&black, &ukaaf).unwrap(), moves);
        // The same game in two notations: two files.
        assert_ne!(white, black);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writes_grow_with_the_game_not_with_its_square() {
        const MOST: f64 = 3.0;
        let audio = de_fide();
        let moves = long_game(80, 1);
        for plies in [40, 80] {
            let dir = scratch(&format!("linear-{plies}"));
            let settings = settings_with(&dir, Some(audio));
            let mut game = Game::new(RulesConfig::default());
            let (counted, kernel) = (bytes_written(), kernel_wchar());
            write_audio_scores(&settings, &snapshot(&game)).unwrap();
            for &mv in &moves[..plies] {
                game.apply(G::Move(mv), 0).unwrap();
                write_audio_scores(&settings, &snapshot(&game)).unwrap();
            }
            let counted = bytes_written() - counted;
            let (wav, cues) = on_disk(&dir);
            let size = (wav.len() + cues.len()) as u64;
            let ratio = counted as f64 / size as f64;
            assert!(
                ratio <= MOST,
                "{plies} half-moves: {counted} bytes written for files of {size} bytes ({ratio:.1} \
                 times)"
            );
            // The record writer's own count against the kernel's: nothing written uncounted.
            if let (Some(before), Some(after)) = (kernel, kernel_wchar()) {
                let by_kernel = after - before;
                assert_eq!(by_kernel, counted, "{plies} half-moves: the kernel's count");
            }
            assert_recording_of(&dir, &game, audio, &format!("{plies} half-moves"));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// Writing the record again without a new move (a clock or an offer changed) writes nothing
    /// to the recording.
    #[test]
    fn a_record_without_a_new_move_writes_no_audio() {
        let audio = de_fide();
        let dir = scratch("no-new-move");
        let settings = settings_with(&dir, Some(audio));
        let game = game_of(&long_game(6, 1));
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        let before = bytes_written();
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        assert_eq!(bytes_written(), before);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 25, point 6: a takeback (F.8's retrace) or a correction changes the game other than
    /// by growing: the recording is written anew and is exactly the shortened game's, and goes
    /// on growing by appending from there.
    #[test]
    fn a_takeback_rewrites_the_recording_of_the_shortened_game() {
        let audio = de_fide();
        let dir = scratch("takeback");
        let settings = settings_with(&dir, Some(audio));
        let moves = long_game(20, 1);
        let mut game = Game::new(RulesConfig::default());
        for &mv in &moves[..12] {
            game.apply(G::Move(mv), 0).unwrap();
            write_audio_scores(&settings, &snapshot(&game)).unwrap();
        }
        game.apply(G::Retract { to_ply: 9 }, 0).unwrap();
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        assert_recording_of(&dir, &game, audio, "retraced to half-move 9");
        // Another move where the tenth stood (a correction): written anew too.
        let other = game
            .position()
            .legal_moves()
            .into_iter()
            .find(|&m| m != moves[9])
            .unwrap();
        game.apply(G::Move(other), 0).unwrap();
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        assert_recording_of(&dir, &game, audio, "another tenth half-move");
        // Growing again is appending again: one move's bytes, not the game's.
        let before = bytes_written();
        let (wav_before, _) = on_disk(&dir);
        let next = game.position().legal_moves()[0];
        game.apply(G::Move(next), 0).unwrap();
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        let (wav_after, _) = on_disk(&dir);
        let grown = (wav_after.len() - wav_before.len()) as u64;
        let written = bytes_written() - before;
        assert!(
            written < grown + 1000,
            "{written} bytes written for {grown} bytes more"
        );
        assert_recording_of(&dir, &game, audio, "a move after the correction");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 25, point 6: a crash or power cut in the middle of an append. What a reader sees
    /// then is a whole recording (the header counts only what was there before), and the next
    /// write repairs what was left: samples the header does not count, samples the header
    /// counts but no cue line names, a torn cue line, a torn header.
    #[test]
    fn what_a_crash_mid_append_left_is_repaired_by_the_next_write() {
        use std::io::Write as _;
        let audio = de_fide();
        let moves = long_game(14, 1);
        let files = ScoreFiles::of(None);
        let append = |path: &Path, bytes: &[u8]| {
            let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
            f.write_all(bytes).unwrap();
        };
        // Each crash, and whether the next write repairs it by cutting back and appending (a
        // torn header leaves nothing to trust: the recording is written anew).
        type Crash<'a> = (&'a str, &'a dyn Fn(&Path), bool);
        let crashes: [Crash; 4] = [
            (
                "samples behind the header",
                &|dir: &Path| {
                    // Half of the next move's samples, written and synced, header not yet.
                    let (next, _) = fresh_render(&game_of(&moves[..11]), audio);
                    let (now, _) = on_disk(dir);
                    append(
                        &dir.join(files.wav()),
                        &next[now.len()..(now.len() + next.len()) / 2],
                    );
                    // A reader plays the ten moves that were there, nothing of the eleventh.
                    let reader = hound::WavReader::open(dir.join(files.wav())).unwrap();
                    assert_eq!(
                        u64::from(reader.len()) * wav::BYTES_PER_SAMPLE + wav::HEADER_LEN,
                        now.len() as u64
                    );
                },
                true,
            ),
            (
                "a header that counts a move the cue list lacks",
                &|dir: &Path| {
                    let (next, _) = fresh_render(&game_of(&moves[..11]), audio);
                    std::fs::write(dir.join(files.wav()), next).unwrap();
                },
                true,
            ),
            (
                "a torn cue line",
                &|dir: &Path| {
                    let (next, next_cues) = fresh_render(&game_of(&moves[..11]), audio);
                    std::fs::write(dir.join(files.wav()), next).unwrap();
                    let (_, cues) = on_disk(dir);
                    append(
                        &dir.join(files.cues()),
                        &next_cues[cues.len()..cues.len() + 7],
                    );
                },
                true,
            ),
            (
                "a torn header",
                &|dir: &Path| {
                    let (now, _) = on_disk(dir);
                    let mut torn = now;
                    torn[41] ^= 0x55;
                    std::fs::write(dir.join(files.wav()), torn).unwrap();
                },
                false,
            ),
        ];
        for (what, crash, appended) in crashes {
            let dir = scratch(&format!("crash-{}", what.replace(' ', "-")));
            let settings = settings_with(&dir, Some(audio));
            let mut game = game_of(&moves[..10]);
            write_audio_scores(&settings, &snapshot(&game)).unwrap();
            crash(&dir);
            for &mv in &moves[10..14] {
                game.apply(G::Move(mv), 0).unwrap();
            }
            let before = bytes_written();
            write_audio_scores(&settings, &snapshot(&game)).unwrap();
            let written = bytes_written() - before;
            let (wav, _) = on_disk(&dir);
            assert_eq!(
                written < wav.len() as u64 / 2,
                appended,
                "{what}: {written} bytes written for a recording of {}",
                wav.len()
            );
            assert_recording_of(&dir, &game, audio, what);
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// After a restart the daemon resumes the game and goes on in the recording it left when
    /// the cue list says it holds the game so far (only the new moves are written); a recording
    /// of something else (another voice pack) is written anew.
    #[test]
    fn a_resumed_game_goes_on_in_its_recording() {
        let audio = de_fide();
        let moves = long_game(12, 1);
        let dir = scratch("resumed");
        let settings = settings_with(&dir, Some(audio));
        write_audio_scores(&settings, &snapshot(&game_of(&moves[..10]))).unwrap();
        // A new writer, as after a restart: it knows only the files.
        let settings = settings_with(&dir, Some(audio));
        let (before, _) = on_disk(&dir);
        let written = bytes_written();
        let game = game_of(&moves);
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        let written = bytes_written() - written;
        let (after, _) = on_disk(&dir);
        assert!(
            written < (after.len() - before.len()) as u64 + 1000,
            "{written} bytes written for two moves"
        );
        assert_recording_of(&dir, &game, audio, "resumed");
        // The game resumed with another voice: the old recording is not this one.
        let voices = Path::new(env!("CARGO_MANIFEST_DIR")).join("voices");
        let (pack, clips) = crate::store::voices::load(&voices, "en").unwrap();
        let english = (pack, Style::San, Spacing::DEFAULT, clips);
        write_audio_scores(&settings_with(&dir, Some(&english)), &snapshot(&game)).unwrap();
        assert_recording_of(&dir, &game, &english, "in English");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 25, point 6: on a full disk the recording never recovered. Now an append that does
    /// not fit is cut back at once (the files are the recording as it was, whole, whether the
    /// samples or the cue line did not fit), a rewrite that does not fit leaves the old files
    /// and no temporary ones, and the first write after space returns catches up: the recording
    /// ends with every move.
    #[test]
    fn a_full_disk_leaves_a_whole_recording_that_catches_up() {
        let audio = de_fide();
        let moves = long_game(16, 1);
        let dir = scratch("full-disk");
        let settings = settings_with(&dir, Some(audio));
        let ten = game_of(&moves[..10]);
        write_audio_scores(&settings, &snapshot(&ten)).unwrap();
        let (ten_wav, ten_cues) = fresh_render(&ten, audio);
        let twelve = game_of(&moves[..12]);
        let (twelve_wav, _) = fresh_render(&twelve, audio);
        let samples_of_two = (twelve_wav.len() - ten_wav.len()) as u64;
        // No room for the samples; room for the samples but not for their cue lines.
        for (room, failed) in [
            (samples_of_two / 3, "cannot write the audio scoresheet"),
            (samples_of_two + 5, "cannot write the cue list"),
        ] {
            full_disk::set(&dir, Some(room));
            let err = write_audio_scores(&settings, &snapshot(&twelve)).unwrap_err();
            let text = format!("{err:#}");
            assert!(
                text.contains(failed)
                    && text.contains("blind-score")
                    && text.contains("No space left on device"),
                "{text}"
            );
            assert!(
                on_disk(&dir) == (ten_wav.clone(), ten_cues.clone()),
                "room {room}: the files are the ten moves' recording"
            );
            assert_eq!(audio_held(&settings), Some(10));
        }
        // A takeback needs a whole new recording: none fits, the old one stays.
        full_disk::set(&dir, Some(1000));
        let mut eight = ten.clone();
        eight.apply(G::Retract { to_ply: 8 }, 0).unwrap();
        assert!(write_audio_scores(&settings, &snapshot(&eight)).is_err());
        remove_leftovers(settings.folder.at());
        assert!(on_disk(&dir) == (ten_wav.clone(), ten_cues.clone()));
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // Space again: the next write catches up with every move.
        full_disk::set(&dir, None);
        let game = game_of(&moves);
        write_audio_scores(&settings, &snapshot(&game)).unwrap();
        assert_recording_of(&dir, &game, audio, "after the outage");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 25, point 6: while the audio scoresheet could not be written, `status` said the
    /// scoresheets stood at half-move 1 while `game.pgn` held 8 (the record counted as written
    /// only when every file was). Now it says where each stands, the writer catches up by
    /// itself when space returns, and says so once.
    #[test]
    fn status_says_where_the_audio_scoresheet_stands_and_it_catches_up() {
        let audio = de_fide();
        let moves = long_game(8, 1);
        let dir = scratch("audio-outage");
        let writer = RecordWriter::spawn(settings_with(&dir, Some(audio)));
        let wait = |what: &str, done: &dyn Fn() -> bool| {
            let start = std::time::Instant::now();
            while !done() {
                assert!(
                    start.elapsed() < std::time::Duration::from_secs(20),
                    "waiting for {what}"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        };
        writer.write(snapshot(&game_of(&moves[..1])));
        wait("the first move", &|| writer.health().audio_ply == Some(1));
        full_disk::set(&dir, Some(0));
        writer.write(snapshot(&game_of(&moves)));
        wait("the outage", &|| writer.outage().is_some());
        let health = writer.health();
        assert_eq!((health.written_ply, health.audio_ply), (Some(8), Some(1)));
        let status = outage_status(None, Some(&writer), &[]);
        assert_eq!(status.len(), 1, "{status:?}");
        assert!(
            status[0].contains(
                "game.pgn and the scoresheets stand at half-move 8, the audio scoresheet at \
                 half-move 1"
            ) && status[0].contains("blind-score.wav"),
            "{status:?}"
        );
        let news = outage_news(None, Some(&writer));
        assert!(
            news.len() == 1 && news[0].contains("the audio scoresheet at half-move 1"),
            "{news:?}"
        );
        full_disk::set(&dir, None);
        wait("the catch-up", &|| writer.outage().is_none());
        assert!(outage_status(None, Some(&writer), &[]).is_empty());
        let news = outage_news(None, Some(&writer));
        assert!(
            news.len() == 1 && news[0].contains("written again (up to half-move 8)"),
            "{news:?}"
        );
        let health = writer.finish();
        assert_eq!((health.written_ply, health.audio_ply), (Some(8), Some(8)));
        assert_recording_of(&dir, &game_of(&moves), audio, "caught up");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The envelope says when the move was sealed: the adjournment's time on the game's line,
    /// dated by the calendar of the runs that played it. The same at every rewrite, and after a
    /// restart an hour later (the line does not count the hour), though nothing is read back from
    /// the file it wrote before.
    #[test]
    fn the_envelope_is_dated_when_the_move_was_sealed_across_a_restart() {
        let dir = scratch("sealed-at");
        let settings = settings_with(&dir, None);
        let mut game = Game::new(RulesConfig::default());
        let by = game.to_move();
        let sealed = G::Seal {
            by,
            text: "Nf3".into(),
            notation: None,
        };
        // Sealed 70 s into a run that began at 2026-12-05 17:59:00 UTC.
        game.apply(sealed, 70_000).unwrap();
        let began: u64 = 1_796_493_540_000;
        let sealed_line = |dir: &Path| {
            let text =
                std::fs::read_to_string(dir.join(format!("{ENVELOPE_PREFIX}1-white.txt"))).unwrap();
            text.lines()
                .find(|l| l.starts_with("Sealed: "))
                .map(str::to_owned)
                .unwrap()
        };
        let snapshot = |now| RecordSnapshot {
            now,
            ..snapshot(&game)
        };
        let run = Calendar::from_marks([(0, began)]);
        write_envelope(&settings, &snapshot(80_000), &run).unwrap();
        assert_eq!(sealed_line(&dir), "Sealed: 2026-12-05 18:00 UTC");
        // Restarted an hour later: the line goes on from its journal's last time (80 s).
        let resumed = Calendar::from_marks([(0, began), (80_000, began + 3_600_000 + 80_000)]);
        std::fs::remove_file(dir.join(format!("{ENVELOPE_PREFIX}1-white.txt"))).unwrap();
        write_envelope(&settings, &snapshot(90_000), &resumed).unwrap();
        assert_eq!(sealed_line(&dir), "Sealed: 2026-12-05 18:00 UTC");
    }

    /// Issue 37, point 10: the adjournment envelope's Braille is in the Braille chess notation
    /// of the player who sealed (his own, as his score is; a sighted sealer's is the table's),
    /// not in the table's one: at a table of a German and an English blind player, the German's
    /// envelope is in German Braille (no capital signs) and the Englishman's in UEB, whichever
    /// of them sits White.
    #[test]
    fn the_envelope_is_in_the_sealers_braille_notation() {
        use tactus_core::record::braille::DEFAULT_PROFILE;
        let began: u64 = 1_796_493_540_000;
        let calendar = Calendar::from_marks([(0, began)]);
        for sealer in shakmaty::Color::ALL {
            let dir = scratch(&format!("envelope-{sealer}"));
            let mut settings = settings_with(&dir, None);
            let notation = |seat| match seat == sealer {
                true => "de",
                false => DEFAULT_PROFILE,
            };
            settings.profiles = ByColor::new_with(|seat| Profile::named(notation(seat)).unwrap());
            let mut game = Game::new(RulesConfig::default());
            if sealer == shakmaty::Color::Black {
                let e4 = tactus_core::rules::notation::match_move(game.position(), "e4").unwrap();
                game.apply(G::Move(e4), 1_000).unwrap();
            }
            let sealed = G::Seal {
                by: sealer,
                text: "Nf3".into(),
                notation: None,
            };
            game.apply(sealed, 70_000).unwrap();
            let snapshot = RecordSnapshot {
                now: 80_000,
                ..snapshot(&game)
            };
            write_envelope(&settings, &snapshot, &calendar).unwrap();
            let brf = std::fs::read_to_string(dir.join(format!("{ENVELOPE_PREFIX}1-{sealer}.brf")))
                .unwrap();
            let envelope =
                Envelope::from_game(&game, &[], 80_000, "2026-12-05 18:00 UTC".into()).unwrap();
            let in_profile = |name: &str| {
                let mut opts = settings.braille.clone();
                opts.profile = Profile::named(name).unwrap();
                envelope.braille(&opts).to_brf()
            };
            assert_ne!(in_profile("de"), in_profile(DEFAULT_PROFILE));
            assert_eq!(brf, in_profile("de"), "{sealer} sealed");
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// Issue 14, point 4: a record that could not be written (the folder went stale mid-game:
    /// read-only, full, out of file descriptors) stayed behind until the next move, with one
    /// log line. Now it is tried again by itself, the outage can be read while it lasts, its end
    /// is reported once, and no temporary file is left behind. (A directory in the way of
    /// `game.pgn` fails the rename even for root, who ignores a read-only folder.)
    #[test]
    fn a_stale_record_is_retried_reported_and_cleaned_up() {
        let dir = crate::store::scratch("stale");
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
            profiles: ByColor::new_with(|_| {
                Profile::named(tactus_core::record::braille::DEFAULT_PROFILE).unwrap()
            }),
            blind_scores: vec![BlindScore {
                braille: None,
                files: ScoreFiles::of(None),
                audio: None,
            }],
        });
        writer.write(RecordSnapshot {
            game,
            tags: vec![],
            now: 0,
            mark: None,
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
