//! The Braille score as pages: a running head with the page number on every page, a header
//! (event, site, date, round, players and their colours) closed by a separation line, then the
//! moves, the draw offers and the result. BRF and Unicode Braille are two spellings of the same
//! [`Document`].
//!
//! Layout rules, all of them tested:
//! * a line holds at most `cells` cells and a page at most `lines` lines (the running head
//!   included); BRF lines end in CR LF, every page ends in a form feed;
//! * no line ends in a blank, and nothing but blanks separates the words;
//! * a move is never split across lines, and a move number never ends a line: `12 SF3` stays
//!   together, and Black's move at the start of a line is written `12 ⠤SF6` (the number again,
//!   then dots 36), as the reference has it for print `12...Nf6`.
//!
//! Pure: the header's free text is transcribed by the function given (the built-in
//! [`literary::transcribe`] by default; the command line may pass liblouis instead).

use shakmaty::Color;

use super::{
    cell::{self, Cell, lower_number},
    coding::{BLACK_MARKER, Marks, UnwritableMove, write_move},
    literary,
    profile::Profile,
};
use crate::{announce::voice::RecordWords, record::score::Score};

/// The fewest cells per line: room for the longest move with its number and marks on most
/// displays, and for the running head's page number.
pub const MIN_CELLS: usize = 16;
/// The fewest lines per page: the running head and one more.
pub const MIN_LINES: usize = 2;
/// The separation line under the header: dots 25 repeated, as transcribers draw it. A score
/// never has a line of these (a move number always has a move beside it).
pub const SEPARATOR: Cell = Cell::dots("25");
/// How many separator cells (fewer on a narrower line).
pub const SEPARATOR_LENGTH: usize = 12;
/// The literary number sign, before the page number in the running head.
pub const NUMBER_SIGN: Cell = Cell::dots("3456");

/// A Braille page: cells per line, lines per page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSize {
    pub cells: usize,
    pub lines: usize,
}

impl PageSize {
    /// 40 cells by 25 lines, the common embosser page.
    pub const DEFAULT: PageSize = PageSize {
        cells: 40,
        lines: 25,
    };

    /// A page size, if it can hold a score.
    pub fn new(cells: usize, lines: usize) -> Result<PageSize, LayoutError> {
        if cells < MIN_CELLS || lines < MIN_LINES {
            return Err(LayoutError::PageTooSmall { cells, lines });
        }
        Ok(PageSize { cells, lines })
    }
}

impl Default for PageSize {
    fn default() -> PageSize {
        PageSize::DEFAULT
    }
}

/// How to write a Braille score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrailleOptions {
    pub profile: Profile,
    pub marks: Marks,
    pub page: PageSize,
}

impl BrailleOptions {
    /// `profile` with the default marks on the default page.
    pub fn new(profile: Profile) -> BrailleOptions {
        BrailleOptions {
            profile,
            marks: Marks::default(),
            page: PageSize::DEFAULT,
        }
    }

    /// These options with the header's words in a voice pack's language (its `[record]`), so
    /// that the score is headed in the language its player hears; `None` keeps the profile's.
    pub fn headed_in(&self, words: Option<&RecordWords>) -> BrailleOptions {
        let mut opts = self.clone();
        if let Some(words) = words {
            opts.profile.labels = words.into();
        }
        opts
    }
}

/// Why a score could not be laid out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error(
        "a Braille page of {cells} cells by {lines} lines is too small; use at least \
         {MIN_CELLS} cells and {MIN_LINES} lines"
    )]
    PageTooSmall { cells: usize, lines: usize },
    #[error(
        "move {label} takes {needed} cells, more than the {cells} of a line; use more cells per \
         line"
    )]
    MoveTooLong {
        label: String,
        needed: usize,
        cells: usize,
    },
    #[error("ply {ply} ({label}): {source}")]
    Unwritable {
        ply: usize,
        label: String,
        #[source]
        source: UnwritableMove,
    },
}

