//! Unit tests of the game state machine with virtual time: every clock consequence, claim and
//! penalty path, in both editions and all three play modes. The second reading of the Laws, test
//! by article, is in [`laws`].

mod laws;

use shakmaty::{
    CastlingMode, Chess, Color, KnownOutcome, Move, Position, Square, fen::Fen, san::San,
};

use super::*;
use crate::rules::{Edition, Millis, PlayMode, dead::Mateability, time_control::TimeControl};

const MIN: i64 = 60_000;

fn config(tc: &str, edition: Edition, play: PlayMode) -> RulesConfig {
    RulesConfig {
        edition,
        play,
        time_control: Some(tc.parse::<TimeControl>().unwrap()),
    }
}

fn standard(tc: &str) -> Game {
    Game::new(config(tc, Edition::Fide2001, PlayMode::Standard))
}

fn from_fen(cfg: RulesConfig, fen: &str) -> Game {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    Game::from_position(cfg, pos)
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

// --- record and clock -------------------------------------------------------------------------

#[test]
fn moves_are_recorded_with_san_time_and_both_clocks() {
    let mut g = standard("300+2");
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Move(mv(&g, "e4")), 10_000).unwrap();
    g.apply(Input::Move(mv(&g, "e5")), 15_000).unwrap();
    g.apply(Input::Move(mv(&g, "Qh5")), 16_000).unwrap();
    g.apply(Input::Move(mv(&g, "Nc6")), 20_000).unwrap();
    g.apply(Input::Move(mv(&g, "Bc4")), 21_000).unwrap();
    g.apply(Input::Move(mv(&g, "Nf6")), 22_000).unwrap();
    let events = g.apply(Input::Move(mv(&g, "Qxf7")), 23_000).unwrap();
    let record = &g.moves()[0];
    assert_eq!(record.san.to_string(), "e4");
    assert_eq!(record.at, 10_000);
    // White thought 10 s and got a 2 s increment.
    assert_eq!(
        record.clocks_after.as_ref().unwrap().white,
        300_000 - 10_000 + 2_000
    );
    assert_eq!(record.clocks_after.as_ref().unwrap().black, 300_000);
    assert_eq!(g.moves()[6].san.to_string(), "Qxf7#");
    assert_eq!(
        ended(&events).unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::White
        }
    );
    assert_eq!(ended(&events).unwrap().reason, EndReason::Checkmate);
    assert!(matches!(
        g.apply(
            Input::Move(mv(&Game::new(RulesConfig::default()), "e4")),
            30_000
        ),
        Err(RulesError::GameOver(_))
    ));
    assert_eq!(g.clock().unwrap().running(), None, "clocks stop at mate");
}

#[test]
fn pgn_export_carries_time_control_clocks_offers_and_termination() {
    let mut g = standard("300+2");
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Move(mv(&g, "e4")), 10_000).unwrap();
    g.apply(Input::OfferDraw { by: Color::White }, 10_500)
        .unwrap();
    g.apply(Input::Move(mv(&g, "e5")), 20_000).unwrap();
    g.apply(Input::Resign { by: Color::White }, 30_000).unwrap();
    let tags = vec![
        ("White".to_string(), "Blind, Player".to_string()),
        ("Black".to_string(), "Sighted, Player".to_string()),
    ];
    let text = g.to_pgn(&tags);
    assert!(text.contains("[TimeControl \"300+2\"]"), "{text}");
    assert!(text.contains("[Termination \"normal\"]"), "{text}");
    assert!(text.contains("[Result \"0-1\"]"), "{text}");
    assert!(text.contains("[%clk 0:04:52]"), "{text}");
    assert!(text.contains("(=)"), "{text}");
    let back = crate::rules::pgn::read_pgn(text.as_bytes()).unwrap();
    assert_eq!(
        back[0].moves,
        g.moves().iter().map(|r| r.mv).collect::<Vec<_>>()
    );
    assert_eq!(back[0].clocks, vec![Some(292_000), Some(292_000)]);
    assert_eq!(back[0].white(), "Blind, Player");
}

#[test]
fn start_twice_and_illegal_moves_are_refused_without_change() {
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    assert_eq!(g.apply(Input::Start, 5), Err(RulesError::AlreadyStarted));
    let illegal = Move::Normal {
        role: shakmaty::Role::Pawn,
        from: Square::E2,
        capture: None,
        to: Square::E5,
        promotion: None,
    };
    assert!(matches!(
        g.apply(Input::Move(illegal), 10),
        Err(RulesError::IllegalMove { .. })
    ));
    assert_eq!(g.ply(), 0);
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
}

#[test]
fn period_change_through_the_game() {
    let mut g = standard("2/60:30");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "Nf3 Nf6 Ng1", 1000);
    // White completed two moves: 60 s - 1 s - 1 s, plus 30 s for the next period.
    assert_eq!(
        remaining(&g, Color::White, t),
        60_000 - 2_000 + 30_000 + 1_000 - 1_000
    );
    assert_eq!(g.clock().unwrap().period_index(Color::White), 1);
    assert_eq!(g.clock().unwrap().period_index(Color::Black), 0);
}

#[test]
fn delay_mode_leaves_main_time_when_pressed_within_the_delay() {
    let mut g = standard("60d5");
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Move(mv(&g, "e4")), 4_000).unwrap();
    assert_eq!(remaining(&g, Color::White, 4_000), 60_000);
    g.apply(Input::Move(mv(&g, "e5")), 4_000 + 8_000).unwrap();
    assert_eq!(remaining(&g, Color::Black, 12_000), 60_000 - 3_000);
}

// --- flags ------------------------------------------------------------------------------------

#[test]
fn a_fallen_flag_loses_when_the_opponent_can_mate() {
    let mut g = standard("60");
    g.apply(Input::Start, 0).unwrap();
    assert!(g.apply(Input::Tick, 59_999).unwrap().is_empty());
    let events = g.apply(Input::Tick, 60_000).unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    // The cheap test cannot tell for the start position: the result waits for the search.
    let (ticket, query) = g
        .pending_queries()
        .into_iter()
        .next()
        .expect("an analysis is pending");
    assert_eq!(query.side, Color::Black);
    assert!(g.is_over());
    assert!(matches!(
        g.apply(Input::Move(mv(&g, "e4")), 61_000),
        Err(RulesError::GameOver(_))
    ));
    let events = g
        .apply(
            Input::Verdict {
                ticket,
                mateability: Mateability::CanMate,
            },
            61_000,
        )
        .unwrap();
    let end = ended(&events).unwrap();
    assert_eq!(
        end.outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
    assert_eq!(
        end.reason,
        EndReason::FlagFall {
            flagged: Color::White
        }
    );
}

#[test]
fn a_move_after_the_flag_fell_comes_too_late() {
    let mut g = standard("60");
    g.apply(Input::Start, 0).unwrap();
    // No tick reported the flag; the move arrives a second after it fell.
    let events = g.apply(Input::Move(mv(&g, "e4")), 61_000).unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert_eq!(g.ply(), 0, "the move was not completed in time");
    assert!(g.is_over());
}

#[test]
fn a_fallen_flag_is_a_draw_when_the_opponent_has_a_bare_king() {
    // 6.9: Black has only his king; White's flag falls.
    let mut g = from_fen(
        config("10", Edition::Fide2001, PlayMode::Standard),
        "8/8/8/4k3/8/8/3K4/7Q w - - 0 1",
    );
    g.apply(Input::Start, 0).unwrap();
    let events = g.apply(Input::Tick, 10_000).unwrap();
    let end = ended(&events).expect("decided at once by the cheap test");
    assert_eq!(end.outcome, KnownOutcome::Draw);
    assert_eq!(
        end.reason,
        EndReason::FlagFall {
            flagged: Color::White
        }
    );
}

#[test]
fn a_fallen_flag_is_a_draw_behind_a_locked_wall() {
    // rules-cases D01: material enough, but neither side can ever mate; only the search knows.
    let mut g = from_fen(
        config("10", Edition::Fide2001, PlayMode::Standard),
        "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1",
    );
    g.apply(Input::Start, 0).unwrap();
    let mut events = g.apply(Input::Tick, 10_500).unwrap();
    events.extend(g.resolve_analyses(10_500));
    let end = ended(&events).unwrap();
    assert_eq!(end.outcome, KnownOutcome::Draw);
}

#[test]
fn an_undecided_search_leaves_the_flag_to_the_arbiter() {
    let mut g = standard("60");
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Tick, 60_000).unwrap();
    let (ticket, _) = g.pending_queries()[0].clone();
    let events = g
        .apply(
            Input::Verdict {
                ticket,
                mateability: Mateability::Undecided,
            },
            60_000,
        )
        .unwrap();
    assert_eq!(
        events,
        vec![Event::ArbiterMustRule {
            reason: EndReason::FlagFall {
                flagged: Color::White
            },
            flagged_or_offender: Color::White
        }]
    );
    assert!(
        g.end().is_none(),
        "an undecided search never decides a result"
    );
    assert!(g.pending_queries().is_empty());
    assert_eq!(
        g.apply(Input::Move(mv(&g, "e4")), 61_000),
        Err(RulesError::AwaitingArbiter)
    );
    let events = g
        .apply(
            Input::ArbiterResult {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
            },
            90_000,
        )
        .unwrap();
    let end = ended(&events).unwrap();
    assert_eq!((end.reason, end.at), (EndReason::ArbiterDecision, 60_000));
}

