//! Starting the speech task: what it needs besides the configuration ([`SpeechDeps`]), the
//! outputs the configuration plans, built before the first announcement (each clip device probed
//! once, the speech engine started under its timeout and replaced by the clips when it cannot
//! start, the transcript opened), and the running task's handle ([`SpeechHandle`]). A machine
//! without a sound card or speech engine is told so once here; the task then serves requests all
//! the same ([`super::task`]).

use std::{collections::HashMap, path::PathBuf, sync::Arc};

use tokio::{sync::mpsc, task::JoinHandle};
use tokio_util::sync::CancellationToken;
use tracing::{error, warn};

use super::{
    Speaker, SpeakerEvents, SpeechConfig, SpeechEvent, SpeechRequest,
    clips::{ClipLibrary, ClipSpeaker},
    config::{ClipTarget, OutputKind, OutputPlan},
    output::AudioEngine,
    task::{OutputSpec, Render, SpeechTask, TaskVoice, TimeOfDay},
    transcript::{Transcript, TranscriptAt},
    tts::{TtsOptions, TtsSpeaker},
};
use shakmaty::ByColor;
use tactus_core::{
    announce::{Audience, voice::Utterance},
    arbiter::SeatNames,
};

/// How many requests may wait in the channel before senders wait.
const REQUEST_CAPACITY: usize = 64;

/// One voice pack as the speech task speaks it.
pub struct VoiceDeps {
    /// The voice pack's clips (`voices/<pack>/clips`).
    pub clips_dir: PathBuf,
    pub render: Render,
    /// Said once through the clips when the speech engine fails ("Sprachausgabe gestört ...",
    /// rendered by the pack).
    pub fallback_notice: Option<Utterance>,
    /// The pack's language, for the engine's voice when `voice.tts_voice` is not set.
    pub tts_language: Option<String>,
}

/// What the speech task needs besides the configuration.
pub struct SpeechDeps {
    /// The voices (two blind players may each hear their own pack); the first serves a table
    /// that has one.
    pub voices: Vec<VoiceDeps>,
    /// Each seat's voice (an index into `voices`).
    pub seat_voice: ByColor<usize>,
    /// The table's seats: who is blind (which outputs the configuration plans), and how the
    /// transcript names them.
    pub seats: ByColor<bool>,
    pub names: SeatNames,
    /// The game's `transcript.txt`; None: no transcript (tools and tests).
    pub transcript: Option<TranscriptAt>,
    pub time_of_day: TimeOfDay,
}

impl SpeechDeps {
    /// One voice for a table with one blind player, White.
    pub fn new(clips_dir: impl Into<PathBuf>, render: Render) -> SpeechDeps {
        SpeechDeps {
            voices: vec![VoiceDeps {
                clips_dir: clips_dir.into(),
                render,
                fallback_notice: None,
                tts_language: None,
            }],
            seat_voice: ByColor::new_with(|_| 0),
            seats: ByColor {
                white: true,
                black: false,
            },
            names: super::task::default_names(),
            transcript: None,
            time_of_day: Box::new(crate::wall::utc_time_of_day),
        }
    }
}

/// The running speech task.
pub struct SpeechHandle {
    pub requests: mpsc::Sender<SpeechRequest>,
    pub events: mpsc::UnboundedReceiver<SpeechEvent>,
    /// Ends after `cancel` (or when every request sender is dropped), with the transcript flushed.
    pub task: JoinHandle<()>,
}

/// Starts the speech task: builds the outputs the configuration plans (starting the speech
/// engine under its timeout, falling back to the clips), then serves requests until `cancel`.
pub fn spawn(config: SpeechConfig, deps: SpeechDeps, cancel: CancellationToken) -> SpeechHandle {
    let (requests_tx, requests_rx) = mpsc::channel(REQUEST_CAPACITY);
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        let Some(task) = build(&config, deps, events_tx, &cancel).await else {
            return;
        };
        task.run(requests_rx, cancel).await;
    });
    SpeechHandle {
        requests: requests_tx,
        events: events_rx,
        task,
    }
}

/// The task with its outputs and transcript; None when cancelled while building.
async fn build(
    config: &SpeechConfig,
    deps: SpeechDeps,
    events: mpsc::UnboundedSender<SpeechEvent>,
    cancel: &CancellationToken,
) -> Option<SpeechTask> {
    let (speaker_tx, speaker_rx) = mpsc::unbounded_channel();
    let plan = config.plan(deps.seats);
    let engine = if plan.is_empty() {
        None
    } else {
        match AudioEngine::start() {
            Ok(engine) => Some(engine),
            Err(e) => {
                error!("{e}");
                None
            }
        }
    };
    let mut builder = Builder {
        config,
        engine,
        libraries: deps
            .voices
            .iter()
            .map(|v| Arc::new(ClipLibrary::new(&v.clips_dir)))
            .collect(),
        speaker_tx: speaker_tx.clone(),
        events: &events,
        cancel: cancel.clone(),
        tts_languages: deps.voices.iter().map(|v| v.tts_language.clone()).collect(),
        probed: HashMap::new(),
    };
    let mut outputs = Vec::new();
    for output in plan {
        // An output speaks in its player's voice (one serving both: the first seat's).
        let voice = match output.audience {
            Audience::Player(seat) => deps.seat_voice[seat],
            Audience::Both => deps.seat_voice.white,
        };
        outputs.push(builder.output(output, voice).await?);
    }
    let transcript = open_transcript(deps.transcript.as_ref(), &events);
    let voices = deps
        .voices
        .into_iter()
        .map(|v| TaskVoice {
            render: v.render,
            notice: v.fallback_notice,
        })
        .collect();
    let task = SpeechTask::with_voices(
        outputs,
        (speaker_tx, speaker_rx),
        events,
        transcript,
        voices,
        deps.seat_voice,
        deps.names,
        deps.time_of_day,
    );
    task.emit(SpeechEvent::Ready {
        outputs: task.describe_outputs(),
    });
    Some(task)
}

