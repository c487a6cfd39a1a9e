//! Playing a table: setting up the world from its setup, the agenda on virtual time, the inputs
//! to the pure table as the hub hands them over (through the intake, as a console's command, as
//! the lever's reading) and its effects, and the checks of what must always hold at a table
//! (the script's moves only, no stall, every refusal said, what a seat asks reaches only that
//! seat, nothing F.9 d reserves said unasked, the PGN).

use std::{
    cmp::Reverse,
    collections::{BTreeMap, BTreeSet, BinaryHeap},
};

use shakmaty::{ByColor, Chess, Color, Move, Position};

use super::{
    Action, COUNT_AFTER_PRESS_MS, DGT_DUMP_WIRE_MS, DGT_SWEEP_MS, DGT_UPDATE_WIRE_MS, INPUT_LIMIT,
    LINE_WIRE_MS, REQUEST_TURNAROUND_MS, SPIN_LIMIT, STALL_MS, Trace, Traced, Verdicts, World,
    boards::{Physical, apply},
    origin::Origin,
    people::{Person, Staff},
    setup::{Happened, RunReport, SeatKind, SightedBoard, TableSetup, shipped},
};
use crate::{
    announce::{Announcement, Audience, MoveWords, Wording, voice::Style, voice::VoicePack},
    arbiter::{Arbiter, ArbiterConfig, Completion, SeatConfig},
    board::{
        Sensed, Sensing, SensorEvent, dgt::ClockMessage, recognize::Mode, session::LinkCommand,
        session::LinkEvent,
    },
    console::{self, Role, wire::End},
    rules::{Millis, game::RulesConfig, pgn::read_pgn, time_control::TimeControl},
    sim::Rng,
    table::{
        Admission, ClockSeat, OWN_SPEECH_BASE, Table, TableEffect, TableInput, TableParts,
        TableSettings, Views,
    },
};

/// What every table is built with, made once: the shipped boards' timing, the voice packs, the
/// Braille profile (each read from its text).
struct Fixed {
    pegged: crate::board::recognize::RecognizerConfig,
    dgt: crate::board::recognize::RecognizerConfig,
    german: Wording,
    english: Wording,
    braille: crate::record::braille::Profile,
}

impl Fixed {
    fn get() -> &'static Fixed {
        static FIXED: std::sync::OnceLock<Fixed> = std::sync::OnceLock::new();
        FIXED.get_or_init(|| {
            let pack = |name: &str| {
                Wording::new(
                    VoicePack::builtin(name).expect("a built-in pack"),
                    Style::San,
                )
            };
            Fixed {
                pegged: shipped("pegged-line"),
                dgt: shipped("dgt"),
                german: pack("de-fide"),
                english: pack("en"),
                braille: crate::record::braille::Profile::named(
                    crate::record::braille::DEFAULT_PROFILE,
                )
                .expect("the default Braille profile"),
            }
        })
    }
}

/// The buttons of each blind player's board, as the table is configured.
pub(super) const BUTTONS: [(u8, &str); 4] = [(1, "time"), (2, "last"), (3, "count"), (4, "repeat")];

