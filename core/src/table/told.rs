//! What each seat was told ([`Said`]): the announcements handed to speech and not finished yet
//! (the arbiter waits for the end of each: F.3 c, the opponent's clock starts once the move has
//! been announced), the table's own announcements (never inputs to the arbiter), what `repeat`
//! says again ([`Told`]), the reply said to a player one part after the other (a game read back,
//! a list of pieces: his next request or `stop` cuts it), how many announcements each player has
//! been handed (a refusal at his keypad that said nothing to him is then said), and the
//! announcements a restart left to say once the clocks run.
//!
//! Every announcement is shown where it is heard: to every console when both hear it, to the
//! staff's and the player's own keypad when he alone hears it (F.9 d: what a seat hears reaches
//! only that seat), and on the DGT 3000's display where the sighted player reads it.

use std::collections::{BTreeMap, VecDeque};

use shakmaty::{ByColor, Color};

use super::{Broadcast, KeypadLine, Table, TableEffect, Views};
use crate::{
    announce::{Announcement, Audience},
    arbiter::Input,
    rules::Millis,
};

/// Speech ids the table uses for its own announcements (replies, recovery words, a halt): far
/// above the arbiter's, so that the two never meet.
pub const OWN_SPEECH_BASE: u64 = 1 << 48;

/// What each seat was told, and what is still being said.
#[derive(Debug, Clone)]
pub(super) struct Said {
    /// The arbiter's announcements handed to speech and not finished yet, by id.
    in_flight: BTreeMap<u64, (Audience, Announcement)>,
    /// Announcements to say once the clocks run again (a restart cut them off).
    deferred: Vec<(u64, Audience, Announcement)>,
    /// The id of the table's next own announcement.
    next_own: u64,
    /// Each input is one step: what one step says to a player is one thing told (a move and
    /// the result it brings, the guidance for a board), repeated as one.
    step: u64,
    /// How many announcements each player has been handed: a refusal at his keypad that said
    /// nothing to him is said ("Jetzt nicht möglich").
    told: ByColor<u64>,
    /// What was last said to each blind player, for `repeat`.
    last_told: ByColor<Told>,
    /// Guidance announcements said so far to each player (for the simulated boards).
    guidance: ByColor<u64>,
    /// The rest of a reply said to a player one announcement after the other: the next goes
    /// when the one with this speech id has been said. A new request of his or `stop` drops it.
    reply: ByColor<Option<(u64, VecDeque<Announcement>)>>,
}

impl Default for Said {
    fn default() -> Self {
        Said {
            in_flight: BTreeMap::new(),
            deferred: Vec::new(),
            next_own: OWN_SPEECH_BASE,
            step: 0,
            told: ByColor::default(),
            last_told: ByColor::default(),
            guidance: ByColor::default(),
            reply: ByColor::default(),
        }
    }
}

impl Said {
    /// A new input: a new step.
    pub(super) fn next_step(&mut self) {
        self.step += 1;
    }

    /// How many announcements `seat`'s player has been handed.
    pub(super) fn told(&self, seat: Color) -> u64 {
        self.told[seat]
    }

    /// Guidance said so far to each player.
    pub(super) fn guidance(&self) -> ByColor<u64> {
        self.guidance
    }

    /// Announcements whose end is awaited, and those left to say.
    pub(super) fn speaking(&self) -> usize {
        self.in_flight.len() + self.deferred.len()
    }

    /// The announcements whose end never came: handed to speech and not finished, or left to
    /// say by a restart (what a restart now would find unsaid).
    pub(super) fn unfinished(&self) -> BTreeMap<u64, (Audience, Announcement)> {
        let mut all = self.in_flight.clone();
        all.extend(
            self.deferred
                .iter()
                .map(|(id, audience, said)| (*id, (*audience, said.clone()))),
        );
        all
    }

    /// Announcement `id` was said (an input applied as it stands: a journal of format 2).
    pub(super) fn finished(&mut self, id: u64) {
        self.in_flight.remove(&id);
    }

    /// Say these once the clocks run (a restart cut them off).
    pub(super) fn defer(&mut self, id: u64, audience: Audience, announcement: Announcement) {
        self.deferred.push((id, audience, announcement));
    }

    /// What `repeat` says to `seat`'s player.
    pub(super) fn last_told(&self, seat: Color, differs: bool, ply: usize) -> Vec<Announcement> {
        self.last_told[seat].last(differs, ply)
    }