/// What the layout places on lines: a move (with its number when it needs one), or the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The move's ply (1 = the record's first move); `None` for the result.
    pub ply: Option<usize>,
    /// `12.` or `12...`, or the result, for messages.
    pub label: String,
    /// The cells when the unit follows another on its line.
    pub inline: Vec<Cell>,
    /// The cells when the unit starts a line (Black's move gets its number and dots 36).
    pub line_start: Vec<Cell>,
}

/// The moves and the result of `score` as units, in order.
pub fn score_units(score: &Score, opts: &BrailleOptions) -> Result<Vec<Unit>, LayoutError> {
    let mut units = Vec::with_capacity(score.moves.len() + 1);
    for p in score.plies() {
        let label = move_label(p.number, p.side);
        let cells = write_move(
            &opts.profile,
            opts.marks,
            &p.before,
            p.entry.mv,
            p.entry.draw_offer,
        )
        .map_err(|source| LayoutError::Unwritable {
            ply: p.ply,
            label: label.clone(),
            source,
        })?;
        let mut numbered = lower_number(p.number);
        numbered.push(Cell::BLANK);
        let unit = match p.side {
            Color::White => {
                numbered.extend(&cells);
                Unit {
                    ply: Some(p.ply),
                    label,
                    inline: numbered.clone(),
                    line_start: numbered,
                }
            }
            Color::Black => {
                numbered.push(BLACK_MARKER);
                numbered.extend(&cells);
                Unit {
                    ply: Some(p.ply),
                    label,
                    inline: cells,
                    line_start: numbered,
                }
            }
        };
        units.push(unit);
    }
    if let Some(result) = opts.profile.result(&score.result) {
        units.push(Unit {
            ply: None,
            label: score.result.clone(),
            inline: result.to_vec(),
            line_start: result.to_vec(),
        });
    }
    Ok(units)
}

/// `12.` or `12...`, for messages.
pub fn move_label(number: u32, side: Color) -> String {
    match side {
        Color::White => format!("{number}."),
        Color::Black => format!("{number}..."),
    }
}

