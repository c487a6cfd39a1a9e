//! `tactus run`'s terminal is for people (issue 26, point 3): the table in readable lines, one
//! each (what is said to whom, the moves counted with both clocks, notes), the way the demo
//! shows it; at a terminal standard error has only warnings, short; the whole structured log
//! goes to journald (standard error when it is no terminal) or to `--log FILE`.

use std::{fs, process::Command};

use crate::support::{
    process::TACTUS,
    table::{temp_dir, voices_dir, write_config},
};

/// `tactus run` on simulated boards for `seconds`, ended by SIGINT, inside a pseudo-terminal
/// (`script`), as a person at a terminal runs it. Returns what the terminal showed.
fn at_a_terminal(dir: &std::path::Path, seconds: u32, extra: &str) -> String {
    let command = format!(
        "timeout -s INT {seconds} '{TACTUS}' run --config config.toml --sim-speed 20 {extra}"
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir)
        .env("TACTUS_VOICES", voices_dir())
        .env_remove("RUST_LOG")
        .output()
        .expect("script (util-linux) runs");
    String::from_utf8_lossy(&out.stdout).replace('\r', "")
}

#[test]
fn the_run_terminal_shows_the_table_in_readable_lines_and_the_log_goes_to_its_file() {
    let dir = temp_dir("run-terminal");
    write_config(&dir, shakmaty::Color::White, "none");
    let shown = at_a_terminal(&dir, 12, "--log run.log");
    let lines: Vec<&str> = shown.lines().collect();
    let said = lines.iter().filter(|l| l.contains("  to ")).count();
    let moves: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("  move ") && l.contains(" white ") && l.contains(" black "))
        .collect();
    assert!(said > 3, "what is said to whom, a line each:\n{shown}");
    assert!(moves.len() > 3, "the moves with both clocks:\n{shown}");
    // No structured log lines on the terminal: no levels with module paths, no long lines.
    assert!(
        !lines
            .iter()
            .any(|l| l.contains(" INFO ") || l.contains("tactus::daemon")),
        "the log is not on the terminal:\n{shown}"
    );
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest <= 140, "a line of {longest} characters:\n{shown}");
    // The whole log is in its file.
    let log = fs::read_to_string(dir.join("run.log")).expect("the --log file");
    assert!(
        log.contains("INFO") && log.contains("move counted"),
        "the structured log: {log}"
    );
    assert!(!log.contains("\u{1b}["), "no colour codes in the log file");
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 37 point 12: a warning reached the arbiter's terminal as a raw log line, its fields in
/// the log's notation (`WARN console{conn=1}: console: a failed arbiter login conn=1`). It is a
/// sentence, as `tactus run`'s own warnings are: which console, what happened, no `key=value`.
#[test]
fn a_warning_at_the_run_terminal_is_a_sentence_without_the_logs_fields() {
    let dir = temp_dir("run-terminal-warning");
    write_config(&dir, shakmaty::Color::White, "none");
    let socket = dir.join("console.sock");
    // A wrong token at the console while the run is at its terminal.
    let intruder = std::thread::spawn(move || {
        use std::io::{BufRead, BufReader, Write};
        for _ in 0..400 {
            if let Ok(mut stream) = std::os::unix::net::UnixStream::connect(&socket) {
                stream
                    .write_all(b"login 00112233445566778899aabbccddeeff\n")
                    .unwrap();
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                // The greeting, then the refusal.
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if line.starts_with("error") {
                        return line;
                    }
                    line.clear();
                }
                return line;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        String::new()
    });
    let shown = at_a_terminal(&dir, 8, "");
    let refused = intruder.join().unwrap();
    assert!(
        refused.starts_with("error"),
        "the login refused: {refused:?}"
    );
    let warnings: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("warning"))
        .collect();
    assert!(
        warnings.iter().any(|l| l.contains("console ")
            && l.contains(": a failed arbiter login, with a wrong token")),
        "the refused login is said:\n{shown}"
    );
    for line in &warnings {
        assert!(!line.contains("WARN"), "a raw log line: {line}\n{shown}");
        let field = line.split_whitespace().any(|w| {
            w.split_once('=').is_some_and(|(k, _)| {
                !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_lowercase() || c == '_' || c == '{')
            })
        });
        assert!(!field, "a log field on the terminal: {line}\n{shown}");
    }
    fs::remove_dir_all(&dir).unwrap();
}
