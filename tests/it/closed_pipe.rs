//! The one-shot commands printed into a closed pipe (`tactus audit | head -1`, issue 15 point 14):
//! a reader that has seen enough is not an error. Each command ends as it would have with its
//! output read (same exit code, same standard error, its other work done), never with a panic
//! or a complaint about standard output.

use std::{
    fs,
    path::Path,
    process::{Command, Output, Stdio},
};

use crate::support::{
    process::TACTUS,
    table::{temp_dir, voices_dir},
};

/// `tactus ARGS`, its standard output a pipe whose reader is gone before it starts (so the first
/// write always meets the closed pipe), or, with `closed` false, a pipe that is read.
fn tactus(args: &[&str], closed: bool) -> Output {
    let mut command = Command::new(TACTUS);
    command
        .args(args)
        .env("TACTUS_VOICES", voices_dir())
        .stderr(Stdio::piped());
    if closed {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        command.stdout(writer);
    } else {
        command.stdout(Stdio::piped());
    }
    command.output().unwrap()
}

/// The command into a closed pipe ends as it does when read: same exit code, same standard error
/// (warnings included), no panic, no complaint about standard output.
fn ends_quietly(args: &[&str]) {
    let read = tactus(args, false);
    assert!(!read.stdout.is_empty(), "{args:?} prints something");
    let closed = tactus(args, true);
    let err = String::from_utf8_lossy(&closed.stderr);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(!err.contains("standard output"), "{args:?}: {err}");
    assert!(
        !err.to_lowercase().contains("broken pipe"),
        "{args:?}: {err}"
    );
    assert_eq!(
        err,
        String::from_utf8_lossy(&read.stderr),
        "{args:?}: standard error as when read"
    );
    assert_eq!(closed.status.code(), read.status.code(), "{args:?}");
}

#[test]
fn say_into_a_closed_pipe_ends_quietly() {
    ends_quietly(&["say", "e4", "e5", "Nf3"]);
}

