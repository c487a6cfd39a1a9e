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

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use shakmaty::Color;

use tactus_core::rules::Millis;
use tactus_core::{
    arbiter::Completion,
    board::profile::{Profile, ProfileSet},
    rules::{Edition, PlayMode, game::RulesConfig, time_control::TimeControl},
};

/// The `port` value that asks for a built-in board simulator on a real pseudo-terminal.
pub const SIM_PORT: &str = "sim";
/// The `profile` value of a sighted board without sensors (moves entered at the console).
pub const MANUAL_PROFILE: &str = "manual";
/// How long a board that still differs waits before it is described again (F.7: guided until it
/// is right), unless `game.guidance_repeat_ms` says otherwise.
pub const DEFAULT_GUIDANCE_REPEAT_MS: u64 = 8000;

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
    /// A training game: the engine that plays the other side (`tactus train`).
    #[serde(default)]
    pub opponent: Option<OpponentSection>,
    /// The folder relative paths are resolved against (the configuration file's folder).
    #[serde(skip)]
    pub base: PathBuf,
}

/// A colour as the file writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SideName {
    #[default]
    White,
    Black,
}

impl SideName {
    pub fn color(self) -> Color {
        match self {
            SideName::White => Color::White,
            SideName::Black => Color::Black,
        }
    }
}

/// `[game]`: the players, the event's tags, the blind player's colour and the rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSection {
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub site: Option<String>,
    pub round: Option<String>,
    /// The blind player's colour: "white" (default) or "black".
    #[serde(default)]
    pub blind: SideName,
    /// PGN TimeControl notation (`40/7200:3600`, `5400+30`, `300`, delay `5400d30`); absent: no clock.
    pub time_control: Option<String>,
    /// "2001" (default) or "2009" ("2005", the name tactus once gave the later text, is refused
    /// with the reason: see [`Edition`]'s `FromStr`).
    #[serde(default, deserialize_with = "edition_key")]
    pub edition: Edition,
    /// "standard" (default), "rapid" or "blitz".
    #[serde(default)]
    pub play: PlayMode,
    /// A board that still differs is described again after this many milliseconds.
    #[serde(default = "default_guidance_repeat_ms")]
    pub guidance_repeat_ms: Millis,
    /// The blind player hears his own move said back (F.1); on unless set to false.
    #[serde(default = "yes")]
    pub say_own_move: bool,
}

fn yes() -> bool {
    true
}

/// `game.edition` as a person writes it: the names [`Edition`]'s `FromStr` allows, not the
/// journal's (which still reads the old "2005", so that recorded games replay).
fn edition_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Edition, D::Error> {
    let text = String::deserialize(d)?;
    text.parse::<Edition>()
        .map_err(|e| serde::de::Error::custom(format!("key game.edition: {e}")))
}

fn default_guidance_repeat_ms() -> u64 {
    DEFAULT_GUIDANCE_REPEAT_MS
}

impl Default for GameSection {
    fn default() -> Self {
        GameSection {
            white: None,
            black: None,
            event: None,
            site: None,
            round: None,
            blind: SideName::White,
            time_control: None,
            edition: Edition::default(),
            play: PlayMode::default(),
            guidance_repeat_ms: DEFAULT_GUIDANCE_REPEAT_MS,
            say_own_move: true,
        }
    }
}

/// `[boards]`: the blind player's board and the sighted player's board.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardsSection {
    #[serde(default = "BoardSection::default_blind")]
    pub blind: BoardSection,
    #[serde(default = "BoardSection::default_sighted")]
    pub sighted: BoardSection,
}

impl Default for BoardsSection {
    fn default() -> Self {
        BoardsSection {
            blind: BoardSection::default_blind(),
            sighted: BoardSection::default_sighted(),
        }
    }
}

/// When the sighted player's move counts as completed, as the file writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompletionName {
    /// He stops his clock: a key or pedal, the console's `press`, a DGT clock lever.
    Press,
    /// His board rests on the position after a legal move (boards without a clock button).
    Settle,
}

/// The buttons of a pegged board with four keys, when the file names none: the requests a player
/// makes most (F.9 d).
fn default_buttons() -> std::collections::BTreeMap<String, String> {
    [
        ("1", "time"),
        ("2", "last"),
        ("3", "count"),
        ("4", "repeat"),
    ]
    .into_iter()
    .map(|(n, line)| (n.to_string(), line.to_string()))
    .collect()
}

/// `[boards.blind]` or `[boards.sighted]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSection {
    /// A built-in profile name (`pegged-line`, `dgt`), a profile file (a path ending in `.toml`),
    /// or `manual` (sighted board only: no sensors, moves entered at the console).
    pub profile: String,
    /// The serial port (prefer `/dev/serial/by-id/...`), or `sim` for a built-in simulator on a
    /// pseudo-terminal. Not needed with `profile = "manual"`.
    pub port: Option<String>,
    /// Sighted board only: "press" or "settle" (default: "settle" for a board with sensors, the
    /// console's `press` for a manual one).
    pub completion: Option<CompletionName>,
    /// Blind board only: what its buttons (or keypad) ask, by button number: a request of the
    /// blind player as the console writes it (`"time"`, `"t"`, `"moves 4"`, `"rp"`). Absent:
    /// 1 time, 2 last, 3 count, 4 repeat.
    #[serde(default)]
    pub buttons: Option<std::collections::BTreeMap<String, String>>,
}

