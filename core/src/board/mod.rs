//! Sensor boards: what stands on a physical board and when a piece is lifted or placed.
//!
//! This module owns the pure side of the boards: the protocol codecs (sans-IO: bytes in, typed
//! messages out, and back), the board profiles, and move recognition from lift and place events.
//! It never opens a port, sleeps or reads the clock; the serial transport lives in the shell
//! (the `tactus` crate's board links, over the pure [`session`]) and hands events in with the time they
//! arrived.
//!
//! Past the codecs everything speaks shakmaty's types: a [`SensorEvent`] names a [`Square`]
//! (orientation already applied) and, on boards that identify pieces, a [`Piece`].

pub mod dgt;
pub mod dgt_clock;
pub mod line;
pub mod profile;
pub mod recognize;
pub mod session;
pub mod throttle;

use serde::{Deserialize, Serialize};
use shakmaty::{Bitboard, Board, Piece, Square};

/// What a board can tell about the pieces standing on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sensing {
    /// Every square reports which piece stands on it (DGT).
    Identity,
    /// Every aperture reports only whether it is occupied (the pegged tactile board).
    Occupancy,
}

/// A full reading of the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sensed {
    Occupancy(Bitboard),
    Pieces(Board),
}

impl Sensed {
    /// The occupied squares, whatever the board can tell.
    pub fn occupied(&self) -> Bitboard {
        match self {
            Sensed::Occupancy(bb) => *bb,
            Sensed::Pieces(board) => board.occupied(),
        }
    }
}

/// How the board lies on the table relative to its own square numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    /// White's pieces start on the board's ranks 1 and 2.
    #[default]
    Normal,
    /// The board was set up the other way round: its a1 is White's h8.
    Reversed,
}

impl Orientation {
    /// Map a square as the board numbers it to the square of the game.
    pub fn apply(self, square: Square) -> Square {
        match self {
            Orientation::Normal => square,
            Orientation::Reversed => square.flip_horizontal().flip_vertical(),
        }
    }
}

/// One thing a board reported, in the game's squares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SensorEvent {
    /// A piece left `square` (on the tactile board: it was touched, F.2).
    Lift { square: Square },
    /// A piece was placed on `square`; `piece` on boards that identify pieces.
    Place {
        square: Square,
        piece: Option<Piece>,
    },
    /// A full reading (after a request, at start-up, after a reconnect).
    Snapshot(Sensed),
    /// A button on the board (the player's requests).
    Button(u8),
}
