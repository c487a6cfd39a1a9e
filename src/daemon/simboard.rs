//! The simulated players behind `port = "sim"`: a board simulator on a real pseudo-terminal whose
//! hands play both roles a player has on his board: his own moves (from a game's move list), and
//! the opponent's moves once they have been announced to him (F.3, F.4 of Appendix F: each
//! player executes the other's move on his own board).
//!
//! A simulator cannot hear speech, so the hands act on the hub's [`Progress`]: what the board is
//! expected to show and whether its player is to move or to execute a move. That is exactly what
//! a player knows from the announcements. The wire is real: the board side of the protocol is
//! [`SimBoard`] (the same as `tactus sim`), paced by [`Pacer`], and the daemon's link reads the
//! other end of the pty as it would read a USB board.
//!
//! It must not touch the game or the arbiter, and never decides anything the recogniser should:
//! it only moves pieces, and says what a player says aloud: the piece he promotes to on a board
//! that cannot see it (F.3; the assistant enters it at the console, which is the way the
//! announcement reaches the hub here too). What a test or the demo may ask of the hands:
//! - one opponent's move executed wrongly first and corrected once the player has been guided
//!   (the demo's mis-executed move);
//! - one own move preceded by touching another piece that could move (Art. 4.3 a);
//! - the board's cable pulled in the middle of one own move and plugged back in (the port goes
//!   away and comes back under the same path, as a USB board does);
//! - and always: a board that rests on something other than what it should show while nobody is
//!   to move on it (a retrace, F.8) is put back once its player has been guided.

use std::{collections::VecDeque, path::PathBuf, time::Duration};

use shakmaty::{Board, Chess, Move, Position, Role, Square};
use tokio::{
    io::AsyncReadExt,
    sync::{mpsc, oneshot, watch},
};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::hub::{HubMsg, Progress};
use crate::sim::serve::Pacer;
use tactus_core::rules::Millis;
use tactus_core::{
    arbiter::BoardId,
    board::{Orientation, Sensing, SensorEvent, profile::Profile, recognize::Mode},
    console::{self, Action, Command, wire::End},
    sim::{
        board::{SimBoard, default_style},
        script::{Step, script},
    },
};

/// How long a player thinks before his own move, at speed 1.
const THINK_MS: f64 = 1000.0;
/// How long before he executes the opponent's move after hearing it, at speed 1.
const EXECUTE_MS: f64 = 700.0;
/// How long he takes to correct his board after being guided, at speed 1.
const CORRECT_MS: f64 = 1200.0;
/// How long after placing a promoted pawn he says the new piece, at speed 1.
const ANNOUNCE_MS: f64 = 400.0;
/// How long the board stays unplugged, at speed 1 (never shorter than [`UNPLUGGED_MIN`]).
const UNPLUGGED_MS: f64 = 3000.0;
const UNPLUGGED_MIN: Duration = Duration::from_millis(300);
/// Lowest pause between two events of a move on an occupancy board, above its bounce window (a
/// capture's lift and placement on one square within it would be sensor chatter).
const OCCUPANCY_STEP_MARGIN_MS: u64 = 25;
/// Lowest pause between two events on an identity board.
const MIN_STEP_MS: u64 = 10;
/// A pty whose other side is closed (the link reopening it) reads as an error: wait this long.
const PTY_RETRY: Duration = Duration::from_millis(50);
/// The console connection number the simulated players' announcements come from (real
/// connections are numbered from 1).
pub const SIM_CONN: u64 = 0;
/// A promotion piece said before the board's placement has reached the hub is said again after
/// this long, at most [`ANNOUNCE_ATTEMPTS`] times.
const ANNOUNCE_RETRY: Duration = Duration::from_millis(25);
const ANNOUNCE_ATTEMPTS: usize = 80;
/// A correction sent before the hub has seen the placement is sent again this soon (the
/// announcement it corrects takes tens of milliseconds), a few times.
const CORRECT_RETRY: Duration = Duration::from_millis(2);
const CORRECT_ATTEMPTS: usize = 10;

