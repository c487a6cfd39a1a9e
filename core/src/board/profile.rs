//! Board profiles: one TOML file per kind of sensor board (`boards/*.toml`), saying which protocol
//! it speaks, what it can sense, how its serial line is set, how long its readings take to settle
//! and how it lies on the table.
//!
//! This module owns the profile format, its validation and the profiles shipped with tactus
//! (embedded with `include_str!`, so the binary works without the `boards/` directory). It must
//! not read files or directories: the shell reads them and hands the texts to
//! [`ProfileSet::from_texts`]. Parsing is strict, because a typo in a profile would otherwise show
//! up at the table as phantom or missing moves: an unknown key, a bad value or a contradiction is
//! an error naming the file, the key and what is allowed.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

use super::{Orientation, Sensing};
use crate::rules::Millis;

/// The protocol a board speaks: its home is the protocols' seam, [`super::protocol`].
pub use super::protocol::Protocol;

/// The profiles shipped in `boards/`, by file name. Adding a file there means adding it here; a
/// test checks that the two agree.
const BUILTIN: [(&str, &str); 2] = [
    ("dgt.toml", include_str!("../../../boards/dgt.toml")),
    (
        "pegged-line.toml",
        include_str!("../../../boards/pegged-line.toml"),
    ),
];

/// Profile files end in this.
const PROFILE_EXTENSION: &str = ".toml";
/// What a syntax error says when toml itself says nothing.
const NOT_TOML: &str = "this is not valid TOML (a value missing, or a string without quotes?)";
/// Where a reader finds the keys explained.
const PROFILE_DOCS: &str = "see boards/README.md for the keys of a board profile";

/// Serial settings a UART can do.
const DATA_BITS: std::ops::RangeInclusive<u8> = 5..=8;
const STOP_BITS: std::ops::RangeInclusive<u8> = 1..=2;
/// No timing in a profile needs more than a minute; a larger value is most likely a slip (seconds
/// written as milliseconds, an extra zero) and would make the board feel dead.
const MAX_TIMING_MS: u64 = 60_000;
/// A keep-alive shorter than this would declare a healthy board lost while it scans (a DGT scan
/// takes up to 250 ms).
const MIN_KEEPALIVE_MS: u64 = 500;

/// One kind of sensor board.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// What the user names on the command line; equal to the file's stem.
    pub name: String,
    /// One line for people choosing a profile.
    pub description: String,
    pub protocol: Protocol,
    pub sensing: Sensing,
    pub serial: SerialSettings,
    pub timing: Timing,
    pub orientation: OrientationSettings,
    /// Absent: no clock attached.
    #[serde(default)]
    pub clock: ClockSettings,
}

/// `[serial]`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerialSettings {
    pub baud: u32,
    pub data_bits: u8,
    pub parity: Parity,
    pub stop_bits: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Parity {
    None,
    Even,
    Odd,
}

/// `[timing]`, in milliseconds as written; the methods give [`Duration`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// How long the board must rest before a state counts.
    pub settle_ms: Millis,
    /// How long the board may take to report a change (a DGT board's sweep of its squares:
    /// 200-250 ms); 0 for a board that reports each change as it happens.
    #[serde(default)]
    pub scan_ms: Millis,
    /// A lift and place of the same square within this is sensor bounce, ignored.
    pub bounce_ms: Millis,
    /// A board resting on a wrong state this long is reported as differing.
    pub differs_after_ms: Millis,
    /// Silence longer than this after a keep-alive request means the board is gone.
    pub keepalive_ms: Millis,
    /// Ask for a full reading before reporting a completed move.
    pub confirm_with_snapshot: bool,
}

impl Timing {
    pub fn settle(&self) -> Duration {
        Duration::from_millis(self.settle_ms)
    }
    pub fn bounce(&self) -> Duration {
        Duration::from_millis(self.bounce_ms)
    }
    pub fn differs_after(&self) -> Duration {
        Duration::from_millis(self.differs_after_ms)
    }
    pub fn keepalive(&self) -> Duration {
        Duration::from_millis(self.keepalive_ms)
    }
}

/// `[orientation]`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrientationSettings {
    pub mode: OrientationMode,
}

/// How tactus learns which way round the board lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrientationMode {
    /// From the start position of the first full reading (identity boards only: an occupancy
    /// board's start position looks the same both ways round).
    Detect,
    Normal,
    Reversed,
}

