//! Free text (event, player names) through liblouis, when its `lou_translate` tool is installed:
//! optional, never required.
//!
//! liblouis is not a dependency of tactus. When a user asks for it and the tool is there, the
//! header's text is translated with the profile's table (`en-ueb-g1.ctb`, `de-g0.utb`) and the
//! Unicode display table, so the output is cells. When it is missing, fails or takes too long,
//! the caller falls back to the built-in transcription ([`tactus_core::record::braille::literary`]).
//! The chess score itself never goes through here.
//!
//! This module runs a process; it is for the edges (the command line, the daemon's file
//! writer), not for the pure renderers.

use std::{
    ffi::OsStr,
    io::{self, Read, Write},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use tactus_core::record::braille::cell::Cell;

/// The liblouis command-line translator.
pub const PROGRAM: &str = "lou_translate";
/// liblouis's display table that writes Unicode Braille, so the output is cells whatever the
/// translation table's own display is.
const UNICODE_DISPLAY: &str = "unicode.dis";
/// A translation of a line takes milliseconds; anything near this is a hung tool.
const TIMEOUT: Duration = Duration::from_secs(5);
/// How often to look whether the tool has finished.
const POLL: Duration = Duration::from_millis(5);

/// Why liblouis gave no cells.
#[derive(Debug, thiserror::Error)]
pub enum LouisError {
    #[error(
        "{program} is not installed (liblouis is optional; the built-in transcription is used)"
    )]
    NotInstalled { program: String },
    #[error("cannot run {program}: {source}")]
    Run {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error("{program} with table {table} failed: {message}")]
    Failed {
        program: String,
        table: String,
        message: String,
    },
    #[error("{program} gave no answer within {} s", TIMEOUT.as_secs())]
    Timeout { program: String },
    #[error("{program} wrote {found:?}, which is not a six-dot Braille cell")]
    NotBraille { program: String, found: char },
}

/// `text` (one line) translated with liblouis `table` by `lou_translate` on the PATH.
pub fn translate(table: &str, text: &str) -> Result<Vec<Cell>, LouisError> {
    translate_with(OsStr::new(PROGRAM), table, text)
}

/// The same with another program (a different install, or a stand-in in tests).
pub fn translate_with(program: &OsStr, table: &str, text: &str) -> Result<Vec<Cell>, LouisError> {
    let name = program.to_string_lossy().into_owned();
    let mut child = Command::new(program)
        .arg("--forward")
        .arg(format!("{UNICODE_DISPLAY},{table}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => LouisError::NotInstalled {
                program: name.clone(),
            },
            _ => LouisError::Run {
                program: name.clone(),
                source,
            },
        })?;
    let run_error = |source| LouisError::Run {
        program: name.clone(),
        source,
    };
    // One line in: a line break would start a second translation.
    let line = text.replace(['\n', '\r'], " ");
    if let Some(mut stdin) = child.stdin.take() {
        // A tool that fails at once (an unknown table) closes its input unread: the broken pipe
        // says nothing its exit status and message do not say better.
        let _ = stdin.write_all(format!("{line}\n").as_bytes());
    }
    // Read the pipes on threads so a chatty tool cannot block on a full pipe while we wait.
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out = std::thread::spawn(move || {
        let mut buf = String::new();
        stdout.as_mut().map(|s| s.read_to_string(&mut buf));
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = String::new();
        stderr.as_mut().map(|s| s.read_to_string(&mut buf));
        buf
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(run_error)? {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(LouisError::Timeout { program: name });
        }
        std::thread::sleep(POLL);
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        return Err(LouisError::Failed {
            program: name,
            table: table.to_owned(),
            message: match stderr.trim() {
                "" => status.to_string(),
                message => message.to_owned(),
            },
        });
    }
    stdout
        .trim_end_matches(['\n', '\r'])
        .chars()
        .map(|c| {
            Cell::from_unicode(c).ok_or_else(|| LouisError::NotBraille {
                program: name.clone(),
                found: c,
            })
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::{os::unix::fs::PermissionsExt, path::PathBuf};
    use tactus_core::record::braille::cell::to_brf;

    use crate::store::Scratch;

    /// A stand-in for lou_translate: a shell script with `body`, in a fresh directory (kept
    /// while the test holds it).
    fn fake(name: &str, body: &str) -> (Scratch, PathBuf) {
        let dir = crate::store::scratch(&format!("louis-{name}"));
        let path = dir.join("lou_translate");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        (dir, path)
    }

    #[test]
    fn cells_come_back_from_the_unicode_display_table() {
        // Echoes its table argument's display part and the input, as braille-ish proof.
        let (_dir, path) = fake(
            "ok",
            r#"[ "$1" = --forward ] && [ "$2" = unicode.dis,en-ueb-g1.ctb ] || exit 3
read line; [ "$line" = "Anna Weiss" ] || exit 4; printf '⠠⠁⠝⠝⠁⠀⠠⠺⠑⠊⠎⠎\n'"#,
        );
        let cells = translate_with(path.as_os_str(), "en-ueb-g1.ctb", "Anna\nWeiss").unwrap();
        assert_eq!(to_brf(&cells), ",ANNA ,WEISS");
    }

    #[test]
    fn failures_are_errors_the_caller_can_fall_back_on() {
        let err = translate_with(OsStr::new("/nonexistent/lou_translate"), "t", "x").unwrap_err();
        assert!(matches!(err, LouisError::NotInstalled { .. }), "{err}");
        let (_dir, path) = fake("fails", "echo 'cannot find table xx' >&2; exit 1");
        let err = translate_with(path.as_os_str(), "xx", "x").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} with table xx failed: cannot find table xx",
                path.display()
            )
        );
        let (_dir, path) = fake("ascii", "cat >/dev/null; echo ,ANNA");
        let err = translate_with(path.as_os_str(), "t", "x").unwrap_err();
        assert!(
            matches!(err, LouisError::NotBraille { found: ',', .. }),
            "{err}"
        );
    }
}
