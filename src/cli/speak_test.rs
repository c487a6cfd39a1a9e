//! `tactus speak-test`: speaks one utterance through the real speech task with one
//! speaker and reports how long it took to sound and to finish. Used to check the audio set-up
//! at the venue, by the audio tests (run as a subprocess so that `ALSA_CONFIG_PATH` and the
//! speech-dispatcher environment are its own), and for the latency benchmark.
//!
//! Owns argument handling and the timing report; the speaking is the ordinary speech task. It
//! must not be used by the daemon.

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anyhow::{Context, Result, bail};
use tokio_util::sync::CancellationToken;

use crate::speech::{
    Outcome, SpeechDeps, SpeechEvent, SpeechId, SpeechRequest, What,
    config::{Side, SpeakerKind, SpeechConfig},
    spawn,
};
use tactus_core::announce::{
    Audience, Priority,
    voice::{PAUSE, Utterance},
};

/// Which speaker to test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProbeSpeaker {
    Clips,
    Tts,
}

/// A side of a stereo output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProbeSide {
    Left,
    Right,
}

/// Arguments of `tactus speak-test`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProbeArgs {
    /// The speaker to test.
    #[arg(long, value_enum, default_value = "clips")]
    pub speaker: ProbeSpeaker,
    /// Folder of the clips (`voices/<pack>/clips`; default: de-fide's in $TACTUS_VOICES,
    /// ./voices, or the source tree's voices/, as the daemon finds its packs).
    #[arg(long)]
    pub clips_dir: Option<PathBuf>,
    /// Output device name; default: the default output.
    #[arg(long)]
    pub device: Option<String>,
    /// The text (for the engine and the transcript).
    #[arg(long, default_value = "Dame Hector fünf Schach")]
    pub text: String,
    /// Clip stems to play, in order (`_pause` for a pause); the default says --text's default
    /// with a pack's clips.
    #[arg(long = "clip", default_values = ["queen", "file_h", "rank_5", "check"])]
    pub clips: Vec<String>,
    /// The engine's voice (name or language).
    #[arg(long, default_value = "de")]
    pub tts_voice: String,
    /// How many times to say it (for timing statistics).
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Wait this long between runs (to change the audio set-up in between: a device plugged in
    /// or out).
    #[arg(long, default_value_t = 0)]
    pub gap_ms: u64,
    /// Per run: give up after this many seconds.
    #[arg(long, default_value_t = 20)]
    pub timeout_s: u64,
    /// Write the transcript here.
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// Share the device between the audiences and put the blind player on this side (the
    /// utterance then sounds on that channel only).
    #[arg(long, value_enum)]
    pub side: Option<ProbeSide>,
    /// Succeed even if the speaker fell back to another one.
    #[arg(long)]
    pub allow_fallback: bool,
}

/// One run's timings.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// Request handed to the task until the first sample reached the device (clips) or the
    /// engine began speaking (tts).
    pub first_sound: Option<Duration>,
    /// Until `Finished`.
    pub finished: Duration,
    pub outcome: Outcome,
}

/// The median and the 99th percentile (nearest rank) of `values`.
pub fn median_p99(values: &[Duration]) -> Option<(Duration, Duration)> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort();
    let median = if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2
    };
    let rank = (sorted.len() * 99).div_ceil(100).max(1);
    Some((median, sorted[rank - 1]))
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