#[test]
fn the_arbiter_zeroing_a_clock_makes_that_flag_fall_at_once() {
    // Only one clock runs at a time, so our clock always knows which flag fell first: setting
    // Black's clock to zero is Black's flag falling, before anything else can happen.
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::SetClock {
            side: Color::Black,
            remaining_ms: 0,
        },
        1_000,
    )
    .unwrap();
    let mut events = g
        .apply(
            Input::SetClock {
                side: Color::White,
                remaining_ms: 0,
            },
            2_000,
        )
        .unwrap();
    events.extend(g.resolve_analyses(2_000));
    assert!(events.contains(&Event::FlagFell { side: Color::Black }));
    let end = g.end().unwrap();
    assert_eq!(
        end.outcome,
        KnownOutcome::Decisive {
            winner: Color::White
        }
    );
    assert_eq!(end.at, 1_000, "the game ended when Black's flag fell");
    assert_eq!(
        remaining(&g, Color::White, 5_000),
        299_000,
        "White's clock stopped at the flag"
    );
}

#[test]
fn a_late_tick_stops_the_clock_at_the_flag_instant() {
    let mut g = standard("40/300:60");
    g.apply(Input::Start, 0).unwrap();
    let mut events = g.apply(Input::Tick, 400_000).unwrap();
    events.extend(g.resolve_analyses(400_000));
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert_eq!(g.end().unwrap().at, 300_000);
    assert_eq!(remaining(&g, Color::White, 400_000), 0);
    // 6.9 before the control is reached: still a loss.
    assert_eq!(
        g.end().unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
}

#[test]
fn rapid_flags_count_only_when_claimed() {
    let mut g = Game::new(config("60", Edition::Fide2001, PlayMode::Rapid));
    g.apply(Input::Start, 0).unwrap();
    // The arbiter does not signal the flag: the clock shows it (once), and the game goes on.
    assert_eq!(
        g.apply(Input::Tick, 70_000).unwrap(),
        vec![Event::FlagDown { side: Color::White }]
    );
    assert!(g.apply(Input::Tick, 70_500).unwrap().is_empty());
    assert!(!g.is_over());
    // Black claims: his own flag is up, White's is down.
    let mut events = g
        .apply(Input::ClaimFlag { by: Color::Black }, 70_000)
        .unwrap();
    events.extend(g.resolve_analyses(70_000));
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert_eq!(
        ended(&events).unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
}

#[test]
fn rapid_flag_claim_too_early_is_rejected_and_both_flags_draw() {
    let mut g = Game::new(config("60", Edition::Fide2001, PlayMode::Rapid));
    g.apply(Input::Start, 0).unwrap();
    let events = g
        .apply(Input::ClaimFlag { by: Color::Black }, 30_000)
        .unwrap();
    assert_eq!(events, vec![Event::FlagClaimRejected { by: Color::Black }]);
    assert_eq!(
        g.clock().unwrap().running(),
        Some(Color::White),
        "the game goes on"
    );
    // White plays on after his flag fell; then Black's flag falls too.
    g.apply(Input::Move(mv(&g, "e4")), 70_000).unwrap();
    let events = g
        .apply(Input::ClaimFlag { by: Color::White }, 140_000)
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| (e.reason, e.outcome)),
        Some((EndReason::BothFlags, KnownOutcome::Draw))
    );
}

#[test]
fn blitz_flag_claim_is_a_draw_when_the_claimant_cannot_mate() {
    // Black has a bare king and claims White's flag: he cannot mate, so it is a draw.
    let mut g = from_fen(
        config("10", Edition::Fide2001, PlayMode::Blitz),
        "8/8/8/4k3/8/8/3K4/7Q w - - 0 1",
    );
    g.apply(Input::Start, 0).unwrap();
    let events = g
        .apply(Input::ClaimFlag { by: Color::Black }, 11_000)
        .unwrap();
    assert_eq!(ended(&events).unwrap().outcome, KnownOutcome::Draw);
}

// --- pause and arbiter adjustments ------------------------------------------------------------

#[test]
fn paused_clocks_charge_nothing_and_refuse_moves() {
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Pause(PauseReason::Arbiter), 10_000).unwrap();
    assert_eq!(
        g.apply(Input::Move(mv(&g, "e4")), 20_000),
        Err(RulesError::Paused)
    );
    assert_eq!(
        g.apply(Input::Pause(PauseReason::Arbiter), 20_000),
        Err(RulesError::Paused)
    );
    g.apply(Input::Resume(PauseReason::Arbiter), 100_000)
        .unwrap();
    assert_eq!(remaining(&g, Color::White, 100_000), 290_000);
    assert_eq!(
        g.apply(Input::Resume(PauseReason::Arbiter), 100_000),
        Err(RulesError::NotPaused)
    );
    g.apply(Input::Move(mv(&g, "e4")), 105_000).unwrap();
    assert_eq!(remaining(&g, Color::White, 105_000), 285_000);
}

#[test]
fn arbiter_sets_and_adjusts_clocks_and_move_counter() {
    let mut g = standard("40/600:300");
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::SetClock {
            side: Color::Black,
            remaining_ms: 100_000,
        },
        0,
    )
    .unwrap();
    g.apply(
        Input::AdjustClock {
            side: Color::White,
            delta_ms: -50_000,
        },
        0,
    )
    .unwrap();
    g.apply(
        Input::SetMoveCounter {
            side: Color::White,
            moves: 39,
        },
        0,
    )
    .unwrap();
    assert_eq!(remaining(&g, Color::Black, 0), 100_000);
    assert_eq!(remaining(&g, Color::White, 0), 550_000);
    assert_eq!(g.clock().unwrap().moves_to_control(Color::White), Some(1));
    let none = Game::new(RulesConfig::default());
    assert_eq!(
        none.clone().apply(Input::Pause(PauseReason::Arbiter), 0),
        Err(RulesError::NoClock)
    );
}

// --- draw offers ------------------------------------------------------------------------------

#[test]
fn an_offer_is_recorded_and_can_be_accepted() {
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "e4", 1_000);
    g.apply(Input::OfferDraw { by: Color::White }, t).unwrap();
    assert_eq!(g.draw_offer(), Some(Color::White));
    assert_eq!(
        g.apply(Input::AcceptDraw { by: Color::White }, t),
        Err(RulesError::NoDrawOffer(Color::White))
    );
    let events = g
        .apply(Input::AcceptDraw { by: Color::Black }, t + 1)
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| (e.reason, e.outcome)),
        Some((EndReason::Agreement, KnownOutcome::Draw))
    );
    assert_eq!(
        g.scoresheet(Color::Black).entries[0].draw_offer,
        Some(Color::White)
    );
    let pgn = g.to_pgn(&[]);
    assert!(pgn.contains("(=)"), "{pgn}");
    assert!(pgn.contains("1/2-1/2"), "{pgn}");
}

#[test]
fn an_offer_lapses_when_the_opponent_moves_touches_or_declines() {
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "e4", 1_000);
    g.apply(Input::OfferDraw { by: Color::White }, t).unwrap();
    let events = g.apply(Input::Move(mv(&g, "e5")), t + 1).unwrap();
    assert!(events.contains(&Event::DrawDeclined { by: Color::Black }));
    assert_eq!(g.draw_offer(), None);

    g.apply(Input::OfferDraw { by: Color::Black }, t + 2)
        .unwrap();
    // The offerer's own touch does not withdraw it (9.1 a: it cannot be withdrawn).
    g.apply(
        Input::Touch {
            by: Color::Black,
            square: Square::E5,
        },
        t + 3,
    )
    .unwrap();
    assert_eq!(g.draw_offer(), Some(Color::Black));
    g.apply(
        Input::Touch {
            by: Color::White,
            square: Square::G1,
        },
        t + 4,
    )
    .unwrap();
    assert_eq!(g.draw_offer(), None);

    g.apply(Input::OfferDraw { by: Color::White }, t + 5)
        .unwrap();
    g.apply(Input::DeclineDraw { by: Color::Black }, t + 6)
        .unwrap();
    assert_eq!(g.draw_offer(), None);
    assert_eq!(g.offers().len(), 3, "every offer stays on the scoresheet");
}

