//! Setting a game up: the table the daemon plays on, from the run's [`Settings`]: either a new
//! game folder with its journal header or the unfinished game of a folder, replayed from its
//! journal.
//!
//! A game that is over is never resumed, and a folder without a journal is refused with what to
//! give instead: both are a user's mistake to be told at once, before any task starts. So is a
//! damaged journal, whether given with `--resume` or found in the output folder: a fresh game in
//! its place would tell the blind player a board that is not his (the error names the folder,
//! the line, and the choices). Only folders the daemon's user owns are resumed, and their files
//! are opened without following symbolic links. A resumed game keeps the settings saved in its
//! journal; [`saved_settings`] says which of them the configuration file now sets otherwise.
//! Before a new game folder is made, [`check_new_game`] checks what `tactus check-config`
//! checks too, down to a probe that a folder can be made in `record.dir`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use tracing::{info, warn};

use super::{
    files,
    journal::{self, Journal},
    uid,
};
use crate::config::Settings;
use crate::store::trusted::TrustedDir;
use crate::wall::unix_ms;
use nix::fcntl::OFlag;
use tactus_core::{
    announce::{Wording, voice::VoicePack},
    folder::JOURNAL_FILE,
    journal::{Entry, FORMAT_VERSION, Header, JournalFile, SetupRecord, replay},
    record::date::{Calendar, pgn_date},
    table::{ClockSeat, Table, TableSettings},
};

/// Every configured serial port that cannot be used now, with its key: missing (the ports
/// there are named) or busy (the process holding it named).
pub fn port_troubles(settings: &Settings) -> Vec<(String, PathBuf, crate::port::PortTrouble)> {
    use crate::config::{BoardSetup, PortSetup};
    let both = settings.arbiter.is_blind(shakmaty::Color::White)
        && settings.arbiter.is_blind(shakmaty::Color::Black);
    let mut troubles = Vec::new();
    for seat in shakmaty::Color::ALL {
        let BoardSetup::Sensor {
            port: PortSetup::Path(path),
            ..
        } = &settings.boards[seat]
        else {
            continue;
        };
        let key = if both {
            format!("boards.{seat}.port")
        } else if settings.arbiter.is_blind(seat) {
            "boards.blind.port".into()
        } else {
            "boards.sighted.port".into()
        };
        if let Err(trouble) = crate::port::probe(path) {
            troubles.push((key, path.clone(), trouble));
        }
    }
    troubles
}

/// The ports as `run` starts: a busy one is refused before any game folder is made (the game
/// could not be played); a missing one is said on the terminal, and the board is waited for.
fn check_ports_at_start(settings: &Settings) -> Result<()> {
    let mut busy = Vec::new();
    for (key, path, trouble) in port_troubles(settings) {
        match trouble {
            crate::port::PortTrouble::Busy { .. } => {
                busy.push(format!("key {key} = \"{}\": {trouble}", path.display()))
            }
            crate::port::PortTrouble::Missing { .. } => crate::output::say_error_line(&format!(
                "tactus: warning: {}: key {key} = \"{}\": {trouble}; tactus waits for the board \
                 (plug it in; it is found by itself)",
                settings.origin,
                path.display()
            )),
        }
    }
    if !busy.is_empty() {
        bail!("{}: {}", settings.origin, busy.join("; "));
    }
    Ok(())
}

/// The game of a run, opened: the game in `resume`, else the unfinished game of the output folder
/// (unless `new_game`), else a new game.
pub fn open(
    settings: &Settings,
    voices_dir: &Path,
    resume: Option<&Path>,
    new_game: bool,
    table: &TableSettings,
) -> Result<OpenedGame> {
    check_ports_at_start(settings)?;
    match (resume, new_game) {
        (Some(folder), _) => resume_game(folder),
        (None, false) => match files::find_unfinished(&settings.record_dir)? {
            Some(folder) => {
                info!("resuming the unfinished game in {}", folder.display());
                resume_game(&folder)
            }
            None => create_game(settings, voices_dir, table),
        },
        (None, true) => create_game(settings, voices_dir, table),
    }
}

