//! What a game's journal replays to: the table's journal holds what the table received (a
//! board's event, a console's command, a lever's press), and the inputs the arbiter got, the
//! requests answered and what was said follow from replaying it through the same pure code.

use tactus::daemon::journal;
use tactus_core::{
    journal::{ColorRecord, InputRecord, JournalFile, Replayed, RequestRecord, Step},
    rules::Millis,
    table::TableEffect,
};

/// An input the arbiter got when the journal was replayed: the index of the journal's line
/// that led to it (in `JournalFile::entries`), its time, and the input as a journal of format
/// 2 would have held it.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub line: usize,
    pub t: Millis,
    pub input: InputRecord,
}

/// `read` replayed into a table worded from the voices folder.
pub fn replayed(read: &JournalFile) -> Replayed {
    journal::replayed(read).expect("the journal replays")
}

/// `read` replayed, with every step.
fn steps(read: &JournalFile, on_step: impl FnMut(Millis, Step<'_>)) -> Replayed {
    let dir = tactus::store::voices::default_dir();
    let wording = journal::wording(&read.header, &dir).expect("the journal's voice packs");
    tactus_core::journal::replay_steps(read, wording, on_step).expect("the journal replays")
}

/// The inputs the arbiter got, in order.
pub fn applied(read: &JournalFile) -> Vec<Applied> {
    let mut line = 0;
    let mut applied = Vec::new();
    steps(read, |t, step| match step {
        Step::Line(index) => line = index,
        Step::Applied(input) => applied.push(Applied {
            line,
            t,
            input: input.into(),
        }),
        _ => {}
    });
    applied
}

/// The blind players' requests and their answers (F.9 d), in order, as the transcript notes
/// them.
pub fn requests(read: &JournalFile) -> Vec<RequestRecord> {
    let mut requests = Vec::new();
    steps(read, |_, step| match step {
        Step::Effect(TableEffect::Asked(asked)) => requests.push(RequestRecord {
            by: asked.by,
            asked: asked.asked.clone(),
            answer: asked.answer.clone(),
            said: asked.said.clone(),
            seat: asked.seat.map(ColorRecord::from),
        }),
        Step::Request(request) => requests.push(request.clone()),
        _ => {}
    });
    requests
}

/// What was said when the journal was replayed, with the time of the line that said it.
pub fn effects(read: &JournalFile) -> Vec<(Millis, TableEffect)> {
    let mut effects = Vec::new();
    steps(read, |t, step| {
        if let Step::Effect(effect) = step {
            effects.push((t, effect.clone()));
        }
    });
    effects
}
