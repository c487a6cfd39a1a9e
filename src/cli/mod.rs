//! The commands of the `tactus` binary, one file each: the arguments a command takes (clap) and
//! what it does with them. `src/main.rs` is only the list of commands and the dispatch.
//!
//! This is the outermost layer: commands read files, open ports, start runtimes and print; they
//! call the pure core (rules, board, arbiter, announce, record, console) and the shell (daemon,
//! speech, store) and own no rules of their own.

use std::{
    io::{self, Write},
    path::PathBuf,
};

use anyhow::{Context, Result};

use tactus_core::sim::board::SimGame;

pub mod audit;
pub mod board_test;
pub mod check_config;
pub mod console;
pub mod demo;
pub mod hall;
pub mod replay;
pub mod run;
pub mod say;
pub mod scoresheet;
pub mod sim;
pub mod speak_test;
pub mod train;
pub mod voices;

/// The board a command talks to.
#[derive(clap::Args)]
pub struct BoardArgs {
    /// The board profile: a name (dgt, pegged-line) ...
    #[arg(long, value_name = "NAME", required_unless_present = "profile_file")]
    pub profile: Option<String>,
    /// ... or a profile file (see boards/README.md).
    #[arg(long, value_name = "PATH", conflicts_with = "profile")]
    pub profile_file: Option<PathBuf>,
    /// The serial port; prefer the stable names under /dev/serial/by-id/.
    #[arg(long, value_name = "PATH")]
    pub port: PathBuf,
}

/// The runtime for the commands that talk to boards: one thread is plenty for a few ports, and
/// keeps event handling free of cross-thread wake-ups. Also sets up their logs, which are for
/// developers (RUST_LOG=tactus=debug): users read the commands' output, which already reports
/// every disconnect and every skipped message.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    log_to_stderr("error");
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The commands' logs (for developers, `RUST_LOG=tactus=debug`) to standard error, at
/// `default_filter` unless `RUST_LOG` says otherwise. Colour codes only for a person at a
/// terminal: redirected to a file or a pipe (a log kept at the venue, a test) they would be
/// escape sequences in the text, read aloud by a screen reader as garbage.
pub fn log_to_stderr(default_filter: &str) {
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .try_init();
}

/// The game the simulator plays: game `n` of the file, from ply `from`, at most `plies` long.
pub fn pick_game(
    bytes: &[u8],
    path: &std::path::Path,
    n: usize,
    from: usize,
    plies: Option<usize>,
) -> Result<SimGame> {
    let games = tactus_core::rules::pgn::read_pgn_each(bytes);
    let count = games.len();
    let game = games
        .into_iter()
        .nth(n.saturating_sub(1))
        .filter(|_| n >= 1)
        .with_context(|| {
            format!(
                "{} has {}; there is no game {n}",
                path.display(),
                tactus_core::announce::count(count, "game", "games")
            )
        })?
        .with_context(|| format!("cannot play game {n} of {}", path.display()))?;
    if from > game.moves.len() {
        anyhow::bail!(
            "game {n} has {} half-moves; cannot start after {from}",
            game.moves.len()
        );
    }
    let mut start = game.start.clone();
    for &m in &game.moves[..from] {
        shakmaty::Position::play_unchecked(&mut start, m);
    }
    let end = plies.map_or(game.moves.len(), |p| (from + p).min(game.moves.len()));
    Ok(SimGame {
        start,
        moves: game.moves[from..end].to_vec(),
    })
}

/// Writes `text` to standard output and flushes it: how the one-shot commands print. A closed
/// pipe is not an error but a reader that has seen enough (`tactus audit games.pgn | head -1`):
/// the text is dropped and the command ends as it would have, its other work done (`say --wav`
/// still writes its file) and its exit code its own. Rust ignores SIGPIPE, so `println!` would
/// panic there instead. The daemon and the console do not print through this, and SIGPIPE stays
/// ignored for them: a console that hangs up must not end the daemon.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to standard output"),
    }
}

pub use crate::output::{lines_written, say_error_line, say_line};

/// Whether `error` comes from writing into a closed pipe: for a command that prints as it goes
/// through a writer of its own (board-test), where [`print`] is not used.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// A cancellation token that Ctrl-C cancels (the board commands stop cleanly on it).
pub fn cancel_on_ctrl_c() -> tokio_util::sync::CancellationToken {
    let cancel = tokio_util::sync::CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    cancel
}
