//! Appendix F at the table: one game, two boards, two scoresheets.
//!
//! This module owns what the blind player's assistant does that a machine can do: it recognises
//! moves on both boards, decides when a move counts as executed, announces it to the other side,
//! starts the opponent's clock only once the announcement has finished (F.3 c, F.9 c), has each
//! player execute the other's move on his own board, guides a player whose board differs (F.7),
//! retraces the game when the scoresheets disagree (F.8), and reports touch sequences that may
//! give a claim (Art. 4). It owns the [`Game`] and both [`Recognizer`]s.
//!
//! Nothing a player does is dropped in silence. A move the game cannot take yet (the clocks
//! stand, a claim awaits the arbiter) is held and counts when play goes on; a move the game
//! refuses is said to be impossible to its player, and his board is guided back; a clock press
//! counts the move his board shows as soon as the board can tell, or is answered aloud.
//!
//! Pure: [`Arbiter::handle`] takes an [`Input`] and the time it happened and returns [`Effect`]s
//! (things to say, snapshots to request, analyses to run, files to write, console replies). It
//! never awaits, never reads the clock, never touches a port or a file; the daemon does.

pub mod touch;

#[cfg(test)]
mod tests;

use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square};

use crate::{
    announce::{Announcement, Audience, Guidance, MoveWords, ResultWords, WhichBoard, count},
    board::{
        SensorEvent,
        recognize::{BoardDiff, Found, Mode, Recognized, Recognizer, RecognizerConfig},
    },
    rules::{
        Millis,
        dead::Query,
        game::{self, EndReason, Event, Game, GameEnd, RulesConfig},
        notation, sheet,
    },
};

/// Which of the two boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardId {
    /// The blind player's tactile board.
    Blind,
    /// The sighted player's board.
    Sighted,
}

impl BoardId {
    pub const ALL: [BoardId; 2] = [BoardId::Blind, BoardId::Sighted];

    /// The board's name for people and logs: "tactile", "sighted".
    pub fn name(self) -> &'static str {
        match self {
            BoardId::Blind => "tactile",
            BoardId::Sighted => "sighted",
        }
    }

    /// Its player, as notes name him: "blind", "sighted".
    pub fn player(self) -> &'static str {
        match self {
            BoardId::Blind => "blind",
            BoardId::Sighted => "sighted",
        }
    }

    pub fn other(self) -> BoardId {
        match self {
            BoardId::Blind => BoardId::Sighted,
            BoardId::Sighted => BoardId::Blind,
        }
    }
}

/// A value for each board, indexed by [`BoardId`] (as shakmaty's `ByColor` is by colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct ByBoard<T> {
    pub blind: T,
    pub sighted: T,
}

impl<T> ByBoard<T> {
    pub fn new_with(mut f: impl FnMut(BoardId) -> T) -> ByBoard<T> {
        ByBoard {
            blind: f(BoardId::Blind),
            sighted: f(BoardId::Sighted),
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByBoard<U> {
        ByBoard {
            blind: f(self.blind),
            sighted: f(self.sighted),
        }
    }

    /// Each board with its value, the tactile board first.
    pub fn iter(&self) -> impl Iterator<Item = (BoardId, &T)> {
        [
            (BoardId::Blind, &self.blind),
            (BoardId::Sighted, &self.sighted),
        ]
        .into_iter()
    }
}

impl<T> std::ops::Index<BoardId> for ByBoard<T> {
    type Output = T;
    fn index(&self, board: BoardId) -> &T {
        match board {
            BoardId::Blind => &self.blind,
            BoardId::Sighted => &self.sighted,
        }
    }
}

impl<T> std::ops::IndexMut<BoardId> for ByBoard<T> {
    fn index_mut(&mut self, board: BoardId) -> &mut T {
        match board {
            BoardId::Blind => &mut self.blind,
            BoardId::Sighted => &mut self.sighted,
        }
    }
}

/// A board that comes back and goes again within this long of the last word about its link is
/// flapping (a loose cable): its losses are not said each time.
pub const FLAP_WINDOW_MS: Millis = 10_000;
/// A loss not said because the board was flapping is said once it has lasted this long.
pub const FLAP_SETTLE_MS: Millis = 3_000;

/// What was said about one board's link.
#[derive(Debug, Clone, Copy, Default)]
struct LinkNews {
    /// Its loss was said and its return not yet.
    said_away: bool,
    /// When its loss or return was last said.
    last_said: Option<Millis>,
    /// Away since then (not back yet).
    away_since: Option<Millis>,
}

impl LinkNews {
    /// When a loss that was not said (flapping) is to be said, if it lasts.
    fn unsaid_loss_due(&self) -> Option<Millis> {
        match (self.said_away, self.away_since) {
            (false, Some(t)) => Some(t + FLAP_SETTLE_MS),
            _ => None,
        }
    }
}

/// When the sighted player's move counts as completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// When he stops his clock (a key or pedal, the console's `press`, a DGT clock lever).
    ClockPress,
    /// When his board rests on the position after a legal move (boards without a clock button).
    Settle,
}

/// How the table is set up.
#[derive(Debug, Clone)]
pub struct ArbiterConfig {
    pub rules: RulesConfig,
    /// The blind player's colour.
    pub blind: Color,
    pub blind_board: RecognizerConfig,
    /// `None`: the sighted board has no sensors; his moves are entered at the console.
    pub sighted_board: Option<RecognizerConfig>,
    pub sighted_completion: Completion,
    /// A board that still differs is described again after this long (F.7: guided until it is
    /// right).
    pub guidance_repeat_ms: Millis,
    /// The blind player hears his own move as it was announced in his name (F.1), so that a
    /// misread move can be corrected in time (F.6).
    pub say_own_move: bool,
}

/// Everything the arbiter reacts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// The start of play: White's clock starts.
    Start,
    Board {
        board: BoardId,
        event: SensorEvent,
    },
    BoardDisconnected {
        board: BoardId,
    },
    BoardConnected {
        board: BoardId,
    },
    /// A speaker finished saying the announcement with this id.
    SpeechFinished {
        id: u64,
    },
    /// The sighted player stops his clock.
    ClockPress,
    /// The sighted player's move, entered at the console (boards without sensors).
    EnterMove(String),
    /// The promotion piece the blind player announced (occupancy boards cannot see it).
    Promote(Role),
    /// F.6: the move just announced was announced wrongly; this is the right one.
    Correct(String),
    /// F.8: a player's own scoresheet, entered at the console.
    Scoresheet {
        side: Color,
        sans: Vec<String>,
    },
    /// The arbiter accepts the clock times proposed after a retrace.
    ConfirmClocks,
    /// 4.2, "j'adoube": `by` adjusts the piece on `square`; his next touch of it is no touch.
    Adjust {
        by: Color,
        square: Square,
    },
    /// Anything else the Laws take: offers, claims, resignation, pauses, clock settings, verdicts.
    Rules(game::Input),
    /// Time passes.
    Tick,
}

