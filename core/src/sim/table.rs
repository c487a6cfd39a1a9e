//! A whole table on virtual time: the pure [`Arbiter`] between two physical boards, two players
//! who act as people do (ahead of the announcements, with slips, knocking pieces over, pressing
//! early or late, moving while the clocks stand), an arbiter who pauses the clocks, speech that
//! finishes fast or slow, and cables pulled in the middle of a move. Everything is drawn from one
//! seed, so a run is replayed exactly from its seed.
//!
//! It owns the people and the physical world, never the game: moves count only through
//! [`Arbiter::handle`]. A run checks what must always hold at a table:
//! - no move is counted or announced that nobody made: every move is the script's next one;
//! - the game never stalls: once the player to move has made his move, it completes (a run with
//!   no progress for [`STALL_MS`], or with nothing left that could happen, fails);
//! - every refusal of something a player did (a move on his board, a clock press) is said to
//!   someone;
//! - the PGN of the game equals the moves played.
//!
//! The boards are modelled from the protocols: the tactile board reports every lift and
//! placement at once (the line protocol at 115200 baud), and answers a reading of its
//! apertures. The DGT board samples its squares one after another, a8 to h1, in a sweep of
//! 190-250 ms (about 3 ms a square, as the board's firmware does); a change is found when its
//! square is next sampled, so the two halves of a move come in either order, a square a slid
//! piece passed can show for a whole sweep, and a quick touch may never be seen. Its updates and
//! dumps (of what it has found) share a 9600 baud line, where a dump takes 70 ms. A slid piece
//! rests on each square it passes for at most [`SLIDE_REST_MAX_MS`].
//!
//! Pure: no clock, no files, no threads.

use std::{cmp::Reverse, collections::BinaryHeap};

use shakmaty::{Board, Chess, Color, Move, Position, Role, Square};

use crate::{
    announce::{Announcement, Audience, MoveWords},
    arbiter::{Arbiter, ArbiterConfig, BoardId, ByBoard, Completion, Effect, Input},
    board::{
        Sensed, Sensing, SensorEvent,
        profile::ProfileSet,
        recognize::{Mode, RecognizerConfig},
    },
    rules::{
        Millis,
        game::{self, RulesConfig},
        notation,
        pgn::read_pgn,
        time_control::TimeControl,
    },
    sim::script::{CaptureOrder, CastlingOrder, Style, script},
};

/// A run without a new move for this long (virtual time) has stalled.
pub const STALL_MS: Millis = 240_000;
/// The longest a slid piece rests on a square it passes over (a moving hand).
pub const SLIDE_REST_MAX_MS: u64 = crate::board::profile::SLIDE_REST_MS;
/// The DGT board's sweep of its 64 squares takes between these (the profile's `scan_ms` must
/// not be shorter than the longest).
pub const DGT_SWEEP_MS: (u64, u64) = (190, 250);
/// Wire times: a DGT field update (5 bytes at 9600 baud), a DGT board dump (67 bytes), a line of
/// the tactile board's protocol.
const DGT_UPDATE_WIRE_MS: u64 = 5;
const DGT_DUMP_WIRE_MS: u64 = 70;
const LINE_WIRE_MS: u64 = 1;
/// A request reaches the board and is answered after this long.
const REQUEST_TURNAROUND_MS: u64 = 2;
/// Ticks at one instant beyond this are a busy loop.
const SPIN_LIMIT: usize = 1000;
/// Hard limit on the inputs of one run.
const INPUT_LIMIT: usize = 400_000;

/// The sighted player's board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SightedBoard {
    /// A DGT board; his move counts when the board settles, or when he presses his clock.
    Dgt(Completion),
    /// A plain board: the assistant enters his move at the console and presses for him.
    Manual,
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
}

impl Behaviour {
    fn draw(rng: &mut Rng) -> Behaviour {
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
        }
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
    pub blind: Color,
    pub sighted: SightedBoard,
    pub behaviour: Behaviour,
    /// Put the sighted board's recogniser into the trace after every input (for debugging a
    /// seed; the test sets it from `TACTUS_TABLE_DEBUG`).
    pub trace_sighted: bool,
}

impl TableSetup {
    /// A table for `seed`: one of `games` (name, moves), a prefix of it, and how people behave.
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
            blind,
            sighted,
            behaviour: Behaviour::draw(&mut rng),
            trace_sighted: false,
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
    /// Inputs the arbiter refused (with what was said).
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
    }
}

/// SplitMix64: small, fast, and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// Uniform in [0, n) (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Uniform in [lo, hi].
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
}

/// What a person does with his hands (or says).
#[derive(Debug, Clone)]
enum Act {
    /// Lift or place a piece on his board.
    Hand(SensorEvent),
    /// Pull his board's cable / plug it back in.
    Unplug,
    Replug,
    /// The sighted player stops his clock.
    Press,
    /// The blind player says his promotion piece; the assistant enters it.
    Promote(Role),
    /// The assistant enters the sighted player's move (a plain board).
    Enter(Move),
    /// The end of a sequence of acts: the person looks again at where things stand.
    Done,
}

/// What the arbiter (the person) does.
#[derive(Debug, Clone, Copy)]
enum Staff {
    Pause,
    Resume,
}

