//! The audio engine: one thread that owns the cpal streams and plays sample buffers on lanes (a
//! whole device, or one side of a stereo device shared by the two audiences).
//!
//! Owns device lookup, stream configuration, channel routing, rate conversion to the device and
//! the moment an utterance counts as played. It must not decide what is said or when (the speech
//! task does), and it never blocks the device callback: the callback only try-locks the mix and
//! plays silence if it cannot get it.
//!
//! Why a thread: a cpal `Stream` is not `Send`, and building or dropping one may block; none of
//! that belongs on the tokio runtime. Why a stream per burst of speech instead of one always
//! open: an idle open stream keeps an unpaced device (the ALSA null or file PCM used in tests and
//! CI) writing silence as fast as the CPU allows, and keeps a real device busy for other programs.
//! The stream is built when a lane starts and dropped once every lane has drained.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    thread,
    time::{Duration, Instant},
};

use cpal::{
    FromSample, SampleFormat, SizedSample,
    traits::{DeviceTrait, HostTrait, StreamTrait},
};
use tracing::{debug, info, warn};

use super::{
    SpeakError, SpeakerEvent, SpeakerEventKind, SpeakerEvents, Token, alsa,
    config::{ClipTarget, Route, Side},
    pcm,
};

/// The longest we wait for samples already handed to the device to be heard before reporting the
/// end; guards against a bogus delay from a driver.
const MAX_DRAIN: Duration = Duration::from_millis(500);
/// Errors of one stream that mean its worker is stuck in cpal's retry loop, not a passing xrun.
const ERROR_LOOP: usize = 8;
/// How many device names an error message lists.
const LISTED_DEVICES: usize = 12;
/// The longest the start-up probe of an output may take (opening an ALSA device takes
/// milliseconds; one that hangs is as good as none).
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Which stream a lane lives on: the device, and whether it is split into sides.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SlotKey {
    device: Option<String>,
    split: bool,
}

fn slot_and_lane(target: &ClipTarget) -> (SlotKey, usize) {
    let (split, lane) = match target.route {
        Route::Whole => (false, 0),
        Route::Side(Side::Left) => (true, 0),
        Route::Side(Side::Right) => (true, 1),
    };
    (
        SlotKey {
            device: target.device.clone(),
            split,
        },
        lane,
    )
}

enum Cmd {
    Play {
        target: ClipTarget,
        token: Token,
        /// Mono at [`pcm::CLIP_RATE`].
        samples: Vec<f32>,
        events: SpeakerEvents,
    },
    Stop {
        target: ClipTarget,
        token: Token,
    },
    /// Can `target`'s device be opened? Answered on `reply`; the device is closed again.
    Probe {
        target: ClipTarget,
        reply: tokio::sync::oneshot::Sender<Result<(), String>>,
    },
    /// From the callback: every sample of `token` was handed to the device; it is heard after
    /// `drain`.
    LaneDone {
        slot: SlotKey,
        generation: u64,
        lane: usize,
        token: Token,
        drain: Duration,
    },
    /// From the error callback: the stream is broken.
    StreamFailed {
        slot: SlotKey,
        generation: u64,
        reason: String,
    },
    Shutdown,
}

/// A handle on the engine thread; clones share it, and the thread ends when the last is dropped.
#[derive(Clone)]
pub(crate) struct AudioEngine {
    tx: mpsc::Sender<Cmd>,
    _guard: Arc<ShutdownOnDrop>,
}

struct ShutdownOnDrop(mpsc::Sender<Cmd>);

impl Drop for ShutdownOnDrop {
    fn drop(&mut self) {
        // The streams' callbacks hold senders too, so the channel never disconnects by itself.
        let _ = self.0.send(Cmd::Shutdown);
    }
}

impl AudioEngine {
    pub(crate) fn start() -> Result<AudioEngine, SpeakError> {
        let (tx, rx) = mpsc::channel();
        let engine_tx = tx.clone();
        thread::Builder::new()
            .name("tactus-audio".into())
            .spawn(move || Engine::new(engine_tx).run(rx))
            .map_err(|e| SpeakError::Output(format!("cannot start the audio thread: {e}")))?;
        Ok(AudioEngine {
            tx: tx.clone(),
            _guard: Arc::new(ShutdownOnDrop(tx)),
        })
    }

