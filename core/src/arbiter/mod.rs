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
//!
//! Where things live: this file holds the [`Arbiter`], what goes in ([`Input`]), what comes out
//! ([`Effect`]), how the table is set up ([`ArbiterConfig`]) and the dispatch ([`Arbiter::handle`],
//! the clock's tick). Each duty has a file of its own, as `impl Arbiter` blocks over the same
//! private state:
//! - `boards`: which board ([`BoardId`], [`ByBoard`]) and who hears about it;
//! - `modes`: what each board waits for (its player's move, the other's, nothing);
//! - `intake`: moves recognised on the boards or entered at the console, held moves, refusals;
//! - `completion`: when a move counts: the blind player's once announced (F.3 c), the sighted
//!   player's at his clock press (6.7 a, F.9 c);
//! - `correction`: a move announced wrongly (F.6);
//! - `retrace`: scoresheets compared and the game retraced (F.8), the clocks confirmed;
//! - `events`: what the Laws' events become at the table (announcements, notes, records);
//! - `guide`: a board that differs, described until it is right (F.7);
//! - `links`: a board's link lost and back, said once for a flapping cable;
//! - [`touch`]: touches (F.2, F.9 e, 4.2) and what they may give to claim (4.3, 4.4, 4.6);
//! - `envelope`: the sealed move and the envelope opened (adjourned games).

mod boards;
mod completion;
mod correction;
mod envelope;
mod events;
mod guide;
mod intake;
mod links;
mod modes;
mod retrace;
pub mod touch;

#[cfg(test)]
mod tests;

use shakmaty::{Chess, Color, Move, Piece, Role, Square};

use crate::{
    announce::{Announcement, Audience},
    board::{
        SensorEvent,
        recognize::{Mode, Recognizer, RecognizerConfig},
    },
    rules::{
        Millis,
        dead::Query,
        game::{self, Game, GameEnd, RulesConfig},
        sheet,
    },
};

pub use boards::{BoardId, ByBoard};
pub use completion::Completion;
pub use guide::guidance;
pub use links::{FLAP_SETTLE_MS, FLAP_WINDOW_MS};
pub use touch::touch_note;

use completion::PendingAnnouncement;
use guide::Differing;
use intake::Held;
use links::LinkNews;

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
        // A flag already shown (rapid, blitz: the game goes on until it is claimed) is no
        // deadline: its instant has passed and would be ticked at again and again.
        if let Some(clock) = self.game.clock()
            && let Some(side) = clock.running()
            && !self.game.flag_shown(side)
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
            Input::Board { board, event } => self.board_event(board, event, now, &mut out),
            Input::BoardDisconnected { board } => self.disconnected(board, now, &mut out),
            Input::BoardConnected { board } => self.connected(board, now, &mut out),
            Input::SpeechFinished { id } => self.speech_finished(id, now, &mut out),
            Input::ClockPress => self.press(now, &mut out),
            Input::EnterMove(text) => self.enter_move(&text, &mut out),
            Input::Promote(role) => self.promote(role, now, &mut out),
            Input::Correct(text) => self.correct(&text, now, &mut out),
            Input::Scoresheet { side, sans } => self.scoresheet(side, &sans, now, &mut out),
            Input::ConfirmClocks => self.confirm_clocks(now, &mut out),
            Input::Adjust { by, square } => self.adjust(by, square, &mut out),
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

    /// The start of play: the clock of the player to move starts (unless a move made before
    /// already started it), the boards wait for their players and are read afresh.
    fn start(&mut self, now: Millis, out: &mut Vec<Effect>) {
        if self.started {
            out.push(Effect::Refused("the game has already started".into()));
            return;
        }
        self.started = true;
        // Both players hear that play starts, and whose move it is (the blind player cannot see
        // the arbiter's sign, nor the clock start).
        let side = self.game.to_move();
        self.say(Audience::Both, Announcement::GameStarted { side }, out);
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

    /// Time passes: the clocks, the recognisers' deadlines, guidance due again.
    fn tick(&mut self, now: Millis, out: &mut Vec<Effect>) {
        self.say_lasting_losses(now, out);
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

    /// The recogniser of `board`; none for a sighted board without sensors.
    fn recognizer(&mut self, board: BoardId) -> Option<&mut Recognizer> {
        match board {
            BoardId::Blind => Some(&mut self.blind_board),
            BoardId::Sighted => self.sighted_board.as_mut(),
        }
    }

    /// The colour of `board`'s player.
    fn player(&self, board: BoardId) -> Color {
        match board {
            BoardId::Blind => self.cfg.blind,
            BoardId::Sighted => !self.cfg.blind,
        }
    }

    /// Say `announcement` to `audience`; returns the id its speaker reports when it has been said.
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
}