#[derive(Debug, Clone)]
enum Action {
    /// A person acts.
    Act {
        who: BoardId,
        act: Act,
    },
    /// The DGT board's sweep reaches a square: a change there is found and sent.
    Sample {
        board: BoardId,
        square: Square,
    },
    /// A board answers a request for a full reading.
    Read {
        board: BoardId,
        epoch: u64,
    },
    /// A message reaches the host.
    Deliver {
        board: BoardId,
        epoch: u64,
        event: SensorEvent,
    },
    /// An announcement has been said.
    Said {
        id: u64,
        audience: Audience,
        announcement: Announcement,
    },
    /// A person learns a move he heard said aloud or saw (F.1).
    Learn {
        who: BoardId,
        ply: usize,
    },
    Staff(Staff),
}

/// What a person knows and is doing.
#[derive(Debug, Clone)]
struct Person {
    board: BoardId,
    color: Color,
    /// The script's moves he knows have been made (his own included once he makes them).
    known: usize,
    /// Acts are scheduled and not all done.
    busy: bool,
    /// A slip of his stands on his board: he puts it right once told (guidance or a refusal
    /// said to him after the slip), towards this board.
    slip: Option<(u64, Board)>,
    /// Things said to him that tell him his board is wrong.
    told: u64,
    /// He heard the clocks stop and not yet run again.
    paused: bool,
    /// He moves even while the clocks stand (this pause).
    defiant: bool,
    /// He heard that his press counted nothing: he presses again once his move stands.
    press_again: bool,
    /// His last own move is on the board and waits for his press.
    awaiting_press: bool,
    /// After putting his slip right he presses his clock (his own move under press completion).
    press_after_fix: bool,
    /// He replies to the opponent's move he heard said aloud before tactus has counted it.
    reply_ahead: bool,
}

/// One board's physical pieces and its line to the host.
#[derive(Debug, Clone)]
struct Physical {
    /// What stands on the board.
    board: Board,
    /// What the board's electronics have found so far (a DGT board's scan lags the pieces).
    view: Board,
    sensing: Sensing,
    /// Reported at all (a plain board has no sensors).
    sensors: bool,
    connected: bool,
    /// Bumped at every unplug: messages of an older connection are lost.
    epoch: u64,
    /// The line is busy until then.
    line_free: Millis,
    /// The sweep's length and where it starts (DGT board).
    sweep_ms: u64,
    sweep_offset: u64,
    /// A sample of each square already planned (DGT board).
    sampling: [bool; 64],
}

struct World {
    setup: TableSetup,
    rng: Rng,
    now: Millis,
    seq: u64,
    agenda: BinaryHeap<Reverse<(Millis, u64, usize)>>,
    actions: Vec<Option<Action>>,
    arbiter: Arbiter,
    boards: ByBoard<Physical>,
    people: ByBoard<Person>,
    /// Speech channels (blind, sighted): busy until then.
    speech_free: ByBoard<Millis>,
    trace: Vec<String>,
    inputs: usize,
    refusals: usize,
    counted: usize,
    last_progress: Millis,
    failure: Option<String>,
    happened: Happened,
    /// The arbiter person has a pause planned or running.
    pausing: bool,
    spin: (Millis, usize),
}

/// The recognisers' timing as shipped (`boards/*.toml`).
fn shipped(name: &str) -> RecognizerConfig {
    let set = ProfileSet::builtin();
    let profile = set
        .get(name)
        .unwrap_or_else(|e| panic!("the built-in profile {name}: {e}"));
    RecognizerConfig::from_profile(profile)
}

/// Play one table to the end of its script. Never panics on a table's behalf: what goes wrong
/// is in [`RunReport::failure`].
pub fn run(setup: TableSetup) -> RunReport {
    let mut world = World::new(setup);
    world.play();
    world.report()
}

