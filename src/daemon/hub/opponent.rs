//! The hub's side of a training game: the engine as one more source of the other side's moves,
//! beside the sighted board and the console's `move`. Its move goes in as the console's would
//! (`EnterMove`, then the clock press), so the journal, the announcement to the blind player,
//! the guidance of his board and the clocks are exactly a game's. The training requests (`hint`,
//! `eval`, `takeback`) are answered here, and refused aloud in a game against a person.
//!
//! When the engine fails the clocks stop (the game waits for its opponent: the arbiter's pause
//! for the engine, `PauseReason::Opponent`, whose words say it), both hear it once, and when a
//! new engine answers the clocks run again (his resumption says the engine is back) and the move
//! still wanted is asked of it.

use shakmaty::{Color, Move, Position};
use tokio::sync::mpsc;
use tracing::{info, warn};

use super::{Hub, Reply};
use crate::daemon::engine::{EngineEvent, EngineRequest};
use tactus_core::{
    announce::{Announcement, Audience, MoveWords},
    arbiter::Input,
    console::{Role, Training},
    engine::{
        Purpose, SearchRequest, Standing,
        review::{Judgement, Moment, moments},
    },
    rules::{game, notation},
};

/// The engine's seat at the table.
pub struct Opponent {
    tx: mpsc::Sender<EngineRequest>,
    up: bool,
    /// The engine went away once: its return is said.
    was_away: bool,
    /// The search for the engine's move: its id and the half-move it is for.
    asked: Option<(u64, usize)>,
    /// The half-move a hint or an evaluation was asked at (an answer for another is stale).
    asked_help: Option<(u64, usize)>,
    /// The clocks were stopped because the engine went away.
    paused_clocks: bool,
    /// The engine's move that came while the clocks stood, for its half-move.
    held: Option<(usize, Move)>,
    next_id: u64,
    /// The review after the game, once asked for.
    review: Option<Review>,
    /// The set-up position was asked of the board (said once).
    setting_up: bool,
}

/// The review of a finished training game: the engine's judgement of every position, then the
/// moments said one by one as he asks.
struct Review {
    judged: Vec<Option<Judgement>>,
    moments: Option<Vec<Moment>>,
    next: usize,
    /// A `review` waits for the engine to finish: the first moment is said when it does.
    waiting: bool,
}

