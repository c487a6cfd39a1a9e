//! `[boards.blind]` and `[boards.sighted]`: each board's profile (built in or a file), its port
//! (a serial port or `sim`), when the sighted player's move counts, the blind board's buttons,
//! which player sits on the DGT clock's left (`[boards] clock_left`); and the board as the daemon
//! sets it up ([`BoardSetup`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use tactus_core::{
    arbiter::Completion,
    board::profile::{Profile, ProfileSet},
};

use super::paths::resolve;

/// The `port` value that asks for a built-in board simulator on a real pseudo-terminal.
pub const SIM_PORT: &str = "sim";
/// The `profile` value of a sighted board without sensors (moves entered at the console).
pub const MANUAL_PROFILE: &str = "manual";

/// `[boards]`: the blind player's board and the sighted player's board.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardsSection {
    #[serde(default = "BoardSection::default_blind")]
    pub blind: BoardSection,
    #[serde(default = "BoardSection::default_sighted")]
    pub sighted: BoardSection,
    /// A DGT clock on the sighted board: the colour of the player on the clock's left, as the
    /// arbiter placed it ("white", the default, or "black"). Its lever is that player's press.
    #[serde(default)]
    pub clock_left: super::SideName,
}

impl Default for BoardsSection {
    fn default() -> Self {
        BoardsSection {
            blind: BoardSection::default_blind(),
            sighted: BoardSection::default_sighted(),
            clock_left: super::SideName::White,
        }
    }
}

/// When the sighted player's move counts as completed, as the file writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompletionName {
    /// He stops his clock: a key or pedal, the console's `press`, a DGT clock lever.
    Press,
    /// His board rests on the position after a legal move (boards without a clock button).
    Settle,
}

/// The buttons of a pegged board with four keys, when the file names none: the requests a player
/// makes most (F.9 d).
fn default_buttons() -> std::collections::BTreeMap<String, String> {
    [
        ("1", "time"),
        ("2", "last"),
        ("3", "count"),
        ("4", "repeat"),
    ]
    .into_iter()
    .map(|(n, line)| (n.to_string(), line.to_string()))
    .collect()
}

/// `[boards.blind]` or `[boards.sighted]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSection {
    /// A built-in profile name (`pegged-line`, `dgt`), a profile file (a path ending in `.toml`),
    /// or `manual` (sighted board only: no sensors, moves entered at the console).
    pub profile: String,
    /// The serial port (prefer `/dev/serial/by-id/...`), or `sim` for a built-in simulator on a
    /// pseudo-terminal. Not needed with `profile = "manual"`.
    pub port: Option<String>,
    /// Sighted board only: "press" or "settle" (default: "settle" for a board with sensors, the
    /// console's `press` for a manual one).
    pub completion: Option<CompletionName>,
    /// Blind board only: what its buttons (or keypad) ask, by button number: a request of the
    /// blind player as the console writes it (`"time"`, `"t"`, `"moves 4"`, `"rp"`). Absent:
    /// 1 time, 2 last, 3 count, 4 repeat.
    #[serde(default)]
    pub buttons: Option<std::collections::BTreeMap<String, String>>,
}

impl BoardSection {
    fn default_blind() -> BoardSection {
        BoardSection {
            profile: "pegged-line".into(),
            port: Some(SIM_PORT.into()),
            completion: None,
            buttons: None,
        }
    }
    fn default_sighted() -> BoardSection {
        BoardSection {
            profile: "dgt".into(),
            port: Some(SIM_PORT.into()),
            completion: Some(CompletionName::Settle),
            buttons: None,
        }
    }

    /// Whether this board has no sensors.
    pub fn is_manual(&self) -> bool {
        self.profile == MANUAL_PROFILE
    }

    /// Whether the port is a built-in simulator.
    pub fn is_sim(&self) -> bool {
        self.port.as_deref() == Some(SIM_PORT)
    }
}

impl Default for BoardSection {
    fn default() -> Self {
        BoardSection::default_blind()
    }
}

/// A board as the daemon sets it up.
#[derive(Debug, Clone)]
pub enum BoardSetup {
    /// No sensors (sighted board only): moves are entered at the console.
    Manual,
    Sensor {
        profile: Profile,
        port: PortSetup,
    },
}

/// Where a board's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSetup {
    /// A real serial port.
    Path(PathBuf),
    /// A built-in simulator on a pseudo-terminal.
    Sim,
}

impl BoardsSection {
    /// The blind board's buttons: number -> console line (checked when the file was read).
    pub fn buttons(&self) -> std::collections::BTreeMap<u8, String> {
        self.blind_buttons()
            .iter()
            .filter_map(|(n, line)| Some((n.parse().ok()?, line.clone())))
            .collect()
    }

