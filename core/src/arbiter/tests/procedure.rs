//! Procedure an arbiter can trust: the sealed move read as its writer wrote it, a retrace the
//! arbiter confirms and can undo, no move made before the opponent's, and the smaller points of
//! the Laws' reading (4.6, 7.4, F.6, 9.5 b, 6.13).

use shakmaty::{ByColor, CastlingMode, fen::Fen};

use super::*;
use crate::{announce::Guidance, rules::notation};

fn from_fen(cfg: ArbiterConfig, fen: &str) -> Arbiter {
    let start: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    Arbiter::new(cfg, start)
}

/// After 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5, White (blind) to move.
const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

fn refusal(out: &[Effect]) -> Option<&str> {
    out.iter().find_map(|e| match e {
        Effect::Refused(r) => Some(r.as_str()),
        _ => None,
    })
}

fn seal(a: &mut Arbiter, text: &str, t: Millis) -> Vec<Effect> {
    let by = a.game().to_move();
    a.handle(
        Input::Rules(game::Input::Seal {
            by,
            text: text.into(),
            notation: None,
        }),
        t,
    )
}

#[test]
fn adjournment_a_sealed_move_that_reads_two_ways_is_asked_about_when_sealed_never_lost_at_open() {
    // Nobody said which letters White writes: `Rf1` is the rook's move in English and the
    // king's in French. Not sealed: the one sealing is told both, as the lines to type.
    let mut a = from_fen(config(None, Completion::ClockPress), ITALIAN);
    a.handle(Input::Start, 0);
    let out = seal(&mut a, "Rf1", 10_000);
    let r = refusal(&out).expect("refused");
    assert!(
        r.contains("`seal Ke1-f1` (Kf1)") && r.contains("`seal Rh1-f1` (Rf1)"),
        "{r}"
    );
    assert!(a.game().adjournment().is_none());
    assert!(
        !said(&out)
            .iter()
            .any(|s| s.2 == Announcement::Adjourned { by: Color::White })
    );
    // He chooses; it is sealed and opened as chosen.
    let out = seal(&mut a, "Rh1-f1", 11_000);
    assert!(refusal(&out).is_none(), "{out:?}");
    a.handle(Input::Rules(game::Input::OpenEnvelope), 20_000);
    assert_eq!(
        a.game()
            .moves()
            .last()
            .map(|r| r.san.to_string())
            .as_deref(),
        Some("Rf1")
    );
    assert!(!a.game().is_over());
    // Unreadable: not sealed either, and said why.
    let mut a = from_fen(config(None, Completion::ClockPress), ITALIAN);
    a.handle(Input::Start, 0);
    let r = seal(&mut a, "Xq9", 10_000);
    assert!(
        refusal(&r).is_some_and(|r| r.contains("not sealed") && r.contains("not a move")),
        "{r:?}"
    );
    assert!(a.game().adjournment().is_none());
    // A move written clearly that no piece can make is sealed as written: the Laws decide it
    // when the envelope is opened (it loses), at the arbiter's ruling: `open` offers it to him
    // (he compares the envelope's own sheet with the transcription), `confirm` rules it.
    assert!(refusal(&seal(&mut a, "Qd1-h8", 10_000)).is_none());
    let out = a.handle(Input::Rules(game::Input::OpenEnvelope), 20_000);
    assert!(!a.game().is_over(), "{out:?}");
    assert!(
        notes(&out).iter().any(|n| n.starts_with(
            "the sealed move as transcribed, 'Qd1-h8', is not one legal move here: the game \
             ends: white \
             loses (white's sealed move was ambiguous or illegal)"
        ) && n.contains("`confirm` opens the envelope")),
        "{out:?}"
    );
    assert!(
        said(&out).is_empty(),
        "nothing is said before the ruling: {out:?}"
    );
    // Cancelled: the envelope stays closed; opened again and confirmed: White loses.
    a.handle(Input::Cancel, 21_000);
    assert!(!a.game().is_over() && a.game().adjournment().is_some());
    a.handle(Input::Rules(game::Input::OpenEnvelope), 22_000);
    let out = a.handle(Input::Confirm, 23_000);
    assert!(a.game().is_over(), "{out:?}");
    assert_eq!(
        a.game().ending_pending().map(|(loser, _)| loser),
        Some(Color::White),
        "{out:?}"
    );
    assert!(
        both(&out).contains(&Announcement::EnvelopeOpened),
        "both hear the envelope opened: {out:?}"
    );
}

