//! Move recognition: from a board's lift and place events to touches, completed moves, executed
//! moves and differences.
//!
//! This module owns the rules that turn sensor events into facts the arbiter can act on. It is
//! pure: events come in with the time they arrived, facts go out as values, and the only notion
//! of waiting is [`Recognizer::next_deadline`], which the shell turns into a timer and answers with
//! [`Recognizer::tick`].
//!
//! A board is judged by what it shows, never by the order in which events arrived. At every
//! change, every new expectation and every deadline the resting state is compared with the few
//! positions that can matter in the board's [`Mode`]:
//! - the expected position (nothing to do);
//! - the position after a legal move of the player to move, on his own board: it **completes**
//!   that move. On a board that only senses occupancy, equal occupancy is not enough for a
//!   capture: the captured piece must have been lifted, and the capturing piece placed on its
//!   square after the mover was lifted (otherwise "bishop lifted and still in the hand" would read
//!   as "bishop took on f7"). That history is kept until the board rests on its expected position,
//!   so a capture made before the arbiter asked for it still counts;
//! - the position after the opponent's move the board has to execute: it is **executed**,
//!   whenever that happened; and after that move plus one legal reply of the board's player: he
//!   executed it and has already made his own move (the arbiter then asks for that move, and the
//!   board completes it);
//! - while the opponent is to move ([`Mode::Await`]), the position after one of his legal moves
//!   (or that move and a reply): the board's player executed a move he heard said aloud (F.1)
//!   before tactus counted it. That is not a difference; it becomes the executed move, or is
//!   guided when the opponent's move turns out to be another;
//! - a state **on the way** to one of these (a piece in the hand, a capture half done);
//! - anything else that rests for the profile's `differs_after_ms` **differs**, and the diff says
//!   square by square what is there and what belongs there.
//!
//! Timing follows the profile. On the tactile board a move is executed the moment the piece is
//! placed into a different aperture (Appendix F.3 b), so `settle_ms` is 0 there. A DGT board
//! samples its squares one after another, so a change is reported up to a sweep late, the halves
//! of a move come in either order and a slid piece shows the squares it passes over. A completing
//! state is confirmed by a full reading, asked for the moment it appears; a move the board can
//! already tell (its piece cannot still be travelling, and no other piece of its kind could have
//! gone there) counts at that reading; one it cannot tell yet ([`may_still_change`]) only once a
//! whole sweep (`scan_ms`) has passed without a change. Where the player's clock
//! press completes his move ([`Recognizer::with_press_completion`]), the rest is not waited for:
//! the press counts what the board shows as soon as a reading confirms it, and a move that ends the
//! game counts without a press.

use shakmaty::{Bitboard, Board, Chess, Move, Piece, Position, Role, Square};

use super::profile::Profile;
use super::{Sensed, Sensing, SensorEvent};
use crate::rules::Millis;

/// A full reading asked for and not answered (a board that dropped the request, a cable pulled) is
/// asked for again after this long.
pub const SNAPSHOT_RETRY_MS: Millis = 1000;

/// The timing and capabilities the recogniser needs from a board profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecognizerConfig {
    pub sensing: Sensing,
    /// How long a completing state must rest before it counts (0: at once).
    pub settle_ms: Millis,
    /// How long the board may take to report a change (a DGT board samples its squares one after
    /// another, a sweep of 200-250 ms; 0 for a board that reports every change at once). A move
    /// the board cannot tell yet ([`may_still_change`]: a square a slid piece passed can show
    /// that long) rests this long; after a clock press, a reading taken this long after it holds
    /// every change made before it.
    pub scan_ms: Millis,
    /// A lift followed by a placement on the same square within this time is sensor bounce.
    pub bounce_ms: Millis,
    /// How long a wrong state must rest before it is reported as differing.
    pub differs_after_ms: Millis,
    /// Ask for a full reading before reporting a completed move.
    pub confirm_with_snapshot: bool,
}

impl RecognizerConfig {
    /// The recogniser's part of a board profile.
    pub fn from_profile(profile: &Profile) -> RecognizerConfig {
        RecognizerConfig {
            sensing: profile.sensing,
            settle_ms: profile.timing.settle_ms,
            scan_ms: profile.timing.scan_ms,
            bounce_ms: profile.timing.bounce_ms,
            differs_after_ms: profile.timing.differs_after_ms,
            confirm_with_snapshot: profile.timing.confirm_with_snapshot,
        }
    }
}

/// What the board is expected to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The player having the move in the expected position makes his move on this board; his
    /// lifts are touches (F.2, Art. 4).
    Move,
    /// The player executes the given move (his opponent's, already announced) on this board;
    /// his lifts are not touches of his own move.
    Execute(Move),
    /// The opponent of this board's player is to move in the expected position: the board should
    /// keep showing it, but may run ahead by the opponent's move (and a reply), which its player
    /// executed as he heard it. Lifts are not touches.
    Await,
    /// The board should show the expected position exactly (after a retrace, after the game, a
    /// refused move being put back): nothing else is accepted.
    Hold,
}

/// What stands on a square that is not as it should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Empty,
    /// The board identifies pieces and this one stands there.
    Piece(Piece),
    /// The board only knows the aperture is occupied; `likely` is the piece that, by the events
    /// seen, was put there.
    Occupied {
        likely: Option<Piece>,
    },
}

/// One square that is not as it should be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquareDiff {
    pub square: Square,
    pub expected: Option<Piece>,
    pub found: Found,
}

/// Everything that differs between the board and the position it should show, in square order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoardDiff {
    pub squares: Vec<SquareDiff>,
}

/// A fact for the arbiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recognized {
    /// A piece was lifted by the player making his move: a touch (F.2, Art. 4.3).
    Touched {
        square: Square,
        piece: Option<Piece>,
    },
    /// A piece was lifted while executing the opponent's move or while no move is expected.
    Lifted {
        square: Square,
        piece: Option<Piece>,
    },
    /// A legal move has been executed on the board. `touches` lists the squares lifted for it,
    /// in order (rook before king shows here, Art. 4.4 b).
    MoveCompleted { mv: Move, touches: Vec<Square> },
    /// A pawn reached the last rank on a board that cannot tell which piece replaced it: the
    /// move waits for the announced piece ([`Recognizer::promotion`]); it is never guessed.
    PromotionPending { from: Square, to: Square },
    /// The pawn of a [`Recognized::PromotionPending`] was taken off its promotion square and
    /// the board now rests otherwise (put back where it came from, or on another square): he
    /// released it there, so under 4.6 c the move is not made but he may no longer play the pawn
    /// to another square. A pawn lifted to be exchanged for its piece is not this.
    PromotionLeft { from: Square, to: Square },
    /// The move of [`Mode::Execute`] stands on the board (perhaps with the player's own reply).
    Executed,
    /// The board rests in a state that is neither expected nor on the way to a legal move.
    Differs(BoardDiff),
    /// After a [`Recognized::Differs`], the board no longer rests on a wrong position: it shows
    /// what it should again, or is on its way to the move it must make.
    Matches,
    /// A full reading showed squares that differ from what the events had built (events were
    /// missed, e.g. while the board was disconnected).
    SnapshotCorrected { squares: Bitboard },
    /// Effect: ask the board for a full reading.
    RequestSnapshot,
    /// The player pressed his clock ([`Recognizer::press`]) and the board, read in full, shows no
    /// completed move of his.
    NoMove,
    /// While his opponent is to move (and the opponent's move is not on this board), the board
    /// shows a move of its own player's (`Some`): made before his turn, it is no move. `None`:
    /// the board no longer shows it (taken back). Said on every change.
    OutOfTurn { mv: Option<Move> },
}

/// The board as the sensors describe it, plus what we believe stands where on an occupancy
/// board (from the expected position and the events since).
#[derive(Debug, Clone)]
struct State {
    occupied: Bitboard,
    /// Identity boards: the sensed pieces. Occupancy boards: the believed pieces.
    pieces: Board,
    /// Pieces lifted and not yet placed (occupancy boards), most recent last.
    hand: Vec<Piece>,
}

/// What a state means in the board's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// The expected position.
    Expected,
    /// Counts once it has rested and been confirmed: a completed move, or (`None`) the move to
    /// execute.
    Counts(Option<Move>),
    /// A promotion on an occupancy board, waiting for its piece.
    Promotion(Square, Square),
    /// On the way to something that counts, or ahead of the game: nothing to say yet.
    Fine,
    /// [`Mode::Await`]: the player's own move, made before his opponent's.
    OutOfTurn(Move),
    /// Wrong: reported as differing from this position once it rests.
    Wrong,
}

/// Readings asked for at most at once: a board that does not answer is asked again, but not
/// without end.
const READINGS_IN_FLIGHT: usize = 4;

/// The full readings asked for to confirm a state.
#[derive(Debug, Clone, Default)]
struct Confirmation {
    /// Readings asked for (at these times, oldest first) and not come yet. A board answers in
    /// order, so a reading answers the oldest; if one answer is lost, the next is credited to an
    /// earlier request than its own, which only ever makes it count for less.
    requested: std::collections::VecDeque<Millis>,
    /// A reading has come since the state last changed (the state is the board's own word); it
    /// was asked for at this time.
    confirmed: Option<Millis>,
    /// Answers still due to requests given up on: credited to no time at all when they come.
    given_up: usize,
}

