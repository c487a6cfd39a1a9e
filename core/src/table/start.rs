//! The start of play. Before it the boards are guided to the starting position (the arbiter's
//! recognisers hold it: no move, no "illegal move", no clock); play starts at the arbiter's
//! `start` at the console once every board with sensors shows the position (`start anyway` over
//! a board that cannot be put right), or by itself then where the table is set up so
//! (`game.start = "boards"`: a club evening without an arbiter, a training game at home). The
//! arbiter makes the start; this duty decides only whether the table is ready for it
//! ([`StartGate`]). A resumed game has started already: its clocks stand until the arbiter's
//! `resume`.

use shakmaty::Position;

use super::{Table, TableEffect};
use crate::{
    announce::count,
    arbiter::Input,
    console::{Action, Command, Role, wire::Reply},
    rules::Millis,
};

/// What the start of play waits for, as the staff were told it.
#[derive(Debug, Clone, Default)]
pub(super) struct StartGate {
    /// The staff were told that every board shows the position and `start` may be typed (told
    /// again after a board that differed again is put right).
    ready_told: bool,
}

impl Table {
    /// What keeps play from starting: each board with sensors that is not connected, not read
    /// yet, or does not show the position, in words for the console. Empty: ready.
    pub(super) fn start_blockers(&self) -> Vec<String> {
        let mut blockers = Vec::new();
        let names = self.arbiter.config().names();
        for seat in self.seat_order() {
            if !self.settings.sensors[seat] {
                continue;
            }
            let link = self.boards.link(seat);
            let name = names.board(seat);
            if !link.connected {
                blockers.push(format!("the {name} board is not connected"));
            } else if !link.read {
                blockers.push(format!("the {name} board has not been read yet"));
            } else if let Some(r) = self.arbiter.board(seat)
                && !r.shows_expected()
            {
                let diff = r.diff(r.expected().board());
                let squares: Vec<String> =
                    diff.squares.iter().map(|d| d.square.to_string()).collect();
                blockers.push(format!(
                    "the {name} board differs from the position on {}: {}",
                    count(squares.len(), "square", "squares"),
                    squares.join(" ")
                ));
            }
        }
        blockers
    }

    /// Whether play is still to start (not started, no result).
    pub(super) fn before_start(&self) -> bool {
        !self.arbiter.started() && !self.has_result()
    }

    /// After a board event: start play where the boards start it and they are ready; tell the
    /// staff when the table becomes ready for the arbiter's `start`.
    pub(super) fn maybe_start(&mut self, now: Millis, out: &mut Vec<TableEffect>) {
        if !self.before_start() {
            return;
        }
        let ready = self.start_blockers().is_empty();
        self.note_set_up(ready, out);
        if !ready {
            self.start.ready_told = false;
            return;
        }
        if self.settings.start_by_boards {
            tracing::info!("both boards show the position: play starts");
            self.apply(Input::Start, now, None, out);
        } else if !std::mem::replace(&mut self.start.ready_told, true) {
            self.note(
                "every board shows the starting position: `start` starts play and the clocks"
                    .into(),
                None,
                out,
            );
        }
    }

    /// The console's `start` (the arbiter's or the assistant's): refused while a board is not
    /// ready, unless the arbiter's `start anyway`, so that no clock runs over a board set up
    /// wrongly unless the arbiter rules so. `None`:
    /// not a start; the command goes to the arbiter as any other.
    pub(super) fn start_command(
        &mut self,
        role: Role,
        command: &Command,
        out: &mut Vec<TableEffect>,
    ) -> Option<Reply> {
        let Command::Game(Action::Start { anyway }) = command else {
            return None;
        };
        if !self.before_start() {
            // The arbiter answers (the game has started, or is over).
            return None;
        }
        let blockers = self.start_blockers();
        if blockers.is_empty() {
            return None;
        }
        if !anyway {
            return Some(Reply::error(format!(
                "play does not start yet: {}; the board is guided to the position (or the \
                 arbiter's `start anyway` starts it as it stands)",
                blockers.join("; ")
            )));
        }
        if role < Role::Arbiter {
            // Starting the clocks over a position a board does not show is a ruling: a player
            // could then be told his first move is not possible for a set-up he did not make.
            return Some(Reply::error(format!(
                "only the arbiter starts play over a board that differs ({}); ask him, or let \
                 the board be set up",
                blockers.join("; ")
            )));
        }
        self.note(
            format!("{role} starts play although {}", blockers.join("; ")),
            None,
            out,
        );
        None
    }
}
