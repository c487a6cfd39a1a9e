//! How a person executes a move on a sensor board, as a script of timed events.
//!
//! Pure: a position, a move and a [`Style`] in; [`Step`]s out. Every `Place` carries the piece
//! (an occupancy board's codec drops it). [`PhysicalBoard`] applies the steps to the pieces that
//! really stand on the board, which is what a simulator reports in a snapshot.

use shakmaty::{Board, Chess, Color, Move, Piece, Position, Role, Square};

use crate::board::{Sensed, Sensing, SensorEvent};
use crate::rules::Millis;

/// The order in which a capture is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureOrder {
    /// The captured piece is removed first, then the mover lifted and placed (F.3 a).
    CapturedFirst,
    /// The mover is lifted first, then the captured piece removed, then the mover placed.
    MoverFirst,
    /// One-handed on an identity board: the mover replaces the captured piece and the square
    /// never shows empty.
    Replace,
}

/// The order in which castling is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastlingOrder {
    /// King first, then the rook (Art. 4.6 b).
    KingFirst,
    /// Rook first (Art. 4.4 b may apply; recognised where the board settles before counting).
    RookFirst,
}

/// A way of moving pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub capture: CaptureOrder,
    pub castling: CastlingOrder,
    /// En passant: remove the captured pawn before moving (true) or after placing (false).
    pub ep_captured_first: bool,
    /// Sensor bounce: every lift and placement chatters once.
    pub bounce: bool,
    /// DGT scan reordering: a placement may be reported before the lift that preceded it.
    pub reorder: bool,
    /// DGT sliding: rooks, bishops and queens are slid and reported on the squares they pass.
    pub slide: bool,
    /// Milliseconds between the events of one move.
    pub step_ms: Millis,
    /// Milliseconds of sensor chatter.
    pub bounce_ms: Millis,
}

impl Style {
    /// A calm player on a tactile board.
    pub const TACTILE: Style = Style {
        capture: CaptureOrder::CapturedFirst,
        castling: CastlingOrder::KingFirst,
        ep_captured_first: false,
        bounce: false,
        reorder: false,
        slide: false,
        step_ms: 300,
        bounce_ms: 5,
    };
    /// A quick player on a DGT board.
    pub const DGT: Style = Style {
        capture: CaptureOrder::Replace,
        castling: CastlingOrder::KingFirst,
        ep_captured_first: false,
        bounce: false,
        reorder: false,
        slide: false,
        step_ms: 120,
        bounce_ms: 5,
    };
}

/// One event after a delay (from the previous step).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub delay_ms: Millis,
    pub event: SensorEvent,
}

/// The events of executing `m` in `position` in `style`.
pub fn script(position: &Chess, m: Move, style: &Style) -> Vec<Step> {
    let mover = position.board().piece_at(m.from().unwrap_or(m.to()));
    let mut raw = match m {
        Move::Castle { king, rook } => castling(position, m, king, rook, style),
        Move::EnPassant { from, to } => en_passant(position.turn(), from, to, style),
        Move::Normal {
            from,
            capture,
            to,
            promotion,
            ..
        } => {
            let Some(mover) = mover else {
                return Vec::new();
            };
            normal(mover, from, capture.is_some(), to, promotion, style)
        }
        _ => Vec::new(),
    };
    if style.reorder {
        scan_reorder(&mut raw);
    }
    timed(position, mover, raw, style)
}

fn lift(square: Square) -> SensorEvent {
    SensorEvent::Lift { square }
}

fn place(square: Square, piece: Piece) -> SensorEvent {
    SensorEvent::Place {
        square,
        piece: Some(piece),
    }
}

/// Castling by hand: king then rook, or rook then king.
fn castling(
    position: &Chess,
    m: Move,
    king: Square,
    rook: Square,
    style: &Style,
) -> Vec<SensorEvent> {
    let side = m.castling_side().expect("a castling move has a side");
    let color = position.turn();
    let king_to = side.king_to(color);
    let rook_to = side.rook_to(color);
    let k = Piece {
        color,
        role: Role::King,
    };
    let r = Piece {
        color,
        role: Role::Rook,
    };
    match style.castling {
        CastlingOrder::KingFirst => {
            vec![lift(king), place(king_to, k), lift(rook), place(rook_to, r)]
        }
        CastlingOrder::RookFirst => {
            vec![lift(rook), place(rook_to, r), lift(king), place(king_to, k)]
        }
    }
}