    /// Plays mono samples at [`pcm::CLIP_RATE`] on `target`; `Started`, then `Finished` or
    /// `Failed` come on `events`.
    pub(crate) fn play(
        &self,
        target: &ClipTarget,
        token: Token,
        samples: Vec<f32>,
        events: SpeakerEvents,
    ) -> Result<(), SpeakError> {
        self.tx
            .send(Cmd::Play {
                target: target.clone(),
                token,
                samples,
                events,
            })
            .map_err(|_| SpeakError::Output("the audio thread has ended".into()))
    }

    pub(crate) fn stop(&self, target: &ClipTarget, token: Token) {
        let _ = self.tx.send(Cmd::Stop {
            target: target.clone(),
            token,
        });
    }

    /// Looks for `target`'s device and opens it once, without playing: whether there is an
    /// audio output at all, known before the first announcement. The error says why not, in
    /// words for the assistant.
    pub(crate) async fn probe(&self, target: &ClipTarget) -> Result<(), String> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.tx
            .send(Cmd::Probe {
                target: target.clone(),
                reply,
            })
            .map_err(|_| "the audio thread has ended".to_string())?;
        match tokio::time::timeout(PROBE_TIMEOUT, answer).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err("the audio thread has ended".into()),
            Err(_) => Err(format!(
                "the audio output {} did not answer within {} s",
                device_label(&target.device),
                PROBE_TIMEOUT.as_secs()
            )),
        }
    }
}

/// A lane's utterance, shared with the device callback.
struct Playing {
    token: Token,
    /// Mono at the stream's rate.
    samples: Vec<f32>,
    pos: usize,
    started: bool,
    /// Every sample was handed to the device; waiting for the drain.
    consumed: bool,
    events: SpeakerEvents,
}

struct LaneState {
    /// The device channels this lane sounds on.
    outputs: Vec<usize>,
    playing: Option<Playing>,
}

/// What the callback reads: one entry per lane.
struct Mix {
    lanes: Vec<LaneState>,
}

struct OpenStream {
    stream: cpal::Stream,
    mix: Arc<Mutex<Mix>>,
    rate: u32,
    /// Set by the error callback when the device is gone or errors repeat.
    errored: Arc<AtomicBool>,
}

impl OpenStream {
    /// Closes the stream. cpal's ALSA worker can loop forever on a persistent write error, and
    /// dropping the stream joins that worker: a stream that reported errors is leaked rather than
    /// hang every later announcement behind it.
    fn close(self) {
        if self.errored.load(Ordering::Relaxed) {
            warn!("leaving a failed audio stream open (closing it could hang)");
            std::mem::forget(self.stream);
        }
    }
}

/// A device we have found and configured before (looking it up and probing its configurations
/// opens the device, which costs milliseconds we do not want before every announcement).
#[derive(Clone)]
struct Prepared {
    device: cpal::Device,
    config: cpal::StreamConfig,
    format: SampleFormat,
}

#[derive(Default)]
struct Slot {
    prepared: Option<Prepared>,
    open: Option<OpenStream>,
    generation: u64,
}

struct Finishing {
    due: Instant,
    slot: SlotKey,
    generation: u64,
    lane: usize,
    token: Token,
}

struct Engine {
    tx: mpsc::Sender<Cmd>,
    host: cpal::Host,
    slots: HashMap<SlotKey, Slot>,
    finishing: Vec<Finishing>,
}

impl Engine {
    fn new(tx: mpsc::Sender<Cmd>) -> Engine {
        Engine {
            tx,
            host: cpal::default_host(),
            slots: HashMap::new(),
            finishing: Vec::new(),
        }
    }

