//! What a simulated player at the daemon's table does next, decided without a clock or a port:
//! the pure planner behind the shell's simulated players (`tactus::sim::players`).
//!
//! The player cannot hear speech, so he acts on what the hub tells the simulated boards
//! ([`Situation`]): what his board is expected to show and whether he is to move or to execute a
//! move. That is exactly what a player knows from the announcements. [`Player::next`] turns it,
//! with what stands on his board, into the hands' next steps ([`HandStep`]: a delay and an
//! [`Act`]); the shell only sleeps, sends and receives. Each decision also says why
//! ([`Note`]), for the shell's log.
//!
//! It must not touch the game or the arbiter, and never decides anything the recogniser should:
//! it only moves pieces, and says what a player says aloud (the piece he promotes to on a board
//! that cannot see it, F.3). What the [`Intentions`] may ask of the hands:
//! - one opponent's move executed wrongly first and corrected once the player has been guided
//!   (the demo's mis-executed move);
//! - one own move preceded by touching another piece that could move (Art. 4.3 a);
//! - the board's cable pulled in the middle of one own move and plugged back in;
//! - and always: a board that rests on something other than what it should show while nobody is
//!   to move on it (a retrace, F.8) is put back once its player has been guided.

use shakmaty::{Board, Chess, Color, Move, Position, Role, Square};

use super::Rng;
use super::board::default_style;
use super::script::{Step, Style, script};
use crate::board::{Sensing, SensorEvent, profile::Profile, recognize::Mode};
use crate::rules::Millis;

/// How long a player thinks before his own move, at speed 1.
const THINK_MS: f64 = 1000.0;
/// How long before he executes the opponent's move after hearing it, at speed 1.
const EXECUTE_MS: f64 = 700.0;
/// How long he takes to correct his board after being guided, at speed 1.
const CORRECT_MS: f64 = 1200.0;
/// How long after placing a promoted pawn he says the new piece, at speed 1.
const ANNOUNCE_MS: f64 = 400.0;
/// How long the board stays unplugged, at speed 1 (never shorter than [`UNPLUGGED_MIN_MS`]).
const UNPLUGGED_MS: f64 = 3000.0;
const UNPLUGGED_MIN_MS: Millis = 300;
/// Lowest pause between two events of a move on an occupancy board, above its bounce window (a
/// capture's lift and placement on one square within it would be sensor chatter).
const OCCUPANCY_STEP_MARGIN_MS: Millis = 25;
/// Lowest pause between two events on an identity board.
const MIN_STEP_MS: Millis = 10;
/// The pause before the assistant's correction of a wrong move, after its placement.
const CORRECT_AFTER_MS: Millis = 2;
/// The least pause between the placement of a move and the offer made with it: the board's
/// report of the move is on its way to the arbiter before the assistant's line is.
const OFFER_AFTER_MS: Millis = 50;

/// What a simulated player means to do in the game: the pure part of the shell's plan.
#[derive(Debug, Clone, Default)]
pub struct Intentions {
    /// The whole game's moves from its start position.
    pub moves: Vec<Move>,
    /// Pauses are divided by this (1: a human pace; tests use 20 or more).
    pub speed: f64,
    /// The 1-based ply of an opponent's move this board's player executes wrongly at first.
    pub mistake_ply: Option<usize>,
    /// He is sure his mistaken execution is right: he does not follow the guidance for it, and
    /// only the game taken back (F.8's retrace, or the arbiter's `takeback`) puts his board
    /// right. (He writes the move as he executed it, so the scoresheets differ.)
    pub keeps_mistake: bool,
    /// From this 1-based ply on, the player's first own move is preceded by lifting and putting
    /// back another of his pieces that could move (a possible claim under Art. 4.3 a).
    pub touch_ply: Option<usize>,
    /// From this 1-based ply on, the player's first own simple move (no capture, castling or
    /// promotion) is made with the cable pulled between the lift and the placement; the board is
    /// plugged back in afterwards. Needs `can_unplug`.
    pub unplug_ply: Option<usize>,
    /// Whether the shell can pull this board's cable and plug it back in (it has a port link).
    pub can_unplug: bool,
    /// Before his own move at this 1-based ply, the player presses this button of his board (a
    /// request, F.9 d).
    pub button: Option<(usize, u8)>,
    /// He executes the opponent's move once it stands on the other board, this long after,
    /// before it is announced (he heard it said aloud, F.1).
    pub executes_early_ms: Option<u64>,
    /// At this 1-based ply he makes another legal move than his own first; once the assistant
    /// has corrected it (F.6) he is guided to his own.
    pub wrong_ply: Option<usize>,
    /// He presses his clock (the console's `press`) this long after his move stands; never
    /// after a move that ends the game.
    pub press_ms: Option<u64>,
    /// He makes his move even while the clocks stand.
    pub move_while_paused: bool,
    /// Past the end of `moves`, the player chooses his own moves (seeded: the same seed, the
    /// same choices in the same positions): a training game, whose opponent's replies no list
    /// can know in advance.
    pub choose: Option<u64>,
    /// With his own move at this 1-based ply he offers a draw, as 9.1 b has it: once the move
    /// stands on his board, before his clock press (he says it; his assistant types `offer`).
    pub offer_ply: Option<usize>,
    /// At this 1-based ply, his turn, he accepts the draw his opponent offered instead of
    /// moving (he says it; his assistant types `accept`).
    pub accept_ply: Option<usize>,
}

