//! Replaying a journal through the same pure code that played it: how a restarted daemon resumes
//! a game, and how `tactus replay` prints one without any hardware. The journal holds what the
//! table received (format 3), or the arbiter's inputs as the hub of then had decided them
//! (format 2: applied as they stand); either way a new [`Table`] built from the header is handed
//! every line in order, and stands where the game stood.

use anyhow::{Result, anyhow};
use shakmaty::ByColor;

use super::{
    JournalFile,
    format::{InputRecord, RequestRecord},
    lines::Entry,
};
use crate::{
    announce::{Wording, voice::VoicePack},
    arbiter::Input,
    console::{Command, Role},
    rules::Millis,
    table::{Table, TableEffect, TableInput},
};

/// Where a replay stands after the journal's last line.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The table as the journal leaves it.
    pub table: Table,
    /// The time of the last line (the time line continues from here).
    pub last_time: Millis,
    /// Lines handed to the table.
    pub inputs: usize,
    /// Lines that could not be read back (e.g. a move the game had refused); they changed
    /// nothing then and are skipped now.
    pub skipped: Vec<String>,
}

impl Replayed {
    /// The arbiter as the journal leaves it.
    pub fn arbiter(&self) -> &crate::arbiter::Arbiter {
        self.table.arbiter()
    }

    /// Whether play had started.
    pub fn started(&self) -> bool {
        self.table.arbiter().started()
    }

    /// Announcements said (or being said) whose end was never journaled, by id.
    pub fn unfinished(
        &self,
    ) -> std::collections::BTreeMap<u64, (crate::announce::Audience, crate::announce::Announcement)>
    {
        self.table.recovery().unfinished
    }

    /// The requests switched off (12.3 a): the header's, then the arbiter's switches.
    pub fn requests_off(&self) -> &std::collections::BTreeSet<crate::console::Switchable> {
        self.table.requests_off()
    }
}

