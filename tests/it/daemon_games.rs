//! Whole games through the daemon, end to end: `tactus run` with both boards simulated on real
//! pseudo-terminals (the blind player's pegged board in the line protocol, the sighted player's
//! DGT board whose moves count when it settles), speech on the null PCM where ALSA is installed.
//!
//! - Ten games of `../shared/chess-data/pgn/` with both castlings, en passant, underpromotions
//!   (the blind player announcing the piece his board cannot see), checkmates, stalemates and
//!   dead positions, the blind player White in some and Black in others: the game folder's PGN
//!   holds the source game's moves up to where the Laws end it, every move is announced to the
//!   right player in order, and the journal shows that each blind move counted, and his clock
//!   stopped, only when its announcement had finished (F.3 c, F.9 c).
//! - One game with what goes wrong at a table (the daemon in this process, so that the
//!   simulated players can be told what to get wrong): an opponent's move executed wrongly on the
//!   tactile board and corrected after guidance, a touch that may give a claim (Art. 4.3 a), the
//!   tactile board unplugged in the middle of a move and plugged back in, and a black scoresheet
//!   that differs while both boards agree (F.8: a note, no retrace by itself): the arbiter takes
//!   the game back, both boards are guided back, the clocks proposed and confirmed, and play
//!   goes on to the mate.
//!
//! The latency and resource measurements of BENCHMARKS.md are the ignored tests at the end.

use crate::support;

