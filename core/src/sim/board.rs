//! The simulated board, pure: the pieces that stand on a simulated sensor board, the clock that
//! may be plugged into it and the sweep that may sample its squares, garbage between messages, how
//! a simulated game and its hands' style are set, and wire times. The async loop that serves it on
//! a port and plays the game is the shell's (`sim::serve` in `tactus`).
//!
//! It knows no protocol: its side of the line (what the host's bytes ask, how a reading, a change
//! or a clock message is sent) is the protocol's [`BoardSide`], one per protocol under
//! `board::protocol`. It hands the protocol what the board's electronics found, in the board's own
//! numbering (the board may lie the other way round).
//!
//! It must not recognise moves or judge anything: it reports what the hands did, as a board
//! would.

use std::time::Duration;

use anyhow::{Result, bail};
use shakmaty::{Board, Chess, Move, Square};

use super::Rng;
use super::clock::EmulatedClock;
use super::script::{CaptureOrder, CastlingOrder, PhysicalBoard, Style};
use super::sweep::Sweep;
use crate::board::{
    Orientation, Sensing, SensorEvent,
    dgt::ClockMessage,
    profile::{Profile, Protocol},
    protocol::{Asked, BoardProtocol, BoardSide},
};
use crate::rules::Millis;

/// In update mode a board with a clock reports it at least once a second.
const CLOCK_REPORT_MS: Millis = 1000;

/// Bits on the wire per byte for 8N1 framing: start bit, eight data bits, stop bit. Other framings
/// are computed from the profile.
pub const START_BITS: u32 = 1;

/// The simulated board: the pieces that stand on it and its side of the protocol. Pure: bytes from
/// the host in, messages to send out.
#[derive(Debug, Clone)]
pub struct SimBoard {
    protocol: &'static dyn BoardProtocol,
    /// The protocol's side of the line: what the host asks, how the board answers.
    side: Box<dyn BoardSide>,
    sensing: Sensing,
    /// How the board lies: a board set up the other way round numbers its squares from White's
    /// h8.
    orientation: Orientation,
    physical: PhysicalBoard,
    /// Full readings sent (answers to SEND_BRD or `?`).
    reads: u64,
    /// The clock plugged into the board, if one is (a protocol that carries one).
    clock: Option<EmulatedClock>,
    /// The time the host's bytes arrive at, for the clock (see [`SimBoard::at`]).
    now: Millis,
    /// When the clock was last reported on its own.
    clock_reported: Option<Millis>,
    /// The board samples its squares in a sweep and reports what it found (else every change at
    /// once; a protocol whose boards sweep).
    sampling: Option<Sampling>,
}

/// A sweeping board's electronics: what they have found, and when each changed square is next
/// sampled.
#[derive(Debug, Clone)]
struct Sampling {
    sweep: Sweep,
    /// A square in the board's own numbering to its place in the sweep.
    order: fn(Square) -> u8,
    found: Board,
    due: [Option<Millis>; 64],
}

impl SimBoard {
    pub fn new(profile: &Profile, board: Board, orientation: Orientation) -> SimBoard {
        SimBoard::speaking(profile.protocol.spec(), profile.sensing, board, orientation)
    }

    /// The same, speaking `protocol` whatever a profile names: the seam itself, for a protocol no
    /// profile can name yet (a test's).
    pub fn speaking(
        protocol: &'static dyn BoardProtocol,
        sensing: Sensing,
        board: Board,
        orientation: Orientation,
    ) -> SimBoard {
        SimBoard {
            protocol,
            side: protocol.board(),
            sensing,
            orientation,
            physical: PhysicalBoard::new(board),
            reads: 0,
            clock: None,
            now: 0,
            clock_reported: None,
            sampling: None,
        }
    }

    /// The same board sampling its squares in `sweep` (a board whose protocol sweeps only): a
    /// change is reported when its square is next sampled, and a reading holds what has been
    /// found.
    pub fn with_sweep(mut self, sweep: Sweep) -> SimBoard {
        if let Some(order) = self.protocol.sweep_order() {
            self.sampling = Some(Sampling {
                sweep,
                order,
                found: self.physical.board.clone(),
                due: [None; 64],
            });
        }
        self
    }

    /// When the sweep next finds a change, if one waits to be found.
    pub fn sample_due(&self) -> Option<Millis> {
        self.sampling.as_ref()?.due.iter().flatten().min().copied()
    }

