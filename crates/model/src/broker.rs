//! The broker side of KIP-1324 and KIP-1326 as a sans-IO model: ApiVersions advertising,
//! PushConfig handling (decode → size check → entry checks → policy), and the static-config
//! report a broker sends in BrokerRegistrationRequest. It answers requests it is handed and
//! keeps an event log; it never opens connections, reads clocks or talks to a controller.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::api_versions::{api_versions_unsupported, handshake_api_versions};
use super::config_def::{ConfigType, ConfigValue};
use super::events::{Event, LoggedEvent, NodeId, PolicyConfig};
use super::faults::{Fault, Faults};
use super::profile::{
    BrokerEntryChecks, MvValidatorInclusion, PushConfigAuthorization, SizeMeasure, SpecProfile,
    UnadvertisedPushConfigReply,
};
use super::server_config::{ConfigCheckFailure, ServerConfigDefs};
use super::time::Millis;
use kipcheck_codec::broker_registration_request::{Feature, Listener, StaticConfig};
use kipcheck_codec::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, BrokerRegistrationRequest, ErrorCode, Message,
    PushConfigRequest, PushConfigResponse, ResponseBody, Uuid,
};

/// What the configured `ClientConfigPolicy` does with a push.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[derive(schemars::JsonSchema)]
pub enum PolicyVerdict {
    /// `process` returns normally.
    Accept,
    /// `process` throws `InvalidConfigException(message)` → INVALID_CONFIG.
    Reject {
        /// The exception message, returned as ErrorMessage.
        message: String,
    },
    /// `process` throws an exception that is not the KIP's rejection (a bug in the policy, a
    /// `RuntimeException`). The KIP says nothing of it; the reference answers as Kafka does
    /// for any unexpected exception and as the KIP-CFG prototype does: UNKNOWN_SERVER_ERROR,
    /// the connection kept.
    Fail {
        /// The exception message.
        message: String,
    },
}

/// How a broker is set up. Loadable from YAML (absent fields take [`BrokerSettings::new`]`(0)`'s
/// values) so scenarios can declare brokers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrokerSettings {
    /// `node.id`.
    pub node_id: NodeId,
    /// The cluster id sent at registration.
    pub cluster_id: String,
    /// `client.config.policy.class.name`: `None` disables KIP-1324 on this broker.
    pub policy: Option<PolicyVerdict>,
    /// `client.config.max.bytes`; `None` takes the profile default.
    pub client_config_max_bytes: Option<u32>,
    /// ThrottleTimeMs put in every PushConfig response.
    pub throttle_time_ms: i32,
    /// Explicit values from server.properties.
    pub server_properties: BTreeMap<String, String>,
    /// The broker's config definitions.
    pub defs: ServerConfigDefs,
    /// metadata.version levels this broker supports (min, max).
    pub metadata_version_range: (i16, i16),
    /// Whether the pushing client's principal holds CLUSTER_ACTION on the cluster (judged
    /// only under the `cluster_action` reading of `push_config_authorization`).
    pub client_cluster_action: bool,
}

impl Default for BrokerSettings {
    fn default() -> Self {
        Self::new(0)
    }
}

impl BrokerSettings {
    /// A broker with a policy that accepts everything, default limits and definitions.
    pub fn new(node_id: NodeId) -> Self {
        Self {
            node_id,
            cluster_id: "kipcheck-cluster".into(),
            policy: Some(PolicyVerdict::Accept),
            client_config_max_bytes: None,
            throttle_time_ms: 0,
            server_properties: BTreeMap::new(),
            defs: ServerConfigDefs::default(),
            metadata_version_range: (1, 40),
            client_cluster_action: true,
        }
    }
}

/// A broker configuration the model refuses to start with (Kafka would throw ConfigException).
#[derive(Debug, thiserror::Error)]
pub enum BrokerConfigError {
    /// A server.properties value fails its type or static validator.
    #[error("server.properties: {0}")]
    InvalidStaticConfig(#[from] ConfigCheckFailure),
}

/// A request as the broker receives it: wire API key, version, encoded body (after the header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerRequest {
    /// The API key on the wire (PushConfig's is the profile's provisional number).
    pub api_key: ApiKey,
    /// The request version.
    pub api_version: i16,
    /// The encoded body.
    pub body: Vec<u8>,
}