    fn run(mut self, rx: mpsc::Receiver<Cmd>) {
        // Every device lookup and stream opening happens on this thread.
        alsa::quiet_this_thread();
        loop {
            let next_due = self.finishing.iter().map(|f| f.due).min();
            let cmd = match next_due {
                Some(due) => match rx.recv_timeout(due.saturating_duration_since(Instant::now())) {
                    Ok(cmd) => Some(cmd),
                    Err(mpsc::RecvTimeoutError::Timeout) => None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                },
                None => match rx.recv() {
                    Ok(cmd) => Some(cmd),
                    Err(_) => break,
                },
            };
            match cmd {
                None => {}
                Some(Cmd::Shutdown) => break,
                Some(Cmd::Play {
                    target,
                    token,
                    samples,
                    events,
                }) => self.play(&target, token, samples, events),
                Some(Cmd::Probe { target, reply }) => {
                    let (key, _) = slot_and_lane(&target);
                    // The configured device is dropped at once: cpal keeps the PCM it queried
                    // open until a stream takes it, and an idle open device would lock out
                    // other programs (the speech engine, on a card without mixing).
                    let result = prepare(&self.host, &key).map(drop);
                    if let Err(reason) = &result {
                        debug!(device = ?key.device, "audio output probe: {reason}");
                    }
                    let _ = reply.send(result);
                }
                Some(Cmd::Stop { target, token }) => {
                    let (slot, lane) = slot_and_lane(&target);
                    self.clear_lane(&slot, lane, token);
                    self.finishing.retain(|f| f.token != token);
                    self.close_if_idle(&slot);
                }
                Some(Cmd::LaneDone {
                    slot,
                    generation,
                    lane,
                    token,
                    drain,
                }) => self.finishing.push(Finishing {
                    due: Instant::now() + drain.min(MAX_DRAIN),
                    slot,
                    generation,
                    lane,
                    token,
                }),
                Some(Cmd::StreamFailed {
                    slot,
                    generation,
                    reason,
                }) => self.stream_failed(&slot, generation, &reason),
            }
            self.finish_due();
        }
        for (_, slot) in self.slots.drain() {
            if let Some(open) = slot.open {
                open.close();
            }
        }
        debug!("audio thread ends");
    }

    fn play(
        &mut self,
        target: &ClipTarget,
        token: Token,
        samples: Vec<f32>,
        events: SpeakerEvents,
    ) {
        let (key, lane) = slot_and_lane(target);
        let host = &self.host;
        let tx = &self.tx;
        let slot = self.slots.entry(key.clone()).or_default();
        if slot.open.is_none() {
            let opening = Instant::now();
            match open_stream(host, tx, &key, slot) {
                Ok(open) => {
                    debug!(elapsed = ?opening.elapsed(), "audio stream opened");
                    slot.open = Some(open);
                }
                Err(reason) => {
                    // Look the device up again next time: it may have been plugged in.
                    slot.prepared = None;
                    let _ = events.send(SpeakerEvent {
                        token,
                        kind: SpeakerEventKind::Failed(reason),
                    });
                    return;
                }
            }
        }
        let Some(open) = &slot.open else { return };
        let samples = pcm::resample_linear(&samples, pcm::CLIP_RATE, open.rate);
        let mut mix = lock(&open.mix);
        if let Some(state) = mix.lanes.get_mut(lane) {
            state.playing = Some(Playing {
                token,
                samples,
                pos: 0,
                started: false,
                consumed: false,
                events,
            });
        }
    }

    fn clear_lane(&mut self, key: &SlotKey, lane: usize, token: Token) -> Option<Playing> {
        let open = self.slots.get(key)?.open.as_ref()?;
        let mut mix = lock(&open.mix);
        let state = mix.lanes.get_mut(lane)?;
        if state.playing.as_ref().is_some_and(|p| p.token == token) {
            state.playing.take()
        } else {
            None
        }
    }

    fn finish_due(&mut self) {
        let now = Instant::now();
        let (due, later): (Vec<_>, Vec<_>) = self.finishing.drain(..).partition(|f| f.due <= now);
        self.finishing = later;
        for f in due {
            if self.slots.get(&f.slot).map(|s| s.generation) != Some(f.generation) {
                continue;
            }
            if let Some(playing) = self.clear_lane(&f.slot, f.lane, f.token) {
                let _ = playing.events.send(SpeakerEvent {
                    token: f.token,
                    kind: SpeakerEventKind::Finished,
                });
            }
            self.close_if_idle(&f.slot);
        }
    }

    fn close_if_idle(&mut self, key: &SlotKey) {
        let Some(slot) = self.slots.get_mut(key) else {
            return;
        };
        let idle = match &slot.open {
            Some(open) => lock(&open.mix).lanes.iter().all(|l| l.playing.is_none()),
            None => false,
        };
        if idle {
            if let Some(open) = slot.open.take() {
                open.close();
            }
            slot.generation += 1;
        }
    }

