//! Refusals that repeat (failed arbiter logins, connections over the cap, connections closed for
//! silence or for taking a place kept for the arbiter without logging in), counted and logged as
//! one line a minute rather than one each: an attacker must not flood the log (journald) nor
//! hide the first refusal in the noise.

use std::{
    sync::{Mutex, MutexGuard},
    time::Instant,
};

use tracing::warn;

/// Refusals that repeat, counted and logged as one line a minute rather than one each: an
/// attacker must not flood the log (journald) nor hide the first refusal in the noise.
#[derive(Default)]
pub(super) struct Refusals {
    failed_logins: u64,
    closed_for_logins: u64,
    over_cap: u64,
    closed_silent: u64,
    cap: usize,
    since: Option<Instant>,
}

impl Refusals {
    pub(super) fn failed_login(&mut self, conn: u64) {
        if self.failed_logins == 0 && self.since.is_none() {
            // The first of a burst is logged at once; the rest go into the summary.
            warn!(
                conn,
                "console {conn}: a failed arbiter login, with a wrong token; more are answered \
                 ever more slowly, then the console is closed"
            );
        }
        self.failed_logins += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    pub(super) fn closed_for_logins(&mut self) {
        self.closed_for_logins += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    pub(super) fn over_cap(&mut self, cap: usize) {
        if self.over_cap == 0 && self.since.is_none() {
            warn!("console: {cap} connections are open; refusing more");
        }
        self.over_cap += 1;
        self.cap = cap;
        self.since.get_or_insert_with(Instant::now);
    }

    /// A connection closed before it said who it is: silent too long, or in a place kept for the
    /// arbiter without logging in.
    pub(super) fn closed_silent(&mut self) {
        if self.closed_silent == 0 && self.since.is_none() {
            warn!("console: closed a connection that did not say who it is in time");
        }
        self.closed_silent += 1;
        self.since.get_or_insert_with(Instant::now);
    }

    /// Log what was counted since the last summary, and start counting again.
    pub(super) fn log(&mut self) {
        let Some(since) = self.since.take() else {
            return;
        };
        let mut parts = Vec::new();
        if self.failed_logins > 0 {
            parts.push(format!(
                "{} failed arbiter logins ({} connections closed for them)",
                self.failed_logins, self.closed_for_logins
            ));
        }
        if self.over_cap > 0 {
            parts.push(format!(
                "{} connections refused over the cap of {}",
                self.over_cap, self.cap
            ));
        }
        if self.closed_silent > 0 {
            parts.push(format!(
                "{} connections closed before they said who they are (silent, or in the \
                 arbiter's place without his login)",
                self.closed_silent
            ));
        }
        if !parts.is_empty() {
            warn!(
                "console: in the last {} s: {}",
                since.elapsed().as_secs(),
                parts.join("; ")
            );
        }
        *self = Refusals::default();
    }
}

/// The counts are plain numbers: a panic elsewhere while they were held leaves them usable.
pub(super) fn lock(refusals: &Mutex<Refusals>) -> MutexGuard<'_, Refusals> {
    refusals.lock().unwrap_or_else(|e| e.into_inner())
}
