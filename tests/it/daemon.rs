//! The daemon end to end, through the real binary: simulated boards on real pseudo-terminals,
//! speech (degrading to the transcript where there is no sound card), the journal, the console
//! socket and the game folder.
//!
//! - `tactus demo` plays the Appendix E game and exits 0 with every file, the right PGN, every
//!   move announcement in the transcript and the mis-executed move's guidance.
//! - `tactus run` killed with SIGKILL at several points of a game and resumed (clocks paused until
//!   `resume`) finishes with the complete PGN, clocks within a second or two of where they stood.
//! - `tactus replay` prints the transcript and the PGN from a journal alone.
//! - The console answers `status`, `help` and a bad command over its 0600 socket; SIGTERM removes
//!   the socket and exits 0.

use std::{
    fs,
    io::{BufReader, Write},
    os::unix::{fs::PermissionsExt, net::UnixStream},
    path::{Path, PathBuf},
    process::Command,
    thread,
    time::{Duration, Instant},
};

use crate::support;

use shakmaty::{Chess, Color, Piece, Position, Role, Square};
use support::{
    console::{ask, clocks_of, ply_of, read_reply},
    process::{Guard, TACTUS, ask_when_up, show, spawn, wait_until},
    record::{Tail, game_folder},
    table::{fast_profiles, temp_dir},
};
use tactus::daemon::files;
use tactus_core::sim::appendix_e as demo;
use tactus_core::{
    announce::{Announcement, Guidance, MoveWords, voice::Style, voice::VoicePack},
    journal::JOURNAL_FILE,
    rules::{notation::san, pgn::read_pgn},
};

/// Each run must end well within this; a hang fails the test with the output so far.
const RUN_LIMIT: Duration = Duration::from_secs(60);

fn sans_of(moves: Vec<shakmaty::Move>) -> Vec<String> {
    let mut pos = Chess::default();
    moves
        .into_iter()
        .map(|m| {
            let s = san(&pos, m);
            pos.play_unchecked(m);
            s
        })
        .collect()
}

fn appendix_e_sans() -> Vec<String> {
    sans_of(demo::appendix_e_moves())
}

/// The demo's game: Appendix E and its ending, 17...Qc7 with a draw offer.
fn demo_sans() -> Vec<String> {
    sans_of(demo::demo_moves())
}

/// Issue 26, point 9 c: the demo ends with a result. The last move (17...Qc7) is said to the
/// player who did not make it, then, after it, the draw offered with it (9.1 b); then both hear
/// the draw accepted and the result. `to` is that player's transcript name.
fn assert_the_demo_ends_in_a_draw(transcript: &str, pack: &VoicePack, to: &str) {
    let moves = demo::demo_moves();
    let mut before = Chess::default();
    for &m in &moves[..moves.len() - 1] {
        before.play_unchecked(m);
    }
    let last = moves[moves.len() - 1];
    let text = |a: &Announcement| pack.render(a, Style::San).text;
    let to_him: Vec<&str> = transcript
        .lines()
        .filter_map(|l| l.split_once(&format!(" {to} ")).map(|(_, said)| said))
        .collect();
    let qc7 = text(&Announcement::Move(MoveWords::new(&before, last)));
    let at = to_him
        .iter()
        .rposition(|l| *l == qc7)
        .unwrap_or_else(|| panic!("'{qc7}' not said to {to}:\n{transcript}"));
    assert_eq!(
        to_him.get(at + 1).copied(),
        Some(
            text(&Announcement::DrawOffered {
                by: shakmaty::Color::Black
            })
            .as_str()
        ),
        "the offer right after the move it goes with:\n{transcript}"
    );
    for end in [
        Announcement::DrawAccepted,
        Announcement::Result(tactus_core::announce::ResultWords::Draw),
    ] {
        let wanted = format!(" both {}", text(&end));
        assert!(
            transcript.lines().any(|l| l.ends_with(&wanted)),
            "'{wanted}' missing:\n{transcript}"
        );
    }
}

fn pgn_sans(path: &Path) -> Vec<String> {
    let bytes = fs::read(path).unwrap();
    let game = read_pgn(&bytes).unwrap().into_iter().next().unwrap();
    let mut pos = game.start.clone();
    game.moves
        .iter()
        .map(|&m| {
            let s = san(&pos, m);
            pos.play_unchecked(m);
            s
        })
        .collect()
}

