//! The clip speaker: plays an utterance as the voice pack's recorded clips, joined with short
//! gaps, on an audio output (a device, or one side of a device shared by both audiences).
//!
//! Owns loading and caching the clips (hound) and turning an [`Utterance`]'s clip list into
//! samples. It does not word anything (the pack does) and does not touch the device itself (the
//! audio engine in `output` does, on its own thread).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::Duration,
};

use tactus_core::{
    announce::voice::{PAUSE, Utterance},
    record::wav::{Spacing, assemble},
};

use super::{
    SpeakError, Speaker, SpeakerEvent, SpeakerEventKind, SpeakerEvents, Token,
    config::{ClipTarget, Route, Side},
    output::AudioEngine,
    pcm,
};

/// Extra time over an utterance's length before a clip output counts as hung: a real device
/// plays in real time and may start late.
const DEADLINE_MARGIN: Duration = Duration::from_secs(2);

/// The clips of one pack, loaded on first use and kept (a pack is a few hundred short clips, a
/// few megabytes as samples).
#[derive(Debug)]
pub struct ClipLibrary {
    dir: PathBuf,
    cache: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl ClipLibrary {
    /// The clips in `dir` (`voices/<pack>/clips`).
    pub fn new(dir: impl Into<PathBuf>) -> ClipLibrary {
        ClipLibrary {
            dir: dir.into(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, stem: &str) -> PathBuf {
        self.dir.join(format!("{stem}.wav"))
    }

    /// The samples of one clip, mono at [`pcm::CLIP_RATE`].
    pub fn clip(&self, stem: &str) -> Result<Arc<[f32]>, SpeakError> {
        if let Some(samples) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(stem)
        {
            return Ok(samples.clone());
        }
        let path = self.path_of(stem);
        // A stem is a file name inside the pack, never a path: a pack is data and must not reach
        // outside its folder.
        if stem.is_empty() || stem.contains(['/', '\\']) || stem.starts_with('.') {
            return Err(SpeakError::BadClip {
                path: path.display().to_string(),
                reason: format!("'{stem}' is not a clip name"),
            });
        }
        let samples: Arc<[f32]> = load_wav(&path, stem)?.into();
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(stem.to_string(), samples.clone());
        Ok(samples)
    }

    /// Loads every clip an utterance needs (at start-up, so that a missing clip is an error
    /// before the game rather than a silent gap at the board).
    pub fn preload<'a>(&self, stems: impl IntoIterator<Item = &'a str>) -> Result<(), SpeakError> {
        for stem in stems {
            if stem != PAUSE {
                self.clip(stem)?;
            }
        }
        Ok(())
    }

    /// The samples of a whole utterance, mono at [`pcm::CLIP_RATE`].
    pub fn render(
        &self,
        utterance: &Utterance,
        gap: Duration,
        pause: Duration,
    ) -> Result<Vec<f32>, SpeakError> {
        // The same joining as the audio scoresheet, so the recording sounds like the board.
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let spacing = Spacing {
            gap_ms: ms(gap),
            pause_ms: ms(pause),
        };
        assemble(utterance, spacing, |stem| self.clip(stem))
    }
}

/// Reads a clip: 16-bit (or float) PCM, mixed down to mono and converted to [`pcm::CLIP_RATE`] if
/// a replaced recording comes at another rate.
fn load_wav(path: &Path, stem: &str) -> Result<Vec<f32>, SpeakError> {
    let bad = |reason: String| SpeakError::BadClip {
        path: path.display().to_string(),
        reason,
    };
    let reader = match hound::WavReader::open(path) {
        Ok(r) => r,
        Err(hound::Error::IoError(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SpeakError::MissingClip {
                stem: stem.to_string(),
                path: path.display().to_string(),
            });
        }
        Err(e) => return Err(bad(e.to_string())),
    };
    let spec = reader.spec();
    let interleaved: Vec<f32> = match (spec.sample_format, spec.bits_per_sample) {
        (hound::SampleFormat::Int, 16) => reader
            .into_samples::<i16>()
            .map(|s| s.map(pcm::i16_to_f32))
            .collect::<Result<_, _>>()
            .map_err(|e| bad(e.to_string()))?,
        (hound::SampleFormat::Float, 32) => reader
            .into_samples::<f32>()
            .collect::<Result<_, _>>()
            .map_err(|e| bad(e.to_string()))?,
        (format, bits) => {
            return Err(bad(format!(
                "{bits}-bit {format:?} samples; clips must be 16-bit PCM (22050 Hz mono)"
            )));
        }
    };
    let channels = usize::from(spec.channels.max(1));
    let mono: Vec<f32> = interleaved
        .chunks(channels)
        .map(|frame| frame.iter().sum::<f32>() / frame.len() as f32)
        .collect();
    Ok(pcm::resample_linear(
        &mono,
        spec.sample_rate,
        pcm::CLIP_RATE,
    ))
}

/// Plays utterances from a [`ClipLibrary`] on one output.
pub struct ClipSpeaker {
    library: Arc<ClipLibrary>,
    engine: AudioEngine,
    target: ClipTarget,
    gap: Duration,
    pause: Duration,
    events: SpeakerEvents,
}

impl ClipSpeaker {
    pub(crate) fn new(
        library: Arc<ClipLibrary>,
        engine: AudioEngine,
        target: ClipTarget,
        gap: Duration,
        pause: Duration,
        events: SpeakerEvents,
    ) -> ClipSpeaker {
        ClipSpeaker {
            library,
            engine,
            target,
            gap,
            pause,
            events,
        }
    }
}

impl Speaker for ClipSpeaker {
    fn describe(&self) -> String {
        let device = match &self.target.device {
            Some(name) => format!("device '{name}'"),
            None => "the default audio output".to_string(),
        };
        let side = match self.target.route {
            Route::Whole => "",
            Route::Side(Side::Left) => ", left channel",
            Route::Side(Side::Right) => ", right channel",
        };
        format!(
            "clips from {} on {device}{side}",
            self.library.dir().display()
        )
    }

    fn start(&mut self, token: Token, utterance: &Utterance) -> Result<Duration, SpeakError> {
        let samples = self.library.render(utterance, self.gap, self.pause)?;
        if samples.is_empty() {
            // Nothing to play (an utterance without clips): done at once, without opening the
            // device.
            let _ = self.events.send(SpeakerEvent {
                token,
                kind: SpeakerEventKind::Finished,
            });
            return Ok(DEADLINE_MARGIN);
        }
        let length = pcm::duration_of(samples.len(), pcm::CLIP_RATE);
        self.engine
            .play(&self.target, token, samples, self.events.clone())?;
        Ok(length + length / 2 + DEADLINE_MARGIN)
    }

    fn stop(&mut self, token: Token) {
        self.engine.stop(&self.target, token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> crate::store::Scratch {
        crate::store::scratch(&format!("clips-{name}"))
    }

    fn write_wav(path: &Path, rate: u32, channels: u16, samples: &[i16]) {
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(path, spec).unwrap();
        for s in samples {
            w.write_sample(*s).unwrap();
        }
        w.finalize().unwrap();
    }

    #[test]
    fn clips_are_loaded_cached_and_joined() {
        let dir = temp_dir("join");
        write_wav(&dir.join("Dame.wav"), 22_050, 1, &[16_384; 100]);
        write_wav(&dir.join("Hector.wav"), 22_050, 1, &[-16_384; 50]);
        let lib = ClipLibrary::new(&dir);
        let u = Utterance {
            text: "Dame Hector".into(),
            clips: vec!["Dame".into(), PAUSE.into(), "Hector".into()],
        };
        let samples = lib
            .render(&u, Duration::from_millis(10), Duration::from_millis(100))
            .unwrap();
        assert_eq!(samples.len(), 100 + 2205 + 50);
        assert_eq!(samples[0], 0.5);
        assert_eq!(samples[100], 0.0);
        assert_eq!(samples[2305], -0.5);
        // Cached: deleting the file does not matter any more.
        std::fs::remove_file(dir.join("Dame.wav")).unwrap();
        assert!(lib.clip("Dame").is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stereo_and_other_rates_become_mono_at_the_clip_rate() {
        let dir = temp_dir("convert");
        // 0.1 s of stereo at 44.1 kHz, left loud, right silent.
        let frames: Vec<i16> = (0..4410).flat_map(|_| [16_384i16, 0]).collect();
        write_wav(&dir.join("x.wav"), 44_100, 2, &frames);
        let clip = ClipLibrary::new(&dir).clip("x").unwrap();
        assert_eq!(clip.len(), 2205);
        assert!((clip[10] - 0.25).abs() < 1e-6);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_clip_names_the_file_and_the_fix() {
        let dir = temp_dir("missing");
        let lib = ClipLibrary::new(&dir);
        let err = lib.preload(["Felix", PAUSE]).unwrap_err().to_string();
        assert!(
            err.contains("Felix") && err.contains("Felix.wav") && err.contains("regenerate"),
            "{err}"
        );
        std::fs::write(dir.join("junk.wav"), b"not a wav").unwrap();
        let err = lib.clip("junk").unwrap_err().to_string();
        assert!(
            err.contains("junk.wav") && err.contains("cannot be read"),
            "{err}"
        );
        let err = lib.clip("../etc/passwd").unwrap_err().to_string();
        assert!(err.contains("not a clip name"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
