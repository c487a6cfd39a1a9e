//! The DGT clock (DGT XL, DGT 3000) driven from tactus, sans-IO: the clock commands the board
//! relays (`DGT_CLOCK_MESSAGE`, 0x2b) as bytes, the clock's acknowledgements read from BWTIME, and
//! the [`ClockDriver`] that keeps the physical clock showing the official clock.
//!
//! tactus's clock is the only clock (issue 22): the physical clock never runs a time of its own
//! choosing. Every change of the official clock is handed to the driver as a [`ClockFace`] (both
//! times at a moment, and which side runs); the driver sends one SetNRun for the newest face,
//! computed at the moment it is sent, waits for its ACK, sends it again on a NACK or when no ACK
//! comes, and never has more than one command in flight. The clock's own BWTIME readings are
//! telemetry: a reading that differs from the official clock by more than [`DRIFT_LIMIT_MS`] is
//! reported and set right. A clock that refuses SetNRun is not in its PC mode: reported once,
//! and tried again now and then so that it takes over as soon as the arbiter switches it.
//!
//! The facts come from DGT's protocol header and the peers that drive real clocks (see
//! `../shared/reference/dgt-clock.md` in the project's shared folder). Times in SetNRun are plain
//! binary hours, minutes and seconds (unlike BWTIME's BCD).
//!
//! It must not open ports, sleep or read the clock: time comes in as `now`, bytes go out from
//! [`ClockDriver::poll_transmit`], waiting is [`ClockDriver::next_deadline`] and
//! [`ClockDriver::tick`].

use std::collections::VecDeque;

use shakmaty::Color;

use crate::rules::{Millis, clock::Clock};

use super::dgt::ClockMessage;

/// First byte of every clock command, and the byte after the length.
const CLOCK_MESSAGE: u8 = 0x2b;
const CLOCK_MESSAGE_MARK: u8 = 0x03;
/// The commands' codes (third byte after the length's).
const CMD_DISPLAY_END: u8 = 0x03;
const CMD_VERSION: u8 = 0x09;
const CMD_SET_AND_RUN: u8 = 0x0a;
const CMD_BEEP: u8 = 0x0b;
const CMD_ASCII: u8 = 0x0c;
/// SetNRun's side byte.
const RUN_LEFT: u8 = 0x01;
const RUN_RIGHT: u8 = 0x02;
const RUN_NONE: u8 = 0x04;
/// ack0 of an accepted command.
const ACK_OK: u8 = 0x10;
/// The DGT 3000's text is eight characters.
pub const TEXT_LEN: usize = 8;
/// The most a side can show: 9:59:59.
const MAX_SHOWN_MS: Millis = (9 * 3600 + 59 * 60 + 59) * 1000;

/// How long an ACK may take before the command is sent again (the peers wait 2 s).
pub const ACK_TIMEOUT_MS: Millis = 2000;
/// How often one command is sent before the driver stops waiting for it (6 s in all).
pub const MAX_ATTEMPTS: u8 = 3;
/// After a clock refused SetNRun or stopped answering, how long until it is tried again.
pub const RETRY_MS: Millis = 5000;
/// A BWTIME reading further than this from the official clock is set right (issue 22).
pub const DRIFT_LIMIT_MS: Millis = 2000;
/// Readings this soon after an ACK may still show the old setting; they are not judged.
const SETTLE_MS: Millis = 1500;

/// A side of the clock, as the clock sees it (the arbiter decides who sits where).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockSide {
    Left,
    Right,
}

/// What the clock should show: both times at the moment `at`, and which side counts down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockFace {
    pub left_ms: Millis,
    pub right_ms: Millis,
    /// None: both stopped (before the start, a pause, the end of the game).
    pub running: Option<ClockSide>,
    /// The game time the two times are true at.
    pub at: Millis,
}

impl ClockFace {
    /// The face at `now`: the running side has counted down since `at` (not below zero).
    pub fn at(&self, now: Millis) -> ClockFace {
        let spent = now.saturating_sub(self.at);
        let mut face = ClockFace { at: now, ..*self };
        match self.running {
            Some(ClockSide::Left) => face.left_ms = self.left_ms.saturating_sub(spent),
            Some(ClockSide::Right) => face.right_ms = self.right_ms.saturating_sub(spent),
            None => {}
        }
        face
    }