impl Confirmation {
    /// The latest reading asked for and not come yet.
    fn requested_at(&self) -> Option<Millis> {
        self.requested.back().copied()
    }
}

/// The recogniser for one board. See the module docs.
#[derive(Debug, Clone)]
pub struct Recognizer {
    cfg: RecognizerConfig,
    expected: Chess,
    mode: Mode,
    state: State,
    /// Event sequence numbers: last lift and last placement per square, for the capture rule.
    /// Kept across new expectations until the board rests on its expected position.
    seq: u64,
    lifted_at: [u64; 64],
    placed_at: [u64; 64],
    touches: Vec<Square>,
    /// A lift held back to see whether it is sensor bounce.
    held_lift: Option<(Millis, Square)>,
    /// A placement on the held lift's square while a piece is in the hand: either that piece
    /// quickly replacing a captured one, or the sensor chattering. Held until the bounce time
    /// tells which (another lift of the square within it: chatter).
    held_place: Option<(Millis, Square)>,
    /// When the state last changed (the settle time runs from here).
    changed_at: Millis,
    /// When the expectation last changed (a new expectation gives the player time before his
    /// board is said to differ).
    expected_at: Millis,
    /// A state that counts, waiting for its rest or its confirming reading.
    candidate: Option<Option<Move>>,
    confirmation: Confirmation,
    /// The last state was built from a snapshot, not from events: captures on an occupancy board
    /// cannot be told from a lifted piece then, so they wait for a longer rest.
    from_snapshot: bool,
    promotion: Option<(Square, Square)>,
    /// The promotion whose pawn was released on its square this move (4.6 c), until the pawn
    /// is seen to leave it ([`Recognized::PromotionLeft`]) or the move counts.
    released: Option<(Square, Square)>,
    /// The diff last reported, so that a resting state is reported once.
    reported: Option<BoardDiff>,
    /// The state is wrong and not yet reported: a difference comes due after the rest time.
    differs_pending: bool,
    /// The player's clock press completes his move, not the board's rest.
    press_completion: bool,
    /// He pressed (at this time): count what the board shows as soon as a reading confirms it.
    pressed: Option<Millis>,
    /// The time of the last call, for [`Recognizer::next_deadline`].
    now: Millis,
    /// Disconnected, and not read since: asking it for a reading is pointless.
    away: bool,
    /// A move the game refused: it does not complete here (its position is a difference to
    /// guide back from), any other legal move does.
    refused: Option<Move>,
    /// The move of its own player's the board was last said to show out of turn.
    out_of_turn: Option<Move>,
    /// The event count when the board last stopped awaiting the opponent's move (it counted):
    /// a piece placed before it was placed before its player's turn.
    left_await_seq: u64,
    /// See [`Recognizer::last_move_placed_before_turn`].
    last_placed_before_turn: bool,
    /// The opponent's move was made ([`Recognizer::opponent_moved`]) while this board awaited
    /// it: `left_await_seq` is then when.
    opponent_marked: bool,
}

impl Recognizer {
    /// A recogniser for a board that should show `expected`. Until a snapshot arrives, the board
    /// is assumed to show it.
    pub fn new(cfg: RecognizerConfig, expected: Chess, mode: Mode) -> Recognizer {
        let state = State {
            occupied: expected.board().occupied(),
            pieces: expected.board().clone(),
            hand: Vec::new(),
        };
        Recognizer {
            cfg,
            expected,
            mode,
            state,
            seq: 0,
            lifted_at: [0; 64],
            placed_at: [0; 64],
            touches: Vec::new(),
            held_lift: None,
            held_place: None,
            changed_at: 0,
            expected_at: 0,
            candidate: None,
            confirmation: Confirmation::default(),
            from_snapshot: false,
            promotion: None,
            released: None,
            reported: None,
            differs_pending: false,
            press_completion: false,
            pressed: None,
            now: 0,
            away: false,
            refused: None,
            out_of_turn: None,
            left_await_seq: 0,
            last_placed_before_turn: false,
            opponent_marked: false,
        }
    }

    /// The player's own moves count when he presses his clock ([`Recognizer::press`]), not when
    /// the board has rested; a move that ends the game still counts without a press (5.1 a, 5.2).
    pub fn with_press_completion(mut self) -> Recognizer {
        self.press_completion = true;
        self
    }

    pub fn expected(&self) -> &Chess {
        &self.expected
    }
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The occupied squares as sensed now.
    pub fn occupied(&self) -> Bitboard {
        self.state.occupied
    }
    /// What the board shows now (sensed pieces, or believed pieces on an occupancy board).
    pub fn pieces(&self) -> &Board {
        &self.state.pieces
    }
    /// Whether the board shows the expected position now.
    /// The opponent's move has been made on his board (it may not count yet): a move of this
    /// board's player made from now on is a reply, not a move out of turn.
    pub fn opponent_moved(&mut self) {
        self.left_await_seq = self.seq;
        self.opponent_marked = true;
    }

    /// Whether the last move completed here ([`Recognized::MoveCompleted`]) had its piece put
    /// on its square before its player's turn began (while the board awaited his opponent's
    /// move), and not lifted since: a move made out of turn.
    pub fn last_move_placed_before_turn(&self) -> bool {
        self.last_placed_before_turn
    }

    /// Whether the piece on `square` was put there before its player's turn began (while the
    /// board awaited his opponent's move), and has not been lifted since.
    fn placed_before_turn(&self, square: Square) -> bool {
        let at = self.placed_at[usize::from(square)];
        at != 0 && at <= self.left_await_seq
    }

    /// Whether the board shows `board` (the state as sensed, or believed on an occupancy board).
    pub fn shows_board(&self, board: &Board) -> bool {
        self.shows(board)
    }

    /// Whether the board shows the position it should.
    pub fn shows_expected(&self) -> bool {
        self.shows(self.expected.board())
    }

    /// Whether the board's player has promoted a pawn ahead of the opponent's move being counted:
    /// the board shows the opponent's move (awaited or to execute) and then a promotion of his.
    pub fn shows_promotion_ahead(&self) -> bool {
        let firsts: Vec<Chess> = match self.mode {
            Mode::Await => self
                .expected
                .legal_moves()
                .into_iter()
                .map(|m| {
                    let mut after = self.expected.clone();
                    after.play_unchecked(m);
                    after
                })
                .collect(),
            Mode::Execute(m) => {
                let mut after = self.expected.clone();
                after.play_unchecked(m);
                vec![after]
            }
            Mode::Move | Mode::Hold => return false,
        };
        firsts.iter().any(|first| {
            first.legal_moves().into_iter().any(|p| {
                p.is_promotion() && {
                    let mut after = first.clone();
                    after.play_unchecked(p);
                    self.shows(after.board())
                }
            })
        })
    }

    /// A new position to show and a new mode (the arbiter accepted a move, or the opponent's
    /// move is to be executed). The sensed state carries over and is judged again at once.
    pub fn set_expected(&mut self, expected: Chess, mode: Mode, now: Millis) -> Vec<Recognized> {
        self.expect(expected, mode, None, now)
    }

    /// [`Recognizer::set_expected`] in [`Mode::Move`] after the game refused `refused`: that
    /// move never completes here (the board is guided back from it); any other legal one does.
    pub fn set_expected_refusing(
        &mut self,
        expected: Chess,
        refused: Move,
        now: Millis,
    ) -> Vec<Recognized> {
        self.expect(expected, Mode::Move, Some(refused), now)
    }

    fn expect(
        &mut self,
        expected: Chess,
        mode: Mode,
        refused: Option<Move>,
        now: Millis,
    ) -> Vec<Recognized> {
        self.now = self.now.max(now);
        self.refused = refused;
        self.out_of_turn = None;
        // The turn passes when the opponent's move was made (marked), else when it counts.
        if self.mode == Mode::Await && mode != Mode::Await && !self.opponent_marked {
            self.left_await_seq = self.seq;
        }
        if mode == Mode::Await && self.mode != Mode::Await {
            self.opponent_marked = false;
        }
        self.expected = expected;
        self.mode = mode;
        self.touches.clear();
        self.candidate = None;
        self.promotion = None;
        self.released = None;
        self.reported = None;
        self.differs_pending = false;
        self.pressed = None;
        self.expected_at = now;
        if self.shows(self.expected.board()) {
            // Resting on what it should show: nothing before this matters to the capture rule.
            self.lifted_at = [0; 64];
            self.placed_at = [0; 64];
            if self.cfg.sensing == Sensing::Occupancy {
                // Believe it holds exactly the expected pieces.
                self.state.pieces = self.expected.board().clone();
                self.state.hand.clear();
            }
        }
        let mut out = Vec::new();
        self.evaluate(now, &mut out);
        out
    }

