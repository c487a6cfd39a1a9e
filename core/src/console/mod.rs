//! The console language: what the blind player (through his keypad or his board's buttons), his
//! assistant (Appendix F.9) and the arbiter may say to a running game, and how it is answered.
//!
//! This module owns the command language ([`parse`], over the commands and roles of
//! [`crate::commands`]), what each role may do at a connection ([`Session`]), the mapping of
//! commands to the arbiter's inputs ([`to_input`]), the answers to the blind player's requests
//! computed from the game ([`answer()`], F.9 d: only when asked), their printed form
//! ([`format_reply`]), the arbiter's token check ([`token`]) and the line protocol of the console
//! socket ([`wire`]).
//!
//! Pure: no I/O, no clock, no randomness. Time comes in as an argument (the daemon's
//! [`Millis`](crate::rules::Millis)), the token's random bytes come from the caller. The
//! daemon's socket server owns the connections, `tactus console` (in `cli/`) is the client, and
//! the hub owns the game; this module only reads a line, says what it means and, for requests,
//! what the answer is.
//!
//! A line is refused as a whole, before anything is done: an unknown command, a command the
//! role may not use, or a bad argument gives a [`ConsoleError`] whose text says what was wrong
//! and how to write it instead. One command spans lines: a Braille scoresheet pasted whole
//! (`scoresheet SIDE braille`, its lines, `end`), which the [`Session`] gathers; it is read into
//! moves with the table's Braille profile, which the caller passes to [`to_input`].
//!
//! The blind player types in his voice pack's language as well ([`Words`], given to the
//! [`Session`] as [`Keypads`]): his words are read as the table's English ones ([`parse_in`]).
//! His `help` ([`player_help`]) lists only what he may do, in his words, and a refusal is told to
//! him in his words and voice ([`player_refusal`]: what he hears, what his console prints).

pub mod answer;
mod parse;
#[cfg(test)]
mod tests;
pub mod token;
pub mod wire;

use shakmaty::{Color, File, KnownOutcome, Rank, Square};

use crate::rules::ClockMillis;
use crate::{
    commands,
    announce::Refusal,
    arbiter::Input,
    record::braille::{BrailleFormat, Profile as BrailleProfile, ReadError, read_score},
    rules::{
        game::{self, DrawClaim, Game, QuickplayRuling},
        notation::{self, MatchError},
    },
};

pub use answer::{Answer, answer, format_announcement, format_reply};
pub use parse::{parse, parse_in};
pub use crate::commands::{COMMANDS, CommandEntry, Role, Spec, Words};
/// The command table's old path (`console::table`), for the hub until its rewrite (issue 36):
/// new code names [`crate::commands`].
#[doc(hidden)]
pub use crate::commands as table;

/// Longest line the console reads, in bytes (without the line end); a longer one is refused.
pub const MAX_LINE: usize = 4096;
/// Most lines a Braille scoresheet pasted line by line may have: a long game's `blind-score.txt`
/// (25-line pages, a header) with room to spare.
pub const MAX_PASTE_LINES: usize = 2000;
/// Most bytes a pasted Braille scoresheet may have in all (a Unicode Braille cell is 3 bytes).
pub const MAX_PASTE_BYTES: usize = 256 * 1024;

/// A player named at the console: by colour, or by his place at the table (resolved with the
/// blind player's colour, which only the daemon knows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    White,
    Black,
    /// The blind player ("mine" at his keypad).
    Blind,
    /// The sighted player ("his").
    Sighted,
}

impl Side {
    /// The colour meant, where `me` is the blind player this console speaks for (at a table with
    /// one blind player, he; at a player's keypad, its seat; none: the console speaks for
    /// neither of two blind players, who are named by colour).
    pub fn color(self, me: Option<Color>) -> Result<Color, ConsoleError> {
        match (self, me) {
            (Side::White, _) => Ok(Color::White),
            (Side::Black, _) => Ok(Color::Black),
            (Side::Blind, Some(c)) => Ok(c),
            (Side::Sighted, Some(c)) => Ok(!c),
            (Side::Blind, None) => Err(ConsoleError::WhichPlayer { word: "blind" }),
            (Side::Sighted, None) => Err(ConsoleError::WhichPlayer { word: "sighted" }),
        }
    }
}

