//! One move in chess Braille, both ways: the cells a player writes for a move in a position, and
//! the move a player's cells mean.
//!
//! Writing follows the minimum a player writes for himself (piece letter, destination, and the
//! disambiguation SAN needs) plus the marks the options ask for, and then *proves* the result:
//! the cells are read back in the position, and only cells that read back as exactly this move
//! are returned. Where the minimum does not (in the `de` profile the queen letter D is also the
//! d-file), the writer adds, in this order, the capture mark, the origin file, the origin rank
//! and, for a pawn, the pawn letter, until it does.
//!
//! A score must also read one way to a player who does not set up the position: where a piece
//! letter is also a file letter (`de`: D, the Dame and the d-file), a pawn capture from that
//! file written as SAN's minimum, `DE4`, looks exactly like the piece's move. Such a capture
//! always carries the capture mark (`D;E4`; the piece's move never does, unless capture marks
//! are on for every capture, and then the pawn capture also carries the pawn letter: `BD;E4`).
//! Profiles whose letters are no file letters (`ukaaf`) are not touched by this.
//!
//! Reading turns cells into the print forms they could mean and hands each to the rules
//! module's lenient matcher ([`notation::match_move`]), so Braille is held to exactly the rules
//! that typed and spoken moves are: never a guess, anything but one legal move is an error.
//! Pure; no I/O.

use shakmaty::{
    CastlingSide, Chess, File, Move, Rank, Role, Square, san::San, san::SanPlus, san::Suffix,
};

use super::{
    cell::{Cell, LOWER_DIGITS, digit_of, letter, letter_of},
    profile::{CheckPlace, Profile},
};
use crate::rules::notation::{self, MatchError};

/// Written before Black's move at the start of a line (print `12...Nf6`): dots 36, as the
/// reference gives it.
pub const BLACK_MARKER: Cell = Cell::dots("36");

/// Which optional marks the writer adds. The default is the minimum a player writes for himself
/// plus the e.p. mark (an e.p. capture is rare, and the mark says why a pawn lands on an empty
/// square); draw offers and the result are always written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marks {
    pub capture: bool,
    pub check: bool,
    pub mate: bool,
    pub en_passant: bool,
}

impl Default for Marks {
    fn default() -> Marks {
        Marks {
            capture: false,
            check: false,
            mate: false,
            en_passant: true,
        }
    }
}

/// A mark name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a Braille mark; the marks are capture, check, mate, en-passant, all, none")]
pub struct UnknownMark(pub String);

impl Marks {
    /// No optional mark at all.
    pub const NONE: Marks = Marks {
        capture: false,
        check: false,
        mate: false,
        en_passant: false,
    };
    /// Every optional mark.
    pub const ALL: Marks = Marks {
        capture: true,
        check: true,
        mate: true,
        en_passant: true,
    };

    /// Exactly the marks listed (`capture`, `check`, `mate`, `en-passant`, or `all`, `none`):
    /// a list replaces the default, so `["capture"]` drops the e.p. mark.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Marks, UnknownMark> {
        let mut marks = Marks::NONE;
        for name in names {
            match name.as_ref().trim() {
                "capture" => marks.capture = true,
                "check" => marks.check = true,
                "mate" => marks.mate = true,
                "en-passant" | "ep" | "e.p." => marks.en_passant = true,
                "all" => marks = Marks::ALL,
                "none" => {}
                other => return Err(UnknownMark(other.to_owned())),
            }
        }
        Ok(marks)
    }
}

/// The writer found no form of a move that reads back as that move. With a validated profile
/// this does not happen (the full origin square, and the pawn letter, are unambiguous); it is an
/// error rather than a silently wrong score.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot write {san} in the Braille profile '{profile}' so that it reads back as that move; \
     the profile's letters or marks collide (see src/record/braille/profiles.toml)"
)]
pub struct UnwritableMove {
    pub san: String,
    pub profile: String,
}

