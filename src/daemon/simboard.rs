//! The daemon's side of the simulated players behind `port = "sim"`: what the hub's
//! [`Progress`] tells a player ([`Watched`]), the hub's inbox as the assistant's console
//! ([`Desk`], from connection [`SIM_CONN`]), the plan the daemon's options make ([`SimPlan`]),
//! and the table's arbiter, who starts play once the boards show the position ([`arbiter`]). The hands on the pty are the shell's simulation (`crate::sim::players`), what
//! they do next the core's planner (`tactus_core::sim::player`).

use std::{path::PathBuf, time::Duration};

use shakmaty::Color;

use shakmaty::Board;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;

use super::hub::{HubMsg, Progress};
use crate::sim::players::{self, Desk, Plan, Watched};
use tracing::{info, warn};

use tactus_core::{
    board::{dgt_clock::ClockSide, profile::Profile},
    console::{self, Action, Command, wire::End},
    sim::player::{Intentions, Situation},
};

/// The console connection number the simulated players' announcements come from (real
/// connections are numbered from 1).
pub const SIM_CONN: u64 = 0;

/// What a simulated player plays: his [`Intentions`] (what each asks of his hands), and what the
/// daemon gives his hands.
#[derive(Debug, Clone)]
pub struct SimPlan {
    pub intentions: Intentions,
    /// The path the daemon's link opens for this board: a symbolic link to the pty, which the
    /// hands remove when they pull the cable and point at a new pty when they plug it back in
    /// (`intentions.can_unplug` says whether there is one).
    pub port_link: Option<PathBuf>,
    /// The hub, to which the player's spoken promotion piece goes (as the console's `promote`).
    pub hub: Option<mpsc::Sender<HubMsg>>,
    /// What stands on the board when it is switched on, if not what the game expects.
    pub initial: Option<Board>,
    /// His side of a DGT clock on his board, if it has one: his press is its lever there.
    pub lever: Option<ClockSide>,
}

impl Watched for Progress {
    fn situation(&self, seat: Color) -> Situation<'_> {
        let board = seat;
        Situation {
            ply: self.ply,
            expected: &self.expected[board],
            other_shows: &self.shown[!board],
            mode: self.modes[board],
            started: self.started,
            paused: self.paused,
            over: self.over,
            guidance: self.guidance[board],
        }
    }
}

/// The hub's inbox, as the console of a player's assistant.
#[derive(Debug, Clone)]
struct HubDesk {
    hub: mpsc::Sender<HubMsg>,
    /// Whose assistant: his player's seat.
    seat: Color,
}

impl Desk for HubDesk {
    async fn enter(&self, action: Action) -> Option<End> {
        let (tx, rx) = oneshot::channel();
        let msg = HubMsg::Console {
            conn: SIM_CONN,
            role: console::Role::Assistant,
            seat: Some(self.seat),
            command: Command::Game(action),
            reply: tx,
        };
        self.hub.send(msg).await.ok()?;
        rx.await.ok().map(|reply| reply.end)
    }
}

/// Play on the pty's `port` (the master side) until `cancel`.
pub async fn play(
    seat: Color,
    name: String,
    profile: Profile,
    port: SerialStream,
    plan: SimPlan,
    progress: watch::Receiver<Progress>,
    cancel: CancellationToken,
) {
    let plan = Plan {
        intentions: plan.intentions,
        port_link: plan.port_link,
        desk: plan.hub.map(|hub| HubDesk { hub, seat }),
        initial: plan.initial,
        lever: plan.lever,
    };
    players::play(seat, name, profile, port, plan, progress, cancel).await
}

/// A look at the table before the arbiter starts play, at a human pace (divided by the speed).
const ARBITER_LOOK: Duration = Duration::from_millis(800);

/// The arbiter of a simulated table: once every board shows the position he starts play at his
/// console (`start`), as at a real table when the round begins. A refusal (a board changed
/// meanwhile) makes him wait for the next ready table; a game that has started or ended needs
/// him no more.
pub async fn arbiter(
    mut progress: watch::Receiver<Progress>,
    hub: mpsc::Sender<HubMsg>,
    speed: f64,
    cancel: CancellationToken,
) {
    loop {
        let ready = {
            let p = progress.borrow_and_update();
            if p.started || p.over {
                return;
            }
            p.ready
        };
        if ready {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(ARBITER_LOOK.div_f64(speed)) => {}
            }
            let (tx, rx) = oneshot::channel();
            let msg = HubMsg::Console {
                conn: SIM_CONN,
                role: console::Role::Arbiter,
                seat: None,
                command: Command::Game(Action::Start { anyway: false }),
                reply: tx,
            };
            if hub.send(msg).await.is_err() {
                return;
            }
            match rx.await.map(|reply| reply.end) {
                Ok(End::Ok(_)) => {
                    info!("simulated arbiter: start");
                    return;
                }
                Ok(End::Error(e)) => warn!("simulated arbiter: start refused: {e}"),
                Err(_) => return,
            }
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            changed = progress.changed() => if changed.is_err() { return },
        }
    }
}
