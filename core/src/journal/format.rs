//! The journal's records: the serialisable mirrors of what the hub of format 2 accepted
//! (`arbiter::Input` as [`InputRecord`], `game::Input` as [`RulesRecord`]), sensor events,
//! boards and colours. Moves are UCI, read back in the position they were made
//! in; squares are names; pieces are FEN letters. Pure: values in, values out.

use anyhow::{Result, anyhow};
use serde::{Deserialize, Serialize};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Piece, Role,
    Square, fen::Fen, uci::UciMove,
};

use crate::{
    arbiter::Input,
    board::{Sensed, SensorEvent},
    console::Switchable,
    rules::{
        ClockMillis,
        dead::Mateability,
        game::{self, DrawClaim, PauseReason, QuickplayRuling},
    },
    table::Asked,
};

/// A colour in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorRecord {
    White,
    Black,
}

impl From<Color> for ColorRecord {
    fn from(c: Color) -> Self {
        match c {
            Color::White => ColorRecord::White,
            Color::Black => ColorRecord::Black,
        }
    }
}

impl From<ColorRecord> for Color {
    fn from(c: ColorRecord) -> Self {
        match c {
            ColorRecord::White => Color::White,
            ColorRecord::Black => Color::Black,
        }
    }
}

/// Who is blind, in the journal: a colour, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlindRecord {
    White,
    Black,
    Both,
}

impl BlindRecord {
    /// The one blind player's colour (none: both are blind).
    pub fn color(self) -> Option<Color> {
        match self {
            BlindRecord::White => Some(Color::White),
            BlindRecord::Black => Some(Color::Black),
            BlindRecord::Both => None,
        }
    }
}

impl From<Color> for BlindRecord {
    fn from(c: Color) -> Self {
        match c {
            Color::White => BlindRecord::White,
            Color::Black => BlindRecord::Black,
        }
    }
}

/// A seat's board in the journal: by its colour. Journals written before seats were keyed by
/// colour name the blind player's board and the sighted player's; they read with the header's
/// blind colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardRecord {
    White,
    Black,
    Blind,
    Sighted,
}

impl From<Color> for BoardRecord {
    fn from(c: Color) -> Self {
        match c {
            Color::White => BoardRecord::White,
            Color::Black => BoardRecord::Black,
        }
    }
}

impl BoardRecord {
    /// The seat this board is, at a table whose blind players are `blind`.
    pub fn seat(self, blind: BlindRecord) -> Result<Color> {
        match (self, blind.color()) {
            (BoardRecord::White, _) => Ok(Color::White),
            (BoardRecord::Black, _) => Ok(Color::Black),
            (BoardRecord::Blind, Some(c)) => Ok(c),
            (BoardRecord::Sighted, Some(c)) => Ok(!c),
            (_, None) => Err(anyhow!(
                "a board named 'blind' or 'sighted' at a table with two blind players"
            )),
        }
    }
}

/// A sensor event in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SensorRecord {
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

/// [`crate::arbiter::Input`] in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputRecord {
    Start,
    Board {
        board: BoardRecord,
        event: SensorRecord,
    },
    BoardDisconnected {
        board: BoardRecord,
    },
    BoardConnected {
        board: BoardRecord,
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
        side: ColorRecord,
        sans: Vec<String>,
    },
    ConfirmClocks,
    /// A training game's takeback setting the clocks back (journals before it have none).
    RestoreClocks,
    /// The arbiter's `confirm`, `cancel` and `undo` (journals before them have none).
    Confirm,
    Cancel,
    Undo,
    /// A penalty the arbiter typed, offered to him before it applies.
    Penalty {
        rules: RulesRecord,
    },
    Adjust {
        by: ColorRecord,
        square: String,
    },
    Rules {
        rules: RulesRecord,
    },
    Tick,
    /// A request of the blind player (F.9 d) and its answer. Not an input to the arbiter (a
    /// request changes nothing in the game, and a replay does not feed it to one): it is
    /// journaled so that a replay's transcript holds every request, who asked and what was
    /// answered. Journals written before requests were recorded simply have none.
    Request(RequestRecord),
    /// The arbiter switched a request on or off (12.3 a). Not an input to the arbiter either:
    /// the daemon answers requests, and a resumed game takes the switch up from here.
    Switch(SwitchRecord),
}

