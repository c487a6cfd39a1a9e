//! The journal's lines of format 3: what the table received ([`TableInput`]), as
//! [`TableRecord`]s, and the table's settings ([`SettingsRecord`]). Serialisable mirrors, as the
//! arbiter's inputs have theirs in [`super::format`]: the journal's names stay when the code's
//! change. Moves are written whole (their piece, squares, capture and promotion), so that they
//! read back without the position they were made in (an engine's answer may be for a position
//! the game has left). The arbiter's token is never written (`login` is the connection's, and
//! never reaches the table; its record has no token).

use anyhow::{Result, anyhow};
use serde::{Deserialize, Serialize};
use shakmaty::{ByColor, Color, File, KnownOutcome, Move, Rank, Role, Square};

use super::format::{ColorRecord, InputRecord, SensorRecord, SwitchableRecord};
use crate::{
    announce::Audience,
    board::{dgt::ClockMessage, dgt_clock::ClockNote, session::LinkEvent},
    console::{self, Action, ClaimKind, Command, Line, Paste, Penalty, Request, Side, Training},
    engine::{EngineEvent, Purpose, Score},
    record::braille::BrailleFormat,
    rules::{ClockMillis, dead::Mateability, game::QuickplayRuling},
    table::{ClockSeat, KeypadError, KeypadRefusal, TableInput, TableSettings},
};

/// [`TableInput`] in the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableRecord {
    Link {
        board: ColorRecord,
        event: LinkRecord,
    },
    SpeechFinished {
        id: u64,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        cut: bool,
    },
    SpeechNote {
        /// `white`, `black` or `both`.
        audience: String,
        message: String,
        recovered: bool,
    },
    Console {
        conn: u64,
        role: RoleRecord,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<ColorRecord>,
        command: CommandRecord,
    },
    Keypad {
        conn: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<ColorRecord>,
        refusal: KeypadRecord,
    },
    Verdict {
        ticket: u64,
        mateability: Mateability,
    },
    Engine(EngineRecord),
    Tick,
    JournalDown {
        error: String,
    },
    JournalBack,
    Resumed {
        settings: SettingsRecord,
    },
    /// An input to the arbiter as it stands (one that waited while the journal could not be
    /// written, applied when it could).
    Applied(InputRecord),
}

/// A board link's event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkRecord {
    Connected {
        info: String,
    },
    Disconnected {
        reason: String,
    },
    Unavailable {
        reason: String,
    },
    Sensor(SensorRecord),
    /// A DGT clock's report of its times and its lever.
    ClockTimes {
        right_ms: u64,
        left_ms: u64,
        running: bool,
        lever_right_high: bool,
        battery_low: bool,
    },
    /// The clock's driver: ready (its version), not in its PC mode, absent.
    ClockReady {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        version: Option<(u8, u8)>,
    },
    ClockNotInPcMode,
    ClockAbsent,
}

/// A console's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleRecord {
    Player,
    Assistant,
    Arbiter,
}

/// A keypad's refused line, as much as telling the player needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeypadRecord {
    /// `unknown`, `not_his`, `bad_entry`, `too_fast`.
    pub kind: String,
    /// The unknown word, or the command not his or whose arguments did not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word: Option<String>,
    pub why: String,
}

/// The training engine's news.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineRecord {
    Up {
        name: String,
    },
    Down {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        restart_in_ms: Option<u64>,
    },
    Answer {
        id: u64,
        /// `play`, `hint`, `eval`, or `review` with `ply`.
        purpose: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<usize>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        best: Option<MoveRecord>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        centipawns: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mate_in: Option<i32>,
    },
}

/// A move, whole: read back without a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveRecord {
    Normal {
        /// The piece's letter (`p`, `n`, `b`, `r`, `q`, `k`).
        role: char,
        #[serde(with = "square_name")]
        from: Square,
        #[serde(with = "square_name")]
        to: Square,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capture: Option<char>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        promotion: Option<char>,
    },
    EnPassant {
        #[serde(with = "square_name")]
        from: Square,
        #[serde(with = "square_name")]
        to: Square,
    },
    Castle {
        #[serde(with = "square_name")]
        king: Square,
        #[serde(with = "square_name")]
        rook: Square,
    },
    Put {
        role: char,
        #[serde(with = "square_name")]
        to: Square,
    },
}

/// The table's settings (see [`TableSettings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingsRecord {
    pub links: Vec<ColorRecord>,
    pub sensors: Vec<ColorRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSeatRecord>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub start_by_boards: bool,
    /// White's, Black's.
    pub intake_speed: (f64, f64),
    /// Each seat's buttons: number and request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buttons_white: Vec<(u8, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buttons_black: Vec<(u8, String)>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub training: bool,
}

