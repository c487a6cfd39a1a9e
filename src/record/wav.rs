//! The audio scoresheet: every move announcement of a game in one WAV file, with a cue list.
//!
//! This module is pure: [`assemble`] turns an [`Utterance`] into samples from a pack's clips with
//! short gaps between words and longer silences for pauses (the clip speaker uses the same
//! function, so the recording sounds exactly like the board), and [`CueEntry`] is one line of the
//! cue list. The file writer, which leaves a valid WAV after every append, is
//! `crate::store::audio::AudioScoresheet` in the shell.
//!
//! The cue list is a sidecar text file next to the WAV (`game.wav` -> `game.cues.txt`), one line
//! per announcement, appended and flushed with it, in Audacity's label-track format so that a
//! player can open both in Audacity (usable with a screen reader) and jump from move to move:
//!
//! ```text
//! 0.000<TAB>1.053<TAB>1. Bauer Eva vier
//! 1.554<TAB>2.705<TAB>1... Bauer Cesar fünf
//! ```
//!
//! Start and end in seconds with millisecond precision (so `offset_ms = start * 1000`; the start
//! rounded up so that it falls inside the announcement), then the label (the move number) and the
//! announcement text, separated by a space.

use crate::announce::voice::{PAUSE, Utterance};
use crate::rules::Millis;

/// The sample rate of every clip and of the scoresheet.
pub const SAMPLE_RATE: u32 = 22_050;

/// The silence between two announcements in the scoresheet, so that moves are heard apart.
pub const BETWEEN_ANNOUNCEMENTS_MS: Millis = 500;

/// The WAV format of clips and scoresheets: 22050 Hz, mono, 16-bit integer PCM.
pub fn spec() -> hound::WavSpec {
    hound::WavSpec {
        channels: 1,
        sample_rate: SAMPLE_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    }
}

/// The number of samples in `ms` milliseconds (rounded down).
pub fn ms_to_samples(ms: Millis) -> usize {
    (ms * u64::from(SAMPLE_RATE) / 1000) as usize
}

/// The time of sample `n` in milliseconds (rounded down).
pub fn samples_to_ms(n: u64) -> Millis {
    n * 1000 / u64::from(SAMPLE_RATE)
}

/// The silences between the clips of one utterance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spacing {
    /// Between two words.
    pub gap_ms: Millis,
    /// For a [`PAUSE`] (a comma in the text); it replaces the gap.
    pub pause_ms: Millis,
}

impl Spacing {
    /// Short enough to sound like one phrase, long enough that clips do not run into each other.
    pub const DEFAULT: Spacing = Spacing {
        gap_ms: 60,
        pause_ms: 250,
    };
}

impl Default for Spacing {
    fn default() -> Self {
        Spacing::DEFAULT
    }
}

/// The samples of `utterance`: its clips in order, [`Spacing::gap_ms`] of silence between two
/// clips, and [`Spacing::pause_ms`] instead of the gap where one or more [`PAUSE`]s stand between
/// them. Pauses at either end add nothing (silence before the first word only adds latency; after
/// the last it only delays "finished", which starts a clock). `load` gives the samples of a clip
/// stem (22050 Hz mono, any sample type); its first error is returned. Pure.
///
/// The clip speaker and the audio scoresheet both use this, so the recording sounds exactly like
/// the board.
pub fn assemble<T, S, E>(
    utterance: &Utterance,
    spacing: Spacing,
    mut load: impl FnMut(&str) -> Result<S, E>,
) -> Result<Vec<T>, E>
where
    T: Copy + Default,
    S: AsRef<[T]>,
{
    let gap = ms_to_samples(spacing.gap_ms);
    let pause = ms_to_samples(spacing.pause_ms);
    let mut samples = Vec::new();
    let mut any_clip = false;
    let mut paused = false;
    for stem in &utterance.clips {
        if stem == PAUSE {
            paused = any_clip;
            continue;
        }
        if any_clip {
            let silence = if paused { pause } else { gap };
            samples.resize(samples.len() + silence, T::default());
        }
        samples.extend_from_slice(load(stem)?.as_ref());
        any_clip = true;
        paused = false;
    }
    Ok(samples)
}

