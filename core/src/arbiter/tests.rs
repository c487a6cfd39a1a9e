//! The Appendix F flows with virtual time: both boards, announcements, execution, guidance,
//! corrections, scoresheets and touch reports.

use shakmaty::{Chess, Color, Position, Role, Square, san::San};

use super::*;
use crate::{
    announce::{Guidance, MoveWords, ResultWords, WhichBoard},
    board::{Sensing, recognize::RecognizerConfig},
    rules::{game::RulesConfig, time_control::TimeControl},
};

const TACTILE: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Occupancy,
    settle_ms: 0,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 1500,
    confirm_with_snapshot: false,
};
const DGT: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Identity,
    settle_ms: 300,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 2000,
    confirm_with_snapshot: false,
};

fn config(sighted: Option<RecognizerConfig>, completion: Completion) -> ArbiterConfig {
    ArbiterConfig {
        rules: RulesConfig {
            time_control: Some("300".parse::<TimeControl>().unwrap()),
            ..RulesConfig::default()
        },
        seats: one_blind(Color::White, TACTILE, sighted, completion),
        guidance_repeat_ms: 10_000,
        say_own_move: true,
        correction_window_ms: 0,
    }
}

fn lift(sq: Square) -> SensorEvent {
    SensorEvent::Lift { square: sq }
}
fn put(sq: Square) -> SensorEvent {
    SensorEvent::Place {
        square: sq,
        piece: None,
    }
}
fn put_piece(sq: Square, p: Piece) -> SensorEvent {
    SensorEvent::Place {
        square: sq,
        piece: Some(p),
    }
}
/// The colour of the blind player (the tests' tables have one).
fn blind_seat(a: &Arbiter) -> Color {
    a.config().the_blind().expect("one blind player")
}
fn blind(a: &mut Arbiter, e: SensorEvent, t: Millis) -> Vec<Effect> {
    let seat = blind_seat(a);
    a.handle(Input::Board { seat, event: e }, t)
}
fn sighted(a: &mut Arbiter, e: SensorEvent, t: Millis) -> Vec<Effect> {
    let seat = !blind_seat(a);
    a.handle(Input::Board { seat, event: e }, t)
}
/// The blind player's tactile board.
fn tactile(a: &Arbiter) -> &crate::board::recognize::Recognizer {
    a.board(blind_seat(a)).expect("a tactile board")
}
/// The sighted player's board, if it has sensors.
fn sighted_board(a: &Arbiter) -> Option<&crate::board::recognize::Recognizer> {
    a.board(!blind_seat(a))
}
/// Who hears what concerns the players at the tests' usual table (`config`: the blind player is
/// White).
const BLIND: Audience = Audience::Player(Color::White);
const SIGHTED: Audience = Audience::Player(Color::Black);
/// What `effects` say to both players, in order.
fn both(effects: &[Effect]) -> Vec<Announcement> {
    said(effects)
        .into_iter()
        .filter(|(_, audience, _)| *audience == Audience::Both)
        .map(|(_, _, words)| words)
        .collect()
}

fn said(effects: &[Effect]) -> Vec<(u64, Audience, Announcement)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Say {
                id,
                audience,
                announcement,
            } => Some((*id, *audience, announcement.clone())),
            _ => None,
        })
        .collect()
}
fn notes(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| {
            if let Effect::Note(n) | Effect::Refused(n) = e {
                Some(n.clone())
            } else {
                None
            }
        })
        .collect()
}
fn words(p: &Chess, san: &str) -> MoveWords {
    MoveWords::new(p, san.parse::<San>().unwrap().to_move(p).unwrap())
}

/// Run ticks up to `until`.
fn run(a: &mut Arbiter, until: Millis) -> Vec<Effect> {
    let mut out = Vec::new();
    for _ in 0..100 {
        match a.next_deadline() {
            Some(d) if d <= until => out.extend(a.handle(Input::Tick, d)),
            _ => break,
        }
    }
    out.extend(a.handle(Input::Tick, until));
    out
}

#[test]
fn the_blind_players_move_counts_when_its_announcement_has_finished() {
    let mut a = Arbiter::new(config(Some(DGT), Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 4_000);
    let out = blind(&mut a, put(Square::E4), 5_000);
    let says = said(&out);
    // Announced to the sighted player, and said back to the blind player (F.1).
    assert_eq!(says.len(), 2, "{says:?}");
    let (id, audience, announcement) = says[0].clone();
    assert_eq!(audience, SIGHTED);
    assert_eq!(
        announcement,
        Announcement::Move(words(&Chess::default(), "e4"))
    );
    assert_eq!(
        (says[1].1, says[1].2.clone()),
        (BLIND, Announcement::OwnMove(words(&Chess::default(), "e4")))
    );
    // Not yet executed under F.3 c: White's clock still runs while the move is announced.
    assert_eq!(a.game().ply(), 0);
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::White));
    let out = a.handle(Input::SpeechFinished { id }, 6_500);
    assert!(out.contains(&Effect::RecordChanged));
    assert_eq!(a.game().ply(), 1);
    assert_eq!(
        a.game().clock().unwrap().remaining(Color::White, 6_500),
        300_000 - 6_500
    );
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::Black));
    // The sighted player executes 1.e4 on his board; then it is his move there.
    assert_eq!(
        sighted_board(&a).unwrap().mode(),
        Mode::Execute(Move::Normal {
            role: Role::Pawn,
            from: Square::E2,
            capture: None,
            to: Square::E4,
            promotion: None
        })
    );
    sighted(&mut a, lift(Square::E2), 7_000);
    sighted(&mut a, put_piece(Square::E4, Color::White.pawn()), 7_200);
    run(&mut a, 8_000);
    assert_eq!(sighted_board(&a).unwrap().mode(), Mode::Move);
}

#[test]
fn the_sighted_move_completes_on_the_press_and_the_blind_player_is_guided_to_execute_it() {
    let mut a = Arbiter::new(config(Some(DGT), Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    let id = said(&out)[0].0;
    a.handle(Input::SpeechFinished { id }, 2_000);
    sighted(&mut a, lift(Square::E2), 2_500);
    sighted(&mut a, put_piece(Square::E4, Color::White.pawn()), 2_600);
    run(&mut a, 3_000);
    // Black answers 1...e5 on the DGT board and presses his clock.
    sighted(&mut a, lift(Square::E7), 10_000);
    sighted(&mut a, put_piece(Square::E5, Color::Black.pawn()), 10_200);
    run(&mut a, 10_600);
    assert_eq!(a.game().ply(), 1, "no press yet");
    let after_e4 = a.game().position().clone();
    let out = a.handle(Input::ClockPress, 11_000);
    assert_eq!(a.game().ply(), 2);
    assert_eq!(said(&out)[0].1, BLIND);
    assert_eq!(said(&out)[0].2, Announcement::Move(words(&after_e4, "e5")));
    assert_eq!(
        a.game().clock().unwrap().running(),
        Some(Color::White),
        "his clock runs while he hears and executes"
    );
    // He executes it wrongly: the pawn to e6.
    blind(&mut a, lift(Square::E7), 12_000);
    blind(&mut a, put(Square::E6), 12_500);
    let out = run(&mut a, 14_000);
    let guidance: Vec<_> = said(&out).into_iter().map(|s| s.2).collect();
    assert_eq!(
        guidance,
        vec![Announcement::Guidance(Guidance::Misplaced {
            piece: Color::Black.pawn(),
            found: Square::E6,
            belongs: Square::E5
        })]
    );
    // Told again until it matches.
    let out = run(&mut a, 24_000);
    assert_eq!(said(&out).len(), 1);
    // Corrected: now it is his move on his board.
    blind(&mut a, lift(Square::E6), 25_000);
    blind(&mut a, put(Square::E5), 25_500);
    assert_eq!(tactile(&a).mode(), Mode::Move);
    let out = run(&mut a, 40_000);
    assert!(
        said(&out).is_empty(),
        "no more guidance once the board matches"
    );
}

#[test]
fn an_impossible_move_on_the_tactile_board_is_not_announced() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::G1), 1_000);
    let out = blind(&mut a, put(Square::G3), 1_200);
    assert!(said(&out).is_empty());
    let out = run(&mut a, 3_000);
    let says: Vec<_> = said(&out).into_iter().map(|s| (s.1, s.2)).collect();
    assert_eq!(says[0], (BLIND, Announcement::IllegalMove));
    assert_eq!(
        says[1],
        (
            BLIND,
            Announcement::Guidance(Guidance::Misplaced {
                piece: Color::White.knight(),
                found: Square::G3,
                belongs: Square::G1
            })
        )
    );
    assert_eq!(a.game().ply(), 0);
    // He puts the knight where it can go: Nf3 is announced.
    blind(&mut a, lift(Square::G3), 4_000);
    let out = blind(&mut a, put(Square::F3), 4_500);
    assert_eq!(
        said(&out)[0].2,
        Announcement::Move(words(&Chess::default(), "Nf3"))
    );
}