    /// One sensor event at `now`.
    pub fn event(&mut self, event: SensorEvent, now: Millis) -> Vec<Recognized> {
        self.now = self.now.max(now);
        let mut out = Vec::new();
        match event {
            SensorEvent::Lift { square } => {
                if let Some((at, held)) = self.held_place
                    && held == square
                    && now.saturating_sub(at) <= self.cfg.bounce_ms
                {
                    // Lift, placement, lift of one aperture within the bounce time: the sensor
                    // chattered around a lift, which still stands (held as before).
                    self.held_place = None;
                    return out;
                }
                if self.cfg.sensing == Sensing::Occupancy && self.cfg.bounce_ms > 0 {
                    self.flush_held(now, &mut out);
                    self.held_lift = Some((now, square));
                    return out;
                }
                self.lift(square, now, &mut out);
            }
            SensorEvent::Place { square, piece } => {
                if let Some((at, held)) = self.held_lift
                    && self.held_place.is_none()
                    && held == square
                    && now.saturating_sub(at) <= self.cfg.bounce_ms
                {
                    if self.state.hand.is_empty() {
                        // Lift and placement of one aperture within the bounce time and nothing
                        // else in the hand: the sensor chattered, nothing moved.
                        self.held_lift = None;
                    } else {
                        // A piece in the hand may be quickly replacing the one just removed (a
                        // capture): wait the bounce time to see whether the sensor chatters on.
                        self.held_place = Some((now, square));
                    }
                    return out;
                }
                self.flush_held(now, &mut out);
                self.place(square, piece, now, &mut out);
            }
            SensorEvent::Snapshot(sensed) => {
                self.flush_held(now, &mut out);
                self.snapshot(sensed, now, &mut out);
            }
            SensorEvent::Button(_) => {}
        }
        out
    }

    /// The piece announced for a pending promotion on an occupancy board.
    pub fn promotion(&mut self, role: Role, now: Millis) -> Vec<Recognized> {
        self.now = self.now.max(now);
        let mut out = Vec::new();
        if let Some((from, to)) = self.promotion
            && let Some(m) = self
                .expected
                .legal_moves()
                .into_iter()
                .find(|m| m.from() == Some(from) && m.to() == to && m.promotion() == Some(role))
        {
            self.promotion = None;
            // The new piece stands where the pawn was placed.
            self.state.pieces.set_piece_at(
                to,
                Piece {
                    color: self.expected.turn(),
                    role,
                },
            );
            self.complete(m, now, &mut out);
        }
        out
    }

    /// The player stopped his clock (6.7 a): his move is what the board shows. It counts at once
    /// when the board's last reading already shows it; otherwise a full reading is asked for
    /// first. A move that appears within a scan of the press ([`RecognizerConfig::scan_ms`]: the board
    /// still scanning the piece just placed) counts too; then [`Recognized::NoMove`] answers the press. Only in
    /// [`Mode::Move`]; elsewhere nothing happens (the arbiter keeps the press).
    pub fn press(&mut self, now: Millis) -> Vec<Recognized> {
        self.now = self.now.max(now);
        let mut out = Vec::new();
        if self.mode != Mode::Move {
            return out;
        }
        self.pressed = Some(now);
        self.flush_held(now, &mut out);
        self.evaluate(now, &mut out);
        self.press_step(now, &mut out);
        out
    }

    /// After a press that no move answers yet: the reading that must cover it before "no move"
    /// is said, one taken a scan after the press (it holds every change made before it). A move
    /// on the board is [`Recognizer::try_count`]'s.
    fn press_wants_cover(&self, now: Millis) -> Option<Millis> {
        let at = self.pressed?;
        if self.mode != Mode::Move
            || self.promotion.is_some()
            || self.candidate.is_some()
            || self.press_covered(at, now)
        {
            return None;
        }
        Some(at + self.cfg.scan_ms)
    }

    /// Move a press on: ask for the reading that covers it once a scan has passed (or at once,
    /// once, when the board may already show the move), and answer "no move" once a covering
    /// reading shows none.
    fn press_step(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        let Some(at) = self.pressed else {
            return;
        };
        if self.mode != Mode::Move || self.promotion.is_some() {
            return;
        }
        if self.candidate.is_none() && self.press_covered(at, now) {
            self.pressed = None;
            out.push(Recognized::NoMove);
            return;
        }
        let Some(due) = self.press_wants_cover(now) else {
            return;
        };
        if !self.cfg.confirm_with_snapshot {
            // Nothing to ask: the deadline brings the press back when the scan has passed.
            return;
        }
        let asked_late_enough = self.confirmation.requested_at().is_some_and(|r| r >= due);
        if now >= due && !asked_late_enough {
            self.request_snapshot(now, out);
        } else if now < due
            && self.candidate.is_none()
            && self.confirmation.confirmed.is_none()
            && self.confirmation.requested.is_empty()
        {
            // The board may have found the piece already: read it now too.
            self.request_snapshot(now, out);
        }
    }

    /// The board was disconnected: events may be lost until the next snapshot, and nothing is
    /// asked of it until then (its reconnection brings a reading).
    pub fn disconnected(&mut self, _now: Millis) {
        self.held_lift = None;
        self.held_place = None;
        self.candidate = None;
        self.confirmation = Confirmation::default();
        self.away = true;
    }

    /// Time passes: settle times, bounce filtering, unanswered readings and differences come due.
    pub fn tick(&mut self, now: Millis) -> Vec<Recognized> {
        self.now = self.now.max(now);
        let mut out = Vec::new();
        if let Some(due) = self.held_due()
            && now >= due
        {
            self.flush_held(now, &mut out);
        }
        if let Some(&at) = self.confirmation.requested.front()
            && now >= at + SNAPSHOT_RETRY_MS
        {
            // Unanswered: give the requests up (their late answers count for nothing) and ask
            // once more.
            self.confirmation.given_up += self.confirmation.requested.len();
            self.confirmation.requested.clear();
            self.request_snapshot(now, &mut out);
        }
        self.evaluate(now, &mut out);
        self.press_step(now, &mut out);
        out
    }

    /// When [`Recognizer::tick`] should next be called, if anything is waiting.
    pub fn next_deadline(&self) -> Option<Millis> {
        let mut deadlines = Vec::new();
        deadlines.extend(self.held_due());
        if let Some(&at) = self.confirmation.requested.front() {
            deadlines.push(at + SNAPSHOT_RETRY_MS);
        }
        if let Some(candidate) = self.candidate
            && self.may_count(candidate)
            && !self.needs_confirmation()
        {
            let rest = self.settle_for(candidate);
            // Behind a reading still on the line, its arrival brings the state back.
            if rest <= self.cfg.settle_ms || self.confirmation.requested.is_empty() {
                deadlines.push(self.changed_at + rest);
            }
        }
        if let Some(due) = self.press_wants_cover(self.now)
            && self.confirmation.requested_at().is_none_or(|r| r < due)
            && !self.away
        {
            // A scan after the press a covering reading is asked for (once asked, its arrival
            // brings the press back).
            deadlines.push(due);
        }
        if self.differs_pending {
            deadlines.push(self.rest_from() + self.cfg.differs_after_ms);
        }
        deadlines.into_iter().min()
    }

    /// How long a state that counts must rest: longer when it was read from a snapshot on an
    /// occupancy board. On a board that reports changes late (`scan_ms`, a DGT board's sweep) a
    /// move counts at its confirming reading when the board can already tell it (the piece
    /// cannot still be travelling, and no other piece could have made it: a knight's move, a
    /// capture, castling done, a pawn's step that cannot become a double step, a slider against
    /// the edge or a piece); a move the board cannot tell yet ([`Recognizer::may_still_change`])
    /// is the board's true state only once a whole scan has passed without a change. An execution
    /// of the opponent's move waits the scan too.
    fn settle_for(&self, candidate: Option<Move>) -> u64 {
        if self.from_snapshot && self.cfg.sensing == Sensing::Occupancy {
            return self.cfg.settle_ms.max(self.cfg.differs_after_ms);
        }
        let scan = match candidate {
            Some(m) if !may_still_change(&self.expected, m) => 0,
            _ => self.cfg.scan_ms,
        };
        self.cfg.settle_ms.max(scan)
    }

    /// A wrong state is reported after resting this long from the later of its last change and
    /// the last new expectation.
    fn rest_from(&self) -> Millis {
        self.changed_at.max(self.expected_at)
    }

    /// When held events stop being possible bounce: the bounce time after the later of them.
    fn held_due(&self) -> Option<Millis> {
        self.held_place
            .or(self.held_lift)
            .map(|(at, _)| at + self.cfg.bounce_ms)
    }

    fn flush_held(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        if let Some((_, square)) = self.held_lift.take() {
            self.lift(square, now, out);
        }
        if let Some((_, square)) = self.held_place.take() {
            self.place(square, None, now, out);
        }
    }

    fn lift(&mut self, square: Square, now: Millis, out: &mut Vec<Recognized>) {
        // 4.6: a piece lifted from where it had come to rest as a legal move (released there,
        // on a board whose moves count at the clock press): a touch, that the move made may
        // be told as "released on c6, then moved on".
        let released = self.mode == Mode::Move
            && matches!(self.candidate, Some(Some(m)) if m.to() == square)
            && now.saturating_sub(self.changed_at) >= self.settle_for(self.candidate.flatten());
        let piece = self.state.pieces.piece_at(square);
        let was_occupied = self.state.occupied.contains(square);
        self.state.occupied.discard(square);
        self.state.pieces.discard_piece_at(square);
        if let Some(p) = piece
            && self.cfg.sensing == Sensing::Occupancy
        {
            self.state.hand.push(p);
        }
        self.seq += 1;
        self.lifted_at[usize::from(square)] = self.seq;
        self.changed(now);
        // A sliding DGT piece "leaves" squares it only passed over: only a piece that stood in
        // the expected position, or anything on a tactile board, is a touch.
        let counts = match self.cfg.sensing {
            Sensing::Occupancy => was_occupied,
            Sensing::Identity => {
                piece.is_some() && (self.expected.board().piece_at(square).is_some() || released)
            }
        };
        if counts {
            if self.mode == Mode::Move {
                self.touches.push(square);
                out.push(Recognized::Touched { square, piece });
            } else {
                out.push(Recognized::Lifted { square, piece });
            }
        }
        self.evaluate(now, out);
    }