/// A rank, a file or a diagonal, scanned in a fixed order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Line {
    /// From the a-file to the h-file.
    Rank(Rank),
    /// From the first rank to the eighth.
    File(File),
    /// From `from` to `to`, both included; they share a diagonal (checked by the parser).
    Diagonal { from: Square, to: Square },
}

impl Line {
    /// The squares of the line, in scan order.
    pub fn squares(self) -> Vec<Square> {
        match self {
            Line::Rank(rank) => File::ALL
                .iter()
                .map(|&f| Square::from_coords(f, rank))
                .collect(),
            Line::File(file) => Rank::ALL
                .iter()
                .map(|&r| Square::from_coords(file, r))
                .collect(),
            Line::Diagonal { from, to } => {
                let step_file = (to.file() - from.file()).signum();
                let step_rank = (to.rank() - from.rank()).signum();
                let mut out = vec![from];
                let mut at = from;
                while at != to {
                    // The parser only builds diagonals whose ends share one, so each step stays
                    // on the board; stop rather than loop should that ever not hold.
                    match at.offset(step_rank * 8 + step_file) {
                        Some(next) if next.distance(at) == 1 => {
                            at = next;
                            out.push(at);
                        }
                        _ => break,
                    }
                }
                out
            }
        }
    }
}

/// A request of the blind player (F.9 d), answered from the game by [`answer()`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// How many moves each player has completed.
    MovesCompleted,
    /// Time used and left, both players.
    Times,
    LastMove,
    /// The last N moves; `None`: the whole game.
    Moves(Option<usize>),
    ToMove,
    Square(Square),
    Line(Line),
    /// Where the pieces stand: of one colour, of one kind, or one kind of one colour (at least
    /// one of the two is given).
    Pieces {
        side: Option<Side>,
        kind: Option<shakmaty::Role>,
    },
    Material,
    /// Say the last announcement again (the daemon remembers what was said).
    Repeat,
    /// Stop the reply being said to him (a game read back is long); the game's own
    /// announcements are never cut.
    Stop,
}

impl Request {
    /// The request as a console line that reads back as the same request (for the journal and
    /// the transcript, which record what was asked in the words the player's role types).
    pub fn line(&self) -> String {
        let side = |side: &Side| match side {
            Side::White => "white",
            Side::Black => "black",
            Side::Blind => "mine",
            Side::Sighted => "his",
        };
        match self {
            Request::MovesCompleted => "count".into(),
            Request::Times => "time".into(),
            Request::LastMove => "last".into(),
            Request::Moves(None) => "moves all".into(),
            Request::Moves(Some(n)) => format!("moves {n}"),
            Request::ToMove => "turn".into(),
            Request::Square(square) => format!("square {square}"),
            Request::Line(Line::Rank(rank)) => format!("rank {}", rank.char()),
            Request::Line(Line::File(file)) => format!("file {}", file.char()),
            Request::Line(Line::Diagonal { from, to }) => format!("diagonal {from} {to}"),
            Request::Pieces { side: s, kind } => {
                let mut words = vec!["pieces".to_string()];
                words.extend(s.as_ref().map(|s| side(s).to_string()));
                words.extend(kind.map(|k| k.char().to_string()));
                words.join(" ")
            }
            Request::Material => "material".into(),
            Request::Repeat => "repeat".into(),
            Request::Stop => "stop".into(),
        }
    }
}

/// A request of the blind player that the arbiter may switch off. F.9 d gives him the count of
/// moves and the times; where the pieces stand and the material are more, and 12.3 a ("notes,
/// sources of information") leaves it to the arbiter whether a player may ask for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Switchable {
    /// `material`.
    Material,
    /// `pieces ...`.
    Pieces,
}

impl Switchable {
    pub const ALL: [Switchable; 2] = [Switchable::Material, Switchable::Pieces];

    /// The request's command name, as the console, `config.toml` and the journal write it.
    pub fn name(self) -> &'static str {
        match self {
            Switchable::Material => "material",
            Switchable::Pieces => "pieces",
        }
    }

    /// The switch `request` is under, if any.
    pub fn of(request: &Request) -> Option<Switchable> {
        match request {
            Request::Material => Some(Switchable::Material),
            Request::Pieces { .. } => Some(Switchable::Pieces),
            _ => None,
        }
    }

    /// The names, for messages: `material or pieces`.
    pub fn names() -> String {
        Switchable::ALL.map(Switchable::name).join(" or ")
    }
}