#[test]
fn a_touch_sequence_that_may_give_a_claim_is_reported_and_play_goes_on() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    // The knight is lifted and put back, then the e-pawn is played.
    let out = blind(&mut a, lift(Square::G1), 1_000);
    assert!(out.contains(&Effect::Touch {
        seat: Color::White,
        square: Square::G1,
        piece: Some(Color::White.knight())
    }));
    blind(&mut a, put(Square::G1), 1_500);
    blind(&mut a, lift(Square::E2), 2_000);
    let out = blind(&mut a, put(Square::E4), 2_500);
    let n = notes(&out);
    assert!(
        n.iter()
            .any(|l| l.contains("Art. 4.3 a") && l.contains("g1") && l.contains("e4")),
        "{n:?}"
    );
    let to_sighted = said(&out)
        .into_iter()
        .filter(|(_, audience, _)| *audience == SIGHTED)
        .count();
    assert_eq!(to_sighted, 1, "the move is announced all the same");
}

#[test]
fn a_wrongly_announced_move_is_corrected_before_the_opponents_clock_starts() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    let first = said(&out)[0].0;
    // He meant e3 (F.6: corrected before the opponent's clock starts).
    let out = a.handle(Input::Correct("e3".into()), 2_000);
    let (second, audience, announcement) = said(&out)[0].clone();
    assert_eq!(audience, SIGHTED);
    assert_eq!(
        announcement,
        Announcement::Move(words(&Chess::default(), "e3"))
    );
    // The first announcement finishing starts nothing; the corrected one alone neither: the
    // corrected move must stand on his board too (F.3 b), and he is guided to it.
    a.handle(Input::SpeechFinished { id: first }, 2_500);
    assert_eq!(a.game().ply(), 0);
    a.handle(Input::SpeechFinished { id: second }, 3_000);
    assert_eq!(a.game().ply(), 0, "not before the board shows e3");
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::White));
    let out = run(&mut a, 5_000);
    assert!(
        said(&out)
            .iter()
            .any(|(_, audience, announcement)| *audience == BLIND
                && matches!(announcement, Announcement::Guidance(_))),
        "{out:?}"
    );
    blind(&mut a, lift(Square::E4), 6_000);
    let out = blind(&mut a, put(Square::E3), 6_500);
    assert!(out.contains(&Effect::RecordChanged), "{out:?}");
    assert_eq!(a.game().moves()[0].san.to_string(), "e3");
    assert_eq!(
        a.game().moves()[0].at,
        6_500,
        "it counts when it stands there"
    );
    // Too late afterwards.
    let out = a.handle(Input::Correct("e4".into()), 4_000);
    assert!(notes(&out).iter().any(|n| n.contains("too late")));
}

#[test]
fn manual_sighted_moves_count_when_the_clock_is_pressed() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::D2), 1_000);
    let out = blind(&mut a, put(Square::D4), 1_500);
    a.handle(
        Input::SpeechFinished {
            id: said(&out)[0].0,
        },
        2_000,
    );
    let out = a.handle(Input::EnterMove("nf6".into()), 5_000);
    assert!(
        notes(&out).iter().any(|n| n.contains("Nf6 entered")),
        "{out:?}"
    );
    assert_eq!(a.game().ply(), 1);
    let out = a.handle(Input::ClockPress, 6_000);
    assert_eq!(a.game().ply(), 2);
    assert_eq!(said(&out)[0].1, BLIND);
    let out = a.handle(Input::EnterMove("Qxh7".into()), 7_000);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("not the sighted player's move"))
    );
}

#[test]
fn disputed_scoresheets_retrace_the_game_and_the_clocks_are_confirmed() {
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
        let out = a.handle(Input::ClockPress, t + 3_500);
        // He executes the reply on his board; 2...Nc6 wrongly, on a6: the boards differ.
        let m = a.game().moves().last().unwrap().mv;
        let to = if reply == "Nc6" { Square::A6 } else { m.to() };
        blind(&mut a, lift(m.from().unwrap()), t + 4_000);
        blind(&mut a, put(to), t + 4_500);
        assert!(!said(&out).is_empty());
        t += 10_000;
    }
    run(&mut a, t);
    assert_eq!(a.game().ply(), 4);
    let proposed = a.game().clocks_after_ply(2).unwrap();
    // Black's own scoresheet has 2.Nc3 Nc6 (in German letters, as he writes): with one sheet
    // entered the other is asked for.
    let sheet = |sans: &[&str]| sans.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let out = a.handle(
        Input::Scoresheet {
            side: Color::Black,
            sans: sheet(&["e4", "e5", "Sc3", "Sc6"]),
        },
        t,
    );
    assert_eq!(a.game().ply(), 4);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("enter white's scoresheet too")),
        "{out:?}"
    );
    // White's agrees with the record: the two scores agree on two half-moves, and the arbiter
    // is offered to take the game back there; it is, at his `confirm`.
    let out = a.handle(
        Input::Scoresheet {
            side: Color::White,
            sans: sheet(&["e4", "e5", "Nf3", "Nc6"]),
        },
        t,
    );
    assert_eq!(a.game().ply(), 4);
    assert!(
        notes(&out).iter().any(|n| n.contains(
            "agree for 2 half-moves: retrace the game to after 1... e5? `confirm` retraces it"
        )),
        "{out:?}"
    );
    let out = a.handle(Input::Confirm, t);
    assert_eq!(a.game().ply(), 2);
    assert!(notes(&out).iter().any(|n| n.contains("retraced")));
    assert!(a.game().clock().unwrap().is_paused());
    // Both boards must go back to the position after 1... e5: the tactile board shows Nf3 and Nc6.
    let out = run(&mut a, t + 2_000);
    let guidance: Vec<_> = said(&out).into_iter().filter(|s| s.1 == BLIND).collect();
    assert_eq!(
        guidance.into_iter().map(|s| s.2).collect::<Vec<_>>(),
        vec![
            Announcement::Guidance(Guidance::Misplaced {
                piece: Color::White.knight(),
                found: Square::F3,
                belongs: Square::G1
            }),
            Announcement::Guidance(Guidance::Misplaced {
                piece: Color::Black.knight(),
                found: Square::A6,
                belongs: Square::B8
            }),
        ]
    );
    let out = a.handle(Input::ConfirmClocks, t + 5_000);
    assert!(
        said(&out)
            .iter()
            .any(|s| s.2 == Announcement::ClocksResumed)
    );
    assert_eq!(
        a.game().clock().unwrap().remaining(Color::White, t + 5_000),
        proposed.white
    );
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::White));
}

#[test]
fn a_draw_offer_reaches_the_other_player_and_a_touch_rejects_it() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let out = a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::Black }),
        500,
    );
    assert_eq!(said(&out)[0].1, BLIND);
    assert_eq!(
        said(&out)[0].2,
        Announcement::DrawOffered { by: Color::Black }
    );
    let out = blind(&mut a, lift(Square::E2), 1_000);
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == SIGHTED && s.2 == Announcement::DrawDeclined { by: Color::White })
    );
    assert_eq!(a.game().draw_offer(), None);
}

/// What `audience` heard in `effects`, in order.
fn heard(effects: &[Effect], audience: Audience) -> Vec<Announcement> {
    said(effects)
        .into_iter()
        .filter(|s| s.1 == audience)
        .map(|s| s.2)
        .collect()
}

/// After 1.e4 with the sighted player's board showing it: Black, sighted, to move.
fn black_to_move(sighted_board: Option<RecognizerConfig>, completion: Completion) -> Arbiter {
    let mut a = Arbiter::new(config(sighted_board, completion), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 2_000);
    let id = said(&out)[0].0;
    a.handle(Input::SpeechFinished { id }, 3_000);
    if sighted_board.is_some() {
        sighted(&mut a, lift(Square::E2), 3_500);
        sighted(&mut a, put_piece(Square::E4, Color::White.pawn()), 3_600);
        run(&mut a, 4_000);
    }
    assert_eq!(a.game().ply(), 1);
    a
}

