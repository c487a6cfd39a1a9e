//! Reading one console line: the command word, the role check, then the arguments, strictly.
//!
//! The role is checked before the arguments are read, so that a command the role may not use is
//! refused with the same message however it was written. Arguments are matched whole (no
//! prefixes, no guessing): a line means one thing or is refused with the reason and the usage.
//! Moves are kept as typed; only the arbiter, which has the position, reads them.
//!
//! The names of the blind player's requests are read here too ([`request_names`]): they are the
//! commands of his role whose example line parses as a request.

use shakmaty::{Color, KnownOutcome, Square};

use super::{
    Action, ClaimKind, Command, ConsoleError, Line, MAX_LINE, Penalty, Request, Side, Training,
};
use crate::{
    commands::{
        self, COMMANDS, Role, Spec, Words,
        squares::{file_word, rank_word, square_word},
    },
    rules::game::QuickplayRuling,
};

/// Longest piece of the user's input quoted back in an error message: an error must not echo
/// kilobytes of garbage to a screen reader.
const QUOTE_MAX: usize = 32;
/// Longest time the console accepts for a clock: far beyond any time control, short of overflow.
const MAX_TIME_MS: i64 = 100 * 3600 * 1000;

/// Parse one line (a trailing `\n` or `\r\n` is ignored) for a console in `role`. Pure.
pub fn parse(line: &str, role: Role) -> Result<Command, ConsoleError> {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.len() > MAX_LINE {
        return Err(ConsoleError::TooLong {
            len: line.len(),
            max: MAX_LINE,
        });
    }
    if line.chars().any(|c| c.is_control() && c != '\t') {
        return Err(ConsoleError::ControlCharacters);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = words.split_first() else {
        return Err(ConsoleError::Empty);
    };
    let Some(spec) = commands::lookup(first) else {
        if first.chars().all(super::is_braille) {
            return Err(ConsoleError::BrailleLine);
        }
        return Err(ConsoleError::Unknown {
            word: quote(&first.to_lowercase()),
            suggestion: commands::suggestion(first, role),
        });
    };
    if spec.role > role {
        return Err(ConsoleError::NotAllowed {
            command: spec.name,
            role,
            needs: spec.role,
        });
    }
    if spec.name == "resign" && role == Role::Player && rest.is_empty() {
        // At his own keypad `resign` is his own game; the table asks him to type it again.
        return Ok(Command::Game(Action::Resign(Side::Blind)));
    }
    let mut args = Args {
        spec,
        words: rest,
        at: 0,
    };
    let command = command(spec, &mut args)?;
    args.end()?;
    if role == Role::Player && command == Command::Game(Action::Resign(Side::Sighted)) {
        // Never his opponent's game (a colour is checked against his seat at the table).
        return args.usage("at his keypad a player resigns his own game only, typed twice".into());
    }
    if matches!(command, Command::Game(Action::TakeBack { .. })) && role < Role::Arbiter {
        // One name, two commands: a player's `takeback` (training) is his; a takeback to a
        // half-move is the arbiter's power in any game.
        return Err(ConsoleError::NotAllowed {
            command: spec.name,
            role,
            needs: Role::Arbiter,
        });
    }
    Ok(command)
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

/// Parse one line of the blind player's, typed in his words (`words`: his voice pack's) or in
/// the English ones of [`crate::commands`]. Read as typed first; a line that does not read so is
/// read again with his words put into the English ones ([`Words::translate`]), and its refusal is
/// then the one of that reading (`feld x9` is refused as `square x9`, the usage of `square`).
pub fn parse_in(line: &str, role: Role, words: &Words) -> Result<Command, ConsoleError> {
    let as_typed = parse(line, role);
    let worth_translating = matches!(
        as_typed,
        Err(ConsoleError::Unknown { .. } | ConsoleError::Usage { .. })
    );
    if role != Role::Player || words.is_empty() || !worth_translating {
        return as_typed;
    }
    match words.translate(line) {
        Some(english) => parse(&english, role),
        None => as_typed,
    }
}

/// The command `spec` names, read from its arguments. Each arm is one entry of
/// [`crate::commands::COMMANDS`]; the commands with more to read have a function of their own
/// below.
fn command(spec: &'static Spec, a: &mut Args) -> Result<Command, ConsoleError> {
    use Action as A;
    use Command::{Game, Request as R};
    Ok(match spec.name {
        // The console itself.
        "help" => help(a)?,
        "quit" => Command::Quit,
        "role" => role(a)?,
        "login" => Command::Login {
            token: a.need("the arbiter's token")?.to_string(),
        },
        "status" => Command::Status,
        // What a player may ask (F.9 d: only on request).
        "count" => R(Request::MovesCompleted),
        "time" => R(Request::Times),
        "last" => R(Request::LastMove),
        "moves" => R(Request::Moves(moves_asked(a)?)),
        "turn" => R(Request::ToMove),
        "square" => R(Request::Square(a.square()?)),
        "rank" => R(Request::Line(Line::Rank(a.pick(
            "a rank, 1 to 8",
            rank_word,
            |w| format!("'{}' is not a rank: 1 to 8", quote(w)),
        )?))),
        "file" => R(Request::Line(Line::File(a.pick(
            "a file, a to h",
            file_word,
            |w| format!("'{}' is not a file: a to h", quote(w)),
        )?))),
        "diagonal" => R(diagonal(a)?),
        "pieces" => R(pieces(a)?),
        "material" => R(Request::Material),
        "repeat" => R(Request::Repeat),
        "stop" => R(Request::Stop),
        "tell" => Command::Tell(tell(a)?),
        // The game: moves, the clock press, offers and claims.
        "start" => Game(start(a)?),
        "press" => Game(A::Press),
        "move" => Game(A::Move(a.move_text()?)),
        "correct" => Game(A::Correct(a.move_text()?)),
        "seal" => Game(A::Seal(a.move_text()?)),
        "promote" => Game(A::Promote(a.pick(
            "the piece: q, r, b or n",
            promotion_word,
            |w| {
                format!(
                    "'{}' is not a promotion piece: q, r, b or n (queen, rook, bishop, knight)",
                    quote(w)
                )
            },
        )?)),
        "offer" => Game(A::Offer(a.side_or(Side::Blind))),
        "accept" => Game(A::Accept(a.side_or(Side::Blind))),
        "decline" => Game(A::Decline(a.side_or(Side::Blind))),
        "resign" => Game(A::Resign(a.side_with(
            "whose game: blind, sighted, white or black (never assumed, so that a stray \
             keystroke cannot end a game)",
        )?)),
        "flag" => Game(A::Flag(a.side_or(Side::Blind))),
        "quickplay" => Game(A::Quickplay(a.side_or(Side::Blind))),
        "claim" => Game(claim(a)?),
        "touch" => Game(A::Touch {
            by: a.side_or(Side::Sighted),
            square: a.square()?,
        }),
        "adjust" => Game(A::Adjust {
            by: a.side_or(Side::Blind),
            square: a.square()?,
        }),
        "resumption" => Game(resumption(a)?),
        "open" => Game(open(a)?),
        // The arbiter: clocks, rulings, the record.
        "pause" => Game(A::Pause),
        "resume" => Game(A::Resume),
        "set-clock" => Game(set_clock(a)?),
        "add-time" => Game(add_time(a)?),
        "set-moves" => Game(A::SetMoves {
            side: a.side()?,
            moves: a.pick("the number of completed moves", number, |w| {
                format!("'{}' is not a number of moves", quote(w))
            })?,
        }),
        "rule" => Game(A::Rule(ruling(a)?)),
        "illegal" => Game(A::Illegal(a.side()?)),
        "scoresheet" => Game(scoresheet(a)?),
        "confirm-clocks" => Game(A::ConfirmClocks),
        "confirm" => Game(A::Confirm),
        "cancel" => Game(A::Cancel),
        "undo" => Game(A::Undo),
        // Without a number: the training takeback (his move and the engine's reply); with
        // one: the arbiter's, to that half-move (the role is checked by `parse`).
        "takeback" if a.is_done() => Command::Training(Training::TakeBack),
        "takeback" => Game(A::TakeBack {
            to_ply: a.pick("the number of half-moves that stay", number, |w| {
                format!(
                    "'{}' is not a number of half-moves (0 is the start)",
                    quote(w)
                )
            })?,
        }),
        "hint" => Command::Training(Training::Hint),
        "eval" => Command::Training(Training::Eval),
        "review" => Command::Training(Training::Review),
        "break" => Command::Training(Training::Break),
        "result" => Game(A::Result(a.pick("the result", result_word, |w| {
            format!(
                "'{}' is not a result: 1-0, 0-1 or 1/2-1/2",
                quote(&w.to_ascii_lowercase())
            )
        })?)),
        "penalty" => Game(penalty(a)?),
        "requests" => Command::Requests(requests(a)?),
        // Every name of the list has an arm above; the tests run every example line.
        other => unreachable!("the list of commands names '{other}', which has no parser"),
    })
}

/// `help` or `help COMMAND`.
fn help(a: &mut Args) -> Result<Command, ConsoleError> {
    let Some(word) = a.next() else {
        return Ok(Command::Help(None));
    };
    match commands::lookup(word) {
        Some(topic) => Ok(Command::Help(Some(topic.name))),
        None => Err(ConsoleError::Unknown {
            word: quote(&word.to_lowercase()),
            suggestion: commands::suggestion(word, Role::Arbiter),
        }),
    }
}

/// `role player|assistant [white|black]`; the arbiter's role is taken with `login`.
fn role(a: &mut Args) -> Result<Command, ConsoleError> {
    let role = match a.need("player or assistant")?.to_ascii_lowercase().as_str() {
        "player" => Role::Player,
        "assistant" => Role::Assistant,
        "arbiter" => {
            return a
                .usage("the arbiter's role needs the arbiter's token: login TOKEN".to_string());
        }
        other => return a.usage(format!("'{}' is not a role", quote(other))),
    };
    // Two blind players: each keypad, and each player's assistant, says whose it is.
    let seat = match a.next() {
        None => None,
        Some(w) if w.eq_ignore_ascii_case("white") => Some(shakmaty::Color::White),
        Some(w) if w.eq_ignore_ascii_case("black") => Some(shakmaty::Color::Black),
        Some(w) => return a.usage(format!("'{}' is not a seat: white or black", quote(w))),
    };
    Ok(Command::Role { role, seat })
}

/// `moves`, `moves all` (every move) or `moves N` (the last N).
fn moves_asked(a: &mut Args) -> Result<Option<usize>, ConsoleError> {
    match a.next() {
        None => Ok(None),
        Some(w) if w.eq_ignore_ascii_case("all") => Ok(None),
        Some(w) => match w.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => a.usage(format!(
                "'{}' is not a number of moves (1 or more) or all",
                quote(w)
            )),
        },
    }
}

fn diagonal(a: &mut Args) -> Result<Request, ConsoleError> {
    let (from, to) = a.two_squares()?;
    if from == to || from.file().distance(to.file()) != from.rank().distance(to.rank()) {
        return a.usage(format!("{from} and {to} are not on one diagonal"));
    }
    Ok(Request::Line(Line::Diagonal { from, to }))
}

/// Either order: "pieces mine knight" and "pieces knights white".
fn pieces(a: &mut Args) -> Result<Request, ConsoleError> {
    let mut side = a.side_opt();
    let kind = match a.next() {
        None => None,
        Some(w) => match kind_word(w) {
            Some(kind) => Some(kind),
            None => {
                return a.usage(format!(
                    "'{}' is not a side or a kind of piece (king, queen, rook, bishop, knight, \
                     pawn or K Q R B N P)",
                    quote(w)
                ));
            }
        },
    };
    if side.is_none() && kind.is_some() {
        side = a.side_opt();
    }
    if side.is_none() && kind.is_none() {
        return a.usage("say whose pieces, which kind, or both".to_string());
    }
    Ok(Request::Pieces { side, kind })
}

/// `tell REQUEST`: a request of the blind player's role, read as he would type it.
fn tell(a: &mut Args) -> Result<Request, ConsoleError> {
    let rest = a.rest();
    let names = || request_names().join(", ");
    let Some(&first) = rest.first() else {
        return a.usage(format!("the request is missing: {}", names()));
    };
    match parse(&rest.join(" "), Role::Player) {
        Ok(Command::Request(request)) => Ok(request),
        // The request's own arguments were wrong: its message says how to write them.
        Err(e @ ConsoleError::Usage { .. }) => Err(e),
        _ => a.usage(format!(
            "'{}' is not a request of the blind player: {}",
            quote(&first.to_lowercase()),
            names()
        )),
    }
}

/// `claim [SIDE] repetition|fifty [MOVE]` or `claim [SIDE] illegal` (blitz, Appendix C).
fn claim(a: &mut Args) -> Result<Action, ConsoleError> {
    let by = a.side_or(Side::Blind);
    let w = a.need("repetition, fifty or illegal")?;
    if w.eq_ignore_ascii_case("illegal") {
        if let Some(extra) = a.next() {
            return a.usage(format!(
                "'{}' after illegal: the claim is about the opponent's last move, nothing follows \
                 it (the claimer's side goes before: claim sighted illegal)",
                quote(extra)
            ));
        }
        return Ok(Action::ClaimIllegal(by));
    }
    // The article forms say whether a move must follow: "a" needs one, "b" has none.
    let (kind, form) = match w.to_ascii_lowercase().as_str() {
        "repetition" | "rep" | "threefold" | "9.2" => (ClaimKind::Repetition, None),
        "9.2a" => (ClaimKind::Repetition, Some(true)),
        "9.2b" => (ClaimKind::Repetition, Some(false)),
        "fifty" | "50" | "9.3" => (ClaimKind::FiftyMoves, None),
        "9.3a" => (ClaimKind::FiftyMoves, Some(true)),
        "9.3b" => (ClaimKind::FiftyMoves, Some(false)),
        other => {
            return a.usage(format!(
                "'{}' is not a claim: repetition (9.2), fifty (9.3) or illegal (blitz)",
                quote(other)
            ));
        }
    };
    let rest = a.rest();
    let intended = (!rest.is_empty()).then(|| rest.join(" "));
    match (form, &intended) {
        (Some(true), None) => a.usage(format!("the {w} claim needs the move he intends to make")),
        (Some(false), Some(_)) => a.usage(format!(
            "the {w} claim is about the position now: no move follows it"
        )),
        _ => Ok(Action::Claim { by, kind, intended }),
    }
}

/// `scoresheet SIDE MOVES...` in any written notation, `scoresheet SIDE CELLS...` in Unicode
/// Braille (told by its cells), or `scoresheet SIDE braille|brf [CELLS...]`: Braille, named (BRF
/// is ASCII and could pass for letters). Braille without cells: the lines are pasted next.
fn scoresheet(a: &mut Args) -> Result<Action, ConsoleError> {
    use crate::record::braille::BrailleFormat;
    let side = a.side()?;
    let rest = a.rest();
    let named = |w: &str| match w.to_ascii_lowercase().as_str() {
        "braille" | "unicode" => Some(BrailleFormat::Unicode),
        "brf" => Some(BrailleFormat::Brf),
        _ => None,
    };
    let (format, cells) = match rest.split_first() {
        Some((w, cells)) if named(w).is_some() => (named(w), cells),
        _ if rest.iter().any(|w| w.chars().any(super::is_braille)) => {
            (Some(BrailleFormat::Unicode), rest.as_slice())
        }
        _ => (None, rest.as_slice()),
    };
    Ok(match format {
        Some(format) => Action::BrailleScoresheet {
            side,
            format,
            text: cells.join(" "),
        },
        None => Action::Scoresheet {
            side,
            sans: crate::rules::sheet::sheet_moves(cells),
        },
    })
}

fn resumption(a: &mut Args) -> Result<Action, ConsoleError> {
    let rest = a.rest();
    if rest.len() < 2 {
        return a.usage("the date and the time of resumption are needed".into());
    }
    Ok(Action::Resumption(rest.join(" ")))
}

/// `start` or `start anyway` (a board that does not show the position yet).
fn start(a: &mut Args) -> Result<Action, ConsoleError> {
    match a.next() {
        None => Ok(Action::Start { anyway: false }),
        Some(w) if w.eq_ignore_ascii_case("anyway") => Ok(Action::Start { anyway: true }),
        Some(w) => a.usage(format!(
            "'{}' is not how to start: nothing (the boards show the position) or anyway",
            quote(w)
        )),
    }
}

/// `open` or `open absent` (Appendix E: the player who must reply to the sealed move is not there).
fn open(a: &mut Args) -> Result<Action, ConsoleError> {
    match a.next() {
        None => Ok(Action::Open { absent: false }),
        Some(w) if w.eq_ignore_ascii_case("absent") => Ok(Action::Open { absent: true }),
        Some(w) => a.usage(format!(
            "'{}' is not how the replier is: nothing (he is here) or absent",
            quote(w)
        )),
    }
}

fn set_clock(a: &mut Args) -> Result<Action, ConsoleError> {
    let side = a.side()?;
    let w = a.need("the time left, like 1:30:00")?;
    if w.starts_with(['+', '-']) {
        return a.usage("the time left has no sign (add-time adds or takes away)".into());
    }
    match duration(w) {
        Ok(ms) => Ok(Action::SetClock {
            side,
            remaining_ms: ms,
        }),
        Err(e) => a.usage(e),
    }
}

fn add_time(a: &mut Args) -> Result<Action, ConsoleError> {
    let side = a.side()?;
    let w = a.need("the time to add (+2m) or take away (-30s)")?;
    let (sign, digits) = match w.as_bytes().first() {
        Some(b'-') => (-1, &w[1..]),
        Some(b'+') => (1, &w[1..]),
        _ => (1, w),
    };
    match duration(digits) {
        Ok(0) => a.usage("adding no time changes nothing".into()),
        Ok(ms) => Ok(Action::AddTime {
            side,
            delta_ms: sign * ms,
        }),
        Err(e) => a.usage(e),
    }
}

/// `rule draw|reject|postpone [extra]`: the arbiter's ruling on a 10.2 claim.
fn ruling(a: &mut Args) -> Result<QuickplayRuling, ConsoleError> {
    let w = a.need("draw, postpone or reject")?;
    match w.to_ascii_lowercase().as_str() {
        "draw" => Ok(QuickplayRuling::Draw),
        "reject" => Ok(QuickplayRuling::Reject),
        "postpone" => match a.next() {
            None => Ok(QuickplayRuling::Postpone {
                extra_time_to_opponent: false,
            }),
            Some(x) if x.eq_ignore_ascii_case("extra") => Ok(QuickplayRuling::Postpone {
                extra_time_to_opponent: true,
            }),
            Some(x) => a.usage(format!(
                "'{}' after postpone: only extra (two minutes to the opponent) may follow",
                quote(x)
            )),
        },
        other => a.usage(format!(
            "'{}' is not a ruling: draw, postpone or reject",
            quote(other)
        )),
    }
}

/// `requests` (how they stand) or `requests material|pieces on|off` (12.3 a).
fn requests(a: &mut Args) -> Result<Option<(super::Switchable, bool)>, ConsoleError> {
    let Some(w) = a.next() else {
        return Ok(None);
    };
    let Ok(request) = w.parse::<super::Switchable>() else {
        return a.usage(format!(
            "'{}' is not a request the arbiter can switch off: {}",
            quote(&w.to_lowercase()),
            super::Switchable::names()
        ));
    };
    let on = a.pick("on or off", on_off, |w| {
        format!("'{}' is not on or off", quote(&w.to_ascii_lowercase()))
    })?;
    Ok(Some((request, on)))
}

fn on_off(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// `penalty SIDE bonus|deduct TIME` (13.4 b, c).
fn penalty(a: &mut Args) -> Result<Action, ConsoleError> {
    let offender = a.side()?;
    let penalty = a.pick("bonus or deduct", penalty_word, |w| {
        format!(
            "'{}' is not a time penalty: bonus (to the opponent, 13.4 b) or deduct (from the \
             offender, 13.4 c)",
            quote(&w.to_ascii_lowercase())
        )
    })?;
    let t = a.need("the time, like 2m")?;
    match duration(t) {
        Ok(0) => a.usage("a penalty of no time changes nothing".into()),
        Ok(ms) => Ok(Action::Penalty {
            offender,
            penalty,
            ms,
        }),
        Err(e) => a.usage(e),
    }
}

/// The arguments of one command, read left to right.
struct Args<'a> {
    spec: &'static Spec,
    words: &'a [&'a str],
    at: usize,
}

