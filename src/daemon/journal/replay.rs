//! Replaying a journal through the same pure code that played it: how a restarted daemon resumes
//! a game, and how `tactus replay` prints one without any hardware.

use std::collections::BTreeMap;

use anyhow::Result;

use super::{JournalFile, format::Entry};
use crate::{
    announce::{Announcement, Audience},
    arbiter::{Arbiter, Effect, Input},
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
}

/// Replay a journal through a new arbiter. `on_effect` sees every effect with the time of the
/// input that produced it (for `tactus replay`'s transcript); the caller of a recovery passes a
/// closure that ignores them, since they already happened.
pub fn replay(
    journal: &JournalFile,
    mut on_effect: impl FnMut(Millis, &Effect),
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
    };
    for entry in &journal.entries {
        let Entry::Input { t, input, .. } = entry else {
            continue;
        };
        out.last_time = out.last_time.max(*t);
        let input = match input.to_input(arbiter.game().position()) {
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
            on_effect(*t, &effect);
        }
    }
    out.arbiter = arbiter;
    Ok(out)
}
