//! End to end through real pseudo-terminals: `socat` makes a linked pty pair, `tactus sim` plays a
//! game on one end as a DGT board or a pegged board, and `tactus board-test --json` on the other
//! end must print exactly the game's moves in SAN: captures, both castlings, en passant and
//! underpromotion (answered on standard input on the pegged board), with garbage on the line,
//! and with the pty pair torn down and rebuilt mid-game.
//!
//! Needs `socat` (scripts/setup installs it). Without it the tests print SKIPPED, except under
//! CI=true, where they fail.

use crate::support::{
    self,
    process::TACTUS,
    pty::{PtyPair, socat_or_skip},
};

use std::{
    fs,
    io::{BufRead, BufReader, Read, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, ExitStatus, Stdio},
    sync::{Arc, Mutex, mpsc},
    thread,
    time::{Duration, Instant},
};

use serde_json::Value;
use shakmaty::{Board, Chess, Color, EnPassantMode, Move, Position, Role, fen::Fen};
use tactus_core::{
    board::{Orientation, dgt, line},
    rules::{notation::san, pgn::read_pgn},
};

/// A whole game must finish well within this; a hang fails the test with its output.
const RUN_LIMIT: Duration = Duration::from_secs(90);

/// A DGT profile with the same protocol and a shorter settle time and keep-alive, so that a game
/// of 80 half-moves takes seconds. Correctness does not depend on it: the simulated player waits
/// for the host's confirming board dump after every move. The baud rate is raised because the
/// simulator paces its writes to it and a board dump takes 70 ms at 9600.
fn dgt_test_profile() -> String {
    let text = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/boards/dgt.toml")).unwrap();
    let text = text
        .replace("name = \"dgt\"", "name = \"dgt-test\"")
        .replace("baud = 9600", "baud = 38400")
        .replace("scan_ms = 255", "scan_ms = 50")
        .replace("keepalive_ms = 2000", "keepalive_ms = 1000");
    assert!(
        text.contains("scan_ms = 50")
            && text.contains("keepalive_ms = 1000")
            && text.contains("baud = 38400")
    );
    text
}

/// The pegged board's profile with a one-second keep-alive (faster to notice a silent board) and
/// a 20 ms bounce window, so that the simulated hands may move every 50 ms: a capture's "lift the
/// captured piece, place the capturing one" on the same square within the bounce window would
/// rightly be taken for a rocking peg.
fn pegged_test_profile() -> String {
    let text = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/boards/pegged-line.toml"
    ))
    .unwrap();
    let text = text
        .replace("name = \"pegged-line\"", "name = \"pegged-test\"")
        .replace("keepalive_ms = 3000", "keepalive_ms = 1000")
        .replace("bounce_ms = 40", "bounce_ms = 20");
    assert!(text.contains("keepalive_ms = 1000") && text.contains("bounce_ms = 20"));
    text
}

/// Milliseconds between the events of one move on the pegged board: well above its bounce window.
const PEGGED_STEP: &str = "50";

/// A linked pty pair made by socat, in a directory of its own: `a` for board-test, `b` for the
/// simulator. Killing and restarting socat is a pulled and replugged cable.
struct Pty {
    dir: PathBuf,
    a: PathBuf,
    b: PathBuf,
    pair: Option<PtyPair>,
}

impl Pty {
    fn new(tag: &str) -> Pty {
        let dir = crate::support::table::temp_dir(&format!("e2e-{tag}"));
        let mut pty = Pty {
            a: dir.join("A"),
            b: dir.join("B"),
            dir,
            pair: None,
        };
        pty.start();
        pty
    }

    fn start(&mut self) {
        self.pair = Some(PtyPair::new(&self.a, &self.b));
    }

    /// The cable is pulled: both ends see a hang-up.
    fn kill(&mut self) {
        self.pair = None;
    }