/// What the shell must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Say this; report [`Input::SpeechFinished`] with the id when it has been said.
    Say {
        id: u64,
        audience: Audience,
        announcement: Announcement,
    },
    RequestSnapshot {
        board: BoardId,
    },
    /// Run the mateability search and answer with `Input::Rules(game::Input::Verdict { .. })`.
    Analyse {
        ticket: u64,
        query: Query,
    },
    /// A touch, for `touches.txt` (and F.9 e: the assistant sees the sighted player's touches).
    Touch {
        board: BoardId,
        square: Square,
        piece: Option<Piece>,
    },
    /// A line for the console and the transcript (possible claims, notices, replies).
    Note(String),
    /// The input was refused and changed nothing; the text says why (the console's `error:`).
    Refused(String),
    /// The record changed: write the game's files.
    RecordChanged,
    GameOver(GameEnd),
}

/// The blind player's move, waiting to count: it counts once it has been announced (F.3 c) and
/// stands on the tactile board (F.3 b; after a correction under F.6 he must make the corrected
/// move first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PendingAnnouncement {
    id: u64,
    mv: Move,
    announced: bool,
    on_board: bool,
}

/// A move made while the game could not take one (clocks paused, 6.12; a 10.2 claim or a
/// result awaiting the arbiter): it counts when play goes on, unless the arbiter takes it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Held {
    board: BoardId,
    mv: Move,
    /// The blind player's move was already announced to the sighted side.
    announced: bool,
}

/// A board that differs and when it was last described.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Differing {
    diff: BoardDiff,
    told_at: Millis,
}

/// The arbiter. See the module docs.
#[derive(Debug, Clone)]
pub struct Arbiter {
    cfg: ArbiterConfig,
    game: Game,
    blind_board: Recognizer,
    sighted_board: Option<Recognizer>,
    next_id: u64,
    pending_blind: Option<PendingAnnouncement>,
    /// The sighted player's move recognised on his board or entered at the console, waiting for
    /// his clock press.
    sighted_candidate: Option<Move>,
    proposed_clocks: Option<shakmaty::ByColor<i64>>,
    differing: ByBoard<Option<Differing>>,
    started: bool,
    /// A piece being adjusted (4.2): its player's touches of that square do not count.
    adjusting: Option<(Color, Square)>,
    /// The game was retraced and both boards hold still until the clocks run again.
    retraced: bool,
    /// A move made while the game could not take one.
    held: Option<Held>,
    /// The sighted player pressed his clock: the move his board shows counts as soon as the
    /// board can tell (his reply made ahead counts once the blind player's move has).
    press_pending: bool,
    /// A board whose refused move is being put back: it holds the game's position and its
    /// player moves again once it shows it (tactile, sighted).
    putting_back: ByBoard<bool>,
    /// The piece the blind player said for a promotion he made ahead of the count.
    promotion_ahead: Option<Role>,
    /// Who claimed under 10.2: his opponent's clock changes with the ruling.
    quickplay_claimant: Option<Color>,
    /// What the players were told of each board's link, so that a flapping cable is said once.
    links: ByBoard<LinkNews>,
    /// Each board's player's own pieces lifted while he executed his opponent's move, at the
    /// ply he then had the move: touches of his coming move (F.2, 4.3).
    early_touches: ByBoard<Option<(usize, Vec<Square>)>>,
    /// Touches of each board's player not yet told to the assistant and arbiter: held until his
    /// move is complete, then told only if the piece touched was not one the move moved (a
    /// touch of the piece he then moves is the move itself, and no news), or when the game
    /// ends without that move.
    held_touches: ByBoard<Vec<(Square, Option<Piece>)>>,
    /// Each player's scoresheet as last entered (F.8), compared with the record.
    sheets: shakmaty::ByColor<Option<sheet::Comparison>>,
}

