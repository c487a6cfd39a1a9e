//! The audio scoresheet file of a game (I/O): every move announcement in one WAV, appended one
//! utterance at a time, with its cue list beside it. After every append both files are valid
//! (hound's `flush` rewrites the WAV header), so a crash or power cut never leaves a broken
//! recording. The samples and the cue lines come from the pure [`tactus_core::record::wav`].

use std::{
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
};

use tactus_core::record::wav::{self, CueEntry, ScoresheetEntry, Spacing, ms_to_samples, spec};
use tactus_core::rules::Millis;

/// A scoresheet that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScoresheetError {
    #[error("cannot write the audio scoresheet {}: {source}", path.display())]
    Wav {
        path: PathBuf,
        #[source]
        source: hound::Error,
    },
    #[error("cannot write the cue list {}: {source}", path.display())]
    Cues {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot say move {label} in the audio scoresheet: {message}")]
    Clip { label: String, message: String },
}

/// A new, empty file at `path`, replacing whatever is there without following it: a symbolic
/// link planted in its place is removed (not its target truncated, as `File::create` would), and
/// `O_EXCL` creates the file only if nothing came back in between.
fn fresh_file(path: &Path) -> std::io::Result<File> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// The audio scoresheet of one game, written as the game goes (I/O: files).
pub struct AudioScoresheet {
    path: PathBuf,
    cue_path: PathBuf,
    wav: hound::WavWriter<BufWriter<File>>,
    cues: BufWriter<File>,
    between: usize,
    written: u64,
    entries: usize,
}

impl AudioScoresheet {
    /// The cue file that goes with `wav_path` (`game.wav` -> `game.cues.txt`).
    pub fn cue_path_for(wav_path: &Path) -> PathBuf {
        wav_path.with_extension("cues.txt")
    }

    /// Starts a scoresheet at `path` (replacing any file there; after a restart the game is
    /// replayed from its journal, which writes the recording again) with `between_ms` of silence
    /// between announcements, and its cue file beside it.
    pub fn create(path: &Path, between_ms: Millis) -> Result<AudioScoresheet, ScoresheetError> {
        let wav_error = |source| ScoresheetError::Wav {
            path: path.to_owned(),
            source,
        };
        let cue_path = Self::cue_path_for(path);
        let file = fresh_file(path).map_err(|e| wav_error(hound::Error::IoError(e)))?;
        let mut wav = hound::WavWriter::new(BufWriter::new(file), spec()).map_err(wav_error)?;
        // A game without moves is a valid, empty recording from the start.
        wav.flush().map_err(wav_error)?;
        let cues = fresh_file(&cue_path).map_err(|source| ScoresheetError::Cues {
            path: cue_path.clone(),
            source,
        })?;
        Ok(AudioScoresheet {
            path: path.to_owned(),
            cue_path,
            wav,
            cues: BufWriter::new(cues),
            between: ms_to_samples(between_ms),
            written: 0,
            entries: 0,
        })
    }

    /// Appends one announcement (its samples, from [`assemble`](tactus_core::record::wav::assemble)) with the silence before it, then
    /// makes both files valid and complete on disk: the WAV header is rewritten and the cue line
    /// flushed. Returns where it went.
    pub fn append(
        &mut self,
        label: &str,
        text: &str,
        samples: &[i16],
    ) -> Result<CueEntry, ScoresheetError> {
        let wav_error = |source| ScoresheetError::Wav {
            path: self.path.clone(),
            source,
        };
        let silence = if self.entries == 0 { 0 } else { self.between };
        let total = silence + samples.len();
        let mut writer = self
            .wav
            .get_i16_writer(u32::try_from(total).map_err(|_| wav_error(hound::Error::TooWide))?);
        for _ in 0..silence {
            writer.write_sample(0);
        }
        for &sample in samples {
            writer.write_sample(sample);
        }
        writer.flush().map_err(wav_error)?;
        self.wav.flush().map_err(wav_error)?;

        let entry = CueEntry {
            label: label.to_owned(),
            text: text.to_owned(),
            start_sample: self.written + silence as u64,
            end_sample: self.written + total as u64,
        };
        self.written = entry.end_sample;
        self.entries += 1;
        let cue_error = |source| ScoresheetError::Cues {
            path: self.cue_path.clone(),
            source,
        };
        writeln!(self.cues, "{}", entry.to_line()).map_err(cue_error)?;
        self.cues.flush().map_err(cue_error)?;
        Ok(entry)
    }

    /// The whole audio scoresheet of `entries` (from [`wav::scoresheet`]) at `path`, with its
    /// cue list beside it: each entry assembled from the clips `load` gives, with `spacing`
    /// inside it and `between_ms` of silence between two. The first clip that cannot be loaded
    /// is the error, naming the move.
    pub fn record<S, E>(
        path: &Path,
        entries: &[ScoresheetEntry],
        spacing: Spacing,
        between_ms: Millis,
        mut load: impl FnMut(&str) -> Result<S, E>,
    ) -> Result<(), ScoresheetError>
    where
        S: AsRef<[i16]>,
        E: std::fmt::Display,
    {
        let mut sheet = AudioScoresheet::create(path, between_ms)?;
        for entry in entries {
            let samples: Vec<i16> =
                wav::assemble(&entry.utterance, spacing, &mut load).map_err(|e| {
                    ScoresheetError::Clip {
                        label: entry.label.clone(),
                        message: e.to_string(),
                    }
                })?;
            sheet.append(&entry.label, &entry.utterance.text, &samples)?;
        }
        sheet.finish()
    }

