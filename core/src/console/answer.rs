//! The answers to the blind player's requests (F.9 d), computed from the game, and the printed
//! form of announcements for the console.
//!
//! [`answer()`] reads the [`Game`] at a time the caller gives and returns what is to be said, as
//! [`Announcement`] values (the daemon speaks them in the player's voice pack and prints them).
//! [`format_reply`] and [`format_announcement`] give the printed lines: plain English sentences,
//! one per line, no tables and no alignment, so that a screen reader or a Braille display reads
//! them as they come. Neither ever volunteers anything: F.9 d allows the time and the move count
//! only when asked, and this module only runs when asked.

use shakmaty::{CastlingSide, Color, Move, Piece, Position, Square, san::San, san::Suffix};

use super::Request;
use crate::{
    announce::{Announcement, Check, Guidance, MoveWords, ResultWords, WhichBoard},
    rules::{
        Millis,
        game::{Game, MoveRecord},
        pgn::format_clk,
    },
};

/// Pawn units per kind, for the material balance (kings count nothing).
const MATERIAL_VALUES: [(shakmaty::Role, u32); 5] = [
    (shakmaty::Role::Queen, 9),
    (shakmaty::Role::Rook, 5),
    (shakmaty::Role::Bishop, 3),
    (shakmaty::Role::Knight, 3),
    (shakmaty::Role::Pawn, 1),
];

/// The order in which a side's pieces are listed: as a player counts his army.
const KINDS: [shakmaty::Role; 6] = [
    shakmaty::Role::King,
    shakmaty::Role::Queen,
    shakmaty::Role::Rook,
    shakmaty::Role::Bishop,
    shakmaty::Role::Knight,
    shakmaty::Role::Pawn,
];

/// A move of the record with its number, as read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NumberedMove {
    /// The move number (`12` for both `12. Nf3` and `12... Nc6`).
    pub number: u32,
    pub words: MoveWords,
}

/// What a request is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Said to the blind player in this order, and printed.
    Say(Vec<Announcement>),
    /// Moves of the record, oldest first (said as moves, printed with their numbers).
    Moves(Vec<NumberedMove>),
    /// Say the last announcement again: only the daemon knows what was said last.
    RepeatLast,
    /// Stop the reply being said: only the daemon knows what is being said.
    Silence,
}

impl Answer {
    /// What the blind player hears, in order.
    pub fn announcements(&self) -> Vec<Announcement> {
        match self {
            Answer::Say(list) => list.clone(),
            // One announcement per move number (White's and Black's), said one after the other:
            // a game read back is long, and the player cuts it with his next request.
            Answer::Moves(moves) => {
                let mut said: Vec<Announcement> = Vec::new();
                for m in moves {
                    match said.last_mut() {
                        Some(Announcement::Recital { number, moves }) if *number == m.number => {
                            moves.push(m.words)
                        }
                        _ => said.push(Announcement::Recital {
                            number: m.number,
                            moves: vec![m.words],
                        }),
                    }
                }
                said
            }
            Answer::RepeatLast | Answer::Silence => Vec::new(),
        }
    }
}

