//! The console from the outside: console lines driving a real arbiter through the pure API, and
//! the `tactus console` client (library functions and the binary) against a tiny Unix-socket
//! server in the test that speaks the wire protocol with the real console language.

use std::{
    io::{BufRead, BufReader, Cursor, Write},
    os::unix::net::{UnixListener, UnixStream},
    path::{Path, PathBuf},
    process::Command as Process,
    sync::{Arc, Mutex},
    thread,
    time::Duration,
};

use shakmaty::{Chess, Color, KnownOutcome};
use tactus::client;
use tactus_core::{
    announce::{Announcement, Audience, ResultWords},
    arbiter::{Arbiter, ArbiterConfig, Completion, Effect, Input, one_blind},
    board::{Sensing, recognize::RecognizerConfig},
    commands,
    console::{
        self, Command, ConsoleError, Role, Session, answer, format_reply, help_lines, to_input,
        wire::{End, Reply},
    },
    rules::{
        Millis, PlayMode, dead,
        game::{self, RulesConfig},
        time_control::TimeControl,
    },
};

const TOKEN: &str = "00112233445566778899aabbccddeeff";

// ---- Console lines driving an arbiter (pure) ----

fn arbiter() -> Arbiter {
    arbiter_with(RulesConfig {
        time_control: Some(TimeControl::parse("5400+30").unwrap()),
        ..RulesConfig::default()
    })
}

fn arbiter_with(rules: RulesConfig) -> Arbiter {
    let tactile = RecognizerConfig {
        sensing: Sensing::Occupancy,
        settle_ms: 0,
        scan_ms: 0,
        bounce_ms: 0,
        differs_after_ms: 1500,
        confirm_with_snapshot: false,
    };
    Arbiter::new(
        ArbiterConfig {
            rules,
            // A sighted board without sensors: the assistant enters his moves.
            seats: one_blind(Color::Black, tactile, None, Completion::ClockPress),
            guidance_repeat_ms: 10_000,
            say_own_move: true,
            correction_window_ms: 0,
        },
        Chess::default(),
    )
}

/// What the daemon's hub would do with one line, minus the I/O: parse in the session, answer a
/// request from the game, or hand the input to the arbiter and collect its notes.
fn hub_line(
    session: &mut Session,
    a: &mut Arbiter,
    line: &str,
    now: Millis,
) -> Result<Vec<String>, String> {
    let blind = a.config().the_blind().expect("one blind player");
    let command = session.parse(line).map_err(|e| e.to_string())?;
    if let Command::Request(r) = &command {
        return Ok(format_reply(&answer(r, a.game(), blind, now)));
    }
    let input =
        to_input(&command, a.game(), Some(blind), &braille(a)).map_err(|e| e.to_string())?;
    Ok(match input {
        None => vec![format!("{command:?}")],
        Some(input) => a
            .handle(input, now)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Note(n) => Some(n),
                _ => None,
            })
            .collect(),
    })
}

/// The default Braille profile for both sheets, as a table without `[record] braille_profile`
/// and with English voices reads them.
fn braille(a: &Arbiter) -> tactus_core::console::SheetProfiles {
    tactus_core::console::SheetProfiles::one(
        tactus_core::record::braille::Profile::named(tactus_core::record::braille::DEFAULT_PROFILE)
            .unwrap(),
        shakmaty::ByColor::new_with(|seat| a.config().is_blind(seat)),
    )
}

/// Every effect of one console line (the notes, the announcements, the end), or the refusal.
fn line_effects(
    session: &mut Session,
    a: &mut Arbiter,
    line: &str,
    now: Millis,
) -> Result<Vec<Effect>, String> {
    let blind = a.config().the_blind().expect("one blind player");
    let command = session.parse(line).map_err(|e| e.to_string())?;
    let input = to_input(&command, a.game(), Some(blind), &braille(a))
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{line}: not an input"))?;
    let mut effects = a.handle(input, now);
    // The daemon runs the mateability searches off its loop; here they are answered at once.
    let mut at = 0;
    while let Some((ticket, query)) = effects[at..].iter().find_map(|e| match e {
        Effect::Analyse { ticket, query } => Some((*ticket, query.clone())),
        _ => None,
    }) {
        at = effects.len();
        let mateability = dead::solve(&query);
        effects.extend(a.handle(
            Input::Rules(game::Input::Verdict {
                ticket,
                mateability,
            }),
            now,
        ));
    }
    match effects.iter().find_map(|e| match e {
        Effect::Refused(why) => Some(why.clone()),
        _ => None,
    }) {
        Some(why) => Err(why),
        None => Ok(effects),
    }
}

/// What `effects` say to `audience`.
fn said(effects: &[Effect], audience: Audience) -> Vec<Announcement> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Say {
                audience: a,
                announcement,
                ..
            } if *a == audience => Some(announcement.clone()),
            _ => None,
        })
        .collect()
}

