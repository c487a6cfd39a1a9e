//! Procedure an arbiter can trust, end to end through the binary: `tactus run` with the blind
//! player's pegged board played by the test itself over a real pty pair (so that it can do what
//! a simulated player never does: move out of turn, keep a wrong execution), the sighted
//! player's moves typed at the console, speech off (announcements go to the transcript).
//!
//! - 1.1: a move made on the tactile board before the opponent has moved is no move: he hears
//!   "not your move", the arbiter sees what happened, and once the opponent's move stands his
//!   board is guided back; it counts when he makes it again.
//! - Adjournment: White, an English player (voice pack `en`), seals `Rf1` after 1.e4 e5 2.Nf3
//!   Nc6 3.Bc4 Bc5; his own notation reads it as the rook's move, and the envelope opens to
//!   4.Rf1 (it used to be "Kf1 or Rf1: not one move", 0-1).
//! - F.8: the boards differ; a scoresheet typed with `1. e44` retraces nothing; both sheets
//!   offer a retrace that the arbiter confirms, then undoes: the game and its clocks as they
//!   were.

use crate::support;

use std::{
    fs,
    io::{BufReader, Write},
    os::unix::net::UnixStream,
    path::{Path, PathBuf},
    thread,
    time::Duration,
};

use shakmaty::{Chess, Square};
use support::{
    console::read_reply, games::sans, line_table::LineTable, pegged::PeggedBoard,
    pty::socat_or_skip, record::read_game_file, table::temp_dir,
};
use tactus::daemon::files::PGN_FILE;

/// A table: blind White on the test's pegged board, sighted Black on a plain board.
struct Table {
    board: PeggedBoard,
    run: LineTable,
}

impl Table {
    fn start(tag: &str) -> Table {
        let dir = temp_dir(&format!("procedure-{tag}"));
        let board = PeggedBoard::new(&dir, &Chess::default());
        let run = LineTable::start(dir, board.port(), "en");
        Table { board, run }
    }

    /// A command at the assistant's console (the arbiter's when only he may type it).
    fn assistant(&mut self, command: &str) -> Vec<String> {
        self.run.console(command)
    }

    /// A command at the arbiter's console (logged in with the token).
    fn arbiter(&mut self, command: &str) -> Vec<String> {
        let socket = self.run.console_up();
        as_arbiter(&socket, command)
    }

    fn ply(&mut self) -> usize {
        self.run.ply()
    }

    fn wait_ply(&mut self, ply: usize) {
        let reached = self.run.reaches_ply(ply);
        assert!(reached, "ply {ply} not reached\n{}", self.transcript());
    }

    fn transcript(&self) -> String {
        self.run.transcript()
    }

    fn wait_transcript(&self, text: &str) -> String {
        self.run.transcript_with(text).unwrap_or_else(|last| {
            panic!(
                "{text:?} not in the transcript:\n{last}\n{}",
                self.run.log()
            )
        })
    }

    /// How often `text` is in the transcript.
    fn count(&self, text: &str) -> usize {
        self.transcript().matches(text).count()
    }

    /// White (blind) moves on his board; it counts once announced.
    fn white(&mut self, from: Square, to: Square) {
        let ply = self.ply();
        self.board.shift(from, to);
        self.wait_ply(ply + 1);
    }

    /// Black's move typed and pressed; White executes it on his board.
    fn black(&mut self, san: &str, from: Square, to: Square) {
        let ply = self.ply();
        self.assistant(&format!("move {san}"));
        self.assistant("press");
        self.wait_ply(ply + 1);
        self.board.shift(from, to);
        thread::sleep(Duration::from_millis(300));
    }

    fn stop(&mut self) -> PathBuf {
        self.run.stop()
    }
}

/// One command on a connection logged in as the arbiter.
fn as_arbiter(socket: &Path, command: &str) -> Vec<String> {
    let token = fs::read_to_string(socket.with_file_name("arbiter.token")).unwrap();
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    stream
        .write_all(format!("login {}\n", token.trim()).as_bytes())
        .unwrap();
    read_reply(&mut reader).unwrap();
    stream.write_all(format!("{command}\n").as_bytes()).unwrap();
    read_reply(&mut reader).unwrap()
}