    /// Whether something of the game is being said to `seat` (never cut by `stop`).
    fn game_speaking(&self, seat: Color) -> bool {
        self.in_flight.values().any(|(a, _)| a.includes(seat))
            || self.deferred.iter().any(|(_, a, _)| a.includes(seat))
    }

    /// A new session (a restart): nothing is being said, nothing is remembered to repeat.
    pub(super) fn begin_anew(&mut self) {
        let next_own = self.next_own;
        *self = Said {
            next_own,
            ..Said::default()
        };
    }
}

/// What was last said to a blind player, for `repeat`: the last thing said to him about the
/// game, and what was said about his board since, which holds only while his board is as it was
/// then. A guidance stays true until the board shows the game again (then `repeat` is the
/// game's news before it, not a correction already made), a touch until a move is made.
#[derive(Debug, Clone, Default)]
pub(super) struct Told {
    /// The game's last announcements to him, said in one step (a move and the result it brought,
    /// the recovery words).
    game: Vec<Announcement>,
    /// What was said about his board since, in one step (a move not possible and its guidance,
    /// a touch, a move out of turn).
    board: Vec<Announcement>,
    /// The half-move at which the board's words were said.
    board_ply: usize,
    /// The steps each was said at.
    game_step: u64,
    board_step: u64,
}

impl Told {
    /// `announcement` was said to him at `step`, at half-move `ply`.
    fn remember(&mut self, announcement: &Announcement, step: u64, ply: usize) {
        if about_his_board(announcement) {
            if self.board_step != step {
                self.board.clear();
            }
            self.board.push(announcement.clone());
            (self.board_step, self.board_ply) = (step, ply);
        } else {
            if self.game_step != step {
                self.game.clear();
            }
            self.game.push(announcement.clone());
            self.game_step = step;
            // The game's news is newer than any word about his board.
            self.board.clear();
        }
    }

    /// What `repeat` says: the words about his board while they hold (`differs`: his board
    /// still rests on another position than it should; `ply`: the half-moves now), else the
    /// game's.
    fn last(&self, differs: bool, ply: usize) -> Vec<Announcement> {
        let touches_only = self
            .board
            .iter()
            .all(|a| matches!(a, Announcement::Touched { .. }));
        let holds = !self.board.is_empty() && self.board_ply == ply && (differs || touches_only);
        if holds {
            self.board.clone()
        } else {
            self.game.clone()
        }
    }
}

/// Whether an announcement is about the blind player's board as it stands, not news of the game:
/// stale once the board is put right or a move is made.
fn about_his_board(announcement: &Announcement) -> bool {
    matches!(
        announcement,
        Announcement::IllegalMove
            | Announcement::Guidance(_)
            | Announcement::OutOfTurn
            | Announcement::MoveRequired { .. }
            | Announcement::Touched { .. }
    )
}

impl Table {
    /// An announcement of the arbiter's: its end is an input.
    pub(super) fn say_game(
        &mut self,
        id: u64,
        audience: Audience,
        announcement: Announcement,
        out: &mut Vec<TableEffect>,
    ) {
        if matches!(announcement, Announcement::Guidance(_)) {
            for seat in Color::ALL {
                if audience.includes(seat) {
                    self.said.guidance[seat] += 1;
                }
            }
        }
        self.said
            .in_flight
            .insert(id, (audience, announcement.clone()));
        self.speak(id, audience, announcement, true, out);
    }

    /// Hand an announcement to speech. `shown`: also tell the consoles that see what
    /// `audience` hears (`# said to ...`); a reply to a request is not shown (the console that
    /// asked has it in its reply), nor remembered for `repeat`.
    pub(super) fn speak(
        &mut self,
        id: u64,
        audience: Audience,
        announcement: Announcement,
        shown: bool,
        out: &mut Vec<TableEffect>,
    ) {
        let text = self.wording_for(audience).text(&announcement);
        self.show_on_table_clock(audience, &announcement, out);
        let names = self.arbiter.config().names();
        let word = names.audience(audience);
        for seat in Color::ALL {
            if audience.includes(seat) {
                self.said.told[seat] += 1;
            }
        }
        // `repeat` is for what he was told; his own move said back is not what he asks again,
        // and neither is a reply.
        if shown && !matches!(announcement, Announcement::OwnMove(_)) {
            let (step, ply) = (self.said.step, self.arbiter.game().ply());
            for seat in names.blind_seats() {
                if audience.includes(seat) {
                    self.said.last_told[seat].remember(&announcement, step, ply);
                }
            }
        }
        if shown {
            let line = format!("said to {word}: {text}");
            // A player's console shows what his ear hears.
            let views = match audience {
                Audience::Both => Views::Everyone,
                Audience::Player(seat) if names.is_blind(seat) => self.his_views(seat),
                Audience::Player(_) => Views::Staff,
            };
            // His keypad shows what his ear heard, in his words: at a table with two blind
            // players, what is said to both is said to each in his own language (what is said
            // to him alone is in his words already; the staff's lines reach no keypad).
            let keypad = names
                .blind_seats()
                .next()
                .filter(|_| views != Views::Staff)
                .map(|seatless| KeypadLine {
                    words: ByColor::new_with(|seat| match audience {
                        Audience::Both => self.wording[seat].text(&announcement),
                        Audience::Player(_) => text.clone(),
                    }),
                    seatless,
                });
            out.push(TableEffect::Broadcast(Broadcast {
                origin: None,
                text: line,
                to: views,
                keypad,
            }));
        }
        out.push(TableEffect::Say {
            id,
            audience,
            announcement,
            text,
        });
    }

