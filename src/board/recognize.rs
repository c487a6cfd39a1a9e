//! Move recognition: from a board's lift and place events to touches, completed moves, executed
//! moves and differences.
//!
//! This module owns the rules that turn sensor events into facts the arbiter can act on. It is
//! pure: events come in with the time they arrived, facts go out as values, and the only notion
//! of waiting is [`Recognizer::next_deadline`], which the shell turns into a timer and answers with
//! [`Recognizer::tick`].
//!
//! How a state is judged, for the position the board should show (`expected`) and the mode:
//! - it **completes** a legal move when it equals the position after that move. On a board that
//!   only senses occupancy, equal occupancy is not enough for a capture: the captured piece must
//!   have been lifted, and the capturing piece placed on its square after the mover was lifted
//!   (otherwise "bishop lifted and still in the hand" would read as "bishop took on f7");
//! - it is **on the way** to a legal move when every square the move does not touch is as
//!   expected and every square it touches shows its piece before the move, after it, or nothing;
//! - anything else that rests for the profile's `differs_after_ms` **differs**, and the diff says
//!   square by square what is there and what belongs there.
//!
//! Timing follows the profile. On the tactile board a move is executed the moment the piece is
//! placed into a different aperture (Appendix F.3 b), so `settle_ms` is 0 there. On a DGT board
//! a scan takes 200-250 ms, updates arrive reordered and sliding pieces show the squares they
//! pass over, so a state must rest for `settle_ms` and may be confirmed by a full dump before it
//! counts: an intermediate square is never announced as a move.

use shakmaty::{Bitboard, Board, Chess, Move, Piece, Position, Role, Square};

use super::{Sensed, Sensing, SensorEvent};
use crate::rules::Millis;

/// The timing and capabilities the recogniser needs from a board profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecognizerConfig {
    pub sensing: Sensing,
    /// How long a completing state must rest before it counts (0: at once).
    pub settle_ms: u64,
    /// A lift followed by a placement on the same square within this time is sensor bounce.
    pub bounce_ms: u64,
    /// How long a wrong state must rest before it is reported as differing.
    pub differs_after_ms: u64,
    /// Ask for a full reading before reporting a completed move.
    pub confirm_with_snapshot: bool,
}

