//! PushConfig on the broker: the size under the profile's measure against
//! `client.config.max.bytes`, the per-entry checks before the policy ([`EntryRefusal`]), the
//! policy's verdict, and the response with its wire error code. It decodes no frame (see
//! `requests`).

use std::collections::BTreeMap;

use super::settings::{BrokerReply, PolicyVerdict};
use super::state::BrokerModel;
use crate::config_def::{ConfigType, ConfigValue};
use crate::decisions::BrokerDecisions;
use crate::events::{Event, PolicyConfig};
use crate::profile::{BrokerEntryChecks, PushConfigAuthorization, SizeMeasure};
use crate::time::Millis;
use kipcheck_codec::{ErrorCode, Message, PushConfigRequest, PushConfigResponse, ResponseBody};

impl BrokerModel {
    pub(super) fn push_reply(
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

    /// A PushConfig the broker advertises, decoded from a body of `body_len` bytes under a
    /// request header of `header_len`. Error codes in the response are wire codes.
    pub(super) fn handle_push_config_sized(
        &mut self,
        now: Millis,
        req: &PushConfigRequest,
        body_len: usize,
        header_len: usize,
    ) -> PushConfigResponse {
        let measured = measure(self.profile.size_measure, req, body_len);
        let size = self
            .decisions
            .push_size(measured, header_len, FRAME_SIZE_PREFIX_LEN);
        let max = self.max_bytes();
        self.log(
            now,
            Event::PushConfigReceived {
                size,
                max_bytes: max,
            },
        );
        let throttle = self
            .decisions
            .response_throttle_ms(self.settings.throttle_time_ms);
        let reject = |this: &mut Self, code: ErrorCode, message: String, policy_called: bool| {
            let code = this.decisions.push_error_code(code);
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
        let too_large = self.decisions.exceeds_max_bytes(size, max);
        let size_after_policy = !self.decisions.checks_size_before_policy();
        let size_msg =
            format!("PushConfig request of {size} bytes exceeds client.config.max.bytes ({max})");
        if too_large && !size_after_policy {
            self.size_rejections += 1;
            return reject(self, ErrorCode::CONFIG_TOO_LARGE, size_msg, false);
        }
        let numbering = self
            .decisions
            .config_type_numbering(self.profile.config_type_numbering);
        if req.configs.is_empty() && !self.decisions.admits_empty_configs() {
            let message = "PushConfig request has no Configs".to_string();
            return reject(self, ErrorCode::INVALID_CONFIG, message, false);
        }
        let mut configs = Vec::with_capacity(req.configs.len());
        for c in &req.configs {
            let checks = self.profile.broker_entry_checks;
            match check_entry(numbering, checks, self.decisions.as_ref(), c) {
                Ok(pc) if !self.decisions.hands_to_policy(&pc) => {}
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
                if !self.decisions.keeps_policy_message() {
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
}

/// The length of a Kafka frame's int32 size prefix, which precedes the request header.
const FRAME_SIZE_PREFIX_LEN: usize = 4;

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
/// unparsable value as its raw text (`ConfigValue::String`) with the declared type. Both
/// refusals are `decisions`' (`refuses_sensitive_type`, `refuses_unparsable_value`).
pub(super) fn check_entry(
    numbering: crate::config_def::ConfigTypeNumbering,
    checks: BrokerEntryChecks,
    decisions: &dyn BrokerDecisions,
    c: &kipcheck_codec::push_config_request::Config,
) -> Result<PolicyConfig, EntryRefusal> {
    let Some(ty) = numbering.from_wire(c.config_type) else {
        return Err(EntryRefusal::UnknownType {
            key: c.config_key.to_string(),
            config_type: c.config_type,
        });
    };
    if decisions.refuses_sensitive_type(checks, ty) {
        return Err(EntryRefusal::SensitiveType {
            key: c.config_key.to_string(),
            ty,
        });
    }
    let value = match ConfigValue::parse(ty, &c.config_value) {
        Ok(v) => v,
        Err(_) if !decisions.refuses_unparsable_value(checks) => {
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