/// The table's settings of the day, from the run's settings: its boards' links and sensors,
/// the DGT clock on the sighted board and its lever, how play starts, each blind player's
/// buttons, a simulated board's pace (`sim_speed`), a training game.
pub fn table_settings(settings: &Settings, sim_speed: f64) -> TableSettings {
    use crate::config::{BoardSetup, PortSetup};
    let sensors = shakmaty::ByColor::new_with(|seat| {
        matches!(settings.boards[seat], BoardSetup::Sensor { .. })
    });
    let clock = settings
        .arbiter
        .the_sighted()
        .and_then(|seat| match &settings.boards[seat] {
            BoardSetup::Sensor { profile, .. } if profile.clock.attached => Some(ClockSeat {
                seat,
                left: settings.clock_left,
                lever_completes_move: profile.clock.lever_completes_move,
            }),
            _ => None,
        });
    TableSettings {
        links: sensors,
        sensors,
        clock,
        start_by_boards: settings.start_by == crate::config::StartBy::Boards,
        // A simulated board's players act faster by the simulation's factor: so may its events.
        intake_speed: shakmaty::ByColor::new_with(|seat| match &settings.boards[seat] {
            BoardSetup::Sensor {
                port: PortSetup::Sim,
                ..
            } => sim_speed.max(1.0),
            _ => 1.0,
        }),
        buttons: settings.buttons.clone(),
        training: settings.training(),
    }
}

/// What a new game needs from the configuration, checked before anything is made: a game folder
/// whose journal names a voice pack that does not exist would be "resumed", and fail, at every
/// start after the file is fixed. `tactus check-config` runs the same checks.
/// Returns what the checks read, for the new game to use rather than read again.
pub fn check_new_game(settings: &Settings, voices_dir: &Path) -> Result<NewGame> {
    let origin = settings.origin.as_str();
    // The pack with its clips, from the voices folder: a folder without it spoke nothing and
    // wrote no audio scoresheet, with only a log line to say so.
    let pack = crate::store::voices::load(voices_dir, &settings.voice.voice)
        .map(|(pack, _)| pack)
        .with_context(|| {
            format!(
                "{origin}: key voice.pack = \"{}\": the voices folder {} must hold it with its \
                 clips (give the folder with --voices-dir or $TACTUS_VOICES)",
                settings.voice.voice,
                voices_dir.display()
            )
        })?;
    // The console's socket as `run` will bind it: its folder and its group.
    super::console::check_socket_path(&settings.socket, settings.group.as_deref())
        .with_context(|| origin.to_owned())?;
    if let Some(opponent) = &settings.opponent {
        let program = opponent.program();
        if super::engine::resolve_program(&program).is_none() {
            bail!(
                "{origin}: key opponent.engine: {} is not an executable program (looked up in \
                 PATH and /usr/games); install Debian's stockfish (scripts/setup does) or give \
                 the engine's full path",
                program.display()
            );
        }
    }
    // The arbiter's own token file, when the file names one: refused now, before a game folder
    // is made for a game nobody could then start (and the next run would resume).
    if let Some(token) = &settings.token_file {
        super::console::check_token_file(token, origin)?;
    }
    // A training game's set-up position (a PGN file is read once, here).
    let start = settings.start_position()?;
    probe_record_dir(&settings.record_dir, origin)?;
    if let Some(dir) = &settings.broadcast_dir {
        files::trusted_broadcast_dir(dir).with_context(|| origin.to_owned())?;
    }
    Ok(NewGame { pack, start })
}

/// What [`check_new_game`] read: the voice pack's words (for its description) and the position
/// the game starts from.
pub struct NewGame {
    pub pack: VoicePack,
    pub start: shakmaty::Chess,
}

/// Whether a game folder can be made in `dir` (record.dir): a folder is made and removed again
/// where the first one would go (in `dir`, or in its nearest existing parent that the game
/// folder's parents would be made in), so that nothing is left behind and a folder the daemon
/// cannot write is said now, not at the table.
fn probe_record_dir(dir: &Path, origin: &str) -> Result<()> {
    // Nothing is made, not even the probe, through a folder another user could re-point.
    files::trusted_record_dir(dir).with_context(|| origin.to_owned())?;
    let mut existing = dir;
    while std::fs::symlink_metadata(existing).is_err() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if existing == Path::new(".") {
            break;
        }
    }
    if !existing.is_dir() {
        bail!(
            "{origin}: key record.dir = {}: {} is not a folder; name the folder the game folders \
             go in",
            dir.display(),
            existing.display()
        );
    }
    let probe = existing.join(format!(".tactus-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).map_err(|e| {
        anyhow!(
            "{origin}: key record.dir = {}: no game folder can be made in {} ({e}); name a folder \
             the daemon's user may write to",
            dir.display(),
            existing.display()
        )
    })?;
    std::fs::remove_dir(&probe)
        .with_context(|| format!("cannot remove the probe folder {}", probe.display()))?;
    Ok(())
}

