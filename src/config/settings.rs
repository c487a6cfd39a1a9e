//! The settings a game runs on: the configuration file resolved once, at the start of a run or of
//! `tactus check-config`, into values (paths against the file's folder, the boards' profiles
//! read, the arbiter's configuration, the tags, the Braille layout), so that the daemon reads
//! fields instead of asking the file piece by piece, and every mistake the file can hold is said
//! before anything is made.
//!
//! One thing stays a question: where a training game starts ([`Settings::start_position`]),
//! because it may read a PGN file, and only a new game needs it (a resumed game's start is in
//! its journal, and must not fail because that file was moved away since).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
};

use anyhow::{Context, Result, anyhow};
use shakmaty::ByColor;
use tactus_core::{
    arbiter::{ArbiterConfig, SeatConfig},
    board::recognize::RecognizerConfig,
    console::Switchable,
    record::braille::{BrailleOptions, PageSize, Profile as BrailleProfile},
};

use super::{BoardSetup, Config, OpponentSection, StartBy};
use crate::speech::SpeechConfig;

/// The configuration as a game runs on it.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The configuration file's name, for messages that name one of its keys.
    pub origin: String,
    /// Each seat's board: a sensor board's profile and port, or a board whose moves are entered.
    pub boards: ByColor<BoardSetup>,
    /// What the arbiter is made with: the Laws, the seats, the boards' recognizers.
    pub arbiter: ArbiterConfig,
    /// The PGN tags the file sets (Event, Site, Round, White, Black), in that order.
    pub tags: Vec<(String, String)>,
    /// The players' names as the game folder is named (empty when the file gives none).
    pub white: String,
    pub black: String,
    /// `[voice]`: the speakers and the pack a new game is said in.
    pub voice: SpeechConfig,
    /// Where game folders go.
    pub record_dir: PathBuf,
    /// The Braille page, and the table's profile (`Config::braille_profile`).
    pub braille: BrailleOptions,
    /// Each seat's own Braille chess notation (`Config::braille_profiles`): his score, his
    /// Braille scoresheet entered at the console and an envelope he seals are in it.
    pub braille_profiles: ByColor<BrailleProfile>,
    /// The console socket, and the group that may use it.
    pub socket: PathBuf,
    pub group: Option<String>,
    /// The arbiter's token file, when the file names one (otherwise it goes in the game folder).
    pub token_file: Option<PathBuf>,
    /// Each blind player's board's buttons: number -> console line (none for a sighted one).
    pub buttons: ByColor<BTreeMap<u8, String>>,
    /// The colour of the player on the DGT clock's left (when the sighted board has one).
    pub clock_left: shakmaty::Color,
    /// Who starts the clocks: `game.start`, else the arbiter (a training game: the boards).
    pub start_by: StartBy,
    /// A training game's engine.
    pub opponent: Option<OpponentSection>,
    /// The players' requests switched off from the start (`game.requests_off`, 12.3 a).
    pub requests_off: BTreeSet<Switchable>,
    /// `[web] listen`: where the table's page listens (none by default).
    pub web_listen: Option<std::net::SocketAddr>,
    /// `[web] names` and `allow_origin`: whom the page answers.
    pub web_access: super::Access,
    /// `[web] broadcast_dir`: where `games.pgn` is kept for a broadcaster.
    pub broadcast_dir: Option<PathBuf>,
    /// The folder the file's relative paths are resolved against (a training start's PGN).
    base: PathBuf,
}

impl Settings {
    /// Resolve `config` (read from `origin`). Fails only on what [`Config::load`] checks too, so
    /// a loaded file resolves; a configuration built in code is checked here.
    pub fn resolve(config: &Config, origin: &str) -> Result<Settings> {
        let boards = config.boards_setup(origin)?;
        let recognizer = |setup: &BoardSetup| match setup {
            BoardSetup::Manual => None,
            BoardSetup::Sensor { profile, .. } => Some(RecognizerConfig::from_profile(profile)),
        };
        let blind = config.blind_seats();
        let completion = config.completion();
        let notations = config.notations().map_err(|e| anyhow!("{origin}: {e}"))?;
        let seats = ByColor::new_with(|c| SeatConfig {
            blind: blind[c],
            board: recognizer(&boards[c]),
            completion,
            notation: notations[c],
            engine: config.opponent.is_some() && !blind[c],
        });
        let arbiter = ArbiterConfig {
            rules: config
                .rules_config()
                .with_context(|| format!("{origin}: key game.time_control"))?,
            seats,
            guidance_repeat_ms: config.game.guidance_repeat_ms,
            say_own_move: config.game.say_own_move,
            correction_window_ms: config.game.correction_window_ms,
        };
        arbiter.check().map_err(|e| anyhow!("{origin}: {e}"))?;
        let record = &config.record;
        Ok(Settings {
            origin: origin.to_owned(),
            boards,
            arbiter,
            tags: config.tags(),
            white: config.game.white.clone().unwrap_or_default(),
            black: config.game.black.clone().unwrap_or_default(),
            voice: config.voice.clone(),
            record_dir: config.record_dir(),
            braille: braille_options(
                &config.braille_profile(),
                record.page_cells,
                record.page_lines,
            )
            .with_context(|| origin.to_owned())?,
            braille_profiles: {
                let names = config.braille_profiles();
                let named = |name: &str| {
                    BrailleProfile::named(name)
                        .map_err(|e| anyhow!("{origin}: key record.braille_profile: {e}"))
                };
                ByColor {
                    white: named(&names.white)?,
                    black: named(&names.black)?,
                }
            },
            socket: config.socket_path(),
            group: config.console.group.clone(),
            token_file: config.token_file(),
            buttons: config.buttons(),
            clock_left: config.boards.clock_left.color(),
            start_by: config.start_by(),
            opponent: config.opponent.clone(),
            requests_off: config.game.requests_off.iter().copied().collect(),
            web_listen: config.web.listen_addr(origin)?,
            web_access: config.web.access(),
            broadcast_dir: config.broadcast_dir(),
            base: config.base.clone(),
        })
    }

    /// A training game.
    pub fn training(&self) -> bool {
        self.opponent.is_some()
    }

    /// Where a new game starts: a training game's `start_fen`, or its `start_pgn` at
    /// `start_move` (the PGN file is read now); the initial position otherwise.
    pub fn start_position(&self) -> Result<shakmaty::Chess> {
        match &self.opponent {
            Some(opponent) => opponent.start_position(&self.origin, &self.base),
            None => Ok(shakmaty::Chess::default()),
        }
    }
}

/// The Braille scoresheet's options from `[record]`'s profile name and page size.
pub fn braille_options(profile: &str, cells: usize, lines: usize) -> Result<BrailleOptions> {
    let profile =
        BrailleProfile::named(profile).map_err(|e| anyhow!("key record.braille_profile: {e}"))?;
    let mut opts = BrailleOptions::new(profile);
    opts.page = PageSize::new(cells, lines)
        .map_err(|e| anyhow!("keys record.page_cells, record.page_lines: {e}"))?;
    Ok(opts)
}
