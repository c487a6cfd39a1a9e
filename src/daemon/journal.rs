//! The game's journal (`journal.jsonl`): event sourcing for the daemon.
//!
//! Every input the hub accepts is appended here, with its time on the game's time line, flushed
//! and synced to the disk BEFORE the arbiter sees it. Replaying the journal through the same pure
//! code ([`replay`]) rebuilds the arbiter exactly as it stood, which is how a restarted daemon
//! resumes a game and how `tactus replay` prints one without any hardware.
//!
//! This module owns the file format (JSON lines: a header with everything that fixes the game's
//! rules and boards, then one line per input, and an end line when the game is over), the
//! serialisable mirrors of [`arbiter::Input`] and [`game::Input`] (moves as UCI, squares as
//! names, pieces as FEN letters), and the replay loop. It never speaks, never writes the game's
//! other files and never reads the clock (the caller passes the times).
//!
//! Robustness: a line cut off by a crash or a power cut (the last line, without its newline) is
//! dropped, and the file is truncated to the last whole line before more is appended. Any other
//! unreadable line is an error naming the file and the line.

use std::{
    collections::BTreeMap,
    fs::{File, OpenOptions},
    io::Write,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Piece, Role,
    Square, fen::Fen, uci::UciMove,
};

use crate::{
    announce::{Announcement, Audience, voice::Style},
    arbiter::{Arbiter, ArbiterConfig, BoardId, Completion, Effect, Input},
    board::{Sensed, Sensing, SensorEvent, recognize::RecognizerConfig},
    rules::{
        Edition, Millis, PlayMode,
        clock::TimeControl,
        dead::{Mateability, Query},
        game::{self, DrawClaim, GameEnd, QuickplayRuling, RulesConfig},
    },
};

/// The journal's file name in a game folder.
pub const JOURNAL_FILE: &str = "journal.jsonl";
/// The format version written in the header; a reader refuses newer ones.
pub const FORMAT_VERSION: u32 = 1;

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    /// The first line: what fixes the game.
    Header(Header),
    /// One input, at `t` on the game's time line; `wall` is the Unix time in milliseconds, for
    /// people reading the file (replay never uses it).
    Input { t: Millis, wall: u64, input: JInput },
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
    /// Unix time in milliseconds when the game folder was made.
    pub created_unix_ms: u64,
    /// PGN tags (Event, Site, Date, Round, White, Black).
    pub tags: Vec<(String, String)>,
    pub setup: SetupRecord,
}