/// En passant by hand: the captured pawn removed before the move or after it.
fn en_passant(color: Color, from: Square, to: Square, style: &Style) -> Vec<SensorEvent> {
    let pawn = Piece {
        color,
        role: Role::Pawn,
    };
    let captured = Square::from_coords(to.file(), from.rank());
    if style.ep_captured_first {
        vec![lift(captured), lift(from), place(to, pawn)]
    } else {
        vec![lift(from), place(to, pawn), lift(captured)]
    }
}

/// Any other move by hand: the mover lifted and placed (a promotion places the new piece), a
/// captured piece removed in the style's order, a slid piece reported on the squares it passes.
fn normal(
    mover: Piece,
    from: Square,
    captures: bool,
    to: Square,
    promotion: Option<Role>,
    style: &Style,
) -> Vec<SensorEvent> {
    let placed = match promotion {
        Some(role) => Piece {
            color: mover.color,
            role,
        },
        None => mover,
    };
    let path = if style.slide
        && matches!(placed.role, Role::Bishop | Role::Rook | Role::Queen)
        && promotion.is_none()
    {
        shakmaty::attacks::between(from, to)
            .into_iter()
            .collect::<Vec<_>>()
    } else {
        Vec::new()
    };
    // A slide passes over the squares between, in order from the origin.
    let mut path = path;
    path.sort_by_key(|sq| sq.distance(from));
    let mut slide = Vec::new();
    for sq in path {
        slide.push(place(sq, placed));
        slide.push(lift(sq));
    }
    let mut raw = Vec::new();
    match (captures, style.capture) {
        (false, _) => {
            raw.push(lift(from));
            raw.extend(slide);
            raw.push(place(to, placed));
        }
        (true, CaptureOrder::CapturedFirst) => {
            raw.push(lift(to));
            raw.push(lift(from));
            raw.extend(slide);
            raw.push(place(to, placed));
        }
        (true, CaptureOrder::MoverFirst) => {
            raw.push(lift(from));
            raw.push(lift(to));
            raw.extend(slide);
            raw.push(place(to, placed));
        }
        (true, CaptureOrder::Replace) => {
            raw.push(lift(from));
            raw.extend(slide);
            raw.push(place(to, placed));
        }
    }
    raw
}

/// A scan reports the destination before the origin clears: swap the first lift with the
/// placement that follows it.
fn scan_reorder(raw: &mut [SensorEvent]) {
    if let Some(i) = raw
        .iter()
        .position(|e| matches!(e, SensorEvent::Lift { .. }))
        && matches!(raw.get(i + 1), Some(SensorEvent::Place { .. }))
    {
        raw.swap(i, i + 1);
    }
}

/// The events a step apart, each followed by its chatter when the sensors bounce.
fn timed(
    position: &Chess,
    mover: Option<Piece>,
    raw: Vec<SensorEvent>,
    style: &Style,
) -> Vec<Step> {
    let mut steps = Vec::new();
    for event in raw {
        steps.push(Step {
            delay_ms: style.step_ms,
            event: event.clone(),
        });
        if style.bounce {
            // The sensor reports the opposite state briefly, then the true one again.
            let opposite = match &event {
                SensorEvent::Lift { square } => {
                    let p = position.board().piece_at(*square).or(mover);
                    p.map(|p| place(*square, p))
                }
                SensorEvent::Place { square, .. } => Some(lift(*square)),
                _ => None,
            };
            if let Some(opposite) = opposite {
                steps.push(Step {
                    delay_ms: style.bounce_ms,
                    event: opposite,
                });
                steps.push(Step {
                    delay_ms: style.bounce_ms,
                    event,
                });
            }
        }
    }
    steps
}

/// The pieces that really stand on a simulated board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicalBoard {
    pub board: Board,
}

impl PhysicalBoard {
    pub fn new(board: Board) -> PhysicalBoard {
        PhysicalBoard { board }
    }

    /// Apply one event as the hands did it.
    pub fn apply(&mut self, event: &SensorEvent) {
        match event {
            SensorEvent::Lift { square } => {
                self.board.discard_piece_at(*square);
            }
            SensorEvent::Place {
                square,
                piece: Some(p),
            } => self.board.set_piece_at(*square, *p),
            SensorEvent::Place { piece: None, .. }
            | SensorEvent::Snapshot(_)
            | SensorEvent::Button(_) => {}
        }
    }

    /// What the board reports in a full reading.
    pub fn snapshot(&self, sensing: Sensing) -> Sensed {
        match sensing {
            Sensing::Identity => Sensed::Pieces(self.board.clone()),
            Sensing::Occupancy => Sensed::Occupancy(self.board.occupied()),
        }
    }
}
