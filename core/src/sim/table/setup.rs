//! One table drawn from a seed: its seats (a blind player against a sighted one on a DGT or a
//! plain board, or two blind players on two tactile boards), how the people behave (chances per
//! occasion), the games they play; and what a run reports (how it ended, what the people did).

use shakmaty::{ByColor, Chess, Color, Move};

use crate::sim::Rng;
use crate::{
    arbiter::Completion,
    board::{profile::ProfileSet, recognize::RecognizerConfig},
    rules::{Millis, pgn::read_pgn},
};

/// The sighted player's board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SightedBoard {
    /// A DGT board; his move counts when the board settles, or when he presses his clock.
    Dgt(Completion),
    /// A plain board: the assistant enters his move at the console and presses for him.
    Manual,
}

/// Who sits in a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatKind {
    /// A blind player on a tactile board.
    Blind,
    /// A sighted player on his board.
    Sighted(SightedBoard),
}

/// How the people at this table behave: chances per occasion.
#[derive(Debug, Clone, PartialEq)]
pub struct Behaviour {
    /// The opponent's move is executed before tactus has announced it (heard said aloud, F.1).
    pub early_execution: f64,
    /// The opponent's move is executed on a wrong square first, corrected once guided.
    pub wrong_square: f64,
    /// An own move is first put on a square the piece cannot go to, corrected once told.
    pub impossible_first: f64,
    /// A piece is knocked over and put back.
    pub knock: f64,
    /// The board's cable is pulled in the middle of a move and plugged back in.
    pub unplug: f64,
    /// The arbiter stops the clocks (6.12) before a move.
    pub pause: f64,
    /// A player makes his move although the clocks stand.
    pub move_while_paused: f64,
    /// The sighted player presses his clock right after placing his piece (else a while later).
    pub press_early: f64,
    /// The sighted player presses before his move is complete (and again after).
    pub press_premature: f64,
    /// An announcement takes long to say.
    pub slow_speech: f64,
    /// A capture: the mover lifted first (else the captured piece first).
    pub mover_first: f64,
    /// The tactile board's sensor chatters.
    pub bounce: f64,
    /// The DGT player slides long-range pieces over the squares between.
    pub slide: f64,
    /// A player makes his next move on his board before his opponent has moved (no move: 1.1).
    /// Drawn from a generator of its own (see [`Behaviour::draw_premove`]), so that every seed
    /// drawn before it was added draws the same table.
    pub premove: f64,
    /// What the people ask and press beside their moves (F.9 d requests at a keypad or a
    /// board's buttons, the assistant's console, the DGT clock's lever by habit). Drawn from a
    /// generator of its own ([`Asking::draw`]), as `premove` is.
    pub asking: Asking,
}

/// How often the people at a table ask and press beside their moves.
#[derive(Debug, Clone, PartialEq)]
pub struct Asking {
    /// A blind player asks something (the time, the count, the last move, `repeat`, a square, a
    /// game read back, `stop`...): how often, a minute on average.
    pub requests: f64,
    /// Of his requests, the share made with his board's buttons (else at his keypad).
    pub buttons: f64,
    /// Of his keypad's lines, the share mistyped (a word no command has).
    pub typos: f64,
    /// The assistant asks at his own console (answered there only), or passes a question on
    /// with `tell` (said to the blind player): how often, a minute on average.
    pub assistant: f64,
    /// The blind player presses his own side of the DGT clock's lever after his move, by habit
    /// (his move counts without it, F.3).
    pub habit_press: f64,
}

impl Asking {
    /// How the people of the table of `seed` ask and press, from a generator of its own (so
    /// that every seed drawn before it was added draws the same table otherwise).
    pub fn draw(seed: u64) -> Asking {
        let mut rng = Rng::new(seed ^ 0x4153_4b49_4e47_2146);
        let mut chance = |max: f64| rng.unit() * max;
        Asking {
            requests: chance(4.0),
            buttons: chance(1.0),
            typos: chance(0.3),
            assistant: chance(1.0),
            habit_press: chance(1.0),
        }
    }

    /// Nobody asks or presses beside his moves.
    pub fn none() -> Asking {
        Asking {
            requests: 0.0,
            buttons: 0.0,
            typos: 0.0,
            assistant: 0.0,
            habit_press: 0.0,
        }
    }
}

impl Behaviour {
    pub(super) fn draw(rng: &mut Rng) -> Behaviour {
        let mut chance = |max: f64| rng.unit() * max;
        Behaviour {
            early_execution: chance(0.8),
            wrong_square: chance(0.3),
            impossible_first: chance(0.2),
            knock: chance(0.2),
            unplug: chance(0.08),
            pause: chance(0.12),
            move_while_paused: chance(1.0),
            press_early: chance(1.0),
            press_premature: chance(0.15),
            slow_speech: chance(0.6),
            mover_first: chance(1.0),
            bounce: chance(0.4),
            slide: chance(0.8),
            premove: 0.0,
            asking: Asking::none(),
        }
    }

