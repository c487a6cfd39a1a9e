//! The training opponent: a UCI chess engine, as a conversation without I/O. The shell
//! (`daemon::engine`) owns the process and its pipes; this module decides what to write and
//! what the lines read back mean, with the deadlines a silent engine is judged by
//! (`next_deadline`/`tick`, as the board codecs). Positions and moves are checked here: a move
//! the engine plays that is not legal in the position it was given is a failure of the engine,
//! never a move of the game.
//!
//! Also here: the evaluation in words a player hears (`Standing`), from an engine's score.

pub mod review;
pub mod uci;

use shakmaty::{Chess, EnPassantMode, Move, Position, fen::Fen, uci::UciMove};

use crate::rules::Millis;
pub use uci::{Command, Limit, Message, Score};

/// The move a UCI text names in `pos`, if it is legal there.
fn legal_move(pos: &Chess, text: &str) -> Option<Move> {
    text.parse::<UciMove>().ok()?.to_move(pos).ok()
}

/// How strong the engine plays and how long it thinks: `[opponent]` in the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strength {
    /// `UCI_LimitStrength` with `UCI_Elo`.
    pub elo: Option<u32>,
    /// `Skill Level` (Stockfish: 0 to 20).
    pub skill: Option<u32>,
    /// How long each search may run.
    pub limit: Limit,
}

impl Default for Strength {
    fn default() -> Self {
        Strength {
            elo: None,
            skill: Some(5),
            limit: Limit::MoveTime(2000),
        }
    }
}

/// How long an engine may stay silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// From `uci` to `uciok`, and from `isready` to `readyok`.
    pub handshake_ms: Millis,
    /// Beyond the search's own limit, for its `bestmove` (a node or depth limit has no time
    /// of its own: this is its whole allowance).
    pub answer_ms: Millis,
}

impl Default for Patience {
    fn default() -> Self {
        Patience {
            handshake_ms: 10_000,
            answer_ms: 30_000,
        }
    }
}

/// How deep the engine looks for a hint, an evaluation or the review: its real best line, not
/// the weakened move its skill level would play (Stockfish 15 needs about 0.1 s for this).
pub const ANALYSIS_LIMIT: Limit = Limit::Depth(12);

/// Why a search was asked for: the opponent's move, or a training request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The engine's move in the game.
    Play,
    /// The best move for the blind player (`hint`).
    Hint,
    /// The evaluation of the position (`eval`).
    Eval,
    /// The engine's opinion of a position of the finished game (`review`), by its ply.
    Review(usize),
}

/// What the table asks of the engine (the shell's engine task carries it out).
#[derive(Debug, Clone, PartialEq)]
pub enum EngineRequest {
    Search(SearchRequest),
    /// Forget the searches of this purpose (the game moved on).
    Cancel(Purpose),
}

/// What the engine reports to the table (the shell's engine task, through the hub).
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// An engine answers (first start or restart).
    Up { name: String },
    Answer {
        id: u64,
        purpose: Purpose,
        best: Option<shakmaty::Move>,
        score: Option<Score>,
    },
    /// The engine failed; another is started after `restart_in`, or never when the settings
    /// themselves are what fails (`None`: the configuration must change).
    Down {
        reason: String,
        restart_in: Option<std::time::Duration>,
    },
}

/// A position to search: the game's start and the moves since.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// Chosen by the caller; the answer carries it back.
    pub id: u64,
    pub purpose: Purpose,
    pub start: Chess,
    pub moves: Vec<Move>,
}

impl SearchRequest {
    fn position(&self) -> Chess {
        let mut pos = self.start.clone();
        for &m in &self.moves {
            pos.play_unchecked(m);
        }
        pos
    }
}

/// What the conversation tells its owner.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The handshake is done: the engine takes searches.
    Ready { name: String },
    /// A search's answer: the best move (`None` when the position has none: mate or
    /// stalemate) and the last score the engine gave, from White's point of view.
    Answer {
        id: u64,
        purpose: Purpose,
        best: Option<Move>,
        score: Option<Score>,
    },
    /// The engine cannot be used as it is: it must be restarted (or replaced).
    Failed(Failure),
}