/// What the player knows of the game, for his own board: what the hub tells the simulated
/// boards.
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    /// The game's ply.
    pub ply: usize,
    /// What his board should show.
    pub expected: &'a Chess,
    /// What the other board shows, as its recogniser sees it (he watches it).
    pub other_shows: &'a Board,
    /// What is expected of his board.
    pub mode: Mode,
    pub started: bool,
    pub paused: bool,
    pub over: bool,
    /// Guidance announcements said so far to him.
    pub guidance: u64,
}

/// What the hands do in one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    /// Lift or place a piece; the board reports it while it is plugged in.
    Sensor(SensorEvent),
    /// Pull the cable: the port goes away, the link reads a hang-up.
    Unplug,
    /// Plug the cable back in: a new port under the same path.
    Replug,
    /// The player says the piece he promoted to.
    Announce(Role),
    /// The sighted player presses his clock (the console's `press`).
    Press,
    /// The assistant corrects the move just announced (F.6: `correct SAN`).
    Correct(String),
    /// The player of this colour offers a draw (his assistant's `offer`).
    OfferDraw(Color),
    /// The player of this colour accepts the draw offered to him (his assistant's `accept`).
    AcceptDraw(Color),
}

/// One act after a delay (from the previous step, or from the decision for the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandStep {
    pub delay_ms: Millis,
    pub act: Act,
}

impl HandStep {
    fn sensor(delay_ms: Millis, event: SensorEvent) -> HandStep {
        HandStep {
            delay_ms,
            act: Act::Sensor(event),
        }
    }
}

/// Why the player does what he does, for the shell's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Guided after a wrong placement: he corrects his board.
    Correcting,
    /// The game has left his moves (a warning, said once).
    OffScript { ply: usize },
    /// He makes another move first, to be corrected (F.6).
    WrongFirst { ply: usize },
    /// The cable will be pulled in the middle of this move.
    Unplugging { ply: usize },
    /// He presses a button of his board first.
    Button { ply: usize, button: u8 },
    /// He touches another piece first (Art. 4.3 a).
    Touching { ply: usize, square: Square },
    /// He executes the opponent's move wrongly on purpose.
    Mistake { ply: usize, wrong: Square },
    /// He executes the opponent's move before it is announced.
    Early { ply: usize, ms: u64 },
    /// Guided: he puts his board back.
    PuttingBack { ply: usize },
    /// He offers a draw with this move.
    Offering { ply: usize },
    /// He accepts the draw offered to him instead of moving.
    Accepting { ply: usize },
}

/// The hands' next steps and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// Empty: nothing to do until the situation changes. The first step's delay is the pause
    /// before the hands start.
    pub steps: Vec<HandStep>,
    pub notes: Vec<Note>,
}

impl Decision {
    fn queue(mut self, mut steps: Vec<HandStep>, pause_ms: Millis) -> Decision {
        if let Some(first) = steps.first_mut() {
            first.delay_ms = pause_ms;
        }
        self.steps = steps;
        self
    }
}

