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
        let blind = self.blind_seats();
        let two_blind = blind.white && blind.black;
        let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "(no name given)".into());
        let mut lines = Vec::new();
        for color in Color::ALL {
            let who = if two_blind {
                "a blind player, on his own tactile board"
            } else if blind[color] {
                "the blind player, on the tactile board"
            } else if self.opponent.is_some() {
                "the training engine"
            } else {
                "the sighted player"
            };
            let player = name(color.fold_wb(&g.white, &g.black));
            lines.push(format!(
                "{}: {player} ({who})",
                color.fold_wb("White", "Black")
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
        let boards = self.boards_setup(origin)?;
        let seats = self.seat_boards();
        let two_blind = seats.white.blind && seats.black.blind;
        for seat in Color::ALL {
            let label = match (two_blind, seats[seat].blind) {
                (true, _) => format!("{seat}'s tactile board ({})", seats[seat].key),
                (false, true) => "tactile board".to_string(),
                (false, false) => "sighted board".to_string(),
            };
            lines.push(match &boards[seat] {
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
        let clock = Color::ALL.into_iter().find(|&seat| {
            !seats[seat].blind
                && matches!(&boards[seat], BoardSetup::Sensor { profile, .. } if profile.clock.attached)
        });
        if clock.is_some() {
            let (left, right) = match self.boards.clock_left.color() {
                Color::White => ("White", "Black"),
                Color::Black => ("Black", "White"),
            };
            lines.push(format!(
                "DGT clock on the sighted board, set by tactus: {left} on its left, {right} on its \
                 right (key boards.clock_left); each side of the lever is its player's press"
            ));
        }
        if two_blind {
            lines.push(
                "each player's move counts once it stands on his board and its announcement to \
                 the other has ended (F.3 c); the other executes it on his own board"
                    .into(),
            );
        } else if self.opponent.is_none() {
            lines.push(format!(
                "the sighted player's move counts {}",
                match self.completion() {
                    Completion::ClockPress => {
                        "when he stops his clock (a key, a pedal, the console's `press`)"
                    }
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
        let blind = self.blind_seats();
        let two_blind = blind.white && blind.black;
        if two_blind {
            let packs = v.packs(blind);
            for seat in Color::ALL {
                let own = seat.fold_wb(&v.white, &v.black).clone().unwrap_or_default();
                let mut said = vec![format!("voice pack {}", packs[seat])];
                said.push(speaker_words(v.speaker_of(seat, blind)).to_string());
                if let Some(device) = &own.device {
                    said.push(format!("on the device {device}"));
                }
                lines.push(format!("{seat} hears: {}", said.join(", ")));
            }
        } else {
            // Where each hears it: the devices the assistant tests with `tactus speak-test`.
            for (who, speaker, device) in [
                ("the blind player", v.speaker_blind, &v.device_blind),
                ("the sighted player", v.speaker_sighted, &v.device_sighted),
            ] {
                let mut said = Vec::new();
                if let Some(speaker) = speaker {
                    said.push(speaker_words(speaker).to_string());
                }
                if let Some(device) = device {
                    said.push(format!("on the device {device}"));
                }
                if !said.is_empty() {
                    lines.push(format!("speech for {who}: {}", said.join(", ")));
                }
            }
            if v.shared_device_channels {
                let side = |s: crate::speech::config::Side| match s {
                    crate::speech::config::Side::Left => "left",
                    crate::speech::config::Side::Right => "right",
                };
                lines.push(format!(
                    "one device for both: the blind player on the {} channel, the sighted \
                     player on the {}",
                    side(v.blind_channel),
                    side(v.blind_channel.other())
                ));
            }
        }
        lines.push(format!(
            "{} {} his own move said back",
            if two_blind {
                "each blind player"
            } else {
                "the blind player"
            },
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
        if g.correction_window_ms > 0 {
            lines.push(format!(
                "a slip of the tongue may be corrected for {} after the announcement (F.6)",
                tactus_core::rules::time_control::duration_words(g.correction_window_ms as i64)
            ));
        }
        // The configuration was checked when it was read.
        if let Ok(notations) = self.notations() {
            let words = |seat: Color| {
                notations[seat].map_or(
                    "every notation (a reading that is not one move is \
                     asked about when sealing)"
                        .to_string(),
                    |l| format!("{} letters", l.language),
                )
            };
            lines.push(format!(
                "sealed moves are read in: white's {}; black's {}",
                words(Color::White),
                words(Color::Black)
            ));
        }
        if !g.requests_off.is_empty() {
            let mut off: Vec<&str> = g.requests_off.iter().map(|r| r.name()).collect();
            off.sort_unstable();
            off.dedup();
            lines.push(format!(
                "requests switched off by the arbiter (12.3 a): {} (the console's `requests` \
                 switches them on)",
                off.join(", ")
            ));
        }
    }

    /// Where the games go, the console socket and the tactile board's buttons.
    fn describe_files_and_console(&self, lines: &mut Vec<String>) {
        lines.push(format!("games: {}", self.record_dir().display()));
        let why = if self.record.braille_profile.is_some() {
            "record.braille_profile"
        } else {
            "the blind player's language; record.braille_profile sets another"
        };
        let blind = self.blind_seats();
        let profiles = self.braille_profiles();
        if blind.white && blind.black {
            lines.push(format!(
                "Braille scores: white's profile {}, black's {} (each {why}); each player's \
                 also reads his scoresheet entered at the console and writes the envelope he seals",
                profiles.white, profiles.black
            ));
        } else {
            lines.push(format!(
                "Braille score: profile {} ({why})",
                self.braille_profile()
            ));
        }
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
        lines.push(match self.web.listen_addr("").ok().flatten() {
            Some(addr) if addr.ip().is_loopback() => format!(
                "page of the table: http://{addr}/ and its live PGN /game.pgn, on this computer \
                 only (key web.listen)"
            ),
            Some(addr) if addr.ip().is_unspecified() => format!(
                "page of the table: port {port} on every network of this computer, for the hall \
                 (http://<this computer's address>:{port}/), live PGN /game.pgn (key web.listen)",
                port = addr.port()
            ),
            Some(addr) => format!(
                "page of the table: http://{addr}/ for the hall's network, live PGN /game.pgn \
                 (key web.listen)"
            ),
            None => "page of the table: none; nothing listens on the network (key web.listen)"
                .to_string(),
        });
        if let Some(addr) = self.web.listen_addr("").ok().flatten() {
            if !addr.ip().is_loopback() {
                lines.push(
                    "the page is open to everyone on that network: anyone there can watch the \
                     game (read only; key web.listen)"
                        .to_string(),
                );
            }
            let mut names = vec![
                "localhost".to_string(),
                "its addresses".to_string(),
                match super::own_name() {
                    Some(own) => format!("this computer's name ({own}, {own}.local)"),
                    None => "this computer's name".to_string(),
                },
            ];
            names.extend(self.web.names.iter().cloned());
            lines.push(format!(
                "the page answers to {} only (key web.names); {}",
                names.join(", "),
                match &self.web.allow_origin {
                    None => "no other site may read it from a browser (key web.allow_origin)"
                        .to_string(),
                    Some(o) if o == "*" => {
                        "every other site may read it from a browser (key web.allow_origin)"
                            .to_string()
                    }
                    Some(o) => format!(
                        "no other site may read it from a browser but {o} (key web.allow_origin)"
                    ),
                }
            ));
            lines.push(super::limits_words());
        }
        if let Some(dir) = self.broadcast_dir() {
            lines.push(format!(
                "broadcast: games.pgn kept in {} after every move (key web.broadcast_dir)",
                dir.display()
            ));
        }
        let buttons = self.buttons();
        let seats = self.seat_boards();
        for seat in Color::ALL.into_iter().filter(|&c| seats[c].blind) {
            let said: Vec<String> = buttons[seat]
                .iter()
                .map(|(n, line)| format!("{n} asks {line}"))
                .collect();
            let whose = if seats.white.blind && seats.black.blind {
                format!("{seat}'s tactile board's buttons")
            } else {
                "tactile board's buttons".to_string()
            };
            lines.push(format!("{whose}: {}", said.join(", ")));
        }
    }
}

fn speaker_words(speaker: SpeakerKind) -> &'static str {
    match speaker {
        SpeakerKind::Clips => "spoken with the pack's recorded words",
        SpeakerKind::Tts => "spoken by the system's speech engine (the recorded words if it fails)",
        SpeakerKind::None => "not spoken (the transcript only)",
    }
}
