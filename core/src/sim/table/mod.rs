//! A whole table on virtual time: the pure [`Table`] (and the arbiter inside it) between two
//! physical boards, two players who act as people do (ahead of the announcements, with slips,
//! knocking pieces over, pressing early or late, moving while the clocks stand, asking for the
//! time and the moves at their keypads and with their boards' buttons, mistyping, pressing the
//! DGT clock's see-saw lever by habit), an assistant who asks at his own console and passes
//! questions on, an arbiter who pauses the clocks, speech that finishes fast or slow, and cables
//! pulled in the middle of a move. Everything is drawn from one seed, so a run is replayed
//! exactly from its seed.
//!
//! It owns the people and the physical world, never the game: everything reaches the table as
//! the hub would hand it over (a board's events through the intake, a console's commands, the
//! lever's readings), and moves count only through [`Table::handle`]. A run checks what must
//! always hold at a table:
//! - no move is counted or announced that nobody made: every move is the script's next one;
//! - the game never stalls: once the player to move has made his move, it completes, whatever
//!   the lever's position (a run with no progress for [`STALL_MS`], or with nothing left that
//!   could happen, fails; a sighted player's move made and pressed that has not counted
//!   [`COUNT_AFTER_PRESS_MS`] later fails at once);
//! - every refusal of something a player did (a move on his board, a clock press, a line at his
//!   keypad) is said to someone;
//! - what a seat asks reaches only that seat (F.9 d): its answer is said into his ear alone and
//!   shown on his keypad and the staff's consoles, never on the other player's, never to all;
//! - nothing F.9 d reserves (the count of moves, the time used) is said unasked;
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
//!
//! Here the table's world and its agenda, and [`run`]; in files of their own: the setup drawn
//! from a seed and the report (`setup`), playing and checking a run (`play`), the boards and
//! their sampling (`boards`), the people (`people`), what they ask and press beside their moves
//! (`asking`). The generator is the simulators' shared [`Rng`].

mod asking;
mod boards;
mod origin;
mod people;
mod play;
mod setup;

use boards::Physical;
use people::{Act, Person, Staff};
pub use setup::{Asking, Behaviour, Happened, RunReport, SeatKind, SightedBoard, TableSetup};

use std::{
    cmp::Reverse,
    collections::{BTreeSet, BinaryHeap},
};

use shakmaty::{ByColor, Color, Square};

use crate::{
    announce::{Announcement, Audience},
    board::SensorEvent,
    rules::Millis,
    sim::Rng,
    table::Table,
};

/// A run without a new move for this long (virtual time) has stalled.
pub const STALL_MS: Millis = 240_000;
/// A sighted player's move that stands on his board, pressed on the clock's lever (either side,
/// whichever moved), has counted by then.
pub const COUNT_AFTER_PRESS_MS: Millis = 30_000;
/// The longest a slid piece rests on a square it passes over (a moving hand).
pub const SLIDE_REST_MAX_MS: u64 = 60;
/// The DGT board's sweep of its 64 squares takes between these (the profile's `scan_ms` must
/// not be shorter than the longest, and a field update's wire time).
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

/// What happens at an instant of the agenda.
#[derive(Debug, Clone)]
enum Action {
    /// A person acts.
    Act {
        who: Color,
        act: Act,
    },
    /// The DGT board's sweep reaches a square: a change there is found and sent.
    Sample {
        board: Color,
        square: Square,
    },
    /// A board answers a request for a full reading.
    Read {
        board: Color,
        epoch: u64,
    },
    /// A message reaches the host.
    Deliver {
        board: Color,
        epoch: u64,
        event: SensorEvent,
    },
    /// The DGT clock's report of its lever reaches the host (over the sighted board's line):
    /// `by`, whose hand moved it (none: the clock's report of the lever as it stands).
    Lever {
        board: Color,
        epoch: u64,
        right_high: bool,
        by: Option<Color>,
    },
    /// An announcement has been said.
    Said {
        id: u64,
        audience: Audience,
        announcement: Announcement,
    },
    /// A person learns a move he heard said aloud or saw (F.1).
    Learn {
        who: Color,
        ply: usize,
    },
    Staff(Staff),
}