/// A simulated player: his intentions, his hands' style, and what he has done so far.
#[derive(Debug, Clone)]
pub struct Player {
    plan: Intentions,
    style: Style,
    occupancy: bool,
    /// (mode key, ply) already acted upon: each expectation gets one response.
    done: Option<(u8, usize)>,
    /// The game's ply last seen: a smaller one is a retrace, after which moves are played again.
    last_ply: usize,
    /// After a wrong placement: the guidance count seen then (`u64::MAX`: he keeps his board
    /// whatever he is told), and the correcting steps.
    awaiting_guidance: Option<(u64, Vec<HandStep>)>,
    /// He has made his one mistaken execution (a retrace that plays the move again does not
    /// bring it back).
    mistake_made: bool,
    /// The board rests on something it should not show while nobody moves on it: the guidance
    /// count seen then (the hands put it right once the player has been told).
    restore_after: Option<u64>,
    touched: bool,
    unplugged: bool,
    warned_off_script: bool,
}

/// A pause at speed 1 scaled to the player's speed.
pub fn scaled(ms: f64, speed: f64) -> Millis {
    (ms / speed.max(0.01)).round() as Millis
}

impl Player {
    /// The player at `board` whose board has `profile`: his hands move at the profile's style,
    /// sped up by the plan's speed but never faster than the board can tell events apart.
    pub fn new(profile: &Profile, plan: Intentions) -> Player {
        let mut style = default_style(profile);
        let min_step = match profile.sensing {
            Sensing::Occupancy => profile.timing.bounce_ms + OCCUPANCY_STEP_MARGIN_MS,
            Sensing::Identity => MIN_STEP_MS,
        };
        style.step_ms = ((style.step_ms as f64 / plan.speed.max(0.01)) as u64).max(min_step);
        Player {
            plan,
            style,
            occupancy: profile.sensing == Sensing::Occupancy,
            done: None,
            last_ply: 0,
            awaiting_guidance: None,
            mistake_made: false,
            restore_after: None,
            touched: false,
            unplugged: false,
            warned_off_script: false,
        }
    }

    /// The pause between two events of a move.
    pub fn step_ms(&self) -> Millis {
        self.style.step_ms
    }

    /// What the hands do next from where the game stands (`s`) and what stands on the board
    /// (`physical`). Called when the hands have nothing left to do.
    pub fn next(&mut self, s: &Situation<'_>, physical: &Board) -> Decision {
        let out = Decision::default();
        if s.ply < self.last_ply {
            // Retraced (F.8): the moves from there on are played again, and a correction meant
            // for the position before is void (his board is guided to the retraced one).
            self.done = None;
            self.awaiting_guidance = None;
        }
        self.last_ply = s.ply;
        // While the clocks are paused, or after the game, nobody moves; a board is still put
        // right (after a retrace the clocks wait for the boards; after the last move each board
        // should show the final position).
        let waiting = matches!(s.mode, Mode::Hold | Mode::Await);
        // The move that ended the game is still put on the other board (it shows the final
        // position, as the scoresheet does).
        let final_move = s.over && matches!(s.mode, Mode::Execute(_));
        let stands_still = (s.over && !final_move) || (s.paused && !self.plan.move_while_paused);
        // Before the start a board is only put right (a set-up position it must show first).
        if (!s.started || stands_still) && !waiting {
            return out;
        }
        if let Some((seen, correction)) = &self.awaiting_guidance
            && s.guidance > *seen
        {
            let correction = correction.clone();
            self.awaiting_guidance = None;
            let mut out = out;
            out.notes.push(Note::Correcting);
            return out.queue(correction, scaled(CORRECT_MS, self.plan.speed));
        }
        if !waiting {
            self.restore_after = None;
        }
        match s.mode {
            Mode::Move => self.own_move(s, out),
            Mode::Execute(m) => self.execute(s, physical, m, out),
            Mode::Await if self.early_move(s, physical).is_some() => self.execute_early(s, out),
            Mode::Hold | Mode::Await => self.put_back(s, physical, out),
        }
    }