impl OrientationMode {
    /// The orientation if the profile fixes it; `None` for `Detect`.
    pub fn fixed(self) -> Option<Orientation> {
        match self {
            OrientationMode::Detect => None,
            OrientationMode::Normal => Some(Orientation::Normal),
            OrientationMode::Reversed => Some(Orientation::Reversed),
        }
    }
}

/// `[clock]`: a DGT clock plugged into a DGT board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSettings {
    /// A DGT clock is attached: ask for its messages (BWTIME).
    #[serde(default)]
    pub attached: bool,
    /// A press of the clock's lever completes the sighted player's move (instead of waiting for
    /// the board to settle). tactus still keeps the official time.
    #[serde(default)]
    pub lever_completes_move: bool,
}

/// A profile that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProfileError {
    /// Not valid TOML, an unknown key, a missing key or a value of the wrong kind.
    #[error("{origin}{location}: {message}; {PROFILE_DOCS}")]
    Syntax {
        origin: String,
        location: String,
        message: String,
    },
    /// A value that parses but cannot be right.
    #[error("{origin}: key `{key}`: {reason}")]
    Invalid {
        origin: String,
        key: &'static str,
        reason: String,
    },
    /// The `name` inside differs from the file name.
    #[error(
        "{origin}: name = {name:?} differs from the file name; rename the file to \
         {name}{PROFILE_EXTENSION} or set name = {stem:?}, so that the name a user types finds it"
    )]
    NameMismatch {
        origin: String,
        name: String,
        stem: String,
    },
    /// A file whose name does not end in `.toml`.
    #[error("{origin}: a board profile file must be named <name>{PROFILE_EXTENSION}")]
    NotAProfileFile { origin: String },
    /// Two files define the same name.
    #[error("board profile {name:?} is defined twice, in {first} and {second}; remove one")]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    /// No profile has that name.
    #[error(
        "there is no board profile named {name:?}; the profiles are: {} (or add \
         boards/{name}{PROFILE_EXTENSION})",
        known.join(", ")
    )]
    UnknownProfile { name: String, known: Vec<String> },
}

impl Profile {
    /// Parse and check one profile; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        let profile: Profile = toml::from_str(text).map_err(|e| ProfileError::Syntax {
            origin: origin.to_owned(),
            location: e
                .span()
                .map(|span| locate(text, span.start))
                .unwrap_or_default(),
            message: match e.message().trim() {
                // toml says nothing for some syntax errors (`key =` with no value).
                "" => NOT_TOML.to_owned(),
                m => m.to_owned(),
            },
        })?;
        profile.check(origin)?;
        Ok(profile)
    }

    /// The contradictions serde cannot see.
    fn check(&self, origin: &str) -> Result<(), ProfileError> {
        let invalid = |key, reason: String| {
            Err(ProfileError::Invalid {
                origin: origin.to_owned(),
                key,
                reason,
            })
        };
        if self.name.is_empty()
            || !self
                .name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return invalid(
                "name",
                format!("{:?} must be lower-case letters, digits and '-'", self.name),
            );
        }
        // What a board can sense is its protocol's to say.
        if let Err(reason) = self.protocol.spec().check_sensing(self.sensing) {
            return invalid("sensing", reason.into());
        }
        let serial = &self.serial;
        if serial.baud == 0 {
            return invalid(
                "serial.baud",
                "must be above 0 (DGT boards use 9600, pegged boards 115200)".into(),
            );
        }
        if !DATA_BITS.contains(&serial.data_bits) {
            return invalid(
                "serial.data_bits",
                format!("{} is not one of 5, 6, 7, 8", serial.data_bits),
            );
        }
        if !STOP_BITS.contains(&serial.stop_bits) {
            return invalid(
                "serial.stop_bits",
                format!("{} is not 1 or 2", serial.stop_bits),
            );
        }
        let timing = &self.timing;
        for (key, ms) in [
            ("timing.settle_ms", timing.settle_ms),
            ("timing.scan_ms", timing.scan_ms),
            ("timing.bounce_ms", timing.bounce_ms),
            ("timing.differs_after_ms", timing.differs_after_ms),
            ("timing.keepalive_ms", timing.keepalive_ms),
        ] {
            if ms > MAX_TIMING_MS {
                return invalid(
                    key,
                    format!(
                        "{ms} ms is more than {MAX_TIMING_MS} ms; the value is in milliseconds"
                    ),
                );
            }
        }
        let longest_rest = timing.settle_ms.max(timing.scan_ms);
        if timing.differs_after_ms < longest_rest {
            return invalid(
                "timing.differs_after_ms",
                format!(
                    "{} ms is shorter than the longest rest a move may need ({longest_rest} ms: \
                     settle_ms or scan_ms): a board must settle before it can differ",
                    timing.differs_after_ms
                ),
            );
        }
        if timing.keepalive_ms < MIN_KEEPALIVE_MS {
            return invalid(
                "timing.keepalive_ms",
                format!(
                    "{} ms is less than {MIN_KEEPALIVE_MS} ms; a healthy board would be declared lost",
                    timing.keepalive_ms
                ),
            );
        }
        if self.orientation.mode == OrientationMode::Detect && self.sensing == Sensing::Occupancy {
            return invalid(
                "orientation.mode",
                "\"detect\" needs a board that identifies pieces: the start position's occupancy looks \
                 the same both ways round; use \"normal\" or \"reversed\""
                    .into(),
            );
        }
        if self.clock.attached && !self.protocol.spec().carries_clock() {
            return invalid(
                "clock.attached",
                "only DGT boards carry a clock; remove the [clock] section".into(),
            );
        }
        if self.clock.lever_completes_move && !self.clock.attached {
            return invalid(
                "clock.lever_completes_move",
                "needs a clock: set clock.attached = true".into(),
            );
        }
        Ok(())
    }
}

