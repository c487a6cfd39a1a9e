//! The table never gets stuck, end to end: `tactus run` with both boards simulated on real
//! pseudo-terminals (the blind player's pegged board, the sighted player's DGT board), speech on
//! ALSA's null device where ALSA is installed, people acting out of the expected order. Each
//! test plays a whole game to its end, and the game folder's PGN must hold exactly the moves
//! made.
//!
//! 1. The blind player executes the opponent's move 50 ms after it stands on the sighted board,
//!    before tactus has counted or announced it, and then plays his own (the reported case:
//!    1.e4 e5 2.Nf3 Nc6, ...Nc6 executed early, then 3.Bc4).
//! 2. A move made while the clocks stand: the game is stopped and resumed from its journal,
//!    which starts paused (6.12); the player to move moves before the arbiter's `resume`. His
//!    move is held, he hears so, and it counts when the clocks run again.
//! 3. The sighted player presses his clock 50 ms after placing his piece (`completion =
//!    "press"`), and mates without pressing at all (5.1 a: the game ends at once).
//! 4. F.6: the blind player makes another move than he meant, the assistant corrects the
//!    announcement at once; the corrected move counts only once it stands on his board
//!    (F.3 b), where he is guided to it.

use crate::support;

use std::{
    ffi::OsStr,
    fs,
    path::PathBuf,
    thread,
    time::{Duration, Instant},
};

use shakmaty::{Chess, Color, Move};
use support::{
    console::{ask, ply_of, result_of},
    games::{moves_of, sans, write_sim_pgn},
    process::{Guard, ask_when_up, show, spawn, wait_until},
    record::{
        both_line, find_move_announcements, game_folder, pack, read_game_file, transcript_bodies,
    },
    table::{alsa_null, temp_dir, write_config_completion},
};
use tactus::daemon::{
    files::{PGN_FILE, TRANSCRIPT_FILE},
    journal,
};
use tactus_core::announce::{Announcement, ResultWords};
use tactus_core::journal::{BoardRecord, InputRecord, RulesRecord, SensorRecord};

/// The simulated players' pauses divided by this.
const SPEED: &str = "10";
/// A game that makes no progress for this long is stuck.
const STALL: Duration = Duration::from_secs(60);

/// 1.e4 e5 2.Nf3 Nc6 3.Bc4 Nd4 4.Nxe5 Qg5 5.Nxf7 Qxg2 6.Rf1 Qxe4+ 7.Be2 Nf3#: the reported
/// opening, a capture on each side, and a mate by Black.
const TRAP: &str = "e4 e5 Nf3 Nc6 Bc4 Nd4 Nxe5 Qg5 Nxf7 Qxg2 Rf1 Qxe4+ Be2 Nf3#";

/// One table: its folder, configuration, the game it plays and the daemon running it.
struct Run {
    dir: PathBuf,
    config: PathBuf,
    sim_pgn: PathBuf,
    env_path: Option<PathBuf>,
    moves: Vec<Move>,
    blind: Color,
    guard: Option<Guard>,
    runs: usize,
    /// The daemon's log filter (`RUST_LOG`), when not its own.
    rust_log: Option<&'static str>,
}

impl Run {
    fn new(tag: &str, blind: Color, completion: &str, moves: &str) -> Run {
        Run::settling(tag, blind, completion, moves, REPORTED_SETTLE_MS)
    }

    /// The sighted board rests `settle_ms` before his move counts.
    fn settling(tag: &str, blind: Color, completion: &str, moves: &str, settle_ms: u64) -> Run {
        let dir = temp_dir(&format!("table-{tag}"));
        let moves = moves_of(moves);
        let sim_pgn = dir.join("source.pgn");
        write_sim_pgn(&sim_pgn, &moves);
        let alsa = alsa_null(&dir);
        let speaker = if alsa.is_some() { "clips" } else { "none" };
        let config = write_config_completion(&dir, blind, speaker, completion);
        // The sighted board settles as long as the board of the report did (400 ms), or longer,
        // so that its moves are still settling when the blind player executes them.
        let dgt = dir.join("fast-dgt.toml");
        let text = fs::read_to_string(&dgt).unwrap();
        assert!(text.contains("settle_ms = 60"));
        fs::write(
            &dgt,
            text.replace("settle_ms = 60", &format!("settle_ms = {settle_ms}")),
        )
        .unwrap();
        Run {
            dir,
            config,
            sim_pgn,
            env_path: alsa,
            moves,
            blind,
            guard: None,
            runs: 0,
            rust_log: None,
        }
    }

