//! One game under the Laws: the record, the position history, the clock, draw offers, claims,
//! penalties and the ends of the game, as a state machine driven by timed [`Input`]s.
//!
//! [`Game::apply`] is the only way state changes: an input and the time it happened go in, the
//! [`Event`]s the Laws attach to it come out, or a [`RulesError`] says why the input was refused
//! (and nothing changed). Replaying the same inputs with the same times always gives the same game,
//! which is what the daemon's journal relies on.
//!
//! What this module must not do: read the clock, touch files, or run the expensive mateability
//! search itself. When a ruling depends on "can this side still mate?" and the cheap test
//! ([`dead::quick`]) cannot tell, the game emits [`Event::AnalysisNeeded`] and waits for an
//! [`Input::Verdict`]; the caller runs [`dead::solve`] wherever it likes (see
//! [`Game::resolve_analyses`] for the synchronous way).

use shakmaty::{
    ByColor, Chess, Color, EnPassantMode, KnownOutcome, Move, Position, Square, fen::Fen,
    san::SanPlus, zobrist::Zobrist128,
};
use thiserror::Error;

use super::ClockMillis;
use super::{
    Edition, Millis, PlayMode,
    clock::Clock,
    dead::{self, Mateability, Query},
    notation, pgn,
    time_control::TimeControl,
};

/// Extra thinking time the arbiter gives for an opponent's illegal move (7.4 b) and for a 10.2
/// claim that is postponed or rejected.
pub const TWO_MINUTES_MS: i64 = 2 * 60 * 1000;
/// Time added to the opponent of a player whose draw claim is incorrect (9.5 b).
pub const THREE_MINUTES_MS: i64 = 3 * 60 * 1000;
const ONE_MINUTE_MS: i64 = 60 * 1000;
/// 7.4 b: the third illegal move by the same player loses.
pub const ILLEGAL_MOVES_THAT_LOSE: u8 = 3;
/// 9.3: fifty moves by each player, counted in half-moves.
pub const FIFTY_MOVE_PLIES: u32 = 100;
/// 9.2: the same position for at least the third time.
pub const REPETITIONS_FOR_CLAIM: usize = 3;

/// How a game is set up: which Laws, which appendix, which clock.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RulesConfig {
    pub edition: Edition,
    pub play: PlayMode,
    /// `None`: no clock (analysis, audits, casual play).
    pub time_control: Option<TimeControl>,
}

/// The draw claims of Articles 9.2 and 9.3. `intended` is the move the claimant has written on his
/// scoresheet and declared (the "a" forms); `None` claims the current position (the "b" forms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawClaim {
    Repetition { intended: Option<Move> },
    FiftyMoves { intended: Option<Move> },
}

impl DrawClaim {
    pub fn article(self) -> Article {
        match self {
            DrawClaim::Repetition { intended: Some(_) } => Article::A9_2a,
            DrawClaim::Repetition { intended: None } => Article::A9_2b,
            DrawClaim::FiftyMoves { intended: Some(_) } => Article::A9_3a,
            DrawClaim::FiftyMoves { intended: None } => Article::A9_3b,
        }
    }
    fn intended(self) -> Option<Move> {
        match self {
            DrawClaim::Repetition { intended } | DrawClaim::FiftyMoves { intended } => intended,
        }
    }
}

/// The articles a claim can be made under, as written on a scoresheet or in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Article {
    A9_2a,
    A9_2b,
    A9_3a,
    A9_3b,
}

impl Article {
    pub fn as_str(self) -> &'static str {
        match self {
            Article::A9_2a => "9.2a",
            Article::A9_2b => "9.2b",
            Article::A9_3a => "9.3a",
            Article::A9_3b => "9.3b",
        }
    }
}

impl std::fmt::Display for Article {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The arbiter's ruling on a 10.2 claim (quickplay finish). The game cannot judge "no effort to
/// win by normal means"; it only applies the consequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuickplayRuling {
    /// 10.2 a: the game is drawn.
    Draw,
    /// 10.2 b: decision postponed; the opponent may be given two extra minutes.
    Postpone { extra_time_to_opponent: bool },
    /// 10.2 c: claim rejected; the opponent gets two extra minutes.
    Reject,
}

/// Everything that can happen to a game. Each comes with the time it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Start the clock of the player having the move (the start of play, Art. 6.5).
    Start,
    /// The player having the move completed `Move` (made on the board and, where the Laws require
    /// it, the clock pressed). The move must be legal: illegal ones are reported with
    /// [`Input::IllegalMove`] instead.
    Move(Move),
    /// `by` completed an illegal move that was noticed (7.4; in blitz, Appendix C). No clock is
    /// pressed: in blitz the position it produced, when it stands, is set up with
    /// [`Input::SetPosition`], which starts the opponent's clock.
    IllegalMove {
        by: Color,
    },
    /// Blitz (Appendix C): `by`, the opponent of an illegal mover, claims the win (a draw if he
    /// cannot mate) before making his own move.
    ClaimIllegalMove {
        by: Color,
    },
    OfferDraw {
        by: Color,
    },
    AcceptDraw {
        by: Color,
    },
    DeclineDraw {
        by: Color,
    },
    /// `by` touched a piece with the intention of moving or capturing it: rejects a draw offer made
    /// to him (9.1 a); in 2009, when he has the move, ends his right to claim under 9.2 / 9.3 at
    /// this move (9.4); in 2001 blitz, ends his right to claim an illegal move (Appendix B, which
    /// governs blitz too). The arbiter layer must send every touch for these to apply.
    Touch {
        by: Color,
        square: Square,
    },
    Resign {
        by: Color,
    },
    Claim {
        by: Color,
        claim: DrawClaim,
    },
    /// A flag-fall claim (rapid and blitz: the flag has fallen only when validly claimed; in
    /// standard play the assistant may point it out, F.9 e).
    ClaimFlag {
        by: Color,
    },
    /// 10.2: the player having the move, with less than two minutes, claims a draw.
    ClaimQuickplayDraw {
        by: Color,
    },
    /// The arbiter's ruling on the pending 10.2 claim.
    QuickplayRuling(QuickplayRuling),
    /// Time passes: in standard play a flag that has fallen is acted on.
    Tick,
    /// 6.12: the arbiter interrupts the game / lets it go on.
    Pause,
    Resume,
    /// 6.13 / 6.14: the arbiter sets a clock or the move counter.
    SetClock {
        side: Color,
        remaining_ms: ClockMillis,
    },
    AdjustClock {
        side: Color,
        delta_ms: ClockMillis,
    },
    SetMoveCounter {
        side: Color,
        moves: u32,
    },
    /// The arbiter declares the result (10.2 b after a flag, a mateability search that could not
    /// decide, or any ruling under Art. 13).
    ArbiterResult {
        outcome: KnownOutcome,
    },
    /// The arbiter sets up a position (7.4 a when the position before the irregularity cannot be
    /// determined; the position that stands after an unclaimed illegal move in blitz). Play goes
    /// on from it; the record keeps the moves before it.
    SetPosition {
        position: Chess,
    },
    /// Appendix F.8: the scoresheets disagree; the game is retraced to the last move both share
    /// (`to_ply` half-moves). The moves after it leave the record; the clocks are paused, and the
    /// arbiter sets them and resumes (the times recorded after that move are [`Game::clocks_after_ply`]).
    Retract {
        to_ply: usize,
    },
    /// The answer to an [`Event::AnalysisNeeded`].
    Verdict {
        ticket: u64,
        mateability: Mateability,
    },
    /// Adjournment: `by`, the player having the move, seals `text` (as he wrote it). His clock
    /// stops without starting the opponent's. The text is read only when the envelope is opened:
    /// an ambiguous, unreadable or illegal sealed move loses then, not now.
    Seal {
        by: Color,
        text: String,
    },
    /// Resumption when the player who must reply to the sealed move is absent: his clock is
    /// started, the envelope stays closed until he comes.
    StartReplierClock,
    /// Resumption: the envelope is opened and the sealed move made (the replier's clock starts),
    /// or, if it is ambiguous, unreadable or illegal, the sealer loses (except as in 6.9 / 9.6).
    OpenEnvelope,
    /// The date, time and venue of resumption, as the arbiter fixed them (the envelope's
    /// seventh item); only while adjourned.
    SetResumption {
        text: String,
    },
}

/// Whether an input is taken while the game is adjourned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WhileAdjourned {
    /// Refused: the position before the sealed move stands until the envelope is opened.
    Refused,
    /// Taken, adjourned or not.
    Taken,
    /// Taken only then (the envelope, the replier's clock, the resumption).
    Only,
}

/// Where an input may come in, in the states of the game that stop most inputs: adjourned,
/// clocks paused by the arbiter (6.12), a 10.2 claim awaiting his ruling.
#[derive(Debug, Clone, Copy)]
struct Admission {
    adjourned: WhileAdjourned,
    paused: bool,
    awaiting_ruling: bool,
}

