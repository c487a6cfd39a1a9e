//! The DGT clock on the table: tactus's clock is the only clock. After every input the official
//! clock is handed to the sighted board's link as a [`ClockFace`] when it shows something else
//! than what was last handed over (a start, a move counted, an increment, a pause, an arbiter's
//! correction, a takeback, a flag, the end); the link's clock driver sets the physical clock.
//! What the driver reports (a clock not in its PC mode, gone) goes to the staff.
//!
//! The lever is a see-saw: pressing one side puts it down and raises the other, and the clock
//! reports which side is high (BWTIME's status bit 0x02: high on the right, so the LEFT player
//! pressed last). A change of the lever is a press of the side that went down. The sighted
//! player's press completes his move; the blind player's move counts without a press (F.3), so
//! when he does not press, the sighted player's side is still down when the sighted player has
//! moved: a press of the other side, the only one he can press, is then his press too, when his
//! board shows a move of his (in his turn, or a reply made ahead). The blind player's own press
//! (his move counts without it) is harmless and answered to nobody: the sighted player's board
//! then shows no move of his.
//!
//! A DGT 3000's display is the sighted player's second channel beside the speaker: the blind
//! player's move (short SAN) for a few seconds when it is announced, an offer or claim of his,
//! which flag fell, the result; then the times again.

use shakmaty::{Color, Position};

use super::{ClockSeat, Table, TableEffect};
use crate::{
    announce::{Announcement, Audience, ResultWords},
    arbiter::Input,
    board::{
        dgt_clock::{ClockFace, ClockNote},
        session::LinkCommand,
    },
    rules::Millis,
};

/// How long a move or an offer stays on the display before the times come back.
const TEXT_MS: Millis = 4000;
/// A flag or a result stays longer: it is what the table is about now.
const END_TEXT_MS: Millis = 15_000;

/// The clock on the sighted board, as the table keeps it.
#[derive(Debug, Clone)]
pub(super) struct TableClock {
    seat: ClockSeat,
    /// The face last handed to the link.
    last: Option<ClockFace>,
    /// When the official face changes without an input (the end of a delay).
    pub(super) changes: Option<Millis>,
    /// The lever as last read: high on the right.
    lever_right_high: Option<bool>,
}

impl TableClock {
    pub(super) fn new(seat: ClockSeat) -> TableClock {
        TableClock {
            seat,
            last: None,
            changes: None,
            lever_right_high: None,
        }
    }

    /// Whose side goes down when the lever reads `right_high`: high on the right means the left
    /// side is down.
    fn pressed(&self, right_high: bool) -> Color {
        if right_high {
            self.seat.left
        } else {
            !self.seat.left
        }
    }
}

impl Table {
    /// Show what the sighted player is told on the DGT 3000's display too: the blind player's
    /// move, his offer or claim, a flag, the result.
    pub(super) fn show_on_table_clock(
        &self,
        audience: Audience,
        announcement: &Announcement,
        out: &mut Vec<TableEffect>,
    ) {
        let Some(seat) = self.clock.as_ref().map(|c| c.seat.seat) else {
            return;
        };
        if !self.settings.links[seat] || !audience.includes(seat) {
            return;
        }
        // The clock's player reads what his opponent did.
        let blind = !seat;
        let german = self.wording[seat].pack().language().starts_with("de");
        let colour = |c: Color| match c {
            Color::White => "W",
            Color::Black if german => "S",
            Color::Black => "B",
        };
        let (text, for_ms) = match announcement {
            Announcement::Move(words) if words.side == blind => (words.san(), TEXT_MS),
            Announcement::DrawOffered { by } if *by == blind => {
                (if german { "Remis?" } else { "Draw?" }.to_string(), TEXT_MS)
            }
            Announcement::ClaimMade { by, .. } if *by == blind => {
                (if german { "Antrag" } else { "Claim" }.to_string(), TEXT_MS)
            }
            Announcement::FlagFell { side } => (
                format!("{} {}", if german { "Zeit" } else { "Flag" }, colour(*side)),
                END_TEXT_MS,
            ),
            Announcement::Result(result) => (
                match result {
                    ResultWords::WhiteWins => "1-0",
                    ResultWords::BlackWins => "0-1",
                    ResultWords::Draw => "1/2-1/2",
                }
                .to_string(),
                END_TEXT_MS,
            ),
            _ => return,
        };
        out.push(TableEffect::Link {
            seat,
            command: LinkCommand::ClockText { text, for_ms },
        });
    }

    /// Hand the official clock to the clock's link when it changed (after every input). The
    /// face's time is on the game's time line; the shell puts it on the link's.
    pub(super) fn sync_table_clock(&mut self, now: Millis, out: &mut Vec<TableEffect>) {
        let Some(table_clock) = &mut self.clock else {
            return;
        };
        let seat = table_clock.seat.seat;
        if !self.settings.links[seat] {
            return;
        }
        let Some(clock) = self.arbiter.game().clock() else {
            return;
        };
        let (face, changes) = ClockFace::official(clock, table_clock.seat.left, now);
        table_clock.changes = changes;
        if table_clock.last.is_some_and(|last| last.same_clock(&face)) {
            return;
        }
        table_clock.last = Some(face);
        out.push(TableEffect::Link {
            seat,
            command: LinkCommand::Clock(face),
        });
    }

