//! The table's duties as stories on a time line, without tokio or folders: the start gate, the
//! blind player's requests and keypad (F.9 d), each seat's privacy at a table with two blind
//! players, `repeat`, a reply said part by part, the DGT clock's see-saw lever, a halt of the
//! journal, a restart, the intake of a chattering board, the training engine's seat.

use std::collections::{BTreeMap, BTreeSet};

use shakmaty::{ByColor, Chess, Color, Position, Square};

use super::*;
use crate::{
    announce::{Refusal, voice::Style, voice::VoicePack},
    arbiter::{ArbiterConfig, Completion, one_blind, two_blind},
    board::{Sensed, Sensing, SensorEvent, dgt::ClockMessage, recognize::RecognizerConfig},
    console::wire::End,
    rules::{game::RulesConfig, time_control::TimeControl},
};

const TACTILE: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Occupancy,
    settle_ms: 0,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 1500,
    confirm_with_snapshot: false,
};
const DGT: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Identity,
    settle_ms: 300,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 2000,
    confirm_with_snapshot: false,
};
/// The console the tests' commands come from.
const CONN: u64 = 7;

fn pack(name: &str) -> Wording {
    Wording::new(VoicePack::builtin(name).unwrap(), Style::San)
}

/// The default Braille profile for both seats' sheets.
fn uk_braille() -> ByColor<crate::record::braille::Profile> {
    ByColor::new_with(|_| {
        crate::record::braille::Profile::named(crate::record::braille::DEFAULT_PROFILE).unwrap()
    })
}

fn rules() -> RulesConfig {
    RulesConfig {
        time_control: Some("300".parse::<TimeControl>().unwrap()),
        ..RulesConfig::default()
    }
}

/// A table with the blind player (Black) on his tactile board and the sighted player (White) on
/// `sighted` (none: a plain board whose moves are typed), his move counting at `completion`.
fn one_blind_table(
    sighted: Option<RecognizerConfig>,
    completion: Completion,
    settings: TableSettings,
) -> Table {
    let cfg = ArbiterConfig {
        rules: rules(),
        seats: one_blind(Color::Black, TACTILE, sighted, completion),
        guidance_repeat_ms: 5_000,
        say_own_move: true,
        correction_window_ms: 0,
    };
    Table::new(TableParts {
        arbiter: Arbiter::new(cfg, Chess::default()),
        settings,
        tags: Vec::new(),
        wording: ByColor::new_with(|_| pack("de-fide")),
        braille: uk_braille(),
        requests_off: BTreeSet::new(),
    })
}

/// The settings of a table whose only link is the blind player's (Black's) tactile board.
fn tactile_only() -> TableSettings {
    TableSettings {
        links: ByColor {
            white: false,
            black: true,
        },
        sensors: ByColor {
            white: false,
            black: true,
        },
        buttons: ByColor {
            white: BTreeMap::new(),
            black: BTreeMap::from([(1, "time".into()), (4, "repeat".into())]),
        },
        ..TableSettings::default()
    }
}

/// Two blind players, White German, Black English, each on his tactile board with buttons.
fn two_blind_table() -> Table {
    let cfg = ArbiterConfig {
        rules: rules(),
        seats: two_blind(ByColor::new_with(|_| TACTILE)),
        guidance_repeat_ms: 5_000,
        say_own_move: true,
        correction_window_ms: 0,
    };
    let buttons = BTreeMap::from([(1, "time".to_string()), (3, "count".to_string())]);
    Table::new(TableParts {
        arbiter: Arbiter::new(cfg, Chess::default()),
        settings: TableSettings {
            links: ByColor::new_with(|_| true),
            sensors: ByColor::new_with(|_| true),
            buttons: ByColor::new_with(|_| buttons.clone()),
            ..TableSettings::default()
        },
        tags: Vec::new(),
        wording: ByColor {
            white: pack("de-fide"),
            black: pack("en"),
        },
        braille: uk_braille(),
        requests_off: BTreeSet::new(),
    })
}

fn link(seat: Color, event: LinkEvent) -> TableInput {
    TableInput::Link { seat, event }
}

fn sensor(seat: Color, event: SensorEvent) -> TableInput {
    link(seat, LinkEvent::Sensor(event))
}

/// `seat`'s board connects and its first reading shows the starting position.
fn board_ready(table: &mut Table, seat: Color, t: Millis) -> Vec<TableEffect> {
    let mut out = table.handle(
        link(
            seat,
            LinkEvent::Connected {
                info: "test".into(),
            },
        ),
        t,
    );
    let reading = match table.arbiter().config().seats[seat]
        .board
        .map(|b| b.sensing)
    {
        Some(Sensing::Identity) => Sensed::Pieces(Chess::default().board().clone()),
        _ => Sensed::Occupancy(Chess::default().board().occupied()),
    };
    out.extend(table.handle(sensor(seat, SensorEvent::Snapshot(reading)), t));
    out
}

/// A console's command in `role`, speaking for `seat`, and its reply.
fn command(
    table: &mut Table,
    role: Role,
    seat: Option<Color>,
    line: &str,
    t: Millis,
) -> (Reply, Vec<TableEffect>) {
    let command = crate::console::parse(line, role).unwrap_or_else(|e| panic!("{line}: {e}"));
    console_command(table, role, seat, command, t)
}

/// A line typed at the blind player's keypad in his pack's words (`aufgeben`); its reply.
fn keypad_in(table: &mut Table, words: &str, line: &str, t: Millis) -> (Reply, Vec<TableEffect>) {
    let commands = pack(words).pack().commands().clone();
    let command = crate::console::parse_in(line, Role::Player, &commands)
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    console_command(table, Role::Player, None, command, t)
}

fn console_command(
    table: &mut Table,
    role: Role,
    seat: Option<Color>,
    command: Command,
    t: Millis,
) -> (Reply, Vec<TableEffect>) {
    let effects = table.handle(
        TableInput::Console {
            conn: CONN,
            role,
            seat,
            command,
        },
        t,
    );
    let reply = effects
        .iter()
        .find_map(|e| match e {
            TableEffect::Reply { reply, .. } => Some(reply.clone()),
            _ => None,
        })
        .expect("a console's command is answered");
    (reply, effects)
}

/// A training game at home: the engine (White) up, his board (Black) read, play started; the
/// effects of the start (the engine is asked for its move).
fn training_table() -> (Table, Vec<TableEffect>) {
    let mut table = one_blind_table(
        None,
        Completion::ClockPress,
        TableSettings {
            training: true,
            start_by_boards: true,
            ..tactile_only()
        },
    );
    table.handle(
        TableInput::Engine(EngineEvent::Up {
            name: "fish".into(),
        }),
        0,
    );
    let effects = board_ready(&mut table, Color::Black, 10);
    (table, effects)
}

