//! The broker's request entry points: the ApiVersions response it advertises, decoding a
//! framed request and dispatching it by API key, and closing a connection with a logged
//! reason. PushConfig itself is judged in `push`.

use super::settings::{BrokerReply, BrokerRequest};
use super::state::BrokerModel;
use crate::api_versions::{api_versions_unsupported, handshake_api_versions};
use crate::events::Event;
use crate::profile::UnadvertisedPushConfigReply;
use crate::time::Millis;
use kipcheck_codec::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, ErrorCode, Message, PushConfigRequest,
    ResponseBody,
};

impl BrokerModel {
    /// The ApiVersions response body (latest version's fields): ApiVersions at every version
    /// it answers, and PushConfig 0-0 under its provisional wire key iff a policy is
    /// configured ([`handshake_api_versions`], the list every emulated node starts from).
    pub fn api_versions_response(&self) -> ApiVersionsResponse {
        let push = self
            .advertises_push_config()
            .then_some(self.profile.provisional.push_config_api_key);
        ApiVersionsResponse {
            // error_code: NONE, the field's default
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
    /// bytes on the wire (no size measure counts them: see `BrokerDecisions::push_size`).
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
        let resp = self.handle_push_config_sized(now, &decoded, req.body.len(), header_len);
        let then_close = self.decisions.closes_after_push_response(resp.error_code);
        BrokerReply::Response {
            api_key: req.api_key,
            api_version: req.api_version,
            body: ResponseBody::PushConfig(resp),
            then_close,
        }
    }

    pub(super) fn handle_api_versions(&mut self, now: Millis, req: &BrokerRequest) -> BrokerReply {
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

    pub(super) fn close(&mut self, now: Millis, reason: String) -> BrokerReply {
        self.log(
            now,
            Event::ConnectionClosed {
                reason: reason.clone(),
            },
        );
        BrokerReply::Close { reason }
    }
}
