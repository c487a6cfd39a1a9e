//! What each board waits for: the player to move moves on his board, the other board awaits his
//! move (and may show it ahead of time), a board that must make the opponent's move executes it,
//! and after the game, an adjournment or a retrace both boards hold the game's position.

use shakmaty::{ByColor, Color, Position};

use super::{Arbiter, Effect};
use crate::{board::recognize::Mode, rules::Millis};

impl Arbiter {
    /// Each board waits for its player's own move, or holds the position.
    pub(super) fn set_modes(&mut self, now: Millis, out: &mut Vec<Effect>) {
        self.set_modes_of(ByColor::new_with(|_| true), now, out);
    }

    /// [`Arbiter::set_modes`], except that a board that has a move to make on it keeps waiting
    /// for it.
    pub(super) fn refresh_modes(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let boards = ByColor::new_with(|seat| {
            !matches!(self.board(seat).map(|r| r.mode()), Some(Mode::Execute(_)))
        });
        self.set_modes_of(boards, now, out);
    }

    /// [`Arbiter::set_modes`] for the boards marked: the player to move moves on his board, the
    /// other board awaits his move (and may show it ahead of time).
    pub(super) fn set_modes_of(
        &mut self,
        boards: ByColor<bool>,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let position = self.game.position().clone();
        // An adjourned game stands still on both boards until the envelope is opened.
        let over = self.game.is_over() || self.game.adjournment().is_some();
        let mode_of = |seat: Color| {
            if over {
                Mode::Hold
            } else if position.turn() == seat {
                Mode::Move
            } else {
                Mode::Await
            }
        };
        for seat in self.seats() {
            if !boards[seat] {
                continue;
            }
            let mode = mode_of(seat);
            let Some(board) = self.recognizer(seat) else {
                continue;
            };
            let r = board.set_expected(position.clone(), mode, now);
            self.putting_back[seat] = false;
            self.recognized(seat, r, now, out);
            if mode == Mode::Move && self.press_pending && !self.is_blind(seat) {
                // He pressed for a reply he had made ahead: it counts now, if it stands.
                self.press_board(seat, now, out);
            }
        }
    }

    /// Both boards should show the game's position and nobody moves on them.
    pub(super) fn hold_both(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let position = self.game.position().clone();
        for seat in self.seats() {
            if let Some(board) = self.recognizer(seat) {
                let r = board.set_expected(position.clone(), Mode::Hold, now);
                self.recognized(seat, r, now, out);
            }
        }
    }
}