/// The engine answers the search `effects` asked for with `mv`.
fn engine_answers(
    table: &mut Table,
    effects: &[TableEffect],
    mv: shakmaty::Move,
    t: Millis,
) -> Vec<TableEffect> {
    let (id, purpose) = effects
        .iter()
        .find_map(|e| match e {
            TableEffect::Engine(EngineRequest::Search(s)) => Some((s.id, s.purpose)),
            _ => None,
        })
        .expect("the engine is asked");
    table.handle(
        TableInput::Engine(EngineEvent::Answer {
            id,
            purpose,
            best: Some(mv),
            score: None,
        }),
        t,
    )
}

fn san_move(pos: &Chess, san: &str) -> shakmaty::Move {
    san.parse::<shakmaty::san::San>()
        .unwrap()
        .to_move(pos)
        .unwrap()
}

/// The words `effects` say, in order.
fn said_texts(effects: &[TableEffect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Say { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// What `effects` say, to whom.
fn said(effects: &[TableEffect]) -> Vec<(Audience, Announcement)> {
    effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Say {
                audience,
                announcement,
                ..
            } => Some((*audience, announcement.clone())),
            _ => None,
        })
        .collect()
}

/// The ids of what `effects` say.
fn said_ids(effects: &[TableEffect]) -> Vec<u64> {
    effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Say { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

/// The lines `effects` show on the consoles, with whom they reach.
fn shown(effects: &[TableEffect]) -> Vec<(Views, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Broadcast(b) => Some((b.to, b.text.clone())),
            TableEffect::Note { text, .. } => Some((Views::Staff, text.clone())),
            _ => None,
        })
        .collect()
}

/// Everything said in `effects` is heard to its end at `t`.
fn hear_all(table: &mut Table, effects: &[TableEffect], t: Millis) -> Vec<TableEffect> {
    let mut out = Vec::new();
    for id in said_ids(effects) {
        out.extend(table.handle(TableInput::SpeechFinished { id, cut: false }, t));
    }
    out
}

/// Time passes up to `until`: a tick at every deadline of the table's on the way.
fn run_until(table: &mut Table, until: Millis) -> Vec<TableEffect> {
    let mut out = Vec::new();
    while let Some(at) = table.next_deadline().filter(|&d| d <= until) {
        out.extend(table.handle(TableInput::Tick, at));
    }
    out
}

/// Start a table whose tactile board (Black's) is the only one with sensors; returns the time.
fn started(table: &mut Table) -> Millis {
    board_ready(table, Color::Black, 100);
    let (reply, effects) = command(table, Role::Arbiter, None, "start", 200);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    hear_all(table, &effects, 300);
    300
}

/// Play starts only when every board with sensors is connected, read and shows the position;
/// the staff hear once when it does; `start` is refused before with the squares that differ,
/// and `start anyway` starts over them with a note. With `start = "boards"` the table starts
/// itself.
#[test]
fn the_start_waits_for_the_boards_and_the_arbiter() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let (reply, _) = command(&mut table, Role::Arbiter, None, "start", 0);
    let End::Error(why) = &reply.end else {
        panic!("{reply:?}")
    };
    assert!(why.contains("tactile board is not connected"), "{why}");
    table.handle(
        link(
            Color::Black,
            LinkEvent::Connected {
                info: "test".into(),
            },
        ),
        10,
    );
    // A knight missing on g8.
    let mut occupied = Chess::default().board().occupied();
    occupied.discard(Square::G8);
    let effects = table.handle(
        sensor(
            Color::Black,
            SensorEvent::Snapshot(Sensed::Occupancy(occupied)),
        ),
        20,
    );
    assert!(!table.progress().ready);
    assert!(
        !shown(&effects)
            .iter()
            .any(|(_, t)| t.contains("every board shows"))
    );
    let (reply, _) = command(&mut table, Role::Assistant, None, "start", 30);
    let End::Error(why) = &reply.end else {
        panic!("{reply:?}")
    };
    assert!(
        why.contains("differs from the position on 1 square: g8"),
        "{why}"
    );
    assert!(!table.arbiter().started());
    let effects = table.handle(
        sensor(
            Color::Black,
            SensorEvent::Place {
                square: Square::G8,
                piece: None,
            },
        ),
        40,
    );
    let ready: Vec<_> = shown(&effects)
        .into_iter()
        .filter(|(_, t)| t.contains("every board shows the starting position"))
        .collect();
    assert_eq!(ready.len(), 1, "the staff hear it once: {effects:?}");
    assert_eq!(ready[0].0, Views::Staff);
    assert!(table.progress().ready);
    let (reply, effects) = command(&mut table, Role::Arbiter, None, "start", 50);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert!(table.arbiter().started());
    assert!(
        said(&effects)
            .iter()
            .any(|(a, w)| *a == Audience::Both && matches!(w, Announcement::GameStarted { .. }))
    );

    // The arbiter's `start anyway` over a board that differs: play starts, and the staff's note
    // says over what. The assistant's is refused: starting over a wrong set-up is a ruling.
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    table.handle(
        link(
            Color::Black,
            LinkEvent::Connected {
                info: "test".into(),
            },
        ),
        10,
    );
    table.handle(
        sensor(
            Color::Black,
            SensorEvent::Snapshot(Sensed::Occupancy(occupied)),
        ),
        20,
    );
    let (reply, _) = command(&mut table, Role::Assistant, None, "start anyway", 25);
    assert!(
        matches!(&reply.end, End::Error(e) if e.starts_with("only the arbiter starts play over a board that differs")),
        "{reply:?}"
    );
    assert!(!table.arbiter().started());
    let (reply, effects) = command(&mut table, Role::Arbiter, None, "start anyway", 30);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert!(table.arbiter().started());
    assert!(
        shown(&effects)
            .iter()
            .any(|(_, t)| t.contains("arbiter starts play although the tactile board differs")),
        "{effects:?}"
    );

    // A club evening: the boards start it.
    let mut table = one_blind_table(
        None,
        Completion::ClockPress,
        TableSettings {
            start_by_boards: true,
            ..tactile_only()
        },
    );
    board_ready(&mut table, Color::Black, 10);
    assert!(table.arbiter().started());
}

