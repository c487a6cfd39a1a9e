//! Why a console line was refused ([`ConsoleError`]): nothing was done, and the text says what
//! to type instead. The blind player hears his refusals in his words (`table::KeypadRefusal`).

use shakmaty::Color;

use super::{MAX_PASTE_BYTES, MAX_PASTE_LINES};
use crate::{
    commands::Role,
    record::braille::{BrailleFormat, ReadError},
    rules::notation::MatchError,
};

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
    /// A Braille scoresheet that does not read: which page, line, cells and move, and why; the
    /// profile it was read with is its player's, and the text says where that comes from.
    #[error(
        "scoresheet: {side}'s scoresheet in {format} does not read with {side}'s Braille \
         profile '{profile}' ({}): {error}; nothing was compared",
        profile_origin(*.blind)
    )]
    BrailleSheet {
        side: Color,
        format: BrailleFormat,
        profile: String,
        /// Whether `side` is blind (his profile is his own) or sighted (the table's).
        blind: bool,
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
    /// The console asks faster than the game takes it (the daemon's pace per connection): the
    /// line was not carried out; `why` says the pace.
    #[error("{why}")]
    TooFast { why: String },
}

pub(super) fn needs_words(needs: Role) -> &'static str {
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

/// Where a player's Braille profile comes from, as the configuration sets it: a blind player's
/// is his own, a sighted player's the table's (`Config::braille_profiles` in the daemon).
fn profile_origin(blind: bool) -> &'static str {
    if blind {
        "[record] braille_profile, else his voice pack's language"
    } else {
        "the table's: [record] braille_profile, else the blind player's voice pack's language"
    }
}
