//! The game's wording in the shell: the speech task's renderer made from a seat's
//! [`Wording`] (the core's pack and style), so that what speech says, what the consoles, the
//! demo's echo and the transcript print, and what `tactus run` prints of a recovered game are the
//! same words.

pub use tactus_core::announce::Wording;

use tactus_core::announce::Announcement;

use super::task::Render;

/// The speech task's renderer: these words.
pub fn renderer(wording: &Wording) -> Render {
    let wording = wording.clone();
    Box::new(move |announcement: &Announcement| wording.words(announcement))
}
