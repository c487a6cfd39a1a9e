//! `tactus audit`: replay every game of a PGN file and report legality, draw claims, the end on
//! the board and the result of a flag fall (the report is `crate::audit`).

use std::{path::PathBuf, process::ExitCode};

use anyhow::{Context, Result};

use crate::audit::{AuditOptions, audit_pgn};

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
