//! A blind player's requests (F.9 d): a request from his keypad, his board's buttons or his
//! assistant's `tell` is answered on the console and said to him in his voice; the assistant's
//! and the arbiter's own questions are answered on their consoles only. The game does not
//! change; the transcript and the journal note who asked what and what was answered. At a table
//! with two blind players each has his own requests, answered into his own ear only.
//!
//! Also `repeat` (the last thing said to him about the game that still holds: a guidance only
//! while his board is wrong), the reply said one part after the other (a game read back, a list
//! of pieces), which his next request or `stop` cuts, the requests the arbiter switches off
//! (`material`, `pieces`: 12.3 a), refused aloud, and his keypad's other refusals and `help`:
//! nothing there is refused in silence (a word no command has, a command not his, arguments that
//! do not read, a request that cannot be met now, a button with no request), and his help lists
//! what he may do, in his pack's words.

use std::collections::VecDeque;

use shakmaty::Color;
use tracing::{info, warn};

use super::Hub;
use crate::{daemon::files, speech::SpeechRequest};
use tactus_core::{
    announce::{Announcement, Audience, Refusal},
    console::{
        self, Answer, Command, ConsoleError, Request, Role, Switchable,
        wire::{End, Reply},
    },
    journal::{AskedBy, ColorRecord, InputRecord, RequestRecord, SwitchRecord},
};

/// What was last said to a blind player, for `repeat`: the last thing said to him about the
/// game, and what was said about his board since, which holds only while his board is as it was
/// then. A guidance stays true until the board shows the game again (then `repeat` is the
/// game's news before it, not a correction already made), a touch until a move is made.
#[derive(Debug, Clone, Default)]
pub(super) struct Told {
    /// The game's last announcements to him, said in one step (a move and the result it brought,
    /// the recovery words).
    game: Vec<Announcement>,
    /// What was said about his board since, in one step (a move not possible and its guidance,
    /// a touch, a move out of turn).
    board: Vec<Announcement>,
    /// The half-move at which the board's words were said.
    board_ply: usize,
    /// The steps each was said at.
    game_step: u64,
    board_step: u64,
}

impl Told {
    /// `announcement` was said to him at `step`, at half-move `ply`.
    pub(super) fn remember(&mut self, announcement: &Announcement, step: u64, ply: usize) {
        if about_his_board(announcement) {
            if self.board_step != step {
                self.board.clear();
            }
            self.board.push(announcement.clone());
            (self.board_step, self.board_ply) = (step, ply);
        } else {
            if self.game_step != step {
                self.game.clear();
            }
            self.game.push(announcement.clone());
            self.game_step = step;
            // The game's news is newer than any word about his board.
            self.board.clear();
        }
    }

    /// What `repeat` says: the words about his board while they hold (`differs`: his board
    /// still rests on another position than it should; `ply`: the half-moves now), else the
    /// game's.
    fn last(&self, differs: bool, ply: usize) -> Vec<Announcement> {
        let touches_only = self
            .board
            .iter()
            .all(|a| matches!(a, Announcement::Touched { .. }));
        let holds = !self.board.is_empty() && self.board_ply == ply && (differs || touches_only);
        if holds {
            self.board.clone()
        } else {
            self.game.clone()
        }
    }
}

/// Whether an announcement is about the blind player's board as it stands, not news of the game:
/// stale once the board is put right or a move is made.
fn about_his_board(announcement: &Announcement) -> bool {
    matches!(
        announcement,
        Announcement::IllegalMove
            | Announcement::Guidance(_)
            | Announcement::OutOfTurn
            | Announcement::MoveRequired { .. }
            | Announcement::Touched { .. }
    )
}

/// Who asked, by the role of the console that typed the request.
pub(super) fn asked_by(role: Role) -> AskedBy {
    match role {
        Role::Player => AskedBy::Player,
        Role::Assistant => AskedBy::Assistant,
        Role::Arbiter => AskedBy::Arbiter,
    }
}

