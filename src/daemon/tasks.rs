//! The tasks a run starts beside the hub, and their shutdown: speech, a link per sensor board
//! (or a simulated board on a pseudo-terminal), the console socket, the training engine; each
//! task's events passed on to the hub's inbox, one cancellation for all, and a grace period for
//! each to end.

use std::{
    path::{Path, PathBuf},
    sync::atomic::Ordering,
    time::Duration,
};

use anyhow::{Context, Result, anyhow};
use tokio::{
    sync::{broadcast, mpsc, watch},
    task::JoinHandle,
};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use shakmaty::{ByColor, Color};

use super::{
    console::{self, ConsoleSocket},
    engine,
    hub::{self, HubMsg, Progress},
    link::{self, LinkSettings, MonotonicClock},
    options::SimSettings,
    simboard::{self, SimPlan},
    voice::Voices,
};
use crate::{
    config::{BoardSetup, PortSetup, Settings},
    speech::{self, SpeechConfig, SpeechDeps, VoiceDeps, transcript::TranscriptAt},
    store::trusted::TrustedDir,
};
use tactus_core::{
    announce::Announcement, arbiter::SeatNames, board::profile::Profile, sim::player::Intentions,
};

/// How long the tasks get to finish after the cancellation before the daemon goes anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// What the board tasks give the hub.
pub(super) struct StartedBoards {
    /// Each sensor board's command channel (a dump request).
    pub(super) links: ByColor<Option<mpsc::Sender<link::LinkCommand>>>,
    pub(super) sensors: ByColor<bool>,
    /// The sighted board's clock lever completes his move.
    pub(super) lever: bool,
    /// The folder of the links to simulated boards that get unplugged, removed at the end.
    pub(super) sim_link_dir: Option<PathBuf>,
    /// A board is simulated: the table's people are too (its arbiter starts play).
    pub(super) simulated: bool,
}

/// The tasks a run starts beside the hub: one cancellation for all, their handles to wait for,
/// and the hub's inbox they report to.
pub(super) struct Tasks {
    cancel: CancellationToken,
    handles: Vec<JoinHandle<()>>,
    hub: mpsc::Sender<HubMsg>,
}

impl Tasks {
    /// No task yet; each reports to `hub` and ends on `cancel`.
    pub(super) fn new(cancel: CancellationToken, hub: mpsc::Sender<HubMsg>) -> Tasks {
        Tasks {
            cancel,
            handles: Vec::new(),
            hub,
        }
    }

    pub(super) fn spawn(&mut self, task: impl Future<Output = ()> + Send + 'static) {
        self.handles.push(tokio::spawn(task));
    }

