//! The people at the table: what each knows and is doing, what he hears, how his hands act, and
//! what he decides next (his own move with its slips, executing the opponent's, putting his
//! board right, pressing his clock); the arbiter who pauses the clocks.

use shakmaty::{Board, Chess, Color, Move, Position, Role, Square};

use super::{
    Action, LINE_WIRE_MS, SLIDE_REST_MAX_MS, World,
    boards::{apply, next_sample},
    setup::Behaviour,
};
use super::{Traced, origin::Origin};
use crate::{
    announce::{Announcement, MoveWords},
    board::{Sensing, SensorEvent, session::LinkEvent},
    console::Role as ConsoleRole,
    rules::{Millis, notation},
    sim::script::{CaptureOrder, CastlingOrder, Style, script},
    table::TableInput,
};

/// What a person does with his hands (or says).
#[derive(Debug, Clone)]
pub(super) enum Act {
    /// Lift or place a piece on his board.
    Hand(SensorEvent),
    /// Pull his board's cable / plug it back in.
    Unplug,
    Replug,
    /// The sighted player stops his clock (his side of the DGT clock's lever, or on a plain
    /// board the assistant's `press`).
    Press,
    /// He presses the other side of the lever: his own was down already and nothing moved.
    PressOther,
    /// He looks at the clock: his move (this one of the script) has not counted, he presses
    /// again.
    PressIfUncounted(usize),
    /// The blind player presses his own side of the lever, by habit.
    HabitPress,
    /// A line at the blind player's keypad.
    Keypad(String),
    /// A button of the blind player's board.
    Button(u8),
    /// The assistant's line at his console (a question of his own, or one passed on).
    Assistant(String),
    /// The blind player says his promotion piece; the assistant enters it.
    Promote(Role),
    /// The assistant enters the sighted player's move (a plain board).
    Enter(Move),
    /// The end of a sequence of acts: the person looks again at where things stand.
    Done,
}

/// What the arbiter (the person) does.
#[derive(Debug, Clone, Copy)]
pub(super) enum Staff {
    Pause,
    Resume,
}

/// What a person knows and is doing.
#[derive(Debug, Clone)]
pub(super) struct Person {
    /// His seat: his colour, and his board.
    pub(super) color: Color,
    /// The script's moves he knows have been made (his own included once he makes them).
    pub(super) known: usize,
    /// Acts are scheduled and not all done.
    pub(super) busy: bool,
    /// A slip of his stands on his board: he puts it right once told (guidance or a refusal
    /// said to him after the slip), towards this board.
    pub(super) slip: Option<(u64, Board)>,
    /// Things said to him that tell him his board is wrong.
    pub(super) told: u64,
    /// He heard the clocks stop and not yet run again.
    pub(super) paused: bool,
    /// He moves even while the clocks stand (this pause).
    pub(super) defiant: bool,
    /// He heard that his press counted nothing: he presses again once his move stands.
    pub(super) press_again: bool,
    /// His last own move is on the board and waits for his press.
    pub(super) awaiting_press: bool,
    /// After putting his slip right he presses his clock (his own move under press completion).
    pub(super) press_after_fix: bool,
    /// He replies to the opponent's move he heard said aloud before tactus has counted it.
    pub(super) reply_ahead: bool,
    /// He decided (at this many known moves) whether to move before his opponent has.
    pub(super) premove_decided: Option<usize>,
    /// Guidance about his board heard while he had no slip of his own to put right: told twice,
    /// he follows it (his board is not what he thinks).
    pub(super) guided: u32,
}

impl World {
    /// A person heard an announcement.
    pub(super) fn hear(&mut self, who: Color, announcement: &Announcement) {
        let known = self.people[who].known;
        match announcement {
            Announcement::Move(words) => {
                if let Some(&m) = self.setup.script.get(known)
                    && MoveWords::new(&self.position_at(known), m) == *words
                {
                    self.people[who].known += 1;
                }
            }
            Announcement::OutOfTurn => {
                // His move was made before his opponent's: it did not count, and what he made
                // beyond the game is not made. His board goes back to the game (guided) and he
                // makes it again in his turn.
                let counted = self.table.game().ply();
                let person = &mut self.people[who];
                person.told += 1;
                person.known = person.known.min(counted);
            }
            Announcement::Guidance(_) => {
                let person = &mut self.people[who];
                person.told += 1;
                if person.slip.is_none() {
                    person.guided += 1;
                }
            }
            Announcement::IllegalMove | Announcement::MoveRequired { .. } => {
                self.people[who].told += 1
            }
            // His press counted nothing (no move on his board, or not his turn yet): he
            // presses again once his move can count.
            Announcement::NoMoveToCount | Announcement::ToMove { .. } => {
                self.people[who].press_again = true
            }
            Announcement::ClocksPaused => self.people[who].paused = true,
            Announcement::ClocksResumed => self.people[who].paused = false,
            _ => {}
        }
    }

