//! Provisional PushConfig API key.

use super::*;

#[test]
fn push_config_api_key_override() {
    let numbers = ProvisionalNumbers {
        push_config_api_key: ApiKey(99),
        ..ProvisionalNumbers::default()
    };
    let frame99 =
        hex("0000001d 0063 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00");
    let d = decode_request_frame(&frame99, DEFAULT_MAX_FRAME_SIZE, &numbers).expect("key 99");
    assert_eq!(d.api_key, ApiKey::PUSH_CONFIG);
    assert_eq!(d.header_version, 2);
    assert_eq!(d.header, header(99, 0, 1, "c"));
    assert_eq!(d.body, RequestBody::PushConfig(push_config_body()));
    // Encoding writes the override, whatever key the header held.
    assert_eq!(
        encode_request_frame(
            &header(95, 0, 1, "c"),
            &RequestBody::PushConfig(push_config_body()),
            &numbers
        ),
        Ok(frame99.clone())
    );
    // 95 means nothing under the override.
    let frame95 = hex(PUSH_CONFIG_REQUEST);
    let e = decode_request_frame(&frame95, DEFAULT_MAX_FRAME_SIZE, &numbers).unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::UnknownApiKey {
            api_key: ApiKey(95)
        }
    );
    assert_eq!(e.offset(), 4);
    assert_eq!(e.path(), "RequestHeader.RequestApiKey");
    // And 99 means nothing without it.
    let e = decode_request_frame(
        &frame99,
        DEFAULT_MAX_FRAME_SIZE,
        &ProvisionalNumbers::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::UnknownApiKey {
            api_key: ApiKey(99)
        }
    );
}
