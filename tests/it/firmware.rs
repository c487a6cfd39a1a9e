//! The open pegged board's firmware (`firmware/pegged-board`) against a real `tactus run`
//! (issue 38). The firmware image for the ATmega328P is built with `make`, its core's host
//! tests (`make test`) and the scripted checks on the simulated microcontroller (`make check`)
//! must pass, and then the image runs on simavr (`pegsim`), whose switch matrix is played by the
//! test as a blind player's hands play pegs (a lift, a pause, a placement; reeds that bounce) and
//! whose UART is the pseudo-terminal given as `[boards.blind] port`. The sighted player's moves
//! are typed at the console (a plain board), and the blind player executes them on his board.
//!
//! - Three whole games of different lengths (10, 37 and 80 half-moves, from the chess-data
//!   corpus: a mate, a sacrificial attack, castling on both sides and en passant) play through:
//!   the PGN holds exactly the moves, every move is announced to the right side, every lift of a
//!   blind move is a touch, and each placement reaches tactus within 30 ms of simulated time.
//! - Faults in the simulated matrix (a chattering switch, a switch stuck closed, a diode missing
//!   since assembly, a grounded file) come out as the firmware's `E` lines, which tactus notes
//!   for the arbiter naming the squares, and never as a move nobody made; a bouncing button is
//!   one request.
//! - The maker's acceptance test: `tactus board-test` on the simulated board sees every lift as
//!   a touch and every move, castling included, and nothing else.
//! - `latency_bench` (ignored; `cargo test --release -p tactus --test it firmware::latency_bench
//!   -- --ignored --nocapture`) measures placement -> `P` line and placement -> move counted in
//!   simulated time, p50 and p99, for BENCHMARKS.md.
//!
//! Needs gcc-avr, avr-libc, libsimavr-dev and libelf-dev (scripts/setup installs them); without
//! them the tests print SKIPPED, except under CI, where they fail.

use crate::support;

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::{Arc, Mutex, OnceLock},
    thread,
    time::Duration,
};

use shakmaty::{Chess, Color, Move, Position, Square};
use support::{
    corpus::{chess_data, corpus_game},
    games::sans,
    line_table::{LIMIT, LineTable},
    process::{Guard, wait_until},
    record::{find_move_announcements, read_game_file, transcript_bodies},
    table::temp_dir,
};
use tactus::daemon::files::{PGN_FILE, TOUCHES_FILE, TRANSCRIPT_FILE};

const FIRMWARE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/firmware/pegged-board");
/// Simulated milliseconds between one hand's actions (a lift, a placement): a quick hand, well
/// above the firmware's 20 ms debounce and the profile's bounce window.
const HAND_MS: u64 = 200;
/// Placement to the move counted by tactus, in simulated time: the bound.
const COUNTED_MS: f64 = 30.0;

/// Whether the AVR toolchain and simavr are installed; says SKIPPED where not, except under CI.
fn tools_or_skip() -> bool {
    let ok = Command::new("avr-gcc")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        && Path::new("/usr/include/simavr/sim_avr.h").is_file();
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "gcc-avr or libsimavr-dev is not installed (scripts/setup installs them); CI must not skip"
        );
        eprintln!("SKIPPED: gcc-avr or libsimavr-dev is not installed (run scripts/setup)");
    }
    ok
}

/// `make ARGS` in the firmware folder; its output on failure.
fn make(args: &[&str]) -> String {
    let out = Command::new("make")
        .arg("-C")
        .arg(FIRMWARE)
        .args(args)
        .output()
        .expect("make runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "make {args:?} failed:\n{text}");
    text
}

/// The firmware image and the harness, built once per test binary.
fn built() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        make(&["all", "pegsim"]);
        let build = Path::new(FIRMWARE).join("build");
        (build.join("pegged-board.elf"), build.join("pegsim"))
    })
}

/// The simulated microcontroller: pegsim running the firmware image, its UART on a pty in
/// `dir`, commands on its standard input, its event log (times in simulated microseconds)
/// gathered by a thread.
struct Mcu {
    child: Child,
    stdin: ChildStdin,
    log: Arc<Mutex<Vec<String>>>,
    port: PathBuf,
}

