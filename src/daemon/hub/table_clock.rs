//! The DGT clock on the table (issue 22): tactus's clock is the only clock. After every input the
//! official clock is handed to the sighted board's link as a [`ClockFace`] when it shows
//! something else than what was last handed over (a start, a move counted, an increment, a
//! pause, an arbiter's correction, a takeback, a flag, the end); the link's clock driver sets the
//! physical clock. The lever is the press of the player on the side it was pressed on: the
//! sighted player's completes his move, the blind player's (his move already counted when it
//! was announced, F.3) is harmless and answered to nobody. What the driver reports (a clock not
//! in its PC mode, gone, set right) goes to the arbiter's and assistant's consoles.
//!
//! A DGT 3000's display is the sighted player's second channel beside the speaker: the blind
//! player's move (short SAN) for a few seconds when it is announced, an offer or claim of his,
//! which flag fell, the result; then the times again.

use shakmaty::Color;
use tracing::{debug, info, warn};

use super::Hub;
use crate::daemon::link::LinkCommand;
use tactus_core::{
    announce::{Announcement, Audience, ResultWords},
    arbiter::Input,
    board::dgt_clock::{ClockFace, ClockNote},
    rules::Millis,
};

/// The clock on the sighted board, as the hub keeps it.
#[derive(Debug, Clone)]
pub(super) struct TableClock {
    /// The seat whose board the clock is plugged into (the sighted player's).
    pub(super) seat: Color,
    /// The colour of the player on the clock's left.
    left: Color,
    /// The face last handed to the link.
    last: Option<ClockFace>,
    /// When the official face changes without an input (the end of a delay).
    pub(super) changes: Option<Millis>,
    /// The lever as last read: high on the right.
    lever_right_high: Option<bool>,
}

impl TableClock {
    pub(super) fn new(seat: Color, left: Color) -> TableClock {
        TableClock {
            seat,
            left,
            last: None,
            changes: None,
            lever_right_high: None,
        }
    }
}

/// How long a move or an offer stays on the display before the times come back.
const TEXT_MS: Millis = 4000;
/// A flag or a result stays longer: it is what the table is about now.
const END_TEXT_MS: Millis = 15_000;

impl Hub {
    /// Show what the sighted player is told on the DGT 3000's display too: the blind player's
    /// move, his offer or claim, a flag, the result.
    pub(super) fn show_on_table_clock(&mut self, audience: Audience, announcement: &Announcement) {
        let Some(seat) = self.table_clock.as_ref().map(|c| c.seat) else {
            return;
        };
        let Some(link) = &self.links[seat] else {
            return;
        };
        if !audience.includes(seat) {
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
        if let Err(e) = link.try_send(LinkCommand::ClockText { text, for_ms }) {
            debug!("clock text not handed to the link: {e}");
        }
    }

    /// Hand the official clock to the clock's link when it changed (called after every input).
    pub(super) fn sync_table_clock(&mut self) {
        let Some(table_clock) = &mut self.table_clock else {
            return;
        };
        let Some(link) = &self.links[table_clock.seat] else {
            return;
        };
        let Some(clock) = self.arbiter.game().clock() else {
            return;
        };
        let game_now = self.last_t.max(self.clock.now());
        let (mut face, changes) = ClockFace::official(clock, table_clock.left, game_now);
        table_clock.changes = changes;
        // The link counts on its own time line (the game's less a resumed game's offset).
        let link_now = game_now.saturating_sub(self.clock.offset);
        face.at = link_now;
        let same = table_clock.last.is_some_and(|last| last.same_clock(&face));
        if same {
            return;
        }
        match link.try_send(LinkCommand::Clock(face)) {
            Ok(()) => table_clock.last = Some(face),
            // The link's queue is full: the next input tries again.
            Err(e) => debug!("clock face not handed to the link yet: {e}"),
        }
    }

    /// A lever change on the clock: the press of the player on the side that went down.
    pub(super) fn lever(&mut self, lever_right_high: bool, t: Millis) {
        let Some(table_clock) = &mut self.table_clock else {
            return;
        };
        let before = table_clock.lever_right_high.replace(lever_right_high);
        if before.is_none_or(|b| b == lever_right_high) {
            return;
        }
        let presser = if lever_right_high {
            !table_clock.left
        } else {
            table_clock.left
        };
        let sighted = table_clock.seat;
        if presser == sighted && self.lever_completes_move {
            self.accept(Input::ClockPress, t, None);
        } else {
            // The blind player's press (his move counted when it was announced), or a lever that
            // does not complete moves here: nothing to answer, to anyone.
            debug!(?presser, "clock lever pressed; not a move's completion");
        }
    }

    /// What the clock's driver reports, for the arbiter and the assistant.
    pub(super) fn clock_note(&mut self, note: ClockNote) {
        match note {
            ClockNote::Ready { version } => {
                let version = version
                    .map(|(main, sub)| format!(" (version {main}.{sub})"))
                    .unwrap_or_default();
                info!("DGT clock ready{version}");
                self.note(
                    format!("DGT clock connected{version}: tactus sets its times"),
                    None,
                );
            }
            ClockNote::NotInPcMode => {
                warn!("the DGT clock refuses to be set: not in its PC mode");
                self.note(
                    "the DGT clock refuses to be set: it is not in the mode in which a computer \
                     sets it (mode 23 on a DGT 3000 or XL; see its manual); switch it there and \
                     tactus sets it within seconds. Until then its times are not the game's"
                        .into(),
                    None,
                );
            }
            ClockNote::Absent => {
                warn!("no DGT clock answers");
                self.note(
                    "no DGT clock answers on the sighted board: check that the clock is switched \
                     on and its cable is in the board's clock socket; the official times are in \
                     `status`"
                        .into(),
                    None,
                );
            }
            ClockNote::Drift { left_ms, right_ms } => {
                warn!(
                    left_ms,
                    right_ms, "the DGT clock drifted from the official clock; set right"
                );
            }
            ClockNote::Offset { left_ms, right_ms } => {
                debug!(
                    left_ms,
                    right_ms, "the DGT clock's reading against the official clock"
                );
            }
        }
        // Nothing to hand over again: the link's driver keeps the newest face and sets a clock
        // that is back or drifted to it itself.
    }
}