/// What a simulated player plays.
#[derive(Debug, Clone)]
pub struct SimPlan {
    /// The whole game's moves from its start position.
    pub moves: Vec<Move>,
    /// Pauses are divided by this (1: a human pace; tests use 20 or more).
    pub speed: f64,
    /// The 1-based ply of an opponent's move this board's player executes wrongly at first.
    pub mistake_ply: Option<usize>,
    /// From this 1-based ply on, the player's first own move is preceded by lifting and putting
    /// back another of his pieces that could move (a possible claim under Art. 4.3 a).
    pub touch_ply: Option<usize>,
    /// From this 1-based ply on, the player's first own simple move (no capture, castling or
    /// promotion) is made with the cable pulled between the lift and the placement; the board is
    /// plugged back in afterwards. Needs `port_link`.
    pub unplug_ply: Option<usize>,
    /// Before his own move at this 1-based ply, the player presses this button of his board (a
    /// request, F.9 d).
    pub button: Option<(usize, u8)>,
    /// He executes the opponent's move once it stands on the other board, this long after,
    /// before it is announced (he heard it said aloud, F.1).
    pub executes_early_ms: Option<u64>,
    /// At this 1-based ply he makes another legal move than his own first; once the assistant
    /// has corrected it (F.6) he is guided to his own.
    pub wrong_ply: Option<usize>,
    /// He presses his clock (the console's `press`) this long after his move stands; never
    /// after a move that ends the game.
    pub press_ms: Option<u64>,
    /// He makes his move even while the clocks stand.
    pub move_while_paused: bool,
    /// The path the daemon's link opens for this board: a symbolic link to the pty, which the
    /// hands remove when they pull the cable and point at a new pty when they plug it back in.
    pub port_link: Option<PathBuf>,
    /// The hub, to which the player's spoken promotion piece goes (as the console's `promote`).
    pub hub: Option<mpsc::Sender<HubMsg>>,
    /// Past the end of `moves`, the player chooses his own moves (seeded: the same seed, the
    /// same choices in the same positions): a training game, whose opponent's replies no list
    /// can know in advance.
    pub choose: Option<u64>,
    /// What stands on the board when it is switched on, if not what the game expects (a
    /// training game from a FEN on a board still set up for a new game).
    pub initial: Option<Board>,
}

/// The move a player who chooses for himself makes: a capture or a check when he sees one
/// (as a beginner plays), else any legal move; the seed and the position decide.
pub fn chosen_move(pos: &Chess, seed: u64) -> Option<Move> {
    let moves = pos.legal_moves();
    let mut rng = tactus_core::sim::table::Rng::new(
        seed ^ pos.board().occupied().0 ^ pos.fullmoves().get() as u64,
    );
    let forcing: Vec<Move> = moves
        .iter()
        .filter(|m| {
            m.is_capture() || {
                let mut after = pos.clone();
                after.play_unchecked(**m);
                after.is_check()
            }
        })
        .copied()
        .collect();
    let pool: &[Move] = if !forcing.is_empty() && rng.chance(0.5) {
        &forcing
    } else {
        &moves
    };
    pool.get(rng.below(pool.len() as u64) as usize).copied()
}

fn scaled(ms: f64, speed: f64) -> Duration {
    Duration::from_millis((ms / speed.max(0.01)).round() as u64)
}

/// A wrong square for `m`'s piece: next to its destination, empty, and not its origin.
fn wrong_square(before: &Chess, m: Move) -> Option<Square> {
    let to = m.to();
    let from = m.from()?;
    let mut near: Vec<Square> = shakmaty::attacks::king_attacks(to)
        .into_iter()
        .filter(|&sq| sq != from && before.board().piece_at(sq).is_none())
        .collect();
    // Prefer a square on the destination's rank (the classic slip: one file off).
    near.sort_by_key(|sq| (sq.rank() != to.rank(), *sq));
    near.first().copied()
}

/// Another piece of the mover that could move, away from everything `m` touches: the piece he
/// touches first (Art. 4.3 a). Pawns and knights first.
fn other_movable(before: &Chess, m: Move) -> Option<Square> {
    let busy = |sq: Square| {
        Some(sq) == m.from() || sq == m.to() || matches!(m, Move::Castle { rook, .. } if rook == sq)
    };
    let mut candidates: Vec<(u8, Square)> = before
        .legal_moves()
        .into_iter()
        .filter_map(|o| o.from())
        .filter(|&sq| !busy(sq))
        .map(|sq| {
            let rank = match before.board().role_at(sq) {
                Some(Role::Pawn) => 0,
                Some(Role::Knight) => 1,
                _ => 2,
            };
            (rank, sq)
        })
        .collect();
    candidates.sort();
    candidates.first().map(|&(_, sq)| sq)
}

