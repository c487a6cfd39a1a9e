//! The seam between tactus and a board protocol: what every protocol must provide, and the one
//! place that knows which protocols there are.
//!
//! A protocol is one file under this folder implementing [`BoardProtocol`]: its capabilities
//! (what its boards can sense, whether they relay a DGT clock, whether they sweep their squares),
//! the host's side of a connection ([`LinkCodec`]: greeting, snapshot request, keep-alive, bytes
//! in to [`Heard`]) and a simulated board's side ([`BoardSide`]: host bytes in to [`Asked`],
//! readings and changes out as bytes). The wire format may live beside it (`board::dgt`,
//! `board::line`) or in the same file. Everything above the seam speaks only these types:
//! the link's session ([`super::session`]) keeps the handshake, keep-alive, orientation and clock
//! rules for every protocol; the profile ([`super::profile`]) asks the protocol what fits it; the
//! simulated board (`sim::board`) keeps the pieces, the clock and the sweep.
//!
//! Adding a protocol: its file here, a variant of [`Protocol`] (the word a profile names it by)
//! and its arm in [`Protocol::spec`], and a profile in `boards/`. Nothing outside this folder and
//! the codecs names a protocol (`tests/it/purity.rs` checks it); `boards/README.md` section 4
//! walks through it.
//!
//! Sans-IO like the codecs: nothing here opens a port, sleeps or reads the clock. Time belongs to
//! the session, which asks the codec only for bytes and meanings.

pub mod dgt;
pub mod line;

use std::fmt;

use serde::Deserialize;
use shakmaty::{Board, Square};

use super::{Sensing, SensorEvent, dgt::ClockMessage};

/// The protocol a board speaks, as a profile names it (`protocol = "dgt"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// DGT's binary protocol ([`super::dgt`], [`dgt`]).
    Dgt,
    /// tactus's line protocol for pegged boards ([`super::line`], [`line`]).
    Line,
}

impl Protocol {
    /// Every protocol, for tests and lists.
    pub const ALL: [Protocol; 2] = [Protocol::Dgt, Protocol::Line];

    /// What the protocol is and does. The only `match` on a protocol outside its own file: a new
    /// variant does not compile until it is given its implementation here.
    pub fn spec(self) -> &'static dyn BoardProtocol {
        match self {
            Protocol::Dgt => &dgt::Dgt,
            Protocol::Line => &line::Line,
        }
    }
}

/// A protocol: its capabilities, and its codecs for either end of the line. One value per
/// protocol, with no state of its own; the codecs it makes hold a connection's or a board's state.
pub trait BoardProtocol: fmt::Debug + Sync {
    /// The word a profile names it by (`protocol = "..."`).
    fn name(&self) -> &'static str;
    /// What people call it, in the reasons a board is given up ("does it speak the DGT
    /// protocol?").
    fn title(&self) -> &'static str;
    /// Whether its boards can report `sensing`; `Err` says why not and what to write instead
    /// (the profile's error on `sensing`).
    fn check_sensing(&self, sensing: Sensing) -> Result<(), &'static str>;
    /// Whether a DGT clock can be plugged into its boards, its messages relayed both ways
    /// ([`super::dgt_clock`]); a profile may say `clock.attached` only then.
    fn carries_clock(&self) -> bool {
        false
    }
    /// The order in which its boards sample their squares, if they sample them one after another
    /// in a sweep rather than report each change as it happens: a square in the board's own
    /// numbering to its place in the sweep (0..64). For the simulated board's timing.
    fn sweep_order(&self) -> Option<fn(Square) -> u8> {
        None
    }
    /// The host's side of a new connection; `clock`: a DGT clock is attached (only asked of a
    /// protocol that [carries one](BoardProtocol::carries_clock)).
    fn link(&self, clock: bool) -> Box<dyn LinkCodec>;
    /// A simulated board's side of the line, just made (not powered up yet).
    fn board(&self) -> Box<dyn BoardSide>;
    /// Line noise for the simulator: bytes that are no message and can never become one, chosen
    /// by `pick` (a random number), to be written before a real message. They test that noise is
    /// skipped and counted and that the messages around it still arrive.
    fn noise(&self, pick: u64) -> Vec<u8>;
}

/// What the bytes from a board meant, in order, for the session to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// A sensor event in the board's own numbering (the session applies the orientation). A
    /// [`SensorEvent::Snapshot`] is a full reading: the first completes the handshake; other
    /// events before it are superseded by it.
    Sensor(SensorEvent),
    /// A well-formed message that only shows the board is alive (a version, a serial number, a
    /// greeting); the codec keeps what it says for [`LinkCodec::describe`].
    Alive,
    /// A message of the DGT clock plugged into the board.
    Clock(ClockMessage),
    /// The board reports a fault of its own.
    Fault(String),
    /// A well-formed message the protocol does not define (newer firmware, a debug print),
    /// described for people.
    Unknown(String),
    /// A message that was framed but malformed, and was skipped: why. Not a sign of life.
    Rejected(String),
    /// This many bytes since the last report belonged to no message. Not a sign of life.
    Garbage(u64),
}

