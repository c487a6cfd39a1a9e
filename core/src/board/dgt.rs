//! The DGT electronic board protocol as a sans-IO codec: bytes in, typed [`Message`]s out, and
//! [`Message`]s back to bytes for the board simulator.
//!
//! This module owns the framing (resynchronisation on bit 7, lengths, truncation), the piece codes,
//! the field numbering (field 0 = a8), the clock message (BWTIME) and the one-byte host commands.
//! It must not open ports, sleep, read the clock or keep any game state: it never decides what a
//! change on the board means (that is move recognition's job), and it never sends anything on its
//! own. The facts come from DGT's published protocol header (`dgtbrd.h`); `boards/README.md`
//! summarises the ones used here.
//!
//! Past this module everything speaks shakmaty's types: [`to_sensor_events`] turns messages into
//! [`SensorEvent`]s with the board's [`Orientation`] applied.

use shakmaty::{Board, Color, Piece, Role, Square};
use thiserror::Error;

use super::{Orientation, Sensed, SensorEvent};

/// Only the first byte of a message has bit 7 set; every later byte has it clear.
const MESSAGE_BIT: u8 = 0x80;
/// The seven bits a payload or length byte can carry.
const SEVEN_BITS: u8 = 0x7f;
/// Bits per length byte: the length is sent as two 7-bit halves.
const LENGTH_SHIFT: u32 = 7;
/// First byte, two length bytes.
const HEADER_LEN: usize = 3;
/// The longest message this decoder accepts. The longest one we ask for is BOARD_DUMP (67 bytes);
/// the cap bounds the buffer and turns a corrupt length into an error instead of a long wait.
pub const MAX_FRAME_LEN: usize = 128;

/// First byte and total length of the messages the board sends (`dgtbrd.h`).
const MSG_BOARD_DUMP: u8 = 0x86;
const LEN_BOARD_DUMP: usize = 67;
const MSG_BWTIME: u8 = 0x8d;
const LEN_BWTIME: usize = 10;
const MSG_FIELD_UPDATE: u8 = 0x8e;
const LEN_FIELD_UPDATE: usize = 5;
const MSG_SERIALNR: u8 = 0x91;
const LEN_SERIALNR: usize = 8;
const MSG_VERSION: u8 = 0x93;
const LEN_VERSION: usize = 5;
const MSG_LONG_SERIALNR: u8 = 0xa2;
const LEN_LONG_SERIALNR: usize = 13;

/// Number of fields (squares) on the board.
const FIELD_COUNT: usize = 64;
/// Field numbering runs a8..h8, a7..h7, ...; shakmaty's runs a1..h1, a2..h2, ...: the rank bits
/// (3..5) are mirrored, the file bits agree, so one XOR maps either way.
const FIELD_SQUARE_XOR: u8 = 56;
/// The six bits that number a field.
const FIELD_BITS: u8 = 0x3f;

/// Piece code of an empty field.
const EMPTY: u8 = 0x00;
/// Codes 0x01..=0x06 are White's pawn, rook, knight, bishop, king, queen; Black's follow at +6.
const ROLES_BY_CODE: [Role; ROLE_COUNT] = [
    Role::Pawn,
    Role::Rook,
    Role::Knight,
    Role::Bishop,
    Role::King,
    Role::Queen,
];
const ROLE_COUNT: usize = 6;
const WHITE_FIRST_CODE: u8 = 0x01;
const BLACK_FIRST_CODE: u8 = WHITE_FIRST_CODE + ROLE_COUNT as u8;

/// The clock payload: right hours, minutes, seconds, left hours, minutes, seconds, status.
const CLOCK_PAYLOAD_LEN: usize = 7;
const CLOCK_RIGHT: usize = 0;
const CLOCK_LEFT: usize = 3;
const CLOCK_STATUS: usize = 6;
/// Low nibble 0x0a in the right or left hours byte marks a clock acknowledgement, not times.
const CLOCK_ACK_NIBBLE: u8 = 0x0a;
const LOW_NIBBLE: u8 = 0x0f;
const NIBBLE_SHIFT: u32 = 4;
/// The clock shows at most 9 hours (one BCD digit).
const MAX_CLOCK_HOURS: u64 = 9;
const BCD_DIGIT_MAX: u8 = 9;
const MINUTES_PER_HOUR: u64 = 60;
const SECONDS_PER_MINUTE: u64 = 60;
const MS_PER_SECOND: u64 = 1000;
const MS_PER_MINUTE: u64 = SECONDS_PER_MINUTE * MS_PER_SECOND;
const MS_PER_HOUR: u64 = MINUTES_PER_HOUR * MS_PER_MINUTE;
/// Status byte bits.
const STATUS_RUNNING: u8 = 1 << 0;
const STATUS_LEVER_RIGHT_HIGH: u8 = 1 << 1;
const STATUS_BATTERY_LOW: u8 = 1 << 2;
const STATUS_NO_CLOCK: u8 = 1 << 5;

/// Digits in SERIALNR and LONG_SERIALNR.
const SERIALNR_LEN: usize = LEN_SERIALNR - HEADER_LEN;
const LONG_SERIALNR_LEN: usize = LEN_LONG_SERIALNR - HEADER_LEN;
/// Encoding pads a too-short serial number with this, so the frame keeps its fixed length.
const SERIALNR_PAD: u8 = b'0';
/// Encoding replaces characters a 7-bit payload cannot carry with this.
const SERIALNR_REPLACEMENT: u8 = b'?';