    pub(super) fn act(&mut self, who: Color, act: Act) {
        let board = who;
        if !matches!(act, Act::Done) {
            let whom = self.table.arbiter().config().names().player(who);
            self.trace.push(Traced::Act {
                t: self.now,
                whom,
                act: act.clone(),
            });
        }
        match act {
            Act::Hand(event) => {
                apply(&mut self.boards[board].board, &event);
                let now = self.now;
                let b = &mut self.boards[board];
                if !b.sensors || !b.connected {
                    return;
                }
                match (b.sensing, &event) {
                    (Sensing::Occupancy, _) => {
                        apply(&mut b.view, &event);
                        self.send(board, event, LINE_WIRE_MS);
                    }
                    (
                        Sensing::Identity,
                        SensorEvent::Lift { square } | SensorEvent::Place { square, .. },
                    ) => {
                        let square = *square;
                        if !b.sampling[usize::from(square)] {
                            b.sampling[usize::from(square)] = true;
                            let at = next_sample(b, square, now);
                            self.schedule(at, Action::Sample { board, square });
                        }
                    }
                    (Sensing::Identity, _) => {}
                }
            }
            Act::Unplug => {
                let b = &mut self.boards[board];
                b.connected = false;
                b.epoch += 1;
                self.happened.unplugs += 1;
                let event = LinkEvent::Disconnected {
                    reason: "cable pulled".into(),
                };
                self.input(TableInput::Link { seat: board, event }, Origin::World);
            }
            Act::Replug => {
                let b = &mut self.boards[board];
                b.connected = true;
                b.view = b.board.clone();
                b.line_free = self.now;
                let event = LinkEvent::Connected {
                    info: "simulated".into(),
                };
                self.input(TableInput::Link { seat: board, event }, Origin::World);
                // The DGT clock reports its times and its lever every second: the lever as it
                // stands now reaches the host soon after.
                self.report_lever();
            }
            Act::Press if self.clock_seat() == Some(who) => self.press_lever(who),
            Act::Press => {
                // A plain board (or a DGT board without a clock): his assistant presses for him.
                self.console(ConsoleRole::Assistant, None, "press", Origin::Player);
            }
            Act::PressOther => self.press_other_side(who),
            Act::PressIfUncounted(k) => self.press_if_uncounted(who, k),
            Act::HabitPress => self.habit_press(who),
            Act::Keypad(line) => self.keypad(who, &line),
            Act::Button(n) => {
                self.button_pressed();
                let event = LinkEvent::Sensor(SensorEvent::Button(n));
                self.input(TableInput::Link { seat: who, event }, Origin::Asked(who));
            }
            Act::Assistant(line) => self.assistant(who, &line),
            Act::Promote(role) => {
                let line = format!("promote {}", role.char());
                self.console(ConsoleRole::Assistant, None, &line, Origin::Player);
            }
            Act::Enter(m) => {
                let pos = self.table.game().position().clone();
                let san = if pos.is_legal(m) {
                    notation::san(&pos, m)
                } else {
                    m.to_uci(shakmaty::CastlingMode::Standard).to_string()
                };
                self.console(
                    ConsoleRole::Assistant,
                    None,
                    &format!("move {san}"),
                    Origin::Player,
                );
            }
            Act::Done => self.people[who].busy = false,
        }
    }

    /// Queue a person's acts: `steps` of (delay from the previous act, act), then `Done`.
    pub(super) fn queue(&mut self, who: Color, first_delay: u64, steps: Vec<(u64, Act)>) {
        self.people[who].busy = true;
        let mut at = self.now + first_delay;
        for (i, (delay, act)) in steps.into_iter().enumerate() {
            if i > 0 {
                at += delay;
            }
            self.schedule(at, Action::Act { who, act });
        }
        self.schedule(
            at + 1,
            Action::Act {
                who,
                act: Act::Done,
            },
        );
    }

