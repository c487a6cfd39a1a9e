//! The clock commands' bytes, the ACK's bit layout, and the driver against a clock that answers,
//! refuses, stays silent, drifts and goes away.

use super::*;

fn face(left_s: u64, right_s: u64, running: Option<ClockSide>, at: Millis) -> ClockFace {
    ClockFace {
        left_ms: left_s * 1000,
        right_ms: right_s * 1000,
        running,
        at,
    }
}

fn ack(command: u8, accepted: bool) -> ClockMessage {
    ClockMessage::Ack {
        raw: ClockAck {
            accepted,
            command,
            data: [0x21, 0],
        }
        .to_raw(),
    }
}

fn times(left_ms: Millis, right_ms: Millis) -> ClockMessage {
    ClockMessage::Times {
        right_ms,
        left_ms,
        running: true,
        lever_right_high: false,
        battery_low: false,
        no_clock: false,
    }
}

const NO_CLOCK: ClockMessage = ClockMessage::NO_CLOCK;

/// A driver past its handshake, with a clock that said version 2.1 (a DGT 3000).
fn ready_driver() -> ClockDriver {
    let mut driver = ClockDriver::new();
    assert_eq!(
        driver.poll_transmit(0),
        Some(vec![0x2b, 0x03, 0x03, 0x09, 0x00])
    );
    let notes = driver.received(&ack(CMD_VERSION, true), 10);
    assert_eq!(
        notes,
        vec![ClockNote::Ready {
            version: Some((2, 1))
        }]
    );
    assert!(driver.ready());
    driver
}

#[test]
fn set_and_run_is_plain_binary_with_the_running_side() {
    // 1:30:00 left running, 0:05:09 right, as the reference's layout says.
    let command = ClockCommand::set_and_run(&face(5400, 309, Some(ClockSide::Left), 0));
    assert_eq!(
        command.encode(),
        vec![0x2b, 0x0a, 0x03, 0x0a, 1, 30, 0, 0, 5, 9, 0x01, 0x00]
    );
    let stopped = ClockCommand::set_and_run(&face(59, 3600, None, 0));
    assert_eq!(stopped.encode()[4..11], [0, 0, 59, 1, 0, 0, 0x04]);
    let right = ClockCommand::set_and_run(&face(1, 2, Some(ClockSide::Right), 0));
    assert_eq!(right.encode()[10], 0x02);
}

#[test]
fn times_are_rounded_to_the_nearest_second_and_capped_at_the_display() {
    let f = ClockFace {
        left_ms: 59_499,
        right_ms: 59_500,
        running: None,
        at: 0,
    };
    assert_eq!(
        ClockCommand::set_and_run(&f),
        ClockCommand::SetAndRun {
            left_s: 59,
            right_s: 60,
            running: None
        }
    );
    let long = face(20 * 3600, 0, None, 0);
    assert_eq!(ClockCommand::set_and_run(&long).encode()[4..7], [9, 59, 59]);
}

#[test]
fn text_is_eight_printable_characters() {
    let command = ClockCommand::text("Nf3", 0);
    assert_eq!(
        command.encode(),
        vec![
            0x2b, 0x0c, 0x03, 0x0c, b'N', b'f', b'3', b' ', b' ', b' ', b' ', b' ', 0, 0x00
        ]
    );
    let ClockCommand::Text { text, .. } = ClockCommand::text("Remis? über alles", 2) else {
        unreachable!()
    };
    assert_eq!(&text, b"Remis? ?");
}

#[test]
fn every_command_reads_back() {
    for command in [
        ClockCommand::Version,
        ClockCommand::DisplayEnd,
        ClockCommand::set_and_run(&face(5399, 7, Some(ClockSide::Right), 0)),
        ClockCommand::set_and_run(&face(0, 0, None, 0)),
        ClockCommand::text("O-O-O", 3),
        ClockCommand::Beep { n: 2 },
    ] {
        let mut bytes = command.encode();
        let len = bytes.len();
        bytes.extend([0x42, 0x2b]);
        assert_eq!(ClockCommand::decode(&bytes), Some((command, len)));
        assert_eq!(ClockCommand::decode(&bytes[..len - 1]), None);
    }
    assert_eq!(ClockCommand::decode(&[0x42]), None);
}

