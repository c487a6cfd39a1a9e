//! The adjournment envelope: what the 2001 Laws (the adjournment articles) require to be written
//! on the envelope that holds the sealed move, as plain text and as Braille pages.
//!
//! The Laws list seven items: the players' names, the position immediately before the sealed
//! move, the time used by each player, the name of the player who sealed, the number of the sealed
//! move, the offer of a draw if it is current, and the date, time and venue of resumption. The
//! text numbers its lines as the Laws number the items, so that the arbiter can check the envelope
//! against the Laws item by item, and so that a blind player (F.5: he keeps his own record) can
//! read it with a screen reader or on a Braille display: one fact per line, no tables, no
//! alignment by spaces.
//!
//! The sealed move itself is inside the envelope and secret until it is opened at resumption.
//! [`Envelope`] therefore never holds it: it is not copied out of the game at all, so no rendering
//! can leak it.
//!
//! Pure: the game, its tags and the times come in as arguments (the wall-clock date and time of
//! the seal as text the caller formatted); strings and a Braille [`Document`] come out.

use shakmaty::{
    ByColor, CastlingSide, Chess, Color, EnPassantMode, Piece, Position, Role, fen::Fen,
};

use super::braille::{
    BrailleOptions, Document,
    cell::Cell,
    layout::{MIN_CELLS, MIN_LINES, page_number, wrap},
    literary,
};
use crate::rules::{Millis, game::Game, pgn::format_clk};

/// Everything the envelope shows. Built from a game in adjournment with [`Envelope::from_game`];
/// the fields are public so that a record read back (or typed in by the arbiter) can be rendered
/// too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub white: String,
    pub black: String,
    pub event: Option<String>,
    pub site: Option<String>,
    pub round: Option<String>,
    /// The position immediately before the sealed move (the sealer has the move).
    pub position: Chess,
    /// Thinking time each player has used, ms; `None` for a game without a clock.
    pub used_ms: Option<ByColor<i64>>,
    /// Main thinking time each player has left, ms; `None` for a game without a clock.
    pub remaining_ms: Option<ByColor<i64>>,
    pub sealed_by: Color,
    /// The number of the sealed move (the full-move number: Black's 41st move is 41).
    pub move_number: u32,
    /// Who made the draw offer that still stands, if one does.
    pub draw_offer: Option<Color>,
    /// Date, time and venue of resumption, once the arbiter has fixed them.
    pub resumption: Option<String>,
    /// When the move was sealed, as wall date and time text: the core never reads a clock, so
    /// the caller writes it.
    pub sealed_at: String,
}

