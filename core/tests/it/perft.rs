//! Move generation under the Laws (Art. 3): every position of `perft/*.perft` to depth 4 must give
//! the published node counts. tactus relies on shakmaty for this; the test pins the version we ship.

#![allow(
    clippy::result_large_err,
    reason = "shakmaty's PositionError is large; this is a test helper"
)]

use crate::support;

use shakmaty::{CastlingMode, Chess, fen::Fen, perft};

const MAX_DEPTH: u32 = 4;

#[test]
fn every_perft_position_to_depth_four() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(data.join("perft")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "perft") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut current: Option<(String, Chess)> = None;
        for line in text.lines().map(str::trim) {
            if let Some(epd) = line.strip_prefix("epd ") {
                let fen: Fen = epd
                    .parse()
                    .unwrap_or_else(|e| panic!("{}: bad epd {epd}: {e}", path.display()));
                // The tricky suite includes Chess960 castling positions and, like shakmaty's own
                // test, checks that move generation copes with checks and material no game could produce.
                let pos = fen
                    .into_position(CastlingMode::Chess960)
                    .or_else(|e| e.ignore_impossible_check())
                    .or_else(|e| e.ignore_too_much_material())
                    .unwrap_or_else(|e| panic!("{epd}: {e}"));
                current = Some((epd.to_string(), pos));
            } else if let Some(rest) = line.strip_prefix("perft ") {
                let (depth, nodes) = rest.split_once(' ').unwrap();
                let depth: u32 = depth.parse().unwrap();
                let nodes: u64 = nodes.trim().parse().unwrap();
                if depth > MAX_DEPTH {
                    continue;
                }
                let (epd, pos) = current.as_ref().expect("perft line before any epd");
                assert_eq!(
                    perft(pos, depth),
                    nodes,
                    "{}: {epd} depth {depth}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "only {checked} perft lines checked");
}