impl std::fmt::Display for Switchable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Switchable {
    type Err = String;
    fn from_str(s: &str) -> Result<Switchable, String> {
        Switchable::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "'{s}' is not a request the arbiter can switch off: {}",
                    Switchable::names()
                )
            })
    }
}

/// The draw claims of 9.2 and 9.3, before the intended move is read in the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClaimKind {
    /// 9.2: the same position for the third time.
    Repetition,
    /// 9.3: fifty moves without a capture or a pawn move.
    FiftyMoves,
}

/// The time penalties of Art. 13.4 (b and c).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Penalty {
    /// 13.4 b: time added to the offender's opponent.
    Bonus,
    /// 13.4 c: time taken from the offender.
    Deduct,
}

/// Something done to the game by the assistant or the arbiter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    // The assistant's.
    /// Play starts: the clocks run. `anyway`: even though a board does not show the position
    /// yet (a sensor that cannot be mended before the round).
    Start {
        anyway: bool,
    },
    /// He presses the clock for the sighted player.
    Press,
    /// The sighted player's move, as typed (the arbiter reads it in the position).
    Move(String),
    /// F.6: the right move after a wrong announcement.
    Correct(String),
    Promote(shakmaty::Role),
    Offer(Side),
    Accept(Side),
    Decline(Side),
    Resign(Side),
    Claim {
        by: Side,
        kind: ClaimKind,
        /// The move he intends to make ("a" forms), as typed.
        intended: Option<String>,
    },
    /// Blitz (Appendix C): `by` claims the win after his opponent's illegal move, before he
    /// moves himself.
    ClaimIllegal(Side),
    /// `by` claims that the opponent's flag has fallen.
    Flag(Side),
    /// 10.2.
    Quickplay(Side),
    Touch {
        by: Side,
        square: Square,
    },
    /// 4.2, j'adoube: the piece is adjusted, not touched.
    Adjust {
        by: Side,
        square: Square,
    },
    /// The sealed move, as written: never read here, since an illegal or ambiguous sealed move
    /// is only judged at resumption (and loses).
    Seal(String),
    // The arbiter's.
    /// The date, time and venue of resumption, for the envelope.
    Resumption(String),
    /// Resumption: open the envelope; `absent`: the replier is not here, his clock starts and
    /// the envelope stays closed.
    Open {
        absent: bool,
    },
    Pause,
    Resume,
    SetClock {
        side: Side,
        remaining_ms: ClockMillis,
    },
    AddTime {
        side: Side,
        delta_ms: ClockMillis,
    },
    SetMoves {
        side: Side,
        moves: u32,
    },
    Rule(QuickplayRuling),
    Illegal(Side),
    Scoresheet {
        side: Side,
        sans: Vec<String>,
    },
    /// A player's own scoresheet in Braille, as typed or pasted (the blind player's
    /// `blind-score.txt` in Unicode Braille, or its BRF): read into moves with the table's
    /// Braille profile from the game's start position ([`to_input`]), then compared as a written
    /// sheet is. Empty `text`: the lines follow, pasted one by one ([`Session`]).
    BrailleScoresheet {
        side: Side,
        format: BrailleFormat,
        text: String,
    },
    ConfirmClocks,
    Confirm,
    Cancel,
    Undo,
    TakeBack {
        to_ply: usize,
    },
    Result(KnownOutcome),
    Penalty {
        offender: Side,
        penalty: Penalty,
        ms: i64,
    },
}