/// " line N (`section.key`)" for a byte offset into a profile text; the key is found the simple
/// way (the last `[section]` above, the text before `=`), which is enough for profile files and
/// makes messages about bad values name the key, which toml's own message does not.
fn locate(text: &str, offset: usize) -> String {
    let before = text.get(..offset).unwrap_or(text);
    let line_no = before.matches('\n').count() + 1;
    let line = text.lines().nth(line_no - 1).unwrap_or_default().trim();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let section = before[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned());
    let key = if line.starts_with('[') {
        Some(
            line.trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_owned(),
        )
    } else {
        line.split_once('=').map(|(k, _)| {
            let k = k.trim();
            match &section {
                Some(s) => format!("{s}.{k}"),
                None => k.to_owned(),
            }
        })
    };
    match key {
        Some(key) if !key.is_empty() => format!(" line {line_no} (`{key}`)"),
        _ => format!(" line {line_no}"),
    }
}

/// The profiles tactus knows, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileSet {
    profiles: BTreeMap<String, Profile>,
}

impl ProfileSet {
    /// Parse profile files given as (file name, text); the file name may carry a directory. Every
    /// file must parse, be named `<name>.toml`, and define a name no other file defines.
    pub fn from_texts<I, N, T>(texts: I) -> Result<ProfileSet, ProfileError>
    where
        I: IntoIterator<Item = (N, T)>,
        N: AsRef<str>,
        T: AsRef<str>,
    {
        let mut profiles: BTreeMap<String, Profile> = BTreeMap::new();
        let mut origins: BTreeMap<String, String> = BTreeMap::new();
        for (file_name, text) in texts {
            let origin = file_name.as_ref();
            let base = origin.rsplit(['/', '\\']).next().unwrap_or(origin);
            let Some(stem) = base.strip_suffix(PROFILE_EXTENSION) else {
                return Err(ProfileError::NotAProfileFile {
                    origin: origin.to_owned(),
                });
            };
            let profile = Profile::parse(text.as_ref(), origin)?;
            if profile.name != stem {
                return Err(ProfileError::NameMismatch {
                    origin: origin.to_owned(),
                    name: profile.name,
                    stem: stem.to_owned(),
                });
            }
            if let Some(first) = origins.get(&profile.name) {
                return Err(ProfileError::Duplicate {
                    name: profile.name,
                    first: first.clone(),
                    second: origin.to_owned(),
                });
            }
            origins.insert(profile.name.clone(), origin.to_owned());
            profiles.insert(profile.name.clone(), profile);
        }
        Ok(ProfileSet { profiles })
    }

    /// The profiles shipped with tactus.
    pub fn builtin() -> ProfileSet {
        // The shipped files are checked by the tests below, so this cannot fail in a released
        // binary; falling back to an empty set keeps even a broken build from panicking, and
        // `get` then says that no profile exists.
        ProfileSet::from_texts(BUILTIN).unwrap_or_default()
    }

    /// These profiles, with `other`'s replacing any of the same name (a user's `boards/`
    /// directory over the built-in ones).
    pub fn overlay(mut self, other: ProfileSet) -> ProfileSet {
        self.profiles.extend(other.profiles);
        self
    }

    /// The profile of that name, or an error listing the ones there are.
    pub fn get(&self, name: &str) -> Result<&Profile, ProfileError> {
        self.profiles
            .get(name)
            .ok_or_else(|| ProfileError::UnknownProfile {
                name: name.to_owned(),
                known: self.profiles.keys().cloned().collect(),
            })
    }

