//! The serial transport: one tokio task per sensor board that opens its port, greets the board,
//! keeps the connection alive, decodes what arrives and hands typed, timed [`LinkEvent`]s to its
//! consumer (the hub, or `tactus board-test`).
//!
//! It owns the port, the monotonic clock that stamps events ([`LinkClock`]), reconnection with
//! backoff, and the protocol session ([`Session`]: handshake, keep-alive, orientation, which
//! decoded messages become events). The session is pure (bytes and times in, [`Action`]s out) so
//! that its rules are unit-tested without a port; the task around it only moves bytes, sleeps and
//! selects.
//!
//! It must not interpret what happens on the board: it never decides that a move was made, never
//! debounces or reorders sensor events (move recognition does that), and never touches game state.
//! It must not end the process or the game: a lost board is an event and a retry, never a panic.
//!
//! Handshakes follow `reference/dgt-protocol.md` and `boards/README.md`:
//! - DGT: SEND_VERSION, RETURN_SERIALNR, then update mode (SEND_UPDATE_BRD, or SEND_UPDATE_NICE
//!   when a clock is attached), then SEND_BRD. Updates are switched on *before* the dump is asked
//!   for, so that no change falls between the two; updates that arrive before the first dump are
//!   already contained in it and are dropped. Keep-alive: RETURN_SERIALNR.
//! - Line (pegged board): `V` (greeting), then `?` (snapshot). Keep-alive: `V`.
//!
//! A keep-alive request goes out every `keepalive_ms / 2`; silence for `keepalive_ms` after a
//! request, a read error, end of file (a pseudo-terminal whose other side closed, a USB adapter
//! unplugged) or a failed write is a disconnect. The port is then reopened by the same path with a
//! backoff of 100 ms doubling to 2 s, and every (re)connection starts with a full snapshot, which
//! the recogniser compares with what it believed (what changed while the board was away).

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anyhow::{Result, anyhow};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    sync::mpsc,
    task::JoinHandle,
};
use tokio_serial::{SerialPortBuilderExt, SerialStream};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::{
    board::{
        Orientation, SensorEvent,
        dgt::{self, ClockMessage, Command, Message},
        line::{self, HostCommand, LineMessage},
        profile::{OrientationMode, Parity, Profile, Protocol},
    },
    rules::Millis,
};

/// First pause before reopening a lost port; doubles after every failed attempt.
pub const BACKOFF_MIN: Duration = Duration::from_millis(100);
/// The longest pause between attempts: a board plugged back in is found within this.
pub const BACKOFF_MAX: Duration = Duration::from_millis(2000);
/// A handshake that has had answers but still no snapshot after this many keep-alive periods is
/// given up (the device answers, but not like a board).
const HANDSHAKE_KEEPALIVES: u64 = 3;
/// Events waiting for a slow consumer; beyond this the link stops reading (back-pressure) rather
/// than growing without bound.
const EVENT_QUEUE: usize = 256;
/// Requests waiting for the link.
const COMMAND_QUEUE: usize = 16;
/// Bytes per read: more than any single message of either protocol.
const READ_CHUNK: usize = 512;

/// The shell's monotonic clock: milliseconds since the link (or the program) started. The pure
/// core never reads a clock; it gets these numbers with every event and deadline.
#[derive(Debug, Clone, Copy)]
pub struct LinkClock {
    start: Instant,
}

impl Default for LinkClock {
    fn default() -> Self {
        LinkClock::new()
    }
}

impl LinkClock {
    pub fn new() -> LinkClock {
        LinkClock {
            start: Instant::now(),
        }
    }

    /// Milliseconds since the clock started.
    pub fn now(&self) -> Millis {
        self.millis_at(Instant::now())
    }

    /// The clock's reading at `instant` (0 for instants before its start).
    pub fn millis_at(&self, instant: Instant) -> Millis {
        // u64 milliseconds cover 584 million years; the cast cannot truncate in practice.
        instant.saturating_duration_since(self.start).as_millis() as Millis
    }

