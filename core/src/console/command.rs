//! The values a console line means: a [`Command`], and what it asks ([`Request`], F.9 d) or
//! does to the game ([`Action`]), with the words they are made of (a player named by colour or
//! place, a line of squares, a claim, a penalty). The parser ([`super::parse`]) makes them; the
//! daemon carries them out, and [`super::to_input`] turns the game's into the arbiter's inputs.
//!
//! Values only: nothing here reads a line or knows the game.

use shakmaty::{Color, File, KnownOutcome, Rank, Square};

use super::ConsoleError;
use crate::{
    commands::Role,
    record::braille::BrailleFormat,
    rules::{ClockMillis, game::QuickplayRuling},
};

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

/// A request of the blind player (F.9 d), answered from the game by
/// [`answer()`](super::answer()).
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
    /// `blind-score.txt` in Unicode Braille, or its BRF): read into moves in that player's
    /// Braille chess notation from the game's start position ([`to_input`](super::to_input)), then
    /// compared as a written sheet is. Empty `text`: the lines follow, pasted one by one
    /// ([`Session`](super::Session)).
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
    /// Become the arbiter; [`Session::parse`](super::Session::parse) checks the token.
    Login {
        token: String,
    },
    /// A request of a training game against an engine (refused in a game against a person).
    Training(Training),
    /// A line of a Braille scoresheet being pasted (`scoresheet SIDE braille`, the lines,
    /// `end`): kept by the [`Session`](super::Session), answered by the connection.
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