impl BoardSection {
    fn default_blind() -> BoardSection {
        BoardSection {
            profile: "pegged-line".into(),
            port: Some(SIM_PORT.into()),
            completion: None,
            buttons: None,
        }
    }
    fn default_sighted() -> BoardSection {
        BoardSection {
            profile: "dgt".into(),
            port: Some(SIM_PORT.into()),
            completion: Some(CompletionName::Settle),
            buttons: None,
        }
    }

    /// Whether this board has no sensors.
    pub fn is_manual(&self) -> bool {
        self.profile == MANUAL_PROFILE
    }

    /// Whether the port is a built-in simulator.
    pub fn is_sim(&self) -> bool {
        self.port.as_deref() == Some(SIM_PORT)
    }
}

impl Default for BoardSection {
    fn default() -> Self {
        BoardSection::default_blind()
    }
}

/// `[record]`: where the game folders go and how the Braille score is laid out.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSection {
    /// The output folder; each game gets a folder of its own inside it.
    #[serde(default = "default_record_dir")]
    pub dir: PathBuf,
    /// The Braille chess notation profile (see `tactus scoresheet --help`), default "ukaaf".
    #[serde(default = "default_braille_profile")]
    pub braille_profile: String,
    /// The Braille page: cells per line and lines per page (embosser page, default 40 x 25).
    #[serde(default = "default_page_cells")]
    pub page_cells: usize,
    #[serde(default = "default_page_lines")]
    pub page_lines: usize,
}

fn default_record_dir() -> PathBuf {
    PathBuf::from("played")
}
fn default_braille_profile() -> String {
    tactus_core::record::braille::DEFAULT_PROFILE.to_string()
}
fn default_page_cells() -> usize {
    40
}
fn default_page_lines() -> usize {
    25
}

impl Default for RecordSection {
    fn default() -> Self {
        RecordSection {
            dir: default_record_dir(),
            braille_profile: default_braille_profile(),
            page_cells: default_page_cells(),
            page_lines: default_page_lines(),
        }
    }
}

/// `[console]`: the assistant's and arbiter's socket.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsoleSection {
    /// The Unix socket path (created with mode 0600), in a folder other users cannot write to
    /// (or a sticky one, like /tmp); nothing but a stale socket of the daemon's user is ever
    /// removed there.
    #[serde(default = "default_socket")]
    pub socket: PathBuf,
    /// A group (name or number) that may use the socket too (mode 0660): the assistant's
    /// account, say. None: only the daemon's user.
    #[serde(default)]
    pub group: Option<String>,
    /// The arbiter's token file: read if it exists (the arbiter's own token for the whole
    /// event: a file of the daemon's user, mode 0600, not a link, 128 bits of randomness), else
    /// written there at start (mode 0600). None: `arbiter.token` in the game folder.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
}

fn default_socket() -> PathBuf {
    PathBuf::from("tactus.sock")
}

impl Default for ConsoleSection {
    fn default() -> Self {
        ConsoleSection {
            socket: default_socket(),
            group: None,
            token_file: None,
        }
    }
}

/// `[opponent]`: the chess engine a training game is played against (`tactus train`), and where
/// the game starts.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct OpponentSection {
    /// The UCI engine: a program name (looked up in PATH and /usr/games) or a path. Default:
    /// "stockfish" (Debian's package).
    #[serde(default)]
    pub engine: Option<PathBuf>,
    /// Arguments for the engine's program.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its strength as a skill level (Stockfish: 0 to 20) ...
    pub skill: Option<u32>,
    /// ... or as an Elo rating (UCI_Elo; Stockfish: 1350 to 2850).
    pub elo: Option<u32>,
    /// How long it thinks about each move, in milliseconds (default 2000) ...
    pub move_time_ms: Option<u64>,
    /// ... or how many positions it searches per move.
    pub nodes: Option<u64>,
    /// How long it may take to answer `uci` and `isready` (default 10000 ms).
    pub handshake_timeout_ms: Option<u64>,
    /// How long it may take beyond its move time to give a move (default 30000 ms).
    pub answer_timeout_ms: Option<u64>,
    /// Start from this position (FEN) instead of the initial one ...
    pub start_fen: Option<String>,
    /// ... or from a game of this PGN file (its first game) ...
    pub start_pgn: Option<PathBuf>,
    /// ... after this many moves of it (White's and Black's; 0 or absent: its start).
    pub start_move: Option<u32>,
}

/// The engine the training opponent runs when `[opponent] engine` is not given.
pub const DEFAULT_ENGINE: &str = "stockfish";

impl OpponentSection {
    /// The engine task's settings (`daemon::engine`).
    pub fn strength(&self) -> tactus_core::engine::Strength {
        use tactus_core::engine::{Limit, Strength};
        let limit = match (self.move_time_ms, self.nodes) {
            (_, Some(n)) => Limit::Nodes(n),
            (Some(ms), None) => Limit::MoveTime(ms),
            (None, None) => Strength::default().limit,
        };
        let skill = match (self.skill, self.elo) {
            (None, None) => Strength::default().skill,
            (skill, _) => skill,
        };
        Strength {
            elo: self.elo,
            skill,
            limit,
        }
    }

    pub fn patience(&self) -> tactus_core::engine::Patience {
        let d = tactus_core::engine::Patience::default();
        tactus_core::engine::Patience {
            handshake_ms: self.handshake_timeout_ms.unwrap_or(d.handshake_ms),
            answer_ms: self.answer_timeout_ms.unwrap_or(d.answer_ms),
        }
    }