    /// His own move: the next of his moves (or one he chooses), with what the plan adds to it.
    fn own_move(&mut self, s: &Situation<'_>, mut out: Decision) -> Decision {
        let key = (0u8, s.ply);
        if self.done == Some(key) {
            return out;
        }
        let expected = s.expected;
        if self.plan.accept_ply == Some(s.ply + 1) {
            // No move: he takes the draw his opponent offered with the last one.
            self.done = Some(key);
            out.notes.push(Note::Accepting { ply: s.ply + 1 });
            let accept = vec![HandStep {
                delay_ms: 0,
                act: Act::AcceptDraw(expected.turn()),
            }];
            return out.queue(accept, scaled(THINK_MS, self.plan.speed));
        }
        let Some(m) = self.plan.moves.get(s.ply).copied().or_else(|| {
            self.plan
                .choose
                .and_then(|seed| chosen_move(expected, seed))
        }) else {
            return out;
        };
        if !expected.is_legal(m) {
            if !self.warned_off_script {
                out.notes.push(Note::OffScript { ply: s.ply });
                self.warned_off_script = true;
            }
            return out;
        }
        self.done = Some(key);
        let ply = s.ply + 1;
        let think = scaled(THINK_MS, self.plan.speed);
        if self.plan.wrong_ply == Some(ply)
            && let Some(other) = another_move(expected, m)
        {
            // Another move first; the assistant corrects the announcement at once (F.6), and the
            // player is guided to the move he meant.
            out.notes.push(Note::WrongFirst { ply });
            let mut steps = hand_steps(script(expected, other, &self.style));
            steps.push(HandStep {
                delay_ms: CORRECT_AFTER_MS,
                act: Act::Correct(crate::rules::notation::san(expected, m)),
            });
            return out.queue(steps, think);
        }
        let steps = hand_steps(script(expected, m, &self.style));
        let steps = self.dress(expected, m, ply, steps, &mut out.notes);
        out.queue(steps, think)
    }

    /// What the plan adds around an own move `m` at 1-based `ply`: a pulled cable, a button, a
    /// touched piece, the spoken promotion piece, the clock press.
    fn dress(
        &mut self,
        expected: &Chess,
        m: Move,
        ply: usize,
        mut steps: Vec<HandStep>,
        notes: &mut Vec<Note>,
    ) -> Vec<HandStep> {
        let plan = &self.plan;
        let delay = self.style.step_ms;
        let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
        if !self.unplugged
            && simple
            && plan.unplug_ply.is_some_and(|u| ply >= u)
            && plan.can_unplug
            && steps.len() == 2
        {
            // Lift, pull the cable, place (unseen), plug it back in.
            self.unplugged = true;
            notes.push(Note::Unplugging { ply });
            let unplugged = scaled(UNPLUGGED_MS, plan.speed).max(UNPLUGGED_MIN_MS);
            steps.insert(
                1,
                HandStep {
                    delay_ms: delay,
                    act: Act::Unplug,
                },
            );
            steps.push(HandStep {
                delay_ms: unplugged,
                act: Act::Replug,
            });
        }
        if let Some((_, n)) = plan.button.filter(|&(at, _)| at == ply) {
            notes.push(Note::Button { ply, button: n });
            steps.insert(0, HandStep::sensor(delay, SensorEvent::Button(n)));
        }
        if !self.touched
            && plan.touch_ply.is_some_and(|t| ply >= t)
            && let Some(other) = other_movable(expected, m)
            && let Some(piece) = expected.board().piece_at(other)
        {
            self.touched = true;
            notes.push(Note::Touching { ply, square: other });
            let mut first = vec![
                HandStep::sensor(delay, SensorEvent::Lift { square: other }),
                HandStep::sensor(
                    delay,
                    SensorEvent::Place {
                        square: other,
                        piece: Some(piece),
                    },
                ),
            ];
            first.extend(steps);
            steps = first;
        }
        if self.occupancy
            && let Some(role) = m.promotion()
        {
            // The board cannot see the new piece: the player says it.
            steps.push(HandStep {
                delay_ms: scaled(ANNOUNCE_MS, plan.speed),
                act: Act::Announce(role),
            });
        }
        if plan.offer_ply == Some(ply) {
            // 9.1 b: the move made, then the offer, then the press.
            notes.push(Note::Offering { ply });
            steps.push(HandStep {
                delay_ms: delay.max(OFFER_AFTER_MS),
                act: Act::OfferDraw(expected.turn()),
            });
        }
        let mut after = expected.clone();
        after.play_unchecked(m);
        if let Some(ms) = plan.press_ms
            && !after.is_game_over()
        {
            // He stops his clock (a move that ends the game needs no press).
            steps.push(HandStep {
                delay_ms: ms,
                act: Act::Press,
            });
        }
        steps
    }

