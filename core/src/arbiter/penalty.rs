//! Penalties are the arbiter's to impose: a claim that would be incorrect (9.5 b), an illegal
//! move he rules completed (7.4 b) and a time penalty he types are offered to him first, with
//! what they change ("white's claim under 9.3 b is incorrect: 9.5 b adds 3 minutes to black's
//! clock ... `confirm`"), and applied only at his `confirm`; `cancel` drops one typed in error.
//! When applied, the player whose clock changed hears by how much.

use shakmaty::Color;

use super::{Arbiter, Effect, Proposal};
use crate::{
    announce::{Announcement, Audience},
    rules::{
        Millis,
        game::{self, EndReason, Event, PauseReason},
        pgn::format_clk,
        time_control::duration_words,
    },
};

impl Arbiter {
    /// An input that may cost a penalty: a draw claim (9.2, 9.3; an incorrect one costs 9.5 b's),
    /// the arbiter's `illegal SIDE` (7.4 b) or `penalty` (13.4). Tried on a copy of the game: one
    /// that would impose a penalty is offered with its amount, the rest (a correct claim, a blitz
    /// illegal move that only opens a claim) applies at once.
    pub(super) fn propose_penalty(
        &mut self,
        input: game::Input,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let mut trial = self.game.clone();
        let events = match trial.apply(input.clone(), now) {
            Ok(events) => events,
            Err(e) => {
                out.push(Effect::Refused(e.to_string()));
                return;
            }
        };
        // A penalty that ends the game once a search has said whether the winner can still mate
        // (the 2009 text's third illegal move) ends it all the same: the arbiter confirms it.
        let ending = trial
            .ending_pending()
            .filter(|_| self.game.ending_pending().is_none());
        match self.penalty_words(&events, ending, now) {
            Some(words) => self.offer_penalty(input, words, now, out),
            // Nothing a player loses (in blitz an illegal move only opens the opponent's claim).
            None => {
                self.rules(input, now, out);
            }
        }
    }

    fn offer_penalty(
        &mut self,
        input: game::Input,
        words: String,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        self.drop_proposal(now, out);
        let mut clocks_stopped = false;
        if let game::Input::Claim { by, claim } = &input {
            // 9.5: the claimant stops both clocks and the arbiter decides; both players hear
            // that a claim was made (the sighted player reads it on a DGT 3000 too) and that
            // the clocks stand, and no time runs on while the arbiter checks the claim.
            self.say(
                Audience::Both,
                Announcement::ClaimMade {
                    by: *by,
                    article: claim.article(),
                },
                out,
            );
            if self.game.clock().is_some_and(|c| c.running().is_some()) {
                clocks_stopped = self.rules(game::Input::Pause(PauseReason::Claim), now, out);
            }
        }
        self.proposal = Some(Proposal::Penalty {
            input,
            ply: self.game.ply(),
            clocks_stopped,
        });
        let clocks = if clocks_stopped {
            "; both clocks stand until then (9.5)"
        } else {
            ""
        };
        out.push(Effect::Note(format!(
            "{words}; `confirm` applies it, `cancel` drops it (typed in error){clocks}"
        )));
    }

    /// What waited for `confirm` is dropped without being applied (another decision takes its
    /// place): clocks a claim stopped run again.
    pub(super) fn drop_proposal(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if let Some(Proposal::Penalty {
            clocks_stopped: true,
            ..
        }) = self.proposal.take()
        {
            self.restart_after_claim(now, out);
        }
    }

    /// The clocks a waiting claim stopped run again (if nobody else paused them since, the
    /// player to move's: the claimant's).
    fn restart_after_claim(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if self.game.clock().is_some_and(|c| c.is_paused()) && !self.game.is_over() {
            self.rules(game::Input::Resume(PauseReason::Claim), now, out);
        }
    }

    /// What a penalty would change, in words naming its article; `None` when the events hold
    /// no penalty.
    fn penalty_words(
        &self,
        events: &[Event],
        ending: Option<(Color, EndReason)>,
        now: Millis,
    ) -> Option<String> {
        let clock = |side: Color| self.game.clock().map(|c| c.remaining(side, now));
        let mut parts = Vec::new();
        if let Some((loser, reason)) = ending {
            parts.push(ending_words(loser, reason));
        }
        for event in events {
            match event {
                Event::ClaimRejected {
                    by,
                    article,
                    opponent_bonus_ms,
                    claimant_remaining_ms,
                    must_play,
                } => {
                    let mut what = format!("{by}'s claim under {article} is incorrect: 9.5 b ");
                    let mut changes = Vec::new();
                    if *opponent_bonus_ms > 0 {
                        changes.push(format!(
                            "adds {} to {}'s clock",
                            duration_words(*opponent_bonus_ms),
                            !*by
                        ));
                    }
                    if let (Some(after), Some(before)) = (claimant_remaining_ms, clock(*by))
                        && *after != before
                    {
                        changes.push(format!(
                            "takes {by}'s from {} to {}",
                            format_clk(before),
                            format_clk(*after)
                        ));
                    }
                    if let Some(m) = must_play {
                        changes.push(format!("{by} must play {m}"));
                    }
                    if changes.is_empty() {
                        changes.push("applies".into());
                    }
                    what.push_str(&changes.join(", "));
                    parts.push(what);
                }
                Event::IllegalMovePenalty {
                    offender,
                    count,
                    bonus_ms,
                } => parts.push(format!(
                    "illegal move {count} by {offender}: 7.4 b adds {} to {}'s clock",
                    duration_words(*bonus_ms),
                    !*offender
                )),
                Event::GameEnded(end) => parts.push(format!(
                    "the game ends {} ({})",
                    end.outcome,
                    end.reason.describe()
                )),
                Event::ClockSet { side, remaining_ms } => {
                    if let Some(before) = clock(*side)
                        && before != *remaining_ms
                    {
                        parts.push(format!(
                            "13.4: {side}'s clock goes from {} to {}",
                            format_clk(before),
                            format_clk(*remaining_ms)
                        ));
                    }
                }
                _ => {}
            }
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The arbiter confirmed a penalty: applied now, if the game is still where it was offered.
    pub(super) fn apply_penalty(
        &mut self,
        input: game::Input,
        ply: usize,
        clocks_stopped: bool,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        if ply != self.game.ply() {
            out.push(Effect::Refused(
                "not applied: a move was made since it was offered; type it again".into(),
            ));
        } else if input == game::Input::OpenEnvelope {
            self.open_confirmed(now, out);
        } else {
            // A claim's penalty is applied to the times as they stood when it was made: the
            // clocks stood since.
            self.rules(input, now, out);
        }
        if clocks_stopped {
            self.restart_after_claim(now, out);
        }
    }

    /// The arbiter drops what was offered to him.
    pub(super) fn cancel(&mut self, now: Millis, out: &mut Vec<Effect>) {
        match self.proposal.take() {
            None => out.push(Effect::Refused("nothing waits for `confirm`".into())),
            Some(Proposal::Retrace { .. }) => out.push(Effect::Note(
                "the retrace is not done; the boards are put right instead (F.8)".into(),
            )),
            Some(Proposal::Penalty { clocks_stopped, .. }) => {
                out.push(Effect::Note("dropped: no penalty is applied".into()));
                if clocks_stopped {
                    self.restart_after_claim(now, out);
                }
            }
        }
    }
}

/// A result that waits for the search: `loser` loses unless his opponent cannot mate.
pub(super) fn ending_words(loser: Color, reason: EndReason) -> String {
    format!(
        "the game ends: {loser} loses ({}), or it is drawn if {} cannot mate",
        reason.describe(),
        !loser
    )
}
