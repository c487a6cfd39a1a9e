//! The line protocol of tactus's pegged tactile board, as a sans-IO codec: bytes in, typed
//! [`LineMessage`]s out, and back to bytes for the board simulator. `boards/README.md` is the
//! protocol's specification for people who build such a board; this module must agree with it.
//!
//! This module owns the line framing (CR LF or LF, a length cap), the message syntax and the host's
//! two commands. It must not open ports, sleep, read the clock or keep game state: it does not
//! debounce, order or interpret events (move recognition does), and never sends anything on its
//! own.
//!
//! Board to host: `L e2` (a peg left e2), `P e4` (a peg entered e4), `S 000000000000FFFF` (every
//! occupied aperture: bit 0 = a1 ... bit 63 = h8), `B 1` (button 1 pressed), `H <text>` (greeting),
//! `E <text>` (the board reports a fault of its own). Host to board: `?` (send `S`) and `V` (send
//! `H`, also the keep-alive).

use shakmaty::{Bitboard, Square};
use thiserror::Error;

use super::{Orientation, Sensed, SensorEvent};

/// The longest line accepted, counting a trailing CR but not the LF. The longest valid message
/// (`S` and 16 hex digits) is 18 bytes; the rest is room for greetings and fault texts. Longer
/// lines are noise or a runaway board and are discarded up to the next LF, which bounds memory.
pub const MAX_LINE_LEN: usize = 256;
/// How much of an over-long line an error keeps, for the log.
const TOO_LONG_PREVIEW: usize = 32;
/// Hex digits in a snapshot: 64 bits.
const SNAPSHOT_HEX_DIGITS: usize = 16;
const HEX_RADIX: u32 = 16;

const LF: u8 = b'\n';
const CR: u8 = b'\r';
/// Board-to-host message letters.
const LIFT: &str = "L";
const PLACE: &str = "P";
const SNAPSHOT: &str = "S";
const BUTTON: &str = "B";
const HELLO: &str = "H";
const BOARD_ERROR: &str = "E";

/// A message from the pegged board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineMessage {
    /// `L e2`: a peg left the aperture of e2 (on the tactile board, a touch: F.2).
    Lift(Square),
    /// `P e4`: a peg entered the aperture of e4.
    Place(Square),
    /// `S <16 hex digits>`: every occupied aperture, bit 0 = a1 ... bit 63 = h8.
    Snapshot(Bitboard),
    /// `B <n>`: button `n` (1..=255) was pressed.
    Button(u8),
    /// `H <text>`: the greeting, sent at power-up and in answer to `V`; the text names the
    /// firmware.
    Hello(String),
    /// `E <text>`: the board reports a fault of its own (a stuck sensor, an overrun input buffer, a
    /// host command it does not know), so that the host can tell the player the board is at fault
    /// instead of guessing from odd events.
    BoardError(String),
    /// A line this protocol does not define (a newer firmware, a debug print). Not an error: the
    /// caller logs it and goes on. Counted by [`LineDecoder::unknown_lines`].
    Unknown(String),
}

/// A command from the host to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostCommand {
    /// `?`: answer with a snapshot (`S`).
    Snapshot,
    /// `V`: answer with the greeting (`H`). The cheap keep-alive request.
    Version,
}

impl HostCommand {
    /// The bytes sent on the line.
    pub fn encode(self) -> &'static [u8] {
        match self {
            HostCommand::Snapshot => b"?\n",
            HostCommand::Version => b"V\n",
        }
    }

    /// The command one line from the host stands for (the simulator's side); surrounding
    /// whitespace and a CR are ignored. `None` for anything else.
    pub fn from_line(line: &[u8]) -> Option<HostCommand> {
        match line.trim_ascii() {
            b"?" => Some(HostCommand::Snapshot),
            b"V" => Some(HostCommand::Version),
            _ => None,
        }
    }
}

