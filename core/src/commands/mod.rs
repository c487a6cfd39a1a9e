//! The console's commands: every command's long name, short alias, the least role that may use
//! it ([`Role`]), its arguments and what it does ([`COMMANDS`]), and the words the blind player
//! types for them in his language ([`Words`]).
//!
//! This is the one list `help`, "did you mean", the role check and the tests read. It holds
//! data only; a line is read in `console` (its parser, above this module), squares, files and
//! ranks in [`squares`]. The blind player's words in other languages hang off the list
//! ([`Words`], from a voice pack's `[commands]` and `[arguments]`): each names a command of this
//! list or an English argument word, and is read as that.
//!
//! Below `announce` and `console` both: a voice pack (`announce`) carries the words its
//! language types and checks them against this list when it is read, and the console reads
//! lines with them. Nothing here speaks or parses a line.

pub mod squares;
mod words;

pub use words::{CommandEntry, LocalSpec, Words};

/// Who is at the console. Ordered: each role may do everything the one before it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The blind player: requests about his own game (F.9 d).
    Player,
    /// His assistant: the duties of F.9 (clock, moves, offers, claims, touches, sealing).
    Assistant,
    /// The arbiter: everything, including clocks, verdicts and results.
    Arbiter,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Assistant => "assistant",
            Role::Arbiter => "arbiter",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Role, String> {
        match s.to_ascii_lowercase().as_str() {
            "player" => Ok(Role::Player),
            "assistant" => Ok(Role::Assistant),
            "arbiter" => Ok(Role::Arbiter),
            other => Err(format!(
                "unknown role '{other}'; allowed: player, assistant, arbiter"
            )),
        }
    }
}

/// One command of the console language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The long name, typed in full by the assistant and the arbiter.
    pub name: &'static str,
    /// The short alias, for keypads and board buttons (one to three letters).
    pub alias: &'static str,
    /// The least role that may use it (roles are ordered player < assistant < arbiter).
    pub role: Role,
    /// The arguments, as `help` shows them (`[...]` optional, `A|B` one of).
    pub args: &'static str,
    /// What it does, one line.
    pub what: &'static str,
    /// A complete line that parses: shown by `help COMMAND`, and run by the tests so that the
    /// list and the parser cannot drift apart.
    pub example: &'static str,
}

impl Spec {
    /// `name args`, the usage line.
    pub fn usage(&self) -> String {
        if self.args.is_empty() {
            self.name.to_string()
        } else {
            format!("{} {}", self.name, self.args)
        }
    }
}

/// Other spellings that are accepted as a command word (not listed by `help`, never suggested):
/// the habits of other consoles.
pub const SYNONYMS: &[(&str, &str)] = &[("?", "help"), ("exit", "quit")];

const fn spec(
    name: &'static str,
    alias: &'static str,
    role: Role,
    args: &'static str,
    what: &'static str,
    example: &'static str,
) -> Spec {
    Spec {
        name,
        alias,
        role,
        args,
        what,
        example,
    }
}

use Role::{Arbiter, Assistant, Player};

