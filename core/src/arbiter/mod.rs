//! Appendix F at the table: one game, two boards, two scoresheets.
//!
//! This module owns what a blind player's assistant does that a machine can do: it recognises
//! moves on both boards, decides when a move counts as executed, announces it to the other
//! player, starts the opponent's clock only once the announcement has finished (F.3 c, F.9 c),
//! has each player execute the other's move on his own board, guides a player whose board differs
//! (F.7), retraces the game when the scoresheets disagree (F.8), and reports touch sequences that
//! may give a claim (Art. 4). The table has a seat per colour ([`SeatConfig`]): one blind player
//! against a sighted one, or two blind players on two tactile boards; everything is keyed by the
//! seat's colour. It owns the [`Game`] and the boards' [`Recognizer`]s.
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
//! - `seats`: the two seats ([`SeatConfig`]), and how people are told about them ([`SeatNames`]);
//! - `modes`: what each board waits for (its player's move, the other's, nothing);
//! - `intake`: moves recognised on the boards or entered at the console, held moves, refusals;
//! - `completion`: when a move counts: a blind player's once announced (F.3 c), a sighted
//!   player's at his clock press (6.7 a, F.9 c);
//! - `correction`: a move announced wrongly (F.6);
//! - `retrace`: scoresheets compared and the game retraced (F.8) at the arbiter's `confirm`,
//!   undone at his `undo`, the clocks confirmed;
//! - `penalty`: penalties offered with their amounts and applied at the arbiter's `confirm`;
//! - `events`: what the Laws' events become at the table (announcements, notes, records);
//! - `guide`: a board that differs, described until it is right (F.7);
//! - `links`: a board's link lost and back, said once for a flapping cable;
//! - [`touch`]: touches (F.2, F.9 e, 4.2) and what they may give to claim (4.3, 4.4, 4.6);
//! - `envelope`: the sealed move and the envelope opened (adjourned games).

mod completion;
mod correction;
mod envelope;
mod events;
mod guide;
mod intake;
mod links;
mod modes;
mod penalty;
mod retrace;
mod seats;
pub mod touch;

#[cfg(test)]
mod tests;

use shakmaty::{ByColor, Chess, Color, Move, Piece, Role, Square};

use crate::{
    announce::{Announcement, Audience},
    board::{
        SensorEvent,
        recognize::{Mode, Recognizer},
    },
    rules::{
        Millis,
        dead::Query,
        game::{self, Game, GameEnd, RulesConfig},
        sheet,
    },
};

pub use completion::Completion;
pub use guide::guidance;
pub use links::{FLAP_SETTLE_MS, FLAP_WINDOW_MS};
pub use seats::{SeatConfig, SeatNames, one_blind, two_blind};
pub use touch::touch_note;

use completion::PendingAnnouncement;
use guide::Differing;
use intake::Held;
use links::LinkNews;

/// How the table is set up.
#[derive(Debug, Clone)]
pub struct ArbiterConfig {
    pub rules: RulesConfig,
    /// The seat of each colour: its player and his board.
    pub seats: ByColor<SeatConfig>,
    /// A board that still differs is described again after this long (F.7: guided until it is
    /// right).
    pub guidance_repeat_ms: Millis,
    /// A blind player hears his own move as it was announced in his name (F.1), so that a
    /// misread move can be corrected in time (F.6).
    pub say_own_move: bool,
    /// F.6: how long after his move's announcement has ended a blind player may still correct
    /// it (`correct`); it counts, and the opponent's clock starts, when this has passed. 0: at
    /// the announcement's end, as F.3 c has it.
    pub correction_window_ms: Millis,
}

impl ArbiterConfig {
    /// Why this table cannot be played (no blind player, a blind player without a board).
    pub fn check(&self) -> Result<(), String> {
        seats::check(&self.seats)
    }

    /// How the seats are named to people.
    pub fn names(&self) -> SeatNames {
        SeatNames::new(&self.seats)
    }

    /// Whether `seat`'s player is blind.
    pub fn is_blind(&self, seat: Color) -> bool {
        self.seats[seat].blind
    }

    /// The blind player's colour at a table with one blind player; `None` when both are.
    pub fn the_blind(&self) -> Option<Color> {
        match (self.seats.white.blind, self.seats.black.blind) {
            (true, false) => Some(Color::White),
            (false, true) => Some(Color::Black),
            _ => None,
        }
    }

    /// The sighted player's colour, if one plays.
    pub fn the_sighted(&self) -> Option<Color> {
        Color::ALL.into_iter().find(|&c| !self.seats[c].blind)
    }
}

