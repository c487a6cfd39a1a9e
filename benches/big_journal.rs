//! A long journal for measuring resume's memory: `cargo bench --bench big_journal -- PATH N`
//! writes a game header and N clock ticks (about 90 bytes a line).
mod support;

use tactus::daemon::journal::Journal;
use tactus_core::{arbiter::Input, journal::test_header};

fn main() {
    let Some(args) = support::bench_args() else {
        return;
    };
    let mut args = args.into_iter();
    let path = std::path::PathBuf::from(args.next().expect("a path"));
    let n: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300_000);
    let mut j =
        Journal::create(&path, &test_header(shakmaty::Color::Black, Some("300+2"))).unwrap();
    j.input(0, &Input::Start).unwrap();
    for i in 1..n {
        j.input(i, &Input::Tick).unwrap();
    }
}
