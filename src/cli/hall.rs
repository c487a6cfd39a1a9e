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
    /// A host name the hall also answers to (repeatable), besides loopback, this computer's name
    /// and the address a viewer connected to: a request for any other name is refused, so that a
    /// web page elsewhere cannot read the hall through DNS rebinding.
    #[arg(long = "name", value_name = "NAME", value_parser = host_name)]
    names: Vec<String>,
    /// The one other site a browser may let read the hall (`https://broadcast.example`, or `*`
    /// for every site): sent as Access-Control-Allow-Origin. None by default.
    #[arg(long, value_name = "ORIGIN", value_parser = origin)]
    allow_origin: Option<String>,
    /// A user (name or number) whose folders and files the hall trusts as its own (repeatable):
    /// the tables' user, when the hall runs as another and reads their folders through a shared
    /// or mounted folder. Otherwise only the hall's own user's and root's are read.
    #[arg(long = "trust-user", value_name = "USER", value_parser = user_id)]
    trust_users: Vec<u32>,
}

fn user_id(text: &str) -> Result<u32, String> {
    if let Ok(uid) = text.parse::<u32>() {
        return Ok(uid);
    }
    match nix::unistd::User::from_name(text) {
        Ok(Some(user)) => Ok(user.uid.as_raw()),
        _ => Err(format!(
            "{text:?} is no user of this computer: give a user name from /etc/passwd or a number"
        )),
    }
}

fn host_name(text: &str) -> Result<String, String> {
    crate::config::check_host_name(text).map(|()| text.to_owned())
}

fn origin(text: &str) -> Result<String, String> {
    crate::config::check_origin(text).map(|()| text.to_owned())
}

pub fn run(args: HallArgs) -> Result<ExitCode> {
    let runtime = super::runtime()?;
    let result = runtime.block_on(async move {
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
        crate::output::say_line(&format!(
            "tactus hall: {}; a table's table.json or game.pgn of more than {} kB is not read",
            crate::web::http::limits_words(),
            crate::web::hall::MAX_FILE / 1024
        ));
        if !addr.ip().is_loopback() {
            crate::output::say_line(
                "tactus hall: the hall is open to everyone on that network (read only)",
            );
        }
        let cancel = CancellationToken::new();
        // SIGTERM (systemd, `kill`) ends the hall as SIGINT does: it holds nothing to write.
        crate::daemon::cancel_on_signals(cancel.clone())?;
        let access = crate::web::http::Access {
            names: args.names,
            allow_origin: args.allow_origin,
        };
        let mut users = vec![nix::unistd::geteuid().as_raw()];
        users.extend(args.trust_users);
        crate::web::hall::serve_hall(listener, args.dirs, users, access, cancel).await;
        Ok(ExitCode::SUCCESS)
    });
    // A reading of a folder that hangs (a network file system) must not hold the end: the
    // hall writes nothing, so nothing is lost by leaving it behind.
    runtime.shutdown_background();
    result
}
