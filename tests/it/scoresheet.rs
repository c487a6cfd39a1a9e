//! The scoresheets end to end: the Braille score (BRF and Unicode, both profiles) against the
//! reference's worked example, every corpus game, a long game and a game with every element; the
//! text and PGN scoresheets against fixtures written by hand; and `tactus scoresheet`.

use crate::support;

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use shakmaty::{Chess, Color, Move, Position, san::San};
use tactus_core::{
    record::{
        braille::{
            self, BrailleFormat, BrailleOptions, Cell, Document, Marks, PageSize, Profile,
            cell::{to_brf, to_unicode},
            layout::{self, SEPARATOR, Unit},
        },
        format::{self, Format},
        score::{Score, ScoreMove},
        text,
    },
    rules::{
        Edition, PlayMode,
        game::{Game, Input, RulesConfig},
        pgn,
        time_control::TimeControl,
    },
};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/scoresheet");

fn fixture(name: &str) -> String {
    fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn profile(name: &str) -> Profile {
    Profile::named(name).unwrap()
}

fn options(profile_name: &str, marks: Marks, cells: usize, lines: usize) -> BrailleOptions {
    BrailleOptions {
        profile: profile(profile_name),
        marks,
        page: PageSize::new(cells, lines).unwrap(),
    }
}

/// A score from SAN moves played from the initial position.
fn score_of(sans: &[&str]) -> Score {
    let mut score = Score::new(Chess::default());
    let mut pos = Chess::default();
    for san in sans {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
        score.moves.push(ScoreMove {
            mv,
            clock_ms: None,
            draw_offer: false,
        });
    }
    score
}

/// The score lines of a document: after the separation line, without running heads.
fn score_lines(doc: &Document) -> Vec<Vec<Cell>> {
    let lines: Vec<&Vec<Cell>> = doc
        .pages
        .iter()
        .flat_map(|p| p.iter().skip(doc.head_lines))
        .collect();
    let sep = lines
        .iter()
        .position(|l| !l.is_empty() && l.iter().all(|&c| c == SEPARATOR))
        .expect("a separation line");
    lines[sep + 1..].iter().map(|l| (*l).clone()).collect()
}

// --- the reference's worked example ------------------------------------------------------------

#[test]
fn the_worked_example_renders_exactly_as_the_reference_gives_it() {
    let score = score_of(&["e4", "e5", "Nf3", "Nc6", "Bb5"]);
    for cells in [40, 32] {
        let doc = braille::render(&score, &options("ukaaf", Marks::default(), cells, 25)).unwrap();
        let lines = score_lines(&doc);
        assert_eq!(lines.len(), 1);
        assert_eq!(to_unicode(&lines[0]), "⠂ ⠑⠲ ⠑⠢ ⠆ ⠎⠋⠒ ⠎⠉⠖ ⠒ ⠇⠃⠢");
        assert_eq!(to_brf(&lines[0]), "1 E4 E5 2 SF3 SC6 3 LB5");
        // The same line in the two spellings of the whole document.
        assert!(doc.to_brf().contains("\r\n1 E4 E5 2 SF3 SC6 3 LB5\r\n\x0c"));
        assert!(doc.to_unicode().contains("\n⠂ ⠑⠲ ⠑⠢ ⠆ ⠎⠋⠒ ⠎⠉⠖ ⠒ ⠇⠃⠢\n\x0c"));
    }
    // German letters: Springer S, Laeufer L, so the example reads the same.
    let doc = braille::render(&score, &options("de", Marks::default(), 40, 25)).unwrap();
    assert_eq!(to_brf(&score_lines(&doc)[0]), "1 E4 E5 2 SF3 SC6 3 LB5");
}

// --- checks every rendered Braille document must pass ------------------------------------------

/// Checks the BRF of `doc`: characters, CR LF, form feeds, line and page sizes, the running
/// heads' page numbers; and that the score lines are the units laid out whole.
fn check_brf(brf: &str, doc: &Document, units: &[Unit], opts: &BrailleOptions, what: &str) {
    let PageSize { cells, lines } = opts.page;
    assert!(
        brf.ends_with("\r\n\x0c"),
        "{what}: the last page ends in CR LF and a form feed"
    );
    let pages: Vec<&str> = brf.strip_suffix('\x0c').unwrap().split('\x0c').collect();
    assert_eq!(pages.len(), doc.pages.len(), "{what}");
    for (p, page) in pages.iter().enumerate() {
        assert!(page.ends_with("\r\n"), "{what}: page {}", p + 1);
        let page_lines: Vec<&str> = page.strip_suffix("\r\n").unwrap().split("\r\n").collect();
        assert!(
            page_lines.len() <= lines,
            "{what}: page {} has {} lines",
            p + 1,
            page_lines.len()
        );
        if p + 1 < pages.len() {
            assert_eq!(
                page_lines.len(),
                lines,
                "{what}: page {} is not full",
                p + 1
            );
        }
        for (l, line) in page_lines.iter().enumerate() {
            let at = format!("{what}: page {} line {}: {line:?}", p + 1, l + 1);
            assert!(
                line.bytes().all(|b| (0x20..=0x5F).contains(&b)),
                "{at}: character outside 0x20-0x5F"
            );
            assert!(line.len() <= cells, "{at}: {} cells", line.len());
            assert!(
                !line.ends_with(' ') && !line.is_empty(),
                "{at}: trailing blank or empty line"
            );
        }
        // The running head ends in this page's number at the right margin.
        let number = to_brf(&layout::page_number(p + 1));
        assert!(
            page_lines[0].ends_with(&format!(" {number}")),
            "{what}: page {} head {:?}",
            p + 1,
            page_lines[0]
        );
        assert_eq!(page_lines[0].len(), cells, "{what}");
    }
    // Never a move split across lines: each score line is whole units, the first in its
    // line-start form, the others each after one blank.
    let mut next = units.iter();
    for line in score_lines(doc) {
        let mut rest: &[Cell] = &line;
        let mut first = true;
        while !rest.is_empty() {
            let unit = next
                .next()
                .unwrap_or_else(|| panic!("{what}: more on the lines than units"));
            let expected: Vec<Cell> = if first {
                unit.line_start.clone()
            } else {
                std::iter::once(Cell::BLANK)
                    .chain(unit.inline.iter().copied())
                    .collect()
            };
            assert!(
                rest.starts_with(&expected),
                "{what}: line {:?} does not continue with {:?}",
                to_brf(&line),
                to_brf(&expected)
            );
            rest = &rest[expected.len()..];
            first = false;
        }
    }
    assert!(
        next.next().is_none(),
        "{what}: units missing from the lines"
    );
}

/// Reads `doc` back in both spellings and compares moves, draw offers and the result.
fn check_read_back(doc: &Document, score: &Score, opts: &BrailleOptions, what: &str) {
    for (bytes, format) in [
        (doc.to_brf().into_bytes(), BrailleFormat::Brf),
        (doc.to_unicode().into_bytes(), BrailleFormat::Unicode),
    ] {
        let back = braille::read_score(&bytes, format, &opts.profile, score.start.clone())
            .unwrap_or_else(|e| panic!("{what} ({format}): {e}"));
        let moves: Vec<Move> = back.moves.iter().map(|m| m.mv).collect();
        let expected: Vec<Move> = score.moves.iter().map(|m| m.mv).collect();
        assert_eq!(moves, expected, "{what} ({format})");
        let offers: Vec<bool> = back.moves.iter().map(|m| m.draw_offer).collect();
        let expected: Vec<bool> = score.moves.iter().map(|m| m.draw_offer).collect();
        assert_eq!(offers, expected, "{what} ({format})");
        let result = if opts.profile.result(&score.result).is_some() {
            score.result.as_str()
        } else {
            "*"
        };
        assert_eq!(back.result, result, "{what} ({format})");
    }
}

/// Renders `score` every way the tests care about and checks each.
fn render_and_check(score: &Score, what: &str) -> usize {
    let mut documents = 0;
    for profile_name in ["ukaaf", "de"] {
        for (cells, lines) in [(40, 25), (32, 25), (20, 6)] {
            for marks in [Marks::default(), Marks::ALL, Marks::NONE] {
                let opts = options(profile_name, marks, cells, lines);
                let what = format!("{what} [{profile_name} {cells}x{lines} {marks:?}]");
                let doc = braille::render(score, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
                let units = layout::score_units(score, &opts).unwrap();
                check_brf(&doc.to_brf(), &doc, &units, &opts, &what);
                // Unicode Braille: the same lines and pages.
                let unicode = doc.to_unicode();
                let brf = doc.to_brf();
                assert_eq!(
                    unicode.matches('\x0c').count(),
                    brf.matches('\x0c').count(),
                    "{what}"
                );
                assert_eq!(unicode.lines().count(), brf.lines().count(), "{what}");
                check_read_back(&doc, score, &opts, &what);
                documents += 1;
            }
        }
    }
    documents
}

// --- the corpus --------------------------------------------------------------------------------

#[test]
fn every_corpus_game_renders_in_both_profiles_and_reads_back_exactly() {
    let Some(dir) = support::corpus::chess_data() else {
        return;
    };
    let mut names: Vec<PathBuf> = fs::read_dir(dir.join("pgn"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    names.sort();
    let (mut games, mut prefixes, mut plies, mut documents) = (0, 0, 0, 0);
    for path in &names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (i, game) in pgn::read_pgn_each(&fs::read(path).unwrap())
            .into_iter()
            .enumerate()
        {
            let score = match game {
                Ok(game) => {
                    games += 1;
                    Score::from_pgn(&game)
                }
                // The negative sample: its legal prefix is a game as far as it goes.
                Err(e) => {
                    prefixes += 1;
                    let partial = e
                        .partial
                        .as_deref()
                        .unwrap_or_else(|| panic!("{name}: {e}"));
                    let mut score = Score::from_pgn(partial);
                    score.result = "*".into();
                    score
                }
            };
            plies += score.moves.len();
            documents += render_and_check(&score, &format!("{name} game {}", i + 1));
        }
    }
    assert!(
        games >= 135 && prefixes == 1,
        "{games} games, {prefixes} legal prefixes"
    );
    assert!(plies > 10_000, "only {plies} plies");
    eprintln!(
        "{games} games and {prefixes} legal prefix, {plies} plies, {documents} documents checked"
    );
}

// --- a long game and a game with every element ------------------------------------------------

#[test]
fn a_long_game_paginates_with_page_numbers() {
    // 120 moves of knights touring, with the mover's clock and a three-digit move number.
    let cycle = ["Nf3", "Nf6", "Nc3", "Nc6", "Ng1", "Ng8", "Nb1", "Nb8"];
    let sans: Vec<&str> = cycle.iter().cycle().take(240).copied().collect();
    let mut score = score_of(&sans);
    score.tags = vec![
        ("Event".into(), "Marathon".into()),
        ("White".into(), "Long, Player".into()),
        ("Black".into(), "Longer, Player".into()),
    ];
    score.result = "1/2-1/2".into();
    score.moves[201].draw_offer = true;
    let opts = options("ukaaf", Marks::default(), 40, 25);
    let doc = braille::render(&score, &opts).unwrap();
    let brf = doc.to_brf();
    // 4 header lines, the separator, and the score lines; 24 body lines a page.
    let body = 5 + layout::score_lines(&score, &opts).unwrap().len();
    assert_eq!(doc.pages.len(), body.div_ceil(24));
    assert!(doc.pages.len() >= 2, "{} pages", doc.pages.len());
    for (p, page) in brf.split('\x0c').filter(|p| !p.is_empty()).enumerate() {
        let head = page.split("\r\n").next().unwrap();
        let number = to_brf(&layout::page_number(p + 1));
        assert!(
            head.starts_with(",LONG1 ,PLAYER - ,LONGER1 ,PLAYER  "),
            "{head:?}"
        );
        assert!(
            head.ends_with(&format!("  {number}")) && head.len() == 40,
            "{head:?}"
        );
    }
    let joined: Vec<String> = score_lines(&doc).iter().map(|l| to_brf(l)).collect();
    let joined = joined.join(" ");
    // Move numbers past 99, and Black's draw offer with his 101st move.
    assert!(
        joined.contains("100 SB1 SB8") || joined.contains("100 SB1 100 -SB8"),
        "{joined}"
    );
    assert!(joined.contains("SF6\"<\"7\">"), "{joined}");
    assert!(brf.ends_with("1/2-1/2\r\n\x0c"));
    let units = layout::score_units(&score, &opts).unwrap();
    check_brf(&brf, &doc, &units, &opts, "long game");
    check_read_back(&doc, &score, &opts, "long game");
    // Small pages: many of them, numbered on.
    let small = options("de", Marks::default(), 16, 4);
    let doc = braille::render(&score, &small).unwrap();
    assert!(doc.pages.len() > 30, "{} pages", doc.pages.len());
    let units = layout::score_units(&score, &small).unwrap();
    check_brf(
        &doc.to_brf(),
        &doc,
        &units,
        &small,
        "long game, small pages",
    );
    check_read_back(&doc, &score, &small, "long game, small pages");
}

const MIN: i64 = 60_000;

fn play(game: &mut Game, san: &str, at: u64) {
    let mv = san
        .parse::<San>()
        .unwrap()
        .to_move(game.position())
        .unwrap_or_else(|e| panic!("{san}: {e}"));
    game.apply(Input::Move(mv), at)
        .unwrap_or_else(|e| panic!("{san}: {e}"));
}

fn standard_game(time_control: &str) -> Game {
    Game::new(RulesConfig {
        edition: Edition::Fide2001,
        play: PlayMode::Standard,
        time_control: Some(time_control.parse::<TimeControl>().unwrap()),
    })
}

/// Promotion (by capture, and an underpromotion), both castlings, e.p., two draw offers (one
/// declined, one accepted), clocks.
fn every_element_game() -> Game {
    let mut g = standard_game("5400+30");
    g.apply(Input::Start, 0).unwrap();
    let moves = [
        "e4", "d5", "e5", "f5", "exf6", "Nc6", "fxg7", "Qd6", "gxh8=Q", "Bd7", "Nf3", "O-O-O",
        "Be2", "h5", "O-O", "h4", "d3", "h3", "Nc3", "hxg2", "a3", "gxf1=N",
    ];
    let mut t = 0;
    for (i, san) in moves.iter().enumerate() {
        t += 10_000;
        play(&mut g, san, t);
        if *san == "O-O" {
            g.apply(Input::OfferDraw { by: Color::White }, t + 1)
                .unwrap();
        }
        if i + 1 == moves.len() {
            g.apply(Input::OfferDraw { by: Color::Black }, t + 1)
                .unwrap();
            g.apply(Input::AcceptDraw { by: Color::White }, t + 2)
                .unwrap();
        }
    }
    assert!(g.is_over());
    g
}

#[test]
fn a_game_with_every_element_renders_each_of_them() {
    let g = every_element_game();
    let tags = vec![
        ("White".to_owned(), "Blind, Player".to_owned()),
        ("Black".to_owned(), "Sighted, Opponent".to_owned()),
    ];
    let score = Score::from_game(&g, &tags);
    assert!(score.moves.iter().any(|m| m.mv.is_en_passant()));
    assert_eq!(
        score
            .moves
            .iter()
            .filter(|m| m.mv.promotion().is_some())
            .count(),
        2
    );
    assert_eq!(score.moves.iter().filter(|m| m.mv.is_castle()).count(), 2);

    let opts = options("ukaaf", Marks::default(), 40, 25);
    let doc = braille::render(&score, &opts).unwrap();
    let lines: Vec<String> = score_lines(&doc).iter().map(|l| to_brf(l)).collect();
    assert_eq!(
        lines,
        [
            "1 E4 D5 2 E5 F5 3 EF6EP SC6 4 FG7 QD6",
            "5 GH8Q LD7 6 SF3 0-0-0 7 LE2 H5",
            "8 0-0\"<\"7\"> H4 9 D3 H3 10 SC3 HG2 11 A3",
            "11 -GF1S\"<\"7\"> 1/2-1/2",
        ]
    );
    let unicode: Vec<String> = score_lines(&doc).iter().map(|l| to_unicode(l)).collect();
    assert_eq!(unicode[3], "⠂⠂ ⠤⠛⠋⠂⠎⠐⠣⠐⠶⠐⠜ ⠂⠌⠆⠤⠂⠌⠆");
    // German letters: D for the new queen, S for the knight.
    let de = braille::render(&score, &options("de", Marks::default(), 40, 25)).unwrap();
    let de_lines: Vec<String> = score_lines(&de).iter().map(|l| to_brf(l)).collect();
    assert_eq!(de_lines[1], "5 GH8D LD7 6 SF3 0-0-0 7 LE2 H5");
    // Every mark at once.
    let all = braille::render(&score, &options("ukaaf", Marks::ALL, 40, 25)).unwrap();
    let all_lines: Vec<String> = score_lines(&all).iter().map(|l| to_brf(l)).collect();
    assert!(
        all_lines[0].starts_with("1 E4 D5 2 E5 F5 3 E;F6EP SC6 4 F;G7 QD6"),
        "{all_lines:?}"
    );
    assert!(all_lines.join(" ").contains("5 G;H8Q"), "{all_lines:?}");
    render_and_check(&score, "every element");

    // Text and PGN carry the same elements.
    let sheet = text::render(&score);
    assert_eq!(sheet.matches("(=)").count(), 2, "{sheet}");
    assert!(
        sheet.contains("   3  exf6 ") && sheet.contains("gxh8=Q") && sheet.contains("gxf1=N (=)"),
        "{sheet}"
    );
    assert!(
        sheet.contains("O-O-O") && sheet.contains("O-O (=)"),
        "{sheet}"
    );
    assert!(
        sheet.contains("Result: 1/2-1/2 (draw by agreement)"),
        "{sheet}"
    );
    let pgn_text = g.to_pgn(&tags);
    assert_eq!(score.to_pgn(), pgn_text);
    let back = pgn::read_pgn(pgn_text.as_bytes()).unwrap().remove(0);
    assert_eq!(back.draw_offers.iter().filter(|&&o| o).count(), 2);
    assert!(back.clocks.iter().all(Option::is_some));
    assert_eq!(back.tag("Termination"), Some("normal"));
}

// --- text and PGN against fixtures written by hand ---------------------------------------------

/// Braille Open 2024, round 3: a Sicilian with clocks (5400+30), White's declined draw offer
/// with 5.Nc3 and Black's accepted one with 6...e5. Times as worked out in the fixture.
fn braille_open_game() -> (Game, Vec<(String, String)>) {
    let mut g = standard_game("5400+30");
    g.apply(Input::Start, 0).unwrap();
    for (san, at) in [
        ("e4", 5_000),
        ("c5", 12_000),
        ("Nf3", 20_000),
        ("d6", 50_000),
        ("d4", 62_000),
        ("cxd4", 65_000),
        ("Nxd4", 67_000),
        ("Nf6", 127_000),
        ("Nc3", 187_000),
    ] {
        play(&mut g, san, at);
    }
    g.apply(Input::OfferDraw { by: Color::White }, 188_000)
        .unwrap();
    play(&mut g, "a6", 307_000);
    play(&mut g, "Be2", 367_000);
    play(&mut g, "e5", 370_000);
    g.apply(Input::OfferDraw { by: Color::Black }, 371_000)
        .unwrap();
    g.apply(Input::AcceptDraw { by: Color::White }, 400_000)
        .unwrap();
    let tags = [
        ("Event", "Braille Open 2024"),
        ("Site", "Hamburg GER"),
        ("Date", "2024.05.01"),
        ("Round", "3"),
        ("White", "Weiss, Anna"),
        ("Black", "Schwarz, Bernd"),
    ]
    .map(|(t, v)| (t.to_owned(), v.to_owned()))
    .to_vec();
    (g, tags)
}

#[test]
fn text_and_pgn_match_the_hand_written_fixtures() {
    let (g, tags) = braille_open_game();
    // The clock arithmetic of the fixture: 90 minutes, +30 s a move.
    assert_eq!(
        g.moves()[0].clocks_after.unwrap().white,
        90 * MIN - 5_000 + 30_000
    );
    let score = Score::from_game(&g, &tags);
    assert_eq!(text::render(&score), fixture("braille-open-r3.txt"));
    assert_eq!(g.to_pgn(&tags), fixture("braille-open-r3.pgn"));
    assert_eq!(score.to_pgn(), fixture("braille-open-r3.pgn"));

    let game = pgn::read_pgn(fixture("molinari-bordais.in.pgn").as_bytes())
        .unwrap()
        .remove(0);
    let score = Score::from_pgn(&game);
    assert_eq!(text::render(&score), fixture("molinari-bordais.txt"));
    assert_eq!(score.to_pgn(), fixture("molinari-bordais.pgn"));

    // The PGN fixture read back is the same game, offers and clocks included, and renders to
    // the same text scoresheet.
    let back = pgn::read_pgn(fixture("braille-open-r3.pgn").as_bytes())
        .unwrap()
        .remove(0);
    let mut again = Score::from_pgn(&back);
    again.reason = Some("draw by agreement".into());
    assert_eq!(text::render(&again), fixture("braille-open-r3.txt"));
    let opts = options("ukaaf", Marks::default(), 40, 25);
    for f in Format::ALL {
        assert_eq!(
            format::render(&again, f, &opts).unwrap(),
            format::render(&Score::from_game(&g, &tags), f, &opts).unwrap(),
            "{f}"
        );
    }
}

// --- `tactus scoresheet` ------------------------------------------------------------------------

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = crate::support::table::temp_dir(&format!("scoresheet-{name}"));
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs `tactus scoresheet ARGS`: (exit code, stdout, stderr).
fn tactus(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .arg("scoresheet")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_converts_pgn_to_braille_and_back() {
    let dir = TempDir::new("convert");
    let pgn_path = dir.path("round3.pgn");
    let (g, tags) = braille_open_game();
    fs::write(&pgn_path, g.to_pgn(&tags)).unwrap();
    let pgn_arg = pgn_path.to_str().unwrap();

    // PGN -> BRF, to a file.
    let brf_path = dir.path("round3.brf");
    let (code, stdout, stderr) =
        tactus(&[pgn_arg, "--format", "brf", "-o", brf_path.to_str().unwrap()]);
    assert_eq!((code, stdout.is_empty()), (0, true), "{stderr}");
    let brf = fs::read(&brf_path).unwrap();
    let score = Score::from_pgn(
        &pgn::read_pgn(&fs::read(&pgn_path).unwrap())
            .unwrap()
            .remove(0),
    );
    let expected = braille::render(&score, &options("ukaaf", Marks::default(), 40, 25))
        .unwrap()
        .to_brf();
    assert_eq!(String::from_utf8(brf.clone()).unwrap(), expected);
    assert!(
        expected.contains("5 SC3\"<\"7\"> A6 6 LE2 E5\"<\"7\"> 1/2-1/2"),
        "{expected}"
    );

    // BRF -> PGN: the same moves and draw offers; the names come from --tag.
    let (code, stdout, stderr) = tactus(&[
        brf_path.to_str().unwrap(),
        "--format",
        "pgn",
        "--tag",
        "White=Weiss, Anna",
        "--tag",
        "Event=Braille Open 2024",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let back = pgn::read_pgn(&stdout).unwrap().remove(0);
    assert_eq!(
        back.moves,
        g.moves().iter().map(|r| r.mv).collect::<Vec<_>>()
    );
    assert_eq!(back.draw_offers.iter().filter(|&&o| o).count(), 2);
    assert_eq!(back.white(), "Weiss, Anna");
    assert_eq!(back.tag("Event"), Some("Braille Open 2024"));
    assert_eq!(back.result.as_deref(), Some("1/2-1/2"));

    // The configuration supplies the event's tags the score lacks (and --tag still wins).
    let config_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml");
    let config = tactus::config::Config::load(&config_path).unwrap();
    let (code, stdout, stderr) = tactus(&[
        brf_path.to_str().unwrap(),
        "--format",
        "pgn",
        "--config",
        config_path.to_str().unwrap(),
        "--tag",
        "Round=7",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let back = pgn::read_pgn(&stdout).unwrap().remove(0);
    for (tag, value) in config.tags() {
        if tag != "Round" && value != "?" {
            assert_eq!(back.tag(&tag), Some(value.as_str()), "{tag}");
        }
    }
    assert_eq!(back.tag("Round"), Some("7"));

    // German profile, 32 cells, Unicode Braille; read back from a .txt by its content.
    let (code, stdout, stderr) = tactus(&[
        pgn_arg,
        "--format",
        "braille",
        "--profile",
        "de",
        "--cells",
        "32",
        "--lines",
        "10",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let unicode = String::from_utf8(stdout).unwrap();
    assert!(
        unicode
            .lines()
            .all(|l| l.trim_start_matches('\x0c').chars().count() <= 32),
        "{unicode}"
    );
    assert!(
        unicode.contains("⠺⠑⠊⠎⠎⠒ ⠺⠑⠊⠎⠎⠂ ⠁⠝⠝⠁"),
        "German header, no capital signs: {unicode}"
    );
    let txt = dir.path("score.txt");
    fs::write(&txt, &unicode).unwrap();
    let (code, stdout, stderr) =
        tactus(&[txt.to_str().unwrap(), "--profile", "de", "--format", "text"]);
    assert_eq!(code, 0, "{stderr}");
    let sheet = String::from_utf8(stdout).unwrap();
    assert!(
        sheet.contains("   5  Nc3 (=)")
            && sheet.contains("e5 (=)")
            && sheet.contains("Result: 1/2-1/2"),
        "{sheet}"
    );

    // Text and PGN straight from PGN.
    let (code, stdout, _) = tactus(&[pgn_arg, "--format", "text"]);
    assert_eq!(code, 0);
    // From PGN the reason is not known (its Termination is only "normal").
    let expected = fixture("braille-open-r3.txt")
        .replace("Result: 1/2-1/2 (draw by agreement)", "Result: 1/2-1/2");
    assert_eq!(String::from_utf8(stdout).unwrap(), expected);
    let (code, stdout, _) = tactus(&[pgn_arg, "--format", "pgn"]);
    assert_eq!(
        (code, String::from_utf8(stdout).unwrap()),
        (0, fixture("braille-open-r3.pgn"))
    );
}

/// Issue 15, point 12: the running head dropped the second player's name when both did not fit
/// on one line (`,BLIND PLAYER "<SIMULATED"> -  #A`). Every word of both players is on every
/// page, in literary Braille with its capital signs, and the score still reads back.
#[test]
fn f5_the_running_head_names_both_players_in_full_on_every_page() {
    let dir = TempDir::new("names");
    let pgn_path = dir.path("demo.pgn");
    fs::write(
        &pgn_path,
        "[White \"Blind player (simulated)\"]\n[Black \"van der Berg, Anna Maria\"]\n\n\
         1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O *\n",
    )
    .unwrap();
    let brf_path = dir.path("demo.brf");
    let (code, _, stderr) = tactus(&[
        pgn_path.to_str().unwrap(),
        "--format",
        "brf",
        "--lines",
        "4",
        "-o",
        brf_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let brf = fs::read_to_string(&brf_path).unwrap();
    let pages: Vec<&str> = brf.split('\x0c').filter(|p| !p.is_empty()).collect();
    assert!(pages.len() >= 3, "{brf}");
    for (p, page) in pages.iter().enumerate() {
        let lines: Vec<&str> = page.split("\r\n").collect();
        let number = to_brf(&layout::page_number(p + 1));
        assert_eq!(
            lines[..2],
            [
                format!(
                    "{:<w$}{number}",
                    ",BLIND PLAYER \"<SIMULATED\"> -",
                    w = 40 - number.len()
                )
                .as_str(),
                "VAN DER ,BERG1 ,ANNA ,MARIA",
            ],
            "page {}",
            p + 1
        );
    }
    // Read back to PGN by the same command: the heads are not taken for moves.
    let (code, stdout, stderr) = tactus(&[brf_path.to_str().unwrap(), "--format", "pgn"]);
    assert_eq!(code, 0, "{stderr}");
    let back = pgn::read_pgn(&stdout).unwrap().remove(0);
    assert_eq!(back.moves.len(), 16);
}

#[test]
fn a_bad_braille_score_is_named_by_file_page_and_line() {
    let dir = TempDir::new("bad-brf");
    let path = dir.path("typed.brf");
    // Page 2, line 3: Black's knight cannot reach d5.
    fs::write(
        &path,
        "  #A\r\n1 E4 E5\r\n\x0c  #B\r\n2 SF3 SC6\r\n3 LB5 SD5\r\n\x0c",
    )
    .unwrap();
    let (code, stdout, stderr) = tactus(&[path.to_str().unwrap(), "--format", "pgn"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(&format!("{}", path.display()))
            && stderr.contains(
                "page 2, line 3, 'SD5': move 3...: no legal move matches it (read as Nd5)"
            ),
        "{stderr}"
    );
    // The same as Unicode Braille.
    let path = dir.path("typed.txt");
    fs::write(&path, "⠂ ⠑⠲ ⠑⠢\n⠆ ⠎⠋⠒ ⠎⠉⠖ ⠒ ⠇⠃⠢ ⠎⠙⠢\n").unwrap();
    let (code, _, stderr) = tactus(&[path.to_str().unwrap(), "--format", "pgn"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("page 1, line 2, '⠎⠙⠢': move 3...: no legal move"),
        "{stderr}"
    );
}

#[test]
fn bad_pgn_and_bad_options_are_clear_errors() {
    let dir = TempDir::new("bad-pgn");
    let path = dir.path("games.pgn");
    fs::write(
        &path,
        "[White \"A\"]\n\n1. e4 e5 *\n\n[White \"B\"]\n[Black \"C\"]\n\n1. e4 e5 2. Ke3 *\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let (code, _, stderr) = tactus(&[p, "--format", "brf", "--game", "2"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("games.pgn: game 2 (B - C), ply 3 (2. Ke3): illegal move"),
        "{stderr}"
    );
    let (code, _, stderr) = tactus(&[p, "--format", "brf", "--game", "3"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("holds 2 games; there is no game 3"),
        "{stderr}"
    );
    let (code, stdout, stderr) = tactus(&[p, "--format", "brf"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("holds 2 games; writing game 1"), "{stderr}");
    assert!(
        String::from_utf8(stdout)
            .unwrap()
            .contains("\r\n1 E4 E5\r\n")
    );
    let (code, _, stderr) = tactus(&[p, "--format", "brf", "--profile", "fr"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("there is no Braille profile 'fr'; the profiles are de, ukaaf"),
        "{stderr}"
    );
    let (code, _, stderr) = tactus(&[p, "--format", "brf", "--cells", "8"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("too small"), "{stderr}");
    let (code, _, stderr) = tactus(&[p, "--format", "brf", "--marks", "capture,chek"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("'chek' is not a Braille mark"), "{stderr}");
    // Issue 15, point 13: text that is not PGN is no game, and the message says where.
    let hello = dir.path("hello.pgn");
    fs::write(&hello, "hello world\n").unwrap();
    let (code, stdout, stderr) = tactus(&[hello.to_str().unwrap(), "--format", "brf"]);
    assert_eq!((code, stdout.is_empty()), (2, true), "{stderr}");
    assert!(
        stderr.contains("hello.pgn holds no PGN game: line 1, column 1: 'hello' is not PGN"),
        "{stderr}"
    );
    let (code, _, stderr) = tactus(&[dir.path("missing.pgn").to_str().unwrap(), "--format", "pgn"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot read") && stderr.contains("missing.pgn"),
        "{stderr}"
    );
}

/// Issue 26, point 9: the Braille header is in the voice pack's language, whatever the
/// profile's letters: `--voice`, or the configuration's pack.
#[test]
fn the_braille_header_is_in_the_voice_packs_language() {
    let dir = TempDir::new("voice");
    let pgn_path = dir.path("round3.pgn");
    let (g, tags) = braille_open_game();
    fs::write(&pgn_path, g.to_pgn(&tags)).unwrap();
    let pgn_arg = pgn_path.to_str().unwrap();
    let brf = |extra: &[&str]| {
        let mut args = vec![pgn_arg, "--format", "brf"];
        args.extend(extra);
        let (code, stdout, stderr) = tactus(&args);
        assert_eq!(code, 0, "{extra:?}: {stderr}");
        String::from_utf8(stdout).unwrap()
    };
    let header = |text: &str| {
        text.split("333333333333")
            .next()
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split('3').next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let german = brf(&["--voice", "de-fide"]);
    assert!(
        header(&german).contains(&",TURNIER".to_owned())
            && header(&german).contains(&",WEISS".to_owned()),
        "{german}"
    );
    // The German letters write text without capital signs.
    let spanish = brf(&["--voice", "es-fide", "--profile", "de"]);
    assert!(
        header(&spanish).contains(&"TORNEO".to_owned())
            && header(&spanish).contains(&"NEGRAS".to_owned()),
        "{spanish}"
    );
    assert!(brf(&["--voice", "en"]).contains(",EVENT3"));
    // The shipped configuration's pack is de-fide, and it sets no Braille profile: the German
    // one follows the voice (no capital signs).
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml");
    let configured = brf(&["--config", config.to_str().unwrap()]);
    assert!(
        configured.contains("TURNIER3") && !configured.contains(",TURNIER3"),
        "{configured}"
    );
    // A pack that does not exist is refused by name.
    let (code, _, stderr) = tactus(&[pgn_arg, "--format", "brf", "--voice", "xx-nope"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--voice") && stderr.contains("xx-nope"),
        "{stderr}"
    );
}
