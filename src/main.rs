//! The `tactus` command line: a thin front end that reads files, calls the pure core and prints.

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use tactus::{
    audit::{AuditOptions, audit_pgn},
    board_test::{self, BoardTest, Finish},
    config::Config,
    link::LinkClock,
    sim::serve::{self, SimConfig, SimGame, SimPort, SimProgress},
};
use tokio_util::sync::CancellationToken;

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
    /// The daemon: play a game over the two boards of config.toml (announce, execute, keep in
    /// sync, reconcile), with speech, the console socket and the game's files. An unfinished game
    /// in the output folder is resumed (clocks paused until `resume` at the console). Stops on
    /// SIGINT/SIGTERM with every file written.
    Run(RunArgs),
    /// Talk to a running game's console: the blind player's requests, the assistant's duties
    /// (F.9), the arbiter's commands. Interactive (plain lines, for screen readers and Braille
    /// displays), or one command with -c. `tactus console -c help` lists the commands.
    Console(tactus::console::client::ConsoleArgs),
    /// The built-in demo: two simulated boards on real pseudo-terminals play the sample game of
    /// the Laws' Appendix E through the daemon, with speech and every file of a game folder.
    Demo(DemoArgs),
    /// Print the transcript and the final PGN of a game's journal (journal.jsonl), replayed
    /// without any hardware.
    Replay {
        /// The journal (a game folder's journal.jsonl, or the folder).
        journal: PathBuf,
        /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
        #[arg(long, value_name = "DIR")]
        voices_dir: Option<PathBuf>,
    },
    /// Write a game's scoresheet as Braille (BRF or Unicode), PGN or printable text, or turn a
    /// Braille score typed on a note-taker into PGN.
    Scoresheet(tactus::store::scoresheet::ScoresheetArgs),
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
    /// Print the words a voice pack says for each move (and render them to a WAV audio
    /// scoresheet with --wav).
    Say(SayArgs),
    /// List the voice packs, their languages and what each lacks (words or clips), if anything.
    /// Exits with 1 when a pack lacks something.
    Voices(VoicesArgs),
    /// Speak one utterance with one speaker and report timings (audio set-up check, the audio
    /// tests, the speech latency benchmark).
    #[command(hide = true)]
    SpeakTest(tactus::speech::probe::ProbeArgs),
    /// Connect to a sensor board and print the board it sees, then every touch and every
    /// recognised move in SAN, live (both sides move on this board). For setting up a board.
    BoardTest {
        #[command(flatten)]
        board: BoardArgs,
        /// One JSON object per line instead of plain text.
        #[arg(long)]
        json: bool,
        /// The position the board should show at the start (default: the initial position).
        #[arg(long, value_name = "FEN")]
        fen: Option<String>,
        /// Exit after this many recognised moves.
        #[arg(long, value_name = "N")]
        moves: Option<usize>,
        /// Exit when the game ends on the board (checkmate, stalemate, dead position).
        #[arg(long)]
        until_end: bool,
    },
    /// Simulate a sensor board on a serial port (e.g. one end of a socat pty pair) and play a
    /// game from a PGN file on it, the way hands do.
    Sim {
        #[command(flatten)]
        board: BoardArgs,
        /// The PGN file holding the game.
        #[arg(long, value_name = "FILE")]
        pgn: PathBuf,
        /// Which game of the file (1 = the first).
        #[arg(long, value_name = "N", default_value_t = 1)]
        game: usize,
        /// Start from the position after this many half-moves of the game (set up, not played).
        #[arg(long, value_name = "PLIES", default_value_t = 0)]
        from_ply: usize,
        /// Play at most this many half-moves.
        #[arg(long, value_name = "PLIES")]
        plies: Option<usize>,
        /// How the hands move, comma-separated: captured-first, mover-first, replace; king-first,
        /// rook-first; ep-captured-first, ep-captured-last; bounce, reorder, slide; calm.
        #[arg(long, value_name = "WORDS")]
        style: Option<String>,
        /// Milliseconds between the events of one move (default: the style's).
        #[arg(long, value_name = "MS")]
        step_ms: Option<u64>,
        /// Milliseconds between moves (on a DGT board the player also waits until the host has
        /// read the board after his move).
        #[arg(long, value_name = "MS", default_value_t = 500)]
        move_pause_ms: u64,
        /// Milliseconds the player pauses after a promotion on an occupancy board, to announce
        /// the piece.
        #[arg(long, value_name = "MS", default_value_t = 1500)]
        announce_pause_ms: u64,
        /// Inject garbage bytes between messages.
        #[arg(long)]
        garbage: bool,
        /// Seed for the garbage.
        #[arg(long, default_value_t = 0x5eed)]
        seed: u64,
        /// Pull the cable after this many moves: close the port and reopen it after a pause.
        #[arg(long, value_name = "N")]
        disconnect_after: Option<usize>,
        /// How long the cable stays out, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 3000)]
        disconnect_ms: u64,
        /// Make the next move while the cable is out.
        #[arg(long)]
        move_while_away: bool,
        /// Simulate a DGT board set up the other way round.
        #[arg(long)]
        reversed: bool,
        /// After the last move, keep answering the host this many milliseconds, then exit
        /// (default: until Ctrl-C).
        #[arg(long, value_name = "MS")]
        linger_ms: Option<u64>,
    },
}