/// Another legal move than `m`, a quiet one first (the player's slip), for the F.6 correction.
fn another_move(before: &Chess, m: Move) -> Option<Move> {
    let moves = before.legal_moves();
    let quiet = |o: &&Move| !o.is_capture() && !o.is_promotion() && !o.is_castle();
    moves
        .iter()
        .filter(quiet)
        .find(|o| o.from() == m.from() && **o != m)
        .or_else(|| moves.iter().filter(quiet).find(|o| **o != m))
        .copied()
}

/// The hands' steps that turn `found` into `wanted`: every wrong piece taken off, then every
/// missing one put on.
fn restore_steps(found: &Board, wanted: &Board, delay_ms: Millis) -> Vec<HandStep> {
    let mut steps = Vec::new();
    for sq in Square::ALL {
        if let Some(p) = found.piece_at(sq)
            && wanted.piece_at(sq) != Some(p)
        {
            steps.push(HandStep::sensor(delay_ms, SensorEvent::Lift { square: sq }));
        }
    }
    for sq in Square::ALL {
        if let Some(p) = wanted.piece_at(sq)
            && found.piece_at(sq) != Some(p)
        {
            steps.push(HandStep::sensor(
                delay_ms,
                SensorEvent::Place {
                    square: sq,
                    piece: Some(p),
                },
            ));
        }
    }
    steps
}

/// What the hands do in one step.
#[derive(Debug, Clone)]
enum Act {
    /// Lift or place a piece; the board reports it while it is plugged in.
    Sensor(SensorEvent),
    /// Pull the cable: the port goes away, the link reads a hang-up.
    Unplug,
    /// Plug the cable back in: a new port under the same path.
    Replug,
    /// The player says the piece he promoted to.
    Announce(Role),
    /// The sighted player presses his clock (the console's `press`).
    Press,
    /// The assistant corrects the move just announced (F.6: `correct SAN`).
    Correct(String),
}

/// One act after a delay (from the previous step).
#[derive(Debug, Clone)]
struct HandStep {
    delay_ms: Millis,
    act: Act,
}

impl HandStep {
    fn sensor(delay_ms: Millis, event: SensorEvent) -> HandStep {
        HandStep {
            delay_ms,
            act: Act::Sensor(event),
        }
    }
}

fn hand_steps(steps: Vec<Step>) -> Vec<HandStep> {
    steps
        .into_iter()
        .map(|s| HandStep::sensor(s.delay_ms, s.event))
        .collect()
}

/// What the hands are doing.
struct Hands {
    steps: VecDeque<HandStep>,
    next_at: Option<tokio::time::Instant>,
    /// (mode key, ply) already acted upon: each expectation gets one response.
    done: Option<(u8, usize)>,
    /// The game's ply last seen: a smaller one is a retrace, after which moves are played again.
    last_ply: usize,
    /// After a wrong placement: the guidance count seen then, and the correcting steps.
    awaiting_guidance: Option<(u64, Vec<HandStep>)>,
    /// The board rests on something it should not show while nobody moves on it: the guidance
    /// count seen then (the hands put it right once the player has been told).
    restore_after: Option<u64>,
    touched: bool,
    unplugged: bool,
}

