//! The audio scoresheet: every move announcement of a game in one WAV file, with a cue list.
//!
//! This module is pure: [`assemble`] turns an [`Utterance`] into samples from a pack's clips with
//! short gaps between words and longer silences for pauses (the clip speaker uses the same
//! function, so the recording sounds exactly like the board), and [`CueEntry`] is one line of the
//! cue list. The file writer is `store::audio` in the shell (the `tactus` crate); what it writes
//! is decided here: the WAV [`header`] it writes over the old one after appending samples (so the
//! file is a valid recording after every append), and [`update`], which compares the cue list on
//! the disk with the game's scoresheet and says whether to append the new moves or, when the game
//! changed otherwise (a takeback, a correction), to write the whole recording anew. A game
//! written move by move thus costs its own size in writes, not its size times its length.
//!
//! The cue list is a sidecar text file next to the WAV (`game.wav` -> `game.cues.txt`), one line
//! per announcement, appended once the announcement's samples are in the WAV (so every line it
//! holds is in the recording; [`update`] relies on it), in Audacity's label-track format so that a
//! player can open both in Audacity (usable with a screen reader) and jump from move to move:
//!
//! ```text
//! 0.000<TAB>1.053<TAB>1. Bauer Eva vier
//! 1.554<TAB>2.705<TAB>1... Bauer Cesar fünf
//! ```
//!
//! Start and end in seconds with millisecond precision (so `offset_ms = start * 1000`; the start
//! rounded up so that it falls inside the announcement), then the label (the move number) and the
//! announcement text, separated by a space.
//!
//! What the scoresheet says is [`scoresheet`]: every move as announced, and before the first
//! move of every move number (White's, or Black's when the record starts with him) that number
//! in the pack's words, "Zug eins", so that a player who skips through the recording hears where
//! he is without counting.

use shakmaty::Color;

use crate::announce::{
    Announcement, MoveWords, ResultWords,
    numbers::{self, Form, NumberLanguage},
    voice::{PAUSE, Style, Utterance, VoicePack, Word},
};
use crate::record::score::Score;
use crate::rules::Millis;

/// The sample rate of every clip and of the scoresheet.
pub const SAMPLE_RATE: u32 = 22_050;

/// The silence between two announcements in the scoresheet, so that moves are heard apart.
pub const BETWEEN_ANNOUNCEMENTS_MS: Millis = 500;

/// The WAV format of clips and scoresheets: 22050 Hz, mono, 16-bit integer PCM.
pub fn spec() -> hound::WavSpec {
    hound::WavSpec {
        channels: 1,
        sample_rate: SAMPLE_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    }
}

/// The number of samples in `ms` milliseconds (rounded down).
pub fn ms_to_samples(ms: Millis) -> usize {
    (ms * u64::from(SAMPLE_RATE) / 1000) as usize
}

/// The time of sample `n` in milliseconds (rounded down).
pub fn samples_to_ms(n: u64) -> Millis {
    n * 1000 / u64::from(SAMPLE_RATE)
}

/// The silences between the clips of one utterance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spacing {
    /// Between two words.
    pub gap_ms: Millis,
    /// For a [`PAUSE`] (a comma in the text); it replaces the gap.
    pub pause_ms: Millis,
}

impl Spacing {
    /// Short enough to sound like one phrase, long enough that clips do not run into each other.
    pub const DEFAULT: Spacing = Spacing {
        gap_ms: 60,
        pause_ms: 250,
    };
}

impl Default for Spacing {
    fn default() -> Self {
        Spacing::DEFAULT
    }
}

