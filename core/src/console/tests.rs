//! Unit tests of the console language: every command and alias in every role, the refusals,
//! "did you mean", the line cap, argument errors, the mapping to the arbiter's inputs, sessions,
//! and the answers to requests from a game played with virtual time.

use shakmaty::{
    ByColor, CastlingMode, Chess, Color, KnownOutcome, Move, Position, Square, fen::Fen, san::San,
};

use super::{answer::NumberedMove, *};
use crate::{
    announce::{Announcement, Check, MoveWords},
    arbiter::Input,
    commands,
    rules::{
        Millis,
        game::{self, Game, QuickplayRuling, RulesConfig},
        time_control::TimeControl,
    },
};

const ROLES: [Role; 3] = [Role::Player, Role::Assistant, Role::Arbiter];
const TOKEN: &str = "0123456789abcdef0123456789abcdef";

fn ok(line: &str, role: Role) -> Command {
    parse(line, role).unwrap_or_else(|e| panic!("{line:?} as {role}: {e}"))
}

fn err(line: &str, role: Role) -> String {
    match parse(line, role) {
        Ok(c) => panic!("{line:?} as {role} parsed as {c:?}"),
        Err(e) => e.to_string(),
    }
}

fn game_action(line: &str) -> Action {
    match ok(line, Role::Arbiter) {
        Command::Game(a) => a,
        other => panic!("{line}: not a game action: {other:?}"),
    }
}

/// The default Braille profile for both sheets (`[record] braille_profile` unset, English
/// voices), at a table whose blind player is White.
fn uk() -> SheetProfiles {
    SheetProfiles::one(uk_profile(), ByColor::new_with(|seat| seat == Color::White))
}

fn uk_profile() -> crate::record::braille::Profile {
    crate::record::braille::Profile::named(crate::record::braille::DEFAULT_PROFILE).unwrap()
}

fn request(line: &str) -> Request {
    match ok(line, Role::Player) {
        Command::Request(r) => r,
        other => panic!("{line}: not a request: {other:?}"),
    }
}

// ---- The table, the roles, the aliases ----

#[test]
fn every_command_and_alias_parses_in_the_roles_that_allow_it_and_is_refused_in_the_others() {
    for spec in COMMANDS {
        let args = spec.example.split_once(' ').map_or("", |(_, a)| a);
        assert!(
            spec.example.split_whitespace().next() == Some(spec.name),
            "{}: the example must start with the name",
            spec.name
        );
        let alias_line = format!("{} {args}", spec.alias);
        let upper_line = format!("{} {args}", spec.name.to_uppercase());
        for line in [spec.example, alias_line.as_str(), upper_line.as_str()] {
            for role in ROLES {
                let result = parse(line, role);
                if role >= spec.role {
                    let parsed = result.unwrap_or_else(|e| panic!("{line:?} as {role}: {e}"));
                    // The alias means exactly what the name means.
                    assert_eq!(parsed, ok(spec.example, role), "{line:?}");
                } else {
                    assert_eq!(
                        result,
                        Err(ConsoleError::NotAllowed {
                            command: spec.name,
                            role,
                            needs: spec.role
                        }),
                        "{line:?} as {role}"
                    );
                }
            }
        }
    }
}

#[test]
fn names_aliases_and_synonyms_are_unique_and_short_aliases_are_short() {
    let mut seen = std::collections::HashSet::new();
    for spec in COMMANDS {
        assert!(seen.insert(spec.name), "{} twice", spec.name);
        assert!(seen.insert(spec.alias), "{} twice", spec.alias);
        assert!(spec.alias.len() <= 3 && spec.alias.len() < spec.name.len());
        assert!(!spec.what.is_empty());
    }
    for (synonym, name) in commands::SYNONYMS {
        assert!(seen.insert(synonym), "{synonym} twice");
        assert!(commands::lookup(synonym).is_some_and(|s| s.name == *name));
    }
}

#[test]
fn a_refused_command_says_which_role_it_needs_and_how_to_get_it() {
    let e = err("pause", Role::Player);
    assert!(e.contains("'pause' is for the arbiter only"), "{e}");
    assert!(
        e.contains("player role") && e.contains("login TOKEN"),
        "{e}"
    );
    let e = err("of", Role::Player);
    assert!(
        e.contains("'offer' is for the assistant and the arbiter"),
        "{e}"
    );
    assert!(e.contains("at the assistant's console"), "{e}");
    // The role is checked before the arguments: a bad argument is not even read.
    assert!(matches!(
        parse("set-clock purple forever", Role::Assistant),
        Err(ConsoleError::NotAllowed { .. })
    ));
}

#[test]
fn unknown_commands_get_the_closest_name() {
    assert_eq!(
        err("tme", Role::Player),
        "unknown command 'tme'; did you mean 'time'?"
    );
    assert_eq!(
        err("stauts", Role::Assistant),
        "unknown command 'stauts'; did you mean 'status'?"
    );
    assert!(err("rseign", Role::Assistant).ends_with("did you mean 'resign'?"));
    assert!(err("squre e4", Role::Player).ends_with("did you mean 'square'?"));
    assert!(err("diagnal a1 h8", Role::Player).ends_with("did you mean 'diagonal'?"));
    // Suggested even when the role may not use it: the refusal then says why.
    assert!(err("puase", Role::Player).ends_with("did you mean 'pause'?"));
    assert_eq!(
        err("xyzzy", Role::Arbiter),
        "unknown command 'xyzzy'; type help for the commands"
    );
    assert_eq!(
        err("TME", Role::Player),
        "unknown command 'tme'; did you mean 'time'?"
    );
    // A huge unknown word is not echoed in full.
    let e = err(&"z".repeat(3000), Role::Player);
    assert!(e.len() < 120, "{e}");
}

#[test]
fn lines_are_capped_and_garbage_is_refused() {
    // Exactly the cap is a line; one byte more is not.
    let mut line = String::from("scoresheet white");
    while line.len() < MAX_LINE {
        line.push_str(" e4");
    }
    line.truncate(MAX_LINE);
    assert_eq!(line.len(), MAX_LINE);
    assert!(parse(&line, Role::Arbiter).is_ok());
    line.push('x');
    assert_eq!(
        parse(&line, Role::Arbiter),
        Err(ConsoleError::TooLong {
            len: MAX_LINE + 1,
            max: MAX_LINE
        })
    );
    let mib = "a".repeat(1 << 20);
    assert!(matches!(
        parse(&mib, Role::Arbiter),
        Err(ConsoleError::TooLong { .. })
    ));
    // The line end does not count, CR LF included.
    assert_eq!(
        ok("time\r\n", Role::Player),
        Command::Request(Request::Times)
    );
    assert_eq!(
        ok("  time  \n", Role::Player),
        Command::Request(Request::Times)
    );
    assert_eq!(parse("", Role::Player), Err(ConsoleError::Empty));
    assert_eq!(parse(" \t ", Role::Player), Err(ConsoleError::Empty));
    assert_eq!(
        parse("time\0", Role::Player),
        Err(ConsoleError::ControlCharacters)
    );
    let garbage = String::from_utf8_lossy(&[0xff, 0x00, 0x1b, b'[', b'2', b'J', 0x80]).into_owned();
    assert_eq!(
        parse(&garbage, Role::Arbiter),
        Err(ConsoleError::ControlCharacters)
    );
    // Mid-line CR is a control character too (a half line glued to another).
    assert_eq!(
        parse("time\rpause", Role::Arbiter),
        Err(ConsoleError::ControlCharacters)
    );
    // Non-ASCII text that is not a command is just unknown, never a panic.
    assert!(err("Läufer", Role::Player).starts_with("unknown command 'läufer'"));
    assert!(err("square €4", Role::Player).contains("not a square"));
}

#[test]
fn every_parse_of_arbitrary_text_ends_in_a_value() {
    // A cheap fuzz: every prefix and every split of lines made of command words and junk.
    let words = [
        "claim",
        "9.2a",
        "e4",
        "sighted",
        "set-clock",
        "+",
        "-",
        ":",
        "1:",
        "99:99",
        "h",
        "m",
        "s",
        "ß",
        "½-½",
        "diagonal",
        "a1-",
        "-h8",
        "pieces",
        "b",
        "penalty",
        "bonus",
        "0",
    ];
    for (i, a) in words.iter().enumerate() {
        for b in &words[i..] {
            for c in &words {
                let line = format!("{a} {b} {c}");
                for role in ROLES {
                    let _ = parse(&line, role);
                }
            }
        }
    }
}

// ---- What each command means ----

#[test]
fn session_commands() {
    assert_eq!(ok("help", Role::Player), Command::Help(None));
    assert_eq!(ok("?", Role::Player), Command::Help(None));
    assert_eq!(ok("help t", Role::Player), Command::Help(Some("time")));
    assert_eq!(ok("help pause", Role::Player), Command::Help(Some("pause")));
    assert!(err("help tme", Role::Player).contains("did you mean 'time'"));
    assert_eq!(ok("quit", Role::Player), Command::Quit);
    assert_eq!(ok("exit", Role::Player), Command::Quit);
    assert!(err("quit now", Role::Player).contains("takes no arguments"));
    assert_eq!(
        ok("role player", Role::Arbiter),
        Command::Role {
            role: Role::Player,
            seat: None
        }
    );
    assert_eq!(
        ok("ro Assistant", Role::Player),
        Command::Role {
            role: Role::Assistant,
            seat: None
        }
    );
    assert!(err("role arbiter", Role::Assistant).contains("login TOKEN"));
    assert!(err("role king", Role::Assistant).contains("'king' is not a role"));
    assert!(err("role", Role::Assistant).contains("player or assistant is missing"));
    assert_eq!(
        ok(&format!("login {TOKEN}"), Role::Player),
        Command::Login {
            token: TOKEN.into()
        }
    );
    assert!(err("login", Role::Player).contains("token is missing"));
    assert!(err("login a b", Role::Player).contains("one word too many"));
}

