//! The shipped voice packs on disk (every clip there and usable, none stray), loading errors that
//! name the pack, the word and the file, the audio scoresheet of a full game read back with
//! hound, and the `tactus say` / `tactus voices` commands.

use crate::support::{self, table::voices_dir};

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use shakmaty::Position;
use tactus::{
    store::audio::AudioScoresheet,
    store::voices::{self, Clips, LoadError},
};
use tactus_core::{
    announce::{
        Announcement, MoveWords,
        voice::{BUILTIN, PAUSE, Style, Utterance, VoicePack},
    },
    record::wav::{self, CueEntry, Spacing},
    rules::pgn::read_pgn,
};

/// A fresh, empty scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    crate::support::table::temp_dir(&format!("voices-{name}"))
}

#[test]
fn every_shipped_pack_has_exactly_the_clips_it_needs() {
    let dir = voices_dir();
    assert_eq!(voices::pack_names(&dir), ["de-fide", "en", "es-fide"]);
    for name in BUILTIN {
        let pack_dir = dir.join(name);
        let pack = voices::load_dir(&pack_dir).unwrap_or_else(|e| panic!("{e}"));
        // The built-in copy is the file on disk.
        let builtin = VoicePack::builtin(name).unwrap();
        assert_eq!(builtin.clip_texts(), pack.clip_texts(), "{name}");
        let stems = pack.clip_stems();
        let clips = Clips::load(&pack, &pack_dir).unwrap();
        assert_eq!(clips.len(), stems.len());
        for stem in &stems {
            let clip = clips.get(stem).unwrap();
            // Trimmed, short: a word or a phrase, never seconds of silence.
            let seconds = clip.len() as f64 / f64::from(wav::SAMPLE_RATE);
            assert!((0.05..2.5).contains(&seconds), "{name} {stem}: {seconds} s");
            assert!(
                clip.iter().any(|s| s.unsigned_abs() > 1_000),
                "{name} {stem} is silent"
            );
        }
        // No stray clips: `voices/make-clips.sh` was run after the last change of the words.
        let on_disk: std::collections::BTreeSet<String> = std::fs::read_dir(pack_dir.join("clips"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(on_disk, stems, "{name}: run voices/make-clips.sh {name}");
        assert!(!stems.contains(PAUSE));
    }
}

/// Copies a shipped pack into a scratch folder.
fn copy_pack(name: &str, to: &Path) -> PathBuf {
    let from = voices_dir().join(name);
    let dest = to.join(name);
    std::fs::create_dir_all(dest.join("clips")).unwrap();
    std::fs::copy(from.join("voice.toml"), dest.join("voice.toml")).unwrap();
    for entry in std::fs::read_dir(from.join("clips")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dest.join("clips").join(path.file_name().unwrap())).unwrap();
    }
    dest
}

#[test]
fn a_missing_or_bad_clip_is_an_error_naming_pack_word_and_file() {
    let dir = scratch("missing");
    let pack_dir = copy_pack("de-fide", &dir);
    let knight = pack_dir.join("clips/knight.wav");
    std::fs::remove_file(&knight).unwrap();
    let err = voices::load_dir(&pack_dir).unwrap_err();
    assert!(matches!(err, LoadError::MissingClips { .. }));
    let text = err.to_string();
    for part in [
        "'de-fide'",
        "'knight'",
        "Springer",
        &knight.display().to_string(),
        "make-clips.sh de-fide",
    ] {
        assert!(text.contains(part), "'{part}' not in: {text}");
    }
    // A clip in the wrong format.
    let spec = hound::WavSpec {
        sample_rate: 44_100,
        ..wav::spec()
    };
    let mut writer = hound::WavWriter::create(&knight, spec).unwrap();
    writer.write_sample(1000i16).unwrap();
    writer.finalize().unwrap();
    let text = voices::load_dir(&pack_dir).unwrap_err().to_string();
    for part in ["'de-fide'", "'knight'", "44100 Hz", "22050 Hz mono 16-bit"] {
        assert!(text.contains(part), "'{part}' not in: {text}");
    }
    // A word missing from voice.toml is refused before any clip is looked at.
    let toml = std::fs::read_to_string(pack_dir.join("voice.toml")).unwrap();
    std::fs::write(
        pack_dir.join("voice.toml"),
        toml.replace("mate = \"Schachmatt\"\n", ""),
    )
    .unwrap();
    let text = voices::load_dir(&pack_dir).unwrap_err().to_string();
    for part in ["'de-fide'", "'mate'", "voice.toml", "template 'mate'"] {
        assert!(text.contains(part), "'{part}' not in: {text}");
    }
    // The survey says what each pack lacks.
    let survey = voices::survey(&dir);
    let de = survey.iter().find(|s| s.name == "de-fide").unwrap();
    assert!(de.problems[0].contains("'mate'"), "{:?}", de.problems);
    let en = survey.iter().find(|s| s.name == "en").unwrap();
    assert!(
        en.dir.is_none() && en.problems[0].contains("no clips"),
        "{:?}",
        en.problems
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn voice_settings_pick_the_pack_and_its_file_names() {
    let (pack, clips) = voices::load(&voices_dir(), "en:nato").unwrap();
    assert_eq!(pack.name(), "en");
    assert_eq!(pack.files().as_str(), "nato");
    assert!(clips.get("nato_a").is_some());
    let err = voices::load(&voices_dir(), "fr-fide")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("'fr-fide'") && err.contains("de-fide, en, es-fide"),
        "{err}"
    );
    let err = voices::load(&voices_dir(), "de-fide:nato")
        .unwrap_err()
        .to_string();
    assert!(err.contains("nato_a"), "{err}");
    // For words only, a built-in pack serves when the folder lacks it.
    let empty = scratch("empty");
    assert_eq!(
        voices::load_words(&empty, "es-fide").unwrap().name(),
        "es-fide"
    );
    std::fs::remove_dir_all(&empty).unwrap();
}

/// Twic1599-selected game 5 (O-O, O-O-O, e.p., ends in mate) announced in `voice`, recorded to
/// a scoresheet, and checked after every move and at the end.
fn record_game(voice: &str, style: Style) {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let bytes = std::fs::read(data.join("pgn/twic1599-selected.pgn")).unwrap();
    let game = read_pgn(&bytes).unwrap().swap_remove(4);
    assert!(game.moves.len() > 40, "game 5 is a whole game");
    let (pack, clips) = voices::load(&voices_dir(), voice).unwrap();

    let dir = scratch(&format!("game-{}", voice.replace(':', "-")));
    let path = dir.join("game5.wav");
    let between = wav::ms_to_samples(wav::BETWEEN_ANNOUNCEMENTS_MS);
    let (gap, pause) = (
        wav::ms_to_samples(Spacing::DEFAULT.gap_ms),
        wav::ms_to_samples(Spacing::DEFAULT.pause_ms),
    );
    let mut sheet = AudioScoresheet::create(&path, wav::BETWEEN_ANNOUNCEMENTS_MS).unwrap();
    let mut pos = game.start.clone();
    let mut expected_len = 0usize;
    let mut said: Vec<(CueEntry, Utterance)> = Vec::new();
    for (ply, &m) in game.moves.iter().enumerate() {
        let label = format!("{}{}", ply / 2 + 1, if ply % 2 == 0 { "." } else { "..." });
        let utterance = pack.render(&Announcement::Move(MoveWords::new(&pos, m)), style);
        pos.play_unchecked(m);
        let samples = wav::assemble(&utterance, Spacing::DEFAULT, clips.loader()).unwrap();

        // The length, computed independently: clips, one gap between two adjacent clips, one
        // pause per PAUSE.
        let mut want = 0;
        for (i, stem) in utterance.clips.iter().enumerate() {
            if stem == PAUSE {
                want += pause;
            } else {
                want += clips.get(stem).unwrap().len();
                if i > 0 && utterance.clips[i - 1] != PAUSE {
                    want += gap;
                }
            }
        }
        assert_eq!(samples.len(), want, "{label} {}", utterance.text);

        let entry = sheet.append(&label, &utterance.text, &samples).unwrap();
        if ply > 0 {
            expected_len += between;
        }
        assert_eq!(entry.start_sample as usize, expected_len);
        expected_len += samples.len();
        assert_eq!(entry.end_sample as usize, expected_len);

        // Valid after every append, without finishing: the header says the right length, and the
        // announcement just appended reads back sample for sample.
        let mut reader = hound::WavReader::open(&path).unwrap();
        assert_eq!(reader.spec(), wav::spec());
        assert_eq!(reader.len() as usize, expected_len, "after {label}");
        reader.seek(entry.start_sample as u32).unwrap();
        let back: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
        assert_eq!(back, samples, "{label}");
        said.push((entry, utterance));
    }
    assert!(
        said.last()
            .unwrap()
            .1
            .clips
            .last()
            .is_some_and(|c| c == "mate")
    );
    let cue_path = sheet.cue_path().to_owned();
    sheet.finish().unwrap();

    // The whole file: its duration is the sum of the clips, gaps, pauses and the silences between
    // announcements, and every cue points at its announcement.
    let mut reader = hound::WavReader::open(&path).unwrap();
    let all: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    assert_eq!(all.len(), expected_len);
    let cues = std::fs::read_to_string(&cue_path).unwrap();
    let lines: Vec<&str> = cues.lines().collect();
    assert_eq!(lines.len(), game.moves.len());
    for ((entry, utterance), line) in said.iter().zip(&lines) {
        let (start_ms, end_ms, label_text) = CueEntry::parse_line(line).unwrap();
        assert_eq!((start_ms, end_ms), (entry.start_ms(), entry.end_ms()));
        assert_eq!(label_text, format!("{} {}", entry.label, utterance.text));
        // The cue's millisecond lands inside its announcement, not in the silence before it.
        let start = (start_ms * u64::from(wav::SAMPLE_RATE) / 1000) as usize;
        assert!(start >= entry.start_sample as usize && start < entry.end_sample as usize);
        let first = &all[entry.start_sample as usize..entry.end_sample as usize];
        assert_eq!(
            first,
            wav::assemble(utterance, Spacing::DEFAULT, clips.loader()).unwrap()
        );
        if entry.start_sample > 0 {
            let before = &all[entry.start_sample as usize - between..entry.start_sample as usize];
            assert!(before.iter().all(|s| *s == 0));
        }
    }
    assert!(lines[0].starts_with("0.000\t"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_scoresheet_of_a_full_game_in_german() {
    record_game("de-fide", Style::San);
}

#[test]
fn the_scoresheet_of_a_full_game_in_spanish_long_style() {
    record_game("es-fide", Style::Long);
}

#[test]
fn the_scoresheet_of_a_full_game_in_english_nato() {
    record_game("en:nato", Style::San);
}

fn tactus(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args(args)
        .env("TACTUS_VOICES", voices_dir())
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn say_prints_the_words_of_each_move() {
    let (out, err, code) = tactus(&["say", "1.", "e4", "e5 Nf3", "Nc6", "Bb5", "a6", "O-O"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7);
    assert!(
        lines[0].starts_with("1.") && lines[0].ends_with("Bauer Eva vier"),
        "{out}"
    );
    assert!(
        lines[1].starts_with("1...") && lines[1].ends_with("Bauer Eva fünf"),
        "{out}"
    );
    assert!(lines[6].ends_with("Kurze Rochade"), "{out}");

    let (out, _, code) = tactus(&["say", "--voice", "en:letters", "--style", "long", "g1f3"]);
    assert_eq!(code, 0);
    assert!(out.trim_end().ends_with("Knight G one F three"), "{out}");

    // Stalemate is said after the move that makes it.
    let (out, _, code) = tactus(&["say", "--fen", "7k/8/6Q1/8/8/8/8/K7 w - - 0 1", "Qf7"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Dame Felix sieben") && out.trim_end().ends_with("Patt"),
        "{out}"
    );

    // An illegal move: its number, its text and the position.
    let (_, err, code) = tactus(&["say", "e4", "Ke7"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("1... 'Ke7'")
            && err.contains("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
        "{err}"
    );
    let (_, err, code) = tactus(&["say", "--fen", "not a fen", "e4"]);
    assert_eq!(code, 2);
    assert!(err.contains("'not a fen'"), "{err}");
    let (_, err, code) = tactus(&["say", "--voice", "xx", "e4"]);
    assert_eq!(code, 2);
    assert!(err.contains("'xx'"), "{err}");
}

#[test]
fn say_renders_a_wav_with_its_cue_list() {
    let dir = scratch("say-wav");
    let out = dir.join("short.wav");
    let (stdout, err, code) = tactus(&[
        "say",
        "--wav",
        out.to_str().unwrap(),
        "e4",
        "e5",
        "Qh5",
        "Nc6",
        "Bc4",
        "Nf6",
        "Qxf7#",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(stdout.lines().count(), 7);
    assert!(
        stdout
            .trim_end()
            .ends_with("Dame schlägt Felix sieben Schachmatt"),
        "{stdout}"
    );
    let reader = hound::WavReader::open(&out).unwrap();
    assert_eq!(reader.spec(), wav::spec());
    let seconds = f64::from(reader.len()) / f64::from(wav::SAMPLE_RATE);
    assert!((5.0..30.0).contains(&seconds), "{seconds} s");
    let cues = std::fs::read_to_string(dir.join("short.cues.txt")).unwrap();
    let lines: Vec<_> = cues.lines().collect();
    assert_eq!(lines.len(), 7);
    assert!(
        lines[6].ends_with("\t4. Dame schlägt Felix sieben Schachmatt"),
        "{cues}"
    );
    assert!(err.contains("short.cues.txt"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn voices_lists_the_packs_and_the_clip_list_matches_the_pack() {
    let (out, err, code) = tactus(&["voices"]);
    assert_eq!(code, 0, "{out}{err}");
    for name in BUILTIN {
        assert!(out.contains(&format!("\n{name}  (")), "{out}");
    }
    assert_eq!(out.matches("    complete").count(), 3, "{out}");
    assert!(out.contains("fide, letters, nato"), "{out}");

    let (out, _, code) = tactus(&["voices", "--clip-list", "es-fide"]);
    assert_eq!(code, 0);
    let pack = VoicePack::builtin("es-fide").unwrap();
    assert_eq!(out.lines().count(), pack.clip_stems().len());
    assert!(
        out.lines().any(|l| l == "knight\tde\tSpringer\tSpringer"),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l == "takes\tes\tcaptura\tcaptura"),
        "{out}"
    );
    // The text as written, then what the speech engine is given (voices/pronounce.toml).
    assert!(
        out.lines().any(|l| l == "file_c\tes\tCesar\tCésar"),
        "{out}"
    );

    // A pack that lacks a clip makes the listing fail and say what is missing.
    let dir = scratch("list");
    let pack_dir = copy_pack("en", &dir);
    std::fs::remove_file(pack_dir.join("clips/nato_h.wav")).unwrap();
    let (out, _, code) = tactus(&["voices", "--voices-dir", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("'nato_h'") && out.contains("nato_h.wav"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn voices_into_a_closed_pipe_ends_quietly() {
    // `tactus voices | head -1`: the reader is gone before tactus writes (here before it even
    // starts, so the write always meets the closed pipe).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    for args in [&["voices"][..], &["voices", "--clip-list", "de-fide"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
            .args(args)
            .env("TACTUS_VOICES", voices_dir())
            .stdout(writer.try_clone().unwrap())
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && err.trim().is_empty(),
            "{args:?}: {err}"
        );
        assert!(out.status.success(), "{args:?}: {}", out.status);
    }
}

/// `voices/README.md` says how many clips each pack has and how big they are: it must agree with
/// the packs (`tactus voices` counts the same `clip_stems`).
#[test]
fn the_voices_readme_counts_the_clips_there_are() {
    let readme = std::fs::read_to_string(voices_dir().join("README.md")).unwrap();
    let sizes = readme
        .split("Sizes:")
        .nth(1)
        .expect("voices/README.md has a 'Sizes:' paragraph");
    let sizes = sizes.split("\n\n").next().unwrap().replace('\n', " ");
    for name in BUILTIN {
        let pack = voices::load_dir(&voices_dir().join(name)).unwrap();
        let count = pack.clip_stems().len();
        let bytes: u64 = std::fs::read_dir(voices_dir().join(name).join("clips"))
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        let mib = bytes as f64 / (1024.0 * 1024.0);
        let said = sizes
            .split_once(&format!("{name} {count} clips ("))
            .unwrap_or_else(|| panic!("'{name} {count} clips (' not in: {sizes}"))
            .1;
        let said_mib: f64 = said
            .split_once(" MiB")
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or_else(|| panic!("no size in MiB after {name}: {said}"));
        assert!(
            (said_mib - mib).abs() < 0.15,
            "{name}: README says {said_mib} MiB, the clips take {mib:.2} MiB"
        );
    }
}
