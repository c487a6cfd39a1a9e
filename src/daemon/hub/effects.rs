//! Carrying out what the table decided: every [`TableEffect`] goes to the task that does it (an
//! announcement to speech, a command to a board's link, a reply to its console and a line to
//! the others, a note to the transcript and the staff's consoles, a touch to `touches.txt`, a
//! mateability search to a blocking thread, a request to the engine, the record to its writer,
//! the game's end to the journal), and after every message the hub catches up (outages of the
//! files, the record, the progress and the page's view).
//!
//! Nothing here rules: an effect is done as it is. A speaker that cannot take an announcement
//! makes it count as said (its end is handed back to the table, so that no clock waits for it
//! forever, F.3 c); a link or an engine that cannot take a command is noted; a failing disk
//! becomes a note, never an end of the game.

use std::{collections::VecDeque, time::Duration};

use shakmaty::Color;
use tracing::{debug, info, warn};

use super::{Hub, HubMsg};
use crate::{
    daemon::files::{self, RecordSnapshot},
    speech::{SpeechId, SpeechRequest},
};
use tactus_core::{
    announce::count,
    board::session::LinkCommand,
    console::wire::Reply,
    rules::{
        Millis,
        dead::{self, Mateability, Query},
        pgn::format_clk,
    },
    table::{Broadcast, TableEffect, TableInput, Views},
};

/// How long a mateability search may run before its verdict is "undecided" (which never ends a
/// game; the arbiter then rules).
pub const ANALYSIS_DEADLINE: Duration = Duration::from_secs(3);
/// How often the record (and its mark, `record.json`) is written while the journal grows but no
/// move changes the record: the clock's ticks since the last move are covered by the mark too.
pub const MARK_EVERY: Millis = 10_000;

impl Hub {
    /// Carry out `effects` of an input at `now`. What they hand back to the table (an
    /// announcement speech could not take, an input that waited) goes into `work`; a console's
    /// reply into `reply`.
    pub(super) fn carry(
        &mut self,
        effects: Vec<TableEffect>,
        now: Millis,
        work: &mut VecDeque<TableInput>,
        reply: &mut Option<Reply>,
    ) {
        let mut waited = Vec::new();
        for effect in effects {
            match effect {
                TableEffect::Say {
                    id,
                    audience,
                    announcement,
                    text,
                } => {
                    let word = self.table.arbiter().config().names().audience(audience);
                    self.echo_line(&format!("to {word}"), &text);
                    let request = SpeechRequest::announce(SpeechId(id), audience, announcement);
                    let sent = match &self.speech {
                        Some(tx) => tx.try_send(request).map_err(|e| e.to_string()),
                        None => Err("no speech task".into()),
                    };
                    debug!(id, audience = word, "announcement handed to speech");
                    if sent.is_ok() {
                        // Those long over are not waited for (see `replay_waited`): never kept.
                        self.speaking
                            .retain(|(_, at)| now.saturating_sub(*at) < super::SPEECH_WAIT);
                        self.speaking.push((id, now));
                    }
                    if let Err(e) = sent {
                        warn!(
                            id,
                            "speech cannot take the announcement ({e}); it counts as said"
                        );
                        // Marked, so that the transcript never claims it was heard.
                        self.notes.append(&format!(
                            "{} {word} {text} (not spoken: {e})",
                            crate::wall::time_of_day(),
                        ));
                        work.push_back(TableInput::SpeechFinished { id, cut: false });
                    }
                }
                TableEffect::Silence { audience } => {
                    if let Some(tx) = &self.speech {
                        let _ = tx.try_send(SpeechRequest::Stop { audience });
                    }
                }
                TableEffect::Link { seat, command } => self.link(seat, command),
                TableEffect::Analyse { ticket, query } => self.analyse(ticket, query),
                TableEffect::Engine(request) => {
                    let Some(tx) = &self.engine else { continue };
                    if let Err(e) = tx.try_send(request) {
                        // The task is gone or drowning: the game must not wait in silence.
                        warn!("the engine task cannot take a request: {e}");
                        self.note(format!(
                            "the training opponent cannot be asked ({e}); the arbiter may `pause`"
                        ));
                    }
                }
                TableEffect::Reply { reply: answer, .. } => *reply = Some(answer),
                TableEffect::Broadcast(line) => {
                    // No console connected: nobody to tell.
                    let _ = self.broadcast.send(line);
                }
                TableEffect::Note { text, origin } => self.note_from(text, origin),
                TableEffect::Transcript(text) => self.notes.append(&files::note_line(&text)),
                TableEffect::Asked(asked) => self.notes.append(&files::note_line(&asked.note())),
                TableEffect::Touch {
                    seat,
                    square,
                    piece,
                } => {
                    let board = self.table.arbiter().config().names().board(seat);
                    self.touches
                        .append(&files::touch_line(now, &board, square, piece));
                }
                TableEffect::RecordChanged => self.record_dirty = true,
                TableEffect::GameOver(end) => {
                    if let Some(journal) = &mut self.journal
                        && let Err(e) = journal.end(now, &end)
                    {
                        warn!("{e:#}");
                    }
                }
                TableEffect::Resubmit(input) => waited.push(input),
            }
        }
        // What waited while play was halted comes before anything that waited behind it.
        for input in waited.into_iter().rev() {
            self.waited.push_front(input);
        }
    }

