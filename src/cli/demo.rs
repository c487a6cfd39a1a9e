//! `tactus demo`: the built-in table on simulated boards (src/sim/demo.rs).

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anyhow::Result;
use shakmaty::ByColor;
use tokio_util::sync::CancellationToken;

/// `tactus demo`.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// Divide the players' pauses by this factor (1: about a minute and a half).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    speed: f64,
    /// Where the game folder goes.
    #[arg(long, value_name = "DIR", default_value = "tactus-demo")]
    dir: PathBuf,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// The voice pack both players hear: de-fide (Appendix F in German), en, es-fide, or a
    /// variant such as en:nato.
    #[arg(long, value_name = "PACK", default_value = tactus_core::announce::voice::DEFAULT_VOICE)]
    voice: String,
    /// Training instead: the simulated blind player against Stockfish (`tactus train`), with a
    /// hint asked from his board's keypad, to the end of the game.
    #[arg(long, conflicts_with = "table")]
    train: bool,
    /// The table: a blind player against a sighted one (blind-sighted), or two blind players
    /// on two tactile boards as IBCA events play (blind-blind).
    #[arg(long, value_enum, default_value_t = Table::BlindSighted)]
    table: Table,
}

/// `--table`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    BlindSighted,
    BlindBlind,
}

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let voices_dir = args
        .voices_dir
        .unwrap_or_else(crate::store::voices::default_dir);
    let rt = crate::daemon::runtime("warn")?;
    let report = rt.block_on(async {
        let cancel = CancellationToken::new();
        crate::daemon::cancel_on_signals(cancel.clone())?;
        let demo = crate::demo::DemoOptions {
            dir: args.dir,
            speed: args.speed,
            voices_dir,
            voice: args.voice,
        };
        if args.train {
            crate::demo::run_training(demo, cancel).await
        } else {
            let table = match args.table {
                Table::BlindSighted => crate::demo::DemoTable::BlindSighted,
                Table::BlindBlind => crate::demo::DemoTable::BlindBlind,
            };
            crate::demo::run(table, demo, cancel).await
        }
    })?;
    rt.shutdown_timeout(Duration::from_millis(200));
    // Through the daemon's writer: a closed stdout ends nothing (issue 25 point 11).
    let say = super::say_line;
    say("");
    say(report.pgn.trim_end());
    say("");
    say(&format!(
        "The game's files are in {}:",
        report.folder.display()
    ));
    let blind = match args.table {
        _ if args.train => ByColor {
            white: true,
            black: false,
        },
        Table::BlindSighted => ByColor {
            white: true,
            black: false,
        },
        Table::BlindBlind => ByColor::new_with(|_| true),
    };
    for name in crate::daemon::files::all_files_at(blind) {
        say(&format!("  {name}"));
    }
    let code = if report.played_out {
        ExitCode::SUCCESS
    } else {
        super::say_error_line("tactus: the demo was stopped before the game was played out");
        ExitCode::from(1)
    };
    super::lines_written(Duration::from_secs(1));
    Ok(code)
}