#[test]
fn resignation_ends_the_game() {
    let mut g = standard("300");
    let events = g.apply(Input::Resign { by: Color::White }, 0).unwrap();
    assert_eq!(
        ended(&events).unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
    assert!(g.to_pgn(&[]).contains("0-1"));
}

// --- claims -----------------------------------------------------------------------------------

const REPEAT: &str = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1";

#[test]
fn correct_repetition_claims_draw_at_once() {
    // 9.2 a: Black writes Ng8, which makes the start position appear for the third time.
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, REPEAT, 1_000);
    let claim = DrawClaim::Repetition {
        intended: Some(mv(&g, "Ng8")),
    };
    let events = g
        .apply(
            Input::Claim {
                by: Color::Black,
                claim,
            },
            t,
        )
        .unwrap();
    assert!(events.contains(&Event::ClaimUpheld {
        by: Color::Black,
        article: Article::A9_2a
    }));
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::Claim(Article::A9_2a))
    );

    // 9.2 b: after Ng8 it has appeared; White, having the move, claims.
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, &format!("{REPEAT} Ng8"), 1_000);
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition { intended: None },
            },
            t,
        )
        .unwrap();
    assert_eq!(ended(&events).unwrap().outcome, KnownOutcome::Draw);
}

#[test]
fn only_the_player_having_the_move_may_claim() {
    let mut g = standard("300");
    let t = play(&mut g, &format!("{REPEAT} Ng8"), 1_000);
    let err = g
        .apply(
            Input::Claim {
                by: Color::Black,
                claim: DrawClaim::Repetition { intended: None },
            },
            t,
        )
        .unwrap_err();
    assert_eq!(
        err,
        RulesError::NotYourMove {
            by: Color::Black,
            to_move: Color::White
        }
    );
}

#[test]
fn moving_without_claiming_loses_the_right_for_that_move() {
    // 9.4: White could claim after ...Ng8 (third occurrence) but plays e4 instead; when it is his
    // move again the position that was repeated is gone, and so is his right.
    let mut g = standard("300");
    let t = play(&mut g, &format!("{REPEAT} Ng8"), 1_000);
    assert!(g.claim_is_correct(DrawClaim::Repetition { intended: None }));
    let t = play(&mut g, "e4 e5", t);
    assert!(!g.claim_is_correct(DrawClaim::Repetition { intended: None }));
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition { intended: None },
            },
            t,
        )
        .unwrap();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ClaimRejected {
            by: Color::White,
            ..
        }
    )));
}

#[test]
fn incorrect_claim_2001_costs_the_claimant_and_the_intended_move_must_be_made() {
    let mut g = standard("600");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "Nf3 Nf6", 1_000);
    let intended = mv(&g, "Ng1");
    let before = remaining(&g, Color::White, t);
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition {
                    intended: Some(intended),
                },
            },
            t,
        )
        .unwrap();
    // More than two minutes: half of it, at most three minutes, is taken.
    let after = (before - (before / 2).min(3 * MIN)).max(0);
    assert!(events.iter().any(|e| matches!(e, Event::ClaimRejected { by: Color::White, opponent_bonus_ms: 180_000, claimant_remaining_ms: Some(r), must_play: Some(s), .. } if *r == after && s == "Ng1")));
    assert_eq!(remaining(&g, Color::White, t), after);
    assert_eq!(remaining(&g, Color::Black, t), 599_000 + 3 * MIN);
    assert!(!g.is_over());
    assert_eq!(
        g.clock().unwrap().running(),
        Some(Color::White),
        "the claimant's clock goes on"
    );
    // The intended move must be made.
    let other = mv(&g, "e4");
    assert!(
        matches!(g.apply(Input::Move(other), t + 1), Err(RulesError::MustPlayIntendedMove(s)) if s == "Ng1")
    );
    g.apply(Input::Move(intended), t + 2).unwrap();
    // The claim stood as a draw offer (9.1 c) until Black moves or answers.
    assert_eq!(g.draw_offer(), Some(Color::White));
}

#[test]
fn incorrect_claim_time_bands_2001() {
    assert_eq!(incorrect_claim_reduction(10 * MIN), 10 * MIN - 3 * MIN);
    assert_eq!(incorrect_claim_reduction(4 * MIN), 2 * MIN);
    assert_eq!(incorrect_claim_reduction(2 * MIN + 2), MIN + 1);
    assert_eq!(incorrect_claim_reduction(90_000), MIN);
    assert_eq!(incorrect_claim_reduction(2 * MIN), MIN);
    assert_eq!(incorrect_claim_reduction(45_000), 45_000);
    assert_eq!(incorrect_claim_reduction(MIN), MIN);

    // Through the game: 90 s left becomes one minute; 45 s stays.
    for (left, expected) in [(90_000, MIN), (45_000, 45_000)] {
        let mut g = standard("600");
        g.apply(Input::Start, 0).unwrap();
        g.apply(
            Input::SetClock {
                side: Color::White,
                remaining_ms: left,
            },
            0,
        )
        .unwrap();
        g.apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::FiftyMoves { intended: None },
            },
            0,
        )
        .unwrap();
        assert_eq!(remaining(&g, Color::White, 0), expected);
        assert_eq!(remaining(&g, Color::Black, 0), 600_000 + 3 * MIN);
    }
}

#[test]
fn incorrect_claim_2009_leaves_the_claimant_time() {
    let mut g = Game::new(config("600", Edition::Fide2009, PlayMode::Standard));
    g.apply(Input::Start, 0).unwrap();
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition { intended: None },
            },
            10_000,
        )
        .unwrap();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ClaimRejected {
            claimant_remaining_ms: None,
            ..
        }
    )));
    assert_eq!(remaining(&g, Color::White, 10_000), 590_000);
    assert_eq!(remaining(&g, Color::Black, 10_000), 600_000 + 3 * MIN);
}

#[test]
fn a_claim_with_an_illegal_intended_move_is_incorrect() {
    let mut g = from_fen(
        config("600", Edition::Fide2001, PlayMode::Standard),
        "8/8/8/8/2P5/8/2k5/K7 w - - 99 80",
    );
    g.apply(Input::Start, 0).unwrap();
    // Kb1 is illegal (next to the black king).
    let illegal = Move::Normal {
        role: shakmaty::Role::King,
        from: Square::A1,
        capture: None,
        to: Square::B1,
        promotion: None,
    };
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::FiftyMoves {
                    intended: Some(illegal),
                },
            },
            0,
        )
        .unwrap();
    assert!(events.iter().any(|e| matches!(
        e,
        Event::ClaimRejected {
            must_play: None,
            ..
        }
    )));
    assert_eq!(g.must_play(), None);
    assert!(!g.is_over());
}

#[test]
fn fifty_move_claims_both_forms() {
    // rules-cases F04 / F05.
    let cfg = config("600", Edition::Fide2001, PlayMode::Standard);
    let mut g = from_fen(cfg.clone(), "8/8/8/4b3/3n2K1/4k1N1/8/8 b - - 99 112");
    assert!(g.claim_is_correct(DrawClaim::FiftyMoves {
        intended: Some(mv(&g, "Kf2"))
    }));
    assert!(!g.claim_is_correct(DrawClaim::FiftyMoves {
        intended: Some(mv(&g, "Bxg3"))
    }));
    let events = g
        .apply(
            Input::Claim {
                by: Color::Black,
                claim: DrawClaim::FiftyMoves {
                    intended: Some(mv(&g, "Kf2")),
                },
            },
            0,
        )
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::Claim(Article::A9_3a))
    );

    let mut g = from_fen(cfg, "8/8/8/4b3/3n2K1/4k1N1/8/8 b - - 99 112");
    play(&mut g, "Kf2", 0);
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::FiftyMoves { intended: None },
            },
            5_000,
        )
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| e.reason),
        Some(EndReason::Claim(Article::A9_3b))
    );
}

