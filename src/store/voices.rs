//! Voice packs on disk: reading `voices/<name>/voice.toml`, checking that every clip is there and
//! usable, and loading the clips into memory for a clip speaker or the audio scoresheet.
//!
//! This is the I/O edge of [`tactus_core::announce::voice`], which stays pure. A pack that lacks a word
//! or a clip is refused here, at start-up, with an error naming the pack, the word and the file
//! (never a silent gap at the board). It does not play anything and does not decide what is said.

use std::{
    collections::HashMap,
    fmt,
    path::{Path, PathBuf},
};

use tactus_core::announce::voice::{self, BUILTIN, VoiceError, VoicePack};
use tactus_core::record::wav::{SAMPLE_RATE, spec};

/// Environment variable naming the voices folder.
pub const VOICES_ENV: &str = "TACTUS_VOICES";

/// The name of a pack's description file.
pub const PACK_FILE: &str = "voice.toml";

/// Where the packs are: `$TACTUS_VOICES`, else `./voices` when it exists, else the `voices/` of
/// the source tree this binary was built from (so that `cargo run` works from anywhere).
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(VOICES_ENV) {
        return PathBuf::from(dir);
    }
    let here = PathBuf::from("voices");
    if here.is_dir() {
        return here;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("voices")
}

/// Why a pack could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Voice(#[from] VoiceError),
    #[error("voice '{spec}': {reason}")]
    BadSpec { spec: String, reason: String },
    #[error("no voice pack '{name}' in {} (packs there: {found})", dir.display())]
    NotFound {
        name: String,
        dir: PathBuf,
        found: String,
    },
    #[error(
        "voice pack '{pack}' lacks {}: {}; generate {them} with `voices/make-clips.sh {pack}` \
         or record {them}",
        tactus_core::announce::count(missing.len(), "clip", "clips"),
        list_missing(missing),
        them = if missing.len() == 1 { "it" } else { "them" }
    )]
    MissingClips {
        pack: String,
        missing: Vec<MissingClip>,
    },
    #[error("voice pack '{pack}': the clip {} for the word '{word}' cannot be used: {reason}", path.display())]
    BadClip {
        pack: String,
        word: String,
        path: PathBuf,
        reason: String,
    },
}

/// A clip a pack needs and does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingClip {
    pub word: String,
    pub text: String,
    pub path: PathBuf,
}

impl fmt::Display for MissingClip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "word '{}' (\"{}\"): {}",
            self.word,
            self.text,
            self.path.display()
        )
    }
}

/// The first few missing clips, then how many more: an error message, not a listing.
fn list_missing(missing: &[MissingClip]) -> String {
    const SHOWN: usize = 5;
    let mut text = missing
        .iter()
        .take(SHOWN)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if missing.len() > SHOWN {
        text.push_str(&format!(" and {} more", missing.len() - SHOWN));
    }
    text
}

/// The file of the clip `stem` in the pack folder `pack_dir`.
pub fn clip_path(pack_dir: &Path, stem: &str) -> PathBuf {
    pack_dir.join("clips").join(format!("{stem}.wav"))
}