/// What the broker does with a request.
#[derive(Clone, Debug, PartialEq)]
pub enum BrokerReply {
    /// Send this response.
    Response {
        /// Wire API key of the response.
        api_key: ApiKey,
        /// Response version.
        api_version: i16,
        /// The body.
        body: ResponseBody,
        /// Close the connection once the response is sent (only a faulty variant does).
        then_close: bool,
    },
    /// Close the connection without a response.
    Close {
        /// Why.
        reason: String,
    },
}

/// The broker model.
#[derive(Clone, Debug)]
pub struct BrokerModel {
    pub(super) settings: BrokerSettings,
    pub(super) profile: SpecProfile,
    pub(super) events: Vec<LoggedEvent>,
    pub(super) policy_invocations: u64,
    pub(super) size_rejections: u64,
    pub(super) faults: Faults,
}

impl BrokerModel {
    /// A broker; fails if a server.properties value is invalid for its definition.
    pub fn new(settings: BrokerSettings, profile: &SpecProfile) -> Result<Self, BrokerConfigError> {
        for (name, value) in &settings.server_properties {
            if let Some(key) = settings.defs.broker.get(name) {
                ServerConfigDefs::check_static(name, key, value)?;
            }
        }
        Ok(Self {
            settings,
            profile: profile.clone(),
            events: Vec::new(),
            policy_invocations: 0,
            size_rejections: 0,
            faults: Faults::none(),
        })
    }

    /// The same broker with `faults` (a faulty variant; [`Faults::none`] is the reference).
    pub fn with_faults(mut self, faults: Faults) -> Self {
        self.faults = faults;
        self
    }

    /// The settings.
    pub fn settings(&self) -> &BrokerSettings {
        &self.settings
    }

    /// Replaces the policy verdict (`None` removes the policy: PushConfig no longer advertised).
    pub fn set_policy(&mut self, policy: Option<PolicyVerdict>) {
        self.settings.policy = policy;
    }

    /// Sets the ThrottleTimeMs of later PushConfig responses.
    pub fn set_throttle_time_ms(&mut self, ms: i32) {
        self.settings.throttle_time_ms = ms;
    }

    /// Every decision so far.
    pub fn events(&self) -> &[LoggedEvent] {
        &self.events
    }

    /// How often the policy was invoked.
    pub fn policy_invocations(&self) -> u64 {
        self.policy_invocations
    }

    /// True iff a policy is configured (KIP-1324: then and only then PushConfig is advertised).
    pub fn advertises_push_config(&self) -> bool {
        self.settings.policy.is_some() || self.faults.has(Fault::AdvertisesWithoutPolicy)
    }

    /// `client.config.max.bytes` in force.
    pub fn max_bytes(&self) -> u32 {
        self.settings
            .client_config_max_bytes
            .unwrap_or(self.profile.defaults.client_config_max_bytes)
    }

    fn log(&mut self, at: Millis, event: Event) {
        self.events.push(LoggedEvent { at, event });
    }

    /// The ApiVersions response body (latest version's fields): ApiVersions at every version
    /// it answers, and PushConfig 0-0 under its provisional wire key iff a policy is
    /// configured ([`handshake_api_versions`], the list every emulated node starts from).
    pub fn api_versions_response(&self) -> ApiVersionsResponse {
        let push = self
            .advertises_push_config()
            .then_some(self.profile.provisional.push_config_api_key);
        ApiVersionsResponse {
            error_code: 0,
            api_keys: handshake_api_versions(push),
            throttle_time_ms: Some(0),
            ..Default::default()
        }
    }

    /// Handles one request from the wire.
    pub fn handle_request(&mut self, now: Millis, req: &BrokerRequest) -> BrokerReply {
        self.handle_framed_request(now, req, 0)
    }