#[test]
fn adjournment_an_english_players_rf1_is_his_rooks_move() {
    let mut cfg = config(None, Completion::ClockPress);
    cfg.seats.white = cfg.seats.white.with_notation(notation::letters_of("en"));
    let mut a = from_fen(cfg, ITALIAN);
    a.handle(Input::Start, 0);
    let out = seal(&mut a, "Rf1", 10_000);
    assert!(refusal(&out).is_none(), "{out:?}");
    assert_eq!(
        a.game().adjournment().and_then(|a| a.notation.clone()),
        Some("English".into())
    );
    a.handle(Input::Rules(game::Input::OpenEnvelope), 20_000);
    assert_eq!(
        a.game()
            .moves()
            .last()
            .map(|r| r.san.to_string())
            .as_deref(),
        Some("Rf1")
    );
    // A German writes `T` for his rook: `Tf1` is the rook's move, and `Rf1`, not German, is
    // read in the other notations (and is two moves there).
    let mut cfg = config(None, Completion::ClockPress);
    cfg.seats.white = cfg.seats.white.with_notation(notation::letters_of("de"));
    let mut a = from_fen(cfg, ITALIAN);
    a.handle(Input::Start, 0);
    let r = seal(&mut a, "Rf1", 10_000);
    assert!(
        refusal(&r).is_some_and(|r| r.contains("`seal Th1-f1` (Rf1)")),
        "{r:?}"
    );
    assert!(refusal(&seal(&mut a, "Tf1", 10_500)).is_none());
}

/// 1.e4 e5 2.Nf3 Nc6, the blind player (White) executing 2...Nc6 on a6: his board differs.
/// Returns the arbiter and the time reached.
fn nc6_executed_on_a6() -> (Arbiter, Millis) {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let mut t = 1_000;
    for (from, to, reply) in [
        (Square::E2, Square::E4, "e5"),
        (Square::G1, Square::F3, "Nc6"),
    ] {
        blind(&mut a, lift(from), t);
        let out = blind(&mut a, put(to), t + 500);
        a.handle(
            Input::SpeechFinished {
                id: said(&out)[0].0,
            },
            t + 1_000,
        );
        a.handle(Input::EnterMove(reply.into()), t + 3_000);
        a.handle(Input::ClockPress, t + 3_500);
        let m = a.game().moves().last().unwrap().mv;
        let to = if reply == "Nc6" { Square::A6 } else { m.to() };
        blind(&mut a, lift(m.from().unwrap()), t + 4_000);
        blind(&mut a, put(to), t + 4_500);
        t += 10_000;
    }
    run(&mut a, t);
    assert_eq!(a.game().ply(), 4);
    (a, t)
}

fn sheet(sans: &str) -> Vec<String> {
    crate::rules::sheet::sheet_moves(&sans.split_whitespace().collect::<Vec<_>>())
}

fn enter(a: &mut Arbiter, side: Color, sans: &str, t: Millis) -> Vec<Effect> {
    a.handle(
        Input::Scoresheet {
            side,
            sans: sheet(sans),
        },
        t,
    )
}

#[test]
fn f8_a_retrace_is_offered_done_at_the_arbiters_confirm_and_undone_exactly() {
    let (mut a, t) = nc6_executed_on_a6();
    let clocks_before = ByColor::new_with(|c| a.game().clock().unwrap().remaining(c, t));
    enter(&mut a, Color::Black, "1. e4 e5 2. Nc3 Nc6", t);
    let out = enter(&mut a, Color::White, "1. e4 e5 2. Nf3 Nc6", t);
    // Offered, with what it would do and the command; nothing changed yet.
    assert_eq!(a.game().ply(), 4);
    assert!(
        notes(&out).iter().any(|n| n.contains(
            "the two scoresheets agree for 2 half-moves: retrace the game to after 1... e5? \
             `confirm` retraces it (F.8)"
        )),
        "{out:?}"
    );
    assert!(said(&out).is_empty(), "{out:?}");
    let out = a.handle(Input::Confirm, t + 1_000);
    assert_eq!(a.game().ply(), 2);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("retraced to after 1... e5") && n.contains("`undo`")),
        "{out:?}"
    );
    // Undone before play goes on: the game as it was, four moves, the clocks as they were
    // at the retrace and stopped.
    let out = a.handle(Input::Undo, t + 30_000);
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Refused(_))),
        "{out:?}"
    );
    assert_eq!(a.game().ply(), 4);
    assert_eq!(a.game().moves()[3].san.to_string(), "Nc6");
    let clock = a.game().clock().unwrap();
    assert!(clock.is_paused());
    let at_retrace = ByColor::new_with(|c| clock.remaining(c, t + 60_000));
    assert_eq!(at_retrace.black, clocks_before.black);
    assert!(
        clocks_before.white - at_retrace.white <= 1_000,
        "White's second since"
    );
    // Nothing more to undo; play goes on at `resume`.
    assert!(matches!(
        a.handle(Input::Undo, t + 31_000).as_slice(),
        [Effect::Refused(_)]
    ));
    a.handle(
        Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
        t + 32_000,
    );
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::White));
}