impl Hub {
    /// A button of `seat`'s tactile board: its blind player's own request (F.9 d), as
    /// configured.
    pub(super) fn button(&mut self, seat: Color, n: u8) {
        let names = self.arbiter.config().names();
        let Some(line) = self.buttons[seat].get(&n).cloned() else {
            // Any key cuts a long reply, as his next request would; and every press gets an
            // answer: he hears that the button asks nothing.
            if self.reply[seat].take().is_some() {
                self.silence_reply(seat);
            }
            let said = Announcement::ButtonUnassigned { number: n };
            // His Braille display shows what his ear gets.
            let heard = self.wording[seat].text(&said);
            self.broadcast_to(
                format!("button {n}: {heard}"),
                super::Views::Player {
                    seat,
                    seatless: !names.both_blind(),
                },
            );
            self.say_reply(seat, VecDeque::from([said]));
            let key = if names.both_blind() {
                format!("boards.{seat}.buttons")
            } else {
                "boards.blind.buttons".to_string()
            };
            self.note(
                format!(
                    "{} board: button {n} pressed; no request is set for it (key {key})",
                    names.board(seat)
                ),
                None,
            );
            return;
        };
        // The configuration was checked when it was read: a button holds a request.
        let heard = self.told[seat];
        let reply = match console::parse(&line, Role::Player) {
            Ok(Command::Request(request)) => {
                info!(button = n, request = line, "button request");
                self.request(&request, AskedBy::Button { number: n }, seat, true)
            }
            // A training request (`hint`, `review` ...) from his board's keypad.
            Ok(Command::Training(request)) => {
                info!(button = n, request = line, "button training request");
                self.training(0, Role::Player, request)
            }
            _ => return,
        };
        // A request refused in silence (the engine's move, the game over) is said to be so.
        let reply = if heard == self.told[seat] {
            self.refused_aloud(seat, reply)
        } else {
            reply
        };
        let mut text = reply.body.join("; ");
        if let tactus_core::console::wire::End::Error(error) = &reply.end {
            text = format!("{text} error: {error}");
        }
        self.broadcast(format!("button {n} ({line}): {}", text.trim()), None);
    }

    /// F.9 d: a request of `seat`'s blind player, answered on the console and, when `to_him`
    /// (his keypad, his board's buttons, his assistant's `tell`), said to him in his voice. The
    /// game does not change; the transcript notes who asked what and what was answered.
    pub(super) fn request(
        &mut self,
        request: &Request,
        by: AskedBy,
        seat: Color,
        to_him: bool,
    ) -> Reply {
        if let Some(off) = Switchable::of(request).filter(|r| self.requests_off.contains(r))
            && by != AskedBy::Arbiter
        {
            return self.switched_off(request, off, by, seat, to_him);
        }
        let now = self.clock.now();
        let answer = console::answer(request, self.arbiter.game(), seat, now);
        let said = match &answer {
            Answer::RepeatLast => self.last_told[seat]
                .last(self.arbiter.board_differs(seat), self.arbiter.game().ply()),
            other => other.announcements(),
        };
        // Printed in the words he hears, in his pack's language: a Braille display shows what
        // the ear hears.
        let wording = self.wording[seat].clone();
        let mut body: Vec<String> = said.iter().map(|a| wording.text(a)).collect();
        if body.is_empty() {
            body = match &answer {
                Answer::RepeatLast => vec!["nothing has been said yet".to_string()],
                other => console::format_reply(other),
            };
        }
        let said = if to_him { said } else { Vec::new() };
        self.record_request(request, by, seat, body.clone(), &said);
        if to_him {
            // A new request to him (or `stop`) cuts what is left of the last reply; the speech
            // queue replaces the part being said by the new reply.
            let cut = self.reply[seat].take().is_some();
            if answer == Answer::Silence && cut {
                self.silence_reply(seat);
            }
            self.say_reply(seat, said.into());
        }
        Reply::ok(body)
    }

    /// A line of his keypad its session refused: he hears why, short, in his voice, and his
    /// console prints it in his words (`Befehl unbekannt: asdf (hilfe)`). A keypad that speaks for
    /// no blind player has nobody to tell: its reply says why.
    pub(super) fn refused(&mut self, seat: Option<Color>, error: ConsoleError) -> Reply {
        if let Some(reason) = self.keypad_refusal(seat) {
            return Reply::error(reason);
        }
        let config = self.arbiter.config();
        let Some(him) = seat.or(config.the_blind()).filter(|&c| config.is_blind(c)) else {
            return Reply::error(error.to_string());
        };
        let words = self.wording[him].pack().commands().clone();
        let (refusal, detail) = console::player_refusal(&error, &words, self.opponent.is_some());
        info!("refused at the blind player's keypad: {error}");
        self.tell_refusal(him, refusal, &detail, &error.to_string())
    }