/// A one-byte command from the computer to the board.
///
/// STARTBOOTLOADER (0x4e) is deliberately absent: sending it by mistake leaves the board in its
/// bootloader until it is power-cycled, in the middle of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// SEND_RESET: no answer; the board goes idle.
    Reset,
    /// SEND_CLK: answered by BWTIME.
    SendClock,
    /// SEND_BRD: answered by BOARD_DUMP.
    SendBoard,
    /// SEND_UPDATE: FIELD_UPDATE messages, plus BWTIME at least every second.
    SendUpdate,
    /// SEND_UPDATE_BRD: FIELD_UPDATE messages only.
    SendUpdateBoard,
    /// RETURN_SERIALNR: answered by SERIALNR (also a cheap keep-alive).
    ReturnSerialNr,
    /// SEND_UPDATE_NICE: like SEND_UPDATE, BWTIME only when the time changes.
    SendUpdateNice,
    /// SEND_VERSION: answered by VERSION.
    SendVersion,
}

impl Command {
    /// Every command, for simulators and tests.
    pub const ALL: [Command; 8] = [
        Command::Reset,
        Command::SendClock,
        Command::SendBoard,
        Command::SendUpdate,
        Command::SendUpdateBoard,
        Command::ReturnSerialNr,
        Command::SendUpdateNice,
        Command::SendVersion,
    ];

    /// The byte sent on the line.
    pub fn byte(self) -> u8 {
        match self {
            Command::Reset => 0x40,
            Command::SendClock => 0x41,
            Command::SendBoard => 0x42,
            Command::SendUpdate => 0x43,
            Command::SendUpdateBoard => 0x44,
            Command::ReturnSerialNr => 0x45,
            Command::SendUpdateNice => 0x4b,
            Command::SendVersion => 0x4d,
        }
    }

    /// The command a byte stands for (the simulator's side of the line); `None` for bytes this
    /// codec does not speak, including STARTBOOTLOADER.
    pub fn from_byte(byte: u8) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.byte() == byte)
    }
}

/// A message from the board, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// BOARD_DUMP: the piece on every field, indexed by field (0 = a8 with the connector left).
    BoardDump([Option<Piece>; FIELD_COUNT]),
    /// FIELD_UPDATE: `field` (0..64) changed; `None` when a piece was lifted.
    FieldUpdate { field: u8, piece: Option<Piece> },
    /// BWTIME: the clock attached to the board.
    Clock(ClockMessage),
    /// SERIALNR: five ASCII characters (digits on real boards).
    SerialNr(String),
    /// LONG_SERIALNR: ten ASCII characters.
    LongSerialNr(String),
    /// VERSION: the board's firmware version.
    Version { major: u8, minor: u8 },
    /// A well-framed message this codec does not decode; `id` is its first byte as received
    /// (bit 7 set), `len` its total length. Callers log and skip it.
    Unknown { id: u8, len: usize },
}

/// The BWTIME message of a DGT clock attached to the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockMessage {
    /// The clock acknowledged a command; `raw` is the payload as received.
    Ack { raw: [u8; CLOCK_PAYLOAD_LEN] },
    /// The times shown, whole seconds in milliseconds (the clock shows at most 9:59:59).
    Times {
        right_ms: u64,
        left_ms: u64,
        running: bool,
        /// The lever is high on the right side: the right player pressed last.
        lever_right_high: bool,
        battery_low: bool,
        /// The board reports no clock attached; the times mean nothing.
        no_clock: bool,
    },
}

impl ClockMessage {
    /// What a board without a clock reports (the "no clock" status bit, no times).
    pub const NO_CLOCK: ClockMessage = ClockMessage::Times {
        right_ms: 0,
        left_ms: 0,
        running: false,
        lever_right_high: false,
        battery_low: false,
        no_clock: true,
    };
}

/// A message the decoder could not accept. Decoding goes on after every error: the decoder has
/// already resynchronised, so the caller logs the error and calls `next` again.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// A byte with bit 7 set (the start of a message) arrived before a message was complete.
    #[error(
        "DGT message 0x{id:02x} was cut off after {got}{} bytes by the start of another \
         message; bytes were lost on the line (check the cable, the baud rate of 9600, and that \
         nothing else reads the port)",
        expected.map_or_else(String::new, |n| format!(" of {n}"))
    )]
    Truncated {
        id: u8,
        got: usize,
        expected: Option<usize>,
    },
    /// The length in the header is impossible or disagrees with the message id.
    #[error(
        "DGT message 0x{id:02x} declares a length of {len} bytes, {}; skipped it (check the \
         baud rate of 9600 8N1 and that this is a DGT board)",
        match expected {
            Some(n) => format!("but that message is always {n} bytes"),
            None => format!("outside the plausible {HEADER_LEN}..={MAX_FRAME_LEN}"),
        }
    )]
    BadLength {
        id: u8,
        len: usize,
        expected: Option<usize>,
    },
    /// A piece code that is not a chess piece: 0x0d..=0x0f are DGT's "result" pieces (draw, white
    /// wins, black wins); anything above is invalid.
    #[error(
        "DGT message 0x{id:02x} reports piece code 0x{code:02x} on field {field}, which is not a \
         chess piece{}; the message was ignored (remove that piece from the board)",
        if (0x0d..=0x0f).contains(code) { " (a DGT result piece)" } else { "" }
    )]
    NotAChessPiece { id: u8, field: u8, code: u8 },
    /// FIELD_UPDATE named a field beyond 63.
    #[error("DGT field update names field {field}, but fields run 0..=63; the message was ignored")]
    BadField { field: u8 },
    /// A clock value that is not valid BCD or not a valid time.
    #[error(
        "DGT clock message has the invalid value 0x{byte:02x} for the {what}; the message was \
         ignored (the clock or its cable may be faulty)"
    )]
    BadClockValue { what: &'static str, byte: u8 },
}

/// Incremental decoder: [`push`](Decoder::push) the bytes as they arrive, then call `next` (it is
/// an [`Iterator`]) until it returns `None`.
///
/// Framing: a message starts at a byte with bit 7 set. Bytes before such a byte are skipped and
/// counted; a bit-7 byte inside a header or payload aborts the message ([`DecodeError::Truncated`])
/// and starts the next one there; an impossible length is an error and decoding resumes at the
/// next bit-7 byte. Each call consumes at least one byte or returns `None`, so it cannot loop, and
/// after `None` at most [`MAX_FRAME_LEN`] bytes stay buffered.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    buf: Vec<u8>,
    /// Bytes before `start` are consumed; compacted on the next push.
    start: usize,
    skipped: u64,
}