/// Appendix C (blitz): after the arbiter's `illegal SIDE`, the opponent claims the win with
/// `claim illegal` before he moves; the claim reaches the rules through the arbiter, and the
/// result is said to both players. Without an illegal move, or by the offender, the claim is
/// refused and changes nothing.
#[test]
fn claim_illegal_appendix_c_wins_from_the_console() {
    let mut a = arbiter_with(RulesConfig {
        time_control: Some(TimeControl::parse("300").unwrap()),
        play: PlayMode::Blitz,
        ..RulesConfig::default()
    });
    let mut assistant = Session::new(Role::Assistant, Some(TOKEN.into()));
    line_effects(&mut assistant, &mut a, "start", 0).unwrap();
    line_effects(&mut assistant, &mut a, "mv e4", 2_000).unwrap();
    line_effects(&mut assistant, &mut a, "pr", 3_000).unwrap();
    assert_eq!(a.game().ply(), 1);
    let e = line_effects(&mut assistant, &mut a, "claim illegal", 4_000).unwrap_err();
    assert!(!a.game().is_over(), "{e}");
    // The arbiter: White's move was illegal (the record keeps only legal moves).
    line_effects(&mut assistant, &mut a, &format!("login {TOKEN}"), 4_500).unwrap_err();
    assert_eq!(assistant.role(), Role::Arbiter);
    line_effects(&mut assistant, &mut a, "illegal white", 5_000).unwrap();
    assert!(!a.game().is_over());
    // Not the offender's claim to make.
    assert!(line_effects(&mut assistant, &mut a, "claim sighted illegal", 5_500).is_err());
    assert!(!a.game().is_over());
    // The blind player (Black, the default side) claims: Black wins, both hear it.
    let effects = line_effects(&mut assistant, &mut a, "cl illegal", 6_000).unwrap();
    let end = a.game().end().expect("the game is over");
    assert_eq!(
        end.outcome,
        KnownOutcome::Decisive {
            winner: Color::Black
        }
    );
    assert_eq!(
        said(&effects, Audience::Both),
        [Announcement::Result(ResultWords::BlackWins)]
    );
}

/// 5.1 b: the assistant's `resign` names the side (the blind player's game is not ended by a
/// stray `rs`), and the result is said to both players: one announcement to both audiences.
#[test]
fn resign_5_1_b_from_the_console_is_said_to_both_players() {
    let mut a = arbiter();
    let mut assistant = Session::new(Role::Assistant, None);
    line_effects(&mut assistant, &mut a, "start", 0).unwrap();
    let e = line_effects(&mut assistant, &mut a, "rs", 1_000).unwrap_err();
    assert!(e.contains("whose game"), "{e}");
    assert!(!a.game().is_over());
    let effects = line_effects(&mut assistant, &mut a, "rs sighted", 2_000).unwrap();
    assert_eq!(
        a.game().end().map(|e| e.outcome),
        Some(KnownOutcome::Decisive {
            winner: Color::Black
        })
    );
    assert_eq!(
        said(&effects, Audience::Both),
        [Announcement::Result(ResultWords::BlackWins)]
    );
    assert!(said(&effects, Audience::Player(Color::Black)).is_empty());
    assert!(said(&effects, Audience::Player(Color::White)).is_empty());
}

#[test]
fn console_lines_play_and_question_a_game() {
    let mut a = arbiter();
    let mut assistant = Session::new(Role::Assistant, Some(TOKEN.into()));
    let mut player = Session::new(Role::Player, None);

    hub_line(&mut assistant, &mut a, "start", 0).unwrap();
    let notes = hub_line(&mut assistant, &mut a, "mv e4", 4_000).unwrap();
    assert!(notes.iter().any(|n| n.contains("e4 entered")), "{notes:?}");
    hub_line(&mut assistant, &mut a, "pr", 5_000).unwrap();
    // The blind player asks; the answers come from the game.
    assert_eq!(
        hub_line(&mut player, &mut a, "l", 6_000).unwrap(),
        ["1. White e2-e4"]
    );
    assert_eq!(
        hub_line(&mut player, &mut a, "c", 6_000).unwrap(),
        ["moves completed: White 1, Black 0"]
    );
    assert_eq!(
        hub_line(&mut player, &mut a, "t", 6_000).unwrap(),
        ["time: White used 0:00:05, left 1:30:25; Black used 0:00:01, left 1:29:59"]
    );
    assert_eq!(
        hub_line(&mut player, &mut a, "tn", 6_000).unwrap(),
        ["Black to move"]
    );
    assert_eq!(
        hub_line(&mut player, &mut a, "s e4", 6_000).unwrap(),
        ["e4: white pawn"]
    );
    assert_eq!(
        hub_line(&mut player, &mut a, "p mine king", 6_000).unwrap(),
        ["black king: e8"]
    );
    // The player's keypad cannot offer for him, pause or enter moves; `resign` there is his
    // own game, without a side (the table asks him to type it again before it counts).
    let e = hub_line(&mut player, &mut a, "offer", 6_000).unwrap_err();
    assert!(e.contains("assistant"), "{e}");
    assert!(matches!(
        player.parse("resign"),
        Ok(Command::Game(tactus_core::console::Action::Resign(
            tactus_core::console::Side::Blind
        )))
    ));
    assert!(player.parse("resign sighted").is_err());
    assert!(hub_line(&mut player, &mut a, "move e5", 6_000).is_err());
    // The assistant cannot pause; the arbiter, logged in, can, and sets a clock.
    assert!(
        hub_line(&mut assistant, &mut a, "pause", 7_000)
            .unwrap_err()
            .contains("arbiter only")
    );
    assert!(hub_line(&mut assistant, &mut a, &format!("login {TOKEN}"), 7_000).is_ok());
    hub_line(&mut assistant, &mut a, "pause", 7_000).unwrap();
    assert!(a.game().clock().unwrap().is_paused());
    hub_line(&mut assistant, &mut a, "set-clock black 1:00:00", 8_000).unwrap();
    hub_line(&mut assistant, &mut a, "penalty white bonus 2m", 8_000).unwrap();
    hub_line(&mut assistant, &mut a, "confirm", 8_000).unwrap();
    assert_eq!(
        a.game().clock().unwrap().remaining(Color::Black, 8_000),
        3_600_000 + 120_000
    );
    hub_line(&mut assistant, &mut a, "resume", 9_000).unwrap();
    assert!(!a.game().clock().unwrap().is_paused());
    // An offer by the blind player (the default side), declined by the sighted one.
    hub_line(&mut assistant, &mut a, "of", 10_000).unwrap();
    assert_eq!(a.game().draw_offer(), Some(Color::Black));
    hub_line(&mut assistant, &mut a, "dc sighted", 11_000).unwrap();
    assert_eq!(a.game().draw_offer(), None);
    // The arbiter declares the result.
    hub_line(&mut assistant, &mut a, "result 1/2-1/2", 12_000).unwrap();
    assert!(a.game().is_over());
}

