//! The table in words, as `tactus check-config` and `tactus run` print it: the players, the
//! event, the rules, the clock, the boards, the voice, the folders. No Debug names: every line
//! is for the organiser and the arbiter to read.

use anyhow::Result;
use shakmaty::Color;
use tactus_core::{arbiter::Completion, rules::Edition};

use super::{BoardSetup, Config, PortSetup, game::play_words};
use crate::speech::config::SpeakerKind;

impl Config {
    /// The table in words, as `tactus check-config` and `tactus run` print it: the players,
    /// the event, the rules, the clock, the boards, the voice, the folders. `voice_description`
    /// is the voice pack's own description, when it could be read.
    pub fn describe(&self, origin: &str, voice_description: Option<&str>) -> Result<Vec<String>> {
        let mut lines = self.describe_players();
        lines.push(self.describe_event());
        self.describe_rules(&mut lines)?;
        self.describe_boards(origin, &mut lines)?;
        self.describe_voice(voice_description, &mut lines);
        self.describe_files_and_console(&mut lines);
        Ok(lines)
    }

    /// Who plays which colour, and on what.
    fn describe_players(&self) -> Vec<String> {
        let g = &self.game;
        let blind = g.blind.color();
        let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "(no name given)".into());
        let mut lines = Vec::new();
        for color in [Color::White, Color::Black] {
            let who = if color == blind {
                "the blind player, on the tactile board"
            } else if self.opponent.is_some() {
                "the training engine"
            } else {
                "the sighted player"
            };
            let player = match color {
                Color::White => name(&g.white),
                Color::Black => name(&g.black),
            };
            lines.push(format!(
                "{}: {player} ({who})",
                if color == Color::White {
                    "White"
                } else {
                    "Black"
                }
            ));
        }
        lines
    }

    /// The event, its round and site.
    fn describe_event(&self) -> String {
        let g = &self.game;
        let mut event = vec![g.event.clone().unwrap_or_else(|| "no event named".into())];
        if let Some(round) = &g.round {
            event.push(format!("round {round}"));
        }
        if let Some(site) = g.site.as_ref().filter(|s| s.as_str() != "?") {
            event.push(format!("at {site}"));
        }
        format!("event: {}", event.join(", "))
    }

    /// The Laws in force and the time control (and the training engine).
    fn describe_rules(&self, lines: &mut Vec<String>) -> Result<()> {
        let rules = self.rules_config()?;
        lines.push(format!(
            "rules: the FIDE Laws of Chess, {} text; {}",
            match rules.edition {
                Edition::Fide2001 => "2001",
                Edition::Fide2009 => "2009",
            },
            play_words(rules.play, rules.edition)
        ));
        lines.push(match &rules.time_control {
            Some(tc) => format!("time control: {} ({tc})", tc.describe()),
            None => "time control: none (no clock)".into(),
        });
        if let Some(o) = &self.opponent {
            lines.push(o.describe());
        }
        lines.push(format!(
            "start: play and the clocks start {} (key game.start)",
            self.start_by().describe()
        ));
        Ok(())
    }

    /// Both boards and when the sighted player's move counts.
    fn describe_boards(&self, origin: &str, lines: &mut Vec<String>) -> Result<()> {
        for (label, board) in [
            ("tactile board", self.blind_board(origin)?),
            ("sighted board", self.sighted_board(origin)?),
        ] {
            lines.push(match board {
                BoardSetup::Manual if self.opponent.is_some() => {
                    format!("{label}: none, the engine's moves are entered at the console")
                }
                BoardSetup::Manual => {
                    format!("{label}: none, the assistant enters the moves at the console")
                }
                BoardSetup::Sensor { profile, port } => format!(
                    "{label}: {} on {}",
                    profile.name,
                    match port {
                        PortSetup::Sim => "a simulated board".to_string(),
                        PortSetup::Path(p) => p.display().to_string(),
                    }
                ),
            });
        }
        if let BoardSetup::Sensor { profile, .. } = self.sighted_board(origin)?
            && profile.clock.attached
        {
            let (left, right) = match self.boards.clock_left.color() {
                shakmaty::Color::White => ("White", "Black"),
                shakmaty::Color::Black => ("Black", "White"),
            };
            lines.push(format!(
                "DGT clock on the sighted board, set by tactus: {left} on its left, {right} on its \
                 right (key boards.clock_left); each side of the lever is its player's press"
            ));
        }
        if self.opponent.is_none() {
            lines.push(format!(
                "the sighted player's move counts {}",
                match self.completion() {
                    Completion::ClockPress => "when he stops his clock",
                    Completion::Settle => "when his board rests on the position after it",
                }
            ));
        }
        Ok(())
    }

    /// The voice pack, the speech and what the blind player hears.
    fn describe_voice(&self, voice_description: Option<&str>, lines: &mut Vec<String>) {
        let g = &self.game;
        let v = &self.voice;
        lines.push(format!(
            "voice pack: {}{}",
            v.voice,
            voice_description.map_or_else(String::new, |d| format!(", {d}")),
        ));
        lines.push(format!(
            "speech: {}, {}",
            match v.style {
                tactus_core::announce::voice::Style::San =>
                    "moves said short (Springer Felix drei)",
                tactus_core::announce::voice::Style::Long =>
                    "moves said from square to square (Springer Gustav eins Felix drei)",
            },
            speaker_words(v.speaker)
        ));
        for (who, speaker) in [
            ("the blind player", v.speaker_blind),
            ("the sighted player", v.speaker_sighted),
        ] {
            if let Some(speaker) = speaker {
                lines.push(format!("speech for {who}: {}", speaker_words(speaker)));
            }
        }
        lines.push(format!(
            "the blind player {} his own move said back",
            if g.say_own_move {
                "hears"
            } else {
                "does not hear"
            }
        ));
        lines.push(format!(
            "a board that differs is described again every {}",
            tactus_core::rules::time_control::duration_words(g.guidance_repeat_ms as i64)
        ));
    }

    /// Where the games go, the console socket and the tactile board's buttons.
    fn describe_files_and_console(&self, lines: &mut Vec<String>) {
        lines.push(format!("games: {}", self.record_dir().display()));
        lines.push(format!(
            "console: {} ({}), the arbiter's token in {}",
            self.socket_path().display(),
            match &self.console.group {
                Some(group) => format!("for the daemon's user and group {group}"),
                None => "for the daemon's user only".to_string(),
            },
            self.token_file().map_or_else(
                || "each game's folder (arbiter.token)".to_string(),
                |p| p.display().to_string()
            )
        ));
        let buttons: Vec<String> = self
            .buttons()
            .iter()
            .map(|(n, line)| format!("{n} asks {line}"))
            .collect();
        lines.push(format!("tactile board's buttons: {}", buttons.join(", ")));
    }
}

fn speaker_words(speaker: SpeakerKind) -> &'static str {
    match speaker {
        SpeakerKind::Clips => "spoken with the pack's recorded words",
        SpeakerKind::Tts => "spoken by the system's speech engine (the recorded words if it fails)",
        SpeakerKind::None => "not spoken (the transcript only)",
    }
}
