//! Reads a `java.util.Properties` text file (`Properties.load(Reader)` rules): `#`/`!`
//! comment lines, keys ended by the first unescaped `=`, `:` or whitespace, line
//! continuations (an odd number of trailing backslashes), and the escapes `\t \n \r \f
//! \uXXXX` (any other escaped character stands for itself). Later duplicates win, as in
//! Java. Pure: text in, map out.

use std::collections::BTreeMap;

/// A properties text that `Properties.load` would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PropertiesError {
    /// A `\u` escape without four hex digits (Java: "Malformed \uxxxx encoding").
    #[error("line {line}: malformed \\uxxxx escape")]
    MalformedUnicode {
        /// 1-based line number of the logical line's start.
        line: usize,
    },
}

/// Parses `text` into key → value.
pub fn parse_properties(text: &str) -> Result<BTreeMap<String, String>, PropertiesError> {
    let mut out = BTreeMap::new();
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut i = 0;
    while i < lines.len() {
        let start_line = i + 1;
        let first = lines[i].trim_start_matches([' ', '\t', '\x0c']);
        i += 1;
        if first.is_empty() || first.starts_with('#') || first.starts_with('!') {
            continue;
        }
        // Join continuation lines: the leading whitespace of each continuation is dropped.
        let mut logical = String::from(first);
        while ends_with_odd_backslashes(&logical) && i < lines.len() {
            logical.pop();
            logical.push_str(lines[i].trim_start_matches([' ', '\t', '\x0c']));
            i += 1;
        }
        if ends_with_odd_backslashes(&logical) {
            // A final lone backslash at the end of the file is dropped, as Java does.
            logical.pop();
        }
        let (key, value) = split_key_value(&logical);
        out.insert(unescape(key, start_line)?, unescape(value, start_line)?);
    }
    Ok(out)
}

fn ends_with_odd_backslashes(s: &str) -> bool {
    s.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 1
}

/// Splits a logical line at the first unescaped separator; the value starts after the
/// whitespace around it and at most one `=` or `:`.
fn split_key_value(line: &str) -> (&str, &str) {
    let bytes = line.as_bytes();
    let mut k = 0;
    let mut escaped = false;
    while k < bytes.len() {
        let b = bytes[k];
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else if matches!(b, b'=' | b':' | b' ' | b'\t' | b'\x0c') {
            break;
        }
        k += 1;
    }
    let key = &line[..k];
    let mut v = k;
    while v < bytes.len() && matches!(bytes[v], b' ' | b'\t' | b'\x0c') {
        v += 1;
    }
    if v < bytes.len() && matches!(bytes[v], b'=' | b':') {
        v += 1;
        while v < bytes.len() && matches!(bytes[v], b' ' | b'\t' | b'\x0c') {
            v += 1;
        }
    }
    (key, &line[v..])
}

fn unescape(s: &str, line: usize) -> Result<String, PropertiesError> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    // UTF-16 code units from \u escapes, so surrogate pairs combine.
    let mut units: Vec<u16> = Vec::new();
    let flush = |units: &mut Vec<u16>, out: &mut String| {
        out.extend(char::decode_utf16(units.drain(..)).map(|r| r.unwrap_or('\u{fffd}')));
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            flush(&mut units, &mut out);
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let unit = (hex.len() == 4)
                    .then(|| u16::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or(PropertiesError::MalformedUnicode { line })?;
                units.push(unit);
                continue;
            }
            Some(e) => {
                flush(&mut units, &mut out);
                out.push(match e {
                    't' => '\t',
                    'n' => '\n',
                    'r' => '\r',
                    'f' => '\x0c',
                    other => other,
                });
            }
            None => flush(&mut units, &mut out),
        }
    }
    flush(&mut units, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn comments_separators_and_whitespace() {
        let text = "# kipcheck scenario x (seed 1)\n! also a comment\n\n  a=1\nb : 2\nc 3\nd=\ne\n";
        assert_eq!(
            parse_properties(text).unwrap(),
            map(&[("a", "1"), ("b", "2"), ("c", "3"), ("d", ""), ("e", "")])
        );
    }

    #[test]
    fn escapes_as_properties_store_writes_them() {
        // Properties.store escapes separators and leading spaces in keys, `\uXXXX` for
        // non-Latin-1, and `\t \n \r \f`.
        let text = "a\\=b\\:c\\ d=\\ lead\\tx\\n\\u00e9\\u4e2d\\uD83D\\uDE00\\#\r\n";
        assert_eq!(
            parse_properties(text).unwrap(),
            map(&[("a=b:c d", " lead\tx\né中😀#")])
        );
    }

    #[test]
    fn continuations_and_duplicates() {
        let text = "k=one,\\\n    two,\\\n  three\nk2=x\\\\\nk2=last\n";
        assert_eq!(
            parse_properties(text).unwrap(),
            map(&[("k", "one,two,three"), ("k2", "last")])
        );
        assert_eq!(parse_properties("k=v\\").unwrap(), map(&[("k", "v")]));
    }

    #[test]
    fn malformed_unicode_is_an_error_with_its_line() {
        assert_eq!(
            parse_properties("a=1\nb=\\u12g4\n"),
            Err(PropertiesError::MalformedUnicode { line: 2 })
        );
        assert_eq!(
            parse_properties("b=\\u12"),
            Err(PropertiesError::MalformedUnicode { line: 1 })
        );
    }
}
