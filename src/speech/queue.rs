//! The speech queue of one output: which utterance plays now, what waits, what is dropped.
//!
//! A pure state machine: requests and "the current one has ended" go in, [`Action`]s come out
//! (start this, stop that, report this request as done). It never touches a speaker, a clock or
//! a channel; the speech task executes the actions. That keeps every priority rule testable
//! without audio.
//!
//! The rules (Appendix F's speech is the blind player's screen, so nothing the game depends on
//! may be lost):
//! - **Urgent** (flag, illegal move, guidance) interrupts info and goes ahead of everything that
//!   waits; it never interrupts a move or another urgent message, which are short and must be
//!   heard whole.
//! - **Normal** (moves, game events) is never dropped and never interrupted by info; it interrupts
//!   info, because a reply must not delay the announcement of a move while a clock runs.
//! - **Info** (replies to requests) may be interrupted, and a newer reply replaces an older one
//!   (the player asked again, or asked something else).
//! - **Repeat** says the last utterance that was started again, as info.
//! - Nothing depends on the clock: speech is never muted in time trouble.

use std::collections::VecDeque;

use tactus_core::announce::{Priority, voice::Utterance};

use super::{Outcome, SpeechId};

/// One request waiting or playing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: SpeechId,
    pub priority: Priority,
    pub utterance: Utterance,
}

/// What the driver must do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Silence the utterance that is playing (its report follows as a separate action).
    Stop,
    /// Start playing this entry; it is now the current one.
    Start(Entry),
    /// The request `id` is done on this output.
    Report { id: SpeechId, outcome: Outcome },
}

/// The queue of one output.
#[derive(Debug, Default)]
pub struct Queue {
    current: Option<Entry>,
    /// Waiting entries, kept ordered: urgent, then normal, then at most one info; FIFO within
    /// a priority.
    pending: VecDeque<Entry>,
    /// The last utterance started (for "repeat").
    last: Option<Utterance>,
}

/// Rank for ordering: lower goes first.
fn rank(p: Priority) -> u8 {
    match p {
        Priority::Urgent => 0,
        Priority::Normal => 1,
        Priority::Info => 2,
    }
}

impl Queue {
    pub fn new() -> Queue {
        Queue::default()
    }

    /// The entry playing now.
    pub fn current(&self) -> Option<&Entry> {
        self.current.as_ref()
    }

    /// Entries waiting, in the order they will play.
    pub fn pending(&self) -> impl Iterator<Item = &Entry> {
        self.pending.iter()
    }

    /// The utterance "repeat" would say.
    pub fn last(&self) -> Option<&Utterance> {
        self.last.as_ref()
    }

    /// Whether nothing plays and nothing waits.
    pub fn is_idle(&self) -> bool {
        self.current.is_none() && self.pending.is_empty()
    }

    /// A new request.
    pub fn enqueue(
        &mut self,
        id: SpeechId,
        priority: Priority,
        utterance: Utterance,
    ) -> Vec<Action> {
        let entry = Entry {
            id,
            priority,
            utterance,
        };
        let mut actions = Vec::new();
        let Some(current) = &self.current else {
            self.start(entry, &mut actions);
            return actions;
        };
        if current.priority == Priority::Info {
            // Everything interrupts info; a newer info replaces the older one.
            let outcome = if priority == Priority::Info {
                Outcome::Replaced
            } else {
                Outcome::Interrupted
            };
            if priority == Priority::Info {
                // A waiting info is older still: replaced too.
                self.drop_pending_info(&mut actions);
            }
            self.interrupt_current(outcome, &mut actions);
            // A newer info goes after waiting urgent/normal entries... but those cannot exist
            // while info plays (they would have interrupted it), so it starts now.
            self.start(entry, &mut actions);
            return actions;
        }
        if priority == Priority::Info {
            self.drop_pending_info(&mut actions);
        }
        let at = self
            .pending
            .iter()
            .position(|e| rank(e.priority) > rank(priority))
            .unwrap_or(self.pending.len());
        self.pending.insert(at, entry);
        actions
    }

    /// "Repeat": the last utterance again, as info. Nothing said yet: reported at once.
    pub fn repeat(&mut self, id: SpeechId) -> Vec<Action> {
        match self.last.clone() {
            Some(utterance) => self.enqueue(id, Priority::Info, utterance),
            None => vec![Action::Report {
                id,
                outcome: Outcome::NothingToRepeat,
            }],
        }
    }

    /// The current entry has ended (played through, or failed for good).
    pub fn finished(&mut self, outcome: Outcome) -> Vec<Action> {
        let mut actions = Vec::new();
        if let Some(current) = self.current.take() {
            actions.push(Action::Report {
                id: current.id,
                outcome,
            });
        }
        if let Some(next) = self.pending.pop_front() {
            self.start(next, &mut actions);
        }
        actions
    }