use std::{
    ffi::OsStr,
    fs,
    io::{BufRead, BufReader},
    os::unix::net::UnixStream,
    panic::AssertUnwindSafe,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use shakmaty::{CastlingSide, Chess, Color, KnownOutcome, Move, Position, Role, Square};
use support::{
    console::{ask, clocks_of, ply_of, result_of, secs},
    corpus::corpus_game,
    games::{lawful_moves, sans, write_sim_pgn},
    process::{ask_when_up, show, spawn, wait_until},
    record::{
        ClockCharges, both_line, check_blind_clock, find_move_announcements, game_folder,
        move_line, pack, read_game_file, transcript_bodies,
    },
    table::{alsa_null, temp_dir, write_config, write_shipped_config},
};
use tactus::daemon::{
    RunOptions, SimSettings,
    files::{PGN_FILE, TOUCHES_FILE, TRANSCRIPT_FILE},
    journal,
};
use tactus_core::journal::{InputRecord, JOURNAL_FILE};
use tactus_core::{
    announce::{Announcement, Guidance, ResultWords, WhichBoard, voice::Style},
    rules::game::EndReason,
};

/// Pauses of the simulated players divided by this.
const SPEED: &str = "100";
/// Games played at once (each daemon mostly waits on its simulated players).
const WORKERS: usize = 4;
/// A game that makes no progress for this long has failed.
const STALL: Duration = Duration::from_secs(60);
/// No game may take longer.
const GAME_LIMIT: Duration = Duration::from_secs(420);

struct Case {
    label: &'static str,
    file: &'static str,
    /// 1-based game in the file.
    n: usize,
    blind: Color,
}

const TWIC: &str = "twic1599-selected.pgn";

/// See `../shared/chess-data/SOURCES.md` for what each game holds.
const CASES: &[Case] = &[
    // 70...h1=B+, 73...d1=R by the blind player (announced), both O-O; resignation.
    Case {
        label: "twic1",
        file: TWIC,
        n: 1,
        blind: Color::Black,
    },
    // 63.fxg6 e.p. and 65.g8=N by the blind player; ends in a dead position.
    Case {
        label: "twic2",
        file: TWIC,
        n: 2,
        blind: Color::White,
    },
    // 60...g1=R#: the blind player mates with an announced underpromotion.
    Case {
        label: "twic3",
        file: TWIC,
        n: 3,
        blind: Color::Black,
    },
    // 10.O-O by the blind player; 11...O-O-O, 12...cxb3 e.p. and the mate by the sighted one.
    Case {
        label: "twic5",
        file: TWIC,
        n: 5,
        blind: Color::White,
    },
    // 8.O-O-O by the sighted player; 16...bxc3 e.p. and 18...O-O by the blind one; resignation.
    Case {
        label: "twic6",
        file: TWIC,
        n: 6,
        blind: Color::Black,
    },
    // 14.O-O-O by the blind player; ends in stalemate.
    Case {
        label: "twic13",
        file: TWIC,
        n: 13,
        blind: Color::White,
    },
    // 43.fxg8=Q by the blind player (announced); ends in stalemate.
    Case {
        label: "twic14",
        file: TWIC,
        n: 14,
        blind: Color::White,
    },
    // Ends K+N v K, a dead position.
    Case {
        label: "twic15",
        file: TWIC,
        n: 15,
        blind: Color::Black,
    },
    // 5...Nd3#: the blind player mates.
    Case {
        label: "molinari",
        file: "python-chess-molinari-bordais-1979.pgn",
        n: 1,
        blind: Color::Black,
    },
    // Kasparov - Deep Blue 1997, game 5: both sides O-O-O; a draw by agreement.
    Case {
        label: "kasparov5",
        file: "python-chess-kasparov-deep-blue-1997.pgn",
        n: 5,
        blind: Color::White,
    },
];

/// What one game showed.
#[derive(Debug, Clone, Default)]
struct Played {
    label: &'static str,
    plies: usize,
    seconds: f64,
    /// (by the blind player, what) for every special move.
    features: Vec<(bool, &'static str)>,
    end: String,
    charges: ClockCharges,
}

fn features_of(moves: &[Move], blind: Color) -> Vec<(bool, &'static str)> {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for &m in moves {
        let by_blind = pos.turn() == blind;
        match m {
            Move::Castle { .. } => out.push((
                by_blind,
                match m.castling_side() {
                    Some(CastlingSide::KingSide) => "O-O",
                    _ => "O-O-O",
                },
            )),
            Move::EnPassant { .. } => out.push((by_blind, "e.p.")),
            Move::Normal {
                promotion: Some(role),
                ..
            } => out.push((
                by_blind,
                if role == Role::Queen {
                    "promotion"
                } else {
                    "underpromotion"
                },
            )),
            _ => {}
        }
        pos.play_unchecked(m);
    }
    out
}

/// End a game the Laws did not end the way its source ended: resignation or agreement.
fn finish_by_console(socket: &Path, result: &str) {
    let commands: &[&str] = match result {
        "1-0" => &["resign black"],
        "0-1" => &["resign white"],
        "1/2-1/2" => &["offer white", "accept black"],
        other => panic!("the source game has no result ({other})"),
    };
    for command in commands {
        let reply = ask(socket, command).unwrap();
        assert_eq!(
            reply.last().map(String::as_str),
            Some("ok"),
            "{command}: {reply:?}"
        );
    }
}

fn play_corpus_game(data: &Path, case: &Case) -> Played {
    let t0 = Instant::now();
    let dir = temp_dir(&format!("game-{}", case.label));
    let source = corpus_game(data, case.file, case.n);
    assert_eq!(source.start, Chess::default());
    let (moves, end) = lawful_moves(&source.moves);
    let source_result = source.tag("Result").unwrap_or("*").to_string();
    let sim_pgn = dir.join("source.pgn");
    // The whole source game: where it ends is the daemon's to find.
    write_sim_pgn(&sim_pgn, &source.moves);
    let alsa = alsa_null(&dir);
    let config = write_config(
        &dir,
        case.blind,
        if alsa.is_some() { "clips" } else { "none" },
    );
    let env: Vec<(&str, &OsStr)> = alsa
        .as_deref()
        .map(|p| vec![("ALSA_CONFIG_PATH", p.as_os_str())])
        .unwrap_or_default();
    let log = "run";
    let mut guard = spawn(
        &[
            "run",
            "--config",
            config.to_str().unwrap(),
            "--new",
            "--sim-pgn",
            sim_pgn.to_str().unwrap(),
            "--sim-speed",
            SPEED,
        ],
        &dir,
        log,
        &env,
    );
    let socket = dir.join("console.sock");

    // Until every move is played and, where the Laws end the game, the result stands.
    let mut last_ply = 0;
    let mut progress_at = Instant::now();
    loop {
        let status = ask_when_up(&socket, "status", &mut guard, &dir, log, STALL);
        let ply = ply_of(&status);
        let result = result_of(&status);
        if ply >= moves.len() && (end.is_none() || result.is_some()) {
            break;
        }
        assert!(
            result.is_none(),
            "{}: the game ended at ply {ply} ({result:?}), the Laws end it at ply {}\n{}",
            case.label,
            moves.len(),
            show(&dir, log)
        );
        if ply != last_ply {
            last_ply = ply;
            progress_at = Instant::now();
        }
        assert!(
            progress_at.elapsed() < STALL && t0.elapsed() < GAME_LIMIT,
            "{}: stuck at ply {ply} of {}: {status:?}\n{}",
            case.label,
            moves.len(),
            show(&dir, log)
        );
        thread::sleep(Duration::from_millis(100));
    }
    let expected_result = match &end {
        Some(e) => e.outcome.to_string(),
        None => {
            finish_by_console(&socket, &source_result);
            source_result.clone()
        }
    };
    let folder = game_folder(&dir.join("played"));
    let transcript_path = folder.join(TRANSCRIPT_FILE);
    let outcome: KnownOutcome = expected_result.parse().unwrap();
    let result_line = both_line(&Announcement::Result(match outcome {
        KnownOutcome::Decisive {
            winner: Color::White,
        } => ResultWords::WhiteWins,
        KnownOutcome::Decisive {
            winner: Color::Black,
        } => ResultWords::BlackWins,
        KnownOutcome::Draw => ResultWords::Draw,
    }));
    // The last words reach the transcript a moment after the game's state changed. The end is
    // said after the last move but one: when the sighted player's move ends the game, the
    // arbiter says the result before that move's announcement to the blind player (see the
    // report on issue 6); the order of the two is not asserted here.
    let end_said_after = |found: &[usize]| found[found.len().saturating_sub(2)];
    let complete = wait_until(Duration::from_secs(20), || {
        let text = fs::read_to_string(&transcript_path).unwrap_or_default();
        let bodies = transcript_bodies(&text);
        find_move_announcements(&bodies, &moves, case.blind)
            .is_ok_and(|found| bodies[end_said_after(&found)..].contains(&result_line))
    });
    guard.signal("-TERM");
    let status = guard.wait_limit(Duration::from_secs(20));
    assert!(
        status.success(),
        "{}: SIGTERM: {status}\n{}",
        case.label,
        show(&dir, log)
    );

    // The record.
    let pgn = read_game_file(&folder.join(PGN_FILE));
    assert_eq!(
        sans(&Chess::default(), &pgn.moves),
        sans(&Chess::default(), &moves),
        "{}: the PGN's moves",
        case.label
    );
    assert_eq!(
        pgn.tag("Result"),
        Some(expected_result.as_str()),
        "{}",
        case.label
    );
    if let Some(e) = &end {
        assert_eq!(e.ply, moves.len());
    }

    // Every announcement, to the right player, in order; the end said to both.
    let transcript = fs::read_to_string(&transcript_path).unwrap();
    let bodies = transcript_bodies(&transcript);
    let found = find_move_announcements(&bodies, &moves, case.blind)
        .unwrap_or_else(|e| panic!("{}: {e}\n{transcript}", case.label));
    let last = end_said_after(&found);
    assert!(
        complete,
        "{}: '{result_line}' missing after the last move:\n{transcript}",
        case.label
    );
    let reason_line = match end.as_ref().map(|e| e.reason) {
        Some(EndReason::Stalemate) => Some(both_line(&Announcement::Stalemate)),
        Some(EndReason::DeadPosition) => Some(both_line(&Announcement::DeadPosition)),
        None if expected_result == "1/2-1/2" => Some(both_line(&Announcement::DrawAccepted)),
        _ => None,
    };
    if let Some(line) = reason_line {
        assert!(
            bodies[last..].contains(&line),
            "{}: '{line}' missing after the last move:\n{transcript}",
            case.label
        );
    }

    // The blind player's clock ran until each of his announcements had finished.
    let journal_path = folder.join(JOURNAL_FILE);
    let charges = check_blind_clock(&journal_path, case.blind)
        .unwrap_or_else(|e| panic!("{}: {e}", case.label));
    let blind_moves =
        pgn.moves.len() / 2 + usize::from(case.blind == Color::White && pgn.moves.len() % 2 == 1);
    assert_eq!(charges.moves, blind_moves, "{}", case.label);
    if alsa.is_some() {
        assert!(
            charges.announced_later * 2 >= charges.moves,
            "{}: with the clip speaker most announcements take time to finish: {charges:?}",
            case.label
        );
    }
    // Every underpromotion or promotion of the blind player was announced by him: the journal
    // holds the piece entered for it.
    let read = journal::read(&journal_path).unwrap();
    let promotes = crate::support::journal::applied(&read)
        .iter()
        .filter(|a| matches!(a.input, InputRecord::Promote { .. }))
        .count();
    let features = features_of(&moves, case.blind);
    let blind_promotions = features
        .iter()
        .filter(|(by_blind, what)| *by_blind && what.contains("promotion"))
        .count();
    assert!(
        promotes >= blind_promotions,
        "{}: {blind_promotions} blind promotions, {promotes} pieces entered",
        case.label
    );
    let touches = fs::read_to_string(folder.join(TOUCHES_FILE)).unwrap();
    assert!(
        touches.contains("tactile") && touches.contains("sighted"),
        "{}",
        case.label
    );
    fs::remove_dir_all(&dir).unwrap();
    Played {
        label: case.label,
        plies: moves.len(),
        seconds: t0.elapsed().as_secs_f64(),
        features,
        end: end
            .map(|e| e.reason.describe())
            .unwrap_or_else(|| format!("{expected_result} at the console")),
        charges,
    }
}

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into())
}

