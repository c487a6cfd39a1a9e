//! When a move counts. A blind player's move counts once it has been announced to his opponent
//! and stands on his tactile board (F.3 b, F.3 c): his clock runs until the announcement has
//! finished (F.9 c). A sighted player's move counts when he stops his clock (6.7 a), or, on a
//! board without a clock button, when his board settles on it; the blind opponent then hears it
//! and executes it on his board. At a table with two blind players each move is announced to the
//! other, who executes it on his own board.

use shakmaty::{Move, Position};

use shakmaty::Color;

use super::{Arbiter, Effect, intake::holds};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    board::recognize::Mode,
    rules::{Millis, game},
};

/// When the sighted player's move counts as completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// When he stops his clock (a key or pedal, the console's `press`, a DGT clock lever).
    ClockPress,
    /// When his board rests on the position after a legal move (boards without a clock button).
    Settle,
}

/// A blind player's move, waiting to count: it counts once it has been announced (F.3 c) and
/// stands on his tactile board (F.3 b; after a correction under F.6 he must make the corrected
/// move first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PendingAnnouncement {
    /// The blind player who moved.
    pub(super) seat: Color,
    pub(super) id: u64,
    pub(super) mv: Move,
    pub(super) announced: bool,
    pub(super) on_board: bool,
    /// Announced and on his board: it counts at this time, when F.6's window has passed.
    pub(super) counts_at: Option<Millis>,
}

impl Arbiter {
    /// The sighted player stopped his clock (6.7 a). His move is what his board shows (or what
    /// the assistant entered); it counts as soon as the board can tell. A press while the blind
    /// player's move is still being announced is kept for the reply he has made ahead of it.
    pub(super) fn press(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if self.game.is_over() {
            out.push(Effect::Note(
                "clock pressed after the game; nothing to do".into(),
            ));
            return;
        }
        let Some(sighted) = self.cfg.the_sighted() else {
            out.push(Effect::Refused(
                "nobody needs to press: each blind player's move counts once it is announced \
                 (F.3)"
                    .into(),
            ));
            return;
        };
        if let Some(m) = self.sighted_candidate.take() {
            self.complete_sighted(sighted, m, now, out);
            return;
        }
        let sensors = self.boards[sighted].is_some();
        let blind_move_coming =
            self.pending.is_some() || self.held.is_some_and(|h| h.seat != sighted);
        if self.game.to_move() == sighted && !sensors {
            self.refuse_press(
                sighted,
                "clock pressed, but no move has been entered for the sighted player; enter it \
                 with `move`",
                out,
            );
        } else if self.game.to_move() == sighted {
            self.press_pending = true;
            self.press_board(sighted, now, out);
        } else if blind_move_coming && sensors {
            self.press_pending = true;
            out.push(Effect::Note(
                "clock pressed while the blind player's move is being announced: the sighted \
                 player's reply counts once that move has"
                    .into(),
            ));
        } else {
            let side = self.game.to_move();
            self.say(
                Audience::Player(sighted),
                Announcement::ToMove { side },
                out,
            );
            out.push(Effect::Refused(format!(
                "clock pressed, but it is {side}'s move; the sighted player has no move to complete"
            )));
        }
    }

    /// The press of `seat`'s player, to his board.
    pub(super) fn press_board(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        if let Some(board) = self.recognizer(seat) {
            let r = board.press(now);
            self.recognized(seat, r, now, out);
        }
    }

    /// A press that completes nothing: its player hears it, the console reads why.
    pub(super) fn refuse_press(&mut self, seat: Color, why: &str, out: &mut Vec<Effect>) {
        self.say(Audience::Player(seat), Announcement::NoMoveToCount, out);
        out.push(Effect::Refused(why.into()));
    }

