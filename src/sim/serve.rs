//! Board simulators that speak the real protocols over a serial port (in practice one end of a
//! pseudo-terminal pair) and play a game on it the way hands do: a DGT board and a pegged board
//! with the line protocol.
//!
//! This module is the shell around the pure simulated board (`tactus_core::sim::board`): it
//! paces writes to the profile's baud rate ([`Pacer`]; a pty does not enforce baud rates), and
//! runs the "hands" that play the moves of a game with [`script`] in a chosen style, pause
//! between moves, and optionally pull the cable mid-game ([`serve`]: one loop over the named
//! steps of [`Serving`]: opening the port, answering the host, the hands' next act).
//!
//! It must not recognise moves or judge anything: it reports what the hands did, as a board
//! would, and never looks at what the host concluded. The only thing it learns from the host is
//! what a real board learns: the requests it receives (which is also how the simulated player
//! knows the board has been read, see [`SimConfig`]).

use std::{
    collections::VecDeque,
    path::PathBuf,
    time::{Duration, Instant},
};

use anyhow::Result;
use shakmaty::{Chess, Position};
use tokio::{
    io::{AsyncReadExt, AsyncWrite, AsyncWriteExt},
    sync::mpsc,
};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use tactus_core::sim::{
    board::{Garbage, START_BITS, SimBoard, SimConfig, SimGame, wire_time},
    script::{Step, script},
};
use tactus_core::{
    board::{Sensing, profile::Profile},
    rules::{Millis, notation::san},
};

/// Bytes written at once before the pacer sleeps for their wire time: small enough that a long
/// message (a 67-byte board dump) arrives spread out, as from a UART, and is decoded from several
/// reads.
const PACE_CHUNK: usize = 16;
/// How long a simulated player waits for the host to read the board after a move before going
/// on anyway, beyond the profile's settle time.
const READ_WAIT_MARGIN: Duration = Duration::from_millis(2000);
/// Extra rest after a reconnection on a board that confirms moves with a dump.
const RECONNECT_MARGIN: Duration = Duration::from_millis(500);
/// Pause between attempts to reopen the port.
const REOPEN_PAUSE: Duration = Duration::from_millis(100);

#[derive(Debug, Clone)]
pub struct Pacer {
    per_byte: Duration,
    free_at: tokio::time::Instant,
}

impl Pacer {
    pub fn new(profile: &Profile) -> Pacer {
        let s = &profile.serial;
        let parity = u32::from(s.parity != tactus_core::board::profile::Parity::None);
        let bits = START_BITS + u32::from(s.data_bits) + parity + u32::from(s.stop_bits);
        Pacer {
            per_byte: wire_time(1, bits, s.baud),
            free_at: tokio::time::Instant::now(),
        }
    }

    /// Write `bytes` as a UART at the profile's rate would: in chunks, each after the line is free
    /// again. Returns the instant the last chunk was handed to the port.
    pub async fn send<W: AsyncWrite + Unpin>(
        &mut self,
        port: &mut W,
        bytes: &[u8],
    ) -> std::io::Result<Instant> {
        let mut last = Instant::now();
        for chunk in bytes.chunks(PACE_CHUNK) {
            tokio::time::sleep_until(self.free_at).await;
            port.write_all(chunk).await?;
            port.flush().await?;
            last = Instant::now();
            // Usize to u32: a chunk is at most PACE_CHUNK bytes.
            self.free_at = tokio::time::Instant::now() + self.per_byte * chunk.len() as u32;
        }
        Ok(last)
    }
}

/// What the simulator did, for its user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimProgress {
    /// The port is open (again).
    Opened,
    /// The host has read the board for the first time since the port opened.
    Read,
    /// A move's last event was written (`written` is when its last byte went to the port;
    /// `None` when it was made while the board was away).
    Moved {
        ply: usize,
        san: String,
        written: Option<Instant>,
    },
    /// The port was closed, by the simulator (a pulled cable) or because it failed.
    Closed { reason: String },
    /// Every move has been played.
    Finished,
}

