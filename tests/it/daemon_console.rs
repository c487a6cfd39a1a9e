//! Every console command over the real socket, in every role, against the daemon in the test's
//! own process (see `support::inproc`): the blind player (Black) plays on his simulated
//! tactile board, the sighted player's moves are typed by the assistant and pressed.
//!
//! - A command the role may not use is refused, naming the command and the role it needs, and
//!   changes nothing: the status stands and the journal (every input the game took) gains nothing
//!   from it, so the refusal never reached the game.
//! - The session: `help` lists exactly the role's commands (the blind player's: his, in his pack's
//!   words), an unknown word gets "did you mean",
//!   a wrong token leaves the role as it was, `role` switches both ways, `quit` closes.
//! - The blind player's requests are printed and said to him, and only when he asks (F.9 d); his
//!   keypad reads his pack's words, and every refusal there is said to him (issue 26).
//! - The assistant's and the arbiter's commands do what they say, checked on the status, the
//!   clocks, the transcript and the game's files; what the Laws refuse comes back as `error:`
//!   with the arbiter's reason.

use crate::support;

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    os::unix::net::UnixStream,
    path::PathBuf,
    thread,
    time::Duration,
};

use shakmaty::{Chess, Color, Piece, Position, Role as Kind, Square};
use support::{
    console::{clocks_of, ply_of, result_of},
    games::moves_of,
    inproc::{Conn, LIMIT, Table, write_config},
    record::pack,
    table::temp_dir,
};
use tactus_core::{
    announce::{Announcement, MoveWords, Refusal, voice::Style},
    console::{COMMANDS, Role, Spec, player_help},
};

/// The blind player's colour at every table here.
const BLIND: Color = Color::Black;
/// The simulated blind player thinks a quarter of a second before his moves.
const SPEED: f64 = 4.0;

/// The words of each of `sans` from the start, as the daemon announces them.
fn move_words(sans: &str) -> Vec<MoveWords> {
    let mut pos = Chess::default();
    let mut words = Vec::new();
    for m in moves_of(sans) {
        words.push(MoveWords::new(&pos, m));
        pos.play_unchecked(m);
    }
    words
}

/// A running table in a fresh folder whose blind player knows `game` (his own moves are taken
/// from it); play has started.
fn table(tag: &str, game: &str) -> (PathBuf, Table) {
    let dir = temp_dir(tag);
    write_config(&dir, BLIND);
    let table = Table::start(&dir, &moves_of(game), SPEED, true);
    table.wait_started();
    (dir, table)
}

/// The sighted player's move, typed and pressed; then the blind player executes it and answers
/// with his own, which makes `ply_after` half-moves.
fn sighted_move(table: &Table, assistant: &mut Conn, san: &str, ply_after: usize) {
    assert_eq!(
        assistant.ok(&format!("move {san}")),
        [format!(
            "{san} entered; it counts when the clock is pressed"
        )]
    );
    assistant.ok("press");
    table.wait_ply(ply_after);
}

/// How an announcement is worded in the transcript (the table's voice pack, de-fide).
fn words(announcement: &Announcement) -> String {
    pack().render(announcement, Style::San).text
}

/// `line` is carried out and `audience` is told `announcement`, once.
fn tells(table: &Table, conn: &mut Conn, line: &str, audience: &str, announcement: Announcement) {
    let before = table.said_to(audience).len();
    conn.ok(line);
    assert_eq!(
        table.said_after(audience, before, 1),
        [words(&announcement)],
        "{line}: said to {audience}"
    );
}

/// The text a command refused for its role gives (the console's wording, ConsoleError).
fn not_allowed(command: &str, role: Role, needs: Role) -> String {
    match needs {
        Role::Assistant => format!(
            "'{command}' is for the assistant and the arbiter; this console is in the {role} role \
             (type it at the assistant's console: a keypad stays the player's)"
        ),
        Role::Arbiter => format!(
            "'{command}' is for the arbiter only; this console is in the {role} role (log in \
             with: login TOKEN, the token from the arbiter's token file)"
        ),
        Role::Player => unreachable!("every role may use the player's commands"),
    }
}

/// A command's example line with its alias in place of its name.
fn alias_form(spec: &Spec) -> String {
    let rest = spec
        .example
        .strip_prefix(spec.name)
        .unwrap_or_else(|| panic!("the example of {} starts with its name", spec.name));
    format!("{}{rest}", spec.alias)
}

/// A table whose clocks the arbiter has paused: no clock runs, so no heartbeat is journaled and
/// the clock line of the status stands still; the blind player's board holds the position.
fn quiet_table(tag: &str) -> (PathBuf, Table, Conn) {
    let (dir, table) = table(tag, "d4 d5");
    let mut arbiter = table.arbiter();
    arbiter.ok("pause");
    let status = arbiter.ok("status");
    assert!(clock_line(&status).ends_with("(paused)"), "{status:?}");
    (dir, table, arbiter)
}

/// Whether a journal line is an input only the table itself makes (a board's sensors or link,
/// the timer, speech finishing, the dead-position search): never one a console command makes.
fn from_the_table(line: &str) -> bool {
    // A request of the blind player's changes nothing in the game (F.9 d); the journal holds it
    // so that a replay writes the transcript as it was.
    let request = line.contains("\"input\":{\"console\"")
        && (line.contains("\"command\":{\"request\"") || line.contains("\"command\":{\"tell\""));
    request
        || line.contains("\"input\":{\"link\"")
        || line.contains("\"input\":\"tick\"")
        || line.contains("\"input\":{\"speech_finished\"")
        || line.contains("\"input\":{\"verdict\"")
}

/// The journal has taken nothing from the consoles since it read `before`. It must still start
/// with `before`, byte for byte; the table itself may have added its own inputs meanwhile (a
/// board's reading requested at the start can land late), and nothing else.
fn assert_nothing_journaled(table: &Table, before: &str, what: &str) {
    let now = table.journal();
    let added = now
        .strip_prefix(before)
        .unwrap_or_else(|| panic!("{what}: the journal was rewritten:\n{before}\n---\n{now}"));
    let foreign: Vec<&str> = added.lines().filter(|l| !from_the_table(l)).collect();
    assert!(
        foreign.is_empty(),
        "{what} reached the journal: {foreign:#?}"
    );
}