    /// [`handle_request`](Self::handle_request) for a request whose header took `header_len`
    /// bytes on the wire (no size measure counts them; a faulty variant does).
    pub fn handle_framed_request(
        &mut self,
        now: Millis,
        req: &BrokerRequest,
        header_len: usize,
    ) -> BrokerReply {
        let canonical = self.profile.provisional.canonical_api_key(req.api_key);
        if canonical == ApiKey::API_VERSIONS {
            return self.handle_api_versions(now, req);
        }
        if canonical != ApiKey::PUSH_CONFIG {
            return self.close(now, format!("unsupported API key {}", req.api_key.0));
        }
        if !self.advertises_push_config() {
            return match self.profile.unadvertised_push_config {
                UnadvertisedPushConfigReply::Close => self.close(
                    now,
                    "PushConfig is not enabled (no policy configured)".into(),
                ),
                UnadvertisedPushConfigReply::UnsupportedVersion => {
                    let message = "PushConfig is not enabled (no policy configured)".to_string();
                    self.log(
                        now,
                        Event::PushConfigRejected {
                            error_code: ErrorCode::UNSUPPORTED_VERSION,
                            message: message.clone(),
                            policy_called: false,
                        },
                    );
                    self.push_reply(
                        req.api_version,
                        ErrorCode::UNSUPPORTED_VERSION,
                        Some(message),
                        0,
                    )
                }
            };
        }
        if !PushConfigRequest::VALID_VERSIONS.contains(req.api_version) {
            return self.close(
                now,
                format!("PushConfig version {} unsupported", req.api_version),
            );
        }
        let decoded = match PushConfigRequest::from_bytes(&req.body, req.api_version) {
            Ok(d) => d,
            Err(e) => return self.close(now, format!("PushConfig decode error: {e}")),
        };
        let counted = if self.faults.has(Fault::SizeCountsHeader) {
            header_len
        } else {
            0
        };
        let resp = self.handle_push_config_sized(now, &decoded, req.body.len(), counted);
        let then_close = resp.error_code != 0 && self.faults.has(Fault::ClosesAfterErrorResponse);
        BrokerReply::Response {
            api_key: req.api_key,
            api_version: req.api_version,
            body: ResponseBody::PushConfig(resp),
            then_close,
        }
    }

    fn handle_api_versions(&mut self, now: Millis, req: &BrokerRequest) -> BrokerReply {
        if !ApiVersionsRequest::VALID_VERSIONS.contains(req.api_version) {
            // KIP-511: answer in the v0 layout with UNSUPPORTED_VERSION.
            let body = api_versions_unsupported(self.api_versions_response());
            return BrokerReply::Response {
                api_key: ApiKey::API_VERSIONS,
                api_version: 0,
                body: ResponseBody::ApiVersions(body),
                then_close: false,
            };
        }
        if let Err(e) = ApiVersionsRequest::from_bytes(&req.body, req.api_version) {
            return self.close(now, format!("ApiVersions decode error: {e}"));
        }
        let push_config_advertised = self.advertises_push_config();
        self.log(
            now,
            Event::ApiVersionsAnswered {
                version: req.api_version,
                push_config_advertised,
            },
        );
        BrokerReply::Response {
            api_key: ApiKey::API_VERSIONS,
            api_version: req.api_version,
            body: ResponseBody::ApiVersions(self.api_versions_response().project(req.api_version)),
            then_close: false,
        }
    }

    fn close(&mut self, now: Millis, reason: String) -> BrokerReply {
        self.log(
            now,
            Event::ConnectionClosed {
                reason: reason.clone(),
            },
        );
        BrokerReply::Close { reason }
    }

    fn push_reply(
        &self,
        version: i16,
        code: ErrorCode,
        message: Option<String>,
        throttle: i32,
    ) -> BrokerReply {
        BrokerReply::Response {
            api_key: self.profile.provisional.push_config_api_key,
            api_version: version,
            body: ResponseBody::PushConfig(PushConfigResponse {
                throttle_time_ms: throttle,
                error_code: self.profile.provisional.wire_error(code).0,
                error_message: message.map(Into::into),
                ..Default::default()
            }),
            then_close: false,
        }
    }