/// The score lines (no header) of `score` on lines of `cells` cells.
pub fn score_lines(score: &Score, opts: &BrailleOptions) -> Result<Vec<Vec<Cell>>, LayoutError> {
    let units = score_units(score, opts)?;
    let width = opts.page.cells;
    let mut lines: Vec<Vec<Cell>> = Vec::new();
    let mut line: Vec<Cell> = Vec::new();
    for unit in units {
        if !line.is_empty() && line.len() + 1 + unit.inline.len() <= width {
            line.push(Cell::BLANK);
            line.extend(&unit.inline);
            continue;
        }
        if unit.line_start.len() > width {
            return Err(LayoutError::MoveTooLong {
                label: unit.label,
                needed: unit.line_start.len(),
                cells: width,
            });
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        line.extend(&unit.line_start);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    Ok(lines)
}

/// A laid-out Braille score: pages of lines of cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub pages: Vec<Vec<Vec<Cell>>>,
    /// How many lines at the top of every page are the running head (0 when there is none):
    /// the page number's line and the lines that carry the rest of the players' names.
    pub head_lines: usize,
}

/// BRF line end.
const CRLF: &str = "\r\n";
/// Page end in BRF and in Unicode Braille text.
const FORM_FEED: char = '\u{c}';

impl Document {
    /// BRF: North American Braille ASCII, CR LF after every line, a form feed after every page.
    pub fn to_brf(&self) -> String {
        self.spell(cell::to_brf, CRLF)
    }

    /// Unicode Braille text with the same lines and pages (LF line ends, a form feed after every
    /// page), for refreshable displays and screen readers.
    pub fn to_unicode(&self) -> String {
        self.spell(cell::to_unicode, "\n")
    }

    fn spell(&self, write: fn(&[Cell]) -> String, line_end: &str) -> String {
        let mut out = String::new();
        for page in &self.pages {
            for line in page {
                out.push_str(&write(line));
                out.push_str(line_end);
            }
            out.push(FORM_FEED);
        }
        out
    }
}

/// `score` laid out with the built-in transcription of the header text.
pub fn render(score: &Score, opts: &BrailleOptions) -> Result<Document, LayoutError> {
    let style = opts.profile.text;
    render_with(score, opts, &|text| literary::transcribe(text, style))
}

/// `score` laid out, with the header text transcribed by `transcribe`.
pub fn render_with(
    score: &Score,
    opts: &BrailleOptions,
    transcribe: &dyn Fn(&str) -> Vec<Cell>,
) -> Result<Document, LayoutError> {
    // Also checks a page size built without `PageSize::new`.
    let page = PageSize::new(opts.page.cells, opts.page.lines)?;
    let width = page.cells;
    let labels = &opts.profile.labels;

    let mut body: Vec<Vec<Cell>> = Vec::new();
    let date = score.known_tag("Date").map(|d| {
        // `1979.??.??` is written as what is known of it: `1979`.
        d.split('?')
            .next()
            .unwrap_or(d)
            .trim_end_matches('.')
            .to_owned()
    });
    let fields = [
        (&labels.event, score.known_tag("Event").map(str::to_owned)),
        (&labels.site, score.known_tag("Site").map(str::to_owned)),
        (&labels.date, date),
        (&labels.round, score.known_tag("Round").map(str::to_owned)),
        (&labels.white, score.known_tag("White").map(str::to_owned)),
        (&labels.black, score.known_tag("Black").map(str::to_owned)),
    ];
    for (label, value) in fields {
        if let Some(value) = value {
            body.extend(wrap(&transcribe(&format!("{label}: {value}")), width));
        }
    }
    body.push(vec![SEPARATOR; SEPARATOR_LENGTH.min(width)]);
    body.extend(score_lines(score, opts)?);

    // The players as two parts, so that a head too long for one line breaks between them and
    // each name starts a line of its own.
    let title: Vec<Vec<Cell>> = match (score.known_tag("White"), score.known_tag("Black")) {
        (None, None) => Vec::new(),
        (white, black) => vec![
            transcribe(&format!("{} -", white.unwrap_or("?"))),
            transcribe(black.unwrap_or("?")),
        ],
    };
    // The head's first line leaves room for the page number; a number with more digits could
    // push a word onto another line, so the head is laid out for the widest number the
    // document needs (found in a pass or two: the head's height decides the page count).
    let max_head = max_head_lines(page.lines);
    let mut digits = 1;
    let (head, pages) = loop {
        let head = head_lines(&title, width, digits + 1, max_head);
        let pages = body.len().div_ceil(page.lines - head.len()).max(1);
        let needed = pages.to_string().len();
        if needed <= digits {
            break (head, pages);
        }
        digits = needed;
    };
    let pages = (0..pages)
        .map(|i| {
            let per_page = page.lines - head.len();
            let chunk = body.iter().skip(i * per_page).take(per_page);
            let mut lines = vec![running_head(
                head.first().map_or(&[][..], Vec::as_slice),
                i + 1,
                width,
            )];
            lines.extend(head.iter().skip(1).cloned());
            lines.extend(chunk.cloned());
            lines
        })
        .collect();
    Ok(Document {
        pages,
        head_lines: head.len(),
    })
}

/// The most lines the running head may take on a page of `lines` lines: half the page, so that
/// a small display page still shows the score. Names that need more take one line, cut at a
/// word; the header on the first page keeps every word.
fn max_head_lines(lines: usize) -> usize {
    (lines / 2).max(1)
}

/// The running head's text as lines: one line when the players fit beside the page number
/// (`number_cells` wide, two blanks apart), else each player's name from the start of a line
/// and wrapped at words, every word of both; one line to be cut if that takes more than `max`
/// lines.
fn head_lines(
    title: &[Vec<Cell>],
    width: usize,
    number_cells: usize,
    max: usize,
) -> Vec<Vec<Cell>> {
    let room = width.saturating_sub(number_cells + 2);
    let joined = title.join(&Cell::BLANK);
    if joined.len() <= room {
        return vec![joined];
    }
    let mut lines: Vec<Vec<Cell>> = Vec::new();
    for (i, part) in title.iter().enumerate() {
        let mut words: Vec<Vec<Cell>> = part
            .split(|c| c.is_blank())
            .filter(|w| !w.is_empty())
            .map(<[Cell]>::to_vec)
            .collect();
        // The dash after White's name stays with its last word: a dash alone on a line would
        // read as a name of its own.
        if i == 0 && title.len() > 1 && words.len() >= 2 {
            let dash = words.pop().unwrap_or_default();
            if let Some(last) = words.last_mut() {
                last.push(Cell::BLANK);
                last.extend(dash);
            }
        }
        let first = if lines.is_empty() { room } else { width };
        lines.extend(wrap_words(&words, first, width));
    }
    if lines.len() > max {
        // The page is too small for every word: one line, cut by `running_head` at a word,
        // leaves the most room for the score.
        return vec![joined];
    }
    lines
}

/// The page number in literary Braille: the number sign and the digits as letters a-j.
pub fn page_number(n: usize) -> Vec<Cell> {
    let mut out = vec![NUMBER_SIGN];
    out.extend(n.to_string().chars().filter_map(|d| {
        let letter = if d == '0' {
            'j'
        } else {
            char::from(b'a' + (d as u8 - b'1'))
        };
        cell::letter(letter)
    }));
    out
}

/// The page's first line: the title (cut at a word if it does not fit) and the page number at
/// the right margin.
fn running_head(title: &[Cell], page: usize, width: usize) -> Vec<Cell> {
    let number = page_number(page);
    // At least two blanks between the title and the number, so the number stands apart.
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
    head.resize(width - number.len(), Cell::BLANK);
    head.extend(number);
    head
}

/// Free text wrapped at blanks into lines of at most `width` cells (a word longer than a line is
/// cut: this is a name, not a move).
pub(crate) fn wrap(text: &[Cell], width: usize) -> Vec<Vec<Cell>> {
    let words: Vec<&[Cell]> = text
        .split(|c| c.is_blank())
        .filter(|w| !w.is_empty())
        .collect();
    wrap_words(&words, width, width)
}

/// `words` (each kept on one line if it fits one, blanks inside it included) on lines of at
/// most `first` cells for the first and `width` for the others.
fn wrap_words<W: AsRef<[Cell]>>(words: &[W], first: usize, width: usize) -> Vec<Vec<Cell>> {
    let mut lines = Vec::new();
    let mut line: Vec<Cell> = Vec::new();
    let limit = |lines: &Vec<Vec<Cell>>| if lines.is_empty() { first } else { width };
    for word in words {
        let mut rest = word.as_ref();
        while !rest.is_empty() {
            // A word fits on the current line, else starts the next one; only a word longer
            // than a whole line is cut.
            if !line.is_empty() && line.len() + 1 + rest.len() > limit(&lines) {
                lines.push(std::mem::take(&mut line));
            }
            let room = limit(&lines).saturating_sub(line.len() + usize::from(!line.is_empty()));
            let piece = &rest[..rest.len().min(room.max(1))];
            rest = &rest[piece.len()..];
            if !line.is_empty() {
                line.push(Cell::BLANK);
            }
            line.extend(piece);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::braille::cell::{parse_cells, to_brf};
    use crate::record::score::ScoreMove;
    use shakmaty::{Chess, Position, san::San};

    fn score(sans: &str) -> Score {
        let mut score = Score::new(Chess::default());
        let mut pos = Chess::default();
        for san in sans.split_whitespace() {
            let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
            score.moves.push(ScoreMove {
                mv,
                clock_ms: None,
                draw_offer: false,
            });
        }
        score
    }

    fn opts(cells: usize, lines: usize) -> BrailleOptions {
        let mut o = BrailleOptions::new(Profile::named("ukaaf").unwrap());
        o.page = PageSize::new(cells, lines).unwrap();
        o
    }

    fn brf_lines(score: &Score, o: &BrailleOptions) -> Vec<String> {
        score_lines(score, o)
            .unwrap()
            .iter()
            .map(|l| to_brf(l))
            .collect()
    }

    #[test]
    fn the_worked_example() {
        let s = score("e4 e5 Nf3 Nc6 Bb5");
        let o = opts(40, 25);
        assert_eq!(brf_lines(&s, &o), ["1 E4 E5 2 SF3 SC6 3 LB5"]);
        let unicode: Vec<String> = score_lines(&s, &o)
            .unwrap()
            .iter()
            .map(|l| cell::to_unicode(l))
            .collect();
        assert_eq!(unicode, ["⠂ ⠑⠲ ⠑⠢ ⠆ ⠎⠋⠒ ⠎⠉⠖ ⠒ ⠇⠃⠢"]);
    }

    #[test]
    fn black_at_the_start_of_a_line_gets_its_number_and_dots_36() {
        let s = score("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6");
        // 16 cells: "1 E4 E5 2 SF3" is 13; SC6 would make 17.
        assert_eq!(
            brf_lines(&s, &opts(16, 25)),
            ["1 E4 E5 2 SF3", "2 -SC6 3 LB5 A6", "4 LA4 SF6"]
        );
        let mut s = s;
        s.result = "1/2-1/2".into();
        assert_eq!(
            brf_lines(&s, &opts(16, 25)),
            ["1 E4 E5 2 SF3", "2 -SC6 3 LB5 A6", "4 LA4 SF6", "1/2-1/2"]
        );
    }

    #[test]
    fn pages_have_a_running_head_header_and_separator() {
        let mut s = score("e4 e5 Nf3 Nc6 Bb5");
        s.tags = vec![
            ("Event".into(), "Open".into()),
            ("Date".into(), "2024.05.01".into()),
            ("Round".into(), "?".into()),
            ("White".into(), "Weiss, Anna".into()),
            ("Black".into(), "Schwarz, Bernd".into()),
        ];
        let doc = render(&s, &opts(40, 25)).unwrap();
        assert_eq!(
            doc.to_brf(),
            ",WEISS1 ,ANNA - ,SCHWARZ1 ,BERND      #A\r\n\
             ,EVENT3 ,OPEN\r\n\
             ,DATE3 #BJBD4JE4JA\r\n\
             ,WHITE3 ,WEISS1 ,ANNA\r\n\
             ,BLACK3 ,SCHWARZ1 ,BERND\r\n\
             333333333333\r\n\
             1 E4 E5 2 SF3 SC6 3 LB5\r\n\x0c"
        );
        assert_eq!(
            doc.to_unicode().lines().nth(6),
            Some("⠂ ⠑⠲ ⠑⠢ ⠆ ⠎⠋⠒ ⠎⠉⠖ ⠒ ⠇⠃⠢")
        );
        // Three lines a page: the head and two more; six body lines make three pages.
        let doc = render(&s, &opts(40, 3)).unwrap();
        assert_eq!(doc.pages.len(), 3);
        assert!(doc.pages.iter().all(|p| p.len() == 3));
        assert_eq!(
            to_brf(&doc.pages[2][0]),
            ",WEISS1 ,ANNA - ,SCHWARZ1 ,BERND      #C"
        );
        assert_eq!(to_brf(&doc.pages[2][2]), "1 E4 E5 2 SF3 SC6 3 LB5");
    }

    #[test]
    fn the_header_is_in_the_voice_packs_language() {
        // Issue 26, point 9: English headings under a German voice.
        let mut s = score("e4 e5");
        s.tags = vec![
            ("Event".into(), "Open".into()),
            ("Round".into(), "2".into()),
            ("White".into(), "Anna".into()),
            ("Black".into(), "Bernd".into()),
        ];
        let de = crate::announce::voice::VoicePack::builtin("de-fide").unwrap();
        let es = crate::announce::voice::VoicePack::builtin("es-fide").unwrap();
        let base = opts(40, 25);
        let brf = |o: &BrailleOptions| render(&s, o).unwrap().to_brf();
        let german = brf(&base.headed_in(de.record_words()));
        for line in [
            ",TURNIER3 ,OPEN",
            ",RUNDE3 #B",
            ",WEISS3 ,ANNA",
            ",SCHWARZ3 ,BERND",
        ] {
            assert!(german.contains(line), "{line} not in\n{german}");
        }
        assert!(!german.contains(",EVENT3") && !german.contains(",WHITE3"));
        let spanish = brf(&base.headed_in(es.record_words()));
        assert!(spanish.contains(",TORNEO3 ,OPEN") && spanish.contains(",BLANCAS3 ,ANNA"));
        // The moves are the profile's, whatever the language.
        assert!(german.contains("1 E4 E5") && spanish.contains("1 E4 E5"));
        // No pack words: the profile's own.
        assert_eq!(brf(&base.headed_in(None)), brf(&base));
        assert!(brf(&base).contains(",EVENT3 ,OPEN"));
    }

    fn named(white: &str, black: &str) -> Score {
        let mut s = score("e4 e5 Nf3 Nc6 Bb5");
        s.tags = vec![
            ("White".into(), white.into()),
            ("Black".into(), black.into()),
        ];
        s
    }

    fn page_brf(doc: &Document, page: usize) -> Vec<String> {
        doc.pages[page].iter().map(|l| to_brf(l)).collect()
    }

    #[test]
    fn f5_the_running_head_keeps_every_word_of_both_players() {
        // The demo's players: too long together for one line, so each name gets a line of
        // its own and the page number stays on the first.
        let s = named("Blind player (simulated)", "Sighted player (simulated)");
        let doc = render(&s, &opts(40, 25)).unwrap();
        assert_eq!(doc.head_lines, 2);
        assert_eq!(
            page_brf(&doc, 0)[..2],
            [
                format!("{:<38}#A", ",BLIND PLAYER \"<SIMULATED\"> -"),
                ",SIGHTED PLAYER \"<SIMULATED\">".to_owned(),
            ]
        );
        // "Surname, First names" with two words or more on each side, over several pages:
        // the same head on every page, numbered on.
        let s = named("van der Berg, Anna Maria", "Schwarz-Weiss, Bernd Otto");
        let doc = render(&s, &opts(40, 5)).unwrap();
        assert!(doc.pages.len() >= 2, "{} pages", doc.pages.len());
        assert_eq!(doc.head_lines, 2);
        for (p, _) in doc.pages.iter().enumerate() {
            let lines = page_brf(&doc, p);
            let number = to_brf(&page_number(p + 1));
            assert_eq!(
                lines[..2],
                [
                    format!(
                        "{:<w$}{number}",
                        "VAN DER ,BERG1 ,ANNA ,MARIA -",
                        w = 40 - number.len()
                    ),
                    ",SCHWARZ-,WEISS1 ,BERND ,OTTO".to_owned(),
                ],
                "page {}",
                p + 1
            );
        }
        // What fits on one line stays on one line.
        let s = named("Weiss, Anna", "Schwarz, Bernd");
        let doc = render(&s, &opts(40, 25)).unwrap();
        assert_eq!(doc.head_lines, 1);
    }

    #[test]
    fn a_head_on_a_tiny_page_takes_at_most_half_of_it() {
        // 16 cells by 6 lines: the names take the 3 lines the head may have; the dash stays
        // with the name before it.
        let s = named("Anna Weiss", "Bernd Schwarz");
        let doc = render(&s, &opts(16, 6)).unwrap();
        assert_eq!(doc.head_lines, 3);
        assert_eq!(
            page_brf(&doc, 0)[..3],
            [",ANNA         #A", ",WEISS -", ",BERND ,SCHWARZ"]
        );
        // 4 lines: no room for every word; one line, cut at a word, as before. The header on
        // the first page still has every word.
        let s = named("Blind player (simulated)", "Sighted player (simulated)");
        let doc = render(&s, &opts(16, 4)).unwrap();
        assert_eq!(doc.head_lines, 1);
        assert_eq!(page_brf(&doc, 0)[0], ",BLIND        #A");
        let brf = doc.to_brf();
        assert!(brf.contains(",WHITE3 ,BLIND\r\nPLAYER\r\n"), "{brf}");
    }

    #[test]
    fn the_head_is_laid_out_for_the_widest_page_number() {
        // 16 cells of names fit a 20-cell line beside "#A" (20 - 2 - 2), not beside "#AJ":
        // the head is the same on page 1 and page 10.
        let long: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(30);
        let mut s = score(&long.join(" "));
        s.tags = named("Abcdefgh", "Ijk").tags;
        let doc = render(&s, &opts(20, 4)).unwrap();
        assert!(doc.pages.len() >= 10, "{} pages", doc.pages.len());
        assert_eq!(doc.head_lines, 2);
        assert_eq!(page_brf(&doc, 0)[..2], [",ABCDEFGH -       #A", ",IJK"]);
        assert_eq!(page_brf(&doc, 9)[..2], [",ABCDEFGH -      #AJ", ",IJK"]);
        // Fewer pages: one line.
        let mut s = score("e4");
        s.tags = named("Abcdefgh", "Ijk").tags;
        let doc = render(&s, &opts(20, 4)).unwrap();
        assert_eq!(page_brf(&doc, 0)[0], ",ABCDEFGH - ,IJK  #A");
    }

    #[test]
    fn the_running_head_is_cut_at_a_word_and_keeps_the_number() {
        let title = parse_cells("AAAA BBBB CCCC").unwrap();
        assert_eq!(to_brf(&running_head(&title, 12, 16)), "AAAA BBBB    #AB");
        assert_eq!(to_brf(&running_head(&[], 3, 16)), "              #C");
        let long = parse_cells("ABCDEFGHIJKLMNOPQRSTUV").unwrap();
        assert_eq!(to_brf(&running_head(&long, 1, 16)), "ABCDEFGHIJKL  #A");
    }

    #[test]
    fn wrapping_free_text() {
        let text = parse_cells("AB CDE FGHIJKLMNOPQRSTU V").unwrap();
        let lines: Vec<String> = wrap(&text, 8).iter().map(|l| to_brf(l)).collect();
        assert_eq!(lines, ["AB CDE", "FGHIJKLM", "NOPQRSTU", "V"]);
    }

    #[test]
    fn too_small_pages_and_too_long_moves_are_errors() {
        assert_eq!(
            PageSize::new(12, 25).unwrap_err().to_string(),
            "a Braille page of 12 cells by 25 lines is too small; use at least 16 cells and 2 \
             lines"
        );
        let mut s = score("e4");
        s.moves[0].draw_offer = true;
        let mut o = opts(16, 25);
        // A page size built without `PageSize::new`, as a caller might.
        o.page.cells = 9;
        assert!(matches!(
            render(&s, &o),
            Err(LayoutError::PageTooSmall { .. })
        ));
        assert_eq!(
            score_lines(&s, &o).unwrap_err().to_string(),
            "move 1. takes 10 cells, more than the 9 of a line; use more cells per line"
        );
    }
}