    /// An announcement of the table's own (never an input to the arbiter). Returns its id.
    pub(super) fn say_own(
        &mut self,
        audience: Audience,
        announcement: Announcement,
        shown: bool,
        out: &mut Vec<TableEffect>,
    ) -> u64 {
        let id = self.said.next_own;
        self.said.next_own += 1;
        self.speak(id, audience, announcement, shown, out);
        id
    }

    /// A reply to `seat`'s player said one part after the other: the first now, the rest each
    /// when the one before has been heard to its end (see `speech_finished`).
    pub(super) fn say_reply(
        &mut self,
        seat: Color,
        mut parts: VecDeque<Announcement>,
        out: &mut Vec<TableEffect>,
    ) {
        self.said.reply[seat] = None;
        if let Some(part) = parts.pop_front() {
            let id = self.say_own(Audience::Player(seat), part, false, out);
            if !parts.is_empty() {
                self.said.reply[seat] = Some((id, parts));
            }
        }
    }

    /// A new request of `seat`'s player (or any key of his): what is left of his last reply is
    /// dropped. Returns whether there was any.
    pub(super) fn cut_reply(&mut self, seat: Color) -> bool {
        self.said.reply[seat].take().is_some()
    }

    /// `stop`: the reply being said to him is cut, unless something of the game is being said
    /// to him (a move, guidance: never cut; the rest of the reply is dropped all the same, and
    /// the part being said ends by itself).
    pub(super) fn silence_reply(&mut self, seat: Color, out: &mut Vec<TableEffect>) {
        if !self.said.game_speaking(seat) {
            out.push(TableEffect::Silence {
                audience: Audience::Player(seat),
            });
        }
    }

    /// Speech finished announcement `id`: the next part of a reply heard to its end, and for
    /// an announcement of the arbiter's, its end (a move counts once announced, F.3 c).
    pub(super) fn speech_finished(
        &mut self,
        id: u64,
        cut: bool,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) {
        if let Some(seat) = Color::ALL.into_iter().find(|&c| {
            self.said.reply[c]
                .as_ref()
                .is_some_and(|(playing, _)| *playing == id)
        }) {
            let rest = self.said.reply[seat]
                .take()
                .map(|(_, rest)| rest)
                .unwrap_or_default();
            if !cut {
                self.say_reply(seat, rest, out);
            }
        }
        if self.said.in_flight.remove(&id).is_some() {
            self.apply(Input::SpeechFinished { id }, now, None, out);
        }
    }

    /// Whether the table awaits the end of announcement `id` (the arbiter's, or a part of a
    /// reply): a speech event for another is stale and changes nothing.
    pub(super) fn awaits_speech(&self, id: u64) -> bool {
        self.said.in_flight.contains_key(&id)
            || self
                .said
                .reply
                .iter()
                .flatten()
                .any(|(playing, _)| *playing == id)
    }

    /// The announcements a restart cut off, once the clocks run again (said as the arbiter's:
    /// their end is an input).
    pub(super) fn say_deferred(&mut self, out: &mut Vec<TableEffect>) {
        if !self.clocks_paused() && !self.said.deferred.is_empty() {
            for (id, audience, announcement) in std::mem::take(&mut self.said.deferred) {
                self.said
                    .in_flight
                    .insert(id, (audience, announcement.clone()));
                self.speak(id, audience, announcement, true, out);
            }
        }
    }
}