    /// Time passed to `now` (see [`SimBoard::at`]): the squares sampled by then, in the order the
    /// sweep reached them; the reports of those that changed (when the board reports).
    pub fn sample(&mut self, now: Millis) -> Vec<Vec<u8>> {
        self.now = self.now.max(now);
        let Some(s) = &mut self.sampling else {
            return Vec::new();
        };
        let mut reached: Vec<(Millis, Square)> = Square::ALL
            .into_iter()
            .filter_map(|sq| {
                s.due[usize::from(sq)]
                    .filter(|&t| t <= now)
                    .map(|t| (t, sq))
            })
            .collect();
        reached.sort_unstable();
        let mut out = Vec::new();
        for (_, sq) in reached {
            s.due[usize::from(sq)] = None;
            let piece = self.physical.board.piece_at(sq);
            if s.found.piece_at(sq) == piece {
                // Changed and changed back between two samples: never seen.
                continue;
            }
            let change = match piece {
                Some(p) => {
                    s.found.set_piece_at(sq, p);
                    SensorEvent::Place {
                        square: sq,
                        piece: Some(p),
                    }
                }
                None => {
                    s.found.discard_piece_at(sq);
                    SensorEvent::Lift { square: sq }
                }
            };
            if self.side.reporting() {
                out.extend(self.side.change(&self.orientation.apply_event(change)));
            }
        }
        out
    }

    /// What the board's electronics have found (what a reading holds): what stands on it, once
    /// the sweep has reached every change.
    fn found(&self) -> &Board {
        match &self.sampling {
            Some(s) => &s.found,
            None => &self.physical.board,
        }
    }

    /// The same board with a DGT clock plugged into it (a board whose protocol carries one only).
    pub fn with_clock(mut self, clock: EmulatedClock) -> SimBoard {
        if self.protocol.carries_clock() {
            self.clock = Some(clock);
        }
        self
    }

    /// The clock plugged into the board.
    pub fn clock(&self) -> Option<&EmulatedClock> {
        self.clock.as_ref()
    }

    /// The clock, for the hands (a press of its lever) and tests (a fault).
    pub fn clock_mut(&mut self) -> Option<&mut EmulatedClock> {
        self.clock.as_mut()
    }

    /// Time passed to `now`: what the board sends on its own then (its clock's times, once a
    /// second when it reports). Bytes from the host are taken at the last such time.
    pub fn at(&mut self, now: Millis) -> Vec<Vec<u8>> {
        self.now = self.now.max(now);
        let Some(clock) = &self.clock else {
            return Vec::new();
        };
        if !self.side.reporting()
            || self
                .clock_reported
                .is_some_and(|t| now < t + CLOCK_REPORT_MS)
        {
            return Vec::new();
        }
        self.clock_reported = Some(now);
        self.side.clock(&clock.reading(now)).into_iter().collect()
    }

    /// The lever was pressed: a board with a clock reports it at once.
    pub fn lever_report(&mut self) -> Option<Vec<u8>> {
        let clock = self.clock.as_ref()?;
        if !self.side.reporting() {
            return None;
        }
        self.side.clock(&clock.reading(self.now))
    }

    /// What stands on the board.
    pub fn board(&self) -> &Board {
        &self.physical.board
    }

    /// How many full readings the host has asked for and received.
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// The board was (re)connected: its protocol starts afresh (a DGT board powered over USB
    /// starts idle in bus mode; a pegged board greets). Returns what the board sends on its own.
    pub fn power_up(&mut self) -> Vec<Vec<u8>> {
        self.side.power_up()
    }

    /// Bytes from the host; the answers, one message per element.
    pub fn host_bytes(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for asked in self.side.host_bytes(bytes) {
            match asked {
                Asked::Answer(bytes) => out.push(bytes),
                Asked::Reading => {
                    self.reads += 1;
                    // In the board's own numbering: it may lie the other way round.
                    let found = self.orientation.apply_board(self.found());
                    out.push(self.side.reading(&found));
                }
                Asked::ClockReading => {
                    let reading = match &self.clock {
                        Some(clock) => clock.reading(self.now),
                        // No clock: say so, as a board without one does.
                        None => ClockMessage::NO_CLOCK,
                    };
                    out.extend(self.side.clock(&reading));
                }
                Asked::ClockCommand(frame) => {
                    let now = self.now;
                    if let Some(clock) = &mut self.clock {
                        for ack in clock.receive(&frame, now) {
                            out.extend(self.side.clock(&ack));
                        }
                    }
                }
            }
        }
        out
    }