#[test]
fn f8_a_sheet_that_does_not_read_where_it_parts_retraces_nothing() {
    // Black's sheet is right; White's was typed with `1. e44`. Old: "agree for 0 half-moves",
    // the game wiped back to the start.
    let (mut a, t) = nc6_executed_on_a6();
    enter(&mut a, Color::Black, "1. e4 e5 2. Nf3 Nc6", t);
    let out = enter(&mut a, Color::White, "1. e44 e5 2. Nf3 Nc6", t);
    assert!(
        notes(&out).iter().any(|n| n.contains(
            "white's scoresheet does not read at 1. 'e44' (not a move in any notation): nothing \
             is retraced on it"
        )),
        "{out:?}"
    );
    assert!(!notes(&out).iter().any(|n| n.contains("retrace the game")));
    assert!(matches!(
        a.handle(Input::Confirm, t).as_slice(),
        [Effect::Refused(_)]
    ));
    assert_eq!(a.game().ply(), 4);
}

#[test]
fn f8_is_not_applied_to_a_difference_already_put_right() {
    let (mut a, t) = nc6_executed_on_a6();
    enter(&mut a, Color::Black, "1. e4 e5 2. Nc3 Nc6", t);
    enter(&mut a, Color::White, "1. e4 e5 2. Nf3 Nc6", t);
    a.handle(Input::Confirm, t);
    assert_eq!(a.game().ply(), 2);
    // Both pieces put back within a second (before a difference could be told), the clocks
    // confirmed: both boards show the game.
    blind(&mut a, lift(Square::F3), t + 200);
    blind(&mut a, put(Square::G1), t + 400);
    blind(&mut a, lift(Square::A6), t + 600);
    blind(&mut a, put(Square::B8), t + 800);
    a.handle(Input::ConfirmClocks, t + 900);
    assert!(tactile(&a).shows_expected());
    // The same sheets again: no retrace offered, none done.
    enter(&mut a, Color::Black, "1. e4 e5 2. Nc3 Nc6", t + 1_000);
    let out = enter(&mut a, Color::White, "1. e4 e5 2. Nf3 Nc6", t + 1_000);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("both boards show the game's position, so nothing is retraced")),
        "{out:?}"
    );
    assert!(matches!(
        a.handle(Input::Confirm, t + 1_100).as_slice(),
        [Effect::Refused(_)]
    ));
    assert_eq!(a.game().ply(), 2);
}

#[test]
fn f8_the_clocks_proposed_after_a_takeback_keep_the_time_given_since() {
    let (mut a, t) = nc6_executed_on_a6();
    let recorded = a.game().clocks_after_ply(2).unwrap();
    // The arbiter gave Black three minutes after move 2 (a ruling); White lost one.
    a.handle(
        Input::Rules(game::Input::AdjustClock {
            side: Color::Black,
            delta_ms: 180_000,
        }),
        t,
    );
    a.handle(
        Input::Rules(game::Input::AdjustClock {
            side: Color::White,
            delta_ms: -60_000,
        }),
        t,
    );
    let out = a.handle(Input::Rules(game::Input::Retract { to_ply: 2 }), t + 1_000);
    let expected = format!(
        "proposed clocks: White {}, Black {}",
        crate::rules::pgn::format_clk(recorded.white - 60_000),
        crate::rules::pgn::format_clk(recorded.black + 180_000)
    );
    assert!(
        notes(&out).iter().any(|n| n.contains(&expected)),
        "{expected}: {out:?}"
    );
    // Confirmed, they stand; the confirmation itself is no clock change: a second takeback
    // proposes the same.
    a.handle(Input::ConfirmClocks, t + 2_000);
    let out = a.handle(Input::Rules(game::Input::Retract { to_ply: 2 }), t + 3_000);
    assert!(
        notes(&out).iter().any(|n| n.contains(&expected)),
        "{expected}: {out:?}"
    );
}

