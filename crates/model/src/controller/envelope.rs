//! The controller model's request dispatch ([`ControllerModel::handle_request`]: the APIs the
//! KIPs touch) and Envelope (API 58): a KRaft broker forwards a client's request
//! (IncrementalAlterConfigs among them) to the controller inside an Envelope whose RequestData
//! is the request's header and body; the controller handles the inner request exactly as if
//! it had come directly (the KIP-1256 and KIP-1294 checks included) and answers the inner
//! response's header and body in ResponseData. As Kafka's `EnvelopeUtils`: RequestData that
//! does not decode, an API that is not forwardable (a nested Envelope among them) or a
//! ClientHostAddress that is no IPv4 or IPv6 address is INVALID_REQUEST on the Envelope
//! itself, with a null ResponseData. [`ControllerModel::handle_envelope_with`] takes the
//! dispatch that answers the inner request (the harness's emulated controller's, which also
//! answers CreateTopics and DescribeConfigs).

use super::ControllerModel;
use crate::time::Millis;
use kipcheck_codec::{
    self as codec, ApiKey, Bytes, EnvelopeRequest, EnvelopeResponse, ErrorCode, RequestBody,
    ResponseBody, ResponseHeader,
};

/// The controller APIs a broker forwards in an Envelope (Kafka's `ApiKeys.forwardable` among
/// them). CreateTopics is answered only by a dispatch that serves it
/// ([`ControllerModel::handle_envelope_with`]).
pub const FORWARDABLE_APIS: [ApiKey; 4] = [
    ApiKey::CREATE_TOPICS,
    ApiKey::ALTER_CONFIGS,
    ApiKey::INCREMENTAL_ALTER_CONFIGS,
    ApiKey::UPDATE_FEATURES,
];

/// The APIs the controller model answers (Envelope through
/// [`ControllerModel::handle_envelope_with`]).
pub const CONTROLLER_APIS: [ApiKey; 5] = [
    ApiKey::ALTER_CONFIGS,
    ApiKey::INCREMENTAL_ALTER_CONFIGS,
    ApiKey::UPDATE_FEATURES,
    ApiKey::ENVELOPE,
    ApiKey::BROKER_REGISTRATION,
];

impl ControllerModel {
    /// Handles one request at `version`: the answer, or `None` for an API this model does not
    /// serve directly. The harness's emulated controller answers those over this model's state:
    /// Envelope with [`handle_envelope_with`](Self::handle_envelope_with); ApiVersions,
    /// DescribeConfigs, CreateTopics, DeleteTopics, DescribeCluster and UnregisterBroker, Kafka
    /// behaviour the KIPs leave alone.
    pub fn handle_request(
        &mut self,
        now: Millis,
        version: i16,
        request: &RequestBody,
    ) -> Option<ResponseBody> {
        Some(match request {
            RequestBody::BrokerRegistration(r) => {
                ResponseBody::BrokerRegistration(self.handle_broker_registration(now, version, r))
            }
            RequestBody::AlterConfigs(r) => {
                ResponseBody::AlterConfigs(self.handle_alter_configs(now, version, r))
            }
            RequestBody::IncrementalAlterConfigs(r) => ResponseBody::IncrementalAlterConfigs(
                self.handle_incremental_alter_configs(now, version, r),
            ),
            RequestBody::UpdateFeatures(r) => {
                ResponseBody::UpdateFeatures(self.handle_update_features(now, version, r))
            }
            _ => return None,
        })
    }

    /// Envelope v0: the forwarded request answered by `dispatch` as a direct one, its answer
    /// wrapped. `dispatch` answers the inner request
    /// (`None`: not served, INVALID_REQUEST on the Envelope). The unwrapping, the forwardable
    /// check and the wrapping of the answer stay this model's.
    pub fn handle_envelope_with(
        &mut self,
        now: Millis,
        req: &EnvelopeRequest,
        dispatch: impl FnOnce(&mut Self, Millis, i16, &RequestBody) -> Option<ResponseBody>,
    ) -> EnvelopeResponse {
        let refused = EnvelopeResponse {
            // response_data: null, the field's default
            error_code: ErrorCode::INVALID_REQUEST.0,
            ..Default::default()
        };
        if ![4, 16].contains(&req.client_host_address.0.len()) {
            return refused;
        }
        let numbers = self.profile.provisional;
        // RequestData is a request payload without its size prefix: decoded as it is.
        let Ok(inner) = codec::decode_request(&req.request_data.0, 0, &numbers) else {
            return refused;
        };
        if !FORWARDABLE_APIS.contains(&inner.api_key) {
            return refused;
        }
        let version = inner.header.request_api_version;
        let Some(answer) = dispatch(self, now, version, &inner.body) else {
            return refused;
        };
        let header = ResponseHeader {
            correlation_id: inner.header.correlation_id,
            ..Default::default()
        };
        let data = self
            .decisions
            .envelope_response_data(&header, &answer, version);
        match data {
            Ok(data) => EnvelopeResponse {
                response_data: Some(Bytes(data)),
                // error_code: NONE, the field's default
                ..Default::default()
            },
            Err(_) => refused,
        }
    }
}
