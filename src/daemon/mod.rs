//! The daemon: the tokio shell around the pure core (DESIGN §2).
//!
//! ```text
//!  serial port ── link task ─┐                                ┌─> speech task (clips/tts, transcript)
//!  serial port ── link task ─┼─ HubMsg ─> hub: Arbiter::handle ┼─> link commands (board dumps)
//!  console socket ── conn ───┤          (journal every input)  ├─> record writer (PGN, BRF, WAV, text)
//!  speech events, verdicts ──┘                                 └─> console lines, touches, notes
//! ```
//!
//! This module owns setting a game up (a new game folder with its journal header, or the
//! unfinished game found in the output folder, replayed from its journal), starting the tasks
//! ([`hub`], the board links or the simulated boards of [`simboard`], speech, the [`console`]
//! socket, the record writer of [`files`]), and shutting them down in order: one
//! [`CancellationToken`], every file flushed, the socket removed. `tactus demo` ([`demo`]) is
//! this daemon on a built-in table.
//!
//! It must not make rulings (the arbiter does) and must not end a game because something
//! outside failed: a port that cannot be opened is retried, a speaker that fails degrades to the
//! transcript, a console socket that cannot be made leaves the game without a console (and says
//! so).

pub mod clock;
pub mod console;
pub mod demo;
pub mod files;
pub mod hub;
pub mod journal;
pub mod link;
pub mod simboard;

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use anyhow::{Context, Result, anyhow, bail};
use shakmaty::{Chess, Move};
use tokio::sync::{broadcast, mpsc, watch};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use self::{
    console::ConsoleSocket,
    files::{RecordSettings, RecordWriter},
    hub::{GameClock, Hub, HubEnd, HubMsg, HubParts, Progress, Recovery},
    journal::{FORMAT_VERSION, Header, JOURNAL_FILE, Journal, SetupRecord},
    simboard::SimPlan,
};
use crate::{
    announce::{Announcement, voice::split_spec},
    arbiter::{Arbiter, ArbiterConfig, BoardId},
    board::recognize::{Mode, RecognizerConfig},
    config::{BoardSetup, Config, PortSetup},
    daemon::link::{LinkSettings, MonotonicClock},
    speech::{self, SpeechDeps},
};

/// How long the tasks get to finish after the cancellation before the daemon goes anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// The demo fails if the game makes no progress for this long (a hung simulator or recogniser
/// must not hang a script), at speed 1; shorter at higher speeds but never under 20 s.
const STALL_LIMIT: Duration = Duration::from_secs(60);

/// What the simulated boards play.
#[derive(Debug, Clone)]
pub struct SimSettings {
    /// The game's start position (must be the game's) and moves.
    pub moves: Vec<Move>,
    pub speed: f64,
    /// The ply of an opponent's move the blind player first executes wrongly.
    pub blind_mistake_ply: Option<usize>,
    /// From this ply on, the blind player's first own move is preceded by touching another of
    /// his pieces that could move (a possible claim, Art. 4.3 a).
    pub blind_touch_ply: Option<usize>,
    /// From this ply on, the blind player's first simple own move is made with his board's
    /// cable pulled between the lift and the placement, and plugged back in afterwards.
    pub blind_unplug_ply: Option<usize>,
    /// Before his own move at this ply, the blind player presses this button (a request).
    pub blind_button: Option<(usize, u8)>,
    /// The blind player executes the opponent's move as soon as it stands on the sighted
    /// board (he heard it said aloud, F.1), this many ms later, before tactus announces it.
    pub blind_executes_early_ms: Option<u64>,
    /// At this ply the blind player makes another legal move than his own (the assistant
    /// corrects it with `correct`, F.6, and he is guided to the right one).
    pub blind_wrong_ply: Option<usize>,
    /// The sighted player presses his clock (the console's `press`) this many ms after his
    /// move stands on his board; never after a move that ends the game.
    pub sighted_press_ms: Option<u64>,
    /// The players make their moves even while the clocks stand.
    pub move_while_paused: bool,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            moves: demo::appendix_e_moves(),
            speed: 1.0,
            blind_mistake_ply: None,
            blind_touch_ply: None,
            blind_unplug_ply: None,
            blind_button: None,
            blind_executes_early_ms: None,
            blind_wrong_ply: None,
            sighted_press_ms: None,
            move_while_paused: false,
        }
    }
}

