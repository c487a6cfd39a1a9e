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
//! ([`dead::quick`](crate::rules::dead::quick)) cannot tell, the game emits [`Event::AnalysisNeeded`] and waits for an
//! [`Input::Verdict`]; the caller runs [`dead::solve`](crate::rules::dead::solve) wherever it likes (see
//! [`Game::resolve_analyses`] for the synchronous way).
//!
//! Where things live: this file holds the [`Game`], what goes in ([`Input`]), what comes out
//! ([`Event`], [`RulesError`]) and the dispatch of an input to its topic. Each topic has a file
//! of its own, as `impl Game` blocks over the same private state:
//! - `admission`: which input the states that stop play take (adjourned, paused, awaiting 10.2);
//! - `moves`: how the position changes: a move (with its clock press), a set-up position (7.4 a),
//!   a retrace (F.8);
//! - `record`: the record of the game: moves, clock notes, PGN and scoresheets (Art. 8);
//! - `draw`: draw offers (9.1), claims (9.2 - 9.5) and the position history they count on;
//! - `clocks`: the clock in play: start (6.5), flags (6.9, 6.11, Appendix B), the arbiter's clock
//!   powers (6.12 - 6.14);
//! - `illegal`: illegal moves (7.4 b, Appendix C);
//! - `quickplay`: 10.2 claims and the arbiter's rulings;
//! - `adjournment`: the sealed move and resumption;
//! - `analysis`: the mateability questions (dead positions, results that wait for one);
//! - `end`: the end of the game and its result.

mod adjournment;
mod admission;
mod analysis;
mod clocks;
mod draw;
mod end;
mod illegal;
mod moves;
mod quickplay;
mod record;
#[cfg(test)]
mod tests;

use shakmaty::{ByColor, Chess, Color, KnownOutcome, Move, Position, Square};
use thiserror::Error;

use super::{
    ClockMillis, Edition, Millis, PlayMode,
    clock::Clock,
    dead::{Mateability, Query},
    time_control::TimeControl,
};

pub use adjournment::Adjournment;
pub use clocks::PauseReason;
pub use draw::{
    Article, DrawClaim, FIFTY_MOVE_PLIES, History, OfferRecord, REPETITIONS_FOR_CLAIM,
    THREE_MINUTES_MS, available_claims, claim_is_correct, identity, incorrect_claim_reduction,
};
pub use end::{EndReason, GameEnd};
pub use illegal::ILLEGAL_MOVES_THAT_LOSE;
pub use quickplay::QuickplayRuling;
pub use record::{MoveRecord, Scoresheet, ScoresheetEntry};

use analysis::PendingEnd;
use draw::PendingOffer;

/// Extra thinking time the arbiter gives for an opponent's illegal move (7.4 b) and for a 10.2
/// claim that is postponed or rejected.
pub const TWO_MINUTES_MS: i64 = 2 * 60 * 1000;