/// The samples of `utterance`: its clips in order, [`Spacing::gap_ms`] of silence between two
/// clips, and [`Spacing::pause_ms`] instead of the gap where one or more [`PAUSE`]s stand between
/// them. Pauses at either end add nothing (silence before the first word only adds latency; after
/// the last it only delays "finished", which starts a clock). `load` gives the samples of a clip
/// stem (22050 Hz mono, any sample type); its first error is returned. Pure.
///
/// The clip speaker and the audio scoresheet both use this, so the recording sounds exactly like
/// the board.
pub fn assemble<T, S, E>(
    utterance: &Utterance,
    spacing: Spacing,
    mut load: impl FnMut(&str) -> Result<S, E>,
) -> Result<Vec<T>, E>
where
    T: Copy + Default,
    S: AsRef<[T]>,
{
    let mut samples = Vec::new();
    for piece in pieces(utterance, spacing) {
        match piece {
            Piece::Silence(n) => samples.resize(samples.len() + n, T::default()),
            Piece::Clip(stem) => samples.extend_from_slice(load(stem)?.as_ref()),
        }
    }
    Ok(samples)
}

/// The number of samples [`assemble`] makes of `utterance`, counted without making them: `len`
/// gives a clip's length. The audio scoresheet lays out a whole game with it (where each move
/// lies in the recording) to compare with the cue list on the disk, without assembling every
/// move again.
pub fn assembled_len<E>(
    utterance: &Utterance,
    spacing: Spacing,
    mut len: impl FnMut(&str) -> Result<usize, E>,
) -> Result<usize, E> {
    let mut total = 0;
    for piece in pieces(utterance, spacing) {
        total += match piece {
            Piece::Silence(n) => n,
            Piece::Clip(stem) => len(stem)?,
        };
    }
    Ok(total)
}

/// One piece of an assembled utterance.
enum Piece<'a> {
    Clip(&'a str),
    Silence(usize),
}

/// The pieces of `utterance` in order (see [`assemble`]): one place for the rule of gaps and
/// pauses, so that the length counted is the length made.
fn pieces(utterance: &Utterance, spacing: Spacing) -> Vec<Piece<'_>> {
    let gap = ms_to_samples(spacing.gap_ms);
    let pause = ms_to_samples(spacing.pause_ms);
    let mut out = Vec::new();
    let mut any_clip = false;
    let mut paused = false;
    for stem in &utterance.clips {
        if stem == PAUSE {
            paused = any_clip;
            continue;
        }
        if any_clip {
            out.push(Piece::Silence(if paused { pause } else { gap }));
        }
        out.push(Piece::Clip(stem));
        any_clip = true;
        paused = false;
    }
    out
}

/// The pack's word that goes before a move number ("Zug", "move", "jugada").
pub const MOVE_WORD: &str = "move";

/// One announcement of the audio scoresheet, before it is assembled: its cue label and what is
/// said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoresheetEntry {
    /// `12.` for White's move, `12...` for Black's.
    pub label: String,
    pub utterance: Utterance,
}

/// The audio scoresheet of `score` in `pack`'s words and `style` (F.5): one entry per move, in
/// order. The first move of every move number begins with the number, said as the pack says
/// it ([`move_number`]), and a pause. A draw offered with a move (9.1 b, the `(=)` of the
/// written scoresheet) is an entry of its own after it, and a finished game ends with its
/// result, as he heard them at the table: the recording holds what his scoresheet holds. Each
/// is appended after what is already recorded, never said inside another entry. Pure.
pub fn scoresheet(score: &Score, pack: &VoicePack, style: Style) -> Vec<ScoresheetEntry> {
    let mut entries = Vec::new();
    for p in score.plies() {
        let said = pack.render(
            &Announcement::Move(MoveWords::new(&p.before, p.entry.mv)),
            style,
        );
        let (label, utterance) = match p.side {
            Color::White => (format!("{}.", p.number), numbered(pack, p.number, said)),
            // A record that starts with Black's move (a set-up position) numbers it too.
            Color::Black if p.ply == 1 => {
                (format!("{}...", p.number), numbered(pack, p.number, said))
            }
            Color::Black => (format!("{}...", p.number), said),
        };
        entries.push(ScoresheetEntry {
            label: label.clone(),
            utterance,
        });
        if p.entry.draw_offer {
            entries.push(ScoresheetEntry {
                label: format!("{label} (=)"),
                utterance: pack.render(&Announcement::DrawOffered { by: p.side }, style),
            });
        }
    }
    let result = match score.result.as_str() {
        "1-0" => Some(ResultWords::WhiteWins),
        "0-1" => Some(ResultWords::BlackWins),
        "1/2-1/2" => Some(ResultWords::Draw),
        _ => None,
    };
    if let Some(result) = result {
        entries.push(ScoresheetEntry {
            label: score.result.clone(),
            utterance: pack.render(&Announcement::Result(result), style),
        });
    }
    entries
}

