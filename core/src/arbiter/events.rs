//! What the Laws' events become at the table: announcements to the player concerned or to both,
//! notes for the assistant and the arbiter, the record to write, the game over. Every input that
//! reaches the rules goes through [`Arbiter::rules`] here.

use shakmaty::{ByColor, Color};

use super::{Arbiter, Effect};
use crate::board::recognize::Mode;
use crate::{
    announce::{Announcement, Audience, ResultWords},
    rules::{
        ClockMillis, Millis,
        game::{self, EndReason, Event, GameEnd, PauseReason},
    },
};

impl Arbiter {
    /// Apply a rules input and turn its events into effects. Returns whether it was accepted.
    pub(super) fn rules(&mut self, input: game::Input, now: Millis, out: &mut Vec<Effect>) -> bool {
        // What each clock showed before: a player whose clock changes hears by how much.
        self.clocks_before = self
            .game
            .clock()
            .map(|c| (now, ByColor::new_with(|side| c.remaining(side, now))));
        match self.game.apply(input, now) {
            Ok(events) => {
                for e in events {
                    self.game_event(e, now, out);
                }
                true
            }
            Err(e) => {
                out.push(Effect::Refused(e.to_string()));
                false
            }
        }
    }

    /// The player whose clock the arbiter (or a rule) changed is told so, and by how much (a
    /// penalty's amount); his time only when he asks (F.9 d).
    fn clock_changed(&mut self, side: Color, out: &mut Vec<Effect>) {
        let by_ms = match (self.clocks_before, self.game.clock()) {
            (Some((at, before)), Some(clock)) => clock.remaining(side, at) - before[side],
            _ => 0,
        };
        self.say(
            Audience::Player(side),
            Announcement::ClockChanged { side, by_ms },
            out,
        );
    }