impl Mcu {
    fn start(dir: &Path, before_power_up: &[&str]) -> Mcu {
        let (elf, pegsim) = built();
        let port = dir.join("pegged-board");
        let mut command = Command::new(pegsim);
        command.arg("--elf").arg(elf).arg("--pty").arg(&port);
        for c in before_power_up {
            command.args(["--do", c]);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("pegsim starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        let mcu = Mcu {
            child,
            stdin,
            log,
            port,
        };
        assert!(
            wait_until(LIMIT, || mcu.find(0, |e| e.contains(" ready ")).is_some()),
            "pegsim did not start"
        );
        mcu
    }

    fn len(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    fn events(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// The index of the first event from `from` on that matches.
    fn find(&self, from: usize, matches: impl Fn(&str) -> bool) -> Option<usize> {
        let log = self.log.lock().unwrap();
        (from..log.len()).find(|&i| matches(&log[i]))
    }

    /// Wait for the firmware's line `line` (after event `from`).
    fn wait_line(&self, from: usize, line: &str) -> usize {
        let wanted = format!(" line {line}");
        let mut at = None;
        let found = wait_until(LIMIT, || {
            at = self.find(from, |e| e.ends_with(&wanted));
            at.is_some()
        });
        assert!(
            found,
            "the firmware never sent {line:?}; its events:\n{}",
            self.events()[from..].join("\n")
        );
        at.unwrap()
    }

    /// Commands for the simulated board (hands, faults), one a line.
    fn send(&mut self, commands: &str) {
        self.stdin.write_all(commands.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }
}

impl Drop for Mcu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A table: blind White on the simulated firmware's board, sighted Black on a plain board whose
/// moves the assistant types, speech off (announcements go to the transcript).
struct Table {
    mcu: Mcu,
    run: LineTable,
}

impl Table {
    fn start(tag: &str, before_power_up: &[&str]) -> Table {
        let dir = temp_dir(&format!("firmware-{tag}"));
        let mcu = Mcu::start(&dir, before_power_up);
        let run = LineTable::start(dir, &mcu.port, "de-fide");
        Table { mcu, run }
    }

    fn console(&mut self, command: &str) -> Vec<String> {
        self.run.console(command)
    }

    fn ply(&mut self) -> usize {
        self.run.ply()
    }

    fn wait_ply(&mut self, ply: usize) {
        let reached = self.run.reaches_ply(ply);
        assert!(
            reached,
            "ply {ply} not reached\n{}\n--- firmware\n{}\n{}",
            self.transcript(),
            self.mcu.events().join("\n"),
            self.run.log()
        );
    }

    fn transcript(&self) -> String {
        self.run.transcript()
    }

    fn wait_transcript(&self, text: &str) -> String {
        self.run.transcript_with(text).unwrap_or_else(|last| {
            panic!(
                "{text:?} not in the transcript:\n{last}\n--- firmware\n{}",
                self.mcu.events().join("\n")
            )
        })
    }

    /// The blind player makes `m` on his board with his hands: each change a separate command
    /// `HAND_MS` apart in simulated time. Returns the firmware's last line for it.
    fn hands(&mut self, pos: &Chess, m: Move, captured_first: bool) -> String {
        let (script, last) = hands(pos, m, captured_first);
        self.mcu.send(&script);
        last
    }

    /// White (blind) moves; it counts once tactus has recognised it.
    fn blind_move(&mut self, pos: &Chess, m: Move, ply: usize) {
        self.hands(pos, m, ply.is_multiple_of(4));
        self.wait_ply(ply + 1);
    }

    /// Black's move typed and pressed at the console; White executes it on his board.
    fn sighted_move(&mut self, pos: &Chess, m: Move, ply: usize) {
        let san = sans(pos, &[m]).remove(0);
        self.console(&format!("move {san}"));
        self.console("press");
        self.wait_ply(ply + 1);
        let from = self.mcu.len();
        let last = self.hands(pos, m, ply % 4 == 1);
        self.mcu.wait_line(from, &last);
        // tactus sees the position stand on both boards before the blind player moves on.
        thread::sleep(Duration::from_millis(100));
    }

    fn stop(&mut self) -> PathBuf {
        self.run.stop()
    }
}

/// What a hand does on a pegged board for `m` from `pos`, as pegsim commands, and the last line
/// the firmware sends for it. A capture takes the captured peg off first or last
/// (`captured_first`); castling moves the king, then the rook; en passant takes the pawn last.
fn hands(pos: &Chess, m: Move, captured_first: bool) -> (String, String) {
    let mut steps: Vec<(bool, Square)> = Vec::new();
    match m {
        Move::Castle { king, rook } => {
            let side = if rook.file() > king.file() {
                shakmaty::CastlingSide::KingSide
            } else {
                shakmaty::CastlingSide::QueenSide
            };
            let color = pos.turn();
            steps.extend([
                (false, king),
                (true, side.king_to(color)),
                (false, rook),
                (true, side.rook_to(color)),
            ]);
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            steps.extend([(false, from), (true, to), (false, taken)]);
        }
        Move::Normal {
            from,
            to,
            capture,
            promotion,
            ..
        } => {
            assert!(promotion.is_none(), "the games here have no promotion");
            if capture.is_some() && captured_first {
                steps.extend([(false, to), (false, from), (true, to)]);
            } else if capture.is_some() {
                steps.extend([(false, from), (false, to), (true, to)]);
            } else {
                steps.extend([(false, from), (true, to)]);
            }
        }
        Move::Put { .. } => unreachable!(),
    }
    let mut script = String::new();
    for (i, (place, square)) in steps.iter().enumerate() {
        if i > 0 {
            script.push_str(&format!("wait {HAND_MS}\n"));
        }
        let verb = if *place { "place" } else { "lift" };
        script.push_str(&format!("{verb} {square}\n"));
    }
    let (place, square) = steps.last().unwrap();
    let last = format!("{} {square}", if *place { "P" } else { "L" });
    (script, last)
}

/// The hands' changes in pegsim's event log, as the lines that report them (`P e4`, `L e2`).
fn changes_made(events: &[String]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            let (_, what) = e.split_once(' ')?;
            if let Some(square) = what.strip_prefix("place ") {
                Some(format!("P {square}"))
            } else {
                what.strip_prefix("lift ")
                    .map(|square| format!("L {square}"))
            }
        })
        .collect()
}

/// The firmware's `L` and `P` lines in pegsim's event log.
fn lines_of_changes(events: &[String]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            let (_, what) = e.split_once(' ')?;
            let line = what.strip_prefix("line ")?;
            (line.starts_with("L ") || line.starts_with("P ")).then(|| line.to_string())
        })
        .collect()
}

