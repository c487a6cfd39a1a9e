//! `[voice]` in `config.toml`: which speaker serves which audience, on which device, and how the
//! engine speaks; and the plan of outputs that follows from it.
//!
//! Pure: parsing (serde, strict like the rest of the configuration), checking and planning. It
//! opens no device and starts no engine; [`super::task`] builds what the plan says.

use std::time::Duration;

use serde::Deserialize;

use tactus_core::announce::{Audience, voice::Style};
use tactus_core::rules::Millis;

/// Which speaker serves an audience.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpeakerKind {
    /// The voice pack's clips through an audio device (cpal).
    Clips,
    /// The system's speech engine (speech-dispatcher on Linux), clips as the fallback.
    Tts,
    /// Nothing is played: the transcript and the console only. The issue's word `off` is
    /// accepted too.
    #[serde(alias = "off")]
    None,
}

/// A side of a stereo output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Left,
    Right,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// `[voice]`. Every key is optional.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpeechConfig {
    /// The speaker for both audiences unless overridden: "clips" (default), "tts" or "none".
    pub speaker: SpeakerKind,
    /// Override for the blind player.
    pub speaker_blind: Option<SpeakerKind>,
    /// Override for the sighted side (e.g. "none" when the sighted player reads a screen).
    pub speaker_sighted: Option<SpeakerKind>,
    /// The voice pack (`voices/<pack>/`), key `pack` in `[voice]` (the field keeps its old name
    /// for the code that reads it).
    #[serde(rename = "pack")]
    pub voice: String,
    /// "san" (Springer Felix drei) or "long" (Springer Gustav eins Felix drei).
    pub style: Style,
    /// Silence between two clips, in milliseconds.
    pub gap_ms: Millis,
    /// Silence where the pack asks for a pause (e.g. before the promotion piece), in milliseconds.
    pub pause_ms: Millis,
    /// Output device of the blind player (an ALSA/cpal device name); absent: the default device.
    pub device_blind: Option<String>,
    /// Output device of the sighted side; absent: the default device.
    pub device_sighted: Option<String>,
    /// One stereo device for both audiences, each on one side (`device_blind` names it).
    pub shared_device_channels: bool,
    /// With `shared_device_channels`: the blind player's side; the sighted side gets the other.
    pub blind_channel: Side,
    /// The engine's voice: a voice name ("German") or a language tag ("de", "de-DE"); absent:
    /// the voice pack's language.
    pub tts_voice: Option<String>,
    /// Speaking rate, -100 (slowest) .. 0 (the engine's normal) .. 100 (fastest).
    pub tts_rate: f32,
    /// Volume in percent of the engine's range, 0 .. 100.
    pub tts_volume: f32,
    /// How long the engine may take to start before the clips take over, in milliseconds.
    pub tts_startup_timeout_ms: Millis,
}

impl Default for SpeechConfig {
    fn default() -> SpeechConfig {
        SpeechConfig {
            speaker: SpeakerKind::Clips,
            speaker_blind: None,
            speaker_sighted: None,
            voice: "de-fide".to_string(),
            style: Style::San,
            gap_ms: 120,
            pause_ms: 300,
            device_blind: None,
            device_sighted: None,
            shared_device_channels: false,
            blind_channel: Side::Left,
            tts_voice: None,
            tts_rate: 0.0,
            tts_volume: 100.0,
            tts_startup_timeout_ms: 5000,
        }
    }
}

/// How a clip output uses its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Route {
    /// The device to itself: the clip on every channel.
    Whole,
    /// One side of a device shared with the other audience.
    Side(Side),
}

/// A clip output: device (None: the default) and route.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClipTarget {
    pub device: Option<String>,
    pub route: Route,
}

/// What one output is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputKind {
    Clips(ClipTarget),
    /// The speech engine, falling back to clips on `fallback`.
    Tts {
        fallback: ClipTarget,
    },
}

/// One output and the audiences it serves (`Both` when it serves both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPlan {
    pub audience: Audience,
    pub kind: OutputKind,
}

impl SpeechConfig {
    pub fn gap(&self) -> Duration {
        Duration::from_millis(self.gap_ms)
    }

    pub fn pause(&self) -> Duration {
        Duration::from_millis(self.pause_ms)
    }

