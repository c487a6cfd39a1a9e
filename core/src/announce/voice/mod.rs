//! Rendering an [`Announcement`] with a voice pack ([`super::pack`]) into an [`Utterance`]: the
//! text for the transcript and text-to-speech, and the clips that say it.
//!
//! Pure: rendering only.

use shakmaty::{CastlingSide, Color, Piece, Role, Square};

pub use super::pack::{
    BUILTIN, ClipText, DEFAULT_VOICE, FileNames, KeypadWords, PAUSE, RecordWords,
    SECONDS_SAID_BELOW_MS, Style, VoiceError, VoiceErrorKind, VoicePack, Word, split_spec,
};
use super::{
    Announcement, Check, Guidance, MoveWords, Refusal, ResultWords, WhichBoard,
    numbers::{self, Form},
    pack::{PIECE_SLOTS, TEMPLATES, Token, color_key, role_key},
};
use crate::rules::game::Article;

/// What to say: the text (transcript, text-to-speech) and the clips to play, in order. Each
/// entry of `clips` is a file stem: `voices/<pack>/clips/<stem>.wav` (22050 Hz, mono, 16-bit),
/// or [`PAUSE`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Utterance {
    pub text: String,
    pub clips: Vec<String>,
}

impl VoicePack {
    /// What to say for `announcement`, with moves in `style`.
    pub fn render(&self, announcement: &Announcement, style: Style) -> Utterance {
        assemble(self.announcement(announcement, style))
    }

    // -----------------------------------------------------------------------------------------
    // Rendering: every function returns the bits of a phrase; `assemble` makes the utterance.

    fn word(&self, key: &str) -> Bit {
        match self.words.get(key) {
            Some(Word::Spoken { text, .. }) => Bit::Word {
                text: text.clone(),
                clips: vec![key.to_owned()],
            },
            Some(Word::Compound(parts)) => {
                let mut text = String::new();
                for part in parts {
                    if let Some(Word::Spoken { text: t, .. }) = self.words.get(part) {
                        if !text.is_empty() {
                            text.push(' ');
                        }
                        text.push_str(t);
                    }
                }
                Bit::Word {
                    text,
                    clips: parts.clone(),
                }
            }
            // `parse` checked every key the renderer asks for; say the key rather than nothing,
            // so that a bug is heard and the coverage test sees it.
            None => Bit::Word {
                text: key.to_owned(),
                clips: vec![key.to_owned()],
            },
        }
    }

    /// Fills a template. Optional templates that the pack leaves out say nothing.
    fn fill(&self, template: &str, slots: &[(&str, Vec<Bit>)]) -> Vec<Bit> {
        debug_assert!(
            TEMPLATES.iter().any(|s| s.name == template
                && s.slots
                    .iter()
                    .all(|slot| slots.iter().any(|(n, _)| n == slot))),
            "the renderer fills every slot of '{template}'"
        );
        let Some(tokens) = self.templates.get(template) else {
            return Vec::new();
        };
        let mut bits = Vec::new();
        for token in tokens {
            match token {
                Token::Word(key) => bits.push(self.word(key)),
                Token::Pause(c) => bits.push(Bit::Pause(*c)),
                Token::Slot(slot) => {
                    if let Some((_, value)) = slots.iter().find(|(name, _)| name == slot) {
                        bits.extend(value.iter().cloned());
                    }
                }
            }
        }
        bits
    }

    fn file(&self, file: shakmaty::File) -> Bit {
        self.word(&format!("{}{}", self.options.files.prefix(), file.char()))
    }

    fn rank(&self, rank: shakmaty::Rank) -> Bit {
        self.word(&format!("rank_{}", rank.char()))
    }

    fn square(&self, square: Square) -> Vec<Bit> {
        vec![self.file(square.file()), self.rank(square.rank())]
    }

    fn role(&self, role: Role) -> Vec<Bit> {
        vec![self.word(role_key(role))]
    }

    fn side(&self, color: Color) -> Vec<Bit> {
        vec![self.word(&format!("side_{}", color_key(color)))]
    }

    fn colored(&self, piece: Piece) -> Vec<Bit> {
        vec![self.word(&format!(
            "{}_{}",
            color_key(piece.color),
            role_key(piece.role)
        ))]
    }

    fn a_piece(&self, piece: Piece) -> Vec<Bit> {
        vec![self.word(&format!(
            "a_{}_{}",
            color_key(piece.color),
            role_key(piece.role)
        ))]
    }