/// One parsed console line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A request of the blind player (F.9 d). From his keypad or his board's buttons it is said
    /// to him; typed by the assistant or the arbiter it is answered on their console only.
    Request(Request),
    /// `tell REQUEST`: the blind player asked his assistant, who passes the answer on: it is said
    /// to the blind player (F.9 d, at his request) and printed.
    Tell(Request),
    Game(Action),
    /// `status`: printed by the daemon, which knows the boards and the connections.
    Status,
    /// `help`, or `help COMMAND` (the command's long name).
    Help(Option<&'static str>),
    Quit,
    /// Switch to the player's or the assistant's commands (never the arbiter's: see `Login`); at
    /// a table with two blind players a keypad, or a player's assistant, names his seat (`role
    /// player white`, `role assistant black`).
    Role {
        role: Role,
        seat: Option<Color>,
    },
    /// Become the arbiter; [`Session::parse`] checks the token.
    Login {
        token: String,
    },
    /// A request of a training game against an engine (refused in a game against a person).
    Training(Training),
    /// A line of a Braille scoresheet being pasted (`scoresheet SIDE braille`, the lines,
    /// `end`): kept by the [`Session`], answered by the connection.
    Paste(Paste),
    /// `requests`: which requests the players may make (12.3 a); with a switch, the arbiter
    /// switches `request` on or off.
    Requests(Option<(Switchable, bool)>),
}

/// What a line did to a Braille scoresheet being pasted line by line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paste {
    /// `scoresheet SIDE braille|brf` with no cells: the lines follow, then `end`.
    Opened { side: Side, format: BrailleFormat },
    /// A line kept: the `lines`-th.
    Line { lines: usize },
    /// A blank line kept (it gets no reply, as a blank line never does).
    Blank,
    /// `cancel`: the pasted lines are dropped, nothing is compared.
    Dropped,
}

/// What the blind player may ask in a training game: the engine's help, and his move back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Training {
    /// The engine's best move for him, said in the FIDE words.
    Hint,
    /// How the position stands, in words.
    Eval,
    /// His last move and the engine's reply taken back; both boards guided back.
    TakeBack,
    /// After the game: the next move where he lost material or missed a mate, with what the
    /// engine preferred.
    Review,
    /// A break at home (the doorbell): the clocks stop, or run again. Nobody else is there to
    /// type the arbiter's `pause`.
    Break,
}

/// Why a line was refused. Nothing was done; the text says what to type instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConsoleError {
    #[error("empty line; type help for the commands")]
    Empty,
    /// `role` only lowers a console's role: the player's keypad stays the player's.
    #[error(
        "this console is in the {role} role and stays in it (the blind player's keypad cannot \
         become the assistant's); only the arbiter's login raises it: login TOKEN"
    )]
    RoleStays { role: Role },
    /// A player's keypad speaks for one seat.
    #[error("this keypad is {seat}'s and stays his; the other player has his own")]
    SeatStays { seat: Color },
    /// "blind" or "sighted" where two blind players sit, or "sighted" where none does.
    #[error("'{word}' names nobody at this table: say white or black")]
    WhichPlayer { word: &'static str },
    #[error(
        "the line is {len} bytes long, more than the {max} a command may have; nothing was done"
    )]
    TooLong { len: usize, max: usize },
    #[error("the line holds control characters (binary data?); nothing was done")]
    ControlCharacters,
    #[error("unknown command '{word}'; {}", match suggestion {
        Some(s) => format!("did you mean '{s}'?"),
        None => "type help for the commands".to_string(),
    })]
    Unknown {
        word: String,
        suggestion: Option<&'static str>,
    },
    #[error("'{command}' is {}; this console is in the {role} role{}", needs_words(*needs), how_to_become(*needs))]
    NotAllowed {
        command: &'static str,
        role: Role,
        needs: Role,
    },
    #[error("{command}: {problem}; write: {usage}")]
    Usage {
        command: &'static str,
        problem: String,
        usage: String,
    },
    #[error("wrong arbiter token; this console stays in the {role} role")]
    BadToken { role: Role },
    #[error("no arbiter token is set up for this game, so nobody can log in as the arbiter")]
    NoToken,
    #[error("{command}: {error}")]
    Move {
        command: &'static str,
        error: MatchError,
    },
    /// A line of Braille cells where a command was expected: a scoresheet's second line pasted
    /// without `scoresheet SIDE braille` before it.
    #[error(
        "a line of Braille cells is not a command; to enter a Braille scoresheet of one line \
         type `scoresheet SIDE` and the cells; for several lines type `scoresheet SIDE braille` \
         (or `brf`), paste the lines, then `end`"
    )]
    BrailleLine,
    /// A Braille scoresheet that does not read: which page, line, cells and move, and why.
    #[error(
        "scoresheet: {side}'s scoresheet in {format} does not read with the '{profile}' Braille \
         profile ([record] braille_profile): {error}; nothing was compared"
    )]
    BrailleSheet {
        side: Color,
        format: BrailleFormat,
        profile: String,
        /// Boxed: the refusals of every other command stay small.
        error: Box<ReadError>,
    },
    /// A Braille scoresheet with no move in it (a header only, or nothing pasted).
    #[error(
        "scoresheet: {side}'s scoresheet in {format} holds no move (a header alone, or nothing \
         pasted); nothing was compared"
    )]
    EmptyBrailleSheet { side: Color, format: BrailleFormat },
    /// A pasted line that cannot be part of the Braille scoresheet; the paste goes on.
    #[error(
        "{problem}; the line is not kept: the {format} scoresheet is still being pasted (`end` \
         compares it, `cancel` drops it)"
    )]
    PasteLine {
        format: BrailleFormat,
        problem: String,
    },
    /// A paste beyond [`MAX_PASTE_LINES`] or [`MAX_PASTE_BYTES`]: dropped.
    #[error(
        "the pasted scoresheet is longer than {MAX_PASTE_LINES} lines or {} KiB; it is dropped \
         and nothing was compared",
        MAX_PASTE_BYTES / 1024
    )]
    PasteTooLong,
}

