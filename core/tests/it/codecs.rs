//! Property tests for the two sensor-board codecs (`board::dgt`, `board::line`): whatever bytes
//! arrive, in whatever pieces, the decoders never panic, always terminate, keep their buffers
//! bounded, decode the same no matter how the bytes were split, never invent a lift or a placement,
//! and still find valid messages buried in noise.

use proptest::prelude::*;
use shakmaty::{Bitboard, Color, Piece, Role, Square};
use tactus_core::board::dgt::{self, ClockMessage, DecodeError, Decoder, MAX_FRAME_LEN, Message};
use tactus_core::board::line::{self, LineDecoder, LineError, LineMessage, MAX_LINE_LEN};

// ---------------------------------------------------------------------------------------------
// Strategies

/// Bytes that look like DGT traffic often enough to reach every branch of the framer.
fn dgt_noise_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => any::<u8>(),
        1 => prop::sample::select(vec![0x86u8, 0x8d, 0x8e, 0x91, 0x93, 0xa2, 0x90, 0x00, 0x05, 0x43, 0x0a, 0x0d]),
    ]
}

/// Bytes that look like line-protocol traffic often enough to form near-miss lines.
fn line_noise_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        2 => any::<u8>(),
        3 => prop::sample::select(b"LPSBHEV? \r\n\ne2E4h9z0F1".to_vec()),
    ]
}

/// Split points for feeding a byte vector in pieces.
fn chunked<S: Strategy<Value = u8>>(
    byte: S,
    max_len: usize,
) -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    prop::collection::vec(byte, 0..max_len).prop_flat_map(|bytes| {
        let len = bytes.len();
        (Just(bytes), prop::collection::vec(0..=len, 0..8))
    })
}

fn piece() -> impl Strategy<Value = Option<Piece>> {
    let roles = vec![
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    prop::option::of(
        (any::<bool>(), prop::sample::select(roles)).prop_map(|(white, role)| Piece {
            color: if white { Color::White } else { Color::Black },
            role,
        }),
    )
}

fn digits(n: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::char::range('0', '9'), n).prop_map(|v| v.into_iter().collect())
}

/// Whole seconds the clock can show: up to 9:59:59.
fn clock_ms() -> impl Strategy<Value = u64> {
    (0u64..=(9 * 3600 + 59 * 60 + 59)).prop_map(|s| s * 1000)
}

/// Every DGT message the decoder produces from a well-formed frame, with values the protocol can
/// carry.
fn dgt_message() -> impl Strategy<Value = Message> {
    prop_oneof![
        (0u8..64, piece()).prop_map(|(field, piece)| Message::FieldUpdate { field, piece }),
        prop::collection::vec(piece(), 64).prop_map(|v| {
            let mut dump = [None; 64];
            dump.copy_from_slice(&v);
            Message::BoardDump(dump)
        }),
        (0u8..128, 0u8..128).prop_map(|(major, minor)| Message::Version { major, minor }),
        digits(5).prop_map(Message::SerialNr),
        digits(10).prop_map(Message::LongSerialNr),
        (clock_ms(), clock_ms(), any::<[bool; 4]>()).prop_map(|(right_ms, left_ms, f)| {
            Message::Clock(ClockMessage::Times {
                right_ms,
                left_ms,
                running: f[0],
                lever_right_high: f[1],
                battery_low: f[2],
                no_clock: f[3],
            })
        }),
        (0u8..8, prop::array::uniform6(0u8..128)).prop_map(|(high, rest)| {
            let mut raw = [0u8; 7];
            raw[0] = (high << 4) | 0x0a;
            raw[1..].copy_from_slice(&rest);
            Message::Clock(ClockMessage::Ack { raw })
        }),
        // Ids this codec does not decode, with a plausible length.
        (
            prop::sample::select(vec![0x87u8, 0x90, 0x92, 0xa0, 0xff]),
            3usize..=MAX_FRAME_LEN
        )
            .prop_map(|(id, len)| Message::Unknown { id, len }),
    ]
}

fn square() -> impl Strategy<Value = Square> {
    (0u32..64).prop_map(Square::new)
}

/// Free text a board may send: printable ASCII without surrounding spaces.
fn text() -> impl Strategy<Value = String> {
    "[!-~]([ -~]{0,40}[!-~])?"
}