/// Why cells are not one legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The cells are not a move in this profile's notation at all.
    #[error(
        "not a move in the '{profile}' Braille chess notation (piece letter, origin, \
         destination such as e4, castling, promotion)"
    )]
    Unreadable { profile: String },
    /// Readable, but no legal move fits.
    #[error("no legal move matches it (read as {})", .readings.join(" or "))]
    NoLegalMove { readings: Vec<String> },
    /// More than one legal move fits.
    #[error("it could mean {}; write the origin file or rank", .candidates.join(" or "))]
    Ambiguous { candidates: Vec<String> },
}

/// A move read from cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadMove {
    pub mv: Move,
    /// The draw-offer mark followed the move.
    pub draw_offer: bool,
    /// The move began with the Black marker (dots 36).
    pub black_marker: bool,
}

/// What the writer puts into the cells of one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Coding {
    castle: Option<CastlingSide>,
    role: Role,
    pawn_letter: bool,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
    en_passant: bool,
    check: bool,
    mate: bool,
    draw_offer: bool,
}

impl Coding {
    fn cells(&self, p: &Profile) -> Vec<Cell> {
        let mut out = Vec::with_capacity(8);
        let check_before = self.check && p.check_place == CheckPlace::BeforeDestination;
        match self.castle {
            Some(CastlingSide::KingSide) => out.extend(&p.castle_kingside),
            Some(CastlingSide::QueenSide) => out.extend(&p.castle_queenside),
            None => {
                out.extend(p.piece_letter(self.role));
                if self.pawn_letter {
                    out.push(p.pawn);
                }
                out.extend(self.from_file.map(file_cell));
                out.extend(self.from_rank.map(rank_cell));
                if self.capture {
                    out.extend(&p.capture);
                }
                if check_before {
                    out.extend(&p.check);
                }
                out.push(file_cell(self.to.file()));
                out.push(rank_cell(self.to.rank()));
                if let Some(role) = self.promotion {
                    out.extend(&p.promotion);
                    out.extend(p.piece_letter(role));
                }
                if self.en_passant {
                    out.extend(&p.en_passant);
                }
            }
        }
        // Castling has no destination to put a check mark before: it follows the move.
        if self.check && (!check_before || self.castle.is_some()) {
            out.extend(&p.check);
        }
        if self.mate {
            out.extend(&p.mate);
        }
        if self.draw_offer {
            out.extend(&p.draw_offer);
        }
        out
    }
}

fn file_cell(file: File) -> Cell {
    // Files a-h are letters; `letter` is `Some` for every ASCII letter.
    letter(file.char()).unwrap_or(Cell::BLANK)
}

fn rank_cell(rank: Rank) -> Cell {
    LOWER_DIGITS[rank.to_usize() + 1]
}

fn file_of(cell: Cell) -> Option<File> {
    letter_of(cell).and_then(File::from_char)
}

fn rank_of(cell: Cell) -> Option<Rank> {
    digit_of(cell)
        .filter(|d| (1..=8).contains(d))
        .map(|d| Rank::new(d - 1))
}