impl Decoder {
    pub fn new() -> Self {
        Decoder::default()
    }

    /// Append bytes read from the port.
    pub fn push(&mut self, bytes: &[u8]) {
        // Compacting here rather than per message keeps decoding a large read linear.
        self.buf.drain(..self.start);
        self.start = 0;
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes skipped while looking for the start of a message (line noise, a message whose start
    /// was lost, the payload after a bad header).
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped
    }

    /// Bytes received but not yet decoded (a message still arriving).
    pub fn buffered_len(&self) -> usize {
        self.buf.len() - self.start
    }

    fn decode_next(&mut self) -> Option<Result<Message, DecodeError>> {
        let pending = &self.buf[self.start..];
        let Some(lead) = pending.iter().position(|&b| starts_message(b)) else {
            self.skip(pending.len());
            return None;
        };
        self.skip(lead);
        let pending = &self.buf[self.start..];
        let id = pending[0];

        let header_end = pending.len().min(HEADER_LEN);
        if let Some(p) = pending[1..header_end]
            .iter()
            .position(|&b| starts_message(b))
        {
            let got = p + 1;
            self.start += got;
            return Some(Err(DecodeError::Truncated {
                id,
                got,
                expected: known_len(id),
            }));
        }
        if pending.len() < HEADER_LEN {
            return None;
        }

        let len = (usize::from(pending[1]) << LENGTH_SHIFT) | usize::from(pending[2]);
        let expected = known_len(id);
        if !(HEADER_LEN..=MAX_FRAME_LEN).contains(&len) || expected.is_some_and(|e| e != len) {
            self.start += HEADER_LEN;
            return Some(Err(DecodeError::BadLength { id, len, expected }));
        }

        let available = pending.len().min(len);
        if let Some(p) = pending[HEADER_LEN..available]
            .iter()
            .position(|&b| starts_message(b))
        {
            let got = HEADER_LEN + p;
            self.start += got;
            return Some(Err(DecodeError::Truncated {
                id,
                got,
                expected: Some(len),
            }));
        }
        if pending.len() < len {
            return None;
        }
        let result = decode_frame(id, &pending[HEADER_LEN..len]);
        self.start += len;
        Some(result)
    }

    fn skip(&mut self, n: usize) {
        self.start += n;
        // usize always fits in u64 on the targets we build for.
        self.skipped += n as u64;
    }
}

impl Iterator for Decoder {
    type Item = Result<Message, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.decode_next()
    }
}

fn starts_message(byte: u8) -> bool {
    byte & MESSAGE_BIT != 0
}

/// The fixed length of the messages we know; `None` for the others.
fn known_len(id: u8) -> Option<usize> {
    match id {
        MSG_BOARD_DUMP => Some(LEN_BOARD_DUMP),
        MSG_BWTIME => Some(LEN_BWTIME),
        MSG_FIELD_UPDATE => Some(LEN_FIELD_UPDATE),
        MSG_SERIALNR => Some(LEN_SERIALNR),
        MSG_VERSION => Some(LEN_VERSION),
        MSG_LONG_SERIALNR => Some(LEN_LONG_SERIALNR),
        _ => None,
    }
}

/// Decode one complete message; `payload` has the length `known_len(id)` promised.
fn decode_frame(id: u8, payload: &[u8]) -> Result<Message, DecodeError> {
    match id {
        MSG_BOARD_DUMP => {
            let mut dump = [None; FIELD_COUNT];
            for (field, (slot, &code)) in (0u8..).zip(dump.iter_mut().zip(payload)) {
                *slot =
                    piece_from_code(code).ok_or(DecodeError::NotAChessPiece { id, field, code })?;
            }
            Ok(Message::BoardDump(dump))
        }
        MSG_FIELD_UPDATE => {
            let (field, code) = (payload[0], payload[1]);
            if usize::from(field) >= FIELD_COUNT {
                return Err(DecodeError::BadField { field });
            }
            let piece =
                piece_from_code(code).ok_or(DecodeError::NotAChessPiece { id, field, code })?;
            Ok(Message::FieldUpdate { field, piece })
        }
        MSG_BWTIME => {
            let mut raw = [0; CLOCK_PAYLOAD_LEN];
            raw.copy_from_slice(payload);
            decode_clock(raw).map(Message::Clock)
        }
        MSG_SERIALNR => Ok(Message::SerialNr(ascii(payload))),
        MSG_LONG_SERIALNR => Ok(Message::LongSerialNr(ascii(payload))),
        MSG_VERSION => Ok(Message::Version {
            major: payload[0],
            minor: payload[1],
        }),
        _ => Ok(Message::Unknown {
            id,
            len: HEADER_LEN + payload.len(),
        }),
    }
}

/// Payload bytes have bit 7 clear, so each is one ASCII character.
fn ascii(payload: &[u8]) -> String {
    payload.iter().map(|&b| char::from(b)).collect()
}

/// `Some(None)` for an empty field, `Some(Some(piece))` for a chess piece, `None` for anything
/// else (result pieces and invalid codes).
fn piece_from_code(code: u8) -> Option<Option<Piece>> {
    let (color, first) = match code {
        EMPTY => return Some(None),
        c if c < BLACK_FIRST_CODE => (Color::White, WHITE_FIRST_CODE),
        c if c < BLACK_FIRST_CODE + ROLE_COUNT as u8 => (Color::Black, BLACK_FIRST_CODE),
        _ => return None,
    };
    let role = ROLES_BY_CODE[usize::from(code - first)];
    Some(Some(Piece { color, role }))
}

