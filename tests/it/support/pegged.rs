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
    /// The line; dropped (socat killed) with the board.
    _pair: PtyPair,
    writer: Arc<Mutex<fs::File>>,
    occupied: Arc<Mutex<Bitboard>>,
}

impl PeggedBoard {
    /// A board in `dir` whose apertures hold the pieces of `start`.
    pub fn new(dir: &Path, start: &Chess) -> PeggedBoard {
        let (port, ours) = (dir.join("tactile-port"), dir.join("tactile-board"));
        let pair = PtyPair::new(&port, &ours);
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&ours)
            .unwrap();
        let reader = file.try_clone().unwrap();
        let writer = Arc::new(Mutex::new(file));
        let occupied = Arc::new(Mutex::new(start.board().occupied()));
        let (w, o) = (writer.clone(), occupied.clone());
        // The board's own answers to the host.
        thread::spawn(move || {
            let mut lines = BufReader::new(reader);
            let mut line = String::new();
            while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
                let answer = match line.trim() {
                    "?" => Some(format!("S {:016X}\n", o.lock().unwrap().0)),
                    "V" => Some("H test-pegged 1.0\n".to_string()),
                    _ => None,
                };
                if let Some(answer) = answer {
                    let _ = w.lock().unwrap().write_all(answer.as_bytes());
                }
                line.clear();
            }
        });
        PeggedBoard {
            port,
            _pair: pair,
            writer,
            occupied,
        }
    }

    /// The daemon's end of the line (`[boards.blind] port`).
    pub fn port(&self) -> &Path {
        &self.port
    }

    fn send(&self, line: &str) {
        self.writer
            .lock()
            .unwrap()
            .write_all(format!("{line}\n").as_bytes())
            .unwrap();
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