/// A request the arbiter may switch off, in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchableRecord {
    Material,
    Pieces,
}

impl From<Switchable> for SwitchableRecord {
    fn from(r: Switchable) -> Self {
        match r {
            Switchable::Material => SwitchableRecord::Material,
            Switchable::Pieces => SwitchableRecord::Pieces,
        }
    }
}

impl From<SwitchableRecord> for Switchable {
    fn from(r: SwitchableRecord) -> Self {
        match r {
            SwitchableRecord::Material => Switchable::Material,
            SwitchableRecord::Pieces => Switchable::Pieces,
        }
    }
}

/// The arbiter's switch of one request (12.3 a).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchRecord {
    pub request: SwitchableRecord,
    pub on: bool,
}

impl SwitchRecord {
    /// The transcript's note: the same line in the daemon's transcript and in `tactus replay`'s.
    pub fn note(&self) -> String {
        crate::table::switch_note(self.request.into(), self.on)
    }
}

pub use crate::table::AskedBy;

/// One request and its answer, as journals of format 2 hold them (a journal of format 3 holds
/// the request itself, as the table received it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    pub by: AskedBy,
    /// The request as the player's role types it (`count`, `moves 4`, `square e4`).
    pub asked: String,
    /// The answer as printed on the console.
    pub answer: Vec<String>,
    /// What was said to the blind player, as the voice pack worded it; empty when the answer
    /// went to the console only (a request typed by the assistant or the arbiter without `tell`).
    pub said: Vec<String>,
    /// Whose request it is at a table with two blind players (absent: the table's one blind
    /// player).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<ColorRecord>,
}

impl RequestRecord {
    /// The request as the table notes it.
    pub fn asked(&self) -> Asked {
        Asked {
            by: self.by,
            asked: self.asked.clone(),
            answer: self.answer.clone(),
            said: self.said.clone(),
            seat: self.seat.map(Into::into),
        }
    }

