//! Recognition throughput: every game of `twic1599_100k.pgn` (110 games, 9,810 half-moves) played
//! as the sensor events real hands produce (`sim::script`) through `board::recognize::Recognizer`,
//! on both board kinds. Pure: no port, no clock; time is virtual and the recogniser's deadlines
//! are ticked as the shell would tick them.
//!
//! `cargo bench --bench recognition` (needs `[[bench]] name = "recognition" harness = false` in
//! Cargo.toml); the numbers live in BENCHMARKS.md.

use std::{collections::VecDeque, hint::black_box, path::PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::{Chess, Move, Position, Role};
use tactus_core::{
    board::{
        Sensing, SensorEvent,
        recognize::{Mode, Recognized, Recognizer, RecognizerConfig},
    },
    rules::{Millis, pgn::read_pgn},
    sim::script::{PhysicalBoard, Style, script},
};

const TACTILE: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Occupancy,
    settle_ms: 0,
    scan_ms: 0,
    bounce_ms: 40,
    differs_after_ms: 1500,
    confirm_with_snapshot: false,
};
const DGT: RecognizerConfig = RecognizerConfig {
    sensing: Sensing::Identity,
    settle_ms: 400,
    scan_ms: 0,
    bounce_ms: 0,
    differs_after_ms: 2000,
    confirm_with_snapshot: true,
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

/// One game as the hands play it: (delay before it, event with the piece in hand).
struct Scripted {
    start: Chess,
    moves: Vec<Move>,
    sensing: Sensing,
    events: Vec<(u64, SensorEvent)>,
}

fn prepare(games: &[(Chess, Vec<Move>)], sensing: Sensing, style: &Style) -> Vec<Scripted> {
    games
        .iter()
        .map(|(start, moves)| {
            let mut pos = start.clone();
            let mut events = Vec::new();
            for &m in moves {
                for (i, step) in script(&pos, m, style).into_iter().enumerate() {
                    // A rest between moves longer than any settle or bounce time.
                    let delay = if i == 0 { 3_000 } else { step.delay_ms };
                    events.push((delay, step.event));
                }
                pos.play_unchecked(m);
            }
            Scripted {
                start: start.clone(),
                moves: moves.clone(),
                sensing,
                events,
            }
        })
        .collect()
}

/// Act on the recogniser's output as a shell would: answer snapshot requests from the physical
/// board, move on after a completed move, announce promotions from the game record.
fn drain(
    rec: &mut Recognizer,
    phys: &PhysicalBoard,
    game: &Scripted,
    out: Vec<Recognized>,
    now: Millis,
    done: &mut usize,
) {
    let mut queue: VecDeque<Recognized> = out.into();
    while let Some(r) = queue.pop_front() {
        match r {
            Recognized::RequestSnapshot => {
                queue.extend(rec.event(SensorEvent::Snapshot(phys.snapshot(game.sensing)), now));
            }
            Recognized::MoveCompleted { .. } => {
                *done += 1;
                let next = rec.expected().clone();
                queue.extend(rec.set_expected(next, Mode::Move, now));
            }
            Recognized::PromotionPending { .. } => {
                let role = game
                    .moves
                    .get(*done)
                    .and_then(|m| m.promotion())
                    .unwrap_or(Role::Queen);
                queue.extend(rec.promotion(role, now));
            }
            _ => {}
        }
    }
}

/// Replay one game; returns the number of moves recognised.
fn replay(game: &Scripted, cfg: RecognizerConfig) -> usize {
    let mut rec = Recognizer::new(cfg, game.start.clone(), Mode::Move);
    let mut phys = PhysicalBoard::new(game.start.board().clone());
    let mut now: Millis = 0;
    let mut done = 0;
    for (delay, event) in &game.events {
        let until = now + delay;
        while let Some(d) = rec.next_deadline().filter(|&d| d <= until) {
            now = now.max(d);
            let out = rec.tick(now);
            drain(&mut rec, &phys, game, out, now, &mut done);
        }
        now = until;
        phys.apply(event);
        let event = match (cfg.sensing, event) {
            (Sensing::Occupancy, SensorEvent::Place { square, .. }) => SensorEvent::Place {
                square: *square,
                piece: None,
            },
            (_, e) => e.clone(),
        };
        let out = rec.event(event, now);
        drain(&mut rec, &phys, game, out, now, &mut done);
    }
    while let Some(d) = rec.next_deadline() {
        now = now.max(d);
        let out = rec.tick(now);
        drain(&mut rec, &phys, game, out, now, &mut done);
    }
    done
}

fn recognition(c: &mut Criterion) {
    let Some(bytes) = corpus("twic1599_100k.pgn") else {
        return;
    };
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
        let scripted = prepare(&games, cfg.sensing, &style);
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