fn line_message() -> impl Strategy<Value = LineMessage> {
    prop_oneof![
        square().prop_map(LineMessage::Lift),
        square().prop_map(LineMessage::Place),
        any::<u64>().prop_map(|b| LineMessage::Snapshot(Bitboard(b))),
        (1u8..=255).prop_map(LineMessage::Button),
        text().prop_map(LineMessage::Hello),
        text().prop_map(LineMessage::BoardError),
        "[a-zA-Z0-9]{0,6}".prop_map(|tail| LineMessage::Unknown(format!("Z{tail}"))),
    ]
}

// ---------------------------------------------------------------------------------------------
// Feeding

/// Cut `bytes` at `cuts` (any order, any repeats) into pieces.
fn pieces<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(bytes.len())).collect();
    cuts.push(0);
    cuts.push(bytes.len());
    cuts.sort_unstable();
    cuts.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
}

/// Decode `bytes` fed in pieces; checks the buffer bound after every piece.
fn feed_dgt(bytes: &[u8], cuts: &[usize]) -> (Vec<Result<Message, DecodeError>>, u64) {
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    for piece in pieces(bytes, cuts) {
        decoder.push(piece);
        // Each item consumes at least one byte, so more items than bytes would mean a loop.
        let before = out.len();
        out.extend(decoder.by_ref().take(bytes.len() + 1));
        assert!(
            out.len() - before <= bytes.len(),
            "decoder did not terminate"
        );
        assert!(decoder.next().is_none());
        assert!(
            decoder.buffered_len() < MAX_FRAME_LEN,
            "buffer grew to {}",
            decoder.buffered_len()
        );
    }
    (out, decoder.skipped_bytes())
}

