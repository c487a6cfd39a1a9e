//! The engine's seat in a training game ([`Opponent`]): the engine as one more source of the
//! other side's moves, beside the sighted board and the console's `move`. Its move goes in as
//! the console's would (`EnterMove`, then the clock press), so the announcement to the blind
//! player, the guidance of his board and the clocks are exactly a game's. The training requests
//! (`hint`, `eval`, `takeback`, `review`, `break`) are answered here, and refused aloud in a game
//! against a person.
//!
//! When the engine fails the clocks stop (the game waits for its opponent: the arbiter's pause
//! for the engine, `PauseReason::Opponent`, whose words say it), both hear it once, and when a
//! new engine answers the clocks run again (his resumption says the engine is back) and the move
//! still wanted is asked of it.

use shakmaty::{Color, Move, Position};

use super::{Table, TableEffect};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    arbiter::Input,
    console::{Role, Training, wire::Reply},
    engine::{
        EngineEvent, EngineRequest, Purpose, Score, SearchRequest, Standing,
        review::{Judgement, Moment, moments},
    },
    rules::{Millis, game, notation},
};

/// The engine's seat at the table.
#[derive(Debug, Clone, Default)]
pub(super) struct Opponent {
    up: bool,
    /// The engine went away once: its return is said.
    was_away: bool,
    /// The search for the engine's move: its id and the half-move it is for.
    asked: Option<(u64, usize)>,
    /// The half-move a hint or an evaluation was asked at (an answer for another is stale).
    asked_help: Option<(u64, usize)>,
    /// The clocks were stopped because the engine went away (or a restart stopped them).
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
#[derive(Debug, Clone)]
struct Review {
    judged: Vec<Option<Judgement>>,
    moments: Option<Vec<Moment>>,
    next: usize,
    /// A `review` waits for the engine to finish: the first moment is said when it does.
    waiting: bool,
}

impl Opponent {
    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

impl Table {
    /// The blind player who trains (a training table has one).
    fn trainee(&self) -> Color {
        self.arbiter.config().the_blind().unwrap_or(Color::White)
    }

    /// A recovered training game stopped its clocks (6.12): nobody at home can type `resume`,
    /// so they run again once the engine answers, as after the engine's own restart.
    pub(super) fn training_recovered(&mut self, out: &mut Vec<TableEffect>) {
        let Some(op) = &mut self.opponent else { return };
        op.paused_clocks = true;
        self.note(
            "training: the clocks run again as soon as the engine answers".into(),
            None,
            out,
        );
    }

    /// A training game from a set-up position (a FEN, a game's position after move N): the
    /// board at hand most often shows a new game, so he is guided to the position square by
    /// square (the board waits, and guidance describes what differs) before any clock runs; the
    /// consoles are told so once, and when the board shows it. `ready`: every board shows the
    /// position.
    pub(super) fn note_set_up(&mut self, ready: bool, out: &mut Vec<TableEffect>) {
        let game = self.arbiter.game();
        let set_up = game.ply() == 0 && game.start_position() != &shakmaty::Chess::default();
        let Some(op) = &mut self.opponent else {
            return;
        };
        if ready || !set_up {
            if std::mem::take(&mut op.setting_up) {
                self.note(
                    "the tactile board shows the starting position".into(),
                    None,
                    out,
                );
            }
        } else if !std::mem::replace(&mut op.setting_up, true) {
            self.note(
                "the game starts from a set-up position: the tactile board is guided to it, and \
                 the clocks start once it shows it"
                    .into(),
                None,
                out,
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
    pub(super) fn engine_turn(&mut self, now: Millis, out: &mut Vec<TableEffect>) {
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
                self.play_engine_move(m, now, out);
            }
            return;
        }
        if !op.up || op.asked.is_some_and(|(_, at)| at == ply) {
            return;
        }
        let id = op.id();
        op.asked = Some((id, ply));
        let request = self.search_request(id, Purpose::Play, ply);
        out.push(TableEffect::Engine(EngineRequest::Search(request)));
    }

    /// The engine's move: entered and its clock pressed, as the console's `move` and `press`.
    fn play_engine_move(&mut self, m: Move, now: Millis, out: &mut Vec<TableEffect>) {
        let san = notation::san(self.arbiter.game().position(), m);
        tracing::info!(%san, "the engine's move");
        let entered = self.apply(Input::EnterMove(san.clone()), now, None, out);
        if !entered.refused.is_empty() {
            self.note(
                format!(
                    "the engine's move {san} was not taken: {}",
                    entered.refused.join("; ")
                ),
                None,
                out,
            );
            return;
        }
        let pressed = self.apply(Input::ClockPress, now, None, out);
        if !pressed.refused.is_empty() {
            self.note(
                format!(
                    "the engine's move {san} did not count: {}",
                    pressed.refused.join("; ")
                ),
                None,
                out,
            );
        }
    }

    /// The training engine's news.
    pub(super) fn engine_event(
        &mut self,
        event: EngineEvent,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) {
        match event {
            EngineEvent::Up { name } => {
                let paused = self.clocks_paused();
                let Some(op) = &mut self.opponent else { return };
                op.up = true;
                let resume = std::mem::take(&mut op.paused_clocks) && paused;
                let back = std::mem::take(&mut op.was_away);
                self.note(format!("training opponent ready: {name}"), None, out);
                if resume {
                    // The arbiter's resumption says the engine's return itself, before "clocks
                    // running again"; a game recovered with its clocks stopped only runs again.
                    let reason = match back {
                        true => game::PauseReason::Opponent,
                        false => game::PauseReason::Arbiter,
                    };
                    self.apply(Input::Rules(game::Input::Resume(reason)), now, None, out);
                } else if back {
                    let trainee = Audience::Player(self.trainee());
                    self.say_own(trainee, Announcement::OpponentBack, true, out);
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
                    out,
                );
                if pause {
                    // The arbiter's pause for the engine says that it is gone, in the words that
                    // stop the clocks ("Gegner antwortet nicht, Uhren angehalten"): once, not
                    // beside his ordinary "Uhren angehalten".
                    let pause = game::Input::Pause(game::PauseReason::Opponent);
                    self.apply(Input::Rules(pause), now, None, out);
                } else {
                    let trainee = Audience::Player(self.trainee());
                    self.say_own(trainee, Announcement::OpponentAway, true, out);
                }
            }
            EngineEvent::Answer {
                id,
                purpose,
                best,
                score,
            } => self.engine_answer(id, purpose, best, score, now, out),
        }
    }

    fn engine_answer(
        &mut self,
        id: u64,
        purpose: Purpose,
        best: Option<Move>,
        score: Option<Score>,
        now: Millis,
        out: &mut Vec<TableEffect>,
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
                self.play_engine_move(m, now, out);
            }
            Purpose::Review(at) => {
                if let Some(review) = &mut op.review
                    && let Some(slot) = review.judged.get_mut(at)
                {
                    *slot = Some(Judgement { best, score });
                }
                self.review_progress(out);
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
                let trainee = Audience::Player(self.trainee());
                self.say_own(trainee, announcement, true, out);
            }
        }
    }