#[test]
fn a9_1_b_an_offer_made_with_a_move_is_said_after_that_move() {
    // Issue 26: "Remis angeboten" came before the move it belongs to. 9.1 b: the sighted player
    // makes his move, offers, then stops his clock; the blind player hears the move, then the
    // offer.
    let offer = Input::Rules(game::Input::OfferDraw { by: Color::Black });
    let after_e4 = black_to_move(None, Completion::ClockPress)
        .game()
        .position()
        .clone();
    let e5 = Announcement::Move(words(&after_e4, "e5"));
    let offered = Announcement::DrawOffered { by: Color::Black };

    // On the DGT board, his clock press completing the move.
    let mut a = black_to_move(Some(DGT), Completion::ClockPress);
    let mut out = sighted(&mut a, lift(Square::E7), 5_000);
    out.extend(sighted(
        &mut a,
        put_piece(Square::E5, Color::Black.pawn()),
        5_200,
    ));
    out.extend(run(&mut a, 5_600));
    let at_offer = a.handle(offer.clone(), 6_000);
    assert!(heard(&at_offer, BLIND).is_empty(), "{at_offer:?}");
    assert!(
        notes(&at_offer)
            .iter()
            .any(|n| n.contains("after that move")),
        "{at_offer:?}"
    );
    assert_eq!(
        a.game().draw_offer(),
        Some(Color::Black),
        "the offer stands"
    );
    out.extend(at_offer);
    out.extend(a.handle(Input::ClockPress, 6_500));
    assert_eq!(heard(&out, BLIND), [e5.clone(), offered.clone()]);
    // The record has the offer with his move (E.12).
    assert_eq!(a.game().offers()[0].on_ply, 2);

    // On the DGT board, the move counting when the board settles: offered as soon as he let go.
    let mut a = black_to_move(Some(DGT), Completion::Settle);
    let mut out = sighted(&mut a, lift(Square::E7), 5_000);
    out.extend(sighted(
        &mut a,
        put_piece(Square::E5, Color::Black.pawn()),
        5_200,
    ));
    out.extend(a.handle(offer.clone(), 5_250));
    out.extend(run(&mut a, 6_000));
    assert_eq!(a.game().ply(), 2);
    assert_eq!(heard(&out, BLIND), [e5.clone(), offered.clone()]);

    // On a board without sensors: the assistant enters the move, the offer, then the press.
    let mut a = black_to_move(None, Completion::ClockPress);
    let mut out = a.handle(Input::EnterMove("e5".into()), 5_000);
    out.extend(a.handle(offer.clone(), 5_100));
    out.extend(a.handle(Input::ClockPress, 5_200));
    assert_eq!(heard(&out, BLIND), [e5, offered]);
}

#[test]
fn a9_1_b_an_offer_without_a_move_under_way_is_said_at_once() {
    // Made while he thinks (any other time, still valid): the opponent hears it now.
    let mut a = black_to_move(Some(DGT), Completion::ClockPress);
    let out = a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::Black }),
        5_000,
    );
    assert_eq!(
        heard(&out, BLIND),
        [Announcement::DrawOffered { by: Color::Black }]
    );
    // The blind player's move is said as soon as it stands: an offer after it follows it.
    let mut a = Arbiter::new(config(Some(DGT), Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let mut out = blind(&mut a, put(Square::E4), 1_500);
    out.extend(a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::White }),
        1_600,
    ));
    assert_eq!(
        heard(&out, SIGHTED),
        [
            Announcement::Move(words(&Chess::default(), "e4")),
            Announcement::DrawOffered { by: Color::White }
        ]
    );
    // Offered with the piece in his hand: said after the move it goes with.
    let mut a = Arbiter::new(config(Some(DGT), Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let mut out = blind(&mut a, lift(Square::D2), 1_000);
    out.extend(a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::White }),
        1_100,
    ));
    assert!(heard(&out, SIGHTED).is_empty(), "{out:?}");
    out.extend(blind(&mut a, put(Square::D4), 1_500));
    assert_eq!(
        heard(&out, SIGHTED),
        [
            Announcement::Move(words(&Chess::default(), "d4")),
            Announcement::DrawOffered { by: Color::White }
        ]
    );
    // An offer withdrawn by the game's end before its move is never said.
    let mut a = black_to_move(None, Completion::ClockPress);
    a.handle(Input::EnterMove("e5".into()), 5_000);
    a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::Black }),
        5_100,
    );
    let out = a.handle(
        Input::Rules(game::Input::Resign { by: Color::Black }),
        5_200,
    );
    assert!(
        !heard(&out, BLIND).contains(&Announcement::DrawOffered { by: Color::Black }),
        "{out:?}"
    );
}

#[test]
fn mate_ends_the_game_with_the_result_for_both() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let mut t = 1_000;
    for (from, to, reply) in [
        (Square::E2, Square::E4, "f6"),
        (Square::D1, Square::F3, "g5"),
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
        blind(&mut a, lift(m.from().unwrap()), t + 4_000);
        blind(&mut a, put(m.to()), t + 4_500);
        t += 10_000;
    }
    blind(&mut a, lift(Square::F3), t);
    let out = blind(&mut a, put(Square::H5), t + 500);
    let id = said(&out)[0].0;
    let out = a.handle(Input::SpeechFinished { id }, t + 1_000);
    assert!(out.iter().any(|e| matches!(e, Effect::GameOver(_))));
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == Audience::Both && s.2 == Announcement::Result(ResultWords::WhiteWins))
    );
    assert_eq!(tactile(&a).mode(), Mode::Hold);
    assert!(a.game().position().is_checkmate());
}

#[test]
fn a_sighted_move_that_ends_the_game_is_said_before_the_result() {
    let mut p = Chess::default();
    for s in ["f3", "e5", "g4"] {
        let m = s.parse::<San>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(m);
    }
    let mut a = Arbiter::new(config(None, Completion::ClockPress), p.clone());
    a.handle(Input::Start, 0);
    a.handle(Input::EnterMove("Qh4#".into()), 1_000);
    let out = a.handle(Input::ClockPress, 2_000);
    let says: Vec<_> = said(&out).into_iter().map(|s| (s.1, s.2)).collect();
    assert_eq!(says[0], (BLIND, Announcement::Move(words(&p, "Qh4#"))));
    assert_eq!(
        says.last().unwrap(),
        &(Audience::Both, Announcement::Result(ResultWords::BlackWins))
    );
    // His board still shows the position before the mate: nothing to correct, nothing refused.
    let out = run(&mut a, 30_000);
    assert!(said(&out).is_empty(), "{out:?}");
    assert!(
        notes(&out).iter().all(|n| !n.contains("refused")),
        "{out:?}"
    );
}

/// White (blind) plays e4 on his board; its announcement finishes at 3 s.
fn after_e4(sighted_board: Option<RecognizerConfig>) -> Arbiter {
    let mut a = Arbiter::new(
        config(sighted_board, Completion::ClockPress),
        Chess::default(),
    );
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 2_000);
    let id = said(&out)[0].0;
    a.handle(Input::SpeechFinished { id }, 3_000);
    assert_eq!(a.game().ply(), 1);
    a
}

#[test]
fn a_sealed_move_is_made_on_both_boards_when_the_envelope_is_opened() {
    let mut a = after_e4(Some(DGT));
    // The sighted player executes e4 on his board, then Black (sighted) seals.
    sighted(&mut a, lift(Square::E2), 3_500);
    sighted(
        &mut a,
        put_piece(Square::E4, Piece::from_char('P').unwrap()),
        3_600,
    );
    run(&mut a, 4_000);
    let out = a.handle(
        Input::Rules(game::Input::Seal {
            by: Color::Black,
            text: "c5".into(),
            notation: None,
        }),
        10_000,
    );
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == Audience::Both && s.2 == Announcement::Adjourned { by: Color::Black }),
        "{out:?}"
    );
    // Both boards hold still; nothing Black does on his board counts.
    assert_eq!(tactile(&a).mode(), Mode::Hold);
    assert_eq!(sighted_board(&a).unwrap().mode(), Mode::Hold);
    let before = a.game().position().clone();
    let out = a.handle(Input::Rules(game::Input::OpenEnvelope), 20_000);
    let says = said(&out);
    assert_eq!(says[0].2, Announcement::EnvelopeOpened);
    assert_eq!(says[1].1, Audience::Both);
    assert_eq!(says[1].2, Announcement::Move(words(&before, "c5")));
    let c5 = before
        .legal_moves()
        .into_iter()
        .find(|m| m.to() == Square::C5)
        .unwrap();
    // Neither board shows it yet: each waits for it.
    assert_eq!(tactile(&a).mode(), Mode::Execute(c5));
    assert_eq!(sighted_board(&a).unwrap().mode(), Mode::Execute(c5));
    // The sighted player makes it first; the tactile board keeps waiting for it.
    sighted(&mut a, lift(Square::C7), 21_000);
    sighted(
        &mut a,
        put_piece(Square::C5, Piece::from_char('p').unwrap()),
        21_100,
    );
    run(&mut a, 22_000);
    assert_eq!(tactile(&a).mode(), Mode::Execute(c5));
    blind(&mut a, lift(Square::C7), 23_000);
    blind(&mut a, put(Square::C5), 23_100);
    run(&mut a, 24_000);
    // Now White (blind) is to move on his board; the sighted board awaits his move.
    assert_eq!(tactile(&a).mode(), Mode::Move);
    assert_eq!(sighted_board(&a).unwrap().mode(), Mode::Await);
}

