//! What the table reports of the game: the console's `status` (the position, whose move, the
//! clocks, the boards, a halt, an adjournment, the result), and the [`Progress`] the simulated
//! boards, the demo and tests watch.

use shakmaty::{ByColor, Chess, Color, EnPassantMode, Position, fen::Fen};

use super::Table;
use crate::{
    arbiter::Arbiter,
    board::recognize::Mode,
    rules::{Millis, pgn::format_clk},
};

/// Where the game stands, for the simulated boards (which cannot hear speech and act as the
/// players would on what they heard), the demo and tests.
#[derive(Debug, Clone)]
pub struct Progress {
    pub ply: usize,
    pub position: Chess,
    /// What each seat's board should show and what is expected of it.
    pub expected: ByColor<Chess>,
    /// What each board shows as its recogniser sees it (a player watching the other's board).
    pub shown: ByColor<shakmaty::Board>,
    pub modes: ByColor<Mode>,
    pub started: bool,
    /// Before the start: every board with sensors shows the position (the arbiter may type
    /// `start`).
    pub ready: bool,
    pub paused: bool,
    pub over: bool,
    /// Guidance announcements said so far to each player.
    pub guidance: ByColor<u64>,
    /// Announcements handed to speech and not yet finished.
    pub speaking: usize,
    pub connected: ByColor<bool>,
}

impl Progress {
    /// Where a game held by `arbiter` stands, as far as the arbiter alone tells (nothing said,
    /// no board connected yet).
    pub fn of(arbiter: &Arbiter) -> Progress {
        let game = arbiter.game();
        Progress {
            ply: game.ply(),
            position: game.position().clone(),
            expected: ByColor::new_with(|seat| {
                arbiter
                    .board(seat)
                    .map_or_else(|| game.position().clone(), |r| r.expected().clone())
            }),
            shown: ByColor::new_with(|seat| {
                arbiter
                    .board(seat)
                    .map_or_else(|| game.position().board().clone(), |r| r.pieces().clone())
            }),
            modes: ByColor::new_with(|seat| arbiter.board(seat).map_or(Mode::Hold, |r| r.mode())),
            started: arbiter.started(),
            ready: false,
            paused: game.clock().is_some_and(|c| c.is_paused()),
            over: game.is_over(),
            guidance: ByColor::default(),
            speaking: 0,
            connected: ByColor::default(),
        }
    }
}

impl Table {
    /// Where the game stands, for the simulated boards and the demo.
    pub fn progress(&self) -> Progress {
        let mut p = Progress::of(&self.arbiter);
        p.ready = !p.started && self.start_blockers().is_empty();
        p.guidance = self.said.guidance();
        p.speaking = self.said.speaking();
        p.connected = self.boards.connected();
        p
    }

    /// `status`: the position, whose move, the clocks, the boards. `files`: the shell's lines
    /// about the game's files that are not being written (the arbiter must know while it lasts),
    /// put after the halt's.
    pub fn status_lines(&self, now: Millis, files: Vec<String>) -> Vec<String> {
        let game = self.arbiter.game();
        let pos = game.position();
        let mut lines = vec![
            format!("position {}", Fen::from_position(pos, EnPassantMode::Legal)),
            format!(
                "ply {}, move {}, {} to move",
                game.ply(),
                pos.fullmoves(),
                pos.turn()
            ),
        ];
        if let Some(last) = game.moves().last() {
            lines.push(format!("last move {}", last.san));
        }
        match game.clock() {
            Some(clock) => {
                let state = if clock.is_paused() {
                    "paused".to_string()
                } else {
                    match clock.running() {
                        Some(side) => format!("{side} running"),
                        None => "stopped".to_string(),
                    }
                };
                lines.push(format!(
                    "clocks white {} black {} ({state})",
                    format_clk(clock.remaining(Color::White, now)),
                    format_clk(clock.remaining(Color::Black, now))
                ));
                // Rapid and blitz: a fallen flag stands until it is claimed.
                if !game.is_over() {
                    for side in [Color::White, Color::Black] {
                        if clock.flag_fallen(side, now) {
                            lines.push(format!(
                                "{side}'s flag has fallen; the game goes on until {} claims it",
                                !side
                            ));
                        }
                    }
                }
            }
            None => lines.push("clocks none".into()),
        }
        let board_state = |seat: Color| {
            if !self.settings.sensors[seat] {
                "manual"
            } else if self.boards.link(seat).connected {
                "connected"
            } else {
                "not connected"
            }
        };
        let names = self.arbiter.config().names();
        let boards: Vec<String> = self
            .seat_order()
            .into_iter()
            .map(|seat| format!("{} {}", names.board(seat), board_state(seat)))
            .collect();
        lines.push(format!("boards {}", boards.join(", ")));
        // A request the arbiter switched off is an exception the staff must see (12.3 a).
        if !self.requests.off().is_empty() {
            lines.push(self.requests.line());
        }
        // Play halted for the journal: first, the arbiter must know while it lasts.
        lines.extend(self.halt_status(now));
        lines.extend(files);
        if let Some(adjourned) = game.adjournment() {
            lines.push(format!(
                "adjourned: {} sealed move {}{}; resumption {}",
                adjourned.by,
                adjourned.move_number,
                if adjourned.replier_clock_started {
                    ", the replier's clock runs, the envelope is closed"
                } else {
                    ""
                },
                adjourned.resumption.as_deref().unwrap_or("not fixed yet")
            ));
        }
        match game.end() {
            Some(end) => lines.push(format!(
                "result {} ({})",
                end.outcome,
                end.reason.describe()
            )),
            None if self.arbiter.started() => lines.push("in play".into()),
            None => {
                let blockers = self.start_blockers();
                lines.push(if blockers.is_empty() {
                    if self.settings.start_by_boards {
                        "in play (not started)".into()
                    } else {
                        "in play (not started: the boards show the position; `start` starts it)"
                            .into()
                    }
                } else {
                    format!("in play (not started: {})", blockers.join("; "))
                });
            }
        }
        lines
    }

    /// `status` as the table alone knows it (the shell adds its files: [`Table::status_lines`]).
    pub(super) fn status(&self, now: Millis) -> Vec<String> {
        self.status_lines(now, Vec::new())
    }
}
