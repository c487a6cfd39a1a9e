//! Move intake: what the recognisers report from the boards (touches, lifts, completed moves,
//! promotions, differences), moves entered at the console for the sighted player, and what
//! becomes of a move the game cannot take yet (held until play goes on) or refuses (said to be
//! impossible, its board guided back). When a move counts is `completion`'s.

use shakmaty::{ByColor, Color, Move, Position, Role, Square};

use super::{Arbiter, Effect, PendingAnnouncement, touch, touch::describe};
use crate::{
    announce::{Announcement, Audience, MoveWords, count},
    board::{
        SensorEvent,
        recognize::{Mode, Recognized, Recognizer},
    },
    rules::{Millis, game, notation},
};

/// A move made while the game could not take one (clocks paused, 6.12; a 10.2 claim or a
/// result awaiting the arbiter): it counts when play goes on, unless the arbiter takes it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Held {
    /// Whose move it is.
    pub(super) seat: Color,
    pub(super) mv: Move,
    /// A blind player's move was already announced to his opponent.
    pub(super) announced: bool,
}

impl Arbiter {
    /// A sensor event from `seat`'s board, through its recogniser (none for a board without
    /// sensors).
    pub(super) fn board_event(
        &mut self,
        seat: Color,
        event: SensorEvent,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let recognized = match self.recognizer(seat) {
            Some(r) => r.event(event, now),
            None => Vec::new(),
        };
        self.recognized(seat, recognized, now, out);
        self.board_caught_up(seat, now, out);
    }

    /// A move typed at the console for the sighted player: it counts at his clock press.
    pub(super) fn enter_move(&mut self, text: &str, out: &mut Vec<Effect>) {
        if self.game.adjournment().is_some() {
            out.push(Effect::Refused(format!(
                "'{text}' not entered: the game is adjourned; the sealed move is made when the \
                 arbiter opens the envelope"
            )));
            return;
        }
        let Some(sighted) = self.cfg.the_sighted() else {
            out.push(Effect::Refused(format!(
                "'{text}' not entered: both players are blind and make their moves on their own \
                 boards"
            )));
            return;
        };
        if self.game.to_move() != sighted || self.game.is_over() {
            out.push(Effect::Refused(format!(
                "'{text}' not entered: it is not the sighted player's move"
            )));
            return;
        }
        match notation::match_move(self.game.position(), text) {
            Ok(m) if self.game.must_play().is_some_and(|required| required != m) => {
                // The assistant types for the sighted player: the console's error tells him,
                // and the player hears which move he must make.
                let required = self.game.must_play().unwrap_or(m);
                out.push(Effect::Refused(format!(
                    "'{text}' not entered: after the incorrect claim the intended move {} must \
                     be played (9.5 b)",
                    notation::san(self.game.position(), required)
                )));
                let words = MoveWords::new(self.game.position(), required);
                self.say(
                    Audience::Player(sighted),
                    Announcement::MoveRequired { mv: words },
                    out,
                );
            }
            Ok(m) => {
                let san = notation::san(self.game.position(), m);
                out.push(Effect::Note(if self.config().seats[sighted].engine {
                    format!("the engine plays {san}")
                } else {
                    format!("{san} entered; it counts when the clock is pressed")
                }));
                self.sighted_candidate = Some(m);
                self.opponent_moved(sighted);
            }
            Err(e) => out.push(Effect::Refused(format!("'{text}' not entered: {e}"))),
        }
    }

    /// The piece a blind player says for his promotion: the promotion waiting on the board of
    /// the player to move, else one made ahead on the other blind player's board.
    pub(super) fn promote(&mut self, role: Role, now: Millis, out: &mut Vec<Effect>) {
        let to_move = self.game.to_move();
        let order = [to_move, !to_move];
        for seat in order {
            if !self.is_blind(seat) {
                continue;
            }
            let Some(board) = self.recognizer(seat) else {
                continue;
            };
            let recognized = board.promotion(role, now);
            if !recognized.is_empty() {
                self.recognized(seat, recognized, now, out);
                self.board_caught_up(seat, now, out);
                return;
            }
        }
        let ahead = order.into_iter().find(|&seat| {
            self.is_blind(seat) && self.board(seat).is_some_and(|b| b.shows_promotion_ahead())
        });
        match ahead {
            Some(seat) => {
                // He promoted on his board ahead of the opponent's move being counted: the piece
                // he said stands for that promotion once it is his move.
                self.promotion_ahead[seat] = Some(role);
                out.push(Effect::Note(format!(
                    "promotion piece {role:?} noted: it counts for the {} player's promotion once \
                     his move is recognised",
                    self.names().player(seat)
                )));
            }
            None => {
                let left = self.promotion_left[to_move]
                    .filter(|&(_, ply)| ply == self.game.ply() && self.is_blind(to_move));
                let why = match left {
                    Some((square, _)) => format!(
                        "no promotion is waiting for its piece: the {} player released his pawn \
                         on {square} and took it off again; under 4.6 c he may no longer play it \
                         to another square: once it stands on {square} again, `promote` names \
                         its piece",
                        self.names().player(to_move)
                    ),
                    None => "no promotion is waiting for its piece".into(),
                };
                out.push(Effect::Refused(why));
            }
        }
    }

