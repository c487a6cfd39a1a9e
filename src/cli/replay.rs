//! `tactus replay`: a game's transcript and final PGN from its journal, without any hardware.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Result;

/// `tactus replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The journal (a game folder's journal.jsonl, or the folder).
    journal: PathBuf,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
}

pub fn run(args: ReplayArgs) -> Result<ExitCode> {
    let ReplayArgs {
        journal,
        voices_dir,
    } = args;
    let path = if journal.is_dir() {
        journal.join(crate::daemon::journal::JOURNAL_FILE)
    } else {
        journal
    };
    let dir = voices_dir.unwrap_or_else(crate::store::voices::default_dir);
    for line in crate::daemon::replay_lines(&path, &dir)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
