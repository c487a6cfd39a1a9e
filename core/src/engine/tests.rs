//! The conversation against what Stockfish 15.1 (Debian's `stockfish`) really wrote: the files
//! in `tests/fixtures/uci/` (how each was recorded is in its README).

use super::*;
use shakmaty::{CastlingMode, Color};

const HANDSHAKE: &str = include_str!("../../tests/fixtures/uci/handshake.txt");
const SEARCH: &str = include_str!("../../tests/fixtures/uci/search.txt");
const MATE_IN_ONE: &str = include_str!("../../tests/fixtures/uci/mate_in_one.txt");
const MATED_IN_ONE: &str = include_str!("../../tests/fixtures/uci/mated_in_one.txt");
const CHECKMATED: &str = include_str!("../../tests/fixtures/uci/checkmated.txt");
const STALEMATE: &str = include_str!("../../tests/fixtures/uci/stalemate.txt");

fn feed(c: &mut Conversation, text: &str, now: Millis) -> (Vec<Command>, Vec<Event>) {
    let mut commands = Vec::new();
    let mut events = Vec::new();
    for line in uci::LineDecoder::new().feed(text.as_bytes()) {
        let (c2, e2) = c.receive(&line, now);
        commands.extend(c2);
        events.extend(e2);
    }
    (commands, events)
}

fn strength(skill: Option<u32>, elo: Option<u32>) -> Strength {
    Strength {
        elo,
        skill,
        limit: Limit::MoveTime(300),
    }
}

/// A conversation through its handshake ("readyok" as the engine would write it).
fn ready(strength: Strength) -> Conversation {
    let (mut c, first) = Conversation::start(strength, Patience::default(), 0);
    assert_eq!(first, vec![Command::Uci]);
    let (commands, events) = feed(&mut c, HANDSHAKE.split("readyok").next().unwrap(), 5);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(commands.last(), Some(&Command::IsReady));
    let (commands, events) = feed(&mut c, "readyok\n", 6);
    assert_eq!(commands, vec![Command::NewGame]);
    assert_eq!(
        events,
        vec![Event::Ready {
            name: "Stockfish 15.1".into()
        }]
    );
    c
}