/// How a game is set up: which Laws, which appendix, which clock.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RulesConfig {
    pub edition: Edition,
    pub play: PlayMode,
    /// `None`: no clock (analysis, audits, casual play).
    pub time_control: Option<TimeControl>,
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
    /// 6.12: the arbiter interrupts the game / lets it go on; the reason is said with it.
    Pause(PauseReason),
    Resume(PauseReason),
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
        /// The notation he writes in (a language tag or name, [`notation::letters_of`]): his
        /// sealed move is read in it first, as he meant it. `None`: every notation at once.
        notation: Option<String>,
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
    /// Rapid and blitz (Appendices B and C): a flag has fallen. The arbiter does not signal it;
    /// the clock shows it (F.4: a flag the blind player can feel), and the game goes on until a
    /// player claims it. Said once per fall (a flag raised again by the arbiter may fall again).
    FlagDown {
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
    /// 6.12: the clocks stand / run again, for this reason (which the players are told).
    ClocksPaused(PauseReason),
    ClocksResumed(PauseReason),
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
    #[error("{0}'s draw offer stands until it is answered; it is not made again (9.1 a)")]
    OfferStands(Color),
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
    /// Each clock change (its amount on each clock) after the ply it happened at: the clocks
    /// proposed after a retrace keep them ([`Game::proposed_clocks`]).
    clock_changes: Vec<(usize, ByColor<ClockMillis>)>,
    /// Retraced, the clocks held until the arbiter sets them and play goes on: a clock set now
    /// is the retraced position's time, not a change.
    clocks_to_confirm: bool,
    /// Rapid and blitz: the fallen flags already shown ([`Event::FlagDown`]).
    flags_shown: ByColor<bool>,
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
            clock_changes: Vec::new(),
            clocks_to_confirm: false,
            flags_shown: ByColor::new_with(|_| false),
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
    /// Rapid and blitz: whether `side`'s fallen flag has been shown ([`Event::FlagDown`]); a
    /// shown flag is no deadline any more.
    pub fn flag_shown(&self, side: Color) -> bool {
        self.flags_shown[side]
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
    /// The player whose 10.2 claim awaits the arbiter's ruling.
    pub fn quickplay_claim(&self) -> Option<Color> {
        self.quickplay_claim
    }
    /// The result waits for the arbiter: an analysis could not decide it, or 10.2 b applies.
    pub fn result_awaits_arbiter(&self) -> bool {
        self.pending_end
            .as_ref()
            .is_some_and(|p| p.awaiting_arbiter)
    }
    /// After a retrace the clocks are held until the arbiter sets them.
    pub fn clocks_to_confirm(&self) -> bool {
        self.clocks_to_confirm
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
        next.note_clock_amounts(self, &events, now);
        if events.iter().any(|e| {
            matches!(
                e,
                Event::ClocksResumed(_) | Event::MovePlayed { .. } | Event::ClockStarted { .. }
            )
        }) {
            // Play goes on after a retrace: clock changes are changes again.
            next.clocks_to_confirm = false;
        }
        *self = next;
        Ok(events)
    }

    /// The states that stop inputs before any is dispatched: a verdict is taken always, nothing
    /// after the end, the arbiter's result before a result that waits, then the admission table
    /// and a flag that fell before the input.
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
        self.admit_awaiting_ruling(&input)?;
        self.dispatch(input, now, events)
    }

    /// Hand an admitted input to its topic.
    fn dispatch(
        &mut self,
        input: Input,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        match input {
            Input::Start => self.start(now, events)?,
            Input::Move(m) => self.play(m, now, events)?,
            Input::IllegalMove { by } => self.illegal_move(by, now, events)?,
            Input::ClaimIllegalMove { by } => self.claim_illegal_move(by, now, events)?,
            Input::OfferDraw { by } => self.offer_draw(by, now, events)?,
            Input::AcceptDraw { by } => self.accept_draw(by, now, events)?,
            Input::DeclineDraw { by } => self.decline_draw(by, events)?,
            Input::Touch { by, square: _ } => self.touch(by, events),
            Input::Resign { by } => self.resign(by, now, events),
            Input::Claim { by, claim } => self.claim(by, claim, now, events)?,
            Input::ClaimFlag { by } => self.claim_flag(by, now, events),
            Input::Tick => self.tick(now, events),
            Input::ClaimQuickplayDraw { by } => self.claim_quickplay(by, now, events)?,
            Input::QuickplayRuling(ruling) => self.quickplay_ruling(ruling, now, events)?,
            Input::Pause(reason) => self.pause(reason, now, events)?,
            Input::Resume(reason) => self.resume(reason, now, events)?,
            Input::SetClock { side, remaining_ms } => {
                self.set_clock(side, remaining_ms, now, events)?
            }
            Input::AdjustClock { side, delta_ms } => {
                self.adjust_clock(side, delta_ms, now, events)?
            }
            Input::SetMoveCounter { side, moves } => self.set_move_counter(side, moves)?,
            Input::SetPosition { position } => self.set_position(position, now, events),
            Input::Retract { to_ply } => self.retract(to_ply, now, events)?,
            Input::Seal { by, text, notation } => self.seal(by, text, notation, now, events)?,
            Input::StartReplierClock => self.start_replier_clock(now, events)?,
            Input::OpenEnvelope => self.open_envelope(now, events),
            Input::SetResumption { text } => self.set_resumption(text, events)?,
            Input::Verdict { .. } | Input::ArbiterResult { .. } => {
                unreachable!("handled before the dispatch (`apply_inner`)")
            }
        }
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
}