    fn place(
        &mut self,
        square: Square,
        piece: Option<Piece>,
        now: Millis,
        out: &mut Vec<Recognized>,
    ) {
        let piece = match (self.cfg.sensing, piece) {
            (Sensing::Identity, p) => p,
            (Sensing::Occupancy, _) => self.take_from_hand(),
        };
        self.state.occupied.add(square);
        match piece {
            Some(p) => self.state.pieces.set_piece_at(square, p),
            None => {
                self.state.pieces.discard_piece_at(square);
            }
        }
        self.seq += 1;
        self.placed_at[usize::from(square)] = self.seq;
        self.changed(now);
        self.evaluate(now, out);
    }

    /// The piece an occupancy board most likely just placed: the mover's most recently lifted
    /// piece (a captured piece leaves the board), else whatever was lifted last.
    fn take_from_hand(&mut self) -> Option<Piece> {
        let mover = self.expected.turn();
        let index = self
            .state
            .hand
            .iter()
            .rposition(|p| p.color == mover)
            .or_else(|| self.state.hand.len().checked_sub(1))?;
        Some(self.state.hand.remove(index))
    }

    fn snapshot(&mut self, sensed: Sensed, now: Millis, out: &mut Vec<Recognized>) {
        self.away = false;
        let corrected = sensed.occupied() ^ self.state.occupied;
        let corrected = match &sensed {
            Sensed::Pieces(board) => {
                let mut squares = corrected;
                for sq in Square::ALL {
                    if board.piece_at(sq) != self.state.pieces.piece_at(sq) {
                        squares.add(sq);
                    }
                }
                squares
            }
            Sensed::Occupancy(_) => corrected,
        };
        match sensed {
            Sensed::Pieces(board) => {
                self.state.occupied = board.occupied();
                self.state.pieces = board;
            }
            Sensed::Occupancy(occupied) => {
                // Keep believed pieces where the aperture is still occupied; forget the rest.
                for sq in self.state.occupied & !occupied {
                    self.state.pieces.discard_piece_at(sq);
                }
                self.state.occupied = occupied;
            }
        }
        if !corrected.is_empty() {
            self.from_snapshot = true;
            self.changed(now);
            out.push(Recognized::SnapshotCorrected { squares: corrected });
        }
        // Whatever it corrected, the state is now the board's own word. (A reading is never
        // older than the updates that came before it on the line.)
        let asked = if self.confirmation.given_up > 0 {
            self.confirmation.given_up -= 1;
            0
        } else {
            self.confirmation.requested.pop_front().unwrap_or(now)
        };
        self.confirmation.confirmed = Some(asked);
        self.evaluate(now, out);
        self.press_step(now, out);
    }

    fn changed(&mut self, now: Millis) {
        self.changed_at = now;
        self.differs_pending = false;
        self.candidate = None;
        // A reading asked for stays asked for: when it comes it is newer than this change.
        self.confirmation.confirmed = None;
    }

    fn request_snapshot(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        if self.away || self.confirmation.requested.len() >= READINGS_IN_FLIGHT {
            return;
        }
        self.confirmation.requested.push_back(now);
        out.push(Recognized::RequestSnapshot);
    }

    /// Whether the sensed state shows `board` (by identity, or by occupancy).
    fn shows(&self, board: &Board) -> bool {
        match self.cfg.sensing {
            Sensing::Identity => &self.state.pieces == board,
            Sensing::Occupancy => self.state.occupied == board.occupied(),
        }
    }

    /// Whether the state shows `position` after `m`, its capture done as the capture rule wants.
    fn shows_after(&self, position: &Chess, m: Move) -> Option<Chess> {
        let mut after = position.clone();
        after.play_unchecked(m);
        (self.shows(after.board()) && self.capture_sequence_ok(m)).then_some(after)
    }

    /// Whether the state shows the position after `first` and a legal reply. (On an occupancy
    /// board several replies may fit; once `first` counts, the board's player's own move is
    /// judged in [`Mode::Move`], which never guesses.)
    fn shows_after_reply(&self, after_first: &Chess) -> bool {
        after_first
            .legal_moves()
            .into_iter()
            .any(|reply| self.shows_after(after_first, reply).is_some())
    }

    /// Whether every square `m` changes shows what it holds in `after` (the move stands there,
    /// whatever else is going on).
    fn shows_squares_of(&self, m: Move, after: &Chess) -> bool {
        let mut squares = Bitboard::from(m.to());
        if let Some(from) = m.from() {
            squares.add(from);
        }
        match m {
            Move::Castle { king, rook } => {
                let side = m
                    .castling_side()
                    .unwrap_or(shakmaty::CastlingSide::KingSide);
                let color = after.turn().other();
                squares.add(king);
                squares.add(rook);
                squares.add(side.king_to(color));
                squares.add(side.rook_to(color));
            }
            Move::EnPassant { from, to } => {
                squares.add(Square::from_coords(to.file(), from.rank()))
            }
            _ => {}
        }
        squares.into_iter().all(|sq| {
            let want = after.board().piece_at(sq);
            match self.cfg.sensing {
                Sensing::Identity => self.state.pieces.piece_at(sq) == want,
                Sensing::Occupancy => self.state.occupied.contains(sq) == want.is_some(),
            }
        })
    }

    /// Whether the state shows `first` followed by two legal moves.
    fn shows_two_ahead(&self, first: &Chess) -> bool {
        first.legal_moves().into_iter().any(|reply| {
            let mut after = first.clone();
            after.play_unchecked(reply);
            self.shows_after_reply(&after)
        })
    }

    /// [`Mode::Await`]: the move of the board's own player the state shows on the expected
    /// position, where his opponent is to move (none when his opponent is in check: his own
    /// move cannot be read there, and the board is said to differ as any other).
    fn own_move_before_turn(&self) -> Option<Move> {
        let own = self.expected.clone().swap_turn().ok()?;
        own.legal_moves().into_iter().find(|&m| {
            let mut after = own.clone();
            after.play_unchecked(m);
            self.shows(after.board()) && self.capture_sequence_ok(m)
        })
    }

    /// Whether the state is on the way from `position` to the position after one of its legal
    /// moves.
    fn on_the_way_to_a_move(&self, position: &Chess) -> bool {
        position.legal_moves().into_iter().any(|m| {
            let mut after = position.clone();
            after.play_unchecked(m);
            self.on_the_way(position, &after)
        })
    }

    /// What the state means in the current mode.
    fn read(&self) -> Reading {
        let expected = &self.expected;
        match self.mode {
            Mode::Hold => {
                if self.shows(expected.board()) {
                    Reading::Expected
                } else {
                    Reading::Wrong
                }
            }
            Mode::Await => {
                if self.shows(expected.board()) {
                    return Reading::Expected;
                }
                // Ahead by the opponent's move, or on the way to it.
                let ahead = expected.legal_moves().into_iter().any(|m| {
                    let mut after = expected.clone();
                    after.play_unchecked(m);
                    self.shows(after.board()) || self.on_the_way(expected, &after)
                });
                if ahead {
                    return Reading::Fine;
                }
                match self.own_move_before_turn() {
                    Some(m) => Reading::OutOfTurn(m),
                    None => Reading::Wrong,
                }
            }
            Mode::Execute(m) => {
                let mut after = expected.clone();
                after.play_unchecked(m);
                if self.shows(after.board()) && self.capture_sequence_ok(m) {
                    return Reading::Counts(None);
                }
                if self.shows(expected.board()) || self.on_the_way(expected, &after) {
                    return Reading::Fine;
                }
                // Executed, and his own move made already (or under way: only once every square
                // of the executed move shows it, so that a wrong execution is never mistaken for
                // a reply half made).
                if self.capture_sequence_ok(m) && self.shows_after_reply(&after) {
                    return Reading::Counts(None);
                }
                if self.shows_squares_of(m, &after) && self.on_the_way_to_a_move(&after) {
                    return Reading::Fine;
                }
                // At rest: executed, his reply made and the opponent's next move (made ahead of
                // the count) executed too. The arbiter's next expectations take them in order.
                let rested = self.now.saturating_sub(self.rest_from()) >= self.cfg.differs_after_ms;
                if rested && self.capture_sequence_ok(m) && self.shows_two_ahead(&after) {
                    return Reading::Counts(None);
                }
                Reading::Wrong
            }
            Mode::Move => {
                if self.shows(expected.board()) {
                    return Reading::Expected;
                }
                let mut completing: Vec<Move> = Vec::new();
                let mut on_way = false;
                for m in expected.legal_moves() {
                    let mut after = expected.clone();
                    after.play_unchecked(m);
                    if Some(m) == self.refused {
                        continue;
                    }
                    if self.shows(after.board()) && self.capture_sequence_ok(m) {
                        completing.push(m);
                    } else if !on_way && self.on_the_way(expected, &after) {
                        on_way = true;
                    }
                }
                match completing.as_slice() {
                    [m] => Reading::Counts(Some(*m)),
                    [first, rest @ ..]
                        if rest
                            .iter()
                            .all(|m| m.from() == first.from() && m.to() == first.to()) =>
                    {
                        // Same squares, different pieces: only a promotion on an occupancy
                        // board.
                        Reading::Promotion(first.from().unwrap_or(first.to()), first.to())
                    }
                    [] if on_way => Reading::Fine,
                    [] => self.made_and_answered(),
                    // Only a state read from a snapshot on an occupancy board can fit two
                    // moves (a piece that could capture on two squares, done while the board
                    // was away). Never guess: once it rests, report the difference so the move
                    // is made again.
                    _ => Reading::Wrong,
                }
            }
        }
    }