    /// The chance of a move out of turn for the table of `seed`, from a generator of its own.
    pub(super) fn draw_premove(seed: u64) -> f64 {
        Rng::new(seed ^ 0x5052_454d_4f56_4521).unit() * 0.25
    }
}

/// One table, drawn from a seed.
#[derive(Debug, Clone)]
pub struct TableSetup {
    pub seed: u64,
    /// Where the game comes from (for the report).
    pub source: String,
    /// The moves the players make, from the initial position.
    pub script: Vec<Move>,
    /// Who sits where.
    pub seats: ByColor<SeatKind>,
    pub behaviour: Behaviour,
    /// A DGT clock on the sighted player's DGT board: the colour of the player the arbiter
    /// seated on its left. Its lever is a see-saw, and it reports which side is high.
    pub clock_left: Option<Color>,
    /// Put the sighted board's recogniser into the trace after every input (for debugging a
    /// seed; the test sets it from `TACTUS_TABLE_DEBUG`).
    pub trace_sighted: bool,
    /// Keep the whole trace (replaying one seed); else only its last entries.
    pub full_trace: bool,
}

impl TableSetup {
    /// A table with one blind player for `seed`: one of `games` (name, moves), a prefix of it,
    /// the blind player's colour, the sighted player's board, and how people behave.
    pub fn draw(seed: u64, games: &[(String, Vec<Move>)]) -> TableSetup {
        let mut rng = Rng::new(seed);
        let (name, moves) = &games[rng.below(games.len() as u64) as usize];
        // Short games whole (they end by mate or stalemate), long ones as an opening.
        let len = if moves.len() <= 24 || rng.chance(0.35) {
            moves.len()
        } else {
            (16 + rng.below(40) as usize).min(moves.len())
        };
        let blind = if rng.chance(0.5) {
            Color::White
        } else {
            Color::Black
        };
        let sighted = match rng.below(5) {
            0 => SightedBoard::Manual,
            1 | 2 => SightedBoard::Dgt(Completion::Settle),
            _ => SightedBoard::Dgt(Completion::ClockPress),
        };
        TableSetup {
            seed,
            source: format!("{name}, {len} half-moves"),
            script: moves[..len].to_vec(),
            seats: ByColor::new_with(|c| {
                if c == blind {
                    SeatKind::Blind
                } else {
                    SeatKind::Sighted(sighted)
                }
            }),
            behaviour: Behaviour {
                premove: Behaviour::draw_premove(seed),
                asking: Asking::draw(seed),
                ..Behaviour::draw(&mut rng)
            },
            // Drawn from a generator of its own, as `premove` is: a DGT board most often has
            // its clock, on either side.
            clock_left: {
                let mut clock = Rng::new(seed ^ 0x434c_4f43_4b21_2121);
                (matches!(sighted, SightedBoard::Dgt(_)) && clock.chance(0.75)).then(|| {
                    if clock.chance(0.5) {
                        Color::White
                    } else {
                        Color::Black
                    }
                })
            },
            trace_sighted: false,
            full_trace: false,
        }
    }

    /// A table with two blind players on two tactile boards (IBCA's) for `seed`: the game and
    /// the people drawn as [`TableSetup::draw`] draws them.
    pub fn draw_two_blind(seed: u64, games: &[(String, Vec<Move>)]) -> TableSetup {
        TableSetup {
            seats: ByColor::new_with(|_| SeatKind::Blind),
            ..TableSetup::draw(seed, games)
        }
    }

    /// A short table for `seed` (the first moves of a game, 6 to 16 half-moves) where the
    /// people ask, press buttons and the lever often: the tables that check each seat's privacy
    /// (F.9 d), the requests only on request, and the see-saw lever, thousands at a time. Half
    /// have two blind players; a DGT board has its clock.
    pub fn draw_short(seed: u64, games: &[(String, Vec<Move>)]) -> TableSetup {
        let mut table = if Rng::new(seed ^ 0x5348_4f52_5421_2121).chance(0.5) {
            TableSetup::draw_two_blind(seed, games)
        } else {
            TableSetup::draw(seed, games)
        };
        let mut rng = Rng::new(seed ^ 0x5348_4f52_5432_2121);
        let len = (6 + rng.below(11) as usize).min(table.script.len());
        table.script.truncate(len);
        table.source = format!("{}, its first {len} half-moves", table.source);
        let sighted = Color::ALL
            .into_iter()
            .find(|&c| matches!(table.seats[c], SeatKind::Sighted(SightedBoard::Dgt(_))));
        if let Some(sighted) = sighted {
            table.clock_left = Some(if rng.chance(0.5) { sighted } else { !sighted });
        }
        let mut chance = |max: f64| rng.unit() * max;
        table.behaviour.asking = Asking {
            requests: 4.0 + chance(20.0),
            buttons: chance(1.0),
            typos: chance(0.3),
            assistant: 1.0 + chance(6.0),
            habit_press: chance(1.0),
        };
        table
    }

