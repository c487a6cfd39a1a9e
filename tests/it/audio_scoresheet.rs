//! The audio scoresheet (F.5) as a blind player navigates it (issue 15, point 12): written with
//! the shipped voice packs' clips, every White move begins with its number ("Zug eins"), and the
//! WAV holds exactly those clips in that order, read back sample for sample with hound.

use std::path::PathBuf;

use crate::support::table::voices_dir;

use shakmaty::{Chess, Position, san::San};
use tactus::store::{audio::AudioScoresheet, voices};
use tactus_core::{
    announce::voice::{PAUSE, Style},
    record::{
        score::{Score, ScoreMove},
        wav::{self, CueEntry, Spacing},
    },
};

fn scratch(name: &str) -> PathBuf {
    crate::support::table::temp_dir(&format!("audio-scoresheet-{name}"))
}

fn score_of(sans: &str) -> Score {
    let mut score = Score::new(Chess::default());
    let mut pos = Chess::default();
    for san in sans.split_whitespace() {
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
        score.moves.push(ScoreMove {
            mv,
            clock_ms: None,
            draw_offer: false,
        });
    }
    score
}

/// The samples `clips` make with the scoresheet's spacing, assembled here independently of
/// `wav::assemble`: each clip, a gap between two, a pause where a PAUSE stands.
fn expected_samples(clips: &[&str], loaded: &voices::Clips) -> Vec<i16> {
    let gap = wav::ms_to_samples(Spacing::DEFAULT.gap_ms);
    let pause = wav::ms_to_samples(Spacing::DEFAULT.pause_ms);
    let mut out = Vec::new();
    let mut after_pause = false;
    for (i, stem) in clips.iter().enumerate() {
        if *stem == PAUSE {
            out.resize(out.len() + pause, 0);
            after_pause = true;
            continue;
        }
        if i > 0 && !after_pause {
            out.resize(out.len() + gap, 0);
        }
        out.extend_from_slice(loaded.get(stem).unwrap_or_else(|| panic!("no clip {stem}")));
        after_pause = false;
    }
    out
}

fn numbers_are_said_in(pack_name: &str, numbers: [&[&str]; 3], words: [&str; 3]) {
    let (pack, clips) = voices::load(&voices_dir(), pack_name).unwrap();
    // Three moves each: the real clips of one-clip numbers here; the numbers made of parts
    // are covered by the unit tests of `record::wav`.
    let score = score_of("e4 e5 Nf3 Nc6 Bb5 a6");
    let entries = wav::scoresheet(&score, &pack, Style::San);
    let dir = scratch(pack_name);
    let path = dir.join("blind-score.wav");
    AudioScoresheet::record(
        &path,
        &entries,
        Spacing::DEFAULT,
        wav::BETWEEN_ANNOUNCEMENTS_MS,
        clips.loader(),
    )
    .unwrap();

    let all: Vec<i16> = hound::WavReader::open(&path)
        .unwrap()
        .samples::<i16>()
        .map(Result::unwrap)
        .collect();
    let cues = std::fs::read_to_string(AudioScoresheet::cue_path_for(&path)).unwrap();
    let cues: Vec<(u64, u64, String)> = cues
        .lines()
        .map(|l| CueEntry::parse_line(l).unwrap())
        .collect();
    assert_eq!(cues.len(), 6, "one cue per move");

    // The recording, rebuilt from the clips a player should hear, in order: White's moves
    // with "move N" and a pause first, Black's as announced, 500 ms between two moves.
    let between = wav::ms_to_samples(wav::BETWEEN_ANNOUNCEMENTS_MS);
    let mut expected: Vec<i16> = Vec::new();
    let mut white = 0;
    for (i, entry) in entries.iter().enumerate() {
        let said: Vec<&str> = entry.utterance.clips.iter().map(String::as_str).collect();
        if i % 2 == 0 {
            assert_eq!(&said[..2], numbers[white], "{pack_name} {}", entry.label);
            assert_eq!(said[2], PAUSE, "{pack_name} {}", entry.label);
            let (_, _, label_text) = &cues[i];
            assert!(
                label_text.starts_with(&format!("{} {}", entry.label, words[white])),
                "{pack_name}: {label_text}"
            );
            white += 1;
        } else {
            assert_ne!(said[0], "move", "{pack_name}: Black's move is not numbered");
        }
        if i > 0 {
            expected.resize(expected.len() + between, 0);
        }
        expected.extend(expected_samples(&said, &clips));
    }
    assert_eq!(all.len(), expected.len(), "{pack_name}: length");
    assert!(all == expected, "{pack_name}: the samples differ");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn f5_the_german_scoresheet_says_zug_eins_before_white_moves() {
    numbers_are_said_in(
        "de-fide",
        [&["move", "num_1"], &["move", "num_2"], &["move", "num_3"]],
        ["Zug eins, Bauer Eva vier", "Zug zwei,", "Zug drei,"],
    );
}

#[test]
fn f5_the_english_and_spanish_scoresheets_number_the_moves_too() {
    numbers_are_said_in(
        "en",
        [&["move", "num_1"], &["move", "num_2"], &["move", "num_3"]],
        ["Move one,", "Move two,", "Move three,"],
    );
    numbers_are_said_in(
        "es-fide",
        [&["move", "num_1"], &["move", "num_2"], &["move", "num_3"]],
        ["Jugada uno,", "Jugada dos,", "Jugada tres,"],
    );
}

#[test]
fn a_missing_clip_names_the_move() {
    let (pack, clips) = voices::load(&voices_dir(), "de-fide").unwrap();
    let entries = wav::scoresheet(&score_of("e4 e5"), &pack, Style::San);
    let dir = scratch("missing");
    let err = AudioScoresheet::record(
        &dir.join("x.wav"),
        &entries,
        Spacing::DEFAULT,
        wav::BETWEEN_ANNOUNCEMENTS_MS,
        |stem: &str| {
            if stem == "num_1" {
                Err(format!("no clip '{stem}'"))
            } else {
                clips
                    .get(stem)
                    .map(<[i16]>::to_vec)
                    .ok_or_else(|| format!("no clip '{stem}'"))
            }
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot say move 1. in the audio scoresheet: no clip 'num_1'"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