    /// A board that identifies pieces may show the player's own move and the opponent's reply
    /// (made ahead of the count and executed here): the move is the one move that fits, once
    /// the board has rested as long as a wrong board would before it is said to differ (a
    /// knocked-over piece and a piece in the hand can look like a capture and its recapture for
    /// a moment). An occupancy board's move counts the moment it is placed, so it never gets
    /// here.
    fn made_and_answered(&self) -> Reading {
        let rested = self.now.saturating_sub(self.rest_from()) >= self.cfg.differs_after_ms;
        if self.cfg.sensing != Sensing::Identity || !rested {
            return Reading::Wrong;
        }
        let mut made = self.expected.legal_moves().into_iter().filter(|&m| {
            let mut after = self.expected.clone();
            after.play_unchecked(m);
            self.shows_after_reply(&after)
        });
        match (made.next(), made.next()) {
            (Some(m), None) => Reading::Counts(Some(m)),
            _ => Reading::Wrong,
        }
    }

    /// The position a wrong state is described against.
    fn target(&self) -> Chess {
        match self.mode {
            Mode::Execute(m) => {
                let mut after = self.expected.clone();
                after.play_unchecked(m);
                after
            }
            Mode::Move | Mode::Await | Mode::Hold => self.expected.clone(),
        }
    }

    /// Decide what the current state means, and act on it.
    fn evaluate(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        let reading = self.read();
        if !matches!(reading, Reading::Promotion(..)) {
            self.promotion = None;
        }
        // 4.6 c: the pawn released on its promotion square has left it, and the board does not
        // rest on the way to a move (the pawn in the hand to be exchanged for its piece).
        if let Some((from, to)) = self.released
            && !matches!(reading, Reading::Promotion(..) | Reading::Fine)
            && !self.state.occupied.contains(to)
        {
            self.released = None;
            out.push(Recognized::PromotionLeft { from, to });
        }
        // A move made out of turn is said as it appears and once the board shows the position
        // again (the player is told it is no move; the arbiter refuses it should it still stand
        // when his turn comes). A piece in the hand on the way back changes nothing yet.
        let out_of_turn = match reading {
            Reading::OutOfTurn(m) => Some(Some(m)),
            Reading::Expected => Some(None),
            _ => None,
        };
        if self.mode == Mode::Await
            && let Some(shown) = out_of_turn
            && shown != self.out_of_turn
        {
            self.out_of_turn = shown;
            out.push(Recognized::OutOfTurn { mv: shown });
        }
        // A difference told is over once the board no longer rests on a wrong position: put
        // right, or on its way to the move it must make. Guidance names only what is still
        // wrong (F.7), so nothing already put right is described again.
        if !matches!(reading, Reading::Wrong) && self.reported.take().is_some() {
            out.push(Recognized::Matches);
        }
        match reading {
            Reading::Expected => {
                self.candidate = None;
                self.differs_pending = false;
            }
            Reading::Counts(candidate) => {
                self.differs_pending = false;
                self.candidate = Some(candidate);
                self.try_count(candidate, now, out);
            }
            Reading::Promotion(from, to) => {
                self.candidate = None;
                self.differs_pending = false;
                if self.promotion != Some((from, to)) {
                    self.promotion = Some((from, to));
                    self.released = Some((from, to));
                    out.push(Recognized::PromotionPending { from, to });
                }
            }
            Reading::Fine | Reading::OutOfTurn(_) => {
                self.candidate = None;
                self.differs_pending = false;
            }
            Reading::Wrong => self.judge_rest(now, out),
        }
    }

    /// Whether a candidate may count without a press: the board's player executing a move, a
    /// board whose rest completes moves, or a move that ends the game (5.1 a, 5.2: at once).
    fn may_count(&self, candidate: Option<Move>) -> bool {
        match candidate {
            None => true,
            Some(_) if !self.press_completion || self.pressed.is_some() => true,
            Some(m) => {
                let mut after = self.expected.clone();
                after.play_unchecked(m);
                after.is_game_over()
            }
        }
    }

    fn needs_confirmation(&self) -> bool {
        self.cfg.confirm_with_snapshot && self.confirmation.confirmed.is_none()
    }

    /// After a press at `at`: whether the board's word covers every change made before it: a
    /// reading asked for a scan after the press (a board without readings: the scan has passed).
    fn press_covered(&self, at: Millis, now: Millis) -> bool {
        let due = at + self.cfg.scan_ms;
        if self.cfg.confirm_with_snapshot {
            self.confirmation
                .confirmed
                .is_some_and(|asked| asked >= due)
        } else {
            now >= due
        }
    }

    /// A state that counts: ask the board to confirm it at once, and count it once it has rested
    /// (or at once after a press).
    fn try_count(&mut self, candidate: Option<Move>, now: Millis, out: &mut Vec<Recognized>) {
        if self.needs_confirmation() {
            if self.confirmation.requested.is_empty() {
                self.request_snapshot(now, out);
            }
            return;
        }
        if !self.may_count(candidate) {
            // Press completion: the press counts it.
            return;
        }
        // Pressed or not, what the board shows is its true state only once it has rested (a
        // press cannot make the board's late reports come sooner). The deadline brings a state
        // that has not rested back; a press on a board that already rested counts at once.
        let rest = self.settle_for(candidate);
        if now.saturating_sub(self.changed_at) < rest {
            return;
        }
        if rest > self.cfg.settle_ms && !self.confirmation.requested.is_empty() {
            // A reading on the line delays the updates behind it: the sweep's last word may
            // still be queued. Its arrival brings the state back.
            return;
        }
        self.candidate = None;
        match candidate {
            Some(m) => self.complete(m, now, out),
            None => self.executed(out),
        }
    }

    /// The move of [`Mode::Execute`] stands on the board. The arbiter sets what comes next (the
    /// board's player is to move); the events since stay for the capture rule, as his own move
    /// may already stand on the board.
    fn executed(&mut self, out: &mut Vec<Recognized>) {
        if let Mode::Execute(m) = self.mode {
            let mut after = self.expected.clone();
            after.play_unchecked(m);
            if self.cfg.sensing == Sensing::Occupancy && self.shows(after.board()) {
                self.state.pieces = after.board().clone();
                self.state.hand.clear();
            }
            self.expected = after;
        }
        self.mode = Mode::Hold;
        self.touches.clear();
        self.reported = None;
        out.push(Recognized::Executed);
    }

    fn complete(&mut self, m: Move, now: Millis, out: &mut Vec<Recognized>) {
        if let Mode::Execute(_) = self.mode {
            self.executed(out);
            return;
        }
        let mut after = self.expected.clone();
        after.play_unchecked(m);
        // Where the moving piece arrives (the king's square, castling).
        let arrival = match (m, m.castling_side()) {
            (Move::Castle { king, .. }, Some(side)) => {
                Square::from_coords(side.king_to_file(), king.rank())
            }
            _ => m.to(),
        };
        self.last_placed_before_turn = self.placed_before_turn(arrival);
        let touches = std::mem::take(&mut self.touches);
        out.push(Recognized::MoveCompleted { mv: m, touches });
        // Until the arbiter says otherwise the board should keep showing the new position, or
        // run ahead by the opponent's reply.
        if self.cfg.sensing == Sensing::Occupancy {
            self.state.pieces = after.board().clone();
            self.state.hand.clear();
        }
        self.expected = after;
        self.mode = Mode::Await;
        self.opponent_marked = false;
        self.reported = None;
        self.lifted_at = [0; 64];
        self.placed_at = [0; 64];
        self.expected_at = now;
        self.from_snapshot = false;
        self.pressed = None;
        self.candidate = None;
    }

    /// On an occupancy board a capture shows the same occupancy as "the mover is still in the
    /// hand": require that the captured piece was lifted and the capturing piece placed on the
    /// capture square after the mover was lifted.
    fn capture_sequence_ok(&self, m: Move) -> bool {
        if self.cfg.sensing == Sensing::Identity || self.from_snapshot {
            return true;
        }
        match m {
            Move::Normal {
                from,
                capture: Some(_),
                to,
                ..
            } => {
                let (from, to) = (usize::from(from), usize::from(to));
                self.lifted_at[to] > 0
                    && self.placed_at[to] > self.lifted_at[from]
                    && self.placed_at[to] > self.lifted_at[to]
            }
            _ => true,
        }
    }