    /// A refusal said to `seat`'s blind player (it cuts a long reply, as any key of his does)
    /// and printed in his words, `heard: detail`; the transcript notes `why`.
    pub(super) fn tell_refusal(
        &mut self,
        seat: Color,
        refusal: Refusal,
        detail: &str,
        why: &str,
    ) -> Reply {
        let said = Announcement::Refused(refusal);
        let heard = self.wording[seat].text(&said);
        let text = if detail.is_empty() {
            heard
        } else {
            format!("{heard}: {detail}")
        };
        let why = crate::speech::transcript::escape_controls(why).replace('\n', " ");
        self.notes.append(&files::note_line(&format!(
            "refused to the {} player (told him aloud): {why}",
            self.arbiter.config().names().player(seat)
        )));
        self.say_reply(seat, VecDeque::from([said]));
        Reply::error(text)
    }

    /// A reply to his keypad: an error that said nothing to him is said to him ("Jetzt nicht
    /// möglich") and printed after his words; anything else as it is.
    pub(super) fn refused_aloud(&mut self, seat: Color, reply: Reply) -> Reply {
        let End::Error(why) = &reply.end else {
            return reply;
        };
        let why = why.clone();
        let mut told = self.tell_refusal(seat, Refusal::NotNow, &why, &why);
        told.body = reply.body;
        told
    }

    /// His `help`: what he may do at this table, in his words (the training commands only in a
    /// training game); a command that is not his is refused aloud.
    pub(super) fn player_help(&mut self, me: Option<Color>, topic: Option<&'static str>) -> Reply {
        let config = self.arbiter.config();
        let Some(him) = me.filter(|&c| config.is_blind(c)) else {
            return Reply::ok(console::help_lines(Role::Player, topic));
        };
        let words = self.wording[him].pack().commands().clone();
        let training = self.opponent.is_some();
        match topic.and_then(console::table::lookup) {
            Some(spec) if !console::his_commands(training).any(|s| s.name == spec.name) => self
                .tell_refusal(
                    him,
                    Refusal::NotAllowed,
                    words.name(spec),
                    &format!("help {}: not a command of the player's", spec.name),
                ),
            spec => Reply::ok(console::player_help(&words, training, spec)),
        }
    }

    /// A request and its answer in the transcript and the journal: who asked, what was answered
    /// on the console, what was said to him.
    fn record_request(
        &mut self,
        request: &Request,
        by: AskedBy,
        seat: Color,
        answer: Vec<String>,
        said: &[Announcement],
    ) {
        let wording = &self.wording[seat];
        let record = RequestRecord {
            by,
            asked: request.line(),
            answer,
            said: said.iter().map(|a| wording.text(a)).collect(),
            // Named only where two blind players ask (one-blind journals stay as they were).
            seat: self
                .arbiter
                .config()
                .names()
                .both_blind()
                .then(|| ColorRecord::from(seat)),
        };
        // The note goes before the words said, as `tactus replay` writes them. Not shown to every
        // console: the reply carries the answer, and a flood of requests must not drown the
        // watching consoles in events.
        self.notes.append(&files::note_line(&record.note()));
        // Journalled like an input (never earlier than the last one), so that `tactus replay`
        // writes this note and the words as the transcript has them.
        let t = self.clock.now().max(self.last_t);
        self.last_t = t;
        if let Some(journal) = &mut self.journal
            && let Err(e) = journal.record(t, InputRecord::Request(record))
        {
            warn!("{e:#}");
        }
    }