#[test]
fn ten_corpus_games_are_played_across_both_boards() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Result<Played, String>>> = Mutex::new(Vec::new());
    thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = CASES.get(i) else { break };
                    let played = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        play_corpus_game(&data, case)
                    }))
                    .map_err(|p| format!("{}: {}", case.label, panic_text(p)));
                    results.lock().unwrap().push(played);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        failures.is_empty(),
        "{} game(s) failed:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let played: Vec<&Played> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(played.len(), CASES.len());
    for p in &played {
        let speech: Vec<u64> = p.charges.speech_ms.clone();
        eprintln!(
            "{:<10} {:>3} plies in {:>5.1} s, ends: {}; blind moves {} (announcement to clock stop {:?} ms median); {:?}",
            p.label,
            p.plies,
            p.seconds,
            p.end,
            p.charges.moves,
            median(&speech),
            p.features
        );
    }
    // What the ten games cover, on each board.
    let covered = |by_blind: bool, what: &str| {
        played
            .iter()
            .any(|p| p.features.contains(&(by_blind, what)))
    };
    for what in ["O-O", "O-O-O", "e.p.", "underpromotion"] {
        assert!(covered(true, what), "no {what} by the blind player");
    }
    for what in ["O-O", "O-O-O", "e.p."] {
        assert!(covered(false, what), "no {what} by the sighted player");
    }
    let ends: Vec<&str> = played.iter().map(|p| p.end.as_str()).collect();
    for reason in [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::DeadPosition,
    ] {
        let word = reason.describe();
        assert!(
            ends.contains(&word.as_str()),
            "no game ended by {word}: {ends:?}"
        );
    }
}