/// From the firmware's event log: for every placement, the simulated milliseconds to its `P`
/// line starting out of the UART, and to that line's end on the wire (when tactus has it and
/// counts the move it completes).
fn placement_latencies(events: &[String]) -> Vec<(Square, f64, f64)> {
    let parse = |e: &str| -> Option<(u64, String)> {
        let (t, rest) = e.split_once(' ')?;
        Some((t.parse().ok()?, rest.to_string()))
    };
    let parsed: Vec<(u64, String)> = events.iter().filter_map(|e| parse(e)).collect();
    let mut out = Vec::new();
    for (i, (t, what)) in parsed.iter().enumerate() {
        let Some(square) = what.strip_prefix("place ") else {
            continue;
        };
        let first = parsed[i..]
            .iter()
            .find(|(_, w)| *w == format!("first P {square}"));
        let line = parsed[i..]
            .iter()
            .find(|(_, w)| *w == format!("line P {square}"));
        if let (Some((f, _)), Some((l, _))) = (first, line) {
            out.push((
                square.parse().unwrap(),
                (f - t) as f64 / 1000.0,
                (l - t) as f64 / 1000.0,
            ));
        }
    }
    out
}

/// Play `moves` through a table, blind White on the firmware; check the PGN, the announcements
/// and the touches. Returns the placement latencies (simulated ms: to the `P` line, to its end
/// on the wire): of every placement, and of the last placement of each of the blind player's
/// own moves (the one that completes it: the move counted).
type Latencies = (Vec<(f64, f64)>, Vec<(f64, f64)>);

