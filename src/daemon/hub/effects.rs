//! Carrying out what the arbiter decided: every [`Effect`] of an input goes to the task that does
//! it (an announcement to speech, a snapshot request to a board's link, a touch to
//! `touches.txt`, a note to the transcript and the staff's consoles, a mateability search to a
//! blocking thread, the record to its writer, the game's end to the journal), and after every
//! input the hub catches up (outages of the files, announcements speech could not take, the
//! engine's turn, the record, the progress).
//!
//! Also the hub's own announcements (never fed back as inputs) and the console lines every
//! console, or only the staff's, sees ([`Broadcast`], [`Views`]). Nothing here rules: an effect
//! is done as it is, and a failing speaker or disk becomes a note, never an end of the game.

use std::time::Duration;

use tracing::{debug, info, warn};

use super::{Hub, HubMsg};
use crate::{
    daemon::{
        files::{self, RecordSnapshot},
        link::LinkCommand,
    },
    speech::{SpeechId, SpeechRequest},
};
use shakmaty::Color;
use tactus_core::{
    announce::{Announcement, Audience},
    arbiter::{Effect, Input},
    console::{Role, wire::Reply},
    rules::{
        Millis,
        dead::{self, Mateability, Query},
    },
};

/// How long a mateability search may run before its verdict is "undecided" (which never ends a
/// game; the arbiter then rules).
pub const ANALYSIS_DEADLINE: Duration = Duration::from_secs(3);

/// Speech ids the hub uses for its own announcements (game recovered): far above the arbiter's.
pub(super) const HUB_SPEECH_BASE: u64 = 1 << 48;

/// What one input produced, for the console's reply: the notes, and why it was refused if it
/// was (then nothing changed).
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub notes: Vec<String>,
    pub refused: Vec<String>,
}

impl Outcome {
    /// The console's reply: the notes, then `ok`, or `error:` with the reasons of a refusal.
    pub fn into_reply(self) -> Reply {
        if self.refused.is_empty() {
            Reply::ok(self.notes)
        } else {
            let mut reply = Reply::error(self.refused.join("; "));
            reply.body = self.notes;
            reply
        }
    }
}

/// A line for every console ("# ..."), with the connection whose command caused it (that one got
/// it in its reply already).
#[derive(Debug, Clone)]
pub struct Broadcast {
    pub origin: Option<u64>,
    pub text: String,
    /// Which consoles see it.
    pub to: Views,
}

/// Which consoles an event is for. A player's console (his keypad, his Braille display) shows
/// what is said to him; notes (touches, possible claims, boards, files) are the assistant's and
/// the arbiter's view (F.9 e).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Views {
    Everyone,
    /// The assistant's and the arbiter's consoles.
    Staff,
    /// The staff's and the keypad of the player of this seat (what is said to him alone);
    /// `seatless`: a keypad that named no seat is his (a table with one blind player).
    Player {
        seat: Color,
        seatless: bool,
    },
}

impl Views {
    /// Whether a console in `role`, speaking for `seat` if it named one, sees an event for these
    /// views.
    pub fn reach(self, role: Role, seat: Option<Color>) -> bool {
        match self {
            Views::Everyone => true,
            Views::Staff => role >= Role::Assistant,
            Views::Player {
                seat: his,
                seatless,
            } => role >= Role::Assistant || seat.map_or(seatless, |s| s == his),
        }
    }
}

impl Hub {
    pub(super) fn effects(
        &mut self,
        effects: Vec<Effect>,
        now: Millis,
        origin: Option<u64>,
    ) -> Outcome {
        let mut outcome = Outcome::default();
        let notes = &mut outcome.notes;
        for effect in effects {
            match effect {
                Effect::Say {
                    id,
                    audience,
                    announcement,
                } => {
                    if matches!(announcement, Announcement::Guidance(_)) {
                        for seat in Color::ALL {
                            if audience.includes(seat) {
                                self.guidance[seat] += 1;
                            }
                        }
                    }
                    self.says.insert(id, (audience, announcement.clone()));
                    self.speak(id, audience, announcement, true);
                }
                Effect::RequestSnapshot { seat } => {
                    if let Some(tx) = &self.links[seat] {
                        // A full queue or a board away: every (re)connection takes a snapshot.
                        let _ = tx.try_send(LinkCommand::RequestSnapshot);
                    }
                }
                Effect::Analyse { ticket, query } => self.analyse(ticket, query),
                Effect::Touch {
                    seat,
                    square,
                    piece,
                } => {
                    let board = self.arbiter.config().names().board(seat);
                    self.touches
                        .append(&files::touch_line(now, &board, square, piece));
                }
                Effect::Note(text) => {
                    self.note(text.clone(), origin);
                    notes.push(text);
                }
                Effect::Refused(text) => {
                    // The transcript keeps it; the console that sent it gets it as its reply.
                    // Other consoles are not told: nothing happened in the game.
                    info!("refused: {text}");
                    self.notes
                        .append(&files::note_line(&format!("refused: {text}")));
                    outcome.refused.push(text);
                }
                Effect::RecordChanged => self.record_dirty = true,
                Effect::GameOver(end) => {
                    if let Some(journal) = &mut self.journal
                        && let Err(e) = journal.end(now, &end)
                    {
                        warn!("{e:#}");
                    }
                    let text = format!("game over: {} ({})", end.outcome, end.reason.describe());
                    info!("{text}");
                    self.broadcast(text.clone(), origin);
                    notes.push(text);
                }
            }
        }
        outcome
    }

