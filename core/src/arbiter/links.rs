//! A board's link lost and back: both players hear it once, and a flapping cable (a board that
//! goes again within [`FLAP_WINDOW_MS`] of its last change) is not said each time: a cable
//! that keeps flapping is said once, however long it flaps, until it has been steady for the
//! window; a loss that lasts [`FLAP_SETTLE_MS`] is said then.

use shakmaty::Color;

use super::{Arbiter, Effect};
use crate::{
    announce::{Announcement, Audience},
    rules::Millis,
};

/// A board that comes back and goes again within this long of the last word about its link is
/// flapping (a loose cable): its losses are not said each time.
pub const FLAP_WINDOW_MS: Millis = 10_000;
/// A loss not said because the board was flapping is said once it has lasted this long.
pub const FLAP_SETTLE_MS: Millis = 3_000;

/// What was said about one board's link.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LinkNews {
    /// Its loss was said and its return not yet.
    pub(super) said_away: bool,
    /// When its loss or return was last said.
    pub(super) last_said: Option<Millis>,
    /// Away since then (not back yet).
    pub(super) away_since: Option<Millis>,
    /// When it last went or came back, said or not.
    pub(super) last_change: Option<Millis>,
}

impl LinkNews {
    /// When a loss that was not said (flapping) is to be said, if it lasts.
    pub(super) fn unsaid_loss_due(&self) -> Option<Millis> {
        match (self.said_away, self.away_since) {
            (false, Some(t)) => Some(t + FLAP_SETTLE_MS),
            _ => None,
        }
    }
}

impl Arbiter {
    /// `board`'s link went: its recogniser knows it cannot tell anything until it is back.
    pub(super) fn disconnected(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        if let Some(r) = self.recognizer(seat) {
            r.disconnected(now);
        }
        self.link_lost(seat, now, out);
    }

    /// `board`'s link is back: it is asked for a full reading.
    pub(super) fn connected(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        self.link_back(seat, now, out);
        out.push(Effect::RequestSnapshot { seat });
    }

    /// A loss not said because the board was flapping is said once it has lasted.
    pub(super) fn say_lasting_losses(&mut self, now: Millis, out: &mut Vec<Effect>) {
        for seat in self.seats() {
            if self.links[seat]
                .unsaid_loss_due()
                .is_some_and(|due| now >= due)
            {
                self.say_link_lost(seat, now, out);
            }
        }
    }

    /// A board's link went. Said at once, unless the board is flapping (it came back and went
    /// again within [`FLAP_WINDOW_MS`] of the last thing said about it): then it is said only if
    /// it stays away for [`FLAP_SETTLE_MS`].
    fn link_lost(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        let link = &mut self.links[seat];
        link.away_since = Some(now);
        let last_change = link.last_change.replace(now);
        if link.said_away {
            return;
        }
        // Flapping: it went within the window of the last word about it, or of its last change
        // (a cable that keeps flapping stays unsaid until it has been steady for the window).
        if link
            .last_said
            .max(last_change)
            .is_some_and(|t| now < t + FLAP_WINDOW_MS)
        {
            out.push(Effect::Note(format!(
                "{} board's link went again; said if it stays away",
                self.names().board(seat)
            )));
            return;
        }
        self.say_link_lost(seat, now, out);
    }

    fn say_link_lost(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        let link = &mut self.links[seat];
        link.said_away = true;
        link.last_said = Some(now);
        let which = self.names().which_board(seat);
        self.say(
            Audience::Both,
            Announcement::BoardDisconnected { board: which },
            out,
        );
    }

    /// A board's link is back: "reconnected" once, when its loss was said.
    fn link_back(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        let link = &mut self.links[seat];
        link.away_since = None;
        link.last_change = Some(now);
        if !link.said_away {
            return;
        }
        link.said_away = false;
        link.last_said = Some(now);
        let which = self.names().which_board(seat);
        self.say(
            Audience::Both,
            Announcement::BoardReconnected { board: which },
            out,
        );
    }
}
