//! Recovery, end to end: `tactus run` (both boards simulated on real pseudo-terminals, the clip
//! speaker on the null PCM where ALSA is installed) killed with SIGKILL twenty times during one
//! game and started again each time, alternately with `--resume FOLDER` and by finding the
//! unfinished game itself.
//!
//! The kill points come from a seeded generator (`TACTUS_KILL_SEED` overrides the seed): after
//! a random delay, right after a piece is lifted on either board (mid-move), or right after the
//! blind player's move announcement reaches the transcript (mid-announcement: the move counts
//! only once its announcement has finished). What each kill hit is read back from the journal
//! and at least one of each kind is required. After every kill:
//! - nothing is lost: the journal's complete lines are kept as they were and the resumed game
//!   has exactly the moves the journal held;
//! - the clocks stand (paused, Art. 6.12) within one second of where they stood at the kill;
//!
//! and at the end the game is finished, its PGN is the source game's, its audio scoresheet is
//! the game's recording byte for byte (appended across the kills), every move was announced, and
//! `tactus replay` gives the same game from the journal alone.
//!
//! The unplugged-board case is in `daemon_games` (it needs the simulated player told when to
//! pull the cable).

use crate::support;

use std::{
    ffi::OsStr,
    fs,
    path::Path,
    process::Command,
    thread,
    time::{Duration, Instant},
};

use shakmaty::{ByColor, Chess, Color, Position};
use support::{
    console::{ask, clocks_of, ply_of, result_of},
    corpus::corpus_game,
    games::{lawful_moves, sans, write_sim_pgn},
    process::{TACTUS, ask_when_up, show, spawn, wait_until},
    record::{
        Tail, both_line, find_move_announcements, game_folder, pack, read_game_file,
        transcript_bodies,
    },
    table::{alsa_null, temp_dir, voices_dir, write_config},
};
use tactus::{
    daemon::{
        files::{PGN_FILE, ScoreFiles, TRANSCRIPT_FILE},
        journal,
    },
    speech::config::SpeechConfig,
    store::{audio::AudioScoresheet, voices},
};
use tactus_core::journal::JOURNAL_FILE;
use tactus_core::{
    announce::{Announcement, Audience, voice::Style},
    board::recognize::Mode,
    record::{
        score::{Score, ScoreMove},
        wav::{self, Spacing},
    },
    rules::pgn::read_pgn,
    sim::Rng,
};

const KILLS: usize = 20;
const SPEED: &str = "20";
const DEFAULT_SEED: u64 = 0x7ac7_0006;
/// Each start must answer the console within this.
const START_LIMIT: Duration = Duration::from_secs(30);
/// A trigger that never comes (the game waiting for something) gives up after this and kills.
const TRIGGER_LIMIT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// After a delay in milliseconds.
    Delay(u64),
    /// This many milliseconds after the next lift on either board is journaled.
    Lift(u64),
    /// As soon as the next announcement to the sighted side (the blind player's move) is in
    /// the transcript.
    Announcement,
}

/// Wait for the trigger (polling every millisecond). Returns whether it came.
fn wait_for(trigger: Trigger, journal: &Path, transcript: &Path) -> bool {
    match trigger {
        Trigger::Delay(ms) => {
            thread::sleep(Duration::from_millis(ms));
            true
        }
        Trigger::Lift(after) => {
            let mut tail = Tail::at_end(journal.to_owned());
            let came = poll(|| tail.new_text().contains("\"lift\""));
            thread::sleep(Duration::from_millis(after));
            came
        }
        Trigger::Announcement => {
            let mut tail = Tail::at_end(transcript.to_owned());
            poll(|| {
                transcript_bodies(&tail.new_text())
                    .iter()
                    .any(|b| b.starts_with("sighted "))
            })
        }
    }
}

fn poll(mut check: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < TRIGGER_LIMIT {
        if check() {
            return true;
        }
        thread::sleep(Duration::from_millis(1));
    }
    false
}

fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Where a journal leaves the game.
struct Stood {
    ply: usize,
    /// Both clocks at the journal's last input, and the side whose clock ran.
    clocks: ByColor<i64>,
    running: Option<Color>,
    paused: bool,
    /// Unix time of the last input.
    last_wall: i64,
    /// A move announcement had been handed to speech and its end was not journaled.
    mid_announcement: bool,
    /// ... and it was the blind player's move, which counts only when it has finished.
    blind_move_pending: bool,
    /// A board showed something between the position it should show and the next one.
    mid_move: bool,
    good_len: u64,
    /// The move announcements cut off, as said.
    unfinished: Vec<String>,
}

