//! Latency benchmark: from the last byte of a move's completing event written into a
//! pseudo-terminal to the recogniser's "move completed", through the real transport
//! (`link`: port, decoder, session, event channel) and `board::recognize`.
//!
//! The simulated board (`sim::serve`, on its own thread and runtime, as a board is a device of its
//! own) plays games of `twic1599_100k.pgn` on the master side of a pty pair and stamps the instant
//! the last byte of each move's final event was written; the host (a current-thread runtime, as
//! in `tactus board-test`) opens the slave by path, runs the recogniser and stamps the instant it
//! reports the move. Scenarios:
//! - `line`: the pegged board's profile as shipped (115200 baud, settle 0: F.3 b);
//! - `dgt`: the DGT profile as shipped (9600 baud, 400 ms settle, then a confirming board dump:
//!   request, 67 bytes on the wire, decode);
//! - `dgt-processing`: the same board with settle 0 and no confirming dump: the processing part
//!   alone (link, decoder, recogniser), the floor under the settle time.
//!
//! `cargo run --release --example latency -- [--moves N] [--only line|dgt|dgt-processing]`
//! (default 200 moves per scenario; the `dgt` scenario takes about two minutes). Numbers live in
//! BENCHMARKS.md.

use std::{
    sync::mpsc as std_mpsc,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use shakmaty::{Chess, Move, Role};
use tactus::{
    board::{
        profile::{Profile, ProfileSet},
        recognize::{Mode, Recognized, Recognizer, RecognizerConfig},
    },
    link::{self, LinkClock, LinkCommand, LinkEvent, LinkSettings},
    rules::pgn::read_pgn,
    sim::{
        script::Style,
        serve::{self, SimConfig, SimGame, SimPort, SimProgress},
    },
};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;

/// Rest between moves: longer than the bounce window, so that each move stands alone.
const MOVE_PAUSE: Duration = Duration::from_millis(60);
/// Time between the events of one move.
const STEP: u64 = 40;

struct Scenario {
    name: &'static str,
    profile: Profile,
    /// Bytes of the completing event on the wire, for the wire time.
    message_bytes: u64,
}

fn scenarios() -> Result<Vec<Scenario>> {
    let set = ProfileSet::builtin();
    let line = set.get("pegged-line")?.clone();
    let dgt = set.get("dgt")?.clone();
    let mut bare = dgt.clone();
    bare.timing.settle_ms = 0;
    bare.timing.confirm_with_snapshot = false;
    Ok(vec![
        // "P e4\r\n"
        Scenario {
            name: "line",
            profile: line,
            message_bytes: 6,
        },
        // FIELD_UPDATE: 0x8e, two length bytes, field, piece.
        Scenario {
            name: "dgt",
            profile: dgt,
            message_bytes: 5,
        },
        Scenario {
            name: "dgt-processing",
            profile: bare,
            message_bytes: 5,
        },
    ])
}

/// The simulated board on its own thread: a pty pair, the board on the master side. Returns the
/// slave's path and, per move, when its completing event was written.
fn start_board(
    profile: Profile,
    game: SimGame,
    cancel: CancellationToken,
) -> Result<(
    String,
    std_mpsc::Receiver<Option<Instant>>,
    std::thread::JoinHandle<()>,
)> {
    let (path_tx, path_rx) = std_mpsc::channel();
    let (written_tx, written_rx) = std_mpsc::channel();
    let handle = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(async move {
            let (master, slave) = match SerialStream::pair() {
                Ok(pair) => pair,
                Err(e) => {
                    let _ = path_tx.send(Err(anyhow::anyhow!("cannot make a pty pair: {e}")));
                    return;
                }
            };
            let path = tokio_serial::SerialPort::name(&slave).unwrap_or_default();
            let _ = path_tx.send(Ok(path));
            let mut cfg = SimConfig::new(profile);
            // Every move ends with a placement (en passant too), the event measured.
            cfg.style = Style {
                ep_captured_first: true,
                step_ms: STEP,
                ..serve::default_style(&cfg.profile)
            };
            cfg.move_pause = MOVE_PAUSE;
            cfg.announce_pause = MOVE_PAUSE;
            cfg.linger = Some(Duration::from_secs(3));
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let forward = tokio::spawn(async move {
                while let Some(p) = rx.recv().await {
                    if let SimProgress::Moved { written, .. } = p {
                        let _ = written_tx.send(written);
                    }
                }
            });
            if let Err(e) =
                serve::serve(SimPort::Stream(Some(master)), cfg, game, cancel, Some(tx)).await
            {
                eprintln!("simulator: {e:#}");
            }
            let _ = forward.await;
            // The slave end stays open until the board is done, so the pty never hangs up early.
            drop(slave);
        });
    });
    let path = path_rx.recv().context("the simulator thread died")??;
    Ok((path, written_rx, handle))
}