/// Where the simulator's port comes from.
#[derive(Debug)]
pub enum SimPort {
    /// Open (and, after a disconnect, reopen) this path with the profile's serial settings.
    Path(PathBuf),
    /// An already open port, e.g. the master side of a pty pair; it cannot be reopened.
    Stream(Option<SerialStream>),
}

impl SimPort {
    fn open(&mut self, profile: &Profile) -> Result<SerialStream> {
        match self {
            SimPort::Path(path) => crate::port::open_port(path, profile),
            SimPort::Stream(stream) => stream
                .take()
                .ok_or_else(|| anyhow::anyhow!("a given stream cannot be reopened")),
        }
    }
}

/// What the hands do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hands {
    /// Waiting for the host to read the board `more` times (counted from `reads`); then pause
    /// `then` before going on. `until`: give up waiting then (`None`: wait as long as it takes).
    AwaitRead {
        reads: u64,
        until: Option<tokio::time::Instant>,
        then: Duration,
    },
    /// Resting until the instant.
    Idle(tokio::time::Instant),
    /// Doing the steps of a move; the next one at this instant.
    Moving(tokio::time::Instant),
    /// The move is made; a sweeping board has not found all of it yet.
    Reporting,
    Done,
}

/// Play `game` on a simulated board on `port` until the game is over (and `linger` has passed)
/// or `cancel` fires. Progress goes to `progress` if given.
pub async fn serve(
    port: SimPort,
    cfg: SimConfig,
    game: SimGame,
    cancel: CancellationToken,
    progress: Option<mpsc::UnboundedSender<SimProgress>>,
) -> Result<()> {
    cfg.check()?;
    let mut s = Serving::new(port, cfg, game, progress);
    let mut buf = [0u8; 256];
    loop {
        // (Re)open the port.
        if s.stream.is_none() {
            if s.open(&cancel).await? == Flow::Stop {
                return Ok(());
            }
            continue;
        }
        // When the hands act next.
        let Some(wake) = s.wake() else {
            continue;
        };
        // The sweep finds a change before the hands act again, or after.
        let sample = s.sample_wake();
        let Some(port_stream) = s.stream.as_mut() else {
            continue;
        };
        let timer = match (wake, sample) {
            (Some(h), Some(t)) => Some(h.min(t)),
            (h, t) => h.or(t),
        };
        let sleep_until =
            timer.unwrap_or_else(|| tokio::time::Instant::now() + Duration::from_secs(3600));
        let lost: Option<String>;
        let mut pulled = false;
        tokio::select! {
            _ = cancel.cancelled() => return Ok(()),
            read = port_stream.read(&mut buf) => match read {
                Ok(0) => lost = Some("the port closed (hang-up)".into()),
                Err(err) => lost = Some(format!("read failed: {err}")),
                Ok(n) => lost = s.answer(&buf[..n]).await,
            },
            _ = tokio::time::sleep_until(sleep_until), if timer.is_some() => {
                let found = s.samples().await;
                let hands_due = wake.is_some_and(|h| h <= tokio::time::Instant::now());
                lost = match found {
                    Some(reason) => Some(reason),
                    None if hands_due => match s.hands_act().await {
                        Acted::Done => return Ok(()),
                        Acted::Lost(reason) => Some(reason),
                        Acted::Pulled(reason) => {
                            pulled = true;
                            Some(reason)
                        }
                        Acted::Fine => None,
                    },
                    None => None,
                };
            }
        }
        if let Some(reason) = lost
            && s.close(reason, pulled, &cancel).await == Flow::Stop
        {
            return Ok(());
        }
    }
}

/// Whether serving goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

/// What came of the hands' act.
#[derive(Debug)]
enum Acted {
    Fine,
    /// The game is played and the linger is over.
    Done,
    /// Writing failed: the port is lost.
    Lost(String),
    /// The hands pulled the cable.
    Pulled(String),
}

