//! Tests of the lenient matcher (every accepted form, every error) and of reading written
//! moves in every notation of Appendix E.

use super::*;
use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// Promotions for both sides, captures onto the back rank, underpromotion checks.
const PROMOTIONS_W: &str = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1";
const PROMOTIONS_B: &str = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1";
const CASTLES_W: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const CASTLES_B: &str = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1";
/// After 1.e4 a6 2.e5 d5: exd6 e.p. is legal.
const EN_PASSANT: &str = "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
/// After 1.d4 d5 2.Nf3 Nf6: both knights reach d2.
const TWO_KNIGHTS: &str = "rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 2 3";
/// Pawn e7 may promote by push or by capturing on d8/f8.
const PROMOTE_E7: &str = "3r1r2/4P3/8/8/8/8/8/k3K3 w - - 0 1";

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("test FEN parses")
        .into_position(CastlingMode::Standard)
        .expect("test FEN is legal")
}

/// The position after playing `sans` from the start.
fn after(sans: &[&str]) -> Chess {
    let mut p = Chess::default();
    for s in sans {
        let m = s.parse::<SanPlus>().unwrap().san.to_move(&p).unwrap();
        p.play_unchecked(m);
    }
    p
}

/// The SAN of what `input` matches.
fn m(p: &Chess, input: &str) -> String {
    match match_move(p, input) {
        Ok(mv) => san(p, mv),
        Err(e) => panic!("'{input}' did not match: {e}"),
    }
}

fn ambiguous(p: &Chess, input: &str) -> Vec<String> {
    match match_move(p, input) {
        Err(MatchError::Ambiguous { candidates, .. }) => candidates,
        other => panic!("'{input}' should be ambiguous, got {other:?}"),
    }
}

#[test]
fn standard_san() {
    let p = Chess::default();
    assert_eq!(m(&p, "e4"), "e4");
    assert_eq!(m(&p, "Nf3"), "Nf3");
    assert_eq!(m(&p, "Pe4"), "e4");
    let p = pos(KIWIPETE);
    assert_eq!(m(&p, "Qxf6"), "Qxf6");
    assert_eq!(m(&p, "Bxa6"), "Bxa6");
    assert_eq!(m(&p, "dxe6"), "dxe6");
    assert_eq!(m(&p, "Nxf7"), "Nxf7");
}

#[test]
fn surrounding_and_inner_whitespace() {
    let p = Chess::default();
    assert_eq!(m(&p, "  Nf3 \n"), "Nf3");
    assert_eq!(m(&p, "\te4"), "e4");
    assert_eq!(m(&p, "g1 f3"), "Nf3");
    let p = pos(PROMOTE_E7);
    assert_eq!(m(&p, "e7 e8 Q"), "e8=Q");
}

#[test]
fn lower_case_piece_letters() {
    let p = Chess::default();
    assert_eq!(m(&p, "nf3"), "Nf3");
    assert_eq!(m(&p, "ng1f3"), "Nf3");
    assert_eq!(m(&p, "pe4"), "e4");
    let p = after(&["f3", "e5", "g4"]);
    assert_eq!(m(&p, "qh4"), "Qh4#");
    let p = pos(KIWIPETE);
    assert_eq!(m(&p, "rb1"), "Rb1");
    assert_eq!(m(&p, "kf1"), "Kf1");
    assert_eq!(m(&p, "qxf6"), "Qxf6");
}

#[test]
fn all_capitals_fall_back_to_lower_case() {
    let p = Chess::default();
    assert_eq!(m(&p, "NF3"), "Nf3");
    assert_eq!(m(&p, "E4"), "e4");
    assert_eq!(m(&p, "G1F3"), "Nf3");
    let p = pos(PROMOTE_E7);
    assert_eq!(m(&p, "E8Q"), "e8=Q");
}