fn needs_words(needs: Role) -> &'static str {
    match needs {
        Role::Player => "for every role",
        Role::Assistant => "for the assistant and the arbiter",
        Role::Arbiter => "for the arbiter only",
    }
}

fn how_to_become(needs: Role) -> &'static str {
    match needs {
        Role::Player => "",
        Role::Assistant => " (type it at the assistant's console: a keypad stays the player's)",
        Role::Arbiter => " (log in with: login TOKEN, the token from the arbiter's token file)",
    }
}

/// What the blind players of a table type at their keypads: each seat's words (his voice
/// pack's, [`Words`]), and the seat a keypad that names none speaks for (the table's one blind
/// player). The default is English alone.
#[derive(Debug, Clone, Default)]
pub struct Keypads {
    pub words: shakmaty::ByColor<Words>,
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

/// A Unicode Braille pattern (U+2800 to U+28FF; tactus's cells are the six-dot ones).
pub fn is_braille(c: char) -> bool {
    ('\u{2800}'..='\u{28ff}').contains(&c)
}

/// The moves of a Braille scoresheet, read with `profile` from the game's start position; the
/// SAN of each, as a written sheet's entries are compared.
fn braille_sheet(
    side: Color,
    format: BrailleFormat,
    text: &str,
    game: &Game,
    profile: &BrailleProfile,
) -> Result<Vec<String>, ConsoleError> {
    let score = read_score(
        text.as_bytes(),
        format,
        profile,
        game.start_position().clone(),
    )
    .map_err(|error| ConsoleError::BrailleSheet {
        side,
        format,
        profile: profile.name.clone(),
        error: Box::new(error),
    })?;
    if score.moves.is_empty() {
        return Err(ConsoleError::EmptyBrailleSheet { side, format });
    }
    Ok(score.sans())
}

/// The names of the blind player's requests (F.9 d), in the order of [`COMMANDS`]: the commands
/// of his role whose example line is a request (not `help`, `quit`, `role`).
pub fn request_names() -> Vec<&'static str> {
    COMMANDS
        .iter()
        .filter(|spec| spec.role == Role::Player)
        .filter(|spec| matches!(parse(spec.example, Role::Player), Ok(Command::Request(_))))
        .map(|spec| spec.name)
        .collect()
}