impl Input {
    /// One row per input and no wildcard, so that a new input must say where it stands.
    #[rustfmt::skip]
    fn admission(&self) -> Admission {
        use WhileAdjourned::{Only, Refused as No, Taken as Yes};
        let row = |adjourned, paused, awaiting_ruling| Admission { adjourned, paused, awaiting_ruling };
        match self {
            //                                  adjourned  paused  awaiting 10.2 ruling
            Input::Start                     => row(No,    false,  true),
            Input::Move(_)                   => row(No,    false,  false),
            // 6.12: the clocks stand so that the arbiter can rule; rulings and claims are taken
            // then, and none of them restarts a clock (only `Resume` does).
            Input::IllegalMove { .. }        => row(No,    true,   false),
            Input::ClaimIllegalMove { .. }   => row(No,    true,   true),
            // A draw offer made after the seal stays valid until answered (adjourned games, 9.1).
            Input::OfferDraw { .. }          => row(Yes,   true,   true),
            Input::AcceptDraw { .. }         => row(Yes,   true,   true),
            Input::DeclineDraw { .. }        => row(Yes,   true,   true),
            // A touch is a fact whenever it happens (9.1 a, 9.4 of 2009).
            Input::Touch { .. }              => row(No,    true,   true),
            Input::Resign { .. }             => row(Yes,   true,   true),
            Input::Claim { .. }              => row(No,    true,   false),
            Input::ClaimFlag { .. }          => row(No,    false,  true),
            Input::ClaimQuickplayDraw { .. } => row(No,    true,   false),
            Input::QuickplayRuling(_)        => row(No,    true,   true),
            Input::Tick                      => row(Yes,   false,  true),
            Input::Pause                     => row(No,    false,  true),
            // A 10.2 claim stops the clocks until the ruling, which restarts them itself.
            Input::Resume                    => row(No,    true,   false),
            // The arbiter sets clocks and the position while they stand (6.12, 6.13).
            Input::SetClock { .. }           => row(Yes,   true,   true),
            Input::AdjustClock { .. }        => row(Yes,   true,   true),
            Input::SetMoveCounter { .. }     => row(Yes,   true,   true),
            Input::SetPosition { .. }        => row(No,    true,   true),
            // A move held while the clocks stand may be taken back.
            Input::Retract { .. }            => row(No,    true,   true),
            Input::Seal { .. }               => row(No,    true,   false),
            Input::StartReplierClock         => row(Only,  false,  true),
            Input::OpenEnvelope              => row(Only,  false,  true),
            Input::SetResumption { .. }      => row(Only,  false,  true),
            // Taken in every state, before the others are looked at.
            Input::Verdict { .. }            => row(Yes,   true,   true),
            Input::ArbiterResult { .. }      => row(Yes,   true,   true),
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    Resignation,
    Stalemate,
    /// 5.2 b / 9.6: neither player can mate by any series of legal moves.
    DeadPosition,
    /// 9.1: the players agreed.
    Agreement,
    Claim(Article),
    /// 6.9 / Appendix B: a flag fell and the opponent can mate (loss) or cannot (draw).
    FlagFall {
        flagged: Color,
    },
    /// 6.11 in a quickplay finish, or Appendix B: both flags down.
    BothFlags,
    /// 7.4 b: the third illegal move.
    IllegalMoves {
        offender: Color,
    },
    /// Appendix C: the opponent of an illegal mover claimed the win.
    IllegalMoveClaimed {
        offender: Color,
    },
    /// 10.2 a.
    QuickplayDraw,
    /// The arbiter declared the result.
    ArbiterDecision,
    /// Adjournment: the sealed move was ambiguous, unreadable or illegal.
    InvalidSealedMove {
        offender: Color,
    },
}

impl EndReason {
    /// The PGN `Termination` tag value.
    pub fn termination(self) -> &'static str {
        match self {
            EndReason::FlagFall { .. } | EndReason::BothFlags => "time forfeit",
            EndReason::IllegalMoves { .. }
            | EndReason::IllegalMoveClaimed { .. }
            | EndReason::InvalidSealedMove { .. } => "rules infraction",
            EndReason::QuickplayDraw | EndReason::ArbiterDecision => "adjudication",
            _ => "normal",
        }
    }

    /// A short description for people, e.g. in the audit report or a scoresheet footer.
    pub fn describe(self) -> String {
        match self {
            EndReason::Checkmate => "checkmate".into(),
            EndReason::Resignation => "resignation".into(),
            EndReason::Stalemate => "stalemate".into(),
            EndReason::DeadPosition => "dead position (neither side can mate)".into(),
            EndReason::Agreement => "draw by agreement".into(),
            EndReason::Claim(article) => format!("correct claim under {article}"),
            EndReason::FlagFall { flagged } => format!("{flagged}'s flag fell"),
            EndReason::BothFlags => "both flags fell".into(),
            EndReason::IllegalMoves { offender } => format!("third illegal move by {offender}"),
            EndReason::IllegalMoveClaimed { offender } => {
                format!("illegal move by {offender} claimed")
            }
            EndReason::QuickplayDraw => "draw on a 10.2 claim".into(),
            EndReason::ArbiterDecision => "the arbiter's decision".into(),
            EndReason::InvalidSealedMove { offender } => {
                format!("{offender}'s sealed move was ambiguous or illegal")
            }
        }
    }
}

/// The end of a game: the result the Laws give, why, at which ply and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameEnd {
    pub outcome: KnownOutcome,
    pub reason: EndReason,
    /// Half-moves played when the game ended.
    pub ply: usize,
    pub at: Millis,
}

/// What the Laws made of an input. Later layers turn these into announcements and records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    ClockStarted {
        side: Color,
    },
    MovePlayed {
        ply: usize,
        side: Color,
        san: String,
    },
    DrawOffered {
        by: Color,
    },
    DrawDeclined {
        by: Color,
    },
    ClaimUpheld {
        by: Color,
        article: Article,
    },
    /// An incorrect claim (9.5 b): the time changes made and the move the claimant must now play.
    ClaimRejected {
        by: Color,
        article: Article,
        opponent_bonus_ms: ClockMillis,
        claimant_remaining_ms: Option<i64>,
        must_play: Option<String>,
    },
    /// 7.4 b: two extra minutes to the opponent of the illegal mover (count = his illegal moves so far).
    IllegalMovePenalty {
        offender: Color,
        count: u8,
        bonus_ms: ClockMillis,
    },
    /// Appendix C: the opponent may now claim the illegal move, until he makes his own move (in
    /// 2001 also until he touches a piece).
    IllegalMoveClaimable {
        offender: Color,
    },
    /// The flag fell (or was validly claimed); the result follows, possibly after an analysis.
    FlagFell {
        side: Color,
    },
    /// An incorrect flag claim (rapid/blitz): the opponent's flag was still up, or the claimant's
    /// own had fallen too (then [`EndReason::BothFlags`] follows).
    FlagClaimRejected {
        by: Color,
    },
    QuickplayClaimed {
        by: Color,
    },
    QuickplayPostponed {
        bonus_ms: ClockMillis,
    },
    QuickplayRejected {
        bonus_ms: ClockMillis,
    },
    ClocksPaused,
    ClocksResumed,
    ClockSet {
        side: Color,
        remaining_ms: ClockMillis,
    },
    /// The game needs to know whether `query.side` can still mate; answer with
    /// [`Input::Verdict`] carrying the same ticket.
    AnalysisNeeded {
        ticket: u64,
        query: Query,
    },
    /// The Laws leave this result to the arbiter (a postponed 10.2 claim and a fallen flag, or a
    /// mateability search that could not decide): answer with [`Input::ArbiterResult`].
    ArbiterMustRule {
        reason: EndReason,
        flagged_or_offender: Color,
    },
    PositionSet {
        ply: usize,
    },
    /// The game was retraced to `ply` half-moves (F.8).
    Retracted {
        ply: usize,
    },
    GameEnded(GameEnd),
    /// The game is adjourned: `by` sealed his `move_number`th move; the clocks stand.
    Adjourned {
        by: Color,
        move_number: u32,
    },
    /// The date, time and venue of resumption were fixed (the envelope is written again).
    ResumptionSet,
    /// Resumption: the envelope was opened; the sealed move follows as a [`Event::MovePlayed`].
    EnvelopeOpened {
        by: Color,
    },
    /// Resumption: the sealed move, as written, is not one legal move; `reason` says why. The
    /// sealer loses unless his opponent cannot mate (the result follows).
    SealedMoveInvalid {
        by: Color,
        text: String,
        reason: String,
    },
}

