//! F.6: a move announced wrongly may be corrected until the opponent's clock has started. The
//! blind player's corrected move is announced again and counts once it stands on his board; a
//! move entered for the sighted player is replaced before his press.

use shakmaty::Position;

use super::{Arbiter, BoardId, Effect, completion::PendingAnnouncement};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    board::recognize::Mode,
    rules::{Millis, notation},
};

impl Arbiter {
    /// F.6: a move announced wrongly may be corrected until the opponent's clock has started.
    pub(super) fn correct(&mut self, text: &str, now: Millis, out: &mut Vec<Effect>) {
        if self.pending_blind.is_none() && self.sighted_candidate.is_none() {
            out.push(Effect::Refused(
                "too late to correct: the opponent's clock has started (F.6)".into(),
            ));
            return;
        }
        let position = self.game.position().clone();
        let corrected = match notation::match_move(&position, text) {
            Ok(m) => m,
            Err(e) => {
                out.push(Effect::Refused(format!(
                    "'{text}' cannot be the corrected move: {e}"
                )));
                return;
            }
        };
        if let Some(pending) = self.pending_blind {
            out.push(Effect::Note(format!(
                "announcement corrected: {} instead of {}",
                notation::san(&position, corrected),
                notation::san(&position, pending.mv)
            )));
            let mut after = position.clone();
            after.play_unchecked(corrected);
            let id = self.say(
                Audience::Sighted,
                Announcement::Move(MoveWords::new(&position, corrected)),
                out,
            );
            // F.3 b: the corrected move counts once it stands on his board too; until then his
            // board is guided to it.
            self.pending_blind = Some(PendingAnnouncement {
                id,
                mv: corrected,
                announced: false,
                on_board: false,
            });
            let r = self.blind_board.set_expected(after, Mode::Hold, now);
            self.recognized(BoardId::Blind, r, now, out);
            self.board_caught_up(BoardId::Blind, now, out);
        } else {
            out.push(Effect::Note(format!(
                "entered move corrected to {}",
                notation::san(&position, corrected)
            )));
            self.sighted_candidate = Some(corrected);
        }
    }
}