fn piece_code(piece: Option<Piece>) -> u8 {
    let Some(Piece { color, role }) = piece else {
        return EMPTY;
    };
    let first = match color {
        Color::White => WHITE_FIRST_CODE,
        Color::Black => BLACK_FIRST_CODE,
    };
    let index = match role {
        Role::Pawn => 0,
        Role::Rook => 1,
        Role::Knight => 2,
        Role::Bishop => 3,
        Role::King => 4,
        Role::Queen => 5,
    };
    debug_assert_eq!(ROLES_BY_CODE[usize::from(index)], role);
    first + index
}

fn decode_clock(raw: [u8; CLOCK_PAYLOAD_LEN]) -> Result<ClockMessage, DecodeError> {
    if raw[CLOCK_RIGHT] & LOW_NIBBLE == CLOCK_ACK_NIBBLE
        || raw[CLOCK_LEFT] & LOW_NIBBLE == CLOCK_ACK_NIBBLE
    {
        return Ok(ClockMessage::Ack { raw });
    }
    let right_ms = clock_side(
        &raw[CLOCK_RIGHT..CLOCK_RIGHT + 3],
        ["right hours", "right minutes", "right seconds"],
    )?;
    let left_ms = clock_side(
        &raw[CLOCK_LEFT..CLOCK_LEFT + 3],
        ["left hours", "left minutes", "left seconds"],
    )?;
    let status = raw[CLOCK_STATUS];
    Ok(ClockMessage::Times {
        right_ms,
        left_ms,
        running: status & STATUS_RUNNING != 0,
        lever_right_high: status & STATUS_LEVER_RIGHT_HIGH != 0,
        battery_low: status & STATUS_BATTERY_LOW != 0,
        no_clock: status & STATUS_NO_CLOCK != 0,
    })
}

/// Hours (low nibble; the high nibble is not specified by the reference and is ignored), minutes
/// and seconds (BCD, below 60) of one side, in milliseconds.
fn clock_side(bytes: &[u8], what: [&'static str; 3]) -> Result<u64, DecodeError> {
    let hours = bytes[0] & LOW_NIBBLE;
    if hours > BCD_DIGIT_MAX {
        return Err(DecodeError::BadClockValue {
            what: what[0],
            byte: bytes[0],
        });
    }
    let minutes = bcd_sexagesimal(bytes[1], what[1])?;
    let seconds = bcd_sexagesimal(bytes[2], what[2])?;
    Ok(u64::from(hours) * MS_PER_HOUR + minutes * MS_PER_MINUTE + seconds * MS_PER_SECOND)
}

/// A two-digit BCD value below 60 (minutes or seconds).
fn bcd_sexagesimal(byte: u8, what: &'static str) -> Result<u64, DecodeError> {
    let (tens, units) = (byte >> NIBBLE_SHIFT, byte & LOW_NIBBLE);
    let value = u64::from(tens) * 10 + u64::from(units);
    if tens > BCD_DIGIT_MAX || units > BCD_DIGIT_MAX || value >= SECONDS_PER_MINUTE {
        return Err(DecodeError::BadClockValue { what, byte });
    }
    Ok(value)
}

fn to_bcd(value: u64) -> u8 {
    // Callers pass values below 60, so both digits fit a nibble.
    (((value / 10) as u8) << NIBBLE_SHIFT) | (value % 10) as u8
}

/// Hours, minutes, seconds bytes for a time; saturates at 9:59:59 (the most the clock shows) and
/// drops milliseconds (the clock counts whole seconds).
fn encode_clock_side(ms: u64) -> [u8; 3] {
    let max_ms = MAX_CLOCK_HOURS * MS_PER_HOUR
        + (MINUTES_PER_HOUR - 1) * MS_PER_MINUTE
        + (SECONDS_PER_MINUTE - 1) * MS_PER_SECOND;
    let ms = ms.min(max_ms);
    let hours = ms / MS_PER_HOUR;
    let minutes = ms % MS_PER_HOUR / MS_PER_MINUTE;
    let seconds = ms % MS_PER_MINUTE / MS_PER_SECOND;
    [hours as u8, to_bcd(minutes), to_bcd(seconds)]
}

/// A serial number as a fixed-length 7-bit payload: non-ASCII characters become `?`, a short
/// number is padded with `0`, a long one cut.
fn encode_serial(text: &str, len: usize) -> Vec<u8> {
    let mut bytes: Vec<u8> = text
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c as u8
            } else {
                SERIALNR_REPLACEMENT
            }
        })
        .take(len)
        .collect();
    bytes.resize(len, SERIALNR_PAD);
    bytes
}

