//! The words of one seat: a voice pack with the style its moves are said in. What is said to a
//! player, what his console prints of it, what the transcript keeps and what `tactus replay`
//! writes are all [`Wording::words`] of the same announcement, so the printed words are the
//! spoken ones. It words nothing itself: the pack ([`super::voice`]) does.

use super::{
    Announcement,
    voice::{Style, Utterance, VoicePack},
};

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

    pub fn pack(&self) -> &VoicePack {
        &self.pack
    }

    pub fn style(&self) -> Style {
        self.style
    }
}