    pub fn program(&self) -> PathBuf {
        self.engine
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_ENGINE))
    }

    /// The engine, its strength and where the game starts, in words (`check-config`, `train`).
    pub fn describe(&self) -> String {
        use tactus_core::engine::Limit;
        let strength = self.strength();
        let level = match (strength.elo, strength.skill) {
            (Some(elo), _) => format!("playing at Elo {elo}"),
            (None, Some(skill)) => format!("at skill level {skill}"),
            (None, None) => "at full strength".into(),
        };
        let think = match strength.limit {
            Limit::MoveTime(ms) => format!(
                "thinking {} a move",
                tactus_core::rules::time_control::duration_words(ms as i64)
            ),
            Limit::Nodes(n) => format!("searching {n} positions a move"),
            Limit::Depth(d) => format!("searching {d} half-moves deep"),
        };
        let start = match (&self.start_fen, &self.start_pgn) {
            (Some(fen), _) => format!("from the position {fen}"),
            (None, Some(pgn)) => format!(
                "from the first game of {} after move {}",
                pgn.display(),
                self.start_move.unwrap_or(0)
            ),
            (None, None) => "from the initial position".into(),
        };
        format!(
            "training opponent: {} {level}, {think}; the game starts {start}",
            self.program().display()
        )
    }

    /// What the text tells: no two keys that say the same thing differently.
    fn check(&self, origin: &str) -> Result<()> {
        if self.skill.is_some() && self.elo.is_some() {
            bail!(
                "{origin}: opponent.skill and opponent.elo: give one (an engine limited by Elo \
                 ignores its skill level)"
            );
        }
        if self.move_time_ms.is_some() && self.nodes.is_some() {
            bail!("{origin}: opponent.move_time_ms and opponent.nodes: give one limit per move");
        }
        if self.move_time_ms == Some(0) || self.nodes == Some(0) {
            bail!(
                "{origin}: opponent.move_time_ms / opponent.nodes = 0: the engine needs some time \
                 (1000 ms is a quick opponent)"
            );
        }
        if self
            .engine
            .as_ref()
            .is_some_and(|e| e.as_os_str().is_empty())
        {
            bail!(
                "{origin}: opponent.engine = \"\": name the engine (\"stockfish\", or its full path)"
            );
        }
        if self.start_fen.is_some() && self.start_pgn.is_some() {
            bail!(
                "{origin}: opponent.start_fen and opponent.start_pgn: give one starting position"
            );
        }
        if self.start_move.is_some() && self.start_pgn.is_none() {
            bail!("{origin}: opponent.start_move needs opponent.start_pgn (the game it counts in)");
        }
        if let Some(fen) = &self.start_fen {
            start_from_fen(fen).map_err(|e| anyhow!("{origin}: key opponent.start_fen: {e}"))?;
        }
        Ok(())
    }
}

/// A legal position from a FEN, or why not.
pub fn start_from_fen(fen: &str) -> Result<shakmaty::Chess> {
    use shakmaty::{CastlingMode, fen::Fen};
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|e| anyhow!("\"{fen}\" is not a FEN ({e})"))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| anyhow!("\"{fen}\" is not a legal position ({e})"))
}

/// A board as the daemon sets it up.
#[derive(Debug, Clone)]
pub enum BoardSetup {
    /// No sensors (sighted board only): moves are entered at the console.
    Manual,
    Sensor {
        profile: Profile,
        port: PortSetup,
    },
}