    pub(super) fn poll_people(&mut self) {
        if self.failure.is_some() {
            return;
        }
        for who in self.setup.order() {
            if !self.people[who].busy {
                self.decide(who);
            }
            self.maybe_ask(who);
        }
        self.maybe_pause();
    }

    /// The arbiter person stops the clocks now and then, between moves or in the middle of one.
    pub(super) fn maybe_pause(&mut self) {
        let game = self.table.game();
        if self.pausing
            || game.is_over()
            || game.clock().is_none_or(|c| c.running().is_none())
            || self.setup.behaviour.pause <= 0.0
        {
            return;
        }
        // About `pause` per half-move: people look at the board every few hundred ms.
        if self.rng.chance(self.setup.behaviour.pause / 20.0) {
            self.pausing = true;
            let at = self.now + self.rng.between(50, 3_000);
            self.schedule(at, Action::Staff(Staff::Pause));
        }
    }

    /// What a person does next, from what he knows and what stands on his board.
    pub(super) fn decide(&mut self, who: Color) {
        if self.table.game().is_over() {
            return;
        }
        // What counted he knows (the blind player hears every move said, his own said back;
        // the sighted player sees the clocks): a move of his made out of turn that tactus took
        // as a reply is his move made.
        let counted = self.table.game().ply();
        if self.people[who].known < counted {
            self.people[who].known = counted;
        }
        let person = self.people[who].clone();
        let board = who;
        let mental = self.position_at(person.known);
        let physical = self.boards[board].board.clone();
        let behaviour = self.setup.behaviour.clone();
        // A slip stands: he puts it right once told.
        if let Some((told_then, target)) = &person.slip {
            if person.told > *told_then {
                let mut steps = restore(&physical, target, 300);
                self.people[who].slip = None;
                if std::mem::take(&mut self.people[who].press_after_fix) {
                    let delay = self.press_delay(&behaviour);
                    steps.push((delay, Act::Press));
                }
                let delay = self.rng.between(200, 1500);
                self.queue(who, delay, steps);
            }
            return;
        }
        let manual = !self.boards[board].sensors;
        // Told twice what is wrong with a board he thought right: he follows the guidance,
        // square by square, to what the table expects, and what had not counted is made again.
        let expected = self
            .table
            .arbiter()
            .board(board)
            .map(|r| r.expected().board().clone());
        if expected.as_ref() == Some(&physical) {
            self.people[who].guided = 0;
        }
        if person.guided >= 2
            && let Some(expected) = expected
            && physical != expected
        {
            self.people[who].guided = 0;
            self.people[who].known = self.table.game().ply();
            let steps = restore(&physical, &expected, 300);
            let delay = self.rng.between(200, 1500);
            self.queue(who, delay, steps);
            return;
        }
        if physical != *mental.board() {
            let last = person.known.checked_sub(1);
            let opponent_move = last.filter(|&k| {
                self.position_at(k).turn() != person.color
                    && self.position_at(k).board() == &physical
            });
            if manual {
                // A plain board is simply set (nothing senses it); then he goes on.
                self.boards[board].board = mental.board().clone();
                return self.decide(who);
            }
            if let Some(k) = opponent_move {
                let before = self.position_at(k);
                let m = self.setup.script[k];
                self.execute(who, &before, m, &behaviour);
            } else {
                // Not the last move: put the board to what he knows (after a pulled cable, a
                // takeback).
                let steps = restore(&physical, mental.board(), 300);
                self.queue(who, 500, steps);
            }
            return;
        }
        // Told that his press counted nothing while his own move stands uncounted: he presses
        // again.
        let own_uncounted = (self.table.game().ply()..person.known)
            .any(|k| self.position_at(k).turn() == person.color);
        if person.press_again && person.awaiting_press && own_uncounted {
            self.people[who].press_again = false;
            let delay = self.rng.between(200, 1200);
            self.queue(who, delay, vec![(0, Act::Press)]);
            return;
        }
        // (Only while his opponent has not started his move: a move made during the
        // opponent's, in a race with it, is left out of this table's people.)
        let opponent_thinking = !self.people[!who].busy
            && self.boards[!who].board == *self.position_at(person.known).board();
        if !manual
            && self.setup.is_blind(board)
            && opponent_thinking
            && mental.turn() != person.color
            && person.premove_decided != Some(person.known)
            && !person.paused
            && self.table.game().ply() == person.known
        {
            // His own move counted, his opponent thinks: now and then he makes his next move
            // already (no move, 1.1); told so, he takes it back. (Leaving it until the
            // opponent's move comes is played by the arbiter's tests and end to end: here,
            // taking it back while executing a capture can look like a capture of his own on
            // an occupancy board, a limit of such boards rather than of the rule.)
            self.people[who].premove_decided = Some(person.known);
            if let Some(&next) = self.setup.script.get(person.known + 1)
                && self.rng.chance(behaviour.premove)
                && let Ok(own) = mental.clone().swap_turn()
                && own.is_legal(next)
            {
                self.happened.premoves += 1;
                let style = self.style(board, next, &behaviour);
                let steps = hands(script(&own, next, &style));
                // Told, he takes it back.
                let told = person.told;
                self.people[who].slip = Some((told, mental.board().clone()));
                let delay = self.rng.between(300, 3_000);
                self.queue(who, delay, steps);
                return;
            }
        }
        if person.known >= self.setup.script.len() || mental.turn() != person.color {
            return;
        }
        if person.paused && !person.defiant {
            return;
        }
        // He replies to a move tactus has not counted yet only now and then, and never further
        // ahead than that one move.
        let uncounted = person.known.saturating_sub(self.table.game().ply());
        if uncounted > 1 || (uncounted == 1 && (!person.reply_ahead || manual)) {
            // (The assistant at the console types a reply once the move has been announced.)
            return;
        }
        if person.paused {
            self.happened.moves_while_paused += 1;
        }
        let m = self.setup.script[person.known];
        self.people[who].known += 1;
        self.own_move(who, &mental, m, manual, &behaviour);
    }

