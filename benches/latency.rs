//! Latency benchmark: from the last byte of a move's completing event written into a
//! pseudo-terminal to the recogniser's "move completed", through the real transport
//! (`link`: port, decoder, session, event channel) and `board::recognize`.
//!
//! The simulated board (`sim::serve`, on its own thread and runtime, as a board is a device of its
//! own) plays games of `twic1599_100k.pgn` on the master side of a pty pair, at a human pace (100
//! ms between a hand's actions), and stamps the instant the last byte of each move's last field
//! update was written; the host (a current-thread runtime, as in `tactus board-test`) opens the
//! slave by path, runs the recogniser and stamps the instant it reports the move. The DGT board
//! samples its squares in a sweep of 224 ms (`tactus_core::sim::sweep`, its start drawn per game),
//! so it reports a change when the sweep reaches the square, as a real one does. Scenarios:
//! - `line`: the pegged board's profile as shipped (115200 baud, settle 0: F.3 b);
//! - `dgt`: the DGT profile as shipped, `completion = "settle"`: the confirming board dump is asked
//!   for the moment a legal move appears; a move the board can already tell counts at that dump,
//!   one it cannot tell yet (`may_still_change`: a slider that may go on, a pawn step that may
//!   become a double step, a move another piece of its kind could have made, a rook towards
//!   castling) once the board has rested `scan_ms` (255 ms). Reported whole and split into the two
//!   kinds;
//! - `dgt-picochess`: the same streams read as picochess does: a board dump asked 250 ms after the
//!   last field update, the move counted when the dump shows it;
//! - `dgt-processing`: no sweep, settle 0, no confirming dump: the processing part alone (link,
//!   decoder, recogniser), the floor under everything else;
//! - `dgt-press-50`, `dgt-press-settled`: `completion = "press"`; the host presses the clock 50 ms
//!   after the move's last update (the press is kept until the board can tell the move), or 600
//!   ms after it (the board has told and confirmed the move); the latency is from the press to the
//!   move counted.
//!
//! `cargo bench --bench latency -- [--moves N] [--only SCENARIO] [--slow MS]`
//! (default 200 moves per scenario, about eight minutes in all; `--slow` prints every move slower
//! than that). Numbers live in BENCHMARKS.md.

mod support;

use std::{
    sync::mpsc as std_mpsc,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use shakmaty::{Chess, Move, Position, Role};
use tactus::{
    daemon::link::{self, LinkCommand, LinkEvent, LinkSettings, MonotonicClock},
    sim::serve::{self, SimPort, SimProgress},
};
use tactus_core::{
    board::{
        Sensed, Sensing,
        profile::{Profile, ProfileSet},
        recognize::{Mode, Recognized, Recognizer, RecognizerConfig, may_still_change},
    },
    rules::pgn::read_pgn,
    sim::{
        board::{SimConfig, SimGame},
        script::Style,
        sweep::Sweep,
    },
};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;

/// Rest between moves: longer than the bounce window, so that each move stands alone.
const MOVE_PAUSE: Duration = Duration::from_millis(60);
/// On a DGT board the player leaves the board alone until his move has counted (at a table the
/// opponent's reply comes only then): longer than the longest rest, `scan_ms`, or picochess's
/// 250 ms and its dump.
const DGT_MOVE_PAUSE: Duration = Duration::from_millis(450);
/// Time between a hand's actions: a human pace.
const STEP: u64 = 100;
/// The simulated DGT board's sweep (the emulator swept in 224 ms; a real board in
/// 200-250 ms).
const SWEEP_MS: u64 = 224;
/// picochess asks for a board dump once this long has passed without a field update.
const PICOCHESS_QUIET: Duration = Duration::from_millis(250);

/// Who reads the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// tactus's recogniser.
    Tactus,
    /// picochess's way: a dump 250 ms after the last update; the move counts when it shows it.
    Picochess,
}

struct Scenario {
    name: &'static str,
    profile: Profile,
    /// Bytes of the completing event on the wire, for the wire time.
    message_bytes: u64,
    /// The host presses the clock this long after the move's last update (press completion).
    press_after: Option<Duration>,
    /// The board samples its squares in a sweep (a DGT board as it is).
    sweep: bool,
    reader: Reader,
}

