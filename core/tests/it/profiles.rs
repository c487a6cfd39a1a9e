//! The shipped board profiles on disk and the ones built into the binary are the same: every
//! `boards/*.toml` parses, is named after its file, and is exactly what `ProfileSet::builtin()`
//! serves (kept out of the pure `board::profile` module because it reads the folder).

use tactus_core::board::profile::{Profile, ProfileSet};

use crate::support::corpus::workspace_top;

#[test]
fn every_shipped_file_parses_is_named_after_its_file_and_is_built_in() {
    let dir = workspace_top().join("boards");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("boards/ exists")
        .map(|e| {
            e.expect("readable entry")
                .file_name()
                .into_string()
                .expect("UTF-8 name")
        })
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    let builtin = ProfileSet::builtin();
    let mut embedded: Vec<String> = builtin.names().map(|n| format!("{n}.toml")).collect();
    embedded.sort();
    assert_eq!(
        on_disk, embedded,
        "every boards/*.toml must be built in, and nothing else"
    );
    for name in &on_disk {
        let text = std::fs::read_to_string(dir.join(name)).expect("readable");
        let profile = Profile::parse(&text, name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(format!("{}.toml", profile.name), *name);
        assert_eq!(
            builtin.get(&profile.name).unwrap(),
            &profile,
            "{name}: the built-in copy differs"
        );
    }
    assert_eq!(builtin.names().collect::<Vec<_>>(), ["dgt", "pegged-line"]);
}