    /// The three slots of a piece: `{piece}`, `{colored}`, `{a_piece}`, named with `prefix` where
    /// a template has two pieces (`{found}`, `{found_colored}`, `{a_found}`).
    fn piece_slots(&self, piece: Piece, name: &'static str) -> [(&'static str, Vec<Bit>); 3] {
        let (plain, colored, a) = match name {
            "piece" => (PIECE_SLOTS[0], PIECE_SLOTS[1], PIECE_SLOTS[2]),
            "found" => ("found", "found_colored", "a_found"),
            _ => ("belongs", "belongs_colored", "a_belongs"),
        };
        [
            (plain, self.role(piece.role)),
            (colored, self.colored(piece)),
            (a, self.a_piece(piece)),
        ]
    }

    /// `n` as said in this pack, before a noun of `form`.
    fn number(&self, n: u32, form: Form) -> Vec<Bit> {
        let spelled = numbers::spell(self.numbers, n, form);
        // One clip: the pack's own word (which a pack may have overridden). Composed from parts:
        // the one proper word ("dreiundsechzig"). Digit by digit: the pack's words.
        let pack_words = |keys: &[String]| {
            keys.iter()
                .map(|k| match self.word(k) {
                    Bit::Word { text, .. } => text,
                    Bit::Pause(_) => String::new(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let text = if spelled.keys.len() > 1 && n <= numbers::SPELLED_MAX {
            spelled.text
        } else {
            pack_words(&spelled.keys)
        };
        vec![Bit::Word {
            text,
            clips: spelled.keys,
        }]
    }

    /// "eine Stunde", "zwölf Minuten", "ein Zug": `unit` is `moves`, `hours`, `minutes` or
    /// `seconds`; a single one takes the `_one` template.
    fn count(&self, unit: &str, n: u32) -> Vec<Bit> {
        let template = if n == 1 {
            format!("{unit}_one")
        } else {
            unit.to_owned()
        };
        self.fill(
            &template,
            &[
                ("n", self.number(n, Form::Counting)),
                ("n_m", self.number(n, Form::Masculine)),
                ("n_f", self.number(n, Form::Feminine)),
            ],
        )
    }

    /// A clock time: seconds alone under a minute (zero is "null Sekunden"), minutes and seconds
    /// below [`SECONDS_SAID_BELOW_MS`], else hours and minutes. Times are cut, not rounded, to the
    /// unit said: a player must never hear more time than he has.
    fn duration(&self, ms: i64) -> Vec<Bit> {
        let seconds_total = u32::try_from(ms.max(0) / 1000).unwrap_or(u32::MAX);
        let (h, m, s) = (
            seconds_total / 3600,
            seconds_total % 3600 / 60,
            seconds_total % 60,
        );
        let parts: Vec<Vec<Bit>> = if seconds_total < 60 {
            vec![self.count("seconds", s)]
        } else if i64::from(seconds_total) * 1000 < SECONDS_SAID_BELOW_MS {
            let mut parts = vec![self.count("minutes", m)];
            if s > 0 {
                parts.push(self.count("seconds", s));
            }
            parts
        } else {
            let mut parts = Vec::new();
            if h > 0 {
                parts.push(self.count("hours", h));
            }
            if m > 0 {
                parts.push(self.count("minutes", m));
            }
            parts
        };
        let mut bits = Vec::new();
        let last = parts.len().saturating_sub(1);
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 && i == last {
                bits.extend(self.fill("duration_join", &[]));
            }
            bits.extend(part);
        }
        bits
    }

    fn reason(&self, article: Article) -> Vec<Bit> {
        let key = match article {
            Article::A9_2a | Article::A9_2b => "reason_repetition",
            Article::A9_3a | Article::A9_3b => "reason_fifty_moves",
        };
        vec![self.word(key)]
    }

    /// Items separated by a pause ("Gustav eins, Bella eins").
    fn list(items: impl IntoIterator<Item = Vec<Bit>>) -> Vec<Bit> {
        let mut bits = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                bits.push(Bit::Pause(','));
            }
            bits.extend(item);
        }
        bits
    }

    fn mv(&self, m: &MoveWords, style: Style) -> Vec<Bit> {
        let base = if let Some(side) = m.castling {
            match side {
                CastlingSide::KingSide => self.fill("castle_short", &[]),
                CastlingSide::QueenSide => self.fill("castle_long", &[]),
            }
        } else {
            let pawn = m.role == Role::Pawn;
            let piece = if pawn && !self.options.pawn_name {
                Vec::new()
            } else {
                self.role(m.role)
            };
            let origin = match style {
                Style::Long => self.square(m.from),
                // SAN names a capturing pawn's file (exd5), and a piece's file and/or rank when
                // another piece of its kind could go to the same square (Nbd2, R1a3, Qh4e1).
                Style::San if pawn && m.capture.is_some() => vec![self.file(m.from.file())],
                Style::San => {
                    let mut origin = Vec::new();
                    if m.disambiguate_file {
                        origin.push(self.file(m.from.file()));
                    }
                    if m.disambiguate_rank {
                        origin.push(self.rank(m.from.rank()));
                    }
                    origin
                }
            };
            let mut slots = vec![
                ("piece", piece),
                ("origin", origin),
                ("to", self.square(m.to)),
            ];
            match m.capture {
                _ if m.en_passant => self.fill("en_passant", &slots),
                Some(captured) if self.options.name_captured => {
                    slots.push(("captured", self.role(captured)));
                    self.fill("capture_named", &slots)
                }
                Some(_) => self.fill("capture", &slots),
                None => self.fill("move", &slots),
            }
        };
        let said = match m.promotion {
            Some(role) => self.fill(
                "promotion",
                &[("move", base), ("promoted", self.role(role))],
            ),
            None => base,
        };
        match m.check {
            Check::None => said,
            Check::Check => self.fill("check", &[("move", said)]),
            Check::Mate => self.fill("mate", &[("move", said)]),
        }
    }

    fn guidance(&self, guidance: &Guidance) -> Vec<Bit> {
        match *guidance {
            Guidance::Misplaced {
                piece,
                found,
                belongs,
            } => {
                let mut slots = self.piece_slots(piece, "piece").to_vec();
                slots.push(("square", self.square(found)));
                slots.push(("target", self.square(belongs)));
                self.fill("guidance_misplaced", &slots)
            }
            Guidance::Missing { square, piece } => {
                let mut slots = self.piece_slots(piece, "piece").to_vec();
                slots.push(("square", self.square(square)));
                self.fill("guidance_missing", &slots)
            }
            Guidance::Extra {
                square,
                piece: Some(piece),
            } => {
                let mut slots = self.piece_slots(piece, "piece").to_vec();
                slots.push(("square", self.square(square)));
                self.fill("guidance_extra", &slots)
            }
            Guidance::Extra {
                square,
                piece: None,
            } => self.fill("guidance_extra_unknown", &[("square", self.square(square))]),
            Guidance::Wrong {
                square,
                found,
                belongs,
            } => {
                let mut slots = self.piece_slots(found, "found").to_vec();
                slots.extend(self.piece_slots(belongs, "belongs"));
                slots.push(("square", self.square(square)));
                self.fill("guidance_wrong", &slots)
            }
            Guidance::More { squares } => self.count("guidance_more", squares),
        }
    }

    fn announcement(&self, announcement: &Announcement, style: Style) -> Vec<Bit> {
        use Announcement as A;
        match announcement {
            A::Move(m) => self.mv(m, style),
            A::Recital { number, moves } => self.recital(*number, moves, style),
            A::Stalemate => self.fill("stalemate", &[]),
            A::DeadPosition => self.fill("dead_position", &[]),
            A::DrawOffered { by } => self.fill("draw_offered", &[("side", self.side(*by))]),
            A::DrawAccepted => self.fill("draw_accepted", &[]),
            A::DrawDeclined { by } => self.fill("draw_declined", &[("side", self.side(*by))]),
            A::ClaimMade { by, article } => self.fill(
                "claim_made",
                &[("side", self.side(*by)), ("reason", self.reason(*article))],
            ),
            A::ClaimUpheld { article } => {
                self.fill("claim_upheld", &[("reason", self.reason(*article))])
            }
            A::ClaimRejected { article } => {
                self.fill("claim_rejected", &[("reason", self.reason(*article))])
            }
            A::FlagFell { side } => self.fill("flag_fell", &[("side", self.side(*side))]),
            A::Result(result) => match result {
                ResultWords::WhiteWins => self.fill("result_white", &[]),
                ResultWords::BlackWins => self.fill("result_black", &[]),
                ResultWords::Draw => self.fill("result_draw", &[]),
            },
            A::Touched { piece, square } => {
                let mut slots = self.piece_slots(*piece, "piece").to_vec();
                slots.push(("square", self.square(*square)));
                self.fill("touched", &slots)
            }
            A::IllegalMove => self.fill("illegal_move", &[]),
            A::Guidance(guidance) => self.guidance(guidance),
            A::MovesCompleted { white, black } => self.fill(
                "moves_completed",
                &[
                    ("white", self.count("moves", *white)),
                    ("black", self.count("moves", *black)),
                ],
            ),
            A::Times {
                white_used_ms,
                white_left_ms,
                black_used_ms,
                black_left_ms,
            } => self.fill(
                "times",
                &[
                    ("white_used", self.duration(*white_used_ms)),
                    ("white_left", self.duration(*white_left_ms)),
                    ("black_used", self.duration(*black_used_ms)),
                    ("black_left", self.duration(*black_left_ms)),
                ],
            ),
            A::SquareContents {
                square,
                piece: Some(piece),
            } => {
                let mut slots = self.piece_slots(*piece, "piece").to_vec();
                slots.push(("square", self.square(*square)));
                self.fill("square_contents", &slots)
            }
            A::SquareContents {
                square,
                piece: None,
            } => self.fill("square_empty", &[("square", self.square(*square))]),
            A::LineContents { pieces } if pieces.is_empty() => self.fill("line_empty", &[]),
            A::LineContents { pieces } => self.line_contents(pieces),
            A::PiecesOfKind { piece, squares } => self.pieces_of_kind(*piece, squares),
            A::Material { white, black } => self.fill(
                "material",
                &[
                    ("white", self.number(*white, Form::Counting)),
                    ("black", self.number(*black, Form::Counting)),
                ],
            ),
            A::ToMove { side } => self.fill("to_move", &[("side", self.side(*side))]),
            A::BoardDisconnected { board } => {
                self.fill("board_disconnected", &[("board", self.board(*board))])
            }
            A::BoardReconnected { board } => {
                self.fill("board_reconnected", &[("board", self.board(*board))])
            }
            A::GameRecovered => self.fill("game_recovered", &[]),
            A::GameStarted { side } => self.fill("game_started", &[("side", self.side(*side))]),
            A::ClocksPaused => self.fill("clocks_paused", &[]),
            A::ClocksResumed => self.fill("clocks_resumed", &[]),
            A::Adjourned { by } => self.fill("adjourned", &[("side", self.side(*by))]),
            A::NoMoveYet => self.fill("no_move_yet", &[]),
            A::NoClock => self.fill("no_clock", &[]),
            A::Retraced { side } => self.fill("retraced", &[("side", self.side(*side))]),
            A::EnvelopeOpened => self.fill("envelope_opened", &[]),
            A::SealedMoveInvalid => self.fill("sealed_move_invalid", &[]),
            A::SpeechFallback => self.fill("speech_fallback", &[]),
            A::MoveHeld => self.fill("move_held", &[]),
            A::MoveRequired { mv } => self.fill("move_required", &[("move", self.mv(mv, style))]),
            A::NoMoveToCount => self.fill("no_move_to_count", &[]),
            A::OwnMove(m) => self.fill("own_move", &[("move", self.mv(m, style))]),
            A::ClockChanged { side, by_ms: 0 } => {
                self.fill("clock_changed", &[("side", self.side(*side))])
            }
            A::ClockChanged { side, by_ms } => self.fill(
                if *by_ms > 0 {
                    "clock_added"
                } else {
                    "clock_taken"
                },
                &[
                    ("side", self.side(*side)),
                    ("time", self.duration(by_ms.abs())),
                ],
            ),
            A::OutOfTurn => self.fill("out_of_turn", &[]),
            A::Hint(m) => self.fill("hint", &[("move", self.mv(m, style))]),
            A::Standing(standing) => self.standing(*standing),
            A::OpponentAway => self.fill("opponent_away", &[]),
            A::OpponentBack => self.fill("opponent_back", &[]),
            A::TrainingOnly => self.fill("training_only", &[]),
            A::ResignAsked => self.fill("resign_asked", &[]),
            A::ReviewMoment {
                number,
                played,
                better,
                missed_mate,
            } => self.review_moment(*number, played, better, *missed_mate, style),
            A::ReviewEnd => self.fill("review_end", &[]),
            A::RequestSwitchedOff => self.fill("request_switched_off", &[]),
            A::RecordingHalted => self.fill("recording_halted", &[]),
            A::RecordingRestored => self.fill("recording_restored", &[]),
            A::Refused(refusal) => self.fill(
                match refusal {
                    Refusal::Unknown => "refused_unknown",
                    Refusal::NotAllowed => "refused_not_allowed",
                    Refusal::BadEntry => "refused_bad_entry",
                    Refusal::NotNow => "refused_not_now",
                    Refusal::TooFast => "refused_too_fast",
                },
                &[],
            ),
            A::ButtonUnassigned { number } => self.fill(
                "button_unassigned",
                &[
                    ("n", self.number(u32::from(*number), Form::Counting)),
                    ("n_m", self.number(u32::from(*number), Form::Masculine)),
                    ("n_f", self.number(u32::from(*number), Form::Feminine)),
                ],
            ),
        }
    }

    /// A move pair recited: its number, then each move with its side.
    fn recital(&self, number: u32, moves: &[MoveWords], style: Style) -> Vec<Bit> {
        let mut bits = self.number(number, Form::Counting);
        for m in moves {
            bits.push(Bit::Pause(','));
            bits.extend(self.side(m.side));
            bits.extend(self.mv(m, style));
        }
        bits
    }

    /// The pieces standing on a line (a file, a rank, a diagonal), each with its square.
    fn line_contents(&self, pieces: &[(Square, Piece)]) -> Vec<Bit> {
        Self::list(pieces.iter().map(|(square, piece)| {
            let mut slots = self.piece_slots(*piece, "piece").to_vec();
            slots.push(("square", self.square(*square)));
            self.fill("line_item", &slots)
        }))
    }

    /// Where the pieces of one kind stand, or that there is none.
    fn pieces_of_kind(&self, piece: Piece, squares: &[Square]) -> Vec<Bit> {
        let mut slots = vec![
            ("piece", self.role(piece.role)),
            ("colored", self.colored(piece)),
            ("side", self.side(piece.color)),
        ];
        if squares.is_empty() {
            self.fill("pieces_of_kind_none", &slots)
        } else {
            let count = u32::try_from(squares.len()).unwrap_or(u32::MAX);
            slots.push(("count", self.number(count, Form::Counting)));
            slots.push((
                "squares",
                Self::list(squares.iter().map(|s| self.square(*s))),
            ));
            self.fill("pieces_of_kind", &slots)
        }
    }

    /// A moment of the review: the move played, the better one, and what it missed.
    fn review_moment(
        &self,
        number: u32,
        played: &MoveWords,
        better: &MoveWords,
        missed_mate: bool,
        style: Style,
    ) -> Vec<Bit> {
        let template = if missed_mate {
            "review_missed_mate"
        } else {
            "review_lost_material"
        };
        self.fill(
            template,
            &[
                ("n", self.number(number, Form::Counting)),
                ("played", self.mv(played, style)),
                ("better", self.mv(better, style)),
            ],
        )
    }

    /// The engine's judgement in words (training).
    fn standing(&self, standing: crate::engine::Standing) -> Vec<Bit> {
        use crate::engine::Standing as S;
        match standing {
            S::Equal => self.fill("standing_equal", &[]),
            S::SlightlyBetter(side) => self.fill("standing_slightly", &[("side", self.side(side))]),
            S::ClearlyBetter(side) => self.fill("standing_clearly", &[("side", self.side(side))]),
            S::Winning(side) => self.fill("standing_winning", &[("side", self.side(side))]),
            S::MatesIn(side, n) => self.fill(
                "standing_mate",
                &[
                    ("side", self.side(side)),
                    ("n", self.number(n, Form::Counting)),
                ],
            ),
        }
    }

    fn board(&self, board: WhichBoard) -> Vec<Bit> {
        match board {
            WhichBoard::Tactile => vec![self.word("board_tactile")],
            WhichBoard::Sighted => vec![self.word("board_sighted")],
            WhichBoard::TactileOf(side) => {
                let mut bits = vec![self.word("board_tactile")];
                bits.extend(self.side(side));
                bits
            }
        }
    }
}
/// A piece of a phrase: a word (its text and clips) or a pause (its punctuation mark).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Bit {
    Word { text: String, clips: Vec<String> },
    Pause(char),
}

/// Joins bits into an utterance: words separated by spaces, a pause written as its punctuation
/// mark on the word before it. A pause is only kept between two words (an empty slot next to a
/// comma must not leave ", ," or a pause at either end), the first of several in a row wins, and
/// the text starts with a capital letter.
fn assemble(bits: Vec<Bit>) -> Utterance {
    let mut text = String::new();
    let mut clips = Vec::new();
    let mut pending: Option<char> = None;
    for bit in bits {
        match bit {
            Bit::Pause(mark) => {
                if !text.is_empty() && pending.is_none() {
                    pending = Some(mark);
                }
            }
            Bit::Word {
                text: word,
                clips: word_clips,
            } => {
                if let Some(mark) = pending.take() {
                    text.push(mark);
                    clips.push(PAUSE.to_owned());
                }
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&word);
                clips.extend(word_clips);
            }
        }
    }
    let mut chars = text.chars();
    let text = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    };
    Utterance { text, clips }
}

#[cfg(test)]
mod tests;
