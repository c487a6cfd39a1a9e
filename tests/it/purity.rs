//! The house's rules that the compiler cannot check.
//!
//! The compiler guards the core: `tactus-core` (`core/`) cannot name the shell, and without tokio,
//! serial, audio or clap among its dependencies it cannot reach for them; `core/clippy.toml`
//! forbids clock reads, files, threads, processes, sockets and printing, and CI runs clippy on it.
//! What is left for this test:
//! - the core's manifest keeps those crates out (a new dependency is one line away);
//! - `core/clippy.toml` still forbids what it must (a deleted line would pass clippy);
//! - the core never awaits (an `async fn` compiles without a runtime);
//! - inside the shell crate, the layers are used from above only: `config`, `store`, `speech`,
//!   `sim` and `daemon` never use the commands (`cli`);
//! - a board protocol is known only behind its seam (`core/src/board/protocol/`): nothing else
//!   matches on the protocol or reads its wire format, so a new protocol is a file there and a
//!   profile, not edits in the session, the profile checks and the simulator.

use std::{
    fs,
    path::{Path, PathBuf},
};

/// Crates the core must not depend on: the runtime, ports, audio and the command line.
const FORBIDDEN_CRATES: &[&str] = &[
    "tokio",
    "tokio-serial",
    "tokio-util",
    "serialport",
    "mio",
    "cpal",
    "tts",
    "speech-dispatcher",
    "clap",
    "tracing-subscriber",
];

/// What `core/clippy.toml` must keep forbidden.
const MUST_BE_DISALLOWED: &[&str] = &[
    "std::time::Instant::now",
    "std::time::SystemTime::now",
    "std::fs::read",
    "std::fs::write",
    "std::fs::File",
    "std::fs::OpenOptions",
    "std::thread::spawn",
    "std::process::Command",
    "std::net::TcpStream",
    "std::env::var",
    "std::println",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source without comments (line, block and doc comments) and string contents.
fn code_of(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    if c == '\n' {
                        out.push('\n');
                    }
                    prev = c;
                }
            }
            '"' => {
                // Skip a string's contents (escapes included); keep the quotes.
                out.push('"');
                let mut escaped = false;
                for c in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    } else if c == '\n' {
                        out.push('\n');
                    }
                }
                out.push('"');
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The lines of `code` (already without comments) where `word` stands as a whole word.
fn word_lines(code: &str, word: &str) -> Vec<usize> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        let mut offset = 0;
        while let Some(i) = rest.find(word) {
            let at = offset + i;
            let before = line[..at].chars().next_back();
            let after = line[at + word.len()..].chars().next();
            if before.is_none_or(|c| !is_word(c)) && after.is_none_or(|c| !is_word(c)) {
                found.push(n + 1);
                break;
            }
            offset = at + word.len();
            rest = &line[offset..];
        }
    }
    found
}

/// The modules of `crate` named in `code` (`crate::x::...` and `use crate::{x::..., y}`), for the
/// layering check.
fn crate_modules(source: &str) -> Vec<String> {
    let code = code_of(source);
    let mut names: Vec<String> = top_level_names(&code, "crate");
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let name: String = after.chars().take_while(|&c| is_word(c)).collect();
        if !name.is_empty() {
            names.push(name);
        }
        rest = after;
    }
    names
}

/// The names listed directly under `root` in `root::{...}` groups.
fn top_level_names(code: &str, root: &str) -> Vec<String> {
    let mut out = Vec::new();
    let open = format!("{root}::{{");
    let mut search = code;
    let mut base = 0;
    while let Some(i) = search.find(&open) {
        let start = base + i + open.len();
        let mut depth = 1;
        let mut names = String::new();
        let mut end = start;
        for (k, c) in code[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + k;
                        break;
                    }
                }
                _ if depth == 1 => names.push(c),
                _ => names.push(' '),
            }
        }
        for item in names.split([',', ' ', '\n', '\t']) {
            let name = item.split("::").next().unwrap_or("");
            if !name.is_empty() {
                out.push(name.to_string());
            }
        }
        base = end.max(start);
        search = &code[base..];
    }
    out
}