fn pack_name(pack_dir: &Path) -> String {
    pack_dir.file_name().map_or_else(
        || pack_dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Reads and checks `pack_dir/voice.toml` (words and templates only, not the clips).
pub fn read_pack(pack_dir: &Path) -> Result<VoicePack, LoadError> {
    let path = pack_dir.join(PACK_FILE);
    let text = std::fs::read_to_string(&path).map_err(|source| LoadError::Read {
        path: path.clone(),
        source,
    })?;
    Ok(VoicePack::parse(
        &pack_name(pack_dir),
        &text,
        &path.display().to_string(),
    )?)
}

/// The clips `pack` needs that are not in `pack_dir/clips/`.
pub fn missing_clips(pack: &VoicePack, pack_dir: &Path) -> Vec<MissingClip> {
    pack.clip_texts()
        .into_iter()
        .map(|clip| MissingClip {
            path: clip_path(pack_dir, &clip.stem),
            word: clip.stem,
            text: clip.text,
        })
        .filter(|clip| !clip.path.is_file())
        .collect()
}

/// Reads a clip: 22050 Hz, mono, 16-bit integer PCM, not empty. The reason is for an error message.
pub fn read_clip(path: &Path) -> Result<Vec<i16>, String> {
    let reader = hound::WavReader::open(path).map_err(|e| e.to_string())?;
    let found = reader.spec();
    let want = spec();
    if found.sample_rate != want.sample_rate
        || found.channels != want.channels
        || found.bits_per_sample != want.bits_per_sample
        || found.sample_format != want.sample_format
    {
        return Err(format!(
            "it is {} Hz, {}, {}-bit {:?}; clips must be {SAMPLE_RATE} Hz mono 16-bit \
             integer PCM",
            found.sample_rate,
            tactus_core::announce::count(found.channels, "channel", "channels"),
            found.bits_per_sample,
            found.sample_format
        ));
    }
    let samples = reader
        .into_samples::<i16>()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    if samples.is_empty() {
        return Err("it holds no sound".to_owned());
    }
    Ok(samples)
}

/// Reads `pack_dir/voice.toml` and checks that every clip the pack needs is there and usable:
/// what a clip speaker does at start-up.
pub fn load_dir(pack_dir: &Path) -> Result<VoicePack, LoadError> {
    let pack = read_pack(pack_dir)?;
    Clips::load(&pack, pack_dir)?;
    Ok(pack)
}

/// The packs in `dir` (folders holding a `voice.toml`), sorted by name.
pub fn pack_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().join(PACK_FILE).is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn split(spec: &str) -> Result<(&str, Option<voice::FileNames>), LoadError> {
    voice::split_spec(spec).map_err(|reason| LoadError::BadSpec {
        spec: spec.to_owned(),
        reason,
    })
}

fn apply_files(
    pack: VoicePack,
    files: Option<voice::FileNames>,
    spec: &str,
) -> Result<VoicePack, LoadError> {
    match files {
        None => Ok(pack),
        Some(files) => pack.with_files(files).map_err(|kind| LoadError::BadSpec {
            spec: spec.to_owned(),
            reason: kind.to_string(),
        }),
    }
}

/// The pack a voice setting (`de-fide`, `en:nato`) names, with all its clips checked and loaded.
pub fn load(dir: &Path, spec: &str) -> Result<(VoicePack, Clips), LoadError> {
    let (name, files) = split(spec)?;
    let pack_dir = dir.join(name);
    if !pack_dir.join(PACK_FILE).is_file() {
        return Err(LoadError::NotFound {
            name: name.to_owned(),
            dir: dir.to_owned(),
            found: pack_names(dir).join(", "),
        });
    }
    let pack = read_pack(&pack_dir)?;
    let clips = Clips::load(&pack, &pack_dir)?;
    Ok((apply_files(pack, files, spec)?, clips))
}

/// The pack a voice setting names, for its words only (text, transcript, text-to-speech): from
/// `dir` when it is there (so that an edited pack takes effect), else the built-in one.
pub fn load_words(dir: &Path, spec: &str) -> Result<VoicePack, LoadError> {
    let (name, files) = split(spec)?;
    let pack_dir = dir.join(name);
    let pack = if pack_dir.join(PACK_FILE).is_file() {
        read_pack(&pack_dir)?
    } else if let Some(pack) = VoicePack::builtin(name) {
        pack
    } else {
        let mut found = pack_names(dir);
        found.extend(BUILTIN.iter().map(|b| format!("{b} (built in)")));
        return Err(LoadError::NotFound {
            name: name.to_owned(),
            dir: dir.to_owned(),
            found: found.join(", "),
        });
    };
    apply_files(pack, files, spec)
}

/// A pack's clips in memory, by stem: what a clip speaker plays from and what the audio
/// scoresheet is rendered from. About 2 MB per pack.
#[derive(Debug, Clone, Default)]
pub struct Clips {
    samples: HashMap<String, Vec<i16>>,
}

impl Clips {
    /// Reads every clip `pack` needs from `pack_dir/clips/`; a missing or unusable clip is an error
    /// naming the pack, the word and the file.
    pub fn load(pack: &VoicePack, pack_dir: &Path) -> Result<Clips, LoadError> {
        let missing = missing_clips(pack, pack_dir);
        if !missing.is_empty() {
            return Err(LoadError::MissingClips {
                pack: pack.name().to_owned(),
                missing,
            });
        }
        let mut samples = HashMap::new();
        for stem in pack.clip_stems() {
            let path = clip_path(pack_dir, &stem);
            let clip = read_clip(&path).map_err(|reason| LoadError::BadClip {
                pack: pack.name().to_owned(),
                word: stem.clone(),
                path: path.clone(),
                reason,
            })?;
            samples.insert(stem, clip);
        }
        Ok(Clips { samples })
    }

    /// The samples of the clip `stem`, if the pack has it.
    pub fn get(&self, stem: &str) -> Option<&[i16]> {
        self.samples.get(stem).map(Vec::as_slice)
    }

    /// A loader for [`tactus_core::record::wav::assemble`].
    pub fn loader<'a>(&'a self) -> impl FnMut(&str) -> Result<&'a [i16], String> + 'a {
        move |stem| {
            self.get(stem)
                .ok_or_else(|| format!("no clip for the word '{stem}'"))
        }
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// What `tactus voices` says about one pack.
#[derive(Debug)]
pub struct PackStatus {
    pub name: String,
    /// The folder, or `None` for a built-in pack that is not on disk (words only, no clips).
    pub dir: Option<PathBuf>,
    /// The pack, when its `voice.toml` is sound.
    pub pack: Option<VoicePack>,
    /// What is wrong, if anything: a broken `voice.toml`, missing or unusable clips.
    pub problems: Vec<String>,
}

/// Every pack in `dir`, and the built-in packs not found there, with what each lacks.
pub fn survey(dir: &Path) -> Vec<PackStatus> {
    let mut statuses = Vec::new();
    for name in pack_names(dir) {
        let pack_dir = dir.join(&name);
        let mut status = PackStatus {
            name,
            dir: Some(pack_dir.clone()),
            pack: None,
            problems: Vec::new(),
        };
        match read_pack(&pack_dir) {
            Err(e) => status.problems.push(e.to_string()),
            Ok(pack) => {
                let missing = missing_clips(&pack, &pack_dir);
                if missing.is_empty() {
                    if let Err(e) = Clips::load(&pack, &pack_dir) {
                        status.problems.push(e.to_string());
                    }
                } else {
                    status.problems.push(
                        LoadError::MissingClips {
                            pack: pack.name().to_owned(),
                            missing,
                        }
                        .to_string(),
                    );
                }
                status.pack = Some(pack);
            }
        }
        statuses.push(status);
    }
    for name in BUILTIN {
        if statuses.iter().all(|s| s.name != *name) {
            statuses.push(PackStatus {
                name: (*name).to_owned(),
                dir: None,
                pack: VoicePack::builtin(name),
                problems: vec![format!(
                    "built in, but not in {}: words only, no clips (text-to-speech and transcript \
                     work; the clip speaker and WAV scoresheet do not)",
                    dir.display()
                )],
            });
        }
    }
    statuses
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(words: &[&str]) -> LoadError {
        LoadError::MissingClips {
            pack: "de-fide".into(),
            missing: words
                .iter()
                .map(|w| MissingClip {
                    word: (*w).into(),
                    text: (*w).into(),
                    path: PathBuf::from(format!("clips/{w}.wav")),
                })
                .collect(),
        }
    }

    #[test]
    fn missing_clips_are_counted_in_words_without_a_plural_in_brackets() {
        let one = missing(&["cesar"]).to_string();
        assert!(one.contains("lacks 1 clip: word 'cesar'"), "{one}");
        assert!(one.contains("generate it with"), "{one}");
        assert!(one.contains("or record it"), "{one}");
        let two = missing(&["cesar", "anton"]).to_string();
        assert!(two.contains("lacks 2 clips: word 'cesar'"), "{two}");
        assert!(two.contains("generate them with"), "{two}");
        assert!(!one.contains("(s)") && !two.contains("(s)"));
    }

    #[test]
    fn a_stereo_clip_is_refused_with_its_channels_counted_in_words() {
        let dir = crate::store::scratch("stereo");
        let path = dir.join("stereo.wav");
        let stereo = hound::WavSpec {
            channels: 2,
            ..spec()
        };
        let mut writer = hound::WavWriter::create(&path, stereo).unwrap();
        writer.write_sample(0_i16).unwrap();
        writer.write_sample(0_i16).unwrap();
        writer.finalize().unwrap();
        let reason = read_clip(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(
            reason.starts_with("it is 22050 Hz, 2 channels, 16-bit"),
            "{reason}"
        );
    }
}