impl<'a> Args<'a> {
    fn usage<T>(&self, problem: String) -> Result<T, ConsoleError> {
        Err(ConsoleError::Usage {
            command: self.spec.name,
            problem,
            usage: self.spec.usage(),
        })
    }

    fn next(&mut self) -> Option<&'a str> {
        let w = self.words.get(self.at).copied();
        self.at += usize::from(w.is_some());
        w
    }

    fn need(&mut self, what: &str) -> Result<&'a str, ConsoleError> {
        match self.next() {
            Some(w) => Ok(w),
            None => self.usage(format!("{what} is missing")),
        }
    }

    /// The next word, read by `read`; `refusal` says why a word it cannot read is wrong.
    fn pick<T>(
        &mut self,
        what: &str,
        read: impl FnOnce(&str) -> Option<T>,
        refusal: impl FnOnce(&str) -> String,
    ) -> Result<T, ConsoleError> {
        let w = self.need(what)?;
        match read(w) {
            Some(value) => Ok(value),
            None => self.usage(refusal(w)),
        }
    }

    fn rest(&mut self) -> Vec<&'a str> {
        let rest = self.words[self.at..].to_vec();
        self.at = self.words.len();
        rest
    }

    /// Whether every word has been read.
    fn is_done(&self) -> bool {
        self.at >= self.words.len()
    }

    /// Nothing may follow the arguments the command takes.
    fn end(&self) -> Result<(), ConsoleError> {
        match self.words.get(self.at) {
            None => Ok(()),
            Some(w) if self.spec.args.is_empty() => {
                self.usage(format!("it takes no arguments, but '{}' follows", quote(w)))
            }
            Some(w) => self.usage(format!("'{}' is one word too many", quote(w))),
        }
    }

    /// A side word, if the next word is one (it is then taken).
    fn side_opt(&mut self) -> Option<Side> {
        let side = self.words.get(self.at).and_then(|w| side_word(w));
        self.at += usize::from(side.is_some());
        side
    }

    fn side_or(&mut self, default: Side) -> Side {
        self.side_opt().unwrap_or(default)
    }

    fn side(&mut self) -> Result<Side, ConsoleError> {
        self.side_with("the side (white, black, blind or sighted)")
    }

    /// A side that must be given; `what` says which, when it is missing.
    fn side_with(&mut self, what: &str) -> Result<Side, ConsoleError> {
        let w = self.need(what)?;
        match side_word(w) {
            Some(side) => Ok(side),
            None => self.usage(format!(
                "'{}' is not a side: white, black, blind or sighted",
                quote(w)
            )),
        }
    }

    fn square(&mut self) -> Result<Square, ConsoleError> {
        let w = self.need("the square (like e4)")?;
        match square_word(w) {
            Some(square) => Ok(square),
            None => self.usage(format!(
                "'{}' is not a square: a file a-h and a rank 1-8, like e4",
                quote(w)
            )),
        }
    }

    /// Two squares, as `c1 h6` or `c1-h6`.
    fn two_squares(&mut self) -> Result<(Square, Square), ConsoleError> {
        let first = self.need("the two end squares (like a1 h8)")?;
        if let Some((a, b)) = first.split_once('-')
            && let (Some(a), Some(b)) = (square_word(a), square_word(b))
        {
            return Ok((a, b));
        }
        let Some(a) = square_word(first) else {
            return self.usage(format!("'{}' is not a square, like c1", quote(first)));
        };
        let second = self.need("the second end square")?;
        match square_word(second) {
            Some(b) => Ok((a, b)),
            None => self.usage(format!("'{}' is not a square, like h6", quote(second))),
        }
    }

    /// The rest of the line as a move, as typed ("e7 e8 Q" stays readable for the matcher).
    fn move_text(&mut self) -> Result<String, ConsoleError> {
        let rest = self.rest();
        if rest.is_empty() {
            return self.usage("the move is missing (like Nf3, exd5, O-O, e7e8q)".into());
        }
        Ok(rest.join(" "))
    }
}