/// `said` after its move number and a pause: "Zug eins, Bauer Eva vier".
fn numbered(pack: &VoicePack, number: u32, said: Utterance) -> Utterance {
    let mut out = move_number(pack, number);
    out.text.push_str(", ");
    out.text.push_str(&said.text);
    out.clips.push(PAUSE.to_owned());
    out.clips.extend(said.clips);
    out
}

/// Move number `n` in `pack`'s words and clips: its word for a move (`move`: "Zug", "move",
/// "jugada") and the number in counting form ("Zug zwölf", "move twelve", "jugada doce"), or the
/// number alone in a pack without that word. The number's clips are the ones
/// [`numbers::spell`] names, the same the pack says times and counts with.
pub fn move_number(pack: &VoicePack, n: u32) -> Utterance {
    let text_of = |key: &str| -> Option<String> {
        match pack.words().get(key)? {
            Word::Spoken { text, .. } => Some(text.clone()),
            Word::Compound(parts) => {
                let texts: Option<Vec<String>> = parts
                    .iter()
                    .map(|part| match pack.words().get(part)? {
                        Word::Spoken { text, .. } => Some(text.clone()),
                        Word::Compound(_) => None,
                    })
                    .collect();
                Some(texts?.join(" "))
            }
        }
    };
    let clips_of = |key: &str| -> Vec<String> {
        match pack.words().get(key) {
            Some(Word::Compound(parts)) => parts.clone(),
            _ => vec![key.to_owned()],
        }
    };
    // Every pack has number words (loading it checks its language); a language tactus does not
    // know could not have been loaded.
    let language = NumberLanguage::from_tag(pack.language()).unwrap_or(NumberLanguage::En);
    let spelled = numbers::spell(language, n, Form::Counting);
    // As the announcements say numbers: a number of one clip with the pack's own word for it
    // (a pack may override one), a number made of parts with its one proper word.
    let number_text = if spelled.keys.len() > 1 && n <= numbers::SPELLED_MAX {
        spelled.text
    } else {
        spelled
            .keys
            .iter()
            .map(|k| text_of(k).unwrap_or_else(|| k.clone()))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (mut text, mut clips) = match text_of(MOVE_WORD) {
        Some(word) => (format!("{word} {number_text}"), clips_of(MOVE_WORD)),
        None => (number_text, Vec::new()),
    };
    clips.extend(spelled.keys);
    // Said first, so written first with a capital, as every announcement is.
    if let Some(first) = text.chars().next() {
        text = first.to_uppercase().chain(text.chars().skip(1)).collect();
    }
    Utterance { text, clips }
}

/// One announcement in the scoresheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CueEntry {
    /// The move number as written ("12." for White, "12..." for Black), or any label.
    pub label: String,
    /// What was said.
    pub text: String,
    /// The first sample of the announcement.
    pub start_sample: u64,
    /// One past its last sample.
    pub end_sample: u64,
}

impl CueEntry {
    /// The start in milliseconds, rounded up: a player who jumps there lands inside the
    /// announcement, not in the silence before it.
    pub fn start_ms(&self) -> u64 {
        (self.start_sample * 1000).div_ceil(u64::from(SAMPLE_RATE))
    }

    /// The end in milliseconds, rounded down.
    pub fn end_ms(&self) -> u64 {
        samples_to_ms(self.end_sample)
    }

    /// The line of the cue file (see the module docs), without the newline.
    pub fn to_line(&self) -> String {
        let seconds = |ms: u64| format!("{}.{:03}", ms / 1000, ms % 1000);
        // Tabs and newlines would break the line format.
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        format!(
            "{}\t{}\t{} {}",
            seconds(self.start_ms()),
            seconds(self.end_ms()),
            clean(&self.label),
            clean(&self.text)
        )
    }