#[test]
fn the_ack_spreads_its_top_bits_over_the_hours_bytes() {
    let ack = ClockAck {
        accepted: true,
        command: 0x88,
        data: [0x86, 0xb1],
    };
    let raw = ack.to_raw();
    assert!(raw.iter().all(|b| b & 0x80 == 0), "{raw:02x?}");
    assert_eq!(raw[0] & 0x0f, 0x0a);
    assert_eq!(raw[3] & 0x0f, 0x0a);
    assert_eq!(ClockAck::from_raw(&raw), ack);
    // The board's decoder sees an ACK, not times.
    let frame =
        crate::board::dgt::encode_message(&crate::board::dgt::Message::Clock(ClockMessage::Ack {
            raw,
        }));
    let mut decoder = crate::board::dgt::Decoder::default();
    decoder.push(&frame);
    assert!(matches!(
        decoder.next(),
        Some(Ok(crate::board::dgt::Message::Clock(
            ClockMessage::Ack { .. }
        )))
    ));
    let refused = ClockAck {
        accepted: false,
        command: CMD_SET_AND_RUN,
        data: [0, 0],
    };
    assert!(!ClockAck::from_raw(&refused.to_raw()).accepted);
}

#[test]
fn one_command_in_flight_and_only_the_newest_face_is_sent() {
    let mut driver = ready_driver();
    driver.set(face(5400, 5400, Some(ClockSide::Left), 100));
    let first = driver.poll_transmit(100).expect("the start");
    assert_eq!(first[4..11], [1, 30, 0, 1, 30, 0, 0x01]);
    // Two changes while the first waits for its ACK: nothing is written.
    driver.set(face(5390, 5400, Some(ClockSide::Right), 10_100));
    assert_eq!(driver.poll_transmit(10_100), None);
    driver.set(face(5390, 5410, Some(ClockSide::Right), 10_200));
    assert_eq!(driver.poll_transmit(10_200), None);
    assert!(
        driver
            .received(&ack(CMD_SET_AND_RUN, true), 10_300)
            .is_empty()
    );
    // The newest face, at the moment it is sent: right has run 0.8 s since 10_200.
    let second = driver.poll_transmit(11_000).expect("the newest face");
    assert_eq!(second[4..11], [1, 29, 50, 1, 30, 9, 0x02]);
    driver.received(&ack(CMD_SET_AND_RUN, true), 11_050);
    // The clock shows it: nothing more to send.
    assert_eq!(driver.poll_transmit(12_000), None);
    assert_eq!(driver.next_deadline(), None);
    // The same clock handed over again (a later moment of the same run) is not sent again.
    driver.set(face(5390, 5405, Some(ClockSide::Right), 15_200));
    assert_eq!(driver.poll_transmit(15_300), None);
}

#[test]
fn a_nack_goes_again_once_then_the_clock_is_not_in_pc_mode_said_once() {
    let mut driver = ready_driver();
    driver.set(face(600, 600, None, 0));
    assert!(driver.poll_transmit(0).is_some());
    assert!(driver.received(&ack(CMD_SET_AND_RUN, false), 20).is_empty());
    assert!(
        driver.poll_transmit(30).is_some(),
        "sent again after the NACK"
    );
    let notes = driver.received(&ack(CMD_SET_AND_RUN, false), 50);
    assert_eq!(notes, vec![ClockNote::NotInPcMode]);
    assert!(!driver.ready());
    // Not flooded: nothing until the retry.
    assert_eq!(driver.poll_transmit(1000), None);
    assert_eq!(driver.next_deadline(), Some(50 + RETRY_MS));
    assert!(driver.tick(50 + RETRY_MS).is_empty());
    assert!(driver.poll_transmit(50 + RETRY_MS).is_some(), "tried again");
    driver.received(&ack(CMD_SET_AND_RUN, false), 5100);
    driver.poll_transmit(5110);
    // Refused again: not said again.
    assert!(
        driver
            .received(&ack(CMD_SET_AND_RUN, false), 5120)
            .is_empty()
    );
    // The arbiter switches the clock to its PC mode: it takes the next one, and that is said.
    driver.tick(5120 + RETRY_MS);
    assert!(driver.poll_transmit(5120 + RETRY_MS).is_some());
    let notes = driver.received(&ack(CMD_SET_AND_RUN, true), 5200 + RETRY_MS);
    assert_eq!(notes, vec![ClockNote::Ready { version: None }]);
    assert!(driver.ready());
}