/// A line the decoder could not accept. Decoding goes on with the next line after every error.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineError {
    /// A line that starts with a known message letter but is malformed.
    #[error(
        "pegged board sent the malformed line {line:?}: {reason}; the line was ignored (see the \
         line protocol in boards/README.md)"
    )]
    BadLine { line: String, reason: BadLineReason },
    /// A line longer than [`MAX_LINE_LEN`]; `start` is its beginning.
    #[error(
        "pegged board sent a line longer than {MAX_LINE_LEN} bytes starting {start:?}; it was \
         discarded up to the next newline (check the baud rate of 115200 8N1 and the firmware)"
    )]
    LineTooLong { start: String },
}

/// Why a line was malformed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BadLineReason {
    #[error("a square is missing (expected e.g. \"L e2\")")]
    MissingSquare,
    #[error("{0:?} is not a square (expected a file a-h and a rank 1-8, e.g. e2)")]
    BadSquare(String),
    #[error("the occupancy is missing (expected 16 hex digits, e.g. \"S 000000000000FFFF\")")]
    MissingOccupancy,
    #[error("{0:?} is not an occupancy (expected exactly 16 hex digits, bit 0 = a1)")]
    BadOccupancy(String),
    #[error("the button number is missing (expected 1 to 255, e.g. \"B 1\")")]
    MissingButton,
    #[error("{0:?} is not a button number (expected 1 to 255)")]
    BadButton(String),
    #[error("unexpected text {0:?} after the message")]
    ExtraTokens(String),
}

/// Incremental decoder: [`push`](LineDecoder::push) the bytes as they arrive, then call `next`
/// (it is an [`Iterator`]) until it returns `None`.
///
/// Lines end with LF; a CR before it is dropped, so CR LF and bare LF both work. Blank lines are
/// skipped. Each call consumes at least one line or returns `None`, so it cannot loop, and after
/// `None` at most [`MAX_LINE_LEN`] bytes stay buffered.
#[derive(Debug, Clone, Default)]
pub struct LineDecoder {
    buf: Vec<u8>,
    /// Bytes before `start` are consumed; compacted on the next push.
    start: usize,
    /// Inside an over-long line: drop everything up to the next LF.
    discarding: bool,
    unknown: u64,
}

impl LineDecoder {
    pub fn new() -> Self {
        LineDecoder::default()
    }

    /// Append bytes read from the port.
    pub fn push(&mut self, bytes: &[u8]) {
        // Compacting here rather than per line keeps decoding a large read linear.
        self.buf.drain(..self.start);
        self.start = 0;
        self.buf.extend_from_slice(bytes);
    }

    /// Lines seen that this protocol does not define.
    pub fn unknown_lines(&self) -> u64 {
        self.unknown
    }

    /// Bytes received but not yet decoded (a line still arriving).
    pub fn buffered_len(&self) -> usize {
        self.buf.len() - self.start
    }

    fn decode_next(&mut self) -> Option<Result<LineMessage, LineError>> {
        loop {
            let pending = &self.buf[self.start..];
            let newline = pending.iter().position(|&b| b == LF);
            if self.discarding {
                match newline {
                    Some(i) => {
                        self.start += i + 1;
                        self.discarding = false;
                        continue;
                    }
                    None => {
                        self.start = self.buf.len();
                        return None;
                    }
                }
            }
            let Some(i) = newline else {
                if pending.len() > MAX_LINE_LEN {
                    // Same error, with the same preview, as when the whole line is in one read.
                    let start = preview(pending);
                    self.start = self.buf.len();
                    self.discarding = true;
                    return Some(Err(LineError::LineTooLong { start }));
                }
                return None;
            };
            let line = &pending[..i];
            self.start += i + 1;
            if line.len() > MAX_LINE_LEN {
                return Some(Err(LineError::LineTooLong {
                    start: preview(line),
                }));
            }
            match parse_line(line) {
                None => continue,
                Some(Ok(LineMessage::Unknown(text))) => {
                    self.unknown += 1;
                    return Some(Ok(LineMessage::Unknown(text)));
                }
                Some(result) => return Some(result),
            }
        }
    }
}

impl Iterator for LineDecoder {
    type Item = Result<LineMessage, LineError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.decode_next()
    }
}

fn preview(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(TOO_LONG_PREVIEW)]).into_owned()
}

