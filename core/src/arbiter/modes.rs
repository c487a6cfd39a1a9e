//! What each board waits for: the player to move moves on his board, the other board awaits his
//! move (and may show it ahead of time), a board that must make the opponent's move executes it,
//! and after the game, an adjournment or a retrace both boards hold the game's position.

use shakmaty::Position;

use super::{Arbiter, BoardId, ByBoard, Effect};
use crate::{
    board::recognize::{Mode, Recognizer},
    rules::Millis,
};

impl Arbiter {
    /// Each board waits for its player's own move, or holds the position.
    pub(super) fn set_modes(&mut self, now: Millis, out: &mut Vec<Effect>) {
        self.set_modes_of(ByBoard::new_with(|_| true), now, out);
    }

    /// [`Arbiter::set_modes`], except that a board that has a move to make on it keeps waiting
    /// for it.
    pub(super) fn refresh_modes(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let executing = |mode: Option<Mode>| matches!(mode, Some(Mode::Execute(_)));
        let boards = ByBoard {
            blind: !executing(Some(self.blind_board.mode())),
            sighted: !executing(self.sighted_board.as_ref().map(Recognizer::mode)),
        };
        self.set_modes_of(boards, now, out);
    }

    /// [`Arbiter::set_modes`] for the boards marked (tactile, sighted): the player to move moves
    /// on his board, the other board awaits his move (and may show it ahead of time).
    pub(super) fn set_modes_of(
        &mut self,
        boards: ByBoard<bool>,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let position = self.game.position().clone();
        // An adjourned game stands still on both boards until the envelope is opened.
        let over = self.game.is_over() || self.game.adjournment().is_some();
        let mode_of = |board: BoardId| {
            if over {
                Mode::Hold
            } else if position.turn() == self.player(board) {
                Mode::Move
            } else {
                Mode::Await
            }
        };
        let (blind_mode, sighted_mode) = (mode_of(BoardId::Blind), mode_of(BoardId::Sighted));
        if boards.blind {
            self.putting_back.blind = false;
            let r = self
                .blind_board
                .set_expected(position.clone(), blind_mode, now);
            self.recognized(BoardId::Blind, r, now, out);
        }
        if boards.sighted
            && let Some(board) = self.sighted_board.as_mut()
        {
            self.putting_back.sighted = false;
            let r = board.set_expected(position, sighted_mode, now);
            self.recognized(BoardId::Sighted, r, now, out);
            if sighted_mode == Mode::Move && self.press_pending {
                // He pressed for a reply he had made ahead: it counts now, if it stands.
                self.press_sighted_board(now, out);
            }
        }
    }

    /// Both boards should show the game's position and nobody moves on them.
    pub(super) fn hold_both(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let position = self.game.position().clone();
        let r = self
            .blind_board
            .set_expected(position.clone(), Mode::Hold, now);
        self.recognized(BoardId::Blind, r, now, out);
        if let Some(board) = self.sighted_board.as_mut() {
            let r = board.set_expected(position, Mode::Hold, now);
            self.recognized(BoardId::Sighted, r, now, out);
        }
    }
}
