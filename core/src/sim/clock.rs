//! An emulated DGT 3000 as the board relays it: it takes the clock commands of
//! [`crate::board::dgt_clock`] (SetNRun, text, display end, version, beep), answers each with an
//! ACK (or a NACK for SetNRun outside its PC mode), runs its own times from the last SetNRun as
//! the real clock does, and reports them in BWTIME with the lever and the status bits.
//!
//! Its lever is a see-saw, as the clock is built: pressing one side puts it down and raises the
//! other; a side already down does not move. BWTIME's status bit 0x02 says the lever is high on
//! the right, that is the LEFT side is down (the left player pressed last), as recordings of
//! real boards show it (`reference/dgt-clock.md`).
//!
//! It is what the end-to-end tests put on the far side of a pseudo-terminal to check that the
//! physical clock shows the official one: its times come only from what it was sent and how much
//! time passed, never from tactus's state. Faults a real clock has can be switched on: not in PC
//! mode, ACKs lost, unplugged.

use crate::board::dgt::ClockMessage;
use crate::board::dgt_clock::{ClockAck, ClockCommand, ClockSide, TEXT_LEN};
use crate::rules::Millis;

/// A DGT 3000 on the board's clock socket.
#[derive(Debug, Clone)]
pub struct EmulatedClock {
    left_ms: Millis,
    right_ms: Millis,
    running: Option<ClockSide>,
    /// The game time `left_ms` and `right_ms` are true at.
    at: Millis,
    /// The side of the lever that is down (pressed last). It moves only by hand (a press, or
    /// the arbiter placing it before play), never by a command: a SetNRun sets the times and the
    /// running side, not the lever.
    down: ClockSide,
    /// What the display shows instead of the times.
    text: Option<[u8; TEXT_LEN]>,
    /// Bytes of a command not yet whole.
    pending: Vec<u8>,
    /// SetNRun is taken only in the clock's PC mode ("mode 23").
    pub pc_mode: bool,
    /// ACKs to lose on the way back (a line error).
    pub lose_acks: u32,
    /// The cable is out: nothing is answered, the board reports no clock.
    pub unplugged: bool,
    /// Every command taken, in order (for tests to read).
    pub log: Vec<(Millis, ClockCommand)>,
}

impl Default for EmulatedClock {
    fn default() -> Self {
        EmulatedClock::new()
    }
}

impl EmulatedClock {
    /// A clock switched on in its PC mode, both sides at zero and stopped.
    pub fn new() -> EmulatedClock {
        EmulatedClock {
            left_ms: 0,
            right_ms: 0,
            running: None,
            at: 0,
            down: ClockSide::Right,
            text: None,
            pending: Vec::new(),
            pc_mode: true,
            lose_acks: 0,
            unplugged: false,
            log: Vec::new(),
        }
    }

    /// Bytes the board relays to the clock; returns the ACKs the clock sends back.
    pub fn receive(&mut self, bytes: &[u8], now: Millis) -> Vec<ClockMessage> {
        self.pending.extend_from_slice(bytes);
        let mut answers = Vec::new();
        loop {
            // Anything before a command's first byte is not for the clock.
            match self.pending.iter().position(|&b| b == 0x2b) {
                Some(start) => {
                    self.pending.drain(..start);
                }
                None => {
                    self.pending.clear();
                    break;
                }
            }
            let Some((command, used)) = ClockCommand::decode(&self.pending) else {
                // Not whole yet, or not a command: wait for more, but never hold garbage long.
                if self.pending.len() > 32 {
                    self.pending.drain(..1);
                    continue;
                }
                break;
            };
            self.pending.drain(..used);
            if let Some(answer) = self.take(command, now) {
                answers.push(answer);
            }
        }
        answers
    }