#[test]
fn available_claims_lists_each_intended_move() {
    let mut g = standard("300");
    play(&mut g, REPEAT, 0);
    let claims = g.available_claims();
    assert_eq!(
        claims,
        vec![DrawClaim::Repetition {
            intended: Some(mv(&g, "Ng8"))
        }]
    );
}

// --- illegal moves ----------------------------------------------------------------------------

#[test]
fn illegal_moves_cost_two_minutes_twice_and_the_third_loses_2001() {
    let mut g = standard("600");
    g.apply(Input::Start, 0).unwrap();
    for count in 1..=2u8 {
        let events = g
            .apply(Input::IllegalMove { by: Color::White }, 1_000)
            .unwrap();
        assert_eq!(
            events,
            vec![Event::IllegalMovePenalty {
                offender: Color::White,
                count,
                bonus_ms: 2 * MIN
            }]
        );
    }
    assert_eq!(remaining(&g, Color::Black, 1_000), 600_000 + 4 * MIN);
    assert_eq!(g.ply(), 0, "the position before the irregularity stands");
    let events = g
        .apply(Input::IllegalMove { by: Color::White }, 2_000)
        .unwrap();
    let end = ended(&events).unwrap();
    assert_eq!(
        (end.reason, end.outcome),
        (
            EndReason::IllegalMoves {
                offender: Color::White
            },
            KnownOutcome::Decisive {
                winner: Color::Black
            }
        )
    );
}

#[test]
fn third_illegal_move_2001_loses_even_when_the_opponent_cannot_mate() {
    let mut g = from_fen(
        config("600", Edition::Fide2001, PlayMode::Standard),
        "8/8/8/4k3/8/8/3K4/7Q w - - 0 1",
    );
    for _ in 0..3 {
        g.apply(Input::IllegalMove { by: Color::White }, 0).unwrap();
    }
    assert_eq!(
        g.end().unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
}

#[test]
fn third_illegal_move_2009_is_drawn_when_the_opponent_cannot_mate() {
    let mut g = from_fen(
        config("600", Edition::Fide2009, PlayMode::Standard),
        "8/8/8/4k3/8/8/3K4/7Q w - - 0 1",
    );
    for _ in 0..3 {
        g.apply(Input::IllegalMove { by: Color::White }, 0).unwrap();
    }
    assert_eq!(g.end().unwrap().outcome, KnownOutcome::Draw);
    // ...and lost when the opponent can mate.
    let mut g = Game::new(config("600", Edition::Fide2009, PlayMode::Standard));
    let mut events = Vec::new();
    for _ in 0..3 {
        events.extend(g.apply(Input::IllegalMove { by: Color::Black }, 0).unwrap());
    }
    events.extend(g.resolve_analyses(0));
    assert_eq!(
        ended(&events).unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::White
        }
    );
}

#[test]
fn blitz_illegal_move_can_be_claimed_until_the_opponent_touches() {
    let mut g = Game::new(config("300", Edition::Fide2001, PlayMode::Blitz));
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
    assert_eq!(
        remaining(&g, Color::Black, 1_000),
        300_000,
        "no extra time in blitz"
    );
    let mut events = g
        .apply(Input::ClaimIllegalMove { by: Color::Black }, 2_000)
        .unwrap();
    events.extend(g.resolve_analyses(2_000));
    assert_eq!(
        ended(&events).unwrap().outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );

    let mut g = Game::new(config("300", Edition::Fide2001, PlayMode::Blitz));
    g.apply(Input::IllegalMove { by: Color::White }, 1_000)
        .unwrap();
    g.apply(
        Input::Touch {
            by: Color::Black,
            square: Square::E7,
        },
        1_500,
    )
    .unwrap();
    assert_eq!(
        g.apply(Input::ClaimIllegalMove { by: Color::Black }, 2_000),
        Err(RulesError::NothingToClaim { by: Color::Black })
    );
}

// --- quickplay finish (10.2) ------------------------------------------------------------------

#[test]
fn quickplay_claim_rulings() {
    let mut g = standard("600");
    g.apply(Input::Start, 0).unwrap();
    assert!(matches!(
        g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 0),
        Err(RulesError::QuickplayNotApplicable(_))
    ));
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 90_000,
        },
        0,
    )
    .unwrap();
    let events = g
        .apply(Input::ClaimQuickplayDraw { by: Color::White }, 0)
        .unwrap();
    // 9.1 c: the claim also counts as a draw offer.
    assert_eq!(
        events,
        vec![
            Event::QuickplayClaimed { by: Color::White },
            Event::DrawOffered { by: Color::White }
        ]
    );
    assert_eq!(
        g.clock().unwrap().running(),
        None,
        "the claimant stops the clocks"
    );
    g.apply(
        Input::QuickplayRuling(QuickplayRuling::Postpone {
            extra_time_to_opponent: true,
        }),
        5_000,
    )
    .unwrap();
    assert_eq!(remaining(&g, Color::Black, 5_000), 600_000 + 2 * MIN);
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    // Postponed (2001): the arbiter declares the final result after a flag has fallen; a draw
    // ruling before that is refused (the 2009 form is a_10_2_b_2009_...).
    assert_eq!(
        g.apply(Input::QuickplayRuling(QuickplayRuling::Draw), 50_000),
        Err(RulesError::QuickplayResultOnlyAfterAFlag)
    );

    let mut g = standard("600");
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
    g.apply(Input::QuickplayRuling(QuickplayRuling::Reject), 0)
        .unwrap();
    assert_eq!(remaining(&g, Color::Black, 0), 600_000 + 2 * MIN);
    assert_eq!(
        g.apply(Input::QuickplayRuling(QuickplayRuling::Draw), 0),
        Err(RulesError::NoQuickplayClaim)
    );
}

#[test]
fn quickplay_does_not_apply_in_blitz_or_before_the_last_period() {
    let mut g = Game::new(config("180", Edition::Fide2001, PlayMode::Blitz));
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 60_000,
        },
        0,
    )
    .unwrap();
    assert!(matches!(
        g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 0),
        Err(RulesError::QuickplayNotApplicable(_))
    ));

    let mut g = standard("40/600:300");
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: 60_000,
        },
        0,
    )
    .unwrap();
    assert!(matches!(
        g.apply(Input::ClaimQuickplayDraw { by: Color::White }, 0),
        Err(RulesError::QuickplayNotApplicable(_))
    ));
}

// --- dead positions ---------------------------------------------------------------------------

#[test]
fn a_move_into_bare_kings_ends_the_game_at_once() {
    let mut g = from_fen(RulesConfig::default(), "8/8/8/4k3/8/8/3Kq3/8 w - - 0 1");
    let events = g.apply(Input::Move(mv(&g, "Kxe2")), 0).unwrap();
    assert_eq!(
        ended(&events).map(|e| (e.reason, e.outcome)),
        Some((EndReason::DeadPosition, KnownOutcome::Draw))
    );
}

#[test]
fn a_locked_wall_reached_by_a_move_is_dead_after_the_search() {
    // A bishop move inside rules-cases D01's locked wall (bishops on squares of the other colour
    // than the pawns they could attack).
    let mut g = from_fen(
        RulesConfig::default(),
        "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1",
    );
    let mut events = g.apply(Input::Move(mv(&g, "Bd2")), 0).unwrap();
    events.extend(g.resolve_analyses(0));
    let end = ended(&events);
    // The cheap test may already prove it; either way the game ends drawn by dead position.
    assert_eq!(
        end.map(|e| (e.reason, e.outcome, e.ply)),
        Some((EndReason::DeadPosition, KnownOutcome::Draw, 1))
    );
}

