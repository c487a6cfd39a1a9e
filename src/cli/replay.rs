//! `tactus replay`: a game's transcript and final PGN from its journal, without any hardware.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result};

use crate::daemon::journal;

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
    for line in replay_lines(&path, &dir)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A game time as `h:mm:ss.mmm` (the transcript of a replay has no time of day).
fn format_game_time(t: u64) -> String {
    format!(
        "{}:{:02}:{:02}.{:03}",
        t / 3_600_000,
        t / 60_000 % 60,
        t / 1000 % 60,
        t % 1000
    )
}

/// `tactus replay`: the transcript (every announcement and note, on the game's time line) and
/// the final PGN of a journal, replayed through the same pure code, without any hardware.
fn replay_lines(path: &Path, voices_dir: &Path) -> Result<Vec<String>> {
    let read = journal::read(path)?;
    let setup = &read.header.setup;
    let pack = crate::store::voices::load_words(voices_dir, &setup.voice_pack)
        .with_context(|| format!("the voice pack of {}", path.display()))?;
    let style = setup.voice_style;
    let mut lines = Vec::new();
    let replayed = journal::replay(&read, |t, effect| match effect {
        crate::arbiter::Effect::Say {
            audience,
            announcement,
            ..
        } => lines.push(format!(
            "{} {} {}",
            format_game_time(t),
            crate::speech::transcript::audience_word(*audience),
            pack.render(announcement, style).text
        )),
        crate::arbiter::Effect::Note(text) => {
            lines.push(format!("{} note {text}", format_game_time(t)))
        }
        crate::arbiter::Effect::Refused(text) => {
            lines.push(format!("{} refused {text}", format_game_time(t)))
        }
        _ => {}
    })?;
    for skipped in &replayed.skipped {
        lines.push(format!("(skipped an unreadable input {skipped})"));
    }
    if read.torn {
        lines.push("(the journal's last line was cut off and is left out)".into());
    }
    lines.push(String::new());
    lines.push(replayed.arbiter.game().to_pgn(&read.header.tags));
    Ok(lines)
}
