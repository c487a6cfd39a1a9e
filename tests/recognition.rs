//! Every game of `chess-data/pgn/` played on simulated boards, as the events real hands produce,
//! through move recognition: both board kinds, several styles each. The recogniser must yield
//! exactly the game's moves, never a move too many, and a complete touch log.

mod support;

use shakmaty::{Chess, Move, Position, Square};
use tactus_core::{
    board::{
        Sensing, SensorEvent,
        recognize::{Mode, Recognized, Recognizer, RecognizerConfig},
    },
    rules::{Millis, pgn::read_pgn_each},
    sim::script::{CaptureOrder, CastlingOrder, PhysicalBoard, Style, script},
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

struct Harness {
    rec: Recognizer,
    phys: PhysicalBoard,
    sensing: Sensing,
    now: Millis,
    completed: Vec<(Move, Vec<Square>)>,
    touches: Vec<Square>,
    /// The promotion piece the player announces, when the board cannot tell it.
    announce: Option<shakmaty::Role>,
    label: String,
}

impl Harness {
    fn new(cfg: RecognizerConfig, start: &Chess, label: String) -> Harness {
        Harness {
            rec: Recognizer::new(cfg, start.clone(), Mode::Move),
            phys: PhysicalBoard::new(start.board().clone()),
            sensing: cfg.sensing,
            now: 1_000,
            completed: Vec::new(),
            touches: Vec::new(),
            announce: None,
            label,
        }
    }

    fn handle(&mut self, out: Vec<Recognized>) {
        for r in out {
            match r {
                Recognized::RequestSnapshot => {
                    let snapshot = SensorEvent::Snapshot(self.phys.snapshot(self.sensing));
                    let more = self.rec.event(snapshot, self.now);
                    self.handle(more);
                }
                Recognized::MoveCompleted { mv, touches } => {
                    self.completed.push((mv, touches));
                    // The recogniser already shows the position after the move; the next player
                    // moves on the same board.
                    let next = self.rec.expected().clone();
                    let more = self.rec.set_expected(next, Mode::Move, self.now);
                    self.handle(more);
                }
                Recognized::PromotionPending { .. } => {
                    let role = self
                        .announce
                        .unwrap_or_else(|| panic!("{}: unexpected promotion prompt", self.label));
                    let more = self.rec.promotion(role, self.now);
                    self.handle(more);
                }
                Recognized::Touched { square, .. } => self.touches.push(square),
                Recognized::Differs(diff) => {
                    panic!("{}: unexpected difference {diff:?}", self.label)
                }
                Recognized::SnapshotCorrected { squares } => {
                    panic!("{}: snapshot corrected {squares:?}", self.label)
                }
                Recognized::NoMove => panic!("{}: nobody pressed a clock here", self.label),
                Recognized::Lifted { .. } | Recognized::Executed | Recognized::Matches => {}
            }
        }
    }

    /// Let time pass up to `until`, ticking at every deadline on the way.
    fn advance(&mut self, until: Millis) {
        for _ in 0..1000 {
            match self.rec.next_deadline() {
                Some(d) if d <= until => {
                    self.now = self.now.max(d);
                    let out = self.rec.tick(self.now);
                    self.handle(out);
                }
                _ => break,
            }
        }
        self.now = self.now.max(until);
    }

    fn feed(&mut self, delay: u64, event: SensorEvent) {
        self.advance(self.now + delay);
        self.phys.apply(&event);
        let event = match (self.sensing, event) {
            (Sensing::Occupancy, SensorEvent::Place { square, .. }) => SensorEvent::Place {
                square,
                piece: None,
            },
            (_, e) => e,
        };
        let out = self.rec.event(event, self.now);
        self.handle(out);
    }
}

fn styles() -> Vec<(&'static str, RecognizerConfig, Style)> {
    vec![
        ("tactile calm", TACTILE, Style::TACTILE),
        (
            "tactile mover-first, e.p. captured first, bounce",
            TACTILE,
            Style {
                capture: CaptureOrder::MoverFirst,
                ep_captured_first: true,
                bounce: true,
                ..Style::TACTILE
            },
        ),
        ("dgt one-handed", DGT, Style::DGT),
        (
            "dgt captured-first, rook-first castling, reordered, sliding",
            DGT,
            Style {
                capture: CaptureOrder::CapturedFirst,
                castling: CastlingOrder::RookFirst,
                reorder: true,
                slide: true,
                ..Style::DGT
            },
        ),
        (
            "dgt mover-first, sliding",
            DGT,
            Style {
                capture: CaptureOrder::MoverFirst,
                slide: true,
                ..Style::DGT
            },
        ),
    ]
}

#[test]
fn every_corpus_game_is_recognised_on_both_board_kinds() {
    let Some(data) = support::corpus::chess_data() else {
        return;
    };
    let mut games_checked = 0;
    let mut plies_checked = 0;
    for entry in std::fs::read_dir(data.join("pgn")).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        // The negative sample is recognised up to its null move.
        for game in read_pgn_each(&bytes) {
            let (start, moves) = match &game {
                Ok(g) => (g.start.clone(), g.moves.clone()),
                Err(e) => (
                    e.start().cloned().unwrap_or_default(),
                    e.legal_prefix().to_vec(),
                ),
            };
            for (name, cfg, style) in styles() {
                let label = format!(
                    "{} game {} [{name}]",
                    path.file_name().unwrap().to_string_lossy(),
                    games_checked + 1
                );
                let mut h = Harness::new(cfg, &start, label.clone());
                let mut pos = start.clone();
                for (ply, &m) in moves.iter().enumerate() {
                    h.announce = m.promotion();
                    let before = h.completed.len();
                    h.touches.clear();
                    for step in script(&pos, m, &style) {
                        h.feed(step.delay_ms, step.event);
                    }
                    h.advance(h.now + 5_000);
                    assert_eq!(
                        h.completed.len(),
                        before + 1,
                        "{label}: ply {} ({m}) not recognised exactly once",
                        ply + 1
                    );
                    let (got, touches) = h.completed.last().unwrap();
                    assert_eq!(*got, m, "{label}: ply {}", ply + 1);
                    // The touch log holds the mover's square, and every lift was logged in order.
                    assert!(
                        touches.contains(&m.from().unwrap()),
                        "{label}: ply {}: touches {touches:?}",
                        ply + 1
                    );
                    assert_eq!(touches, &h.touches, "{label}: ply {}: touch log", ply + 1);
                    if let Move::Castle { rook, .. } = m {
                        assert!(
                            touches.contains(&rook),
                            "{label}: castling touches {touches:?}"
                        );
                        if style.castling == CastlingOrder::RookFirst {
                            assert_eq!(
                                touches[0], rook,
                                "{label}: rook first is reported in order"
                            );
                        }
                    }
                    pos.play_unchecked(m);
                    assert_eq!(h.rec.expected(), &pos);
                }
                plies_checked += moves.len();
            }
            games_checked += 1;
        }
    }
    assert!(games_checked >= 135, "only {games_checked} games");
    assert!(
        plies_checked > 50_000,
        "only {plies_checked} plies across styles"
    );
}