    /// The opponent's move `m`, announced to him: executed on his board (wrongly first, if the
    /// plan says so).
    fn execute(
        &mut self,
        s: &Situation<'_>,
        physical: &Board,
        m: Move,
        mut out: Decision,
    ) -> Decision {
        let key = (1u8, s.ply);
        if self.done == Some(key) {
            return out;
        }
        self.done = Some(key);
        let expected = s.expected;
        let mut after = expected.clone();
        after.play_unchecked(m);
        if physical == after.board() {
            // Executed already, as he heard it said.
            return out;
        }
        let pause = scaled(EXECUTE_MS, self.plan.speed);
        let delay = self.style.step_ms;
        let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
        if self.plan.mistake_ply == Some(s.ply)
            && !self.mistake_made
            && simple
            && let (Some(from), Some(wrong)) = (m.from(), wrong_square(expected, m))
            && let Some(piece) = expected.board().piece_at(from)
        {
            out.notes.push(Note::Mistake { ply: s.ply, wrong });
            let place = |square| SensorEvent::Place {
                square,
                piece: Some(piece),
            };
            let wrong_steps = vec![
                HandStep::sensor(delay, SensorEvent::Lift { square: from }),
                HandStep::sensor(delay, place(wrong)),
            ];
            let correction = vec![
                HandStep::sensor(delay, SensorEvent::Lift { square: wrong }),
                HandStep::sensor(delay, place(m.to())),
            ];
            self.mistake_made = true;
            let seen = if self.plan.keeps_mistake {
                u64::MAX
            } else {
                s.guidance
            };
            self.awaiting_guidance = Some((seen, correction));
            out.queue(wrong_steps, pause)
        } else {
            out.queue(hand_steps(script(expected, m, &self.style)), pause)
        }
    }

    /// The opponent's move he may execute early: it stands on the other board (and was said
    /// aloud, F.1) while his own board still shows what it should, and he has not done so yet.
    fn early_move(&self, s: &Situation<'_>, physical: &Board) -> Option<Move> {
        self.plan.executes_early_ms?;
        let expected = s.expected;
        if physical != expected.board() || self.done == Some((2, s.ply)) {
            return None;
        }
        let m = *self.plan.moves.get(s.ply)?;
        if !expected.is_legal(m) {
            return None;
        }
        let mut after = expected.clone();
        after.play_unchecked(m);
        (s.other_shows == after.board()).then_some(m)
    }

    /// Executed now, before tactus has counted and announced it.
    fn execute_early(&mut self, s: &Situation<'_>, mut out: Decision) -> Decision {
        let Some(&m) = self.plan.moves.get(s.ply) else {
            return out;
        };
        self.done = Some((2, s.ply));
        let ms = self.plan.executes_early_ms.unwrap_or(0);
        out.notes.push(Note::Early { ply: s.ply + 1, ms });
        out.queue(hand_steps(script(s.expected, m, &self.style)), ms)
    }

    /// Nobody is to move on his board: a board that shows something else is put back once he
    /// has been guided.
    fn put_back(&mut self, s: &Situation<'_>, physical: &Board, mut out: Decision) -> Decision {
        if self.awaiting_guidance.is_some() || physical == s.expected.board() {
            self.restore_after = None;
            return out;
        }
        match self.restore_after {
            None => self.restore_after = Some(s.guidance),
            Some(seen) if s.guidance > seen => {
                self.restore_after = None;
                out.notes.push(Note::PuttingBack { ply: s.ply });
                let steps = restore_steps(physical, s.expected.board(), self.style.step_ms);
                return out.queue(steps, scaled(CORRECT_MS, self.plan.speed));
            }
            Some(_) => {}
        }
        out
    }
}

/// The move a player who chooses for himself makes: a capture or a check when he sees one
/// (as a beginner plays), else any legal move; the seed and the position decide.
pub fn chosen_move(pos: &Chess, seed: u64) -> Option<Move> {
    let moves = pos.legal_moves();
    let mut rng = Rng::new(seed ^ pos.board().occupied().0 ^ pos.fullmoves().get() as u64);
    let forcing: Vec<Move> = moves
        .iter()
        .filter(|m| {
            m.is_capture() || {
                let mut after = pos.clone();
                after.play_unchecked(**m);
                after.is_check()
            }
        })
        .copied()
        .collect();
    let pool: &[Move] = if !forcing.is_empty() && rng.chance(0.5) {
        &forcing
    } else {
        &moves
    };
    pool.get(rng.below(pool.len() as u64) as usize).copied()
}