    /// The instant a reading stands for, for timers.
    pub fn instant(&self, at: Millis) -> Instant {
        self.start + Duration::from_millis(at)
    }
}

/// Something that happened on a link, with the clock reading at which it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timed<E> {
    pub at: Millis,
    pub event: E,
}

/// What a link reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkEvent {
    /// The board answered the handshake and sent its position; a [`LinkEvent::Sensor`] with the
    /// snapshot follows at once. `info` names the board (version, serial number, greeting,
    /// orientation) for people.
    Connected { info: String },
    /// A sensor event, orientation applied.
    Sensor(SensorEvent),
    /// A DGT clock message (only when the profile says a clock is attached).
    Clock(ClockMessage),
    /// A connected board was lost; the link is retrying. Events may be missed until the next
    /// [`LinkEvent::Connected`].
    Disconnected { reason: String },
    /// An attempt to (re)connect failed; reported once per distinct reason while retrying.
    Unavailable { reason: String },
    /// Bytes that belonged to no message (line noise, a message whose start was lost).
    Garbage { bytes: u64 },
    /// A message that was framed but malformed, and was skipped.
    Rejected { reason: String },
    /// A well-formed message this protocol does not define (newer firmware, a debug print).
    Unknown { message: String },
    /// The board reports a fault of its own (line protocol `E <text>`).
    BoardFault { text: String },
}

/// Requests from the consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkCommand {
    /// Ask the board for a full reading (the recogniser's `RequestSnapshot`). Dropped while the
    /// board is away: every reconnection takes a snapshot anyway.
    RequestSnapshot,
}

/// What the session wants done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send these bytes to the board.
    Write(Vec<u8>),
    /// Report this to the consumer.
    Emit(LinkEvent),
    /// The connection is dead for this reason; close the port and retry.
    Lost(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Greeted, waiting for the first snapshot.
    Handshake,
    Connected,
}

/// One connection's protocol logic, pure: fed bytes, commands and clock readings, it says what to
/// write, what to report and when the connection is dead. See the module docs for the rules.
#[derive(Debug, Clone)]
pub struct Session {
    protocol: Protocol,
    baud: u32,
    keepalive_ms: u64,
    clock_attached: bool,
    orientation_mode: OrientationMode,
    /// Known orientation: fixed by the profile, or detected on an earlier connection.
    orientation: Option<Orientation>,
    /// How the orientation was learned, for the connection info.
    orientation_source: &'static str,
    dgt: dgt::Decoder,
    line: line::LineDecoder,
    phase: Phase,
    started: Millis,
    /// The board's own words about itself (version, serial number, greeting).
    version: Option<String>,
    serial: Option<String>,
    /// The oldest request not yet answered by any message.
    awaiting_since: Option<Millis>,
    next_keepalive: Millis,
    skipped_reported: u64,
}

impl Session {
    /// A session for a board of this profile. `orientation` carries a detection from an earlier
    /// connection of the same link (a board does not turn round while unplugged; if it did, the
    /// recogniser reports the difference).
    pub fn new(profile: &Profile, orientation: Option<Orientation>, now: Millis) -> Session {
        let fixed = profile.orientation.mode.fixed();
        let (orientation, orientation_source) = match (fixed, orientation) {
            (Some(o), _) => (Some(o), "from the profile"),
            (None, Some(o)) => (Some(o), "detected earlier"),
            (None, None) => (None, ""),
        };
        Session {
            protocol: profile.protocol,
            baud: profile.serial.baud,
            keepalive_ms: profile.timing.keepalive_ms,
            clock_attached: profile.clock.attached,
            orientation_mode: profile.orientation.mode,
            orientation,
            orientation_source,
            dgt: dgt::Decoder::new(),
            line: line::LineDecoder::new(),
            phase: Phase::Handshake,
            started: now,
            version: None,
            serial: None,
            awaiting_since: None,
            next_keepalive: now,
            skipped_reported: 0,
        }
    }

