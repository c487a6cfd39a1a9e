//! The serial transport: one tokio task per sensor board that opens its port, greets the board,
//! keeps the connection alive, decodes what arrives and hands typed, timed [`LinkEvent`]s to its
//! consumer (the hub, or `tactus board-test`).
//!
//! It owns the port and reconnection with backoff; the protocol rules are the pure
//! [`Session`]'s (`board::session`), the time stamps the shell's [`MonotonicClock`]'s.
//!
//! It must not end the process or the game: a lost board is an event and a retry, never a panic.
//! A read error, end of file (a pseudo-terminal whose other side closed, a USB adapter unplugged)
//! or a failed write is a disconnect, as is the session's silence rule. The port is then reopened
//! by the same path with a backoff of 100 ms doubling to 2 s, and every (re)connection starts with
//! a full snapshot, which the recogniser compares with what it believed (what changed while the
//! board was away).

use std::{path::PathBuf, time::Duration};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    sync::mpsc,
    task::JoinHandle,
};
use tokio_serial::SerialStream;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

pub use super::clock::MonotonicClock;
pub use crate::port::{describe_path, open_port};
pub use tactus_core::board::session::{Action, LinkCommand, LinkEvent, Session, Timed};
use tactus_core::board::{Orientation, profile::Profile};

/// First pause before reopening a lost port; doubles after every failed attempt.
pub const BACKOFF_MIN: Duration = Duration::from_millis(100);
/// The longest pause between attempts: a board plugged back in is found within this.
pub const BACKOFF_MAX: Duration = Duration::from_millis(2000);
/// Events waiting for a slow consumer; beyond this the link stops reading (back-pressure) rather
/// than growing without bound.
const EVENT_QUEUE: usize = 256;
/// Requests waiting for the link.
const COMMAND_QUEUE: usize = 16;
/// Bytes per read: more than any single message of either protocol.
const READ_CHUNK: usize = 512;

/// Where and what a link connects to.
#[derive(Debug, Clone)]
pub struct LinkSettings {
    /// The board's name in logs (e.g. "tactile", "sighted").
    pub name: String,
    pub path: PathBuf,
    pub profile: Profile,
    pub backoff_min: Duration,
    pub backoff_max: Duration,
    /// The board is expected to show a game under way (resumed, or set up from a position), not
    /// the start position: an orientation that cannot be detected is explained accordingly.
    pub game_under_way: bool,
}

impl LinkSettings {
    pub fn new(
        name: impl Into<String>,
        path: impl Into<PathBuf>,
        profile: Profile,
    ) -> LinkSettings {
        LinkSettings {
            name: name.into(),
            path: path.into(),
            profile,
            backoff_min: BACKOFF_MIN,
            backoff_max: BACKOFF_MAX,
            game_under_way: false,
        }
    }
}

/// A running link: its events, its command channel and its task.
#[derive(Debug)]
pub struct Link {
    pub events: mpsc::Receiver<Timed<LinkEvent>>,
    pub commands: mpsc::Sender<LinkCommand>,
    pub task: JoinHandle<()>,
}

/// Start a link task. It runs until `cancel` fires or the event receiver is dropped.
pub fn spawn(settings: LinkSettings, clock: MonotonicClock, cancel: CancellationToken) -> Link {
    spawn_with(settings, clock, cancel, None)
}

/// Like [`spawn`], with the port already opened (by [`open_port`]) for the first connection:
/// a caller that wants to report an unopenable port at once need not open it twice (closing a
/// USB serial port drops DTR, which resets many microcontroller boards).
pub fn spawn_with(
    settings: LinkSettings,
    clock: MonotonicClock,
    cancel: CancellationToken,
    first: Option<SerialStream>,
) -> Link {
    let (event_tx, events) = mpsc::channel(EVENT_QUEUE);
    let (commands, command_rx) = mpsc::channel(COMMAND_QUEUE);
    let span = info_span!("board", name = %settings.name, path = %settings.path.display());
    let task = tokio::spawn(
        LinkTask {
            settings,
            clock,
            cancel,
            events: event_tx,
            commands: command_rx,
            orientation: None,
            last_clock: None,
        }
        .run(first)
        .instrument(span),
    );
    Link {
        events,
        commands,
        task,
    }
}

