//! The speech task: owns the outputs (speakers and their queues) and the transcript, takes
//! [`SpeechRequest`]s, and reports [`SpeechEvent`]s. It is built and started by `start`
//! (`speech::spawn`), or built directly with any speakers (tests).
//!
//! Thin on purpose: the priority rules live in the pure [`super::queue`], the sound in the
//! speakers. What this adds is the glue that must hold under failure: every request is reported
//! finished exactly once (the arbiter starts a clock on it), a speaker that fails or hangs past
//! its deadline is replaced by its fallback (the clips) with one spoken notice, a device that
//! keeps failing is retried with every announcement (and reported once per outage; a device
//! missing at start, found by probing it before the first announcement, is one outage), and
//! nothing here ends the game. It must not word anything (announcements are rendered by the
//! closure it is given) and must not block: the speakers do their work on their own threads.

use std::{collections::HashMap, time::Duration};

use tokio::{
    sync::mpsc,
    time::{Instant, sleep_until},
};
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use super::{
    Outcome, Speaker, SpeakerEvent, SpeakerEventKind, SpeakerEvents, SpeechEvent, SpeechId,
    SpeechRequest, Token, What,
    queue::{Action, Queue},
    transcript::Transcript,
};
use shakmaty::ByColor;
use tactus_core::{
    announce::{
        Announcement, Audience, Priority,
        voice::{PAUSE, Utterance},
    },
    arbiter::SeatNames,
};

/// The id of the task's own utterances (the fallback notice); never reported.
pub const INTERNAL: SpeechId = SpeechId(u64::MAX);
/// Turns an announcement into words (the voice pack's `render` with the configured style).
pub type Render = Box<dyn FnMut(&Announcement) -> Utterance + Send>;
/// The time of day as time since midnight, for the transcript.
pub type TimeOfDay = Box<dyn Fn() -> Duration + Send>;

/// One output as built: its speakers in order of preference.
pub struct OutputSpec {
    pub audience: Audience,
    pub speakers: Vec<Box<dyn Speaker>>,
    /// The voice it speaks in (an index into the task's voices; 0 with one voice).
    pub voice: usize,
    /// Say the fallback notice at once (the preferred speaker already failed at start-up).
    pub notice_now: bool,
    /// The start-up probe found no audio output for it, for this reason. The output starts as
    /// failed: that is said once ([`NO_AUDIO_OUTPUT`]), each announcement still tries the device
    /// (one plugged in later is used and reported working) without a word more.
    pub no_output: Option<String>,
}

/// Said once, at start, when an output has no audio device (a machine without a sound card):
/// the players' announcements are still written, so the game loses nothing.
pub const NO_AUDIO_OUTPUT: &str =
    "no audio output: speech off, the transcript keeps every announcement";

struct Playing {
    id: SpeechId,
    token: Token,
    deadline: Instant,
    /// As requested (without a notice put in front of it).
    utterance: Utterance,
}

struct Output {
    audience: Audience,
    speakers: Vec<Box<dyn Speaker>>,
    voice: usize,
    active: usize,
    /// Put the fallback notice in front of the next utterance.
    notice_pending: bool,
    queue: Queue,
    playing: Option<Playing>,
    /// Reported as degraded and not yet recovered.
    failing: bool,
}

impl Output {
    fn serves(&self, audience: Audience) -> bool {
        self.audience == Audience::Both || audience == Audience::Both || self.audience == audience
    }
}

struct Pending {
    audience: Audience,
    remaining: usize,
    outcome: Option<Outcome>,
    started: bool,
}

/// The task's state. Built by [`super::spawn`], or directly with any speakers (tests).
pub struct SpeechTask {
    outputs: Vec<Output>,
    /// A sender is kept so that the receiver never closes while speakers come and go.
    speaker_events: (SpeakerEvents, mpsc::UnboundedReceiver<SpeakerEvent>),
    events: mpsc::UnboundedSender<SpeechEvent>,
    transcript: Option<Transcript>,
    transcript_failing: bool,
    /// The voices the outputs speak in (two blind players may each hear their own pack).
    voices: Vec<TaskVoice>,
    /// The voice of each seat's player, for what no output serves and for the transcript.
    seat_voice: ByColor<usize>,
    /// How the transcript names the audiences.
    names: SeatNames,
    time_of_day: TimeOfDay,
    pending: HashMap<SpeechId, Pending>,
    next_token: Token,
}

