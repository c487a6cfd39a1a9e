//! The game's voice as a run sets it up: the words of the journal's pack in its style (a resumed
//! game keeps its voice), the pack's clips for the speakers, and what the audio scoresheet needs.

use anyhow::{Context, Result};
use tracing::warn;

use std::path::Path;

use super::files::AudioSettings;
use crate::{config::Settings, speech::Wording};
use tactus_core::{announce::voice::split_spec, journal::SetupRecord};

/// The game's voice: the words of its pack (the journal's pack, so a resumed game keeps its
/// voice) and, when the pack has clips, what the audio scoresheet needs.
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
    pub(super) fn load(
        settings: &Settings,
        voices_dir: &Path,
        setup: &SetupRecord,
    ) -> Result<Voice> {
        let pack = crate::store::voices::load_words(voices_dir, &setup.voice_pack)
            .with_context(|| format!("{}: key voice.pack", settings.origin))?;
        let style = setup.voice_style;
        // The recording joins words with the same silences as the speakers, so it sounds the
        // same.
        let spacing = tactus_core::record::wav::Spacing {
            gap_ms: settings.voice.gap_ms,
            pause_ms: settings.voice.pause_ms,
        };
        let audio = match crate::store::voices::load(voices_dir, &setup.voice_pack) {
            Ok((pack, clips)) => Some((pack, style, spacing, clips)),
            Err(e) => {
                warn!("no audio scoresheet: {e}");
                None
            }
        };
        let pack_name = split_spec(&setup.voice_pack)
            .map(|(name, _)| name.to_owned())
            .unwrap_or_else(|_| setup.voice_pack.clone());
        Ok(Voice {
            wording: Wording::new(pack, style),
            spec: setup.voice_pack.clone(),
            pack_name,
            audio,
        })
    }
}