#[test]
fn the_demo_plays_appendix_e_with_every_file_and_exits_0() {
    let dir = temp_dir("demo");
    let out_dir = dir.join("out");
    let mut guard = spawn(
        &["demo", "--speed", "50", "--dir", out_dir.to_str().unwrap()],
        &dir,
        "demo",
        &[],
    );
    let status = guard.wait_limit(RUN_LIMIT);
    assert!(
        status.success(),
        "demo failed: {status}\n{}",
        show(&dir, "demo")
    );

    let folder = game_folder(&out_dir);
    for name in files::all_files() {
        let path = folder.join(&name);
        let len = fs::metadata(&path)
            .unwrap_or_else(|_| panic!("{name} missing\n{}", show(&dir, "demo")))
            .len();
        assert!(len > 0, "{name} is empty");
    }
    assert_eq!(pgn_sans(&folder.join(files::PGN_FILE)), demo_sans());
    let pgn = fs::read_to_string(folder.join(files::PGN_FILE)).unwrap();
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");

    // Every move, worded by the pack, to the player who did not make it, in order: White (the
    // blind player) is announced to the sighted side, Black to the blind player.
    let transcript = fs::read_to_string(folder.join(files::TRANSCRIPT_FILE)).unwrap();
    let pack = VoicePack::builtin("de-fide").unwrap();
    assert_the_demo_ends_in_a_draw(&transcript, &pack, "blind");
    // His Braille score is headed in German, the language he hears, and written in the
    // German Braille chess notation (his voice is German, no profile is set).
    let brf = fs::read_to_string(folder.join(files::BRF_FILE)).unwrap();
    assert!(
        brf.contains("TURNIER3") && brf.contains("SCHWARZ3") && !brf.contains("EVENT3"),
        "{brf}"
    );
    let read = |profile: &str| {
        tactus_core::record::braille::read_score(
            brf.as_bytes(),
            tactus_core::record::braille::BrailleFormat::Brf,
            &tactus_core::record::braille::Profile::named(profile).unwrap(),
            Chess::default(),
        )
        .map(|score| score.moves.iter().map(|m| m.mv).collect::<Vec<_>>())
    };
    assert_eq!(
        read("de").unwrap(),
        demo::demo_moves(),
        "German Braille chess notation"
    );
    assert!(
        read("ukaaf").map_or(true, |moves| moves != demo::demo_moves()),
        "not the English one"
    );
    let mut pos = Chess::default();
    let mut lines = transcript.lines();
    for m in demo::demo_moves() {
        let text = pack
            .render(&Announcement::Move(MoveWords::new(&pos, m)), Style::San)
            .text;
        let audience = if pos.turn() == Color::White {
            "sighted"
        } else {
            "blind"
        };
        let wanted = format!(" {audience} {text}");
        assert!(
            lines.any(|l| l.ends_with(&wanted)),
            "'{wanted}' missing (or out of order) in the transcript:\n{transcript}"
        );
        pos.play_unchecked(m);
    }
    // 3...Bb4 was first put on a wrong square and the blind player was told where it belongs.
    let belongs = pack
        .render(
            &Announcement::Guidance(Guidance::Misplaced {
                piece: Piece {
                    color: Color::Black,
                    role: Role::Bishop,
                },
                found: Square::A4,
                belongs: Square::B4,
            }),
            Style::San,
        )
        .text;
    let tail = belongs.split(',').next_back().unwrap().trim().to_string();
    assert!(
        transcript
            .lines()
            .any(|l| l.contains(" blind ") && l.contains(&tail)),
        "no guidance '{tail}' in the transcript:\n{transcript}"
    );
    let touches = fs::read_to_string(folder.join(files::TOUCHES_FILE)).unwrap();
    assert!(
        touches.contains("tactile") && touches.contains("sighted"),
        "{touches}"
    );
    let out = fs::read_to_string(dir.join("demo.out")).unwrap();
    assert!(out.contains("17. a5") && out.contains("17... Qc7"), "{out}");
    assert!(out.contains("1/2-1/2"), "{out}");
    // The demo's console socket is gone.
    assert!(!out_dir.join("console.sock").exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 26, point 9 c: the demo speaks the pack asked for, and the blind player's Braille
/// score is headed in its language.
#[test]
fn the_demo_speaks_the_voice_asked_for() {
    let dir = temp_dir("demo-es");
    let out_dir = dir.join("out");
    let mut guard = spawn(
        &[
            "demo",
            "--voice",
            "es-fide",
            "--speed",
            "50",
            "--dir",
            out_dir.to_str().unwrap(),
        ],
        &dir,
        "demo",
        &[],
    );
    let status = guard.wait_limit(RUN_LIMIT);
    assert!(
        status.success(),
        "demo failed: {status}\n{}",
        show(&dir, "demo")
    );
    let folder = game_folder(&out_dir);
    let transcript = fs::read_to_string(folder.join(files::TRANSCRIPT_FILE)).unwrap();
    let pack = VoicePack::builtin("es-fide").unwrap();
    let first = pack
        .render(
            &Announcement::Move(MoveWords::new(&Chess::default(), demo::demo_moves()[0])),
            Style::San,
        )
        .text;
    assert!(
        transcript
            .lines()
            .any(|l| l.ends_with(&format!(" sighted {first}"))),
        "'{first}' not said:\n{transcript}"
    );
    assert_the_demo_ends_in_a_draw(&transcript, &pack, "blind");
    let brf = fs::read_to_string(folder.join(files::BRF_FILE)).unwrap();
    assert!(
        brf.contains(",TORNEO3") && brf.contains(",BLANCAS3"),
        "{brf}"
    );
    // A pack that does not exist is refused before anything is played.
    let out = Command::new(TACTUS)
        .args(["demo", "--voice", "xx-nope", "--dir"])
        .arg(dir.join("nope"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("xx-nope"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 23: the demo at an IBCA table: two blind players on two simulated tactile boards, each
/// with his own Braille and audio scoresheet, each hearing the other's moves and his own said
/// back, each asking the time with a button of his board and hearing the answer alone.
#[test]
fn the_demo_plays_at_a_table_of_two_blind_players() {
    let dir = temp_dir("demo-blind-blind");
    let out_dir = dir.join("out");
    let mut guard = spawn(
        &[
            "demo",
            "--table",
            "blind-blind",
            "--voice",
            "en",
            "--speed",
            "50",
            "--dir",
            out_dir.to_str().unwrap(),
        ],
        &dir,
        "demo",
        &[],
    );
    let status = guard.wait_limit(RUN_LIMIT);
    assert!(
        status.success(),
        "demo failed: {status}\n{}",
        show(&dir, "demo")
    );
    let folder = game_folder(&out_dir);
    let both = shakmaty::ByColor::new_with(|_| true);
    for name in files::all_files_at(both) {
        let path = folder.join(&name);
        let len = fs::metadata(&path)
            .unwrap_or_else(|_| panic!("{name} missing\n{}", show(&dir, "demo")))
            .len();
        assert!(len > 0, "{name} is empty");
    }
    for name in [
        "blind-score-white.brf",
        "blind-score-black.brf",
        "blind-score-white.wav",
    ] {
        assert!(
            files::all_files_at(both).contains(&name.to_string()),
            "{name}"
        );
    }
    assert!(!folder.join(files::BRF_FILE).exists());
    assert_eq!(pgn_sans(&folder.join(files::PGN_FILE)), demo_sans());
    // Every move to the player who did not make it and back to its mover, in order, in the
    // voice asked for (`--voice en`).
    let transcript = fs::read_to_string(folder.join(files::TRANSCRIPT_FILE)).unwrap();
    let pack = VoicePack::builtin("en").unwrap();
    assert_the_demo_ends_in_a_draw(&transcript, &pack, "white");
    for seat in ["white", "black"] {
        let brf = fs::read_to_string(folder.join(format!("blind-score-{seat}.brf"))).unwrap();
        assert!(brf.contains(",EVENT3") && brf.contains(",ROUND3"), "{brf}");
    }
    let mut pos = Chess::default();
    let mut lines = transcript.lines();
    for m in demo::demo_moves() {
        let words = MoveWords::new(&pos, m);
        let mover = pos.turn();
        for (audience, announcement) in [
            (!mover, Announcement::Move(words)),
            (mover, Announcement::OwnMove(words)),
        ] {
            let wanted = format!(
                " {audience} {}",
                pack.render(&announcement, Style::San).text
            );
            assert!(
                transcript.lines().any(|l| l.ends_with(&wanted)),
                "'{wanted}' missing in the transcript:\n{transcript}"
            );
        }
        let wanted = format!(
            " {} {}",
            !mover,
            pack.render(&Announcement::Move(MoveWords::new(&pos, m)), Style::San)
                .text
        );
        assert!(
            lines.any(|l| l.ends_with(&wanted)),
            "'{wanted}' out of order in the transcript:\n{transcript}"
        );
        pos.play_unchecked(m);
    }
    // Each asked the time with a button of his board, and only he heard the answer.
    for seat in [Color::White, Color::Black] {
        let note = format!("by button 1 of the tactile board ({seat}), said to {seat}: ");
        let line = transcript
            .lines()
            .find(|l| l.contains(&note))
            .unwrap_or_else(|| panic!("no request of {seat}'s:\n{transcript}"));
        let answer = line.split_once(&note).unwrap().1;
        assert!(
            transcript
                .lines()
                .any(|l| l.ends_with(&format!(" {seat} {answer}"))),
            "{transcript}"
        );
        assert!(
            !transcript
                .lines()
                .any(|l| l.ends_with(&format!(" {} {answer}", !seat))),
            "{seat}'s answer said to the other:\n{transcript}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

fn run_config(dir: &Path) -> PathBuf {
    let (pegged, dgt) = fast_profiles(dir);
    let config = format!(
        "[game]\nwhite = \"Blind\"\nblack = \"Sighted\"\nblind = \"white\"\ntime_control = \"5400+30\"\n\
         [boards.blind]\nprofile = \"{pegged}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"{dgt}\"\nport = \"sim\"\ncompletion = \"settle\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"none\"\n\
         [record]\ndir = \"played\"\n[console]\nsocket = \"console.sock\"\ntoken_file = \"arbiter.token\"\n"
    );
    let path = dir.join("config.toml");
    fs::write(&path, config).unwrap();
    path
}

/// Poll `status` until the game has `ply` half-moves.
fn wait_for_ply(
    socket: &Path,
    ply: usize,
    guard: &mut Guard,
    dir: &Path,
    log: &str,
) -> Vec<String> {
    let t = Instant::now();
    loop {
        let status = ask_when_up(socket, "status", guard, dir, log, RUN_LIMIT);
        if ply_of(&status) >= ply {
            return status;
        }
        assert!(
            t.elapsed() < RUN_LIMIT,
            "stuck before ply {ply}: {status:?}\n{}",
            show(dir, log)
        );
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_game_killed_at_several_points_is_resumed_and_finished() {
    let dir = temp_dir("kill");
    let config = run_config(&dir);
    let config = config.to_str().unwrap();
    let socket = dir.join("console.sock");
    let speed = "30";
    // Kill points: after these many half-moves, and then (when `true`) inside the next move: as
    // soon as its first lift is in the journal, not a fixed time after the ply that a loaded
    // machine may turn into "between moves".
    let kills: [(usize, bool); 4] = [(3, false), (9, true), (16, true), (24, true)];

    let mut log = "run0".to_string();
    let mut guard = spawn(
        &["run", "--config", config, "--new", "--sim-speed", speed],
        &dir,
        &log,
        &[],
    );
    let mut folder: Option<PathBuf> = None;
    for (n, &(ply, mid_move)) in kills.iter().enumerate() {
        let status = wait_for_ply(&socket, ply, &mut guard, &dir, &log);
        let f = folder
            .get_or_insert_with(|| game_folder(&dir.join("played")))
            .clone();
        if mid_move {
            let mut journal = Tail::at_end(f.join(JOURNAL_FILE));
            let lifted = wait_until(RUN_LIMIT, || journal.new_text().contains("\"lift\""));
            assert!(lifted, "no lift after ply {ply}\n{}", show(&dir, &log));
        }
        let before = clocks_of(&status);
        guard.sigkill();
        // Resume: by folder, or (every other time) by finding the unfinished game.
        log = format!("run{}", n + 1);
        let args: Vec<&str> = if n % 2 == 0 {
            vec![
                "run",
                "--config",
                config,
                "--resume",
                f.to_str().unwrap(),
                "--sim-speed",
                speed,
            ]
        } else {
            vec!["run", "--config", config, "--sim-speed", speed]
        };
        guard = spawn(&args, &dir, &log, &[]);
        let status = ask_when_up(&socket, "status", &mut guard, &dir, &log, RUN_LIMIT);
        assert!(
            ply_of(&status) + 1 >= ply,
            "{status:?} after a kill at ply {ply}"
        );
        if ply_of(&status) > 0 {
            assert!(
                status.iter().any(|l| l.contains("(paused)")),
                "clocks must be paused after a recovery: {status:?}"
            );
            let after = clocks_of(&status);
            assert!(
                (after.0 - before.0).abs() <= 2 && (after.1 - before.1).abs() <= 2,
                "clocks before the kill {before:?}, after the recovery {after:?}"
            );
        }
        let reply = ask_when_up(&socket, "resume", &mut guard, &dir, &log, RUN_LIMIT);
        assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
        let out = fs::read_to_string(dir.join(format!("{log}.out"))).unwrap_or_default();
        assert!(out.contains("(resumed)"), "{out}");
    }
    wait_for_ply(&socket, 33, &mut guard, &dir, &log);
    guard.signal("-TERM");
    let status = guard.wait_limit(Duration::from_secs(10));
    assert!(status.success(), "SIGTERM: {status}\n{}", show(&dir, &log));
    assert!(
        !socket.exists(),
        "the socket must be removed on the way out"
    );
    let folder = folder.unwrap();
    assert_eq!(pgn_sans(&folder.join(files::PGN_FILE)), appendix_e_sans());
    let transcript = fs::read_to_string(folder.join(files::TRANSCRIPT_FILE)).unwrap();
    assert!(
        transcript.contains("wiederhergestellt") || transcript.contains("recovered"),
        "the players must be told the game was recovered:\n{transcript}"
    );

    // The journal alone gives the same game.
    let out = Command::new(TACTUS)
        .args(["replay", folder.join("journal.jsonl").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("17. a5"), "{text}");
    assert!(text.contains(" sighted Bauer David vier"), "{text}");
    let pgn_start = text.find("[Event").unwrap();
    fs::write(dir.join("replayed.pgn"), &text[pgn_start..]).unwrap();
    assert_eq!(pgn_sans(&dir.join("replayed.pgn")), appendix_e_sans());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_console_answers_over_a_private_socket() {
    let dir = temp_dir("console");
    let config = run_config(&dir);
    let socket = dir.join("console.sock");
    // Slow simulated players: the game barely moves while the console is tried.
    let mut guard = spawn(
        &[
            "run",
            "--config",
            config.to_str().unwrap(),
            "--new",
            "--sim-speed",
            "0.2",
        ],
        &dir,
        "run",
        &[],
    );
    let status = ask_when_up(&socket, "status", &mut guard, &dir, "run", RUN_LIMIT);
    assert!(
        status.iter().any(|l| l.starts_with("position ")),
        "{status:?}"
    );
    assert!(
        status.iter().any(|l| l.contains("white to move")),
        "{status:?}"
    );
    assert!(
        status.iter().any(|l| l.starts_with("clocks white 1:")),
        "{status:?}"
    );
    let mode = fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "socket mode {mode:o}");

    let reply = ask(&socket, "stauts").unwrap();
    assert_eq!(reply.len(), 1, "{reply:?}");
    assert!(
        reply[0].starts_with("error: unknown command 'stauts'") && reply[0].contains("'status'"),
        "{reply:?}"
    );
    // A new connection is the assistant's: his commands are listed, not the arbiter's.
    let reply = ask(&socket, "help").unwrap();
    assert!(reply.iter().any(|l| l.starts_with("press")), "{reply:?}");
    assert!(
        !reply.iter().any(|l| l.starts_with("confirm-clocks")),
        "{reply:?}"
    );
    // White (the blind player) moves on his board; the console cannot enter his move.
    let reply = ask(&socket, "move e4").unwrap();
    assert!(
        reply.last().unwrap().starts_with("error:")
            && reply
                .last()
                .unwrap()
                .contains("not the sighted player's move"),
        "{reply:?}"
    );
    // Pause once the game has started (both boards read).
    let t = Instant::now();
    while ask(&socket, "status")
        .unwrap()
        .iter()
        .any(|l| l.contains("not started"))
    {
        assert!(
            t.elapsed() < RUN_LIMIT,
            "the game never started\n{}",
            show(&dir, "run")
        );
        thread::sleep(Duration::from_millis(20));
    }
    let reply = ask(&socket, "pause").unwrap();
    assert_eq!(reply.last().unwrap(), "ok", "{reply:?}");
    let status = ask(&socket, "status").unwrap();
    assert!(status.iter().any(|l| l.contains("(paused)")), "{status:?}");
    // A line far too long is refused, and the connection still works.
    let mut stream = UnixStream::connect(&socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut long = vec![b'x'; 10_000];
    long.extend(b"\nstatus\n");
    stream.write_all(&long).unwrap();
    let mut reader = BufReader::new(stream);
    let refused = read_reply(&mut reader).unwrap();
    assert!(
        refused.len() == 1 && refused[0].starts_with("error: the line is longer than the 4096"),
        "{refused:?}"
    );
    let status = read_reply(&mut reader).unwrap();
    assert!(status[0].starts_with("position "), "{status:?}");

    guard.signal("-INT");
    let status = guard.wait_limit(Duration::from_secs(10));
    assert!(status.success(), "SIGINT: {status}\n{}", show(&dir, "run"));
    assert!(!socket.exists());
    let folder = game_folder(&dir.join("played"));
    let journal = fs::read_to_string(folder.join("journal.jsonl")).unwrap();
    assert!(
        journal.contains("\"pause\""),
        "the console's pause must be journaled"
    );
    fs::remove_dir_all(&dir).unwrap();
}