#[test]
fn a9_5_b_an_incorrect_claims_penalty_waits_for_the_arbiter_and_its_amount_is_said() {
    // The assistant's `claim fifty` at move 0: incorrect. Old: 9.5 b applied at once.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let claim = game::Input::Claim {
        by: Color::White,
        claim: game::DrawClaim::FiftyMoves { intended: None },
    };
    let out = a.handle(Input::Rules(claim.clone()), 1_000);
    let before = ByColor::new_with(|c| a.game().clock().unwrap().remaining(c, 1_000));
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("white's claim under 9.3")
                && n.contains("is incorrect: 9.5 b adds 3 minutes to black's clock")
                && n.contains("`confirm` applies it")),
        "{out:?}"
    );
    // No penalty yet: both players hear that a claim was made and that the clocks stand (9.5).
    assert_eq!(
        both(&out),
        [
            Announcement::ClaimMade {
                by: Color::White,
                article: crate::rules::game::Article::A9_3b
            },
            Announcement::ClocksPaused
        ],
        "{out:?}"
    );
    assert_eq!(said(&out).len(), 2, "nothing else is said: {out:?}");
    // Dropped: no penalty.
    a.handle(Input::Cancel, 1_500);
    assert_eq!(
        a.game().clock().unwrap().remaining(Color::Black, 1_500),
        before.black
    );
    // Typed again and confirmed: applied, and each player concerned hears by how much.
    a.handle(Input::Rules(claim), 2_000);
    let out = a.handle(Input::Confirm, 2_000);
    assert_eq!(
        a.game().clock().unwrap().remaining(Color::Black, 2_000),
        before.black + 180_000
    );
    assert!(
        said(&out).iter().any(|s| s.1 == SIGHTED
            && s.2
                == Announcement::ClockChanged {
                    side: Color::Black,
                    by_ms: 180_000
                }),
        "{out:?}"
    );
    assert!(
        said(&out).iter().any(|s| s.1 == BLIND
            && matches!(s.2, Announcement::ClockChanged { side: Color::White, by_ms } if by_ms < 0)),
        "2001: the claimant's time is cut, and he hears by how much: {out:?}"
    );
}

#[test]
fn a7_4_b_the_arbiters_penalty_is_offered_with_its_amount_and_applied_at_confirm() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let out = a.handle(
        Input::Penalty(game::Input::IllegalMove { by: Color::White }),
        1_000,
    );
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("illegal move 1 by white: 7.4 b adds 2 minutes to black's clock")),
        "{out:?}"
    );
    assert_eq!(a.game().clock_notes().len(), 0);
    let out = a.handle(Input::Confirm, 1_500);
    assert_eq!(a.game().clock_notes().len(), 1);
    assert!(
        said(&out).iter().any(|s| s.1 == SIGHTED
            && s.2
                == Announcement::ClockChanged {
                    side: Color::Black,
                    by_ms: 120_000
                }),
        "{out:?}"
    );
    // A time penalty (13.4) the same way, and `confirm` with nothing offered is refused.
    let out = a.handle(
        Input::Penalty(game::Input::AdjustClock {
            side: Color::White,
            delta_ms: -60_000,
        }),
        2_000,
    );
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("white's clock goes from")),
        "{out:?}"
    );
    a.handle(Input::Confirm, 2_000);
    assert!(matches!(
        a.handle(Input::Confirm, 2_100).as_slice(),
        [Effect::Refused(_)]
    ));
}