/// An adjourned game: the sealed move waits in its envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjournment {
    /// Who sealed: the player who had the move.
    pub by: Color,
    /// The sealed move as he wrote it; read only when the envelope is opened.
    pub sealed: String,
    /// Half-moves played before the sealed move.
    pub ply: usize,
    /// The number of the sealed move (the envelope's fifth item).
    pub move_number: u32,
    pub at: Millis,
    /// Resumption with the replier absent: his clock already runs, the envelope is still closed.
    pub replier_clock_started: bool,
    /// Date, time and venue of resumption, once the arbiter has fixed them.
    pub resumption: Option<String>,
}

/// Why an input was refused. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RulesError {
    #[error("the game is over ({0}); nothing more can be played")]
    GameOver(String),
    #[error("it is {to_move}'s move, not {by}'s")]
    NotYourMove { by: Color, to_move: Color },
    #[error("{uci} is not a legal move in {fen}")]
    IllegalMove { uci: String, fen: String },
    #[error("the clocks are paused by the arbiter; resume them first")]
    Paused,
    #[error("the clocks are not paused")]
    NotPaused,
    #[error("this game has no clock")]
    NoClock,
    #[error("the clock has already been started")]
    AlreadyStarted,
    #[error("there is no draw offer from {0}'s opponent to answer")]
    NoDrawOffer(Color),
    #[error("after an incorrect claim the intended move {0} must be played (9.5 b)")]
    MustPlayIntendedMove(String),
    #[error("{by} may claim an illegal move only right after it and before touching a piece")]
    NothingToClaim { by: Color },
    #[error("10.2 does not apply: {0}")]
    QuickplayNotApplicable(&'static str),
    #[error("there is no pending 10.2 claim to rule on")]
    NoQuickplayClaim,
    #[error(
        "10.2 b (2001): after postponing his decision the arbiter declares the final result after a \
         flag has fallen, not before"
    )]
    QuickplayResultOnlyAfterAFlag,
    #[error(
        "{by} touched a piece as in 4.3 without claiming: he has lost the right to claim under 9.2 \
         or 9.3 at this move (9.4, 2009)"
    )]
    ClaimRightLost { by: Color },
    #[error("no analysis with ticket {0} was ever asked for")]
    UnknownTicket(u64),
    #[error("a 10.2 claim awaits the arbiter's ruling; nothing can be played until then")]
    AwaitingQuickplayRuling,
    #[error("{0}'s opponent has offered a draw: accept or decline it instead of offering one")]
    CounterOffer(Color),
    #[error(
        "cannot retract to {to_ply} half-moves: the game has {ply}, or a set-up position lies between"
    )]
    NothingToRetract { to_ply: usize, ply: usize },
    #[error("the result is the arbiter's to declare now")]
    AwaitingArbiter,
    #[error(
        "the game is adjourned: only draw offers and answers, resignation, clock settings and the \
         resumption (open the envelope) are possible"
    )]
    Adjourned,
    #[error("the game is not adjourned; there is no sealed move")]
    NotAdjourned,
    #[error("the replier's clock already runs; open the envelope when he arrives")]
    ReplierClockRunning,
}

/// One completed move as both scoresheets record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRecord {
    pub side: Color,
    pub mv: Move,
    pub san: SanPlus,
    /// When the move was completed.
    pub at: Millis,
    /// Both clocks right after the move (None without a clock).
    pub clocks_after: Option<ByColor<i64>>,
}

/// A draw offer as written on the scoresheets (`(=)`, 9.1 b, Appendix E.12): next to the
/// offerer's own move, the one he had just made or, when he offered before moving, the one he
/// makes next (`on_ply` is that move's half-move number, 1 = the first move of the game).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfferRecord {
    pub by: Color,
    pub on_ply: usize,
    pub at: Millis,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PendingOffer {
    by: Color,
}

/// A result waiting for a mateability verdict: `loser` loses unless `winner` cannot mate.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingEnd {
    ticket: u64,
    /// The search could not decide, or 10.2 b applies: only the arbiter's ruling ends it.
    awaiting_arbiter: bool,
    loser: Color,
    reason: EndReason,
    ply: usize,
    at: Millis,
}

/// The game's state. See the module docs.
#[derive(Debug, Clone)]
pub struct Game {
    config: RulesConfig,
    start: Chess,
    position: Chess,
    moves: Vec<MoveRecord>,
    /// FIDE 9.2 identity of every position so far, the start included.
    history: History,
    clock: Option<Clock>,
    started: bool,
    offer: Option<PendingOffer>,
    offers: Vec<OfferRecord>,
    illegal_moves: ByColor<u8>,
    /// Blitz: the player whose illegal move his opponent may still claim.
    illegal_claimable: Option<Color>,
    /// 9.4 (2009): the ply at which the player having the move touched a piece without claiming;
    /// he may not claim under 9.2 / 9.3 until the next move.
    claim_right_lost_at: Option<usize>,
    must_play: Option<Move>,
    quickplay_claim: Option<Color>,
    /// 10.2 b: the arbiter postponed his decision; he declares the result after a flag falls.
    quickplay_postponed: Option<Color>,
    /// The latest time seen: time never runs backwards in the record.
    last_time: Millis,
    /// Plies after which the arbiter set up a position.
    setups: Vec<usize>,
    pending_end: Option<PendingEnd>,
    /// Dead-position analyses in flight: ticket -> (ply it was asked at, side asked about).
    dead_checks: Vec<(u64, usize, Color)>,
    dead_answers: Vec<(usize, Color, Mateability)>,
    next_ticket: u64,
    end: Option<GameEnd>,
    adjournment: Option<Adjournment>,
    /// Clock changes by the arbiter or by a rule (6.13, 7.4 b, 9.5 b, 10.2, 13.4), each after the
    /// ply it happened at, for the PGN and the printed scoresheet.
    clock_notes: Vec<(usize, String)>,
}

impl Game {
    /// A game from the standard starting position.
    pub fn new(config: RulesConfig) -> Game {
        Game::from_position(config, Chess::default())
    }

    /// A game from any legal position (a FEN start, an adjourned game, a study).
    pub fn from_position(config: RulesConfig, start: Chess) -> Game {
        let clock = config.time_control.clone().map(Clock::new);
        Game {
            config,
            history: History::new(&start),
            position: start.clone(),
            start,
            moves: Vec::new(),
            clock,
            started: false,
            offer: None,
            offers: Vec::new(),
            illegal_moves: ByColor::new_with(|_| 0),
            illegal_claimable: None,
            claim_right_lost_at: None,
            must_play: None,
            quickplay_claim: None,
            quickplay_postponed: None,
            last_time: 0,
            setups: Vec::new(),
            pending_end: None,
            dead_checks: Vec::new(),
            dead_answers: Vec::new(),
            clock_notes: Vec::new(),
            next_ticket: 1,
            end: None,
            adjournment: None,
        }
    }

