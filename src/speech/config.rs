//! `[voice]` in `config.toml`: which speaker serves which player, on which device, in which voice
//! pack, and how the engine speaks; and the plan of outputs that follows from it. A seat's own
//! `[voice.white]` / `[voice.black]` sets its pack, speaker, device and channel (two blind players
//! from two countries each hear their own language); at a table with one blind player the
//! `*_blind` / `*_sighted` keys say the same for his seat and the other.
//!
//! Pure: parsing (serde, strict like the rest of the configuration), checking and planning. It
//! opens no device and starts no engine; [`super::task`] builds what the plan says.

use std::time::Duration;

use serde::Deserialize;

use shakmaty::{ByColor, Color};
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
    pub fn other(self) -> Side {
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
    /// `[voice.white]`, `[voice.black]`: a seat's own voice.
    pub white: Option<SeatVoice>,
    pub black: Option<SeatVoice>,
}

/// `[voice.white]` or `[voice.black]`: what one seat's player hears, where it differs from
/// `[voice]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatVoice {
    /// His voice pack (`de-fide`, `en`, ...).
    pub pack: Option<String>,
    pub speaker: Option<SpeakerKind>,
    /// His output device.
    pub device: Option<String>,
    /// With `shared_device_channels`: his side of the shared device.
    pub channel: Option<Side>,
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
            white: None,
            black: None,
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

/// One output and the audiences it serves (`Both` when it serves both), in its voice pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPlan {
    pub audience: Audience,
    pub kind: OutputKind,
    pub pack: String,
}

