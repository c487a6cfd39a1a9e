//! Adjourned games at the table: a move is sealed only while no move waits to count on a board,
//! and when the envelope is opened the sealed move is said to both players and made on both
//! boards (an invalid one loses).

use shakmaty::Color;

use super::{Arbiter, Effect};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    board::recognize::Mode,
    rules::{Millis, game},
};

impl Arbiter {
    /// The arbiter has a move sealed (adjourned games).
    pub(super) fn seal(&mut self, by: Color, text: String, now: Millis, out: &mut Vec<Effect>) {
        if self.pending.is_some() || self.sighted_candidate.is_some() || self.held.is_some() {
            // A move already made on a board is the sealed move (adjourned games); let it count
            // or correct it first.
            out.push(Effect::Refused(
                "not sealed: a move stands on a board and waits to count; let it count (press \
                 the clock, finish the announcement) or correct it first"
                    .into(),
            ));
            return;
        }
        self.rules(game::Input::Seal { by, text }, now, out);
    }

    /// Resumption: the envelope is opened. The sealed move is said to both players and made on
    /// both boards (the position before it was set up on them); an invalid one loses.
    pub(super) fn open_envelope(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let before = self.game.position().clone();
        let ply = self.game.ply();
        let mut consequences = Vec::new();
        if !self.rules(game::Input::OpenEnvelope, now, &mut consequences) {
            out.extend(consequences);
            return;
        }
        self.say(Audience::Both, Announcement::EnvelopeOpened, out);
        let played = (self.game.ply() > ply).then(|| self.game.moves()[ply].mv);
        let Some(mv) = played else {
            // Invalid: the announcement and the result are in the consequences.
            out.extend(consequences);
            self.set_modes(now, out);
            return;
        };
        self.say(
            Audience::Both,
            Announcement::Move(MoveWords::new(&before, mv)),
            out,
        );
        out.extend(consequences);
        // Neither board shows the sealed move yet: each player's board waits for it (a blind
        // player makes it himself, whoever sealed it).
        for seat in self.seats() {
            if let Some(board) = self.recognizer(seat) {
                let r = board.set_expected(before.clone(), Mode::Execute(mv), now);
                self.recognized(seat, r, now, out);
            }
        }
    }
}