fn median(values: &[u64]) -> Option<u64> {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// A console connection that collects every `# ...` line the daemon broadcasts.
fn watch_console(socket: PathBuf) -> (Arc<Mutex<Vec<String>>>, thread::JoinHandle<()>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    let handle = thread::spawn(move || {
        let Ok(stream) = UnixStream::connect(&socket) else {
            return;
        };
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            sink.lock().unwrap().push(line);
        }
    });
    (lines, handle)
}

/// Where the simulated player puts a piece he executes wrongly.
fn wrong_square(before: &Chess, m: Move) -> Square {
    tactus_core::sim::player::wrong_square(before, m).expect("a simple move has a wrong square")
}

fn is_simple(m: Move) -> bool {
    !m.is_capture() && !m.is_castle() && !m.is_promotion()
}

#[test]
fn a_game_with_a_mistake_a_touch_an_unplugged_board_and_a_disputed_scoresheet() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let dir = temp_dir("scenario");
    // Fawaz - Wadih 2025: 80 plies, O-O, O-O-O, e.p., mate. The blind player has White.
    let blind = Color::White;
    let source = corpus_game(&data, TWIC, 5);
    let moves = source.moves.clone();
    let (lawful, end) = lawful_moves(&moves);
    assert_eq!(lawful.len(), moves.len());
    assert_eq!(end.as_ref().map(|e| e.reason), Some(EndReason::Checkmate));
    let positions: Vec<Chess> = std::iter::once(Chess::default())
        .chain(moves.iter().scan(Chess::default(), |pos, &m| {
            pos.play_unchecked(m);
            Some(pos.clone())
        }))
        .collect();
    let first_from = |from: usize, by: Color| {
        (from..=moves.len())
            .find(|&ply| positions[ply - 1].turn() == by && is_simple(moves[ply - 1]))
            .unwrap()
    };
    // 1-based plies: a sighted (Black) move the blind player executes wrongly, his own move
    // after touching another piece, his own move with the board unplugged.
    let mistake_ply = first_from(6, !blind);
    let touch_ply = first_from(9, blind);
    let unplug_ply = first_from(touch_ply + 2, blind);
    let dispute_at = 30;
    let config_path = write_config(&dir, blind, "none");
    let config = tactus::config::Config::load(&config_path).unwrap();
    let socket = dir.join("console.sock");
    let opts = RunOptions {
        config,
        origin: config_path.display().to_string(),
        resume: None,
        new_game: true,
        sim: SimSettings {
            moves: moves.clone(),
            speed: 50.0,
            blind_mistake_ply: Some(mistake_ply),
            blind_touch_ply: Some(touch_ply),
            blind_unplug_ply: Some(unplug_ply),
            ..SimSettings::default()
        },
        echo: false,
        log: None,
        stop_when_played: false,
        voices_dir: tactus::store::voices::default_dir(),
    };
    let rt = tactus::daemon::runtime("warn").unwrap();
    let cancel = tokio_util::sync::CancellationToken::new();
    let stop = cancel.clone();
    // A failing assertion stops the daemon too (its tasks, ports and links go with it).
    let _stop_on_panic = cancel.clone().drop_guard();
    let daemon = thread::spawn(move || {
        let report = rt.block_on(tactus::daemon::run(opts, stop));
        rt.shutdown_timeout(Duration::from_millis(500));
        report
    });
    let up = wait_until(Duration::from_secs(30), || ask(&socket, "status").is_ok());
    assert!(up, "the daemon's console never answered");
    let (broadcasts, watcher) = watch_console(socket.clone());
    let status_until = |what: &str, done: &dyn Fn(&[String]) -> bool| -> Vec<String> {
        let t = Instant::now();
        loop {
            let status = ask(&socket, "status").unwrap();
            if done(&status) {
                return status;
            }
            assert!(
                t.elapsed() < Duration::from_secs(120),
                "waiting for {what}: {status:?}"
            );
            thread::sleep(Duration::from_millis(50));
        }
    };
    let played = status_until("the dispute point", &|s| ply_of(s) >= dispute_at);
    let folder = game_folder(&dir.join("played"));
    let transcript_path = folder.join(TRANSCRIPT_FILE);

    // F.8: Black's own scoresheet differs three half-moves before where the game stands.
    let at = ply_of(&played);
    let agreed = at - 3;
    let all_sans = sans(&Chess::default(), &moves);
    let mut sheet: Vec<String> = all_sans[..agreed].to_vec();
    let wrong = if all_sans[agreed] == "a3" { "h3" } else { "a3" };
    sheet.push(wrong.to_string());
    let reply = ask(&socket, &format!("scoresheet black {}", sheet.join(" "))).unwrap();
    let text = reply.join("\n");
    assert!(
        text.contains(&format!("the scores agree for {agreed} half-moves")),
        "{text}"
    );
    // Both boards show the game's position: F.8 retraces nothing by itself; the arbiter takes
    // the game back to where the scores agree.
    assert!(text.contains("nothing is retraced"), "{text}");
    let reply = ask(&socket, &format!("takeback {agreed}")).unwrap();
    let proposed = reply
        .iter()
        .find_map(|l| l.strip_prefix("proposed clocks: "))
        .unwrap_or_else(|| panic!("no clocks proposed: {reply:?}"))
        .to_string();
    // "White 1:29:58, Black 1:29:59; confirm ..."
    let words: Vec<&str> = proposed.split_whitespace().collect();
    let proposed = (secs(words[1]), secs(words[3].trim_end_matches(';')));
    let status = ask(&socket, "status").unwrap();
    assert_eq!(ply_of(&status), agreed, "{status:?}");
    // Both boards are guided back and put right before the clocks are confirmed.
    let restored = wait_until(Duration::from_secs(60), || {
        let text = fs::read_to_string(&transcript_path).unwrap_or_default();
        let Some(from) = text.find("nothing is retraced") else {
            return false;
        };
        let after = &text[from..];
        ["tactile", "sighted"].iter().all(|b| {
            after.contains(&format!("note {b} board differs on"))
                && after.contains(&format!("note {b} board matches the game again"))
        })
    });
    let transcript = fs::read_to_string(&transcript_path).unwrap();
    assert!(
        restored,
        "both boards must be guided back after the retrace:\n{transcript}"
    );
    let reply = ask(&socket, "confirm-clocks").unwrap();
    assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
    let status = ask(&socket, "status").unwrap();
    let clocks = clocks_of(&status);
    assert!(
        (clocks.0 - proposed.0).abs() <= 2 && (clocks.1 - proposed.1).abs() <= 2,
        "clocks {clocks:?} after confirming {proposed:?}: {status:?}"
    );

    // Play goes on to the mate.
    let over = status_until("the mate", &|s| result_of(s).is_some());
    assert_eq!(ply_of(&over), moves.len(), "{over:?}");
    let pgn_path = folder.join(PGN_FILE);
    let said = wait_until(Duration::from_secs(20), || {
        let text = fs::read_to_string(&transcript_path).unwrap_or_default();
        find_move_announcements(&transcript_bodies(&text), &moves, blind).is_ok()
    });
    cancel.cancel();
    let report = daemon.join().unwrap().unwrap();
    let _ = watcher.join();
    assert!(report.over, "the game must be over");
    let pgn = read_game_file(&pgn_path);
    assert_eq!(sans(&Chess::default(), &pgn.moves), all_sans);
    assert_eq!(pgn.tag("Result"), Some("0-1"));
    let transcript = fs::read_to_string(&transcript_path).unwrap();
    assert!(said, "a move announcement is missing:\n{transcript}");
    let bodies = transcript_bodies(&transcript);
    let pack = pack();
    let index_of = |wanted: &str, from: usize| {
        bodies[from..]
            .iter()
            .position(|b| b == wanted)
            .map(|i| from + i)
            .unwrap_or_else(|| panic!("'{wanted}' missing after line {from}:\n{transcript}"))
    };
    let move_at = |ply: usize| move_line(&pack, &positions[ply - 1], moves[ply - 1], blind);

    // The mis-executed move: announced, the blind player told precisely what is wrong, then play
    // goes on with his next move.
    let m = moves[mistake_ply - 1];
    let before = &positions[mistake_ply - 1];
    let guidance = pack
        .render(
            &Announcement::Guidance(Guidance::Misplaced {
                piece: before.board().piece_at(m.from().unwrap()).unwrap(),
                found: wrong_square(before, m),
                belongs: m.to(),
            }),
            Style::San,
        )
        .text;
    let said_at = index_of(&move_at(mistake_ply), 0);
    let guided_at = index_of(&format!("blind {guidance}"), said_at);
    index_of(&move_at(mistake_ply + 1), guided_at);

    // The touch: reported as a possible claim to the console and in the transcript; the game
    // went on with the move he made.
    let claim = bodies
        .iter()
        .position(|b| b.starts_with("note possible claim (Art. 4.3 a): white touched"))
        .unwrap_or_else(|| panic!("no possible claim noted:\n{transcript}"));
    let san = &all_sans[touch_ply - 1];
    assert!(
        bodies[claim].ends_with(&format!("and played {san}")),
        "{}",
        bodies[claim]
    );
    index_of(&move_at(touch_ply), claim);
    let broadcast = broadcasts.lock().unwrap().clone();
    assert!(
        broadcast
            .iter()
            .any(|l| l.starts_with("# possible claim (Art. 4.3 a)")),
        "the console was not told: {broadcast:?}"
    );

    // The unplugged board: both players told it went and came back; the move made while it
    // was away counts and is announced once it is back.
    let gone = index_of(
        &both_line(&Announcement::BoardDisconnected {
            board: WhichBoard::Tactile,
        }),
        index_of(&move_at(unplug_ply - 1), 0),
    );
    let back = index_of(
        &both_line(&Announcement::BoardReconnected {
            board: WhichBoard::Tactile,
        }),
        gone,
    );
    index_of(&move_at(unplug_ply), back);

    // The retrace: the moves after the agreed one left the record and were played again.
    let label = |ply: usize| {
        let number = ply / 2 + 1;
        if ply.is_multiple_of(2) {
            format!("{number}.")
        } else {
            format!("{number}...")
        }
    };
    let retraced = bodies
        .iter()
        .position(|b| {
            b.contains(&format!(
                "black's scoresheet differs from the record at {}",
                label(agreed)
            ))
        })
        .unwrap_or_else(|| panic!("the sheet's difference is not noted:\n{transcript}"));
    assert!(retraced > index_of(&move_at(at), 0));
    index_of(&move_at(agreed + 1), retraced);
    let journal = journal::read(&folder.join(JOURNAL_FILE)).unwrap();
    let applied = crate::support::journal::applied(&journal);
    let inputs = |f: &dyn Fn(&InputRecord) -> bool| applied.iter().filter(|a| f(&a.input)).count();
    assert_eq!(inputs(&|i| matches!(i, InputRecord::Scoresheet { .. })), 1);
    assert_eq!(inputs(&|i| matches!(i, InputRecord::ConfirmClocks)), 1);
    assert_eq!(
        inputs(&|i| matches!(i, InputRecord::BoardDisconnected { .. })),
        1
    );
    assert_eq!(
        inputs(&|i| matches!(i, InputRecord::BoardConnected { .. })),
        1
    );
    let touches = fs::read_to_string(folder.join(TOUCHES_FILE)).unwrap();
    assert!(touches.contains("tactile"), "{touches}");
    fs::remove_dir_all(&dir).unwrap();
}