/// F.9 d: his keypad's request is answered on his console and said into his ear; the
/// assistant's own question is answered on the assistant's console only, and reaches the blind
/// player's ear only when he passes it on with `tell`. Nothing of it changes the game, and the
/// transcript notes who asked what.
#[test]
fn f9_d_a_request_is_said_to_the_blind_player_only_when_he_or_his_assistant_asks_it() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    let (reply, effects) = command(&mut table, Role::Player, None, "count", t + 1000);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert_eq!(
        said(&effects),
        [(
            Audience::Player(Color::Black),
            Announcement::MovesCompleted { white: 0, black: 0 }
        )]
    );
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Asked(a) => Some(a.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        (asked[0].by, asked[0].asked.as_str()),
        (AskedBy::Player, "count")
    );
    // The assistant's question: his console only.
    let (reply, effects) = command(&mut table, Role::Assistant, None, "count", t + 2000);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert!(said(&effects).is_empty(), "{effects:?}");
    // Passed on: said to him.
    let (_, effects) = command(&mut table, Role::Assistant, None, "tell count", t + 3000);
    assert_eq!(said(&effects).len(), 1);
    assert_eq!(said(&effects)[0].0, Audience::Player(Color::Black));
    assert_eq!(table.game().ply(), 0, "no request changes the game");
}

/// 12.3 a: a request the arbiter switched off is refused aloud to the player who asked (his
/// keypad, his button, his assistant's `tell`), answered to the arbiter still, and switched on
/// again by him.
#[test]
fn art_12_3_a_a_switched_off_request_is_refused_aloud() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    let (reply, _) = command(&mut table, Role::Arbiter, None, "requests material off", t);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert_eq!(
        table.requests_off(),
        &BTreeSet::from([crate::console::Switchable::Material])
    );
    let (reply, effects) = command(&mut table, Role::Player, None, "material", t + 100);
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");
    assert_eq!(
        said(&effects),
        [(
            Audience::Player(Color::Black),
            Announcement::RequestSwitchedOff
        )]
    );
    let (reply, _) = command(&mut table, Role::Arbiter, None, "material", t + 200);
    assert!(
        matches!(reply.end, End::Ok(_)),
        "the arbiter's own: {reply:?}"
    );
    command(
        &mut table,
        Role::Arbiter,
        None,
        "requests material on",
        t + 300,
    );
    let (reply, effects) = command(&mut table, Role::Player, None, "material", t + 400);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert!(matches!(said(&effects)[0].1, Announcement::Material { .. }));
}

/// At a blind player's keypad nothing is refused in silence: a word no command has is said to
/// be unknown, in his voice, and his console prints it in his words with the closest command of
/// his; a request that cannot be met now is said to be so.
#[test]
fn his_keypad_refuses_nothing_in_silence() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    let error = crate::console::parse("zeti", Role::Player).unwrap_err();
    let effects = table.handle(TableInput::keypad(CONN, None, &error), t);
    assert_eq!(
        said(&effects),
        [(
            Audience::Player(Color::Black),
            Announcement::Refused(Refusal::Unknown)
        )]
    );
    let reply = effects
        .iter()
        .find_map(|e| match e {
            TableEffect::Reply { reply, .. } => Some(reply.clone()),
            _ => None,
        })
        .unwrap();
    let End::Error(text) = &reply.end else {
        panic!("{reply:?}")
    };
    assert!(text.starts_with("Befehl unbekannt: zeti ("), "{text}");
    // A training request in a game against a person: said, never silent.
    let (reply, effects) = command(&mut table, Role::Player, None, "hint", t + 100);
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");
    assert!(!said(&effects).is_empty(), "{effects:?}");
}

/// F.9 d at a table with two blind players: what a seat asks, at his keypad or with his board's
/// buttons, reaches only that seat: his ear, his keypad and the staff's consoles, in his
/// language; never the other player's keypad.
#[test]
fn f9_d_each_seats_answers_reach_only_that_seat() {
    let mut table = two_blind_table();
    board_ready(&mut table, Color::White, 10);
    board_ready(&mut table, Color::Black, 10);
    let (_, effects) = command(&mut table, Role::Arbiter, None, "start", 20);
    hear_all(&mut table, &effects, 30);
    for seat in Color::ALL {
        for (n, request) in [(1, "time"), (3, "count")] {
            let effects = table.handle(sensor(seat, SensorEvent::Button(n)), 1000);
            let heard = said(&effects);
            assert!(
                !heard.is_empty(),
                "{seat}'s button {n} ({request}) said nothing"
            );
            assert!(
                heard.iter().all(|(a, _)| *a == Audience::Player(seat)),
                "{seat}'s {request}: {heard:?}"
            );
            for (views, text) in shown(&effects) {
                assert!(
                    !views.reach(Role::Player, Some(!seat)),
                    "{seat}'s button {n} reaches {}'s keypad: {text}",
                    !seat
                );
                assert!(views.reach(Role::Player, Some(seat)) || views == Views::Staff);
            }
            hear_all(&mut table, &effects, 1001);
        }
    }
    // And in his language: Black hears English, White German.
    let white = table.handle(sensor(Color::White, SensorEvent::Button(3)), 2000);
    let black = table.handle(sensor(Color::Black, SensorEvent::Button(3)), 2000);
    let text = |effects: &[TableEffect]| {
        effects
            .iter()
            .find_map(|e| match e {
                TableEffect::Say { text, .. } => Some(text.clone()),
                _ => None,
            })
            .unwrap()
    };
    assert_ne!(text(&white), text(&black));
}

/// `repeat` says what he was last told about the game; a word about his board only while it
/// holds; his own request's answer is never what he hears again.
#[test]
fn repeat_says_the_last_news_of_the_game() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    command(&mut table, Role::Assistant, None, "move e4", t + 1000);
    let (_, effects) = command(&mut table, Role::Assistant, None, "press", t + 1100);
    let e4 = said(&effects)
        .into_iter()
        .find(|(_, w)| matches!(w, Announcement::Move(_)))
        .expect("e4 said to him");
    hear_all(&mut table, &effects, t + 1500);
    command(&mut table, Role::Player, None, "count", t + 2000);
    let (_, effects) = command(&mut table, Role::Player, None, "repeat", t + 3000);
    assert_eq!(said(&effects), [e4]);
}

