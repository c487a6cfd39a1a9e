//! What is said about the game's files while one is not written: the `status` lines, one per
//! outage (the journal, the record, the appended logs), and the news of an outage that began or
//! ended, for the arbiter's console once each. The writers keep their own health; this reads it.

use super::{LineLog, RecordWriter, journal};
use tactus_core::record::date::civil;

/// The `status` lines about the game's files, one per outage (none while all is written): the
/// journal (entries held in memory), the record (`game.pgn` and the scoresheets behind the
/// game), the appended logs. For the hub's `status`.
pub fn outage_status(
    journal: Option<&journal::Journal>,
    record: Option<&RecordWriter>,
    logs: &[&LineLog],
) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(o) = journal.and_then(|j| j.outage()) {
        let (.., h, m, s) = civil(o.since_unix_ms);
        lines.push(format!(
            "journal NOT WRITTEN since {h:02}:{m:02}:{s:02} UTC, {} entries held in memory (a \
             restart now loses them): {}",
            o.held, o.error
        ));
    }
    if let Some(record) = record {
        let health = record.health();
        if let Some(error) = &health.failing {
            lines.push(format!(
                "files NOT WRITTEN ({}; tried again): {error}",
                health.standing()
            ));
        }
    }
    for log in logs.iter().filter(|l| l.failing()) {
        lines.push(format!(
            "{} NOT WRITTEN (its lines are lost while this lasts)",
            log.path().display()
        ));
    }
    lines
}

/// What the arbiter's console is told, once each, about the game's files since the last call:
/// an outage of the record began or ended, the journal's outage ended (its beginning is the
/// error of the write that failed, which the hub reports).
pub fn outage_news(
    journal: Option<&mut journal::Journal>,
    record: Option<&RecordWriter>,
) -> Vec<String> {
    let mut news = Vec::new();
    if let Some(journal) = journal {
        news.extend(journal.take_news());
        if let Some(o) = journal.take_recovered() {
            news.push(format!(
                "the journal is written again: the {} entries held in memory are on the disk",
                o.held
            ));
        }
    }
    if let Some(record) = record {
        news.extend(record.take_news());
    }
    news
}