    /// Whether the state is on the way from `before` to `after`: squares the move does not touch
    /// are as before; touched squares show the piece before, the piece after, or nothing.
    fn on_the_way(&self, before: &Chess, after: &Chess) -> bool {
        let (b, a) = (before.board(), after.board());
        Square::ALL.iter().all(|&sq| {
            let (pb, pa) = (b.piece_at(sq), a.piece_at(sq));
            let touched = pb != pa;
            match self.cfg.sensing {
                Sensing::Identity => {
                    let now = self.state.pieces.piece_at(sq);
                    if touched {
                        now.is_none() || now == pb || now == pa
                    } else {
                        now == pb
                    }
                }
                Sensing::Occupancy => touched || self.state.occupied.contains(sq) == pb.is_some(),
            }
        })
    }

    /// A state that is wrong: report it as differing once it has rested long enough, once.
    fn judge_rest(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        self.candidate = None;
        self.differs_pending = false;
        if now.saturating_sub(self.rest_from()) < self.cfg.differs_after_ms {
            self.differs_pending = true;
            return;
        }
        if self.mode == Mode::Await && self.shows_two_ahead(&self.expected) {
            // Two moves ahead: the opponent's move (said aloud) executed and the player's own
            // reply made. It counts in order once the opponent's move does.
            return;
        }
        let diff = self.diff(self.target().board());
        if self.reported.as_ref() != Some(&diff) {
            self.reported = Some(diff.clone());
            out.push(Recognized::Differs(diff));
        }
    }

    /// What differs from `board`, square by square.
    pub fn diff(&self, board: &Board) -> BoardDiff {
        let mut squares = Vec::new();
        for sq in Square::ALL {
            let expected = board.piece_at(sq);
            let found = match self.cfg.sensing {
                Sensing::Identity => match self.state.pieces.piece_at(sq) {
                    Some(p) => Found::Piece(p),
                    None => Found::Empty,
                },
                Sensing::Occupancy => {
                    if self.state.occupied.contains(sq) {
                        Found::Occupied {
                            likely: self.state.pieces.piece_at(sq),
                        }
                    } else {
                        Found::Empty
                    }
                }
            };
            let same = match found {
                Found::Empty => expected.is_none(),
                Found::Piece(p) => expected == Some(p),
                Found::Occupied { .. } => expected.is_some(),
            };
            if !same {
                squares.push(SquareDiff {
                    square: sq,
                    expected,
                    found,
                });
            }
        }
        BoardDiff { squares }
    }
}

/// Whether a board that reports changes a sweep late can show `m` (played in `position`) while
/// another move is being made: its piece may still be travelling ([`could_pass_through`]), or
/// another piece of the same kind could have gone to its square (a knocked piece put back and a
/// lift elsewhere not yet reported look exactly like it: cxd4 for exd4), or it is the rook's
/// half of a castling the king may still complete. Such a move counts only once a whole sweep
/// has passed; any other counts at its confirming reading.
pub fn may_still_change(position: &Chess, m: Move) -> bool {
    could_pass_through(position, m) || another_could(position, m) || castling_rook(position, m)
}

/// Whether another piece of `m`'s kind could legally go to `m`'s square.
fn another_could(position: &Chess, m: Move) -> bool {
    position
        .legal_moves()
        .iter()
        .any(|o| o.role() == m.role() && o.to() == m.to() && o.from() != m.from())
}

/// Whether `m` puts a rook where castling would put it, with that castling still legal: the
/// king may follow (castling by hand with the rook first).
fn castling_rook(position: &Chess, m: Move) -> bool {
    let Move::Normal {
        role: Role::Rook,
        from,
        to,
        capture: None,
        ..
    } = m
    else {
        return false;
    };
    position.legal_moves().iter().any(|c| match *c {
        Move::Castle { rook, .. } => {
            rook == from
                && c.castling_side()
                    .is_some_and(|side| side.rook_to(position.turn()) == to)
        }
        _ => false,
    })
}

