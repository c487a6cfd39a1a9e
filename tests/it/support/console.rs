//! The console from a test's side, one command per connection: [`ask`] (logging in as the
//! arbiter first where the command needs it), reading one reply, and the fields of a `status`
//! reply (ply, result, clocks). The in-process table's long-lived clients are
//! [`super::inproc::Conn`].

use std::{
    fs,
    io::{BufRead, BufReader, Write},
    os::unix::net::UnixStream,
    path::Path,
    time::Duration,
};

/// Send one command; the reply lines up to `ok` or `error: ...` (event lines `# ...` skipped).
/// A command only the arbiter may use is preceded by `login` with the token of the
/// `arbiter.token` file beside the socket (the test configurations put it there).
pub fn ask(socket: &Path, command: &str) -> std::io::Result<Vec<String>> {
    let mut stream = UnixStream::connect(socket)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    // What the assistant may not type (`takeback 5` is the arbiter's; `takeback` alone, a
    // training request, is anyone's).
    let arbiter_only = matches!(
        tactus_core::console::parse(command, tactus_core::console::Role::Assistant),
        Err(tactus_core::console::ConsoleError::NotAllowed { .. })
    );
    let mut reader = BufReader::new(stream.try_clone()?);
    if arbiter_only {
        let token = fs::read_to_string(socket.with_file_name("arbiter.token"))?;
        stream.write_all(format!("login {}\n", token.trim()).as_bytes())?;
        let login = read_reply(&mut reader)?;
        if login.last().is_none_or(|l| l != "ok role arbiter") {
            return Err(std::io::Error::other(format!("login refused: {login:?}")));
        }
    }
    stream.write_all(format!("{command}\n").as_bytes())?;
    read_reply(&mut reader)
}

/// The lines of one reply, up to its end line (`ok ...` or `error: ...`); event lines skipped.
pub fn read_reply(reader: &mut impl BufRead) -> std::io::Result<Vec<String>> {
    use tactus_core::console::wire::{WireLine, classify};
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other(format!(
                "connection closed after {lines:?}"
            )));
        }
        let line = line.trim_end_matches(['\n', '\r']).to_string();
        let kind = classify(&line);
        if matches!(kind, WireLine::Event(_)) {
            continue;
        }
        let end = kind.ends_reply();
        lines.push(line);
        if end {
            return Ok(lines);
        }
    }
}

pub fn ply_of(status: &[String]) -> usize {
    status
        .iter()
        .find_map(|l| l.strip_prefix("ply "))
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no ply in {status:?}"))
}

/// The `result ...` line of a status reply, if the game is over.
pub fn result_of(status: &[String]) -> Option<String> {
    status
        .iter()
        .find_map(|l| l.strip_prefix("result "))
        .map(str::to_string)
}

/// Both clocks in seconds from a status reply.
pub fn clocks_of(status: &[String]) -> (i64, i64) {
    let line = status
        .iter()
        .find(|l| l.starts_with("clocks white"))
        .unwrap_or_else(|| panic!("no clocks in {status:?}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (secs(words[2]), secs(words[4]))
}

/// `h:mm:ss` in seconds.
pub fn secs(t: &str) -> i64 {
    let parts: Vec<i64> = t
        .trim_end_matches(',')
        .split(':')
        .map(|p| p.parse().unwrap())
        .collect();
    parts[0] * 3600 + parts[1] * 60 + parts[2]
}