    /// The official clock as the DGT clock should show it at `now`, with the player of colour
    /// `left` on the clock's left; and when that face changes without any input (the end of a
    /// delay, 6.2: during it the main time stands, so the face shows it stopped).
    pub fn official(clock: &Clock, left: Color, now: Millis) -> (ClockFace, Option<Millis>) {
        let side = |color: Color| {
            if color == left {
                ClockSide::Left
            } else {
                ClockSide::Right
            }
        };
        let shown = |color: Color| clock.remaining(color, now).max(0) as Millis;
        let (mut running, mut changes) = (clock.running(), None);
        if let Some(color) = running {
            let delay = clock.delay_left(color, now);
            if delay > 0 {
                running = None;
                changes = Some(now + delay as Millis);
            }
        }
        let face = ClockFace {
            left_ms: shown(left),
            right_ms: shown(!left),
            running: running.map(side),
            at: now,
        };
        (face, changes)
    }

    /// Whether two faces show the same clock (the same times once both are taken at one moment,
    /// and the same side running).
    pub fn same_clock(&self, other: &ClockFace) -> bool {
        let now = self.at.max(other.at);
        let (a, b) = (self.at(now), other.at(now));
        a.running == b.running && a.left_ms == b.left_ms && a.right_ms == b.right_ms
    }
}

/// A command to the clock, relayed by the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockCommand {
    /// Ask for the clock's version: a handshake that tells whether a clock answers at all.
    Version,
    /// Set both times (whole seconds) and which side runs.
    SetAndRun {
        left_s: u32,
        right_s: u32,
        running: Option<ClockSide>,
    },
    /// Back to the times after a text.
    DisplayEnd,
    /// Eight characters on a DGT 3000, with a beep of `beep` x 1/16 s (0: none).
    Text { text: [u8; TEXT_LEN], beep: u8 },
    /// A beep of `n` x 64 ms.
    Beep { n: u8 },
}

impl ClockCommand {
    /// SetNRun for a face, rounded to the clock's whole seconds (a half second either way is the
    /// most the physical display can differ from the official clock by rounding).
    pub fn set_and_run(face: &ClockFace) -> ClockCommand {
        let seconds = |ms: Millis| (ms.min(MAX_SHOWN_MS).saturating_add(500) / 1000) as u32;
        ClockCommand::SetAndRun {
            left_s: seconds(face.left_ms),
            right_s: seconds(face.right_ms),
            running: face.running,
        }
    }

    /// Text for the DGT 3000: printable ASCII, cut or padded with spaces to eight characters.
    pub fn text(text: &str, beep: u8) -> ClockCommand {
        let mut bytes = [b' '; TEXT_LEN];
        let printable = text.chars().map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c as u8
            } else {
                b'?'
            }
        });
        for (slot, byte) in bytes.iter_mut().zip(printable) {
            *slot = byte;
        }
        ClockCommand::Text { text: bytes, beep }
    }

    /// The command's code, as the clock echoes it in its ACK.
    pub fn code(&self) -> u8 {
        match self {
            ClockCommand::Version => CMD_VERSION,
            ClockCommand::SetAndRun { .. } => CMD_SET_AND_RUN,
            ClockCommand::DisplayEnd => CMD_DISPLAY_END,
            ClockCommand::Text { .. } => CMD_ASCII,
            ClockCommand::Beep { .. } => CMD_BEEP,
        }
    }

    /// The bytes on the board's line: `2b <len> 03 <cmd> <data> 00`, `len` counting the bytes
    /// after itself (from the 0x03 to the final 0x00: SetNRun's is 0x0a).
    pub fn encode(&self) -> Vec<u8> {
        let hms = |s: u32| {
            let s = s.min((MAX_SHOWN_MS / 1000) as u32);
            [(s / 3600) as u8, (s % 3600 / 60) as u8, (s % 60) as u8]
        };
        let data: Vec<u8> = match self {
            ClockCommand::Version | ClockCommand::DisplayEnd => Vec::new(),
            ClockCommand::SetAndRun {
                left_s,
                right_s,
                running,
            } => {
                let mut data = Vec::with_capacity(7);
                data.extend(hms(*left_s));
                data.extend(hms(*right_s));
                data.push(match running {
                    Some(ClockSide::Left) => RUN_LEFT,
                    Some(ClockSide::Right) => RUN_RIGHT,
                    None => RUN_NONE,
                });
                data
            }
            ClockCommand::Text { text, beep } => {
                let mut data = text.to_vec();
                data.push(*beep);
                data
            }
            ClockCommand::Beep { n } => vec![*n],
        };
        let mut bytes = vec![CLOCK_MESSAGE, 0, CLOCK_MESSAGE_MARK, self.code()];
        bytes.extend(data);
        bytes.push(0);
        bytes[1] = (bytes.len() - 2) as u8;
        bytes
    }

    /// Read one command back from the start of `bytes` (for the emulated clock): the command and
    /// how many bytes it took, or None when `bytes` does not start with a whole clock command.
    pub fn decode(bytes: &[u8]) -> Option<(ClockCommand, usize)> {
        if bytes.len() < 5 || bytes[0] != CLOCK_MESSAGE || bytes[2] != CLOCK_MESSAGE_MARK {
            return None;
        }
        let total = usize::from(bytes[1]) + 2;
        if total < 5 || bytes.len() < total || bytes[total - 1] != 0 {
            return None;
        }
        let data = &bytes[4..total - 1];
        let command = match (bytes[3], data.len()) {
            (CMD_VERSION, 0) => ClockCommand::Version,
            (CMD_DISPLAY_END, 0) => ClockCommand::DisplayEnd,
            (CMD_SET_AND_RUN, 7) => {
                let secs =
                    |d: &[u8]| u32::from(d[0]) * 3600 + u32::from(d[1]) * 60 + u32::from(d[2]);
                ClockCommand::SetAndRun {
                    left_s: secs(&data[0..3]),
                    right_s: secs(&data[3..6]),
                    running: match data[6] & (RUN_LEFT | RUN_RIGHT) {
                        RUN_LEFT => Some(ClockSide::Left),
                        RUN_RIGHT => Some(ClockSide::Right),
                        _ => None,
                    },
                }
            }
            (CMD_ASCII, 9) => {
                let mut text = [0; TEXT_LEN];
                text.copy_from_slice(&data[..TEXT_LEN]);
                ClockCommand::Text {
                    text,
                    beep: data[TEXT_LEN],
                }
            }
            (CMD_BEEP, 1) => ClockCommand::Beep { n: data[0] },
            _ => return None,
        };
        Some((command, total))
    }
}