    /// The hands did `event`: change the board and return what the board reports, if anything
    /// (a DGT board reports only in update mode).
    pub fn act(&mut self, event: &SensorEvent) -> Option<Vec<u8>> {
        self.physical.apply(event);
        if let Some(s) = &mut self.sampling {
            // Found when the sweep next reaches its square ([`SimBoard::sample`]).
            if let SensorEvent::Lift { square } | SensorEvent::Place { square, .. } = event {
                let place = (s.order)(self.orientation.apply(*square));
                let due = &mut s.due[usize::from(*square)];
                *due = Some(due.unwrap_or(s.sweep.next_sample(place, self.now)));
            }
            return None;
        }
        if !self.side.reporting() {
            return None;
        }
        self.side
            .change(&self.orientation.apply_event(event.clone()))
    }

    /// Whether this board identifies pieces.
    pub fn sensing(&self) -> Sensing {
        self.sensing
    }
}

/// Bytes that are no message and can never become one, for the garbage option: they test that
/// noise is skipped and counted, and that the real messages around it still arrive. (Random
/// bytes could by chance form a valid frame, which is then not garbage but a message.)
#[derive(Debug, Clone)]
pub struct Garbage {
    rng: Rng,
}

impl Garbage {
    pub fn new(seed: u64) -> Garbage {
        Garbage {
            rng: Rng::new(seed),
        }
    }

    /// Whether to inject before the next message (about one message in three).
    pub fn now(&mut self) -> bool {
        self.rng.next_u64().is_multiple_of(3)
    }

    /// One piece of noise for `protocol`, to be written before a real message.
    pub fn bytes(&mut self, protocol: Protocol) -> Vec<u8> {
        protocol.spec().noise(self.rng.next_u64())
    }
}

/// Paces writes to a baud rate: a pseudo-terminal passes bytes at memory speed, a UART does not.
/// How long `bytes` take on a line of `baud` with `bits` per byte.
pub fn wire_time(bytes: u64, bits: u32, baud: u32) -> Duration {
    Duration::from_nanos(bytes * u64::from(bits) * 1_000_000_000 / u64::from(baud.max(1)))
}

/// A game for the simulator: where it starts and the moves to play.
#[derive(Debug, Clone)]
pub struct SimGame {
    pub start: Chess,
    pub moves: Vec<Move>,
}

/// How the simulator plays.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub profile: Profile,
    pub style: Style,
    /// Pause after each move before the next one starts. On a board whose profile confirms moves
    /// with a snapshot (DGT), the player also waits until the host has read the board after his
    /// move (as a player waits for the board before pressing the clock), at most the settle time
    /// plus two seconds; otherwise the next move would interrupt the settle time and neither move
    /// would count.
    pub move_pause: Duration,
    /// Extra pause after a promotion on an occupancy board, for announcing the piece (the host
    /// reads it from its user, e.g. `board-test`'s standard input).
    pub announce_pause: Duration,
    /// Inject garbage between messages.
    pub garbage: bool,
    pub seed: u64,
    /// Close the port after this many moves ...
    pub disconnect_after: Option<usize>,
    /// ... for this long ...
    pub disconnect_for: Duration,
    /// ... and make the next move while the board is away (the host must find it from its
    /// snapshot after reconnecting).
    pub move_while_away: bool,
    /// How the simulated board lies (a DGT board set up the other way round).
    pub orientation: Orientation,
    /// After the last move, keep answering the host this long (`None`: until cancelled).
    pub linger: Option<Duration>,
    /// A DGT board that samples its squares in this sweep (`None`: every change reported at
    /// once).
    pub sweep: Option<Sweep>,
}

impl SimConfig {
    /// Defaults for a profile: its usual style, half a second between moves.
    pub fn new(profile: Profile) -> SimConfig {
        let style = default_style(&profile);
        SimConfig {
            profile,
            style,
            move_pause: Duration::from_millis(500),
            announce_pause: Duration::from_millis(1500),
            garbage: false,
            seed: 0x5eed,
            disconnect_after: None,
            disconnect_for: Duration::from_millis(3000),
            move_while_away: false,
            orientation: Orientation::Normal,
            linger: None,
            sweep: None,
        }
    }

