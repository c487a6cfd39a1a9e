//! The demo's end: a run that stops once the simulated game has been played out (every move in
//! the record, no board still executing one, nothing left to say), or gives up when the game
//! makes no progress.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::hub::Progress;
use tactus_core::board::recognize::Mode;

/// The demo fails if the game makes no progress for this long (a hung simulator or recogniser
/// must not hang a script), at speed 1; shorter at higher speeds but never under 20 s.
const STALL_LIMIT: Duration = Duration::from_secs(60);

/// Cancel once the simulated game has been played out: every move in the record, no board still
/// executing one, nothing left to say. Gives up (without setting `played_out`) when the game
/// stalls.
pub(super) async fn watch_until_played(
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
                warn!(
                    ply = last_ply,
                    "the simulated game made no progress for {} s at ply {last_ply}; stopping",
                    stall.as_secs()
                );
                crate::output::say_error_line(&format!(
                    "tactus: the game made no progress for {} s at ply {last_ply}; stopping",
                    stall.as_secs()
                ));
                cancel.cancel();
                return;
            }
        }
    }
}