/// The arbiter's input a command is, read in the game's position where it names a move.
///
/// `Ok(None)` for commands that are not inputs to the game: requests (answered by [`answer()`]),
/// `help`, `status`, `quit` and role changes. `Err` when the intended move of a claim is not one
/// legal move, or a Braille scoresheet does not read with `braille`, the table's Braille profile.
pub fn to_input(
    command: &Command,
    game: &Game,
    me: Option<Color>,
    braille: &BrailleProfile,
) -> Result<Option<Input>, ConsoleError> {
    let Command::Game(action) = command else {
        return Ok(None);
    };
    let rules = |input: game::Input| Ok(Some(Input::Rules(input)));
    let c = |side: &Side| side.color(me);
    match action {
        Action::Start { .. } => Ok(Some(Input::Start)),
        Action::Press => Ok(Some(Input::ClockPress)),
        Action::Move(text) => Ok(Some(Input::EnterMove(text.clone()))),
        Action::Correct(text) => Ok(Some(Input::Correct(text.clone()))),
        Action::Promote(role) => Ok(Some(Input::Promote(*role))),
        Action::Offer(by) => rules(game::Input::OfferDraw { by: c(by)? }),
        Action::Accept(by) => rules(game::Input::AcceptDraw { by: c(by)? }),
        Action::Decline(by) => rules(game::Input::DeclineDraw { by: c(by)? }),
        Action::Resign(by) => rules(game::Input::Resign { by: c(by)? }),
        Action::Claim { by, kind, intended } => {
            let intended = match intended {
                None => None,
                Some(text) => Some(notation::match_move(game.position(), text).map_err(
                    |error| ConsoleError::Move {
                        command: "claim",
                        error,
                    },
                )?),
            };
            let claim = match kind {
                ClaimKind::Repetition => DrawClaim::Repetition { intended },
                ClaimKind::FiftyMoves => DrawClaim::FiftyMoves { intended },
            };
            rules(game::Input::Claim { by: c(by)?, claim })
        }
        Action::ClaimIllegal(by) => rules(game::Input::ClaimIllegalMove { by: c(by)? }),
        Action::Flag(by) => rules(game::Input::ClaimFlag { by: c(by)? }),
        Action::Quickplay(by) => rules(game::Input::ClaimQuickplayDraw { by: c(by)? }),
        Action::Touch { by, square } => rules(game::Input::Touch {
            by: c(by)?,
            square: *square,
        }),
        Action::Adjust { by, square } => Ok(Some(Input::Adjust {
            by: c(by)?,
            square: *square,
        })),
        // The player having the move seals it, in his own notation (the arbiter knows it).
        Action::Seal(text) => rules(game::Input::Seal {
            by: game.to_move(),
            text: text.clone(),
            notation: None,
        }),
        Action::Resumption(text) => rules(game::Input::SetResumption { text: text.clone() }),
        Action::Open { absent: false } => rules(game::Input::OpenEnvelope),
        Action::Open { absent: true } => rules(game::Input::StartReplierClock),
        Action::Pause => rules(game::Input::Pause(game::PauseReason::Arbiter)),
        Action::Resume => rules(game::Input::Resume(game::PauseReason::Arbiter)),
        Action::SetClock { side, remaining_ms } => rules(game::Input::SetClock {
            side: c(side)?,
            remaining_ms: *remaining_ms,
        }),
        Action::AddTime { side, delta_ms } => rules(game::Input::AdjustClock {
            side: c(side)?,
            delta_ms: *delta_ms,
        }),
        Action::SetMoves { side, moves } => rules(game::Input::SetMoveCounter {
            side: c(side)?,
            moves: *moves,
        }),
        Action::Rule(ruling) => rules(game::Input::QuickplayRuling(*ruling)),
        // Penalties are offered to the arbiter before they apply.
        Action::Illegal(by) => Ok(Some(Input::Penalty(game::Input::IllegalMove {
            by: c(by)?,
        }))),
        Action::Scoresheet { side, sans } => Ok(Some(Input::Scoresheet {
            side: c(side)?,
            sans: sans.clone(),
        })),
        Action::BrailleScoresheet { side, format, text } => {
            let side = c(side)?;
            Ok(Some(Input::Scoresheet {
                side,
                sans: braille_sheet(side, *format, text, game, braille)?,
            }))
        }
        Action::ConfirmClocks => Ok(Some(Input::ConfirmClocks)),
        Action::Confirm => Ok(Some(Input::Confirm)),
        Action::Cancel => Ok(Some(Input::Cancel)),
        Action::Undo => Ok(Some(Input::Undo)),
        Action::TakeBack { to_ply } => rules(game::Input::Retract { to_ply: *to_ply }),
        Action::Result(outcome) => rules(game::Input::ArbiterResult { outcome: *outcome }),
        Action::Penalty {
            offender,
            penalty,
            ms,
        } => {
            let offender = c(offender)?;
            Ok(Some(Input::Penalty(match penalty {
                Penalty::Bonus => game::Input::AdjustClock {
                    side: !offender,
                    delta_ms: *ms,
                },
                Penalty::Deduct => game::Input::AdjustClock {
                    side: offender,
                    delta_ms: -*ms,
                },
            })))
        }
    }
}