/// Encode a message as the board sends it (for simulators). For every variant but `Unknown`,
/// decoding the result gives the message back, provided its values are ones the protocol can
/// carry: fields below 64, times in whole seconds up to 9:59:59, an `Ack` whose raw bytes carry the
/// 0x0a marker and have bit 7 clear, serial numbers of exactly 5 (10) ASCII characters. Other
/// values are clamped, masked or padded so that the frame is always well formed. `Unknown`
/// encodes as a frame of that id and length with a zero payload.
pub fn encode_message(msg: &Message) -> Vec<u8> {
    let (id, payload): (u8, Vec<u8>) = match msg {
        Message::BoardDump(dump) => (
            MSG_BOARD_DUMP,
            dump.iter().map(|&p| piece_code(p)).collect(),
        ),
        Message::FieldUpdate { field, piece } => {
            (MSG_FIELD_UPDATE, vec![*field, piece_code(*piece)])
        }
        Message::Clock(ClockMessage::Ack { raw }) => (MSG_BWTIME, raw.to_vec()),
        Message::Clock(ClockMessage::Times {
            right_ms,
            left_ms,
            running,
            lever_right_high,
            battery_low,
            no_clock,
        }) => {
            let mut payload = Vec::with_capacity(CLOCK_PAYLOAD_LEN);
            payload.extend(encode_clock_side(*right_ms));
            payload.extend(encode_clock_side(*left_ms));
            let flag = |on: bool, bit: u8| if on { bit } else { 0 };
            payload.push(
                flag(*running, STATUS_RUNNING)
                    | flag(*lever_right_high, STATUS_LEVER_RIGHT_HIGH)
                    | flag(*battery_low, STATUS_BATTERY_LOW)
                    | flag(*no_clock, STATUS_NO_CLOCK),
            );
            (MSG_BWTIME, payload)
        }
        Message::SerialNr(text) => (MSG_SERIALNR, encode_serial(text, SERIALNR_LEN)),
        Message::LongSerialNr(text) => (MSG_LONG_SERIALNR, encode_serial(text, LONG_SERIALNR_LEN)),
        Message::Version { major, minor } => (MSG_VERSION, vec![*major, *minor]),
        Message::Unknown { id, len } => (*id, vec![0; len.saturating_sub(HEADER_LEN)]),
    };
    let len = HEADER_LEN + payload.len();
    let mut frame = Vec::with_capacity(len);
    frame.push(id | MESSAGE_BIT);
    // Lengths beyond 14 bits cannot be expressed; only a bogus `Unknown` gets there.
    frame.push((len >> LENGTH_SHIFT) as u8 & SEVEN_BITS);
    frame.push(len as u8 & SEVEN_BITS);
    frame.extend(payload.iter().map(|b| b & SEVEN_BITS));
    frame
}

/// The square a field stands for, in the board's own numbering (field 0 = a8, 63 = h1). Only the
/// low six bits of `field` are used; the decoder rejects fields above 63 before they get here.
pub fn field_to_square(field: u8) -> Square {
    Square::new(u32::from((field & FIELD_BITS) ^ FIELD_SQUARE_XOR))
}

/// The field of a square in the board's own numbering.
pub fn square_to_field(square: Square) -> u8 {
    // A square's index is below 64, so it fits a u8.
    (square.to_u32() as u8) ^ FIELD_SQUARE_XOR
}

/// The position a dump shows, in the game's squares.
pub fn dump_to_board(dump: &[Option<Piece>; FIELD_COUNT], orientation: Orientation) -> Board {
    let mut board = Board::empty();
    for (field, piece) in (0u8..).zip(dump) {
        if let Some(piece) = piece {
            board.set_piece_at(orientation.apply(field_to_square(field)), *piece);
        }
    }
    board
}

/// The dump a board lying in `orientation` would send for `board` (for simulators).
pub fn board_to_dump(board: &Board, orientation: Orientation) -> [Option<Piece>; FIELD_COUNT] {
    let mut dump = [None; FIELD_COUNT];
    for (square, piece) in board.iter() {
        // Both orientations are their own inverse (identity, and a half turn), so `apply` maps a
        // game square back to the board's square.
        dump[usize::from(square_to_field(orientation.apply(square)))] = Some(piece);
    }
    dump
}

/// What a message means for move recognition, in the game's squares. Messages that say nothing
/// about the pieces (clock, serial number, version, unknown) give no events.
pub fn to_sensor_events(msg: &Message, orientation: Orientation) -> Vec<SensorEvent> {
    match msg {
        Message::FieldUpdate { field, piece } => {
            let square = orientation.apply(field_to_square(*field));
            match piece {
                None => vec![SensorEvent::Lift { square }],
                Some(piece) => vec![SensorEvent::Place {
                    square,
                    piece: Some(*piece),
                }],
            }
        }
        Message::BoardDump(dump) => vec![SensorEvent::Snapshot(Sensed::Pieces(dump_to_board(
            dump,
            orientation,
        )))],
        Message::Clock(_)
        | Message::SerialNr(_)
        | Message::LongSerialNr(_)
        | Message::Version { .. }
        | Message::Unknown { .. } => Vec::new(),
    }
}

