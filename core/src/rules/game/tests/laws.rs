//! Tests of the second reading of the Laws (issue 13), named after the articles: the differences
//! between the 2001 and 2009 texts (each row of `docs/editions.md` names its test here or in
//! `game::tests`), rulings while the arbiter holds the clocks (6.12), and a blitz illegal move
//! (Appendix C) from the illegal move to the claim or to the position that stands.

use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Move, Square, fen::Fen, san::San};

use crate::rules::game::*;
use crate::rules::{Edition, Millis, PlayMode, time_control::TimeControl};

const MIN: i64 = 60_000;

fn game(tc: &str, edition: Edition, play: PlayMode) -> Game {
    Game::new(RulesConfig {
        edition,
        play,
        time_control: Some(tc.parse::<TimeControl>().unwrap()),
    })
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn from_fen(tc: &str, edition: Edition, play: PlayMode, fen: &str) -> Game {
    Game::from_position(
        RulesConfig {
            edition,
            play,
            time_control: Some(tc.parse::<TimeControl>().unwrap()),
        },
        position(fen),
    )
}

fn mv(game: &Game, san: &str) -> Move {
    san.parse::<San>()
        .unwrap()
        .to_move(game.position())
        .unwrap()
}

/// Play SAN moves one second apart starting at `t`; returns the time after the last one.
fn play(game: &mut Game, sans: &str, mut t: Millis) -> Millis {
    for san in sans.split_whitespace() {
        let m = mv(game, san);
        game.apply(Input::Move(m), t)
            .unwrap_or_else(|e| panic!("{san}: {e}"));
        t += 1000;
    }
    t
}

fn remaining(game: &Game, side: Color, now: Millis) -> i64 {
    game.clock().unwrap().remaining(side, now)
}

fn ended(events: &[Event]) -> Option<GameEnd> {
    events.iter().find_map(|e| match e {
        Event::GameEnded(end) => Some(*end),
        _ => None,
    })
}

fn paused(game: &Game) -> bool {
    game.clock().unwrap().is_paused()
}

fn touch(by: Color, square: Square) -> Input {
    Input::Touch { by, square }
}

/// The start position for the third time, White to move: 9.2 b is correct for White.
const THREE_TIMES: &str = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8";

// --- the editions -----------------------------------------------------------------------------

#[test]
fn a6_6_default_time_is_one_hour_in_2001_and_zero_in_2009() {
    let (r2001, r2009) = (Edition::Fide2001.rules(), Edition::Fide2009.rules());
    // 2001, 6.6 b: "more than one hour after the scheduled start ... shall lose".
    assert!(!r2001.arrival_loses(60 * MIN));
    assert!(r2001.arrival_loses(60 * MIN + 1));
    // 2009, 6.6 a: "la tolerancia de tiempo es 0": any arrival after the start loses.
    assert!(!r2009.arrival_loses(0));
    assert!(r2009.arrival_loses(1));
}

#[test]
fn the_later_text_is_named_2009_and_2005_is_refused_with_the_reason() {
    assert_eq!("2009".parse::<Edition>(), Ok(Edition::Fide2009));
    assert_eq!("2001".parse::<Edition>(), Ok(Edition::Fide2001));
    let err = "2005".parse::<Edition>().unwrap_err();
    assert!(
        err.contains("2009") && err.contains("6.6 a") && err.contains("zero"),
        "{err}"
    );
    // Written as "2009" from now on ...
    assert_eq!(
        serde_json::to_string(&Edition::Fide2009).unwrap(),
        "\"2009\""
    );
    // ... and journals written under the old name still replay under the same rules.
    assert_eq!(
        serde_json::from_str::<Edition>("\"2005\"").unwrap(),
        Edition::Fide2009
    );
    assert_eq!(
        serde_json::from_str::<Edition>("\"2009\"").unwrap(),
        Edition::Fide2009
    );
}

#[test]
fn a9_4_2009_a_touch_without_claiming_loses_the_right_to_claim_at_this_move() {
    let mut g = game("600", Edition::Fide2009, PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, THREE_TIMES, 1_000);
    let claim = DrawClaim::Repetition { intended: None };
    assert!(g.claim_is_correct(claim));
    // A touch by the player who has not the move changes nothing for White.
    g.apply(touch(Color::Black, Square::G8), t).unwrap();
    assert!(
        g.clone()
            .apply(
                Input::Claim {
                    by: Color::White,
                    claim
                },
                t
            )
            .is_ok()
    );
    // White touches his knight as in 4.3 without claiming: the right is gone at this move.
    g.apply(touch(Color::White, Square::G1), t + 1_000).unwrap();
    let before = remaining(&g, Color::White, t + 2_000);
    assert_eq!(
        g.apply(
            Input::Claim {
                by: Color::White,
                claim
            },
            t + 2_000
        ),
        Err(RulesError::ClaimRightLost { by: Color::White })
    );
    // Refused, not an incorrect claim: no 9.5 b adjustment, the clock still runs.
    assert_eq!(remaining(&g, Color::White, t + 2_000), before);
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    // At the next move the right is Black's, untouched: the position after Nf3 stands for the
    // third time.
    let t = play(&mut g, "Nf3", t + 3_000);
    let events = g
        .apply(
            Input::Claim {
                by: Color::Black,
                claim,
            },
            t,
        )
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::Claim(Article::A9_2b))
    );
}