/// The answer to `request` about `game` at `now`; `me` is the colour of the blind player who asks
/// ("mine").
pub fn answer(request: &Request, game: &Game, me: Color, now: Millis) -> Answer {
    let board = game.position().board();
    let say = |a: Announcement| Answer::Say(vec![a]);
    match request {
        Request::MovesCompleted => {
            // The clock's counter is what the arbiter may have set (6.13); without a clock, the
            // record is all there is.
            let count = |side: Color| match game.clock() {
                Some(clock) => clock.moves_completed(side),
                None => u32::try_from(game.moves().iter().filter(|r| r.side == side).count())
                    .unwrap_or(u32::MAX),
            };
            say(Announcement::MovesCompleted {
                white: count(Color::White),
                black: count(Color::Black),
            })
        }
        Request::Times => match game.clock() {
            // Said too: a player who pressed a button must hear that it was heard.
            None => say(Announcement::NoClock),
            Some(clock) => say(Announcement::Times {
                white_used_ms: clock.used(Color::White, now),
                white_left_ms: clock.remaining(Color::White, now).max(0),
                black_used_ms: clock.used(Color::Black, now),
                black_left_ms: clock.remaining(Color::Black, now).max(0),
            }),
        },
        Request::LastMove => last_moves(game, Some(1)),
        Request::Moves(n) => last_moves(game, n.map(|n| half_moves_of_last(game, n))),
        Request::ToMove => say(Announcement::ToMove {
            side: game.to_move(),
        }),
        Request::Square(square) => say(Announcement::SquareContents {
            square: *square,
            piece: board.piece_at(*square),
        }),
        Request::Line(line) => say(Announcement::LineContents {
            pieces: line
                .squares()
                .into_iter()
                .filter_map(|sq| board.piece_at(sq).map(|p| (sq, p)))
                .collect(),
        }),
        Request::Pieces { side, kind } => {
            // Without a side, his own pieces first, then his opponent's.
            let colors = match side {
                Some(side) => vec![side.color(Some(me)).unwrap_or(me)],
                None => vec![me, !me],
            };
            let mut list = Vec::new();
            for color in colors {
                match kind {
                    Some(role) => list.push(pieces_of(game, role.of(color))),
                    None => list.extend(
                        KINDS
                            .iter()
                            .map(|&role| pieces_of(game, role.of(color)))
                            .filter(|a| {
                                matches!(a, Announcement::PiecesOfKind { squares, .. } if !squares.is_empty())
                            }),
                    ),
                }
            }
            Answer::Say(list)
        }
        Request::Material => {
            let material = |color: Color| -> u32 {
                MATERIAL_VALUES
                    .iter()
                    .map(|&(role, value)| value * board.by_piece(role.of(color)).count() as u32)
                    .sum()
            };
            say(Announcement::Material {
                white: material(Color::White),
                black: material(Color::Black),
            })
        }
        Request::Repeat => Answer::RepeatLast,
        Request::Stop => Answer::Silence,
    }
}

fn pieces_of(game: &Game, piece: Piece) -> Announcement {
    Announcement::PiecesOfKind {
        piece,
        squares: game
            .position()
            .board()
            .by_piece(piece)
            .into_iter()
            .collect(),
    }
}

/// The last `n` moves of the record (`None`: all), numbered.
/// How many half-moves the last `n` moves of the record are: a move is a move number, White's
/// and Black's (the last may be White's alone), as a player counts them.
fn half_moves_of_last(game: &Game, n: usize) -> usize {
    let plies = game.moves().len();
    let offset = usize::from(game.start_position().turn() == Color::Black);
    // Move numbers counted from the start's: half-move i belongs to number (i + offset) / 2.
    let Some(last) = plies.checked_sub(1).map(|i| (i + offset) / 2) else {
        return 0;
    };
    let first_kept = (last + 1).saturating_sub(n);
    (0..plies)
        .filter(|i| (i + offset) / 2 >= first_kept)
        .count()
}

fn last_moves(game: &Game, n: Option<usize>) -> Answer {
    let records = game.moves();
    if records.is_empty() {
        return Answer::Say(vec![Announcement::NoMoveYet]);
    }
    let start = game.start_position();
    let first_number = start.fullmoves().get();
    // A record that starts with Black to move numbers his first move as the start's number.
    let offset = usize::from(start.turn() == Color::Black);
    let skip = n.map_or(0, |n| records.len().saturating_sub(n));
    Answer::Moves(
        records
            .iter()
            .enumerate()
            .skip(skip)
            .map(|(i, r)| NumberedMove {
                number: first_number
                    .saturating_add(u32::try_from((i + offset) / 2).unwrap_or(u32::MAX)),
                words: words_of(r),
            })
            .collect(),
    )
}

