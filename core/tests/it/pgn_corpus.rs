//! The PGN reader, the PGN writer and the lenient notation matcher against the real games in
//! `chess-data/pgn/` (see its SOURCES.md): every clean game reads, its SAN round-trips exactly,
//! writing and reading it again gives the same game, and the negative sample fails where it must.

use crate::support;

use std::{fs, path::Path};

use shakmaty::{Chess, Move, Position, san::SanPlus};
use tactus_core::rules::{
    notation::{self, MatchError},
    pgn::{self, PgnErrorKind, PgnGame},
};

const NEGATIVE: &str = "python-chess-anastasian-lewis.pgn";

fn read_file(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join("pgn").join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read_games(dir: &Path, name: &str) -> Vec<PgnGame> {
    pgn::read_pgn(&read_file(dir, name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every `*.pgn` file name in the corpus, sorted.
fn pgn_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.join("pgn"))
        .expect("chess-data/pgn is a directory")
        .map(|entry| {
            entry
                .expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".pgn"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_clean_game_reads_and_round_trips() {
    let Some(dir) = support::corpus::chess_data() else {
        return;
    };
    let files = pgn_files(&dir);
    assert!(
        files.len() >= 7,
        "expected the 7 corpus files, found {files:?}"
    );
    let (mut games_seen, mut plies_seen, mut lenient_b_ambiguous) = (0, 0, 0);
    for name in files.iter().filter(|n| *n != NEGATIVE) {
        let bytes = read_file(&dir, name);
        let games = pgn::read_pgn(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let each = pgn::read_pgn_each(&bytes);
        assert_eq!(
            each.len(),
            games.len(),
            "{name}: read_pgn and read_pgn_each disagree"
        );
        for (i, game) in games.iter().enumerate() {
            let at = format!("{name} game {}", game.index);
            assert_eq!(game.index, i + 1, "{at}");
            assert_eq!(game.moves.len(), game.sans.len(), "{at}");
            assert_eq!(game.moves.len(), game.clocks.len(), "{at}");

            // SAN as written == SAN as shakmaty writes it, ply by ply; and the lenient matcher
            // accepts every strict SAN.
            let mut pos = game.start.clone();
            for (ply, (&m, written)) in game.moves.iter().zip(&game.sans).enumerate() {
                let ours = SanPlus::from_move(pos.clone(), m);
                assert_eq!(
                    ours.to_string(),
                    written.to_string(),
                    "{at} ply {}",
                    ply + 1
                );
                let text = written.to_string();
                match notation::match_move(&pos, &text) {
                    Ok(found) => assert_eq!(found, m, "{at} ply {}: {text}", ply + 1),
                    Err(e) => panic!("{at} ply {}: lenient matcher refused {text}: {e}", ply + 1),
                }
                // `bxc3` where a bishop could also take: correct SAN decides, but the sloppy
                // spoken form without the x must ask back.
                if text.starts_with('b')
                    && text.contains('x')
                    && let Err(MatchError::Ambiguous { .. }) =
                        notation::match_move(&pos, &text.replace('x', ""))
                {
                    lenient_b_ambiguous += 1;
                }
                pos.play_unchecked(m);
            }
            plies_seen += game.moves.len();

            // Write and read back: same start, moves, clocks, result and tags.
            let text = game.to_pgn();
            let again = pgn::read_pgn(text.as_bytes())
                .unwrap_or_else(|e| panic!("{at} rewritten: {e}\n{text}"));
            assert_eq!(again.len(), 1, "{at}");
            let again = &again[0];
            assert_eq!(again.moves, game.moves, "{at}");
            assert_eq!(again.start, game.start, "{at}");
            assert_eq!(again.clocks, game.clocks, "{at}");
            assert_eq!(again.result, game.result, "{at}");
            for (tag, value) in &game.tags {
                if !matches!(tag.as_str(), "Result" | "FEN" | "SetUp") {
                    assert_eq!(again.tag(tag), Some(value.as_str()), "{at} tag {tag}");
                }
            }
            for line in text.lines() {
                assert!(
                    line.chars().count() <= 80 || line.starts_with('['),
                    "{at}: {line:?}"
                );
            }
            games_seen += 1;
        }
    }
    assert!(games_seen >= 135, "only {games_seen} games read");
    assert!(plies_seen > 10_000, "only {plies_seen} plies read");
    // The corpus has exactly 4 plies like `bxc3` where a bishop could also take on c3: the strict
    // SAN is the pawn, and the x-less `bc3` asks "Bxc3 or bxc3?" (see notation::match_move).
    assert_eq!(
        lenient_b_ambiguous, 4,
        "b-pawn SANs that are also a bishop move"
    );
    eprintln!(
        "{games_seen} games, {plies_seen} plies; {lenient_b_ambiguous} bxN SANs also a bishop move"
    );
}

#[test]
fn game_counts_match_sources_md() {
    let Some(dir) = support::corpus::chess_data() else {
        return;
    };
    for (name, count) in [
        ("twic1599_100k.pgn", 110),
        ("twic1599-selected.pgn", 15),
        ("python-chess-kasparov-deep-blue-1997.pgn", 6),
        ("python-chess-nepomniachtchi-liren-game1.pgn", 1),
        ("python-chess-molinari-bordais-1979.pgn", 1),
        ("python-chess-utf8-bom.pgn", 2),
    ] {
        assert_eq!(read_games(&dir, name).len(), count, "{name}");
    }
}

#[test]
fn features_listed_in_sources_md() {
    let Some(dir) = support::corpus::chess_data() else {
        return;
    };
    let twic = read_games(&dir, "twic1599_100k.pgn");
    let with_ep = twic
        .iter()
        .filter(|g| g.moves.iter().any(|m| m.is_en_passant()))
        .count();
    assert_eq!(with_ep, 10, "games with an en-passant capture");
    let under: Vec<&str> = twic
        .iter()
        .filter(|g| {
            g.moves
                .iter()
                .any(|m| m.promotion().is_some_and(|r| r != shakmaty::Role::Queen))
        })
        .map(|g| g.white())
        .collect();
    assert_eq!(under.len(), 1, "games with an underpromotion: {under:?}");

    // twic1599-selected: (game, ply, SAN as written, en passant?) from the SOURCES.md table, which
    // also pins our ply numbering (1 = White's first move).
    let selected = read_games(&dir, "twic1599-selected.pgn");
    for (game, ply, san, ep) in [
        (1, 140, "h1=B+", false),
        (1, 146, "d1=R", false),
        (2, 125, "fxg6", true),
        (2, 129, "g8=N", false),
        (3, 120, "g1=R#", false),
        (4, 217, "e8=N+", false),
        (5, 24, "cxb3", true),
        (6, 32, "bxc3", true),
        (11, 21, "exd6", true),
        (14, 85, "fxg8=Q", false),
    ] {
        let g = &selected[game - 1];
        assert_eq!(g.sans[ply - 1].to_string(), san, "game {game} ply {ply}");
        assert_eq!(
            g.moves[ply - 1].is_en_passant(),
            ep,
            "game {game} ply {ply}"
        );
    }

    let molinari = &read_games(&dir, "python-chess-molinari-bordais-1979.pgn")[0];
    assert_eq!(molinari.moves.len(), 10);
    assert_eq!(molinari.sans[9].to_string(), "Nd3#");
    let end = replay(&molinari.start, &molinari.moves);
    assert!(end.is_checkmate());

    let kasparov = read_games(&dir, "python-chess-kasparov-deep-blue-1997.pgn");
    for (i, g) in kasparov.iter().enumerate() {
        let long = g
            .sans
            .iter()
            .filter(|s| s.to_string().starts_with("O-O-O"))
            .count();
        let short = g
            .sans
            .iter()
            .filter(|s| s.to_string().trim_end_matches(['+', '#']) == "O-O")
            .count();
        if i == 3 || i == 4 {
            assert_eq!(long, 2, "game {}: both sides O-O-O", i + 1);
        } else {
            assert!(short >= 1 && long == 0, "game {}: O-O only", i + 1);
        }
    }
}

fn replay(start: &Chess, moves: &[Move]) -> Chess {
    let mut pos = start.clone();
    for &m in moves {
        pos.play_unchecked(m);
    }
    pos
}

#[test]
fn negative_sample_fails_at_the_null_move() {
    let Some(dir) = support::corpus::chess_data() else {
        return;
    };
    let bytes = read_file(&dir, NEGATIVE);
    // `41. Bxf3 Z0`: White's 41st move is ply 81, so Black's null move is ply 82.
    let e = pgn::read_pgn(&bytes).expect_err("the negative sample must not read");
    assert_eq!(e.game, 1);
    assert_eq!(e.ply, Some(82));
    assert_eq!(
        e.kind,
        PgnErrorKind::NullMove {
            san: "--".into(),
            number: "41...".into()
        }
    );
    assert_eq!(
        (e.white.as_str(), e.black.as_str()),
        ("Anastasian, A.", "Lewis, An")
    );
    assert_eq!(e.legal_prefix().len(), 81);
    assert_eq!(e.start(), Some(&Chess::default()));
    assert_eq!(e.san(), Some("--"));
    assert!(
        e.to_string()
            .starts_with("game 1 (Anastasian, A. - Lewis, An), ply 82 (41... --): null moves"),
        "{e}"
    );
    // The legal prefix replays, and ends after 41. Bxf3.
    let partial = e.partial.as_deref().expect("partial game");
    assert_eq!(
        partial.sans.last().map(ToString::to_string).as_deref(),
        Some("Bxf3")
    );
    let _ = replay(&partial.start, e.legal_prefix());

    let each = pgn::read_pgn_each(&bytes);
    assert_eq!(each.len(), 1);
    assert_eq!(each[0].as_ref().unwrap_err(), &e);
}

#[test]
fn bom_file_reads_its_two_empty_games() {
    let Some(dir) = support::corpus::chess_data() else {
        return;
    };
    let bytes = read_file(&dir, "python-chess-utf8-bom.pgn");
    assert!(
        bytes.starts_with(b"\xef\xbb\xbf"),
        "the sample starts with a BOM"
    );
    let games = pgn::read_pgn(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 2);
    for (g, event) in games.iter().zip(["A", "B"]) {
        assert_eq!(
            g.tag("Event"),
            Some(event),
            "the BOM must not leak into the first tag"
        );
        assert!(g.moves.is_empty());
        assert_eq!(g.result.as_deref(), Some("*"));
        assert_eq!(g.white(), "White vs 1...c5");
    }
}