/// Whether `m` could be a square a piece only passed over on its way to a longer move: a slid
/// rook, bishop or queen that stops where its line goes on (the next square empty or the
/// opponent's), a pawn's single step from its first rank with the square beyond free, a king's
/// step towards a castling that is possible. A board that reports squares late can show such a
/// square for a whole scan.
pub fn could_pass_through(position: &Chess, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        to,
        capture: None,
        promotion: None,
    } = m
    else {
        return false;
    };
    let board = position.board();
    let step = |sq: Square| {
        let df = (to.file() as i32 - from.file() as i32).signum();
        let dr = (to.rank() as i32 - from.rank() as i32).signum();
        sq.offset(dr * 8 + df).filter(|next| next.distance(sq) == 1)
    };
    match role {
        Role::Bishop | Role::Rook | Role::Queen => step(to).is_some_and(|next| {
            board
                .piece_at(next)
                .is_none_or(|p| p.color != position.turn())
        }),
        Role::Pawn => {
            let first = if position.turn().is_white() {
                shakmaty::Rank::Second
            } else {
                shakmaty::Rank::Seventh
            };
            from.rank() == first
                && from.distance(to) == 1
                && step(to).is_some_and(|next| board.piece_at(next).is_none())
        }
        Role::King => position.legal_moves().iter().any(|c| {
            c.is_castle()
                && c.from() == Some(from)
                && matches!(c, Move::Castle { king, rook } if {
                    let toward = (rook.file() as i32 - king.file() as i32).signum();
                    to.rank() == from.rank() && to.file() as i32 - from.file() as i32 == toward
                })
        }),
        Role::Knight => false,
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Color, fen::Fen, san::San};

    use super::*;
    // The two board kinds' settings live with the recognition driver, shared with the corpus
    // test and the benchmark.
    use crate::sim::hands::{DGT, TACTILE};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }
    fn after(sans: &str) -> Chess {
        let mut p = Chess::default();
        for s in sans.split_whitespace() {
            let m = s.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
        }
        p
    }
    fn mv(p: &Chess, san: &str) -> Move {
        san.parse::<San>().unwrap().to_move(p).unwrap()
    }
    fn lift(sq: Square) -> SensorEvent {
        SensorEvent::Lift { square: sq }
    }
    fn put(sq: Square) -> SensorEvent {
        SensorEvent::Place {
            square: sq,
            piece: None,
        }
    }
    fn put_piece(sq: Square, p: Piece) -> SensorEvent {
        SensorEvent::Place {
            square: sq,
            piece: Some(p),
        }
    }
    fn completed(out: &[Recognized]) -> Option<Move> {
        out.iter().find_map(|r| {
            if let Recognized::MoveCompleted { mv, .. } = r {
                Some(*mv)
            } else {
                None
            }
        })
    }

    #[test]
    fn a_quiet_move_on_the_tactile_board_counts_when_placed() {
        let start = Chess::default();
        let mut r = Recognizer::new(TACTILE, start.clone(), Mode::Move);
        let out = r.event(lift(Square::E2), 100);
        assert!(out.is_empty(), "the lift is held back for the bounce time");
        let out = r.tick(140);
        assert_eq!(
            out,
            vec![Recognized::Touched {
                square: Square::E2,
                piece: Some(Color::White.pawn())
            }]
        );
        let out = r.event(put(Square::E4), 600);
        assert_eq!(completed(&out), Some(mv(&start, "e4")));
        assert_eq!(r.expected(), &after("e4"));
    }

    #[test]
    fn a_lifted_bishop_is_not_a_capture_on_f7() {
        // After 1.e4 e5 2.Bc4 Nc6: Bxf7+ leaves the same occupancy as "bishop in the hand".
        let p = after("e4 e5 Bc4 Nc6");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        let out = r.event(lift(Square::C4), 0);
        assert_eq!(
            out,
            vec![Recognized::Touched {
                square: Square::C4,
                piece: Some(Color::White.bishop())
            }]
        );
        assert!(
            r.tick(10_000).is_empty(),
            "a piece in the hand is on the way, never a difference"
        );
        // Now the real capture: the black pawn removed, the bishop placed on f7.
        let out = r.event(lift(Square::F7), 11_000);
        assert!(completed(&out).is_none());
        let out = r.event(put(Square::F7), 11_500);
        assert_eq!(completed(&out), Some(mv(&p, "Bxf7+")));
    }

    #[test]
    fn a_capture_with_the_captured_piece_put_back_first_is_not_a_capture() {
        let p = after("e4 e5 Bc4 Nc6");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        // The player feels f7 (lifts the pawn and puts it back), then lifts his bishop.
        r.event(lift(Square::F7), 0);
        r.event(put(Square::F7), 200);
        let out = r.event(lift(Square::C4), 400);
        assert!(completed(&out).is_none(), "{out:?}");
    }

    #[test]
    fn castling_king_first_and_rook_first() {
        let p = after("e4 e5 Nf3 Nc6 Bc4 Bc5");
        let cfg = RecognizerConfig {
            bounce_ms: 0,
            ..TACTILE
        };
        let mut r = Recognizer::new(cfg, p.clone(), Mode::Move);
        r.event(lift(Square::E1), 0);
        let out = r.event(put(Square::G1), 100);
        assert!(
            completed(&out).is_none(),
            "king on g1 alone is on the way to castling"
        );
        r.event(lift(Square::H1), 200);
        let out = r.event(put(Square::F1), 300);
        assert_eq!(
            out,
            vec![Recognized::MoveCompleted {
                mv: mv(&p, "O-O"),
                touches: vec![Square::E1, Square::H1]
            }]
        );

        // Rook first on the tactile board: placing the rook executes Rf1 (F.3 b, Art. 4.4 b).
        let mut r = Recognizer::new(cfg, p.clone(), Mode::Move);
        r.event(lift(Square::H1), 0);
        let out = r.event(put(Square::F1), 100);
        assert_eq!(completed(&out), Some(mv(&p, "Rf1")));

        // On a board that settles first, rook-first castling is accepted and reported in order.
        let mut r = Recognizer::new(DGT, p.clone(), Mode::Move);
        let (k, rk) = (Color::White.king(), Color::White.rook());
        let mut asked = r.event(lift(Square::H1), 0);
        // Rf1 stands for a moment: the confirming reading is asked for at once, and only once.
        asked.extend(r.event(put_piece(Square::F1, rk), 100));
        asked.extend(r.event(lift(Square::E1), 200));
        asked.extend(r.event(put_piece(Square::G1, k), 300));
        assert_eq!(
            asked,
            vec![
                Recognized::Touched {
                    square: Square::H1,
                    piece: Some(rk)
                },
                Recognized::RequestSnapshot,
                Recognized::Touched {
                    square: Square::E1,
                    piece: Some(k)
                },
            ]
        );
        assert!(r.tick(700).is_empty(), "the reading is on its way");
        let mut board = p.board().clone();
        board.discard_piece_at(Square::E1);
        board.discard_piece_at(Square::H1);
        board.set_piece_at(Square::G1, k);
        board.set_piece_at(Square::F1, rk);
        let out = r.event(SensorEvent::Snapshot(Sensed::Pieces(board)), 750);
        assert_eq!(
            out,
            vec![Recognized::MoveCompleted {
                mv: mv(&p, "O-O"),
                touches: vec![Square::H1, Square::E1]
            }]
        );
    }

    #[test]
    fn en_passant_completes_when_the_captured_pawn_leaves_last() {
        let p = after("e4 a6 e5 d5");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        r.event(lift(Square::E5), 0);
        let out = r.event(put(Square::D6), 100);
        assert!(completed(&out).is_none());
        let out = r.event(lift(Square::D5), 200);
        assert_eq!(completed(&out), Some(mv(&p, "exd6")));
    }

    #[test]
    fn promotion_waits_for_the_announced_piece_on_an_occupancy_board() {
        let p = pos("8/4P3/8/8/8/k7/8/K7 w - - 0 1");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        r.event(lift(Square::E7), 0);
        let out = r.event(put(Square::E8), 100);
        assert_eq!(
            out,
            vec![Recognized::PromotionPending {
                from: Square::E7,
                to: Square::E8
            }]
        );
        assert!(
            r.tick(60_000).is_empty(),
            "never guessed, never a difference"
        );
        let out = r.promotion(Role::Knight, 60_000);
        assert_eq!(completed(&out), Some(mv(&p, "e8=N")));
    }

    #[test]
    fn promotion_on_an_identity_board_is_read_from_the_piece() {
        let p = pos("8/4P3/8/8/8/k7/8/K7 w - - 0 1");
        let mut r = Recognizer::new(
            RecognizerConfig {
                confirm_with_snapshot: false,
                ..DGT
            },
            p.clone(),
            Mode::Move,
        );
        r.event(lift(Square::E7), 0);
        r.event(put_piece(Square::E8, Color::White.rook()), 100);
        let out = r.tick(500);
        assert_eq!(completed(&out), Some(mv(&p, "e8=R")));
    }

    #[test]
    fn a_sliding_piece_is_not_announced_on_the_squares_it_passes() {
        let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        let mut r = Recognizer::new(
            RecognizerConfig {
                confirm_with_snapshot: false,
                ..DGT
            },
            p.clone(),
            Mode::Move,
        );
        let rook = Color::White.rook();
        let mut out = r.event(lift(Square::A1), 0);
        out.extend(r.event(put_piece(Square::A2, rook), 100));
        out.extend(r.event(lift(Square::A2), 150));
        out.extend(r.event(put_piece(Square::A3, rook), 200));
        out.extend(r.event(lift(Square::A3), 250));
        out.extend(r.event(put_piece(Square::A4, rook), 300));
        assert_eq!(
            out,
            vec![Recognized::Touched {
                square: Square::A1,
                piece: Some(rook)
            }],
            "passing squares are no touches"
        );
        assert_eq!(r.next_deadline(), Some(700));
        let out = r.tick(700);
        assert_eq!(completed(&out), Some(mv(&p, "Ra4")));
    }

    #[test]
    fn a_wrong_state_is_reported_after_the_rest_time_and_its_repair() {
        let p = Chess::default();
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        // A knight from g1 put on e2's aperture... e2 is occupied; the player moves the e-pawn
        // two squares and a knight pawn three (no move: g2-g4 would be his move made out of turn):
        // e2 and g2 empty, e4 and g5 occupied.
        r.event(lift(Square::E2), 0);
        r.event(put(Square::E4), 100);
        let mut r2 = r.clone();
        // (e4 completed at once on the tactile board: continue in Hold mode.)
        let out = r2.event(lift(Square::G2), 200);
        assert_eq!(
            out,
            vec![Recognized::Lifted {
                square: Square::G2,
                piece: Some(Color::White.pawn())
            }]
        );
        r2.event(put(Square::G5), 300);
        assert_eq!(r2.next_deadline(), Some(1800));
        assert!(r2.tick(1799).is_empty());
        let out = r2.tick(1800);
        let Some(Recognized::Differs(diff)) = out.first() else {
            panic!("{out:?}")
        };
        assert_eq!(diff.squares.len(), 2);
        assert_eq!(
            diff.squares[0],
            SquareDiff {
                square: Square::G2,
                expected: Some(Color::White.pawn()),
                found: Found::Empty
            }
        );
        assert_eq!(diff.squares[1].square, Square::G5);
        assert_eq!(
            diff.squares[1].found,
            Found::Occupied {
                likely: Some(Color::White.pawn())
            }
        );
        assert!(r2.tick(5_000).is_empty(), "reported once per resting state");
        assert_eq!(
            r2.next_deadline(),
            None,
            "nothing more is due: no busy timer"
        );
        r2.event(lift(Square::G5), 6_000);
        let out = r2.event(put(Square::G2), 6_100);
        assert_eq!(out, vec![Recognized::Matches]);
    }

    #[test]
    fn f_a_move_of_his_own_made_before_the_opponents_is_said_out_of_turn() {
        // After e4 (counted) White plays Nf3 on his board while Black is to move.
        let p = Chess::default();
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        r.event(lift(Square::E2), 0);
        r.event(put(Square::E4), 100);
        assert_eq!(r.mode(), Mode::Await);
        r.event(lift(Square::G1), 200);
        let out = r.event(put(Square::F3), 300);
        let nf3 = mv(&after("e4").swap_turn().unwrap(), "Nf3");
        assert_eq!(out, vec![Recognized::OutOfTurn { mv: Some(nf3) }]);
        // Not a difference to guide while Black has not moved; taken back, said so.
        assert!(r.tick(5_000).is_empty());
        r.event(lift(Square::F3), 6_000);
        let out = r.event(put(Square::G1), 6_100);
        assert_eq!(out, vec![Recognized::OutOfTurn { mv: None }]);
    }

    #[test]
    fn executing_the_opponents_move() {
        let p = after("e4");
        let e5 = mv(&p, "e5");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Execute(e5),
        );
        let out = r.event(lift(Square::E7), 0);
        assert_eq!(
            out,
            vec![Recognized::Lifted {
                square: Square::E7,
                piece: Some(Color::Black.pawn())
            }],
            "not a touch"
        );
        let out = r.event(put(Square::E6), 100);
        assert!(out.is_empty());
        // Resting on e6 instead of e5: he is told what is wrong, relative to the move to execute.
        let out = r.tick(1600);
        let Some(Recognized::Differs(diff)) = out.first() else {
            panic!("{out:?}")
        };
        let squares: Vec<Square> = diff.squares.iter().map(|d| d.square).collect();
        assert_eq!(squares, vec![Square::E5, Square::E6]);
        r.event(lift(Square::E6), 2000);
        let out = r.event(put(Square::E5), 2100);
        assert_eq!(out, vec![Recognized::Executed]);
        assert_eq!(r.mode(), Mode::Hold);
        assert_eq!(r.expected(), &after("e4 e5"));
    }

    #[test]
    fn a_wrong_execution_is_never_taken_for_a_reply_half_made() {
        // c2-c4 put on c3 instead: by occupancy that looks like ...bxc3 e.p. under way, but the
        // executed move's own squares do not show it: the board differs, and is said to.
        let p = pos("r3kb1r/2q2pp1/p3pn1p/1b1pN3/1p1P4/1P1NPQ2/P1P2PPP/2KR1B1R w kq - 0 16");
        let c4 = mv(&p, "c4");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Execute(c4),
        );
        r.event(lift(Square::C2), 100);
        r.event(put(Square::C3), 400);
        assert_eq!(r.next_deadline(), Some(1_900));
        let out = r.tick(1_900);
        let Some(Recognized::Differs(diff)) = out.first() else {
            panic!("{out:?}")
        };
        let squares: Vec<Square> = diff.squares.iter().map(|d| d.square).collect();
        assert_eq!(squares, vec![Square::C3, Square::C4]);
    }

    #[test]
    fn sensor_bounce_is_ignored_and_a_real_touch_is_not() {
        let p = Chess::default();
        let mut r = Recognizer::new(TACTILE, p.clone(), Mode::Move);
        assert!(r.event(lift(Square::G1), 0).is_empty());
        assert!(
            r.event(put(Square::G1), 10).is_empty(),
            "bounce: lift and place within 40 ms"
        );
        assert!(r.tick(1_000).is_empty());
        assert_eq!(r.next_deadline(), None);
        // Lifted and put back slowly: a touch (Art. 4.3), no move.
        r.event(lift(Square::G1), 2_000);
        let out = r.event(put(Square::G1), 2_500);
        assert_eq!(
            out,
            vec![Recognized::Touched {
                square: Square::G1,
                piece: Some(Color::White.knight())
            }]
        );
    }

    #[test]
    fn a_move_made_while_disconnected_is_found_by_the_snapshot() {
        let p = Chess::default();
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        r.disconnected(0);
        let mut occupied = p.board().occupied();
        occupied.discard(Square::G1);
        occupied.add(Square::F3);
        let out = r.event(SensorEvent::Snapshot(Sensed::Occupancy(occupied)), 5_000);
        assert_eq!(
            out.first(),
            Some(&Recognized::SnapshotCorrected {
                squares: Bitboard::from(Square::G1) | Bitboard::from(Square::F3)
            })
        );
        // Built from a snapshot: it must rest longer before it counts.
        assert!(completed(&out).is_none());
        let out = r.tick(5_000 + 1_500);
        assert_eq!(completed(&out), Some(mv(&p, "Nf3")));
    }

    #[test]
    fn a_quick_capture_is_not_sensor_bounce() {
        let p = after("e4 d5");
        let mut r = Recognizer::new(TACTILE, p.clone(), Mode::Move);
        // Mover first, then the captured pawn out and the capturing pawn in within 20 ms: it
        // counts once the bounce time shows no more chatter.
        r.event(lift(Square::E4), 0);
        r.tick(100);
        r.event(lift(Square::D5), 1_000);
        assert!(r.event(put(Square::D5), 1_020).is_empty());
        assert_eq!(r.next_deadline(), Some(1_060));
        let out = r.tick(1_060);
        assert_eq!(completed(&out), Some(mv(&p, "exd5")));

        // The same with the sensor chattering on the captured pawn's lift: still one capture.
        let mut r = Recognizer::new(TACTILE, p.clone(), Mode::Move);
        r.event(lift(Square::E4), 0);
        r.tick(100);
        r.event(lift(Square::D5), 1_000);
        r.event(put(Square::D5), 1_005);
        r.event(lift(Square::D5), 1_010);
        assert!(
            r.tick(1_100)
                .iter()
                .all(|o| !matches!(o, Recognized::MoveCompleted { .. }))
        );
        let out = r.event(put(Square::D5), 2_000);
        let mut out = out;
        out.extend(r.tick(2_100));
        assert_eq!(completed(&out), Some(mv(&p, "exd5")));
    }

    #[test]
    fn a_capture_made_while_away_that_fits_two_moves_is_reported_not_guessed() {
        // The rook on a1 can take on a5 or on e1: both leave the same occupancy.
        let p = pos("4k3/8/8/p7/8/7K/8/R3q3 w - - 0 1");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Move,
        );
        r.disconnected(0);
        let mut occupied = p.board().occupied();
        occupied.discard(Square::A1);
        r.event(SensorEvent::Snapshot(Sensed::Occupancy(occupied)), 1_000);
        let out = r.tick(10_000);
        assert!(completed(&out).is_none());
        assert!(
            matches!(out.first(), Some(Recognized::Differs(_))),
            "{out:?}"
        );
    }

    #[test]
    fn hold_mode_reports_lifts_and_differences_only() {
        let p = after("e4");
        let mut r = Recognizer::new(
            RecognizerConfig {
                bounce_ms: 0,
                ..TACTILE
            },
            p.clone(),
            Mode::Hold,
        );
        let out = r.event(lift(Square::E7), 0);
        assert_eq!(
            out,
            vec![Recognized::Lifted {
                square: Square::E7,
                piece: Some(Color::Black.pawn())
            }]
        );
        r.event(put(Square::E5), 100);
        let out = r.tick(1_600);
        assert!(
            matches!(out.first(), Some(Recognized::Differs(_))),
            "{out:?}"
        );
    }

    mod random {
        use proptest::prelude::*;

        use super::*;

        fn event_strategy() -> impl Strategy<Value = (u8, u8, u16)> {
            // kind (lift / place / snapshot / button), square, delay in ms
            (0u8..10, 0u8..64, 0u16..3000)
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

            /// Whatever the sensors say, the recogniser never panics, never reports a move that
            /// is not legal where it was reported, and its deadlines always lie ahead.
            #[test]
            fn arbitrary_events_never_produce_an_illegal_move(
                events in proptest::collection::vec(event_strategy(), 0..120),
                identity in any::<bool>(),
            ) {
                let cfg = if identity { DGT } else { TACTILE };
                let mut r = Recognizer::new(cfg, Chess::default(), Mode::Move);
                let mut now: Millis = 0;
                let pieces = [Color::White.pawn(), Color::Black.knight(), Color::White.queen(), Color::Black.king()];
                for (kind, sq, delay) in events {
                    now += u64::from(delay);
                    let square = Square::new(u32::from(sq));
                    let before = r.expected().clone();
                    let event = match kind {
                        0..=3 => lift(square),
                        4..=7 => SensorEvent::Place { square, piece: identity.then_some(pieces[usize::from(sq) % 4]) },
                        8 => SensorEvent::Snapshot(if identity {
                            Sensed::Pieces(before.board().clone())
                        } else {
                            Sensed::Occupancy(Bitboard::from(u64::from(sq) * 0x0101_0101))
                        }),
                        _ => SensorEvent::Button(sq),
                    };
                    let mut out = r.event(event, now);
                    if let Some(deadline) = r.next_deadline() {
                        prop_assert!(deadline + 10_000 >= now, "deadline far in the past");
                        out.extend(r.tick(deadline.max(now)));
                    }
                    let mut pos = before;
                    for rec in out {
                        if let Recognized::MoveCompleted { mv, .. } = rec {
                            prop_assert!(pos.is_legal(mv), "illegal {mv:?}");
                            pos.play_unchecked(mv);
                            r.set_expected(pos.clone(), Mode::Move, now);
                        }
                        if rec == Recognized::RequestSnapshot {
                            let board = r.pieces().clone();
                            let snap = if identity { Sensed::Pieces(board) } else { Sensed::Occupancy(r.occupied()) };
                            for rec in r.event(SensorEvent::Snapshot(snap), now) {
                                if let Recognized::MoveCompleted { mv, .. } = rec {
                                    prop_assert!(pos.is_legal(mv), "illegal {mv:?}");
                                    pos.play_unchecked(mv);
                                    r.set_expected(pos.clone(), Mode::Move, now);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Which moves a sweeping board can tell at their confirming reading, and which only after a
    /// whole sweep (issue 22: the DGT board as fast as it can be without a false move).
    #[test]
    fn a_move_another_piece_could_have_made_or_that_may_go_on_waits_a_sweep() {
        let cases = [
            // Knights, captures, castling done: at once.
            ("", "Nf3", false),
            ("e4 d5", "exd5", false),
            ("e4 e5 Nf3 Nc6 Bc4 Bc5", "O-O", false),
            ("e4 e5 Qh5 Nc6 Bc4 Nf6", "Qxf7#", false),
            // A bishop or rook against the board's edge, a rook against its own piece.
            ("e4 e5 Bc4 Nc6", "Ba6", false),
            ("Nf3 e5 Rg1 d5", "Rh1", false),
            ("e4 e5 Nf3 Nc6 Bc4 Bc5 Rg1 Nf6", "Rf1", false),
            // A pawn's step from its first rank (may become a double step), from the third
            // rank (cannot): the first waits.
            ("", "e3", true),
            ("e3 e6", "e4", false),
            // A slider that could still be travelling: its line goes on.
            ("e4 e5", "Bc4", true),
            // Another piece of the kind could have gone there: cxd4 or exd4, Nbd2 or Nfd2.
            ("c3 d5 e3 d4", "cxd4", true),
            ("c3 d5 e3 d4", "exd4", true),
            ("Nf3 d5 d3 e5", "Nbd2", true),
            // The rook beside its king with castling still possible: the king may follow.
            ("e4 e5 Nf3 Nc6 Bc4 Bc5", "Rf1", true),
            // No castling left on that side: the rook's move is all there is.
            ("e4 e5 Nf3 Nc6 Bc4 Bc5 Rg1 Nf6 Rh1 d6", "Rf1", false),
        ];
        for (before, san, waits) in cases {
            let p = after(before);
            let m = mv(&p, san);
            assert_eq!(may_still_change(&p, m), waits, "{san} after '{before}'");
        }
    }
}