/// How the board lies, judged from a dump of the start position: `Normal` if White stands on the
/// board's ranks 1 and 2, `Reversed` if the position is turned 180 degrees, `None` for anything
/// else (mid-game, pieces missing or misplaced).
pub fn detect_orientation(dump: &[Option<Piece>; FIELD_COUNT]) -> Option<Orientation> {
    let start = Board::new();
    [Orientation::Normal, Orientation::Reversed]
        .into_iter()
        .find(|&o| dump_to_board(dump, o) == start)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's start-position dump, connector left.
    fn start_dump_bytes() -> Vec<u8> {
        let mut bytes = vec![0x86, 0x00, 0x43];
        bytes.extend([0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08]);
        bytes.extend([0x07; 8]);
        bytes.extend([0x00; 32]);
        bytes.extend([0x01; 8]);
        bytes.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
        bytes
    }

    const E2_LIFT: [u8; 5] = [0x8E, 0x00, 0x05, 0x34, 0x00];
    const E4_PLACE: [u8; 5] = [0x8E, 0x00, 0x05, 0x24, 0x01];

    fn decode_all(bytes: &[u8]) -> Vec<Result<Message, DecodeError>> {
        let mut decoder = Decoder::new();
        decoder.push(bytes);
        decoder.by_ref().collect()
    }

    fn white(role: Role) -> Option<Piece> {
        Some(Piece {
            color: Color::White,
            role,
        })
    }

    #[test]
    fn command_bytes_match_the_reference() {
        let bytes: Vec<u8> = Command::ALL.iter().map(|c| c.byte()).collect();
        assert_eq!(bytes, [0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x4b, 0x4d]);
        for c in Command::ALL {
            assert_eq!(Command::from_byte(c.byte()), Some(c));
        }
        assert_eq!(
            Command::from_byte(0x4e),
            None,
            "never speak STARTBOOTLOADER"
        );
    }

    #[test]
    fn field_mapping_matches_the_reference() {
        assert_eq!(field_to_square(0), Square::A8);
        assert_eq!(field_to_square(7), Square::H8);
        assert_eq!(field_to_square(8), Square::A7);
        assert_eq!(field_to_square(63), Square::H1);
        assert_eq!(field_to_square(0x34), Square::E2);
        assert_eq!(field_to_square(0x24), Square::E4);
        for sq in Square::ALL {
            assert_eq!(field_to_square(square_to_field(sq)), sq);
        }
    }

    #[test]
    fn start_position_dump_decodes_to_the_start_position() {
        let msgs = decode_all(&start_dump_bytes());
        let [Ok(Message::BoardDump(dump))] = msgs.as_slice() else {
            panic!("{msgs:?}")
        };
        assert_eq!(dump_to_board(dump, Orientation::Normal), Board::new());
        assert_eq!(detect_orientation(dump), Some(Orientation::Normal));
        assert_eq!(
            encode_message(&Message::BoardDump(*dump)),
            start_dump_bytes()
        );
    }

    #[test]
    fn e2_e4_worked_example() {
        let mut bytes = E2_LIFT.to_vec();
        bytes.extend(E4_PLACE);
        let msgs = decode_all(&bytes);
        assert_eq!(
            msgs,
            [
                Ok(Message::FieldUpdate {
                    field: 0x34,
                    piece: None
                }),
                Ok(Message::FieldUpdate {
                    field: 0x24,
                    piece: white(Role::Pawn)
                }),
            ]
        );
        let events: Vec<_> = msgs
            .iter()
            .flat_map(|m| to_sensor_events(m.as_ref().unwrap(), Orientation::Normal))
            .collect();
        assert_eq!(
            events,
            [
                SensorEvent::Lift { square: Square::E2 },
                SensorEvent::Place {
                    square: Square::E4,
                    piece: white(Role::Pawn)
                }
            ]
        );
        let reversed: Vec<_> = msgs
            .iter()
            .flat_map(|m| to_sensor_events(m.as_ref().unwrap(), Orientation::Reversed))
            .collect();
        assert_eq!(
            reversed,
            [
                SensorEvent::Lift { square: Square::D7 },
                SensorEvent::Place {
                    square: Square::D5,
                    piece: white(Role::Pawn)
                }
            ]
        );
    }

    #[test]
    fn frame_split_at_every_offset_decodes_once() {
        for frame in [start_dump_bytes(), E2_LIFT.to_vec(), E4_PLACE.to_vec()] {
            let expected = decode_all(&frame);
            for cut in 0..=frame.len() {
                let mut decoder = Decoder::new();
                decoder.push(&frame[..cut]);
                let mut got: Vec<_> = decoder.by_ref().collect();
                if cut < frame.len() {
                    assert!(got.is_empty(), "cut {cut}: {got:?}");
                }
                decoder.push(&frame[cut..]);
                got.extend(decoder.by_ref());
                assert_eq!(got, expected, "cut {cut}");
                assert_eq!(decoder.skipped_bytes(), 0);
                assert_eq!(decoder.buffered_len(), 0);
            }
        }
    }

    #[test]
    fn byte_by_byte() {
        let mut decoder = Decoder::new();
        let mut got = Vec::new();
        for b in start_dump_bytes().into_iter().chain(E2_LIFT) {
            decoder.push(&[b]);
            got.extend(decoder.by_ref());
        }
        assert_eq!(got.len(), 2);
        assert!(matches!(got[0], Ok(Message::BoardDump(_))));
        assert_eq!(
            got[1],
            Ok(Message::FieldUpdate {
                field: 0x34,
                piece: None
            })
        );
    }

    #[test]
    fn garbage_before_a_frame_is_skipped_and_counted() {
        let mut bytes = vec![0x00, 0x34, 0x7f, 0x01];
        bytes.extend(E4_PLACE);
        let mut decoder = Decoder::new();
        decoder.push(&bytes);
        let got: Vec<_> = decoder.by_ref().collect();
        assert_eq!(
            got,
            [Ok(Message::FieldUpdate {
                field: 0x24,
                piece: white(Role::Pawn)
            })]
        );
        assert_eq!(decoder.skipped_bytes(), 4);
    }

    #[test]
    fn a_message_start_inside_a_payload_truncates_and_restarts() {
        // The dump loses its tail; the field update that interrupts it is still decoded.
        let mut bytes = start_dump_bytes()[..20].to_vec();
        bytes.extend(E2_LIFT);
        assert_eq!(
            decode_all(&bytes),
            [
                Err(DecodeError::Truncated {
                    id: 0x86,
                    got: 20,
                    expected: Some(67)
                }),
                Ok(Message::FieldUpdate {
                    field: 0x34,
                    piece: None
                }),
            ]
        );
    }

    #[test]
    fn a_message_start_inside_a_header_truncates_and_restarts() {
        let mut bytes = vec![0x8e, 0x00];
        bytes.extend(E2_LIFT);
        assert_eq!(
            decode_all(&bytes),
            [
                Err(DecodeError::Truncated {
                    id: 0x8e,
                    got: 2,
                    expected: Some(5)
                }),
                Ok(Message::FieldUpdate {
                    field: 0x34,
                    piece: None
                }),
            ]
        );
        // Two starts in a row.
        let mut bytes = vec![0x86];
        bytes.extend(E2_LIFT);
        assert_eq!(
            decode_all(&bytes)[0],
            Err(DecodeError::Truncated {
                id: 0x86,
                got: 1,
                expected: Some(67)
            })
        );
    }

    #[test]
    fn bad_lengths_are_errors_and_decoding_resumes() {
        // Disagrees with the known length of FIELD_UPDATE; the rest of it is skipped as garbage.
        let mut bytes = vec![0x8e, 0x00, 0x06, 0x34, 0x00, 0x00];
        bytes.extend(E4_PLACE);
        let mut decoder = Decoder::new();
        decoder.push(&bytes);
        let got: Vec<_> = decoder.by_ref().collect();
        assert_eq!(
            got,
            [
                Err(DecodeError::BadLength {
                    id: 0x8e,
                    len: 6,
                    expected: Some(5)
                }),
                Ok(Message::FieldUpdate {
                    field: 0x24,
                    piece: white(Role::Pawn)
                }),
            ]
        );
        assert_eq!(decoder.skipped_bytes(), 3);
        // Too small and too large for an unknown id.
        assert_eq!(
            decode_all(&[0x90, 0x00, 0x02])[0],
            Err(DecodeError::BadLength {
                id: 0x90,
                len: 2,
                expected: None
            })
        );
        assert_eq!(
            decode_all(&[0x90, 0x7f, 0x7f])[0],
            Err(DecodeError::BadLength {
                id: 0x90,
                len: 16383,
                expected: None
            })
        );
        assert_eq!(
            decode_all(&[0x90, 0x01, 0x01])[0],
            Err(DecodeError::BadLength {
                id: 0x90,
                len: 129,
                expected: None
            })
        );
    }

    #[test]
    fn unknown_messages_with_a_plausible_length_are_skipped_whole() {
        let mut bytes = vec![0x90, 0x00, 0x05, 0x01, 0x02];
        bytes.extend(E2_LIFT);
        assert_eq!(
            decode_all(&bytes),
            [
                Ok(Message::Unknown { id: 0x90, len: 5 }),
                Ok(Message::FieldUpdate {
                    field: 0x34,
                    piece: None
                })
            ]
        );
        assert_eq!(
            encode_message(&Message::Unknown { id: 0x90, len: 5 }),
            [0x90, 0x00, 0x05, 0x00, 0x00]
        );
    }

    #[test]
    fn two_frames_in_one_read() {
        let mut bytes = E2_LIFT.to_vec();
        bytes.extend(start_dump_bytes());
        let got = decode_all(&bytes);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0],
            Ok(Message::FieldUpdate {
                field: 0x34,
                piece: None
            })
        );
        assert!(matches!(got[1], Ok(Message::BoardDump(_))));
    }

    #[test]
    fn result_pieces_and_bad_codes_are_never_chess_pieces() {
        for code in [0x0d, 0x0e, 0x0f, 0x10, 0x7f] {
            assert_eq!(
                decode_all(&[0x8e, 0x00, 0x05, 0x1b, code]),
                [Err(DecodeError::NotAChessPiece {
                    id: 0x8e,
                    field: 0x1b,
                    code
                })]
            );
            let mut dump = start_dump_bytes();
            dump[3 + 40] = code;
            assert_eq!(
                decode_all(&dump),
                [Err(DecodeError::NotAChessPiece {
                    id: 0x86,
                    field: 40,
                    code
                })]
            );
        }
        let msg = DecodeError::NotAChessPiece {
            id: 0x8e,
            field: 27,
            code: 0x0d,
        }
        .to_string();
        assert!(msg.contains("result piece"), "{msg}");
        assert_eq!(
            decode_all(&[0x8e, 0x00, 0x05, 0x40, 0x01]),
            [Err(DecodeError::BadField { field: 64 })]
        );
    }

    #[test]
    fn every_piece_code_round_trips() {
        for code in 0..=0x0c {
            let piece = piece_from_code(code).expect("a chess piece or empty");
            assert_eq!(piece_code(piece), code);
        }
        assert_eq!(piece_from_code(0x06), Some(white(Role::Queen)));
        assert_eq!(
            piece_from_code(0x0b),
            Some(Some(Piece {
                color: Color::Black,
                role: Role::King
            }))
        );
    }

    #[test]
    fn clock_times_decode() {
        // Right 1:23:45, left 0:05:09, running, lever right high.
        let bytes = [0x8d, 0x00, 0x0a, 0x01, 0x23, 0x45, 0x00, 0x05, 0x09, 0x03];
        assert_eq!(
            decode_all(&bytes),
            [Ok(Message::Clock(ClockMessage::Times {
                right_ms: (3600 + 23 * 60 + 45) * 1000,
                left_ms: (5 * 60 + 9) * 1000,
                running: true,
                lever_right_high: true,
                battery_low: false,
                no_clock: false,
            }))]
        );
        let no_clock = [0x8d, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24];
        let [
            Ok(Message::Clock(ClockMessage::Times {
                battery_low,
                no_clock,
                running,
                ..
            })),
        ] = decode_all(&no_clock)[..]
        else {
            panic!()
        };
        assert!(battery_low && no_clock && !running);
    }

    #[test]
    fn clock_ack_decodes() {
        let right = [0x8d, 0x00, 0x0a, 0x0a, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00];
        assert_eq!(
            decode_all(&right),
            [Ok(Message::Clock(ClockMessage::Ack {
                raw: [0x0a, 0x08, 0, 0, 0, 0, 0]
            }))]
        );
        let left = [0x8d, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x1a, 0x7f, 0x00, 0x00];
        assert!(matches!(
            decode_all(&left)[..],
            [Ok(Message::Clock(ClockMessage::Ack { .. }))]
        ));
        assert_eq!(
            encode_message(&decode_all(&right)[0].clone().unwrap()),
            right
        );
    }

    #[test]
    fn invalid_bcd_is_an_error() {
        let cases: [(usize, u8, &str); 5] = [
            (3, 0x0b, "right hours"),
            (4, 0x3a, "right minutes"),
            (5, 0x60, "right seconds"),
            (7, 0x7f, "left minutes"),
            (8, 0x1c, "left seconds"),
        ];
        for (index, byte, what) in cases {
            let mut bytes = [0x8d, 0x00, 0x0a, 0x01, 0x23, 0x45, 0x00, 0x05, 0x09, 0x03];
            bytes[index] = byte;
            assert_eq!(
                decode_all(&bytes),
                [Err(DecodeError::BadClockValue { what, byte })],
                "{what}"
            );
        }
    }

    #[test]
    fn version_and_serial_numbers() {
        assert_eq!(
            decode_all(&[0x93, 0x00, 0x05, 0x01, 0x15]),
            [Ok(Message::Version {
                major: 1,
                minor: 21
            })]
        );
        assert_eq!(
            decode_all(&[0x91, 0x00, 0x08, b'1', b'2', b'3', b'4', b'5']),
            [Ok(Message::SerialNr("12345".into()))]
        );
        let mut long = vec![0xa2, 0x00, 0x0d];
        long.extend(b"0123456789");
        assert_eq!(
            decode_all(&long),
            [Ok(Message::LongSerialNr("0123456789".into()))]
        );
        // Encoding keeps the fixed length whatever the text.
        assert_eq!(
            encode_message(&Message::SerialNr("12".into())),
            [0x91, 0x00, 0x08, b'1', b'2', b'0', b'0', b'0']
        );
        assert_eq!(
            encode_message(&Message::SerialNr("1234567é".into())).len(),
            LEN_SERIALNR
        );
    }

    #[test]
    fn every_kind_round_trips() {
        let mut dump = board_to_dump(&Board::new(), Orientation::Reversed);
        dump[20] = None;
        let msgs = [
            Message::BoardDump(dump),
            Message::FieldUpdate {
                field: 63,
                piece: Some(Piece {
                    color: Color::Black,
                    role: Role::Queen,
                }),
            },
            Message::FieldUpdate {
                field: 0,
                piece: None,
            },
            Message::Clock(ClockMessage::Ack {
                raw: [0x0a, 1, 2, 3, 4, 5, 6],
            }),
            Message::Clock(ClockMessage::Times {
                right_ms: 9 * MS_PER_HOUR + 59 * MS_PER_MINUTE + 59 * MS_PER_SECOND,
                left_ms: 0,
                running: false,
                lever_right_high: false,
                battery_low: true,
                no_clock: false,
            }),
            Message::SerialNr("54321".into()),
            Message::LongSerialNr("9876543210".into()),
            Message::Version {
                major: 3,
                minor: 127,
            },
            Message::Unknown { id: 0xa0, len: 10 },
        ];
        let mut bytes = Vec::new();
        for m in &msgs {
            bytes.extend(encode_message(m));
        }
        let got: Vec<_> = decode_all(&bytes).into_iter().map(Result::unwrap).collect();
        assert_eq!(got, msgs);
    }

    #[test]
    fn times_beyond_the_clock_saturate() {
        let m = Message::Clock(ClockMessage::Times {
            right_ms: 50 * MS_PER_HOUR + 1,
            left_ms: 61_500,
            running: true,
            lever_right_high: false,
            battery_low: false,
            no_clock: false,
        });
        let [
            Ok(Message::Clock(ClockMessage::Times {
                right_ms, left_ms, ..
            })),
        ] = decode_all(&encode_message(&m))[..]
        else {
            panic!()
        };
        assert_eq!(
            right_ms,
            9 * MS_PER_HOUR + 59 * MS_PER_MINUTE + 59 * MS_PER_SECOND
        );
        assert_eq!(left_ms, 61_000);
    }

    #[test]
    fn orientation_detection() {
        let normal = board_to_dump(&Board::new(), Orientation::Normal);
        let reversed = board_to_dump(&Board::new(), Orientation::Reversed);
        assert_ne!(normal, reversed);
        assert_eq!(detect_orientation(&normal), Some(Orientation::Normal));
        assert_eq!(detect_orientation(&reversed), Some(Orientation::Reversed));
        // Field 0 of a reversed board is White's h1: a white rook.
        assert_eq!(reversed[0], white(Role::Rook));
        assert_eq!(reversed[3], white(Role::King));
        assert_eq!(detect_orientation(&[None; 64]), None);
        // One move played, a piece missing, or colours swapped: not a start position.
        let mut moved = normal;
        moved.swap(
            usize::from(square_to_field(Square::E2)),
            usize::from(square_to_field(Square::E4)),
        );
        assert_eq!(detect_orientation(&moved), None);
        let mut missing = reversed;
        missing[0] = None;
        assert_eq!(detect_orientation(&missing), None);
        let mut swapped = Board::new();
        swapped.swap_colors();
        assert_eq!(
            detect_orientation(&board_to_dump(&swapped, Orientation::Normal)),
            None
        );
        // Dump and board agree in either orientation.
        for o in [Orientation::Normal, Orientation::Reversed] {
            assert_eq!(
                dump_to_board(&board_to_dump(&Board::new(), o), o),
                Board::new()
            );
        }
    }

    #[test]
    fn dump_gives_a_snapshot_event() {
        let dump = board_to_dump(&Board::new(), Orientation::Reversed);
        assert_eq!(
            to_sensor_events(&Message::BoardDump(dump), Orientation::Reversed),
            [SensorEvent::Snapshot(Sensed::Pieces(Board::new()))]
        );
        assert!(
            to_sensor_events(
                &Message::Version { major: 1, minor: 0 },
                Orientation::Normal
            )
            .is_empty()
        );
    }

    #[test]
    fn error_messages_name_the_problem_and_a_fix() {
        let t = DecodeError::Truncated {
            id: 0x86,
            got: 20,
            expected: Some(67),
        }
        .to_string();
        assert!(
            t.contains("0x86") && t.contains("20 of 67") && t.contains("9600"),
            "{t}"
        );
        let u = DecodeError::Truncated {
            id: 0x90,
            got: 4,
            expected: None,
        }
        .to_string();
        assert!(u.contains("after 4 bytes"), "{u}");
        let b = DecodeError::BadLength {
            id: 0x8e,
            len: 6,
            expected: Some(5),
        }
        .to_string();
        assert!(b.contains("always 5 bytes"), "{b}");
        let c = DecodeError::BadClockValue {
            what: "left minutes",
            byte: 0x7a,
        }
        .to_string();
        assert!(c.contains("left minutes") && c.contains("0x7a"), "{c}");
    }
}
