//! The per-scenario files a `client-cmd:` client reads: `{config}`, a `client.properties` in
//! `java.util.Properties` syntax (keys sorted, escaped as `Properties.store` escapes them),
//! and `{profile}`, the scenario's spec profile as JSON. Timing-valued keys (`*.ms`) are
//! scaled by `--time-scale`. Pure text building, plus the temp directory the files live in
//! (removed when the session ends).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::model::{ClientType, SpecProfile};
use crate::scenario::types::serde_name;
use crate::scenario::ClientSetup;

/// The client type a scenario without `setup.client` runs (and the one a command without
/// `{config}` or `{client_type}` is assumed to be).
pub const ASSUMED_CLIENT_TYPE: ClientType = ClientType::Consumer;

/// `F` applied to one timing value: rounded, at least 1 (0 stays 0: "no wait" keeps its
/// meaning).
pub fn scale_ms(ms: u64, scale: f64) -> u64 {
    if ms == 0 {
        return 0;
    }
    let scaled = (ms as f64 * scale).round();
    if scaled < 1.0 {
        1
    } else if scaled >= u64::MAX as f64 {
        u64::MAX
    } else {
        scaled as u64
    }
}

/// True if `key` holds a duration in ms (`retry.backoff.ms`, `request.timeout.ms`, ...).
pub fn is_timing_key(key: &str) -> bool {
    crate::model::TIMELINE_CONFIG_KEYS.contains(&key)
}

pub use crate::model::TIMELINE_DEFAULT_PREFIX as DEFAULT_KEY_PREFIX;

/// The timing keys and values the client runs with when kipcheck does not write them: the
/// profile's defaults (`request.timeout.ms`, the backoffs, and the handshake deadline:
/// `max.block.ms` for a producer, `default.api.timeout.ms` for the others). Written
/// (scaled) only when `--time-scale` is not 1, so the client's own timeline is scaled too.
pub fn default_timing_keys(client_type: ClientType, profile: &SpecProfile) -> Vec<(&str, u64)> {
    let d = &profile.defaults;
    let deadline = match client_type {
        ClientType::Producer => ("max.block.ms", d.producer_max_block_ms),
        _ => ("default.api.timeout.ms", d.default_api_timeout_ms),
    };
    vec![
        ("retry.backoff.ms", d.retry_backoff_ms),
        ("retry.backoff.max.ms", d.retry_backoff_max_ms),
        ("request.timeout.ms", d.request_timeout_ms),
        deadline,
    ]
}

/// The client configuration kipcheck writes: the scenario's `setup.client.config` with every
/// timeline key ([`crate::model::TIMELINE_CONFIG_KEYS`]) scaled by `scale`, plus (when `scale`
/// is not 1) the timeline defaults the scenario does not set, scaled, under
/// [`DEFAULT_KEY_PREFIX`]. `kipcheck.client.*` and `bootstrap.servers` are not included.
pub fn scaled_client_config(
    client: Option<&ClientSetup>,
    profile: &SpecProfile,
    scale: f64,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let client_type = client.map_or(ASSUMED_CLIENT_TYPE, |c| c.client_type);
    if let Some(c) = client {
        for (k, v) in &c.config {
            let value = match v.trim().parse::<u64>() {
                Ok(ms) if is_timing_key(k) && scale != 1.0 => scale_ms(ms, scale).to_string(),
                _ => v.clone(),
            };
            out.insert(k.clone(), value);
        }
    }
    if scale != 1.0 {
        for (k, ms) in default_timing_keys(client_type, profile) {
            if !out.contains_key(k) {
                out.insert(
                    format!("{DEFAULT_KEY_PREFIX}{k}"),
                    scale_ms(ms, scale).to_string(),
                );
            }
        }
    }
    out
}

/// The keys whose value kipcheck writes differently from the scenario's own configuration
/// (scaled, or added) at `scale`: empty at 1.
pub fn rewritten_keys(
    client: Option<&ClientSetup>,
    profile: &SpecProfile,
    scale: f64,
) -> Vec<String> {
    let own = client.map(|c| &c.config);
    scaled_client_config(client, profile, scale)
        .into_iter()
        .filter(|(k, v)| {
            !k.starts_with(DEFAULT_KEY_PREFIX) && own.and_then(|c| c.get(k)) != Some(v)
        })
        .map(|(k, _)| k)
        .collect()
}

/// The `{config}` file: a comment line, then every key sorted, `key=value` escaped as
/// `java.util.Properties.store` does (non-ASCII characters are written as UTF-8, control
/// characters as `\uXXXX`).
pub fn client_properties(
    scenario_id: &str,
    seed: u64,
    client: Option<&ClientSetup>,
    bootstrap: &[String],
    profile: &SpecProfile,
    scale: f64,
) -> String {
    let mut keys = scaled_client_config(client, profile, scale);
    let client_type = client.map_or(ASSUMED_CLIENT_TYPE, |c| c.client_type);
    let embedded = client.is_some_and(|c| c.embedded);
    keys.insert("kipcheck.client.type".into(), serde_name(&client_type));
    keys.insert("kipcheck.client.embedded".into(), embedded.to_string());
    keys.insert("bootstrap.servers".into(), bootstrap.join(","));
    let comment: String = format!("kipcheck scenario {scenario_id} (seed {seed})")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out = format!("# {comment}\n");
    for (k, v) in &keys {
        out.push_str(&escape(k, true));
        out.push('=');
        out.push_str(&escape(v, false));
        out.push('\n');
    }
    out
}