/// One voice: its renderer, and the notice it says when the speech engine fails.
pub struct TaskVoice {
    pub render: Render,
    pub notice: Option<Utterance>,
}

/// The transcript's names at a table with one blind player, White: the task's default until
/// [`SpeechTask::with_table`] says otherwise.
pub(super) fn default_names() -> SeatNames {
    use tactus_core::{
        arbiter::{Completion, one_blind},
        board::{Sensing, recognize::RecognizerConfig},
    };
    let tactile = RecognizerConfig {
        sensing: Sensing::Occupancy,
        settle_ms: 0,
        scan_ms: 0,
        bounce_ms: 0,
        differs_after_ms: 0,
        confirm_with_snapshot: false,
    };
    SeatNames::new(&one_blind(
        shakmaty::Color::White,
        tactile,
        None,
        Completion::ClockPress,
    ))
}

impl SpeechTask {
    pub fn new(
        outputs: Vec<OutputSpec>,
        speaker_events: (SpeakerEvents, mpsc::UnboundedReceiver<SpeakerEvent>),
        events: mpsc::UnboundedSender<SpeechEvent>,
        transcript: Option<Transcript>,
        render: Render,
        notice: Option<Utterance>,
        time_of_day: TimeOfDay,
    ) -> SpeechTask {
        SpeechTask::with_voices(
            outputs,
            speaker_events,
            events,
            transcript,
            vec![TaskVoice { render, notice }],
            ByColor::new_with(|_| 0),
            default_names(),
            time_of_day,
        )
    }

    /// [`SpeechTask::new`] with a voice per seat: `voices`, each seat's index into them
    /// (`seat_voice`), and the table's names for the transcript.
    #[allow(clippy::too_many_arguments)]
    pub fn with_voices(
        outputs: Vec<OutputSpec>,
        speaker_events: (SpeakerEvents, mpsc::UnboundedReceiver<SpeakerEvent>),
        events: mpsc::UnboundedSender<SpeechEvent>,
        transcript: Option<Transcript>,
        voices: Vec<TaskVoice>,
        seat_voice: ByColor<usize>,
        names: SeatNames,
        time_of_day: TimeOfDay,
    ) -> SpeechTask {
        let mut task = SpeechTask {
            outputs: Vec::new(),
            speaker_events,
            events,
            transcript,
            transcript_failing: false,
            voices,
            seat_voice,
            names,
            time_of_day,
            pending: HashMap::new(),
            next_token: 0,
        };
        for spec in outputs {
            let index = task.outputs.len();
            task.outputs.push(Output {
                audience: spec.audience,
                speakers: spec.speakers,
                voice: spec.voice.min(task.voices.len().saturating_sub(1)),
                active: 0,
                notice_pending: false,
                queue: Queue::new(),
                playing: None,
                failing: spec.no_output.is_some(),
            });
            if let Some(reason) = &spec.no_output {
                let message = format!("{NO_AUDIO_OUTPUT} ({reason})");
                warn!("speech for {}: {message}", spec.audience);
                task.emit(SpeechEvent::Degraded {
                    audience: spec.audience,
                    message,
                });
                // Nothing to say the fallback notice on.
                continue;
            }
            if spec.notice_now
                && let Some(notice) = task.voices[task.outputs[index].voice].notice.clone()
            {
                task.transcribe(spec.audience, &notice.text);
                let actions = task.outputs[index]
                    .queue
                    .enqueue(INTERNAL, Priority::Urgent, notice);
                task.execute(index, actions);
            }
        }
        task
    }

