//! Scoresheets and sealed moves: every notation the Laws allow on paper (Appendix E). A written
//! move may use the piece letters of any country or figurines, so the answer is every legal move
//! any of those notations gives, each with who reads it so, never a preference for one language.
//! What none of them reads is tried as console input (the lenient matcher of [`super`]).

use shakmaty::{CastlingSide, Chess, Move, Position, Role};

use super::{Pattern, candidates, order_key, read, read_body, san};

/// The piece letters of one language (E.3: "each player is free to use the first letter of the
/// name which is commonly used in his country"), or a set of figurines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceLetters {
    /// Who writes so, for the messages that explain an ambiguity (`"German"`).
    pub language: &'static str,
    /// King, queen, rook, bishop, knight, in that order. A symbol may be more than one character
    /// (Russian `Кр`).
    pub symbols: [&'static str; 5],
}

impl PieceLetters {
    /// The pieces in the order of [`PieceLetters::symbols`].
    const ROLES: [Role; 5] = [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
    ];

    fn pairs(&self) -> impl Iterator<Item = (Role, &'static str)> {
        Self::ROLES.into_iter().zip(self.symbols)
    }
}

/// The letter sets [`readings`] knows. Chosen so that the same letter names two different pieces
/// only where real scoresheets do so: `R` (rook in English, king in the Romance languages) and `P`
/// (knight in Dutch; a redundant pawn letter elsewhere, read by the console fallback). Sets that
/// would make common English letters ambiguous are not in this table but can be passed to
/// [`readings_with`]: [`HUNGARIAN`] (`B` is the rook, `H` the knight), [`CZECH`] (`S` is the
/// bishop, `V` the rook).
pub const PIECE_LETTERS: &[PieceLetters] = &[
    PieceLetters {
        language: "English",
        symbols: ["K", "Q", "R", "B", "N"],
    },
    // Also Danish, Norwegian and Swedish.
    PieceLetters {
        language: "German",
        symbols: ["K", "D", "T", "L", "S"],
    },
    PieceLetters {
        language: "Dutch",
        symbols: ["K", "D", "T", "L", "P"],
    },
    PieceLetters {
        language: "French",
        symbols: ["R", "D", "T", "F", "C"],
    },
    // Also Italian.
    PieceLetters {
        language: "Spanish",
        symbols: ["R", "D", "T", "A", "C"],
    },
    PieceLetters {
        language: "Portuguese",
        symbols: ["R", "D", "T", "B", "C"],
    },
    PieceLetters {
        language: "Polish",
        symbols: ["K", "H", "W", "G", "S"],
    },
    PieceLetters {
        language: "Russian",
        symbols: ["Кр", "Ф", "Л", "С", "К"],
    },
    // E.3: "In printed periodicals, the use of figurines for the pieces is recommended." Either
    // colour's figurine is accepted for either side: people type whichever they find.
    PieceLetters {
        language: "figurine",
        symbols: ["♔", "♕", "♖", "♗", "♘"],
    },
    PieceLetters {
        language: "figurine",
        symbols: ["♚", "♛", "♜", "♝", "♞"],
    },
];

/// Hungarian letters (király, vezér, bástya, futó, huszár): not in [`PIECE_LETTERS`] because `B`
/// would then be a rook as well as a bishop in every English sheet.
pub const HUNGARIAN: PieceLetters = PieceLetters {
    language: "Hungarian",
    symbols: ["K", "V", "B", "F", "H"],
};

/// Czech letters (král, dáma, věž, střelec, jezdec): not in [`PIECE_LETTERS`] because `S` would
/// then be a bishop as well as the German knight.
pub const CZECH: PieceLetters = PieceLetters {
    language: "Czech",
    symbols: ["K", "D", "V", "S", "J"],
};

/// Pawn figurines (a pawn is otherwise written without a letter, E.4).
const PAWN_FIGURINES: [&str; 2] = ["♙", "♟"];

/// One reading of a written move and where it comes from (a language, "figurine", "no piece
/// letter", or the console's lenient matcher).
#[derive(Debug, Clone, Copy)]
struct Reading {
    pattern: Pattern,
    via: &'static str,
}

