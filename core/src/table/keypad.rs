//! The blind player's keypad: nothing there is refused in silence. A line its session refused (a
//! word no command has, a command not his, arguments that do not read) is said to him, short, in
//! his voice, and his console prints it in his words (`Befehl unbekannt: asdf (hilfe)`); a
//! request that cannot be met now is said to be so ("Jetzt nicht möglich"); his `help` lists
//! what he may do at this table, in his pack's words. A keypad that speaks for nobody (a table
//! with two blind players, a keypad that named no seat) is told whose to name.

use std::collections::VecDeque;

use shakmaty::Color;

use super::{Table, TableEffect};
use crate::{
    announce::{Announcement, Audience, Refusal},
    commands::{self, Role, Spec, Words, lookup},
    console::{
        self, Action, Command, ConsoleError, Side,
        wire::{End, Reply},
    },
    rules::Millis,
};

/// How long a `resign` typed at his keypad waits to be typed again.
pub const RESIGN_CONFIRM_MS: Millis = 30_000;

/// A line of a player's keypad that its session refused, as much of it as telling him needs:
/// what kind of refusal he hears, what his console prints after it, and why (for the
/// transcript). Journaled as the table received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeypadRefusal {
    pub error: KeypadError,
    /// The session's reason, in words (the staff's transcript).
    pub why: String,
}

/// How a keypad's line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeypadError {
    /// No command has this word (none: a line of Braille cells).
    Unknown { word: Option<String> },
    /// A command of the assistant's or the arbiter's (`role`, `login` for changes of role).
    NotHis { command: String },
    /// A command of his whose arguments do not read (its usage is shown, in his words).
    BadEntry { command: Option<String> },
    /// The first line of a flood (a stuck key): refused for the pace, like every line after it.
    TooFast,
}

impl KeypadRefusal {
    /// What telling the player about `error` needs.
    pub fn of(error: &ConsoleError) -> KeypadRefusal {
        let error_kind = match error {
            ConsoleError::Unknown { word, .. } => KeypadError::Unknown {
                word: Some(word.clone()),
            },
            ConsoleError::BrailleLine => KeypadError::Unknown { word: None },
            ConsoleError::NotAllowed { command, .. } => KeypadError::NotHis {
                command: command.to_string(),
            },
            ConsoleError::RoleStays { .. } | ConsoleError::SeatStays { .. } => {
                KeypadError::NotHis {
                    command: "role".into(),
                }
            }
            ConsoleError::BadToken { .. } | ConsoleError::NoToken => KeypadError::NotHis {
                command: "login".into(),
            },
            ConsoleError::Usage { command, .. } | ConsoleError::Move { command, .. } => {
                KeypadError::BadEntry {
                    command: Some(command.to_string()),
                }
            }
            ConsoleError::TooFast { .. } => KeypadError::TooFast,
            _ => KeypadError::BadEntry { command: None },
        };
        KeypadRefusal {
            error: error_kind,
            why: error.to_string(),
        }
    }

    /// How the refusal is told to the blind player: what he hears, and what follows it on his
    /// console, in his words: the word he typed and the closest command of his (`asdf
    /// (hilfe)`, `zet (zeit?)`), the command that is not his, the usage of his command (`feld
    /// FELD`).
    fn told(&self, words: &Words, training: bool) -> (Refusal, String) {
        match &self.error {
            KeypadError::Unknown { word: None } => (Refusal::Unknown, String::new()),
            KeypadError::Unknown { word: Some(word) } => {
                let mine = |s: &Spec| commands::is_his(s) && (training || !console::is_training(s));
                let hint = match words.suggestion(word, mine) {
                    Some(closest) => format!("{closest}?"),
                    None => lookup("help").map_or("help", |h| words.name(h)).to_string(),
                };
                (Refusal::Unknown, format!("{word} ({hint})"))
            }
            KeypadError::NotHis { command } => (Refusal::NotAllowed, command.clone()),
            KeypadError::BadEntry { command: None } => (Refusal::BadEntry, String::new()),
            KeypadError::BadEntry {
                command: Some(command),
            } => {
                let usage = lookup(command).map_or_else(|| command.clone(), |s| words.usage(s));
                (Refusal::BadEntry, usage)
            }
            KeypadError::TooFast => (Refusal::TooFast, String::new()),
        }
    }
}