    /// The transcript's note for the request: the same line in the daemon's transcript and in
    /// `tactus replay`'s, so that a replay reproduces it exactly.
    pub fn note(&self) -> String {
        self.asked().note()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    Repetition,
    FiftyMoves,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ruling {
    Draw,
    Postpone,
    Reject,
}

/// [`game::PauseReason`] in the journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseReasonRecord {
    Arbiter,
    Recording,
    Opponent,
    Claim,
}

impl From<PauseReason> for PauseReasonRecord {
    fn from(r: PauseReason) -> Self {
        match r {
            PauseReason::Arbiter => PauseReasonRecord::Arbiter,
            PauseReason::Recording => PauseReasonRecord::Recording,
            PauseReason::Opponent => PauseReasonRecord::Opponent,
            PauseReason::Claim => PauseReasonRecord::Claim,
        }
    }
}

impl From<PauseReasonRecord> for PauseReason {
    fn from(r: PauseReasonRecord) -> Self {
        match r {
            PauseReasonRecord::Arbiter => PauseReason::Arbiter,
            PauseReasonRecord::Recording => PauseReason::Recording,
            PauseReasonRecord::Opponent => PauseReason::Opponent,
            PauseReasonRecord::Claim => PauseReason::Claim,
        }
    }
}

/// [`game::Input`] in the journal. Moves are UCI, read back in the position they were made in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RulesRecord {
    Start,
    Move {
        uci: String,
    },
    IllegalMove {
        by: ColorRecord,
    },
    ClaimIllegalMove {
        by: ColorRecord,
    },
    OfferDraw {
        by: ColorRecord,
    },
    AcceptDraw {
        by: ColorRecord,
    },
    DeclineDraw {
        by: ColorRecord,
    },
    Touch {
        by: ColorRecord,
        square: String,
    },
    Resign {
        by: ColorRecord,
    },
    Claim {
        by: ColorRecord,
        claim: ClaimKind,
        intended: Option<String>,
    },
    ClaimFlag {
        by: ColorRecord,
    },
    ClaimQuickplayDraw {
        by: ColorRecord,
    },
    QuickplayRuling {
        ruling: Ruling,
        #[serde(default)]
        extra_time_to_opponent: bool,
    },
    Tick,
    /// 6.12: the arbiter's own pause and resumption (the console's `pause` and `resume`).
    Pause,
    Resume,
    /// 6.12 for another reason ([`game::PauseReason`]): the clocks stopped because the journal
    /// could not be written, or a training engine stopped answering, and ran again once it
    /// could, or answered again. Variants of their own rather than a field of `Pause`: the
    /// arbiter's pauses have always been the bare name `"pause"`, which no struct variant reads
    /// (so a defaulted field would not read the journals before it), and they are still written
    /// so. (A training engine's outage written before it had a reason is the bare `"pause"` and
    /// `"resume"`: it reads, and replays, as the arbiter's.)
    PauseFor {
        reason: PauseReasonRecord,
    },
    ResumeFor {
        reason: PauseReasonRecord,
    },
    SetClock {
        side: ColorRecord,
        remaining_ms: ClockMillis,
    },
    AdjustClock {
        side: ColorRecord,
        delta_ms: ClockMillis,
    },
    SetMoveCounter {
        side: ColorRecord,
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
        by: ColorRecord,
        text: String,
        /// The sealer's notation (journals before it had none: every notation at once).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notation: Option<String>,
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

impl From<&SensorEvent> for SensorRecord {
    fn from(e: &SensorEvent) -> Self {
        match e {
            SensorEvent::Lift { square } => SensorRecord::Lift {
                square: square.to_string(),
            },
            SensorEvent::Place { square, piece } => SensorRecord::Place {
                square: square.to_string(),
                piece: piece.map(Piece::char),
            },
            SensorEvent::Snapshot(Sensed::Occupancy(bb)) => {
                SensorRecord::Occupancy { squares: bb.0 }
            }
            SensorEvent::Snapshot(Sensed::Pieces(board)) => SensorRecord::Pieces {
                board: board.to_string(),
            },
            SensorEvent::Button(n) => SensorRecord::Button { number: *n },
        }
    }
}

impl SensorRecord {
    pub fn to_event(&self) -> Result<SensorEvent> {
        Ok(match self {
            SensorRecord::Lift { square } => SensorEvent::Lift {
                square: square_of(square)?,
            },
            SensorRecord::Place { square, piece } => SensorEvent::Place {
                square: square_of(square)?,
                piece: match piece {
                    Some(c) => {
                        Some(Piece::from_char(*c).ok_or_else(|| anyhow!("{c:?} is not a piece"))?)
                    }
                    None => None,
                },
            },
            SensorRecord::Occupancy { squares } => {
                SensorEvent::Snapshot(Sensed::Occupancy(Bitboard(*squares)))
            }
            SensorRecord::Pieces { board } => SensorEvent::Snapshot(Sensed::Pieces(
                board
                    .parse::<Board>()
                    .map_err(|e| anyhow!("{board:?} is not a board: {e}"))?,
            )),
            SensorRecord::Button { number } => SensorEvent::Button(*number),
        })
    }
}

impl From<&game::Input> for RulesRecord {
    fn from(input: &game::Input) -> Self {
        use game::Input as G;
        match input {
            G::Start => RulesRecord::Start,
            G::Move(m) => RulesRecord::Move { uci: uci(*m) },
            G::IllegalMove { by } => RulesRecord::IllegalMove { by: (*by).into() },
            G::ClaimIllegalMove { by } => RulesRecord::ClaimIllegalMove { by: (*by).into() },
            G::OfferDraw { by } => RulesRecord::OfferDraw { by: (*by).into() },
            G::AcceptDraw { by } => RulesRecord::AcceptDraw { by: (*by).into() },
            G::DeclineDraw { by } => RulesRecord::DeclineDraw { by: (*by).into() },
            G::Touch { by, square } => RulesRecord::Touch {
                by: (*by).into(),
                square: square.to_string(),
            },
            G::Resign { by } => RulesRecord::Resign { by: (*by).into() },
            G::Claim { by, claim } => {
                let (kind, intended) = match claim {
                    DrawClaim::Repetition { intended } => (ClaimKind::Repetition, intended),
                    DrawClaim::FiftyMoves { intended } => (ClaimKind::FiftyMoves, intended),
                };
                RulesRecord::Claim {
                    by: (*by).into(),
                    claim: kind,
                    intended: intended.map(uci),
                }
            }
            G::ClaimFlag { by } => RulesRecord::ClaimFlag { by: (*by).into() },
            G::ClaimQuickplayDraw { by } => RulesRecord::ClaimQuickplayDraw { by: (*by).into() },
            G::QuickplayRuling(r) => match r {
                QuickplayRuling::Draw => RulesRecord::QuickplayRuling {
                    ruling: Ruling::Draw,
                    extra_time_to_opponent: false,
                },
                QuickplayRuling::Postpone {
                    extra_time_to_opponent,
                } => RulesRecord::QuickplayRuling {
                    ruling: Ruling::Postpone,
                    extra_time_to_opponent: *extra_time_to_opponent,
                },
                QuickplayRuling::Reject => RulesRecord::QuickplayRuling {
                    ruling: Ruling::Reject,
                    extra_time_to_opponent: false,
                },
            },
            G::Tick => RulesRecord::Tick,
            G::Pause(PauseReason::Arbiter) => RulesRecord::Pause,
            G::Resume(PauseReason::Arbiter) => RulesRecord::Resume,
            G::Pause(reason) => RulesRecord::PauseFor {
                reason: (*reason).into(),
            },
            G::Resume(reason) => RulesRecord::ResumeFor {
                reason: (*reason).into(),
            },
            G::SetClock { side, remaining_ms } => RulesRecord::SetClock {
                side: (*side).into(),
                remaining_ms: *remaining_ms,
            },
            G::AdjustClock { side, delta_ms } => RulesRecord::AdjustClock {
                side: (*side).into(),
                delta_ms: *delta_ms,
            },
            G::SetMoveCounter { side, moves } => RulesRecord::SetMoveCounter {
                side: (*side).into(),
                moves: *moves,
            },
            G::ArbiterResult { outcome } => RulesRecord::ArbiterResult {
                outcome: outcome.to_string(),
            },
            G::SetPosition { position } => RulesRecord::SetPosition {
                fen: Fen::from_position(position, EnPassantMode::Legal).to_string(),
            },
            G::Retract { to_ply } => RulesRecord::Retract { to_ply: *to_ply },
            G::Verdict {
                ticket,
                mateability,
            } => RulesRecord::Verdict {
                ticket: *ticket,
                mateability: *mateability,
            },
            G::Seal { by, text, notation } => RulesRecord::Seal {
                by: (*by).into(),
                text: text.clone(),
                notation: notation.clone(),
            },
            G::StartReplierClock => RulesRecord::StartReplierClock,
            G::OpenEnvelope => RulesRecord::OpenEnvelope,
            G::SetResumption { text } => RulesRecord::SetResumption { text: text.clone() },
        }
    }
}

impl RulesRecord {
    /// The input, with moves read in `position` (the game's position when it was accepted).
    pub fn to_input(&self, position: &Chess) -> Result<game::Input> {
        use game::Input as G;
        Ok(match self {
            RulesRecord::Start => G::Start,
            RulesRecord::Move { uci } => G::Move(move_of(uci, position)?),
            RulesRecord::IllegalMove { by } => G::IllegalMove { by: (*by).into() },
            RulesRecord::ClaimIllegalMove { by } => G::ClaimIllegalMove { by: (*by).into() },
            RulesRecord::OfferDraw { by } => G::OfferDraw { by: (*by).into() },
            RulesRecord::AcceptDraw { by } => G::AcceptDraw { by: (*by).into() },
            RulesRecord::DeclineDraw { by } => G::DeclineDraw { by: (*by).into() },
            RulesRecord::Touch { by, square } => G::Touch {
                by: (*by).into(),
                square: square_of(square)?,
            },
            RulesRecord::Resign { by } => G::Resign { by: (*by).into() },
            RulesRecord::Claim {
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
                        ClaimKind::Repetition => DrawClaim::Repetition { intended },
                        ClaimKind::FiftyMoves => DrawClaim::FiftyMoves { intended },
                    },
                }
            }
            RulesRecord::ClaimFlag { by } => G::ClaimFlag { by: (*by).into() },
            RulesRecord::ClaimQuickplayDraw { by } => G::ClaimQuickplayDraw { by: (*by).into() },
            RulesRecord::QuickplayRuling {
                ruling,
                extra_time_to_opponent,
            } => G::QuickplayRuling(match ruling {
                Ruling::Draw => QuickplayRuling::Draw,
                Ruling::Postpone => QuickplayRuling::Postpone {
                    extra_time_to_opponent: *extra_time_to_opponent,
                },
                Ruling::Reject => QuickplayRuling::Reject,
            }),
            RulesRecord::Tick => G::Tick,
            RulesRecord::Pause => G::Pause(PauseReason::Arbiter),
            RulesRecord::Resume => G::Resume(PauseReason::Arbiter),
            RulesRecord::PauseFor { reason } => G::Pause((*reason).into()),
            RulesRecord::ResumeFor { reason } => G::Resume((*reason).into()),
            RulesRecord::SetClock { side, remaining_ms } => G::SetClock {
                side: (*side).into(),
                remaining_ms: *remaining_ms,
            },
            RulesRecord::AdjustClock { side, delta_ms } => G::AdjustClock {
                side: (*side).into(),
                delta_ms: *delta_ms,
            },
            RulesRecord::SetMoveCounter { side, moves } => G::SetMoveCounter {
                side: (*side).into(),
                moves: *moves,
            },
            RulesRecord::ArbiterResult { outcome } => G::ArbiterResult {
                outcome: outcome
                    .parse::<KnownOutcome>()
                    .map_err(|_| anyhow!("{outcome:?} is not a result (1-0, 0-1, 1/2-1/2)"))?,
            },
            RulesRecord::SetPosition { fen } => G::SetPosition {
                position: fen
                    .parse::<Fen>()
                    .map_err(|e| anyhow!("{fen:?}: {e}"))?
                    .into_position(CastlingMode::Standard)
                    .map_err(|e| anyhow!("{fen:?}: {e}"))?,
            },
            RulesRecord::Retract { to_ply } => G::Retract { to_ply: *to_ply },
            RulesRecord::Verdict {
                ticket,
                mateability,
            } => G::Verdict {
                ticket: *ticket,
                mateability: *mateability,
            },
            RulesRecord::Seal { by, text, notation } => G::Seal {
                by: (*by).into(),
                text: text.clone(),
                notation: notation.clone(),
            },
            RulesRecord::StartReplierClock => G::StartReplierClock,
            RulesRecord::OpenEnvelope => G::OpenEnvelope,
            RulesRecord::SetResumption { text } => G::SetResumption { text: text.clone() },
        })
    }
}