#[test]
fn a_lost_ack_is_sent_again_with_the_times_of_now_then_the_clock_is_gone() {
    let mut driver = ready_driver();
    driver.set(face(600, 600, Some(ClockSide::Left), 1000));
    let first = driver.poll_transmit(1000).unwrap();
    assert_eq!(first[4..7], [0, 10, 0]);
    assert_eq!(driver.next_deadline(), Some(1000 + ACK_TIMEOUT_MS));
    assert!(driver.tick(2999).is_empty());
    assert_eq!(driver.poll_transmit(2999), None, "not before the timeout");
    assert!(driver.tick(3000).is_empty());
    let again = driver.poll_transmit(3000).expect("sent again");
    assert_eq!(again[4..7], [0, 9, 58], "left has run 2 s");
    driver.tick(5000);
    assert!(driver.poll_transmit(5000).is_some(), "the third attempt");
    assert_eq!(driver.tick(7000), vec![ClockNote::Absent]);
    assert_eq!(driver.poll_transmit(7000), None);
    // Said once, tried again later; a late ACK of the first is taken then.
    assert_eq!(driver.next_deadline(), Some(7000 + RETRY_MS));
    driver.tick(7000 + RETRY_MS);
    assert!(driver.poll_transmit(7000 + RETRY_MS).is_some());
    driver.tick(7000 + RETRY_MS + ACK_TIMEOUT_MS);
    driver.poll_transmit(7000 + RETRY_MS + ACK_TIMEOUT_MS);
    driver.tick(7000 + RETRY_MS + 2 * ACK_TIMEOUT_MS);
    driver.poll_transmit(7000 + RETRY_MS + 2 * ACK_TIMEOUT_MS);
    assert!(
        driver.tick(7000 + RETRY_MS + 3 * ACK_TIMEOUT_MS).is_empty(),
        "not said twice"
    );
}

#[test]
fn a_clock_unplugged_and_back_is_set_again_after_a_new_handshake() {
    let mut driver = ready_driver();
    driver.set(face(600, 600, Some(ClockSide::Left), 0));
    driver.poll_transmit(0);
    driver.received(&ack(CMD_SET_AND_RUN, true), 30);
    assert_eq!(driver.received(&NO_CLOCK, 1000), vec![ClockNote::Absent]);
    assert!(driver.received(&NO_CLOCK, 2000).is_empty(), "said once");
    assert_eq!(driver.poll_transmit(2000), None);
    // Plugged back: its first reading starts the handshake, then the official time goes out.
    assert!(driver.received(&times(0, 0), 9000).is_empty());
    assert_eq!(
        driver.poll_transmit(9000),
        Some(ClockCommand::Version.encode())
    );
    assert_eq!(
        driver.received(&ack(CMD_VERSION, true), 9010),
        vec![ClockNote::Ready {
            version: Some((2, 1))
        }]
    );
    let set = driver.poll_transmit(9020).expect("the official time");
    assert_eq!(set[4..7], [0, 9, 51], "600 s less 9.02 s, rounded");
}

#[test]
fn a_reading_far_from_the_official_clock_is_set_right_near_one_is_not() {
    let mut driver = ready_driver();
    driver.set(face(600, 600, Some(ClockSide::Left), 0));
    driver.poll_transmit(0);
    driver.received(&ack(CMD_SET_AND_RUN, true), 20);
    // Right after the ACK the clock may still show the old setting: not judged.
    assert!(driver.received(&times(0, 0), 500).is_empty());
    // One second off: telemetry only.
    assert_eq!(
        driver.received(&times(589_000, 600_000), 10_000),
        vec![ClockNote::Offset {
            left_ms: -1000,
            right_ms: 0
        }]
    );
    assert_eq!(driver.poll_transmit(10_000), None);
    // Three seconds off: said and set right with the official times of now.
    let notes = driver.received(&times(587_000, 600_000), 10_000);
    assert_eq!(
        notes,
        vec![ClockNote::Drift {
            left_ms: -3000,
            right_ms: 0
        }]
    );
    let set = driver.poll_transmit(10_000).expect("set right");
    assert_eq!(set[4..7], [0, 9, 50]);
}