    /// Combinations that cannot be played on this board.
    pub fn check(&self) -> Result<()> {
        if self.profile.sensing == Sensing::Occupancy && self.style.capture == CaptureOrder::Replace
        {
            bail!(
                "capture order \"replace\" (one-handed, the square never empty) needs a board that \
                 identifies pieces; on the {} board every capture removes the captured piece first \
                 or after lifting the mover (use captured-first or mover-first)",
                self.profile.name
            );
        }
        if self.profile.sensing == Sensing::Occupancy && self.orientation != Orientation::Normal {
            bail!(
                "an occupancy board cannot be simulated reversed: its orientation is fixed by wiring"
            );
        }
        if let Some(sweep) = self.sweep {
            if self.profile.protocol.spec().sweep_order().is_none() {
                bail!(
                    "only a DGT board sweeps its squares; the {} board reports every change at once",
                    self.profile.name
                );
            }
            if sweep.period_ms == 0 {
                bail!(
                    "a sweep of 0 ms: give how long the board takes to sample its 64 squares (200-250 ms on a DGT board)"
                );
            }
        }
        Ok(())
    }
}

/// The usual way of moving on a board of this profile.
pub fn default_style(profile: &Profile) -> Style {
    match profile.sensing {
        Sensing::Identity => Style::DGT,
        Sensing::Occupancy => Style::TACTILE,
    }
}

/// The words `--style` accepts, comma-separated, each changing one aspect of `base`.
pub const STYLE_WORDS: &str = "captured-first, mover-first, replace (capture order); king-first, rook-first \
     (castling order); ep-captured-first, ep-captured-last (en passant); bounce, reorder, slide (sensor \
     effects); calm (no bounce, reorder or slide)";

/// Apply a `--style` list such as `mover-first,rook-first,bounce` to `base`.
pub fn parse_style(base: Style, spec: &str) -> Result<Style> {
    let mut style = base;
    for word in spec.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "captured-first" => style.capture = CaptureOrder::CapturedFirst,
            "mover-first" => style.capture = CaptureOrder::MoverFirst,
            "replace" => style.capture = CaptureOrder::Replace,
            "king-first" => style.castling = CastlingOrder::KingFirst,
            "rook-first" => style.castling = CastlingOrder::RookFirst,
            "ep-captured-first" => style.ep_captured_first = true,
            "ep-captured-last" => style.ep_captured_first = false,
            "bounce" => style.bounce = true,
            "reorder" => style.reorder = true,
            "slide" => style.slide = true,
            "calm" => {
                style.bounce = false;
                style.reorder = false;
                style.slide = false;
            }
            other => bail!("unknown style {other:?}; the styles are: {STYLE_WORDS}"),
        }
    }
    Ok(style)
}

#[cfg(test)]
mod tests {
    use shakmaty::{Bitboard, Color};

    use super::*;
    use crate::board::{
        Sensed,
        dgt::{self, Message},
        profile::ProfileSet,
        protocol::{Heard, line::LINE_FIRMWARE},
    };
    use crate::sim::sweep::Sweep;

    fn profile(name: &str) -> Profile {
        ProfileSet::builtin().get(name).unwrap().clone()
    }

    impl SimBoard {
        /// What an occupancy reading holds: the occupied squares in the board's own numbering.
        fn occupancy(&self) -> Bitboard {
            self.orientation.apply_board(self.found()).occupied()
        }
    }

    #[test]
    fn the_dgt_board_answers_like_the_reference_and_stays_idle_until_asked() {
        let mut b = SimBoard::new(&profile("dgt"), Board::new(), Orientation::Normal);
        assert!(b.power_up().is_empty());
        let lift = SensorEvent::Lift { square: Square::E2 };
        assert_eq!(b.act(&lift), None, "idle: no updates");
        let out = b.host_bytes(&[0x4d, 0x45, 0x44, 0x42, 0x4e]);
        assert_eq!(
            out.len(),
            3,
            "version, serial number, dump; nothing for STARTBOOTLOADER"
        );
        assert_eq!(out[0], [0x93, 0x00, 0x05, 1, 10]);
        assert_eq!(&out[1][..3], [0x91, 0x00, 0x08]);
        let mut dec = dgt::Decoder::new();
        dec.push(&out[2]);
        let Some(Ok(Message::BoardDump(dump))) = dec.next() else {
            panic!()
        };
        assert_eq!(
            dgt::dump_to_board(&dump, Orientation::Normal)
                .occupied()
                .count(),
            31,
            "e2 was lifted"
        );
        assert_eq!(b.reads(), 1);
        let place = SensorEvent::Place {
            square: Square::E4,
            piece: Some(Color::White.pawn()),
        };
        assert_eq!(b.act(&place), Some(vec![0x8e, 0x00, 0x05, 0x24, 0x01]));
    }