    /// The sighted player's (`seat`'s) move is complete: his clock stops, the blind player's
    /// starts, and the blind player hears the move and executes it on his board.
    pub(super) fn complete_sighted(
        &mut self,
        seat: Color,
        mv: Move,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let before = self.game.position().clone();
        if self.game.to_move() != seat || !before.is_legal(mv) {
            out.push(Effect::Note("no sighted move to complete".into()));
            return;
        }
        match self.check_move(mv, now) {
            Ok(()) => {}
            Err(e) if holds(&e) => return self.hold(seat, mv, false, &e, out),
            Err(e) => return self.refuse_move(seat, mv, &e, now, out),
        }
        // The move is said before whatever it causes (check, mate, stalemate, the result).
        let mut consequences = Vec::new();
        if !self.rules(game::Input::Move(mv), now, &mut consequences) {
            out.extend(consequences);
            return;
        }
        self.say(
            Audience::Player(!seat),
            Announcement::Move(MoveWords::new(&before, mv)),
            out,
        );
        out.extend(consequences);
        // He executes it on his board, even when it ended the game; until he does, his board
        // simply still shows the position before it, which is no difference to complain about.
        if let Some(board) = self.recognizer(!seat) {
            let r = board.set_expected(before, Mode::Execute(mv), now);
            self.recognized(!seat, r, now, out);
        }
        let mode = if self.game.is_over() {
            Mode::Hold
        } else {
            Mode::Await
        };
        let position = self.game.position().clone();
        if let Some(board) = self.recognizer(seat) {
            let r = board.set_expected(position, mode, now);
            self.recognized(seat, r, now, out);
        }
    }

    /// F.3: a blind player's (`seat`'s) move stands on his tactile board; it counts once
    /// announced to his opponent. His clock runs until the announcement has finished (F.3 c,
    /// F.9 c). He hears it said back (F.1).
    pub(super) fn announce_blind(&mut self, seat: Color, mv: Move, out: &mut Vec<Effect>) {
        self.promotion_ahead[seat] = None;
        let before = self.game.position().clone();
        let words = MoveWords::new(&before, mv);
        let id = self.say(Audience::Player(!seat), Announcement::Move(words), out);
        if self.cfg.say_own_move {
            self.say(Audience::Player(seat), Announcement::OwnMove(words), out);
        }
        self.pending = Some(PendingAnnouncement {
            seat,
            id,
            mv,
            announced: false,
            on_board: true,
            counts_at: None,
        });
    }

    pub(super) fn speech_finished(&mut self, id: u64, now: Millis, out: &mut Vec<Effect>) {
        let Some(pending) = self.pending.filter(|p| p.id == id) else {
            return;
        };
        if !pending.on_board {
            // Corrected (F.6) and not yet made on his board: it counts once it stands there.
            self.pending = Some(PendingAnnouncement {
                announced: true,
                ..pending
            });
            return;
        }
        if self.cfg.correction_window_ms > 0 {
            // F.6: he may still correct it; it counts when the window has passed.
            self.pending = Some(PendingAnnouncement {
                announced: true,
                counts_at: Some(now + self.cfg.correction_window_ms),
                ..pending
            });
            return;
        }
        self.pending = None;
        self.count_blind(pending.seat, pending.mv, now, out);
    }

    /// F.6's window has passed: the announced move counts.
    pub(super) fn correction_window_passed(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let Some(pending) = self
            .pending
            .filter(|p| p.on_board && p.counts_at.is_some_and(|at| now >= at))
        else {
            return;
        };
        self.pending = None;
        self.count_blind(pending.seat, pending.mv, now, out);
    }

    /// A blind player's (`seat`'s) move counts (announced and on his board): his clock stops,
    /// his opponent executes it on his board.
    pub(super) fn count_blind(
        &mut self,
        seat: Color,
        mv: Move,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let before = self.game.position().clone();
        match self.check_move(mv, now) {
            Ok(()) => {}
            Err(e) if holds(&e) => return self.hold(seat, mv, true, &e, out),
            Err(e) => return self.refuse_move(seat, mv, &e, now, out),
        }
        if !self.rules(game::Input::Move(mv), now, out) {
            return;
        }
        if self.game.is_over() {
            self.set_modes(now, out);
            return;
        }
        // The opponent executes the move on his board; this board awaits his reply.
        let position = self.game.position().clone();
        if let Some(board) = self.recognizer(seat) {
            let r = board.set_expected(position, Mode::Await, now);
            self.recognized(seat, r, now, out);
        }
        if let Some(board) = self.recognizer(!seat) {
            let r = board.set_expected(before, Mode::Execute(mv), now);
            self.recognized(!seat, r, now, out);
        }
    }
}