/// Every command, in the order `help` lists them: the session, the blind player's requests
/// (F.9 d), the assistant's duties (F.9), the arbiter's powers.
pub const COMMANDS: &[Spec] = &[
    // The session.
    spec(
        "help",
        "h",
        Player,
        "[COMMAND]",
        "the commands this console may use, or how to use one",
        "help time",
    ),
    spec("quit", "q", Player, "", "close this connection", "quit"),
    spec(
        "role",
        "ro",
        Player,
        "player|assistant [white|black]",
        "switch this console to the player's or the assistant's commands (at a table with two \
         blind players a keypad, or a player's assistant, says whose: role player white)",
        "role assistant",
    ),
    spec(
        "login",
        "li",
        Player,
        "TOKEN",
        "become the arbiter, with the token from the arbiter's token file",
        "login 0123456789abcdef0123456789abcdef",
    ),
    // The blind player's requests (F.9 d: answered only when asked).
    spec(
        "count",
        "c",
        Player,
        "",
        "how many moves each player has completed",
        "count",
    ),
    spec(
        "time",
        "t",
        Player,
        "",
        "time used and time left, for both players",
        "time",
    ),
    spec("last", "l", Player, "", "the last move", "last"),
    spec(
        "moves",
        "m",
        Player,
        "[N|all]",
        "the last N moves (a move is White's and Black's), or the whole game (the default)",
        "moves 4",
    ),
    spec("turn", "tn", Player, "", "whose move it is", "turn"),
    spec(
        "square",
        "s",
        Player,
        "SQUARE",
        "what stands on a square (e4, or Eva4)",
        "square e4",
    ),
    spec(
        "rank",
        "r",
        Player,
        "1-8",
        "the pieces on a rank, from the a-file to the h-file",
        "rank 1",
    ),
    spec(
        "file",
        "f",
        Player,
        "a-h",
        "the pieces on a file, from the first rank to the eighth",
        "file e",
    ),
    spec(
        "diagonal",
        "d",
        Player,
        "FROM TO",
        "the pieces on a diagonal, from one square to the other (c1 h6)",
        "diagonal a1 h8",
    ),
    spec(
        "pieces",
        "p",
        Player,
        "[white|black|mine|his] [KIND]",
        "where the pieces of a kind, a colour, or both stand (KIND: king ... pawn, K Q R B N P)",
        "pieces mine knight",
    ),
    spec(
        "material",
        "ma",
        Player,
        "",
        "material in pawn units for each side (Q 9, R 5, B 3, N 3, P 1)",
        "material",
    ),
    spec(
        "repeat",
        "rp",
        Player,
        "",
        "say again the last announcement made to the blind player (a move, an offer, guidance), \
         not a reply",
        "repeat",
    ),
    // Training against an engine (`tactus train`); refused in a game against a person.
    spec(
        "hint",
        "hi",
        Player,
        "",
        "training: the engine's best move for the blind player",
        "hint",
    ),
    spec(
        "eval",
        "ev",
        Player,
        "",
        "training: how the position stands, in words",
        "eval",
    ),
    spec(
        "review",
        "rv",
        Player,
        "",
        "training, after the game: the next move where he lost material or missed a mate, and \
         what the engine preferred",
        "review",
    ),
    spec(
        "break",
        "br",
        Player,
        "",
        "training: stop the clocks for a break, or let them run again",
        "break",
    ),
    spec(
        "stop",
        "sp",
        Player,
        "",
        "stop the reply being said (moves read back stop after the move being said); any new \
         request cuts it too",
        "stop",
    ),
    // The assistant (F.9). SIDE is white, black, blind or sighted; where it is optional the
    // blind player is meant, except for touch (the sighted player's touch, F.9 e).
    spec(
        "tell",
        "tl",
        Assistant,
        "REQUEST",
        "the blind player asked you: say the answer to him (F.9 d; a request typed without \
         tell is answered on this console only)",
        "tell time",
    ),
    spec(
        "status",
        "st",
        Assistant,
        "",
        "the position, whose move, the clocks and the boards (printed, not spoken)",
        "status",
    ),
    spec(
        "start",
        "go",
        Assistant,
        "[anyway]",
        "start play and the clocks once both boards show the position (anyway, the arbiter's \
         ruling: although a board still differs)",
        "start",
    ),
    spec(
        "press",
        "pr",
        Assistant,
        "",
        "press the clock for the sighted player: his move counts now",
        "press",
    ),
    spec(
        "move",
        "mv",
        Assistant,
        "MOVE",
        "enter the sighted player's move (a board without sensors)",
        "move Nf3",
    ),
    spec(
        "correct",
        "co",
        Assistant,
        "MOVE",
        "F.6: the move just announced was wrong; announce this one",
        "correct Nbd2",
    ),
    spec(
        "promote",
        "pm",
        Assistant,
        "q|r|b|n",
        "the promotion piece the blind player announced",
        "promote q",
    ),
    spec(
        "offer",
        "of",
        Assistant,
        "[SIDE]",
        "a draw offer (9.1)",
        "offer",
    ),
    spec(
        "accept",
        "ac",
        Assistant,
        "[SIDE]",
        "accept the draw offer",
        "accept sighted",
    ),
    spec(
        "decline",
        "dc",
        Assistant,
        "[SIDE]",
        "decline the draw offer",
        "decline",
    ),
    // The side is never assumed at the staff's consoles: a stray `rs` must not end the blind
    // player's game. At his own keypad it is his game, and he types it twice.
    spec(
        "resign",
        "rs",
        Player,
        "SIDE",
        "SIDE resigns the game (the side is required: resign blind, resign sighted); at his \
         keypad, his own game, typed twice",
        "resign blind",
    ),
    spec(
        "claim",
        "cl",
        Assistant,
        "[SIDE] repetition|fifty|illegal [MOVE]",
        "a draw claim under 9.2 or 9.3 (with MOVE, the move he intends to make: the \"a\" \
         forms); illegal: in blitz, the win after the opponent's illegal move, before moving \
         (Appendix C)",
        "claim repetition Nf3",
    ),
    spec(
        "flag",
        "fl",
        Assistant,
        "[SIDE]",
        "claim that the opponent's flag has fallen (F.9 e)",
        "flag",
    ),
    spec(
        "quickplay",
        "qp",
        Assistant,
        "[SIDE]",
        "claim a draw under 10.2 (less than two minutes left)",
        "quickplay",
    ),
    spec(
        "touch",
        "to",
        Assistant,
        "[SIDE] SQUARE",
        "the sighted player touched the piece on SQUARE (F.9 e)",
        "touch g1",
    ),
    spec(
        "adjust",
        "ad",
        Assistant,
        "[SIDE] SQUARE",
        "j'adoube: the piece on SQUARE is being adjusted, not touched (4.2)",
        "adjust e4",
    ),
    spec(
        "seal",
        "se",
        Assistant,
        "MOVE",
        "adjournment: seal the move of the player having the move, as he wrote it (read in his \
         notation; a blind player's at his assistant's console, a sighted player's at the \
         arbiter's)",
        "seal Nf3",
    ),
    // The arbiter.
    spec(
        "resumption",
        "rz",
        Arbiter,
        "DATE TIME [VENUE...]",
        "adjournment: the date, time and venue of resumption, written on the envelope",
        "resumption 2026-12-01 10:00 Hall B",
    ),
    spec(
        "open",
        "op",
        Arbiter,
        "[absent]",
        "resumption: open the envelope and make the sealed move (absent: the replier is not \
         here; start his clock, keep the envelope closed until he comes)",
        "open",
    ),
    spec(
        "pause",
        "pa",
        Arbiter,
        "",
        "stop both clocks (6.12)",
        "pause",
    ),
    spec(
        "resume",
        "re",
        Arbiter,
        "",
        "restart the clocks (6.12)",
        "resume",
    ),
    spec(
        "set-clock",
        "sc",
        Arbiter,
        "SIDE TIME",
        "set a player's remaining time (6.13; TIME like 1:30:00, 5:00, 90s, 2m)",
        "set-clock white 1:30:00",
    ),
    spec(
        "add-time",
        "at",
        Arbiter,
        "SIDE +TIME|-TIME",
        "add time to a player's clock, or take it away (6.13)",
        "add-time black +2m",
    ),
    spec(
        "set-moves",
        "sm",
        Arbiter,
        "SIDE N",
        "set a player's count of completed moves (6.13)",
        "set-moves white 40",
    ),
    spec(
        "rule",
        "ru",
        Arbiter,
        "draw|postpone [extra]|reject",
        "rule on the 10.2 claim (postpone extra: two minutes to the opponent)",
        "rule postpone extra",
    ),
    spec(
        "illegal",
        "il",
        Arbiter,
        "SIDE",
        "declare that SIDE completed an illegal move (7.4; its penalty is offered, `confirm`)",
        "illegal black",
    ),
    spec(
        "scoresheet",
        "ss",
        Arbiter,
        "SIDE [braille|brf] MOVES...",
        "enter a player's own scoresheet; a difference starts the retrace (F.8). MOVES in any \
         notation; Braille cells as blind-score.txt holds them, or BRF after brf; braille or brf \
         alone: paste the lines of blind-score.txt or .brf (header and all), then end",
        "scoresheet black 1. e4 e5 2. Nf3",
    ),
    spec(
        "confirm-clocks",
        "cc",
        Arbiter,
        "",
        "accept the clock times proposed after a retrace",
        "confirm-clocks",
    ),
    spec(
        "confirm",
        "cf",
        Arbiter,
        "",
        "do what tactus offered: the retrace the scoresheets give (F.8), a penalty (9.5 b, \
         7.4 b, 13.4)",
        "confirm",
    ),
    spec(
        "cancel",
        "cn",
        Arbiter,
        "",
        "drop what tactus offered (a claim or a penalty typed in error, a retrace not wanted)",
        "cancel",
    ),
    spec(
        "undo",
        "ud",
        Arbiter,
        "",
        "undo the last retrace (F.8 or takeback) until play goes on: the game and clocks as they \
         were",
        "undo",
    ),
    spec(
        "takeback",
        "tb",
        Player,
        "[PLY]",
        "training: take back his last move and the engine's reply; the arbiter's `takeback PLY` \
         takes any game back to PLY half-moves (0: the start)",
        "takeback",
    ),
    spec(
        "result",
        "rt",
        Arbiter,
        "1-0|0-1|1/2-1/2",
        "declare the result",
        "result 1/2-1/2",
    ),
    spec(
        "penalty",
        "pe",
        Arbiter,
        "SIDE bonus|deduct TIME",
        "13.4: give the offender's opponent TIME (bonus) or take TIME from the offender \
         (deduct); offered with the clocks it changes, `confirm` applies it",
        "penalty white bonus 2m",
    ),
    spec(
        "requests",
        "rq",
        Arbiter,
        "[material|pieces on|off]",
        "12.3 a: switch the players' material or pieces requests off or on (without \
         arguments: how they stand)",
        "requests material off",
    ),
];

