//! `tactus run`: the daemon on the table `config.toml` describes (src/daemon/).

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anyhow::{Context, Result};
use tokio_util::sync::CancellationToken;

use super::pick_game;
use crate::config::Config;

/// `tactus run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The configuration file.
    #[arg(long, value_name = "FILE", default_value = "config.toml")]
    config: PathBuf,
    /// Resume the game in this folder (default: the newest unfinished game in the output
    /// folder, if any).
    #[arg(long, value_name = "FOLDER", conflicts_with = "new")]
    resume: Option<PathBuf>,
    /// Start a new game even if an unfinished one is in the output folder.
    #[arg(long)]
    new: bool,
    /// Simulated boards (port = "sim"): divide their pauses by this factor.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    sim_speed: f64,
    /// Simulated boards: play the first game of this PGN file instead of Appendix E's.
    #[arg(long, value_name = "FILE")]
    sim_pgn: Option<PathBuf>,
    /// Simulated boards: how the simulated players act (comma-separated): `early=MS` (the blind
    /// player executes the opponent's move MS after it stands on the sighted board), `press=MS`
    /// (the sighted player presses his clock MS after his move), `wrong=PLY` (the blind player
    /// makes another move at PLY, which the assistant corrects), `paused-moves` (they move while
    /// the clocks stand). For the end-to-end tests of the table.
    #[arg(long, value_name = "LIST", hide = true)]
    sim_hands: Option<String>,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// Append the whole structured log to this file too (at a terminal, standard error shows
    /// only warnings; under systemd journald has the log).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

/// `--sim-hands`: see [`RunArgs::sim_hands`].
fn sim_hands(sim: &mut crate::daemon::SimSettings, list: &str) -> Result<()> {
    const KNOWN: &str = "early=MS, press=MS, wrong=PLY, paused-moves";
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = item.split_once('=').unwrap_or((item, ""));
        let number = || {
            value.parse::<u64>().with_context(|| {
                format!("--sim-hands: '{item}' needs a number after '=' (one of: {KNOWN})")
            })
        };
        match key {
            "early" => sim.blind_executes_early_ms = Some(number()?),
            "press" => sim.sighted_press_ms = Some(number()?),
            "wrong" => sim.blind_wrong_ply = Some(number()? as usize),
            "paused-moves" => sim.move_while_paused = true,
            _ => anyhow::bail!("--sim-hands: '{item}' is not one of: {KNOWN}"),
        }
    }
    Ok(())
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let config = Config::load(&args.config)?;
    if config.opponent.is_some() {
        anyhow::bail!(
            "{}: [opponent] makes this a training game against an engine: start it with `tactus \
             train --config {}` (`tactus run` plays a game between two people)",
            args.config.display(),
            args.config.display()
        );
    }
    let mut sim = crate::daemon::SimSettings {
        speed: args.sim_speed,
        ..Default::default()
    };
    if let Some(path) = &args.sim_pgn {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let game = pick_game(&bytes, path, 1, 0, None)?;
        if game.start != shakmaty::Chess::default() {
            anyhow::bail!(
                "{}: the simulated boards start from the initial position; this game does not",
                path.display()
            );
        }
        sim.moves = game.moves;
    }
    if let Some(list) = &args.sim_hands {
        sim_hands(&mut sim, list)?;
    }
    let voices_dir = args
        .voices_dir
        .unwrap_or_else(crate::store::voices::default_dir);
    let opts = crate::daemon::RunOptions {
        origin: args.config.display().to_string(),
        config,
        resume: args.resume,
        new_game: args.new,
        sim,
        // The terminal shows the table in readable lines (the log goes to journald, or --log).
        echo: true,
        stop_when_played: false,
        voices_dir,
        log: args.log,
    };
    serve(opts)
}

