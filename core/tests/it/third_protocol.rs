//! What a third board protocol costs (issue 36): this file. A toy protocol, written only against
//! the public seam (`board::protocol`): its capabilities ([`BoardProtocol`]), the host's side of a
//! connection ([`LinkCodec`]) and a simulated board's side ([`BoardSide`]). The link's session and
//! the simulated board, unchanged, then talk it to each other: handshake, orientation, moves,
//! keep-alive, a malformed message, and a board that falls silent. Naming it in a profile would
//! add a variant of `Protocol` and its arm in `Protocol::spec`, and a file in `boards/`.
//!
//! The toy protocol, one message per line: the host sends `R` (a full reading) and `P` (are you
//! there); the board answers `#<16 hex digits>` (the occupied squares, bit 0 = a1) and `ok`, and
//! reports `-e2` (lifted) and `+e4` (placed) as they happen.

use shakmaty::{Bitboard, Board, Square};
use tactus_core::{
    board::{
        Orientation, Sensed, Sensing, SensorEvent,
        profile::{OrientationMode, ProfileSet},
        protocol::{Asked, BoardProtocol, BoardSide, Heard, LinkCodec},
        session::{Action, LinkEvent, Session},
    },
    rules::Millis,
    sim::board::SimBoard,
};

#[derive(Debug)]
struct Toy;

impl BoardProtocol for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }
    fn title(&self) -> &'static str {
        "toy"
    }
    fn check_sensing(&self, sensing: Sensing) -> Result<(), &'static str> {
        match sensing {
            Sensing::Occupancy => Ok(()),
            Sensing::Identity => Err("a toy board senses occupancy only"),
        }
    }
    fn link(&self, _clock: bool) -> Box<dyn LinkCodec> {
        Box::new(ToyLink::default())
    }
    fn board(&self) -> Box<dyn BoardSide> {
        Box::new(ToyBoard)
    }
    fn noise(&self, _pick: u64) -> Vec<u8> {
        b"~\n".to_vec()
    }
}

#[derive(Debug, Clone, Default)]
struct ToyLink {
    pending: Vec<u8>,
}

impl ToyLink {
    fn line(text: &str) -> Heard {
        let square = |s: &str| {
            s.parse::<Square>()
                .map_err(|_| format!("{s:?} is no square"))
        };
        let parsed = match text.split_at_checked(1) {
            Some(("-", s)) => square(s).map(|square| SensorEvent::Lift { square }),
            Some(("+", s)) => square(s).map(|square| SensorEvent::Place {
                square,
                piece: None,
            }),
            Some(("#", hex)) => u64::from_str_radix(hex, 16)
                .map(|bits| SensorEvent::Snapshot(Sensed::Occupancy(Bitboard(bits))))
                .map_err(|_| format!("{hex:?} is no occupancy")),
            _ if text == "ok" => return Heard::Alive,
            _ => return Heard::Unknown(text.to_owned()),
        };
        parsed.map_or_else(Heard::Rejected, Heard::Sensor)
    }
}

impl LinkCodec for ToyLink {
    fn greeting(&self) -> Vec<u8> {
        b"PR".to_vec()
    }
    fn snapshot_request(&self) -> Vec<u8> {
        b"R".to_vec()
    }
    fn keepalive(&self) -> Vec<u8> {
        b"P".to_vec()
    }
    fn received(&mut self, bytes: &[u8]) -> Vec<Heard> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            out.push(Self::line(String::from_utf8_lossy(&line).trim()));
        }
        out
    }
    fn describe(&self, orientation: Orientation, learned: &str) -> String {
        format!("toy board, orientation {} ({learned})", orientation.name())
    }
}

#[derive(Debug, Clone)]
struct ToyBoard;

impl BoardSide for ToyBoard {
    fn power_up(&mut self) -> Vec<Vec<u8>> {
        Vec::new()
    }
    fn host_bytes(&mut self, bytes: &[u8]) -> Vec<Asked> {
        bytes
            .iter()
            .filter_map(|b| match b {
                b'R' => Some(Asked::Reading),
                b'P' => Some(Asked::Answer(b"ok\n".to_vec())),
                _ => None,
            })
            .collect()
    }
    fn reading(&self, found: &Board) -> Vec<u8> {
        format!("#{:016X}\n", found.occupied().0).into_bytes()
    }
    fn change(&self, event: &SensorEvent) -> Option<Vec<u8>> {
        match event {
            SensorEvent::Lift { square } => Some(format!("-{square}\n").into_bytes()),
            SensorEvent::Place { square, .. } => Some(format!("+{square}\n").into_bytes()),
            SensorEvent::Snapshot(_) | SensorEvent::Button(_) => None,
        }
    }
}