    pub fn config(&self) -> &RulesConfig {
        &self.config
    }
    /// The laws that govern play: standard, or the rapid or blitz appendix, as the configured
    /// play mode means under the configured edition (see [`PlayMode::laws`]).
    pub fn laws(&self) -> PlayMode {
        self.config.play.laws(self.config.edition)
    }
    pub fn start_position(&self) -> &Chess {
        &self.start
    }
    pub fn position(&self) -> &Chess {
        &self.position
    }
    pub fn moves(&self) -> &[MoveRecord] {
        &self.moves
    }
    pub fn ply(&self) -> usize {
        self.moves.len()
    }
    pub fn to_move(&self) -> Color {
        self.position.turn()
    }
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }
    pub fn end(&self) -> Option<&GameEnd> {
        self.end.as_ref()
    }
    pub fn is_over(&self) -> bool {
        self.end.is_some() || self.pending_end.is_some()
    }
    /// The adjournment, while the sealed move waits in its envelope.
    pub fn adjournment(&self) -> Option<&Adjournment> {
        self.adjournment.as_ref()
    }
    pub fn draw_offer(&self) -> Option<Color> {
        self.offer.map(|o| o.by)
    }
    pub fn offers(&self) -> &[OfferRecord] {
        &self.offers
    }
    pub fn illegal_move_count(&self, side: Color) -> u8 {
        *self.illegal_moves.get(side)
    }
    /// The move the player having the move must make after an incorrect "a" claim.
    pub fn must_play(&self) -> Option<Move> {
        self.must_play
    }

    /// How often the current position has occurred, this occurrence included (9.2).
    pub fn repetitions(&self) -> usize {
        self.history.occurrences(&self.position)
    }

    /// Whether `claim` by the player having the move would be correct now (9.2, 9.3). An intended
    /// move that is illegal makes the claim incorrect.
    pub fn claim_is_correct(&self, claim: DrawClaim) -> bool {
        claim_is_correct(&self.position, &self.history, claim)
    }

    /// Every claim the player having the move could make correctly now, with the intended move
    /// for the "a" forms (one entry per qualifying move, in legal-move order).
    pub fn available_claims(&self) -> Vec<DrawClaim> {
        available_claims(&self.position, &self.history)
    }

    /// Apply one input at time `now`. On error nothing has changed.
    pub fn apply(&mut self, input: Input, now: Millis) -> Result<Vec<Event>, RulesError> {
        // Work on a copy so that a refused input leaves no trace; games are small.
        let mut next = self.clone();
        let mut events = Vec::new();
        // Time never runs backwards in the record: a late or reordered input counts as now.
        let now = now.max(self.last_time);
        next.last_time = now;
        next.apply_inner(input, now, &mut events)?;
        next.note_clock_changes(&events);
        *self = next;
        Ok(events)
    }

    /// Keep every clock change among `events` for the record (see [`Game::clock_notes`]).
    fn note_clock_changes(&mut self, events: &[Event]) {
        let ply = self.moves.len();
        let secs = |ms: ClockMillis| format!("{} s", ms / 1000);
        for event in events {
            let text = match event {
                Event::ClockSet { side, remaining_ms } => {
                    format!("{side}'s clock set to {}", pgn::format_clk(*remaining_ms))
                }
                Event::IllegalMovePenalty {
                    offender, bonus_ms, ..
                } => format!(
                    "illegal move by {offender}: {} added to {} (7.4 b)",
                    secs(*bonus_ms),
                    !*offender
                ),
                Event::ClaimRejected {
                    by,
                    article,
                    opponent_bonus_ms,
                    claimant_remaining_ms,
                    ..
                } => {
                    let mut text = format!("incorrect claim by {by} under {article} (9.5 b)");
                    if *opponent_bonus_ms > 0 {
                        text.push_str(&format!(": {} added to {}", secs(*opponent_bonus_ms), !*by));
                    }
                    if let Some(left) = claimant_remaining_ms {
                        text.push_str(&format!("; {by}'s clock set to {}", pgn::format_clk(*left)));
                    }
                    text
                }
                Event::QuickplayPostponed { bonus_ms } if *bonus_ms > 0 => format!(
                    "10.2 claim postponed: {} added to the opponent",
                    secs(*bonus_ms)
                ),
                Event::QuickplayRejected { bonus_ms } if *bonus_ms > 0 => format!(
                    "10.2 claim rejected: {} added to the opponent",
                    secs(*bonus_ms)
                ),
                _ => continue,
            };
            self.clock_notes.push((ply, text));
        }
    }

    /// The clock changes of the game, each after the number of half-moves played when it
    /// happened (0: before the first move), in order.
    pub fn clock_notes(&self) -> &[(usize, String)] {
        &self.clock_notes
    }

    /// Answer every pending analysis synchronously with [`dead::solve`]. For tools and tests; the
    /// daemon runs the searches off its main loop instead.
    pub fn resolve_analyses(&mut self, now: Millis) -> Vec<Event> {
        let mut events = Vec::new();
        loop {
            let pending = events.iter().rev().find_map(|e| match e {
                Event::AnalysisNeeded { ticket, query } => Some((*ticket, query.clone())),
                _ => None,
            });
            let request = pending
                .filter(|(ticket, _)| self.ticket_pending(*ticket))
                .or_else(|| self.pending_queries().into_iter().next());
            let Some((ticket, query)) = request else {
                break;
            };
            let mateability = dead::solve(&query);
            match self.apply(
                Input::Verdict {
                    ticket,
                    mateability,
                },
                now,
            ) {
                Ok(more) => events.extend(more),
                Err(_) => break,
            }
        }
        events
    }

    /// The analyses the game is waiting for.
    pub fn pending_queries(&self) -> Vec<(u64, Query)> {
        let mut out = Vec::new();
        if let Some(p) = self.pending_end.as_ref().filter(|p| !p.awaiting_arbiter) {
            out.push((
                p.ticket,
                Query {
                    position: self.position.clone(),
                    side: p.loser.other(),
                },
            ));
        }
        for &(ticket, ply, side) in &self.dead_checks {
            if ply == self.ply() {
                out.push((
                    ticket,
                    Query {
                        position: self.position.clone(),
                        side,
                    },
                ));
            }
        }
        out
    }

    fn ticket_pending(&self, ticket: u64) -> bool {
        self.pending_end
            .as_ref()
            .is_some_and(|p| p.ticket == ticket)
            || self.dead_checks.iter().any(|&(t, ..)| t == ticket)
    }

    /// Refuse an input the state of the game does not take (see [`Input::admission`]): adjourned,
    /// or clocks paused. The 10.2 claim is looked at after the clocks' tick, as a flag that fell
    /// before the input decides first.
    fn admit(&self, input: &Input) -> Result<(), RulesError> {
        let admission = input.admission();
        match (self.adjournment.is_some(), admission.adjourned) {
            (true, WhileAdjourned::Refused) => return Err(RulesError::Adjourned),
            (false, WhileAdjourned::Only) => return Err(RulesError::NotAdjourned),
            _ => {}
        }
        if self.clock.as_ref().is_some_and(Clock::is_paused) && !admission.paused {
            return Err(RulesError::Paused);
        }
        Ok(())
    }

    fn apply_inner(
        &mut self,
        input: Input,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if let Input::Verdict {
            ticket,
            mateability,
        } = input
        {
            return self.verdict(ticket, mateability, now, events);
        }
        if let Some(end) = &self.end {
            return Err(RulesError::GameOver(end.reason.describe()));
        }
        if let Input::ArbiterResult { outcome } = input {
            self.arbiter_result(outcome, now, events);
            return Ok(());
        }
        if let Some(pending) = &self.pending_end {
            return Err(if pending.awaiting_arbiter {
                RulesError::AwaitingArbiter
            } else {
                RulesError::GameOver("the result awaits an analysis".into())
            });
        }
        self.admit(&input)?;
        // In standard play a flag that has fallen is a fact at its instant, whether or not a tick
        // reported it: whatever comes later, a move, a claim or a clock adjustment, is too late
        // to undo it (6.9).
        self.tick(now, events);
        if self.is_over() {
            return Ok(());
        }
        if self.quickplay_claim.is_some() && !input.admission().awaiting_ruling {
            return Err(RulesError::AwaitingQuickplayRuling);
        }
        match input {
            Input::Start => self.start(now, events)?,
            Input::Move(m) => self.play(m, now, events)?,
            Input::IllegalMove { by } => self.illegal_move(by, now, events)?,
            Input::ClaimIllegalMove { by } => self.claim_illegal_move(by, now, events)?,
            Input::OfferDraw { by } => {
                if self.offer.map(|o| o.by) == Some(by.other()) {
                    return Err(RulesError::CounterOffer(by));
                }
                // An offer stands until answered; a second one from the same player changes nothing
                // but is written down again, as the player did offer again.
                self.record_offer(by, now, events);
            }
            Input::AcceptDraw { by } => {
                if self.offer.map(|o| o.by) != Some(by.other()) {
                    return Err(RulesError::NoDrawOffer(by));
                }
                self.finish(KnownOutcome::Draw, EndReason::Agreement, now, events);
            }
            Input::DeclineDraw { by } => {
                if self.offer.map(|o| o.by) != Some(by.other()) {
                    return Err(RulesError::NoDrawOffer(by));
                }
                self.offer = None;
                events.push(Event::DrawDeclined { by });
            }
            Input::Touch { by, square: _ } => {
                self.touched(by, events);
                // 9.4 of 2009: the player having the move who touches a piece as in 4.3 loses
                // his right to claim at this move (in 2001 only the move itself ends it).
                if by == self.position.turn()
                    && self.config.edition.rules().touch_loses_right_to_claim
                {
                    self.claim_right_lost_at = Some(self.ply());
                }
            }
            Input::Resign { by } => {
                self.finish(
                    KnownOutcome::Decisive { winner: by.other() },
                    EndReason::Resignation,
                    now,
                    events,
                );
            }
            Input::Claim { by, claim } => self.claim(by, claim, now, events)?,
            Input::ClaimFlag { by } => self.claim_flag(by, now, events),
            Input::Tick => self.tick(now, events),
            Input::ClaimQuickplayDraw { by } => self.claim_quickplay(by, now, events)?,
            Input::QuickplayRuling(ruling) => self.quickplay_ruling(ruling, now, events)?,
            Input::Pause => {
                let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
                clock.pause(now).map_err(|_| RulesError::Paused)?;
                events.push(Event::ClocksPaused);
            }
            Input::Resume => {
                let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
                clock.resume(now).map_err(|_| RulesError::NotPaused)?;
                events.push(Event::ClocksResumed);
            }
            Input::SetClock { side, remaining_ms } => {
                let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
                clock.set_remaining(side, remaining_ms, now);
                events.push(Event::ClockSet { side, remaining_ms });
            }
            Input::AdjustClock { side, delta_ms } => {
                let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
                clock.add_time(side, delta_ms, now);
                events.push(Event::ClockSet {
                    side,
                    remaining_ms: clock.remaining(side, now),
                });
            }
            Input::SetMoveCounter { side, moves } => {
                let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
                clock.set_moves_completed(side, moves);
            }
            Input::SetPosition { position } => self.set_position(position, now, events),
            Input::Retract { to_ply } => self.retract(to_ply, now, events)?,
            Input::Seal { by, text } => self.seal(by, text, now, events)?,
            Input::StartReplierClock => self.start_replier_clock(now, events)?,
            Input::OpenEnvelope => self.open_envelope(now, events),
            Input::SetResumption { text } => {
                let adjournment = self.adjournment.as_mut().ok_or(RulesError::NotAdjourned)?;
                adjournment.resumption = Some(text.trim().to_string());
                events.push(Event::ResumptionSet);
            }
            Input::Verdict { .. } | Input::ArbiterResult { .. } => {
                unreachable!("handled before the match")
            }
        }
        Ok(())
    }

    /// The clocks start (the game starts) with the player to move.
    fn start(&mut self, now: Millis, events: &mut Vec<Event>) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        if self.started {
            return Err(RulesError::AlreadyStarted);
        }
        let side = self.position.turn();
        clock.start(side, now);
        self.started = true;
        events.push(Event::ClockStarted { side });
        Ok(())
    }

    /// The arbiter decides the result; a result awaiting him keeps the instant and ply it arose
    /// at.
    fn arbiter_result(&mut self, outcome: KnownOutcome, now: Millis, events: &mut Vec<Event>) {
        let (at, ply) = match self.pending_end.take() {
            Some(p) => (p.at, p.ply),
            None => (now, self.ply()),
        };
        self.stop_clock(at);
        self.finish_at(outcome, EndReason::ArbiterDecision, at, events);
        if let Some(end) = self.end.as_mut() {
            end.ply = ply;
        }
    }

    /// `by` claims that his opponent's last move was illegal (blitz, Appendix C).
    fn claim_illegal_move(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.illegal_claimable != Some(by.other()) {
            return Err(RulesError::NothingToClaim { by });
        }
        self.stop_clock(now);
        self.illegal_claimable = None;
        self.lose_unless_opponent_cannot_mate(
            by.other(),
            EndReason::IllegalMoveClaimed {
                offender: by.other(),
            },
            now,
            events,
        );
        Ok(())
    }

    /// The arbiter sets the position (7.4 a; blitz: the position an illegal move produced, which
    /// stands); the clock of the player to move runs, or, while the arbiter holds the clocks
    /// (6.12), is the one that runs when he resumes.
    ///
    /// Blitz (Appendix C): set up with the illegal mover's opponent to move, the illegal move is
    /// on the board and his clock runs; he may still claim it before he makes his own move. Set
    /// up with the offender to move, the illegal move is gone and so is the claim.
    fn set_position(&mut self, position: Chess, now: Millis, events: &mut Vec<Event>) {
        self.position = position;
        self.history.push(&self.position);
        self.setups.push(self.ply());
        self.must_play = None;
        self.claim_right_lost_at = None;
        let turn = self.position.turn();
        if self.illegal_claimable == Some(turn) {
            self.illegal_claimable = None;
        }
        events.push(Event::PositionSet { ply: self.ply() });
        if let Some(clock) = self.clock.as_mut() {
            if let Some(running) = clock.running()
                && running != turn
            {
                clock.start(turn, now);
            } else if clock.paused_side().is_some_and(|side| side != turn) {
                clock.start(turn, now);
                let _ = clock.pause(now);
            }
        }
    }

    /// The replier to a sealed move is not there: his clock is started (adjourned games).
    fn start_replier_clock(
        &mut self,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let clock = self.clock.as_mut().ok_or(RulesError::NoClock)?;
        let adjournment = self.adjournment.as_mut().ok_or(RulesError::NotAdjourned)?;
        if adjournment.replier_clock_started {
            return Err(RulesError::ReplierClockRunning);
        }
        adjournment.replier_clock_started = true;
        let side = adjournment.by.other();
        clock.start(side, now);
        events.push(Event::ClockStarted { side });
        Ok(())
    }

    /// Claims and sealing are for the player having the move.
    fn check_to_move(&self, by: Color) -> Result<(), RulesError> {
        let to_move = self.position.turn();
        if by == to_move {
            Ok(())
        } else {
            Err(RulesError::NotYourMove { by, to_move })
        }
    }

    fn seal(
        &mut self,
        by: Color,
        text: String,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        self.check_to_move(by)?;
        // "Only then stop his clock without starting the opponent's clock."
        self.stop_clock(now);
        let move_number = self.position.fullmoves().get();
        self.adjournment = Some(Adjournment {
            by,
            sealed: text.trim().to_string(),
            ply: self.ply(),
            move_number,
            at: now,
            replier_clock_started: false,
            resumption: None,
        });
        events.push(Event::Adjourned { by, move_number });
        Ok(())
    }

    /// The envelope is opened: the sealed move is made, or loses if it is not one legal move.
    fn open_envelope(&mut self, now: Millis, events: &mut Vec<Event>) {
        let Some(adjournment) = self.adjournment.take() else {
            return;
        };
        let by = adjournment.by;
        // Read like a scoresheet: any notation the Laws allow (Appendix E), `Sf3` as well as
        // `Nf3`; only a text that is not exactly one legal move loses.
        let invalid = match notation::read_recorded(&self.position, &adjournment.sealed) {
            Ok(m) => {
                let mut opened = vec![Event::EnvelopeOpened { by }];
                // `play` starts the sealer's clock (stopping the replier's, when it ran while he
                // was absent) and presses it: the replier's clock starts.
                match self.play(m, now, &mut opened) {
                    Ok(()) => {
                        events.extend(opened);
                        return;
                    }
                    // A move the Laws forbid here (9.5 b's required move): not playable.
                    Err(e) => e.to_string(),
                }
            }
            Err(e) => e,
        };
        events.push(Event::SealedMoveInvalid {
            by,
            text: adjournment.sealed.clone(),
            reason: invalid,
        });
        self.lose_unless_opponent_cannot_mate(
            by,
            EndReason::InvalidSealedMove { offender: by },
            now,
            events,
        );
    }

    fn retract(
        &mut self,
        to_ply: usize,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        // A position set up by the arbiter cannot be replayed from the moves before it.
        if to_ply > self.ply() || !self.setups.is_empty() {
            return Err(RulesError::NothingToRetract {
                to_ply,
                ply: self.ply(),
            });
        }
        // The clocks are held (6.12) until the arbiter has set them and lets the game go on.
        if let Some(clock) = self.clock.as_mut()
            && clock.running().is_some()
        {
            let _ = clock.pause(now);
        }
        self.moves.truncate(to_ply);
        let mut position = self.start.clone();
        let mut history = History::new(&position);
        for record in &self.moves {
            position.play_unchecked(record.mv);
            history.push(&position);
        }
        self.position = position;
        self.history = history;
        self.offers.retain(|o| o.on_ply <= to_ply);
        self.offer = None;
        self.must_play = None;
        self.illegal_claimable = None;
        self.claim_right_lost_at = None;
        self.quickplay_claim = None;
        self.dead_checks.clear();
        self.dead_answers.clear();
        let turn = self.position.turn();
        if let Some(clock) = self.clock.as_mut() {
            for side in Color::ALL {
                let made = self.moves.iter().filter(|r| r.side == side).count();
                clock.set_moves_completed(side, u32::try_from(made).unwrap_or(u32::MAX));
            }
            // The move in progress is now the retraced position's: the clock that runs when
            // the arbiter resumes is that of the player to move there.
            if clock.paused_side().is_some_and(|side| side != turn) {
                clock.start(turn, now);
                let _ = clock.pause(now);
            }
        }
        events.push(Event::Retracted { ply: to_ply });
        Ok(())
    }

    /// Both clocks as recorded after `ply` half-moves (None before the first move or without a
    /// clock): what the arbiter is offered when the game is retraced (F.8).
    pub fn clocks_after_ply(&self, ply: usize) -> Option<ByColor<i64>> {
        ply.checked_sub(1)
            .and_then(|i| self.moves.get(i))
            .and_then(|r| r.clocks_after)
    }

    fn play(&mut self, m: Move, now: Millis, events: &mut Vec<Event>) -> Result<(), RulesError> {
        if !self.position.is_legal(m) {
            return Err(RulesError::IllegalMove {
                uci: m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
                fen: Fen::from_position(&self.position, EnPassantMode::Legal).to_string(),
            });
        }
        if let Some(required) = self.must_play
            && required != m
        {
            return Err(RulesError::MustPlayIntendedMove(
                SanPlus::from_move(self.position.clone(), required).to_string(),
            ));
        }
        let side = self.position.turn();
        // Making a move is touching a piece: it rejects an offer made to the mover. Any move
        // also ends the right to claim an earlier illegal move (Appendix C: the offender's
        // replacement, or the opponent's own move after which the illegal one stands).
        self.touched(side, events);
        self.illegal_claimable = None;
        self.must_play = None;
        let san = SanPlus::from_move_and_play_unchecked(&mut self.position, m);
        self.history.push(&self.position);
        self.dead_checks.clear();
        self.dead_answers.clear();

        let mate = self.position.is_checkmate();
        let stalemate = !mate && self.position.is_stalemate();
        let dead = !mate && !stalemate && dead::is_dead_quick(&self.position);
        let mut clocks_after = None;
        if let Some(clock) = self.clock.as_mut() {
            // A move made while the clocks stand (before the start) still counts for the move
            // counter: the mover's clock runs from now and is pressed at once.
            if clock.running() != Some(side) {
                clock.start(side, now);
            }
            if mate || stalemate || dead {
                // 6.7 a: a move that ends the game needs no press; no increment, no new period.
                clock.stop(now);
            } else {
                // The press can only fail when nothing runs, which we just ruled out.
                let _ = clock.press(now);
            }
            self.started = true;
            clocks_after = Some(ByColor::new_with(|c| clock.remaining(c, now)));
        }
        self.moves.push(MoveRecord {
            side,
            mv: m,
            san,
            at: now,
            clocks_after,
        });
        events.push(Event::MovePlayed {
            ply: self.ply(),
            side,
            san: san.to_string(),
        });

        // 5.1 a, 5.2 a, 5.2 b: the move that ends the game ends it at once.
        if mate {
            self.finish(
                KnownOutcome::Decisive { winner: side },
                EndReason::Checkmate,
                now,
                events,
            );
        } else if stalemate {
            self.finish(KnownOutcome::Draw, EndReason::Stalemate, now, events);
        } else if dead {
            self.finish(KnownOutcome::Draw, EndReason::DeadPosition, now, events);
        } else {
            // The cheap test could not prove the position dead; ask for the complete search for
            // each side it could not settle. An undecided or late answer never ends the game.
            for side in Color::ALL {
                match dead::quick(&self.position, side) {
                    Some(Mateability::CannotMate) => {
                        self.dead_answers
                            .push((self.ply(), side, Mateability::CannotMate))
                    }
                    _ => {
                        let ticket = self.ticket();
                        self.dead_checks.push((ticket, self.ply(), side));
                        events.push(Event::AnalysisNeeded {
                            ticket,
                            query: Query {
                                position: self.position.clone(),
                                side,
                            },
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Write an offer by `by` on the scoresheets and make it the pending offer.
    fn record_offer(&mut self, by: Color, now: Millis, events: &mut Vec<Event>) {
        // E.12: the mark goes with the offerer's own move: the one he has just made, or, when he
        // offers before moving (or has not moved yet), the one he makes next.
        let ply = self.ply();
        let on_ply = if by == self.position.turn() {
            ply + 1
        } else if ply > 0 && self.moves.last().is_some_and(|r| r.side == by) {
            ply
        } else {
            ply + 2
        };
        self.offer = Some(PendingOffer { by });
        self.offers.push(OfferRecord {
            by,
            on_ply,
            at: now,
        });
        events.push(Event::DrawOffered { by });
    }

    fn touched(&mut self, by: Color, events: &mut Vec<Event>) {
        if self.offer.map(|o| o.by) == Some(by.other()) {
            self.offer = None;
            events.push(Event::DrawDeclined { by });
        }
        // Blitz: the 2001 text (Appendix B, which C inherits) ends the claim of an illegal move
        // at the claimant's touch; the 2009 text (B3 c) only at his own move (see `play`).
        if self.illegal_claimable == Some(by.other())
            && self.config.edition.rules().touch_loses_illegal_move_claim
        {
            self.illegal_claimable = None;
        }
    }

    fn illegal_move(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.laws() == PlayMode::Blitz {
            // Appendix C: the illegal move is completed once the opponent's clock is started (no
            // extra time); the opponent may claim a win before he moves. The record keeps only
            // legal moves, so while the offender still has the move here the position after the
            // illegal move is not in it: his clock goes on running, as pressing it would charge
            // his opponent for his thinking (and leave a running clock for a player who cannot
            // move). If the opponent does not claim, the arbiter sets up the position the illegal
            // move produced (Input::SetPosition): that starts the opponent's clock, and the claim
            // stays open until he makes his own move.
            self.illegal_claimable = Some(by);
            events.push(Event::IllegalMoveClaimable { offender: by });
            return Ok(());
        }
        // 7.4 a: the position before the irregularity is reinstated. The record only ever holds
        // legal moves, so it already is; the offender's clock goes on running.
        let count = self.illegal_moves.get_mut(by);
        *count = count.saturating_add(1);
        let count = *count;
        if count >= ILLEGAL_MOVES_THAT_LOSE {
            self.stop_clock(now);
            if self
                .config
                .edition
                .rules()
                .third_illegal_move_drawn_if_opponent_cannot_mate
            {
                self.lose_unless_opponent_cannot_mate(
                    by,
                    EndReason::IllegalMoves { offender: by },
                    now,
                    events,
                );
            } else {
                self.finish(
                    KnownOutcome::Decisive { winner: by.other() },
                    EndReason::IllegalMoves { offender: by },
                    now,
                    events,
                );
            }
        } else {
            let bonus_ms = if let Some(clock) = self.clock.as_mut() {
                clock.add_time(by.other(), TWO_MINUTES_MS, now);
                TWO_MINUTES_MS
            } else {
                0
            };
            events.push(Event::IllegalMovePenalty {
                offender: by,
                count,
                bonus_ms,
            });
        }
        Ok(())
    }

    fn claim(
        &mut self,
        by: Color,
        claim: DrawClaim,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        self.check_to_move(by)?;
        if self.claim_right_lost_at == Some(self.ply()) {
            return Err(RulesError::ClaimRightLost { by });
        }
        // 9.5: the claimant stops both clocks (while the arbiter holds them, 6.12, they stay
        // held: nothing here restarts a clock that was not running).
        let was_running = self.stop_clock(now);
        let article = claim.article();
        if self.claim_is_correct(claim) {
            events.push(Event::ClaimUpheld { by, article });
            self.finish(KnownOutcome::Draw, EndReason::Claim(article), now, events);
            return Ok(());
        }
        // 9.5 b: three minutes to the opponent; the 2001 text also cuts the claimant's time.
        let mut claimant_remaining_ms = None;
        let mut opponent_bonus_ms = 0;
        if let Some(clock) = self.clock.as_mut() {
            clock.add_time(by.other(), THREE_MINUTES_MS, now);
            opponent_bonus_ms = THREE_MINUTES_MS;
            if self
                .config
                .edition
                .rules()
                .incorrect_claim_costs_claimant_time
            {
                let left = clock.remaining(by, now);
                let reduced = incorrect_claim_reduction(left);
                if reduced != left {
                    clock.set_remaining(by, reduced, now);
                }
                claimant_remaining_ms = Some(reduced);
            }
            if was_running {
                clock.start(by, now);
            }
        }
        let intended = claim.intended().filter(|&m| self.position.is_legal(m));
        // A second claim does not lift the duty to make the first intended move (9.5 b).
        self.must_play = self.must_play.or(intended);
        events.push(Event::ClaimRejected {
            by,
            article,
            opponent_bonus_ms,
            claimant_remaining_ms,
            must_play: intended.map(|m| SanPlus::from_move(self.position.clone(), m).to_string()),
        });
        // 9.1 c: a claim counts as a draw offer, which the opponent may still accept.
        self.record_offer(by, now, events);
        Ok(())
    }

    fn claim_flag(&mut self, by: Color, now: Millis, events: &mut Vec<Event>) {
        let Some(clock) = self.clock.as_ref() else {
            events.push(Event::FlagClaimRejected { by });
            return;
        };
        let theirs = clock.flag_fallen(by.other(), now);
        let mine = clock.flag_fallen(by, now);
        match self.laws() {
            PlayMode::Standard => {
                // The flag rules itself in standard play; a claim just makes us look now.
                if !theirs && !mine {
                    events.push(Event::FlagClaimRejected { by });
                }
                self.tick(now, events);
            }
            _ => {
                // Appendix B: the claimant stops the clocks; the claim succeeds only if his own
                // flag is still up and his opponent's is down. Both down is a draw.
                let was_running = self.stop_clock(now);
                match (theirs, mine) {
                    (true, false) => {
                        events.push(Event::FlagFell { side: by.other() });
                        self.lose_unless_opponent_cannot_mate(
                            by.other(),
                            EndReason::FlagFall {
                                flagged: by.other(),
                            },
                            now,
                            events,
                        );
                    }
                    (true, true) => {
                        events.push(Event::FlagClaimRejected { by });
                        self.finish(KnownOutcome::Draw, EndReason::BothFlags, now, events);
                    }
                    (false, _) => {
                        events.push(Event::FlagClaimRejected { by });
                        // The game goes on: restart the clock of the player having the move.
                        if was_running && let Some(clock) = self.clock.as_mut() {
                            clock.start(self.position.turn(), now);
                        }
                    }
                }
            }
        }
    }

    fn tick(&mut self, now: Millis, events: &mut Vec<Event>) {
        if self.laws() != PlayMode::Standard || self.is_over() {
            // Appendices B and C: the arbiter refrains from signalling a flag fall.
            return;
        }
        let Some(clock) = self.clock.as_ref() else {
            return;
        };
        let white = clock.fallen_at(Color::White, now);
        let black = clock.fallen_at(Color::Black, now);
        match (white, black) {
            (Some(w), Some(b)) if w != b => {
                // Our clock saw both fall and knows which fell first.
                self.flag(if w < b { Color::White } else { Color::Black }, now, events);
            }
            (Some(at), Some(_)) => {
                // 6.11 / 10.3: both flags down and which fell first cannot be established (the
                // arbiter set both clocks to zero at one instant): drawn in a quickplay finish,
                // otherwise the game goes on.
                if self.in_quickplay_finish() {
                    self.stop_clock(at);
                    self.finish_at(KnownOutcome::Draw, EndReason::BothFlags, at, events);
                }
            }
            (Some(_), None) => self.flag(Color::White, now, events),
            (None, Some(_)) => self.flag(Color::Black, now, events),
            (None, None) => {}
        }
    }

    fn flag(&mut self, side: Color, now: Millis, events: &mut Vec<Event>) {
        // The flag fell at a precise instant, possibly before `now`: the clocks stop there, and
        // that is when the game ended.
        let at = self
            .clock
            .as_ref()
            .and_then(|c| c.fallen_at(side, now))
            .unwrap_or(now);
        self.stop_clock(at);
        events.push(Event::FlagFell { side });
        self.lose_unless_opponent_cannot_mate(
            side,
            EndReason::FlagFall { flagged: side },
            at,
            events,
        );
    }

    /// Whether every remaining move must be made in the current period (10.1) for both players.
    fn in_quickplay_finish(&self) -> bool {
        self.clock
            .as_ref()
            .is_some_and(|c| Color::ALL.iter().all(|&s| c.moves_to_control(s).is_none()))
    }

    fn claim_quickplay(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.laws() == PlayMode::Blitz {
            return Err(RulesError::QuickplayNotApplicable(
                "it does not apply in blitz (Appendix C)",
            ));
        }
        self.check_to_move(by)?;
        let clock = self.clock.as_ref().ok_or(RulesError::NoClock)?;
        if clock.moves_to_control(by).is_some() {
            return Err(RulesError::QuickplayNotApplicable(
                "the game is not in its quickplay finish (a period with a move count)",
            ));
        }
        let left = clock.remaining(by, now);
        if left >= TWO_MINUTES_MS {
            return Err(RulesError::QuickplayNotApplicable(
                "the claimant has two minutes or more left",
            ));
        }
        if clock.flag_fallen(by, now) {
            return Err(RulesError::QuickplayNotApplicable(
                "the claimant's flag has already fallen",
            ));
        }
        self.stop_clock(now);
        self.quickplay_claim = Some(by);
        events.push(Event::QuickplayClaimed { by });
        // 9.1 c: a 10.2 claim counts as a draw offer.
        self.record_offer(by, now, events);
        Ok(())
    }

    fn quickplay_ruling(
        &mut self,
        ruling: QuickplayRuling,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        let by = self
            .quickplay_claim
            .or(self.quickplay_postponed)
            .ok_or(RulesError::NoQuickplayClaim)?;
        // 10.2 b of 2001: a postponed decision is taken after a flag has fallen, and then the
        // game is already stopped for the arbiter's result (`ArbiterResult`); before that there
        // is nothing to rule. 2009 lets him declare it "later during the game" too.
        if self.quickplay_claim.is_none()
            && self
                .config
                .edition
                .rules()
                .postponed_quickplay_ruled_only_after_a_flag
        {
            return Err(RulesError::QuickplayResultOnlyAfterAFlag);
        }
        match ruling {
            QuickplayRuling::Draw => {
                self.finish(KnownOutcome::Draw, EndReason::QuickplayDraw, now, events);
                return Ok(());
            }
            QuickplayRuling::Postpone {
                extra_time_to_opponent,
            } => {
                let bonus_ms = if extra_time_to_opponent {
                    TWO_MINUTES_MS
                } else {
                    0
                };
                self.bonus(by.other(), bonus_ms, now);
                events.push(Event::QuickplayPostponed { bonus_ms });
                // 10.2 b: the arbiter may still declare the draw, and declares the final result
                // after a flag has fallen; the postponement survives the moves that follow.
                self.quickplay_claim = None;
                self.quickplay_postponed = Some(by);
            }
            QuickplayRuling::Reject => {
                self.bonus(by.other(), TWO_MINUTES_MS, now);
                self.quickplay_claim = None;
                self.quickplay_postponed = None;
                events.push(Event::QuickplayRejected {
                    bonus_ms: TWO_MINUTES_MS,
                });
            }
        }
        // The game goes on: the claimant's clock runs again, unless the arbiter holds the clocks
        // (6.12), who then restarts them with `Resume`.
        if let Some(clock) = self.clock.as_mut()
            && clock.running().is_none()
            && !clock.is_paused()
            && self.started
        {
            clock.start(self.position.turn(), now);
        }
        Ok(())
    }

    fn bonus(&mut self, side: Color, ms: i64, now: Millis) {
        if let Some(clock) = self.clock.as_mut()
            && ms != 0
        {
            clock.add_time(side, ms, now);
        }
    }

    fn verdict(
        &mut self,
        ticket: u64,
        mateability: Mateability,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if ticket == 0 || ticket >= self.next_ticket {
            return Err(RulesError::UnknownTicket(ticket));
        }
        if self.end.is_some() {
            // The game ended meanwhile (a dead position ends it at once, 5.2 b): a late answer
            // changes nothing.
            return Ok(());
        }
        if let Some(pending) = self.pending_end.clone()
            && pending.ticket == ticket
            && !pending.awaiting_arbiter
        {
            let outcome = match mateability {
                Mateability::CannotMate => KnownOutcome::Draw,
                Mateability::CanMate => KnownOutcome::Decisive {
                    winner: pending.loser.other(),
                },
                Mateability::Undecided => {
                    // Neither proven: the arbiter rules; the game stays stopped until he does.
                    if let Some(p) = self.pending_end.as_mut() {
                        p.awaiting_arbiter = true;
                    }
                    events.push(Event::ArbiterMustRule {
                        reason: pending.reason,
                        flagged_or_offender: pending.loser,
                    });
                    return Ok(());
                }
            };
            self.pending_end = None;
            let end = GameEnd {
                outcome,
                reason: pending.reason,
                ply: pending.ply,
                at: pending.at,
            };
            self.end = Some(end);
            events.push(Event::GameEnded(end));
            return Ok(());
        }
        let Some(index) = self.dead_checks.iter().position(|&(t, ..)| t == ticket) else {
            // An answer about a position that is gone, or given twice: nothing to do.
            return Ok(());
        };
        let (_, ply, side) = self.dead_checks.remove(index);
        self.dead_answers.push((ply, side, mateability));
        let dead = Color::ALL.iter().all(|&s| {
            self.dead_answers
                .iter()
                .any(|&(p, side, m)| p == ply && side == s && m == Mateability::CannotMate)
        });
        if dead {
            // The position was dead from the move that produced it.
            let at = self.moves.last().map_or(now, |m| m.at);
            self.finish_at(KnownOutcome::Draw, EndReason::DeadPosition, at, events);
        }
        Ok(())
    }

    /// `loser` loses unless his opponent cannot mate by any series of legal moves, then it is a draw
    /// (6.9, Appendix C, 7.4 b in 2009). Decided now when the cheap test can; otherwise the result
    /// waits for an analysis (the clocks are already stopped). After a postponed 10.2 claim the
    /// arbiter declares the result of a flag fall himself (10.2 b).
    fn lose_unless_opponent_cannot_mate(
        &mut self,
        loser: Color,
        reason: EndReason,
        at: Millis,
        events: &mut Vec<Event>,
    ) {
        let winner = loser.other();
        self.halt_clock(at);
        let ticket = self.ticket();
        if matches!(reason, EndReason::FlagFall { .. }) && self.quickplay_postponed.is_some() {
            self.pending_end = Some(PendingEnd {
                ticket,
                awaiting_arbiter: true,
                loser,
                reason,
                ply: self.ply(),
                at,
            });
            events.push(Event::ArbiterMustRule {
                reason,
                flagged_or_offender: loser,
            });
            return;
        }
        if dead::quick(&self.position, winner) == Some(Mateability::CannotMate) {
            self.finish_at(KnownOutcome::Draw, reason, at, events);
            return;
        }
        self.pending_end = Some(PendingEnd {
            ticket,
            awaiting_arbiter: false,
            loser,
            reason,
            ply: self.ply(),
            at,
        });
        events.push(Event::AnalysisNeeded {
            ticket,
            query: Query {
                position: self.position.clone(),
                side: winner,
            },
        });
    }

    fn finish(
        &mut self,
        outcome: KnownOutcome,
        reason: EndReason,
        now: Millis,
        events: &mut Vec<Event>,
    ) {
        self.finish_at(outcome, reason, now, events);
    }

    fn finish_at(
        &mut self,
        outcome: KnownOutcome,
        reason: EndReason,
        at: Millis,
        events: &mut Vec<Event>,
    ) {
        self.halt_clock(at);
        self.offer = None;
        self.adjournment = None;
        self.dead_checks.clear();
        self.pending_end = None;
        self.quickplay_claim = None;
        self.quickplay_postponed = None;
        let end = GameEnd {
            outcome,
            reason,
            ply: self.ply(),
            at,
        };
        self.end = Some(end);
        events.push(Event::GameEnded(end));
    }

    /// The game is over (or its result awaits an analysis or the arbiter): no clock runs and
    /// none waits to be resumed, even when the arbiter held them (6.12) as it ended.
    fn halt_clock(&mut self, at: Millis) {
        if let Some(clock) = self.clock.as_mut()
            && (clock.running().is_some() || clock.is_paused())
        {
            clock.stop(at);
        }
    }

    /// Stop whichever clock runs; returns whether one was running.
    fn stop_clock(&mut self, now: Millis) -> bool {
        match self.clock.as_mut() {
            Some(clock) if clock.running().is_some() => {
                clock.stop(now);
                true
            }
            _ => false,
        }
    }

    fn ticket(&mut self) -> u64 {
        let t = self.next_ticket;
        self.next_ticket += 1;
        t
    }

    /// PGN of the game so far (Seven Tag Roster from `tags`, `[%clk]` comments, `(=)` for offers,
    /// the result and a `Termination` tag once the game is over).
    pub fn to_pgn(&self, tags: &[(String, String)]) -> String {
        // After a position set up by the arbiter the moves no longer follow from the start
        // position; the PGN holds the game up to there (the scoresheets keep everything).
        let exported = self.setups.first().copied().unwrap_or(self.moves.len());
        let moves: Vec<pgn::ExportMove> = self.moves[..exported]
            .iter()
            .enumerate()
            .map(|(i, r)| pgn::ExportMove {
                san: r.san,
                clock_ms: r.clocks_after.as_ref().map(|c| *c.get(r.side)),
                draw_offer: self.offers.iter().any(|o| o.on_ply == i + 1),
            })
            .collect();
        let result = match self.end.map(|e| e.outcome) {
            Some(outcome) => outcome.to_string(),
            None => "*".to_string(),
        };
        let start = (self.start != Chess::default()).then_some(&self.start);
        // The time control belongs on the record (it decides what the [%clk] values mean).
        let mut tags = tags.to_vec();
        if let Some(tc) = &self.config.time_control
            && !tags.iter().any(|(name, _)| name == "TimeControl")
        {
            tags.push(("TimeControl".to_string(), tc.to_string()));
        }
        pgn::write_pgn(&pgn::Export {
            tags: &tags,
            start,
            moves: &moves,
            result: &result,
            termination: self.end.map(|e| e.reason.termination()),
            notes: &self.clock_notes,
        })
    }

    /// The scoresheet of `owner`: the same moves and offers as the game, with his own and his
    /// opponent's clock after each move.
    pub fn scoresheet(&self, owner: Color) -> Scoresheet {
        Scoresheet {
            owner,
            entries: self
                .moves
                .iter()
                .enumerate()
                .map(|(i, r)| ScoresheetEntry {
                    ply: i + 1,
                    san: r.san.to_string(),
                    clocks_after: r.clocks_after,
                    draw_offer: self.offers.iter().find(|o| o.on_ply == i + 1).map(|o| o.by),
                })
                .collect(),
        }
    }
}

/// One player's scoresheet (Art. 8): his record of both players' moves, the draw offers and the
/// clock times. Sheets as players write them are compared move by move in [`super::sheet`] (F.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoresheet {
    pub owner: Color,
    pub entries: Vec<ScoresheetEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoresheetEntry {
    pub ply: usize,
    pub san: String,
    pub clocks_after: Option<ByColor<i64>>,
    pub draw_offer: Option<Color>,
}

/// 9.5 b (2001): more than two minutes: lose half, at most three minutes; between one and two
/// minutes: left with one minute; less than one minute: unchanged.
pub fn incorrect_claim_reduction(remaining_ms: ClockMillis) -> i64 {
    if remaining_ms > TWO_MINUTES_MS {
        remaining_ms - (remaining_ms / 2).min(THREE_MINUTES_MS)
    } else if remaining_ms > ONE_MINUTE_MS {
        ONE_MINUTE_MS
    } else {
        remaining_ms
    }
}

/// Whether `claim` by the player having the move in `position` is correct, given the positions
/// that occurred before (`history` includes `position` itself as its last entry).
pub fn claim_is_correct(position: &Chess, history: &History, claim: DrawClaim) -> bool {
    if position.is_game_over() {
        return false;
    }
    if let Some(intended) = claim.intended()
        && !position.is_legal(intended)
    {
        return false;
    }
    match claim {
        DrawClaim::Repetition { intended: None } => {
            history.occurrences(position) >= REPETITIONS_FOR_CLAIM
        }
        DrawClaim::Repetition { intended: Some(m) } => {
            let mut after = position.clone();
            after.play_unchecked(m);
            history.occurrences(&after) + 1 >= REPETITIONS_FOR_CLAIM
        }
        DrawClaim::FiftyMoves { intended: None } => position.halfmoves() >= FIFTY_MOVE_PLIES,
        DrawClaim::FiftyMoves { intended: Some(m) } => {
            // Only a move that is neither a capture nor a pawn move keeps the count going.
            let mut after = position.clone();
            after.play_unchecked(m);
            after.halfmoves() >= FIFTY_MOVE_PLIES
        }
    }
}

/// Every correct claim for the player having the move in `position`: the "b" forms first, then
/// the "a" forms with each qualifying intended move, in legal-move order.
pub fn available_claims(position: &Chess, history: &History) -> Vec<DrawClaim> {
    let mut claims = Vec::new();
    if position.is_game_over() {
        return claims;
    }
    for claim in [
        DrawClaim::Repetition { intended: None },
        DrawClaim::FiftyMoves { intended: None },
    ] {
        if claim_is_correct(position, history, claim) {
            claims.push(claim);
        }
    }
    let fifty_possible = position.halfmoves() + 1 >= FIFTY_MOVE_PLIES;
    for m in position.legal_moves() {
        let mut after = position.clone();
        after.play_unchecked(m);
        if history.occurrences(&after) + 1 >= REPETITIONS_FOR_CLAIM {
            claims.push(DrawClaim::Repetition { intended: Some(m) });
        }
        if fifty_possible && after.halfmoves() >= FIFTY_MOVE_PLIES {
            claims.push(DrawClaim::FiftyMoves { intended: Some(m) });
        }
    }
    claims
}

/// The positions of a game with their FIDE 9.2 identity (128-bit Zobrist, e.p. only when the
/// capture is legal, castling rights included), counted for repetition claims.
#[derive(Debug, Clone, Default)]
pub struct History {
    order: Vec<Zobrist128>,
    counts: std::collections::HashMap<Zobrist128, usize>,
}

impl History {
    pub fn new(start: &Chess) -> History {
        let mut h = History::default();
        h.push(start);
        h
    }
    pub fn push(&mut self, position: &Chess) {
        let id = identity(position);
        self.order.push(id);
        *self.counts.entry(id).or_default() += 1;
    }
    /// How often `position` has occurred so far.
    pub fn occurrences(&self, position: &Chess) -> usize {
        self.counts.get(&identity(position)).copied().unwrap_or(0)
    }
    pub fn len(&self) -> usize {
        self.order.len()
    }
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// The FIDE 9.2 identity of a position.
pub fn identity(position: &Chess) -> Zobrist128 {
    position.zobrist_hash(EnPassantMode::Legal)
}