    /// Handles an already-decoded PushConfig (the broker advertises it), measuring its
    /// canonical encoding. Error codes in the response are wire codes.
    pub fn handle_push_config(
        &mut self,
        now: Millis,
        req: &PushConfigRequest,
    ) -> PushConfigResponse {
        let body_len = req.encoded_len(0).unwrap_or(usize::MAX);
        self.handle_push_config_sized(now, req, body_len, 0)
    }

    fn handle_push_config_sized(
        &mut self,
        now: Millis,
        req: &PushConfigRequest,
        body_len: usize,
        header_len: usize,
    ) -> PushConfigResponse {
        let mut size = measure(self.profile.size_measure, req, body_len) + header_len;
        if self.faults.has(Fault::MeasuresFramePrefix) {
            size += 4;
        }
        let max = self.max_bytes();
        self.log(
            now,
            Event::PushConfigReceived {
                size,
                max_bytes: max,
            },
        );
        let throttle = if self.faults.has(Fault::DropsThrottleTime) {
            0
        } else {
            self.settings.throttle_time_ms
        };
        let reject = |this: &mut Self, code: ErrorCode, message: String, policy_called: bool| {
            let code = if code == ErrorCode::INVALID_CONFIG
                && this
                    .faults
                    .has(Fault::PolicyViolationInsteadOfInvalidConfig)
            {
                ErrorCode::POLICY_VIOLATION
            } else {
                code
            };
            this.log(
                now,
                Event::PushConfigRejected {
                    error_code: code,
                    message: message.clone(),
                    policy_called,
                },
            );
            PushConfigResponse {
                throttle_time_ms: throttle,
                error_code: this.profile.provisional.wire_error(code).0,
                error_message: Some(message.into()),
                ..Default::default()
            }
        };
        if self.profile.push_config_authorization == PushConfigAuthorization::ClusterAction
            && !self.settings.client_cluster_action
        {
            let message = "PushConfig needs CLUSTER_ACTION on the cluster".to_string();
            return reject(
                self,
                ErrorCode::CLUSTER_AUTHORIZATION_FAILED,
                message,
                false,
            );
        }
        let too_large = if self.faults.has(Fault::NoSizeCheck) {
            false
        } else if self.faults.has(Fault::SizeLimitInclusive) {
            size >= max as usize
        } else {
            size > max as usize
        };
        let size_after_policy = self.faults.has(Fault::SizeCheckAfterPolicy);
        let size_msg =
            format!("PushConfig request of {size} bytes exceeds client.config.max.bytes ({max})");
        if too_large && !size_after_policy {
            self.size_rejections += 1;
            return reject(self, ErrorCode::CONFIG_TOO_LARGE, size_msg, false);
        }
        let numbering = if self.faults.has(Fault::BrokerOlderTypeNumbering) {
            super::config_def::ConfigTypeNumbering::OlderKipEnum
        } else {
            self.profile.config_type_numbering
        };
        if req.configs.is_empty() && self.faults.has(Fault::RefusesEmptyConfigs) {
            let message = "PushConfig request has no Configs".to_string();
            return reject(self, ErrorCode::INVALID_CONFIG, message, false);
        }
        let mut configs = Vec::with_capacity(req.configs.len());
        for c in &req.configs {
            match check_entry(numbering, self.profile.broker_entry_checks, &self.faults, c) {
                Ok(pc)
                    if self.faults.has(Fault::DropsSensitiveEntries)
                        && matches!(pc.ty, ConfigType::Class | ConfigType::Password) => {}
                Ok(pc) => configs.push(pc),
                Err(refusal) => {
                    return reject(self, ErrorCode::INVALID_CONFIG, refusal.to_string(), false)
                }
            }
        }
        self.policy_invocations += 1;
        self.log(
            now,
            Event::PolicyInvoked {
                configs,
                timestamp: now,
            },
        );
        if too_large {
            self.size_rejections += 1;
            return reject(self, ErrorCode::CONFIG_TOO_LARGE, size_msg, true);
        }
        match self.settings.policy.clone() {
            Some(PolicyVerdict::Reject { message }) => {
                let mut resp = reject(self, ErrorCode::INVALID_CONFIG, message, true);
                if self.faults.has(Fault::DropsPolicyMessage) {
                    resp.error_message = None;
                }
                resp
            }
            Some(PolicyVerdict::Fail { message }) => reject(
                self,
                ErrorCode::UNKNOWN_SERVER_ERROR,
                format!("the client config policy failed: {message}"),
                true,
            ),
            _ => {
                self.log(
                    now,
                    Event::PushConfigAccepted {
                        throttle_time_ms: throttle,
                    },
                );
                PushConfigResponse {
                    throttle_time_ms: throttle,
                    ..Default::default()
                }
            }
        }
    }