#[test]
fn an_undecided_or_stale_dead_check_never_ends_the_game() {
    let mut g = Game::new(RulesConfig::default());
    let events = g.apply(Input::Move(mv(&g, "e4")), 0).unwrap();
    let tickets: Vec<u64> = events
        .iter()
        .filter_map(|e| {
            if let Event::AnalysisNeeded { ticket, .. } = e {
                Some(*ticket)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(tickets.len(), 2);
    g.apply(
        Input::Verdict {
            ticket: tickets[0],
            mateability: Mateability::Undecided,
        },
        1,
    )
    .unwrap();
    // A "cannot mate" about a position that is gone changes nothing.
    play(&mut g, "e5", 2);
    g.apply(
        Input::Verdict {
            ticket: tickets[1],
            mateability: Mateability::CannotMate,
        },
        3,
    )
    .ok();
    assert!(!g.is_over());
    assert_eq!(
        g.apply(
            Input::Verdict {
                ticket: 999,
                mateability: Mateability::CannotMate
            },
            3
        ),
        Err(RulesError::UnknownTicket(999))
    );
}

// --- replay -----------------------------------------------------------------------------------

#[test]
fn replaying_the_same_inputs_gives_the_same_game() {
    let inputs = |g: &Game| -> Vec<(Input, Millis)> {
        let _ = g;
        vec![
            (Input::Start, 0),
            (Input::OfferDraw { by: Color::White }, 500),
            (Input::IllegalMove { by: Color::Black }, 700),
        ]
    };
    let mut a = standard("300+5");
    let mut b = standard("300+5");
    for (input, t) in inputs(&a) {
        a.apply(input.clone(), t).unwrap();
        b.apply(input, t).unwrap();
    }
    let t = play(&mut a, "d4 d5 c4 e6", 1_000);
    play(&mut b, "d4 d5 c4 e6", 1_000);
    assert_eq!(a.to_pgn(&[]), b.to_pgn(&[]));
    assert_eq!(
        remaining(&a, Color::White, t),
        remaining(&b, Color::White, t)
    );
    assert_eq!(a.scoresheet(Color::White), b.scoresheet(Color::White));
}

// --- review follow-ups: orderings, postponements, counters, attribution -----------------------

fn tickets(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| {
            if let Event::AnalysisNeeded { ticket, .. } = e {
                Some(*ticket)
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn a_dead_position_ends_the_game_before_a_later_flag_verdict() {
    let mut g = standard("60");
    g.apply(Input::Start, 0).unwrap();
    let dead_checks = tickets(&g.apply(Input::Move(mv(&g, "e4")), 1_000).unwrap());
    assert_eq!(dead_checks.len(), 2);
    // Black's flag falls while the dead-position searches are still running.
    let flag = tickets(&g.apply(Input::Tick, 61_000).unwrap());
    assert_eq!(flag.len(), 1);
    // (Pretend) the searches prove the position after 1.e4 dead: it ended the game at once.
    for t in dead_checks {
        g.apply(
            Input::Verdict {
                ticket: t,
                mateability: Mateability::CannotMate,
            },
            61_500,
        )
        .unwrap();
    }
    assert_eq!(g.end().unwrap().reason, EndReason::DeadPosition);
    // The flag's verdict arrives late and changes nothing.
    let events = g
        .apply(
            Input::Verdict {
                ticket: flag[0],
                mateability: Mateability::CanMate,
            },
            62_000,
        )
        .unwrap();
    assert!(events.is_empty());
    assert_eq!(g.end().unwrap().outcome, KnownOutcome::Draw);
}

#[test]
fn stale_and_repeated_verdicts_are_harmless_and_unknown_tickets_are_errors() {
    let mut g = Game::new(RulesConfig::default());
    let first = tickets(&g.apply(Input::Move(mv(&g, "e4")), 0).unwrap());
    play(&mut g, "e5", 1);
    // An answer about the position after 1.e4, which is gone.
    assert_eq!(
        g.apply(
            Input::Verdict {
                ticket: first[0],
                mateability: Mateability::CannotMate
            },
            2
        ),
        Ok(vec![])
    );
    assert_eq!(
        g.apply(
            Input::Verdict {
                ticket: first[1],
                mateability: Mateability::CannotMate
            },
            2
        ),
        Ok(vec![])
    );
    assert!(!g.is_over());
    assert_eq!(
        g.apply(
            Input::Verdict {
                ticket: 999,
                mateability: Mateability::CannotMate
            },
            3
        ),
        Err(RulesError::UnknownTicket(999))
    );
}

#[test]
fn a_postponed_quickplay_claim_survives_moves_and_the_arbiter_rules_after_the_flag() {
    let mut g = standard("600");
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
    // Nothing can be played while the claim awaits the ruling.
    assert_eq!(
        g.apply(Input::Move(mv(&g, "e4")), 1_000),
        Err(RulesError::AwaitingQuickplayRuling)
    );
    g.apply(
        Input::QuickplayRuling(QuickplayRuling::Postpone {
            extra_time_to_opponent: false,
        }),
        1_000,
    )
    .unwrap();
    let t = play(&mut g, "e4 e5 Nf3 Nc6", 2_000);
    // White's flag falls: the arbiter declares the result (10.2 b), nothing automatic.
    let events = g.apply(Input::Tick, t + 200_000).unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ArbiterMustRule { .. }))
    );
    assert!(g.end().is_none());
    g.apply(
        Input::ArbiterResult {
            outcome: KnownOutcome::Draw,
        },
        t + 300_000,
    )
    .unwrap();
    assert_eq!(g.end().unwrap().outcome, KnownOutcome::Draw);
}

#[test]
fn moves_made_before_the_clock_started_are_counted() {
    let mut g = standard("2/60:30");
    play(&mut g, "Nf3 Nf6 Ng1 Ng8", 1_000);
    let clock = g.clock().unwrap();
    assert_eq!(clock.moves_completed(Color::White), 2);
    assert_eq!(clock.moves_completed(Color::Black), 2);
    assert_eq!(clock.period_index(Color::White), 1);
    assert_eq!(clock.period_index(Color::Black), 1);
}

#[test]
fn a_mate_on_the_control_move_earns_no_new_period() {
    // Black's control is his second move; mating with it earns no new period.
    let mut g = standard("2/60:3600");
    g.apply(Input::Start, 0).unwrap();
    play(&mut g, "f3 e5 g4", 1_000);
    g.apply(Input::Move(mv(&g, "Qh4#")), 10_000).unwrap();
    // Black's second move mates: it needs no press (6.7 a), so it earns nothing. Black thought
    // 1 s for 1...e5 and 7 s for 2...Qh4#.
    let record = g.moves().last().unwrap();
    assert_eq!(record.clocks_after.unwrap().black, 60_000 - 1_000 - 7_000);
    assert_eq!(g.clock().unwrap().period_index(Color::Black), 0);
}

#[test]
fn a_second_claim_does_not_lift_the_duty_to_play_the_intended_move() {
    let mut g = standard("600");
    g.apply(Input::Start, 0).unwrap();
    let intended = mv(&g, "Nf3");
    g.apply(
        Input::Claim {
            by: Color::White,
            claim: DrawClaim::Repetition {
                intended: Some(intended),
            },
        },
        1_000,
    )
    .unwrap();
    g.apply(
        Input::Claim {
            by: Color::White,
            claim: DrawClaim::FiftyMoves { intended: None },
        },
        2_000,
    )
    .unwrap();
    assert_eq!(g.must_play(), Some(intended));
    assert!(matches!(
        g.apply(Input::Move(mv(&g, "e4")), 3_000),
        Err(RulesError::MustPlayIntendedMove(_))
    ));
}

#[test]
fn the_offer_made_by_an_incorrect_claim_can_be_accepted() {
    let mut g = standard("600");
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::Claim {
            by: Color::White,
            claim: DrawClaim::Repetition { intended: None },
        },
        1_000,
    )
    .unwrap();
    let events = g
        .apply(Input::AcceptDraw { by: Color::Black }, 2_000)
        .unwrap();
    assert_eq!(ended(&events).map(|e| e.reason), Some(EndReason::Agreement));
}

#[test]
fn an_incorrect_claim_before_the_start_leaves_the_clocks_standing() {
    let mut g = standard("600");
    g.apply(
        Input::Claim {
            by: Color::White,
            claim: DrawClaim::Repetition { intended: None },
        },
        1_000,
    )
    .unwrap();
    assert_eq!(g.clock().unwrap().running(), None);
    assert_eq!(remaining(&g, Color::Black, 1_000), 600_000 + 3 * MIN);
}

#[test]
fn a_claim_after_the_flag_fell_comes_too_late() {
    let mut g = standard("60");
    g.apply(Input::Start, 0).unwrap();
    let events = g
        .apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition { intended: None },
            },
            70_000,
        )
        .unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::ClaimRejected { .. } | Event::ClaimUpheld { .. }))
    );
}

#[test]
fn appendix_c_an_illegal_move_stands_once_set_up_and_lapses_with_the_opponents_move() {
    let mut g = Game::new(config("300", Edition::Fide2001, PlayMode::Blitz));
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 5_000)
        .unwrap();
    // The rules still have White to move (they hold legal moves only): his clock runs on, so
    // that Black is not charged for White's thinking.
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    // Black does not claim: the arbiter sets up the position the illegal move produced (a white
    // pawn jumped e2-e5). Black's clock starts there.
    let standing: Chess = "rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    g.apply(Input::SetPosition { position: standing }, 6_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    assert_eq!(remaining(&g, Color::White, 6_000), 300_000 - 6_000);
    assert_eq!(remaining(&g, Color::Black, 6_000), 300_000);
    // The opponent moves instead of claiming: the illegal move stands, the right is gone.
    play(&mut g, "d6", 7_000);
    assert_eq!(
        g.apply(Input::ClaimIllegalMove { by: Color::Black }, 8_000),
        Err(RulesError::NothingToClaim { by: Color::Black })
    );
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
}

