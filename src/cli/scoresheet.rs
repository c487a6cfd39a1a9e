//! `tactus scoresheet`: convert a game between PGN, Braille (BRF and Unicode) and the printable
//! text scoresheet, and turn a Braille score typed on a note-taker into PGN.
//!
//! The command's edge: it reads the input file, calls the pure renderers and readers, and writes
//! the output to standard output or, atomically, to a file. Errors name the file and then the
//! game and ply (PGN) or the page and line (Braille).

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context, Result, anyhow, bail};
use shakmaty::{CastlingMode, Chess, fen::Fen};

use crate::config::Config;
use crate::store::{atomic, louis};
use tactus_core::announce::voice::RecordWords;
use tactus_core::record::{
    braille::{self, BrailleFormat, BrailleOptions, Cell, Marks, PageSize, Profile},
    format::{self, Format},
    score::Score,
};
use tactus_core::rules::pgn;

/// `tactus scoresheet`.
#[derive(clap::Args, Debug)]
pub struct ScoresheetArgs {
    /// The game: a PGN file, or a Braille score (BRF, or Unicode Braille text).
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
    /// What to write.
    #[arg(long, value_enum)]
    pub format: OutputFormat,
    /// What FILE is (default: .pgn is PGN, .brf is BRF, a text with Braille characters is
    /// Unicode Braille).
    #[arg(long, value_enum)]
    pub from: Option<InputFormat>,
    /// The Braille chess notation: ukaaf (K Q R S L, default) or de (K D T L S); for writing
    /// and for reading Braille.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Cells per Braille line (default 40).
    #[arg(long, value_name = "N")]
    pub cells: Option<usize>,
    /// Lines per Braille page, the running head included (default 25).
    #[arg(long, value_name = "N")]
    pub lines: Option<usize>,
    /// Optional marks in the Braille score, comma-separated: capture, check, mate, en-passant,
    /// all, none (default: en-passant).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub marks: Option<Vec<String>>,
    /// Which game of a PGN file (1 = the first; default 1).
    #[arg(long, value_name = "N")]
    pub game: Option<usize>,
    /// The position a Braille score starts from (default: the initial position).
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,
    /// A tag for the output, e.g. --tag "White=Weiss, Anna" (repeatable; overrides the file's).
    #[arg(long = "tag", value_name = "NAME=VALUE")]
    pub tags: Vec<String>,
    /// Take missing event tags, the Braille profile and page, and the voice pack (the language
    /// of the Braille header's words) from this configuration file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The language of the Braille header's words ("Turnier", "Weiß"): a voice pack, de-fide,
    /// es-fide or en (default: the blind player's pack with --config, else the Braille
    /// profile's own words).
    #[arg(long, value_name = "PACK")]
    pub voice: Option<String>,
    /// Write the Braille header's names with liblouis (lou_translate) when it is installed.
    #[arg(long)]
    pub liblouis: bool,
    /// Write to this file (atomically) instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// `--format`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// BRF: North American Braille ASCII pages, for embossers and note-takers.
    Brf,
    /// Unicode Braille text, for refreshable displays and screen readers.
    Braille,
    /// PGN with clock comments, draw offers and the termination.
    Pgn,
    /// The printable two-column scoresheet.
    Text,
}

impl From<OutputFormat> for Format {
    fn from(f: OutputFormat) -> Format {
        match f {
            OutputFormat::Brf => Format::Brf,
            OutputFormat::Braille => Format::Braille,
            OutputFormat::Pgn => Format::Pgn,
            OutputFormat::Text => Format::Text,
        }
    }
}

/// `--from`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    Pgn,
    Brf,
    Braille,
}