    /// Reads a cue line back: start and end in milliseconds, and the label with the text.
    pub fn parse_line(line: &str) -> Option<(u64, u64, String)> {
        let mut fields = line.splitn(3, '\t');
        let ms = |field: &str| -> Option<u64> {
            let (s, frac) = field.split_once('.')?;
            (frac.len() == 3).then_some(())?;
            Some(s.parse::<u64>().ok()? * 1000 + frac.parse::<u64>().ok()?)
        };
        let start = ms(fields.next()?)?;
        let end = ms(fields.next()?)?;
        Some((start, end, fields.next()?.to_owned()))
    }
}

/// The bytes of the scoresheet's WAV header: a RIFF header, a 16-byte `fmt ` chunk of [`spec`]
/// and the `data` chunk's header. The samples follow it.
pub const HEADER_LEN: u64 = 44;

/// The bytes of one sample (16-bit mono).
pub const BYTES_PER_SAMPLE: u64 = 2;

/// Where the header's data size lies; the RIFF size lies at 4.
const DATA_SIZE_AT: usize = 40;

/// The most samples a WAV can hold: the RIFF size (the data and 36 bytes of headers) is 32 bits.
pub const MAX_SAMPLES: u64 = (u32::MAX as u64 - (HEADER_LEN - 8)) / BYTES_PER_SAMPLE;

/// The header of a scoresheet of `samples` samples, byte for byte what hound writes for
/// [`spec`] (so recordings written before are read back as ours); None past [`MAX_SAMPLES`].
/// Pure.
///
/// The scoresheet grows by appending samples and then writing this header over the old one: a
/// reader trusts the sizes in it, so until it is written the samples behind are not part of the
/// recording (and a crash there leaves the old, whole recording with bytes after it that no
/// reader plays).
pub fn header(samples: u64) -> Option<[u8; HEADER_LEN as usize]> {
    let spec = spec();
    let data = u32::try_from(samples.checked_mul(BYTES_PER_SAMPLE)?).ok()?;
    let riff = data.checked_add((HEADER_LEN - 8) as u32)?;
    let block_align = spec.channels * spec.bits_per_sample / 8;
    let mut h = [0u8; HEADER_LEN as usize];
    h[0..4].copy_from_slice(b"RIFF");
    h[4..8].copy_from_slice(&riff.to_le_bytes());
    h[8..16].copy_from_slice(b"WAVEfmt ");
    h[16..20].copy_from_slice(&16u32.to_le_bytes());
    // WAVE_FORMAT_PCM
    h[20..22].copy_from_slice(&1u16.to_le_bytes());
    h[22..24].copy_from_slice(&spec.channels.to_le_bytes());
    h[24..28].copy_from_slice(&spec.sample_rate.to_le_bytes());
    h[28..32].copy_from_slice(&(spec.sample_rate * u32::from(block_align)).to_le_bytes());
    h[32..34].copy_from_slice(&block_align.to_le_bytes());
    h[34..36].copy_from_slice(&spec.bits_per_sample.to_le_bytes());
    h[36..40].copy_from_slice(b"data");
    h[DATA_SIZE_AT..].copy_from_slice(&data.to_le_bytes());
    Some(h)
}

/// The samples a scoresheet's header says the recording holds; None when `bytes` is not the
/// header [`header`] writes (another format, another file, sizes that disagree, a torn write).
/// Pure.
pub fn read_header(bytes: &[u8]) -> Option<u64> {
    let bytes: &[u8; HEADER_LEN as usize] = bytes.get(..HEADER_LEN as usize)?.try_into().ok()?;
    let data = u32::from_le_bytes(bytes[DATA_SIZE_AT..].try_into().ok()?);
    let samples = u64::from(data) / BYTES_PER_SAMPLE;
    (u64::from(data) % BYTES_PER_SAMPLE == 0 && header(samples).as_ref() == Some(bytes))
        .then_some(samples)
}