    fn log(&self) -> String {
        format!("run{}", self.runs)
    }

    /// `tactus run` with these hands; `new`: a new game (else the unfinished one resumes).
    fn start(&mut self, hands: &str, new: bool) {
        self.runs += 1;
        let mut env: Vec<(&str, &OsStr)> = self
            .env_path
            .as_deref()
            .map(|p| vec![("ALSA_CONFIG_PATH", p.as_os_str())])
            .unwrap_or_default();
        if let Some(filter) = self.rust_log {
            env.push(("RUST_LOG", OsStr::new(filter)));
        }
        let mut args = vec![
            "run",
            "--config",
            self.config.to_str().unwrap(),
            "--sim-pgn",
            self.sim_pgn.to_str().unwrap(),
            "--sim-speed",
            SPEED,
        ];
        if new {
            args.push("--new");
        }
        if !hands.is_empty() {
            args.extend(["--sim-hands", hands]);
        }
        let log = self.log();
        self.guard = Some(spawn(&args, &self.dir, &log, &env));
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("console.sock")
    }

    fn status(&mut self) -> Vec<String> {
        let (socket, dir, log) = (self.socket(), self.dir.clone(), self.log());
        let guard = self.guard.as_mut().expect("running");
        ask_when_up(&socket, "status", guard, &dir, &log, STALL)
    }

    fn command(&mut self, command: &str) -> Vec<String> {
        self.status();
        ask(&self.socket(), command).unwrap_or_else(|e| panic!("{command}: {e}"))
    }

