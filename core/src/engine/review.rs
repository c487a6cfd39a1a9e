//! The review after a training game: from the engine's judgement of every position of the game,
//! the moves of the blind player worth going back to: where he lost material (his position got
//! worse by a piece's worth or more, by the engine's count) or missed a mate the position held.
//! Pure: the engine's answers in, the moments out; asking the engine is the hub's.

use shakmaty::{Chess, Color, Move, Position};

use super::Score;

/// How much worse his position must get, in centipawns, for a move to be worth reviewing: a
/// minor piece is about 300, a pawn 100; 150 catches a lost pawn with a worse position too,
/// not the small inaccuracies a player at home does not want to hear about move by move.
pub const LOSS_CP: i32 = 150;

/// A mate, counted far above any material.
const MATE: i32 = 100_000;

/// What the engine said about one position: its best move there and its score (White's view).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Judgement {
    pub best: Option<Move>,
    pub score: Option<Score>,
}

/// A move of his the review goes back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    /// The half-move index of his move (0: the game's first move).
    pub ply: usize,
    /// The move number as a scoresheet writes it.
    pub number: u32,
    pub played: Move,
    /// What the engine preferred.
    pub better: Move,
    /// The position held a mate for him, and his move lost it.
    pub missed_mate: bool,
}

/// A position's value for `side`: centipawns, a mate far above them.
fn value(pos: &Chess, judged: &Judgement, side: Color) -> Option<i32> {
    if pos.is_checkmate() {
        // The side to move is mated.
        return Some(if pos.turn() == side { -MATE } else { MATE });
    }
    if pos.is_stalemate() {
        return Some(0);
    }
    let white = match judged.score? {
        Score::Cp(v) => v,
        Score::Mate(n) if n > 0 => MATE - n,
        Score::Mate(n) if n < 0 => -MATE - n,
        Score::Mate(_) => 0,
    };
    Some(if side == Color::White { white } else { -white })
}

/// The moments of `side`'s moves in the game `start` + `moves`, given the engine's judgement of
/// every position (`judged[i]` is the position before move `i`; one more at the end).
pub fn moments(start: &Chess, moves: &[Move], judged: &[Judgement], side: Color) -> Vec<Moment> {
    let mut out = Vec::new();
    let mut pos = start.clone();
    for (ply, &played) in moves.iter().enumerate() {
        let mut after = pos.clone();
        after.play_unchecked(played);
        if pos.turn() == side
            && let (Some(before_j), Some(after_j)) = (judged.get(ply), judged.get(ply + 1))
            && let Some(better) = before_j.best.filter(|&b| b != played)
            && let (Some(before), Some(then)) =
                (value(&pos, before_j, side), value(&after, after_j, side))
        {
            let had_mate = before > MATE / 2;
            let missed_mate = had_mate && then <= MATE / 2;
            if missed_mate || before - then >= LOSS_CP {
                out.push(Moment {
                    ply,
                    number: pos.fullmoves().get(),
                    played,
                    better,
                    missed_mate,
                });
            }
        }
        pos = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::match_move;

    fn game(sans: &[&str]) -> Vec<Move> {
        let mut pos = Chess::default();
        sans.iter()
            .map(|s| {
                let m = match_move(&pos, s).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    fn j(best: Option<Move>, score: Score) -> Judgement {
        Judgement {
            best,
            score: Some(score),
        }
    }

    #[test]
    fn a_move_that_loses_material_and_a_missed_mate_are_found_and_good_moves_are_not() {
        // 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6?? 4.Qf7# was there; White played 4.Qxe5+ instead.
        let moves = game(&["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxe5+"]);
        let mut pos = Chess::default();
        let mut positions = vec![pos.clone()];
        for &m in &moves {
            pos.play_unchecked(m);
            positions.push(pos.clone());
        }
        let qf7 = match_move(&positions[6], "Qxf7#").unwrap();
        let judged = vec![
            j(Some(moves[0]), Score::Cp(30)),
            j(Some(moves[1]), Score::Cp(30)),
            // 2.Qh5 was not the engine's move, but costs nothing: not a moment.
            j(match_move(&positions[2], "Nf3").ok(), Score::Cp(40)),
            j(Some(moves[3]), Score::Cp(20)),
            j(Some(moves[4]), Score::Cp(30)),
            // Black's blunder is not White's to review.
            j(match_move(&positions[5], "g6").ok(), Score::Cp(30)),
            j(Some(qf7), Score::Mate(1)),
            j(None, Score::Cp(350)),
        ];
        let found = moments(&Chess::default(), &moves, &judged, Color::White);
        assert_eq!(
            found,
            vec![Moment {
                ply: 6,
                number: 4,
                played: moves[6],
                better: qf7,
                missed_mate: true,
            }]
        );
        // For Black, 3...Nf6 lost (from +0.3 to mate against him).
        let found = moments(&Chess::default(), &moves, &judged, Color::Black);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].ply, found[0].number), (5, 3));
        assert!(!found[0].missed_mate);
    }

    #[test]
    fn a_mate_on_the_board_is_judged_from_the_position() {
        // Fool's mate: White's 2.g4 lets Black mate; the last position is mate for Black.
        let moves = game(&["f3", "e5", "g4", "Qh4#"]);
        let mut pos = Chess::default();
        pos.play_unchecked(moves[0]);
        pos.play_unchecked(moves[1]);
        let judged = vec![
            j(Some(moves[0]), Score::Cp(0)),
            j(Some(moves[1]), Score::Cp(-50)),
            j(match_move(&pos, "e4").ok(), Score::Cp(-60)),
            j(Some(moves[3]), Score::Mate(-1)),
            Judgement::default(),
        ];
        let found = moments(&Chess::default(), &moves, &judged, Color::White);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].ply, 2);
    }
}