/// The host's side of one connection: what to send, and what the board's bytes mean. It keeps
/// only the framing and what the board said about itself; every rule that involves time or the
/// game (keep-alive, silence, orientation, which events count) is the session's.
pub trait LinkCodec: fmt::Debug + Send + CloneLinkCodec {
    /// Sent when the port opens, and again while the first full reading has not come (the
    /// board may not have been there yet). It must ask for a full reading.
    fn greeting(&self) -> Vec<u8>;
    /// Asks for a full reading.
    fn snapshot_request(&self) -> Vec<u8>;
    /// Asks for any answer at all, cheaply: a quiet board's sign of life.
    fn keepalive(&self) -> Vec<u8>;
    /// Bytes read from the port: what they meant, in order. Bytes of a message still arriving
    /// are kept for the next call.
    fn received(&mut self, bytes: &[u8]) -> Vec<Heard>;
    /// The board named for people once connected (what it said about itself), with how it
    /// lies: `orientation`, and how that was `learned` (from the profile, detected, assumed).
    fn describe(&self, orientation: super::Orientation, learned: &str) -> String;
}

/// A simulated board's side of the line: the host's bytes in, the board's messages out. It keeps
/// only the protocol's state (a command still arriving, whether changes are reported); the
/// pieces, the clock and the sweep are the simulated board's (`sim::board`), which hands them in.
pub trait BoardSide: fmt::Debug + Send + CloneBoardSide {
    /// The board was (re)connected: its protocol state starts afresh; what it sends on its own.
    fn power_up(&mut self) -> Vec<Vec<u8>>;
    /// Bytes from the host: what they ask for, in order. Bytes of a command still arriving are
    /// kept for the next call.
    fn host_bytes(&mut self, bytes: &[u8]) -> Vec<Asked>;
    /// Whether the board reports changes and its clock now (a DGT board only once the host has
    /// switched its updates on).
    fn reporting(&self) -> bool {
        true
    }
    /// A full reading of `found` (what the board's electronics found, in its own numbering), as
    /// the board sends it; a board that senses less reports less (occupancy only).
    fn reading(&self, found: &Board) -> Vec<u8>;
    /// A change in the board's own numbering as the board reports it, if the protocol has a
    /// message for it.
    fn change(&self, event: &SensorEvent) -> Option<Vec<u8>>;
    /// A message of the plugged-in clock as the board relays it (protocols that
    /// [carry a clock](BoardProtocol::carries_clock)).
    fn clock(&self, _message: &ClockMessage) -> Option<Vec<u8>> {
        None
    }
}

/// What the host asked a simulated board for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// The protocol answers this itself, from nothing but the protocol (a version, a serial
    /// number, a greeting, "unknown command"): these bytes.
    Answer(Vec<u8>),
    /// A full reading ([`BoardSide::reading`]).
    Reading,
    /// The plugged-in clock's reading ([`ClockMessage::NO_CLOCK`] without one).
    ClockReading,
    /// A whole command for the plugged-in clock, to be relayed to it (nothing without one).
    ClockCommand(Vec<u8>),
}

/// `Clone` for a boxed [`LinkCodec`] (a session is `Clone`); implemented for every `Clone` codec.
pub trait CloneLinkCodec {
    fn clone_box(&self) -> Box<dyn LinkCodec>;
}

impl<T: LinkCodec + Clone + 'static> CloneLinkCodec for T {
    fn clone_box(&self) -> Box<dyn LinkCodec> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn LinkCodec> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// `Clone` for a boxed [`BoardSide`] (a simulated board is `Clone`); implemented for every
/// `Clone` board side.
pub trait CloneBoardSide {
    fn clone_box(&self) -> Box<dyn BoardSide>;
}

impl<T: BoardSide + Clone + 'static> CloneBoardSide for T {
    fn clone_box(&self) -> Box<dyn BoardSide> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn BoardSide> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word a profile writes finds the protocol that gives that word as its name.
    #[test]
    fn every_protocol_is_named_by_the_word_a_profile_writes() {
        #[derive(Deserialize)]
        struct Named {
            protocol: Protocol,
        }
        for protocol in Protocol::ALL {
            let name = protocol.spec().name();
            let named: Named = toml::from_str(&format!("protocol = \"{name}\"")).unwrap();
            assert_eq!(named.protocol, protocol, "{name}");
        }
    }
}