/// A DGT clock on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSeatRecord {
    pub seat: ColorRecord,
    pub left: ColorRecord,
    pub lever_completes_move: bool,
}

/// A console command (the commands a table receives; `login` without its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandRecord {
    Request(RequestCmd),
    Tell(RequestCmd),
    Game(ActionRecord),
    Status,
    Help {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
    },
    Quit,
    Role {
        role: RoleRecord,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<ColorRecord>,
    },
    /// A login: its token is never journaled.
    Login,
    Training(TrainingRecord),
    Paste,
    Requests {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        switch: Option<(SwitchableRecord, bool)>,
    },
}

/// A request of the blind player (F.9 d).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestCmd {
    MovesCompleted,
    Times,
    LastMove,
    Moves {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last: Option<usize>,
    },
    ToMove,
    Square {
        #[serde(with = "square_name")]
        square: Square,
    },
    Rank {
        rank: char,
    },
    File {
        file: char,
    },
    Diagonal {
        #[serde(with = "square_name")]
        from: Square,
        #[serde(with = "square_name")]
        to: Square,
    },
    Pieces {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        side: Option<SideRecord>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<char>,
    },
    Material,
    Repeat,
    Stop,
}

/// A side as the console names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideRecord {
    White,
    Black,
    Blind,
    Sighted,
}

/// A training request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainingRecord {
    Hint,
    Eval,
    TakeBack,
    Review,
    Break,
}

/// An assistant's or arbiter's action (moves and texts as typed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionRecord {
    Start {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        anyway: bool,
    },
    Press,
    Move {
        text: String,
    },
    Correct {
        text: String,
    },
    Promote {
        piece: char,
    },
    Offer {
        by: SideRecord,
    },
    Accept {
        by: SideRecord,
    },
    Decline {
        by: SideRecord,
    },
    Resign {
        by: SideRecord,
    },
    Claim {
        by: SideRecord,
        /// `repetition` or `fifty_moves`.
        kind: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        intended: Option<String>,
    },
    ClaimIllegal {
        by: SideRecord,
    },
    Flag {
        by: SideRecord,
    },
    Quickplay {
        by: SideRecord,
    },
    Touch {
        by: SideRecord,
        #[serde(with = "square_name")]
        square: Square,
    },
    Adjust {
        by: SideRecord,
        #[serde(with = "square_name")]
        square: Square,
    },
    Seal {
        text: String,
    },
    Resumption {
        text: String,
    },
    Open {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        absent: bool,
    },
    Pause,
    Resume,
    SetClock {
        side: SideRecord,
        remaining_ms: ClockMillis,
    },
    AddTime {
        side: SideRecord,
        delta_ms: ClockMillis,
    },
    SetMoves {
        side: SideRecord,
        moves: u32,
    },
    /// `draw`, `postpone` (with `extra_time_to_opponent`), `reject`.
    Rule {
        ruling: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        extra_time_to_opponent: bool,
    },
    Illegal {
        by: SideRecord,
    },
    Scoresheet {
        side: SideRecord,
        sans: Vec<String>,
    },
    BrailleScoresheet {
        side: SideRecord,
        /// `brf` or `unicode`.
        format: String,
        text: String,
    },
    ConfirmClocks,
    Confirm,
    Cancel,
    Undo,
    TakeBack {
        to_ply: usize,
    },
    /// `1-0`, `0-1`, `1/2-1/2`.
    Result {
        outcome: String,
    },
    Penalty {
        offender: SideRecord,
        /// `bonus` (13.4 b) or `deduct` (13.4 c).
        penalty: String,
        ms: i64,
    },
}

impl TableRecord {
    /// The journal's record of what the table received.
    pub fn of(input: &TableInput) -> TableRecord {
        match input {
            TableInput::Link { seat, event } => TableRecord::Link {
                board: (*seat).into(),
                event: LinkRecord::of(event),
            },
            TableInput::SpeechFinished { id, cut } => {
                TableRecord::SpeechFinished { id: *id, cut: *cut }
            }
            TableInput::SpeechNote {
                audience,
                message,
                recovered,
            } => TableRecord::SpeechNote {
                audience: match audience {
                    Audience::Player(c) => c.to_string(),
                    Audience::Both => "both".into(),
                },
                message: message.clone(),
                recovered: *recovered,
            },
            TableInput::Console {
                conn,
                role,
                seat,
                command,
            } => TableRecord::Console {
                conn: *conn,
                role: (*role).into(),
                seat: seat.map(Into::into),
                command: CommandRecord::of(command),
            },
            TableInput::Keypad {
                conn,
                seat,
                refusal,
            } => TableRecord::Keypad {
                conn: *conn,
                seat: seat.map(Into::into),
                refusal: KeypadRecord::of(refusal),
            },
            TableInput::Verdict {
                ticket,
                mateability,
            } => TableRecord::Verdict {
                ticket: *ticket,
                mateability: *mateability,
            },
            TableInput::Engine(event) => TableRecord::Engine(EngineRecord::of(event)),
            TableInput::Tick => TableRecord::Tick,
            TableInput::JournalDown { error } => TableRecord::JournalDown {
                error: error.clone(),
            },
            TableInput::JournalStillDown { error } => TableRecord::JournalDown {
                error: error.clone(),
            },
            TableInput::JournalBack => TableRecord::JournalBack,
            TableInput::Resumed { settings } => TableRecord::Resumed {
                settings: SettingsRecord::of(settings),
            },
            TableInput::Recorded(input) => TableRecord::Applied(input.into()),
        }
    }