#[test]
fn a1_1_a_move_made_before_the_opponent_has_moved_is_no_move() {
    // Old: White's Nf3, made on his board while Black was still thinking, counted as soon as
    // he had executed ...e5.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    finish_speech(&mut a, &out, 2_000);
    assert_eq!(a.game().ply(), 1);
    // Black thinks; White plays Nf3 on his board.
    blind(&mut a, lift(Square::G1), 3_000);
    let out = blind(&mut a, put(Square::F3), 3_500);
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == BLIND && s.2 == Announcement::OutOfTurn),
        "he is told: {out:?}"
    );
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("white moved Nf3 on the tactile board before black had moved")),
        "{out:?}"
    );
    // Black plays ...e5; White executes it and leaves his knight on f3: not counted, refused
    // aloud, guided back.
    a.handle(Input::EnterMove("e5".into()), 10_000);
    a.handle(Input::ClockPress, 10_500);
    blind(&mut a, lift(Square::E7), 11_000);
    let out = blind(&mut a, put(Square::E5), 11_500);
    let out = [out, run(&mut a, 14_000)].concat();
    assert_eq!(a.game().ply(), 2, "{out:?}");
    assert!(move_said_to(&out, SIGHTED).is_none(), "{out:?}");
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == BLIND && s.2 == Announcement::OutOfTurn),
        "{out:?}"
    );
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == BLIND
                && matches!(s.2, Announcement::Guidance(Guidance::Misplaced { .. }))),
        "guided back: {out:?}"
    );
    // Back on g1, he makes it again in his own time: now it counts.
    blind(&mut a, lift(Square::F3), 15_000);
    blind(&mut a, put(Square::G1), 15_200);
    blind(&mut a, lift(Square::G1), 16_000);
    let out = blind(&mut a, put(Square::F3), 16_500);
    finish_speech(&mut a, &out, 17_000);
    assert_eq!(a.game().ply(), 3);
    assert_eq!(a.game().moves()[2].san.to_string(), "Nf3");
}

#[test]
fn a1_1_a_reply_made_after_the_opponents_move_was_made_stays_a_move() {
    // Black (sighted, manual board) has entered ...e5 and pressed: White executes it and
    // replies at once, before tactus has finished: it counts as before.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    finish_speech(&mut a, &out, 2_000);
    a.handle(Input::EnterMove("e5".into()), 3_000);
    a.handle(Input::ClockPress, 3_500);
    blind(&mut a, lift(Square::E7), 4_000);
    blind(&mut a, put(Square::E5), 4_200);
    blind(&mut a, lift(Square::G1), 4_400);
    let out = blind(&mut a, put(Square::F3), 4_600);
    let out = [out, run(&mut a, 5_000)].concat();
    assert!(
        !said(&out).iter().any(|s| s.2 == Announcement::OutOfTurn),
        "{out:?}"
    );
    assert!(move_said_to(&out, SIGHTED).is_some(), "{out:?}");
}

#[test]
fn a1_1_the_sighted_players_move_on_his_dgt_board_during_the_blind_players_time() {
    let mut a = Arbiter::new(config(Some(DGT), Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    // White (blind) thinks; Black plays ...d6 on his DGT board.
    sighted(&mut a, lift(Square::D7), 1_000);
    let out = sighted(
        &mut a,
        put_piece(Square::D6, Piece::from_char('p').unwrap()),
        1_100,
    );
    let out = [out, run(&mut a, 2_000)].concat();
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == SIGHTED && s.2 == Announcement::OutOfTurn),
        "{out:?}"
    );
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("black moved d6 on the sighted board before white had moved")),
        "{out:?}"
    );
}

#[test]
fn a4_6_a_piece_released_on_a_square_and_moved_on_is_reported_on_a_press_board() {
    // 1.e4, then Black (sighted, DGT board, his move counts at his press) puts his knight
    // from b8 on c6, leaves it there, moves it on to a6 and presses.
    let mut a = after_e4(Some(DGT));
    sighted(&mut a, lift(Square::E2), 3_500);
    sighted(
        &mut a,
        put_piece(Square::E4, Piece::from_char('P').unwrap()),
        3_600,
    );
    run(&mut a, 4_000);
    let knight = Piece::from_char('n').unwrap();
    sighted(&mut a, lift(Square::B8), 5_000);
    sighted(&mut a, put_piece(Square::C6, knight), 5_100);
    run(&mut a, 6_300);
    sighted(&mut a, lift(Square::C6), 6_300);
    sighted(&mut a, put_piece(Square::A6, knight), 6_400);
    let mut out = run(&mut a, 7_000);
    out.extend(a.handle(Input::ClockPress, 7_000));
    out.extend(run(&mut a, 8_000));
    assert_eq!(a.game().ply(), 2, "{out:?}");
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("Art. 4.6") && n.contains("c6")),
        "{out:?}"
    );
}

/// White (blind, tactile board) to move, his pawn on a7.
const PAWN_ON_A7: &str = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";

fn four_six_c(out: &[Effect]) -> Vec<String> {
    notes(out)
        .into_iter()
        .filter(|n| n.contains("Art. 4.6 c"))
        .collect()
}