#[test]
fn a9_4_2001_a_touch_leaves_the_right_to_claim_until_the_move_is_made() {
    let mut g = game("600", Edition::Fide2001, PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, THREE_TIMES, 1_000);
    let claim = DrawClaim::Repetition { intended: None };
    g.apply(touch(Color::White, Square::G1), t).unwrap();
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim,
            },
            t + 1_000,
        )
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::Claim(Article::A9_2b))
    );
}

/// A game in its quickplay finish with White's 10.2 claim postponed at t = 1 s.
fn postponed(edition: Edition) -> Game {
    let mut g = game("600", edition, PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 90_000,
        },
        0,
    )
    .unwrap();
    g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 0)
        .unwrap();
    g.apply(
        Input::QuickplayRuling(QuickplayRuling::Postpone {
            extra_time_to_opponent: true,
        }),
        1_000,
    )
    .unwrap();
    g
}

#[test]
fn a10_2_b_2001_after_a_postponement_the_result_is_declared_only_after_a_flag() {
    let mut g = postponed(Edition::Fide2001);
    let t = play(&mut g, "e4 e5", 2_000);
    // No flag has fallen: neither a draw nor any other ruling on the claim.
    for ruling in [
        QuickplayRuling::Draw,
        QuickplayRuling::Reject,
        QuickplayRuling::Postpone {
            extra_time_to_opponent: false,
        },
    ] {
        assert_eq!(
            g.apply(Input::QuickplayRuling(ruling), t),
            Err(RulesError::QuickplayResultOnlyAfterAFlag)
        );
    }
    assert!(g.end().is_none());
    // White's flag falls: now the arbiter declares the result.
    let events = g.apply(Input::Tick, t + 100_000).unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ArbiterMustRule { .. }))
    );
    g.apply(
        Input::ArbiterResult {
            outcome: KnownOutcome::Draw,
        },
        t + 200_000,
    )
    .unwrap();
    assert_eq!(g.end().unwrap().outcome, KnownOutcome::Draw);
}

#[test]
fn a10_2_b_2009_the_arbiter_may_declare_the_draw_later_during_the_game() {
    let mut g = postponed(Edition::Fide2009);
    let t = play(&mut g, "e4 e5", 2_000);
    let events = g
        .apply(Input::QuickplayRuling(QuickplayRuling::Draw), t)
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::QuickplayDraw)
    );
}

