//! Appendix F.8 driven only through the console, against the daemon in the test's process (see
//! `support::inproc`): the game is played (the sighted player's moves typed, the blind
//! player's on his simulated tactile board), the arbiter enters both players' own scoresheets
//! (the blind player's first as his Braille score, pasted from his `blind-score.txt`: it
//! agrees), the blind player's written one differs while both boards agree (a note, no retrace:
//! F.8 is for boards that differ), the arbiter takes the game back to the last move both record, the tactile
//! board is guided back to that position, the arbiter confirms the clocks proposed from the
//! record, and the game is played on from there to an agreed draw.

use crate::support;

use std::fs;

use shakmaty::Color;
use support::{
    console::{clocks_of, ply_of, secs},
    games::moves_of,
    inproc::Table,
    table::temp_dir,
};

/// The Ruy Lopez to move six; White (the sighted player) moves at the even indexes.
const GAME: &str = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5";

#[test]
fn a_scoresheet_dispute_is_settled_at_the_console() {
    let dir = temp_dir("dispute");
    support::inproc::write_config(&dir, Color::Black);
    let sans: Vec<&str> = GAME.split_whitespace().collect();
    let game = moves_of(GAME);
    let table = Table::start(&dir, &game, 4.0, true);
    table.wait_started();
    let mut assistant = table.connect();
    // Ten half-moves: White's typed and pressed, Black's made on the tactile board.
    for ply in (0..10).step_by(2) {
        assistant.ok(&format!("move {}", sans[ply]));
        assistant.ok("press");
        table.wait_ply(ply + 2);
    }
    let mut arbiter = table.arbiter();
    // White's own scoresheet agrees with the record.
    let body = arbiter.ok(&format!("scoresheet white 1. {}", sans[..10].join(" ")));
    assert!(
        body.iter()
            .any(|l| l == "white's scoresheet agrees with the record (10 half-moves)"),
        "{body:?}"
    );
    // F.8 with his Braille score: the blind player's own `blind-score.txt`, as the daemon
    // writes it after every move, pasted whole at the arbiter's console (a header, blank
    // lines, the page's form feed), is read with the table's profile and agrees.
    let file = blind_score_after(&table.folder(), 10);
    arbiter.write_raw(format!("scoresheet black braille\n{file}\nend\n").as_bytes());
    let opened = arbiter.reply();
    assert!(
        opened
            .end
            .as_ref()
            .is_ok_and(|s| s.starts_with("paste black's scoresheet in Unicode Braille")),
        "{opened:?}"
    );
    // One reply for each line with text (a blank line gets none), then the comparison.
    let lines = file.split('\n').filter(|l| !l.trim().is_empty()).count();
    for n in 1..=lines {
        assert_eq!(arbiter.reply().end, Ok(format!("line {n}")));
    }
    let compared = arbiter.reply();
    assert!(compared.end.is_ok(), "{compared:?}");
    assert_eq!(
        compared.body[0],
        "black's scoresheet in Unicode Braille reads (10 half-moves): 1. e4 e5 2. Nf3 Nc6 3. \
         Bb5 a6 4. Ba4 Nf6 5. O-O Be7"
    );
    assert!(
        compared
            .body
            .iter()
            .any(|l| l == "black's scoresheet agrees with the record (10 half-moves)"),
        "{compared:?}"
    );
    // The blind player's has 3... d6 where the record has 3... a6. Both boards show the game's
    // position, so F.8 ("if different positions should arise on the two boards") retraces
    // nothing: the arbiter hears where the sheets part and decides.
    let mut sheet: Vec<String> = sans[..10].iter().map(|s| s.to_string()).collect();
    sheet[5] = "d6".into();
    let body = arbiter.ok(&format!("scoresheet black {}", sheet.join(" ")));
    assert!(
        body.iter().any(|l| l.starts_with(
            "black's scoresheet differs from the record at 3... 'd6' (the record has 3... a6)"
        )),
        "{body:?}"
    );
    assert!(
        body.iter().any(|l| l.contains("nothing is retraced")),
        "{body:?}"
    );
    assert_eq!(ply_of(&arbiter.ok("status")), 10);
    // He rules that the game goes back to after 3. Bb5, the last move both record.
    let body = arbiter.ok("takeback 5");
    let proposed = body
        .iter()
        .find_map(|l| l.strip_prefix("proposed clocks: "))
        .unwrap_or_else(|| panic!("no clocks proposed: {body:?}"))
        .to_string();
    // "White 1:30:58, Black 1:30:59; confirm with confirm-clocks or set them"
    let words: Vec<&str> = proposed.split_whitespace().collect();
    let proposed = (secs(words[1]), secs(words[3].trim_end_matches(';')));
    let status = arbiter.ok("status");
    assert_eq!(ply_of(&status), 5, "{status:?}");
    assert!(
        status.iter().any(|l| l.contains("black to move")),
        "{status:?}"
    );
    assert!(status.iter().any(|l| l.contains("(paused)")), "{status:?}");
    // The blind player is guided back square by square until his board shows the position
    // after 3. Bb5 (the moves 3... a6 4. Ba4 Nf6 5. O-O Be7 come off it).
    let transcript = table.wait_transcript("tactile board matches the game again");
    // Both players were told first.
    assert!(
        transcript.contains(" both Partie zurückgesetzt, Schwarz am Zug"),
        "{transcript}"
    );
    // Nothing moves until the clocks are confirmed: the player's request is answered, though.
    let mut player = table.player();
    let body = player.ok("last");
    assert!(
        body.iter().any(|l| l.contains("Weiß Läufer Bella fünf")),
        "{body:?}"
    );
    let body = arbiter.ok("confirm-clocks");
    assert!(
        body.iter().any(|l| l.starts_with("white's clock set to")),
        "{body:?}"
    );
    let status = arbiter.ok("status");
    // Black is to move in the retraced position: his clock runs, not White's.
    assert!(
        status.iter().any(|l| l.ends_with("(black running)")),
        "{status:?}"
    );
    let (white, black) = clocks_of(&status);
    assert_eq!(white, proposed.0, "{status:?}");
    // Black's clock runs again from the confirmation; a second at most has passed.
    assert!(
        (proposed.1 - 1..=proposed.1).contains(&black),
        "{status:?} {proposed:?}"
    );
    // Play goes on from the retraced position: the blind player plays 3... a6 again, and the
    // game goes on to move six.
    table.wait_ply(6);
    for ply in (6..12).step_by(2) {
        assistant.ok(&format!("move {}", sans[ply]));
        assistant.ok("press");
        table.wait_ply(ply + 2);
    }
    // The players agree a draw.
    assistant.ok("offer white");
    let body = assistant.ok("accept black");
    assert!(
        body.iter().any(|l| l.starts_with("game over: 1/2-1/2")),
        "{body:?}"
    );
    let report = table.stop();
    assert!(report.over);
    // The record holds every move once, as played after the retrace.
    let pgn = report.pgn;
    for (i, pair) in sans.chunks(2).enumerate() {
        let white = format!("{}. {} ", i + 1, pair[0]);
        assert!(pgn.contains(&white), "{white:?} missing:\n{pgn}");
    }
    assert_eq!(pgn.matches("a6").count(), 1, "{pgn}");
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");
    // What happened is in the transcript and the journal, for the arbiter's report.
    let folder = dir.join("played").join(report.folder.file_name().unwrap());
    let transcript = fs::read_to_string(folder.join("transcript.txt")).unwrap();
    assert!(transcript.contains("note black's scoresheet differs from the record at 3..."));
    let journal = fs::read_to_string(folder.join("journal.jsonl")).unwrap();
    assert!(
        journal.contains("\"scoresheet\""),
        "the scoresheets are journaled"
    );
    assert!(journal.contains("\"confirm_clocks\""), "{journal}");
    fs::remove_dir_all(&dir).unwrap();
}

/// The blind player's Braille score (`blind-score.txt`) once the daemon has written `plies`
/// half-moves into it (the record writer runs beside the game).
fn blind_score_after(folder: &std::path::Path, plies: usize) -> String {
    use tactus_core::record::braille::{BrailleFormat, DEFAULT_PROFILE, Profile, read_score};
    let profile = Profile::named(DEFAULT_PROFILE).unwrap();
    let path = folder.join("blind-score.txt");
    let start = std::time::Instant::now();
    loop {
        let text = fs::read_to_string(&path).unwrap_or_default();
        let read = read_score(
            text.as_bytes(),
            BrailleFormat::Unicode,
            &profile,
            shakmaty::Chess::default(),
        );
        if read.is_ok_and(|s| s.moves.len() == plies) {
            return text;
        }
        assert!(
            start.elapsed() < support::inproc::LIMIT,
            "{} never held {plies} half-moves: {text}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