/// Commands of the player's role that are no request of his: the staff's, at his keypad (its
/// seat, the arbiter's login). Accepted there, but not in his `help` and with no words of his.
pub const KEYPAD_SETUP: &[&str] = &["role", "login"];

/// The English words a pack's `[arguments]` may give words for: the arguments of his requests
/// that are words (squares, ranks, files and numbers are the same in every language).
pub const ARGUMENT_WORDS: &[&str] = &[
    "all", "white", "black", "mine", "his", "king", "queen", "rook", "bishop", "knight", "pawn",
];

/// The command a word names: its long name, its alias or a synonym, in any case.
pub fn lookup(word: &str) -> Option<&'static Spec> {
    let word = word.to_ascii_lowercase();
    let word = SYNONYMS
        .iter()
        .find(|(s, _)| *s == word)
        .map_or(word.as_str(), |(_, name)| name);
    COMMANDS.iter().find(|s| s.name == word || s.alias == word)
}

/// The closest long name to an unknown word, for "did you mean". Commands the role may use win
/// over the others at the same distance; nothing is suggested for a word too far from any name.
pub fn suggestion(word: &str, role: Role) -> Option<&'static str> {
    let word = word.to_ascii_lowercase();
    // One edit for short words, two for longer ones: beyond that a suggestion is a guess.
    let limit = if word.chars().count() <= 4 { 1 } else { 2 };
    COMMANDS
        .iter()
        .map(|s| (s, edit_distance(&word, s.name)))
        .filter(|(_, d)| *d <= limit)
        .min_by_key(|(s, d)| (*d, s.role > role))
        .map(|(s, _)| s.name)
}

/// Edit distance with adjacent transpositions ("tiem" is one step from "time").
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// Whether `spec` is one of the blind player's own commands: his role's, not the staff's setup
/// of his keypad ([`KEYPAD_SETUP`]).
pub fn is_his(spec: &Spec) -> bool {
    spec.role == Role::Player && !KEYPAD_SETUP.contains(&spec.name)
}