/// A new game's identity: 16 random bytes in hex, named by the journal's header and the record's
/// mark (`record.json`), so that a journal of another game is never resumed as this one.
fn game_id() -> Result<String> {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).map_err(|e| {
        anyhow!("cannot get random bytes from the system for the game's identity: {e}")
    })?;
    Ok(random.iter().map(|b| format!("{b:02x}")).collect())
}

/// When a game is resumed, which of its settings saved in the journal (the rules, the clock,
/// the players, the boards' timing, the voice: what cannot change mid-game) the configuration
/// file now sets otherwise, in words: the saved ones stay in force. Said at every resume, so
/// that a file edited between two sessions is not believed to have changed the game.
pub fn saved_settings(settings: &Settings, header: &Header) -> Vec<String> {
    let origin = settings.origin.as_str();
    let saved = &header.setup;
    let mut differ: Vec<String> = Vec::new();
    let mut compare = |what: &str, saved: String, file: String| {
        if saved != file {
            differ.push(format!("{what}: the game's {saved}, the file's {file}"));
        }
    };
    let words = |tc: &Option<String>| match tc {
        Some(text) => match text.parse::<tactus_core::rules::time_control::TimeControl>() {
            Ok(tc) => format!("{text} ({})", tc.describe()),
            Err(_) => text.clone(),
        },
        None => "none (no clock)".into(),
    };
    let now = saved
        .start()
        .ok()
        .map(|start| setup_record(settings, &start, &TableSettings::default()));
    for tag in ["White", "Black", "Event", "Site", "Round"] {
        let of = |tags: &[(String, String)]| {
            tags.iter()
                .find(|(name, _)| name == tag)
                .map_or_else(|| "(none)".to_string(), |(_, v)| format!("\"{v}\""))
        };
        compare(tag, of(&header.tags), of(&settings.tags));
    }
    if let Some(now) = &now {
        compare(
            "the blind player's colour",
            format!("{:?}", saved.blind).to_lowercase(),
            format!("{:?}", now.blind).to_lowercase(),
        );
        let edition = |e: tactus_core::rules::Edition| match e {
            tactus_core::rules::Edition::Fide2001 => "2001 text".to_string(),
            tactus_core::rules::Edition::Fide2009 => "2009 text".to_string(),
        };
        compare("the Laws", edition(saved.edition), edition(now.edition));
        compare(
            "play",
            play_name(saved.play).into(),
            play_name(now.play).into(),
        );
        compare(
            "time control",
            words(&saved.time_control),
            words(&now.time_control),
        );
        // A board's timing comes from its profile: named, not listed number by number.
        let two_blind = saved.blind == tactus_core::journal::BlindRecord::Both;
        if saved.blind_board != now.blind_board {
            compare(
                if two_blind {
                    "white's tactile board timing"
                } else {
                    "tactile board timing"
                },
                "profile".into(),
                "other profile".into(),
            );
        }
        if saved.sighted_board != now.sighted_board || saved.completion != now.completion {
            compare(
                if two_blind {
                    "black's tactile board timing"
                } else {
                    "sighted board and when his move counts"
                },
                "setting".into(),
                "other setting".into(),
            );
        }
        compare(
            "guidance repeated every",
            format!("{} ms", saved.guidance_repeat_ms),
            format!("{} ms", now.guidance_repeat_ms),
        );
        compare(
            "own move said back",
            if saved.say_own_move { "yes" } else { "no" }.into(),
            if now.say_own_move { "yes" } else { "no" }.into(),
        );
        // The arbiter's switches during the game stand too; the file only sets a new game's.
        let off = |r: &SetupRecord| {
            let names: Vec<&str> = r.requests_off().iter().map(|r| r.name()).collect();
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        };
        compare(
            "requests switched off at the start (12.3 a)",
            off(saved),
            off(now),
        );
        if saved.seat_voice_packs.is_none() && now.seat_voice_packs.is_none() {
            compare(
                "voice pack",
                saved.voice_pack.clone(),
                now.voice_pack.clone(),
            );
        } else {
            for seat in shakmaty::Color::ALL {
                compare(
                    &format!("{seat}'s voice pack"),
                    saved.pack_of(seat).to_owned(),
                    now.pack_of(seat).to_owned(),
                );
            }
        }
        compare(
            "voice style",
            format!("{:?}", saved.voice_style).to_lowercase(),
            format!("{:?}", now.voice_style).to_lowercase(),
        );
    }
    let mut lines = vec![if differ.is_empty() {
        format!(
            "resumed with the settings saved in its journal; {origin} sets the same players, \
             rules, clock and voice"
        )
    } else {
        format!(
            "resumed with the settings saved in its journal, which stay in force (a game's \
             players, rules, clock and voice do not change mid-game); {origin} now differs in:"
        )
    }];
    lines.extend(differ.into_iter().map(|d| format!("  {d}")));
    lines.push(format!(
        "the boards' ports, the speakers, the console and the folders follow {origin}"
    ));
    lines
}