#[test]
fn the_help_of_each_role_is_what_that_role_may_do() {
    for role in [Role::Player, Role::Assistant, Role::Arbiter] {
        for line in help_lines(role, None).iter().skip(1) {
            let name = line.split_whitespace().next().unwrap();
            let spec = commands::lookup(name).unwrap();
            assert!(spec.role <= role, "{role} help lists {name}");
            // Every command it lists is accepted by name in that role.
            assert!(
                !matches!(
                    console::parse(spec.example, role),
                    Err(ConsoleError::NotAllowed { .. })
                ),
                "{role}: {name}"
            );
        }
    }
}

// ---- A tiny console server, for the client ----

/// Lines the server received, per test.
type Log = Arc<Mutex<Vec<String>>>;

#[derive(Clone, Copy)]
enum Behaviour {
    /// Answers with the real console language (and a greeting event, and an event between
    /// replies).
    Speak,
    /// Reads and never answers.
    Mute,
    /// Closes each connection after reading one line.
    Hangup,
}

struct Server {
    dir: PathBuf,
    socket: PathBuf,
    log: Log,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn temp_dir() -> PathBuf {
    crate::support::table::temp_dir("console")
}

fn server(behaviour: Behaviour) -> Server {
    let dir = temp_dir();
    let socket = dir.join("console.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    let log: Log = Arc::default();
    let server_log = log.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let log = server_log.clone();
            thread::spawn(move || serve(stream, behaviour, &log));
        }
    });
    Server { dir, socket, log }
}

fn serve(stream: UnixStream, behaviour: Behaviour, log: &Log) {
    let mut writer = stream.try_clone().unwrap();
    let mut session = Session::new(Role::Assistant, Some(TOKEN.into()));
    let game = tactus_core::rules::game::Game::new(RulesConfig::default());
    if matches!(behaviour, Behaviour::Speak) {
        let _ = writer.write_all(
            console::wire::encode_event("tactus console; help lists the commands").as_bytes(),
        );
    }
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        log.lock().unwrap().push(line.clone());
        let reply = match behaviour {
            Behaviour::Mute => continue,
            Behaviour::Hangup => return,
            Behaviour::Speak => match session.parse(&line) {
                Err(ConsoleError::Empty) => continue,
                Err(e) => Reply::error(e.to_string()),
                Ok(Command::Quit) => {
                    let _ = writer.write_all(b"ok bye\n");
                    return;
                }
                Ok(Command::Request(r)) => {
                    Reply::ok(format_reply(&answer(&r, &game, Color::Black, 0)))
                }
                Ok(Command::Help(topic)) => Reply::ok(help_lines(session.role(), topic)),
                Ok(Command::Role { .. } | Command::Login { .. }) => Reply {
                    body: vec![],
                    end: End::Ok(format!("role {}", session.role())),
                },
                // A body line that looks like an end line must arrive as a body line.
                Ok(Command::Status) => Reply::ok(vec!["ok".into(), "White to move".into()]),
                Ok(other) => Reply::ok(vec![format!("{other:?}")]),
            },
        };
        let text = format!(
            "{}{}",
            console::wire::encode_event("something happened"),
            reply.encode()
        );
        if writer.write_all(text.as_bytes()).is_err() {
            return;
        }
    }
}

fn connect(s: &Server) -> UnixStream {
    UnixStream::connect(&s.socket).unwrap()
}