#[test]
fn requests() {
    assert_eq!(request("count"), Request::MovesCompleted);
    assert_eq!(request("c"), Request::MovesCompleted);
    assert_eq!(request("t"), Request::Times);
    assert_eq!(request("last"), Request::LastMove);
    assert_eq!(request("moves"), Request::Moves(None));
    assert_eq!(request("moves all"), Request::Moves(None));
    assert_eq!(request("m 3"), Request::Moves(Some(3)));
    assert_eq!(request("turn"), Request::ToMove);
    assert_eq!(request("square e4"), Request::Square(Square::E4));
    assert_eq!(request("s H8"), Request::Square(Square::H8));
    assert_eq!(request("square Eva4"), Request::Square(Square::E4));
    assert_eq!(request("square hector1"), Request::Square(Square::H1));
    assert_eq!(
        request("rank 1"),
        Request::Line(Line::Rank(shakmaty::Rank::First))
    );
    assert_eq!(
        request("r vier"),
        Request::Line(Line::Rank(shakmaty::Rank::Fourth))
    );
    assert_eq!(
        request("file e"),
        Request::Line(Line::File(shakmaty::File::E))
    );
    assert_eq!(
        request("f Gustav"),
        Request::Line(Line::File(shakmaty::File::G))
    );
    assert_eq!(
        request("diagonal c1 h6"),
        Request::Line(Line::Diagonal {
            from: Square::C1,
            to: Square::H6
        })
    );
    assert_eq!(
        request("d h8-a1"),
        Request::Line(Line::Diagonal {
            from: Square::H8,
            to: Square::A1
        })
    );
    assert_eq!(
        request("pieces mine knight"),
        Request::Pieces {
            side: Some(Side::Blind),
            kind: Some(shakmaty::Role::Knight)
        }
    );
    assert_eq!(
        request("p knights his"),
        Request::Pieces {
            side: Some(Side::Sighted),
            kind: Some(shakmaty::Role::Knight)
        }
    );
    assert_eq!(
        request("pieces white"),
        Request::Pieces {
            side: Some(Side::White),
            kind: None
        }
    );
    assert_eq!(
        request("pieces Q"),
        Request::Pieces {
            side: None,
            kind: Some(shakmaty::Role::Queen)
        }
    );
    assert_eq!(
        request("pieces schwarz Läufer"),
        Request::Pieces {
            side: Some(Side::Black),
            kind: Some(shakmaty::Role::Bishop)
        }
    );
    assert_eq!(request("material"), Request::Material);
    assert_eq!(request("repeat"), Request::Repeat);
    assert_eq!(request("stop"), Request::Stop);
    assert_eq!(request("sp"), Request::Stop);
}

#[test]
fn request_argument_errors() {
    let p = Role::Player;
    assert!(err("moves 0", p).contains("'0' is not a number of moves"));
    assert!(err("moves few", p).contains("'few' is not a number"));
    assert!(err("square", p).contains("the square (like e4) is missing"));
    assert!(err("square e9", p).contains("'e9' is not a square"));
    assert!(err("square e4 e5", p).contains("'e5' is one word too many"));
    assert!(err("rank 9", p).contains("'9' is not a rank: 1 to 8"));
    assert!(err("file i", p).contains("'i' is not a file: a to h"));
    assert!(err("diagonal a1 b3", p).contains("a1 and b3 are not on one diagonal"));
    assert!(err("diagonal a1 a1", p).contains("not on one diagonal"));
    assert!(err("diagonal a1", p).contains("second end square is missing"));
    assert!(err("pieces", p).contains("say whose pieces, which kind, or both"));
    assert!(err("pieces dragons", p).contains("'dragons' is not a side or a kind"));
    assert!(err("time now", p).contains("time: it takes no arguments, but 'now' follows"));
    // Every argument error names the command and shows its usage.
    assert!(err("rank x", p).starts_with("rank: "));
    assert!(err("rank x", p).ends_with("write: rank 1-8"));
}

#[test]
fn assistant_actions() {
    use Action as A;
    assert_eq!(game_action("start"), A::Start { anyway: false });
    assert_eq!(game_action("go anyway"), A::Start { anyway: true });
    assert!(err("start now", Role::Assistant).contains("'now' is not how to start"));
    assert_eq!(game_action("press"), A::Press);
    assert_eq!(game_action("mv Nf3"), A::Move("Nf3".into()));
    assert_eq!(game_action("move e7 e8 Q"), A::Move("e7 e8 Q".into()));
    assert_eq!(game_action("correct Nbd2"), A::Correct("Nbd2".into()));
    assert_eq!(
        game_action("promote Springer"),
        A::Promote(shakmaty::Role::Knight)
    );
    assert_eq!(game_action("pm q"), A::Promote(shakmaty::Role::Queen));
    assert_eq!(game_action("offer"), A::Offer(Side::Blind));
    assert_eq!(game_action("offer white"), A::Offer(Side::White));
    assert_eq!(game_action("accept sighted"), A::Accept(Side::Sighted));
    assert_eq!(game_action("decline black"), A::Decline(Side::Black));
    assert_eq!(game_action("resign blind"), A::Resign(Side::Blind));
    assert_eq!(game_action("rs sighted"), A::Resign(Side::Sighted));
    assert_eq!(game_action("claim illegal"), A::ClaimIllegal(Side::Blind));
    assert_eq!(
        game_action("cl sighted illegal"),
        A::ClaimIllegal(Side::Sighted)
    );
    assert_eq!(
        game_action("claim repetition"),
        A::Claim {
            by: Side::Blind,
            kind: ClaimKind::Repetition,
            intended: None
        }
    );
    assert_eq!(
        game_action("cl sighted 9.3a Nf3"),
        A::Claim {
            by: Side::Sighted,
            kind: ClaimKind::FiftyMoves,
            intended: Some("Nf3".into())
        }
    );
    assert_eq!(
        game_action("claim fifty"),
        A::Claim {
            by: Side::Blind,
            kind: ClaimKind::FiftyMoves,
            intended: None
        }
    );
    assert_eq!(game_action("flag"), A::Flag(Side::Blind));
    assert_eq!(game_action("quickplay black"), A::Quickplay(Side::Black));
    assert_eq!(
        game_action("touch g1"),
        A::Touch {
            by: Side::Sighted,
            square: Square::G1
        }
    );
    assert_eq!(
        game_action("touch blind e2"),
        A::Touch {
            by: Side::Blind,
            square: Square::E2
        }
    );
    assert_eq!(
        game_action("adjust e4"),
        A::Adjust {
            by: Side::Blind,
            square: Square::E4
        }
    );
    // A sealed move is kept as written: an illegal one loses at resumption, not here.
    assert_eq!(game_action("seal Qxh9??"), A::Seal("Qxh9??".into()));
}

#[test]
fn assistant_argument_errors() {
    let a = Role::Assistant;
    assert!(err("move", a).contains("the move is missing"));
    assert!(err("seal", a).contains("the move is missing"));
    assert!(err("promote k", a).contains("'k' is not a promotion piece"));
    assert!(err("promote", a).contains("q, r, b or n is missing"));
    assert!(err("offer grey", a).contains("'grey' is one word too many"));
    assert!(err("offer white black", a).contains("'black' is one word too many"));
    assert!(err("claim", a).contains("repetition, fifty or illegal is missing"));
    assert!(err("claim stalemate", a).contains("'stalemate' is not a claim"));
    assert!(err("claim 9.2a", a).contains("needs the move he intends to make"));
    assert!(err("claim 9.3b Nf3", a).contains("no move follows it"));
    assert!(err("touch", a).contains("the square (like e4) is missing"));
    assert!(err("touch white", a).contains("square (like e4) is missing"));
    assert!(err("adjust z9", a).contains("'z9' is not a square"));
}

#[test]
fn arbiter_actions() {
    use Action as A;
    assert_eq!(game_action("pause"), A::Pause);
    assert_eq!(game_action("re"), A::Resume);
    assert_eq!(
        game_action("set-clock white 1:30:00"),
        A::SetClock {
            side: Side::White,
            remaining_ms: 5_400_000
        }
    );
    assert_eq!(
        game_action("sc sighted 0:00"),
        A::SetClock {
            side: Side::Sighted,
            remaining_ms: 0
        }
    );
    assert_eq!(
        game_action("add-time black +2m"),
        A::AddTime {
            side: Side::Black,
            delta_ms: 120_000
        }
    );
    assert_eq!(
        game_action("at blind -30s"),
        A::AddTime {
            side: Side::Blind,
            delta_ms: -30_000
        }
    );
    assert_eq!(
        game_action("set-moves white 40"),
        A::SetMoves {
            side: Side::White,
            moves: 40
        }
    );
    assert_eq!(game_action("rule draw"), A::Rule(QuickplayRuling::Draw));
    assert_eq!(game_action("rule reject"), A::Rule(QuickplayRuling::Reject));
    assert_eq!(
        game_action("rule postpone"),
        A::Rule(QuickplayRuling::Postpone {
            extra_time_to_opponent: false
        })
    );
    assert_eq!(
        game_action("ru postpone extra"),
        A::Rule(QuickplayRuling::Postpone {
            extra_time_to_opponent: true
        })
    );
    assert_eq!(game_action("illegal black"), A::Illegal(Side::Black));
    assert_eq!(
        game_action("scoresheet black 1. e4 e5 2.Nf3 2...Nc6 3. Bb5 *"),
        A::Scoresheet {
            side: Side::Black,
            sans: vec!["e4", "e5", "Nf3", "Nc6", "Bb5"]
                .into_iter()
                .map(String::from)
                .collect()
        }
    );
    assert_eq!(
        game_action("scoresheet white"),
        A::Scoresheet {
            side: Side::White,
            sans: vec![]
        }
    );
    assert_eq!(game_action("confirm-clocks"), A::ConfirmClocks);
    assert_eq!(game_action("takeback 0"), A::TakeBack { to_ply: 0 });
    assert_eq!(game_action("tb 20"), A::TakeBack { to_ply: 20 });
    assert_eq!(
        game_action("result 1-0"),
        A::Result(KnownOutcome::Decisive {
            winner: Color::White
        })
    );
    assert_eq!(
        game_action("result 0-1"),
        A::Result(KnownOutcome::Decisive {
            winner: Color::Black
        })
    );
    assert_eq!(game_action("rt ½-½"), A::Result(KnownOutcome::Draw));
    assert_eq!(game_action("result 1/2-1/2"), A::Result(KnownOutcome::Draw));
    assert_eq!(
        game_action("penalty white bonus 2m"),
        A::Penalty {
            offender: Side::White,
            penalty: Penalty::Bonus,
            ms: 120_000
        }
    );
    assert_eq!(
        game_action("pe sighted deduct 1m30s"),
        A::Penalty {
            offender: Side::Sighted,
            penalty: Penalty::Deduct,
            ms: 90_000
        }
    );
}