/// The journal's record of the table the settings make, from `start`: the rules, the boards,
/// and the voice pack of each seat (the blind player's, or White's, as `voice_pack`; the other's
/// too where the two differ).
fn setup_record(
    settings: &Settings,
    start: &shakmaty::Chess,
    table: &TableSettings,
) -> SetupRecord {
    let blind = settings.arbiter.names();
    let blind = shakmaty::ByColor::new_with(|c| blind.is_blind(c));
    let packs = settings.voice.packs(blind);
    let first = settings
        .arbiter
        .the_blind()
        .unwrap_or(shakmaty::Color::White);
    SetupRecord::new(
        &settings.arbiter,
        start,
        &packs[first],
        settings.voice.style,
    )
    .with_seat_packs(packs)
    .with_requests_off(settings.requests_off.iter().copied())
    .with_table(table, &settings.braille.profile.name)
    // Each player's Braille scoresheet is read in the notation his own score is written in.
    .with_seat_braille(settings.braille_profiles.as_ref().map(|p| p.name.clone()))
}

/// `game.play` as the file writes it.
fn play_name(play: tactus_core::rules::PlayMode) -> &'static str {
    use tactus_core::rules::PlayMode::*;
    match play {
        Standard => "standard",
        Rapid => "rapid",
        Blitz => "blitz",
        RapidSupervised => "rapid-supervised",
        BlitzSupervised => "blitz-supervised",
    }
}

/// The game a run plays, opened: where it is (its folder, held open and locked), how it was set up
/// (its journal's header), its journal to go on with and, resumed, the journal as read.
pub struct OpenedGame {
    pub folder: PathBuf,
    pub header: Header,
    pub journal: Journal,
    /// A resumed game: its journal as read, to be replayed into the table (once the voices it
    /// names are loaded).
    pub read: Option<JournalFile>,
    /// The game time the journal ends at: the game's time line goes on from there.
    pub offset: u64,
    /// Where the journal's stretches of the time line stood on the calendar (each input's time
    /// and Unix time): the record dates an adjournment sealed in an earlier run with it.
    pub calendar: Calendar,
    /// The folder's lock, held while this run plays the game (see [`lock_folder`]).
    pub lock: std::fs::File,
    /// The game folder, held open from the moment it was made or found trusted: its lock, its
    /// journal and every record file are opened relative to it, never through its path again.
    pub held: TrustedDir,
}

impl OpenedGame {
    /// Whether the game was taken up again from its journal.
    pub fn resumed(&self) -> bool {
        self.read.is_some()
    }

    /// The table the game is played at, its seats worded with `wording`: a new game's, or the
    /// one its journal replays into. An input that cannot be read back is skipped, and said.
    pub fn table(&self, wording: shakmaty::ByColor<Wording>) -> Result<Table> {
        let Some(read) = &self.read else {
            return Ok(Table::new(
                self.header.setup.table_parts(&self.header.tags, wording)?,
            ));
        };
        let replayed = replay(read, wording, |_, _| {})?;
        // The folder's record must be of this game: another game's journal put in its place
        // (with its own mark, or none) would overwrite it.
        journal::check_record_at(self.held.at(), read, replayed.table.game())?;
        for skipped in &replayed.skipped {
            warn!(
                "{}: skipped an input that cannot be read back: {skipped}",
                read.path.display()
            );
        }
        Ok(replayed.table)
    }
}

/// The name of a game folder's lock file: it holds the process id of the tactus playing it.
pub use tactus_core::folder::LOCK_FILE;