    /// A person executes his opponent's move on his own board.
    pub(super) fn execute(&mut self, who: Color, before: &Chess, m: Move, b: &Behaviour) {
        let board = who;
        let delay = self.rng.between(200, 1500);
        let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
        if simple
            && self.rng.chance(b.wrong_square)
            && let (Some(from), Some(wrong)) = (m.from(), wrong_square(before, m))
            && let Some(piece) = before.board().piece_at(from)
        {
            self.happened.wrong_squares += 1;
            let mut after = before.clone();
            after.play_unchecked(m);
            let told = self.people[who].told;
            self.people[who].slip = Some((told, after.board().clone()));
            let steps = vec![
                (0, Act::Hand(SensorEvent::Lift { square: from })),
                (
                    300,
                    Act::Hand(SensorEvent::Place {
                        square: wrong,
                        piece: Some(piece),
                    }),
                ),
            ];
            self.queue(who, delay, steps);
            return;
        }
        let style = self.style(board, m, b);
        let steps = hands(script(before, m, &style));
        self.queue(who, delay, steps);
    }

    /// A hand style for a move on board `board`.
    pub(super) fn style(&mut self, board: Color, m: Move, b: &Behaviour) -> Style {
        let mover_first = m.is_capture() && self.rng.chance(b.mover_first);
        if mover_first {
            self.happened.captures_mover_first += 1;
        }
        if self.setup.is_blind(board) {
            Style {
                capture: if mover_first {
                    CaptureOrder::MoverFirst
                } else {
                    CaptureOrder::CapturedFirst
                },
                castling: CastlingOrder::KingFirst,
                ep_captured_first: self.rng.chance(0.5),
                bounce: self.rng.chance(b.bounce),
                reorder: false,
                slide: false,
                step_ms: self.rng.between(120, 700),
                bounce_ms: 5,
            }
        } else {
            let slide = self.rng.chance(b.slide);
            if slide {
                self.happened.slides += 1;
            }
            Style {
                capture: if mover_first {
                    CaptureOrder::MoverFirst
                } else if self.rng.chance(0.5) {
                    CaptureOrder::Replace
                } else {
                    CaptureOrder::CapturedFirst
                },
                castling: CastlingOrder::KingFirst,
                ep_captured_first: self.rng.chance(0.5),
                bounce: false,
                reorder: false,
                slide,
                // A slid piece passes its squares quickly; a lifted one may stay in the hand.
                step_ms: if slide {
                    self.rng.between(15, SLIDE_REST_MAX_MS)
                } else {
                    self.rng.between(30, 600)
                },
                bounce_ms: 5,
            }
        }
    }

