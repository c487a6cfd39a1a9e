//! The board-test tool (`tactus board-test`): the diagnostic a user runs when setting up a board.
//! It connects to the board, prints the board it sees, then every touch and every recognised
//! move in SAN, live, with both sides moving on this one board.
//!
//! This module owns the loop that joins a [`link`] to a [`Recognizer`] (feeding its snapshot
//! requests back to the link and ticking it at its deadlines), the promotion prompt for occupancy
//! boards, and the game's end on the board; the wording of what is printed (plain lines for
//! people and screen readers, or one JSON object per line for scripts and tests) is in
//! [`report`]. It must not play the arbiter: it checks no clock, claim or turn beyond what
//! recognition needs, and never writes to the board except through the link's requests. The
//! command's arguments are `cli::board_test`'s.

pub mod report;

use std::{io::Write, path::PathBuf, time::Duration};

use anyhow::Result;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role, Square};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use self::report::{Printer, Report, diagram};
use crate::daemon::link::{self, LinkCommand, LinkEvent, LinkSettings, MonotonicClock};
use tactus_core::{
    board::{
        Sensing, SensorEvent,
        profile::Profile,
        recognize::{Mode, Recognized, Recognizer, RecognizerConfig},
    },
    rules::{dead, notation},
};

/// How long the link gets to close its port on the way out.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// What `board-test` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    pub profile: Profile,
    pub port: PathBuf,
    pub json: bool,
    /// The position the board should show at the start.
    pub start: Chess,
    /// Stop after this many recognised moves.
    pub moves: Option<usize>,
    /// Stop when the game ends on the board (checkmate, stalemate, dead position).
    pub until_end: bool,
}

/// Why the run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    /// `--moves N` reached.
    Moves(usize),
    /// The game ended on the board.
    GameOver(String),
    /// Ctrl-C or the caller's cancellation.
    Interrupted,
}

/// What happened, for the summary and the tests.
#[derive(Debug, Clone)]
pub struct Summary {
    pub moves: Vec<String>,
    pub finish: Finish,
}

/// The promotion piece a user typed.
pub fn parse_promotion(input: &str) -> Option<Role> {
    match input.trim().to_ascii_lowercase().as_str() {
        "q" | "queen" => Some(Role::Queen),
        "r" | "rook" => Some(Role::Rook),
        "b" | "bishop" => Some(Role::Bishop),
        "n" | "knight" => Some(Role::Knight),
        _ => None,
    }
}

/// How the game ended on the board, if it did: (reason, result).
pub fn game_end(pos: &Chess) -> Option<(String, String)> {
    if pos.is_checkmate() {
        let result = match pos.turn() {
            Color::White => "0-1",
            Color::Black => "1-0",
        };
        return Some(("checkmate".into(), result.into()));
    }
    if pos.is_stalemate() {
        return Some(("stalemate".into(), "1/2-1/2".into()));
    }
    if dead::is_dead_quick(pos) {
        return Some(("dead position".into(), "1/2-1/2".into()));
    }
    None
}

/// The move number as a scoresheet writes it: `12.` for White, `12...` for Black.
fn move_number(pos: &Chess) -> String {
    match pos.turn() {
        Color::White => format!("{}.", pos.fullmoves()),
        Color::Black => format!("{}...", pos.fullmoves()),
    }
}

/// The loop: link events, promotion input and recogniser deadlines, until a stop condition.
pub struct BoardTest<W: Write> {
    opts: Options,
    printer: Printer<W>,
    rec: Recognizer,
    sensing: Sensing,
    clock: MonotonicClock,
    commands: Option<mpsc::Sender<LinkCommand>>,
    moves: Vec<String>,
    /// The position before the next move (the recogniser's expected position, kept to name moves).
    position: Chess,
    show_board: bool,
    pending_promotion: bool,
    finish: Option<Finish>,
}

impl<W: Write> BoardTest<W> {
    fn identifies_pieces(&self) -> bool {
        self.sensing == Sensing::Identity
    }

    pub fn new(opts: Options, out: W, clock: MonotonicClock) -> BoardTest<W> {
        let cfg = RecognizerConfig::from_profile(&opts.profile);
        let rec = Recognizer::new(cfg, opts.start.clone(), Mode::Move);
        let printer = Printer::new(out, opts.json);
        BoardTest {
            position: opts.start.clone(),
            sensing: opts.profile.sensing,
            opts,
            printer,
            rec,
            clock,
            commands: None,
            moves: Vec::new(),
            show_board: false,
            pending_promotion: false,
            finish: None,
        }
    }