    pub(super) fn game_event(&mut self, event: Event, now: Millis, out: &mut Vec<Effect>) {
        let to = Audience::Player;
        match event {
            Event::MovePlayed { .. } | Event::Retracted { .. } | Event::PositionSet { .. } => {
                // An adjustment announced before a move is over with it.
                self.adjusting = None;
                out.push(Effect::RecordChanged)
            }
            Event::DrawOffered { by } => {
                if self.move_under_way(by) {
                    // 9.1 b: offered with his move, still to be announced; said after it.
                    self.offer_after_move = Some((by, self.game.ply()));
                    out.push(Effect::Note(format!(
                        "{by}'s draw offer goes with the move on {by}'s board: {} hears it \
                         after that move",
                        !by
                    )));
                } else {
                    self.say(to(!by), Announcement::DrawOffered { by }, out);
                }
                out.push(Effect::RecordChanged);
            }
            Event::DrawDeclined { by } => {
                self.say(to(!by), Announcement::DrawDeclined { by }, out);
            }
            Event::ClaimUpheld { article, .. } => {
                self.say(Audience::Both, Announcement::ClaimUpheld { article }, out);
            }
            Event::ClaimRejected {
                by,
                article,
                opponent_bonus_ms,
                claimant_remaining_ms,
                ..
            } => {
                let claimant_time_changed = claimant_remaining_ms.is_some();
                self.claim_rejected(by, article, opponent_bonus_ms, claimant_time_changed, out);
            }
            Event::FlagFell { side } => {
                self.say(Audience::Both, Announcement::FlagFell { side }, out);
            }
            Event::FlagDown { side } => {
                // Both players learn it as they would from the clock; what follows is theirs.
                self.say(Audience::Both, Announcement::FlagFell { side }, out);
                let appendix = match self.game.laws() {
                    crate::rules::PlayMode::Blitz => "Appendix C",
                    _ => "Appendix B",
                };
                let claimant = format!("`flag {}`", self.names().player(!side));
                out.push(Effect::Note(format!(
                    "{side}'s flag has fallen: under {appendix} the arbiter does not signal it; the \
                     game goes on until {} claims it ({claimant})",
                    !side
                )));
            }
            Event::IllegalMovePenalty {
                offender,
                count,
                bonus_ms,
            } => {
                out.push(Effect::Note(format!(
                    "illegal move {count} by {offender}: {} s added to the opponent (7.4 b)",
                    bonus_ms / 1000
                )));
                self.clock_changed(!offender, out);
            }
            Event::IllegalMoveClaimable { offender } => out.push(Effect::Note(format!(
                "{offender} completed an illegal move: it may be claimed (Appendix C)"
            ))),
            Event::ClocksPaused(reason) => {
                // The players hear why in the words that stop the clocks: a halt of the
                // recording and a training engine gone have words of their own, which say that
                // the clocks stand too.
                let words = match reason {
                    // A claim was said with the words of the claim (`offer_penalty`).
                    PauseReason::Arbiter | PauseReason::Claim => Announcement::ClocksPaused,
                    PauseReason::Recording => Announcement::RecordingHalted,
                    PauseReason::Opponent => Announcement::OpponentAway,
                };
                self.say(Audience::Both, words, out);
            }
            Event::ClocksResumed(reason) => {
                // The end of the cause is said first: the recording works again, the engine
                // answers again, so the clocks run.
                let cause_ended = match reason {
                    PauseReason::Arbiter | PauseReason::Claim => None,
                    PauseReason::Recording => Some(Announcement::RecordingRestored),
                    PauseReason::Opponent => Some(Announcement::OpponentBack),
                };
                if let Some(words) = cause_ended {
                    self.say(Audience::Both, words, out);
                }
                self.say(Audience::Both, Announcement::ClocksResumed, out);
                // After a retrace the boards held still; now the player to move may move. (Any
                // other pause leaves the boards as they were: a move in progress goes on.)
                self.release_hold(now, out);
            }
            Event::AnalysisNeeded { ticket, query } => out.push(Effect::Analyse { ticket, query }),
            Event::ArbiterMustRule { reason, .. } => out.push(Effect::Note(format!(
                "the arbiter declares the result ({}): `result 1-0|0-1|1/2-1/2`",
                reason.describe()
            ))),
            Event::GameEnded(end) => self.game_ended(end, now, out),
            Event::ClockStarted { side } => {
                out.push(Effect::Note(format!("{side}'s clock started")))
            }
            Event::FlagClaimRejected { by } => out.push(Effect::Note(format!(
                "{by}'s flag claim is not valid: the opponent's flag has not fallen, or both have"
            ))),
            Event::QuickplayClaimed { by } => {
                self.quickplay_claimant = Some(by);
                out.push(Effect::Note(format!(
                    "{by} claims a draw under 10.2; the arbiter rules: accept, postpone or reject"
                )));
            }
            Event::QuickplayPostponed { bonus_ms } => {
                self.quickplay_ruled("postponed", bonus_ms, out)
            }
            Event::QuickplayRejected { bonus_ms } => {
                self.quickplay_ruled("rejected", bonus_ms, out)
            }
            Event::Adjourned { by, move_number } => self.adjourned(by, move_number, now, out),
            Event::ResumptionSet => {
                if let Some(text) = self.game.adjournment().and_then(|a| a.resumption.clone()) {
                    out.push(Effect::Note(format!("resumption: {text}")));
                }
                out.push(Effect::RecordChanged);
            }
            Event::EnvelopeOpened { by } => out.push(Effect::Note(format!(
                "envelope opened: {by}'s sealed move is made"
            ))),
            Event::SealedMoveInvalid { by, text, reason } => {
                self.say(Audience::Both, Announcement::SealedMoveInvalid, out);
                out.push(Effect::Note(format!(
                    "{by}'s sealed move '{text}' is not valid ({reason}): {by} loses unless the opponent cannot mate"
                )));
            }
            Event::ClockSet { side, remaining_ms } => {
                out.push(Effect::Note(format!(
                    "{side}'s clock set to {}",
                    crate::rules::pgn::format_clk(remaining_ms)
                )));
                self.clock_changed(side, out);
            }
        }
    }

    /// Whether `by` has a move under way that his opponent has not heard yet: he is to move and
    /// his move stands, or is being made, on his board, or was entered at the console or held
    /// and waits to count. (A blind player's move is announced as soon as it stands: once it
    /// has been said, an offer follows it anyway.)
    fn move_under_way(&self, by: Color) -> bool {
        if self.game.to_move() != by || self.game.is_over() {
            return false;
        }
        if self.pending.is_some_and(|p| p.seat == by) {
            return false;
        }
        let entered = self.sighted_candidate.is_some() && self.cfg.the_sighted() == Some(by);
        let held = self.held.is_some_and(|h| h.seat == by && !h.announced);
        let on_board = self.boards[by]
            .as_ref()
            .is_some_and(|board| board.mode() == Mode::Move && !board.shows_expected());
        entered || held || on_board
    }