impl Table {
    /// Why a player's keypad cannot ask: at a table with two blind players it must say whose it
    /// is; a seat must be a blind player's.
    pub(super) fn keypad_refusal(&self, seat: Option<Color>) -> Option<String> {
        let names = self.arbiter.config().names();
        match seat {
            None if names.both_blind() => Some(
                "this keypad does not say whose it is; two blind players play here: `role player \
                 white` or `role player black` (tactus console --role player --seat white)"
                    .into(),
            ),
            Some(seat) if !names.is_blind(seat) => Some(format!(
                "{seat}'s player is sighted: his keypad has no requests (F.9 d is the blind \
                 player's)"
            )),
            _ => None,
        }
    }

    /// A line of his keypad its session refused: he hears why, short, in his voice, and his
    /// console prints it in his words. A keypad that speaks for no blind player has nobody to
    /// tell: its reply says why.
    pub(super) fn keypad_refused(
        &mut self,
        seat: Option<Color>,
        refusal: &KeypadRefusal,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        if let Some(reason) = self.keypad_refusal(seat) {
            return Reply::error(reason);
        }
        let config = self.arbiter.config();
        let Some(him) = seat.or(config.the_blind()).filter(|&c| config.is_blind(c)) else {
            return Reply::error(refusal.why.clone());
        };
        let words = self.wording[him].pack().commands().clone();
        let (told, detail) = refusal.told(&words, self.opponent.is_some());
        tracing::info!("refused at the blind player's keypad: {}", refusal.why);
        self.tell_refusal(him, told, &detail, &refusal.why, out)
    }

    /// A refusal said to `seat`'s blind player (it cuts a long reply, as any key of his does)
    /// and printed in his words, `heard: detail`; the transcript notes `why`.
    pub(super) fn tell_refusal(
        &mut self,
        seat: Color,
        refusal: Refusal,
        detail: &str,
        why: &str,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        let said = Announcement::Refused(refusal);
        let heard = self.wording[seat].text(&said);
        let text = if detail.is_empty() {
            heard
        } else {
            format!("{heard}: {detail}")
        };
        out.push(TableEffect::Transcript(format!(
            "refused to the {} player (told him aloud): {}",
            self.arbiter.config().names().player(seat),
            why.replace('\n', " ")
        )));
        // A new reply: what was left of the last one is dropped.
        self.say_reply(seat, VecDeque::from([said]), out);
        Reply::error(text)
    }

    /// A reply to his keypad: an error that said nothing to him is said to him ("Jetzt nicht
    /// möglich") and printed after his words; anything else as it is.
    pub(super) fn refused_aloud(
        &mut self,
        seat: Color,
        reply: Reply,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        let End::Error(why) = &reply.end else {
            return reply;
        };
        let why = why.clone();
        let mut told = self.tell_refusal(seat, Refusal::NotNow, &why, &why, out);
        told.body = reply.body;
        told
    }

    /// His `help`: what he may do at this table, in his words (the training commands only in a
    /// training game); a command that is not his is refused aloud.
    pub(super) fn player_help(
        &mut self,
        me: Option<Color>,
        topic: Option<&'static str>,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        let config = self.arbiter.config();
        let Some(him) = me.filter(|&c| config.is_blind(c)) else {
            return Reply::ok(console::help_lines(Role::Player, topic));
        };
        let words = self.wording[him].pack().commands().clone();
        let training = self.opponent.is_some();
        match topic.and_then(lookup) {
            Some(spec) if !console::his_commands(training).any(|s| s.name == spec.name) => self
                .tell_refusal(
                    him,
                    Refusal::NotAllowed,
                    words.name(spec),
                    &format!("help {}: not a command of the player's", spec.name),
                    out,
                ),
            spec => Reply::ok(console::player_help(&words, training, spec)),
        }
    }