fn scenarios() -> Result<Vec<Scenario>> {
    let set = ProfileSet::builtin();
    let line = set.get("pegged-line")?.clone();
    let dgt = set.get("dgt")?.clone();
    let mut bare = dgt.clone();
    bare.timing.settle_ms = 0;
    bare.timing.scan_ms = 0;
    bare.timing.confirm_with_snapshot = false;
    let scenario = |name, profile: &Profile, message_bytes, press_after, sweep| Scenario {
        name,
        profile: profile.clone(),
        message_bytes,
        press_after,
        sweep,
        reader: Reader::Tactus,
    };
    let press = |ms| Some(Duration::from_millis(ms));
    Ok(vec![
        // "P e4\r\n"
        scenario("line", &line, 6, None, false),
        // FIELD_UPDATE: 0x8e, two length bytes, field, piece.
        scenario("dgt", &dgt, 5, None, true),
        Scenario {
            reader: Reader::Picochess,
            ..scenario("dgt-picochess", &dgt, 5, None, true)
        },
        scenario("dgt-processing", &bare, 5, None, false),
        scenario("dgt-press-50", &dgt, 5, press(50), true),
        scenario("dgt-press-settled", &dgt, 5, press(600), true),
    ])
}

/// The simulated board on its own thread: a pty pair, the board on the master side. Returns the
/// slave's path and, per move as it is made, when its completing event was written.
fn start_board(
    profile: Profile,
    game: SimGame,
    move_pause: Duration,
    sweep: Option<Sweep>,
    cancel: CancellationToken,
) -> Result<(
    String,
    tokio::sync::mpsc::UnboundedReceiver<Option<Instant>>,
    std::thread::JoinHandle<()>,
)> {
    let (path_tx, path_rx) = std_mpsc::channel();
    let (written_tx, written_rx) = tokio::sync::mpsc::unbounded_channel();
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
                ..tactus_core::sim::board::default_style(&cfg.profile)
            };
            cfg.move_pause = move_pause;
            cfg.announce_pause = move_pause;
            cfg.sweep = sweep;
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

/// One move as the host saw it: when its last update was written, when the clock was pressed
/// (press scenarios), when it counted.
struct Seen {
    written: Option<Instant>,
    pressed: Option<Instant>,
    counted: Instant,
}

/// The host side: link + recogniser until every move is recognised; pressing the clock
/// `press_after` each move's last update when asked.
async fn host(
    path: &str,
    profile: &Profile,
    start: Chess,
    moves: &[Move],
    mut written: tokio::sync::mpsc::UnboundedReceiver<Option<Instant>>,
    press_after: Option<Duration>,
) -> Result<Vec<Seen>> {
    let clock = MonotonicClock::new();
    let cancel = CancellationToken::new();
    let mut link = link::spawn(
        LinkSettings::new("bench", path, profile.clone()),
        clock,
        cancel.clone(),
    );
    let mut rec = Recognizer::new(RecognizerConfig::from_profile(profile), start, Mode::Move);
    if press_after.is_some() {
        rec = rec.with_press_completion();
    }
    let mut seen: Vec<Seen> = Vec::new();
    let mut last_written: Option<Instant> = None;
    let mut press_at: Option<Instant> = None;
    let mut pressed: Option<Instant> = None;
    let limit = tokio::time::Instant::now() + Duration::from_secs(60 + moves.len() as u64 * 3);
    while seen.len() < moves.len() {
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
            w = written.recv() => {
                if let Some(w) = w {
                    last_written = w;
                    // A move that ends the game counts by itself; nobody presses after it.
                    let mut after = rec.expected().clone();
                    let ends = moves.get(seen.len()).is_some_and(|&m| {
                        after.play_unchecked(m);
                        after.is_game_over()
                    });
                    press_at = press_after.filter(|_| !ends).and_then(|d| w.map(|w| w + d));
                }
                Vec::new()
            }
            _ = async { match press_at { Some(t) => tokio::time::sleep_until(t.into()).await, None => std::future::pending().await } } => {
                press_at = None;
                pressed = Some(Instant::now());
                rec.press(clock.now())
            }
            _ = async { match deadline { Some(d) => tokio::time::sleep_until(d).await, None => std::future::pending().await } } => {
                rec.tick(clock.now())
            }
            _ = tokio::time::sleep_until(limit) => bail!("only {} of {} moves recognised in time", seen.len(), moves.len()),
        };
        let mut queue: std::collections::VecDeque<Recognized> = out.into();
        while let Some(r) = queue.pop_front() {
            match r {
                Recognized::MoveCompleted { .. } => {
                    seen.push(Seen {
                        written: last_written.take(),
                        pressed: pressed.take(),
                        counted: Instant::now(),
                    });
                    let next = rec.expected().clone();
                    queue.extend(rec.set_expected(next, Mode::Move, clock.now()));
                }
                Recognized::RequestSnapshot => {
                    let _ = link.commands.try_send(LinkCommand::RequestSnapshot);
                }
                Recognized::PromotionPending { .. } => {
                    let role = moves
                        .get(seen.len())
                        .and_then(|m| m.promotion())
                        .unwrap_or(Role::Queen);
                    queue.extend(rec.promotion(role, clock.now()));
                }
                Recognized::Differs(d) => {
                    bail!("the board differs after {} moves: {d:?}", seen.len())
                }
                Recognized::NoMove => bail!("a press found no move after {} moves", seen.len()),
                _ => {}
            }
        }
    }
    cancel.cancel();
    let _ = link.task.await;
    Ok(seen)
}