    /// Issue 22: clock commands are framed, not read byte by byte as board commands (the text
    /// "Nf3 Bb5" holds SEND_BRD's 0x42), and a plugged-in clock answers them and reports itself.
    #[test]
    fn clock_commands_go_to_the_clock_and_its_times_come_back() {
        use crate::board::dgt_clock::{ClockAck, ClockCommand, ClockSide};
        let mut plain = SimBoard::new(&profile("dgt"), Board::new(), Orientation::Normal);
        plain.host_bytes(&[0x4b]);
        let text = ClockCommand::text("Bb5 Bxc", 0).encode();
        assert!(
            plain.host_bytes(&text).is_empty(),
            "no dump, no ACK without a clock"
        );
        let mut b = SimBoard::new(&profile("dgt"), Board::new(), Orientation::Normal)
            .with_clock(EmulatedClock::new());
        b.host_bytes(&[0x4b]);
        b.at(1000);
        let set = ClockCommand::SetAndRun {
            left_s: 60,
            right_s: 90,
            running: Some(ClockSide::Right),
        }
        .encode();
        // Split over two writes, as a line may deliver it.
        assert!(b.host_bytes(&set[..5]).is_empty());
        let out = b.host_bytes(&set[5..]);
        let mut dec = dgt::Decoder::new();
        dec.push(&out.concat());
        let Some(Ok(Message::Clock(ClockMessage::Ack { raw }))) = dec.next() else {
            panic!("{out:?}")
        };
        assert!(ClockAck::from_raw(&raw).accepted);
        assert_eq!(b.clock().unwrap().shows(11_000), (60_000, 80_000));
        let report = b.at(11_000);
        dec.push(&report.concat());
        let Some(Ok(Message::Clock(ClockMessage::Times {
            left_ms, right_ms, ..
        }))) = dec.next()
        else {
            panic!("{report:?}")
        };
        assert_eq!((left_ms, right_ms), (60_000, 80_000));
        assert!(b.at(11_500).is_empty(), "once a second");
        b.clock_mut().unwrap().press(ClockSide::Right);
        assert!(b.lever_report().is_some());
    }

    #[test]
    fn a_reversed_dgt_board_numbers_from_whites_h1() {
        let mut b = SimBoard::new(&profile("dgt"), Board::new(), Orientation::Reversed);
        b.host_bytes(&[0x44]);
        // White's e2 is the board's d7: field 11.
        assert_eq!(
            b.act(&SensorEvent::Lift { square: Square::E2 }),
            Some(vec![0x8e, 0x00, 0x05, 11, 0x00])
        );
    }

    #[test]
    fn the_pegged_board_answers_v_and_query_and_reports_occupancy_only() {
        let mut b = SimBoard::new(&profile("pegged-line"), Board::new(), Orientation::Normal);
        assert_eq!(
            b.power_up(),
            vec![format!("H {LINE_FIRMWARE}\r\n").into_bytes()]
        );
        let out = b.host_bytes(b"V\r\n?");
        assert_eq!(out, vec![format!("H {LINE_FIRMWARE}\r\n").into_bytes()]);
        let out = b.host_bytes(b"\n\nX\n");
        assert_eq!(out[0], b"S FFFF00000000FFFF\r\n");
        assert!(out[1].starts_with(b"E unknown command"));
        let place = SensorEvent::Place {
            square: Square::E8,
            piece: Some(Color::White.knight()),
        };
        assert_eq!(b.act(&place), Some(b"P e8\r\n".to_vec()));
    }

    #[test]
    fn garbage_is_never_a_message() {
        // As the simulator injects it: one piece of noise before each real message.
        for (protocol, real) in [
            (Protocol::Dgt, vec![0x8e, 0x00, 0x05, 0x34, 0x00]),
            (Protocol::Line, b"L e2\r\n".to_vec()),
        ] {
            let mut g = Garbage::new(7);
            let mut bytes = Vec::new();
            for _ in 0..200 {
                bytes.extend(g.bytes(protocol));
                bytes.extend(&real);
            }
            // Read as the host's side of the protocol reads them.
            let events: Vec<SensorEvent> = protocol
                .spec()
                .link(false)
                .received(&bytes)
                .into_iter()
                .filter_map(|heard| match heard {
                    Heard::Sensor(event) => Some(event),
                    _ => None,
                })
                .collect();
            assert_eq!(
                events,
                vec![SensorEvent::Lift { square: Square::E2 }; 200],
                "{protocol:?}"
            );
        }
    }

