//! DGT boards at the seam: the conversation of DGT's binary protocol, over the wire codec in
//! [`crate::board::dgt`] (framing, messages, piece codes, field numbering), following DGT's
//! published protocol header (`dgtbrd.h`) as `boards/README.md` section 3 summarises it.
//!
//! This file owns what the host sends a DGT board and when it counts as what, and what a
//! simulated DGT board answers:
//! - Greeting: SEND_VERSION, RETURN_SERIALNR, then update mode (SEND_UPDATE_BRD, or
//!   SEND_UPDATE_NICE when a clock is attached, so that the board relays the clock's messages),
//!   then SEND_BRD. Updates are switched on *before* the dump is asked for, so that no change falls
//!   between the two; the session drops the updates that arrive before the first dump, which
//!   already contains them. Keep-alive: RETURN_SERIALNR. Snapshot: SEND_BRD.
//! - A DGT board identifies pieces, carries a DGT clock (its commands framed from 0x2b, relayed to
//!   the clock; its BWTIME messages relayed back), and samples its 64 fields one after another in
//!   field order (field 0 = a8).
//! - The simulated board stays idle (bus mode, as a board powered over USB starts) until the host
//!   switches updates on; it then reports every change and, with a clock, the clock.

use shakmaty::Square;
use tracing::debug;

use super::{Asked, BoardProtocol, BoardSide, Heard, LinkCodec};
use crate::board::{
    Orientation, Sensing, SensorEvent,
    dgt::{self, ClockMessage, Command, Decoder, Message},
};

/// The first byte of a clock command the board relays (`DGT_CLOCK_MESSAGE`): the bytes after
/// it up to its length are the clock's, not one-byte board commands (a DGT 3000 text "Nf3 B"
/// would otherwise read as SEND_BRD).
const CLOCK_MESSAGE: u8 = 0x2b;
/// The longest clock command (the DGT 3000's text).
const MAX_CLOCK_FRAME: usize = 16;

/// What the simulated DGT board says about itself.
const DGT_VERSION: (u8, u8) = (1, 10);
const DGT_SERIAL: &str = "00042";

/// DGT's binary protocol (`protocol = "dgt"`).
#[derive(Debug, Clone, Copy)]
pub struct Dgt;

impl BoardProtocol for Dgt {
    fn name(&self) -> &'static str {
        "dgt"
    }

    fn title(&self) -> &'static str {
        "DGT"
    }

    fn check_sensing(&self, sensing: Sensing) -> Result<(), &'static str> {
        match sensing {
            Sensing::Identity => Ok(()),
            Sensing::Occupancy => Err("a DGT board identifies pieces: use sensing = \"identity\""),
        }
    }

    fn carries_clock(&self) -> bool {
        true
    }

    fn sweep_order(&self) -> Option<fn(Square) -> u8> {
        Some(dgt::square_to_field)
    }

    fn link(&self, clock: bool) -> Box<dyn LinkCodec> {
        Box::new(DgtLink {
            clock,
            decoder: Decoder::new(),
            version: None,
            serial: None,
            skipped_reported: 0,
        })
    }

    fn board(&self) -> Box<dyn BoardSide> {
        Box::new(DgtBoard::default())
    }

    fn noise(&self, pick: u64) -> Vec<u8> {
        match pick % 4 {
            // Line noise: bytes with bit 7 clear belong to no message and are skipped.
            0 => (0..1 + pick % 7)
                .map(|i| ((pick >> (8 * (i % 8))) & 0x7f) as u8)
                .collect(),
            // A message start whose rest was lost: the next real message cuts it off.
            1 => vec![0x8e, 0x00],
            // A well-framed message of an id no board sends.
            2 => vec![0x90, 0x00, 0x05, 0x01, 0x02],
            // A field update with a DGT result piece (not a chess piece): rejected.
            _ => vec![0x8e, 0x00, 0x05, 0x1b, 0x0e],
        }
    }
}

/// The host's side of a connection to a DGT board.
#[derive(Debug, Clone)]
struct DgtLink {
    /// A clock is attached: ask for updates that include its messages.
    clock: bool,
    decoder: Decoder,
    /// The board's own words about itself, the first it gave.
    version: Option<String>,
    serial: Option<String>,
    /// Bytes outside any message already reported.
    skipped_reported: u64,
}

impl DgtLink {
    fn update_command(&self) -> Command {
        if self.clock {
            Command::SendUpdateNice
        } else {
            Command::SendUpdateBoard
        }
    }

    fn message(&mut self, msg: Message) -> Vec<Heard> {
        match msg {
            Message::BoardDump(_) | Message::FieldUpdate { .. } => {
                // In the board's own numbering: the session applies the orientation.
                dgt::to_sensor_events(&msg, Orientation::Normal)
                    .into_iter()
                    .map(Heard::Sensor)
                    .collect()
            }
            Message::Clock(clock) => vec![Heard::Clock(clock)],
            Message::Version { major, minor } => {
                self.version
                    .get_or_insert_with(|| format!("{major}.{minor:02}"));
                vec![Heard::Alive]
            }
            Message::SerialNr(s) | Message::LongSerialNr(s) => {
                self.serial.get_or_insert(s);
                vec![Heard::Alive]
            }
            Message::Unknown { id, len } => {
                debug!(id, len, "unknown DGT message skipped");
                vec![Heard::Unknown(format!(
                    "DGT message 0x{id:02x} of {len} bytes"
                ))]
            }
        }
    }
}