#[test]
fn arbiter_argument_errors() {
    let a = Role::Arbiter;
    assert!(err("set-clock", a).contains("the side (white, black, blind or sighted) is missing"));
    assert!(err("set-clock green 5:00", a).contains("'green' is not a side"));
    assert!(err("set-clock white", a).contains("the time left, like 1:30:00 is missing"));
    assert!(err("set-clock white -5:00", a).contains("has no sign"));
    assert!(err("set-clock white 90", a).contains("'90' is not a time"));
    assert!(err("set-clock white 1:60:00", a).contains("is not a time"));
    assert!(err("set-clock white 1:5", a).contains("is not a time"));
    assert!(err("set-clock white 200h", a).contains("more than 100 hours"));
    assert!(err("add-time white 0s", a).contains("adding no time changes nothing"));
    assert!(err("add-time white +", a).contains("is not a time"));
    assert!(err("set-moves white -1", a).contains("'-1' is not a number of moves"));
    assert!(err("rule maybe", a).contains("'maybe' is not a ruling"));
    assert!(err("rule postpone later", a).contains("only extra"));
    assert!(err("illegal", a).contains("the side"));
    assert!(err("scoresheet", a).contains("the side"));
    assert!(err("takeback -1", a).contains("is not a number of half-moves"));
    assert!(err("result 2-0", a).contains("'2-0' is not a result: 1-0, 0-1 or 1/2-1/2"));
    assert!(err("penalty white fine 2m", a).contains("'fine' is not a time penalty"));
    assert!(err("penalty white bonus", a).contains("the time, like 2m is missing"));
    assert!(err("penalty white bonus 0:00", a).contains("no time changes nothing"));
    assert!(err("pause now", a).contains("takes no arguments"));
}

#[test]
fn durations() {
    use super::parse::duration;
    for (text, ms) in [
        ("1:30:00", 5_400_000),
        ("90:00", 5_400_000),
        ("5:00", 300_000),
        ("0:05", 5_000),
        ("90s", 90_000),
        ("2m", 120_000),
        ("2M30S", 150_000),
        ("1h30m", 5_400_000),
        ("1h", 3_600_000),
        ("0s", 0),
    ] {
        assert_eq!(duration(text), Ok(ms), "{text}");
    }
    for text in [
        "", "90", "1:2:3:4", "1:60", "1::00", ":30", "1h1h", "30s2m", "m", "2x", "1.5m", "1:3",
        "9999999s",
    ] {
        assert!(duration(text).is_err(), "{text} should not parse");
    }
}

#[test]
fn help_lists_each_roles_commands() {
    let player = help_lines(Role::Player, None);
    let assistant = help_lines(Role::Assistant, None);
    let arbiter = help_lines(Role::Arbiter, None);
    assert!(player[0].contains("player role"));
    assert!(player.iter().any(|l| l.starts_with("time (t): ")));
    assert!(player.iter().any(|l| l.starts_with("square SQUARE (s): ")));
    assert!(!player.iter().any(|l| l.starts_with("offer")));
    // His own resignation is his (typed twice at the table: `table::keypad`).
    assert!(player.iter().any(|l| l.starts_with("resign SIDE (rs): ")));
    assert!(
        assistant
            .iter()
            .any(|l| l.starts_with("resign SIDE (rs): "))
    );
    assert!(!assistant.iter().any(|l| l.starts_with("pause")));
    assert!(arbiter.iter().any(|l| l.starts_with("pause (pa): ")));
    assert_eq!(arbiter.len(), COMMANDS.len() + 1);
    assert!(player.len() < assistant.len() && assistant.len() < arbiter.len());
    // Plain lines: no tabs, no column padding.
    assert!(
        arbiter
            .iter()
            .all(|l| !l.contains('\t') && !l.contains("  "))
    );
    let one = help_lines(Role::Player, Some("penalty"));
    assert!(one[0].starts_with("penalty SIDE bonus|deduct TIME (alias pe): "));
    assert_eq!(one[1], "example: penalty white bonus 2m");
    assert!(one[2].contains("for the arbiter only"));
    assert_eq!(help_lines(Role::Arbiter, Some("penalty")).len(), 2);
}

// ---- Sessions and tokens ----

#[test]
fn a_session_switches_roles_and_needs_the_token_for_the_arbiter() {
    let mut s = Session::new(Role::Assistant, Some(TOKEN.into()));
    assert_eq!(s.role(), Role::Assistant);
    assert!(matches!(
        s.parse("pause"),
        Err(ConsoleError::NotAllowed { .. })
    ));
    // A wrong token changes nothing.
    assert_eq!(
        s.parse("login 0123456789abcdef0123456789abcdee"),
        Err(ConsoleError::BadToken {
            role: Role::Assistant
        })
    );
    assert_eq!(s.role(), Role::Assistant);
    assert!(s.parse("login").is_err());
    assert_eq!(s.role(), Role::Assistant);
    assert!(s.parse(&format!("login {TOKEN}")).is_ok());
    assert_eq!(s.role(), Role::Arbiter);
    assert_eq!(s.parse("pause"), Ok(Command::Game(Action::Pause)));
    // Down to the player's keypad: the assistant's commands are refused now.
    assert_eq!(
        s.parse("role player"),
        Ok(Command::Role {
            role: Role::Player,
            seat: None
        })
    );
    assert!(s.parse("offer blind").is_err());
    assert!(s.parse("time").is_ok());
    // The keypad stays the player's (issue 15): `role` does not raise it, only a login does.
    assert_eq!(
        s.parse("role assistant"),
        Err(ConsoleError::RoleStays { role: Role::Player })
    );
    assert!(s.parse("offer blind").is_err());
    assert_eq!(s.role(), Role::Player);
    // A refused line does not change the role either.
    assert!(s.parse("role arbiter").is_err());
    assert_eq!(s.role(), Role::Player);

    let mut no_token = Session::new(Role::Player, None);
    assert_eq!(
        no_token.parse(&format!("login {TOKEN}")),
        Err(ConsoleError::NoToken)
    );
    assert_eq!(no_token.role(), Role::Player);
}

// ---- Commands as the arbiter's inputs ----

fn input(line: &str, game: &Game, blind: Color) -> Option<arbiter::Input> {
    to_input(&ok(line, Role::Arbiter), game, Some(blind), &uk()).unwrap()
}

use crate::arbiter;

#[test]
fn commands_become_the_arbiters_inputs() {
    use arbiter::Input as I;
    use game::Input as G;
    let g = Game::new(RulesConfig::default());
    let blind = Color::Black;
    let rules = |i: G| Some(I::Rules(i));
    assert_eq!(input("start", &g, blind), Some(I::Start));
    assert_eq!(input("press", &g, blind), Some(I::ClockPress));
    assert_eq!(
        input("move Nf3", &g, blind),
        Some(I::EnterMove("Nf3".into()))
    );
    assert_eq!(
        input("correct e4", &g, blind),
        Some(I::Correct("e4".into()))
    );
    assert_eq!(
        input("promote r", &g, blind),
        Some(I::Promote(shakmaty::Role::Rook))
    );
    // Without a side, the blind player acts; "sighted" is his opponent.
    assert_eq!(
        input("offer", &g, blind),
        rules(G::OfferDraw { by: Color::Black })
    );
    assert_eq!(
        input("accept sighted", &g, blind),
        rules(G::AcceptDraw { by: Color::White })
    );
    assert_eq!(
        input("decline", &g, Color::White),
        rules(G::DeclineDraw { by: Color::White })
    );
    assert_eq!(
        input("resign blind", &g, blind),
        rules(G::Resign { by: Color::Black })
    );
    assert_eq!(
        input("resign sighted", &g, blind),
        rules(G::Resign { by: Color::White })
    );
    assert_eq!(
        input("claim illegal", &g, blind),
        rules(G::ClaimIllegalMove { by: Color::Black })
    );
    assert_eq!(
        input("claim white illegal", &g, blind),
        rules(G::ClaimIllegalMove { by: Color::White })
    );
    assert_eq!(
        input("flag", &g, blind),
        rules(G::ClaimFlag { by: Color::Black })
    );
    assert_eq!(
        input("quickplay", &g, blind),
        rules(G::ClaimQuickplayDraw { by: Color::Black })
    );
    // F.9 e: a touch is the sighted player's unless said otherwise.
    assert_eq!(
        input("touch g1", &g, blind),
        rules(G::Touch {
            by: Color::White,
            square: Square::G1
        })
    );
    // j'adoube is the blind player's unless said otherwise.
    assert_eq!(
        input("adjust e2", &g, blind),
        Some(Input::Adjust {
            by: Color::Black,
            square: Square::E2
        })
    );
    assert_eq!(
        input("adjust sighted e2", &g, blind),
        Some(Input::Adjust {
            by: Color::White,
            square: Square::E2
        })
    );
    // The player having the move seals, whoever types it; the text is read only at resumption.
    assert_eq!(
        input("seal Nf3", &g, blind),
        rules(G::Seal {
            by: Color::White,
            text: "Nf3".into(),
            notation: None
        })
    );
    assert_eq!(
        input("resumption 2026-12-01 10:00 Hall B", &g, blind),
        rules(G::SetResumption {
            text: "2026-12-01 10:00 Hall B".into()
        })
    );
    assert_eq!(input("open", &g, blind), rules(G::OpenEnvelope));
    assert_eq!(input("open absent", &g, blind), rules(G::StartReplierClock));
    assert_eq!(
        input("pause", &g, blind),
        rules(G::Pause(game::PauseReason::Arbiter))
    );
    assert_eq!(
        input("resume", &g, blind),
        rules(G::Resume(game::PauseReason::Arbiter))
    );
    assert_eq!(
        input("set-clock blind 10:00", &g, blind),
        rules(G::SetClock {
            side: Color::Black,
            remaining_ms: 600_000
        })
    );
    assert_eq!(
        input("add-time white -1m", &g, blind),
        rules(G::AdjustClock {
            side: Color::White,
            delta_ms: -60_000
        })
    );
    assert_eq!(
        input("set-moves black 12", &g, blind),
        rules(G::SetMoveCounter {
            side: Color::Black,
            moves: 12
        })
    );
    assert_eq!(
        input("rule draw", &g, blind),
        rules(G::QuickplayRuling(QuickplayRuling::Draw))
    );
    assert_eq!(
        input("illegal white", &g, blind),
        Some(I::Penalty(G::IllegalMove { by: Color::White }))
    );
    assert_eq!(
        input("scoresheet sighted 1. e4", &g, blind),
        Some(I::Scoresheet {
            side: Color::White,
            sans: vec!["e4".into()]
        })
    );
    assert_eq!(input("confirm-clocks", &g, blind), Some(I::ConfirmClocks));
    assert_eq!(
        input("takeback 3", &g, blind),
        rules(G::Retract { to_ply: 3 })
    );
    assert_eq!(
        input("result 0-1", &g, blind),
        rules(G::ArbiterResult {
            outcome: KnownOutcome::Decisive {
                winner: Color::Black
            }
        })
    );
    // 13.4 b: the offender's opponent gets the time; 13.4 c: the offender loses it.
    assert_eq!(
        input("penalty white bonus 2m", &g, blind),
        Some(I::Penalty(G::AdjustClock {
            side: Color::Black,
            delta_ms: 120_000
        }))
    );
    assert_eq!(
        input("penalty white deduct 2m", &g, blind),
        Some(I::Penalty(G::AdjustClock {
            side: Color::White,
            delta_ms: -120_000
        }))
    );
    for line in ["time", "help", "status", "quit", "role player", "repeat"] {
        assert_eq!(input(line, &g, blind), None, "{line}");
    }
}

