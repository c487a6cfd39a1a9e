//! Stopping and resuming a game through the real binary (issue 15, points 1, 2 and 11): `tactus
//! run` says what the table is in words when it starts; Ctrl-C says where the unfinished game
//! stands and how to go on; the next `tactus run` says which saved settings stay in force
//! against an edited configuration file, and prints and says, in the voice pack's language and
//! in this order, that the game is back, its last move, whose move it is and that the clocks
//! stand. The log
//! shows the moves as they count.

use crate::support;

use std::{fs, time::Duration};

use shakmaty::Color;
use support::{
    console::{ask, ply_of},
    process::{ask_when_up, show, spawn},
    record::game_folder,
    table::{temp_dir, write_config},
};

const LIMIT: Duration = Duration::from_secs(60);

/// Where a stopped game stands, as `tactus run` says it at the end.
fn unfinished_after(ply: usize) -> String {
    match ply {
        0 => "game unfinished before the first move, White to move".into(),
        p if p % 2 == 0 => format!("game unfinished after move {}, White to move", p / 2),
        p => format!(
            "game unfinished after White's move {}, Black to move",
            p.div_ceil(2)
        ),
    }
}

/// The last move of the game in `pgn`, as the table's voice announces it.
fn last_move_words(pgn: &std::path::Path) -> String {
    use shakmaty::Position;
    use tactus_core::{
        announce::{Announcement, MoveWords, voice::Style},
        rules::pgn::read_pgn,
    };
    let game = read_pgn(&fs::read(pgn).unwrap())
        .unwrap()
        .into_iter()
        .next()
        .unwrap();
    let mut pos = game.start.clone();
    let (last, moves) = game.moves.split_last().expect("a move was played");
    for &m in moves {
        pos.play_unchecked(m);
    }
    support::record::pack()
        .render(&Announcement::Move(MoveWords::new(&pos, *last)), Style::San)
        .text
}

#[test]
fn ctrl_c_says_the_game_is_unfinished_and_the_resume_says_what_stays_and_whose_move_it_is() {
    let dir = temp_dir("stop-resume");
    let config = write_config(&dir, Color::White, "none");
    let config_arg = config.to_str().unwrap();
    let socket = dir.join("console.sock");
    let mut guard = spawn(
        &["run", "--config", config_arg, "--new", "--sim-speed", "20"],
        &dir,
        "run1",
        &[],
    );
    // A few moves, then the clocks stand (the simulated players wait), so that the ply read is
    // the one the game stops at.
    let ply = loop {
        let status = ask_when_up(&socket, "status", &mut guard, &dir, "run1", LIMIT);
        if ply_of(&status) >= 3 {
            let reply = ask(&socket, "pause").unwrap();
            assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
            break ply_of(&ask(&socket, "status").unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    guard.signal("-INT");
    let status = guard.wait_limit(Duration::from_secs(10));
    assert!(status.success(), "{status}\n{}", show(&dir, "run1"));
    let out = fs::read_to_string(dir.join("run1.out")).unwrap();
    // At the start: the table in words (issue 15, point 2), not the notation alone.
    assert!(
        out.contains("time control: 90 minutes for the whole game plus 30 seconds per move from move 1 (5400+30)"),
        "{out}"
    );
    assert!(out.contains("White: White (the blind player"), "{out}");
    // At the stop: where the game stands and how to go on (point 11).
    assert!(
        out.contains(&format!(
            "{}; `tactus run` resumes it",
            unfinished_after(ply)
        )),
        "ply {ply}:\n{out}"
    );

    // The log (journald under systemd) follows the game: the moves as they count, not only
    // the touches (issue 15, point 14).
    let log = fs::read_to_string(dir.join("run1.err")).unwrap();
    for label in [
        "move counted: 1. ",
        "move counted: 1... ",
        "move counted: 2. ",
    ] {
        assert!(
            log.contains(label),
            "{label:?} missing from the log:\n{log}"
        );
    }

    // The file is edited between the sessions: the game keeps its saved clock and players.
    let text = fs::read_to_string(&config)
        .unwrap()
        .replace("time_control = \"5400+30\"", "time_control = \"900+10\"")
        .replace("white = \"White\"", "white = \"Somebody Else\"");
    fs::write(&config, text).unwrap();
    let mut guard = spawn(&["run", "--config", config_arg], &dir, "run2", &[]);
    let status = ask_when_up(&socket, "status", &mut guard, &dir, "run2", LIMIT);
    assert_eq!(ply_of(&status), ply, "{status:?}");
    let out = fs::read_to_string(dir.join("run2.out")).unwrap();
    assert!(out.contains("(resumed)"), "{out}");
    assert!(
        out.contains("resumed with the settings saved in its journal, which stay in force"),
        "{out}"
    );
    assert!(
        out.contains(
            "time control: the game's 5400+30 (90 minutes for the whole game plus 30 seconds \
             per move from move 1), the file's 900+10"
        ),
        "{out}"
    );
    assert!(
        out.contains("White: the game's \"White\", the file's \"Somebody Else\""),
        "{out}"
    );
    // Printed and said in the pack's language, in this order: the game is back, its last move
    // (issue 26: nobody has to know to ask `last`; unless the stop cut its announcement off,
    // which is then said again once the clocks run), whose move it is, the clocks stand.
    let side = if ply % 2 == 0 { "Weiß" } else { "Schwarz" };
    let folder = game_folder(&dir.join("played"));
    let last = last_move_words(&folder.join("game.pgn"));
    let mut words = vec![
        "Partie wiederhergestellt".to_string(),
        last,
        format!("{side} am Zug"),
        "Uhren angehalten".to_string(),
    ];
    if !out.contains(&format!("tactus: {}", words.join(", "))) {
        // The last move's announcement was cut off by the stop.
        words.remove(1);
    }
    assert!(
        out.contains(&format!("tactus: {}", words.join(", "))),
        "{words:?}\n{out}"
    );
    let said_in_order = |transcript: &str| {
        let lines: Vec<&str> = transcript
            .lines()
            .filter(|l| l.contains(" both "))
            .map(|l| l.split_once(" both ").unwrap().1)
            .collect();
        lines.windows(words.len()).any(|w| w == words)
    };
    assert!(
        support::process::wait_until(Duration::from_secs(10), || {
            said_in_order(&fs::read_to_string(folder.join("transcript.txt")).unwrap_or_default())
        }),
        "{}",
        fs::read_to_string(folder.join("transcript.txt")).unwrap_or_default()
    );
    guard.signal("-TERM");
    assert!(guard.wait_limit(Duration::from_secs(10)).success());
    fs::remove_dir_all(&dir).unwrap();
}