    /// The orientation in use (after detection), if known yet.
    pub fn orientation(&self) -> Option<Orientation> {
        self.orientation
    }

    /// Whether the handshake has finished.
    pub fn is_connected(&self) -> bool {
        self.phase == Phase::Connected
    }

    fn keepalive_interval(&self) -> u64 {
        (self.keepalive_ms / 2).max(1)
    }

    /// The greeting, sent right after the port opened.
    pub fn start(&mut self, now: Millis) -> Vec<Action> {
        self.started = now;
        self.request(now);
        self.next_keepalive = now + self.keepalive_interval();
        vec![Action::Write(self.handshake_bytes())]
    }

    fn handshake_bytes(&self) -> Vec<u8> {
        match self.protocol {
            // Four bytes: well inside the board's small command buffer (about 10 bytes).
            Protocol::Dgt => vec![
                Command::SendVersion.byte(),
                Command::ReturnSerialNr.byte(),
                self.update_command().byte(),
                Command::SendBoard.byte(),
            ],
            Protocol::Line => [
                HostCommand::Version.encode(),
                HostCommand::Snapshot.encode(),
            ]
            .concat(),
        }
    }

    fn update_command(&self) -> Command {
        if self.clock_attached {
            Command::SendUpdateNice
        } else {
            Command::SendUpdateBoard
        }
    }

    /// A request went out: the board owes an answer from now on (unless it already did).
    fn request(&mut self, now: Millis) {
        self.awaiting_since.get_or_insert(now);
    }

    /// A request from the consumer.
    pub fn command(&mut self, command: LinkCommand, now: Millis) -> Vec<Action> {
        match command {
            LinkCommand::RequestSnapshot => {
                self.request(now);
                vec![Action::Write(self.snapshot_request())]
            }
        }
    }

    fn snapshot_request(&self) -> Vec<u8> {
        match self.protocol {
            Protocol::Dgt => vec![Command::SendBoard.byte()],
            Protocol::Line => HostCommand::Snapshot.encode().to_vec(),
        }
    }

    /// When [`Session::tick`] must next be called.
    pub fn next_deadline(&self) -> Millis {
        let mut deadline = self.next_keepalive;
        if let Some(since) = self.awaiting_since {
            deadline = deadline.min(since + self.keepalive_ms);
        }
        if self.phase == Phase::Handshake {
            deadline = deadline.min(self.handshake_limit());
        }
        deadline
    }

    fn handshake_limit(&self) -> Millis {
        self.started + HANDSHAKE_KEEPALIVES * self.keepalive_ms
    }

    /// Time passes: keep-alive requests and silence.
    pub fn tick(&mut self, now: Millis) -> Vec<Action> {
        if let Some(since) = self.awaiting_since
            && now >= since + self.keepalive_ms
        {
            let reason = match self.phase {
                Phase::Handshake => format!(
                    "no answer within {} ms of opening the port (is the board switched on, and does \
                     it speak the {} protocol at {} baud?)",
                    self.keepalive_ms,
                    self.protocol_name(),
                    self.baud
                ),
                Phase::Connected => {
                    format!(
                        "the board stopped answering ({} ms without a message after a request)",
                        self.keepalive_ms
                    )
                }
            };
            return vec![Action::Lost(reason)];
        }
        if self.phase == Phase::Handshake && now >= self.handshake_limit() {
            return vec![Action::Lost(format!(
                "the device answers but sent no full board reading within {} ms; is this a {} board?",
                HANDSHAKE_KEEPALIVES * self.keepalive_ms,
                self.protocol_name()
            ))];
        }
        let mut out = Vec::new();
        if now >= self.next_keepalive {
            self.next_keepalive = now + self.keepalive_interval();
            self.request(now);
            let bytes = match (self.phase, self.protocol) {
                // Still waiting for the first reading: the greeting may have been lost (the
                // board was not there yet), send it again.
                (Phase::Handshake, _) => self.handshake_bytes(),
                (Phase::Connected, Protocol::Dgt) => vec![Command::ReturnSerialNr.byte()],
                (Phase::Connected, Protocol::Line) => HostCommand::Version.encode().to_vec(),
            };
            out.push(Action::Write(bytes));
        }
        out
    }