/// Everything the arbiter reacts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// The start of play: White's clock starts.
    Start,
    /// A sensor event of `seat`'s board.
    Board {
        seat: Color,
        event: SensorEvent,
    },
    BoardDisconnected {
        seat: Color,
    },
    BoardConnected {
        seat: Color,
    },
    /// A speaker finished saying the announcement with this id.
    SpeechFinished {
        id: u64,
    },
    /// The sighted player stops his clock (at a table with two blind players nobody needs to:
    /// each move counts once announced).
    ClockPress,
    /// The sighted player's move, entered at the console (boards without sensors).
    EnterMove(String),
    /// The promotion piece a blind player announced (occupancy boards cannot see it): for the
    /// promotion waiting on the board of the player to move, or made ahead on the other.
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
    /// The proposed clocks set as they stood, without a clock change on the record: a training
    /// game's takeback.
    RestoreClocks,
    /// The arbiter confirms what tactus offered him: the retrace the scoresheets give (F.8), or
    /// a penalty (9.5 b, 7.4 b, a time penalty he typed).
    Confirm,
    /// The arbiter drops what was offered (a claim typed in error: no penalty).
    Cancel,
    /// The arbiter undoes the last retrace before play goes on.
    Undo,
    /// A penalty the arbiter imposes (an input that changes a clock: 7.4 b's `IllegalMove`, a
    /// time `AdjustClock`): offered with its amount, applied at [`Input::Confirm`].
    Penalty(game::Input),
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
        seat: Color,
    },
    /// Run the mateability search and answer with `Input::Rules(game::Input::Verdict { .. })`.
    Analyse {
        ticket: u64,
        query: Query,
    },
    /// A touch, for `touches.txt` (and F.9 e: the assistant sees the sighted player's touches).
    Touch {
        seat: Color,
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
    /// Each seat's board (none: a plain board).
    boards: ByColor<Option<Recognizer>>,
    next_id: u64,
    /// A blind player's move, announced and waiting to count (F.3 c).
    pending: Option<PendingAnnouncement>,
    /// The sighted player's move entered at the console, waiting for his clock press.
    sighted_candidate: Option<Move>,
    proposed_clocks: Option<shakmaty::ByColor<i64>>,
    differing: ByColor<Option<Differing>>,
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
    /// player moves again once it shows it.
    putting_back: ByColor<bool>,
    /// The piece each blind player said for a promotion he made ahead of the count.
    promotion_ahead: ByColor<Option<Role>>,
    /// A pawn each player released on its promotion square and then took off again (4.6 c),
    /// with the ply it was in: a `promote` then is refused saying so.
    promotion_left: ByColor<Option<(Square, usize)>>,
    /// Who claimed under 10.2: his opponent's clock changes with the ruling.
    quickplay_claimant: Option<Color>,
    /// What the players were told of each board's link, so that a flapping cable is said once.
    links: ByColor<LinkNews>,
    /// Each board's player's own pieces lifted while he executed his opponent's move, at the
    /// ply he then had the move: touches of his coming move (F.2, 4.3).
    early_touches: ByColor<Option<(usize, Vec<Square>)>>,
    /// Touches of each player not yet told to the assistant and arbiter: held until his move
    /// is complete, then told only if the piece touched was not one the move moved (a touch of
    /// the piece he then moves is the move itself, and no news), or when the game ends without
    /// that move.
    held_touches: ByColor<Vec<(Square, Option<Piece>)>>,
    /// Each player's scoresheet as last entered (F.8), compared with the record.
    sheets: shakmaty::ByColor<Option<sheet::Comparison>>,
    /// What waits for the arbiter's `confirm`.
    proposal: Option<Proposal>,
    /// Both clocks when the last input reached the game (and when): a clock change is said
    /// with its amount.
    clocks_before: Option<(Millis, ByColor<i64>)>,
    /// A move each board's player made before his opponent's (no move): refused should it
    /// still stand when his turn comes.
    premoved: ByColor<Option<Move>>,
    /// The game as it stood before the last retrace, its clocks stopped then: what `undo`
    /// restores, until play goes on.
    undo: Option<Box<Game>>,
    /// A draw offer made with a move not yet announced (9.1 b: after making his move, before
    /// stopping his clock): its player and the ply it was made at. His opponent hears it after
    /// that move, as the Laws order them, not before.
    offer_after_move: Option<(Color, usize)>,
}

/// What tactus offers the arbiter to decide, done only at his `confirm`.
#[derive(Debug, Clone)]
enum Proposal {
    /// F.8: retrace to `to_ply`, offered when the record had `record_plies`.
    Retrace { to_ply: usize, record_plies: usize },
    /// A penalty: the input that imposes it, offered after `ply` half-moves; `clocks_stopped`:
    /// a claim that stopped both clocks while it waits (9.5), which run again when the arbiter
    /// decides.
    Penalty {
        input: game::Input,
        ply: usize,
        clocks_stopped: bool,
    },
}

