//! `kipcheck client`: the reference client model ([`crate::model::ClientModel`]) on real
//! sockets and a real clock — the live counterpart of `kipcheck serve`, and the program
//! kipcheck's own `client-cmd:` target runs so that the live path is tested end to end.
//!
//! - [`properties`]: the `client.properties` reader (`java.util.Properties` rules).
//! - [`ClientSetup`]: what the properties file says (kipcheck's `kipcheck.client.*` keys,
//!   `bootstrap.servers`, the user configuration the model gets).
//! - [`driver`]: the async loop (tokio): connections, frames, the model's timers on the
//!   wall clock, user requests in and releases out.
//!
//! The model stays pure: this module only feeds it inputs with the wall-clock time and
//! performs the outputs. It judges nothing.

pub mod driver;
pub mod properties;

use crate::faulty::Fault;
use std::collections::BTreeMap;

pub use driver::{run_client, run_client_styled, ConnectionStyle, Control, LiveOptions, Report};
pub use properties::{parse_properties, PropertiesError};

use crate::model::{ClientConfigError, ClientType, SpecProfile};

/// The key naming the client type (values: the scenario `ClientType` serde names).
pub const CLIENT_TYPE_KEY: &str = "kipcheck.client.type";
/// The key saying whether the client is embedded in Kafka Streams (`true`/`false`).
pub const EMBEDDED_KEY: &str = "kipcheck.client.embedded";
/// The prefix of kipcheck's own keys (never client configuration).
pub const KIPCHECK_PREFIX: &str = "kipcheck.";
/// The bootstrap list key.
pub const BOOTSTRAP_KEY: &str = "bootstrap.servers";

/// Why the live client cannot start or run.
#[derive(Debug, thiserror::Error)]
pub enum LiveClientError {
    /// The properties file is not valid properties text.
    #[error("{path}: {source}")]
    Properties {
        /// The file.
        path: String,
        /// What is wrong.
        source: PropertiesError,
    },
    /// `kipcheck.client.type` is missing.
    #[error("the configuration has no {CLIENT_TYPE_KEY}")]
    NoClientType,
    /// `kipcheck.client.type` names no client type.
    #[error("{CLIENT_TYPE_KEY}={value:?}: expected producer, consumer, admin, share_consumer or streams")]
    UnknownClientType {
        /// The value.
        value: String,
    },
    /// `kipcheck.client.embedded` is not `true` or `false`.
    #[error("{EMBEDDED_KEY}={value:?}: expected true or false")]
    BadEmbedded {
        /// The value.
        value: String,
    },
    /// Neither `bootstrap.servers` nor `--bootstrap` gives an address.
    #[error("no bootstrap address (bootstrap.servers or --bootstrap)")]
    NoBootstrap,
    /// The model refuses the configuration (Kafka: a ConfigException in the constructor).
    #[error("client configuration: {0}")]
    Config(#[from] ClientConfigError),
    /// `--fault` names no client fault.
    #[error("unknown client fault {name:?} (client faults: {known})")]
    UnknownFault {
        /// The name given.
        name: String,
        /// Every client fault name, comma-separated.
        known: String,
    },
}

/// What the properties file describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSetup {
    /// The client type.
    pub client_type: ClientType,
    /// Embedded in Kafka Streams (no handshake of its own).
    pub embedded: bool,
    /// `bootstrap.servers`, in order (`host:port` each).
    pub bootstrap: Vec<String>,
    /// The user configuration the model gets: every key but `kipcheck.*` and
    /// `bootstrap.servers` (which the reference model is never given either).
    pub user_config: BTreeMap<String, String>,
    /// Timing defaults kipcheck wrote (`kipcheck.default.KEY`, prefix removed): the client
    /// runs with them as its defaults without treating them as user-set.
    pub timing_defaults: BTreeMap<String, String>,
}

