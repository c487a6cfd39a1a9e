//! Tests of reading (strict SAN, errors named where they stand), of the clock comments, and of
//! writing (the roster, escaping, wrapping, the round trip).

use pgn_reader::SanPlus;
use shakmaty::{CastlingMode, Chess, Color, Position, fen::Fen};

use super::*;

const GAME: &str = r#"[Event "Club"]
[Site "Here"]
[Date "2024.01.02"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0
"#;

fn one(pgn: &str) -> PgnGame {
    let mut games = read_pgn(pgn.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 1);
    games.remove(0)
}

fn err(pgn: &str) -> PgnError {
    read_pgn(pgn.as_bytes()).expect_err("should fail")
}

fn san_list(g: &PgnGame) -> Vec<String> {
    g.sans.iter().map(ToString::to_string).collect()
}

fn chess(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

#[test]
fn reads_a_plain_game() {
    let g = one(GAME);
    assert_eq!(g.index, 1);
    assert_eq!(g.white(), "A");
    assert_eq!(g.black(), "B");
    assert_eq!(g.tag("Site"), Some("Here"));
    assert_eq!(g.tag("site"), None);
    assert_eq!(g.tags.len(), 7);
    assert_eq!(g.tags[0], ("Event".to_owned(), "Club".to_owned()));
    assert_eq!(san_list(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    assert_eq!(g.moves.len(), 6);
    assert_eq!(g.clocks, vec![None; 6]);
    assert_eq!(g.result.as_deref(), Some("1-0"));
    assert_eq!(g.start, Chess::default());
    assert_eq!(g.start_fen, None);
}

#[test]
fn missing_names_default_to_question_mark() {
    let g = one("1. e4 *");
    assert_eq!((g.white(), g.black()), ("?", "?"));
    assert_eq!(g.result.as_deref(), Some("*"));
    let g = one("1. e4");
    assert_eq!(g.result, None);
}

#[test]
fn numbers_games_and_skips_variations_and_nags() {
    let pgn = format!(
        "{GAME}\n[White \"C\"]\n\n1. d4 (1. e4 e5 (1... c5) 2. Nf3) 1... d5 $1 2. c4!? {{ a comment }} *\n"
    );
    let games = read_pgn(pgn.as_bytes()).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[1].index, 2);
    assert_eq!(san_list(&games[1]), ["d4", "d5", "c4"]);
}

#[test]
fn null_move_is_an_error_at_its_ply() {
    let e = err("[White \"W\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Z0 3. Bc4 *");
    assert_eq!(e.game, 1);
    assert_eq!(e.ply, Some(4));
    assert_eq!(
        e.kind,
        PgnErrorKind::NullMove {
            san: "--".into(),
            number: "2...".into()
        }
    );
    assert_eq!(e.legal_prefix().len(), 3);
    assert_eq!(e.start(), Some(&Chess::default()));
    assert_eq!(e.san(), Some("--"));
    assert_eq!(
        e.to_string(),
        "game 1 (W - B), ply 4 (2... --): null moves (Z0, --) are not allowed in a game \
             record; replace it with the move actually played, or end the movetext before it"
    );
    let e = err("1. e4 e5 2. -- Nc6 *");
    assert_eq!(e.ply, Some(3));
    assert!(
        e.to_string()
            .starts_with("game 1 (? - ?), ply 3 (2. --): null moves"),
        "{e}"
    );
}

#[test]
fn illegal_and_ambiguous_moves() {
    let e = err(&format!(
        "{GAME}\n[White \"X\"]\n[Black \"Y\"]\n\n1. e4 e5 2. Ke3 *"
    ));
    assert_eq!(e.game, 2);
    assert_eq!(e.ply, Some(3));
    assert_eq!(e.legal_prefix().len(), 2);
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    assert_eq!(
        e.kind,
        PgnErrorKind::IllegalMove {
            san: "Ke3".into(),
            number: "2.".into(),
            position_fen: fen.into(),
            ambiguous: false
        }
    );
    assert!(
        e.to_string().starts_with(&format!(
            "game 2 (X - Y), ply 3 (2. Ke3): illegal move in position {fen}"
        )),
        "{e}"
    );
    // Strict: a capture mark on a non-capture is not accepted in a PGN.
    let e = err("1. Nxf3 *");
    assert_eq!(e.ply, Some(1));
    assert!(matches!(
        e.kind,
        PgnErrorKind::IllegalMove {
            ambiguous: false,
            ..
        }
    ));
    // Two knights can reach d2.
    let e = err("1. d4 d5 2. Nf3 Nf6 3. Nd2 *");
    assert_eq!(e.ply, Some(5));
    assert!(matches!(
        e.kind,
        PgnErrorKind::IllegalMove {
            ambiguous: true,
            ..
        }
    ));
    assert!(
        e.to_string()
            .contains("(3. Nd2): ambiguous move in position"),
        "{e}"
    );
}

#[test]
fn move_after_the_result_is_an_error() {
    let e = err("1. e4 e5 1-0 2. Nf3 *");
    assert_eq!(e.ply, Some(3));
    assert_eq!(
        e.kind,
        PgnErrorKind::MoveAfterResult {
            san: "Nf3".into(),
            number: "2.".into(),
            result: "1-0".into()
        }
    );
    assert!(
        e.to_string().starts_with(
            "game 1 (? - ?), ply 3 (2. Nf3): the movetext goes on after the result 1-0"
        ),
        "{e}"
    );
    assert_eq!(e.legal_prefix().len(), 2);
}

/// pgn-reader skips a token it cannot read as SAN without telling us, which made the next
/// move look illegal for the wrong reason (issue 15, point 13): the token itself is the
/// error, with its line and column, and the moves before it are the legal prefix.
#[test]
fn an_unreadable_token_is_named_where_it_stands() {
    let e = err("[White \"W\"]\n\n1. e4 e5\n2. Nz9 Nc6 3. Nf3 *");
    assert_eq!(e.ply, Some(3));
    assert_eq!(e.san(), Some("Nz9"));
    assert_eq!(
        e.kind,
        PgnErrorKind::NotPgn {
            token: "Nz9".into(),
            line: 4,
            column: 4,
            alone: false
        }
    );
    assert_eq!(e.legal_prefix().len(), 2);
    assert_eq!(
        e.to_string(),
        "game 1 (W - ?): line 4, column 4: 'Nz9' is not PGN (not a move in SAN, a move \
             number, a result, a comment in braces, an annotation or a variation); correct the \
             move, or put the words in braces { } as a comment"
    );
    assert!(!e.is_not_a_game());
    // A word in a game that is otherwise legal: no longer dropped.
    let e = err("1. e4 e5 2. Nf3 hello Nc6 *");
    assert_eq!((e.ply, e.san()), (Some(4), Some("hello")));
    assert_eq!(e.legal_prefix().len(), 3);
    // After the result, in a variation, a bad NAG, a figurine, columns in characters.
    for (pgn, token, column) in [
        ("1. e4 e5 1-0 hello", "hello", 14),
        ("1. e4 (1. d4 what) e5 *", "what", 14),
        ("1. e4 $x e5 *", "$x", 7),
        ("1. e4 e5 2. ♘f3 *", "♘f3", 13),
        ("{ Müller } 1. e4 e5 2. Nf3 +- *", "+-", 28),
        ("1. e4 12abc *", "12abc", 7),
        ("1. e4 d5 2. e5 f5 3. exf6 e.p. Nxf6 *", "e.p.", 27),
        ("1. e4 e5 2. Nf3 Nc6 3. Bb5 +/= *", "+/=", 28),
    ] {
        let e = err(pgn);
        assert_eq!(e.san(), Some(token), "{pgn}");
        assert!(
            matches!(e.kind, PgnErrorKind::NotPgn { line: 1, column: c, .. } if c == column),
            "{pgn}: {e}"
        );
    }
    // An illegal move before the unknown token is the error.
    let e = err("1. e4 e5 2. Ke3 hello *");
    assert_eq!((e.ply, e.san()), (Some(3), Some("Ke3")));
}

/// Issue 15, point 13: "hello world" was read as a game without moves.
#[test]
fn text_that_is_not_pgn_is_no_game() {
    let e = err("hello world\n");
    assert!(e.is_not_a_game());
    assert_eq!(
        e.kind,
        PgnErrorKind::NotPgn {
            token: "hello".into(),
            line: 1,
            column: 1,
            alone: true
        }
    );
    assert!(e.to_string().ends_with(
        "; no game here: a PGN game is tags such as [White \"...\"] and moves such as 1. e4 e5"
    ));
    // Garbage before a game is a stretch of its own (pgn-reader ends it at the tags).
    let each = read_pgn_each(b"hello\n[White \"A\"]\n\n1. e4 *\n");
    assert_eq!(each.len(), 2);
    assert!(each[0].as_ref().unwrap_err().is_not_a_game());
    assert_eq!(each[1].as_ref().unwrap().moves.len(), 1);
    // Words before the moves of a game make it a game with an error, not "no game".
    let e = err("hello 1. e4 e5 *");
    assert!(!e.is_not_a_game());
}

/// Everything PGN allows in movetext is still read without complaint.
#[test]
fn every_kind_of_pgn_token_is_accepted() {
    let pgn = "% escape line\n[Event \"A \\\"quoted\\\" ]\"]\n[Black \"B\"]\n\n\
                   1.e4 $1 e5!? 2. Nf3 (2. f4 exf4 $6 (2... d5)) 2... Nc6 ; rest of line { x }\n\
                   % escape in movetext\n3. Bb5 {a (=) comment} a6?! 4. Ba4 Nf6 5. 0-0 Be7 6. \
                   Re1+ b5 7. Bb3 d6 8. c3 0-0 9. h3 1/2-1/2\n\n\
                   1. d4 d5 ½-½\n\n1. c4 c5 1–0\n\n1e4 *\n";
    let games = read_pgn(pgn.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 4);
    assert_eq!(games[0].moves.len(), 17);
    assert_eq!(games[0].tag("Event"), Some("A \"quoted\" ]"));
    assert_eq!(games[3].moves.len(), 1);
}

#[test]
fn read_pgn_stops_read_pgn_each_goes_on() {
    let pgn = "1. e4 Z0 *\n\n1. d4 d5 *\n\n1. e4 e5 2. Kd3 *\n\n1. c4 *\n";
    assert_eq!(read_pgn(pgn.as_bytes()).unwrap_err().game, 1);
    let each = read_pgn_each(pgn.as_bytes());
    assert_eq!(each.len(), 4);
    assert!(each[0].is_err());
    assert_eq!(each[1].as_ref().unwrap().moves.len(), 2);
    assert_eq!(each[1].as_ref().unwrap().index, 2);
    let third = each[2].as_ref().unwrap_err();
    assert_eq!((third.game, third.ply), (3, Some(3)));
    assert_eq!(each[3].as_ref().unwrap().index, 4);
}

#[test]
fn bad_fen() {
    let e = err("[White \"W\"]\n[SetUp \"1\"]\n[FEN \"not a fen\"]\n\n1. e4 *");
    assert_eq!(e.ply, None);
    assert!(matches!(&e.kind, PgnErrorKind::BadFen { fen, .. } if fen == "not a fen"));
    assert_eq!(e.start(), None);
    assert!(e.legal_prefix().is_empty());
    let text = e.to_string();
    assert!(
        text.starts_with("game 1 (W - ?): the FEN tag \"not a fen\" is not a usable"),
        "{text}"
    );
    // Parses, but no kings.
    let e = err("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*");
    assert!(
        matches!(&e.kind, PgnErrorKind::BadFen { reason, .. } if reason.contains("illegal position")),
        "{e}"
    );
}

#[test]
fn syntax_error_stops_reading() {
    let each = read_pgn_each(b"1. e4 *\n\n[White \"Z\"]\n\n1. e4 { never closed");
    assert_eq!(each.len(), 2);
    let e = each[1].as_ref().unwrap_err();
    assert_eq!(e.game, 2);
    assert_eq!(e.white, "Z");
    assert!(
        matches!(&e.kind, PgnErrorKind::Syntax(s) if s.contains("unterminated comment")),
        "{e}"
    );
    assert_eq!(e.legal_prefix().len(), 1);
}

#[test]
fn bom_and_empty_games() {
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(b"[Event \"A\"]\n[White \"W\"]\n\n *\n\n[Event \"B\"]\n\n*\n\n");
    let games = read_pgn(&bytes).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("Event"), Some("A"));
    assert_eq!(games[1].tag("Event"), Some("B"));
    assert!(
        games
            .iter()
            .all(|g| g.moves.is_empty() && g.result.as_deref() == Some("*"))
    );
    assert!(read_pgn(b"").unwrap().is_empty());
    assert!(read_pgn(b"\n\n  \n").unwrap().is_empty());
}

#[test]
fn fen_start_with_black_to_move() {
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let pgn = format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1... e5 2. Nf3 Nc6 *");
    let g = one(&pgn);
    assert_eq!(g.start_fen.as_deref(), Some(fen));
    assert_eq!(g.start.turn(), Color::Black);
    assert_eq!(san_list(&g), ["e5", "Nf3", "Nc6"]);
    // Ply 1 is Black's first move; ply 3 is Black's second.
    let e = err(&format!(
        "[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1... e5 2. Nf3 Ke5 *"
    ));
    assert_eq!(e.ply, Some(3));
    assert!(e.to_string().contains("ply 3 (2... Ke5)"), "{e}");
    assert_eq!(e.start().map(|p| p.turn()), Some(Color::Black));
    // Writing starts with `1...` and the FEN.
    let text = g.to_pgn();
    assert!(
        text.contains(
            "[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]"
        ),
        "{text}"
    );
    assert!(text.contains("\n\n1... e5 2. Nf3 Nc6 *\n\n"), "{text}");
    assert_eq!(one(&text).moves, g.moves);
}

#[test]
fn fen_without_setup_is_honoured() {
    let g = one("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 40\"]\n\n40. e4 Kd7 *");
    assert_eq!(g.moves.len(), 2);
    let text = g.to_pgn();
    assert!(text.contains("\n\n40. e4 Kd7 *\n\n"), "{text}");
}

#[test]
fn clocks_are_read_per_ply() {
    let g = one(
        "{ start [%clk 9:00:00] } 1. e4 { [%clk 1:30:00] } e5 {[%clk 1:29:59.5]} 2. Nf3 { [%emt 0:00:01] } *",
    );
    assert_eq!(g.clocks, [Some(5_400_000), Some(5_399_500), None]);
}

#[test]
fn format_and_parse_clk() {
    assert_eq!(format_clk(0), "0:00:00");
    assert_eq!(format_clk(-5_000), "0:00:00");
    assert_eq!(format_clk(999), "0:00:00");
    assert_eq!(format_clk(61_000), "0:01:01");
    assert_eq!(format_clk(5_400_000), "1:30:00");
    assert_eq!(format_clk(36_000_000 * 3 + 59_999), "30:00:59");
    assert_eq!(parse_clk("[%clk 1:30:00]"), Some(5_400_000));
    assert_eq!(parse_clk("text [%clk  0:00:07.25 ] more"), Some(7_250));
    assert_eq!(parse_clk("[%clk 0:00:07.1]"), Some(7_100));
    assert_eq!(parse_clk("[%clk 0:00:07.12345]"), Some(7_123));
    assert_eq!(
        parse_clk("[%clk 12:5:3]"),
        Some(((12 * 60 + 5) * 60 + 3) * 1000)
    );
    for bad in [
        "",
        "no clock",
        "[%clk]",
        "[%clk 1:30]",
        "[%clk 1:60:00]",
        "[%clk 1:00:60]",
        "[%clk a:00:00]",
        "[%clk 1:00:00",
        "[%clk 1:00:00.]",
        "[%clk 1:00:00:00]",
        "[%clk -0:00:01]",
    ] {
        assert_eq!(parse_clk(bad), None, "{bad}");
    }
    for ms in [0, 1_000, 59_000, 3_599_000, 3_600_000, 7_322_000] {
        assert_eq!(parse_clk(&format!("[%clk {}]", format_clk(ms))), Some(ms));
    }
}

fn export_of(sans: &[&str], clocks: &[Option<i64>]) -> Vec<ExportMove> {
    sans.iter()
        .zip(clocks)
        .map(|(s, &clock_ms)| ExportMove {
            san: s.parse().unwrap(),
            clock_ms,
            draw_offer: false,
        })
        .collect()
}

#[test]
fn write_read_round_trip_of_moves_clocks_and_tags() {
    let tags = vec![
        ("White".to_owned(), "Smith, J.".to_owned()),
        ("Black".to_owned(), "O\"Brien \\ Jr".to_owned()),
        ("Event".to_owned(), "Open".to_owned()),
        ("TimeControl".to_owned(), "5400+30".to_owned()),
        ("ECO".to_owned(), "C60".to_owned()),
    ];
    let clocks = [
        Some(5_400_000),
        Some(5_399_000),
        None,
        Some(5_000_000),
        Some(-3_000),
        Some(1),
    ];
    let moves = export_of(&["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"], &clocks);
    let text = write_pgn(&Export {
        tags: &tags,
        start: None,
        moves: &moves,
        result: "1/2-1/2",
        termination: Some("normal"),
        notes: &[],
    });
    let g = one(&text);
    assert_eq!(san_list(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    assert_eq!(
        g.clocks,
        [
            Some(5_400_000),
            Some(5_399_000),
            None,
            Some(5_000_000),
            Some(0),
            Some(0)
        ]
    );
    assert_eq!(g.white(), "Smith, J.");
    assert_eq!(g.black(), "O\"Brien \\ Jr");
    assert_eq!(g.tag("TimeControl"), Some("5400+30"));
    assert_eq!(g.tag("Termination"), Some("normal"));
    assert_eq!(g.tag("Result"), Some("1/2-1/2"));
    assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    // Writing what was read gives the same text again.
    assert_eq!(
        write_pgn(&Export {
            tags: &g.tags,
            start: Some(&g.start),
            moves: &g.export_moves(),
            result: "1/2-1/2",
            termination: None,
            notes: &[],
        }),
        text
    );
}

#[test]
fn seven_tag_roster_first_then_fen_termination_rest() {
    let tags = vec![
        ("ECO".to_owned(), "B20".to_owned()),
        ("Black".to_owned(), "B".to_owned()),
        ("Result".to_owned(), "0-1".to_owned()),
        ("FEN".to_owned(), "stale".to_owned()),
        ("Termination".to_owned(), "old".to_owned()),
        ("White".to_owned(), "W".to_owned()),
        ("ECO".to_owned(), "dup".to_owned()),
        ("Annotator".to_owned(), "me".to_owned()),
    ];
    let start = chess("4k3/8/8/8/8/8/4P3/4K3 b - - 3 17");
    let moves = export_of(&["Kd7", "e4"], &[None, None]);
    let text = write_pgn(&Export {
        tags: &tags,
        start: Some(&start),
        moves: &moves,
        result: "*",
        termination: Some("unterminated"),
        notes: &[],
    });
    let expected = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"W\"]\n\
             [Black \"B\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 3 17\"]\n\
             [Termination \"unterminated\"]\n[ECO \"B20\"]\n[Annotator \"me\"]\n\n17... Kd7 18. e4 *\n\n";
    assert_eq!(text, expected);
    // Without a termination, one given among the tags is kept; a standard start writes no FEN.
    let text = write_pgn(&Export {
        tags: &tags,
        start: Some(&Chess::default()),
        moves: &[],
        result: "0-1",
        termination: None,
        notes: &[],
    });
    assert!(
        text.contains(
            "[Result \"0-1\"]\n[ECO \"B20\"]\n[Termination \"old\"]\n[Annotator \"me\"]\n\n"
        ),
        "{text}"
    );
    assert!(!text.contains("FEN") && !text.contains("SetUp"), "{text}");
    assert!(text.ends_with("\n\n0-1\n\n"), "{text}");
    // A result that is not a PGN result token is written as `*`.
    let text = write_pgn(&Export {
        tags: &[],
        start: None,
        moves: &[],
        result: "white won",
        termination: None,
        notes: &[],
    });
    assert!(
        text.contains("[Result \"*\"]") && text.ends_with("\n\n*\n\n"),
        "{text}"
    );
}

#[test]
fn tag_values_are_escaped() {
    let tags = vec![("Event".to_owned(), "a \"b\" \\c\\\nd".to_owned())];
    let text = write_pgn(&Export {
        tags: &tags,
        start: None,
        moves: &[],
        result: "*",
        termination: None,
        notes: &[],
    });
    assert!(
        text.starts_with("[Event \"a \\\"b\\\" \\\\c\\\\ d\"]\n"),
        "{text}"
    );
    assert_eq!(one(&text).tag("Event"), Some("a \"b\" \\c\\ d"));
}

#[test]
fn movetext_wraps_at_80_columns_and_numbers_black_after_comments() {
    // 40 moves of knights shuffling, with clocks and a draw offer, to get long lines.
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    for i in 0..80 {
        let san: SanPlus = cycle[i % 4].parse().unwrap();
        let m = san.san.to_move(&pos).unwrap();
        moves.push(ExportMove {
            san: SanPlus::from_move_and_play_unchecked(&mut pos, m),
            clock_ms: (i % 3 == 0).then_some(3_600_000 - i as i64 * 1_000),
            draw_offer: i == 3,
        });
    }
    let text = write_pgn(&Export {
        tags: &[],
        start: None,
        moves: &moves,
        result: "1/2-1/2",
        termination: None,
        notes: &[],
    });
    let movetext = text.split("\n\n").nth(1).unwrap();
    assert!(movetext.lines().count() > 5);
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "{line:?} is {} long",
            line.chars().count()
        );
        assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
    }
    // A move keeps its number and its comment on its line.
    for line in movetext.lines() {
        assert!(!line.ends_with('.') && !line.starts_with('{'), "{line:?}");
    }
    // Comments are not split; Black's move after a comment gets its number.
    let flat = text.replace('\n', " ");
    assert!(
        flat.contains(
            "1. Nf3 { [%clk 1:00:00] } 1... Nf6 2. Ng1 Ng8 { [%clk 0:59:57] (=) } 3. Nf3"
        ),
        "{text}"
    );
    assert!(text.ends_with(" 1/2-1/2\n\n"), "{text}");
    let g = one(&text);
    assert_eq!(g.moves.len(), 80);
    assert_eq!(g.clocks[3], Some(3_597_000));
    assert_eq!(g.clocks[5], None);
    // The draw offer is read back onto its move, and written again.
    let offered: Vec<usize> = (0..g.moves.len()).filter(|&i| g.draw_offers[i]).collect();
    assert_eq!(offered, [3]);
    assert_eq!(g.to_pgn(), text);
}

#[test]
fn long_tokens_are_never_split() {
    let moves = vec![
        ExportMove {
            san: "e4".parse().unwrap(),
            clock_ms: Some(1_000),
            draw_offer: true
        };
        1
    ];
    let text = write_pgn(&Export {
        tags: &[],
        start: None,
        moves: &moves,
        result: "*",
        termination: None,
        notes: &[],
    });
    assert!(
        text.ends_with("\n\n1. e4 { [%clk 0:00:01] (=) } *\n\n"),
        "{text}"
    );
}