/// What one seat's player hears and where, the file's keys resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SeatPlan {
    speaker: SpeakerKind,
    device: Option<String>,
    channel: Side,
    pack: String,
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

    /// The seat of each colour's voice: its own `[voice.<colour>]` key, else at a table with one
    /// blind player (`blind`) the `*_blind` / `*_sighted` key of its player, else `[voice]`'s.
    fn seat(&self, seat: Color, blind: ByColor<bool>) -> SeatPlan {
        let own = seat
            .fold_wb(&self.white, &self.black)
            .clone()
            .unwrap_or_default();
        let one_blind = blind.white != blind.black;
        let (legacy_speaker, legacy_device) = match (one_blind, blind[seat]) {
            (true, true) => (self.speaker_blind, self.device_blind.clone()),
            (true, false) => (self.speaker_sighted, self.device_sighted.clone()),
            // Two blind players: White keeps the first device's keys.
            (false, _) => (None, seat.fold_wb(self.device_blind.clone(), None)),
        };
        // Sides of a shared device: the blind player (or White) on `blind_channel`.
        let first = if one_blind {
            blind[seat]
        } else {
            seat == Color::White
        };
        let channel = own.channel.unwrap_or(if first {
            self.blind_channel
        } else {
            self.blind_channel.other()
        });
        SeatPlan {
            speaker: own.speaker.or(legacy_speaker).unwrap_or(self.speaker),
            device: own.device.or(legacy_device),
            channel,
            pack: own.pack.unwrap_or_else(|| self.voice.clone()),
        }
    }

    /// Each seat's voice pack.
    pub fn packs(&self, blind: ByColor<bool>) -> ByColor<String> {
        ByColor::new_with(|c| self.seat(c, blind).pack)
    }

    /// The speaker of `seat`'s player.
    pub fn speaker_of(&self, seat: Color, blind: ByColor<bool>) -> SpeakerKind {
        self.seat(seat, blind).speaker
    }

    /// What cannot work at this table: two seats that sound from one place in two languages.
    pub fn check_seats(&self, blind: ByColor<bool>) -> Result<(), String> {
        let (w, b) = (
            self.seat(Color::White, blind),
            self.seat(Color::Black, blind),
        );
        if w.pack != b.pack && self.same_place(&w, &b) {
            return Err(format!(
                "voice.white.pack = \"{}\" and voice.black.pack = \"{}\" differ, but both players \
                 hear the same {}: give each seat its own device (voice.white.device, \
                 voice.black.device) or side (shared_device_channels = true), or one pack",
                w.pack,
                b.pack,
                if w.speaker == SpeakerKind::Tts {
                    "speech engine"
                } else {
                    "device"
                }
            ));
        }
        Ok(())
    }

    /// Whether two seats' speech would sound from the same place (the speech engine, or the same
    /// device without a channel split).
    fn same_place(&self, w: &SeatPlan, b: &SeatPlan) -> bool {
        match (w.speaker, b.speaker) {
            (SpeakerKind::Tts, SpeakerKind::Tts) => true,
            (SpeakerKind::Clips, SpeakerKind::Clips) => {
                !self.shared_device_channels && w.device == b.device
            }
            _ => false,
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

    /// The outputs this configuration asks for at a table whose blind players are `blind`. Two
    /// seats whose speech would sound from the same place (the speech engine, or the same device
    /// without a channel split) share one output, so an announcement to both is said once and
    /// never overlaps itself. The blind player's output comes first (with two, White's).
    pub fn plan(&self, blind: ByColor<bool>) -> Vec<OutputPlan> {
        let order = if blind.black && !blind.white {
            [Color::Black, Color::White]
        } else {
            Color::ALL
        };
        let seats = ByColor::new_with(|c| self.seat(c, blind));
        let target = |seat: &SeatPlan| -> ClipTarget {
            if self.shared_device_channels {
                ClipTarget {
                    device: self.device_blind.clone(),
                    route: Route::Side(seat.channel),
                }
            } else {
                ClipTarget {
                    device: seat.device.clone(),
                    route: Route::Whole,
                }
            }
        };
        let single = |c: Color| -> Option<OutputPlan> {
            let seat = &seats[c];
            let kind = match seat.speaker {
                SpeakerKind::None => return None,
                SpeakerKind::Clips => OutputKind::Clips(target(seat)),
                SpeakerKind::Tts => OutputKind::Tts {
                    fallback: target(seat),
                },
            };
            Some(OutputPlan {
                audience: Audience::Player(c),
                kind,
                pack: seat.pack.clone(),
            })
        };
        let first = &seats[order[0]];
        if self.same_place(&seats.white, &seats.black) {
            let whole = ClipTarget {
                device: first.device.clone(),
                route: Route::Whole,
            };
            let kind = if first.speaker == SpeakerKind::Tts {
                OutputKind::Tts { fallback: whole }
            } else {
                OutputKind::Clips(whole)
            };
            return vec![OutputPlan {
                audience: Audience::Both,
                kind,
                pack: first.pack.clone(),
            }];
        }
        order.into_iter().filter_map(single).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table whose blind player is White.
    const ONE: ByColor<bool> = ByColor {
        white: true,
        black: false,
    };
    const TWO: ByColor<bool> = ByColor {
        white: true,
        black: true,
    };

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
            c.plan(ONE),
            vec![OutputPlan {
                audience: Audience::Both,
                kind: OutputKind::Clips(ClipTarget {
                    device: None,
                    route: Route::Whole
                }),
                pack: "de-fide".into(),
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
            c.plan(ONE),
            vec![
                OutputPlan {
                    audience: Audience::Player(Color::White),
                    kind: OutputKind::Tts {
                        fallback: ClipTarget {
                            device: Some("hw:1".into()),
                            route: Route::Whole
                        }
                    },
                    pack: "es-fide".into(),
                },
                OutputPlan {
                    audience: Audience::Player(Color::Black),
                    kind: OutputKind::Clips(ClipTarget {
                        device: Some("hw:2".into()),
                        route: Route::Whole
                    }),
                    pack: "es-fide".into(),
                },
            ]
        );
    }

    #[test]
    fn a_shared_device_puts_the_audiences_on_the_two_sides() {
        let c = parse("[voice]\nshared_device_channels = true\ndevice_blind = \"usb\"\n").unwrap();
        let plan = c.plan(ONE);
        assert_eq!(plan.len(), 2);
        assert_eq!(
            plan[0].kind,
            OutputKind::Clips(ClipTarget {
                device: Some("usb".into()),
                route: Route::Side(Side::Left)
            })
        );
        assert_eq!(plan[1].audience, Audience::Player(Color::Black));
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
            c.plan(ONE)[0].kind,
            OutputKind::Clips(ClipTarget {
                device: None,
                route: Route::Side(Side::Right)
            })
        );
    }

    #[test]
    fn the_engine_for_both_is_one_output_and_none_is_no_output() {
        let c = parse("[voice]\nspeaker = \"tts\"\n").unwrap();
        let plan = c.plan(ONE);
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].audience, Audience::Both);
        assert!(matches!(plan[0].kind, OutputKind::Tts { .. }));

        let c = parse("[voice]\nspeaker_sighted = \"none\"\n").unwrap();
        let plan = c.plan(ONE);
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].audience, Audience::Player(Color::White));

        let c = parse("[voice]\nspeaker = \"none\"\n").unwrap();
        assert!(c.plan(ONE).is_empty());
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

    #[test]
    fn each_seat_may_have_its_own_pack_device_and_side() {
        // Two blind players from two countries, each on his headphones.
        let c = parse(
            "[voice]\npack = \"de-fide\"\n[voice.white]\ndevice = \"hw:1\"\n\
             [voice.black]\npack = \"en\"\ndevice = \"hw:2\"\n",
        )
        .unwrap();
        assert!(c.check_seats(TWO).is_ok());
        let plan = c.plan(TWO);
        assert_eq!(
            plan.iter()
                .map(|p| (p.audience, p.pack.as_str()))
                .collect::<Vec<_>>(),
            vec![
                (Audience::Player(Color::White), "de-fide"),
                (Audience::Player(Color::Black), "en")
            ]
        );
        assert_eq!(
            plan[1].kind,
            OutputKind::Clips(ClipTarget {
                device: Some("hw:2".into()),
                route: Route::Whole
            })
        );
        // One device for both, split by channels: each on his side.
        let c = parse(
            "[voice]\nshared_device_channels = true\ndevice_blind = \"usb\"\n\
             [voice.black]\nchannel = \"left\"\n[voice.white]\nchannel = \"right\"\n",
        )
        .unwrap();
        let plan = c.plan(TWO);
        assert_eq!(
            plan[0].kind,
            OutputKind::Clips(ClipTarget {
                device: Some("usb".into()),
                route: Route::Side(Side::Right)
            })
        );
        // Two languages on one device, unsplit: refused, naming the keys.
        let c = parse("[voice.black]\npack = \"en\"\n").unwrap();
        let err = c.check_seats(TWO).unwrap_err();
        assert!(
            err.contains("voice.white.pack") && err.contains("voice.black.device"),
            "{err}"
        );
        // A table with one blind player: Black's (the sighted player's) keys by colour too.
        let c = parse("[voice.black]\nspeaker = \"none\"\n").unwrap();
        assert_eq!(c.plan(ONE).len(), 1);
        assert_eq!(c.plan(ONE)[0].audience, Audience::Player(Color::White));
        let err = parse("[voice.white]\nvolume = 3\n").unwrap_err();
        assert!(err.contains("volume") && err.contains("pack"), "{err}");
    }
}