impl World {
    pub(super) fn new(setup: TableSetup) -> World {
        let mut rng = Rng::new(setup.seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let talk = Rng::new(setup.seed ^ 0x5441_4c4b_2121_2121);
        let fixed = Fixed::get();
        let seats = setup.seats.map(|kind| match kind {
            SeatKind::Blind => SeatConfig::blind(fixed.pegged),
            SeatKind::Sighted(SightedBoard::Dgt(c)) => SeatConfig::sighted(Some(fixed.dgt), c),
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
            guided: 0,
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
        let sensors = ByColor::new_with(|seat| boards[seat].sensors);
        let sighted = Color::ALL.into_iter().find(|&c| !setup.is_blind(c));
        let buttons: BTreeMap<u8, String> = BUTTONS
            .iter()
            .map(|(n, request)| (*n, request.to_string()))
            .collect();
        let settings = TableSettings {
            links: sensors,
            sensors,
            clock: setup.clock_left.zip(sighted).map(|(left, seat)| ClockSeat {
                seat,
                left,
                lever_completes_move: setup.presses(seat),
            }),
            start_by_boards: false,
            intake_speed: ByColor::new_with(|_| 1.0),
            buttons: ByColor::new_with(|seat| {
                if setup.is_blind(seat) {
                    buttons.clone()
                } else {
                    BTreeMap::new()
                }
            }),
            training: false,
        };
        // Two blind players may hear two languages (a German and an English pack).
        let table = Table::new(TableParts {
            arbiter: Arbiter::new(cfg, start.clone()),
            settings,
            tags: Vec::new(),
            wording: ByColor {
                white: fixed.german.clone(),
                black: if setup.seed.is_multiple_of(2) {
                    fixed.german.clone()
                } else {
                    fixed.english.clone()
                },
            },
            braille: ByColor::new_with(|_| fixed.braille.clone()),
            requests_off: BTreeSet::new(),
        });
        let full_trace = setup.full_trace;
        let mut positions = vec![start.clone()];
        for &m in &setup.script {
            let mut next = positions.last().expect("the start").clone();
            next.play_unchecked(m);
            positions.push(next);
        }
        World {
            table,
            positions,
            verdicts: Verdicts::default(),
            boards,
            people: ByColor::new_with(person),
            // As the arbiter left it: down on the side of the player whose time does not run
            // first (White moves first), high on White's.
            lever_right_high: setup.clock_left == Some(Color::Black),
            pressed: None,
            silenced: BTreeSet::new(),
            next_ask: ByColor::default(),
            next_assist: None,
            setup,
            rng,
            talk,
            now: 0,
            seq: 0,
            agenda: BinaryHeap::new(),
            actions: Vec::new(),
            speech_free: ByColor::default(),
            trace: Trace::new(full_trace),
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
            plies: self.table.game().ply(),
            virtual_ms: self.now,
            inputs: self.inputs,
            refusals: self.refusals,
            trace: self.trace.lines(),
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
            self.trace
                .push(Traced::Line(format!("{:>8} FAILURE {why}", self.now)));
            self.failure = Some(why);
        }
    }

    pub(super) fn finished(&self) -> bool {
        let game = self.table.game();
        game.is_over() || game.ply() >= self.setup.script.len()
    }

    /// The boards connect and are read, the DGT clock reports its lever, and the arbiter
    /// starts play at his console once every board shows the position.
    fn begin(&mut self) {
        for seat in self.setup.order() {
            if !self.boards[seat].sensors {
                continue;
            }
            let connected = LinkEvent::Connected {
                info: "simulated".into(),
            };
            self.input(
                TableInput::Link {
                    seat,
                    event: connected,
                },
                Origin::World,
            );
            let b = &self.boards[seat];
            let reading = match b.sensing {
                Sensing::Identity => Sensed::Pieces(b.view.clone()),
                Sensing::Occupancy => Sensed::Occupancy(b.view.occupied()),
            };
            let event = LinkEvent::Sensor(SensorEvent::Snapshot(reading));
            self.input(TableInput::Link { seat, event }, Origin::World);
        }
        if let Some(seat) = self.clock_seat() {
            let right_high = self.lever_right_high;
            self.input(
                TableInput::Link {
                    seat,
                    event: lever(right_high),
                },
                Origin::World,
            );
        }
        self.console(Role::Arbiter, None, "start", Origin::Staff);
    }

    pub(super) fn play(&mut self) {
        self.begin();
        while self.failure.is_none() && !self.finished() {
            let next_action = self.agenda.peek().map(|Reverse((t, _, _))| *t);
            let deadline = self.table.next_deadline();
            let (t, tick) = match (next_action, deadline) {
                (Some(a), Some(d)) if d <= a => (d, true),
                (Some(a), _) => (a, false),
                (None, Some(d)) => (d, true),
                (None, None) => {
                    let why = format!(
                        "stuck at ply {}: nothing more can happen ({})",
                        self.table.game().ply(),
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
                    self.table.game().ply(),
                    STALL_MS / 1000,
                    self.state()
                );
                self.fail(why);
                break;
            }
            if let Some((k, at)) = self.pressed
                && self.now > at + COUNT_AFTER_PRESS_MS
            {
                let why = format!(
                    "ply {}: the sighted player's move stood on his board and he pressed the \
                     clock's lever {} s ago, but it has not counted (lever high on the {}; {})",
                    k + 1,
                    COUNT_AFTER_PRESS_MS / 1000,
                    if self.lever_right_high {
                        "right"
                    } else {
                        "left"
                    },
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
                        let why = format!("the table's deadline {t} does not move: a busy loop");
                        self.fail(why);
                        break;
                    }
                } else {
                    self.spin = (self.now, 0);
                }
                self.input(TableInput::Tick, Origin::World);
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
        let a = self.table.arbiter();
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

    /// The seat whose board carries the DGT clock, if one stands on the table.
    pub(super) fn clock_seat(&self) -> Option<Color> {
        self.table.settings().clock.map(|c| c.seat)
    }

    /// A console's line in `role`, speaking for `seat`: parsed as its session parses it (a line
    /// it refuses at a player's keypad is handed over as refused), then handed to the table.
    pub(super) fn console(
        &mut self,
        role: Role,
        seat: Option<Color>,
        line: &str,
        origin: Origin,
    ) -> Option<crate::console::wire::Reply> {
        let input = match console::parse(line, role) {
            Ok(command) => TableInput::Console {
                conn: 1,
                role,
                seat,
                command,
            },
            Err(error) if role == Role::Player => TableInput::keypad(1, seat, &error),
            Err(error) => {
                self.fail(format!("the staff's line {line:?} does not read: {error}"));
                return None;
            }
        };
        self.input(input, origin)
    }

    /// One input to the table (through its intake, as the hub hands it over), with the
    /// invariants checked on what it did. Returns the reply to a console's command.
    pub(super) fn input(
        &mut self,
        input: TableInput,
        origin: Origin,
    ) -> Option<crate::console::wire::Reply> {
        self.inputs += 1;
        let input = match self.table.admit(input, self.now) {
            Admission::Take(input) => input,
            Admission::Drop(_) => return None,
        };
        let traced = (!matches!(input, TableInput::Tick)).then(|| input.clone());
        let effects = self.table.handle(input, self.now);
        let refused: Vec<&String> = effects
            .iter()
            .filter_map(|e| match e {
                TableEffect::Transcript(text) => text.strip_prefix("refused: ").map(|_| text),
                _ => None,
            })
            .collect();
        let said = effects.iter().any(|e| matches!(e, TableEffect::Say { .. }));
        let reply = effects.iter().find_map(|e| match e {
            TableEffect::Reply { reply, .. } => Some(reply.clone()),
            _ => None,
        });
        let reply_refused = reply
            .as_ref()
            .is_some_and(|r| matches!(r.end, End::Error(_)));
        if !refused.is_empty() || reply_refused {
            self.refusals += 1;
        }
        if let Origin::Lever(hand) = origin
            && self.setup.is_blind(hand)
            && !refused.is_empty()
        {
            // His move counts without it (F.3): his press is nobody's to be told off for (a
            // move of the sighted player's standing on his board may count by it).
            let why =
                format!("the blind player's press of the clock's lever was refused: {effects:?}");
            self.fail(why);
        }
        let players = matches!(origin, Origin::Player | Origin::Asked(_))
            || matches!(origin, Origin::Lever(hand) if !self.setup.is_blind(hand));
        if players && (!refused.is_empty() || reply_refused) && !said {
            let why = format!(
                "a player's action was refused in silence: {refused:?} {reply:?} ({})",
                traced.as_ref().map_or("Tick".into(), label)
            );
            self.fail(why);
        }
        self.check_privacy(origin, &effects);
        self.check_reserved(origin, &effects);
        if traced.is_some() || !effects.is_empty() {
            self.trace.push(Traced::Input {
                t: self.now,
                input: traced,
                effects: effects.clone(),
            });
        }
        if self.setup.trace_sighted
            && let Some(r) = self
                .table
                .arbiter()
                .config()
                .the_sighted()
                .and_then(|seat| self.table.arbiter().board(seat))
        {
            let line = format!("{:>8}   [sighted {r:?}]", self.now);
            self.trace.push(Traced::Line(line));
        }
        for effect in effects {
            self.effect(effect);
        }
        self.check_moves();
        reply
    }

    /// F.9 d: what a seat asks reaches only that seat. Its answer is said into his ear alone,
    /// and shown on his keypad and the staff's consoles, never on the other player's keypad nor
    /// to every console.
    fn check_privacy(&mut self, origin: Origin, effects: &[TableEffect]) {
        let Origin::Asked(seat) = origin else {
            return;
        };
        for effect in effects {
            let leak = match effect {
                TableEffect::Say { audience, .. } => *audience != Audience::Player(seat),
                TableEffect::Broadcast(b) => {
                    b.to == Views::Everyone || b.to.reach(Role::Player, Some(!seat))
                }
                _ => false,
            };
            if leak {
                let why = format!("{seat}'s request reached beyond his seat: {effect:?}");
                self.fail(why);
                return;
            }
        }
    }

    /// F.9 d: the count of moves and the time used are told only on request, and only to the
    /// player who asked.
    fn check_reserved(&mut self, origin: Origin, effects: &[TableEffect]) {
        for effect in effects {
            if let TableEffect::Say {
                audience,
                announcement:
                    announcement @ (Announcement::MovesCompleted { .. } | Announcement::Times { .. }),
                ..
            } = effect
                && !matches!(audience, Audience::Player(seat) if origin == Origin::Asked(*seat))
            {
                let why = format!("said unasked (F.9 d): {announcement:?} to {audience:?}");
                self.fail(why);
                return;
            }
        }
    }

    pub(super) fn effect(&mut self, effect: TableEffect) {
        match effect {
            TableEffect::Say {
                id,
                audience,
                announcement,
                ..
            } => {
                // The game's announcements (a reply to a request may say any move of the game).
                if id < OWN_SPEECH_BASE {
                    if let Announcement::Move(words) = &announcement {
                        self.check_announced(words);
                    }
                    self.check_ear(audience, &announcement);
                }
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
            TableEffect::Silence { .. } => {
                // What is being said to him of his replies ends cut (the game's is never cut:
                // the table asks for silence only when none of it is being said).
                let pending: Vec<u64> = self
                    .actions
                    .iter()
                    .flatten()
                    .filter_map(|a| match a {
                        Action::Said { id, .. } if *id >= OWN_SPEECH_BASE => Some(*id),
                        _ => None,
                    })
                    .collect();
                self.silenced.extend(pending);
            }
            TableEffect::Link {
                seat,
                command: LinkCommand::RequestSnapshot,
            } => {
                let i = seat;
                if self.boards[i].sensors && self.boards[i].connected {
                    let epoch = self.boards[i].epoch;
                    self.schedule(
                        self.now + REQUEST_TURNAROUND_MS,
                        Action::Read { board: i, epoch },
                    );
                }
            }
            TableEffect::Analyse { ticket, query } => {
                // The search runs off the hub; here its verdict comes back at once (from the
                // verdicts of the thread's tables before, where the position came up already).
                let mateability = self.verdicts.solve(&query);
                self.input(
                    TableInput::Verdict {
                        ticket,
                        mateability,
                    },
                    Origin::World,
                );
            }
            TableEffect::Resubmit(input) => {
                self.input(input, Origin::World);
            }
            TableEffect::Link { .. }
            | TableEffect::Engine(_)
            | TableEffect::Reply { .. }
            | TableEffect::Broadcast(_)
            | TableEffect::Note { .. }
            | TableEffect::Transcript(_)
            | TableEffect::Touch { .. }
            | TableEffect::Asked(_)
            | TableEffect::RecordChanged
            | TableEffect::GameOver(_) => {}
        }
    }

    /// Every counted move is the script's next one.
    pub(super) fn check_moves(&mut self) {
        let moves: Vec<Move> = self.table.game().moves().iter().map(|r| r.mv).collect();
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
            if self
                .pressed
                .is_some_and(|(pressed, _)| pressed < self.counted)
            {
                self.pressed = None;
            }
        }
    }

    /// An announced move is the script's move at the game's ply or the one just counted.
    pub(super) fn check_announced(&mut self, words: &MoveWords) {
        let ply = self.table.game().ply();
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
        self.positions[k.min(self.setup.script.len())].clone()
    }

    pub(super) fn check_pgn(&mut self) {
        let pgn = self.table.game().to_pgn(&[]);
        let played: Vec<Move> = self.table.game().moves().iter().map(|r| r.mv).collect();
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
                let event = LinkEvent::Sensor(event);
                self.input(TableInput::Link { seat: board, event }, Origin::Player);
            }
            Action::Lever {
                board,
                epoch,
                right_high,
                by,
            } => {
                let b = &self.boards[board];
                if epoch != b.epoch || !b.connected {
                    return;
                }
                let event = lever(right_high);
                let origin = by.map_or(Origin::World, Origin::Lever);
                self.input(TableInput::Link { seat: board, event }, origin);
            }
            Action::Said {
                id,
                audience,
                announcement,
            } => {
                let cut = self.silenced.remove(&id);
                self.input(TableInput::SpeechFinished { id, cut }, Origin::World);
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
                self.console(Role::Arbiter, None, "pause", Origin::Staff);
                let resume = self.now + self.rng.between(1_000, 8_000);
                self.schedule(resume, Action::Staff(Staff::Resume));
            }
            Action::Staff(Staff::Resume) => {
                self.pausing = false;
                self.console(Role::Arbiter, None, "resume", Origin::Staff);
            }
        }
    }
}

/// The DGT clock's report of its lever (its times are the table's: not read here).
pub(super) fn lever(right_high: bool) -> LinkEvent {
    LinkEvent::Clock(ClockMessage::Times {
        right_ms: 0,
        left_ms: 0,
        running: true,
        lever_right_high: right_high,
        battery_low: false,
        no_clock: false,
    })
}

pub(super) fn short(e: &TableEffect) -> String {
    match e {
        TableEffect::Say {
            id,
            audience,
            announcement,
            ..
        } => format!("say #{id} to {audience:?}: {announcement:?}"),
        TableEffect::Analyse { ticket, .. } => format!("analyse #{ticket}"),
        TableEffect::GameOver(end) => format!("game over: {} ({:?})", end.outcome, end.reason),
        other => format!("{other:?}"),
    }
}

/// An input, short (a board reading as its squares).
pub(super) fn label(input: &TableInput) -> String {
    match input {
        TableInput::Link {
            seat,
            event: LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Pieces(b))),
        } => format!("{seat:?} reading {b}"),
        TableInput::Link {
            seat,
            event: LinkEvent::Sensor(SensorEvent::Snapshot(Sensed::Occupancy(bb))),
        } => format!("{seat:?} reading {:#x}", u64::from(*bb)),
        TableInput::Link {
            seat,
            event: LinkEvent::Sensor(event),
        } => format!("{seat:?} {event:?}"),
        TableInput::Link {
            seat,
            event:
                LinkEvent::Clock(ClockMessage::Times {
                    lever_right_high, ..
                }),
        } => format!(
            "{seat:?} lever high on the {}",
            if *lever_right_high { "right" } else { "left" }
        ),
        TableInput::Verdict {
            ticket,
            mateability,
        } => format!("verdict #{ticket}: {mateability:?}"),
        TableInput::Console {
            role,
            seat,
            command,
            ..
        } => format!("{role} console ({seat:?}): {command:?}"),
        other => format!("{other:?}"),
    }
}
