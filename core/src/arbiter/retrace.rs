//! F.8: the players' own scoresheets compared with the record; when they disagree while the
//! boards differ, a retrace to the last move both agree on is offered to the arbiter, and done
//! at his `confirm` (his `takeback` retraces at once). The clocks are held and the times
//! recorded after that move, with every clock change made since, proposed for him to confirm;
//! nobody moves until the clocks run again, and until then `undo` restores the game as it was.
//! A sheet that does not read where it parts from the record is said so, and retraces nothing.

use shakmaty::{ByColor, Color, Move, Position};

use super::{Arbiter, Effect, Proposal};
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
        let _ = now;
        let record: Vec<Move> = self.game.moves().iter().map(|r| r.mv).collect();
        let mine = sheet::compare(self.game.start_position(), &record, sans);
        out.push(Effect::Note(mine.summary(side)));
        if let Some(u) = mine.unreadable_at_difference() {
            // A sheet that does not read where it parts from the record says nothing about
            // where the scores agree: it is corrected, not taken for a difference at move 1.
            out.push(Effect::Note(format!(
                "{side}'s scoresheet does not read at {} '{}' ({}): nothing is retraced on it; \
                 enter it again with that move as written (F.8)",
                mine.move_label(u.ply),
                u.written,
                u.why.describe()
            )));
            self.sheets[side] = None;
            return;
        }
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
                // The arbiter's decision: offered with what it would do, done on `confirm`.
                self.drop_proposal(now, out);
                self.proposal = Some(Proposal::Retrace {
                    to_ply: agree,
                    record_plies: record.len(),
                });
                out.push(Effect::Note(format!(
                    "the two scoresheets agree for {agree} half-moves: retrace the game to {}? \
                     `confirm` retraces it (F.8); nothing changes until then",
                    self.ply_words(agree)
                )));
            }
        }
    }

    /// Where the game stands after `ply` half-moves, for people: "after 4...Nf6", "the start".
    pub(super) fn ply_words(&self, ply: usize) -> String {
        let Some(record) = ply.checked_sub(1).and_then(|i| self.game.moves().get(i)) else {
            return "the start of the game".into();
        };
        let start = self.game.start_position();
        let label = sheet::move_label(start.turn(), start.fullmoves().get(), ply - 1);
        format!("after {label} {}", record.san)
    }

    /// The arbiter confirms what was offered to him: the retrace F.8 proposed (while the boards
    /// still differ and no move has been made since).
    pub(super) fn confirm(&mut self, now: Millis, out: &mut Vec<Effect>) {
        match self.proposal.take() {
            None => out.push(Effect::Refused(
                "nothing waits for `confirm` (a retrace the scoresheets give, a penalty, are \
                 confirmed when offered)"
                    .into(),
            )),
            Some(Proposal::Retrace {
                to_ply,
                record_plies,
            }) => {
                if record_plies != self.game.ply() {
                    out.push(Effect::Refused(
                        "not retraced: a move was made since the scoresheets were compared; \
                         enter them again (F.8)"
                            .into(),
                    ));
                } else if !self.boards_differ() {
                    out.push(Effect::Refused(
                        "not retraced: both boards show the game's position now (F.8 applies \
                         while they differ); `takeback PLY` retraces all the same"
                            .into(),
                    ));
                } else {
                    let words = self.ply_words(to_ply);
                    let mark = out.len();
                    self.retrace(to_ply, now, out);
                    if self.retraced {
                        out.insert(
                            mark,
                            Effect::Note(format!(
                                "the game is retraced to {words}, where the two scoresheets \
                                 agree ({to_ply} half-moves, F.8); `undo` restores it as it \
                                 was until play goes on"
                            )),
                        );
                    }
                }
            }
            Some(Proposal::Penalty {
                input,
                ply,
                clocks_stopped,
            }) => self.apply_penalty(input, ply, clocks_stopped, now, out),
        }
    }

    /// The arbiter undoes the last retrace (F.8 or `takeback`) before play has gone on: the
    /// game, its record and its clocks as they were at the retrace, the clocks stopped; both
    /// boards are guided back to that position and play goes on at `resume`.
    pub(super) fn undo_retrace(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let Some(before) = self.undo.take() else {
            out.push(Effect::Refused(
                "nothing to undo: only a retrace (F.8, `takeback`) is undone, and only until \
                 play goes on"
                    .into(),
            ));
            return;
        };
        self.game = *before;
        self.proposed_clocks = None;
        self.proposal = None;
        self.sheets = ByColor::default();
        out.push(Effect::Note(format!(
            "the retrace is undone: the game stands {} again ({} half-moves), the clocks \
             stopped as they were; `resume` lets play go on",
            self.ply_words(self.game.ply()),
            self.game.ply()
        )));
        self.say(
            Audience::Both,
            Announcement::Retraced {
                side: self.game.to_move(),
            },
            out,
        );
        self.differing = ByColor::default();
        self.hold_both(now, out);
        self.retraced = true;
        out.push(Effect::RecordChanged);
    }

    /// Whether a board rests on another position than the one it should show (F.8's condition):
    /// a difference told to its player that the board still shows.
    fn boards_differ(&self) -> bool {
        Color::ALL.into_iter().any(|seat| {
            self.differing[seat].is_some() && self.board(seat).is_none_or(|r| !r.shows_expected())
        })
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
        // What `undo` restores: the game as it stands, its clocks stopped now.
        let mut before = self.game.clone();
        if before.clock().is_some_and(|c| c.running().is_some()) {
            let _ = before.apply(game::Input::Pause(game::PauseReason::Arbiter), now);
        }
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
        self.undo = Some(Box::new(before));
        self.proposal = None;
        self.sheets = ByColor::default();
        // The boards are told anew what they should show; a difference with the game taken
        // back is no difference now.
        self.differing = ByColor::default();
        self.proposed_clocks = Some(self.game.proposed_clocks(to_ply).unwrap_or_else(|| {
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
        // Play goes on: the retrace stands.
        self.undo = None;
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

    /// A training game's takeback: the clocks as they stood after the half-move the game went
    /// back to, set without a word to confirm (nobody is there to) and without a clock change
    /// on the record (nobody changed one).
    pub(super) fn restore_clocks(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let noted = self.game.clock_notes().len();
        self.confirm_clocks(now, out);
        self.game.forget_clock_notes_from(noted);
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
            self.rules(game::Input::Resume(game::PauseReason::Arbiter), now, out);
        }
        self.release_hold(now, out);
    }
}
