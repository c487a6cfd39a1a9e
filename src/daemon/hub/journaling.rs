//! What the table received, journaled before the table is handed it: no move counts that is
//! not on the disk. When the journal cannot take an input (a full or read-only disk, a vanished
//! folder), it is not handed over: the table is told the journal is down (a line held in memory
//! and written first when the disk takes lines again), halts play and holds back what would
//! change the game; the input itself follows, for the table to hold back (a console's command is
//! refused: it is typed again). Every second the journal is tried again; once it takes the held
//! lines, the table is told the journal is back (journaled too), and what waited comes back from
//! the table to be journaled and applied in order, at the table's pace: one at a time, each once
//! the announcements before it have ended, as if it had just happened. Applied all at once, a
//! move made during the halt after the opponent's had been announced came before that move
//! could count (its announcement had not ended) and was taken for a move out of turn, and the
//! board was guided back. What the boards report while some still wait goes behind them. A
//! disk that stalled with a line handed to it takes the line when it wakes, in order: that
//! input is applied now, and play halts behind it.

use std::collections::VecDeque;

use tactus_core::{console::wire::Reply, rules::Millis, table::TableInput};

/// How long an announcement is waited for before what waited during a halt goes on without its
/// end: far longer than any announcement.
pub(super) const SPEECH_WAIT: Millis = 30_000;

use super::Hub;

impl Hub {
    /// Journal `input` before the table gets it. Returns the input to hand to the table, or
    /// `None` when the journal refused it (the table is told first, and gets it after).
    pub(super) fn journal_input(
        &mut self,
        input: TableInput,
        now: Millis,
        work: &mut VecDeque<TableInput>,
    ) -> Option<TableInput> {
        let back = matches!(input, TableInput::JournalBack);
        // Halted, nothing is journaled but the journal's return: the table holds back what
        // would change the game until then.
        if !input.journaled() || self.table.halted() && !back {
            return Some(input);
        }
        let Some(journal) = &mut self.journal else {
            return Some(input);
        };
        let Err(e) = journal.table(now, &input) else {
            return Some(input);
        };
        let error = format!("{e:#}");
        match input {
            // Held in memory: written first when the disk takes lines again.
            TableInput::JournalDown { .. } => Some(input),
            // Handed to a disk that stalled: it lands when the disk wakes, in order, so it is
            // applied now (the table and the journal keep one order) and play halts behind it.
            input if journal.stalled() => {
                work.push_front(TableInput::JournalDown { error });
                Some(input)
            }
            input => {
                // Not on the disk, so not applied.
                journal.withdraw_last();
                if !back {
                    work.push_front(input);
                }
                work.push_front(TableInput::JournalDown { error });
                None
            }
        }
    }

    /// Apply what waited while play was halted, one input at a time, each once the
    /// announcements before it have ended (one not ended within [`SPEECH_WAIT`] is not waited
    /// for: a speaker gone must not hold the game), until play halts again.
    pub(super) fn replay_waited(&mut self, now: Millis, reply: &mut Option<Reply>) {
        while !self.waited.is_empty() && !self.table.halted() {
            self.speaking
                .retain(|(_, at)| now.saturating_sub(*at) < SPEECH_WAIT);
            if !self.speaking.is_empty() {
                return;
            }
            let Some(input) = self.waited.pop_front() else {
                return;
            };
            self.work_through(VecDeque::from([input]), now, reply);
        }
    }

    /// While play is halted, at the table's deadline: try the journal again.
    pub(super) fn retry_journal(&mut self, now: Millis) {
        let Some(journal) = &mut self.journal else {
            return;
        };
        let input = match journal.flush_held() {
            Ok(()) => TableInput::JournalBack,
            Err(e) => TableInput::JournalStillDown {
                error: format!("{e:#}"),
            },
        };
        self.pump(input, now);
    }
}