fn play_game(tag: &str, moves: &[Move]) -> Latencies {
    let mut t = Table::start(tag, &[]);
    let mut pos = Chess::default();
    let mut own_placements = Vec::new();
    for (ply, &m) in moves.iter().enumerate() {
        if pos.turn() == Color::White {
            let from = t.mcu.len();
            t.blind_move(&pos, m, ply);
            own_placements.push(from);
        } else {
            t.sighted_move(&pos, m, ply);
        }
        pos.play_unchecked(m);
    }
    let folder = t.stop();
    // The PGN holds exactly the moves made.
    let pgn = read_game_file(&folder.join(PGN_FILE));
    assert_eq!(
        sans(&Chess::default(), &pgn.moves),
        sans(&Chess::default(), moves),
        "{tag}: the PGN"
    );
    // Every move announced, in order, to the right side.
    let transcript = fs::read_to_string(folder.join(TRANSCRIPT_FILE)).unwrap();
    let bodies = transcript_bodies(&transcript);
    if let Err(e) = find_move_announcements(&bodies, moves, Color::White) {
        panic!("{tag}: {e}\n{transcript}");
    }
    // The firmware sent one line per change the hands made, in their order: no bounce, no
    // rocking peg reached tactus (section 2.5: debounced, in the order they happened).
    let events = t.mcu.events();
    assert_eq!(
        lines_of_changes(&events),
        changes_made(&events),
        "{tag}: the firmware's L/P lines are not the hands' changes"
    );
    // The firmware said nothing of faults, and tactus noted none.
    assert!(
        !events.iter().any(|e| e.contains(" line E ")),
        "{tag}: the firmware reported a fault:\n{}",
        events.join("\n")
    );
    assert!(
        !transcript.contains("board reports"),
        "{tag}: a fault noted\n{transcript}"
    );
    // Every blind move's lift of his own piece is a touch, on its square, in order (the
    // touches of his executing the opponent's moves are there too, as black pieces).
    let touches = fs::read_to_string(folder.join(TOUCHES_FILE)).unwrap();
    let lines: Vec<&str> = touches.lines().collect();
    let mut at = 0;
    let mut p = Chess::default();
    for &m in moves {
        if p.turn() == Color::White {
            let from = m.from().unwrap();
            let role = p.board().role_at(from).unwrap();
            let wanted = format!("tactile {from} white {role:?}").to_lowercase();
            match lines[at..].iter().position(|l| l.ends_with(&wanted)) {
                Some(i) => at += i + 1,
                None => panic!("{tag}: no touch '{wanted}' in order:\n{touches}"),
            }
        }
        p.play_unchecked(m);
    }
    // Each placement reached tactus within the bound, in simulated time (deterministic: the
    // simulated clock does not depend on the machine's load).
    let latencies = placement_latencies(&events);
    for (square, _, counted) in &latencies {
        assert!(
            *counted <= COUNTED_MS,
            "{tag}: placement on {square} reached tactus after {counted} simulated ms"
        );
    }
    // The blind player's own moves: the last placement of each.
    let mut own = Vec::new();
    for (k, &from) in own_placements.iter().enumerate() {
        let until = own_placements.get(k + 1).copied().unwrap_or(events.len());
        let part = placement_latencies(&events[from..until]);
        if let Some(&(_, p, c)) = part.last() {
            own.push((p, c));
        }
    }
    let all = latencies.iter().map(|&(_, p, c)| (p, c)).collect();
    (all, own)
}

fn corpus_moves(file: &str, n: usize, plies: usize) -> Vec<Move> {
    let data = chess_data().expect("the chess-data corpus");
    let game = corpus_game(&data, file, n);
    assert_eq!(game.moves.len(), plies, "{file} game {n}");
    assert!(
        game.moves.iter().all(|m| !matches!(
            m,
            Move::Normal {
                promotion: Some(_),
                ..
            }
        )),
        "no promotions"
    );
    game.moves
}