fn one_shot(
    s: &Server,
    preamble: &[String],
    command: &str,
    timeout: Duration,
) -> (bool, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let ok = client::one_shot(connect(s), preamble, command, timeout, &mut out, &mut err).unwrap();
    (
        ok,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

const SHORT: Duration = Duration::from_secs(5);

#[test]
fn one_shot_prints_the_reply_and_says_whether_it_was_done() {
    let s = server(Behaviour::Speak);
    let (ok, out, err) = one_shot(&s, &[], "turn", SHORT);
    assert!(ok, "{err}");
    // Events (the greeting, the one before the reply) are not part of the reply.
    assert_eq!(out, "White to move\nok\n");
    assert_eq!(err, "");
    let (ok, out, err) = one_shot(&s, &[], "pause", SHORT);
    assert!(!ok);
    assert_eq!(out, "");
    assert!(
        err.starts_with("error: 'pause' is for the arbiter only"),
        "{err}"
    );
    let (ok, _, err) = one_shot(&s, &[], "tme", SHORT);
    assert!(!ok);
    assert_eq!(err, "error: unknown command 'tme'; did you mean 'time'?\n");
    // An escaped body line comes out as the body line it is.
    let (ok, out, _) = one_shot(&s, &[], "status", SHORT);
    assert!(ok);
    assert_eq!(out, "ok\nWhite to move\nok\n");
    let (ok, out, _) = one_shot(&s, &[], "quit", SHORT);
    assert!(ok);
    assert_eq!(out, "ok bye\n");
}

#[test]
fn one_shot_logs_in_first_and_stops_on_a_wrong_token() {
    let s = server(Behaviour::Speak);
    let (ok, out, err) = one_shot(&s, &[format!("login {TOKEN}")], "pause", SHORT);
    assert!(ok, "{err}");
    assert_eq!(out, "Game(Pause)\nok\n");
    let (ok, out, err) = one_shot(
        &s,
        &["login ffffffffffffffffffffffffffffffff".into()],
        "pause",
        SHORT,
    );
    assert!(!ok);
    assert_eq!(out, "");
    assert!(err.contains("wrong arbiter token"), "{err}");
    // The command after a refused login was never sent.
    let log = s.log.lock().unwrap().clone();
    assert_eq!(log.iter().filter(|l| *l == "pause").count(), 1, "{log:?}");
    // A role switch before the command.
    let (ok, _, err) = one_shot(&s, &["role player".into()], "offer", SHORT);
    assert!(!ok);
    assert!(err.contains("player role"), "{err}");
}

#[test]
fn one_shot_gives_up_on_a_silent_or_vanishing_daemon() {
    let mute = server(Behaviour::Mute);
    // The mute server keeps the connection open and never answers, so the client coming back at
    // all means it gave up by itself; its message names the 0.3 s it waited. The guard against a
    // hang is a channel with a generous limit, not a wall-clock bound a loaded machine can miss.
    let stream = connect(&mute);
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let timeout = Duration::from_millis(300);
        let ok = client::one_shot(stream, &[], "time", timeout, &mut out, &mut err).unwrap();
        let _ = done_tx.send((ok, String::from_utf8(err).unwrap()));
    });
    let (ok, err) = done_rx
        .recv_timeout(Duration::from_secs(60))
        .expect("one_shot hung on a daemon that never answers");
    assert!(!ok);
    assert!(
        err.contains("no reply from the daemon within 0.3 s"),
        "{err}"
    );
    let hangup = server(Behaviour::Hangup);
    let (ok, _, err) = one_shot(&hangup, &[], "time", SHORT);
    assert!(!ok);
    assert!(
        err.contains("closed the connection before replying"),
        "{err}"
    );
}

/// A `Write` the test can read after the client's thread is done with it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn interactive(s: &Server, preamble: &[String], input: &str) -> (bool, String, String) {
    let out = Shared::default();
    let mut err = Vec::new();
    let ok = client::interactive(
        connect(s),
        preamble,
        Cursor::new(input.to_string()),
        out.clone(),
        &mut err,
        Duration::from_secs(2),
    )
    .unwrap();
    (ok, out.text(), String::from_utf8(err).unwrap())
}

#[test]
fn interactive_prints_every_line_the_daemon_sends() {
    let s = server(Behaviour::Speak);
    let (ok, out, err) = interactive(&s, &[], "turn\n\nsquare e2\ntme\nquit\n");
    assert!(ok, "{err}");
    assert_eq!(err, "");
    assert_eq!(
        out,
        "# tactus console; help lists the commands\n\
         # something happened\nWhite to move\nok\n\
         # something happened\ne2: white pawn\nok\n\
         # something happened\nerror: unknown command 'tme'; did you mean 'time'?\n\
         ok bye\n"
    );
    // The empty line was not sent.
    assert!(!s.log.lock().unwrap().iter().any(String::is_empty));
}

#[test]
fn interactive_ends_with_its_input_after_the_last_reply() {
    let s = server(Behaviour::Speak);
    let (ok, out, _) = interactive(&s, &[format!("login {TOKEN}")], "pause\n");
    assert!(ok);
    assert!(out.contains("ok role arbiter\n"), "{out}");
    assert!(out.ends_with("Game(Pause)\nok\n"), "{out}");
}