/// Parse one line (without its LF); `None` for a blank line.
fn parse_line(raw: &[u8]) -> Option<Result<LineMessage, LineError>> {
    // Lossy: a stray non-UTF-8 byte becomes U+FFFD, which no message accepts, so it still ends up
    // as an error or an unknown line, and the log shows the rest of the line.
    let text = String::from_utf8_lossy(raw);
    let line = text.trim_ascii();
    if line.is_empty() {
        return None;
    }
    let mut tokens = line.split_ascii_whitespace();
    // A non-blank line has a first token.
    let letter = tokens.next().unwrap_or_default();
    let bad = |reason| {
        Err(LineError::BadLine {
            line: line.to_owned(),
            reason,
        })
    };
    let result = match letter {
        LIFT | PLACE => match (tokens.next(), extra(&mut tokens)) {
            (None, _) => bad(BadLineReason::MissingSquare),
            (Some(_), Some(rest)) => bad(BadLineReason::ExtraTokens(rest)),
            (Some(token), None) => match parse_square(token) {
                None => bad(BadLineReason::BadSquare(token.to_owned())),
                Some(sq) if letter == LIFT => Ok(LineMessage::Lift(sq)),
                Some(sq) => Ok(LineMessage::Place(sq)),
            },
        },
        SNAPSHOT => match (tokens.next(), extra(&mut tokens)) {
            (None, _) => bad(BadLineReason::MissingOccupancy),
            (Some(_), Some(rest)) => bad(BadLineReason::ExtraTokens(rest)),
            (Some(token), None) => match parse_occupancy(token) {
                None => bad(BadLineReason::BadOccupancy(token.to_owned())),
                Some(bb) => Ok(LineMessage::Snapshot(bb)),
            },
        },
        BUTTON => match (tokens.next(), extra(&mut tokens)) {
            (None, _) => bad(BadLineReason::MissingButton),
            (Some(_), Some(rest)) => bad(BadLineReason::ExtraTokens(rest)),
            (Some(token), None) => match parse_button(token) {
                None => bad(BadLineReason::BadButton(token.to_owned())),
                Some(n) => Ok(LineMessage::Button(n)),
            },
        },
        HELLO => Ok(LineMessage::Hello(rest_of_line(line, letter))),
        BOARD_ERROR => Ok(LineMessage::BoardError(rest_of_line(line, letter))),
        _ => Ok(LineMessage::Unknown(line.to_owned())),
    };
    Some(result)
}

/// What follows the last expected token, joined for the error message.
fn extra<'a>(tokens: &mut impl Iterator<Item = &'a str>) -> Option<String> {
    let rest: Vec<&str> = tokens.collect();
    (!rest.is_empty()).then(|| rest.join(" "))
}

/// The free text after the message letter, inner spacing kept.
fn rest_of_line(line: &str, letter: &str) -> String {
    line[letter.len()..].trim_ascii().to_owned()
}

/// A square name, file letter in either case (`e2`, `E2`).
fn parse_square(token: &str) -> Option<Square> {
    let lower = token.to_ascii_lowercase();
    Square::from_ascii(lower.as_bytes()).ok()
}

/// Exactly 16 hex digits, either case.
fn parse_occupancy(token: &str) -> Option<Bitboard> {
    if token.len() != SNAPSHOT_HEX_DIGITS || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(token, HEX_RADIX).ok().map(Bitboard)
}

/// Decimal 1..=255; digits only (no sign).
fn parse_button(token: &str) -> Option<u8> {
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse::<u8>().ok().filter(|&n| n != 0)
}

/// Free text on one line: CR and LF inside it would split the message, so they become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\r' || c == '\n' { ' ' } else { c })
        .collect()
}

