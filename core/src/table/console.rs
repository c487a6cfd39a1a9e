//! A console command at the table, by the role of the console that typed it and the seat it
//! named: `status` is answered here, a request goes to its blind player's requests (F.9 d: from
//! his keypad it is said to him; typed by the assistant or the arbiter it is theirs, and reaches
//! his ear only through `tell`), a training request to the engine's seat, a switch of the
//! requests to the arbiter's (12.3 a), a game action to the arbiter as an input. Who may seal a
//! move is decided here (never his opponent's side), and at a blind player's keypad nothing is
//! refused in silence.

use shakmaty::{Color, Position};

use super::{Table, TableEffect};
use crate::{
    announce::count,
    arbiter::Input,
    console::{
        self, Action, Command, Role,
        wire::{End, Reply},
    },
    record::braille::BrailleFormat,
    rules::{Millis, game::Game, notation},
};

use super::requests::AskedBy;

impl Table {
    /// A console command the connection's role may use (checked there). `seat`: the seat a
    /// player's keypad or a player's assistant named.
    pub(super) fn console(
        &mut self,
        conn: u64,
        role: Role,
        seat: Option<Color>,
        command: Command,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        // Whom the console speaks for: the seat a keypad or a player's assistant named; at a
        // table with one blind player, he; with two and no seat, nobody (colours name them).
        let me = seat.or(self.arbiter.config().the_blind());
        if role == Role::Player
            && let Some(reason) = self.keypad_refusal(seat)
        {
            return Reply::error(reason);
        }
        let his_keypad = me.filter(|&c| role == Role::Player && self.arbiter.config().is_blind(c));
        // A `resign` waits to be typed again with nothing between.
        if let Some(him) = his_keypad
            && !matches!(command, Command::Game(Action::Resign(_)))
        {
            self.resigning[him] = None;
        }
        let heard = his_keypad.map(|c| self.said.told(c));
        // What a game or training command of his prints is what he heard, in his words; the
        // notes it made (the staff's, in English: "asked the engine", a clock set) are theirs.
        let in_his_words = matches!(command, Command::Game(_) | Command::Training(_));
        let start = out.len();
        let reply = match command {
            Command::Help(topic) if role == Role::Player => self.player_help(me, topic, out),
            command => self.console_command(conn, role, me, command, now, out),
        };
        match his_keypad {
            Some(him) if heard == Some(self.said.told(him)) && !matches!(reply.end, End::Ok(_)) => {
                self.refused_aloud(him, reply, out)
            }
            Some(him) if in_his_words && matches!(reply.end, End::Ok(_)) => Reply {
                body: said_to(him, &out[start..]),
                end: reply.end,
            },
            _ => reply,
        }
    }

    /// A console command, once the keypad's checks are done; `me`: whom it speaks for.
    fn console_command(
        &mut self,
        conn: u64,
        role: Role,
        me: Option<Color>,
        command: Command,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        let blind = |c: Color| self.arbiter.config().is_blind(c);
        match command {
            Command::Status => Reply::ok(self.status(now)),
            // F.9 d: his own keypad speaks to him; the assistant's or the arbiter's question is
            // theirs, and reaches his ear only when they pass it on with `tell`.
            Command::Request(request) => match me {
                Some(me) if blind(me) => self.request(
                    &request,
                    AskedBy::of(role),
                    me,
                    role == Role::Player,
                    now,
                    out,
                ),
                Some(me) => Self::sighted_asks(me),
                None => Self::which_player(),
            },
            Command::Tell(request) => match me {
                Some(me) if blind(me) => {
                    self.request(&request, AskedBy::of(role), me, true, now, out)
                }
                Some(me) => Self::sighted_asks(me),
                None => Self::which_player(),
            },
            Command::Training(request) => self.training(conn, role, request, now, out),
            Command::Requests(switch) => self.switch_requests(conn, switch, out),
            Command::Game(Action::Resign(side)) if role == Role::Player => {
                self.resign_at_keypad(conn, me, side, now, out)
            }
            Command::Game(_) => self.game_command(conn, role, me, &command, now, out),
            // The connection answers these itself.
            Command::Help(_)
            | Command::Quit
            | Command::Role { .. }
            | Command::Login { .. }
            | Command::Paste(_) => Reply::error("not a game command; nothing was done"),
        }
    }

