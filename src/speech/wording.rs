//! The game's wording: its voice pack and move style, the one renderer of announcement text in
//! the shell. What speech says ([`Wording::renderer`], the speech task's `Render`), what the
//! consoles, the demo's echo and the transcript's notes print of it, the last words the blind
//! player may have said again, and what `tactus run` prints of a recovered game are all
//! [`Wording::words`] of the same announcement, so the printed words are the spoken ones.
//!
//! It words nothing itself: the pack ([`tactus_core::announce::voice`]) does.

use tactus_core::announce::{
    Announcement,
    voice::{Style, Utterance, VoicePack},
};

use super::task::Render;

/// A voice pack with the style its moves are said in.
#[derive(Debug, Clone)]
pub struct Wording {
    pack: VoicePack,
    style: Style,
}

impl Wording {
    pub fn new(pack: VoicePack, style: Style) -> Wording {
        Wording { pack, style }
    }

    /// What is said for `announcement`: its text and its clips.
    pub fn words(&self, announcement: &Announcement) -> Utterance {
        self.pack.render(announcement, self.style)
    }

    /// The text of what is said for `announcement` (for consoles, notes, the transcript).
    pub fn text(&self, announcement: &Announcement) -> String {
        self.words(announcement).text
    }

    /// The speech task's renderer: these words.
    pub fn renderer(&self) -> Render {
        let wording = self.clone();
        Box::new(move |announcement: &Announcement| wording.words(announcement))
    }

    pub fn pack(&self) -> &VoicePack {
        &self.pack
    }

    pub fn style(&self) -> Style {
        self.style
    }
}