    /// A command for `seat`'s board's link. A full queue or a board away: a reading is taken at
    /// every (re)connection anyway, and a clock face is handed over again after the next input.
    fn link(&mut self, seat: Color, command: LinkCommand) {
        let Some(tx) = &self.links[seat] else {
            return;
        };
        let command = match command {
            // The link counts on its own time line (the game's less a resumed game's offset).
            LinkCommand::Clock(mut face) => {
                face.at = face.at.saturating_sub(self.clock.offset);
                self.pending_face = None;
                if let Err(e) = tx.try_send(LinkCommand::Clock(face)) {
                    debug!("clock face not handed to the link yet: {e}");
                    self.pending_face = Some((seat, face));
                }
                return;
            }
            command => command,
        };
        if let Err(e) = tx.try_send(command) {
            debug!("link command not handed over: {e}");
        }
    }

    /// After every message: the files' outages, the clock face a link could not take, the
    /// record, the progress and the page.
    pub(super) fn after(&mut self) {
        // An outage of the game's files began or ended: every console and the transcript hear it
        // once (its details stay in `status` while it lasts).
        for news in files::outage_news(self.journal.as_mut(), self.record.as_ref()) {
            warn!("{news}");
            self.note(news);
        }
        if let Some((seat, face)) = self.pending_face.take()
            && let Some(tx) = &self.links[seat]
            && tx.try_send(LinkCommand::Clock(face)).is_err()
        {
            self.pending_face = Some((seat, face));
        }
        if self.record_dirty || self.mark_behind() {
            self.write_record();
        }
        self.publish();
    }

    /// Whether the record's mark has fallen [`MARK_EVERY`] behind the journal while no move
    /// changed the record (the clock's ticks while a player thinks): a crash and a journal cut
    /// short of the mark then lose at most that much, and the refusal says so.
    fn mark_behind(&self) -> bool {
        let Some(journal) = &self.journal else {
            return false;
        };
        journal.on_disk().0 > self.marked.0
            && self.clock.now().saturating_sub(self.marked.1) >= MARK_EVERY
    }

    pub(super) fn write_record(&mut self) {
        self.record_dirty = false;
        if let Some(record) = &self.record {
            let game = self.table.game();
            let now = self.clock.now();
            self.marked = (self.journal.as_ref().map_or(0, |j| j.on_disk().0), now);
            let mark = self
                .journal
                .as_ref()
                .map(|j| j.mark(game.moves().len(), game.is_over()).at(now));
            record.write(RecordSnapshot {
                game: game.clone(),
                tags: self.table.tags().to_vec(),
                now,
                mark,
            });
        }
    }