#[test]
fn a1_1_a_move_made_before_the_opponents_is_no_move_end_to_end() {
    if !socat_or_skip() {
        return;
    }
    let mut t = Table::start("premove");
    t.white(Square::E2, Square::E4);
    // Black thinks; White plays Nf3 on his board.
    t.board.shift(Square::G1, Square::F3);
    t.wait_transcript("blind Not your move");
    t.wait_transcript("note white moved Nf3 on the tactile board before black had moved");
    assert_eq!(t.ply(), 1);
    // Black plays ...e5; White executes it, his knight still on f3: no move, said again, and
    // his board is guided back.
    t.black("e5", Square::E7, Square::E5);
    t.wait_transcript("was made before his opponent's move: it is not a move");
    let heard = t.wait_transcript("blind Knight stands on Felix three, belongs on Gustav one");
    assert_eq!(t.count("blind Not your move"), 2, "{heard}");
    assert_eq!(t.ply(), 2);
    // Back on g1, he plays it again in his own time: it counts.
    t.board.shift(Square::F3, Square::G1);
    thread::sleep(Duration::from_millis(300));
    t.white(Square::G1, Square::F3);
    let folder = t.stop();
    let pgn = read_game_file(&folder.join(PGN_FILE));
    let sans = sans(&Chess::default(), &pgn.moves);
    assert_eq!(sans, ["e4", "e5", "Nf3"]);
}

#[test]
fn adjournment_an_english_players_sealed_rf1_opens_as_his_rooks_move_end_to_end() {
    if !socat_or_skip() {
        return;
    }
    let mut t = Table::start("seal");
    t.white(Square::E2, Square::E4);
    t.black("e5", Square::E7, Square::E5);
    t.white(Square::G1, Square::F3);
    t.black("Nc6", Square::B8, Square::C6);
    t.white(Square::F1, Square::C4);
    t.black("Bc5", Square::F8, Square::C5);
    assert_eq!(t.ply(), 6);
    // White (blind) seals at his assistant's console, in English letters: `R` is his rook.
    let body = t.assistant("seal Rf1");
    assert!(
        body.iter()
            .any(|l| l.contains("game adjourned: white sealed move 4")),
        "{body:?}"
    );
    // Black's side does not type White's seal, and White's seal is not typed for Black later:
    // the sighted player's sealed move is the arbiter's to type.
    let body = t.arbiter("open");
    assert!(body.last().is_some_and(|l| l.starts_with("ok")), "{body:?}");
    t.wait_ply(7);
    let status = t.assistant("status");
    assert!(
        !status.iter().any(|l| l.starts_with("result ")),
        "{status:?}"
    );
    // White makes the sealed move on his board (both boards showed the position before it).
    t.board.shift(Square::H1, Square::F1);
    thread::sleep(Duration::from_millis(300));
    // Black to move: the assistant may not seal for him.
    let body = t.assistant("seal Nf6");
    assert!(
        body.last()
            .is_some_and(|l| l.contains("typed at the arbiter's console")),
        "{body:?}"
    );
    let folder = t.stop();
    let pgn = read_game_file(&folder.join(PGN_FILE));
    let sans = sans(&Chess::default(), &pgn.moves);
    assert_eq!(sans.last().map(String::as_str), Some("Rf1"));
}