    /// Serves requests until `cancel` or until every request sender is gone.
    pub async fn run(
        mut self,
        mut requests: mpsc::Receiver<SpeechRequest>,
        cancel: CancellationToken,
    ) {
        loop {
            let deadline = self
                .outputs
                .iter()
                .filter_map(|o| o.playing.as_ref())
                .map(|p| p.deadline)
                .min();
            tokio::select! {
                biased;
                _ = cancel.cancelled() => break,
                Some(event) = self.speaker_events.1.recv() => self.on_speaker_event(event),
                request = requests.recv() => match request {
                    Some(request) => self.on_request(request),
                    None => break,
                },
                _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.on_deadlines();
                }
            }
        }
        self.shutdown();
    }

    fn shutdown(&mut self) {
        for index in 0..self.outputs.len() {
            let actions = self.outputs[index].queue.stop();
            self.execute(index, actions);
        }
        if let Some(transcript) = &mut self.transcript
            && let Err(e) = transcript.sync()
        {
            error!("{e:#}");
        }
        info!("speech task ends");
    }

    /// Each output's audience and the speaker it uses now.
    pub fn describe_outputs(&self) -> Vec<(Audience, String)> {
        self.outputs
            .iter()
            .map(|o| {
                let speaker = o
                    .speakers
                    .get(o.active)
                    .map(|s| s.describe())
                    .unwrap_or_else(|| "nothing (no output could be set up)".into());
                (o.audience, speaker)
            })
            .collect()
    }

    pub(super) fn emit(&self, event: SpeechEvent) {
        // A closed receiver means the daemon is shutting down; nothing left to tell.
        let _ = self.events.send(event);
    }

    fn transcribe(&mut self, audience: Audience, text: &str) {
        let word = self.names.audience(audience);
        let Some(transcript) = &mut self.transcript else {
            return;
        };
        match transcript.append((self.time_of_day)(), word, text) {
            Ok(()) => self.transcript_failing = false,
            Err(e) => {
                // Log once per outage, not once per announcement.
                if !self.transcript_failing {
                    error!("{e:#}");
                    self.transcript_failing = true;
                }
            }
        }
    }

    fn targets(&self, audience: Audience) -> Vec<usize> {
        (0..self.outputs.len())
            .filter(|&i| self.outputs[i].serves(audience))
            .collect()
    }

    fn expect(&mut self, id: SpeechId, audience: Audience, outputs: usize) {
        let pending = self.pending.entry(id).or_insert(Pending {
            audience,
            remaining: 0,
            outcome: None,
            started: false,
        });
        pending.remaining += outputs;
    }

    /// Handles one request. Public for tests that drive the task step by step.
    pub fn on_request(&mut self, request: SpeechRequest) {
        match request {
            SpeechRequest::Say {
                id,
                audience,
                what,
                priority,
            } => {
                // Each voice words it once; each output says it in its own.
                let mut worded: HashMap<usize, Utterance> = HashMap::new();
                let mut words = |task: &mut SpeechTask, voice: usize| -> Utterance {
                    worded
                        .entry(voice)
                        .or_insert_with(|| match &what {
                            What::Announcement(a) => (task.voices[voice].render)(a),
                            What::Utterance(u) => u.clone(),
                        })
                        .clone()
                };
                // The transcript has it once in each language it was said in.
                let heard: Vec<(Audience, usize)> = match audience {
                    Audience::Player(c) => vec![(audience, self.seat_voice[c])],
                    Audience::Both if self.seat_voice.white == self.seat_voice.black => {
                        vec![(audience, self.seat_voice.white)]
                    }
                    Audience::Both => shakmaty::Color::ALL
                        .into_iter()
                        .map(|c| (Audience::Player(c), self.seat_voice[c]))
                        .collect(),
                };
                for (who, voice) in heard {
                    let text = words(self, voice).text;
                    self.transcribe(who, &text);
                }
                let targets = self.targets(audience);
                if targets.is_empty() {
                    self.emit(SpeechEvent::Finished {
                        id,
                        audience,
                        outcome: Outcome::NoOutput,
                    });
                    return;
                }
                self.expect(id, audience, targets.len());
                for index in targets {
                    let utterance = words(self, self.outputs[index].voice);
                    let actions = self.outputs[index].queue.enqueue(id, priority, utterance);
                    self.execute(index, actions);
                }
            }
            SpeechRequest::Repeat { id, audience } => {
                let targets = self.targets(audience);
                if targets.is_empty() {
                    self.emit(SpeechEvent::Finished {
                        id,
                        audience,
                        outcome: Outcome::NoOutput,
                    });
                    return;
                }
                if let Some(text) = targets
                    .iter()
                    .find_map(|&i| self.outputs[i].queue.last().map(|u| u.text.clone()))
                {
                    self.transcribe(audience, &text);
                }
                self.expect(id, audience, targets.len());
                for index in targets {
                    let actions = self.outputs[index].queue.repeat(id);
                    self.execute(index, actions);
                }
            }
            SpeechRequest::Stop { audience } => {
                for index in self.targets(audience) {
                    let actions = self.outputs[index].queue.stop();
                    self.execute(index, actions);
                }
            }
        }
    }

    fn execute(&mut self, index: usize, actions: Vec<Action>) {
        let mut work: std::collections::VecDeque<Action> = actions.into();
        while let Some(action) = work.pop_front() {
            match action {
                Action::Stop => {
                    let output = &mut self.outputs[index];
                    if let Some(playing) = output.playing.take()
                        && let Some(speaker) = output.speakers.get_mut(output.active)
                    {
                        speaker.stop(playing.token);
                    }
                }
                Action::Report { id, outcome } => self.report(id, outcome),
                Action::Start(entry) => work.extend(self.attempt(index, entry.id, entry.utterance)),
            }
        }
    }

    fn report(&mut self, id: SpeechId, outcome: Outcome) {
        if id == INTERNAL {
            return;
        }
        let Some(pending) = self.pending.get_mut(&id) else {
            return;
        };
        pending.remaining = pending.remaining.saturating_sub(1);
        if outcome != Outcome::Spoken && pending.outcome.is_none() {
            pending.outcome = Some(outcome);
        }
        if pending.remaining == 0 {
            let audience = pending.audience;
            let outcome = pending.outcome.unwrap_or(Outcome::Spoken);
            self.pending.remove(&id);
            self.emit(SpeechEvent::Finished {
                id,
                audience,
                outcome,
            });
        }
    }

    /// Starts `utterance` on the output's active speaker, moving to the next speaker while
    /// starting fails. Returns the queue's actions if every speaker failed.
    fn attempt(&mut self, index: usize, id: SpeechId, utterance: Utterance) -> Vec<Action> {
        loop {
            let mut said = utterance.clone();
            let notice = if self.outputs[index].notice_pending {
                self.outputs[index].notice_pending = false;
                self.voices[self.outputs[index].voice].notice.clone()
            } else {
                None
            };
            if let Some(notice) = notice {
                self.transcribe(self.outputs[index].audience, &notice.text);
                said = Utterance {
                    text: format!("{} {}", notice.text, utterance.text),
                    clips: notice
                        .clips
                        .iter()
                        .cloned()
                        .chain([PAUSE.to_string()])
                        .chain(utterance.clips.iter().cloned())
                        .collect(),
                };
            }
            let token = self.next_token;
            self.next_token += 1;
            let output = &mut self.outputs[index];
            let Some(speaker) = output.speakers.get_mut(output.active) else {
                return self.give_up(index, "no speaker is available".into());
            };
            match speaker.start(token, &said) {
                Ok(allowance) => {
                    output.playing = Some(Playing {
                        id,
                        token,
                        deadline: Instant::now() + allowance,
                        utterance,
                    });
                    return Vec::new();
                }
                Err(e) => {
                    let reason = e.to_string();
                    if !self.switch(index, &reason) {
                        return self.give_up(index, reason);
                    }
                }
            }
        }
    }

    /// Moves the output to its next speaker, if it has one.
    fn switch(&mut self, index: usize, reason: &str) -> bool {
        let output = &mut self.outputs[index];
        if output.active + 1 >= output.speakers.len() {
            return false;
        }
        let failed = output.speakers[output.active].describe();
        output.active += 1;
        output.notice_pending = true;
        let message = format!(
            "{failed} failed: {reason}; speaking with {} instead",
            output.speakers[output.active].describe()
        );
        let audience = output.audience;
        warn!("speech for {audience}: {message}");
        self.emit(SpeechEvent::Degraded { audience, message });
        true
    }

    /// The current utterance cannot be said: report it failed (once per outage) and go on with
    /// the next one, which tries the device again.
    fn give_up(&mut self, index: usize, reason: String) -> Vec<Action> {
        let output = &mut self.outputs[index];
        output.playing = None;
        if !output.failing {
            output.failing = true;
            let message = match output.speakers.get(output.active) {
                Some(s) => format!("{} failed: {reason}", s.describe()),
                None => reason,
            };
            let audience = output.audience;
            warn!("speech for {audience}: {message}");
            self.emit(SpeechEvent::Degraded { audience, message });
        }
        self.outputs[index].queue.finished(Outcome::Failed)
    }

    /// The playing utterance failed after it started (error or deadline).
    fn on_failure(&mut self, index: usize, reason: String) {
        let output = &mut self.outputs[index];
        let Some(playing) = output.playing.take() else {
            return;
        };
        if let Some(speaker) = output.speakers.get_mut(output.active) {
            speaker.stop(playing.token);
        }
        let actions = if self.switch(index, &reason) {
            // Said again, whole, by the fallback: a move is never lost.
            self.attempt(index, playing.id, playing.utterance)
        } else {
            self.give_up(index, reason)
        };
        self.execute(index, actions);
    }

    fn on_deadlines(&mut self) {
        let now = Instant::now();
        for index in 0..self.outputs.len() {
            let output = &self.outputs[index];
            if let Some(playing) = &output.playing
                && playing.deadline <= now
            {
                let reason = format!(
                    "it did not report the end of \"{}\" in time",
                    playing.utterance.text
                );
                self.on_failure(index, reason);
            }
        }
    }

    fn on_speaker_event(&mut self, event: SpeakerEvent) {
        let Some(index) = self
            .outputs
            .iter()
            .position(|o| o.playing.as_ref().is_some_and(|p| p.token == event.token))
        else {
            // About an utterance already stopped or replaced.
            return;
        };
        match event.kind {
            SpeakerEventKind::Started { at } => {
                let Some(id) = self.outputs[index].playing.as_ref().map(|p| p.id) else {
                    return;
                };
                if let Some(pending) = self.pending.get_mut(&id)
                    && !pending.started
                {
                    pending.started = true;
                    let audience = pending.audience;
                    self.emit(SpeechEvent::Started { id, audience, at });
                }
            }
            SpeakerEventKind::Finished => {
                let output = &mut self.outputs[index];
                output.playing = None;
                if output.failing {
                    output.failing = false;
                    let audience = output.audience;
                    let message = format!(
                        "{} works again",
                        output
                            .speakers
                            .get(output.active)
                            .map(|s| s.describe())
                            .unwrap_or_default()
                    );
                    info!(?audience, "{message}");
                    self.emit(SpeechEvent::Recovered { audience, message });
                }
                let actions = self.outputs[index].queue.finished(Outcome::Spoken);
                self.execute(index, actions);
            }
            SpeakerEventKind::Failed(reason) => self.on_failure(index, reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::speech::SpeakError;
    use shakmaty::Color;

    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<String>>>);

    impl Log {
        fn push(&self, s: String) {
            self.0.lock().unwrap().push(s);
        }
        fn take(&self) -> Vec<String> {
            std::mem::take(&mut *self.0.lock().unwrap())
        }
    }

    /// Records what it is asked to do; the test reports ends through the speaker channel.
    struct Fake {
        name: &'static str,
        log: Log,
        refuse: bool,
        allowance: Duration,
    }

    impl Speaker for Fake {
        fn describe(&self) -> String {
            self.name.to_string()
        }
        fn start(&mut self, token: Token, utterance: &Utterance) -> Result<Duration, SpeakError> {
            if self.refuse {
                return Err(SpeakError::Output("unplugged".into()));
            }
            self.log
                .push(format!("{} start {token} {}", self.name, utterance.text));
            Ok(self.allowance)
        }
        fn stop(&mut self, token: Token) {
            self.log.push(format!("{} stop {token}", self.name));
        }
    }

    fn fake(name: &'static str, log: &Log) -> Box<dyn Speaker> {
        Box::new(Fake {
            name,
            log: log.clone(),
            refuse: false,
            allowance: Duration::from_secs(60),
        })
    }

    fn say(id: u64, audience: Audience, text: &str, priority: Priority) -> SpeechRequest {
        SpeechRequest::Say {
            id: SpeechId(id),
            audience,
            what: What::Utterance(Utterance {
                text: text.into(),
                clips: vec![text.into()],
            }),
            priority,
        }
    }

    struct Rig {
        task: SpeechTask,
        speaker_tx: SpeakerEvents,
        events: mpsc::UnboundedReceiver<SpeechEvent>,
    }

    impl Rig {
        fn new(outputs: Vec<OutputSpec>, transcript: Option<Transcript>) -> Rig {
            let (speaker_tx, speaker_rx) = mpsc::unbounded_channel();
            let (events_tx, events) = mpsc::unbounded_channel();
            let task = SpeechTask::new(
                outputs,
                (speaker_tx.clone(), speaker_rx),
                events_tx,
                transcript,
                Box::new(|a: &Announcement| Utterance {
                    text: format!("{a:?}"),
                    clips: vec![],
                }),
                Some(Utterance {
                    text: "Sprachausgabe gestoert".into(),
                    clips: vec!["gestoert".into()],
                }),
                Box::new(|| Duration::from_secs(3600)),
            );
            Rig {
                task,
                speaker_tx,
                events,
            }
        }

        /// Feeds a speaker event straight in (the step-by-step tests do not run the loop).
        fn speaker(&mut self, token: Token, kind: SpeakerEventKind) {
            self.task.on_speaker_event(SpeakerEvent { token, kind });
        }

        fn events(&mut self) -> Vec<SpeechEvent> {
            let mut out = Vec::new();
            while let Ok(e) = self.events.try_recv() {
                out.push(e);
            }
            out
        }
    }

    fn finished(events: &[SpeechEvent]) -> Vec<(u64, Outcome)> {
        events
            .iter()
            .filter_map(|e| match e {
                SpeechEvent::Finished { id, outcome, .. } => Some((id.0, *outcome)),
                _ => None,
            })
            .collect()
    }

    fn spec(audience: Audience, speakers: Vec<Box<dyn Speaker>>) -> OutputSpec {
        OutputSpec {
            audience,
            speakers,
            voice: 0,
            notice_now: false,
            no_output: None,
        }
    }

    #[test]
    fn an_output_found_missing_at_start_is_reported_once_and_the_transcript_keeps_everything() {
        let dir = crate::store::scratch("task-silent");
        let path = dir.join("transcript.txt");
        let log = Log::default();
        let unplugged = Box::new(Fake {
            name: "clips",
            log: log.clone(),
            refuse: true,
            allowance: Duration::from_secs(60),
        });
        let mut rig = Rig::new(
            vec![OutputSpec {
                audience: Audience::Both,
                speakers: vec![unplugged],
                voice: 0,
                // Not said: there is nothing to say it on.
                notice_now: true,
                no_output: Some("no sound card".into()),
            }],
            Some(Transcript::open(&path).unwrap()),
        );
        let events = rig.events();
        assert!(
            matches!(&events[..], [SpeechEvent::Degraded { audience: Audience::Both, message }]
                if message == &format!("{NO_AUDIO_OUTPUT} (no sound card)")),
            "{events:?}"
        );
        for id in 1..=3 {
            rig.task
                .on_request(say(id, Audience::Both, "Bauer Eva vier", Priority::Normal));
        }
        let events = rig.events();
        assert_eq!(
            finished(&events),
            [
                (1, Outcome::Failed),
                (2, Outcome::Failed),
                (3, Outcome::Failed)
            ],
            "every announcement ends, so no clock waits for it"
        );
        assert_eq!(events.len(), 3, "no word more per announcement: {events:?}");
        rig.task.shutdown();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap().lines().count(),
            3,
            "the transcript keeps every announcement"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn finished_comes_when_every_output_has_spoken() {
        let log = Log::default();
        let mut rig = Rig::new(
            vec![
                spec(Audience::Player(Color::White), vec![fake("left", &log)]),
                spec(Audience::Player(Color::Black), vec![fake("right", &log)]),
            ],
            None,
        );
        rig.task
            .on_request(say(1, Audience::Both, "Remis angeboten", Priority::Normal));
        assert_eq!(
            log.take(),
            [
                "left start 0 Remis angeboten",
                "right start 1 Remis angeboten"
            ]
        );
        rig.speaker(
            0,
            SpeakerEventKind::Started {
                at: std::time::Instant::now(),
            },
        );
        rig.speaker(
            1,
            SpeakerEventKind::Started {
                at: std::time::Instant::now(),
            },
        );
        rig.speaker(0, SpeakerEventKind::Finished);
        let events = rig.events();
        assert_eq!(events.len(), 1, "one Started per request: {events:?}");
        assert!(
            finished(&events).is_empty(),
            "the sighted side still speaks"
        );
        rig.speaker(1, SpeakerEventKind::Finished);
        assert_eq!(finished(&rig.events()), [(1, Outcome::Spoken)]);
        // Late or unknown events change nothing.
        rig.speaker(1, SpeakerEventKind::Finished);
        assert!(rig.events().is_empty());
    }

    #[test]
    fn a_move_to_the_sighted_side_does_not_wait_for_the_blind_players_queue() {
        let log = Log::default();
        let mut rig = Rig::new(
            vec![
                spec(Audience::Player(Color::White), vec![fake("blind", &log)]),
                spec(Audience::Player(Color::Black), vec![fake("sighted", &log)]),
            ],
            None,
        );
        rig.task.on_request(say(
            1,
            Audience::Player(Color::White),
            "long reply",
            Priority::Normal,
        ));
        rig.task.on_request(say(
            2,
            Audience::Player(Color::Black),
            "Springer Felix drei",
            Priority::Normal,
        ));
        assert_eq!(
            log.take(),
            [
                "blind start 0 long reply",
                "sighted start 1 Springer Felix drei"
            ]
        );
        rig.speaker(1, SpeakerEventKind::Finished);
        assert_eq!(finished(&rig.events()), [(2, Outcome::Spoken)]);
    }

    #[test]
    fn announcements_are_rendered_and_everything_is_transcribed() {
        let dir = crate::store::scratch("task");
        let path = dir.join("transcript.txt");
        let log = Log::default();
        let mut rig = Rig::new(
            vec![spec(
                Audience::Player(Color::White),
                vec![fake("blind", &log)],
            )],
            Some(Transcript::open(&path).unwrap()),
        );
        rig.task.on_request(SpeechRequest::announce(
            SpeechId(1),
            Audience::Player(Color::White),
            Announcement::IllegalMove,
        ));
        // No output serves the sighted side: transcript only, finished at once.
        rig.task.on_request(say(
            2,
            Audience::Player(Color::Black),
            "Dame Hector fuenf",
            Priority::Normal,
        ));
        assert_eq!(finished(&rig.events()), [(2, Outcome::NoOutput)]);
        rig.speaker(0, SpeakerEventKind::Finished);
        rig.task.on_request(SpeechRequest::Repeat {
            id: SpeechId(3),
            audience: Audience::Player(Color::White),
        });
        assert_eq!(
            log.take(),
            ["blind start 0 IllegalMove", "blind start 1 IllegalMove"]
        );
        rig.task.shutdown();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "01:00:00.000 blind IllegalMove\n\
             01:00:00.000 sighted Dame Hector fuenf\n\
             01:00:00.000 blind IllegalMove\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failing_engine_falls_back_once_with_a_notice_and_the_move_is_said_whole() {
        let log = Log::default();
        let mut rig = Rig::new(
            vec![spec(
                Audience::Player(Color::White),
                vec![fake("tts", &log), fake("clips", &log)],
            )],
            None,
        );
        rig.task.on_request(say(
            1,
            Audience::Player(Color::White),
            "Springer Felix drei",
            Priority::Normal,
        ));
        rig.task.on_request(say(
            2,
            Audience::Player(Color::White),
            "Bauer Eva vier",
            Priority::Normal,
        ));
        rig.speaker(0, SpeakerEventKind::Failed("engine died".into()));
        assert_eq!(
            log.take(),
            [
                "tts start 0 Springer Felix drei",
                "tts stop 0",
                "clips start 1 Sprachausgabe gestoert Springer Felix drei"
            ]
        );
        let events = rig.events();
        assert!(
            matches!(&events[..], [SpeechEvent::Degraded { message, .. }] if message.contains("engine died") && message.contains("clips")),
            "{events:?}"
        );
        rig.speaker(1, SpeakerEventKind::Finished);
        assert_eq!(finished(&rig.events()), [(1, Outcome::Spoken)]);
        assert_eq!(
            log.take(),
            ["clips start 2 Bauer Eva vier"],
            "the notice is said once"
        );
    }

    #[test]
    fn a_speaker_that_cannot_start_reports_failed_and_is_retried_next_time() {
        let log = Log::default();
        let flaky = Arc::new(Mutex::new(true));
        struct Flaky(Arc<Mutex<bool>>, Log);
        impl Speaker for Flaky {
            fn describe(&self) -> String {
                "headphones".into()
            }
            fn start(&mut self, token: Token, u: &Utterance) -> Result<Duration, SpeakError> {
                if *self.0.lock().unwrap() {
                    return Err(SpeakError::Output("unplugged".into()));
                }
                self.1.push(format!("start {token} {}", u.text));
                Ok(Duration::from_secs(60))
            }
            fn stop(&mut self, _: Token) {}
        }
        let mut rig = Rig::new(
            vec![spec(
                Audience::Player(Color::White),
                vec![Box::new(Flaky(flaky.clone(), log.clone()))],
            )],
            None,
        );
        rig.task.on_request(say(
            1,
            Audience::Player(Color::White),
            "a",
            Priority::Normal,
        ));
        rig.task.on_request(say(
            2,
            Audience::Player(Color::White),
            "b",
            Priority::Normal,
        ));
        let events = rig.events();
        assert_eq!(
            finished(&events),
            [(1, Outcome::Failed), (2, Outcome::Failed)]
        );
        let degraded = events
            .iter()
            .filter(|e| matches!(e, SpeechEvent::Degraded { .. }))
            .count();
        assert_eq!(degraded, 1, "reported once per outage: {events:?}");
        *flaky.lock().unwrap() = false;
        rig.task.on_request(say(
            3,
            Audience::Player(Color::White),
            "c",
            Priority::Normal,
        ));
        assert_eq!(log.take(), ["start 2 c"]);
        rig.speaker(2, SpeakerEventKind::Finished);
        let events = rig.events();
        assert!(
            matches!(events[0], SpeechEvent::Recovered { .. }),
            "{events:?}"
        );
        assert_eq!(finished(&events), [(3, Outcome::Spoken)]);
    }

    #[test]
    fn a_startup_failure_says_the_notice_at_once() {
        let log = Log::default();
        let mut rig = Rig::new(
            vec![OutputSpec {
                audience: Audience::Player(Color::White),
                speakers: vec![fake("clips", &log)],
                voice: 0,
                notice_now: true,
                no_output: None,
            }],
            None,
        );
        assert_eq!(log.take(), ["clips start 0 Sprachausgabe gestoert"]);
        rig.speaker(0, SpeakerEventKind::Finished);
        assert!(
            finished(&rig.events()).is_empty(),
            "the notice is not a request"
        );
    }

    #[tokio::test]
    async fn a_hung_speaker_is_replaced_after_its_deadline() {
        let log = Log::default();
        let hung = Box::new(Fake {
            name: "tts",
            log: log.clone(),
            refuse: false,
            allowance: Duration::from_millis(50),
        });
        let mut rig = Rig::new(
            vec![spec(
                Audience::Player(Color::White),
                vec![hung, fake("clips", &log)],
            )],
            None,
        );
        let (requests, requests_rx) = mpsc::channel(8);
        let cancel = CancellationToken::new();
        let speaker_tx = rig.speaker_tx.clone();
        let task = tokio::spawn(rig.task.run(requests_rx, cancel.clone()));
        requests
            .send(say(
                1,
                Audience::Player(Color::White),
                "Dame Hector fuenf Schach",
                Priority::Normal,
            ))
            .await
            .unwrap();
        // The engine never reports; after 50 ms the clips take over.
        let started = tokio::time::Instant::now();
        loop {
            if log
                .0
                .lock()
                .unwrap()
                .iter()
                .any(|l| l.starts_with("clips start"))
            {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(5), "{:?}", log.0);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(started.elapsed() >= Duration::from_millis(40));
        speaker_tx
            .send(SpeakerEvent {
                token: 1,
                kind: SpeakerEventKind::Finished,
            })
            .unwrap();
        let mut seen = Vec::new();
        while !seen
            .iter()
            .any(|e| matches!(e, SpeechEvent::Finished { .. }))
        {
            seen.push(
                tokio::time::timeout(Duration::from_secs(5), rig.events.recv())
                    .await
                    .unwrap()
                    .unwrap(),
            );
        }
        assert_eq!(finished(&seen), [(1, Outcome::Spoken)]);
        assert!(
            matches!(&seen[0], SpeechEvent::Degraded { message, .. } if message.contains("in time"))
        );
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn shutdown_reports_what_was_waiting_and_ends_the_task() {
        let log = Log::default();
        let rig = Rig::new(vec![spec(Audience::Both, vec![fake("clips", &log)])], None);
        let Rig {
            task, mut events, ..
        } = rig;
        let (requests, requests_rx) = mpsc::channel(8);
        let cancel = CancellationToken::new();
        let handle = tokio::spawn(task.run(requests_rx, cancel.clone()));
        requests
            .send(say(
                1,
                Audience::Player(Color::White),
                "a",
                Priority::Normal,
            ))
            .await
            .unwrap();
        requests
            .send(say(
                2,
                Audience::Player(Color::Black),
                "b",
                Priority::Normal,
            ))
            .await
            .unwrap();
        // Wait until both were taken in (the first starts, the second waits).
        loop {
            if log.0.lock().unwrap().len() == 1 && requests.capacity() == 8 {
                break;
            }
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        cancel.cancel();
        tokio::time::timeout(Duration::from_secs(5), handle)
            .await
            .unwrap()
            .unwrap();
        let mut got = Vec::new();
        while let Ok(e) = events.try_recv() {
            got.push(e);
        }
        assert_eq!(
            finished(&got),
            [(1, Outcome::Interrupted), (2, Outcome::Cancelled)]
        );
        assert_eq!(log.take(), ["clips start 0 a", "clips stop 0"]);
    }
}