/// A clock's acknowledgement, read from a BWTIME that carries one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockAck {
    /// The clock accepted the command (ack0 = 0x10). A refused SetNRun means the clock is not
    /// in its PC mode.
    pub accepted: bool,
    /// The code of the command acknowledged (0x0a SetNRun, 0x09 version, ...); 0x88 is a button.
    pub command: u8,
    /// The third and fourth bytes (the version: high nibble main, low nibble sub).
    pub data: [u8; 2],
}

impl ClockAck {
    /// The ACK's four bytes are spread over the payload with their top bits in the hours bytes
    /// (DGT's header; the peers read it the same way).
    pub fn from_raw(raw: &[u8; 7]) -> ClockAck {
        let byte = |low: u8, high: u8, shift: u32| (low & 0x7f) | ((high << shift) & 0x80);
        let ack0 = byte(raw[1], raw[3], 3);
        let ack1 = byte(raw[2], raw[3], 2);
        let ack2 = byte(raw[4], raw[0], 3);
        let ack3 = byte(raw[5], raw[0], 2);
        ClockAck {
            accepted: ack0 == ACK_OK,
            command: ack1,
            data: [ack2, ack3],
        }
    }

    /// The payload a clock sends for this ACK (for the emulated clock): both hours bytes carry
    /// the 0x0a mark, every byte keeps bit 7 clear.
    pub fn to_raw(&self) -> [u8; 7] {
        let ack0 = if self.accepted { ACK_OK } else { 0x00 };
        let [ack2, ack3] = self.data;
        let top = |a: u8, b: u8| 0x0a | ((a >> 7) << 4) | ((b >> 7) << 5);
        [
            top(ack2, ack3),
            ack0 & 0x7f,
            self.command & 0x7f,
            top(ack0, self.command),
            ack2 & 0x7f,
            ack3 & 0x7f,
            0,
        ]
    }
}

/// What the driver has to tell the shell (which tells the arbiter or logs it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockNote {
    /// A clock answers and takes SetNRun; `version` when it said it.
    Ready { version: Option<(u8, u8)> },
    /// The clock refused SetNRun: it is not in its PC mode. Said once until it takes one.
    NotInPcMode,
    /// The board reports no clock attached, or the clock stopped answering. Said once until a
    /// clock answers again.
    Absent,
    /// The clock showed these times while the official clock said others (left, right, in ms,
    /// the clock's minus the official); it is set right.
    Drift { left_ms: i64, right_ms: i64 },
    /// Telemetry: a reading within [`DRIFT_LIMIT_MS`] of the official clock, by this much (the
    /// clock's minus the official, left and right). Logged, nothing to do.
    Offset { left_ms: i64, right_ms: i64 },
}

