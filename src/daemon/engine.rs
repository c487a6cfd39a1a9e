//! The training opponent's process: one tokio task that starts the UCI engine, writes what the
//! pure [`Conversation`] (`tactus_core::engine`) says to write, reads its lines back, and reports
//! what came of it as [`EngineEvent`]s on a channel of its own (the daemon passes them on to the
//! hub, as it does the links' and speech's). The conversation decides; this task only moves bytes
//! and keeps time. It knows nothing of the hub.
//!
//! An engine that fails (it cannot be started, exits, stays silent past its deadline, plays an
//! illegal move, refuses the configured strength) is reported to the hub as [`EngineEvent::Down`]
//! with the reason, killed, and started again after a pause (1 s doubling to 10 s): the hub
//! stops the clocks meanwhile and the searches still wanted are asked of the new process. Nothing
//! of the game is lost: the game's moves live in the hub and its journal, never here.

use std::{path::PathBuf, process::Stdio, time::Duration};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    process::{Child, ChildStdin, Command},
    sync::mpsc,
};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use tactus_core::engine::{self, Conversation, Event, Patience, SearchRequest, Strength};
pub use tactus_core::engine::{EngineEvent, EngineRequest};

/// The first pause before an engine is started again; doubles up to [`RESTART_MAX`].
pub const RESTART_MIN: Duration = Duration::from_secs(1);
pub const RESTART_MAX: Duration = Duration::from_secs(10);

/// Requests waiting for the engine task: a review asks one search per position of the game.
pub const REQUEST_QUEUE: usize = 1024;
/// Events waiting to be passed on: a review's answers come as fast as its requests went.
pub const EVENT_QUEUE: usize = REQUEST_QUEUE;

/// The engine to run and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The program: a path, or a name looked up in `PATH` and in `/usr/games` (where Debian
    /// installs `stockfish`).
    pub program: PathBuf,
    pub args: Vec<String>,
    pub strength: Strength,
    pub patience: Patience,
}

/// The program's full path: a name is looked up in `PATH`, then in `/usr/games` (Debian puts
/// its chess engines there, outside a daemon's usual `PATH`).
pub fn resolve_program(program: &std::path::Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return runnable(program).then(|| program.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join(program))
        .find(|p| runnable(p))
}

/// The running engine task.
pub struct EngineHandle {
    pub requests: mpsc::Sender<EngineRequest>,
    pub events: mpsc::Receiver<EngineEvent>,
    /// Ends after `cancel`, when the request senders are gone, or when nobody hears its events.
    pub task: tokio::task::JoinHandle<()>,
}

/// Start the engine task. Requests go to its `requests`; what comes of them to its `events`.
pub fn spawn(spec: EngineSpec, cancel: CancellationToken) -> EngineHandle {
    // Room for a review's searches (one per position of the game) asked at once.
    let (requests, rx) = mpsc::channel(REQUEST_QUEUE);
    let (tx, events) = mpsc::channel(EVENT_QUEUE);
    let task = tokio::spawn(run(spec, rx, tx, cancel));
    EngineHandle {
        requests,
        events,
        task,
    }
}

async fn run(
    spec: EngineSpec,
    mut requests: mpsc::Receiver<EngineRequest>,
    report: mpsc::Sender<EngineEvent>,
    cancel: CancellationToken,
) {
    let epoch = tokio::time::Instant::now();
    let now = move || epoch.elapsed().as_millis() as u64;
    let mut carried: Vec<SearchRequest> = Vec::new();
    let mut backoff = RESTART_MIN;
    loop {
        let reason = match start(&spec) {
            Ok(child) => {
                let outcome = converse(
                    &spec,
                    child,
                    &mut requests,
                    &report,
                    &cancel,
                    &mut carried,
                    &now,
                    &mut backoff,
                )
                .await;
                match outcome {
                    Some(failed) => failed,
                    None => return,
                }
            }
            Err(reason) => (reason, false),
        };
        let (reason, settings) = reason;
        if settings {
            warn!("the engine cannot play with these settings: {reason}");
            let down = EngineEvent::Down {
                reason,
                restart_in: None,
            };
            let _ = report.send(down).await;
            // Nothing to retry: wait for the end, keeping the request queue drained.
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    request = requests.recv() => if request.is_none() { return },
                }
            }
        }
        warn!(
            "the engine failed: {reason}; starting it again in {:.1} s",
            backoff.as_secs_f64()
        );
        let down = EngineEvent::Down {
            reason,
            restart_in: Some(backoff),
        };
        if report.send(down).await.is_err() {
            return;
        }
        // Requests arriving meanwhile are kept for the next engine.
        let sleep = tokio::time::sleep(backoff);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = &mut sleep => break,
                request = requests.recv() => match request {
                    Some(EngineRequest::Search(r)) => carried.push(r),
                    Some(EngineRequest::Cancel(p)) => carried.retain(|r| r.purpose != p),
                    None => return,
                },
            }
        }
        backoff = (backoff * 2).min(RESTART_MAX);
    }
}

