//! Two blind players on two tactile boards, as the events of the International Braille Chess
//! Association play (issue 23), against the daemon in the test's process (see
//! `support::inproc`): both boards are simulated pegged boards on real pseudo-terminals, each
//! player hears his own voice pack (White German, Black English), each has a keypad console
//! locked to his seat.
//!
//! One whole game shows every duty done for both: each move said to the other player and back
//! to its mover (F.1), a request from each player answered on his keypad and said only to him
//! (F.9 d), a board that differs guided (F.7: White executes one of Black's moves wrongly and,
//! sure of it, writes it so), the F.8 retrace to where both scoresheets agree with both boards
//! guided back, a restart of the daemon in the middle, and at the end each player's Braille
//! scoresheet (BRF and Unicode) and audio scoresheet (WAV and cue list) read back equal to the
//! PGN.

use crate::support;

use std::{fs, path::Path};

use shakmaty::{Chess, Color, Move, Position};
use support::{
    console::{ply_of, result_of},
    games::moves_of,
    inproc::{Table, write_config_two_blind},
    record::{read_game_file, transcript_bodies},
    table::{temp_dir, voices_dir},
};
use tactus::{
    config::braille_options,
    daemon::{SimSettings, files::ScoreFiles},
    store::voices::load_words,
};
use tactus_core::{
    announce::{
        Announcement, Guidance, MoveWords, ResultWords,
        voice::{Style, VoicePack},
    },
    journal::RequestRecord,
    record::{
        braille::{self, BrailleFormat, DEFAULT_PROFILE},
        score::{Score, ScoreMove},
        wav::{self, CueEntry},
    },
    sim::player::wrong_square,
};

/// The Blackburne Shilling Gambit: Black mates on move seven.
const GAME: &str = "e4 e5 Nf3 Nc6 Bc4 Nd4 Nxe5 Qg5 Nxf7 Qxg2 Rf1 Qxe4+ Be2 Nf3#";
/// 4... Qg5: White executes it wrongly, and keeps his board so.
const MISTAKE_PLY: usize = 8;
/// Each player's pack: White's, Black's.
const PACKS: [&str; 2] = ["de-fide", "en"];

fn pack_of(seat: Color) -> VoicePack {
    load_words(&voices_dir(), seat.fold_wb(PACKS[0], PACKS[1])).unwrap()
}

fn render(pack: &VoicePack, announcement: &Announcement) -> String {
    pack.render(announcement, Style::San).text
}

/// The requests of the journal, with what was said for them.
fn requests(folder: &Path) -> Vec<RequestRecord> {
    let read = tactus::daemon::journal::read(&folder.join("journal.jsonl")).unwrap();
    support::journal::requests(&read)
}

/// `seat`'s request `line` at his keypad: answered there, noted for the arbiter with whose it
/// was, and said to him only, in his language.
fn ask(table: &Table, seat: Color, line: &str) {
    let mut keypad = table.player_at(seat);
    let body = keypad.ok(line);
    assert!(!body.is_empty(), "{seat} asked {line}: no answer");
    let request = format!("request '{line}' by the blind player's keypad ({seat}), said to {seat}");
    let transcript = table.wait_transcript(&request);
    let asked = requests(&table.folder());
    let record = asked
        .iter()
        .rev()
        .find(|r| r.asked == line && r.seat.map(Color::from) == Some(seat))
        .unwrap_or_else(|| panic!("{seat}'s request is not journaled: {asked:?}"));
    assert!(!record.said.is_empty(), "{record:?}");
    let lines = transcript_bodies(&transcript);
    for said in &record.said {
        // Said to him (the speech task writes the line as it hands the words over)...
        table.wait_transcript(&format!("{seat} {said}"));
        // ... and never into the other player's ear.
        assert!(
            !lines.contains(&format!("{} {said}", !seat)),
            "{seat}'s answer was said to {}:\n{transcript}",
            !seat
        );
    }
}