/// Whether a command is a training game's (refused in a game against a person).
pub fn is_training(spec: &Spec) -> bool {
    matches!(parse(spec.example, Role::Player), Ok(Command::Training(_)))
}

/// The blind player's own commands at his table ([`commands::is_his`]), in the order of
/// [`COMMANDS`]; the training ones only in a training game.
pub fn his_commands(training: bool) -> impl Iterator<Item = &'static Spec> {
    COMMANDS
        .iter()
        .filter(move |s| commands::is_his(s) && (training || !is_training(s)))
}

/// The blind player's `help`, in his words: one line per command he may use at this table
/// (`zug (letzter): der letzte Zug`), or, with a topic, that command's line. Not the staff's
/// setup of his keypad, nor the training commands in a game against a person: what he is
/// shown, he may do.
pub fn player_help(words: &Words, training: bool, topic: Option<&Spec>) -> Vec<String> {
    let line = |spec: &Spec| {
        let others = match words.local(spec) {
            Some(local) if !local.words.is_empty() => local.words[1..].join(", "),
            _ => spec.alias.to_string(),
        };
        if others.is_empty() {
            format!("{}: {}", words.usage(spec), words.what(spec))
        } else {
            format!("{} ({others}): {}", words.usage(spec), words.what(spec))
        }
    };
    match topic {
        Some(spec) => vec![line(spec)],
        None => his_commands(training).map(line).collect(),
    }
}

/// How a refusal is told to the blind player: what he hears (in his voice: a keypad without
/// a display is never met with silence), and what follows it on his console, in his words:
/// the word he typed and the closest command of his (`asdf (hilfe)`, `zet (zeit?)`), the command
/// that is not his, the usage of his command (`feld FELD`).
pub fn player_refusal(error: &ConsoleError, words: &Words, training: bool) -> (Refusal, String) {
    let usage = |command: &str| {
        commands::lookup(command).map_or_else(|| command.to_string(), |spec| words.usage(spec))
    };
    match error {
        ConsoleError::Unknown { word, .. } => {
            let mine = |s: &Spec| commands::is_his(s) && (training || !is_training(s));
            let hint = match words.suggestion(word, mine) {
                Some(closest) => format!("{closest}?"),
                None => commands::lookup("help")
                    .map_or("help", |h| words.name(h))
                    .to_string(),
            };
            (Refusal::Unknown, format!("{word} ({hint})"))
        }
        ConsoleError::BrailleLine => (Refusal::Unknown, String::new()),
        ConsoleError::NotAllowed { command, .. } => (Refusal::NotAllowed, command.to_string()),
        ConsoleError::RoleStays { .. } | ConsoleError::SeatStays { .. } => {
            (Refusal::NotAllowed, "role".to_string())
        }
        ConsoleError::BadToken { .. } | ConsoleError::NoToken => {
            (Refusal::NotAllowed, "login".to_string())
        }
        ConsoleError::Usage { command, .. } | ConsoleError::Move { command, .. } => {
            (Refusal::BadEntry, usage(command))
        }
        _ => (Refusal::BadEntry, String::new()),
    }
}

/// The `help` text for a role: one line per command it may use (`name (alias) ARGS: what`), or
/// the usage and an example of one command.
pub fn help_lines(role: Role, topic: Option<&str>) -> Vec<String> {
    if let Some(spec) = topic.and_then(commands::lookup) {
        let mut lines = vec![
            format!("{} (alias {}): {}", spec.usage(), spec.alias, spec.what),
            format!("example: {}", spec.example),
        ];
        if spec.role > role {
            lines.push(format!(
                "this console is in the {role} role; '{}' is {}",
                spec.name,
                needs_words(spec.role)
            ));
        }
        return lines;
    }
    let mut lines = vec![format!(
        "commands for the {role} role (help COMMAND shows one; SIDE is white, black, blind or sighted):"
    )];
    lines.extend(
        COMMANDS
            .iter()
            .filter(|s| s.role <= role)
            .map(|s| format!("{} ({}): {}", s.usage(), s.alias, s.what)),
    );
    lines
}
