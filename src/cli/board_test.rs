//! `tactus board-test`: the diagnostic a user runs when setting up a board. It connects to the
//! board, prints the board it sees, then every touch and every recognised move in SAN, live, with
//! both sides moving on this one board.
//!
//! This module owns the loop that joins a [`link`] to a [`Recognizer`] (feeding its snapshot
//! requests back to the link and ticking it at its deadlines), the promotion prompt for occupancy
//! boards, and the wording of what is printed: plain lines for people and screen readers, or one
//! JSON object per line for scripts and tests. It must not play the arbiter: it checks no clock,
//! claim or turn beyond what recognition needs, and never writes to the board except through the
//! link's requests.

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::Duration,
};

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use shakmaty::{
    Bitboard, CastlingMode, Chess, Color, Move, Piece, Position, Role, Square, fen::Fen,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::daemon::link::{self, LinkCommand, LinkEvent, LinkSettings, MonotonicClock};
use tactus_core::{
    announce::count,
    board::{
        Sensing, SensorEvent,
        profile::{Profile, ProfileSet},
        recognize::{BoardDiff, Found, Mode, Recognized, Recognizer, RecognizerConfig},
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

/// The board profile named on the command line, or read from a file.
pub fn load_profile(name: Option<&str>, file: Option<&Path>) -> Result<Profile> {
    match (name, file) {
        (_, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the board profile {}", path.display()))?;
            Ok(Profile::parse(&text, &path.display().to_string())?)
        }
        (Some(name), None) => Ok(ProfileSet::builtin().get(name)?.clone()),
        (None, None) => {
            let names: Vec<String> = ProfileSet::builtin().names().map(str::to_owned).collect();
            bail!(
                "name a board profile with --profile ({}) or --profile-file PATH",
                names.join(", ")
            )
        }
    }
}

/// The starting position from a FEN, with a message that says what is wrong.
pub fn parse_fen(fen: &str) -> Result<Chess> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .with_context(|| format!("--fen {fen:?} is not a FEN"))?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| anyhow::anyhow!("--fen {fen:?} is not a legal position: {e}"))
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

/// One thing to tell the user. Each has a plain-text and a JSON form.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    Start {
        profile: String,
        description: String,
        port: String,
    },
    Unavailable {
        reason: String,
    },
    Connected {
        info: String,
    },
    Board {
        rows: Vec<String>,
        sensing: Sensing,
        diff: BoardDiff,
    },
    Disconnected {
        reason: String,
    },
    /// `identified`: the board itself told the piece (DGT); on an occupancy board the piece is
    /// only what the events suggest.
    Touched {
        square: Square,
        piece: Option<Piece>,
        identified: bool,
    },
    Lifted {
        square: Square,
        piece: Option<Piece>,
        identified: bool,
    },
    Move {
        ply: usize,
        number: String,
        san: String,
        uci: String,
        touches: Vec<Square>,
    },
    Promotion {
        from: Square,
        to: Square,
    },
    InputError {
        text: String,
    },
    Differs {
        diff: BoardDiff,
    },
    Matches,
    ChangedWhileAway {
        squares: Bitboard,
    },
    Button {
        number: u8,
    },
    Garbage {
        bytes: u64,
    },
    Rejected {
        reason: String,
    },
    Unknown {
        message: String,
    },
    BoardFault {
        text: String,
    },
    End {
        reason: String,
        result: String,
    },
}

fn piece_letter(p: Option<Piece>) -> Value {
    p.map_or(Value::Null, |p| Value::String(p.char().to_string()))
}

fn piece_words(p: Piece) -> String {
    let color = match p.color {
        Color::White => "white",
        Color::Black => "black",
    };
    let role = match p.role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    };
    format!("{color} {role}")
}

fn squares_json(squares: impl IntoIterator<Item = Square>) -> Value {
    Value::Array(
        squares
            .into_iter()
            .map(|s| Value::String(s.to_string()))
            .collect(),
    )
}