/// `code` (already without comments and strings) without its test code: every item under
/// `#[cfg(test)]` (a test module, a test helper) is blanked, its line breaks kept so that line
/// numbers still point into the file.
fn production_code(code: &str) -> String {
    const TEST_ONLY: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(i) = rest.find(TEST_ONLY) {
        out.push_str(&rest[..i]);
        let item = &rest[i..];
        // The item ends at its first `;` (`mod tests;`) or at the brace closing its first `{`.
        let mut depth = 0;
        let mut end = item.len();
        for (k, c) in item.char_indices() {
            match c {
                ';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Where `code` names a board protocol or its wire format: a variant of `Protocol` (a match arm,
/// a comparison), or an item of a codec module (`dgt::`, `line::`) other than the DGT clock's
/// message, which the clock's driver and the link's events carry for every protocol that has a
/// clock. As (line, what) pairs.
fn protocol_names(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut offset = 0;
    for (n, line) in code.lines().enumerate() {
        for (at, _) in line.match_indices("Protocol::") {
            let name = word_at(&line[at + "Protocol::".len()..]);
            // A variant (`Protocol::Dgt`), not a constant (`Protocol::ALL`) or a method.
            let variant =
                name.starts_with(char::is_uppercase) && name.chars().any(char::is_lowercase);
            if !ends_in_word(&line[..at]) && variant {
                found.push((n + 1, format!("Protocol::{name}")));
            }
        }
        for module in ["dgt", "line"] {
            let path = format!("{module}::");
            for (at, _) in line.match_indices(&path) {
                if ends_in_word(&line[..at]) {
                    continue;
                }
                let after = &line[at + path.len()..];
                let names = if after.starts_with('{') {
                    // A group may run over several lines: read it from the whole code.
                    group_names(&code[offset + at + path.len()..])
                } else {
                    vec![word_at(after)]
                };
                for name in names.into_iter().filter(|n| n != "ClockMessage") {
                    found.push((n + 1, format!("{module}::{name}")));
                }
            }
        }
        offset += line.len() + 1;
    }
    found
}

/// The identifier `text` starts with.
fn word_at(text: &str) -> String {
    text.chars().take_while(|&c| is_word(c)).collect()
}

/// Whether `text` ends in a character of an identifier (`xdgt::` is not `dgt::`).
fn ends_in_word(text: &str) -> bool {
    text.chars().next_back().is_some_and(is_word)
}

/// The first names of the items listed directly in the `{...}` group `text` starts with
/// (`{self, a::b, c}`: `self`, `a`, `c`).
fn group_names(text: &str) -> Vec<String> {
    let mut depth = 0;
    let mut names = String::new();
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                names.push(' ');
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                names.push(' ');
            }
            _ if depth == 1 => names.push(c),
            _ => names.push(' '),
        }
    }
    names
        .split([',', ' ', '\n', '\t'])
        .filter_map(|item| item.split("::").next())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_owned());
        return;
    }
    for entry in fs::read_dir(path).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The dependency names of every `[*dependencies]` table of a manifest.
fn dependencies(manifest: &str) -> Vec<String> {
    let value: toml::Table = manifest.parse().unwrap();
    let mut names = Vec::new();
    for (key, table) in &value {
        if key.ends_with("dependencies")
            && let Some(t) = table.as_table()
        {
            names.extend(t.keys().cloned());
        }
        if key == "target"
            && let Some(targets) = table.as_table()
        {
            for target in targets.values().filter_map(|t| t.as_table()) {
                for (key, t) in target {
                    if key.ends_with("dependencies")
                        && let Some(t) = t.as_table()
                    {
                        names.extend(t.keys().cloned());
                    }
                }
            }
        }
    }
    names
}

#[test]
fn the_core_depends_on_no_runtime_port_audio_or_command_line() {
    let manifest = fs::read_to_string(root().join("core/Cargo.toml")).unwrap();
    let deps = dependencies(&manifest);
    assert!(
        deps.iter().any(|d| d == "shakmaty"),
        "not the core's manifest: {deps:?}"
    );
    let bad: Vec<&String> = deps
        .iter()
        .filter(|d| FORBIDDEN_CRATES.contains(&d.as_str()))
        .collect();
    assert!(
        bad.is_empty(),
        "core/Cargo.toml must not depend on {bad:?}: the core is pure; put what needs them in \
         the shell (the tactus crate)"
    );
}

#[test]
fn the_core_clippy_configuration_forbids_clocks_files_threads_and_printing() {
    let config = fs::read_to_string(root().join("core/clippy.toml")).unwrap();
    let value: toml::Table = config.parse().unwrap();
    let mut paths = Vec::new();
    for key in [
        "disallowed-methods",
        "disallowed-types",
        "disallowed-macros",
    ] {
        for entry in value
            .get(key)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(p) = entry.get("path").and_then(|p| p.as_str()) {
                paths.push(p.to_string());
            }
        }
    }
    let missing: Vec<&&str> = MUST_BE_DISALLOWED
        .iter()
        .filter(|m| !paths.iter().any(|p| p == **m))
        .collect();
    assert!(
        missing.is_empty(),
        "core/clippy.toml no longer forbids {missing:?}"
    );
    let ci = fs::read_to_string(root().join("scripts/test")).unwrap();
    assert!(
        ci.lines()
            .any(|l| l.contains("cargo clippy") && l.contains("-p tactus-core")),
        "the test script must run clippy on the core, or its configuration guards nothing"
    );
}

