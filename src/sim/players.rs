//! The simulated players' hands on a real pseudo-terminal: the tokio side of the simulated
//! players behind `port = "sim"`. What a player does next is decided by the pure planner
//! (`tactus_core::sim::player::Player`); this module only sleeps, sends and receives: it serves
//! the board side of the protocol ([`SimBoard`], the same as `tactus sim`) paced by [`Pacer`],
//! pulls and plugs the cable (a port link re-pointed at a new pty, as a USB board comes back
//! under the same path), and passes what a player or his assistant says to the console
//! ([`Desk`]).
//!
//! It knows nothing of the daemon: what the player knows of the game comes through a
//! [`watch`] of anything that can tell his [`Situation`] ([`Watched`]), and what he says goes
//! to a [`Desk`]. The daemon's side (the hub's progress and inbox) is `daemon::simboard`.

use std::{
    collections::VecDeque,
    future::Future,
    path::{Path, PathBuf},
    time::Duration,
};

use shakmaty::{Board, Position, Role};
use tokio::{io::AsyncReadExt, sync::watch};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::serve::Pacer;
use tactus_core::{
    board::{Orientation, dgt_clock::ClockSide, profile::Profile},
    console::{Action, Side, wire::End},
    sim::{
        board::SimBoard,
        clock::EmulatedClock,
        player::{Act, HandStep, Intentions, Note, Player, Situation},
    },
};

/// A pty whose other side is closed (the link reopening it) reads as an error: wait this long.
const PTY_RETRY: Duration = Duration::from_millis(50);
/// A promotion piece said before the board's placement has reached the hub is said again after
/// this long, at most [`ANNOUNCE_ATTEMPTS`] times.
const ANNOUNCE_RETRY: Duration = Duration::from_millis(25);
const ANNOUNCE_ATTEMPTS: usize = 80;
/// A correction sent before the hub has seen the placement is sent again this soon (the
/// announcement it corrects takes tens of milliseconds), a few times.
const CORRECT_RETRY: Duration = Duration::from_millis(2);
const CORRECT_ATTEMPTS: usize = 10;

/// What the player knows of the game, as the daemon publishes it.
pub trait Watched: Clone + Send + Sync + 'static {
    /// The game as the player of `seat` knows it.
    fn situation(&self, seat: shakmaty::Color) -> Situation<'_>;
}

/// Where what a player says aloud goes: the console, as the assistant types it.
pub trait Desk: Clone + Send + Sync + 'static {
    /// One command as the assistant types it; how its reply ends, `None` if nobody answers
    /// any more.
    fn enter(&self, action: Action) -> impl Future<Output = Option<End>> + Send;
}

/// What a simulated player plays, and what the shell gives his hands.
#[derive(Debug, Clone)]
pub struct Plan<D> {
    /// What he means to do (the planner's part).
    pub intentions: Intentions,
    /// The path the daemon's link opens for this board: a symbolic link to the pty, which the
    /// hands remove when they pull the cable and point at a new pty when they plug it back in.
    pub port_link: Option<PathBuf>,
    /// Where his spoken promotion piece, his clock press and the assistant's correction go.
    pub desk: Option<D>,
    /// What stands on the board when it is switched on, if not what the game expects (a
    /// training game from a FEN on a board still set up for a new game).
    pub initial: Option<Board>,
    /// His side of the DGT clock on his board (a profile with `[clock] attached`): his press is
    /// the lever on that side instead of the console's `press`.
    pub lever: Option<ClockSide>,
}

/// The board under the player's hands: the simulated board, its port and its pacing.
struct Wire {
    /// The board's name in the logs ("tactile", "sighted", "white's tactile").
    name: String,
    sim: SimBoard,
    port: Option<SerialStream>,
    // After a replug the hands keep a slave end of the new pty open: once every slave end of a
    // pty has been closed its master polls as hung up, and reading it through tokio then spins
    // on EAGAIN even after the link has opened the slave again (seen with strace: two workers
    // busy with ~7,000 failed reads a second each).
    spare_slave: Option<SerialStream>,
    pacer: Pacer,
    /// The clock's time line (an emulated DGT clock runs on it).
    started: tokio::time::Instant,
}