    /// One command: done (or refused) and acknowledged, unless the cable is out or the ACK is
    /// lost.
    fn take(&mut self, command: ClockCommand, now: Millis) -> Option<ClockMessage> {
        if self.unplugged {
            return None;
        }
        let mut accepted = true;
        let mut data = [0, 0];
        match &command {
            ClockCommand::Version => data[0] = 0x21,
            ClockCommand::SetAndRun {
                left_s,
                right_s,
                running,
            } => {
                if self.pc_mode {
                    self.left_ms = Millis::from(*left_s) * 1000;
                    self.right_ms = Millis::from(*right_s) * 1000;
                    self.running = *running;
                    self.at = now;
                } else {
                    accepted = false;
                }
            }
            ClockCommand::Text { text, .. } => self.text = Some(*text),
            ClockCommand::DisplayEnd => self.text = None,
            ClockCommand::Beep { .. } => {}
        }
        self.log.push((now, command.clone()));
        if self.lose_acks > 0 {
            self.lose_acks -= 1;
            return None;
        }
        Some(ClockMessage::Ack {
            raw: ClockAck {
                accepted,
                command: command.code(),
                data,
            }
            .to_raw(),
        })
    }

    /// The times the display shows at `now` (left, right, in ms; the running side counts down
    /// from its last setting, stopping at zero).
    pub fn shows(&self, now: Millis) -> (Millis, Millis) {
        let spent = now.saturating_sub(self.at);
        match self.running {
            Some(ClockSide::Left) => (self.left_ms.saturating_sub(spent), self.right_ms),
            Some(ClockSide::Right) => (self.left_ms, self.right_ms.saturating_sub(spent)),
            None => (self.left_ms, self.right_ms),
        }
    }

    /// Which side counts down.
    pub fn running(&self) -> Option<ClockSide> {
        self.running
    }

    /// The text on the display, if one is shown.
    pub fn text(&self) -> Option<String> {
        self.text
            .map(|t| String::from_utf8_lossy(&t).trim_end().to_string())
    }

    /// The lever is high on the right: its left side is down (the left player pressed last).
    pub fn lever_right_high(&self) -> bool {
        self.down == ClockSide::Left
    }

    /// The side of the lever that is down.
    pub fn down(&self) -> ClockSide {
        self.down
    }

    /// A player presses one side of the lever (or the arbiter puts it down there before play):
    /// it goes down and the other side up. Returns whether the lever moved: a side already down
    /// does not. Under PC control the clock does not switch sides itself: the lever is reported
    /// and the computer decides.
    pub fn press(&mut self, side: ClockSide) -> bool {
        std::mem::replace(&mut self.down, side) != side
    }

