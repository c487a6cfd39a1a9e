//! The [`TableView`] the hub publishes for the table's page and its live PGN (`crate::web`),
//! after every change, when a viewer is configured. The hub never waits for a viewer: the view
//! goes into a watch channel and the web task serves the latest one.
//!
//! What it must not hold: the sealed move before `open` (the game record has none until the
//! envelope is opened and its move played), the arbiter's token, the answers to the blind
//! player's requests (F.9 d). Only the game record, the clocks, the boards and the words of the
//! moves as announced go in.

use shakmaty::{Chess, Color, Position, Square};

use super::Hub;
use crate::web::view::{BoardView, ClocksView, LastMove, Made, TableView};
use tactus_core::announce::{Announcement, MoveWords};

impl Hub {
    /// The table as a viewer may see it now.
    pub(super) fn table_view(&self) -> TableView {
        let game = self.arbiter.game();
        let now = self.clock.now();
        let position = game.position();
        let names = self.arbiter.config().names();
        let clocks = game.clock().map(|clock| ClocksView {
            white_ms: clock.remaining(Color::White, now),
            black_ms: clock.remaining(Color::Black, now),
            running: if clock.is_paused() {
                None
            } else {
                clock.running().map(|side| side.to_string())
            },
            delay_ms: match clock.running() {
                Some(side) if !clock.is_paused() => clock.delay_left(side, now),
                _ => 0,
            },
        });
        let boards = self
            .seat_order()
            .into_iter()
            .map(|seat| {
                let shown = self
                    .arbiter
                    .board(seat)
                    .filter(|_| self.sensors[seat])
                    .map(|r| r.pieces().clone());
                let board = shown.as_ref().unwrap_or(position.board());
                let differs = Square::ALL
                    .into_iter()
                    .filter(|&sq| board.piece_at(sq) != position.board().piece_at(sq))
                    .map(|sq| sq.to_string())
                    .collect();
                BoardView {
                    seat: seat.to_string(),
                    name: format!("{} board", names.board(seat)),
                    squares: squares(board),
                    sensed: shown.is_some(),
                    differs,
                }
            })
            .collect();
        TableView {
            tags: self.tags.clone(),
            pgn: game.to_pgn(&self.tags),
            moves: game.moves().iter().map(|m| m.san.to_string()).collect(),
            to_move: position.turn().to_string(),
            clocks,
            boards,
            last: self.last_moves(),
            pending: self.pending_words(),
            state: self.state_words(),
            result: game
                .end()
                .map_or_else(|| "*".to_string(), |e| e.outcome.to_string()),
            made: Made(Some(self.clock.instant(now))),
        }
    }

    /// Each side's last move, in SAN and in the words his opponent heard.
    fn last_moves(&self) -> Vec<LastMove> {
        let game = self.arbiter.game();
        let moves = game.moves();
        let mut last = Vec::new();
        for side in Color::ALL {
            let Some(index) = moves.iter().rposition(|m| m.side == side) else {
                continue;
            };
            // The position before the move: replayed from the start (the record keeps moves).
            let mut before: Chess = game.start_position().clone();
            let mut legal = true;
            for m in &moves[..index] {
                match before.clone().play(m.mv) {
                    Ok(next) => before = next,
                    Err(_) => {
                        // A position set up by the arbiter: the moves no longer follow.
                        legal = false;
                        break;
                    }
                }
            }
            let record = &moves[index];
            let number = before.fullmoves();
            let san = match side {
                Color::White => format!("{number}. {}", record.san),
                Color::Black => format!("{number}... {}", record.san),
            };
            let words = if legal && before.is_legal(record.mv) {
                let words = MoveWords::new(&before, record.mv);
                self.wording[!side].words(&Announcement::Move(words)).text
            } else {
                String::new()
            };
            last.push(LastMove {
                side: side.to_string(),
                san,
                words,
            });
        }
        last
    }

    /// Offers and claims pending, in words.
    fn pending_words(&self) -> Vec<String> {
        let game = self.arbiter.game();
        let mut pending = Vec::new();
        if let Some(by) = game.draw_offer() {
            pending.push(format!("{by} offers a draw"));
        }
        if let Some(by) = game.quickplay_claim() {
            pending.push(format!("{by} claims a draw under 10.2; the arbiter rules"));
        }
        if game.result_awaits_arbiter() {
            pending.push("the result awaits the arbiter".to_string());
        }
        if game.clocks_to_confirm() {
            pending.push("the clocks await the arbiter after a retrace".to_string());
        }
        pending
    }

    /// The game's state in words.
    fn state_words(&self) -> String {
        let game = self.arbiter.game();
        if let Some(end) = game.end() {
            return format!("over: {} ({})", end.outcome, end.reason.describe());
        }
        if game.adjournment().is_some() {
            return "adjourned".to_string();
        }
        if game.is_over() || game.quickplay_claim().is_some() || game.clocks_to_confirm() {
            return "awaiting the arbiter".to_string();
        }
        if !self.arbiter.started() {
            return "not started".to_string();
        }
        if game.clock().is_some_and(|c| c.is_paused()) {
            return "paused".to_string();
        }
        "in play".to_string()
    }
}

/// The board's 64 squares, a8 to h1 rank by rank.
fn squares(board: &shakmaty::Board) -> String {
    let mut out = String::with_capacity(64);
    for rank in (0..8u32).rev() {
        for file in 0..8u32 {
            let sq = Square::new(rank * 8 + file);
            out.push(board.piece_at(sq).map_or('.', |p| p.char()));
        }
    }
    out
}