fn stood(path: &Path) -> Stood {
    let read = journal::read(path).unwrap();
    let replayed = crate::support::journal::replayed(&read);
    let arbiter = replayed.arbiter();
    let game = arbiter.game();
    let t = replayed.last_time;
    let clock = game.clock().unwrap();
    let last_wall = read
        .entries
        .iter()
        .rev()
        .find_map(|e| match e {
            tactus_core::journal::Entry::Input { wall, .. }
            | tactus_core::journal::Entry::Table { wall, .. } => Some(*wall as i64),
            _ => None,
        })
        .unwrap_or(0);
    let moving = |mode: Mode| !matches!(mode, Mode::Hold);
    let blind_seat = arbiter.config().the_blind().expect("one blind player");
    let blind = arbiter.board(blind_seat).expect("a tactile board");
    let blind_mid = moving(blind.mode()) && blind.occupied() != blind.expected().board().occupied();
    let sighted_mid = arbiter
        .board(!blind_seat)
        .is_some_and(|r| moving(r.mode()) && r.pieces() != r.expected().board());
    let unfinished = replayed.unfinished();
    let moves: Vec<&(Audience, Announcement)> = unfinished
        .values()
        .filter(|(_, a)| matches!(a, Announcement::Move(_)))
        .collect();
    Stood {
        ply: game.ply(),
        clocks: ByColor::new_with(|c| clock.remaining(c, t)),
        running: clock.running(),
        paused: clock.is_paused(),
        last_wall,
        mid_announcement: !moves.is_empty(),
        blind_move_pending: moves
            .iter()
            .any(|(a, _)| *a == Audience::Player(!blind_seat)),
        mid_move: blind_mid || sighted_mid,
        good_len: read.good_len,
        unfinished: moves
            .iter()
            .map(|(audience, announcement)| {
                format!(
                    "to {audience:?}: {}",
                    pack()
                        .render(announcement, tactus_core::announce::voice::Style::San)
                        .text
                )
            })
            .collect(),
    }
}

/// What one kill hit, printed after the game (every field, hence the hand-written `Debug`: a
/// derived one does not count as reading them).
struct Kill {
    trigger: Trigger,
    ply: usize,
    mid_move: bool,
    mid_announcement: bool,
    blind_move_pending: bool,
    /// Resumed minus at the kill, per side, in ms.
    clock_diff: (i64, i64),
    unfinished: Vec<String>,
}

impl std::fmt::Debug for Kill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kill")
            .field("trigger", &self.trigger)
            .field("ply", &self.ply)
            .field("mid_move", &self.mid_move)
            .field("mid_announcement", &self.mid_announcement)
            .field("blind_move_pending", &self.blind_move_pending)
            .field("clock_diff", &self.clock_diff)
            .field("unfinished", &self.unfinished)
            .finish()
    }
}

