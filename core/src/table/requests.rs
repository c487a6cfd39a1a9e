//! A blind player's requests (F.9 d): a request from his keypad, his board's buttons or his
//! assistant's `tell` is answered on the console and said to him in his voice; the assistant's
//! and the arbiter's own questions are answered on their consoles only. The game does not
//! change; the transcript notes who asked what and what was answered ([`Asked`]). At a table
//! with two blind players each has his own requests, answered into his own ear and onto his own
//! keypad only.
//!
//! Also `repeat` (the last thing said to him about the game that still holds), `stop`, and the
//! requests the arbiter switches off ([`Requests`]: `material`, `pieces`, 12.3 a), refused aloud.

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use super::{Table, TableEffect};
use crate::{
    announce::Announcement,
    console::{
        self, Answer, Command, Request, Role, Switchable,
        wire::{End, Reply},
    },
    rules::{Millis, pgn::format_clk},
};

/// The requests the arbiter has switched off (12.3 a).
#[derive(Debug, Clone, Default)]
pub(super) struct Requests {
    off: BTreeSet<Switchable>,
}

impl Requests {
    pub(super) fn new(off: BTreeSet<Switchable>) -> Requests {
        Requests { off }
    }

    pub(super) fn off(&self) -> &BTreeSet<Switchable> {
        &self.off
    }

    /// The switchable requests as they stand, for `status` and `requests`.
    pub(super) fn line(&self) -> String {
        let states: Vec<String> = Switchable::ALL
            .iter()
            .map(|r| {
                let state = if self.off.contains(r) { "off" } else { "on" };
                format!("{r} {state}")
            })
            .collect();
        format!(
            "requests {} (12.3 a: the arbiter's to switch)",
            states.join(", ")
        )
    }
}

/// Who asked for a request (F.9 d: the blind player asks; his assistant passes the answer on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskedBy {
    /// The blind player's own keypad (the console in the player's role).
    Player,
    /// A button of his tactile board.
    Button { number: u8 },
    /// The assistant's console.
    Assistant,
    /// The arbiter's console.
    Arbiter,
}

impl AskedBy {
    /// Who asks, by the role of the console that typed the request.
    pub fn of(role: Role) -> AskedBy {
        match role {
            Role::Player => AskedBy::Player,
            Role::Assistant => AskedBy::Assistant,
            Role::Arbiter => AskedBy::Arbiter,
        }
    }
}

impl std::fmt::Display for AskedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AskedBy::Player => f.write_str("the blind player's keypad"),
            AskedBy::Button { number } => write!(f, "button {number} of the tactile board"),
            AskedBy::Assistant => f.write_str("the assistant"),
            AskedBy::Arbiter => f.write_str("the arbiter"),
        }
    }
}

/// One request and its answer, as the transcript notes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub by: AskedBy,
    /// The request as the player's role types it (`count`, `moves 4`, `square e4`).
    pub asked: String,
    /// The answer as printed on the console.
    pub answer: Vec<String>,
    /// What was said to the blind player, as his voice pack worded it; empty when the answer
    /// went to the console only (a request typed by the assistant or the arbiter without `tell`).
    pub said: Vec<String>,
    /// Whose request it is at a table with two blind players (none: the table's one blind
    /// player).
    pub seat: Option<Color>,
}

impl Asked {
    /// The transcript's note for the request: the same line in the daemon's transcript and in
    /// `tactus replay`'s.
    pub fn note(&self) -> String {
        let answer = if self.answer.is_empty() {
            "(no answer)".to_string()
        } else {
            self.answer.join("; ")
        };
        let whom = match (self.said.is_empty(), self.seat) {
            (true, _) => "answered on the console only".to_string(),
            (false, None) => "said to the blind player".to_string(),
            (false, Some(seat)) => format!("said to {seat}"),
        };
        let by = match self.seat {
            Some(seat) => format!("{} ({seat})", self.by),
            None => self.by.to_string(),
        };
        format!("request '{}' by {by}, {whom}: {answer}", self.asked)
    }
}