// The measurements of BENCHMARKS.md ("The daemon"). Run them on an idle machine with
// `cargo test --release --test daemon_games -- --ignored --nocapture bench_`.

/// Microseconds since midnight (UTC) of a tracing line's time stamp
/// (`2026-11-30T06:30:23.019122Z ...`).
fn log_time_us(line: &str) -> Option<u64> {
    let stamp = line.split_whitespace().next()?;
    let time = stamp.split_once('T')?.1.trim_end_matches('Z');
    let (hms, frac) = time.split_once('.')?;
    let mut parts = hms.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    let frac: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
    Some(((h * 60 + m) * 60 + s) * 1_000_000 + frac.parse::<u64>().ok()?)
}

/// Milliseconds since midnight of a transcript line (`06:30:23.019 sighted ...`).
fn transcript_time_ms(line: &str) -> Option<u64> {
    let (hms, ms) = line.split_whitespace().next()?.split_once('.')?;
    let mut parts = hms.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (parts.next()??, parts.next()??, parts.next()??);
    Some(((h * 60 + m) * 60 + s) * 1000 + ms.parse::<u64>().ok()?)
}

/// Median and 99th percentile (nearest rank) and maximum.
fn spread(values: &[i64]) -> (i64, i64, i64) {
    let mut v = values.to_vec();
    v.sort_unstable();
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    (rank(0.5), rank(0.99), *v.last().unwrap())
}