/// What went wrong with an engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("the engine did not answer `{sent}` within {ms} ms")]
    Silent { sent: &'static str, ms: Millis },
    #[error("the engine played {uci}, which is not a legal move in {fen}")]
    IllegalMove { uci: String, fen: String },
    #[error("the engine gave no move in {fen}, where there are legal moves")]
    NoMove { fen: String },
    #[error(
        "the engine has no option `{option}` (needed for `{key}` in [opponent]); remove the key \
         or use an engine that has it"
    )]
    MissingOption { option: String, key: &'static str },
    #[error("[opponent] {key} = {value}: the engine takes {min} to {max}")]
    OutOfRange {
        key: &'static str,
        value: u32,
        min: i64,
        max: i64,
    },
}

impl Failure {
    /// A failure that the same engine with the same settings repeats at every start: only a
    /// change of `[opponent]` mends it, so the engine is not started again and again.
    pub fn is_settings(&self) -> bool {
        matches!(
            self,
            Failure::MissingOption { .. } | Failure::OutOfRange { .. }
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// `uci` sent, waiting for `uciok`.
    Handshake,
    /// Options set, `isready` sent, waiting for `readyok`.
    Readying,
    Idle,
    /// A search runs.
    Searching,
    /// Given up: nothing more is read.
    Failed,
}

/// A principal line's score and its first move (as the engine wrote it).
type LineScore = (Score, Option<String>);

/// One engine's conversation, from `uci` to its last `bestmove`.
#[derive(Debug)]
pub struct Conversation {
    strength: Strength,
    patience: Patience,
    state: State,
    /// Until when the engine may stay silent in the current state.
    deadline: Option<Millis>,
    name: String,
    options: Vec<uci::EngineOption>,
    /// The search running, and the last score it gave with the first move of its line.
    current: Option<(SearchRequest, Option<LineScore>)>,
    /// Searches asked for while another ran.
    queued: std::collections::VecDeque<SearchRequest>,
}

impl Conversation {
    /// Start talking to a fresh engine process: the commands to write first.
    pub fn start(
        strength: Strength,
        patience: Patience,
        now: Millis,
    ) -> (Conversation, Vec<Command>) {
        let c = Conversation {
            strength,
            patience,
            state: State::Handshake,
            deadline: Some(now + patience.handshake_ms),
            name: String::new(),
            options: Vec::new(),
            current: None,
            queued: Default::default(),
        };
        (c, vec![Command::Uci])
    }

    /// The engine's name as it gave it (`id name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_ready(&self) -> bool {
        matches!(self.state, State::Idle | State::Searching)
    }

    pub fn is_failed(&self) -> bool {
        self.state == State::Failed
    }

    /// Whether a search of this purpose is running or waiting.
    pub fn has(&self, purpose: Purpose) -> bool {
        self.current
            .as_ref()
            .is_some_and(|(r, _)| r.purpose == purpose)
            || self.queued.iter().any(|r| r.purpose == purpose)
    }

    /// When the engine must have said something by (the shell calls [`Self::tick`] then).
    pub fn next_deadline(&self) -> Option<Millis> {
        self.deadline
    }

    /// Time passes: an engine silent past its deadline has failed.
    pub fn tick(&mut self, now: Millis) -> Vec<Event> {
        match self.deadline {
            Some(d) if now >= d => {
                let (sent, ms) = match self.state {
                    State::Handshake => ("uci", self.patience.handshake_ms),
                    State::Readying => ("isready", self.patience.handshake_ms),
                    _ => ("go", self.search_allowance()),
                };
                self.fail(Failure::Silent { sent, ms })
            }
            _ => Vec::new(),
        }
    }

    /// Ask for a search. It starts now if the engine is idle, else after the running one.
    pub fn search(&mut self, request: SearchRequest, now: Millis) -> Vec<Command> {
        self.queued.push_back(request);
        self.next_search(now)
    }

    /// Forget searches not yet answered (the game moved on: a takeback, a restart). A running
    /// search is stopped; its answer is dropped when it comes.
    pub fn cancel(&mut self, purpose: Purpose) -> Vec<Command> {
        self.queued.retain(|r| r.purpose != purpose);
        match &mut self.current {
            Some((r, _)) if r.purpose == purpose => {
                // Its answer must still be read (UCI answers every `go`), but goes nowhere.
                r.id = u64::MAX;
                vec![Command::Stop]
            }
            _ => Vec::new(),
        }
    }

    /// One line the engine wrote.
    pub fn receive(&mut self, line: &str, now: Millis) -> (Vec<Command>, Vec<Event>) {
        match (uci::parse_line(line), &self.state) {
            (_, State::Failed) => (Vec::new(), Vec::new()),
            (Message::Id { key, value }, _) if key == "name" => {
                self.name = value;
                (Vec::new(), Vec::new())
            }
            (Message::Option(o), State::Handshake) => {
                self.options.push(o);
                (Vec::new(), Vec::new())
            }
            (Message::UciOk, State::Handshake) => match self.strength_options() {
                Ok(mut commands) => {
                    commands.push(Command::IsReady);
                    self.state = State::Readying;
                    self.deadline = Some(now + self.patience.handshake_ms);
                    (commands, Vec::new())
                }
                Err(f) => (Vec::new(), self.fail(f)),
            },
            (Message::ReadyOk, State::Readying) => {
                self.state = State::Idle;
                self.deadline = None;
                let ready = Event::Ready {
                    name: self.name.clone(),
                };
                let mut commands = vec![Command::NewGame];
                commands.extend(self.next_search(now));
                (commands, vec![ready])
            }
            (Message::Info(info), State::Searching) => {
                // The principal line's score; a bound is not the value, and other lines of a
                // multi-PV search are not the best move's.
                if info.bound.is_none()
                    && info.multipv.unwrap_or(1) == 1
                    && let (Some(score), Some((_, last))) = (info.score, self.current.as_mut())
                {
                    *last = Some((score, info.pv.first().cloned()));
                }
                (Vec::new(), Vec::new())
            }
            (Message::BestMove { best, .. }, State::Searching) => {
                let Some((request, last)) = self.current.take() else {
                    return (Vec::new(), Vec::new());
                };
                let (score, line_first) = match last {
                    Some((score, first)) => (Some(score), first),
                    None => (None, None),
                };
                self.state = State::Idle;
                self.deadline = None;
                let pos = request.position();
                let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                let best = match best {
                    Some(text) => match legal_move(&pos, &text) {
                        Some(m) => Some(m),
                        None => {
                            // Still wanted from the next engine.
                            self.queued.push_front(request);
                            return (
                                Vec::new(),
                                self.fail(Failure::IllegalMove { uci: text, fen }),
                            );
                        }
                    },
                    None if !pos.legal_moves().is_empty() => {
                        self.queued.push_front(request);
                        return (Vec::new(), self.fail(Failure::NoMove { fen }));
                    }
                    None => None,
                };
                // Advice is the engine's real best line; only its own move in the game is the one
                // its skill level chose.
                let best = match (request.purpose, &line_first) {
                    (Purpose::Play, _) | (_, None) => best,
                    (_, Some(text)) => legal_move(&pos, text).or(best),
                };
                // The engine scores for the side to move; a player hears it for White.
                let score = score.map(|s| match (pos.turn(), s) {
                    (shakmaty::Color::White, s) => s,
                    (shakmaty::Color::Black, Score::Cp(v)) => Score::Cp(-v),
                    (shakmaty::Color::Black, Score::Mate(v)) => Score::Mate(-v),
                });
                let mut events = Vec::new();
                if request.id != u64::MAX {
                    events.push(Event::Answer {
                        id: request.id,
                        purpose: request.purpose,
                        best,
                        score,
                    });
                }
                (self.next_search(now), events)
            }
            _ => (Vec::new(), Vec::new()),
        }
    }

    fn fail(&mut self, failure: Failure) -> Vec<Event> {
        self.state = State::Failed;
        self.deadline = None;
        vec![Event::Failed(failure)]
    }

    /// The searches still wanted, for a new engine after this one failed.
    pub fn unanswered(&mut self) -> Vec<SearchRequest> {
        let mut all: Vec<SearchRequest> = self
            .current
            .take()
            .map(|(r, _)| r)
            .filter(|r| r.id != u64::MAX)
            .into_iter()
            .collect();
        all.extend(self.queued.drain(..));
        all
    }

    fn search_allowance(&self) -> Millis {
        let own = match self.strength.limit {
            Limit::MoveTime(ms) => ms,
            Limit::Nodes(_) | Limit::Depth(_) => 0,
        };
        own + self.patience.answer_ms
    }

    fn next_search(&mut self, now: Millis) -> Vec<Command> {
        if self.state != State::Idle {
            return Vec::new();
        }
        let Some(request) = self.queued.pop_front() else {
            return Vec::new();
        };
        let fen = if request.start == Chess::default() {
            None
        } else {
            Some(Fen::from_position(&request.start, EnPassantMode::Legal).to_string())
        };
        let mut pos = request.start.clone();
        let moves = request
            .moves
            .iter()
            .map(|&m| {
                let text = m.to_uci(pos.castles().mode()).to_string();
                pos.play_unchecked(m);
                text
            })
            .collect();
        let limit = match request.purpose {
            Purpose::Play => self.strength.limit,
            Purpose::Hint | Purpose::Eval | Purpose::Review(_) => ANALYSIS_LIMIT,
        };
        self.state = State::Searching;
        self.deadline = Some(now + self.search_allowance());
        self.current = Some((request, None));
        vec![Command::Position { fen, moves }, Command::Go(limit)]
    }

    /// The options that set the strength, checked against what the engine offered.
    fn strength_options(&self) -> Result<Vec<Command>, Failure> {
        let mut commands = Vec::new();
        let mut set =
            |option: &str, key: &'static str, value: Option<u32>| -> Result<(), Failure> {
                let Some(value) = value else { return Ok(()) };
                let o = self
                    .options
                    .iter()
                    .find(|o| o.name.eq_ignore_ascii_case(option))
                    .ok_or_else(|| Failure::MissingOption {
                        option: option.to_string(),
                        key,
                    })?;
                if let (Some(min), Some(max)) = (o.min, o.max)
                    && !(min..=max).contains(&i64::from(value))
                {
                    return Err(Failure::OutOfRange {
                        key,
                        value,
                        min,
                        max,
                    });
                }
                if option == "UCI_Elo" {
                    commands.push(Command::SetOption {
                        name: "UCI_LimitStrength".into(),
                        value: "true".into(),
                    });
                }
                commands.push(Command::SetOption {
                    name: o.name.clone(),
                    value: value.to_string(),
                });
                Ok(())
            };
        set("Skill Level", "skill", self.strength.skill)?;
        set("UCI_Elo", "elo", self.strength.elo)?;
        Ok(commands)
    }
}