/// The three games: 10, 37 and 80 half-moves.
fn games() -> Vec<(&'static str, Vec<Move>)> {
    vec![
        (
            "molinari-bordais",
            corpus_moves("python-chess-molinari-bordais-1979.pgn", 1, 10),
        ),
        (
            "kasparov-deep-blue-6",
            corpus_moves("python-chess-kasparov-deep-blue-1997.pgn", 6, 37),
        ),
        ("fawaz-wadih", corpus_moves("twic1599-selected.pgn", 5, 80)),
    ]
}

#[test]
fn the_core_on_the_host_and_the_image_on_a_simulated_atmega328p() {
    if !tools_or_skip() {
        return;
    }
    built();
    let out = make(&["test"]);
    assert!(out.contains("cases passed (debounce 20 ms)"), "{out}");
    let out = make(&["check"]);
    assert!(out.contains("all checks passed"), "{out}");
    // The image fits the ATmega328P: 32 KiB of flash, 2 KiB of RAM.
    let size = Command::new("avr-size")
        .arg(&built().0)
        .output()
        .expect("avr-size");
    let text = String::from_utf8_lossy(&size.stdout);
    let numbers: Vec<u64> = text
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .take(3)
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(numbers[0] + numbers[1] < 30 * 1024, "{text}");
    assert!(
        numbers[1] + numbers[2] < 1700,
        "RAM, leaving room for the stack: {text}"
    );
}

#[test]
fn a_10_half_move_game_on_the_simulated_firmware() {
    if !tools_or_skip() || chess_data().is_none() {
        return;
    }
    let (tag, moves) = games().remove(0);
    play_game(tag, &moves);
}

#[test]
fn a_37_half_move_game_on_the_simulated_firmware() {
    if !tools_or_skip() || chess_data().is_none() {
        return;
    }
    let (tag, moves) = games().remove(1);
    play_game(tag, &moves);
}

#[test]
fn an_80_half_move_game_with_castling_and_en_passant_on_the_simulated_firmware() {
    if !tools_or_skip() || chess_data().is_none() {
        return;
    }
    let (tag, moves) = games().remove(2);
    assert!(moves.iter().any(|m| m.is_en_passant()) && moves.iter().any(|m| m.is_castle()));
    play_game(tag, &moves);
}