/// The one command waiting for its ACK.
#[derive(Debug, Clone)]
struct InFlight {
    command: ClockCommand,
    sent_at: Millis,
    attempts: u8,
    /// A NACK already made it go again once.
    nacked: bool,
    /// To be written again at the next poll (a NACK, or no ACK in time).
    resend: bool,
}

/// Whether a clock answers, as far as the driver knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// Nothing heard yet.
    Unknown,
    /// Answers and takes SetNRun.
    Ready,
    /// Not to be sent to before `retry_at`, and why.
    Away { why: Away, retry_at: Millis },
}

/// Why the clock is away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Away {
    /// The board reports no clock attached: a reading with a clock starts over.
    NoClock,
    /// The clock left commands unanswered.
    Silent,
    /// The clock refuses SetNRun: not in its PC mode.
    NotPcMode,
}

/// Keeps a DGT clock showing the official clock. See the module's documentation.
#[derive(Debug, Clone)]
pub struct ClockDriver {
    /// The newest official clock; None until the first is set.
    wanted: Option<ClockFace>,
    /// The face the clock last accepted.
    shown: Option<ClockFace>,
    /// When the last ACK of a SetNRun came (readings before it has settled are not judged).
    acked_at: Option<Millis>,
    in_flight: Option<InFlight>,
    /// Texts for the display, oldest first, each with when it is no longer worth showing; sent
    /// when nothing else is due. Two texts said together (a flag and the result) are both shown,
    /// one after the other: a newer text does not wipe one the player has not seen.
    texts: VecDeque<(ClockCommand, Millis)>,
    /// The text on the display (it goes back to the times at its end).
    text_shown: Option<ShownText>,
    presence: Presence,
    said_not_pc: bool,
    said_absent: bool,
    version_asked: bool,
    /// The clock shows ASCII text: a DGT 3000 (version 2 and later). A DGT XL (version 1) has
    /// six seven-segment digits and no ASCII command; a clock that never said its version, or
    /// refused a text, is sent none (an unknown command could go unanswered and make a good
    /// clock look gone).
    shows_text: bool,
}

/// A text on the DGT 3000's display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ShownText {
    /// When the display goes back to the times.
    until: Millis,
    /// When a text waiting behind it may take its place: not before the player could read it.
    next_at: Millis,
}

/// How long a text stays before one waiting behind it replaces it: time to read eight
/// characters.
const READ_MS: Millis = 2000;
/// The most texts that wait for the display; beyond it the oldest is dropped (a clock that
/// does not answer for a while is not shown a backlog of stale moves when it comes back).
const MAX_WAITING_TEXTS: usize = 4;

/// The first version of a DGT clock that shows ASCII text (the DGT 3000; the DGT XL is 1.x).
const TEXT_VERSION: u8 = 2;

impl Default for ClockDriver {
    fn default() -> Self {
        ClockDriver::new()
    }
}

impl ClockDriver {
    pub fn new() -> ClockDriver {
        ClockDriver {
            wanted: None,
            shown: None,
            acked_at: None,
            in_flight: None,
            texts: VecDeque::new(),
            text_shown: None,
            presence: Presence::Unknown,
            said_not_pc: false,
            said_absent: false,
            version_asked: false,
            shows_text: false,
        }
    }

    /// The official clock changed (or is set for the first time). Only the newest face is sent;
    /// one the clock already shows is not sent again.
    pub fn set(&mut self, face: ClockFace) {
        self.wanted = Some(face);
    }

    /// Show `text` on a DGT 3000 until `for_ms` from `now`, then the times again. A text
    /// already showing stays at least [`READ_MS`] before this one replaces it.
    pub fn show_text(&mut self, text: &str, beep: u8, for_ms: Millis, now: Millis) {
        if self.texts.len() == MAX_WAITING_TEXTS {
            self.texts.pop_front();
        }
        self.texts
            .push_back((ClockCommand::text(text, beep), now + for_ms));
    }

    /// Whether the clock answers and takes SetNRun.
    pub fn ready(&self) -> bool {
        self.presence == Presence::Ready
    }

    /// What the clock last accepted, at `now` (what it shows, as far as the driver knows).
    pub fn shown(&self, now: Millis) -> Option<ClockFace> {
        self.shown.map(|f| f.at(now))
    }

