//! Reading byte and text inputs given on the command line as `HEX`, `@FILE` or `-`.

use std::io::Read;

use anyhow::{bail, Context};
use kipcheck::codec::from_hex;

/// Reads `arg`: `-` is standard input, `@path` a file, anything else the text itself.
/// Text made only of hex digits (spaces, newlines, `:` and `|` allowed, `#` starting a
/// comment to the end of the line) is decoded as hex; other file or stdin contents are
/// taken as raw bytes.
pub(super) fn read_bytes(arg: &str) -> anyhow::Result<Vec<u8>> {
    let (raw, literal) = if arg == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .context("reading standard input")?;
        (v, false)
    } else if let Some(path) = arg.strip_prefix('@') {
        (
            std::fs::read(path).with_context(|| format!("reading {path}"))?,
            false,
        )
    } else {
        (arg.as_bytes().to_vec(), true)
    };
    if let Ok(text) = std::str::from_utf8(&raw) {
        let uncommented: String = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let t = uncommented.trim();
        let t = t.strip_prefix("0x").unwrap_or(t);
        if let Some(bytes) = from_hex(t) {
            return Ok(bytes);
        }
    }
    if literal {
        bail!("{arg:?} is not hex (use @FILE for a binary file, or - for standard input)");
    }
    Ok(raw)
}

/// Reads a text file, or standard input for `-`.
pub(super) fn read_text(arg: &str) -> anyhow::Result<String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        Ok(s)
    } else {
        std::fs::read_to_string(arg).with_context(|| format!("reading {arg}"))
    }
}