#[test]
fn castling_every_form_both_sides_both_colours() {
    for (fen, rank) in [(CASTLES_W, '1'), (CASTLES_B, '8')] {
        let p = pos(fen);
        let short = |s: &str| s.replace('1', &rank.to_string());
        for input in [
            "O-O", "0-0", "o-o", "O-O+", "0-0#", "OO", "e1g1", "e1-g1", "Kg1", "Ke1g1", "kg1",
            "e1h1",
        ] {
            let input = short(input);
            let mv = match_move(&p, &input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(mv.castling_side(), Some(CastlingSide::KingSide), "{input}");
            assert_eq!(san(&p, mv), "O-O");
        }
        for input in [
            "O-O-O", "0-0-0", "o-o-o", "O-O-O+", "e1c1", "e1-c1", "Kc1", "Ke1-c1", "e1a1",
        ] {
            let input = short(input);
            let mv = match_move(&p, &input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(mv.castling_side(), Some(CastlingSide::QueenSide), "{input}");
            assert_eq!(san(&p, mv), "O-O-O");
        }
        // A bare "Kh1" never means castling: the rook stands there.
        assert!(matches!(
            match_move(&p, &short("Kh1")),
            Err(MatchError::NoLegalMove { .. })
        ));
    }
}

#[test]
fn castling_uci_both_representations() {
    let p = pos(CASTLES_W);
    let castle = Move::Castle {
        king: Square::E1,
        rook: Square::H1,
    };
    assert!(p.is_legal(castle));
    let standard = UciMove::from_standard(castle).to_string();
    let chess960 = UciMove::from_chess960(castle).to_string();
    assert_eq!((standard.as_str(), chess960.as_str()), ("e1g1", "e1h1"));
    assert_eq!(match_move(&p, &standard), Ok(castle));
    assert_eq!(match_move(&p, &chess960), Ok(castle));
    // shakmaty reads both back to the same move, as we do.
    assert_eq!(
        standard.parse::<UciMove>().unwrap().to_move(&p).ok(),
        Some(castle)
    );
    assert_eq!(
        chess960.parse::<UciMove>().unwrap().to_move(&p).ok(),
        Some(castle)
    );
}

#[test]
fn castling_not_legal_is_no_legal_move() {
    let p = Chess::default();
    for input in ["O-O", "0-0-0", "e1g1", "Kg1"] {
        assert_eq!(
            match_move(&p, input),
            Err(MatchError::NoLegalMove {
                input: input.to_owned()
            })
        );
    }
}

#[test]
fn capture_mark_missing_or_extra() {
    let p = Chess::default();
    assert_eq!(m(&p, "Nxf3"), "Nf3"); // nothing on f3: lenient
    assert_eq!(m(&p, "N:f3"), "Nf3");
    assert_eq!(m(&p, "g1xf3"), "Nf3");
    let p = pos(KIWIPETE);
    assert_eq!(m(&p, "Qf6"), "Qxf6"); // missing x
    assert_eq!(m(&p, "Q×f6"), "Qxf6");
    assert_eq!(m(&p, "de6"), "dxe6");
    assert_eq!(m(&p, "d5e6"), "dxe6");
    // A pawn named without its file pushes; a capture needs its file or an x.
    assert_eq!(m(&p, "d6"), "d6");
    assert_eq!(m(&p, "xe6"), "dxe6");
    let p = after(&["e4", "d5"]);
    assert!(matches!(
        match_move(&p, "d5"),
        Err(MatchError::NoLegalMove { .. })
    ));
    assert_eq!(m(&p, "ed5"), "exd5");
    // An x where nothing can capture is still no legal move.
    assert!(matches!(
        match_move(&p, "exf5"),
        Err(MatchError::NoLegalMove { .. })
    ));
}

#[test]
fn annotation_suffixes() {
    let p = Chess::default();
    for input in [
        "Nf3!", "Nf3?", "Nf3!?", "Nf3?!", "Nf3!!", "Nf3??", "Nf3+", "Nf3#", "Nf3++",
    ] {
        assert_eq!(m(&p, input), "Nf3", "{input}");
    }
}

#[test]
fn check_and_mate_suffixes() {
    let p = after(&["f3", "e5", "g4"]);
    for input in ["Qh4#", "Qh4+", "Qh4", "d8h4", "Qd8-h4#"] {
        assert_eq!(m(&p, input), "Qh4#", "{input}");
    }
    let p = after(&["e4", "f5"]);
    assert_eq!(m(&p, "Qh5+"), "Qh5+");
    assert_eq!(m(&p, "Qh5"), "Qh5+");
    assert_eq!(m(&p, "Qh5#"), "Qh5+"); // wrong suffix: the position decides
}

#[test]
fn en_passant_every_form() {
    let p = pos(EN_PASSANT);
    for input in [
        "exd6",
        "exd6e.p.",
        "exd6 e.p.",
        "exd6ep",
        "exd6 ep",
        "ed6",
        "e5d6",
        "e5xd6",
        "xd6",
        "exd6+",
    ] {
        let mv = match_move(&p, input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert!(mv.is_en_passant(), "{input}");
        assert_eq!(san(&p, mv), "exd6");
    }
    // The push and the capture are different moves.
    assert_eq!(m(&p, "e6"), "e6");
}

#[test]
fn promotions_every_form() {
    let p = pos(PROMOTE_E7);
    for input in [
        "e8Q", "e8=Q", "e8/Q", "e8(Q)", "e8=(Q)", "e8=q", "e8q", "e7e8q", "e7-e8=Q", "e7e8Q",
        "Pe8=Q", "e8=Q",
    ] {
        assert_eq!(m(&p, input), "e8=Q", "{input}");
    }
    assert_eq!(m(&p, "e8R"), "e8=R");
    assert_eq!(m(&p, "e8=B"), "e8=B");
    assert_eq!(m(&p, "e8(n)"), "e8=N");
    assert_eq!(m(&p, "e7e8n"), "e8=N");
    assert_eq!(m(&p, "exd8=N"), "exd8=N");
    assert_eq!(m(&p, "exd8n"), "exd8=N");
    assert_eq!(m(&p, "e7xd8=R"), "exd8=R");
    assert_eq!(m(&p, "exf8b"), "exf8=B");
    assert_eq!(m(&p, "ed8q"), "exd8=Q");
}

#[test]
fn promotion_without_piece_is_ambiguous() {
    let p = pos(PROMOTE_E7);
    assert_eq!(ambiguous(&p, "e8"), ["e8=Q", "e8=R", "e8=B", "e8=N"]);
    assert_eq!(
        ambiguous(&p, "exd8"),
        ["exd8=Q", "exd8=R", "exd8=B", "exd8=N"]
    );
    assert_eq!(ambiguous(&p, "e7e8"), ["e8=Q", "e8=R", "e8=B", "e8=N"]);
    // The message lists them.
    let err = match_move(&p, "e8").unwrap_err().to_string();
    assert_eq!(
        err,
        "'e8' could mean e8=Q or e8=R or e8=B or e8=N; say which one"
    );
}

#[test]
fn underpromotion_for_black() {
    let p = pos(PROMOTIONS_B);
    assert_eq!(m(&p, "g1=N"), "g1=N+");
    assert_eq!(m(&p, "gxh1=R"), "gxh1=R");
    assert_eq!(m(&p, "gxf1Q+"), "gxf1=Q+");
    assert_eq!(m(&p, "g2f1b"), "gxf1=B+");
    assert_eq!(
        ambiguous(&p, "gxf1"),
        ["gxf1=Q+", "gxf1=R", "gxf1=B+", "gxf1=N"]
    );
}

#[test]
fn long_algebraic_forms() {
    let p = Chess::default();
    for input in [
        "g1f3", "g1-f3", "g1xf3", "Ng1-f3", "Ng1f3", "Ng1xf3", "N1f3", "Ngf3",
    ] {
        assert_eq!(m(&p, input), "Nf3", "{input}");
    }
    assert_eq!(m(&p, "e2e4"), "e4");
    assert_eq!(m(&p, "e2-e4"), "e4");
    // The piece letter must fit what stands on the from-square.
    assert!(matches!(
        match_move(&p, "Bg1f3"),
        Err(MatchError::NoLegalMove { .. })
    ));
}

#[test]
fn under_specified_piece_move_is_ambiguous() {
    let p = pos(TWO_KNIGHTS);
    assert_eq!(ambiguous(&p, "Nd2"), ["Nbd2", "Nfd2"]);
    assert_eq!(ambiguous(&p, "nd2"), ["Nbd2", "Nfd2"]);
    assert_eq!(m(&p, "Nbd2"), "Nbd2");
    assert_eq!(m(&p, "Nfd2"), "Nfd2");
    assert_eq!(m(&p, "N1d2"), "Nbd2");
    assert_eq!(m(&p, "N3d2"), "Nfd2");
    assert_eq!(m(&p, "f3d2"), "Nfd2");
    assert_eq!(
        match_move(&p, "Nd2").unwrap_err().to_string(),
        "'Nd2' could mean Nbd2 or Nfd2; say which one"
    );
}

#[test]
fn lower_case_b_bishop_or_pawn() {
    // Both legal: correct SAN `bxc3` is the pawn; a sloppy `bc3` is ambiguous.
    let p = pos("4k3/8/8/8/8/2p5/1P1B4/4K3 w - - 0 1");
    assert_eq!(m(&p, "bxc3"), "bxc3");
    assert_eq!(ambiguous(&p, "bc3"), ["bxc3", "Bxc3"]);
    assert_eq!(m(&p, "Bxc3"), "Bxc3"); // capital B is a bishop
    assert_eq!(m(&p, "b2xc3"), "bxc3"); // from-square given: the pawn
    let p = pos("4k3/8/8/8/2n5/1P6/8/4KB2 w - - 0 1");
    assert_eq!(ambiguous(&p, "bc4"), ["Bxc4", "bxc4"]);
    // Only one of them legal: that one.
    let p = pos("4k3/8/8/8/8/2p5/1P6/4K3 w - - 0 1");
    assert_eq!(m(&p, "bxc3"), "bxc3");
    let p = after(&["e4", "e5"]);
    assert_eq!(m(&p, "bc4"), "Bc4");
    assert_eq!(m(&p, "bb5"), "Bb5");
    // b followed by a digit is a square.
    assert_eq!(m(&p, "b4"), "b4");
    assert_eq!(m(&p, "b2b4"), "b4");
    assert_eq!(m(&p, "b3"), "b3");
}

#[test]
fn errors() {
    let p = Chess::default();
    assert_eq!(match_move(&p, ""), Err(MatchError::Empty));
    assert_eq!(match_move(&p, "  \t"), Err(MatchError::Empty));
    assert_eq!(candidates(&p, ""), Err(MatchError::Empty));
    for input in [
        "hello", "e9", "Nz3", "+", "!?", "Ye4", "e4e5e6", "e8=K", "Q@e4", "i1", "0-0-0-0", "Nf3=",
        "é4",
    ] {
        assert_eq!(
            match_move(&p, input),
            Err(MatchError::Unreadable {
                input: input.to_owned()
            }),
            "{input}"
        );
        assert!(candidates(&p, input).is_err(), "{input}");
    }
    for input in [
        "Nf5", "e5", "exd5", "Ke2", "O-O", "e2e5", "--", "Z0", "0000", "a1a1",
    ] {
        assert_eq!(
            match_move(&p, input),
            Err(MatchError::NoLegalMove {
                input: input.to_owned()
            }),
            "{input}"
        );
        assert_eq!(candidates(&p, input), Ok(vec![]), "{input}");
    }
    assert_eq!(
        match_move(&p, " Nf5 ").unwrap_err().to_string(),
        "no legal move matches 'Nf5' in this position; check the piece, the squares and whose \
             turn it is"
    );
    let unreadable = match_move(&p, "hello").unwrap_err().to_string();
    assert!(
        unreadable.starts_with("'hello' is not a move"),
        "{unreadable}"
    );
    assert!(unreadable.contains("e7e8q"), "{unreadable}");
    assert!(MatchError::Empty.to_string().contains("no move given"));
}

#[test]
fn candidates_lists_every_reading() {
    let p = pos(TWO_KNIGHTS);
    let found = candidates(&p, "Nd2").unwrap();
    assert_eq!(found.len(), 2);
    assert!(
        found
            .iter()
            .all(|mv| mv.role() == Role::Knight && mv.to() == Square::D2)
    );
    assert_eq!(candidates(&p, "e4").unwrap().len(), 1);
}

#[test]
fn san_includes_check_and_mate() {
    let p = after(&["f3", "e5", "g4"]);
    let mv = match_move(&p, "Qh4").unwrap();
    assert_eq!(san(&p, mv), "Qh4#");
    let p = after(&["e4", "f5"]);
    assert_eq!(san(&p, match_move(&p, "Qh5").unwrap()), "Qh5+");
}

/// Lenient must contain strict: for every legal move, its SAN, its UCI (both castling
/// representations) and its long algebraic form read back as exactly that move.
#[test]
fn every_legal_move_round_trips_in_every_notation() {
    let mut positions: Vec<Chess> = [
        KIWIPETE,
        PROMOTIONS_W,
        PROMOTIONS_B,
        CASTLES_W,
        CASTLES_B,
        EN_PASSANT,
        TWO_KNIGHTS,
        PROMOTE_E7,
    ]
    .into_iter()
    .map(pos)
    .collect();
    positions.push(Chess::default());
    // Kiwipete with Black to move (castling, promotions after ...hxg2 lines).
    positions.push(pos(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    ));
    let mut checked = 0;
    for p in &positions {
        for mv in p.legal_moves() {
            let uci = UciMove::from_standard(mv).to_string();
            let uci960 = UciMove::from_chess960(mv).to_string();
            let long = mv.to_string();
            let strict = san(p, mv);
            for input in [&strict, &uci, &uci960, &long, &strict.to_lowercase()] {
                // Lower-case SAN is not always unique (`bxc3` vs `Bxc3`); only check it when
                // the lower-case text reads uniquely.
                if *input == strict.to_lowercase() && input != &strict {
                    if let Ok(found) = match_move(p, input) {
                        assert_eq!(
                            found,
                            mv,
                            "{input} in {}",
                            Fen::from_position(p, shakmaty::EnPassantMode::Legal)
                        );
                    }
                    continue;
                }
                assert_eq!(
                    match_move(p, input),
                    Ok(mv),
                    "{input} in {}",
                    Fen::from_position(p, shakmaty::EnPassantMode::Legal)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 4 * 200, "only {checked} round trips checked");
}

// --------------------------------------------------------------------------------------------
// Scoresheets and sealed moves (Appendix E): `readings`, `read_recorded`.
// --------------------------------------------------------------------------------------------

/// The SAN of every reading of `text`, in the fixed order.
fn r(p: &Chess, text: &str) -> Vec<String> {
    readings(p, text).into_iter().map(|mv| san(p, mv)).collect()
}

/// The SAN of a legal move rewritten in another set of piece letters (castling as `0-0`).
fn written_in(p: &Chess, mv: Move, letters: &PieceLetters) -> String {
    let english = san(p, mv).replace("O-O", "0-0");
    let symbol = |c: char| {
        let i = "KQRBN".find(c)?;
        Some(letters.symbols[i])
    };
    let mut out = String::new();
    for (i, c) in english.char_indices() {
        match symbol(c) {
            // A piece letter opens a SAN, or follows `=` in a promotion.
            Some(s) if i == 0 || english[..i].ends_with('=') => out.push_str(s),
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn e3_every_national_letter_set_names_every_piece() {
    // Knight, from the start.
    let p = Chess::default();
    for text in ["Nf3", "Sf3", "Pf3", "Cf3", "Кf3", "♘f3", "♞f3"] {
        assert_eq!(r(&p, text), ["Nf3"], "{text}");
    }
    // Bishop and queen, after 1.e4 e5.
    let p = after(&["e4", "e5"]);
    for text in ["Bc4", "Lc4", "Fc4", "Ac4", "Gc4", "Сc4", "♗c4", "♝c4"] {
        assert_eq!(r(&p, text), ["Bc4"], "{text}");
    }
    for text in ["Qh5", "Dh5", "Hh5", "Фh5", "♕h5", "♛h5"] {
        assert_eq!(r(&p, text), ["Qh5"], "{text}");
    }
    // Rook and king where only one of them can reach the square.
    let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    for text in ["Ra4", "Ta4", "Wa4", "Лa4", "♖a4", "♜a4"] {
        assert_eq!(r(&p, text), ["Ra4"], "{text}");
    }
    for text in ["Ke2", "Re2", "Крe2", "♔e2", "♚e2"] {
        assert_eq!(r(&p, text), ["Ke2"], "{text}");
    }
    // A pawn figurine is a pawn.
    assert_eq!(r(&Chess::default(), "♙e4"), ["e4"]);
}

#[test]
fn e3_r_is_a_rook_in_english_and_a_king_in_spanish() {
    let p = pos("4k3/8/8/8/8/8/8/4K2R w - - 0 1");
    assert_eq!(r(&p, "Rf1"), ["Kf1", "Rf1"]);
    // The Spanish and French king letter alone where the rook cannot go.
    assert_eq!(r(&p, "Rd1"), ["Kd1"]);
    // English letters alone are not ambiguous.
    assert_eq!(r(&p, "Kf1"), ["Kf1"]);
    // A sealed `Rf1` here is not one move: the message names both and who reads each so.
    let err = read_recorded(&p, "Rf1").unwrap_err();
    assert_eq!(
        err,
        "'Rf1' could mean Kf1 (French, Spanish, Portuguese) or Rf1 (English): it is not one move"
    );
}

#[test]
fn e3_german_bishop_and_spanish_knight_are_single_readings() {
    let p = after(&["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(r(&p, "Lc4"), ["Bc4"]);
    assert_eq!(
        read_recorded(&p, "Lc4").map(|mv| san(&p, mv)),
        Ok("Bc4".into())
    );
    let p = Chess::default();
    assert_eq!(
        read_recorded(&p, "Cf3").map(|mv| san(&p, mv)),
        Ok("Nf3".into())
    );
    assert_eq!(
        read_recorded(&p, "Sf3").map(|mv| san(&p, mv)),
        Ok("Nf3".into())
    );
    // match_move, the console's reader, does not know national letters: unchanged.
    assert!(match_move(&p, "Sf3").is_err());
    assert!(match_move(&p, "Cf3").is_err());
}

#[test]
fn e3_dutch_p_is_a_knight_and_a_redundant_pawn_letter_only_as_a_last_resort() {
    let p = Chess::default();
    assert_eq!(r(&p, "Pf3"), ["Nf3"]);
    // No knight reaches e4: the console's lenient `P` for a pawn.
    assert_eq!(r(&p, "Pe4"), ["e4"]);
}

#[test]
fn e3_lower_case_b_is_a_file_on_paper() {
    // The console's `bc3` is ambiguous (a careless bishop); on a sheet it is the pawn.
    let p = pos("4k3/8/8/8/8/2p5/1P1B4/4K3 w - - 0 1");
    assert_eq!(r(&p, "bxc3"), ["bxc3"]);
    assert_eq!(r(&p, "bc3"), ["bxc3"]);
    assert_eq!(r(&p, "Bxc3"), ["Bxc3"]);
    assert_eq!(r(&p, "Lxc3"), ["Bxc3"]);
}

#[test]
fn e_castling_as_the_laws_write_it() {
    for fen in [CASTLES_W, CASTLES_B] {
        let p = pos(fen);
        for text in ["0-0", "O-O", "o-o", "00", "0-0+", "0 - 0"] {
            assert_eq!(r(&p, text), ["O-O"], "{text}");
        }
        for text in ["0-0-0", "O-O-O", "000", "0-0-0#"] {
            assert_eq!(r(&p, text), ["O-O-O"], "{text}");
        }
    }
    assert!(readings(&Chess::default(), "0-0").is_empty());
}

#[test]
fn e_promotion_in_every_form_and_every_letter_set() {
    let p = pos(PROMOTE_E7);
    for text in [
        "e8Q", "e8=Q", "e8/Q", "e8(Q)", "e8D", "e8=D", "e8(D)", "e8Ф", "e8♕", "e8H", "e7-e8Q",
        "e7e8D",
    ] {
        assert_eq!(r(&p, text), ["e8=Q"], "{text}");
    }
    // R is a rook here in every language: a king is never a promotion piece.
    for text in ["e8R", "e8T", "e8/T", "e8W", "e8Л"] {
        assert_eq!(r(&p, text), ["e8=R"], "{text}");
    }
    for text in ["e8B", "e8L", "e8F", "e8A", "e8G", "e8(С)"] {
        assert_eq!(r(&p, text), ["e8=B"], "{text}");
    }
    for text in ["e8N", "e8S", "e8C", "e8P", "e8К", "e8=♘"] {
        assert_eq!(r(&p, text), ["e8=N"], "{text}");
    }
    assert_eq!(r(&p, "exd8D"), ["exd8=Q"]);
    assert_eq!(r(&p, "e:f8S"), ["exf8=N"]);
    // Without the piece: every promotion, so not one move to seal.
    assert_eq!(r(&p, "e8"), ["e8=Q", "e8=R", "e8=B", "e8=N"]);
    assert_eq!(
        read_recorded(&p, "e8"),
        Err("'e8' could mean e8=Q or e8=R or e8=B or e8=N: it does not say which".into())
    );
    // A letter that is no piece: not a move.
    assert!(readings(&p, "e8X").is_empty());
}

#[test]
fn e_en_passant_with_its_mark() {
    let p = pos(EN_PASSANT);
    for text in [
        "exd6 e.p.",
        "exd6e.p.",
        "exd6ep",
        "exd6 a.p.",
        "exd6 e.p.+",
        "e:d6",
        "ed6",
        "e5-d6",
        "e5d6",
    ] {
        let found = readings(&p, text);
        assert_eq!(found.len(), 1, "{text}");
        assert!(found[0].is_en_passant(), "{text}");
    }
}

#[test]
fn e_captures_with_x_colon_or_nothing() {
    let p = pos(KIWIPETE);
    for text in ["Qxf6", "Q:f6", "Qf6", "Dxf6", "D:f6", "Df6", "Q×f6"] {
        assert_eq!(r(&p, text), ["Qxf6"], "{text}");
    }
    for text in ["dxe6", "d:e6", "de6"] {
        assert_eq!(r(&p, text), ["dxe6"], "{text}");
    }
}

#[test]
fn e_long_algebraic() {
    let p = Chess::default();
    for text in ["e2-e4", "e2e4", "e2 - e4"] {
        assert_eq!(r(&p, text), ["e4"], "{text}");
    }
    for text in [
        "Ng1-f3", "Sg1-f3", "Cg1-f3", "Pg1-f3", "Кg1-f3", "♘g1-f3", "g1f3", "Sg1f3",
    ] {
        assert_eq!(r(&p, text), ["Nf3"], "{text}");
    }
    // The letter must be the piece on the from-square in some language.
    assert!(readings(&p, "Lg1-f3").is_empty());
}

#[test]
fn e_check_mate_evaluation_and_draw_offer_marks_are_ignored() {
    let p = Chess::default();
    for text in [
        "Sf3+", "Sf3++", "Sf3#", "Sf3!", "Sf3?!", "Sf3!!", "Sf3(=)", "Sf3 (=)", "Sf3†", "Sf3,",
    ] {
        assert_eq!(r(&p, text), ["Nf3"], "{text}");
    }
}

#[test]
fn e_disambiguation_in_national_letters() {
    let p = pos(TWO_KNIGHTS);
    assert_eq!(r(&p, "Sd2"), ["Nbd2", "Nfd2"]);
    assert_eq!(
        read_recorded(&p, "Sd2"),
        Err("'Sd2' could mean Nbd2 or Nfd2: it does not say which".into())
    );
    assert_eq!(r(&p, "Sbd2"), ["Nbd2"]);
    assert_eq!(r(&p, "C3d2"), ["Nfd2"]);
    assert_eq!(r(&p, "Sf3-d2"), ["Nfd2"]);
}

#[test]
fn read_recorded_says_why_nothing_fits() {
    let p = Chess::default();
    assert_eq!(read_recorded(&p, "  "), Err("no move written".into()));
    let err = read_recorded(&p, "hello").unwrap_err();
    assert!(
        err.starts_with("'hello' is not a move in any notation the Laws allow"),
        "{err}"
    );
    assert_eq!(
        read_recorded(&p, " Sf5 "),
        Err("'Sf5' reads as a move, but no legal move in this position fits it".into())
    );
    assert!(readable("Sf5") && readable("nf3") && !readable("hello") && !readable("1-0"));
}

#[test]
fn a_sealed_move_may_carry_its_number() {
    let p = Chess::default();
    for text in ["1. Sf3", "1.Sf3", "1...Sf3", "1… Sf3", "41.Cf3"] {
        assert_eq!(r(&p, text), ["Nf3"], "{text}");
    }
    let p = pos(CASTLES_W);
    assert_eq!(r(&p, "41.0-0"), ["O-O"]);
    assert_eq!(r(&p, "0-0"), ["O-O"]);
    // Digits without a dot are no move number.
    assert!(readings(&Chess::default(), "1Sf3").is_empty());
}

#[test]
fn readings_with_another_table() {
    // Hungarian `H` is a knight; in the default table it is the Polish queen.
    let p = Chess::default();
    assert_eq!(
        readings_with(&p, "Hf3", &[HUNGARIAN])
            .into_iter()
            .map(|mv| san(&p, mv))
            .collect::<Vec<_>>(),
        ["Nf3"]
    );
    assert!(readings(&p, "Hf3").is_empty());
    let p = after(&["e4", "e5"]);
    assert_eq!(
        readings_with(&p, "Sc4", &[CZECH])
            .into_iter()
            .map(|mv| san(&p, mv))
            .collect::<Vec<_>>(),
        ["Bc4"]
    );
}

/// Every legal move of many positions, written in each letter set and as console input,
/// reads back to a set that holds it; in English SAN (castling as `0-0` too) to it alone
/// unless it is an `R` move that a Romance reader takes for the king.
#[test]
fn e3_every_legal_move_in_every_letter_set_reads_back() {
    let mut positions: Vec<Chess> = [
        KIWIPETE,
        PROMOTIONS_W,
        PROMOTIONS_B,
        CASTLES_W,
        CASTLES_B,
        EN_PASSANT,
        TWO_KNIGHTS,
        PROMOTE_E7,
    ]
    .into_iter()
    .map(pos)
    .collect();
    positions.push(Chess::default());
    let mut checked = 0;
    for p in &positions {
        for mv in p.legal_moves() {
            for letters in PIECE_LETTERS {
                let text = written_in(p, mv, letters);
                assert!(
                    readings(p, &text).contains(&mv),
                    "{text} ({})",
                    letters.language
                );
                checked += 1;
            }
            let uci = UciMove::from_standard(mv).to_string();
            assert!(readings(p, &uci).contains(&mv), "{uci}");
            let english = san(p, mv);
            if !english.starts_with('R') {
                assert_eq!(readings(p, &english), [mv], "{english}");
            }
        }
    }
    assert!(checked > 1000, "only {checked} readings checked");
}

#[test]
fn adjournment_a_sealed_move_is_read_in_its_writers_notation_first() {
    // After 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5: `Rf1` is the rook's move for an English player, the
    // king's for a French one; without a notation it is the two.
    let p = after(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]);
    let english = letters_of("en");
    let french = letters_of("fr-FR");
    assert_eq!(english.map(|l| l.language), Some("English"));
    assert_eq!(letters_of("de-fide").map(|l| l.language), Some("German"));
    assert_eq!(letters_of("Italian").map(|l| l.language), Some("Spanish"));
    assert_eq!(letters_of("tlh"), None);
    assert_eq!(letters_of("it").map(|l| l.language), Some("Spanish"));
    let read = |own: Option<PieceLetters>| read_sealed(&p, "Rf1", own.as_ref()).map(|m| san(&p, m));
    assert_eq!(read(english), Ok("Rf1".into()));
    assert_eq!(read(french), Ok("Kf1".into()));
    let unclear = read_sealed(&p, "Rf1", None).unwrap_err();
    assert_eq!(
        unclear
            .candidates
            .iter()
            .map(|&m| san(&p, m))
            .collect::<Vec<_>>(),
        ["Kf1", "Rf1"]
    );
    // A German writing English letters is still understood where his own do not read.
    let german = letters_of("de");
    assert_eq!(
        read_sealed(&p, "Nc3", german.as_ref()).map(|m| san(&p, m)),
        Ok("Nc3".into())
    );
    // What the one sealing is offered to type reads as that move alone, in every notation.
    for &m in &unclear.candidates {
        let written = unambiguous(&p, m, german.as_ref());
        assert_eq!(read_sealed(&p, &written, None), Ok(m), "{written}");
    }
    assert_eq!(
        unambiguous(&p, unclear.candidates[1], german.as_ref()),
        "Th1-f1"
    );
    assert_eq!(
        unambiguous(&p, unclear.candidates[0], english.as_ref()),
        "Ke1-f1"
    );
    // Under-specified in his own notation: said so, with the moves.
    let p = pos("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    let unclear = read_sealed(&p, "Ra3", english.as_ref()).unwrap_err();
    assert!(unclear.reason.contains("English"), "{}", unclear.reason);
    assert_eq!(unclear.candidates.len(), 2);
}
