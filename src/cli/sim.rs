//! `tactus sim`: simulate a sensor board on a serial port and play a game of a PGN file on it,
//! the way hands do: its arguments and the call (the serving is `crate::sim::serve`, the board's
//! side of the protocol `tactus_core::sim::board`).

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anyhow::{Context, Result};

use crate::sim::serve::{self, SimPort, SimProgress};
use tactus_core::sim::board::SimConfig;

/// `tactus sim`.
#[derive(clap::Args)]
pub struct SimArgs {
    #[command(flatten)]
    board: super::BoardArgs,
    /// The PGN file holding the game.
    #[arg(long, value_name = "FILE")]
    pgn: PathBuf,
    /// Which game of the file (1 = the first).
    #[arg(long, value_name = "N", default_value_t = 1)]
    game: usize,
    /// Start from the position after this many half-moves of the game (set up, not played).
    #[arg(long, value_name = "PLIES", default_value_t = 0)]
    from_ply: usize,
    /// Play at most this many half-moves.
    #[arg(long, value_name = "PLIES")]
    plies: Option<usize>,
    /// How the hands move, comma-separated: captured-first, mover-first, replace; king-first,
    /// rook-first; ep-captured-first, ep-captured-last; bounce, reorder, slide; calm.
    #[arg(long, value_name = "WORDS")]
    style: Option<String>,
    /// Milliseconds between the events of one move (default: the style's).
    #[arg(long, value_name = "MS")]
    step_ms: Option<u64>,
    /// Milliseconds between moves (on a DGT board the player also waits until the host has
    /// read the board after his move).
    #[arg(long, value_name = "MS", default_value_t = 500)]
    move_pause_ms: u64,
    /// Milliseconds the player pauses after a promotion on an occupancy board, to announce
    /// the piece.
    #[arg(long, value_name = "MS", default_value_t = 1500)]
    announce_pause_ms: u64,
    /// Inject garbage bytes between messages.
    #[arg(long)]
    garbage: bool,
    /// Seed for the garbage.
    #[arg(long, default_value_t = 0x5eed)]
    seed: u64,
    /// Pull the cable after this many moves: close the port and reopen it after a pause.
    #[arg(long, value_name = "N")]
    disconnect_after: Option<usize>,
    /// How long the cable stays out, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 3000)]
    disconnect_ms: u64,
    /// Make the next move while the cable is out.
    #[arg(long)]
    move_while_away: bool,
    /// Simulate a DGT board set up the other way round.
    #[arg(long)]
    reversed: bool,
    /// After the last move, keep answering the host this many milliseconds, then exit
    /// (default: until Ctrl-C).
    #[arg(long, value_name = "MS")]
    linger_ms: Option<u64>,
}

pub fn run(args: SimArgs) -> Result<ExitCode> {
    let SimArgs {
        board,
        pgn,
        game,
        from_ply,
        plies,
        style,
        step_ms,
        move_pause_ms,
        announce_pause_ms,
        garbage,
        seed,
        disconnect_after,
        disconnect_ms,
        move_while_away,
        reversed,
        linger_ms,
    } = args;
    let profile =
        super::board_test::load_profile(board.profile.as_deref(), board.profile_file.as_deref())?;
    let bytes = std::fs::read(&pgn).with_context(|| format!("cannot read {}", pgn.display()))?;
    let sim_game = super::pick_game(&bytes, &pgn, game, from_ply, plies)?;
    let mut cfg = SimConfig::new(profile);
    if let Some(spec) = &style {
        cfg.style = tactus_core::sim::board::parse_style(cfg.style, spec)?;
    }
    if let Some(ms) = step_ms {
        cfg.style.step_ms = ms;
    }
    cfg.move_pause = Duration::from_millis(move_pause_ms);
    cfg.announce_pause = Duration::from_millis(announce_pause_ms);
    cfg.garbage = garbage;
    cfg.seed = seed;
    cfg.disconnect_after = disconnect_after;
    cfg.disconnect_for = Duration::from_millis(disconnect_ms);
    cfg.move_while_away = move_while_away;
    cfg.linger = linger_ms.map(Duration::from_millis);
    if reversed {
        cfg.orientation = tactus_core::board::Orientation::Reversed;
    }
    cfg.check()?;
    super::print(&format!(
        "Simulating {} on {}: {} of game {game} of {}.\n",
        cfg.profile.description,
        board.port.display(),
        tactus_core::announce::count(sim_game.moves.len(), "half-move", "half-moves"),
        pgn.display()
    ))?;
    super::runtime()?.block_on(async {
        let cancel = super::cancel_on_ctrl_c();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let printer = tokio::spawn(async move {
            while let Some(p) = rx.recv().await {
                // Progress only: a failed write loses nothing the simulation needs.
                let _ = super::print(&format!("{}\n", describe_progress(&p)));
            }
        });
        let result = serve::serve(SimPort::Path(board.port), cfg, sim_game, cancel, Some(tx)).await;
        let _ = printer.await;
        result
    })?;
    Ok(ExitCode::SUCCESS)
}

fn describe_progress(p: &SimProgress) -> String {
    match p {
        SimProgress::Opened => "Port open; waiting for the host to read the board.".into(),
        SimProgress::Read => "The host has read the board.".into(),
        SimProgress::Moved {
            ply,
            san,
            written: Some(_),
        } => format!("Played {ply}: {san}."),
        SimProgress::Moved {
            ply,
            san,
            written: None,
        } => format!("Played {ply}: {san} (while the board was away)."),
        SimProgress::Closed { reason } => format!("Port closed: {reason}."),
        SimProgress::Finished => "Game over; still answering the host (Ctrl-C to stop).".into(),
    }
}
