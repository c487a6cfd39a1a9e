//! Replay and audit throughput on the TWIC corpus (`../shared/chess-data/pgn/`).
//!
//! `cargo bench -p tactus-core --bench replay`; the numbers live in BENCHMARKS.md.
#![allow(
    clippy::disallowed_methods,
    clippy::disallowed_macros,
    reason = "a benchmark reads its corpus and reports a skip, as the shell would"
)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tactus_core::{
    audit::{AuditOptions, audit_pgn},
    rules::{
        game::{Game, Input, RulesConfig},
        pgn::read_pgn,
    },
};

// The corpus is found as the tests find it (one finder, from the workspace top).
#[path = "../tests/it/support/corpus.rs"]
mod corpus;

/// A PGN file of the corpus, or `None` (said on stderr) where there is no corpus.
fn pgn(name: &str) -> Option<Vec<u8>> {
    let path = corpus::chess_data()?.join("pgn").join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn replay(c: &mut Criterion) {
    let Some(bytes) = pgn("twic1599_100k.pgn") else {
        return;
    };
    let games = read_pgn(&bytes).expect("the corpus is legal");
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();

    let mut group = c.benchmark_group("twic1599_100k");
    group.throughput(Throughput::Elements(plies as u64));
    group.sample_size(20);
    // Parse and check every SAN (pgn-reader + shakmaty).
    group.bench_function("read_pgn", |b| {
        b.iter(|| black_box(read_pgn(black_box(&bytes)).unwrap().len()))
    });
    // Every move through the game state machine: SAN, 9.2 history, clock, dead-position tests.
    group.bench_function("game_replay", |b| {
        b.iter(|| {
            for g in &games {
                let mut game = Game::from_position(RulesConfig::default(), g.start.clone());
                for (i, &m) in g.moves.iter().enumerate() {
                    if game.is_over() {
                        break;
                    }
                    game.apply(Input::Move(m), i as u64).unwrap();
                }
                black_box(game.ply());
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("audit");
    group.sample_size(10);
    group.throughput(Throughput::Elements(plies as u64));
    group.bench_function("twic1599_100k", |b| {
        b.iter(|| black_box(audit_pgn(&bytes, AuditOptions::default()).len()))
    });
    group.finish();

    if let Some(selected) = pgn("twic1599-selected.pgn") {
        let mut group = c.benchmark_group("audit");
        group.sample_size(10);
        group.bench_function("twic1599-selected", |b| {
            b.iter(|| black_box(audit_pgn(&selected, AuditOptions::default()).len()))
        });
        group.finish();
    }
}

criterion_group!(benches, replay);
criterion_main!(benches);
