//! FIDE 6.9 / 9.6 "cannot mate by any series of legal moves": a deterministic sample of the
//! chasolver community corpus (`unwinnability/chasolver-positions.txt`), both colours, checked
//! against the corpus verdicts through `rules::dead`.

#![allow(
    clippy::result_large_err,
    reason = "shakmaty's PositionError is large; these are test helpers"
)]

use crate::support;

use shakmaty::{CastlingMode, Chess, Color, fen::Fen};
use tactus_core::rules::dead::{self, Mateability, Query};

/// Every STRIDE-th position of the corpus: about 285 positions, 570 queries.
const STRIDE: usize = 12;

#[test]
fn chasolver_corpus_sample_has_the_right_verdicts() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let text = std::fs::read_to_string(data.join("unwinnability/chasolver-positions.txt")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert!(
        lines.len() > 3000,
        "corpus shrank: {} positions",
        lines.len()
    );

    let mut checked = 0;
    let mut wrong = Vec::new();
    let mut verdicts_seen = std::collections::HashSet::new();
    for line in lines.iter().step_by(STRIDE) {
        let (verdict, fen) = line.split_once(' ').expect("line is '<verdict> <fen>'");
        let position: Chess = fen
            .parse::<Fen>()
            .unwrap_or_else(|e| panic!("bad FEN {fen}: {e}"))
            .into_position(CastlingMode::Standard)
            // The corpus holds composed positions shakmaty calls illegal; the solver still answers them.
            .or_else(|e| e.ignore_too_much_material())
            .or_else(|e| e.ignore_impossible_check())
            .unwrap_or_else(|e| panic!("bad position {fen}: {e}"));
        verdicts_seen.insert(verdict);
        for (side, expected_char) in [(Color::White, 'W'), (Color::Black, 'B')] {
            let expected = if verdict.contains(expected_char) {
                Mateability::CanMate
            } else {
                Mateability::CannotMate
            };
            let got = dead::solve(&Query {
                position: position.clone(),
                side,
            });
            if got != expected {
                wrong.push(format!(
                    "{side} in {fen}: expected {expected:?}, got {got:?}"
                ));
            }
            // The cheap test must be sound: it may only ever say "cannot mate" when that is true.
            if dead::quick(&position, side) == Some(Mateability::CannotMate) {
                assert_eq!(
                    expected,
                    Mateability::CannotMate,
                    "quick test unsound for {side} in {fen}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 400, "only {checked} queries checked");
    assert_eq!(
        verdicts_seen.len(),
        4,
        "the sample should contain all four verdict kinds: {verdicts_seen:?}"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong verdicts:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