/// A reply said part by part (a game read back): the next part goes when the last has been heard
/// to its end; `stop` cuts it (speech is told to silence him), and nothing of the game is cut.
#[test]
fn a_long_reply_is_said_part_by_part_and_stop_cuts_it() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let mut t = started(&mut table);
    // Three moves each, typed and executed.
    for (white, lift, place) in [
        ("e4", Square::E7, Square::E5),
        ("Nf3", Square::B8, Square::C6),
        ("Bb5", Square::A7, Square::A6),
    ] {
        command(
            &mut table,
            Role::Assistant,
            None,
            &format!("move {white}"),
            t,
        );
        let (_, effects) = command(&mut table, Role::Assistant, None, "press", t + 10);
        hear_all(&mut table, &effects, t + 20);
        // He executes the move on his board, then makes his own.
        let expected = table
            .arbiter()
            .board(Color::Black)
            .unwrap()
            .expected()
            .clone();
        let played = table.game().moves().last().unwrap().mv;
        let (from, to) = (played.from().unwrap(), played.to());
        let mut effects = table.handle(
            sensor(Color::Black, SensorEvent::Lift { square: from }),
            t + 30,
        );
        effects.extend(table.handle(
            sensor(
                Color::Black,
                SensorEvent::Place {
                    square: to,
                    piece: None,
                },
            ),
            t + 40,
        ));
        let _ = expected;
        assert!(
            table
                .arbiter()
                .board(Color::Black)
                .unwrap()
                .shows_expected()
        );
        effects.extend(table.handle(
            sensor(Color::Black, SensorEvent::Lift { square: lift }),
            t + 50,
        ));
        effects.extend(table.handle(
            sensor(
                Color::Black,
                SensorEvent::Place {
                    square: place,
                    piece: None,
                },
            ),
            t + 60,
        ));
        let more = hear_all(&mut table, &effects, t + 70);
        hear_all(&mut table, &more, t + 80);
        t += 1000;
    }
    assert_eq!(table.game().ply(), 6);
    let (reply, effects) = command(&mut table, Role::Player, None, "moves all", t);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    let first = said_ids(&effects);
    assert_eq!(first.len(), 1, "one part at a time: {effects:?}");
    let next = table.handle(
        TableInput::SpeechFinished {
            id: first[0],
            cut: false,
        },
        t + 100,
    );
    assert_eq!(
        said_ids(&next).len(),
        1,
        "the next part when the first is heard"
    );
    // `stop`: the rest is dropped, and speech silences him.
    let (_, effects) = command(&mut table, Role::Player, None, "stop", t + 200);
    assert!(
        effects.iter().any(|e| matches!(
            e,
            TableEffect::Silence {
                audience: Audience::Player(Color::Black)
            }
        )),
        "{effects:?}"
    );
    let after = table.handle(
        TableInput::SpeechFinished {
            id: said_ids(&next)[0],
            cut: true,
        },
        t + 300,
    );
    assert!(said_ids(&after).is_empty(), "nothing more of the reply");
}

/// The DGT clock's lever is a see-saw, as its status byte reports it: high on the right means
/// the LEFT side went down. The sighted player's press completes his move; the blind player's
/// is harmless; and when the sighted player's side is down already (he pressed it last, and the
/// blind player's move counted without a press, F.3), his press of the other side completes his
/// move, since his board shows it: whatever the lever's position, his move counts.
#[test]
fn the_lever_is_a_see_saw_and_the_sighted_player_always_completes_his_move() {
    // White (sighted, on the clock's left) on a DGT board whose moves count at his press.
    let mut table = one_blind_table(
        Some(DGT),
        Completion::ClockPress,
        TableSettings {
            links: ByColor::new_with(|_| true),
            sensors: ByColor::new_with(|_| true),
            clock: Some(ClockSeat {
                seat: Color::White,
                left: Color::White,
                lever_completes_move: true,
            }),
            ..TableSettings::default()
        },
    );
    let lever = |right_high: bool| {
        link(
            Color::White,
            LinkEvent::Clock(ClockMessage::Times {
                right_ms: 0,
                left_ms: 0,
                running: true,
                lever_right_high: right_high,
                battery_low: false,
                no_clock: false,
            }),
        )
    };
    // As the arbiter left it: down on Black's side (right), high on the left.
    table.handle(lever(false), 0);
    assert!(
        matches!(table.admit(lever(false), 1), Admission::Drop(_)),
        "a reading that moves nothing is not taken"
    );
    board_ready(&mut table, Color::White, 10);
    board_ready(&mut table, Color::Black, 10);
    let (_, effects) = command(&mut table, Role::Arbiter, None, "start", 20);
    hear_all(&mut table, &effects, 30);
    let piece = |role| shakmaty::Piece {
        color: Color::White,
        role,
    };
    let white_moves = |table: &mut Table, from: Square, to: Square, role, t: Millis| {
        run_until(table, t);
        table.handle(sensor(Color::White, SensorEvent::Lift { square: from }), t);
        let mut out = table.handle(
            sensor(
                Color::White,
                SensorEvent::Place {
                    square: to,
                    piece: Some(piece(role)),
                },
            ),
            t + 10,
        );
        out.extend(run_until(table, t + 400));
        out
    };
    // 1. e4, and White presses his side (the left goes down: high on the right).
    white_moves(
        &mut table,
        Square::E2,
        Square::E4,
        shakmaty::Role::Pawn,
        1000,
    );
    let effects = table.handle(lever(true), 1500);
    let effects = [effects, run_until(&mut table, 2000)].concat();
    assert_eq!(table.game().ply(), 1, "his press completed e4: {effects:?}");
    hear_all(&mut table, &effects, 2100);
    // The blind player executes e4 and answers e5; his move counts without a press (F.3).
    let mut effects = Vec::new();
    for (seat, from, to) in [
        (Color::Black, Square::E2, Square::E4),
        (Color::Black, Square::E7, Square::E5),
    ] {
        effects.extend(table.handle(sensor(seat, SensorEvent::Lift { square: from }), 2500));
        effects.extend(table.handle(
            sensor(
                seat,
                SensorEvent::Place {
                    square: to,
                    piece: None,
                },
            ),
            2600,
        ));
    }
    let more = hear_all(&mut table, &effects, 3000);
    hear_all(&mut table, &more, 3100);
    assert_eq!(table.game().ply(), 2, "e5 counted once announced");
    // White executes e5 on his board: his side is still down. He plays Nf3 and presses his own
    // side: it is down already, nothing moves, the clock reports nothing. He presses the other.
    table.handle(
        sensor(Color::White, SensorEvent::Lift { square: Square::E7 }),
        4000,
    );
    table.handle(
        sensor(
            Color::White,
            SensorEvent::Place {
                square: Square::E5,
                piece: Some(shakmaty::Piece {
                    color: Color::Black,
                    role: shakmaty::Role::Pawn,
                }),
            },
        ),
        4010,
    );
    run_until(&mut table, 4500);
    white_moves(
        &mut table,
        Square::G1,
        Square::F3,
        shakmaty::Role::Knight,
        5000,
    );
    assert!(matches!(table.admit(lever(true), 5500), Admission::Drop(_)));
    let effects = table.handle(lever(false), 6000);
    let effects = [effects, run_until(&mut table, 6500)].concat();
    assert_eq!(
        table.game().ply(),
        3,
        "his press of the other side completed Nf3: {effects:?}"
    );
    hear_all(&mut table, &effects, 6600);
    // Black executes Nf3 and answers Nc6; he presses his own side, which is down already: the
    // clock reports nothing.
    let black_moves = |table: &mut Table, moves: [(Square, Square); 2], t: Millis| {
        let mut effects = Vec::new();
        for (k, (from, to)) in moves.into_iter().enumerate() {
            let at = t + 100 * k as Millis;
            effects
                .extend(table.handle(sensor(Color::Black, SensorEvent::Lift { square: from }), at));
            effects.extend(table.handle(
                sensor(
                    Color::Black,
                    SensorEvent::Place {
                        square: to,
                        piece: None,
                    },
                ),
                at + 10,
            ));
        }
        let more = hear_all(table, &effects, t + 500);
        hear_all(table, &more, t + 600);
    };
    black_moves(
        &mut table,
        [(Square::G1, Square::F3), (Square::B8, Square::C6)],
        7000,
    );
    assert_eq!(table.game().ply(), 4);
    assert!(matches!(
        table.admit(lever(false), 7700),
        Admission::Drop(_)
    ));
    // White executes Nc6, plays Bb5 and presses his side, which is up: the left goes down.
    run_until(&mut table, 8000);
    table.handle(
        sensor(Color::White, SensorEvent::Lift { square: Square::B8 }),
        8000,
    );
    table.handle(
        sensor(
            Color::White,
            SensorEvent::Place {
                square: Square::C6,
                piece: Some(shakmaty::Piece {
                    color: Color::Black,
                    role: shakmaty::Role::Knight,
                }),
            },
        ),
        8010,
    );
    run_until(&mut table, 8500);
    white_moves(
        &mut table,
        Square::F1,
        Square::B5,
        shakmaty::Role::Bishop,
        9000,
    );
    let effects = table.handle(lever(true), 9500);
    let effects = [effects, run_until(&mut table, 10_000)].concat();
    assert_eq!(table.game().ply(), 5, "his own side completed Bb5");
    hear_all(&mut table, &effects, 10_100);
    // Black executes Bb5 and answers a6; then he presses his own side by habit while White
    // thinks (White's board shows no move of his yet): harmless, answered to nobody.
    black_moves(
        &mut table,
        [(Square::F1, Square::B5), (Square::A7, Square::A6)],
        11_000,
    );
    assert_eq!(table.game().ply(), 6);
    let effects = table.handle(lever(false), 12_000);
    let effects = [effects, run_until(&mut table, 13_000)].concat();
    assert_eq!(table.game().ply(), 6);
    assert!(said(&effects).is_empty(), "nobody is told: {effects:?}");
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, TableEffect::Transcript(t) if t.starts_with("refused"))),
        "{effects:?}"
    );
}

