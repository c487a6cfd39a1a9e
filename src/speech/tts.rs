//! The tts speaker: the system's speech engine through the `tts` crate (speech-dispatcher on
//! Linux), speaking the utterance's text.
//!
//! Owns the engine connection, its voice, rate and volume, and the mapping of the engine's
//! utterance begin/end callbacks to our tokens. It must not block the speech task: the engine
//! lives on its own thread, because `tts::Tts` is not thread-safe and because its calls can hang
//! (speech-dispatcher without an audio output never finishes an utterance, and such a daemon can
//! make the next connection hang). Start-up runs under a timeout here; every utterance runs under
//! the deadline [`Speaker::start`] returns, enforced by the speech task, which then falls back to
//! the clips. A thread stuck in the engine is abandoned, never joined.

use std::{
    collections::HashMap,
    sync::{OnceLock, mpsc},
    thread,
    time::{Duration, Instant},
};

use tokio::sync::oneshot;
use tracing::{debug, info, warn};

use super::{SpeakError, Speaker, SpeakerEvent, SpeakerEventKind, SpeakerEvents, Token};
use tactus_core::announce::voice::Utterance;

/// Listing the engine's voices is slow (speech-dispatcher with espeak-ng: 13,000 voices, about
/// 1.4 s), and setting a voice lists them again: allow for both on a busy machine.
const VOICE_SELECTION_TIMEOUT: Duration = Duration::from_secs(10);
/// The fixed part of an utterance's deadline: the engine's start-up latency, and waiting behind
/// another client's speech.
const UTTERANCE_BASE_ALLOWANCE: Duration = Duration::from_secs(4);
/// Per character of text at the normal rate; espeak-ng says about 15 characters a second, this
/// allows for a third of that.
const PER_CHAR_ALLOWANCE: Duration = Duration::from_millis(200);

/// The engine's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TtsOptions {
    /// A voice name or language tag; None: the engine's default.
    pub voice: Option<String>,
    /// -100 .. 0 (normal) .. 100.
    pub rate: f32,
    /// 0 .. 100 percent.
    pub volume: f32,
    pub startup_timeout: Duration,
}

enum Cmd {
    Speak {
        token: Token,
        text: String,
    },
    Stop,
    /// From the engine's callbacks, keyed by the engine's utterance id (as text: the id type is
    /// not comparable on every platform).
    Begin(String),
    End(String),
    /// Cancelled by a stop: forget it, report nothing (the task has moved on).
    Cancelled(String),
    Shutdown,
}

/// A connected engine.
pub struct TtsSpeaker {
    tx: mpsc::Sender<Cmd>,
    description: String,
    rate: f32,
}

impl Drop for TtsSpeaker {
    fn drop(&mut self) {
        // The engine's callbacks hold senders too, so the thread would not notice otherwise.
        let _ = self.tx.send(Cmd::Shutdown);
    }
}

/// A voice as the chooser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceInfo {
    pub name: String,
    pub language: String,
}

/// The engine's voices, listed once per process.
static VOICES: OnceLock<Vec<(VoiceInfo, tts::Voice)>> = OnceLock::new();

/// Picks a voice: an exact name first (case-insensitive), else by language (exact tag, then a
/// regional variant of it, then the base language of a regional tag), preferring the plainest
/// name ("German" over "German+Alex").
pub fn pick_voice(voices: &[VoiceInfo], wanted: &str) -> Option<usize> {
    let wanted = wanted.trim().to_ascii_lowercase();
    if let Some(i) = voices
        .iter()
        .position(|v| v.name.to_ascii_lowercase() == wanted)
    {
        return Some(i);
    }
    let base = wanted
        .split(['-', '_'])
        .next()
        .unwrap_or(&wanted)
        .to_string();
    voices
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let lang = v.language.to_ascii_lowercase().replace('_', "-");
            let rank = if lang == wanted {
                0
            } else if lang.starts_with(&format!("{wanted}-")) {
                1
            } else if lang == base {
                2
            } else {
                return None;
            };
            Some(((rank, v.name.len(), v.name.clone()), i))
        })
        .min()
        .map(|(_, i)| i)
}