    /// Run against the port in the options until done, interrupted or cancelled.
    pub async fn run(
        mut self,
        mut input: mpsc::Receiver<String>,
        cancel: CancellationToken,
    ) -> Result<Summary> {
        // Fail early and clearly if the port cannot be opened at all: this is a diagnostic, the
        // user wants to know now (the link itself would retry quietly).
        let port = crate::port::open_port(&self.opts.port, &self.opts.profile)?;
        self.printer.report(&Report::Start {
            profile: self.opts.profile.name.clone(),
            description: self.opts.profile.description.clone(),
            port: crate::port::describe_path(&self.opts.port),
        })?;
        let link_cancel = cancel.child_token();
        let settings = LinkSettings::new("board-test", &self.opts.port, self.opts.profile.clone());
        let mut link = link::spawn_with(settings, self.clock, link_cancel.clone(), Some(port));
        self.commands = Some(link.commands.clone());
        let mut input_open = true;
        let result = loop {
            if let Some(finish) = self.finish.clone() {
                break Ok(finish);
            }
            let deadline = self.rec.next_deadline().map(|d| self.clock.instant(d));
            tokio::select! {
                _ = cancel.cancelled() => break Ok(Finish::Interrupted),
                event = link.events.recv() => match event {
                    Some(timed) => {
                        if let Err(e) = self.link_event(timed.event, timed.at).await {
                            break Err(e);
                        }
                    }
                    None => break Err(anyhow::anyhow!("the board link stopped unexpectedly")),
                },
                line = input.recv(), if input_open => match line {
                    Some(line) => {
                        if let Err(e) = self.input(&line).await {
                            break Err(e);
                        }
                    }
                    None => {
                        input_open = false;
                        if self.pending_promotion {
                            self.printer.report(&Report::InputError {
                                text: "Standard input is closed: the promotion piece cannot be read.".into(),
                            })?;
                        }
                    }
                },
                _ = sleep_until_opt(deadline) => {
                    let now = self.clock.now();
                    let out = self.rec.tick(now);
                    if let Err(e) = self.recognized(out, now).await {
                        break Err(e);
                    }
                }
            }
        };
        link_cancel.cancel();
        // The link closes its port on cancellation; do not hang if it does not.
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, link.task).await;
        let finish = result?;
        Ok(Summary {
            moves: self.moves,
            finish,
        })
    }

    async fn link_event(&mut self, event: LinkEvent, at: u64) -> Result<()> {
        match event {
            LinkEvent::Connected { info } => {
                self.show_board = true;
                self.printer.report(&Report::Connected { info })?;
            }
            LinkEvent::Sensor(event) => {
                let snapshot = matches!(event, SensorEvent::Snapshot(_));
                if let SensorEvent::Button(number) = event {
                    self.printer.report(&Report::Button { number })?;
                }
                let out = self.rec.event(event, at);
                if snapshot && self.show_board {
                    self.show_board = false;
                    let diff = self.rec.diff(self.rec.expected().board());
                    self.printer.report(&Report::Board {
                        rows: diagram(&self.rec, self.sensing),
                        sensing: self.sensing,
                        diff,
                    })?;
                }
                self.recognized(out, at).await?;
            }
            LinkEvent::Clock(_) | LinkEvent::ClockNote(_) => {}
            LinkEvent::Disconnected { reason } => {
                self.rec.disconnected(at);
                self.pending_promotion = false;
                self.printer.report(&Report::Disconnected { reason })?;
            }
            LinkEvent::Unavailable { reason } => {
                self.printer.report(&Report::Unavailable { reason })?
            }
            LinkEvent::Garbage { bytes } => self.printer.report(&Report::Garbage { bytes })?,
            LinkEvent::Rejected { reason } => self.printer.report(&Report::Rejected { reason })?,
            LinkEvent::Unknown { message } => self.printer.report(&Report::Unknown { message })?,
            LinkEvent::BoardFault { text } => self.printer.report(&Report::BoardFault { text })?,
        }
        Ok(())
    }

    async fn input(&mut self, line: &str) -> Result<()> {
        if line.trim().is_empty() {
            return Ok(());
        }
        if !self.pending_promotion {
            return self.printer.report(&Report::InputError {
                text: format!(
                    "Ignored input {:?}: no promotion is waiting for a piece.",
                    line.trim()
                ),
            });
        }
        let Some(role) = parse_promotion(line) else {
            return self.printer.report(&Report::InputError {
                text: format!(
                    "{:?} is not a promotion piece; type q, r, b or n and press Enter.",
                    line.trim()
                ),
            });
        };
        let now = self.clock.now();
        let out = self.rec.promotion(role, now);
        self.recognized(out, now).await
    }

    /// Act on what the recogniser said; new facts it produces on the way are handled in order.
    async fn recognized(&mut self, out: Vec<Recognized>, now: u64) -> Result<()> {
        let mut queue: std::collections::VecDeque<Recognized> = out.into();
        while let Some(r) = queue.pop_front() {
            if self.finish.is_some() {
                break;
            }
            match r {
                Recognized::RequestSnapshot => {
                    if let Some(tx) = &self.commands {
                        // A stopped link cannot take it; the recogniser learns of the disconnect
                        // from the link's event and is reset then.
                        let _ = tx.send(LinkCommand::RequestSnapshot).await;
                    }
                }
                Recognized::Touched { square, piece } => {
                    let identified = self.identifies_pieces();
                    self.printer.report(&Report::Touched {
                        square,
                        piece,
                        identified,
                    })?
                }
                Recognized::Lifted { square, piece } => {
                    let identified = self.identifies_pieces();
                    self.printer.report(&Report::Lifted {
                        square,
                        piece,
                        identified,
                    })?
                }
                Recognized::MoveCompleted { mv, touches } => {
                    self.pending_promotion = false;
                    self.moved(mv, touches)?;
                    if self.finish.is_none() {
                        // Both sides move on this one board: the next move is the other side's.
                        let next = self.rec.expected().clone();
                        queue.extend(self.rec.set_expected(next, Mode::Move, now));
                    }
                }
                Recognized::PromotionPending { from, to } => {
                    self.pending_promotion = true;
                    self.printer.report(&Report::Promotion { from, to })?;
                }
                // The pawn taken off its promotion square again: the promotion waits no more
                // (the bench reports the board as it rests; 4.6 c is the arbiter's).
                Recognized::PromotionLeft { .. } => self.pending_promotion = false,
                // Nothing to execute and no clock press on this bench.
                // One board plays both sides here (never awaiting an opponent's move elsewhere):
                // nothing is out of turn.
                Recognized::Executed | Recognized::NoMove | Recognized::OutOfTurn { .. } => {}
                Recognized::Differs(diff) => self.printer.report(&Report::Differs { diff })?,
                Recognized::Matches => self.printer.report(&Report::Matches)?,
                Recognized::SnapshotCorrected { squares } => {
                    self.printer.report(&Report::ChangedWhileAway { squares })?;
                }
            }
        }
        Ok(())
    }

    fn moved(&mut self, mv: Move, touches: Vec<Square>) -> Result<()> {
        // The recogniser has already moved on to the position after the move; SAN needs the one
        // before it.
        let before = std::mem::replace(&mut self.position, self.rec.expected().clone());
        let san = notation::san(&before, mv);
        let uci = mv.to_uci(CastlingMode::Standard).to_string();
        self.moves.push(san.clone());
        self.printer.report(&Report::Move {
            ply: self.moves.len(),
            number: move_number(&before),
            san,
            uci,
            touches,
        })?;
        let after = self.rec.expected().clone();
        if self.opts.until_end
            && let Some((reason, result)) = game_end(&after)
        {
            self.printer.report(&Report::End {
                reason: reason.clone(),
                result,
            })?;
            self.finish = Some(Finish::GameOver(reason));
        } else if self.opts.moves.is_some_and(|n| self.moves.len() >= n) {
            self.finish = Some(Finish::Moves(self.moves.len()));
        }
        Ok(())
    }
}

async fn sleep_until_opt(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Read standard input lines on a thread of their own (a blocking read cannot be cancelled, and
/// must not hold up the runtime's shutdown) and hand them over.
pub fn stdin_lines() -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel(8);
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        loop {
            line.clear();
            match stdin.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.blocking_send(line.clone()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}
