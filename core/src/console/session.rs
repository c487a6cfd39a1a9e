//! One console connection's state ([`Session`]): its role and seat, role switches and the
//! arbiter's login, a Braille scoresheet pasted line by line, and the words the blind players type
//! at their keypads ([`Keypads`]). The daemon keeps one per connection and hands it every line.

use shakmaty::Color;

use super::{
    Action, Command, ConsoleError, MAX_PASTE_BYTES, MAX_PASTE_LINES, Paste, Side, is_braille,
    parse, parse_in, token,
};
use crate::{
    announce::voice::KeypadWords,
    commands::{Role, Words},
    record::braille::BrailleFormat,
};

/// What the blind players of a table type at their keypads: each seat's words (his voice
/// pack's, [`Words`]), what each keypad shows that is not said ([`KeypadWords`]: the reply when
/// it takes his seat), and the seat a keypad that names none speaks for (the table's one blind
/// player). The default is English alone.
#[derive(Debug, Clone, Default)]
pub struct Keypads {
    pub words: shakmaty::ByColor<Words>,
    pub shown: shakmaty::ByColor<KeypadWords>,
    pub seatless: Option<Color>,
}

impl Keypads {
    /// The words of the player a keypad speaks for (`seat`: the seat it named), if it speaks
    /// for one.
    pub fn words(&self, seat: Option<Color>) -> Option<&Words> {
        seat.or(self.seatless).map(|c| &self.words[c])
    }
}

/// One console connection's state: its role. The daemon keeps one per connection and hands it
/// every line; role switches and logins are carried out here, so that the rules for them are
/// the same for every connection and tested without a socket.
///
/// `role` only lowers a connection's role: a console in the player's role (his keypad) stays in
/// it, so that a key pressed on it can never resign his game; only the arbiter's `login`, behind
/// a token, raises a role. The arbiter may step down to the assistant's or the player's role.
#[derive(Debug, Clone)]
pub struct Session {
    role: Role,
    /// The seat a player's keypad (or a player's assistant's console) speaks for (None: the
    /// table's one blind player).
    seat: Option<Color>,
    arbiter_token: Option<String>,
    /// A Braille scoresheet being pasted line by line: every line is part of it until `end`.
    paste: Option<Pasting>,
    /// What the players type in their languages (read in the player's role).
    keypads: std::sync::Arc<Keypads>,
}

/// A Braille scoresheet being pasted: whose, in which spelling, the lines so far.
#[derive(Debug, Clone)]
struct Pasting {
    side: Side,
    format: BrailleFormat,
    lines: Vec<String>,
    bytes: usize,
}

impl Session {
    /// A connection starting in `role`; `arbiter_token` is the token `login` must match (`None`:
    /// nobody can log in as the arbiter).
    pub fn new(role: Role, arbiter_token: Option<String>) -> Session {
        Session {
            role,
            seat: None,
            arbiter_token,
            paste: None,
            keypads: std::sync::Arc::default(),
        }
    }

    /// This session reading the player's role in the words of his language too.
    pub fn with_keypads(mut self, keypads: std::sync::Arc<Keypads>) -> Session {
        self.keypads = keypads;
        self
    }