    /// A request the arbiter has switched off (12.3 a): refused, and never in silence: the
    /// player who asked hears that the arbiter switched it off (his keypad, his board's button,
    /// his assistant's `tell`), the console that typed it reads why.
    fn switched_off(
        &mut self,
        request: &Request,
        off: Switchable,
        by: AskedBy,
        seat: Color,
        to_him: bool,
    ) -> Reply {
        let said = vec![Announcement::RequestSwitchedOff];
        let heard = self.wording[seat].text(&said[0]);
        let why = match by {
            // His keypad prints what his ear gets.
            AskedBy::Player | AskedBy::Button { .. } => format!("{heard} ({off}, 12.3 a)"),
            _ if to_him => {
                format!("'{off}' is switched off by the arbiter (12.3 a); said to him: {heard}")
            }
            _ => format!(
                "'{off}' is switched off by the arbiter (12.3 a); the arbiter's `requests {off} \
                 on` allows it again"
            ),
        };
        info!(request = off.name(), "request switched off: refused");
        let said = if to_him { said } else { Vec::new() };
        self.record_request(request, by, seat, vec![why.clone()], &said);
        if to_him {
            // Like any request of his, it cuts what is left of the last reply.
            self.say_reply(seat, said.into());
        }
        Reply::error(why)
    }

    /// `requests`: how the switchable requests stand; `requests material off`: the arbiter
    /// switches one (12.3 a), noted in the transcript and journaled, so that a resumed game keeps
    /// it.
    pub(super) fn switch_requests(
        &mut self,
        conn: u64,
        switch: Option<(Switchable, bool)>,
    ) -> Reply {
        let Some((request, on)) = switch else {
            return Reply::ok(vec![self.requests_line()]);
        };
        if self.requests_off.contains(&request) != on {
            return Reply::ok(vec![format!(
                "'{request}' is already {}; {}",
                if on { "on" } else { "off" },
                self.requests_line()
            )]);
        }
        if on {
            self.requests_off.remove(&request);
        } else {
            self.requests_off.insert(request);
        }
        let record = SwitchRecord {
            request: request.into(),
            on,
        };
        let t = self.clock.now().max(self.last_t);
        self.last_t = t;
        if let Some(journal) = &mut self.journal
            && let Err(e) = journal.record(t, InputRecord::Switch(record))
        {
            warn!("{e:#}");
        }
        self.note(record.note(), Some(conn));
        Reply::ok(vec![record.note(), self.requests_line()])
    }

    /// The switchable requests as they stand, for `status` and `requests`.
    pub(super) fn requests_line(&self) -> String {
        let states: Vec<String> = Switchable::ALL
            .iter()
            .map(|r| {
                let state = if self.requests_off.contains(r) {
                    "off"
                } else {
                    "on"
                };
                format!("{r} {state}")
            })
            .collect();
        format!(
            "requests {} (12.3 a: the arbiter's to switch)",
            states.join(", ")
        )
    }

    /// The parts of a reply to him from `parts` on: the first that speech takes is said, the
    /// rest wait for it (see `reply_part_done`); a part speech cannot take is in the
    /// transcript as not spoken, and the next goes at once.
    pub(super) fn say_reply(&mut self, seat: Color, mut parts: VecDeque<Announcement>) {
        self.reply[seat] = None;
        while let Some(part) = parts.pop_front() {
            if let Some(id) = self.say_own(Audience::Player(seat), part, false) {
                if !parts.is_empty() {
                    self.reply[seat] = Some((id, parts));
                }
                return;
            }
        }
    }

    /// `stop`: the reply being said to him is cut, unless something of the game is being said
    /// to him (a move, guidance: never cut; the rest of the reply is dropped all the same, and
    /// the part being said ends by itself).
    pub(super) fn silence_reply(&mut self, seat: Color) {
        let game_speaking = self.says.values().any(|(a, _)| a.includes(seat))
            || self.deferred.iter().any(|(_, a, _)| a.includes(seat));
        if game_speaking {
            return;
        }
        if let Some(tx) = &self.speech {
            let _ = tx.try_send(SpeechRequest::Stop {
                audience: Audience::Player(seat),
            });
        }
    }

    /// A reply's announcement has been said (or cut): the next part of the reply, if it was
    /// heard to the end.
    pub(super) fn reply_part_done(&mut self, id: u64, outcome: crate::speech::Outcome) {
        use crate::speech::Outcome;
        let Some(seat) = Color::ALL.into_iter().find(|&c| {
            self.reply[c]
                .as_ref()
                .is_some_and(|(playing, _)| *playing == id)
        }) else {
            return;
        };
        let goes_on = matches!(
            outcome,
            Outcome::Spoken | Outcome::Failed | Outcome::NoOutput
        );
        let rest = self.reply[seat]
            .take()
            .map(|(_, rest)| rest)
            .unwrap_or_default();
        if goes_on {
            self.say_reply(seat, rest);
        }
    }
}