    /// Profile names in alphabetical order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Profile> {
        self.profiles.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DGT_TEXT: &str = BUILTIN[0].1;
    const PEGGED_TEXT: &str = BUILTIN[1].1;

    fn parse_err(text: &str) -> ProfileError {
        Profile::parse(text, "boards/x.toml").expect_err("should be rejected")
    }

    #[test]
    fn shipped_profiles_say_what_the_boards_are() {
        let set = ProfileSet::builtin();
        let dgt = set.get("dgt").unwrap();
        assert_eq!(
            (dgt.protocol, dgt.sensing),
            (Protocol::Dgt, Sensing::Identity)
        );
        assert_eq!(
            dgt.serial,
            SerialSettings {
                baud: 9600,
                data_bits: 8,
                parity: Parity::None,
                stop_bits: 1
            }
        );
        assert_eq!(dgt.orientation.mode, OrientationMode::Detect);
        assert!(dgt.timing.confirm_with_snapshot);
        assert!(
            dgt.timing.scan_ms >= 250,
            "a change may take one DGT sweep to be reported"
        );

        let pegged = set.get("pegged-line").unwrap();
        assert_eq!(
            (pegged.protocol, pegged.sensing),
            (Protocol::Line, Sensing::Occupancy)
        );
        assert_eq!(pegged.serial.baud, 115_200);
        // F.3 b: the move is executed the moment the piece enters a different aperture.
        assert_eq!(pegged.timing.settle(), Duration::ZERO);
        assert_eq!(pegged.orientation.mode.fixed(), Some(Orientation::Normal));
        assert!(!pegged.timing.confirm_with_snapshot);
        assert_eq!(pegged.clock, ClockSettings::default());
    }

    #[test]
    fn unknown_keys_name_the_key_the_file_and_the_allowed_keys() {
        let text = PEGGED_TEXT.replace("baud = 115200", "baudrate = 115200");
        let msg = parse_err(&text).to_string();
        assert!(msg.starts_with("boards/x.toml line"), "{msg}");
        assert!(
            msg.contains("serial.baudrate")
                && msg.contains("`baud`")
                && msg.contains("`stop_bits`"),
            "{msg}"
        );
        let top = parse_err(&format!("colour = 1\n{PEGGED_TEXT}")).to_string();
        assert!(
            top.contains("line 1 (`colour`)") && top.contains("`protocol`"),
            "{top}"
        );
    }

    #[test]
    fn bad_values_name_the_key_and_the_allowed_values() {
        let msg =
            parse_err(&DGT_TEXT.replace("protocol = \"dgt\"", "protocol = \"usb\"")).to_string();
        assert!(
            msg.contains("(`protocol`)") && msg.contains("`dgt`") && msg.contains("`line`"),
            "{msg}"
        );
        let msg = parse_err(&DGT_TEXT.replace("parity = \"none\"", "parity = \"no\"")).to_string();
        assert!(
            msg.contains("(`serial.parity`)") && msg.contains("`even`"),
            "{msg}"
        );
        let msg = parse_err(&DGT_TEXT.replace("mode = \"detect\"", "mode = \"auto\"")).to_string();
        assert!(
            msg.contains("orientation.mode") && msg.contains("`reversed`"),
            "{msg}"
        );
        let msg = parse_err(&DGT_TEXT.replace("settle_ms = 60", "settle_ms = -4")).to_string();
        assert!(msg.contains("timing.settle_ms"), "{msg}");
        let msg = parse_err(&DGT_TEXT.replace("data_bits = 8", "data_bits = 9")).to_string();
        assert!(
            msg.contains("serial.data_bits") && msg.contains("5, 6, 7, 8"),
            "{msg}"
        );
        let msg = parse_err(&DGT_TEXT.replace("stop_bits = 1", "stop_bits = 3")).to_string();
        assert!(msg.contains("serial.stop_bits"), "{msg}");
        let msg = parse_err(&DGT_TEXT.replace("baud = 9600", "baud = 0")).to_string();
        assert!(msg.contains("serial.baud"), "{msg}");
        let msg = parse_err(&DGT_TEXT.replace("keepalive_ms = 2000", "keepalive_ms = 2000000"))
            .to_string();
        assert!(
            msg.contains("timing.keepalive_ms") && msg.contains("milliseconds"),
            "{msg}"
        );
        let msg =
            parse_err(&DGT_TEXT.replace("keepalive_ms = 2000", "keepalive_ms = 2")).to_string();
        assert!(msg.contains("timing.keepalive_ms"), "{msg}");
        let msg = parse_err(&DGT_TEXT.replace("differs_after_ms = 2000", "differs_after_ms = 100"))
            .to_string();
        assert!(
            msg.contains("timing.differs_after_ms") && msg.contains("settle"),
            "{msg}"
        );
        let msg = parse_err(&DGT_TEXT.replace("name = \"dgt\"", "name = \"My DGT\"")).to_string();
        assert!(msg.contains("`name`"), "{msg}");
    }