/// What a replay hands its caller, in the journal's order.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    /// The journal's line at this index (in [`JournalFile::entries`]) is replayed next: the
    /// steps up to the next `Line` are its.
    Line(usize),
    /// An input the table applied to the arbiter (a line's own, or one the table made of it: a
    /// console's command, a board's event, a start by the boards).
    Applied(&'a Input),
    /// An effect of a line, with the time of the line that produced it.
    Effect(&'a TableEffect),
    /// A request of the blind player and its answer as a journal of format 2 holds it (F.9 d):
    /// never an input.
    Request(&'a RequestRecord),
}

/// Each seat's words from the packs built into tactus that the header names (a pack of the
/// voices folder is the shell's to load).
pub fn builtin_wording(journal: &JournalFile) -> Result<ByColor<Wording>> {
    let setup = &journal.header.setup;
    let mut packs = Vec::new();
    for seat in shakmaty::Color::ALL {
        let name = setup.pack_of(seat);
        let pack = VoicePack::builtin(name.split(':').next().unwrap_or(name))
            .ok_or_else(|| anyhow!("the voice pack {name:?} is not built in"))?;
        packs.push(Wording::new(pack, setup.voice_style));
    }
    let black = packs.pop().expect("two seats");
    let white = packs.pop().expect("two seats");
    Ok(ByColor { white, black })
}

/// Replay a journal through a new table, the seats worded with `wording`. `on_effect` sees
/// every effect with the time of the line that produced it (for a transcript); a recovery
/// passes a closure that ignores them, since they already happened.
pub fn replay(
    journal: &JournalFile,
    wording: ByColor<Wording>,
    mut on_effect: impl FnMut(Millis, &TableEffect),
) -> Result<Replayed> {
    replay_steps(journal, wording, |t, step| {
        if let Step::Effect(effect) = step {
            on_effect(t, effect);
        }
    })
}

/// [`replay()`], step by step: `on_step` sees every input applied to the arbiter, every effect
/// and every request of a format-2 journal, in order, with its time.
pub fn replay_steps(
    journal: &JournalFile,
    wording: ByColor<Wording>,
    mut on_step: impl FnMut(Millis, Step<'_>),
) -> Result<Replayed> {
    let setup = &journal.header.setup;
    let mut table = Table::new(setup.table_parts(&journal.header.tags, wording)?);
    table.trace_inputs();
    let mut last_time = 0;
    let mut inputs = 0;
    let mut skipped = Vec::new();
    for (index, entry) in journal.entries.iter().enumerate() {
        let (t, input) = match entry {
            Entry::Input {
                t,
                input: InputRecord::Request(request),
                ..
            } => {
                // Answered from the game as it stood; nothing to apply.
                last_time = last_time.max(*t);
                on_step(*t, Step::Line(index));
                on_step(*t, Step::Request(request));
                continue;
            }
            // The arbiter's switch of a request (12.3 a), as his console's `requests`.
            Entry::Input {
                t,
                input: InputRecord::Switch(switch),
                ..
            } => (
                *t,
                Ok(TableInput::Console {
                    conn: 0,
                    role: Role::Arbiter,
                    seat: None,
                    command: Command::Requests(Some((switch.request.into(), switch.on))),
                }),
            ),
            Entry::Input { t, input, .. } => (
                *t,
                input
                    .to_input(table.game().position(), setup.blind)
                    .map(TableInput::Recorded),
            ),
            Entry::Table { t, input, .. } => {
                (*t, input.to_input(table.game().position(), setup.blind))
            }
            Entry::Header(_) | Entry::End { .. } => continue,
        };
        last_time = last_time.max(t);
        let input = match input {
            Ok(input) => input,
            Err(e) => {
                skipped.push(format!("at {t} ms: {e:#}"));
                continue;
            }
        };
        inputs += 1;
        on_step(t, Step::Line(index));
        let effects = table.handle(input, t);
        for (at, applied) in table.take_applied() {
            on_step(at, Step::Applied(&applied));
        }
        for effect in &effects {
            on_step(t, Step::Effect(effect));
        }
    }
    Ok(Replayed {
        table,
        last_time,
        inputs,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use shakmaty::{Chess, Color};

    use super::*;
    use crate::{
        announce::Announcement, console::Switchable, journal::format::AskedBy, rules::game,
    };

    /// The German pack's words for both seats.
    fn words() -> ByColor<Wording> {
        let pack = VoicePack::builtin("de-fide").unwrap();
        ByColor::new_with(|_| Wording::new(pack.clone(), crate::announce::voice::Style::San))
    }

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
        let replayed = replay_steps(&journal(with.clone()), words(), |t, step| match step {
            Step::Request(r) => steps.push((t, Some(r.clone()))),
            Step::Effect(_) => steps.push((t, None)),
            Step::Applied(_) | Step::Line(_) => {}
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

        let without = replay(&journal(plain), words(), |_, _| {}).unwrap();
        assert_eq!(replayed.inputs, without.inputs + 1, "the tick only");
        assert_eq!(replayed.arbiter().game().ply(), 1);
        assert_eq!(
            replayed.arbiter().game().position(),
            without.arbiter().game().position()
        );
        let mut effects = 0;
        let old = replay(&journal(with), words(), |_, _| effects += 1).unwrap();
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
        let replayed = replay(&file, words(), |t, effect| {
            if let TableEffect::Say { announcement, .. } = effect {
                said.entry(t).or_default().push(announcement.clone());
            }
        })
        .unwrap();
        assert!(replayed.skipped.is_empty(), "{:?}", replayed.skipped);
        assert_eq!(said.get(&10_000), Some(&paused), "{said:?}");
        assert_eq!(said.get(&70_000), Some(&resumed), "{said:?}");
        let clock = replayed.arbiter().game().clock().unwrap();
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
        let fresh = replay(&file, words(), |_, _| {}).unwrap();
        assert_eq!(fresh.requests_off(), &BTreeSet::from([Switchable::Pieces]));
        file.header.setup = file
            .header
            .setup
            .clone()
            .with_requests_off([Switchable::Material]);
        let mut switches = Vec::new();
        let mut applied = 0;
        let replayed = replay_steps(&file, words(), |t, step| match step {
            Step::Effect(TableEffect::Note { text, .. }) if text.contains("switched") => {
                switches.push((t, text.clone()))
            }
            Step::Applied(_) => applied += 1,
            _ => {}
        })
        .unwrap();
        assert_eq!(
            replayed.requests_off(),
            &BTreeSet::from([Switchable::Pieces])
        );
        assert_eq!(applied, 1, "the start only");
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