    /// What the table received, read back. `position`: the game's position now (an arbiter
    /// input applied as it stands reads its move there); `blind`: the header's blind players.
    pub fn to_input(
        &self,
        position: &shakmaty::Chess,
        blind: super::BlindRecord,
    ) -> Result<TableInput> {
        Ok(match self {
            TableRecord::Link { board, event } => TableInput::Link {
                seat: (*board).into(),
                event: event.to_event()?,
            },
            TableRecord::SpeechFinished { id, cut } => {
                TableInput::SpeechFinished { id: *id, cut: *cut }
            }
            TableRecord::SpeechNote {
                audience,
                message,
                recovered,
            } => TableInput::SpeechNote {
                audience: match audience.as_str() {
                    "both" => Audience::Both,
                    "white" => Audience::Player(Color::White),
                    "black" => Audience::Player(Color::Black),
                    other => return Err(anyhow!("{other:?} is not an audience")),
                },
                message: message.clone(),
                recovered: *recovered,
            },
            TableRecord::Console {
                conn,
                role,
                seat,
                command,
            } => TableInput::Console {
                conn: *conn,
                role: (*role).into(),
                seat: seat.map(Into::into),
                command: command.to_command()?,
            },
            TableRecord::Keypad {
                conn,
                seat,
                refusal,
            } => TableInput::Keypad {
                conn: *conn,
                seat: seat.map(Into::into),
                refusal: refusal.to_refusal()?,
            },
            TableRecord::Verdict {
                ticket,
                mateability,
            } => TableInput::Verdict {
                ticket: *ticket,
                mateability: *mateability,
            },
            TableRecord::Engine(event) => TableInput::Engine(event.to_event()?),
            TableRecord::Tick => TableInput::Tick,
            TableRecord::JournalDown { error } => TableInput::JournalDown {
                error: error.clone(),
            },
            TableRecord::JournalBack => TableInput::JournalBack,
            TableRecord::Resumed { settings } => TableInput::Resumed {
                settings: settings.to_settings(),
            },
            TableRecord::Applied(input) => TableInput::Recorded(input.to_input(position, blind)?),
        })
    }
}

impl LinkRecord {
    fn of(event: &LinkEvent) -> LinkRecord {
        match event {
            LinkEvent::Connected { info } => LinkRecord::Connected { info: info.clone() },
            LinkEvent::Disconnected { reason } => LinkRecord::Disconnected {
                reason: reason.clone(),
            },
            LinkEvent::Unavailable { reason } => LinkRecord::Unavailable {
                reason: reason.clone(),
            },
            LinkEvent::Sensor(event) => LinkRecord::Sensor(event.into()),
            LinkEvent::Clock(ClockMessage::Times {
                right_ms,
                left_ms,
                running,
                lever_right_high,
                battery_low,
                ..
            }) => LinkRecord::ClockTimes {
                right_ms: *right_ms,
                left_ms: *left_ms,
                running: *running,
                lever_right_high: *lever_right_high,
                battery_low: *battery_low,
            },
            LinkEvent::ClockNote(ClockNote::Ready { version }) => {
                LinkRecord::ClockReady { version: *version }
            }
            LinkEvent::ClockNote(ClockNote::NotInPcMode) => LinkRecord::ClockNotInPcMode,
            LinkEvent::ClockNote(ClockNote::Absent) => LinkRecord::ClockAbsent,
            // The table takes in nothing else of a link (`Table::admit`): what is written of it
            // is the link's news in words.
            other => LinkRecord::Unavailable {
                reason: format!("{other:?}"),
            },
        }
    }

