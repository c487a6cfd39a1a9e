//! `tactus hall DIR...`: the tables of an event served from their game folders (read only):
//! `/` lists every table with its state, clocks and warnings, `/games.pgn` holds a game per
//! table with `Round` and `Board` tags for a broadcast. See `crate::web::hall`.

use std::{net::SocketAddr, path::PathBuf, process::ExitCode};

use anyhow::{Context, Result};
use tokio_util::sync::CancellationToken;

/// `tactus hall`.
#[derive(clap::Args)]
pub struct HallArgs {
    /// Each table's folder, in board order: a game folder, or a table's record folder (its
    /// newest game is served). Each table's config.toml needs a `[web]` section, so that its
    /// daemon keeps table.json.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where to listen: 127.0.0.1:8090 for this computer only, 0.0.0.0:8090 for the hall's
    /// network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8090")]
    listen: SocketAddr,
}

pub fn run(args: HallArgs) -> Result<ExitCode> {
    let runtime = super::runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| {
                format!(
                    "cannot listen on {}: another program holds the port, or the address is not \
                     this computer's; choose another with --listen",
                    args.listen
                )
            })?;
        let addr = listener.local_addr()?;
        crate::output::say_line(&format!(
            "tactus hall: {} tables on http://{addr}/ (games at http://{addr}/games.pgn)",
            args.dirs.len()
        ));
        let cancel = CancellationToken::new();
        // SIGTERM (systemd, `kill`) ends the hall as SIGINT does: it holds nothing to write.
        crate::daemon::cancel_on_signals(cancel.clone())?;
        crate::web::hall::serve_hall(listener, args.dirs, cancel).await;
        Ok(ExitCode::SUCCESS)
    })
}
