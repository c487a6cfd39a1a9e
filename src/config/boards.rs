//! The boards of the two seats: `[boards.blind]` and `[boards.sighted]` at a table with one blind
//! player, `[boards.white]` and `[boards.black]` at a table with two (`game.blind = "both"`). Each
//! board's profile (built in or a file), its port (a serial port or `sim`), when the sighted
//! player's move counts, a blind player's buttons, which player sits on the DGT clock's left
//! (`[boards] clock_left`); and the board as the daemon sets it up ([`BoardSetup`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use shakmaty::{ByColor, Color};
use tactus_core::{
    arbiter::Completion,
    board::profile::{Profile, ProfileSet},
};

use super::{BlindName, paths::resolve};

/// The `port` value that asks for a built-in board simulator on a real pseudo-terminal.
pub const SIM_PORT: &str = "sim";
/// The `profile` value of a sighted board without sensors (moves entered at the console).
pub const MANUAL_PROFILE: &str = "manual";

/// `[boards]`: each seat's board. A table with one blind player names them `blind` and `sighted`
/// (absent: a simulated pegged board and a simulated DGT board); a table with two names them by
/// colour (absent: a simulated pegged board each).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardsSection {
    pub blind: Option<BoardSection>,
    pub sighted: Option<BoardSection>,
    pub white: Option<BoardSection>,
    pub black: Option<BoardSection>,
    /// A DGT clock on the sighted board: the colour of the player on the clock's left, as the
    /// arbiter placed it ("white", the default, or "black"). Its lever is that player's press.
    #[serde(default)]
    pub clock_left: super::SideName,
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

/// One seat's board: `[boards.blind]`, `[boards.sighted]`, `[boards.white]` or `[boards.black]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSection {
    /// A built-in profile name (`pegged-line`, `dgt`), a profile file (a path ending in `.toml`),
    /// or `manual` (sighted board only: no sensors, moves entered at the console).
    pub profile: String,
    /// The serial port (prefer `/dev/serial/by-id/...`), or `sim` for a built-in simulator on a
    /// pseudo-terminal. Not needed with `profile = "manual"`.
    pub port: Option<String>,
    /// A sighted player's board only: "press" or "settle" (default: "settle" for a board with
    /// sensors, the console's `press` for a manual one).
    pub completion: Option<CompletionName>,
    /// A blind player's board only: what its buttons (or keypad) ask, by button number: a
    /// request of his as the console writes it (`"time"`, `"t"`, `"moves 4"`, `"rp"`). Absent:
    /// 1 time, 2 last, 3 count, 4 repeat.
    #[serde(default)]
    pub buttons: Option<std::collections::BTreeMap<String, String>>,
}