/// A link and a simulated board joined, both speaking the toy protocol, bytes passing at once.
struct Wire {
    session: Session,
    board: SimBoard,
    events: Vec<LinkEvent>,
    lost: Option<String>,
}

impl Wire {
    /// A toy board lying the other way round, its profile saying so.
    fn reversed() -> Wire {
        let mut profile = ProfileSet::builtin().get("pegged-line").unwrap().clone();
        profile.orientation.mode = OrientationMode::Reversed;
        Wire {
            session: Session::speaking(&Toy, &profile, None, 0),
            board: SimBoard::speaking(
                &Toy,
                Sensing::Occupancy,
                Board::new(),
                Orientation::Reversed,
            ),
            events: Vec::new(),
            lost: None,
        }
    }

    /// What the session wants written goes to the board; the board's answers come back.
    fn carry(&mut self, mut actions: Vec<Action>, now: Millis) {
        while !actions.is_empty() {
            let mut answers = Vec::new();
            for action in actions.drain(..) {
                match action {
                    Action::Write(bytes) => answers.extend(self.board.host_bytes(&bytes)),
                    Action::Emit(event) => self.events.push(event),
                    Action::Lost(reason) => self.lost = Some(reason),
                }
            }
            actions = self.session.received(&answers.concat(), now);
        }
    }

    fn hands(&mut self, event: SensorEvent, now: Millis) {
        let bytes = self
            .board
            .act(&event)
            .expect("the toy board reports at once");
        let actions = self.session.received(&bytes, now);
        self.carry(actions, now);
    }
}

#[test]
fn a_third_protocol_is_one_file_behind_the_seam() {
    let mut wire = Wire::reversed();
    let greeting = wire.session.start(0);
    wire.carry(greeting, 0);
    assert!(wire.session.is_connected());
    assert_eq!(
        wire.events,
        [
            LinkEvent::Connected {
                info: "toy board, orientation reversed (from the profile)".into()
            },
            LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Occupancy(
                Board::new().occupied()
            ))),
        ]
    );

    // The board numbers its squares from White's h8; the session turns them into the game's.
    wire.events.clear();
    wire.hands(SensorEvent::Lift { square: Square::E2 }, 100);
    wire.hands(
        SensorEvent::Place {
            square: Square::E4,
            piece: None,
        },
        200,
    );
    assert_eq!(
        wire.events,
        [
            LinkEvent::Sensor(SensorEvent::Lift { square: Square::E2 }),
            LinkEvent::Sensor(SensorEvent::Place {
                square: Square::E4,
                piece: None
            }),
        ]
    );

    // A malformed message is reported and skipped; an unknown one is passed on.
    wire.events.clear();
    let actions = wire.session.received(b"+z9\nhello\n", 300);
    wire.carry(actions, 300);
    assert!(
        matches!(&wire.events[..], [LinkEvent::Rejected { reason }, LinkEvent::Unknown { message }]
            if reason.contains("z9") && message == "hello"),
        "{:?}",
        wire.events
    );

    // Keep-alive: asked and answered, the link stays; a board that falls silent is lost.
    let at = wire.session.next_deadline();
    let keepalive = wire.session.tick(at);
    assert_eq!(keepalive, [Action::Write(b"P".to_vec())]);
    wire.carry(keepalive, at);
    assert!(wire.lost.is_none());
    let unanswered = wire.session.next_deadline();
    assert_eq!(
        wire.session.tick(unanswered),
        [Action::Write(b"P".to_vec())]
    );
    let lost = (0..10).find_map(|_| {
        let at = wire.session.next_deadline();
        match &wire.session.tick(at)[..] {
            [Action::Lost(reason)] => Some((at, reason.clone())),
            _ => None,
        }
    });
    assert!(
        matches!(&lost, Some((at, reason)) if *at == unanswered + 3000
            && reason.contains("stopped answering")),
        "{lost:?}"
    );
}
