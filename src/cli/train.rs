//! `tactus train`: the blind player on his tactile board against a UCI chess engine (Stockfish
//! by default) instead of a sighted player. Everything else is a game's: his moves recognised
//! and said back, the engine's move announced and executed by him with guidance, the clock, the
//! requests, every scoresheet and the journal. The engine plays from the console's side: the
//! sighted board is the console (no sensors), and the engine types its moves there.

use std::{path::PathBuf, process::ExitCode};

use anyhow::{Result, bail};

use crate::config::{Config, OpponentSection};

/// `tactus train`.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// The configuration file: the tactile board, the voice, the clock, [opponent] (default:
    /// config.toml here; without one, tactus train asks for it).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Resume the training game in this folder (default: the newest unfinished game).
    #[arg(long, value_name = "FOLDER", conflicts_with = "new")]
    resume: Option<PathBuf>,
    /// Start a new game even if an unfinished one is in the output folder.
    #[arg(long)]
    new: bool,
    /// The engine's skill level (Stockfish: 0 to 20); overrides [opponent] skill.
    #[arg(long, value_name = "N", conflicts_with = "elo")]
    skill: Option<u32>,
    /// The engine's strength as an Elo rating (Stockfish: 1350 to 2850).
    #[arg(long, value_name = "ELO")]
    elo: Option<u32>,
    /// How long the engine thinks per move, in milliseconds.
    #[arg(long, value_name = "MS")]
    move_time_ms: Option<u64>,
    /// Start from this position (FEN).
    #[arg(long, value_name = "FEN", conflicts_with = "pgn")]
    fen: Option<String>,
    /// Start from the first game of this PGN file ...
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// ... after this many of its moves (White's and Black's).
    #[arg(long, value_name = "N", requires = "pgn")]
    after_move: Option<u32>,
    /// The blind player plays this colour (white or black).
    #[arg(long, value_name = "COLOUR")]
    colour: Option<String>,
    /// Simulated tactile board (port = "sim"): divide its pauses by this factor.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    sim_speed: f64,
    /// Simulated tactile board: its player chooses his moves with this seed.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    sim_seed: u64,
    /// Simulated tactile board: its player makes these moves (SAN, space-separated) and then
    /// waits, instead of choosing (for the tests of the training requests).
    #[arg(long, value_name = "SANS", hide = true)]
    sim_moves: Option<String>,
    /// End when the game is over (the simulated game's end; for tests and the demo).
    #[arg(long, hide = true)]
    until_over: bool,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
}

pub fn run(args: TrainArgs) -> Result<ExitCode> {
    let default = PathBuf::from("config.toml");
    let (mut config, origin) = match &args.config {
        Some(path) => (Config::load(path)?, path.display().to_string()),
        None if default.is_file() => (Config::load(&default)?, default.display().to_string()),
        // Without his board's port there is nobody to play: a simulated board would play by
        // itself (`tactus demo --train` is that, on purpose).
        None => bail!(
            "tactus train needs your tactile board: no --config FILE given and no config.toml \
             here. Write one naming the board's port ([boards.blind] port = \"/dev/serial/by-id/...\"; \
             `tactus check-config FILE` checks it; README: \"tactus train\") and run `tactus \
             train --config FILE`. To watch a simulated board play the engine: `tactus demo --train`"
        ),
    };
    let opponent = config.opponent.get_or_insert_with(OpponentSection::default);
    if args.skill.is_some() || args.elo.is_some() {
        opponent.skill = args.skill;
        opponent.elo = args.elo;
    }
    if let Some(ms) = args.move_time_ms {
        opponent.move_time_ms = Some(ms);
        opponent.nodes = None;
    }
    if let Some(fen) = &args.fen {
        opponent.start_fen = Some(fen.clone());
        opponent.start_pgn = None;
        opponent.start_move = None;
    }
    if let Some(pgn) = &args.pgn {
        opponent.start_pgn = Some(std::env::current_dir()?.join(pgn));
        opponent.start_fen = None;
        opponent.start_move = args.after_move;
    }
    if let Some(colour) = &args.colour {
        config.game.blind = match colour.to_ascii_lowercase().as_str() {
            "white" | "w" => crate::config::BlindName::White,
            "black" | "b" => crate::config::BlindName::Black,
            other => bail!("--colour {other}: white or black"),
        };
    }
    // The overrides are checked as the file's keys are.
    let config = config.into_training();
    config.check_training(&origin)?;
    // The scripted moves are the blind player's: the engine's replies are whatever it plays, so
    // only his first move can be given ahead (the simulator follows the game from there).
    let scripted = match &args.sim_moves {
        Some(text) => {
            let start = config.start_position(&origin)?;
            let sans: Vec<&str> = text.split_whitespace().collect();
            if sans.len() > 1 {
                bail!("--sim-moves: give the blind player's first move only");
            }
            let mut moves = Vec::new();
            for san in sans {
                moves.push(
                    tactus_core::rules::notation::match_move(&start, san)
                        .map_err(|e| anyhow::anyhow!("--sim-moves: {san}: {e}"))?,
                );
            }
            Some(moves)
        }
        None => None,
    };
    let sim = crate::daemon::SimSettings {
        speed: args.sim_speed,
        blind_chooses: if scripted.is_some() {
            None
        } else {
            Some(args.sim_seed)
        },
        moves: scripted.unwrap_or_default(),
        // A simulated board is set up for a new game, as a real one at home would be: from
        // another start it is guided there piece by piece.
        blind_initial: Some(shakmaty::Board::default()),
        ..Default::default()
    };
    let opts = crate::daemon::RunOptions {
        origin,
        config,
        resume: args.resume,
        new_game: args.new,
        sim,
        echo: true,
        stop_when_played: args.until_over,
        voices_dir: args
            .voices_dir
            .unwrap_or_else(crate::store::voices::default_dir),
        log: None,
    };
    super::run::serve(opts)
}