    fn stream_failed(&mut self, key: &SlotKey, generation: u64, reason: &str) {
        let Some(slot) = self.slots.get_mut(key) else {
            return;
        };
        if slot.generation != generation {
            return;
        }
        warn!(
            device = ?key.device,
            "the audio device {} failed: {reason}",
            device_label(&key.device)
        );
        if let Some(open) = slot.open.take() {
            for state in lock(&open.mix).lanes.iter_mut() {
                if let Some(p) = state.playing.take() {
                    let _ = p.events.send(SpeakerEvent {
                        token: p.token,
                        kind: SpeakerEventKind::Failed(format!(
                            "the audio device {} failed: {reason}",
                            device_label(&key.device)
                        )),
                    });
                }
            }
            open.errored.store(true, Ordering::Relaxed);
            open.close();
        }
        slot.prepared = None;
        slot.generation += 1;
    }
}

/// The audio callback must never panic on a poisoned lock; the data is plain buffers, still
/// consistent after a panic elsewhere.
fn lock(mix: &Mutex<Mix>) -> std::sync::MutexGuard<'_, Mix> {
    mix.lock().unwrap_or_else(|e| e.into_inner())
}

fn device_label(device: &Option<String>) -> String {
    match device {
        Some(name) => format!("'{name}'"),
        None => "(the default output)".to_string(),
    }
}

/// Why a device cannot be opened, in words for the assistant. cpal's own texts are written for
/// programmers and mislead here ("it has been unplugged" for a machine that never had a sound
/// card, "trying to read capture capabilities" for a playback device); the exact error goes to
/// the debug log.
fn cannot_open(device: &Option<String>, error: &cpal::SupportedStreamConfigsError) -> String {
    use cpal::SupportedStreamConfigsError as E;
    match (device, error) {
        (None, _) => NO_DEFAULT_OUTPUT.to_string(),
        (Some(name), E::DeviceNotAvailable) => format!(
            "the audio output '{name}' cannot be opened: it is gone (unplugged) or another \
             program holds it"
        ),
        (Some(name), E::InvalidArgument) => {
            format!("ALSA cannot open the audio output '{name}' for playback")
        }
        (Some(name), other) => format!("cannot open the audio output '{name}': {other}"),
    }
}

/// The default output is missing or unusable. cpal reports a missing card and a busy one alike,
/// so the message names both.
const NO_DEFAULT_OUTPUT: &str = "ALSA cannot open its default output: no sound card, none \
                                 configured, or another program holds it";

fn find_device(host: &cpal::Host, name: Option<&str>) -> Result<cpal::Device, String> {
    match name {
        None => host
            .default_output_device()
            .ok_or_else(|| NO_DEFAULT_OUTPUT.to_string()),
        Some(wanted) => {
            let devices = host
                .output_devices()
                .map_err(|e| format!("cannot list the audio outputs: {e}"))?;
            let mut names = Vec::new();
            for device in devices {
                let name = device.name().unwrap_or_default();
                if name == wanted {
                    return Ok(device);
                }
                names.push(name);
            }
            names.truncate(LISTED_DEVICES);
            Err(format!(
                "there is no audio output named '{wanted}' (set by voice.device_blind or \
                 voice.device_sighted); outputs found: {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        }
    }
}

/// One supported configuration range of a device, as the chooser sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Candidate {
    pub channels: u16,
    pub min_rate: u32,
    pub max_rate: u32,
    pub format: SampleFormat,
}

fn format_rank(format: SampleFormat) -> Option<u8> {
    Some(match format {
        SampleFormat::I16 => 0,
        SampleFormat::F32 => 1,
        SampleFormat::I32 => 2,
        SampleFormat::U16 => 3,
        SampleFormat::F64 => 4,
        SampleFormat::I64 => 5,
        SampleFormat::U32 => 6,
        SampleFormat::U64 => 7,
        SampleFormat::U8 => 8,
        SampleFormat::I8 => 9,
        _ => return None,
    })
}

/// Picks a configuration: the wanted channel count if offered (more channels next, fewer last),
/// the clips' own rate if the device takes it (no resampling), else 48 or 44.1 kHz, and a format
/// we can write. Returns the candidate's index and the rate.
pub(crate) fn choose_config(
    candidates: &[Candidate],
    want_channels: u16,
    clip_rate: u32,
) -> Option<(usize, u32)> {
    candidates
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let format = format_rank(c.format)?;
            if c.channels == 0 || c.min_rate > c.max_rate {
                return None;
            }
            let channels = match c.channels.cmp(&want_channels) {
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => u32::from(c.channels - want_channels),
                std::cmp::Ordering::Less => 1000,
            };
            let contains = |r: u32| c.min_rate <= r && r <= c.max_rate;
            let (rate_rank, rate) = if contains(clip_rate) {
                (0, clip_rate)
            } else if contains(48_000) {
                (1, 48_000)
            } else if contains(44_100) {
                (1, 44_100)
            } else {
                (2, 48_000u32.clamp(c.min_rate, c.max_rate))
            };
            Some(((channels, rate_rank, format), i, rate))
        })
        .min_by_key(|(key, _, _)| *key)
        .map(|(_, i, rate)| (i, rate))
}

