//! SASL (Apache Kafka 4.4.0 definitions): what a client sends between ApiVersions and PushConfig on
//! a SASL listener (KIP-1324: "after authentication (if any)"). Bytes written by hand from the JSON
//! definitions.

use super::*;

#[test]
fn sasl_handshake_v0_v1_request_and_response() {
    let req = SaslHandshakeRequest {
        mechanism: "PLAIN".into(),
    };
    for v in [0, 1] {
        both_ways(&req, v, "0005 504c41494e");
    }
    let resp = SaslHandshakeResponse {
        error_code: ErrorCode::UNSUPPORTED_SASL_MECHANISM.0,
        mechanisms: vec!["PLAIN".into(), "SCRAM-SHA-256".into()],
    };
    both_ways(
        &resp,
        1,
        "0021 00000002 0005 504c41494e 000d 534352414d2d5348412d323536",
    );
}

#[test]
fn sasl_authenticate_v0_and_v2_request_and_response() {
    // PLAIN: authzid NUL authcid NUL password.
    let req = SaslAuthenticateRequest {
        auth_bytes: Bytes(b"\0u\0p".to_vec()),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&req, 0, "00000004 00750070");
    both_ways(&req, 2, "05 00750070 | 00");
    let failed = SaslAuthenticateResponse {
        error_code: ErrorCode::SASL_AUTHENTICATION_FAILED.0,
        error_message: Some("bad".into()),
        auth_bytes: Bytes::default(),
        session_lifetime_ms: Some(0),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&failed, 2, "003a 04 626164 01 0000000000000000 | 00");
    let ok = SaslAuthenticateResponse {
        error_code: 0,
        error_message: None,
        auth_bytes: Bytes::default(),
        session_lifetime_ms: None,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&ok, 0, "0000 ffff 00000000");
    assert_eq!(
        SaslAuthenticateResponse::from_bytes(&hex("0000 ffff 00000000"), 1)
            .unwrap_err()
            .kind(),
        DecodeErrorKind::Truncated {
            needed: 8,
            remaining: 0
        }
    );
}

/// Envelope (API 58, v0 only, flexible): a broker forwards a request to the controller with
/// the request's header and body as RequestData; the controller answers the forwarded
/// response's header and body in ResponseData, or null with an error.
#[test]
fn envelope_v0_request_and_response() {
    let req = EnvelopeRequest {
        request_data: Bytes(vec![1, 2, 3]),
        request_principal: None,
        client_host_address: Bytes(vec![127, 0, 0, 1]),
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&req, 0, "04 010203 00 05 7f000001 | 00");
    let refused = EnvelopeResponse {
        response_data: None,
        error_code: ErrorCode::INVALID_REQUEST.0,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&refused, 0, "00 002a | 00");
    let answered = EnvelopeResponse {
        response_data: Some(Bytes(vec![0xab])),
        error_code: 0,
        unknown_tagged_fields: TaggedFields::default(),
    };
    both_ways(&answered, 0, "02 ab 0000 | 00");
}