    /// The progress the simulated boards watch, and the page's view.
    fn publish(&mut self) {
        self.progress.send_replace(self.table.progress());
        if let Some(view) = &self.view {
            let now = self.clock.now();
            let table = crate::web::view::TableView::of(&self.table, now, self.clock.instant(now));
            // Unchanged (a lift put back): the viewers' wait for a change stays a wait.
            view.send_if_modified(|old| {
                if **old == table {
                    return false;
                }
                *old = std::sync::Arc::new(table);
                true
            });
        }
    }

    /// Run the mateability search off the hub, under a deadline.
    fn analyse(&mut self, ticket: u64, query: Query) {
        let tx = self.messages.clone();
        tokio::spawn(async move {
            let search = tokio::task::spawn_blocking(move || dead::solve(&query));
            let mateability = match tokio::time::timeout(ANALYSIS_DEADLINE, search).await {
                Ok(Ok(m)) => m,
                // Past the deadline (the search runs on, unheard) or the search panicked:
                // undecided never ends a game; the arbiter rules.
                Ok(Err(_)) | Err(_) => Mateability::Undecided,
            };
            let _ = tx
                .send(HubMsg::Verdict {
                    ticket,
                    mateability,
                })
                .await;
        });
    }

    /// A note of the shell's own (a file that cannot be written, an engine that cannot be
    /// asked): the transcript, the staff's consoles, the log.
    fn note(&mut self, text: String) {
        self.note_from(text, None);
    }

    /// A note: the transcript, the assistant's and arbiter's consoles (not `origin`, which has
    /// it in its reply), the log, the echo.
    fn note_from(&mut self, text: String, origin: Option<u64>) {
        // A board's fault text, a name from the configuration: whatever came from outside is
        // escaped before it reaches the log, the transcript or a console (a terminal sequence
        // in a fault line must not retitle or clear the arbiter's screen).
        let text = crate::speech::transcript::escape_controls(&text).replace('\n', " ");
        info!("note: {text}");
        self.notes.append(&files::note_line(&text));
        self.echo_line("note", &text);
        let _ = self.broadcast.send(Broadcast {
            origin,
            text,
            to: Views::Staff,
            keypad: None,
        });
    }

    /// A line of the table's readable view on standard output (`tactus run`, `tactus demo`):
    /// the time of day, what it is (`to blind`, `move`, `note`), the words; one line each.
    fn echo_line(&self, what: &str, text: &str) {
        if self.echo {
            crate::output::say_line(&format!(
                "{}  {what:<11} {text}",
                crate::wall::time_of_day()
            ));
        }
    }

    /// The log (journald's `journalctl -u tactus -f`) follows the game: every move as it
    /// counts, with both clocks, and a takeback.
    pub(super) fn log_moves(&self, before: usize) {
        let game = self.table.game();
        if game.ply() < before {
            let stand = count(game.ply(), "half-move", "half-moves");
            info!(ply = game.ply(), "moves taken back; {stand} stand");
            self.echo_line("move", &format!("taken back; {stand} stand"));
            return;
        }
        for (i, record) in game.moves().iter().enumerate().skip(before) {
            let number = i / 2 + 1;
            let label = match record.side {
                Color::White => format!("{number}. {}", record.san),
                Color::Black => format!("{number}... {}", record.san),
            };
            match record.clocks_after {
                Some(clocks) => {
                    info!(
                        ply = i + 1,
                        "move counted: {label} (clocks: white {}, black {})",
                        format_clk(clocks.white),
                        format_clk(clocks.black)
                    );
                    self.echo_line(
                        "move",
                        &format!(
                            "{label:<14} white {}  black {}",
                            format_clk(clocks.white),
                            format_clk(clocks.black)
                        ),
                    );
                }
                None => {
                    info!(ply = i + 1, "move counted: {label}");
                    self.echo_line("move", &label);
                }
            }
        }
    }
}