#[test]
fn no_move_is_sealed_while_one_is_being_announced() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    blind(&mut a, put(Square::E4), 2_000);
    let out = a.handle(
        Input::Rules(game::Input::Seal {
            by: Color::White,
            text: "d4".into(),
            notation: None,
        }),
        2_100,
    );
    assert!(
        matches!(out.as_slice(), [Effect::Refused(r)] if r.contains("a move stands on a board")),
        "{out:?}"
    );
    assert!(a.game().adjournment().is_none());
}

#[test]
fn an_adjusted_piece_is_not_touched() {
    let mut a = after_e4(None);
    // Black (sighted, manual board) offers a draw; White adjusts his knight (j'adoube) and
    // then plays d4: the offer stands until his move, and no claim under 4.3 is reported.
    a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::Black }),
        3_500,
    );
    a.handle(Input::EnterMove("e5".into()), 4_000);
    a.handle(Input::ClockPress, 4_100);
    blind(&mut a, lift(Square::E7), 5_000);
    blind(&mut a, put(Square::E5), 5_100);
    run(&mut a, 6_000);
    a.handle(
        Input::Rules(game::Input::OfferDraw { by: Color::Black }),
        6_500,
    );
    let out = a.handle(
        Input::Adjust {
            by: Color::White,
            square: Square::G1,
        },
        7_000,
    );
    assert!(
        notes(&out).iter().any(|n| n.contains("j'adoube")),
        "{out:?}"
    );
    let out = blind(&mut a, lift(Square::G1), 7_500);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("blind player adjusted")),
        "{out:?}"
    );
    assert_eq!(
        a.game().draw_offer(),
        Some(Color::Black),
        "the offer stands"
    );
    let mut out = blind(&mut a, put(Square::G1), 7_600);
    out.extend(blind(&mut a, lift(Square::D2), 8_000));
    out.extend(blind(&mut a, put(Square::D4), 8_100));
    out.extend(run(&mut a, 9_000));
    assert!(
        !notes(&out).iter().any(|n| n.contains("4.3")),
        "an adjusted piece gives no claim: {out:?}"
    );
    // Without the j'adoube, the same touch would have been reported (the next move).
}

#[test]
fn a_takeback_holds_both_boards_until_the_clocks_run_again() {
    let mut a = after_e4(None);
    a.handle(Input::EnterMove("e5".into()), 4_000);
    a.handle(Input::ClockPress, 4_100);
    blind(&mut a, lift(Square::E7), 5_000);
    blind(&mut a, put(Square::E5), 5_100);
    run(&mut a, 6_000);
    assert_eq!(tactile(&a).mode(), Mode::Move);
    let out = a.handle(Input::Rules(game::Input::Retract { to_ply: 1 }), 7_000);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.starts_with("proposed clocks:")),
        "{out:?}"
    );
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == Audience::Both && s.2 == Announcement::Retraced { side: Color::Black }),
        "{out:?}"
    );
    assert_eq!(a.game().ply(), 1);
    assert!(a.game().clock().unwrap().is_paused());
    // The tactile board still shows e5: it is guided back and nobody moves.
    assert_eq!(tactile(&a).mode(), Mode::Hold);
    let out = run(&mut a, 7_000 + 1_600);
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == BLIND && matches!(s.2, Announcement::Guidance(_))),
        "{out:?}"
    );
    blind(&mut a, lift(Square::E5), 8_800);
    blind(&mut a, put(Square::E7), 8_900);
    run(&mut a, 9_500);
    assert_eq!(tactile(&a).mode(), Mode::Hold);
    // The arbiter lets the game go on: Black (sighted) to move; the tactile board holds.
    let out = a.handle(
        Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
        10_000,
    );
    assert!(
        said(&out)
            .iter()
            .any(|s| s.2 == Announcement::ClocksResumed),
        "{out:?}"
    );
    assert_eq!(a.game().clock().unwrap().running(), Some(Color::Black));
    a.handle(Input::EnterMove("c5".into()), 11_000);
    let out = a.handle(Input::ClockPress, 11_100);
    assert!(out.contains(&Effect::RecordChanged), "{out:?}");
    assert_eq!(a.game().ply(), 2);
    assert!(matches!(tactile(&a).mode(), Mode::Execute(_)));
}

// --- The table never gets stuck: boards judged by what they show, every refusal said. ---

const DGT_SWEEP: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Identity,
    settle_ms: 60,
    scan_ms: 255,
    bounce_ms: 0,
    differs_after_ms: 2000,
    confirm_with_snapshot: true,
};

/// A table with a sweeping DGT board whose moves count on the clock press; `blind`'s colour.
fn sweep_config(blind: Color) -> ArbiterConfig {
    ArbiterConfig {
        seats: one_blind(blind, TACTILE, Some(DGT_SWEEP), Completion::ClockPress),
        ..config(None, Completion::ClockPress)
    }
}

fn pos_after(sans: &str) -> Chess {
    let mut p = Chess::default();
    for s in sans.split_whitespace() {
        let m = s.parse::<San>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(m);
    }
    p
}

/// Answer every board reading the effects ask for with what `board` shows, `delay` ms later.
fn readings(a: &mut Arbiter, out: &[Effect], shown: &shakmaty::Board, t: Millis) -> Vec<Effect> {
    let mut more = Vec::new();
    for e in out {
        if *e
            == (Effect::RequestSnapshot {
                seat: !blind_seat(a),
            })
        {
            more.extend(sighted(
                a,
                SensorEvent::Snapshot(crate::board::Sensed::Pieces(shown.clone())),
                t,
            ));
        }
    }
    more
}

fn move_said_to(out: &[Effect], audience: Audience) -> Option<MoveWords> {
    said(out).into_iter().find_map(|(_, a, ann)| match ann {
        Announcement::Move(w) if a == audience => Some(w),
        _ => None,
    })
}

/// Finish every announcement at `t`.
fn finish_speech(a: &mut Arbiter, out: &[Effect], t: Millis) -> Vec<Effect> {
    let mut more = Vec::new();
    for (id, _, _) in said(out) {
        more.extend(a.handle(Input::SpeechFinished { id }, t));
    }
    more
}

/// The blind White player hears ...Nc6 said aloud and executes it 50 ms after the sighted player
/// placed it, long before it counts; then plays 3.Bc4, which must be recognised (the reported
/// repro of the issue).
#[test]
fn the_blind_player_executes_the_opponents_move_before_it_is_announced() {
    let cfg = config(Some(DGT_SWEEP), Completion::Settle);
    let start = pos_after("e4 e5 Nf3");
    let mut a = Arbiter::new(cfg, start.clone());
    a.handle(Input::Start, 0);
    let n = Piece::from_char('n').unwrap();
    // The sighted player plays ...Nc6 on his board.
    sighted(&mut a, lift(Square::B8), 1_000);
    let out = sighted(&mut a, put_piece(Square::C6, n), 1_200);
    // The blind player, having heard it said, executes it at once on his board.
    blind(&mut a, lift(Square::B8), 1_250);
    let early = blind(&mut a, put(Square::C6), 1_250);
    assert!(
        said(&early).is_empty(),
        "no difference is reported: {early:?}"
    );
    assert_eq!(a.game().ply(), 0, "(the game starts after 1.e4 e5 2.Nf3)");
    // The sighted board's reading confirms ...Nc6; it counts after its rest (a sweep).
    let shown = pos_after("e4 e5 Nf3 Nc6").board().clone();
    let mut out = readings(&mut a, &out, &shown, 1_270);
    out.extend(run(&mut a, 2_000));
    assert_eq!(a.game().ply(), 1, "{out:?}");
    assert!(move_said_to(&out, BLIND).is_some());
    // His board already shows it: executed, it is his move now.
    assert_eq!(tactile(&a).mode(), Mode::Move);
    blind(&mut a, lift(Square::F1), 3_000);
    let out = blind(&mut a, put(Square::C4), 3_300);
    let words = move_said_to(&out, SIGHTED).expect("3.Bc4 is announced");
    assert_eq!(
        words,
        MoveWords::new(
            &pos_after("e4 e5 Nf3 Nc6"),
            mv_of(&pos_after("e4 e5 Nf3 Nc6"), "Bc4")
        )
    );
}

fn mv_of(p: &Chess, san: &str) -> Move {
    san.parse::<San>().unwrap().to_move(p).unwrap()
}