#[test]
fn interactive_refuses_an_overlong_line_and_reports_a_vanished_daemon() {
    let s = server(Behaviour::Speak);
    let long = "x".repeat(console::MAX_LINE + 1);
    let (ok, out, err) = interactive(&s, &[], &format!("{long}\nturn\n"));
    assert!(ok);
    assert!(
        err.contains("not sent: the line is 4097 bytes long"),
        "{err}"
    );
    assert!(out.contains("White to move"), "{out}");
    assert!(
        !s.log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.len() > console::MAX_LINE)
    );

    // A keyboard that stays open: the daemon, not the input, ends this one.
    let hangup = server(Behaviour::Hangup);
    let (mut keyboard, input) = UnixStream::pair().unwrap();
    keyboard.write_all(b"time\ncount\n").unwrap();
    let mut err = Vec::new();
    let ok = client::interactive(
        connect(&hangup),
        &[],
        BufReader::new(input),
        Shared::default(),
        &mut err,
        Duration::from_secs(2),
    )
    .unwrap();
    let err = String::from_utf8(err).unwrap();
    assert!(!ok);
    assert!(err.contains("the daemon closed the connection"), "{err}");
    drop(keyboard);
}

// ---- The binary ----

fn tactus(args: &[&str]) -> (i32, String, String) {
    let out = Process::new(env!("CARGO_BIN_EXE_tactus"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn tactus_console_c_exits_0_when_done_and_1_when_refused() {
    let s = server(Behaviour::Speak);
    let socket = path(&s.socket);
    assert_eq!(
        tactus(&["console", "--socket", socket, "-c", "turn"]),
        (0, "White to move\nok\n".into(), String::new())
    );
    let (code, out, err) = tactus(&["console", "--socket", socket, "-c", "pause"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("arbiter only"), "{err}");
    // The token file logs in first.
    let token_file = s.dir.join("arbiter.token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let (code, out, err) = tactus(&[
        "console",
        "--socket",
        socket,
        "--token-file",
        path(&token_file),
        "-c",
        "pause",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Game(Pause)\nok\n");
    let (code, _, err) = tactus(&[
        "console", "--socket", socket, "--role", "player", "-c", "offer",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("player role"), "{err}");
}

#[test]
fn tactus_console_says_what_is_wrong_before_connecting() {
    let dir = temp_dir();
    let missing = dir.join("nobody.sock");
    let (code, _, err) = tactus(&["console", "--socket", path(&missing), "-c", "time"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot connect to the console socket") && err.contains("tactus run"),
        "{err}"
    );
    let (code, _, err) = tactus(&["console", "--socket", path(&missing), "-c", "time\npause"]);
    assert_eq!(code, 2);
    assert!(err.contains("-c takes one command"), "{err}");
    let (code, _, err) = tactus(&[
        "console",
        "--socket",
        path(&missing),
        "--role",
        "arbiter",
        "-c",
        "pause",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--token-file"), "{err}");
    let empty_token = dir.join("empty.token");
    std::fs::write(&empty_token, "\n").unwrap();
    let (code, _, err) = tactus(&[
        "console",
        "--socket",
        path(&missing),
        "--token-file",
        path(&empty_token),
        "-c",
        "pause",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("holds no token") && err.contains("empty"),
        "{err}"
    );
    // The socket of a configuration file.
    let config = dir.join("config.toml");
    std::fs::write(&config, "[console]\nsocket = \"here.sock\"\n").unwrap();
    let (code, _, err) = tactus(&["console", "--config", path(&config), "-c", "time"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{}", dir.join("here.sock").display())),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 26 point 4: consoles died with the daemon: after a restart the assistant, the player's
/// keypad and the arbiter each had to connect again by hand. The interactive client connects
/// again by itself, says so, and sends its preamble (the arbiter's login) anew.
#[test]
fn the_console_connects_again_by_itself_when_the_daemon_restarts() {
    let dir = crate::support::table::temp_dir("reconnect");
    let path = dir.join("console.sock");
    let first = UnixListener::bind(&path).unwrap();
    let server_path = path.clone();
    // The daemon: takes the client, reads its preamble, goes away; a new daemon on the same
    // path takes it again and answers one line before the client's input ends.
    let daemon = std::thread::spawn(move || {
        let read_line = |s: &UnixStream| {
            let mut line = String::new();
            std::io::BufRead::read_line(&mut std::io::BufReader::new(s), &mut line).unwrap();
            line
        };
        let (s, _) = first.accept().unwrap();
        let login1 = read_line(&s);
        drop(s);
        drop(first);
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let _ = std::fs::remove_file(&server_path);
        let second = UnixListener::bind(&server_path).unwrap();
        let (mut s, _) = second.accept().unwrap();
        let login2 = read_line(&s);
        s.write_all(b"# back in play\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        (login1, login2)
    });
    let stream = UnixStream::connect(&path).unwrap();
    let (out, err) = (Shared::default(), Shared::default());
    let again = path.clone();
    let reconnect: client::Reconnect = Box::new(move || UnixStream::connect(&again).ok());
    // The keyboard: nothing typed for 4 s, then the end of the input.
    struct Slow(std::io::Cursor<Vec<u8>>, bool);
    impl std::io::Read for Slow {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if !self.1 {
                std::thread::sleep(std::time::Duration::from_secs(4));
                self.1 = true;
            }
            self.0.read(buf)
        }
    }
    let input = std::io::BufReader::new(Slow(std::io::Cursor::new(Vec::new()), false));
    let _ = client::interactive_reconnecting(
        stream,
        &["login 3fa107c29e5510d86b2ce4817a0fb346".to_string()],
        input,
        out.clone(),
        err.clone(),
        std::time::Duration::from_millis(500),
        Some(reconnect),
    )
    .unwrap();
    let (login1, login2) = daemon.join().unwrap();
    assert!(
        login1.starts_with("login ") && login2 == login1,
        "{login1:?} {login2:?}"
    );
    let err = err.text();
    assert!(
        err.contains("connecting again") && err.contains("connected again"),
        "{err}"
    );
    assert!(out.text().contains("back in play"), "{}", out.text());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 37 point 12: the arbiter's `tactus console --token-file` named the token of the game
/// folder he logged in to; when that game ended and the daemon was started again in the same
/// output folder, the new game had a new folder and a new token, his console connected again
/// with the old one, was refused and fell to the assistant's role. It follows the game the daemon
/// plays: the token in the game folder of the daemon now listening, said on his screen.
#[test]
fn the_arbiters_console_follows_a_new_game_in_the_same_folder() {
    follows_the_next_game("arbiter-follows", true, &[]);
}

/// The same when the game is not over and the daemon is started again with `--new`.
#[test]
fn the_arbiters_console_follows_a_game_started_with_new() {
    follows_the_next_game("arbiter-follows-new", false, &["--new"]);
}

/// A run in a fresh folder, the arbiter's interactive console logged in with the game folder's
/// token; the game ended by his `resign sighted` (`resign`) or not, the run stopped and started
/// again with `again`; then his console's next arbiter's command is carried out.
fn follows_the_next_game(tag: &str, resign: bool, again: &[&str]) {
    use crate::support::{
        process::{ask_when_up, show, spawn, wait_until},
        table::{temp_dir, voices_dir},
    };
    const LIMIT: Duration = Duration::from_secs(30);
    let dir = temp_dir(tag);
    token_in_each_game_folder(&dir);
    let voices = voices_dir();
    let env = [("TACTUS_VOICES", voices.as_os_str())];
    let socket = dir.join("console.sock");
    let folders = || game_folders(&dir);
    let mut first = spawn(&["run", "--config", "config.toml"], &dir, "run1", &env);
    ask_when_up(&socket, "status", &mut first, &dir, "run1", LIMIT);
    let game1 = folders().pop().expect("the first game's folder");
    let token1 = game1.join("arbiter.token");
    assert!(token1.is_file(), "{}", show(&dir, "run1"));

    let token_arg = token1.as_os_str();
    let (mut console, keyboard) = console_in(
        &dir,
        "arbiter",
        &[
            "console".as_ref(),
            "--socket".as_ref(),
            "console.sock".as_ref(),
            "--token-file".as_ref(),
            token_arg,
        ],
        &[],
    );
    let mut keyboard = keyboard;
    let shown = || std::fs::read_to_string(dir.join("arbiter.out")).unwrap_or_default();
    let said = || std::fs::read_to_string(dir.join("arbiter.err")).unwrap_or_default();
    assert!(
        wait_until(LIMIT, || shown().contains("ok role arbiter")),
        "logged in: {}{}",
        shown(),
        said()
    );
    if resign {
        // The arbiter ends the game.
        keyboard.write_all(b"resign sighted\n").unwrap();
        assert!(
            wait_until(LIMIT, || shown().contains("1-0")),
            "the game is over: {}{}",
            shown(),
            said()
        );
    }
    first.signal("-INT");
    first.wait_limit(LIMIT);

    // The next game in the same output folder: a new folder, a new token.
    let args: Vec<&str> = ["run", "--config", "config.toml"]
        .into_iter()
        .chain(again.iter().copied())
        .collect();
    let mut second = spawn(&args, &dir, "run2", &env);
    ask_when_up(&socket, "status", &mut second, &dir, "run2", LIMIT);
    let game2 = folders()
        .into_iter()
        .find(|f| *f != game1)
        .expect("the second game's folder");
    assert_ne!(
        std::fs::read_to_string(&token1).unwrap(),
        std::fs::read_to_string(game2.join("arbiter.token")).unwrap(),
        "a new game, a new token"
    );
    assert!(
        wait_until(LIMIT, || said().contains("connected again")),
        "{}",
        said()
    );
    let before = shown().len();
    // The arbiter's own (6.13), refused in the assistant's role.
    keyboard.write_all(b"set-clock white 1:00:00\n").unwrap();
    assert!(
        wait_until(LIMIT, || {
            let text = shown();
            let reply = &text[before..];
            reply.contains("\nok") || reply.starts_with("ok") || reply.contains("error")
        }),
        "the arbiter's set-clock is answered: {}{}",
        shown(),
        said()
    );
    let text = shown();
    assert!(
        !text[before..].contains("error"),
        "the arbiter's console in the new game, in his role: {text}\n{}",
        said()
    );
    // His screen says which game's token he logged in with.
    assert!(said().contains(&game2.display().to_string()), "{}", said());
    drop(keyboard);
    let _ = console.kill();
    let _ = console.wait();
    second.signal("-INT");
    second.wait_limit(LIMIT);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A table's configuration in `dir` whose arbiter's token is in each game folder (the default),
/// not one file for every game.
fn token_in_each_game_folder(dir: &Path) {
    crate::support::table::write_config(dir, Color::White, "none");
    let config = std::fs::read_to_string(dir.join("config.toml")).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        config.replace("token_file = \"arbiter.token\"\n", ""),
    )
    .unwrap();
}

/// The game folders made so far in the output folder of [`token_in_each_game_folder`]'s table.
fn game_folders(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("played"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default()
}

/// Issue 37 point 12, the part left: the arbiter who started his console afresh with the token
/// file of the previous game in the same output folder (the path he typed for it, in his shell's
/// history), while the daemon played a new game with a new token in its own folder, was refused
/// and left in the assistant's role. It logs in to the game played now, as a console that
/// connects again does, and says so; the one-shot `-c` too.
#[test]
fn an_arbiters_console_started_with_an_old_games_token_logs_in_to_the_game_played_now() {
    use crate::support::{
        process::{ask_when_up, show, spawn, wait_until},
        table::{temp_dir, voices_dir},
    };
    const LIMIT: Duration = Duration::from_secs(30);
    let dir = temp_dir("arbiter-starts-old");
    token_in_each_game_folder(&dir);
    let voices = voices_dir();
    let env = [("TACTUS_VOICES", voices.as_os_str())];
    let socket = dir.join("console.sock");
    let mut first = spawn(&["run", "--config", "config.toml"], &dir, "run1", &env);
    ask_when_up(&socket, "status", &mut first, &dir, "run1", LIMIT);
    let game1 = game_folders(&dir).pop().expect("the first game's folder");
    let token1 = game1.join("arbiter.token");
    first.signal("-INT");
    first.wait_limit(LIMIT);
    let mut second = spawn(
        &["run", "--config", "config.toml", "--new"],
        &dir,
        "run2",
        &env,
    );
    ask_when_up(&socket, "status", &mut second, &dir, "run2", LIMIT);
    let game2 = game_folders(&dir)
        .into_iter()
        .find(|f| *f != game1)
        .expect("the second game's folder");
    assert_ne!(
        std::fs::read_to_string(&token1).unwrap(),
        std::fs::read_to_string(game2.join("arbiter.token")).unwrap(),
        "a new game, a new token"
    );
    let followed = format!(
        "the daemon plays another game now, in {}: logging in as the arbiter with its token ({})",
        game2.display(),
        game2.join("arbiter.token").display()
    );

    // Interactive: logged in as the arbiter of the game played now, and told so.
    let token_arg = token1.as_os_str();
    let (mut console, keyboard) = console_in(
        &dir,
        "arbiter",
        &[
            "console".as_ref(),
            "--socket".as_ref(),
            "console.sock".as_ref(),
            "--token-file".as_ref(),
            token_arg,
        ],
        &[],
    );
    let shown = || std::fs::read_to_string(dir.join("arbiter.out")).unwrap_or_default();
    let said = || std::fs::read_to_string(dir.join("arbiter.err")).unwrap_or_default();
    assert!(
        wait_until(LIMIT, || shown().contains("ok role arbiter")
            || shown().contains("error")),
        "answered: {}{}\n{}",
        shown(),
        said(),
        show(&dir, "run2")
    );
    assert!(
        shown().contains("ok role arbiter") && !shown().contains("error"),
        "the arbiter's console in the game played now, in his role: {}\n{}",
        shown(),
        said()
    );
    assert!(said().contains(&followed), "{}", said());
    drop(keyboard);
    let _ = console.kill();
    let _ = console.wait();

    // One-shot: the arbiter's own command (6.13) is carried out in the game played now.
    let (code, out, err) = tactus(&[
        "console",
        "--socket",
        path(&socket),
        "--token-file",
        path(&token1),
        "-c",
        "set-clock white 1:00:00",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains(&followed), "{err}");

    second.signal("-INT");
    second.wait_limit(LIMIT);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What an arbiter's console started afresh follows is only an older game's token beside the
/// game the daemon plays: a wrong token in a game folder of another output folder, or in a folder
/// of the same output folder that holds no game, is sent as given and refused as ever; a file
/// holding no token is refused before connecting.
#[test]
fn an_arbiters_console_started_with_a_token_of_no_older_game_is_still_refused() {
    use crate::support::{
        process::{ask_when_up, spawn},
        table::{temp_dir, voices_dir},
    };
    use std::os::unix::fs::PermissionsExt;
    const LIMIT: Duration = Duration::from_secs(30);
    const WRONG: &str = "ffeeddccbbaa99887766554433221100";
    let dir = temp_dir("arbiter-wrong-token");
    token_in_each_game_folder(&dir);
    let voices = voices_dir();
    let env = [("TACTUS_VOICES", voices.as_os_str())];
    let socket = dir.join("console.sock");
    let mut run = spawn(&["run", "--config", "config.toml"], &dir, "run", &env);
    ask_when_up(&socket, "status", &mut run, &dir, "run", LIMIT);
    let token_file = |folder: &Path, journal: bool| -> PathBuf {
        std::fs::create_dir_all(folder).unwrap();
        if journal {
            std::fs::write(folder.join("journal.jsonl"), "").unwrap();
        }
        let file = folder.join("arbiter.token");
        std::fs::write(&file, format!("{WRONG}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        file
    };
    // A game of another output folder (another daemon's, gone), and a folder beside the game
    // played now that holds no game.
    let elsewhere = token_file(&dir.join("elsewhere").join("2026-01-01_1000_A-B"), true);
    std::fs::write(elsewhere.with_file_name("tactus.lock"), "1\n").unwrap();
    let no_game = token_file(&dir.join("played").join("notes"), false);
    for given in [&elsewhere, &no_game] {
        let (code, out, err) = tactus(&[
            "console",
            "--socket",
            path(&socket),
            "--token-file",
            path(given),
            "-c",
            "set-clock white 1:00:00",
        ]);
        assert_eq!(code, 1, "{}: {out}{err}", given.display());
        assert!(err.contains("wrong arbiter token"), "{err}");
        assert!(!err.contains("another game"), "{err}");
    }
    let garbage = dir.join("played").join("garbage.token");
    std::fs::write(&garbage, "not a token at all\n").unwrap();
    std::fs::set_permissions(&garbage, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, _, err) = tactus(&[
        "console",
        "--socket",
        path(&socket),
        "--token-file",
        path(&garbage),
        "-c",
        "set-clock white 1:00:00",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds no token"), "{err}");
    run.signal("-INT");
    run.wait_limit(LIMIT);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// F.9, issue 37 point 7: his keypad speaks his language, every line. `tactus console --config
/// ... --role player` is the blind player's keypad: it does not show the daemon's greeting (sent
/// before the role, in English, "role assistant"); the reply to his role says in his words whose
/// keypad it is; when the daemon goes away and comes back, the console's own remarks are his
/// words too, and nothing English reaches his display.
#[test]
fn f9_his_keypad_greets_him_and_says_the_daemon_away_and_back_in_his_words() {
    use crate::support::{
        process::{ask_when_up, spawn, wait_until},
        table::{temp_dir, voices_dir, write_config},
    };
    const LIMIT: Duration = Duration::from_secs(30);
    let dir = temp_dir("keypad-words");
    write_config(&dir, Color::White, "none");
    let voices = voices_dir();
    let env = [("TACTUS_VOICES", voices.as_os_str())];
    let socket = dir.join("console.sock");
    let mut first = spawn(&["run", "--config", "config.toml"], &dir, "run1", &env);
    ask_when_up(&socket, "status", &mut first, &dir, "run1", LIMIT);

    let (mut keypad, mut keys) = console_in(
        &dir,
        "keypad",
        &["console", "--config", "config.toml", "--role", "player"].map(std::ffi::OsStr::new),
        &env,
    );
    let shown = || std::fs::read_to_string(dir.join("keypad.out")).unwrap_or_default();
    let said = || std::fs::read_to_string(dir.join("keypad.err")).unwrap_or_default();
    let ready = "ok Tastatur von Weiß: hilfe zeigt die Befehle";
    assert!(
        wait_until(LIMIT, || shown().contains(ready)),
        "his keypad's first line: {}{}",
        shown(),
        said()
    );
    keys.write_all(b"amzug\n").unwrap();
    assert!(
        wait_until(LIMIT, || shown().contains("Weiß am Zug")),
        "{}",
        shown()
    );

    // The daemon stops: his keypad says so in his words, and a line typed meanwhile too.
    first.signal("-INT");
    first.wait_limit(LIMIT);
    assert!(
        wait_until(LIMIT, || said().contains(
            "tactus ist nicht erreichbar: neuer Versuch jede Sekunde"
        )),
        "{}",
        said()
    );
    keys.write_all(b"zeit\n").unwrap();
    assert!(
        wait_until(LIMIT, || said()
            .contains("nicht gesendet, tactus ist nicht erreichbar: zeit")),
        "{}",
        said()
    );

    // Back: said in his words, and his keypad is his again (the same first line).
    let mut second = spawn(
        &["run", "--config", "config.toml", "--new"],
        &dir,
        "run2",
        &env,
    );
    ask_when_up(&socket, "status", &mut second, &dir, "run2", LIMIT);
    assert!(
        wait_until(LIMIT, || said().contains("wieder verbunden")
            && shown().matches(ready).count() == 2),
        "{}{}",
        shown(),
        said()
    );
    drop(keys);
    let _ = keypad.kill();
    let _ = keypad.wait();
    second.signal("-INT");
    second.wait_limit(LIMIT);
    let (shown, said) = (shown(), said());
    // Nothing in the staff's English on his display.
    for english in [
        "tactus console",
        "role",
        "daemon",
        "Connected",
        "connected again",
    ] {
        assert!(
            !shown.contains(english) && !said.contains(english),
            "'{english}' on his keypad:\n{shown}\n{said}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tactus console ARGS` started interactive in `dir`, as a person's terminal runs it: the
/// process and its keyboard; what it prints goes to `NAME.out` and `NAME.err` there.
fn console_in(
    dir: &Path,
    name: &str,
    args: &[&std::ffi::OsStr],
    env: &[(&str, &std::ffi::OsStr)],
) -> (std::process::Child, std::process::ChildStdin) {
    let out = std::fs::File::create(dir.join(format!("{name}.out"))).unwrap();
    let err = std::fs::File::create(dir.join(format!("{name}.err"))).unwrap();
    let mut child = Process::new(crate::support::process::TACTUS)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap();
    let keyboard = child.stdin.take().unwrap();
    (child, keyboard)
}