#[test]
fn blitz_illegal_move_claim_is_a_draw_when_the_claimant_cannot_mate() {
    // Black has a bare king; White plays an illegal move and Black claims: he cannot mate.
    let mut g = from_fen(
        config("300", Edition::Fide2001, PlayMode::Blitz),
        "8/8/8/4k3/8/8/3K4/7Q w - - 0 1",
    );
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::IllegalMove { by: Color::White }, 1_000)
        .unwrap();
    let events = g
        .apply(Input::ClaimIllegalMove { by: Color::Black }, 2_000)
        .unwrap();
    assert_eq!(
        ended(&events).map(|e| (e.reason, e.outcome)),
        Some((
            EndReason::IllegalMoveClaimed {
                offender: Color::White
            },
            KnownOutcome::Draw
        ))
    );
}

#[test]
fn the_arbiter_sets_up_the_position_that_stands() {
    let mut g = Game::new(config("300", Edition::Fide2001, PlayMode::Blitz));
    g.apply(Input::Start, 0).unwrap();
    play(&mut g, "e4 e5", 1_000);
    let standing: Chess = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR b kq - 1 2"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let events = g
        .apply(
            Input::SetPosition {
                position: standing.clone(),
            },
            5_000,
        )
        .unwrap();
    assert_eq!(events, vec![Event::PositionSet { ply: 2 }]);
    assert_eq!(g.position(), &standing);
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    play(&mut g, "Nf6", 6_000);
    // The PGN holds the game up to the set-up position.
    assert!(!g.to_pgn(&[]).contains("Nf6"));
}

#[test]
fn rapid_flag_claim_before_the_start_does_not_start_the_clock() {
    let mut g = Game::new(config("600", Edition::Fide2001, PlayMode::Rapid));
    g.apply(Input::ClaimFlag { by: Color::Black }, 1_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), None);
}

#[test]
fn a_counter_offer_is_refused_with_advice() {
    let mut g = standard("300");
    g.apply(Input::OfferDraw { by: Color::White }, 0).unwrap();
    assert_eq!(
        g.apply(Input::OfferDraw { by: Color::Black }, 1),
        Err(RulesError::CounterOffer(Color::Black))
    );
}

#[test]
fn offers_are_written_next_to_the_offerers_own_move() {
    let mut g = standard("300");
    g.apply(Input::Start, 0).unwrap();
    // White offers before his first move: the mark goes with 1.e4.
    g.apply(Input::OfferDraw { by: Color::White }, 0).unwrap();
    play(&mut g, "e4", 1_000);
    // Black declined by moving; after 1...e5 Black offers (after his move, before the press).
    play(&mut g, "e5", 2_000);
    g.apply(Input::OfferDraw { by: Color::Black }, 2_500)
        .unwrap();
    // Black's offer lapses when White moves; White then offers after his move 2.Nf3.
    play(&mut g, "Nf3", 3_000);
    g.apply(Input::OfferDraw { by: Color::White }, 3_500)
        .unwrap();
    let marks: Vec<(usize, Color)> = g.offers().iter().map(|o| (o.on_ply, o.by)).collect();
    assert_eq!(
        marks,
        [(1, Color::White), (2, Color::Black), (3, Color::White)]
    );
    let sheet = g.scoresheet(Color::White);
    assert_eq!(sheet.entries[0].draw_offer, Some(Color::White));
    assert_eq!(sheet.entries[1].draw_offer, Some(Color::Black));
    assert_eq!(sheet.entries[2].draw_offer, Some(Color::White));
    let pgn = g.to_pgn(&[]);
    assert!(
        pgn.contains("1. e4 { [%clk 0:04:59] (=) } 1... e5 { [%clk 0:04:59] (=) }"),
        "{pgn}"
    );
}

#[test]
fn fen_start_with_black_to_move() {
    let mut g = from_fen(
        config("300", Edition::Fide2001, PlayMode::Standard),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    );
    g.apply(Input::Start, 0).unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    play(&mut g, "e5 Nf3", 1_000);
    assert_eq!(g.moves()[0].side, Color::Black);
    let pgn = g.to_pgn(&[]);
    assert!(
        pgn.contains("[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("1... e5"), "{pgn}");
    assert!(pgn.contains("2. Nf3"), "{pgn}");
}

#[test]
fn time_going_backwards_never_runs_the_record_backwards() {
    let mut g = standard("300");
    g.apply(Input::Start, 10_000).unwrap();
    play(&mut g, "e4", 20_000);
    g.apply(Input::Move(mv(&g, "e5")), 15_000).unwrap();
    assert_eq!(g.moves()[1].at, 20_000);
    assert!(remaining(&g, Color::Black, 20_000) <= 300_000);
}

// --- clock modes through the game, both editions ---------------------------------------------

#[test]
fn increment_across_a_period_change() {
    let mut g = standard("2/60+5:30+5");
    g.apply(Input::Start, 0).unwrap();
    play(&mut g, "Nf3 Nf6 Ng1", 1_000);
    // White: 60 - 1 + 5 (move 1) - 1 + 5 (move 2) + 30 (period 2).
    assert_eq!(
        g.moves()[2].clocks_after.unwrap().white,
        60_000 - 1_000 + 5_000 - 1_000 + 5_000 + 30_000
    );
}

#[test]
fn delay_mode_flag_only_after_delay_and_main_time() {
    let mut g = standard("10d5");
    g.apply(Input::Start, 0).unwrap();
    assert!(g.apply(Input::Tick, 14_999).unwrap().is_empty());
    let events = g.apply(Input::Tick, 15_000).unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
}

#[test]
fn delay_survives_a_pause() {
    let mut g = standard("60d5");
    g.apply(Input::Start, 0).unwrap();
    g.apply(Input::Pause(PauseReason::Arbiter), 3_000).unwrap();
    g.apply(Input::Resume(PauseReason::Arbiter), 50_000)
        .unwrap();
    // 3 s of delay used before the pause, 1 s after: still within the delay.
    g.apply(Input::Move(mv(&g, "e4")), 51_000).unwrap();
    assert_eq!(remaining(&g, Color::White, 51_000), 60_000);
    // 4 s more: 2 s of delay left, then 2 s of main time.
    assert_eq!(g.clock().unwrap().used(Color::White, 51_000), 4_000);
}

#[test]
fn a_flag_that_fell_before_a_pause_still_counts() {
    let mut g = standard("60");
    g.apply(Input::Start, 0).unwrap();
    let events = g.apply(Input::Pause(PauseReason::Arbiter), 61_000).unwrap();
    assert!(events.contains(&Event::FlagFell { side: Color::White }));
}

#[test]
fn editions_share_the_flag_and_penalty_rules() {
    for edition in [Edition::Fide2001, Edition::Fide2009] {
        for play_mode in [PlayMode::Standard, PlayMode::Rapid] {
            let mut g = Game::new(config("600", edition, play_mode));
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
                }],
                "{edition:?} {play_mode:?}"
            );
            assert_eq!(remaining(&g, Color::Black, 1_000), 600_000 + 2 * MIN);
        }
        // Standard flag: loss when the opponent can mate, in both editions.
        let mut g = Game::new(config("60", edition, PlayMode::Standard));
        g.apply(Input::Start, 0).unwrap();
        let mut events = g.apply(Input::Tick, 60_000).unwrap();
        events.extend(g.resolve_analyses(60_000));
        assert_eq!(
            ended(&events).unwrap().outcome,
            KnownOutcome::Decisive {
                winner: Color::Black
            },
            "{edition:?}"
        );
        // Incorrect 9.2 a claim with an intended move in 2009: no deduction, move still required.
        let mut g = Game::new(config("600", edition, PlayMode::Standard));
        g.apply(Input::Start, 0).unwrap();
        let nf3 = mv(&g, "Nf3");
        g.apply(
            Input::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition {
                    intended: Some(nf3),
                },
            },
            10_000,
        )
        .unwrap();
        let expected = match edition {
            Edition::Fide2001 => 590_000 - 180_000,
            Edition::Fide2009 => 590_000,
        };
        assert_eq!(remaining(&g, Color::White, 10_000), expected, "{edition:?}");
        assert_eq!(g.must_play(), Some(nf3));
    }
}

