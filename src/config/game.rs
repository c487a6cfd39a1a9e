//! `[game]`: the players and the event's tags, the blind player's colour, the Laws (edition and
//! play kind) and the time control; the checks that tie the play kind to the time control.

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;
use shakmaty::Color;
use tactus_core::{
    console::Switchable,
    rules::{Edition, Millis, PlayMode, game::RulesConfig, time_control::TimeControl},
};

/// How long a board that still differs waits before it is described again (F.7: guided until it
/// is right), unless `game.guidance_repeat_ms` says otherwise.
pub const DEFAULT_GUIDANCE_REPEAT_MS: u64 = 8000;

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

/// Who is blind (`game.blind`): one colour, or both (two blind players on two tactile boards,
/// as IBCA's events play).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlindName {
    #[default]
    White,
    Black,
    Both,
}

impl BlindName {
    /// The one blind player's colour; `None` when both are blind.
    pub fn color(self) -> Option<Color> {
        match self {
            BlindName::White => Some(Color::White),
            BlindName::Black => Some(Color::Black),
            BlindName::Both => None,
        }
    }

    /// Whether `seat`'s player is blind.
    pub fn is_blind(self, seat: Color) -> bool {
        self.color().is_none_or(|c| c == seat)
    }
}

impl From<Color> for BlindName {
    fn from(c: Color) -> Self {
        match c {
            Color::White => BlindName::White,
            Color::Black => BlindName::Black,
        }
    }
}

/// Who starts the clocks (`game.start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StartBy {
    /// The arbiter (or the assistant) types `start` at the console; the boards are guided to
    /// the position until then. The default of a tournament game.
    Arbiter,
    /// The clocks start by themselves once both boards show the position: a club evening
    /// without an arbiter, and the default of a training game.
    Boards,
}

impl StartBy {
    /// The word `check-config` and the status use.
    pub fn describe(self) -> &'static str {
        match self {
            StartBy::Arbiter => "at the arbiter's `start` at the console",
            StartBy::Boards => "by themselves, once every board with sensors shows the position",
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
    /// The blind player's colour: "white" (default) or "black"; "both" for two blind players on
    /// two tactile boards.
    #[serde(default)]
    pub blind: BlindName,
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
    /// F.6: how long after his move's announcement has ended the blind player may still have
    /// it corrected (`correct`); his move counts, and his opponent's clock starts, when it has
    /// passed (his own clock runs meanwhile). 0 (default): at the announcement's end (F.3 c).
    #[serde(default)]
    pub correction_window_ms: Millis,
    /// Who starts the clocks: "arbiter" (default) or "boards" (default of a training game).
    pub start: Option<StartBy>,
    /// The piece letters each player writes (E.3), by language ("en", "de", "fr", ... or
    /// "English", "German", ...): his sealed move is read in them first. Absent: a blind
    /// player's voice pack's language (the first part of its name: `de-fide` is German); a
    /// sighted player's sealed move is read in every notation, an ambiguity asked when sealing.
    pub white_notation: Option<String>,
    pub black_notation: Option<String>,
    /// The players' requests the arbiter switches off from the start (12.3 a): `["material"]`,
    /// `["material", "pieces"]`; the arbiter's `requests` switches them during the game.
    #[serde(default, deserialize_with = "requests_off_key")]
    pub requests_off: Vec<Switchable>,
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

/// `game.requests_off`: a list of request names (one name alone is taken as a list of one).
fn requests_off_key<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Switchable>, D::Error> {
    let allowed = || Switchable::ALL.map(|r| format!("\"{r}\"")).join(", ");
    let bad = |what: String| {
        serde::de::Error::custom(format!(
            "key game.requests_off: {what}; allowed: a list of the requests the arbiter may \
             switch off (12.3 a), {}, like requests_off = [\"material\"]",
            allowed()
        ))
    };
    let names = match toml::Value::deserialize(d)? {
        toml::Value::String(name) => vec![toml::Value::String(name)],
        toml::Value::Array(items) => items,
        other => return Err(bad(format!("{other} is not a list of requests"))),
    };
    names
        .into_iter()
        .map(|name| match &name {
            toml::Value::String(text) => text.parse::<Switchable>().map_err(|_| {
                bad(format!(
                    "\"{text}\" is not a request the arbiter can switch off"
                ))
            }),
            other => Err(bad(format!("{other} is not a request's name"))),
        })
        .collect()
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
            blind: BlindName::White,
            time_control: None,
            edition: Edition::default(),
            play: PlayMode::default(),
            guidance_repeat_ms: DEFAULT_GUIDANCE_REPEAT_MS,
            say_own_move: true,
            correction_window_ms: 0,
            start: None,
            white_notation: None,
            black_notation: None,
            requests_off: Vec::new(),
        }
    }
}

impl GameSection {
    /// The rules part as the game core wants it.
    pub fn rules_config(&self) -> Result<RulesConfig> {
        let time_control = match &self.time_control {
            Some(text) => Some(text.parse::<TimeControl>().map_err(|e| anyhow!("{e}"))?),
            None => None,
        };
        Ok(RulesConfig {
            edition: self.edition,
            play: self.play,
            time_control,
        })
    }

    /// `game.guidance_repeat_ms`: slow enough to be said.
    pub fn check_guidance(&self, origin: &str) -> Result<()> {
        if self.guidance_repeat_ms < 1000 {
            bail!(
                "{origin}: game.guidance_repeat_ms = {}: at least 1000 (repeating guidance faster \
                 than it can be said would drown it)",
                self.guidance_repeat_ms
            );
        }
        Ok(())
    }

    /// `game.play` against `game.time_control`: a rapid or blitz game is one whose moves are all
    /// made in a fixed time the Laws define (2001 Appendices B 1 and C 1, 2009 A1 and B1); a
    /// 90-minute control played under the blitz laws, or a blitz without a clock, cannot be
    /// what was meant.
    pub fn check_play(&self, origin: &str) -> Result<()> {
        let wanted = match self.play {
            PlayMode::Standard => return Ok(()),
            PlayMode::Rapid | PlayMode::RapidSupervised => PlayMode::Rapid,
            PlayMode::Blitz | PlayMode::BlitzSupervised => PlayMode::Blitz,
        };
        let name = play_key(self.play);
        let Some(tc) = self.rules_config()?.time_control else {
            bail!(
                "{origin}: game.play = \"{name}\" needs a clock: set game.time_control (a {} \
                 game is played in a fixed time for each player)",
                pace_word(wanted)
            );
        };
        let pace = tc.pace(self.edition);
        if pace != wanted {
            bail!(
                "{origin}: game.play = \"{name}\" with game.time_control = \"{tc}\" ({}): by \
                 the Laws ({}) that is {}; a {} game has all its moves in {}",
                tc.describe(),
                definition_articles(self.edition),
                pace_phrase(pace),
                pace_word(wanted),
                pace_range(wanted, self.edition)
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
        let pace = tc.pace(self.edition);
        if self.play == PlayMode::Standard && pace != PlayMode::Standard {
            warnings.push(format!(
                "game.time_control = \"{tc}\" is {} by the Laws ({}), but game.play is \
                 \"standard\": the standard Laws apply (set play = \"{}\" for the appendix)",
                pace_phrase(pace),
                definition_articles(self.edition),
                play_key(pace)
            ));
        }
        warnings
    }

    /// The PGN tags the configuration sets (Event, Site, Round, White, Black).
    pub fn tags(&self) -> Vec<(String, String)> {
        let g = self;
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
pub(super) fn play_words(play: PlayMode, edition: Edition) -> String {
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