impl ClientSetup {
    /// Reads the setup from parsed properties; `fallback_bootstrap` (`--bootstrap`) is used
    /// when `bootstrap.servers` is absent or empty.
    pub fn from_properties(
        props: &BTreeMap<String, String>,
        fallback_bootstrap: Option<&str>,
    ) -> Result<Self, LiveClientError> {
        let ty = props
            .get(CLIENT_TYPE_KEY)
            .ok_or(LiveClientError::NoClientType)?;
        let client_type: ClientType =
            serde_json::from_value(serde_json::Value::String(ty.trim().to_owned()))
                .map_err(|_| LiveClientError::UnknownClientType { value: ty.clone() })?;
        let embedded = match props.get(EMBEDDED_KEY).map(|v| v.trim()) {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(LiveClientError::BadEmbedded {
                    value: other.to_owned(),
                })
            }
        };
        let mut bootstrap: Vec<String> = props
            .get(BOOTSTRAP_KEY)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if bootstrap.is_empty() {
            bootstrap.extend(fallback_bootstrap.map(str::to_owned));
        }
        if bootstrap.is_empty() {
            return Err(LiveClientError::NoBootstrap);
        }
        let user_config = props
            .iter()
            .filter(|(k, _)| !k.starts_with(KIPCHECK_PREFIX) && k.as_str() != BOOTSTRAP_KEY)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let timing_defaults = props
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(DEFAULT_KEY_PREFIX)?.to_owned(), v.clone())))
            .collect();
        Ok(Self {
            client_type,
            embedded,
            bootstrap,
            user_config,
            timing_defaults,
        })
    }
}

/// The built-in faulty variants that live in the client model (their bug line starts with
/// `Client:`), in [`Fault::ALL`] order.
pub fn client_faults() -> Vec<Fault> {
    Fault::ALL
        .iter()
        .copied()
        .filter(|f| f.bug().starts_with("Client:"))
        .collect()
}