    #[test]
    fn styles_parse_and_unknown_words_list_the_known_ones() {
        let s = parse_style(Style::DGT, "mover-first, rook-first,slide,bounce").unwrap();
        assert_eq!(
            (s.capture, s.castling, s.slide, s.bounce),
            (
                CaptureOrder::MoverFirst,
                CastlingOrder::RookFirst,
                true,
                true
            )
        );
        assert!(!parse_style(s, "calm").unwrap().slide);
        let err = parse_style(Style::DGT, "sideways").unwrap_err().to_string();
        assert!(
            err.contains("sideways") && err.contains("rook-first"),
            "{err}"
        );
    }

    /// The whole simulator on a pty pair: it waits for the host's first reading, plays its
    /// moves as line messages, and stops when cancelled.
    #[test]
    fn wire_times() {
        // "P e4\r\n" at 115200 8N1 and a DGT field update at 9600.
        assert_eq!(wire_time(6, 10, 115_200), Duration::from_nanos(520_833));
        assert_eq!(wire_time(5, 10, 9600), Duration::from_nanos(5_208_333));
    }

    #[test]
    fn impossible_styles_are_refused() {
        let mut cfg = SimConfig::new(profile("pegged-line"));
        cfg.style.capture = CaptureOrder::Replace;
        assert!(
            cfg.check()
                .unwrap_err()
                .to_string()
                .contains("identifies pieces")
        );
        let cfg = SimConfig::new(profile("dgt"));
        assert!(cfg.check().is_ok());
    }

    #[test]
    fn physical_snapshot_matches_what_the_board_reports() {
        let mut b = SimBoard::new(&profile("pegged-line"), Board::new(), Orientation::Normal);
        b.act(&SensorEvent::Lift { square: Square::G1 });
        assert_eq!(b.occupancy(), Bitboard(0xFFFF_0000_0000_FFBF));
        assert_eq!(
            PhysicalBoard::new(b.board().clone()).snapshot(Sensing::Occupancy),
            Sensed::Occupancy(Bitboard(0xFFFF_0000_0000_FFBF))
        );
    }

    /// A sweeping DGT board reports a change when the sweep reaches its field: a move's halves in
    /// the sweep's order, a touch put back before its field came round never, and a dump holds
    /// only what has been found.
    #[test]
    fn a_sweeping_dgt_board_reports_what_its_sweep_has_found() {
        let sweep = Sweep {
            period_ms: 256,
            offset_ms: 0,
        };
        let mut b =
            SimBoard::new(&profile("dgt"), Board::new(), Orientation::Normal).with_sweep(sweep);
        b.host_bytes(&[0x44]);
        b.sample(0);
        let decode = |msgs: Vec<Vec<u8>>| -> Vec<Message> {
            let mut dec = dgt::Decoder::new();
            msgs.iter().for_each(|m| dec.push(m));
            std::iter::from_fn(|| dec.next())
                .map(|m| m.unwrap())
                .collect()
        };
        // e2 is field 52 (sampled at 208 of 256), e4 field 36 (at 144).
        b.sample(10);
        assert_eq!(b.act(&SensorEvent::Lift { square: Square::E2 }), None);
        let pawn = Board::new().piece_at(Square::E2);
        b.act(&SensorEvent::Place {
            square: Square::E4,
            piece: pawn,
        });
        // A touch of g1 put back before the sweep reaches field 62 (at 248).
        b.act(&SensorEvent::Lift { square: Square::G1 });
        assert_eq!(b.sample_due(), Some(144));
        b.act(&SensorEvent::Place {
            square: Square::G1,
            piece: Board::new().piece_at(Square::G1),
        });
        assert!(b.sample(143).is_empty());
        // The placement first: a dump then shows the pawn on both squares.
        assert_eq!(
            decode(b.sample(144)),
            [Message::FieldUpdate {
                field: 36,
                piece: pawn
            }]
        );
        let Some(Message::BoardDump(dump)) = decode(b.host_bytes(&[0x42])).pop() else {
            panic!("a dump")
        };
        let found = dgt::dump_to_board(&dump, Orientation::Normal);
        assert_eq!(found.piece_at(Square::E2), pawn);
        assert_eq!(found.piece_at(Square::E4), pawn);
        assert_eq!(
            decode(b.sample(300)),
            [Message::FieldUpdate {
                field: 52,
                piece: None
            }],
            "the lift, and nothing of the touch"
        );
        assert_eq!(b.sample_due(), None);
    }
}
