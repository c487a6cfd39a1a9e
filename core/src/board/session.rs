//! A board link's protocol session, pure: handshake, keep-alive, orientation, and which decoded
//! messages become events. Fed bytes, commands and clock readings, it says what to write, what to
//! report and when the connection is dead ([`Action`]); the shell's task that owns the port
//! (`daemon::link`) only moves bytes, sleeps and selects, so these rules are unit-tested without a
//! port.
//!
//! It must not interpret what happens on the board: it never decides that a move was made, never
//! debounces or reorders sensor events (move recognition does that), and never touches game state.
//!
//! It knows no protocol: what to send and what the board's bytes mean are the protocol's
//! ([`LinkCodec`], one per protocol under [`super::protocol`]); the rules here hold for every
//! protocol:
//! - The greeting goes out when the port opens, and again every keep-alive period until the first
//!   full reading arrives (the board may not have been there yet). That reading completes the
//!   handshake; events before it are already contained in it and are dropped.
//! - A keep-alive request goes out every `keepalive_ms / 2`; silence for `keepalive_ms` after a
//!   request is a disconnect ([`Action::Lost`]). Any well-formed message answers.
//! - The orientation is the profile's, or detected from the first reading of an identity board.
//! - A DGT clock plugged into a board whose protocol carries one is driven once the board is
//!   connected.

use tracing::{debug, warn};

use crate::{
    board::{
        Orientation, SensorEvent,
        dgt::ClockMessage,
        dgt_clock::{ClockDriver, ClockFace, ClockNote},
        profile::{OrientationMode, Profile},
        protocol::{BoardProtocol, Heard, LinkCodec},
        throttle::{Throttle, held_words},
    },
    rules::Millis,
};

/// A handshake that has had answers but still no snapshot after this many keep-alive periods is
/// given up (the device answers, but not like a board).
const HANDSHAKE_KEEPALIVES: u64 = 3;

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
    /// What the clock driver has to say: a clock ready, not in PC mode, gone, or set right.
    ClockNote(ClockNote),
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkCommand {
    /// Ask the board for a full reading (the recogniser's `RequestSnapshot`). Dropped while the
    /// board is away: every reconnection takes a snapshot anyway.
    RequestSnapshot,
    /// The official clock changed: the attached DGT clock is to show this (ignored without one).
    Clock(ClockFace),
    /// Show this text on a DGT 3000 for `for_ms`, then the times again.
    ClockText { text: String, for_ms: Millis },
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
    protocol: &'static dyn BoardProtocol,
    /// The protocol's side of this connection: what to send, what the bytes mean.
    codec: Box<dyn LinkCodec>,
    baud: u32,
    keepalive_ms: Millis,
    orientation_mode: OrientationMode,
    /// Known orientation: fixed by the profile, or detected on an earlier connection.
    orientation: Option<Orientation>,
    /// How the orientation was learned, for the connection info.
    orientation_source: &'static str,
    /// The board is expected to show a game under way (a resumed game, or one set up from a
    /// position), not the start position, so detection has nothing to go by.
    game_under_way: bool,
    phase: Phase,
    started: Millis,
    /// The oldest request not yet answered by any message.
    awaiting_since: Option<Millis>,
    next_keepalive: Millis,
    /// Malformed messages and the board's fault lines: logged at most once a second each.
    rejected: Throttle,
    faults: Throttle,
    /// The attached DGT clock's driver (a protocol that carries one, and `clock.attached`): its
    /// messages are reported and its commands sent only when there is one.
    clock: Option<ClockDriver>,
}

impl Session {
    /// A session for a board of this profile. `orientation` carries a detection from an earlier
    /// connection of the same link (a board does not turn round while unplugged; if it did, the
    /// recogniser reports the difference).
    pub fn new(profile: &Profile, orientation: Option<Orientation>, now: Millis) -> Session {
        Session::speaking(profile.protocol.spec(), profile, orientation, now)
    }

    /// The same, speaking `protocol` whatever the profile names: the seam itself, for a protocol
    /// no profile can name yet (a test's).
    pub fn speaking(
        protocol: &'static dyn BoardProtocol,
        profile: &Profile,
        orientation: Option<Orientation>,
        now: Millis,
    ) -> Session {
        let fixed = profile.orientation.mode.fixed();
        let (orientation, orientation_source) = match (fixed, orientation) {
            (Some(o), _) => (Some(o), "from the profile"),
            (None, Some(o)) => (Some(o), "detected earlier"),
            (None, None) => (None, ""),
        };
        let clock = protocol.carries_clock() && profile.clock.attached;
        Session {
            protocol,
            codec: protocol.link(clock),
            baud: profile.serial.baud,
            keepalive_ms: profile.timing.keepalive_ms,
            orientation_mode: profile.orientation.mode,
            orientation,
            orientation_source,
            game_under_way: false,
            phase: Phase::Handshake,
            started: now,
            awaiting_since: None,
            next_keepalive: now,
            rejected: Throttle::default(),
            faults: Throttle::default(),
            clock: clock.then(ClockDriver::new),
        }
    }