    /// A person makes his own move: thinking, perhaps a slip first, the move, and what goes with
    /// it (a promotion piece said, a clock pressed, a cable pulled).
    pub(super) fn own_move(
        &mut self,
        who: Color,
        before: &Chess,
        m: Move,
        manual: bool,
        b: &Behaviour,
    ) {
        let board = who;
        let think = self.rng.between(300, 4_000);
        let mut after = before.clone();
        after.play_unchecked(m);
        let ends_game = after.is_game_over();
        // Someone sees or hears it said aloud (F.1) before tactus announces it.
        let other = !who;
        let early = self.rng.chance(b.early_execution);
        if manual {
            self.boards[board].board = after.board().clone();
            self.entered_move(who, m, think, early, b);
            return;
        }
        let mut steps: Vec<(u64, Act)> = Vec::new();
        if self.rng.chance(b.knock)
            && let Some(sq) = self.knockable(board, m)
            && let Some(piece) = self.boards[board].board.piece_at(sq)
        {
            self.happened.knocks += 1;
            steps.push((0, Act::Hand(SensorEvent::Lift { square: sq })));
            steps.push((
                self.rng.between(100, 900),
                Act::Hand(SensorEvent::Place {
                    square: sq,
                    piece: Some(piece),
                }),
            ));
        }
        let style = self.style(board, m, b);
        let mut moving = hands(script(before, m, &style));
        let simple = !m.is_capture() && !m.is_castle() && !m.is_promotion();
        let mut slip = None;
        if simple
            && self.rng.chance(b.impossible_first)
            && let (Some(from), Some(wrong)) = (m.from(), impossible_square(before, m))
            && let Some(piece) = before.board().piece_at(from)
        {
            // The piece put where it cannot go; he hears that it is not possible and puts it
            // where he meant.
            self.happened.impossible_moves += 1;
            moving = vec![
                (0, Act::Hand(SensorEvent::Lift { square: from })),
                (
                    300,
                    Act::Hand(SensorEvent::Place {
                        square: wrong,
                        piece: Some(piece),
                    }),
                ),
            ];
            slip = Some(after.board().clone());
        }
        if slip.is_none() && simple && moving.len() == 2 && self.rng.chance(b.unplug) {
            // Lift, pull the cable, place (unseen), plug it back in.
            let back = self.rng.between(300, 3_000);
            moving.insert(1, (50, Act::Unplug));
            moving.push((back, Act::Replug));
        }
        let premature =
            self.setup.presses(board) && slip.is_none() && self.rng.chance(b.press_premature);
        if premature {
            // The clock pressed with the piece still in the hand.
            self.happened.premature_presses += 1;
            let at = 1.min(moving.len());
            moving.insert(at, (20, Act::Press));
        }
        steps.extend(moving);
        if self.setup.is_blind(board)
            && let Some(role) = m.promotion()
        {
            // The tactile board cannot see the new piece: he says it; the assistant enters it.
            steps.push((self.rng.between(100, 700), Act::Promote(role)));
        }
        if self.setup.is_blind(board) && !ends_game && self.habit() {
            // He presses his side of the DGT clock's lever after his move, by habit (it counts
            // without: F.3).
            let delay = self.talk.between(100, 2_000);
            steps.push((delay, Act::HabitPress));
        }
        let presses = self.setup.presses(board);
        if presses && slip.is_some() {
            self.people[who].press_after_fix = true;
        } else if presses {
            if ends_game {
                // Mate or stalemate: the game is over, he does not bother with the clock.
                self.happened.mates_without_press += 1;
            } else {
                let delay = self.press_delay(b);
                steps.push((delay, Act::Press));
            }
        }
        if let Some(target) = slip {
            let told = self.people[who].told;
            self.people[who].slip = Some((told, target));
        }
        self.people[who].awaiting_press = presses;
        let total: u64 = steps.iter().skip(1).map(|(d, _)| d).sum();
        self.queue(who, think, steps);
        if early {
            self.learn_later(other, think + total);
        }
    }