    pub(super) fn recognized(
        &mut self,
        seat: Color,
        recognized: Vec<Recognized>,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        for r in recognized {
            match r {
                Recognized::Touched { square, piece } if self.adjusting(seat, square) => {
                    // 4.2: announced as an adjustment, so it is no touch (and rejects no offer).
                    out.push(Effect::Note(format!(
                        "{} player adjusted {}",
                        self.names().player(seat),
                        describe(square, piece)
                    )));
                }
                Recognized::Touched { square, piece } => {
                    // F.9 e: the assistant can see when the sighted player touched a piece.
                    let noted = !self.is_blind(seat);
                    self.record_touch(seat, square, piece, noted, out);
                    if piece.is_some() {
                        self.touch_to_rules(seat, square, now, out);
                    }
                }
                Recognized::Lifted { square, piece } => {
                    if self.touched_while_executing(seat, square, piece) {
                        // F.2 holds while he executes the opponent's move too: lifting one of
                        // his own pieces that the move does not involve is a touch, and he has
                        // the move.
                        self.record_touch(seat, square, piece, true, out);
                        let ply = self.game.ply();
                        match &mut self.early_touches[seat] {
                            Some((at, squares)) if *at == ply => squares.push(square),
                            slot => *slot = Some((ply, vec![square])),
                        }
                        self.touch_to_rules(seat, square, now, out);
                    } else {
                        out.push(Effect::Touch {
                            seat,
                            square,
                            piece,
                        });
                    }
                }
                Recognized::MoveCompleted { mv, touches } => {
                    self.move_completed(seat, mv, &touches, now, out)
                }
                Recognized::PromotionPending { to, .. } => {
                    if self.is_blind(seat)
                        && let Some(role) = self.promotion_ahead[seat].take()
                        && let Some(board) = self.recognizer(seat)
                    {
                        let r = board.promotion(role, now);
                        self.recognized(seat, r, now, out);
                    } else {
                        out.push(Effect::Note(format!(
                            "promotion on {to}: the player announces the piece; enter it with \
                             `promote q|r|b|n`"
                        )));
                    }
                }
                Recognized::PromotionLeft { to, .. } => {
                    // Only his own move's promotion: the board's mode makes that so.
                    self.promotion_left[seat] = Some((to, self.game.ply()));
                    out.push(Effect::Note(format!(
                        "possible claim (Art. 4.6 c): {} released the pawn on {to} to promote \
                         it, then took it off again: the move is not made, but he may no longer \
                         play the pawn to another square",
                        self.names().player(seat)
                    )));
                }
                Recognized::Executed => {
                    self.differing[seat] = None;
                    // The other player's move now stands on this board: its player is to move.
                    // A board that still has to make the move (both do after a sealed move)
                    // keeps waiting for it.
                    let other = self.board(!seat).map(Recognizer::mode);
                    let other_executes = matches!(other, Some(Mode::Execute(_)));
                    let boards = ByColor::new_with(|c| c == seat || !other_executes);
                    self.set_modes_of(boards, now, out);
                }
                Recognized::Differs(diff) => self.differs(seat, diff, now, out),
                Recognized::Matches => {
                    self.differing[seat] = None;
                    out.push(Effect::Note(format!(
                        "{} board matches the game again",
                        self.names().board(seat)
                    )));
                }
                Recognized::SnapshotCorrected { squares } => {
                    out.push(Effect::Note(format!(
                        "{} board: a full reading changed {}",
                        self.names().board(seat),
                        count(squares.count(), "square", "squares")
                    )));
                }
                Recognized::RequestSnapshot => out.push(Effect::RequestSnapshot { seat }),
                Recognized::OutOfTurn { mv } => self.out_of_turn(seat, mv, out),
                Recognized::NoMove => {
                    self.press_pending = false;
                    self.refuse_press(
                        seat,
                        "clock pressed, but no completed move stands on the sighted board; his \
                         clock runs on",
                        out,
                    );
                }
            }
        }
    }