    fn to_event(&self) -> Result<LinkEvent> {
        Ok(match self {
            LinkRecord::Connected { info } => LinkEvent::Connected { info: info.clone() },
            LinkRecord::Disconnected { reason } => LinkEvent::Disconnected {
                reason: reason.clone(),
            },
            LinkRecord::Unavailable { reason } => LinkEvent::Unavailable {
                reason: reason.clone(),
            },
            LinkRecord::Sensor(event) => LinkEvent::Sensor(event.to_event()?),
            LinkRecord::ClockTimes {
                right_ms,
                left_ms,
                running,
                lever_right_high,
                battery_low,
            } => LinkEvent::Clock(ClockMessage::Times {
                right_ms: *right_ms,
                left_ms: *left_ms,
                running: *running,
                lever_right_high: *lever_right_high,
                battery_low: *battery_low,
                no_clock: false,
            }),
            LinkRecord::ClockReady { version } => {
                LinkEvent::ClockNote(ClockNote::Ready { version: *version })
            }
            LinkRecord::ClockNotInPcMode => LinkEvent::ClockNote(ClockNote::NotInPcMode),
            LinkRecord::ClockAbsent => LinkEvent::ClockNote(ClockNote::Absent),
        })
    }
}

impl From<console::Role> for RoleRecord {
    fn from(role: console::Role) -> Self {
        match role {
            console::Role::Player => RoleRecord::Player,
            console::Role::Assistant => RoleRecord::Assistant,
            console::Role::Arbiter => RoleRecord::Arbiter,
        }
    }
}

impl From<RoleRecord> for console::Role {
    fn from(role: RoleRecord) -> Self {
        match role {
            RoleRecord::Player => console::Role::Player,
            RoleRecord::Assistant => console::Role::Assistant,
            RoleRecord::Arbiter => console::Role::Arbiter,
        }
    }
}

impl KeypadRecord {
    fn of(refusal: &KeypadRefusal) -> KeypadRecord {
        let (kind, word) = match &refusal.error {
            KeypadError::Unknown { word } => ("unknown", word.clone()),
            KeypadError::NotHis { command } => ("not_his", Some(command.clone())),
            KeypadError::BadEntry { command } => ("bad_entry", command.clone()),
            KeypadError::TooFast => ("too_fast", None),
        };
        KeypadRecord {
            kind: kind.into(),
            word,
            why: refusal.why.clone(),
        }
    }

    fn to_refusal(&self) -> Result<KeypadRefusal> {
        let error = match (self.kind.as_str(), &self.word) {
            ("unknown", word) => KeypadError::Unknown { word: word.clone() },
            ("not_his", Some(command)) => KeypadError::NotHis {
                command: command.clone(),
            },
            ("bad_entry", command) => KeypadError::BadEntry {
                command: command.clone(),
            },
            ("too_fast", None) => KeypadError::TooFast,
            (kind, _) => return Err(anyhow!("{kind:?} is not a keypad's refusal")),
        };
        Ok(KeypadRefusal {
            error,
            why: self.why.clone(),
        })
    }
}

impl EngineRecord {
    fn of(event: &EngineEvent) -> EngineRecord {
        match event {
            EngineEvent::Up { name } => EngineRecord::Up { name: name.clone() },
            EngineEvent::Down { reason, restart_in } => EngineRecord::Down {
                reason: reason.clone(),
                restart_in_ms: restart_in.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            },
            EngineEvent::Answer {
                id,
                purpose,
                best,
                score,
            } => {
                let (purpose, ply) = match purpose {
                    Purpose::Play => ("play", None),
                    Purpose::Hint => ("hint", None),
                    Purpose::Eval => ("eval", None),
                    Purpose::Review(ply) => ("review", Some(*ply)),
                };
                EngineRecord::Answer {
                    id: *id,
                    purpose: purpose.into(),
                    ply,
                    best: best.map(MoveRecord::of),
                    centipawns: match score {
                        Some(Score::Cp(cp)) => Some(*cp),
                        _ => None,
                    },
                    mate_in: match score {
                        Some(Score::Mate(n)) => Some(*n),
                        _ => None,
                    },
                }
            }
        }
    }

    fn to_event(&self) -> Result<EngineEvent> {
        Ok(match self {
            EngineRecord::Up { name } => EngineEvent::Up { name: name.clone() },
            EngineRecord::Down {
                reason,
                restart_in_ms,
            } => EngineEvent::Down {
                reason: reason.clone(),
                restart_in: restart_in_ms.map(std::time::Duration::from_millis),
            },
            EngineRecord::Answer {
                id,
                purpose,
                ply,
                best,
                centipawns,
                mate_in,
            } => EngineEvent::Answer {
                id: *id,
                purpose: match (purpose.as_str(), ply) {
                    ("play", _) => Purpose::Play,
                    ("hint", _) => Purpose::Hint,
                    ("eval", _) => Purpose::Eval,
                    ("review", Some(ply)) => Purpose::Review(*ply),
                    (other, _) => return Err(anyhow!("{other:?} is not a search's purpose")),
                },
                best: best.map(|m| m.to_move()).transpose()?,
                score: match (centipawns, mate_in) {
                    (Some(cp), _) => Some(Score::Cp(*cp)),
                    (None, Some(n)) => Some(Score::Mate(*n)),
                    (None, None) => None,
                },
            },
        })
    }
}