/// Runs `tactus scoresheet`.
pub fn run(args: ScoresheetArgs) -> Result<ExitCode> {
    let name = args.input.display().to_string();
    let bytes = std::fs::read(&args.input).with_context(|| format!("cannot read {name}"))?;
    let config = args.config.as_deref().map(Config::load).transpose()?;
    let options = braille_options(&args, config.as_ref())?;
    let options = options.headed_in(header_words(&args, config.as_ref())?.as_ref());

    let mut score = match input_format(&args.input, &bytes, args.from)? {
        InputFormat::Pgn => read_pgn_game(&bytes, &name, args.game)?,
        InputFormat::Brf => read_braille(&bytes, &name, BrailleFormat::Brf, &args, &options)?,
        InputFormat::Braille => {
            read_braille(&bytes, &name, BrailleFormat::Unicode, &args, &options)?
        }
    };
    if let Some(config) = &config {
        for (tag, value) in config.tags() {
            if score.known_tag(&tag).is_none() {
                set_tag(&mut score, &tag, &value);
            }
        }
    }
    for spec in &args.tags {
        let (tag, value) = spec
            .split_once('=')
            .filter(|(tag, _)| !tag.trim().is_empty())
            .ok_or_else(|| {
                anyhow!("--tag '{spec}': write it as NAME=VALUE, e.g. \"White=Weiss, Anna\"")
            })?;
        set_tag(&mut score, tag.trim(), value.trim());
    }

    let format = Format::from(args.format);
    let text = if args.liblouis && matches!(format, Format::Brf | Format::Braille) {
        let table = options.profile.liblouis_table.clone();
        let style = options.profile.text;
        let warned = std::cell::Cell::new(false);
        let transcribe = |t: &str| -> Vec<Cell> {
            louis::translate(&table, t).unwrap_or_else(|e| {
                if !warned.replace(true) {
                    eprintln!("tactus: {e}");
                }
                braille::literary::transcribe(t, style)
            })
        };
        format::render_with(&score, format, &options, &transcribe)
    } else {
        format::render(&score, format, &options)
    }
    .with_context(|| format!("cannot write {name} as {format}"))?;

    match &args.output {
        Some(out) => atomic::write_atomically(out, text.as_bytes())?,
        None => super::print(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The Braille options from the flags, else the configuration's `[record]`, else the defaults.
fn braille_options(args: &ScoresheetArgs, config: Option<&Config>) -> Result<BrailleOptions> {
    let record = config.map(|c| &c.record);
    let profile_name = args
        .profile
        .clone()
        .or_else(|| config.map(Config::braille_profile))
        .unwrap_or_else(|| braille::DEFAULT_PROFILE.to_owned());
    let profile = Profile::named(&profile_name).context("--profile")?;
    let cells = args
        .cells
        .or(record.map(|r| r.page_cells))
        .unwrap_or(PageSize::DEFAULT.cells);
    let lines = args
        .lines
        .or(record.map(|r| r.page_lines))
        .unwrap_or(PageSize::DEFAULT.lines);
    let page = PageSize::new(cells, lines).context("--cells and --lines")?;
    let marks = match &args.marks {
        Some(names) => Marks::from_names(names).context("--marks")?,
        None => Marks::default(),
    };
    Ok(BrailleOptions {
        profile,
        marks,
        page,
    })
}

/// The Braille header's words: `--voice`'s pack, else the configuration's blind player's pack
/// (White's at a table of two), else none (the Braille profile's own).
fn header_words(args: &ScoresheetArgs, config: Option<&Config>) -> Result<Option<RecordWords>> {
    let (spec, what) = match (&args.voice, config) {
        (Some(spec), _) => (spec.clone(), "--voice".to_string()),
        (None, Some(config)) => {
            let blind = config.blind_seats();
            let seat = if blind.white {
                shakmaty::Color::White
            } else {
                shakmaty::Color::Black
            };
            (
                config.voice.packs(blind)[seat].clone(),
                "the configuration's voice pack".to_string(),
            )
        }
        (None, None) => return Ok(None),
    };
    let pack = crate::store::voices::load_words(&crate::store::voices::default_dir(), &spec)
        .with_context(|| what)?;
    Ok(pack.record_words().cloned())
}

/// `--from`, or what the file name and content say.
fn input_format(path: &Path, bytes: &[u8], from: Option<InputFormat>) -> Result<InputFormat> {
    if let Some(from) = from {
        return Ok(from);
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("pgn") => return Ok(InputFormat::Pgn),
        Some("brf") => return Ok(InputFormat::Brf),
        _ => {}
    }
    let is_braille = |c: char| ('\u{2801}'..='\u{28ff}').contains(&c);
    match std::str::from_utf8(bytes) {
        Ok(text) if text.chars().any(is_braille) => Ok(InputFormat::Braille),
        Ok(text)
            if text
                .trim_start_matches('\u{feff}')
                .trim_start()
                .starts_with('[') =>
        {
            Ok(InputFormat::Pgn)
        }
        _ => bail!(
            "cannot tell what {} is; say --from pgn, --from brf or --from braille",
            path.display()
        ),
    }
}

/// Game `n` (1-based, default 1) of a PGN file.
fn read_pgn_game(bytes: &[u8], name: &str, n: Option<usize>) -> Result<Score> {
    let games = pgn::read_pgn_each(bytes);
    let count = games.len();
    let wanted = n.unwrap_or(1);
    if n.is_none() && count > 1 {
        eprintln!("tactus: {name} holds {count} games; writing game 1 (choose with --game N)");
    }
    // Text that is not PGN at all ("hello world") is no game, not a game with an error.
    if let Some(Err(first)) = games.first()
        && games
            .iter()
            .all(|g| g.as_ref().is_err_and(|e| e.is_not_a_game()))
    {
        bail!("{name} holds no PGN game: {}", first.kind);
    }
    let noun = if count == 1 { "game" } else { "games" };
    let game = games
        .into_iter()
        .nth(wanted.wrapping_sub(1))
        .ok_or_else(|| anyhow!("{name} holds {count} {noun}; there is no game {wanted}"))?
        .map_err(|e| anyhow!("{name}: {e}"))?;
    Ok(Score::from_pgn(&game))
}

fn read_braille(
    bytes: &[u8],
    name: &str,
    format: BrailleFormat,
    args: &ScoresheetArgs,
    options: &BrailleOptions,
) -> Result<Score> {
    let start = match &args.fen {
        None => Chess::default(),
        Some(fen) => fen
            .parse::<Fen>()
            .with_context(|| format!("--fen '{fen}'"))?
            .into_position(CastlingMode::Standard)
            .map_err(|e| anyhow!("--fen '{fen}' is not a legal position: {e}"))?,
    };
    braille::read_score(bytes, format, &options.profile, start).map_err(|e| {
        anyhow!(
            "{name} (read as {format} in the '{}' profile): {e}",
            options.profile.name
        )
    })
}

/// Sets `tag` (replacing a value already there).
fn set_tag(score: &mut Score, tag: &str, value: &str) {
    match score.tags.iter_mut().find(|(t, _)| t == tag) {
        Some((_, v)) => *v = value.to_owned(),
        None => score.tags.push((tag.to_owned(), value.to_owned())),
    }
}