#[test]
fn claims_read_the_intended_move_in_the_position() {
    use arbiter::Input as I;
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, "e4 e5", 0);
    let claim = |line: &str| to_input(&ok(line, Role::Assistant), &g, Some(Color::White), &uk());
    let nf3 = mv(g.position(), "Nf3");
    assert_eq!(
        claim("claim repetition Nf3"),
        Ok(Some(I::Rules(game::Input::Claim {
            by: Color::White,
            claim: game::DrawClaim::Repetition {
                intended: Some(nf3)
            }
        })))
    );
    assert_eq!(
        claim("claim fifty g1f3"),
        Ok(Some(I::Rules(game::Input::Claim {
            by: Color::White,
            claim: game::DrawClaim::FiftyMoves {
                intended: Some(nf3)
            }
        })))
    );
    assert_eq!(
        claim("claim 9.2b"),
        Ok(Some(I::Rules(game::Input::Claim {
            by: Color::White,
            claim: game::DrawClaim::Repetition { intended: None }
        })))
    );
    let e = claim("claim repetition Nf6").unwrap_err().to_string();
    assert!(e.starts_with("claim: no legal move matches 'Nf6'"), "{e}");
}

// ---- Answers from a game ----

const MIN: i64 = 60_000;

fn mv(pos: &Chess, san: &str) -> Move {
    san.parse::<San>().unwrap().to_move(pos).unwrap()
}

/// Play SAN moves, each ten seconds after the last, from `t`; returns the time of the last.
fn play(game: &mut Game, sans: &str, mut t: Millis) -> Millis {
    for san in sans.split_whitespace() {
        t += 10_000;
        let m = mv(game.position(), san);
        game.apply(game::Input::Move(m), t)
            .unwrap_or_else(|e| panic!("{san}: {e}"));
    }
    t
}

fn clocked() -> Game {
    Game::new(RulesConfig {
        time_control: Some(TimeControl::parse("5400+30").unwrap()),
        ..RulesConfig::default()
    })
}

fn say(a: &Answer) -> &[Announcement] {
    match a {
        Answer::Say(list) => list,
        other => panic!("not said: {other:?}"),
    }
}

#[test]
fn times_and_move_counts_come_from_the_clock() {
    let mut g = clocked();
    g.apply(game::Input::Start, 0).unwrap();
    let t = play(&mut g, "e4 e5 Nf3", 0);
    // White has used 10 s + 10 s, Black 10 s; Black's clock runs since the last move.
    let now = t + 25_000;
    let a = answer(&Request::Times, &g, Color::Black, now);
    assert_eq!(
        say(&a),
        [Announcement::Times {
            white_used_ms: 20_000,
            white_left_ms: 90 * MIN - 20_000 + 2 * 30_000,
            black_used_ms: 35_000,
            black_left_ms: 90 * MIN - 35_000 + 30_000,
        }]
    );
    assert_eq!(
        format_reply(&a),
        ["time: White used 0:00:20, left 1:30:40; Black used 0:00:35, left 1:29:55"]
    );
    let a = answer(&Request::MovesCompleted, &g, Color::Black, now);
    assert_eq!(
        say(&a),
        [Announcement::MovesCompleted { white: 2, black: 1 }]
    );
    assert_eq!(format_reply(&a), ["moves completed: White 2, Black 1"]);
    // The arbiter's counter (6.13) is what counts.
    g.apply(
        game::Input::SetMoveCounter {
            side: Color::White,
            moves: 40,
        },
        now,
    )
    .unwrap();
    assert_eq!(
        say(&answer(&Request::MovesCompleted, &g, Color::Black, now)),
        [Announcement::MovesCompleted {
            white: 40,
            black: 1
        }]
    );
    // A flag that has fallen shows no time left, not a negative one.
    let late = now + 200 * MIN as u64;
    assert!(matches!(
        say(&answer(&Request::Times, &g, Color::Black, late))[0],
        Announcement::Times {
            black_left_ms: 0,
            ..
        }
    ));
}

#[test]
fn without_a_clock_there_is_no_time_but_there_are_moves() {
    let mut g = Game::new(RulesConfig::default());
    assert_eq!(
        answer(&Request::Times, &g, Color::White, 0),
        Answer::Say(vec![Announcement::NoClock])
    );
    assert_eq!(
        answer(&Request::LastMove, &g, Color::White, 0),
        Answer::Say(vec![Announcement::NoMoveYet])
    );
    assert_eq!(
        answer(&Request::Moves(None), &g, Color::White, 0),
        Answer::Say(vec![Announcement::NoMoveYet])
    );
    play(&mut g, "d4 d5 c4", 0);
    assert_eq!(
        say(&answer(&Request::MovesCompleted, &g, Color::White, 0)),
        [Announcement::MovesCompleted { white: 2, black: 1 }]
    );
    assert_eq!(
        say(&answer(&Request::ToMove, &g, Color::White, 0)),
        [Announcement::ToMove { side: Color::Black }]
    );
    assert_eq!(
        format_reply(&answer(&Request::ToMove, &g, Color::White, 0)),
        ["Black to move"]
    );
    assert_eq!(
        answer(&Request::Repeat, &g, Color::White, 0),
        Answer::RepeatLast
    );
}

/// Castling, en passant, a promotion with capture, a disambiguation (Nge2), a check and mate.
const WORDY_GAME: &str = "e4 d5 e5 f5 exf6 Nc6 fxg7 Bf5 gxh8=Q Qd7 Qxg8 O-O-O Nc3 Kb8 Nge2 Bxc2";
const CHECK_GAME: &str = "e4 e5 Bc4 Nc6 Bxf7+ Kxf7 Nf3 Nf6 O-O";
const MATE_GAME: &str = "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#";

fn numbered(g: &Game, n: Option<usize>) -> Vec<NumberedMove> {
    match answer(&Request::Moves(n), g, Color::White, 0) {
        Answer::Moves(moves) => moves,
        other => panic!("no moves: {other:?}"),
    }
}

#[test]
fn recorded_moves_are_read_back_with_the_words_of_their_announcement() {
    for sans in [WORDY_GAME, CHECK_GAME, MATE_GAME] {
        let mut g = Game::new(RulesConfig::default());
        let mut pos = Chess::default();
        let mut expected = Vec::new();
        for san in sans.split_whitespace() {
            let m = mv(&pos, san);
            expected.push(MoveWords::new(&pos, m));
            pos.play_unchecked(m);
        }
        play(&mut g, sans, 0);
        let words: Vec<MoveWords> = numbered(&g, None).iter().map(|m| m.words).collect();
        assert_eq!(words, expected, "{sans}");
    }
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, WORDY_GAME, 0);
    let all = numbered(&g, None);
    let numbers: Vec<u32> = all.iter().map(|m| m.number).collect();
    assert_eq!(numbers, [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]);
    let lines = format_reply(&answer(&Request::Moves(None), &g, Color::White, 0));
    // One line per move number, White's and Black's, with their colours (as said).
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0], "1. White e2-e4, Black d7-d5");
    assert_eq!(lines[2], "3. White e5xf6 e.p., Black Nb8-c6");
    assert_eq!(lines[4], "5. White g7xh8=Q, Black Qd8-d7");
    assert_eq!(lines[5], "6. White Qh8xg8, Black O-O-O");
    assert_eq!(lines[7], "8. White Ng1-e2, Black Bf5xc2");
    assert!(all[14].words.disambiguate_file);
    // The last N moves (a move is White's and Black's, as a player counts them), oldest
    // first; the last move alone.
    let last2 = answer(&Request::Moves(Some(2)), &g, Color::White, 0);
    assert_eq!(
        format_reply(&last2),
        [
            "7. White Nb1-c3, Black Kc8-b8",
            "8. White Ng1-e2, Black Bf5xc2"
        ]
    );
    // After White's move the last move is his alone.
    let mut white_last = Game::new(RulesConfig::default());
    play(&mut white_last, "e4 e5 Nf3", 0);
    assert_eq!(
        format_reply(&answer(
            &Request::Moves(Some(1)),
            &white_last,
            Color::White,
            0
        )),
        ["2. White Ng1-f3"]
    );
    assert_eq!(
        format_reply(&answer(
            &Request::Moves(Some(2)),
            &white_last,
            Color::White,
            0
        )),
        ["1. White e2-e4, Black e7-e5", "2. White Ng1-f3"]
    );
    let last3 = answer(&Request::Moves(Some(2)), &g, Color::White, 0);
    assert_eq!(
        answer(&Request::LastMove, &g, Color::White, 0),
        Answer::Moves(vec![all[15]])
    );
    // More than there are: all of them.
    assert_eq!(numbered(&g, Some(500)), all);
    // What is said is the moves, in the words of their announcements, one announcement per
    // move number (said one after the other, so that his next request cuts it between moves),
    // each a reply (which yields to the game's own announcements).
    assert_eq!(
        last3.announcements(),
        vec![
            Announcement::Recital {
                number: 7,
                moves: all[12..14].iter().map(|m| m.words).collect()
            },
            Announcement::Recital {
                number: 8,
                moves: all[14..].iter().map(|m| m.words).collect()
            }
        ]
    );
    assert_eq!(
        last3.announcements()[0].priority(),
        crate::announce::Priority::Info
    );
    // Check, mate and short castling.
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, CHECK_GAME, 0);
    let lines = format_reply(&answer(&Request::Moves(None), &g, Color::White, 0));
    assert_eq!(lines[2], "3. White Bc4xf7+, Black Ke8xf7");
    assert_eq!(lines[4], "5. White O-O");
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, MATE_GAME, 0);
    let last = numbered(&g, Some(1));
    assert_eq!(last[0].words.check, Check::Mate);
    assert_eq!(
        format_reply(&answer(&Request::LastMove, &g, Color::White, 0)),
        ["4. White Qh5xf7#"]
    );
}

