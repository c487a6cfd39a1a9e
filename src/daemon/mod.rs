//! The daemon: the tokio shell around the pure core (DESIGN §2).
//!
//! ```text
//!  serial port ── link task ─┐                                ┌─> speech task (clips/tts, transcript)
//!  serial port ── link task ─┼─ HubMsg ─> hub: Arbiter::handle ┼─> link commands (board dumps)
//!  console socket ── conn ───┤          (journal every input)  ├─> record writer (PGN, BRF, WAV, text)
//!  speech events, verdicts ──┘                                 └─> console lines, touches, notes
//! ```
//!
//! This module owns a run: the table from [`setup`] (a new game folder with its journal header,
//! or the unfinished game found in the output folder, replayed from its journal), the game's
//! voice, starting the tasks ([`hub`], the board links of [`link`] or the simulated boards of
//! [`simboard`], speech, the [`console`] socket, the record writer of [`files`]), and shutting
//! them down in order: one [`CancellationToken`], every file flushed, the socket removed.
//! `tactus demo` ([`demo`]) is this daemon on a built-in table.
//!
//! It must not make rulings (the arbiter does) and must not end a game because something
//! outside failed: a port that cannot be opened is retried, a speaker that fails degrades to the
//! transcript, a console socket that cannot be made leaves the game without a console (and says
//! so).

pub mod clock;
pub mod console;
pub mod demo;
pub mod engine;
pub mod files;
pub mod hub;
pub mod journal;
pub mod link;
pub mod setup;
pub mod simboard;
pub mod uid;

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use anyhow::{Context, Result, anyhow};
use shakmaty::Move;
use tokio::{
    sync::{broadcast, mpsc, watch},
    task::JoinHandle,
};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use self::{
    console::ConsoleSocket,
    files::{AudioSettings, RecordSettings, RecordWriter},
    hub::{GameClock, Hub, HubEnd, HubMsg, HubParts, Progress},
    link::{LinkSettings, MonotonicClock},
    simboard::SimPlan,
};
use crate::{
    config::{BoardSetup, Config, PortSetup},
    speech::{self, SpeechDeps, Wording},
};
use tactus_core::{
    announce::{Announcement, voice::split_spec},
    arbiter::{BoardId, ByBoard},
    board::{profile::Profile, recognize::Mode},
    journal::SetupRecord,
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
    /// Past the end of `moves` the blind player chooses his own moves, with this seed (a
    /// training game: the engine's replies are not known in advance).
    pub blind_chooses: Option<u64>,
    /// The tactile board, switched on, shows this rather than the game's start (it is then
    /// guided to the start before play).
    pub blind_initial: Option<shakmaty::Board>,
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
            blind_chooses: None,
            blind_initial: None,
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
    /// Half-moves played, and whose move it is.
    pub ply: usize,
    pub to_move: shakmaty::Color,
    /// A training game (`tactus train` resumes it, not `tactus run`).
    pub training: bool,
}