impl CueEntry {
    /// The cue of announcement number `index` (from 0), `len` samples long, appended to a
    /// recording of `written` samples: every announcement but the first comes after `between`
    /// samples of silence. Pure.
    pub fn appended(
        label: &str,
        text: &str,
        index: usize,
        written: u64,
        len: usize,
        between: usize,
    ) -> CueEntry {
        let silence = if index == 0 { 0 } else { between as u64 };
        CueEntry {
            label: label.to_owned(),
            text: text.to_owned(),
            start_sample: written + silence,
            end_sample: written + silence + len as u64,
        }
    }
}

/// Where every entry of a scoresheet lies in its recording: `lens` are the entries' assembled
/// lengths ([`assembled_len`]), `between` the samples of silence between two. Pure.
pub fn layout(
    entries: &[ScoresheetEntry],
    lens: impl IntoIterator<Item = usize>,
    between: usize,
) -> Vec<CueEntry> {
    let mut written = 0;
    entries
        .iter()
        .zip(lens)
        .enumerate()
        .map(|(i, (entry, len))| {
            let cue = CueEntry::appended(
                &entry.label,
                &entry.utterance.text,
                i,
                written,
                len,
                between,
            );
            written = cue.end_sample;
            cue
        })
        .collect()
}

/// What brings a recording on the disk up to a scoresheet ([`update`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// The files hold the scoresheet already: nothing to write.
    Current,
    /// The files hold the scoresheet's first `keep` entries, `samples` samples (the WAV may hold
    /// more behind them that no cue line vouches for: an append cut short). Cut the WAV back to
    /// `samples` and append the entries from `keep` on.
    Append { keep: usize, samples: u64 },
    /// The files hold something else: a longer game (a takeback), another move where this one
    /// stands (a correction), another voice or spacing, a damaged or missing WAV. Write the
    /// whole recording anew.
    Rewrite,
}

