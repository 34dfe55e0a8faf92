//! Hex dumps of raw bytes (`Failure::raw_hex`): offset | hex | ascii, 16 bytes per row. It
//! only lays bytes out; it never decodes or interprets them.

/// Bytes per row.
pub const BYTES_PER_ROW: usize = 16;

/// One row of a dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HexRow {
    /// Offset of the row's first byte.
    pub offset: usize,
    /// Up to [`BYTES_PER_ROW`] bytes.
    pub bytes: Vec<u8>,
}

impl HexRow {
    /// `00000010`: the offset as eight hex digits.
    pub fn offset_text(&self) -> String {
        format!("{:08x}", self.offset)
    }

    /// The bytes as hex pairs, with an extra space after the eighth, padded to full width.
    pub fn hex_text(&self) -> String {
        let mut out = String::with_capacity(49);
        for i in 0..BYTES_PER_ROW {
            if i > 0 {
                out.push(' ');
            }
            if i == 8 {
                out.push(' ');
            }
            match self.bytes.get(i) {
                Some(b) => out.push_str(&format!("{b:02x}")),
                None => out.push_str("  "),
            }
        }
        out
    }

    /// Printable ASCII as itself, every other byte as `.`.
    pub fn ascii_text(&self) -> String {
        self.bytes
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect()
    }

    /// `00000000  00 01 …  |..|`, the classic `hexdump -C` line.
    pub fn line(&self) -> String {
        format!(
            "{}  {}  |{}|",
            self.offset_text(),
            self.hex_text(),
            self.ascii_text()
        )
    }
}

/// A parsed hex string, or why it could not be parsed (then renderers show it verbatim).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexDump {
    /// The rows.
    Rows {
        /// Rows of [`BYTES_PER_ROW`] bytes (the last may be shorter).
        rows: Vec<HexRow>,
        /// Total bytes.
        len: usize,
    },
    /// The text was not an even number of hex digits (whitespace ignored).
    Invalid(String),
}

/// Parses a hex string (whitespace, `0x` prefix and `:` separators ignored) into rows.
pub fn hex_dump(hex: &str) -> HexDump {
    let trimmed = hex.trim();
    let trimmed = trimmed.strip_prefix("0x").unwrap_or(trimmed);
    let digits: Vec<u8> = trimmed
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b':')
        .collect();
    if !digits.len().is_multiple_of(2) || !digits.iter().all(u8::is_ascii_hexdigit) {
        return HexDump::Invalid(hex.to_owned());
    }
    let bytes: Vec<u8> = digits
        .chunks(2)
        .map(|p| (nibble(p[0]) << 4) | nibble(p[1]))
        .collect();
    let rows = bytes
        .chunks(BYTES_PER_ROW)
        .enumerate()
        .map(|(i, chunk)| HexRow {
            offset: i * BYTES_PER_ROW,
            bytes: chunk.to_vec(),
        })
        .collect();
    HexDump::Rows {
        rows,
        len: bytes.len(),
    }
}

fn nibble(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        _ => d - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumps_sixteen_bytes_per_row_with_ascii() {
        let HexDump::Rows { rows, len } =
            hex_dump("00 01 41 42 0a 7f 20 7e 00 00 00 00 00 00 00 00 ff")
        else {
            panic!("valid hex");
        };
        assert_eq!(len, 17);
        assert_eq!(
            rows[0].line(),
            "00000000  00 01 41 42 0a 7f 20 7e  00 00 00 00 00 00 00 00  |..AB.. ~........|"
        );
        assert_eq!(
            rows[1].line(),
            "00000010  ff                                                |.|"
        );
    }

    #[test]
    fn odd_or_non_hex_input_is_kept_verbatim() {
        assert_eq!(hex_dump("abc"), HexDump::Invalid("abc".into()));
        assert_eq!(hex_dump("zz"), HexDump::Invalid("zz".into()));
    }
}
