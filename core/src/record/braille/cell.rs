//! One Braille cell (six dots) and its two written forms: North American Braille ASCII (the
//! characters of a BRF file) and Unicode Braille (U+2800 plus the dot mask).
//!
//! Everything Braille in tactus is built as cells first and turned into BRF or Unicode only at the
//! end, so both forms of a score are the same score by construction. Pure; no I/O.

use std::fmt;

/// One six-dot Braille cell: bit 0 is dot 1, ..., bit 5 is dot 6 (the Unicode dot mask).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Cell(u8);

/// The dots of BRF characters 0x20 ('␠') to 0x5F ('_'), in ASCII order, as in the table of
/// `../shared/reference/braille-chess.md`.
const BRF_DOTS: [&str; 64] = [
    "", "2346", "5", "3456", "1246", "146", "12346", "3", // ␠ ! " # $ % & '
    "12356", "23456", "16", "346", "6", "36", "46", "34", // ( ) * + , - . /
    "356", "2", "23", "25", "256", "26", "235", "2356", // 0 1 2 3 4 5 6 7
    "236", "35", "156", "56", "126", "123456", "345", "1456", // 8 9 : ; < = > ?
    "4", "1", "12", "14", "145", "15", "124", "1245", // @ A B C D E F G
    "125", "24", "245", "13", "123", "134", "1345", "135", // H I J K L M N O
    "1234", "12345", "1235", "234", "2345", "136", "1236", "2456", // P Q R S T U V W
    "1346", "13456", "1356", "246", "1256", "12456", "45", "456", // X Y Z [ \ ] ^ _
];

/// The first BRF character (the blank cell).
const BRF_FIRST: u8 = 0x20;
/// The last BRF character.
const BRF_LAST: u8 = 0x5F;
/// Lower-case letters and `` ` { | } ~`` are the same cells as their upper-case counterparts
/// (`@ [ \ ] ^`): many note-takers and files write BRF in lower case.
const LOWER_CASE_OFFSET: u8 = 0x20;
/// The first code point of the Unicode Braille block; a cell is this plus its dot mask.
const UNICODE_BLANK: u32 = 0x2800;
/// Six-dot cells only: the Unicode block goes on to eight dots, which BRF cannot write.
const SIX_DOTS: u8 = 0x3F;

const fn mask_of(dots: &str) -> u8 {
    let bytes = dots.as_bytes();
    let mut mask = 0;
    let mut i = 0;
    while i < bytes.len() {
        mask |= 1 << (bytes[i] - b'1');
        i += 1;
    }
    mask
}

/// BRF character (minus 0x20) -> dot mask.
const BRF_TO_MASK: [u8; 64] = {
    let mut table = [0; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = mask_of(BRF_DOTS[i]);
        i += 1;
    }
    table
};

/// Dot mask -> BRF character.
const MASK_TO_BRF: [u8; 64] = {
    let mut table = [0; 64];
    let mut i = 0;
    while i < 64 {
        table[BRF_TO_MASK[i] as usize] = BRF_FIRST + i as u8;
        i += 1;
    }
    table
};

impl Cell {
    /// The blank cell (a space).
    pub const BLANK: Cell = Cell(0);

    /// The cell with these dots (a mask: dot 1 = 0x01 ... dot 6 = 0x20); `None` beyond six dots.
    pub const fn from_mask(mask: u8) -> Option<Cell> {
        if mask & !SIX_DOTS == 0 {
            Some(Cell(mask))
        } else {
            None
        }
    }