#[test]
fn a4_6_c_a_pawn_released_on_its_promotion_square_and_put_back_is_noted_and_promote_says_why() {
    // He pushes a7-a8 and lets go (the piece is asked for), then thinks better of it and puts
    // the pawn back on a7. The board shows the position again, so nothing was said, noted or
    // guided: his clock ran in silence and `promote` was refused without a reason.
    let mut a = from_fen(config(Some(DGT), Completion::ClockPress), PAWN_ON_A7);
    a.handle(Input::Start, 0);
    let mut out = blind(&mut a, lift(Square::A7), 1_000);
    out.extend(blind(&mut a, put(Square::A8), 1_300));
    out.extend(run(&mut a, 3_000));
    assert!(four_six_c(&out).is_empty(), "{out:?}");
    let mut out = blind(&mut a, lift(Square::A8), 3_000);
    out.extend(blind(&mut a, put(Square::A7), 3_400));
    out.extend(run(&mut a, 4_000));
    let noted = four_six_c(&out);
    assert!(
        noted.len() == 1 && noted[0].contains("blind released the pawn on a8"),
        "{out:?}"
    );
    let out = a.handle(Input::Promote(Role::Queen), 4_500);
    assert!(
        refusal(&out).is_some_and(|r| r.contains("4.6 c") && r.contains("once it stands on a8")),
        "{out:?}"
    );
    // On a8 again, his piece counts.
    blind(&mut a, lift(Square::A7), 5_000);
    blind(&mut a, put(Square::A8), 5_300);
    let out = a.handle(Input::Promote(Role::Queen), 5_600);
    assert!(refusal(&out).is_none(), "{out:?}");
    assert_eq!(
        move_said_to(&out, SIGHTED).and_then(|w| w.promotion),
        Some(Role::Queen)
    );
}

#[test]
fn a4_6_c_a_pawn_released_on_its_promotion_square_and_moved_on_is_guided_back_and_noted() {
    let mut a = from_fen(config(Some(DGT), Completion::ClockPress), PAWN_ON_A7);
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::A7), 1_000);
    blind(&mut a, put(Square::A8), 1_300);
    run(&mut a, 3_000);
    let mut out = blind(&mut a, lift(Square::A8), 3_000);
    out.extend(blind(&mut a, put(Square::B7), 3_400));
    out.extend(run(&mut a, 6_000));
    assert_eq!(four_six_c(&out).len(), 1, "{out:?}");
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == BLIND && s.2 == Announcement::IllegalMove),
        "{out:?}"
    );
    assert!(
        said(&out).iter().any(|s| s.1 == BLIND
            && matches!(
                s.2,
                Announcement::Guidance(Guidance::Misplaced {
                    found: Square::B7,
                    belongs: Square::A7,
                    ..
                })
            )),
        "{out:?}"
    );
}

#[test]
fn a4_6_c_a_pawn_exchanged_for_its_piece_on_the_promotion_square_is_no_claim() {
    // The usual way on a pegged board: the pawn on a8 first, then taken off for the queen.
    let mut a = from_fen(config(Some(DGT), Completion::ClockPress), PAWN_ON_A7);
    a.handle(Input::Start, 0);
    let mut out = blind(&mut a, lift(Square::A7), 1_000);
    out.extend(blind(&mut a, put(Square::A8), 1_300));
    out.extend(run(&mut a, 2_500));
    out.extend(blind(&mut a, lift(Square::A8), 2_500));
    out.extend(run(&mut a, 4_000));
    out.extend(blind(&mut a, put(Square::A8), 4_000));
    let promoted = a.handle(Input::Promote(Role::Queen), 4_500);
    out.extend(promoted.clone());
    assert!(four_six_c(&out).is_empty(), "{out:?}");
    assert!(refusal(&out).is_none(), "{out:?}");
    assert_eq!(
        move_said_to(&promoted, SIGHTED).and_then(|w| w.promotion),
        Some(Role::Queen)
    );
}

