//! The blind player's requests and the assistant's resignation against the daemon in the test's
//! own process (`support/inproc.rs`): the blind player (Black) plays on his simulated tactile
//! board, the assistant types the sighted player's moves.
//!
//! - F.9 d: a request the assistant or the arbiter types is answered on their console only; the
//!   player's keypad and the assistant's `tell` say it to the blind player. Every request is
//!   noted in the transcript: who asked, what, and the answer.
//! - A resignation needs its side, and its result is said to both players.

use crate::support;

use std::{fs, path::PathBuf};

use shakmaty::Color;
use support::{
    games::moves_of,
    inproc::{Conn, Table, write_config},
    table::temp_dir,
};
use tactus_core::announce::{Announcement, ResultWords, voice::Style, voice::VoicePack};

/// The table's voice (de-fide, as `write_config` sets it).
fn words(announcement: &Announcement) -> String {
    let pack = VoicePack::builtin("de-fide").expect("the built-in German pack");
    pack.render(announcement, Style::San).text
}

/// The transcript's notes, without the time.
fn notes(table: &Table) -> Vec<String> {
    table.said_to("note")
}

fn start(tag: &str, game: &str) -> (PathBuf, Table) {
    let dir = temp_dir(tag);
    write_config(&dir, Color::Black);
    let table = Table::start(&dir, &moves_of(game), 4.0, true);
    table.wait_started();
    (dir, table)
}

fn sighted_move(table: &Table, assistant: &mut Conn, san: &str, ply_after: usize) {
    assistant.ok(&format!("move {san}"));
    assistant.ok("press");
    table.wait_ply(ply_after);
}

/// F.9 d: "at the blind player's request". The assistant's and the arbiter's own questions are
/// answered on their consoles and never said to him; `tell` passes an answer on; his keypad asks
/// for himself. The transcript notes each request: who asked, what, and the answer.
#[test]
fn requests_f9_d_reach_his_ear_only_at_his_request() {
    let (dir, table) = start("requests-f9d", "e4 e5");
    let mut assistant = table.connect();
    let mut arbiter = table.arbiter();
    let mut player = table.player();
    sighted_move(&table, &mut assistant, "e4", 2);
    // Printed in the words he hears (issue 15), also on the assistant's and arbiter's consoles.
    let count_words = words(&Announcement::MovesCompleted { white: 1, black: 1 });
    let count = [count_words.clone()];

    // What he hears when he asks for the last move himself.
    let first = table.said_to("blind").len();
    let last = player.ok("last");
    let last_words = table.said_after("blind", first, 1);

    let before = table.said_to("blind").len();
    assert_eq!(assistant.ok("count"), count);
    assert_eq!(assistant.ok("c"), count);
    assert_eq!(arbiter.ok("count"), count);
    let time = arbiter.ok("time");
    assert!(time[0].starts_with("Weiß: verbraucht "), "{time:?}");
    // Then one passed on: the first thing he hears after the questions above is this answer, so
    // none of them reached him (speech says and writes in the order it was given).
    assert_eq!(assistant.ok("tell last"), last);
    assert_eq!(table.said_after("blind", before, 1), last_words);
    // His own keypad speaks to him.
    assert_eq!(player.ok("c"), count);
    assert_eq!(
        table.said_after("blind", before, 2),
        [last_words[0].clone(), count_words.clone()]
    );
    let transcript = table.transcript();
    let heard = table.said_to("blind");
    assert_eq!(
        heard.iter().filter(|l| **l == count_words).count(),
        1,
        "the move count is said once, at his request:\n{transcript}"
    );
    assert!(
        !heard.iter().any(|l| l.contains("verbraucht")),
        "{transcript}"
    );

    let noted: Vec<String> = notes(&table)
        .into_iter()
        .filter(|n| n.starts_with("request "))
        .collect();
    let console_only = format!("answered on the console only: {count_words}");
    let said = format!("said to the blind player: {count_words}");
    assert_eq!(
        noted,
        [
            format!(
                "request 'last' by the blind player's keypad, said to the blind player: {}",
                last[0]
            ),
            format!("request 'count' by the assistant, {console_only}"),
            format!("request 'count' by the assistant, {console_only}"),
            format!("request 'count' by the arbiter, {console_only}"),
            format!(
                "request 'time' by the arbiter, answered on the console only: {}",
                time[0]
            ),
            format!(
                "request 'last' by the assistant, said to the blind player: {}",
                last[0]
            ),
            format!("request 'count' by the blind player's keypad, {said}"),
        ],
        "{transcript}"
    );
    let folder = table.folder();
    table.stop();
    // The requests are journaled: `tactus replay` writes the same notes, in the same order.
    let replay = std::process::Command::new(support::process::TACTUS)
        .arg("replay")
        .arg(folder.join("journal.jsonl"))
        .arg("--voices-dir")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("voices"))
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    let replayed: Vec<String> = String::from_utf8_lossy(&replay.stdout)
        .lines()
        .filter_map(|l| {
            l.split_once(" note request ")
                .map(|(_, rest)| format!("request {rest}"))
        })
        .collect();
    let noted: Vec<String> = fs::read_to_string(folder.join("transcript.txt"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.split_once(" note request ")
                .map(|(_, rest)| format!("request {rest}"))
        })
        .collect();
    assert_eq!(noted.len(), 7, "{noted:?}");
    assert_eq!(replayed, noted);
    fs::remove_dir_all(&dir).unwrap();
}

/// 5.1 b: the game is lost by the player who resigns. From the assistant's console the side must
/// be named (a stray `rs` is refused and changes nothing), and the result is said to both
/// players.
#[test]
fn resign_5_1_b_needs_the_side_and_both_players_hear_the_result() {
    let (dir, table) = start("requests-resign", "e4 e5");
    let mut assistant = table.connect();
    sighted_move(&table, &mut assistant, "e4", 2);
    let refused = assistant.refused("rs");
    assert!(
        refused.contains("whose game: blind, sighted, white or black"),
        "{refused}"
    );
    let status = assistant.ok("status");
    assert!(status.iter().any(|l| l == "in play"), "{status:?}");

    let before = table.said_to("both").len();
    let notes = assistant.ok("resign blind");
    assert!(
        notes.iter().any(|n| n.starts_with("game over: 1-0")),
        "{notes:?}"
    );
    // "Both": the blind player's headphones and the sighted side, one announcement.
    assert_eq!(
        table.said_after("both", before, 1),
        [words(&Announcement::Result(ResultWords::WhiteWins))]
    );
    let status = assistant.ok("status");
    assert!(
        status.iter().any(|l| l.starts_with("result 1-0")),
        "{status:?}"
    );
    table.stop();
    fs::remove_dir_all(&dir).unwrap();
}
