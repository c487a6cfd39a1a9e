//! What the people ask and press beside their moves: a blind player's requests (F.9 d) at his
//! keypad (now and then mistyped) and with his board's buttons, his assistant's questions at his
//! own console and those he passes on with `tell`, and the DGT clock's lever as people press
//! it: a see-saw, one side down and the other up, that reports which side is high. Drawn from
//! the table's second generator, so that the moves of every seed drawn before are as they were.

use shakmaty::{Color, Position};

use super::{Action, World, origin::Origin, people::Act, play::BUTTONS};
use crate::{console::Role, rules::Millis};

/// The requests a blind player types at his keypad, as his role writes them.
const REQUESTS: &[&str] = &[
    "count",
    "time",
    "last",
    "repeat",
    "turn",
    "moves 2",
    "moves all",
    "square e4",
    "rank 2",
    "material",
    "pieces mine",
    "stop",
];
/// Lines no command has, as fingers slip.
const TYPOS: &[&str] = &["zeti", "cuont", "tiem", "xyz", "lsat"];
/// The wire time of a DGT clock's report (BWTIME, 10 bytes at 9600 baud).
const LEVER_WIRE_MS: Millis = 11;

impl World {
    /// Whether `seat`'s player asks something now (his moment has come), and what.
    pub(super) fn maybe_ask(&mut self, seat: Color) {
        if !self.setup.is_blind(seat) || self.table.game().is_over() {
            return;
        }
        let asking = self.setup.behaviour.asking.clone();
        let due = *self.next_ask[seat]
            .get_or_insert_with(|| self.now + wait_for(&mut self.talk, asking.requests));
        if self.now >= due {
            self.next_ask[seat] = Some(self.now + wait_for(&mut self.talk, asking.requests));
            let act = if self.talk.chance(asking.buttons) {
                // Button 9 asks nothing: he hears so.
                let pick = self.talk.index(BUTTONS.len() + 1);
                Act::Button(BUTTONS.get(pick).map_or(9, |(n, _)| *n))
            } else if self.talk.chance(asking.typos) {
                Act::Keypad(TYPOS[self.talk.index(TYPOS.len())].to_string())
            } else {
                Act::Keypad(REQUESTS[self.talk.index(REQUESTS.len())].to_string())
            };
            let at = self.now + self.talk.between(0, 500);
            self.schedule(at, Action::Act { who: seat, act });
        }
        let due = *self
            .next_assist
            .get_or_insert_with(|| self.now + wait_for(&mut self.talk, asking.assistant));
        if self.now >= due {
            self.next_assist = Some(self.now + wait_for(&mut self.talk, asking.assistant));
            let line = match self.talk.index(3) {
                0 => "count",
                1 => "tell time",
                _ => "tell last",
            };
            let at = self.now + self.talk.between(0, 500);
            self.schedule(
                at,
                Action::Act {
                    who: seat,
                    act: Act::Assistant(line.to_string()),
                },
            );
        }
    }

    /// A line at `seat`'s keypad: his own, naming his seat where two blind players sit.
    pub(super) fn keypad(&mut self, seat: Color, line: &str) {
        if TYPOS.contains(&line) {
            self.happened.typos += 1;
        } else {
            self.happened.keypad_requests += 1;
        }
        let named = self.both_blind().then_some(seat);
        self.console(Role::Player, named, line, Origin::Asked(seat));
    }

    /// `seat`'s assistant's line: a question of his own is his (answered on his console
    /// only); one passed on with `tell` is the blind player's.
    pub(super) fn assistant(&mut self, seat: Color, line: &str) {
        self.happened.assistant_requests += 1;
        let named = self.both_blind().then_some(seat);
        let origin = if line.starts_with("tell") {
            Origin::Asked(seat)
        } else {
            Origin::Staff
        };
        self.console(Role::Assistant, named, line, origin);
    }

    /// A button press, counted.
    pub(super) fn button_pressed(&mut self) {
        self.happened.button_requests += 1;
    }

    fn both_blind(&self) -> bool {
        self.setup.is_blind(Color::White) && self.setup.is_blind(Color::Black)
    }

    /// Whether `who`'s side of the lever is down.
    fn his_side_down(&self, who: Color) -> bool {
        let left = self.setup.clock_left == Some(who);
        // High on the right: the left side is down.
        self.lever_right_high == left
    }

    /// The lever pressed on `who`'s side: it goes down, the other goes up, and the clock
    /// reports it over the board's line. A side down already moves nothing and reports nothing.
    fn press_side(&mut self, side: Color) -> bool {
        self.press_side_by(side, side)
    }