impl Arbiter {
    pub fn new(cfg: ArbiterConfig, start: Chess) -> Arbiter {
        let game = Game::from_position(cfg.rules.clone(), start.clone());
        let boards = cfg.seats.map(|seat| {
            seat.board.map(|c| {
                let r = Recognizer::new(c, start.clone(), Mode::Hold);
                // A sighted player's press counts his move; a blind player's counts once
                // announced.
                if !seat.blind && seat.completion == Completion::ClockPress {
                    r.with_press_completion()
                } else {
                    r
                }
            })
        });
        Arbiter {
            cfg,
            game,
            boards,
            next_id: 1,
            pending: None,
            sighted_candidate: None,
            proposed_clocks: None,
            differing: ByColor::default(),
            started: false,
            adjusting: None,
            retraced: false,
            held: None,
            press_pending: false,
            putting_back: ByColor::default(),
            promotion_ahead: ByColor::default(),
            promotion_left: ByColor::default(),
            quickplay_claimant: None,
            links: ByColor::default(),
            early_touches: ByColor::default(),
            held_touches: ByColor::default(),
            sheets: shakmaty::ByColor::default(),
            proposal: None,
            undo: None,
            clocks_before: None,
            premoved: ByColor::default(),
            offer_after_move: None,
        }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }
    pub fn config(&self) -> &ArbiterConfig {
        &self.cfg
    }
    /// `seat`'s board, if it has sensors.
    pub fn board(&self, seat: Color) -> Option<&Recognizer> {
        self.boards[seat].as_ref()
    }
    /// Whether `seat`'s board has been found to rest on another position than the one it
    /// should show, and has not shown it since (its player is guided, F.7).
    pub fn board_differs(&self, seat: Color) -> bool {
        self.differing[seat].is_some()
    }
    /// Whether play has started ([`Input::Start`] was handled).
    pub fn started(&self) -> bool {
        self.started
    }

    /// When [`Input::Tick`] should come next: a settle time, a repeated guidance, a flag.
    pub fn next_deadline(&self) -> Option<Millis> {
        let mut deadlines = Vec::new();
        for board in self.boards.iter().flatten() {
            deadlines.extend(board.next_deadline());
        }
        for d in self.differing.iter().flatten() {
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
        for link in self.links.iter() {
            deadlines.extend(link.unsaid_loss_due());
        }
        deadlines.extend(self.pending.and_then(|p| p.counts_at));
        deadlines.into_iter().min()
    }

    /// One input at time `now`.
    pub fn handle(&mut self, input: Input, now: Millis) -> Vec<Effect> {
        let mut out = Vec::new();
        match input {
            Input::Start => self.start(now, &mut out),
            Input::Board { seat, event } => self.board_event(seat, event, now, &mut out),
            Input::BoardDisconnected { seat } => self.disconnected(seat, now, &mut out),
            Input::BoardConnected { seat } => self.connected(seat, now, &mut out),
            Input::SpeechFinished { id } => self.speech_finished(id, now, &mut out),
            Input::ClockPress => self.press(now, &mut out),
            Input::EnterMove(text) => self.enter_move(&text, &mut out),
            Input::Promote(role) => self.promote(role, now, &mut out),
            Input::Correct(text) => self.correct(&text, now, &mut out),
            Input::Scoresheet { side, sans } => self.scoresheet(side, &sans, now, &mut out),
            Input::ConfirmClocks => self.confirm_clocks(now, &mut out),
            Input::RestoreClocks => self.restore_clocks(now, &mut out),
            Input::Confirm => self.confirm(now, &mut out),
            Input::Cancel => self.cancel(now, &mut out),
            Input::Undo => self.undo_retrace(now, &mut out),
            Input::Penalty(input) => self.propose_penalty(input, now, &mut out),
            Input::Rules(claim @ game::Input::Claim { .. }) => {
                self.propose_penalty(claim, now, &mut out)
            }
            Input::Adjust { by, square } => self.adjust(by, square, &mut out),
            Input::Rules(game::Input::Seal { by, text, notation }) => {
                self.seal(by, text, notation, now, &mut out)
            }
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
        self.say_offer_after_move(&mut out);
        if self.game.is_over() {
            // Abandoned: no move of his will come to tell them with.
            for seat in self.seats() {
                self.tell_touches(seat, None, &mut out);
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
        for seat in self.seats() {
            // Play started over a board set up wrongly (the arbiter's `start anyway`): it is
            // guided to the position and holds it; its player moves once it shows it. What it
            // shows is never taken for a move of his (a knight set up on h3 was read as Nh3).
            if self.board(seat).is_some_and(|r| !r.shows_expected())
                && self.game.ply() == 0
                && self.pending.is_none()
            {
                self.put_back(seat, now, out);
            }
            if self.boards[seat].is_some() {
                out.push(Effect::RequestSnapshot { seat });
            }
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
        for seat in self.seats() {
            if let Some(r) = self.recognizer(seat) {
                let recognized = r.tick(now);
                self.recognized(seat, recognized, now, out);
                self.board_caught_up(seat, now, out);
            }
        }
        self.repeat_guidance(now, out);
        self.correction_window_passed(now, out);
    }

    /// The recogniser of `seat`'s board; none for a board without sensors.
    fn recognizer(&mut self, seat: Color) -> Option<&mut Recognizer> {
        self.boards[seat].as_mut()
    }

    /// The seats in the order the table is served: the blind player's first (at a table with
    /// one), else White's.
    fn seats(&self) -> [Color; 2] {
        match self.cfg.the_blind() {
            Some(blind) => [blind, !blind],
            None => Color::ALL,
        }
    }

    /// Whether `seat`'s player is blind.
    fn is_blind(&self, seat: Color) -> bool {
        self.cfg.is_blind(seat)
    }

    /// How seats are named in notes.
    fn names(&self) -> SeatNames {
        self.cfg.names()
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
