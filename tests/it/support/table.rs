//! A test table on disk: a fresh temporary folder, the table's `config.toml` (two simulated
//! boards, 90 minutes plus 30 seconds, the console socket and the arbiter's token beside it),
//! faster copies of the shipped board profiles, and speech on the null sound device.
//!
//! Speech: where ALSA is installed, each daemon gets a private `ALSA_CONFIG_PATH` whose default
//! device is the null PCM ([`alsa_null`]), so the clip speaker really plays and an announcement
//! takes real time to finish (tens of milliseconds); elsewhere speech is off and announcements
//! finish at once.
//!
//! The in-process table ([`super::inproc`]) writes its own configuration (a manual sighted
//! board) with the same profiles and time control.

use std::{
    fs,
    path::{Path, PathBuf},
};

use shakmaty::Color;

/// The time control of every test table (and its increment).
pub const TIME_CONTROL: &str = "5400+30";
pub const INCREMENT_MS: i64 = 30_000;
pub const INITIAL_MS: i64 = 5_400_000;

/// A fresh folder under the system's temporary folder, removed by the caller on success (kept
/// for a look when the test fails). The one way the shell's tests make a folder: a new name at
/// every call, so that tests running at once never share one.
pub fn temp_dir(tag: &str) -> PathBuf {
    static FOLDERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = FOLDERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tactus-{tag}-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The shipped voice packs (`voices/` at the top of the repository).
pub fn voices_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("voices")
}

/// A faster copy of a built-in profile (the recognition rules are the same; the board answers
/// and settles sooner), written into `dir`.
pub fn fast_profile(dir: &Path, file: &str, edits: &[(&str, &str)]) -> String {
    let mut text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("boards")
            .join(file),
    )
    .unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{file} has no {from}");
        text = text.replace(from, to);
    }
    let name = format!("fast-{file}");
    fs::write(dir.join(&name), text).unwrap();
    name
}

/// Speech on the null PCM (see the module docs), or `None` where ALSA is not installed.
pub fn alsa_null(dir: &Path) -> Option<PathBuf> {
    let system = Path::new("/usr/share/alsa/alsa.conf");
    if !system.is_file() {
        return None;
    }
    let path = dir.join("alsa.conf");
    // The include line matters: ALSA_CONFIG_PATH replaces the whole top-level configuration.
    fs::write(
        &path,
        format!(
            "<{}>\npcm.!default {{\n    type null\n}}\n",
            system.display()
        ),
    )
    .unwrap();
    Some(path)
}

/// A table in `dir`: the blind player (of colour `blind`) on a pegged board in the line
/// protocol, the sighted player on a DGT board whose moves count when it settles, both
/// simulated, with faster profiles than the shipped ones; 90 minutes plus 30 seconds;
/// `speaker` "clips" or "none". Returns the configuration file.
pub fn write_config(dir: &Path, blind: Color, speaker: &str) -> PathBuf {
    let (pegged, dgt) = fast_profiles(dir);
    config_with(dir, blind, speaker, &pegged, &dgt, "settle")
}

/// [`write_config`] with the sighted player's move completed by `completion` (`settle` or
/// `press`).
pub fn write_config_completion(
    dir: &Path,
    blind: Color,
    speaker: &str,
    completion: &str,
) -> PathBuf {
    let (pegged, dgt) = fast_profiles(dir);
    config_with(dir, blind, speaker, &pegged, &dgt, completion)
}

/// The same table with the boards' profiles as shipped (`pegged-line`, `dgt`).
pub fn write_shipped_config(dir: &Path, blind: Color, speaker: &str) -> PathBuf {
    config_with(dir, blind, speaker, "pegged-line", "dgt", "settle")
}

/// The shipped profiles made faster for tests, written into `dir`: (pegged, DGT) profile paths.
pub fn fast_profiles(dir: &Path) -> (String, String) {
    let dgt = fast_profile(
        dir,
        "dgt.toml",
        &[
            ("name = \"dgt\"", "name = \"fast-dgt\""),
            ("baud = 9600", "baud = 38400"),
            // The simulator reports every change at once: no sweep to wait for.
            ("scan_ms = 255", "scan_ms = 50"),
            ("keepalive_ms = 2000", "keepalive_ms = 1000"),
        ],
    );
    let pegged = fast_profile(
        dir,
        "pegged-line.toml",
        &[
            ("name = \"pegged-line\"", "name = \"fast-pegged-line\""),
            ("bounce_ms = 40", "bounce_ms = 20"),
        ],
    );
    (pegged, dgt)
}

fn config_with(
    dir: &Path,
    blind: Color,
    speaker: &str,
    pegged: &str,
    dgt: &str,
    completion: &str,
) -> PathBuf {
    let blind = match blind {
        Color::White => "white",
        Color::Black => "black",
    };
    let config = format!(
        "[game]\nwhite = \"White\"\nblack = \"Black\"\nblind = \"{blind}\"\n\
         time_control = \"{TIME_CONTROL}\"\nguidance_repeat_ms = 3000\n\
         [boards.blind]\nprofile = \"{pegged}\"\nport = \"sim\"\n\
         [boards.sighted]\nprofile = \"{dgt}\"\nport = \"sim\"\ncompletion = \"{completion}\"\n\
         [voice]\npack = \"de-fide\"\nstyle = \"san\"\nspeaker = \"{speaker}\"\n\
         [record]\ndir = \"played\"\n\
         [console]\nsocket = \"console.sock\"\ntoken_file = \"arbiter.token\"\n"
    );
    let path = dir.join("config.toml");
    fs::write(&path, config).unwrap();
    path
}
