//! Issue 22: the DGT clock shows the official clock through a whole game's changes. The real
//! chain, pure and on virtual time: the Laws' clock (`rules::clock`) as the arbiter keeps it,
//! its face (`ClockFace::official`, White on the left), the board link's session with its clock
//! driver, the bytes on the line, the simulated DGT board relaying them to an emulated DGT 3000
//! that runs its own times from what it is set to, and its ACKs and BWTIME readings back. At
//! every move, a pause, an `add-time`, a takeback's `set-clock` and the end, once the command
//! has had its ACK, the emulated clock's two times are within 1 s of the official ones.

use shakmaty::{Board, Color};
use tactus_core::{
    board::{
        Orientation,
        dgt_clock::{ClockFace, ClockSide},
        profile::ProfileSet,
        session::{Action, LinkCommand, Session},
    },
    rules::{Millis, clock::Clock, time_control::TimeControl},
    sim::{board::SimBoard, clock::EmulatedClock},
};

/// The link and the board joined, bytes passing at once, on virtual time in 10 ms steps.
struct Table {
    session: Session,
    board: SimBoard,
    now: Millis,
}

impl Table {
    fn new() -> Table {
        let mut profile = ProfileSet::builtin().get("dgt").unwrap().clone();
        profile.clock.attached = true;
        let session = Session::new(&profile, None, 0);
        let board = SimBoard::new(&profile, Board::new(), Orientation::Normal)
            .with_clock(EmulatedClock::new());
        let mut table = Table {
            session,
            board,
            now: 0,
        };
        let greeting = table.session.start(0);
        table.carry(greeting);
        table
    }

    /// Write what the session wants written to the board, and feed the board's answers back.
    fn carry(&mut self, mut actions: Vec<Action>) {
        for _ in 0..100 {
            let mut answers = Vec::new();
            for action in actions.drain(..) {
                match action {
                    Action::Write(bytes) => answers.extend(self.board.host_bytes(&bytes)),
                    Action::Lost(reason) => panic!("the link was lost: {reason}"),
                    Action::Emit(_) => {}
                }
            }
            if answers.is_empty() {
                return;
            }
            actions = self.session.received(&answers.concat(), self.now);
        }
        panic!("the link and the board never stopped talking");
    }

    /// Let `ms` pass: the board's own reports, the session's deadlines.
    fn pass(&mut self, ms: Millis) {
        let until = self.now + ms;
        while self.now < until {
            self.now += 10;
            let reports = self.board.at(self.now);
            if !reports.is_empty() {
                let actions = self.session.received(&reports.concat(), self.now);
                self.carry(actions);
            }
            if self.session.next_deadline() <= self.now {
                let actions = self.session.tick(self.now);
                self.carry(actions);
            }
        }
    }

    /// The official clock changed: its face goes to the link.
    fn official(&mut self, clock: &Clock) {
        let (face, _) = ClockFace::official(clock, Color::White, self.now);
        let actions = self.session.command(LinkCommand::Clock(face), self.now);
        self.carry(actions);
    }

    /// The emulated clock agrees with `clock` within a second, after the ACK had its time.
    fn agrees(&mut self, clock: &Clock, what: &str) {
        self.pass(300);
        let (face, _) = ClockFace::official(clock, Color::White, self.now);
        let shown = self.board.clock().unwrap();
        let (left, right) = shown.shows(self.now);
        assert!(
            left.abs_diff(face.left_ms) <= 1000 && right.abs_diff(face.right_ms) <= 1000,
            "{what}: the clock shows {left} / {right}, the official clock {} / {}",
            face.left_ms,
            face.right_ms
        );
        assert_eq!(shown.running(), face.running, "{what}: which side runs");
    }
}

#[test]
fn the_emulated_clock_follows_the_official_one_through_a_whole_game() {
    let mut table = Table::new();
    table.pass(500);
    let mut clock = Clock::new("300+5".parse::<TimeControl>().unwrap());
    table.official(&clock);
    table.agrees(&clock, "before the start");
    clock.start(Color::White, table.now);
    table.official(&clock);
    table.agrees(&clock, "the start");
    // Thirty moves at uneven speeds, each press with its increment.
    for ply in 0..30u64 {
        table.pass(700 + (ply * 977) % 6000);
        clock.press(table.now).unwrap();
        table.official(&clock);
        table.agrees(&clock, &format!("after ply {}", ply + 1));
        if ply == 9 {
            // The arbiter pauses (6.12), gives White two minutes, resumes.
            clock.pause(table.now).unwrap();
            table.official(&clock);
            table.agrees(&clock, "paused");
            table.pass(20_000);
            clock.add_time(Color::White, 120_000, table.now);
            table.official(&clock);
            table.agrees(&clock, "two minutes added");
            clock.resume(table.now).unwrap();
            table.official(&clock);
            table.agrees(&clock, "resumed");
        }
        if ply == 19 {
            // A takeback sets the clocks as the arbiter decides.
            clock.set_remaining(Color::Black, 200_000, table.now);
            table.official(&clock);
            table.agrees(&clock, "set after a takeback");
        }
        // The board's own readings in between never pull the clock away from the official one.
        table.pass(3000);
        table.agrees(&clock, &format!("3 s after ply {}", ply + 1));
    }
    clock.stop(table.now);
    table.official(&clock);
    table.agrees(&clock, "the end");
    assert_eq!(table.board.clock().unwrap().running(), None::<ClockSide>);
}

#[test]
fn a_clock_that_loses_acks_or_is_unplugged_is_set_right_again() {
    let mut table = Table::new();
    table.pass(500);
    let mut clock = Clock::new("600".parse::<TimeControl>().unwrap());
    clock.start(Color::White, table.now);
    table.board.clock_mut().unwrap().lose_acks = 2;
    table.official(&clock);
    // Sent again after each lost ACK (2 s apart): set within 6 s.
    table.pass(5000);
    table.agrees(&clock, "after two lost ACKs");
    // Unplugged for ten seconds while White's time runs and he moves.
    table.board.clock_mut().unwrap().unplugged = true;
    table.pass(4000);
    clock.press(table.now).unwrap();
    table.official(&clock);
    table.pass(6000);
    table.board.clock_mut().unwrap().unplugged = false;
    // Back: its next reading starts a new handshake and the official time goes out.
    table.pass(3000);
    table.agrees(&clock, "plugged back in");
}