impl Arbiter {
    pub fn new(cfg: ArbiterConfig, start: Chess) -> Arbiter {
        let game = Game::from_position(cfg.rules.clone(), start.clone());
        let blind_board = Recognizer::new(cfg.blind_board, start.clone(), Mode::Hold);
        let press = cfg.sighted_completion == Completion::ClockPress;
        let sighted_board = cfg.sighted_board.map(|c| {
            let r = Recognizer::new(c, start.clone(), Mode::Hold);
            if press { r.with_press_completion() } else { r }
        });
        Arbiter {
            cfg,
            game,
            blind_board,
            sighted_board,
            next_id: 1,
            pending_blind: None,
            sighted_candidate: None,
            proposed_clocks: None,
            differing: ByBoard::default(),
            started: false,
            adjusting: None,
            retraced: false,
            held: None,
            press_pending: false,
            putting_back: ByBoard::default(),
            promotion_ahead: None,
            quickplay_claimant: None,
            links: ByBoard::default(),
            early_touches: ByBoard::default(),
            held_touches: ByBoard::default(),
            sheets: shakmaty::ByColor::default(),
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }
    pub fn config(&self) -> &ArbiterConfig {
        &self.cfg
    }
    pub fn blind_board(&self) -> &Recognizer {
        &self.blind_board
    }
    pub fn sighted_board(&self) -> Option<&Recognizer> {
        self.sighted_board.as_ref()
    }
    /// Whether play has started ([`Input::Start`] was handled).
    pub fn started(&self) -> bool {
        self.started
    }

    /// When [`Input::Tick`] should come next: a settle time, a repeated guidance, a flag.
    pub fn next_deadline(&self) -> Option<Millis> {
        let mut deadlines = Vec::new();
        deadlines.extend(self.blind_board.next_deadline());
        deadlines.extend(
            self.sighted_board
                .as_ref()
                .and_then(Recognizer::next_deadline),
        );
        for d in self.differing.iter().filter_map(|(_, d)| d.as_ref()) {
            deadlines.push(d.told_at + self.cfg.guidance_repeat_ms);
        }
        if let Some(clock) = self.game.clock()
            && let Some(side) = clock.running()
        {
            deadlines.extend(clock.flag_instant(side));
        }
        for (_, link) in self.links.iter() {
            deadlines.extend(link.unsaid_loss_due());
        }
        deadlines.into_iter().min()
    }

    /// One input at time `now`.
    pub fn handle(&mut self, input: Input, now: Millis) -> Vec<Effect> {
        let mut out = Vec::new();
        match input {
            Input::Start => self.start(now, &mut out),
            Input::Board { board, event } => {
                let recognized = match self.recognizer(board) {
                    Some(r) => r.event(event, now),
                    None => Vec::new(),
                };
                self.recognized(board, recognized, now, &mut out);
                self.board_caught_up(board, now, &mut out);
            }
            Input::BoardDisconnected { board } => {
                if let Some(r) = self.recognizer(board) {
                    r.disconnected(now);
                }
                self.link_lost(board, now, &mut out);
            }
            Input::BoardConnected { board } => {
                self.link_back(board, now, &mut out);
                out.push(Effect::RequestSnapshot { board });
            }
            Input::SpeechFinished { id } => self.speech_finished(id, now, &mut out),
            Input::ClockPress => self.press(now, &mut out),
            Input::EnterMove(text) => self.enter_move(&text, &mut out),
            Input::Promote(role) => self.promote(role, now, &mut out),
            Input::Correct(text) => self.correct(&text, now, &mut out),
            Input::Scoresheet { side, sans } => self.scoresheet(side, &sans, now, &mut out),
            Input::ConfirmClocks => self.confirm_clocks(now, &mut out),
            Input::Adjust { by, square } => {
                self.adjusting = Some((by, square));
                out.push(Effect::Note(format!(
                    "{by} adjusts {} (j'adoube, 4.2): not a touch",
                    describe(square, self.game.position().board().piece_at(square))
                )));
            }
            Input::Rules(game::Input::Seal { by, text }) => self.seal(by, text, now, &mut out),
            Input::Rules(game::Input::OpenEnvelope) => self.open_envelope(now, &mut out),
            Input::Rules(game::Input::Touch { by, square }) => {
                self.touch_reported(by, square, now, &mut out)
            }
            Input::Rules(game::Input::Retract { to_ply }) => self.retrace(to_ply, now, &mut out),
            Input::Rules(input) => {
                self.rules(input, now, &mut out);
            }
            Input::Tick => self.tick(now, &mut out),
        }
        self.release_held(now, &mut out);
        if self.game.is_over() {
            // Abandoned: no move of his will come to tell them with.
            for board in BoardId::ALL {
                self.tell_touches(board, None, &mut out);
            }
        }
        out
    }

    /// The recogniser of `board`; none for a sighted board without sensors.
    fn recognizer(&mut self, board: BoardId) -> Option<&mut Recognizer> {
        match board {
            BoardId::Blind => Some(&mut self.blind_board),
            BoardId::Sighted => self.sighted_board.as_mut(),
        }
    }

    /// A move typed at the console for the sighted player: it counts at his clock press.
    fn enter_move(&mut self, text: &str, out: &mut Vec<Effect>) {
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
    fn promote(&mut self, role: Role, now: Millis, out: &mut Vec<Effect>) {
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

    /// The arbiter has a move sealed (adjourned games).
    fn seal(&mut self, by: Color, text: String, now: Millis, out: &mut Vec<Effect>) {
        if self.pending_blind.is_some() || self.sighted_candidate.is_some() || self.held.is_some() {
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

    /// A touch reported at the console (F.9 e: the assistant tells the arbiter when the sighted
    /// player touched a piece): recorded as a touch on that player's board.
    fn touch_reported(&mut self, by: Color, square: Square, now: Millis, out: &mut Vec<Effect>) {
        let board = if by == self.cfg.blind {
            BoardId::Blind
        } else {
            BoardId::Sighted
        };
        let piece = self.game.position().board().piece_at(square);
        // The assistant reports it to the arbiter on purpose (F.9 e): told at once.
        self.record_touch(board, square, piece, false, out);
        out.push(Effect::Note(touch_note(board, square, piece)));
        self.rules(game::Input::Touch { by, square }, now, out);
    }

    /// A board's link went. Said at once, unless the board is flapping (it came back and went
    /// again within [`FLAP_WINDOW_MS`] of the last thing said about it): then it is said only if
    /// it stays away for [`FLAP_SETTLE_MS`].
    fn link_lost(&mut self, board: BoardId, now: Millis, out: &mut Vec<Effect>) {
        let link = &mut self.links[board];
        link.away_since = Some(now);
        if link.said_away {
            return;
        }
        if link.last_said.is_some_and(|t| now < t + FLAP_WINDOW_MS) {
            out.push(Effect::Note(format!(
                "{} board's link went again; said if it stays away",
                board.name()
            )));
            return;
        }
        self.say_link_lost(board, now, out);
    }

    fn say_link_lost(&mut self, board: BoardId, now: Millis, out: &mut Vec<Effect>) {
        let link = &mut self.links[board];
        link.said_away = true;
        link.last_said = Some(now);
        let which = which(board);
        self.say(
            Audience::Both,
            Announcement::BoardDisconnected { board: which },
            out,
        );
    }

    /// A board's link is back: "reconnected" once, when its loss was said.
    fn link_back(&mut self, board: BoardId, now: Millis, out: &mut Vec<Effect>) {
        let link = &mut self.links[board];
        link.away_since = None;
        if !link.said_away {
            return;
        }
        link.said_away = false;
        link.last_said = Some(now);
        let which = which(board);
        self.say(
            Audience::Both,
            Announcement::BoardReconnected { board: which },
            out,
        );
    }

    /// Time passes: the clocks, the recognisers' deadlines, guidance due again.
    fn tick(&mut self, now: Millis, out: &mut Vec<Effect>) {
        for board in BoardId::ALL {
            if self.links[board]
                .unsaid_loss_due()
                .is_some_and(|due| now >= due)
            {
                self.say_link_lost(board, now, out);
            }
        }
        // Time only matters to a running clock; a tick while the clocks are held or after the
        // game is no input the Laws refuse, just nothing to do.
        if !self.game.is_over() && self.game.clock().is_some_and(|c| c.running().is_some()) {
            self.rules(game::Input::Tick, now, out);
        }
        for board in BoardId::ALL {
            if let Some(r) = self.recognizer(board) {
                let recognized = r.tick(now);
                self.recognized(board, recognized, now, out);
                self.board_caught_up(board, now, out);
            }
        }
        self.repeat_guidance(now, out);
    }

    fn start(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if self.started {
            out.push(Effect::Refused("the game has already started".into()));
            return;
        }
        self.started = true;
        // A move completed before the start (entered at the console while the boards were
        // still being read) already started the clocks.
        if self
            .game
            .clock()
            .is_some_and(|c| c.running().is_none() && !c.is_paused())
            && self.game.ply() == 0
        {
            self.rules(game::Input::Start, now, out);
        }
        self.refresh_modes(now, out);
        out.push(Effect::RequestSnapshot {
            board: BoardId::Blind,
        });
        if self.sighted_board.is_some() {
            out.push(Effect::RequestSnapshot {
                board: BoardId::Sighted,
            });
        }
    }

    /// Each board waits for its player's own move, or holds the position.
    fn set_modes(&mut self, now: Millis, out: &mut Vec<Effect>) {
        self.set_modes_of(ByBoard::new_with(|_| true), now, out);
    }

    /// [`Arbiter::set_modes`], except that a board that has a move to make on it keeps waiting
    /// for it.
    fn refresh_modes(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let executing = |mode: Option<Mode>| matches!(mode, Some(Mode::Execute(_)));
        let boards = ByBoard {
            blind: !executing(Some(self.blind_board.mode())),
            sighted: !executing(self.sighted_board.as_ref().map(Recognizer::mode)),
        };
        self.set_modes_of(boards, now, out);
    }

    /// [`Arbiter::set_modes`] for the boards marked (tactile, sighted): the player to move moves
    /// on his board, the other board awaits his move (and may show it ahead of time).
    fn set_modes_of(&mut self, boards: ByBoard<bool>, now: Millis, out: &mut Vec<Effect>) {
        let position = self.game.position().clone();
        // An adjourned game stands still on both boards until the envelope is opened.
        let over = self.game.is_over() || self.game.adjournment().is_some();
        let mode_of = |board: BoardId| {
            if over {
                Mode::Hold
            } else if position.turn() == self.player(board) {
                Mode::Move
            } else {
                Mode::Await
            }
        };
        let (blind_mode, sighted_mode) = (mode_of(BoardId::Blind), mode_of(BoardId::Sighted));
        if boards.blind {
            self.putting_back.blind = false;
            let r = self
                .blind_board
                .set_expected(position.clone(), blind_mode, now);
            self.recognized(BoardId::Blind, r, now, out);
        }
        if boards.sighted
            && let Some(board) = self.sighted_board.as_mut()
        {
            self.putting_back.sighted = false;
            let r = board.set_expected(position, sighted_mode, now);
            self.recognized(BoardId::Sighted, r, now, out);
            if sighted_mode == Mode::Move && self.press_pending {
                // He pressed for a reply he had made ahead: it counts now, if it stands.
                self.press_sighted_board(now, out);
            }
        }
    }

    /// Both boards should show the game's position and nobody moves on them.
    fn hold_both(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let position = self.game.position().clone();
        let r = self
            .blind_board
            .set_expected(position.clone(), Mode::Hold, now);
        self.recognized(BoardId::Blind, r, now, out);
        if let Some(board) = self.sighted_board.as_mut() {
            let r = board.set_expected(position, Mode::Hold, now);
            self.recognized(BoardId::Sighted, r, now, out);
        }
    }

    fn recognized(
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

    /// F.3: the blind player's move stands on the tactile board; it counts once announced. His
    /// clock runs until the announcement has finished (F.3 c, F.9 c).
    fn announce_blind(&mut self, mv: Move, out: &mut Vec<Effect>) {
        self.promotion_ahead = None;
        let before = self.game.position().clone();
        let words = MoveWords::new(&before, mv);
        let id = self.say(Audience::Sighted, Announcement::Move(words), out);
        if self.cfg.say_own_move {
            self.say(Audience::Blind, Announcement::OwnMove(words), out);
        }
        self.pending_blind = Some(PendingAnnouncement {
            id,
            mv,
            announced: false,
            on_board: true,
        });
    }

    /// Whether the game would take `mv` now (the rules decide, on a copy).
    fn check_move(&self, mv: Move, now: Millis) -> Result<(), game::RulesError> {
        self.game
            .clone()
            .apply(game::Input::Move(mv), now)
            .map(|_| ())
    }

    /// A move made while the game cannot take one: its player hears that it is held, and it
    /// counts when play goes on ([`Arbiter::release_held`]).
    fn hold(
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
    fn release_held(&mut self, now: Millis, out: &mut Vec<Effect>) {
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
    fn refuse_move(
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
    fn board_caught_up(&mut self, board: BoardId, now: Millis, out: &mut Vec<Effect>) {
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

    /// The sighted player stopped his clock (6.7 a). His move is what his board shows (or what
    /// the assistant entered); it counts as soon as the board can tell. A press while the blind
    /// player's move is still being announced is kept for the reply he has made ahead of it.
    fn press(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if self.game.is_over() {
            out.push(Effect::Note(
                "clock pressed after the game; nothing to do".into(),
            ));
            return;
        }
        if let Some(m) = self.sighted_candidate.take() {
            self.complete_sighted(m, now, out);
            return;
        }
        let sighted = !self.cfg.blind;
        let sensors = self.sighted_board.is_some();
        let blind_move_coming =
            self.pending_blind.is_some() || self.held.is_some_and(|h| h.board == BoardId::Blind);
        if self.game.to_move() == sighted && !sensors {
            self.refuse_press(
                "clock pressed, but no move has been entered for the sighted player; enter it \
                 with `move`",
                out,
            );
        } else if self.game.to_move() == sighted {
            self.press_pending = true;
            self.press_sighted_board(now, out);
        } else if blind_move_coming && sensors {
            self.press_pending = true;
            out.push(Effect::Note(
                "clock pressed while the blind player's move is being announced: the sighted \
                 player's reply counts once that move has"
                    .into(),
            ));
        } else {
            let side = self.game.to_move();
            self.say(Audience::Sighted, Announcement::ToMove { side }, out);
            out.push(Effect::Refused(format!(
                "clock pressed, but it is {side}'s move; the sighted player has no move to complete"
            )));
        }
    }

    fn press_sighted_board(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if let Some(board) = self.sighted_board.as_mut() {
            let r = board.press(now);
            self.recognized(BoardId::Sighted, r, now, out);
        }
    }

    /// A press that completes nothing: the sighted side hears it, the console reads why.
    fn refuse_press(&mut self, why: &str, out: &mut Vec<Effect>) {
        self.say(Audience::Sighted, Announcement::NoMoveToCount, out);
        out.push(Effect::Refused(why.into()));
    }

    /// The sighted player's move is complete: his clock stops, the blind player's starts, and the
    /// blind player hears the move and executes it on his board.
    fn complete_sighted(&mut self, mv: Move, now: Millis, out: &mut Vec<Effect>) {
        let before = self.game.position().clone();
        if self.game.to_move() == self.cfg.blind || !before.is_legal(mv) {
            out.push(Effect::Note("no sighted move to complete".into()));
            return;
        }
        match self.check_move(mv, now) {
            Ok(()) => {}
            Err(e) if holds(&e) => return self.hold(BoardId::Sighted, mv, false, &e, out),
            Err(e) => return self.refuse_move(BoardId::Sighted, mv, &e, now, out),
        }
        // The move is said before whatever it causes (check, mate, stalemate, the result).
        let mut consequences = Vec::new();
        if !self.rules(game::Input::Move(mv), now, &mut consequences) {
            out.extend(consequences);
            return;
        }
        self.say(
            Audience::Blind,
            Announcement::Move(MoveWords::new(&before, mv)),
            out,
        );
        out.extend(consequences);
        // He executes it on his board, even when it ended the game; until he does, his board
        // simply still shows the position before it, which is no difference to complain about.
        let r = self
            .blind_board
            .set_expected(before, Mode::Execute(mv), now);
        self.recognized(BoardId::Blind, r, now, out);
        if let Some(board) = self.sighted_board.as_mut() {
            let mode = if self.game.is_over() {
                Mode::Hold
            } else {
                Mode::Await
            };
            let r = board.set_expected(self.game.position().clone(), mode, now);
            self.recognized(BoardId::Sighted, r, now, out);
        }
    }

    fn speech_finished(&mut self, id: u64, now: Millis, out: &mut Vec<Effect>) {
        let Some(pending) = self.pending_blind.filter(|p| p.id == id) else {
            return;
        };
        if !pending.on_board {
            // Corrected (F.6) and not yet made on his board: it counts once it stands there.
            self.pending_blind = Some(PendingAnnouncement {
                announced: true,
                ..pending
            });
            return;
        }
        self.pending_blind = None;
        self.count_blind(pending.mv, now, out);
    }

    /// The blind player's move counts (announced and on his board): his clock stops, the
    /// sighted player executes it on his board.
    fn count_blind(&mut self, mv: Move, now: Millis, out: &mut Vec<Effect>) {
        let before = self.game.position().clone();
        match self.check_move(mv, now) {
            Ok(()) => {}
            Err(e) if holds(&e) => return self.hold(BoardId::Blind, mv, true, &e, out),
            Err(e) => return self.refuse_move(BoardId::Blind, mv, &e, now, out),
        }
        if !self.rules(game::Input::Move(mv), now, out) {
            return;
        }
        if self.game.is_over() {
            self.set_modes(now, out);
            return;
        }
        // The sighted player executes the blind player's move on his board; the tactile board
        // awaits his reply.
        let r = self
            .blind_board
            .set_expected(self.game.position().clone(), Mode::Await, now);
        self.recognized(BoardId::Blind, r, now, out);
        if let Some(board) = self.sighted_board.as_mut() {
            let r = board.set_expected(before, Mode::Execute(mv), now);
            self.recognized(BoardId::Sighted, r, now, out);
        }
    }

    /// F.6: a move announced wrongly may be corrected until the opponent's clock has started.
    fn correct(&mut self, text: &str, now: Millis, out: &mut Vec<Effect>) {
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

    /// F.8: a player's own scoresheet, read in any notation the Laws allow and compared move by
    /// move with the record (a sheet behind by what 8.1 allows agrees). A difference retraces
    /// the game only when the two boards differ, and only to where both players' scores agree:
    /// with one sheet entered the other is asked for.
    fn scoresheet(&mut self, side: Color, sans: &[String], now: Millis, out: &mut Vec<Effect>) {
        let record: Vec<Move> = self.game.moves().iter().map(|r| r.mv).collect();
        let mine = sheet::compare(self.game.start_position(), &record, sans);
        out.push(Effect::Note(mine.summary(side)));
        self.sheets[side] = Some(mine);
        // Each sheet entered for the record as it stands now, with whether it differs from it.
        let current = |writer: Color| {
            self.sheets[writer]
                .as_ref()
                .filter(|s| s.record_plies == record.len())
                .map(|s| (s.agree, s.differs(writer)))
        };
        let (mine, other) = (current(side), current(!side));
        let differing: Vec<usize> = [mine, other]
            .into_iter()
            .flatten()
            .filter_map(|(agree, differs)| differs.then_some(agree))
            .collect();
        // F.8 applies "if during a game different positions should arise on the two boards".
        let boards_differ = self.boards_differ();
        match (differing.iter().min(), other, boards_differ) {
            (None, Some(_), true) => out.push(Effect::Note(
                "both scoresheets agree with the record: the board that differs is put right \
                 (F.8)"
                    .into(),
            )),
            (None, _, _) => {}
            (Some(_), _, false) => out.push(Effect::Note(
                "both boards show the game's position, so nothing is retraced (F.8 applies when \
                 the boards differ); the arbiter decides (`takeback PLY` retraces)"
                    .into(),
            )),
            (Some(_), None, true) => out.push(Effect::Note(format!(
                "enter {}'s scoresheet too: the game goes back to where the two scores agree \
                 (F.8)",
                !side
            ))),
            (Some(&agree), Some(_), true) => {
                // Said only once the retrace is done: a refused one says why instead.
                let mark = out.len();
                self.retrace(agree, now, out);
                if self.retraced {
                    out.insert(
                        mark,
                        Effect::Note(format!(
                            "the two scoresheets agree for {agree} half-moves: the game is \
                             retraced to there (F.8)"
                        )),
                    );
                }
            }
        }
    }

    /// Whether a board rests on another position than the one it should show (F.8's condition).
    fn boards_differ(&self) -> bool {
        self.differing.iter().any(|(_, d)| d.is_some())
    }

    /// Take the game back to `to_ply` half-moves (F.8, or the arbiter's `takeback`): the clocks
    /// are held, the times the record has for that point are proposed, both boards are guided
    /// back to its position and nobody moves until the clocks are confirmed or resumed.
    fn retrace(&mut self, to_ply: usize, now: Millis, out: &mut Vec<Effect>) {
        let kept = (
            self.pending_blind,
            self.sighted_candidate,
            self.held,
            self.press_pending,
        );
        self.pending_blind = None;
        self.sighted_candidate = None;
        self.held = None;
        self.press_pending = false;
        self.promotion_ahead = None;
        if !self.rules(game::Input::Retract { to_ply }, now, out) {
            (
                self.pending_blind,
                self.sighted_candidate,
                self.held,
                self.press_pending,
            ) = kept;
            return;
        }
        if let Some(held) = kept.2 {
            out.push(Effect::Note(format!(
                "the {} player's held move is taken back",
                held.board.player()
            )));
        }
        self.proposed_clocks = Some(self.game.clocks_after_ply(to_ply).unwrap_or_else(|| {
            let clock = self.game.clock();
            shakmaty::ByColor::new_with(|c| clock.map_or(0, |k| k.remaining(c, now)))
        }));
        if let Some(p) = self.proposed_clocks {
            out.push(Effect::Note(format!(
                "proposed clocks: White {}, Black {}; confirm with confirm-clocks or set them",
                crate::rules::pgn::format_clk(p.white),
                crate::rules::pgn::format_clk(p.black)
            )));
        }
        // Both players hear it first; then both boards are guided back to the retraced
        // position, and nobody moves until the clocks run again.
        self.say(
            Audience::Both,
            Announcement::Retraced {
                side: self.game.to_move(),
            },
            out,
        );
        self.hold_both(now, out);
        self.retraced = true;
        out.push(Effect::RecordChanged);
    }

    /// After a retrace, once the clocks run again: the player to move may move, on a board that
    /// shows the retraced position (one that still shows a move taken back is guided until it
    /// does, so that the move is not made again by itself).
    fn release_hold(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if !std::mem::take(&mut self.retraced) {
            return;
        }
        for board in [BoardId::Blind, BoardId::Sighted] {
            let shows = match board {
                BoardId::Blind => Some(self.blind_board.shows_expected()),
                BoardId::Sighted => self.sighted_board.as_ref().map(Recognizer::shows_expected),
            };
            match shows {
                Some(true) => {
                    self.set_modes_of(ByBoard::new_with(|b| b == board), now, out);
                }
                Some(false) => self.putting_back[board] = true,
                None => {}
            }
        }
    }

    fn confirm_clocks(&mut self, now: Millis, out: &mut Vec<Effect>) {
        let Some(proposed) = self.proposed_clocks.take() else {
            out.push(Effect::Refused(
                "no clock times are waiting for confirmation".into(),
            ));
            return;
        };
        for side in Color::ALL {
            self.rules(
                game::Input::SetClock {
                    side,
                    remaining_ms: *proposed.get(side),
                },
                now,
                out,
            );
        }
        if self.game.clock().is_some_and(|c| c.is_paused()) {
            self.rules(game::Input::Resume, now, out);
        }
        self.release_hold(now, out);
    }

    /// Apply a rules input and turn its events into effects. Returns whether it was accepted.
    fn rules(&mut self, input: game::Input, now: Millis, out: &mut Vec<Effect>) -> bool {
        match self.game.apply(input, now) {
            Ok(events) => {
                for e in events {
                    self.game_event(e, now, out);
                }
                true
            }
            Err(e) => {
                out.push(Effect::Refused(e.to_string()));
                false
            }
        }
    }

    /// The player whose clock the arbiter (or a rule) changed is told so; his time only when he
    /// asks (F.9 d).
    fn clock_changed(&mut self, side: Color, out: &mut Vec<Effect>) {
        let audience = if side == self.cfg.blind {
            Audience::Blind
        } else {
            Audience::Sighted
        };
        self.say(audience, Announcement::ClockChanged { side }, out);
    }

    fn game_event(&mut self, event: Event, now: Millis, out: &mut Vec<Effect>) {
        let blind = self.cfg.blind;
        let to = |side: Color| {
            if side == blind {
                Audience::Blind
            } else {
                Audience::Sighted
            }
        };
        match event {
            Event::MovePlayed { .. } | Event::Retracted { .. } | Event::PositionSet { .. } => {
                // An adjustment announced before a move is over with it.
                self.adjusting = None;
                out.push(Effect::RecordChanged)
            }
            Event::DrawOffered { by } => {
                self.say(to(!by), Announcement::DrawOffered { by }, out);
                out.push(Effect::RecordChanged);
            }
            Event::DrawDeclined { by } => {
                self.say(to(!by), Announcement::DrawDeclined { by }, out);
            }
            Event::ClaimUpheld { article, .. } => {
                self.say(Audience::Both, Announcement::ClaimUpheld { article }, out);
            }
            Event::ClaimRejected {
                by,
                article,
                opponent_bonus_ms,
                claimant_remaining_ms,
                ..
            } => {
                self.say(Audience::Both, Announcement::ClaimRejected { article }, out);
                out.push(Effect::Note(format!(
                    "{by}'s claim under {article} is incorrect (9.5 b applied)"
                )));
                if opponent_bonus_ms > 0 {
                    self.clock_changed(!by, out);
                }
                if claimant_remaining_ms.is_some() {
                    self.clock_changed(by, out);
                }
            }
            Event::FlagFell { side } => {
                self.say(Audience::Both, Announcement::FlagFell { side }, out);
            }
            Event::IllegalMovePenalty {
                offender,
                count,
                bonus_ms,
            } => {
                out.push(Effect::Note(format!(
                    "illegal move {count} by {offender}: {} s added to the opponent (7.4 b)",
                    bonus_ms / 1000
                )));
                self.clock_changed(!offender, out);
            }
            Event::IllegalMoveClaimable { offender } => out.push(Effect::Note(format!(
                "{offender} completed an illegal move: it may be claimed (Appendix C)"
            ))),
            Event::ClocksPaused => {
                self.say(Audience::Both, Announcement::ClocksPaused, out);
            }
            Event::ClocksResumed => {
                self.say(Audience::Both, Announcement::ClocksResumed, out);
                // After a retrace the boards held still; now the player to move may move. (Any
                // other pause leaves the boards as they were: a move in progress goes on.)
                self.release_hold(now, out);
            }
            Event::AnalysisNeeded { ticket, query } => out.push(Effect::Analyse { ticket, query }),
            Event::ArbiterMustRule { reason, .. } => out.push(Effect::Note(format!(
                "the arbiter declares the result ({}): `result 1-0|0-1|1/2-1/2`",
                reason.describe()
            ))),
            Event::GameEnded(end) => {
                match end.reason {
                    EndReason::Stalemate => {
                        self.say(Audience::Both, Announcement::Stalemate, out);
                    }
                    EndReason::DeadPosition => {
                        self.say(Audience::Both, Announcement::DeadPosition, out);
                    }
                    EndReason::Agreement => {
                        self.say(Audience::Both, Announcement::DrawAccepted, out);
                    }
                    _ => {}
                }
                let result = match end.outcome {
                    shakmaty::KnownOutcome::Decisive {
                        winner: Color::White,
                    } => ResultWords::WhiteWins,
                    shakmaty::KnownOutcome::Decisive {
                        winner: Color::Black,
                    } => ResultWords::BlackWins,
                    shakmaty::KnownOutcome::Draw => ResultWords::Draw,
                };
                self.say(Audience::Both, Announcement::Result(result), out);
                out.push(Effect::RecordChanged);
                out.push(Effect::GameOver(end));
                self.pending_blind = None;
                self.sighted_candidate = None;
                self.press_pending = false;
                self.hold_both(now, out);
            }
            Event::ClockStarted { side } => {
                out.push(Effect::Note(format!("{side}'s clock started")))
            }
            Event::FlagClaimRejected { by } => out.push(Effect::Note(format!(
                "{by}'s flag claim is not valid: the opponent's flag has not fallen, or both have"
            ))),
            Event::QuickplayClaimed { by } => {
                self.quickplay_claimant = Some(by);
                out.push(Effect::Note(format!(
                    "{by} claims a draw under 10.2; the arbiter rules: accept, postpone or reject"
                )));
            }
            Event::QuickplayPostponed { bonus_ms } | Event::QuickplayRejected { bonus_ms } => {
                let ruling = if matches!(event, Event::QuickplayPostponed { .. }) {
                    "postponed"
                } else {
                    "rejected"
                };
                out.push(Effect::Note(format!(
                    "10.2 claim {ruling}; {} s added to the opponent",
                    bonus_ms / 1000
                )));
                if bonus_ms > 0
                    && let Some(claimant) = self.quickplay_claimant
                {
                    self.clock_changed(!claimant, out);
                }
            }
            Event::Adjourned { by, move_number } => {
                self.pending_blind = None;
                self.sighted_candidate = None;
                self.press_pending = false;
                self.say(Audience::Both, Announcement::Adjourned { by }, out);
                out.push(Effect::Note(format!(
                    "game adjourned: {by} sealed move {move_number}; the clocks stand until the envelope is opened"
                )));
                out.push(Effect::RecordChanged);
                self.hold_both(now, out);
            }
            Event::ResumptionSet => {
                if let Some(text) = self.game.adjournment().and_then(|a| a.resumption.clone()) {
                    out.push(Effect::Note(format!("resumption: {text}")));
                }
                out.push(Effect::RecordChanged);
            }
            Event::EnvelopeOpened { by } => out.push(Effect::Note(format!(
                "envelope opened: {by}'s sealed move is made"
            ))),
            Event::SealedMoveInvalid { by, text, reason } => {
                self.say(Audience::Both, Announcement::SealedMoveInvalid, out);
                out.push(Effect::Note(format!(
                    "{by}'s sealed move '{text}' is not valid ({reason}): {by} loses unless the opponent cannot mate"
                )));
            }
            Event::ClockSet { side, remaining_ms } => {
                out.push(Effect::Note(format!(
                    "{side}'s clock set to {}",
                    crate::rules::pgn::format_clk(remaining_ms)
                )));
                self.clock_changed(side, out);
            }
        }
    }

    /// A board rests on a wrong position. On the player's own move that is a move that is not
    /// possible (it is not announced; the touched piece must be moved, Art. 4.3); otherwise the
    /// board must be corrected (F.7). Either way he hears precisely what is wrong.
    fn differs(&mut self, board: BoardId, diff: BoardDiff, now: Millis, out: &mut Vec<Effect>) {
        let audience = match board {
            BoardId::Blind => Audience::Blind,
            BoardId::Sighted => Audience::Sighted,
        };
        let own_move = match board {
            BoardId::Blind => self.blind_board.mode() == Mode::Move,
            BoardId::Sighted => self
                .sighted_board
                .as_ref()
                .is_some_and(|r| r.mode() == Mode::Move),
        };
        if own_move {
            self.say(audience, Announcement::IllegalMove, out);
            // The player is told and guided; whether it was an illegal move completed (7.4) is
            // the arbiter's ruling, so he hears of every one.
            let player = self.player(board);
            let squares: Vec<String> = diff.squares.iter().map(|d| d.square.to_string()).collect();
            out.push(Effect::Note(format!(
                "illegal move on the {} board by {player} (7.4): it stands on {}; not counted, the \
                 player is guided back. If the arbiter rules it completed: `illegal {player}`",
                board.name(),
                squares.join(" ")
            )));
        }
        for g in guidance(&diff) {
            self.say(audience, Announcement::Guidance(g), out);
        }
        out.push(Effect::Note(format!(
            "{} board differs on {}",
            board.name(),
            count(diff.squares.len(), "square", "squares")
        )));
        self.differing[board] = Some(Differing { diff, told_at: now });
    }

    fn repeat_guidance(&mut self, now: Millis, out: &mut Vec<Effect>) {
        for board in [BoardId::Blind, BoardId::Sighted] {
            let due = self.differing[board]
                .as_ref()
                .filter(|d| now >= d.told_at + self.cfg.guidance_repeat_ms)
                .map(|d| d.diff.clone());
            if let Some(diff) = due {
                let audience = if board == BoardId::Blind {
                    Audience::Blind
                } else {
                    Audience::Sighted
                };
                for g in guidance(&diff) {
                    self.say(audience, Announcement::Guidance(g), out);
                }
                if let Some(d) = self.differing[board].as_mut() {
                    d.told_at = now;
                }
            }
        }
    }

    fn say(
        &mut self,
        audience: Audience,
        announcement: Announcement,
        out: &mut Vec<Effect>,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        out.push(Effect::Say {
            id,
            audience,
            announcement,
        });
        id
    }

    /// A touch for `touches.txt`, and, with `noted`, for the assistant's and arbiter's notes
    /// once the move is complete (see [`Arbiter::tell_touches`]).
    fn record_touch(
        &mut self,
        board: BoardId,
        square: Square,
        piece: Option<Piece>,
        noted: bool,
        out: &mut Vec<Effect>,
    ) {
        out.push(Effect::Touch {
            board,
            square,
            piece,
        });
        if noted {
            self.held_touches[board].push((square, piece));
        }
    }

    /// The touches held for `board`'s player, told now that his move `mv` is complete (None:
    /// abandoned, the game is over): each piece touched that the move did not move or take,
    /// once.
    fn tell_touches(&mut self, board: BoardId, mv: Option<Move>, out: &mut Vec<Effect>) {
        let involved = |square: Square| match mv {
            None => false,
            Some(Move::Castle { king, rook }) => square == king || square == rook,
            Some(Move::EnPassant { from, to }) => {
                square == from
                    || square == to
                    || square == Square::from_coords(to.file(), from.rank())
            }
            Some(m) => Some(square) == m.from() || square == m.to(),
        };
        let mut told = Vec::new();
        for (square, piece) in std::mem::take(&mut self.held_touches[board]) {
            if involved(square) || told.contains(&square) {
                continue;
            }
            told.push(square);
            out.push(Effect::Note(touch_note(board, square, piece)));
        }
    }

    /// A touch of a piece, for the rules: it rejects an offer (9.1 a), costs a right to claim
    /// (9.4 of 2009), ends a claim of an illegal move (Appendix C of 2001). A touch the rules do
    /// not take (the game over or adjourned) is no news.
    fn touch_to_rules(
        &mut self,
        board: BoardId,
        square: Square,
        now: Millis,
        out: &mut Vec<Effect>,
    ) {
        let by = self.player(board);
        if let Ok(events) = self.game.apply(game::Input::Touch { by, square }, now) {
            for e in events {
                self.game_event(e, now, out);
            }
        }
    }

    /// Whether a lift on `board` while it executes the opponent's move is its player's touch:
    /// one of his own pieces, not part of the move, while he has the move.
    fn touched_while_executing(
        &mut self,
        board: BoardId,
        square: Square,
        piece: Option<Piece>,
    ) -> bool {
        let player = self.player(board);
        let Some(Mode::Execute(m)) = self.recognizer(board).map(|r| r.mode()) else {
            return false;
        };
        let involved = match m {
            Move::Castle { king, rook } => square == king || square == rook,
            Move::EnPassant { from, to } => {
                square == from
                    || square == to
                    || square == Square::from_coords(to.file(), from.rank())
            }
            _ => Some(square) == m.from() || square == m.to(),
        };
        piece.is_some_and(|p| p.color == player)
            && !involved
            && self.game.to_move() == player
            && !self.game.is_over()
    }

    /// Whether `square` on `board` is the piece its player announced he adjusts.
    fn adjusting(&self, board: BoardId, square: Square) -> bool {
        self.adjusting == Some((self.player(board), square))
    }

    /// Resumption: the envelope is opened. The sealed move is said to both players and made on
    /// both boards (the position before it was set up on them); an invalid one loses.
    fn open_envelope(&mut self, now: Millis, out: &mut Vec<Effect>) {
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
        // Neither board shows the sealed move yet: each player's board waits for it (the blind
        // player makes it himself, whoever sealed it).
        let r = self
            .blind_board
            .set_expected(before.clone(), Mode::Execute(mv), now);
        self.recognized(BoardId::Blind, r, now, out);
        if let Some(board) = self.sighted_board.as_mut() {
            let r = board.set_expected(before, Mode::Execute(mv), now);
            self.recognized(BoardId::Sighted, r, now, out);
        }
    }

    fn player(&self, board: BoardId) -> Color {
        match board {
            BoardId::Blind => self.cfg.blind,
            BoardId::Sighted => !self.cfg.blind,
        }
    }
}

/// Turn a board difference into what a player is told: a piece on the wrong square where it can
/// be matched with the square it belongs on, otherwise each empty, extra or wrong square.
pub fn guidance(diff: &BoardDiff) -> Vec<Guidance> {
    let mut missing: Vec<(Square, Piece)> = Vec::new();
    let mut extra: Vec<(Square, Option<Piece>)> = Vec::new();
    let mut out = Vec::new();
    for d in &diff.squares {
        match (d.expected, d.found) {
            (Some(p), Found::Empty) => missing.push((d.square, p)),
            (None, Found::Piece(p)) => extra.push((d.square, Some(p))),
            (None, Found::Occupied { likely }) => extra.push((d.square, likely)),
            (Some(belongs), Found::Piece(found)) => out.push(Guidance::Wrong {
                square: d.square,
                found,
                belongs,
            }),
            (Some(_), Found::Occupied { .. }) | (None, Found::Empty) => {}
        }
    }
    // Pair each extra piece with a missing square of the same piece ("Springer steht auf Felix
    // vier, gehört auf Felix drei"); with exactly one of each, pair them whatever the guess.
    let single = missing.len() == 1 && extra.len() == 1;
    let mut unpaired_extra = Vec::new();
    for (square, likely) in extra {
        let matched = missing
            .iter()
            .position(|&(_, p)| Some(p) == likely || (single && likely.is_none()));
        match matched {
            Some(i) => {
                let (belongs, piece) = missing.remove(i);
                out.push(Guidance::Misplaced {
                    piece,
                    found: square,
                    belongs,
                });
            }
            None => unpaired_extra.push((square, likely)),
        }
    }
    for (square, piece) in missing {
        out.push(Guidance::Missing { square, piece });
    }
    for (square, piece) in unpaired_extra {
        out.push(Guidance::Extra { square, piece });
    }
    out
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

/// Who hears what concerns a board's player.
fn audience_of(board: BoardId) -> Audience {
    match board {
        BoardId::Blind => Audience::Blind,
        BoardId::Sighted => Audience::Sighted,
    }
}

fn which(board: BoardId) -> WhichBoard {
    match board {
        BoardId::Blind => WhichBoard::Tactile,
        BoardId::Sighted => WhichBoard::Sighted,
    }
}

/// The note of a touch, for the assistant and the arbiter (F.9 e).
pub fn touch_note(board: BoardId, square: Square, piece: Option<Piece>) -> String {
    format!(
        "{} player touched {}",
        board.player(),
        describe(square, piece)
    )
}

pub(super) fn describe(square: Square, piece: Option<Piece>) -> String {
    match piece {
        Some(p) => format!("{} {:?} on {square}", p.color, p.role).to_lowercase(),
        None => format!("the piece on {square}"),
    }
}
