//! A pegged tactile board played by the test itself, over a real pseudo-terminal pair made by
//! `socat`: the daemon opens one end as the blind player's board (the line protocol of
//! `boards/README.md`), the test holds the other. The board answers the host's `?` with its
//! apertures and `V` with a greeting from a thread of its own; the test lifts and places pegs
//! (`L e2`, `P e4`) exactly when a scenario needs them: a move made out of turn, a move executed
//! wrongly and kept, a piece put back.

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    thread,
    time::Duration,
};

use shakmaty::{Bitboard, Chess, Position, Square};

use super::pty::PtyPair;

/// A board on the test's end of a socat pty pair ([`PtyPair`]); the daemon's end is
/// [`PeggedBoard::port`].
pub struct PeggedBoard {
    port: PathBuf,
    ours: PathBuf,
    /// The line; dropped (socat killed) with the board, or when it is unplugged.
    line: Option<PtyPair>,
    /// The board's end of the line, while it is plugged in.
    writer: Arc<Mutex<Option<fs::File>>>,
    occupied: Arc<Mutex<Bitboard>>,
}

impl PeggedBoard {
    /// A board in `dir` whose apertures hold the pieces of `start`.
    pub fn new(dir: &Path, start: &Chess) -> PeggedBoard {
        let (port, ours) = (dir.join("tactile-port"), dir.join("tactile-board"));
        let occupied = Arc::new(Mutex::new(start.board().occupied()));
        let writer = Arc::new(Mutex::new(None));
        let line = Self::line(&port, &ours, &occupied, &writer);
        PeggedBoard {
            port,
            ours,
            line: Some(line),
            writer,
            occupied,
        }
    }

    /// A new line at `port` and `ours`, the board writing to it through `writer` and answering
    /// the host on it from a thread of its own.
    fn line(
        port: &Path,
        ours: &Path,
        occupied: &Arc<Mutex<Bitboard>>,
        writer: &Arc<Mutex<Option<fs::File>>>,
    ) -> PtyPair {
        let pair = PtyPair::new(port, ours);
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(ours)
            .unwrap();
        let reader = file.try_clone().unwrap();
        *writer.lock().unwrap() = Some(file);
        let (w, o) = (writer.clone(), occupied.clone());
        // The board's own answers to the host (until the line goes).
        thread::spawn(move || {
            let mut lines = BufReader::new(reader);
            let mut line = String::new();
            while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
                let answer = match line.trim() {
                    "?" => Some(format!("S {:016X}\n", o.lock().unwrap().0)),
                    "V" => Some("H test-pegged 1.0\n".to_string()),
                    _ => None,
                };
                if let (Some(answer), Some(w)) = (answer, w.lock().unwrap().as_mut()) {
                    let _ = w.write_all(answer.as_bytes());
                }
                line.clear();
            }
        });
        pair
    }

    /// The board's cable is pulled: the line goes (the daemon sees a hang-up); the pegs stay as
    /// they are.
    pub fn unplug(&mut self) {
        *self.writer.lock().unwrap() = None;
        self.line = None;
    }

    /// The cable is plugged back in: a new line at the same paths, the board answering on it.
    pub fn replug(&mut self) {
        assert!(self.line.is_none(), "plugged in already");
        self.line = Some(Self::line(
            &self.port,
            &self.ours,
            &self.occupied,
            &self.writer,
        ));
    }

    /// The daemon's end of the line (`[boards.blind] port`).
    pub fn port(&self) -> &Path {
        &self.port
    }

    /// A line to the host; lost while the board is unplugged.
    fn send(&self, line: &str) {
        if let Some(w) = self.writer.lock().unwrap().as_mut() {
            w.write_all(format!("{line}\n").as_bytes()).unwrap();
        }
    }

    /// A peg leaves `square`.
    pub fn lift(&self, square: Square) {
        self.occupied.lock().unwrap().discard(square);
        self.send(&format!("L {square}"));
    }

    /// A peg enters `square`.
    pub fn place(&self, square: Square) {
        self.occupied.lock().unwrap().add(square);
        self.send(&format!("P {square}"));
    }

    /// A piece moved from `from` to `to` (a capture: the captured peg taken off first), at a
    /// hand's pace.
    pub fn shift(&self, from: Square, to: Square) {
        if self.occupied.lock().unwrap().contains(to) {
            self.lift(to);
            thread::sleep(Duration::from_millis(60));
        }
        self.lift(from);
        thread::sleep(Duration::from_millis(60));
        self.place(to);
    }
}
