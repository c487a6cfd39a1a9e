//! What is said at the board: announcements as values, and how a voice pack words them.
//!
//! This module owns the [`Announcement`] type (what happened, with everything a voice needs to
//! say it and nothing about how), who hears it ([`Audience`]) and how urgently ([`Priority`]).
//! The wording lives in voice packs (`voices/<name>/voice.toml`), rendered by [`voice`] into an
//! [`Utterance`](voice::Utterance): the text for the transcript and text-to-speech, and the sequence of vocabulary
//! keys a clip speaker plays. Pure: no files, no audio, no clock; the speakers live in the shell.
//!
//! Never build a spoken string ad hoc elsewhere: add a variant here, its wording to every pack,
//! and the coverage test keeps the packs complete.

pub mod numbers;
pub mod pack;
pub mod voice;
mod wording;

pub use wording::Wording;

use shakmaty::{CastlingSide, Color, Piece, Role, Square};

use crate::rules::ClockMillis;
use crate::rules::game::Article;

/// Who hears an announcement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Audience {
    /// One player, by his colour: a blind player's headphones, a sighted player's speaker or
    /// screen. Nothing said to one player reaches the other's ear.
    Player(Color),
    Both,
}

/// Who hears it, in words for the log and the consoles ("white's player", "both players"),
/// never a Debug field.
impl std::fmt::Display for Audience {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Audience::Player(c) => write!(f, "{c}'s player"),
            Audience::Both => f.write_str("both players"),
        }
    }
}

impl Audience {
    /// Whether `player` hears it.
    pub fn includes(self, player: Color) -> bool {
        match self {
            Audience::Player(c) => c == player,
            Audience::Both => true,
        }
    }
}

/// How an announcement queues: urgent speech interrupts info speech; moves are never dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Priority {
    /// Flag fall, illegal move, guidance to correct a board.
    Urgent,
    /// Moves and the events of the game.
    Normal,
    /// Replies to requests; may be interrupted.
    Info,
}

/// Whether a move gives check or mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Check {
    #[default]
    None,
    Check,
    Mate,
}

/// A move with everything any style needs to say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveWords {
    pub side: Color,
    /// The moving piece (a pawn for promotions).
    pub role: Role,
    pub from: Square,
    pub to: Square,
    /// The captured piece (a pawn for en passant).
    pub capture: Option<Role>,
    pub en_passant: bool,
    pub castling: Option<CastlingSide>,
    pub promotion: Option<Role>,
    pub check: Check,
    /// SAN disambiguation: the origin file and/or rank SAN writes (`Nbd2`, `R1a3`).
    pub disambiguate_file: bool,
    pub disambiguate_rank: bool,
}

impl MoveWords {
    /// The words of `m` played in `position` (which must be legal there).
    pub fn new(position: &shakmaty::Chess, m: shakmaty::Move) -> MoveWords {
        use shakmaty::{Position, san::San};
        let side = position.turn();
        let mut after = position.clone();
        after.play_unchecked(m);
        let check = if after.is_checkmate() {
            Check::Mate
        } else if after.is_check() {
            Check::Check
        } else {
            Check::None
        };
        let (disambiguate_file, disambiguate_rank) = match San::from_move(position, m) {
            San::Normal { file, rank, .. } => (file.is_some(), rank.is_some()),
            _ => (false, false),
        };
        let (from, to) = match m {
            shakmaty::Move::Castle { king, .. } => {
                let side_c = m.castling_side().unwrap_or(CastlingSide::KingSide);
                (king, side_c.king_to(side))
            }
            _ => (m.from().unwrap_or(m.to()), m.to()),
        };
        MoveWords {
            side,
            role: m.role(),
            from,
            to,
            capture: m.capture(),
            en_passant: m.is_en_passant(),
            castling: m.castling_side(),
            promotion: m.promotion(),
            check,
            disambiguate_file: disambiguate_file && m.role() != Role::Pawn,
            disambiguate_rank,
        }
    }
}