fn prepare(host: &cpal::Host, key: &SlotKey) -> Result<Prepared, String> {
    let label = device_label(&key.device);
    let device = find_device(host, key.device.as_deref())?;
    let ranges: Vec<_> = device
        .supported_output_configs()
        .map_err(|e| {
            debug!(device = %label, "cannot query the audio output: {e:?}");
            cannot_open(&key.device, &e)
        })?
        .collect();
    let candidates: Vec<Candidate> = ranges
        .iter()
        .map(|r| Candidate {
            channels: r.channels(),
            min_rate: r.min_sample_rate().0,
            max_rate: r.max_sample_rate().0,
            format: r.sample_format(),
        })
        .collect();
    let want = if key.split { 2 } else { 1 };
    let (index, rate) = choose_config(&candidates, want, pcm::CLIP_RATE).ok_or_else(|| {
        format!("the audio output {label} offers no configuration tactus can play: {candidates:?}")
    })?;
    let chosen = &candidates[index];
    debug!(device = %label, ?chosen, rate, "audio output configured");
    Ok(Prepared {
        device,
        config: cpal::StreamConfig {
            channels: chosen.channels,
            sample_rate: cpal::SampleRate(rate),
            buffer_size: cpal::BufferSize::Default,
        },
        format: chosen.format,
    })
}

fn open_stream(
    host: &cpal::Host,
    tx: &mpsc::Sender<Cmd>,
    key: &SlotKey,
    slot: &mut Slot,
) -> Result<OpenStream, String> {
    let prepared = match &slot.prepared {
        Some(p) => p.clone(),
        None => {
            let p = prepare(host, key)?;
            slot.prepared = Some(p.clone());
            p
        }
    };
    let channels = usize::from(prepared.config.channels);
    let lanes = if key.split {
        // With a mono device both sides end up on the one channel.
        vec![
            LaneState {
                outputs: vec![0],
                playing: None,
            },
            LaneState {
                outputs: vec![if channels >= 2 { 1 } else { 0 }],
                playing: None,
            },
        ]
    } else {
        vec![LaneState {
            outputs: (0..channels).collect(),
            playing: None,
        }]
    };
    let mix = Arc::new(Mutex::new(Mix { lanes }));
    let errored = Arc::new(AtomicBool::new(false));
    slot.generation += 1;
    let ctx = CallbackCtx {
        errored: errored.clone(),
        mix: mix.clone(),
        tx: tx.clone(),
        slot: key.clone(),
        generation: slot.generation,
        channels,
        rate: prepared.config.sample_rate.0,
    };
    let stream = match prepared.format {
        SampleFormat::I16 => build::<i16>(&prepared, ctx),
        SampleFormat::F32 => build::<f32>(&prepared, ctx),
        SampleFormat::I32 => build::<i32>(&prepared, ctx),
        SampleFormat::U16 => build::<u16>(&prepared, ctx),
        SampleFormat::F64 => build::<f64>(&prepared, ctx),
        SampleFormat::I64 => build::<i64>(&prepared, ctx),
        SampleFormat::U32 => build::<u32>(&prepared, ctx),
        SampleFormat::U64 => build::<u64>(&prepared, ctx),
        SampleFormat::U8 => build::<u8>(&prepared, ctx),
        SampleFormat::I8 => build::<i8>(&prepared, ctx),
        other => Err(format!("sample format {other} is not supported")),
    }
    .map_err(|e| {
        format!(
            "cannot open the audio output {}: {e}",
            device_label(&key.device)
        )
    })?;
    stream.play().map_err(|e| {
        format!(
            "cannot start the audio output {}: {e}",
            device_label(&key.device)
        )
    })?;
    info!(device = %device_label(&key.device), rate = prepared.config.sample_rate.0, channels, "audio output opened");
    Ok(OpenStream {
        stream,
        mix,
        rate: prepared.config.sample_rate.0,
        errored,
    })
}