fn squares_words(squares: impl IntoIterator<Item = Square>) -> String {
    squares
        .into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn found_json(found: Found) -> (Value, Value) {
    match found {
        Found::Empty => (Value::Null, Value::Null),
        Found::Piece(p) => (piece_letter(Some(p)), Value::Null),
        Found::Occupied { likely } => (Value::String("occupied".into()), piece_letter(likely)),
    }
}

fn found_words(found: Found) -> String {
    match found {
        Found::Empty => "nothing".into(),
        Found::Piece(p) => format!("a {}", piece_words(p)),
        Found::Occupied { likely: Some(p) } => format!("a piece (probably the {})", piece_words(p)),
        Found::Occupied { likely: None } => "a piece".into(),
    }
}

fn diff_json(diff: &BoardDiff) -> Value {
    Value::Array(
        diff.squares
            .iter()
            .map(|d| {
                let (found, likely) = found_json(d.found);
                json!({"square": d.square.to_string(), "expected": piece_letter(d.expected), "found": found, "likely": likely})
            })
            .collect(),
    )
}

fn diff_words(diff: &BoardDiff) -> String {
    diff.squares
        .iter()
        .map(|d| {
            let expected = d
                .expected
                .map_or_else(|| "nothing".to_owned(), |p| format!("a {}", piece_words(p)));
            format!(
                "{}: {} stands there, {} belongs there",
                d.square,
                found_words(d.found),
                expected
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl Report {
    /// The JSON object, one per line.
    pub fn json(&self) -> Value {
        match self {
            Report::Start {
                profile,
                description,
                port,
            } => {
                json!({"event": "start", "profile": profile, "description": description, "port": port})
            }
            Report::Unavailable { reason } => json!({"event": "unavailable", "reason": reason}),
            Report::Connected { info } => json!({"event": "connected", "info": info}),
            Report::Board {
                rows,
                sensing,
                diff,
            } => json!({
                "event": "board",
                "rows": rows,
                "identifies_pieces": *sensing == Sensing::Identity,
                "matches": diff.squares.is_empty(),
                "differs": diff_json(diff),
            }),
            Report::Disconnected { reason } => json!({"event": "disconnected", "reason": reason}),
            // "piece" is what the board identified (null on an occupancy board); "likely" is the
            // piece the events suggest, for people setting up a tactile board.
            Report::Touched {
                square,
                piece,
                identified,
            } => json!({
                "event": "touched",
                "square": square.to_string(),
                "piece": if *identified { piece_letter(*piece) } else { Value::Null },
                "likely": piece_letter(*piece),
            }),
            Report::Lifted {
                square,
                piece,
                identified,
            } => json!({
                "event": "lifted",
                "square": square.to_string(),
                "piece": if *identified { piece_letter(*piece) } else { Value::Null },
                "likely": piece_letter(*piece),
            }),
            Report::Move {
                ply,
                san,
                uci,
                touches,
                ..
            } => json!({
                "event": "move", "ply": ply, "san": san, "uci": uci, "touches": squares_json(touches.iter().copied()),
            }),
            Report::Promotion { from, to } => {
                json!({"event": "promotion", "square": to.to_string(), "from": from.to_string()})
            }
            Report::InputError { text } => json!({"event": "input_error", "text": text}),
            Report::Differs { diff } => json!({"event": "differs", "squares": diff_json(diff)}),
            Report::Matches => json!({"event": "matches"}),
            Report::ChangedWhileAway { squares } => {
                json!({"event": "changed_while_away", "squares": squares_json(*squares)})
            }
            Report::Button { number } => json!({"event": "button", "number": number}),
            Report::Garbage { bytes } => json!({"event": "garbage", "bytes": bytes}),
            Report::Rejected { reason } => json!({"event": "rejected", "reason": reason}),
            Report::Unknown { message } => json!({"event": "unknown", "message": message}),
            Report::BoardFault { text } => json!({"event": "board_fault", "text": text}),
            Report::End { reason, result } => {
                json!({"event": "end", "reason": reason, "result": result})
            }
        }
    }

    /// Plain lines for people: one fact per line, no layout a screen reader would stumble over.
    pub fn text(&self) -> Vec<String> {
        match self {
            Report::Start {
                profile,
                description,
                port,
            } => vec![
                format!("Board test: {description} (profile {profile}) on {port}."),
                "Waiting for the board. Press Ctrl-C to stop.".into(),
            ],
            Report::Unavailable { reason } => {
                vec![format!("Board not available: {reason}. Retrying.")]
            }
            Report::Connected { info } => vec![format!("Connected: {info}.")],
            Report::Board {
                rows,
                sensing,
                diff,
            } => {
                let mut lines = vec![match sensing {
                    Sensing::Identity => "The board shows (White at the bottom, . empty):".to_owned(),
                    Sensing::Occupancy => {
                        "The board shows (White at the bottom, x occupied, . empty; this board cannot tell which piece):"
                            .to_owned()
                    }
                }];
                lines.extend(rows.iter().cloned());
                lines.push(if diff.squares.is_empty() {
                    "That is the expected position.".to_owned()
                } else {
                    format!("Not the expected position. {}.", diff_words(diff))
                });
                lines
            }
            Report::Disconnected { reason } => {
                vec![format!("Disconnected: {reason}. Reconnecting.")]
            }
            Report::Touched { square, piece, .. } => vec![match piece {
                Some(p) => format!("Touched: {} on {square}.", piece_words(*p)),
                None => format!("Touched: {square}."),
            }],
            Report::Lifted { square, piece, .. } => vec![match piece {
                Some(p) => format!("Lifted: {} on {square}.", piece_words(*p)),
                None => format!("Lifted: {square}."),
            }],
            Report::Move {
                number, san, uci, ..
            } => vec![format!("Move {number} {san} ({uci}).")],
            Report::Promotion { from, to } => vec![format!(
                "Promotion: the pawn from {from} stands on {to}. Which piece? Type q, r, b or n and press Enter."
            )],
            Report::InputError { text } => vec![text.clone()],
            Report::Differs { diff } => vec![format!("The board differs. {}.", diff_words(diff))],
            Report::Matches => vec!["The board is as expected again.".into()],
            Report::ChangedWhileAway { squares } => {
                vec![format!(
                    "Changed while the board was away: {}.",
                    squares_words(*squares)
                )]
            }
            Report::Button { number } => vec![format!("Button {number} pressed.")],
            Report::Garbage { bytes } => vec![format!(
                "Skipped {} of line noise.",
                count(*bytes, "byte", "bytes")
            )],
            Report::Rejected { reason } => vec![format!("Ignored a bad message: {reason}.")],
            Report::Unknown { message } => vec![format!("Ignored an unknown message: {message}.")],
            Report::BoardFault { text } => vec![format!("The board reports a fault: {text}.")],
            Report::End { reason, result } => vec![format!("Game over: {reason} ({result}).")],
        }
    }
}

/// The board as a diagram: rank 8 first, a letter per piece (FEN letters), `x` for an occupied
/// aperture on a board that cannot tell the piece, `.` for empty; then the file letters.
pub fn diagram(rec: &Recognizer, sensing: Sensing) -> Vec<String> {
    let mut rows = Vec::new();
    for rank in (0..8u32).rev() {
        let mut row = format!("{}", rank + 1);
        for file in 0..8u32 {
            let sq = Square::new(rank * 8 + file);
            let c = match sensing {
                Sensing::Identity => rec.pieces().piece_at(sq).map_or('.', Piece::char),
                Sensing::Occupancy => {
                    if rec.occupied().contains(sq) {
                        'x'
                    } else {
                        '.'
                    }
                }
            };
            row.push(' ');
            row.push(c);
        }
        rows.push(row);
    }
    rows.push("  a b c d e f g h".into());
    rows
}

/// Writes reports, as text or JSON lines, flushing each line (the reader may be a test or a
/// screen reader waiting for it).
pub struct Printer<W: Write> {
    out: W,
    json: bool,
}

impl<W: Write> Printer<W> {
    pub fn new(out: W, json: bool) -> Printer<W> {
        Printer { out, json }
    }

    pub fn report(&mut self, report: &Report) -> Result<()> {
        if self.json {
            writeln!(self.out, "{}", report.json())?;
        } else {
            for line in report.text() {
                writeln!(self.out, "{line}")?;
            }
        }
        self.out.flush()?;
        Ok(())
    }
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
        let port = link::open_port(&self.opts.port, &self.opts.profile)?;
        self.printer.report(&Report::Start {
            profile: self.opts.profile.name.clone(),
            description: self.opts.profile.description.clone(),
            port: link::describe_path(&self.opts.port),
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
                // Nothing to execute and no clock press on this bench.
                Recognized::Executed | Recognized::NoMove => {}
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

#[cfg(test)]
mod tests {
    use shakmaty::Bitboard;

    use super::*;
    use tactus_core::board::recognize::SquareDiff;

    #[test]
    fn json_lines_have_the_documented_shape() {
        let touched = Report::Touched {
            square: Square::E2,
            piece: Some(Color::White.pawn()),
            identified: true,
        };
        assert_eq!(
            touched.json(),
            json!({"event": "touched", "square": "e2", "piece": "P", "likely": "P"})
        );
        let blind = Report::Touched {
            square: Square::G8,
            piece: Some(Color::Black.knight()),
            identified: false,
        };
        assert_eq!(blind.json()["piece"], Value::Null);
        assert_eq!(blind.json()["likely"], "n");
        let mv = Report::Move {
            ply: 1,
            number: "1.".into(),
            san: "e4".into(),
            uci: "e2e4".into(),
            touches: vec![Square::E2],
        };
        assert_eq!(
            mv.json(),
            json!({"event": "move", "ply": 1, "san": "e4", "uci": "e2e4", "touches": ["e2"]})
        );
        let diff = BoardDiff {
            squares: vec![
                SquareDiff {
                    square: Square::E2,
                    expected: Some(Color::White.pawn()),
                    found: Found::Empty,
                },
                SquareDiff {
                    square: Square::E3,
                    expected: None,
                    found: Found::Occupied {
                        likely: Some(Color::White.pawn()),
                    },
                },
            ],
        };
        assert_eq!(
            Report::Differs { diff }.json(),
            json!({"event": "differs", "squares": [
                {"square": "e2", "expected": "P", "found": null, "likely": null},
                {"square": "e3", "expected": null, "found": "occupied", "likely": "P"},
            ]})
        );
        assert_eq!(
            Report::Disconnected { reason: "x".into() }.json()["event"],
            "disconnected"
        );
        assert_eq!(
            Report::Connected { info: "x".into() }.json()["event"],
            "connected"
        );
        assert_eq!(
            Report::Promotion {
                from: Square::E7,
                to: Square::E8
            }
            .json(),
            json!({"event": "promotion", "square": "e8", "from": "e7"})
        );
        assert_eq!(
            Report::ChangedWhileAway {
                squares: Bitboard::from(Square::G1) | Bitboard::from(Square::F3)
            }
            .json(),
            json!({"event": "changed_while_away", "squares": ["g1", "f3"]})
        );
    }

    #[test]
    fn text_lines_are_plain_sentences() {
        let lines = Report::Touched {
            square: Square::G1,
            piece: Some(Color::White.knight()),
            identified: true,
        }
        .text();
        assert_eq!(lines, ["Touched: white knight on g1."]);
        let lines = Report::Move {
            ply: 2,
            number: "1...".into(),
            san: "e5".into(),
            uci: "e7e5".into(),
            touches: vec![],
        }
        .text();
        assert_eq!(lines, ["Move 1... e5 (e7e5)."]);
        let diff = BoardDiff {
            squares: vec![SquareDiff {
                square: Square::F3,
                expected: Some(Color::White.knight()),
                found: Found::Empty,
            }],
        };
        let lines = Report::Differs { diff }.text();
        assert_eq!(
            lines,
            ["The board differs. f3: nothing stands there, a white knight belongs there."]
        );
        for line in (Report::Promotion {
            from: Square::E7,
            to: Square::E8,
        })
        .text()
        {
            assert!(line.is_ascii() && !line.contains('\t'), "{line}");
        }
    }

    #[test]
    fn the_diagram_shows_pieces_or_occupancy() {
        let cfg = RecognizerConfig {
            sensing: Sensing::Identity,
            settle_ms: 0,
            scan_ms: 0,
            bounce_ms: 0,
            differs_after_ms: 0,
            confirm_with_snapshot: false,
        };
        let rec = Recognizer::new(cfg, Chess::default(), Mode::Move);
        let rows = diagram(&rec, Sensing::Identity);
        assert_eq!(rows[0], "8 r n b q k b n r");
        assert_eq!(rows[7], "1 R N B Q K B N R");
        assert_eq!(rows[8], "  a b c d e f g h");
        let rows = diagram(&rec, Sensing::Occupancy);
        assert_eq!(rows[1], "7 x x x x x x x x");
        assert_eq!(rows[2], "6 . . . . . . . .");
    }

    #[test]
    fn promotion_input_and_game_ends() {
        assert_eq!(parse_promotion(" N\n"), Some(Role::Knight));
        assert_eq!(parse_promotion("queen"), Some(Role::Queen));
        assert_eq!(parse_promotion("k"), None);
        assert_eq!(parse_promotion(""), None);
        let mate =
            parse_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3").unwrap();
        assert_eq!(game_end(&mate), Some(("checkmate".into(), "0-1".into())));
        let stalemate = parse_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(
            game_end(&stalemate),
            Some(("stalemate".into(), "1/2-1/2".into()))
        );
        let dead = parse_fen("8/8/4k3/8/8/3BK3/8/8 w - - 0 1").unwrap();
        assert_eq!(
            game_end(&dead),
            Some(("dead position".into(), "1/2-1/2".into()))
        );
        assert_eq!(game_end(&Chess::default()), None);
        assert!(
            parse_fen("not a fen")
                .unwrap_err()
                .to_string()
                .contains("not a FEN")
        );
    }

    #[test]
    fn profiles_are_found_or_listed() {
        assert_eq!(load_profile(Some("dgt"), None).unwrap().name, "dgt");
        let err = load_profile(Some("dgt2"), None).unwrap_err().to_string();
        assert!(
            err.contains("dgt2") && err.contains("dgt, pegged-line"),
            "{err}"
        );
        let err = load_profile(None, None).unwrap_err().to_string();
        assert!(
            err.contains("--profile") && err.contains("pegged-line"),
            "{err}"
        );
        let err = load_profile(None, Some(Path::new("/nonexistent/board.toml"))).unwrap_err();
        assert!(
            format!("{err:#}").contains("/nonexistent/board.toml"),
            "{err:#}"
        );
    }
}

/// `tactus board-test`.
#[derive(clap::Args)]
pub struct BoardTestArgs {
    #[command(flatten)]
    board: super::BoardArgs,
    /// One JSON object per line instead of plain text.
    #[arg(long)]
    json: bool,
    /// The position the board should show at the start (default: the initial position).
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// Exit after this many recognised moves.
    #[arg(long, value_name = "N")]
    moves: Option<usize>,
    /// Exit when the game ends on the board (checkmate, stalemate, dead position).
    #[arg(long)]
    until_end: bool,
}

/// `tactus board-test`: connect, print, until the moves or the game are done or Ctrl-C.
pub fn run(args: BoardTestArgs) -> Result<ExitCode> {
    let BoardTestArgs {
        board,
        json,
        fen,
        moves,
        until_end,
    } = args;
    let profile = load_profile(board.profile.as_deref(), board.profile_file.as_deref())?;
    let start = match &fen {
        Some(fen) => parse_fen(fen)?,
        None => shakmaty::Chess::default(),
    };
    let opts = Options {
        profile,
        port: board.port,
        json,
        start,
        moves,
        until_end,
    };
    let summary = match super::runtime()?.block_on(async {
        let cancel = super::cancel_on_ctrl_c();
        let input = stdin_lines();
        BoardTest::new(opts, std::io::stdout().lock(), MonotonicClock::new())
            .run(input, cancel)
            .await
    }) {
        // The reader has seen enough (`board-test --json | head -1`): the test ends there, as
        // a one-shot command's output into a closed pipe does (see `super::print`).
        Err(e) if super::is_closed_pipe(&e) => return Ok(ExitCode::SUCCESS),
        other => other?,
    };
    if !json && summary.finish == Finish::Interrupted {
        super::print(&format!(
            "Stopped after {}.\n",
            count(summary.moves.len(), "move", "moves")
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
