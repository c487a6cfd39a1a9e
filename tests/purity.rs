//! The core stays pure: the compiler check that a one-crate layout lacks.
//!
//! The core modules (`rules`, `board`, `arbiter`, `announce`, `record`, `console`, `sim` but its
//! `serve` loop, and `audit`) never await, never read the clock, never touch files, sockets,
//! processes or threads: time comes in as an argument, results go out as values (DESIGN §2). This
//! test reads their source and fails on any mention, in code (not in comments), of `tokio` (and
//! its `tokio_*` crates), `std::fs`, `std::net`, `std::process`, `std::thread` (also inside a
//! `use std::{...}` list), `Instant::now` or `SystemTime`. A chess `File` is not I/O: only these
//! paths are matched.

use std::{
    fs,
    path::{Path, PathBuf},
};

/// The core, below the shell (paths from the crate's `src/`).
const CORE: &[&str] = &[
    "rules", "board", "arbiter", "announce", "record", "console", "sim", "audit.rs", "engine",
];
/// The shell files that live beside the core they serve.
const SHELL_EXCEPTIONS: &[&str] = &["sim/serve.rs"];

const FORBIDDEN_PATHS: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "Instant::now",
    "SystemTime",
];
const FORBIDDEN_IN_STD_LIST: &[&str] = &["fs", "net", "process", "thread"];

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

/// Every forbidden mention in `source`, as (line, what).
fn mentions(source: &str) -> Vec<(usize, String)> {
    let code = code_of(source);
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let line_no = n + 1;
        for path in FORBIDDEN_PATHS {
            if line.contains(path) {
                found.push((line_no, path.to_string()));
            }
        }
        // `tokio`, `tokio_serial`, `tokio_util` as words.
        let mut rest = line;
        let mut offset = 0;
        while let Some(i) = rest.find("tokio") {
            let at = offset + i;
            let before = line[..at].chars().next_back();
            if before.is_none_or(|c| !is_word(c) || c == ':') {
                let word: String = line[at..].chars().take_while(|&c| is_word(c)).collect();
                if word == "tokio" || word.starts_with("tokio_") {
                    found.push((line_no, word));
                }
            }
            offset = at + "tokio".len();
            rest = &line[offset..];
        }
    }
    for name in top_level_names(&code, "std") {
        if FORBIDDEN_IN_STD_LIST.contains(&name.as_str()) {
            found.push((0, format!("std::{{{name}}}")));
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

#[test]
fn the_core_reaches_for_no_io_no_clock_no_runtime() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for module in CORE {
        rust_files(&src.join(module), &mut files);
    }
    assert!(files.len() > 30, "the core was not found: {files:?}");
    let mut problems = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if SHELL_EXCEPTIONS.contains(&rel.as_str()) {
            continue;
        }
        let source = fs::read_to_string(file).unwrap();
        for (line, what) in mentions(&source) {
            problems.push(format!("src/{rel}:{line}: {what}"));
        }
    }
    assert!(
        problems.is_empty(),
        "the core must not reach for I/O, the clock or a runtime; move this to the shell \
         (daemon, speech, store, cli):\n{}",
        problems.join("\n")
    );
}

/// The layers: the core uses nothing of the shell or the commands; the shell nothing of the
/// commands.
#[test]
fn the_layers_are_used_from_above_only() {
    const SHELL: &[&str] = &["config", "store", "speech", "daemon"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    let mut check = |files: &[&str], forbidden: &[&str]| {
        let mut paths = Vec::new();
        for f in files {
            rust_files(&src.join(f), &mut paths);
        }
        for file in paths {
            let rel = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if SHELL_EXCEPTIONS.contains(&rel.as_str()) {
                continue;
            }
            for name in crate_modules(&fs::read_to_string(&file).unwrap()) {
                if forbidden.contains(&name.as_str()) {
                    problems.push(format!("src/{rel} uses crate::{name}"));
                }
            }
        }
    };
    let above_core: Vec<&str> = SHELL.iter().copied().chain(["cli"]).collect();
    check(CORE, &above_core);
    check(&["config.rs", "store", "speech", "daemon"], &["cli"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_finds_what_it_must_and_nothing_else() {
    let bad = "use std::{collections::HashMap, fs, path::Path};\nuse tokio::sync::mpsc;\n\
               fn f() { let _ = std::thread::spawn(|| ()); let t = Instant::now(); }\n\
               use tokio_serial::SerialStream;\nfn g() -> std::time::SystemTime { todo!() }\n\
               use std::{io, process::ExitCode};";
    let found: Vec<String> = mentions(bad).into_iter().map(|(_, w)| w).collect();
    for want in [
        "std::{fs}",
        "tokio",
        "std::thread",
        "Instant::now",
        "tokio_serial",
        "SystemTime",
        "std::{process}",
    ] {
        assert!(
            found.iter().any(|f| f == want),
            "{want} not found in {found:?}"
        );
    }
    let fine = "use shakmaty::{File, Rank};\n// tokio and std::fs in a comment\n\
                /// no std::thread here either\nlet s = \"tokio std::fs\";\n\
                fn file(f: File) -> File { f }\nuse std::{fmt, io::Write};";
    assert_eq!(mentions(fine), Vec::<(usize, String)>::new());
    let uses =
        "use crate::{\n    board::{a, b},\n    daemon::hub,\n};\nfn f() { crate::store::x(); }";
    assert_eq!(crate_modules(uses), ["board", "daemon", "store"]);
}