/// Maps -100..0..100 onto the engine's min..normal..max.
pub fn scale_rate(rate: f32, min: f32, normal: f32, max: f32) -> f32 {
    let r = rate.clamp(-100.0, 100.0) / 100.0;
    if r >= 0.0 {
        normal + r * (max - normal)
    } else {
        normal + r * (normal - min)
    }
}

/// Maps 0..100 percent onto the engine's min..max.
pub fn scale_volume(percent: f32, min: f32, max: f32) -> f32 {
    min + percent.clamp(0.0, 100.0) / 100.0 * (max - min)
}

/// How long an utterance of `text` may take at `rate` before the engine counts as hung.
pub fn utterance_allowance(text: &str, rate: f32) -> Duration {
    // Slower speech takes longer: at -100 allow three times as much per character.
    let slow = if rate < 0.0 {
        1.0 + (-rate / 100.0) * 2.0
    } else {
        1.0
    };
    UTTERANCE_BASE_ALLOWANCE + PER_CHAR_ALLOWANCE.mul_f32(text.chars().count() as f32 * slow)
}

/// The text as the engine gets it: no control characters (a NUL would abort the client library).
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl TtsSpeaker {
    /// Connects to the engine (starting it if needed) and sets voice, rate and volume.
    pub async fn connect(
        options: &TtsOptions,
        events: SpeakerEvents,
    ) -> Result<TtsSpeaker, SpeakError> {
        let (tx, rx) = mpsc::channel();
        let (connected_tx, connected_rx) = oneshot::channel();
        let (ready_tx, ready_rx) = oneshot::channel();
        let worker_tx = tx.clone();
        let worker_options = options.clone();
        thread::Builder::new()
            .name("tactus-tts".into())
            .spawn(move || {
                worker(
                    worker_options,
                    worker_tx,
                    rx,
                    events,
                    connected_tx,
                    ready_tx,
                )
            })
            .map_err(|e| {
                SpeakError::Engine(format!("cannot start a thread for the speech engine: {e}"))
            })?;
        let abandon = |tx: &mpsc::Sender<Cmd>| {
            // If the thread ever gets past the engine call it will see this and close.
            let _ = tx.send(Cmd::Shutdown);
        };
        match tokio::time::timeout(options.startup_timeout, connected_rx).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => return Err(e),
            Ok(Err(_)) => {
                return Err(SpeakError::Engine(
                    "the speech engine's thread ended".into(),
                ));
            }
            Err(_) => {
                abandon(&tx);
                return Err(SpeakError::Engine(format!(
                    "the speech engine did not start within {} ms (is speech-dispatcher \
                     installed, and does it have an audio output?)",
                    options.startup_timeout.as_millis()
                )));
            }
        }
        let description = match tokio::time::timeout(VOICE_SELECTION_TIMEOUT, ready_rx).await {
            Ok(Ok(Ok(description))) => description,
            Ok(Ok(Err(e))) => {
                abandon(&tx);
                return Err(e);
            }
            Ok(Err(_)) => {
                return Err(SpeakError::Engine(
                    "the speech engine's thread ended".into(),
                ));
            }
            Err(_) => {
                abandon(&tx);
                return Err(SpeakError::Engine(format!(
                    "the speech engine did not set up its voice within {} s",
                    VOICE_SELECTION_TIMEOUT.as_secs()
                )));
            }
        };
        info!("{description} is ready");
        Ok(TtsSpeaker {
            tx,
            description,
            rate: options.rate,
        })
    }
}

impl Speaker for TtsSpeaker {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn start(&mut self, token: Token, utterance: &Utterance) -> Result<Duration, SpeakError> {
        self.tx
            .send(Cmd::Speak {
                token,
                text: clean(&utterance.text),
            })
            .map_err(|_| SpeakError::Engine("the speech engine's thread has ended".into()))?;
        Ok(utterance_allowance(&utterance.text, self.rate))
    }

    fn stop(&mut self, _token: Token) {
        // The engine says one utterance at a time for us, so stopping "it" stops the token.
        let _ = self.tx.send(Cmd::Stop);
    }
}

fn engine_error(what: &str, e: tts::Error) -> SpeakError {
    SpeakError::Engine(format!("the speech engine: {what}: {e}"))
}