    /// Once every position is judged: the moments; a `review` that waited hears the first.
    fn review_progress(&mut self, out: &mut Vec<TableEffect>) {
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
            out,
        );
        let Some(review) = self.opponent.as_mut().and_then(|op| op.review.as_mut()) else {
            return;
        };
        review.moments = Some(found);
        if std::mem::take(&mut review.waiting) {
            // No reply waits for it: his keypad sees it as said.
            self.review_next(true, out);
        }
    }

    /// Say the next moment of the review (after the last, its end; then it starts again).
    /// `shown`: also on the consoles as said (none of them asked); a reply prints it once.
    fn review_next(&mut self, shown: bool, out: &mut Vec<TableEffect>) -> String {
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
        self.say_own(him, announcement, shown, out);
        text
    }

    /// `hint`, `eval`, `takeback`, `review`, `break`: a training game's requests.
    pub(super) fn training(
        &mut self,
        conn: u64,
        role: Role,
        request: Training,
        now: Millis,
        out: &mut Vec<TableEffect>,
    ) -> Reply {
        if self.opponent.is_none() {
            // Never a silent refusal: his keypad hears it too.
            if role == Role::Player {
                let trainee = Audience::Player(self.trainee());
                self.say_own(trainee, Announcement::TrainingOnly, false, out);
            }
            return not_training();
        }
        match request {
            Training::Review => self.review(out),
            Training::Hint | Training::Eval => self.ask_help(request, out),
            Training::Break => self.take_break(conn, now, out),
            Training::TakeBack => self.take_back(conn, now, out),
        }
    }

    /// `review`: after the game, the engine goes through every position of it; then each
    /// `review` says the next moment.
    fn review(&mut self, out: &mut Vec<TableEffect>) -> Reply {
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
                let text = self.review_next(false, out);
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
                    out.push(TableEffect::Engine(EngineRequest::Search(request)));
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
    fn ask_help(&mut self, request: Training, out: &mut Vec<TableEffect>) -> Reply {
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
        out.push(TableEffect::Engine(EngineRequest::Search(search)));
        Reply::ok(vec![
            "asked the engine; its answer is said when it comes".to_string(),
        ])
    }

    /// `break`: the clocks stop, or run again (at home nobody else is there to `pause`).
    fn take_break(&mut self, conn: u64, now: Millis, out: &mut Vec<TableEffect>) -> Reply {
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
        self.apply(Input::Rules(input), now, Some(conn), out)
            .into_reply()
    }

    /// `takeback`: his last move and the engine's reply; or, while the engine thinks, his move.
    /// The clocks are as they were after the half-move the game goes back to.
    fn take_back(&mut self, conn: u64, now: Millis, out: &mut Vec<TableEffect>) -> Reply {
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
        out.push(TableEffect::Engine(EngineRequest::Cancel(Purpose::Play)));
        let to_ply = ply - back;
        let mut outcome = self.apply(
            Input::Rules(game::Input::Retract { to_ply }),
            now,
            Some(conn),
            out,
        );
        if outcome.refused.is_empty() {
            // A training game keeps its clocks as they were after that half-move: nothing to
            // confirm at home, so the proposal's note (for an arbiter) is not shown.
            outcome.notes.retain(|n| !n.starts_with("proposed clocks:"));
            let confirmed = self.apply(Input::RestoreClocks, now, Some(conn), out);
            outcome.notes.extend(confirmed.notes);
            if self.clocks_paused() {
                let resumed = self.apply(
                    Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
                    now,
                    Some(conn),
                    out,
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
