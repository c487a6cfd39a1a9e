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
//!
//! Here the table's world and its agenda, and [`run`]; in files of their own: the setup drawn
//! from a seed and the report (`setup`), playing and checking a run (`play`), the boards and
//! their sampling (`boards`), the people (`people`). The generator is the simulators' shared
//! [`Rng`].

mod boards;
mod people;
mod play;
mod setup;

use boards::Physical;
use people::{Act, Person, Staff};
pub use setup::{Behaviour, Happened, RunReport, SeatKind, SightedBoard, TableSetup};

use std::{cmp::Reverse, collections::BinaryHeap};

use shakmaty::{ByColor, Color, Square};

use crate::{
    announce::{Announcement, Audience},
    arbiter::Arbiter,
    board::SensorEvent,
    rules::Millis,
    sim::Rng,
};

/// A run without a new move for this long (virtual time) has stalled.
pub const STALL_MS: Millis = 240_000;
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

/// The table: the arbiter between the two boards and the two people, and the agenda of what
/// happens when (virtual time). Its duties are `impl World` blocks in the files beside.
struct World {
    setup: TableSetup,
    rng: Rng,
    now: Millis,
    seq: u64,
    agenda: BinaryHeap<Reverse<(Millis, u64, usize)>>,
    actions: Vec<Option<Action>>,
    arbiter: Arbiter,
    /// Each seat's board.
    boards: ByColor<Physical>,
    /// The player in each seat.
    people: ByColor<Person>,
    /// Each player's speech channel: busy until then.
    speech_free: ByColor<Millis>,
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

/// Play one table to the end of its script. Never panics on a table's behalf: what goes wrong
/// is in [`RunReport::failure`].
pub fn run(setup: TableSetup) -> RunReport {
    let mut world = World::new(setup);
    world.play();
    world.report()
}
