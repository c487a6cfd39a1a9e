//! `config.toml`: what a tournament sets once: the game (players, event, which colour the blind
//! player has, which Laws, which time control), the two boards and their ports, the voice, where
//! the game's files go, and the console socket.
//!
//! Parsing is strict: an unknown key, a value of the wrong kind or a time control that does not
//! parse is an error that names the file, the key and what is allowed, because a typo here would
//! otherwise silently play a game under the wrong rules or on the wrong port. This module only
//! reads and checks; it opens no port, no device and no socket (the daemon does).
//!
//! Relative paths in the file (`record.dir`, `console.socket`, board ports and profile files) are
//! relative to the folder the configuration file is in, so that a unit file or a script can start
//! tactus from anywhere.
//!
//! One file per section: [`game`] (`[game]`: players, tags, colour, rules, time control),
//! [`boards`] (`[boards.*]`: profiles, ports, completion, buttons), `[voice]` (the speech's own
//! `SpeechConfig`), [`record`], [`console`], [`opponent`] (`[opponent]`, training), and
//! [`describe`] (the table in words). [`Settings`] is the file resolved once into what a game
//! runs on.

mod boards;
mod console;
mod describe;
mod game;
mod opponent;
mod paths;
mod record;
mod settings;
#[cfg(test)]
mod tests;
mod web;

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;
use shakmaty::{ByColor, Color};
use tactus_core::{
    arbiter::Completion,
    rules::{
        game::RulesConfig,
        notation::{self, PieceLetters},
    },
};

pub use boards::{
    BoardSection, BoardSetup, BoardsSection, CompletionName, MANUAL_PROFILE, PortSetup, SIM_PORT,
    SeatBoard,
};
pub use console::ConsoleSection;
pub use game::{BlindName, DEFAULT_GUIDANCE_REPEAT_MS, GameSection, SideName, StartBy};
pub use opponent::{DEFAULT_ENGINE, OpponentSection, start_from_fen};
pub use record::RecordSection;
pub use settings::{Settings, braille_options};
pub use web::{
    Access, HEAD_TIMEOUT, MAX_CONNECTIONS, MAX_PER_ADDRESS, STREAM_LIFETIME, WRITE_TIMEOUT,
    WebSection, check_host_name, check_origin, limits_words, own_name,
};

/// The whole configuration file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub game: GameSection,
    #[serde(default)]
    pub boards: BoardsSection,
    #[serde(default)]
    pub voice: crate::speech::SpeechConfig,
    #[serde(default)]
    pub record: RecordSection,
    #[serde(default)]
    pub console: ConsoleSection,
    /// The table's page and live PGN (`tactus hall` reads the game folders instead).
    #[serde(default)]
    pub web: WebSection,
    /// A training game: the engine that plays the other side (`tactus train`).
    #[serde(default)]
    pub opponent: Option<OpponentSection>,
    /// The folder relative paths are resolved against (the configuration file's folder).
    #[serde(skip)]
    pub base: PathBuf,
}