    #[test]
    fn missing_keys_are_named() {
        let msg = parse_err(&PEGGED_TEXT.replace("bounce_ms = 40", "")).to_string();
        assert!(
            msg.contains("missing field `bounce_ms`") && msg.contains("timing"),
            "{msg}"
        );
    }

    #[test]
    fn contradictions_are_errors_with_a_reason() {
        let msg =
            parse_err(&PEGGED_TEXT.replace("mode = \"normal\"", "mode = \"detect\"")).to_string();
        assert!(
            msg.contains("orientation.mode") && msg.contains("occupancy looks the same"),
            "{msg}"
        );
        let msg =
            parse_err(&PEGGED_TEXT.replace("sensing = \"occupancy\"", "sensing = \"identity\""))
                .to_string();
        assert!(
            msg.contains("`sensing`") && msg.contains("occupancy only"),
            "{msg}"
        );
        let msg = parse_err(&DGT_TEXT.replace("sensing = \"identity\"", "sensing = \"occupancy\""))
            .to_string();
        assert!(msg.contains("identifies pieces"), "{msg}");
        let msg = parse_err(&format!("{PEGGED_TEXT}\n[clock]\nattached = true\n")).to_string();
        assert!(msg.contains("clock.attached"), "{msg}");
        let msg = parse_err(&DGT_TEXT.replace(
            "lever_completes_move = false",
            "lever_completes_move = true",
        ))
        .to_string();
        assert!(msg.contains("clock.lever_completes_move"), "{msg}");
        let with_clock = DGT_TEXT
            .replace("attached = false", "attached = true")
            .replace(
                "lever_completes_move = false",
                "lever_completes_move = true",
            );
        let profile = Profile::parse(&with_clock, "dgt.toml").unwrap();
        assert!(profile.clock.attached && profile.clock.lever_completes_move);
    }

    #[test]
    fn profile_sets_check_names_and_list_them() {
        let set = ProfileSet::from_texts([
            ("dir/dgt.toml", DGT_TEXT),
            ("pegged-line.toml", PEGGED_TEXT),
        ])
        .unwrap();
        let err = set.get("dgt2").unwrap_err();
        assert_eq!(
            err,
            ProfileError::UnknownProfile {
                name: "dgt2".into(),
                known: vec!["dgt".into(), "pegged-line".into()]
            }
        );
        assert!(
            err.to_string()
                .contains("the profiles are: dgt, pegged-line"),
            "{err}"
        );

        let err = ProfileSet::from_texts([("boards/other.toml", DGT_TEXT)]).unwrap_err();
        assert!(
            matches!(&err, ProfileError::NameMismatch { stem, .. } if stem == "other"),
            "{err}"
        );
        assert!(err.to_string().contains("boards/other.toml"), "{err}");

        let err = ProfileSet::from_texts([("a/dgt.toml", DGT_TEXT), ("b/dgt.toml", DGT_TEXT)])
            .unwrap_err();
        assert!(matches!(err, ProfileError::Duplicate { .. }), "{err}");
        let err = ProfileSet::from_texts([("README.md", "")]).unwrap_err();
        assert!(matches!(err, ProfileError::NotAProfileFile { .. }), "{err}");
        let err = ProfileSet::from_texts([("boards/dgt.toml", "name = ")]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("boards/dgt.toml line 1 (`name`): this is not valid TOML"),
            "{err}"
        );
    }

    #[test]
    fn a_users_directory_overrides_the_builtin_profiles() {
        let slower = DGT_TEXT.replace("settle_ms = 60", "settle_ms = 600");
        let user = ProfileSet::from_texts([("dgt.toml", slower.as_str())]).unwrap();
        let set = ProfileSet::builtin().overlay(user);
        assert_eq!(set.get("dgt").unwrap().timing.settle_ms, 600);
        assert!(set.get("pegged-line").is_ok());
        assert_eq!(set.iter().count(), 2);
    }
}