/// How `run` is asked to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub config: Config,
    /// The configuration file's name, for messages.
    pub origin: String,
    /// Resume this game folder.
    pub resume: Option<PathBuf>,
    /// Start a new game even if an unfinished one is in the output folder.
    pub new_game: bool,
    pub sim: SimSettings,
    /// Print announcements and notes on standard output.
    pub echo: bool,
    /// End when the simulated boards have played every move (the demo).
    pub stop_when_played: bool,
    /// The voices folder.
    pub voices_dir: PathBuf,
}

/// What a run left behind.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub folder: PathBuf,
    pub pgn: String,
    pub over: bool,
    pub resumed: bool,
    /// The demo: every move was played.
    pub played_out: bool,
}

/// A multi-threaded runtime with two workers (analyses run on blocking threads beside it) and
/// tracing to standard error (journald under systemd).
/// `default_filter` applies unless `RUST_LOG` says otherwise (the daemon logs what it does at
/// info; the demo, whose output is for people, only warnings).
pub fn runtime(default_filter: &str) -> Result<tokio::runtime::Runtime> {
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal, not in journald or a log file.
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .try_init();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Cancel `cancel` on SIGINT or SIGTERM.
pub fn cancel_on_signals(cancel: CancellationToken) -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).context("cannot listen for SIGINT")?;
    let mut term = signal(SignalKind::terminate()).context("cannot listen for SIGTERM")?;
    tokio::spawn(async move {
        tokio::select! {
            _ = int.recv() => info!("SIGINT: shutting down"),
            _ = term.recv() => info!("SIGTERM: shutting down"),
            _ = cancel.cancelled() => return,
        }
        cancel.cancel();
    });
    Ok(())
}

/// The arbiter's configuration from the configuration file.
pub fn arbiter_config(config: &Config, origin: &str) -> Result<ArbiterConfig> {
    let recognizer = |setup: &BoardSetup| match setup {
        BoardSetup::Manual => None,
        BoardSetup::Sensor { profile, .. } => Some(RecognizerConfig::from_profile(profile)),
    };
    let blind = recognizer(&config.blind_board(origin)?)
        .ok_or_else(|| anyhow!("{origin}: the blind player's board needs sensors"))?;
    Ok(ArbiterConfig {
        rules: config
            .rules_config()
            .with_context(|| format!("{origin}: key game.time_control"))?,
        blind: config.game.blind.color(),
        blind_board: blind,
        sighted_board: recognizer(&config.sighted_board(origin)?),
        sighted_completion: config.completion(),
        guidance_repeat_ms: config.game.guidance_repeat_ms,
    })
}

/// Where the game is and how it was set up.
struct Table {
    folder: PathBuf,
    header: Header,
    journal: Journal,
    arbiter: Arbiter,
    offset: u64,
    recovery: Option<Recovery>,
    started: bool,
}

fn new_table(opts: &RunOptions) -> Result<Table> {
    let config = &opts.config;
    let cfg = arbiter_config(config, &opts.origin)?;
    let start = Chess::default();
    let created = journal::unix_ms();
    let white = config.game.white.clone().unwrap_or_default();
    let black = config.game.black.clone().unwrap_or_default();
    let folder = files::new_game_folder(&config.record_dir(), &white, &black, created)?;
    let mut tags = config.tags();
    tags.push(("Date".into(), files::pgn_date(created)));
    let header = Header {
        version: FORMAT_VERSION,
        created_unix_ms: created,
        tags,
        setup: SetupRecord::new(&cfg, &start, &config.voice.voice, config.voice.style),
    };
    let journal = Journal::create(&folder.join(JOURNAL_FILE), &header)?;
    Ok(Table {
        folder,
        header,
        journal,
        arbiter: Arbiter::new(cfg, start),
        offset: 0,
        recovery: None,
        started: false,
    })
}

fn resumed_table(folder: &Path) -> Result<Table> {
    let path = folder.join(JOURNAL_FILE);
    if !path.is_file() {
        bail!(
            "{} holds no journal ({JOURNAL_FILE}); give the folder of a game tactus played",
            folder.display()
        );
    }
    let read = journal::read(&path)?;
    if read.is_finished() {
        bail!(
            "the game in {} is over; nothing to resume (`tactus replay {}` prints it)",
            folder.display(),
            path.display()
        );
    }
    if read.torn {
        warn!(
            "{}: the last line was cut off by the crash and is dropped",
            path.display()
        );
    }
    let replayed = journal::replay(&read, |_, _| {})?;
    for skipped in &replayed.skipped {
        warn!(
            "{}: skipped an input that cannot be read back: {skipped}",
            path.display()
        );
    }
    let journal = Journal::append_to(&read)?;
    Ok(Table {
        folder: folder.to_owned(),
        header: read.header.clone(),
        journal,
        offset: replayed.last_time,
        started: replayed.started,
        recovery: Some(Recovery {
            inputs: replayed.inputs,
            unfinished: replayed.unfinished,
            pending_analyses: replayed.pending_analyses,
        }),
        arbiter: replayed.arbiter,
    })
}

