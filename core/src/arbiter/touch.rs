//! Touches: a player's touches recorded (for `touches.txt`), held until his move is complete and
//! then told to the assistant and the arbiter (F.9 e) when the piece touched was not one the move
//! moved, handed to the rules (9.1 a, 9.4 of 2009, Appendix C of 2001), and a piece adjusted with
//! j'adoube not counted (4.2). F.2: on the tactile board only a lift out of an aperture is a
//! touch, also while the player executes his opponent's move.
//!
//! And what a player's touches before his move may give his opponent to claim (Art. 4.3, 4.4,
//! 4.6): [`possible_claims`] takes the position before the move, the move made and the squares
//! lifted for it, in order. The arbiter rules only on a claim (4.7), so this decides nothing: it
//! says which article the touches may give a claim under, in words for the arbiter's console and
//! the transcript. The game goes on.

use shakmaty::{Board, Chess, Color, Move, MoveList, Piece, Position, Square};

use super::{Arbiter, Effect, SeatNames};
use crate::{
    board::recognize::Mode,
    rules::{Millis, game, notation},
};

/// The possible claims the touches give, most specific first; empty when the move kept the
/// rules of touching.
pub fn possible_claims(before: &Chess, mv: Move, touches: &[Square]) -> Vec<String> {
    let t = Touches::new(before, mv, touches);
    // A piece moved on, or a castling touched wrongly, is the whole story of the move.
    if let Some(claim) = t
        .moved_on()
        .or_else(|| t.rook_before_king())
        .or_else(|| t.did_not_castle())
    {
        return vec![claim];
    }
    if let Some(claim) = t.both_colours() {
        return claim.into_iter().collect();
    }
    t.first_not_moved()
        .into_iter()
        .chain(t.first_not_taken())
        .collect()
}

/// One move with the touches that came before it, as the Articles on touching read them.
struct Touches<'a> {
    mv: Move,
    touches: &'a [Square],
    player: Color,
    board: &'a Board,
    legal: MoveList,
    /// The move in SAN, for the words of a claim.
    played: String,
    /// The square the moved piece left (the king's, for castling).
    moved_from: Square,
    /// The squares touched, in order, of his own pieces and of his opponent's.
    own: Vec<Square>,
    theirs: Vec<Square>,
}