/// The same with a capture executed ahead, the captured piece lifted after the mover: the capture
/// rule still sees the whole capture once the move counts.
#[test]
fn a_capture_executed_ahead_in_either_order_counts_as_executed() {
    let cfg = config(None, Completion::ClockPress);
    let start = pos_after("e4 d5");
    let mut a = Arbiter::new(cfg, start);
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::D5), 900);
    blind(&mut a, lift(Square::E4), 1_000);
    let out = blind(&mut a, put(Square::D5), 1_100);
    let out = finish_speech(&mut a, &out, 1_200);
    assert!(out.contains(&Effect::RecordChanged));
    assert_eq!(a.game().ply(), 1);
    // Black recaptures ...Qxd5; the blind player executes it ahead, queen lifted first, then
    // his own pawn taken off, then the queen placed.
    blind(&mut a, lift(Square::D8), 2_000);
    blind(&mut a, lift(Square::D5), 2_200);
    let out = blind(&mut a, put(Square::D5), 2_400);
    assert!(said(&out).is_empty());
    let out = a.handle(Input::EnterMove("Qxd5".into()), 3_000);
    assert!(notes(&out).iter().any(|n| n.contains("Qxd5 entered")));
    let out = a.handle(Input::ClockPress, 3_100);
    assert_eq!(a.game().ply(), 2, "{out:?}");
    assert_eq!(tactile(&a).mode(), Mode::Move, "executed already");
}

/// 6.12: a move made while the clocks stand is held, its player hears so, and it counts when
/// the arbiter resumes (announced then, clocks as the Laws say).
#[test]
fn a_move_made_while_the_clocks_are_paused_counts_when_they_run_again() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    a.handle(
        Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
        1_000,
    );
    blind(&mut a, lift(Square::E2), 2_000);
    let out = blind(&mut a, put(Square::E4), 2_500);
    let says = said(&out);
    assert_eq!(says.len(), 1, "{out:?}");
    assert_eq!(
        (says[0].1, says[0].2.clone()),
        (BLIND, Announcement::MoveHeld)
    );
    assert!(move_said_to(&out, SIGHTED).is_none(), "not announced yet");
    assert_eq!(a.game().ply(), 0);
    let white_before = a.game().clock().unwrap().remaining(Color::White, 9_000);
    // Resumed: the held move is announced now and counts when said.
    let out = a.handle(
        Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
        9_000,
    );
    assert!(move_said_to(&out, SIGHTED).is_some(), "{out:?}");
    let out = finish_speech(&mut a, &out, 9_400);
    assert!(out.contains(&Effect::RecordChanged));
    assert_eq!(a.game().ply(), 1);
    assert_eq!(a.game().moves()[0].at, 9_400);
    // His clock ran from the resumption to the end of the announcement (F.3 c), plus the
    // increment of the test's control (none).
    let clock = a.game().clock().unwrap();
    assert_eq!(clock.remaining(Color::White, 9_400), white_before - 400);
    assert_eq!(clock.running(), Some(Color::Black));
}

/// 6.12 for the recording (the daemon's journal cannot be written): the clocks stop and run
/// again as in any pause, a move made meanwhile is held, and both players hear why in the words
/// that stop and start the clocks ("recording failed, clocks stopped"; "recording restored",
/// "clocks running again"), not the ordinary pause's words beside them.
#[test]
fn a_pause_for_the_recording_says_why_and_holds_like_any_pause() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let recording = game::PauseReason::Recording;
    let out = a.handle(Input::Rules(game::Input::Pause(recording)), 1_000);
    assert_eq!(both(&out), [Announcement::RecordingHalted], "{out:?}");
    assert!(a.game().clock().unwrap().is_paused());
    blind(&mut a, lift(Square::E2), 2_000);
    let out = blind(&mut a, put(Square::E4), 2_500);
    assert_eq!(said(&out)[0].2, Announcement::MoveHeld, "{out:?}");
    let out = a.handle(Input::Rules(game::Input::Resume(recording)), 9_000);
    assert_eq!(
        both(&out),
        [Announcement::RecordingRestored, Announcement::ClocksResumed],
        "{out:?}"
    );
    assert!(move_said_to(&out, SIGHTED).is_some(), "{out:?}");
    let white = a.game().clock().unwrap().remaining(Color::White, 9_000);
    assert_eq!(white, 300_000 - 1_000, "his clock stood from 1 s to 9 s");
}

/// 6.12 for a training engine gone: both hear the engine's absence in the words that stop the
/// clocks ("the engine does not answer, clocks stopped"), once, not the ordinary pause's words
/// beside them; its return is said before "clocks running again".
#[test]
fn a_pause_for_the_engine_says_it_is_gone_once_and_its_return() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let opponent = game::PauseReason::Opponent;
    let out = a.handle(Input::Rules(game::Input::Pause(opponent)), 1_000);
    assert_eq!(said(&out).len(), 1, "{out:?}");
    assert_eq!(both(&out), [Announcement::OpponentAway], "{out:?}");
    assert!(a.game().clock().unwrap().is_paused());
    let out = a.handle(Input::Rules(game::Input::Resume(opponent)), 9_000);
    assert_eq!(
        both(&out),
        [Announcement::OpponentBack, Announcement::ClocksResumed],
        "{out:?}"
    );
    let white = a.game().clock().unwrap().remaining(Color::White, 9_000);
    assert_eq!(white, 300_000 - 1_000, "his clock stood from 1 s to 9 s");
}

/// The arbiter may take a held move back (`takeback` to the current ply): the board is guided
/// back and the player moves again.
#[test]
fn the_arbiter_takes_a_held_move_back() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    a.handle(
        Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
        1_000,
    );
    blind(&mut a, lift(Square::E2), 2_000);
    blind(&mut a, put(Square::E4), 2_500);
    let out = a.handle(Input::Rules(game::Input::Retract { to_ply: 0 }), 3_000);
    assert!(
        notes(&out)
            .iter()
            .any(|n| n.contains("held move is taken back")),
        "{out:?}"
    );
    let out = a.handle(
        Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
        4_000,
    );
    assert!(move_said_to(&out, SIGHTED).is_none(), "{out:?}");
    // He is guided back, puts the pawn back, and plays d4 instead.
    let out = run(&mut a, 8_000);
    assert!(
        said(&out)
            .iter()
            .any(|(_, aud, ann)| *aud == BLIND && matches!(ann, Announcement::Guidance(_)))
    );
    blind(&mut a, lift(Square::E4), 9_000);
    blind(&mut a, put(Square::E2), 9_200);
    blind(&mut a, lift(Square::D2), 10_000);
    let out = blind(&mut a, put(Square::D4), 10_200);
    let w = move_said_to(&out, SIGHTED).expect("d4 announced");
    assert_eq!(w.to, Square::D4);
}

/// A move made while a 10.2 claim awaits the arbiter's ruling is held the same way.
#[test]
fn a_move_made_while_a_quickplay_claim_awaits_the_ruling_is_held() {
    let cfg = ArbiterConfig {
        rules: RulesConfig {
            time_control: Some("100".parse::<TimeControl>().unwrap()),
            ..RulesConfig::default()
        },
        ..config(None, Completion::ClockPress)
    };
    let mut a = Arbiter::new(cfg, Chess::default());
    a.handle(Input::Start, 0);
    let out = a.handle(
        Input::Rules(game::Input::ClaimQuickplayDraw { by: Color::White }),
        1_000,
    );
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Refused(_))),
        "{out:?}"
    );
    blind(&mut a, lift(Square::E2), 2_000);
    let out = blind(&mut a, put(Square::E4), 2_500);
    assert!(
        said(&out)
            .iter()
            .any(|(_, aud, ann)| *aud == BLIND && *ann == Announcement::MoveHeld)
    );
    let out = a.handle(
        Input::Rules(game::Input::QuickplayRuling(game::QuickplayRuling::Reject)),
        5_000,
    );
    assert!(move_said_to(&out, SIGHTED).is_some(), "{out:?}");
    finish_speech(&mut a, &out, 5_300);
    assert_eq!(a.game().ply(), 1);
}

