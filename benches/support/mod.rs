//! What the measurement programs beside the benchmarks share: how they are told apart from a test
//! run. Each is a `[[bench]]` target without the test harness, run by `cargo bench --bench NAME
//! -- ARGS`; `cargo test --all-targets` builds and runs every bench target too, and a
//! measurement of minutes is no test, so there it only shows that it still compiles.

/// The program's arguments when `cargo bench` runs it (cargo appends `--bench`, which is taken
/// out here); None when anything else does (`cargo test` passes no `--bench`).
pub fn bench_args() -> Option<Vec<String>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let at = args.iter().position(|a| a == "--bench")?;
    args.remove(at);
    Some(args)
}
