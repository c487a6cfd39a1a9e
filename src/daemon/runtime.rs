//! The process around the daemon: the tokio runtime with tracing to standard error (journald
//! under systemd), and the signals that end a run (SIGINT, SIGTERM: one cancellation).

use anyhow::{Context, Result};
use tokio_util::sync::CancellationToken;
use tracing::info;

/// A multi-threaded runtime with two workers (analyses run on blocking threads beside it) and
/// the log. `default_filter` applies unless `RUST_LOG` says otherwise (the daemon logs what it
/// does at info; the demo, whose output is for people, only warnings).
///
/// Where the log goes: at a terminal (a person), standard error shows warnings and errors only,
/// as sentences (`tactus: warning: ...`: [`Sentence`]), since the terminal's standard output shows the table in
/// readable lines; elsewhere (journald under systemd, a file, a pipe) standard error has the
/// whole structured log. `log_file` gets the whole structured log too, appended.
pub fn runtime(default_filter: &str) -> Result<tokio::runtime::Runtime> {
    runtime_logging(default_filter, None)
}

/// [`runtime`], with the structured log also appended to `log_file`.
pub fn runtime_logging(
    default_filter: &str,
    log_file: Option<&std::path::Path>,
) -> Result<tokio::runtime::Runtime> {
    use std::io::IsTerminal;
    use tracing_subscriber::{
        EnvFilter, Layer, fmt, layer::SubscriberExt, util::SubscriberInitExt,
    };
    let filter =
        || EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let terminal = std::io::stderr().is_terminal();
    // Through the output thread: a standard error nobody reads never stops the game.
    let stderr_layer = if terminal {
        fmt::layer()
            .with_writer(crate::output::log_writer)
            .event_format(Sentence)
            .with_filter(tracing_subscriber::filter::LevelFilter::WARN)
            .boxed()
    } else {
        fmt::layer()
            .with_writer(crate::output::log_writer)
            // Colour codes only for a person at a terminal, not in journald or a log file.
            .with_ansi(false)
            .with_filter(filter())
            .boxed()
    };
    let file_layer = match log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the log file {} (--log)", path.display()))?;
            let writer = crate::output::FileLog::new(file)
                .with_context(|| format!("cannot write the log file {}", path.display()))?;
            Some(
                fmt::layer()
                    .with_writer(move || writer.clone())
                    .with_ansi(false)
                    .with_filter(filter())
                    .boxed(),
            )
        }
        None => None,
    };
    ignore_file_size_signal();
    let _ = tracing_subscriber::registry()
        .with(stderr_layer)
        .with(file_layer)
        .try_init();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// A warning or an error at the terminal of `tactus run`, for the arbiter who reads it: its
/// message alone, as a sentence (`tactus: warning: the blind player's board ...`), like the
/// warnings `tactus run` prints itself. The fields and spans of the structured log (`conn=3`,
/// `device=Some("hw:1")`, `board{name=blind}`) are for the log (journald, `--log`), not for him:
/// each message that reaches here says in words what they would (which board, which console).
struct Sentence;

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for Sentence
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut writer: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let mut message = Message(String::new());
        event.record(&mut message);
        let level = if *event.metadata().level() == tracing::Level::ERROR {
            "error"
        } else {
            "warning"
        };
        writeln!(writer, "tactus: {level}: {}", message.0)
    }
}

/// The `message` field of an event (its formatted text), the other fields left out.
struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            self.0 = value.to_string();
        }
    }
}

/// Ignore SIGXFSZ: a write past the file size limit (`ulimit -f`, `RLIMIT_FSIZE`) then fails
/// with `EFBIG` instead of killing the process. Killed, the daemon said nothing, and every
/// restart died again at its first write; a refused write is an outage like a full disk: the
/// journal's halts play (both players hear why), the record's is reported, nothing is lost.
pub fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler and touches no
    // memory; it is done before any thread of ours could be writing a file.
    let previous = unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    if previous == libc::SIG_ERR {
        tracing::warn!("cannot ignore SIGXFSZ: a write past the file size limit would end tactus");
    }
}

/// How long a shutdown may take after the first signal before the process ends anyway: the
/// journal is on the disk entry by entry and the record files are replaced whole, so nothing
/// that counted is lost by ending here; a shutdown that hangs (a device, a stalled disk) must
/// not hold the port, the lock and the socket.
pub const SHUTDOWN_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Cancel `cancel` on SIGINT or SIGTERM; a second signal ends the process at once, and so does
/// a shutdown that has not ended within [`SHUTDOWN_LIMIT`].
pub fn cancel_on_signals(cancel: CancellationToken) -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
    let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    tokio::spawn(async move {
        let first = tokio::select! {
            _ = int.recv() => "SIGINT",
            _ = term.recv() => "SIGTERM",
            _ = cancel.cancelled() => return,
        };
        info!("{first}: shutting down (a second signal ends tactus at once)");
        cancel.cancel();
        // The watchdog is a thread of its own: the runtime may be what hangs.
        let _ = std::thread::Builder::new()
            .name("shutdown-watchdog".into())
            .spawn(|| {
                std::thread::sleep(SHUTDOWN_LIMIT);
                end_now(&format!(
                    "tactus: the shutdown did not end within {} s; ending now (the journal holds \
                     the game up to its last entry)",
                    SHUTDOWN_LIMIT.as_secs()
                ));
            });
        let second = tokio::select! {
            _ = int.recv() => "SIGINT",
            _ = term.recv() => "SIGTERM",
        };
        end_now(&format!(
            "tactus: {second} again: ending now (the journal holds the game up to its last entry)"
        ));
    });
    Ok(())
}

/// End the process at once, saying why where standard error still listens.
fn end_now(why: &str) -> ! {
    crate::output::say_error_line(why);
    crate::output::lines_written(std::time::Duration::from_millis(300));
    std::process::exit(1)
}