/// The game's transcript; one that cannot be opened is reported, and speech goes on without.
fn open_transcript(
    place: Option<&TranscriptAt>,
    events: &mpsc::UnboundedSender<SpeechEvent>,
) -> Option<Transcript> {
    match Transcript::open_at(place?) {
        Ok(t) => Some(t),
        Err(e) => {
            error!("{e:#}");
            let _ = events.send(SpeechEvent::Degraded {
                audience: Audience::Both,
                message: format!("{e:#}"),
            });
            None
        }
    }
}

/// What the outputs are built with: the audio thread, the clips, where the speakers report, and
/// each device's probe result (every device is probed once).
struct Builder<'a> {
    config: &'a SpeechConfig,
    engine: Option<AudioEngine>,
    /// Each voice's clips.
    libraries: Vec<Arc<ClipLibrary>>,
    speaker_tx: SpeakerEvents,
    events: &'a mpsc::UnboundedSender<SpeechEvent>,
    cancel: CancellationToken,
    /// Each voice's language, for the engine.
    tts_languages: Vec<Option<String>>,
    probed: HashMap<Option<String>, Result<(), String>>,
}

impl Builder<'_> {
    /// One planned output with its speakers in order of preference; None when cancelled.
    async fn output(&mut self, output: OutputPlan, voice: usize) -> Option<OutputSpec> {
        let mut spec = OutputSpec {
            audience: output.audience,
            speakers: Vec::new(),
            voice,
            notice_now: false,
            no_output: None,
        };
        match &output.kind {
            OutputKind::Clips(target) => {
                let cancel = self.cancel.clone();
                spec.no_output = unless_cancelled(&cancel, self.probe(target)).await?.err();
                spec.speakers.extend(self.clip_speaker(target, voice));
            }
            OutputKind::Tts { fallback } => self.tts(&mut spec, fallback).await?,
        }
        if spec.speakers.is_empty() && spec.no_output.is_none() {
            spec.no_output = Some("no speaker could be set up".into());
        }
        Some(spec)
    }

    /// The speech engine, with the clips on `fallback` behind it. An engine that cannot start
    /// leaves the clips, said at once to be speaking instead; when neither can, one message for
    /// both. None when cancelled.
    async fn tts(&mut self, spec: &mut OutputSpec, fallback: &ClipTarget) -> Option<()> {
        let options = TtsOptions {
            voice: self
                .config
                .tts_voice
                .clone()
                .or_else(|| self.tts_languages.get(spec.voice).cloned().flatten()),
            rate: self.config.tts_rate,
            volume: self.config.tts_volume,
            startup_timeout: self.config.tts_startup_timeout(),
        };
        let cancel = self.cancel.clone();
        let connected = unless_cancelled(
            &cancel,
            TtsSpeaker::connect(&options, self.speaker_tx.clone()),
        )
        .await?;
        match connected {
            Ok(tts) => spec.speakers.push(Box::new(tts)),
            Err(e) => match unless_cancelled(&cancel, self.probe(fallback)).await? {
                Ok(()) => {
                    warn!(
                        "speech for {}: {e}; speaking with the clips instead",
                        spec.audience
                    );
                    let _ = self.events.send(SpeechEvent::Degraded {
                        audience: spec.audience,
                        message: format!("{e}; speaking with the clips instead"),
                    });
                    spec.notice_now = true;
                }
                // Neither speaks: one message for both.
                Err(reason) => spec.no_output = Some(format!("{e}; {reason}")),
            },
        }
        spec.speakers
            .extend(self.clip_speaker(fallback, spec.voice));
        Some(())
    }

    /// The clips of `voice` on `target`, if the audio thread runs.
    fn clip_speaker(&self, target: &ClipTarget, voice: usize) -> Option<Box<dyn Speaker>> {
        let engine = self.engine.clone()?;
        let library = self.libraries.get(voice).or(self.libraries.first())?;
        Some(Box::new(ClipSpeaker::new(
            library.clone(),
            engine,
            target.clone(),
            self.config.gap(),
            self.config.pause(),
            self.speaker_tx.clone(),
        )))
    }

    /// Each device is probed once, before the first announcement, so that a machine without a
    /// sound card is told so once at start instead of failing quietly (or noisily) with every
    /// announcement.
    async fn probe(&mut self, target: &ClipTarget) -> Result<(), String> {
        if let Some(known) = self.probed.get(&target.device) {
            return known.clone();
        }
        let result = match &self.engine {
            Some(engine) => engine.probe(target).await,
            None => Err("the audio thread could not be started".into()),
        };
        self.probed.insert(target.device.clone(), result.clone());
        result
    }
}

/// `work`, unless `cancel` comes first.
async fn unless_cancelled<T>(
    cancel: &CancellationToken,
    work: impl Future<Output = T>,
) -> Option<T> {
    tokio::select! {
        _ = cancel.cancelled() => None,
        done = work => Some(done),
    }
}