impl RecognizerConfig {
    /// The recogniser's part of a board profile.
    pub fn from_profile(profile: &super::profile::Profile) -> RecognizerConfig {
        RecognizerConfig {
            sensing: profile.sensing,
            settle_ms: profile.timing.settle_ms,
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
    /// No move is expected: the board should keep showing the expected position.
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
    /// The move of [`Mode::Execute`] stands on the board.
    Executed,
    /// The board rests in a state that is neither expected nor on the way to a legal move.
    Differs(BoardDiff),
    /// After a [`Recognized::Differs`], the board shows what it should again.
    Matches,
    /// A full reading showed squares that differ from what the events had built (events were
    /// missed, e.g. while the board was disconnected).
    SnapshotCorrected { squares: Bitboard },
    /// Effect: ask the board for a full reading.
    RequestSnapshot,
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

/// The recogniser for one board. See the module docs.
#[derive(Debug, Clone)]
pub struct Recognizer {
    cfg: RecognizerConfig,
    expected: Chess,
    mode: Mode,
    state: State,
    /// Event sequence numbers: last lift and last placement per square, for the capture rule.
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
    /// When the state last changed.
    changed_at: Millis,
    /// A completed move waiting for its settle time, or for the snapshot that confirms it.
    candidate: Option<Move>,
    awaiting_snapshot: bool,
    /// The last state was built from a snapshot, not from events: captures on an occupancy board
    /// cannot be told from a lifted piece then, so they wait for a longer rest.
    from_snapshot: bool,
    promotion: Option<(Square, Square)>,
    /// The diff last reported, so that a resting state is reported once.
    reported: Option<BoardDiff>,
    /// The state is wrong and not yet reported: a difference comes due after the rest time.
    differs_pending: bool,
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
            candidate: None,
            awaiting_snapshot: false,
            from_snapshot: false,
            promotion: None,
            reported: None,
            differs_pending: false,
        }
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

    /// A new position to show and a new mode (the arbiter accepted a move, or the opponent's
    /// move is to be executed). The sensed state carries over; touches start afresh.
    pub fn set_expected(&mut self, expected: Chess, mode: Mode, now: Millis) -> Vec<Recognized> {
        self.expected = expected;
        self.mode = mode;
        self.touches.clear();
        self.lifted_at = [0; 64];
        self.placed_at = [0; 64];
        self.candidate = None;
        self.awaiting_snapshot = false;
        self.promotion = None;
        self.reported = None;
        self.differs_pending = false;
        self.changed_at = now;
        if self.cfg.sensing == Sensing::Occupancy
            && self.state.occupied == self.expected.board().occupied()
        {
            // The board shows the new position: believe it holds exactly its pieces.
            self.state.pieces = self.expected.board().clone();
            self.state.hand.clear();
        }
        let mut out = Vec::new();
        self.evaluate(now, &mut out);
        out
    }

    /// One sensor event at `now`.
    pub fn event(&mut self, event: SensorEvent, now: Millis) -> Vec<Recognized> {
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

    /// The board was disconnected: events may be lost until the next snapshot.
    pub fn disconnected(&mut self, _now: Millis) {
        self.held_lift = None;
        self.held_place = None;
        self.candidate = None;
        self.awaiting_snapshot = false;
    }

    /// Time passes: settle times, bounce filtering and differences come due.
    pub fn tick(&mut self, now: Millis) -> Vec<Recognized> {
        let mut out = Vec::new();
        if let Some(due) = self.held_due()
            && now >= due
        {
            self.flush_held(now, &mut out);
        }
        self.evaluate(now, &mut out);
        out
    }

    /// When [`Recognizer::tick`] should next be called, if anything is waiting.
    pub fn next_deadline(&self) -> Option<Millis> {
        let mut deadlines = Vec::new();
        deadlines.extend(self.held_due());
        if self.candidate.is_some() && !self.awaiting_snapshot {
            deadlines.push(self.changed_at + self.settle_for_candidate());
        }
        if self.differs_pending {
            deadlines.push(self.changed_at + self.cfg.differs_after_ms);
        }
        deadlines.into_iter().min()
    }

    fn settle_for_candidate(&self) -> u64 {
        if self.from_snapshot && self.cfg.sensing == Sensing::Occupancy {
            self.cfg.settle_ms.max(self.cfg.differs_after_ms)
        } else {
            self.cfg.settle_ms
        }
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
                self.expected.board().piece_at(square).is_some() && piece.is_some()
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
        let confirming = self.awaiting_snapshot;
        self.awaiting_snapshot = false;
        if !corrected.is_empty() {
            self.from_snapshot = true;
            self.changed(now);
            out.push(Recognized::SnapshotCorrected { squares: corrected });
        }
        if confirming && corrected.is_empty() {
            // The dump confirms the state that settled: complete it now.
            if let Some(m) = self.candidate.take() {
                self.complete(m, now, out);
                return;
            }
        }
        self.evaluate(now, out);
    }

    fn changed(&mut self, now: Millis) {
        self.changed_at = now;
        self.differs_pending = false;
        self.candidate = None;
        self.awaiting_snapshot = false;
    }

    /// Whether the sensed state shows `board` (by identity, or by occupancy).
    fn shows(&self, board: &Board) -> bool {
        match self.cfg.sensing {
            Sensing::Identity => &self.state.pieces == board,
            Sensing::Occupancy => self.state.occupied == board.occupied(),
        }
    }

    /// Decide what the current state means.
    fn evaluate(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        if self.awaiting_snapshot {
            return;
        }
        match self.mode {
            Mode::Move => self.evaluate_move(now, out),
            Mode::Execute(m) => {
                let mut after = self.expected.clone();
                after.play_unchecked(m);
                if self.shows(after.board()) && self.capture_sequence_ok(m) {
                    if self.ripe(now) {
                        self.confirm_or(now, out, |this, _now, out| {
                            this.expected = after.clone();
                            this.mode = Mode::Hold;
                            this.reported = None;
                            this.touches.clear();
                            if this.cfg.sensing == Sensing::Occupancy {
                                this.state.pieces = after.board().clone();
                                this.state.hand.clear();
                            }
                            out.push(Recognized::Executed);
                        });
                    } else {
                        self.candidate = Some(m);
                    }
                    return;
                }
                let target = after.clone();
                let on_way = self.on_the_way(&self.expected.clone(), &target);
                self.judge_rest(
                    &target,
                    on_way || self.shows(self.expected.board()),
                    now,
                    out,
                );
            }
            Mode::Hold => {
                let expected = self.expected.clone();
                self.judge_rest(&expected, false, now, out);
            }
        }
    }

    fn evaluate_move(&mut self, now: Millis, out: &mut Vec<Recognized>) {
        let expected = self.expected.clone();
        if self.shows(expected.board()) {
            self.promotion = None;
            self.judge_rest(&expected, true, now, out);
            return;
        }
        let mut completing = Vec::new();
        let mut on_way = false;
        for m in expected.legal_moves() {
            let mut after = expected.clone();
            after.play_unchecked(m);
            if self.shows(after.board()) && self.capture_sequence_ok(m) {
                completing.push(m);
            } else if !on_way && self.on_the_way(&expected, &after) {
                on_way = true;
            }
        }
        match completing.as_slice() {
            [m] => {
                self.promotion = None;
                let m = *m;
                if self.ripe(now) {
                    self.confirm_or(now, out, move |this, now, out| this.complete(m, now, out));
                } else {
                    self.candidate = Some(m);
                }
            }
            [first, rest @ ..]
                if rest
                    .iter()
                    .all(|m| m.from() == first.from() && m.to() == first.to()) =>
            {
                // Same squares, different pieces: only a promotion on an occupancy board.
                let pending = (first.from().unwrap_or(first.to()), first.to());
                if self.promotion != Some(pending) {
                    self.promotion = Some(pending);
                    out.push(Recognized::PromotionPending {
                        from: pending.0,
                        to: pending.1,
                    });
                }
            }
            [] => {
                self.promotion = None;
                self.judge_rest(&expected, on_way, now, out);
            }
            _ => {
                // Only a state read from a snapshot on an occupancy board can fit two moves (a
                // piece that could capture on two squares, done while the board was away). Never
                // guess: once it rests, report the difference so the move is made again.
                self.judge_rest(&expected, false, now, out);
            }
        }
    }

    /// Whether the state has rested long enough to count (settle time).
    fn ripe(&self, now: Millis) -> bool {
        now.saturating_sub(self.changed_at) >= self.settle_for_candidate()
    }

    /// Either ask for a confirming snapshot first, or do `then` at once.
    fn confirm_or(
        &mut self,
        now: Millis,
        out: &mut Vec<Recognized>,
        then: impl FnOnce(&mut Self, Millis, &mut Vec<Recognized>),
    ) {
        if self.cfg.confirm_with_snapshot && !self.awaiting_snapshot {
            // Keep the candidate; the snapshot handler completes it.
            if self.candidate.is_none() {
                self.candidate = match self.mode {
                    Mode::Execute(m) => Some(m),
                    _ => None,
                };
            }
            if self.candidate.is_some() {
                self.awaiting_snapshot = true;
                out.push(Recognized::RequestSnapshot);
                return;
            }
        }
        self.candidate = None;
        then(self, now, out);
    }

    fn complete(&mut self, m: Move, now: Millis, out: &mut Vec<Recognized>) {
        if let Mode::Execute(_) = self.mode {
            // A snapshot confirmed the executed move.
            let mut after = self.expected.clone();
            after.play_unchecked(m);
            self.expected = after;
            self.mode = Mode::Hold;
            self.touches.clear();
            self.reported = None;
            out.push(Recognized::Executed);
            return;
        }
        let mut after = self.expected.clone();
        after.play_unchecked(m);
        let touches = std::mem::take(&mut self.touches);
        out.push(Recognized::MoveCompleted { mv: m, touches });
        // Until the arbiter says otherwise the board should keep showing the new position.
        if self.cfg.sensing == Sensing::Occupancy {
            self.state.pieces = after.board().clone();
            self.state.hand.clear();
        }
        self.expected = after;
        self.mode = Mode::Hold;
        self.reported = None;
        self.lifted_at = [0; 64];
        self.placed_at = [0; 64];
        self.changed_at = now;
        self.from_snapshot = false;
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

    /// A state that is not a completed move: report it as differing from `target` once it has
    /// rested long enough, unless it is acceptable (`fine`); report the return to `target`.
    fn judge_rest(&mut self, target: &Chess, fine: bool, now: Millis, out: &mut Vec<Recognized>) {
        self.candidate = None;
        self.differs_pending = false;
        if self.shows(target.board()) {
            if self.reported.take().is_some() {
                out.push(Recognized::Matches);
            }
            return;
        }
        if fine {
            return;
        }
        if now.saturating_sub(self.changed_at) < self.cfg.differs_after_ms {
            self.differs_pending = true;
            return;
        }
        let diff = self.diff(target.board());
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

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Color, fen::Fen, san::San};

    use super::*;

    const TACTILE: RecognizerConfig = RecognizerConfig {
        sensing: Sensing::Occupancy,
        settle_ms: 0,
        bounce_ms: 40,
        differs_after_ms: 1500,
        confirm_with_snapshot: false,
    };
    const DGT: RecognizerConfig = RecognizerConfig {
        sensing: Sensing::Identity,
        settle_ms: 400,
        bounce_ms: 0,
        differs_after_ms: 2000,
        confirm_with_snapshot: true,
    };

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
        r.event(lift(Square::H1), 0);
        r.event(put_piece(Square::F1, rk), 100);
        r.event(lift(Square::E1), 200);
        r.event(put_piece(Square::G1, k), 300);
        let out = r.tick(700);
        assert_eq!(out, vec![Recognized::RequestSnapshot]);
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
        // two squares and a knight pawn too: e2 and g2 empty, e4 and g4 occupied.
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
        r2.event(put(Square::G4), 300);
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
        assert_eq!(diff.squares[1].square, Square::G4);
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
        r2.event(lift(Square::G4), 6_000);
        let out = r2.event(put(Square::G2), 6_100);
        assert_eq!(out, vec![Recognized::Matches]);
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
}