/// `Properties.saveConvert`: `\`, `=`, `:`, `#`, `!` and the whitespace escapes; a space is
/// escaped everywhere in a key and only leading in a value.
fn escape(s: &str, key: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        match c {
            ' ' if i == 0 || key => out.push_str("\\ "),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x0c' => out.push_str("\\f"),
            '\\' | '=' | ':' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// A directory of its own under the system temp dir, removed (with its files) on drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `kipcheck-client-<pid>-<n>` under the system temp dir.
    pub fn new() -> std::io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("kipcheck-client-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path)?;
        // An absolute path, as the placeholders promise.
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        Ok(Self { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `name` in the directory; returns its path.
    pub fn write(&self, name: &str, text: &str) -> std::io::Result<PathBuf> {
        let p = self.path.join(name);
        std::fs::write(&p, text)?;
        Ok(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(t: ClientType, config: &[(&str, &str)]) -> ClientSetup {
        ClientSetup {
            client_type: t,
            config: config
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            embedded: false,
            connect: vec![1],
        }
    }

    #[test]
    fn properties_file_exact_bytes_sorted_and_escaped() {
        let c = client(
            ClientType::Admin,
            &[
                ("retry.backoff.ms", "250"),
                ("client.id", " lead sp=ace:#!\\ é\u{1}"),
                ("a key", "tab\there\nnl"),
            ],
        );
        let text = client_properties(
            "c1324-x",
            7,
            Some(&c),
            &["127.0.0.1:1".into(), "127.0.0.1:2".into()],
            &SpecProfile::default(),
            1.0,
        );
        assert_eq!(
            text,
            "# kipcheck scenario c1324-x (seed 7)\n\
             a\\ key=tab\\there\\nnl\n\
             bootstrap.servers=127.0.0.1\\:1,127.0.0.1\\:2\n\
             client.id=\\ lead sp\\=ace\\:\\#\\!\\\\ é\\u0001\n\
             kipcheck.client.embedded=false\n\
             kipcheck.client.type=admin\n\
             retry.backoff.ms=250\n"
        );
    }

    #[test]
    fn time_scale_scales_timing_keys_and_writes_the_default_ones() {
        let c = client(
            ClientType::Producer,
            &[
                ("retry.backoff.ms", "250"),
                ("linger.ms", "0"),
                ("delivery.timeout.ms", "3"),
                ("acks", "all"),
                ("bad.ms", "soon"),
            ],
        );
        let got = scaled_client_config(Some(&c), &SpecProfile::default(), 0.1);
        let want: BTreeMap<String, String> = [
            ("acks", "all"),
            ("bad.ms", "soon"),
            // Not a timeline key: as the scenario wrote it.
            ("delivery.timeout.ms", "3"),
            ("kipcheck.default.max.block.ms", "6000"),
            ("kipcheck.default.request.timeout.ms", "3000"),
            ("kipcheck.default.retry.backoff.max.ms", "100"),
            ("linger.ms", "0"),
            ("retry.backoff.ms", "25"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(got, want);
        assert_eq!(
            rewritten_keys(Some(&c), &SpecProfile::default(), 0.1),
            ["retry.backoff.ms"]
        );
        // At 1 nothing is added or changed.
        assert!(rewritten_keys(Some(&c), &SpecProfile::default(), 1.0).is_empty());
        let consumer = scaled_client_config(None, &SpecProfile::default(), 0.5);
        assert_eq!(
            consumer
                .get("kipcheck.default.default.api.timeout.ms")
                .map(String::as_str),
            Some("30000")
        );
    }

    #[test]
    fn scale_ms_rounds_and_keeps_at_least_one() {
        assert_eq!(scale_ms(0, 0.01), 0);
        assert_eq!(scale_ms(1, 0.01), 1);
        assert_eq!(scale_ms(149, 0.01), 1);
        assert_eq!(scale_ms(150, 0.01), 2);
        assert_eq!(scale_ms(60_000, 0.05), 3000);
        assert_eq!(scale_ms(u64::MAX, 1.0), u64::MAX);
    }

    #[test]
    fn temp_dir_is_removed_on_drop() {
        let d = TempDir::new().unwrap();
        let p = d.write("client.properties", "x=1\n").unwrap();
        assert!(p.is_absolute() && p.exists());
        let dir = d.path().to_owned();
        drop(d);
        assert!(!dir.exists());
    }
}