#[test]
fn the_core_never_awaits() {
    let src = root().join("core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 30, "the core was not found: {files:?}");
    let mut problems = Vec::new();
    for file in &files {
        let code = code_of(&fs::read_to_string(file).unwrap());
        for word in ["async", "await"] {
            for line in word_lines(&code, word) {
                problems.push(format!("{}:{line}: {word}", file.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the core never awaits: return effects and deadlines, and let the shell wait:\n{}",
        problems.join("\n")
    );
}

/// The shell's layers: nothing below the commands uses them.
#[test]
fn the_shell_layers_are_used_from_above_only() {
    let src = root().join("src");
    let mut problems = Vec::new();
    let mut paths = Vec::new();
    for f in ["wall.rs", "config", "store", "speech", "sim", "daemon"] {
        let path = src.join(f);
        if path.exists() {
            rust_files(&path, &mut paths);
        } else {
            rust_files(&src.join(format!("{f}.rs")), &mut paths);
        }
    }
    assert!(paths.len() > 20, "the shell was not found: {paths:?}");
    for file in paths {
        for name in crate_modules(&fs::read_to_string(&file).unwrap()) {
            if name == "cli" {
                problems.push(format!("{} uses crate::cli", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Where a board protocol may be named: its seam, and the wire codecs the protocols there speak.
const PROTOCOL_HOMES: &[&str] = &[
    "core/src/board/protocol/",
    "core/src/board/dgt.rs",
    "core/src/board/line.rs",
];

/// Issue 36: a board protocol is one file behind one trait. Outside its seam, no code (tests
/// aside) matches on the protocol or reads its wire format: the session, the profile, the
/// simulated board and the shell ask the protocol through `BoardProtocol`.
#[test]
fn board_protocols_are_named_only_behind_their_seam() {
    let mut files = Vec::new();
    rust_files(&root().join("core/src"), &mut files);
    rust_files(&root().join("src"), &mut files);
    let mut problems = Vec::new();
    let mut seen_in_homes = 0;
    for file in &files {
        let relative = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // The house puts a module's tests in `tests.rs` (`#[cfg(test)] mod tests;`).
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let code = production_code(&code_of(&fs::read_to_string(file).unwrap()));
        let names = protocol_names(&code);
        if PROTOCOL_HOMES.iter().any(|home| relative.starts_with(home)) {
            seen_in_homes += names.len();
            continue;
        }
        for (line, name) in names {
            problems.push(format!("{relative}:{line}: {name}"));
        }
    }
    assert!(
        seen_in_homes > 10,
        "the check finds no protocol even behind the seam: it is looking in the wrong place"
    );
    assert!(
        problems.is_empty(),
        "a board protocol is named outside its seam; ask the protocol instead (a method of \
         BoardProtocol, LinkCodec or BoardSide in core/src/board/protocol/):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checks_find_what_they_must_and_nothing_else() {
    let code = code_of(
        "async fn f() { g().await }\n// async in a comment\nlet s = \"await\";\nlet awaiting = 1;",
    );
    assert_eq!(word_lines(&code, "async"), [1]);
    assert_eq!(word_lines(&code, "await"), [1]);
    let uses =
        "use crate::{\n    board::{a, b},\n    daemon::hub,\n};\nfn f() { crate::store::x(); }";
    assert_eq!(crate_modules(uses), ["board", "daemon", "store"]);
    let manifest = "[dependencies]\na = \"1\"\n[dev-dependencies]\nb = \"1\"\n\
                    [target.'cfg(unix)'.dependencies]\nc = \"1\"\n";
    assert_eq!(dependencies(manifest), ["a", "b", "c"]);
    let protocols = code_of(
        "use crate::board::{\n    dgt::{self, ClockMessage},\n    line::{HostCommand, LineMessage},\n};\n\
         use super::dgt::ClockMessage;\nlet s = offline::x();\n\
         match p { Protocol::Dgt => 1, _ => 0 }\nlet q = Protocol::ALL; let r = p.spec();\n\
         #[cfg(test)]\nmod tests {\n    fn f() { Protocol::Line; }\n}\nlet t = line::encode();\n",
    );
    assert_eq!(
        protocol_names(&production_code(&protocols)),
        [
            (2, "dgt::self".to_string()),
            (3, "line::HostCommand".to_string()),
            (3, "line::LineMessage".to_string()),
            (7, "Protocol::Dgt".to_string()),
            (13, "line::encode".to_string()),
        ]
    );
}