fn feed_line(bytes: &[u8], cuts: &[usize]) -> (Vec<Result<LineMessage, LineError>>, u64) {
    let mut decoder = LineDecoder::new();
    let mut out = Vec::new();
    for piece in pieces(bytes, cuts) {
        decoder.push(piece);
        let before = out.len();
        out.extend(decoder.by_ref().take(bytes.len() + 1));
        assert!(
            out.len() - before <= bytes.len(),
            "decoder did not terminate"
        );
        assert!(decoder.next().is_none());
        assert!(
            decoder.buffered_len() <= MAX_LINE_LEN,
            "buffer grew to {}",
            decoder.buffered_len()
        );
    }
    (out, decoder.unknown_lines())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

// ---------------------------------------------------------------------------------------------
// DGT

proptest! {
    #[test]
    fn dgt_any_bytes_any_chunking_is_safe_and_split_invariant((bytes, cuts) in chunked(dgt_noise_byte(), 400)) {
        let whole = feed_dgt(&bytes, &[]);
        let split = feed_dgt(&bytes, &cuts);
        prop_assert_eq!(&whole, &split);
        let (messages, skipped) = whole;
        prop_assert!(skipped <= bytes.len() as u64);
        // Nothing is invented: every board event comes from the exact frame in the input.
        for msg in messages.iter().flatten() {
            if matches!(msg, Message::FieldUpdate { .. } | Message::BoardDump(_)) {
                prop_assert!(contains(&bytes, &dgt::encode_message(msg)), "{msg:?} not in the input");
            }
        }
    }

    #[test]
    fn dgt_bytes_without_a_message_start_give_nothing(bytes in prop::collection::vec(0u8..0x80, 0..300)) {
        let (messages, skipped) = feed_dgt(&bytes, &[]);
        prop_assert!(messages.is_empty());
        prop_assert_eq!(skipped, bytes.len() as u64);
    }

    #[test]
    fn dgt_frames_in_noise_are_found(
        (before, cuts) in chunked(dgt_noise_byte(), 200),
        after in prop::collection::vec(dgt_noise_byte(), 0..200),
        msg in dgt_message(),
    ) {
        let mut bytes = before;
        bytes.extend(dgt::encode_message(&msg));
        bytes.extend(after);
        let (messages, _) = feed_dgt(&bytes, &cuts);
        prop_assert!(messages.contains(&Ok(msg.clone())), "{msg:?} lost in {messages:?}");
    }

    #[test]
    fn dgt_round_trip(msgs in prop::collection::vec(dgt_message(), 0..6), cuts in prop::collection::vec(any::<usize>(), 0..6)) {
        let bytes: Vec<u8> = msgs.iter().flat_map(dgt::encode_message).collect();
        let cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        let (decoded, skipped) = feed_dgt(&bytes, &cuts);
        prop_assert_eq!(decoded, msgs.into_iter().map(Ok).collect::<Vec<_>>());
        prop_assert_eq!(skipped, 0);
    }

    #[test]
    fn dgt_orientation_of_random_dumps(pieces in prop::collection::vec(piece(), 64)) {
        let mut dump = [None; 64];
        dump.copy_from_slice(&pieces);
        // 13^64 dumps, two of them start positions: a random one is not.
        prop_assert_eq!(dgt::detect_orientation(&dump), None);
    }

    #[test]
    fn dgt_orientation_of_a_start_position_with_one_field_changed(
        reversed in any::<bool>(),
        field in 0usize..64,
        replacement in piece(),
    ) {
        use tactus_core::board::Orientation;
        let orientation = if reversed { Orientation::Reversed } else { Orientation::Normal };
        let mut dump = dgt::board_to_dump(&shakmaty::Board::new(), orientation);
        prop_assert_eq!(dgt::detect_orientation(&dump), Some(orientation));
        let changed = dump[field] != replacement;
        dump[field] = replacement;
        let expected = if changed { None } else { Some(orientation) };
        prop_assert_eq!(dgt::detect_orientation(&dump), expected);
    }
}

// ---------------------------------------------------------------------------------------------
// Line protocol

proptest! {
    #[test]
    fn line_any_bytes_any_chunking_is_safe_and_split_invariant((bytes, cuts) in chunked(line_noise_byte(), 800)) {
        let whole = feed_line(&bytes, &[]);
        let split = feed_line(&bytes, &cuts);
        prop_assert_eq!(whole, split);
    }

    #[test]
    fn line_long_noise_stays_bounded((bytes, cuts) in chunked(prop::num::u8::ANY.prop_filter("no LF", |&b| b != b'\n'), 2000)) {
        let (messages, _) = feed_line(&bytes, &cuts);
        // No newline: at most one error for the over-long line, and nothing else.
        prop_assert!(messages.len() <= 1);
        let all_too_long = messages.iter().all(|m| matches!(m, Err(LineError::LineTooLong { .. })));
        prop_assert!(all_too_long, "{:?}", messages);
    }

    #[test]
    fn line_no_lift_or_place_without_their_letters(
        (bytes, cuts) in chunked(line_noise_byte().prop_filter("no L or P", |&b| b != b'L' && b != b'P'), 600)
    ) {
        let (messages, _) = feed_line(&bytes, &cuts);
        for msg in messages.iter().flatten() {
            prop_assert!(!matches!(msg, LineMessage::Lift(_) | LineMessage::Place(_)), "{msg:?} invented");
        }
    }

    #[test]
    fn line_messages_in_noise_are_found(
        (before, cuts) in chunked(line_noise_byte(), 600),
        after in prop::collection::vec(line_noise_byte(), 0..100),
        msg in line_message(),
        bare_lf in any::<bool>(),
    ) {
        let mut bytes = before;
        bytes.push(b'\n');
        let mut encoded = line::encode_message(&msg);
        if bare_lf {
            encoded.truncate(encoded.len() - 2);
            encoded.push(b'\n');
        }
        bytes.extend(encoded);
        bytes.extend(after);
        let (messages, _) = feed_line(&bytes, &cuts);
        prop_assert!(messages.contains(&Ok(msg.clone())), "{msg:?} lost in {messages:?}");
    }

    #[test]
    fn line_round_trip(msgs in prop::collection::vec(line_message(), 0..8), cuts in prop::collection::vec(any::<usize>(), 0..6)) {
        let bytes: Vec<u8> = msgs.iter().flat_map(line::encode_message).collect();
        let cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        let (decoded, unknown) = feed_line(&bytes, &cuts);
        let expected_unknown = msgs.iter().filter(|m| matches!(m, LineMessage::Unknown(_))).count() as u64;
        prop_assert_eq!(decoded, msgs.into_iter().map(Ok).collect::<Vec<_>>());
        prop_assert_eq!(unknown, expected_unknown);
    }
}