    /// Whether a Braille scoresheet is being pasted: the next line is one of its lines (a blank
    /// one too), `end` or `cancel`.
    pub fn pasting(&self) -> bool {
        self.paste.is_some()
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// The seat this keypad speaks for, if it named one.
    pub fn seat(&self) -> Option<Color> {
        self.seat
    }

    /// In the player's role, the line his keypad shows on taking his seat, in his language
    /// ("Tastatur von Weiß: hilfe zeigt die Befehle"); None in another role, or for a keypad
    /// that speaks for nobody (no seat named, and no one blind player at the table).
    pub fn ready(&self) -> Option<String> {
        if self.role != Role::Player {
            return None;
        }
        let seat = self.seat.or(self.keypads.seatless)?;
        Some(self.keypads.shown[seat].ready(seat))
    }

    /// Parse a line in this session's role. `role` and a `login` whose token matches change
    /// the role (and are returned, for the reply); a wrong token changes nothing.
    ///
    /// `scoresheet SIDE braille` (or `brf`) without cells opens a paste: the lines that follow
    /// are the scoresheet's, as `blind-score.txt` or `blind-score.brf` holds them (a header, form
    /// feeds and blank lines included), until a line `end` (the sheet is then the command) or
    /// `cancel`.
    pub fn parse(&mut self, line: &str) -> Result<Command, ConsoleError> {
        if self.paste.is_some() {
            return self.paste_line(line);
        }
        let command = match self.keypads.words(self.seat) {
            Some(words) if self.role == Role::Player => parse_in(line, self.role, words)?,
            _ => parse(line, self.role)?,
        };
        if let Command::Game(Action::BrailleScoresheet { side, format, text }) = &command
            && text.is_empty()
        {
            self.paste = Some(Pasting {
                side: *side,
                format: *format,
                lines: Vec::new(),
                bytes: 0,
            });
            return Ok(Command::Paste(Paste::Opened {
                side: *side,
                format: *format,
            }));
        }
        match &command {
            Command::Role { role, .. } if *role > self.role => {
                return Err(ConsoleError::RoleStays { role: self.role });
            }
            // A player's keypad stays his: another seat is another player's.
            Command::Role {
                seat: Some(seat), ..
            } if self.role == Role::Player && self.seat.is_some_and(|s| s != *seat) => {
                return Err(ConsoleError::SeatStays {
                    seat: self.seat.unwrap_or(*seat),
                });
            }
            Command::Role { role, seat } => {
                // A keypad keeps its seat; an assistant's console takes the one it names.
                self.seat = match (self.role, *role) {
                    (Role::Player, Role::Player) => seat.or(self.seat),
                    _ => *seat,
                };
                self.role = *role;
            }
            Command::Login { token } => match &self.arbiter_token {
                None => return Err(ConsoleError::NoToken),
                Some(expected) if token::matches(expected, token) => self.role = Role::Arbiter,
                Some(_) => return Err(ConsoleError::BadToken { role: self.role }),
            },
            _ => {}
        }
        Ok(command)
    }

    /// A line of the scoresheet being pasted, `end` or `cancel`.
    fn paste_line(&mut self, line: &str) -> Result<Command, ConsoleError> {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        // Called only while pasting (see `parse`).
        let Some(paste) = &mut self.paste else {
            return Err(ConsoleError::Empty);
        };
        let word = line.trim();
        if word.eq_ignore_ascii_case("end") {
            let paste = self.paste.take().expect("pasting");
            return Ok(Command::Game(Action::BrailleScoresheet {
                side: paste.side,
                format: paste.format,
                text: paste.lines.join("\n"),
            }));
        }
        if word.eq_ignore_ascii_case("cancel") {
            self.paste = None;
            return Ok(Command::Paste(Paste::Dropped));
        }
        // A form feed is a page break of the file; other control characters are no text.
        if line
            .chars()
            .any(|c| c.is_control() && c != '\t' && c != '\u{c}')
        {
            return Err(ConsoleError::PasteLine {
                format: paste.format,
                problem: "the line holds control characters".into(),
            });
        }
        let stranger = line.chars().find(|&c| match paste.format {
            BrailleFormat::Unicode => !(is_braille(c) || c.is_whitespace()),
            BrailleFormat::Brf => !c.is_ascii(),
        });
        if let Some(c) = stranger {
            return Err(ConsoleError::PasteLine {
                format: paste.format,
                problem: format!("{c:?} is not a {} character", paste.format),
            });
        }
        paste.bytes += line.len() + 1;
        paste.lines.push(line.to_owned());
        if paste.lines.len() > MAX_PASTE_LINES || paste.bytes > MAX_PASTE_BYTES {
            self.paste = None;
            return Err(ConsoleError::PasteTooLong);
        }
        Ok(Command::Paste(if word.is_empty() {
            Paste::Blank
        } else {
            Paste::Line {
                lines: paste.lines.len(),
            }
        }))
    }
}
