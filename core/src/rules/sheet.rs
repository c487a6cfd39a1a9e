//! A player's scoresheet against the game's record, compared move by move (F.8, 8.1).
//!
//! This module owns two questions: which entries of a typed scoresheet are moves
//! ([`sheet_moves`]: move numbers and results dropped, `exd6 e.p.` and `Sf3 (=)` kept as one
//! entry), and how far a sheet agrees with the record ([`compare`]). Agreement is about MOVES, not
//! strings: the sheet agrees at a ply when the record's move is among the legal moves its entry
//! can mean in any notation the Laws allow ([`notation::readings`]), so `0-0` for `O-O`, `d8Q`,
//! `Sf3`, `Cf3`, `e2-e4` and `exd6 e.p.` all agree with the record's SAN. An entry that says too
//! little to be one move (`d8` without the new piece, `Sd2` when both knights reach d2, `Rf1` that
//! a Spaniard writes for the king) agrees when the record's move is one of its readings: it does
//! not contradict the record, and F.8 is about where the scores part, not about how well they are
//! written.
//!
//! What F.8 needs from it: "the game shall be reconstructed to the position where the two scores
//! agree" is [`Comparison::agree`] plies from the start, and nothing before that is retraced. A
//! sheet that is only behind the record by what 8.1 lets its writer owe ("a player may reply to
//! his opponent's move before recording it") is not a difference ([`Comparison::differs`]).
//!
//! What it does not decide: whether the two boards show different positions. F.8 applies "if
//! during a game different positions should arise on the two boards"; with both boards agreeing,
//! a sheet that differs is a matter for the arbiter (8.1, a player's duty to record), not a reason
//! to retrace. That ruling, and the retrace itself, belong to the arbiter; this module only says
//! where the sheet and the record part.
//!
//! Pure: text and moves in, a value out.

use shakmaty::{Chess, Color, Move, Position};

use super::notation;

/// The moves of a scoresheet typed as whitespace-separated tokens, in order: move numbers (`12.`,
/// `12...`, a bare `12`, or glued as in `12.Nf3`), results (`1-0`, `½-½`, `1:0`, `*`) and a lone
/// `...` are dropped, and so is a comma or semicolon after a move; a token that only annotates
/// the move before it (`e.p.`, `a.p.`, `+`, `!?`, `(=)`) is joined to that move with a space, so
/// that `exd6 e.p.` stays one entry.
pub fn sheet_moves(tokens: &[&str]) -> Vec<String> {
    let mut moves: Vec<String> = Vec::new();
    // A comma or semicolon separates numbered moves in some sheets (the Spanish text's own sample
    // game: "1.d4 Cf6, 2.c4 e6, ...").
    for token in tokens.iter().map(|t| t.trim().trim_end_matches([',', ';'])) {
        if token.is_empty() || is_move_number(token) || is_result(token) {
            continue;
        }
        let token = strip_move_number(token);
        if token.is_empty() {
            continue;
        }
        if is_annotation(token)
            && let Some(previous) = moves.last_mut()
        {
            previous.push(' ');
            previous.push_str(token);
            continue;
        }
        moves.push(token.to_owned());
    }
    moves
}

/// `12`, `12.`, `12...`, `12…`, or dots alone (`...` for "Black's move follows").
fn is_move_number(token: &str) -> bool {
    token
        .trim_end_matches(['.', '…'])
        .bytes()
        .all(|b| b.is_ascii_digit())
}

fn is_result(token: &str) -> bool {
    matches!(
        token,
        "1-0" | "0-1" | "1/2-1/2" | "½-½" | "1:0" | "0:1" | "½:½" | "1/2:1/2" | "*"
    )
}

/// `12.Nf3` is `Nf3`, `12...Nf6` and `12…Nf6` are `Nf6`; anything else is left as it is (`0-0`
/// starts with a digit but has no dot after it).
fn strip_move_number(token: &str) -> &str {
    let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &token[digits..];
    let after_dots = rest.trim_start_matches(['.', '…']);
    if digits > 0 && after_dots.len() < rest.len() {
        after_dots
    } else {
        token
    }
}