/// What to do with a recording whose cue list holds `cue_lines` (its whole lines; a torn last
/// line is not one) and whose WAV header says it holds `samples` samples (None: no WAV, or not
/// one of ours), to make it the recording of the scoresheet laid out as `wanted`
/// ([`layout`]). Pure.
///
/// The cue list is the certificate of the WAV: it is appended only after the samples it names
/// are in the WAV and its header, so whatever lines it holds, the WAV holds their samples. Every
/// line must be the line `wanted` has there (same move, same words, same times): then the WAV
/// holds that prefix of the scoresheet, and only the rest is appended.
pub fn update<L: AsRef<str>>(wanted: &[CueEntry], cue_lines: &[L], samples: Option<u64>) -> Update {
    let Some(samples) = samples else {
        return Update::Rewrite;
    };
    if cue_lines.len() > wanted.len()
        || cue_lines
            .iter()
            .zip(wanted)
            .any(|(line, cue)| line.as_ref() != cue.to_line())
    {
        return Update::Rewrite;
    }
    let keep = cue_lines.len();
    let kept = keep
        .checked_sub(1)
        .map_or(0, |last| wanted[last].end_sample);
    if samples < kept {
        // The cue list vouches for more than the WAV holds: neither can be trusted.
        return Update::Rewrite;
    }
    if keep == wanted.len() && samples == kept {
        Update::Current
    } else {
        Update::Append {
            keep,
            samples: kept,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utterance(clips: &[&str]) -> Utterance {
        Utterance {
            text: String::new(),
            clips: clips.iter().map(|c| c.to_string()).collect(),
        }
    }

    fn clip(stem: &str) -> Result<Vec<f32>, String> {
        match stem {
            "a" => Ok(vec![0.5; 3]),
            "b" => Ok(vec![-0.5; 2]),
            other => Err(format!("no clip {other}")),
        }
    }

    // 22050 Hz: 2 ms = 44 samples, 5 ms = 110 samples.
    const SPACING: Spacing = Spacing {
        gap_ms: 2,
        pause_ms: 5,
    };

    #[test]
    fn clips_are_joined_with_gaps_and_pauses_replace_gaps() {
        let out: Vec<f32> = assemble(&utterance(&["a", "b"]), SPACING, clip).unwrap();
        assert_eq!(out.len(), 3 + 44 + 2);
        assert_eq!(&out[..3], &[0.5; 3]);
        assert_eq!(&out[3..47], &[0.0; 44]);
        assert_eq!(&out[47..], &[-0.5; 2]);
        let out: Vec<f32> = assemble(&utterance(&["a", PAUSE, PAUSE, "b"]), SPACING, clip).unwrap();
        assert_eq!(
            out.len(),
            3 + 110 + 2,
            "two pauses in a row are one pause, not two"
        );
        assert_eq!(&out[3..113], &[0.0; 110]);
    }

    #[test]
    fn pauses_at_the_ends_add_nothing() {
        let out: Vec<f32> = assemble(&utterance(&[PAUSE, "a", PAUSE]), SPACING, clip).unwrap();
        assert_eq!(out, vec![0.5; 3]);
        assert!(
            assemble::<f32, _, _>(&utterance(&[]), SPACING, clip)
                .unwrap()
                .is_empty()
        );
        assert!(
            assemble::<f32, _, _>(&utterance(&[PAUSE]), SPACING, clip)
                .unwrap()
                .is_empty()
        );
    }

    fn score(fen: Option<&str>, sans: &str) -> Score {
        use shakmaty::{CastlingMode, Chess, Position, fen::Fen, san::San};
        let start: Chess = match fen {
            Some(fen) => fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap(),
            None => Chess::default(),
        };
        let mut score = Score::new(start.clone());
        let mut pos = start;
        for san in sans.split_whitespace() {
            let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
            score.moves.push(crate::record::score::ScoreMove {
                mv,
                clock_ms: None,
                draw_offer: false,
            });
        }
        score
    }

    fn pack(name: &str) -> VoicePack {
        VoicePack::builtin(name).unwrap()
    }

    /// Issue 15, point 12 (F.5): a player skipping through the recording hears the move
    /// numbers: "Zug eins" and a pause before White's move, Black's move as announced.
    #[test]
    fn f5_every_white_move_is_preceded_by_its_number() {
        let de = pack("de-fide");
        let entries = scoresheet(&score(None, "e4 e5 Nf3 Nc6"), &de, Style::San);
        let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["1.", "1...", "2.", "2..."]);
        let clips: Vec<Vec<&str>> = entries
            .iter()
            .map(|e| e.utterance.clips.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            clips,
            [
                vec!["move", "num_1", PAUSE, "pawn", "file_e", "rank_4"],
                vec!["pawn", "file_e", "rank_5"],
                vec!["move", "num_2", PAUSE, "knight", "file_f", "rank_3"],
                vec!["knight", "file_c", "rank_6"],
            ]
        );
        let texts: Vec<&str> = entries.iter().map(|e| e.utterance.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Zug eins, Bauer Eva vier",
                "Bauer Eva fünf",
                "Zug zwei, Springer Felix drei",
                "Springer Cesar sechs",
            ]
        );
    }

    /// Issue 37, point 10: the recording holds what his written scoresheet holds: a draw
    /// offered with a move (9.1 b, the `(=)`), as he heard it, after that move; the result at
    /// the end, in his words. An unfinished game has no result.
    #[test]
    fn f5_the_recording_holds_the_draw_offers_and_the_result() {
        let de = pack("de-fide");
        let mut game = score(None, "e4 e5 Nf3");
        game.moves[1].draw_offer = true;
        let labels = |score: &Score| -> Vec<String> {
            scoresheet(score, &de, Style::San)
                .into_iter()
                .map(|e| e.label)
                .collect()
        };
        assert_eq!(labels(&game), ["1.", "1...", "1... (=)", "2."]);
        game.result = "1/2-1/2".into();
        let entries = scoresheet(&game, &de, Style::San);
        assert_eq!(
            entries.iter().map(|e| e.label.as_str()).collect::<Vec<_>>(),
            ["1.", "1...", "1... (=)", "2.", "1/2-1/2"]
        );
        let heard = |a: &Announcement| de.render(a, Style::San);
        assert_eq!(
            entries[2].utterance,
            heard(&Announcement::DrawOffered { by: Color::Black })
        );
        assert_eq!(
            entries[4].utterance,
            heard(&Announcement::Result(ResultWords::Draw))
        );
        // Every clip of them is a word of the pack: nothing silent where they belong.
        for entry in &entries {
            for clip in entry.utterance.clips.iter().filter(|c| *c != PAUSE) {
                assert!(de.words().contains_key(clip), "{}: {clip}", entry.label);
            }
        }
    }

    #[test]
    fn move_numbers_in_every_shipped_pack() {
        let said = |name: &str, n: u32| {
            let u = move_number(&pack(name), n);
            (u.text, u.clips)
        };
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            said("de-fide", 1),
            ("Zug eins".into(), owned(&["move", "num_1"]))
        );
        assert_eq!(
            said("de-fide", 63),
            (
                "Zug dreiundsechzig".into(),
                owned(&["move", "num_und_3", "num_60"])
            )
        );
        assert_eq!(
            said("de-fide", 121),
            (
                "Zug hunderteinundzwanzig".into(),
                owned(&["move", "hundreds_1", "num_21"])
            )
        );
        assert_eq!(
            said("en", 12),
            ("Move twelve".into(), owned(&["move", "num_12"]))
        );
        assert_eq!(
            said("es-fide", 21),
            ("Jugada veintiuno".into(), owned(&["move", "num_21"]))
        );
        // Every clip a move number needs is a word of the pack: the recording is never silent
        // where a number belongs.
        for name in ["de-fide", "en", "es-fide"] {
            let p = pack(name);
            for n in 1..=300 {
                for clip in move_number(&p, n).clips {
                    assert!(p.words().contains_key(&clip), "{name} {n}: {clip}");
                }
            }
        }
    }

    #[test]
    fn a_record_starting_with_black_numbers_his_first_move() {
        let de = pack("de-fide");
        let s = score(Some("4k3/8/8/8/8/8/4P3/4K3 b - - 0 30"), "Kd7 e4 Ke6");
        let entries = scoresheet(&s, &de, Style::San);
        let firsts: Vec<(&str, &str)> = entries
            .iter()
            .map(|e| (e.label.as_str(), e.utterance.clips[0].as_str()))
            .collect();
        assert_eq!(
            firsts,
            [("30...", "move"), ("31.", "move"), ("31...", "king")]
        );
        assert!(entries[0].utterance.text.starts_with("Zug dreißig, König"));
    }

    #[test]
    fn the_first_missing_clip_is_the_error() {
        let err = assemble::<f32, _, _>(&utterance(&["a", "zz", "yy"]), SPACING, clip).unwrap_err();
        assert_eq!(err, "no clip zz");
    }

    /// The header is hound's, byte for byte (recordings written before read back as ours, and
    /// every player that reads hound's files reads these), and it is read back only when it is
    /// exactly one of ours.
    #[test]
    fn the_header_is_hounds_and_reads_back() {
        for samples in [0u64, 1, 22_050, 1_234_567] {
            let mut bytes = std::io::Cursor::new(Vec::new());
            let mut writer = hound::WavWriter::new(&mut bytes, spec()).unwrap();
            for i in 0..samples {
                writer.write_sample(i as i16).unwrap();
            }
            writer.finalize().unwrap();
            let bytes = bytes.into_inner();
            assert_eq!(bytes.len() as u64, HEADER_LEN + samples * BYTES_PER_SAMPLE);
            let ours = header(samples).unwrap();
            assert_eq!(
                &bytes[..HEADER_LEN as usize],
                &ours[..],
                "{samples} samples"
            );
            assert_eq!(read_header(&bytes), Some(samples));
        }
        assert!(header(MAX_SAMPLES).is_some());
        assert_eq!(header(MAX_SAMPLES + 1), None);
        let good = header(100).unwrap();
        assert_eq!(read_header(&good[..43]), None, "a torn header");
        let mut riff = good;
        riff[4] ^= 1;
        assert_eq!(read_header(&riff), None, "sizes that disagree");
        let mut odd = header(100).unwrap();
        odd[40] = 201;
        odd[4] = 201 + 36;
        assert_eq!(read_header(&odd), None, "half a sample");
        let mut stereo = good;
        stereo[22] = 2;
        assert_eq!(read_header(&stereo), None, "another format");
    }

    #[test]
    fn the_length_counted_is_the_length_assembled() {
        let lens = |stem: &str| clip(stem).map(|c| c.len());
        for clips in [
            &["a", "b"][..],
            &["a", PAUSE, PAUSE, "b"],
            &[PAUSE, "a", PAUSE],
            &[],
            &["b", "a", PAUSE, "b", "a"],
        ] {
            let u = utterance(clips);
            let made: Vec<f32> = assemble(&u, SPACING, clip).unwrap();
            assert_eq!(
                assembled_len(&u, SPACING, lens),
                Ok(made.len()),
                "{clips:?}"
            );
        }
        assert_eq!(
            assembled_len(&utterance(&["a", "zz"]), SPACING, lens),
            Err("no clip zz".into())
        );
    }

    fn entries(n: usize) -> Vec<ScoresheetEntry> {
        (0..n)
            .map(|i| ScoresheetEntry {
                label: format!("{}{}", i / 2 + 1, if i % 2 == 0 { "." } else { "..." }),
                utterance: Utterance {
                    text: format!("move {i}"),
                    clips: vec![],
                },
            })
            .collect()
    }

    #[test]
    fn the_layout_puts_silence_between_entries() {
        let cues = layout(&entries(3), [100, 1, 50], 10);
        let spans: Vec<(u64, u64)> = cues
            .iter()
            .map(|c| (c.start_sample, c.end_sample))
            .collect();
        assert_eq!(spans, [(0, 100), (110, 111), (121, 171)]);
        assert_eq!(cues[2].label, "2.");
        assert_eq!(cues[2].text, "move 2");
    }

    /// Issue 25, point 6: the recording grows by appending; anything but growth (a takeback, a
    /// correction, a damaged file) writes it anew, and what an append cut short left behind is
    /// cut off before the next.
    #[test]
    fn the_update_appends_growth_and_rewrites_anything_else() {
        let between = 10;
        let wanted = layout(&entries(4), [100, 200, 300, 400], between);
        let lines =
            |n: usize| -> Vec<String> { wanted[..n].iter().map(CueEntry::to_line).collect() };
        let end = |n: usize| if n == 0 { 0 } else { wanted[n - 1].end_sample };
        // A new game: nothing on the disk, or an empty recording.
        assert_eq!(update(&wanted, &lines(0), None), Update::Rewrite);
        assert_eq!(
            update(&wanted, &lines(0), Some(0)),
            Update::Append {
                keep: 0,
                samples: 0
            }
        );
        // Two moves more.
        assert_eq!(
            update(&wanted, &lines(2), Some(end(2))),
            Update::Append {
                keep: 2,
                samples: end(2)
            }
        );
        assert_eq!(update(&wanted, &lines(4), Some(end(4))), Update::Current);
        assert_eq!(update(&wanted[..0], &lines(0), Some(0)), Update::Current);
        // An append cut short: samples behind the last cue line (the header was written, the
        // cue line not) are cut off and appended again.
        assert_eq!(
            update(&wanted, &lines(2), Some(end(3))),
            Update::Append {
                keep: 2,
                samples: end(2)
            }
        );
        assert_eq!(
            update(&wanted[..2], &lines(2), Some(end(2) + 5)),
            Update::Append {
                keep: 2,
                samples: end(2)
            }
        );
        // A takeback: the files hold a longer game.
        assert_eq!(
            update(&wanted[..3], &lines(4), Some(end(4))),
            Update::Rewrite
        );
        // A correction: another move where the second stands.
        let mut other = lines(3);
        other[1] = other[1].replace("move 1", "move 1 corrected");
        assert_eq!(update(&wanted, &other, Some(end(3))), Update::Rewrite);
        // Another spacing: the same words at other times.
        let spaced = layout(&entries(4), [100, 200, 300, 400], between + 1);
        assert_eq!(update(&spaced, &lines(2), Some(end(2))), Update::Rewrite);
        // The cue list vouches for more than the WAV holds, or there is no WAV.
        assert_eq!(
            update(&wanted, &lines(2), Some(end(2) - 1)),
            Update::Rewrite
        );
        assert_eq!(update(&wanted, &lines(2), None), Update::Rewrite);
    }
}