/// At most [`QUOTE_MAX`] characters of the user's input, for an error message.
fn quote(word: &str) -> String {
    if word.chars().count() <= QUOTE_MAX {
        word.to_string()
    } else {
        let mut short: String = word.chars().take(QUOTE_MAX).collect();
        short.push_str("...");
        short
    }
}

/// A player: by colour (English or German) or by place at the table. Single letters are not
/// sides: `b` is also a bishop and a file.
pub(super) fn side_word(word: &str) -> Option<Side> {
    match word.to_lowercase().as_str() {
        "white" | "weiss" | "weiß" => Some(Side::White),
        "black" | "schwarz" => Some(Side::Black),
        "blind" | "mine" | "own" => Some(Side::Blind),
        "sighted" | "his" | "opponent" => Some(Side::Sighted),
        _ => None,
    }
}

/// A kind of piece: English names (and plurals), SAN letters, the German names.
pub(super) fn kind_word(word: &str) -> Option<shakmaty::Role> {
    use shakmaty::Role as R;
    let word = word
        .to_lowercase()
        .replace('ö', "oe")
        .replace('ä', "ae")
        .replace('ü', "ue");
    Some(match word.as_str() {
        "k" | "king" | "kings" | "koenig" | "koenige" => R::King,
        "q" | "queen" | "queens" | "dame" | "damen" => R::Queen,
        "r" | "rook" | "rooks" | "turm" | "tuerme" => R::Rook,
        "b" | "bishop" | "bishops" | "laeufer" => R::Bishop,
        "n" | "knight" | "knights" | "springer" => R::Knight,
        "p" | "pawn" | "pawns" | "bauer" | "bauern" => R::Pawn,
        _ => return None,
    })
}