/// Why a connection ended.
enum Ended {
    /// Shut down (cancelled, or nobody listens any more).
    Stop,
    /// The board is gone; `connected` says whether the handshake had finished.
    Lost { reason: String, connected: bool },
}

struct LinkTask {
    settings: LinkSettings,
    clock: MonotonicClock,
    cancel: CancellationToken,
    events: mpsc::Sender<Timed<LinkEvent>>,
    commands: mpsc::Receiver<LinkCommand>,
    /// Detected on the first connection and kept for the link's life.
    orientation: Option<Orientation>,
    /// The official clock last handed to the attached DGT clock: a new connection (a board
    /// unplugged and back) sets the clock to it again.
    last_clock: Option<LinkCommand>,
}

impl LinkTask {
    async fn run(mut self, mut first: Option<SerialStream>) {
        let mut backoff = self.settings.backoff_min;
        let mut last_unavailable: Option<String> = None;
        loop {
            if self.cancel.is_cancelled() {
                break;
            }
            let opened = match first.take() {
                Some(port) => Ok(port),
                None => open_port(&self.settings.path, &self.settings.profile),
            };
            let failure = match opened {
                Err(err) => format!("{err:#}"),
                Ok(port) => {
                    debug!("port opened");
                    match self.connection(port).await {
                        Ended::Stop => break,
                        Ended::Lost {
                            reason,
                            connected: true,
                        } => {
                            // A sentence: the terminal shows the message, not the span's
                            // fields (which board, which port).
                            warn!(
                                reason,
                                "the {} board on {} is disconnected ({reason}); it is opened again \
                                 by itself",
                                self.settings.name,
                                self.settings.path.display()
                            );
                            if !self.emit(LinkEvent::Disconnected { reason }).await {
                                break;
                            }
                            backoff = self.settings.backoff_min;
                            last_unavailable = None;
                            // Reopen at once: a board that only hiccuped is back without delay.
                            continue;
                        }
                        Ended::Lost {
                            reason,
                            connected: false,
                        } => reason,
                    }
                }
            };
            if last_unavailable.as_ref() != Some(&failure) {
                info!(reason = failure, "board unavailable; retrying");
                if !self
                    .emit(LinkEvent::Unavailable {
                        reason: failure.clone(),
                    })
                    .await
                {
                    break;
                }
                last_unavailable = Some(failure);
            }
            if !self.pause(backoff).await {
                break;
            }
            backoff = (backoff * 2).min(self.settings.backoff_max);
        }
        debug!("link stopped");
    }