/// The client fault named `name`.
pub fn client_fault(name: &str) -> Result<Fault, LiveClientError> {
    client_faults()
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| LiveClientError::UnknownFault {
            name: name.to_owned(),
            known: client_faults()
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The timing keys a configuration can set, each with the profile default it stands for.
use crate::model::TIMELINE_CONFIG_KEYS as TIMING_KEYS;

use crate::model::TIMELINE_DEFAULT_PREFIX as DEFAULT_KEY_PREFIX;

/// The profile with its timing defaults replaced by the configuration's timing keys (a whole
/// number of ms each). For a key the client type defines, the model takes the configured value
/// anyway; for one it does not (a Streams application has no `default.api.timeout.ms` of its
/// own, yet its embedded clients run with it), the configured value is the timing the client
/// runs with — so a timeline that kipcheck scales through `{config}` is scaled for every type.
pub fn configured_timings(profile: &SpecProfile, user: &BTreeMap<String, String>) -> SpecProfile {
    let mut p = profile.clone();
    for key in TIMING_KEYS {
        let Some(ms) = user.get(key).and_then(|v| v.trim().parse::<u64>().ok()) else {
            continue;
        };
        let d = &mut p.defaults;
        let slot = match key {
            "retry.backoff.ms" => &mut d.retry_backoff_ms,
            "retry.backoff.max.ms" => &mut d.retry_backoff_max_ms,
            "request.timeout.ms" => &mut d.request_timeout_ms,
            "default.api.timeout.ms" => &mut d.default_api_timeout_ms,
            _ => &mut d.producer_max_block_ms,
        };
        *slot = ms;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(text: &str) -> BTreeMap<String, String> {
        parse_properties(text).unwrap()
    }

    #[test]
    fn setup_from_the_contract_file() {
        let p = props(
            "# kipcheck scenario s (seed 7)\nbootstrap.servers=127.0.0.1:1,127.0.0.1:2\ngroup.id=g\nkipcheck.client.embedded=true\nkipcheck.client.type=share_consumer\nkipcheck.future=x\n",
        );
        let s = ClientSetup::from_properties(&p, Some("127.0.0.1:9")).unwrap();
        assert_eq!(s.client_type, ClientType::ShareConsumer);
        assert!(s.embedded);
        assert_eq!(s.bootstrap, vec!["127.0.0.1:1", "127.0.0.1:2"]);
        assert_eq!(
            s.user_config,
            BTreeMap::from([("group.id".to_owned(), "g".to_owned())])
        );
    }

    #[test]
    fn setup_errors() {
        let e = ClientSetup::from_properties(&props("a=1"), Some("h:1")).unwrap_err();
        assert!(matches!(e, LiveClientError::NoClientType));
        let e = ClientSetup::from_properties(&props("kipcheck.client.type=Producer"), None)
            .unwrap_err();
        assert!(matches!(e, LiveClientError::UnknownClientType { value } if value == "Producer"));
        let e = ClientSetup::from_properties(
            &props("kipcheck.client.type=admin\nkipcheck.client.embedded=yes"),
            None,
        )
        .unwrap_err();
        assert!(matches!(e, LiveClientError::BadEmbedded { value } if value == "yes"));
        let e =
            ClientSetup::from_properties(&props("kipcheck.client.type=admin"), None).unwrap_err();
        assert!(matches!(e, LiveClientError::NoBootstrap));
        let s = ClientSetup::from_properties(&props("kipcheck.client.type=admin"), Some("h:1"))
            .unwrap();
        assert_eq!(s.bootstrap, vec!["h:1"]);
        assert!(!s.embedded);
    }

    #[test]
    fn control_lines() {
        assert_eq!(
            Control::parse("user_request 7"),
            Some(Control::UserRequest(7))
        );
        assert_eq!(
            Control::parse("user_request 18446744073709551615\r"),
            Some(Control::UserRequest(u64::MAX))
        );
        assert_eq!(
            Control::parse("connect 2 127.0.0.1:9092"),
            Some(Control::Connect {
                node: 2,
                addr: "127.0.0.1:9092".into()
            })
        );
        assert_eq!(
            Control::parse(" connect -1 h:1 \r"),
            Some(Control::Connect {
                node: -1,
                addr: "h:1".into()
            })
        );
        for bad in [
            "user_request -1",
            "user_request",
            "user_request 1 2",
            "release 1",
            "connect 2",
            "connect x h:1",
            "connect 1 h:1 extra",
            "",
        ] {
            assert_eq!(Control::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn client_faults_are_the_client_ones() {
        let names: Vec<&str> = client_faults().iter().map(|f| f.name()).collect();
        assert!(names.contains(&"ignores-throttle"));
        assert!(names.contains(&"blocks-past-deadline"));
        assert!(!names.contains(&"no-size-check"));
        assert_eq!(client_fault("no-backoff-cap").unwrap(), Fault::NoBackoffCap);
        assert!(matches!(
            client_fault("no-size-check"),
            Err(LiveClientError::UnknownFault { name, .. }) if name == "no-size-check"
        ));
    }

    #[test]
    fn configured_timing_keys_replace_the_profile_defaults() {
        let user = BTreeMap::from([
            ("default.api.timeout.ms".to_owned(), "6000".to_owned()),
            ("max.block.ms".to_owned(), " 700 ".to_owned()),
            ("request.timeout.ms".to_owned(), "-1".to_owned()),
            ("group.id".to_owned(), "9".to_owned()),
        ]);
        let p = configured_timings(&SpecProfile::default(), &user);
        let mut want = SpecProfile::default();
        want.defaults.default_api_timeout_ms = 6000;
        want.defaults.producer_max_block_ms = 700;
        assert_eq!(p, want);
        assert_eq!(
            configured_timings(&SpecProfile::default(), &BTreeMap::new()),
            SpecProfile::default()
        );
    }
}