/// 9.5 b: after an incorrect claim the intended move must be played; another move is refused
/// aloud (he hears which move is required), never announced, and his board is guided back.
#[test]
fn a_move_other_than_the_compulsory_one_is_refused_aloud_and_guided_back() {
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
    // Incorrect: 9.5 b's penalty is offered to the arbiter, and applies at his `confirm`.
    assert_eq!(a.game().must_play(), None);
    a.handle(Input::Confirm, 600);
    assert_eq!(a.game().must_play(), Some(nf3));
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    let says = said(&out);
    assert!(
        says.iter().any(|(_, aud, ann)| *aud == BLIND
            && *ann
                == Announcement::MoveRequired {
                    mv: MoveWords::new(&Chess::default(), nf3)
                }),
        "{out:?}"
    );
    assert!(
        out.iter().any(
            |e| matches!(e, Effect::Refused(r) if r.contains("9.5") || r.contains("intended"))
        )
    );
    assert!(move_said_to(&out, SIGHTED).is_none());
    // Guided back; once the pawn is back he makes the required move, and it counts.
    let out = run(&mut a, 4_000);
    assert!(
        said(&out)
            .iter()
            .any(|(_, _, ann)| matches!(ann, Announcement::Guidance(_)))
    );
    blind(&mut a, lift(Square::E4), 5_000);
    let out = blind(&mut a, put(Square::E2), 5_200);
    assert!(said(&out).is_empty(), "{out:?}");
    assert_eq!(tactile(&a).mode(), Mode::Move);
    blind(&mut a, lift(Square::G1), 6_000);
    let out = blind(&mut a, put(Square::F3), 6_300);
    let out = finish_speech(&mut a, &out, 6_500);
    assert!(out.contains(&Effect::RecordChanged));
    assert_eq!(a.game().ply(), 1);

    // The same piece taken straight on to the required square counts at once: Nh3 refused,
    // the knight moved on to f3.
    let mut b = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    b.handle(Input::Start, 0);
    b.handle(
        Input::Rules(game::Input::Claim {
            by: Color::White,
            claim: game::DrawClaim::Repetition {
                intended: Some(nf3),
            },
        }),
        500,
    );
    b.handle(Input::Confirm, 600);
    blind(&mut b, lift(Square::G1), 1_000);
    let out = blind(&mut b, put(Square::H3), 1_500);
    assert!(
        out.iter().any(|e| matches!(e, Effect::Refused(_))),
        "{out:?}"
    );
    blind(&mut b, lift(Square::H3), 2_000);
    let out = blind(&mut b, put(Square::F3), 2_300);
    let w = move_said_to(&out, SIGHTED).expect("Nf3 announced");
    assert_eq!(w, MoveWords::new(&Chess::default(), nf3));
}

/// 6.7 a: the sighted player presses his clock 50 ms after placing his piece: the press is kept
/// and counts the move once the board can tell: a knight's move (nothing else could have made it,
/// its piece cannot still be travelling) at its reading, asked for at once; a pawn's single step
/// from its first rank (it may be on its way to a double step) once a sweep has passed since the
/// last change.
#[test]
fn a_press_right_after_the_placement_counts_the_move() {
    let cfg = sweep_config(Color::Black);
    let mut a = Arbiter::new(cfg.clone(), Chess::default());
    a.handle(Input::Start, 0);
    let n = Piece::from_char('N').unwrap();
    sighted(&mut a, lift(Square::G1), 1_000);
    let placed = sighted(&mut a, put_piece(Square::F3, n), 1_200);
    let shown = pos_after("Nf3").board().clone();
    let out = a.handle(Input::ClockPress, 1_250);
    let mut all = placed.clone();
    all.extend(out.clone());
    // The reading asked for when Nf3 appeared comes back 70 ms later and confirms it.
    let out = readings(&mut a, &all, &shown, 1_270);
    assert_eq!(a.game().ply(), 1, "{out:?}");
    assert_eq!(a.game().moves()[0].at, 1_270);
    assert!(move_said_to(&out, Audience::Player(Color::Black)).is_some());
    let p = Piece::from_char('P').unwrap();
    let mut a = Arbiter::new(cfg, Chess::default());
    a.handle(Input::Start, 0);
    sighted(&mut a, lift(Square::E2), 1_000);
    let placed = sighted(&mut a, put_piece(Square::E3, p), 1_200);
    let shown = pos_after("e3").board().clone();
    let out = a.handle(Input::ClockPress, 1_250);
    let mut all = placed.clone();
    all.extend(out.clone());
    let out = readings(&mut a, &all, &shown, 1_270);
    assert_eq!(a.game().ply(), 0, "not before a sweep has passed: {out:?}");
    let out = run(&mut a, 2_000);
    assert_eq!(a.game().ply(), 1, "{out:?}");
    assert_eq!(a.game().moves()[0].at, 1_200 + DGT_SWEEP.scan_ms);
    assert!(move_said_to(&out, Audience::Player(Color::Black)).is_some());
    // A press when the board already shows the move (confirmed, rested): counted at once.
    let r = Piece::from_char('R').unwrap();
    let mut b = Arbiter::new(sweep_config(Color::Black), pos_after("h4 a6"));
    b.handle(Input::Start, 0);
    sighted(&mut b, lift(Square::H1), 1_000);
    let out = sighted(&mut b, put_piece(Square::H3, r), 1_100);
    let shown = pos_after("h4 a6 Rh3").board().clone();
    readings(&mut b, &out, &shown, 1_170);
    let out = b.handle(Input::ClockPress, 5_000);
    assert_eq!(b.game().ply(), 1, "{out:?}");
    assert_eq!(b.game().moves()[0].at, 5_000, "counted at the press");
}

/// A press with no move on the board is answered aloud to the sighted side, once the board has
/// had a sweep to report a piece placed just before it.
#[test]
fn a_press_with_no_move_on_the_board_is_answered_aloud() {
    let cfg = sweep_config(Color::Black);
    let mut a = Arbiter::new(cfg, Chess::default());
    a.handle(Input::Start, 0);
    let out = a.handle(Input::ClockPress, 1_000);
    let start = Chess::default().board().clone();
    let out = readings(&mut a, &out, &start, 1_070);
    assert!(
        said(&out).is_empty(),
        "not before a sweep has passed: {out:?}"
    );
    let out = run(&mut a, 1_320);
    let out2 = readings(&mut a, &out, &start, 1_390);
    let says = said(&out2);
    assert_eq!(says.len(), 1, "{out2:?}");
    assert_eq!(
        (says[0].1, says[0].2.clone()),
        (Audience::Player(Color::White), Announcement::NoMoveToCount)
    );
    assert!(out2.iter().any(|e| matches!(e, Effect::Refused(_))));
    assert_eq!(a.game().ply(), 0);
    // On a plain board: at once.
    let mut b = Arbiter::new(
        ArbiterConfig {
            seats: one_blind(Color::Black, TACTILE, None, Completion::ClockPress),
            ..config(None, Completion::ClockPress)
        },
        Chess::default(),
    );
    b.handle(Input::Start, 0);
    let out = b.handle(Input::ClockPress, 1_000);
    assert!(
        said(&out)
            .iter()
            .any(|(_, aud, ann)| *aud == Audience::Player(Color::White)
                && *ann == Announcement::NoMoveToCount)
    );
}

/// 5.1 a, 5.2 a: under press completion a move that mates counts without a press.
#[test]
fn a_checkmate_counts_without_a_press() {
    let cfg = sweep_config(Color::White);
    // Fool's mate: 1.f3 e5 2.g4 Qh4#; Black (sighted) mates.
    let mut a = Arbiter::new(cfg, pos_after("f3 e5 g4"));
    a.handle(Input::Start, 0);
    let q = Piece::from_char('q').unwrap();
    sighted(&mut a, lift(Square::D8), 1_000);
    let out = sighted(&mut a, put_piece(Square::H4, q), 1_100);
    let shown = pos_after("f3 e5 g4 Qh4#").board().clone();
    let mut out = readings(&mut a, &out, &shown, 1_170);
    out.extend(run(&mut a, 2_000));
    assert!(a.game().is_over(), "{out:?}");
    assert_eq!(a.game().ply(), 1);
}

/// The blind player executes the opponent's move as he hears it said, then promotes at once and
/// says his piece (the assistant types it) before the opponent's move has counted: the piece is
/// kept, and his promotion counts with it once it is his move.
#[test]
fn a_promotion_piece_said_ahead_of_the_count_is_kept() {
    let start: Chess = "8/4P3/8/8/8/k7/8/K7 b - - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let mut a = Arbiter::new(config(None, Completion::ClockPress), start.clone());
    a.handle(Input::Start, 0);
    // ...Kb3 said aloud; he executes it and promotes on e8 at once.
    blind(&mut a, lift(Square::A3), 1_000);
    blind(&mut a, put(Square::B3), 1_200);
    blind(&mut a, lift(Square::E7), 1_500);
    blind(&mut a, put(Square::E8), 1_700);
    let out = a.handle(Input::Promote(Role::Queen), 1_900);
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Refused(_))),
        "{out:?}"
    );
    // A promote said with nothing of the kind on the board is still refused.
    let mut b = Arbiter::new(config(None, Completion::ClockPress), start.clone());
    b.handle(Input::Start, 0);
    let out = b.handle(Input::Promote(Role::Queen), 500);
    assert!(out.iter().any(|e| matches!(e, Effect::Refused(_))));
    // The sighted player's move counts: the tactile board has executed it, and the promotion
    // counts with the piece said before.
    a.handle(Input::EnterMove("Kb3".into()), 2_500);
    let out = a.handle(Input::ClockPress, 2_600);
    let words = move_said_to(&out, SIGHTED).expect("e8=Q announced");
    assert_eq!(words.promotion, Some(Role::Queen));
    assert_eq!(words.to, Square::E8);
}