/// The daemon for `run` and `train`: the table said in words, the game played until a signal
/// (or its end, for the simulated tests), and what the game folder holds said at the end.
pub fn serve(opts: crate::daemon::RunOptions) -> Result<ExitCode> {
    // The table in words, as `tactus check-config` says it: what the file sets, before the
    // game folder (a resumed game then says which saved settings stay in force).
    let (config, origin) = (&opts.config, opts.origin.clone());
    let pack = crate::store::voices::load_words(&opts.voices_dir, &config.voice.voice).ok();
    super::say_line(&format!("tactus: {origin}:"));
    for line in config.describe(&origin, pack.as_ref().map(|p| p.description()))? {
        super::say_line(&format!("  {line}"));
    }
    for warning in config.warnings() {
        super::say_error_line(&format!("tactus: warning: {origin}: {warning}"));
    }
    let rt = crate::daemon::runtime_logging("warn,tactus=info", opts.log.as_deref())?;
    let report = rt.block_on(async {
        let cancel = CancellationToken::new();
        crate::daemon::cancel_on_signals(cancel.clone())?;
        crate::daemon::run(opts, cancel).await
    });
    // What was said before an error is said before it.
    if report.is_err() {
        super::lines_written(Duration::from_secs(1));
    }
    let report = report?;
    // The analyses' blocking threads may still search; they hold nothing that needs saving.
    rt.shutdown_timeout(Duration::from_millis(200));
    if let Some(unfinished) = report.unfinished() {
        super::say_line(&format!("tactus: {unfinished}"));
    }
    let stale = stale_files(&report.folder, &report.pgn);
    if stale.is_empty() {
        super::say_line(&format!(
            "tactus: stopped; the game's files are in {}",
            report.folder.display()
        ));
        super::lines_written(Duration::from_secs(1));
        return Ok(ExitCode::SUCCESS);
    }
    // The exit message is what an arbiter trusts after the round: it says what is NOT there.
    super::say_error_line(&format!(
        "tactus: stopped; the game's folder is {}, but {}",
        report.folder.display(),
        stale.join("; and ")
    ));
    super::lines_written(Duration::from_secs(1));
    Ok(ExitCode::FAILURE)
}

/// What in the game folder does not hold the game as it ended (`pgn`, the hub's last word):
/// the journal (the game a resume or `tactus replay` would rebuild) and `game.pgn` (the
/// record the arbiter reads), each checked by reading it back. Empty: both are whole.
pub fn stale_files(folder: &std::path::Path, pgn: &str) -> Vec<String> {
    use crate::daemon::journal;
    use tactus_core::folder::{JOURNAL_FILE, PGN_FILE};
    use tactus_core::rules::pgn::read_pgn;
    let moves = |text: &[u8]| {
        read_pgn(text)
            .ok()
            .and_then(|games| games.into_iter().next())
            .map(|g| g.moves)
    };
    let played = moves(pgn.as_bytes()).unwrap_or_default();
    let mut stale = Vec::new();
    let journal_path = folder.join(JOURNAL_FILE);
    let journaled = journal::read(&journal_path).and_then(|read| {
        journal::replayed(&read).map(|r| {
            r.table
                .game()
                .moves()
                .iter()
                .map(|m| m.mv)
                .collect::<Vec<_>>()
        })
    });
    match journaled {
        Ok(j) if j == played => {}
        Ok(j) => stale.push(format!(
            "its journal {} holds {} of the game's {} half-moves (the rest could not be written; \
             see the log): a resume would start from there",
            journal_path.display(),
            j.len(),
            played.len()
        )),
        Err(e) => stale.push(format!("its journal cannot be read back ({e:#})")),
    }
    let pgn_path = folder.join(PGN_FILE);
    match std::fs::read(&pgn_path).ok().and_then(|b| moves(&b)) {
        Some(m) if m == played => {}
        Some(m) => stale.push(format!(
            "{} and the scoresheets beside it are older than the game ({} of {} half-moves: \
             they could not be written; see the log); `tactus replay {}` prints the whole game \
             from the journal",
            pgn_path.display(),
            m.len(),
            played.len(),
            journal_path.display()
        )),
        None => stale.push(format!(
            "{} is missing or unreadable (it could not be written, or was removed; see the \
             log); `tactus replay {}` prints the game from the journal",
            pgn_path.display(),
            journal_path.display()
        )),
    }
    stale
}