/// A token that says something about the move before it, not a move: en passant (`e.p.`, the
/// Spanish `a.p.`), check, mate, evaluation, a draw offer (E.12 `(=)`).
fn is_annotation(token: &str) -> bool {
    matches!(token, "e.p." | "e.p" | "ep" | "a.p." | "a.p" | "(=)")
        || token
            .chars()
            .all(|c| matches!(c, '+' | '#' | '!' | '?' | '†' | '‡'))
}

/// Where a scoresheet and the record part, ply by ply (ply 0 is the first move from the start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Leading plies on which the sheet's entry reads as the record's move. F.8 retraces to the
    /// position after this many plies, no further back.
    pub agree: usize,
    /// Plies in the record.
    pub record_plies: usize,
    /// Entries on the sheet.
    pub sheet_plies: usize,
    /// Who was to move in the start position (for what 8.1 lets a writer owe).
    pub start_turn: Color,
    /// The start position's move number (for the labels of [`Comparison::move_label`]).
    pub start_fullmoves: u32,
    /// The first ply at which the sheet says something the record does not, or goes on past the
    /// record. `None` when every entry agrees, including when the sheet is only shorter.
    pub first_difference: Option<Difference>,
    /// Entries no legal move fits, in order. While the sheet agrees, its entries are read in the
    /// record's positions; after the first difference, in the positions the sheet itself leads
    /// to, as long as each of its entries means one move (after that only entries that are no
    /// move in any notation are listed).
    pub unreadable: Vec<Unreadable>,
}

/// The first ply at which the sheet and the record part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// 0-based ply.
    pub ply: usize,
    /// The record's move there in SAN, `None` when the sheet goes on past the record.
    pub recorded: Option<String>,
    /// The sheet's entry there, as written.
    pub written: String,
}

/// A sheet entry that no legal move fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// 0-based ply.
    pub ply: usize,
    /// The entry as written.
    pub written: String,
    pub why: Unreadability,
}

/// Why a sheet entry is unreadable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreadability {
    /// No notation the Laws allow reads it as a move.
    NotAMove,
    /// It reads as a move, but nothing legal in the position the sheet had reached fits it.
    NoLegalMove,
}

impl Unreadability {
    /// Why, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Unreadability::NotAMove => "not a move in any notation",
            Unreadability::NoLegalMove => "no legal move fits",
        }
    }
}

impl Comparison {
    /// The entry where the sheet parts from the record, when that entry is no move in any
    /// notation (a typo, `e44`): the sheet then says nothing about where the scores agree, and
    /// F.8 cannot go by it. (A move written that no piece could make there, the queen to the
    /// square where it was wrongly executed, is a real difference: the scores part there.)
    pub fn unreadable_at_difference(&self) -> Option<&Unreadable> {
        let d = self.first_difference.as_ref()?;
        self.unreadable
            .iter()
            .find(|u| u.ply == d.ply && u.why == Unreadability::NotAMove)
    }

    /// Record plies the sheet has not written yet (0 when it has as many entries or more).
    pub fn missing(&self) -> usize {
        self.record_plies.saturating_sub(self.sheet_plies)
    }

    /// The sheet agrees with every ply it has and is only shorter than the record.
    pub fn just_shorter(&self) -> bool {
        self.first_difference.is_none() && self.missing() > 0
    }

    /// The most plies `writer`'s sheet may lack under 8.1: "A player may reply to his opponent's
    /// move before recording it ... He must record his previous move before making another." So
    /// everything up to and including his second-to-last move must be written; what came after
    /// it (the opponent's move he replied to, his reply, and the opponent's next move) may not
    /// be yet.
    pub fn may_owe(&self, writer: Color) -> usize {
        let mover = |ply: usize| {
            if ply.is_multiple_of(2) {
                self.start_turn
            } else {
                !self.start_turn
            }
        };
        let second_to_last = (0..self.record_plies)
            .rev()
            .filter(|&ply| mover(ply) == writer)
            .nth(1);
        match second_to_last {
            Some(ply) => self.record_plies - (ply + 1),
            None => self.record_plies,
        }
    }