#[test]
fn the_disambiguation_of_a_recorded_move_is_kept() {
    // Both knights can reach d2: the record says Nbd2, and so do the words.
    let pos: Chess = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut g = Game::from_position(RulesConfig::default(), pos.clone());
    let m = mv(&pos, "Nbd2");
    g.apply(game::Input::Move(m), 1).unwrap();
    let Answer::Moves(last) = answer(&Request::LastMove, &g, Color::White, 0) else {
        panic!()
    };
    assert_eq!(last[0].words, MoveWords::new(&pos, m));
    assert!(last[0].words.disambiguate_file);
}

#[test]
fn a_game_from_a_position_with_black_to_move_is_numbered_from_it() {
    let pos: Chess = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let mut g = Game::from_position(RulesConfig::default(), pos);
    play(&mut g, "Kd7 e4 Kc6", 0);
    assert_eq!(
        format_reply(&answer(&Request::Moves(None), &g, Color::White, 0)),
        ["30. Black Ke8-d7", "31. White e2-e4, Black Kd7-c6"]
    );
}

#[test]
fn squares_lines_and_pieces_are_read_from_the_position() {
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, "e4 e5 Nf3 Nc6 Bc4", 0);
    let blind = Color::Black;
    let ask = |r: Request| answer(&r, &g, blind, 0);
    let wn = Color::White.knight();
    let bn = Color::Black.knight();
    assert_eq!(
        say(&ask(Request::Square(Square::F3))),
        [Announcement::SquareContents {
            square: Square::F3,
            piece: Some(wn)
        }]
    );
    assert_eq!(
        format_reply(&ask(Request::Square(Square::F3))),
        ["f3: white knight"]
    );
    assert_eq!(
        format_reply(&ask(Request::Square(Square::E3))),
        ["e3: empty"]
    );
    // A rank from a to h.
    assert_eq!(
        say(&ask(Request::Line(Line::Rank(shakmaty::Rank::Fourth)))),
        [Announcement::LineContents {
            pieces: vec![
                (Square::C4, Color::White.bishop()),
                (Square::E4, Color::White.pawn())
            ]
        }]
    );
    // A file from 1 to 8.
    assert_eq!(
        format_reply(&ask(Request::Line(Line::File(shakmaty::File::E)))),
        ["e1 white king, e4 white pawn, e5 black pawn, e8 black king"]
    );
    assert_eq!(
        format_reply(&ask(Request::Line(Line::Rank(shakmaty::Rank::Third)))),
        ["f3 white knight"]
    );
    assert_eq!(
        format_reply(&ask(Request::Line(Line::Rank(shakmaty::Rank::Sixth)))),
        ["c6 black knight"]
    );
    // A diagonal in the order asked, both ends included, only the occupied squares named.
    assert_eq!(
        say(&ask(Request::Line(Line::Diagonal {
            from: Square::F7,
            to: Square::A2
        }))),
        [Announcement::LineContents {
            pieces: vec![
                (Square::F7, Color::Black.pawn()),
                (Square::C4, Color::White.bishop()),
                (Square::A2, Color::White.pawn()),
            ]
        }]
    );
    assert_eq!(
        format_reply(&ask(Request::Line(Line::Diagonal {
            from: Square::A6,
            to: Square::C8
        }))),
        ["b7 black pawn, c8 black bishop"]
    );
    assert_eq!(
        format_reply(&ask(Request::Line(Line::Diagonal {
            from: Square::H3,
            to: Square::F5
        }))),
        ["nothing stands on this line"]
    );
    // Pieces of a kind: "mine" is the blind player's (Black), then both sides, his own first.
    assert_eq!(
        say(&ask(Request::Pieces {
            side: Some(Side::Blind),
            kind: Some(shakmaty::Role::Knight)
        })),
        [Announcement::PiecesOfKind {
            piece: bn,
            squares: vec![Square::C6, Square::G8]
        }]
    );
    assert_eq!(
        format_reply(&ask(Request::Pieces {
            side: None,
            kind: Some(shakmaty::Role::Knight)
        })),
        ["black knights: c6, g8", "white knights: b1, f3"]
    );
    assert_eq!(
        format_reply(&ask(Request::Pieces {
            side: Some(Side::Sighted),
            kind: Some(shakmaty::Role::King)
        })),
        ["white king: e1"]
    );
    // A colour: every kind it has, king first.
    let white = format_reply(&ask(Request::Pieces {
        side: Some(Side::White),
        kind: None,
    }));
    assert_eq!(
        white,
        [
            "white king: e1",
            "white queen: d1",
            "white rooks: a1, h1",
            "white bishops: c1, c4",
            "white knights: b1, f3",
            "white pawns: a2, b2, c2, d2, f2, g2, h2, e4"
        ]
    );
    // Material: all there.
    assert_eq!(
        say(&ask(Request::Material)),
        [Announcement::Material {
            white: 39,
            black: 39
        }]
    );
    assert_eq!(
        format_reply(&ask(Request::Material)),
        ["material: White 39, Black 39 (equal)"]
    );
}

#[test]
fn material_and_missing_pieces_after_captures() {
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, "e4 d5 exd5 Qxd5 Nc3 Qa5 d4", 0);
    assert_eq!(
        format_reply(&answer(&Request::Material, &g, Color::White, 0)),
        ["material: White 38, Black 38 (equal)"]
    );
    play(&mut g, "Qxc3+ bxc3", 100_000);
    assert_eq!(
        format_reply(&answer(&Request::Material, &g, Color::White, 0)),
        ["material: White 35, Black 29 (White +6)"]
    );
    assert_eq!(
        format_reply(&answer(
            &Request::Pieces {
                side: Some(Side::Black),
                kind: Some(shakmaty::Role::Queen)
            },
            &g,
            Color::White,
            0
        )),
        ["no black queen"]
    );
}

#[test]
fn line_scans_cover_whole_lines_in_order() {
    let rank = Line::Rank(shakmaty::Rank::Second).squares();
    assert_eq!(rank.first(), Some(&Square::A2));
    assert_eq!(rank.last(), Some(&Square::H2));
    assert_eq!(rank.len(), 8);
    let file = Line::File(shakmaty::File::C).squares();
    assert_eq!((file[0], file[7]), (Square::C1, Square::C8));
    let long = Line::Diagonal {
        from: Square::H8,
        to: Square::A1,
    }
    .squares();
    assert_eq!(long.len(), 8);
    assert_eq!(
        (long[0], long[1], long[7]),
        (Square::H8, Square::G7, Square::A1)
    );
    let anti = Line::Diagonal {
        from: Square::A8,
        to: Square::H1,
    }
    .squares();
    assert_eq!(anti[1], Square::B7);
    assert_eq!(anti.len(), 8);
    // Short diagonals, all four directions.
    for (from, to, middle) in [
        (Square::C1, Square::E3, Square::D2),
        (Square::E3, Square::C1, Square::D2),
        (Square::C3, Square::E1, Square::D2),
        (Square::E1, Square::C3, Square::D2),
    ] {
        assert_eq!(Line::Diagonal { from, to }.squares(), [from, middle, to]);
    }
}

#[test]
fn every_announcement_has_a_printed_line() {
    use crate::announce::{Guidance, ResultWords, WhichBoard};
    use crate::rules::game::Article;
    let p = Color::White.knight();
    let all = [
        Announcement::Stalemate,
        Announcement::DeadPosition,
        Announcement::DrawOffered { by: Color::White },
        Announcement::DrawAccepted,
        Announcement::DrawDeclined { by: Color::Black },
        Announcement::ClaimMade {
            by: Color::White,
            article: Article::A9_2a,
        },
        Announcement::ClaimUpheld {
            article: Article::A9_3b,
        },
        Announcement::ClaimRejected {
            article: Article::A9_2b,
        },
        Announcement::FlagFell { side: Color::Black },
        Announcement::Result(ResultWords::Draw),
        Announcement::Touched {
            piece: p,
            square: Square::G1,
        },
        Announcement::IllegalMove,
        Announcement::Guidance(Guidance::Misplaced {
            piece: p,
            found: Square::F4,
            belongs: Square::F3,
        }),
        Announcement::BoardDisconnected {
            board: WhichBoard::Tactile,
        },
        Announcement::ClocksPaused,
        Announcement::SpeechFallback,
    ];
    for a in &all {
        let line = format_announcement(a);
        assert!(!line.is_empty() && !line.contains('\n'), "{a:?}: {line:?}");
    }
    assert_eq!(
        format_announcement(&all[12]),
        "white knight stands on f4, belongs on f3"
    );
    assert_eq!(
        format_announcement(&all[5]),
        "White claims a draw under 9.2a"
    );
}