fn start(spec: &EngineSpec) -> Result<Child, String> {
    let program = resolve_program(&spec.program).ok_or_else(|| {
        format!(
            "{} not found or not executable (install Debian's stockfish, or give [opponent] \
             engine as a full path)",
            spec.program.display()
        )
    })?;
    Command::new(&program)
        .args(&spec.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))
}

async fn write(stdin: &mut ChildStdin, commands: &[engine::Command]) -> Result<(), String> {
    for c in commands {
        let line = c.line();
        debug!(line = line.trim_end(), "to the engine");
        stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("cannot write to the engine: {e}"))?;
    }
    stdin
        .flush()
        .await
        .map_err(|e| format!("cannot write to the engine: {e}"))
}

/// One engine process's life. `None`: the daemon stops; `Some((reason, settings))`: the engine
/// failed (`settings`: because of `[opponent]`'s values, which another start would not mend).
#[allow(clippy::too_many_arguments)]
async fn converse(
    spec: &EngineSpec,
    mut child: Child,
    requests: &mut mpsc::Receiver<EngineRequest>,
    report: &mpsc::Sender<EngineEvent>,
    cancel: &CancellationToken,
    carried: &mut Vec<SearchRequest>,
    now: &impl Fn() -> u64,
    backoff: &mut Duration,
) -> Option<(String, bool)> {
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Some(("the engine's pipes could not be opened".into(), false));
    };
    let (mut conversation, first) =
        Conversation::start(spec.strength.clone(), spec.patience, now());
    let mut lines = engine::uci::LineDecoder::new();
    let mut buf = [0u8; 4096];
    let mut pending = first;
    for r in carried.drain(..) {
        pending.extend(conversation.search(r, now()));
    }
    let failure = loop {
        if let Err(e) = write(&mut stdin, &std::mem::take(&mut pending)).await {
            break (e, false);
        }
        let deadline = conversation
            .next_deadline()
            .map(|d| tokio::time::Instant::now() + Duration::from_millis(d.saturating_sub(now())));
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        let events = tokio::select! {
            _ = cancel.cancelled() => {
                let _ = write(&mut stdin, &[engine::Command::Quit]).await;
                let _ = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
                return None;
            }
            read = stdout.read(&mut buf) => match read {
                Ok(0) | Err(_) => {
                    let status = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
                    break (
                        match status {
                            Ok(Ok(s)) => format!("the engine exited ({s})"),
                            _ => "the engine closed its output".to_string(),
                        },
                        false,
                    );
                }
                Ok(n) => {
                    let mut events = Vec::new();
                    for line in lines.feed(&buf[..n]) {
                        debug!(line, "from the engine");
                        let (commands, e) = conversation.receive(&line, now());
                        pending.extend(commands);
                        events.extend(e);
                    }
                    events
                }
            },
            request = requests.recv() => match request {
                Some(EngineRequest::Search(r)) => {
                    pending.extend(conversation.search(r, now()));
                    Vec::new()
                }
                Some(EngineRequest::Cancel(p)) => {
                    pending.extend(conversation.cancel(p));
                    Vec::new()
                }
                None => return None,
            },
            _ = sleep => conversation.tick(now()),
        };
        let mut failed = None;
        for event in events {
            let message = match event {
                Event::Ready { name } => {
                    info!("engine ready: {name}");
                    *backoff = RESTART_MIN;
                    EngineEvent::Up { name }
                }
                Event::Answer {
                    id,
                    purpose,
                    best,
                    score,
                } => EngineEvent::Answer {
                    id,
                    purpose,
                    best,
                    score,
                },
                Event::Failed(f) => {
                    failed = Some((f.to_string(), f.is_settings()));
                    continue;
                }
            };
            if report.send(message).await.is_err() {
                return None;
            }
        }
        if let Some(f) = failed {
            break f;
        }
    };
    // What was asked and not answered is asked of the next engine.
    carried.extend(conversation.unanswered());
    let _ = child.start_kill();
    let _ = child.wait().await;
    Some(failure)
}