/// The clocks line of a status reply.
fn clock_line(status: &[String]) -> &str {
    status
        .iter()
        .find(|l| l.starts_with("clocks "))
        .unwrap_or_else(|| panic!("no clocks in {status:?}"))
}

fn piece(color: Color, role: Kind) -> Piece {
    Piece { color, role }
}

// ---------------------------------------------------------------------------------------------
// Refusals and the session.

/// Every command below its least role, as its example and in its alias form, from the player's
/// and (for the arbiter's commands) the assistant's console: refused with the command's name and
/// the role it needs (at the player's keypad in his words, and said to him: issue 26), and the
/// game is exactly as it was.
#[test]
fn every_command_is_refused_below_its_role_and_changes_nothing() {
    let (dir, table, mut arbiter) = quiet_table("console-refusals");
    let mut player = table.player();
    let mut assistant = table.connect();
    let mut refused = 0;
    let heard_before = table.said_to("blind").len();
    let not_his = words(&Announcement::Refused(Refusal::NotAllowed));
    for spec in COMMANDS.iter().filter(|s| s.role > Role::Player) {
        let status = arbiter.ok("status");
        let journal = table.journal();
        for role in [Role::Player, Role::Assistant] {
            if role >= spec.role {
                continue;
            }
            let conn = match role {
                Role::Player => &mut player,
                _ => &mut assistant,
            };
            for line in [spec.example.to_string(), alias_form(spec)] {
                let reply = conn.send(&line);
                let expected = match role {
                    Role::Player => format!("{not_his}: {}", spec.name),
                    _ => not_allowed(spec.name, role, spec.role),
                };
                assert_eq!(reply.end, Err(expected), "{line} in the {role} role");
                assert!(reply.body.is_empty(), "{line}: {:?}", reply.body);
                refused += 1;
            }
        }
        // The clocks stand (paused), so the whole status must, the clock line included.
        assert_eq!(arbiter.ok("status"), status, "after {}", spec.name);
        assert_nothing_journaled(&table, &journal, &format!("a refused '{}'", spec.name));
    }
    // Player: 2 lines for each assistant's and arbiter's command; assistant: 2 for each arbiter's.
    let count = |role| COMMANDS.iter().filter(|s| s.role == role).count();
    assert_eq!(
        refused,
        2 * count(Role::Assistant) + 4 * count(Role::Arbiter)
    );
    // Each of the player's was said to him, and nothing else.
    let at_keypad = 2 * (count(Role::Assistant) + count(Role::Arbiter));
    let heard = table.said_after("blind", heard_before, at_keypad);
    assert_eq!(heard, vec![not_his.clone(); at_keypad]);
    // The connections kept their roles through all that, and the game its position.
    assert_eq!(player.ok("turn"), ["Weiß am Zug"]);
    assert_eq!(assistant.ok("status"), arbiter.ok("status"));
    assert_eq!(ply_of(&arbiter.ok("status")), 0);
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

/// `help` in each role lists exactly that role's commands; an unknown word is answered with the
/// closest command; a wrong token leaves the console where it was; `role` switches both ways;
/// none of it reaches the game.
#[test]
fn help_role_login_and_unknown_words_are_the_connections_own() {
    let (dir, table, mut arbiter) = quiet_table("console-session");
    let journal = table.journal();
    let status = arbiter.ok("status");
    let mut player = table.player();
    let mut assistant = table.connect();

    // The blind player's help: what he may do here, in his pack's words (issue 26), whichever
    // word he asks with.
    let his = player_help(pack().commands(), false, None);
    assert!(
        his.contains(&"zug (letzter): der letzte Zug".to_string()),
        "{his:#?}"
    );
    for word in ["help", "h", "?", "hilfe", "Hilfe"] {
        assert_eq!(player.ok(word), his, "{word}");
    }
    for (role, conn) in [
        (Role::Assistant, &mut assistant),
        (Role::Arbiter, &mut arbiter),
    ] {
        let mut expected = vec![format!(
            "commands for the {role} role (help COMMAND shows one; SIDE is white, black, blind or \
             sighted):"
        )];
        expected.extend(
            COMMANDS
                .iter()
                .filter(|s| s.role <= role)
                .map(|s| format!("{} ({}): {}", s.usage(), s.alias, s.what)),
        );
        let help = conn.ok("help");
        assert_eq!(help, expected, "help in the {role} role");
        // One line for each of its own commands, and none for another role's.
        let own = COMMANDS.iter().filter(|s| s.role <= role).count();
        assert_eq!(help.len(), 1 + own, "help in the {role} role: {help:?}");
        // The alias and the synonym say the same.
        assert_eq!(conn.ok("h"), expected);
        assert_eq!(conn.ok("?"), expected);
    }
    // One command's help, from a role that may not use it, says so: at his keypad aloud.
    let not_his = words(&Announcement::Refused(Refusal::NotAllowed));
    assert_eq!(player.refused("help seal"), format!("{not_his}: seal"));
    assert_eq!(
        assistant.ok("help pause"),
        [
            "pause (alias pa): stop both clocks (6.12)",
            "example: pause",
            "this console is in the assistant role; 'pause' is for the arbiter only",
        ]
    );
    assert_eq!(
        player.ok("hilfe feld"),
        ["feld FELD: was auf einem Feld steht (e4 oder Eva4)"]
    );
    assert_eq!(
        assistant.ok("help time"),
        [
            "time (alias t): time used and time left, for both players",
            "example: time",
        ]
    );

    // Did you mean: in his words at his keypad.
    assert_eq!(
        player.refused("tme"),
        format!(
            "{}: tme (zeit?)",
            words(&Announcement::Refused(Refusal::Unknown))
        )
    );
    assert_eq!(
        assistant.refused("stauts"),
        "unknown command 'stauts'; did you mean 'status'?"
    );
    assert_eq!(
        assistant.refused("xyzzy"),
        "unknown command 'xyzzy'; type help for the commands"
    );

    // A wrong token: refused, and the console is what it was.
    let wrong = "0123456789abcdef0123456789abcdef";
    assert_ne!(table.token(), wrong);
    assert_eq!(
        assistant.refused(&format!("login {wrong}")),
        "wrong arbiter token; this console stays in the assistant role"
    );
    assert_eq!(
        assistant.refused("resume"),
        not_allowed("resume", Role::Assistant, Role::Arbiter)
    );
    assert_eq!(
        player.refused(&format!("login {wrong}")),
        "wrong arbiter token; this console stays in the player role"
    );
    assert_eq!(player.refused("status"), format!("{not_his}: status"));
    // The arbiter's role is only had with the token.
    assert_eq!(
        assistant.refused("role arbiter"),
        "role: the arbiter's role needs the arbiter's token: login TOKEN; write: role \
         player|assistant [white|black]"
    );

    // The assistant's console becomes the player's keypad, and stays it: a keypad that could
    // become the assistant's could offer a draw or resign for him (issue 15). His own
    // resignation is his, asked again first; his opponent's never.
    // His keypad says so in his words (the greeting before it could not: every connection
    // starts as the assistant's).
    assert_eq!(
        assistant.ok_summary("role player"),
        "Tastatur von Schwarz: hilfe zeigt die Befehle"
    );
    assert_eq!(assistant.refused("status"), format!("{not_his}: status"));
    assert_eq!(assistant.ok("turn"), ["Weiß am Zug"]);
    assert_eq!(
        assistant.refused("role assistant"),
        format!("{not_his}: role")
    );
    assert_eq!(
        assistant.refused("offer blind"),
        format!("{not_his}: offer")
    );
    // (In his words: not an entry of his; his is `aufgeben`.)
    assert_eq!(
        assistant.refused("resign sighted"),
        "Eingabe ungültig: aufgeben"
    );
    assert_eq!(assistant.ok("amzug"), ["Weiß am Zug"]);
    let mut assistant = table.connect();
    assert_eq!(assistant.ok("status"), status);
    // The player's keypad may log in with the token, and the arbiter may step down.
    assert_eq!(
        player.ok_summary(&format!("login {}", table.token())),
        "role arbiter"
    );
    assert_eq!(player.ok("status"), status);
    assert_eq!(player.ok_summary("role assistant"), "role assistant");
    assert_eq!(
        player.refused("resume"),
        not_allowed("resume", Role::Assistant, Role::Arbiter)
    );

    // Nothing of the session reached the game.
    assert_eq!(arbiter.ok("status"), status);
    assert_nothing_journaled(&table, &journal, "the session");
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

/// `quit` (and its alias and synonym) is answered `ok bye` and the daemon closes the
/// connection; the others go on.
#[test]
fn quit_says_bye_and_closes_the_connection() {
    let (dir, table) = table("console-quit", "d4 d5");
    let mut watcher = table.connect();
    for word in ["quit", "q", "exit"] {
        let stream = UnixStream::connect(&table.socket).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        assert_eq!(
            line,
            "# tactus console, role assistant; type help for the commands\n"
        );
        (&stream).write_all(format!("{word}\n").as_bytes()).unwrap();
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert_eq!(line, "ok bye\n", "{word}");
        // Closed: the end of the stream, not a timeout.
        line.clear();
        assert_eq!(reader.read_line(&mut line).unwrap(), 0, "{word}: {line:?}");
    }
    assert_eq!(ply_of(&watcher.ok("status")), 0);
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The blind player's requests (F.9 d).

/// A request from the player's console: printed as `printed`, and said to the blind player as
/// `said` (nothing more, nothing less).
/// `line` typed at the player's console: he hears `said`, and his console prints the same
/// words, one announcement a line (issue 15: a Braille display shows what the ear hears).
fn ask(table: &Table, player: &mut Conn, line: &str, said: &[Announcement]) {
    let before = table.said_to("blind").len();
    let expected: Vec<String> = said.iter().map(words).collect();
    assert_eq!(player.ok(line), expected, "{line}: printed");
    let heard = table.said_after("blind", before, said.len());
    assert_eq!(heard, expected, "{line}: said to the blind player");
}

#[test]
fn the_blind_players_requests_are_printed_and_said_to_him_only_when_asked() {
    const GAME: &str = "e4 d5 exd5 Nf6";
    let (dir, table) = table("console-requests", GAME);
    let mut player = table.player();
    let mut assistant = table.connect();
    // Before the first move the last thing he was told is that play started (the arbiter's
    // `start`); there is no move to read back, and he hears that his request was heard (a
    // keypad gives no other sign).
    assert_eq!(
        player.ok("repeat"),
        [words(&Announcement::GameStarted {
            side: shakmaty::Color::White
        })]
    );
    // The repeat is said after its reply: wait for it in the transcript (the start was said to
    // both), so that the next request's words are counted from after it.
    table.said_after("blind", 0, 1);
    ask(&table, &mut player, "last", &[Announcement::NoMoveYet]);
    ask(&table, &mut player, "moves all", &[Announcement::NoMoveYet]);
    sighted_move(&table, &mut assistant, "e4", 2);
    sighted_move(&table, &mut assistant, "exd5", 4);
    let w = move_words(GAME);
    // All he was told unasked after the start and his two requests: White's two moves, and
    // his own said back (F.1). Not his time, not the move count (F.9 d).
    assert_eq!(
        table.said_after("blind", 3, 4),
        [
            words(&Announcement::Move(w[0])),
            words(&Announcement::OwnMove(w[1])),
            words(&Announcement::Move(w[2])),
            words(&Announcement::OwnMove(w[3])),
        ]
    );
    let count_words = words(&Announcement::MovesCompleted { white: 2, black: 2 });
    let transcript = table.transcript();
    assert!(
        !transcript.contains("verbraucht") && !transcript.contains(&count_words),
        "time or move count said unasked:\n{transcript}"
    );

    let white = |role| piece(Color::White, role);
    let black = |role| piece(Color::Black, role);
    use Kind::{Bishop, King, Knight, Pawn, Queen, Rook};
    ask(&table, &mut player, "repeat", &[Announcement::Move(w[2])]);
    ask(
        &table,
        &mut player,
        "count",
        &[Announcement::MovesCompleted { white: 2, black: 2 }],
    );
    // Time: printed as said (the clock's arithmetic is the console's unit tests').
    let before = table.said_to("blind").len();
    let body = player.ok("time");
    assert_eq!(body.len(), 2, "{body:?}");
    let heard = table.said_after("blind", before, 1);
    assert_eq!(heard, body[..1], "printed as heard");
    // ... and in digits, left on White's clock and on Black's, for his Braille display.
    let digits: Vec<&str> = body[1].split(" / ").collect();
    assert!(
        digits.len() == 2
            && digits
                .iter()
                .all(|d| d.len() == 7 && d.as_bytes()[1] == b':'),
        "{body:?}"
    );
    assert!(
        heard[0].starts_with("Weiß: verbraucht ") && heard[0].contains("; Schwarz: verbraucht "),
        "{heard:?}"
    );
    // `repeat` is the last announcement to him, not the last reply (issue 15).
    ask(&table, &mut player, "repeat", &[Announcement::Move(w[2])]);
    ask(
        &table,
        &mut player,
        "last",
        &[Announcement::Recital {
            number: 2,
            moves: vec![w[3]],
        }],
    );
    // Moves read back: a move is White's and Black's, as a player counts, said with its number
    // and the colours, one move at a time (issue 15).
    ask(
        &table,
        &mut player,
        "moves 1",
        &[Announcement::Recital {
            number: 2,
            moves: vec![w[2], w[3]],
        }],
    );
    let all_said = [
        Announcement::Recital {
            number: 1,
            moves: vec![w[0], w[1]],
        },
        Announcement::Recital {
            number: 2,
            moves: vec![w[2], w[3]],
        },
    ];
    ask(&table, &mut player, "moves 2", &all_said);
    ask(&table, &mut player, "moves all", &all_said);
    ask(&table, &mut player, "m", &all_said);
    ask(
        &table,
        &mut player,
        "turn",
        &[Announcement::ToMove { side: Color::White }],
    );
    ask(
        &table,
        &mut player,
        "square d5",
        &[Announcement::SquareContents {
            square: Square::D5,
            piece: Some(white(Pawn)),
        }],
    );
    ask(
        &table,
        &mut player,
        "s d7",
        &[Announcement::SquareContents {
            square: Square::D7,
            piece: None,
        }],
    );
    let first_rank = [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook];
    ask(
        &table,
        &mut player,
        "rank 1",
        &[Announcement::LineContents {
            pieces: first_rank
                .iter()
                .enumerate()
                .map(|(i, &role)| (Square::new(i as u32), white(role)))
                .collect(),
        }],
    );
    ask(
        &table,
        &mut player,
        "file d",
        &[Announcement::LineContents {
            pieces: vec![
                (Square::D1, white(Queen)),
                (Square::D2, white(Pawn)),
                (Square::D5, white(Pawn)),
                (Square::D8, black(Queen)),
            ],
        }],
    );
    let long_diagonal = vec![
        (Square::A1, white(Rook)),
        (Square::B2, white(Pawn)),
        (Square::F6, black(Knight)),
        (Square::G7, black(Pawn)),
        (Square::H8, black(Rook)),
    ];
    ask(
        &table,
        &mut player,
        "diagonal a1 h8",
        &[Announcement::LineContents {
            pieces: long_diagonal.clone(),
        }],
    );
    // From the other end, in the other order.
    ask(
        &table,
        &mut player,
        "d h8 a1",
        &[Announcement::LineContents {
            pieces: long_diagonal.into_iter().rev().collect(),
        }],
    );
    // "mine" is the blind player's (Black), "his" the sighted player's; squares from a1 to h8.
    ask(
        &table,
        &mut player,
        "pieces mine knight",
        &[Announcement::PiecesOfKind {
            piece: black(Knight),
            squares: vec![Square::F6, Square::B8],
        }],
    );
    ask(
        &table,
        &mut player,
        "pieces his pawn",
        &[Announcement::PiecesOfKind {
            piece: white(Pawn),
            squares: vec![
                Square::A2,
                Square::B2,
                Square::C2,
                Square::D2,
                Square::F2,
                Square::G2,
                Square::H2,
                Square::D5,
            ],
        }],
    );
    let army = |role, squares: &[Square]| Announcement::PiecesOfKind {
        piece: black(role),
        squares: squares.to_vec(),
    };
    ask(
        &table,
        &mut player,
        "p black",
        &[
            army(King, &[Square::E8]),
            army(Queen, &[Square::D8]),
            army(Rook, &[Square::A8, Square::H8]),
            army(Bishop, &[Square::C8, Square::F8]),
            army(Knight, &[Square::F6, Square::B8]),
            army(
                Pawn,
                &[
                    Square::A7,
                    Square::B7,
                    Square::C7,
                    Square::E7,
                    Square::F7,
                    Square::G7,
                    Square::H7,
                ],
            ),
        ],
    );
    ask(
        &table,
        &mut player,
        "material",
        &[Announcement::Material {
            white: 39,
            black: 38,
        }],
    );
    // `repeat` says the last announcement he heard again, not the last reply.
    ask(&table, &mut player, "rp", &[Announcement::Move(w[2])]);
    // He heard his time and the move count exactly once each: when he asked.
    let said = table.said_to("blind");
    assert_eq!(
        said.iter().filter(|l| l.contains("verbraucht")).count(),
        1,
        "{said:?}"
    );
    assert_eq!(
        said.iter().filter(|l| **l == count_words).count(),
        1,
        "{said:?}"
    );
    // Requests change nothing in the game.
    let status = assistant.ok("status");
    assert_eq!(ply_of(&status), 4);
    assert!(
        status.contains(
            &"position rnbqkb1r/ppp1pppp/5n2/3P4/8/8/PPPP1PPP/RNBQKBNR w KQkq - 1 3".to_string()
        ),
        "{status:?}"
    );

    // The assistant's last duty here: White offers a draw, the blind player hears it and
    // accepts (9.1).
    tells(
        &table,
        &mut assistant,
        "offer white",
        "blind",
        Announcement::DrawOffered { by: Color::White },
    );
    let notes = assistant.ok("accept");
    assert!(
        notes.contains(&"game over: 1/2-1/2 (draw by agreement)".to_string()),
        "{notes:?}"
    );
    assert_eq!(
        result_of(&assistant.ok("status")).as_deref(),
        Some("1/2-1/2 (draw by agreement)")
    );
    table.wait_transcript(&format!("both {}", words(&Announcement::DrawAccepted)));
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

/// His keypad in his language, both ways (issue 26): German words are read as the English ones
/// and answered in the words he hears; a refusal is said to him, short, and printed in German.
#[test]
fn the_blind_players_keypad_speaks_his_language_both_ways() {
    let (dir, table) = table("console-german", "e4 d5");
    let mut player = table.player();
    let mut assistant = table.connect();
    sighted_move(&table, &mut assistant, "e4", 2);
    // White's move, and his own said back.
    table.said_after("blind", 0, 2);
    let w = move_words("e4 d5");
    let recital = Announcement::Recital {
        number: 1,
        moves: vec![w[1]],
    };
    ask(&table, &mut player, "zug", std::slice::from_ref(&recital));
    ask(&table, &mut player, "last", &[recital]);
    ask(
        &table,
        &mut player,
        "figuren meine springer",
        &[Announcement::PiecesOfKind {
            piece: piece(Color::Black, Kind::Knight),
            squares: vec![Square::B8, Square::G8],
        }],
    );
    ask(
        &table,
        &mut player,
        "Feld Eva4",
        &[Announcement::SquareContents {
            square: Square::E4,
            piece: Some(piece(Color::White, Kind::Pawn)),
        }],
    );
    ask(
        &table,
        &mut player,
        "wiederholen",
        &[Announcement::Move(w[0])],
    );
    for (line, refusal, detail) in [
        ("Zeit bitte", Refusal::BadEntry, "zeit"),
        ("asdf", Refusal::Unknown, "asdf (hilfe)"),
        ("press", Refusal::NotAllowed, "press"),
        ("role assistant", Refusal::NotAllowed, "role"),
        ("feld x9", Refusal::BadEntry, "feld FELD"),
    ] {
        let before = table.said_to("blind").len();
        let heard = words(&Announcement::Refused(refusal));
        assert_eq!(player.refused(line), format!("{heard}: {detail}"), "{line}");
        assert_eq!(table.said_after("blind", before, 1), [heard], "{line}");
    }
    // The keypad stayed his, and the game where it was.
    assert_eq!(ply_of(&assistant.ok("status")), 2);
    assert_eq!(player.ok("amzug"), ["Weiß am Zug"]);
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The assistant (F.9).

#[test]
fn the_assistants_commands_carry_out_his_duties() {
    // 1. d4 d5 2. Nf3 Nf6: the blind player (Black) answers from this list.
    let (dir, table) = table("console-assistant", "d4 d5 Nf3 Nf6 c4 e6");
    let mut assistant = table.connect();
    let w = move_words("d4 d5 Nf3 Nf6");

    // The status: the position, whose move, the clocks, the boards; printed, not spoken.
    let status = assistant.ok("status");
    assert_eq!(status.len(), 5, "{status:?}");
    assert_eq!(
        status[0],
        "position rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(status[1], "ply 0, move 1, white to move");
    assert!(
        status[2].starts_with("clocks white ")
            && status[2].ends_with(" black 1:30:00 (white running)"),
        "{status:?}"
    );
    assert_eq!(status[3], "boards tactile connected, sighted manual");
    assert_eq!(status[4], "in play");

    // The tactile board started the game; nothing to press, promote or correct yet.
    assert_eq!(assistant.refused("start"), "the game has already started");
    assert_eq!(
        assistant.refused("press"),
        "clock pressed, but no move has been entered for the sighted player; enter it with `move`"
    );
    assert_eq!(
        assistant.refused("promote q"),
        "no promotion is waiting for its piece"
    );
    assert_eq!(
        assistant.refused("correct d4"),
        "too late to correct: the opponent's clock has started (F.6)"
    );
    // 10.2 is the claim of the player having the move with less than two minutes left.
    assert_eq!(
        assistant.refused("quickplay"),
        "it is white's move, not black's"
    );
    assert_eq!(
        assistant.refused("quickplay sighted"),
        "10.2 does not apply: the claimant has two minutes or more left"
    );
    // F.9 e: the blind player's flag claim while White's flag stands is no claim; play goes on.
    assert_eq!(
        assistant.ok("flag"),
        ["black's flag claim is not valid: the opponent's flag has not fallen, or both have"]
    );
    // 4.2: announced as an adjustment.
    assert_eq!(
        assistant.ok("adjust sighted e2"),
        ["white adjusts white pawn on e2 (j'adoube, 4.2): not a touch"]
    );
    let status = assistant.ok("status");
    assert_eq!(status[1], "ply 0, move 1, white to move");
    assert_eq!(status[4], "in play");

    // F.6: the sighted player's move is entered wrongly and corrected before the press; only
    // the corrected move is announced and counts.
    assert_eq!(
        assistant.ok("move e4"),
        ["e4 entered; it counts when the clock is pressed"]
    );
    assert_eq!(ply_of(&assistant.ok("status")), 0, "entered is not played");
    assert_eq!(assistant.ok("correct d4"), ["entered move corrected to d4"]);
    assistant.ok("press");
    let status = assistant.ok("status");
    assert_eq!(ply_of(&status), 1, "{status:?}");
    assert!(status.contains(&"last move d4".to_string()), "{status:?}");
    // Once the blind player's clock runs, it is too late (F.6).
    assert_eq!(
        assistant.refused("correct e4"),
        "too late to correct: the opponent's clock has started (F.6)"
    );
    table.wait_ply(2);
    let heard = table.said_after("blind", 0, 2);
    assert_eq!(
        heard,
        [
            words(&Announcement::Move(w[0])),
            words(&Announcement::OwnMove(w[1]))
        ],
        "only d4 was said (and his own reply said back, F.1)"
    );

    // Draw offers (9.1), each said to the opponent; SIDE defaults to the blind player.
    tells(
        &table,
        &mut assistant,
        "offer",
        "sighted",
        Announcement::DrawOffered { by: Color::Black },
    );
    assert_eq!(
        assistant.refused("offer sighted"),
        "white's opponent has offered a draw: accept or decline it instead of offering one"
    );
    tells(
        &table,
        &mut assistant,
        "decline sighted",
        "blind",
        Announcement::DrawDeclined { by: Color::White },
    );
    assert_eq!(
        assistant.refused("accept sighted"),
        "there is no draw offer from white's opponent to answer"
    );
    tells(
        &table,
        &mut assistant,
        "offer white",
        "blind",
        Announcement::DrawOffered { by: Color::White },
    );
    tells(
        &table,
        &mut assistant,
        "decline",
        "sighted",
        Announcement::DrawDeclined { by: Color::Black },
    );
    assert_eq!(
        assistant.refused("decline"),
        "there is no draw offer from black's opponent to answer"
    );
    // The sighted player's touch of his own piece declines the blind player's offer (9.1).
    assistant.ok("offer");
    tells(
        &table,
        &mut assistant,
        "touch g1",
        "blind",
        Announcement::DrawDeclined { by: Color::White },
    );
    assert_eq!(
        assistant.refused("accept sighted"),
        "there is no draw offer from white's opponent to answer"
    );

    // Claims (9.2, 9.3) are the player having the move's; an incorrect one costs (9.5 b, 2001):
    // three minutes to the opponent, half his own time up to three minutes, and counts as a draw
    // offer.
    assert_eq!(
        assistant.refused("claim repetition"),
        "it is white's move, not black's"
    );
    let (white_before, black_before) = clocks_of(&assistant.ok("status"));
    let both_before = table.said_to("both").len();
    let blind_before = table.said_to("blind").len();
    // The penalty is the arbiter's: offered with its amounts, applied at his `confirm`.
    let offered = assistant.ok("claim sighted repetition");
    assert!(
        offered.len() == 1
            && offered[0].starts_with(
                "white's claim under 9.2b is incorrect: 9.5 b adds 3 minutes to black's clock, \
                 takes white's from"
            )
            && offered[0].ends_with(
                "`confirm` applies it, `cancel` drops it (typed in error); both clocks stand \
                 until then (9.5)"
            ),
        "{offered:?}"
    );
    // 9.5: the claim stops both clocks while the arbiter decides; both players hear it.
    let standing = clocks_of(&assistant.ok("status"));
    assert_eq!(standing.1, black_before);
    thread::sleep(Duration::from_millis(1_200));
    assert_eq!(
        clocks_of(&assistant.ok("status")),
        standing,
        "both clocks stand"
    );
    let mut arbiter = table.arbiter();
    assert_eq!(
        arbiter.ok("confirm"),
        ["white's claim under 9.2b is incorrect (9.5 b applied)"]
    );
    let (white_after, black_after) = clocks_of(&assistant.ok("status"));
    assert_eq!(black_after, black_before + 180, "three minutes to Black");
    assert!(
        white_after <= white_before - 180 && white_after > white_before - 360,
        "White loses three minutes: {white_before} -> {white_after}"
    );
    let article = tactus_core::rules::game::DrawClaim::Repetition { intended: None }.article();
    assert_eq!(
        table.said_after("both", both_before, 4),
        [
            words(&Announcement::ClaimMade {
                by: Color::White,
                article
            }),
            words(&Announcement::ClocksPaused),
            words(&Announcement::ClaimRejected { article }),
            words(&Announcement::ClocksResumed),
        ]
    );
    // The blind player (Black) hears that his clock changed and by how much (not his time:
    // F.9 d), and the offer the claim counts as.
    assert_eq!(
        table.said_after("blind", blind_before, 2),
        [
            words(&Announcement::ClockChanged {
                side: Color::Black,
                by_ms: 180_000
            }),
            words(&Announcement::DrawOffered { by: Color::White })
        ]
    );
    assistant.ok("decline black");
    // With the intended move ("a" form): incorrect, so he must make that move.
    assistant.ok("claim sighted fifty Nf3");
    assert_eq!(
        arbiter.ok("confirm"),
        ["white's claim under 9.3a is incorrect (9.5 b applied)"]
    );
    assistant.ok("decline");
    // Another move is refused as it is entered, not only when the clock is pressed.
    assert_eq!(
        assistant.refused("move c4"),
        "'c4' not entered: after the incorrect claim the intended move Nf3 must be played (9.5 b)"
    );
    assert_eq!(
        assistant.refused("press"),
        "clock pressed, but no move has been entered for the sighted player; enter it with `move`"
    );
    assert_eq!(ply_of(&assistant.ok("status")), 2);
    sighted_move(&table, &mut assistant, "Nf3", 4);

    // Adjournment: White, having the move, seals it; the clocks stand, nobody moves. The
    // sighted player's sealed move is the arbiter's to type: the blind player's assistant is
    // his opponent's.
    assert_eq!(
        assistant.refused("seal c4"),
        "not sealed: the sighted player's sealed move is typed at the arbiter's console \
         (`login`), not here, so that his opponent's side does not learn it (adjournment)"
    );
    let notes = table.arbiter().ok("seal c4");
    assert!(
        notes.contains(
            &"game adjourned: white sealed move 3; the clocks stand until the envelope is opened"
                .to_string()
        ),
        "{notes:?}"
    );
    let status = assistant.ok("status");
    assert!(
        status.contains(&"adjourned: white sealed move 3; resumption not fixed yet".to_string()),
        "{status:?}"
    );
    assert!(clock_line(&status).ends_with("(stopped)"), "{status:?}");
    assert_eq!(ply_of(&status), 4);
    assert_eq!(
        assistant.refused("move c4"),
        "'c4' not entered: the game is adjourned; the sealed move is made when the arbiter \
         opens the envelope"
    );
    // A resignation is still possible: the sighted player resigns, Black wins.
    let notes = assistant.ok("resign sighted");
    assert!(
        notes.contains(&"game over: 0-1 (resignation)".to_string()),
        "{notes:?}"
    );
    let status = assistant.ok("status");
    assert_eq!(result_of(&status).as_deref(), Some("0-1 (resignation)"));
    table.wait_transcript(&format!(
        "both {}",
        words(&Announcement::Result(
            tactus_core::announce::ResultWords::BlackWins
        ))
    ));
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

/// `touch SQUARE` is the assistant telling the arbiter that the sighted player touched a piece
/// (F.9 e: "inform the controller when the sighted player has touched one of his pieces"): it
/// is reported as the same touch seen by a sighted board's sensors would be, on the consoles, in
/// the transcript and in `touches.txt`.
#[test]
fn a_touch_entered_at_the_console_is_reported_to_the_arbiter() {
    let (dir, table) = table("console-touch", "d4 d5");
    let mut assistant = table.connect();
    let mut arbiter = table.arbiter();
    let mut player = table.player();
    assert_eq!(
        assistant.ok("touch g1"),
        ["sighted player touched white knight on g1"]
    );
    // The arbiter's console sees it; the player's keypad and Braille display do not (issue 15):
    // it shows what is said to him, as his move is.
    let note = "sighted player touched white knight on g1";
    let t = std::time::Instant::now();
    while !arbiter.events.iter().any(|e| e == note) {
        assert!(t.elapsed() < LIMIT, "{:?}", arbiter.events);
        arbiter.ok("status");
    }
    sighted_move(&table, &mut assistant, "d4", 2);
    let t = std::time::Instant::now();
    // His keypad shows the move as he heard it, in his words.
    while !player.events.iter().any(|e| e == "Bauer David vier") {
        assert!(t.elapsed() < LIMIT, "{:?}", player.events);
        player.send("help");
    }
    for _ in 0..3 {
        player.send("help");
    }
    assert!(
        !player.events.iter().any(|e| e.contains("touched")),
        "{:?}",
        player.events
    );
    // The note goes into the transcript, for the arbiter's report.
    assert!(
        table
            .transcript()
            .contains(" note sighted player touched white knight on g1\n"),
        "{}",
        table.transcript()
    );
    let touches = fs::read_to_string(table.folder().join("touches.txt")).unwrap_or_default();
    assert!(
        touches
            .lines()
            .any(|l| l.contains(" sighted ") && l.ends_with(" g1 white knight")),
        "{touches}"
    );
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// The arbiter.

#[test]
fn the_arbiters_commands_set_clocks_rule_and_take_back() {
    let (dir, table) = table("console-arbiter", "d4 d5 Nf3 Nf6 c4 e6");
    let mut assistant = table.connect();
    let mut arbiter = table.arbiter();
    let mut player = table.player();
    sighted_move(&table, &mut assistant, "d4", 2);

    // 6.12: the clocks stop and start again; both players hear it.
    let both_before = table.said_to("both").len();
    arbiter.ok("pause");
    assert!(clock_line(&arbiter.ok("status")).ends_with("(paused)"));
    assert_eq!(
        arbiter.refused("pause"),
        "the clocks are paused by the arbiter; resume them first"
    );
    arbiter.ok("resume");
    assert!(clock_line(&arbiter.ok("status")).ends_with("(white running)"));
    assert_eq!(arbiter.refused("resume"), "the clocks are not paused");
    assert_eq!(
        table.said_after("both", both_before, 2),
        [
            words(&Announcement::ClocksPaused),
            words(&Announcement::ClocksResumed)
        ]
    );

    // 6.13: Black's clock stands while White thinks, so its times are exact.
    assert_eq!(
        arbiter.ok("set-clock black 1:00:00"),
        ["black's clock set to 1:00:00"]
    );
    assert_eq!(clocks_of(&arbiter.ok("status")).1, 3600);
    assert_eq!(
        arbiter.ok("set-clock blind 45:00"),
        ["black's clock set to 0:45:00"]
    );
    assert_eq!(clocks_of(&arbiter.ok("status")).1, 2700);
    assert_eq!(
        arbiter.ok("add-time black +2m"),
        ["black's clock set to 0:47:00"]
    );
    assert_eq!(clocks_of(&arbiter.ok("status")).1, 2820);
    let white_before = clocks_of(&arbiter.ok("status")).0;
    arbiter.ok("add-time sighted -30s");
    assert!(clocks_of(&arbiter.ok("status")).0 <= white_before - 30);
    // The move counter: what the blind player is told when he asks.
    arbiter.ok("set-moves white 40");
    assert_eq!(
        player.ok("count"),
        [words(&Announcement::MovesCompleted {
            white: 40,
            black: 1
        })]
    );
    arbiter.ok("set-moves white 1");
    assert_eq!(
        player.ok("count"),
        [words(&Announcement::MovesCompleted { white: 1, black: 1 })]
    );

    // Nothing to rule on, nothing proposed, nothing adjourned.
    assert_eq!(
        arbiter.refused("rule draw"),
        "there is no pending 10.2 claim to rule on"
    );
    assert_eq!(
        arbiter.refused("confirm-clocks"),
        "no clock times are waiting for confirmation"
    );
    let not_adjourned = "the game is not adjourned; there is no sealed move";
    assert_eq!(
        arbiter.refused("resumption 2026-12-01 10:00 Hall B"),
        not_adjourned
    );
    assert_eq!(arbiter.refused("open"), not_adjourned);
    assert_eq!(arbiter.refused("open absent"), not_adjourned);

    // 7.4 b: White (having the move) completed an illegal move; it is taken back and Black gets
    // two minutes, once the arbiter confirms the penalty offered.
    assert_eq!(
        arbiter.ok("illegal white"),
        [
            "illegal move 1 by white: 7.4 b adds 2 minutes to black's clock; `confirm` applies it, \
          `cancel` drops it (typed in error)"
        ]
    );
    assert_eq!(clocks_of(&arbiter.ok("status")).1, 2820);
    assert_eq!(
        arbiter.ok("confirm"),
        ["illegal move 1 by white: 120 s added to the opponent (7.4 b)"]
    );
    let status = arbiter.ok("status");
    assert_eq!(clocks_of(&status).1, 2820 + 120);
    assert_eq!(status[1], "ply 2, move 2, white to move");
    // 13.4: a bonus to the offender's opponent, a deduction from the offender.
    assert_eq!(
        arbiter.ok("penalty white bonus 2m"),
        [
            "13.4: black's clock goes from 0:49:00 to 0:51:00; `confirm` applies it, `cancel` \
             drops it (typed in error)"
        ]
    );
    assert_eq!(arbiter.ok("confirm"), ["black's clock set to 0:51:00"]);
    assert_eq!(clocks_of(&arbiter.ok("status")).1, 2820 + 240);
    arbiter.ok("penalty black deduct 1m");
    assert_eq!(arbiter.ok("confirm"), ["black's clock set to 0:50:00"]);
    assert_eq!(clocks_of(&arbiter.ok("status")).1, 2820 + 180);

    // F.8: a scoresheet that agrees changes nothing.
    assert_eq!(
        arbiter.ok("scoresheet white 1. d4 d5"),
        ["white's scoresheet agrees with the record (2 half-moves)"]
    );
    assert_eq!(ply_of(&arbiter.ok("status")), 2);

    // Takeback: two half-moves back; the clocks are held, the record's times proposed, and the
    // tactile board is guided back to the position (the blind player takes Nf3 and Nf6 off).
    sighted_move(&table, &mut assistant, "Nf3", 4);
    assert_eq!(
        arbiter.refused("takeback 9"),
        "cannot retract to 9 half-moves: the game has 4, or a set-up position lies between"
    );
    let blind_before = table.said_to("blind").len();
    let notes = arbiter.ok("takeback 2");
    let proposed = notes
        .iter()
        .find_map(|l| l.strip_prefix("proposed clocks: White "))
        .unwrap_or_else(|| panic!("no clocks proposed: {notes:?}"));
    let proposed_white = proposed.split(',').next().unwrap().to_string();
    let status = arbiter.ok("status");
    assert_eq!(status[1], "ply 2, move 2, white to move", "{status:?}");
    assert!(status.contains(&"last move d5".to_string()), "{status:?}");
    assert!(clock_line(&status).ends_with("(paused)"), "{status:?}");
    table.wait_transcript("note tactile board matches the game again");
    let guided = table.said_to("blind")[blind_before..].to_vec();
    for knight in [
        "Springer steht auf Felix drei",
        "Springer steht auf Felix sechs",
    ] {
        assert!(
            guided.iter().any(|l| l.starts_with(knight)),
            "{knight} not guided: {guided:?}"
        );
    }
    let notes = arbiter.ok("confirm-clocks");
    assert!(
        notes.contains(&format!("white's clock set to {proposed_white}")),
        "{notes:?}"
    );
    assert!(clock_line(&arbiter.ok("status")).ends_with("(white running)"));
    // Play goes on from there: the same moves again.
    sighted_move(&table, &mut assistant, "Nf3", 4);

    // The arbiter declares the result; nothing more can be done to the game.
    let notes = arbiter.ok("result 1/2-1/2");
    assert!(
        notes.contains(&"game over: 1/2-1/2 (the arbiter's decision)".to_string()),
        "{notes:?}"
    );
    let status = arbiter.ok("status");
    assert_eq!(
        result_of(&status).as_deref(),
        Some("1/2-1/2 (the arbiter's decision)")
    );
    table.wait_transcript(&format!(
        "both {}",
        words(&Announcement::Result(
            tactus_core::announce::ResultWords::Draw
        ))
    ));
    let over = "the game is over (the arbiter's decision); nothing more can be played";
    assert_eq!(arbiter.refused("pause"), over);
    assert_eq!(arbiter.refused("penalty white bonus 2m"), over);
    assert_eq!(arbiter.ok("status"), status);
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}

/// Adjournment through the console: the assistant seals, the arbiter fixes the resumption,
/// starts the absent replier's clock without opening the envelope, then opens it when he comes.
#[test]
fn the_envelope_is_opened_after_the_absent_repliers_clock_has_run() {
    let (dir, table) = table("console-envelope", "d4 d5 Nf3 Nf6");
    let mut assistant = table.connect();
    let mut arbiter = table.arbiter();
    sighted_move(&table, &mut assistant, "d4", 2);
    let w = move_words("d4 d5 Nf3");
    let sealed_move = words(&Announcement::Move(w[2]));

    arbiter.ok("seal Nf3");
    assert_eq!(
        arbiter.ok("resumption 2026-12-01 10:00 Hall B"),
        ["resumption: 2026-12-01 10:00 Hall B"]
    );
    let status = arbiter.ok("status");
    assert!(
        status.contains(
            &"adjourned: white sealed move 2; resumption 2026-12-01 10:00 Hall B".to_string()
        ),
        "{status:?}"
    );
    assert!(clock_line(&status).ends_with("(stopped)"), "{status:?}");
    // The replier (Black) is absent: his clock starts, the envelope stays closed.
    assert_eq!(arbiter.ok("open absent"), ["black's clock started"]);
    let status = arbiter.ok("status");
    assert!(
        status.contains(
            &"adjourned: white sealed move 2, the replier's clock runs, the envelope is closed; \
              resumption 2026-12-01 10:00 Hall B"
                .to_string()
        ),
        "{status:?}"
    );
    assert!(
        clock_line(&status).ends_with("(black running)"),
        "{status:?}"
    );
    assert_eq!(ply_of(&status), 2);
    assert_eq!(
        arbiter.refused("open absent"),
        "the replier's clock already runs; open the envelope when he arrives"
    );
    assert!(
        !table.transcript().contains(&sealed_move),
        "the sealed move leaked:\n{}",
        table.transcript()
    );
    // He comes: the envelope is opened, the sealed move made and said to both.
    let notes = arbiter.ok("open");
    assert!(
        notes.contains(&"envelope opened: white's sealed move is made".to_string()),
        "{notes:?}"
    );
    let status = arbiter.ok("status");
    assert!(
        !status.iter().any(|l| l.starts_with("adjourned")),
        "{status:?}"
    );
    assert_eq!(ply_of(&status), 3, "{status:?}");
    assert!(status.contains(&"last move Nf3".to_string()), "{status:?}");
    let transcript = table.wait_transcript(&format!("both {sealed_move}"));
    assert!(
        transcript.contains(&format!("both {}", words(&Announcement::EnvelopeOpened))),
        "{transcript}"
    );
    // The blind player makes it on his board and answers.
    table.wait_ply(4);
    drop(table);
    fs::remove_dir_all(&dir).unwrap();
}