#[test]
fn the_request_names_are_the_players_requests_of_the_table() {
    assert_eq!(
        super::request_names(),
        [
            "count", "time", "last", "moves", "turn", "square", "rank", "file", "diagonal",
            "pieces", "material", "repeat", "stop"
        ]
    );
}

// ---- Issue 13: resignation, blitz claims, requests passed on ----

/// A resignation ends the game: the side is never assumed, so that `rs` alone (two keystrokes
/// from anything) is refused and changes nothing, and says how to write it.
#[test]
fn resign_5_1_b_needs_the_side_explicitly() {
    for role in [Role::Assistant, Role::Arbiter] {
        for line in ["resign", "rs", "RESIGN"] {
            let e = err(line, role);
            assert!(
                e.starts_with("resign: whose game: blind, sighted, white or black"),
                "{line}: {e}"
            );
            assert!(e.ends_with("write: resign SIDE"), "{e}");
        }
        // At his own keypad `resign` alone is his own game; the table asks him to type it
        // again before it counts.
        for line in ["resign", "rs", "RESIGN"] {
            assert_eq!(
                ok(line, Role::Player),
                Command::Game(Action::Resign(Side::Blind))
            );
        }
        assert!(err("resign me", role).contains("'me' is not a side"));
        assert!(err("resign blind now", role).contains("'now' is one word too many"));
    }
    assert_eq!(game_action("resign white"), Action::Resign(Side::White));
    assert_eq!(game_action("rs black"), Action::Resign(Side::Black));
}

/// Appendix C (blitz): the opponent of an illegal mover claims the win before he moves; the
/// claimer is the blind player unless a side is named before `illegal`, and nothing follows it.
#[test]
fn claim_illegal_appendix_c_reaches_the_rules() {
    let g = Game::new(RulesConfig::default());
    assert_eq!(
        to_input(
            &ok("claim illegal", Role::Assistant),
            &g,
            Some(Color::White),
            &uk()
        ),
        Ok(Some(Input::Rules(game::Input::ClaimIllegalMove {
            by: Color::White
        })))
    );
    assert_eq!(
        to_input(
            &ok("cl sighted ILLEGAL", Role::Assistant),
            &g,
            Some(Color::White),
            &uk()
        ),
        Ok(Some(Input::Rules(game::Input::ClaimIllegalMove {
            by: Color::Black
        })))
    );
    let e = err("claim illegal e4", Role::Assistant);
    assert!(e.contains("'e4' after illegal"), "{e}");
    assert!(err("claim stalemate", Role::Assistant).contains("illegal (blitz)"));
    assert!(matches!(
        parse("claim illegal", Role::Player),
        Err(ConsoleError::NotAllowed { .. })
    ));
}

/// F.9 d: `tell REQUEST` is the assistant passing on the answer the blind player asked him for:
/// every request of the player's role, written as he writes it, with its own arguments checked.
#[test]
fn tell_f9_d_carries_any_request_of_the_blind_player() {
    for name in request_names() {
        let spec = commands::lookup(name).unwrap();
        let line = format!("tell {}", spec.example);
        let Command::Request(expected) = ok(spec.example, Role::Player) else {
            panic!("{name} is a request");
        };
        for role in [Role::Assistant, Role::Arbiter] {
            assert_eq!(ok(&line, role), Command::Tell(expected.clone()), "{line}");
        }
        // Through the alias of the request too.
        let alias_line = line.replacen(spec.name, spec.alias, 1);
        assert_eq!(ok(&alias_line, Role::Assistant), Command::Tell(expected));
    }
    assert_eq!(ok("tl t", Role::Assistant), Command::Tell(Request::Times));
    // Only the assistant and the arbiter pass answers on: the player asks for himself.
    assert!(matches!(
        parse("tell time", Role::Player),
        Err(ConsoleError::NotAllowed { .. })
    ));
    let e = err("tell", Role::Assistant);
    assert!(
        e.contains("the request is missing: count, time, last"),
        "{e}"
    );
    for line in ["tell press", "tell help", "tell tell time", "tell xyzzy"] {
        let e = err(line, Role::Assistant);
        assert!(
            e.contains("is not a request of the blind player"),
            "{line}: {e}"
        );
    }
    let e = err("tell square z9", Role::Assistant);
    assert!(e.starts_with("square: 'z9' is not a square"), "{e}");
}

/// What the journal and the transcript record as asked reads back as the same request.
#[test]
fn a_request_written_as_a_line_reads_back_as_itself() {
    let mut lines: Vec<String> = COMMANDS
        .iter()
        .filter(|s| s.role == Role::Player)
        .map(|s| s.example.to_string())
        .collect();
    lines.extend(
        [
            "moves",
            "moves 1",
            "pieces white",
            "pieces his q",
            "pieces king",
            "rank 8",
            "file Hector",
            "diagonal h8 a1",
            "square Anna1",
        ]
        .map(String::from),
    );
    for line in lines {
        let Ok(Command::Request(request)) = parse(&line, Role::Player) else {
            continue;
        };
        let written = request.line();
        assert_eq!(
            parse(&written, Role::Player),
            Ok(Command::Request(request)),
            "{line} was written {written}"
        );
    }
    assert_eq!(request("moves").line(), "moves all");
    assert_eq!(request("p mine n").line(), "pieces mine n");
    assert_eq!(request("s Eva4").line(), "square e4");
}

/// Two blind players: each keypad names its seat and keeps it; "blind" and "sighted" name nobody
/// there, colours do.
#[test]
fn a_keypad_names_its_seat_and_blind_or_sighted_name_nobody_at_a_table_of_two_blind_players() {
    let mut s = Session::new(Role::Assistant, None);
    assert_eq!(
        s.parse("role player white"),
        Ok(Command::Role {
            role: Role::Player,
            seat: Some(Color::White)
        })
    );
    assert_eq!(s.seat(), Some(Color::White));
    assert_eq!(
        s.parse("role player black"),
        Err(ConsoleError::SeatStays { seat: Color::White })
    );
    assert_eq!(s.seat(), Some(Color::White));
    assert!(s.parse("role player white").is_ok());
    assert!(err("role player green", Role::Assistant).contains("'green' is not a seat"));
    let g = Game::new(RulesConfig::default());
    assert_eq!(
        to_input(&ok("resign blind", Role::Assistant), &g, None, &uk()),
        Err(ConsoleError::WhichPlayer { word: "blind" })
    );
    assert_eq!(
        to_input(&ok("resign black", Role::Assistant), &g, None, &uk()),
        Ok(Some(Input::Rules(game::Input::Resign { by: Color::Black })))
    );
    let e = ConsoleError::WhichPlayer { word: "sighted" }.to_string();
    assert!(e.contains("white or black"), "{e}");
}

// ---- F.8: the players' Braille scoresheets at the console ----

/// The blind player's Braille scoresheet of `sans` as tactus writes it (`blind-score.txt` in
/// Unicode Braille, or `blind-score.brf`): a header, the separation line, the moves, pages ended
/// by form feeds.
fn braille_file(sans: &str, format: crate::record::format::Format) -> String {
    braille_file_in(sans, format, uk_profile())
}

/// [`braille_file`] in `profile`'s Braille chess notation.
fn braille_file_in(
    sans: &str,
    format: crate::record::format::Format,
    profile: crate::record::braille::Profile,
) -> String {
    use crate::record::{
        braille::BrailleOptions,
        format,
        score::{Score, ScoreMove},
    };
    let mut score = Score::new(Chess::default());
    score.tags = vec![
        ("Event".into(), "Open".into()),
        ("White".into(), "Anna".into()),
        ("Black".into(), "Bert".into()),
    ];
    let mut pos = Chess::default();
    for san in sans.split_whitespace() {
        let m = mv(&pos, san);
        score.moves.push(ScoreMove {
            mv: m,
            clock_ms: None,
            draw_offer: false,
        });
        pos.play_unchecked(m);
    }
    format::render(&score, format, &BrailleOptions::new(profile)).unwrap()
}

/// The score's lines of a rendered Braille file: after the separation line (dots 25), before
/// the page's end.
fn score_lines(file: &str) -> Vec<&str> {
    file.lines()
        .map(|l| l.trim_end_matches(['\r', '\u{c}']))
        .skip_while(|l| !(l.starts_with('⠒') || l.starts_with("333")))
        .skip(1)
        .filter(|l| !l.is_empty())
        .collect()
}

fn sheet_input(action: &Action, game: &Game) -> Result<Option<arbiter::Input>, ConsoleError> {
    to_input(
        &Command::Game(action.clone()),
        game,
        Some(Color::White),
        &uk(),
    )
}

fn scoresheet(side: Color, sans: &str) -> Option<arbiter::Input> {
    Some(arbiter::Input::Scoresheet {
        side,
        sans: sans.split_whitespace().map(String::from).collect(),
    })
}