/// Play a game to its end on the shipped profiles at `speed` (`tactus run`, logs in
/// `dir/run.err`); returns the game folder. With `viewers` pages of the table open all game
/// long: the daemon serves the page (`[web] listen`), and each viewer holds a connection to its
/// live updates (`/events`) and reads everything sent (issue 27: the hub never waits for one).
fn run_to_end_viewed(
    dir: &Path,
    case: &Case,
    speed: &str,
    env: &[(&str, &OsStr)],
    viewers: usize,
) -> PathBuf {
    let data = support::corpus::chess_data().expect("the corpus");
    let source = corpus_game(&data, case.file, case.n);
    let (moves, end) = lawful_moves(&source.moves);
    assert!(end.is_some(), "pick a game the Laws end");
    let sim_pgn = dir.join("source.pgn");
    write_sim_pgn(&sim_pgn, &source.moves);
    let speaker = if env.iter().any(|(k, _)| *k == "ALSA_CONFIG_PATH") {
        "clips"
    } else {
        "none"
    };
    let config = write_shipped_config(dir, case.blind, speaker);
    let mut readers = Vec::new();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    if viewers > 0 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut text = fs::read_to_string(&config).unwrap();
        text.push_str(&format!("\n[web]\nlisten = \"127.0.0.1:{port}\"\n"));
        fs::write(&config, text).unwrap();
        for i in 0..viewers {
            let stop = stop.clone();
            readers.push(thread::spawn(move || {
                use std::io::{Read, Write};
                let mut total = 0usize;
                // Each viewer from an address of his own, as in a hall (the page limits the
                // connections of one address).
                let from =
                    std::net::Ipv4Addr::new(127, 0, 1 + (i / 250) as u8, 1 + (i % 250) as u8);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let Some(mut s) = support::net::connect_from(from, port) else {
                        thread::sleep(Duration::from_millis(100));
                        continue;
                    };
                    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
                    let _ = s.write_all(b"GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n");
                    let mut buf = [0u8; 8192];
                    loop {
                        match s.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => total += n,
                            Err(e)
                                if e.kind() == std::io::ErrorKind::WouldBlock
                                    || e.kind() == std::io::ErrorKind::TimedOut =>
                            {
                                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                                    break;
                                }
                            }
                            Err(_) => break,
                        }
                    }
                }
                total
            }));
        }
    }
    let mut guard = spawn(
        &[
            "run",
            "--config",
            config.to_str().unwrap(),
            "--new",
            "--sim-pgn",
            sim_pgn.to_str().unwrap(),
            "--sim-speed",
            speed,
        ],
        dir,
        "run",
        env,
    );
    let socket = dir.join("console.sock");
    let t = Instant::now();
    loop {
        let status = ask_when_up(&socket, "status", &mut guard, dir, "run", STALL);
        if result_of(&status).is_some() {
            assert_eq!(ply_of(&status), moves.len());
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(1200), "{status:?}");
        thread::sleep(Duration::from_millis(500));
    }
    thread::sleep(Duration::from_secs(1));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let read: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
    if viewers > 0 {
        eprintln!("{viewers} viewers read {read} bytes of live updates in all");
        assert!(
            read > viewers * 1000,
            "the viewers were served: {read} bytes"
        );
    }
    guard.signal("-TERM");
    assert!(guard.wait_limit(Duration::from_secs(20)).success());
    game_folder(&dir.join("played"))
}

