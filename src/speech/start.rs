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
    task::{OutputSpec, Render, SpeechTask, TimeOfDay},
    transcript::Transcript,
    tts::{TtsOptions, TtsSpeaker},
};
use tactus_core::announce::{Audience, voice::Utterance};

/// How many requests may wait in the channel before senders wait.
const REQUEST_CAPACITY: usize = 64;

/// What the speech task needs besides the configuration.
pub struct SpeechDeps {
    /// The voice pack's clips (`voices/<pack>/clips`).
    pub clips_dir: PathBuf,
    /// The game's `transcript.txt`; None: no transcript (tools and tests).
    pub transcript: Option<PathBuf>,
    pub render: Render,
    /// Said once through the clips when the speech engine fails ("Sprachausgabe gestört ...",
    /// rendered by the pack).
    pub fallback_notice: Option<Utterance>,
    /// The pack's language, for the engine's voice when `voice.tts_voice` is not set.
    pub tts_language: Option<String>,
    pub time_of_day: TimeOfDay,
}

impl SpeechDeps {
    pub fn new(clips_dir: impl Into<PathBuf>, render: Render) -> SpeechDeps {
        SpeechDeps {
            clips_dir: clips_dir.into(),
            transcript: None,
            render,
            fallback_notice: None,
            tts_language: None,
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
    let plan = config.plan();
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
        library: Arc::new(ClipLibrary::new(&deps.clips_dir)),
        speaker_tx: speaker_tx.clone(),
        events: &events,
        cancel: cancel.clone(),
        tts_language: deps.tts_language.clone(),
        probed: HashMap::new(),
    };
    let mut outputs = Vec::new();
    for output in plan {
        outputs.push(builder.output(output).await?);
    }
    let transcript = open_transcript(deps.transcript.as_ref(), &events);
    let task = SpeechTask::new(
        outputs,
        (speaker_tx, speaker_rx),
        events,
        transcript,
        deps.render,
        deps.fallback_notice,
        deps.time_of_day,
    );
    task.emit(SpeechEvent::Ready {
        outputs: task.describe_outputs(),
    });
    Some(task)
}

/// The game's transcript; one that cannot be opened is reported, and speech goes on without.
fn open_transcript(
    path: Option<&PathBuf>,
    events: &mpsc::UnboundedSender<SpeechEvent>,
) -> Option<Transcript> {
    match Transcript::open(path?) {
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
    library: Arc<ClipLibrary>,
    speaker_tx: SpeakerEvents,
    events: &'a mpsc::UnboundedSender<SpeechEvent>,
    cancel: CancellationToken,
    tts_language: Option<String>,
    probed: HashMap<Option<String>, Result<(), String>>,
}

impl Builder<'_> {
    /// One planned output with its speakers in order of preference; None when cancelled.
    async fn output(&mut self, output: OutputPlan) -> Option<OutputSpec> {
        let mut spec = OutputSpec {
            audience: output.audience,
            speakers: Vec::new(),
            notice_now: false,
            no_output: None,
        };
        match &output.kind {
            OutputKind::Clips(target) => {
                let cancel = self.cancel.clone();
                spec.no_output = unless_cancelled(&cancel, self.probe(target)).await?.err();
                spec.speakers.extend(self.clip_speaker(target));
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
                .or_else(|| self.tts_language.clone()),
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
                    warn!(audience = ?spec.audience, "{e}; speaking with the clips instead");
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
        spec.speakers.extend(self.clip_speaker(fallback));
        Some(())
    }

    /// The clips on `target`, if the audio thread runs.
    fn clip_speaker(&self, target: &ClipTarget) -> Option<Box<dyn Speaker>> {
        let engine = self.engine.clone()?;
        Some(Box::new(ClipSpeaker::new(
            self.library.clone(),
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