/// Run the daemon until `cancel` (or, with `stop_when_played`, until the simulated game is
/// played out).
pub async fn run(opts: RunOptions, cancel: CancellationToken) -> Result<RunReport> {
    let config = &opts.config;
    let origin = opts.origin.as_str();
    // Check the boards before anything is created: a wrong profile is the user's to fix now.
    let blind_setup = config.blind_board(origin)?;
    let sighted_setup = config.sighted_board(origin)?;

    let table = match (&opts.resume, opts.new_game) {
        (Some(folder), _) => resumed_table(folder)?,
        (None, false) => match files::find_unfinished(&config.record_dir()) {
            Some(folder) => {
                info!("resuming the unfinished game in {}", folder.display());
                resumed_table(&folder)?
            }
            None => new_table(&opts)?,
        },
        (None, true) => new_table(&opts)?,
    };
    let resumed = table.recovery.is_some();
    println!(
        "tactus: game folder {}{}",
        table.folder.display(),
        if resumed { " (resumed)" } else { "" }
    );

    // The voice: words for the announcements (the journal's pack, so a resumed game keeps its
    // voice), clips for the audio scoresheet.
    let setup = &table.header.setup;
    let pack = crate::store::voices::load_words(&opts.voices_dir, &setup.voice_pack)
        .with_context(|| format!("{origin}: key voice.pack"))?;
    let style = setup.voice_style;
    // The recording joins words with the same silences as the speakers, so it sounds the same.
    let ms = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let spacing = crate::record::wav::Spacing {
        gap_ms: ms(config.voice.gap_ms),
        pause_ms: ms(config.voice.pause_ms),
    };
    let audio = match crate::store::voices::load(&opts.voices_dir, &setup.voice_pack) {
        Ok((pack, clips)) => Some((pack, style, spacing, clips)),
        Err(e) => {
            warn!("no audio scoresheet: {e}");
            None
        }
    };
    let pack_name = split_spec(&setup.voice_pack)
        .map(|(name, _)| name.to_owned())
        .unwrap_or_else(|_| setup.voice_pack.clone());

    let link_clock = MonotonicClock::new();
    let clock = GameClock {
        link: link_clock,
        offset: table.offset,
    };
    let (messages, inbox) = mpsc::channel::<HubMsg>(hub::HUB_QUEUE);
    // Room for bursts (a retrace guides square by square); a console that still falls behind is
    // told how many events it missed, and the game never waits for it.
    let (broadcast_tx, _) = broadcast::channel(1024);
    let (progress_tx, progress_rx) = watch::channel::<Progress>(Hub::progress_of(&table.arbiter));
    let tasks = cancel.child_token();
    let mut handles = Vec::new();

    // Speech.
    let mut speech_config = config.voice.clone();
    speech_config.voice = setup.voice_pack.clone();
    speech_config.style = style;
    let render_pack = pack.clone();
    let mut deps = SpeechDeps::new(
        opts.voices_dir.join(&pack_name).join("clips"),
        Box::new(move |a: &Announcement| render_pack.render(a, style)),
    );
    deps.transcript = Some(table.folder.join(files::TRANSCRIPT_FILE));
    deps.fallback_notice = Some(pack.render(&Announcement::SpeechFallback, style));
    deps.tts_language = Some(pack.language().to_owned());
    let mut speech = speech::spawn(speech_config, deps, tasks.clone());
    let speech_requests = speech.requests.clone();
    {
        let messages = messages.clone();
        handles.push(tokio::spawn(async move {
            while let Some(event) = speech.events.recv().await {
                if messages.send(HubMsg::Speech(event)).await.is_err() {
                    break;
                }
            }
            let _ = speech.task.await;
        }));
    }

    // Boards.
    let mut links: [Option<mpsc::Sender<link::LinkCommand>>; 2] = [None, None];
    let mut sim_link_dir: Option<PathBuf> = None;
    let mut sensors = [false; 2];
    let mut lever = false;
    for (board, setup) in [
        (BoardId::Blind, &blind_setup),
        (BoardId::Sighted, &sighted_setup),
    ] {
        let BoardSetup::Sensor { profile, port } = setup else {
            continue;
        };
        let i = match board {
            BoardId::Blind => 0,
            BoardId::Sighted => 1,
        };
        sensors[i] = true;
        if board == BoardId::Sighted {
            lever = profile.clock.attached && profile.clock.lever_completes_move;
        }
        let name = match board {
            BoardId::Blind => "tactile",
            BoardId::Sighted => "sighted",
        };
        let link = match port {
            PortSetup::Path(path) => link::spawn(
                LinkSettings::new(name, path, profile.clone()),
                link_clock,
                tasks.clone(),
            ),
            PortSetup::Sim => {
                let (master, slave) = tokio_serial::SerialStream::pair()
                    .context("cannot make a pseudo-terminal pair for a simulated board")?;
                let mut path = tokio_serial::SerialPort::name(&slave)
                    .map(PathBuf::from)
                    .ok_or_else(|| anyhow!("the simulated board's pseudo-terminal has no name"))?;
                info!(board = name, path = %path.display(), "simulated board");
                let blind = board == BoardId::Blind;
                let unplug_ply = opts.sim.blind_unplug_ply.filter(|_| blind);
                let mut port_link = None;
                if unplug_ply.is_some() {
                    // A board that will be unplugged is opened through a link the simulator
                    // re-points when it is plugged back in (a new pty has a new name).
                    let dir = sim_link_dir.get_or_insert_with(sim_link_folder).clone();
                    std::fs::create_dir_all(&dir).with_context(|| {
                        format!("cannot create {} for a simulated board", dir.display())
                    })?;
                    let link = dir.join(name);
                    let _ = std::fs::remove_file(&link);
                    std::os::unix::fs::symlink(&path, &link).with_context(|| {
                        format!("cannot link {} to {}", link.display(), path.display())
                    })?;
                    path = link.clone();
                    port_link = Some(link);
                }
                let plan = SimPlan {
                    moves: opts.sim.moves.clone(),
                    speed: opts.sim.speed,
                    mistake_ply: opts.sim.blind_mistake_ply.filter(|_| blind),
                    touch_ply: opts.sim.blind_touch_ply.filter(|_| blind),
                    button: opts.sim.blind_button.filter(|_| blind),
                    executes_early_ms: opts.sim.blind_executes_early_ms.filter(|_| blind),
                    wrong_ply: opts.sim.blind_wrong_ply.filter(|_| blind),
                    press_ms: opts.sim.sighted_press_ms.filter(|_| !blind),
                    move_while_paused: opts.sim.move_while_paused,
                    unplug_ply,
                    port_link,
                    hub: Some(messages.clone()),
                };
                handles.push(tokio::spawn(simboard::play(
                    board,
                    profile.clone(),
                    master,
                    plan,
                    progress_rx.clone(),
                    tasks.clone(),
                )));
                link::spawn_with(
                    LinkSettings::new(name, path, profile.clone()),
                    link_clock,
                    tasks.clone(),
                    Some(slave),
                )
            }
        };
        links[i] = Some(link.commands.clone());
        let messages = messages.clone();
        let mut events = link.events;
        let task = link.task;
        handles.push(tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if messages.send(HubMsg::Link { board, event }).await.is_err() {
                    break;
                }
            }
            let _ = task.await;
        }));
    }

    // The console, and the arbiter's token for it.
    let token_path = config
        .token_file()
        .unwrap_or_else(|| table.folder.join(crate::console::token::TOKEN_FILE));
    let token = arbiter_token(&token_path, config.token_file().is_some(), origin)?;
    println!("tactus: arbiter token in {}", token_path.display());
    let socket_path = config.socket_path();
    match ConsoleSocket::bind(&socket_path, config.console.group.as_deref()) {
        Ok(socket) => {
            info!("console on {}", socket.path().display());
            handles.push(tokio::spawn(socket.serve(
                messages.clone(),
                broadcast_tx.clone(),
                Some(token),
                tasks.clone(),
            )));
        }
        Err(e) => {
            // The game can be played without a console; the assistant must know why it is
            // missing.
            warn!("no console: {e:#}");
            eprintln!("tactus: no console: {e:#}");
        }
    }

    // The record writer.
    let braille = RecordSettings::braille_options(
        &config.record.braille_profile,
        config.record.page_cells,
        config.record.page_lines,
    )?;
    let record = RecordWriter::spawn(RecordSettings {
        folder: table.folder.clone(),
        braille,
        audio,
    });

    // The demo's end: every move played and executed on both boards, all said.
    let played_out = Arc::new(AtomicBool::new(false));
    if opts.stop_when_played {
        handles.push(tokio::spawn(watch_until_played(
            progress_rx.clone(),
            opts.sim.moves.len(),
            opts.sim.speed,
            cancel.clone(),
            played_out.clone(),
        )));
    }

    let hub = Hub::new(HubParts {
        arbiter: table.arbiter,
        clock,
        journal: Some(table.journal),
        folder: table.folder.clone(),
        tags: table.header.tags.clone(),
        speech: Some(speech_requests),
        links,
        sensors,
        lever_completes_move: lever,
        record,
        pack,
        style,
        broadcast: broadcast_tx,
        progress: progress_tx,
        messages,
        echo: opts.echo,
        recovery: table.recovery,
        started: table.started,
        buttons: config.buttons(),
    });
    let HubEnd { pgn, over } = hub.run(inbox, cancel.clone()).await;

    // Everything else stops; files are already flushed by the hub's shutdown, the transcript by
    // the speech task, the socket is removed when its server ends.
    tasks.cancel();
    for handle in handles {
        if tokio::time::timeout(SHUTDOWN_GRACE, handle).await.is_err() {
            warn!("a task did not stop within {SHUTDOWN_GRACE:?}; leaving it");
        }
    }
    if let Some(dir) = sim_link_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(RunReport {
        folder: table.folder,
        pgn,
        over,
        resumed,
        played_out: played_out.load(Ordering::SeqCst),
    })
}

