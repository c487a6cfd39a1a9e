//! `tactus check-config` says "ok" only to what `tactus run` starts with: a console group that
//! does not exist (issue 14) or a voice pack that does not exist (issue 15) is refused by name,
//! with the key; and `tactus run` refuses the same before it makes any game folder.

mod support;

use std::{fs, process::Command};

use shakmaty::Color;
use support::{
    process::TACTUS,
    table::{temp_dir, write_config},
};

#[test]
fn a_console_group_that_does_not_exist_is_refused_naming_the_key() {
    let dir = temp_dir("check-config-group");
    let bad = dir.join("bad.toml");
    fs::write(&bad, "[console]\ngroup = \"no-such-group-tactus\"\n").unwrap();
    let out = Command::new(TACTUS)
        .args(["check-config"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.toml")
            && err.contains("no-such-group-tactus")
            && err.contains("console.group"),
        "{err}"
    );
    // The group every Linux system has (gid 0) is accepted, by name or number.
    for group in ["root", "0"] {
        let good = dir.join("good.toml");
        fs::write(&good, format!("[console]\ngroup = \"{group}\"\n")).unwrap();
        let out = Command::new(TACTUS)
            .args(["check-config"])
            .arg(&good)
            .output()
            .unwrap();
        assert!(out.status.success(), "{group}: {out:?}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_voice_pack_that_does_not_exist_is_refused_before_any_game_is_made() {
    let dir = temp_dir("check-config-pack");
    let config = write_config(&dir, Color::White, "none");
    let text = fs::read_to_string(&config)
        .unwrap()
        .replace("pack = \"de-fide\"", "pack = \"de\"");
    fs::write(&config, text).unwrap();
    let out = Command::new(TACTUS)
        .arg("check-config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("voice.pack") && err.contains("config.toml"),
        "{err}"
    );
    // `run` refuses it too, and leaves no game folder behind to be "resumed" later.
    let out = Command::new(TACTUS)
        .current_dir(&dir)
        .args(["run", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("voice.pack"), "{err}");
    let played = dir.join("played");
    let folders = fs::read_dir(&played).map_or(0, |d| d.count());
    assert_eq!(folders, 0, "a game folder was made in {}", played.display());
    fs::remove_dir_all(&dir).unwrap();
}