impl From<&Input> for InputRecord {
    fn from(input: &Input) -> Self {
        match input {
            Input::Start => InputRecord::Start,
            Input::Board { seat, event } => InputRecord::Board {
                board: (*seat).into(),
                event: event.into(),
            },
            Input::BoardDisconnected { seat } => InputRecord::BoardDisconnected {
                board: (*seat).into(),
            },
            Input::BoardConnected { seat } => InputRecord::BoardConnected {
                board: (*seat).into(),
            },
            Input::SpeechFinished { id } => InputRecord::SpeechFinished { id: *id },
            Input::ClockPress => InputRecord::ClockPress,
            Input::EnterMove(text) => InputRecord::EnterMove { text: text.clone() },
            Input::Promote(role) => InputRecord::Promote { piece: role.char() },
            Input::Correct(text) => InputRecord::Correct { text: text.clone() },
            Input::Scoresheet { side, sans } => InputRecord::Scoresheet {
                side: (*side).into(),
                sans: sans.clone(),
            },
            Input::ConfirmClocks => InputRecord::ConfirmClocks,
            Input::RestoreClocks => InputRecord::RestoreClocks,
            Input::Confirm => InputRecord::Confirm,
            Input::Cancel => InputRecord::Cancel,
            Input::Undo => InputRecord::Undo,
            Input::Penalty(rules) => InputRecord::Penalty {
                rules: rules.into(),
            },
            Input::Adjust { by, square } => InputRecord::Adjust {
                by: (*by).into(),
                square: square.to_string(),
            },
            Input::Rules(rules) => InputRecord::Rules {
                rules: rules.into(),
            },
            Input::Tick => InputRecord::Tick,
        }
    }
}