#[test]
fn appendix_a3_b2_2009_a_supervised_fast_game_is_played_under_the_competition_rules() {
    // Blitz with one arbiter for the game (B2): 7.4 applies (two minutes), not Appendix C.
    let mut g = game("300", Edition::Fide2009, PlayMode::BlitzSupervised);
    assert_eq!(g.laws(), PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    let events = g
        .apply(Input::IllegalMove { by: Color::White }, 1_000)
        .unwrap();
    assert_eq!(
        events,
        vec![Event::IllegalMovePenalty {
            offender: Color::White,
            count: 1,
            bonus_ms: 2 * MIN
        }]
    );
    // Rapid with adequate supervision (A3): the arbiter signals the flag (6.9), no claim needed.
    let mut g = game("900", Edition::Fide2009, PlayMode::RapidSupervised);
    assert_eq!(g.laws(), PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    let mut events = g.apply(Input::Tick, 901_000).unwrap();
    events.extend(g.resolve_analyses(901_000));
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert!(g.end().is_some());
}

#[test]
fn appendices_b_c_2001_apply_whatever_the_supervision() {
    let mut g = game("300", Edition::Fide2001, PlayMode::BlitzSupervised);
    assert_eq!(g.laws(), PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    let events = g
        .apply(Input::IllegalMove { by: Color::White }, 1_000)
        .unwrap();
    assert_eq!(
        events,
        vec![Event::IllegalMoveClaimable {
            offender: Color::White
        }]
    );
    let mut g = game("900", Edition::Fide2001, PlayMode::RapidSupervised);
    assert_eq!(g.laws(), PlayMode::Rapid);
    g.apply(Input::Start, 0).unwrap();
    // Appendix B: the flag has fallen only when validly claimed; the clock shows it, once.
    assert_eq!(
        g.apply(Input::Tick, 901_000).unwrap(),
        vec![Event::FlagDown { side: Color::White }]
    );
    assert!(g.apply(Input::Tick, 902_000).unwrap().is_empty());
    assert!(g.end().is_none());
    // Without the supervision word, both editions play the appendices.
    for edition in [Edition::Fide2001, Edition::Fide2009] {
        assert_eq!(PlayMode::Rapid.laws(edition), PlayMode::Rapid);
        assert_eq!(PlayMode::Blitz.laws(edition), PlayMode::Blitz);
    }
}

#[test]
fn supervised_play_modes_are_written_and_read_by_their_names() {
    for (mode, name) in [
        (PlayMode::RapidSupervised, "rapid-supervised"),
        (PlayMode::BlitzSupervised, "blitz-supervised"),
        (PlayMode::Blitz, "blitz"),
    ] {
        assert_eq!(name.parse::<PlayMode>(), Ok(mode));
        assert_eq!(serde_json::to_string(&mode).unwrap(), format!("\"{name}\""));
    }
}

#[test]
fn appendix_c_2001_a_touch_ends_the_claim_of_an_illegal_move() {
    let mut g = game("300", Edition::Fide2001, PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 1_000)
        .unwrap();
    g.apply(touch(Color::Black, Square::E7), 2_000).unwrap();
    assert_eq!(
        g.apply(Input::ClaimIllegalMove { by: Color::Black }, 3_000),
        Err(RulesError::NothingToClaim { by: Color::Black })
    );
}

#[test]
fn appendix_b3_c_2009_only_the_opponents_own_move_ends_the_claim() {
    let mut g = game("300", Edition::Fide2009, PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 1_000)
        .unwrap();
    g.apply(touch(Color::Black, Square::E7), 2_000).unwrap();
    let mut events = g
        .apply(Input::ClaimIllegalMove { by: Color::Black }, 3_000)
        .unwrap();
    events.extend(g.resolve_analyses(3_000));
    assert_eq!(
        ended(&events).map(|e| (e.reason, e.outcome)),
        Some((
            EndReason::IllegalMoveClaimed {
                offender: Color::White
            },
            KnownOutcome::Decisive {
                winner: Color::Black
            }
        ))
    );
}

// --- 6.12: the arbiter rules while the clocks stand --------------------------------------------

/// A standard game, 10 minutes each, White's clock run 10 s and then paused by the arbiter.
fn paused_game(edition: Edition) -> Game {
    let mut g = game("600", edition, PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Pause(PauseReason::Arbiter), 10_000).unwrap();
    g
}

#[test]
fn a6_12_a7_4_b_an_illegal_move_is_penalised_while_paused_and_no_clock_restarts() {
    let mut g = paused_game(Edition::Fide2001);
    let events = g
        .apply(Input::IllegalMove { by: Color::White }, 20_000)
        .unwrap();
    assert!(events.contains(&Event::IllegalMovePenalty {
        offender: Color::White,
        count: 1,
        bonus_ms: 2 * MIN
    }));
    assert!(paused(&g));
    assert_eq!(remaining(&g, Color::Black, 50_000), 600_000 + 2 * MIN);
    assert_eq!(remaining(&g, Color::White, 50_000), 590_000);
    // Only Resume restarts the clock of the player having the move.
    g.apply(Input::Resume(PauseReason::Arbiter), 60_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    assert_eq!(remaining(&g, Color::White, 61_000), 589_000);
}

#[test]
fn a6_12_a7_4_b_a_third_illegal_move_while_paused_ends_the_game_and_holds_no_clock() {
    let mut g = paused_game(Edition::Fide2001);
    for t in [20_000, 21_000, 22_000] {
        g.apply(Input::IllegalMove { by: Color::White }, t).unwrap();
    }
    assert_eq!(
        g.end().map(|e| e.reason),
        Some(EndReason::IllegalMoves {
            offender: Color::White
        })
    );
    assert!(!paused(&g) && g.clock().unwrap().running().is_none());
}

#[test]
fn a6_12_a9_2_a_rejected_claim_while_paused_adjusts_the_times_and_restarts_no_clock() {
    let mut g = paused_game(Edition::Fide2001);
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition { intended: None },
            },
            20_000,
        )
        .unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ClaimRejected { .. }))
    );
    assert!(paused(&g));
    // 9.5 b (2001): three minutes to Black; White's 590 s halved, at most three minutes off.
    assert_eq!(remaining(&g, Color::Black, 50_000), 600_000 + 3 * MIN);
    assert_eq!(remaining(&g, Color::White, 50_000), 590_000 - 3 * MIN);
    g.apply(Input::Resume(PauseReason::Arbiter), 60_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
}