    /// True if KIP-1294 MV validators count as "a Validator" for KIP-1326 inclusion here.
    pub(super) fn mv_validators_count(&self) -> bool {
        self.profile.mv_validator_inclusion == MvValidatorInclusion::Counts
    }

    /// KIP-1326's StaticConfigs, sorted by name: every definition with a validator, policy
    /// not NEVER and type not PASSWORD, with its effective value (server.properties, else the
    /// default) rendered by `convertToString`. Keys whose effective value is null are omitted
    /// (kip-notes §6 B3: conforming brokers send no nulls).
    pub fn static_configs(&self) -> Vec<StaticConfig> {
        self.settings
            .defs
            .broker
            .iter()
            .filter(|(_, key)| key.is_reported_with(&self.faults, self.mv_validators_count()))
            .filter_map(|(name, key)| {
                if key.ty == ConfigType::Password && self.faults.has(Fault::ReportsPasswordAsNull) {
                    return Some(StaticConfig {
                        name: name.as_str().into(),
                        value: None,
                        ..Default::default()
                    });
                }
                let explicit = self.settings.server_properties.get(name).cloned();
                let raw = if self.faults.has(Fault::ReportsOnlyExplicitConfigs) {
                    explicit?
                } else {
                    explicit.or_else(|| key.default.clone())?
                };
                let parsed = ConfigValue::parse(key.ty, &raw).ok()?;
                let value = match parsed {
                    // Java's `String.valueOf(List)` is `AbstractCollection.toString`.
                    ConfigValue::List(items)
                        if self.faults.has(Fault::StaticConfigsStringValueOf) =>
                    {
                        format!("[{}]", items.join(", "))
                    }
                    parsed => parsed.convert_to_string(),
                };
                Some(StaticConfig {
                    name: name.as_str().into(),
                    value: Some(value.into()),
                    ..Default::default()
                })
            })
            .collect()
    }

    /// The BrokerRegistrationRequest this broker sends to a controller that supports versions
    /// up to `controller_max_version`: the highest common version (≤ 6), StaticConfigs only if
    /// that version is at least the profile's first StaticConfigs version.
    pub fn registration_request(
        &self,
        controller_max_version: i16,
    ) -> (i16, BrokerRegistrationRequest) {
        let version =
            controller_max_version.clamp(0, BrokerRegistrationRequest::VALID_VERSIONS.max);
        let mut incarnation = [0u8; 16];
        incarnation[12..].copy_from_slice(&self.settings.node_id.to_be_bytes());
        incarnation[0] = 0x4b;
        let static_configs = if version >= self.profile.first_static_configs_version {
            Some(self.static_configs())
        } else {
            None
        };
        let req = BrokerRegistrationRequest {
            broker_id: self.settings.node_id,
            cluster_id: self.settings.cluster_id.as_str().into(),
            incarnation_id: Uuid(incarnation),
            listeners: vec![Listener {
                name: "PLAINTEXT".into(),
                host: "localhost".into(),
                port: 9092u16.wrapping_add(self.settings.node_id as u16),
                security_protocol: 0,
                ..Default::default()
            }],
            features: vec![Feature {
                name: "metadata.version".into(),
                min_supported_version: self.settings.metadata_version_range.0,
                max_supported_version: self.settings.metadata_version_range.1,
                ..Default::default()
            }],
            static_configs,
            ..Default::default()
        };
        let mut projected = req.project(version);
        if version < self.profile.first_static_configs_version {
            projected.static_configs = None;
        }
        (version, projected)
    }
}