    fn protocol_name(&self) -> &'static str {
        match self.protocol {
            Protocol::Dgt => "DGT",
            Protocol::Line => "pegged-board line",
        }
    }

    /// Bytes read from the port.
    pub fn received(&mut self, bytes: &[u8]) -> Vec<Action> {
        let mut out = Vec::new();
        match self.protocol {
            Protocol::Dgt => self.received_dgt(bytes, &mut out),
            Protocol::Line => self.received_line(bytes, &mut out),
        }
        out
    }

    fn received_dgt(&mut self, bytes: &[u8], out: &mut Vec<Action>) {
        self.dgt.push(bytes);
        while let Some(result) = self.dgt.next() {
            let msg = match result {
                Ok(msg) => msg,
                Err(err) => {
                    warn!("{err}");
                    out.push(Action::Emit(LinkEvent::Rejected {
                        reason: err.to_string(),
                    }));
                    continue;
                }
            };
            // Any well-formed message shows the board is alive.
            self.awaiting_since = None;
            match &msg {
                Message::BoardDump(dump) => {
                    let orientation = self.orientation_for(dump);
                    if self.phase == Phase::Handshake {
                        self.phase = Phase::Connected;
                        out.push(Action::Emit(LinkEvent::Connected {
                            info: self.dgt_info(orientation),
                        }));
                    }
                    out.extend(
                        dgt::to_sensor_events(&msg, orientation)
                            .into_iter()
                            .map(|e| Action::Emit(LinkEvent::Sensor(e))),
                    );
                }
                Message::FieldUpdate { field, .. } => match (self.phase, self.orientation) {
                    (Phase::Connected, Some(orientation)) => {
                        out.extend(
                            dgt::to_sensor_events(&msg, orientation)
                                .into_iter()
                                .map(|e| Action::Emit(LinkEvent::Sensor(e))),
                        );
                    }
                    // The first dump, asked for after updates were switched on, contains this.
                    _ => debug!(
                        field,
                        "field update before the first board dump: superseded by the dump"
                    ),
                },
                Message::Clock(clock) => {
                    if self.clock_attached {
                        out.push(Action::Emit(LinkEvent::Clock(*clock)));
                    }
                }
                Message::Version { major, minor } => {
                    self.version
                        .get_or_insert_with(|| format!("{major}.{minor:02}"));
                }
                Message::SerialNr(s) | Message::LongSerialNr(s) => {
                    self.serial.get_or_insert_with(|| s.clone());
                }
                Message::Unknown { id, len } => {
                    debug!(id, len, "unknown DGT message skipped");
                    out.push(Action::Emit(LinkEvent::Unknown {
                        message: format!("DGT message 0x{id:02x} of {len} bytes"),
                    }));
                }
            }
        }
        let skipped = self.dgt.skipped_bytes();
        if skipped > self.skipped_reported {
            let bytes = skipped - self.skipped_reported;
            self.skipped_reported = skipped;
            debug!(bytes, "bytes outside any DGT message skipped");
            out.push(Action::Emit(LinkEvent::Garbage { bytes }));
        }
    }

    /// The orientation to read `dump` with; detects it from the first dump when the profile says
    /// "detect".
    fn orientation_for(&mut self, dump: &[Option<shakmaty::Piece>; 64]) -> Orientation {
        if let Some(o) = self.orientation {
            return o;
        }
        debug_assert_eq!(self.orientation_mode, OrientationMode::Detect);
        let (o, source) = match dgt::detect_orientation(dump) {
            Some(o) => (o, "detected from the start position"),
            None => {
                warn!(
                    "the first board dump is not the start position; assuming normal orientation"
                );
                (
                    Orientation::Normal,
                    "assumed: the board did not show the start position, so it could not be \
                     detected; set up the start position and reconnect, or set orientation.mode \
                     in the profile",
                )
            }
        };
        self.orientation = Some(o);
        self.orientation_source = source;
        o
    }

    fn dgt_info(&self, orientation: Orientation) -> String {
        let mut info = String::from("DGT board");
        if let Some(v) = &self.version {
            info.push_str(&format!(", firmware {v}"));
        }
        if let Some(s) = &self.serial {
            info.push_str(&format!(", serial number {s}"));
        }
        info.push_str(&format!(
            ", orientation {} ({})",
            orientation_name(orientation),
            self.orientation_source
        ));
        info
    }

    fn received_line(&mut self, bytes: &[u8], out: &mut Vec<Action>) {
        self.line.push(bytes);
        let orientation = self.orientation.unwrap_or_default();
        while let Some(result) = self.line.next() {
            let msg = match result {
                Ok(msg) => msg,
                Err(err) => {
                    warn!("{err}");
                    out.push(Action::Emit(LinkEvent::Rejected {
                        reason: err.to_string(),
                    }));
                    continue;
                }
            };
            self.awaiting_since = None;
            match &msg {
                LineMessage::Snapshot(_) => {
                    if self.phase == Phase::Handshake {
                        self.phase = Phase::Connected;
                        let info = match &self.version {
                            Some(hello) => format!(
                                "pegged board \"{hello}\", orientation {}",
                                orientation_name(orientation)
                            ),
                            None => format!(
                                "pegged board (no greeting), orientation {}",
                                orientation_name(orientation)
                            ),
                        };
                        out.push(Action::Emit(LinkEvent::Connected { info }));
                    }
                    out.extend(
                        line::to_sensor_events(&msg, orientation)
                            .into_iter()
                            .map(|e| Action::Emit(LinkEvent::Sensor(e))),
                    );
                }
                LineMessage::Lift(_) | LineMessage::Place(_) | LineMessage::Button(_) => {
                    if self.phase == Phase::Connected {
                        out.extend(
                            line::to_sensor_events(&msg, orientation)
                                .into_iter()
                                .map(|e| Action::Emit(LinkEvent::Sensor(e))),
                        );
                    } else {
                        // The first snapshot, asked for in the greeting, contains this.
                        debug!(
                            ?msg,
                            "event before the first snapshot: superseded by the snapshot"
                        );
                    }
                }
                LineMessage::Hello(text) => {
                    self.version = Some(text.clone());
                }
                LineMessage::BoardError(text) => {
                    warn!(text, "the board reports a fault");
                    out.push(Action::Emit(LinkEvent::BoardFault { text: text.clone() }));
                }
                LineMessage::Unknown(text) => {
                    debug!(
                        text,
                        count = self.line.unknown_lines(),
                        "unknown line skipped"
                    );
                    out.push(Action::Emit(LinkEvent::Unknown {
                        message: text.clone(),
                    }));
                }
            }
        }
    }
}