impl Config {
    /// Parse a configuration text; `origin` names it in errors. Relative paths stay relative to
    /// the current folder (see [`Config::load`] for files).
    pub fn parse(text: &str, origin: &str) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|e| anyhow!("{origin}: {e}"))?;
        config.voice.check().map_err(|e| anyhow!("{origin}: {e}"))?;
        config
            .rules_config()
            .with_context(|| format!("{origin}: key game.time_control"))?;
        config.check(origin)?;
        Ok(config)
    }

    /// Read and parse a configuration file; relative paths in it are relative to its folder.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
        let origin = path.display().to_string();
        let mut config = Config::parse(&text, &origin)?;
        config.base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        ConsoleSection::check_socket_path(&config.socket_path(), &origin)?;
        // Profile files are named relative to the file too: check them now that we know where.
        config.boards_setup(&origin)?;
        Ok(config)
    }

    /// Checks what serde cannot: combinations and names, section by section (in this order, so
    /// that the first thing wrong is the one reported).
    fn check(&self, origin: &str) -> Result<()> {
        self.console.check(origin)?;
        self.web.check(origin)?;
        if let Some(opponent) = &self.opponent {
            opponent.check(origin)?;
        }
        self.boards.check(origin, self.game.blind)?;
        self.game.check_guidance(origin)?;
        self.notations().map_err(|e| anyhow!("{origin}: {e}"))?;
        self.record.check(origin)?;
        self.boards.check_ports(origin, self.game.blind)?;
        self.voice
            .check_seats(self.blind_seats())
            .map_err(|e| anyhow!("{origin}: {e}"))?;
        if self.opponent.is_some() && self.game.blind == BlindName::Both {
            anyhow::bail!(
                "{origin}: game.blind = \"both\" with [opponent]: a training game has one blind \
                 player, against the engine; set game.blind to his colour"
            );
        }
        self.game.check_play(origin)?;
        Ok(())
    }

    /// A path from the file, resolved against the file's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        paths::resolve(&self.base, path)
    }

    /// The rules part as the game core wants it.
    pub fn rules_config(&self) -> Result<RulesConfig> {
        self.game.rules_config()
    }

    /// What may be a mistake but can be played (see [`GameSection::warnings`]).
    pub fn warnings(&self) -> Vec<String> {
        // At home against an engine the Laws' kinds of play (standard, rapid, blitz) have no
        // arbiter to apply them: a clock of 15 minutes is no mistake there.
        if self.opponent.is_some() {
            return Vec::new();
        }
        self.game.warnings()
    }

    /// The PGN tags the configuration sets (Event, Site, Round, White, Black).
    pub fn tags(&self) -> Vec<(String, String)> {
        self.game.tags()
    }

    /// Which seats have a blind player.
    pub fn blind_seats(&self) -> ByColor<bool> {
        ByColor::new_with(|c| self.game.blind.is_blind(c))
    }

    /// The piece letters each player writes: `game.white_notation` / `game.black_notation`, else
    /// a blind player's voice pack's language (the first part of the pack's name), else none
    /// (every notation at once). An unknown language is refused naming the key.
    pub fn notations(&self) -> Result<ByColor<Option<PieceLetters>>> {
        let blind = self.blind_seats();
        let packs = self.voice.packs(blind);
        let mut out = ByColor::<Option<PieceLetters>>::default();
        for seat in Color::ALL {
            let set = match seat {
                Color::White => &self.game.white_notation,
                Color::Black => &self.game.black_notation,
            };
            out[seat] = match set {
                Some(text) => Some(notation::letters_of(text).ok_or_else(|| {
                    anyhow!(
                        "key game.{seat}_notation = \"{text}\": not a notation tactus knows; one of \
                         en, de, nl, fr, es, it, pt, pl, ru, hu, cs, da, no, sv (or the language's \
                         English name: English, German, ...)"
                    )
                })?),
                None if blind[seat] => notation::letters_of(&packs[seat]),
                None => None,
            };
        }
        Ok(out)
    }

    /// The Braille chess notation of each seat: `record.braille_profile` for both, else each
    /// blind player's own (his voice pack's language where a profile knows it: a German voice
    /// gets the German Braille chess notation, a Spanish one the default); a sighted seat's is
    /// the table's ([`Config::braille_profile`]). A player's score is written in his, his
    /// Braille scoresheet entered at the console (F.8) read in it, and an adjournment envelope
    /// he seals written in it.
    pub fn braille_profiles(&self) -> ByColor<String> {
        if let Some(profile) = &self.record.braille_profile {
            return ByColor::new_with(|_| profile.clone());
        }
        let own = self.voice_braille_profiles();
        let table = Self::one_profile(&own);
        own.map(|profile| profile.unwrap_or_else(|| table.clone()))
    }

    /// The table's Braille chess notation, a sighted seat's (and what is no player's own, such
    /// as the printable scoresheet's options): `record.braille_profile`, else the blind
    /// players' own when they share it, else the default. Two blind players of two languages:
    /// the default here, each his own ([`Config::braille_profiles`]).
    pub fn braille_profile(&self) -> String {
        match &self.record.braille_profile {
            Some(profile) => profile.clone(),
            None => Self::one_profile(&self.voice_braille_profiles()),
        }
    }

    /// Each blind player's Braille chess notation by his voice pack's language (None: the seat
    /// is sighted).
    fn voice_braille_profiles(&self) -> ByColor<Option<String>> {
        let blind = self.blind_seats();
        let packs = self.voice.packs(blind);
        let known = tactus_core::record::braille::Profile::names().unwrap_or_default();
        ByColor::new_with(|seat| {
            let language = packs[seat].split('-').next().unwrap_or_default();
            blind[seat].then(|| match known.iter().any(|name| name == language) {
                true => language.to_string(),
                false => tactus_core::record::braille::DEFAULT_PROFILE.to_string(),
            })
        })
    }

    /// The profile the blind players share, else the default.
    fn one_profile(own: &ByColor<Option<String>>) -> String {
        match (&own.white, &own.black) {
            (Some(a), Some(b)) if a != b => tactus_core::record::braille::DEFAULT_PROFILE.into(),
            (Some(one), _) | (None, Some(one)) => one.clone(),
            (None, None) => tactus_core::record::braille::DEFAULT_PROFILE.into(),
        }
    }

    /// Each seat's board as the file gives it, with its key.
    pub fn seat_boards(&self) -> ByColor<SeatBoard> {
        self.boards.seats(self.game.blind)
    }

    /// Each seat's board as the daemon sets it up (profiles read, ports resolved).
    pub fn boards_setup(&self, origin: &str) -> Result<ByColor<BoardSetup>> {
        let seats = self.seat_boards();
        Ok(ByColor {
            white: seats
                .white
                .section
                .setup(seats.white.key, origin, &self.base)?,
            black: seats
                .black
                .section
                .setup(seats.black.key, origin, &self.base)?,
        })
    }

    /// Who starts play: `game.start`, else the arbiter, but the boards in a training game
    /// (nobody else is at his table).
    pub fn start_by(&self) -> StartBy {
        self.game.start.unwrap_or(if self.opponent.is_some() {
            StartBy::Boards
        } else {
            StartBy::Arbiter
        })
    }

    /// When the sighted player's move counts.
    pub fn completion(&self) -> Completion {
        self.boards.completion(self.game.blind)
    }

    /// Each blind player's buttons: number -> console line (checked when the file was read).
    pub fn buttons(&self) -> ByColor<BTreeMap<u8, String>> {
        self.boards.buttons(self.game.blind)
    }

    /// The output folder.
    pub fn record_dir(&self) -> PathBuf {
        self.resolve(&self.record.dir)
    }

    /// `[web] broadcast_dir`, relative to the configuration file.
    pub fn broadcast_dir(&self) -> Option<PathBuf> {
        self.web.broadcast_dir.as_ref().map(|p| self.resolve(p))
    }

    /// The arbiter's token file, if one is configured (relative to the configuration file).
    pub fn token_file(&self) -> Option<PathBuf> {
        self.console.token_file.as_ref().map(|p| self.resolve(p))
    }

    /// The console socket path.
    pub fn socket_path(&self) -> PathBuf {
        self.resolve(&self.console.socket)
    }

    /// A configuration made a training game: the engine takes the sighted player's seat, at the
    /// console (a sighted board's sensors have nobody to read), and the tags say what it was.
    pub fn into_training(self) -> Config {
        let mut config = self;
        let engine_name = config
            .opponent
            .get_or_insert_with(OpponentSection::default)
            .engine_name();
        config.boards.sighted = Some(BoardSection {
            profile: MANUAL_PROFILE.into(),
            port: None,
            completion: None,
            buttons: None,
        });
        let g = &mut config.game;
        let (mine, its) = match g.blind.color().unwrap_or(Color::White) {
            Color::White => (&mut g.white, &mut g.black),
            Color::Black => (&mut g.black, &mut g.white),
        };
        mine.get_or_insert_with(|| "Blind player".into());
        its.get_or_insert(engine_name);
        g.event.get_or_insert_with(|| "Training".into());
        config
    }

    /// `[opponent]` as given or changed on the command line (`tactus train`'s options).
    pub fn check_training(&self, origin: &str) -> Result<()> {
        match &self.opponent {
            Some(opponent) => opponent.check(origin),
            None => Ok(()),
        }
    }

    /// Where a training game starts (`[opponent]` start_fen or start_pgn with start_move); the
    /// initial position otherwise. Reads the PGN file, relative to the configuration's folder.
    pub fn start_position(&self, origin: &str) -> Result<shakmaty::Chess> {
        match &self.opponent {
            Some(opponent) => opponent.start_position(origin, &self.base),
            None => Ok(shakmaty::Chess::default()),
        }
    }
}
