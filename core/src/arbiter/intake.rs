//! Move intake: what the recognisers report from the boards (touches, lifts, completed moves,
//! promotions, differences), moves entered at the console for the sighted player, and what
//! becomes of a move the game cannot take yet (held until play goes on) or refuses (said to be
//! impossible, its board guided back). When a move counts is `completion`'s.

use shakmaty::{Move, Position, Role, Square};

use super::{
    Arbiter, BoardId, ByBoard, Effect, PendingAnnouncement, boards::audience_of, touch,
    touch::describe,
};
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
    pub(super) board: BoardId,
    pub(super) mv: Move,
    /// The blind player's move was already announced to the sighted side.
    pub(super) announced: bool,
}

impl Arbiter {
    /// A sensor event from `board`, through its recogniser (none for a sighted board without
    /// sensors).
    pub(super) fn board_event(
        &mut self,
        board: BoardId,
        event: SensorEvent,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let recognized = match self.recognizer(board) {
            Some(r) => r.event(event, now),
            None => Vec::new(),
        };
        self.recognized(board, recognized, now, out);
        self.board_caught_up(board, now, out);
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
        if self.game.to_move() == self.cfg.blind || self.game.is_over() {
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
                    Audience::Sighted,
                    Announcement::MoveRequired { mv: words },
                    out,
                );
            }
            Ok(m) => {
                out.push(Effect::Note(format!(
                    "{} entered; it counts when the clock is pressed",
                    notation::san(self.game.position(), m)
                )));
                self.sighted_candidate = Some(m);
            }
            Err(e) => out.push(Effect::Refused(format!("'{text}' not entered: {e}"))),
        }
    }

    /// The piece the blind player says for his promotion.
    pub(super) fn promote(&mut self, role: Role, now: Millis, out: &mut Vec<Effect>) {
        let recognized = self.blind_board.promotion(role, now);
        let ahead = self.blind_board.shows_promotion_ahead();
        if recognized.is_empty() && ahead {
            // He promoted on his board ahead of the opponent's move being counted: the piece he
            // said stands for that promotion once it is his move.
            self.promotion_ahead = Some(role);
            out.push(Effect::Note(format!(
                "promotion piece {role:?} noted: it counts for the blind player's promotion once \
                 his move is recognised"
            )));
        } else if recognized.is_empty() {
            out.push(Effect::Refused(
                "no promotion is waiting for its piece".into(),
            ));
        }
        self.recognized(BoardId::Blind, recognized, now, out);
        self.board_caught_up(BoardId::Blind, now, out);
    }

    pub(super) fn recognized(
        &mut self,
        board: BoardId,
        recognized: Vec<Recognized>,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        for r in recognized {
            match r {
                Recognized::Touched { square, piece } if self.adjusting(board, square) => {
                    // 4.2: announced as an adjustment, so it is no touch (and rejects no offer).
                    out.push(Effect::Note(format!(
                        "{} player adjusted {}",
                        board.player(),
                        describe(square, piece)
                    )));
                }
                Recognized::Touched { square, piece } => {
                    // F.9 e: the assistant can see when the sighted player touched a piece.
                    self.record_touch(board, square, piece, board == BoardId::Sighted, out);
                    if piece.is_some() {
                        self.touch_to_rules(board, square, now, out);
                    }
                }
                Recognized::Lifted { square, piece } => {
                    if self.touched_while_executing(board, square, piece) {
                        // F.2 holds while he executes the opponent's move too: lifting one of
                        // his own pieces that the move does not involve is a touch, and he has
                        // the move.
                        self.record_touch(board, square, piece, true, out);
                        let ply = self.game.ply();
                        match &mut self.early_touches[board] {
                            Some((at, squares)) if *at == ply => squares.push(square),
                            slot => *slot = Some((ply, vec![square])),
                        }
                        self.touch_to_rules(board, square, now, out);
                    } else {
                        out.push(Effect::Touch {
                            board,
                            square,
                            piece,
                        });
                    }
                }
                Recognized::MoveCompleted { mv, touches } => {
                    self.move_completed(board, mv, &touches, now, out)
                }
                Recognized::PromotionPending { to, .. } => {
                    if board == BoardId::Blind
                        && let Some(role) = self.promotion_ahead.take()
                    {
                        let r = self.blind_board.promotion(role, now);
                        self.recognized(BoardId::Blind, r, now, out);
                    } else {
                        out.push(Effect::Note(format!(
                            "promotion on {to}: the player announces the piece; enter it with \
                             `promote q|r|b|n`"
                        )));
                    }
                }
                Recognized::Executed => {
                    self.differing[board] = None;
                    // The other player's move now stands on this board: its player is to move.
                    // A board that still has to make the move (both do after a sealed move)
                    // keeps waiting for it.
                    let other = match board {
                        BoardId::Blind => self.sighted_board.as_ref().map(Recognizer::mode),
                        BoardId::Sighted => Some(self.blind_board.mode()),
                    };
                    let other_executes = matches!(other, Some(Mode::Execute(_)));
                    let boards = ByBoard::new_with(|b| b == board || !other_executes);
                    self.set_modes_of(boards, now, out);
                }
                Recognized::Differs(diff) => self.differs(board, diff, now, out),
                Recognized::Matches => {
                    self.differing[board] = None;
                    out.push(Effect::Note(format!(
                        "{} board matches the game again",
                        board.name()
                    )));
                }
                Recognized::SnapshotCorrected { squares } => {
                    out.push(Effect::Note(format!(
                        "{} board: a full reading changed {}",
                        board.name(),
                        count(squares.count(), "square", "squares")
                    )));
                }
                Recognized::RequestSnapshot => out.push(Effect::RequestSnapshot { board }),
                Recognized::NoMove => {
                    self.press_pending = false;
                    self.refuse_press(
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
        board: BoardId,
        mv: Move,
        touches: &[Square],
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let before = self.game.position().clone();
        if !before.is_legal(mv) || self.game.to_move() != self.player(board) {
            // Cannot happen while the modes follow the game; never act on it, and guide the
            // board back to the game.
            out.push(Effect::Note(format!(
                "{} board: ignored a move out of turn",
                board.name()
            )));
            self.put_back(board, now, out);
            return;
        }
        self.differing[board] = None;
        // His own pieces lifted while he executed the opponent's move count first (F.2); a piece
        // adjusted with j'adoube was not touched (4.2).
        let early = match std::mem::take(&mut self.early_touches[board]) {
            Some((ply, squares)) if ply == self.game.ply() => squares,
            _ => Vec::new(),
        };
        let touches: Vec<Square> = early
            .iter()
            .chain(touches)
            .copied()
            .filter(|&sq| !self.adjusting(board, sq))
            .collect();
        self.adjusting = None;
        self.tell_touches(board, Some(mv), out);
        // Art. 4.3, 4.4, 4.6: what the touches may give the opponent to claim. The arbiter
        // rules only on a claim (4.7): reported, and the game goes on.
        for claim in touch::possible_claims(&before, mv, &touches) {
            out.push(Effect::Note(claim));
        }
        match self.check_move(mv, now) {
            Ok(()) => {}
            Err(e) if holds(&e) => {
                self.hold(board, mv, false, &e, out);
                return;
            }
            Err(e) => {
                self.refuse_move(board, mv, &e, now, out);
                return;
            }
        }
        match board {
            BoardId::Blind => self.announce_blind(mv, out),
            // His move counts when he presses his clock; the recogniser reports it only then
            // (or without a press when it ends the game, 5.1 a, 5.2).
            BoardId::Sighted => {
                self.press_pending = false;
                self.complete_sighted(mv, now, out);
            }
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
        board: BoardId,
        mv: Move,
        announced: bool,
        why: &game::RulesError,
        out: &mut Vec<Effect>,
    ) {
        let san = notation::san(self.game.position(), mv);
        self.held = Some(Held {
            board,
            mv,
            announced,
        });
        self.say(audience_of(board), Announcement::MoveHeld, out);
        out.push(Effect::Note(format!(
            "{} player's move {san} is held ({why}); it counts when play goes on, or the \
             arbiter takes it back with `takeback {}`",
            board.player(),
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
                self.refuse_move(held.board, held.mv, &e, now, out);
            }
            Ok(()) => {
                self.held = None;
                out.push(Effect::Note(format!(
                    "the held move {} counts now",
                    notation::san(self.game.position(), held.mv)
                )));
                match held.board {
                    BoardId::Blind if held.announced => self.count_blind(held.mv, now, out),
                    BoardId::Blind => self.announce_blind(held.mv, out),
                    BoardId::Sighted => self.complete_sighted(held.mv, now, out),
                }
            }
        }
    }

    /// A move the game refuses (not the one 9.5 b requires, or played where nothing may be):
    /// its player hears that it is not possible (and which move is required), and his board
    /// holds the game's position until he has put it back.
    pub(super) fn refuse_move(
        &mut self,
        board: BoardId,
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
        self.say(audience_of(board), announcement, out);
        out.push(Effect::Refused(format!(
            "{} player's move {} refused: {why}; his board is guided back",
            board.player(),
            notation::san(&position, mv)
        )));
        if self.game.to_move() != self.player(board) || self.game.is_over() {
            self.put_back(board, now, out);
            return;
        }
        // His move still: any other move he makes counts (the refused one is guided back).
        let Some(r) = self.recognizer(board) else {
            return;
        };
        let r = r.set_expected_refusing(position, mv, now);
        self.recognized(board, r, now, out);
    }

    /// The board holds the game's position (guided if it differs) until it shows it again; its
    /// player then moves as before.
    fn put_back(&mut self, board: BoardId, now: Millis, out: &mut Vec<Effect>) {
        let position = self.game.position().clone();
        let Some(r) = self.recognizer(board) else {
            return;
        };
        let r = r.set_expected(position, Mode::Hold, now);
        self.putting_back[board] = true;
        self.recognized(board, r, now, out);
        self.board_caught_up(board, now, out);
    }

    /// After a board changed: a board put back shows the game again (its player moves again);
    /// the tactile board shows the blind player's corrected move (it counts once announced).
    pub(super) fn board_caught_up(&mut self, board: BoardId, now: Millis, out: &mut Vec<Effect>) {
        let shows = match board {
            BoardId::Blind => self.blind_board.shows_expected(),
            BoardId::Sighted => self
                .sighted_board
                .as_ref()
                .is_some_and(Recognizer::shows_expected),
        };
        if self.putting_back[board] && shows {
            self.putting_back[board] = false;
            self.set_modes_of(ByBoard::new_with(|b| b == board), now, out);
        }
        if board == BoardId::Blind
            && shows
            && let Some(p) = self.pending_blind.filter(|p| !p.on_board)
        {
            let mut after = self.game.position().clone();
            after.play_unchecked(p.mv);
            if self.blind_board.expected() == &after {
                self.pending_blind = Some(PendingAnnouncement {
                    on_board: true,
                    ..p
                });
                out.push(Effect::Note(
                    "the corrected move stands on the tactile board".into(),
                ));
                if p.announced {
                    self.pending_blind = None;
                    self.count_blind(p.mv, now, out);
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
