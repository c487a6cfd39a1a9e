//! The `tactus` command line: a thin front end that reads files, calls the pure core and prints.

use std::{path::PathBuf, process::ExitCode};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use tactus::{
    audit::{AuditOptions, audit_pgn},
    config::Config,
};

/// The sample games `tactus audit` checks when no file is given.
const SAMPLE_PGN: &str = include_str!("../games/sample.pgn");

#[derive(Parser)]
#[command(
    name = "tactus",
    version,
    about = "Over-the-board chess for blind and visually impaired players (FIDE Laws, Appendix F)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay every game of a PGN file and report legality, available draw claims (9.2, 9.3),
    /// mate, stalemate and dead positions, and the result of a flag fall in the final position.
    /// Exits with 1 when a game holds an illegal or unreadable move.
    Audit {
        /// The PGN file; without it, the bundled sample games are audited.
        file: Option<PathBuf>,
        /// One JSON object per game per line, for scripts.
        #[arg(long)]
        json: bool,
        /// Run the complete dead-position search at every ply (slower).
        #[arg(long)]
        thorough: bool,
    },
    /// Check a configuration file and print the rules it sets.
    CheckConfig {
        #[arg(default_value = "config.toml")]
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tactus: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Audit {
            file,
            json,
            thorough,
        } => {
            let (bytes, name) = match &file {
                Some(path) => (
                    std::fs::read(path)
                        .with_context(|| format!("cannot read {}", path.display()))?,
                    path.display().to_string(),
                ),
                None => (
                    SAMPLE_PGN.as_bytes().to_vec(),
                    "the bundled sample games (games/sample.pgn)".to_string(),
                ),
            };
            let audits = audit_pgn(&bytes, AuditOptions { thorough });
            if audits.is_empty() {
                anyhow::bail!("{name} holds no game");
            }
            if !json {
                println!("Audit of {name}: {} game(s)\n", audits.len());
            }
            for audit in &audits {
                if json {
                    println!("{}", audit.to_json());
                } else {
                    println!("{}", audit.to_text());
                }
                if let Some(err) = &audit.error {
                    eprintln!("tactus: {name}: {err}");
                }
            }
            Ok(if audits.iter().all(|a| a.legal) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::CheckConfig { file } => {
            let config = Config::load(&file)?;
            let rules = config.rules_config()?;
            println!("{}: ok", file.display());
            println!("  edition: {:?}, play: {:?}", rules.edition, rules.play);
            match rules.time_control {
                Some(tc) => println!("  time control: {tc}"),
                None => println!("  time control: none (no clock)"),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