/// How often the hands let the emulated DGT clock report (it reports each second).
const CLOCK_POLL: Duration = Duration::from_millis(100);

/// Play on the pty's `port` (the master side) until `cancel`.
pub async fn play<W: Watched, D: Desk>(
    board: shakmaty::Color,
    name: String,
    profile: Profile,
    port: SerialStream,
    plan: Plan<D>,
    mut progress: watch::Receiver<W>,
    cancel: CancellationToken,
) {
    let start = plan
        .initial
        .clone()
        .unwrap_or_else(|| progress.borrow().situation(board).expected.board().clone());
    let mut sim = SimBoard::new(&profile, start, Orientation::Normal);
    if profile.clock.attached {
        // A DGT clock in its PC mode on the board's clock socket, as the arbiter set it up: the
        // lever down on the side whose time does not run first, before tactus reads it (placed
        // later, the change would reach tactus as a press of that side).
        let mut clock = EmulatedClock::new();
        if let Some(his) = plan.lever {
            let first = progress.borrow().situation(board).expected.turn();
            clock.press(if first == board { opposite(his) } else { his });
        }
        sim = sim.with_clock(clock);
    }
    let mut wire = Wire {
        name: name.clone(),
        sim,
        port: Some(port),
        spare_slave: None,
        pacer: Pacer::new(&profile),
        started: tokio::time::Instant::now(),
    };
    let mut clock_poll = tokio::time::interval(CLOCK_POLL);
    let mut player = Player::new(&profile, plan.intentions.clone());
    for msg in wire.sim.power_up() {
        wire.send(&msg).await;
    }
    let mut steps: VecDeque<HandStep> = VecDeque::new();
    let mut next_at: Option<tokio::time::Instant> = None;
    let mut buf = [0u8; 256];
    loop {
        if steps.is_empty() {
            let p = progress.borrow_and_update().clone();
            let decision = player.next(&p.situation(board), wire.sim.board());
            for note in &decision.notes {
                log_note(&name, note);
            }
            steps = decision.steps.into();
            next_at = wake_after(&steps);
        }
        let wake = next_at;
        tokio::select! {
            _ = cancel.cancelled() => return,
            read = async {
                match wire.port.as_mut() {
                    Some(port) => port.read(&mut buf).await,
                    None => std::future::pending().await,
                }
            } => match read {
                Ok(0) | Err(_) => tokio::time::sleep(PTY_RETRY).await,
                Ok(n) => wire.answer(&buf[..n]).await,
            },
            changed = progress.changed() => {
                if changed.is_err() {
                    // The hub is gone: the game is over for the hands too.
                    return;
                }
            }
            _ = clock_poll.tick(), if wire.sim.clock().is_some() => wire.clock_reports().await,
            _ = async {
                match wake {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => {
                if let Some(step) = steps.pop_front() {
                    wire.act(step.act, &plan, &cancel).await;
                }
                next_at = wake_after(&steps);
            }
        }
    }
}

/// When the next of `steps` is due.
fn wake_after(steps: &VecDeque<HandStep>) -> Option<tokio::time::Instant> {
    steps
        .front()
        .map(|s| tokio::time::Instant::now() + Duration::from_millis(s.delay_ms))
}

/// The planner's reasons, in the daemon's log.
fn log_note(board: &str, note: &Note) {
    match *note {
        Note::Correcting => info!(board, "guided: correcting the board"),
        Note::OffScript { ply } => warn!(
            board,
            ply, "the game has left the simulator's script; the simulated player stops"
        ),
        Note::WrongFirst { ply } => info!(board, ply, "making another move first, to be corrected"),
        Note::Unplugging { ply } => info!(
            board,
            ply, "the cable will be pulled in the middle of this move"
        ),
        Note::Button { ply, button } => info!(board, ply, button, "pressing a button first"),
        Note::Touching { ply, square } => {
            info!(board, ply, other = %square, "touching another piece first")
        }
        Note::Mistake { ply, wrong } => {
            info!(board, ply, %wrong, "executing the move wrongly on purpose")
        }
        Note::Early { ply, ms } => info!(board, ply, ms, "executing the opponent's move early"),
        Note::PuttingBack { ply } => info!(board, ply, "guided: putting the board back"),
        Note::Offering { ply } => info!(board, ply, "offering a draw with this move"),
        Note::Accepting { ply } => info!(board, ply, "accepting the draw offered"),
    }
}

impl Wire {
    /// Write one message if the board is plugged in. Returns whether it was written.
    async fn send(&mut self, bytes: &[u8]) -> bool {
        let Some(port) = self.port.as_mut() else {
            return false;
        };
        match self.pacer.send(port, bytes).await {
            Ok(_) => true,
            Err(e) => {
                debug!("simulator message not sent: {e}");
                false
            }
        }
    }

    /// The board answers what the host sent.
    async fn answer(&mut self, bytes: &[u8]) {
        self.clock_reports().await;
        let shown = self.sim.clock().and_then(|c| c.text());
        for msg in self.sim.host_bytes(bytes) {
            self.send(&msg).await;
        }
        // What the sighted player reads on the clock's display, for the tests to hold against
        // what was said (the times again once the text is gone).
        if let Some(clock) = self.sim.clock()
            && clock.text() != shown
        {
            info!(
                text = clock.text().as_deref().unwrap_or(""),
                "the clock's display changed"
            );
        }
    }

    /// The time on the clock's time line: what the board sends on its own by now (its clock's
    /// times, each second).
    async fn clock_reports(&mut self) {
        let now = self.started.elapsed().as_millis() as u64;
        for msg in self.sim.at(now) {
            self.send(&msg).await;
        }
    }

    /// One act of the hands.
    async fn act<D: Desk>(&mut self, act: Act, plan: &Plan<D>, cancel: &CancellationToken) {
        let name = self.name.clone();
        match act {
            Act::Sensor(event) => {
                if let Some(bytes) = self.sim.act(&event)
                    && self.send(&bytes).await
                {
                    // The instant the last byte went into the pty, for the latency measurement
                    // (BENCHMARKS.md): microseconds of Unix time.
                    debug!(board = name, ?event, unix_us = unix_us(), "sim wrote");
                }
            }
            Act::Unplug => {
                if let Some(link) = &plan.port_link {
                    // The device node goes first, as when a USB board is pulled.
                    let _ = std::fs::remove_file(link);
                }
                drop(self.spare_slave.take());
                self.port = None;
                info!(board = name, "simulated board unplugged");
            }
            Act::Replug => match replug(plan.port_link.as_deref()) {
                Ok((master, slave)) => {
                    self.port = Some(master);
                    drop(self.spare_slave.replace(slave));
                    info!(board = name, "simulated board plugged back in");
                    for msg in self.sim.power_up() {
                        self.send(&msg).await;
                    }
                }
                Err(e) => warn!(
                    board = name,
                    "cannot plug the simulated {name} board back in: {e}"
                ),
            },
            Act::Announce(role) => {
                if let Some(desk) = plan.desk.clone() {
                    tokio::spawn(announce_promotion(desk, role, cancel.clone()));
                }
            }
            Act::Press if plan.lever.is_some() && self.sim.clock().is_some() => {
                // His side of the lever goes down; the board reports the clock at once. His
                // side down already (he pressed it last, and the blind player's move counted
                // without a press, F.3), it does not move: he feels it and presses the other
                // side, as the table guide says.
                self.clock_reports().await;
                let now = self.started.elapsed().as_millis() as u64;
                let mut shown = (0, 0);
                if let (Some(side), Some(clock)) = (plan.lever, self.sim.clock_mut()) {
                    if !clock.press(side) {
                        info!(
                            board = name,
                            "his side of the lever is down already: the other"
                        );
                        clock.press(opposite(side));
                    }
                    shown = clock.shows(now);
                }
                if let Some(bytes) = self.sim.lever_report() {
                    self.send(&bytes).await;
                }
                // What the physical clock showed as he pressed, for the tests to hold against
                // the official clock.
                info!(
                    board = name,
                    left_ms = shown.0,
                    right_ms = shown.1,
                    "pressed the clock's lever"
                );
            }
            Act::Press => {
                if let Some(desk) = plan.desk.clone() {
                    tokio::spawn(async move {
                        // The reply is for nobody.
                        let _ = desk.enter(Action::Press).await;
                    });
                }
            }
            Act::Correct(san) => {
                if let Some(desk) = plan.desk.clone() {
                    tokio::spawn(correct_move(desk, san, cancel.clone()));
                }
            }
            Act::OfferDraw(by) | Act::AcceptDraw(by) => {
                if let Some(desk) = plan.desk.clone() {
                    let side = match by {
                        shakmaty::Color::White => Side::White,
                        shakmaty::Color::Black => Side::Black,
                    };
                    let action = match act {
                        Act::OfferDraw(_) => Action::Offer(side),
                        _ => Action::Accept(side),
                    };
                    // Entered in order with his next step (a press after the offer).
                    match desk.enter(action).await {
                        Some(End::Error(e)) => {
                            warn!(
                                board = name,
                                "the simulated assistant's line at the {name} board was refused: \
                                 {e}"
                            )
                        }
                        Some(_) => info!(board = name, ?act, "said by the simulated player"),
                        None => {}
                    }
                }
            }
        }
    }
}

/// The other side of the clock.
fn opposite(side: ClockSide) -> ClockSide {
    match side {
        ClockSide::Left => ClockSide::Right,
        ClockSide::Right => ClockSide::Left,
    }
}

fn unix_us() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0)
}

