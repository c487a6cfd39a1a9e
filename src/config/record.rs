//! `[record]`: where the game folders go and how the Braille score is laid out.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use serde::Deserialize;

/// `[record]`: where the game folders go and how the Braille score is laid out.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSection {
    /// The output folder; each game gets a folder of its own inside it.
    #[serde(default = "default_record_dir")]
    pub dir: PathBuf,
    /// The Braille chess notation profile (see `tactus scoresheet --help`); absent: the one of
    /// the blind player's language ([`Config::braille_profile`](super::Config::braille_profile)).
    #[serde(default)]
    pub braille_profile: Option<String>,
    /// The Braille page: cells per line and lines per page (embosser page, default 40 x 25).
    #[serde(default = "default_page_cells")]
    pub page_cells: usize,
    #[serde(default = "default_page_lines")]
    pub page_lines: usize,
}

fn default_record_dir() -> PathBuf {
    PathBuf::from("played")
}
fn default_page_cells() -> usize {
    40
}
fn default_page_lines() -> usize {
    25
}

impl Default for RecordSection {
    fn default() -> Self {
        RecordSection {
            dir: default_record_dir(),
            braille_profile: None,
            page_cells: default_page_cells(),
            page_lines: default_page_lines(),
        }
    }
}

impl RecordSection {
    /// `[record]`: a Braille profile tactus knows, a page an embosser can take.
    pub fn check(&self, origin: &str) -> Result<()> {
        if let Some(profile) = &self.braille_profile {
            tactus_core::record::braille::Profile::named(profile)
                .map_err(|e| anyhow!("{origin}: key record.braille_profile: {e}"))?;
        }
        if self.page_cells < 20 || self.page_lines < 5 {
            bail!(
                "{origin}: record.page_cells = {}, record.page_lines = {}: a Braille page needs at \
                 least 20 cells and 5 lines (40 x 25 is the usual embosser page)",
                self.page_cells,
                self.page_lines
            );
        }
        Ok(())
    }
}