fn orientation_name(o: Orientation) -> &'static str {
    match o {
        Orientation::Normal => "normal",
        Orientation::Reversed => "reversed",
    }
}

/// Open a board's port with the profile's serial settings. Errors name the path and, where one
/// is known, the fix.
pub fn open_port(path: &Path, profile: &Profile) -> Result<SerialStream> {
    let s = &profile.serial;
    let builder = tokio_serial::new(path.to_string_lossy(), s.baud)
        .data_bits(match s.data_bits {
            5 => tokio_serial::DataBits::Five,
            6 => tokio_serial::DataBits::Six,
            7 => tokio_serial::DataBits::Seven,
            _ => tokio_serial::DataBits::Eight,
        })
        .parity(match s.parity {
            Parity::None => tokio_serial::Parity::None,
            Parity::Even => tokio_serial::Parity::Even,
            Parity::Odd => tokio_serial::Parity::Odd,
        })
        .stop_bits(if s.stop_bits == 2 {
            tokio_serial::StopBits::Two
        } else {
            tokio_serial::StopBits::One
        })
        .flow_control(tokio_serial::FlowControl::None);
    builder.open_native_async().map_err(|err| {
        let fix = match err.kind() {
            tokio_serial::ErrorKind::Io(std::io::ErrorKind::NotFound) => {
                "no such device: is the board plugged in and switched on? Name it by its stable path \
                 under /dev/serial/by-id/ (ls -l /dev/serial/by-id/), which survives replugging"
            }
            tokio_serial::ErrorKind::Io(std::io::ErrorKind::PermissionDenied) => {
                "permission denied: add your user to the group that owns the port (usually dialout: \
                 sudo usermod -aG dialout $USER, then log in again)"
            }
            tokio_serial::ErrorKind::NoDevice => {
                "the port is busy: another program (or another tactus) has it open; close it first"
            }
            _ => "check that this is the board's serial port (e.g. /dev/ttyUSB0, /dev/ttyACM0, or a path under /dev/serial/by-id/)",
        };
        anyhow!("cannot open the board's port {}: {err}; {fix}", path.display())
    })
}

