//! Speech at the board: the shell side that turns [`Utterance`]s into sound for the two audiences
//! and tells the arbiter when each announcement has been heard.
//!
//! Owns the speakers ([`clips`]: the pack's recorded clips through cpal; [`tts`]: the system's
//! speech engine), the per-output [`queue`]s with their priorities, the game's [`transcript`], and
//! the [`task`] that drives them, and keeps ALSA's own error lines out of standard error (`alsa`:
//! a machine without a sound card gets one message from the task, not ALSA's eight lines per
//! announcement). It does not decide what is said or how it is worded (that is
//! [`tactus_core::announce`]; [`Wording`] is the game's pack and style, the one renderer the hub,
//! the speech task and the run's messages share), and it never ends the game: a dead device or engine is retried, replaced
//! by the clips, reported as [`SpeechEvent::Degraded`], and every request still gets its
//! [`SpeechEvent::Finished`] so that no clock waits forever (F.3 c: the opponent's clock starts
//! once the move has been announced).
//!
//! Outputs: each audience is served by one output (a clip lane on a device, or the speech engine),
//! or by none (transcript only). Two audiences that would sound on the same output share it, so
//! an announcement to both is said once. See [`config::SpeechConfig::plan`].

mod alsa;
pub mod clips;
pub mod config;
mod output;
pub mod pcm;
pub mod queue;
mod start;
pub mod task;
pub mod transcript;
pub mod tts;
mod wording;

use std::time::{Duration, Instant};

pub use config::SpeechConfig;
pub use start::{SpeechDeps, SpeechHandle, VoiceDeps, spawn};
pub use wording::{Wording, renderer};

use tactus_core::announce::{Announcement, Audience, Priority, voice::Utterance};

/// Names a speech request; chosen by the caller (the hub), unique among requests not yet
/// finished, and handed back in the [`SpeechEvent`]s about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpeechId(pub u64);

/// How a request ended on an output. Every request ends exactly once with one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Played to the end.
    Spoken,
    /// Cut off by more urgent speech or a stop.
    Interrupted,
    /// An info reply replaced by a newer one before or while it played.
    Replaced,
    /// Dropped from the queue by a stop before it started.
    Cancelled,
    /// The output failed (and its fallback, if any); the failure was reported as `Degraded`.
    Failed,
    /// "Repeat" with nothing said yet.
    NothingToRepeat,
    /// No output serves the audience (configured "none"): written to the transcript only.
    NoOutput,
}

/// What to say: an announcement (worded by the voice pack the task was given) or ready words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    Announcement(Announcement),
    Utterance(Utterance),
}

/// A request to the speech task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechRequest {
    Say {
        id: SpeechId,
        audience: Audience,
        what: What,
        priority: Priority,
    },
    /// Say the last thing said to `audience` again (as info).
    Repeat { id: SpeechId, audience: Audience },
    /// Silence `audience` now and cancel what waits for it; each affected request is reported.
    Stop { audience: Audience },
}

impl SpeechRequest {
    /// Say an announcement with its own priority.
    pub fn announce(id: SpeechId, audience: Audience, announcement: Announcement) -> SpeechRequest {
        let priority = announcement.priority();
        SpeechRequest::Say {
            id,
            audience,
            what: What::Announcement(announcement),
            priority,
        }
    }
}

/// What the speech task reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechEvent {
    /// The outputs are set up (the speech engine started or given up on); each audience's
    /// output and the speaker it uses now.
    Ready { outputs: Vec<(Audience, String)> },
    /// The first output began to sound the request (first sample written to the device, or the
    /// engine's utterance-begin).
    Started {
        id: SpeechId,
        audience: Audience,
        at: Instant,
    },
    /// Every output serving the request is done with it. `outcome` is `Spoken` when all outputs
    /// spoke it, otherwise the first other outcome.
    Finished {
        id: SpeechId,
        audience: Audience,
        outcome: Outcome,
    },
    /// An output stopped working (or switched to its fallback): for the console and the log. The
    /// player hears about it through the fallback where there is one.
    Degraded { audience: Audience, message: String },
    /// An output that had failed spoke again.
    Recovered { audience: Audience, message: String },
}

/// A speaker's handle on one utterance; unique within a speech task.
pub type Token = u64;

/// What a speaker reports about an utterance it was asked to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpeakerEvent {
    pub token: Token,
    pub kind: SpeakerEventKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeakerEventKind {
    /// The first sample reached the device, or the engine began speaking.
    Started { at: Instant },
    /// Everything was played.
    Finished,
    /// It cannot be played; the reason names the device or engine.
    Failed(String),
}

/// Where speakers send their [`SpeakerEvent`]s (the speech task holds the receiver).
pub type SpeakerEvents = tokio::sync::mpsc::UnboundedSender<SpeakerEvent>;

/// Something that sounds utterances on one output. Calls never block for long (the real work
/// runs on the speaker's own thread); completion comes later as [`SpeakerEvent`]s on the sender
/// the speaker was built with.
pub trait Speaker: Send {
    /// For messages: what this is and where it plays ("clips on device 'default', left").
    fn describe(&self) -> String;
    /// Begins saying `utterance`, reported under `token`. Returns how long it may take before the
    /// speaker counts as hung (the task then stops it and falls back).
    fn start(&mut self, token: Token, utterance: &Utterance) -> Result<Duration, SpeakError>;
    /// Silences `token` if it still plays. Later events about it are ignored by the task.
    fn stop(&mut self, token: Token);
}

/// Why a speaker could not start an utterance.
#[derive(Debug, thiserror::Error)]
pub enum SpeakError {
    #[error(
        "the clip {path} is missing (clip '{stem}' of the voice pack); add it or regenerate the pack's clips"
    )]
    MissingClip { stem: String, path: String },
    #[error("the clip {path} cannot be read: {reason}")]
    BadClip { path: String, reason: String },
    /// The device or the audio thread; the text names the device and what failed.
    #[error("{0}")]
    Output(String),
    /// The speech engine; the text says what failed.
    #[error("{0}")]
    Engine(String),
}