    pub fn tts_startup_timeout(&self) -> Duration {
        Duration::from_millis(self.tts_startup_timeout_ms)
    }

    pub fn speaker_for(&self, audience: Audience) -> SpeakerKind {
        match audience {
            Audience::Blind => self.speaker_blind.unwrap_or(self.speaker),
            Audience::Sighted => self.speaker_sighted.unwrap_or(self.speaker),
            Audience::Both => self.speaker,
        }
    }

    /// Checks the values; the message names the key and what is allowed.
    pub fn check(&self) -> Result<(), String> {
        if !(-100.0..=100.0).contains(&self.tts_rate) {
            return Err(format!(
                "voice.tts_rate = {}: allowed are -100 (slowest) to 100 (fastest), 0 is normal",
                self.tts_rate
            ));
        }
        if !(0.0..=100.0).contains(&self.tts_volume) {
            return Err(format!(
                "voice.tts_volume = {}: allowed are 0 to 100 (percent)",
                self.tts_volume
            ));
        }
        if self.gap_ms > 2000 {
            return Err(format!(
                "voice.gap_ms = {}: at most 2000 (a gap this long splits the announcement)",
                self.gap_ms
            ));
        }
        if self.pause_ms > 5000 {
            return Err(format!("voice.pause_ms = {}: at most 5000", self.pause_ms));
        }
        if self.tts_startup_timeout_ms < 500 || self.tts_startup_timeout_ms > 60_000 {
            return Err(format!(
                "voice.tts_startup_timeout_ms = {}: allowed are 500 to 60000",
                self.tts_startup_timeout_ms
            ));
        }
        if self.shared_device_channels
            && self.device_sighted.is_some()
            && self.device_sighted != self.device_blind
        {
            return Err(format!(
                "voice.shared_device_channels = true puts both audiences on device_blind ({}), \
                 but device_sighted names another device ({}): remove device_sighted or set \
                 shared_device_channels = false",
                self.device_blind.as_deref().unwrap_or("the default device"),
                self.device_sighted.as_deref().unwrap_or("")
            ));
        }
        Ok(())
    }

    /// The outputs this configuration asks for. Two audiences whose speech would sound from the
    /// same place (the speech engine, or the same device without a channel split) share one
    /// output, so an announcement to both is said once and never overlaps itself.
    pub fn plan(&self) -> Vec<OutputPlan> {
        let blind = self.speaker_for(Audience::Blind);
        let sighted = self.speaker_for(Audience::Sighted);
        let target = |audience: Audience| -> ClipTarget {
            if self.shared_device_channels {
                let side = match audience {
                    Audience::Sighted => self.blind_channel.other(),
                    _ => self.blind_channel,
                };
                ClipTarget {
                    device: self.device_blind.clone(),
                    route: Route::Side(side),
                }
            } else {
                ClipTarget {
                    device: match audience {
                        Audience::Sighted => self.device_sighted.clone(),
                        _ => self.device_blind.clone(),
                    },
                    route: Route::Whole,
                }
            }
        };
        let single = |audience: Audience, kind: SpeakerKind| -> Option<OutputPlan> {
            let kind = match kind {
                SpeakerKind::None => return None,
                SpeakerKind::Clips => OutputKind::Clips(target(audience)),
                SpeakerKind::Tts => OutputKind::Tts {
                    fallback: target(audience),
                },
            };
            Some(OutputPlan { audience, kind })
        };
        let same_place = match (blind, sighted) {
            (SpeakerKind::Tts, SpeakerKind::Tts) => true,
            (SpeakerKind::Clips, SpeakerKind::Clips) => {
                !self.shared_device_channels && self.device_blind == self.device_sighted
            }
            _ => false,
        };
        if same_place {
            let whole = ClipTarget {
                device: self.device_blind.clone(),
                route: Route::Whole,
            };
            let kind = if blind == SpeakerKind::Tts {
                OutputKind::Tts { fallback: whole }
            } else {
                OutputKind::Clips(whole)
            };
            return vec![OutputPlan {
                audience: Audience::Both,
                kind,
            }];
        }
        [
            single(Audience::Blind, blind),
            single(Audience::Sighted, sighted),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SpeechConfig, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            #[serde(default)]
            voice: SpeechConfig,
        }
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        file.voice.check()?;
        Ok(file.voice)
    }