    /// Whether `seat`'s player is blind.
    pub fn is_blind(&self, seat: Color) -> bool {
        self.seats[seat] == SeatKind::Blind
    }

    /// The seats in the order the table's people are served: the blind player's first (with
    /// one), else White's.
    pub fn order(&self) -> [Color; 2] {
        match (self.is_blind(Color::White), self.is_blind(Color::Black)) {
            (false, true) => [Color::Black, Color::White],
            _ => Color::ALL,
        }
    }

    /// Whether `seat`'s player presses his clock to complete his move (a sighted player on a DGT
    /// board with press completion).
    pub fn presses(&self, seat: Color) -> bool {
        self.seats[seat] == SeatKind::Sighted(SightedBoard::Dgt(Completion::ClockPress))
    }

    /// Whether a DGT clock stands on the table (on the sighted player's DGT board).
    pub fn has_clock(&self) -> bool {
        self.clock_left.is_some()
    }

    /// The table in words, for a report: "blind white, sighted Dgt(Settle)" or "blind both".
    pub fn describe(&self) -> String {
        match (self.seats.white, self.seats.black) {
            (SeatKind::Blind, SeatKind::Blind) => "blind both".into(),
            (SeatKind::Blind, SeatKind::Sighted(s)) => format!("blind white, sighted {s:?}"),
            (SeatKind::Sighted(s), _) => format!("blind black, sighted {s:?}"),
        }
    }

    /// The games of a PGN file, each as (name, moves), legal ones only.
    pub fn games_of(file_name: &str, pgn: &[u8]) -> Vec<(String, Vec<Move>)> {
        let Ok(games) = read_pgn(pgn) else {
            return Vec::new();
        };
        games
            .into_iter()
            .enumerate()
            .filter(|(_, g)| g.start == Chess::default() && !g.moves.is_empty())
            .map(|(i, g)| (format!("{file_name} game {}", i + 1), g.moves))
            .collect()
    }
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub setup: TableSetup,
    /// Half-moves counted.
    pub plies: usize,
    /// Virtual time at the end.
    pub virtual_ms: Millis,
    pub inputs: usize,
    /// Inputs the table refused (with what was said).
    pub refusals: usize,
    /// What happened, one line per input (for a failing seed).
    pub trace: Vec<String>,
    /// Why the run failed, if it did.
    pub failure: Option<String>,
    /// How often each behaviour happened.
    pub happened: Happened,
}

/// Counts of what the people did, so that a test can see that the behaviours really occur.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Happened {
    pub early_executions: usize,
    pub wrong_squares: usize,
    pub impossible_moves: usize,
    pub knocks: usize,
    pub unplugs: usize,
    pub pauses: usize,
    pub moves_while_paused: usize,
    pub early_presses: usize,
    pub premature_presses: usize,
    pub mates_without_press: usize,
    pub captures_mover_first: usize,
    pub slides: usize,
    pub premoves: usize,
    /// Requests of the blind players at their keypads, with their buttons, mistyped, and the
    /// assistant's.
    pub keypad_requests: usize,
    pub button_requests: usize,
    pub typos: usize,
    pub assistant_requests: usize,
    /// Presses of the DGT clock's lever: the sighted player's, the blind player's by habit, and
    /// the sighted player's of the other side because his own was down already.
    pub lever_presses: usize,
    pub habit_presses: usize,
    pub other_side_presses: usize,
}

impl Happened {
    pub fn add(&mut self, other: &Happened) {
        self.early_executions += other.early_executions;
        self.wrong_squares += other.wrong_squares;
        self.impossible_moves += other.impossible_moves;
        self.knocks += other.knocks;
        self.unplugs += other.unplugs;
        self.pauses += other.pauses;
        self.moves_while_paused += other.moves_while_paused;
        self.early_presses += other.early_presses;
        self.premature_presses += other.premature_presses;
        self.mates_without_press += other.mates_without_press;
        self.captures_mover_first += other.captures_mover_first;
        self.slides += other.slides;
        self.premoves += other.premoves;
        self.keypad_requests += other.keypad_requests;
        self.button_requests += other.button_requests;
        self.typos += other.typos;
        self.assistant_requests += other.assistant_requests;
        self.lever_presses += other.lever_presses;
        self.habit_presses += other.habit_presses;
        self.other_side_presses += other.other_side_presses;
    }
}

/// The recognisers' timing as shipped (`boards/*.toml`).
pub(super) fn shipped(name: &str) -> RecognizerConfig {
    let set = ProfileSet::builtin();
    let profile = set
        .get(name)
        .unwrap_or_else(|e| panic!("the built-in profile {name}: {e}"));
    RecognizerConfig::from_profile(profile)
}