    /// Whether `writer`'s sheet differs from the record: an entry that is not the record's move
    /// (or one past the record's end), or more plies missing than 8.1 lets him owe.
    pub fn differs(&self, writer: Color) -> bool {
        self.first_difference.is_some() || self.missing() > self.may_owe(writer)
    }

    /// How a scoresheet writes the move at `ply`: `12.` for White's, `12...` for Black's.
    pub fn move_label(&self, ply: usize) -> String {
        move_label(self.start_turn, self.start_fullmoves, ply)
    }

    /// One line for the arbiter about `writer`'s sheet: whether it agrees, how far behind it is
    /// and whether 8.1 allows that, where it parts from the record, and what in it is unreadable.
    pub fn summary(&self, writer: Color) -> String {
        let plural = |n: usize| if n == 1 { "half-move" } else { "half-moves" };
        let mut line = match &self.first_difference {
            None if self.missing() == 0 => format!(
                "{writer}'s scoresheet agrees with the record ({} {})",
                self.agree,
                plural(self.agree)
            ),
            None if !self.differs(writer) => format!(
                "{writer}'s scoresheet agrees with the record; {} {} not written yet, as 8.1 \
                 allows",
                self.missing(),
                plural(self.missing())
            ),
            None => format!(
                "{writer}'s scoresheet agrees with the record as far as it goes, but {} {} are not \
                 written; 8.1 allows {}",
                self.missing(),
                plural(self.missing()),
                self.may_owe(writer)
            ),
            Some(d) => {
                let at = self.move_label(d.ply);
                let what = match &d.recorded {
                    Some(recorded) => format!("the record has {at} {recorded}"),
                    None => "the record ends before it".to_owned(),
                };
                format!(
                    "{writer}'s scoresheet differs from the record at {at} '{}' ({what}); the \
                     scores agree for {} {}",
                    d.written,
                    self.agree,
                    plural(self.agree)
                )
            }
        };
        if !self.unreadable.is_empty() {
            let entries: Vec<String> = self
                .unreadable
                .iter()
                .map(|u| {
                    format!(
                        "{} '{}' ({})",
                        self.move_label(u.ply),
                        u.written,
                        u.why.describe()
                    )
                })
                .collect();
            line.push_str("; unreadable: ");
            line.push_str(&entries.join(", "));
        }
        line
    }
}