/// F.8: a player's scoresheet in Braille, as the blind player's `blind-score.txt` holds it
/// (Unicode Braille cells, told by themselves) or his `.brf` (named: BRF is letters), becomes the
/// moves it reads in the table's profile from the game's start, which the arbiter then compares
/// as a written sheet: one line typed with the command, or the whole file pasted line by line
/// (header, page breaks, blank lines) between `scoresheet SIDE braille` and `end`.
#[test]
fn a_braille_scoresheet_becomes_the_moves_it_reads_f8() {
    use crate::record::{braille::BrailleFormat, format::Format};
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, "e4 e5 Nf3 Nc6 Bb5", 0);
    let sheet = "e4 e5 Nf3 Nf6 Bc4";
    let txt = braille_file(sheet, Format::Braille);
    let brf = braille_file(sheet, Format::Brf);
    assert!(txt.contains('\u{c}') && txt.lines().count() > 3, "{txt}");
    let (cells, ascii) = (score_lines(&txt), score_lines(&brf));
    assert_eq!((cells.len(), ascii.len()), (1, 1), "{txt}\n{brf}");
    assert_eq!(ascii[0], "1 E4 E5 2 SF3 SF6 3 LC4");

    // One line of cells, as copied from blind-score.txt: Unicode Braille without a word.
    let line = format!("scoresheet black {}", cells[0]);
    let action = game_action(&line);
    assert_eq!(
        action,
        Action::BrailleScoresheet {
            side: Side::Black,
            format: BrailleFormat::Unicode,
            text: cells[0].to_string(),
        }
    );
    assert_eq!(
        sheet_input(&action, &g),
        Ok(scoresheet(Color::Black, sheet))
    );
    // The same, named, and its BRF after `brf`, lower case too (as a note-taker types it).
    for line in [
        format!("ss black braille {}", cells[0]),
        format!("scoresheet sighted brf {}", ascii[0]),
        format!("scoresheet sighted BRF {}", ascii[0].to_lowercase()),
    ] {
        // The blind player is White here: the sighted player's sheet is Black's.
        assert_eq!(
            sheet_input(&game_action(&line), &g),
            Ok(scoresheet(Color::Black, sheet)),
            "{line}"
        );
    }
    // Written moves stay written moves.
    assert!(matches!(
        game_action("scoresheet black 1. e4 e5"),
        Action::Scoresheet { .. }
    ));

    // The whole file, pasted line by line: the header and the page's end come with it.
    for (format, file, word) in [
        (BrailleFormat::Unicode, &txt, "braille"),
        (BrailleFormat::Brf, &brf, "brf"),
    ] {
        let mut s = Session::new(Role::Assistant, Some(TOKEN.into()));
        s.parse(&format!("login {TOKEN}")).unwrap();
        assert_eq!(
            s.parse(&format!("scoresheet black {word}")),
            Ok(Command::Paste(Paste::Opened {
                side: Side::Black,
                format
            }))
        );
        assert!(s.pasting());
        let mut kept = 0;
        for line in file.split('\n') {
            match s.parse(line) {
                Ok(Command::Paste(Paste::Line { lines })) => kept = lines,
                Ok(Command::Paste(Paste::Blank)) => {}
                other => panic!("{line:?}: {other:?}"),
            }
        }
        assert!(kept >= 6, "{kept} lines of {file:?}");
        let Ok(Command::Game(action)) = s.parse("end") else {
            panic!("end closes the paste")
        };
        assert!(!s.pasting());
        assert_eq!(
            sheet_input(&action, &g),
            Ok(scoresheet(Color::Black, sheet)),
            "{format}"
        );
        // The next line is a command again.
        assert_eq!(s.parse("status"), Ok(Command::Status));
    }
}

/// A Braille scoresheet that does not read is refused with where (page, line, the cells as
/// written), the move and why; nothing is compared, so it can never "agree for 0". A pasted
/// line that is no Braille is not kept and the paste goes on; `cancel` drops it; a line of
/// cells typed on its own says how to enter a sheet.
#[test]
fn a_braille_scoresheet_that_does_not_read_says_which_move_and_why() {
    use crate::record::{braille::BrailleFormat, format::Format};
    let mut g = Game::new(RulesConfig::default());
    play(&mut g, "e4 e5 Nf3", 0);
    let refusal = |line: &str| {
        sheet_input(&game_action(line), &g)
            .expect_err(line)
            .to_string()
    };
    // Not a move in the profile's notation.
    let e = refusal("scoresheet black brf 1 E4 E5 2 SF9");
    assert_eq!(
        e,
        "scoresheet: black's scoresheet in BRF does not read with black's Braille profile \
         'ukaaf' (the table's: [record] braille_profile, else the blind player's voice pack's \
         language): page 1, line 1, 'SF9': move 2.: not a move in the 'ukaaf' \
         Braille chess notation (piece letter, origin, destination such as e4, castling, \
         promotion); nothing was compared"
    );
    // A move, but no legal one there, in Unicode Braille: the cells are quoted as written.
    let cells = score_lines(&braille_file("e4 e5 Nf3", Format::Braille))[0].to_string();
    let wrong = cells.replace("⠎⠋⠒", "⠎⠙⠲");
    assert_ne!(wrong, cells);
    let e = refusal(&format!("scoresheet white {wrong}"));
    assert!(
        e.contains("white's scoresheet in Unicode Braille does not read")
            && e.contains("'⠎⠙⠲': move 2.: no legal move matches it (read as Nd4)")
            && e.ends_with("nothing was compared"),
        "{e}"
    );
    // A character that is no six-dot cell.
    let e = refusal("scoresheet black ⠂ ⠑⠲ ⣿");
    assert!(e.contains("'⣿' is not a Unicode Braille character"), "{e}");
    // A header alone, or nothing at all.
    for text in [braille_file("", Format::Braille), String::new()] {
        let e = sheet_input(
            &Action::BrailleScoresheet {
                side: Side::Black,
                format: BrailleFormat::Unicode,
                text,
            },
            &g,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("black's scoresheet in Unicode Braille holds no move"),
            "{e}"
        );
    }

    // A second line pasted without opening a paste.
    assert_eq!(
        parse("⠆ ⠎⠋⠒ ⠎⠉⠖", Role::Arbiter),
        Err(ConsoleError::BrailleLine)
    );
    assert!(err("⠆ ⠎⠋⠒", Role::Arbiter).contains("`scoresheet SIDE braille`"));

    let mut s = Session::new(Role::Arbiter, None);
    s.parse("scoresheet white braille").unwrap();
    // A line that is not Braille: refused, not kept, the paste goes on.
    let e = s.parse("status").unwrap_err().to_string();
    assert!(
        e.contains("'s' is not a Unicode Braille character")
            && e.contains("still being pasted")
            && e.contains("`cancel` drops it"),
        "{e}"
    );
    assert!(s.pasting());
    assert_eq!(
        s.parse(&cells),
        Ok(Command::Paste(Paste::Line { lines: 1 }))
    );
    assert_eq!(s.parse("cancel"), Ok(Command::Paste(Paste::Dropped)));
    assert!(!s.pasting());
    assert_eq!(s.parse("status"), Ok(Command::Status));
    // Too long a paste is dropped.
    s.parse("scoresheet white brf").unwrap();
    let mut last = Ok(Command::Status);
    for _ in 0..=MAX_PASTE_LINES {
        last = s.parse("1 E4");
    }
    assert_eq!(last, Err(ConsoleError::PasteTooLong));
    assert!(!s.pasting());
    // Below the arbiter's role nothing is opened.
    let mut assistant = Session::new(Role::Assistant, None);
    assert!(matches!(
        assistant.parse("scoresheet white braille"),
        Err(ConsoleError::NotAllowed { .. })
    ));
    assert!(!assistant.pasting());
}

// ---- 12.3 a: the requests the arbiter may switch off ----

#[test]
fn requests_are_switched_on_and_off_by_the_arbiter_12_3_a() {
    assert_eq!(ok("requests", Role::Arbiter), Command::Requests(None));
    assert_eq!(
        ok("requests material off", Role::Arbiter),
        Command::Requests(Some((Switchable::Material, false)))
    );
    assert_eq!(
        ok("RQ Pieces ON", Role::Arbiter),
        Command::Requests(Some((Switchable::Pieces, true)))
    );
    let e = err("requests time off", Role::Arbiter);
    assert!(
        e.contains("'time' is not a request the arbiter can switch off: material or pieces"),
        "{e}"
    );
    let e = err("requests material", Role::Arbiter);
    assert!(e.contains("on or off is missing"), "{e}");
    let e = err("requests material maybe", Role::Arbiter);
    assert!(e.contains("'maybe' is not on or off"), "{e}");
    let e = err("requests material off now", Role::Arbiter);
    assert!(e.contains("one word too many"), "{e}");
    for role in [Role::Player, Role::Assistant] {
        assert!(matches!(
            parse("requests material off", role),
            Err(ConsoleError::NotAllowed {
                command: "requests",
                needs: Role::Arbiter,
                ..
            })
        ));
    }
    // The switches cover exactly the two requests.
    assert_eq!(
        Switchable::of(&request("material")),
        Some(Switchable::Material)
    );
    assert_eq!(
        Switchable::of(&request("pieces mine knight")),
        Some(Switchable::Pieces)
    );
    assert_eq!(Switchable::of(&request("time")), None);
    assert_eq!("Pieces".parse::<Switchable>(), Ok(Switchable::Pieces));
}

// ---- The blind player's console in his language (issue 26) ----

/// A built-in pack's words for the blind player's console.
fn his_words(pack: &str) -> Words {
    crate::announce::voice::VoicePack::builtin(pack)
        .unwrap()
        .commands()
        .clone()
}

fn his(line: &str, words: &Words) -> Command {
    parse_in(line, Role::Player, words).unwrap_or_else(|e| panic!("{line:?}: {e}"))
}