/// A simulated board being served: the board, the game as far as the hands have played it, the
/// port, and what the hands are doing.
struct Serving {
    port: SimPort,
    cfg: SimConfig,
    game: SimGame,
    progress: Option<mpsc::UnboundedSender<SimProgress>>,
    board: SimBoard,
    garbage: Garbage,
    pos: Chess,
    ply: usize,
    steps: VecDeque<Step>,
    last_written: Option<Instant>,
    /// A move was made while the board was away.
    made_away: bool,
    /// The board confirms moves with a dump (the host reads it after each move).
    confirms: bool,
    read_wait: Duration,
    stream: Option<SerialStream>,
    pacer: Pacer,
    hands: Hands,
    announced_read: bool,
    linger_until: Option<tokio::time::Instant>,
    cable_pulled: bool,
    ever_opened: bool,
    /// The simulated board's time line starts here (its sweep and clock count from it).
    epoch: tokio::time::Instant,
}

impl Serving {
    fn new(
        port: SimPort,
        cfg: SimConfig,
        game: SimGame,
        progress: Option<mpsc::UnboundedSender<SimProgress>>,
    ) -> Serving {
        let mut board = SimBoard::new(&cfg.profile, game.start.board().clone(), cfg.orientation);
        if let Some(sweep) = cfg.sweep {
            board = board.with_sweep(sweep);
        }
        let confirms =
            cfg.profile.timing.confirm_with_snapshot && cfg.profile.sensing == Sensing::Identity;
        Serving {
            garbage: Garbage::new(cfg.seed),
            pos: game.start.clone(),
            ply: 0,
            steps: VecDeque::new(),
            last_written: None,
            made_away: false,
            confirms,
            read_wait: cfg.profile.timing.settle() + READ_WAIT_MARGIN,
            stream: None,
            pacer: Pacer::new(&cfg.profile),
            hands: Hands::AwaitRead {
                reads: 0,
                until: None,
                then: Duration::ZERO,
            },
            announced_read: false,
            linger_until: None,
            cable_pulled: false,
            ever_opened: false,
            epoch: tokio::time::Instant::now(),
            board,
            port,
            cfg,
            game,
            progress,
        }
    }

    fn report(&self, p: SimProgress) {
        if let Some(tx) = &self.progress {
            // A progress listener that went away does not stop the board.
            let _ = tx.send(p);
        }
    }

    /// Open the port (again): the board greets the host, and the hands wait until it has read
    /// the board. A port that never opened is an error; one that went away is retried.
    async fn open(&mut self, cancel: &CancellationToken) -> Result<Flow> {
        let cfg = &self.cfg;
        let mut s = match self.port.open(&cfg.profile) {
            Ok(s) => s,
            Err(err) => {
                // A port that never opened is a mistake to report (a typo in the path); one
                // that went away is a pulled cable, retried until it is back.
                if !self.ever_opened || matches!(self.port, SimPort::Stream(_)) {
                    return Err(err);
                }
                debug!("simulator cannot reopen its port yet: {err:#}");
                return Ok(pause(cancel, REOPEN_PAUSE).await);
            }
        };
        // A board that comes back starts with an empty input buffer: requests the host sent
        // while it was away (queued in the pty) were never received.
        if let Err(err) = tokio_serial::SerialPort::clear(&s, tokio_serial::ClearBuffer::Input) {
            debug!("cannot clear the simulator's input buffer: {err}");
        }
        self.ever_opened = true;
        self.report(SimProgress::Opened);
        info!("simulator port open");
        self.pacer = Pacer::new(&cfg.profile);
        let mut ok = true;
        for msg in self.board.power_up() {
            ok &= self.pacer.send(&mut s, &msg).await.is_ok();
        }
        let mut flow = Flow::Go;
        if ok {
            self.stream = Some(s);
        } else {
            // The greeting could not be written: the port is not usable yet.
            flow = pause(cancel, REOPEN_PAUSE).await;
        }
        // Whatever the hands were doing, they wait until the host has read the board: a player
        // whose board went dark waits for it to come back.
        let then = if self.made_away {
            away_pause(cfg)
        } else if self.confirms {
            // The host may still owe the last move its settle time and confirming dump, which
            // the reconnection interrupted.
            cfg.move_pause
                .max(cfg.profile.timing.settle() * 2 + RECONNECT_MARGIN)
        } else {
            cfg.move_pause
        };
        let reads = if self.made_away && self.confirms {
            2
        } else {
            1
        };
        self.hands = match self.hands {
            Hands::Done => Hands::Done,
            _ => Hands::AwaitRead {
                reads: self.board.reads() + reads - 1,
                until: None,
                then,
            },
        };
        self.made_away = false;
        self.announced_read = false;
        Ok(flow)
    }