impl Table {
    /// A button of `seat`'s tactile board: its blind player's own request (F.9 d), as
    /// configured. What it answers is said to him and shown on his keypad and the staff's
    /// consoles only: at a table with two blind players, never on the other's.
    pub(super) fn button(&mut self, seat: Color, n: u8, now: Millis, out: &mut Vec<TableEffect>) {
        let names = self.arbiter.config().names();
        let views = self.his_views(seat);
        let Some(line) = self.settings.buttons[seat].get(&n).cloned() else {
            // Any key cuts a long reply, as his next request would; and every press gets an
            // answer: he hears that the button asks nothing.
            if self.cut_reply(seat) {
                self.silence_reply(seat, out);
            }
            let said = Announcement::ButtonUnassigned { number: n };
            // His Braille display shows what his ear gets.
            let heard = self.wording[seat].text(&said);
            self.broadcast(format!("button {n}: {heard}"), None, views, out);
            self.say_reply(seat, VecDeque::from([said]), out);
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
                out,
            );
            return;
        };
        // The configuration was checked when it was read: a button holds a request.
        let heard = self.said.told(seat);
        let reply = match console::parse(&line, Role::Player) {
            Ok(Command::Request(request)) => {
                tracing::info!(button = n, request = line, "button request");
                self.request(
                    &request,
                    AskedBy::Button { number: n },
                    seat,
                    true,
                    now,
                    out,
                )
            }
            // A training request (`hint`, `review` ...) from his board's keypad.
            Ok(Command::Training(request)) => {
                tracing::info!(button = n, request = line, "button training request");
                self.training(0, Role::Player, request, now, out)
            }
            _ => return,
        };
        // A request refused in silence (the engine's move, the game over) is said to be so.
        let reply = if heard == self.said.told(seat) {
            self.refused_aloud(seat, reply, out)
        } else {
            reply
        };
        let mut text = reply.body.join("; ");
        if let End::Error(error) = &reply.end {
            text = format!("{text} error: {error}");
        }
        self.broadcast(
            format!("button {n} ({line}): {}", text.trim()),
            None,
            views,
            out,
        );
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
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        if let Some(off) = Switchable::of(request).filter(|r| self.requests.off.contains(r))
            && by != AskedBy::Arbiter
        {
            return self.switched_off(request, off, by, seat, to_him, out);
        }
        let answer = console::answer(request, self.arbiter.game(), seat, now);
        let said = match &answer {
            Answer::RepeatLast => self.said.last_told(
                seat,
                self.arbiter.board_differs(seat),
                self.arbiter.game().ply(),
            ),
            other => other.announcements(),
        };
        // Printed in the words he hears, in his pack's language: a Braille display shows what
        // the ear hears.
        let wording = &self.wording[seat];
        let mut body: Vec<String> = said.iter().map(|a| wording.text(a)).collect();
        // The times in digits too, left on White's clock then Black's, as the words say them:
        // a Braille display reads "1:14:49" in 7 cells where the words take a line, and near
        // the end he wants the seconds at a glance. Printed, not said (nor noted as said).
        let digits = said.iter().find_map(|a| match a {
            Announcement::Times {
                white_left_ms,
                black_left_ms,
                ..
            } => Some(format!(
                "{} / {}",
                format_clk(*white_left_ms),
                format_clk(*black_left_ms)
            )),
            _ => None,
        });
        if body.is_empty() {
            body = match &answer {
                Answer::RepeatLast => vec!["nothing has been said yet".to_string()],
                other => console::format_reply(other),
            };
        }
        let said = if to_him { said } else { Vec::new() };
        self.record_request(request, by, seat, body.clone(), &said, out);
        if to_him {
            // A new request to him (or `stop`) cuts what is left of the last reply; the speech
            // queue replaces the part being said by the new reply.
            let cut = self.cut_reply(seat);
            if answer == Answer::Silence && cut {
                self.silence_reply(seat, out);
            }
            self.say_reply(seat, said.into(), out);
        }
        body.extend(digits);
        Reply::ok(body)
    }

    /// A request and its answer, for the transcript: who asked, what was answered on the
    /// console, what was said to him.
    fn record_request(
        &self,
        request: &Request,
        by: AskedBy,
        seat: Color,
        answer: Vec<String>,
        said: &[Announcement],
        out: &mut Vec<TableEffect>,
    ) {
        let wording = &self.wording[seat];
        out.push(TableEffect::Asked(Asked {
            by,
            asked: request.line(),
            answer,
            said: said.iter().map(|a| wording.text(a)).collect(),
            // Named only where two blind players ask.
            seat: self.arbiter.config().names().both_blind().then_some(seat),
        }));
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
        out: &mut Vec<TableEffect>,
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
        tracing::info!(request = off.name(), "request switched off: refused");
        let said = if to_him { said } else { Vec::new() };
        self.record_request(request, by, seat, vec![why.clone()], &said, out);
        if to_him {
            // Like any request of his, it cuts what is left of the last reply.
            self.say_reply(seat, said.into(), out);
        }
        Reply::error(why)
    }

    /// `requests`: how the switchable requests stand; `requests material off`: the arbiter
    /// switches one (12.3 a), noted in the transcript, so that a resumed game keeps it.
    pub(super) fn switch_requests(
        &mut self,
        conn: u64,
        switch: Option<(Switchable, bool)>,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        let Some((request, on)) = switch else {
            return Reply::ok(vec![self.requests.line()]);
        };
        if self.requests.off.contains(&request) != on {
            return Reply::ok(vec![format!(
                "'{request}' is already {}; {}",
                if on { "on" } else { "off" },
                self.requests.line()
            )]);
        }
        if on {
            self.requests.off.remove(&request);
        } else {
            self.requests.off.insert(request);
        }
        let note = switch_note(request, on);
        self.note(note.clone(), Some(conn), out);
        Reply::ok(vec![note, self.requests.line()])
    }
}

/// The transcript's note of the arbiter's switch of one request (12.3 a): the same line in the
/// daemon's transcript and in `tactus replay`'s.
pub fn switch_note(request: Switchable, on: bool) -> String {
    format!(
        "the arbiter switched the players' '{request}' request {} (12.3 a)",
        if on { "on" } else { "off" }
    )
}