struct CallbackCtx {
    errored: Arc<AtomicBool>,
    mix: Arc<Mutex<Mix>>,
    tx: mpsc::Sender<Cmd>,
    slot: SlotKey,
    generation: u64,
    channels: usize,
    rate: u32,
}

fn build<T>(prepared: &Prepared, ctx: CallbackCtx) -> Result<cpal::Stream, String>
where
    T: SizedSample + FromSample<f32>,
{
    let CallbackCtx {
        errored,
        mix,
        tx,
        slot,
        generation,
        channels,
        rate,
    } = ctx;
    let err_tx = tx.clone();
    let err_slot = slot.clone();
    let errors = AtomicUsize::new(0);
    let mut scratch: Vec<f32> = Vec::new();
    prepared
        .device
        .build_output_stream(
            &prepared.config,
            move |data: &mut [T], info: &cpal::OutputCallbackInfo| {
                // cpal's stream worker thread: ALSA prints from here on an underrun.
                alsa::quiet_this_thread();
                scratch.clear();
                scratch.resize(data.len(), 0.0);
                if let Ok(mut mix) = mix.try_lock() {
                    let stamp = info.timestamp();
                    let latency = stamp
                        .playback
                        .duration_since(&stamp.callback)
                        .unwrap_or_default();
                    mix_into(&mut mix, &mut scratch, channels, |lane, token, written| {
                        let _ = tx.send(Cmd::LaneDone {
                            slot: slot.clone(),
                            generation,
                            lane,
                            token,
                            drain: latency + pcm::duration_of(written, rate),
                        });
                    });
                }
                for (out, s) in data.iter_mut().zip(&scratch) {
                    *out = T::from_sample(s.clamp(-1.0, 1.0));
                }
            },
            move |err| {
                // A gone device fails the stream at once. Other errors may be transient (the
                // utterance's deadline catches a stream that stops playing); only when they
                // repeat is the worker taken to be stuck in its error loop. Each is reported once.
                let count = errors.fetch_add(1, Ordering::Relaxed);
                match err {
                    cpal::StreamError::DeviceNotAvailable => {
                        if !errored.swap(true, Ordering::Relaxed) {
                            let _ = err_tx.send(Cmd::StreamFailed {
                                slot: err_slot.clone(),
                                generation,
                                reason: err.to_string(),
                            });
                        }
                    }
                    other => {
                        if count == 0 {
                            warn!("audio stream: {other}");
                        }
                        if count + 1 >= ERROR_LOOP {
                            errored.store(true, Ordering::Relaxed);
                        }
                    }
                }
            },
            None,
        )
        .map_err(|e| e.to_string())
}