impl BoardSection {
    /// A blind player's board when the file names none: a simulated pegged board.
    pub fn default_blind() -> BoardSection {
        BoardSection {
            profile: "pegged-line".into(),
            port: Some(SIM_PORT.into()),
            completion: None,
            buttons: None,
        }
    }
    /// The sighted player's board when the file names none: a simulated DGT board that counts
    /// his move when it settles.
    pub fn default_sighted() -> BoardSection {
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

/// One seat's board as the file gives it, with the key that names it.
#[derive(Debug, Clone)]
pub struct SeatBoard {
    /// `boards.blind`, `boards.sighted`, `boards.white` or `boards.black`.
    pub key: &'static str,
    pub section: BoardSection,
    /// Its player is blind.
    pub blind: bool,
}

impl BoardsSection {
    /// Each seat's board at a table whose blind players are `blind` (the sections it names, or
    /// the defaults).
    pub fn seats(&self, blind: BlindName) -> ByColor<SeatBoard> {
        ByColor::new_with(|seat| match blind.color() {
            Some(b) if b == seat => SeatBoard {
                key: "boards.blind",
                section: self
                    .blind
                    .clone()
                    .unwrap_or_else(BoardSection::default_blind),
                blind: true,
            },
            Some(_) => SeatBoard {
                key: "boards.sighted",
                section: self
                    .sighted
                    .clone()
                    .unwrap_or_else(BoardSection::default_sighted),
                blind: false,
            },
            None => SeatBoard {
                key: seat.fold_wb("boards.white", "boards.black"),
                section: seat
                    .fold_wb(&self.white, &self.black)
                    .clone()
                    .unwrap_or_else(BoardSection::default_blind),
                blind: true,
            },
        })
    }

    /// Each seat's buttons: number -> console line (checked when the file was read); none for a
    /// sighted player.
    pub fn buttons(&self, blind: BlindName) -> ByColor<std::collections::BTreeMap<u8, String>> {
        self.seats(blind).map(|seat| {
            if !seat.blind {
                return std::collections::BTreeMap::new();
            }
            seat.section
                .buttons
                .clone()
                .unwrap_or_else(default_buttons)
                .iter()
                .filter_map(|(n, line)| Some((n.parse().ok()?, line.clone())))
                .collect()
        })
    }

    /// The sections fit the table (`blind`/`sighted` for one blind player, `white`/`black` for
    /// two), and each board its player: buttons a blind player's only, a blind player's board
    /// with sensors and without a completion setting, a sighted player's settling only with
    /// sensors.
    pub fn check(&self, origin: &str, blind: BlindName) -> Result<()> {
        let misnamed = match blind {
            BlindName::Both => [("blind", &self.blind), ("sighted", &self.sighted)]
                .into_iter()
                .find(|(_, s)| s.is_some())
                .map(|(name, _)| {
                    format!(
                        "{origin}: [boards.{name}] names a board at a table with one blind player, \
                         but game.blind = \"both\": name the boards [boards.white] and \
                         [boards.black]"
                    )
                }),
            _ => [("white", &self.white), ("black", &self.black)]
                .into_iter()
                .find(|(_, s)| s.is_some())
                .map(|(name, _)| {
                    format!(
                        "{origin}: [boards.{name}] names a board by colour, which is for two blind \
                         players (game.blind = \"both\"); with one blind player name the boards \
                         [boards.blind] and [boards.sighted]"
                    )
                }),
        };
        if let Some(message) = misnamed {
            bail!(message);
        }
        for seat in Color::ALL {
            let SeatBoard {
                key,
                section,
                blind,
            } = &self.seats(blind)[seat];
            if *blind {
                check_buttons(origin, key, section)?;
                if section.is_manual() {
                    bail!(
                        "{origin}: {key}.profile = \"manual\": a blind player's board needs \
                         sensors; name its profile (pegged-line, dgt or a profile file)"
                    );
                }
                if section.completion.is_some() {
                    bail!(
                        "{origin}: {key}.completion: only a sighted player's board has a \
                         completion setting (a blind player's move counts once announced, F.3)"
                    );
                }
            } else {
                if section.buttons.is_some() {
                    bail!(
                        "{origin}: {key}.buttons: only a blind player's board has request \
                         buttons"
                    );
                }
                if section.is_manual() && section.completion == Some(CompletionName::Settle) {
                    bail!(
                        "{origin}: {key}.completion = \"settle\" needs a board with sensors; a \
                         manual board completes a move with the console's `press`: remove the \
                         line (a manual board implies \"press\") or write completion = \"press\""
                    );
                }
            }
        }
        Ok(())
    }

    /// Every board with sensors names its port.
    pub fn check_ports(&self, origin: &str, blind: BlindName) -> Result<()> {
        for seat in self.seats(blind) {
            let (key, board) = (seat.key, &seat.section);
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

    /// When the sighted player's move counts (a table of two blind players has none: the
    /// setting is not used).
    pub fn completion(&self, blind: BlindName) -> Completion {
        let Some(b) = blind.color() else {
            return Completion::ClockPress;
        };
        let sighted = self.seats(blind)[!b].section.clone();
        match sighted.completion {
            Some(CompletionName::Press) => Completion::ClockPress,
            Some(CompletionName::Settle) => Completion::Settle,
            None if sighted.is_manual() => Completion::ClockPress,
            None => Completion::Settle,
        }
    }
}

/// A blind player's buttons: numbered 1 to 255, each one of his requests.
fn check_buttons(origin: &str, key: &str, section: &BoardSection) -> Result<()> {
    let buttons = section.buttons.clone().unwrap_or_else(default_buttons);
    for (number, line) in &buttons {
        if !number.parse::<u8>().is_ok_and(|n| n >= 1) {
            bail!(
                "{origin}: {key}.buttons: \"{number}\" is not a button number; buttons are \
                 numbered 1 to 255"
            );
        }
        // A button is the blind player's own keypad: his requests only.
        match tactus_core::console::parse(line, tactus_core::console::Role::Player) {
            Ok(
                tactus_core::console::Command::Request(_)
                | tactus_core::console::Command::Training(_),
            ) => {}
            Ok(_) => bail!(
                "{origin}: {key}.buttons.{number} = \"{line}\": a button asks one of the blind \
                 player's requests ({}), or in training hint, eval, takeback or review",
                tactus_core::console::request_names().join(", ")
            ),
            Err(e) => bail!("{origin}: {key}.buttons.{number} = \"{line}\": {e}"),
        }
    }
    Ok(())
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
