//! The game's journal (`journal.jsonl`): event sourcing for the daemon.
//!
//! Every input the hub accepts is appended here, with its time on the game's time line, flushed
//! and synced to the disk BEFORE the arbiter sees it. Replaying the journal through the same pure
//! code ([`replay()`]) rebuilds the arbiter exactly as it stood, which is how a restarted daemon
//! resumes a game and how `tactus replay` prints one without any hardware.
//!
//! Three parts: [`mod@format`], the file format (JSON lines: a header with everything that fixes the
//! game's rules and boards, then one line per input, and an end line when the game is over) and
//! the serialisable mirrors of `arbiter::Input` and `game::Input` (moves as UCI, squares as names,
//! pieces as FEN letters); [`mod@file`], reading and appending the file; [`mod@replay`], the replay loop.
//! None of them speaks, writes the game's other files or reads the game's clock (the caller
//! passes the times).
//!
//! Robustness: a line cut off by a crash or a power cut (the last line, without its newline) is
//! dropped, and the file is truncated to the last whole line before more is appended, after the
//! original is copied aside. Any other damage (an unreadable complete line, a missing or second
//! header, a line after the end, a gap in the entries' numbers) is a [`Damage`] naming the file
//! and the line: the daemon refuses to start on it. A failed write (a full disk) is cut back to
//! the last whole line and held in memory until the disk takes it ([`Outage`]).

pub mod file;
pub mod format;
pub mod replay;

pub use file::{Damage, Journal, JournalFile, NothingPlayed, Outage, Sink, read, unix_ms};
pub use format::*;
pub use replay::{Replayed, replay};

/// A journal header for tests: a tactile board that reports every change at once, the sighted
/// player's moves entered at the console, `blind` playing the blind player's colour, the given
/// time control (none: no clock), the German pack.
#[cfg(test)]
pub(crate) fn test_header(blind: shakmaty::Color, time_control: Option<&str>) -> Header {
    use crate::{
        announce::voice::Style,
        arbiter::{ArbiterConfig, Completion},
        board::{Sensing, recognize::RecognizerConfig},
        rules::game::RulesConfig,
    };
    let cfg = ArbiterConfig {
        rules: RulesConfig {
            time_control: time_control.map(|tc| tc.parse().unwrap()),
            ..RulesConfig::default()
        },
        blind,
        blind_board: RecognizerConfig {
            sensing: Sensing::Occupancy,
            settle_ms: 0,
            scan_ms: 0,
            bounce_ms: 0,
            differs_after_ms: 1500,
            confirm_with_snapshot: false,
        },
        sighted_board: None,
        sighted_completion: Completion::ClockPress,
        guidance_repeat_ms: 10_000,
        say_own_move: true,
    };
    Header {
        version: FORMAT_VERSION,
        created_unix_ms: 1,
        tags: Vec::new(),
        setup: SetupRecord::new(&cfg, &shakmaty::Chess::default(), "de-fide", Style::San),
    }
}

#[cfg(test)]
mod tests {
    use std::{fs::OpenOptions, io::Write};

    use shakmaty::{Board, ByColor, Chess, Color, KnownOutcome, Piece, Position, Role, Square};

