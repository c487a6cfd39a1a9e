//! Every game of `chess-data/pgn/` played on simulated boards, as the events real hands produce,
//! through move recognition: both board kinds, several styles each. The recogniser must yield
//! exactly the game's moves, never a move too many, and a complete touch log.

use crate::support;

use shakmaty::{Move, Position};
use tactus_core::{
    board::recognize::RecognizerConfig,
    rules::pgn::read_pgn_each,
    sim::{
        hands::{DGT, Hands, TACTILE},
        script::{CaptureOrder, CastlingOrder, Style, script},
    },
};

fn styles() -> Vec<(&'static str, RecognizerConfig, Style)> {
    vec![
        ("tactile calm", TACTILE, Style::TACTILE),
        (
            "tactile mover-first, e.p. captured first, bounce",
            TACTILE,
            Style {
                capture: CaptureOrder::MoverFirst,
                ep_captured_first: true,
                bounce: true,
                ..Style::TACTILE
            },
        ),
        ("dgt one-handed", DGT, Style::DGT),
        (
            "dgt captured-first, rook-first castling, reordered, sliding",
            DGT,
            Style {
                capture: CaptureOrder::CapturedFirst,
                castling: CastlingOrder::RookFirst,
                reorder: true,
                slide: true,
                ..Style::DGT
            },
        ),
        (
            "dgt mover-first, sliding",
            DGT,
            Style {
                capture: CaptureOrder::MoverFirst,
                slide: true,
                ..Style::DGT
            },
        ),
    ]
}

#[test]
fn every_corpus_game_is_recognised_on_both_board_kinds() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let mut games_checked = 0;
    let mut plies_checked = 0;
    for entry in std::fs::read_dir(data.join("pgn")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        // The negative sample is recognised up to its null move.
        for game in read_pgn_each(&bytes) {
            let (start, moves) = match &game {
                Ok(g) => (g.start.clone(), g.moves.clone()),
                Err(e) => (
                    e.start().cloned().unwrap_or_default(),
                    e.legal_prefix().to_vec(),
                ),
            };
            for (name, cfg, style) in styles() {
                let label = format!(
                    "{} game {} [{name}]",
                    path.file_name().unwrap().to_string_lossy(),
                    games_checked + 1
                );
                let mut h = Hands::new(cfg, &start, label.clone());
                let mut pos = start.clone();
                for (ply, &m) in moves.iter().enumerate() {
                    h.announce = m.promotion();
                    let before = h.completed.len();
                    h.touches.clear();
                    for step in script(&pos, m, &style) {
                        h.feed(step.delay_ms, step.event);
                    }
                    h.advance(h.now + 5_000);
                    assert_eq!(
                        h.completed.len(),
                        before + 1,
                        "{label}: ply {} ({m}) not recognised exactly once",
                        ply + 1
                    );
                    let (got, touches) = h.completed.last().unwrap();
                    assert_eq!(*got, m, "{label}: ply {}", ply + 1);
                    // The touch log holds the mover's square, and every lift was logged in order.
                    assert!(
                        touches.contains(&m.from().unwrap()),
                        "{label}: ply {}: touches {touches:?}",
                        ply + 1
                    );
                    assert_eq!(touches, &h.touches, "{label}: ply {}: touch log", ply + 1);
                    if let Move::Castle { rook, .. } = m {
                        assert!(
                            touches.contains(&rook),
                            "{label}: castling touches {touches:?}"
                        );
                        if style.castling == CastlingOrder::RookFirst {
                            assert_eq!(
                                touches[0], rook,
                                "{label}: rook first is reported in order"
                            );
                        }
                    }
                    pos.play_unchecked(m);
                    assert_eq!(h.rec.expected(), &pos);
                }
                plies_checked += moves.len();
            }
            games_checked += 1;
        }
    }
    assert!(games_checked >= 135, "only {games_checked} games");
    assert!(
        plies_checked > 50_000,
        "only {plies_checked} plies across styles"
    );
}