    fn write_profile(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.join(name);
        fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        self.kill();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A child process that is killed (by its own handle) when the test ends, passing or not.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn game(n: usize) -> Option<(Chess, Vec<Move>)> {
    let data = support::corpus::chess_data()?;
    let bytes = fs::read(data.join("pgn/twic1599-selected.pgn")).unwrap();
    let g = read_pgn(&bytes).unwrap().into_iter().nth(n - 1).unwrap();
    Some((g.start, g.moves))
}

fn sans(start: &Chess, moves: &[Move]) -> Vec<String> {
    let mut pos = start.clone();
    moves
        .iter()
        .map(|&m| {
            let s = san(&pos, m);
            pos.play_unchecked(m);
            s
        })
        .collect()
}

fn pgn_path() -> PathBuf {
    support::corpus::chess_data()
        .unwrap()
        .join("pgn/twic1599-selected.pgn")
}

/// Start `tactus sim` on the pty's `b` end; its output goes to a log shown on failure.
fn start_sim(pty: &Pty, profile: &Path, args: &[&str]) -> (Guard, PathBuf) {
    let log = pty.dir.join("sim.log");
    let out = fs::File::create(&log).unwrap();
    let child = Command::new(TACTUS)
        .arg("sim")
        .arg("--profile-file")
        .arg(profile)
        .arg("--port")
        .arg(&pty.b)
        .arg("--pgn")
        .arg(pgn_path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("tactus sim starts");
    (Guard(child), log)
}

/// What a board-test run printed.
struct Run {
    events: Vec<Value>,
    status: ExitStatus,
}

impl Run {
    fn of(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["event"] == kind).collect()
    }
    fn sans(&self) -> Vec<String> {
        self.of("move")
            .iter()
            .map(|e| e["san"].as_str().unwrap().to_owned())
            .collect()
    }
}

/// Run `tactus board-test --json` on `port` until it exits. Promotions are answered on standard
/// input with the piece the game promotes to; `on_event(event, moves so far)` sees every line
/// (for pulling the cable mid-game, or writing to the board).
fn board_test(
    port: &Path,
    profile: &Path,
    args: &[&str],
    game: &[Move],
    sim_log: &Path,
    mut on_event: impl FnMut(&Value, usize),
) -> Run {
    let mut child = Guard(
        Command::new(TACTUS)
            .arg("board-test")
            .arg("--json")
            .arg("--profile-file")
            .arg(profile)
            .arg("--port")
            .arg(port)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tactus board-test starts"),
    );
    let mut stdin: ChildStdin = child.0.stdin.take().unwrap();
    let stdout = child.0.stdout.take().unwrap();
    let mut stderr = child.0.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let err_text = Arc::new(Mutex::new(String::new()));
    let err_sink = err_text.clone();
    thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        *err_sink.lock().unwrap() = s;
    });
    let started = Instant::now();
    let mut events: Vec<Value> = Vec::new();
    let mut moves = 0;
    let fail = |events: &[Value], why: &str| -> ! {
        let tail: Vec<String> = events
            .iter()
            .rev()
            .take(40)
            .rev()
            .map(Value::to_string)
            .collect();
        let sim = fs::read_to_string(sim_log).unwrap_or_default();
        panic!(
            "{why}\n--- board-test output (last 40) ---\n{}\n--- sim log ---\n{sim}",
            tail.join("\n")
        );
    };
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| fail(&events, &format!("not JSON ({e}): {line}")));
                let kind = value["event"].as_str().unwrap_or_default().to_owned();
                events.push(value.clone());
                if kind == "move" {
                    moves += 1;
                }
                on_event(&value, moves);
                if kind == "promotion" {
                    let piece = match game.get(moves).and_then(|m| m.promotion()) {
                        Some(Role::Queen) => "q",
                        Some(Role::Rook) => "r",
                        Some(Role::Bishop) => "b",
                        Some(Role::Knight) => "n",
                        _ => fail(
                            &events,
                            "a promotion prompt where the game has no promotion",
                        ),
                    };
                    writeln!(stdin, "{piece}").unwrap();
                    stdin.flush().unwrap();
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if started.elapsed() > RUN_LIMIT {
                    fail(&events, "board-test did not finish in time");
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let status = child.0.wait().unwrap();
    if !status.success() {
        fail(
            &events,
            &format!("board-test failed ({status}): {}", err_text.lock().unwrap()),
        );
    }
    Run { events, status }
}

/// Checks every run must pass: exactly the game's moves, no difference ever reported.
fn assert_game(run: &Run, start: &Chess, moves: &[Move], label: &str) {
    assert!(run.status.success());
    assert_eq!(run.sans(), sans(start, moves), "{label}: SAN sequence");
    assert!(
        run.of("differs").is_empty(),
        "{label}: differs {:?}",
        run.of("differs")
    );
    let first = run.of("board");
    assert_eq!(
        first.first().map(|b| b["matches"].clone()),
        Some(Value::Bool(true)),
        "{label}: the board shown at the start"
    );
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Game 5 (Fawaz-Wadih): O-O, O-O-O, 12...cxb3 e.p., captures, mate; game 1 (Hong-Ivanchuk)
/// from ply 130: 70...h1=B, 73...d1=R, captures.
const TAIL_FROM: usize = 130;

fn features_are_covered(moves5: &[Move], tail: &[Move]) {
    let all: Vec<&Move> = moves5.iter().chain(tail).collect();
    assert!(all.iter().any(|m| m.is_capture()));
    assert!(all.iter().any(|m| m.is_en_passant()));
    assert!(
        all.iter()
            .any(|m| matches!(m.castling_side(), Some(shakmaty::CastlingSide::KingSide)))
    );
    assert!(
        all.iter()
            .any(|m| matches!(m.castling_side(), Some(shakmaty::CastlingSide::QueenSide)))
    );
    assert!(all.iter().any(|m| matches!(
        m.promotion(),
        Some(Role::Bishop | Role::Rook | Role::Knight)
    )));
}

fn full_games(kind: &str) {
    if !socat_or_skip() {
        return;
    }
    let (Some((start5, moves5)), Some((start1, moves1))) = (game(5), game(1)) else {
        return;
    };
    let mut tail_start = start1.clone();
    for &m in &moves1[..TAIL_FROM] {
        tail_start.play_unchecked(m);
    }
    let tail = moves1[TAIL_FROM..].to_vec();
    features_are_covered(&moves5, &tail);
    let pty = Pty::new(&format!("{kind}-games"));
    let (profile, sim_game5, sim_tail): (PathBuf, Vec<&str>, Vec<&str>) = match kind {
        "dgt" => (
            pty.write_profile("dgt-test.toml", &dgt_test_profile()),
            // Reversed board (orientation detected), noise, captured piece first, scan reordering.
            vec![
                "--reversed",
                "--garbage",
                "--style",
                "captured-first,reorder",
                "--step-ms",
                "25",
                "--move-pause-ms",
                "30",
            ],
            // One-handed captures (the square never empty).
            vec![
                "--style",
                "replace",
                "--step-ms",
                "25",
                "--move-pause-ms",
                "30",
            ],
        ),
        _ => (
            pty.write_profile("pegged-test.toml", &pegged_test_profile()),
            vec![
                "--garbage",
                "--style",
                "mover-first,ep-captured-first",
                "--step-ms",
                PEGGED_STEP,
                "--move-pause-ms",
                "30",
            ],
            vec![
                "--garbage",
                "--step-ms",
                PEGGED_STEP,
                "--move-pause-ms",
                "30",
                "--announce-pause-ms",
                "600",
            ],
        ),
    };

    let mut args = vec!["--game", "5"];
    args.extend(&sim_game5);
    let (_sim, log) = start_sim(&pty, &profile, &args);
    let run = board_test(&pty.a, &profile, &["--until-end"], &moves5, &log, |_, _| {});
    assert_game(&run, &start5, &moves5, &format!("{kind} game 5"));
    let end = run.of("end");
    assert_eq!(end.len(), 1);
    assert_eq!(
        (end[0]["reason"].as_str(), end[0]["result"].as_str()),
        (Some("checkmate"), Some("0-1"))
    );
    let noise = run.of("garbage").len() + run.of("rejected").len() + run.of("unknown").len();
    assert!(
        noise >= 5,
        "{kind}: the garbage was seen and skipped ({noise} reports)"
    );
    if kind == "dgt" {
        let info = run.of("connected")[0]["info"].as_str().unwrap().to_owned();
        assert!(info.contains("reversed (detected"), "{info}");
        // Touches carry the piece on an identity board; castling reports the king then the rook.
        let castle = run
            .of("move")
            .into_iter()
            .find(|m| m["san"] == "O-O")
            .unwrap()
            .clone();
        assert_eq!(castle["touches"], serde_json::json!(["e1", "h1"]));
    }
    drop(_sim);

    let tail_fen = fen(&tail_start);
    let from = TAIL_FROM.to_string();
    let plies = tail.len().to_string();
    let mut args = vec!["--game", "1", "--from-ply", &from];
    args.extend(&sim_tail);
    let (_sim, log) = start_sim(&pty, &profile, &args);
    let run = board_test(
        &pty.a,
        &profile,
        &["--fen", &tail_fen, "--moves", &plies],
        &tail,
        &log,
        |_, _| {},
    );
    assert_game(
        &run,
        &tail_start,
        &tail,
        &format!("{kind} game 1 from ply {TAIL_FROM}"),
    );
    let prompts = run.of("promotion");
    match kind {
        "dgt" => assert!(prompts.is_empty(), "a DGT board shows the promoted piece"),
        _ => {
            let squares: Vec<&str> = prompts
                .iter()
                .map(|p| p["square"].as_str().unwrap())
                .collect();
            assert_eq!(
                squares,
                ["h1", "d1"],
                "the pegged board asks for the piece of each promotion"
            );
        }
    }
    assert!(
        run.sans().iter().any(|s| s.starts_with("h1=B"))
            && run.sans().iter().any(|s| s.starts_with("d1=R"))
    );
}

#[test]
fn dgt_board_plays_whole_games_through_a_pty() {
    full_games("dgt");
}

#[test]
fn pegged_board_plays_whole_games_through_a_pty() {
    full_games("pegged");
}

/// The pty pair is torn down after move 10 and rebuilt; both sides reconnect by path and no move
/// is lost.
fn pulled_cable(kind: &str) {
    if !socat_or_skip() {
        return;
    }
    let Some((start, moves)) = game(5) else {
        return;
    };
    let moves = moves[..30].to_vec();
    let mut pty = Pty::new(&format!("{kind}-cable"));
    let (profile, sim_args): (PathBuf, Vec<&str>) = match kind {
        "dgt" => (
            pty.write_profile("dgt-test.toml", &dgt_test_profile()),
            vec!["--step-ms", "25", "--move-pause-ms", "150"],
        ),
        _ => (
            pty.write_profile("pegged-test.toml", &pegged_test_profile()),
            vec!["--step-ms", PEGGED_STEP, "--move-pause-ms", "200"],
        ),
    };
    let mut args = vec!["--game", "5", "--plies", "30"];
    args.extend(&sim_args);
    let (_sim, log) = start_sim(&pty, &profile, &args);
    let mut unplugged = false;
    let mut replugged = false;
    let a = pty.a.clone();
    let run = board_test(
        &a,
        &profile,
        &["--moves", "30"],
        &moves,
        &log,
        |event, n| {
            if event["event"] == "move" && n == 10 && !unplugged {
                pty.kill();
                unplugged = true;
            }
            // Plugged in again once board-test has reported the hang-up, not after a fixed
            // time that a loaded machine may not give it: the outage is always seen.
            if event["event"] == "disconnected" && unplugged && !replugged {
                pty.start();
                replugged = true;
            }
        },
    );
    assert!(replugged);
    assert_game(
        &run,
        &start,
        &moves,
        &format!("{kind} with the pty closed and reopened"),
    );
    assert!(
        !run.of("disconnected").is_empty(),
        "{kind}: the hang-up was reported"
    );
    assert!(run.of("connected").len() >= 2, "{kind}: reconnected");
    // Order: moves 1-10, disconnected, connected, moves 11-30.
    let kinds: Vec<&str> = run
        .events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .filter(|k| ["move", "disconnected", "connected"].contains(k))
        .collect();
    let cut = kinds.iter().position(|k| *k == "disconnected").unwrap();
    assert_eq!(
        kinds[..cut].iter().filter(|k| **k == "move").count(),
        10,
        "{kinds:?}"
    );
    assert!(kinds[cut..].contains(&"connected"));
}

#[test]
fn dgt_board_survives_the_pty_closed_and_reopened() {
    pulled_cable("dgt");
}

#[test]
fn pegged_board_survives_the_pty_closed_and_reopened() {
    pulled_cable("pegged");
}

/// A board that answers the handshake and then sends only noise, then one real move: the noise
/// gives no touch and no move, the move is recognised.
fn noise_then_a_move(kind: &str) {
    if !socat_or_skip() {
        return;
    }
    let pty = Pty::new(&format!("{kind}-noise"));
    let profile = match kind {
        "dgt" => pty.write_profile("dgt-test.toml", &dgt_test_profile()),
        _ => pty.write_profile("pegged-test.toml", &pegged_test_profile()),
    };
    let port = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&pty.b)
        .unwrap();
    let writer = Arc::new(Mutex::new(port.try_clone().unwrap()));
    let board = Arc::new(Mutex::new(Board::new()));
    // The board's side: answer every request from the current position.
    {
        let writer = writer.clone();
        let board = board.clone();
        let mut reader = port;
        let dgt = kind == "dgt";
        thread::spawn(move || {
            let mut buf = [0u8; 64];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                for &b in &buf[..n] {
                    let reply = match (dgt, b) {
                        (true, 0x4d) => {
                            dgt::encode_message(&dgt::Message::Version { major: 1, minor: 0 })
                        }
                        (true, 0x45) => {
                            dgt::encode_message(&dgt::Message::SerialNr("00007".into()))
                        }
                        (true, 0x42) => dgt::encode_message(&dgt::Message::BoardDump(
                            dgt::board_to_dump(&board.lock().unwrap(), Orientation::Normal),
                        )),
                        (false, b'V') => {
                            line::encode_message(&line::LineMessage::Hello("noise-board".into()))
                        }
                        (false, b'?') => line::encode_message(&line::LineMessage::Snapshot(
                            board.lock().unwrap().occupied(),
                        )),
                        _ => continue,
                    };
                    if writer.lock().unwrap().write_all(&reply).is_err() {
                        return;
                    }
                }
            }
        });
    }
    // Noise that cannot form a message: no FIELD_UPDATE or BOARD_DUMP id byte for DGT; for the
    // line protocol no letter that starts a lift, placement, snapshot or button line.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut noise = Vec::new();
    for i in 0..6000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let b = (state >> 24) as u8;
        noise.push(match kind {
            "dgt" if b == 0x8e || b == 0x86 => 0x8f,
            "dgt" => b,
            _ if i % 40 == 39 => b'\n',
            _ if b"LPSB\n".contains(&b) => b'#',
            _ => b,
        });
    }
    if kind != "dgt" {
        noise.push(b'\n');
    }
    let e2e4: [Vec<u8>; 2] = if kind == "dgt" {
        [
            dgt::encode_message(&dgt::Message::FieldUpdate {
                field: dgt::square_to_field(shakmaty::Square::E2),
                piece: None,
            }),
            dgt::encode_message(&dgt::Message::FieldUpdate {
                field: dgt::square_to_field(shakmaty::Square::E4),
                piece: Some(Color::White.pawn()),
            }),
        ]
    } else {
        [b"L e2\r\n".to_vec(), b"P e4\r\n".to_vec()]
    };
    let log = pty.dir.join("no-sim.log");
    let mut sent = false;
    let run = board_test(
        &pty.a,
        &profile,
        &["--moves", "1"],
        &[],
        &log,
        |event, _| {
            if event["event"] == "board" && !sent {
                sent = true;
                let mut w = writer.lock().unwrap();
                for chunk in noise.chunks(64) {
                    w.write_all(chunk).unwrap();
                    thread::sleep(Duration::from_millis(2));
                }
                for msg in &e2e4 {
                    w.write_all(msg).unwrap();
                }
                let mut b = board.lock().unwrap();
                b.discard_piece_at(shakmaty::Square::E2);
                b.set_piece_at(shakmaty::Square::E4, Color::White.pawn());
            }
        },
    );
    assert!(sent);
    assert_eq!(run.sans(), ["e4"], "{kind}");
    let touches: Vec<&Value> = run.of("touched");
    assert_eq!(
        touches.len(),
        1,
        "{kind}: only the real lift is a touch: {touches:?}"
    );
    assert_eq!(touches[0]["square"], "e2");
    let noise_reports =
        run.of("garbage").len() + run.of("rejected").len() + run.of("unknown").len();
    assert!(noise_reports > 0, "{kind}: the noise was seen");
}

#[test]
fn noise_on_the_line_never_makes_a_move() {
    noise_then_a_move("dgt");
    noise_then_a_move("pegged");
}

#[test]
fn bad_profile_and_bad_port_are_clear_errors() {
    let out = Command::new(TACTUS)
        .args(["board-test", "--profile", "dgt3", "--port", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dgt3") && err.contains("dgt, pegged-line"),
        "{err}"
    );

    let out = Command::new(TACTUS)
        .args([
            "board-test",
            "--profile",
            "pegged-line",
            "--port",
            "/dev/serial/by-id/no-such-board",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/dev/serial/by-id/no-such-board") && err.contains("plugged in"),
        "{err}"
    );
}
