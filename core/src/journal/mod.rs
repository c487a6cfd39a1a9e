//! The game's journal (`journal.jsonl`), the pure part: its format, reading it back, replaying it.
//!
//! Every input the hub accepts is appended to the journal, with its time on the game's time line,
//! and synced to the disk before the arbiter sees it (the shell's journal file does the writing).
//! Replaying the journal through the same pure code ([`replay()`]) rebuilds the arbiter exactly as
//! it stood, which is how a restarted daemon resumes a game and how `tactus replay` prints one
//! without any hardware.
//!
//! Its parts, from the top: [`mod@lines`], the file's lines (JSON lines: a header with
//! everything that fixes the game's rules and boards, then one line per input, and an end line
//! when the game is over); [`mod@table`], what the table received (format 3's lines);
//! [`mod@format`], the serialisable mirrors of `arbiter::Input` and `game::Input` (format 2's
//! lines, and parts of format 3's: moves as UCI, squares as names, pieces as FEN letters);
//! [`mod@parse`] and [`mod@check`], reading a journal's bytes back with every kind of damage named;
//! [`mod@replay`], the replay loop; [`mod@mark`], the record's mark. None of them speaks, touches a
//! file or reads a clock (the caller passes the bytes and the times).

pub mod check;
pub mod format;
pub mod lines;
pub mod mark;
pub mod parse;
pub mod replay;
pub mod table;

pub use format::*;
pub use lines::*;
pub use mark::{MARK_FILE, OtherGame, RecordAhead, RecordMark, check_mark, check_record};
pub use parse::{Damage, JournalFile, NothingPlayed, Parser, parse};
pub use replay::{Replayed, Step, replay, replay_steps};
pub use table::TableRecord;

