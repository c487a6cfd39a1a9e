//! `config.toml`: what a tournament sets once (which Laws, which time control, the event's tags).
//!
//! Parsing is strict: an unknown key, a value of the wrong kind or a time control that does not
//! parse is an error that names the file, the key and what is allowed, because a typo here would
//! otherwise silently play a game under the wrong rules.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;

use crate::rules::{Edition, PlayMode, clock::TimeControl, game::RulesConfig};

/// The whole configuration file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub rules: RulesSection,
    #[serde(default)]
    pub event: EventSection,
    #[serde(default)]
    pub speech: crate::speech::SpeechConfig,
}

/// `[rules]`
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSection {
    /// "2001" (default) or "2005".
    #[serde(default)]
    pub edition: Edition,
    /// "standard" (default), "rapid" or "blitz".
    #[serde(default)]
    pub play: PlayMode,
    /// PGN TimeControl notation (`40/7200:3600`, `5400+30`, `300`, delay `5400d30`); absent: no clock.
    pub time_control: Option<String>,
}

/// `[event]`: the PGN tags of the games played.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSection {
    pub event: Option<String>,
    pub site: Option<String>,
    pub round: Option<String>,
}

impl Config {
    /// Parse a configuration text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|e| anyhow!("{origin}: {e}"))?;
        config.speech.check().map_err(|e| anyhow!("{origin}: {e}"))?;
        config
            .rules_config()
            .with_context(|| format!("{origin}: key rules.time_control"))?;
        Ok(config)
    }

    /// Read and parse a configuration file.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
        Config::parse(&text, &path.display().to_string())
    }

    /// The rules part as the game core wants it.
    pub fn rules_config(&self) -> Result<RulesConfig> {
        let time_control = match &self.rules.time_control {
            Some(text) => Some(text.parse::<TimeControl>().map_err(|e| anyhow!("{e}"))?),
            None => None,
        };
        Ok(RulesConfig {
            edition: self.rules.edition,
            play: self.rules.play,
            time_control,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_config_parses() {
        let config = Config::parse(include_str!("../config.toml"), "config.toml").unwrap();
        let rules = config.rules_config().unwrap();
        assert_eq!(rules.edition, Edition::Fide2001);
        assert!(rules.time_control.is_some());
    }

    #[test]
    fn unknown_keys_are_named_with_what_is_allowed() {
        let err = Config::parse("[rules]\nedtion = \"2001\"\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("my.toml") && err.contains("edtion") && err.contains("edition"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_edition_lists_the_allowed_ones() {
        let err = Config::parse("[rules]\nedition = \"2003\"\n", "c.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("2003") && err.contains("2001") && err.contains("2005"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_time_control_names_the_key() {
        let err = format!(
            "{:#}",
            Config::parse("[rules]\ntime_control = \"40/abc\"\n", "c.toml").unwrap_err()
        );
        assert!(
            err.contains("rules.time_control") && err.contains("abc"),
            "{err}"
        );
    }

    #[test]
    fn play_modes_parse() {
        let config =
            Config::parse("[rules]\nplay = \"blitz\"\nedition = \"2005\"\n", "c.toml").unwrap();
        assert_eq!(config.rules.play, PlayMode::Blitz);
        assert_eq!(config.rules.edition, Edition::Fide2005);
    }
}
