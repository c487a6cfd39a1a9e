//! `tactus check-config`: read a configuration file and print what it sets.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Result;

use crate::config::Config;

/// `tactus check-config`.
#[derive(clap::Args)]
pub struct CheckConfigArgs {
    #[arg(default_value = "config.toml")]
    file: PathBuf,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
}

pub fn run(args: CheckConfigArgs) -> Result<ExitCode> {
    let file = args.file;
    let config = Config::load(&file)?;
    let rules = config.rules_config()?;
    let origin = file.display().to_string();
    // What the daemon checks before it makes a new game is checked here too (the voice pack,
    // the console group), so that "ok" means it starts.
    let voices_dir = args
        .voices_dir
        .unwrap_or_else(crate::store::voices::default_dir);
    crate::daemon::setup::check_new_game(&config, &origin, &voices_dir)?;
    println!("{}: ok", file.display());
    println!("  edition: {:?}, play: {:?}", rules.edition, rules.play);
    match rules.time_control {
        Some(tc) => println!("  time control: {tc}"),
        None => println!("  time control: none (no clock)"),
    }
    println!("  blind player: {}", config.game.blind.color());
    for (name, board) in [
        ("tactile board", config.blind_board(&origin)?),
        ("sighted board", config.sighted_board(&origin)?),
    ] {
        match board {
            crate::config::BoardSetup::Manual => {
                println!("  {name}: manual (moves entered at the console)")
            }
            crate::config::BoardSetup::Sensor { profile, port } => println!(
                "  {name}: {} on {}",
                profile.name,
                match port {
                    crate::config::PortSetup::Sim => "a simulated board".to_string(),
                    crate::config::PortSetup::Path(p) => p.display().to_string(),
                }
            ),
        }
    }
    println!(
        "  voice: {} ({:?}), speaker {:?}",
        config.voice.voice, config.voice.style, config.voice.speaker
    );
    println!("  games: {}", config.record_dir().display());
    println!(
        "  console: {} ({}), arbiter's token in {}",
        config.socket_path().display(),
        match &config.console.group {
            Some(group) => format!("mode 0660, group {group}"),
            None => "mode 0600".to_string(),
        },
        config.token_file().map_or_else(
            || "each game's folder (arbiter.token)".to_string(),
            |p| p.display().to_string()
        )
    );
    let buttons: Vec<String> = config
        .buttons()
        .iter()
        .map(|(n, line)| format!("{n} {line}"))
        .collect();
    println!("  tactile board's buttons: {}", buttons.join(", "));
    Ok(ExitCode::SUCCESS)
}
