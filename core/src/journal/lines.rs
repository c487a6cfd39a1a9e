//! The journal's lines ([`Entry`]) and its first line, the [`Header`]: what fixes a game (the
//! table's setup as [`SetupRecord`]) and the format's version. The records of what a line holds
//! are below it: the arbiter's inputs in [`super::format`], the table's in [`super::table`].

use anyhow::{Result, anyhow};
use serde::{Deserialize, Serialize};
use shakmaty::{ByColor, CastlingMode, Chess, Color, EnPassantMode, fen::Fen};

use std::collections::BTreeSet;

use crate::{
    announce::{Wording, voice::Style},
    arbiter::{ArbiterConfig, Completion, SeatConfig},
    board::{Sensing, recognize::RecognizerConfig},
    console::Switchable,
    rules::{Edition, Millis, PlayMode, game::RulesConfig, time_control::TimeControl},
    table::{TableParts, TableSettings},
};

use super::{
    format::{BlindRecord, InputRecord, SwitchableRecord},
    table::{SettingsRecord, TableRecord},
};

/// The journal's file name in a game folder (declared with the folder's other names).
pub use crate::folder::JOURNAL_FILE;
/// The format version written in the header; a reader refuses newer ones. Version 3 journals
/// what the table received ([`Entry::Table`], [`super::table`]) and the table's settings in the
/// header; version 2 journaled the arbiter's inputs as the hub had decided them
/// ([`Entry::Input`]), and added the game's identity to the header and a checksum to every line
/// ([`super::check`]); version 1 journals are still read, without checksums. Every version's
/// lines replay.
pub const FORMAT_VERSION: u32 = 3;

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// The first line: what fixes the game.
    Header(Box<Header>),
    /// One input to the arbiter as the hub of format 2 had decided it, at `t` on the game's
    /// time line; `wall` is the Unix time in milliseconds, for people reading the file and for
    /// the record's calendar (replay never uses it). Journals of format 3 have none: they hold [`Entry::Table`] lines.
    Input {
        t: Millis,
        wall: u64,
        input: InputRecord,
    },
    /// What the table received, at `t` on the game's time line (`wall` as for `Input`).
    Table {
        t: Millis,
        wall: u64,
        input: TableRecord,
    },
    /// The game is over (a folder with this line is never resumed).
    End {
        t: Millis,
        result: String,
        reason: String,
    },
}

/// Everything that fixes a game: a resumed game uses these, not the configuration file of the
/// day (the rules, the boards' timing and the blind player's colour cannot change mid-game).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub version: u32,
    /// The game's identity: random, made with the game folder. The record's mark names it, so
    /// that a journal of another game put in this folder is never taken for this one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub game: String,
    /// Unix time in milliseconds when the game folder was made.
    pub created_unix_ms: u64,
    /// PGN tags (Event, Site, Date, Round, White, Black).
    pub tags: Vec<(String, String)>,
    pub setup: SetupRecord,
}

fn is_zero(ms: &Millis) -> bool {
    *ms == 0
}

fn say_own_move_default() -> bool {
    true
}

/// A serialisable [`ArbiterConfig`] plus the start position and the voice used for replays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetupRecord {
    /// The blind player's colour, or both (two blind players, two tactile boards).
    pub blind: BlindRecord,
    pub edition: Edition,
    pub play: PlayMode,
    /// PGN TimeControl notation; absent: no clock.
    pub time_control: Option<String>,
    /// The blind player's board; with two blind players, White's.
    pub blind_board: RecognizerRecord,
    /// The other board: the sighted player's (absent: it has no sensors), or with two blind
    /// players Black's.
    pub sighted_board: Option<RecognizerRecord>,
    pub completion: CompletionRecord,
    pub guidance_repeat_ms: Millis,
    /// Absent in journals written before the setting: on, as it then was not said (replays of
    /// such games add the words back to the blind player; nothing else changes).
    #[serde(default = "say_own_move_default")]
    pub say_own_move: bool,
    /// F.6's window after an announcement (absent in older journals: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub correction_window_ms: Millis,
    /// Each seat's notation where one is known (absent: every notation at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notations: Option<Box<NotationsRecord>>,
    pub start_fen: String,
    /// The voice pack and style, so that `tactus replay` words the transcript as it was said.
    pub voice_pack: String,
    pub voice_style: Style,
    /// Each seat's pack where the two differ (two blind players from two countries); absent:
    /// both hear `voice_pack`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_voice_packs: Option<SeatPacksRecord>,
    /// The requests switched off when the game began (`game.requests_off`, 12.3 a); the
    /// arbiter's switches during the game are [`InputRecord::Switch`] lines. Absent: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests_off: Vec<SwitchableRecord>,
    /// The sighted seat is a training engine's (`tactus train`): named "engine".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub engine: bool,
    /// The table's settings when the game began (its devices, buttons, how play starts); absent
    /// in journals before format 3, which replay without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<SettingsRecord>,
    /// The table's Braille profile (absent: the default): both players' Braille scoresheets are
    /// read with it unless `seat_braille_profiles` gives each his own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub braille_profile: Option<String>,
    /// Each seat's Braille profile, where one is not the table's (two blind players of two
    /// notations): his Braille scoresheet is read in it. Absent: both in `braille_profile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_braille_profiles: Option<SeatProfilesRecord>,
}