fn role_of(letter: char) -> Result<Role> {
    Role::from_char(letter).ok_or_else(|| anyhow!("{letter:?} is not a piece's letter"))
}

impl MoveRecord {
    pub fn of(m: Move) -> MoveRecord {
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => MoveRecord::Normal {
                role: role.char(),
                from,
                to,
                capture: capture.map(Role::char),
                promotion: promotion.map(Role::char),
            },
            Move::EnPassant { from, to } => MoveRecord::EnPassant { from, to },
            Move::Castle { king, rook } => MoveRecord::Castle { king, rook },
            Move::Put { role, to } => MoveRecord::Put {
                role: role.char(),
                to,
            },
        }
    }

    pub fn to_move(self) -> Result<Move> {
        Ok(match self {
            MoveRecord::Normal {
                role,
                from,
                to,
                capture,
                promotion,
            } => Move::Normal {
                role: role_of(role)?,
                from,
                capture: capture.map(role_of).transpose()?,
                to,
                promotion: promotion.map(role_of).transpose()?,
            },
            MoveRecord::EnPassant { from, to } => Move::EnPassant { from, to },
            MoveRecord::Castle { king, rook } => Move::Castle { king, rook },
            MoveRecord::Put { role, to } => Move::Put {
                role: role_of(role)?,
                to,
            },
        })
    }
}

impl SettingsRecord {
    pub fn of(settings: &TableSettings) -> SettingsRecord {
        let seats = |which: &ByColor<bool>| -> Vec<ColorRecord> {
            Color::ALL
                .into_iter()
                .filter(|&c| which[c])
                .map(Into::into)
                .collect()
        };
        SettingsRecord {
            links: seats(&settings.links),
            sensors: seats(&settings.sensors),
            clock: settings.clock.map(|c| ClockSeatRecord {
                seat: c.seat.into(),
                left: c.left.into(),
                lever_completes_move: c.lever_completes_move,
            }),
            start_by_boards: settings.start_by_boards,
            intake_speed: (settings.intake_speed.white, settings.intake_speed.black),
            buttons_white: settings.buttons.white.clone().into_iter().collect(),
            buttons_black: settings.buttons.black.clone().into_iter().collect(),
            training: settings.training,
        }
    }

    pub fn to_settings(&self) -> TableSettings {
        let seats = |which: &[ColorRecord]| {
            ByColor::new_with(|c| which.iter().any(|&r| Color::from(r) == c))
        };
        TableSettings {
            links: seats(&self.links),
            sensors: seats(&self.sensors),
            clock: self.clock.map(|c| ClockSeat {
                seat: c.seat.into(),
                left: c.left.into(),
                lever_completes_move: c.lever_completes_move,
            }),
            start_by_boards: self.start_by_boards,
            intake_speed: ByColor {
                white: self.intake_speed.0,
                black: self.intake_speed.1,
            },
            buttons: ByColor {
                white: self.buttons_white.iter().cloned().collect(),
                black: self.buttons_black.iter().cloned().collect(),
            },
            training: self.training,
        }
    }
}

impl From<Side> for SideRecord {
    fn from(side: Side) -> Self {
        match side {
            Side::White => SideRecord::White,
            Side::Black => SideRecord::Black,
            Side::Blind => SideRecord::Blind,
            Side::Sighted => SideRecord::Sighted,
        }
    }
}

impl From<SideRecord> for Side {
    fn from(side: SideRecord) -> Self {
        match side {
            SideRecord::White => Side::White,
            SideRecord::Black => Side::Black,
            SideRecord::Blind => Side::Blind,
            SideRecord::Sighted => Side::Sighted,
        }
    }
}