impl Envelope {
    /// The envelope of `game`; `None` when the game is not adjourned. Names come from the PGN tags
    /// `White` and `Black` (`?` when missing or unknown), and `Event`, `Site` and `Round` when
    /// known.
    ///
    /// The clocks stop when the move is sealed, so the times are those at the seal for any `now`
    /// after it. Only when the replier was absent at resumption and his clock was started before
    /// the envelope is opened do his times move on with `now`.
    pub fn from_game(
        game: &Game,
        tags: &[(String, String)],
        now: Millis,
        sealed_at: String,
    ) -> Option<Envelope> {
        let adjournment = game.adjournment()?;
        let clock = game.clock();
        Some(Envelope {
            white: known_tag(tags, "White").unwrap_or("?").to_owned(),
            black: known_tag(tags, "Black").unwrap_or("?").to_owned(),
            event: known_tag(tags, "Event").map(str::to_owned),
            site: known_tag(tags, "Site").map(str::to_owned),
            round: known_tag(tags, "Round").map(str::to_owned),
            // Moves are refused while adjourned, so the game's position is still the one the
            // sealer had in front of him.
            position: game.position().clone(),
            used_ms: clock.map(|c| ByColor::new_with(|side| c.used(side, now))),
            remaining_ms: clock.map(|c| ByColor::new_with(|side| c.remaining(side, now))),
            sealed_by: adjournment.by,
            move_number: adjournment.move_number,
            draw_offer: game.draw_offer(),
            resumption: adjournment
                .resumption
                .as_deref()
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_owned),
            sealed_at,
        })
    }

    fn name(&self, side: Color) -> &str {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The envelope as plain English lines: a heading, the time of the seal, then the Laws' seven
    /// items numbered as the Laws number them. Lines of the second item that describe the
    /// position start with three spaces.
    pub fn lines(&self) -> Vec<String> {
        self.render_lines(true)
    }

    /// The lines, with or without the FEN on the second item's line. Braille leaves the FEN out:
    /// through literary Braille every capital and digit gets its own sign and the one long "word"
    /// is cut mid-rank at the margin, while the lines in words below it state the same position,
    /// side to move, castling rights and en passant square.
    fn render_lines(&self, with_fen: bool) -> Vec<String> {
        let mut lines = Vec::new();

        let mut heading = String::from("Adjournment envelope");
        let about: Vec<String> = [
            self.event.clone(),
            self.site.clone(),
            self.round.as_ref().map(|r| format!("round {r}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !about.is_empty() {
            heading.push_str(": ");
            heading.push_str(&about.join(", "));
        }
        lines.push(heading);
        lines.push(format!("Sealed: {}", self.sealed_at.trim()));

        // 1. The names of the players.
        lines.push(format!(
            "1. Players: White {}, Black {}",
            self.white, self.black
        ));

        // 2. The position immediately before the sealed move: the FEN for the arbiter (exact,
        // castling and en passant included), the same in words for whoever reads it aloud.
        let mut item = String::from("2. Position before the sealed move:");
        if with_fen {
            let fen = Fen::from_position(&self.position, EnPassantMode::Legal);
            item.push_str(&format!(" FEN {fen}"));
        }
        lines.push(item);
        for side in Color::ALL {
            lines.push(format!(
                "   {}: {}",
                side_name(side),
                pieces(&self.position, side)
            ));
        }
        lines.push(format!("   {} to move", side_name(self.position.turn())));
        lines.push(format!("   Castling rights: {}", castling(&self.position)));
        if let Some(square) = self.position.legal_ep_square() {
            lines.push(format!("   En passant capture possible on {square}"));
        }

        // 3. The time used by each player; what is left too, as the clocks are set from it at
        // resumption.
        lines.push(match (self.used_ms, self.remaining_ms) {
            (Some(used), remaining) => {
                let mut line = format!(
                    "3. Time used: White {}, Black {}",
                    format_clk(used.white),
                    format_clk(used.black)
                );
                if let Some(left) = remaining {
                    line.push_str(&format!(
                        " (left: White {}, Black {})",
                        format_clk(left.white),
                        format_clk(left.black)
                    ));
                }
                line
            }
            (None, _) => "3. Time used: no clock".to_owned(),
        });

        // 4. The name of the player who has sealed the move.
        lines.push(format!(
            "4. Sealed by: {}, {}",
            side_name(self.sealed_by),
            self.name(self.sealed_by)
        ));

        // 5. The number of the sealed move; never the move: that stays in the envelope.
        lines.push(format!(
            "5. Number of the sealed move: {}, {}'s {} move",
            self.move_number,
            side_name(self.sealed_by),
            ordinal(self.move_number)
        ));

        // 6. The offer of a draw, if the proposal is current.
        lines.push(match self.draw_offer {
            Some(by) => format!("6. Draw offer: {}'s draw offer stands", side_name(by)),
            None => "6. Draw offer: none".to_owned(),
        });

        // 7. The date, time and venue of resumption of play.
        lines.push(match &self.resumption {
            Some(text) => format!("7. Resumption: {text}"),
            None => "7. Resumption: to be fixed by the arbiter".to_owned(),
        });
        lines
    }

    /// [`Envelope::lines`] joined, one per line, with a final newline.
    pub fn text(&self) -> String {
        let mut text = self.lines().join("\n");
        text.push('\n');
        text
    }

    /// The envelope in Braille: every line of [`Envelope::lines`] transcribed as literary text in
    /// the profile's style, wrapped at words to the page width, and laid out in pages of the page
    /// length, each page starting with a running head that carries the page number. The FEN is
    /// left out (see `render_lines`); the position is there in words.
    ///
    /// Items start at the margin and their runover lines are indented two cells; the lines about
    /// the position start in cell 3 and run over to cell 5 (the list format transcribers use), so
    /// a finger finds where each item begins. A line's Braille is never split across pages unless
    /// it is longer than a page. A page too small for the running head (fewer than [`MIN_CELLS`]
    /// cells or [`MIN_LINES`] lines, possible only for a page size not built with
    /// `PageSize::new`) gets none; a line still never exceeds the page.
    pub fn braille(&self, opts: &BrailleOptions) -> Document {
        let width = opts.page.cells.max(1);
        let style = opts.profile.text;
        // One block of Braille lines per print line.
        let blocks: Vec<Vec<Vec<Cell>>> = self
            .render_lines(false)
            .iter()
            .map(|line| {
                // Indentation only where it leaves room for words.
                let (first, runover) = match (line.starts_with(' '), width > 8) {
                    (_, false) => (0, 0),
                    (false, true) => (0, 2),
                    (true, true) => (2, 4),
                };
                let cells = literary::transcribe(line, style);
                wrap(&cells, width - runover)
                    .into_iter()
                    .enumerate()
                    .map(|(k, mut piece)| {
                        let indent = if k == 0 { first } else { runover };
                        piece.splice(0..0, std::iter::repeat_n(Cell::BLANK, indent));
                        piece
                    })
                    .collect()
            })
            .collect();

        let with_head = opts.page.cells >= MIN_CELLS && opts.page.lines >= MIN_LINES;
        let per_page = if with_head {
            opts.page.lines - 1
        } else {
            opts.page.lines.max(1)
        };
        // A fact is not split across pages when it fits on one: a reader who turns the page in
        // the middle of a time or a name has to hold half of it in mind.
        let mut bodies: Vec<Vec<Vec<Cell>>> = vec![Vec::new()];
        for block in blocks {
            let room = per_page - bodies.last().map_or(0, Vec::len);
            if block.len() > room && block.len() <= per_page {
                bodies.push(Vec::new());
            }
            for line in block {
                if bodies.last().is_some_and(|b| b.len() == per_page) {
                    bodies.push(Vec::new());
                }
                if let Some(body) = bodies.last_mut() {
                    body.push(line);
                }
            }
        }
        bodies.retain(|b| !b.is_empty());

        let title = literary::transcribe("Adjournment envelope", style);
        let pages = bodies
            .into_iter()
            .enumerate()
            .map(|(i, body)| {
                let mut page = Vec::with_capacity(body.len() + 1);
                if with_head {
                    page.push(running_head(&title, i + 1, width));
                }
                page.extend(body);
                page
            })
            .collect();
        Document {
            pages,
            head_lines: usize::from(with_head),
        }
    }
}

/// A tag's value unless absent or unknown (`?`, `-`, empty), as PGN writes unknowns.
fn known_tag<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty() && v.chars().any(|c| !matches!(c, '?' | '.' | '-')))
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 101st, 111th.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `side`'s pieces in words, king first, as a player would dictate them: "King g1, Queen d1,
/// Rooks a1 f1, Pawns a2 b2". Squares go file by file, then rank by rank.
fn pieces(position: &Chess, side: Color) -> String {
    const ORDER: [(Role, &str, &str); 6] = [
        (Role::King, "King", "Kings"),
        (Role::Queen, "Queen", "Queens"),
        (Role::Rook, "Rook", "Rooks"),
        (Role::Bishop, "Bishop", "Bishops"),
        (Role::Knight, "Knight", "Knights"),
        (Role::Pawn, "Pawn", "Pawns"),
    ];
    let board = position.board();
    let groups: Vec<String> = ORDER
        .iter()
        .filter_map(|&(role, one, many)| {
            let mut squares: Vec<_> = board
                .by_piece(Piece { color: side, role })
                .into_iter()
                .collect();
            if squares.is_empty() {
                return None;
            }
            squares.sort_by_key(|sq| (sq.file(), sq.rank()));
            let name = if squares.len() == 1 { one } else { many };
            let list: Vec<String> = squares.iter().map(ToString::to_string).collect();
            Some(format!("{name} {}", list.join(" ")))
        })
        .collect();
    if groups.is_empty() {
        // Not a legal chess position, but the envelope must not pretend otherwise.
        "no pieces".to_owned()
    } else {
        groups.join(", ")
    }
}

/// The castling rights that remain, in words.
fn castling(position: &Chess) -> String {
    let castles = position.castles();
    let sides: Vec<String> = Color::ALL
        .iter()
        .map(|&side| {
            let wings: Vec<&str> = [
                (CastlingSide::KingSide, "kingside"),
                (CastlingSide::QueenSide, "queenside"),
            ]
            .into_iter()
            .filter(|&(wing, _)| castles.has(side, wing))
            .map(|(_, word)| word)
            .collect();
            let wings = if wings.is_empty() {
                "none".to_owned()
            } else {
                wings.join(" and ")
            };
            format!("{} {wings}", side_name(side))
        })
        .collect();
    sides.join(", ")
}

/// The page's first line: the title (cut at a word when it does not fit) and the page number at
/// the right margin, at least two blanks apart, as the score's running head has it.
fn running_head(title: &[Cell], page: usize, width: usize) -> Vec<Cell> {
    let number = page_number(page);
    let room = width.saturating_sub(number.len() + 2);
    let mut head: Vec<Cell> = if title.len() <= room {
        title.to_vec()
    } else {
        let cut = &title[..room];
        match cut.iter().rposition(|c| c.is_blank()) {
            Some(blank) if blank > 0 => cut[..blank].to_vec(),
            _ => cut.to_vec(),
        }
    };
    while head.last().is_some_and(|c| c.is_blank()) {
        head.pop();
    }
    head.resize(width.saturating_sub(number.len()), Cell::BLANK);
    head.extend(number);
    head
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, san::San};

    use super::*;
    use crate::record::braille::{PageSize, Profile, cell::to_brf};
    use crate::rules::{
        Edition, PlayMode,
        game::{Input, RulesConfig},
        time_control::TimeControl,
    };

    const SEALED: &str = "Nf3";

    fn config(tc: Option<&str>) -> RulesConfig {
        RulesConfig {
            edition: Edition::Fide2001,
            play: PlayMode::Standard,
            time_control: tc.map(|tc| tc.parse::<TimeControl>().unwrap()),
        }
    }

    fn play(game: &mut Game, san: &str, at: Millis) {
        let m = san
            .parse::<San>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        game.apply(Input::Move(m), at).unwrap();
    }

    fn tags() -> Vec<(String, String)> {
        [
            ("Event", "Open 2026"),
            ("Site", "Berlin"),
            ("Round", "5"),
            ("White", "Anna Beispiel"),
            ("Black", "Bert Muster"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    /// Two hours sudden death. White thinks 1 s, 3 s, then 3719 s over his third move before
    /// sealing it (1:02:03 in all); Black thinks 2 s and 4 s.
    fn white_seals() -> Game {
        let mut game = Game::new(config(Some("7200")));
        game.apply(Input::Start, 0).unwrap();
        play(&mut game, "e4", 1_000);
        play(&mut game, "e5", 3_000);
        play(&mut game, "Nc3", 6_000);
        play(&mut game, "Nc6", 10_000);
        let by = game.to_move();
        game.apply(
            Input::Seal {
                by,
                text: SEALED.into(),
                notation: None,
            },
            3_729_000,
        )
        .unwrap();
        game
    }

    fn envelope(game: &Game, now: Millis) -> Envelope {
        Envelope::from_game(game, &tags(), now, "2026-11-30 18:00".into()).unwrap()
    }

    fn line<'a>(lines: &'a [String], prefix: &str) -> &'a str {
        lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line {prefix:?} in {lines:#?}"))
    }

    fn opts(profile: &str, cells: usize, lines: usize) -> BrailleOptions {
        let mut o = BrailleOptions::new(Profile::named(profile).unwrap());
        o.page = PageSize::new(cells, lines).unwrap();
        o
    }

    fn assert_secret_kept(env: &Envelope) {
        let text = env.text();
        assert!(!text.contains(SEALED), "{text}");
        for profile in Profile::names().unwrap() {
            let opts = BrailleOptions::new(Profile::named(&profile).unwrap());
            let brf = env.braille(&opts).to_brf();
            let sealed_brf = to_brf(&literary::transcribe(SEALED, opts.profile.text));
            assert!(!brf.contains(&sealed_brf), "{profile}: {brf}");
            assert!(!brf.to_uppercase().contains(&SEALED.to_uppercase()));
        }
    }

    #[test]
    fn white_sealer_shows_all_seven_items() {
        let mut game = white_seals();
        game.apply(
            Input::SetResumption {
                text: "2026-12-01 10:00, Hall B".into(),
            },
            3_800_000,
        )
        .unwrap();
        // Rendered a day later: the stopped clocks have not moved.
        let env = envelope(&game, 90_000_000);
        let lines = env.lines();
        assert_eq!(lines[0], "Adjournment envelope: Open 2026, Berlin, round 5");
        assert_eq!(lines[1], "Sealed: 2026-11-30 18:00");
        assert_eq!(
            line(&lines, "1."),
            "1. Players: White Anna Beispiel, Black Bert Muster"
        );
        assert_eq!(
            line(&lines, "2."),
            "2. Position before the sealed move: FEN \
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 2 3"
        );
        assert_eq!(
            line(&lines, "   White:"),
            "   White: King e1, Queen d1, Rooks a1 h1, Bishops c1 f1, Knights c3 g1, \
             Pawns a2 b2 c2 d2 e4 f2 g2 h2"
        );
        assert_eq!(
            line(&lines, "   Black:"),
            "   Black: King e8, Queen d8, Rooks a8 h8, Bishops c8 f8, Knights c6 g8, \
             Pawns a7 b7 c7 d7 e5 f7 g7 h7"
        );
        assert!(lines.contains(&"   White to move".to_owned()));
        assert_eq!(
            line(&lines, "   Castling"),
            "   Castling rights: White kingside and queenside, Black kingside and queenside"
        );
        assert_eq!(
            line(&lines, "3."),
            "3. Time used: White 1:02:03, Black 0:00:06 (left: White 0:57:57, Black 1:59:54)"
        );
        assert_eq!(line(&lines, "4."), "4. Sealed by: White, Anna Beispiel");
        assert_eq!(
            line(&lines, "5."),
            "5. Number of the sealed move: 3, White's 3rd move"
        );
        assert_eq!(line(&lines, "6."), "6. Draw offer: none");
        assert_eq!(
            line(&lines, "7."),
            "7. Resumption: 2026-12-01 10:00, Hall B"
        );
        // The items come in the Laws' order, each once.
        let numbered: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.split_once(". ").map(|(n, _)| n))
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            .collect();
        assert_eq!(numbered, ["1", "2", "3", "4", "5", "6", "7"]);
        assert_eq!(env.text(), lines.join("\n") + "\n");
        assert_secret_kept(&env);
    }

    #[test]
    fn black_sealer_with_a_standing_draw_offer_and_no_resumption_yet() {
        let mut game = Game::new(config(Some("7200")));
        game.apply(Input::Start, 0).unwrap();
        for (i, san) in ["e4", "e5", "Nc3", "Nc6", "Bc4"].iter().enumerate() {
            play(&mut game, san, (i as Millis + 1) * 1_000);
        }
        // White offers with his move; the offer is still open when Black seals.
        game.apply(Input::OfferDraw { by: Color::White }, 5_000)
            .unwrap();
        game.apply(
            Input::Seal {
                by: Color::Black,
                text: SEALED.into(),
                notation: None,
            },
            65_000,
        )
        .unwrap();
        let env = envelope(&game, 65_000);
        let lines = env.lines();
        assert!(lines.contains(&"   Black to move".to_owned()));
        assert_eq!(line(&lines, "4."), "4. Sealed by: Black, Bert Muster");
        assert_eq!(
            line(&lines, "5."),
            "5. Number of the sealed move: 3, Black's 3rd move"
        );
        assert_eq!(
            line(&lines, "6."),
            "6. Draw offer: White's draw offer stands"
        );
        assert_eq!(
            line(&lines, "7."),
            "7. Resumption: to be fixed by the arbiter"
        );
        // White: 1 + 1 + 1 s; Black: 1 + 1 s, then 60 s on the sealed move.
        assert_eq!(
            line(&lines, "3."),
            "3. Time used: White 0:00:03, Black 0:01:02 (left: White 1:59:57, Black 1:58:58)"
        );
        assert_eq!(env.used_ms.unwrap().black, 62_000);
        assert_secret_kept(&env);

        // An offer declined before the envelope is written is no longer current.
        game.apply(Input::DeclineDraw { by: Color::Black }, 70_000)
            .unwrap();
        assert_eq!(
            line(&envelope(&game, 70_000).lines(), "6."),
            "6. Draw offer: none"
        );
    }

    #[test]
    fn a_game_that_is_not_adjourned_has_no_envelope() {
        let mut game = Game::new(config(Some("7200")));
        assert!(Envelope::from_game(&game, &tags(), 0, String::new()).is_none());
        game.apply(Input::Start, 0).unwrap();
        play(&mut game, "e4", 1_000);
        assert!(Envelope::from_game(&game, &tags(), 1_000, String::new()).is_none());
        // Once the envelope is opened the game goes on without one.
        let mut game = white_seals();
        game.apply(Input::OpenEnvelope, 4_000_000).unwrap();
        assert!(Envelope::from_game(&game, &tags(), 4_000_000, String::new()).is_none());
    }

    #[test]
    fn a_late_move_number_without_clock_or_tags() {
        let fen = "6k1/5ppp/8/8/8/8/r4PPP/3R2K1 b - - 0 41";
        let position: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mut game = Game::from_position(config(None), position);
        game.apply(
            Input::Seal {
                by: Color::Black,
                text: SEALED.into(),
                notation: None,
            },
            0,
        )
        .unwrap();
        let env = Envelope::from_game(&game, &[], 0, "21:00".into()).unwrap();
        let lines = env.lines();
        assert_eq!(lines[0], "Adjournment envelope");
        assert_eq!(line(&lines, "1."), "1. Players: White ?, Black ?");
        assert_eq!(
            line(&lines, "2."),
            format!("2. Position before the sealed move: FEN {fen}")
        );
        assert_eq!(
            line(&lines, "   White:"),
            "   White: King g1, Rook d1, Pawns f2 g2 h2"
        );
        assert_eq!(
            line(&lines, "   Black:"),
            "   Black: King g8, Rook a2, Pawns f7 g7 h7"
        );
        assert_eq!(
            line(&lines, "   Castling"),
            "   Castling rights: White none, Black none"
        );
        assert_eq!(line(&lines, "3."), "3. Time used: no clock");
        assert_eq!(line(&lines, "4."), "4. Sealed by: Black, ?");
        assert_eq!(
            line(&lines, "5."),
            "5. Number of the sealed move: 41, Black's 41st move"
        );
        assert_secret_kept(&env);
    }

    #[test]
    fn en_passant_is_named_only_when_legal() {
        let mut game = Game::new(config(None));
        for san in ["e4", "Nf6", "e5", "d5"] {
            play(&mut game, san, 0);
        }
        game.apply(
            Input::Seal {
                by: Color::White,
                text: "exd6".into(),
                notation: None,
            },
            0,
        )
        .unwrap();
        let lines = envelope(&game, 0).lines();
        assert!(line(&lines, "2.").contains(" w KQkq d6 0 3"));
        assert!(lines.contains(&"   En passant capture possible on d6".to_owned()));
        assert!(!envelope(&white_seals(), 0).text().contains("En passant"));
    }

    #[test]
    fn unknown_tags_are_left_out() {
        let game = white_seals();
        let tags: Vec<(String, String)> = [
            ("Event", "?"),
            ("Site", ""),
            ("Round", "-"),
            ("White", "??"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let env = Envelope::from_game(&game, &tags, 0, "x".into()).unwrap();
        assert_eq!(env.lines()[0], "Adjournment envelope");
        assert_eq!(env.white, "?");
    }

    #[test]
    fn ordinals() {
        let cases = [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (10, "10th"),
            (11, "11th"),
            (12, "12th"),
            (13, "13th"),
            (21, "21st"),
            (22, "22nd"),
            (23, "23rd"),
            (41, "41st"),
            (100, "100th"),
            (101, "101st"),
            (111, "111th"),
            (112, "112th"),
            (213, "213th"),
        ];
        for (n, want) in cases {
            assert_eq!(ordinal(n), want);
        }
    }

    #[test]
    fn braille_fits_the_page() {
        let mut game = white_seals();
        game.apply(Input::OfferDraw { by: Color::Black }, 3_730_000)
            .unwrap();
        game.apply(
            Input::SetResumption {
                text: "Tuesday 1 December 2026, 10:00, Kongresshalle, Saal Bellevue".into(),
            },
            3_800_000,
        )
        .unwrap();
        let env = envelope(&game, 3_800_000);
        for profile in Profile::names().unwrap() {
            for (cells, page_lines) in [(40, 25), (32, 10), (16, 2), (16, 5), (20, 3)] {
                let opts = opts(&profile, cells, page_lines);
                let doc = env.braille(&opts);
                assert!(!doc.pages.is_empty());
                for (p, page) in doc.pages.iter().enumerate() {
                    assert!(page.len() <= page_lines, "{profile} {cells}x{page_lines}");
                    assert!(page.len() >= 2, "a page holds more than its head");
                    for line in page {
                        assert!(line.len() <= cells, "{profile} {cells}: {}", to_brf(line));
                        assert!(!line.last().is_some_and(|c| c.is_blank()));
                    }
                    // The running head ends in the page number.
                    let head = to_brf(&page[0]);
                    assert!(head.ends_with(&to_brf(&page_number(p + 1))), "{head}");
                }
                let brf = doc.to_brf();
                assert!(!brf.is_empty() && brf.is_ascii());
            }
        }
        assert_secret_kept(&env);
        // UEB: the seven items in order, each starting a line at the margin (`#A4` is "1.").
        let doc = env.braille(&opts("ukaaf", 40, 25));
        let starts: Vec<String> = doc
            .pages
            .iter()
            .flat_map(|p| p.iter().skip(1))
            .map(|l| to_brf(l))
            .filter(|l| l.starts_with('#'))
            .collect();
        let numbers: Vec<&str> = starts.iter().map(|l| &l[..3]).collect();
        assert_eq!(numbers, ["#A4", "#B4", "#C4", "#D4", "#E4", "#F4", "#G4"]);
        // The FEN is for print; Braille has the position in words.
        assert!(!doc.to_brf().contains(",,FEN"));
        assert!(doc.to_brf().contains(",KNIGHTS C#C G#A"));
    }

    #[test]
    fn braille_keeps_a_fact_on_one_page() {
        let env = envelope(&white_seals(), 0);
        // Every page size from the smallest: many of them put a page break inside the item.
        let sizes = (MIN_CELLS..=40).flat_map(|c| (4..=25).map(move |l| (c, l)));
        for (cells, page_lines) in sizes {
            let doc = env.braille(&opts("ukaaf", cells, page_lines));
            // Every body line with its page index.
            let lines: Vec<(usize, String)> = doc
                .pages
                .iter()
                .enumerate()
                .flat_map(|(p, page)| page.iter().skip(1).map(move |l| (p, to_brf(l))))
                .collect();
            // The time item: its first line at the margin, its runovers indented.
            let start = lines
                .iter()
                .position(|(_, l)| l.starts_with("#C4"))
                .unwrap();
            let end = lines
                .iter()
                .position(|(_, l)| l.starts_with("#D4"))
                .unwrap();
            assert!(end - start > 1, "{cells}: the time item runs over");
            if end - start < page_lines {
                let page = lines[start].0;
                assert!(
                    lines[start..end].iter().all(|(p, _)| *p == page),
                    "{cells}x{page_lines}: {lines:#?}"
                );
            }
        }
    }

    #[test]
    fn braille_on_a_page_too_small_for_a_head_still_fits() {
        let env = envelope(&white_seals(), 0);
        let mut opts = opts("ukaaf", 16, 2);
        opts.page = PageSize { cells: 6, lines: 1 };
        let doc = env.braille(&opts);
        for page in &doc.pages {
            assert_eq!(page.len(), 1);
            assert!(page.iter().all(|l| l.len() <= 6 && !l.is_empty()));
        }
    }
}