/// Faults in the simulated matrix, on a game played on: the firmware's `E` lines reach the
/// arbiter's notes, and nothing a fault does is taken for a move.
#[test]
fn faults_come_out_as_e_lines_never_as_moves() {
    if !tools_or_skip() {
        return;
    }
    // The diode under c3 was never fitted: harmless while c3 is empty.
    let mut t = Table::start("faults", &["diode c3 off"]);
    let moves = support::games::moves_of("e4 e5 Nf3 Nc6 Bc4 Nf6 Nc3 Bc5");
    let mut pos = Chess::default();
    let play = |t: &mut Table, pos: &mut Chess, ply: usize| {
        let m = moves[ply];
        if ply.is_multiple_of(2) {
            t.blind_move(pos, m, ply);
        } else {
            t.sighted_move(pos, m, ply);
        }
        pos.play_unchecked(m);
    };
    play(&mut t, &mut pos, 0);
    play(&mut t, &mut pos, 1);
    play(&mut t, &mut pos, 2);
    // Black thinks; the reed under h2 chatters: an E line, and no lift of h2.
    let from = t.mcu.len();
    t.mcu.send("chatter h2 400\n");
    t.mcu.wait_line(
        from,
        "E sensor h2 chatters: no change is reported until it settles",
    );
    t.wait_transcript("note tactile board reports: sensor h2 chatters");
    thread::sleep(Duration::from_millis(600));
    assert!(t.mcu.find(from, |e| e.ends_with(" line L h2")).is_none());
    assert_eq!(t.ply(), 3, "a chattering switch made a move");
    play(&mut t, &mut pos, 3);
    // The reed under f1 is stuck closed: the bishop's lift is not seen, and its placement on c4
    // is one peg more, which is no move. Freed, the switch opens: the move is made.
    t.mcu.send("stuck f1 closed\n");
    let from = t.mcu.len();
    t.hands(&pos, moves[4], false);
    t.mcu.wait_line(from, "P c4");
    thread::sleep(Duration::from_millis(1000));
    assert_eq!(t.ply(), 4, "a stuck switch made a move");
    t.mcu.send("stuck f1 off\n");
    t.mcu.wait_line(from, "L f1");
    t.wait_ply(5);
    pos.play_unchecked(moves[4]);
    play(&mut t, &mut pos, 5);
    // The d-file's wire touches ground, and is repaired: E lines, and not one line of the
    // d-file's eight squares, which all read closed meanwhile.
    let from = t.mcu.len();
    t.mcu.send("ground d on\nwait 500\nground d off\n");
    t.mcu.wait_line(
        from,
        "E file d grounded: it reads closed with no rank driven; d1-d8 cannot be sensed until it is fixed",
    );
    t.mcu.wait_line(from, "E file d works again");
    t.wait_transcript("note tactile board reports: file d grounded");
    thread::sleep(Duration::from_millis(300));
    assert!(
        t.mcu
            .find(from, |e| e.contains(" line P d") || e.contains(" line L d"))
            .is_none(),
        "{}",
        t.mcu.events()[from..].join("\n")
    );
    assert_eq!(t.ply(), 6, "a grounded file made a move");
    // 4.Nc3 with the diode of c3 missing: the c-file's pegs now reach the third rank, and
    // through Nf3 the f-file: f1 (empty since 3.Bc4) and f4 close with c3. The firmware names
    // them in an E line and reports none of them as a placement.
    let from = t.mcu.len();
    t.hands(&pos, moves[6], false);
    t.mcu.wait_line(from, "L b1");
    t.mcu.wait_line(
        from,
        "E ghost: f1 c3 f4 changed together, as a missing diode makes them; \
         check the diodes of their rectangle",
    );
    t.wait_transcript("note tactile board reports: ghost: f1 c3 f4");
    thread::sleep(Duration::from_millis(1000));
    assert_eq!(t.ply(), 6, "a ghost made a move");
    // The diode is fitted: the ghosts go, and the firmware sends the truth as a snapshot.
    t.mcu.send("diode c3 on\n");
    t.mcu.wait_line(from, "E ghost gone: snapshot follows");
    t.mcu.wait_line(from, "S BDEF24101424EF9D");
    thread::sleep(Duration::from_millis(500));
    assert_eq!(t.ply(), 6, "a snapshot made a move");
    // The knight, put into its aperture again, is seen: the move counts.
    t.mcu.send(&format!("lift c3\nwait {HAND_MS}\nplace c3\n"));
    t.wait_ply(7);
    pos.play_unchecked(moves[6]);
    play(&mut t, &mut pos, 7);
    // The blind player presses button 3 on his board (it bounces): one `B 3`, and he hears the
    // move count (F.9 d), once.
    let from = t.mcu.len();
    t.mcu
        .send("press 3\nwait 2\nrelease 3\nwait 1\npress 3\nwait 150\nrelease 3\n");
    t.mcu.wait_line(from, "B 3");
    let answer = "blind Weiß: vier Züge, Schwarz: vier Züge";
    let heard = t.wait_transcript(answer);
    assert!(heard.contains("note request 'count' by button 3 of the tactile board"));
    thread::sleep(Duration::from_millis(300));
    assert_eq!(t.transcript().matches(answer).count(), 1);
    assert_eq!(
        t.mcu.events()[from..]
            .iter()
            .filter(|e| e.contains(" line B "))
            .count(),
        1
    );
    let folder = t.stop();
    let pgn = read_game_file(&folder.join(PGN_FILE));
    assert_eq!(
        sans(&Chess::default(), &pgn.moves),
        sans(&Chess::default(), &moves)
    );
    // No move nobody made, and every fault on the firmware's line only as E.
    let transcript = fs::read_to_string(folder.join(TRANSCRIPT_FILE)).unwrap();
    if let Err(e) = find_move_announcements(&transcript_bodies(&transcript), &moves, Color::White) {
        panic!("{e}\n{transcript}");
    }
}