/// The cells of `m` (legal in `pos`), with the draw-offer mark when `draw_offer`. The Black
/// marker is the layout's business, not part of the move.
pub fn write_move(
    profile: &Profile,
    marks: Marks,
    pos: &Chess,
    m: Move,
    draw_offer: bool,
) -> Result<Vec<Cell>, UnwritableMove> {
    let san_plus = SanPlus::from_move(pos.clone(), m);
    let mate = san_plus.suffix == Some(Suffix::Checkmate);
    let check = san_plus.suffix == Some(Suffix::Check);
    let mut base = Coding {
        castle: None,
        role: m.role(),
        pawn_letter: false,
        from_file: None,
        from_rank: None,
        capture: false,
        to: m.to(),
        promotion: m.promotion(),
        en_passant: marks.en_passant && m.is_en_passant(),
        // Print writes `#` instead of `+`; so does Braille. Without mate marks, a mate is still a
        // check and gets the check mark when check marks are on.
        check: marks.check && (check || (mate && !marks.mate)),
        mate: marks.mate && mate,
        draw_offer,
    };
    let mut ladder = Vec::with_capacity(5);
    match san_plus.san {
        San::Castle(side) => {
            base.castle = Some(side);
            ladder.push(base);
        }
        San::Normal {
            file,
            rank,
            capture,
            ..
        } => {
            base.from_file = file;
            base.from_rank = rank;
            base.capture = marks.capture && capture;
            let from = m.from();
            // A pawn capture from a file whose letter is a piece letter (`de`: the d-file and
            // the Dame): never written as the piece's move would be.
            let looks_like_a_piece = m.role() == Role::Pawn
                && capture
                && from.is_some_and(|sq| profile.piece_of(file_cell(sq.file())).is_some());
            if looks_like_a_piece {
                base.capture = true;
                // With every capture marked, `D;E4` is the Dame's capture: the pawn letter.
                base.pawn_letter = marks.capture;
            }
            // The piece of such a letter keeps `D;E4` free for the pawn: no capture mark
            // without an origin unless every capture has one.
            let letter_is_a_file = profile
                .piece_letter(m.role())
                .is_some_and(|letter| file_of(letter).is_some());
            let bare = base.from_file.is_none() && base.from_rank.is_none();
            ladder.push(base);
            let with_capture = Coding {
                capture: capture || base.capture,
                ..base
            };
            if !(letter_is_a_file && bare) {
                ladder.push(with_capture);
            }
            if m.role() == Role::Pawn {
                ladder.push(Coding {
                    pawn_letter: true,
                    ..with_capture
                });
                ladder.push(Coding {
                    pawn_letter: true,
                    from_file: from.map(|s| s.file()),
                    from_rank: from.map(|s| s.rank()),
                    ..with_capture
                });
            } else {
                let with_file = Coding {
                    from_file: from.map(|s| s.file()),
                    ..with_capture
                };
                ladder.push(with_file);
                ladder.push(Coding {
                    from_rank: from.map(|s| s.rank()),
                    ..with_file
                });
            }
        }
        // Drops and null moves do not occur in standard chess.
        San::Put { .. } | San::Null => {}
    }
    // With capture marks on, the first two rungs are the same: try each form once.
    ladder.dedup();
    for coding in ladder {
        let cells = coding.cells(profile);
        if read_move(profile, pos, &cells).is_ok_and(|r| r.mv == m) {
            return Ok(cells);
        }
    }
    Err(UnwritableMove {
        san: san_plus.to_string(),
        profile: profile.name.clone(),
    })
}

/// One way of reading the cells before the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reading {
    /// `None`: no piece letter and a full origin square, any piece (as print `g1f3`).
    role: Option<Role>,
    from_file: Option<File>,
    from_rank: Option<Rank>,
}