    fn move_completed(
        &mut self,
        seat: Color,
        mv: Move,
        touches: &[Square],
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let before = self.game.position().clone();
        if !before.is_legal(mv) || self.game.to_move() != seat {
            // Cannot happen while the modes follow the game; never act on it, and guide the
            // board back to the game.
            out.push(Effect::Note(format!(
                "{} board: ignored a move out of turn",
                self.names().board(seat)
            )));
            self.put_back(seat, now, out);
            return;
        }
        // Made before his opponent's move, its piece standing where he put it then: no move.
        // He makes it again in his own time (put there again once his turn has come, it is).
        let placed_before = self
            .board(seat)
            .is_some_and(Recognizer::last_move_placed_before_turn);
        if self.premoved[seat].take() == Some(mv) && placed_before {
            self.say(Audience::Player(seat), Announcement::OutOfTurn, out);
            out.push(Effect::Refused(format!(
                "{} player's {} was made before his opponent's move: it is not a move (1.1: the \
                 players move alternately); his board is guided back and he moves again in his \
                 own time",
                self.names().player(seat),
                notation::san(&before, mv)
            )));
            self.put_back(seat, now, out);
            return;
        }
        self.differing[seat] = None;
        self.opponent_moved(seat);
        // His own pieces lifted while he executed the opponent's move count first (F.2); a piece
        // adjusted with j'adoube was not touched (4.2).
        let early = match std::mem::take(&mut self.early_touches[seat]) {
            Some((ply, squares)) if ply == self.game.ply() => squares,
            _ => Vec::new(),
        };
        let touches: Vec<Square> = early
            .iter()
            .chain(touches)
            .copied()
            .filter(|&sq| !self.adjusting(seat, sq))
            .collect();
        self.adjusting = None;
        self.tell_touches(seat, Some(mv), out);
        // Art. 4.3, 4.4, 4.6: what the touches may give the opponent to claim. The arbiter
        // rules only on a claim (4.7): reported, and the game goes on.
        for claim in touch::possible_claims(&before, mv, &touches) {
            out.push(Effect::Note(claim));
        }
        match self.check_move(mv, now) {
            Ok(()) => {}
            Err(e) if holds(&e) => {
                self.hold(seat, mv, false, &e, out);
                return;
            }
            Err(e) => {
                self.refuse_move(seat, mv, &e, now, out);
                return;
            }
        }
        if self.is_blind(seat) {
            self.announce_blind(seat, mv, out);
        } else {
            // His move counts when he presses his clock; the recogniser reports it only then
            // (or without a press when it ends the game, 5.1 a, 5.2).
            self.press_pending = false;
            self.complete_sighted(seat, mv, now, out);
        }
    }

    /// Whether the game would take `mv` now (the rules decide, on a copy).
    pub(super) fn check_move(&self, mv: Move, now: Millis) -> Result<(), game::RulesError> {
        self.game
            .clone()
            .apply(game::Input::Move(mv), now)
            .map(|_| ())
    }

    /// A move made while the game cannot take one: its player hears that it is held, and it
    /// counts when play goes on ([`Arbiter::release_held`]).
    pub(super) fn hold(
        &mut self,
        seat: Color,
        mv: Move,
        announced: bool,
        why: &game::RulesError,
        out: &mut Vec<Effect>,
    ) {
        let san = notation::san(self.game.position(), mv);
        self.held = Some(Held {
            seat,
            mv,
            announced,
        });
        self.say(Audience::Player(seat), Announcement::MoveHeld, out);
        out.push(Effect::Note(format!(
            "{} player's move {san} is held ({why}); it counts when play goes on, or the \
             arbiter takes it back with `takeback {}`",
            self.names().player(seat),
            self.game.ply()
        )));
    }

    /// A held move counts once the game can take it; after the game it is dropped.
    pub(super) fn release_held(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let Some(held) = self.held else {
            return;
        };
        if self.game.is_over() {
            self.held = None;
            out.push(Effect::Note(
                "the held move does not count: the game is over".into(),
            ));
            return;
        }
        match self.check_move(held.mv, now) {
            Err(e) if holds(&e) => {}
            Err(e) => {
                self.held = None;
                self.refuse_move(held.seat, held.mv, &e, now, out);
            }
            Ok(()) => {
                self.held = None;
                out.push(Effect::Note(format!(
                    "the held move {} counts now",
                    notation::san(self.game.position(), held.mv)
                )));
                let seat = held.seat;
                match self.is_blind(seat) {
                    true if held.announced => self.count_blind(seat, held.mv, now, out),
                    true => self.announce_blind(seat, held.mv, out),
                    false => self.complete_sighted(seat, held.mv, now, out),
                }
            }
        }
    }