#[test]
fn a7_4_a_legal_move_the_game_cannot_take_now_is_not_called_an_illegal_move() {
    // 9.5 b: after his incorrect claim White must play Nf3; his e4 is legal, not illegal.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let nf3 = mv_of(&Chess::default(), "Nf3");
    a.handle(
        Input::Rules(game::Input::Claim {
            by: Color::White,
            claim: game::DrawClaim::Repetition {
                intended: Some(nf3),
            },
        }),
        500,
    );
    a.handle(Input::Confirm, 600);
    blind(&mut a, lift(Square::E2), 1_000);
    let mut out = blind(&mut a, put(Square::E4), 1_500);
    out.extend(run(&mut a, 5_000));
    let n = notes(&out);
    assert!(
        n.iter().any(|l| l.contains("not a legal move now")
            && l.contains("e4 is legal, but after the incorrect claim Nf3 must be played (9.5 b)")),
        "{n:?}"
    );
    assert!(!n.iter().any(|l| l.contains("illegal move on")), "{n:?}");
}

/// White (blind) with an F.6 window of 3 s after the announcement.
fn with_window() -> Arbiter {
    let mut cfg = config(None, Completion::ClockPress);
    cfg.correction_window_ms = 3_000;
    let mut a = Arbiter::new(cfg, Chess::default());
    a.handle(Input::Start, 0);
    a
}

#[test]
fn f6_a_slip_may_be_corrected_in_the_window_after_the_announcement_for_the_piece_moved() {
    // White moves his knight g1-h3, announced; at once he says it was Nf3 (the knight).
    let mut a = with_window();
    blind(&mut a, lift(Square::G1), 1_000);
    let out = blind(&mut a, put(Square::H3), 1_500);
    finish_speech(&mut a, &out, 2_000);
    // The announcement has ended: without the window it would count now.
    assert_eq!(a.game().ply(), 0);
    // Another piece is no correction (4.3: the knight he moved is the piece he touched).
    let out = a.handle(Input::Correct("e4".into()), 3_000);
    assert!(refusal(&out).is_some_and(|r| r.contains("4.3")), "{out:?}");
    let corrected = a.handle(Input::Correct("Nf3".into()), 3_500);
    assert!(refusal(&corrected).is_none(), "{corrected:?}");
    // Made on his board, announced again, and it counts when its window has passed.
    blind(&mut a, lift(Square::H3), 4_000);
    blind(&mut a, put(Square::F3), 4_200);
    finish_speech(&mut a, &corrected, 5_000);
    run(&mut a, 7_900);
    assert_eq!(a.game().ply(), 0);
    run(&mut a, 8_000);
    assert_eq!(a.game().ply(), 1);
    assert_eq!(a.game().moves()[0].san.to_string(), "Nf3");
    // Too late now.
    let out = a.handle(Input::Correct("Nc3".into()), 8_100);
    assert!(refusal(&out).is_some_and(|r| r.contains("too late")));
}

#[test]
fn a9_1_a_a_draw_offer_is_not_made_twice() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::White }),
        500,
    );
    let out = a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::White }),
        600,
    );
    assert!(
        refusal(&out).is_some_and(|r| r.contains("stands")),
        "{out:?}"
    );
    assert!(said(&out).is_empty());
    assert_eq!(a.game().offers().len(), 1);
}

#[test]
fn a6_13_the_move_counter_set_and_clock_changes_are_in_the_pgn_where_they_happened() {
    let (mut a, t) = nc6_executed_on_a6();
    a.handle(
        Input::Rules(game::Input::SetMoveCounter {
            side: Color::White,
            moves: 3,
        }),
        t,
    );
    let pgn = a.game().to_pgn(&[]);
    assert!(
        pgn.contains("white's move counter set to 3 (6.13)"),
        "{pgn}"
    );
    // A clock change after move 4, then a retrace to 2: the note stays after move 2, not
    // before move 1.
    a.handle(
        Input::Rules(game::Input::AdjustClock {
            side: Color::Black,
            delta_ms: 60_000,
        }),
        t,
    );
    a.handle(Input::Rules(game::Input::Retract { to_ply: 2 }), t + 1_000);
    let pgn = a.game().to_pgn(&[]);
    let body = &pgn[pgn.find("\n\n").unwrap()..];
    let note = body.find("black's clock set to").expect("the note is kept");
    let e5 = body.find("e5").unwrap();
    assert!(note > e5, "after 1... e5, not before move 1: {body}");
}