/// Adds every playing lane's next frames into `out` (interleaved, `channels` wide). Sends
/// `Started` for a lane's first frames, and calls `done(lane, token, frames written now)` when a
/// lane has handed over its last sample.
fn mix_into(
    mix: &mut Mix,
    out: &mut [f32],
    channels: usize,
    mut done: impl FnMut(usize, Token, usize),
) {
    if channels == 0 {
        return;
    }
    let frames = out.len() / channels;
    for (index, lane) in mix.lanes.iter_mut().enumerate() {
        let Some(p) = lane.playing.as_mut() else {
            continue;
        };
        if p.consumed {
            continue;
        }
        let n = frames.min(p.samples.len() - p.pos);
        for (f, s) in p.samples[p.pos..p.pos + n].iter().enumerate() {
            for &ch in &lane.outputs {
                if let Some(slot) = out.get_mut(f * channels + ch) {
                    *slot += *s;
                }
            }
        }
        if n > 0 && !p.started {
            p.started = true;
            let _ = p.events.send(SpeakerEvent {
                token: p.token,
                kind: SpeakerEventKind::Started { at: Instant::now() },
            });
        }
        p.pos += n;
        if p.pos >= p.samples.len() {
            p.consumed = true;
            done(index, p.token, n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(channels: u16, min_rate: u32, max_rate: u32, format: SampleFormat) -> Candidate {
        Candidate {
            channels,
            min_rate,
            max_rate,
            format,
        }
    }

    #[test]
    fn the_clip_rate_and_wanted_channels_are_preferred() {
        // An ALSA "plug" device offers everything: take mono 22050 i16, no conversion.
        let plug = [
            c(1, 4000, 192_000, SampleFormat::F32),
            c(2, 4000, 192_000, SampleFormat::I16),
            c(1, 4000, 192_000, SampleFormat::I16),
        ];
        assert_eq!(choose_config(&plug, 1, 22_050), Some((2, 22_050)));
        assert_eq!(choose_config(&plug, 2, 22_050), Some((1, 22_050)));
    }

    #[test]
    fn a_fixed_rate_stereo_device_gets_resampled_audio() {
        // A typical hw: device: stereo only, 44.1 or 48 kHz.
        let hw = [
            c(2, 44_100, 44_100, SampleFormat::I16),
            c(2, 48_000, 48_000, SampleFormat::I32),
        ];
        let (i, rate) = choose_config(&hw, 1, 22_050).unwrap();
        assert_eq!(hw[i].channels, 2, "mono is duplicated onto both channels");
        assert!(rate == 44_100 || rate == 48_000);
        let odd = [c(2, 96_000, 96_000, SampleFormat::F32)];
        assert_eq!(choose_config(&odd, 2, 22_050), Some((0, 96_000)));
    }

    #[test]
    fn fewer_channels_than_wanted_only_as_a_last_resort() {
        let devs = [
            c(1, 8000, 48_000, SampleFormat::I16),
            c(4, 48_000, 48_000, SampleFormat::F32),
        ];
        assert_eq!(choose_config(&devs, 2, 22_050), Some((1, 48_000)));
        assert_eq!(choose_config(&devs[..1], 2, 22_050), Some((0, 22_050)));
        assert_eq!(choose_config(&[], 1, 22_050), None);
        assert_eq!(
            choose_config(&[c(2, 48_000, 48_000, SampleFormat::I24)], 1, 22_050),
            None,
            "formats we cannot write are skipped"
        );
    }

    fn lane(
        outputs: Vec<usize>,
        token: Token,
        samples: Vec<f32>,
    ) -> (
        LaneState,
        tokio::sync::mpsc::UnboundedReceiver<SpeakerEvent>,
    ) {
        let (events, rx) = tokio::sync::mpsc::unbounded_channel();
        (
            LaneState {
                outputs,
                playing: Some(Playing {
                    token,
                    samples,
                    pos: 0,
                    started: false,
                    consumed: false,
                    events,
                }),
            },
            rx,
        )
    }

    #[test]
    fn lanes_sound_on_their_own_side_and_report_start_and_end() {
        let (left, mut left_rx) = lane(vec![0], 1, vec![0.5; 5]);
        let (right, _right_rx) = lane(vec![1], 2, vec![-0.25; 3]);
        let mut mix = Mix {
            lanes: vec![left, right],
        };
        let mut out = vec![0.0f32; 8]; // 4 stereo frames
        let mut done = Vec::new();
        mix_into(&mut mix, &mut out, 2, |l, t, n| done.push((l, t, n)));
        assert_eq!(out, vec![0.5, -0.25, 0.5, -0.25, 0.5, -0.25, 0.5, 0.0]);
        assert_eq!(
            done,
            vec![(1, 2, 3)],
            "the right lane handed over its 3 samples"
        );
        assert!(matches!(
            left_rx.try_recv().unwrap().kind,
            SpeakerEventKind::Started { .. }
        ));
        let mut out = vec![0.0f32; 8];
        done.clear();
        mix_into(&mut mix, &mut out, 2, |l, t, n| done.push((l, t, n)));
        assert_eq!(out, vec![0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(done, vec![(0, 1, 1)]);
        assert!(left_rx.try_recv().is_err(), "Started is sent once");
        // Consumed lanes add nothing and report nothing more.
        let mut out = vec![0.0f32; 8];
        done.clear();
        mix_into(&mut mix, &mut out, 2, |l, t, n| done.push((l, t, n)));
        assert!(done.is_empty() && out.iter().all(|s| *s == 0.0));
    }

    #[test]
    fn a_whole_device_lane_is_duplicated_to_every_channel() {
        let (whole, _rx) = lane(vec![0, 1], 7, vec![0.1, 0.2]);
        let mut mix = Mix { lanes: vec![whole] };
        let mut out = vec![0.0f32; 6];
        mix_into(&mut mix, &mut out, 2, |_, _, _| {});
        assert_eq!(out, vec![0.1, 0.1, 0.2, 0.2, 0.0, 0.0]);
    }
}