/// Lock the game folder held open, `folder`, for this run: one game has one daemon. A second
/// `tactus run` (another configuration naming the same output folder) is refused, naming the
/// process that holds it, instead of resuming the game under the first one's feet. The lock goes
/// with the process. The lock file is opened in the folder held, never through its path.
pub fn lock_folder(folder: &TrustedDir) -> Result<std::fs::File> {
    use std::io::{Read, Seek, Write};
    let at = folder.at();
    let path = at.file_path(LOCK_FILE);
    let mut file = at
        .append(LOCK_FILE)
        .with_context(|| format!("cannot open the game's lock {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = at
                .open(LOCK_FILE, OFlag::O_RDONLY, 0)
                .and_then(|mut f| f.read_to_string(&mut holder));
            bail!(
                "the game in {} is being played by another tactus (process {}); one game has \
                 one daemon: stop that one first, or start a new game with `tactus run --new`",
                folder.path().display(),
                holder.trim()
            );
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| writeln!(file, "{}", std::process::id()))
        .with_context(|| format!("cannot write the game's lock {}", path.display()))?;
    Ok(file)
}

fn create_game(
    settings: &Settings,
    voices_dir: &Path,
    table: &TableSettings,
) -> Result<OpenedGame> {
    let NewGame { start, .. } = check_new_game(settings, voices_dir)?;
    let created = unix_ms();
    let group = settings
        .group
        .as_deref()
        .map(crate::store::private::group_id)
        .transpose()?;
    let held = files::new_game_folder(
        &settings.record_dir,
        &settings.white,
        &settings.black,
        created,
        group,
    )?;
    let folder = held.path().to_owned();
    let mut tags = settings.tags.clone();
    tags.push(("Date".into(), pgn_date(created)));
    let header = Header {
        version: FORMAT_VERSION,
        game: game_id()?,
        created_unix_ms: created,
        tags,
        setup: setup_record(settings, &start, table),
    };
    let lock = lock_folder(&held)?;
    let journal = Journal::create_in(&held, &header)?;
    Ok(OpenedGame {
        folder,
        header,
        journal,
        read: None,
        calendar: Calendar::default(),
        offset: 0,
        lock,
        held,
    })
}

fn resume_game(folder: &Path) -> Result<OpenedGame> {
    let path = folder.join(JOURNAL_FILE);
    // The folder and every folder on the way must be the daemon's user's or root's and closed to
    // others: a game another user could re-point is neither read nor written.
    crate::store::trusted::check_folder(folder, crate::store::trusted::Last::Private).map_err(
        |e| {
            anyhow!(
                "the game folder {} cannot be trusted: {e}; another user could have planted this \
                 game, or could re-point its folder: tactus resumes only a game whose folders no \
                 other user can change (see [record] dir in the README)",
                folder.display()
            )
        },
    )?;
    // Held open from here: what is checked, locked, read and continued is this folder.
    let held = TrustedDir::open(folder)
        .with_context(|| format!("cannot hold the game folder {}", folder.display()))?;
    if let Ok(owner) = held.owner()
        && owner != uid::daemon_uid()
    {
        bail!(
            "{} belongs to another user (uid {}), not to the daemon's (uid {}); tactus resumes \
             only its own games: another user could have planted this one",
            folder.display(),
            owner,
            uid::daemon_uid()
        );
    }
    // Locked before the journal is read: another daemon may be writing it.
    let lock = lock_folder(&held)?;
    let read = journal::read_against_record_at(held.at())?;
    if read.is_finished() {
        bail!(
            "the game in {} is over; nothing to resume (`tactus replay {}` prints it)",
            folder.display(),
            path.display()
        );
    }
    if read.torn {
        warn!(
            "{}: the last line was cut off by the crash and is dropped",
            path.display()
        );
    }
    let journal = Journal::append_in(&held, &read)?;
    files::remove_leftovers(held.at());
    Ok(OpenedGame {
        folder: folder.to_owned(),
        header: read.header.clone(),
        journal,
        offset: read.last_time(),
        calendar: Calendar::from_marks(read.entries.iter().filter_map(|entry| match entry {
            Entry::Input { t, wall, .. } | Entry::Table { t, wall, .. } => Some((*t, *wall)),
            _ => None,
        })),
        read: Some(read),
        lock,
        held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use shakmaty::Color;

    /// Issue 37, point 10: at a table of two blind players of two languages (White hears
    /// German, Black English) the game's journal keeps each one's Braille chess notation, and
    /// the table made from it (a new game's, a resumed one's) reads each one's Braille
    /// scoresheet in his: German for White, the default for Black; not the table's one.
    #[test]
    fn f8_each_blind_players_braille_sheet_is_read_in_his_own_notation_from_the_journal() {
        let text = "[game]\nblind = \"both\"\n[voice]\npack = \"de-fide\"\nspeaker = \"none\"\n\
                    [voice.white]\npack = \"de-fide\"\n[voice.black]\npack = \"en\"\n";
        let config = Config::parse(text, "c.toml").unwrap();
        let settings = Settings::resolve(&config, "c.toml").unwrap();
        let record = setup_record(
            &settings,
            &shakmaty::Chess::default(),
            &TableSettings::default(),
        );
        // As the journal's header line keeps it.
        let line = serde_json::to_string(&record).unwrap();
        let back: tactus_core::journal::SetupRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(
            Color::ALL.map(|seat| back.braille_of(seat).to_owned()),
            ["de".to_owned(), "ukaaf".to_owned()],
            "{line}"
        );
    }
}
