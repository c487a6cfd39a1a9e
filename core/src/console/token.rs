//! The arbiter's token: how it is written and checked.
//!
//! The daemon makes the token from random bytes it reads itself (this module has no randomness
//! and no files) and writes it into a file of mode 0600 that only the arbiter is shown; `login
//! TOKEN` at the console must match it. The comparison takes the same time however much of the
//! token is right, so that a client cannot find it a character at a time by timing refusals.
//! A token file someone made by hand must be as hard to guess as ours ([`MIN_BITS`]).

/// Random bytes in a token: 128 bits, beyond guessing over a socket.
pub const TOKEN_BYTES: usize = 16;
/// The least guessing work a token file's token must need, in bits: as much as ours.
pub const MIN_BITS: u32 = 8 * TOKEN_BYTES as u32;
/// The least number of different characters in a token. A random token of ours has fewer than
/// this with a probability below 10^-12; `aaaa...` or `abab...` is a hand-made one.
const MIN_DISTINCT: usize = 6;
/// The token file's suggested name, in the game's folder (named with the folder's other files).
pub use crate::folder::TOKEN_FILE;

/// The token for `random` bytes (at least [`TOKEN_BYTES`] of them, from the operating system's
/// random source): lower-case hex, easy to read aloud and to type.
pub fn from_bytes(random: &[u8]) -> String {
    random.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a token file's text is not a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the token file is empty")]
    Empty,
    #[error("the token file holds more than one word; it must hold the token only")]
    SeveralWords,
    #[error("the token is {len} characters long; a token has at least {min}")]
    TooShort { len: usize, min: usize },
    #[error(
        "the token is too easy to guess (about {bits} bits; at least {min} are needed: 32 random \
         hex digits, or 22 random letters and digits)"
    )]
    Weak { bits: u32, min: u32 },
}

/// An upper bound of the guessing work for `token`, in bits: its length times the bits of the
/// smallest alphabet it is written in (hex digits, digits and letters, printable ASCII, Unicode).
/// Repeated patterns count as few bits whatever their length.
pub fn estimated_bits(token: &str) -> u32 {
    let mut distinct: Vec<char> = token.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < MIN_DISTINCT {
        return distinct.len() as u32;
    }
    let alphabet: f64 = if token.chars().all(|c| c.is_ascii_hexdigit()) {
        16.0
    } else if token.chars().all(|c| c.is_ascii_alphanumeric()) {
        62.0
    } else if token.chars().all(|c| c.is_ascii_graphic()) {
        94.0
    } else {
        65536.0
    };
    // Hex in either case counts as hex: a token read aloud or retyped may change case.
    (token.chars().count() as f64 * alphabet.log2()).floor() as u32
}

/// The token in a token file's text: one word, surrounding whitespace and a final newline
/// ignored.
pub fn parse_file(text: &str) -> Result<String, TokenError> {
    let mut words = text.split_whitespace();
    let token = words.next().ok_or(TokenError::Empty)?;
    if words.next().is_some() {
        return Err(TokenError::SeveralWords);
    }
    // Half the hex digits of a full token: a hand-made token may be shorter than ours, but
    // not so short that it can be guessed.
    let min = TOKEN_BYTES;
    if token.len() < min {
        return Err(TokenError::TooShort {
            len: token.len(),
            min,
        });
    }
    let bits = estimated_bits(token);
    if bits < MIN_BITS {
        return Err(TokenError::Weak {
            bits,
            min: MIN_BITS,
        });
    }
    Ok(token.to_string())
}

/// Whether `given` is `expected`, in time that depends only on the lengths.
pub fn matches(expected: &str, given: &str) -> bool {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    // Every byte of the longer one is looked at, whatever the first difference.
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= x ^ y;
    }
    // Keep the optimiser from turning the loop back into an early exit.
    std::hint::black_box(diff) == 0 && !expected.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_hex_of_the_random_bytes() {
        let token = from_bytes(&[0x00, 0x0f, 0xa0, 0xff]);
        assert_eq!(token, "000fa0ff");
        assert_eq!(from_bytes(&[7; TOKEN_BYTES]).len(), 2 * TOKEN_BYTES);
    }

    #[test]
    fn matching_needs_every_byte_and_the_length() {
        let t = from_bytes(&[0xab; TOKEN_BYTES]);
        assert!(matches(&t, &t));
        assert!(!matches(&t, &t[..t.len() - 1]));
        assert!(!matches(&t, &format!("{t}0")));
        let mut wrong = t.clone().into_bytes();
        wrong[0] = b'0';
        assert!(!matches(&t, std::str::from_utf8(&wrong).unwrap()));
        let mut wrong = t.clone().into_bytes();
        *wrong.last_mut().unwrap() = b'0';
        assert!(!matches(&t, std::str::from_utf8(&wrong).unwrap()));
        // An empty expected token (a daemon that forgot to make one) never matches.
        assert!(!matches("", ""));
    }

    #[test]
    fn token_files_hold_one_word() {
        let t = from_bytes(&[
            0x5a, 0x17, 0xc3, 0x88, 0x2e, 0xf1, 0x04, 0x9d, 0x63, 0xb0, 0x7c, 0x45, 0xea, 0x19,
            0xd2, 0x36,
        ]);
        assert_eq!(parse_file(&format!("{t}\n")), Ok(t.clone()));
        assert_eq!(parse_file(&format!("  {t}  ")), Ok(t.clone()));
        assert_eq!(parse_file(""), Err(TokenError::Empty));
        assert_eq!(parse_file(" \n"), Err(TokenError::Empty));
        assert_eq!(
            parse_file(&format!("{t} {t}")),
            Err(TokenError::SeveralWords)
        );
        // 16 hex digits were once accepted: 64 bits, and a repeated letter, are too few.
        assert_eq!(
            parse_file("0123456789abcdef"),
            Err(TokenError::Weak { bits: 64, min: 128 })
        );
        assert_eq!(
            parse_file(&"a".repeat(64)),
            Err(TokenError::Weak { bits: 1, min: 128 })
        );
        assert_eq!(
            parse_file(&"ab".repeat(40)),
            Err(TokenError::Weak { bits: 2, min: 128 })
        );
        // 22 random letters and digits are enough, as are ours.
        assert!(parse_file("Xq7pL2mZr9TkB4wN8cVd3H").is_ok());
        let ours = from_bytes(&[
            0x3f, 0xa1, 0x07, 0xc2, 0x9e, 0x55, 0x10, 0xd8, 0x6b, 0x2c, 0xe4, 0x81, 0x7a, 0x0f,
            0xb3, 0x46,
        ]);
        assert_eq!(estimated_bits(&ours), MIN_BITS);
        assert_eq!(parse_file(&ours), Ok(ours.clone()));
        assert_eq!(
            parse_file("abc"),
            Err(TokenError::TooShort {
                len: 3,
                min: TOKEN_BYTES
            })
        );
    }
}
