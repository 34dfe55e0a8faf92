//! [`ControllerDecisions`]: the decisions the controller model takes, each with the reference's answer as
//! its default body.

use std::collections::BTreeMap;
use std::fmt::Debug;

use crate::profile::AuditDirection;
use crate::server_config::ServerConfigKey;
use crate::validators::{MvValidators, Validator};
use kipcheck_codec::{
    self as codec, BrokerRegistrationRequest, EncodeError, ErrorCode, RegisterBrokerRecord,
    ResponseBody, ResponseHeader, UpdateFeaturesResponse, Uuid,
};

/// The decisions of the controller model; every default is the reference (see the module docs of
/// `decisions`).
// The default bodies are the reference, which ignores some of what a faulty variant reads.
#[allow(unused_variables)]
pub trait ControllerDecisions: Debug + Send + Sync {
    /// The MV-aware validators of one key in force at `level`, lowest level first. KIP-1294's
    /// `NavigableMap<Short, Validator>` is read with floor semantics: only the entry with the
    /// highest level ≤ `level` applies, and none below the lowest key.
    fn mv_validators_in_force<'a>(
        &self,
        validators: &'a MvValidators,
        level: i16,
    ) -> Vec<(i16, &'a Validator)> {
        validators.floor(level).into_iter().collect()
    }

    /// Whether the controller holds a StaticConfigs entry a registering broker reported
    /// (`value`; `default` is the definition's default, `None` for a key it does not define).
    /// KIP-1326: every reported entry is held (and persisted from the enabling level), a value
    /// equal to the default included.
    fn holds_reported_static_config(
        &self,
        value: &Option<String>,
        default: Option<&Option<String>>,
    ) -> bool {
        true
    }

    /// The metadata.version at which a registration's StaticConfigs are audited, `None` for no
    /// audit. KIP-1294: the registration audit runs against the finalized level (`finalized`),
    /// not a level the broker merely supports.
    fn registration_audit_level(
        &self,
        finalized: i16,
        req: &BrokerRegistrationRequest,
    ) -> Option<i16> {
        Some(finalized)
    }

    /// The error code of a registration the audit refuses; `profile_code` is the profile's
    /// reading of the KIP (`registration_rejection`).
    fn registration_refusal_code(&self, profile_code: ErrorCode) -> ErrorCode {
        profile_code
    }

    /// Whether a refused registration still appends a RegisterBrokerRecord. A refused broker
    /// is not registered: nothing is written.
    fn records_refused_registration(&self) -> bool {
        false
    }

    /// The RegisterBrokerRecord as written at `version`, from the one built (`record`). KIP-1326
    /// carries StaticConfigs in the record's own field (tag 2 of v5): the record as built.
    fn register_broker_record_as_written(
        &self,
        record: RegisterBrokerRecord,
        version: i16,
    ) -> RegisterBrokerRecord {
        record
    }

    /// Whether StaticConfigs go into the RegisterBrokerRecord (v5) at metadata.version `level`,
    /// the profile's enabling level being `enabling`. KIP-1326: from the enabling level on
    /// (`>=`), never below it.
    fn persists_static_configs(&self, level: i16, enabling: i16) -> bool {
        level >= enabling
    }

    /// Whether applying a RegisterBrokerRecord (appending it, or replaying it on failover)
    /// takes the StaticConfigs it carries into the held state. KIP-1326: persisted configs
    /// survive failover.
    fn applies_record_static_configs(&self) -> bool {
        true
    }

    /// Whether the metadata.version audit checks the brokers' reported StaticConfigs as well as
    /// the dynamic ConfigRecords. KIP-1294: both.
    fn audits_static_configs(&self) -> bool {
        true
    }

    /// The level at which a metadata.version change `from` → `to` is audited, `None` for no
    /// audit; `direction` is the profile's reading of which changes are audited. KIP-1294: a
    /// change in an audited direction is audited against the target level, ValidateOnly or not.
    fn metadata_version_audit_level(
        &self,
        from: i16,
        to: i16,
        validate_only: bool,
        direction: AuditDirection,
    ) -> Option<i16> {
        let audited = match direction {
            AuditDirection::Both => to != from,
            AuditDirection::UpgradeOnly => to > from,
        };
        audited.then_some(to)
    }

    /// The UpdateFeatures answer to a failed metadata.version audit (refused with `code` and
    /// `message`) when it is not the top-level error; `None`: the top-level error, so that
    /// every version, v2 without Results included, carries it. KIP-1294: it is.
    fn audit_refusal_answer(
        &self,
        code: ErrorCode,
        message: &str,
    ) -> Option<UpdateFeaturesResponse> {
        None
    }

    /// Whether AlterConfigs (`legacy`) or IncrementalAlterConfigs runs the static `ConfigDef`
    /// validator of `key` at `level`. KIP-1294 adds the MV-aware validators to the static one,
    /// in both APIs: always.
    fn runs_static_validator(&self, legacy: bool, key: &ServerConfigKey, level: i16) -> bool {
        true
    }

    /// Whether AlterConfigs (`legacy`) or IncrementalAlterConfigs runs the MV-aware validators.
    /// KIP-1294: both APIs do.
    fn runs_mv_validators(&self, legacy: bool) -> bool {
        true
    }

    /// Whether the topic `name` exists, `topics` being those a TopicRecord created. Only those.
    fn topic_exists(&self, name: &str, topics: &BTreeMap<String, Uuid>) -> bool {
        topics.contains_key(name)
    }

    /// The error code of a KIP-1256 structural refusal of IncrementalAlterConfigs (unknown
    /// resource type, another node's broker id, duplicate key). KIP-1256: INVALID_REQUEST.
    fn structural_refusal_code(&self) -> ErrorCode {
        ErrorCode::INVALID_REQUEST
    }

    /// The value an APPEND or SUBTRACT is validated as: its `operand`, or the list `result`ing
    /// from the operation. Kafka validates the resulting list.
    fn list_op_validated_value<'a>(&self, operand: &'a str, result: &'a str) -> &'a str {
        result
    }

    /// Whether an accepted alter-configs resource is written. A ValidateOnly request writes
    /// nothing.
    fn writes_accepted_configs(&self, validate_only: bool) -> bool {
        !validate_only
    }

    /// An Envelope's ResponseData for the forwarded request's `answer` at `version`: the
    /// inner response's header (`header`) and body, without the size prefix.
    fn envelope_response_data(
        &self,
        header: &ResponseHeader,
        answer: &ResponseBody,
        version: i16,
    ) -> Result<Vec<u8>, EncodeError> {
        codec::encode_response_frame(header, answer, version).map(|f| f[4..].to_vec())
    }
}