/// Every legal move of `position` that `text`, as written on a scoresheet or sealed, can mean in
/// any notation the Laws allow, in a fixed order (from-square, to-square, promotion Q, R, B, N),
/// each move once. Empty when nothing legal fits (see [`readable`] for whether the text is a move
/// at all).
///
/// Read: algebraic with the piece letters of [`PIECE_LETTERS`] or figurines; castling `0-0`,
/// `0-0-0` (Appendix E's own form) and `O-O`; promotion `d8Q`, `d8=Q`, `d8/Q`, `d8(Q)` with any of
/// those letters; `exd6 e.p.`, `exd6ep`, `exd6 a.p.`; captures with `x`, `:` or nothing; long
/// algebraic (`e2-e4`, `Sg1-f3`, `e2e4`); check, mate, evaluation and draw-offer marks (`+ # ++ !
/// ? (=)`) ignored, and so is a move number before the move (`41. Sf3`, `41...Sf3`; not checked,
/// the caller knows which move it is). A pawn move without its promotion piece (`d8`) reads as
/// every promotion. What none of that reads is tried as console input ([`candidates`]: lower-case
/// letters, capitals).
pub fn readings(position: &Chess, text: &str) -> Vec<Move> {
    readings_with(position, text, PIECE_LETTERS)
}

/// [`readings`] with another table of piece letters (for a tournament that also allows, say,
/// [`HUNGARIAN`]).
pub fn readings_with(position: &Chess, text: &str, letters: &[PieceLetters]) -> Vec<Move> {
    explained_readings(position, text, letters)
        .into_iter()
        .map(|(m, _)| m)
        .collect()
}

/// Whether any notation [`readings`] knows reads `text` as a move at all, legal or not.
pub fn readable(text: &str) -> bool {
    !sheet_patterns(text, PIECE_LETTERS).is_empty() || read(text).is_ok()
}