#[test]
fn retracting_to_an_agreed_move_rebuilds_the_position_and_history() {
    let mut g = standard("300+2");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6", 1_000);
    g.apply(Input::OfferDraw { by: Color::Black }, t).unwrap();
    let proposed = g.clocks_after_ply(2).unwrap();
    let events = g.apply(Input::Retract { to_ply: 2 }, t + 1_000).unwrap();
    assert_eq!(events, vec![Event::Retracted { ply: 2 }]);
    assert_eq!(g.ply(), 2);
    assert_eq!(g.position(), &{
        let mut p = Chess::default();
        for s in ["Nf3", "Nf6"] {
            let m = s.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
        }
        p
    });
    // The repetition count restarts from the retraced record.
    assert_eq!(g.repetitions(), 1);
    assert_eq!(
        g.offers().len(),
        0,
        "the offer belonged to a move that left the record"
    );
    assert!(
        g.clock().unwrap().is_paused(),
        "clocks are held until the arbiter sets them"
    );
    assert_eq!(g.clock().unwrap().moves_completed(Color::White), 1);
    // The arbiter confirms the proposed times and play goes on.
    g.apply(
        Input::SetClock {
            side: Color::White,
            remaining_ms: proposed.white,
        },
        t + 2_000,
    )
    .unwrap();
    g.apply(
        Input::SetClock {
            side: Color::Black,
            remaining_ms: proposed.black,
        },
        t + 2_000,
    )
    .unwrap();
    g.apply(Input::Resume(PauseReason::Arbiter), t + 2_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    assert!(matches!(
        g.apply(Input::Retract { to_ply: 5 }, t + 3_000),
        Err(RulesError::NothingToRetract { .. })
    ));
}

#[test]
fn after_a_retrace_the_clock_of_the_player_to_move_runs() {
    let mut g = standard("300+0");
    g.apply(Input::Start, 0).unwrap();
    // Six half-moves: White's clock runs when the scoresheets are found to differ after three.
    let t = play(&mut g, "e4 e5 Nf3 Nc6 Bb5 a6", 1_000);
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    g.apply(Input::Retract { to_ply: 3 }, t).unwrap();
    assert_eq!(g.to_move(), Color::Black);
    assert_eq!(g.clock().unwrap().paused_side(), Some(Color::Black));
    let white = remaining(&g, Color::White, t);
    g.apply(Input::Resume(PauseReason::Arbiter), t + 10_000)
        .unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    // Nobody's time ran while the clocks were held, and White's does not run now.
    assert_eq!(remaining(&g, Color::White, t + 20_000), white);
}

// --- adjournment -------------------------------------------------------------------------------

/// White has played 1. e4 e5 2. Nf3 and Black seals at 10 s: the clocks stand.
fn adjourned_by_black() -> Game {
    let mut g = standard("5400+0");
    g.apply(Input::Start, 0).unwrap();
    play(&mut g, "e4 e5 Nf3", 1000);
    // Black thinks from 3 s to 10 s, then seals.
    let events = g
        .apply(
            Input::Seal {
                by: Color::Black,
                text: "Nc6".into(),
                notation: None,
            },
            10_000,
        )
        .unwrap();
    assert_eq!(
        events,
        vec![Event::Adjourned {
            by: Color::Black,
            move_number: 2
        }]
    );
    g
}

#[test]
fn sealing_stops_the_clock_without_starting_the_opponents() {
    let g = adjourned_by_black();
    let clock = g.clock().unwrap();
    assert_eq!(clock.running(), None);
    assert!(!clock.is_paused());
    // Black's seven seconds are charged; hours later nothing more is.
    assert_eq!(remaining(&g, Color::Black, 10_000), 5_400_000 - 1000 - 7000);
    assert_eq!(
        remaining(&g, Color::Black, 3_600_000),
        remaining(&g, Color::Black, 10_000)
    );
    let a = g.adjournment().unwrap();
    assert_eq!((a.by, a.ply, a.move_number), (Color::Black, 3, 2));
    assert_eq!(a.sealed, "Nc6");
    // The position before the sealed move stands.
    assert_eq!(g.ply(), 3);
    assert_eq!(g.to_move(), Color::Black);
}

#[test]
fn only_the_player_having_the_move_seals_and_only_once() {
    let mut g = standard("5400+0");
    g.apply(Input::Start, 0).unwrap();
    let e = g
        .apply(
            Input::Seal {
                by: Color::Black,
                text: "e5".into(),
                notation: None,
            },
            1000,
        )
        .unwrap_err();
    assert!(matches!(e, RulesError::NotYourMove { .. }), "{e}");
    let mut g = adjourned_by_black();
    let e = g
        .apply(
            Input::Seal {
                by: Color::Black,
                text: "Nf6".into(),
                notation: None,
            },
            11_000,
        )
        .unwrap_err();
    assert_eq!(e, RulesError::Adjourned);
    assert_eq!(g.adjournment().unwrap().sealed, "Nc6");
}

#[test]
fn an_adjourned_game_takes_offers_resignation_and_clock_settings_only() {
    let mut g = adjourned_by_black();
    let m = mv(&g, "Nc6");
    for input in [
        Input::Move(m),
        Input::Pause(PauseReason::Arbiter),
        Input::Resume(PauseReason::Arbiter),
        Input::Start,
        Input::ClaimFlag { by: Color::White },
        Input::Claim {
            by: Color::Black,
            claim: DrawClaim::Repetition { intended: None },
        },
        Input::Retract { to_ply: 1 },
    ] {
        assert_eq!(
            g.apply(input.clone(), 20_000),
            Err(RulesError::Adjourned),
            "{input:?}"
        );
    }
    // A draw offer after the seal stands until answered (the adjournment articles).
    g.apply(Input::OfferDraw { by: Color::White }, 20_000)
        .unwrap();
    assert_eq!(g.draw_offer(), Some(Color::White));
    g.apply(
        Input::SetResumption {
            text: "2026-12-01 10:00, hall B".into(),
        },
        21_000,
    )
    .unwrap();
    assert_eq!(
        g.adjournment().unwrap().resumption.as_deref(),
        Some("2026-12-01 10:00, hall B")
    );
    g.apply(
        Input::AdjustClock {
            side: Color::Black,
            delta_ms: -MIN,
        },
        22_000,
    )
    .unwrap();
    assert!(g.adjournment().is_some());
    // The opponent accepts at resumption: the game ends, the adjournment with it.
    let events = g
        .apply(Input::AcceptDraw { by: Color::Black }, 30_000)
        .unwrap();
    assert_eq!(ended(&events).unwrap().reason, EndReason::Agreement);
    assert!(g.adjournment().is_none());
    // Without an adjournment, the resumption inputs are refused.
    let mut g = standard("5400+0");
    for input in [
        Input::OpenEnvelope,
        Input::StartReplierClock,
        Input::SetResumption { text: "x".into() },
    ] {
        assert_eq!(
            g.apply(input.clone(), 0),
            Err(RulesError::NotAdjourned),
            "{input:?}"
        );
    }
}

#[test]
fn opening_the_envelope_makes_the_sealed_move_and_starts_the_repliers_clock() {
    let mut g = adjourned_by_black();
    let black_before = remaining(&g, Color::Black, 10_000);
    let white_before = remaining(&g, Color::White, 10_000);
    // The next day, on the game's time line much later.
    let t = 90_000_000;
    let events = g.apply(Input::OpenEnvelope, t).unwrap();
    assert_eq!(events[0], Event::EnvelopeOpened { by: Color::Black });
    assert!(events.iter().any(|e| matches!(
        e,
        Event::MovePlayed { ply: 4, side: Color::Black, san } if san == "Nc6"
    )));
    assert!(g.adjournment().is_none());
    assert_eq!(g.ply(), 4);
    let clock = g.clock().unwrap();
    assert_eq!(clock.running(), Some(Color::White));
    assert_eq!(clock.moves_completed(Color::Black), 2);
    // The night cost nobody anything; the replier's clock runs from the opening.
    assert_eq!(remaining(&g, Color::Black, t), black_before);
    assert_eq!(remaining(&g, Color::White, t + 5000), white_before - 5000);
}

#[test]
fn an_absent_repliers_clock_runs_until_he_comes() {
    let mut g = adjourned_by_black();
    let white_before = remaining(&g, Color::White, 10_000);
    let black_before = remaining(&g, Color::Black, 10_000);
    let t = 90_000_000;
    let events = g.apply(Input::StartReplierClock, t).unwrap();
    assert_eq!(events, vec![Event::ClockStarted { side: Color::White }]);
    assert_eq!(
        g.apply(Input::StartReplierClock, t + 1),
        Err(RulesError::ReplierClockRunning)
    );
    // The position before the sealed move still stands; he arrives 20 minutes late.
    assert_eq!(g.ply(), 3);
    let arrival = t + 20 * 60_000;
    g.apply(Input::OpenEnvelope, arrival).unwrap();
    assert_eq!(g.ply(), 4);
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    assert_eq!(
        remaining(&g, Color::White, arrival),
        white_before - 20 * MIN
    );
    assert_eq!(remaining(&g, Color::Black, arrival), black_before);
}

#[test]
fn an_illegal_or_ambiguous_sealed_move_loses() {
    for sealed in ["Nd4", "Ke7", "N", "xyz", ""] {
        let mut g = standard("5400+0");
        g.apply(Input::Start, 0).unwrap();
        // Two knights can reach d2 after 1. d4 d5 2. Nf3 Nf6 3. e3 e6 4. c4 c6: Nbd2 or Nfd2.
        let t = play(&mut g, "d4 d5 Nf3 Nf6 e3 e6 c4 c6", 1000);
        let text = if sealed == "N" { "Nd2" } else { sealed };
        g.apply(
            Input::Seal {
                by: Color::White,
                text: text.into(),
                notation: None,
            },
            t,
        )
        .unwrap();
        let mut events = g.apply(Input::OpenEnvelope, t + 1000).unwrap();
        // Whether Black can still mate is searched (cheaply it cannot be told here); the
        // search says he can, as it would.
        let ticket = events
            .iter()
            .find_map(|e| match e {
                Event::AnalysisNeeded { ticket, query } if query.side == Color::Black => {
                    Some(*ticket)
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("{text}: {events:?}"));
        events.extend(
            g.apply(
                Input::Verdict {
                    ticket,
                    mateability: Mateability::CanMate,
                },
                t + 2000,
            )
            .unwrap(),
        );
        assert!(
            events.iter().any(|e| matches!(
                e,
                Event::SealedMoveInvalid { by: Color::White, text: t, .. } if t == text
            )),
            "{text}: {events:?}"
        );
        let end = ended(&events).unwrap_or_else(|| panic!("{text}: {events:?}"));
        assert_eq!(
            end.outcome,
            KnownOutcome::Decisive {
                winner: Color::Black
            },
            "{text}"
        );
        assert_eq!(
            end.reason,
            EndReason::InvalidSealedMove {
                offender: Color::White
            }
        );
        assert_eq!(end.reason.termination(), "rules infraction");
        assert_eq!(g.ply(), 8, "{text}: no move was made");
    }
}

#[test]
fn an_invalid_sealed_move_draws_when_the_opponent_cannot_mate() {
    // White: king and queen; Black: a bare king. White seals nonsense: he would lose, but
    // Black's bare king cannot mate, so it is a draw (the exception for 6.9 / 9.6).
    let mut g = from_fen(
        config("5400+0", Edition::Fide2001, PlayMode::Standard),
        "7k/8/8/8/8/8/8/KQ6 w - - 0 60",
    );
    g.apply(Input::Start, 0).unwrap();
    g.apply(
        Input::Seal {
            by: Color::White,
            text: "Qb9".into(),
            notation: None,
        },
        1000,
    )
    .unwrap();
    let events = g.apply(Input::OpenEnvelope, 2000).unwrap();
    let end = ended(&events).unwrap();
    assert_eq!(end.outcome, KnownOutcome::Draw);
    assert_eq!(
        end.reason,
        EndReason::InvalidSealedMove {
            offender: Color::White
        }
    );
}

#[test]
fn a_sealed_move_may_be_written_in_any_unambiguous_notation() {
    for text in ["Nc6", "Nb8-c6", "b8c6", "nc6", " Nc6 "] {
        let mut g = standard("5400+0");
        g.apply(Input::Start, 0).unwrap();
        play(&mut g, "e4 e5 Nf3", 1000);
        g.apply(
            Input::Seal {
                by: Color::Black,
                text: text.into(),
                notation: None,
            },
            10_000,
        )
        .unwrap();
        g.apply(Input::OpenEnvelope, 20_000)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(g.moves()[3].san.to_string(), "Nc6", "{text}");
    }
}

#[test]
fn an_absent_sealers_opponent_seals_his_reply_and_starts_the_absent_players_clock() {
    // The adjournment articles, third case: Black sealed and is not there. White has the
    // envelope opened, writes his reply, seals it in a fresh envelope and starts Black's clock.
    let mut g = adjourned_by_black();
    let t = 90_000_000;
    g.apply(Input::OpenEnvelope, t).unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::White));
    g.apply(
        Input::Seal {
            by: Color::White,
            text: "Bb5".into(),
            notation: None,
        },
        t + 60_000,
    )
    .unwrap();
    g.apply(Input::StartReplierClock, t + 60_000).unwrap();
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    let black = remaining(&g, Color::Black, t + 60_000);
    // Black arrives ten minutes later; the envelope is opened and he replies.
    let arrival = t + 60_000 + 10 * 60_000;
    g.apply(Input::OpenEnvelope, arrival).unwrap();
    assert_eq!(g.moves()[4].san.to_string(), "Bb5");
    assert_eq!(g.clock().unwrap().running(), Some(Color::Black));
    assert_eq!(remaining(&g, Color::Black, arrival), black - 10 * MIN);
}

#[test]
fn a6_13_clock_changes_by_the_arbiter_are_kept_at_their_move_for_the_pgn() {
    let mut g = standard("5400+30");
    g.apply(Input::Start, 0).unwrap();
    let t = play(&mut g, "e4 e5 Nf3", 1_000);
    g.apply(
        Input::SetClock {
            side: Color::Black,
            remaining_ms: 3_000_000,
        },
        t,
    )
    .unwrap();
    // 7.4 b: an illegal move of Black's gives White two minutes.
    g.apply(Input::IllegalMove { by: Color::Black }, t + 1_000)
        .unwrap();
    assert_eq!(
        g.clock_notes(),
        &[
            (3, "black's clock set to 0:50:00".to_string()),
            (
                3,
                "illegal move by black: 120 s added to white (7.4 b)".to_string()
            ),
        ]
    );
    let pgn = g.to_pgn(&[]);
    assert!(
        pgn.contains("2. Nf3 { [%clk 1:30:58] black's clock set to 0:50:00; illegal move by black: 120 s added to white (7.4 b) }"),
        "{pgn}"
    );
    // The PGN stays readable: the same moves and clocks come back.
    let read = crate::rules::pgn::read_pgn(pgn.as_bytes()).unwrap();
    assert_eq!(read[0].moves.len(), 3);
}

#[test]
fn appendix_e_a_sealed_move_in_national_letters_is_made_at_resumption() {
    for (text, san) in [
        ("Sc6", "Nc6"),
        ("Cc6", "Nc6"),
        ("b8-c6", "Nc6"),
        ("0-0", ""),
    ] {
        let mut g = standard("5400+0");
        g.apply(Input::Start, 0).unwrap();
        play(&mut g, "e4 e5 Nf3", 1000);
        g.apply(
            Input::Seal {
                by: Color::Black,
                text: text.into(),
                notation: None,
            },
            10_000,
        )
        .unwrap();
        let events = g.apply(Input::OpenEnvelope, 20_000).unwrap();
        if san.is_empty() {
            // Black cannot castle here: a sealed move that is no legal move loses.
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::SealedMoveInvalid { .. })),
                "{text}: {events:?}"
            );
            continue;
        }
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Event::SealedMoveInvalid { .. })),
            "{text}: {events:?}"
        );
        assert_eq!(g.moves().last().unwrap().san.to_string(), san, "{text}");
    }
}

#[test]
fn adjournment_an_english_sealed_rf1_is_the_rooks_move_when_opened() {
    // 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5: White seals `Rf1` as an English player writes it; a
    // Frenchman would read the king's move, but the envelope is read in its writer's notation.
    let mut g = standard("5400+0");
    g.apply(Input::Start, 0).unwrap();
    play(&mut g, "e4 e5 Nf3 Nc6 Bc4 Bc5", 1000);
    g.apply(
        Input::Seal {
            by: Color::White,
            text: "Rf1".into(),
            notation: Some("English".into()),
        },
        10_000,
    )
    .unwrap();
    let events = g.apply(Input::OpenEnvelope, 3_600_000).unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::MovePlayed { san, .. } if san == "Rf1")),
        "{events:?}"
    );
    assert!(!g.is_over());
}