/// The host side: link + recogniser until every move is recognised; the instant of each.
async fn host(path: &str, profile: &Profile, start: Chess, moves: &[Move]) -> Result<Vec<Instant>> {
    let clock = LinkClock::new();
    let cancel = CancellationToken::new();
    let mut link = link::spawn(
        LinkSettings::new("bench", path, profile.clone()),
        clock,
        cancel.clone(),
    );
    let mut rec = Recognizer::new(RecognizerConfig::from_profile(profile), start, Mode::Move);
    let mut done: Vec<Instant> = Vec::new();
    let limit = tokio::time::Instant::now() + Duration::from_secs(60 + moves.len() as u64 * 2);
    while done.len() < moves.len() {
        let deadline = rec.next_deadline().map(|d| clock.instant(d));
        let out = tokio::select! {
            ev = link.events.recv() => {
                let Some(ev) = ev else { bail!("the link stopped") };
                match ev.event {
                    LinkEvent::Sensor(e) => rec.event(e, ev.at),
                    LinkEvent::Disconnected { reason } => bail!("disconnected: {reason}"),
                    _ => Vec::new(),
                }
            }
            _ = async { match deadline { Some(d) => tokio::time::sleep_until(d.into()).await, None => std::future::pending().await } } => {
                rec.tick(clock.now())
            }
            _ = tokio::time::sleep_until(limit) => bail!("only {} of {} moves recognised in time", done.len(), moves.len()),
        };
        let mut queue: std::collections::VecDeque<Recognized> = out.into();
        while let Some(r) = queue.pop_front() {
            match r {
                Recognized::MoveCompleted { .. } => {
                    done.push(Instant::now());
                    let next = rec.expected().clone();
                    queue.extend(rec.set_expected(next, Mode::Move, clock.now()));
                }
                Recognized::RequestSnapshot => {
                    let _ = link.commands.try_send(LinkCommand::RequestSnapshot);
                }
                Recognized::PromotionPending { .. } => {
                    let role = moves
                        .get(done.len())
                        .and_then(|m| m.promotion())
                        .unwrap_or(Role::Queen);
                    queue.extend(rec.promotion(role, clock.now()));
                }
                Recognized::Differs(d) => {
                    bail!("the board differs after {} moves: {d:?}", done.len())
                }
                _ => {}
            }
        }
    }
    cancel.cancel();
    let _ = link.task.await;
    Ok(done)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let mut want = 200usize;
    let mut only: Option<String> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--moves" => want = args.next().context("--moves N")?.parse()?,
            "--only" => only = args.next(),
            // `cargo test --all-targets` builds examples only; `cargo bench` passes --bench.
            "--bench" => {}
            other => bail!("unknown argument {other:?}; use --moves N, --only NAME"),
        }
    }
    let dir = std::env::var_os("TACTUS_CHESS_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/chess-data")
        });
    let bytes = std::fs::read(dir.join("pgn/twic1599_100k.pgn"))
        .context("the corpus ../shared/chess-data/pgn/twic1599_100k.pgn")?;
    let games = read_pgn(&bytes).context("the corpus is legal")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    println!(
        "| scenario | baud | moves | median | p99 | max | wire time of the completing message |"
    );
    println!("|---|---|---|---|---|---|---|");
    for sc in scenarios()? {
        if only.as_deref().is_some_and(|o| o != sc.name) {
            continue;
        }
        let mut latencies = Vec::new();
        for g in &games {
            if latencies.len() >= want {
                break;
            }
            let moves: Vec<Move> = g
                .moves
                .iter()
                .copied()
                .take(want - latencies.len())
                .collect();
            let cancel = CancellationToken::new();
            let game = SimGame {
                start: g.start.clone(),
                moves: moves.clone(),
            };
            let (path, written, board) = start_board(sc.profile.clone(), game, cancel.clone())?;
            let done = rt.block_on(host(&path, &sc.profile, g.start.clone(), &moves));
            cancel.cancel();
            let _ = board.join();
            let done = done.with_context(|| format!("{}: game {}", sc.name, g.index))?;
            let written: Vec<Option<Instant>> = written.try_iter().collect();
            for (at, w) in done.iter().zip(&written) {
                if let Some(w) = w {
                    latencies.push(at.saturating_duration_since(*w));
                }
            }
        }
        latencies.sort();
        let wire = serve::wire_time(sc.message_bytes, 10, sc.profile.serial.baud);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            sc.name,
            sc.profile.serial.baud,
            latencies.len(),
            ms(percentile(&latencies, 50.0)),
            ms(percentile(&latencies, 99.0)),
            ms(*latencies.last().unwrap_or(&Duration::ZERO)),
            ms(wire)
        );
    }
    Ok(())
}
