//! What the binary prints for people (issue 26, point 7): `tactus --help` lists every command the
//! table guide uses, `speak-test` included; and logs redirected to a file or a pipe carry no
//! colour codes (a screen reader reads an escape sequence aloud as garbage).

use std::process::{Command, Stdio};

use crate::support::{process::TACTUS, table::temp_dir};

/// Every command of the binary, as `tactus --help` names it.
const COMMANDS: [&str; 13] = [
    "run",
    "train",
    "console",
    "demo",
    "replay",
    "scoresheet",
    "audit",
    "check-config",
    "say",
    "voices",
    "speak-test",
    "board-test",
    "sim",
];

#[test]
fn help_lists_every_command() {
    let out = Command::new(TACTUS).arg("--help").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8_lossy(&out.stdout);
    let listed: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for command in COMMANDS {
        assert!(listed.contains(&command), "{command} not listed:\n{help}");
        // Each one is a command the binary takes.
        let status = Command::new(TACTUS)
            .args([command, "--help"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "tactus {command} --help: {status}");
    }
}

#[test]
fn logs_to_a_pipe_carry_no_colour_codes() {
    let dir = temp_dir("cli-no-ansi");
    // speak-test logs through the speech task (a warning where there is no sound card; with
    // RUST_LOG=debug something in any case); its standard error is a pipe here.
    let out = Command::new(TACTUS)
        .args(["speak-test", "--timeout-s", "5"])
        .arg("--transcript")
        .arg(dir.join("transcript.txt"))
        .env("RUST_LOG", "debug")
        .env("ALSA_CONFIG_PATH", dir.join("no-such-alsa.conf"))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.trim().is_empty(), "nothing was logged: {out:?}");
    assert!(!err.contains("\x1b["), "colour codes in a pipe:\n{err:?}");
    // board-test's logs too (a port that does not exist: an error, logged and printed).
    let out = Command::new(TACTUS)
        .args(["board-test", "--profile", "dgt", "--port"])
        .arg(dir.join("no-such-port"))
        .env("RUST_LOG", "debug")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("\x1b["), "colour codes in a pipe:\n{err:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
