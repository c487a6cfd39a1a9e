//! Draws by agreement and by claim: offers (9.1) as they stand and as the scoresheets write them
//! (E.12), the claims of 9.2 (repetition) and 9.3 (fifty moves) with their "a" and "b" forms, the
//! consequences of an incorrect claim (9.5 b), and the position history (9.2 identity) they are
//! judged on. The end of the game itself is `end`'s.

use shakmaty::{
    Chess, Color, EnPassantMode, KnownOutcome, Move, Position, san::SanPlus, zobrist::Zobrist128,
};

use super::{EndReason, Event, Game, RulesError, TWO_MINUTES_MS};
use crate::rules::{ClockMillis, Millis};

/// Time added to the opponent of a player whose draw claim is incorrect (9.5 b).
pub const THREE_MINUTES_MS: i64 = 3 * 60 * 1000;
const ONE_MINUTE_MS: i64 = 60 * 1000;
/// 9.3: fifty moves by each player, counted in half-moves.
pub const FIFTY_MOVE_PLIES: u32 = 100;
/// 9.2: the same position for at least the third time.
pub const REPETITIONS_FOR_CLAIM: usize = 3;

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
pub(super) struct PendingOffer {
    pub(super) by: Color,
}

impl Game {
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

    /// `by` offers a draw (9.1 b).
    pub(super) fn offer_draw(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.offer.map(|o| o.by) == Some(by.other()) {
            return Err(RulesError::CounterOffer(by));
        }
        // An offer stands until answered: the same player's offer typed again (a key pressed
        // twice) is not a second offer to say and to write down (9.1 a).
        if self.offer.map(|o| o.by) == Some(by) {
            return Err(RulesError::OfferStands(by));
        }
        self.record_offer(by, now, events);
        Ok(())
    }

    /// `by` accepts his opponent's offer: the game is drawn by agreement (9.1).
    pub(super) fn accept_draw(
        &mut self,
        by: Color,
        now: Millis,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.offer.map(|o| o.by) != Some(by.other()) {
            return Err(RulesError::NoDrawOffer(by));
        }
        self.finish(KnownOutcome::Draw, EndReason::Agreement, now, events);
        Ok(())
    }

    /// `by` declines his opponent's offer in words (9.1 a: a touch or a move declines it too).
    pub(super) fn decline_draw(
        &mut self,
        by: Color,
        events: &mut Vec<Event>,
    ) -> Result<(), RulesError> {
        if self.offer.map(|o| o.by) != Some(by.other()) {
            return Err(RulesError::NoDrawOffer(by));
        }
        self.offer = None;
        events.push(Event::DrawDeclined { by });
        Ok(())
    }

    /// `by` touched a piece as in 4.3 (see [`Input::Touch`](super::Input::Touch)).
    pub(super) fn touch(&mut self, by: Color, events: &mut Vec<Event>) {
        self.touched(by, events);
        // 9.4 of 2009: the player having the move who touches a piece as in 4.3 loses
        // his right to claim at this move (in 2001 only the move itself ends it).
        if by == self.position.turn() && self.config.edition.rules().touch_loses_right_to_claim {
            self.claim_right_lost_at = Some(self.ply());
        }
    }

    /// Write an offer by `by` on the scoresheets and make it the pending offer.
    pub(super) fn record_offer(&mut self, by: Color, now: Millis, events: &mut Vec<Event>) {
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

    pub(super) fn touched(&mut self, by: Color, events: &mut Vec<Event>) {
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

    pub(super) fn claim(
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