/// The board a command talks to.
#[derive(clap::Args)]
struct BoardArgs {
    /// The board profile: a name (dgt, pegged-line) ...
    #[arg(long, value_name = "NAME", required_unless_present = "profile_file")]
    profile: Option<String>,
    /// ... or a profile file (see boards/README.md).
    #[arg(long, value_name = "PATH", conflicts_with = "profile")]
    profile_file: Option<PathBuf>,
    /// The serial port; prefer the stable names under /dev/serial/by-id/.
    #[arg(long, value_name = "PATH")]
    port: PathBuf,
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
        Command::Scoresheet(args) => tactus::store::scoresheet::run(args),
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
        Command::SpeakTest(args) => tactus::speech::probe::main(args),
        Command::Say(args) => say(args),
        Command::Voices(args) => list_voices(args),
        Command::Run(args) => run_daemon(args),
        Command::Console(args) => tactus::console::client::main(args),
        Command::Demo(args) => demo(args),
        Command::Replay {
            journal,
            voices_dir,
        } => {
            let path = if journal.is_dir() {
                journal.join(tactus::daemon::journal::JOURNAL_FILE)
            } else {
                journal
            };
            let dir = voices_dir.unwrap_or_else(tactus::voices::default_dir);
            for line in tactus::daemon::replay_lines(&path, &dir)? {
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::CheckConfig { file } => {
            let config = Config::load(&file)?;
            let rules = config.rules_config()?;
            let origin = file.display().to_string();
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
                    tactus::config::BoardSetup::Manual => {
                        println!("  {name}: manual (moves entered at the console)")
                    }
                    tactus::config::BoardSetup::Sensor { profile, port } => println!(
                        "  {name}: {} on {}",
                        profile.name,
                        match port {
                            tactus::config::PortSetup::Sim => "a simulated board".to_string(),
                            tactus::config::PortSetup::Path(p) => p.display().to_string(),
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
        Command::BoardTest {
            board,
            json,
            fen,
            moves,
            until_end,
        } => {
            let profile =
                board_test::load_profile(board.profile.as_deref(), board.profile_file.as_deref())?;
            let start = match &fen {
                Some(fen) => board_test::parse_fen(fen)?,
                None => shakmaty::Chess::default(),
            };
            let opts = board_test::Options {
                profile,
                port: board.port,
                json,
                start,
                moves,
                until_end,
            };
            let summary = runtime()?.block_on(async {
                let cancel = CancellationToken::new();
                let on_ctrl_c = cancel.clone();
                tokio::spawn(async move {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        on_ctrl_c.cancel();
                    }
                });
                let input = board_test::stdin_lines();
                BoardTest::new(opts, std::io::stdout().lock(), LinkClock::new())
                    .run(input, cancel)
                    .await
            })?;
            if !json && summary.finish == Finish::Interrupted {
                println!("Stopped after {} move(s).", summary.moves.len());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Sim {
            board,
            pgn,
            game,
            from_ply,
            plies,
            style,
            step_ms,
            move_pause_ms,
            announce_pause_ms,
            garbage,
            seed,
            disconnect_after,
            disconnect_ms,
            move_while_away,
            reversed,
            linger_ms,
        } => {
            let profile =
                board_test::load_profile(board.profile.as_deref(), board.profile_file.as_deref())?;
            let bytes =
                std::fs::read(&pgn).with_context(|| format!("cannot read {}", pgn.display()))?;
            let sim_game = pick_game(&bytes, &pgn, game, from_ply, plies)?;
            let mut cfg = SimConfig::new(profile);
            if let Some(spec) = &style {
                cfg.style = serve::parse_style(cfg.style, spec)?;
            }
            if let Some(ms) = step_ms {
                cfg.style.step_ms = ms;
            }
            cfg.move_pause = Duration::from_millis(move_pause_ms);
            cfg.announce_pause = Duration::from_millis(announce_pause_ms);
            cfg.garbage = garbage;
            cfg.seed = seed;
            cfg.disconnect_after = disconnect_after;
            cfg.disconnect_for = Duration::from_millis(disconnect_ms);
            cfg.move_while_away = move_while_away;
            cfg.linger = linger_ms.map(Duration::from_millis);
            if reversed {
                cfg.orientation = tactus::board::Orientation::Reversed;
            }
            cfg.check()?;
            println!(
                "Simulating {} on {}: {} half-move(s) of game {game} of {}.",
                cfg.profile.description,
                board.port.display(),
                sim_game.moves.len(),
                pgn.display()
            );
            runtime()?.block_on(async {
                let cancel = CancellationToken::new();
                let on_ctrl_c = cancel.clone();
                tokio::spawn(async move {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        on_ctrl_c.cancel();
                    }
                });
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                let printer = tokio::spawn(async move {
                    while let Some(p) = rx.recv().await {
                        println!("{}", describe_progress(&p));
                    }
                });
                let result =
                    serve::serve(SimPort::Path(board.port), cfg, sim_game, cancel, Some(tx)).await;
                let _ = printer.await;
                result
            })?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The runtime for the commands that talk to boards: one thread is plenty for a few ports, and
/// keeps event handling free of cross-thread wake-ups. Also sets up their logs, which are for
/// developers (RUST_LOG=tactus=debug): users read the commands' output, which already reports
/// every disconnect and every skipped message.
fn runtime() -> Result<tokio::runtime::Runtime> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error")),
        )
        .try_init();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The game the simulator plays: game `n` of the file, from ply `from`, at most `plies` long.
fn pick_game(
    bytes: &[u8],
    path: &std::path::Path,
    n: usize,
    from: usize,
    plies: Option<usize>,
) -> Result<SimGame> {
    let games = tactus::rules::pgn::read_pgn_each(bytes);
    let count = games.len();
    let game = games
        .into_iter()
        .nth(n.saturating_sub(1))
        .filter(|_| n >= 1)
        .with_context(|| {
            format!(
                "{} has {count} game(s); there is no game {n}",
                path.display()
            )
        })?
        .with_context(|| format!("cannot play game {n} of {}", path.display()))?;
    if from > game.moves.len() {
        anyhow::bail!(
            "game {n} has {} half-moves; cannot start after {from}",
            game.moves.len()
        );
    }
    let mut start = game.start.clone();
    for &m in &game.moves[..from] {
        shakmaty::Position::play_unchecked(&mut start, m);
    }
    let end = plies.map_or(game.moves.len(), |p| (from + p).min(game.moves.len()));
    Ok(SimGame {
        start,
        moves: game.moves[from..end].to_vec(),
    })
}

fn describe_progress(p: &SimProgress) -> String {
    match p {
        SimProgress::Opened => "Port open; waiting for the host to read the board.".into(),
        SimProgress::Read => "The host has read the board.".into(),
        SimProgress::Moved {
            ply,
            san,
            written: Some(_),
        } => format!("Played {ply}: {san}."),
        SimProgress::Moved {
            ply,
            san,
            written: None,
        } => format!("Played {ply}: {san} (while the board was away)."),
        SimProgress::Closed { reason } => format!("Port closed: {reason}."),
        SimProgress::Finished => "Game over; still answering the host (Ctrl-C to stop).".into(),
    }
}

// `tactus say` and `tactus voices`: the voice packs, their words and the audio scoresheet.

/// `tactus say`.
#[derive(clap::Args)]
struct SayArgs {
    /// The voice pack, optionally with its file names: de-fide (default), es-fide, en,
    /// en:letters, en:nato.
    #[arg(long, value_name = "NAME", default_value = tactus::announce::voice::DEFAULT_VOICE)]
    voice: String,
    /// san ("Springer Felix drei") or long ("Springer Gustav eins Felix drei").
    #[arg(long, default_value = "san")]
    style: tactus::announce::voice::Style,
    /// The position before the first move (default: the initial position).
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// Also render the announcements to this WAV file (an audio scoresheet) and its cue list
    /// (OUT.cues.txt: start and end in seconds, move number and words, one line per move).
    #[arg(long, value_name = "OUT.wav")]
    wav: Option<PathBuf>,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// The moves: SAN or any form tactus reads (e4, Nf3, 0-0, e7e8q, Ng1-f3). Move numbers
    /// ("1.", "1...") and a result ("1-0") are skipped; one argument may hold several moves.
    #[arg(required = true, value_name = "MOVES")]
    moves: Vec<String>,
}

/// `tactus voices`.
#[derive(clap::Args)]
struct VoicesArgs {
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
    /// Print every clip PACK needs, one `stem<TAB>language<TAB>text` line each, from the pack's
    /// voice.toml in the voices folder (what voices/make-clips.sh records).
    #[arg(long, value_name = "PACK", hide = true)]
    clip_list: Option<String>,
}

/// Whether a word of `tactus say` is a move number or a result rather than a move.
fn is_move_number_or_result(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    (!digits.is_empty() && digits.len() < token.len() && digits.bytes().all(|b| b.is_ascii_digit()))
        || matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

fn say(args: SayArgs) -> Result<ExitCode> {
    use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen};
    use tactus::announce::{Announcement, MoveWords, voice::Utterance};
    use tactus::{
        record::wav::{self, Spacing},
        store::audio::AudioScoresheet,
    };

    let dir = args
        .voices_dir
        .clone()
        .unwrap_or_else(tactus::voices::default_dir);
    // Clips are only needed (and only checked) when there is audio to render.
    let (pack, clips) = match &args.wav {
        Some(_) => {
            let (pack, clips) = tactus::voices::load(&dir, &args.voice)?;
            (pack, Some(clips))
        }
        None => (tactus::voices::load_words(&dir, &args.voice)?, None),
    };
    let mut pos = match &args.fen {
        None => Chess::default(),
        Some(fen) => fen
            .parse::<Fen>()
            .with_context(|| format!("cannot read the FEN '{fen}'"))?
            .into_position(CastlingMode::Standard)
            .map_err(|e| anyhow::anyhow!("the FEN '{fen}' is not a legal position: {e}"))?,
    };

    // Every move is read before anything is printed or written: a bad move leaves no half file.
    let mut said: Vec<(String, String, Utterance)> = Vec::new();
    for token in args.moves.iter().flat_map(|m| m.split_whitespace()) {
        if is_move_number_or_result(token) {
            continue;
        }
        let label = format!(
            "{}{}",
            pos.fullmoves(),
            if pos.turn().is_white() { "." } else { "..." }
        );
        let m = tactus::rules::notation::match_move(&pos, token).map_err(|e| {
            let fen = Fen::from_position(&pos, EnPassantMode::Legal);
            anyhow::anyhow!("move {label} '{token}' in the position {fen}: {e}")
        })?;
        let san = tactus::rules::notation::san(&pos, m);
        let words = MoveWords::new(&pos, m);
        pos.play_unchecked(m);
        let utterance = pack.render(&Announcement::Move(words), args.style);
        said.push((label.clone(), san, utterance));
        if pos.is_stalemate() {
            let stalemate = pack.render(&Announcement::Stalemate, args.style);
            said.push((label, String::new(), stalemate));
        }
    }
    for (label, san, utterance) in &said {
        println!("{label:<6} {san:<8} {}", utterance.text);
    }

    if let (Some(out), Some(clips)) = (&args.wav, &clips) {
        let mut sheet = AudioScoresheet::create(out, wav::BETWEEN_ANNOUNCEMENTS_MS)?;
        for (label, _, utterance) in &said {
            let samples = wav::assemble(utterance, Spacing::DEFAULT, clips.loader())
                .map_err(|e| anyhow::anyhow!("voice pack '{}': {e}", pack.name()))?;
            sheet.append(label, &utterance.text, &samples)?;
        }
        let samples = sheet.len_samples();
        let cue_path = sheet.cue_path().to_owned();
        sheet.finish()?;
        eprintln!(
            "wrote {} ({} announcements, {:.1} s) and {}",
            out.display(),
            said.len(),
            wav::samples_to_ms(samples) as f64 / 1000.0,
            cue_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn list_voices(args: VoicesArgs) -> Result<ExitCode> {
    let dir = args.voices_dir.unwrap_or_else(tactus::voices::default_dir);
    if let Some(name) = args.clip_list {
        // From the folder, not the built-in copy: the script records what the file says now.
        let pack = tactus::voices::read_pack(&dir.join(&name))?;
        for clip in pack.clip_texts() {
            println!("{}\t{}\t{}", clip.stem, clip.language, clip.text);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let statuses = tactus::voices::survey(&dir);
    println!("Voice packs in {}:", dir.display());
    for status in &statuses {
        match &status.pack {
            Some(pack) => {
                let files: Vec<&str> = pack.available_files().iter().map(|f| f.as_str()).collect();
                println!(
                    "\n{}  ({}) {}\n    file names: {}; {} words, {} clips",
                    status.name,
                    pack.language(),
                    pack.description(),
                    files.join(", "),
                    pack.words().len(),
                    pack.clip_stems().len()
                );
            }
            None => println!("\n{}", status.name),
        }
        if status.problems.is_empty() {
            println!("    complete");
        }
        for problem in &status.problems {
            println!("    lacks: {problem}");
        }
    }
    Ok(if statuses.iter().all(|s| s.problems.is_empty()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

// `tactus run`, `tactus demo`: the daemon (src/daemon/).

/// `tactus run`.
#[derive(clap::Args)]
struct RunArgs {
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
}

/// `tactus demo`.
#[derive(clap::Args)]
struct DemoArgs {
    /// Divide the players' pauses by this factor (1: about a minute and a half).
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    speed: f64,
    /// Where the game folder goes.
    #[arg(long, value_name = "DIR", default_value = "tactus-demo")]
    dir: PathBuf,
    /// The voices folder (default: $TACTUS_VOICES, ./voices, or the source tree's voices/).
    #[arg(long, value_name = "DIR")]
    voices_dir: Option<PathBuf>,
}

/// `--sim-hands`: see [`RunArgs::sim_hands`].
fn sim_hands(sim: &mut tactus::daemon::SimSettings, list: &str) -> Result<()> {
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

fn run_daemon(args: RunArgs) -> Result<ExitCode> {
    let config = Config::load(&args.config)?;
    let mut sim = tactus::daemon::SimSettings {
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
    let opts = tactus::daemon::RunOptions {
        origin: args.config.display().to_string(),
        config,
        resume: args.resume,
        new_game: args.new,
        sim,
        echo: false,
        stop_when_played: false,
        voices_dir: args.voices_dir.unwrap_or_else(tactus::voices::default_dir),
    };
    let rt = tactus::daemon::runtime("warn,tactus=info")?;
    let report = rt.block_on(async {
        let cancel = CancellationToken::new();
        tactus::daemon::cancel_on_signals(cancel.clone())?;
        tactus::daemon::run(opts, cancel).await
    })?;
    // The analyses' blocking threads may still search; they hold nothing that needs saving.
    rt.shutdown_timeout(Duration::from_millis(200));
    println!(
        "tactus: stopped; the game's files are in {}",
        report.folder.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn demo(args: DemoArgs) -> Result<ExitCode> {
    let voices_dir = args.voices_dir.unwrap_or_else(tactus::voices::default_dir);
    let rt = tactus::daemon::runtime("warn")?;
    let report = rt.block_on(async {
        let cancel = CancellationToken::new();
        tactus::daemon::cancel_on_signals(cancel.clone())?;
        tactus::daemon::demo::run(args.dir, args.speed, voices_dir, cancel).await
    })?;
    rt.shutdown_timeout(Duration::from_millis(200));
    println!();
    println!("{}", report.pgn.trim_end());
    println!();
    println!("The game's files are in {}:", report.folder.display());
    for name in tactus::daemon::files::all_files() {
        println!("  {name}");
    }
    if report.played_out {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("tactus: the demo was stopped before the game was played out");
        Ok(ExitCode::from(1))
    }
}
