//! `tactus audit` end to end: the binary on the curated TWIC selection must report what
//! `chess-data/SOURCES.md` says about each game, and refuse bad input clearly.

use crate::support;

use std::process::Command;

use serde_json::Value;

fn audit_json(path: &std::path::Path) -> (Vec<Value>, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("audit")
        .arg("--json")
        .arg(path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let games = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
        .collect();
    (games, out.status.code().unwrap())
}

/// Claims of one game as (ply, article, side, move) tuples.
fn claims(game: &Value) -> Vec<(u64, String, String, Option<String>)> {
    game["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["ply"].as_u64().unwrap(),
                c["article"].as_str().unwrap().to_string(),
                c["side"].as_str().unwrap().to_string(),
                c["move"].as_str().map(str::to_string),
            )
        })
        .collect()
}

fn has(game: &Value, ply: u64, article: &str, side: &str, mv: Option<&str>) -> bool {
    claims(game)
        .iter()
        .any(|(p, a, s, m)| *p == ply && a == article && s == side && m.as_deref() == mv)
}

fn end(game: &Value) -> (String, Option<u64>) {
    (
        game["end"]["kind"].as_str().unwrap().to_string(),
        game["end"]["ply"].as_u64(),
    )
}

#[test]
fn twic_selection_matches_the_sources_table() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let (games, status) = audit_json(&data.join("pgn/twic1599-selected.pgn"));
    assert_eq!(status, 0);
    assert_eq!(games.len(), 15);
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g["game"].as_u64(), Some(i as u64 + 1));
        assert_eq!(g["legal"], Value::Bool(true), "game {}", i + 1);
        assert!(g["illegal_ply"].is_null());
        assert!(g["white"].is_string() && g["black"].is_string());
    }
    let game = |n: usize| &games[n - 1];

    // 1: Black's final position is a lone king: White's flag loses, Black's flag draws.
    assert_eq!(game(1)["flag"]["white"], "0-1");
    assert_eq!(game(1)["flag"]["black"], "1/2-1/2");
    assert_eq!(game(1)["plies"], 158);
    // 2 and 15: dead positions (K+B v K, K+N v K).
    assert_eq!(end(game(2)), ("dead".into(), Some(133)));
    assert_eq!(end(game(15)).0, "dead");
    assert_eq!(game(15)["flag"]["white"], "1/2-1/2");
    // 3 and 5: checkmate, 3 by underpromotion to a rook at ply 120.
    assert_eq!(end(game(3)), ("checkmate".into(), Some(120)));
    assert_eq!(end(game(5)), ("checkmate".into(), Some(80)));
    assert_eq!(game(3)["flag"]["white"], "0-1");
    // 7: clock 99 after 112.Ng3 (ply 223): Black may claim 9.3a by writing Kf2; 100 after it.
    assert!(has(game(7), 223, "9.3a", "black", Some("Kf2")));
    assert!(has(game(7), 224, "9.3b", "white", None));
    assert!(
        !claims(game(7)).iter().any(|c| c.0 < 223),
        "no claim before the 99th half-move"
    );
    // 8: clock 99 after 97...Kc8 (ply 194), 100 after 98.Kd6 (ply 195); play went on.
    assert!(
        claims(game(8))
            .iter()
            .any(|c| c.0 == 194 && c.1 == "9.3a" && c.2 == "white")
    );
    assert!(has(game(8), 195, "9.3b", "black", None));
    assert_eq!(end(game(8)).0, "none");
    // 9: Black may claim 9.2a by writing 26...Rbb8 (ply 51); then White 9.2b.
    assert!(has(game(9), 51, "9.2a", "black", Some("Rbb8")));
    assert!(has(game(9), 52, "9.2b", "white", None));
    // 10: third occurrence after 29...Qg4 (ply 58): claimable before it and after it.
    assert!(has(game(10), 57, "9.2a", "black", Some("Qg4")));
    assert!(has(game(10), 58, "9.2b", "white", None));
    assert_eq!(
        end(game(10)).0,
        "none",
        "repetition is never automatic under the 2001 Laws"
    );
    // 11: third occurrence after 54...Rf3+ (ply 108) and after 55.Kc2 (ply 109).
    assert!(has(game(11), 107, "9.2a", "black", Some("Rf3+")));
    assert!(has(game(11), 108, "9.2b", "white", None));
    assert!(has(game(11), 109, "9.2b", "black", None));
    // 12: threefold from 87.Bg8 (ply 173), fifty moves after 90.Bc8 (ply 179).
    assert!(has(game(12), 172, "9.2a", "white", Some("Bg8")));
    assert!(has(game(12), 173, "9.2b", "black", None));
    assert!(has(game(12), 179, "9.3b", "black", None));
    assert!(
        !claims(game(12))
            .iter()
            .any(|c| c.1.starts_with("9.3") && c.0 < 178)
    );
    // 13 and 14: stalemate.
    assert_eq!(end(game(13)), ("stalemate".into(), Some(174)));
    assert_eq!(end(game(14)).0, "stalemate");
    assert_eq!(game(14)["flag"]["black"], "1/2-1/2");
    // Games without repetition or long quiet phases report no claims.
    for n in [1, 3, 4, 5, 6, 13, 14, 15] {
        assert!(
            claims(game(n)).is_empty(),
            "game {n}: {:?}",
            claims(game(n))
        );
    }
}