impl<'a> Touches<'a> {
    fn new(before: &'a Chess, mv: Move, touches: &'a [Square]) -> Touches<'a> {
        let player = before.turn();
        let board = before.board();
        let moved_from = match mv {
            Move::Castle { king, .. } => king,
            _ => mv.from().unwrap_or(mv.to()),
        };
        let of = |own: bool| -> Vec<Square> {
            touches
                .iter()
                .copied()
                .filter(|&s| {
                    board
                        .piece_at(s)
                        .is_some_and(|p| (p.color == player) == own)
                })
                .collect()
        };
        Touches {
            mv,
            touches,
            player,
            board,
            legal: before.legal_moves(),
            played: notation::san(before, mv),
            moved_from,
            own: of(true),
            theirs: of(false),
        }
    }

    fn can_move(&self, s: Square) -> bool {
        self.legal.iter().any(|m| m.from() == Some(s))
    }

    fn can_be_taken(&self, s: Square) -> bool {
        self.legal
            .iter()
            .any(|m| m.is_capture() && capture_square(m) == s)
    }

    /// Whether the move played takes the piece on `s`.
    fn takes(&self, s: Square) -> bool {
        self.mv.is_capture() && capture_square(&self.mv) == s
    }

    /// 4.6: a piece released on a square (a legal move) was then moved on to another. After the
    /// moved piece was lifted, a lift of an empty square is a lift of the piece he had put there;
    /// on a square of the opponent's it is the second lift there (the captured piece first).
    fn moved_on(&self) -> Option<String> {
        let (player, played) = (self.player, &self.played);
        let after_lift = self
            .touches
            .iter()
            .position(|&s| s == self.moved_from)
            .map_or(&[][..], |i| &self.touches[i + 1..]);
        after_lift.iter().enumerate().find_map(|(i, &square)| {
            let released_there = match self.board.piece_at(square) {
                None => true,
                Some(p) if p.color != player => after_lift[..i].contains(&square),
                Some(_) => false,
            };
            let reached = self
                .legal
                .iter()
                .any(|m| m.from() == Some(self.moved_from) && m.to() == square);
            (released_there && square != self.mv.to() && reached).then(|| {
                format!(
                    "possible claim (Art. 4.6): {player} released the piece on {square}, a legal \
                     move, then moved it on: {played}"
                )
            })
        })
    }

    /// 4.4 b: the rook touched before the king, then castled.
    fn rook_before_king(&self) -> Option<String> {
        let player = self.player;
        match self.mv {
            Move::Castle { rook, king }
                if self.own.first() == Some(&rook) && self.own.contains(&king) =>
            {
                Some(format!(
                    "possible claim (Art. 4.4 b): {player} touched the rook on {rook} before the \
                     king and castled"
                ))
            }
            _ => None,
        }
    }

    /// 4.4 a: king and rook touched, castling on that side legal, another move played.
    fn did_not_castle(&self) -> Option<String> {
        let (player, played) = (self.player, &self.played);
        let king = self.board.king_of(player)?;
        if !self.own.contains(&king) || matches!(self.mv, Move::Castle { .. }) {
            return None;
        }
        self.legal.iter().find_map(|m| match *m {
            Move::Castle { rook, .. } if self.own.contains(&rook) => Some(format!(
                "possible claim (Art. 4.4 a): {player} touched his king and the rook on {rook} \
                 and did not castle ({played})"
            )),
            _ => None,
        })
    }

    /// 4.3 c: pieces of both colours touched: the first of his takes the first of the opponent's
    /// if that is legal; otherwise the first that can be moved or taken. `None` when he did not
    /// touch both colours (4.3 c does not apply); otherwise the claim, if the move broke it.
    fn both_colours(&self) -> Option<Option<String>> {
        let (player, played) = (self.player, &self.played);
        let (&mine, &target) = (self.own.first()?, self.theirs.first()?);
        let capture_possible = self
            .legal
            .iter()
            .any(|m| m.from() == Some(mine) && m.is_capture() && capture_square(m) == target);
        let obeyed = if capture_possible {
            self.mv.from() == Some(mine) && self.takes(target)
        } else {
            // Whichever was touched first and can be moved or taken.
            let first = self.touches.iter().copied().find(|&s| {
                (self.own.contains(&s) && self.can_move(s))
                    || (self.theirs.contains(&s) && self.can_be_taken(s))
            });
            match first {
                Some(s) if self.own.contains(&s) => self.moved_from == s,
                Some(s) => self.takes(s),
                None => true,
            }
        };
        Some((!obeyed).then(|| {
            format!(
                "possible claim (Art. 4.3 c): {player} touched pieces of both colours ({} and {}) \
                 and played {played}",
                describe(mine, self.board.piece_at(mine)),
                describe(target, self.board.piece_at(target))
            )
        }))
    }

    /// 4.3 a: his first touched piece that can be moved must be moved.
    fn first_not_moved(&self) -> Option<String> {
        let (player, played) = (self.player, &self.played);
        let first = self.own.iter().copied().find(|&s| self.can_move(s))?;
        (first != self.moved_from).then(|| {
            format!(
                "possible claim (Art. 4.3 a): {player} touched {} first, which could move, and \
                 played {played}",
                describe(first, self.board.piece_at(first))
            )
        })
    }

    /// 4.3 b: the first touched piece of the opponent's that can be taken must be taken.
    fn first_not_taken(&self) -> Option<String> {
        let (player, played) = (self.player, &self.played);
        let target = self
            .theirs
            .iter()
            .copied()
            .find(|&s| self.can_be_taken(s))?;
        (!self.takes(target)).then(|| {
            format!(
                "possible claim (Art. 4.3 b): {player} touched {} first, which could be captured, \
                 and played {played}",
                describe(target, self.board.piece_at(target))
            )
        })
    }
}