#[test]
fn f1_the_blind_player_hears_his_own_move_as_it_was_announced_in_his_name() {
    for say_own_move in [true, false] {
        let mut cfg = config(None, Completion::ClockPress);
        cfg.say_own_move = say_own_move;
        let mut a = Arbiter::new(cfg, Chess::default());
        a.handle(Input::Start, 0);
        blind(&mut a, lift(Square::G1), 1_000);
        let out = blind(&mut a, put(Square::F3), 1_500);
        let to_him: Vec<Announcement> = said(&out)
            .into_iter()
            .filter(|(_, audience, _)| *audience == BLIND)
            .map(|(_, _, a)| a)
            .collect();
        let expected = if say_own_move {
            vec![Announcement::OwnMove(words(&Chess::default(), "Nf3"))]
        } else {
            vec![]
        };
        assert_eq!(to_him, expected, "say_own_move = {say_own_move}");
    }
}

#[test]
fn a6_13_the_player_whose_clock_the_arbiter_changed_is_told_but_not_his_time() {
    // The blind player is White in `config`.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    for (side, audience) in [(Color::White, BLIND), (Color::Black, SIGHTED)] {
        let out = a.handle(
            Input::Rules(game::Input::AdjustClock {
                side,
                delta_ms: 60_000,
            }),
            1_000,
        );
        let says: Vec<(Audience, Announcement)> =
            said(&out).into_iter().map(|(_, au, an)| (au, an)).collect();
        assert_eq!(
            says,
            // The amount of the change, not the time he has (F.9 d).
            vec![(
                audience,
                Announcement::ClockChanged {
                    side,
                    by_ms: 60_000
                }
            )],
            "{out:?}"
        );
        assert!(notes(&out).iter().any(|n| n.contains("clock set to")));
    }
    // 7.4 b: the illegal mover's opponent gets two minutes; he is the one told.
    let out = a.handle(
        Input::Rules(game::Input::IllegalMove { by: Color::White }),
        2_000,
    );
    assert!(
        said(&out).iter().any(|(_, au, an)| *au == SIGHTED
            && *an
                == Announcement::ClockChanged {
                    side: Color::Black,
                    by_ms: 120_000
                }),
        "{out:?}"
    );
    assert_eq!(a.game().clock_notes().len(), 3);
}

#[test]
fn f8_a_sheet_that_differs_while_both_boards_agree_is_a_note_not_a_retrace() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    a.handle(
        Input::SpeechFinished {
            id: said(&out)[0].0,
        },
        2_000,
    );
    a.handle(Input::EnterMove("e5".into()), 3_000);
    a.handle(Input::ClockPress, 3_500);
    blind(&mut a, lift(Square::E7), 4_000);
    blind(&mut a, put(Square::E5), 4_500);
    run(&mut a, 8_000);
    assert_eq!(a.game().ply(), 2);
    for (side, sans) in [(Color::Black, ["e4", "c5"]), (Color::White, ["e4", "d5"])] {
        let out = a.handle(
            Input::Scoresheet {
                side,
                sans: sans.iter().map(|s| s.to_string()).collect(),
            },
            9_000,
        );
        assert!(
            notes(&out)
                .iter()
                .any(|n| n.contains("nothing is retraced")),
            "{out:?}"
        );
        assert_eq!(a.game().ply(), 2, "the moves stay");
    }
    // 8.1: a sheet one move behind is no difference at all.
    let out = a.handle(
        Input::Scoresheet {
            side: Color::White,
            sans: vec!["e4".into()],
        },
        9_500,
    );
    assert!(
        notes(&out).iter().any(|n| n.contains("as 8.1 allows")),
        "{out:?}"
    );
}

#[test]
fn a6_12_the_arbiter_rules_while_the_clocks_are_paused() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    a.handle(
        Input::SpeechFinished {
            id: said(&out)[0].0,
        },
        2_000,
    );
    a.handle(Input::EnterMove("e5".into()), 3_000);
    a.handle(Input::ClockPress, 3_500);
    assert_eq!(a.game().ply(), 2);
    a.handle(
        Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
        4_000,
    );
    // 7.4 b while paused: the penalty is given and the clocks stay stopped.
    let out = a.handle(
        Input::Rules(game::Input::IllegalMove { by: Color::Black }),
        5_000,
    );
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Refused(_))),
        "{out:?}"
    );
    assert!(a.game().clock().unwrap().is_paused());
    // F.8 / the arbiter's takeback while paused.
    let out = a.handle(Input::Rules(game::Input::Retract { to_ply: 0 }), 6_000);
    assert!(
        !out.iter().any(|e| matches!(e, Effect::Refused(_))),
        "{out:?}"
    );
    assert_eq!(a.game().ply(), 0);
    assert!(a.game().clock().unwrap().is_paused());
}

#[test]
fn a7_4_an_illegal_move_on_the_tactile_board_is_reported_to_the_arbiter() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    // 1. e2-e5: no legal move.
    blind(&mut a, lift(Square::E2), 1_000);
    blind(&mut a, put(Square::E5), 1_500);
    let out = run(&mut a, 5_000);
    assert!(
        said(&out)
            .iter()
            .any(|s| s.1 == BLIND && s.2 == Announcement::IllegalMove),
        "he is told: {out:?}"
    );
    let n = notes(&out);
    assert!(
        n.iter().any(
            |l| l.contains("illegal move on the tactile board by white (7.4)")
                && l.contains("`illegal white`")
        ),
        "{n:?}"
    );
    assert_eq!(a.game().ply(), 0);
}

#[test]
fn f2_a_lift_of_his_own_piece_while_executing_the_opponents_move_is_a_touch() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    a.handle(
        Input::SpeechFinished {
            id: said(&out)[0].0,
        },
        2_000,
    );
    a.handle(Input::EnterMove("e5".into()), 3_000);
    a.handle(Input::ClockPress, 3_500);
    // Before he executes 1... e5 he lifts his knight on g1 and puts it back: a touch, told to
    // the assistant and the arbiter once his move is complete (issue 15), not before.
    let mut early = blind(&mut a, lift(Square::G1), 4_000);
    early.extend(blind(&mut a, put(Square::G1), 4_200));
    early.extend(blind(&mut a, lift(Square::E7), 4_500));
    early.extend(blind(&mut a, put(Square::E5), 4_800));
    early.extend(run(&mut a, 6_000));
    assert!(
        !notes(&early).iter().any(|n| n.contains("touched")),
        "{early:?}"
    );
    // Then he plays 2. Nc3: the knight on g1, touched first, could move (4.3 a).
    blind(&mut a, lift(Square::B1), 7_000);
    let out = blind(&mut a, put(Square::C3), 7_500);
    let n = notes(&out);
    assert!(
        n.iter()
            .any(|l| l.contains("blind player touched") && l.contains("g1")),
        "{n:?}"
    );
    assert!(
        n.iter()
            .any(|l| l.contains("Art. 4.3 a") && l.contains("knight on g1")),
        "{n:?}"
    );
}

#[test]
fn a_flapping_cable_is_said_once_and_a_loss_that_lasts_is_said() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let seat = Color::White;
    let mut said_now = Vec::new();
    // Ten losses and returns in ten seconds.
    for i in 0..10u64 {
        let t = 1_000 + i * 1_000;
        said_now.extend(said(&a.handle(Input::BoardDisconnected { seat }, t)));
        said_now.extend(said(&a.handle(Input::BoardConnected { seat }, t + 400)));
        said_now.extend(said(&run(&mut a, t + 900)));
    }
    let words: Vec<Announcement> = said_now.into_iter().map(|s| s.2).collect();
    assert_eq!(
        words,
        vec![
            Announcement::BoardDisconnected {
                board: WhichBoard::Tactile
            },
            Announcement::BoardReconnected {
                board: WhichBoard::Tactile
            },
        ]
    );
    // It goes once more and stays away: said once it has lasted FLAP_SETTLE_MS.
    assert!(said(&a.handle(Input::BoardDisconnected { seat }, 11_000)).is_empty());
    assert!(said(&run(&mut a, 11_000 + FLAP_SETTLE_MS - 1)).is_empty());
    let out = run(&mut a, 11_000 + FLAP_SETTLE_MS);
    assert_eq!(
        said(&out).into_iter().map(|s| s.2).collect::<Vec<_>>(),
        vec![Announcement::BoardDisconnected {
            board: WhichBoard::Tactile
        }]
    );
    // And its return is said.
    let out = a.handle(Input::BoardConnected { seat }, 20_000);
    assert_eq!(
        said(&out).into_iter().map(|s| s.2).collect::<Vec<_>>(),
        vec![Announcement::BoardReconnected {
            board: WhichBoard::Tactile
        }]
    );
}