#[test]
fn a_text_shows_after_the_times_and_the_times_come_back_at_its_end() {
    let mut driver = ready_driver();
    driver.set(face(600, 600, Some(ClockSide::Right), 0));
    driver.show_text("Nf3", 0, 3000, 0);
    let first = driver.poll_transmit(0).unwrap();
    assert_eq!(first[3], CMD_SET_AND_RUN, "the times first");
    driver.received(&ack(CMD_SET_AND_RUN, true), 10);
    let text = driver.poll_transmit(10).unwrap();
    assert_eq!(&text[3..7], &[CMD_ASCII, b'N', b'f', b'3']);
    driver.received(&ack(CMD_ASCII, true), 20);
    assert_eq!(driver.next_deadline(), Some(3000));
    assert_eq!(driver.poll_transmit(2999), None);
    assert_eq!(
        driver.poll_transmit(3000),
        Some(ClockCommand::DisplayEnd.encode())
    );
    driver.received(&ack(CMD_DISPLAY_END, true), 3010);
    assert_eq!(driver.next_deadline(), None);
    // A text whose time passed before it could be sent is dropped.
    driver.show_text("Remis?", 0, 1000, 4000);
    assert_eq!(driver.poll_transmit(6000), None);
}

#[test]
fn an_ack_of_another_command_or_a_button_is_not_taken_for_the_one_in_flight() {
    let mut driver = ready_driver();
    driver.set(face(60, 60, None, 0));
    driver.poll_transmit(0);
    assert!(driver.received(&ack(0x88, true), 10).is_empty());
    assert_eq!(
        driver.poll_transmit(20),
        None,
        "still waiting for its own ACK"
    );
    driver.received(&ack(CMD_SET_AND_RUN, true), 30);
    assert_eq!(driver.poll_transmit(40), None);
    assert!(driver.shown(40).is_some());
}

#[test]
fn a_clock_that_never_answers_the_handshake_is_absent_without_a_busy_loop() {
    let mut driver = ClockDriver::new();
    assert!(driver.poll_transmit(0).is_some());
    for t in [2000, 4000] {
        driver.tick(t);
        assert!(driver.poll_transmit(t).is_some());
    }
    assert_eq!(driver.tick(6000), vec![ClockNote::Absent]);
    // Nothing wanted yet: the retry moves on instead of firing at once again and again.
    assert!(driver.tick(6000 + RETRY_MS).is_empty());
    assert_eq!(driver.poll_transmit(6000 + RETRY_MS), None);
    assert!(driver.next_deadline().unwrap() > 6000 + RETRY_MS);
}

#[test]
fn the_official_face_puts_each_colour_on_its_side_and_holds_a_delay() {
    use crate::rules::{clock::Clock, time_control::TimeControl};
    let mut clock = Clock::new("300+2".parse::<TimeControl>().unwrap());
    let (before, change) = ClockFace::official(&clock, Color::White, 0);
    assert_eq!(before, face(300, 300, None, 0));
    assert_eq!(change, None);
    clock.start(Color::White, 1000);
    let (white_left, _) = ClockFace::official(&clock, Color::White, 4000);
    assert_eq!(white_left, face(297, 300, Some(ClockSide::Left), 4000));
    let (black_left, _) = ClockFace::official(&clock, Color::Black, 4000);
    assert_eq!(black_left, face(300, 297, Some(ClockSide::Right), 4000));
    // A delay (6.2, "d5"): the main time stands for the first five seconds of a move.
    let mut delayed = Clock::new("300d5".parse::<TimeControl>().unwrap());
    delayed.start(Color::White, 0);
    let (held, change) = ClockFace::official(&delayed, Color::White, 2000);
    assert_eq!(held, face(300, 300, None, 2000));
    assert_eq!(change, Some(5000));
    let (runs, change) = ClockFace::official(&delayed, Color::White, 6000);
    assert_eq!(runs, face(299, 300, Some(ClockSide::Left), 6000));
    assert_eq!(change, None);
}