/// One announcement in the scoresheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CueEntry {
    /// The move number as written ("12." for White, "12..." for Black), or any label.
    pub label: String,
    /// What was said.
    pub text: String,
    /// The first sample of the announcement.
    pub start_sample: u64,
    /// One past its last sample.
    pub end_sample: u64,
}

impl CueEntry {
    /// The start in milliseconds, rounded up: a player who jumps there lands inside the
    /// announcement, not in the silence before it.
    pub fn start_ms(&self) -> u64 {
        (self.start_sample * 1000).div_ceil(u64::from(SAMPLE_RATE))
    }

    /// The end in milliseconds, rounded down.
    pub fn end_ms(&self) -> u64 {
        samples_to_ms(self.end_sample)
    }

    /// The line of the cue file (see the module docs), without the newline.
    pub fn to_line(&self) -> String {
        let seconds = |ms: u64| format!("{}.{:03}", ms / 1000, ms % 1000);
        // Tabs and newlines would break the line format.
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        format!(
            "{}\t{}\t{} {}",
            seconds(self.start_ms()),
            seconds(self.end_ms()),
            clean(&self.label),
            clean(&self.text)
        )
    }

    /// Reads a cue line back: start and end in milliseconds, and the label with the text.
    pub fn parse_line(line: &str) -> Option<(u64, u64, String)> {
        let mut fields = line.splitn(3, '\t');
        let ms = |field: &str| -> Option<u64> {
            let (s, frac) = field.split_once('.')?;
            (frac.len() == 3).then_some(())?;
            Some(s.parse::<u64>().ok()? * 1000 + frac.parse::<u64>().ok()?)
        };
        let start = ms(fields.next()?)?;
        let end = ms(fields.next()?)?;
        Some((start, end, fields.next()?.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utterance(clips: &[&str]) -> Utterance {
        Utterance {
            text: String::new(),
            clips: clips.iter().map(|c| c.to_string()).collect(),
        }
    }

    fn clip(stem: &str) -> Result<Vec<f32>, String> {
        match stem {
            "a" => Ok(vec![0.5; 3]),
            "b" => Ok(vec![-0.5; 2]),
            other => Err(format!("no clip {other}")),
        }
    }

    // 22050 Hz: 2 ms = 44 samples, 5 ms = 110 samples.
    const SPACING: Spacing = Spacing {
        gap_ms: 2,
        pause_ms: 5,
    };

    #[test]
    fn clips_are_joined_with_gaps_and_pauses_replace_gaps() {
        let out: Vec<f32> = assemble(&utterance(&["a", "b"]), SPACING, clip).unwrap();
        assert_eq!(out.len(), 3 + 44 + 2);
        assert_eq!(&out[..3], &[0.5; 3]);
        assert_eq!(&out[3..47], &[0.0; 44]);
        assert_eq!(&out[47..], &[-0.5; 2]);
        let out: Vec<f32> = assemble(&utterance(&["a", PAUSE, PAUSE, "b"]), SPACING, clip).unwrap();
        assert_eq!(
            out.len(),
            3 + 110 + 2,
            "two pauses in a row are one pause, not two"
        );
        assert_eq!(&out[3..113], &[0.0; 110]);
    }

    #[test]
    fn pauses_at_the_ends_add_nothing() {
        let out: Vec<f32> = assemble(&utterance(&[PAUSE, "a", PAUSE]), SPACING, clip).unwrap();
        assert_eq!(out, vec![0.5; 3]);
        assert!(
            assemble::<f32, _, _>(&utterance(&[]), SPACING, clip)
                .unwrap()
                .is_empty()
        );
        assert!(
            assemble::<f32, _, _>(&utterance(&[PAUSE]), SPACING, clip)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn the_first_missing_clip_is_the_error() {
        let err = assemble::<f32, _, _>(&utterance(&["a", "zz", "yy"]), SPACING, clip).unwrap_err();
        assert_eq!(err, "no clip zz");
    }
}