/// The words of a recorded move, from the record alone. The record keeps the move and its SAN
/// (with the check suffix and the disambiguation), which is all [`MoveWords`] needs: no replay
/// from the start, which a position set up by the arbiter would break.
pub fn words_of(record: &MoveRecord) -> MoveWords {
    let m = record.mv;
    let (from, to) = match m {
        Move::Castle { king, .. } => (
            king,
            m.castling_side()
                .unwrap_or(CastlingSide::KingSide)
                .king_to(record.side),
        ),
        _ => (m.from().unwrap_or(m.to()), m.to()),
    };
    let check = match record.san.suffix {
        Some(Suffix::Checkmate) => Check::Mate,
        Some(Suffix::Check) => Check::Check,
        None => Check::None,
    };
    let (file, rank) = match record.san.san {
        San::Normal { file, rank, .. } => (file.is_some(), rank.is_some()),
        _ => (false, false),
    };
    MoveWords {
        side: record.side,
        role: m.role(),
        from,
        to,
        capture: m.capture(),
        en_passant: m.is_en_passant(),
        castling: m.castling_side(),
        promotion: m.promotion(),
        check,
        // A pawn capture's SAN names its file ("exd5"): that is not a disambiguation.
        disambiguate_file: file && m.role() != shakmaty::Role::Pawn,
        disambiguate_rank: rank,
    }
}

/// The printed lines of an answer.
pub fn format_reply(answer: &Answer) -> Vec<String> {
    match answer {
        Answer::Say(list) if list.is_empty() => vec!["nothing to say".into()],
        Answer::Say(list) => list.iter().map(format_announcement).collect(),
        Answer::Moves(_) => answer
            .announcements()
            .iter()
            .map(format_announcement)
            .collect(),
        Answer::RepeatLast => vec!["the last announcement, again".into()],
        Answer::Silence => vec!["silence".into()],
    }
}