/// Sets up the engine: callbacks, rate, volume and voice. Returns a description for the log.
fn configure(
    tts: &mut tts::Tts,
    options: &TtsOptions,
    tx: &mpsc::Sender<Cmd>,
) -> Result<String, SpeakError> {
    let features = tts.supported_features();
    if !features.utterance_callbacks {
        // Without "finished" the arbiter cannot start the opponent's clock at the right time.
        return Err(SpeakError::Engine(
            "the speech engine does not report when an utterance ends".into(),
        ));
    }
    let begin = tx.clone();
    tts.on_utterance_begin(Some(Box::new(move |id| {
        let _ = begin.send(Cmd::Begin(format!("{id:?}")));
    })))
    .map_err(|e| engine_error("cannot watch utterances", e))?;
    let end = tx.clone();
    tts.on_utterance_end(Some(Box::new(move |id| {
        let _ = end.send(Cmd::End(format!("{id:?}")));
    })))
    .map_err(|e| engine_error("cannot watch utterances", e))?;
    let cancelled = tx.clone();
    tts.on_utterance_stop(Some(Box::new(move |id| {
        let _ = cancelled.send(Cmd::Cancelled(format!("{id:?}")));
    })))
    .map_err(|e| engine_error("cannot watch utterances", e))?;
    if features.rate {
        let rate = scale_rate(
            options.rate,
            tts.min_rate(),
            tts.normal_rate(),
            tts.max_rate(),
        );
        tts.set_rate(rate)
            .map_err(|e| engine_error("cannot set the speech rate (voice.tts_rate)", e))?;
    }
    if features.volume {
        let volume = scale_volume(options.volume, tts.min_volume(), tts.max_volume());
        tts.set_volume(volume)
            .map_err(|e| engine_error("cannot set the speech volume (voice.tts_volume)", e))?;
    }
    let mut description = format!(
        "the speech engine (rate {}, volume {}%",
        options.rate, options.volume
    );
    if let Some(wanted) = &options.voice {
        if !features.voice {
            return Err(SpeakError::Engine(format!(
                "the speech engine cannot select a voice (voice.tts_voice = '{wanted}')"
            )));
        }
        let voices = match VOICES.get() {
            Some(v) => v,
            None => {
                let started = Instant::now();
                let listed: Vec<(VoiceInfo, tts::Voice)> = tts
                    .voices()
                    .map_err(|e| engine_error("cannot list the voices", e))?
                    .into_iter()
                    .map(|v| {
                        (
                            VoiceInfo {
                                name: v.name(),
                                language: v.language().to_string(),
                            },
                            v,
                        )
                    })
                    .collect();
                debug!(count = listed.len(), elapsed = ?started.elapsed(), "listed the speech engine's voices");
                VOICES.get_or_init(|| listed)
            }
        };
        let infos: Vec<VoiceInfo> = voices.iter().map(|(i, _)| i.clone()).collect();
        let index = pick_voice(&infos, wanted).ok_or_else(|| {
            SpeakError::Engine(format!(
                "the speech engine has no voice named or for the language '{wanted}' \
                 (voice.tts_voice); it has {} voices, e.g. {}",
                infos.len(),
                infos
                    .iter()
                    .take(5)
                    .map(|v| format!("{} ({})", v.name, v.language))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let (info, voice) = &voices[index];
        tts.set_voice(voice)
            .map_err(|e| engine_error(&format!("cannot select the voice '{}'", info.name), e))?;
        description.push_str(&format!(", voice {} ({})", info.name, info.language));
    }
    description.push(')');
    Ok(description)
}

/// The engine thread.
fn worker(
    options: TtsOptions,
    tx: mpsc::Sender<Cmd>,
    rx: mpsc::Receiver<Cmd>,
    events: SpeakerEvents,
    connected: oneshot::Sender<Result<(), SpeakError>>,
    ready: oneshot::Sender<Result<String, SpeakError>>,
) {
    // Starts speech-dispatcher if needed; this is the call that can hang.
    let mut tts = match tts::Tts::default() {
        Ok(tts) => tts,
        Err(e) => {
            let _ = connected.send(Err(engine_error("cannot connect", e)));
            return;
        }
    };
    let _ = connected.send(Ok(()));
    match configure(&mut tts, &options, &tx) {
        Ok(description) => {
            let _ = ready.send(Ok(description));
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    }
    drop(tx);
    let send = |token: Token, kind: SpeakerEventKind| {
        let _ = events.send(SpeakerEvent { token, kind });
    };
    // Engine ids of the utterances we started, to our tokens. Callbacks queue behind the Speak
    // command that produced the id, so the id is always known when its events are handled.
    let mut tokens: HashMap<String, Token> = HashMap::new();
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Cmd::Shutdown => break,
            Cmd::Speak { token, text } => match tts.speak(text, false) {
                Ok(Some(id)) => {
                    tokens.insert(format!("{id:?}"), token);
                }
                Ok(None) => send(
                    token,
                    SpeakerEventKind::Failed("it returned no utterance id".into()),
                ),
                Err(e) => send(
                    token,
                    SpeakerEventKind::Failed(format!("it refused the text: {e}")),
                ),
            },
            Cmd::Stop => {
                if let Err(e) = tts.stop() {
                    warn!("cannot stop the speech engine: {e}");
                }
            }
            Cmd::Begin(id) => {
                if let Some(&token) = tokens.get(&id) {
                    send(token, SpeakerEventKind::Started { at: Instant::now() });
                }
            }
            Cmd::End(id) => {
                if let Some(token) = tokens.remove(&id) {
                    send(token, SpeakerEventKind::Finished);
                }
            }
            Cmd::Cancelled(id) => {
                tokens.remove(&id);
            }
        }
    }
    // Stop anything still queued for us before closing, so speech does not outlive tactus.
    let _ = tts.stop();
    debug!("speech engine thread ends");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(name: &str, language: &str) -> VoiceInfo {
        VoiceInfo {
            name: name.into(),
            language: language.into(),
        }
    }

    #[test]
    fn voices_are_picked_by_name_then_language() {
        let voices = [
            v("English (America)", "en-US"),
            v("German+Alex", "de"),
            v("German", "de"),
            v("Swiss German", "de-CH"),
            v("Spanish", "es"),
        ];
        assert_eq!(pick_voice(&voices, "german+alex"), Some(1));
        assert_eq!(
            pick_voice(&voices, "de"),
            Some(2),
            "the plainest German voice"
        );
        assert_eq!(pick_voice(&voices, "de-CH"), Some(3));
        assert_eq!(
            pick_voice(&voices, "de-AT"),
            Some(2),
            "base language of a regional tag"
        );
        assert_eq!(
            pick_voice(&voices, "en"),
            Some(0),
            "a regional variant of a language"
        );
        assert_eq!(pick_voice(&voices, "fr"), None);
    }

    #[test]
    fn rate_and_volume_map_onto_the_engines_range() {
        // speech-dispatcher: -100..100, normal 0; volume -100..100.
        assert_eq!(scale_rate(0.0, -100.0, 0.0, 100.0), 0.0);
        assert_eq!(scale_rate(50.0, -100.0, 0.0, 100.0), 50.0);
        // An engine whose normal is not the middle (e.g. 0.1 .. 1.0 .. 10.0).
        assert!((scale_rate(-100.0, 0.1, 1.0, 10.0) - 0.1).abs() < 1e-6);
        assert_eq!(scale_rate(100.0, 0.1, 1.0, 10.0), 10.0);
        assert_eq!(scale_rate(500.0, 0.1, 1.0, 10.0), 10.0, "clamped");
        assert_eq!(scale_volume(100.0, -100.0, 100.0), 100.0);
        assert_eq!(scale_volume(50.0, -100.0, 100.0), 0.0);
        assert_eq!(scale_volume(0.0, 0.0, 1.0), 0.0);
    }

    #[test]
    fn deadlines_grow_with_the_text_and_slower_speech() {
        let short = utterance_allowance("Dame Hector fünf Schach", 0.0);
        let long = utterance_allowance(&"x".repeat(200), 0.0);
        assert!(
            short >= Duration::from_secs(4) && short < Duration::from_secs(10),
            "{short:?}"
        );
        assert!(long > short);
        assert!(utterance_allowance("abc", -100.0) > utterance_allowance("abc", 0.0));
        assert_eq!(
            utterance_allowance("abc", 50.0),
            utterance_allowance("abc", 0.0)
        );
    }

    #[test]
    fn control_characters_never_reach_the_engine() {
        assert_eq!(clean("Dame\0Hector\nfünf"), "Dame Hector fünf");
    }
}