/// Play on the pty's `port` (the master side) until `cancel`.
pub async fn play(
    board: BoardId,
    profile: Profile,
    port: SerialStream,
    plan: SimPlan,
    mut progress: watch::Receiver<Progress>,
    cancel: CancellationToken,
) {
    let i = board;
    let name = board.name();
    let mut port = Some(port);
    // After a replug the hands keep a slave end of the new pty open: once every slave end of a
    // pty has been closed its master polls as hung up, and reading it through tokio then spins
    // on EAGAIN even after the link has opened the slave again (seen with strace: two workers
    // busy with ~7,000 failed reads a second each).
    let mut spare_slave: Option<SerialStream> = None;
    let start = plan
        .initial
        .clone()
        .unwrap_or_else(|| progress.borrow().expected[i].board().clone());
    let mut sim = SimBoard::new(&profile, start, Orientation::Normal);
    let mut pacer = Pacer::new(&profile);
    let mut style = default_style(&profile);
    let min_step = match profile.sensing {
        Sensing::Occupancy => profile.timing.bounce_ms + OCCUPANCY_STEP_MARGIN_MS,
        Sensing::Identity => MIN_STEP_MS,
    };
    style.step_ms = ((style.step_ms as f64 / plan.speed.max(0.01)) as u64).max(min_step);
    let step_delay = Duration::from_millis(style.step_ms);
    for msg in sim.power_up() {
        send(&mut port, &mut pacer, &msg).await;
    }
    let mut hands = Hands {
        steps: VecDeque::new(),
        next_at: None,
        done: None,
        last_ply: 0,
        awaiting_guidance: None,
        restore_after: None,
        touched: false,
        unplugged: false,
    };
    let ctx = Context {
        i,
        plan: &plan,
        step_delay,
        style: &style,
        occupancy: profile.sensing == Sensing::Occupancy,
    };
    let mut buf = [0u8; 256];
    let mut warned_off_script = false;
    loop {
        if hands.steps.is_empty() {
            let p = progress.borrow_and_update().clone();
            plan_next(&ctx, &p, sim.board(), &mut hands, &mut warned_off_script);
        }
        let wake = hands.next_at;
        tokio::select! {
            _ = cancel.cancelled() => return,
            read = async {
                match port.as_mut() {
                    Some(port) => port.read(&mut buf).await,
                    None => std::future::pending().await,
                }
            } => match read {
                Ok(0) | Err(_) => tokio::time::sleep(PTY_RETRY).await,
                Ok(n) => {
                    for msg in sim.host_bytes(&buf[..n]) {
                        send(&mut port, &mut pacer, &msg).await;
                    }
                }
            },
            changed = progress.changed() => {
                if changed.is_err() {
                    // The hub is gone: the game is over for the hands too.
                    return;
                }
            }
            _ = async {
                match wake {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => {
                if let Some(step) = hands.steps.pop_front() {
                    match step.act {
                        Act::Sensor(event) => {
                            if let Some(bytes) = sim.act(&event)
                                && send(&mut port, &mut pacer, &bytes).await
                            {
                                // The instant the last byte went into the pty, for the latency
                                // measurement (BENCHMARKS.md): microseconds of Unix time.
                                debug!(board = name, ?event, unix_us = unix_us(), "sim wrote");
                            }
                        }
                        Act::Unplug => {
                            if let Some(link) = &plan.port_link {
                                // The device node goes first, as when a USB board is pulled.
                                let _ = std::fs::remove_file(link);
                            }
                            drop(spare_slave.take());
                            port = None;
                            info!(board = name, "simulated board unplugged");
                        }
                        Act::Replug => match replug(plan.port_link.as_deref()) {
                            Ok((master, slave)) => {
                                port = Some(master);
                                drop(spare_slave.replace(slave));
                                info!(board = name, "simulated board plugged back in");
                                for msg in sim.power_up() {
                                    send(&mut port, &mut pacer, &msg).await;
                                }
                            }
                            Err(e) => warn!(board = name, "cannot plug the simulated board back in: {e}"),
                        },
                        Act::Announce(role) => {
                            if let Some(hub) = plan.hub.clone() {
                                tokio::spawn(announce_promotion(hub, role, cancel.clone()));
                            }
                        }
                        Act::Press => {
                            if let Some(hub) = plan.hub.clone() {
                                tokio::spawn(console_once(hub, Action::Press));
                            }
                        }
                        Act::Correct(san) => {
                            if let Some(hub) = plan.hub.clone() {
                                tokio::spawn(correct_move(hub, san, cancel.clone()));
                            }
                        }
                    }
                }
                hands.next_at = hands
                    .steps
                    .front()
                    .map(|s| tokio::time::Instant::now() + Duration::from_millis(s.delay_ms));
            }
        }
    }
}

/// Write one message if the board is plugged in. Returns whether it was written.
async fn send(port: &mut Option<SerialStream>, pacer: &mut Pacer, bytes: &[u8]) -> bool {
    let Some(port) = port.as_mut() else {
        return false;
    };
    match pacer.send(port, bytes).await {
        Ok(_) => true,
        Err(e) => {
            debug!("simulator message not sent: {e}");
            false
        }
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
fn replug(link: Option<&std::path::Path>) -> anyhow::Result<(SerialStream, SerialStream)> {
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
async fn announce_promotion(hub: mpsc::Sender<HubMsg>, role: Role, cancel: CancellationToken) {
    for _ in 0..ANNOUNCE_ATTEMPTS {
        let (tx, rx) = oneshot::channel();
        let msg = HubMsg::Console {
            conn: SIM_CONN,
            role: console::Role::Assistant,
            command: Command::Game(Action::Promote(role)),
            reply: tx,
        };
        if hub.send(msg).await.is_err() {
            return;
        }
        let Ok(reply) = rx.await else { return };
        // The arbiter's refusal when no promotion waits (see `arbiter`, Input::Promote).
        if !matches!(&reply.end, End::Error(e) if e.contains("no promotion is waiting")) {
            return;
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(ANNOUNCE_RETRY) => {}
        }
    }
    warn!("the simulated player's promotion piece was never taken");
}

/// One console command for a player (as the assistant types it); the reply is for nobody.
async fn console_once(hub: mpsc::Sender<HubMsg>, action: Action) {
    let (tx, rx) = oneshot::channel();
    let msg = HubMsg::Console {
        conn: SIM_CONN,
        role: console::Role::Assistant,
        command: Command::Game(action),
        reply: tx,
    };
    if hub.send(msg).await.is_ok() {
        let _ = rx.await;
    }
}

/// The assistant corrects the move just announced (F.6). Sent right after the placement; said
/// again a little later while the hub has not yet seen the placement (the refusal then says
/// nothing is being announced).
async fn correct_move(hub: mpsc::Sender<HubMsg>, san: String, cancel: CancellationToken) {
    for _ in 0..CORRECT_ATTEMPTS {
        let (tx, rx) = oneshot::channel();
        let msg = HubMsg::Console {
            conn: SIM_CONN,
            role: console::Role::Assistant,
            command: Command::Game(Action::Correct(san.clone())),
            reply: tx,
        };
        if hub.send(msg).await.is_err() {
            return;
        }
        let Ok(reply) = rx.await else { return };
        if !matches!(&reply.end, End::Error(e) if e.contains("too late to correct")) {
            return;
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(CORRECT_RETRY) => {}
        }
    }
    warn!("the assistant's correction came too late");
}

/// What does not change during a game.
struct Context<'a> {
    i: BoardId,
    plan: &'a SimPlan,
    step_delay: Duration,
    style: &'a tactus_core::sim::script::Style,
    occupancy: bool,
}

/// Decide what the hands do next from where the game stands and what stands on the board.
fn plan_next(
    ctx: &Context<'_>,
    p: &Progress,
    physical: &Board,
    hands: &mut Hands,
    warned: &mut bool,
) {
    let (i, plan) = (ctx.i, ctx.plan);
    if p.ply < hands.last_ply {
        // Retraced (F.8): the moves from there on are played again.
        hands.done = None;
    }
    hands.last_ply = p.ply;
    // While the clocks are paused, or after the game, nobody moves; a board is still put right
    // (after a retrace the clocks wait for the boards; after the last move each board should
    // show the final position).
    let waiting = matches!(p.modes[i], Mode::Hold | Mode::Await);
    // The move that ended the game is still put on the other board (it shows the final
    // position, as the scoresheet does).
    let final_move = p.over && matches!(p.modes[i], Mode::Execute(_));
    let stands_still = (p.over && !final_move) || (p.paused && !plan.move_while_paused);
    // Before the start a board is only put right (a set-up position it must show first).
    if (!p.started || stands_still) && !waiting {
        return;
    }
    let expected = &p.expected[i];
    let delay = ctx.step_delay.as_millis() as u64;
    let queue = |steps: Vec<HandStep>, pause: Duration, hands: &mut Hands| {
        let mut steps: VecDeque<HandStep> = steps.into();
        if let Some(first) = steps.front_mut() {
            first.delay_ms = pause.as_millis() as u64;
        }
        hands.next_at = steps
            .front()
            .map(|s| tokio::time::Instant::now() + Duration::from_millis(s.delay_ms));
        hands.steps = steps;
    };
    if let Some((seen, correction)) = &hands.awaiting_guidance
        && p.guidance[i] > *seen
    {
        let correction = correction.clone();
        hands.awaiting_guidance = None;
        info!(board = i.name(), "guided: correcting the board");
        queue(correction, scaled(CORRECT_MS, plan.speed), hands);
        return;
    }
    if !waiting {
        hands.restore_after = None;
    }
    match p.modes[i] {
        Mode::Move => {
            let key = (0u8, p.ply);
            if hands.done == Some(key) {
                return;
            }
            let Some(m) = plan
                .moves
                .get(p.ply)
                .copied()
                .or_else(|| plan.choose.and_then(|seed| chosen_move(expected, seed)))
            else {
                return;
            };
            if !expected.is_legal(m) {
                if !*warned {
                    warn!(
                        board = i.name(),
                        ply = p.ply,
                        "the game has left the simulator's script; the simulated player stops"
                    );
                    *warned = true;
                }
                return;
            }
            hands.done = Some(key);
            let ply = p.ply + 1;
            if plan.wrong_ply == Some(ply)
                && let Some(other) = another_move(expected, m)
            {
                // Another move first; the assistant corrects the announcement at once (F.6),
                // and the player is guided to the move he meant.
                info!(
                    board = i.name(),
                    ply, "making another move first, to be corrected"
                );
                let mut steps = hand_steps(script(expected, other, ctx.style));
                steps.push(HandStep {
                    delay_ms: 2,
                    act: Act::Correct(tactus_core::rules::notation::san(expected, m)),
                });
                queue(steps, scaled(THINK_MS, plan.speed), hands);
                return;
            }
            let mut steps = hand_steps(script(expected, m, ctx.style));
            let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
            if !hands.unplugged
                && simple
                && plan.unplug_ply.is_some_and(|u| ply >= u)
                && plan.port_link.is_some()
                && steps.len() == 2
            {
                // Lift, pull the cable, place (unseen), plug it back in.
                hands.unplugged = true;
                info!(
                    board = i.name(),
                    ply, "the cable will be pulled in the middle of this move"
                );
                let unplugged = scaled(UNPLUGGED_MS, plan.speed).max(UNPLUGGED_MIN);
                steps.insert(
                    1,
                    HandStep {
                        delay_ms: delay,
                        act: Act::Unplug,
                    },
                );
                steps.push(HandStep {
                    delay_ms: unplugged.as_millis() as u64,
                    act: Act::Replug,
                });
            }
            if let Some((_, n)) = plan.button.filter(|&(at, _)| at == ply) {
                info!(board = i.name(), ply, button = n, "pressing a button first");
                steps.insert(0, HandStep::sensor(delay, SensorEvent::Button(n)));
            }
            if !hands.touched
                && plan.touch_ply.is_some_and(|t| ply >= t)
                && let Some(other) = other_movable(expected, m)
                && let Some(piece) = expected.board().piece_at(other)
            {
                hands.touched = true;
                info!(board = i.name(), ply, %other, "touching another piece first");
                let mut first = vec![
                    HandStep::sensor(delay, SensorEvent::Lift { square: other }),
                    HandStep::sensor(
                        delay,
                        SensorEvent::Place {
                            square: other,
                            piece: Some(piece),
                        },
                    ),
                ];
                first.extend(steps);
                steps = first;
            }
            if ctx.occupancy
                && let Some(role) = m.promotion()
            {
                // The board cannot see the new piece: the player says it.
                steps.push(HandStep {
                    delay_ms: scaled(ANNOUNCE_MS, plan.speed).as_millis() as u64,
                    act: Act::Announce(role),
                });
            }
            let mut after = expected.clone();
            after.play_unchecked(m);
            if let Some(ms) = plan.press_ms
                && !after.is_game_over()
            {
                // He stops his clock (a move that ends the game needs no press).
                steps.push(HandStep {
                    delay_ms: ms,
                    act: Act::Press,
                });
            }
            queue(steps, scaled(THINK_MS, plan.speed), hands);
        }
        Mode::Execute(m) => {
            let key = (1u8, p.ply);
            if hands.done == Some(key) {
                return;
            }
            hands.done = Some(key);
            let mut after = expected.clone();
            after.play_unchecked(m);
            if physical == after.board() {
                // Executed already, as he heard it said.
                return;
            }
            let pause = scaled(EXECUTE_MS, plan.speed);
            let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
            if plan.mistake_ply == Some(p.ply)
                && simple
                && let (Some(from), Some(wrong)) = (m.from(), wrong_square(expected, m))
                && let Some(piece) = expected.board().piece_at(from)
            {
                info!(board = i.name(), ply = p.ply, %wrong, "executing the move wrongly on purpose");
                let place = |square| SensorEvent::Place {
                    square,
                    piece: Some(piece),
                };
                let wrong_steps = vec![
                    HandStep::sensor(delay, SensorEvent::Lift { square: from }),
                    HandStep::sensor(delay, place(wrong)),
                ];
                let correction = vec![
                    HandStep::sensor(delay, SensorEvent::Lift { square: wrong }),
                    HandStep::sensor(delay, place(m.to())),
                ];
                hands.awaiting_guidance = Some((p.guidance[i], correction));
                queue(wrong_steps, pause, hands);
            } else {
                queue(hand_steps(script(expected, m, ctx.style)), pause, hands);
            }
        }
        Mode::Await
            if plan.executes_early_ms.is_some()
                && physical == expected.board()
                && hands.done != Some((2, p.ply))
                && let Some(&m) = plan.moves.get(p.ply)
                && expected.is_legal(m)
                && {
                    let mut after = expected.clone();
                    after.play_unchecked(m);
                    &p.shown[i.other()] == after.board()
                } =>
        {
            // The opponent's move stands on his board (and was said aloud, F.1): executed now,
            // before tactus has counted and announced it.
            hands.done = Some((2, p.ply));
            let ms = plan.executes_early_ms.unwrap_or(0);
            info!(
                board = i.name(),
                ply = p.ply + 1,
                ms,
                "executing the opponent's move early"
            );
            queue(
                hand_steps(script(expected, m, ctx.style)),
                Duration::from_millis(ms),
                hands,
            );
        }
        Mode::Hold | Mode::Await => {
            if hands.awaiting_guidance.is_some() || physical == expected.board() {
                hands.restore_after = None;
                return;
            }
            match hands.restore_after {
                None => hands.restore_after = Some(p.guidance[i]),
                Some(seen) if p.guidance[i] > seen => {
                    hands.restore_after = None;
                    info!(
                        board = i.name(),
                        ply = p.ply,
                        "guided: putting the board back"
                    );
                    queue(
                        restore_steps(physical, expected.board(), delay),
                        scaled(CORRECT_MS, plan.speed),
                        hands,
                    );
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position, uci::UciMove};

    use super::*;

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    #[test]
    fn the_touched_piece_could_move_and_is_not_part_of_the_move() {
        let pos = Chess::default();
        let m = mv(&pos, "e2e4");
        let sq = other_movable(&pos, m).unwrap();
        assert_ne!(sq, Square::E2);
        assert_eq!(pos.board().role_at(sq), Some(Role::Pawn));
        assert!(pos.legal_moves().iter().any(|o| o.from() == Some(sq)));
    }

    #[test]
    fn restoring_takes_off_what_is_wrong_and_puts_on_what_is_missing() {
        let before = Chess::default();
        let mut after = before.clone();
        after.play_unchecked(mv(&before, "e2e4"));
        let steps = restore_steps(after.board(), before.board(), 30);
        let events: Vec<_> = steps
            .iter()
            .map(|s| match &s.act {
                Act::Sensor(e) => e.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            events,
            vec![
                SensorEvent::Lift { square: Square::E4 },
                SensorEvent::Place {
                    square: Square::E2,
                    piece: before.board().piece_at(Square::E2)
                },
            ]
        );
        let mut board = tactus_core::sim::script::PhysicalBoard::new(after.board().clone());
        for e in &events {
            board.apply(e);
        }
        assert_eq!(&board.board, before.board());
    }
}