    /// The next command to write, if one is due: nothing while one waits for its ACK.
    pub fn poll_transmit(&mut self, now: Millis) -> Option<Vec<u8>> {
        if let Some(flight) = &mut self.in_flight {
            if !flight.resend {
                return None;
            }
            flight.resend = false;
            flight.sent_at = now;
            // A SetNRun goes again with the times of now, not of its first sending.
            if let ClockCommand::SetAndRun { .. } = flight.command
                && let Some(wanted) = self.wanted
            {
                flight.command = ClockCommand::set_and_run(&wanted.at(now));
            }
            return Some(flight.command.encode());
        }
        if let Presence::Away { retry_at, .. } = self.presence
            && now < retry_at
        {
            return None;
        }
        let command = self.due_command(now)?;
        let bytes = command.encode();
        self.in_flight = Some(InFlight {
            command,
            sent_at: now,
            attempts: 1,
            nacked: false,
            resend: false,
        });
        Some(bytes)
    }

    /// What is due, most important first: the handshake, then the times (a wrong time is worse
    /// than a late text), then a text, then the end of a text whose time is up.
    fn due_command(&mut self, now: Millis) -> Option<ClockCommand> {
        if !self.version_asked {
            self.version_asked = true;
            return Some(ClockCommand::Version);
        }
        if let Some(wanted) = self.wanted
            && self.shown.is_none_or(|shown| !shown.same_clock(&wanted))
        {
            return Some(ClockCommand::set_and_run(&wanted.at(now)));
        }
        if !self.shows_text {
            self.texts.clear();
        } else if self.text_shown.is_none_or(|shown| shown.next_at <= now) {
            // A text whose time passed before it could be sent, or that could not be read in
            // the time it has left, is dropped.
            while let Some((command, until)) = self.texts.pop_front() {
                if until > now + READ_MS / 2 {
                    self.text_shown = Some(ShownText {
                        until,
                        next_at: (now + READ_MS).min(until),
                    });
                    return Some(command);
                }
            }
        }
        if let Some(ShownText { until, .. }) = self.text_shown
            && until <= now
        {
            self.text_shown = None;
            return Some(ClockCommand::DisplayEnd);
        }
        None
    }

    /// When [`ClockDriver::tick`] (or [`ClockDriver::poll_transmit`]) has something to do.
    pub fn next_deadline(&self) -> Option<Millis> {
        if let Some(flight) = &self.in_flight {
            return Some(flight.sent_at + ACK_TIMEOUT_MS);
        }
        match self.presence {
            Presence::Away { retry_at, .. } => Some(retry_at),
            _ => self.text_shown.map(|shown| {
                if self.texts.is_empty() {
                    shown.until
                } else {
                    shown.next_at
                }
            }),
        }
    }

    /// Time passed: a command unanswered for [`ACK_TIMEOUT_MS`] is due again (at the next
    /// [`ClockDriver::poll_transmit`]), at most [`MAX_ATTEMPTS`] times; then the clock is taken
    /// as gone and tried again after [`RETRY_MS`].
    pub fn tick(&mut self, now: Millis) -> Vec<ClockNote> {
        let mut notes = Vec::new();
        if let Some(flight) = &mut self.in_flight
            && now >= flight.sent_at + ACK_TIMEOUT_MS
        {
            if flight.attempts < MAX_ATTEMPTS {
                flight.attempts += 1;
                flight.resend = true;
            } else {
                self.in_flight = None;
                self.away(Away::Silent, now, &mut notes);
            }
        }
        if let Presence::Away { why, retry_at } = self.presence
            && now >= retry_at
            && self.in_flight.is_none()
            && !self.something_due()
        {
            // Nothing to try it with yet: look again later rather than at once.
            self.presence = Presence::Away {
                why,
                retry_at: now + RETRY_MS,
            };
        }
        notes
    }

    /// Whether a command would be sent if the clock were there.
    fn something_due(&self) -> bool {
        !self.version_asked
            || self
                .wanted
                .is_some_and(|w| self.shown.is_none_or(|s| !s.same_clock(&w)))
            || !self.texts.is_empty()
            || self.text_shown.is_some()
    }

    /// A BWTIME from the board: an ACK of the command in flight, or the clock's times.
    pub fn received(&mut self, message: &ClockMessage, now: Millis) -> Vec<ClockNote> {
        let mut notes = Vec::new();
        match message {
            ClockMessage::Ack { raw } => {
                self.acknowledged(ClockAck::from_raw(raw), now, &mut notes)
            }
            ClockMessage::Times {
                left_ms,
                right_ms,
                no_clock,
                ..
            } => {
                if *no_clock {
                    // No clock: whatever was in flight will not be answered.
                    self.in_flight = None;
                    self.away(Away::NoClock, now, &mut notes);
                } else {
                    self.reading(*left_ms, *right_ms, now, &mut notes);
                }
            }
        }
        notes
    }