/// The size of a decoded PushConfig under `m`; `body_len` is the received body length.
pub fn measure(m: SizeMeasure, req: &PushConfigRequest, body_len: usize) -> usize {
    match m {
        SizeMeasure::RequestBody => body_len,
        SizeMeasure::ConfigsArray => {
            let tags_only = PushConfigRequest {
                configs: Vec::new(),
                unknown_tagged_fields: req.unknown_tagged_fields.clone(),
            };
            // An empty compact array is one byte; the rest is the tagged-field section.
            let tag_len = tags_only.encoded_len(0).unwrap_or(1).saturating_sub(1);
            body_len.saturating_sub(tag_len)
        }
        SizeMeasure::KeyValueBytes => key_value_bytes(req),
    }
}

/// The `key_value_bytes` measure: the UTF-8 byte lengths of `ConfigKey` and `ConfigValue`
/// summed over the entries de-duplicated by key, a repeated key counting once at its last
/// value (a Java map's `put`). Nothing else of the encoding counts.
pub fn key_value_bytes(req: &PushConfigRequest) -> usize {
    let mut last: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &req.configs {
        last.insert(c.config_key.as_str(), c.config_value.len());
    }
    last.iter().fold(0usize, |sum, (k, v)| {
        sum.saturating_add(k.len()).saturating_add(*v)
    })
}

/// Why the broker refuses a PushConfig entry before the policy sees it (the text is the
/// response's ErrorMessage).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryRefusal {
    /// A ConfigType number the numbering in force does not define.
    #[error("Config entry '{key}' has unknown ConfigType {config_type}")]
    UnknownType {
        /// The entry's key.
        key: String,
        /// The number on the wire.
        config_type: i8,
    },
    /// A CLASS or PASSWORD entry (broker-side refusal reading).
    #[error("Config entry '{key}' has sensitive ConfigType {ty} and must not be sent")]
    SensitiveType {
        /// The entry's key.
        key: String,
        /// Its type.
        ty: ConfigType,
    },
    /// A value that does not parse as its type (broker-side refusal reading).
    #[error("Config entry '{key}' value '{value}' cannot be parsed as {ty}")]
    Unparsable {
        /// The entry's key.
        key: String,
        /// The value as sent.
        value: String,
        /// The declared type.
        ty: ConfigType,
    },
}

/// Checks one entry and builds what the policy receives. An unknown ConfigType is always
/// refused (there is no `ConfigDef.Type` to hand the policy). Under
/// [`BrokerEntryChecks::Broker`] CLASS/PASSWORD entries and values that do not parse as their
/// type are refused too; under [`BrokerEntryChecks::Policy`] they reach the policy, an
/// unparsable value as its raw text (`ConfigValue::String`) with the declared type.
fn check_entry(
    numbering: super::config_def::ConfigTypeNumbering,
    checks: BrokerEntryChecks,
    faults: &Faults,
    c: &kipcheck_codec::push_config_request::Config,
) -> Result<PolicyConfig, EntryRefusal> {
    let Some(ty) = numbering.from_wire(c.config_type) else {
        return Err(EntryRefusal::UnknownType {
            key: c.config_key.to_string(),
            config_type: c.config_type,
        });
    };
    let broker_checks = checks == BrokerEntryChecks::Broker;
    if broker_checks
        && !faults.has(Fault::AcceptsSensitiveTypes)
        && matches!(ty, ConfigType::Class | ConfigType::Password)
    {
        return Err(EntryRefusal::SensitiveType {
            key: c.config_key.to_string(),
            ty,
        });
    }
    let value = match ConfigValue::parse(ty, &c.config_value) {
        Ok(v) => v,
        Err(_) if !broker_checks || faults.has(Fault::SkipsValueParsing) => {
            ConfigValue::String(c.config_value.to_string())
        }
        Err(_) => {
            return Err(EntryRefusal::Unparsable {
                key: c.config_key.to_string(),
                value: c.config_value.to_string(),
                ty,
            })
        }
    };
    Ok(PolicyConfig {
        key: c.config_key.to_string(),
        value,
        ty,
        is_default: c.is_default,
    })
}
