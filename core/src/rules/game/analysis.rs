//! The mateability questions the game asks: whether a position reached by a move is dead (5.2 b,
//! 9.6), and whether the opponent of a player who lost on time or by an infraction can still mate
//! (6.9, 7.4 b in 2009, Appendix C). The game never runs the search itself: it hands out tickets
//! ([`Event::AnalysisNeeded`]) and consumes verdicts ([`Input::Verdict`]).

use shakmaty::{Color, KnownOutcome};

use super::{EndReason, Event, Game, GameEnd, Input, RulesError};
use crate::rules::{
    Millis,
    dead::{self, Mateability, Query},
};

/// A result waiting for a mateability verdict: `loser` loses unless `winner` cannot mate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PendingEnd {
    pub(super) ticket: u64,
    /// The search could not decide, or 10.2 b applies: only the arbiter's ruling ends it.
    pub(super) awaiting_arbiter: bool,
    pub(super) loser: Color,
    pub(super) reason: EndReason,
    pub(super) ply: usize,
    pub(super) at: Millis,
}

impl Game {
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
    /// The result the game waits to give (a search, or the arbiter, says whether the winner can
    /// still mate): who loses unless he cannot, and why.
    pub fn ending_pending(&self) -> Option<(Color, EndReason)> {
        self.pending_end.as_ref().map(|p| (p.loser, p.reason))
    }

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

    pub(super) fn verdict(
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

    /// After a move the cheap test could not prove the position dead: ask for the complete search
    /// for each side it could not settle. An undecided or late answer never ends the game.
    pub(super) fn ask_whether_dead(&mut self, events: &mut Vec<Event>) {
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

    /// `loser` loses unless his opponent cannot mate by any series of legal moves, then it is a draw
    /// (6.9, Appendix C, 7.4 b in 2009). Decided now when the cheap test can; otherwise the result
    /// waits for an analysis (the clocks are already stopped). After a postponed 10.2 claim the
    /// arbiter declares the result of a flag fall himself (10.2 b).
    pub(super) fn lose_unless_opponent_cannot_mate(
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

    pub(super) fn ticket(&mut self) -> u64 {
        let t = self.next_ticket;
        self.next_ticket += 1;
        t
    }
}