/// The square of the piece a capture takes (the pawn's square for en passant).
fn capture_square(m: &Move) -> Square {
    match *m {
        Move::EnPassant { from, to } => Square::from_coords(to.file(), from.rank()),
        _ => m.to(),
    }
}

impl Arbiter {
    /// 4.2, "j'adoube": `by` announces he adjusts the piece on `square`; his next touch of it is
    /// no touch.
    pub(super) fn adjust(&mut self, by: Color, square: Square, out: &mut Vec<Effect>) {
        self.adjusting = Some((by, square));
        out.push(Effect::Note(format!(
            "{by} adjusts {} (j'adoube, 4.2): not a touch",
            describe(square, self.game.position().board().piece_at(square))
        )));
    }

    /// A touch reported at the console (F.9 e: the assistant tells the arbiter when the sighted
    /// player touched a piece): recorded as a touch on that player's board.
    pub(super) fn touch_reported(
        &mut self,
        by: Color,
        square: Square,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let piece = self.game.position().board().piece_at(square);
        // The assistant reports it to the arbiter on purpose (F.9 e): told at once.
        self.record_touch(by, square, piece, false, out);
        out.push(Effect::Note(touch_note(&self.names(), by, square, piece)));
        self.rules(game::Input::Touch { by, square }, now, out);
    }

    /// A touch for `touches.txt`, and, with `noted`, for the assistant's and arbiter's notes
    /// once the move is complete (see [`Arbiter::tell_touches`]).
    pub(super) fn record_touch(
        &mut self,
        seat: Color,
        square: Square,
        piece: Option<Piece>,
        noted: bool,
        out: &mut Vec<Effect>,
    ) {
        out.push(Effect::Touch {
            seat,
            square,
            piece,
        });
        if noted {
            self.held_touches[seat].push((square, piece));
        }
    }

    /// The touches held for `seat`'s player, told now that his move `mv` is complete (None:
    /// abandoned, the game is over): each piece touched that the move did not move or take,
    /// once.
    pub(super) fn tell_touches(&mut self, seat: Color, mv: Option<Move>, out: &mut Vec<Effect>) {
        let involved = |square: Square| match mv {
            None => false,
            Some(Move::Castle { king, rook }) => square == king || square == rook,
            Some(Move::EnPassant { from, to }) => {
                square == from
                    || square == to
                    || square == Square::from_coords(to.file(), from.rank())
            }
            Some(m) => Some(square) == m.from() || square == m.to(),
        };
        let mut told = Vec::new();
        let names = self.names();
        for (square, piece) in std::mem::take(&mut self.held_touches[seat]) {
            if involved(square) || told.contains(&square) {
                continue;
            }
            told.push(square);
            out.push(Effect::Note(touch_note(&names, seat, square, piece)));
        }
    }

    /// A touch of a piece, for the rules: it rejects an offer (9.1 a), costs a right to claim
    /// (9.4 of 2009), ends a claim of an illegal move (Appendix C of 2001). A touch the rules do
    /// not take (the game over or adjourned) is no news.
    pub(super) fn touch_to_rules(
        &mut self,
        by: Color,
        square: Square,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        if let Ok(events) = self.game.apply(game::Input::Touch { by, square }, now) {
            for e in events {
                self.game_event(e, now, out);
            }
        }
    }

    /// Whether a lift on `player`'s board while it executes the opponent's move is his touch:
    /// one of his own pieces, not part of the move, while he has the move.
    pub(super) fn touched_while_executing(
        &mut self,
        player: Color,
        square: Square,
        piece: Option<Piece>,
    ) -> bool {
        let Some(Mode::Execute(m)) = self.recognizer(player).map(|r| r.mode()) else {
            return false;
        };
        let involved = match m {
            Move::Castle { king, rook } => square == king || square == rook,
            Move::EnPassant { from, to } => {
                square == from
                    || square == to
                    || square == Square::from_coords(to.file(), from.rank())
            }
            _ => Some(square) == m.from() || square == m.to(),
        };
        piece.is_some_and(|p| p.color == player)
            && !involved
            && self.game.to_move() == player
            && !self.game.is_over()
    }