    /// After every input: deferred announcements once the clocks run, announcements speech
    /// could not take, the files, the progress.
    pub(super) fn after(&mut self) {
        // An outage of the game's files began or ended: every console and the transcript hear it
        // once (its details stay in `status` while it lasts).
        for news in files::outage_news(self.journal.as_mut(), self.record.as_ref()) {
            warn!("{news}");
            self.note(news, None);
        }
        self.say_deferred();
        // Bounded: each pass removes what it finishes, and finishing adds no unspoken ones
        // unless speech is gone, in which case it ends with the game's announcements said.
        for _ in 0..64 {
            if self.unspoken.is_empty() {
                break;
            }
            for id in std::mem::take(&mut self.unspoken) {
                if self.says.remove(&id).is_some() {
                    let now = self.clock.now();
                    self.accept(Input::SpeechFinished { id }, now, None);
                }
            }
        }
        self.engine_turn();
        self.sync_table_clock();
        if self.record_dirty {
            self.write_record();
        }
        self.publish();
    }

    pub(super) fn write_record(&mut self) {
        self.record_dirty = false;
        if let Some(record) = &self.record {
            let game = self.arbiter.game();
            let mark = self
                .journal
                .as_ref()
                .map(|j| j.mark(game.moves().len(), game.is_over()));
            record.write(RecordSnapshot {
                game: game.clone(),
                tags: self.tags.clone(),
                now: self.clock.now(),
                mark,
            });
        }
    }

    /// Hand an announcement to speech. If speech cannot take it, it is written to the
    /// transcript here and counts as said, so that no clock waits for it forever (F.3 c).
    /// `shown`: also tell every console what is said (`# said to ...`).
    /// Returns whether speech took it.
    pub(super) fn speak(
        &mut self,
        id: u64,
        audience: Audience,
        announcement: Announcement,
        shown: bool,
    ) -> bool {
        let text = self.wording_for(audience).text(&announcement);
        self.show_on_table_clock(audience, &announcement);
        let names = self.arbiter.config().names();
        let word = names.audience(audience);
        for seat in Color::ALL {
            if audience.includes(seat) {
                self.told[seat] += 1;
            }
        }
        // `repeat` is for what he was told; his own move said back is not what he asks again,
        // and neither is a reply (said unshown, see `request`).
        if shown && !matches!(announcement, Announcement::OwnMove(_)) {
            let (step, ply) = (self.step, self.arbiter.game().ply());
            for seat in names.blind_seats() {
                if audience.includes(seat) {
                    self.last_told[seat].remember(&announcement, step, ply);
                }
            }
        }
        self.echo_line(&format!("to {word}"), &text);
        if shown {
            let line = format!("said to {word}: {text}");
            // A player's console shows what his ear hears.
            match audience {
                Audience::Both => self.broadcast(line, None),
                Audience::Player(seat) if names.is_blind(seat) => self.broadcast_to(
                    line,
                    Views::Player {
                        seat,
                        seatless: !names.both_blind(),
                    },
                ),
                Audience::Player(_) => self.broadcast_staff(line, None),
            }
        }
        debug!(id, audience = word, "announcement handed to speech");
        let request = SpeechRequest::announce(SpeechId(id), audience, announcement);
        let sent = match &self.speech {
            Some(tx) => tx.try_send(request).map_err(|e| e.to_string()),
            None => Err("no speech task".into()),
        };
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
            if id < HUB_SPEECH_BASE {
                self.unspoken.push(id);
            }
            return false;
        }
        true
    }

    /// An announcement of the hub's own (not the arbiter's): never fed back as an input.
    /// Returns its speech id, if speech took it.
    pub(super) fn say_own(
        &mut self,
        audience: Audience,
        announcement: Announcement,
        shown: bool,
    ) -> Option<u64> {
        let id = self.next_own_speech;
        self.next_own_speech += 1;
        self.speak(id, audience, announcement, shown).then_some(id)
    }

    /// Run the mateability search off the hub, under a deadline.
    pub(super) fn analyse(&mut self, ticket: u64, query: Query) {
        self.analyses.insert(ticket);
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

    /// A note: the transcript, the assistant's and arbiter's consoles, the log.
    pub(super) fn note(&mut self, text: String, origin: Option<u64>) {
        // A board's fault text, a name from the configuration: whatever came from outside is
        // escaped before it reaches the log, the transcript or a console (a terminal sequence
        // in a fault line must not retitle or clear the arbiter's screen).
        let text = crate::speech::transcript::escape_controls(&text).replace('\n', " ");
        info!("note: {text}");
        self.notes.append(&files::note_line(&text));
        self.echo_line("note", &text);
        self.broadcast_staff(text, origin);
    }

    /// A line of the table's readable view on standard output (`tactus run`, `tactus demo`):
    /// the time of day, what it is (`to blind`, `move`, `note`), the words; one line each.
    pub(super) fn echo_line(&self, what: &str, text: &str) {
        if self.echo {
            crate::output::say_line(&format!(
                "{}  {what:<11} {text}",
                crate::wall::time_of_day()
            ));
        }
    }

    /// A line for every console.
    pub(super) fn broadcast(&self, text: String, origin: Option<u64>) {
        // No console connected: nobody to tell.
        let _ = self.broadcast.send(Broadcast {
            origin,
            text,
            to: Views::Everyone,
        });
    }

    /// A line for the consoles of `views`.
    pub(super) fn broadcast_to(&self, text: String, views: Views) {
        let _ = self.broadcast.send(Broadcast {
            origin: None,
            text,
            to: views,
        });
    }

    /// A line for the assistant's and the arbiter's consoles.
    pub(super) fn broadcast_staff(&self, text: String, origin: Option<u64>) {
        let _ = self.broadcast.send(Broadcast {
            origin,
            text,
            to: Views::Staff,
        });
    }
}