impl World {
    fn new(setup: TableSetup) -> World {
        let mut rng = Rng::new(setup.seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let (sighted_board, completion) = match setup.sighted {
            SightedBoard::Dgt(c) => (Some(shipped("dgt")), c),
            SightedBoard::Manual => (None, Completion::ClockPress),
        };
        let cfg = ArbiterConfig {
            rules: RulesConfig {
                time_control: Some(
                    "5400+30"
                        .parse::<TimeControl>()
                        .expect("a valid time control"),
                ),
                ..RulesConfig::default()
            },
            blind: setup.blind,
            blind_board: shipped("pegged-line"),
            sighted_board,
            sighted_completion: completion,
            guidance_repeat_ms: 8_000,
            say_own_move: true,
        };
        let start = Chess::default();
        let physical = |sensing, sensors| Physical {
            board: start.board().clone(),
            view: start.board().clone(),
            sensing,
            sensors,
            connected: true,
            epoch: 0,
            line_free: 0,
            sweep_ms: 0,
            sweep_offset: 0,
            sampling: [false; 64],
        };
        let person = |board, color| Person {
            board,
            color,
            known: 0,
            busy: false,
            slip: None,
            told: 0,
            paused: false,
            defiant: false,
            press_again: false,
            awaiting_press: false,
            press_after_fix: false,
            reply_ahead: false,
        };
        let sweep_ms = rng.between(DGT_SWEEP_MS.0, DGT_SWEEP_MS.1);
        let sweep_offset = rng.below(sweep_ms);
        let mut boards = ByBoard {
            blind: physical(Sensing::Occupancy, true),
            sighted: physical(
                Sensing::Identity,
                matches!(setup.sighted, SightedBoard::Dgt(_)),
            ),
        };
        boards.sighted.sweep_ms = sweep_ms;
        boards.sighted.sweep_offset = sweep_offset;
        World {
            arbiter: Arbiter::new(cfg, start.clone()),
            boards,
            people: ByBoard {
                blind: person(BoardId::Blind, setup.blind),
                sighted: person(BoardId::Sighted, !setup.blind),
            },
            setup,
            rng,
            now: 0,
            seq: 0,
            agenda: BinaryHeap::new(),
            actions: Vec::new(),
            speech_free: ByBoard::default(),
            trace: Vec::new(),
            inputs: 0,
            refusals: 0,
            counted: 0,
            last_progress: 0,
            failure: None,
            happened: Happened::default(),
            pausing: false,
            spin: (0, 0),
        }
    }

    fn report(self) -> RunReport {
        RunReport {
            plies: self.arbiter.game().ply(),
            virtual_ms: self.now,
            inputs: self.inputs,
            refusals: self.refusals,
            trace: self.trace,
            failure: self.failure,
            happened: self.happened,
            setup: self.setup,
        }
    }

    fn schedule(&mut self, at: Millis, action: Action) {
        self.seq += 1;
        let slot = self.actions.len();
        self.actions.push(Some(action));
        self.agenda
            .push(Reverse((at.max(self.now), self.seq, slot)));
    }

    fn fail(&mut self, why: String) {
        if self.failure.is_none() {
            self.trace.push(format!("{:>8} FAILURE {why}", self.now));
            self.failure = Some(why);
        }
    }

    fn finished(&self) -> bool {
        let game = self.arbiter.game();
        game.is_over() || game.ply() >= self.setup.script.len()
    }

    fn play(&mut self) {
        self.input(Input::Start, false);
        while self.failure.is_none() && !self.finished() {
            let next_action = self.agenda.peek().map(|Reverse((t, _, _))| *t);
            let deadline = self.arbiter.next_deadline();
            let (t, tick) = match (next_action, deadline) {
                (Some(a), Some(d)) if d <= a => (d, true),
                (Some(a), _) => (a, false),
                (None, Some(d)) => (d, true),
                (None, None) => {
                    let why = format!(
                        "stuck at ply {}: nothing more can happen ({})",
                        self.arbiter.game().ply(),
                        self.state()
                    );
                    self.fail(why);
                    break;
                }
            };
            self.now = self.now.max(t);
            if self.now > self.last_progress + STALL_MS {
                let why = format!(
                    "stalled at ply {} for {} s ({})",
                    self.arbiter.game().ply(),
                    STALL_MS / 1000,
                    self.state()
                );
                self.fail(why);
                break;
            }
            if self.inputs > INPUT_LIMIT {
                self.fail(format!("more than {INPUT_LIMIT} inputs"));
                break;
            }
            if tick {
                if self.spin.0 == self.now {
                    self.spin.1 += 1;
                    if self.spin.1 > SPIN_LIMIT {
                        let why = format!("the arbiter's deadline {t} does not move: a busy loop");
                        self.fail(why);
                        break;
                    }
                } else {
                    self.spin = (self.now, 0);
                }
                self.input(Input::Tick, false);
            } else if let Some(Reverse((_, _, slot))) = self.agenda.pop()
                && let Some(action) = self.actions[slot].take()
            {
                self.perform(action);
            }
            self.poll_people();
        }
        if self.failure.is_none() {
            self.check_pgn();
        }
    }

    /// Where things stand, for a failure message.
    fn state(&self) -> String {
        let a = &self.arbiter;
        let mode = |m: Mode| match m {
            Mode::Move => "move".to_string(),
            Mode::Execute(mv) => format!("execute {}", mv.to_uci(shakmaty::CastlingMode::Standard)),
            Mode::Await => "await".to_string(),
            Mode::Hold => "hold".to_string(),
        };
        let mut s = format!(
            "to move {}, tactile {} (shows expected: {}), clock {:?}, paused {}",
            a.game().to_move(),
            mode(a.blind_board().mode()),
            a.blind_board().shows_expected(),
            a.game().clock().and_then(|c| c.running()),
            a.game().clock().is_some_and(|c| c.is_paused()),
        );
        if let Some(r) = a.sighted_board() {
            s.push_str(&format!(
                ", sighted {} (shows expected: {})",
                mode(r.mode()),
                r.shows_expected()
            ));
        }
        for (_, p) in self.people.iter() {
            s.push_str(&format!(
                "; {:?} knows {} busy {} slip {} paused {}",
                p.board,
                p.known,
                p.busy,
                p.slip.is_some(),
                p.paused
            ));
        }
        s
    }

    /// One input to the arbiter, with the invariants checked on what it did. `by_player`: a
    /// player's own action (a move on his board, his clock), whose refusal must be said.
    fn input(&mut self, input: Input, by_player: bool) {
        self.inputs += 1;
        let label = label(&input);
        let effects = self.arbiter.handle(input, self.now);
        let refused: Vec<&String> = effects
            .iter()
            .filter_map(|e| match e {
                Effect::Refused(r) => Some(r),
                _ => None,
            })
            .collect();
        let said = effects.iter().any(|e| matches!(e, Effect::Say { .. }));
        if !refused.is_empty() {
            self.refusals += 1;
        }
        if by_player && !refused.is_empty() && !said {
            let why = format!("a player's action was refused in silence: {refused:?} ({label})");
            self.fail(why);
        }
        if label != "Tick" || !effects.is_empty() {
            let mut line = format!("{:>8} {label}", self.now);
            for e in &effects {
                line.push_str(&format!("\n{:>8}   -> {}", "", short(e)));
            }
            self.trace.push(line);
        }
        if self.setup.trace_sighted
            && let Some(r) = self.arbiter.sighted_board()
        {
            self.trace
                .push(format!("{:>8}   [sighted {r:?}]", self.now));
        }
        for effect in effects {
            self.effect(effect);
        }
        self.check_moves();
    }

    fn effect(&mut self, effect: Effect) {
        match effect {
            Effect::Say {
                id,
                audience,
                announcement,
            } => {
                if let Announcement::Move(words) = &announcement {
                    self.check_announced(words);
                }
                let slow = self.rng.chance(self.setup.behaviour.slow_speech);
                let length = if slow {
                    self.rng.between(400, 2500)
                } else {
                    self.rng.between(5, 60)
                };
                let channels: &[BoardId] = match audience {
                    Audience::Blind => &[BoardId::Blind],
                    Audience::Sighted => &[BoardId::Sighted],
                    Audience::Both => &BoardId::ALL,
                };
                let start = channels
                    .iter()
                    .map(|&c| self.speech_free[c])
                    .max()
                    .unwrap_or(0)
                    .max(self.now);
                let end = start + length;
                for &c in channels {
                    self.speech_free[c] = end;
                }
                self.schedule(
                    end,
                    Action::Said {
                        id,
                        audience,
                        announcement,
                    },
                );
            }
            Effect::RequestSnapshot { board } => {
                let i = board;
                if self.boards[i].sensors && self.boards[i].connected {
                    let epoch = self.boards[i].epoch;
                    self.schedule(
                        self.now + REQUEST_TURNAROUND_MS,
                        Action::Read { board: i, epoch },
                    );
                }
            }
            Effect::Analyse { ticket, query } => {
                // The search runs off the hub; here its verdict comes back at once.
                let mateability = crate::rules::dead::solve(&query);
                self.input(
                    Input::Rules(game::Input::Verdict {
                        ticket,
                        mateability,
                    }),
                    false,
                );
            }
            Effect::Touch { .. }
            | Effect::Note(_)
            | Effect::Refused(_)
            | Effect::RecordChanged
            | Effect::GameOver(_) => {}
        }
    }

    /// Every counted move is the script's next one.
    fn check_moves(&mut self) {
        let moves: Vec<Move> = self.arbiter.game().moves().iter().map(|r| r.mv).collect();
        if moves.len() < self.counted {
            self.counted = moves.len();
        }
        while self.counted < moves.len() {
            let k = self.counted;
            if self.setup.script.get(k) != Some(&moves[k]) {
                let why = format!(
                    "ply {}: counted {:?}, but the player made {:?}",
                    k + 1,
                    moves[k],
                    self.setup.script.get(k)
                );
                self.fail(why);
                return;
            }
            self.counted += 1;
            self.last_progress = self.now;
        }
    }

    /// An announced move is the script's move at the game's ply or the one just counted.
    fn check_announced(&mut self, words: &MoveWords) {
        let ply = self.arbiter.game().ply();
        let fits = [ply.saturating_sub(1), ply].into_iter().any(|k| {
            self.setup
                .script
                .get(k)
                .is_some_and(|&m| MoveWords::new(&self.position_at(k), m) == *words)
        });
        if !fits {
            let why = format!("announced a move nobody made at ply {ply}: {words:?}");
            self.fail(why);
        }
    }

    /// The position after the script's first `k` moves.
    fn position_at(&self, k: usize) -> Chess {
        let mut pos = Chess::default();
        for &m in &self.setup.script[..k.min(self.setup.script.len())] {
            pos.play_unchecked(m);
        }
        pos
    }

    fn check_pgn(&mut self) {
        let pgn = self.arbiter.game().to_pgn(&[]);
        let played: Vec<Move> = self.arbiter.game().moves().iter().map(|r| r.mv).collect();
        match read_pgn(pgn.as_bytes()) {
            Ok(games) if games.len() == 1 && games[0].moves == played => {}
            Ok(games) => {
                let why = format!(
                    "the PGN does not hold the moves played ({} games read): {pgn}",
                    games.len()
                );
                self.fail(why);
            }
            Err(e) => self.fail(format!("the PGN does not read back: {e}: {pgn}")),
        }
        let expected = &self.setup.script[..played.len()];
        if played != expected {
            self.fail("the moves played are not the script's".into());
        }
    }

    fn perform(&mut self, action: Action) {
        match action {
            Action::Act { who, act } => self.act(who, act),
            Action::Sample { board, square } => {
                let b = &mut self.boards[board];
                b.sampling[usize::from(square)] = false;
                let (now, found) = (b.board.piece_at(square), b.view.piece_at(square));
                if !b.connected || now == found {
                    return;
                }
                let event = match now {
                    Some(piece) => SensorEvent::Place {
                        square,
                        piece: Some(piece),
                    },
                    None => SensorEvent::Lift { square },
                };
                apply(&mut b.view, &event);
                self.send(board, event, DGT_UPDATE_WIRE_MS);
            }
            Action::Read { board, epoch } => {
                let b = &self.boards[board];
                if epoch != b.epoch || !b.connected {
                    return;
                }
                let (sensed, wire) = match b.sensing {
                    Sensing::Identity => (Sensed::Pieces(b.view.clone()), DGT_DUMP_WIRE_MS),
                    Sensing::Occupancy => (Sensed::Occupancy(b.view.occupied()), LINE_WIRE_MS),
                };
                self.send(board, SensorEvent::Snapshot(sensed), wire);
            }
            Action::Deliver {
                board,
                epoch,
                event,
            } => {
                let b = &self.boards[board];
                if epoch != b.epoch || !b.connected {
                    return;
                }
                self.input(Input::Board { board, event }, true);
            }
            Action::Said {
                id,
                audience,
                announcement,
            } => {
                self.input(Input::SpeechFinished { id }, false);
                for who in BoardId::ALL {
                    let hears = match who {
                        BoardId::Blind => audience.includes_blind(),
                        BoardId::Sighted => audience.includes_sighted(),
                    };
                    if hears {
                        self.hear(who, &announcement);
                    }
                }
            }
            Action::Learn { who, ply } => {
                let reply_ahead = self.rng.chance(0.3);
                let p = &mut self.people[who];
                if p.known == ply {
                    p.known += 1;
                    p.reply_ahead = reply_ahead;
                }
            }
            Action::Staff(Staff::Pause) => {
                self.happened.pauses += 1;
                for who in BoardId::ALL {
                    let defiant = self.rng.chance(self.setup.behaviour.move_while_paused);
                    self.people[who].defiant = defiant;
                }
                self.input(Input::Rules(game::Input::Pause), false);
                let resume = self.now + self.rng.between(1_000, 8_000);
                self.schedule(resume, Action::Staff(Staff::Resume));
            }
            Action::Staff(Staff::Resume) => {
                self.pausing = false;
                self.input(Input::Rules(game::Input::Resume), false);
            }
        }
    }

    /// A message onto a board's line, behind what is on it already.
    fn send(&mut self, board: BoardId, event: SensorEvent, wire: u64) {
        let b = &mut self.boards[board];
        let at = b.line_free.max(self.now) + wire;
        b.line_free = at;
        let epoch = b.epoch;
        self.schedule(
            at,
            Action::Deliver {
                board,
                epoch,
                event,
            },
        );
    }

    /// A person heard an announcement.
    fn hear(&mut self, who: BoardId, announcement: &Announcement) {
        let known = self.people[who].known;
        match announcement {
            Announcement::Move(words) => {
                if let Some(&m) = self.setup.script.get(known)
                    && MoveWords::new(&self.position_at(known), m) == *words
                {
                    self.people[who].known += 1;
                }
            }
            Announcement::Guidance(_)
            | Announcement::IllegalMove
            | Announcement::MoveRequired { .. } => self.people[who].told += 1,
            // His press counted nothing (no move on his board, or not his turn yet): he
            // presses again once his move can count.
            Announcement::NoMoveToCount | Announcement::ToMove { .. } => {
                self.people[who].press_again = true
            }
            Announcement::ClocksPaused => self.people[who].paused = true,
            Announcement::ClocksResumed => self.people[who].paused = false,
            _ => {}
        }
    }

    fn act(&mut self, who: BoardId, act: Act) {
        let board = self.people[who].board;
        if !matches!(act, Act::Done) {
            let whom = who.player();
            self.trace
                .push(format!("{:>8} ({whom}: {act:?})", self.now));
        }
        match act {
            Act::Hand(event) => {
                apply(&mut self.boards[board].board, &event);
                let now = self.now;
                let b = &mut self.boards[board];
                if !b.sensors || !b.connected {
                    return;
                }
                match (b.sensing, &event) {
                    (Sensing::Occupancy, _) => {
                        apply(&mut b.view, &event);
                        self.send(board, event, LINE_WIRE_MS);
                    }
                    (
                        Sensing::Identity,
                        SensorEvent::Lift { square } | SensorEvent::Place { square, .. },
                    ) => {
                        let square = *square;
                        if !b.sampling[usize::from(square)] {
                            b.sampling[usize::from(square)] = true;
                            let at = next_sample(b, square, now);
                            self.schedule(at, Action::Sample { board, square });
                        }
                    }
                    (Sensing::Identity, _) => {}
                }
            }
            Act::Unplug => {
                let b = &mut self.boards[board];
                b.connected = false;
                b.epoch += 1;
                self.happened.unplugs += 1;
                self.input(Input::BoardDisconnected { board }, false);
            }
            Act::Replug => {
                let b = &mut self.boards[board];
                b.connected = true;
                b.view = b.board.clone();
                b.line_free = self.now;
                self.input(Input::BoardConnected { board }, false);
            }
            Act::Press => self.input(Input::ClockPress, true),
            Act::Promote(role) => self.input(Input::Promote(role), false),
            Act::Enter(m) => {
                let pos = self.arbiter.game().position().clone();
                let san = if pos.is_legal(m) {
                    notation::san(&pos, m)
                } else {
                    m.to_uci(shakmaty::CastlingMode::Standard).to_string()
                };
                self.input(Input::EnterMove(san), false);
            }
            Act::Done => self.people[who].busy = false,
        }
    }

    /// Queue a person's acts: `steps` of (delay from the previous act, act), then `Done`.
    fn queue(&mut self, who: BoardId, first_delay: u64, steps: Vec<(u64, Act)>) {
        self.people[who].busy = true;
        let mut at = self.now + first_delay;
        for (i, (delay, act)) in steps.into_iter().enumerate() {
            if i > 0 {
                at += delay;
            }
            self.schedule(at, Action::Act { who, act });
        }
        self.schedule(
            at + 1,
            Action::Act {
                who,
                act: Act::Done,
            },
        );
    }

    fn poll_people(&mut self) {
        if self.failure.is_some() {
            return;
        }
        for who in BoardId::ALL {
            if !self.people[who].busy {
                self.decide(who);
            }
        }
        self.maybe_pause();
    }

    /// The arbiter person stops the clocks now and then, between moves or in the middle of one.
    fn maybe_pause(&mut self) {
        let game = self.arbiter.game();
        if self.pausing
            || game.is_over()
            || game.clock().is_none_or(|c| c.running().is_none())
            || self.setup.behaviour.pause <= 0.0
        {
            return;
        }
        // About `pause` per half-move: people look at the board every few hundred ms.
        if self.rng.chance(self.setup.behaviour.pause / 20.0) {
            self.pausing = true;
            let at = self.now + self.rng.between(50, 3_000);
            self.schedule(at, Action::Staff(Staff::Pause));
        }
    }

    /// What a person does next, from what he knows and what stands on his board.
    fn decide(&mut self, who: BoardId) {
        if self.arbiter.game().is_over() {
            return;
        }
        let person = self.people[who].clone();
        let board = person.board;
        let mental = self.position_at(person.known);
        let physical = self.boards[board].board.clone();
        let behaviour = self.setup.behaviour.clone();
        // A slip stands: he puts it right once told.
        if let Some((told_then, target)) = &person.slip {
            if person.told > *told_then {
                let mut steps = restore(&physical, target, 300);
                self.people[who].slip = None;
                if std::mem::take(&mut self.people[who].press_after_fix) {
                    let delay = self.press_delay(&behaviour);
                    steps.push((delay, Act::Press));
                }
                let delay = self.rng.between(200, 1500);
                self.queue(who, delay, steps);
            }
            return;
        }
        let manual = board == BoardId::Sighted && !self.boards.sighted.sensors;
        if physical != *mental.board() {
            let last = person.known.checked_sub(1);
            let opponent_move = last.filter(|&k| {
                self.position_at(k).turn() != person.color
                    && self.position_at(k).board() == &physical
            });
            if manual {
                // A plain board is simply set (nothing senses it); then he goes on.
                self.boards[board].board = mental.board().clone();
                return self.decide(who);
            }
            if let Some(k) = opponent_move {
                let before = self.position_at(k);
                let m = self.setup.script[k];
                self.execute(who, &before, m, &behaviour);
            } else {
                // Not the last move: put the board to what he knows (after a pulled cable, a
                // takeback).
                let steps = restore(&physical, mental.board(), 300);
                self.queue(who, 500, steps);
            }
            return;
        }
        // Told that his press counted nothing while his own move stands uncounted: he presses
        // again.
        let own_uncounted = (self.arbiter.game().ply()..person.known)
            .any(|k| self.position_at(k).turn() == person.color);
        if person.press_again && person.awaiting_press && own_uncounted {
            self.people[who].press_again = false;
            let delay = self.rng.between(200, 1200);
            self.queue(who, delay, vec![(0, Act::Press)]);
            return;
        }
        if person.known >= self.setup.script.len() || mental.turn() != person.color {
            return;
        }
        if person.paused && !person.defiant {
            return;
        }
        // He replies to a move tactus has not counted yet only now and then, and never further
        // ahead than that one move.
        let uncounted = person.known.saturating_sub(self.arbiter.game().ply());
        if uncounted > 1 || (uncounted == 1 && (!person.reply_ahead || manual)) {
            // (The assistant at the console types a reply once the move has been announced.)
            return;
        }
        if person.paused {
            self.happened.moves_while_paused += 1;
        }
        let m = self.setup.script[person.known];
        self.people[who].known += 1;
        self.own_move(who, &mental, m, manual, &behaviour);
    }

    /// A person executes his opponent's move on his own board.
    fn execute(&mut self, who: BoardId, before: &Chess, m: Move, b: &Behaviour) {
        let board = self.people[who].board;
        let delay = self.rng.between(200, 1500);
        let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
        if simple
            && self.rng.chance(b.wrong_square)
            && let (Some(from), Some(wrong)) = (m.from(), wrong_square(before, m))
            && let Some(piece) = before.board().piece_at(from)
        {
            self.happened.wrong_squares += 1;
            let mut after = before.clone();
            after.play_unchecked(m);
            let told = self.people[who].told;
            self.people[who].slip = Some((told, after.board().clone()));
            let steps = vec![
                (0, Act::Hand(SensorEvent::Lift { square: from })),
                (
                    300,
                    Act::Hand(SensorEvent::Place {
                        square: wrong,
                        piece: Some(piece),
                    }),
                ),
            ];
            self.queue(who, delay, steps);
            return;
        }
        let style = self.style(board, m, b);
        let steps = hands(script(before, m, &style));
        self.queue(who, delay, steps);
    }

    /// A hand style for a move on board `board`.
    fn style(&mut self, board: BoardId, m: Move, b: &Behaviour) -> Style {
        let mover_first = m.is_capture() && self.rng.chance(b.mover_first);
        if mover_first {
            self.happened.captures_mover_first += 1;
        }
        if board == BoardId::Blind {
            Style {
                capture: if mover_first {
                    CaptureOrder::MoverFirst
                } else {
                    CaptureOrder::CapturedFirst
                },
                castling: CastlingOrder::KingFirst,
                ep_captured_first: self.rng.chance(0.5),
                bounce: self.rng.chance(b.bounce),
                reorder: false,
                slide: false,
                step_ms: self.rng.between(120, 700),
                bounce_ms: 5,
            }
        } else {
            let slide = self.rng.chance(b.slide);
            if slide {
                self.happened.slides += 1;
            }
            Style {
                capture: if mover_first {
                    CaptureOrder::MoverFirst
                } else if self.rng.chance(0.5) {
                    CaptureOrder::Replace
                } else {
                    CaptureOrder::CapturedFirst
                },
                castling: CastlingOrder::KingFirst,
                ep_captured_first: self.rng.chance(0.5),
                bounce: false,
                reorder: false,
                slide,
                // A slid piece passes its squares quickly; a lifted one may stay in the hand.
                step_ms: if slide {
                    self.rng.between(15, SLIDE_REST_MAX_MS)
                } else {
                    self.rng.between(30, 600)
                },
                bounce_ms: 5,
            }
        }
    }

    /// A person makes his own move: thinking, perhaps a slip first, the move, and what goes with
    /// it (a promotion piece said, a clock pressed, a cable pulled).
    fn own_move(&mut self, who: BoardId, before: &Chess, m: Move, manual: bool, b: &Behaviour) {
        let board = self.people[who].board;
        let think = self.rng.between(300, 4_000);
        let mut after = before.clone();
        after.play_unchecked(m);
        let ends_game = after.is_game_over();
        // Someone sees or hears it said aloud (F.1) before tactus announces it.
        let other = who.other();
        let early = self.rng.chance(b.early_execution);
        if manual {
            self.boards[board].board = after.board().clone();
            let mut steps = Vec::new();
            if self.rng.chance(b.press_premature) {
                self.happened.premature_presses += 1;
                steps.push((0, Act::Press));
            }
            steps.push((200, Act::Enter(m)));
            let press_delay = self.press_delay(b);
            steps.push((press_delay, Act::Press));
            self.queue(who, think, steps);
            if early {
                self.learn_later(other, think);
            }
            return;
        }
        let mut steps: Vec<(u64, Act)> = Vec::new();
        if self.rng.chance(b.knock)
            && let Some(sq) = self.knockable(board, m)
            && let Some(piece) = self.boards[board].board.piece_at(sq)
        {
            self.happened.knocks += 1;
            steps.push((0, Act::Hand(SensorEvent::Lift { square: sq })));
            steps.push((
                self.rng.between(100, 900),
                Act::Hand(SensorEvent::Place {
                    square: sq,
                    piece: Some(piece),
                }),
            ));
        }
        let style = self.style(board, m, b);
        let mut moving = hands(script(before, m, &style));
        let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
        let mut slip = None;
        if simple
            && self.rng.chance(b.impossible_first)
            && let (Some(from), Some(wrong)) = (m.from(), impossible_square(before, m))
            && let Some(piece) = before.board().piece_at(from)
        {
            // The piece put where it cannot go; he hears that it is not possible and puts it
            // where he meant.
            self.happened.impossible_moves += 1;
            moving = vec![
                (0, Act::Hand(SensorEvent::Lift { square: from })),
                (
                    300,
                    Act::Hand(SensorEvent::Place {
                        square: wrong,
                        piece: Some(piece),
                    }),
                ),
            ];
            slip = Some(after.board().clone());
        }
        if slip.is_none() && simple && moving.len() == 2 && self.rng.chance(b.unplug) {
            // Lift, pull the cable, place (unseen), plug it back in.
            let back = self.rng.between(300, 3_000);
            moving.insert(1, (50, Act::Unplug));
            moving.push((back, Act::Replug));
        }
        let premature = board == BoardId::Sighted
            && matches!(
                self.setup.sighted,
                SightedBoard::Dgt(Completion::ClockPress)
            )
            && slip.is_none()
            && self.rng.chance(b.press_premature);
        if premature {
            // The clock pressed with the piece still in the hand.
            self.happened.premature_presses += 1;
            let at = 1.min(moving.len());
            moving.insert(at, (20, Act::Press));
        }
        steps.extend(moving);
        if board == BoardId::Blind
            && let Some(role) = m.promotion()
        {
            // The tactile board cannot see the new piece: he says it; the assistant enters it.
            steps.push((self.rng.between(100, 700), Act::Promote(role)));
        }
        let presses = board == BoardId::Sighted
            && matches!(
                self.setup.sighted,
                SightedBoard::Dgt(Completion::ClockPress)
            );
        if presses && slip.is_some() {
            self.people[who].press_after_fix = true;
        } else if presses {
            if ends_game {
                // Mate or stalemate: the game is over, he does not bother with the clock.
                self.happened.mates_without_press += 1;
            } else {
                let delay = self.press_delay(b);
                steps.push((delay, Act::Press));
            }
        }
        if let Some(target) = slip {
            let told = self.people[who].told;
            self.people[who].slip = Some((told, target));
        }
        self.people[who].awaiting_press = presses;
        let total: u64 = steps.iter().skip(1).map(|(d, _)| d).sum();
        self.queue(who, think, steps);
        if early {
            self.learn_later(other, think + total);
        }
    }

    fn press_delay(&mut self, b: &Behaviour) -> u64 {
        if self.rng.chance(b.press_early) {
            self.happened.early_presses += 1;
            self.rng.between(20, 60)
        } else {
            self.rng.between(300, 3_000)
        }
    }

    /// The other person learns the move being made now, a little after it stands (he heard it
    /// said aloud, F.1, or saw it).
    fn learn_later(&mut self, who: BoardId, after_ms: u64) {
        let ply = self.people[who.other()].known - 1;
        self.happened.early_executions += 1;
        let at = self.now + after_ms + self.rng.between(50, 800);
        self.schedule(at, Action::Learn { who, ply });
    }

    /// A piece to knock over before a move: one the move does not touch.
    fn knockable(&mut self, board: BoardId, m: Move) -> Option<Square> {
        let busy = |sq: Square| {
            Some(sq) == m.from()
                || sq == m.to()
                || matches!(m, Move::Castle { rook, .. } if rook == sq)
                || matches!(m, Move::EnPassant { from, to } if sq == Square::from_coords(to.file(), from.rank()))
        };
        let candidates: Vec<Square> = self.boards[board]
            .board
            .occupied()
            .into_iter()
            .filter(|&sq| !busy(sq))
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let i = self.rng.below(candidates.len() as u64) as usize;
        Some(candidates[i])
    }
}

/// When the sweep next samples `square` at or after `now`. The board numbers its fields a8 = 0
/// to h1 = 63 and samples them in that order.
fn next_sample(b: &Physical, square: Square, now: Millis) -> Millis {
    let field = u64::from(u32::from(square) ^ 56);
    let phase = (b.sweep_offset + field * b.sweep_ms / 64) % b.sweep_ms;
    let into = now % b.sweep_ms;
    let wait = (phase + b.sweep_ms - into) % b.sweep_ms;
    now + wait
}

/// Apply one hand event to a board.
fn apply(board: &mut Board, event: &SensorEvent) {
    match event {
        SensorEvent::Lift { square } => {
            board.discard_piece_at(*square);
        }
        SensorEvent::Place {
            square,
            piece: Some(p),
        } => board.set_piece_at(*square, *p),
        SensorEvent::Place { piece: None, .. }
        | SensorEvent::Snapshot(_)
        | SensorEvent::Button(_) => {}
    }
}

fn hands(steps: Vec<crate::sim::script::Step>) -> Vec<(u64, Act)> {
    steps
        .into_iter()
        .map(|s| (s.delay_ms, Act::Hand(s.event)))
        .collect()
}

/// The acts that turn `found` into `wanted`: every wrong piece taken off, then every missing one
/// put on.
fn restore(found: &Board, wanted: &Board, step_ms: Millis) -> Vec<(u64, Act)> {
    let mut steps = Vec::new();
    for sq in Square::ALL {
        if let Some(p) = found.piece_at(sq)
            && wanted.piece_at(sq) != Some(p)
        {
            steps.push((step_ms, Act::Hand(SensorEvent::Lift { square: sq })));
        }
    }
    for sq in Square::ALL {
        if let Some(p) = wanted.piece_at(sq)
            && found.piece_at(sq) != Some(p)
        {
            steps.push((
                step_ms,
                Act::Hand(SensorEvent::Place {
                    square: sq,
                    piece: Some(p),
                }),
            ));
        }
    }
    steps
}

/// A wrong square for executing `m`: next to its destination, empty, not its origin.
fn wrong_square(before: &Chess, m: Move) -> Option<Square> {
    let from = m.from()?;
    shakmaty::attacks::king_attacks(m.to())
        .into_iter()
        .find(|&sq| sq != from && before.board().piece_at(sq).is_none())
}

/// An empty square next to `m`'s origin where its piece cannot go, and that no legal move's
/// position resembles (by occupancy, as the tactile board senses it).
fn impossible_square(before: &Chess, m: Move) -> Option<Square> {
    let from = m.from()?;
    let legal = before.legal_moves();
    shakmaty::attacks::king_attacks(from)
        .into_iter()
        .chain(shakmaty::attacks::knight_attacks(from))
        .find(|&sq| {
            if before.board().piece_at(sq).is_some() {
                return false;
            }
            let mut occupied = before.board().occupied();
            occupied.discard(from);
            occupied.add(sq);
            legal.iter().all(|&other| {
                let mut after = before.clone();
                after.play_unchecked(other);
                after.board().occupied() != occupied
            })
        })
}

fn short(e: &Effect) -> String {
    match e {
        Effect::Say {
            id,
            audience,
            announcement,
        } => format!("say #{id} to {audience:?}: {announcement:?}"),
        Effect::Analyse { ticket, .. } => format!("analyse #{ticket}"),
        Effect::GameOver(end) => format!("game over: {} ({:?})", end.outcome, end.reason),
        other => format!("{other:?}"),
    }
}

/// An input, short (a board reading as its squares).
fn label(input: &Input) -> String {
    match input {
        Input::Board {
            board,
            event: SensorEvent::Snapshot(Sensed::Pieces(b)),
        } => format!("{board:?} reading {b}"),
        Input::Board {
            board,
            event: SensorEvent::Snapshot(Sensed::Occupancy(bb)),
        } => format!("{board:?} reading {:#x}", u64::from(*bb)),
        Input::Board { board, event } => format!("{board:?} {event:?}"),
        Input::Rules(game::Input::Verdict {
            ticket,
            mateability,
        }) => {
            format!("verdict #{ticket}: {mateability:?}")
        }
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_the_same_everywhere() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert!((0..1000).all(|_| a.unit() < 1.0));
        assert!((0..1000).all(|_| (3..=9).contains(&a.between(3, 9))));
    }

    #[test]
    fn an_impossible_square_is_no_legal_move() {
        let pos = Chess::default();
        let e4 = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .unwrap();
        let sq = impossible_square(&pos, e4).unwrap();
        assert!(
            pos.legal_moves()
                .iter()
                .all(|m| m.to() != sq || m.from() != Some(Square::E2))
        );
    }
}