#[test]
fn two_blind_players_play_a_whole_game_on_two_tactile_boards() {
    let dir = temp_dir("ibca");
    write_config_two_blind(&dir, PACKS);
    let sans: Vec<&str> = GAME.split_whitespace().collect();
    let game = moves_of(GAME);
    let sim = SimSettings {
        moves: game.clone(),
        speed: 4.0,
        blind_mistake_ply: Some(MISTAKE_PLY),
        blind_keeps_mistake: true,
        ..SimSettings::default()
    };
    let table = Table::start_sim(&dir, sim.clone(), true);
    table.wait_started();

    // A keypad must say whose it is at this table.
    let mut anonymous = table.player();
    let refused = anonymous.refused("time");
    assert!(refused.contains("role player white"), "{refused}");
    // White asks the time at his keypad: in German, to him alone.
    table.wait_ply(2);
    ask(&table, Color::White, "time");

    // 4... Qg5: White puts the queen beside g5 and keeps it there whatever he is told; he is
    // guided (F.7) in German, Black hears nothing of it.
    let mut before = Chess::default();
    for m in &game[..MISTAKE_PLY - 1] {
        before.play_unchecked(*m);
    }
    let qg5 = game[MISTAKE_PLY - 1];
    let wrong = wrong_square(&before, qg5).unwrap();
    let guidance = Announcement::Guidance(Guidance::Misplaced {
        piece: Color::Black.queen(),
        found: wrong,
        belongs: qg5.to(),
    });
    let guided = format!("white {}", render(&pack_of(Color::White), &guidance));
    let transcript = table.wait_transcript(&guided);
    assert!(
        !transcript.contains(&format!(
            "black {}",
            render(&pack_of(Color::Black), &guidance)
        )),
        "{transcript}"
    );
    assert_eq!(ply_of(&table.wait_ply(MISTAKE_PLY)), MISTAKE_PLY);

    // F.8: the boards differ, and so do the scoresheets. White wrote the move as he executed
    // it; Black's agrees with the record. The game goes back to where both agree.
    let mut arbiter = table.arbiter();
    // He writes what he executed: the queen to the square beside g5 (no legal move: the
    // sheets differ there all the same).
    let mut white_sheet: Vec<String> = sans[..MISTAKE_PLY].iter().map(|s| s.to_string()).collect();
    white_sheet[MISTAKE_PLY - 1] = format!("Q{wrong}");
    let body = arbiter.ok(&format!("scoresheet white {}", white_sheet.join(" ")));
    assert!(
        body.iter()
            .any(|l| l.contains("enter black's scoresheet too")),
        "{body:?}"
    );
    let body = arbiter.ok(&format!(
        "scoresheet black {}",
        sans[..MISTAKE_PLY].join(" ")
    ));
    // The retrace is offered to the arbiter, and done at his `confirm`.
    assert!(
        body.iter().any(|l| l.contains(&format!(
            "the two scoresheets agree for {} half-moves: retrace the game to after 4. Nxe5? \
             `confirm` retraces it (F.8)",
            MISTAKE_PLY - 1
        ))),
        "{body:?}"
    );
    assert_eq!(ply_of(&arbiter.ok("status")), MISTAKE_PLY);
    let body = arbiter.ok("confirm");
    assert!(
        body.iter()
            .any(|l| l.starts_with("proposed clocks: ") || l.contains("proposed clocks")),
        "the game goes back and the clocks are proposed: {body:?}"
    );
    let status = arbiter.ok("status");
    assert_eq!(ply_of(&status), MISTAKE_PLY - 1, "{status:?}");
    // Both boards are guided back to the position after 4. Nxe5: White's queen off its wrong
    // square, Black's off g5.
    for seat in Color::ALL {
        table.wait_transcript(&format!(
            "note {seat}'s tactile board matches the game again"
        ));
    }
    arbiter.ok("confirm-clocks");
    // Black plays 4... Qg5 again, and White executes it rightly this time.
    table.wait_ply(10);

    // The daemon is stopped in the middle of the game and taken up again.
    let report = table.stop();
    assert!(!report.over);
    let table = Table::start_sim(&dir, sim, false);
    let status = table.wait_status("the game taken up again", |s| ply_of(s) >= 10);
    assert!(status.iter().any(|l| l.contains("(paused)")), "{status:?}");
    // Taken up with both players' voices, and the clocks held until the arbiter resumes.
    table.wait_transcript("white Partie wiederhergestellt");
    table.arbiter().ok("resume");
    // Black asks the time at his keypad: in English, to him alone.
    ask(&table, Color::Black, "time");
    let status = table.wait_status("the mate", |s| result_of(s).is_some());
    assert!(result_of(&status).unwrap().starts_with("0-1"), "{status:?}");
    assert_eq!(ply_of(&status), sans.len(), "{status:?}");
    let folder = table.folder();
    let report = table.stop();
    assert!(report.over);

    // The record: the game's moves once each, 4... Qg5 as played after the retrace.
    let pgn = read_game_file(&folder.join(tactus::daemon::files::PGN_FILE));
    assert_eq!(pgn.moves, game, "{}", report.pgn);
    assert!(report.pgn.contains("[Result \"0-1\"]"), "{}", report.pgn);

    // Each move said to the other player and back to its mover, each in his own language.
    let transcript = fs::read_to_string(folder.join("transcript.txt")).unwrap();
    let lines = transcript_bodies(&transcript);
    let mut pos = Chess::default();
    for (ply, m) in game.iter().enumerate() {
        let mover = pos.turn();
        let words = MoveWords::new(&pos, *m);
        for (audience, announcement) in [
            (!mover, Announcement::Move(words)),
            (mover, Announcement::OwnMove(words)),
        ] {
            let line = format!("{audience} {}", render(&pack_of(audience), &announcement));
            assert!(
                lines.contains(&line),
                "ply {}: no {line:?}:\n{transcript}",
                ply + 1
            );
        }
        pos.play_unchecked(*m);
    }

    // Each player's own scoresheets, read back equal to the PGN.
    // Each in his own Braille chess notation: German for White's German voice (his queen is D),
    // the default for Black's English one (issue 37, point 10).
    let profile_of = |seat: Color| {
        braille_options(seat.fold_wb("de", DEFAULT_PROFILE), 40, 25)
            .unwrap()
            .profile
    };
    let mut score = Score::new(Chess::default());
    score.moves = game
        .iter()
        .map(|&mv| ScoreMove {
            mv,
            clock_ms: None,
            draw_offer: false,
        })
        .collect();
    // The game ended 0-1: the result is on the scoresheet, and in the recording (issue 37).
    score.result = "0-1".into();
    assert!(!folder.join("blind-score.brf").exists());
    for seat in Color::ALL {
        let files = ScoreFiles::of(Some(seat));
        for (file, format) in [
            (files.brf(), BrailleFormat::Brf),
            (files.braille(), BrailleFormat::Unicode),
        ] {
            let bytes = fs::read(folder.join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            let back = braille::read_score(&bytes, format, &profile_of(seat), Chess::default())
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            let moves: Vec<Move> = back.moves.iter().map(|m| m.mv).collect();
            assert_eq!(moves, game, "{file}");
            assert_eq!(back.result, "0-1", "{file}");
        }
        // The audio scoresheet: one cue per move and the result, in his language, within the
        // recording.
        let wav_path = folder.join(files.wav());
        let reader = hound::WavReader::open(&wav_path)
            .unwrap_or_else(|e| panic!("{}: {e}", wav_path.display()));
        let length_ms = wav::samples_to_ms(u64::from(reader.duration()));
        let cues = fs::read_to_string(folder.join(files.cues())).unwrap();
        let cues: Vec<(u64, u64, String)> = cues
            .lines()
            .map(|l| CueEntry::parse_line(l).unwrap_or_else(|| panic!("cue {l:?}")))
            .collect();
        let expected: Vec<String> = wav::scoresheet(&score, &pack_of(seat), Style::San)
            .into_iter()
            .map(|e| format!("{} {}", e.label, e.utterance.text))
            .collect();
        let said: Vec<String> = cues.iter().map(|(_, _, text)| text.clone()).collect();
        assert_eq!(said, expected, "{seat}'s audio scoresheet");
        assert!(
            cues.iter()
                .all(|(start, end, _)| start < end && *end <= length_ms),
            "{seat}: {cues:?} in {length_ms} ms"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// F.9 at a table of two blind players of two languages: each keypad (his Braille display)
/// shows what its player heard, in his own language and nothing else: the move of the other
/// said in his words, the result said to both in each one's language, no staff's prefix
/// ("said to both: ...") and not the other player's words (issue 37, point 7).
#[test]
fn f9_each_keypad_shows_what_its_player_heard_in_his_own_language() {
    let dir = temp_dir("ibca-keypads");
    write_config_two_blind(&dir, PACKS);
    let game = moves_of(GAME);
    let sim = SimSettings {
        moves: game.clone(),
        speed: 4.0,
        ..SimSettings::default()
    };
    let table = Table::start_sim(&dir, sim, true);
    table.wait_started();
    let mut keypads = Color::ALL.map(|seat| table.player_at(seat));
    let status = table.wait_status("the mate", |s| result_of(s).is_some());
    assert_eq!(ply_of(&status), game.len(), "{status:?}");
    // Read what came since (events arrive with the next reply).
    for keypad in &mut keypads {
        keypad.ok("help");
    }
    let result = Announcement::Result(ResultWords::BlackWins);
    for (seat, keypad) in Color::ALL.into_iter().zip(&keypads) {
        let (his, other) = (pack_of(seat), pack_of(!seat));
        let events = &keypad.events;
        assert!(
            events.contains(&render(&his, &result)),
            "{seat}'s keypad: no result in his words: {events:?}"
        );
        assert!(
            !events.contains(&render(&other, &result)),
            "{seat}'s keypad shows the other's words: {events:?}"
        );
        assert!(
            !events.iter().any(|e| e.starts_with("said to")),
            "{seat}'s keypad shows the staff's line: {events:?}"
        );
        // The end of the game is the result he heard, not the staff's English summary.
        assert!(
            !events.iter().any(|e| e.starts_with("game over")),
            "{seat}'s keypad shows the staff's game over line: {events:?}"
        );
        // The last move, said to White (the mate is Black's): in White's words.
        let mut before = Chess::default();
        for m in &game[..game.len() - 1] {
            before.play_unchecked(*m);
        }
        let last = Announcement::Move(MoveWords::new(&before, game[game.len() - 1]));
        if seat == Color::White {
            assert!(events.contains(&render(&his, &last)), "{events:?}");
        }
    }
}

/// Issue 37, point 10: at a table of two blind players of two languages (White hears German,
/// Black English) each one's Braille is in his own Braille chess notation beyond his score too:
/// the F.8 scoresheet the arbiter pastes from a player's own `blind-score-SEAT.txt` is read in
/// that player's notation (White's German one, where the queen is D: the table's default would
/// refuse it), and the adjournment envelope White seals is written in his (German Braille: no
/// capital signs, where the default's UEB has them).
#[test]
fn f8_each_blind_players_braille_scoresheet_and_sealed_envelope_are_in_his_own_notation() {
    use tactus_core::record::braille::{cell::to_brf, literary, profile::TextStyle};
    let dir = temp_dir("ibca-braille-sheets");
    write_config_two_blind(&dir, PACKS);
    // A queen's move each (D in German, Q in English); the players know no more than these.
    let opening = "e4 e5 Qh5 Qe7";
    let sim = SimSettings {
        moves: moves_of(opening),
        speed: 4.0,
        ..SimSettings::default()
    };
    let table = Table::start_sim(&dir, sim, true);
    table.wait_started();
    table.wait_ply(4);
    let folder = table.folder();
    let mut arbiter = table.arbiter();
    for seat in Color::ALL {
        let profile = braille_options(seat.fold_wb("de", DEFAULT_PROFILE), 40, 25)
            .unwrap()
            .profile;
        let file = own_score_after(&folder, seat, &profile, 4);
        arbiter.write_raw(format!("scoresheet {seat} braille\n{file}\nend\n").as_bytes());
        let opened = arbiter.reply();
        assert!(opened.end.is_ok(), "{seat}: {opened:?}");
        let compared = loop {
            let reply = arbiter.reply();
            if !reply.end.as_ref().is_ok_and(|s| s.starts_with("line ")) {
                break reply;
            }
        };
        assert!(
            compared.end.is_ok(),
            "{seat}'s own sheet refused: {compared:?}"
        );
        assert_eq!(
            compared.body[0],
            format!(
                "{seat}'s scoresheet in Unicode Braille reads (4 half-moves): 1. e4 e5 2. Qh5 Qe7"
            )
        );
        assert!(
            compared.body.iter().any(|l| l
                == &format!("{seat}'s scoresheet agrees with the record (4 half-moves)")),
            "{compared:?}"
        );
    }
    // White seals his third move: the envelope's Braille is in his notation.
    arbiter.ok("seal Bc4");
    let brf_path = folder.join("envelope-3-white.brf");
    let start = std::time::Instant::now();
    while !brf_path.exists() {
        assert!(start.elapsed() < support::inproc::LIMIT, "no envelope");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let brf = fs::read_to_string(&brf_path).unwrap();
    let heading = |style| to_brf(&literary::transcribe("Adjournment envelope", style));
    assert!(
        brf.contains(&heading(TextStyle::De)) && !brf.contains(&heading(TextStyle::Ueb)),
        "not in White's German Braille: {brf}"
    );
    table.stop();
    fs::remove_dir_all(&dir).unwrap();
}

/// `seat`'s own Braille score (`blind-score-SEAT.txt`) once it reads, in `profile`, as `plies`
/// half-moves (the record writer runs beside the game).
fn own_score_after(folder: &Path, seat: Color, profile: &braille::Profile, plies: usize) -> String {
    let path = folder.join(ScoreFiles::of(Some(seat)).braille());
    let start = std::time::Instant::now();
    loop {
        let text = fs::read_to_string(&path).unwrap_or_default();
        let read = braille::read_score(
            text.as_bytes(),
            BrailleFormat::Unicode,
            profile,
            Chess::default(),
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
