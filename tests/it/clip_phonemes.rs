//! Every clip of every voice pack, as the speech engine says it: the clip list comes from the
//! real binary (`tactus voices --clip-list PACK`, what `voices/make-clips.sh` records, with
//! `voices/pronounce.toml` applied), and espeak-ng transcribes exactly what the script feeds it
//! (`espeak-ng -x -q -v LANG TEXT`). A listener's check, by phonemes:
//!
//! - the words that carry a move, a time or a result (file names, ranks, pieces, castling,
//!   numbers, check, mate, stalemate, captures, draws, sides) must sound as `voices/phonemes.tsv`
//!   says: the FIDE "Cesar" is "Zäsar" (ts'E:zA:r), not "Kesar" (k'e:zA:r);
//! - no clip makes espeak-ng switch language in the middle (it prints "(en)" when it takes a word
//!   for English), and every clip says something.
//!
//! Needs espeak-ng (scripts/setup installs it).

use std::{
    collections::{BTreeMap, BTreeSet},
    process::{Command, Stdio},
};

use tactus_core::announce::voice::BUILTIN;

use crate::support::table::voices_dir;

/// One line of the clip list.
#[derive(Debug, Clone)]
struct Clip {
    pack: String,
    stem: String,
    lang: String,
    /// As the pack writes it.
    text: String,
    /// As espeak-ng is given it.
    spoken: String,
}

fn clip_list(pack: &str) -> Vec<Clip> {
    let out = Command::new(env!("CARGO_BIN_EXE_tactus"))
        .args(["voices", "--voices-dir"])
        .arg(voices_dir())
        .args(["--clip-list", pack])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [stem, lang, text, spoken] = fields[..] else {
                panic!("{pack}: not stem<TAB>language<TAB>text<TAB>spoken: {line:?}");
            };
            Clip {
                pack: pack.to_string(),
                stem: stem.to_string(),
                lang: lang.to_string(),
                text: text.to_string(),
                spoken: spoken.to_string(),
            }
        })
        .collect()
}

/// The clips whose every sound matters at the board.
fn matters(stem: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "file_",
        "rank_",
        "num_",
        "hundreds_",
        "letter_",
        "nato_",
        "castle_",
        "draw",
    ];
    const WORDS: [&str; 13] = [
        "king",
        "queen",
        "rook",
        "bishop",
        "knight",
        "pawn",
        "check",
        "mate",
        "stalemate",
        "takes",
        "claims_draw",
        "side_white",
        "side_black",
    ];
    PREFIXES.iter().any(|p| stem.starts_with(p)) || WORDS.contains(&stem)
}

/// Without what varies between espeak-ng versions and does not change the word: secondary
/// stress, glottal-stop and pause marks, line breaks between clauses.
fn normalize(phonemes: &str) -> String {
    phonemes
        .replace("_!", "")
        .replace("_|", "")
        .replace(',', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// espeak-ng's phonemes for `text` in `lang`, as printed.
fn espeak(lang: &str, text: &str) -> String {
    let out = Command::new("espeak-ng")
        .args(["-x", "-q", "-v", lang])
        .arg(text)
        .stdin(Stdio::null())
        .output()
        .expect("espeak-ng is not installed: run scripts/setup");
    assert!(
        out.status.success(),
        "espeak-ng -v {lang} {text:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `voices/phonemes.tsv`: (language, text as written) -> phonemes.
fn expected() -> BTreeMap<(String, String), String> {
    let path = voices_dir().join("phonemes.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut table = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [lang, text, phonemes] = fields[..] else {
            panic!(
                "{}:{}: not lang<TAB>text<TAB>phonemes",
                path.display(),
                n + 1
            );
        };
        let key = (lang.to_string(), text.to_string());
        let old = table.insert(key, phonemes.to_string());
        assert!(old.is_none(), "{}:{}: twice", path.display(), n + 1);
    }
    table
}

#[test]
fn every_clip_word_of_every_pack_sounds_as_it_must() {
    let clips: Vec<Clip> = BUILTIN.iter().flat_map(|pack| clip_list(pack)).collect();
    assert!(clips.len() > 500, "{} clips", clips.len());
    // Each distinct input once, on a few threads (a call takes about 20 ms).
    let inputs: Vec<(String, String)> = clips
        .iter()
        .map(|c| (c.lang.clone(), c.spoken.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let heard: BTreeMap<(String, String), String> = std::thread::scope(|scope| {
        let workers: Vec<_> = inputs
            .chunks(inputs.len().div_ceil(4))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(lang, text)| ((lang.clone(), text.clone()), espeak(lang, text)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let expected = expected();
    let mut used = BTreeSet::new();
    let mut wrong = Vec::new();
    for clip in &clips {
        let raw = &heard[&(clip.lang.clone(), clip.spoken.clone())];
        let got = normalize(raw);
        let name = format!(
            "{} {} ({}, {:?} given as {:?})",
            clip.pack, clip.stem, clip.lang, clip.text, clip.spoken
        );
        if got.is_empty() {
            wrong.push(format!("{name}: espeak-ng says nothing"));
        }
        if raw.contains('(') {
            wrong.push(format!(
                "{name}: espeak-ng switches language inside it: {raw:?}"
            ));
        }
        if !matters(&clip.stem) {
            continue;
        }
        let key = (clip.lang.clone(), clip.text.clone());
        match expected.get(&key) {
            None => wrong.push(format!(
                "{name}: sounds {got:?}; not in voices/phonemes.tsv (listen to it, then add the line)"
            )),
            Some(want) if *want != got => wrong.push(format!(
                "{name}: sounds {got:?}, must sound {want:?} (fix it in voices/pronounce.toml, then \
                 voices/make-clips.sh {})",
                clip.pack
            )),
            Some(_) => {}
        }
        used.insert(key);
    }
    for key in expected.keys().filter(|k| !used.contains(*k)) {
        wrong.push(format!(
            "voices/phonemes.tsv: {key:?} is no clip's word any more"
        ));
    }
    assert!(
        wrong.is_empty(),
        "{} clip(s) sound wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The mistake this test exists for: espeak-ng's own reading of the FIDE file name, without the
/// pronunciation table, is "Kesar", and the table's phonemes tell it apart.
#[test]
fn the_fide_cesar_is_zaesar_not_kesar() {
    let want = &expected()[&("de".to_string(), "Cesar".to_string())];
    assert!(want.starts_with("ts'"), "Zäsar begins with ts: {want}");
    let plain = normalize(&espeak("de", "Cesar"));
    assert_ne!(
        &plain, want,
        "espeak-ng now reads Cesar right by itself: voices/pronounce.toml may drop it"
    );
    let de_fide = clip_list("de-fide");
    let file_c = de_fide.iter().find(|c| c.stem == "file_c").unwrap();
    assert_eq!(file_c.text, "Cesar", "the pack still writes the FIDE name");
    assert_eq!(&normalize(&espeak("de", &file_c.spoken)), want);
}