impl MoveWords {
    /// The move in short algebraic notation with English piece letters (`Nf3`, `exd5`,
    /// `O-O`, `e8=Q+`): what a DGT 3000's eight characters show the sighted player.
    pub fn san(&self) -> String {
        let mut san = match self.castling {
            Some(CastlingSide::KingSide) => "O-O".to_string(),
            Some(CastlingSide::QueenSide) => "O-O-O".to_string(),
            None => {
                let mut s = String::new();
                if self.role != Role::Pawn {
                    s.push(self.role.upper_char());
                    if self.disambiguate_file {
                        s.push(self.from.file().char());
                    }
                    if self.disambiguate_rank {
                        s.push(self.from.rank().char());
                    }
                } else if self.capture.is_some() {
                    s.push(self.from.file().char());
                }
                if self.capture.is_some() {
                    s.push('x');
                }
                s.push_str(&self.to.to_string());
                if let Some(promotion) = self.promotion {
                    s.push('=');
                    s.push(promotion.upper_char());
                }
                s
            }
        };
        match self.check {
            Check::Check => san.push('+'),
            Check::Mate => san.push('#'),
            Check::None => {}
        }
        san
    }
}

/// The result of a game, as announced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultWords {
    WhiteWins,
    BlackWins,
    Draw,
}

/// Guidance to correct a board that differs from the position it should show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Guidance {
    /// "Springer steht auf Felix vier, gehoert auf Felix drei".
    Misplaced {
        piece: Piece,
        found: Square,
        belongs: Square,
    },
    /// "Eva vier ist leer, dort gehoert ein weisser Bauer hin".
    Missing { square: Square, piece: Piece },
    /// A piece stands where nothing belongs ("Felix vier muss leer sein").
    Extra {
        square: Square,
        piece: Option<Piece>,
    },
    /// A piece stands where another belongs ("auf Eva vier steht ein Springer, dort gehoert ein Bauer hin").
    Wrong {
        square: Square,
        found: Piece,
        belongs: Piece,
    },
    /// After the first few corrections of a board that differs on many squares (one still
    /// holding the last game): how many squares more differ ("und elf weitere Felder"). Nobody
    /// can keep fourteen corrections in mind; he hears the next ones once these are done.
    More { squares: u32 },
}

/// Which board a system notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WhichBoard {
    /// The blind player's tactile board (at a table with one).
    Tactile,
    /// The sighted player's board.
    Sighted,
    /// The tactile board of the player of this colour (two blind players, two tactile boards).
    TactileOf(Color),
}

/// Why a command of the blind player's was refused, as he is told ("Befehl unbekannt"): a
/// keypad without a display is never met with silence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// No command has the word he typed.
    Unknown,
    /// A command of the assistant's or the arbiter's, not his.
    NotAllowed,
    /// A command of his whose arguments do not read.
    BadEntry,
    /// A request that cannot be met now (the game is over, it is the engine's move).
    NotNow,
    /// His keypad sends more than the game takes (a stuck key): said once per flood.
    TooFast,
}