/// Encode a message as the board sends it (for simulators), ending in CR LF. Decoding the result
/// gives the message back, provided free texts have no surrounding whitespace and `Unknown` holds a
/// line that is not a message of this protocol. `Button(0)` encodes as `B 0`, which the decoder
/// rejects, as it would from a real board.
pub fn encode_message(msg: &LineMessage) -> Vec<u8> {
    let line = match msg {
        LineMessage::Lift(sq) => format!("{LIFT} {sq}"),
        LineMessage::Place(sq) => format!("{PLACE} {sq}"),
        LineMessage::Snapshot(bb) => format!("{SNAPSHOT} {:016X}", bb.0),
        LineMessage::Button(n) => format!("{BUTTON} {n}"),
        LineMessage::Hello(text) if text.is_empty() => HELLO.to_owned(),
        LineMessage::Hello(text) => format!("{HELLO} {}", one_line(text)),
        LineMessage::BoardError(text) if text.is_empty() => BOARD_ERROR.to_owned(),
        LineMessage::BoardError(text) => format!("{BOARD_ERROR} {}", one_line(text)),
        LineMessage::Unknown(text) => one_line(text),
    };
    let mut bytes = line.into_bytes();
    bytes.extend([CR, LF]);
    bytes
}

/// What a message means for move recognition, in the game's squares. The greeting, fault reports
/// and unknown lines give no events (the shell logs them).
pub fn to_sensor_events(msg: &LineMessage, orientation: Orientation) -> Vec<SensorEvent> {
    match msg {
        LineMessage::Lift(sq) => vec![SensorEvent::Lift {
            square: orientation.apply(*sq),
        }],
        LineMessage::Place(sq) => vec![SensorEvent::Place {
            square: orientation.apply(*sq),
            piece: None,
        }],
        LineMessage::Snapshot(bb) => {
            let oriented: Bitboard = bb.into_iter().map(|sq| orientation.apply(sq)).collect();
            vec![SensorEvent::Snapshot(Sensed::Occupancy(oriented))]
        }
        LineMessage::Button(n) => vec![SensorEvent::Button(*n)],
        LineMessage::Hello(_) | LineMessage::BoardError(_) | LineMessage::Unknown(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Board;

    const START_OCCUPANCY: u64 = 0xFFFF_0000_0000_FFFF;

    fn decode_all(bytes: &[u8]) -> Vec<Result<LineMessage, LineError>> {
        let mut decoder = LineDecoder::new();
        decoder.push(bytes);
        decoder.by_ref().collect()
    }

    fn bad(line: &str, reason: BadLineReason) -> Result<LineMessage, LineError> {
        Err(LineError::BadLine {
            line: line.into(),
            reason,
        })
    }

    #[test]
    fn every_message_with_cr_lf_and_bare_lf() {
        let text =
            "L e2\r\nP e4\nS FFFF00000000FFFF\r\nB 3\nH tactus-peg 1.2\r\nE sensor c3 stuck\n";
        assert_eq!(
            decode_all(text.as_bytes()),
            [
                Ok(LineMessage::Lift(Square::E2)),
                Ok(LineMessage::Place(Square::E4)),
                Ok(LineMessage::Snapshot(Bitboard(START_OCCUPANCY))),
                Ok(LineMessage::Button(3)),
                Ok(LineMessage::Hello("tactus-peg 1.2".into())),
                Ok(LineMessage::BoardError("sensor c3 stuck".into())),
            ]
        );
    }

    #[test]
    fn start_position_snapshot_is_ranks_1_2_7_8() {
        let [Ok(LineMessage::Snapshot(bb))] = decode_all(b"S ffff00000000ffff\n")[..] else {
            panic!()
        };
        assert_eq!(bb, Board::new().occupied());
        assert!(bb.contains(Square::A1) && bb.contains(Square::H8) && !bb.contains(Square::E4));
    }

    #[test]
    fn readme_worked_examples() {
        // boards/README.md, section 2.4: the start position, then after 1.e4.
        let start = Board::new().occupied();
        assert_eq!(
            encode_message(&LineMessage::Snapshot(start)),
            b"S FFFF00000000FFFF\r\n"
        );
        let after_e4 = start.without(Square::E2).with(Square::E4);
        assert_eq!(
            encode_message(&LineMessage::Snapshot(after_e4)),
            b"S FFFF00001000EFFF\r\n"
        );
        assert_eq!(Square::E2 as u32, 12);
        assert_eq!(Square::E4 as u32, 28);
    }

    #[test]
    fn upper_case_squares_and_extra_spaces_are_accepted() {
        assert_eq!(
            decode_all(b"L E2\n  P   h8  \r\n"),
            [
                Ok(LineMessage::Lift(Square::E2)),
                Ok(LineMessage::Place(Square::H8))
            ]
        );
    }

    #[test]
    fn blank_lines_are_skipped_and_unknown_lines_counted() {
        let mut decoder = LineDecoder::new();
        decoder.push(b"\n\r\n   \r\nX hello\nl e2\nK\n");
        let got: Vec<_> = decoder.by_ref().collect();
        assert_eq!(
            got,
            [
                Ok(LineMessage::Unknown("X hello".into())),
                Ok(LineMessage::Unknown("l e2".into())),
                Ok(LineMessage::Unknown("K".into())),
            ]
        );
        assert_eq!(decoder.unknown_lines(), 3);
    }

    #[test]
    fn bad_squares_and_arguments_are_typed_errors() {
        let text = "L z9\nP e\nL e2 e4\nP\nL e9\nS 12\nS FFFF00000000FFFG\nS\nB 0\nB 256\nB +1\nB\nS 0 1\nB 1 2\n";
        assert_eq!(
            decode_all(text.as_bytes()),
            [
                bad("L z9", BadLineReason::BadSquare("z9".into())),
                bad("P e", BadLineReason::BadSquare("e".into())),
                bad("L e2 e4", BadLineReason::ExtraTokens("e4".into())),
                bad("P", BadLineReason::MissingSquare),
                bad("L e9", BadLineReason::BadSquare("e9".into())),
                bad("S 12", BadLineReason::BadOccupancy("12".into())),
                bad(
                    "S FFFF00000000FFFG",
                    BadLineReason::BadOccupancy("FFFF00000000FFFG".into())
                ),
                bad("S", BadLineReason::MissingOccupancy),
                bad("B 0", BadLineReason::BadButton("0".into())),
                bad("B 256", BadLineReason::BadButton("256".into())),
                bad("B +1", BadLineReason::BadButton("+1".into())),
                bad("B", BadLineReason::MissingButton),
                bad("S 0 1", BadLineReason::ExtraTokens("1".into())),
                bad("B 1 2", BadLineReason::ExtraTokens("2".into())),
            ]
        );
        let msg = decode_all(b"L z9\n")[0].clone().unwrap_err().to_string();
        assert!(
            msg.contains("\"L z9\"") && msg.contains("not a square") && msg.contains("README"),
            "{msg}"
        );
        assert_eq!(decode_all(b"B 255\n"), [Ok(LineMessage::Button(255))]);
    }

    #[test]
    fn long_lines_are_discarded_to_the_next_newline() {
        let long = vec![b'x'; MAX_LINE_LEN + 1];
        let mut bytes = long.clone();
        bytes.extend(b"\nL e2\n");
        let expected = [
            Err(LineError::LineTooLong {
                start: "x".repeat(TOO_LONG_PREVIEW),
            }),
            Ok(LineMessage::Lift(Square::E2)),
        ];
        assert_eq!(decode_all(&bytes), expected);
        // The same, arriving in pieces: the buffer stays bounded and the error is the same.
        let mut decoder = LineDecoder::new();
        let mut got = Vec::new();
        for chunk in bytes.chunks(7) {
            decoder.push(chunk);
            got.extend(decoder.by_ref());
            assert!(decoder.buffered_len() <= MAX_LINE_LEN);
        }
        assert_eq!(got, expected);
        // A line of exactly the cap (with its CR) is still a line.
        let mut exact = b"H ".to_vec();
        exact.extend(vec![b'v'; MAX_LINE_LEN - 3]);
        exact.extend(b"\r\n");
        assert!(matches!(
            decode_all(&exact)[..],
            [Ok(LineMessage::Hello(_))]
        ));
        // Endless garbage without a newline never grows the buffer.
        let mut decoder = LineDecoder::new();
        for _ in 0..100 {
            decoder.push(&[b'y'; 100]);
            decoder.by_ref().for_each(drop);
            assert!(decoder.buffered_len() <= MAX_LINE_LEN);
        }
    }

    #[test]
    fn split_at_every_offset() {
        let text = b"H tactus 1.0\r\nL e2\r\nP e4\r\nS FFFF00000000EFFF\r\nB 2\r\nX?\r\n";
        let expected = decode_all(text);
        assert_eq!(expected.len(), 6);
        for cut in 0..=text.len() {
            let mut decoder = LineDecoder::new();
            decoder.push(&text[..cut]);
            let mut got: Vec<_> = decoder.by_ref().collect();
            decoder.push(&text[cut..]);
            got.extend(decoder.by_ref());
            assert_eq!(got, expected, "cut {cut}");
            assert_eq!(decoder.buffered_len(), 0);
        }
    }

    #[test]
    fn non_utf8_never_panics() {
        let got = decode_all(b"L \xff\xfe\n\xc3\x28\nH caf\xe9\nP e4\n");
        assert!(matches!(
            &got[0],
            Err(LineError::BadLine {
                reason: BadLineReason::BadSquare(_),
                ..
            })
        ));
        assert!(matches!(&got[1], Ok(LineMessage::Unknown(_))));
        assert_eq!(got[2], Ok(LineMessage::Hello("caf\u{fffd}".into())));
        assert_eq!(got[3], Ok(LineMessage::Place(Square::E4)));
    }

    #[test]
    fn host_commands() {
        assert_eq!(HostCommand::Snapshot.encode(), b"?\n");
        assert_eq!(HostCommand::Version.encode(), b"V\n");
        for c in [HostCommand::Snapshot, HostCommand::Version] {
            assert_eq!(HostCommand::from_line(c.encode()), Some(c));
        }
        assert_eq!(HostCommand::from_line(b"?\r"), Some(HostCommand::Snapshot));
        assert_eq!(HostCommand::from_line(b"X"), None);
    }

    #[test]
    fn every_kind_round_trips() {
        let msgs = [
            LineMessage::Lift(Square::A1),
            LineMessage::Place(Square::H8),
            LineMessage::Snapshot(Bitboard(START_OCCUPANCY)),
            LineMessage::Snapshot(Bitboard(0)),
            LineMessage::Button(1),
            LineMessage::Button(255),
            LineMessage::Hello("tactus-peg 0.3 (2 buttons)".into()),
            LineMessage::Hello(String::new()),
            LineMessage::BoardError("sensor d4 stuck".into()),
            LineMessage::Unknown("Z 1 2 3".into()),
        ];
        let mut bytes = Vec::new();
        for m in &msgs {
            let encoded = encode_message(m);
            assert!(encoded.ends_with(b"\r\n"));
            bytes.extend(encoded);
        }
        let got: Vec<_> = decode_all(&bytes).into_iter().map(Result::unwrap).collect();
        assert_eq!(got, msgs);
        assert_eq!(
            encode_message(&LineMessage::Snapshot(Bitboard(START_OCCUPANCY))),
            b"S FFFF00000000FFFF\r\n"
        );
        // Text cannot inject a second line.
        assert_eq!(
            encode_message(&LineMessage::Hello("a\nL e2".into())),
            b"H a L e2\r\n"
        );
    }

    #[test]
    fn sensor_events_apply_the_orientation() {
        assert_eq!(
            to_sensor_events(&LineMessage::Lift(Square::E2), Orientation::Normal),
            [SensorEvent::Lift { square: Square::E2 }]
        );
        assert_eq!(
            to_sensor_events(&LineMessage::Place(Square::E2), Orientation::Reversed),
            [SensorEvent::Place {
                square: Square::D7,
                piece: None
            }]
        );
        // White's pawns and pieces only, seen from the other side, are Black's ranks.
        assert_eq!(
            to_sensor_events(
                &LineMessage::Snapshot(Bitboard(0xFFFF)),
                Orientation::Reversed
            ),
            [SensorEvent::Snapshot(Sensed::Occupancy(Bitboard(
                0xFFFF_0000_0000_0000
            )))]
        );
        assert_eq!(
            to_sensor_events(&LineMessage::Button(2), Orientation::Reversed),
            [SensorEvent::Button(2)]
        );
        assert!(to_sensor_events(&LineMessage::Hello("x".into()), Orientation::Normal).is_empty());
        assert!(
            to_sensor_events(&LineMessage::BoardError("x".into()), Orientation::Normal).is_empty()
        );
    }
}