impl LinkCodec for DgtLink {
    fn greeting(&self) -> Vec<u8> {
        // Four bytes: well inside the board's small command buffer (about 10 bytes).
        vec![
            Command::SendVersion.byte(),
            Command::ReturnSerialNr.byte(),
            self.update_command().byte(),
            Command::SendBoard.byte(),
        ]
    }

    fn snapshot_request(&self) -> Vec<u8> {
        vec![Command::SendBoard.byte()]
    }

    fn keepalive(&self) -> Vec<u8> {
        vec![Command::ReturnSerialNr.byte()]
    }

    fn received(&mut self, bytes: &[u8]) -> Vec<Heard> {
        self.decoder.push(bytes);
        let mut out = Vec::new();
        while let Some(result) = self.decoder.next() {
            match result {
                Ok(msg) => out.extend(self.message(msg)),
                Err(err) => out.push(Heard::Rejected(err.to_string())),
            }
        }
        let skipped = self.decoder.skipped_bytes();
        if skipped > self.skipped_reported {
            out.push(Heard::Garbage(skipped - self.skipped_reported));
            self.skipped_reported = skipped;
        }
        out
    }

    fn describe(&self, orientation: Orientation, learned: &str) -> String {
        let mut info = String::from("DGT board");
        if let Some(v) = &self.version {
            info.push_str(&format!(", firmware {v}"));
        }
        if let Some(s) = &self.serial {
            info.push_str(&format!(", serial number {s}"));
        }
        info.push_str(&format!(", orientation {} ({learned})", orientation.name()));
        info
    }
}

/// A simulated DGT board's side of the line.
#[derive(Debug, Clone, Default)]
struct DgtBoard {
    /// Field updates (and the clock's messages) are sent only after the host asked for them.
    updates: bool,
    /// A clock command still arriving (its bytes from 0x2b on).
    clock_frame: Vec<u8>,
}

impl DgtBoard {
    fn command(&mut self, cmd: Command) -> Option<Asked> {
        let msg = match cmd {
            Command::Reset => {
                self.updates = false;
                return None;
            }
            Command::SendBoard => return Some(Asked::Reading),
            Command::SendUpdate | Command::SendUpdateBoard | Command::SendUpdateNice => {
                self.updates = true;
                return None;
            }
            Command::ReturnSerialNr => Message::SerialNr(DGT_SERIAL.into()),
            Command::SendVersion => Message::Version {
                major: DGT_VERSION.0,
                minor: DGT_VERSION.1,
            },
            Command::SendClock => return Some(Asked::ClockReading),
        };
        Some(Asked::Answer(dgt::encode_message(&msg)))
    }

    /// A byte of a clock command: the command once whole (or as long as one can be).
    fn clock_byte(&mut self, b: u8) -> Option<Asked> {
        self.clock_frame.push(b);
        let whole = self.clock_frame.len() >= 2
            && self.clock_frame.len() >= usize::from(self.clock_frame[1]) + 2;
        if !whole && self.clock_frame.len() < MAX_CLOCK_FRAME {
            return None;
        }
        Some(Asked::ClockCommand(std::mem::take(&mut self.clock_frame)))
    }
}

impl BoardSide for DgtBoard {
    /// A DGT board powered over USB starts idle in bus mode: it says nothing on its own.
    fn power_up(&mut self) -> Vec<Vec<u8>> {
        self.updates = false;
        self.clock_frame.clear();
        Vec::new()
    }

    fn host_bytes(&mut self, bytes: &[u8]) -> Vec<Asked> {
        let mut out = Vec::new();
        for &b in bytes {
            if !self.clock_frame.is_empty() || b == CLOCK_MESSAGE {
                out.extend(self.clock_byte(b));
                continue;
            }
            match Command::from_byte(b) {
                Some(cmd) => out.extend(self.command(cmd)),
                None => debug!(
                    byte = b,
                    "the simulated DGT board ignores an unknown command byte"
                ),
            }
        }
        out
    }

    fn reporting(&self) -> bool {
        self.updates
    }

    fn reading(&self, found: &shakmaty::Board) -> Vec<u8> {
        dgt::encode_message(&Message::BoardDump(dgt::board_to_dump(
            found,
            Orientation::Normal,
        )))
    }

    fn change(&self, event: &SensorEvent) -> Option<Vec<u8>> {
        let (square, piece) = match event {
            SensorEvent::Lift { square } => (*square, None),
            SensorEvent::Place { square, piece } => (*square, *piece),
            SensorEvent::Snapshot(_) | SensorEvent::Button(_) => return None,
        };
        Some(dgt::encode_message(&Message::FieldUpdate {
            field: dgt::square_to_field(square),
            piece,
        }))
    }

    fn clock(&self, message: &ClockMessage) -> Option<Vec<u8>> {
        Some(dgt::encode_message(&Message::Clock(*message)))
    }
}