    /// A plain board's move: it stands on his board unseen, the assistant enters it, and he
    /// presses his clock (perhaps once too early first).
    fn entered_move(&mut self, who: Color, m: Move, think: u64, early: bool, b: &Behaviour) {
        let mut steps = Vec::new();
        if self.rng.chance(b.press_premature) {
            self.happened.premature_presses += 1;
            steps.push((0, Act::Press));
        }
        steps.push((200, Act::Enter(m)));
        let press_delay = self.press_delay(b);
        steps.push((press_delay, Act::Press));
        self.queue(who, think, steps);
        if early {
            self.learn_later(!who, think);
        }
    }

    pub(super) fn press_delay(&mut self, b: &Behaviour) -> u64 {
        if self.rng.chance(b.press_early) {
            self.happened.early_presses += 1;
            self.rng.between(20, 60)
        } else {
            self.rng.between(300, 3_000)
        }
    }

    /// The other person learns the move being made now, a little after it stands (he heard it
    /// said aloud, F.1, or saw it).
    pub(super) fn learn_later(&mut self, who: Color, after_ms: u64) {
        let ply = self.people[!who].known - 1;
        self.happened.early_executions += 1;
        let at = self.now + after_ms + self.rng.between(50, 800);
        self.schedule(at, Action::Learn { who, ply });
    }

    /// A piece to knock over before a move: one the move does not touch.
    pub(super) fn knockable(&mut self, board: Color, m: Move) -> Option<Square> {
        let busy = |sq: Square| {
            Some(sq) == m.from()
                || sq == m.to()
                || matches!(m, Move::Castle { rook, .. } if rook == sq)
                || matches!(m, Move::EnPassant { from, to } if sq == Square::from_coords(to.file(), from.rank()))
        };
        let candidates: Vec<Square> = self.boards[board]
            .board
            .occupied()
            .into_iter()
            .filter(|&sq| !busy(sq))
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let i = self.rng.below(candidates.len() as u64) as usize;
        Some(candidates[i])
    }
}

pub(super) fn hands(steps: Vec<crate::sim::script::Step>) -> Vec<(u64, Act)> {
    steps
        .into_iter()
        .map(|s| (s.delay_ms, Act::Hand(s.event)))
        .collect()
}

/// The acts that turn `found` into `wanted`: every wrong piece taken off, then every missing one
/// put on.
pub(super) fn restore(found: &Board, wanted: &Board, step_ms: Millis) -> Vec<(u64, Act)> {
    let mut steps = Vec::new();
    for sq in Square::ALL {
        if let Some(p) = found.piece_at(sq)
            && wanted.piece_at(sq) != Some(p)
        {
            steps.push((step_ms, Act::Hand(SensorEvent::Lift { square: sq })));
        }
    }
    for sq in Square::ALL {
        if let Some(p) = wanted.piece_at(sq)
            && found.piece_at(sq) != Some(p)
        {
            steps.push((
                step_ms,
                Act::Hand(SensorEvent::Place {
                    square: sq,
                    piece: Some(p),
                }),
            ));
        }
    }
    steps
}

/// A wrong square for executing `m`: next to its destination, empty, not its origin.
pub(super) fn wrong_square(before: &Chess, m: Move) -> Option<Square> {
    let from = m.from()?;
    shakmaty::attacks::king_attacks(m.to())
        .into_iter()
        .find(|&sq| sq != from && before.board().piece_at(sq).is_none())
}

/// An empty square next to `m`'s origin where its piece cannot go, and that no legal move's
/// position resembles (by occupancy, as the tactile board senses it).
pub(super) fn impossible_square(before: &Chess, m: Move) -> Option<Square> {
    let from = m.from()?;
    let legal = before.legal_moves();
    shakmaty::attacks::king_attacks(from)
        .into_iter()
        .chain(shakmaty::attacks::knight_attacks(from))
        .find(|&sq| {
            if before.board().piece_at(sq).is_some() {
                return false;
            }
            let mut occupied = before.board().occupied();
            occupied.discard(from);
            occupied.add(sq);
            legal.iter().all(|&other| {
                let mut after = before.clone();
                after.play_unchecked(other);
                after.board().occupied() != occupied
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_square_is_no_legal_move() {
        let pos = Chess::default();
        let e4 = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .unwrap();
        let sq = impossible_square(&pos, e4).unwrap();
        assert!(
            pos.legal_moves()
                .iter()
                .all(|m| m.to() != sq || m.from() != Some(Square::E2))
        );
    }
}