/// picochess's reading of the same board: every field update starts a 250 ms wait, then a board
/// dump is asked for; the move counts when a dump shows the position after it.
async fn picochess(
    path: &str,
    profile: &Profile,
    start: Chess,
    moves: &[Move],
    mut written: tokio::sync::mpsc::UnboundedReceiver<Option<Instant>>,
) -> Result<Vec<Seen>> {
    let clock = MonotonicClock::new();
    let cancel = CancellationToken::new();
    let mut link = link::spawn(
        LinkSettings::new("picochess", path, profile.clone()),
        clock,
        cancel.clone(),
    );
    let mut position = start;
    let mut seen: Vec<Seen> = Vec::new();
    let mut last_written: Option<Instant> = None;
    let mut dump_at: Option<tokio::time::Instant> = None;
    let limit = tokio::time::Instant::now() + Duration::from_secs(60 + moves.len() as u64 * 3);
    while seen.len() < moves.len() {
        tokio::select! {
            ev = link.events.recv() => {
                let Some(ev) = ev else { bail!("the link stopped") };
                match ev.event {
                    LinkEvent::Sensor(tactus_core::board::SensorEvent::Snapshot(Sensed::Pieces(board))) => {
                        let mut after = position.clone();
                        after.play_unchecked(moves[seen.len()]);
                        if *after.board() == board {
                            seen.push(Seen {
                                written: last_written.take(),
                                pressed: None,
                                counted: Instant::now(),
                            });
                            position = after;
                        }
                    }
                    LinkEvent::Sensor(_) => {
                        dump_at = Some(tokio::time::Instant::now() + PICOCHESS_QUIET);
                    }
                    LinkEvent::Disconnected { reason } => bail!("disconnected: {reason}"),
                    _ => {}
                }
            }
            w = written.recv() => {
                if let Some(w) = w {
                    last_written = w;
                }
            }
            _ = async { match dump_at { Some(t) => tokio::time::sleep_until(t).await, None => std::future::pending().await } } => {
                dump_at = None;
                let _ = link.commands.try_send(LinkCommand::RequestSnapshot);
            }
            _ = tokio::time::sleep_until(limit) => bail!("only {} of {} moves read in time", seen.len(), moves.len()),
        }
    }
    cancel.cancel();
    let _ = link.task.await;
    Ok(seen)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn row(name: &str, baud: String, mut latencies: Vec<Duration>, wire: String) {
    if latencies.is_empty() {
        return;
    }
    latencies.sort();
    println!(
        "| {name} | {baud} | {} | {} | {} | {} | {} | {wire} |",
        latencies.len(),
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 90.0)),
        ms(percentile(&latencies, 99.0)),
        ms(*latencies.last().unwrap_or(&Duration::ZERO)),
    );
}