/// Everything tactus says. See the module docs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Announcement {
    /// A move, as announced to the other player (F.3 c) or repeated on request.
    Move(MoveWords),
    Stalemate,
    DeadPosition,
    DrawOffered {
        by: Color,
    },
    DrawAccepted,
    DrawDeclined {
        by: Color,
    },
    /// A claim under 9.2 or 9.3 was made.
    ClaimMade {
        by: Color,
        article: Article,
    },
    ClaimUpheld {
        article: Article,
    },
    ClaimRejected {
        article: Article,
    },
    FlagFell {
        side: Color,
    },
    Result(ResultWords),
    /// A piece the player lifted, told back to him ("Springer Gustav eins beruehrt").
    Touched {
        piece: Piece,
        square: Square,
    },
    /// The move on the tactile board is not possible; the touched piece must be moved if it can.
    IllegalMove,
    Guidance(Guidance),
    /// Replies to requests (F.9 d: only when asked).
    MovesCompleted {
        white: u32,
        black: u32,
    },
    Times {
        white_used_ms: ClockMillis,
        white_left_ms: ClockMillis,
        black_used_ms: ClockMillis,
        black_left_ms: ClockMillis,
    },
    SquareContents {
        square: Square,
        piece: Option<Piece>,
    },
    /// A rank, file or diagonal scanned in order (only occupied squares are named).
    LineContents {
        pieces: Vec<(Square, Piece)>,
    },
    /// Where the pieces of one kind and colour stand.
    PiecesOfKind {
        piece: Piece,
        squares: Vec<Square>,
    },
    /// Material in pawn units per side (Q 9, R 5, B 3, N 3, P 1).
    Material {
        white: u32,
        black: u32,
    },
    /// One move of the record read back on request: its number and White's and Black's part of
    /// it (or one of them), each with its colour ("drei, Weiß Läufer Bella fünf, Schwarz
    /// Springer Felix sechs"). A game read back is one of these per move, said one after the
    /// other, so that a new request cuts it between moves (and it yields to the game's own
    /// announcements like any reply).
    Recital {
        number: u32,
        moves: Vec<MoveWords>,
    },
    /// A reply about the moves before any was played.
    NoMoveYet,
    /// A reply about the time in a game without a clock.
    NoClock,
    /// Whose move it is.
    ToMove {
        side: Color,
    },
    /// System notices.
    BoardDisconnected {
        board: WhichBoard,
    },
    BoardReconnected {
        board: WhichBoard,
    },
    GameRecovered,
    /// Play starts: the arbiter started it, or both boards show the position; `side` is to move.
    GameStarted {
        side: Color,
    },
    ClocksPaused,
    ClocksResumed,
    /// The game was taken back (F.8, or the arbiter); `side` is to move.
    Retraced {
        side: Color,
    },
    /// Adjournment: `by` sealed his move (never said: it stays in the envelope).
    Adjourned {
        by: Color,
    },
    /// Resumption: the envelope is opened; the sealed move is said next.
    EnvelopeOpened,
    /// Resumption: the sealed move is ambiguous, unreadable or illegal (the result follows).
    SealedMoveInvalid,
    /// The speech engine failed; announcements continue with the recorded clips.
    SpeechFallback,
    /// A move made while the clocks stand (6.12, or a claim awaiting the arbiter): it is held
    /// and counts when they run again.
    MoveHeld,
    /// The move on the board is not the one the Laws require now (9.5 b: after an incorrect
    /// claim the intended move must be played): this one must be played.
    MoveRequired {
        mv: MoveWords,
    },
    /// The clock was pressed, but no completed move of the presser stands on his board: his
    /// clock runs on.
    NoMoveToCount,
    /// The blind player's own move, said back to him as it was announced in his name (F.1), so
    /// that he can have a misread move corrected in time (F.6).
    OwnMove(MoveWords),
    /// The arbiter changed this player's clock (6.13, 7.4, 9.5, 10.2, 13.4): told to the player
    /// concerned; the time itself only when he asks (F.9 d).
    ClockChanged {
        side: Color,
        /// By how much (a penalty's amount: "plus zwei Minuten"); 0 when it is not said.
        by_ms: i64,
    },
    /// A move made on his board before his opponent's: no move ("nicht am Zug"); his board is
    /// guided back once the opponent's move stands.
    OutOfTurn,
    /// Training: the move the engine would play for him (`hint`).
    Hint(MoveWords),
    /// Training: how the position stands by the engine's judgement (`eval`).
    Standing(crate::engine::Standing),
    /// Training: the engine stopped answering; the clocks stand until it is back. Said to the
    /// players by the arbiter, as the words of his pause for the engine (6.12,
    /// `PauseReason::Opponent`: said once, not beside his ordinary "clocks stopped"), or by the
    /// daemon when the clocks stood already.
    OpponentAway,
    /// Training: the engine answers again. The arbiter's resumption after his pause for the
    /// engine says it before [`Announcement::ClocksResumed`]; the daemon says it alone when the
    /// clocks do not run again with it (they stood for another reason).
    OpponentBack,
    /// A training request (hint, takeback, eval, review) in a game against a person.
    TrainingOnly,
    /// He typed `resign` at his keypad: typed again, it resigns his game (a stray keystroke
    /// must not end it).
    ResignAsked,
    /// The review after a training game: at his move `number` he played `played`; the engine
    /// preferred `better` (he lost material, or missed a mate).
    ReviewMoment {
        number: u32,
        played: MoveWords,
        better: MoveWords,
        missed_mate: bool,
    },
    /// The review has said every moment (or found none).
    ReviewEnd,
    /// A request the arbiter has switched off (`material`, `pieces`: 12.3 a leaves them to him),
    /// said to the player who asked, so that his key is never met with silence.
    RequestSwitchedOff,
    /// The journal cannot be written: the clocks stop and nothing counts until it can (a move
    /// not on the disk would be lost by a restart). Said to both players: by the arbiter, as
    /// the words of his pause for the recording (6.12, `PauseReason::Recording`), or by the
    /// daemon when the clocks stood already.
    RecordingHalted,
    /// The journal is written again: play goes on. The arbiter's resumption after his pause for
    /// the recording says it before [`Announcement::ClocksResumed`]; the daemon says it alone
    /// when the halt stopped no clock.
    RecordingRestored,
    /// A command of his refused, said to him (his keypad, his console).
    Refused(Refusal),
    /// A button of his board with no request set for it was pressed ("Taste sieben nicht
    /// belegt"): every press gets an answer.
    ButtonUnassigned {
        number: u8,
    },
}