    /// Wait before the next attempt; requests arriving meanwhile are dropped (the reconnection
    /// takes a snapshot anyway). False when shutting down.
    async fn pause(&mut self, backoff: Duration) -> bool {
        let until = tokio::time::Instant::now() + backoff;
        loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return false,
                _ = tokio::time::sleep_until(until) => return true,
                cmd = self.commands.recv() => {
                    match cmd {
                        None => return false,
                        // The clock's newest setting is kept for the next connection.
                        Some(clock @ LinkCommand::Clock(_)) => self.last_clock = Some(clock),
                        Some(cmd) => debug!(?cmd, "request dropped: the board is away"),
                    }
                }
            }
        }
    }

    /// Hand an event to the consumer. False when shutting down: cancelled while a slow consumer
    /// keeps the queue full, or nobody listens any more.
    async fn emit(&self, event: LinkEvent) -> bool {
        let timed = Timed {
            at: self.clock.now(),
            event,
        };
        tokio::select! {
            _ = self.cancel.cancelled() => false,
            sent = self.events.send(timed) => sent.is_ok(),
        }
    }

    /// One connection, from the greeting until it is lost or the link stops.
    async fn connection(&mut self, mut port: SerialStream) -> Ended {
        // Bytes queued before we opened belong to no request of ours (and events in them are
        // superseded by the snapshot the greeting asks for).
        if let Err(err) = tokio_serial::SerialPort::clear(&port, tokio_serial::ClearBuffer::Input) {
            debug!("cannot clear the port's input buffer: {err}");
        }
        let mut session = Session::new(&self.settings.profile, self.orientation, self.clock.now())
            .with_game_under_way(self.settings.game_under_way);
        let mut buf = [0u8; READ_CHUNK];
        let mut actions = session.start(self.clock.now());
        if let Some(clock) = self.last_clock.clone() {
            actions.extend(session.command(clock, self.clock.now()));
        }
        // Keep-alive silence bounds how long a write may hang on a port nobody reads.
        let write_limit = self.settings.profile.timing.keepalive();
        loop {
            for action in actions.drain(..) {
                match action {
                    Action::Write(bytes) => {
                        match tokio::time::timeout(write_limit, port.write_all(&bytes)).await {
                            Ok(Ok(())) => {}
                            Ok(Err(err)) => {
                                return Ended::Lost {
                                    reason: format!("write failed: {err}"),
                                    connected: session.is_connected(),
                                };
                            }
                            Err(_) => {
                                return Ended::Lost {
                                    reason: format!(
                                        "a write did not complete within {} ms",
                                        write_limit.as_millis()
                                    ),
                                    connected: session.is_connected(),
                                };
                            }
                        }
                    }
                    Action::Emit(event) => {
                        if let LinkEvent::Connected { info } = &event {
                            info!(info, "board connected");
                            self.orientation = session.orientation();
                        }
                        if !self.emit(event).await {
                            return Ended::Stop;
                        }
                    }
                    Action::Lost(reason) => {
                        return Ended::Lost {
                            reason,
                            connected: session.is_connected(),
                        };
                    }
                }
            }
            let deadline = self.clock.instant(session.next_deadline());
            tokio::select! {
                _ = self.cancel.cancelled() => return Ended::Stop,
                read = port.read(&mut buf) => {
                    match read {
                        // End of file: the other side of a pseudo-terminal closed, or the device
                        // went away.
                        Ok(0) => return Ended::Lost { reason: "the port closed (hang-up)".into(), connected: session.is_connected() },
                        Ok(n) => actions = session.received(&buf[..n], self.clock.now()),
                        Err(err) => return Ended::Lost { reason: format!("read failed: {err}"), connected: session.is_connected() },
                    }
                }
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => {
                        if let LinkCommand::Clock(_) = cmd {
                            self.last_clock = Some(cmd.clone());
                        }
                        actions = session.command(cmd, self.clock.now());
                    }
                    None => return Ended::Stop,
                },
                _ = tokio::time::sleep_until(deadline) => actions = session.tick(self.clock.now()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Square;

    use super::*;
    use tactus_core::board::{SensorEvent, profile::ProfileSet};

    fn profile(name: &str) -> Profile {
        ProfileSet::builtin().get(name).unwrap().clone()
    }

    async fn next(link: &mut Link) -> Timed<LinkEvent> {
        tokio::time::timeout(Duration::from_secs(5), link.events.recv())
            .await
            .expect("an event in time")
            .expect("open")
    }

    /// The task around the session, through a real pseudo-terminal: greeting, events, hang-up,
    /// reconnection by path.
    #[tokio::test]
    async fn link_over_a_pty_connects_reports_and_notices_a_hangup() {
        let (mut master, slave) = SerialStream::pair().expect("a pty pair");
        let path =
            PathBuf::from(tokio_serial::SerialPort::name(&slave).expect("the slave has a name"));
        let mut p = profile("pegged-line");
        p.timing.keepalive_ms = 600;
        let cancel = CancellationToken::new();
        let mut settings = LinkSettings::new("test", &path, p);
        settings.backoff_min = Duration::from_millis(20);
        let mut link = spawn(settings, MonotonicClock::new(), cancel.clone());
        // The board answers the greeting.
        let mut buf = [0u8; 64];
        let mut got = Vec::new();
        while !got.ends_with(b"?\n") {
            let n = master.read(&mut buf).await.unwrap();
            got.extend(&buf[..n]);
        }
        assert_eq!(got, b"V\n?\n");
        master
            .write_all(b"H sim\r\nS FFFF00000000FFFF\r\nL e2\r\n")
            .await
            .unwrap();
        assert!(matches!(
            next(&mut link).await.event,
            LinkEvent::Connected { .. }
        ));
        assert!(matches!(
            next(&mut link).await.event,
            LinkEvent::Sensor(SensorEvent::Snapshot(_))
        ));
        assert_eq!(
            next(&mut link).await.event,
            LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 })
        );
        // The board side goes away: the link reports it and retries.
        drop(master);
        drop(slave);
        let ev = next(&mut link).await.event;
        assert!(matches!(&ev, LinkEvent::Disconnected { .. }), "{ev:?}");
        let ev = next(&mut link).await.event;
        assert!(
            matches!(&ev, LinkEvent::Unavailable { reason } if reason.contains("cannot open")),
            "{ev:?}"
        );
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(5), link.task)
            .await
            .expect("stops on cancel")
            .unwrap();
    }

    /// A resumed game: the link tells its session that the board shows a game under way, so the
    /// connection info does not ask for the start position (issue 15 point 11).
    #[tokio::test]
    async fn a_link_for_a_game_under_way_does_not_ask_for_the_start_position() {
        use tactus_core::board::{Orientation, dgt};
        let (mut master, slave) = SerialStream::pair().expect("a pty pair");
        let path =
            PathBuf::from(tokio_serial::SerialPort::name(&slave).expect("the slave has a name"));
        let cancel = CancellationToken::new();
        let settings = LinkSettings {
            game_under_way: true,
            ..LinkSettings::new("test", &path, profile("dgt"))
        };
        let mut link = spawn(settings, MonotonicClock::new(), cancel.clone());
        // The greeting ends with SEND_BRD; the board answers with the game's position.
        let mut buf = [0u8; 64];
        let mut got = Vec::new();
        while !got.ends_with(&[0x42]) {
            let n = master.read(&mut buf).await.unwrap();
            got.extend(&buf[..n]);
        }
        let board: shakmaty::Board = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
            .parse()
            .unwrap();
        let dump = dgt::Message::BoardDump(dgt::board_to_dump(&board, Orientation::Normal));
        master.write_all(&dgt::encode_message(&dump)).await.unwrap();
        let ev = next(&mut link).await.event;
        let LinkEvent::Connected { info } = &ev else {
            panic!("{ev:?}")
        };
        assert!(info.contains("the game is under way"), "{info}");
        assert!(!info.contains("set up the start position"), "{info}");
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(5), link.task)
            .await
            .expect("stops on cancel")
            .unwrap();
        drop(slave);
    }

    /// Issue 25, point 7: every malformed message was a WARN line, so line noise at a board's
    /// rate made half a million lines per MB (journald's rate limit then hides the warnings
    /// that matter). Now one line a second at most, saying how many were not logged; and the
    /// count of a flood that stops is logged once.
    #[test]
    fn line_noise_is_logged_once_a_second_with_a_count() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Lines(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Lines {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let log = Lines::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let rejected = tracing::subscriber::with_default(subscriber, || {
            let mut s = Session::new(
                &tactus_core::board::profile::ProfileSet::builtin()
                    .get("dgt")
                    .unwrap()
                    .clone(),
                None,
                0,
            );
            s.start(0);
            let mut rng = tactus_core::sim::Rng::new(0x9e37_79b9_7f4a_7c15);
            let mut rejected = 0;
            let mut chunk = [0u8; 64];
            // 64 KiB of noise at 960 bytes a second: about 68 s.
            for i in 0..1024u64 {
                rng.fill(&mut chunk);
                let now = i * 64 * 1000 / 960;
                rejected += s
                    .received(&chunk, now)
                    .iter()
                    .filter(|a| {
                        matches!(
                            a,
                            tactus_core::board::session::Action::Emit(
                                tactus_core::board::session::LinkEvent::Rejected { .. }
                            )
                        )
                    })
                    .count();
                if s.next_deadline() <= now {
                    s.tick(now);
                }
            }
            s.tick(100_000);
            rejected
        });
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        let lines = text.lines().count();
        assert!(rejected > 1_000, "the noise was rejected: {rejected}");
        assert!(lines <= 70, "{lines} lines for {rejected} bad messages");
        assert!(
            text.contains("more like it in the last second"),
            "the count is said: {text}"
        );
        assert!(
            text.contains("not logged one by one"),
            "the flood's end is summed up: {text}"
        );
    }
}
