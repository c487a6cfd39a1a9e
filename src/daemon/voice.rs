//! The game's voices as a run sets them up: each seat's words in the journal's pack for it, in its
//! style (a resumed game keeps its voices; two blind players from two countries each hear their
//! own), the packs' clips for the speakers, and what each blind player's audio scoresheet needs.

use anyhow::{Context, Result};
use tracing::warn;

use std::path::Path;

use shakmaty::{ByColor, Color};

use super::files::AudioSettings;
use crate::{config::Settings, speech::Wording};
use tactus_core::{announce::voice::split_spec, journal::SetupRecord};

/// Each seat's voice.
pub(super) struct Voices {
    pub(super) seats: ByColor<Voice>,
}

impl Voices {
    /// The voice of each seat: the journal's pack for it (`voice.pack`, or the seat's own).
    pub(super) fn load(
        settings: &Settings,
        voices_dir: &Path,
        setup: &SetupRecord,
    ) -> Result<Voices> {
        let (one, own) = ("voice.pack", |seat: Color| format!("voice.{seat}.pack"));
        let two = setup.pack_of(Color::Black) != setup.pack_of(Color::White);
        let key = |seat| if two { own(seat) } else { one.to_string() };
        let white = Voice::load(
            settings,
            voices_dir,
            setup,
            setup.pack_of(Color::White),
            &key(Color::White),
        )?;
        let black = if two {
            Voice::load(
                settings,
                voices_dir,
                setup,
                setup.pack_of(Color::Black),
                &key(Color::Black),
            )?
        } else {
            white.clone()
        };
        Ok(Voices {
            seats: ByColor { white, black },
        })
    }

    /// Each seat's words.
    pub(super) fn wordings(&self) -> ByColor<Wording> {
        self.seats.as_ref().map(|v| v.wording.clone())
    }
}

/// One voice: the words of its pack (the journal's, so a resumed game keeps its voice) and, when
/// the pack has clips, what an audio scoresheet needs.
#[derive(Clone)]
pub(super) struct Voice {
    /// The pack's words in the game's style: what is said and printed.
    pub(super) wording: Wording,
    /// The pack as the setup names it (`name` or `name:variant`).
    pub(super) spec: String,
    /// The pack's folder name, without the variant.
    pub(super) pack_name: String,
    pub(super) audio: Option<AudioSettings>,
}

impl Voice {
    fn load(
        settings: &Settings,
        voices_dir: &Path,
        setup: &SetupRecord,
        spec: &str,
        key: &str,
    ) -> Result<Voice> {
        let pack = crate::store::voices::load_words(voices_dir, spec)
            .with_context(|| format!("{}: key {key}", settings.origin))?;
        let style = setup.voice_style;
        // The recording joins words with the same silences as the speakers, so it sounds the
        // same.
        let spacing = tactus_core::record::wav::Spacing {
            gap_ms: settings.voice.gap_ms,
            pause_ms: settings.voice.pause_ms,
        };
        let audio = match crate::store::voices::load(voices_dir, spec) {
            Ok((pack, clips)) => Some((pack, style, spacing, clips)),
            Err(e) => {
                warn!("no audio scoresheet: {e}");
                None
            }
        };
        let pack_name = split_spec(spec)
            .map(|(name, _)| name.to_owned())
            .unwrap_or_else(|_| spec.to_owned());
        Ok(Voice {
            wording: Wording::new(pack, style),
            spec: spec.to_owned(),
            pack_name,
            audio,
        })
    }
}
