//! A capture split by a cut, end to end through the binary (issue 39, point 1): the blind player
//! (White, on the test's pegged board over a pty pair) lifts the piece he captures, then the
//! daemon is killed (and resumed with `--resume`) or his board's cable is pulled and plugged back
//! in, then he completes the capture. The lift was journaled before the cut; after it, what the
//! board shows is read against the half-made move: the capture counts and is announced, never
//! lost in silence with his clock running.
//!
//! - `a_capture_split_by_a_crash_counts_after_the_resume`: the captured pawn lifted, SIGKILL,
//!   `--resume`, the capture completed.
//! - `a_capture_split_by_a_pulled_cable_counts`: the captured pawn lifted, the cable out and in,
//!   the capture completed.
//! - `a_capture_whose_two_lifts_came_before_the_cut_counts_at_its_placement`: both lifts before
//!   the cable is pulled, the placement after it is back.
//! - `a_capture_whose_two_lifts_came_before_a_crash_counts_at_its_placement`: the same across a
//!   crash.

use crate::support;

use std::{fs, thread, time::Duration};

use shakmaty::{Chess, Square};
use support::{
    games::sans, line_table::LineTable, pegged::PeggedBoard, process::wait_until,
    pty::socat_or_skip, record::game_folder, record::read_game_file, table::temp_dir,
};
use tactus::daemon::files::PGN_FILE;
use tactus_core::journal::JOURNAL_FILE;

/// How long the table is waited for.
const LIMIT: Duration = Duration::from_secs(30);

/// A hand's pause before and after the cut.
const PACE: u64 = 500;

/// What cuts the capture in two.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// `tactus run` killed with SIGKILL and started again with `--resume`.
    Crash,
    /// The board's cable pulled and plugged back in.
    Cable,
}

/// A table: blind White on the test's pegged board, sighted Black typed at the console.
struct Table {
    board: PeggedBoard,
    run: LineTable,
}

impl Table {
    /// 1.e4 d5 played, Black's pawn on d5 executed on White's board: White is to move and may
    /// take on d5.
    fn before_exd5(tag: &str) -> Table {
        let dir = temp_dir(&format!("cut-{tag}"));
        let board = PeggedBoard::new(&dir, &Chess::default());
        let mut run = LineTable::start(dir, board.port(), "en");
        board.shift(Square::E2, Square::E4);
        assert!(run.reaches_ply(1), "{}", run.transcript());
        run.console("move d5");
        run.console("press");
        assert!(run.reaches_ply(2), "{}", run.transcript());
        board.shift(Square::D7, Square::D5);
        Table { board, run }
    }

    /// The journal's lines.
    fn journal(&self) -> String {
        fs::read_to_string(game_folder(&self.run.dir.join("played")).join(JOURNAL_FILE))
            .unwrap_or_default()
    }

    /// Waits until the journal holds a lift of `square` (the cut comes after it).
    fn journaled_lift(&self, square: Square) {
        let wanted = format!("{{\"lift\":{{\"square\":\"{square}\"}}}}");
        let found = wait_until(LIMIT, || self.journal().contains(&wanted));
        assert!(found, "no {wanted} in the journal:\n{}", self.journal());
    }

    /// Waits until the transcript holds `text` `times` times.
    fn transcript_holds(&self, text: &str, times: usize) {
        let found = wait_until(LIMIT, || {
            self.run.transcript().matches(text).count() >= times
        });
        assert!(
            found,
            "{text:?} not {times} times in the transcript:\n{}\n{}",
            self.run.transcript(),
            self.run.log()
        );
    }

    /// The cut, and the table back: after a crash, the game resumed and its clocks running again;
    /// after a pulled cable, the board connected and read again.
    fn cut(&mut self, cut: Cut) {
        match cut {
            Cut::Crash => {
                self.run.kill();
                self.run.resume();
                let reply = self.run.console("resume");
                assert_eq!(reply.last().map(String::as_str), Some("ok"), "{reply:?}");
            }
            Cut::Cable => {
                let connected = self.run.transcript().matches("board connected").count();
                self.board.unplug();
                self.transcript_holds("board disconnected", 1);
                self.board.replug();
                self.transcript_holds("board connected", connected + 1);
            }
        }
    }
}

/// White takes on d5 with the cut after `lifts_before` of the capture's two lifts (the captured
/// pawn first): the capture counts, is announced to Black, and stands in the record.
fn capture_split(tag: &str, cut: Cut, lifts_before: usize) {
    if !socat_or_skip() {
        return;
    }
    let mut t = Table::before_exd5(tag);
    let lifts = [Square::D5, Square::E4];
    for &square in &lifts[..lifts_before] {
        t.board.lift(square);
        t.journaled_lift(square);
    }
    thread::sleep(Duration::from_millis(PACE));
    t.cut(cut);
    thread::sleep(Duration::from_millis(PACE));
    for &square in &lifts[lifts_before..] {
        t.board.lift(square);
        thread::sleep(Duration::from_millis(60));
    }
    t.board.place(Square::D5);
    assert!(
        t.run.reaches_ply(3),
        "{cut:?}: exd5 not counted\n{}\n{}",
        t.run.transcript(),
        t.run.log()
    );
    t.transcript_holds("sighted Eva takes David five", 1);
    let folder = t.run.stop();
    let pgn = read_game_file(&folder.join(PGN_FILE));
    assert_eq!(sans(&Chess::default(), &pgn.moves), ["e4", "d5", "exd5"]);
}

#[test]
fn a_capture_split_by_a_crash_counts_after_the_resume() {
    capture_split("crash-1", Cut::Crash, 1);
}

#[test]
fn a_capture_split_by_a_pulled_cable_counts() {
    capture_split("cable-1", Cut::Cable, 1);
}

#[test]
fn a_capture_whose_two_lifts_came_before_the_cut_counts_at_its_placement() {
    capture_split("cable-2", Cut::Cable, 2);
}

#[test]
fn a_capture_whose_two_lifts_came_before_a_crash_counts_at_its_placement() {
    capture_split("crash-2", Cut::Crash, 2);
}