/// Where a board's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSetup {
    /// A real serial port.
    Path(PathBuf),
    /// A built-in simulator on a pseudo-terminal.
    Sim,
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
        let mut config = Config::parse(&text, &path.display().to_string())?;
        config.base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        config.check_console_paths(&path.display().to_string())?;
        // Profile files are named relative to the file too: check them now that we know where.
        config.blind_board(&path.display().to_string())?;
        config.sighted_board(&path.display().to_string())?;
        Ok(config)
    }

    /// Checks what serde cannot: combinations and names.
    /// The blind board's buttons: number -> console line (checked when the file was read).
    pub fn buttons(&self) -> std::collections::BTreeMap<u8, String> {
        self.blind_buttons()
            .iter()
            .filter_map(|(n, line)| Some((n.parse().ok()?, line.clone())))
            .collect()
    }

    fn blind_buttons(&self) -> std::collections::BTreeMap<String, String> {
        self.boards
            .blind
            .buttons
            .clone()
            .unwrap_or_else(default_buttons)
    }

    fn check(&self, origin: &str) -> Result<()> {
        self.check_console(origin)?;
        if let Some(opponent) = &self.opponent {
            opponent.check(origin)?;
        }
        for (number, line) in &self.blind_buttons() {
            if !number.parse::<u8>().is_ok_and(|n| n >= 1) {
                bail!(
                    "{origin}: boards.blind.buttons: \"{number}\" is not a button number; buttons \
                     are numbered 1 to 255"
                );
            }
            // A button is the blind player's own keypad: his requests only.
            match tactus_core::console::parse(line, tactus_core::console::Role::Player) {
                Ok(
                    tactus_core::console::Command::Request(_)
                    | tactus_core::console::Command::Training(_),
                ) => {}
                Ok(_) => bail!(
                    "{origin}: boards.blind.buttons.{number} = \"{line}\": a button asks one of \
                     the blind player's requests ({}), or in training hint, eval, takeback or \
                     review",
                    tactus_core::console::request_names().join(", ")
                ),
                Err(e) => bail!("{origin}: boards.blind.buttons.{number} = \"{line}\": {e}"),
            }
        }
        if self.boards.sighted.buttons.is_some() {
            bail!(
                "{origin}: boards.sighted.buttons: only the blind player's board has request \
                 buttons"
            );
        }
        let blind = &self.boards.blind;
        if blind.is_manual() {
            bail!(
                "{origin}: boards.blind.profile = \"manual\": the blind player's board needs sensors; \
                 name its profile (pegged-line, dgt or a profile file)"
            );
        }
        if blind.completion.is_some() {
            bail!(
                "{origin}: boards.blind.completion: only the sighted board has a completion setting \
                 (the blind player's move counts once announced, F.3)"
            );
        }
        let sighted = &self.boards.sighted;
        if sighted.is_manual() && sighted.completion == Some(CompletionName::Settle) {
            bail!(
                "{origin}: boards.sighted.completion = \"settle\" needs a board with sensors; a manual \
                 board completes a move with the console's `press`"
            );
        }
        if self.game.guidance_repeat_ms < 1000 {
            bail!(
                "{origin}: game.guidance_repeat_ms = {}: at least 1000 (repeating guidance faster \
                 than it can be said would drown it)",
                self.game.guidance_repeat_ms
            );
        }
        tactus_core::record::braille::Profile::named(&self.record.braille_profile)
            .map_err(|e| anyhow!("{origin}: key record.braille_profile: {e}"))?;
        if self.record.page_cells < 20 || self.record.page_lines < 5 {
            bail!(
                "{origin}: record.page_cells = {}, record.page_lines = {}: a Braille page needs at \
                 least 20 cells and 5 lines (40 x 25 is the usual embosser page)",
                self.record.page_cells,
                self.record.page_lines
            );
        }
        for (key, board) in [("boards.blind", blind), ("boards.sighted", sighted)] {
            if !board.is_manual() && board.port.as_deref().is_some_and(|p| p.trim().is_empty()) {
                bail!(
                    "{origin}: {key}.port = \"\": name the board's serial port (e.g. \
                     /dev/serial/by-id/...) or \"sim\" for a simulated board"
                );
            }
            if !board.is_manual() && board.port.is_none() {
                bail!(
                    "{origin}: {key}.port is missing: name the board's serial port (e.g. \
                     /dev/serial/by-id/...) or \"sim\" for a simulated board"
                );
            }
        }
        self.check_play(origin)?;
        Ok(())
    }

    /// `game.play` against `game.time_control`: a rapid or blitz game is one whose moves are all
    /// made in a fixed time the Laws define (2001 Appendices B 1 and C 1, 2009 A1 and B1); a
    /// 90-minute control played under the blitz laws, or a blitz without a clock, cannot be
    /// what was meant.
    fn check_play(&self, origin: &str) -> Result<()> {
        let wanted = match self.game.play {
            PlayMode::Standard => return Ok(()),
            PlayMode::Rapid | PlayMode::RapidSupervised => PlayMode::Rapid,
            PlayMode::Blitz | PlayMode::BlitzSupervised => PlayMode::Blitz,
        };
        let name = play_key(self.game.play);
        let Some(tc) = self.rules_config()?.time_control else {
            bail!(
                "{origin}: game.play = \"{name}\" needs a clock: set game.time_control (a {} \
                 game is played in a fixed time for each player)",
                pace_word(wanted)
            );
        };
        let pace = tc.pace(self.game.edition);
        if pace != wanted {
            bail!(
                "{origin}: game.play = \"{name}\" with game.time_control = \"{tc}\" ({}): by \
                 the Laws ({}) that is {}; a {} game has all its moves in {}",
                tc.describe(),
                definition_articles(self.game.edition),
                pace_phrase(pace),
                pace_word(wanted),
                pace_range(wanted, self.game.edition)
            );
        }
        Ok(())
    }

    /// What may be a mistake but can be played: a control that looks like minutes written as
    /// seconds, a standard game under a control the Laws call rapid or blitz.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let Ok(Some(tc)) = self.rules_config().map(|r| r.time_control) else {
            return warnings;
        };
        if let Some(w) = tc.minutes_suspected() {
            warnings.push(format!("game.time_control = \"{tc}\": {w}"));
        }
        let pace = tc.pace(self.game.edition);
        if self.game.play == PlayMode::Standard && pace != PlayMode::Standard {
            warnings.push(format!(
                "game.time_control = \"{tc}\" is {} by the Laws ({}), but game.play is \
                 \"standard\": the standard Laws apply (set play = \"{}\" for the appendix)",
                pace_phrase(pace),
                definition_articles(self.game.edition),
                play_key(pace)
            ));
        }
        warnings
    }

    /// The table in words, as `tactus check-config` and `tactus run` print it: the players,
    /// the event, the rules, the clock, the boards, the voice, the folders. `voice_description`
    /// is the voice pack's own description, when it could be read.
    pub fn describe(&self, origin: &str, voice_description: Option<&str>) -> Result<Vec<String>> {
        let g = &self.game;
        let blind = g.blind.color();
        let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "(no name given)".into());
        let mut lines = Vec::new();
        for color in [Color::White, Color::Black] {
            let who = if color == blind {
                "the blind player, on the tactile board"
            } else if self.opponent.is_some() {
                "the training engine"
            } else {
                "the sighted player"
            };
            let player = match color {
                Color::White => name(&g.white),
                Color::Black => name(&g.black),
            };
            lines.push(format!(
                "{}: {player} ({who})",
                if color == Color::White {
                    "White"
                } else {
                    "Black"
                }
            ));
        }
        let mut event = vec![g.event.clone().unwrap_or_else(|| "no event named".into())];
        if let Some(round) = &g.round {
            event.push(format!("round {round}"));
        }
        if let Some(site) = g.site.as_ref().filter(|s| s.as_str() != "?") {
            event.push(format!("at {site}"));
        }
        lines.push(format!("event: {}", event.join(", ")));
        let rules = self.rules_config()?;
        lines.push(format!(
            "rules: the FIDE Laws of Chess, {} text; {}",
            match rules.edition {
                Edition::Fide2001 => "2001",
                Edition::Fide2009 => "2009",
            },
            play_words(rules.play, rules.edition)
        ));
        lines.push(match &rules.time_control {
            Some(tc) => format!("time control: {} ({tc})", tc.describe()),
            None => "time control: none (no clock)".into(),
        });
        if let Some(o) = &self.opponent {
            lines.push(o.describe());
        }
        for (label, board) in [
            ("tactile board", self.blind_board(origin)?),
            ("sighted board", self.sighted_board(origin)?),
        ] {
            lines.push(match board {
                BoardSetup::Manual if self.opponent.is_some() => {
                    format!("{label}: none, the engine's moves are entered at the console")
                }
                BoardSetup::Manual => {
                    format!("{label}: none, the assistant enters the moves at the console")
                }
                BoardSetup::Sensor { profile, port } => format!(
                    "{label}: {} on {}",
                    profile.name,
                    match port {
                        PortSetup::Sim => "a simulated board".to_string(),
                        PortSetup::Path(p) => p.display().to_string(),
                    }
                ),
            });
        }
        if self.opponent.is_none() {
            lines.push(format!(
                "the sighted player's move counts {}",
                match self.completion() {
                    Completion::ClockPress => "when he stops his clock",
                    Completion::Settle => "when his board rests on the position after it",
                }
            ));
        }
        let v = &self.voice;
        lines.push(format!(
            "voice pack: {}{}",
            v.voice,
            voice_description.map_or_else(String::new, |d| format!(", {d}")),
        ));
        lines.push(format!(
            "speech: {}, {}",
            match v.style {
                tactus_core::announce::voice::Style::San =>
                    "moves said short (Springer Felix drei)",
                tactus_core::announce::voice::Style::Long =>
                    "moves said from square to square (Springer Gustav eins Felix drei)",
            },
            speaker_words(v.speaker)
        ));
        for (who, speaker) in [
            ("the blind player", v.speaker_blind),
            ("the sighted player", v.speaker_sighted),
        ] {
            if let Some(speaker) = speaker {
                lines.push(format!("speech for {who}: {}", speaker_words(speaker)));
            }
        }
        lines.push(format!(
            "the blind player {} his own move said back",
            if g.say_own_move {
                "hears"
            } else {
                "does not hear"
            }
        ));
        lines.push(format!(
            "a board that differs is described again every {}",
            tactus_core::rules::time_control::duration_words(g.guidance_repeat_ms as i64)
        ));
        lines.push(format!("games: {}", self.record_dir().display()));
        lines.push(format!(
            "console: {} ({}), the arbiter's token in {}",
            self.socket_path().display(),
            match &self.console.group {
                Some(group) => format!("for the daemon's user and group {group}"),
                None => "for the daemon's user only".to_string(),
            },
            self.token_file().map_or_else(
                || "each game's folder (arbiter.token)".to_string(),
                |p| p.display().to_string()
            )
        ));
        let buttons: Vec<String> = self
            .buttons()
            .iter()
            .map(|(n, line)| format!("{n} asks {line}"))
            .collect();
        lines.push(format!("tactile board's buttons: {}", buttons.join(", ")));
        Ok(lines)
    }

    /// `[console]`'s keys, as far as the text tells: no empty path or group.
    fn check_console(&self, origin: &str) -> Result<()> {
        if self.console.socket.as_os_str().is_empty() {
            bail!(
                "{origin}: console.socket = \"\": name the console socket's path (like \
                 \"/run/user/1000/tactus.sock\"), or leave the key out for tactus.sock"
            );
        }
        if self
            .console
            .token_file
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            bail!(
                "{origin}: console.token_file = \"\": name the arbiter's token file, or leave the \
                 key out to have one made in each game's folder"
            );
        }
        if self
            .console
            .group
            .as_ref()
            .is_some_and(|g| g.trim().is_empty())
        {
            bail!(
                "{origin}: console.group = \"\": name a group (or its number), or leave the key \
                 out to keep the console to the daemon's user"
            );
        }
        Ok(())
    }

    /// `[console]`'s paths, once they are resolved: the socket's path must not be anything but a
    /// socket (the daemon removes only a stale socket of its own there, see
    /// `daemon::console::ConsoleSocket::bind`); say so at `check-config`, not at the table.
    fn check_console_paths(&self, origin: &str) -> Result<()> {
        use std::os::unix::fs::FileTypeExt;
        let socket = self.socket_path();
        if let Ok(meta) = std::fs::symlink_metadata(&socket)
            && !meta.file_type().is_socket()
        {
            bail!(
                "{origin}: console.socket = {} names an existing file or folder, not a socket; \
                 give the console socket a path of its own",
                socket.display()
            );
        }
        Ok(())
    }

    /// A path from the file, resolved against the file's folder.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() || self.base.as_os_str().is_empty() {
            path.to_path_buf()
        } else {
            self.base.join(path)
        }
    }

    /// The output folder.
    pub fn record_dir(&self) -> PathBuf {
        self.resolve(&self.record.dir)
    }

    /// The arbiter's token file, if one is configured (relative to the configuration file).
    pub fn token_file(&self) -> Option<PathBuf> {
        self.console.token_file.as_ref().map(|p| self.resolve(p))
    }

    /// The console socket path.
    pub fn socket_path(&self) -> PathBuf {
        self.resolve(&self.console.socket)
    }

    fn board(&self, section: &BoardSection, key: &str, origin: &str) -> Result<BoardSetup> {
        if section.is_manual() {
            return Ok(BoardSetup::Manual);
        }
        let profile = if section.profile.ends_with(".toml") || section.profile.contains('/') {
            let path = self.resolve(Path::new(&section.profile));
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "{origin}: {key}.profile: cannot read the board profile {}",
                    path.display()
                )
            })?;
            Profile::parse(&text, &path.display().to_string())
                .map_err(|e| anyhow!("{origin}: {key}.profile: {e}"))?
        } else {
            ProfileSet::builtin()
                .get(&section.profile)
                .map_err(|e| {
                    anyhow!(
                        "{origin}: {key}.profile: {e} (or a profile file ending in .toml{})",
                        if key == "boards.sighted" {
                            ", or \"manual\""
                        } else {
                            ""
                        }
                    )
                })?
                .clone()
        };
        let port = match section.port.as_deref() {
            Some(SIM_PORT) => PortSetup::Sim,
            Some(path) => PortSetup::Path(self.resolve(Path::new(path))),
            None => bail!("{origin}: {key}.port is missing"),
        };
        Ok(BoardSetup::Sensor { profile, port })
    }

    /// The blind player's board.
    pub fn blind_board(&self, origin: &str) -> Result<BoardSetup> {
        self.board(&self.boards.blind, "boards.blind", origin)
    }

    /// The sighted player's board.
    pub fn sighted_board(&self, origin: &str) -> Result<BoardSetup> {
        self.board(&self.boards.sighted, "boards.sighted", origin)
    }

    /// When the sighted player's move counts.
    pub fn completion(&self) -> Completion {
        match self.boards.sighted.completion {
            Some(CompletionName::Press) => Completion::ClockPress,
            Some(CompletionName::Settle) => Completion::Settle,
            None if self.boards.sighted.is_manual() => Completion::ClockPress,
            None => Completion::Settle,
        }
    }

    /// The rules part as the game core wants it.
    pub fn rules_config(&self) -> Result<RulesConfig> {
        let time_control = match &self.game.time_control {
            Some(text) => Some(text.parse::<TimeControl>().map_err(|e| anyhow!("{e}"))?),
            None => None,
        };
        Ok(RulesConfig {
            edition: self.game.edition,
            play: self.game.play,
            time_control,
        })
    }

    /// A configuration made a training game: the engine takes the sighted player's seat, at the
    /// console (a sighted board's sensors have nobody to read), and the tags say what it was.
    pub fn into_training(self) -> Config {
        let mut config = self;
        let opponent = config.opponent.get_or_insert_with(OpponentSection::default);
        let engine_name = format!(
            "{} ({})",
            opponent.program().display(),
            match (opponent.elo, opponent.strength().skill) {
                (Some(elo), _) => format!("Elo {elo}"),
                (None, Some(skill)) => format!("skill {skill}"),
                (None, None) => "full strength".into(),
            }
        );
        config.boards.sighted = BoardSection {
            profile: MANUAL_PROFILE.into(),
            port: None,
            completion: None,
            buttons: None,
        };
        let g = &mut config.game;
        let (mine, its) = match g.blind.color() {
            shakmaty::Color::White => (&mut g.white, &mut g.black),
            shakmaty::Color::Black => (&mut g.black, &mut g.white),
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
        let Some(opponent) = &self.opponent else {
            return Ok(shakmaty::Chess::default());
        };
        if let Some(fen) = &opponent.start_fen {
            return start_from_fen(fen)
                .map_err(|e| anyhow!("{origin}: key opponent.start_fen: {e}"));
        }
        let Some(pgn) = &opponent.start_pgn else {
            return Ok(shakmaty::Chess::default());
        };
        let path = self.resolve(pgn);
        let bytes = std::fs::read(&path).with_context(|| {
            format!(
                "{origin}: key opponent.start_pgn: cannot read {}",
                path.display()
            )
        })?;
        let game = tactus_core::rules::pgn::read_pgn_each(&bytes)
            .into_iter()
            .next()
            .ok_or_else(|| {
                anyhow!(
                    "{origin}: key opponent.start_pgn: {} holds no game",
                    path.display()
                )
            })?
            .map_err(|e| anyhow!("{origin}: key opponent.start_pgn: {}: {e}", path.display()))?;
        let plies = opponent.start_move.unwrap_or(0) as usize * 2;
        // "After move N": White's and Black's N-th moves, counted from the game's own start.
        let first_black = shakmaty::Position::turn(&game.start) == Color::Black;
        let plies = if first_black {
            plies.saturating_sub(1)
        } else {
            plies
        };
        if plies > game.moves.len() {
            bail!(
                "{origin}: key opponent.start_move = {}: the game in {} has {} moves",
                opponent.start_move.unwrap_or(0),
                path.display(),
                game.moves.len().div_ceil(2)
            );
        }
        let mut start = game.start.clone();
        for &m in &game.moves[..plies] {
            shakmaty::Position::play_unchecked(&mut start, m);
        }
        Ok(start)
    }

    /// The PGN tags the configuration sets (Event, Site, Round, White, Black).
    pub fn tags(&self) -> Vec<(String, String)> {
        let g = &self.game;
        [
            ("Event", &g.event),
            ("Site", &g.site),
            ("Round", &g.round),
            ("White", &g.white),
            ("Black", &g.black),
        ]
        .into_iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| (name.to_string(), v.clone())))
        .collect()
    }
}