/// Issue 25, point 12: a cable unplugged for 0.3 s a hundred times gave ten spoken lines in
/// 30 s (each ten-second window said a loss and a return). A cable that keeps flapping is said
/// once, its loss and its return, however long it flaps; once it has been steady for the
/// window, a new loss is said again.
#[test]
fn a_cable_that_keeps_flapping_is_said_once_however_long_it_flaps() {
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let seat = Color::White;
    let mut words = Vec::new();
    for i in 0..100u64 {
        let t = 1_000 + i * 600;
        words.extend(said(&a.handle(Input::BoardDisconnected { seat }, t)));
        words.extend(said(&a.handle(Input::BoardConnected { seat }, t + 300)));
        words.extend(said(&run(&mut a, t + 590)));
    }
    let words: Vec<Announcement> = words.into_iter().map(|s| s.2).collect();
    assert_eq!(
        words,
        vec![
            Announcement::BoardDisconnected {
                board: WhichBoard::Tactile
            },
            Announcement::BoardReconnected {
                board: WhichBoard::Tactile
            },
        ],
        "60 s of flapping"
    );
    // Steady for the window, then a loss: said.
    let later = 1_000 + 100 * 600 + FLAP_WINDOW_MS;
    assert_eq!(
        said(&a.handle(Input::BoardDisconnected { seat }, later))
            .into_iter()
            .map(|s| s.2)
            .collect::<Vec<_>>(),
        vec![Announcement::BoardDisconnected {
            board: WhichBoard::Tactile
        }]
    );
}

/// F.9 e and issue 15: the sighted player's touches are the assistant's and arbiter's news only
/// once his move is complete, and only for a piece the move did not move: lifting the piece he
/// moves is the move itself.
#[test]
fn f9e_a_sighted_touch_is_told_after_the_move_and_only_of_a_piece_not_moved() {
    let mut a = Arbiter::new(config(Some(DGT), Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    blind(&mut a, lift(Square::E2), 1_000);
    let out = blind(&mut a, put(Square::E4), 1_500);
    a.handle(
        Input::SpeechFinished {
            id: said(&out)[0].0,
        },
        2_000,
    );
    sighted(&mut a, lift(Square::E2), 2_500);
    sighted(&mut a, put_piece(Square::E4, Color::White.pawn()), 2_600);
    run(&mut a, 3_000);
    // Black lifts his knight on g8, puts it back, then plays 1... e5 with the pawn.
    let mut before = sighted(&mut a, lift(Square::G8), 10_000);
    before.extend(sighted(
        &mut a,
        put_piece(Square::G8, Color::Black.knight()),
        10_100,
    ));
    before.extend(sighted(&mut a, lift(Square::E7), 10_500));
    before.extend(sighted(
        &mut a,
        put_piece(Square::E5, Color::Black.pawn()),
        10_700,
    ));
    before.extend(run(&mut a, 11_000));
    assert!(
        !notes(&before).iter().any(|n| n.contains("touched")),
        "no touch note before the move is complete: {before:?}"
    );
    // The touches went to touches.txt as they happened.
    assert!(before.contains(&Effect::Touch {
        seat: Color::Black,
        square: Square::G8,
        piece: Some(Color::Black.knight()),
    }));
    let n = notes(&a.handle(Input::ClockPress, 11_500));
    assert_eq!(a.game().ply(), 2);
    let touched: Vec<&String> = n.iter().filter(|n| n.contains("touched")).collect();
    assert!(
        touched
            .iter()
            .any(|n| n.as_str() == "sighted player touched black knight on g8"),
        "{n:?}"
    );
    assert!(
        !touched.iter().any(|n| n.contains("e7")),
        "the piece he moved is no news: {n:?}"
    );
    // The next move, with only the piece he moves touched: nothing to tell.
    blind(&mut a, lift(Square::E7), 12_000);
    blind(&mut a, put(Square::E5), 12_100);
    run(&mut a, 12_500);
    blind(&mut a, lift(Square::G1), 13_000);
    let out = blind(&mut a, put(Square::F3), 13_500);
    a.handle(
        Input::SpeechFinished {
            id: said(&out)[0].0,
        },
        14_000,
    );
    sighted(&mut a, lift(Square::G1), 14_500);
    sighted(&mut a, put_piece(Square::F3, Color::White.knight()), 14_600);
    run(&mut a, 15_000);
    let mut out = sighted(&mut a, lift(Square::B8), 20_000);
    out.extend(sighted(
        &mut a,
        put_piece(Square::C6, Color::Black.knight()),
        20_200,
    ));
    out.extend(run(&mut a, 20_600));
    out.extend(a.handle(Input::ClockPress, 21_000));
    assert_eq!(a.game().ply(), 4);
    assert!(
        !notes(&out).iter().any(|n| n.contains("touched")),
        "{out:?}"
    );
}

/// A fallen flag is said at once to both players, with what follows under the play kind: in
/// standard play the game ends (6.9); in blitz (Appendix C) the arbiter does not signal it, the
/// game goes on until the opponent claims it, and the fallen flag is said once, never ticked at
/// again.
#[test]
fn a_fallen_flag_is_said_to_both_and_in_blitz_the_game_goes_on_until_it_is_claimed() {
    // Standard play: White (blind) does not move in his 300 s.
    let mut a = Arbiter::new(config(None, Completion::ClockPress), Chess::default());
    a.handle(Input::Start, 0);
    let out = run(&mut a, 301_000);
    let flag = Announcement::FlagFell { side: Color::White };
    assert!(
        said(&out)
            .iter()
            .any(|(_, aud, ann)| *aud == Audience::Both && *ann == flag),
        "{out:?}"
    );
    assert!(a.game().is_over(), "6.9: the game is lost (or drawn)");

    // Blitz: 180 s; White's flag falls, Black's assistant claims it at leisure.
    let mut cfg = config(None, Completion::ClockPress);
    cfg.rules.time_control = Some("180".parse::<TimeControl>().unwrap());
    cfg.rules.play = crate::rules::PlayMode::Blitz;
    let mut a = Arbiter::new(cfg, Chess::default());
    a.handle(Input::Start, 0);
    assert_eq!(a.next_deadline(), Some(180_000));
    let out = run(&mut a, 181_000);
    let says = said(&out);
    assert_eq!(
        says.iter()
            .filter(|(_, aud, ann)| *aud == Audience::Both && *ann == flag)
            .count(),
        1,
        "{out:?}"
    );
    assert!(
        out.iter().any(|e| matches!(e, Effect::Note(n)
            if n.contains("white's flag has fallen: under Appendix C")
                && n.contains("until black claims it (`flag sighted`)"))),
        "{out:?}"
    );
    assert!(!a.game().is_over(), "Appendix C: only a claim decides");
    // Said once: no deadline at the flag again, and later ticks say nothing.
    assert!(a.next_deadline().is_none_or(|d| d > 181_000));
    let out = a.handle(Input::Tick, 200_000);
    assert!(said(&out).is_empty(), "{out:?}");
    // The opponent claims: the game is over.
    a.handle(
        Input::Rules(game::Input::ClaimFlag { by: Color::Black }),
        205_000,
    );
    assert!(a.game().is_over());
}

/// Issue 24's procedure: each point named after its article.
mod procedure;

/// F.7 on a DGT board: the sighted player, before executing White's e4, moves his queen to d6 and
/// hears what is wrong; he puts it back (the events come, or only a full reading of the board
/// does). The board now shows the position before e4, which is where it should be until he
/// executes it: nothing is wrong any more, and the queen is not described again.
#[test]
fn f7_guidance_names_only_squares_still_wrong_after_the_board_is_read_again() {
    let q = Piece::from_char('q').unwrap();
    for read_again in [false, true] {
        let mut a = after_e4(Some(DGT));
        sighted(&mut a, lift(Square::D8), 4_000);
        sighted(&mut a, put_piece(Square::D6, q), 4_200);
        let out = run(&mut a, 8_000);
        let told = heard(&out, SIGHTED);
        assert!(
            told.iter().any(|w| matches!(w, Announcement::Guidance(_))),
            "{out:?}"
        );
        let mut out = if read_again {
            // The events were lost; the board is read again.
            let shown = Chess::default().board().clone();
            sighted(
                &mut a,
                SensorEvent::Snapshot(crate::board::Sensed::Pieces(shown)),
                9_000,
            )
        } else {
            sighted(&mut a, lift(Square::D6), 9_000);
            sighted(&mut a, put_piece(Square::D8, q), 9_200)
        };
        out.extend(run(&mut a, 70_000));
        let told = heard(&out, SIGHTED);
        assert!(
            !told.iter().any(|w| matches!(w, Announcement::Guidance(_))),
            "read again: {read_again}: {told:?}"
        );
        // He executes e4: it counts, and Black is to move.
        sighted(&mut a, lift(Square::E2), 71_000);
        let p = Piece::from_char('P').unwrap();
        sighted(&mut a, put_piece(Square::E4, p), 71_200);
        run(&mut a, 75_000);
        assert_eq!(
            sighted_board(&a).map(|b| b.mode()),
            Some(crate::board::recognize::Mode::Move)
        );
    }
}
