//! Sample arithmetic for the clip speaker: linear resampling, and the energy measures the audio
//! tests use to decide that real sound was produced. (Clips are joined by
//! [`tactus_core::record::wav::assemble`], shared with the audio scoresheet.)
//!
//! Pure: no files, no devices, no clock. Samples are mono `f32` in [-1, 1] at a known rate;
//! converting to a device's sample format and channel layout happens in the output callback.

use std::time::Duration;

/// The rate every clip is stored at (`voices/<pack>/clips/*.wav`, espeak-ng's native rate).
pub const CLIP_RATE: u32 = 22_050;

/// Silence of `duration` at `rate`, as a sample count (rounded down).
pub fn frames_for(duration: Duration, rate: u32) -> usize {
    // u128 arithmetic: a day of audio at 192 kHz still fits, and no float rounding surprises.
    (duration.as_micros() * u128::from(rate) / 1_000_000) as usize
}

/// How long `frames` samples last at `rate`.
pub fn duration_of(frames: usize, rate: u32) -> Duration {
    if rate == 0 {
        return Duration::ZERO;
    }
    Duration::from_micros((frames as u128 * 1_000_000 / u128::from(rate)) as u64)
}

/// Linear resampling from `from` Hz to `to` Hz. Good enough for speech (the clips carry nothing
/// above 11 kHz, and upsampling is the common case: 22050 to a 44.1/48 kHz device).
pub fn resample_linear(samples: &[f32], from: u32, to: u32) -> Vec<f32> {
    if from == to || samples.is_empty() || from == 0 || to == 0 {
        return samples.to_vec();
    }
    let out_len = ((samples.len() as u128 * u128::from(to)) / u128::from(from)) as usize;
    let step = f64::from(from) / f64::from(to);
    let last = samples.len() - 1;
    (0..out_len)
        .map(|i| {
            let pos = i as f64 * step;
            let idx = pos as usize;
            if idx >= last {
                return samples[last];
            }
            let frac = (pos - idx as f64) as f32;
            samples[idx] + (samples[idx + 1] - samples[idx]) * frac
        })
        .collect()
}

/// 16-bit PCM to [-1, 1].
pub fn i16_to_f32(sample: i16) -> f32 {
    f32::from(sample) / 32768.0
}

/// Root mean square of 16-bit samples, in sample units (0 for silence, about 3000-6000 for speech
/// at espeak-ng's level).
pub fn rms_i16(samples: &[i16]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sum / samples.len() as f64).sqrt()
}

/// The stretch from the first to the last sample whose magnitude exceeds `threshold`, in samples:
/// how long the sound lasted, ignoring silence around it (an unpaced null device keeps writing
/// silence until the stream is closed, so the file length alone says little).
pub fn voiced_span(samples: &[i16], threshold: i16) -> usize {
    let loud = |s: &i16| s.unsigned_abs() > threshold.unsigned_abs();
    match (
        samples.iter().position(loud),
        samples.iter().rposition(loud),
    ) {
        (Some(first), Some(last)) => last - first + 1,
        _ => 0,
    }
}

/// Signed 16-bit little-endian bytes (a raw capture) to samples; a trailing odd byte is ignored.
pub fn s16le_samples(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn frames_and_durations_round_trip() {
        assert_eq!(frames_for(MS(120), CLIP_RATE), 2646);
        assert_eq!(frames_for(MS(1000), 48_000), 48_000);
        assert_eq!(duration_of(22_050, CLIP_RATE), MS(1000));
        assert_eq!(duration_of(5, 0), Duration::ZERO);
    }

    #[test]
    fn resampling_keeps_duration_and_interpolates() {
        let ramp: Vec<f32> = (0..22_050).map(|i| i as f32 / 22_050.0).collect();
        let up = resample_linear(&ramp, 22_050, 48_000);
        assert_eq!(up.len(), 48_000, "one second stays one second");
        // A ramp stays a ramp under linear interpolation.
        for (i, s) in up.iter().enumerate().take(47_990) {
            let expected = i as f32 * (22_050.0 / 48_000.0) / 22_050.0;
            assert!((s - expected).abs() < 1e-4, "sample {i}: {s} vs {expected}");
        }
        let down = resample_linear(&ramp, 22_050, 11_025);
        assert_eq!(down.len(), 11_025);
        assert!((down[100] - ramp[200]).abs() < 1e-6);
        assert_eq!(
            resample_linear(&ramp[..10], 22_050, 22_050),
            ramp[..10].to_vec()
        );
        assert!(resample_linear(&[], 22_050, 48_000).is_empty());
    }

    #[test]
    fn energy_measures() {
        assert_eq!(rms_i16(&[]), 0.0);
        assert_eq!(rms_i16(&[0; 100]), 0.0);
        assert!((rms_i16(&[1000, -1000, 1000, -1000]) - 1000.0).abs() < 1e-9);
        let mut s = vec![0i16; 100];
        s[10] = 500;
        s[40] = -600;
        s[50] = 20;
        assert_eq!(voiced_span(&s, 100), 31);
        assert_eq!(voiced_span(&[0; 10], 100), 0);
        assert_eq!(s16le_samples(&[0x01, 0x00, 0xff, 0xff, 0x07]), vec![1, -1]);
        assert_eq!(i16_to_f32(-32768), -1.0);
    }
}
