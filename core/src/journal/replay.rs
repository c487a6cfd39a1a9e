//! Replaying a journal through the same pure code that played it: how a restarted daemon resumes
//! a game, and how `tactus replay` prints one without any hardware.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use super::{
    JournalFile,
    format::{Entry, InputRecord, RequestRecord, SwitchRecord},
};
use crate::{
    announce::{Announcement, Audience},
    arbiter::{Arbiter, Effect, Input},
    console::Switchable,
    rules::{Millis, dead::Query, game},
};

/// Where a replay stands after the journal's last line.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub arbiter: Arbiter,
    /// The time of the last input (the time line continues from here).
    pub last_time: Millis,
    pub inputs: usize,
    /// Inputs that could not be read back (e.g. a move the game had refused); they changed
    /// nothing then and are skipped now.
    pub skipped: Vec<String>,
    /// Announcements said (or being said) whose end was never journaled, by arbiter id.
    pub unfinished: BTreeMap<u64, (Audience, Announcement)>,
    /// Mateability searches asked for and never answered, by ticket.
    pub pending_analyses: BTreeMap<u64, Query>,
    /// Whether `Start` was accepted.
    pub started: bool,
    /// The requests switched off (12.3 a): the header's, then the arbiter's switches.
    pub requests_off: BTreeSet<Switchable>,
}

