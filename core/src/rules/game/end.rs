//! The end of the game: why it ended ([`EndReason`], with its PGN termination and its words), the
//! result the Laws give ([`GameEnd`]), and the inputs that end it directly: resignation and the
//! arbiter's declared result. Results that wait for a mateability verdict are `analysis`'.

use shakmaty::{Color, KnownOutcome};

use super::{Article, Event, Game};
use crate::rules::Millis;

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

impl Game {
    /// `by` resigns: his opponent wins.
    pub(super) fn resign(&mut self, by: Color, now: Millis, events: &mut Vec<Event>) {
        self.finish(
            KnownOutcome::Decisive { winner: by.other() },
            EndReason::Resignation,
            now,
            events,
        );
    }

    /// The arbiter decides the result; a result awaiting him keeps the instant and ply it arose
    /// at.
    pub(super) fn arbiter_result(
        &mut self,
        outcome: KnownOutcome,
        now: Millis,
        events: &mut Vec<Event>,
    ) {
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

    pub(super) fn finish(
        &mut self,
        outcome: KnownOutcome,
        reason: EndReason,
        now: Millis,
        events: &mut Vec<Event>,
    ) {
        self.finish_at(outcome, reason, now, events);
    }

    pub(super) fn finish_at(
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
}