/// No move counts that is not on the disk: the journal down halts play (the clocks stop by the
/// pause for the recording, both players hear why), a console's game command is refused with
/// the reason, a board's move waits; the journal back resumes the clocks and hands back what
/// waited, in order, to be journaled and applied.
#[test]
fn a_halt_holds_back_what_would_change_the_game_and_hands_it_back_in_order() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    let effects = table.handle(
        TableInput::JournalDown {
            error: "disk full".into(),
        },
        t + 1000,
    );
    assert!(table.halted());
    assert!(table.progress().paused);
    assert_eq!(
        said(&effects),
        [(Audience::Both, Announcement::RecordingHalted)]
    );
    assert_eq!(table.next_deadline(), Some(t + 1000 + RETRY_MS));
    let (reply, _) = command(&mut table, Role::Assistant, None, "move e4", t + 1100);
    let End::Error(why) = &reply.end else {
        panic!("{reply:?}")
    };
    assert!(
        why.contains("play is halted") && why.contains("disk full"),
        "{why}"
    );
    // A board's lift waits, unapplied.
    let lift = sensor(Color::Black, SensorEvent::Lift { square: Square::E7 });
    table.handle(lift, t + 1200);
    assert_eq!(
        table
            .arbiter()
            .board(Color::Black)
            .unwrap()
            .occupied()
            .count(),
        32
    );
    let status = table.status_lines(t + 1300, Vec::new());
    assert!(
        status
            .iter()
            .any(|l| l.starts_with("PLAY HALTED") && l.contains("1 inputs wait")),
        "{status:?}"
    );
    table.handle(
        TableInput::JournalStillDown {
            error: "still full".into(),
        },
        t + 2000,
    );
    let effects = table.handle(TableInput::JournalBack, t + 3000);
    assert!(!table.halted());
    assert_eq!(
        said(&effects),
        [
            (Audience::Both, Announcement::RecordingRestored),
            (Audience::Both, Announcement::ClocksResumed)
        ]
    );
    let resubmitted: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            TableEffect::Resubmit(input) => Some(input.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        resubmitted,
        [TableInput::Recorded(Input::Board {
            seat: Color::Black,
            event: SensorEvent::Lift { square: Square::E7 }
        })]
    );
    for input in resubmitted {
        table.handle(input, t + 3000);
    }
    assert_eq!(
        table
            .arbiter()
            .board(Color::Black)
            .unwrap()
            .occupied()
            .count(),
        31
    );
}