/// What a replay hands its caller, in the journal's order.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    /// An effect of an input, with the time of the input that produced it.
    Effect(&'a Effect),
    /// A request of the blind player and its answer (F.9 d): never an input to the arbiter.
    Request(&'a RequestRecord),
    /// The arbiter switched a request on or off (12.3 a): never an input to the arbiter.
    Switch(&'a SwitchRecord),
}

/// Replay a journal through a new arbiter. `on_effect` sees every effect with the time of the
/// input that produced it (for `tactus replay`'s transcript); the caller of a recovery passes a
/// closure that ignores them, since they already happened.
pub fn replay(
    journal: &JournalFile,
    mut on_effect: impl FnMut(Millis, &Effect),
) -> Result<Replayed> {
    replay_steps(journal, |t, step| {
        if let Step::Effect(effect) = step {
            on_effect(t, effect);
        }
    })
}

/// [`replay()`], with the requests too: `on_step` sees every effect and every journaled
/// request, in order, with its time.
pub fn replay_steps(
    journal: &JournalFile,
    mut on_step: impl FnMut(Millis, Step<'_>),
) -> Result<Replayed> {
    let setup = &journal.header.setup;
    let mut arbiter = Arbiter::new(setup.arbiter_config()?, setup.start()?);
    let mut out = Replayed {
        arbiter: arbiter.clone(),
        last_time: 0,
        inputs: 0,
        skipped: Vec::new(),
        unfinished: BTreeMap::new(),
        pending_analyses: BTreeMap::new(),
        started: false,
        requests_off: setup.requests_off(),
    };
    for entry in &journal.entries {
        let Entry::Input { t, input, .. } = entry else {
            continue;
        };
        out.last_time = out.last_time.max(*t);
        if let InputRecord::Request(request) = input {
            // Answered from the game as it stood; nothing to apply.
            on_step(*t, Step::Request(request));
            continue;
        }
        if let InputRecord::Switch(switch) = input {
            let request = Switchable::from(switch.request);
            if switch.on {
                out.requests_off.remove(&request);
            } else {
                out.requests_off.insert(request);
            }
            on_step(*t, Step::Switch(switch));
            continue;
        }
        let input = match input.to_input(arbiter.game().position(), setup.blind) {
            Ok(input) => input,
            Err(e) => {
                out.skipped.push(format!("at {t} ms: {e:#}"));
                continue;
            }
        };
        out.inputs += 1;
        match &input {
            Input::SpeechFinished { id } => {
                out.unfinished.remove(id);
            }
            Input::Rules(game::Input::Verdict { ticket, .. }) => {
                out.pending_analyses.remove(ticket);
            }
            Input::Start => out.started = true,
            _ => {}
        }
        for effect in arbiter.handle(input, *t) {
            match &effect {
                Effect::Say {
                    id,
                    audience,
                    announcement,
                } => {
                    out.unfinished
                        .insert(*id, (*audience, announcement.clone()));
                }
                Effect::Analyse { ticket, query } => {
                    out.pending_analyses.insert(*ticket, query.clone());
                }
                _ => {}
            }
            on_step(*t, Step::Effect(&effect));
        }
    }
    out.arbiter = arbiter;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Color};

    use super::*;
    use crate::journal::format::AskedBy;

    fn journal(entries: Vec<Entry>) -> JournalFile {
        JournalFile {
            path: "journal.jsonl".into(),
            header: crate::journal::test_header(Color::Black, Some("300+2")),
            entries,
            good_len: 0,
            torn: false,
            checks: Vec::new(),
        }
    }

    fn input(t: Millis, input: &Input) -> Entry {
        Entry::Input {
            t,
            wall: 0,
            input: input.into(),
        }
    }

    fn count(by: AskedBy, said: &[&str]) -> RequestRecord {
        RequestRecord {
            by,
            asked: "count".into(),
            answer: vec!["moves completed: White 1, Black 0".into()],
            said: said.iter().map(|s| s.to_string()).collect(),
            seat: None,
        }
    }

    /// F.9 d: the requests of a journal come back in their place among the effects, with their
    /// time; they are no input to the game (the game and the count of inputs are as without
    /// them), and `replay()` as the recovery calls it passes over them.
    #[test]
    fn requests_f9_d_are_replayed_in_order_and_change_nothing() {
        let asked = count(AskedBy::Assistant, &[]);
        let told = count(
            AskedBy::Button { number: 3 },
            &["Weiß: ein Zug, Schwarz: kein Zug"],
        );
        let plain = vec![
            input(0, &Input::Start),
            input(1000, &Input::EnterMove("e4".into())),
            input(1500, &Input::ClockPress),
        ];
        let mut with = plain.clone();
        with.push(Entry::Input {
            t: 2000,
            wall: 0,
            input: InputRecord::Request(asked.clone()),
        });
        with.push(input(2500, &Input::Tick));
        with.push(Entry::Input {
            t: 3000,
            wall: 0,
            input: InputRecord::Request(told.clone()),
        });
        let mut steps = Vec::new();
        let replayed = replay_steps(&journal(with.clone()), |t, step| match step {
            Step::Request(r) => steps.push((t, Some(r.clone()))),
            Step::Effect(_) => steps.push((t, None)),
            Step::Switch(s) => panic!("no switch was journaled: {s:?}"),
        })
        .unwrap();
        let requests: Vec<_> = steps
            .iter()
            .filter_map(|(t, r)| r.clone().map(|r| (*t, r)))
            .collect();
        assert_eq!(requests, [(2000, asked), (3000, told)]);
        // In the journal's order: the press's effects before the first request.
        let first = steps.iter().position(|(_, r)| r.is_some()).unwrap();
        assert!(steps[..first].iter().any(|(t, _)| *t == 1500), "{steps:?}");
        assert!(replayed.skipped.is_empty(), "{:?}", replayed.skipped);

        let without = replay(&journal(plain), |_, _| {}).unwrap();
        assert_eq!(replayed.inputs, without.inputs + 1, "the tick only");
        assert_eq!(replayed.arbiter.game().ply(), 1);
        assert_eq!(
            replayed.arbiter.game().position(),
            without.arbiter.game().position()
        );
        let mut effects = 0;
        let old = replay(&journal(with), |_, _| effects += 1).unwrap();
        assert!(old.skipped.is_empty());
        assert_eq!(old.last_time, 3000);
        assert!(effects > 0);
    }

    /// A journal with a halt of the recording replays to the clocks the table had: they stood
    /// from the pause to the resumption, and the replay says what the table said then. A halt
    /// written before the pause had a reason (the bare `"pause"` and `"resume"`, format 2 as it
    /// was) replays to the same clocks, in the arbiter's ordinary words.
    #[test]
    fn a_halt_replays_where_the_table_paused() {
        use crate::rules::game::PauseReason::Recording;
        use Announcement::{ClocksPaused, ClocksResumed, RecordingHalted, RecordingRestored};
        let cases = [
            (
                input(10_000, &Input::Rules(game::Input::Pause(Recording))),
                input(70_000, &Input::Rules(game::Input::Resume(Recording))),
                vec![RecordingHalted],
                vec![RecordingRestored, ClocksResumed],
            ),
            (
                bare_pause_line(10_000),
                bare_resume_line(70_000),
                vec![ClocksPaused],
                vec![ClocksResumed],
            ),
        ];
        for (pause, resume, halted, restored) in cases {
            replays_a_pause_from_10_to_70_s(pause, resume, halted, restored);
        }
    }

    /// A training engine gone stops the clocks for the engine (`PauseReason::Opponent`): the
    /// replay says what the table said, the engine's absence in the words that stop the clocks
    /// and its return before "clocks running again", once each. A training game journaled
    /// before the engine's pause had a reason holds it as the arbiter's bare `"pause"` and
    /// `"resume"` (the daemon said the engine's absence beside it, unjournaled): it replays to
    /// the same clocks, in the arbiter's ordinary words.
    #[test]
    fn a_training_engine_gone_replays_where_the_table_paused_old_journals_too() {
        use crate::rules::game::PauseReason::Opponent;
        use Announcement::{ClocksPaused, ClocksResumed, OpponentAway, OpponentBack};
        let cases = [
            (
                input(10_000, &Input::Rules(game::Input::Pause(Opponent))),
                input(70_000, &Input::Rules(game::Input::Resume(Opponent))),
                vec![OpponentAway],
                vec![OpponentBack, ClocksResumed],
            ),
            (
                bare_pause_line(10_000),
                bare_resume_line(70_000),
                vec![ClocksPaused],
                vec![ClocksResumed],
            ),
        ];
        for (pause, resume, paused, resumed) in cases {
            replays_a_pause_from_10_to_70_s(pause, resume, paused, resumed);
        }
    }

    /// The line of the arbiter's pause at `t` as every format-2 journal has written it.
    fn bare_pause_line(t: Millis) -> Entry {
        let line = format!(
            r#"{{"kind":"input","t":{t},"wall":0,"input":{{"rules":{{"rules":"pause"}}}}}}"#
        );
        serde_json::from_str(&line).unwrap()
    }

    /// The line of the arbiter's resumption at `t` as every format-2 journal has written it.
    fn bare_resume_line(t: Millis) -> Entry {
        let line = format!(
            r#"{{"kind":"input","t":{t},"wall":0,"input":{{"rules":{{"rules":"resume"}}}}}}"#
        );
        serde_json::from_str(&line).unwrap()
    }

    /// A game started at 0 with `pause` at 10 s and `resume` at 70 s replays whole, saying
    /// `paused` at the one and `resumed` at the other, with White's clock stood meanwhile.
    fn replays_a_pause_from_10_to_70_s(
        pause: Entry,
        resume: Entry,
        paused: Vec<Announcement>,
        resumed: Vec<Announcement>,
    ) {
        let file = journal(vec![
            input(0, &Input::Start),
            pause,
            resume,
            input(75_000, &Input::Tick),
        ]);
        let mut said = BTreeMap::<Millis, Vec<Announcement>>::new();
        let replayed = replay(&file, |t, effect| {
            if let Effect::Say { announcement, .. } = effect {
                said.entry(t).or_default().push(announcement.clone());
            }
        })
        .unwrap();
        assert!(replayed.skipped.is_empty(), "{:?}", replayed.skipped);
        assert_eq!(said.get(&10_000), Some(&paused), "{said:?}");
        assert_eq!(said.get(&70_000), Some(&resumed), "{said:?}");
        let clock = replayed.arbiter.game().clock().unwrap();
        assert!(!clock.is_paused());
        assert_eq!(
            clock.remaining(Color::White, 75_000),
            300_000 - 10_000 - 5_000,
            "White's clock stood from 10 s to 70 s"
        );
    }

    /// The journal line of a request: a new kind of input record, read back as written; an
    /// older reader's `to_input` refuses it by name instead of taking it for an input.
    #[test]
    fn a_request_line_round_trips_and_is_no_input() {
        let record = InputRecord::Request(count(AskedBy::Player, &["Weiß: ein Zug"]));
        let entry = Entry::Input {
            t: 5,
            wall: 6,
            input: record.clone(),
        };
        let line = serde_json::to_string(&entry).unwrap();
        assert!(
            line.contains(r#""input":{"request":{"by":"player","asked":"count""#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Entry>(&line).unwrap(), entry);
        let button = serde_json::to_string(&AskedBy::Button { number: 2 }).unwrap();
        assert_eq!(button, r#"{"button":{"number":2}}"#);
        let e = record
            .to_input(&Chess::default(), crate::journal::BlindRecord::White)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'count' is a question to the daemon"), "{e}");
    }

    /// 12.3 a: the requests switched off at the start (the header) and the arbiter's switches
    /// come back from the journal in order, each a step of its own and none an input to the game.
    #[test]
    fn switched_requests_12_3_a_come_back_from_the_journal() {
        use crate::journal::format::{SwitchRecord, SwitchableRecord};
        let mut file = journal(vec![
            input(0, &Input::Start),
            Entry::Input {
                t: 100,
                wall: 0,
                input: InputRecord::Switch(SwitchRecord {
                    request: SwitchableRecord::Material,
                    on: true,
                }),
            },
            Entry::Input {
                t: 200,
                wall: 0,
                input: InputRecord::Switch(SwitchRecord {
                    request: SwitchableRecord::Pieces,
                    on: false,
                }),
            },
        ]);
        let fresh = replay(&file, |_, _| {}).unwrap();
        assert_eq!(fresh.requests_off, BTreeSet::from([Switchable::Pieces]));
        file.header.setup = file
            .header
            .setup
            .clone()
            .with_requests_off([Switchable::Material]);
        let mut switches = Vec::new();
        let replayed = replay_steps(&file, |t, step| {
            if let Step::Switch(s) = step {
                switches.push((t, s.note()));
            }
        })
        .unwrap();
        assert_eq!(replayed.requests_off, BTreeSet::from([Switchable::Pieces]));
        assert_eq!(replayed.inputs, 1, "the start only");
        assert_eq!(replayed.last_time, 200);
        assert_eq!(
            switches,
            [
                (
                    100,
                    "the arbiter switched the players' 'material' request on (12.3 a)".into()
                ),
                (
                    200,
                    "the arbiter switched the players' 'pieces' request off (12.3 a)".into()
                ),
            ]
        );
        // The header keeps what it was given; a journal without the key reads as none.
        let line = serde_json::to_string(&file.header).unwrap();
        assert!(line.contains(r#""requests_off":["material"]"#), "{line}");
        let plain = serde_json::to_string(&journal(Vec::new()).header).unwrap();
        assert!(!plain.contains("requests_off"), "{plain}");
        let back: crate::journal::Header = serde_json::from_str(&plain).unwrap();
        assert!(back.setup.requests_off().is_empty());
        let e = InputRecord::Switch(SwitchRecord {
            request: SwitchableRecord::Pieces,
            on: true,
        })
        .to_input(&Chess::default(), crate::journal::BlindRecord::White)
        .unwrap_err()
        .to_string();
        assert!(e.contains("not an input to the game"), "{e}");
    }
}
