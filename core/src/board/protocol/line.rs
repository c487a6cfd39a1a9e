//! Pegged boards at the seam: the conversation of tactus's line protocol, over the wire codec in
//! [`crate::board::line`] (line framing, message syntax), as `boards/README.md` section 2
//! specifies it for people who build such a board.
//!
//! This file owns what the host sends a pegged board and what its lines count as, and what a
//! simulated pegged board answers:
//! - Greeting: `V` (the board answers `H <text>`), then `?` (it answers `S <occupancy>`).
//!   Keep-alive: `V`. Snapshot: `?`.
//! - A pegged board senses occupancy only, reports every change as it happens, carries no clock,
//!   and may have buttons (`B <n>`).
//! - The simulated board greets at power-up, answers `V` and `?`, and says `E unknown command`
//!   to anything else.

use tracing::debug;

use super::{Asked, BoardProtocol, BoardSide, Heard, LinkCodec};
use crate::board::{
    Orientation, Sensing, SensorEvent,
    line::{self, HostCommand, LineDecoder, LineMessage},
};

/// The simulated pegged board's greeting.
pub const LINE_FIRMWARE: &str = concat!("tactus-sim ", env!("CARGO_PKG_VERSION"));

/// Longest host command line the simulated board keeps; longer input is dropped.
const MAX_HOST_LINE: usize = 64;

/// The line protocol of pegged boards (`protocol = "line"`).
#[derive(Debug, Clone, Copy)]
pub struct Line;

impl BoardProtocol for Line {
    fn name(&self) -> &'static str {
        "line"
    }

    fn title(&self) -> &'static str {
        "pegged-board line"
    }

    fn check_sensing(&self, sensing: Sensing) -> Result<(), &'static str> {
        match sensing {
            Sensing::Occupancy => Ok(()),
            Sensing::Identity => {
                Err("the line protocol reports occupancy only: use sensing = \"occupancy\"")
            }
        }
    }

    fn link(&self, _clock: bool) -> Box<dyn LinkCodec> {
        Box::new(LineLink {
            decoder: LineDecoder::new(),
            hello: None,
        })
    }

    fn board(&self) -> Box<dyn BoardSide> {
        Box::new(LineBoard::default())
    }

    fn noise(&self, pick: u64) -> Vec<u8> {
        // Whole lines only: noise without a line end would glue onto the next real line.
        match pick % 5 {
            0 => b"\r\n".to_vec(),
            1 => b"# debug 17\r\n".to_vec(),
            2 => b"L z9\r\n".to_vec(),
            3 => b"S 12345\r\n".to_vec(),
            _ => {
                let mut long = vec![b'x'; line::MAX_LINE_LEN + 20];
                long.extend(b"\r\n");
                long
            }
        }
    }
}

/// The host's side of a connection to a pegged board.
#[derive(Debug, Clone)]
struct LineLink {
    decoder: LineDecoder,
    /// The board's latest greeting.
    hello: Option<String>,
}

impl LinkCodec for LineLink {
    fn greeting(&self) -> Vec<u8> {
        [
            HostCommand::Version.encode(),
            HostCommand::Snapshot.encode(),
        ]
        .concat()
    }

    fn snapshot_request(&self) -> Vec<u8> {
        HostCommand::Snapshot.encode().to_vec()
    }

    fn keepalive(&self) -> Vec<u8> {
        HostCommand::Version.encode().to_vec()
    }

    fn received(&mut self, bytes: &[u8]) -> Vec<Heard> {
        self.decoder.push(bytes);
        let mut out = Vec::new();
        while let Some(result) = self.decoder.next() {
            let msg = match result {
                Ok(msg) => msg,
                Err(err) => {
                    out.push(Heard::Rejected(err.to_string()));
                    continue;
                }
            };
            match msg {
                LineMessage::Snapshot(_)
                | LineMessage::Lift(_)
                | LineMessage::Place(_)
                | LineMessage::Button(_) => {
                    // In the board's own numbering: the session applies the orientation.
                    out.extend(
                        line::to_sensor_events(&msg, Orientation::Normal)
                            .into_iter()
                            .map(Heard::Sensor),
                    );
                }
                LineMessage::Hello(text) => {
                    self.hello = Some(text);
                    out.push(Heard::Alive);
                }
                LineMessage::BoardError(text) => out.push(Heard::Fault(text)),
                LineMessage::Unknown(text) => {
                    debug!(
                        text,
                        count = self.decoder.unknown_lines(),
                        "unknown line skipped"
                    );
                    out.push(Heard::Unknown(text));
                }
            }
        }
        out
    }

    /// A pegged board's orientation always comes from its profile (occupancy cannot tell it), so
    /// how it was learned is not worth saying.
    fn describe(&self, orientation: Orientation, _learned: &str) -> String {
        match &self.hello {
            Some(hello) => format!(
                "pegged board \"{hello}\", orientation {}",
                orientation.name()
            ),
            None => format!(
                "pegged board (no greeting), orientation {}",
                orientation.name()
            ),
        }
    }
}

/// A simulated pegged board's side of the line.
#[derive(Debug, Clone, Default)]
struct LineBoard {
    /// A host command line still arriving.
    host_line: Vec<u8>,
}

impl BoardSide for LineBoard {
    /// A pegged board greets when it is powered up.
    fn power_up(&mut self) -> Vec<Vec<u8>> {
        self.host_line.clear();
        vec![line::encode_message(&LineMessage::Hello(
            LINE_FIRMWARE.into(),
        ))]
    }

    fn host_bytes(&mut self, bytes: &[u8]) -> Vec<Asked> {
        let mut out = Vec::new();
        for &b in bytes {
            if b != b'\n' {
                if self.host_line.len() < MAX_HOST_LINE {
                    self.host_line.push(b);
                }
                continue;
            }
            let host_line = std::mem::take(&mut self.host_line);
            if host_line.trim_ascii().is_empty() {
                continue;
            }
            out.push(match HostCommand::from_line(&host_line) {
                Some(HostCommand::Version) => Asked::Answer(line::encode_message(
                    &LineMessage::Hello(LINE_FIRMWARE.into()),
                )),
                Some(HostCommand::Snapshot) => Asked::Reading,
                None => {
                    // The protocol's way to say "I do not know that command".
                    let text = format!(
                        "unknown command {:?}",
                        String::from_utf8_lossy(host_line.trim_ascii())
                    );
                    Asked::Answer(line::encode_message(&LineMessage::BoardError(text)))
                }
            });
        }
        out
    }

    fn reading(&self, found: &shakmaty::Board) -> Vec<u8> {
        // The pegged board senses only which apertures are occupied.
        line::encode_message(&LineMessage::Snapshot(found.occupied()))
    }

    fn change(&self, event: &SensorEvent) -> Option<Vec<u8>> {
        let msg = match event {
            SensorEvent::Lift { square } => LineMessage::Lift(*square),
            // The pegged board senses only that the aperture is occupied.
            SensorEvent::Place { square, .. } => LineMessage::Place(*square),
            SensorEvent::Button(n) => LineMessage::Button(*n),
            SensorEvent::Snapshot(_) => return None,
        };
        Some(line::encode_message(&msg))
    }
}