    /// Who may type a sealed move: the sealer's own side, never his opponent's. A sighted
    /// player's sealed move is typed at the arbiter's console (the blind player's assistant, who
    /// would type it otherwise, is his opponent's); a blind player's at his assistant's console
    /// or the arbiter's.
    fn seal_refusal(&self, role: Role, me: Option<Color>) -> Option<String> {
        if role == Role::Arbiter {
            return None;
        }
        let config = self.arbiter.config();
        let names = config.names();
        let sealer = self.arbiter.game().to_move();
        if !config.is_blind(sealer) {
            return Some(format!(
                "not sealed: the {} player's sealed move is typed at the arbiter's console \
                 (`login`), not here, so that his opponent's side does not learn it \
                 (adjournment)",
                names.player(sealer)
            ));
        }
        (me != Some(sealer)).then(|| {
            format!(
                "not sealed: it is the {} player's move to seal; it is typed at his assistant's \
                 console (`role assistant {sealer}`) or the arbiter's, not here (adjournment)",
                names.player(sealer)
            )
        })
    }

    /// A game command typed at the console: the arbiter's input, or why it is none.
    pub(super) fn game_command(
        &mut self,
        conn: u64,
        role: Role,
        me: Option<Color>,
        command: &Command,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        if let Some(refused) = self.start_command(role, command, out) {
            return refused;
        }
        if let Command::Game(Action::Seal(_)) = command
            && let Some(refused) = self.seal_refusal(role, me)
        {
            return Reply::error(refused);
        }
        let claim = self.claim_in_his_notation(command, me);
        let command = claim.as_ref().unwrap_or(command);
        match console::to_input(command, self.arbiter.game(), me, &self.braille) {
            Err(e) => Reply::error(e.to_string()),
            Ok(None) => Reply::error("not a game command; nothing was done"),
            Ok(Some(input)) => {
                // Not the input itself: a sealed move stays secret, even in the log.
                tracing::info!(%role, "console input");
                // A Braille sheet: the arbiter sees the moves it was read as, in SAN, before
                // what the comparison says of them.
                let read = match (command, &input) {
                    (
                        Command::Game(Action::BrailleScoresheet { format, .. }),
                        Input::Scoresheet { side, sans },
                    ) => Some(braille_read(*side, *format, self.arbiter.game(), sans)),
                    _ => None,
                };
                let mut reply = self.apply(input, now, Some(conn), out).into_reply();
                reply.body.splice(0..0, read);
                reply
            }
        }
    }
}

/// The words said to `seat`'s player in `effects` that his keypad does not show as said
/// already (a reply's words), in order: printed once.
fn said_to(seat: Color, effects: &[TableEffect]) -> Vec<String> {
    let mut shown: Vec<&str> = effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Broadcast(b) if b.to.reach(Role::Player, Some(seat)) => {
                Some(b.text_for(Role::Player, Some(seat)))
            }
            _ => None,
        })
        .collect();
    effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Say { audience, text, .. } if audience.includes(seat) => {
                match shown.iter().position(|s| s == text) {
                    Some(i) => {
                        shown.remove(i);
                        None
                    }
                    None => Some(text.clone()),
                }
            }
            _ => None,
        })
        .collect()
}

/// How a Braille scoresheet entered at the console was read: `side`'s sheet in `format`, its
/// moves numbered from the game's start (`1. e4 e5 2. Nf3`).
fn braille_read(side: Color, format: BrailleFormat, game: &Game, sans: &[String]) -> String {
    let start = game.start_position();
    let mut number = start.fullmoves().get();
    let mut white = start.turn() == Color::White;
    let mut text = Vec::with_capacity(sans.len() * 2);
    for (i, san) in sans.iter().enumerate() {
        if white {
            text.push(format!("{number}. {san}"));
        } else {
            if i == 0 {
                text.push(format!("{number}... {san}"));
            } else {
                text.push(san.clone());
            }
            number += 1;
        }
        white = !white;
    }
    format!(
        "{side}'s scoresheet in {format} reads ({}): {}",
        count(sans.len(), "half-move", "half-moves"),
        text.join(" ")
    )
}

impl Table {
    /// A claim's intended move (9.2 a, 9.3 a) read as the claimant writes it: in his own
    /// notation first (a German player's `Sf3` is his knight's move), as his scoresheet and his
    /// sealed move are read; the command with that move in the console's letters, or `None` when
    /// his notation does not read it as one legal move (then it is read as typed, and refused
    /// with the console's reasons if it reads as none).
    fn claim_in_his_notation(&self, command: &Command, me: Option<Color>) -> Option<Command> {
        let Command::Game(Action::Claim {
            by,
            kind,
            intended: Some(text),
        }) = command
        else {
            return None;
        };
        let claimant = by.color(me).ok()?;
        let own = self.arbiter.config().seats[claimant].notation.as_ref()?;
        let position = self.arbiter.game().position();
        let intended = notation::read_sealed(position, text, Some(own)).ok()?;
        Some(Command::Game(Action::Claim {
            by: *by,
            kind: *kind,
            intended: Some(notation::san(position, intended)),
        }))
    }
}
