//! Playing a table: setting up the world from its setup, the agenda on virtual time, the inputs
//! to the pure arbiter and its effects, and the checks of what must always hold at a table (the
//! script's moves only, no stall, every refusal said, the PGN).

use std::{cmp::Reverse, collections::BinaryHeap};

use shakmaty::{ByColor, Chess, Color, Move, Position};

use super::{
    Action, DGT_DUMP_WIRE_MS, DGT_SWEEP_MS, DGT_UPDATE_WIRE_MS, INPUT_LIMIT, LINE_WIRE_MS,
    REQUEST_TURNAROUND_MS, SPIN_LIMIT, STALL_MS, World,
    boards::{Physical, apply},
    people::{Person, Staff},
    setup::{Happened, RunReport, SeatKind, SightedBoard, TableSetup, shipped},
};
use crate::{
    announce::{Announcement, Audience, MoveWords},
    arbiter::{Arbiter, ArbiterConfig, Completion, Effect, Input, SeatConfig},
    board::{Sensed, Sensing, SensorEvent, recognize::Mode},
    rules::{
        Millis,
        game::{self, RulesConfig},
        pgn::read_pgn,
        time_control::TimeControl,
    },
    sim::Rng,
};

impl World {
    pub(super) fn new(setup: TableSetup) -> World {
        let mut rng = Rng::new(setup.seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let seats = setup.seats.map(|kind| match kind {
            SeatKind::Blind => SeatConfig::blind(shipped("pegged-line")),
            SeatKind::Sighted(SightedBoard::Dgt(c)) => SeatConfig::sighted(Some(shipped("dgt")), c),
            SeatKind::Sighted(SightedBoard::Manual) => {
                SeatConfig::sighted(None, Completion::ClockPress)
            }
        });
        let cfg = ArbiterConfig {
            rules: RulesConfig {
                time_control: Some(
                    "5400+30"
                        .parse::<TimeControl>()
                        .expect("a valid time control"),
                ),
                ..RulesConfig::default()
            },
            seats,
            guidance_repeat_ms: 8_000,
            say_own_move: true,
            correction_window_ms: 0,
        };
        let start = Chess::default();
        let physical = |sensing, sensors| Physical {
            board: start.board().clone(),
            view: start.board().clone(),
            sensing,
            sensors,
            connected: true,
            epoch: 0,
            line_free: 0,
            sweep_ms: 0,
            sweep_offset: 0,
            sampling: [false; 64],
        };
        let person = |color| Person {
            color,
            known: 0,
            busy: false,
            slip: None,
            told: 0,
            paused: false,
            defiant: false,
            press_again: false,
            awaiting_press: false,
            press_after_fix: false,
            reply_ahead: false,
            premove_decided: None,
        };
        // Drawn for every table, so that a seed draws the same people whatever its boards.
        let sweep_ms = rng.between(DGT_SWEEP_MS.0, DGT_SWEEP_MS.1);
        let sweep_offset = rng.below(sweep_ms);
        let boards = setup.seats.map(|kind| match kind {
            SeatKind::Blind => physical(Sensing::Occupancy, true),
            SeatKind::Sighted(board) => Physical {
                sweep_ms,
                sweep_offset,
                ..physical(Sensing::Identity, matches!(board, SightedBoard::Dgt(_)))
            },
        });
        World {
            arbiter: Arbiter::new(cfg, start.clone()),
            boards,
            people: ByColor::new_with(person),
            setup,
            rng,
            now: 0,
            seq: 0,
            agenda: BinaryHeap::new(),
            actions: Vec::new(),
            speech_free: ByColor::default(),
            trace: Vec::new(),
            inputs: 0,
            refusals: 0,
            counted: 0,
            last_progress: 0,
            failure: None,
            happened: Happened::default(),
            pausing: false,
            spin: (0, 0),
        }
    }

    pub(super) fn report(self) -> RunReport {
        RunReport {
            plies: self.arbiter.game().ply(),
            virtual_ms: self.now,
            inputs: self.inputs,
            refusals: self.refusals,
            trace: self.trace,
            failure: self.failure,
            happened: self.happened,
            setup: self.setup,
        }
    }

    pub(super) fn schedule(&mut self, at: Millis, action: Action) {
        self.seq += 1;
        let slot = self.actions.len();
        self.actions.push(Some(action));
        self.agenda
            .push(Reverse((at.max(self.now), self.seq, slot)));
    }

    pub(super) fn fail(&mut self, why: String) {
        if self.failure.is_none() {
            self.trace.push(format!("{:>8} FAILURE {why}", self.now));
            self.failure = Some(why);
        }
    }

    pub(super) fn finished(&self) -> bool {
        let game = self.arbiter.game();
        game.is_over() || game.ply() >= self.setup.script.len()
    }

    pub(super) fn play(&mut self) {
        self.input(Input::Start, false);
        while self.failure.is_none() && !self.finished() {
            let next_action = self.agenda.peek().map(|Reverse((t, _, _))| *t);
            let deadline = self.arbiter.next_deadline();
            let (t, tick) = match (next_action, deadline) {
                (Some(a), Some(d)) if d <= a => (d, true),
                (Some(a), _) => (a, false),
                (None, Some(d)) => (d, true),
                (None, None) => {
                    let why = format!(
                        "stuck at ply {}: nothing more can happen ({})",
                        self.arbiter.game().ply(),
                        self.state()
                    );
                    self.fail(why);
                    break;
                }
            };
            self.now = self.now.max(t);
            if self.now > self.last_progress + STALL_MS {
                let why = format!(
                    "stalled at ply {} for {} s ({})",
                    self.arbiter.game().ply(),
                    STALL_MS / 1000,
                    self.state()
                );
                self.fail(why);
                break;
            }
            if self.inputs > INPUT_LIMIT {
                self.fail(format!("more than {INPUT_LIMIT} inputs"));
                break;
            }
            if tick {
                if self.spin.0 == self.now {
                    self.spin.1 += 1;
                    if self.spin.1 > SPIN_LIMIT {
                        let why = format!("the arbiter's deadline {t} does not move: a busy loop");
                        self.fail(why);
                        break;
                    }
                } else {
                    self.spin = (self.now, 0);
                }
                self.input(Input::Tick, false);
            } else if let Some(Reverse((_, _, slot))) = self.agenda.pop()
                && let Some(action) = self.actions[slot].take()
            {
                self.perform(action);
            }
            self.poll_people();
        }
        if self.failure.is_none() {
            self.check_pgn();
        }
    }

    /// Where things stand, for a failure message.
    pub(super) fn state(&self) -> String {
        let a = &self.arbiter;
        let mode = |m: Mode| match m {
            Mode::Move => "move".to_string(),
            Mode::Execute(mv) => format!("execute {}", mv.to_uci(shakmaty::CastlingMode::Standard)),
            Mode::Await => "await".to_string(),
            Mode::Hold => "hold".to_string(),
        };
        let mut s = format!(
            "to move {}, clock {:?}, paused {}",
            a.game().to_move(),
            a.game().clock().and_then(|c| c.running()),
            a.game().clock().is_some_and(|c| c.is_paused()),
        );
        let names = a.config().names();
        for seat in self.setup.order() {
            if let Some(r) = a.board(seat) {
                s.push_str(&format!(
                    ", {} {} (shows expected: {})",
                    names.board(seat),
                    mode(r.mode()),
                    r.shows_expected()
                ));
            }
        }
        for p in self.people.iter() {
            s.push_str(&format!(
                "; {:?} knows {} busy {} slip {} paused {}",
                p.color,
                p.known,
                p.busy,
                p.slip.is_some(),
                p.paused
            ));
        }
        s
    }

    /// One input to the arbiter, with the invariants checked on what it did. `by_player`: a
    /// player's own action (a move on his board, his clock), whose refusal must be said.
    pub(super) fn input(&mut self, input: Input, by_player: bool) {
        self.inputs += 1;
        let label = label(&input);
        let effects = self.arbiter.handle(input, self.now);
        let refused: Vec<&String> = effects
            .iter()
            .filter_map(|e| match e {
                Effect::Refused(r) => Some(r),
                _ => None,
            })
            .collect();
        let said = effects.iter().any(|e| matches!(e, Effect::Say { .. }));
        if !refused.is_empty() {
            self.refusals += 1;
        }
        if by_player && !refused.is_empty() && !said {
            let why = format!("a player's action was refused in silence: {refused:?} ({label})");
            self.fail(why);
        }
        if label != "Tick" || !effects.is_empty() {
            let mut line = format!("{:>8} {label}", self.now);
            for e in &effects {
                line.push_str(&format!("\n{:>8}   -> {}", "", short(e)));
            }
            self.trace.push(line);
        }
        if self.setup.trace_sighted
            && let Some(r) = self
                .arbiter
                .config()
                .the_sighted()
                .and_then(|seat| self.arbiter.board(seat))
        {
            self.trace
                .push(format!("{:>8}   [sighted {r:?}]", self.now));
        }
        for effect in effects {
            self.effect(effect);
        }
        self.check_moves();
    }

    pub(super) fn effect(&mut self, effect: Effect) {
        match effect {
            Effect::Say {
                id,
                audience,
                announcement,
            } => {
                if let Announcement::Move(words) = &announcement {
                    self.check_announced(words);
                }
                self.check_ear(audience, &announcement);
                let slow = self.rng.chance(self.setup.behaviour.slow_speech);
                let length = if slow {
                    self.rng.between(400, 2500)
                } else {
                    self.rng.between(5, 60)
                };
                let channels: &[Color] = match audience {
                    Audience::Player(Color::White) => &[Color::White],
                    Audience::Player(Color::Black) => &[Color::Black],
                    Audience::Both => &Color::ALL,
                };
                let start = channels
                    .iter()
                    .map(|&c| self.speech_free[c])
                    .max()
                    .unwrap_or(0)
                    .max(self.now);
                let end = start + length;
                for &c in channels {
                    self.speech_free[c] = end;
                }
                self.schedule(
                    end,
                    Action::Said {
                        id,
                        audience,
                        announcement,
                    },
                );
            }
            Effect::RequestSnapshot { seat } => {
                let i = seat;
                if self.boards[i].sensors && self.boards[i].connected {
                    let epoch = self.boards[i].epoch;
                    self.schedule(
                        self.now + REQUEST_TURNAROUND_MS,
                        Action::Read { board: i, epoch },
                    );
                }
            }
            Effect::Analyse { ticket, query } => {
                // The search runs off the hub; here its verdict comes back at once.
                let mateability = crate::rules::dead::solve(&query);
                self.input(
                    Input::Rules(game::Input::Verdict {
                        ticket,
                        mateability,
                    }),
                    false,
                );
            }
            Effect::Touch { .. }
            | Effect::Note(_)
            | Effect::Refused(_)
            | Effect::RecordChanged
            | Effect::GameOver(_) => {}
        }
    }

    /// Every counted move is the script's next one.
    pub(super) fn check_moves(&mut self) {
        let moves: Vec<Move> = self.arbiter.game().moves().iter().map(|r| r.mv).collect();
        if moves.len() < self.counted {
            self.counted = moves.len();
        }
        while self.counted < moves.len() {
            let k = self.counted;
            if self.setup.script.get(k) != Some(&moves[k]) {
                let why = format!(
                    "ply {}: counted {:?}, but the player made {:?}",
                    k + 1,
                    moves[k],
                    self.setup.script.get(k)
                );
                self.fail(why);
                return;
            }
            self.counted += 1;
            self.last_progress = self.now;
        }
    }

    /// An announced move is the script's move at the game's ply or the one just counted.
    pub(super) fn check_announced(&mut self, words: &MoveWords) {
        let ply = self.arbiter.game().ply();
        let fits = [ply.saturating_sub(1), ply].into_iter().any(|k| {
            self.setup
                .script
                .get(k)
                .is_some_and(|&m| MoveWords::new(&self.position_at(k), m) == *words)
        });
        if !fits {
            let why = format!("announced a move nobody made at ply {ply}: {words:?}");
            self.fail(why);
        }
    }

    /// Nothing meant for one player reaches the other's ear: a move is announced to the player
    /// who did not make it (to both only when the envelope is opened), a move is said back to
    /// its mover only.
    pub(super) fn check_ear(&mut self, audience: Audience, announcement: &Announcement) {
        let wrong = match (announcement, audience) {
            (Announcement::Move(words), Audience::Player(to)) => to == words.side,
            (Announcement::OwnMove(words), Audience::Player(to)) => to != words.side,
            (Announcement::OwnMove(_), Audience::Both) => true,
            _ => false,
        };
        if wrong {
            let why = format!("said to the wrong ear: {announcement:?} to {audience:?}");
            self.fail(why);
        }
    }

    /// The position after the script's first `k` moves.
    pub(super) fn position_at(&self, k: usize) -> Chess {
        let mut pos = Chess::default();
        for &m in &self.setup.script[..k.min(self.setup.script.len())] {
            pos.play_unchecked(m);
        }
        pos
    }

    pub(super) fn check_pgn(&mut self) {
        let pgn = self.arbiter.game().to_pgn(&[]);
        let played: Vec<Move> = self.arbiter.game().moves().iter().map(|r| r.mv).collect();
        match read_pgn(pgn.as_bytes()) {
            Ok(games) if games.len() == 1 && games[0].moves == played => {}
            Ok(games) => {
                let why = format!(
                    "the PGN does not hold the moves played ({} games read): {pgn}",
                    games.len()
                );
                self.fail(why);
            }
            Err(e) => self.fail(format!("the PGN does not read back: {e}: {pgn}")),
        }
        let expected = &self.setup.script[..played.len()];
        if played != expected {
            self.fail("the moves played are not the script's".into());
        }
    }

    pub(super) fn perform(&mut self, action: Action) {
        match action {
            Action::Act { who, act } => self.act(who, act),
            Action::Sample { board, square } => {
                let b = &mut self.boards[board];
                b.sampling[usize::from(square)] = false;
                let (now, found) = (b.board.piece_at(square), b.view.piece_at(square));
                if !b.connected || now == found {
                    return;
                }
                let event = match now {
                    Some(piece) => SensorEvent::Place {
                        square,
                        piece: Some(piece),
                    },
                    None => SensorEvent::Lift { square },
                };
                apply(&mut b.view, &event);
                self.send(board, event, DGT_UPDATE_WIRE_MS);
            }
            Action::Read { board, epoch } => {
                let b = &self.boards[board];
                if epoch != b.epoch || !b.connected {
                    return;
                }
                let (sensed, wire) = match b.sensing {
                    Sensing::Identity => (Sensed::Pieces(b.view.clone()), DGT_DUMP_WIRE_MS),
                    Sensing::Occupancy => (Sensed::Occupancy(b.view.occupied()), LINE_WIRE_MS),
                };
                self.send(board, SensorEvent::Snapshot(sensed), wire);
            }
            Action::Deliver {
                board,
                epoch,
                event,
            } => {
                let b = &self.boards[board];
                if epoch != b.epoch || !b.connected {
                    return;
                }
                self.input(Input::Board { seat: board, event }, true);
            }
            Action::Said {
                id,
                audience,
                announcement,
            } => {
                self.input(Input::SpeechFinished { id }, false);
                for who in self.setup.order() {
                    if audience.includes(who) {
                        self.hear(who, &announcement);
                    }
                }
            }
            Action::Learn { who, ply } => {
                let reply_ahead = self.rng.chance(0.3);
                let p = &mut self.people[who];
                if p.known == ply {
                    p.known += 1;
                    p.reply_ahead = reply_ahead;
                }
            }
            Action::Staff(Staff::Pause) => {
                self.happened.pauses += 1;
                for who in self.setup.order() {
                    let defiant = self.rng.chance(self.setup.behaviour.move_while_paused);
                    self.people[who].defiant = defiant;
                }
                self.input(
                    Input::Rules(game::Input::Pause(game::PauseReason::Arbiter)),
                    false,
                );
                let resume = self.now + self.rng.between(1_000, 8_000);
                self.schedule(resume, Action::Staff(Staff::Resume));
            }
            Action::Staff(Staff::Resume) => {
                self.pausing = false;
                self.input(
                    Input::Rules(game::Input::Resume(game::PauseReason::Arbiter)),
                    false,
                );
            }
        }
    }
}

pub(super) fn short(e: &Effect) -> String {
    match e {
        Effect::Say {
            id,
            audience,
            announcement,
        } => format!("say #{id} to {audience:?}: {announcement:?}"),
        Effect::Analyse { ticket, .. } => format!("analyse #{ticket}"),
        Effect::GameOver(end) => format!("game over: {} ({:?})", end.outcome, end.reason),
        other => format!("{other:?}"),
    }
}

/// An input, short (a board reading as its squares).
pub(super) fn label(input: &Input) -> String {
    match input {
        Input::Board {
            seat,
            event: SensorEvent::Snapshot(Sensed::Pieces(b)),
        } => format!("{seat:?} reading {b}"),
        Input::Board {
            seat,
            event: SensorEvent::Snapshot(Sensed::Occupancy(bb)),
        } => format!("{seat:?} reading {:#x}", u64::from(*bb)),
        Input::Board { seat, event } => format!("{seat:?} {event:?}"),
        Input::Rules(game::Input::Verdict {
            ticket,
            mateability,
        }) => {
            format!("verdict #{ticket}: {mateability:?}")
        }
        other => format!("{other:?}"),
    }
}
