//! Tests of the wording of the shipped packs (text and clips), of the pack checks, and that every
//! announcement renders completely in every pack.

use shakmaty::{CastlingMode, Chess, Color, Piece, Position, Role, Square, fen::Fen, san::San};

use super::*;
use crate::announce::pack::{PUNCTUATION, ROLES, parse_template, valid_key};
use crate::announce::{Announcement, Guidance, MoveWords, Refusal, ResultWords, WhichBoard};
use crate::rules::game::Article;

fn pack(name: &str) -> VoicePack {
    VoicePack::builtin(name).unwrap()
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn words_of(fen: &str, san: &str) -> MoveWords {
    let pos = position(fen);
    let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
    MoveWords::new(&pos, m)
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
const KNIGHT_TAKES_ROOK: &str = "4k3/8/8/8/8/5r2/8/4K1N1 w - - 0 1";
const PAWN_TAKES: &str = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
const EN_PASSANT: &str = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const PROMOTION: &str = "8/4P3/8/8/8/8/8/k6K w - - 0 1";
const PROMOTION_CAPTURE: &str = "3r4/4P3/8/8/8/8/8/k6K w - - 0 1";
const PROMOTION_CHECK: &str = "k7/4P3/8/8/8/8/8/7K w - - 0 1";
const ROOK_CHECK: &str = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
const BACK_RANK_MATE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
const TWO_KNIGHTS: &str = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
const TWO_ROOKS: &str = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
const THREE_QUEENS: &str = "8/8/1k6/8/4Q2Q/8/8/K6Q w - - 0 1";

/// One row: position, SAN, style, the text, and the clips (`,` for a pause).
type Row = (
    &'static str,
    &'static str,
    Style,
    &'static str,
    &'static str,
);

fn check_rows(pack: &VoicePack, rows: &[Row]) {
    for &(fen, san, style, text, clips) in rows {
        let said = pack.render(&Announcement::Move(words_of(fen, san)), style);
        let want_clips: Vec<String> = clips
            .split_whitespace()
            .map(|c| {
                if c == "," {
                    PAUSE.to_owned()
                } else {
                    c.to_owned()
                }
            })
            .collect();
        assert_eq!(said.text, text, "{} {san} {style:?}", pack.name());
        assert_eq!(said.clips, want_clips, "{} {san} {style:?}", pack.name());
    }
}

use Style::{Long, San as S};

#[test]
fn german_moves() {
    check_rows(
        &pack("de-fide"),
        &[
            (
                START,
                "Nf3",
                S,
                "Springer Felix drei",
                "knight file_f rank_3",
            ),
            (
                START,
                "Nf3",
                Long,
                "Springer Gustav eins Felix drei",
                "knight file_g rank_1 file_f rank_3",
            ),
            (START, "e4", S, "Bauer Eva vier", "pawn file_e rank_4"),
            (
                START,
                "e4",
                Long,
                "Bauer Eva zwei Eva vier",
                "pawn file_e rank_2 file_e rank_4",
            ),
            (AFTER_E4, "c5", S, "Bauer Cesar fünf", "pawn file_c rank_5"),
            (
                KNIGHT_TAKES_ROOK,
                "Nxf3",
                S,
                "Springer schlägt Felix drei",
                "knight takes file_f rank_3",
            ),
            (
                KNIGHT_TAKES_ROOK,
                "Nxf3",
                Long,
                "Springer Gustav eins schlägt Felix drei",
                "knight file_g rank_1 takes file_f rank_3",
            ),
            (
                PAWN_TAKES,
                "exd5",
                S,
                "Bauer Eva schlägt David fünf",
                "pawn file_e takes file_d rank_5",
            ),
            (
                PAWN_TAKES,
                "exd5",
                Long,
                "Bauer Eva vier schlägt David fünf",
                "pawn file_e rank_4 takes file_d rank_5",
            ),
            (
                EN_PASSANT,
                "exd6",
                S,
                "Bauer Eva schlägt David sechs en passant",
                "pawn file_e takes file_d rank_6 en_passant",
            ),
            (
                EN_PASSANT,
                "exd6",
                Long,
                "Bauer Eva fünf schlägt David sechs en passant",
                "pawn file_e rank_5 takes file_d rank_6 en_passant",
            ),
            (CASTLING, "O-O", S, "Kurze Rochade", "castle_short"),
            (CASTLING, "O-O", Long, "Kurze Rochade", "castle_short"),
            (CASTLING, "O-O-O", S, "Lange Rochade", "castle_long"),
            (CASTLING, "O-O-O", Long, "Lange Rochade", "castle_long"),
            (
                PROMOTION,
                "e8=Q",
                S,
                "Bauer Eva acht, Dame",
                "pawn file_e rank_8 , queen",
            ),
            (
                PROMOTION,
                "e8=R",
                S,
                "Bauer Eva acht, Turm",
                "pawn file_e rank_8 , rook",
            ),
            (
                PROMOTION,
                "e8=B",
                S,
                "Bauer Eva acht, Läufer",
                "pawn file_e rank_8 , bishop",
            ),
            (
                PROMOTION,
                "e8=N",
                S,
                "Bauer Eva acht, Springer",
                "pawn file_e rank_8 , knight",
            ),
            (
                PROMOTION,
                "e8=N",
                Long,
                "Bauer Eva sieben Eva acht, Springer",
                "pawn file_e rank_7 file_e rank_8 , knight",
            ),
            (
                PROMOTION_CAPTURE,
                "exd8=Q",
                S,
                "Bauer Eva schlägt David acht, Dame",
                "pawn file_e takes file_d rank_8 , queen",
            ),
            (
                PROMOTION_CHECK,
                "e8=Q+",
                S,
                "Bauer Eva acht, Dame Schach",
                "pawn file_e rank_8 , queen check",
            ),
            (
                ROOK_CHECK,
                "Ra8+",
                S,
                "Turm Anna acht Schach",
                "rook file_a rank_8 check",
            ),
            (
                ROOK_CHECK,
                "Ra8+",
                Long,
                "Turm Anna eins Anna acht Schach",
                "rook file_a rank_1 file_a rank_8 check",
            ),
            (
                BACK_RANK_MATE,
                "Ra8#",
                S,
                "Turm Anna acht Schachmatt",
                "rook file_a rank_8 mate",
            ),
            (
                TWO_KNIGHTS,
                "Nbd2",
                S,
                "Springer Bella David zwei",
                "knight file_b file_d rank_2",
            ),
            (
                TWO_KNIGHTS,
                "Nbd2",
                Long,
                "Springer Bella eins David zwei",
                "knight file_b rank_1 file_d rank_2",
            ),
            (
                TWO_ROOKS,
                "R1a3",
                S,
                "Turm eins Anna drei",
                "rook rank_1 file_a rank_3",
            ),
            (
                THREE_QUEENS,
                "Qh4e1",
                S,
                "Dame Hector vier Eva eins",
                "queen file_h rank_4 file_e rank_1",
            ),
        ],
    );
}

#[test]
fn spanish_moves() {
    check_rows(
        &pack("es-fide"),
        &[
            (
                START,
                "Nf3",
                S,
                "Springer Felix drei",
                "knight file_f rank_3",
            ),
            (
                START,
                "Nf3",
                Long,
                "Springer Gustavo eins Felix drei",
                "knight file_g rank_1 file_f rank_3",
            ),
            (START, "e4", S, "Bauer Eva vier", "pawn file_e rank_4"),
            (
                KNIGHT_TAKES_ROOK,
                "Nxf3",
                S,
                "Springer captura Felix drei",
                "knight takes file_f rank_3",
            ),
            (
                PAWN_TAKES,
                "exd5",
                S,
                "Bauer Eva captura David fünf",
                "pawn file_e takes file_d rank_5",
            ),
            (
                EN_PASSANT,
                "exd6",
                S,
                "Bauer Eva captura David sechs al paso",
                "pawn file_e takes file_d rank_6 en_passant",
            ),
            (CASTLING, "O-O", S, "Kurze Rochade", "castle_short"),
            (CASTLING, "O-O-O", Long, "Lange Rochade", "castle_long"),
            (
                PROMOTION,
                "e8=Q",
                S,
                "Bauer Eva acht, Dame",
                "pawn file_e rank_8 , queen",
            ),
            (
                PROMOTION,
                "e8=R",
                S,
                "Bauer Eva acht, Turm",
                "pawn file_e rank_8 , rook",
            ),
            (
                PROMOTION,
                "e8=B",
                S,
                "Bauer Eva acht, Läufer",
                "pawn file_e rank_8 , bishop",
            ),
            (
                PROMOTION,
                "e8=N",
                S,
                "Bauer Eva acht, Springer",
                "pawn file_e rank_8 , knight",
            ),
            (
                ROOK_CHECK,
                "Ra8+",
                S,
                "Turm Ana acht jaque",
                "rook file_a rank_8 check",
            ),
            (
                BACK_RANK_MATE,
                "Ra8#",
                S,
                "Turm Ana acht jaque mate",
                "rook file_a rank_8 mate",
            ),
            (
                TWO_KNIGHTS,
                "Nbd2",
                S,
                "Springer Beatriz David zwei",
                "knight file_b file_d rank_2",
            ),
            (
                TWO_KNIGHTS,
                "Nbd2",
                Long,
                "Springer Beatriz eins David zwei",
                "knight file_b rank_1 file_d rank_2",
            ),
            (
                TWO_ROOKS,
                "R1a3",
                S,
                "Turm eins Ana drei",
                "rook rank_1 file_a rank_3",
            ),
            (
                THREE_QUEENS,
                "Qh4e1",
                S,
                "Dame Hector vier Eva eins",
                "queen file_h rank_4 file_e rank_1",
            ),
        ],
    );
}

#[test]
fn english_moves() {
    check_rows(
        &pack("en"),
        &[
            (
                START,
                "Nf3",
                S,
                "Knight Felix three",
                "knight file_f rank_3",
            ),
            (
                START,
                "Nf3",
                Long,
                "Knight Gustav one Felix three",
                "knight file_g rank_1 file_f rank_3",
            ),
            // pawn_name = false in the en pack, as lichess says pawn moves.
            (START, "e4", S, "Eva four", "file_e rank_4"),
            (
                START,
                "e4",
                Long,
                "Eva two Eva four",
                "file_e rank_2 file_e rank_4",
            ),
            (
                KNIGHT_TAKES_ROOK,
                "Nxf3",
                S,
                "Knight takes Felix three",
                "knight takes file_f rank_3",
            ),
            (
                PAWN_TAKES,
                "exd5",
                S,
                "Eva takes David five",
                "file_e takes file_d rank_5",
            ),
            (
                EN_PASSANT,
                "exd6",
                S,
                "Eva takes David six en passant",
                "file_e takes file_d rank_6 en_passant",
            ),
            (CASTLING, "O-O", S, "Short castling", "castle_short"),
            (CASTLING, "O-O-O", S, "Long castling", "castle_long"),
            (
                PROMOTION,
                "e8=Q",
                S,
                "Eva eight promotes to queen",
                "file_e rank_8 promotes_to queen",
            ),
            (
                PROMOTION,
                "e8=R",
                S,
                "Eva eight promotes to rook",
                "file_e rank_8 promotes_to rook",
            ),
            (
                PROMOTION,
                "e8=B",
                S,
                "Eva eight promotes to bishop",
                "file_e rank_8 promotes_to bishop",
            ),
            (
                PROMOTION,
                "e8=N",
                S,
                "Eva eight promotes to knight",
                "file_e rank_8 promotes_to knight",
            ),
            (
                PROMOTION_CHECK,
                "e8=Q+",
                S,
                "Eva eight promotes to queen check",
                "file_e rank_8 promotes_to queen check",
            ),
            (
                ROOK_CHECK,
                "Ra8+",
                S,
                "Rook Anna eight check",
                "rook file_a rank_8 check",
            ),
            (
                BACK_RANK_MATE,
                "Ra8#",
                S,
                "Rook Anna eight checkmate",
                "rook file_a rank_8 mate",
            ),
            (
                TWO_KNIGHTS,
                "Nbd2",
                S,
                "Knight Bella David two",
                "knight file_b file_d rank_2",
            ),
            (
                TWO_ROOKS,
                "R1a3",
                S,
                "Rook one Anna three",
                "rook rank_1 file_a rank_3",
            ),
            (
                THREE_QUEENS,
                "Qh4e1",
                Long,
                "Queen Hector four Eva one",
                "queen file_h rank_4 file_e rank_1",
            ),
        ],
    );
}

#[test]
fn english_file_names_are_selectable() {
    let letters = pack("en").with_files(FileNames::Letters).unwrap();
    check_rows(
        &letters,
        &[
            (START, "Nf3", S, "Knight F three", "knight letter_f rank_3"),
            (
                PAWN_TAKES,
                "exd5",
                S,
                "E takes D five",
                "letter_e takes letter_d rank_5",
            ),
        ],
    );
    let nato = pack("en").with_files(FileNames::Nato).unwrap();
    check_rows(
        &nato,
        &[
            (
                START,
                "Nf3",
                Long,
                "Knight Golf one Foxtrot three",
                "knight nato_g rank_1 nato_f rank_3",
            ),
            (
                TWO_KNIGHTS,
                "Nbd2",
                S,
                "Knight Bravo Delta two",
                "knight nato_b nato_d rank_2",
            ),
        ],
    );
    assert_eq!(pack("en").available_files(), FileNames::ALL);
    // The FIDE packs have only the Appendix F names: asking for others is a clear error.
    let err = pack("de-fide").with_files(FileNames::Nato).unwrap_err();
    assert!(err.to_string().contains("nato_a"), "{err}");
    assert_eq!(split_spec("en:nato"), Ok(("en", Some(FileNames::Nato))));
    assert_eq!(split_spec("de-fide"), Ok(("de-fide", None)));
    assert!(
        split_spec("en:greek")
            .unwrap_err()
            .contains("fide, letters or nato")
    );
}

#[test]
fn options_pawn_name_and_captured_piece() {
    let rows: [(&str, &str, &str, Style, &str, &str); 3] = [
        (
            "de-fide",
            KNIGHT_TAKES_ROOK,
            "Nxf3",
            S,
            "Springer schlägt Turm auf Felix drei",
            "knight takes rook on file_f rank_3",
        ),
        (
            "es-fide",
            KNIGHT_TAKES_ROOK,
            "Nxf3",
            Long,
            "Springer Gustavo eins captura Turm en Felix drei",
            "knight file_g rank_1 takes rook on file_f rank_3",
        ),
        (
            "en",
            PROMOTION_CAPTURE,
            "exd8=Q",
            S,
            "Pawn Eva takes rook on David eight promotes to queen",
            "pawn file_e takes rook on file_d rank_8 promotes_to queen",
        ),
    ];
    for (name, fen, san, style, text, clips) in rows {
        let named = pack(name).with_name_captured(true).with_pawn_name(true);
        check_rows(&named, &[(fen, san, style, text, clips)]);
    }
    // Without the pawn's name in the FIDE packs.
    check_rows(
        &pack("de-fide").with_pawn_name(false),
        &[
            (START, "e4", S, "Eva vier", "file_e rank_4"),
            (
                EN_PASSANT,
                "exd6",
                S,
                "Eva schlägt David sechs en passant",
                "file_e takes file_d rank_6 en_passant",
            ),
            (
                PROMOTION,
                "e8=Q",
                S,
                "Eva acht, Dame",
                "file_e rank_8 , queen",
            ),
        ],
    );
    // En passant stays en passant when captured pieces are named: the pawn is implied.
    check_rows(
        &pack("de-fide").with_name_captured(true),
        &[(
            EN_PASSANT,
            "exd6",
            S,
            "Bauer Eva schlägt David sechs en passant",
            "pawn file_e takes file_d rank_6 en_passant",
        )],
    );
}

fn said(pack: &VoicePack, a: Announcement) -> String {
    pack.render(&a, Style::San).text
}

const MIN: i64 = 60_000;
const HOUR: i64 = 60 * MIN;

fn times(white_used: i64, white_left: i64, black_used: i64, black_left: i64) -> Announcement {
    Announcement::Times {
        white_used_ms: white_used,
        white_left_ms: white_left,
        black_used_ms: black_used,
        black_left_ms: black_left,
    }
}

/// A duration as said, through the `times` template (white's time used).
fn duration(pack: &VoicePack, ms: i64) -> String {
    let text = assemble(pack.duration(ms)).text;
    // `assemble` capitalises the utterance; this is the middle of one.
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

#[test]
fn german_times_and_move_counts() {
    let de = pack("de-fide");
    assert_eq!(
        said(&de, times(HOUR + 12 * MIN, 58 * MIN, 59_000, 0)),
        "Weiß: verbraucht eine Stunde zwölf Minuten, verbleibend achtundfünfzig Minuten; \
         Schwarz: verbraucht neunundfünfzig Sekunden, verbleibend null Sekunden"
    );
    let cases = [
        (0, "null Sekunden"),
        (-5_000, "null Sekunden"),
        (999, "null Sekunden"),
        (1_000, "eine Sekunde"),
        (21_500, "einundzwanzig Sekunden"),
        (MIN, "eine Minute"),
        (MIN + 1_000, "eine Minute eine Sekunde"),
        (2 * MIN + 15_000, "zwei Minuten fünfzehn Sekunden"),
        (9 * MIN + 59_999, "neun Minuten neunundfünfzig Sekunden"),
        // Below an hour minutes and seconds: 14:49 left is not "vierzehn Minuten" (issue 37,
        // point 9).
        (10 * MIN + 30_000, "zehn Minuten dreißig Sekunden"),
        (
            14 * MIN + 49_999,
            "vierzehn Minuten neunundvierzig Sekunden",
        ),
        (21 * MIN, "einundzwanzig Minuten"),
        (
            59 * MIN + 59_000,
            "neunundfünfzig Minuten neunundfünfzig Sekunden",
        ),
        (HOUR, "eine Stunde"),
        (HOUR + MIN, "eine Stunde eine Minute"),
        (
            2 * HOUR + 59 * MIN + 59_000,
            "zwei Stunden neunundfünfzig Minuten",
        ),
        (120 * HOUR, "hundertzwanzig Stunden"),
    ];
    for (ms, want) in cases {
        assert_eq!(duration(&de, ms), want, "{ms} ms");
    }
    let moves = |white, black| said(&de, Announcement::MovesCompleted { white, black });
    assert_eq!(
        moves(23, 22),
        "Weiß: dreiundzwanzig Züge, Schwarz: zweiundzwanzig Züge"
    );
    assert_eq!(moves(1, 0), "Weiß: ein Zug, Schwarz: null Züge");
    assert_eq!(
        moves(121, 121),
        "Weiß: hunderteinundzwanzig Züge, Schwarz: hunderteinundzwanzig Züge"
    );
    let utterance = de.render(
        &Announcement::MovesCompleted {
            white: 1,
            black: 121,
        },
        Style::San,
    );
    assert_eq!(
        utterance.clips,
        [
            "side_white",
            PAUSE,
            "num_1_m",
            "move",
            PAUSE,
            "side_black",
            PAUSE,
            "hundreds_1",
            "num_21",
            "moves"
        ]
    );
    let utterance = de.render(&times(HOUR + 12 * MIN, MIN, 1_000, 0), Style::San);
    assert_eq!(
        utterance.clips.join(" "),
        "side_white _pause used num_1_f hour num_12 minutes _pause left num_1_f minute _pause \
         side_black _pause used num_1_f second _pause left num_0 seconds"
    );
}

#[test]
fn spanish_times_and_move_counts() {
    let es = pack("es-fide");
    assert_eq!(
        said(&es, times(HOUR + 12 * MIN, 58 * MIN, 21 * MIN, 0)),
        "Blancas: usado una hora y doce minutos, restante cincuenta y ocho minutos; \
         negras: usado veintiún minutos, restante cero segundos"
    );
    let cases = [
        (0, "cero segundos"),
        (1_000, "un segundo"),
        (MIN, "un minuto"),
        (MIN + 31_000, "un minuto y treinta y un segundos"),
        (21 * HOUR, "veintiuna horas"),
        (HOUR + MIN, "una hora y un minuto"),
    ];
    for (ms, want) in cases {
        assert_eq!(duration(&es, ms), want, "{ms} ms");
    }
    let moves = |white, black| said(&es, Announcement::MovesCompleted { white, black });
    assert_eq!(moves(1, 0), "Blancas: una jugada, negras: cero jugadas");
    assert_eq!(
        moves(21, 121),
        "Blancas: veintiuna jugadas, negras: ciento veintiuna jugadas"
    );
    let clips = es
        .render(
            &Announcement::MovesCompleted {
                white: 21,
                black: 1,
            },
            Style::San,
        )
        .clips;
    assert_eq!(
        clips,
        [
            "side_white",
            PAUSE,
            "num_21_f",
            "moves",
            PAUSE,
            "side_black",
            PAUSE,
            "num_1_f",
            "move"
        ]
    );
}

#[test]
fn english_times_and_move_counts() {
    let en = pack("en");
    assert_eq!(
        said(&en, times(HOUR + 12 * MIN, 58 * MIN, 59_000, 0)),
        "White: used one hour and twelve minutes, left fifty-eight minutes; \
         Black: used fifty-nine seconds, left zero seconds"
    );
    let cases = [
        (1_000, "one second"),
        (MIN, "one minute"),
        (3 * MIN + 1_000, "three minutes and one second"),
        (HOUR, "one hour"),
        (25 * HOUR, "twenty-five hours"),
    ];
    for (ms, want) in cases {
        assert_eq!(duration(&en, ms), want, "{ms} ms");
    }
    let moves = |white, black| said(&en, Announcement::MovesCompleted { white, black });
    assert_eq!(moves(1, 0), "White: one move, Black: zero moves");
    assert_eq!(
        moves(40, 1_000),
        "White: forty moves, Black: one zero zero zero moves"
    );
}

fn white(role: Role) -> Piece {
    Piece {
        color: Color::White,
        role,
    }
}

fn black(role: Role) -> Piece {
    Piece {
        color: Color::Black,
        role,
    }
}

#[test]
fn german_guidance_and_replies() {
    let de = pack("de-fide");
    let cases = [
        (
            Announcement::Guidance(Guidance::Misplaced {
                piece: white(Role::Knight),
                found: Square::F4,
                belongs: Square::F3,
            }),
            "Springer steht auf Felix vier, gehört auf Felix drei",
        ),
        (
            Announcement::Guidance(Guidance::Missing {
                square: Square::E4,
                piece: white(Role::Pawn),
            }),
            "Eva vier ist leer, dort gehört ein weißer Bauer hin",
        ),
        (
            Announcement::Guidance(Guidance::Missing {
                square: Square::D8,
                piece: black(Role::Queen),
            }),
            "David acht ist leer, dort gehört eine schwarze Dame hin",
        ),
        (
            Announcement::Guidance(Guidance::Extra {
                square: Square::F4,
                piece: None,
            }),
            "Felix vier muss leer sein",
        ),
        (
            Announcement::Guidance(Guidance::Extra {
                square: Square::F4,
                piece: Some(black(Role::Knight)),
            }),
            "Auf Felix vier steht ein schwarzer Springer, Felix vier muss leer sein",
        ),
        (
            Announcement::Guidance(Guidance::Wrong {
                square: Square::E4,
                found: black(Role::Knight),
                belongs: white(Role::Pawn),
            }),
            "Auf Eva vier steht ein schwarzer Springer, dort gehört ein weißer Bauer hin",
        ),
        (
            Announcement::Guidance(Guidance::More { squares: 11 }),
            "Und elf weitere Felder",
        ),
        (
            Announcement::Guidance(Guidance::More { squares: 1 }),
            "Und ein weiteres Feld",
        ),
        (Announcement::Stalemate, "Patt"),
        (Announcement::DeadPosition, "Tote Stellung, Remis"),
        (
            Announcement::DrawOffered { by: Color::White },
            "Remis angeboten",
        ),
        (Announcement::DrawAccepted, "Remis angenommen"),
        (
            Announcement::DrawDeclined { by: Color::Black },
            "Remis abgelehnt",
        ),
        (
            Announcement::ClaimMade {
                by: Color::Black,
                article: Article::A9_2a,
            },
            "Schwarz beansprucht Remis, dreifache Stellungswiederholung",
        ),
        (
            Announcement::ClaimUpheld {
                article: Article::A9_3b,
            },
            "Reklamation anerkannt, Remis",
        ),
        (
            Announcement::ClaimRejected {
                article: Article::A9_3a,
            },
            "Reklamation abgelehnt",
        ),
        (
            Announcement::FlagFell { side: Color::White },
            "Zeitüberschreitung, Weiß",
        ),
        (
            Announcement::Result(ResultWords::BlackWins),
            "Schwarz gewinnt",
        ),
        (Announcement::Result(ResultWords::Draw), "Remis"),
        (
            Announcement::Touched {
                piece: white(Role::Knight),
                square: Square::G1,
            },
            "Springer Gustav eins berührt",
        ),
        (Announcement::IllegalMove, "Zug nicht möglich"),
        (
            Announcement::SquareContents {
                square: Square::F3,
                piece: Some(white(Role::Knight)),
            },
            "Auf Felix drei steht ein weißer Springer",
        ),
        (
            Announcement::SquareContents {
                square: Square::F3,
                piece: None,
            },
            "Felix drei ist leer",
        ),
        (
            Announcement::LineContents {
                pieces: vec![
                    (Square::A1, white(Role::Rook)),
                    (Square::E1, white(Role::King)),
                ],
            },
            "Anna eins weißer Turm, Eva eins weißer König",
        ),
        (
            Announcement::LineContents { pieces: vec![] },
            "Keine Figuren",
        ),
        (
            Announcement::PiecesOfKind {
                piece: black(Role::Knight),
                squares: vec![Square::B8, Square::G8],
            },
            "Springer, Schwarz: Bella acht, Gustav acht",
        ),
        (
            Announcement::PiecesOfKind {
                piece: white(Role::Queen),
                squares: vec![],
            },
            "Dame, Weiß: keine",
        ),
        (
            Announcement::Material {
                white: 39,
                black: 31,
            },
            "Material: Weiß neununddreißig, Schwarz einunddreißig",
        ),
        (
            Announcement::ToMove { side: Color::Black },
            "Schwarz am Zug",
        ),
        (
            Announcement::BoardDisconnected {
                board: WhichBoard::Tactile,
            },
            "Tastbrett getrennt",
        ),
        (
            Announcement::BoardReconnected {
                board: WhichBoard::Sighted,
            },
            "Brett des sehenden Spielers wieder verbunden",
        ),
        (Announcement::GameRecovered, "Partie wiederhergestellt"),
        (
            Announcement::GameStarted { side: Color::White },
            "Die Partie beginnt, Weiß am Zug",
        ),
        (Announcement::ClocksPaused, "Uhren angehalten"),
        (Announcement::ClocksResumed, "Uhren laufen wieder"),
        (
            Announcement::SpeechFallback,
            "Sprachausgabe gestört, weiter mit Aufnahmen",
        ),
        (
            Announcement::MoveHeld,
            "Uhren angehalten, der Zug zählt danach",
        ),
        (
            Announcement::MoveRequired {
                mv: words_of(START, "e4"),
            },
            "Zug nicht möglich, Pflichtzug: Bauer Eva vier",
        ),
        (
            Announcement::NoMoveToCount,
            "Kein Zug auf dem Brett, die Uhr läuft weiter",
        ),
        (
            Announcement::OwnMove(words_of(START, "Nf3")),
            "Springer Felix drei",
        ),
        (
            Announcement::ClockChanged {
                side: Color::White,
                by_ms: 0,
            },
            "Uhr geändert: Weiß",
        ),
        (
            Announcement::ClockChanged {
                side: Color::Black,
                by_ms: 180_000,
            },
            "Uhr geändert: Schwarz, plus drei Minuten",
        ),
        (
            Announcement::ClockChanged {
                side: Color::White,
                by_ms: -60_000,
            },
            "Uhr geändert: Weiß, minus eine Minute",
        ),
        (Announcement::OutOfTurn, "Nicht am Zug"),
        (
            Announcement::Hint(words_of(START, "Nf3")),
            "Vorschlag: Springer Felix drei",
        ),
        (
            Announcement::Standing(crate::engine::Standing::SlightlyBetter(Color::White)),
            "Weiß steht etwas besser",
        ),
        (
            Announcement::Standing(crate::engine::Standing::MatesIn(Color::Black, 3)),
            "Schwarz setzt matt in drei Zügen",
        ),
        (
            Announcement::Standing(crate::engine::Standing::Equal),
            "Stellung ausgeglichen",
        ),
        (
            Announcement::OpponentAway,
            "Gegner antwortet nicht, Uhren angehalten",
        ),
        (Announcement::TrainingOnly, "Nur im Training"),
        (
            Announcement::ResignAsked,
            "Zum Aufgeben noch einmal eingeben",
        ),
        (
            Announcement::ReviewMoment {
                number: 4,
                played: words_of(START, "e4"),
                better: words_of(START, "Nf3"),
                missed_mate: true,
            },
            "Zug vier: gespielt Bauer Eva vier, besser Springer Felix drei, Matt übersehen",
        ),
        (Announcement::ReviewEnd, "Ende der Durchsicht"),
        (
            Announcement::RequestSwitchedOff,
            "Anfrage vom Schiedsrichter abgeschaltet",
        ),
        (
            Announcement::RecordingHalted,
            "Aufzeichnung gestört, Uhren angehalten",
        ),
        (
            Announcement::RecordingRestored,
            "Aufzeichnung wieder möglich",
        ),
        (Announcement::Refused(Refusal::Unknown), "Befehl unbekannt"),
        (
            Announcement::Refused(Refusal::NotAllowed),
            "Befehl nicht erlaubt",
        ),
        (Announcement::Refused(Refusal::BadEntry), "Eingabe ungültig"),
        (
            Announcement::Refused(Refusal::NotNow),
            "Jetzt nicht möglich",
        ),
        (
            Announcement::ButtonUnassigned { number: 7 },
            "Taste sieben nicht belegt",
        ),
        (
            Announcement::ButtonUnassigned { number: 1 },
            "Taste eins nicht belegt",
        ),
    ];
    for (announcement, want) in cases {
        assert_eq!(said(&de, announcement.clone()), want, "{announcement:?}");
    }
    let misplaced = de.render(
        &Announcement::Guidance(Guidance::Missing {
            square: Square::E4,
            piece: white(Role::Pawn),
        }),
        Style::San,
    );
    assert_eq!(
        misplaced.clips,
        [
            "file_e",
            "rank_4",
            "is_empty",
            PAUSE,
            "belongs_there",
            "article_m",
            "white_m",
            "pawn",
            "there"
        ]
    );
}

#[test]
fn spanish_and_english_guidance() {
    let es = pack("es-fide");
    let missing = Announcement::Guidance(Guidance::Missing {
        square: Square::E4,
        piece: white(Role::Pawn),
    });
    let u = es.render(&missing, Style::San);
    assert_eq!(u.text, "Eva vier está vacía, ahí va un Bauer blanco");
    // A compound word is said with the clips of its parts: the German piece with a German voice.
    assert_eq!(
        u.clips,
        [
            "file_e",
            "rank_4",
            "is_empty",
            PAUSE,
            "goes_there",
            "article_m",
            "pawn",
            "white_m"
        ]
    );
    let wrong = Announcement::Guidance(Guidance::Wrong {
        square: Square::D1,
        found: black(Role::Rook),
        belongs: white(Role::Queen),
    });
    assert_eq!(
        said(&es, wrong.clone()),
        "En David eins hay una Turm negra, ahí va una Dame blanca"
    );
    assert_eq!(said(&es, Announcement::Stalemate), "Ahogado");
    assert_eq!(
        said(&es, Announcement::DrawOffered { by: Color::Black }),
        "Tablas ofrecidas"
    );
    assert_eq!(
        said(&es, Announcement::ToMove { side: Color::White }),
        "Juegan las blancas"
    );

    let en = pack("en");
    assert_eq!(
        said(&en, missing),
        "Eva four is empty, a white pawn belongs there"
    );
    assert_eq!(
        said(&en, wrong),
        "On David one stands a black rook, a white queen belongs there"
    );
    assert_eq!(
        said(
            &en,
            Announcement::ClaimMade {
                by: Color::White,
                article: Article::A9_3b
            }
        ),
        "White claims a draw, fifty-move rule"
    );
}

/// Every announcement kind with a spread of arguments: moves of positions with every move kind,
/// all pieces on many squares, times and counts over wide ranges.
fn every_announcement() -> Vec<Announcement> {
    let mut all = Vec::new();
    for fen in [
        START,
        AFTER_E4,
        KNIGHT_TAKES_ROOK,
        PAWN_TAKES,
        EN_PASSANT,
        CASTLING,
        PROMOTION,
        PROMOTION_CAPTURE,
        PROMOTION_CHECK,
        ROOK_CHECK,
        BACK_RANK_MATE,
        TWO_KNIGHTS,
        TWO_ROOKS,
        THREE_QUEENS,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    ] {
        let pos = position(fen);
        let moves: Vec<MoveWords> = pos
            .legal_moves()
            .iter()
            .map(|&m| MoveWords::new(&pos, m))
            .collect();
        all.extend(moves.iter().map(|&w| Announcement::Move(w)));
        // Read back as a reply: one move, and a whole move (a number past the single clips).
        all.push(Announcement::Recital {
            number: 1,
            moves: moves[..1].to_vec(),
        });
        all.push(Announcement::MoveRequired { mv: moves[0] });
        all.push(Announcement::OwnMove(moves[0]));
        all.push(Announcement::Hint(moves[0]));
        for missed_mate in [true, false] {
            all.push(Announcement::ReviewMoment {
                number: 12,
                played: moves[0],
                better: moves[moves.len() - 1],
                missed_mate,
            });
        }
        all.push(Announcement::Recital {
            number: 63,
            moves: moves[..2.min(moves.len())].to_vec(),
        });
    }
    let colors = [Color::White, Color::Black];
    let pieces: Vec<Piece> = colors
        .iter()
        .flat_map(|&color| ROLES.iter().map(move |&role| Piece { color, role }))
        .collect();
    let squares = [
        Square::A1,
        Square::B2,
        Square::C3,
        Square::D4,
        Square::E5,
        Square::F6,
        Square::G7,
        Square::H8,
        Square::H1,
        Square::A8,
    ];
    for squares in [1, 2, 11] {
        all.push(Announcement::Guidance(Guidance::More { squares }));
    }
    for &piece in &pieces {
        for &square in &squares {
            all.push(Announcement::Touched { piece, square });
            all.push(Announcement::SquareContents {
                square,
                piece: Some(piece),
            });
            all.push(Announcement::Guidance(Guidance::Missing { square, piece }));
            all.push(Announcement::Guidance(Guidance::Extra {
                square,
                piece: Some(piece),
            }));
            all.push(Announcement::Guidance(Guidance::Misplaced {
                piece,
                found: square,
                belongs: Square::E4,
            }));
            for &other in &pieces {
                all.push(Announcement::Guidance(Guidance::Wrong {
                    square,
                    found: piece,
                    belongs: other,
                }));
            }
        }
        all.push(Announcement::PiecesOfKind {
            piece,
            squares: squares.to_vec(),
        });
        all.push(Announcement::PiecesOfKind {
            piece,
            squares: vec![],
        });
    }
    for &square in &squares {
        all.push(Announcement::SquareContents {
            square,
            piece: None,
        });
        all.push(Announcement::Guidance(Guidance::Extra {
            square,
            piece: None,
        }));
    }
    all.push(Announcement::LineContents {
        pieces: squares.iter().zip(&pieces).map(|(s, p)| (*s, *p)).collect(),
    });
    all.push(Announcement::LineContents { pieces: vec![] });
    for n in (0..=1_200)
        .step_by(7)
        .chain([1, 21, 100, 101, 121, 200, 999, u32::MAX])
    {
        all.push(Announcement::MovesCompleted {
            white: n,
            black: n / 2,
        });
        all.push(Announcement::Material {
            white: n,
            black: n % 40,
        });
    }
    for seconds in (0..=4 * 3600)
        .step_by(61)
        .chain([-1, 0, 1, 59, 60, 61, 599, 600, 3600, 3661, 1_000_000])
    {
        let ms = seconds * 1000;
        all.push(times(ms, ms / 2, 3 * ms, ms + 999));
    }
    for color in colors {
        all.push(Announcement::DrawOffered { by: color });
        all.push(Announcement::DrawDeclined { by: color });
        all.push(Announcement::FlagFell { side: color });
        all.push(Announcement::ToMove { side: color });
        for article in [
            Article::A9_2a,
            Article::A9_2b,
            Article::A9_3a,
            Article::A9_3b,
        ] {
            all.push(Announcement::ClaimMade { by: color, article });
            all.push(Announcement::ClaimUpheld { article });
            all.push(Announcement::ClaimRejected { article });
        }
    }
    for board in [WhichBoard::Tactile, WhichBoard::Sighted] {
        all.push(Announcement::BoardDisconnected { board });
        all.push(Announcement::BoardReconnected { board });
    }
    for result in [
        ResultWords::WhiteWins,
        ResultWords::BlackWins,
        ResultWords::Draw,
    ] {
        all.push(Announcement::Result(result));
    }
    all.extend([
        Announcement::Stalemate,
        Announcement::DeadPosition,
        Announcement::DrawAccepted,
        Announcement::IllegalMove,
        Announcement::OutOfTurn,
        Announcement::ClockChanged {
            side: Color::White,
            by_ms: 120_000,
        },
        Announcement::ClockChanged {
            side: Color::Black,
            by_ms: -90_000,
        },
        Announcement::GameRecovered,
        Announcement::GameStarted { side: Color::White },
        Announcement::GameStarted { side: Color::Black },
        Announcement::ClocksPaused,
        Announcement::ClocksResumed,
        Announcement::SpeechFallback,
        Announcement::Adjourned { by: Color::White },
        Announcement::Adjourned { by: Color::Black },
        Announcement::EnvelopeOpened,
        Announcement::SealedMoveInvalid,
        Announcement::NoMoveYet,
        Announcement::NoClock,
        Announcement::Retraced { side: Color::White },
        Announcement::Retraced { side: Color::Black },
        Announcement::MoveHeld,
        Announcement::NoMoveToCount,
        Announcement::ClockChanged {
            side: Color::White,
            by_ms: 0,
        },
        Announcement::ClockChanged {
            side: Color::Black,
            by_ms: 0,
        },
        Announcement::OpponentAway,
        Announcement::OpponentBack,
        Announcement::TrainingOnly,
        Announcement::ResignAsked,
        Announcement::ReviewEnd,
        Announcement::RequestSwitchedOff,
        Announcement::RecordingHalted,
        Announcement::RecordingRestored,
        Announcement::Standing(crate::engine::Standing::Equal),
        Announcement::Refused(Refusal::Unknown),
        Announcement::Refused(Refusal::NotAllowed),
        Announcement::Refused(Refusal::BadEntry),
        Announcement::Refused(Refusal::NotNow),
    ]);
    for number in [0, 1, 2, 7, 12, 21, u8::MAX] {
        all.push(Announcement::ButtonUnassigned { number });
    }
    for side in [Color::White, Color::Black] {
        use crate::engine::Standing as S;
        all.extend(
            [
                S::SlightlyBetter(side),
                S::ClearlyBetter(side),
                S::Winning(side),
                S::MatesIn(side, 1),
                S::MatesIn(side, 12),
            ]
            .map(Announcement::Standing),
        );
    }
    all
}

#[test]
fn every_announcement_renders_completely_in_every_pack() {
    let all = every_announcement();
    assert!(all.len() > 2_000, "{}", all.len());
    let mut variants = std::collections::BTreeSet::new();
    for name in BUILTIN {
        for files in pack(name).available_files() {
            let voice = pack(name).with_files(files).unwrap();
            let stems = voice.clip_stems();
            for pawn_name in [true, false] {
                for name_captured in [true, false] {
                    let voice = voice
                        .clone()
                        .with_pawn_name(pawn_name)
                        .with_name_captured(name_captured);
                    for announcement in &all {
                        variants.insert(variant(announcement));
                        for style in [Style::San, Style::Long] {
                            let u = voice.render(announcement, style);
                            let context =
                                format!("{name} {files:?} {style:?} {announcement:?}: {u:?}");
                            assert!(!u.text.is_empty() && !u.clips.is_empty(), "{context}");
                            assert!(!u.text.contains(['{', '}', '_']), "{context}");
                            assert!(
                                !u.text.contains("  ") && u.text.trim() == u.text,
                                "{context}"
                            );
                            for clip in &u.clips {
                                assert!(clip == PAUSE || stems.contains(clip), "{context}: {clip}");
                            }
                            assert!(u.clips.first() != Some(&PAUSE.to_owned()), "{context}");
                            assert!(u.clips.last() != Some(&PAUSE.to_owned()), "{context}");
                            assert!(
                                !u.clips.windows(2).any(|w| w[0] == PAUSE && w[1] == PAUSE),
                                "{context}"
                            );
                            // Every pause is written as a punctuation mark, and only then.
                            let marks = u.text.matches(PUNCTUATION).count();
                            let pauses = u.clips.iter().filter(|c| *c == PAUSE).count();
                            assert_eq!(marks, pauses, "{context}");
                        }
                    }
                }
            }
        }
    }
    assert_eq!(
        variants.len(),
        VARIANTS,
        "every variant of Announcement is in the list"
    );
}

const VARIANTS: usize = 54;

/// The index of an announcement's variant. The match is exhaustive, so a new variant does not
/// compile until it is numbered here, and the coverage test then fails until it is in the list.
fn variant(a: &Announcement) -> usize {
    use Announcement as A;
    match a {
        A::Move(_) => 0,
        A::Stalemate => 1,
        A::DeadPosition => 2,
        A::DrawOffered { .. } => 3,
        A::DrawAccepted => 4,
        A::DrawDeclined { .. } => 5,
        A::ClaimMade { .. } => 6,
        A::ClaimUpheld { .. } => 7,
        A::ClaimRejected { .. } => 8,
        A::FlagFell { .. } => 9,
        A::Result(_) => 10,
        A::Touched { .. } => 11,
        A::IllegalMove => 12,
        A::Guidance(_) => 13,
        A::MovesCompleted { .. } => 14,
        A::Times { .. } => 15,
        A::SquareContents { .. } => 16,
        A::LineContents { .. } => 17,
        A::PiecesOfKind { .. } => 18,
        A::Material { .. } => 19,
        A::ToMove { .. } => 20,
        A::BoardDisconnected { .. } => 21,
        A::BoardReconnected { .. } => 22,
        A::GameRecovered => 23,
        A::ClocksPaused => 24,
        A::ClocksResumed => 25,
        A::SpeechFallback => 26,
        A::Adjourned { .. } => 27,
        A::EnvelopeOpened => 28,
        A::SealedMoveInvalid => 29,
        A::Retraced { .. } => 30,
        A::Recital { .. } => 31,
        A::NoMoveYet => 32,
        A::NoClock => 33,
        A::MoveHeld => 34,
        A::MoveRequired { .. } => 35,
        A::NoMoveToCount => 36,
        A::OwnMove(_) => 37,
        A::ClockChanged { .. } => 38,
        A::Hint(_) => 39,
        A::Standing(_) => 40,
        A::OpponentAway => 41,
        A::OpponentBack => 42,
        A::TrainingOnly => 43,
        A::ReviewMoment { .. } => 44,
        A::ReviewEnd => 45,
        A::GameStarted { .. } => 46,
        A::OutOfTurn => 47,
        A::RequestSwitchedOff => 48,
        A::RecordingHalted => 49,
        A::RecordingRestored => 50,
        A::Refused(_) => 51,
        A::ButtonUnassigned { .. } => 52,
        A::ResignAsked => 53,
    }
}

#[test]
fn clip_stems_are_every_plain_word_and_ascii() {
    for name in BUILTIN {
        let voice = pack(name);
        let stems = voice.clip_stems();
        assert!(stems.iter().all(|s| valid_key(s)), "{name}");
        assert!(!stems.contains(PAUSE));
        for (key, word) in voice.words() {
            assert_eq!(
                stems.contains(key),
                matches!(word, Word::Spoken { .. }),
                "{name} {key}"
            );
        }
        // Numbers 0..=59, the tens and the hundreds each have a clip.
        for n in (0..=59).chain([60, 70, 80, 90]) {
            assert!(stems.contains(&format!("num_{n}")), "{name} {n}");
        }
        for h in 1..=9 {
            assert!(stems.contains(&format!("hundreds_{h}")), "{name} {h}");
        }
        assert_eq!(voice.language(), &name[..2]);
    }
    // es-fide records the German names with a German voice.
    let es = pack("es-fide").clip_texts();
    let knight = es.iter().find(|c| c.stem == "knight").unwrap();
    assert_eq!(
        (knight.text.as_str(), knight.language.as_str()),
        ("Springer", "de")
    );
    let takes = es.iter().find(|c| c.stem == "takes").unwrap();
    assert_eq!(takes.language, "es");
}

// ---------------------------------------------------------------------------------------------
// The checks of `parse`: each names the pack, the origin and the word or template.

const DE: &str = include_str!("../../../../voices/de-fide/voice.toml");

fn parse_error(text: &str) -> String {
    VoicePack::parse("test-pack", text, "voices/test-pack/voice.toml")
        .unwrap_err()
        .to_string()
}

fn assert_names(err: &str, parts: &[&str]) {
    for part in ["test-pack", "voices/test-pack/voice.toml"]
        .iter()
        .chain(parts)
    {
        assert!(err.contains(part), "'{part}' not in: {err}");
    }
}

#[test]
fn every_shipped_pack_heads_the_records_in_its_language() {
    // Issue 26, point 9: a German player's Braille score was headed ",EVENT3 ... ,WHITE3".
    for (name, event, white, black) in [
        ("de-fide", "Turnier", "Weiß", "Schwarz"),
        ("es-fide", "Torneo", "Blancas", "Negras"),
        ("en", "Event", "White", "Black"),
    ] {
        let words = pack(name)
            .record_words()
            .cloned()
            .unwrap_or_else(|| panic!("{name} has no [record]"));
        assert_eq!(
            (
                words.event.as_str(),
                words.white.as_str(),
                words.black.as_str()
            ),
            (event, white, black),
            "{name}"
        );
        assert!(words.all().iter().all(|(_, text)| !text.trim().is_empty()));
        // Written only: no word, so no clip, comes of them.
        let stems = pack(name).clip_stems();
        assert!(
            !stems.contains("event") && !stems.contains("round"),
            "{name}"
        );
    }
}

#[test]
fn record_words_are_checked() {
    // Optional as a whole (a pack without it heads the score in the Braille profile's words),
    // complete when present.
    let start = DE.find("\n[record]").unwrap();
    let without = &DE[..start];
    assert!(
        VoicePack::parse("test-pack", without, "x")
            .unwrap()
            .record_words()
            .is_none()
    );
    let err = parse_error(&DE.replace("round = \"Runde\"\n", ""));
    assert_names(&err, &["round"]);
    let err = parse_error(&DE.replace("round = \"Runde\"", "round = \" \""));
    assert_names(&err, &["heading 'round'", "no text"]);
    let err = parse_error(&DE.replace("round = \"Runde\"", "rounds = \"Runde\""));
    assert_names(&err, &["rounds"]);
}

#[test]
fn every_shipped_pack_has_its_keypads_lines_in_its_language() {
    // Issue 37, point 7: his keypad greeted him "tactus console, role assistant".
    for (name, white, back) in [
        (
            "de-fide",
            "Tastatur von Weiß: hilfe zeigt die Befehle",
            "wieder verbunden",
        ),
        (
            "es-fide",
            "teclado de Blancas: ayuda muestra las órdenes",
            "conectado de nuevo",
        ),
        (
            "en",
            "keypad of White: type help for the commands",
            "connected again",
        ),
    ] {
        let words = pack(name).keypad().clone();
        assert_eq!(words.ready(Color::White), white, "{name}");
        assert_eq!(words.back, back, "{name}");
        assert!(words.not_sent("zeit").ends_with(": zeit"), "{name}");
        // Shown only: no clip comes of them.
        assert!(!pack(name).clip_stems().contains("ready"), "{name}");
    }
}

#[test]
fn keypad_lines_are_checked() {
    // Optional as a whole (English without it), complete when present, each with its own slots.
    let start = DE.find("\n[keypad]").unwrap();
    let without = VoicePack::parse("test-pack", &DE[..start], "x").unwrap();
    assert_eq!(
        without.keypad().ready(Color::Black),
        "keypad of black: type help for the commands"
    );
    let err = parse_error(&DE.replace("back = \"wieder verbunden\"\n", ""));
    assert_names(&err, &["back"]);
    let err = parse_error(&DE.replace("back = \"wieder verbunden\"", "back = \" \""));
    assert_names(&err, &["'back' in [keypad]", "no text"]);
    let err = parse_error(&DE.replace("Tastatur von {side}", "Tastatur von {seat}"));
    assert_names(&err, &["'ready' in [keypad]", "{seat}", "{side}"]);
    let err = parse_error(&DE.replace("erreichbar: {line}", "erreichbar: {line"));
    assert_names(&err, &["'not_sent'", "no '}'"]);
}

#[test]
fn a_missing_word_is_named() {
    let err = parse_error(&DE.replace("file_c = \"Cesar\"\n", ""));
    assert_names(&err, &["'file_c'", "every square"]);
    let err = parse_error(&DE.replace("takes = \"schlägt\"\n", ""));
    assert_names(&err, &["'takes'", "template 'capture"]);
    let err = parse_error(&DE.replace(
        "a_black_queen = [\"article_f\", \"black_f\", \"queen\"]\n",
        "",
    ));
    assert_names(&err, &["'a_black_queen'", "{a_piece}"]);
}

#[test]
fn template_mistakes_are_named() {
    let err = parse_error(&DE.replace("stalemate = \"stalemate\"\n", ""));
    assert_names(&err, &["template 'stalemate' is missing"]);
    let err = parse_error(&DE.replace(
        "move = \"{piece} {origin} {to}\"",
        "move = \"{piece} {from} {to}\"",
    ));
    assert_names(&err, &["'move'", "{from}", "{origin}"]);
    let err = parse_error(&DE.replace("[templates]\n", "[templates]\nmoove = \"move\"\n"));
    assert_names(&err, &["'moove'", "move, capture"]);
    let err = parse_error(&DE.replace("check = \"{move} check\"", "check = \"{move} Schach\""));
    assert_names(&err, &["'Schach'", "[words]"]);
}

#[test]
fn word_mistakes_are_named() {
    let err = parse_error(&DE.replace("[words]\n", "[words]\nchek = \"Schach\"\n"));
    assert_names(&err, &["'chek'", "used by no template"]);
    let err = parse_error(&DE.replace("[words]\n", "[words]\n\"Check\" = \"Schach\"\n"));
    assert_names(&err, &["'Check'", "lower-case ASCII"]);
    let err = parse_error(&DE.replace("draw = \"Remis\"", "draw = \"\""));
    assert_names(&err, &["'draw'", "no text"]);
    let err = parse_error(&DE.replace(
        "white_pawn = [\"white_m\", \"pawn\"]",
        "white_pawn = [\"white_m\", \"weiss\"]",
    ));
    assert_names(&err, &["'white_pawn'", "'weiss'"]);
    let err = parse_error(&DE.replace("[words]\n", "[words]\nletter_a = \"A\"\n"));
    assert_names(&err, &["'letter_b'", "'letters'"]);
    let err = parse_error(&DE.replace("files = \"fide\"", "files = \"nato\""));
    assert_names(&err, &["nato_a"]);
    let err = parse_error(&DE.replace("language = \"de\"", "language = \"fr\""));
    assert_names(&err, &["'fr'", "de, es and en"]);
    let err = parse_error(&DE.replace("pawn_name = true", "pawn_names = true"));
    assert_names(&err, &["pawn_names"]);
    let err = parse_error(&DE.replace("draw = \"Remis\"", "draw = 5"));
    assert_names(&err, &["'draw'", "list of word keys"]);
    let err = parse_error(&DE.replace(
        "draw = \"Remis\"",
        "draw = { text = \"Remis\", lnag = \"de\" }",
    ));
    assert_names(&err, &["'draw'", "'lnag'"]);
}

#[test]
fn a_pack_may_override_a_number_word() {
    let text = DE.replace("[words]\n", "[words]\nnum_2 = \"zwo\"\n");
    let voice = VoicePack::parse("de-zwo", &text, "test").unwrap();
    assert_eq!(
        said(&voice, Announcement::MovesCompleted { white: 2, black: 2 }),
        "Weiß: zwo Züge, Schwarz: zwo Züge"
    );
}

#[test]
fn template_syntax() {
    assert_eq!(
        parse_template("{move}, {promoted}").unwrap(),
        [
            Token::Slot("move".into()),
            Token::Pause(','),
            Token::Slot("promoted".into())
        ]
    );
    assert_eq!(
        parse_template("a : b;").unwrap(),
        [
            Token::Word("a".into()),
            Token::Pause(':'),
            Token::Word("b".into()),
            Token::Pause(';')
        ]
    );
    assert!(parse_template("{Move}").is_err());
    assert!(parse_template("{move").is_err());
    assert!(parse_template("Springer").is_err());
}

#[test]
fn styles_and_specs_read_from_text() {
    assert_eq!("san".parse::<Style>(), Ok(Style::San));
    assert_eq!("long".parse::<Style>(), Ok(Style::Long));
    assert!("uci".parse::<Style>().unwrap_err().contains("san or long"));
    assert_eq!(
        BUILTIN.iter().filter_map(|n| VoicePack::builtin(n)).count(),
        3
    );
    assert!(VoicePack::builtin("xx").is_none());
    assert!(BUILTIN.contains(&DEFAULT_VOICE));
}

#[test]
fn utterances_start_with_a_capital_letter() {
    // An umlaut too: the text is for people and text-to-speech.
    let text = DE.replace("stalemate = \"Patt\"", "stalemate = \"überhaupt kein Zug\"");
    let voice = VoicePack::parse("x", &text, "x").unwrap();
    assert_eq!(said(&voice, Announcement::Stalemate), "Überhaupt kein Zug");
    let _ = position(START).turn();
}

/// Issue 15: a move read back says its number and each side's colour, in the pack's words.
#[test]
fn a_move_read_back_says_its_number_and_the_colours() {
    let pack = VoicePack::builtin("de-fide").unwrap();
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"] {
        let m = san
            .parse::<shakmaty::san::San>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        moves.push(MoveWords::new(&pos, m));
        pos.play_unchecked(m);
    }
    let said = pack
        .render(
            &Announcement::Recital {
                number: 3,
                moves: moves[4..].to_vec(),
            },
            Style::San,
        )
        .text;
    assert_eq!(
        said,
        "Drei, Weiß Läufer Bella fünf, Schwarz Springer Felix sechs"
    );
    let en = VoicePack::builtin("en").unwrap();
    let said = en
        .render(
            &Announcement::Recital {
                number: 3,
                moves: moves[4..5].to_vec(),
            },
            Style::San,
        )
        .text;
    assert!(said.starts_with("Three, White "), "{said}");
}