    /// The cell with these dots, written like `"1245"`. Panics on anything but digits 1-6: meant
    /// for constants in code and tests.
    pub const fn dots(dots: &str) -> Cell {
        let bytes = dots.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            assert!(bytes[i] >= b'1' && bytes[i] <= b'6', "dots are 1 to 6");
            i += 1;
        }
        Cell(mask_of(dots))
    }

    /// The dot mask.
    pub const fn mask(self) -> u8 {
        self.0
    }

    pub const fn is_blank(self) -> bool {
        self.0 == 0
    }

    /// The BRF (North American Braille ASCII) character, 0x20-0x5F.
    pub const fn to_brf(self) -> u8 {
        MASK_TO_BRF[self.0 as usize]
    }

    /// The cell a BRF character stands for; lower case reads as upper case. `None` for anything
    /// else (control characters, bytes above 0x7E).
    pub const fn from_brf(byte: u8) -> Option<Cell> {
        let byte = if byte > BRF_LAST && byte < 0x7F {
            byte - LOWER_CASE_OFFSET
        } else {
            byte
        };
        if byte >= BRF_FIRST && byte <= BRF_LAST {
            Some(Cell(BRF_TO_MASK[(byte - BRF_FIRST) as usize]))
        } else {
            None
        }
    }

    /// The Unicode Braille character, except that the blank cell is an ordinary space: that is
    /// what the reference writes, and what screen readers and search treat as a word break.
    pub fn to_unicode(self) -> char {
        if self.is_blank() {
            ' '
        } else {
            // The block U+2800-U+283F is all assigned: every six-dot mask is a char.
            char::from_u32(UNICODE_BLANK + u32::from(self.0)).unwrap_or(' ')
        }
    }

    /// The cell a Unicode character stands for: U+2800-U+283F, or a space (U+0020) for the blank
    /// cell. `None` for eight-dot patterns and everything else.
    pub fn from_unicode(c: char) -> Option<Cell> {
        if c == ' ' {
            return Some(Cell::BLANK);
        }
        let offset = u32::from(c).checked_sub(UNICODE_BLANK)?;
        u8::try_from(offset).ok().and_then(Cell::from_mask)
    }
}

impl fmt::Display for Cell {
    /// Unicode Braille.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_unicode())
    }
}

/// Cells as BRF text.
pub fn to_brf(cells: &[Cell]) -> String {
    cells.iter().map(|c| char::from(c.to_brf())).collect()
}

/// Cells as Unicode Braille text.
pub fn to_unicode(cells: &[Cell]) -> String {
    cells.iter().map(|c| c.to_unicode()).collect()
}

/// A string of cells written in BRF or in Unicode Braille (each character either), as the
/// profile table writes them. `Err` carries the first character that is neither.
pub fn parse_cells(text: &str) -> Result<Vec<Cell>, char> {
    text.chars()
        .map(|c| {
            Cell::from_unicode(c)
                .or_else(|| u8::try_from(c).ok().and_then(Cell::from_brf))
                .ok_or(c)
        })
        .collect()
}

/// Lower-cell digits 0-9 (dots 356, 2, 23, 25, 256, 26, 235, 2356, 236, 35): ranks and move
/// numbers in chess Braille; the same cells as the BRF digits.
pub const LOWER_DIGITS: [Cell; 10] = [
    Cell::dots("356"),
    Cell::dots("2"),
    Cell::dots("23"),
    Cell::dots("25"),
    Cell::dots("256"),
    Cell::dots("26"),
    Cell::dots("235"),
    Cell::dots("2356"),
    Cell::dots("236"),
    Cell::dots("35"),
];

/// The letters a-z (the same cells as BRF `A`-`Z`).
pub fn letter(c: char) -> Option<Cell> {
    c.is_ascii_alphabetic()
        .then(|| Cell::from_brf(c.to_ascii_uppercase() as u8))
        .flatten()
}

/// The letter a cell stands for, lower case, if it is one.
pub fn letter_of(cell: Cell) -> Option<char> {
    let c = char::from(cell.to_brf());
    c.is_ascii_uppercase().then(|| c.to_ascii_lowercase())
}

/// The lower-cell digit a cell stands for.
pub fn digit_of(cell: Cell) -> Option<u32> {
    LOWER_DIGITS
        .iter()
        .position(|&d| d == cell)
        .map(|d| d as u32)
}