impl Announcement {
    /// How urgently this is said.
    pub fn priority(&self) -> Priority {
        use Announcement::*;
        match self {
            FlagFell { .. }
            | IllegalMove
            | MoveRequired { .. }
            | NoMoveToCount
            | OwnMove(_)
            | Guidance(_)
            | BoardDisconnected { .. }
            | SpeechFallback => Priority::Urgent,
            MovesCompleted { .. }
            | Times { .. }
            | SquareContents { .. }
            | LineContents { .. }
            | PiecesOfKind { .. }
            | Material { .. }
            | ToMove { .. }
            | Recital { .. }
            | NoMoveYet
            | NoClock
            | Touched { .. }
            | Refused(_)
            | ButtonUnassigned { .. } => Priority::Info,
            _ => Priority::Normal,
        }
    }
}

/// `n` with its noun, singular or plural as it needs ("1 square", "3 squares"), for the messages
/// people read: never "square(s)". Public so that every layer (the arbiter's notes, the hub, audit,
/// store, the commands) words its counts the same way.
pub fn count<N>(n: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8>,
{
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

#[cfg(test)]
mod tests {
    use super::{MoveWords, count};

    /// The short SAN of the words agrees with shakmaty's SAN on every move of a real game's
    /// positions (captures, checks, castling both ways, promotion, disambiguation).
    #[test]
    fn the_words_san_is_the_moves_san() {
        use shakmaty::{Chess, Position, san::SanPlus};
        let games = [
            "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7",
            "d4 d5 c4 dxc4 e4 b5 a4 c6 axb5 cxb5 b3 cxb3 Qxb3 a6 Bxb5+ axb5 Rxa8",
            "e4 d5 exd5 Qxd5 Nc3 Qa5 d4 c6 Nf3 Bg4 h3 Bxf3 Qxf3 e6 Bd2 Nd7 O-O-O",
            "a4 b5 axb5 a6 bxa6 Nf6 a7 Ng8 axb8=Q",
            "f3 e5 g4 Qh4#",
        ];
        for game in games {
            let mut position = Chess::default();
            for text in game.split(' ') {
                let san: SanPlus = text.parse().unwrap();
                let m = san.san.to_move(&position).unwrap();
                let words = MoveWords::new(&position, m);
                let expected = SanPlus::from_move(position.clone(), m).to_string();
                assert_eq!(words.san(), expected, "in {game}");
                position.play_unchecked(m);
            }
        }
    }

    #[test]
    fn one_takes_the_singular_every_other_number_the_plural() {
        assert_eq!(count(1, "square", "squares"), "1 square");
        assert_eq!(count(0, "square", "squares"), "0 squares");
        assert_eq!(count(2, "half-move", "half-moves"), "2 half-moves");
        assert_eq!(count(1_u64, "byte", "bytes"), "1 byte");
        assert_eq!(count(2_u16, "channel", "channels"), "2 channels");
    }
}
