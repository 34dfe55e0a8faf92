//! Envelope: an IncrementalAlterConfigs forwarded by a broker.

use super::*;
use kipcheck::emulate::controller::handle_request;

/// An Envelope carrying `inner` at `version` (header with correlation id 7) from 127.0.0.1.
fn envelope(
    api_key: kipcheck::codec::ApiKey,
    version: i16,
    inner: &kipcheck::codec::RequestBody,
) -> kipcheck::codec::EnvelopeRequest {
    use kipcheck::codec::{encode_request_frame, Bytes, ProvisionalNumbers, RequestHeader};
    let header = RequestHeader {
        request_api_key: api_key.0,
        request_api_version: version,
        correlation_id: 7,
        client_id: Some("client-1".into()),
        ..Default::default()
    };
    let frame = encode_request_frame(&header, inner, &ProvisionalNumbers::default()).unwrap();
    kipcheck::codec::EnvelopeRequest {
        request_data: Bytes(frame[4..].to_vec()),
        request_principal: None,
        client_host_address: Bytes(vec![127, 0, 0, 1]),
        ..Default::default()
    }
}

#[test]
fn a_forwarded_incremental_alter_configs_is_validated_as_a_direct_one() {
    use kipcheck::codec::{decode_response, ApiKey, RequestBody, ResponseBody};
    let mut c = controller(&SpecProfile::default(), 40);
    let two_mib = set("log.segment.bytes", Some("2097152"), 0);
    let iac = RequestBody::IncrementalAlterConfigs(inc_req(BROKER, "1", vec![two_mib], false));
    let answer = c.handle_envelope_with(
        Millis(0),
        &envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac),
        handle_request,
    );
    assert_eq!(answer.error_code, 0);
    let data = answer.response_data.expect("a forwarded answer").0;
    let inner = decode_response(&data, 0, ApiKey::INCREMENTAL_ALTER_CONFIGS, 1).unwrap();
    assert_eq!(inner.header.correlation_id, 7);
    let ResponseBody::IncrementalAlterConfigs(r) = inner.body else {
        panic!("{:?}", inner.body)
    };
    assert_eq!(r.responses[0].error_code, ErrorCode::INVALID_CONFIG.0);
    assert!(c.resource_configs(BROKER, "1").is_empty(), "nothing stored");

    let four_mib = set("log.segment.bytes", Some("4194304"), 0);
    let iac = RequestBody::IncrementalAlterConfigs(inc_req(BROKER, "1", vec![four_mib], false));
    let answer = c.handle_envelope_with(
        Millis(0),
        &envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac),
        handle_request,
    );
    let data = answer.response_data.expect("a forwarded answer").0;
    let inner = decode_response(&data, 0, ApiKey::INCREMENTAL_ALTER_CONFIGS, 1).unwrap();
    let ResponseBody::IncrementalAlterConfigs(r) = inner.body else {
        panic!("{:?}", inner.body)
    };
    assert_eq!(r.responses[0].error_code, 0);
    assert_eq!(
        c.resource_configs(BROKER, "1")
            .get("log.segment.bytes")
            .map(String::as_str),
        Some("4194304")
    );

    // Refused on the Envelope itself, with a null ResponseData: a client address that is no
    // IPv4/IPv6 address, RequestData that does not decode, an API that is not forwarded.
    let mut bad_host = envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac);
    bad_host.client_host_address.0.push(0);
    let mut garbage = envelope(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1, &iac);
    garbage.request_data.0.truncate(6);
    let describe = RequestBody::DescribeConfigs(DescribeConfigsRequest::default());
    let unforwarded = envelope(ApiKey::DESCRIBE_CONFIGS, 4, &describe);
    for e in [bad_host, garbage, unforwarded] {
        let answer = c.handle_envelope_with(Millis(0), &e, handle_request);
        assert_eq!(
            (answer.error_code, answer.response_data),
            (ErrorCode::INVALID_REQUEST.0, None)
        );
    }
}