/// A number in lower-cell digits (move numbers, page-free numbering in chess).
pub fn lower_number(n: u32) -> Vec<Cell> {
    n.to_string()
        .bytes()
        .map(|b| LOWER_DIGITS[usize::from(b - b'0')])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_table() {
        // Spot checks against the reference's table and worked example.
        assert_eq!(Cell::from_brf(b'E'), Some(Cell::dots("15")));
        assert_eq!(Cell::from_brf(b'4'), Some(Cell::dots("256")));
        assert_eq!(Cell::from_brf(b'-'), Some(Cell::dots("36")));
        assert_eq!(Cell::from_brf(b';'), Some(Cell::dots("56")));
        assert_eq!(Cell::from_brf(b'^'), Some(Cell::dots("45")));
        assert_eq!(Cell::from_brf(b'='), Some(Cell::dots("123456")));
        assert_eq!(Cell::from_brf(b'_'), Some(Cell::dots("456")));
        assert_eq!(Cell::from_brf(b' '), Some(Cell::BLANK));
        assert_eq!(Cell::dots("15").to_unicode(), '⠑');
        assert_eq!(Cell::dots("256").to_unicode(), '⠲');
        assert_eq!(Cell::dots("36").to_unicode(), '⠤');
        assert_eq!(
            to_unicode(&parse_cells("1 E4 E5 2 SF3").unwrap()),
            "⠂ ⠑⠲ ⠑⠢ ⠆ ⠎⠋⠒"
        );
        assert_eq!(to_brf(&parse_cells("⠎⠉⠖ ⠇⠃⠢").unwrap()), "SC6 LB5");
    }

    #[test]
    fn brf_and_unicode_are_one_bijection_over_the_64_cells() {
        let mut seen = std::collections::HashSet::new();
        for byte in BRF_FIRST..=BRF_LAST {
            let cell = Cell::from_brf(byte).unwrap();
            assert!(seen.insert(cell), "{} twice", char::from(byte));
            assert_eq!(cell.to_brf(), byte);
            assert_eq!(Cell::from_unicode(cell.to_unicode()), Some(cell));
        }
        assert_eq!(seen.len(), 64);
        for mask in 0..64 {
            let cell = Cell::from_mask(mask).unwrap();
            assert_eq!(Cell::from_brf(cell.to_brf()), Some(cell));
            if mask > 0 {
                assert_eq!(u32::from(cell.to_unicode()), 0x2800 + u32::from(mask));
            }
        }
        assert_eq!(Cell::from_mask(64), None);
    }

    #[test]
    fn lower_case_and_unicode_blank_read_as_the_same_cells() {
        for (lower, upper) in (b'a'..=b'z').zip(b'A'..=b'Z') {
            assert_eq!(Cell::from_brf(lower), Cell::from_brf(upper));
        }
        assert_eq!(Cell::from_brf(b'{'), Cell::from_brf(b'['));
        assert_eq!(Cell::from_brf(b'~'), Cell::from_brf(b'^'));
        assert_eq!(Cell::from_brf(b'\t'), None);
        assert_eq!(Cell::from_brf(0x7F), None);
        assert_eq!(Cell::from_brf(0xC3), None);
        assert_eq!(Cell::from_unicode('\u{2800}'), Some(Cell::BLANK));
        assert_eq!(Cell::from_unicode('\u{2840}'), None, "eight dots");
        assert_eq!(Cell::from_unicode('a'), None);
        assert_eq!(parse_cells("E4é"), Err('é'));
    }

    #[test]
    fn numbers_letters_and_digits() {
        assert_eq!(to_brf(&lower_number(105)), "105");
        assert_eq!(to_unicode(&lower_number(12)), "⠂⠆");
        assert_eq!(digit_of(Cell::dots("356")), Some(0));
        assert_eq!(digit_of(Cell::dots("1")), None);
        assert_eq!(letter('h'), Cell::from_brf(b'H'));
        assert_eq!(letter_of(Cell::dots("125")), Some('h'));
        assert_eq!(letter_of(Cell::dots("2")), None);
    }
}