    #[test]
    fn defaults_are_clips_for_both_on_the_default_device() {
        let c = parse("").unwrap();
        assert_eq!(c, SpeechConfig::default());
        assert_eq!(
            c.plan(),
            vec![OutputPlan {
                audience: Audience::Both,
                kind: OutputKind::Clips(ClipTarget {
                    device: None,
                    route: Route::Whole
                })
            }]
        );
    }

    #[test]
    fn every_key_parses() {
        let c = parse(
            r#"[voice]
speaker = "tts"
speaker_blind = "tts"
speaker_sighted = "clips"
pack = "es-fide"
style = "long"
gap_ms = 80
pause_ms = 250
device_blind = "hw:1"
device_sighted = "hw:2"
shared_device_channels = false
blind_channel = "right"
tts_voice = "German"
tts_rate = -20
tts_volume = 80
tts_startup_timeout_ms = 8000
"#,
        )
        .unwrap();
        assert_eq!(c.style, Style::Long);
        assert_eq!(c.gap(), Duration::from_millis(80));
        assert_eq!(c.tts_rate, -20.0);
        assert_eq!(
            c.plan(),
            vec![
                OutputPlan {
                    audience: Audience::Blind,
                    kind: OutputKind::Tts {
                        fallback: ClipTarget {
                            device: Some("hw:1".into()),
                            route: Route::Whole
                        }
                    }
                },
                OutputPlan {
                    audience: Audience::Sighted,
                    kind: OutputKind::Clips(ClipTarget {
                        device: Some("hw:2".into()),
                        route: Route::Whole
                    })
                },
            ]
        );
    }

    #[test]
    fn a_shared_device_puts_the_audiences_on_the_two_sides() {
        let c = parse("[voice]\nshared_device_channels = true\ndevice_blind = \"usb\"\n").unwrap();
        let plan = c.plan();
        assert_eq!(plan.len(), 2);
        assert_eq!(
            plan[0].kind,
            OutputKind::Clips(ClipTarget {
                device: Some("usb".into()),
                route: Route::Side(Side::Left)
            })
        );
        assert_eq!(plan[1].audience, Audience::Sighted);
        assert_eq!(
            plan[1].kind,
            OutputKind::Clips(ClipTarget {
                device: Some("usb".into()),
                route: Route::Side(Side::Right)
            })
        );
        let c =
            parse("[voice]\nshared_device_channels = true\nblind_channel = \"right\"\n").unwrap();
        assert_eq!(
            c.plan()[0].kind,
            OutputKind::Clips(ClipTarget {
                device: None,
                route: Route::Side(Side::Right)
            })
        );
    }

    #[test]
    fn the_engine_for_both_is_one_output_and_none_is_no_output() {
        let c = parse("[voice]\nspeaker = \"tts\"\n").unwrap();
        let plan = c.plan();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].audience, Audience::Both);
        assert!(matches!(plan[0].kind, OutputKind::Tts { .. }));

        let c = parse("[voice]\nspeaker_sighted = \"none\"\n").unwrap();
        let plan = c.plan();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].audience, Audience::Blind);

        let c = parse("[voice]\nspeaker = \"none\"\n").unwrap();
        assert!(c.plan().is_empty());
    }

    #[test]
    fn bad_values_name_the_key_and_the_allowed_range() {
        for (text, key) in [
            ("tts_rate = 150", "voice.tts_rate"),
            ("tts_volume = -1", "voice.tts_volume"),
            ("gap_ms = 5000", "voice.gap_ms"),
            (
                "tts_startup_timeout_ms = 10",
                "voice.tts_startup_timeout_ms",
            ),
            (
                "shared_device_channels = true\ndevice_blind = \"a\"\ndevice_sighted = \"b\"",
                "device_sighted",
            ),
        ] {
            let err = parse(&format!("[voice]\n{text}\n")).unwrap_err();
            assert!(err.contains(key), "{text}: {err}");
        }
        let err = parse("[voice]\nspeaker = \"loud\"\n").unwrap_err();
        assert!(err.contains("clips") && err.contains("tts"), "{err}");
        let err = parse("[voice]\ngapms = 1\n").unwrap_err();
        assert!(err.contains("gap_ms"), "{err}");
    }
}