#[test]
fn say_into_a_closed_pipe_still_writes_its_audio_scoresheet() {
    let dir = temp_dir("closed-pipe-say");
    let wav = dir.join("game.wav");
    let out = tactus(&["say", "--wav", wav.to_str().unwrap(), "e4", "e5"], true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        fs::metadata(&wav).unwrap().len() > 44,
        "the WAV holds sound"
    );
    let cues = fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".cues.txt")
        })
        .count();
    assert_eq!(cues, 1, "the cue list is written too");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_config_into_a_closed_pipe_ends_quietly() {
    let dir = temp_dir("closed-pipe-check-config");
    let config = dir.join("config.toml");
    fs::write(&config, "[console]\ngroup = \"0\"\n").unwrap();
    ends_quietly(&["check-config", config.to_str().unwrap()]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn audit_into_a_closed_pipe_ends_quietly() {
    // The bundled sample games, as text and as JSON lines.
    ends_quietly(&["audit"]);
    ends_quietly(&["audit", "--json"]);
}

#[test]
fn scoresheet_and_voices_into_a_closed_pipe_end_quietly() {
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/sample.pgn");
    ends_quietly(&["scoresheet", "--format", "text", pgn.to_str().unwrap()]);
    ends_quietly(&["voices"]);
}

#[test]
fn board_test_into_a_closed_pipe_ends_quietly() {
    // A pseudo-terminal stands for the board's port: board-test opens it, prints its first line
    // (the profile and port) into the closed pipe, and must end there, quietly and at once, as
    // `tactus board-test --json | head -1` expects; the board need never answer.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = runtime.enter();
    let (_board, port) = tokio_serial::SerialStream::pair().expect("a pty pair");
    let path = tokio_serial::SerialPort::name(&port).expect("the pty has a name");
    for json in [false, true] {
        let mut args = vec!["board-test", "--profile", "dgt", "--port", path.as_str()];
        if json {
            args.push("--json");
        }
        let mut command = Command::new(TACTUS);
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        command
            .args(&args)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > std::time::Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("{args:?} went on printing into a closed pipe");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.trim().is_empty(), "{args:?}: {err}");
        assert!(status.success(), "{args:?}: {status}");
    }
}

/// Issue 25 point 11: the daemon's reader goes away (`tactus run | head -c 1`, or the terminal
/// of a pipe closed): its live transcript is dropped, never its game. `tactus demo` plays its
/// whole game into a closed pipe and exits 0 with the game's files (it used to panic at the
/// first line, exit 101, or hang in a task that died).
#[test]
fn the_daemon_plays_on_into_a_closed_pipe() {
    let dir = temp_dir("closed-pipe-demo");
    let out = dir.join("out");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = Command::new(TACTUS)
        .args(["demo", "--speed", "50", "--dir", out.to_str().unwrap()])
        .env("TACTUS_VOICES", voices_dir())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}: {stderr}", output.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let folder = crate::support::record::game_folder(&out);
    let pgn = crate::support::record::read_game_file(&folder.join("game.pgn"));
    assert_eq!(
        pgn.moves.len(),
        tactus_core::sim::appendix_e::demo_moves().len(),
        "the whole game is in its record"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// A child whose standard output and error are one pipe nobody reads (the reader is kept open,
/// so the pipe fills and stays full, as with `tactus run | less` left standing).
fn unread(command: &mut Command) -> std::io::PipeReader {
    let (reader, writer) = std::io::pipe().unwrap();
    command
        .stdin(Stdio::null())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer);
    reader
}

/// Issue 25 point 11: the log went to standard error directly, so a standard error nobody read
/// stopped the game at the first 64 KiB (the hub waited in a log line). The daemon's output and
/// its log go through their own thread now: with both pipes full, `tactus demo` (its log at
/// debug, to fill them fast) plays its whole game.
#[test]
fn the_daemon_plays_on_when_nobody_reads_its_output_or_its_log() {
    let dir = temp_dir("unread-demo");
    let out = dir.join("out");
    let mut command = Command::new(TACTUS);
    command
        .args(["demo", "--speed", "50", "--dir", out.to_str().unwrap()])
        .env("TACTUS_VOICES", voices_dir())
        .env("RUST_LOG", "debug");
    let _reader = unread(&mut command);
    let mut child = crate::support::process::Guard(Some(command.spawn().unwrap()));
    let status = child.wait_limit(std::time::Duration::from_secs(180));
    assert!(status.success(), "{status}");
    let folder = crate::support::record::game_folder(&out);
    let pgn = crate::support::record::read_game_file(&folder.join("game.pgn"));
    assert_eq!(
        pgn.moves.len(),
        tactus_core::sim::appendix_e::demo_moves().len(),
        "the whole game is in its record"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 25 point 11: SIGINT and SIGTERM end `tactus run` cleanly and soon, even with its
/// output unread; a second signal ends it at once (it used to be ignored, and a shutdown that
/// hung held the port, the lock and the socket until `kill -9`).
#[test]
fn a_signal_ends_the_daemon_soon_and_a_second_at_once() {
    use crate::support::table::write_config;
    // The second case holds the daemon stopped while both signals are sent (two of one kind
    // would merge into one pending signal), so that the second meets the shutdown of the first.
    for (signals, code) in [
        (&["-INT"][..], 0),
        (&["-STOP", "-INT", "-TERM", "-CONT"][..], 1),
    ] {
        let dir = temp_dir("signals");
        write_config(&dir, shakmaty::Color::White, "none");
        let mut command = Command::new(TACTUS);
        command
            .args(["run", "--config", "config.toml", "--sim-speed", "20"])
            .current_dir(&dir)
            .env("TACTUS_VOICES", voices_dir())
            .env("RUST_LOG", "debug");
        let _reader = unread(&mut command);
        let mut child = crate::support::process::Guard(Some(command.spawn().unwrap()));
        // Play until the journal has some of the game.
        let journal = || {
            fs::read_dir(dir.join("played"))
                .ok()?
                .flatten()
                .map(|e| e.path().join("journal.jsonl"))
                .find(|p| p.exists())
        };
        assert!(
            crate::support::process::wait_until(std::time::Duration::from_secs(60), || {
                journal()
                    .and_then(|p| fs::read_to_string(p).ok())
                    .is_some_and(|t| t.lines().count() > 30)
            }),
            "the game went on"
        );
        let sent = std::time::Instant::now();
        for signal in signals {
            child.signal(signal);
        }
        let status = child.wait_limit(std::time::Duration::from_secs(12));
        assert_eq!(status.code(), Some(code), "{signals:?}: {status}");
        if signals.len() > 1 {
            assert!(
                sent.elapsed() < std::time::Duration::from_secs(2),
                "the second signal ends it at once"
            );
        }
        // Whatever ended it, the journal is whole and resumes.
        let read =
            tactus::daemon::journal::read(&journal().unwrap()).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(!read.torn);
        fs::remove_dir_all(&dir).unwrap();
    }
}
