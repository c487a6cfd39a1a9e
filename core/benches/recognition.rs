//! Recognition throughput: every game of `twic1599_100k.pgn` (110 games, 9,810 half-moves) played
//! as the sensor events real hands produce (`sim::script`) through `board::recognize::Recognizer`,
//! on both board kinds, driven by `sim::hands` as the recognition test drives it. Pure: no port,
//! no clock; time is virtual and the recogniser's deadlines are ticked as the shell would tick them.
//!
//! `cargo bench -p tactus-core --bench recognition`; the numbers live in BENCHMARKS.md.
#![allow(
    clippy::disallowed_methods,
    clippy::disallowed_macros,
    reason = "a benchmark reads its corpus and reports a skip, as the shell would"
)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::{Chess, Move, Position, Role};
use tactus_core::{
    board::{SensorEvent, recognize::RecognizerConfig},
    rules::pgn::read_pgn,
    sim::{
        hands::{DGT, Hands, TACTILE},
        script::{Style, script},
    },
};

// The corpus is found as the tests find it (one finder, from the workspace top).
#[path = "../tests/it/support/corpus.rs"]
mod corpus;

/// One game as the hands play it: (delay before it, event, the promotion piece the player
/// announces for the move the event belongs to).
struct Scripted {
    start: Chess,
    events: Vec<(u64, SensorEvent, Option<Role>)>,
}

fn prepare(games: &[(Chess, Vec<Move>)], style: &Style) -> Vec<Scripted> {
    games
        .iter()
        .map(|(start, moves)| {
            let mut pos = start.clone();
            let mut events = Vec::new();
            for &m in moves {
                for (i, step) in script(&pos, m, style).into_iter().enumerate() {
                    // A rest between moves longer than any settle or bounce time.
                    let delay = if i == 0 { 3_000 } else { step.delay_ms };
                    events.push((delay, step.event, m.promotion()));
                }
                pos.play_unchecked(m);
            }
            Scripted {
                start: start.clone(),
                events,
            }
        })
        .collect()
}

/// Replay one game; returns the number of moves recognised.
fn replay(game: &Scripted, cfg: RecognizerConfig) -> usize {
    let mut hands = Hands::new(cfg, &game.start, String::from("twic1599_100k"));
    for (delay, event, promotion) in &game.events {
        hands.announce = *promotion;
        hands.feed(*delay, event.clone());
    }
    // Every deadline left (settle times, confirmations) runs out.
    hands.advance(hands.now + 10_000);
    hands.completed.len()
}

fn recognition(c: &mut Criterion) {
    let Some(data) = corpus::chess_data() else {
        return;
    };
    let path = data.join("pgn/twic1599_100k.pgn");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let games: Vec<(Chess, Vec<Move>)> = read_pgn(&bytes)
        .expect("the corpus is legal")
        .into_iter()
        .map(|g| (g.start, g.moves))
        .collect();
    let plies: usize = games.iter().map(|(_, m)| m.len()).sum();

    let mut group = c.benchmark_group("recognition_twic1599_100k");
    group.sample_size(10);
    let tactile_style = Style {
        ep_captured_first: true,
        ..Style::TACTILE
    };
    for (name, cfg, style) in [
        ("tactile", TACTILE, tactile_style),
        ("dgt", DGT, Style::DGT),
    ] {
        let scripted = prepare(&games, &style);
        let events: usize = scripted.iter().map(|g| g.events.len()).sum();
        // Every move must be recognised, or the number is meaningless.
        let recognised: usize = scripted.iter().map(|g| replay(g, cfg)).sum();
        assert_eq!(recognised, plies, "{name}: every move recognised");
        eprintln!("{name}: {events} sensor events for {plies} half-moves");
        group.throughput(Throughput::Elements(events as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0;
                for g in &scripted {
                    n += replay(black_box(g), cfg);
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, recognition);
criterion_main!(benches);