    /// Samples written so far.
    pub fn len_samples(&self) -> u64 {
        self.written
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn cue_path(&self) -> &Path {
        &self.cue_path
    }

    /// Finishes the recording (the header is already current; this reports a last error that a
    /// drop would swallow).
    pub fn finish(self) -> Result<(), ScoresheetError> {
        let AudioScoresheet {
            path,
            wav,
            mut cues,
            cue_path,
            ..
        } = self;
        wav.finalize()
            .map_err(|source| ScoresheetError::Wav { path, source })?;
        cues.flush().map_err(|source| ScoresheetError::Cues {
            path: cue_path,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tactus_core::{
        announce::voice::{PAUSE, Utterance},
        record::wav::{Spacing, assemble},
    };

    fn utterance(clips: &[&str]) -> Utterance {
        Utterance {
            text: clips.join(" "),
            clips: clips.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn clip(stem: &str) -> Result<Vec<i16>, String> {
        match stem {
            "a" => Ok(vec![1; 100]),
            "b" => Ok(vec![2; 50]),
            other => Err(format!("no clip {other}")),
        }
    }

    #[test]
    fn assembly_puts_gaps_between_clips_and_pauses_where_asked() {
        let spacing = Spacing {
            gap_ms: 10,
            pause_ms: 100,
        };
        let (gap, pause) = (ms_to_samples(10), ms_to_samples(100));
        assert_eq!((gap, pause), (220, 2205));
        let samples = assemble(&utterance(&["a", "b", PAUSE, "a"]), spacing, clip).unwrap();
        assert_eq!(samples.len(), 100 + gap + 50 + pause + 100);
        assert!(samples[..100].iter().all(|s| *s == 1));
        assert!(samples[100..100 + gap].iter().all(|s| *s == 0));
        assert!(samples[100 + gap..150 + gap].iter().all(|s| *s == 2));
        assert!(
            samples[150 + gap..150 + gap + pause]
                .iter()
                .all(|s| *s == 0)
        );
        assert_eq!(samples.last(), Some(&1));
        assert!(assemble(&utterance(&[]), spacing, clip).unwrap().is_empty());
        assert_eq!(
            assemble(&utterance(&["a", "zz"]), spacing, clip).unwrap_err(),
            "no clip zz"
        );
        // Borrowed clips work as well as owned ones (a speaker's cache).
        let cache = [1i16; 3];
        let borrowed = assemble(&utterance(&["x", "x"]), spacing, |_| {
            Ok::<_, ()>(&cache[..])
        });
        assert_eq!(borrowed.unwrap().len(), 6 + gap);
    }

    #[test]
    fn cue_lines_round_trip() {
        let entry = CueEntry {
            label: "12...".into(),
            text: "Springer\tFelix drei".into(),
            start_sample: 22_050 * 61 + 11,
            end_sample: 22_050 * 62,
        };
        assert_eq!(entry.to_line(), "61.001\t62.000\t12... Springer Felix drei");
        assert_eq!(
            CueEntry::parse_line(&entry.to_line()),
            Some((61_001, 62_000, "12... Springer Felix drei".into()))
        );
        assert_eq!(CueEntry::parse_line("1.5\t2.000\tx"), None);
        assert_eq!(
            AudioScoresheet::cue_path_for(Path::new("games/g1.wav")),
            Path::new("games/g1.cues.txt")
        );
    }

    #[test]
    fn the_scoresheet_is_a_valid_wav_after_every_append() {
        let dir = std::env::temp_dir().join(format!("tactus-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.wav");
        let mut sheet = AudioScoresheet::create(&path, 100).unwrap();
        assert_eq!(hound::WavReader::open(&path).unwrap().len(), 0);
        let between = ms_to_samples(100) as u64;
        let mut expected: Vec<i16> = Vec::new();
        for (i, len) in [300usize, 1, 5_000].into_iter().enumerate() {
            let samples: Vec<i16> = (0..len).map(|n| (n % 200) as i16 + 1).collect();
            let entry = sheet
                .append(&format!("{}.", i + 1), "text", &samples)
                .unwrap();
            if i > 0 {
                expected.resize(expected.len() + between as usize, 0);
            }
            assert_eq!(entry.start_sample, expected.len() as u64);
            expected.extend(&samples);
            assert_eq!(entry.end_sample, expected.len() as u64);
            // Read back while the writer is still open: the header is already right.
            let mut reader = hound::WavReader::open(&path).unwrap();
            assert_eq!(reader.spec(), spec());
            let read: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
            assert_eq!(read, expected);
            let cues = std::fs::read_to_string(sheet.cue_path()).unwrap();
            assert_eq!(cues.lines().count(), i + 1);
        }
        sheet.finish().unwrap();
        assert_eq!(
            hound::WavReader::open(&path).unwrap().len() as usize,
            expected.len()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 14, point 9: a symbolic link planted where the recording goes was followed, and
    /// its target (any file the daemon's user may write) truncated and overwritten. The link
    /// itself is replaced; the target is untouched.
    #[test]
    fn a_planted_link_is_replaced_not_followed() {
        let dir = std::env::temp_dir().join(format!("tactus-wav-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim.txt");
        let cue_victim = dir.join("cue-victim.txt");
        std::fs::write(&victim, b"keep").unwrap();
        std::fs::write(&cue_victim, b"keep too").unwrap();
        let path = dir.join(".blind-score.tmp.wav");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        std::os::unix::fs::symlink(&cue_victim, AudioScoresheet::cue_path_for(&path)).unwrap();
        let sheet = AudioScoresheet::create(&path, 100).unwrap();
        sheet.finish().unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&cue_victim).unwrap(), b"keep too");
        assert!(
            !std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(hound::WavReader::open(&path).unwrap().len(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