/// One announcement as a printed line (English, plain).
pub fn format_announcement(a: &Announcement) -> String {
    use Announcement as A;
    match a {
        A::Move(w) => format!("{}: {}", color_name(w.side), long_move(w)),
        A::Stalemate => "stalemate".into(),
        A::DeadPosition => "dead position: neither side can mate".into(),
        A::DrawOffered { by } => format!("{} offers a draw", color_name(*by)),
        A::DrawAccepted => "draw agreed".into(),
        A::DrawDeclined { by } => format!("{} declines the draw", color_name(*by)),
        A::ClaimMade { by, article } => {
            format!("{} claims a draw under {article}", color_name(*by))
        }
        A::ClaimUpheld { article } => format!("the claim under {article} is upheld"),
        A::ClaimRejected { article } => format!("the claim under {article} is rejected"),
        A::FlagFell { side } => format!("{}'s flag has fallen", color_name(*side)),
        A::Result(r) => format_result(*r).into(),
        A::Touched { piece, square } => format!("{} on {square} touched", piece_name(*piece)),
        A::IllegalMove => "that move is not possible".into(),
        A::Guidance(g) => format_guidance(g),
        A::MovesCompleted { white, black } => {
            format!("moves completed: White {white}, Black {black}")
        }
        A::Times {
            white_used_ms,
            white_left_ms,
            black_used_ms,
            black_left_ms,
        } => format!(
            "time: White used {}, left {}; Black used {}, left {}",
            format_clk(*white_used_ms),
            format_clk(*white_left_ms),
            format_clk(*black_used_ms),
            format_clk(*black_left_ms)
        ),
        A::SquareContents { square, piece } => match piece {
            Some(p) => format!("{square}: {}", piece_name(*p)),
            None => format!("{square}: empty"),
        },
        A::LineContents { pieces } if pieces.is_empty() => "nothing stands on this line".into(),
        A::LineContents { pieces } => pieces
            .iter()
            .map(|(sq, p)| format!("{sq} {}", piece_name(*p)))
            .collect::<Vec<_>>()
            .join(", "),
        A::PiecesOfKind { piece, squares } if squares.is_empty() => {
            format!("no {}", piece_name(*piece))
        }
        A::PiecesOfKind { piece, squares } => format!(
            "{}{}: {}",
            piece_name(*piece),
            if squares.len() > 1 { "s" } else { "" },
            squares
                .iter()
                .map(Square::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        A::Material { white, black } => {
            let balance = match i64::from(*white) - i64::from(*black) {
                0 => "equal".to_string(),
                d if d > 0 => format!("White +{d}"),
                d => format!("Black +{}", -d),
            };
            format!("material: White {white}, Black {black} ({balance})")
        }
        A::ToMove { side } => format!("{} to move", color_name(*side)),
        A::BoardDisconnected { board } => format!("the {} is disconnected", board_name(*board)),
        A::BoardReconnected { board } => format!("the {} is connected again", board_name(*board)),
        A::GameRecovered => "the game was recovered after a restart".into(),
        A::GameStarted { side } => format!("play starts; {} to move", color_name(*side)),
        A::ClocksPaused => "the clocks are stopped".into(),
        A::ClocksResumed => "the clocks run again".into(),
        A::Adjourned { by } => {
            format!("{} sealed his move; the game is adjourned", color_name(*by))
        }
        A::NoMoveYet => "no move has been played yet".into(),
        A::NoClock => "this game is played without a clock".into(),
        A::Recital { number, moves } => format!(
            "{number}. {}",
            moves
                .iter()
                .map(|m| format!("{} {}", color_name(m.side), long_move(m)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        A::Retraced { side } => format!("the game is taken back; {} to move", color_name(*side)),
        A::EnvelopeOpened => "the envelope is opened; the sealed move follows".into(),
        A::SealedMoveInvalid => "the sealed move is ambiguous or illegal".into(),
        A::SpeechFallback => "the speech engine failed; recorded clips take over".into(),
        A::MoveHeld => "the clocks are stopped; the move counts when they run again".into(),
        A::MoveRequired { mv } => format!("move not possible: {} must be played", long_move(mv)),
        A::NoMoveToCount => "no completed move on the board; the clock runs on".into(),
        A::OwnMove(w) => format!("your move: {}", long_move(w)),
        A::ClockChanged { side, by_ms: 0 } => {
            format!("{}'s clock was changed by the arbiter", color_name(*side))
        }
        A::ClockChanged { side, by_ms } => format!(
            "{}'s clock was changed by the arbiter: {}{}",
            color_name(*side),
            if *by_ms > 0 { "+" } else { "-" },
            crate::rules::pgn::format_clk(by_ms.abs())
        ),
        A::OutOfTurn => "not your move: the move made before the opponent's is no move".into(),
        A::Hint(w) => format!("hint: {}", long_move(w)),
        A::Standing(s) => format_standing(s),
        A::OpponentAway => "the engine does not answer; clocks paused".into(),
        A::OpponentBack => "the engine is back".into(),
        A::TrainingOnly => "only in a training game".into(),
        A::ResignAsked => "resign? typed again, it resigns his game".into(),
        A::ReviewMoment {
            number,
            played,
            better,
            missed_mate,
        } => format!(
            "move {number}: played {}, better {}{}",
            long_move(played),
            long_move(better),
            if *missed_mate {
                ", a mate missed"
            } else {
                ", material lost"
            }
        ),
        A::ReviewEnd => "end of the review".into(),
        A::RequestSwitchedOff => "request switched off by the arbiter".into(),
        A::RecordingHalted => "recording failed; clocks stopped".into(),
        A::RecordingRestored => "recording restored".into(),
        A::Refused(refusal) => match refusal {
            crate::announce::Refusal::Unknown => "unknown command",
            crate::announce::Refusal::NotAllowed => "command not allowed",
            crate::announce::Refusal::BadEntry => "invalid entry",
            crate::announce::Refusal::NotNow => "not possible now",
            crate::announce::Refusal::TooFast => "too many commands at once",
        }
        .into(),
        A::ButtonUnassigned { number } => format!("button {number} not assigned"),
    }
}

/// A result as printed.
fn format_result(r: ResultWords) -> &'static str {
    match r {
        ResultWords::WhiteWins => "White wins, 1-0",
        ResultWords::BlackWins => "Black wins, 0-1",
        ResultWords::Draw => "draw, 1/2-1/2",
    }
}

/// What a player whose board differs is told, as printed.
fn format_guidance(g: &Guidance) -> String {
    match g {
        Guidance::Misplaced {
            piece,
            found,
            belongs,
        } => format!(
            "{} stands on {found}, belongs on {belongs}",
            piece_name(*piece)
        ),
        Guidance::Missing { square, piece } => {
            format!("{square} is empty; a {} belongs there", piece_name(*piece))
        }
        Guidance::Extra { square, .. } => format!("{square} must be empty"),
        Guidance::Wrong {
            square,
            found,
            belongs,
        } => format!(
            "on {square} stands a {}; a {} belongs there",
            piece_name(*found),
            piece_name(*belongs)
        ),
        Guidance::More { squares } => format!(
            "and {} more",
            crate::announce::count(*squares as usize, "square", "squares")
        ),
    }
}

/// The engine's judgement of the position, as printed.
fn format_standing(s: &crate::engine::Standing) -> String {
    use crate::engine::Standing as S;
    match s {
        S::Equal => "the position is equal".into(),
        S::SlightlyBetter(c) => format!("{} is slightly better", color_name(*c)),
        S::ClearlyBetter(c) => format!("{} is clearly better", color_name(*c)),
        S::Winning(c) => format!("{} is winning", color_name(*c)),
        S::MatesIn(c, n) => format!("{} mates in {n}", color_name(*c)),
    }
}

/// Long algebraic, which names both squares as the announcements do: `Ng1-f3`, `e5xd6 e.p.`,
/// `e7-e8=Q+`, `O-O-O#`.
pub fn long_move(w: &MoveWords) -> String {
    let check = match w.check {
        Check::None => "",
        Check::Check => "+",
        Check::Mate => "#",
    };
    let body = match w.castling {
        Some(CastlingSide::KingSide) => "O-O".to_string(),
        Some(CastlingSide::QueenSide) => "O-O-O".to_string(),
        None => {
            let piece = match w.role {
                shakmaty::Role::Pawn => String::new(),
                role => role.upper_char().to_string(),
            };
            let promotion = w
                .promotion
                .map(|r| format!("={}", r.upper_char()))
                .unwrap_or_default();
            let ep = if w.en_passant { " e.p." } else { "" };
            let sep = if w.capture.is_some() { 'x' } else { '-' };
            format!("{piece}{}{sep}{}{promotion}{ep}", w.from, w.to)
        }
    };
    format!("{body}{check}")
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn piece_name(p: Piece) -> String {
    let color = match p.color {
        Color::White => "white",
        Color::Black => "black",
    };
    let role = match p.role {
        shakmaty::Role::King => "king",
        shakmaty::Role::Queen => "queen",
        shakmaty::Role::Rook => "rook",
        shakmaty::Role::Bishop => "bishop",
        shakmaty::Role::Knight => "knight",
        shakmaty::Role::Pawn => "pawn",
    };
    format!("{color} {role}")
}

fn board_name(b: WhichBoard) -> String {
    match b {
        WhichBoard::Tactile => "tactile board".into(),
        WhichBoard::Sighted => "sighted board".into(),
        WhichBoard::TactileOf(side) => format!("{side}'s tactile board"),
    }
}
