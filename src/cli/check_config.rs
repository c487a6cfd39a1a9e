//! `tactus check-config`: read a configuration file, check it as `tactus run` does before it
//! makes a game folder, and print what it sets in words ([`Config::describe`]), with warnings
//! for what may be a mistake ([`Config::warnings`]) on standard error.

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
    let mut config = Config::load(&file)?;
    if config.opponent.is_some() {
        // A training table is checked and said as `tactus train` plays it: the engine at the
        // console's side, no sighted board.
        config = config.into_training();
    }
    let origin = file.display().to_string();
    // What the daemon checks before it makes a new game is checked here too (the voice pack,
    // the console group, the games' folder), so that "ok" means it starts.
    let voices_dir = args
        .voices_dir
        .unwrap_or_else(crate::store::voices::default_dir);
    let settings = crate::config::Settings::resolve(&config, &origin)?;
    let pack = crate::daemon::setup::check_new_game(&settings, &voices_dir)?.pack;
    // Every configured port, now: "ok" means the boards can be opened.
    let troubles = crate::daemon::setup::port_troubles(&settings);
    if !troubles.is_empty() {
        let said: Vec<String> = troubles
            .iter()
            .map(|(key, path, trouble)| format!("key {key} = \"{}\": {trouble}", path.display()))
            .collect();
        anyhow::bail!("{}: {}", file.display(), said.join("; "));
    }
    // The page's address, as `run` listens on it (and lets go at once).
    drop(crate::daemon::bind_web(&settings)?);
    let mut text = format!("{}: ok\n", file.display());
    for line in config.describe(&origin, Some(pack.description()))? {
        text.push_str(&format!("  {line}\n"));
    }
    super::print(&text)?;
    for warning in config.warnings() {
        eprintln!("warning: {}: {warning}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}