/// A count: digits only.
fn number<T: std::str::FromStr>(word: &str) -> Option<T> {
    word.parse().ok()
}

/// A result as the arbiter writes it.
fn result_word(word: &str) -> Option<KnownOutcome> {
    match word.to_ascii_lowercase().as_str() {
        "1-0" => Some(KnownOutcome::Decisive {
            winner: Color::White,
        }),
        "0-1" => Some(KnownOutcome::Decisive {
            winner: Color::Black,
        }),
        "1/2-1/2" | "½-½" | "draw" => Some(KnownOutcome::Draw),
        _ => None,
    }
}

fn penalty_word(word: &str) -> Option<Penalty> {
    match word.to_ascii_lowercase().as_str() {
        "bonus" => Some(Penalty::Bonus),
        "deduct" => Some(Penalty::Deduct),
        _ => None,
    }
}

/// A promotion piece: a kind other than king and pawn.
pub(super) fn promotion_word(word: &str) -> Option<shakmaty::Role> {
    kind_word(word).filter(|r| !matches!(r, shakmaty::Role::King | shakmaty::Role::Pawn))
}

/// A time: `H:MM:SS`, `M:SS`, or amounts with units (`90s`, `2m`, `1h30m`, `2m30s`). A bare
/// number is refused: seconds or minutes is exactly the guess a clock must not make.
pub(super) fn duration(text: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "'{}' is not a time: write 1:30:00, 5:00, 90s, 2m or 1h30m",
            quote(text)
        )
    };
    let number = |digits: &str| -> Result<i64, String> {
        if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        digits.parse::<i64>().map_err(|_| bad())
    };
    let seconds = if text.contains(':') {
        let parts: Vec<&str> = text.split(':').collect();
        let (h, m, s) = match parts.as_slice() {
            [m, s] => ("0", *m, *s),
            [h, m, s] => (*h, *m, *s),
            _ => return Err(bad()),
        };
        let (h, m, s) = (number(h)?, number(m)?, number(s)?);
        // The leading part may be large ("90:00"); the ones after a colon are clock digits.
        if s >= 60 || (parts.len() == 3 && m >= 60) || parts[1..].iter().any(|p| p.len() != 2) {
            return Err(bad());
        }
        h * 3600 + m * 60 + s
    } else {
        let mut total = 0i64;
        let mut digits = String::new();
        let mut last_unit = 0; // h = 3, m = 2, s = 1: units in falling order, each once
        for c in text.chars() {
            let unit = match c.to_ascii_lowercase() {
                d if d.is_ascii_digit() => {
                    digits.push(d);
                    continue;
                }
                'h' => 3,
                'm' => 2,
                's' => 1,
                _ => return Err(bad()),
            };
            if last_unit != 0 && unit >= last_unit {
                return Err(bad());
            }
            last_unit = unit;
            let n = number(&digits)?;
            digits.clear();
            total += n * [1, 60, 3600][unit - 1];
        }
        if !digits.is_empty() || last_unit == 0 {
            return Err(bad());
        }
        total
    };
    let ms = seconds * 1000;
    if ms > MAX_TIME_MS {
        return Err(format!("{} is more than 100 hours", quote(text)));
    }
    Ok(ms)
}
