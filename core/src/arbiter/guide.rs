//! F.7: a board that rests on another position than the one it should show. Its player hears
//! precisely what is wrong ("Springer steht auf Felix vier, gehört auf Felix drei"), again after
//! the configured time while it stays wrong; on his own move it is a move that is not possible
//! (Art. 4.3; the arbiter rules whether it was an illegal move completed, 7.4).

use shakmaty::{Color, Piece, Position, Square};

use super::{Arbiter, Effect};
use crate::{
    announce::{Announcement, Audience, Guidance, count},
    board::recognize::{BoardDiff, Found, Mode},
    rules::{Millis, notation},
};

/// A board that differs and when it was last described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Differing {
    pub(super) diff: BoardDiff,
    pub(super) told_at: Millis,
}

impl Arbiter {
    /// A board rests on a wrong position. On the player's own move that is a move that is not
    /// possible (it is not announced; the touched piece must be moved, Art. 4.3); otherwise the
    /// board must be corrected (F.7). Either way he hears precisely what is wrong.
    pub(super) fn differs(
        &mut self,
        seat: Color,
        diff: BoardDiff,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let audience = Audience::Player(seat);
        let own_move = self.board(seat).is_some_and(|r| r.mode() == Mode::Move);
        let board = self.names().board(seat);
        if own_move {
            self.say(audience, Announcement::IllegalMove, out);
            // The player is told and guided; whether it was an illegal move completed (7.4) is
            // the arbiter's ruling, so he hears of every one, in words that say which it is: a
            // legal move the game cannot take now invites no 7.4 penalty.
            let squares: Vec<String> = diff.squares.iter().map(|d| d.square.to_string()).collect();
            let note = match self.legal_but_not_now(seat) {
                Some(reason) => format!(
                    "not a legal move now on the {board} board by {seat}: {reason}; it stands on \
                     {}; not counted, the player is guided back (no illegal move, 7.4 does not \
                     apply)",
                    squares.join(" ")
                ),
                None => format!(
                    "illegal move on the {board} board by {seat} (7.4): it stands on {}; not \
                     counted, the player is guided back. If the arbiter rules it completed: \
                     `illegal {seat}`",
                    squares.join(" ")
                ),
            };
            out.push(Effect::Note(note));
        }
        for g in guidance(&diff) {
            self.say(audience, Announcement::Guidance(g), out);
        }
        out.push(Effect::Note(format!(
            "{board} board differs on {}",
            count(diff.squares.len(), "square", "squares")
        )));
        self.differing[seat] = Some(Differing { diff, told_at: now });
    }

    /// Why what `seat`'s board shows, a move that is legal on its own, is not one now: the move
    /// 9.5 b does not allow, or his move made before the opponent's was executed on his board.
    fn legal_but_not_now(&self, seat: Color) -> Option<String> {
        let board = self.board(seat)?;
        let position = self.game.position();
        if let Some(required) = self.game.must_play() {
            let shown = position.legal_moves().into_iter().find(|&m| {
                let mut after = position.clone();
                after.play_unchecked(m);
                board.shows_board(after.board())
            })?;
            return Some(format!(
                "{} is legal, but after the incorrect claim {} must be played (9.5 b)",
                notation::san(position, shown),
                notation::san(position, required)
            ));
        }
        // His move made on the position before the opponent's last move, which his board does
        // not show yet.
        let last = self.game.moves().last().filter(|r| r.side != seat)?;
        let ply = self.game.ply() - 1;
        let mut before = self.game.start_position().clone();
        for r in &self.game.moves()[..ply] {
            before.play_unchecked(r.mv);
        }
        let own = before.swap_turn().ok()?;
        let shown = own.legal_moves().into_iter().find(|&m| {
            let mut after = own.clone();
            after.play_unchecked(m);
            board.shows_board(after.board())
        })?;
        Some(format!(
            "{} was made before {}'s move {} was executed on his board",
            notation::san(&own, shown),
            last.side,
            last.san
        ))
    }

    pub(super) fn repeat_guidance(&mut self, now: Millis, out: &mut Vec<Effect>) {
        for seat in self.seats() {
            let due = self.differing[seat]
                .as_ref()
                .filter(|d| now >= d.told_at + self.cfg.guidance_repeat_ms)
                .map(|d| d.diff.clone());
            if let Some(diff) = due {
                for g in guidance(&diff) {
                    self.say(Audience::Player(seat), Announcement::Guidance(g), out);
                }
                if let Some(d) = self.differing[seat].as_mut() {
                    d.told_at = now;
                }
            }
        }
    }
}

/// Corrections said at once to a board that differs on many squares; the rest is a count, and
/// comes as the board changes (a board still holding the last game differs on a dozen squares).
pub const GUIDANCE_AT_ONCE: usize = 3;