/// Where and what a link connects to.
#[derive(Debug, Clone)]
pub struct LinkSettings {
    /// The board's name in logs (e.g. "tactile", "sighted").
    pub name: String,
    pub path: PathBuf,
    pub profile: Profile,
    pub backoff_min: Duration,
    pub backoff_max: Duration,
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
pub fn spawn(settings: LinkSettings, clock: LinkClock, cancel: CancellationToken) -> Link {
    spawn_with(settings, clock, cancel, None)
}

/// Like [`spawn`], with the port already opened (by [`open_port`]) for the first connection:
/// a caller that wants to report an unopenable port at once need not open it twice (closing a
/// USB serial port drops DTR, which resets many microcontroller boards).
pub fn spawn_with(
    settings: LinkSettings,
    clock: LinkClock,
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
    clock: LinkClock,
    cancel: CancellationToken,
    events: mpsc::Sender<Timed<LinkEvent>>,
    commands: mpsc::Receiver<LinkCommand>,
    /// Detected on the first connection and kept for the link's life.
    orientation: Option<Orientation>,
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
                            warn!(reason, "board disconnected");
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
                    if cmd.is_none() {
                        return false;
                    }
                    debug!(?cmd, "request dropped: the board is away");
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
        let mut session = Session::new(&self.settings.profile, self.orientation, self.clock.now());
        let mut buf = [0u8; READ_CHUNK];
        let mut actions = session.start(self.clock.now());
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
                        Ok(n) => actions = session.received(&buf[..n]),
                        Err(err) => return Ended::Lost { reason: format!("read failed: {err}"), connected: session.is_connected() },
                    }
                }
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => actions = session.command(cmd, self.clock.now()),
                    None => return Ended::Stop,
                },
                _ = tokio::time::sleep_until(deadline.into()) => actions = session.tick(self.clock.now()),
            }
        }
    }
}

