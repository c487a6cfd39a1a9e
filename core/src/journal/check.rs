//! A journal that proves itself: every line's checksum, chained through the file.
//!
//! From format version 2 every line carries `"c"`, eight hex digits: the CRC-32C
//! of the file up to and including this line, each line taken without its `"c"` field (the
//! checksum of line k continues the one of line k-1, `crc32c_append`). So one changed byte
//! anywhere, a line lost, repeated, swapped or taken from another journal breaks the checksum of
//! that line and of every line after it, and the reader names the first. The field stands in
//! front (`{"c":"..","kind":"header",..}`, `{"n":7,"c":"..","kind":..}`) for people reading the
//! file, and the rest of the line is the JSON the entry types write, unchanged.
//!
//! The reader ([`mod@super::parse`]) checks each line with [`split_check`]; the record's mark
//! ([`super::mark`]) keeps the checksum of the last line a record was written from.
//!
//! Pure: bytes and values in, bytes and verdicts out.

use super::lines::Entry;

/// `"c":"` + 8 hex digits + `",`: the checksum field as it stands in a line.
const FIELD_LEN: usize = 15;

/// A line of the journal (with its newline) for `entry`, numbered `n` (ignored for the header),
/// whose checksum continues `previous` (the checksum of the line before; 0 for the header).
/// Returns the line and its checksum.
pub fn encode_line(entry: &Entry, n: u64, previous: u32) -> serde_json::Result<(Vec<u8>, u32)> {
    let json = serde_json::to_vec(entry)?;
    // `{` + rest; the number first for entries (`{"n":7,`), then the checksum.
    let rest = json.get(1..).unwrap_or_default();
    let mut covered = b"{".to_vec();
    if !matches!(entry, Entry::Header(_)) {
        covered.extend_from_slice(format!("\"n\":{n},").as_bytes());
    }
    let at = covered.len();
    covered.extend_from_slice(rest);
    let check = crc32c::crc32c_append(previous, &covered);
    let mut line = Vec::with_capacity(covered.len() + FIELD_LEN + 1);
    line.extend_from_slice(&covered[..at]);
    line.extend_from_slice(format!("\"c\":\"{check:08x}\",").as_bytes());
    line.extend_from_slice(&covered[at..]);
    line.push(b'\n');
    Ok((line, check))
}

/// A whole journal's bytes for `entries` (the header first), numbered and checksummed as the
/// daemon writes them: for tests and tools that make journals without a daemon.
pub fn encode_journal(entries: &[Entry]) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let (mut previous, mut n) = (0, 0);
    for entry in entries {
        if !matches!(entry, Entry::Header(_)) {
            n += 1;
        }
        let (line, check) = encode_line(entry, n, previous)?;
        bytes.extend_from_slice(&line);
        previous = check;
    }
    Ok(bytes)
}

/// A line's checksum and the bytes it covers (the line without its `"c"` field), or None when
/// the line carries no checksum where one stands (`{"c":` or `{"n":<digits>,"c":`).
pub fn split_check(line: &[u8]) -> Option<(u32, Vec<u8>)> {
    let mut at = 1;
    if !line.starts_with(b"{") {
        return None;
    }
    if line[at..].starts_with(b"\"n\":") {
        at += 4;
        let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || line.get(at + digits) != Some(&b',') {
            return None;
        }
        at += digits + 1;
    }
    let field = line.get(at..at + FIELD_LEN)?;
    if !field.starts_with(b"\"c\":\"") || !field.ends_with(b"\",") {
        return None;
    }
    let hex = std::str::from_utf8(&field[5..13]).ok()?;
    if !hex
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return None;
    }
    let check = u32::from_str_radix(hex, 16).ok()?;
    let mut covered = line[..at].to_vec();
    covered.extend_from_slice(&line[at + FIELD_LEN..]);
    Some((check, covered))
}

/// The checksum shown in files and messages.
pub fn hex(check: u32) -> String {
    format!("{check:08x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{lines::Entry, test_header};

    #[test]
    fn crc32c_is_castagnoli() {
        // The catalogued check value of CRC-32C (RFC 3720), not the zlib CRC-32's cbf43926.
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn a_line_carries_its_checksum_in_front_and_reads_back() {
        let header = Entry::Header(Box::new(test_header(shakmaty::Color::White, None)));
        let (line, check) = encode_line(&header, 0, 0).unwrap();
        assert!(
            line.starts_with(b"{\"c\":\""),
            "{}",
            String::from_utf8_lossy(&line)
        );
        let body = &line[..line.len() - 1];
        let (read, covered) = split_check(body).unwrap();
        assert_eq!(read, check);
        assert_eq!(crc32c::crc32c(&covered), check);
        // The line is JSON the entry types read.
        let back: Entry = serde_json::from_slice(body).unwrap();
        assert_eq!(back, header);
        let end = Entry::End {
            t: 5,
            result: "1-0".into(),
            reason: "resigned".into(),
        };
        let (line, second) = encode_line(&end, 7, check).unwrap();
        assert!(line.starts_with(b"{\"n\":7,\"c\":\""));
        let (read, covered) = split_check(&line[..line.len() - 1]).unwrap();
        assert_eq!(read, second);
        assert_eq!(crc32c::crc32c_append(check, &covered), second);
    }

    #[test]
    fn a_line_without_its_field_has_no_checksum() {
        assert_eq!(split_check(b"{\"n\":7,\"kind\":\"end\"}"), None);
        assert_eq!(split_check(b"{\"kind\":\"header\"}"), None);
        assert_eq!(split_check(b"{\"c\":\"0000000g\",\"kind\":1}"), None);
        assert_eq!(split_check(b"{\"c\":\"0000000A\",\"kind\":1}"), None);
        assert_eq!(split_check(b""), None);
    }
}