    fn acknowledged(&mut self, ack: ClockAck, now: Millis, notes: &mut Vec<ClockNote>) {
        let Some(flight) = &mut self.in_flight else {
            return;
        };
        if ack.command != flight.command.code() {
            // A button, or a late answer to an earlier command: not ours.
            return;
        }
        if !ack.accepted {
            if !flight.nacked {
                // Sent again once at once, as the peers do: a NACK can be a line error.
                flight.nacked = true;
                flight.resend = true;
                return;
            }
            let text = matches!(flight.command, ClockCommand::Text { .. });
            self.in_flight = None;
            if text {
                // A clock that takes the times but no text: it shows the times only.
                self.shows_text = false;
                self.text_shown = None;
                self.texts.clear();
                return;
            }
            self.away(Away::NotPcMode, now, notes);
            return;
        }
        let flight = self.in_flight.take().expect("checked above");
        let version = (flight.command == ClockCommand::Version)
            .then_some((ack.data[0] >> 4, ack.data[0] & 0x0f));
        if let Some((major, _)) = version {
            self.shows_text = major >= TEXT_VERSION;
        }
        if let ClockCommand::SetAndRun {
            left_s,
            right_s,
            running,
        } = flight.command
        {
            // The clock now shows what was sent when it was sent (whole seconds).
            self.shown = Some(ClockFace {
                left_ms: Millis::from(left_s) * 1000,
                right_ms: Millis::from(right_s) * 1000,
                running,
                at: flight.sent_at,
            });
            self.acked_at = Some(now);
            // The clock's whole seconds are not the official milliseconds: what was sent stands
            // for the face that was wanted when it was sent.
            if let Some(wanted) = self.wanted
                && ClockCommand::set_and_run(&wanted.at(flight.sent_at)) == flight.command
            {
                self.shown = Some(wanted);
            }
        }
        if self.presence != Presence::Ready || version.is_some() {
            self.presence = Presence::Ready;
            self.said_not_pc = false;
            self.said_absent = false;
            notes.push(ClockNote::Ready { version });
        }
    }

    /// A reading of the clock's times: a clock that was away is back; a clock far from the
    /// official time is set right.
    fn reading(
        &mut self,
        left_ms: Millis,
        right_ms: Millis,
        now: Millis,
        notes: &mut Vec<ClockNote>,
    ) {
        if let Presence::Away {
            why: Away::NoClock, ..
        } = self.presence
        {
            // A clock is plugged in again: start over with the handshake.
            self.presence = Presence::Unknown;
            self.version_asked = false;
            self.shown = None;
            return;
        }
        if self.in_flight.is_some() || self.presence != Presence::Ready {
            return;
        }
        if self.acked_at.is_some_and(|at| now < at + SETTLE_MS) {
            return;
        }
        let Some(wanted) = self.wanted else {
            return;
        };
        let official = wanted.at(now);
        let diff = |shown: Millis, official: Millis| shown as i64 - official as i64;
        let (left, right) = (
            diff(left_ms, official.left_ms),
            diff(right_ms, official.right_ms),
        );
        let limit = DRIFT_LIMIT_MS as i64;
        if left.abs() > limit || right.abs() > limit {
            notes.push(ClockNote::Drift {
                left_ms: left,
                right_ms: right,
            });
            // Forget what it was believed to show: the next poll sends the official clock.
            self.shown = None;
        } else {
            notes.push(ClockNote::Offset {
                left_ms: left,
                right_ms: right,
            });
        }
    }

    /// The clock refused or is not there: say it once, try again after [`RETRY_MS`].
    fn away(&mut self, why: Away, now: Millis, notes: &mut Vec<ClockNote>) {
        self.presence = Presence::Away {
            why,
            retry_at: now + RETRY_MS,
        };
        self.shown = None;
        let (said, note) = match why {
            Away::NotPcMode => (&mut self.said_not_pc, ClockNote::NotInPcMode),
            Away::NoClock | Away::Silent => (&mut self.said_absent, ClockNote::Absent),
        };
        if !*said {
            *said = true;
            notes.push(note);
        }
    }
}

#[cfg(test)]
mod tests;
