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
//! it only moves pieces. One move of the game may be executed wrongly first (the demo's
//! mis-executed move) and corrected after the player has been guided.

use std::{collections::VecDeque, time::Duration};

use shakmaty::{Chess, Move, Position, Square};
use tokio::{io::AsyncReadExt, sync::watch};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::hub::Progress;
use crate::{
    arbiter::BoardId,
    board::{Orientation, Sensing, SensorEvent, profile::Profile, recognize::Mode},
    sim::{
        script::{Step, script},
        serve::{Pacer, SimBoard, default_style},
    },
};

/// How long a player thinks before his own move, at speed 1.
const THINK_MS: f64 = 1000.0;
/// How long before he executes the opponent's move after hearing it, at speed 1.
const EXECUTE_MS: f64 = 700.0;
/// How long he takes to correct his board after being guided, at speed 1.
const CORRECT_MS: f64 = 1200.0;
/// Lowest pause between two events of a move on an occupancy board, above its bounce window (a
/// capture's lift and placement on one square within it would be sensor chatter).
const OCCUPANCY_STEP_MARGIN_MS: u64 = 25;
/// Lowest pause between two events on an identity board.
const MIN_STEP_MS: u64 = 10;
/// A pty whose other side is closed (the link reopening it) reads as an error: wait this long.
const PTY_RETRY: Duration = Duration::from_millis(50);

/// What a simulated player plays.
#[derive(Debug, Clone)]
pub struct SimPlan {
    /// The whole game's moves from its start position.
    pub moves: Vec<Move>,
    /// Pauses are divided by this (1: a human pace; tests use 20 or more).
    pub speed: f64,
    /// The 1-based ply of an opponent's move this board's player executes wrongly at first.
    pub mistake_ply: Option<usize>,
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

/// What the hands are doing.
struct Hands {
    steps: VecDeque<Step>,
    next_at: Option<tokio::time::Instant>,
    /// (mode key, ply) already acted upon: each expectation gets one response.
    done: Option<(u8, usize)>,
    /// After a wrong placement: the guidance count seen then, and the correcting steps.
    awaiting_guidance: Option<(u64, Vec<Step>)>,
}

/// Play on the pty's `port` (the master side) until `cancel`.
pub async fn play(
    board: BoardId,
    profile: Profile,
    mut port: SerialStream,
    plan: SimPlan,
    mut progress: watch::Receiver<Progress>,
    cancel: CancellationToken,
) {
    let i = match board {
        BoardId::Blind => 0,
        BoardId::Sighted => 1,
    };
    let start = progress.borrow().expected[i].board().clone();
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
        if let Err(e) = pacer.send(&mut port, &msg).await {
            debug!("simulator greeting not sent: {e}");
        }
    }
    let mut hands = Hands {
        steps: VecDeque::new(),
        next_at: None,
        done: None,
        awaiting_guidance: None,
    };
    let mut buf = [0u8; 256];
    let mut warned_off_script = false;
    loop {
        if hands.steps.is_empty() {
            let p = progress.borrow_and_update().clone();
            plan_next(
                i,
                &p,
                &plan,
                &mut hands,
                step_delay,
                &style,
                &mut warned_off_script,
            );
        }
        let wake = hands.next_at;
        tokio::select! {
            _ = cancel.cancelled() => return,
            read = port.read(&mut buf) => match read {
                Ok(0) | Err(_) => tokio::time::sleep(PTY_RETRY).await,
                Ok(n) => {
                    for msg in sim.host_bytes(&buf[..n]) {
                        if let Err(e) = pacer.send(&mut port, &msg).await {
                            debug!("simulator reply not sent: {e}");
                        }
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
                if let Some(step) = hands.steps.pop_front()
                    && let Some(bytes) = sim.act(&step.event)
                    && let Err(e) = pacer.send(&mut port, &bytes).await
                {
                    debug!("simulator event not sent: {e}");
                }
                hands.next_at = hands
                    .steps
                    .front()
                    .map(|s| tokio::time::Instant::now() + Duration::from_millis(s.delay_ms));
            }
        }
    }
}

/// Decide what the hands do next from where the game stands.
fn plan_next(
    i: usize,
    p: &Progress,
    plan: &SimPlan,
    hands: &mut Hands,
    step_delay: Duration,
    style: &crate::sim::script::Style,
    warned: &mut bool,
) {
    if !p.started || p.paused || p.over {
        return;
    }
    let expected = &p.expected[i];
    let queue = |steps: Vec<Step>, pause: Duration, hands: &mut Hands| {
        let mut steps: VecDeque<Step> = steps.into();
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
        info!(board = i, "guided: correcting the board");
        queue(correction, scaled(CORRECT_MS, plan.speed), hands);
        return;
    }
    match p.modes[i] {
        Mode::Move => {
            let key = (0u8, p.ply);
            if hands.done == Some(key) {
                return;
            }
            let Some(&m) = plan.moves.get(p.ply) else {
                return;
            };
            if !expected.is_legal(m) {
                if !*warned {
                    warn!(
                        board = i,
                        ply = p.ply,
                        "the game has left the simulator's script; the simulated player stops"
                    );
                    *warned = true;
                }
                return;
            }
            hands.done = Some(key);
            queue(
                script(expected, m, style),
                scaled(THINK_MS, plan.speed),
                hands,
            );
        }
        Mode::Execute(m) => {
            let key = (1u8, p.ply);
            if hands.done == Some(key) {
                return;
            }
            hands.done = Some(key);
            let pause = scaled(EXECUTE_MS, plan.speed);
            let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
            if plan.mistake_ply == Some(p.ply)
                && simple
                && let (Some(from), Some(wrong)) = (m.from(), wrong_square(expected, m))
                && let Some(piece) = expected.board().piece_at(from)
            {
                info!(board = i, ply = p.ply, %wrong, "executing the move wrongly on purpose");
                let delay = step_delay.as_millis() as u64;
                let place = |square| SensorEvent::Place {
                    square,
                    piece: Some(piece),
                };
                let wrong_steps = vec![
                    Step {
                        delay_ms: delay,
                        event: SensorEvent::Lift { square: from },
                    },
                    Step {
                        delay_ms: delay,
                        event: place(wrong),
                    },
                ];
                let correction = vec![
                    Step {
                        delay_ms: delay,
                        event: SensorEvent::Lift { square: wrong },
                    },
                    Step {
                        delay_ms: delay,
                        event: place(m.to()),
                    },
                ];
                hands.awaiting_guidance = Some((p.guidance[i], correction));
                queue(wrong_steps, pause, hands);
            } else {
                queue(script(expected, m, style), pause, hands);
            }
        }
        Mode::Hold => {}
    }
}