/// The move that `cells` (one move, no blanks) mean in `pos`.
pub fn read_move(profile: &Profile, pos: &Chess, cells: &[Cell]) -> Result<ReadMove, MoveError> {
    let unreadable = || MoveError::Unreadable {
        profile: profile.name.clone(),
    };
    let mut rest = cells;
    let black_marker = strip_prefix(&mut rest, &[BLACK_MARKER]);
    let draw_offer = strip_suffix(&mut rest, &profile.draw_offer);
    // Check, mate and e.p. marks say nothing the position does not (the matcher ignores `+`,
    // `#` and `e.p.` in print too); they are removed in whatever order they were written.
    while strip_suffix(&mut rest, &profile.mate)
        || strip_suffix(&mut rest, &profile.check)
        || strip_suffix(&mut rest, &profile.en_passant)
    {}
    let marked = |texts: &[(String, String)]| matched(pos, texts, draw_offer, black_marker);
    if rest == profile.castle_kingside.as_slice() {
        return marked(&[("O-O".into(), "O-O".into())]);
    }
    if rest == profile.castle_queenside.as_slice() {
        return marked(&[("O-O-O".into(), "O-O-O".into())]);
    }

    // The destination is the last rank digit and the file letter before it; after it only a
    // promotion may follow.
    let rank_at = rest
        .iter()
        .rposition(|&c| rank_of(c).is_some())
        .ok_or_else(unreadable)?;
    let file_at = rank_at.checked_sub(1).ok_or_else(unreadable)?;
    let to = Square::from_coords(
        file_of(rest[file_at]).ok_or_else(unreadable)?,
        rank_of(rest[rank_at]).ok_or_else(unreadable)?,
    );
    let promotion = {
        let mut after = &rest[rank_at + 1..];
        strip_prefix(&mut after, &profile.promotion);
        match after {
            [] => None,
            [piece] => match profile.piece_of(*piece) {
                Some(role @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) => Some(role),
                _ => return Err(unreadable()),
            },
            _ => return Err(unreadable()),
        }
    };
    let mut origin = &rest[..file_at];
    let mut capture = false;
    loop {
        if strip_suffix(&mut origin, &profile.check) {
            continue;
        }
        if strip_suffix(&mut origin, &profile.capture) {
            capture = true;
            continue;
        }
        break;
    }

    let mut readings = Vec::with_capacity(3);
    if let Some((&first, tail)) = origin.split_first() {
        if let Some(role) = profile.piece_of(first)
            && let Some((from_file, from_rank)) = origin_square(tail)
        {
            readings.push(Reading {
                role: Some(role),
                from_file,
                from_rank,
            });
        }
        if first == profile.pawn
            && let Some((from_file, from_rank)) = origin_square(tail)
        {
            readings.push(Reading {
                role: Some(Role::Pawn),
                from_file,
                from_rank,
            });
        }
    }
    if let Some((from_file, from_rank)) = origin_square(origin) {
        let full = from_file.is_some() && from_rank.is_some();
        readings.push(Reading {
            // As in print: no letter is a pawn, unless the whole origin square is given.
            role: if full { None } else { Some(Role::Pawn) },
            from_file,
            from_rank,
        });
    }
    if readings.is_empty() {
        return Err(unreadable());
    }
    let texts: Vec<(String, String)> = readings
        .iter()
        .map(|r| print_forms(r, capture, to, promotion))
        .collect();
    marked(&texts)
}

/// The one legal move that the print forms `(query, shown)` of some cells mean together.
fn matched(
    pos: &Chess,
    texts: &[(String, String)],
    draw_offer: bool,
    black_marker: bool,
) -> Result<ReadMove, MoveError> {
    let mut found: Vec<Move> = Vec::new();
    let mut ambiguous: Vec<String> = Vec::new();
    for (query, _) in texts {
        match notation::match_move(pos, query) {
            Ok(m) if !found.contains(&m) => found.push(m),
            Ok(_) => {}
            Err(MatchError::Ambiguous { candidates, .. }) => ambiguous.extend(candidates),
            // Unreadable or no legal move: this reading is out; another may still fit.
            Err(_) => {}
        }
    }
    match (found.as_slice(), ambiguous.is_empty()) {
        ([mv], true) => Ok(ReadMove {
            mv: *mv,
            draw_offer,
            black_marker,
        }),
        ([], true) => Err(MoveError::NoLegalMove {
            readings: texts.iter().map(|(_, shown)| shown.clone()).collect(),
        }),
        _ => {
            let mut candidates: Vec<String> =
                found.iter().map(|&m| notation::san(pos, m)).collect();
            for san in ambiguous {
                if !candidates.contains(&san) {
                    candidates.push(san);
                }
            }
            Err(MoveError::Ambiguous { candidates })
        }
    }
}

/// `[file][rank]` of an origin, each optional; `None` if the cells are something else.
fn origin_square(cells: &[Cell]) -> Option<(Option<File>, Option<Rank>)> {
    match cells {
        [] => Some((None, None)),
        [c] => match (file_of(*c), rank_of(*c)) {
            (Some(f), _) => Some((Some(f), None)),
            (_, Some(r)) => Some((None, Some(r))),
            _ => None,
        },
        [f, r] => Some((Some(file_of(*f)?), Some(rank_of(*r)?))),
        _ => None,
    }
}