/// Every command of his has words and what it does in German and Spanish; each line in his
/// words reads as the English line, and the English lines still read as they did.
#[test]
fn his_commands_read_in_his_language_as_in_english() {
    for pack in ["de-fide", "es-fide"] {
        let words = his_words(pack);
        for spec in his_commands(true) {
            let local = words
                .local(spec)
                .unwrap_or_else(|| panic!("{pack}: no words for '{}'", spec.name));
            assert!(
                !local.words.is_empty(),
                "{pack}: no words for '{}'",
                spec.name
            );
            assert!(
                local.what.is_some(),
                "{pack}: '{}' does not say what",
                spec.name
            );
        }
        // The English words are understood too, as they were.
        for spec in his_commands(true) {
            assert_eq!(
                his(spec.example, &words),
                ok(spec.example, Role::Player),
                "{pack}: {}",
                spec.example
            );
        }
    }
    let de = his_words("de-fide");
    let same = |typed: &str, english: &str| {
        assert_eq!(his(typed, &de), ok(english, Role::Player), "{typed}");
    };
    same("zeit", "time");
    same("Zeit", "time");
    same("zug", "last");
    same("letzter", "last");
    same("anzahl", "count");
    same("züge 4", "moves 4");
    same("Züge alle", "moves all");
    same("zuege", "moves all");
    same("amzug", "turn");
    same("feld e4", "square e4");
    same("feld Eva4", "square e4");
    same("reihe eins", "rank 1");
    same("linie Eva", "file e");
    same("diagonale c1 h6", "diagonal c1 h6");
    same("figuren meine springer", "pieces mine knight");
    same("figuren Läufer schwarz", "pieces bishop black");
    same("pieces seine bauern", "pieces his pawn");
    same("figuren Weiß", "pieces white");
    same("material", "material");
    same("wiederholen", "repeat");
    same("nochmal", "repeat");
    same("stopp", "stop");
    same("hilfe", "help");
    same("hilfe zug", "help last");
    same("tipp", "hint");
    same("auszeit", "break");
    same("zurück", "takeback");
    let es = his_words("es-fide");
    let same = |typed: &str, english: &str| {
        assert_eq!(his(typed, &es), ok(english, Role::Player), "{typed}");
    };
    same("tiempo", "time");
    same("última", "last");
    same("jugadas todas", "moves all");
    same("casilla Beatriz5", "square b5");
    same("columna gustavo", "file g");
    same("fila 8", "rank 8");
    same("piezas mías caballo", "pieces mine knight");
    same("piezas negras", "pieces black");
    same("repetir", "repeat");
    same("ayuda tiempo", "help time");
    // His words are his: the assistant's and the arbiter's console read the table's English.
    for role in [Role::Assistant, Role::Arbiter] {
        assert!(matches!(
            parse_in("zeit", role, &de),
            Err(ConsoleError::Unknown { .. })
        ));
    }
    // Another language's words are not his.
    assert!(matches!(
        parse_in("tiempo", Role::Player, &de),
        Err(ConsoleError::Unknown { .. })
    ));
    // A German line with a bad argument is refused as the English command's.
    assert!(matches!(
        parse_in("feld x9", Role::Player, &de),
        Err(ConsoleError::Usage {
            command: "square",
            ..
        })
    ));
}

/// A keypad session reads its player's words: the seat it names, or the table's one blind
/// player's.
#[test]
fn a_keypad_reads_the_words_of_its_players_pack() {
    let keypads = std::sync::Arc::new(Keypads {
        words: shakmaty::ByColor {
            white: his_words("es-fide"),
            black: his_words("de-fide"),
        },
        seatless: Some(Color::Black),
        ..Default::default()
    });
    let mut keypad = Session::new(Role::Player, None).with_keypads(keypads.clone());
    assert_eq!(keypad.parse("zeit"), Ok(Command::Request(Request::Times)));
    assert!(keypad.parse("tiempo").is_err());
    let mut white = Session::new(Role::Assistant, None).with_keypads(keypads.clone());
    // In the assistant's role his words are not read.
    assert!(white.parse("tiempo").is_err());
    white.parse("role player white").unwrap();
    assert_eq!(white.parse("tiempo"), Ok(Command::Request(Request::Times)));
    assert_eq!(white.parse("time"), Ok(Command::Request(Request::Times)));
    assert!(white.parse("zeit").is_err());
}

/// His `help` lists what he may do at this table, in his words: not the staff's setup of his
/// keypad, not the training commands in a game against a person.
#[test]
fn his_help_lists_only_what_he_may_do_in_his_words() {
    let de = his_words("de-fide");
    let help = player_help(&de, false, None);
    assert_eq!(help.len(), his_commands(false).count(), "{help:#?}");
    assert_eq!(
        help[0],
        "hilfe [BEFEHL]: die Befehle, oder wie einer geschrieben wird"
    );
    assert!(
        help.contains(&"zug (letzter): der letzte Zug".to_string()),
        "{help:#?}"
    );
    assert!(help.contains(&"feld FELD: was auf einem Feld steht (e4 oder Eva4)".to_string()));
    for not_his in [
        "role", "login", "status", "press", "resign", "tipp", "zurück", "takeback",
    ] {
        assert!(
            !help.iter().any(|l| l.starts_with(not_his)),
            "{not_his} in {help:#?}"
        );
    }
    let training = player_help(&de, true, None);
    assert_eq!(training.len(), his_commands(true).count());
    assert!(
        training
            .iter()
            .any(|l| l.starts_with("tipp (vorschlag): Training: "))
    );
    assert!(
        training
            .iter()
            .any(|l| l.starts_with("zurück (zurueck): Training: ")),
        "{training:#?}"
    );
    // Without words of his language: the table's English, his own wording where the pack has it.
    let en = his_words("en");
    let help = player_help(&en, true, None);
    assert_eq!(
        help[0],
        "help [COMMAND] (h): the commands this console may use, or how to use one"
    );
    assert!(help.contains(&"time (t): time used and time left, for both players".to_string()));
    assert!(help.contains(
        &"takeback (tb): training: take back your last move and the engine's reply".to_string()
    ));
    let time = commands::lookup("time").unwrap();
    assert_eq!(
        player_help(&de, false, Some(time)),
        ["zeit: verbrauchte und verbleibende Zeit beider Spieler"]
    );
}

/// A pack's words for his console are checked when it is read: each names a command of his or
/// an argument word, and no word means two things.
#[test]
fn a_packs_words_for_his_console_are_checked() {
    use std::collections::BTreeMap;
    let entry = |words: &[&str]| CommandEntry {
        words: words.iter().map(|w| w.to_string()).collect(),
        ..CommandEntry::default()
    };
    let commands = |pairs: &[(&str, &[&str])]| -> BTreeMap<String, CommandEntry> {
        pairs
            .iter()
            .map(|(name, words)| (name.to_string(), entry(words)))
            .collect()
    };
    let refused = |c: BTreeMap<String, CommandEntry>, a: &[(&str, &[&str])]| {
        let arguments = a
            .iter()
            .map(|(k, w)| (k.to_string(), w.iter().map(|w| w.to_string()).collect()))
            .collect();
        Words::new(c, arguments, Vec::new()).unwrap_err()
    };
    let e = refused(commands(&[("press", &["drücken"])]), &[]);
    assert!(
        e.contains("'press' is not a command of the blind player's"),
        "{e}"
    );
    let e = refused(commands(&[("role", &["rolle"])]), &[]);
    assert!(
        e.contains("'role' is not a command of the blind player's"),
        "{e}"
    );
    let e = refused(commands(&[("break", &["pause"])]), &[]);
    assert!(
        e.contains("'pause' of 'break' is already the command 'pause'"),
        "{e}"
    );
    let e = refused(commands(&[("last", &["t"])]), &[]);
    assert!(e.contains("already the command"), "{e}");
    let e = refused(commands(&[("last", &["zug"]), ("moves", &["Zug"])]), &[]);
    assert!(e.contains("'zug' is given to both"), "{e}");
    let e = refused(commands(&[("time", &["wie spät"])]), &[]);
    assert!(e.contains("is not one word"), "{e}");
    let e = refused(commands(&[]), &[("queen", &["e4"])]);
    assert!(e.contains("'e4' of 'queen' already reads"), "{e}");
    let e = refused(commands(&[]), &[("queen", &["king"])]);
    assert!(e.contains("already reads"), "{e}");
    let e = refused(commands(&[]), &[("everything", &["alles"])]);
    assert!(e.contains("'everything' is not an argument word"), "{e}");
    let e = refused(
        commands(&[]),
        &[("king", &["k1"]), ("queen", &["dame"]), ("rook", &["Dame"])],
    );
    assert!(e.contains("'dame' is given to both"), "{e}");
    // A word for its own command is no clash (Spanish `material`, `diagonal`).
    assert!(
        Words::new(
            commands(&[("time", &["time", "Zeit"])]),
            BTreeMap::new(),
            Vec::new()
        )
        .is_ok()
    );
    // In a pack, the error names the pack.
    let de = include_str!("../../../voices/de-fide/voice.toml").replace(
        "[commands]\n",
        "[commands]\npress = { words = [\"drücken\"] }\n",
    );
    let e = crate::announce::voice::VoicePack::parse("de-test", &de, "test")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("voice pack 'de-test'") && e.contains("'press' is not a command"),
        "{e}"
    );
}

/// Issue 37, point 10: at a table of two blind players of two notations (White English, Black
/// German), the Braille scoresheet the arbiter pastes for Black, copied from Black's own
/// `blind-score-black.txt`, is read in Black's notation (his queen is D), and the same cells
/// given as White's sheet are read in White's and refused, the refusal naming whose profile it
/// read with and the key that sets it.
#[test]
fn f8_a_braille_scoresheet_pasted_for_black_is_read_in_blacks_notation() {
    use crate::record::{braille::Profile, format::Format};
    let de = Profile::named("de").unwrap();
    let profiles = SheetProfiles {
        profiles: ByColor {
            white: uk_profile(),
            black: de.clone(),
        },
        blind: ByColor::new_with(|_| true),
    };
    let mut g = Game::new(RulesConfig::default());
    let sheet = "e4 e5 Qh5 Qe7";
    play(&mut g, sheet, 0);
    let file = braille_file_in(sheet, Format::Braille, de);
    let mut s = Session::new(Role::Assistant, Some(TOKEN.into()));
    s.parse(&format!("login {TOKEN}")).unwrap();
    let pasted = |s: &mut Session, side: &str| {
        s.parse(&format!("scoresheet {side} braille")).unwrap();
        for line in file.split('\n') {
            s.parse(line).unwrap();
        }
        let Ok(command) = s.parse("end") else {
            panic!("end closes the paste")
        };
        to_input(&command, &g, None, &profiles)
    };
    assert_eq!(
        pasted(&mut s, "black"),
        Ok(scoresheet(Color::Black, sheet)),
        "Black's own sheet, in his notation"
    );
    let e = pasted(&mut s, "white")
        .expect_err("German cells in White's notation")
        .to_string();
    assert!(
        e.starts_with(
            "scoresheet: white's scoresheet in Unicode Braille does not read with white's \
             Braille profile 'ukaaf' ([record] braille_profile, else his voice pack's language): "
        ),
        "{e}"
    );
}