    /// Whether `square` on `seat`'s board is the piece its player announced he adjusts.
    pub(super) fn adjusting(&self, seat: Color, square: Square) -> bool {
        self.adjusting == Some((seat, square))
    }
}

/// The note of a touch by `seat`'s player, for the assistant and the arbiter (F.9 e).
pub fn touch_note(names: &SeatNames, seat: Color, square: Square, piece: Option<Piece>) -> String {
    format!(
        "{} player touched {}",
        names.player(seat),
        describe(square, piece)
    )
}

pub(super) fn describe(square: Square, piece: Option<Piece>) -> String {
    match piece {
        Some(p) => format!("{} {:?} on {square}", p.color, p.role).to_lowercase(),
        None => format!("the piece on {square}"),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    use super::*;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn claims(fen: &str, uci: &str, touches: &[Square]) -> Vec<String> {
        let pos = position(fen);
        let mv = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        possible_claims(&pos, mv, touches)
    }

    const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

    #[test]
    fn touching_only_the_piece_moved_gives_nothing() {
        assert!(claims(ITALIAN, "b1c3", &[Square::B1]).is_empty());
        assert!(claims(ITALIAN, "e1g1", &[Square::E1, Square::H1]).is_empty());
    }

    #[test]
    fn art_4_3_a_the_first_touched_piece_that_can_move() {
        let c = claims(ITALIAN, "b1c3", &[Square::F3, Square::B1]);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!(
            c[0].contains("Art. 4.3 a") && c[0].contains("knight on f3"),
            "{c:?}"
        );
        // A piece that cannot move (the rook on a1, boxed in) is not the one that must move.
        assert!(claims(ITALIAN, "b1c3", &[Square::A1, Square::B1]).is_empty());
    }

    #[test]
    fn art_4_3_b_the_first_touched_piece_of_the_opponent_that_can_be_taken() {
        // Nf3 can take e5: touching the pawn on e5 (only) and playing b1c3.
        let c = claims(ITALIAN, "b1c3", &[Square::E5]);
        assert!(c.iter().any(|c| c.contains("Art. 4.3 b")), "{c:?}");
        assert!(claims(ITALIAN, "f3e5", &[Square::E5, Square::F3]).is_empty());
    }

    #[test]
    fn art_4_3_c_pieces_of_both_colours() {
        // He touches his knight on f3 and the pawn on e5: Nxe5 is legal, so it must be played.
        let c = claims(ITALIAN, "f3g5", &[Square::F3, Square::E5]);
        assert!(c.iter().any(|c| c.contains("Art. 4.3 c")), "{c:?}");
        assert!(claims(ITALIAN, "f3e5", &[Square::F3, Square::E5]).is_empty());
    }

    #[test]
    fn art_4_4_a_king_and_rook_touched_and_no_castling() {
        let c = claims(ITALIAN, "e1f1", &[Square::E1, Square::H1]);
        assert!(c.iter().any(|c| c.contains("Art. 4.4 a")), "{c:?}");
    }

    #[test]
    fn art_4_4_b_rook_first_then_castled() {
        let c = claims(ITALIAN, "e1g1", &[Square::H1, Square::E1]);
        assert!(c.iter().any(|c| c.contains("Art. 4.4 b")), "{c:?}");
    }

    #[test]
    fn art_4_6_a_piece_released_on_a_square_and_moved_on() {
        // The knight was put on c3 (legal), lifted again and played to a3.
        let c = claims(ITALIAN, "b1a3", &[Square::B1, Square::C3]);
        assert!(
            c.iter().any(|c| c.contains("Art. 4.6") && c.contains("c3")),
            "{c:?}"
        );
    }
}
