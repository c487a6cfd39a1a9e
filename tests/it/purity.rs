//! The house's rules that the compiler cannot check.
//!
//! The compiler guards the core: `tactus-core` (`core/`) cannot name the shell, and without tokio,
//! serial, audio or clap among its dependencies it cannot reach for them; `core/clippy.toml`
//! forbids clock reads, files, threads, processes, sockets and printing, and CI runs clippy on it.
//! What is left for this test:
//! - the core's manifest keeps those crates out (a new dependency is one line away);
//! - `core/clippy.toml` still forbids what it must (a deleted line would pass clippy);
//! - the core never awaits (an `async fn` compiles without a runtime);
//! - the core's modules are used from above only, in the order `core/src/lib.rs` lists them (a
//!   module names only those before it; tests are left out: they stand above everything);
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
            // A quote as a character (`'"'`, `b'"'`, `'\"'`) opens no string.
            '\'' if {
                let ahead: String = chars.clone().take(3).collect();
                ahead.starts_with("\"'") || ahead.starts_with("\\\"'")
            } =>
            {
                out.push(c);
                for c in chars.by_ref() {
                    out.push(c);
                    if c == '\'' {
                        break;
                    }
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

/// The core's modules in the order `core/src/lib.rs` promises, from the bottom up: the names of
/// its `//! - [`name`]` lines. The list is the promise; adding a module is adding its line there.
fn core_order(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("//! - [`"))
        .filter_map(|l| l.split_once("`]"))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// The modules `lib.rs` declares (`pub mod name;`, `mod name;`).
fn declared_modules(lib: &str) -> Vec<String> {
    code_of(lib)
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("pub ").unwrap_or(l).strip_prefix("mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

/// `code` (already without comments and strings) without its test code: every item under a
/// `#[cfg(test)]` (an inline `mod tests { ... }`, a `use`, a `mod tests;`). Returns the code kept
/// and the names of the test modules declared in files of their own (`mod tests;`).
fn product_code(code: &str) -> (String, Vec<String>) {
    const ATTR: &str = "#[cfg(test)]";
    let mut kept = String::with_capacity(code.len());
    let mut test_files = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(ATTR) {
        kept.push_str(&rest[..at]);
        let item = &rest[at + ATTR.len()..];
        // The item ends at its first `;` outside braces, or where its first brace closes.
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        let words: Vec<&str> = item[..end]
            .split(|c: char| !is_word(c))
            .filter(|w| !w.is_empty())
            .collect();
        if let [.., "mod", name] = words.as_slice()
            && item[..end].trim_end().ends_with(';')
        {
            test_files.push(name.to_string());
        }
        // Keep the lines, for the line numbers of what follows.
        kept.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    kept.push_str(rest);
    (kept, test_files)
}

/// The core modules a core file at `path` (relative to `core/src`) names: `crate::x`,
/// `use crate::{x, ...}`, and `super::` paths that climb to the crate's root (`super::super::x`
/// from `a/b.rs`).
fn core_modules_named(path: &Path, code: &str) -> Vec<String> {
    let mut names = crate_modules(code);
    // The file's module path: `a/b/mod.rs` is `a::b`, `a/b.rs` is `a::b`.
    let mut depth = path.components().count();
    if path.file_name().is_some_and(|n| n == "mod.rs") {
        depth -= 1;
    }
    let mut rest = code;
    while let Some(i) = rest.find("super::") {
        let before = rest[..i].chars().next_back();
        let mut after = &rest[i..];
        let mut climbs = 0;
        while let Some(next) = after.strip_prefix("super::") {
            climbs += 1;
            after = next;
        }
        if before.is_none_or(|c| !is_word(c)) && climbs >= depth {
            let name: String = after.chars().take_while(|&c| is_word(c)).collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
        rest = &rest[i + "super::".len() * climbs..];
    }
    names
}

/// The core's modules: each uses only those before it in `core/src/lib.rs`'s list, so that the
/// layers the list draws are the layers the code has (no module is reached from below, no two
/// modules use each other). Tests are left out: a module's tests may use higher ones (the
/// recogniser's tests move pieces with `sim`'s hands) without the module depending on them.
#[test]
fn each_core_module_uses_only_those_before_it_in_the_list() {
    let src = root().join("core/src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let order = core_order(&lib);
    let mut declared = declared_modules(&lib);
    declared.sort();
    let mut listed = order.clone();
    listed.sort();
    assert_eq!(
        listed, declared,
        "core/src/lib.rs must list each of its modules once, in its place among the others (a \
         line `//! - [`name`]: what it owns`)"
    );
    let mut problems = Vec::new();
    for (place, module) in order.iter().enumerate() {
        let mut files = Vec::new();
        let folder = src.join(module);
        if folder.is_dir() {
            rust_files(&folder, &mut files);
        } else {
            files.push(src.join(format!("{module}.rs")));
        }
        files.sort();
        // Files of test modules (`#[cfg(test)] mod tests;`): their folders, once seen.
        let mut test_dirs: Vec<PathBuf> = Vec::new();
        for file in &files {
            if test_dirs.iter().any(|d| file.starts_with(d)) {
                continue;
            }
            let (code, test_modules) = product_code(&code_of(&fs::read_to_string(file).unwrap()));
            // `a/b.rs`'s `mod tests;` is `a/b/tests.rs` (or `a/b/tests/`); `a/mod.rs`'s is `a/tests.rs`.
            let stem = file.file_stem().unwrap_or_default();
            let children = if stem == "mod" {
                file.parent().unwrap().to_owned()
            } else {
                file.with_extension("")
            };
            for name in test_modules {
                test_dirs.push(children.join(&name));
                test_dirs.push(children.join(format!("{name}.rs")));
            }
            let relative = file.strip_prefix(&src).unwrap();
            for name in core_modules_named(relative, &code) {
                let Some(used) = order.iter().position(|m| *m == name) else {
                    continue;
                };
                if used > place {
                    problems.push(format!(
                        "{} uses crate::{name}, which stands after {module} in core/src/lib.rs",
                        file.display()
                    ));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(
        problems.is_empty(),
        "a core module uses only those before it in core/src/lib.rs's list: move what both need \
         below both, or pass it in\n{}",
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
        let code = product_code(&code_of(&fs::read_to_string(file).unwrap())).0;
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
    let quotes =
        code_of("let q = b'\"'; let e = '\\\"'; crate::seen::x();\nlet s = \"crate::hidden\";");
    assert_eq!(crate_modules(&quotes), ["seen"], "{quotes}");
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
        protocol_names(&product_code(&protocols).0),
        [
            (2, "dgt::self".to_string()),
            (3, "line::HostCommand".to_string()),
            (3, "line::LineMessage".to_string()),
            (7, "Protocol::Dgt".to_string()),
            (13, "line::encode".to_string()),
        ]
    );
    let lib =
        "//! - [`low`]: below.\n//!   more of it.\n//! - [`high`]: above.\npub mod high;\nmod low;";
    assert_eq!(core_order(lib), ["low", "high"]);
    assert_eq!(declared_modules(lib), ["high", "low"]);
    let (code, test_files) = product_code(&code_of(
        "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n#[cfg(test)]\nmod more;\n\
         #[cfg(test)]\nuse crate::c;\nfn f() { crate::d::g(); }",
    ));
    assert_eq!(crate_modules(&code), ["a", "d"]);
    assert_eq!(test_files, ["more"]);
    assert_eq!(code.lines().count(), 10, "the lines are kept: {code:?}");
    let climbing =
        "use super::super::high::X;\nuse super::sibling;\nfn f() { super::super::low::g() }";
    assert!(
        core_modules_named(Path::new("low/deeper/file.rs"), climbing).is_empty(),
        "three levels down, two climbs stay inside `low`"
    );
    assert_eq!(
        core_modules_named(Path::new("low/file.rs"), climbing),
        ["high", "low"]
    );
    assert_eq!(
        core_modules_named(Path::new("low/file/mod.rs"), climbing),
        ["high", "low"]
    );
}