impl InputRecord {
    /// The input, with moves read in `position` (the game's position when it was accepted).
    pub fn to_input(&self, position: &Chess, blind: BlindRecord) -> Result<Input> {
        Ok(match self {
            InputRecord::Start => Input::Start,
            InputRecord::Board { board, event } => Input::Board {
                seat: board.seat(blind)?,
                event: event.to_event()?,
            },
            InputRecord::BoardDisconnected { board } => Input::BoardDisconnected {
                seat: board.seat(blind)?,
            },
            InputRecord::BoardConnected { board } => Input::BoardConnected {
                seat: board.seat(blind)?,
            },
            InputRecord::SpeechFinished { id } => Input::SpeechFinished { id: *id },
            InputRecord::ClockPress => Input::ClockPress,
            InputRecord::EnterMove { text } => Input::EnterMove(text.clone()),
            InputRecord::Promote { piece } => Input::Promote(
                Role::from_char(*piece).ok_or_else(|| anyhow!("{piece:?} is not a piece"))?,
            ),
            InputRecord::Correct { text } => Input::Correct(text.clone()),
            InputRecord::Scoresheet { side, sans } => Input::Scoresheet {
                side: (*side).into(),
                sans: sans.clone(),
            },
            InputRecord::ConfirmClocks => Input::ConfirmClocks,
            InputRecord::RestoreClocks => Input::RestoreClocks,
            InputRecord::Confirm => Input::Confirm,
            InputRecord::Cancel => Input::Cancel,
            InputRecord::Undo => Input::Undo,
            InputRecord::Penalty { rules } => Input::Penalty(rules.to_input(position)?),
            InputRecord::Adjust { by, square } => Input::Adjust {
                by: (*by).into(),
                square: square_of(square)?,
            },
            InputRecord::Rules { rules } => Input::Rules(rules.to_input(position)?),
            InputRecord::Tick => Input::Tick,
            InputRecord::Request(request) => {
                return Err(anyhow!(
                    "the request '{}' is a question to the daemon, not an input to the game",
                    request.asked
                ));
            }
            InputRecord::Switch(switch) => {
                return Err(anyhow!(
                    "the switch of the '{}' request is the daemon's, not an input to the game",
                    Switchable::from(switch.request)
                ));
            }
        })
    }
}