    /// When the hands act next (`Some(None)`: not until something arrives); `None` when they
    /// have just changed what they do (the host read the board) and the loop looks again.
    fn wake(&mut self) -> Option<Option<tokio::time::Instant>> {
        Some(match self.hands {
            Hands::AwaitRead { reads, until, then } => {
                if self.board.reads() > reads {
                    if !self.announced_read {
                        self.announced_read = true;
                        self.report(SimProgress::Read);
                    }
                    self.hands = next_after_rest(&self.steps, tokio::time::Instant::now() + then);
                    return None;
                }
                until
            }
            Hands::Idle(at) | Hands::Moving(at) => Some(at),
            Hands::Reporting => {
                if self.board.sample_due().is_none() {
                    // Everything the hands did has been found: the move is reported.
                    self.moved();
                    return None;
                }
                None
            }
            Hands::Done => self.linger_until,
        })
    }

    /// The board's time now.
    fn millis(&self) -> Millis {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// When the sweep finds the next change, if one waits.
    fn sample_wake(&self) -> Option<tokio::time::Instant> {
        let due = self.board.sample_due()?;
        Some(self.epoch + Duration::from_millis(due))
    }

    /// Write what the sweep has found by now. Returns why the port is lost, if it is.
    async fn samples(&mut self) -> Option<String> {
        let now = self.millis();
        let found = self.board.sample(now);
        let stream = self.stream.as_mut()?;
        for msg in found {
            match self.pacer.send(stream, &msg).await {
                Ok(at) => self.last_written = Some(at),
                Err(err) => return Some(format!("write failed: {err}")),
            }
        }
        None
    }

    /// The board answers what the host sent. Returns why the port is lost, if it is.
    async fn answer(&mut self, bytes: &[u8]) -> Option<String> {
        let stream = self.stream.as_mut()?;
        for msg in self.board.host_bytes(bytes) {
            if let Err(err) = self.pacer.send(stream, &msg).await {
                return Some(format!("write failed: {err}"));
            }
        }
        None
    }

    /// The hands' time has come: go on after waiting for a read, pull the cable, start the next
    /// move, or make the next step of one.
    async fn hands_act(&mut self) -> Acted {
        let now = tokio::time::Instant::now();
        match self.hands {
            Hands::AwaitRead { .. } => {
                debug!("the host did not read the board; going on");
                self.hands = next_after_rest(&self.steps, now + self.cfg.move_pause);
                Acted::Fine
            }
            Hands::Done => Acted::Done,
            Hands::Reporting => Acted::Fine,
            Hands::Idle(_) if self.cfg.disconnect_after == Some(self.ply) && !self.cable_pulled => {
                // After the rest that follows move N (so the host has seen it), not right after
                // its last event: a host that had not confirmed it yet would then find two moves
                // at once on reconnecting.
                self.cable_pulled = true;
                Acted::Pulled(self.pull_cable())
            }
            Hands::Idle(_) => {
                self.start_move(now);
                Acted::Fine
            }
            Hands::Moving(_) => self.step().await,
        }
    }

    /// The next move's steps, or the end of the game.
    fn start_move(&mut self, now: tokio::time::Instant) {
        let Some(&m) = self.game.moves.get(self.ply) else {
            self.report(SimProgress::Finished);
            self.linger_until = self.cfg.linger.map(|d| now + d);
            self.hands = Hands::Done;
            return;
        };
        self.steps = script(&self.pos, m, &self.cfg.style).into();
        self.hands = match self.steps.front() {
            Some(step) => Hands::Moving(now + Duration::from_millis(step.delay_ms)),
            None => {
                // No hands can play it (cannot happen for a legal move of standard chess); skip
                // it rather than loop on it.
                warn!(%m, "the simulator cannot play the move {m}; skipped");
                self.pos.play_unchecked(m);
                self.ply += 1;
                Hands::Idle(now)
            }
        };
    }

    /// One step of a move written to the port (with line noise first if configured); after the
    /// last, the move is reported and the hands rest.
    async fn step(&mut self) -> Acted {
        let mut lost = None;
        // The sweep's time is now: a change is due from here.
        self.board.sample(self.millis());
        if let Some(step) = self.steps.pop_front()
            && let Some(bytes) = self.board.act(&step.event)
            && let Some(stream) = self.stream.as_mut()
        {
            if self.cfg.garbage && self.garbage.now() {
                let noise = self.garbage.bytes(self.cfg.profile.protocol);
                if let Err(err) = self.pacer.send(stream, &noise).await {
                    lost = Some(format!("write failed: {err}"));
                }
            }
            if lost.is_none() {
                match self.pacer.send(stream, &bytes).await {
                    Ok(at) => self.last_written = Some(at),
                    Err(err) => lost = Some(format!("write failed: {err}")),
                }
            }
        }
        match self.steps.front() {
            Some(step) => {
                self.hands = Hands::Moving(
                    tokio::time::Instant::now() + Duration::from_millis(step.delay_ms),
                );
            }
            // A sweeping board reports the move once it has found all of it.
            None if self.board.sample_due().is_some() => self.hands = Hands::Reporting,
            None => self.moved(),
        }
        lost.map_or(Acted::Fine, Acted::Lost)
    }

    /// The move is on the board: reported, and the hands rest (waiting for the host's read on a
    /// board that confirms moves).
    fn moved(&mut self) {
        let cfg = &self.cfg;
        let m = self.game.moves[self.ply];
        let promoted_blind = m.is_promotion() && self.board.sensing() == Sensing::Occupancy;
        let written = self.last_written.take();
        self.report(SimProgress::Moved {
            ply: self.ply + 1,
            san: san(&self.pos, m),
            written,
        });
        self.pos.play_unchecked(m);
        self.ply += 1;
        let pause = if promoted_blind {
            cfg.move_pause.max(cfg.announce_pause)
        } else {
            cfg.move_pause
        };
        let now = tokio::time::Instant::now();
        self.hands = if self.confirms {
            Hands::AwaitRead {
                reads: self.board.reads(),
                until: Some(now + self.read_wait),
                then: pause,
            }
        } else {
            Hands::Idle(now + pause)
        };
    }

    /// The cable is pulled after a move: optionally the next move is made while the board is
    /// away. Returns why the port closed.
    fn pull_cable(&mut self) -> String {
        let cfg = &self.cfg;
        if cfg.move_while_away
            && let Some(&m) = self.game.moves.get(self.ply)
        {
            for step in script(&self.pos, m, &cfg.style) {
                self.board.act(&step.event);
            }
            self.report(SimProgress::Moved {
                ply: self.ply + 1,
                san: san(&self.pos, m),
                written: None,
            });
            self.pos.play_unchecked(m);
            self.ply += 1;
            self.made_away = true;
        }
        format!(
            "cable pulled after move {} for {} ms",
            cfg.disconnect_after.unwrap_or_default(),
            cfg.disconnect_for.as_millis()
        )
    }

    /// The port is gone; a pulled cable stays out for the configured time.
    async fn close(&mut self, reason: String, pulled: bool, cancel: &CancellationToken) -> Flow {
        warn!(reason, "a simulated board's port closed: {reason}");
        self.report(SimProgress::Closed { reason });
        self.stream = None;
        if pulled {
            return pause(cancel, self.cfg.disconnect_for).await;
        }
        Flow::Go
    }
}

/// Sleep for `d` unless cancelled first.
async fn pause(cancel: &CancellationToken, d: Duration) -> Flow {
    tokio::select! {
        _ = cancel.cancelled() => Flow::Stop,
        _ = tokio::time::sleep(d) => Flow::Go,
    }
}

/// The pause before the next move after one made while the board was away: on an occupancy board
/// the host completes a move found only by a snapshot after the board has rested for its
/// differs time, so the player must not move before that.
fn away_pause(cfg: &SimConfig) -> Duration {
    match cfg.profile.sensing {
        Sensing::Occupancy => {
            let rest = cfg.profile.timing.differs_after()
                + cfg.profile.timing.settle()
                + Duration::from_millis(500);
            // The move may have been a promotion, whose piece is then asked for.
            cfg.move_pause.max(rest).max(cfg.announce_pause)
        }
        Sensing::Identity => cfg.move_pause,
    }
}

/// After resting: the steps left of an interrupted move, or the next move.
fn next_after_rest(steps: &VecDeque<Step>, at: tokio::time::Instant) -> Hands {
    if steps.is_empty() {
        Hands::Idle(at)
    } else {
        Hands::Moving(at)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Move;

    use super::*;
    use tactus_core::board::{profile::ProfileSet, protocol::line::LINE_FIRMWARE};

    fn profile(name: &str) -> Profile {
        ProfileSet::builtin().get(name).unwrap().clone()
    }

    #[tokio::test]
    async fn serve_plays_after_the_first_reading_and_stops_on_cancel() {
        use tokio::io::AsyncBufReadExt;

        let (master, mut slave) = SerialStream::pair().expect("a pty pair");
        let mut cfg = SimConfig::new(profile("pegged-line"));
        cfg.style.step_ms = 5;
        cfg.move_pause = Duration::from_millis(5);
        let start = Chess::default();
        let moves: Vec<Move> = ["e4", "e5"]
            .iter()
            .scan(start.clone(), |pos, s| {
                let m = s
                    .parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(pos)
                    .unwrap();
                pos.play_unchecked(m);
                Some(m)
            })
            .collect();
        let cancel = CancellationToken::new();
        let (tx, mut progress) = mpsc::unbounded_channel();
        let sim = tokio::spawn(serve(
            SimPort::Stream(Some(master)),
            cfg,
            SimGame { start, moves },
            cancel.clone(),
            Some(tx),
        ));
        assert_eq!(progress.recv().await, Some(SimProgress::Opened));
        // Nothing is played before the host has read the board.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(progress.try_recv().is_err());
        slave.write_all(b"?\n").await.unwrap();
        let mut lines = Vec::new();
        let mut reader = tokio::io::BufReader::new(&mut slave);
        while lines.len() < 6 {
            let mut line = String::new();
            let read = tokio::time::timeout(Duration::from_secs(5), reader.read_line(&mut line));
            read.await.expect("the board talks").unwrap();
            lines.push(line.trim_end().to_owned());
        }
        assert_eq!(
            lines,
            [
                &format!("H {LINE_FIRMWARE}"),
                "S FFFF00000000FFFF",
                "L e2",
                "P e4",
                "L e7",
                "P e5"
            ]
        );
        cancel.cancel();
        let result = tokio::time::timeout(Duration::from_secs(2), sim).await;
        assert!(result.expect("stops on cancel").unwrap().is_ok());
    }

    #[tokio::test]
    async fn a_port_that_never_opens_is_an_error() {
        let cfg = SimConfig::new(profile("pegged-line"));
        let game = SimGame {
            start: Chess::default(),
            moves: Vec::new(),
        };
        let path = PathBuf::from("/nonexistent/tactus-sim-port");
        let err = serve(
            SimPort::Path(path),
            cfg,
            game,
            CancellationToken::new(),
            None,
        )
        .await
        .unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/tactus-sim-port"),
            "{err}"
        );
    }
}