/// A journal header for tests and examples: a tactile board that reports every change at once, the sighted
/// player's moves entered at the console, `blind` playing the blind player's colour, the given
/// time control (none: no clock), the German pack.
pub fn test_header(blind: shakmaty::Color, time_control: Option<&str>) -> Header {
    use crate::{
        announce::voice::Style,
        arbiter::{ArbiterConfig, Completion},
        board::{Sensing, recognize::RecognizerConfig},
        rules::game::RulesConfig,
    };
    let tactile = RecognizerConfig {
        sensing: Sensing::Occupancy,
        settle_ms: 0,
        scan_ms: 0,
        bounce_ms: 0,
        differs_after_ms: 1500,
        confirm_with_snapshot: false,
    };
    let cfg = ArbiterConfig {
        rules: RulesConfig {
            time_control: time_control.map(|tc| tc.parse().unwrap()),
            ..RulesConfig::default()
        },
        seats: crate::arbiter::one_blind(blind, tactile, None, Completion::ClockPress),
        guidance_repeat_ms: 10_000,
        say_own_move: true,
        correction_window_ms: 0,
    };
    Header {
        version: FORMAT_VERSION,
        game: String::new(),
        created_unix_ms: 1,
        tags: Vec::new(),
        setup: SetupRecord::new(&cfg, &shakmaty::Chess::default(), "de-fide", Style::San),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Board, ByColor, Chess, Color, KnownOutcome, Piece, Position, Role, Square};

    use super::*;
    use crate::{
        arbiter::Input,
        board::{Sensed, SensorEvent},
        rules::{
            dead::Mateability,
            game::{DrawClaim, Input as G, PauseReason, QuickplayRuling},
        },
    };

    fn pos_after(moves: &[&str]) -> Chess {
        let mut pos = Chess::default();
        for m in moves {
            let mv = crate::rules::notation::match_move(&pos, m).unwrap();
            pos.play_unchecked(mv);
        }
        pos
    }

    /// Every variant of both input enums, serialised to a line and read back, is the same input.
    #[test]
    fn every_input_round_trips() {
        // A position where castling, a capture, en passant and a promotion-free claim move exist.
        let pos = pos_after(&["e4", "d5", "e5", "f5"]);
        let e5f6 = crate::rules::notation::match_move(&pos, "exf6").unwrap();
        let nf3 = crate::rules::notation::match_move(&pos, "Nf3").unwrap();
        let mut board = Board::default();
        board.discard_piece_at(Square::E2);
        let rules: Vec<G> = vec![
            G::Start,
            G::Move(e5f6),
            G::IllegalMove { by: Color::White },
            G::ClaimIllegalMove { by: Color::Black },
            G::OfferDraw { by: Color::White },
            G::AcceptDraw { by: Color::Black },
            G::DeclineDraw { by: Color::Black },
            G::Touch {
                by: Color::White,
                square: Square::G1,
            },
            G::Resign { by: Color::Black },
            G::Claim {
                by: Color::White,
                claim: DrawClaim::Repetition {
                    intended: Some(nf3),
                },
            },
            G::Claim {
                by: Color::White,
                claim: DrawClaim::FiftyMoves { intended: None },
            },
            G::ClaimFlag { by: Color::White },
            G::ClaimQuickplayDraw { by: Color::Black },
            G::QuickplayRuling(QuickplayRuling::Draw),
            G::QuickplayRuling(QuickplayRuling::Postpone {
                extra_time_to_opponent: true,
            }),
            G::QuickplayRuling(QuickplayRuling::Reject),
            G::Tick,
            G::Pause(PauseReason::Arbiter),
            G::Resume(PauseReason::Arbiter),
            G::Pause(PauseReason::Recording),
            G::Resume(PauseReason::Recording),
            G::Pause(PauseReason::Opponent),
            G::Resume(PauseReason::Opponent),
            G::SetClock {
                side: Color::Black,
                remaining_ms: 123_456,
            },
            G::AdjustClock {
                side: Color::White,
                delta_ms: -60_000,
            },
            G::SetMoveCounter {
                side: Color::White,
                moves: 12,
            },
            G::ArbiterResult {
                outcome: KnownOutcome::Draw,
            },
            G::ArbiterResult {
                outcome: KnownOutcome::Decisive {
                    winner: Color::Black,
                },
            },
            G::SetPosition {
                position: pos.clone(),
            },
            G::Retract { to_ply: 3 },
            G::Verdict {
                ticket: 7,
                mateability: Mateability::CannotMate,
            },
        ];
        let mut inputs: Vec<Input> = vec![
            Input::Start,
            Input::Board {
                seat: Color::White,
                event: SensorEvent::Lift { square: Square::E2 },
            },
            Input::Board {
                seat: Color::Black,
                event: SensorEvent::Place {
                    square: Square::F3,
                    piece: Some(Piece {
                        color: Color::Black,
                        role: Role::Knight,
                    }),
                },
            },
            Input::Board {
                seat: Color::White,
                event: SensorEvent::Place {
                    square: Square::E4,
                    piece: None,
                },
            },
            Input::Board {
                seat: Color::White,
                event: SensorEvent::Snapshot(Sensed::Occupancy(board.occupied())),
            },
            Input::Board {
                seat: Color::Black,
                event: SensorEvent::Snapshot(Sensed::Pieces(board.clone())),
            },
            Input::Board {
                seat: Color::White,
                event: SensorEvent::Button(3),
            },
            Input::BoardDisconnected { seat: Color::Black },
            Input::BoardConnected { seat: Color::White },
            Input::SpeechFinished { id: 42 },
            Input::ClockPress,
            Input::EnterMove("Nf3".into()),
            Input::Promote(Role::Knight),
            Input::Correct("0-0".into()),
            Input::Scoresheet {
                side: Color::Black,
                sans: vec!["e4".into(), "d5".into()],
            },
            Input::ConfirmClocks,
            Input::Tick,
        ];
        inputs.extend(rules.into_iter().map(Input::Rules));
        for input in inputs {
            let entry = Entry::Input {
                t: 1234,
                wall: 5678,
                input: (&input).into(),
            };
            let line = serde_json::to_string(&entry).unwrap();
            assert!(!line.contains('\n'), "{line}");
            let back: Entry = serde_json::from_str(&line).unwrap();
            assert_eq!(back, entry, "{line}");
            let Entry::Input { input: j, .. } = back else {
                panic!("{line}");
            };
            assert_eq!(
                j.to_input(&pos, BlindRecord::White).unwrap(),
                input,
                "{line}"
            );
        }
        let _ = ByColor::new_with(|_| 0);
    }

    /// Format-2 journals written before the pause had a reason hold the arbiter's pause and
    /// resumption (and a halt's, which were his then) as the bare names `"pause"` and
    /// `"resume"`: such lines still read as his, and his are still written so, byte for byte
    /// (an older tactus reads them too). A pause for the recording has a line of its own.
    #[test]
    fn pause_lines_from_before_the_reason_read_as_the_arbiters() {
        let old = [
            (
                r#"{"kind":"input","t":61000,"wall":1700000000000,"input":{"rules":{"rules":"pause"}}}"#,
                G::Pause(PauseReason::Arbiter),
            ),
            (
                r#"{"kind":"input","t":65000,"wall":1700000004000,"input":{"rules":{"rules":"resume"}}}"#,
                G::Resume(PauseReason::Arbiter),
            ),
        ];
        for (line, rules) in old {
            let entry: Entry = serde_json::from_str(line).unwrap();
            let Entry::Input { input, .. } = &entry else {
                panic!("{line}");
            };
            assert_eq!(
                input
                    .to_input(&Chess::default(), BlindRecord::White)
                    .unwrap(),
                Input::Rules(rules),
                "{line}"
            );
            assert_eq!(serde_json::to_string(&entry).unwrap(), line);
        }
        for (rules, written) in [
            (
                G::Pause(PauseReason::Recording),
                r#"{"rules":{"rules":{"pause_for":{"reason":"recording"}}}}"#,
            ),
            (
                G::Resume(PauseReason::Recording),
                r#"{"rules":{"rules":{"resume_for":{"reason":"recording"}}}}"#,
            ),
            (
                G::Pause(PauseReason::Opponent),
                r#"{"rules":{"rules":{"pause_for":{"reason":"opponent"}}}}"#,
            ),
            (
                G::Resume(PauseReason::Opponent),
                r#"{"rules":{"rules":{"resume_for":{"reason":"opponent"}}}}"#,
            ),
        ] {
            let record = InputRecord::from(&Input::Rules(rules));
            assert_eq!(serde_json::to_string(&record).unwrap(), written);
        }
    }

    fn header() -> Header {
        let mut header = super::test_header(Color::White, Some("300+2"));
        header.tags = vec![("White".into(), "A".into())];
        header
    }

    #[test]
    fn the_header_rebuilds_the_table() {
        let h = header();
        let line = serde_json::to_string(&Entry::Header(Box::new(h.clone()))).unwrap();
        let back: Entry = serde_json::from_str(&line).unwrap();
        assert_eq!(back, Entry::Header(Box::new(h.clone())));
        let cfg = h.setup.arbiter_config().unwrap();
        assert_eq!(cfg.the_blind(), Some(Color::White));
        assert_eq!(
            cfg.rules.time_control.unwrap().to_string(),
            h.setup.time_control.clone().unwrap()
        );
        assert_eq!(h.setup.start().unwrap(), Chess::default());
    }

    /// Issue 37, point 10: the header keeps each seat's Braille profile where one is not the
    /// table's (two blind players of two notations), and the table it rebuilds reads each
    /// player's Braille scoresheet in his; a header without them (one notation at the table, or
    /// a journal from before) reads both in the table's.
    #[test]
    fn the_header_keeps_each_seats_braille_profile() {
        let names = |parts: &crate::table::TableParts| {
            Color::ALL.map(|seat| parts.braille[seat].name.clone())
        };
        let wording = || {
            ByColor::new_with(|_| {
                crate::announce::Wording::new(
                    crate::announce::voice::VoicePack::builtin("de-fide").unwrap(),
                    crate::announce::voice::Style::San,
                )
            })
        };
        let mut h = header();
        h.setup = h
            .setup
            .with_table(&crate::table::TableSettings::default(), "ukaaf")
            .with_seat_braille(ByColor {
                white: "de".into(),
                black: "ukaaf".into(),
            });
        let line = serde_json::to_string(&h).unwrap();
        assert!(line.contains("\"seat_braille_profiles\""), "{line}");
        let back: Header = serde_json::from_str(&line).unwrap();
        let parts = back.setup.table_parts(&[], wording()).unwrap();
        assert_eq!(names(&parts), ["de", "ukaaf"]);

        // One notation at the table: nothing more is written.
        let one = header()
            .setup
            .with_table(&crate::table::TableSettings::default(), "de")
            .with_seat_braille(ByColor::new_with(|_| "de".to_string()));
        assert_eq!(one.seat_braille_profiles, None);
        assert_eq!(
            names(&one.table_parts(&[], wording()).unwrap()),
            ["de", "de"]
        );
        // A journal from before: its one profile for both.
        let line = line.replace("\"seat_braille_profiles\"", "\"unknown_then\"");
        let old: Header = serde_json::from_str(&line).unwrap();
        let parts = old.setup.table_parts(&[], wording()).unwrap();
        assert_eq!(names(&parts), ["ukaaf", "ukaaf"]);
    }
}