/// A serialisable [`ArbiterConfig`] plus the start position and the voice used for replays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetupRecord {
    pub blind: JColor,
    pub edition: Edition,
    pub play: PlayMode,
    /// PGN TimeControl notation; absent: no clock.
    pub time_control: Option<String>,
    pub blind_board: RecognizerRecord,
    /// Absent: the sighted board has no sensors.
    pub sighted_board: Option<RecognizerRecord>,
    pub completion: JCompletion,
    pub guidance_repeat_ms: u64,
    pub start_fen: String,
    /// The voice pack and style, so that `tactus replay` words the transcript as it was said.
    pub voice_pack: String,
    pub voice_style: Style,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecognizerRecord {
    pub sensing: Sensing,
    pub settle_ms: u64,
    /// Journals written before boards had a scan time read as 0 (every change at once).
    #[serde(default)]
    pub scan_ms: u64,
    pub bounce_ms: u64,
    pub differs_after_ms: u64,
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
pub enum JCompletion {
    Press,
    Settle,
}

impl SetupRecord {
    /// The record of a table set up with `cfg`, starting from `start`.
    pub fn new(cfg: &ArbiterConfig, start: &Chess, voice_pack: &str, style: Style) -> Self {
        SetupRecord {
            blind: cfg.blind.into(),
            edition: cfg.rules.edition,
            play: cfg.rules.play,
            time_control: cfg.rules.time_control.as_ref().map(ToString::to_string),
            blind_board: cfg.blind_board.into(),
            sighted_board: cfg.sighted_board.map(Into::into),
            completion: match cfg.sighted_completion {
                Completion::ClockPress => JCompletion::Press,
                Completion::Settle => JCompletion::Settle,
            },
            guidance_repeat_ms: cfg.guidance_repeat_ms,
            start_fen: Fen::from_position(start, EnPassantMode::Legal).to_string(),
            voice_pack: voice_pack.to_owned(),
            voice_style: style,
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
        Ok(ArbiterConfig {
            rules: RulesConfig {
                edition: self.edition,
                play: self.play,
                time_control,
            },
            blind: self.blind.into(),
            blind_board: self.blind_board.into(),
            sighted_board: self.sighted_board.map(Into::into),
            sighted_completion: match self.completion {
                JCompletion::Press => Completion::ClockPress,
                JCompletion::Settle => Completion::Settle,
            },
            guidance_repeat_ms: self.guidance_repeat_ms,
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

/// A colour in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JColor {
    White,
    Black,
}

impl From<Color> for JColor {
    fn from(c: Color) -> Self {
        match c {
            Color::White => JColor::White,
            Color::Black => JColor::Black,
        }
    }
}

impl From<JColor> for Color {
    fn from(c: JColor) -> Self {
        match c {
            JColor::White => Color::White,
            JColor::Black => Color::Black,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JBoard {
    Blind,
    Sighted,
}

impl From<BoardId> for JBoard {
    fn from(b: BoardId) -> Self {
        match b {
            BoardId::Blind => JBoard::Blind,
            BoardId::Sighted => JBoard::Sighted,
        }
    }
}

impl From<JBoard> for BoardId {
    fn from(b: JBoard) -> Self {
        match b {
            JBoard::Blind => BoardId::Blind,
            JBoard::Sighted => BoardId::Sighted,
        }
    }
}

/// A sensor event in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JSensor {
    Lift {
        square: String,
    },
    /// `piece`: a FEN letter (`N` white knight, `n` black knight) on boards that identify pieces.
    Place {
        square: String,
        piece: Option<char>,
    },
    /// An occupancy snapshot: bit `n` is square `n` (a1 = 0, h8 = 63).
    Occupancy {
        squares: u64,
    },
    /// A snapshot of an identity board, as a board FEN.
    Pieces {
        board: String,
    },
    Button {
        number: u8,
    },
}

/// [`arbiter::Input`] in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JInput {
    Start,
    Board {
        board: JBoard,
        event: JSensor,
    },
    BoardDisconnected {
        board: JBoard,
    },
    BoardConnected {
        board: JBoard,
    },
    SpeechFinished {
        id: u64,
    },
    ClockPress,
    EnterMove {
        text: String,
    },
    /// `piece`: a role letter (`q`, `r`, `b`, `n`).
    Promote {
        piece: char,
    },
    Correct {
        text: String,
    },
    Scoresheet {
        side: JColor,
        sans: Vec<String>,
    },
    ConfirmClocks,
    Adjust {
        by: JColor,
        square: String,
    },
    Rules {
        rules: JRules,
    },
    Tick,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JClaimKind {
    Repetition,
    FiftyMoves,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JRuling {
    Draw,
    Postpone,
    Reject,
}

/// [`game::Input`] in the journal. Moves are UCI, read back in the position they were made in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JRules {
    Start,
    Move {
        uci: String,
    },
    IllegalMove {
        by: JColor,
    },
    ClaimIllegalMove {
        by: JColor,
    },
    OfferDraw {
        by: JColor,
    },
    AcceptDraw {
        by: JColor,
    },
    DeclineDraw {
        by: JColor,
    },
    Touch {
        by: JColor,
        square: String,
    },
    Resign {
        by: JColor,
    },
    Claim {
        by: JColor,
        claim: JClaimKind,
        intended: Option<String>,
    },
    ClaimFlag {
        by: JColor,
    },
    ClaimQuickplayDraw {
        by: JColor,
    },
    QuickplayRuling {
        ruling: JRuling,
        #[serde(default)]
        extra_time_to_opponent: bool,
    },
    Tick,
    Pause,
    Resume,
    SetClock {
        side: JColor,
        remaining_ms: i64,
    },
    AdjustClock {
        side: JColor,
        delta_ms: i64,
    },
    SetMoveCounter {
        side: JColor,
        moves: u32,
    },
    /// `outcome`: `1-0`, `0-1` or `1/2-1/2`.
    ArbiterResult {
        outcome: String,
    },
    SetPosition {
        fen: String,
    },
    Retract {
        to_ply: usize,
    },
    Verdict {
        ticket: u64,
        mateability: Mateability,
    },
    Seal {
        by: JColor,
        text: String,
    },
    StartReplierClock,
    OpenEnvelope,
    SetResumption {
        text: String,
    },
}

fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

fn square_of(text: &str) -> Result<Square> {
    text.parse::<Square>()
        .map_err(|_| anyhow!("{text:?} is not a square"))
}

fn move_of(text: &str, position: &Chess) -> Result<Move> {
    let parsed: UciMove = text
        .parse()
        .map_err(|_| anyhow!("{text:?} is not a UCI move"))?;
    parsed.to_move(position).map_err(|_| {
        anyhow!(
            "{text} is not legal in {}",
            Fen::from_position(position, EnPassantMode::Legal)
        )
    })
}

impl From<&SensorEvent> for JSensor {
    fn from(e: &SensorEvent) -> Self {
        match e {
            SensorEvent::Lift { square } => JSensor::Lift {
                square: square.to_string(),
            },
            SensorEvent::Place { square, piece } => JSensor::Place {
                square: square.to_string(),
                piece: piece.map(Piece::char),
            },
            SensorEvent::Snapshot(Sensed::Occupancy(bb)) => JSensor::Occupancy { squares: bb.0 },
            SensorEvent::Snapshot(Sensed::Pieces(board)) => JSensor::Pieces {
                board: board.to_string(),
            },
            SensorEvent::Button(n) => JSensor::Button { number: *n },
        }
    }
}

impl JSensor {
    pub fn to_event(&self) -> Result<SensorEvent> {
        Ok(match self {
            JSensor::Lift { square } => SensorEvent::Lift {
                square: square_of(square)?,
            },
            JSensor::Place { square, piece } => SensorEvent::Place {
                square: square_of(square)?,
                piece: match piece {
                    Some(c) => {
                        Some(Piece::from_char(*c).ok_or_else(|| anyhow!("{c:?} is not a piece"))?)
                    }
                    None => None,
                },
            },
            JSensor::Occupancy { squares } => {
                SensorEvent::Snapshot(Sensed::Occupancy(Bitboard(*squares)))
            }
            JSensor::Pieces { board } => SensorEvent::Snapshot(Sensed::Pieces(
                board
                    .parse::<Board>()
                    .map_err(|e| anyhow!("{board:?} is not a board: {e}"))?,
            )),
            JSensor::Button { number } => SensorEvent::Button(*number),
        })
    }
}

impl From<&game::Input> for JRules {
    fn from(input: &game::Input) -> Self {
        use game::Input as G;
        match input {
            G::Start => JRules::Start,
            G::Move(m) => JRules::Move { uci: uci(*m) },
            G::IllegalMove { by } => JRules::IllegalMove { by: (*by).into() },
            G::ClaimIllegalMove { by } => JRules::ClaimIllegalMove { by: (*by).into() },
            G::OfferDraw { by } => JRules::OfferDraw { by: (*by).into() },
            G::AcceptDraw { by } => JRules::AcceptDraw { by: (*by).into() },
            G::DeclineDraw { by } => JRules::DeclineDraw { by: (*by).into() },
            G::Touch { by, square } => JRules::Touch {
                by: (*by).into(),
                square: square.to_string(),
            },
            G::Resign { by } => JRules::Resign { by: (*by).into() },
            G::Claim { by, claim } => {
                let (kind, intended) = match claim {
                    DrawClaim::Repetition { intended } => (JClaimKind::Repetition, intended),
                    DrawClaim::FiftyMoves { intended } => (JClaimKind::FiftyMoves, intended),
                };
                JRules::Claim {
                    by: (*by).into(),
                    claim: kind,
                    intended: intended.map(uci),
                }
            }
            G::ClaimFlag { by } => JRules::ClaimFlag { by: (*by).into() },
            G::ClaimQuickplayDraw { by } => JRules::ClaimQuickplayDraw { by: (*by).into() },
            G::QuickplayRuling(r) => match r {
                QuickplayRuling::Draw => JRules::QuickplayRuling {
                    ruling: JRuling::Draw,
                    extra_time_to_opponent: false,
                },
                QuickplayRuling::Postpone {
                    extra_time_to_opponent,
                } => JRules::QuickplayRuling {
                    ruling: JRuling::Postpone,
                    extra_time_to_opponent: *extra_time_to_opponent,
                },
                QuickplayRuling::Reject => JRules::QuickplayRuling {
                    ruling: JRuling::Reject,
                    extra_time_to_opponent: false,
                },
            },
            G::Tick => JRules::Tick,
            G::Pause => JRules::Pause,
            G::Resume => JRules::Resume,
            G::SetClock { side, remaining_ms } => JRules::SetClock {
                side: (*side).into(),
                remaining_ms: *remaining_ms,
            },
            G::AdjustClock { side, delta_ms } => JRules::AdjustClock {
                side: (*side).into(),
                delta_ms: *delta_ms,
            },
            G::SetMoveCounter { side, moves } => JRules::SetMoveCounter {
                side: (*side).into(),
                moves: *moves,
            },
            G::ArbiterResult { outcome } => JRules::ArbiterResult {
                outcome: outcome.to_string(),
            },
            G::SetPosition { position } => JRules::SetPosition {
                fen: Fen::from_position(position, EnPassantMode::Legal).to_string(),
            },
            G::Retract { to_ply } => JRules::Retract { to_ply: *to_ply },
            G::Verdict {
                ticket,
                mateability,
            } => JRules::Verdict {
                ticket: *ticket,
                mateability: *mateability,
            },
            G::Seal { by, text } => JRules::Seal {
                by: (*by).into(),
                text: text.clone(),
            },
            G::StartReplierClock => JRules::StartReplierClock,
            G::OpenEnvelope => JRules::OpenEnvelope,
            G::SetResumption { text } => JRules::SetResumption { text: text.clone() },
        }
    }
}

impl JRules {
    /// The input, with moves read in `position` (the game's position when it was accepted).
    pub fn to_input(&self, position: &Chess) -> Result<game::Input> {
        use game::Input as G;
        Ok(match self {
            JRules::Start => G::Start,
            JRules::Move { uci } => G::Move(move_of(uci, position)?),
            JRules::IllegalMove { by } => G::IllegalMove { by: (*by).into() },
            JRules::ClaimIllegalMove { by } => G::ClaimIllegalMove { by: (*by).into() },
            JRules::OfferDraw { by } => G::OfferDraw { by: (*by).into() },
            JRules::AcceptDraw { by } => G::AcceptDraw { by: (*by).into() },
            JRules::DeclineDraw { by } => G::DeclineDraw { by: (*by).into() },
            JRules::Touch { by, square } => G::Touch {
                by: (*by).into(),
                square: square_of(square)?,
            },
            JRules::Resign { by } => G::Resign { by: (*by).into() },
            JRules::Claim {
                by,
                claim,
                intended,
            } => {
                let intended = match intended {
                    Some(text) => Some(move_of(text, position)?),
                    None => None,
                };
                G::Claim {
                    by: (*by).into(),
                    claim: match claim {
                        JClaimKind::Repetition => DrawClaim::Repetition { intended },
                        JClaimKind::FiftyMoves => DrawClaim::FiftyMoves { intended },
                    },
                }
            }
            JRules::ClaimFlag { by } => G::ClaimFlag { by: (*by).into() },
            JRules::ClaimQuickplayDraw { by } => G::ClaimQuickplayDraw { by: (*by).into() },
            JRules::QuickplayRuling {
                ruling,
                extra_time_to_opponent,
            } => G::QuickplayRuling(match ruling {
                JRuling::Draw => QuickplayRuling::Draw,
                JRuling::Postpone => QuickplayRuling::Postpone {
                    extra_time_to_opponent: *extra_time_to_opponent,
                },
                JRuling::Reject => QuickplayRuling::Reject,
            }),
            JRules::Tick => G::Tick,
            JRules::Pause => G::Pause,
            JRules::Resume => G::Resume,
            JRules::SetClock { side, remaining_ms } => G::SetClock {
                side: (*side).into(),
                remaining_ms: *remaining_ms,
            },
            JRules::AdjustClock { side, delta_ms } => G::AdjustClock {
                side: (*side).into(),
                delta_ms: *delta_ms,
            },
            JRules::SetMoveCounter { side, moves } => G::SetMoveCounter {
                side: (*side).into(),
                moves: *moves,
            },
            JRules::ArbiterResult { outcome } => G::ArbiterResult {
                outcome: outcome
                    .parse::<KnownOutcome>()
                    .map_err(|_| anyhow!("{outcome:?} is not a result (1-0, 0-1, 1/2-1/2)"))?,
            },
            JRules::SetPosition { fen } => G::SetPosition {
                position: fen
                    .parse::<Fen>()
                    .map_err(|e| anyhow!("{fen:?}: {e}"))?
                    .into_position(CastlingMode::Standard)
                    .map_err(|e| anyhow!("{fen:?}: {e}"))?,
            },
            JRules::Retract { to_ply } => G::Retract { to_ply: *to_ply },
            JRules::Verdict {
                ticket,
                mateability,
            } => G::Verdict {
                ticket: *ticket,
                mateability: *mateability,
            },
            JRules::Seal { by, text } => G::Seal {
                by: (*by).into(),
                text: text.clone(),
            },
            JRules::StartReplierClock => G::StartReplierClock,
            JRules::OpenEnvelope => G::OpenEnvelope,
            JRules::SetResumption { text } => G::SetResumption { text: text.clone() },
        })
    }
}

impl From<&Input> for JInput {
    fn from(input: &Input) -> Self {
        match input {
            Input::Start => JInput::Start,
            Input::Board { board, event } => JInput::Board {
                board: (*board).into(),
                event: event.into(),
            },
            Input::BoardDisconnected { board } => JInput::BoardDisconnected {
                board: (*board).into(),
            },
            Input::BoardConnected { board } => JInput::BoardConnected {
                board: (*board).into(),
            },
            Input::SpeechFinished { id } => JInput::SpeechFinished { id: *id },
            Input::ClockPress => JInput::ClockPress,
            Input::EnterMove(text) => JInput::EnterMove { text: text.clone() },
            Input::Promote(role) => JInput::Promote { piece: role.char() },
            Input::Correct(text) => JInput::Correct { text: text.clone() },
            Input::Scoresheet { side, sans } => JInput::Scoresheet {
                side: (*side).into(),
                sans: sans.clone(),
            },
            Input::ConfirmClocks => JInput::ConfirmClocks,
            Input::Adjust { by, square } => JInput::Adjust {
                by: (*by).into(),
                square: square.to_string(),
            },
            Input::Rules(rules) => JInput::Rules {
                rules: rules.into(),
            },
            Input::Tick => JInput::Tick,
        }
    }
}

impl JInput {
    /// The input, with moves read in `position` (the game's position when it was accepted).
    pub fn to_input(&self, position: &Chess) -> Result<Input> {
        Ok(match self {
            JInput::Start => Input::Start,
            JInput::Board { board, event } => Input::Board {
                board: (*board).into(),
                event: event.to_event()?,
            },
            JInput::BoardDisconnected { board } => Input::BoardDisconnected {
                board: (*board).into(),
            },
            JInput::BoardConnected { board } => Input::BoardConnected {
                board: (*board).into(),
            },
            JInput::SpeechFinished { id } => Input::SpeechFinished { id: *id },
            JInput::ClockPress => Input::ClockPress,
            JInput::EnterMove { text } => Input::EnterMove(text.clone()),
            JInput::Promote { piece } => Input::Promote(
                Role::from_char(*piece).ok_or_else(|| anyhow!("{piece:?} is not a piece"))?,
            ),
            JInput::Correct { text } => Input::Correct(text.clone()),
            JInput::Scoresheet { side, sans } => Input::Scoresheet {
                side: (*side).into(),
                sans: sans.clone(),
            },
            JInput::ConfirmClocks => Input::ConfirmClocks,
            JInput::Adjust { by, square } => Input::Adjust {
                by: (*by).into(),
                square: square_of(square)?,
            },
            JInput::Rules { rules } => Input::Rules(rules.to_input(position)?),
            JInput::Tick => Input::Tick,
        })
    }
}

/// The Unix time in milliseconds (for the `wall` field and folder names; never for the game).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A journal read from disk.
#[derive(Debug, Clone)]
pub struct JournalFile {
    pub path: PathBuf,
    pub header: Header,
    /// The input and end lines, in order.
    pub entries: Vec<Entry>,
    /// Bytes up to the end of the last whole line (a torn last line lies beyond).
    pub good_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
}

impl JournalFile {
    /// Whether the game ended (an end line was written).
    pub fn is_finished(&self) -> bool {
        self.entries.iter().any(|e| matches!(e, Entry::End { .. }))
    }

    /// The time of the last line (0 for a journal with only its header).
    pub fn last_time(&self) -> Millis {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Input { t, .. } | Entry::End { t, .. } => Some(*t),
                Entry::Header(_) => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// Read a journal. A torn last line is dropped (see the module docs).
pub fn read(path: &Path) -> Result<JournalFile> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read the journal {}", path.display()))?;
    let mut entries = Vec::new();
    let mut header = None;
    let mut good_len = 0u64;
    let mut torn = false;
    let mut offset = 0usize;
    let mut number = 0usize;
    while offset < bytes.len() {
        number += 1;
        let (line, complete, next) = match bytes[offset..].iter().position(|&b| b == b'\n') {
            Some(i) => (&bytes[offset..offset + i], true, offset + i + 1),
            None => (&bytes[offset..], false, bytes.len()),
        };
        let last = next >= bytes.len();
        if line.iter().all(u8::is_ascii_whitespace) {
            offset = next;
            if complete {
                good_len = next as u64;
            }
            continue;
        }
        let parsed: Result<Entry, _> = serde_json::from_slice(line);
        // A line without its newline (only the last can lack one), or a last line that does
        // not parse: cut off by a crash while it was being written. Everything before it was
        // synced.
        if !complete || (parsed.is_err() && last) {
            torn = true;
            offset = next;
            continue;
        }
        let entry = parsed.map_err(|e| {
            anyhow!(
                "{} line {number} cannot be read ({e}); the journal is damaged. Move the line \
                 out of the way to resume from the lines before it",
                path.display()
            )
        })?;
        match entry {
            Entry::Header(h) => {
                if header.is_some() {
                    bail!(
                        "{} line {number}: a second header; the journal is damaged",
                        path.display()
                    );
                }
                if h.version > FORMAT_VERSION {
                    bail!(
                        "{} was written by a newer tactus (journal format {}, this one reads up \
                         to {FORMAT_VERSION}); update tactus to resume it",
                        path.display(),
                        h.version
                    );
                }
                header = Some(h);
            }
            other => {
                if header.is_none() {
                    bail!(
                        "{} line {number}: an input before the header; the journal is damaged",
                        path.display()
                    );
                }
                entries.push(other);
            }
        }
        good_len = next as u64;
        offset = next;
    }
    let header = header.ok_or_else(|| {
        anyhow!(
            "{} has no header line; it is not a tactus journal (or it is empty)",
            path.display()
        )
    })?;
    Ok(JournalFile {
        path: path.to_owned(),
        header,
        entries,
        good_len,
        torn,
    })
}

/// The open journal, appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Start a new journal at `path` with `header` (the file must not exist yet).
    pub fn create(path: &Path, header: &Header) -> Result<Journal> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create the journal {}", path.display()))?;
        let mut journal = Journal {
            path: path.to_owned(),
            file,
        };
        journal.write(&Entry::Header(header.clone()))?;
        // The folder entry of a new file must reach the disk too, or a power cut could lose it.
        if let Some(dir) = path.parent()
            && let Ok(d) = File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(journal)
    }

    /// Continue a journal that was read with [`read`]: a torn last line is cut off first.
    pub fn append_to(read: &JournalFile) -> Result<Journal> {
        let file = OpenOptions::new()
            .write(true)
            .open(&read.path)
            .with_context(|| {
                format!(
                    "cannot open the journal {} to continue it",
                    read.path.display()
                )
            })?;
        file.set_len(read.good_len)
            .with_context(|| format!("cannot cut the torn last line of {}", read.path.display()))?;
        let mut journal = Journal {
            path: read.path.clone(),
            file,
        };
        use std::io::Seek;
        journal
            .file
            .seek(std::io::SeekFrom::End(0))
            .with_context(|| format!("cannot continue the journal {}", read.path.display()))?;
        Ok(journal)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, entry: &Entry) -> Result<()> {
        let mut line = serde_json::to_vec(entry)
            .with_context(|| format!("cannot encode a journal line for {}", self.path.display()))?;
        line.push(b'\n');
        // One write per line, then the data to the disk: the input is durable before it is
        // applied (event sourcing), and a crash leaves at most one torn last line.
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot write to the journal {}", self.path.display()))
    }

    /// Append an input accepted at `t`.
    pub fn input(&mut self, t: Millis, input: &Input) -> Result<()> {
        self.write(&Entry::Input {
            t,
            wall: unix_ms(),
            input: input.into(),
        })
    }

    /// Append the end of the game.
    pub fn end(&mut self, t: Millis, end: &GameEnd) -> Result<()> {
        self.write(&Entry::End {
            t,
            result: end.outcome.to_string(),
            reason: end.reason.describe(),
        })
    }
}

/// Where a replay stands after the journal's last line.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub arbiter: Arbiter,
    /// The time of the last input (the time line continues from here).
    pub last_time: Millis,
    pub inputs: usize,
    /// Inputs that could not be read back (e.g. a move the game had refused); they changed
    /// nothing then and are skipped now.
    pub skipped: Vec<String>,
    /// Announcements said (or being said) whose end was never journaled, by arbiter id.
    pub unfinished: BTreeMap<u64, (Audience, Announcement)>,
    /// Mateability searches asked for and never answered, by ticket.
    pub pending_analyses: BTreeMap<u64, Query>,
    /// Whether `Start` was accepted.
    pub started: bool,
}

/// Replay a journal through a new arbiter. `on_effect` sees every effect with the time of the
/// input that produced it (for `tactus replay`'s transcript); the caller of a recovery passes a
/// closure that ignores them, since they already happened.
pub fn replay(
    journal: &JournalFile,
    mut on_effect: impl FnMut(Millis, &Effect),
) -> Result<Replayed> {
    let setup = &journal.header.setup;
    let mut arbiter = Arbiter::new(setup.arbiter_config()?, setup.start()?);
    let mut out = Replayed {
        arbiter: arbiter.clone(),
        last_time: 0,
        inputs: 0,
        skipped: Vec::new(),
        unfinished: BTreeMap::new(),
        pending_analyses: BTreeMap::new(),
        started: false,
    };
    for entry in &journal.entries {
        let Entry::Input { t, input, .. } = entry else {
            continue;
        };
        out.last_time = out.last_time.max(*t);
        let input = match input.to_input(arbiter.game().position()) {
            Ok(input) => input,
            Err(e) => {
                out.skipped.push(format!("at {t} ms: {e:#}"));
                continue;
            }
        };
        out.inputs += 1;
        match &input {
            Input::SpeechFinished { id } => {
                out.unfinished.remove(id);
            }
            Input::Rules(game::Input::Verdict { ticket, .. }) => {
                out.pending_analyses.remove(ticket);
            }
            Input::Start => out.started = true,
            _ => {}
        }
        for effect in arbiter.handle(input, *t) {
            match &effect {
                Effect::Say {
                    id,
                    audience,
                    announcement,
                } => {
                    out.unfinished
                        .insert(*id, (*audience, announcement.clone()));
                }
                Effect::Analyse { ticket, query } => {
                    out.pending_analyses.insert(*ticket, query.clone());
                }
                _ => {}
            }
            on_effect(*t, &effect);
        }
    }
    out.arbiter = arbiter;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use shakmaty::{ByColor, Position, Role};

    use super::*;
    use crate::rules::game::{Input as G, QuickplayRuling};

    fn pos_after(moves: &[&str]) -> Chess {
        let mut pos = Chess::default();
        for m in moves {
            let mv = crate::rules::notation::match_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
        }
        pos
    }

    /// Every variant of both input enums, serialised to a line and read back, is the same input.
    #[test]
    fn every_input_round_trips() {
        // A position where castling, a capture, en passant and a promotion-free claim move exist.
        let pos = pos_after(&["e4", "d5", "e5", "f5"]);
        let e5f6 = crate::rules::notation::match_move(&pos, "exf6").unwrap();
        let nf3 = crate::rules::notation::match_move(&pos, "Nf3").unwrap();
        let mut board = Board::default();
        board.discard_piece_at(Square::E2);
        let rules: Vec<G> = vec![
            G::Start,
            G::Move(e5f6),
            G::IllegalMove { by: Color::White },
            G::ClaimIllegalMove { by: Color::Black },
            G::OfferDraw { by: Color::White },
            G::AcceptDraw { by: Color::Black },
            G::DeclineDraw { by: Color::Black },
            G::Touch {
                by: Color::White,
                square: Square::G1,
            },
            G::Resign { by: Color::Black },
            G::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition {
                    intended: Some(nf3),
                },
            },
            G::Claim {
                by: Color::White,
                claim: DrawClaim::FiftyMoves { intended: None },
            },
            G::ClaimFlag { by: Color::White },
            G::ClaimQuickplayDraw { by: Color::Black },
            G::QuickplayRuling(QuickplayRuling::Draw),
            G::QuickplayRuling(QuickplayRuling::Postpone {
                extra_time_to_opponent: true,
            }),
            G::QuickplayRuling(QuickplayRuling::Reject),
            G::Tick,
            G::Pause,
            G::Resume,
            G::SetClock {
                side: Color::Black,
                remaining_ms: 123_456,
            },
            G::AdjustClock {
                side: Color::White,
                delta_ms: -60_000,
            },
            G::SetMoveCounter {
                side: Color::White,
                moves: 12,
            },
            G::ArbiterResult {
                outcome: KnownOutcome::Draw,
            },
            G::ArbiterResult {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
            },
            G::SetPosition {
                position: pos.clone(),
            },
            G::Retract { to_ply: 3 },
            G::Verdict {
                ticket: 7,
                mateability: Mateability::CannotMate,
            },
        ];
        let mut inputs: Vec<Input> = vec![
            Input::Start,
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Lift { square: Square::E2 },
            },
            Input::Board {
                board: BoardId::Sighted,
                event: SensorEvent::Place {
                    square: Square::F3,
                    piece: Some(Piece {
                        color: Color::Black,
                        role: Role::Knight,
                    }),
                },
            },
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Place {
                    square: Square::E4,
                    piece: None,
                },
            },
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Snapshot(Sensed::Occupancy(board.occupied())),
            },
            Input::Board {
                board: BoardId::Sighted,
                event: SensorEvent::Snapshot(Sensed::Pieces(board.clone())),
            },
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Button(3),
            },
            Input::BoardDisconnected {
                board: BoardId::Sighted,
            },
            Input::BoardConnected {
                board: BoardId::Blind,
            },
            Input::SpeechFinished { id: 42 },
            Input::ClockPress,
            Input::EnterMove("Nf3".into()),
            Input::Promote(Role::Knight),
            Input::Correct("0-0".into()),
            Input::Scoresheet {
                side: Color::Black,
                sans: vec!["e4".into(), "d5".into()],
            },
            Input::ConfirmClocks,
            Input::Tick,
        ];
        inputs.extend(rules.into_iter().map(Input::Rules));
        for input in inputs {
            let entry = Entry::Input {
                t: 1234,
                wall: 5678,
                input: (&input).into(),
            };
            let line = serde_json::to_string(&entry).unwrap();
            assert!(!line.contains('\n'), "{line}");
            let back: Entry = serde_json::from_str(&line).unwrap();
            assert_eq!(back, entry, "{line}");
            let Entry::Input { input: j, .. } = back else {
                panic!("{line}");
            };
            assert_eq!(j.to_input(&pos).unwrap(), input, "{line}");
        }
        let _ = ByColor::new_with(|_| 0);
    }

    fn header() -> Header {
        let cfg = ArbiterConfig {
            rules: RulesConfig {
                time_control: Some("300+2".parse().unwrap()),
                ..RulesConfig::default()
            },
            blind: Color::White,
            blind_board: RecognizerConfig {
                sensing: Sensing::Occupancy,
                settle_ms: 0,
                scan_ms: 0,
                bounce_ms: 0,
                differs_after_ms: 1500,
                confirm_with_snapshot: false,
            },
            sighted_board: None,
            sighted_completion: Completion::ClockPress,
            guidance_repeat_ms: 10_000,
        };
        Header {
            version: FORMAT_VERSION,
            created_unix_ms: 1,
            tags: vec![("White".into(), "A".into())],
            setup: SetupRecord::new(&cfg, &Chess::default(), "de-fide", Style::San),
        }
    }

    #[test]
    fn the_header_rebuilds_the_table() {
        let h = header();
        let line = serde_json::to_string(&Entry::Header(h.clone())).unwrap();
        let back: Entry = serde_json::from_str(&line).unwrap();
        assert_eq!(back, Entry::Header(h.clone()));
        let cfg = h.setup.arbiter_config().unwrap();
        assert_eq!(cfg.blind, Color::White);
        assert_eq!(
            cfg.rules.time_control.unwrap().to_string(),
            h.setup.time_control.clone().unwrap()
        );
        assert_eq!(h.setup.start().unwrap(), Chess::default());
    }

    #[test]
    fn a_journal_replays_and_a_torn_last_line_is_cut() {
        let dir = std::env::temp_dir().join(format!("tactus-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &header()).unwrap();
        j.input(0, &Input::Start).unwrap();
        j.input(100, &Input::EnterMove("e4".into())).unwrap();
        // White is the blind player: the console cannot enter his move.
        j.input(200, &Input::Tick).unwrap();
        drop(j);
        // A crash in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\":\"input\",\"t\":300,\"wal").unwrap();
        drop(f);
        let read1 = read(&path).unwrap();
        assert!(read1.torn);
        assert_eq!(read1.entries.len(), 3);
        assert_eq!(read1.last_time(), 200);
        let mut j = Journal::append_to(&read1).unwrap();
        j.input(400, &Input::Tick).unwrap();
        drop(j);
        let read2 = read(&path).unwrap();
        assert!(!read2.torn);
        assert_eq!(read2.entries.len(), 4);
        let replayed = replay(&read2, |_, _| {}).unwrap();
        assert_eq!(replayed.inputs, 4);
        assert!(replayed.started);
        assert_eq!(replayed.last_time, 400);
        assert!(replayed.arbiter.game().clock().unwrap().running() == Some(Color::White));

        // A damaged line in the middle is an error naming the line.
        std::fs::write(
            &path,
            format!(
                "{}\nnot json\n{}\n",
                serde_json::to_string(&Entry::Header(header())).unwrap(),
                serde_json::to_string(&Entry::Input {
                    t: 1,
                    wall: 1,
                    input: JInput::Tick
                })
                .unwrap()
            ),
        )
        .unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A crash between the blind player's move and the end of its announcement: the replay
    /// knows the announcement was never finished (the daemon says it again), and the move counts
    /// only once its end is journaled (F.3 c).
    #[test]
    fn an_unfinished_announcement_survives_the_replay() {
        let dir = std::env::temp_dir().join(format!("tactus-journal-say-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &header()).unwrap();
        let blind = |event| Input::Board {
            board: BoardId::Blind,
            event,
        };
        j.input(0, &Input::Start).unwrap();
        j.input(1000, &blind(SensorEvent::Lift { square: Square::E2 }))
            .unwrap();
        j.input(
            1200,
            &blind(SensorEvent::Place {
                square: Square::E4,
                piece: None,
            }),
        )
        .unwrap();
        drop(j);
        let replayed = replay(&read(&path).unwrap(), |_, _| {}).unwrap();
        assert_eq!(replayed.arbiter.game().ply(), 0);
        let (&id, (audience, announcement)) = replayed
            .unfinished
            .iter()
            .find(|(_, (_, a))| matches!(a, Announcement::Move(_)))
            .expect("the move's announcement is unfinished");
        assert_eq!(*audience, Audience::Sighted);
        assert!(matches!(announcement, Announcement::Move(w) if w.to == Square::E4));

        let mut j = Journal::append_to(&read(&path).unwrap()).unwrap();
        j.input(2500, &Input::SpeechFinished { id }).unwrap();
        drop(j);
        let replayed = replay(&read(&path).unwrap(), |_, _| {}).unwrap();
        assert_eq!(replayed.arbiter.game().ply(), 1);
        assert!(!replayed.unfinished.contains_key(&id));
        // White's clock ran until the announcement ended: 2.5 s of 300 s, plus the increment.
        let clock = replayed.arbiter.game().clock().unwrap();
        assert_eq!(clock.remaining(Color::White, 2500), 300_000 - 2500 + 2000);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
