//! Adjournment through the console, against the daemon in the test's process (see
//! `support::inproc`): the sighted player seals, the envelope's record is written in text
//! and Braille, the daemon stops and starts again on the same folder, the arbiter opens the
//! envelope, the sealed move is made and announced, the blind player executes it on his board and
//! the game is played to its end. And the sealed move that is illegal, which loses.

use crate::support;

use std::fs;

use shakmaty::Color;
use support::{console::ply_of, games::moves_of, inproc::Table, table::temp_dir};

/// Scholar's mate: White (the sighted player) mates with his queen on move four.
const SCHOLARS: &str = "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#";

/// The envelope files of the game folder: (text, brf).
fn envelope(table: &Table, stem: &str) -> (String, String) {
    let folder = table.folder();
    let text = fs::read_to_string(folder.join(format!("{stem}.txt")))
        .unwrap_or_else(|e| panic!("{stem}.txt: {e}"));
    let brf = fs::read_to_string(folder.join(format!("{stem}.brf")))
        .unwrap_or_else(|e| panic!("{stem}.brf: {e}"));
    (text, brf)
}

#[test]
fn a_game_is_adjourned_stopped_resumed_and_finished() {
    let dir = temp_dir("adjourn");
    support::inproc::write_config(&dir, Color::Black);
    let game = moves_of(SCHOLARS);
    // The blind player (Black) thinks a little before his moves; the sighted moves are typed.
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let mut assistant = table.connect();
    for (i, san) in ["e4", "Bc4"].iter().enumerate() {
        assistant.ok(&format!("move {san}"));
        assistant.ok("press");
        // The blind player executes it and answers.
        table.wait_ply(2 * i + 2);
    }
    // White to move at move 3: the arbiter ends the session, White seals Qh5 (written in long
    // algebraic, which is unambiguous).
    let status = table.wait_status("White to move", |s| {
        s.iter().any(|l| l.contains("white to move"))
    });
    assert_eq!(ply_of(&status), 4);
    let mut arbiter = table.arbiter();
    let notes = arbiter.ok("seal Qd1-h5");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("game adjourned: white sealed move 3")),
        "{notes:?}"
    );
    // Nobody may move now; a draw offer may still be made.
    let refused = assistant.refused("move Qh5");
    assert!(refused.contains("the game is adjourned"), "{refused}");
    arbiter.ok("resumption 2026-12-01 10:00 Spielsaal B");
    assistant.ok("offer black");
    let status = arbiter.ok("status");
    assert!(
        status
            .iter()
            .any(|l| l.starts_with("adjourned: white sealed move 3")
                && l.contains("2026-12-01 10:00 Spielsaal B")),
        "{status:?}"
    );
    assert!(
        status
            .iter()
            .any(|l| l.contains("clocks") && l.contains("(stopped)")),
        "{status:?}"
    );
    // Both players were told, without the move.
    let transcript = table.wait_transcript("abgegeben");
    assert!(
        transcript
            .lines()
            .any(|l| l.contains(" both ") && l.contains("Weiß hat den Zug abgegeben")),
        "{transcript}"
    );
    assert!(
        !transcript.contains("Hector fünf"),
        "the sealed move leaked:\n{transcript}"
    );

    let report = table.stop();
    assert!(!report.over);
    // The envelope: the seven items, in text and Braille, never the move.
    let folder = dir.join("played").join(
        report
            .folder
            .file_name()
            .expect("the game folder has a name"),
    );
    let token_before = fs::read_to_string(folder.join("arbiter.token")).unwrap();
    let table = Table::start(&dir, &game, 4.0, false);
    let (text, brf) = envelope(&table, "envelope-3-white");
    for item in [
        "1. Players: White Weiss Sehend, Black Schwarz Blind",
        "2. Position before the sealed move: FEN r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3",
        "3. Time used: White",
        "4. Sealed by: White, Weiss Sehend",
        "5. Number of the sealed move: 3",
        "6. Draw offer: Black's draw offer stands",
        "7. Resumption: 2026-12-01 10:00 Spielsaal B",
    ] {
        assert!(text.contains(item), "{item:?} missing:\n{text}");
    }
    assert!(!text.contains("h5") && !text.contains("Qh"), "{text}");
    assert!(!brf.is_empty() && brf.is_ascii(), "{brf}");
    // The restarted daemon kept the arbiter's token, the adjournment and the offer.
    assert_eq!(
        fs::read_to_string(table.folder().join("arbiter.token")).unwrap(),
        token_before
    );
    let mut arbiter = table.arbiter();
    let status = arbiter.ok("status");
    assert_eq!(ply_of(&status), 4);
    assert!(
        status
            .iter()
            .any(|l| l.starts_with("adjourned: white sealed move 3")),
        "{status:?}"
    );
    // Resumption, both present: the envelope is opened, Qh5 made and said to both, the blind
    // player makes it on his board and replies; White mates.
    let notes = arbiter.ok("open");
    assert!(
        notes.iter().any(|n| n.contains("envelope opened")),
        "{notes:?}"
    );
    // The speech task writes the spoken lines as it says them: wait for the move itself.
    table.wait_transcript("Umschlag geöffnet");
    let transcript = table.wait_transcript("Dame Hector fünf");
    assert!(
        transcript.find("Umschlag geöffnet") < transcript.find("Dame Hector fünf"),
        "{transcript}"
    );
    // He declines the offer by playing on (a move rejects it, 9.1 b).
    table.wait_ply(6);
    let mut assistant = table.connect();
    assistant.ok("move Qxf7");
    assistant.ok("press");
    let status = table.wait_status("the result", |s| s.iter().any(|l| l.starts_with("result ")));
    assert!(
        status
            .iter()
            .any(|l| l.starts_with("result 1-0 (checkmate)")),
        "{status:?}"
    );
    let report = table.stop();
    assert!(report.over);
    assert!(
        report.pgn.contains("Qxf7#") && report.pgn.contains("[Result \"1-0\"]"),
        "{}",
        report.pgn
    );
    // Black's offer, made after the seal, is on the scoresheet next to his last move (E.12).
    assert!(report.pgn.contains("Nc6 { [%clk"), "{}", report.pgn);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_illegal_sealed_move_loses_the_game() {
    let dir = temp_dir("adjourn-illegal");
    support::inproc::write_config(&dir, Color::Black);
    let game = moves_of(SCHOLARS);
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let mut assistant = table.connect();
    assistant.ok("move e4");
    assistant.ok("press");
    table.wait_ply(2);
    // White seals a move no piece of his can make.
    let mut arbiter = table.arbiter();
    arbiter.ok("seal Qd1-d5");
    // Opening it is the arbiter's ruling: offered, with the transcription, before anything is
    // said or ends; confirmed, the game ends.
    let reply = arbiter.send("open");
    assert!(reply.end.is_ok(), "{reply:?}");
    assert!(
        reply.body.iter().any(|n| n.starts_with(
            "the sealed move as transcribed, 'Qd1-d5', is not one legal move here: the game ends: \
             white loses"
        )),
        "{reply:?}"
    );
    assert_eq!(ply_of(&arbiter.ok("status")), 2);
    let reply = arbiter.send("confirm");
    assert!(reply.end.is_ok(), "{reply:?}");
    assert!(
        reply
            .body
            .iter()
            .any(|n| n.contains("sealed move 'Qd1-d5' is not valid")),
        "{reply:?}"
    );
    // Black can mate with his army: White loses (once the search has said so).
    let status = table.wait_status("the result", |s| s.iter().any(|l| l.starts_with("result ")));
    assert!(
        status
            .iter()
            .any(|l| l.starts_with("result 0-1") && l.contains("sealed move")),
        "{status:?}"
    );
    assert_eq!(ply_of(&status), 2, "no move was made");
    let transcript = table.wait_transcript("bgegebener Zug ungültig");
    let transcript_end = table.wait_transcript("Schwarz gewinnt");
    assert!(
        transcript_end.find("bgegebener Zug ungültig") < transcript_end.find("Schwarz gewinnt"),
        "{transcript}"
    );
    let report = table.stop();
    assert!(report.over);
    assert!(report.pgn.contains("0-1"), "{}", report.pgn);
    assert!(report.pgn.contains("rules infraction"), "{}", report.pgn);
    fs::remove_dir_all(&dir).unwrap();
}