/// A restart: the sessions begin anew, the clocks stop (6.12) until the arbiter resumes them,
/// both hear that the game is back with its last move, and a move's announcement the restart
/// cut off is said again once the clocks run, and counts then.
#[test]
fn a_restart_pauses_the_clocks_and_says_again_what_was_cut_off() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    command(&mut table, Role::Assistant, None, "move e4", t + 1000);
    let (_, effects) = command(&mut table, Role::Assistant, None, "press", t + 1100);
    hear_all(&mut table, &effects, t + 1200);
    // Black plays e5 on his board; its announcement to White is cut off by the restart.
    for (event, at) in [
        (SensorEvent::Lift { square: Square::E2 }, 2000),
        (
            SensorEvent::Place {
                square: Square::E4,
                piece: None,
            },
            2100,
        ),
        (SensorEvent::Lift { square: Square::E7 }, 3000),
        (
            SensorEvent::Place {
                square: Square::E5,
                piece: None,
            },
            3100,
        ),
    ] {
        table.handle(sensor(Color::Black, event), t + at);
    }
    assert_eq!(table.game().ply(), 1, "e5 counts only once said");
    let effects = table.handle(
        TableInput::Resumed {
            settings: tactile_only(),
        },
        t + 10_000,
    );
    assert!(table.progress().paused, "the clocks stand (6.12)");
    let to_both: Vec<_> = said(&effects)
        .into_iter()
        .filter(|(a, _)| *a == Audience::Both)
        .map(|(_, w)| w)
        .collect();
    assert_eq!(to_both[0], Announcement::GameRecovered);
    assert!(to_both.iter().any(|w| matches!(w, Announcement::Move(_))));
    assert!(
        !table.progress().connected.black,
        "no board is connected yet"
    );
    hear_all(&mut table, &effects, t + 10_100);
    let (_, effects) = command(&mut table, Role::Arbiter, None, "resume", t + 11_000);
    let again: Vec<_> = said(&effects)
        .into_iter()
        .filter(|(a, w)| *a == Audience::Player(Color::White) && matches!(w, Announcement::Move(_)))
        .collect();
    assert_eq!(again.len(), 1, "e5 said again: {effects:?}");
    hear_all(&mut table, &effects, t + 11_500);
    assert_eq!(table.game().ply(), 2, "and counted once said");
}

/// A chattering board is cut down before the journal: four button presses at once, then four a
/// second; what is dropped is noted once a second with its count.
#[test]
fn a_chattering_board_is_cut_down_at_the_intake() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    let mut taken = 0;
    let mut notes = Vec::new();
    for _ in 0..1000 {
        match table.admit(sensor(Color::Black, SensorEvent::Button(1)), t) {
            Admission::Take(_) => taken += 1,
            Admission::Drop(effects) => notes.extend(shown(&effects)),
        }
    }
    assert_eq!(taken, 4);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].1.contains("button presses ignored"), "{notes:?}");
}

/// A training game: the engine gone stops the clocks with its own words, once; back, they run
/// again with the words that it is back; a `break` stops and restarts them at home.
#[test]
fn the_engines_seat_stops_the_clocks_while_it_is_away() {
    let (mut table, effects) = training_table();
    assert!(table.arbiter().started());
    // The engine (White) is asked for its move.
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, TableEffect::Engine(EngineRequest::Search(_)))),
        "{effects:?}"
    );
    let effects = table.handle(
        TableInput::Engine(EngineEvent::Down {
            reason: "crashed".into(),
            restart_in: Some(std::time::Duration::from_secs(1)),
        }),
        1000,
    );
    assert!(table.progress().paused);
    assert_eq!(
        said(&effects),
        [(Audience::Both, Announcement::OpponentAway)]
    );
    let effects = table.handle(
        TableInput::Engine(EngineEvent::Up {
            name: "fish".into(),
        }),
        2000,
    );
    assert!(!table.progress().paused);
    assert!(
        said(&effects)
            .iter()
            .any(|(_, w)| *w == Announcement::OpponentBack),
        "{effects:?}"
    );
    let (reply, _) = command(&mut table, Role::Player, None, "break", 3000);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert!(table.progress().paused);
}

/// 9.2 a / 9.3 a: the intended move of a claim is read in the claimant's own notation, as his
/// scoresheet and his sealed move are. The German player's assistant types his `Sf3` (Springer)
/// as he said it; the English player's `Nf6` reads as before. (`Sf3` was refused: the console
/// reads English letters.)
#[test]
fn a9_2_a_a_claims_intended_move_is_read_in_the_claimants_notation() {
    let mut table = {
        let mut seats = two_blind(ByColor::new_with(|_| TACTILE));
        seats.white.notation = crate::rules::notation::letters_of("de");
        seats.black.notation = crate::rules::notation::letters_of("en");
        let cfg = ArbiterConfig {
            rules: rules(),
            seats,
            guidance_repeat_ms: 5_000,
            say_own_move: true,
            correction_window_ms: 0,
        };
        Table::new(TableParts {
            arbiter: Arbiter::new(cfg, Chess::default()),
            settings: TableSettings {
                links: ByColor::new_with(|_| true),
                sensors: ByColor::new_with(|_| true),
                ..TableSettings::default()
            },
            tags: Vec::new(),
            wording: ByColor {
                white: pack("de-fide"),
                black: pack("en"),
            },
            braille: uk_braille(),
            requests_off: BTreeSet::new(),
        })
    };
    board_ready(&mut table, Color::White, 10);
    board_ready(&mut table, Color::Black, 10);
    let (_, effects) = command(&mut table, Role::Arbiter, None, "start", 20);
    hear_all(&mut table, &effects, 30);
    let (reply, effects) = command(
        &mut table,
        Role::Assistant,
        Some(Color::White),
        "claim white repetition Sf3",
        1_000,
    );
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    let told = format!("{reply:?} {effects:?}");
    assert!(
        told.contains("white's claim under 9.2a is incorrect")
            && told.contains("white must play Nf3"),
        "read as Nf3, the claim is judged (and is incorrect at move 1): {told}"
    );
    let (reply, _) = command(&mut table, Role::Arbiter, None, "cancel", 2_000);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    // A move no notation reads as legal here: refused with the console's reasons.
    let (reply, _) = command(
        &mut table,
        Role::Assistant,
        Some(Color::White),
        "claim white repetition Qf3",
        3_000,
    );
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");
}