#[test]
fn null_moves_are_rejected_with_game_and_ply() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let (games, status) = audit_json(&data.join("pgn/python-chess-anastasian-lewis.pgn"));
    assert_eq!(status, 1, "an illegal game makes the audit fail");
    let g = &games[0];
    assert_eq!(g["legal"], Value::Bool(false));
    // "41. Bxf3 Z0": the null move is Black's 41st, after 81 half-moves.
    assert_eq!(g["illegal_ply"], 82);
    assert_eq!(g["plies"], 81);
    assert!(
        g["error"].as_str().unwrap().contains("null move"),
        "{}",
        g["error"]
    );
}

#[test]
fn text_report_and_default_sample() {
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("audit")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Morphy's Opera game ends in mate; the training game repeats a position three times.
    assert!(text.contains("checkmate after ply 33"), "{text}");
    assert!(
        text.contains("white may claim under 9.2a by writing 15.Re1"),
        "{text}"
    );
    assert!(text.contains("black may claim under 9.2b"), "{text}");
}

#[test]
fn unreadable_files_are_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args(["audit", "/nonexistent/games.pgn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot read /nonexistent/games.pgn"), "{err}");

    let dir = crate::support::table::temp_dir("audit");
    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Ke3 *\n").unwrap();
    let (games, status) = audit_json(&bad);
    assert_eq!(status, 1);
    assert_eq!(games[0]["illegal_ply"], 3);
    assert_eq!(games[0]["illegal_move"], "Ke3");
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `tactus audit ARGS` on a file holding `text`: (exit code, stdout, stderr).
fn audit_text(name: &str, text: &str, args: &[&str]) -> (i32, String, String) {
    let dir = crate::support::table::temp_dir(&format!("audit-{name}"));
    let path = dir.join(format!("{name}.pgn"));
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("audit")
        .arg(&path)
        .args(args)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Issue 15, point 13: a file holding "hello world" was audited as one legal game.
#[test]
fn a_file_that_is_not_pgn_holds_no_game() {
    let (code, stdout, stderr) = audit_text("hello", "hello world\n", &[]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains(
            "hello.pgn holds no PGN game: line 1, column 1: 'hello' is not PGN (not a move in \
             SAN, a move number, a result, a comment in braces, an annotation or a variation); \
             no game here"
        ),
        "{stderr}"
    );
    let (code, stdout, _) = audit_text("hello-json", "\n\n  hello world\n", &["--json"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "no game, no JSON line: {stdout}");
}

/// Issue 15, point 13: an unknown word inside a game was dropped without a word, and the game
/// reported legal. It is an error naming the word, its line and column; the moves before it
/// are audited as the legal prefix.
#[test]
fn an_unknown_word_in_a_game_is_named_with_its_place() {
    let pgn = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3\nNc6 hello 3. Bb5 *\n";
    let (code, stdout, stderr) = audit_text("word", pgn, &["--json"]);
    assert_eq!(code, 1, "{stderr}");
    let game: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(game["legal"], Value::Bool(false));
    assert_eq!(game["plies"], 4);
    assert_eq!(game["illegal_ply"], 5);
    assert_eq!(game["illegal_move"], "hello");
    let error = game["error"].as_str().unwrap();
    assert!(
        error.starts_with("game 1 (A - B): line 5, column 5: 'hello' is not PGN"),
        "{error}"
    );
    assert!(stderr.contains("line 5, column 5: 'hello'"), "{stderr}");

    // A mistyped move is named itself, not the next move that its loss made illegal.
    let (code, stdout, _) = audit_text("typo", "1. e4 e5 2. Nz9 Nc6 *\n", &["--json"]);
    assert_eq!(code, 1);
    let game: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(game["illegal_move"], "Nz9");
    assert!(
        game["error"]
            .as_str()
            .unwrap()
            .contains("line 1, column 13: 'Nz9' is not PGN"),
        "{}",
        game["error"]
    );

    // Text between two good games: the games are audited, the text is reported where it is.
    let pgn = "[White \"A\"]\n\n1. e4 e5 *\n\nsee you tomorrow\n\n[White \"C\"]\n\n1. d4 *\n";
    let (code, stdout, stderr) = audit_text("between", pgn, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.starts_with("Audit of "), "{stdout}");
    assert!(stdout.contains(": 3 games\n"), "{stdout}");
    assert!(
        stderr.contains("line 5, column 1: 'see' is not PGN"),
        "{stderr}"
    );
    assert_eq!(stdout.matches("moves: all legal").count(), 2, "{stdout}");
}
