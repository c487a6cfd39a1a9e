//! `tactus audit`: replay every game of a PGN file and report legality, draw claims, the end on
//! the board and the result of a flag fall (the report is `tactus_core::audit`). Exit status: 0 when
//! every game is legal, 1 when one is not (or holds a token that is not PGN), 2 when the file
//! cannot be read or holds no PGN game.

use std::{path::PathBuf, process::ExitCode};

use anyhow::{Context, Result};

use tactus_core::audit::{AuditOptions, audit_pgn};

/// The sample games `tactus audit` checks when no file is given.
const SAMPLE_PGN: &str = include_str!("../../games/sample.pgn");

/// `tactus audit`.
#[derive(clap::Args)]
pub struct AuditArgs {
    /// The PGN file; without it, the bundled sample games are audited.
    file: Option<PathBuf>,
    /// One JSON object per game per line, for scripts.
    #[arg(long)]
    json: bool,
    /// Run the complete dead-position search at every ply (slower).
    #[arg(long)]
    thorough: bool,
}

pub fn run(args: AuditArgs) -> Result<ExitCode> {
    let AuditArgs {
        file,
        json,
        thorough,
    } = args;
    let (bytes, name) = match &file {
        Some(path) => (
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
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
    // Text that is not PGN at all ("hello world") is not a file of bad games: it cannot be
    // read as PGN, and says where.
    if audits.iter().all(|a| a.no_game) {
        let why = audits
            .iter()
            .filter_map(|a| a.error.as_deref())
            .next()
            .unwrap_or("nothing in it is PGN");
        anyhow::bail!("{name} holds no PGN game: {why}");
    }
    if !json {
        let games = audits.len();
        let noun = if games == 1 { "game" } else { "games" };
        super::print(&format!("Audit of {name}: {games} {noun}\n\n"))?;
    }
    for audit in &audits {
        if json {
            super::print(&format!("{}\n", audit.to_json()))?;
        } else {
            super::print(&format!("{}\n", audit.to_text()))?;
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