    /// The BWTIME the board sends at `now` (every second in UPDATE mode, and on a lever change).
    pub fn reading(&self, now: Millis) -> ClockMessage {
        let (left_ms, right_ms) = self.shows(now);
        ClockMessage::Times {
            right_ms,
            left_ms,
            running: self.running.is_some() && !self.unplugged,
            lever_right_high: self.lever_right_high(),
            battery_low: false,
            no_clock: self.unplugged,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::dgt_clock::{ClockDriver, ClockFace, ClockNote};

    /// The driver and the clock, with `now` advanced in steps of `step` ms: every byte the
    /// driver writes reaches the clock at once and every answer comes back at once.
    fn run(
        driver: &mut ClockDriver,
        clock: &mut EmulatedClock,
        from: Millis,
        to: Millis,
    ) -> Vec<ClockNote> {
        let mut notes = Vec::new();
        let mut now = from;
        while now <= to {
            notes.extend(driver.tick(now));
            while let Some(bytes) = driver.poll_transmit(now) {
                for answer in clock.receive(&bytes, now) {
                    notes.extend(driver.received(&answer, now));
                }
            }
            if now.is_multiple_of(1000) {
                notes.extend(driver.received(&clock.reading(now), now));
            }
            now += 50;
        }
        notes
    }

    #[test]
    fn the_emulated_clock_runs_what_it_was_set_to() {
        let mut clock = EmulatedClock::new();
        let set = ClockCommand::SetAndRun {
            left_s: 60,
            right_s: 120,
            running: Some(ClockSide::Left),
        };
        let answers = clock.receive(&set.encode(), 1000);
        assert_eq!(answers.len(), 1);
        assert_eq!(clock.shows(11_000), (50_000, 120_000));
        // Split over two writes, with noise before it.
        let stop = ClockCommand::SetAndRun {
            left_s: 50,
            right_s: 120,
            running: None,
        }
        .encode();
        assert!(clock.receive(&[0x42, 0x00], 11_000).is_empty());
        assert!(clock.receive(&stop[..4], 11_000).is_empty());
        assert_eq!(clock.receive(&stop[4..], 11_000).len(), 1);
        assert_eq!(clock.shows(99_000), (50_000, 120_000));
        clock.receive(&ClockCommand::text("Nf3", 0).encode(), 99_000);
        assert_eq!(clock.text().as_deref(), Some("Nf3"));
        clock.receive(&ClockCommand::DisplayEnd.encode(), 99_500);
        assert_eq!(clock.text(), None);
    }

    #[test]
    fn the_driver_keeps_the_emulated_clock_within_a_second_of_the_official_one() {
        let mut driver = ClockDriver::new();
        let mut clock = EmulatedClock::new();
        let mut official = ClockFace {
            left_ms: 300_000,
            right_ms: 300_000,
            running: None,
            at: 0,
        };
        driver.set(official);
        run(&mut driver, &mut clock, 0, 1000);
        // Left runs 7.3 s, presses: +3 s increment, right runs 12.9 s, then a pause.
        official = ClockFace {
            running: Some(ClockSide::Left),
            at: 1000,
            ..official
        };
        driver.set(official);
        run(&mut driver, &mut clock, 1000, 8300);
        official = ClockFace {
            left_ms: official.at(8300).left_ms + 3000,
            running: Some(ClockSide::Right),
            at: 8300,
            ..official
        };
        driver.set(official);
        run(&mut driver, &mut clock, 8300, 21_200);
        official = ClockFace {
            running: None,
            ..official.at(21_200)
        };
        driver.set(official);
        // One ACK lost on the way: the driver sends it again and the clock still agrees.
        clock.lose_acks = 1;
        run(&mut driver, &mut clock, 21_200, 30_000);
        let (left, right) = clock.shows(30_000);
        let now = official.at(30_000);
        assert!(
            left.abs_diff(now.left_ms) <= 1000,
            "{left} vs {}",
            now.left_ms
        );
        assert!(
            right.abs_diff(now.right_ms) <= 1000,
            "{right} vs {}",
            now.right_ms
        );
        assert_eq!(clock.running(), None);
    }

    /// A real clock's lever moves only by hand. One that moved on the first SetNRun (the
    /// arbiter's placement, modelled at the start) changed after the host had read it, reported
    /// only with the next second's reading: a press nobody made.
    #[test]
    fn a_setting_never_moves_the_lever() {
        let mut clock = EmulatedClock::new();
        clock.press(ClockSide::Left);
        let pressed = clock.lever_right_high();
        for running in [Some(ClockSide::Left), Some(ClockSide::Right), None] {
            let set = ClockCommand::SetAndRun {
                left_s: 60,
                right_s: 60,
                running,
            };
            clock.receive(&set.encode(), 1000);
            assert_eq!(clock.lever_right_high(), pressed, "{running:?}");
        }
        let mut clock = EmulatedClock::new();
        let before = clock.lever_right_high();
        let start = ClockCommand::SetAndRun {
            left_s: 60,
            right_s: 60,
            running: Some(ClockSide::Left),
        };
        clock.receive(&start.encode(), 0);
        assert_eq!(
            clock.lever_right_high(),
            before,
            "the start moved the lever"
        );
    }

    #[test]
    fn a_clock_not_in_pc_mode_is_said_once_and_taken_over_when_switched() {
        let mut driver = ClockDriver::new();
        let mut clock = EmulatedClock::new();
        clock.pc_mode = false;
        driver.set(ClockFace {
            left_ms: 60_000,
            right_ms: 60_000,
            running: Some(ClockSide::Left),
            at: 0,
        });
        let notes = run(&mut driver, &mut clock, 0, 20_000);
        let refused = notes
            .iter()
            .filter(|n| **n == ClockNote::NotInPcMode)
            .count();
        assert_eq!(refused, 1, "{notes:?}");
        // Retries are spaced, not a flood.
        let sets = clock.log.iter().filter(|(_, c)| c.code() == 0x0a).count();
        assert!(sets <= 10, "{sets} SetNRun in 20 s");
        clock.pc_mode = true;
        run(&mut driver, &mut clock, 20_050, 30_000);
        let (left, _) = clock.shows(30_000);
        assert!(left.abs_diff(30_000) <= 1000, "{left}");
    }
}