    /// The same session for a board expected to show a game under way (`true`: a resumed game,
    /// or one set up from another position) rather than the start position. It changes only what
    /// an orientation that cannot be detected is put down to: the advice to set up the start
    /// position and reconnect is wrong in the middle of a game.
    pub fn with_game_under_way(mut self, under_way: bool) -> Session {
        self.game_under_way = under_way;
        self
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
        vec![Action::Write(self.codec.greeting())]
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
                vec![Action::Write(self.codec.snapshot_request())]
            }
            LinkCommand::Clock(face) => {
                if let Some(driver) = &mut self.clock {
                    driver.set(face);
                }
                self.clock_out(now)
            }
            LinkCommand::ClockText { text, for_ms } => {
                if let Some(driver) = &mut self.clock {
                    driver.show_text(&text, 0, for_ms, now);
                }
                self.clock_out(now)
            }
        }
    }

    /// The clock command due, if any. The board relays clock commands only once it is in its
    /// update mode, so nothing goes to the clock before the handshake is done.
    fn clock_out(&mut self, now: Millis) -> Vec<Action> {
        match &mut self.clock {
            Some(driver) if self.phase == Phase::Connected => driver
                .poll_transmit(now)
                .map(Action::Write)
                .into_iter()
                .collect(),
            _ => Vec::new(),
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
        if let Some(clock) = self.clock.as_ref().and_then(ClockDriver::next_deadline)
            && self.phase == Phase::Connected
        {
            deadline = deadline.min(clock);
        }
        for due in [self.rejected.due(), self.faults.due()]
            .into_iter()
            .flatten()
        {
            deadline = deadline.min(due);
        }
        deadline
    }

    fn handshake_limit(&self) -> Millis {
        self.started + HANDSHAKE_KEEPALIVES * self.keepalive_ms
    }

    /// Time passes: keep-alive requests and silence.
    pub fn tick(&mut self, now: Millis) -> Vec<Action> {
        // A flood that stopped: its count, once.
        if let Some(held) = self.rejected.summary(now) {
            warn!("{held} more malformed messages from the board, not logged one by one");
        }
        if let Some(held) = self.faults.summary(now) {
            warn!("{held} more fault lines from the board, not logged one by one");
        }
        if let Some(since) = self.awaiting_since
            && now >= since + self.keepalive_ms
        {
            let reason = match self.phase {
                Phase::Handshake => format!(
                    "no answer within {} ms of opening the port (is the board switched on, and does \
                     it speak the {} protocol at {} baud?)",
                    self.keepalive_ms,
                    self.protocol.title(),
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
                self.protocol.title()
            ))];
        }
        let mut out = Vec::new();
        if let Some(driver) = &mut self.clock
            && self.phase == Phase::Connected
        {
            out.extend(
                driver
                    .tick(now)
                    .into_iter()
                    .map(|note| Action::Emit(LinkEvent::ClockNote(note))),
            );
            out.extend(self.clock_out(now));
        }
        if now >= self.next_keepalive {
            self.next_keepalive = now + self.keepalive_interval();
            self.request(now);
            let bytes = match self.phase {
                // Still waiting for the first reading: the greeting may have been lost (the
                // board was not there yet), send it again.
                Phase::Handshake => self.codec.greeting(),
                Phase::Connected => self.codec.keepalive(),
            };
            out.push(Action::Write(bytes));
        }
        out
    }

    /// Bytes read from the port at `now`: every message decoded from them, in order. A malformed
    /// one is reported and skipped; any well-formed one shows the board is alive.
    pub fn received(&mut self, bytes: &[u8], now: Millis) -> Vec<Action> {
        let mut out = Vec::new();
        for heard in self.codec.received(bytes) {
            self.heard(heard, now, &mut out);
        }
        out
    }

    /// What one decoded message meant.
    fn heard(&mut self, heard: Heard, now: Millis, out: &mut Vec<Action>) {
        match heard {
            Heard::Rejected(reason) => {
                if let Some(held) = self.rejected.admit(now) {
                    warn!("{reason}{}", held_words(held));
                }
                out.push(Action::Emit(LinkEvent::Rejected { reason }));
                return;
            }
            Heard::Garbage(bytes) => {
                debug!(bytes, "bytes outside any message skipped");
                out.push(Action::Emit(LinkEvent::Garbage { bytes }));
                return;
            }
            _ => {}
        }
        // A well-formed message: the board is alive.
        self.awaiting_since = None;
        match heard {
            Heard::Sensor(SensorEvent::Snapshot(reading)) => {
                let orientation = self.orientation_for(&reading);
                let connecting = self.phase == Phase::Handshake;
                if connecting {
                    self.phase = Phase::Connected;
                    out.push(Action::Emit(LinkEvent::Connected {
                        info: self.codec.describe(orientation, self.orientation_source),
                    }));
                }
                let snapshot = orientation.apply_event(SensorEvent::Snapshot(reading));
                out.push(Action::Emit(LinkEvent::Sensor(snapshot)));
                if connecting {
                    // The board relays clock commands from now on: the clock's handshake.
                    out.extend(self.clock_out(now));
                }
            }
            Heard::Sensor(event) => {
                if self.phase == Phase::Connected {
                    let orientation = self.orientation.unwrap_or_default();
                    out.push(Action::Emit(LinkEvent::Sensor(
                        orientation.apply_event(event),
                    )));
                } else {
                    // The first full reading, asked for in the greeting, contains this.
                    debug!(
                        ?event,
                        "event before the first full reading: superseded by the reading"
                    );
                }
            }
            Heard::Clock(clock) => {
                if let Some(driver) = &mut self.clock {
                    let notes = driver.received(&clock, now);
                    out.extend(
                        notes
                            .into_iter()
                            .map(|note| Action::Emit(LinkEvent::ClockNote(note))),
                    );
                    out.push(Action::Emit(LinkEvent::Clock(clock)));
                    out.extend(self.clock_out(now));
                }
            }
            Heard::Fault(text) => {
                if let Some(held) = self.faults.admit(now) {
                    warn!(text, "the board reports a fault{}", held_words(held));
                }
                out.push(Action::Emit(LinkEvent::BoardFault { text }));
            }
            Heard::Unknown(message) => out.push(Action::Emit(LinkEvent::Unknown { message })),
            Heard::Alive | Heard::Rejected(_) | Heard::Garbage(_) => {}
        }
    }

    /// The orientation to read `reading` with (in the board's own numbering); detects it from the
    /// first reading when the profile says "detect".
    fn orientation_for(&mut self, reading: &crate::board::Sensed) -> Orientation {
        if let Some(o) = self.orientation {
            return o;
        }
        debug_assert_eq!(self.orientation_mode, OrientationMode::Detect);
        let (o, source) = match Orientation::detect(reading) {
            Some(o) => (o, "detected from the start position"),
            None if self.game_under_way => {
                warn!(
                    "the game is under way, so the orientation cannot be told from the start \
                     position; assuming normal orientation"
                );
                (
                    Orientation::Normal,
                    "assumed: the game is under way, so it cannot be told from the start \
                     position; set orientation.mode in the profile if the board is turned",
                )
            }
            None => {
                warn!(
                    "the first full reading of the board is not the start position; assuming \
                     normal orientation"
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
}

#[cfg(test)]
mod tests {
    use shakmaty::{Bitboard, Board, Square};

    use super::*;
    use crate::board::{
        Sensed,
        dgt::{self, Message},
        profile::ProfileSet,
    };

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

    /// Issue 22: the attached clock is driven through the board: its handshake once the board is
    /// connected (not before: the board relays clock commands only in update mode), then the
    /// official clock, one command waiting for its ACK at a time.
    #[test]
    fn an_attached_clock_is_set_through_the_board_once_it_is_connected() {
        use crate::board::dgt_clock::{ClockAck, ClockCommand, ClockSide};
        let mut with_clock = profile("dgt");
        with_clock.clock.attached = true;
        let mut s = Session::new(&with_clock, None, 0);
        s.start(0);
        let face = ClockFace {
            left_ms: 5_400_000,
            right_ms: 5_400_000,
            running: None,
            at: 0,
        };
        assert!(writes(&s.command(LinkCommand::Clock(face), 10)).is_empty());
        let out = s.received(&dgt_dump(&Board::new(), Orientation::Normal), 20);
        assert_eq!(writes(&out), vec![ClockCommand::Version.encode()]);
        let ack = |command: u8| {
            dgt::encode_message(&Message::Clock(ClockMessage::Ack {
                raw: ClockAck {
                    accepted: true,
                    command,
                    data: [0x21, 0],
                }
                .to_raw(),
            }))
        };
        let out = s.received(&ack(0x09), 40);
        assert!(
            events(&out).contains(&LinkEvent::ClockNote(ClockNote::Ready {
                version: Some((2, 1))
            })),
            "{out:?}"
        );
        assert_eq!(
            writes(&out),
            vec![ClockCommand::set_and_run(&face).encode()]
        );
        // A change while that one waits for its ACK goes out after the ACK, at its own time.
        let running = ClockFace {
            running: Some(ClockSide::Left),
            at: 50,
            ..face
        };
        assert!(writes(&s.command(LinkCommand::Clock(running), 50)).is_empty());
        let out = s.received(&ack(0x0a), 1050);
        assert_eq!(
            writes(&out),
            vec![ClockCommand::set_and_run(&running.at(1050)).encode()]
        );
        // No ACK: sent again at the timeout the session's deadline names.
        let timeout = 1050 + crate::board::dgt_clock::ACK_TIMEOUT_MS;
        assert!(s.next_deadline() <= timeout);
        let early = s.tick(timeout - 1);
        assert!(!writes(&early).iter().any(|w| w[0] == 0x2b), "{early:?}");
        // (the keep-alive answered, as a live board does)
        s.received(
            &dgt::encode_message(&Message::SerialNr("00001".into())),
            timeout - 1,
        );
        let out = s.tick(timeout);
        assert!(writes(&out).iter().any(|w| w[0] == 0x2b), "{out:?}");
        // A board without a clock ignores clock commands.
        let mut plain = Session::new(&profile("dgt"), None, 0);
        plain.start(0);
        plain.received(&dgt_dump(&Board::new(), Orientation::Normal), 20);
        assert!(writes(&plain.command(LinkCommand::Clock(face), 30)).is_empty());
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
        let out = events(&s.received(&bytes, 0));
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
        let out = events(&s.received(
            &dgt::encode_message(&Message::FieldUpdate {
                field: 11,
                piece: None,
            }),
            0,
        ));
        assert_eq!(
            out,
            vec![LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 })]
        );
        assert_eq!(s.orientation(), Some(Orientation::Reversed));
        // A later connection of the same link keeps it, whatever the board shows then.
        let mut again = Session::new(&profile("dgt"), s.orientation(), 100);
        again.start(100);
        let out = events(&again.received(&dgt_dump(&Board::empty(), Orientation::Reversed), 0));
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
        let out = events(&s.received(&dgt_dump(&board, Orientation::Normal), 0));
        let LinkEvent::Connected { info } = &out[0] else {
            panic!("{out:?}")
        };
        assert!(
            info.contains("normal (assumed") && info.contains("orientation.mode"),
            "{info}"
        );
        // A new game: the start position is what the board should show, so setting it up helps.
        assert!(
            info.contains("set up the start position and reconnect"),
            "{info}"
        );
        assert_eq!(
            out[1],
            LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Pieces(board)))
        );
    }

    #[test]
    fn dgt_orientation_in_a_game_under_way_is_assumed_without_asking_for_the_start_position() {
        // A resumed game: the board rightly shows the game's position, so the start position
        // cannot be asked for; the profile is where a turned board is said.
        let mut s = Session::new(&profile("dgt"), None, 0).with_game_under_way(true);
        s.start(0);
        let board: Board = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
            .parse()
            .unwrap();
        let out = events(&s.received(&dgt_dump(&board, Orientation::Normal), 0));
        let LinkEvent::Connected { info } = &out[0] else {
            panic!("{out:?}")
        };
        assert!(
            info.contains(
                "orientation normal (assumed: the game is under way, so it cannot be told from \
                 the start position; set orientation.mode in the profile if the board is turned)"
            ),
            "{info}"
        );
        assert!(!info.contains("set up the start position"), "{info}");
        assert_eq!(s.orientation(), Some(Orientation::Normal));
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
        s.received(&dgt_dump(&Board::new(), Orientation::Normal), 0);
        assert!(s.is_connected());
        assert_eq!(s.next_deadline(), 2000);
        assert_eq!(writes(&s.tick(2000)), vec![vec![0x45]]);
        // Answered: no disconnect.
        s.received(&dgt::encode_message(&Message::SerialNr("00001".into())), 0);
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
            s.received(b"H chatty\r\n", 0);
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
        let out = events(&s.received(b"L e2\r\nH peg 1.0\r\nS FFFF00000000FFFF\r\n", 0));
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(matches!(&out[0], LinkEvent::Connected { info } if info.contains("peg 1.0")));
        assert_eq!(
            out[1],
            LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Occupancy(Bitboard(
                0xFFFF_0000_0000_FFFF
            ))))
        );
        let out = events(&s.received(
            b"L e2\r\nX junk\r\nL z9\r\nE sensor c3 stuck\r\nP e4\r\n",
            0,
        ));
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
        s.received(&dgt_dump(&Board::new(), Orientation::Normal), 0);
        let mut bytes = vec![0x01, 0x02, 0x7f];
        bytes.extend([0x8e, 0x00]); // a header cut off by the next message
        bytes.extend(dgt::encode_message(&Message::FieldUpdate {
            field: 52,
            piece: None,
        }));
        let out = events(&s.received(&bytes, 0));
        assert!(matches!(&out[0], LinkEvent::Rejected { .. }), "{out:?}");
        assert_eq!(
            out[1],
            LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 })
        );
        assert_eq!(out[2], LinkEvent::Garbage { bytes: 3 });
    }
}