    fn blind_buttons(&self) -> std::collections::BTreeMap<String, String> {
        self.blind.buttons.clone().unwrap_or_else(default_buttons)
    }

    /// The boards' buttons (the blind player's requests only), profiles and completion settings.
    pub fn check(&self, origin: &str) -> Result<()> {
        for (number, line) in &self.blind_buttons() {
            if !number.parse::<u8>().is_ok_and(|n| n >= 1) {
                bail!(
                    "{origin}: boards.blind.buttons: \"{number}\" is not a button number; buttons \
                     are numbered 1 to 255"
                );
            }
            // A button is the blind player's own keypad: his requests only.
            match tactus_core::console::parse(line, tactus_core::console::Role::Player) {
                Ok(
                    tactus_core::console::Command::Request(_)
                    | tactus_core::console::Command::Training(_),
                ) => {}
                Ok(_) => bail!(
                    "{origin}: boards.blind.buttons.{number} = \"{line}\": a button asks one of \
                     the blind player's requests ({}), or in training hint, eval, takeback or \
                     review",
                    tactus_core::console::request_names().join(", ")
                ),
                Err(e) => bail!("{origin}: boards.blind.buttons.{number} = \"{line}\": {e}"),
            }
        }
        if self.sighted.buttons.is_some() {
            bail!(
                "{origin}: boards.sighted.buttons: only the blind player's board has request \
                 buttons"
            );
        }
        let blind = &self.blind;
        if blind.is_manual() {
            bail!(
                "{origin}: boards.blind.profile = \"manual\": the blind player's board needs sensors; \
                 name its profile (pegged-line, dgt or a profile file)"
            );
        }
        if blind.completion.is_some() {
            bail!(
                "{origin}: boards.blind.completion: only the sighted board has a completion setting \
                 (the blind player's move counts once announced, F.3)"
            );
        }
        let sighted = &self.sighted;
        if sighted.is_manual() && sighted.completion == Some(CompletionName::Settle) {
            bail!(
                "{origin}: boards.sighted.completion = \"settle\" needs a board with sensors; a manual \
                 board completes a move with the console's `press`"
            );
        }
        Ok(())
    }

    /// Every board with sensors names its port.
    pub fn check_ports(&self, origin: &str) -> Result<()> {
        let (blind, sighted) = (&self.blind, &self.sighted);
        for (key, board) in [("boards.blind", blind), ("boards.sighted", sighted)] {
            if !board.is_manual() && board.port.as_deref().is_some_and(|p| p.trim().is_empty()) {
                bail!(
                    "{origin}: {key}.port = \"\": name the board's serial port (e.g. \
                     /dev/serial/by-id/...) or \"sim\" for a simulated board"
                );
            }
            if !board.is_manual() && board.port.is_none() {
                bail!(
                    "{origin}: {key}.port is missing: name the board's serial port (e.g. \
                     /dev/serial/by-id/...) or \"sim\" for a simulated board"
                );
            }
        }
        Ok(())
    }

    /// When the sighted player's move counts.
    pub fn completion(&self) -> Completion {
        match self.sighted.completion {
            Some(CompletionName::Press) => Completion::ClockPress,
            Some(CompletionName::Settle) => Completion::Settle,
            None if self.sighted.is_manual() => Completion::ClockPress,
            None => Completion::Settle,
        }
    }
}

impl BoardSection {
    /// The board as the daemon sets it up: its profile read (a profile file relative to `base`,
    /// the configuration file's folder), its port resolved. `key` names it in errors.
    pub fn setup(&self, key: &str, origin: &str, base: &Path) -> Result<BoardSetup> {
        let section = self;
        if section.is_manual() {
            return Ok(BoardSetup::Manual);
        }
        let profile = if section.profile.ends_with(".toml") || section.profile.contains('/') {
            let path = resolve(base, Path::new(&section.profile));
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "{origin}: {key}.profile: cannot read the board profile {}",
                    path.display()
                )
            })?;
            Profile::parse(&text, &path.display().to_string())
                .map_err(|e| anyhow!("{origin}: {key}.profile: {e}"))?
        } else {
            ProfileSet::builtin()
                .get(&section.profile)
                .map_err(|e| {
                    anyhow!(
                        "{origin}: {key}.profile: {e} (or a profile file ending in .toml{})",
                        if key == "boards.sighted" {
                            ", or \"manual\""
                        } else {
                            ""
                        }
                    )
                })?
                .clone()
        };
        let port = match section.port.as_deref() {
            Some(SIM_PORT) => PortSetup::Sim,
            Some(path) => PortSetup::Path(resolve(base, Path::new(path))),
            None => bail!("{origin}: {key}.port is missing"),
        };
        Ok(BoardSetup::Sensor { profile, port })
    }
}