impl RequestCmd {
    fn of(request: &Request) -> RequestCmd {
        match request {
            Request::MovesCompleted => RequestCmd::MovesCompleted,
            Request::Times => RequestCmd::Times,
            Request::LastMove => RequestCmd::LastMove,
            Request::Moves(last) => RequestCmd::Moves { last: *last },
            Request::ToMove => RequestCmd::ToMove,
            Request::Square(square) => RequestCmd::Square { square: *square },
            Request::Line(Line::Rank(rank)) => RequestCmd::Rank { rank: rank.char() },
            Request::Line(Line::File(file)) => RequestCmd::File { file: file.char() },
            Request::Line(Line::Diagonal { from, to }) => RequestCmd::Diagonal {
                from: *from,
                to: *to,
            },
            Request::Pieces { side, kind } => RequestCmd::Pieces {
                side: side.map(Into::into),
                kind: kind.map(Role::char),
            },
            Request::Material => RequestCmd::Material,
            Request::Repeat => RequestCmd::Repeat,
            Request::Stop => RequestCmd::Stop,
        }
    }

    fn to_request(&self) -> Result<Request> {
        Ok(match self {
            RequestCmd::MovesCompleted => Request::MovesCompleted,
            RequestCmd::Times => Request::Times,
            RequestCmd::LastMove => Request::LastMove,
            RequestCmd::Moves { last } => Request::Moves(*last),
            RequestCmd::ToMove => Request::ToMove,
            RequestCmd::Square { square } => Request::Square(*square),
            RequestCmd::Rank { rank } => Request::Line(Line::Rank(
                Rank::from_char(*rank).ok_or_else(|| anyhow!("{rank:?} is not a rank"))?,
            )),
            RequestCmd::File { file } => Request::Line(Line::File(
                File::from_char(*file).ok_or_else(|| anyhow!("{file:?} is not a file"))?,
            )),
            RequestCmd::Diagonal { from, to } => Request::Line(Line::Diagonal {
                from: *from,
                to: *to,
            }),
            RequestCmd::Pieces { side, kind } => Request::Pieces {
                side: side.map(Into::into),
                kind: kind.map(role_of).transpose()?,
            },
            RequestCmd::Material => Request::Material,
            RequestCmd::Repeat => Request::Repeat,
            RequestCmd::Stop => Request::Stop,
        })
    }
}

impl From<Training> for TrainingRecord {
    fn from(t: Training) -> Self {
        match t {
            Training::Hint => TrainingRecord::Hint,
            Training::Eval => TrainingRecord::Eval,
            Training::TakeBack => TrainingRecord::TakeBack,
            Training::Review => TrainingRecord::Review,
            Training::Break => TrainingRecord::Break,
        }
    }
}

impl From<TrainingRecord> for Training {
    fn from(t: TrainingRecord) -> Self {
        match t {
            TrainingRecord::Hint => Training::Hint,
            TrainingRecord::Eval => Training::Eval,
            TrainingRecord::TakeBack => Training::TakeBack,
            TrainingRecord::Review => Training::Review,
            TrainingRecord::Break => Training::Break,
        }
    }
}

fn outcome_text(outcome: KnownOutcome) -> String {
    outcome.to_string()
}

fn outcome_of(text: &str) -> Result<KnownOutcome> {
    match text {
        "1-0" => Ok(KnownOutcome::Decisive {
            winner: Color::White,
        }),
        "0-1" => Ok(KnownOutcome::Decisive {
            winner: Color::Black,
        }),
        "1/2-1/2" => Ok(KnownOutcome::Draw),
        other => Err(anyhow!("{other:?} is not a result")),
    }
}

impl CommandRecord {
    pub fn of(command: &Command) -> CommandRecord {
        match command {
            Command::Request(r) => CommandRecord::Request(RequestCmd::of(r)),
            Command::Tell(r) => CommandRecord::Tell(RequestCmd::of(r)),
            Command::Game(action) => CommandRecord::Game(ActionRecord::of(action)),
            Command::Status => CommandRecord::Status,
            Command::Help(topic) => CommandRecord::Help {
                topic: topic.map(str::to_string),
            },
            Command::Quit => CommandRecord::Quit,
            Command::Role { role, seat } => CommandRecord::Role {
                role: (*role).into(),
                seat: seat.map(Into::into),
            },
            Command::Login { .. } => CommandRecord::Login,
            Command::Training(t) => CommandRecord::Training((*t).into()),
            Command::Paste(_) => CommandRecord::Paste,
            Command::Requests(switch) => CommandRecord::Requests {
                switch: switch.map(|(r, on)| (r.into(), on)),
            },
        }
    }