/// How the position stands, in the words a player hears (`eval`), from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Standing {
    Equal,
    SlightlyBetter(shakmaty::Color),
    ClearlyBetter(shakmaty::Color),
    Winning(shakmaty::Color),
    /// This side mates in this many moves (the engine's count).
    MatesIn(shakmaty::Color, u32),
}

impl Standing {
    /// The words for a score from White's point of view. The bands are the ones chess
    /// literature uses for its signs (+=, +-, ...): under half a pawn is equal, under one and a
    /// half a small edge, under three a clear one, beyond that winning.
    pub fn of(score: Score) -> Standing {
        use shakmaty::Color::{Black, White};
        match score {
            Score::Mate(n) if n > 0 => Standing::MatesIn(White, n as u32),
            Score::Mate(n) if n < 0 => Standing::MatesIn(Black, n.unsigned_abs()),
            // Mate now: the side to move is mated; the answer's sign is already White's.
            Score::Mate(_) => Standing::Equal,
            Score::Cp(cp) => {
                let side = if cp >= 0 { White } else { Black };
                match cp.unsigned_abs() {
                    0..50 => Standing::Equal,
                    50..150 => Standing::SlightlyBetter(side),
                    150..300 => Standing::ClearlyBetter(side),
                    _ => Standing::Winning(side),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