    /// Silence now: the current entry is interrupted, everything waiting is cancelled (each is
    /// reported, so nobody waits for a "finished" that never comes).
    pub fn stop(&mut self) -> Vec<Action> {
        let mut actions = Vec::new();
        self.interrupt_current(Outcome::Interrupted, &mut actions);
        for entry in self.pending.drain(..) {
            actions.push(Action::Report {
                id: entry.id,
                outcome: Outcome::Cancelled,
            });
        }
        actions
    }

    fn start(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        self.last = Some(entry.utterance.clone());
        self.current = Some(entry.clone());
        actions.push(Action::Start(entry));
    }

    fn interrupt_current(&mut self, outcome: Outcome, actions: &mut Vec<Action>) {
        if let Some(current) = self.current.take() {
            actions.push(Action::Stop);
            actions.push(Action::Report {
                id: current.id,
                outcome,
            });
        }
    }

    fn drop_pending_info(&mut self, actions: &mut Vec<Action>) {
        self.pending.retain(|e| {
            if e.priority == Priority::Info {
                actions.push(Action::Report {
                    id: e.id,
                    outcome: Outcome::Replaced,
                });
                false
            } else {
                true
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(text: &str) -> Utterance {
        Utterance {
            text: text.to_string(),
            clips: vec![text.to_string()],
        }
    }

    fn id(n: u64) -> SpeechId {
        SpeechId(n)
    }

    fn started(actions: &[Action]) -> Vec<String> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Start(e) => Some(e.utterance.text.clone()),
                _ => None,
            })
            .collect()
    }

    fn reports(actions: &[Action]) -> Vec<(u64, Outcome)> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Report { id, outcome } => Some((id.0, *outcome)),
                _ => None,
            })
            .collect()
    }

    fn stops(actions: &[Action]) -> usize {
        actions.iter().filter(|a| **a == Action::Stop).count()
    }

    /// Plays everything to the end and returns the texts in the order they started.
    fn drain(q: &mut Queue) -> Vec<String> {
        let mut order = Vec::new();
        while q.current().is_some() {
            order.extend(started(&q.finished(Outcome::Spoken)));
        }
        order
    }

    #[test]
    fn an_idle_queue_starts_at_once_and_reports_when_finished() {
        let mut q = Queue::new();
        let a = q.enqueue(id(1), Priority::Normal, u("Springer Felix drei"));
        assert_eq!(started(&a), ["Springer Felix drei"]);
        assert_eq!(stops(&a), 0);
        assert!(!q.is_idle());
        let a = q.finished(Outcome::Spoken);
        assert_eq!(reports(&a), [(1, Outcome::Spoken)]);
        assert!(q.is_idle());
    }

    #[test]
    fn moves_are_never_dropped_and_play_in_order() {
        let mut q = Queue::new();
        for n in 1..=5 {
            let a = q.enqueue(id(n), Priority::Normal, u(&format!("move {n}")));
            assert!(reports(&a).is_empty(), "nothing is dropped");
            assert_eq!(stops(&a), 0, "a move never interrupts a move");
        }
        let mut order = vec!["move 1".to_string()];
        order.extend(drain(&mut q));
        assert_eq!(order, ["move 1", "move 2", "move 3", "move 4", "move 5"]);
    }

    #[test]
    fn urgent_interrupts_info() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Info, u("Weiss eine Stunde"));
        let a = q.enqueue(id(2), Priority::Urgent, u("Zug nicht moeglich"));
        assert_eq!(
            a,
            vec![
                Action::Stop,
                Action::Report {
                    id: id(1),
                    outcome: Outcome::Interrupted
                },
                Action::Start(Entry {
                    id: id(2),
                    priority: Priority::Urgent,
                    utterance: u("Zug nicht moeglich")
                }),
            ]
        );
    }

    #[test]
    fn info_never_interrupts_urgent_or_moves() {
        for playing in [Priority::Urgent, Priority::Normal] {
            let mut q = Queue::new();
            q.enqueue(id(1), playing, u("first"));
            let a = q.enqueue(id(2), Priority::Info, u("reply"));
            assert!(a.is_empty(), "{playing:?} playing: info waits, {a:?}");
            assert_eq!(q.current().map(|e| e.id), Some(id(1)));
            assert_eq!(drain(&mut q), ["reply"]);
        }
    }

    #[test]
    fn urgent_does_not_cut_a_move_but_goes_first_after_it() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Normal, u("move 1"));
        q.enqueue(id(2), Priority::Normal, u("move 2"));
        q.enqueue(id(3), Priority::Info, u("reply"));
        let a = q.enqueue(id(4), Priority::Urgent, u("Blaettchen gefallen"));
        assert!(a.is_empty(), "the move playing is heard whole");
        q.enqueue(id(5), Priority::Urgent, u("urgent 2"));
        assert_eq!(
            drain(&mut q),
            ["Blaettchen gefallen", "urgent 2", "move 2", "reply"]
        );
    }

    #[test]
    fn a_move_interrupts_a_reply() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Info, u("reply"));
        let a = q.enqueue(id(2), Priority::Normal, u("move"));
        assert_eq!(stops(&a), 1);
        assert_eq!(reports(&a), [(1, Outcome::Interrupted)]);
        assert_eq!(started(&a), ["move"]);
    }

    #[test]
    fn newer_info_replaces_older_info_playing_or_waiting() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Info, u("reply 1"));
        let a = q.enqueue(id(2), Priority::Info, u("reply 2"));
        assert_eq!(reports(&a), [(1, Outcome::Replaced)]);
        assert_eq!(started(&a), ["reply 2"]);

        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Normal, u("move"));
        q.enqueue(id(2), Priority::Info, u("reply 1"));
        let a = q.enqueue(id(3), Priority::Info, u("reply 2"));
        assert_eq!(reports(&a), [(2, Outcome::Replaced)]);
        assert_eq!(q.pending().count(), 1);
        assert_eq!(drain(&mut q), ["reply 2"]);
    }

    #[test]
    fn repeat_says_the_last_started_utterance_again() {
        let mut q = Queue::new();
        let a = q.repeat(id(9));
        assert_eq!(reports(&a), [(9, Outcome::NothingToRepeat)]);

        q.enqueue(id(1), Priority::Normal, u("Dame Hector fuenf Schach"));
        q.finished(Outcome::Spoken);
        let a = q.repeat(id(2));
        assert_eq!(started(&a), ["Dame Hector fuenf Schach"]);
        assert_eq!(q.current().map(|e| e.priority), Some(Priority::Info));
        q.finished(Outcome::Spoken);
        // The repeat itself is what was said last: repeating again says the same.
        let a = q.repeat(id(3));
        assert_eq!(started(&a), ["Dame Hector fuenf Schach"]);
    }

    #[test]
    fn repeat_while_a_move_plays_waits_for_it() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Normal, u("move 1"));
        assert!(q.repeat(id(2)).is_empty());
        assert_eq!(drain(&mut q), ["move 1"]);
    }

    #[test]
    fn stop_reports_everything_so_nobody_waits_forever() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Normal, u("move 1"));
        q.enqueue(id(2), Priority::Normal, u("move 2"));
        q.enqueue(id(3), Priority::Info, u("reply"));
        let a = q.stop();
        assert_eq!(stops(&a), 1);
        assert_eq!(
            reports(&a),
            [
                (1, Outcome::Interrupted),
                (2, Outcome::Cancelled),
                (3, Outcome::Cancelled)
            ]
        );
        assert!(q.is_idle());
        assert!(q.stop().is_empty());
        assert!(
            q.finished(Outcome::Spoken).is_empty(),
            "a late end changes nothing"
        );
    }

    #[test]
    fn a_failure_is_reported_and_the_next_one_starts() {
        let mut q = Queue::new();
        q.enqueue(id(1), Priority::Normal, u("move 1"));
        q.enqueue(id(2), Priority::Normal, u("move 2"));
        let a = q.finished(Outcome::Failed);
        assert_eq!(reports(&a), [(1, Outcome::Failed)]);
        assert_eq!(started(&a), ["move 2"]);
    }

    /// Whatever arrives in whatever order, every request is reported exactly once, and no normal
    /// or urgent request is ever reported as anything but spoken (or failed).
    #[test]
    fn every_request_is_reported_once_and_moves_are_spoken() {
        let priorities = [Priority::Urgent, Priority::Normal, Priority::Info];
        // A small deterministic walk over interleavings: 3^6 sequences of enqueues, with a
        // finish after every second step.
        for seq in 0..3u32.pow(6) {
            let mut q = Queue::new();
            let mut reported = std::collections::HashMap::new();
            let mut prio = std::collections::HashMap::new();
            let mut s = seq;
            for step in 0..6u64 {
                let p = priorities[(s % 3) as usize];
                s /= 3;
                prio.insert(step, p);
                let mut acts = q.enqueue(id(step), p, u(&format!("{step}")));
                if step % 2 == 1 {
                    acts.extend(q.finished(Outcome::Spoken));
                }
                for (i, o) in reports(&acts) {
                    assert!(
                        reported.insert(i, o).is_none(),
                        "seq {seq}: {i} reported twice"
                    );
                }
            }
            while q.current().is_some() {
                for (i, o) in reports(&q.finished(Outcome::Spoken)) {
                    assert!(
                        reported.insert(i, o).is_none(),
                        "seq {seq}: {i} reported twice"
                    );
                }
            }
            assert_eq!(reported.len(), 6, "seq {seq}: {reported:?}");
            for (i, o) in &reported {
                if prio[i] != Priority::Info {
                    assert_eq!(
                        *o,
                        Outcome::Spoken,
                        "seq {seq}: request {i} ({:?})",
                        prio[i]
                    );
                }
            }
        }
    }
}