    pub fn to_command(&self) -> Result<Command> {
        Ok(match self {
            CommandRecord::Request(r) => Command::Request(r.to_request()?),
            CommandRecord::Tell(r) => Command::Tell(r.to_request()?),
            CommandRecord::Game(action) => Command::Game(action.to_action()?),
            CommandRecord::Status => Command::Status,
            CommandRecord::Help { topic } => Command::Help(match topic {
                None => None,
                Some(topic) => Some(
                    crate::commands::lookup(topic)
                        .ok_or_else(|| anyhow!("{topic:?} is not a command"))?
                        .name,
                ),
            }),
            CommandRecord::Quit => Command::Quit,
            CommandRecord::Role { role, seat } => Command::Role {
                role: (*role).into(),
                seat: seat.map(Into::into),
            },
            CommandRecord::Login => Command::Login {
                token: String::new(),
            },
            CommandRecord::Training(t) => Command::Training((*t).into()),
            CommandRecord::Paste => Command::Paste(Paste::Dropped),
            CommandRecord::Requests { switch } => {
                Command::Requests(switch.map(|(r, on)| (r.into(), on)))
            }
        })
    }
}

impl ActionRecord {
    fn of(action: &Action) -> ActionRecord {
        use ActionRecord as R;
        let s = |side: &Side| SideRecord::from(*side);
        match action {
            Action::Start { anyway } => R::Start { anyway: *anyway },
            Action::Press => R::Press,
            Action::Move(text) => R::Move { text: text.clone() },
            Action::Correct(text) => R::Correct { text: text.clone() },
            Action::Promote(role) => R::Promote { piece: role.char() },
            Action::Offer(by) => R::Offer { by: s(by) },
            Action::Accept(by) => R::Accept { by: s(by) },
            Action::Decline(by) => R::Decline { by: s(by) },
            Action::Resign(by) => R::Resign { by: s(by) },
            Action::Claim { by, kind, intended } => R::Claim {
                by: s(by),
                kind: match kind {
                    ClaimKind::Repetition => "repetition",
                    ClaimKind::FiftyMoves => "fifty_moves",
                }
                .into(),
                intended: intended.clone(),
            },
            Action::ClaimIllegal(by) => R::ClaimIllegal { by: s(by) },
            Action::Flag(by) => R::Flag { by: s(by) },
            Action::Quickplay(by) => R::Quickplay { by: s(by) },
            Action::Touch { by, square } => R::Touch {
                by: s(by),
                square: *square,
            },
            Action::Adjust { by, square } => R::Adjust {
                by: s(by),
                square: *square,
            },
            Action::Seal(text) => R::Seal { text: text.clone() },
            Action::Resumption(text) => R::Resumption { text: text.clone() },
            Action::Open { absent } => R::Open { absent: *absent },
            Action::Pause => R::Pause,
            Action::Resume => R::Resume,
            Action::SetClock { side, remaining_ms } => R::SetClock {
                side: s(side),
                remaining_ms: *remaining_ms,
            },
            Action::AddTime { side, delta_ms } => R::AddTime {
                side: s(side),
                delta_ms: *delta_ms,
            },
            Action::SetMoves { side, moves } => R::SetMoves {
                side: s(side),
                moves: *moves,
            },
            Action::Rule(ruling) => match ruling {
                QuickplayRuling::Draw => R::Rule {
                    ruling: "draw".into(),
                    extra_time_to_opponent: false,
                },
                QuickplayRuling::Postpone {
                    extra_time_to_opponent,
                } => R::Rule {
                    ruling: "postpone".into(),
                    extra_time_to_opponent: *extra_time_to_opponent,
                },
                QuickplayRuling::Reject => R::Rule {
                    ruling: "reject".into(),
                    extra_time_to_opponent: false,
                },
            },
            Action::Illegal(by) => R::Illegal { by: s(by) },
            Action::Scoresheet { side, sans } => R::Scoresheet {
                side: s(side),
                sans: sans.clone(),
            },
            Action::BrailleScoresheet { side, format, text } => R::BrailleScoresheet {
                side: s(side),
                format: match format {
                    BrailleFormat::Brf => "brf",
                    BrailleFormat::Unicode => "unicode",
                }
                .into(),
                text: text.clone(),
            },
            Action::ConfirmClocks => R::ConfirmClocks,
            Action::Confirm => R::Confirm,
            Action::Cancel => R::Cancel,
            Action::Undo => R::Undo,
            Action::TakeBack { to_ply } => R::TakeBack { to_ply: *to_ply },
            Action::Result(outcome) => R::Result {
                outcome: outcome_text(*outcome),
            },
            Action::Penalty {
                offender,
                penalty,
                ms,
            } => R::Penalty {
                offender: s(offender),
                penalty: match penalty {
                    Penalty::Bonus => "bonus",
                    Penalty::Deduct => "deduct",
                }
                .into(),
                ms: *ms,
            },
        }
    }