    /// The lever pressed on `side`'s side by `hand` (the sighted player presses the blind
    /// player's side when his own is down).
    fn press_side_by(&mut self, side: Color, hand: Color) -> bool {
        if self.his_side_down(side) {
            return false;
        }
        self.lever_right_high = self.setup.clock_left == Some(side);
        self.report_lever_by(Some(hand));
        true
    }

    /// The DGT clock reports its lever as it stands, over its board's line (a lever moved while
    /// the board was unplugged is reported once it is back: the clock reports every second).
    pub(super) fn report_lever(&mut self) {
        self.report_lever_by(None);
    }

    /// The clock's report of the lever moved by `by`'s hand (none: as it stands).
    fn report_lever_by(&mut self, by: Option<Color>) {
        let Some(board) = self.clock_seat() else {
            return;
        };
        let b = &mut self.boards[board];
        if !b.connected {
            return;
        }
        let at = b.line_free.max(self.now) + LEVER_WIRE_MS;
        b.line_free = at;
        let (epoch, right_high) = (b.epoch, self.lever_right_high);
        self.schedule(
            at,
            Action::Lever {
                board,
                epoch,
                right_high,
                by,
            },
        );
    }

    /// The sighted player presses his side of the lever to complete his move. If it is down
    /// already (he pressed it last, and the blind player's move counted without a press), it
    /// does not move: he feels it and presses the other side, as the table guide says.
    pub(super) fn press_lever(&mut self, who: Color) {
        self.happened.lever_presses += 1;
        if self.press_side(who) {
            self.note_press(who);
        } else {
            let at = self.now + self.talk.between(300, 1500);
            self.schedule(
                at,
                Action::Act {
                    who,
                    act: Act::PressOther,
                },
            );
        }
    }

    /// He presses the other side of the lever, his own being down; if that one is down too by
    /// now (the blind player pressed it meanwhile), his own has come up: he presses it.
    pub(super) fn press_other_side(&mut self, who: Color) {
        self.happened.other_side_presses += 1;
        if self.press_side_by(!who, who) || self.press_side(who) {
            self.note_press(who);
        }
    }

    /// The blind player presses his own side by habit (his move counts without it, F.3).
    pub(super) fn habit_press(&mut self, who: Color) {
        if self.press_side(who) {
            self.happened.habit_presses += 1;
        }
    }

    /// Whether the blind player presses his side after his move now, by habit.
    pub(super) fn habit(&mut self) -> bool {
        let p = self.setup.behaviour.asking.habit_press;
        self.setup.has_clock() && self.talk.chance(p)
    }

    /// A press of `who` that moved the lever: if his own move stands uncounted on his board, it
    /// must count by [`super::COUNT_AFTER_PRESS_MS`]; and he looks at the clock a few seconds
    /// later: his time still running, he presses again (the guide says so).
    fn note_press(&mut self, who: Color) {
        let Some(last) = self.uncounted_own_move(who) else {
            return;
        };
        if self.pressed.is_none() {
            self.pressed = Some((last, self.now));
        }
        let at = self.now + self.talk.between(4_000, 8_000);
        self.schedule(
            at,
            Action::Act {
                who,
                act: Act::PressIfUncounted(last),
            },
        );
    }

    /// His own last move, if it stands on his board and has not counted.
    fn uncounted_own_move(&self, who: Color) -> Option<usize> {
        let known = self.people[who].known;
        let last = known.checked_sub(1)?;
        let his = self.position_at(last).turn() == who;
        let stands = self.boards[who].board == *self.position_at(known).board();
        (his && stands && self.table.game().ply() <= last).then_some(last)
    }

    /// He looks at the clock: his move `k` has not counted and still stands: he presses again.
    pub(super) fn press_if_uncounted(&mut self, who: Color, k: usize) {
        if self.uncounted_own_move(who) == Some(k) && !self.table.game().is_over() {
            self.press_lever(who);
        }
    }
}

/// How long until the next request, for `per_minute` requests a minute on average (none: never
/// in a game's time).
fn wait_for(rng: &mut crate::sim::Rng, per_minute: f64) -> Millis {
    if per_minute <= 0.0 {
        return Millis::MAX / 4;
    }
    let mean = 60_000.0 / per_minute;
    // Between a fifth of the mean and twice it.
    (mean * (0.2 + 1.8 * rng.unit())) as Millis
}