fn from_fen(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

fn request(id: u64, start: Chess, moves: &[&str]) -> SearchRequest {
    let mut pos = start.clone();
    let moves = moves
        .iter()
        .map(|u| {
            let m = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect();
    SearchRequest {
        id,
        purpose: Purpose::Play,
        start,
        moves,
    }
}

/// The recorded output after `readyok` (the fixtures hold the search's lines from there).
fn after_ready(recorded: &str) -> &str {
    recorded.split_once("readyok\n").unwrap().1
}

#[test]
fn the_handshake_sets_the_strength_the_engine_offers() {
    let (mut c, _) = Conversation::start(strength(Some(3), Some(1500)), Patience::default(), 0);
    let (commands, _) = feed(&mut c, HANDSHAKE.split("readyok").next().unwrap(), 5);
    assert_eq!(
        commands,
        vec![
            Command::SetOption {
                name: "Skill Level".into(),
                value: "3".into()
            },
            Command::SetOption {
                name: "UCI_LimitStrength".into(),
                value: "true".into()
            },
            Command::SetOption {
                name: "UCI_Elo".into(),
                value: "1500".into()
            },
            Command::IsReady,
        ]
    );
}

#[test]
fn a_strength_the_engine_cannot_take_is_said_with_its_range() {
    // Stockfish 15.1 limits its Elo from 1350.
    let (mut c, _) = Conversation::start(strength(None, Some(800)), Patience::default(), 0);
    let (_, events) = feed(&mut c, HANDSHAKE, 5);
    assert_eq!(
        events,
        vec![Event::Failed(Failure::OutOfRange {
            key: "elo",
            value: 800,
            min: 1350,
            max: 2850
        })]
    );
    assert!(c.is_failed());
    let text = Failure::OutOfRange {
        key: "elo",
        value: 800,
        min: 1350,
        max: 2850,
    }
    .to_string();
    assert!(text.contains("1350 to 2850"), "{text}");
}

#[test]
fn an_engine_without_the_option_is_refused_naming_the_key() {
    let (mut c, _) = Conversation::start(strength(Some(3), None), Patience::default(), 0);
    let (_, events) = feed(&mut c, "id name Tiny\nuciok\n", 5);
    assert_eq!(
        events,
        vec![Event::Failed(Failure::MissingOption {
            option: "Skill Level".into(),
            key: "skill"
        })]
    );
}

#[test]
fn a_search_with_info_lines_and_bestmove_with_ponder() {
    let mut c = ready(strength(Some(3), None));
    let commands = c.search(request(1, Chess::default(), &["e2e4", "e7e5"]), 10);
    assert_eq!(
        commands,
        vec![
            Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            },
            Command::Go(Limit::MoveTime(300)),
        ]
    );
    let (_, events) = feed(&mut c, after_ready(SEARCH), 400);
    let [
        Event::Answer {
            id: 1,
            purpose: Purpose::Play,
            best: Some(m),
            score,
        },
    ] = events.as_slice()
    else {
        panic!("{events:?}");
    };
    // Skill level 3 played a2a3 although its last line preferred g1f3: the move is bestmove's.
    assert_eq!(m.to_uci(CastlingMode::Standard).to_string(), "a2a3");
    // White to move: the last principal score, as given.
    assert_eq!(*score, Some(Score::Cp(37)));
    assert!(c.is_ready() && c.next_deadline().is_none());
}

#[test]
fn mate_scores_are_turned_to_whites_view() {
    // White mates in one: bestmove without ponder (nothing follows a mate).
    let mut c = ready(strength(None, None));
    c.search(
        request(2, from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), &[]),
        0,
    );
    let (_, events) = feed(&mut c, after_ready(MATE_IN_ONE), 10);
    let [
        Event::Answer {
            best: Some(m),
            score,
            ..
        },
    ] = events.as_slice()
    else {
        panic!("{events:?}");
    };
    assert_eq!(m.to_uci(CastlingMode::Standard).to_string(), "a1a8");
    assert_eq!(*score, Some(Score::Mate(1)));
    assert_eq!(
        Standing::of(Score::Mate(1)),
        Standing::MatesIn(Color::White, 1)
    );
    // Black to move is mated in one: "mate -1" for Black is White mating.
    c.search(
        request(3, from_fen("k7/8/2K5/8/8/8/8/1Q6 b - - 0 1"), &[]),
        20,
    );
    let (_, events) = feed(&mut c, after_ready(MATED_IN_ONE), 30);
    let [
        Event::Answer {
            best: Some(m),
            score,
            ..
        },
    ] = events.as_slice()
    else {
        panic!("{events:?}");
    };
    assert_eq!(m.to_uci(CastlingMode::Standard).to_string(), "a8a7");
    assert_eq!(*score, Some(Score::Mate(1)));
}

#[test]
fn no_move_in_a_mated_or_stalemated_position_is_an_answer() {
    let mut c = ready(strength(None, None));
    c.search(
        request(4, from_fen("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"), &[]),
        0,
    );
    let (_, events) = feed(&mut c, after_ready(CHECKMATED), 10);
    assert!(
        matches!(events.as_slice(), [Event::Answer { best: None, .. }]),
        "{events:?}"
    );
    c.search(
        request(5, from_fen("k7/8/1QK5/8/8/8/8/8 b - - 0 1"), &[]),
        20,
    );
    let (_, events) = feed(&mut c, after_ready(STALEMATE), 30);
    assert!(
        matches!(
            events.as_slice(),
            [Event::Answer {
                best: None,
                score: Some(Score::Cp(0)),
                ..
            }]
        ),
        "{events:?}"
    );
}

#[test]
fn an_illegal_move_from_the_engine_is_its_failure_not_a_move() {
    let mut c = ready(strength(None, None));
    c.search(request(6, Chess::default(), &["e2e4"]), 0);
    let (_, events) = feed(&mut c, "bestmove e2e4\n", 10);
    assert!(
        matches!(events.as_slice(), [Event::Failed(Failure::IllegalMove { uci, .. })] if uci == "e2e4"),
        "{events:?}"
    );
    assert!(c.is_failed());
    // What was asked is still wanted from the next engine.
    assert_eq!(c.unanswered().len(), 1);
}

#[test]
fn no_move_where_there_are_moves_is_a_failure() {
    let mut c = ready(strength(None, None));
    c.search(request(7, Chess::default(), &[]), 0);
    let (_, events) = feed(&mut c, "bestmove (none)\n", 10);
    assert!(matches!(
        events.as_slice(),
        [Event::Failed(Failure::NoMove { .. })]
    ));
}

#[test]
fn a_silent_engine_fails_at_its_deadline() {
    let (mut c, _) = Conversation::start(strength(None, None), Patience::default(), 1_000);
    assert_eq!(c.next_deadline(), Some(11_000));
    assert!(c.tick(10_999).is_empty());
    assert_eq!(
        c.tick(11_000),
        vec![Event::Failed(Failure::Silent {
            sent: "uci",
            ms: 10_000
        })]
    );
    // A search has its own time plus the allowance.
    let mut c = ready(strength(None, None));
    c.search(request(8, Chess::default(), &[]), 100);
    assert_eq!(c.next_deadline(), Some(100 + 300 + 30_000));
    assert!(matches!(
        c.tick(30_400).as_slice(),
        [Event::Failed(Failure::Silent { sent: "go", .. })]
    ));
}

#[test]
fn searches_wait_their_turn_and_a_cancelled_answer_goes_nowhere() {
    let mut c = ready(strength(None, None));
    assert_eq!(c.search(request(9, Chess::default(), &[]), 0).len(), 2);
    // A hint asked while the engine thinks about its own move waits.
    let mut hint = request(10, Chess::default(), &[]);
    hint.purpose = Purpose::Hint;
    assert!(c.search(hint, 1).is_empty());
    assert!(c.has(Purpose::Hint));
    assert_eq!(c.cancel(Purpose::Play), vec![Command::Stop]);
    let (commands, events) = feed(&mut c, "bestmove e2e4\n", 5);
    assert!(events.is_empty(), "{events:?}");
    assert!(matches!(
        commands.as_slice(),
        [Command::Position { .. }, Command::Go(_)]
    ));
    let (_, events) = feed(&mut c, "bestmove d2d4\n", 9);
    assert!(matches!(
        events.as_slice(),
        [Event::Answer {
            id: 10,
            purpose: Purpose::Hint,
            ..
        }]
    ));
}

#[test]
fn advice_is_the_engines_best_line_not_its_weakened_move() {
    // Skill level 3 answered a2a3 while its line began with g1f3 (search.txt): a hint gives
    // g1f3, searched to the analysis depth.
    let mut c = ready(strength(Some(3), None));
    let mut hint = request(12, Chess::default(), &["e2e4", "e7e5"]);
    hint.purpose = Purpose::Hint;
    let commands = c.search(hint, 0);
    assert_eq!(commands[1], Command::Go(ANALYSIS_LIMIT));
    let (_, events) = feed(&mut c, after_ready(SEARCH), 400);
    let [Event::Answer { best: Some(m), .. }] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_eq!(m.to_uci(CastlingMode::Standard).to_string(), "g1f3");
}

#[test]
fn a_fen_start_is_sent_as_fen() {
    let mut c = ready(strength(None, None));
    let start = from_fen("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1");
    let commands = c.search(request(11, start, &["e2e4"]), 0);
    assert_eq!(
        commands[0],
        Command::Position {
            fen: Some("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1".into()),
            moves: vec!["e2e4".into()]
        }
    );
}

#[test]
fn standing_in_bands() {
    assert_eq!(Standing::of(Score::Cp(30)), Standing::Equal);
    assert_eq!(Standing::of(Score::Cp(-49)), Standing::Equal);
    assert_eq!(
        Standing::of(Score::Cp(80)),
        Standing::SlightlyBetter(Color::White)
    );
    assert_eq!(
        Standing::of(Score::Cp(-200)),
        Standing::ClearlyBetter(Color::Black)
    );
    assert_eq!(
        Standing::of(Score::Cp(900)),
        Standing::Winning(Color::White)
    );
    assert_eq!(
        Standing::of(Score::Mate(-3)),
        Standing::MatesIn(Color::Black, 3)
    );
}
