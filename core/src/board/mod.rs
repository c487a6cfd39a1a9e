//! Sensor boards: what stands on a physical board and when a piece is lifted or placed.
//!
//! This module owns the pure side of the boards: the protocol codecs (sans-IO: bytes in, typed
//! messages out, and back) behind one seam per protocol ([`protocol`]), the board profiles, and
//! move recognition from lift and place events.
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
pub mod protocol;
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

    /// Map a whole board the same way. Both orientations are their own inverse (the identity and
    /// a half turn), so this maps the board's numbering to the game's and back.
    pub fn apply_board(self, board: &Board) -> Board {
        let mut out = Board::empty();
        for (square, piece) in board {
            out.set_piece_at(self.apply(square), piece);
        }
        out
    }

    /// Map an event as the board numbers it to the game's squares (and back).
    pub fn apply_event(self, event: SensorEvent) -> SensorEvent {
        match event {
            SensorEvent::Lift { square } => SensorEvent::Lift {
                square: self.apply(square),
            },
            SensorEvent::Place { square, piece } => SensorEvent::Place {
                square: self.apply(square),
                piece,
            },
            SensorEvent::Snapshot(Sensed::Pieces(board)) => {
                SensorEvent::Snapshot(Sensed::Pieces(self.apply_board(&board)))
            }
            SensorEvent::Snapshot(Sensed::Occupancy(occupied)) => SensorEvent::Snapshot(
                Sensed::Occupancy(occupied.into_iter().map(|sq| self.apply(sq)).collect()),
            ),
            SensorEvent::Button(n) => SensorEvent::Button(n),
        }
    }

    /// How the board lies, judged from a full reading in its own numbering: `Normal` if it shows
    /// the start position, `Reversed` if it shows it turned round, `None` for anything else
    /// (mid-game, pieces missing or misplaced, or a board that senses only occupancy, whose
    /// start position looks the same both ways round).
    pub fn detect(reading: &Sensed) -> Option<Orientation> {
        let Sensed::Pieces(board) = reading else {
            return None;
        };
        let start = Board::new();
        [Orientation::Normal, Orientation::Reversed]
            .into_iter()
            .find(|&o| o.apply_board(board) == start)
    }

    /// The word for people.
    pub fn name(self) -> &'static str {
        match self {
            Orientation::Normal => "normal",
            Orientation::Reversed => "reversed",
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
