//! `tactus demo`: the daemon on a built-in table, with nothing to set up. Two simulated boards on
//! real pseudo-terminals (the pegged tactile board in the line protocol for the blind player,
//! White; a DGT board for the sighted player, whose moves count when his board settles) play the
//! sample game of the Laws' Appendix E. The blind player executes one of his opponent's moves
//! wrongly first and is guided to correct it. The sample stops at 17.a5 without a result; the
//! demo plays it to one: Black answers 17...Qc7 and offers a draw with it (9.1 b: the blind
//! player hears the move, then the offer), White accepts, and both hear the result. Speech goes
//! to the configured speakers in the voice pack asked for (`--voice`, de-fide by default; the
//! clips on the default device; without a device the transcript still gets every line), and
//! every file of the game folder is written. Then the daemon shuts down as on SIGTERM and the
//! demo exits 0.
//!
//! `--table blind-blind` plays the same game as IBCA events play: two blind players, each on his
//! own simulated tactile board, each hearing the other's moves and his own said back (White in
//! the left ear, Black in the right), each with his own Braille and audio scoresheet. White
//! executes one of Black's moves wrongly first and is guided; each asks the time with a button.
//!
//! This module owns the built-in configuration and its running; the game is the core's
//! (`tactus_core::sim::appendix_e`), the rest is [`crate::daemon::run`]. It must
//! not take shortcuts the daemon would not: everything goes through the wire, the recogniser,
//! the arbiter and the journal.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::config::Config;
use crate::daemon::{RunOptions, RunReport, SimSettings};
use tactus_core::sim::appendix_e::{DRAW_ACCEPT_PLY, DRAW_OFFER_PLY, MISTAKE_PLY, demo_moves};

/// The demo's table: the defaults (both boards simulated, White blind, DGT completion by
/// settling) with the demo's names and a 90-minute clock, writing into `dir`.
pub fn demo_config(dir: &Path) -> Config {
    let mut config = Config::default();
    config.game.white = Some("Blind player (simulated)".into());
    config.game.black = Some("Sighted player (simulated)".into());
    config.game.event = Some("tactus demo: the sample game of Appendix E".into());
    config.game.site = Some("tactus".into());
    config.game.round = Some("1".into());
    config.game.time_control = Some("5400+30".into());
    config.record.dir = dir.to_path_buf();
    config.console.socket = dir.join("console.sock");
    config
}

/// Which table the demo plays at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DemoTable {
    /// A blind player (White) against a sighted one: `tactus demo`.
    #[default]
    BlindSighted,
    /// Two blind players on two tactile boards (IBCA).
    BlindBlind,
}

/// The demo's table with two blind players: both boards simulated pegged boards, each seat's
/// speech on its own side of the default device.
pub fn demo_config_blind_blind(dir: &Path) -> Config {
    let mut config = demo_config(dir);
    config.game.blind = crate::config::BlindName::Both;
    config.game.white = Some("White, blind (simulated)".into());
    config.game.black = Some("Black, blind (simulated)".into());
    config.game.event =
        Some("tactus demo: the sample game of Appendix E, two blind players".into());
    config.boards.white = Some(crate::config::BoardSection::default_blind());
    config.boards.black = Some(crate::config::BoardSection::default_blind());
    // Headphones on the demo's machine: White hears his words left, Black right.
    config.voice.shared_device_channels = true;
    config
}

/// The speed checked and the demo's folder made. The folder is its own: made here (the console
/// socket is placed in it, and a socket is never given a folder of its own making).
fn prepare(dir: &Path, speed: f64) -> Result<()> {
    if !(speed.is_finite() && speed > 0.0) {
        bail!(
            "--speed {speed}: give a positive factor (1 is a human pace, 10 is ten times faster)"
        );
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the demo's folder {}", dir.display()))
}

/// What the demo is played with besides its table: where its folder goes, how fast, and in
/// which voice.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    pub dir: PathBuf,
    /// The players' pauses are divided by this.
    pub speed: f64,
    pub voices_dir: PathBuf,
    /// The voice pack everybody hears (`de-fide`, `en`, `es-fide`, `en:nato` ...).
    pub voice: String,
}

/// Run the demo at `table` (pauses divided by `speed`), said in `voice`.
pub async fn run(
    table: DemoTable,
    demo: DemoOptions,
    cancel: tokio_util::sync::CancellationToken,
) -> Result<RunReport> {
    let DemoOptions {
        dir,
        speed,
        voices_dir,
        voice,
    } = demo;
    prepare(&dir, speed)?;
    let mut config = match table {
        DemoTable::BlindSighted => demo_config(&dir),
        DemoTable::BlindBlind => demo_config_blind_blind(&dir),
    };
    config.voice.voice = voice;
    let opts = RunOptions {
        config,
        origin: "the demo's built-in configuration".into(),
        resume: None,
        new_game: true,
        sim: SimSettings {
            moves: demo_moves(),
            speed,
            blind_mistake_ply: Some(MISTAKE_PLY),
            // Before his fourth move he asks for the time with a button of his board (F.9 d).
            blind_button: Some((7, 1)),
            // With two blind players, Black asks too, before his fifth move.
            second_blind_button: (table == DemoTable::BlindBlind).then_some((10, 1)),
            // The end: Black offers a draw with 17...Qc7, White accepts.
            draw_offer_ply: Some(DRAW_OFFER_PLY),
            draw_accept_ply: Some(DRAW_ACCEPT_PLY),
            ..SimSettings::default()
        },
        echo: true,
        log: None,
        stop_when_played: true,
        voices_dir,
    };
    crate::daemon::run(opts, cancel).await
}

/// `tactus demo --train`: the blind player (White, simulated, choosing his own moves like a
/// beginner) against Stockfish on the simulated tactile board, with a 10-minute clock. Before
/// his second move he asks for a hint with a button of his board; the game is played to its end
/// and every file of the game folder is written.
pub async fn run_training(
    demo: DemoOptions,
    cancel: tokio_util::sync::CancellationToken,
) -> Result<RunReport> {
    let DemoOptions {
        dir,
        speed,
        voices_dir,
        voice,
    } = demo;
    prepare(&dir, speed)?;
    let mut config = demo_config(&dir);
    config.voice.voice = voice;
    config.game.white = Some("Blind player (simulated)".into());
    config.game.black = None;
    config.game.event = Some("tactus demo: training against Stockfish".into());
    config.game.time_control = Some("600+5".into());
    config.opponent = Some(crate::config::OpponentSection {
        skill: Some(20),
        move_time_ms: Some(300),
        ..Default::default()
    });
    config.boards.blind = Some(crate::config::BoardSection {
        buttons: Some(
            [("1", "time"), ("2", "hint"), ("3", "eval"), ("4", "repeat")]
                .into_iter()
                .map(|(n, line)| (n.to_string(), line.to_string()))
                .collect(),
        ),
        ..crate::config::BoardSection::default_blind()
    });
    let config = config.into_training();
    let opts = RunOptions {
        config,
        origin: "the demo's built-in training table".into(),
        resume: None,
        new_game: true,
        sim: SimSettings {
            moves: Vec::new(),
            speed,
            blind_chooses: Some(2),
            // Before his second move he asks for a hint with button 2 (F.9 d's keypad).
            blind_button: Some((3, 2)),
            ..SimSettings::default()
        },
        echo: true,
        log: None,
        stop_when_played: true,
        voices_dir,
    };
    crate::daemon::run(opts, cancel).await
}