/// The one legal move a recorded text means (a sealed move, 2001 Appendix on adjournment: "in
/// unambiguous notation"), or an error that says why not: nothing written, not a move in any
/// notation, no legal move fits, or the candidates with the notations that read each one.
pub fn read_recorded(position: &Chess, text: &str) -> Result<Move, String> {
    let shown = text.trim();
    if shown.is_empty() {
        return Err("no move written".to_owned());
    }
    let found = explained_readings(position, text, PIECE_LETTERS);
    match found.as_slice() {
        [(m, _)] => Ok(*m),
        [] if !readable(text) => Err(format!(
            "'{shown}' is not a move in any notation the Laws allow (algebraic, with national \
             piece letters or figurines, e.g. Nf3, Sf3, Cf3, e2-e4, 0-0, d8Q)"
        )),
        [] => Err(format!(
            "'{shown}' reads as a move, but no legal move in this position fits it"
        )),
        // Under-specified in every notation (`e8`, `Sd2` with two knights): the moves are enough.
        many if many.iter().all(|(_, via)| *via == many[0].1) => Err(format!(
            "'{shown}' could mean {}: it does not say which",
            many.iter()
                .map(|(m, _)| san(position, *m))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
        // Different letters read differently (`R`): say who reads each move.
        many => Err(format!(
            "'{shown}' could mean {}: it is not one move",
            many.iter()
                .map(|(m, via)| format!("{} ({})", san(position, *m), via.join(", ")))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

/// The piece letters of a language, by its tag (`"de"`, `"en-GB"`, the first part of a voice
/// pack's name: `de-fide`) or its name (`"German"`, `"english"`); `None` for one tactus does not
/// know. Danish, Norwegian and Swedish write the German letters, Italian the Spanish ones.
pub fn letters_of(language: &str) -> Option<PieceLetters> {
    let wanted = language.trim().to_ascii_lowercase();
    let tag = wanted
        .split(['-', '_', ':'])
        .next()
        .unwrap_or_default()
        .to_owned();
    let name = match tag.as_str() {
        "en" => "English",
        "de" | "da" | "no" | "nb" | "nn" | "sv" | "danish" | "norwegian" | "swedish" => "German",
        "nl" => "Dutch",
        "fr" => "French",
        "es" | "it" | "italian" => "Spanish",
        "pt" => "Portuguese",
        "pl" => "Polish",
        "ru" => "Russian",
        "hu" => return Some(HUNGARIAN),
        "cs" => return Some(CZECH),
        _ => "",
    };
    PIECE_LETTERS
        .iter()
        .chain([&HUNGARIAN, &CZECH])
        .find(|l| {
            l.language != "figurine"
                && (l.language == name || l.language.eq_ignore_ascii_case(&wanted))
        })
        .copied()
}

/// Why a sealed move cannot be sealed as written, and the moves it could mean (empty when it
/// means none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclear {
    pub reason: String,
    pub candidates: Vec<Move>,
}

/// The one legal move a sealed move means, read as its writer wrote it: in his own notation
/// (`own`, the piece letters of his country, E.3) first, so that the English `Rf1` is the rook's
/// move for an English player however the Romance languages read it. Only what his own notation
/// does not read at all is read in every notation the Laws allow ([`read_recorded`]). Without
/// `own`, every notation at once.
pub fn read_sealed(
    position: &Chess,
    text: &str,
    own: Option<&PieceLetters>,
) -> Result<Move, Unclear> {
    if let Some(own) = own {
        // His own letters only: the console's lenient reading is English, not his.
        let found = strict_readings(position, text, std::slice::from_ref(own));
        match found.as_slice() {
            [(m, _)] => return Ok(*m),
            [] => {}
            many => {
                return Err(Unclear {
                    reason: format!(
                        "'{}' could mean {} in {} notation: it does not say which",
                        text.trim(),
                        many.iter()
                            .map(|(m, _)| san(position, *m))
                            .collect::<Vec<_>>()
                            .join(" or "),
                        own.language
                    ),
                    candidates: many.iter().map(|(m, _)| *m).collect(),
                });
            }
        }
    }
    read_recorded(position, text).map_err(|reason| Unclear {
        reason,
        candidates: explained_readings(position, text, PIECE_LETTERS)
            .into_iter()
            .map(|(m, _)| m)
            .collect(),
    })
}

/// `mv` written so that it reads as exactly one move in `own` notation and in every other: the
/// piece letter of `own` (English without one), its from-square and its destination (`Th1-f1`,
/// `e7-e8D`, `0-0`). What the one sealing types to choose a reading.
pub fn unambiguous(position: &Chess, mv: Move, own: Option<&PieceLetters>) -> String {
    let letters = own.copied().unwrap_or(PIECE_LETTERS[0]);
    let letter = |role: Role| {
        letters
            .pairs()
            .find(|&(r, _)| r == role)
            .map_or("", |(_, s)| s)
    };
    let written = match mv {
        Move::Castle { .. } if mv.castling_side() == Some(CastlingSide::KingSide) => {
            "0-0".to_owned()
        }
        Move::Castle { .. } => "0-0-0".to_owned(),
        _ => {
            let from = mv.from().expect("not a drop");
            let piece = match mv.role() {
                Role::Pawn => "",
                role => letter(role),
            };
            let promotion = mv.promotion().map_or("", letter);
            format!("{piece}{from}-{}{promotion}", mv.to())
        }
    };
    // A long form every notation reads as this move alone; else the coordinates, which the
    // console's reader takes in any language.
    if read_sealed(position, &written, own) == Ok(mv) {
        written
    } else {
        let uci = mv.to_uci(shakmaty::CastlingMode::Standard);
        uci.to_string()
    }
}

/// Every legal move `text` can mean, each with the notations that read it so.
fn explained_readings(
    position: &Chess,
    text: &str,
    letters: &[PieceLetters],
) -> Vec<(Move, Vec<&'static str>)> {
    let mut found = strict_readings(position, text, letters);
    if found.is_empty()
        && let Ok(lenient) = candidates(position, text)
    {
        found = lenient
            .into_iter()
            .map(|m| (m, vec!["as typed at the console"]))
            .collect();
        found.sort_by_key(|(m, _)| order_key(*m));
    }
    found
}

/// Every legal move `text` can mean in the notations of `letters` (and castling, pawn moves
/// and figurines), each with the notations that read it so; no console fallback.
fn strict_readings(
    position: &Chess,
    text: &str,
    letters: &[PieceLetters],
) -> Vec<(Move, Vec<&'static str>)> {
    let mut found: Vec<(Move, Vec<&'static str>)> = Vec::new();
    let patterns = sheet_patterns(text, letters);
    for m in position.legal_moves() {
        let mut via: Vec<&'static str> = Vec::new();
        for r in patterns.iter().filter(|r| r.pattern.matches(m)) {
            if !via.contains(&r.via) {
                via.push(r.via);
            }
        }
        if !via.is_empty() {
            found.push((m, via));
        }
    }
    found.sort_by_key(|(m, _)| order_key(*m));
    found
}

/// Every reading of `text` in the notations of a scoresheet; empty if none.
fn sheet_patterns(text: &str, letters: &[PieceLetters]) -> Vec<Reading> {
    let Some(text) = clean_written(text) else {
        return Vec::new();
    };
    let undashed: String = text.chars().filter(|&c| c != '-').collect();
    if !undashed.is_empty() && undashed.chars().all(|c| matches!(c, 'O' | 'o' | '0')) {
        let side = match undashed.len() {
            2 => CastlingSide::KingSide,
            3 => CastlingSide::QueenSide,
            _ => return Vec::new(),
        };
        return vec![Reading {
            pattern: Pattern::Castle(side),
            via: "castling",
        }];
    }
    // The destination is the last rank digit and the file before it: what follows is the
    // promotion piece, what precedes is the piece letter and the origin.
    let Some(rank_at) = text.rfind(|c: char| matches!(c, '1'..='8')) else {
        return Vec::new();
    };
    let (head, promotion) = text.split_at(rank_at + 1);
    let Some(promotions) = written_promotions(promotion, letters) else {
        return Vec::new();
    };

    let mut bodies: Vec<(Option<Role>, &str, &'static str)> = vec![(None, head, "no piece letter")];
    for set in letters {
        for (role, symbol) in set.pairs() {
            if let Some(body) = head.strip_prefix(symbol) {
                bodies.push((Some(role), body, set.language));
            }
        }
    }
    for symbol in PAWN_FIGURINES {
        if let Some(body) = head.strip_prefix(symbol) {
            bodies.push((Some(Role::Pawn), body, "figurine"));
        }
    }

    let mut readings = Vec::new();
    for (role, body, via) in bodies {
        if !body.is_ascii() {
            continue;
        }
        let Some(Pattern::Coords {
            role,
            from_file,
            from_rank,
            capture,
            to,
            ..
        }) = read_body(role, body.as_bytes())
        else {
            continue;
        };
        for &promotion in &promotions {
            readings.push(Reading {
                pattern: Pattern::Coords {
                    role,
                    from_file,
                    from_rank,
                    capture,
                    to,
                    promotion,
                },
                via,
            });
        }
    }
    readings
}

/// The promotion pieces a suffix can name: `[None]` for no suffix (any piece), one or more roles
/// for `Q`, `=D`, `/T`, `(Ф)`, ...; `None` if the suffix is something else.
fn written_promotions(suffix: &str, letters: &[PieceLetters]) -> Option<Vec<Option<Role>>> {
    if suffix.is_empty() {
        return Some(vec![None]);
    }
    let mut symbol = suffix
        .strip_prefix('=')
        .or_else(|| suffix.strip_prefix('/'))
        .unwrap_or(suffix);
    if let Some(inner) = symbol.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        symbol = inner;
    }
    let mut roles: Vec<Option<Role>> = letters
        .iter()
        .flat_map(PieceLetters::pairs)
        .filter(|&(role, s)| s == symbol && role != Role::King)
        .map(|(role, _)| Some(role))
        .collect();
    roles.dedup();
    (!roles.is_empty()).then_some(roles)
}

/// Removes whitespace and the marks that do not say which move was made (check, mate, evaluation,
/// en passant, a draw offer) and maps look-alike characters. `None` if nothing is left.
fn clean_written(text: &str) -> Option<String> {
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if c.is_whitespace() => {}
            '\u{2010}'..='\u{2015}' | '\u{2212}' => clean.push('-'),
            '\u{00d7}' => clean.push('x'),
            c => clean.push(c),
        }
    }
    // The move's number, as a sealed move is written under it (`41. Sf3`, `41...Sf3`): no move
    // starts with digits and a dot (castling `0-0` has a dash after its digit).
    let digits = clean.len() - clean.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let numbered = clean[digits..].trim_start_matches(['.', '…']);
    if digits > 0 && numbered.len() < clean.len() - digits {
        clean = numbered.to_owned();
    }
    // Longest first, so that `e.p.` is not cut to `e.p`. `a.p.` is the Spanish "al paso" (E of
    // the Spanish text), `†` and `‡` are printed check and mate; a comma ends Black's move in the
    // Spanish text's own sample game ("1.d4 Cf6, 2.c4 e6, ...").
    const MARKS: [&str; 14] = [
        "(=)", "e.p.", "a.p.", "e.p", "a.p", "ep", "+", "#", "!", "?", "†", "‡", ",", ";",
    ];
    'strip: loop {
        for mark in MARKS {
            if let Some(rest) = clean.strip_suffix(mark) {
                clean.truncate(rest.len());
                continue 'strip;
            }
        }
        break;
    }
    (!clean.is_empty()).then_some(clean)
}