/// Each seat's Braille profile, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatProfilesRecord {
    pub white: String,
    pub black: String,
}

/// Each seat's notation (a language name, `"English"`), where one is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotationsRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<String>,
}

/// Each seat's voice pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPacksRecord {
    pub white: String,
    pub black: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecognizerRecord {
    pub sensing: Sensing,
    pub settle_ms: Millis,
    /// Journals written before boards had a scan time read as 0 (every change at once).
    #[serde(default)]
    pub scan_ms: Millis,
    pub bounce_ms: Millis,
    pub differs_after_ms: Millis,
    pub confirm_with_snapshot: bool,
}

impl From<RecognizerConfig> for RecognizerRecord {
    fn from(c: RecognizerConfig) -> Self {
        RecognizerRecord {
            sensing: c.sensing,
            settle_ms: c.settle_ms,
            scan_ms: c.scan_ms,
            bounce_ms: c.bounce_ms,
            differs_after_ms: c.differs_after_ms,
            confirm_with_snapshot: c.confirm_with_snapshot,
        }
    }
}

impl From<RecognizerRecord> for RecognizerConfig {
    fn from(c: RecognizerRecord) -> Self {
        RecognizerConfig {
            sensing: c.sensing,
            settle_ms: c.settle_ms,
            scan_ms: c.scan_ms,
            bounce_ms: c.bounce_ms,
            differs_after_ms: c.differs_after_ms,
            confirm_with_snapshot: c.confirm_with_snapshot,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionRecord {
    Press,
    Settle,
}

impl SetupRecord {
    /// The record of a table set up with `cfg`, starting from `start`.
    pub fn new(cfg: &ArbiterConfig, start: &Chess, voice_pack: &str, style: Style) -> Self {
        let seats = &cfg.seats;
        let (blind, first, second) = match cfg.the_blind() {
            Some(blind) => (blind.into(), seats[blind], seats[!blind]),
            None => (BlindRecord::Both, seats.white, seats.black),
        };
        SetupRecord {
            blind,
            edition: cfg.rules.edition,
            play: cfg.rules.play,
            time_control: cfg.rules.time_control.as_ref().map(ToString::to_string),
            blind_board: first
                .board
                .expect("a blind player's board has sensors (seats::check)")
                .into(),
            sighted_board: second.board.map(Into::into),
            completion: match second.completion {
                Completion::ClockPress => CompletionRecord::Press,
                Completion::Settle => CompletionRecord::Settle,
            },
            guidance_repeat_ms: cfg.guidance_repeat_ms,
            say_own_move: cfg.say_own_move,
            correction_window_ms: cfg.correction_window_ms,
            notations: {
                let of = |seat: Color| cfg.seats[seat].notation.map(|l| l.language.to_owned());
                let (white, black) = (of(Color::White), of(Color::Black));
                (white.is_some() || black.is_some())
                    .then(|| Box::new(NotationsRecord { white, black }))
            },
            start_fen: Fen::from_position(start, EnPassantMode::Legal).to_string(),
            voice_pack: voice_pack.to_owned(),
            voice_style: style,
            seat_voice_packs: None,
            requests_off: Vec::new(),
            engine: second.engine && !second.blind,
            table: None,
            braille_profile: None,
            seat_braille_profiles: None,
        }
    }

    /// The same record with the table's settings and Braille profile.
    pub fn with_table(mut self, settings: &TableSettings, braille_profile: &str) -> Self {
        self.table = Some(SettingsRecord::of(settings));
        self.braille_profile = Some(braille_profile.to_owned());
        self
    }

    /// The same record with each seat's Braille profile (kept only where one is not the
    /// table's, `braille_profile`).
    pub fn with_seat_braille(mut self, profiles: ByColor<String>) -> Self {
        let table = self
            .braille_profile
            .as_deref()
            .unwrap_or(crate::record::braille::DEFAULT_PROFILE);
        self.seat_braille_profiles = (profiles.white != table || profiles.black != table)
            .then_some(SeatProfilesRecord {
                white: profiles.white,
                black: profiles.black,
            });
        self
    }

    /// The Braille profile `seat`'s Braille scoresheet is read in.
    pub fn braille_of(&self, seat: Color) -> &str {
        match &self.seat_braille_profiles {
            Some(profiles) => seat.fold_wb(&profiles.white, &profiles.black),
            None => self
                .braille_profile
                .as_deref()
                .unwrap_or(crate::record::braille::DEFAULT_PROFILE),
        }
    }

    /// The table's settings when the game began; a journal before format 3 has none: its
    /// boards' links are its boards with sensors, and nothing else is set.
    pub fn table_settings(&self) -> Result<TableSettings> {
        if let Some(table) = &self.table {
            return Ok(table.to_settings());
        }
        let cfg = self.arbiter_config()?;
        let sensors = cfg.seats.map(|seat| seat.board.is_some());
        Ok(TableSettings {
            links: sensors,
            sensors,
            training: self.engine,
            ..TableSettings::default()
        })
    }

    /// What a table replaying this journal is built from: the header's, with `wording`, each
    /// seat's words (the shell loads the packs the header names).
    pub fn table_parts(
        &self,
        tags: &[(String, String)],
        wording: ByColor<Wording>,
    ) -> Result<TableParts> {
        let profile = |seat: Color| {
            let name = self.braille_of(seat);
            crate::record::braille::Profile::named(name)
                .map_err(|e| anyhow!("the journal's Braille profile of {seat} {name:?}: {e}"))
        };
        Ok(TableParts {
            arbiter: crate::arbiter::Arbiter::new(self.arbiter_config()?, self.start()?),
            settings: self.table_settings()?,
            tags: tags.to_vec(),
            wording,
            braille: ByColor {
                white: profile(Color::White)?,
                black: profile(Color::Black)?,
            },
            requests_off: self.requests_off(),
        })
    }

    /// The same record with `off` switched off from the start (12.3 a).
    pub fn with_requests_off(mut self, off: impl IntoIterator<Item = Switchable>) -> Self {
        self.requests_off = off.into_iter().map(Into::into).collect();
        self.requests_off.sort();
        self.requests_off.dedup();
        self
    }

    /// The requests switched off from the start.
    pub fn requests_off(&self) -> BTreeSet<Switchable> {
        self.requests_off.iter().map(|&r| r.into()).collect()
    }

    /// The same record with each seat's pack (kept only where they differ; `voice_pack` is then
    /// the blind player's, or White's).
    pub fn with_seat_packs(mut self, packs: ByColor<String>) -> Self {
        if packs.white != packs.black {
            self.seat_voice_packs = Some(SeatPacksRecord {
                white: packs.white,
                black: packs.black,
            });
        }
        self
    }

    /// The voice pack `seat`'s player hears.
    pub fn pack_of(&self, seat: Color) -> &str {
        match &self.seat_voice_packs {
            Some(packs) => seat.fold_wb(&packs.white, &packs.black),
            None => &self.voice_pack,
        }
    }

    pub fn arbiter_config(&self) -> Result<ArbiterConfig> {
        let time_control = match &self.time_control {
            Some(text) => Some(
                text.parse::<TimeControl>()
                    .map_err(|e| anyhow!("the journal's time control {text:?}: {e}"))?,
            ),
            None => None,
        };
        let completion = match self.completion {
            CompletionRecord::Press => Completion::ClockPress,
            CompletionRecord::Settle => Completion::Settle,
        };
        let seats = match self.blind {
            BlindRecord::Both => {
                let black = self.sighted_board.ok_or_else(|| {
                    anyhow!("the journal's table has two blind players but one board")
                })?;
                ByColor {
                    white: SeatConfig::blind(self.blind_board.into()),
                    black: SeatConfig::blind(black.into()),
                }
            }
            BlindRecord::White | BlindRecord::Black => crate::arbiter::one_blind(
                self.blind.color().expect("one blind player"),
                self.blind_board.into(),
                self.sighted_board.map(Into::into),
                completion,
            ),
        };
        Ok(ArbiterConfig {
            rules: RulesConfig {
                edition: self.edition,
                play: self.play,
                time_control,
            },
            seats: ByColor::new_with(|seat| {
                let named = self.notations.as_ref().and_then(|n| match seat {
                    Color::White => n.white.as_deref(),
                    Color::Black => n.black.as_deref(),
                });
                seats[seat]
                    .with_notation(named.and_then(crate::rules::notation::letters_of))
                    .with_engine(self.engine && !seats[seat].blind)
            }),
            guidance_repeat_ms: self.guidance_repeat_ms,
            say_own_move: self.say_own_move,
            correction_window_ms: self.correction_window_ms,
        })
    }

    pub fn start(&self) -> Result<Chess> {
        let fen: Fen = self
            .start_fen
            .parse()
            .map_err(|e| anyhow!("the journal's start position {:?}: {e}", self.start_fen))?;
        fen.into_position(CastlingMode::Standard)
            .map_err(|e| anyhow!("the journal's start position {:?}: {e}", self.start_fen))
    }
}