    /// Whether a clock reading of `seat`'s board moves the lever (else it changes nothing).
    pub(super) fn lever_moved(&self, seat: Color, right_high: bool) -> bool {
        self.clock
            .as_ref()
            .is_some_and(|c| c.seat.seat == seat && c.lever_right_high != Some(right_high))
    }

    /// A reading of the lever: a change is the press of the player whose side went down.
    pub(super) fn lever(
        &mut self,
        seat: Color,
        right_high: bool,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) {
        let Some(table_clock) = &mut self.clock else {
            return;
        };
        if table_clock.seat.seat != seat {
            return;
        }
        let before = table_clock.lever_right_high.replace(right_high);
        // The first reading is where the arbiter put the lever: no press.
        if before.is_none_or(|b| b == right_high) {
            return;
        }
        let pressed = table_clock.pressed(right_high);
        let sighted = table_clock.seat.seat;
        if !table_clock.seat.lever_completes_move {
            tracing::debug!(
                ?pressed,
                "clock lever pressed; the board's rest completes moves"
            );
            return;
        }
        if pressed == sighted || self.sighted_move_shown(sighted) {
            // His own side; or the other, his own being down already, while his board shows a
            // move of his (in his turn, or a reply made ahead): the only side he could press.
            self.apply(Input::ClockPress, now, None, out);
        } else {
            // The blind player's press (his move counted when it was announced, F.3): nothing
            // to answer, to anyone.
            tracing::debug!(?pressed, "clock lever pressed; not a move's completion");
        }
    }

    /// Whether `sighted`'s board shows a move of his own, made in his turn or ahead of it (a
    /// reply to the blind player's move not counted yet): one of his pieces stands where the
    /// position he is to show has none, or is gone from where it should stand. His board only
    /// waiting for him to execute the blind player's move shows nothing of his own.
    fn sighted_move_shown(&self, sighted: Color) -> bool {
        let game = self.arbiter.game();
        if !self.arbiter.started() || game.is_over() {
            return false;
        }
        let Some(board) = self.arbiter.board(sighted) else {
            return false;
        };
        let (shown, expected) = (board.pieces(), board.expected().board());
        let his = |b: &shakmaty::Board, sq| b.piece_at(sq).is_some_and(|p| p.color == sighted);
        shakmaty::Square::ALL.into_iter().any(|sq| {
            (his(shown, sq) && expected.piece_at(sq).is_none())
                || (his(expected, sq) && !his(shown, sq))
        })
    }

    /// Whether a note of the clock's driver is taken in: the driver's readings against the
    /// official clock are for the log only.
    pub(super) fn clock_note_taken(&self, note: &ClockNote) -> bool {
        match note {
            ClockNote::Drift { left_ms, right_ms } => {
                // Said in words: the arbiter reads this line at the terminal.
                let side = |ms: &i64| {
                    let (sign, ms) = if *ms < 0 { ("-", -ms) } else { ("+", *ms) };
                    format!("{sign}{}", crate::rules::pgn::format_clk(ms))
                };
                tracing::warn!(
                    "the DGT clock drifted from the official clock (left {}, right {}); set \
                     right",
                    side(left_ms),
                    side(right_ms)
                );
                false
            }
            ClockNote::Offset { left_ms, right_ms } => {
                tracing::debug!(
                    left_ms,
                    right_ms,
                    "the DGT clock's reading against the official clock"
                );
                false
            }
            ClockNote::Ready { .. } | ClockNote::NotInPcMode | ClockNote::Absent => true,
        }
    }

    /// What the clock's driver reports, for the arbiter and the assistant. Nothing to hand over
    /// again: the link's driver keeps the newest face and sets a clock that is back to it.
    pub(super) fn clock_note(&mut self, note: ClockNote, out: &mut Vec<TableEffect>) {
        let text = match note {
            ClockNote::Ready { version } => {
                let version = version
                    .map(|(main, sub)| format!(" (version {main}.{sub})"))
                    .unwrap_or_default();
                tracing::info!("DGT clock ready{version}");
                format!("DGT clock connected{version}: tactus sets its times")
            }
            ClockNote::NotInPcMode => {
                tracing::warn!("the DGT clock refuses to be set: not in its PC mode");
                "the DGT clock refuses to be set: it is not in the mode in which a computer sets \
                 it (mode 23 on a DGT 3000 or XL; see its manual); switch it there and tactus \
                 sets it within seconds. Until then its times are not the game's"
                    .into()
            }
            ClockNote::Absent => {
                tracing::warn!("no DGT clock answers");
                "no DGT clock answers on the sighted board: check that the clock is switched on \
                 and its cable is in the board's clock socket; the official times are in `status`"
                    .into()
            }
            ClockNote::Drift { .. } | ClockNote::Offset { .. } => return,
        };
        self.note(text, None, out);
    }

    /// A new session (a restart): the clock is set afresh, its lever read afresh.
    pub(super) fn clock_anew(&mut self) {
        self.clock = self.settings.clock.map(TableClock::new);
    }
}
