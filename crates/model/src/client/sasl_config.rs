//! What a client's user configuration says about SASL ([`uses_sasl`], [`Sasl`]): pure data read
//! from the config, below both the client's state and its SASL step. It sends nothing.

use std::collections::BTreeMap;

use crate::config_def::ClientDefinitions;
use crate::profile::SpecProfile;
use crate::selection;

/// Whether a client with this user configuration authenticates with SASL on every connection:
/// `security.protocol` is `SASL_PLAINTEXT` or `SASL_SSL` (case-insensitive, as Kafka's
/// `SecurityProtocol.forName`). The one test of it: the client model and the emulated brokers
/// that answer it.
pub fn uses_sasl(user: &BTreeMap<String, String>) -> bool {
    user.get("security.protocol")
        .is_some_and(|p| p.trim().to_ascii_uppercase().starts_with("SASL_"))
}

/// The SASL exchange of a client that [`uses_sasl`]: its `sasl.mechanism` and the one token it
/// sends (PLAIN: `NUL username NUL password` from the `username="…"` and `password="…"` of
/// `sasl.jaas.config`; other mechanisms are not spoken, the same token goes out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sasl {
    pub(crate) mechanism: String,
    pub(crate) token: Vec<u8>,
}

impl Sasl {
    pub(super) fn from_config(
        defs: &ClientDefinitions,
        user: &BTreeMap<String, String>,
        p: &SpecProfile,
    ) -> Self {
        let mechanism = selection::effective_value(defs, user, p, "sasl.mechanism")
            .and_then(|(v, _)| v)
            .unwrap_or_default();
        let jaas = user.get("sasl.jaas.config").map_or("", String::as_str);
        let option = |name: &str| {
            let start = jaas.find(&format!("{name}=\""))? + name.len() + 2;
            let len = jaas[start..].find('"')?;
            Some(&jaas[start..start + len])
        };
        let mut token = vec![0];
        token.extend_from_slice(option("username").unwrap_or_default().as_bytes());
        token.push(0);
        token.extend_from_slice(option("password").unwrap_or_default().as_bytes());
        Self { mechanism, token }
    }
}