/// The reading as text for the matcher (pawns with an explicit `P`, so that a `b` is never
/// taken for a bishop) and as print for messages.
fn print_forms(
    r: &Reading,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
) -> (String, String) {
    let mut body = String::new();
    body.extend(r.from_file.map(File::char));
    body.extend(r.from_rank.map(Rank::char));
    // A pawn changing file captures; print always marks it.
    if capture || (r.role == Some(Role::Pawn) && r.from_file.is_some_and(|f| f != to.file())) {
        body.push('x');
    }
    body.push_str(&to.to_string());
    if let Some(role) = promotion {
        body.push('=');
        body.push(role.upper_char());
    }
    match r.role {
        Some(Role::Pawn) => (format!("P{body}"), body),
        Some(role) => {
            let text = format!("{}{body}", role.upper_char());
            (text.clone(), text)
        }
        None => (body.clone(), body),
    }
}

fn strip_prefix(cells: &mut &[Cell], prefix: &[Cell]) -> bool {
    match cells.strip_prefix(prefix) {
        Some(rest) if !prefix.is_empty() => {
            *cells = rest;
            true
        }
        _ => false,
    }
}

fn strip_suffix(cells: &mut &[Cell], suffix: &[Cell]) -> bool {
    match cells.strip_suffix(suffix) {
        Some(rest) if !suffix.is_empty() => {
            *cells = rest;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::braille::cell::{parse_cells, to_brf};
    use shakmaty::{CastlingMode, Position, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn uk() -> Profile {
        Profile::named("ukaaf").unwrap()
    }

    fn de() -> Profile {
        Profile::named("de").unwrap()
    }

    fn mv(p: &Chess, san: &str) -> Move {
        san.parse::<SanPlus>().unwrap().san.to_move(p).unwrap()
    }

    /// The BRF the writer gives for `san` in `p`.
    fn brf(profile: &Profile, marks: Marks, p: &Chess, san: &str) -> String {
        to_brf(&write_move(profile, marks, p, mv(p, san), false).unwrap())
    }

    /// The SAN that BRF `text` reads as in `p`.
    fn read(profile: &Profile, p: &Chess, text: &str) -> Result<String, MoveError> {
        read_move(profile, p, &parse_cells(text).unwrap()).map(|r| notation::san(p, r.mv))
    }

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    /// After 1.e4 a6 2.e5 d5: exd6 e.p. is legal.
    const EN_PASSANT: &str = "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    const PROMOTE: &str = "3r1r2/4P3/8/8/8/8/8/k3K3 w - - 0 1";
    /// d4xe5 and Qf4xe5 (and a queen that cannot reach e5 from the d-file).
    const QUEEN_OR_D_PAWN: &str = "4k3/8/8/4p3/3P1Q2/8/8/4K3 w - - 0 1";

    #[test]
    fn the_minimum_coding() {
        let p = Chess::default();
        assert_eq!(brf(&uk(), Marks::default(), &p, "e4"), "E4");
        assert_eq!(brf(&uk(), Marks::default(), &p, "Nf3"), "SF3");
        assert_eq!(brf(&de(), Marks::default(), &p, "Nf3"), "SF3");
        let k = pos(KIWIPETE);
        // Disambiguation as SAN needs it, captures unmarked.
        assert_eq!(brf(&uk(), Marks::default(), &k, "Nxf7"), "SF7");
        assert_eq!(brf(&uk(), Marks::default(), &k, "dxe6"), "DE6");
        assert_eq!(brf(&uk(), Marks::default(), &k, "Qxf6"), "QF6");
        assert_eq!(brf(&de(), Marks::default(), &k, "Qxf6"), "DF6");
        assert_eq!(brf(&uk(), Marks::default(), &k, "Bxa6"), "LA6");
        assert_eq!(brf(&uk(), Marks::default(), &k, "Rb1"), "RB1");
        let knights = pos("rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 2 3");
        assert_eq!(brf(&uk(), Marks::default(), &knights, "Nbd2"), "SBD2");
        let rooks = pos("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
        assert_eq!(brf(&uk(), Marks::default(), &rooks, "R1a3"), "R1A3");
    }

    #[test]
    fn castling_promotion_and_en_passant() {
        let c = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(brf(&uk(), Marks::default(), &c, "O-O"), "0-0");
        assert_eq!(brf(&uk(), Marks::default(), &c, "O-O-O"), "0-0-0");
        let e = pos(EN_PASSANT);
        assert_eq!(brf(&uk(), Marks::default(), &e, "exd6"), "ED6EP");
        assert_eq!(brf(&uk(), Marks::NONE, &e, "exd6"), "ED6");
        let pr = pos(PROMOTE);
        assert_eq!(brf(&uk(), Marks::default(), &pr, "e8=Q"), "E8Q");
        assert_eq!(brf(&uk(), Marks::default(), &pr, "exd8=N"), "ED8S");
        assert_eq!(brf(&de(), Marks::default(), &pr, "exf8=Q"), "EF8D");
        assert_eq!(brf(&de(), Marks::default(), &pr, "e8=R"), "E8T");
        assert_eq!(read(&de(), &pr, "EF8D").unwrap(), "exf8=Q");
        assert_eq!(read(&uk(), &e, "ED6EP").unwrap(), "exd6");
        assert_eq!(read(&uk(), &c, "0-0-0").unwrap(), "O-O-O");
    }

    #[test]
    fn capture_check_and_mate_marks() {
        let k = pos(KIWIPETE);
        let all = Marks::ALL;
        assert_eq!(brf(&uk(), all, &k, "Nxf7"), "S;F7");
        assert_eq!(brf(&uk(), all, &k, "dxe6"), "D;E6");
        // Check before the destination, as the reference has it.
        let p = pos("4k3/8/8/8/8/8/8/4KQ2 w - - 0 1");
        assert_eq!(brf(&uk(), all, &p, "Qf7+"), "Q^F7");
        assert_eq!(brf(&uk(), Marks::default(), &p, "Qf7+"), "QF7");
        // Mate after the move; without mate marks a mate is written as a check.
        let m = pos("6k1/5ppp/8/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(brf(&uk(), all, &m, "Ra8#"), "RA8>M");
        let checks_only = Marks {
            check: true,
            ..Marks::NONE
        };
        assert_eq!(brf(&uk(), checks_only, &m, "Ra8#"), "R^A8");
        // Castling with check: the mark follows the castling.
        let c = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
        assert_eq!(brf(&uk(), all, &c, "O-O+"), "0-0^");
        for text in ["S;F7", "SF7", "S^F7", "SF7>M", "SF7^", "S;^F7"] {
            assert_eq!(read(&uk(), &k, text).unwrap(), "Nxf7", "{text}");
        }
        // With check marks after the move (a different profile choice).
        let mut after = uk();
        after.check_place = CheckPlace::AfterMove;
        assert_eq!(
            to_brf(&write_move(&after, all, &p, mv(&p, "Qf7+"), false).unwrap()),
            "QF7^"
        );
    }

    #[test]
    fn draw_offer_and_black_marker() {
        let p = Chess::default();
        let cells = write_move(&uk(), Marks::default(), &p, mv(&p, "e4"), true).unwrap();
        assert_eq!(to_brf(&cells), "E4\"<\"7\">");
        let r = read_move(&uk(), &p, &cells).unwrap();
        assert!(r.draw_offer && !r.black_marker);
        let after = {
            let mut q = p.clone();
            q.play_unchecked(mv(&p, "e4"));
            q
        };
        let r = read_move(&uk(), &after, &parse_cells("-SF6").unwrap()).unwrap();
        assert!(r.black_marker && !r.draw_offer);
        assert_eq!(notation::san(&after, r.mv), "Nf6");
    }

    #[test]
    fn de_queen_and_d_pawn_are_told_apart_by_the_writer() {
        let p = pos(QUEEN_OR_D_PAWN);
        // Both dxe5 and Qxe5 are legal: "DE5" would be either.
        assert!(matches!(
            read(&de(), &p, "DE5"),
            Err(MoveError::Ambiguous { candidates }) if candidates.len() == 2
        ));
        assert_eq!(brf(&de(), Marks::default(), &p, "Qxe5+"), "DF;E5");
        // The pawn: with the capture mark "D;E5" is still either; the pawn letter decides.
        assert_eq!(brf(&de(), Marks::default(), &p, "dxe5"), "BD;E5");
        assert_eq!(read(&de(), &p, "BD;E5").unwrap(), "dxe5");
        assert_eq!(read(&de(), &p, "DF;E5").unwrap(), "Qxe5+");
        // Without the queen on e5's lines the position would allow "DE5", but a reader
        // without the position would take it for the Dame: the capture mark says it is the
        // d-pawn (issue 26: "DE4 is both dxe4 and Qxe4").
        let q = pos("4k3/8/8/4p3/3P4/8/8/4K2Q w - - 0 1");
        assert_eq!(brf(&de(), Marks::default(), &q, "dxe5"), "D;E5");
        assert_eq!(brf(&de(), Marks::NONE, &q, "dxe5"), "D;E5");
        // The Dame's own move to that square keeps the minimum, without a mark.
        let dame = pos("4k3/8/8/4p3/8/8/7Q/4K3 w - - 0 1");
        assert_eq!(brf(&de(), Marks::default(), &dame, "Qxe5+"), "DE5");
        // With every capture marked "D;E5" is the Dame's: the pawn gets its letter too.
        assert_eq!(brf(&de(), Marks::ALL, &dame, "Qxe5+"), "D;^E5");
        assert_eq!(brf(&de(), Marks::ALL, &q, "dxe5"), "BD;E5");
        // The other files are no piece letters: the minimum stays.
        let c = pos("4k3/8/8/3p4/2P5/8/8/3QK3 w - - 0 1");
        assert_eq!(brf(&de(), Marks::default(), &c, "cxd5"), "CD5");
        // English letters are no file letters: nothing changes.
        assert_eq!(brf(&uk(), Marks::default(), &p, "dxe5"), "DE5");
        assert_eq!(brf(&uk(), Marks::default(), &q, "dxe5"), "DE5");
    }

    /// Every legal move of the positions a game passes through, by a fixed rule (a few hundred
    /// positions, captures and queens among them).
    fn positions_of_games() -> Vec<Chess> {
        let mut all = Vec::new();
        for seed in 0..12u64 {
            let mut p = Chess::default();
            for ply in 0..80u64 {
                if p.is_game_over() {
                    break;
                }
                all.push(p.clone());
                let moves = p.legal_moves();
                // Captures first when the rule says so, so that pawns take and queens roam.
                let captures: Vec<Move> =
                    moves.iter().copied().filter(|m| m.is_capture()).collect();
                let pick = seed.wrapping_mul(31).wrapping_add(ply * 17) as usize;
                let m = if !captures.is_empty() && !pick.is_multiple_of(3) {
                    captures[pick % captures.len()]
                } else {
                    moves[pick % moves.len()]
                };
                p.play_unchecked(m);
            }
        }
        all
    }

    #[test]
    fn a_written_move_reads_one_way_without_the_position() {
        // Whatever the position, the same cells never stand for two kinds of piece or two
        // destinations: a player reading his score back, or an arbiter comparing it, must not
        // need the position to tell a pawn from a queen.
        let mut positions = positions_of_games();
        positions.extend(
            [
                KIWIPETE,
                QUEEN_OR_D_PAWN,
                "4k3/8/8/4p3/3P4/8/8/4K2Q w - - 0 1",
                "4k3/8/8/4p3/8/8/7Q/4K3 w - - 0 1",
                "3qk3/8/8/8/4p3/3P4/8/4K3 b - - 0 1",
                "4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1",
            ]
            .map(pos),
        );
        for profile in [de(), uk()] {
            for marks in [Marks::NONE, Marks::default(), Marks::ALL] {
                // Cells -> what they say (the piece and where it goes; a castling by its side)
                // and the first move written so.
                let mut meaning: std::collections::HashMap<String, (String, String)> =
                    std::collections::HashMap::new();
                for p in &positions {
                    for m in p.legal_moves() {
                        let cells = to_brf(&write_move(&profile, marks, p, m, false).unwrap());
                        let says = match m.castling_side() {
                            Some(side) => format!("{side:?}"),
                            None => format!("{:?} to {}", m.role(), m.to()),
                        };
                        let this = (says, notation::san(p, m));
                        let first = meaning.entry(cells.clone()).or_insert(this.clone());
                        assert_eq!(
                            first.0, this.0,
                            "{} {marks:?}: {cells} is both {} and {}",
                            profile.name, first.1, this.1
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn reading_errors() {
        let p = Chess::default();
        assert!(
            matches!(read(&uk(), &p, "E5"), Err(MoveError::NoLegalMove { readings }) if readings == ["e5"])
        );
        assert!(matches!(
            read(&uk(), &p, "QQ"),
            Err(MoveError::Unreadable { .. })
        ));
        assert!(matches!(
            read(&uk(), &p, "E4X"),
            Err(MoveError::Unreadable { .. })
        ));
        assert!(matches!(
            read(&uk(), &p, "4"),
            Err(MoveError::Unreadable { .. })
        ));
        let knights = pos("rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 2 3");
        let err = read(&uk(), &knights, "SD2").unwrap_err();
        assert_eq!(
            err.to_string(),
            "it could mean Nbd2 or Nfd2; write the origin file or rank"
        );
        // The b-pawn is never taken for a bishop (print "bc3" asks back; Braille has L).
        let b = pos("rnbqkbnr/ppp1pppp/8/8/8/2p5/PPPP1PPP/RNBQKBNR w KQkq - 0 4");
        assert_eq!(read(&uk(), &b, "BC3").unwrap(), "bxc3");
        assert_eq!(read(&uk(), &b, "DC3").unwrap(), "dxc3");
        // Long forms: the whole origin square, with or without the letter.
        assert_eq!(read(&uk(), &p, "G1F3").unwrap(), "Nf3");
        assert_eq!(read(&uk(), &p, "SG1F3").unwrap(), "Nf3");
        assert_eq!(read(&uk(), &p, "E2E4").unwrap(), "e4");
    }

    #[test]
    fn every_legal_move_of_busy_positions_round_trips_in_both_profiles() {
        for fen in [
            KIWIPETE,
            EN_PASSANT,
            PROMOTE,
            QUEEN_OR_D_PAWN,
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "3Q4/7k/8/Q2Q4/8/3q4/8/4K3 w - - 0 1",
        ] {
            let p = pos(fen);
            for profile in [uk(), de()] {
                for marks in [Marks::NONE, Marks::default(), Marks::ALL] {
                    for m in p.legal_moves() {
                        for offer in [false, true] {
                            let cells = write_move(&profile, marks, &p, m, offer).unwrap();
                            let r = read_move(&profile, &p, &cells).unwrap();
                            assert_eq!(
                                (r.mv, r.draw_offer),
                                (m, offer),
                                "{fen} {}",
                                to_brf(&cells)
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn mark_names() {
        assert_eq!(
            Marks::from_names(&["capture", "mate"]).unwrap(),
            Marks {
                capture: true,
                mate: true,
                ..Marks::NONE
            }
        );
        assert_eq!(Marks::from_names::<&str>(&[]).unwrap(), Marks::NONE);
        assert_eq!(Marks::from_names(&["all"]).unwrap(), Marks::ALL);
        assert_eq!(
            Marks::from_names(&["en-passant"]).unwrap(),
            Marks {
                en_passant: true,
                ..Marks::NONE
            }
        );
        assert_eq!(
            Marks::from_names(&["chek"]).unwrap_err().to_string(),
            "'chek' is not a Braille mark; the marks are capture, check, mate, en-passant, all, none"
        );
    }
}