/// A path as the user should see it in messages (the by-id hint lives in [`open_port`]).
pub fn describe_path(path: &Path) -> String {
    match std::fs::canonicalize(path) {
        Ok(real) if real != path => format!("{} (-> {})", path.display(), real.display()),
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Bitboard, Board, Square};

    use super::*;
    use crate::board::{Sensed, profile::ProfileSet};

    fn profile(name: &str) -> Profile {
        ProfileSet::builtin().get(name).unwrap().clone()
    }

    fn writes(actions: &[Action]) -> Vec<Vec<u8>> {
        actions
            .iter()
            .filter_map(|a| {
                if let Action::Write(b) = a {
                    Some(b.clone())
                } else {
                    None
                }
            })
            .collect()
    }
    fn events(actions: &[Action]) -> Vec<LinkEvent> {
        actions
            .iter()
            .filter_map(|a| {
                if let Action::Emit(e) = a {
                    Some(e.clone())
                } else {
                    None
                }
            })
            .collect()
    }

    fn dgt_dump(board: &Board, o: Orientation) -> Vec<u8> {
        dgt::encode_message(&Message::BoardDump(dgt::board_to_dump(board, o)))
    }

    #[test]
    fn dgt_handshake_switches_updates_on_before_asking_for_the_dump() {
        let mut s = Session::new(&profile("dgt"), None, 0);
        let out = s.start(0);
        assert_eq!(writes(&out), vec![vec![0x4d, 0x45, 0x44, 0x42]]);
        let mut with_clock = profile("dgt");
        with_clock.clock.attached = true;
        let mut s = Session::new(&with_clock, None, 0);
        assert_eq!(writes(&s.start(0)), vec![vec![0x4d, 0x45, 0x4b, 0x42]]);
    }

    #[test]
    fn dgt_orientation_is_detected_from_the_first_dump_and_kept() {
        let mut s = Session::new(&profile("dgt"), None, 0);
        s.start(0);
        let mut bytes = dgt::encode_message(&Message::Version { major: 1, minor: 7 });
        bytes.extend(dgt::encode_message(&Message::SerialNr("54321".into())));
        // An update before the dump is superseded by it.
        bytes.extend(dgt::encode_message(&Message::FieldUpdate {
            field: 52,
            piece: None,
        }));
        bytes.extend(dgt_dump(&Board::new(), Orientation::Reversed));
        let out = events(&s.received(&bytes));
        let [
            LinkEvent::Connected { info },
            LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Pieces(board))),
        ] = out.as_slice()
        else {
            panic!("{out:?}")
        };
        assert!(
            info.contains("firmware 1.07") && info.contains("54321") && info.contains("reversed"),
            "{info}"
        );
        assert_eq!(board, &Board::new());
        // Field 11 on a reversed board is White's e2... (field 52 ^ 63).
        let out = events(&s.received(&dgt::encode_message(&Message::FieldUpdate {
            field: 11,
            piece: None,
        })));
        assert_eq!(
            out,
            vec![LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 })]
        );
        assert_eq!(s.orientation(), Some(Orientation::Reversed));
        // A later connection of the same link keeps it, whatever the board shows then.
        let mut again = Session::new(&profile("dgt"), s.orientation(), 100);
        again.start(100);
        let out = events(&again.received(&dgt_dump(&Board::empty(), Orientation::Reversed)));
        assert!(
            matches!(&out[0], LinkEvent::Connected { info } if info.contains("reversed (detected earlier)")),
            "{out:?}"
        );
    }

    #[test]
    fn dgt_orientation_falls_back_to_normal_and_says_so() {
        let mut s = Session::new(&profile("dgt"), None, 0);
        s.start(0);
        let mut board = Board::new();
        board.discard_piece_at(Square::E2);
        let out = events(&s.received(&dgt_dump(&board, Orientation::Normal)));
        let LinkEvent::Connected { info } = &out[0] else {
            panic!("{out:?}")
        };
        assert!(
            info.contains("normal (assumed") && info.contains("orientation.mode"),
            "{info}"
        );
        assert_eq!(
            out[1],
            LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Pieces(board)))
        );
    }

    #[test]
    fn keepalive_requests_and_silence() {
        let p = profile("dgt"); // keepalive 2000 ms
        let mut s = Session::new(&p, Some(Orientation::Normal), 0);
        s.start(0);
        assert_eq!(s.next_deadline(), 1000);
        // Still in the handshake: the greeting is repeated, not a plain keep-alive.
        assert_eq!(writes(&s.tick(1000)), vec![vec![0x4d, 0x45, 0x44, 0x42]]);
        s.received(&dgt_dump(&Board::new(), Orientation::Normal));
        assert!(s.is_connected());
        assert_eq!(s.next_deadline(), 2000);
        assert_eq!(writes(&s.tick(2000)), vec![vec![0x45]]);
        // Answered: no disconnect.
        s.received(&dgt::encode_message(&Message::SerialNr("00001".into())));
        assert_eq!(writes(&s.tick(3000)), vec![vec![0x45]]);
        // Not answered: at 3000 + 2000 the board is lost (the request at 4000 does not restart it).
        assert_eq!(writes(&s.tick(4000)), vec![vec![0x45]]);
        assert_eq!(s.next_deadline(), 5000);
        let out = s.tick(5000);
        assert!(
            matches!(&out[..], [Action::Lost(r)] if r.contains("stopped answering")),
            "{out:?}"
        );
    }

    #[test]
    fn a_silent_device_is_named_in_the_reason() {
        let p = profile("pegged-line");
        let mut s = Session::new(&p, None, 0);
        assert_eq!(writes(&s.start(0)), vec![b"V\n?\n".to_vec()]);
        let out = s.tick(3000);
        assert!(
            matches!(&out[..], [Action::Lost(r)] if r.contains("115200") && r.contains("line")),
            "{out:?}"
        );
    }

    #[test]
    fn a_device_that_answers_without_a_reading_is_given_up() {
        let p = profile("pegged-line");
        let mut s = Session::new(&p, None, 0);
        s.start(0);
        let mut t = 0;
        let mut lost = None;
        while t < 20_000 && lost.is_none() {
            t += 500;
            s.received(b"H chatty\r\n");
            lost = s.tick(t).into_iter().find_map(|a| {
                if let Action::Lost(r) = a {
                    Some(r)
                } else {
                    None
                }
            });
        }
        assert!(lost.is_some_and(|r| r.contains("no full board reading")));
        assert_eq!(t, 9000);
    }

    #[test]
    fn line_events_garbage_and_faults() {
        let p = profile("pegged-line");
        let mut s = Session::new(&p, None, 0);
        s.start(0);
        // Before the snapshot: the lift is superseded; afterwards events flow.
        let out = events(&s.received(b"L e2\r\nH peg 1.0\r\nS FFFF00000000FFFF\r\n"));
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(matches!(&out[0], LinkEvent::Connected { info } if info.contains("peg 1.0")));
        assert_eq!(
            out[1],
            LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Occupancy(Bitboard(
                0xFFFF_0000_0000_FFFF
            ))))
        );
        let out = events(&s.received(b"L e2\r\nX junk\r\nL z9\r\nE sensor c3 stuck\r\nP e4\r\n"));
        assert_eq!(
            out[0],
            LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 })
        );
        assert_eq!(
            out[1],
            LinkEvent::Unknown {
                message: "X junk".into()
            }
        );
        assert!(matches!(&out[2], LinkEvent::Rejected { reason } if reason.contains("z9")));
        assert_eq!(
            out[3],
            LinkEvent::BoardFault {
                text: "sensor c3 stuck".into()
            }
        );
        assert_eq!(
            out[4],
            LinkEvent::Sensor(SensorEvent::Place {
                square: Square::E4,
                piece: None
            })
        );
    }

    #[test]
    fn dgt_garbage_is_counted_and_never_an_event() {
        let mut s = Session::new(&profile("dgt"), Some(Orientation::Normal), 0);
        s.start(0);
        s.received(&dgt_dump(&Board::new(), Orientation::Normal));
        let mut bytes = vec![0x01, 0x02, 0x7f];
        bytes.extend([0x8e, 0x00]); // a header cut off by the next message
        bytes.extend(dgt::encode_message(&Message::FieldUpdate {
            field: 52,
            piece: None,
        }));
        let out = events(&s.received(&bytes));
        assert!(matches!(&out[0], LinkEvent::Rejected { .. }), "{out:?}");
        assert_eq!(
            out[1],
            LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 })
        );
        assert_eq!(out[2], LinkEvent::Garbage { bytes: 3 });
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
        let mut link = spawn(settings, LinkClock::new(), cancel.clone());
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
}