/// 9.5: a claim stops both clocks until the arbiter decides. A claimant with six seconds left
/// does not lose on time while the arbiter checks his claim, the penalty of an incorrect one
/// is taken from the time he had when he claimed, and his clock runs again at the decision
/// (`confirm` or `cancel`), not before. (It ran on, and his flag fell before `confirm`.)
#[test]
fn a9_5_a_claim_stops_both_clocks_until_the_arbiter_decides() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    a.handle(
        Input::Rules(game::Input::SetClock {
            side: Color::White,
            remaining_ms: 6_000,
        }),
        0,
    );
    let claim = game::Input::Claim {
        by: Color::White,
        claim: game::DrawClaim::Repetition { intended: None },
    };
    a.handle(Input::Rules(claim.clone()), 1_000);
    let clock = |a: &Arbiter, t| ByColor::new_with(|c| a.game().clock().unwrap().remaining(c, t));
    let at_claim = clock(&a, 1_000);
    assert_eq!(at_claim.white, 5_000);
    // The arbiter walks over and checks the score sheets for a minute: nothing runs, no flag.
    for t in (2_000..=61_000).step_by(1_000) {
        a.handle(Input::Tick, t);
    }
    assert!(!a.game().is_over(), "no flag fell while the claim waited");
    assert_eq!(clock(&a, 61_000), at_claim, "both clocks stood");
    // Incorrect, confirmed: 9.5 b on the time he had (less than a minute: unchanged, 2001), and
    // his clock runs again from the decision.
    let out = a.handle(Input::Confirm, 61_000);
    let after = clock(&a, 61_000);
    assert_eq!(after.white, 5_000, "{out:?}");
    assert_eq!(after.black, at_claim.black + 180_000);
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::White));
    assert!(
        both(&out).contains(&Announcement::ClocksResumed),
        "both hear that the clocks run: {out:?}"
    );
    assert_eq!(clock(&a, 62_000).white, 4_000);

    // Typed in error and cancelled: the clocks run again at `cancel`, nothing changed.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    a.handle(Input::Rules(claim.clone()), 10_000);
    let at_claim = clock(&a, 10_000);
    a.handle(Input::Tick, 40_000);
    let out = a.handle(Input::Cancel, 40_000);
    assert_eq!(clock(&a, 40_000), at_claim);
    assert_eq!(
        a.game().clock().unwrap().running(),
        Some(Color::White),
        "{out:?}"
    );
    assert!(both(&out).contains(&Announcement::ClocksResumed), "{out:?}");

    // The arbiter had paused the clocks himself: the claim leaves them to him.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    a.handle(
        Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
        5_000,
    );
    a.handle(Input::Rules(claim), 6_000);
    a.handle(Input::Cancel, 7_000);
    assert!(a.game().clock().unwrap().is_paused(), "still his pause");
}

/// 7.4 b (2009): the third illegal move loses unless the opponent cannot mate; the game waits
/// for the search. Typed by the arbiter (`illegal white`), it is offered like any penalty and
/// ends nothing until he confirms it: a mistyped side must not lose the wrong player the game.
/// (It ended the game at once, with no offer, `cancel` or `undo`.)
#[test]
fn a7_4_b_2009_the_third_illegal_move_is_offered_before_it_ends_the_game() {
    let mut cfg = config(None, Completion::ClockPress);
    cfg.rules.edition = crate::rules::Edition::Fide2009;
    let mut a = Arbiter::new(cfg, Chess::default());
    a.handle(Input::Start, 0);
    let illegal = || Input::Penalty(game::Input::IllegalMove { by: Color::White });
    for t in [1_000, 2_000] {
        a.handle(illegal(), t);
        a.handle(Input::Confirm, t + 100);
    }
    assert!(!a.game().is_over());
    let out = a.handle(illegal(), 3_000);
    assert!(
        notes(&out).iter().any(|n| n.contains(
            "the game ends: white loses (third illegal move by white), or it is drawn if black \
             cannot mate"
        ) && n.contains("`confirm` applies it")),
        "{out:?}"
    );
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Analyse { .. })),
        "no search before the arbiter confirms: {out:?}"
    );
    assert!(a.game().ending_pending().is_none() && !a.game().is_over());
    // Typed for the wrong player: dropped, the game goes on.
    a.handle(Input::Cancel, 3_500);
    assert!(a.game().ending_pending().is_none() && !a.game().is_over());
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::White));
    // Confirmed: the search decides (Black has all his pieces: White loses).
    a.handle(illegal(), 4_000);
    let out = a.handle(Input::Confirm, 4_100);
    assert!(
        out.iter().any(|e| matches!(e, Effect::Analyse { .. })),
        "{out:?}"
    );
    assert_eq!(
        a.game().ending_pending().map(|(loser, _)| loser),
        Some(Color::White)
    );
}