/// `game.play` as the file writes it.
fn play_key(play: PlayMode) -> &'static str {
    match play {
        PlayMode::Standard => "standard",
        PlayMode::Rapid => "rapid",
        PlayMode::Blitz => "blitz",
        PlayMode::RapidSupervised => "rapid-supervised",
        PlayMode::BlitzSupervised => "blitz-supervised",
    }
}

fn pace_word(pace: PlayMode) -> &'static str {
    match pace {
        PlayMode::Rapid | PlayMode::RapidSupervised => "rapid",
        PlayMode::Blitz | PlayMode::BlitzSupervised => "blitz",
        PlayMode::Standard => "standard",
    }
}

fn pace_phrase(pace: PlayMode) -> &'static str {
    match pace {
        PlayMode::Rapid | PlayMode::RapidSupervised => "a rapid game",
        PlayMode::Blitz | PlayMode::BlitzSupervised => "a blitz game",
        PlayMode::Standard => "no rapid or blitz game",
    }
}

/// Where the Laws define rapid and blitz games.
fn definition_articles(edition: Edition) -> &'static str {
    match edition {
        Edition::Fide2001 => "Appendices B 1 and C 1 of 2001",
        Edition::Fide2009 => "A1 and B1 of 2009",
    }
}

fn pace_range(pace: PlayMode, edition: Edition) -> &'static str {
    match (pace, edition) {
        (PlayMode::Blitz, Edition::Fide2001) => "one fixed time under 15 minutes for each player",
        (PlayMode::Blitz, Edition::Fide2009) => {
            "one fixed time under 15 minutes for each player, counting 60 times the increment"
        }
        (_, Edition::Fide2001) => "one fixed time from 15 to 60 minutes for each player",
        (_, Edition::Fide2009) => {
            "one fixed time from 15 to 60 minutes for each player, counting 60 times the increment"
        }
    }
}