#[test]
fn a_game_killed_twenty_times_is_resumed_each_time_and_finished() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let seed = std::env::var("TACTUS_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let mut rng = Rng::new(seed);
    let dir = temp_dir("recovery");
    // Fawaz - Wadih 2025 (80 plies: O-O, O-O-O, e.p., mate); the blind player has Black and
    // mates.
    let blind = Color::Black;
    let source = corpus_game(&data, "twic1599-selected.pgn", 5);
    let (moves, end) = lawful_moves(&source.moves);
    assert_eq!(moves.len(), 80);
    assert!(end.is_some());
    let sim_pgn = dir.join("source.pgn");
    write_sim_pgn(&sim_pgn, &moves);
    let alsa = alsa_null(&dir);
    let config = write_config(&dir, blind, if alsa.is_some() { "clips" } else { "none" });
    let config = config.to_str().unwrap().to_string();
    let env: Vec<(&str, &OsStr)> = alsa
        .as_deref()
        .map(|p| vec![("ALSA_CONFIG_PATH", p.as_os_str())])
        .unwrap_or_default();
    let socket = dir.join("console.sock");
    let base = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["run", "--config", &config]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(
            ["--sim-pgn", sim_pgn.to_str().unwrap(), "--sim-speed", SPEED]
                .iter()
                .map(|s| s.to_string()),
        );
        args
    };
    let start = |args: Vec<String>, log: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        spawn(&args, &dir, log, &env)
    };

    let mut log = "run0".to_string();
    let mut guard = start(base(&["--new"]), &log);
    // The first kill comes once the game is under way.
    let t = Instant::now();
    while ply_of(&ask_when_up(
        &socket,
        "status",
        &mut guard,
        &dir,
        &log,
        START_LIMIT,
    )) < 2
    {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the game never got going\n{}",
            show(&dir, &log)
        );
        thread::sleep(Duration::from_millis(20));
    }
    let folder = game_folder(&dir.join("played"));
    let journal_path = folder.join(JOURNAL_FILE);
    let transcript_path = folder.join(TRANSCRIPT_FILE);
    let mut kills: Vec<Kill> = Vec::new();
    let recovered = both_line(&Announcement::GameRecovered);
    let resumed = both_line(&Announcement::ClocksResumed);
    for n in 0..KILLS {
        let trigger = match rng.below(3) {
            0 => Trigger::Delay(rng.below(1200)),
            1 => Trigger::Lift(rng.below(30)),
            _ => Trigger::Announcement,
        };
        let came = wait_for(trigger, &journal_path, &transcript_path);
        assert!(
            guard.child().try_wait().unwrap().is_none(),
            "kill {n}: tactus ended by itself\n{}",
            show(&dir, &log)
        );
        let killed_at = unix_ms();
        guard.sigkill();
        let before = stood(&journal_path);
        assert!(
            before.ply < moves.len(),
            "kill {n}: the game was over before twenty kills (ply {})",
            before.ply
        );
        let old_journal = fs::read(&journal_path).unwrap();
        // Where the clocks stood at the kill: the running one went on since the last input.
        let at_kill = ByColor::new_with(|c| {
            let ran = if before.running == Some(c) && !before.paused {
                killed_at - before.last_wall
            } else {
                0
            };
            *before.clocks.get(c) - ran
        });

        log = format!("run{}", n + 1);
        let folder_arg = folder.to_str().unwrap().to_string();
        guard = if n % 2 == 0 {
            start(base(&["--resume", &folder_arg]), &log)
        } else {
            start(base(&[]), &log)
        };
        let status = ask_when_up(&socket, "status", &mut guard, &dir, &log, START_LIMIT);
        let out = fs::read_to_string(dir.join(format!("{log}.out"))).unwrap_or_default();
        assert!(out.contains("(resumed)"), "kill {n}: {out}");
        // Nothing lost: the complete lines are kept, and the game has exactly their moves.
        let new_journal = fs::read(&journal_path).unwrap();
        let kept = before.good_len as usize;
        assert_eq!(
            &new_journal[..kept],
            &old_journal[..kept],
            "kill {n}: the journal's lines before the kill changed"
        );
        assert_eq!(ply_of(&status), before.ply, "kill {n}: {status:?}");
        assert!(
            status.iter().any(|l| l.contains("(paused)")),
            "kill {n}: clocks must wait for `resume`: {status:?}"
        );
        // The clocks stand where they stood (the recovered game's journal, paused).
        let after = stood(&journal_path);
        assert!(after.paused, "kill {n}");
        assert_eq!(after.ply, before.ply);
        let diff = (
            after.clocks.white - at_kill.white,
            after.clocks.black - at_kill.black,
        );
        assert!(
            diff.0.abs() <= 1000 && diff.1.abs() <= 1000,
            "kill {n} ({trigger:?}): clocks at the kill {at_kill:?}, resumed {:?}",
            after.clocks
        );
        let shown = clocks_of(&status);
        assert!(
            (shown.0 - after.clocks.white / 1000).abs() <= 1
                && (shown.1 - after.clocks.black / 1000).abs() <= 1,
            "kill {n}: status {shown:?}, journal {:?}",
            after.clocks
        );
        kills.push(Kill {
            trigger: if came {
                trigger
            } else {
                Trigger::Delay(TRIGGER_LIMIT.as_millis() as u64)
            },
            ply: before.ply,
            mid_move: before.mid_move,
            mid_announcement: before.mid_announcement,
            blind_move_pending: before.blind_move_pending,
            clock_diff: diff,
            unfinished: before.unfinished.clone(),
        });
        let reply = ask(&socket, "resume").unwrap();
        assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
        // Both players are told the game was recovered and the clocks run again (waited for,
        // so that the next kill never lands before speech has started).
        let told = wait_until(Duration::from_secs(10), || {
            let text = fs::read_to_string(&transcript_path).unwrap_or_default();
            let bodies = transcript_bodies(&text);
            [&recovered, &resumed]
                .iter()
                .all(|line| bodies.iter().filter(|b| **b == **line).count() == n + 1)
        });
        assert!(
            told,
            "kill {n}: the players were not told\n{}",
            show(&dir, &log)
        );
    }

    // The game goes on to its end.
    let t = Instant::now();
    let over = loop {
        let status = ask_when_up(&socket, "status", &mut guard, &dir, &log, START_LIMIT);
        if result_of(&status).is_some() {
            break status;
        }
        assert!(
            t.elapsed() < Duration::from_secs(180),
            "the game did not end: {status:?}\n{}",
            show(&dir, &log)
        );
        thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(ply_of(&over), moves.len(), "{over:?}");
    let all_said = wait_until(Duration::from_secs(20), || {
        let text = fs::read_to_string(&transcript_path).unwrap_or_default();
        find_move_announcements(&transcript_bodies(&text), &moves, blind).is_ok()
    });
    guard.signal("-TERM");
    let status = guard.wait_limit(Duration::from_secs(20));
    assert!(status.success(), "SIGTERM: {status}\n{}", show(&dir, &log));

    for (n, k) in kills.iter().enumerate() {
        eprintln!("kill {n:>2}: {k:?}");
    }
    let mid_move = kills.iter().filter(|k| k.mid_move).count();
    let mid_announcement = kills.iter().filter(|k| k.mid_announcement).count();
    let blind_pending = kills.iter().filter(|k| k.blind_move_pending).count();
    let worst = kills
        .iter()
        .map(|k| k.clock_diff.0.abs().max(k.clock_diff.1.abs()))
        .max()
        .unwrap_or(0);
    eprintln!(
        "seed {seed:#x}: {} kills, {mid_move} mid-move, {mid_announcement} mid-announcement \
         ({blind_pending} with the blind player's move waiting for its announcement); clocks \
         resumed within {worst} ms of where they stood",
        kills.len()
    );
    assert_eq!(kills.len(), KILLS);
    assert!(
        mid_move >= 1,
        "no kill landed in the middle of a move: {kills:?}"
    );
    assert!(
        blind_pending >= 1,
        "no kill landed between a blind move's placement and the end of its announcement: \
         {kills:?}"
    );

    // The record is complete and correct.
    let pgn = read_game_file(&folder.join(PGN_FILE));
    assert_eq!(
        sans(&Chess::default(), &pgn.moves),
        sans(&Chess::default(), &moves)
    );
    assert_eq!(pgn.tag("Result"), Some("0-1"));
    // The blind player's audio scoresheet, appended move by move through twenty kills (any of
    // which may land in the middle of an append) and resumed each time, is exactly the game's
    // recording made at once (issue 25, point 6).
    let (wav_path, fresh) = (
        folder.join(ScoreFiles::of(None).wav()),
        dir.join("fresh.wav"),
    );
    let (pack, clips) = voices::load(&voices_dir(), "de-fide").unwrap();
    let speech = SpeechConfig::default();
    // The game was won 0-1: the recording ends with the result (issue 37, point 10).
    let mut score = score_of(&moves);
    score.result = "0-1".into();
    AudioScoresheet::record(
        &fresh,
        &wav::scoresheet(&score, &pack, Style::San),
        Spacing {
            gap_ms: speech.gap_ms,
            pause_ms: speech.pause_ms,
        },
        wav::BETWEEN_ANNOUNCEMENTS_MS,
        clips.loader(),
    )
    .unwrap();
    let cues = |wav: &Path| fs::read_to_string(AudioScoresheet::cue_path_for(wav)).unwrap();
    assert_eq!(
        cues(&wav_path),
        cues(&fresh),
        "the audio scoresheet's cue list"
    );
    assert!(
        fs::read(&wav_path).unwrap() == fs::read(&fresh).unwrap(),
        "the audio scoresheet is not the game's recording"
    );
    let transcript = fs::read_to_string(&transcript_path).unwrap();
    assert!(all_said, "a move announcement is missing:\n{transcript}");
    // Each recovery is told, pauses the clocks and each `resume` restarts them, once: notices
    // cut off by a kill are not said again after the next one (they would pile up before the
    // next move).
    for notice in [
        Announcement::GameRecovered,
        Announcement::ClocksPaused,
        Announcement::ClocksResumed,
    ] {
        let line = both_line(&notice);
        let said = transcript_bodies(&transcript)
            .iter()
            .filter(|b| **b == line)
            .count();
        assert_eq!(
            said, KILLS,
            "'{line}' said {said} times for {KILLS} recoveries"
        );
    }

    // The journal alone gives the same game.
    let out = Command::new(TACTUS)
        .args(["replay", journal_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let pgn_start = text.find("[Event").expect("the replay prints the PGN");
    let replayed = read_pgn(text[pgn_start..].as_bytes()).unwrap();
    assert_eq!(replayed[0].moves, moves);
    fs::remove_dir_all(&dir).unwrap();
}

/// The scoresheet of `moves` from the initial position.
fn score_of(moves: &[shakmaty::Move]) -> Score {
    let mut score = Score::new(Chess::default());
    score.moves.extend(moves.iter().map(|&mv| ScoreMove {
        mv,
        clock_ms: None,
        draw_offer: false,
    }));
    score
}

/// The journal a tactus of format 2 wrote (`tests/fixtures/journal-format-2`, see its README):
/// a tactus of today replays it to the same game and clocks (its PGN, byte for byte), the same
/// transcript (`tactus replay` prints what that tactus printed), and the requests as the
/// arbiter left them switched (12.3 a: material off, pieces off, material on).
#[test]
fn a_journal_of_format_2_replays_to_the_same_game_clocks_transcript_and_switches() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/journal-format-2");
    let journal = fixture.join("journal.jsonl");
    let out = Command::new(TACTUS)
        .args(["replay", journal.to_str().unwrap()])
        .args([
            "--voices-dir",
            concat!(env!("CARGO_MANIFEST_DIR"), "/voices"),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    let expected = fs::read_to_string(fixture.join("replay.txt")).unwrap();
    assert_eq!(
        printed, expected,
        "tactus replay prints what format 2's printed"
    );
    let read = journal::read(&journal).unwrap();
    assert_eq!(read.header.version, 2);
    let replayed = support::journal::replayed(&read);
    assert!(replayed.skipped.is_empty(), "{:?}", replayed.skipped);
    let pgn = replayed.table.game().to_pgn(&read.header.tags);
    let recorded = fs::read_to_string(fixture.join("game.pgn")).unwrap();
    assert_eq!(
        pgn.trim_end(),
        recorded.trim_end(),
        "the game and its clocks"
    );
    assert_eq!(
        replayed.requests_off(),
        &std::collections::BTreeSet::from([tactus_core::console::Switchable::Pieces])
    );
}

/// A game of format 2 taken up by a tactus of today: its journal is continued in place, what
/// the table receives from then on is journaled as format 3 writes it, and the whole journal
/// replays, its old lines as they were and its new ones as the table's.
#[test]
fn a_journal_of_format_2_is_continued_in_place_and_replays_whole() {
    use tactus::daemon::journal::Journal;
    use tactus_core::{
        console::{Command as ConsoleCommand, Request, Role},
        journal::Entry,
        table::TableInput,
    };
    let dir = temp_dir("format-2");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/journal-format-2");
    // The game as it stood before its last half-move was agreed drawn: its end line and the
    // draw's acceptance left out, the rest byte for byte.
    let text = fs::read_to_string(fixture.join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let unfinished = lines[..lines.len() - 2].join("\n") + "\n";
    let path = dir.join(JOURNAL_FILE);
    fs::write(&path, &unfinished).unwrap();
    let read = journal::read(&path).unwrap();
    assert!(!read.is_finished());
    let before = support::journal::replayed(&read);
    let mut continued = Journal::append_to(&read).unwrap();
    let t = read.last_time() + 1_000;
    let count = TableInput::Console {
        conn: 1,
        role: Role::Player,
        seat: None,
        command: ConsoleCommand::Request(Request::MovesCompleted),
    };
    continued.table(t, &count).unwrap();
    let resign = TableInput::Console {
        conn: 2,
        role: Role::Assistant,
        seat: None,
        command: tactus_core::console::parse("resign white", Role::Assistant).unwrap(),
    };
    continued.table(t + 1_000, &resign).unwrap();
    drop(continued);
    let read = journal::read(&path).unwrap();
    assert_eq!(read.header.version, 2, "the header is the game's own");
    let kinds: Vec<&str> = read
        .entries
        .iter()
        .rev()
        .take(2)
        .map(|e| match e {
            Entry::Table { .. } => "table",
            Entry::Input { .. } => "input",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["table", "table"]);
    let after = support::journal::replayed(&read);
    assert!(after.skipped.is_empty(), "{:?}", after.skipped);
    assert_eq!(
        after.table.game().moves().len(),
        before.table.game().moves().len()
    );
    assert!(
        after.table.game().end().is_some(),
        "the resignation counted"
    );
    let asked = support::journal::requests(&read);
    assert_eq!(asked.last().map(|r| r.asked.as_str()), Some("count"));
    fs::remove_dir_all(&dir).unwrap();
}
