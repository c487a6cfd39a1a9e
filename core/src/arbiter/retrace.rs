//! F.8: the players' own scoresheets compared with the record; when they disagree while the
//! boards differ, the game is retraced to the last move both agree on (also the arbiter's
//! `takeback`), the clocks held and the times recorded after that move proposed for the arbiter
//! to confirm; nobody moves until the clocks run again.

use shakmaty::{ByColor, Color, Move};

use super::{Arbiter, Effect};
use crate::{
    announce::{Announcement, Audience},
    board::recognize::Recognizer,
    rules::{Millis, game, sheet},
};

impl Arbiter {
    /// F.8: a player's own scoresheet, read in any notation the Laws allow and compared move by
    /// move with the record (a sheet behind by what 8.1 allows agrees). A difference retraces
    /// the game only when the two boards differ, and only to where both players' scores agree:
    /// with one sheet entered the other is asked for.
    pub(super) fn scoresheet(
        &mut self,
        side: Color,
        sans: &[String],
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let record: Vec<Move> = self.game.moves().iter().map(|r| r.mv).collect();
        let mine = sheet::compare(self.game.start_position(), &record, sans);
        out.push(Effect::Note(mine.summary(side)));
        self.sheets[side] = Some(mine);
        // Each sheet entered for the record as it stands now, with whether it differs from it.
        let current = |writer: Color| {
            self.sheets[writer]
                .as_ref()
                .filter(|s| s.record_plies == record.len())
                .map(|s| (s.agree, s.differs(writer)))
        };
        let (mine, other) = (current(side), current(!side));
        let differing: Vec<usize> = [mine, other]
            .into_iter()
            .flatten()
            .filter_map(|(agree, differs)| differs.then_some(agree))
            .collect();
        // F.8 applies "if during a game different positions should arise on the two boards".
        let boards_differ = self.boards_differ();
        match (differing.iter().min(), other, boards_differ) {
            (None, Some(_), true) => out.push(Effect::Note(
                "both scoresheets agree with the record: the board that differs is put right \
                 (F.8)"
                    .into(),
            )),
            (None, _, _) => {}
            (Some(_), _, false) => out.push(Effect::Note(
                "both boards show the game's position, so nothing is retraced (F.8 applies when \
                 the boards differ); the arbiter decides (`takeback PLY` retraces)"
                    .into(),
            )),
            (Some(_), None, true) => out.push(Effect::Note(format!(
                "enter {}'s scoresheet too: the game goes back to where the two scores agree \
                 (F.8)",
                !side
            ))),
            (Some(&agree), Some(_), true) => {
                // Said only once the retrace is done: a refused one says why instead.
                let mark = out.len();
                self.retrace(agree, now, out);
                if self.retraced {
                    out.insert(
                        mark,
                        Effect::Note(format!(
                            "the two scoresheets agree for {agree} half-moves: the game is \
                             retraced to there (F.8)"
                        )),
                    );
                }
            }
        }
    }

    /// Whether a board rests on another position than the one it should show (F.8's condition).
    fn boards_differ(&self) -> bool {
        self.differing.iter().any(|d| d.is_some())
    }

    /// Take the game back to `to_ply` half-moves (F.8, or the arbiter's `takeback`): the clocks
    /// are held, the times the record has for that point are proposed, both boards are guided
    /// back to its position and nobody moves until the clocks are confirmed or resumed.
    pub(super) fn retrace(&mut self, to_ply: usize, now: Millis, out: &mut Vec<Effect>) {
        let kept = (
            self.pending,
            self.sighted_candidate,
            self.held,
            self.press_pending,
        );
        self.pending = None;
        self.sighted_candidate = None;
        self.held = None;
        self.press_pending = false;
        self.promotion_ahead = ByColor::default();
        if !self.rules(game::Input::Retract { to_ply }, now, out) {
            (
                self.pending,
                self.sighted_candidate,
                self.held,
                self.press_pending,
            ) = kept;
            return;
        }
        if let Some(held) = kept.2 {
            out.push(Effect::Note(format!(
                "the {} player's held move is taken back",
                self.names().player(held.seat)
            )));
        }
        self.proposed_clocks = Some(self.game.clocks_after_ply(to_ply).unwrap_or_else(|| {
            let clock = self.game.clock();
            shakmaty::ByColor::new_with(|c| clock.map_or(0, |k| k.remaining(c, now)))
        }));
        if let Some(p) = self.proposed_clocks {
            out.push(Effect::Note(format!(
                "proposed clocks: White {}, Black {}; confirm with confirm-clocks or set them",
                crate::rules::pgn::format_clk(p.white),
                crate::rules::pgn::format_clk(p.black)
            )));
        }
        // Both players hear it first; then both boards are guided back to the retraced
        // position, and nobody moves until the clocks run again.
        self.say(
            Audience::Both,
            Announcement::Retraced {
                side: self.game.to_move(),
            },
            out,
        );
        self.hold_both(now, out);
        self.retraced = true;
        out.push(Effect::RecordChanged);
    }

    /// After a retrace, once the clocks run again: the player to move may move, on a board that
    /// shows the retraced position (one that still shows a move taken back is guided until it
    /// does, so that the move is not made again by itself).
    pub(super) fn release_hold(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if !std::mem::take(&mut self.retraced) {
            return;
        }
        for seat in self.seats() {
            match self.board(seat).map(Recognizer::shows_expected) {
                Some(true) => {
                    self.set_modes_of(ByColor::new_with(|c| c == seat), now, out);
                }
                Some(false) => self.putting_back[seat] = true,
                None => {}
            }
        }
    }

    pub(super) fn confirm_clocks(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let Some(proposed) = self.proposed_clocks.take() else {
            out.push(Effect::Refused(
                "no clock times are waiting for confirmation".into(),
            ));
            return;
        };
        for side in Color::ALL {
            self.rules(
                game::Input::SetClock {
                    side,
                    remaining_ms: *proposed.get(side),
                },
                now,
                out,
            );
        }
        if self.game.clock().is_some_and(|c| c.is_paused()) {
            self.rules(game::Input::Resume, now, out);
        }
        self.release_hold(now, out);
    }
}
