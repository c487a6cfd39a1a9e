//! Log lines per MB of line noise (issue 25, point 7): a board link's session fed random bytes
//! at a DGT board's rate (9600 baud, about 960 bytes a second) for `MB` megabytes (default 1),
//! with the log at WARN as a daemon's terminal or journald has it; prints the WARN lines
//! written, per MB, and per hour of noise.
//!
//! `cargo bench --bench noise_log [-- MB]`

mod support;

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

use tactus_core::{
    board::{profile::ProfileSet, session::Session},
    sim::Rng,
};

#[derive(Clone, Default)]
struct Lines(Arc<Mutex<(u64, u64)>>);

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut counts = self.0.lock().unwrap();
        counts.0 += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        counts.1 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn main() {
    let Some(args) = support::bench_args() else {
        return;
    };
    let mb: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let bytes = mb * 1024 * 1024;
    let seconds = tracing::subscriber::with_default(subscriber, || noise(bytes));
    let (count, size) = *lines.0.lock().unwrap();
    println!(
        "{mb} MB of line noise over {seconds:.0} s at 9600 baud: {count} WARN lines ({size} bytes \
         of log), {:.0} lines per MB, {:.0} lines per hour",
        count as f64 / mb as f64,
        count as f64 * 3600.0 / seconds
    );
}

/// Random bytes into a DGT session at 960 bytes a second, in 64-byte reads; returns the seconds.
fn noise(bytes: u64) -> f64 {
    let profile = ProfileSet::builtin().get("dgt").unwrap().clone();
    let mut session = Session::new(&profile, None, 0);
    session.start(0);
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut sent = 0u64;
    let mut chunk = [0u8; 64];
    while sent < bytes {
        rng.fill(&mut chunk);
        let now = sent * 1000 / 960;
        session.received(&chunk, now);
        if session.next_deadline() <= now {
            session.tick(now);
        }
        sent += chunk.len() as u64;
    }
    sent as f64 / 960.0
}