    fn to_action(&self) -> Result<Action> {
        use ActionRecord as R;
        let s = |side: &SideRecord| Side::from(*side);
        Ok(match self {
            R::Start { anyway } => Action::Start { anyway: *anyway },
            R::Press => Action::Press,
            R::Move { text } => Action::Move(text.clone()),
            R::Correct { text } => Action::Correct(text.clone()),
            R::Promote { piece } => Action::Promote(role_of(*piece)?),
            R::Offer { by } => Action::Offer(s(by)),
            R::Accept { by } => Action::Accept(s(by)),
            R::Decline { by } => Action::Decline(s(by)),
            R::Resign { by } => Action::Resign(s(by)),
            R::Claim { by, kind, intended } => Action::Claim {
                by: s(by),
                kind: match kind.as_str() {
                    "repetition" => ClaimKind::Repetition,
                    "fifty_moves" => ClaimKind::FiftyMoves,
                    other => return Err(anyhow!("{other:?} is not a claim")),
                },
                intended: intended.clone(),
            },
            R::ClaimIllegal { by } => Action::ClaimIllegal(s(by)),
            R::Flag { by } => Action::Flag(s(by)),
            R::Quickplay { by } => Action::Quickplay(s(by)),
            R::Touch { by, square } => Action::Touch {
                by: s(by),
                square: *square,
            },
            R::Adjust { by, square } => Action::Adjust {
                by: s(by),
                square: *square,
            },
            R::Seal { text } => Action::Seal(text.clone()),
            R::Resumption { text } => Action::Resumption(text.clone()),
            R::Open { absent } => Action::Open { absent: *absent },
            R::Pause => Action::Pause,
            R::Resume => Action::Resume,
            R::SetClock { side, remaining_ms } => Action::SetClock {
                side: s(side),
                remaining_ms: *remaining_ms,
            },
            R::AddTime { side, delta_ms } => Action::AddTime {
                side: s(side),
                delta_ms: *delta_ms,
            },
            R::SetMoves { side, moves } => Action::SetMoves {
                side: s(side),
                moves: *moves,
            },
            R::Rule {
                ruling,
                extra_time_to_opponent,
            } => Action::Rule(match ruling.as_str() {
                "draw" => QuickplayRuling::Draw,
                "postpone" => QuickplayRuling::Postpone {
                    extra_time_to_opponent: *extra_time_to_opponent,
                },
                "reject" => QuickplayRuling::Reject,
                other => return Err(anyhow!("{other:?} is not a ruling")),
            }),
            R::Illegal { by } => Action::Illegal(s(by)),
            R::Scoresheet { side, sans } => Action::Scoresheet {
                side: s(side),
                sans: sans.clone(),
            },
            R::BrailleScoresheet { side, format, text } => Action::BrailleScoresheet {
                side: s(side),
                format: match format.as_str() {
                    "brf" => BrailleFormat::Brf,
                    "unicode" => BrailleFormat::Unicode,
                    other => return Err(anyhow!("{other:?} is not a Braille format")),
                },
                text: text.clone(),
            },
            R::ConfirmClocks => Action::ConfirmClocks,
            R::Confirm => Action::Confirm,
            R::Cancel => Action::Cancel,
            R::Undo => Action::Undo,
            R::TakeBack { to_ply } => Action::TakeBack { to_ply: *to_ply },
            R::Result { outcome } => Action::Result(outcome_of(outcome)?),
            R::Penalty {
                offender,
                penalty,
                ms,
            } => Action::Penalty {
                offender: s(offender),
                penalty: match penalty.as_str() {
                    "bonus" => Penalty::Bonus,
                    "deduct" => Penalty::Deduct,
                    other => return Err(anyhow!("{other:?} is not a time penalty")),
                },
                ms: *ms,
            },
        })
    }
}

/// A square by its name (`e4`).
mod square_name {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    use shakmaty::Square;

    pub fn serialize<S: Serializer>(square: &Square, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(square)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Square, D::Error> {
        let name = String::deserialize(d)?;
        name.parse()
            .map_err(|_| D::Error::custom(format!("{name:?} is not a square")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way a keypad's line is refused comes back from the journal as it was told, the
    /// flood's refusal (said once to him) too.
    #[test]
    fn every_keypad_refusal_round_trips() {
        for error in [
            KeypadError::Unknown { word: None },
            KeypadError::Unknown {
                word: Some("zet".into()),
            },
            KeypadError::NotHis {
                command: "press".into(),
            },
            KeypadError::BadEntry { command: None },
            KeypadError::BadEntry {
                command: Some("square".into()),
            },
            KeypadError::TooFast,
        ] {
            let refusal = KeypadRefusal {
                error,
                why: "why".into(),
            };
            let line = serde_json::to_string(&KeypadRecord::of(&refusal)).unwrap();
            let back: KeypadRecord = serde_json::from_str(&line).unwrap();
            assert_eq!(back.to_refusal().unwrap(), refusal, "{line}");
        }
    }
}
