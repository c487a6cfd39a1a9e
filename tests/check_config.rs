//! `tactus check-config` says "ok" only to what `tactus run` starts with: a console group that
//! does not exist is refused by name, with the key (issue 14).

mod support;

use std::{fs, process::Command};

use support::{process::TACTUS, table::temp_dir};

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
