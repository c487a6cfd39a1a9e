//! Move recognition driven by simulated hands on virtual time: a [`Recognizer`] fed the sensor
//! events of [`script`](super::script), answering its snapshot requests from the
//! [`PhysicalBoard`] and its promotion prompts from the game, as the shell's board link would.
//!
//! One home for what the recogniser's own tests, the corpus recognition test and the recognition
//! benchmark share: the two board kinds' recogniser settings ([`TACTILE`], [`DGT`]) and the driver
//! ([`Hands`]). Pure like the rest of `sim`: time is a [`Millis`] the driver advances itself.

use shakmaty::{Chess, Move, Position, Role, Square};

use super::script::PhysicalBoard;
use crate::{
    board::{
        Sensing, SensorEvent,
        recognize::{Mode, Recognized, Recognizer, RecognizerConfig},
    },
    rules::Millis,
};

/// The pegged tactile board: occupancy only, a short bounce filter, no settle time.
pub const TACTILE: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Occupancy,
    settle_ms: 0,
    scan_ms: 0,
    bounce_ms: 40,
    differs_after_ms: 1500,
    confirm_with_snapshot: false,
};

/// The DGT board: pieces identified, a settle time, moves confirmed with a snapshot.
pub const DGT: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Identity,
    settle_ms: 400,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 2000,
    confirm_with_snapshot: true,
};

/// A recogniser, the physical board under the hands, and what the recogniser reported.
///
/// Anything but a lawful game played cleanly is a bug in the recogniser or the script, so a
/// difference, a corrected snapshot, a clock press without a move or a promotion prompt nobody
/// expected panics with the [`label`](Hands::label).
pub struct Hands {
    pub rec: Recognizer,
    pub phys: PhysicalBoard,
    pub sensing: Sensing,
    /// The virtual time of the last event or deadline.
    pub now: Millis,
    /// Every completed move with its touch log, in order.
    pub completed: Vec<(Move, Vec<Square>)>,
    /// Every square reported touched, in order (the caller clears it between moves).
    pub touches: Vec<Square>,
    /// The promotion piece the player announces, when the board cannot tell it.
    pub announce: Option<Role>,
    /// Names the game and style in a panic.
    pub label: String,
}

impl Hands {
    /// A recogniser expecting a move from `start`, at virtual time 1 s.
    pub fn new(cfg: RecognizerConfig, start: &Chess, label: String) -> Hands {
        Hands {
            rec: Recognizer::new(cfg, start.clone(), Mode::Move),
            phys: PhysicalBoard::new(start.board().clone()),
            sensing: cfg.sensing,
            now: 1_000,
            completed: Vec::new(),
            touches: Vec::new(),
            announce: None,
            label,
        }
    }

    /// Act on the recogniser's output as the shell would.
    pub fn handle(&mut self, out: Vec<Recognized>) {
        for r in out {
            match r {
                Recognized::RequestSnapshot => {
                    let snapshot = SensorEvent::Snapshot(self.phys.snapshot(self.sensing));
                    let more = self.rec.event(snapshot, self.now);
                    self.handle(more);
                }
                Recognized::MoveCompleted { mv, touches } => {
                    self.completed.push((mv, touches));
                    // The recogniser already shows the position after the move; the next player
                    // moves on the same board.
                    let next = self.rec.expected().clone();
                    let more = self.rec.set_expected(next, Mode::Move, self.now);
                    self.handle(more);
                }
                Recognized::PromotionPending { .. } => {
                    let role = self
                        .announce
                        .unwrap_or_else(|| panic!("{}: unexpected promotion prompt", self.label));
                    let more = self.rec.promotion(role, self.now);
                    self.handle(more);
                }
                Recognized::Touched { square, .. } => self.touches.push(square),
                Recognized::PromotionLeft { to, .. } => {
                    panic!("{}: the pawn left its promotion square {to}", self.label)
                }
                Recognized::Differs(diff) => {
                    panic!("{}: unexpected difference {diff:?}", self.label)
                }
                Recognized::SnapshotCorrected { squares } => {
                    panic!("{}: snapshot corrected {squares:?}", self.label)
                }
                Recognized::NoMove => panic!("{}: nobody pressed a clock here", self.label),
                Recognized::OutOfTurn { mv } => {
                    panic!("{}: a move out of turn {mv:?}", self.label)
                }
                Recognized::Lifted { .. } | Recognized::Executed | Recognized::Matches => {}
            }
        }
    }

    /// Let time pass up to `until`, ticking at every deadline on the way.
    pub fn advance(&mut self, until: Millis) {
        for _ in 0..1000 {
            match self.rec.next_deadline() {
                Some(d) if d <= until => {
                    self.now = self.now.max(d);
                    let out = self.rec.tick(self.now);
                    self.handle(out);
                }
                _ => break,
            }
        }
        self.now = self.now.max(until);
    }

    /// After `delay` ms, one event from the hands: the physical board changes, and the recogniser
    /// hears what the board can tell (an occupancy board does not name the piece placed).
    pub fn feed(&mut self, delay: u64, event: SensorEvent) {
        self.advance(self.now + delay);
        self.phys.apply(&event);
        let event = match (self.sensing, event) {
            (Sensing::Occupancy, SensorEvent::Place { square, .. }) => SensorEvent::Place {
                square,
                piece: None,
            },
            (_, e) => e,
        };
        let out = self.rec.event(event, self.now);
        self.handle(out);
    }
}