/// The maker's acceptance test (the guide's last step): `tactus board-test` on the simulated
/// board shows every lift as a touch and every move as its move, both sides moving on it, and
/// nothing more.
#[test]
fn board_test_the_makers_acceptance_test_sees_every_lift_and_move() {
    if !tools_or_skip() {
        return;
    }
    let dir = temp_dir("firmware-board-test");
    let mut mcu = Mcu::start(&dir, &[]);
    let moves = support::games::moves_of("e4 d5 exd5 Nf6 Nf3 Nxd5 Be2 e6 O-O Be7");
    let mut child = Command::new(support::process::TACTUS)
        .args(["board-test", "--json", "--profile", "pegged-line", "--port"])
        .arg(&mcu.port)
        .args(["--moves", &moves.len().to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("board-test starts");
    let stdout = child.stdout.take().unwrap();
    let events = Arc::new(Mutex::new(Vec::<serde_json::Value>::new()));
    let sink = events.clone();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            sink.lock()
                .unwrap()
                .push(serde_json::from_str(&line).unwrap());
        }
    });
    let seen = |kind: &str| {
        events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e["event"] == kind)
            .count()
    };
    assert!(wait_until(LIMIT, || seen("board") == 1), "no board shown");
    let mut pos = Chess::default();
    for (ply, &m) in moves.iter().enumerate() {
        let (script, _) = hands(&pos, m, ply.is_multiple_of(3));
        mcu.send(&script);
        assert!(
            wait_until(LIMIT, || seen("move") == ply + 1),
            "move {} not seen\n{:?}",
            ply + 1,
            events.lock().unwrap()
        );
        pos.play_unchecked(m);
    }
    let status = Guard(Some(child)).wait_limit(LIMIT);
    assert!(status.success());
    reader.join().unwrap();
    let events = events.lock().unwrap();
    let of = |kind: &str| -> Vec<&serde_json::Value> {
        events.iter().filter(|e| e["event"] == kind).collect()
    };
    assert_eq!(of("board")[0]["matches"], true, "{events:?}");
    let played: Vec<String> = of("move")
        .iter()
        .map(|e| e["san"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(played, sans(&Chess::default(), &moves));
    // Every lift is a touch, once: the mover's pieces (castling: the king, then the rook) and,
    // as both sides move on this one board, the captured pieces as they are taken off.
    let touched: Vec<String> = of("touched")
        .iter()
        .map(|e| e["square"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        touched,
        [
            "e2", "d7", "e4", "d5", "g8", "g1", "f6", "d5", "f1", "e7", "e1", "h1", "f8"
        ],
        "{events:?}"
    );
    for kind in ["board_fault", "garbage", "rejected", "unknown", "differs"] {
        assert!(of(kind).is_empty(), "{kind}: {events:?}");
    }
    // The board's own lines: one per change the hands made.
    let log = mcu.events();
    assert_eq!(lines_of_changes(&log), changes_made(&log));
    drop(mcu);
    let _ = fs::remove_dir_all(&dir);
}

/// p-th percentile (0..=100) of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank]
}

#[test]
#[ignore = "a measurement for BENCHMARKS.md; run with --ignored --nocapture"]
fn latency_bench() {
    if !tools_or_skip() || chess_data().is_none() {
        return;
    }
    let mut to_line = Vec::new();
    let mut to_counted = Vec::new();
    for (tag, moves) in games() {
        let (all, own) = play_game(tag, &moves);
        to_line.extend(all.iter().map(|&(p, _)| p));
        to_counted.extend(own.iter().map(|&(_, c)| c));
    }
    to_line.sort_by(f64::total_cmp);
    to_counted.sort_by(f64::total_cmp);
    println!(
        "{} placements: placement -> P line p50 {:.2} ms p99 {:.2} ms max {:.2} ms; \
         {} blind moves: placement -> move counted p50 {:.2} ms p99 {:.2} ms max {:.2} ms \
         (simulated time)",
        to_line.len(),
        percentile(&to_line, 50.0),
        percentile(&to_line, 99.0),
        to_line.last().unwrap(),
        to_counted.len(),
        percentile(&to_counted, 50.0),
        percentile(&to_counted, 99.0),
        to_counted.last().unwrap(),
    );
    assert!(percentile(&to_counted, 99.0) <= COUNTED_MS);
}