fn main() -> Result<()> {
    let Some(args) = support::bench_args() else {
        return Ok(());
    };
    let mut args = args.into_iter();
    let mut want = 200usize;
    let mut only: Option<String> = None;
    // Print each move slower than this (to stderr), to look into a tail.
    let mut slow: Option<Duration> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--moves" => want = args.next().context("--moves N")?.parse()?,
            "--only" => only = args.next(),
            "--slow" => {
                let ms: u64 = args.next().context("--slow MS")?.parse()?;
                slow = Some(Duration::from_millis(ms));
            }
            // `cargo test --all-targets` builds examples only; `cargo bench` passes --bench.
            "--bench" => {}
            other => bail!("unknown argument {other:?}; use --moves N, --only NAME, --slow MS"),
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
        "| scenario | baud | moves | median | p90 | p99 | max | wire time of the completing message |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for sc in scenarios()? {
        if only.as_deref().is_some_and(|o| o != sc.name) {
            continue;
        }
        // (latency, could the move be a square a slid piece passed)
        let mut latencies: Vec<(Duration, bool)> = Vec::new();
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
            // The player leaves the board alone until his move counted (and he pressed).
            let pause = match (sc.profile.sensing, sc.press_after) {
                (Sensing::Occupancy, _) => MOVE_PAUSE,
                (Sensing::Identity, None) => DGT_MOVE_PAUSE,
                (Sensing::Identity, Some(d)) => d + DGT_MOVE_PAUSE,
            };
            // The same sweep for every scenario's run of this game.
            let sweep = sc.sweep.then(|| Sweep {
                period_ms: SWEEP_MS,
                offset_ms: (g.index as u64 * 97) % SWEEP_MS,
            });
            let (path, written, board) =
                start_board(sc.profile.clone(), game, pause, sweep, cancel.clone())?;
            let seen = rt.block_on(async {
                match sc.reader {
                    Reader::Tactus => {
                        host(
                            &path,
                            &sc.profile,
                            g.start.clone(),
                            &moves,
                            written,
                            sc.press_after,
                        )
                        .await
                    }
                    Reader::Picochess => {
                        picochess(&path, &sc.profile, g.start.clone(), &moves, written).await
                    }
                }
            });
            cancel.cancel();
            let _ = board.join();
            let seen = seen.with_context(|| format!("{}: game {}", sc.name, g.index))?;
            let mut pos = g.start.clone();
            for (ply, (s, &m)) in seen.iter().zip(&moves).enumerate() {
                let passing = may_still_change(&pos, m);
                let san = tactus_core::rules::notation::san(&pos, m);
                pos.play_unchecked(m);
                let from = if sc.press_after.is_some() {
                    s.pressed
                } else {
                    s.written
                };
                if let Some(from) = from {
                    let latency = s.counted.saturating_duration_since(from);
                    if slow.is_some_and(|limit| latency > limit) {
                        eprintln!(
                            "{}: game {} ply {} {san}: {}",
                            sc.name,
                            g.index,
                            ply + 1,
                            ms(latency)
                        );
                    }
                    latencies.push((latency, passing));
                }
            }
        }
        let wire = ms(tactus_core::sim::board::wire_time(
            sc.message_bytes,
            10,
            sc.profile.serial.baud,
        ));
        let baud = sc.profile.serial.baud.to_string();
        row(
            sc.name,
            baud.clone(),
            latencies.iter().map(|l| l.0).collect(),
            wire.clone(),
        );
        if sc.sweep {
            row(
                &format!("{}: moves the board can tell at once", sc.name),
                baud.clone(),
                latencies.iter().filter(|l| !l.1).map(|l| l.0).collect(),
                wire.clone(),
            );
            row(
                &format!("{}: moves that wait a sweep", sc.name),
                baud,
                latencies.iter().filter(|l| l.1).map(|l| l.0).collect(),
                wire,
            );
        }
    }
    Ok(())
}