/// The arbiter's token: read from `path` if it is there (a resumed game, or the arbiter's own
/// file), else made from the system's random source and written there with mode 0600.
/// `configured`: the path is the `console.token_file` key (named in errors).
fn arbiter_token(path: &Path, configured: bool, origin: &str) -> Result<String> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let key = if configured {
        format!(" ({origin}: key console.token_file)")
    } else {
        String::new()
    };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            return crate::console::token::parse_file(&text).map_err(|e| {
                anyhow!(
                    "the arbiter's token file {}{key}: {e}; delete it to have a new one made",
                    path.display()
                )
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!(
            "cannot read the arbiter's token file {}{key}: {e}",
            path.display()
        ),
    }
    let mut random = [0u8; crate::console::token::TOKEN_BYTES];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut random))
        .context("cannot read random bytes from /dev/urandom for the arbiter's token")?;
    let token = crate::console::token::from_bytes(&random);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}{key}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| {
            format!(
                "cannot create the arbiter's token file {}{key}",
                path.display()
            )
        })?;
    file.write_all(format!("{token}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write the arbiter's token file {}", path.display()))?;
    Ok(token)
}

/// A private folder for the links to simulated boards that get unplugged (one per run, also
/// when several daemons run in one process, as in tests).
fn sim_link_folder() -> PathBuf {
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "tactus-sim-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Cancel once the simulated game has been played out: every move in the record, no board still
/// executing one, nothing left to say. Gives up (without setting `played_out`) when the game
/// stalls.
async fn watch_until_played(
    mut progress: watch::Receiver<Progress>,
    plies: usize,
    speed: f64,
    cancel: CancellationToken,
    played_out: Arc<AtomicBool>,
) {
    let stall = STALL_LIMIT
        .div_f64(speed.max(1.0))
        .max(Duration::from_secs(20));
    let mut last_ply = usize::MAX;
    let mut deadline = tokio::time::Instant::now() + stall;
    loop {
        let done = {
            let p = progress.borrow_and_update();
            if p.ply != last_ply {
                last_ply = p.ply;
                deadline = tokio::time::Instant::now() + stall;
            }
            p.started
                && (p.over || p.ply >= plies)
                && !p.modes.iter().any(|m| matches!(m, Mode::Execute(_)))
                && p.speaking == 0
        };
        if done {
            // Let the last words reach the transcript and the files settle.
            tokio::time::sleep(Duration::from_millis(200)).await;
            played_out.store(true, Ordering::SeqCst);
            cancel.cancel();
            return;
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            changed = progress.changed() => if changed.is_err() { return },
            _ = tokio::time::sleep_until(deadline) => {
                warn!(ply = last_ply, "the simulated game made no progress for {stall:?}; stopping");
                eprintln!("tactus: the game made no progress for {} s at ply {last_ply}; stopping", stall.as_secs());
                cancel.cancel();
                return;
            }
        }
    }
}

/// A game time as `h:mm:ss.mmm` (the transcript of a replay has no time of day).
pub fn format_game_time(t: u64) -> String {
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
pub fn replay_lines(path: &Path, voices_dir: &Path) -> Result<Vec<String>> {
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