/// Turn a board difference into what a player is told: a piece on the wrong square where it can
/// be matched with the square it belongs on, otherwise each empty, extra or wrong square; past
/// [`GUIDANCE_AT_ONCE`] corrections (and one more), how many squares more differ.
pub fn guidance(diff: &BoardDiff) -> Vec<Guidance> {
    let mut all = corrections(diff);
    if all.len() > GUIDANCE_AT_ONCE + 1 {
        let squares = all
            .drain(GUIDANCE_AT_ONCE..)
            .map(|g| match g {
                Guidance::Misplaced { .. } => 2,
                _ => 1,
            })
            .sum();
        all.push(Guidance::More { squares });
    }
    all
}

/// Every correction `diff` asks for.
fn corrections(diff: &BoardDiff) -> Vec<Guidance> {
    let mut missing: Vec<(Square, Piece)> = Vec::new();
    let mut extra: Vec<(Square, Option<Piece>)> = Vec::new();
    let mut out = Vec::new();
    for d in &diff.squares {
        match (d.expected, d.found) {
            (Some(p), Found::Empty) => missing.push((d.square, p)),
            (None, Found::Piece(p)) => extra.push((d.square, Some(p))),
            (None, Found::Occupied { likely }) => extra.push((d.square, likely)),
            (Some(belongs), Found::Piece(found)) => out.push(Guidance::Wrong {
                square: d.square,
                found,
                belongs,
            }),
            (Some(_), Found::Occupied { .. }) | (None, Found::Empty) => {}
        }
    }
    // Pair each extra piece with a missing square of the same piece ("Springer steht auf Felix
    // vier, gehört auf Felix drei"); with exactly one of each, pair them whatever the guess.
    let single = missing.len() == 1 && extra.len() == 1;
    let mut unpaired_extra = Vec::new();
    for (square, likely) in extra {
        let matched = missing
            .iter()
            .position(|&(_, p)| Some(p) == likely || (single && likely.is_none()));
        match matched {
            Some(i) => {
                let (belongs, piece) = missing.remove(i);
                out.push(Guidance::Misplaced {
                    piece,
                    found: square,
                    belongs,
                });
            }
            None => unpaired_extra.push((square, likely)),
        }
    }
    for (square, piece) in missing {
        out.push(Guidance::Missing { square, piece });
    }
    for (square, piece) in unpaired_extra {
        out.push(Guidance::Extra { square, piece });
    }
    out
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position};

    use super::*;
    use crate::board::recognize::SquareDiff;

    /// A board missing every piece of `squares` that the start position has there.
    fn missing(squares: &[Square]) -> BoardDiff {
        let start = Chess::default();
        BoardDiff {
            squares: squares
                .iter()
                .map(|&square| SquareDiff {
                    square,
                    expected: start.board().piece_at(square),
                    found: Found::Empty,
                })
                .collect(),
        }
    }

    #[test]
    fn a_board_that_differs_on_many_squares_hears_three_corrections_and_how_many_more() {
        // Fourteen empty squares (a board still holding the last game's few pieces).
        let squares: Vec<Square> = Square::ALL.iter().copied().take(14).collect();
        let said = guidance(&missing(&squares));
        assert_eq!(said.len(), GUIDANCE_AT_ONCE + 1, "{said:?}");
        assert!(matches!(
            said[0],
            Guidance::Missing {
                square: Square::A1,
                ..
            }
        ));
        assert_eq!(said[GUIDANCE_AT_ONCE], Guidance::More { squares: 11 });
        // Four are said as they are: "and one more" would say no less.
        let said = guidance(&missing(&squares[..4]));
        assert_eq!(said.len(), 4);
        assert!(said.iter().all(|g| matches!(g, Guidance::Missing { .. })));
        // A misplaced piece is one correction on two squares: what is said and the count cover
        // every square that differs.
        let mut diff = missing(&squares[..4]);
        diff.squares.push(SquareDiff {
            square: Square::E4,
            expected: None,
            found: Found::Piece(Chess::default().board().piece_at(Square::G1).unwrap()),
        });
        diff.squares.push(SquareDiff {
            square: Square::G1,
            expected: Chess::default().board().piece_at(Square::G1),
            found: Found::Empty,
        });
        let said = guidance(&diff);
        let covered: u32 = said
            .iter()
            .map(|g| match g {
                Guidance::Misplaced { .. } => 2,
                Guidance::More { squares } => *squares,
                _ => 1,
            })
            .sum();
        assert_eq!(covered as usize, diff.squares.len(), "{said:?}");
        assert!(matches!(
            said[0],
            Guidance::Misplaced {
                found: Square::E4,
                ..
            }
        ));
        assert_eq!(
            said.last(),
            Some(&Guidance::More { squares: 2 }),
            "{said:?}"
        );
    }
}