#[test]
fn f8_a_retrace_is_confirmed_by_the_arbiter_and_undone_end_to_end() {
    if !socat_or_skip() {
        return;
    }
    let mut t = Table::start("retrace");
    t.white(Square::E2, Square::E4);
    t.black("e5", Square::E7, Square::E5);
    t.white(Square::G1, Square::F3);
    // He executes 2...Nc6 on a6 and keeps it there: the boards differ.
    t.black("Nc6", Square::B8, Square::A6);
    t.wait_transcript("note tactile board differs");
    // A sheet typed with a typo retraces nothing.
    let body = t.arbiter("scoresheet white 1. e44 e5 2. Nf3 Nc6");
    assert!(
        body.iter()
            .any(|l| l.contains("does not read at 1. 'e44'") && l.contains("nothing is retraced")),
        "{body:?}"
    );
    t.arbiter("scoresheet black 1. e4 e5 2. Nc3 Nc6");
    let body = t.arbiter("scoresheet white 1. e4 e5 2. Nf3 Nc6");
    assert!(
        body.iter().any(|l| l.contains(
            "the two scoresheets agree for 2 half-moves: retrace the game to after 1... e5? \
             `confirm` retraces it (F.8)"
        )),
        "{body:?}"
    );
    assert_eq!(t.ply(), 4);
    let body = t.arbiter("confirm");
    assert!(
        body.iter().any(|l| l.contains("retraced to after 1... e5")),
        "{body:?}"
    );
    assert_eq!(t.ply(), 2);
    // The arbiter changes his mind before play goes on: the game as it was.
    let body = t.arbiter("undo");
    assert!(
        body.iter().any(|l| l.contains("the retrace is undone")),
        "{body:?}"
    );
    assert_eq!(t.ply(), 4);
    let status = t.assistant("status");
    assert!(status.iter().any(|l| l.contains("(paused)")), "{status:?}");
    // The knight goes to c6 where it belongs; play goes on at `resume`.
    t.board.shift(Square::A6, Square::C6);
    thread::sleep(Duration::from_millis(500));
    t.arbiter("resume");
    t.white(Square::F1, Square::C4);
    let folder = t.stop();
    let pgn = read_game_file(&folder.join(PGN_FILE));
    let sans = sans(&Chess::default(), &pgn.moves);
    assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bc4"]);
}

/// 4.6, F.7: a blind player pushes his pawn to h8, lets go, then lifts it again and puts it on
/// g7. Nothing counts; he is told at once that the move is not possible and guided back, the
/// arbiter is told what the board shows and that the pawn released on h8 may go nowhere else
/// (4.6 c), and a `promote` typed for a pawn no longer on the last rank is refused with that
/// reason. Back on h7, he promotes properly and it counts.
#[test]
fn a4_6_a_pawn_released_on_the_last_rank_and_moved_on_is_guided_back_end_to_end() {
    if !socat_or_skip() {
        return;
    }
    let mut t = Table::start("promotion-moved-on");
    t.white(Square::H2, Square::H4);
    t.black("g5", Square::G7, Square::G5);
    t.white(Square::H4, Square::G5);
    t.black("h6", Square::H7, Square::H6);
    t.white(Square::G5, Square::H6);
    t.black("Nf6", Square::G8, Square::F6);
    t.white(Square::H6, Square::H7);
    t.black("Rg8", Square::H8, Square::G8);
    assert_eq!(t.ply(), 8);
    // White pushes to h8 and lets go of the pawn (the piece is asked for) ...
    t.board.shift(Square::H7, Square::H8);
    t.wait_transcript("note promotion on h8");
    // ... then lifts it again and puts it on g7.
    t.board.shift(Square::H8, Square::G7);
    t.wait_transcript("blind Move not possible");
    t.wait_transcript("blind Pawn stands on Gustav seven, belongs on Hector seven");
    t.wait_transcript("illegal move on the tactile board by white (7.4): it stands on g7 h7");
    // 4.6 c: released on h8, the pawn may no longer go to another square: noted for the
    // arbiter, and `promote` says so.
    t.wait_transcript("possible claim (Art. 4.6 c)");
    assert!(
        t.transcript()
            .contains("released the pawn on h8 to promote it, then took it off again"),
        "{}",
        t.transcript()
    );
    let said = t.assistant("promote q");
    assert!(
        said.last()
            .is_some_and(|l| l.contains("no promotion is waiting for its piece")
                && l.contains("under 4.6 c")
                && l.contains("once it stands on h8 again")),
        "{said:?}"
    );
    assert_eq!(t.ply(), 8);
    // Guided back, he plays the promotion again and says his queen: it counts.
    t.board.shift(Square::G7, Square::H7);
    thread::sleep(Duration::from_millis(300));
    t.board.shift(Square::H7, Square::H8);
    let asked_again = support::process::wait_until(support::line_table::LIMIT, || {
        t.count("note promotion on h8: the player announces the piece") == 2
    });
    assert!(asked_again, "{}", t.transcript());
    let said = t.assistant("promote q");
    assert!(said.last().is_some_and(|l| l.starts_with("ok")), "{said:?}");
    t.wait_ply(9);
    let folder = t.stop();
    let pgn = read_game_file(&folder.join(PGN_FILE));
    let sans = sans(&Chess::default(), &pgn.moves);
    assert_eq!(sans.last().map(String::as_str), Some("h8=Q"));
}