#[test]
fn a6_12_a9_2_a_correct_claim_while_paused_draws_and_holds_no_clock() {
    let mut g = game("600", Edition::Fide2001, PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, THREE_TIMES, 1_000);
    g.apply(Input::Pause(PauseReason::Arbiter), t).unwrap();
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition { intended: None },
            },
            t + 5_000,
        )
        .unwrap();
    assert_eq!(ended(&events).map(|e| e.outcome), Some(KnownOutcome::Draw));
    assert!(!paused(&g));
}

#[test]
fn a6_12_a9_3_a_fifty_move_claim_is_taken_while_paused() {
    let mut g = from_fen(
        "600",
        Edition::Fide2001,
        PlayMode::Standard,
        "8/8/8/4k3/8/8/3K4/R7 w - - 100 80",
    );
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Pause(PauseReason::Arbiter), 1_000).unwrap();
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::FiftyMoves { intended: None },
            },
            2_000,
        )
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::Claim(Article::A9_3b))
    );
}

#[test]
fn a6_12_a10_2_a_quickplay_claim_and_its_ruling_while_paused_restart_no_clock() {
    let mut g = paused_game(Edition::Fide2001);
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 90_000,
        },
        11_000,
    )
    .unwrap();
    g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 12_000)
        .unwrap();
    assert!(paused(&g));
    let events = g
        .apply(Input::QuickplayRuling(QuickplayRuling::Reject), 20_000)
        .unwrap();
    assert_eq!(events, vec![Event::QuickplayRejected { bonus_ms: 2 * MIN }]);
    assert!(paused(&g), "10.2 c: the rejection restarts no clock");
    assert_eq!(remaining(&g, Color::White, 50_000), 90_000);
    assert_eq!(remaining(&g, Color::Black, 50_000), 600_000 + 2 * MIN);
    g.apply(Input::Resume(PauseReason::Arbiter), 60_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));

    // The same with a postponement, and with a draw.
    let mut g = paused_game(Edition::Fide2009);
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 90_000,
        },
        11_000,
    )
    .unwrap();
    g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 12_000)
        .unwrap();
    g.apply(
        Input::QuickplayRuling(QuickplayRuling::Postpone {
            extra_time_to_opponent: false,
        }),
        20_000,
    )
    .unwrap();
    assert!(paused(&g));
    let events = g
        .apply(Input::QuickplayRuling(QuickplayRuling::Draw), 21_000)
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::QuickplayDraw)
    );
    assert!(!paused(&g));
}

#[test]
fn a6_12_appendix_c_an_illegal_move_and_its_claim_are_taken_while_paused() {
    let mut g = game("300", Edition::Fide2001, PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Pause(PauseReason::Arbiter), 5_000).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 6_000)
        .unwrap();
    assert!(paused(&g));
    let mut events = g
        .apply(Input::ClaimIllegalMove { by: Color::Black }, 7_000)
        .unwrap();
    events.extend(g.resolve_analyses(7_000));
    assert_eq!(
        ended(&events).map(|e| e.outcome),
        Some(KnownOutcome::Decisive {
            winner: Color::Black
        })
    );
    assert!(!paused(&g));
}