/// The table: the pure table between the two boards and the two people, and the agenda of what
/// happens when (virtual time). Its duties are `impl World` blocks in the files beside.
struct World {
    setup: TableSetup,
    rng: Rng,
    /// What the people ask and press beside their moves is drawn from a generator of its own,
    /// so that every seed drawn before it plays its moves as it did.
    talk: Rng,
    now: Millis,
    seq: u64,
    agenda: BinaryHeap<Reverse<(Millis, u64, usize)>>,
    actions: Vec<Option<Action>>,
    table: Table,
    /// The position after each of the script's first moves (`positions[k]`: after `k`).
    positions: Vec<shakmaty::Chess>,
    /// The mateability verdicts found so far (this thread's tables before included).
    verdicts: Verdicts,
    /// The DGT clock's lever as it stands: high on the right (the left side is down).
    lever_right_high: bool,
    /// The sighted player's last press of the lever that moved it, while his move stood on his
    /// board: the move's index in the script and when (it must count by
    /// [`COUNT_AFTER_PRESS_MS`]).
    pressed: Option<(usize, Millis)>,
    /// The table's own announcements (replies) that speech was told to silence: they end cut.
    silenced: BTreeSet<u64>,
    /// When each blind player asks his next question, and the assistant his.
    next_ask: ByColor<Option<Millis>>,
    next_assist: Option<Millis>,
    /// Each seat's board.
    boards: ByColor<Physical>,
    /// The player in each seat.
    people: ByColor<Person>,
    /// Each player's speech channel: busy until then.
    speech_free: ByColor<Millis>,
    trace: Trace,
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

/// What happened at a table, for a failing seed's report: every input with what it did, every
/// act of the people. Kept as values and worded only when the report is made; only the last
/// [`TRACE_KEPT`] entries unless the whole is asked for.
#[derive(Debug)]
struct Trace {
    entries: std::collections::VecDeque<Traced>,
    keep_all: bool,
}

/// How many entries of a table's trace are kept (a failure shows the last few).
const TRACE_KEPT: usize = 200;

/// One entry of a [`Trace`].
#[derive(Debug)]
enum Traced {
    Input {
        t: Millis,
        /// None: a tick.
        input: Option<crate::table::TableInput>,
        effects: Vec<crate::table::TableEffect>,
    },
    Act {
        t: Millis,
        whom: &'static str,
        act: people::Act,
    },
    Line(String),
}

impl Trace {
    fn new(keep_all: bool) -> Trace {
        Trace {
            entries: std::collections::VecDeque::new(),
            keep_all,
        }
    }

    fn push(&mut self, entry: Traced) {
        if !self.keep_all && self.entries.len() >= TRACE_KEPT {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// The entries in words, one (or a few) lines each.
    fn lines(&self) -> Vec<String> {
        self.entries
            .iter()
            .map(|entry| match entry {
                Traced::Input { t, input, effects } => {
                    let label = input.as_ref().map_or_else(|| "Tick".into(), play::label);
                    let mut line = format!("{t:>8} {label}");
                    for e in effects {
                        line.push_str(&format!("\n{:>8}   -> {}", "", play::short(e)));
                    }
                    line
                }
                Traced::Act { t, whom, act } => format!("{t:>8} ({whom}: {act:?})"),
                Traced::Line(line) => line.clone(),
            })
            .collect()
    }
}

/// Play one table to the end of its script. Never panics on a table's behalf: what goes wrong
/// is in [`RunReport::failure`].
pub fn run(setup: TableSetup) -> RunReport {
    run_with(setup, &mut Verdicts::default())
}

/// [`run`], with the mateability verdicts of tables played before: a thread's tables replay
/// the same games' positions again and again, and the search is what a table costs most.
pub fn run_with(setup: TableSetup, verdicts: &mut Verdicts) -> RunReport {
    let mut world = World::new(setup);
    world.verdicts = std::mem::take(verdicts);
    world.play();
    *verdicts = std::mem::take(&mut world.verdicts);
    world.report()
}

/// The mateability search's verdicts, by position and side.
#[derive(Debug, Clone, Default)]
pub struct Verdicts {
    found: std::collections::HashMap<(u128, Color), crate::rules::dead::Mateability>,
}

impl Verdicts {
    /// The verdict for `query`: searched once per position and side.
    fn solve(&mut self, query: &crate::rules::dead::Query) -> crate::rules::dead::Mateability {
        let key = (crate::rules::game::identity(&query.position).0, query.side);
        *self
            .found
            .entry(key)
            .or_insert_with(|| crate::rules::dead::solve(query))
    }
}
