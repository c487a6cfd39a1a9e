//! The daemon's own lines on standard output and error (`tactus run`'s live transcript and
//! notices): written by a thread of their own, so that a reader that went away or does not keep
//! up drops lines and never stops or ends the game. At the bottom of the shell with the wall
//! clock and the ports: the daemon and the commands both use it.

use std::io::Write;

/// A line for the daemon's standard output or error, or a request to report when all before
/// it are written.
enum Line {
    Out(String),
    Err(String),
    /// A log line as tracing formatted it (its newline included).
    Log(Vec<u8>),
    Flushed(std::sync::mpsc::SyncSender<()>),
}

/// Lines waiting for the writer thread; more than this and new ones are dropped.
const LINES_QUEUED: usize = 4096;

/// The daemon's writer of standard output and error: a thread of its own, so that a stdout
/// nobody reads (full) blocks only it, never the game; its write errors (a closed pipe) are
/// dropped.
fn lines() -> &'static std::sync::mpsc::SyncSender<Line> {
    static LINES: std::sync::OnceLock<std::sync::mpsc::SyncSender<Line>> =
        std::sync::OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Line>(LINES_QUEUED);
        let spawned = std::thread::Builder::new()
            .name("tactus-output".into())
            .spawn(move || {
                for line in rx {
                    match line {
                        Line::Out(text) => {
                            let mut out = std::io::stdout().lock();
                            let _ = writeln!(out, "{text}").and_then(|()| out.flush());
                        }
                        Line::Err(text) => {
                            let _ = writeln!(std::io::stderr().lock(), "{text}");
                        }
                        Line::Log(bytes) => {
                            let _ = std::io::stderr().lock().write_all(&bytes);
                        }
                        Line::Flushed(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            });
        if spawned.is_err() {
            tracing::warn!("no thread for standard output: the daemon's lines are dropped");
        }
        tx
    })
}

/// One line to standard output from the daemon (`tactus run`'s live transcript and notices):
/// never an error, never a panic, never a wait. A reader that went away (`tactus run | head`),
/// a full or closed stdout is not something a game may die of or stand still for: the line is
/// written by a thread of its own, or dropped (the transcript file and the log keep everything).
pub fn say_line(text: &str) {
    let _ = lines().try_send(Line::Out(text.to_owned()));
}

/// [`say_line`] to standard error.
pub fn say_error_line(text: &str) {
    let _ = lines().try_send(Line::Err(text.to_owned()));
}

/// The log's writer (tracing's `MakeWriter`: `.with_writer(output::log_writer)`): each log line
/// goes to standard error through the same thread as [`say_error_line`], in order, so that a
/// standard error nobody reads (`tactus run 2>&1 | less`, stopped) or a closed one never stops
/// the game: when it does not keep up, log lines are dropped (journald and the transcript file
/// keep the game).
pub fn log_writer() -> LogWriter {
    LogWriter
}

/// See [`log_writer`].
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = lines().try_send(Line::Log(buf.to_vec()));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A log file's writer (tracing's `MakeWriter`), through a thread of its own like the terminal's:
/// a disk that stalls drops log lines, never holds the game.
#[derive(Clone)]
pub struct FileLog(std::sync::mpsc::SyncSender<Vec<u8>>);

impl FileLog {
    /// Append the log to `file` from a thread of its own.
    pub fn new(mut file: std::fs::File) -> std::io::Result<FileLog> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(LINES_QUEUED);
        std::thread::Builder::new()
            .name("tactus-log".into())
            .spawn(move || {
                for bytes in rx {
                    let _ = file.write_all(&bytes);
                }
            })?;
        Ok(FileLog(tx))
    }
}

impl Write for FileLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.try_send(buf.to_vec());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Wait (at most `limit`) until every line said so far is written: before the process ends.
pub fn lines_written(limit: std::time::Duration) {
    let (done, written) = std::sync::mpsc::sync_channel(1);
    if lines().try_send(Line::Flushed(done)).is_ok() {
        let _ = written.recv_timeout(limit);
    }
}