impl Opponent {
    pub fn new(tx: mpsc::Sender<EngineRequest>) -> Opponent {
        Opponent {
            tx,
            up: false,
            was_away: false,
            asked: None,
            asked_help: None,
            paused_clocks: false,
            held: None,
            next_id: 1,
            setting_up: false,
            review: None,
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

impl Hub {
    /// The blind player who trains (a training table has one).
    pub(super) fn trainee(&self) -> Color {
        self.arbiter.config().the_blind().unwrap_or(Color::White)
    }

    /// A recovered training game stopped its clocks (6.12): nobody at home can type `resume`,
    /// so they run again once the engine answers, as after the engine's own restart.
    pub(super) fn training_recovered(&mut self) {
        let Some(op) = &mut self.opponent else { return };
        op.paused_clocks = true;
        self.note(
            "training: the clocks run again as soon as the engine answers".into(),
            None,
        );
    }

    /// A training game from a set-up position (a FEN, a game's position after move N): the
    /// board at hand most often shows a new game, so he is guided to the position square by
    /// square (the board waits, and guidance describes what differs) before any clock runs; the
    /// consoles are told so once, and when the board shows it. `ready`: every board shows the
    /// position.
    pub(super) fn note_set_up(&mut self, ready: bool) {
        let game = self.arbiter.game();
        let set_up = game.ply() == 0 && game.start_position() != &shakmaty::Chess::default();
        let Some(op) = &mut self.opponent else {
            return;
        };
        if ready || !set_up {
            if std::mem::take(&mut op.setting_up) {
                self.note("the tactile board shows the starting position".into(), None);
            }
        } else if !std::mem::replace(&mut op.setting_up, true) {
            self.note(
                "the game starts from a set-up position: the tactile board is guided to it, and \
                 the clocks start once it shows it"
                    .into(),
                None,
            );
        }
    }

    /// The search request for the game's position after its first `plies` half-moves.
    fn search_request(&self, id: u64, purpose: Purpose, plies: usize) -> SearchRequest {
        let game = self.arbiter.game();
        SearchRequest {
            id,
            purpose,
            start: game.start_position().clone(),
            moves: game.moves().iter().take(plies).map(|r| r.mv).collect(),
        }
    }

    /// After every input: if it is the engine's move, ask for it (once per half-move); a move
    /// that came while the clocks stood is played once they run.
    pub(super) fn engine_turn(&mut self) {
        // After every input of every game: nothing to look at without an engine.
        if self.opponent.is_none() {
            return;
        }
        let game = self.arbiter.game();
        let engine_side = !self.trainee();
        let ply = game.ply();
        let its_move = self.arbiter.started()
            && !game.is_over()
            && game.adjournment().is_none()
            && game.to_move() == engine_side;
        let paused = self.clocks_paused();
        let Some(op) = &mut self.opponent else { return };
        if !its_move {
            op.held = None;
            return;
        }
        if let Some((at, m)) = op.held
            && !paused
        {
            op.held = None;
            if at == ply {
                self.play_engine_move(m);
            }
            return;
        }
        if !op.up || op.asked.is_some_and(|(_, at)| at == ply) {
            return;
        }
        let id = op.id();
        op.asked = Some((id, ply));
        let request = self.search_request(id, Purpose::Play, ply);
        self.send_engine(EngineRequest::Search(request));
    }

    fn send_engine(&mut self, request: EngineRequest) {
        let Some(op) = &self.opponent else { return };
        if let Err(e) = op.tx.try_send(request) {
            // The task is gone or drowning: the game must not wait in silence.
            warn!("the engine task cannot take a request: {e}");
            self.note(
                format!("the training opponent cannot be asked ({e}); the arbiter may `pause`"),
                None,
            );
        }
    }

    /// The engine's move: entered and its clock pressed, as the console's `move` and `press`.
    fn play_engine_move(&mut self, m: Move) {
        let now = self.clock.now();
        let san = notation::san(self.arbiter.game().position(), m);
        info!(%san, "the engine's move");
        let entered = self.accept(Input::EnterMove(san.clone()), now, None);
        if !entered.refused.is_empty() {
            self.note(
                format!(
                    "the engine's move {san} was not taken: {}",
                    entered.refused.join("; ")
                ),
                None,
            );
            return;
        }
        let pressed = self.accept(Input::ClockPress, now, None);
        if !pressed.refused.is_empty() {
            self.note(
                format!(
                    "the engine's move {san} did not count: {}",
                    pressed.refused.join("; ")
                ),
                None,
            );
        }
    }

    pub(super) fn engine_event(&mut self, event: EngineEvent) {
        let now = self.clock.now();
        match event {
            EngineEvent::Up { name } => {
                let running = self.clocks_paused();
                let Some(op) = &mut self.opponent else { return };
                op.up = true;
                let resume = std::mem::take(&mut op.paused_clocks) && running;
                let back = std::mem::take(&mut op.was_away);
                self.note(format!("training opponent ready: {name}"), None);
                if resume {
                    // The arbiter's resumption says the engine's return itself, before "clocks
                    // running again"; a game recovered with its clocks stopped only runs again.
                    let reason = match back {
                        true => game::PauseReason::Opponent,
                        false => game::PauseReason::Arbiter,
                    };
                    self.accept(Input::Rules(game::Input::Resume(reason)), now, None);
                } else if back {
                    self.say_own(
                        Audience::Player(self.trainee()),
                        Announcement::OpponentBack,
                        true,
                    );
                }
            }
            EngineEvent::Down { reason, restart_in } => {
                let running = self.clocks_running();
                let Some(op) = &mut self.opponent else { return };
                op.up = false;
                op.was_away = true;
                // The task asks the next engine what this one left unanswered.
                let pause = running && !op.paused_clocks;
                if pause {
                    op.paused_clocks = true;
                }
                let next = match restart_in {
                    Some(after) => format!("it is started again in {} s", after.as_secs().max(1)),
                    None => "change [opponent] in the configuration and start tactus train \
                             again (the game resumes where it stands)"
                        .to_string(),
                };
                self.note(
                    format!(
                        "training opponent stopped: {reason}; {next}{}",
                        if pause {
                            "; the clocks stand meanwhile"
                        } else {
                            ""
                        }
                    ),
                    None,
                );
                if pause {
                    // The arbiter's pause for the engine says that it is gone, in the words that
                    // stop the clocks ("Gegner antwortet nicht, Uhren angehalten"): once, not
                    // beside his ordinary "Uhren angehalten".
                    self.accept(
                        Input::Rules(game::Input::Pause(game::PauseReason::Opponent)),
                        now,
                        None,
                    );
                } else {
                    self.say_own(
                        Audience::Player(self.trainee()),
                        Announcement::OpponentAway,
                        true,
                    );
                }
            }
            EngineEvent::Answer {
                id,
                purpose,
                best,
                score,
            } => self.engine_answer(id, purpose, best, score),
        }
    }

    fn engine_answer(
        &mut self,
        id: u64,
        purpose: Purpose,
        best: Option<Move>,
        score: Option<tactus_core::engine::Score>,
    ) {
        let ply = self.arbiter.game().ply();
        let paused = self.clocks_paused();
        let Some(op) = &mut self.opponent else { return };
        match purpose {
            Purpose::Play => {
                if op.asked != Some((id, ply)) {
                    return;
                }
                let Some(m) = best else {
                    // No move where the game goes on cannot come from a sound conversation.
                    return;
                };
                if paused {
                    op.held = Some((ply, m));
                    return;
                }
                self.play_engine_move(m);
            }
            Purpose::Review(at) => {
                if let Some(review) = &mut op.review
                    && let Some(slot) = review.judged.get_mut(at)
                {
                    *slot = Some(Judgement { best, score });
                }
                self.review_progress();
            }
            Purpose::Hint | Purpose::Eval => {
                if op.asked_help.take() != Some((id, ply)) {
                    return;
                }
                let position = self.arbiter.game().position().clone();
                let announcement = match (purpose, best, score) {
                    (Purpose::Hint, Some(m), _) => Announcement::Hint(MoveWords::new(&position, m)),
                    (Purpose::Eval, _, Some(score)) => Announcement::Standing(Standing::of(score)),
                    _ => return,
                };
                self.say_own(Audience::Player(self.trainee()), announcement, true);
            }
        }
    }

    /// Once every position is judged: the moments; a `review` that waited hears the first.
    fn review_progress(&mut self) {
        let game = self.arbiter.game();
        let blind = self.trainee();
        let start = game.start_position().clone();
        let moves: Vec<Move> = game.moves().iter().map(|r| r.mv).collect();
        let Some(review) = self.opponent.as_mut().and_then(|op| op.review.as_mut()) else {
            return;
        };
        if review.moments.is_some() || review.judged.iter().any(Option::is_none) {
            return;
        }
        let judged: Vec<Judgement> = review
            .judged
            .iter()
            .map(|j| j.unwrap_or_default())
            .collect();
        let found = moments(&start, &moves, &judged, blind);
        self.note(
            format!(
                "review: {} of his moves to go back to (material lost or a mate missed)",
                found.len()
            ),
            None,
        );
        let Some(review) = self.opponent.as_mut().and_then(|op| op.review.as_mut()) else {
            return;
        };
        review.moments = Some(found);
        if std::mem::take(&mut review.waiting) {
            self.review_next();
        }
    }

    /// Say the next moment of the review (after the last, its end; then it starts again).
    fn review_next(&mut self) -> String {
        let game = self.arbiter.game();
        let position_at = |ply: usize| {
            let mut pos = game.start_position().clone();
            for r in &game.moves()[..ply] {
                pos.play_unchecked(r.mv);
            }
            pos
        };
        let Some(review) = self.opponent.as_mut().and_then(|op| op.review.as_mut()) else {
            return String::new();
        };
        let Some(found) = &review.moments else {
            return String::new();
        };
        let announcement = match found.get(review.next) {
            Some(m) => {
                review.next += 1;
                let before = &position_at(m.ply);
                Announcement::ReviewMoment {
                    number: m.number,
                    played: MoveWords::new(before, m.played),
                    better: MoveWords::new(before, m.better),
                    missed_mate: m.missed_mate,
                }
            }
            None => {
                review.next = 0;
                Announcement::ReviewEnd
            }
        };
        // Printed in the words he hears (his Braille display reads what his ear hears).
        let him = Audience::Player(self.trainee());
        let text = self.wording_for(him).text(&announcement);
        self.say_own(him, announcement, true);
        text
    }

    /// `hint`, `eval`, `takeback`, `review`, `break`: a training game's requests.
    pub(super) fn training(&mut self, conn: u64, role: Role, request: Training) -> Reply {
        if self.opponent.is_none() {
            // Never a silent refusal: his keypad hears it too.
            if role == Role::Player {
                self.say_own(
                    Audience::Player(self.trainee()),
                    Announcement::TrainingOnly,
                    false,
                );
            }
            return not_training();
        }
        match request {
            Training::Review => self.review(),
            Training::Hint | Training::Eval => self.ask_help(request),
            Training::Break => self.take_break(conn),
            Training::TakeBack => self.take_back(conn),
        }
    }

    /// `review`: after the game, the engine goes through every position of it; then each
    /// `review` says the next moment.
    fn review(&mut self) -> Reply {
        let game = self.arbiter.game();
        let (ply, over) = (game.ply(), game.is_over());
        let Some(op) = &mut self.opponent else {
            return not_training();
        };
        if !over {
            return Reply::error(
                "review: after the game (the engine then goes through every move of it)",
            );
        }
        match &mut op.review {
            Some(review) if review.moments.is_some() => {
                let text = self.review_next();
                Reply::ok(vec![text])
            }
            Some(review) => {
                review.waiting = true;
                Reply::ok(vec![
                    "the engine is still going through the game; the first moment is said when \
                     it is done"
                        .into(),
                ])
            }
            None => {
                op.review = Some(Review {
                    judged: vec![None; ply + 1],
                    moments: None,
                    next: 0,
                    waiting: true,
                });
                for at in 0..=ply {
                    let request = self.search_request(0, Purpose::Review(at), at);
                    self.send_engine(EngineRequest::Search(request));
                }
                Reply::ok(vec![format!(
                    "the engine goes through the game ({} positions); the first moment is said \
                     when it is done",
                    ply + 1
                )])
            }
        }
    }

    /// `hint` (his move only) or `eval`: asked of the engine, said when it answers.
    fn ask_help(&mut self, request: Training) -> Reply {
        let game = self.arbiter.game();
        let blind = self.trainee();
        let (ply, over, to_move) = (game.ply(), game.is_over(), game.to_move());
        let Some(op) = &mut self.opponent else {
            return not_training();
        };
        if over {
            return Reply::error("the game is over");
        }
        if request == Training::Hint && to_move != blind {
            return Reply::error("hint: it is the engine's move");
        }
        if !op.up {
            return Reply::error("the engine is not running; it is being started again");
        }
        let id = op.id();
        op.asked_help = Some((id, ply));
        let purpose = if request == Training::Hint {
            Purpose::Hint
        } else {
            Purpose::Eval
        };
        let search = self.search_request(id, purpose, ply);
        self.send_engine(EngineRequest::Search(search));
        Reply::ok(vec![
            "asked the engine; its answer is said when it comes".to_string(),
        ])
    }

    /// `break`: the clocks stop, or run again (at home nobody else is there to `pause`).
    fn take_break(&mut self, conn: u64) -> Reply {
        let now = self.clock.now();
        let over = self.arbiter.game().is_over();
        let Some(op) = &self.opponent else {
            return not_training();
        };
        if over {
            return Reply::error("the game is over");
        }
        if !op.up {
            return Reply::error(
                "the engine is not running: the clocks stay stopped until it is back",
            );
        }
        let input = if self.clocks_paused() {
            game::Input::Resume(game::PauseReason::Arbiter)
        } else {
            game::Input::Pause(game::PauseReason::Arbiter)
        };
        self.accept(Input::Rules(input), now, Some(conn))
            .into_reply()
    }

    /// `takeback`: his last move and the engine's reply; or, while the engine thinks, his move.
    /// The clocks are as they were after the half-move the game goes back to.
    fn take_back(&mut self, conn: u64) -> Reply {
        let now = self.clock.now();
        let game = self.arbiter.game();
        let blind = self.trainee();
        let (ply, over, to_move) = (game.ply(), game.is_over(), game.to_move());
        let back = if to_move == blind { 2 } else { 1 };
        let first_blind = usize::from(game.start_position().turn() != blind);
        let Some(op) = &mut self.opponent else {
            return not_training();
        };
        if over || ply < back + first_blind {
            return Reply::error("takeback: no move of his to take back");
        }
        op.asked = None;
        op.held = None;
        self.send_engine(EngineRequest::Cancel(Purpose::Play));
        let to_ply = ply - back;
        let mut outcome = self.accept(
            Input::Rules(game::Input::Retract { to_ply }),
            now,
            Some(conn),
        );
        if outcome.refused.is_empty() {
            // A training game keeps its clocks as they were after that half-move: nothing to
            // confirm at home, so the proposal's note (for an arbiter) is not shown.
            outcome.notes.retain(|n| !n.starts_with("proposed clocks:"));
            let confirmed = self.accept(Input::ConfirmClocks, now, Some(conn));
            outcome.notes.extend(confirmed.notes);
            if self.clocks_paused() {
                let resumed = self.accept(
                    Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
                    now,
                    Some(conn),
                );
                outcome.notes.extend(resumed.notes);
            }
        }
        outcome.into_reply()
    }
}

/// A training request in a game against a person.
fn not_training() -> Reply {
    Reply::error(
        "only in training: this game is against a person (hint, eval and takeback are for a game \
         against an engine, `tactus train`)",
    )
}