    /// Wait until `check` holds on the status, failing if the game stands still too long.
    fn wait(&mut self, what: &str, check: impl Fn(&[String]) -> bool) -> Vec<String> {
        let mut last = None;
        let mut since = Instant::now();
        loop {
            let status = self.status();
            if check(&status) {
                return status;
            }
            let ply = ply_of(&status);
            if last != Some(ply) {
                last = Some(ply);
                since = Instant::now();
            }
            assert!(
                since.elapsed() < STALL,
                "stuck waiting for {what} at ply {ply}: {status:?}\n{}\n{}",
                self.transcript(),
                show(&self.dir, &self.log())
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn folder(&self) -> PathBuf {
        game_folder(&self.dir.join("played"))
    }

    fn transcript(&self) -> String {
        fs::read_to_string(self.folder().join(TRANSCRIPT_FILE)).unwrap_or_default()
    }

    fn stderr(&self) -> String {
        (1..=self.runs)
            .map(|n| fs::read_to_string(self.dir.join(format!("run{n}.err"))).unwrap_or_default())
            .collect()
    }

    /// Play to the end: every move counted and the result standing; then stop the daemon and
    /// check the record.
    fn finish(&mut self) {
        let n = self.moves.len();
        let status = self.wait("the end of the game", |s| {
            ply_of(s) >= n && result_of(s).is_some()
        });
        assert_eq!(ply_of(&status), n, "{status:?}");
        // Every move announced to the right player, in order, and the result said (the speech
        // task writes what it says as it says it: wait for it).
        let result = match result_of(&status)
            .as_deref()
            .and_then(|r| r.split(' ').next())
        {
            Some("1-0") => ResultWords::WhiteWins,
            Some("0-1") => ResultWords::BlackWins,
            _ => ResultWords::Draw,
        };
        let result_line = both_line(&Announcement::Result(result));
        let moves = self.moves.clone();
        let blind = self.blind;
        let transcript_path = self.folder().join(TRANSCRIPT_FILE);
        let announced = wait_until(Duration::from_secs(20), || {
            let text = fs::read_to_string(&transcript_path).unwrap_or_default();
            let bodies = transcript_bodies(&text);
            find_move_announcements(&bodies, &moves, blind).is_ok() && bodies.contains(&result_line)
        });
        let text = self.transcript();
        assert!(
            announced,
            "{:?}\n{text}",
            find_move_announcements(&transcript_bodies(&text), &moves, blind)
        );
        self.stop();
        let pgn = read_game_file(&self.folder().join(PGN_FILE));
        assert_eq!(
            sans(&Chess::default(), &pgn.moves),
            sans(&Chess::default(), &self.moves),
            "the PGN holds the moves made"
        );
    }

    fn stop(&mut self) {
        let log = self.log();
        let mut guard = self.guard.take().expect("running");
        guard.signal("-TERM");
        let status = guard.wait_limit(Duration::from_secs(20));
        assert!(
            status.success(),
            "SIGTERM: {status}\n{}",
            show(&self.dir, &log)
        );
    }

    /// Remove the folder (kept with `TACTUS_KEEP_TABLE=1`, to look at what happened).
    fn done(self) {
        if std::env::var_os("TACTUS_KEEP_TABLE").is_none() {
            fs::remove_dir_all(&self.dir).unwrap();
        }
    }
}

/// How often the transcript says `words` to `audience` (`blind`, `sighted`, `both`).
fn said(transcript: &str, audience: &str, words: &str) -> usize {
    let line = format!("{audience} {words}");
    transcript_bodies(transcript)
        .iter()
        .filter(|b| **b == line)
        .count()
}

fn words(announcement: &Announcement) -> String {
    pack()
        .render(announcement, tactus_core::announce::voice::Style::San)
        .text
}

/// The guidance said to `audience` (the de-fide pack's words for a board that differs).
fn guidance_to(transcript: &str, audience: &str) -> Vec<String> {
    let marks = ["steht auf", "ist leer", "muss leer sein", "dort gehört"];
    transcript_bodies(transcript)
        .into_iter()
        .filter(|b| b.starts_with(&format!("{audience} ")) && marks.iter().any(|m| b.contains(m)))
        .collect()
}

/// The sighted board's rest in the reported case.
const REPORTED_SETTLE_MS: u64 = 400;

#[test]
fn the_blind_player_executes_the_opponents_move_before_it_is_announced() {
    // He executes 50 ms after the move stands; the board rests 2 s before it counts, so that
    // "before it is counted" holds on a loaded machine too (with the reported 400 ms, a hand
    // delayed by load could come after the count, and the test would prove nothing).
    let mut run = Run::settling("early", Color::White, "settle", TRAP, 2000);
    run.start("early=50", true);
    run.finish();
    let transcript = run.transcript();
    // He executed every Black move ahead of its count, and was never told his board was wrong.
    let early = run
        .stderr()
        .matches("executing the opponent's move early")
        .count();
    assert_eq!(
        early,
        7,
        "every Black move executed early\n{}",
        run.stderr()
    );
    // ...and each stood on the tactile board before tactus counted it.
    // (The journal names each board by its seat: the blind player is White.)
    let folder = run.folder();
    let read = journal::read(&folder.join("journal.jsonl")).unwrap();
    let replayed = support::journal::replayed(&read);
    let records = replayed.arbiter().game().moves().to_vec();
    let placements: Vec<(u64, String)> = support::journal::applied(&read)
        .into_iter()
        .filter_map(|a| match a.input {
            InputRecord::Board {
                board: BoardRecord::White,
                event: SensorRecord::Place { square, .. },
            } => Some((a.t, square)),
            _ => None,
        })
        .collect();
    let mut ahead = 0;
    for (k, record) in records.iter().enumerate().filter(|(k, _)| k % 2 == 1) {
        let to = record.mv.to().to_string();
        let since = records[k - 1].at;
        let placed = placements
            .iter()
            .find(|(t, sq)| *t > since && *sq == to)
            .map(|(t, _)| *t);
        if placed.is_some_and(|t| t < record.at) {
            ahead += 1;
        }
    }
    assert_eq!(ahead, 7, "executed before counted");
    assert_eq!(
        guidance_to(&transcript, "blind"),
        Vec::<String>::new(),
        "{transcript}"
    );
    assert!(transcript.contains("Schwarz gewinnt"), "{transcript}");
    run.done();
}

#[test]
fn a_move_made_while_the_clocks_are_paused_counts_when_they_run_again() {
    let mut run = Run::new("paused", Color::Black, "settle", TRAP);
    run.start("", true);
    run.wait("ply 5", |s| ply_of(s) >= 5);
    run.stop();
    // Resumed from the journal: paused (6.12) until the arbiter says `resume`. The player to
    // move makes his move all the same.
    run.start("paused-moves", false);
    let status = run.wait("the clocks paused", |s| {
        s.iter().any(|l| l.contains("(paused)"))
    });
    let ply = ply_of(&status);
    let held = words(&Announcement::MoveHeld);
    let transcript_path = run.folder().join(TRANSCRIPT_FILE);
    let heard = wait_until(STALL, || {
        let text = fs::read_to_string(&transcript_path).unwrap_or_default();
        said(&text, "blind", &held) + said(&text, "sighted", &held) >= 1
    });
    assert!(
        heard,
        "the mover hears his move is held\n{}",
        run.transcript()
    );
    let status = run.status();
    assert_eq!(ply_of(&status), ply, "held, not counted: {status:?}");
    assert!(status.iter().any(|l| l.contains("(paused)")), "{status:?}");
    let reply = run.command("resume");
    assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
    run.wait("the held move", |s| ply_of(s) > ply);
    run.finish();
    run.done();
}

#[test]
fn a_press_right_after_the_placement_counts_and_a_mate_needs_no_press() {
    let mut run = Run::new("press", Color::White, "press", TRAP);
    run.start("press=50", true);
    run.finish();
    let transcript = run.transcript();
    let none = words(&Announcement::NoMoveToCount);
    assert_eq!(
        said(&transcript, "sighted", &none),
        0,
        "every press found its move\n{transcript}"
    );
    // Black's last move mates: it counted although nobody pressed.
    assert!(transcript.contains("Schwarz gewinnt"), "{transcript}");
    // Each press counted its move as soon as the board could tell: once the board had rested
    // its 400 ms after the move (the press came 50 ms after it), at the first moment after that
    // rest (no tick of the hub's between the rest and the count passed it by), never asking for
    // another press. Read on the journal's time line, so that a loaded machine delays the count
    // and the ticks alike and the test still says exactly this.
    let read = journal::read(&run.folder().join("journal.jsonl")).unwrap();
    let replayed = support::journal::replayed(&read);
    let game = replayed.arbiter().game();
    let applied = support::journal::applied(&read);
    let inputs: Vec<(u64, &InputRecord)> = applied.iter().map(|a| (a.t, &a.input)).collect();
    let presses: Vec<u64> = inputs
        .iter()
        .filter(|(_, i)| **i == InputRecord::ClockPress)
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(
        presses.len(),
        6,
        "Black pressed after each move but the mate"
    );
    for (k, record) in game.moves().iter().enumerate() {
        if k % 2 == 1 && k + 1 < game.moves().len() {
            let press = presses[k / 2];
            assert!(
                record.at >= press,
                "ply {}: counted before the press",
                k + 1
            );
            // The sighted board's last change before the count: the move standing.
            let changed = inputs
                .iter()
                .filter(|(t, i)| {
                    *t <= record.at
                        && matches!(
                            i,
                            InputRecord::Board {
                                board: BoardRecord::Black,
                                event: SensorRecord::Place { .. } | SensorRecord::Lift { .. },
                            }
                        )
                })
                .map(|(t, _)| *t)
                .max()
                .expect("the move's placement is journaled");
            let rested = changed + REPORTED_SETTLE_MS;
            assert!(
                record.at >= rested,
                "ply {}: counted {} ms after its last change, before the board rested",
                k + 1,
                record.at - changed
            );
            let passed_by: Vec<u64> = inputs
                .iter()
                .filter(|(t, i)| {
                    **i == InputRecord::Tick && *t >= rested.max(press) && *t < record.at
                })
                .map(|(t, _)| *t)
                .collect();
            assert!(
                passed_by.is_empty(),
                "ply {}: rested at {rested}, pressed at {press}, counted only at {}; ticks between: {passed_by:?}",
                k + 1,
                record.at
            );
        }
    }
    run.done();
}

#[test]
fn a_corrected_blind_move_counts_once_it_stands_on_his_board() {
    // 3.Bc4 is made as another bishop move first; the assistant corrects it at once (F.6).
    let mut run = Run::new("correct", Color::White, "settle", TRAP);
    run.start("wrong=5", true);
    run.finish();
    let transcript = run.transcript();
    let log = run.stderr();
    if run.env_path.is_none() {
        // Without audio every announcement ends at once: nothing to correct in time.
        eprintln!("SKIPPED: no ALSA to give announcements their time");
        run.done();
        return;
    }
    assert!(
        transcript.contains("announcement corrected: Bc4 instead of"),
        "{transcript}\n{log}"
    );
    assert!(
        transcript.contains("the corrected move stands on the tactile board"),
        "{transcript}"
    );
    // He was guided to it before it counted.
    assert!(
        !guidance_to(&transcript, "blind").is_empty(),
        "{transcript}"
    );
    run.done();
}

/// Issue 22, end to end over real pseudo-terminals: a DGT clock (an emulated DGT 3000 on the
/// simulated DGT board's clock socket) is set by tactus at every change, White on its left. The
/// sighted player (Black) completes each move with his side of the lever, not the console. The
/// arbiter pauses, gives Black two minutes and resumes; later he takes two moves back and
/// confirms the clocks, and the game is played on to its end. At every press the physical clock
/// shows both official times of that instant within a second.
#[test]
fn the_dgt_clock_shows_the_official_clock_and_its_lever_completes_the_sighted_move() {
    let mut run = Run::new("dgt-clock", Color::White, "press", TRAP);
    attach_dgt_clock(&run);
    // Every reading the clock reports (each second) is logged against the official clock.
    run.rust_log = Some("info,tactus_core::table::clock=debug");
    run.start("press=50", true);
    // The arbiter pauses the clocks, gives Black two minutes and resumes: the physical clock
    // follows each change (the presses after it are checked against the official times below).
    run.wait("ply 4", |s| ply_of(s) >= 4);
    for command in ["pause", "add-time black +2m", "resume"] {
        let reply = run.command(command);
        assert_eq!(
            reply.last().map(String::as_str),
            Some("ok"),
            "{command}: {reply:?}"
        );
        // Long enough for the clock's readings to be judged: at the simulation's pace the
        // moves come faster than a reading may be (1.5 s after a setting it may still show the
        // last one).
        thread::sleep(Duration::from_millis(if command == "resume" {
            300
        } else {
            3_500
        }));
    }
    // A takeback: both boards are guided back two moves, the clocks set to the times proposed
    // once the arbiter confirms them, and the moves are played again.
    run.wait("ply 8", |s| ply_of(s) >= 8);
    let reply = run.command("takeback 6");
    assert!(
        reply.iter().any(|l| l.contains("confirm-clocks")),
        "takeback 6: {reply:?}"
    );
    thread::sleep(Duration::from_millis(300));
    let reply = run.command("confirm-clocks");
    assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
    run.finish();
    let transcript = run.transcript();
    assert!(transcript.contains("DGT clock connected"), "{transcript}");
    let log = run.stderr();
    assert!(!log.contains("drifted from the official clock"), "{log}");
    // Every press was the lever's, and reached the arbiter as Black's press; each one, taken
    // again, has Black's part played after the takeback.
    let presses = lever_presses(&log);
    let read = journal::read(&run.folder().join("journal.jsonl")).unwrap();
    let applied = support::journal::applied(&read);
    let pressed: Vec<(usize, u64)> = applied
        .iter()
        .filter(|a| a.input == InputRecord::ClockPress)
        .map(|a| (a.line, a.t))
        .collect();
    assert_eq!(
        pressed.len(),
        presses.len(),
        "each lever press reached the arbiter as Black's press:\n{log}"
    );
    assert!(presses.len() > 6, "the moves taken back were pressed again");
    let journaled = |record: &dyn Fn(&RulesRecord) -> bool| {
        applied
            .iter()
            .any(|a| matches!(&a.input, InputRecord::Rules { rules } if record(rules)))
    };
    assert!(
        journaled(&|r| matches!(
            r,
            RulesRecord::AdjustClock {
                delta_ms: 120_000,
                ..
            }
        )),
        "the arbiter's two minutes are in the journal"
    );
    assert!(
        journaled(&|r| matches!(r, RulesRecord::Retract { to_ply: 6 })),
        "the takeback is in the journal"
    );
    // Between the changes: every reading the clock sent (once a second) that came 1.5 s or more
    // after a setting (before, it may still show the last one: at the simulation's pace that is
    // the pause and the arbiter's two minutes) within a second of the official clock.
    let offsets: Vec<(i64, i64)> = log
        .lines()
        .filter(|l| l.contains("the DGT clock's reading against the official clock"))
        .map(|l| {
            let field = |name: &str| -> i64 {
                let at = l.find(&format!("{name}=")).unwrap() + name.len() + 1;
                l[at..]
                    .split(|c: char| !c.is_ascii_digit() && c != '-')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            (field("left_ms"), field("right_ms"))
        })
        .collect();
    assert!(offsets.len() >= 3, "a reading each second: {offsets:?}");
    assert!(
        offsets
            .iter()
            .all(|(l, r)| l.abs() <= 1000 && r.abs() <= 1000),
        "{offsets:?}"
    );
    // The official clock at each press: the journal replayed up to it.
    for (n, ((index, t), (left, right))) in pressed.iter().zip(&presses).enumerate() {
        let (white, black) = official_at(&read, *index, *t);
        assert!(
            (*left as i64 - white).abs() <= 1000 && (*right as i64 - black).abs() <= 1000,
            "press {}: the clock showed {left} / {right}, the official clock {white} / {black}",
            n + 1
        );
    }
    run.done();
}

/// Issue 22: a flag that falls is said at once to both players in their voices, written in the
/// transcript, shown on the DGT 3000's display, and ends a standard game (6.9).
#[test]
fn a_fallen_flag_is_said_to_both_players_and_shown_on_the_dgt_clock() {
    let mut run = Run::new("dgt-flag", Color::White, "press", TRAP);
    attach_dgt_clock(&run);
    run.start("press=50", true);
    // White (the blind player) to move with nothing left: the arbiter stops the clocks, sets
    // White's to zero and lets them run.
    let status = run.wait("White to move at ply 4 or later", |s| {
        ply_of(s) >= 4 && s.iter().any(|l| l.contains("white to move"))
    });
    let reply = run.command("pause");
    assert_eq!(reply.last().map(String::as_str), Some("ok"), "{status:?}");
    let status = run.status();
    if !status.iter().any(|l| l.contains("white to move")) {
        // Black's move counted between the look and the pause: wait for White's turn again.
        run.command("resume");
        run.wait("White to move", |s| {
            s.iter().any(|l| l.contains("white to move"))
        });
        run.command("pause");
    }
    for command in ["set-clock white 0:00:00", "resume"] {
        let reply = run.command(command);
        assert_eq!(
            reply.last().map(String::as_str),
            Some("ok"),
            "{command}: {reply:?}"
        );
    }
    let status = run.wait("the flag", |s| result_of(s).is_some());
    assert!(
        result_of(&status).is_some_and(|r| r.starts_with("0-1")),
        "6.9: White loses on time: {status:?}"
    );
    let transcript_path = run.folder().join(TRANSCRIPT_FILE);
    let flag = words(&Announcement::FlagFell { side: Color::White });
    let result = words(&Announcement::Result(ResultWords::BlackWins));
    let heard = wait_until(Duration::from_secs(20), || {
        let text = fs::read_to_string(&transcript_path).unwrap_or_default();
        said(&text, "both", &flag) == 1 && said(&text, "both", &result) == 1
    });
    assert!(heard, "{}", run.transcript());
    let log_has = |needle: &str| run.stderr().contains(needle);
    assert!(
        wait_until(Duration::from_secs(10), || log_has("text=\"Zeit W\"")),
        "the DGT 3000 shows which flag fell:\n{}",
        run.stderr()
    );
    // Both, the flag first: the result said with it does not wipe it before it is read.
    assert!(
        wait_until(Duration::from_secs(10), || {
            let log = run.stderr();
            log.find("text=\"Zeit W\"")
                .is_some_and(|flag| log[flag..].contains("text=\"0-1\""))
        }),
        "the DGT 3000 shows the result after the flag:\n{}",
        run.stderr()
    );
    run.stop();
    run.done();
}

/// The simulated DGT board of `run` with a DGT clock on it whose lever completes the sighted
/// player's move.
fn attach_dgt_clock(run: &Run) {
    let dgt = run.dir.join("fast-dgt.toml");
    let text = fs::read_to_string(&dgt).unwrap();
    assert!(text.contains("attached = false") && text.contains("lever_completes_move = false"));
    fs::write(
        &dgt,
        text.replace("attached = false", "attached = true").replace(
            "lever_completes_move = false",
            "lever_completes_move = true",
        ),
    )
    .unwrap();
}

/// What the physical clock showed at each press of its lever (left, right, in ms), as the
/// simulated player logged it.
fn lever_presses(log: &str) -> Vec<(u64, u64)> {
    log.lines()
        .filter(|l| l.contains("pressed the clock's lever"))
        .map(|l| {
            let field = |name: &str| -> u64 {
                let at = l.find(&format!("{name}=")).unwrap() + name.len() + 1;
                l[at..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            (field("left_ms"), field("right_ms"))
        })
        .collect()
}

/// The official clock (White's and Black's remaining ms) at `t`, just before the journal's
/// entry `index`: the journal replayed up to it.
fn official_at(read: &tactus_core::journal::JournalFile, index: usize, t: u64) -> (i64, i64) {
    let mut before = read.clone();
    before.entries.truncate(index);
    let replayed = support::journal::replayed(&before);
    let clock = replayed.arbiter().game().clock().expect("a clock");
    (
        clock.remaining(Color::White, t),
        clock.remaining(Color::Black, t),
    )
}
