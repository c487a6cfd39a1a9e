//! The blind player's own requests from the buttons of his tactile board (F.9 d), against the
//! daemon in the test's process (see `support::inproc`): a button press travels the board's
//! real line protocol, the answer is said to him alone and shown on the consoles, and nothing
//! is said that he did not ask for.

use crate::support;

use std::fs;

use shakmaty::Color;
use support::{games::moves_of, inproc::Table, table::temp_dir};
use tactus::daemon::SimSettings;

#[test]
fn a_button_of_the_tactile_board_asks_for_the_time() {
    let dir = temp_dir("buttons");
    support::inproc::write_config(&dir, Color::Black);
    let game = moves_of("e4 c5 Nf3 d6");
    // Before his second move (ply 4) the blind player (Black) presses button 1: the time.
    let sim = SimSettings {
        moves: game.clone(),
        speed: 4.0,
        blind_button: Some((4, 1)),
        ..SimSettings::default()
    };
    let table = Table::start_sim(&dir, sim, true);
    table.wait_started();
    let mut watcher = table.connect();
    let mut assistant = table.connect();
    for (i, san) in ["e4", "Nf3"].iter().enumerate() {
        assistant.ok(&format!("move {san}"));
        assistant.ok("press");
        table.wait_ply(2 * i + 2);
    }
    let transcript = table.wait_transcript("verbraucht");
    // Said to him alone, once, and only after he asked: after 2. Nf3 was announced.
    // (The request's note quotes the same words: printed as said, issue 15.)
    let times: Vec<&str> = transcript
        .lines()
        .filter(|l| l.contains("verbraucht") && !l.contains(" note "))
        .collect();
    assert_eq!(times.len(), 1, "{transcript}");
    assert!(times[0].contains(" blind Weiß: verbraucht"), "{transcript}");
    let nf3 = transcript.find("Springer Felix drei").unwrap();
    assert!(transcript.find("verbraucht").unwrap() > nf3, "{transcript}");
    // The consoles see what was asked and answered.
    let status = watcher.ok("status");
    assert!(!status.is_empty());
    assert!(
        watcher
            .events
            .iter()
            .any(|e| e.starts_with("button 1 (time): Weiß: verbraucht ")),
        "{:?}",
        watcher.events
    );
    // A request changes nothing in the game; the journal holds the press (what the table
    // received) once, and a replay gives it back as the request (F.9 d: who asked what, and the
    // answer), so that it writes the transcript as it was; nothing else of the button's reaches
    // the journal.
    let journal = table.journal();
    let buttons: Vec<&str> = journal
        .lines()
        .filter(|l| l.contains("{\"button\":"))
        .collect();
    assert_eq!(buttons.len(), 1, "{journal}");
    assert!(buttons[0].contains("\"number\":1"), "{}", buttons[0]);
    let read = tactus::daemon::journal::read(&table.folder().join("journal.jsonl")).unwrap();
    let requests = support::journal::requests(&read);
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(
        (requests[0].by, requests[0].asked.as_str()),
        (tactus_core::journal::AskedBy::Button { number: 1 }, "time"),
        "{requests:?}"
    );
    let report = table.stop();
    assert!(!report.over);
    fs::remove_dir_all(&dir).unwrap();
}