    /// The arbiter of a simulated table, who starts play once the boards show the position.
    pub(super) fn sim_arbiter(&mut self, progress: &watch::Receiver<Progress>, speed: f64) {
        let task = simboard::arbiter(
            progress.clone(),
            self.hub.clone(),
            speed,
            self.cancel.clone(),
        );
        self.spawn(task);
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

    /// The speech task, with the game's voices (a pack per seat where they differ); returns
    /// where to send what is to be said.
    pub(super) fn speech(
        &mut self,
        speech_config: &SpeechConfig,
        voices_dir: &Path,
        voices: &Voices,
        names: SeatNames,
        folder: &TrustedDir,
    ) -> Result<mpsc::Sender<speech::SpeechRequest>> {
        let held = folder.hold().with_context(|| {
            format!(
                "cannot hold the game folder {} for the transcript",
                folder.path().display()
            )
        })?;
        // The speakers as the file sets them, saying the game's own packs in its style.
        let mut speech_config = speech_config.clone();
        let first = &voices.seats.white;
        speech_config.voice = first.spec.clone();
        speech_config.style = first.wording.style();
        let mut list: Vec<&super::voice::Voice> = Vec::new();
        let seat_voice = voices.seats.as_ref().map(|v| {
            match list.iter().position(|known| known.spec == v.spec) {
                Some(i) => i,
                None => {
                    list.push(v);
                    list.len() - 1
                }
            }
        });
        let deps = SpeechDeps {
            voices: list
                .iter()
                .map(|v| VoiceDeps {
                    clips_dir: voices_dir.join(&v.pack_name).join("clips"),
                    render: crate::speech::renderer(&v.wording),
                    fallback_notice: Some(v.wording.words(&Announcement::SpeechFallback)),
                    tts_language: Some(v.wording.pack().language().to_owned()),
                })
                .collect(),
            seat_voice,
            seats: ByColor::new_with(|c| names.is_blind(c)),
            names,
            // In the game folder held open, never through its path.
            transcript: Some(TranscriptAt::Held {
                folder: held,
                name: tactus_core::folder::TRANSCRIPT_FILE.into(),
            }),
            time_of_day: Box::new(crate::wall::utc_time_of_day),
        };
        let speech = speech::spawn(speech_config, deps, self.cancel.clone());
        self.forward(speech.events, speech.task, HubMsg::Speech);
        Ok(speech.requests)
    }

    /// A link task for each sensor board (and, for a simulated one, the simulated board on the
    /// other end of a pseudo-terminal).
    pub(super) fn boards(
        &mut self,
        sim: &SimSettings,
        boards: &ByColor<BoardSetup>,
        names: SeatNames,
        game_under_way: bool,
        clock: MonotonicClock,
        progress: &watch::Receiver<Progress>,
    ) -> Result<StartedBoards> {
        let mut started = StartedBoards {
            links: ByColor::default(),
            sensors: ByColor::default(),
            lever: false,
            sim_link_dir: None,
            simulated: false,
        };
        let order = match names.blind_seats().collect::<Vec<_>>().as_slice() {
            [blind] => [*blind, !*blind],
            _ => Color::ALL,
        };
        for seat in order {
            let BoardSetup::Sensor { profile, port } = &boards[seat] else {
                continue;
            };
            let board = seat;
            let name = names.board(seat);
            started.sensors[board] = true;
            if !names.is_blind(seat) {
                started.lever = profile.clock.attached && profile.clock.lever_completes_move;
            }
            let settings = |path| LinkSettings {
                game_under_way,
                ..LinkSettings::new(name.clone(), path, profile.clone())
            };
            let link = match port {
                PortSetup::Path(path) => {
                    link::spawn(settings(path.clone()), clock, self.cancel.clone())
                }
                PortSetup::Sim => {
                    started.simulated = true;
                    let (path, slave) = self.sim_board(
                        sim,
                        (seat, &names),
                        profile,
                        progress,
                        &mut started.sim_link_dir,
                    )?;
                    link::spawn_with(settings(path), clock, self.cancel.clone(), Some(slave))
                }
            };
            started.links[board] = Some(link.commands.clone());
            self.forward(link.events, link.task, move |event| HubMsg::Link {
                seat: board,
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
        (seat, names): (Color, &SeatNames),
        profile: &Profile,
        progress: &watch::Receiver<Progress>,
        sim_link_dir: &mut Option<PathBuf>,
    ) -> Result<(PathBuf, tokio_serial::SerialStream)> {
        let (master, slave) = tokio_serial::SerialStream::pair()
            .context("cannot make a pseudo-terminal pair for a simulated board")?;
        let mut path = tokio_serial::SerialPort::name(&slave)
            .map(PathBuf::from)
            .ok_or_else(|| anyhow!("the simulated board's pseudo-terminal has no name"))?;
        let name = names.board(seat);
        info!(board = name, path = %path.display(), "simulated board");
        // The settings of "the blind player" are the first blind seat's (with two, White's);
        // the other blind player plays his moves plainly.
        let first_blind = names.blind_seats().next() == Some(seat);
        let blind = first_blind;
        let unplug_ply = sim.blind_unplug_ply.filter(|_| blind);
        let mut port_link = None;
        if unplug_ply.is_some() {
            // A board that will be unplugged is opened through a link the simulator re-points
            // when it is plugged back in (a new pty has a new name).
            let dir = sim_link_dir.get_or_insert_with(sim_link_folder).clone();
            std::fs::create_dir_all(&dir).with_context(|| {
                format!("cannot create {} for a simulated board", dir.display())
            })?;
            let link = dir.join(name.replace(['\'', ' '], "-"));
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&path, &link)
                .with_context(|| format!("cannot link {} to {}", link.display(), path.display()))?;
            path = link.clone();
            port_link = Some(link);
        }
        let plan = SimPlan {
            intentions: Intentions {
                moves: sim.moves.clone(),
                speed: sim.speed,
                mistake_ply: sim.blind_mistake_ply.filter(|_| blind),
                keeps_mistake: sim.blind_keeps_mistake && blind,
                touch_ply: sim.blind_touch_ply.filter(|_| blind),
                unplug_ply,
                can_unplug: port_link.is_some(),
                button: if blind {
                    sim.blind_button
                } else {
                    sim.second_blind_button.filter(|_| names.is_blind(seat))
                },
                executes_early_ms: sim.blind_executes_early_ms.filter(|_| blind),
                wrong_ply: sim.blind_wrong_ply.filter(|_| blind),
                press_ms: sim.sighted_press_ms.filter(|_| !names.is_blind(seat)),
                move_while_paused: sim.move_while_paused,
                choose: sim.blind_chooses.filter(|_| blind),
                // Only the player to move at these plies acts on them.
                offer_ply: sim.draw_offer_ply,
                accept_ply: sim.draw_accept_ply,
            },
            port_link,
            hub: Some(self.hub.clone()),
            initial: sim.blind_initial.clone().filter(|_| blind),
            lever: sim.sighted_lever.filter(|_| !names.is_blind(seat)),
        };
        self.spawn(simboard::play(
            seat,
            name.clone(),
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
    pub(super) fn console(
        &mut self,
        socket: ConsoleSocket,
        settings: &Settings,
        folder: &TrustedDir,
        broadcast: &broadcast::Sender<hub::Broadcast>,
        keypads: tactus_core::console::Keypads,
    ) -> Result<()> {
        // The user's own file by its path; else `arbiter.token` in the game folder held open.
        let (token, token_path) = match &settings.token_file {
            Some(path) => (
                console::arbiter_token(path, &settings.origin)?,
                path.clone(),
            ),
            None => (
                console::arbiter_token_in(folder)?,
                folder.file_path(tactus_core::folder::TOKEN_FILE),
            ),
        };
        crate::output::say_line(&format!(
            "tactus: arbiter token in {}",
            token_path.display()
        ));
        info!("console on {}", socket.path().display());
        let serve = socket.with_keypads(keypads).serve(
            self.hub.clone(),
            broadcast.clone(),
            Some(token),
            self.cancel.clone(),
        );
        self.spawn(serve);
        Ok(())
    }

    /// The table's page on `listener` (when `[web] listen` is set), `games.pgn` in the
    /// broadcast folder and `table.json` in the game folder (both held open), all from the hub's
    /// latest view.
    pub(super) fn web(
        &mut self,
        listener: Option<std::net::TcpListener>,
        access: crate::web::http::Access,
        folder: TrustedDir,
        broadcast: Option<TrustedDir>,
        views: &watch::Receiver<std::sync::Arc<crate::web::view::TableView>>,
    ) -> Result<()> {
        let mut page = None;
        if let Some(listener) = listener {
            let addr = listener.local_addr();
            let served =
                crate::web::serve_table_apart(listener, views.clone(), access, self.cancel.clone())
                    .context("cannot serve the table's page")?;
            if let Ok(addr) = addr {
                crate::output::say_line(&format!("tactus: the table's page on http://{addr}/"));
                if !addr.ip().is_loopback() {
                    crate::output::say_line(
                        "tactus: the page is open to everyone on that network (read only)",
                    );
                }
                page = Some(crate::web::view::PageAddress::of(
                    addr,
                    crate::web::http::own_name().as_deref(),
                ));
            }
            self.spawn(served);
        }
        self.spawn(crate::web::keep_files(
            views.clone(),
            folder,
            broadcast,
            page,
            self.cancel.clone(),
        ));
        Ok(())
    }

    /// The training opponent's engine process.
    pub(super) fn engine(
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
    pub(super) async fn stop(self) {
        self.cancel.cancel();
        for handle in self.handles {
            if tokio::time::timeout(SHUTDOWN_GRACE, handle).await.is_err() {
                warn!(
                    "a task did not stop within {} s; leaving it",
                    SHUTDOWN_GRACE.as_secs()
                );
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