impl RunReport {
    /// What is left of a game stopped before its end, for the person who stopped it: where it
    /// stands and how to go on. None for a game that is over.
    pub fn unfinished(&self) -> Option<String> {
        if self.over {
            return None;
        }
        let side = match self.to_move {
            shakmaty::Color::White => "White",
            shakmaty::Color::Black => "Black",
        };
        let at = match (self.ply, self.to_move) {
            (0, _) => "before the first move".to_string(),
            (ply, shakmaty::Color::White) => format!("after move {}", ply / 2),
            (ply, shakmaty::Color::Black) => format!("after White's move {}", ply.div_ceil(2)),
        };
        let command = if self.training {
            "tactus train"
        } else {
            "tactus run"
        };
        Some(format!(
            "game unfinished {at}, {side} to move; `{command}` resumes it"
        ))
    }
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

/// Run the daemon until `cancel` (or, with `stop_when_played`, until the simulated game is
/// played out).
pub async fn run(opts: RunOptions, cancel: CancellationToken) -> Result<RunReport> {
    let config = &opts.config;
    let origin = opts.origin.as_str();
    // Check the boards before anything is created: a wrong profile is the user's to fix now.
    let boards = ByBoard {
        blind: config.blind_board(origin)?,
        sighted: config.sighted_board(origin)?,
    };
    // The console before the game: a game nobody can command (a recovered game stays paused until
    // the arbiter's `resume`) must not start, and nothing is made for it.
    let socket = ConsoleSocket::bind(&config.socket_path(), config.console.group.as_deref())
        .map_err(|e| {
            anyhow!(
                "no console, so no game: {e:#} (the assistant's commands and the arbiter's \
                 resume need it; see key console.socket in {origin})"
            )
        })?;
    let table = setup::open(
        config,
        origin,
        &opts.voices_dir,
        opts.resume.as_deref(),
        opts.new_game,
    )?;
    let resumed = table.recovery.is_some();
    println!(
        "tactus: game folder {}{}",
        table.folder.display(),
        if resumed { " (resumed)" } else { "" }
    );
    let voice = Voice::load(&opts, &table.header.setup)?;
    if resumed {
        for line in setup::saved_settings(config, origin, &table.header) {
            println!("tactus: {line}");
        }
        if !table.arbiter.game().is_over() {
            // What both players hear, in the same words and order (the pack's language).
            let words: Vec<String> = hub::recovery_words(&table.arbiter)
                .iter()
                .map(|a| voice.wording.text(a))
                .collect();
            println!("tactus: {}", words.join(", "));
        }
    }

    let link_clock = MonotonicClock::new();
    let (messages, inbox) = mpsc::channel::<HubMsg>(hub::HUB_QUEUE);
    // Room for bursts (a retrace guides square by square); a console that still falls behind is
    // told how many events it missed, and the game never waits for it.
    let (broadcast_tx, _) = broadcast::channel(1024);
    let (progress_tx, progress_rx) = watch::channel::<Progress>(Hub::progress_of(&table.arbiter));
    let mut tasks = Tasks {
        cancel: cancel.child_token(),
        handles: Vec::new(),
        hub: messages.clone(),
    };

    let speech = tasks.speech(config, &opts.voices_dir, &voice, &table.folder);
    // A resumed game's simulated board shows the game where it was, as a real one would.
    let mut sim = opts.sim.clone();
    if resumed {
        sim.blind_initial = None;
    }
    // A board expected to show anything but the start position (a resumed game, a game set up
    // from a position) cannot have its orientation detected from it; its link says so rightly.
    let under_way =
        *shakmaty::Position::board(table.arbiter.game().position()) != shakmaty::Board::new();
    let started = tasks.boards(&sim, &boards, under_way, link_clock, &progress_rx)?;
    tasks.console(socket, config, origin, &table.folder, &broadcast_tx)?;
    let engine = config.opponent.as_ref().map(|o| tasks.engine(o));
    let record = RecordWriter::spawn(RecordSettings {
        folder: table.folder.clone(),
        braille: RecordSettings::braille_options(
            &config.record.braille_profile,
            config.record.page_cells,
            config.record.page_lines,
        )?,
        audio: voice.audio,
    });
    // The demo's end: every move played and executed on both boards, all said.
    let played_out = Arc::new(AtomicBool::new(false));
    if opts.stop_when_played {
        // A training game's moves are not known in advance: it is played out when it is over.
        let plies = if config.opponent.is_some() {
            usize::MAX
        } else {
            opts.sim.moves.len()
        };
        tasks.spawn(watch_until_played(
            progress_rx.clone(),
            plies,
            opts.sim.speed,
            cancel.clone(),
            played_out.clone(),
        ));
    }

    let hub = Hub::new(HubParts {
        arbiter: table.arbiter,
        clock: GameClock {
            link: link_clock,
            offset: table.offset,
        },
        journal: Some(table.journal),
        folder: table.folder.clone(),
        tags: table.header.tags.clone(),
        speech: Some(speech),
        links: started.links,
        sensors: started.sensors,
        lever_completes_move: started.lever,
        record,
        wording: voice.wording,
        broadcast: broadcast_tx,
        progress: progress_tx,
        messages,
        echo: opts.echo,
        recovery: table.recovery,
        buttons: config.buttons(),
        engine,
    });
    let HubEnd {
        pgn,
        over,
        ply,
        to_move,
    } = hub.run(inbox, cancel.clone()).await;

    // Everything else stops; files are already flushed by the hub's shutdown, the transcript by
    // the speech task, the socket is removed when its server ends.
    tasks.stop().await;
    if let Some(dir) = started.sim_link_dir {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(RunReport {
        folder: table.folder,
        pgn,
        over,
        resumed,
        played_out: played_out.load(Ordering::SeqCst),
        ply,
        to_move,
        training: opts.config.opponent.is_some(),
    })
}

/// The game's voice: the words of its pack (the journal's pack, so a resumed game keeps its
/// voice) and, when the pack has clips, what the audio scoresheet needs.
struct Voice {
    /// The pack's words in the game's style: what is said and printed.
    wording: Wording,
    /// The pack as the setup names it (`name` or `name:variant`).
    spec: String,
    /// The pack's folder name, without the variant.
    pack_name: String,
    audio: Option<AudioSettings>,
}

impl Voice {
    fn load(opts: &RunOptions, setup: &SetupRecord) -> Result<Voice> {
        let pack = crate::store::voices::load_words(&opts.voices_dir, &setup.voice_pack)
            .with_context(|| format!("{}: key voice.pack", opts.origin))?;
        let style = setup.voice_style;
        // The recording joins words with the same silences as the speakers, so it sounds the
        // same.
        let spacing = tactus_core::record::wav::Spacing {
            gap_ms: opts.config.voice.gap_ms,
            pause_ms: opts.config.voice.pause_ms,
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
        Ok(Voice {
            wording: Wording::new(pack, style),
            spec: setup.voice_pack.clone(),
            pack_name,
            audio,
        })
    }
}

/// What the board tasks give the hub.
struct StartedBoards {
    /// Each sensor board's command channel (a dump request).
    links: ByBoard<Option<mpsc::Sender<link::LinkCommand>>>,
    sensors: ByBoard<bool>,
    /// The sighted board's clock lever completes his move.
    lever: bool,
    /// The folder of the links to simulated boards that get unplugged, removed at the end.
    sim_link_dir: Option<PathBuf>,
}

/// The tasks a run starts beside the hub: one cancellation for all, their handles to wait for,
/// and the hub's inbox they report to.
struct Tasks {
    cancel: CancellationToken,
    handles: Vec<JoinHandle<()>>,
    hub: mpsc::Sender<HubMsg>,
}

impl Tasks {
    fn spawn(&mut self, task: impl Future<Output = ()> + Send + 'static) {
        self.handles.push(tokio::spawn(task));
    }

    /// Pass a task's events on to the hub, then wait for the task to end.
    fn forward<T: Send + 'static>(
        &mut self,
        mut events: impl EventSource<T>,
        task: JoinHandle<()>,
        wrap: impl Fn(T) -> HubMsg + Send + 'static,
    ) {
        let hub = self.hub.clone();
        self.spawn(async move {
            while let Some(event) = events.next().await {
                if hub.send(wrap(event)).await.is_err() {
                    break;
                }
            }
            let _ = task.await;
        });
    }

    /// The speech task, with the game's voice; returns where to send what is to be said.
    fn speech(
        &mut self,
        config: &Config,
        voices_dir: &Path,
        voice: &Voice,
        folder: &Path,
    ) -> mpsc::Sender<speech::SpeechRequest> {
        let mut speech_config = config.voice.clone();
        speech_config.voice = voice.spec.clone();
        speech_config.style = voice.wording.style();
        let mut deps = SpeechDeps::new(
            voices_dir.join(&voice.pack_name).join("clips"),
            voice.wording.renderer(),
        );
        deps.transcript = Some(folder.join(files::TRANSCRIPT_FILE));
        deps.fallback_notice = Some(voice.wording.words(&Announcement::SpeechFallback));
        deps.tts_language = Some(voice.wording.pack().language().to_owned());
        let speech = speech::spawn(speech_config, deps, self.cancel.clone());
        self.forward(speech.events, speech.task, HubMsg::Speech);
        speech.requests
    }

    /// A link task for each sensor board (and, for a simulated one, the simulated board on the
    /// other end of a pseudo-terminal).
    fn boards(
        &mut self,
        sim: &SimSettings,
        boards: &ByBoard<BoardSetup>,
        game_under_way: bool,
        clock: MonotonicClock,
        progress: &watch::Receiver<Progress>,
    ) -> Result<StartedBoards> {
        let mut started = StartedBoards {
            links: ByBoard::default(),
            sensors: ByBoard::default(),
            lever: false,
            sim_link_dir: None,
        };
        for (board, setup) in boards.iter() {
            let BoardSetup::Sensor { profile, port } = setup else {
                continue;
            };
            started.sensors[board] = true;
            if board == BoardId::Sighted {
                started.lever = profile.clock.attached && profile.clock.lever_completes_move;
            }
            let settings = |path| LinkSettings {
                game_under_way,
                ..LinkSettings::new(board.name(), path, profile.clone())
            };
            let link = match port {
                PortSetup::Path(path) => {
                    link::spawn(settings(path.clone()), clock, self.cancel.clone())
                }
                PortSetup::Sim => {
                    let (path, slave) =
                        self.sim_board(sim, board, profile, progress, &mut started.sim_link_dir)?;
                    link::spawn_with(settings(path), clock, self.cancel.clone(), Some(slave))
                }
            };
            started.links[board] = Some(link.commands.clone());
            self.forward(link.events, link.task, move |event| HubMsg::Link {
                board,
                event,
            });
        }
        Ok(started)
    }

    /// A simulated board on a new pseudo-terminal pair, playing `sim`; returns the path the link
    /// opens and the link's end of the pair.
    fn sim_board(
        &mut self,
        sim: &SimSettings,
        board: BoardId,
        profile: &Profile,
        progress: &watch::Receiver<Progress>,
        sim_link_dir: &mut Option<PathBuf>,
    ) -> Result<(PathBuf, tokio_serial::SerialStream)> {
        let (master, slave) = tokio_serial::SerialStream::pair()
            .context("cannot make a pseudo-terminal pair for a simulated board")?;
        let mut path = tokio_serial::SerialPort::name(&slave)
            .map(PathBuf::from)
            .ok_or_else(|| anyhow!("the simulated board's pseudo-terminal has no name"))?;
        let name = board.name();
        info!(board = name, path = %path.display(), "simulated board");
        let blind = board == BoardId::Blind;
        let unplug_ply = sim.blind_unplug_ply.filter(|_| blind);
        let mut port_link = None;
        if unplug_ply.is_some() {
            // A board that will be unplugged is opened through a link the simulator re-points
            // when it is plugged back in (a new pty has a new name).
            let dir = sim_link_dir.get_or_insert_with(sim_link_folder).clone();
            std::fs::create_dir_all(&dir).with_context(|| {
                format!("cannot create {} for a simulated board", dir.display())
            })?;
            let link = dir.join(name);
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&path, &link)
                .with_context(|| format!("cannot link {} to {}", link.display(), path.display()))?;
            path = link.clone();
            port_link = Some(link);
        }
        let plan = SimPlan {
            moves: sim.moves.clone(),
            speed: sim.speed,
            mistake_ply: sim.blind_mistake_ply.filter(|_| blind),
            touch_ply: sim.blind_touch_ply.filter(|_| blind),
            button: sim.blind_button.filter(|_| blind),
            executes_early_ms: sim.blind_executes_early_ms.filter(|_| blind),
            wrong_ply: sim.blind_wrong_ply.filter(|_| blind),
            press_ms: sim.sighted_press_ms.filter(|_| !blind),
            move_while_paused: sim.move_while_paused,
            unplug_ply,
            port_link,
            hub: Some(self.hub.clone()),
            choose: sim.blind_chooses.filter(|_| blind),
            initial: sim.blind_initial.clone().filter(|_| blind),
        };
        self.spawn(simboard::play(
            board,
            profile.clone(),
            master,
            plan,
            progress.clone(),
            self.cancel.clone(),
        ));
        Ok((path, slave))
    }

    /// The console socket, and the arbiter's token for it. A socket that cannot be made leaves
    /// the game without a console; a token that cannot be read or made stops the start.
    fn console(
        &mut self,
        socket: ConsoleSocket,
        config: &Config,
        origin: &str,
        folder: &Path,
        broadcast: &broadcast::Sender<hub::Broadcast>,
    ) -> Result<()> {
        let token_path = config
            .token_file()
            .unwrap_or_else(|| folder.join(tactus_core::console::token::TOKEN_FILE));
        let token = console::arbiter_token(&token_path, config.token_file().is_some(), origin)?;
        println!("tactus: arbiter token in {}", token_path.display());
        info!("console on {}", socket.path().display());
        let serve = socket.serve(
            self.hub.clone(),
            broadcast.clone(),
            Some(token),
            self.cancel.clone(),
        );
        self.spawn(serve);
        Ok(())
    }

    /// The training opponent's engine process.
    fn engine(
        &mut self,
        opponent: &crate::config::OpponentSection,
    ) -> mpsc::Sender<engine::EngineRequest> {
        let spec = engine::EngineSpec {
            program: opponent.program(),
            args: opponent.args.clone(),
            strength: opponent.strength(),
            patience: opponent.patience(),
        };
        info!(program = %spec.program.display(), "training opponent");
        let engine = engine::spawn(spec, self.cancel.clone());
        self.forward(engine.events, engine.task, HubMsg::Engine);
        engine.requests
    }

    /// Cancel every task and wait for each, at most [`SHUTDOWN_GRACE`].
    async fn stop(self) {
        self.cancel.cancel();
        for handle in self.handles {
            if tokio::time::timeout(SHUTDOWN_GRACE, handle).await.is_err() {
                warn!("a task did not stop within {SHUTDOWN_GRACE:?}; leaving it");
            }
        }
    }
}

/// The receiving end of a task's events: bounded or unbounded.
trait EventSource<T>: Send + 'static {
    fn next(&mut self) -> impl Future<Output = Option<T>> + Send;
}

impl<T: Send + 'static> EventSource<T> for mpsc::Receiver<T> {
    fn next(&mut self) -> impl Future<Output = Option<T>> + Send {
        self.recv()
    }
}

impl<T: Send + 'static> EventSource<T> for mpsc::UnboundedReceiver<T> {
    fn next(&mut self) -> impl Future<Output = Option<T>> + Send {
        self.recv()
    }
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
                && !p.modes.iter().any(|(_, m)| matches!(m, Mode::Execute(_)))
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