/// Issue 37, point 3: play started over a board set up wrongly (the arbiter's `start anyway`:
/// White's knight set up on h3) is never a move nobody made. The board was read as White's
/// Nh3, counted and announced; now it holds the position and its player is guided ("Springer
/// steht auf Hector drei, gehört auf Gustav eins"), and once it shows the position he moves
/// as at any start.
#[test]
fn a_set_up_corrected_after_start_anyway_is_no_move() {
    let mut table = two_blind_table();
    board_ready(&mut table, Color::Black, 10);
    table.handle(
        link(
            Color::White,
            LinkEvent::Connected {
                info: "test".into(),
            },
        ),
        10,
    );
    let mut occupied = Chess::default().board().occupied();
    occupied.discard(Square::G1);
    occupied.add(Square::H3);
    table.handle(
        sensor(
            Color::White,
            SensorEvent::Snapshot(Sensed::Occupancy(occupied)),
        ),
        20,
    );
    let (reply, effects) = command(&mut table, Role::Arbiter, None, "start anyway", 30);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    let mut heard = said(&effects);
    let effects = table.handle(
        sensor(
            Color::White,
            SensorEvent::Snapshot(Sensed::Occupancy(occupied)),
        ),
        40,
    );
    heard.extend(said(&hear_all(&mut table, &effects, 50)));
    heard.extend(said(&run_until(&mut table, 10_000)));
    let misplaced = Announcement::Guidance(crate::announce::Guidance::Misplaced {
        piece: shakmaty::Piece {
            color: Color::White,
            role: shakmaty::Role::Knight,
        },
        found: Square::H3,
        belongs: Square::G1,
    });
    assert!(
        heard.contains(&(Audience::Player(Color::White), misplaced)),
        "{heard:?}"
    );
    assert!(
        !heard.iter().any(|(_, a)| matches!(
            a,
            Announcement::Move(_) | Announcement::OwnMove(_) | Announcement::IllegalMove
        )),
        "no move, and no move refused: {heard:?}"
    );
    assert_eq!(table.arbiter().game().ply(), 0);
    // Put right: he moves as at any start.
    table.handle(
        sensor(Color::White, SensorEvent::Lift { square: Square::H3 }),
        11_000,
    );
    table.handle(
        sensor(
            Color::White,
            SensorEvent::Place {
                square: Square::G1,
                piece: None,
            },
        ),
        11_500,
    );
    table.handle(
        sensor(Color::White, SensorEvent::Lift { square: Square::E2 }),
        13_000,
    );
    let effects = table.handle(
        sensor(
            Color::White,
            SensorEvent::Place {
                square: Square::E4,
                piece: None,
            },
        ),
        13_500,
    );
    let mut effects = effects;
    effects.extend(run_until(&mut table, 16_000));
    hear_all(&mut table, &effects, 16_000);
    assert_eq!(
        table
            .arbiter()
            .game()
            .moves()
            .first()
            .map(|m| m.san.to_string())
            .as_deref(),
        Some("e4")
    );
}

/// F.9 d: the time he asks for at his keypad is printed as he hears it, and in digits below,
/// seconds included (a Braille display reads "0:04:50" in a glance; the words take a line).
#[test]
fn f9_d_the_time_asked_at_the_keypad_is_printed_in_digits_too() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    // White's clock (the sighted player's) has run since the start, 9.1 s.
    let (reply, effects) = command(&mut table, Role::Player, None, "time", t + 9_000);
    let heard = said_texts(&effects);
    assert_eq!(heard.len(), 1, "{effects:?}");
    assert_eq!(
        reply.body,
        [heard[0].clone(), "0:04:50 / 0:05:00".to_string()]
    );
}

/// 5.1 b at his keypad: `resign` (in his words, `aufgeben`) asks him aloud to type it again; typed
/// again it resigns his own game, and the result is said to both. Anything typed between, or
/// the wait past its time, and the first is forgotten: a stray keystroke ends no game. He never
/// resigns his opponent's.
#[test]
fn a5_1_b_he_resigns_at_his_own_keypad_by_typing_it_twice() {
    let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
    let t = started(&mut table);
    // Never his opponent's game.
    let (reply, _) = keypad_in(&mut table, "de-fide", "resign white", t + 100);
    assert!(matches!(reply.end, End::Error(_)), "{reply:?}");
    // Once: asked aloud, in his words; the game goes on.
    let (reply, effects) = keypad_in(&mut table, "de-fide", "aufgeben", t + 1_000);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    let asked = said(&effects);
    assert_eq!(
        asked,
        [(Audience::Player(Color::Black), Announcement::ResignAsked)]
    );
    assert_eq!(reply.body, ["Zum Aufgeben noch einmal eingeben"]);
    hear_all(&mut table, &effects, t + 1_500);
    // Something else typed between: the first is forgotten.
    keypad_in(&mut table, "de-fide", "zeit", t + 2_000);
    let (_, effects) = keypad_in(&mut table, "de-fide", "aufgeben", t + 3_000);
    assert!(!table.arbiter().game().is_over());
    hear_all(&mut table, &effects, t + 3_500);
    // Too late: asked again.
    let (_, effects) = keypad_in(
        &mut table,
        "de-fide",
        "aufgeben",
        t + 3_000 + RESIGN_CONFIRM_MS + 1,
    );
    assert!(!table.arbiter().game().is_over());
    assert_eq!(
        said(&effects),
        [(Audience::Player(Color::Black), Announcement::ResignAsked)]
    );
    hear_all(&mut table, &effects, t + 34_000);
    // Typed again in time: his game is resigned, and both hear the result.
    let (reply, effects) = keypad_in(&mut table, "de-fide", "aufgeben", t + 40_000);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert!(table.arbiter().game().is_over());
    assert!(
        said(&effects).contains(&(
            Audience::Both,
            Announcement::Result(crate::announce::ResultWords::WhiteWins)
        )),
        "{effects:?}"
    );
}

/// F.9 d at home: what a training command prints at his keypad is what he heard, in his words,
/// never the staff's English notes ("asked the engine ...", clocks set); what he heard later (the
/// hint) reaches his keypad as said (issue 37, point 7).
#[test]
fn f9_d_his_training_commands_print_what_he_heard_in_his_words() {
    let (mut table, effects) = training_table();
    // The engine (White) plays 1.e4.
    let e4 = san_move(&Chess::default(), "e4");
    let effects = engine_answers(&mut table, &effects, e4, 500);
    hear_all(&mut table, &effects, 600);
    assert_eq!(table.arbiter().game().ply(), 1);
    for (line, at) in [("hint", 1_000), ("break", 2_000), ("break", 3_000)] {
        let (reply, effects) = command(&mut table, Role::Player, None, line, at);
        assert!(matches!(reply.end, End::Ok(_)), "{line}: {reply:?}");
        // Shown once on his keypad, as said; the reply prints nothing else.
        let on_his_keypad: Vec<String> = effects
            .iter()
            .filter_map(|e| match e {
                TableEffect::Broadcast(b) if b.to.reach(Role::Player, None) => {
                    Some(b.text_for(Role::Player, None).to_string())
                }
                _ => None,
            })
            .chain(reply.body.iter().cloned())
            .collect();
        assert_eq!(on_his_keypad, said_texts(&effects), "{line}: {effects:?}");
        hear_all(&mut table, &effects, at + 500);
    }
}