    /// The draw offer made with a move is said once that move has been announced (or is
    /// forgotten when it no longer stands: declined, accepted, the game over).
    pub(super) fn say_offer_after_move(&mut self, out: &mut Vec<Effect>) {
        let Some((by, ply)) = self.offer_after_move else {
            return;
        };
        if self.game.draw_offer() != Some(by) || self.game.is_over() {
            self.offer_after_move = None;
            return;
        }
        let announced = self.game.ply() > ply || self.pending.is_some_and(|p| p.seat == by);
        if announced {
            self.offer_after_move = None;
            self.say(Audience::Player(!by), Announcement::DrawOffered { by }, out);
        }
    }

    /// 9.5 b: an incorrect claim. Both hear it; the players whose clocks changed are told so.
    fn claim_rejected(
        &mut self,
        by: Color,
        article: game::Article,
        opponent_bonus_ms: ClockMillis,
        claimant_time_changed: bool,
        out: &mut Vec<Effect>,
    ) {
        self.say(Audience::Both, Announcement::ClaimRejected { article }, out);
        out.push(Effect::Note(format!(
            "{by}'s claim under {article} is incorrect (9.5 b applied)"
        )));
        if opponent_bonus_ms > 0 {
            self.clock_changed(!by, out);
        }
        if claimant_time_changed {
            self.clock_changed(by, out);
        }
    }

    /// 10.2 b or c: the arbiter postponed or rejected a claim (`ruling`); the claimant's
    /// opponent is told when his clock changed.
    fn quickplay_ruled(&mut self, ruling: &str, bonus_ms: ClockMillis, out: &mut Vec<Effect>) {
        out.push(Effect::Note(format!(
            "10.2 claim {ruling}; {} s added to the opponent",
            bonus_ms / 1000
        )));
        if bonus_ms > 0
            && let Some(claimant) = self.quickplay_claimant
        {
            self.clock_changed(!claimant, out);
        }
    }

    /// The game is adjourned: no move waits to count any more, and both boards hold still until
    /// the envelope is opened.
    fn adjourned(&mut self, by: Color, move_number: u32, now: Millis, out: &mut Vec<Effect>) {
        self.pending = None;
        self.sighted_candidate = None;
        self.press_pending = false;
        self.say(Audience::Both, Announcement::Adjourned { by }, out);
        out.push(Effect::Note(format!(
            "game adjourned: {by} sealed move {move_number}; the clocks stand until the envelope is opened"
        )));
        out.push(Effect::RecordChanged);
        self.hold_both(now, out);
    }

    /// The game is over: how it ended (where that has words of its own) and the result, to both;
    /// the record is written, nothing waits to count, and both boards hold the final position.
    fn game_ended(&mut self, end: GameEnd, now: Millis, out: &mut Vec<Effect>) {
        match end.reason {
            EndReason::Stalemate => {
                self.say(Audience::Both, Announcement::Stalemate, out);
            }
            EndReason::DeadPosition => {
                self.say(Audience::Both, Announcement::DeadPosition, out);
            }
            EndReason::Agreement => {
                self.say(Audience::Both, Announcement::DrawAccepted, out);
            }
            _ => {}
        }
        let result = match end.outcome {
            shakmaty::KnownOutcome::Decisive {
                winner: Color::White,
            } => ResultWords::WhiteWins,
            shakmaty::KnownOutcome::Decisive {
                winner: Color::Black,
            } => ResultWords::BlackWins,
            shakmaty::KnownOutcome::Draw => ResultWords::Draw,
        };
        self.say(Audience::Both, Announcement::Result(result), out);
        out.push(Effect::RecordChanged);
        out.push(Effect::GameOver(end));
        self.pending = None;
        self.sighted_candidate = None;
        self.press_pending = false;
        self.hold_both(now, out);
    }
}