    /// A move the game refuses (not the one 9.5 b requires, or played where nothing may be):
    /// its player hears that it is not possible (and which move is required), and his board
    /// holds the game's position until he has put it back.
    pub(super) fn refuse_move(
        &mut self,
        seat: Color,
        mv: Move,
        why: &game::RulesError,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let position = self.game.position().clone();
        let announcement = match self.game.must_play() {
            Some(required) if required != mv && position.is_legal(required) => {
                Announcement::MoveRequired {
                    mv: MoveWords::new(&position, required),
                }
            }
            _ => Announcement::IllegalMove,
        };
        self.say(Audience::Player(seat), announcement, out);
        out.push(Effect::Refused(format!(
            "{} player's move {} refused: {why}; his board is guided back",
            self.names().player(seat),
            notation::san(&position, mv)
        )));
        if self.game.to_move() != seat || self.game.is_over() {
            self.put_back(seat, now, out);
            return;
        }
        // His move still: any other move he makes counts (the refused one is guided back).
        let Some(r) = self.recognizer(seat) else {
            return;
        };
        let r = r.set_expected_refusing(position, mv, now);
        self.recognized(seat, r, now, out);
    }

    /// A board shows its player's own move while his opponent is to move, his opponent's move
    /// not made on either board (`None`: taken back). No move: he hears "nicht am Zug", the
    /// arbiter sees what happened, and should it still stand when his turn comes it is refused
    /// and guided back (a reply made after the opponent's move was made, executed early or not,
    /// stays a move).
    fn out_of_turn(&mut self, seat: Color, mv: Option<Move>, out: &mut Vec<Effect>) {
        let Some(mv) = mv else {
            if self.premoved[seat].take().is_some() {
                out.push(Effect::Note(format!(
                    "the {} board no longer shows the move made out of turn",
                    self.names().board(seat)
                )));
            }
            return;
        };
        let opponent = !seat;
        let opponent_moved = self.pending.is_some_and(|p| p.seat == opponent)
            || self.held.is_some_and(|h| h.seat == opponent)
            || (!self.is_blind(opponent)
                && (self.sighted_candidate.is_some() || self.press_pending));
        if opponent_moved || self.game.is_over() || self.game.to_move() == seat {
            return;
        }
        let told = self.premoved[seat].is_some();
        self.premoved[seat] = Some(mv);
        if told {
            return;
        }
        let mut own = self.game.position().clone().swap_turn().ok();
        let san = own
            .as_mut()
            .map_or_else(|| mv.to_string(), |p| notation::san(p, mv));
        self.say(Audience::Player(seat), Announcement::OutOfTurn, out);
        out.push(Effect::Note(format!(
            "{} moved {san} on the {} board before {opponent} had moved: not a move (1.1); said \
             to him, and guided back once {opponent}'s move stands",
            seat,
            self.names().board(seat)
        )));
    }

    /// `seat`'s move stands on his board (or was entered): his opponent's moves from now on are
    /// replies, not moves out of turn.
    fn opponent_moved(&mut self, seat: Color) {
        if let Some(board) = self.recognizer(!seat) {
            board.opponent_moved();
        }
    }

    /// The board holds the game's position (guided if it differs) until it shows it again; its
    /// player then moves as before.
    pub(super) fn put_back(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        let position = self.game.position().clone();
        let Some(r) = self.recognizer(seat) else {
            return;
        };
        let r = r.set_expected(position, Mode::Hold, now);
        self.putting_back[seat] = true;
        self.recognized(seat, r, now, out);
        self.board_caught_up(seat, now, out);
    }

    /// After a board changed: a board put back shows the game again (its player moves again);
    /// a blind player's board shows his corrected move (it counts once announced).
    pub(super) fn board_caught_up(&mut self, seat: Color, now: Millis, out: &mut Vec<Effect>) {
        let shows = self.board(seat).is_some_and(Recognizer::shows_expected);
        if self.putting_back[seat] && shows {
            self.putting_back[seat] = false;
            self.set_modes_of(ByColor::new_with(|c| c == seat), now, out);
        }
        if shows && let Some(p) = self.pending.filter(|p| p.seat == seat && !p.on_board) {
            let mut after = self.game.position().clone();
            after.play_unchecked(p.mv);
            if self.board(seat).is_some_and(|b| b.expected() == &after) {
                self.pending = Some(PendingAnnouncement {
                    on_board: true,
                    ..p
                });
                out.push(Effect::Note(format!(
                    "the corrected move stands on the {} board",
                    self.names().board(seat)
                )));
                if p.announced {
                    self.pending = None;
                    self.count_blind(seat, p.mv, now, out);
                }
            }
        }
    }
}

/// Errors for which a move waits instead of being refused: play stands still for a while (the
/// clocks paused, 6.12; a 10.2 claim awaiting the arbiter's ruling). After the game (a result
/// waiting only for its ruling or search included) a move is refused.
pub(crate) fn holds(e: &game::RulesError) -> bool {
    matches!(
        e,
        game::RulesError::Paused | game::RulesError::AwaitingQuickplayRuling
    )
}