#[test]
#[ignore = "a measurement for BENCHMARKS.md (release build, idle machine)"]
fn bench_move_to_announcement() {
    let dir = temp_dir("bench-latency");
    let case = Case {
        label: "twic13",
        file: TWIC,
        n: 13,
        blind: Color::White,
    };
    let alsa = alsa_null(&dir);
    let log_filter =
        OsStr::new("warn,tactus=info,tactus::sim::players=debug,tactus::daemon::hub=debug");
    let mut env: Vec<(&str, &OsStr)> = vec![("RUST_LOG", log_filter)];
    if let Some(a) = &alsa {
        env.push(("ALSA_CONFIG_PATH", a.as_os_str()));
    }
    let speed = std::env::var("TACTUS_BENCH_SPEED").unwrap_or_else(|_| "10".into());
    // TACTUS_BENCH_VIEWERS=100: that many pages of the table open all game long (issue 27).
    let viewers: usize = std::env::var("TACTUS_BENCH_VIEWERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let folder = run_to_end_viewed(&dir, &case, &speed, &env, viewers);

    let log = fs::read_to_string(dir.join("run.err")).unwrap();
    // The tactile simulator's writes (µs since midnight, what) and the hub's hand-overs of the
    // blind player's move announcements to speech.
    let mut writes: Vec<(u64, String)> = Vec::new();
    let mut handed: Vec<u64> = Vec::new();
    for line in log.lines() {
        if line.contains("sim wrote") && line.contains("board=\"tactile\"") {
            let us: u64 = line
                .rsplit_once("unix_us=")
                .and_then(|(_, v)| v.trim().parse().ok())
                .unwrap();
            let what = line
                .split_once("event=")
                .map(|(_, e)| e.split(" unix_us").next().unwrap().to_string())
                .unwrap();
            writes.push((us % 86_400_000_000, what));
        } else if line.contains("announcement handed to speech")
            && line.contains("audience=\"sighted\"")
        {
            handed.push(log_time_us(line).unwrap());
        }
    }
    let data = support::corpus::chess_data().unwrap();
    let moves = lawful_moves(&corpus_game(&data, case.file, case.n).moves).0;
    let transcript = fs::read_to_string(folder.join(TRANSCRIPT_FILE)).unwrap();
    let pack = pack();
    let mut pos = Chess::default();
    let mut wanted = Vec::new();
    for &m in &moves {
        if pos.turn() == case.blind {
            wanted.push((move_line(&pack, &pos, m, case.blind), m.is_promotion()));
        }
        pos.play_unchecked(m);
    }
    let mut said: Vec<u64> = Vec::new();
    let mut lines = transcript.lines();
    for (text, _) in &wanted {
        let line = lines
            .find(|l| l.split_once(' ').is_some_and(|(_, rest)| rest == text))
            .unwrap_or_else(|| panic!("'{text}' not in the transcript"));
        said.push(transcript_time_ms(line).unwrap());
    }
    assert_eq!(handed.len(), wanted.len(), "one hand-over per blind move");
    let mut to_hub = Vec::new();
    let mut to_transcript_low = Vec::new();
    let mut kinds = std::collections::BTreeMap::new();
    for (k, (_, promotion)) in wanted.iter().enumerate() {
        if *promotion {
            continue; // completed by the spoken piece, not by a placement
        }
        let (written, what) = writes
            .iter()
            .rev()
            .find(|(t, _)| *t <= handed[k])
            .unwrap_or_else(|| panic!("no tactile write before move {k}"));
        *kinds
            .entry(what.split_whitespace().next().unwrap().to_string())
            .or_insert(0) += 1;
        to_hub.push((handed[k] - written) as i64);
        // The transcript's times are whole milliseconds, cut (not rounded): the line was
        // written in [t, t + 1 ms).
        to_transcript_low.push(said[k] as i64 * 1000 - *written as i64);
    }
    // The completing message on the wire: `P e4` and its line end at the shipped profile's
    // 115200 baud, 8N1 (10 bits a byte).
    let placement = tactus_core::board::line::encode_message(
        &tactus_core::board::line::LineMessage::Place(Square::E4),
    );
    let wire = tactus_core::sim::board::wire_time(placement.len() as u64, 10, 115_200);
    eprintln!(
        "wire time of the completing placement ({} bytes at 115200 baud, 8N1): {:.3} ms",
        placement.len(),
        wire.as_secs_f64() * 1000.0
    );
    // TACTUS_BENCH_SAMPLES=FILE: every sample (µs) appended, a line each, to pool several runs.
    if let Some(file) = std::env::var_os("TACTUS_BENCH_SAMPLES") {
        use std::io::Write;
        let mut out = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .unwrap();
        for us in &to_hub {
            writeln!(out, "{us}").unwrap();
        }
    }
    let (h50, h99, hmax) = spread(&to_hub);
    let (t50, t99, tmax) = spread(&to_transcript_low);
    eprintln!(
        "{} blind moves of {} ({} plies) at speed {speed}, completing events {kinds:?}",
        to_hub.len(),
        case.label,
        moves.len()
    );
    eprintln!(
        "last byte written -> announcement handed to speech: median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        h50 as f64 / 1000.0,
        h99 as f64 / 1000.0,
        hmax as f64 / 1000.0
    );
    eprintln!(
        "last byte written -> line in transcript.txt: median {:.3}..{:.3} ms, p99 {:.3}..{:.3} ms, max {:.3}..{:.3} ms",
        t50 as f64 / 1000.0,
        t50 as f64 / 1000.0 + 1.0,
        t99 as f64 / 1000.0,
        t99 as f64 / 1000.0 + 1.0,
        tmax as f64 / 1000.0,
        tmax as f64 / 1000.0 + 1.0
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// (VmRSS kB, VmHWM kB, utime + stime in clock ticks) of a process.
fn sample(pid: u32) -> (u64, u64, u64) {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (which may hold spaces) in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    (kb("VmRSS:"), kb("VmHWM:"), ticks)
}

#[test]
#[ignore = "a measurement for BENCHMARKS.md (release build, idle machine)"]
fn bench_resources() {
    let data = support::corpus::chess_data().expect("the corpus");
    let ticks_per_s: f64 = String::from_utf8(
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap();
    let warmup = Duration::from_secs(5);
    // (what, simulated players' speed, window)
    let states: [(&str, &str, u64); 3] = [
        (
            "idle: game started, the blind player to move and thinking, his clock running",
            "0.001",
            30,
        ),
        ("playing at a human pace (--sim-speed 1)", "1", 60),
        ("playing ten times faster (--sim-speed 10)", "10", 60),
    ];
    for (what, speed, window) in states {
        let dir = temp_dir("bench-resources");
        let source = corpus_game(&data, TWIC, 13);
        let sim_pgn = dir.join("source.pgn");
        write_sim_pgn(&sim_pgn, &source.moves);
        let alsa = alsa_null(&dir);
        let config = write_shipped_config(
            &dir,
            Color::White,
            if alsa.is_some() { "clips" } else { "none" },
        );
        let env: Vec<(&str, &OsStr)> = alsa
            .as_deref()
            .map(|p| vec![("ALSA_CONFIG_PATH", p.as_os_str())])
            .unwrap_or_default();
        let mut guard = spawn(
            &[
                "run",
                "--config",
                config.to_str().unwrap(),
                "--new",
                "--sim-pgn",
                sim_pgn.to_str().unwrap(),
                "--sim-speed",
                speed,
            ],
            &dir,
            "run",
            &env,
        );
        let socket = dir.join("console.sock");
        ask_when_up(&socket, "status", &mut guard, &dir, "run", STALL);
        thread::sleep(warmup);
        let pid = guard.pid();
        let (_, _, t0) = sample(pid);
        let ply0 = ply_of(&ask(&socket, "status").unwrap());
        thread::sleep(Duration::from_secs(window));
        let (rss, hwm, t1) = sample(pid);
        let ply1 = ply_of(&ask(&socket, "status").unwrap());
        let cpu = (t1 - t0) as f64 / ticks_per_s / window as f64 * 100.0;
        eprintln!(
            "{what}: {window} s window, plies {ply0}..{ply1}: RSS {:.1} MB (peak {:.1} MB), CPU {cpu:.2} % of one core",
            rss as f64 / 1024.0,
            hwm as f64 / 1024.0
        );
        guard.signal("-TERM");
        assert!(guard.wait_limit(Duration::from_secs(20)).success());
        fs::remove_dir_all(&dir).unwrap();
    }
}
