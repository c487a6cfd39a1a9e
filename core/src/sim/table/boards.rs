//! The boards as the protocols model them: what stands on each and what its electronics have
//! found, its line to the host (wire times, lost messages when unplugged), and the DGT board's
//! sweep that samples its squares one after another.

use shakmaty::{Board, Color, Square};

use super::{Action, World};
use crate::{
    board::{Sensing, SensorEvent},
    rules::Millis,
    sim::sweep::Sweep,
};

/// One board's physical pieces and its line to the host.
#[derive(Debug, Clone)]
pub(super) struct Physical {
    /// What stands on the board.
    pub(super) board: Board,
    /// What the board's electronics have found so far (a DGT board's scan lags the pieces).
    pub(super) view: Board,
    pub(super) sensing: Sensing,
    /// Reported at all (a plain board has no sensors).
    pub(super) sensors: bool,
    pub(super) connected: bool,
    /// Bumped at every unplug: messages of an older connection are lost.
    pub(super) epoch: u64,
    /// The line is busy until then.
    pub(super) line_free: Millis,
    /// The sweep's length and where it starts (DGT board).
    pub(super) sweep_ms: u64,
    pub(super) sweep_offset: u64,
    /// A sample of each square already planned (DGT board).
    pub(super) sampling: [bool; 64],
}

impl World {
    /// A message onto a board's line, behind what is on it already.
    pub(super) fn send(&mut self, board: Color, event: SensorEvent, wire: u64) {
        let b = &mut self.boards[board];
        let at = b.line_free.max(self.now) + wire;
        b.line_free = at;
        let epoch = b.epoch;
        self.schedule(
            at,
            Action::Deliver {
                board,
                epoch,
                event,
            },
        );
    }
}

/// When the sweep next samples `square` at or after `now`. The board numbers its fields a8 = 0
/// to h1 = 63 and samples them in that order.
pub(super) fn next_sample(b: &Physical, square: Square, now: Millis) -> Millis {
    // The table's DGT board lies the normal way round: a8 is field 0.
    let field = (u32::from(square) ^ 56) as u8;
    Sweep {
        period_ms: b.sweep_ms,
        offset_ms: b.sweep_offset,
    }
    .next_sample(field, now)
}

/// Apply one hand event to a board.
pub(super) fn apply(board: &mut Board, event: &SensorEvent) {
    match event {
        SensorEvent::Lift { square } => {
            board.discard_piece_at(*square);
        }
        SensorEvent::Place {
            square,
            piece: Some(p),
        } => board.set_piece_at(*square, *p),
        SensorEvent::Place { piece: None, .. }
        | SensorEvent::Snapshot(_)
        | SensorEvent::Button(_) => {}
    }
}
