//! Which of the two boards: [`BoardId`], a value for each ([`ByBoard`]), and which audience
//! and which board's words belong to each. Whose colour a board's player has is the table's
//! setup, so that is [`Arbiter`](super::Arbiter)'s.

use crate::announce::{Audience, WhichBoard};

/// Which of the two boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardId {
    /// The blind player's tactile board.
    Blind,
    /// The sighted player's board.
    Sighted,
}

impl BoardId {
    pub const ALL: [BoardId; 2] = [BoardId::Blind, BoardId::Sighted];

    /// The board's name for people and logs: "tactile", "sighted".
    pub fn name(self) -> &'static str {
        match self {
            BoardId::Blind => "tactile",
            BoardId::Sighted => "sighted",
        }
    }

    /// Its player, as notes name him: "blind", "sighted".
    pub fn player(self) -> &'static str {
        match self {
            BoardId::Blind => "blind",
            BoardId::Sighted => "sighted",
        }
    }

    pub fn other(self) -> BoardId {
        match self {
            BoardId::Blind => BoardId::Sighted,
            BoardId::Sighted => BoardId::Blind,
        }
    }
}

/// A value for each board, indexed by [`BoardId`] (as shakmaty's `ByColor` is by colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct ByBoard<T> {
    pub blind: T,
    pub sighted: T,
}

impl<T> ByBoard<T> {
    pub fn new_with(mut f: impl FnMut(BoardId) -> T) -> ByBoard<T> {
        ByBoard {
            blind: f(BoardId::Blind),
            sighted: f(BoardId::Sighted),
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByBoard<U> {
        ByBoard {
            blind: f(self.blind),
            sighted: f(self.sighted),
        }
    }

    /// Each board with its value, the tactile board first.
    pub fn iter(&self) -> impl Iterator<Item = (BoardId, &T)> {
        [
            (BoardId::Blind, &self.blind),
            (BoardId::Sighted, &self.sighted),
        ]
        .into_iter()
    }
}

impl<T> std::ops::Index<BoardId> for ByBoard<T> {
    type Output = T;
    fn index(&self, board: BoardId) -> &T {
        match board {
            BoardId::Blind => &self.blind,
            BoardId::Sighted => &self.sighted,
        }
    }
}

impl<T> std::ops::IndexMut<BoardId> for ByBoard<T> {
    fn index_mut(&mut self, board: BoardId) -> &mut T {
        match board {
            BoardId::Blind => &mut self.blind,
            BoardId::Sighted => &mut self.sighted,
        }
    }
}

/// Who hears what concerns a board's player.
pub(super) fn audience_of(board: BoardId) -> Audience {
    match board {
        BoardId::Blind => Audience::Blind,
        BoardId::Sighted => Audience::Sighted,
    }
}

pub(super) fn which(board: BoardId) -> WhichBoard {
    match board {
        BoardId::Blind => WhichBoard::Tactile,
        BoardId::Sighted => WhichBoard::Sighted,
    }
}
