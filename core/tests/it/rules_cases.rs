//! Every expectation of `chess-data/rules-cases.txt` (repetition with FIDE 9.2 identity, the
//! fifty-move rule, stalemate, checkmate, insufficient material and unwinnable positions),
//! played through the game state machine.

use crate::support;

use shakmaty::{CastlingMode, Chess, Color, Outcome, Position, fen::Fen, san::San};
use tactus_core::rules::{
    dead::{self, Mateability, Query},
    game::{DrawClaim, Game, Input, RulesConfig, identity},
};

fn position(fen: &str) -> Chess {
    let fen = fen.replace('_', " ");
    fen.parse::<Fen>()
        .unwrap_or_else(|e| panic!("bad FEN {fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("bad position {fen}: {e}"))
}

fn flag(value: &str) -> bool {
    match value {
        "true" => true,
        "false" => false,
        other => panic!("expected true/false, got {other}"),
    }
}

/// The intended move of an "a" claim; `None` when the written move is not legal (which makes the
/// claim incorrect).
fn intended(pos: &Chess, san: &str) -> Option<shakmaty::Move> {
    san.parse::<San>().ok()?.to_move(pos).ok()
}

#[test]
fn every_rules_case_expectation_holds() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let text = std::fs::read_to_string(data.join("rules-cases.txt")).unwrap();
    let mut expectations = 0;
    let mut cases = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 4, "malformed case: {line}");
        let (id, start, sans, expects) = (fields[0], fields[1], fields[2], fields[3]);
        let start = if start == "startpos" {
            Chess::default()
        } else {
            position(start)
        };
        let mut game = Game::from_position(RulesConfig::default(), start);
        for (i, san) in sans.split_whitespace().enumerate() {
            let m = san
                .parse::<San>()
                .unwrap()
                .to_move(game.position())
                .unwrap_or_else(|e| panic!("{id}: move {i} {san}: {e}"));
            game.apply(Input::Move(m), 1000 * i as u64)
                .unwrap_or_else(|e| panic!("{id}: {san}: {e}"));
        }
        let pos = game.position().clone();
        cases += 1;
        for expect in expects.split_whitespace() {
            let ctx = format!("{id} {expect}");
            if let Some(fen) = expect.strip_prefix("same:") {
                assert_eq!(identity(&pos), identity(&position(fen)), "{ctx}");
                assert_eq!(pos, position(fen), "{ctx}: shakmaty equality agrees");
                expectations += 1;
                continue;
            }
            if let Some(fen) = expect.strip_prefix("diff:") {
                assert_ne!(identity(&pos), identity(&position(fen)), "{ctx}");
                assert_ne!(pos, position(fen), "{ctx}: shakmaty equality agrees");
                expectations += 1;
                continue;
            }
            let (key, value) = expect
                .split_once('=')
                .unwrap_or_else(|| panic!("{id}: bad expectation {expect}"));
            match key.split_once(':') {
                Some(("claim92a", san)) => {
                    let ok = intended(&pos, san).is_some_and(|m| {
                        game.claim_is_correct(DrawClaim::Repetition { intended: Some(m) })
                    });
                    assert_eq!(ok, flag(value), "{ctx}");
                }
                Some(("claim93a", san)) => {
                    let ok = intended(&pos, san).is_some_and(|m| {
                        game.claim_is_correct(DrawClaim::FiftyMoves { intended: Some(m) })
                    });
                    assert_eq!(ok, flag(value), "{ctx}");
                }
                Some(_) => panic!("{id}: unknown expectation {expect}"),
                None => match key {
                    "rep" => {
                        assert_eq!(game.repetitions(), value.parse::<usize>().unwrap(), "{ctx}")
                    }
                    "claim92b" => assert_eq!(
                        game.claim_is_correct(DrawClaim::Repetition { intended: None }),
                        flag(value),
                        "{ctx}"
                    ),
                    "claim93b" => assert_eq!(
                        game.claim_is_correct(DrawClaim::FiftyMoves { intended: None }),
                        flag(value),
                        "{ctx}"
                    ),
                    "status" => {
                        let status = if pos.is_checkmate() {
                            "checkmate"
                        } else if pos.is_stalemate() {
                            "stalemate"
                        } else {
                            "none"
                        };
                        assert_eq!(status, value, "{ctx}");
                    }
                    "outcome" => {
                        // The corpus states the static outcome (mate, stalemate, insufficient material).
                        assert_eq!(pos.outcome().to_string(), value, "{ctx}");
                        // And a game that reached a mate or stalemate by a move is over with that result.
                        if !sans.is_empty()
                            && let Outcome::Known(known) = pos.outcome()
                        {
                            assert_eq!(
                                game.end().map(|e| e.outcome),
                                Some(known),
                                "{ctx}: game result"
                            );
                        }
                    }
                    "insuffW" => assert_eq!(
                        pos.has_insufficient_material(Color::White),
                        flag(value),
                        "{ctx}"
                    ),
                    "insuffB" => assert_eq!(
                        pos.has_insufficient_material(Color::Black),
                        flag(value),
                        "{ctx}"
                    ),
                    "winW" | "winB" => {
                        let side = if key == "winW" {
                            Color::White
                        } else {
                            Color::Black
                        };
                        let expected = if flag(value) {
                            Mateability::CanMate
                        } else {
                            Mateability::CannotMate
                        };
                        assert_eq!(
                            dead::solve(&Query {
                                position: pos.clone(),
                                side
                            }),
                            expected,
                            "{ctx}"
                        );
                    }
                    "legalep" => {
                        let ep = pos
                            .legal_ep_square()
                            .map_or("-".to_string(), |s| s.to_string());
                        assert_eq!(ep, value, "{ctx}");
                    }
                    other => panic!("{id}: unknown expectation key {other}"),
                },
            }
            expectations += 1;
        }
        // A position neither side can mate is dead (5.2 b), whatever the material count says.
        if expects.contains("winW=false") && expects.contains("winB=false") {
            assert_eq!(dead::is_dead(&pos), Some(true), "{id}: dead position");
        }
    }
    assert_eq!(cases, 47, "rules-cases.txt should hold 47 cases");
    assert_eq!(
        expectations, 139,
        "rules-cases.txt should hold 139 expectations"
    );
}
