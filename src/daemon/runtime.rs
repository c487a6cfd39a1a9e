//! The process around the daemon: the tokio runtime with tracing to standard error (journald
//! under systemd), and the signals that end a run (SIGINT, SIGTERM: one cancellation).

use anyhow::{Context, Result};
use tokio_util::sync::CancellationToken;
use tracing::info;

/// A multi-threaded runtime with two workers (analyses run on blocking threads beside it) and
/// tracing to standard error (journald under systemd).
/// `default_filter` applies unless `RUST_LOG` says otherwise (the daemon logs what it does at
/// info; the demo, whose output is for people, only warnings).
pub fn runtime(default_filter: &str) -> Result<tokio::runtime::Runtime> {
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, not in journald or a log file.
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .try_init();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Cancel `cancel` on SIGINT or SIGTERM.
pub fn cancel_on_signals(cancel: CancellationToken) -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
    let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    tokio::spawn(async move {
        tokio::select! {
            _ = int.recv() => info!("SIGINT: shutting down"),
            _ = term.recv() => info!("SIGTERM: shutting down"),
            _ = cancel.cancelled() => return,
        }
        cancel.cancel();
    });
    Ok(())
}