/// Issue 37, point 8: a takeback at home sets the clocks back as they stood after the half-move
/// the game goes back to; nobody changed a clock, so the record notes no clock change (no
/// "white's clock set to" comment in the PGN) and his keypad prints none.
#[test]
fn a_takeback_at_home_is_no_clock_change_on_the_record() {
    let (mut table, mut effects) = training_table();
    let mut t = 500;
    let mut pos = Chess::default();
    // The engine (White) plays e4 and Nf3; he (Black) executes each and plays e5 between.
    for (engine, own) in [("e4", Some(("e5", Square::E7, Square::E5))), ("Nf3", None)] {
        let mv = san_move(&pos, engine);
        pos.play_unchecked(mv);
        let out = engine_answers(&mut table, &effects, mv, t);
        hear_all(&mut table, &out, t + 100);
        // He executes it on his board.
        table.handle(
            sensor(
                Color::Black,
                SensorEvent::Lift {
                    square: mv.from().unwrap(),
                },
            ),
            t + 200,
        );
        let out = table.handle(
            sensor(
                Color::Black,
                SensorEvent::Place {
                    square: mv.to(),
                    piece: None,
                },
            ),
            t + 300,
        );
        hear_all(&mut table, &out, t + 400);
        t += 1_000;
        if let Some((san, from, to)) = own {
            pos.play_unchecked(san_move(&pos, san));
            table.handle(sensor(Color::Black, SensorEvent::Lift { square: from }), t);
            let out = table.handle(
                sensor(
                    Color::Black,
                    SensorEvent::Place {
                        square: to,
                        piece: None,
                    },
                ),
                t + 100,
            );
            effects = hear_all(&mut table, &out, t + 2_000);
            effects.extend(run_until(&mut table, t + 3_000));
            t += 4_000;
        }
    }
    assert_eq!(
        table.arbiter().game().ply(),
        3,
        "{:?}",
        table.arbiter().game().moves()
    );
    let (reply, _) = command(&mut table, Role::Player, None, "takeback", t);
    assert!(matches!(reply.end, End::Ok(_)), "{reply:?}");
    assert_eq!(table.arbiter().game().ply(), 1);
    assert!(
        table.arbiter().game().clock_notes().is_empty(),
        "{:?}",
        table.arbiter().game().clock_notes()
    );
    assert!(
        !reply.body.iter().any(|l| l.contains("clock set")),
        "{reply:?}"
    );
}

/// Issue 39, point 1: a capture split by a cut. Black (blind) takes on e4 after 1.e4 d5 2.Nc3;
/// the captured pawn's lift (and, in some stories, the capturing pawn's too) comes before the
/// cut, a restart or the board's cable out and in, and the rest after it, the board read whole
/// again in between. What the board shows is read against the half-made capture: it counts at
/// its placement and is said to both, never left on the board in silence with his clock
/// running.
#[test]
fn a_capture_split_by_a_restart_or_a_pulled_cable_counts_at_its_placement() {
    let lift = |sq| sensor(Color::Black, SensorEvent::Lift { square: sq });
    let place = |sq| {
        sensor(
            Color::Black,
            SensorEvent::Place {
                square: sq,
                piece: None,
            },
        )
    };
    // An input at `t`, the deadlines before it passed, everything said heard at once.
    let at = |table: &mut Table, input: TableInput, t: Millis| {
        let mut out = run_until(table, t);
        out.extend(table.handle(input, t));
        let heard = hear_all(table, &out, t);
        out.extend(heard);
        out
    };
    for restart in [false, true] {
        for lifts_before in [1, 2] {
            let story = format!("restart {restart}, {lifts_before} lift(s) before the cut");
            let mut table = one_blind_table(None, Completion::ClockPress, tactile_only());
            let t = started(&mut table);
            for (san, from, to, at_ms) in [
                ("e4", Square::E2, Square::E4, 1000),
                ("Nc3", Square::B1, Square::C3, 4000),
            ] {
                let (_, e) = command(
                    &mut table,
                    Role::Assistant,
                    None,
                    &format!("move {san}"),
                    t + at_ms,
                );
                hear_all(&mut table, &e, t + at_ms);
                let (_, e) = command(&mut table, Role::Assistant, None, "press", t + at_ms + 100);
                hear_all(&mut table, &e, t + at_ms + 100);
                at(&mut table, lift(from), t + at_ms + 1000);
                at(&mut table, place(to), t + at_ms + 1100);
                if san == "e4" {
                    at(&mut table, lift(Square::D7), t + 2000 + 1000);
                    at(&mut table, place(Square::D5), t + 2000 + 1100);
                }
            }
            assert_eq!(table.game().ply(), 3, "{story}");
            let t = t + 10_000;
            let lifts = [Square::E4, Square::D5];
            for (i, &sq) in lifts[..lifts_before].iter().enumerate() {
                at(&mut table, lift(sq), t + 100 * i as Millis);
            }
            let mut heard = Vec::new();
            if restart {
                heard.extend(at(
                    &mut table,
                    TableInput::Resumed {
                        settings: tactile_only(),
                    },
                    t + 3000,
                ));
            } else {
                let gone = LinkEvent::Disconnected {
                    reason: "hang-up".into(),
                };
                heard.extend(at(&mut table, link(Color::Black, gone), t + 3000));
            }
            let back = LinkEvent::Connected {
                info: "test".into(),
            };
            heard.extend(at(&mut table, link(Color::Black, back), t + 6000));
            let mut shows = table.game().position().board().occupied();
            for &sq in &lifts[..lifts_before] {
                shows.discard(sq);
            }
            let reading = SensorEvent::Snapshot(Sensed::Occupancy(shows));
            heard.extend(at(&mut table, sensor(Color::Black, reading), t + 6001));
            if restart {
                let (_, e) = command(&mut table, Role::Arbiter, None, "resume", t + 7000);
                heard.extend(hear_all(&mut table, &e, t + 7000));
            }
            for &sq in &lifts[lifts_before..] {
                heard.extend(at(&mut table, lift(sq), t + 9000));
            }
            heard.extend(at(&mut table, place(Square::E4), t + 9100));
            assert_eq!(
                table.game().ply(),
                4,
                "{story}: dxe4 counts at its placement"
            );
            assert_eq!(
                table
                    .game()
                    .moves()
                    .last()
                    .map(|m| m.san.to_string())
                    .as_deref(),
                Some("dxe4"),
                "{story}"
            );
            assert!(
                said(&heard)
                    .iter()
                    .any(|(a, w)| *a == Audience::Player(Color::White)
                        && matches!(w, Announcement::Move(_))),
                "{story}: said to White: {:?}",
                said(&heard)
            );
        }
    }
}