#[test]
fn a6_12_f8_a_retraced_or_set_up_position_resumes_the_clock_of_the_player_to_move() {
    let mut g = game("600", Edition::Fide2001, PlayMode::Standard);
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "e4 e5 Nf3", 1_000);
    g.apply(Input::Pause(PauseReason::Arbiter), t).unwrap();
    g.apply(Input::Retract { to_ply: 2 }, t + 1_000).unwrap();
    assert!(paused(&g));
    assert_eq!(g.clock().unwrap().paused_side(), Some(Color::White));
    // 7.4 a: the arbiter sets up a position with Black to move while the clocks stand.
    let setup = position("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    g.apply(Input::SetPosition { position: setup }, t + 2_000)
        .unwrap();
    assert!(paused(&g));
    assert_eq!(g.clock().unwrap().paused_side(), Some(Color::Black));
    g.apply(Input::Resume(PauseReason::Arbiter), t + 3_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
}

// --- Appendix C: an illegal move in blitz ------------------------------------------------------

#[test]
fn appendix_c_an_illegal_move_does_not_charge_the_opponent_for_the_offenders_thinking() {
    let mut g = game("300", Edition::Fide2001, PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 5_000)
        .unwrap();
    // White has the move in the rules (his illegal move is not in the record): his clock runs.
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    // He thinks 20 s more and replaces the move with a legal one, on his own time.
    play(&mut g, "e4", 25_000);
    assert_eq!(remaining(&g, Color::White, 25_000), 275_000);
    assert_eq!(remaining(&g, Color::Black, 25_000), 300_000);
}

#[test]
fn appendix_c_the_opponent_claims_the_win_before_his_own_move_once_the_move_stands() {
    let mut g = game("300", Edition::Fide2001, PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 5_000)
        .unwrap();
    // The illegal move (a pawn e2-e5) stands on the board: the arbiter sets it up, Black's clock
    // runs, and Black may still claim before he moves.
    let standing = position("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    g.apply(Input::SetPosition { position: standing }, 6_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    let mut events = g
        .apply(Input::ClaimIllegalMove { by: Color::Black }, 8_000)
        .unwrap();
    events.extend(g.resolve_analyses(8_000));
    let end = ended(&events).unwrap();
    assert_eq!(
        (end.reason, end.outcome),
        (
            EndReason::IllegalMoveClaimed {
                offender: Color::White
            },
            KnownOutcome::Decisive {
                winner: Color::Black
            }
        )
    );
    assert!(g.clock().unwrap().running().is_none(), "the game is over");
}

#[test]
fn appendix_c_only_the_offenders_opponent_may_claim_and_a_set_up_with_the_offender_to_move_ends_it()
{
    let mut g = game("300", Edition::Fide2001, PlayMode::Blitz);
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 5_000)
        .unwrap();
    assert_eq!(
        g.apply(Input::ClaimIllegalMove { by: Color::White }, 6_000),
        Err(RulesError::NothingToClaim { by: Color::White })
    );
    // The arbiter reinstates a position with White to move: the illegal move is gone, and so is
    // the claim.
    g.apply(
        Input::SetPosition {
            position: Chess::default(),
        },
        7_000,
    )
    .unwrap();
    assert_eq!(
        g.apply(Input::ClaimIllegalMove { by: Color::Black }, 8_000),
        Err(RulesError::NothingToClaim { by: Color::Black })
    );
}

#[test]
fn a6_12_a10_2_no_resume_before_the_ruling_on_a_claim_made_while_paused() {
    // The claimant cannot move until the ruling: resuming first would charge him for nothing.
    let mut g = paused_game(Edition::Fide2001);
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 90_000,
        },
        11_000,
    )
    .unwrap();
    g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 12_000)
        .unwrap();
    assert_eq!(
        g.apply(Input::Resume(PauseReason::Arbiter), 13_000),
        Err(RulesError::AwaitingQuickplayRuling)
    );
    assert!(paused(&g));
}