    /// A request for a sighted player: F.9 d is the blind player's.
    pub(super) fn sighted_asks(seat: Color) -> Reply {
        Reply::error(format!(
            "{seat}'s player is sighted: the requests are the blind player's (F.9 d)"
        ))
    }

    /// `resign` at `me`'s own keypad (5.1 b: a player may resign at any time): the first asks
    /// him, aloud, to type it again; typed again within [`RESIGN_CONFIRM_MS`], with nothing else
    /// typed between, it resigns his game as the staff's `resign SIDE` does. A stray keystroke
    /// ends no game, and he never resigns his opponent's.
    pub(super) fn resign_at_keypad(
        &mut self,
        conn: u64,
        me: Option<Color>,
        side: Side,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        let Some(me) = me else {
            return Self::which_player();
        };
        if side.color(Some(me)).ok() != Some(me) {
            return Reply::error("at his keypad a player resigns his own game only: resign");
        }
        if self.arbiter.game().is_over() {
            return Reply::error("the game is over; nothing was done");
        }
        let asked = self.resigning[me].take();
        if asked.is_none_or(|at| now.saturating_sub(at) > RESIGN_CONFIRM_MS) {
            self.resigning[me] = Some(now);
            let words = self.wording[me].text(&Announcement::ResignAsked);
            self.say_own(Audience::Player(me), Announcement::ResignAsked, false, out);
            self.note(
                format!("{me} typed resign at his keypad; typed again, it resigns his game"),
                Some(conn),
                out,
            );
            return Reply::ok(vec![words]);
        }
        let command = Command::Game(Action::Resign(Side::Blind));
        self.game_command(conn, Role::Player, Some(me), &command, now, out)
    }

    /// At a table with two blind players a request from a console that speaks for neither must
    /// say whose it is.
    pub(super) fn which_player() -> Reply {
        Reply::error(
            "two blind players play here: whose request? Ask at his keypad (role player white), \
             or from his assistant's console (role assistant white)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal is told to him in his words: what he hears, and the word he typed or his usage.
    #[test]
    fn a_refusal_is_told_to_him_in_his_words() {
        use crate::console::{Session, parse_in};
        let de = crate::announce::voice::VoicePack::builtin("de-fide")
            .unwrap()
            .commands()
            .clone();
        let refusal = |line: &str| {
            let error = parse_in(line, Role::Player, &de).unwrap_err();
            KeypadRefusal::of(&error).told(&de, false)
        };
        assert_eq!(refusal("asdf"), (Refusal::Unknown, "asdf (hilfe)".into()));
        assert_eq!(refusal("zet"), (Refusal::Unknown, "zet (zeit?)".into()));
        assert_eq!(refusal("tme"), (Refusal::Unknown, "tme (zeit?)".into()));
        assert_eq!(refusal("press"), (Refusal::NotAllowed, "press".into()));
        assert_eq!(refusal("pr"), (Refusal::NotAllowed, "press".into()));
        assert_eq!(
            refusal("takeback 4"),
            (Refusal::NotAllowed, "takeback".into())
        );
        assert_eq!(refusal("feld x9"), (Refusal::BadEntry, "feld FELD".into()));
        assert_eq!(refusal("zeit jetzt"), (Refusal::BadEntry, "zeit".into()));
        assert_eq!(
            refusal("figuren"),
            (
                Refusal::BadEntry,
                "figuren [weiß|schwarz|meine|seine] [ART]".into()
            )
        );
        let role = Session::new(Role::Player, None)
            .parse("role assistant")
            .unwrap_err();
        assert_eq!(
            KeypadRefusal::of(&role).told(&de, false),
            (Refusal::NotAllowed, "role".into())
        );
        // A training command is no suggestion in a game against a person.
        assert_eq!(refusal("tip"), (Refusal::Unknown, "tip (hilfe)".into()));
        assert_eq!(
            KeypadRefusal::of(&parse_in("tip", Role::Player, &de).unwrap_err()).told(&de, true),
            (Refusal::Unknown, "tip (tipp?)".into())
        );
    }
}