/// How a scoresheet writes the move at 0-based `ply` of a game whose start has `start_turn` to
/// move at move `start_fullmoves`: `12.` for White's, `12...` for Black's.
pub fn move_label(start_turn: Color, start_fullmoves: u32, ply: usize) -> String {
    // Plies counted from White's move of the start's move number.
    let from_white = ply + usize::from(start_turn == Color::Black);
    let number = start_fullmoves as usize + from_white / 2;
    if from_white.is_multiple_of(2) {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

/// Compares `sheet` (entries as [`sheet_moves`] gives them) with `record` (the game's moves, each
/// legal in the position before it, from `start`), reading each entry in every notation the Laws
/// allow. See [`Comparison`].
pub fn compare(start: &Chess, record: &[Move], sheet: &[String]) -> Comparison {
    let mut comparison = Comparison {
        agree: 0,
        record_plies: record.len(),
        sheet_plies: sheet.len(),
        start_turn: start.turn(),
        start_fullmoves: start.fullmoves().get(),
        first_difference: None,
        unreadable: Vec::new(),
    };
    // The position the sheet has led to so far: the record's while they agree, the sheet's own
    // line after that, `None` once the sheet's line is no longer one line.
    let mut line = Some(start.clone());
    for (ply, written) in sheet.iter().enumerate() {
        let readings = line
            .as_ref()
            .map(|pos| notation::readings(pos, written))
            .unwrap_or_default();
        if !notation::readable(written) {
            comparison.unreadable.push(Unreadable {
                ply,
                written: written.clone(),
                why: Unreadability::NotAMove,
            });
        } else if line.is_some() && readings.is_empty() {
            comparison.unreadable.push(Unreadable {
                ply,
                written: written.clone(),
                why: Unreadability::NoLegalMove,
            });
        }
        let Some(pos) = line.as_mut() else {
            continue;
        };
        let recorded = record.get(ply).copied();
        if comparison.first_difference.is_none() {
            if let Some(m) = recorded
                && readings.contains(&m)
            {
                comparison.agree += 1;
                pos.play_unchecked(m);
                continue;
            }
            comparison.first_difference = Some(Difference {
                ply,
                recorded: recorded.map(|m| notation::san(pos, m)),
                written: written.clone(),
            });
        }
        // Off the record: follow the sheet while each entry means exactly one move.
        match readings.as_slice() {
            [m] => pos.play_unchecked(*m),
            _ => line = None,
        }
    }
    comparison
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, san::SanPlus};

    /// The moves of `sans` (English SAN) from `start`, each legal.
    fn moves_from(start: &Chess, sans: &str) -> Vec<Move> {
        let mut p = start.clone();
        sans.split_whitespace()
            .map(|s| {
                let m = s.parse::<SanPlus>().unwrap().san.to_move(&p).unwrap();
                p.play_unchecked(m);
                m
            })
            .collect()
    }

    fn record(sans: &str) -> Vec<Move> {
        moves_from(&Chess::default(), sans)
    }

    fn sheet(typed: &str) -> Vec<String> {
        sheet_moves(&typed.split_whitespace().collect::<Vec<_>>())
    }

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    const RUY: &str = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7";

    #[test]
    fn sheet_moves_drops_numbers_and_results_and_keeps_marks_with_their_move() {
        assert_eq!(
            sheet("1. e4 e5 2.Nf3 Nc6 3. Bb5 3... a6 4 Ba4 4…Nf6 5.0-0 (=) Le7 1/2-1/2"),
            [
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "0-0 (=)", "Le7"
            ]
        );
        assert_eq!(
            sheet("11. exd6 e.p. Dxd6 12. Sf3 + ... Kf8 ! 1-0"),
            ["exd6 e.p.", "Dxd6", "Sf3 +", "Kf8 !"]
        );
        for result in ["1-0", "0-1", "½-½", "1:0", "0:1", "*"] {
            assert_eq!(sheet(&format!("1.e4 {result}")), ["e4"], "{result}");
        }
        // Castling starts with a digit and is not a number; `1.0-0-0` is numbered castling.
        assert_eq!(sheet("0-0 1.0-0-0 O-O"), ["0-0", "0-0-0", "O-O"]);
        assert_eq!(
            sheet("1.d4 Cf6, 2.c4 e6; 3.Cc3 ,"),
            ["d4", "Cf6", "c4", "e6", "Cc3"]
        );
        // What the console's own reader (console/parse.rs `scoresheet_moves`) gave, unchanged.
        assert_eq!(
            sheet("1. e4 e5 2.Nf3 2...Nc6 3. Bb5 *"),
            ["e4", "e5", "Nf3", "Nc6", "Bb5"]
        );
        assert!(sheet("").is_empty());
        // A mark with nothing before it is kept, to be reported as unreadable.
        assert_eq!(sheet("e.p. e4"), ["e.p.", "e4"]);
    }

    #[test]
    fn f8_same_moves_in_other_notations_agree() {
        let rec = record(RUY);
        let typed = "1.e2-e4 e5 2.Sf3 Cc6 3.Lb5 a7-a6 4.Fa4 ♞f6 5.0-0 Le7";
        let c = compare(&Chess::default(), &rec, &sheet(typed));
        assert_eq!(c.agree, 10);
        assert_eq!(c.first_difference, None);
        assert!(c.unreadable.is_empty());
        assert!(!c.differs(Color::White) && !c.differs(Color::Black));
        assert!(!c.just_shorter());
    }

    /// Appendix E's own sample game, in the English text's letters and in the Spanish text's
    /// (`../shared/laws/002_*`: "1.d4 Cf6, 2.c4 e6, 3.Cc3 Ab4, ..."), is one game.
    #[test]
    fn e_the_laws_sample_game_in_english_and_spanish_is_one_game() {
        let english = "1.d4 Nf6 2.c4 e6 3.Nc3 Bb4 4.Bd2 0-0 5.e4 d5 6.exd5 exd5 7.cxd5 Bxc3 \
                       8.Bxc3 Nxd5 9.Nf3 b6 10.Qb3 Nxc3 11.bxc3 c5 12.Be2 cxd4 13.Nxd4 Re8 \
                       14.0-0 Nd7 15.a4 Nc5 16.Qb4 Bb7 17.a5";
        let spanish = "1.d4 Cf6, 2.c4 e6, 3.Cc3 Ab4, 4.Ad2 0-0, 5.e4 d5, 6. exd5 exd5, 7.cxd5 \
                       Axc3, 8.Axc3 Cxd5, 9.Cf3 b6, 10.Db3 Cxc3, 11.bxc3 c5, 12.Ae2 cxd4, \
                       13.Cxd4 Te8, 14.0-0 Cd7, 15.a4 Cc5, 16.Db4 Ab7, 17.a5";
        let rec = record(&sheet(english).join(" ").replace("0-0", "O-O"));
        assert_eq!(rec.len(), 33);
        let c = compare(&Chess::default(), &rec, &sheet(spanish));
        assert_eq!(
            (c.agree, c.sheet_plies, &c.first_difference),
            (33, 33, &None)
        );
        let c = compare(&Chess::default(), &rec, &sheet(english));
        assert_eq!((c.agree, &c.first_difference), (33, &None));
    }

    #[test]
    fn f8_castling_0_0_agrees_with_the_records_o_o() {
        let rec = record("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O");
        let c = compare(&Chess::default(), &rec, &sheet("e4 e5 Nf3 Nc6 Bc4 Bc5 0-0"));
        assert_eq!((c.agree, c.first_difference), (7, None));
    }

    #[test]
    fn f8_promotion_and_en_passant_as_written_agree() {
        // 1.e4 a6 2.e5 d5 3.exd6 e.p.
        let rec = record("e4 a6 e5 d5 exd6");
        let c = compare(&Chess::default(), &rec, &sheet("e4 a6 e5 d5 exd6 e.p."));
        assert_eq!((c.agree, c.first_difference), (5, None));
        let start = pos("3r1r2/4P3/8/8/8/8/8/k3K3 w - - 0 1");
        let rec = moves_from(&start, "exd8=Q");
        let c = compare(&start, &rec, &sheet("exd8D"));
        assert_eq!((c.agree, c.first_difference), (1, None));
        let c = compare(&start, &rec, &sheet("exd8S"));
        assert_eq!(c.agree, 0);
        assert_eq!(
            c.first_difference,
            Some(Difference {
                ply: 0,
                recorded: Some("exd8=Q".into()),
                written: "exd8S".into()
            })
        );
    }

    #[test]
    fn e3_an_r_that_means_the_king_agrees_with_the_kings_move() {
        let start = pos("4k3/8/8/8/8/8/8/4K2R w - - 0 1");
        let rec = moves_from(&start, "Kf1");
        assert_eq!(compare(&start, &rec, &sheet("Rf1")).agree, 1);
        let rec = moves_from(&start, "Rf1");
        assert_eq!(compare(&start, &rec, &sheet("Rf1")).agree, 1);
    }

    #[test]
    fn article_8_1_a_sheet_one_move_shorter_is_not_a_difference() {
        let rec = record(RUY);
        let c = compare(
            &Chess::default(),
            &rec,
            &sheet("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 0-0"),
        );
        assert_eq!(c.agree, 9);
        assert_eq!(c.first_difference, None);
        assert!(c.just_shorter());
        assert_eq!(c.missing(), 1);
        assert!(!c.differs(Color::White));
        assert!(!c.differs(Color::Black));
        // Two plies short: Black replied (…Be7) before writing White's 0-0. Still fine for him.
        let c = compare(
            &Chess::default(),
            &rec,
            &sheet("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6"),
        );
        assert_eq!((c.agree, c.missing()), (8, 2));
        assert!(!c.differs(Color::Black));
    }

    #[test]
    fn article_8_1_what_a_writer_may_owe() {
        // Record of 3 plies (White, Black, White). White must have written his first move before
        // his second: he may owe 2. Black has made one move: he may owe all 3.
        let c = compare(&Chess::default(), &record("e4 e5 Nf3"), &[]);
        assert_eq!((c.may_owe(Color::White), c.may_owe(Color::Black)), (2, 3));
        assert!(c.differs(Color::White));
        assert!(!c.differs(Color::Black));
        // Record of 10 plies, last move Black's: White's second-to-last move is ply 6.
        let rec = record(RUY);
        let c = compare(&Chess::default(), &rec, &sheet("e4 e5 Nf3 Nc6 Bb5 a6"));
        assert_eq!((c.may_owe(Color::White), c.may_owe(Color::Black)), (3, 2));
        assert_eq!(c.missing(), 4);
        assert!(c.just_shorter());
        assert!(c.differs(Color::White) && c.differs(Color::Black));
        let c = compare(&Chess::default(), &rec, &sheet("e4 e5 Nf3 Nc6 Bb5 a6 Ba4"));
        assert!(!c.differs(Color::White) && c.differs(Color::Black));
        // Black to move at the start: plies alternate from Black.
        let start = pos("4k3/8/8/8/8/8/8/4K2R b - - 0 1");
        let rec = moves_from(&start, "Kd7 Kf1 Kc6");
        let c = compare(&start, &rec, &[]);
        assert_eq!((c.may_owe(Color::White), c.may_owe(Color::Black)), (3, 2));
    }

    #[test]
    fn f8_a_real_difference_at_the_fifth_ply() {
        let rec = record(RUY);
        let c = compare(
            &Chess::default(),
            &rec,
            &sheet("e4 e5 Sf3 Sc6 Lc4 a6 Lb3 Sf6 0-0 Le7"),
        );
        assert_eq!(c.agree, 4);
        assert_eq!(
            c.first_difference,
            Some(Difference {
                ply: 4,
                recorded: Some("Bb5".into()),
                written: "Lc4".into()
            })
        );
        // The sheet's own line goes on legally: nothing unreadable.
        assert!(c.unreadable.is_empty(), "{:?}", c.unreadable);
        assert!(c.differs(Color::White) && c.differs(Color::Black));
        assert!(!c.just_shorter());
    }

    #[test]
    fn f8_unreadable_entries_are_listed() {
        let rec = record(RUY);
        let c = compare(&Chess::default(), &rec, &sheet("e4 e5 Sf3 Xq9 Lb5 a6"));
        assert_eq!(c.agree, 3);
        assert_eq!(c.first_difference.as_ref().map(|d| d.ply), Some(3));
        assert_eq!(
            c.unreadable,
            [Unreadable {
                ply: 3,
                written: "Xq9".into(),
                why: Unreadability::NotAMove
            }]
        );
        // A move no legal move fits, in the record's position and then in the sheet's own line.
        let c = compare(&Chess::default(), &rec, &sheet("e4 e5 Ke3 Nc6"));
        assert_eq!(c.agree, 2);
        assert_eq!(
            c.unreadable,
            [Unreadable {
                ply: 2,
                written: "Ke3".into(),
                why: Unreadability::NoLegalMove
            }]
        );
        let c = compare(
            &Chess::default(),
            &rec,
            &sheet("e4 e5 d4 Sc6 Lb5 Ke7 Kd3 hello"),
        );
        assert_eq!(c.agree, 2);
        assert_eq!(
            c.unreadable,
            [
                Unreadable {
                    ply: 6,
                    written: "Kd3".into(),
                    why: Unreadability::NoLegalMove
                },
                // After an entry that fits nothing the sheet's line is lost; a non-move is still
                // reported.
                Unreadable {
                    ply: 7,
                    written: "hello".into(),
                    why: Unreadability::NotAMove
                }
            ]
        );
    }

    #[test]
    fn f8_a_sheet_longer_than_the_record_differs_past_its_end() {
        let rec = record("e4 e5");
        let c = compare(&Chess::default(), &rec, &sheet("e4 e5 Sf3"));
        assert_eq!(c.agree, 2);
        assert_eq!(
            c.first_difference,
            Some(Difference {
                ply: 2,
                recorded: None,
                written: "Sf3".into()
            })
        );
        assert!(c.differs(Color::Black));
    }

    #[test]
    fn move_labels_count_from_the_start_position() {
        let c = compare(&Chess::default(), &[], &[]);
        let labels: Vec<String> = (0..4).map(|ply| c.move_label(ply)).collect();
        assert_eq!(labels, ["1.", "1...", "2.", "2..."]);
        let c = compare(&pos("4k3/8/8/8/8/8/8/4K2R b - - 0 41"), &[], &[]);
        let labels: Vec<String> = (0..3).map(|ply| c.move_label(ply)).collect();
        assert_eq!(labels, ["41...", "42.", "42..."]);
    }

    #[test]
    fn f8_summaries_say_what_the_arbiter_needs() {
        let rec = record(RUY);
        let start = Chess::default();
        let summary = |typed: &str, writer| compare(&start, &rec, &sheet(typed)).summary(writer);
        assert_eq!(
            summary("e4 e5 Sf3 Sc6 Lb5 a6 La4 Sf6 0-0 Le7", Color::White),
            "white's scoresheet agrees with the record (10 half-moves)"
        );
        assert_eq!(
            summary("e4 e5 Sf3 Sc6 Lb5 a6 La4 Sf6 0-0", Color::Black),
            "black's scoresheet agrees with the record; 1 half-move not written yet, as 8.1 allows"
        );
        assert_eq!(
            summary("e4 e5 Sf3 Sc6 Lb5 a6", Color::Black),
            "black's scoresheet agrees with the record as far as it goes, but 4 half-moves are \
             not written; 8.1 allows 2"
        );
        assert_eq!(
            summary("e4 e5 Sf3 Sc6 Lc4 a6 Xq9", Color::White),
            "white's scoresheet differs from the record at 3. 'Lc4' (the record has 3. Bb5); the \
             scores agree for 4 half-moves; unreadable: 4. 'Xq9' (not a move in any notation)"
        );
        assert_eq!(
            summary("e4 e5 Ke3", Color::White),
            "white's scoresheet differs from the record at 2. 'Ke3' (the record has 2. Nf3); the \
             scores agree for 2 half-moves; unreadable: 2. 'Ke3' (no legal move fits)"
        );
        let rec = record("e4");
        assert_eq!(
            compare(&start, &rec, &sheet("e4 e5")).summary(Color::Black),
            "black's scoresheet differs from the record at 1... 'e5' (the record ends before it); \
             the scores agree for 1 half-move"
        );
    }

    #[test]
    fn f8_empty_record_and_empty_sheet_agree() {
        let c = compare(&Chess::default(), &[], &[]);
        assert_eq!((c.agree, &c.first_difference, c.missing()), (0, &None, 0));
        assert!(!c.differs(Color::White));
    }
}