/// Runs the probe and prints one line per run and a summary (`key=value`, for scripts).
pub fn main(args: ProbeArgs) -> Result<ExitCode> {
    super::log_to_stderr("warn");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (results, degraded) = runtime.block_on(run(&args))?;
    for message in &degraded {
        super::print(&format!("degraded: {message}\n"))?;
    }
    let spoken = results
        .iter()
        .filter(|r| r.outcome == Outcome::Spoken)
        .count();
    let firsts: Vec<Duration> = results.iter().filter_map(|r| r.first_sound).collect();
    let finishes: Vec<Duration> = results.iter().map(|r| r.finished).collect();
    let mut summary = format!(
        "summary speaker={:?} runs={} spoken={} degraded={}",
        args.speaker,
        results.len(),
        spoken,
        degraded.len()
    );
    if let Some((median, p99)) = median_p99(&firsts) {
        summary.push_str(&format!(
            " first_sound_median_ms={} first_sound_p99_ms={}",
            ms(median),
            ms(p99)
        ));
    }
    if let Some((median, p99)) = median_p99(&finishes) {
        summary.push_str(&format!(
            " finished_median_ms={} finished_p99_ms={}",
            ms(median),
            ms(p99)
        ));
    }
    super::print(&format!("{summary}\n"))?;
    let ok = spoken == results.len() && (degraded.is_empty() || args.allow_fallback);
    // Runtime shutdown must not wait for an engine thread stuck in a call.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

async fn run(args: &ProbeArgs) -> Result<(Vec<RunResult>, Vec<String>)> {
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let kind = match args.speaker {
        ProbeSpeaker::Clips => SpeakerKind::Clips,
        ProbeSpeaker::Tts => SpeakerKind::Tts,
    };
    let config = SpeechConfig {
        speaker: kind,
        speaker_sighted: Some(SpeakerKind::None),
        device_blind: args.device.clone(),
        tts_voice: Some(args.tts_voice.clone()),
        shared_device_channels: args.side.is_some(),
        blind_channel: match args.side {
            Some(ProbeSide::Right) => Side::Right,
            _ => Side::Left,
        },
        ..SpeechConfig::default()
    };
    config.check().map_err(anyhow::Error::msg)?;
    let utterance = Utterance {
        text: args.text.clone(),
        clips: args.clips.clone(),
    };
    let clips_dir = args.clips_dir.clone().unwrap_or_else(|| {
        crate::store::voices::default_dir()
            .join(tactus_core::announce::voice::DEFAULT_VOICE)
            .join("clips")
    });
    let mut deps = SpeechDeps::new(
        &clips_dir,
        // The probe sends ready words only.
        Box::new(|_| Utterance::default()),
    );
    deps.transcript = args
        .transcript
        .clone()
        .map(crate::speech::transcript::TranscriptAt::Path);
    deps.voices[0].fallback_notice = Some(Utterance {
        text: "Sprachausgabe gestört".into(),
        clips: vec![PAUSE.into()],
    });
    let names = deps.names;
    let cancel = CancellationToken::new();
    let mut handle = spawn(config, deps, cancel.clone());
    let mut results = Vec::new();
    let mut degraded = Vec::new();
    let per_run = Duration::from_secs(args.timeout_s);
    // Wait for the outputs (the engine's start-up is not part of an announcement's latency).
    let setup = std::time::Instant::now();
    loop {
        let event = tokio::time::timeout(per_run, handle.events.recv())
            .await
            .with_context(|| format!("the speech task was not ready within {} s", args.timeout_s))?
            .context("the speech task has ended")?;
        match event {
            SpeechEvent::Ready { outputs } => {
                for (audience, speaker) in outputs {
                    super::print(&format!("output {}: {speaker}\n", names.audience(audience)))?;
                }
                super::print(&format!("startup_ms={}\n", ms(setup.elapsed())))?;
                break;
            }
            SpeechEvent::Degraded { message, .. } => degraded.push(message),
            _ => {}
        }
    }
    for run in 1..=args.runs {
        if run > 1 && args.gap_ms > 0 {
            tokio::time::sleep(Duration::from_millis(args.gap_ms)).await;
        }
        let id = SpeechId(run as u64);
        let handed = std::time::Instant::now();
        handle
            .requests
            .send(SpeechRequest::Say {
                id,
                audience: Audience::Player(shakmaty::Color::White),
                what: What::Utterance(utterance.clone()),
                priority: Priority::Normal,
            })
            .await
            .context("the speech task has ended")?;
        let mut first_sound = None;
        let outcome = loop {
            let event = tokio::time::timeout(per_run, handle.events.recv())
                .await
                .with_context(|| format!("run {run}: no Finished within {} s", args.timeout_s))?
                .context("the speech task has ended")?;
            match event {
                SpeechEvent::Started { id: i, at, .. } if i == id => {
                    first_sound = Some(at.saturating_duration_since(handed));
                }
                SpeechEvent::Finished { id: i, outcome, .. } if i == id => break outcome,
                SpeechEvent::Degraded { message, .. } => degraded.push(message),
                SpeechEvent::Recovered { message, .. } => {
                    super::print(&format!("recovered: {message}\n"))?;
                }
                _ => {}
            }
        };
        let result = RunResult {
            first_sound,
            finished: handed.elapsed(),
            outcome,
        };
        super::print(&format!(
            "run={run} first_sound_ms={} finished_ms={} outcome={:?}\n",
            result.first_sound.map(ms).unwrap_or_else(|| "none".into()),
            ms(result.finished),
            result.outcome
        ))?;
        results.push(result);
    }
    cancel.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(5), &mut handle.task).await;
    while let Ok(event) = handle.events.try_recv() {
        if let SpeechEvent::Degraded { message, .. } = event {
            degraded.push(message);
        }
    }
    Ok((results, degraded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p99_by_nearest_rank() {
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&m| Duration::from_millis(m))
                .collect::<Vec<_>>()
        };
        assert_eq!(median_p99(&[]), None);
        assert_eq!(
            median_p99(&ms(&[5])),
            Some((Duration::from_millis(5), Duration::from_millis(5)))
        );
        assert_eq!(
            median_p99(&ms(&[4, 1, 3, 2])),
            Some((Duration::from_micros(2500), Duration::from_millis(4)))
        );
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(
            median_p99(&ms(&hundred)),
            Some((Duration::from_micros(50_500), Duration::from_millis(99)))
        );
    }
}