/// A new pty pair whose slave `link` points at (replacing the old link in one rename). The link
/// opens the slave by its path; the slave returned here is only kept open (never read).
fn replug(link: Option<&Path>) -> anyhow::Result<(SerialStream, SerialStream)> {
    let link = link.ok_or_else(|| anyhow::anyhow!("the board has no port link to re-point"))?;
    let (master, slave) = SerialStream::pair()?;
    let target = tokio_serial::SerialPort::name(&slave)
        .ok_or_else(|| anyhow::anyhow!("the new pseudo-terminal has no name"))?;
    let fresh = link.with_extension("new");
    let _ = std::fs::remove_file(&fresh);
    std::os::unix::fs::symlink(&target, &fresh)?;
    std::fs::rename(&fresh, link)?;
    Ok((master, slave))
}

/// The player says the piece he promoted to; the assistant enters it (`promote`). Said again a
/// little later while the hub has not yet seen the placement that makes the promotion wait for
/// its piece.
async fn announce_promotion<D: Desk>(desk: D, role: Role, cancel: CancellationToken) {
    for _ in 0..ANNOUNCE_ATTEMPTS {
        let Some(end) = desk.enter(Action::Promote(role)).await else {
            return;
        };
        // The arbiter's refusal when no promotion waits (see `arbiter`, Input::Promote).
        if !matches!(&end, End::Error(e) if e.contains("no promotion is waiting")) {
            return;
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(ANNOUNCE_RETRY) => {}
        }
    }
    warn!("the simulated player's promotion piece was never taken");
}

/// The assistant corrects the move just announced (F.6). Sent right after the placement; said
/// again a little later while the hub has not yet seen the placement (the refusal then says
/// nothing is being announced).
async fn correct_move<D: Desk>(desk: D, san: String, cancel: CancellationToken) {
    for _ in 0..CORRECT_ATTEMPTS {
        let Some(end) = desk.enter(Action::Correct(san.clone())).await else {
            return;
        };
        if !matches!(&end, End::Error(e) if e.contains("too late to correct")) {
            return;
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(CORRECT_RETRY) => {}
        }
    }
    warn!("the assistant's correction came too late");
}