/// A wrong square for `m`'s piece: next to its destination, empty, and not its origin. Public
/// so that tests can say which square a mistaken execution uses.
pub fn wrong_square(before: &Chess, m: Move) -> Option<Square> {
    let to = m.to();
    let from = m.from()?;
    let mut near: Vec<Square> = shakmaty::attacks::king_attacks(to)
        .into_iter()
        .filter(|&sq| sq != from && before.board().piece_at(sq).is_none())
        .collect();
    // Prefer a square on the destination's rank (the classic slip: one file off).
    near.sort_by_key(|sq| (sq.rank() != to.rank(), *sq));
    near.first().copied()
}

/// Another piece of the mover that could move, away from everything `m` touches: the piece he
/// touches first (Art. 4.3 a). Pawns and knights first.
fn other_movable(before: &Chess, m: Move) -> Option<Square> {
    let busy = |sq: Square| {
        Some(sq) == m.from() || sq == m.to() || matches!(m, Move::Castle { rook, .. } if rook == sq)
    };
    let mut candidates: Vec<(u8, Square)> = before
        .legal_moves()
        .into_iter()
        .filter_map(|o| o.from())
        .filter(|&sq| !busy(sq))
        .map(|sq| {
            let rank = match before.board().role_at(sq) {
                Some(Role::Pawn) => 0,
                Some(Role::Knight) => 1,
                _ => 2,
            };
            (rank, sq)
        })
        .collect();
    candidates.sort();
    candidates.first().map(|&(_, sq)| sq)
}

/// Another legal move than `m`, a quiet one first (the player's slip), for the F.6 correction.
fn another_move(before: &Chess, m: Move) -> Option<Move> {
    let moves = before.legal_moves();
    let quiet = |o: &&Move| !o.is_capture() && !o.is_promotion() && !o.is_castle();
    moves
        .iter()
        .filter(quiet)
        .find(|o| o.from() == m.from() && **o != m)
        .or_else(|| moves.iter().filter(quiet).find(|o| **o != m))
        .copied()
}

/// The hands' steps that turn `found` into `wanted`: every wrong piece taken off, then every
/// missing one put on.
fn restore_steps(found: &Board, wanted: &Board, delay_ms: Millis) -> Vec<HandStep> {
    let mut steps = Vec::new();
    for sq in Square::ALL {
        if let Some(p) = found.piece_at(sq)
            && wanted.piece_at(sq) != Some(p)
        {
            steps.push(HandStep::sensor(delay_ms, SensorEvent::Lift { square: sq }));
        }
    }
    for sq in Square::ALL {
        if let Some(p) = wanted.piece_at(sq)
            && found.piece_at(sq) != Some(p)
        {
            steps.push(HandStep::sensor(
                delay_ms,
                SensorEvent::Place {
                    square: sq,
                    piece: Some(p),
                },
            ));
        }
    }
    steps
}