/// A DGT XL (version 1.x) has no ASCII display: it is sent the times and never a text (an
/// unknown command could go unanswered and make a good clock look gone). A clock that refuses a
/// text twice keeps its times, and is sent no text again; it is not "out of PC mode".
#[test]
fn a_dgt_xl_gets_the_times_and_no_text_and_a_refused_text_is_not_a_clock_out_of_pc_mode() {
    let mut xl = ClockDriver::new();
    xl.poll_transmit(0);
    let version_1_14 = ClockMessage::Ack {
        raw: ClockAck {
            accepted: true,
            command: CMD_VERSION,
            data: [0x1e, 0],
        }
        .to_raw(),
    };
    assert_eq!(
        xl.received(&version_1_14, 10),
        vec![ClockNote::Ready {
            version: Some((1, 14))
        }]
    );
    xl.set(face(600, 600, Some(ClockSide::Left), 0));
    xl.show_text("Nf3", 0, 3000, 0);
    let set = xl.poll_transmit(20).expect("the times");
    assert_eq!(set[3], CMD_SET_AND_RUN);
    xl.received(&ack(CMD_SET_AND_RUN, true), 30);
    assert_eq!(xl.poll_transmit(40), None, "no text for a DGT XL");
    assert_eq!(xl.tick(5_000), vec![]);
    assert_eq!(xl.poll_transmit(5_000), None, "nor a display end");

    // A DGT 3000 that refuses a text anyway.
    let mut driver = ready_driver();
    driver.set(face(600, 600, Some(ClockSide::Left), 0));
    driver.poll_transmit(0);
    driver.received(&ack(CMD_SET_AND_RUN, true), 10);
    driver.show_text("Nf3", 0, 3000, 20);
    let text = driver.poll_transmit(20).expect("a text");
    assert_eq!(text[3], CMD_ASCII);
    assert!(driver.received(&ack(CMD_ASCII, false), 30).is_empty());
    assert_eq!(driver.poll_transmit(30), Some(text), "sent again once");
    assert!(driver.received(&ack(CMD_ASCII, false), 40).is_empty());
    assert!(driver.ready(), "still taking the times");
    driver.show_text("Nc6", 0, 3000, 50);
    assert_eq!(driver.poll_transmit(50), None, "no text again");
    driver.set(face(590, 600, Some(ClockSide::Right), 100));
    assert_eq!(
        driver.poll_transmit(100).expect("the times")[3],
        CMD_SET_AND_RUN
    );
}

/// A flag falls and the result follows at once: the sighted player reads both, the flag first
/// for as long as it takes to read it, then the result until its end; a newer text does not
/// wipe one the clock has not shown yet (the times were being set when both came).
#[test]
fn two_texts_said_together_are_both_shown_in_order() {
    let mut driver = ready_driver();
    driver.set(face(0, 600, None, 0));
    driver.show_text("Zeit W", 0, 15_000, 0);
    driver.show_text("0-1", 0, 15_000, 0);
    let first = driver.poll_transmit(0).unwrap();
    assert_eq!(first[3], CMD_SET_AND_RUN, "the times first");
    driver.received(&ack(CMD_SET_AND_RUN, true), 10);
    let flag = driver.poll_transmit(10).unwrap();
    assert_eq!(&flag[3..9], &[CMD_ASCII, b'Z', b'e', b'i', b't', b' ']);
    driver.received(&ack(CMD_ASCII, true), 20);
    assert_eq!(driver.next_deadline(), Some(10 + READ_MS));
    assert_eq!(
        driver.poll_transmit(10 + READ_MS - 1),
        None,
        "the flag is read"
    );
    let result = driver.poll_transmit(10 + READ_MS).unwrap();
    assert_eq!(&result[3..7], &[CMD_ASCII, b'0', b'-', b'1']);
    driver.received(&ack(CMD_ASCII, true), 20 + READ_MS);
    assert_eq!(
        driver.next_deadline(),
        Some(15_000),
        "the result until its end"
    );
    assert_eq!(
        driver.poll_transmit(15_000),
        Some(ClockCommand::DisplayEnd.encode())
    );
}

/// A clock that did not answer for a while is not shown a backlog of stale moves: at most
/// the newest few wait, and one whose time passed is dropped.
#[test]
fn waiting_texts_are_few_and_fresh() {
    let mut driver = ready_driver();
    for (i, text) in ["a1", "b2", "c3", "d4", "e5", "f6"].iter().enumerate() {
        driver.show_text(text, 0, 3000, i as Millis);
    }
    let mut shown = Vec::new();
    let mut now = 0;
    while let Some(bytes) = driver.poll_transmit(now) {
        if bytes[3] == CMD_ASCII {
            shown.push(String::from_utf8_lossy(&bytes[4..6]).into_owned());
        }
        driver.received(&ack(bytes[3], true), now);
        now = driver.next_deadline().unwrap_or(now + 1);
    }
    assert_eq!(
        shown,
        ["c3", "d4"],
        "the oldest two dropped, the last two too late"
    );
}