/// The laws `play` puts the game under, in words.
fn play_words(play: PlayMode, edition: Edition) -> String {
    let laws = match play.laws(edition) {
        PlayMode::Rapid => "the rapid laws (Appendix B)",
        PlayMode::Blitz => "the blitz laws (Appendix C)",
        _ => "standard play",
    };
    match play {
        PlayMode::RapidSupervised | PlayMode::BlitzSupervised => {
            format!("{} with adequate supervision, so {laws}", pace_word(play))
        }
        _ => laws.to_string(),
    }
}

fn speaker_words(speaker: crate::speech::config::SpeakerKind) -> &'static str {
    match speaker {
        crate::speech::config::SpeakerKind::Clips => "spoken with the pack's recorded words",
        crate::speech::config::SpeakerKind::Tts => {
            "spoken by the system's speech engine (the recorded words if it fails)"
        }
        crate::speech::config::SpeakerKind::None => "not spoken (the transcript only)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_config_parses_and_runs_the_demo() {
        let config = Config::parse(include_str!("../config.toml"), "config.toml").unwrap();
        let rules = config.rules_config().unwrap();
        assert_eq!(rules.edition, Edition::Fide2001);
        assert!(rules.time_control.is_some());
        assert_eq!(config.game.blind, SideName::White);
        assert!(config.boards.blind.is_sim() && config.boards.sighted.is_sim());
        assert_eq!(config.completion(), Completion::Settle);
        assert_eq!(config.voice.voice, "de-fide");
        assert!(matches!(
            config.blind_board("c").unwrap(),
            BoardSetup::Sensor {
                port: PortSetup::Sim,
                ..
            }
        ));
    }

    #[test]
    fn the_blind_boards_buttons_ask_his_requests() {
        // Absent: the four requests a player makes most.
        let config = Config::parse("", "c.toml").unwrap();
        let buttons = config.buttons();
        assert_eq!(buttons.get(&1).map(String::as_str), Some("time"));
        assert_eq!(buttons.get(&4).map(String::as_str), Some("repeat"));
        let config = Config::parse(
            "[boards.blind]\nprofile = \"pegged-line\"\nport = \"sim\"\n\
             buttons = { 1 = \"t\", 2 = \"moves 4\", 12 = \"pieces mine knight\" }\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(config.buttons().len(), 3);
        assert_eq!(config.buttons()[&12], "pieces mine knight");
        let bad = |buttons: &str| {
            Config::parse(
                &format!(
                    "[boards.blind]\nprofile = \"pegged-line\"\nport = \"sim\"\nbuttons = {buttons}\n"
                ),
                "my.toml",
            )
            .unwrap_err()
            .to_string()
        };
        let e = bad("{ 0 = \"time\" }");
        assert!(e.contains("my.toml") && e.contains("1 to 255"), "{e}");
        let e = bad("{ x = \"time\" }");
        assert!(e.contains("\"x\" is not a button number"), "{e}");
        // A button is his own keypad: no assistant's or arbiter's command, no typo.
        let e = bad("{ 1 = \"resign\" }");
        assert!(
            e.contains("boards.blind.buttons.1") && e.contains("for the assistant"),
            "{e}"
        );
        let e = bad("{ 1 = \"help\" }");
        assert!(
            e.contains("a button asks one of the blind player's requests"),
            "{e}"
        );
        let e = bad("{ 1 = \"tme\" }");
        assert!(e.contains("did you mean 'time'"), "{e}");
        let e = Config::parse(
            "[boards.sighted]\nprofile = \"dgt\"\nport = \"sim\"\nbuttons = { 1 = \"time\" }\n",
            "my.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("only the blind player's board"), "{e}");
    }

    #[test]
    fn an_empty_file_is_the_demo_table() {
        let config = Config::parse("", "c.toml").unwrap();
        assert!(config.boards.blind.is_sim() && config.boards.sighted.is_sim());
        assert_eq!(config.boards.blind.profile, "pegged-line");
        assert_eq!(config.boards.sighted.profile, "dgt");
        assert_eq!(config.record.dir, PathBuf::from("played"));
    }

    #[test]
    fn unknown_keys_are_named_with_what_is_allowed() {
        let err = Config::parse("[game]\nedtion = \"2001\"\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("my.toml") && err.contains("edtion") && err.contains("edition"),
            "{err}"
        );
        let err = Config::parse(
            "[boards.blind]\nprofile = \"dgt\"\nprot = \"x\"\n",
            "my.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("prot") && err.contains("port"), "{err}");
        let err = Config::parse("[rules]\nedition = \"2001\"\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rules") && err.contains("game"), "{err}");
    }

    #[test]
    fn a_bad_edition_lists_the_allowed_ones() {
        let err = Config::parse("[game]\nedition = \"2003\"\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("2003") && err.contains("2001") && err.contains("2009"),
            "{err}"
        );
    }

    #[test]
    fn edition_2005_is_refused_naming_the_key_the_file_and_why() {
        // The later text is the 2009 Laws (its 6.6 a: default time zero); the old name must not
        // quietly select it.
        let err = format!(
            "{:#}",
            Config::parse("[game]\nedition = \"2005\"\n", "my.toml").unwrap_err()
        );
        for needle in ["my.toml", "game.edition", "2005", "2009", "6.6 a", "zero"] {
            assert!(err.contains(needle), "{needle:?} missing from: {err}");
        }
    }

    #[test]
    fn a_bad_time_control_names_the_key() {
        let err = format!(
            "{:#}",
            Config::parse("[game]\ntime_control = \"40/abc\"\n", "c.toml").unwrap_err()
        );
        assert!(
            err.contains("game.time_control") && err.contains("abc"),
            "{err}"
        );
    }

    #[test]
    fn play_modes_and_the_blind_colour_parse() {
        let config = Config::parse(
            "[game]\nplay = \"blitz\"\nedition = \"2009\"\nblind = \"black\"\n\
             time_control = \"180+2\"\n",
            "c.toml",
        )
        .unwrap();
        assert_eq!(config.game.play, PlayMode::Blitz);
        assert_eq!(config.game.edition, Edition::Fide2009);
        assert_eq!(config.game.blind.color(), Color::Black);
        let err = Config::parse("[game]\nblind = \"both\"\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("white") && err.contains("black"), "{err}");
    }

    #[test]
    fn voice_keys_are_checked_under_their_section_name() {
        let config =
            Config::parse("[voice]\npack = \"en:nato\"\nstyle = \"long\"\n", "c.toml").unwrap();
        assert_eq!(config.voice.voice, "en:nato");
        let err = Config::parse("[voice]\ntts_rate = 300\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("voice.tts_rate"), "{err}");
        let err = Config::parse("[voice]\nvoice = \"de-fide\"\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("pack"), "{err}");
    }

    #[test]
    fn boards_are_checked() {
        let manual = Config::parse("[boards.sighted]\nprofile = \"manual\"\n", "c.toml").unwrap();
        assert!(matches!(
            manual.sighted_board("c").unwrap(),
            BoardSetup::Manual
        ));
        assert_eq!(manual.completion(), Completion::ClockPress);
        for (text, needle) in [
            ("[boards.blind]\nprofile = \"manual\"\n", "needs sensors"),
            ("[boards.blind]\nprofile = \"dgt\"\n", "boards.blind.port"),
            (
                "[boards.sighted]\nprofile = \"manual\"\ncompletion = \"settle\"\n",
                "settle",
            ),
            (
                "[boards.sighted]\nprofile = \"dgt\"\nport = \"sim\"\ncompletion = \"later\"\n",
                "press",
            ),
        ] {
            let err = format!("{:#}", Config::parse(text, "c.toml").unwrap_err());
            assert!(err.contains(needle), "{text}: {err}");
        }
        let config = Config::parse(
            "[boards.sighted]\nprofile = \"chessnut\"\nport = \"/dev/ttyUSB0\"\n",
            "c.toml",
        )
        .unwrap();
        let err = format!("{:#}", config.sighted_board("c.toml").unwrap_err());
        assert!(
            err.contains("boards.sighted.profile") && err.contains("chessnut"),
            "{err}"
        );
    }

    #[test]
    fn console_keys_are_checked() {
        for (text, needle) in [
            ("[console]\nsocket = \"\"\n", "console.socket = \"\""),
            (
                "[console]\ntoken_file = \"\"\n",
                "console.token_file = \"\"",
            ),
            ("[console]\ngroup = \" \"\n", "console.group = \"\""),
        ] {
            let err = format!("{:#}", Config::parse(text, "c.toml").unwrap_err());
            assert!(err.contains(needle), "{text}: {err}");
        }
        // A socket path naming an existing file (here the configuration itself) is refused.
        let dir = std::env::temp_dir().join(format!("tactus-config-sock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.toml");
        std::fs::write(&path, "[console]\nsocket = \"c.toml\"\n").unwrap();
        let err = format!("{:#}", Config::load(&path).unwrap_err());
        assert!(
            err.contains("console.socket") && err.contains("not a socket"),
            "{err}"
        );
        std::fs::write(&path, "[console]\nsocket = \"t.sock\"\n").unwrap();
        assert!(Config::load(&path).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn relative_paths_follow_the_file() {
        let dir = std::env::temp_dir().join(format!("tactus-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.toml");
        std::fs::write(
            &path,
            "[record]\ndir = \"out\"\n[console]\nsocket = \"/run/t.sock\"\n",
        )
        .unwrap();
        let config = Config::load(&path).unwrap();
        assert_eq!(config.record_dir(), dir.join("out"));
        assert_eq!(config.socket_path(), PathBuf::from("/run/t.sock"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