    use super::*;
    use crate::{
        announce::{Announcement, Audience},
        arbiter::{BoardId, Input},
        board::{Sensed, SensorEvent},
        rules::{
            dead::Mateability,
            game::{DrawClaim, Input as G, QuickplayRuling},
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
            G::Pause,
            G::Resume,
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
                board: BoardId::Blind,
                event: SensorEvent::Lift { square: Square::E2 },
            },
            Input::Board {
                board: BoardId::Sighted,
                event: SensorEvent::Place {
                    square: Square::F3,
                    piece: Some(Piece {
                        color: Color::Black,
                        role: Role::Knight,
                    }),
                },
            },
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Place {
                    square: Square::E4,
                    piece: None,
                },
            },
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Snapshot(Sensed::Occupancy(board.occupied())),
            },
            Input::Board {
                board: BoardId::Sighted,
                event: SensorEvent::Snapshot(Sensed::Pieces(board.clone())),
            },
            Input::Board {
                board: BoardId::Blind,
                event: SensorEvent::Button(3),
            },
            Input::BoardDisconnected {
                board: BoardId::Sighted,
            },
            Input::BoardConnected {
                board: BoardId::Blind,
            },
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
            assert_eq!(j.to_input(&pos).unwrap(), input, "{line}");
        }
        let _ = ByColor::new_with(|_| 0);
    }

    fn header() -> Header {
        let mut header = super::test_header(Color::White, Some("300+2"));
        header.tags = vec![("White".into(), "A".into())];
        header
    }

    #[test]
    fn the_header_rebuilds_the_table() {
        let h = header();
        let line = serde_json::to_string(&Entry::Header(h.clone())).unwrap();
        let back: Entry = serde_json::from_str(&line).unwrap();
        assert_eq!(back, Entry::Header(h.clone()));
        let cfg = h.setup.arbiter_config().unwrap();
        assert_eq!(cfg.blind, Color::White);
        assert_eq!(
            cfg.rules.time_control.unwrap().to_string(),
            h.setup.time_control.clone().unwrap()
        );
        assert_eq!(h.setup.start().unwrap(), Chess::default());
    }

    #[test]
    fn a_journal_replays_and_a_torn_last_line_is_cut() {
        let dir = std::env::temp_dir().join(format!("tactus-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &header()).unwrap();
        j.input(0, &Input::Start).unwrap();
        j.input(100, &Input::EnterMove("e4".into())).unwrap();
        // White is the blind player: the console cannot enter his move.
        j.input(200, &Input::Tick).unwrap();
        drop(j);
        // A crash in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\":\"input\",\"t\":300,\"wal").unwrap();
        drop(f);
        let read1 = read(&path).unwrap();
        assert!(read1.torn);
        assert_eq!(read1.entries.len(), 3);
        assert_eq!(read1.last_time(), 200);
        let mut j = Journal::append_to(&read1).unwrap();
        j.input(400, &Input::Tick).unwrap();
        drop(j);
        let read2 = read(&path).unwrap();
        assert!(!read2.torn);
        assert_eq!(read2.entries.len(), 4);
        let replayed = replay(&read2, |_, _| {}).unwrap();
        assert_eq!(replayed.inputs, 4);
        assert!(replayed.started);
        assert_eq!(replayed.last_time, 400);
        assert!(replayed.arbiter.game().clock().unwrap().running() == Some(Color::White));

        // A damaged line in the middle is an error naming the line.
        std::fs::write(
            &path,
            format!(
                "{}\nnot json\n{}\n",
                serde_json::to_string(&Entry::Header(header())).unwrap(),
                serde_json::to_string(&Entry::Input {
                    t: 1,
                    wall: 1,
                    input: InputRecord::Tick
                })
                .unwrap()
            ),
        )
        .unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A crash between the blind player's move and the end of its announcement: the replay
    /// knows the announcement was never finished (the daemon says it again), and the move counts
    /// only once its end is journaled (F.3 c).
    #[test]
    fn an_unfinished_announcement_survives_the_replay() {
        let dir = std::env::temp_dir().join(format!("tactus-journal-say-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(JOURNAL_FILE);
        let mut j = Journal::create(&path, &header()).unwrap();
        let blind = |event| Input::Board {
            board: BoardId::Blind,
            event,
        };
        j.input(0, &Input::Start).unwrap();
        j.input(1000, &blind(SensorEvent::Lift { square: Square::E2 }))
            .unwrap();
        j.input(
            1200,
            &blind(SensorEvent::Place {
                square: Square::E4,
                piece: None,
            }),
        )
        .unwrap();
        drop(j);
        let replayed = replay(&read(&path).unwrap(), |_, _| {}).unwrap();
        assert_eq!(replayed.arbiter.game().ply(), 0);
        let (&id, (audience, announcement)) = replayed
            .unfinished
            .iter()
            .find(|(_, (_, a))| matches!(a, Announcement::Move(_)))
            .expect("the move's announcement is unfinished");
        assert_eq!(*audience, Audience::Sighted);
        assert!(matches!(announcement, Announcement::Move(w) if w.to == Square::E4));

        let mut j = Journal::append_to(&read(&path).unwrap()).unwrap();
        j.input(2500, &Input::SpeechFinished { id }).unwrap();
        drop(j);
        let replayed = replay(&read(&path).unwrap(), |_, _| {}).unwrap();
        assert_eq!(replayed.arbiter.game().ply(), 1);
        assert!(!replayed.unfinished.contains_key(&id));
        // White's clock ran until the announcement ended: 2.5 s of 300 s, plus the increment.
        let clock = replayed.arbiter.game().clock().unwrap();
        assert_eq!(clock.remaining(Color::White, 2500), 300_000 - 2500 + 2000);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
