//! Replay and audit throughput on the TWIC corpus (`../shared/chess-data/pgn/`).
//!
//! `cargo bench --bench replay`; the numbers live in BENCHMARKS.md.

use std::{hint::black_box, path::PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tactus_core::{
    audit::{AuditOptions, audit_pgn},
    rules::{
        game::{Game, Input, RulesConfig},
        pgn::read_pgn,
    },
};

fn corpus(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("TACTUS_CHESS_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/chess-data"));
    match std::fs::read(dir.join("pgn").join(name)) {
        Ok(bytes) => Some(bytes),
        Err(err) => {
            eprintln!("SKIPPED: {name}: {err}");
            None
        }
    }
}

fn replay(c: &mut Criterion) {
    let Some(bytes) = corpus("twic1599_100k.pgn") else {
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

    if let Some(selected) = corpus("twic1599-selected.pgn") {
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