fn hand_steps(steps: Vec<Step>) -> Vec<HandStep> {
    steps
        .into_iter()
        .map(|s| HandStep::sensor(s.delay_ms, s.event))
        .collect()
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position, uci::UciMove};

    use super::*;
    use crate::board::profile::ProfileSet;

    fn mv(pos: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    fn profile(name: &str) -> Profile {
        ProfileSet::builtin().get(name).unwrap().clone()
    }

    fn situation<'a>(expected: &'a Chess, other: &'a Board, mode: Mode) -> Situation<'a> {
        Situation {
            ply: expected.fullmoves().get() as usize * 2 - 2
                + usize::from(expected.turn().is_black()),
            expected,
            other_shows: other,
            mode,
            started: true,
            paused: false,
            over: false,
            guidance: 0,
        }
    }

    fn sensor_events(steps: &[HandStep]) -> Vec<SensorEvent> {
        steps
            .iter()
            .map(|s| match &s.act {
                Act::Sensor(e) => e.clone(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_touched_piece_could_move_and_is_not_part_of_the_move() {
        let pos = Chess::default();
        let m = mv(&pos, "e2e4");
        let sq = other_movable(&pos, m).unwrap();
        assert_ne!(sq, Square::E2);
        assert_eq!(pos.board().role_at(sq), Some(Role::Pawn));
        assert!(pos.legal_moves().iter().any(|o| o.from() == Some(sq)));
    }

    #[test]
    fn restoring_takes_off_what_is_wrong_and_puts_on_what_is_missing() {
        let before = Chess::default();
        let mut after = before.clone();
        after.play_unchecked(mv(&before, "e2e4"));
        let steps = restore_steps(after.board(), before.board(), 30);
        let events = sensor_events(&steps);
        assert_eq!(
            events,
            vec![
                SensorEvent::Lift { square: Square::E4 },
                SensorEvent::Place {
                    square: Square::E2,
                    piece: before.board().piece_at(Square::E2)
                },
            ]
        );
        let mut board = super::super::script::PhysicalBoard::new(after.board().clone());
        for e in &events {
            board.apply(e);
        }
        assert_eq!(&board.board, before.board());
    }

    #[test]
    fn his_own_move_comes_after_thinking_and_only_once() {
        let pos = Chess::default();
        let m = mv(&pos, "e2e4");
        let plan = Intentions {
            moves: vec![m],
            speed: 2.0,
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let s = situation(&pos, pos.board(), Mode::Move);
        let d = player.next(&s, pos.board());
        assert!(d.notes.is_empty());
        assert_eq!(d.steps[0].delay_ms, 500, "the thinking pause, halved");
        let mut board = super::super::script::PhysicalBoard::new(pos.board().clone());
        for e in &sensor_events(&d.steps) {
            board.apply(e);
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        assert_eq!(&board.board, after.board());
        // The same expectation again: nothing more to do.
        assert_eq!(player.next(&s, pos.board()), Decision::default());
    }

    #[test]
    fn nobody_moves_before_the_start_or_while_the_clocks_stand() {
        let pos = Chess::default();
        let plan = Intentions {
            moves: vec![mv(&pos, "e2e4")],
            speed: 1.0,
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let mut s = situation(&pos, pos.board(), Mode::Move);
        s.started = false;
        assert!(player.next(&s, pos.board()).steps.is_empty());
        s.started = true;
        s.paused = true;
        assert!(player.next(&s, pos.board()).steps.is_empty());
        s.paused = false;
        assert!(!player.next(&s, pos.board()).steps.is_empty());
    }

    #[test]
    fn a_mistaken_execution_is_corrected_once_he_is_guided() {
        let pos = Chess::default();
        let m = mv(&pos, "e2e4");
        let plan = Intentions {
            moves: vec![m],
            speed: 1.0,
            mistake_ply: Some(0),
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let mut s = situation(&pos, pos.board(), Mode::Execute(m));
        let d = player.next(&s, pos.board());
        assert!(
            matches!(d.notes[..], [Note::Mistake { ply: 0, .. }]),
            "{d:?}"
        );
        assert_eq!(d.steps.len(), 2);
        // Not guided yet: he waits.
        s.mode = Mode::Hold;
        assert!(player.next(&s, pos.board()).steps.is_empty());
        s.guidance = 1;
        let d = player.next(&s, pos.board());
        assert_eq!(d.notes, vec![Note::Correcting]);
        assert_eq!(d.steps[0].delay_ms, 1200);
        assert_eq!(
            d.steps[1].act,
            Act::Sensor(SensorEvent::Place {
                square: Square::E4,
                piece: pos.board().piece_at(Square::E2)
            })
        );
    }

    /// A player sure of his mistaken execution keeps his board through any guidance; the game
    /// taken back (F.8) voids it, his board is put back to the retraced position once he is
    /// guided, and the move played again is executed rightly.
    #[test]
    fn a_kept_mistake_stands_until_the_game_is_retraced_and_is_not_made_twice() {
        let pos = Chess::default();
        let m = mv(&pos, "e2e4");
        let plan = Intentions {
            moves: vec![m],
            speed: 1.0,
            mistake_ply: Some(1),
            keeps_mistake: true,
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let mut s = situation(&pos, pos.board(), Mode::Execute(m));
        s.ply = 1;
        let d = player.next(&s, pos.board());
        let [Note::Mistake { wrong, .. }] = d.notes[..] else {
            panic!("{d:?}");
        };
        let mut mistaken = pos.board().clone();
        let pawn = mistaken.remove_piece_at(Square::E2).unwrap();
        mistaken.set_piece_at(wrong, pawn);
        // Guided again and again: he keeps his board.
        for guidance in 1..5 {
            s.guidance = guidance;
            assert!(player.next(&s, &mistaken).steps.is_empty());
        }
        // The game goes back to the start: guided there, he puts his board right.
        s.ply = 0;
        s.mode = Mode::Hold;
        assert!(player.next(&s, &mistaken).steps.is_empty());
        s.guidance = 5;
        let d = player.next(&s, &mistaken);
        assert_eq!(d.notes, vec![Note::PuttingBack { ply: 0 }]);
        // The move played again: executed rightly this time.
        s.ply = 1;
        s.mode = Mode::Execute(m);
        let d = player.next(&s, pos.board());
        assert!(d.notes.is_empty(), "{d:?}");
        assert!(!d.steps.is_empty());
    }

    #[test]
    fn a_wrong_board_is_put_back_only_after_guidance() {
        let pos = Chess::default();
        let mut moved = pos.clone();
        moved.play_unchecked(mv(&pos, "e2e4"));
        let plan = Intentions {
            speed: 1.0,
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let mut s = situation(&pos, pos.board(), Mode::Hold);
        assert!(player.next(&s, moved.board()).steps.is_empty());
        s.guidance = 1;
        let d = player.next(&s, moved.board());
        assert_eq!(d.notes, vec![Note::PuttingBack { ply: 0 }]);
        assert_eq!(d.steps.len(), 2);
    }

    #[test]
    fn an_unplugged_move_pulls_the_cable_between_lift_and_placement() {
        let pos = Chess::default();
        let plan = Intentions {
            moves: vec![mv(&pos, "e2e4")],
            speed: 1.0,
            unplug_ply: Some(1),
            can_unplug: true,
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let d = player.next(&situation(&pos, pos.board(), Mode::Move), pos.board());
        let acts: Vec<&Act> = d.steps.iter().map(|s| &s.act).collect();
        assert!(matches!(
            acts[..],
            [Act::Sensor(_), Act::Unplug, Act::Sensor(_), Act::Replug]
        ));
        assert_eq!(d.steps[3].delay_ms, 3000);
    }

    #[test]
    fn a_draw_is_offered_after_the_move_and_accepted_instead_of_one() {
        let pos = Chess::default();
        let e4 = mv(&pos, "e2e4");
        let plan = Intentions {
            moves: vec![e4],
            speed: 1.0,
            offer_ply: Some(1),
            press_ms: Some(100),
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("dgt"), plan);
        let d = player.next(&situation(&pos, pos.board(), Mode::Move), pos.board());
        assert_eq!(d.notes, vec![Note::Offering { ply: 1 }]);
        let acts: Vec<&Act> = d.steps.iter().map(|s| &s.act).collect();
        // The move, then the offer, then the press (9.1 b).
        assert!(
            matches!(
                acts[..],
                [
                    Act::Sensor(_),
                    Act::Sensor(_),
                    Act::OfferDraw(Color::White),
                    Act::Press
                ]
            ),
            "{acts:?}"
        );
        assert!(d.steps[2].delay_ms >= OFFER_AFTER_MS);
        // His opponent accepts instead of a move: no move of his is needed in the list.
        let mut after = pos.clone();
        after.play_unchecked(e4);
        let plan = Intentions {
            moves: vec![e4],
            speed: 1.0,
            accept_ply: Some(2),
            ..Intentions::default()
        };
        let mut player = Player::new(&profile("pegged-line"), plan);
        let mut s = situation(&after, after.board(), Mode::Move);
        s.ply = 1;
        let d = player.next(&s, after.board());
        assert_eq!(d.notes, vec![Note::Accepting { ply: 2 }]);
        assert_eq!(
            d.steps.iter().map(|s| &s.act).collect::<Vec<_>>(),
            [&Act::AcceptDraw(Color::Black)]
        );
        assert_eq!(player.next(&s, after.board()), Decision::default());
    }

    #[test]
    fn a_chosen_move_is_legal_and_the_same_for_the_same_seed() {
        let pos = Chess::default();
        let a = chosen_move(&pos, 7).unwrap();
        assert!(pos.is_legal(a));
        assert_eq!(chosen_move(&pos, 7), Some(a));
    }
}
