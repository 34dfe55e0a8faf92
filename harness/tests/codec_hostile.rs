//! Hostile inputs: one row per rejection rule of the codec, each with the exact error kind,
//! absolute byte offset and field path; every truncation of valid frames; and a seeded
//! sweep of random and mutated frames through every request and response decoder, which
//! must return (never panic) with an error offset inside the input.

use std::panic::{catch_unwind, AssertUnwindSafe};

use kipcheck::codec::limits::DEFAULT_MAX_FRAME_SIZE;
use kipcheck::codec::{
    decode_request, decode_request_frame, decode_response, decode_response_frame,
    encode_request_frame, from_hex, split_frame, to_hex, AlterConfigsRequest, ApiKey,
    ApiVersionsResponse, BrokerRegistrationRequest, BrokerRegistrationResponse, DecodeError,
    DecodeErrorKind, Message, MetadataRecord, ProvisionalNumbers, PushConfigRequest,
    PushConfigResponse, PushTelemetryRequest, RequestBody, RequestHeader, ResponseBody,
};

fn hex(s: &str) -> Vec<u8> {
    from_hex(s).expect("test hex")
}

type Decoder = fn(&[u8]) -> Result<(), DecodeError>;

fn body<T: Message, const V: i16>(b: &[u8]) -> Result<(), DecodeError> {
    T::from_bytes(b, V).map(drop)
}

fn request_frame(b: &[u8]) -> Result<(), DecodeError> {
    decode_request_frame(b, DEFAULT_MAX_FRAME_SIZE, &ProvisionalNumbers::default()).map(drop)
}

fn request_frame_max_16(b: &[u8]) -> Result<(), DecodeError> {
    decode_request_frame(b, 16, &ProvisionalNumbers::default()).map(drop)
}

fn push_config_response_frame(b: &[u8]) -> Result<(), DecodeError> {
    decode_response_frame(b, DEFAULT_MAX_FRAME_SIZE, ApiKey::PUSH_CONFIG, 1).map(drop)
}

fn api_versions_v1_response_frame(b: &[u8]) -> Result<(), DecodeError> {
    decode_response_frame(b, DEFAULT_MAX_FRAME_SIZE, ApiKey::API_VERSIONS, 7).map(drop)
}

fn unknown_api_response_frame(b: &[u8]) -> Result<(), DecodeError> {
    decode_response_frame(b, DEFAULT_MAX_FRAME_SIZE, ApiKey(1000), 0).map(drop)
}

fn record(b: &[u8]) -> Result<(), DecodeError> {
    MetadataRecord::from_bytes(b).map(drop)
}

struct Row {
    rule: &'static str,
    decode: Decoder,
    input: &'static str,
    kind: DecodeErrorKind,
    offset: usize,
    path: &'static str,
}

use DecodeErrorKind as K;

const PUSH_CONFIG_REQ: Decoder = body::<PushConfigRequest, 0>;
const PUSH_CONFIG_RESP: Decoder = body::<PushConfigResponse, 0>;
const ALTER_CONFIGS_V0: Decoder = body::<AlterConfigsRequest, 0>;
const API_VERSIONS_RESP_V3: Decoder = body::<ApiVersionsResponse, 3>;
const BROKER_REG_V0: Decoder = body::<BrokerRegistrationRequest, 0>;
const BROKER_REG_RESP_V0: Decoder = body::<BrokerRegistrationResponse, 0>;
const PUSH_TELEMETRY: Decoder = body::<PushTelemetryRequest, 0>;
const REQUEST_HEADER_V1: Decoder = body::<RequestHeader, 1>;

/// A 16-byte UUID plus SubscriptionId, Terminating, CompressionType: the PushTelemetry
/// prefix before Metrics (22 bytes).
macro_rules! telemetry_prefix {
    () => {
        "00000000000000000000000000000000 00000000 00 00"
    };
}

fn rows() -> Vec<Row> {
    vec![
        // ---- truncation, one row per primitive ----
        Row {
            rule: "truncated int8",
            decode: PUSH_CONFIG_REQ,
            input: "02 0261 0262",
            kind: K::Truncated {
                needed: 1,
                remaining: 0,
            },
            offset: 5,
            path: "PushConfigRequest.Configs[0].ConfigType",
        },
        Row {
            rule: "truncated bool",
            decode: PUSH_CONFIG_REQ,
            input: "02 0261 0262 01",
            kind: K::Truncated {
                needed: 1,
                remaining: 0,
            },
            offset: 6,
            path: "PushConfigRequest.Configs[0].IsDefault",
        },
        Row {
            rule: "truncated int16",
            decode: PUSH_CONFIG_RESP,
            input: "00000000 00",
            kind: K::Truncated {
                needed: 2,
                remaining: 1,
            },
            offset: 4,
            path: "PushConfigResponse.ErrorCode",
        },
        Row {
            rule: "truncated int32",
            decode: PUSH_CONFIG_RESP,
            input: "000000",
            kind: K::Truncated {
                needed: 4,
                remaining: 3,
            },
            offset: 0,
            path: "PushConfigResponse.ThrottleTimeMs",
        },
        Row {
            rule: "truncated int64",
            decode: BROKER_REG_RESP_V0,
            input: "00000000 0000 000000",
            kind: K::Truncated {
                needed: 8,
                remaining: 3,
            },
            offset: 6,
            path: "BrokerRegistrationResponse.BrokerEpoch",
        },
        Row {
            rule: "truncated int64 inside a tagged field (sub-reader bounds)",
            decode: API_VERSIONS_RESP_V3,
            input: "0000 01 00000000 01 01 04 00000000",
            kind: K::Truncated {
                needed: 8,
                remaining: 4,
            },
            offset: 10,
            path: "ApiVersionsResponse.FinalizedFeaturesEpoch",
        },
        Row {
            rule: "truncated uint16",
            decode: BROKER_REG_V0,
            input: "00000001 0263 000102030405060708090a0b0c0d0e0f 02 0261 0268 23",
            kind: K::Truncated {
                needed: 2,
                remaining: 1,
            },
            offset: 27,
            path: "BrokerRegistrationRequest.Listeners[0].Port",
        },
        Row {
            rule: "truncated uuid",
            decode: BROKER_REG_V0,
            input: "00000001 0263 0001020304",
            kind: K::Truncated {
                needed: 16,
                remaining: 5,
            },
            offset: 6,
            path: "BrokerRegistrationRequest.IncarnationId",
        },
        Row {
            rule: "truncated unsigned varint (missing)",
            decode: BROKER_REG_V0,
            input: "00000001",
            kind: K::Truncated {
                needed: 1,
                remaining: 0,
            },
            offset: 4,
            path: "BrokerRegistrationRequest.ClusterId",
        },
        Row {
            rule: "truncated unsigned varint (continuation bit, then end)",
            decode: BROKER_REG_V0,
            input: "00000001 80",
            kind: K::Truncated {
                needed: 1,
                remaining: 0,
            },
            offset: 5,
            path: "BrokerRegistrationRequest.ClusterId",
        },
        Row {
            rule: "truncated int16 string length",
            decode: REQUEST_HEADER_V1,
            input: "0012 0000 00000001 00",
            kind: K::Truncated {
                needed: 2,
                remaining: 1,
            },
            offset: 8,
            path: "RequestHeader.ClientId",
        },
        Row {
            rule: "truncated frame size",
            decode: request_frame,
            input: "000000",
            kind: K::Truncated {
                needed: 4,
                remaining: 3,
            },
            offset: 0,
            path: "frame size",
        },
        Row {
            rule: "truncated frame payload",
            decode: request_frame,
            input: "0000001d 005f",
            kind: K::Truncated {
                needed: 29,
                remaining: 2,
            },
            offset: 4,
            path: "frame",
        },
        Row {
            rule: "truncated request header inside a frame",
            decode: request_frame,
            input: "00000003 001200",
            kind: K::Truncated {
                needed: 2,
                remaining: 1,
            },
            offset: 6,
            path: "RequestHeader.RequestApiVersion",
        },
        // ---- trailing bytes ----
        Row {
            rule: "trailing bytes after a body",
            decode: PUSH_CONFIG_RESP,
            input: "00000000 0000 00 00 ff",
            kind: K::TrailingBytes { count: 1 },
            offset: 8,
            path: "PushConfigResponse",
        },
        Row {
            rule: "trailing bytes after a frame",
            decode: request_frame,
            input:
                "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00 \
                    0000",
            kind: K::TrailingBytes { count: 2 },
            offset: 33,
            path: "frame",
        },
        Row {
            rule: "trailing bytes inside a frame, after the body",
            decode: request_frame,
            input:
                "0000001e 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00 \
                    00",
            kind: K::TrailingBytes { count: 1 },
            offset: 33,
            path: "PushConfigRequest",
        },
        // ---- null in non-nullable fields ----
        Row {
            rule: "null compact string",
            decode: PUSH_CONFIG_REQ,
            input: "02 00",
            kind: K::NullNotAllowed,
            offset: 1,
            path: "PushConfigRequest.Configs[0].ConfigKey",
        },
        Row {
            rule: "null compact array",
            decode: PUSH_CONFIG_REQ,
            input: "00 00",
            kind: K::NullNotAllowed,
            offset: 0,
            path: "PushConfigRequest.Configs",
        },
        Row {
            rule: "null compact bytes",
            decode: PUSH_TELEMETRY,
            input: concat!(telemetry_prefix!(), " 00 00"),
            kind: K::NullNotAllowed,
            offset: 22,
            path: "PushTelemetryRequest.Metrics",
        },
        Row {
            rule: "null classic string",
            decode: ALTER_CONFIGS_V0,
            input: "00000001 02 ffff",
            kind: K::NullNotAllowed,
            offset: 5,
            path: "AlterConfigsRequest.Resources[0].ResourceName",
        },
        Row {
            rule: "null classic array",
            decode: ALTER_CONFIGS_V0,
            input: "ffffffff 00",
            kind: K::NullNotAllowed,
            offset: 0,
            path: "AlterConfigsRequest.Resources",
        },
        // ---- string limits ----
        Row {
            rule: "classic string length 0x8000 (an int16 cannot exceed 32767; it is negative)",
            decode: ALTER_CONFIGS_V0,
            input: "00000001 02 8000",
            kind: K::NegativeLength { len: -32768 },
            offset: 5,
            path: "AlterConfigsRequest.Resources[0].ResourceName",
        },
        Row {
            rule: "compact string of exactly 32767 bytes is not too long, only truncated",
            decode: PUSH_CONFIG_REQ,
            input: "02 808002",
            kind: K::LengthExceedsRemaining {
                what: "string",
                len: 32767,
                remaining: 0,
            },
            offset: 1,
            path: "PushConfigRequest.Configs[0].ConfigKey",
        },
        Row {
            rule: "compact string over 32767 bytes (varint 32769)",
            decode: PUSH_CONFIG_REQ,
            input: "02 818002",
            kind: K::StringTooLong { len: 32768 },
            offset: 1,
            path: "PushConfigRequest.Configs[0].ConfigKey",
        },
        Row {
            rule: "string length exceeds the remaining bytes",
            decode: PUSH_CONFIG_REQ,
            input: "02 05 61",
            kind: K::LengthExceedsRemaining {
                what: "string",
                len: 4,
                remaining: 1,
            },
            offset: 1,
            path: "PushConfigRequest.Configs[0].ConfigKey",
        },
        Row {
            rule: "string length exceeds the remaining bytes, inside a frame",
            decode: request_frame,
            input: "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 8263 01 00 00 00",
            kind: K::LengthExceedsRemaining {
                what: "string",
                len: 12673,
                remaining: 4,
            },
            offset: 27,
            path: "PushConfigRequest.Configs[0].ConfigValue",
        },
        Row {
            rule: "classic string length exceeds the remaining bytes",
            decode: REQUEST_HEADER_V1,
            input: "0012 0000 00000001 0005 6162",
            kind: K::LengthExceedsRemaining {
                what: "string",
                len: 5,
                remaining: 2,
            },
            offset: 8,
            path: "RequestHeader.ClientId",
        },
        Row {
            rule: "bytes length exceeds the remaining bytes",
            decode: PUSH_TELEMETRY,
            input: concat!(telemetry_prefix!(), " 05 0102"),
            kind: K::LengthExceedsRemaining {
                what: "bytes",
                len: 4,
                remaining: 2,
            },
            offset: 22,
            path: "PushTelemetryRequest.Metrics",
        },
        Row {
            rule: "tagged field size exceeds the remaining bytes",
            decode: API_VERSIONS_RESP_V3,
            input: "0000 01 00000000 01 07 05 00",
            kind: K::LengthExceedsRemaining {
                what: "tagged field",
                len: 5,
                remaining: 1,
            },
            offset: 9,
            path: "ApiVersionsResponse",
        },
        // ---- negative lengths ----
        Row {
            rule: "classic string length -2",
            decode: ALTER_CONFIGS_V0,
            input: "00000001 02 fffe",
            kind: K::NegativeLength { len: -2 },
            offset: 5,
            path: "AlterConfigsRequest.Resources[0].ResourceName",
        },
        Row {
            rule: "classic nullable string length -32768",
            decode: REQUEST_HEADER_V1,
            input: "0012 0000 00000001 8000",
            kind: K::NegativeLength { len: -32768 },
            offset: 8,
            path: "RequestHeader.ClientId",
        },
        Row {
            rule: "classic array count -2",
            decode: ALTER_CONFIGS_V0,
            input: "fffffffe 00",
            kind: K::NegativeLength { len: -2 },
            offset: 0,
            path: "AlterConfigsRequest.Resources",
        },
        // ---- array counts (checked before allocating) ----
        Row {
            rule: "classic array count 0x7fffffff with nothing after it",
            decode: ALTER_CONFIGS_V0,
            input: "7fffffff",
            kind: K::ArrayCountExceedsRemaining {
                count: 0x7fff_ffff,
                remaining: 0,
            },
            offset: 0,
            path: "AlterConfigsRequest.Resources",
        },
        Row {
            rule: "compact array count u32::MAX - 1",
            decode: PUSH_CONFIG_REQ,
            input: "ffffffff0f 00",
            kind: K::ArrayCountExceedsRemaining {
                count: 0xffff_fffe,
                remaining: 1,
            },
            offset: 0,
            path: "PushConfigRequest.Configs",
        },
        Row {
            rule: "nested array count larger than the remaining bytes",
            decode: ALTER_CONFIGS_V0,
            input: "00000001 02 0001 61 00000100 0000",
            kind: K::ArrayCountExceedsRemaining {
                count: 256,
                remaining: 2,
            },
            offset: 8,
            path: "AlterConfigsRequest.Resources[0].Configs",
        },
        Row {
            rule: "tagged field count larger than the remaining bytes",
            decode: API_VERSIONS_RESP_V3,
            input: "0000 01 00000000 05 0100",
            kind: K::ArrayCountExceedsRemaining {
                count: 5,
                remaining: 2,
            },
            offset: 7,
            path: "ApiVersionsResponse",
        },
        // ---- tagged fields ----
        Row {
            rule: "duplicate known tagged field",
            decode: API_VERSIONS_RESP_V3,
            input: "0000 01 00000000 02 03 01 01 03 01 00",
            kind: K::DuplicateTag { tag: 3 },
            offset: 11,
            path: "ApiVersionsResponse",
        },
        Row {
            rule: "duplicate unknown tagged field",
            decode: API_VERSIONS_RESP_V3,
            input: "0000 01 00000000 02 07 00 07 00",
            kind: K::DuplicateTag { tag: 7 },
            offset: 10,
            path: "ApiVersionsResponse",
        },
        Row {
            rule: "known tagged field whose value does not use its declared size",
            decode: API_VERSIONS_RESP_V3,
            input: "0000 01 00000000 01 03 02 01 00",
            kind: K::TaggedFieldSize {
                tag: 3,
                declared: 2,
                used: 1,
            },
            offset: 8,
            path: "ApiVersionsResponse",
        },
        // ---- UTF-8 ----
        Row {
            rule: "invalid UTF-8 (offset is the first bad byte)",
            decode: PUSH_CONFIG_REQ,
            input: "02 04 61ff62 0262 01 00 00 00",
            kind: K::InvalidUtf8 { valid_up_to: 1 },
            offset: 3,
            path: "PushConfigRequest.Configs[0].ConfigKey",
        },
        Row {
            rule: "truncated UTF-8 sequence at the end of a string",
            decode: REQUEST_HEADER_V1,
            input: "0012 0000 00000001 0003 61e282",
            kind: K::InvalidUtf8 { valid_up_to: 1 },
            offset: 11,
            path: "RequestHeader.ClientId",
        },
        Row {
            rule: "lone continuation byte",
            decode: REQUEST_HEADER_V1,
            input: "0012 0000 00000001 0002 6180",
            kind: K::InvalidUtf8 { valid_up_to: 1 },
            offset: 11,
            path: "RequestHeader.ClientId",
        },
        // ---- versions and API keys ----
        Row {
            rule: "unsupported request version",
            decode: request_frame,
            input: "0000000d 0012 0006 00000001 0000 00 00 00",
            kind: K::UnsupportedVersion {
                message: "ApiVersionsRequest",
                version: 6,
            },
            offset: 15,
            path: "ApiVersionsRequest",
        },
        Row {
            rule: "negative request version",
            decode: request_frame,
            input: "0000000a 005f ffff 00000001 0000",
            kind: K::UnsupportedVersion {
                message: "PushConfigRequest",
                version: -1,
            },
            offset: 14,
            path: "PushConfigRequest",
        },
        Row {
            rule: "unsupported response version",
            decode: push_config_response_frame,
            input: "0000000d 00000001 00 00000000 0000 00 00",
            kind: K::UnsupportedVersion {
                message: "PushConfigResponse",
                version: 1,
            },
            offset: 9,
            path: "PushConfigResponse",
        },
        Row {
            rule: "unsupported ApiVersions response version (no v0 fallback applies)",
            decode: api_versions_v1_response_frame,
            input: "00000010 00000007 0000 00000001 0012 0000 0004",
            kind: K::UnsupportedVersion {
                message: "ApiVersionsResponse",
                version: 7,
            },
            offset: 8,
            path: "ApiVersionsResponse",
        },
        Row {
            rule: "unknown request API key",
            decode: request_frame,
            input: "0000000a 03e8 0000 00000001 0000",
            kind: K::UnknownApiKey {
                api_key: ApiKey(1000),
            },
            offset: 4,
            path: "RequestHeader.RequestApiKey",
        },
        Row {
            rule: "unknown response API key",
            decode: unknown_api_response_frame,
            input: "00000004 00000001",
            kind: K::UnknownApiKey {
                api_key: ApiKey(1000),
            },
            offset: 8,
            path: "",
        },
        // ---- varints ----
        Row {
            rule: "unsigned varint longer than 5 bytes",
            decode: PUSH_CONFIG_REQ,
            input: "8080808080 00",
            kind: K::VarintTooLong,
            offset: 0,
            path: "PushConfigRequest.Configs",
        },
        Row {
            rule: "5-byte unsigned varint above u32::MAX",
            decode: PUSH_CONFIG_REQ,
            input: "ffffffff1f 00",
            kind: K::VarintTooLong,
            offset: 0,
            path: "PushConfigRequest.Configs",
        },
        // ---- frames ----
        Row {
            rule: "negative frame size",
            decode: request_frame,
            input: "ffffffff 00",
            kind: K::NegativeFrameSize { size: -1 },
            offset: 0,
            path: "frame size",
        },
        Row {
            rule: "frame size i32::MIN",
            decode: request_frame,
            input: "80000000",
            kind: K::NegativeFrameSize { size: i32::MIN },
            offset: 0,
            path: "frame size",
        },
        Row {
            rule: "frame claiming 2 GiB with a tiny input",
            decode: request_frame,
            input: "7fffffff 00",
            kind: K::FrameTooLarge {
                size: 0x7fff_ffff,
                max: DEFAULT_MAX_FRAME_SIZE,
            },
            offset: 0,
            path: "frame size",
        },
        Row {
            rule: "frame one byte over a small custom maximum",
            decode: request_frame_max_16,
            input: "00000011 0012000300000001000d72646b61666b61",
            kind: K::FrameTooLarge { size: 17, max: 16 },
            offset: 0,
            path: "frame size",
        },
        // ---- metadata record framing ----
        Row {
            rule: "record frame version other than 1",
            decode: record,
            input: "02 00 00",
            kind: K::UnsupportedFrameVersion { version: 2 },
            offset: 0,
            path: "record frame version",
        },
        Row {
            rule: "unknown record type",
            decode: record,
            input: "01 63 00 00",
            kind: K::UnknownApiKey {
                api_key: ApiKey(99),
            },
            offset: 3,
            path: "",
        },
        Row {
            rule: "unsupported record version",
            decode: record,
            input: "01 00 06 00",
            kind: K::UnsupportedVersion {
                message: "RegisterBrokerRecord",
                version: 6,
            },
            offset: 3,
            path: "RegisterBrokerRecord",
        },
    ]
}

#[test]
fn every_rejection_rule_reports_kind_offset_and_path() {
    let mut failures = Vec::new();
    for row in rows() {
        let input = hex(row.input);
        match (row.decode)(&input) {
            Ok(()) => failures.push(format!("{}: decoded without error", row.rule)),
            Err(e) => {
                let got = (e.kind(), e.offset(), e.path());
                let want = (row.kind, row.offset, row.path.to_owned());
                if got != want {
                    failures.push(format!(
                        "{}: input {}\n   got  {got:?}\n   want {want:?}\n   ({e})",
                        row.rule, row.input
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn errors_render_path_offset_and_reason() {
    let e = request_frame(&hex(
        "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 8263 01 00 00 00",
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "PushConfigRequest.Configs[0].ConfigValue at byte 27: string length 12673 exceeds the 4 \
         remaining bytes"
    );
    let e = request_frame(&hex("7fffffff")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "frame size at byte 0: frame size 2147483647 exceeds the maximum of 104857600"
    );
    let e = unknown_api_response_frame(&hex("00000004 00000001")).unwrap_err();
    assert_eq!(e.to_string(), "at byte 8: unknown API key 1000");
}

/// A huge count with a tiny input is refused before anything is allocated: if the decoder
/// reserved `count` elements first, these would abort the test process (capacity overflow
/// or out of memory) instead of returning.
#[test]
fn huge_counts_and_sizes_do_not_allocate() {
    for _ in 0..1000 {
        let e = ALTER_CONFIGS_V0(&hex("7fffffff")).unwrap_err();
        assert!(matches!(e.kind(), K::ArrayCountExceedsRemaining { .. }));
        let e = PUSH_CONFIG_REQ(&hex("ffffffff0f")).unwrap_err();
        assert!(matches!(e.kind(), K::ArrayCountExceedsRemaining { .. }));
        // A 2 GiB frame is refused by size, with the default and with a huge maximum
        // (then it is merely truncated: the payload is borrowed, never copied).
        let e = request_frame(&hex("7fffffff 00")).unwrap_err();
        assert!(matches!(e.kind(), K::FrameTooLarge { .. }));
        let e = split_frame(&hex("7fffffff 00"), usize::MAX).unwrap_err();
        assert_eq!(
            e.kind(),
            K::Truncated {
                needed: 0x7fff_ffff,
                remaining: 1
            }
        );
        assert_eq!((e.offset(), e.path()), (4, "frame".to_owned()));
        let e = decode_request_frame(
            &hex("7fffffff 00"),
            usize::MAX,
            &ProvisionalNumbers::default(),
        )
        .unwrap_err();
        assert!(matches!(e.kind(), K::Truncated { .. }));
    }
}

// ---------------------------------------------------------------------------------------
// Every truncation of valid frames.
// ---------------------------------------------------------------------------------------

const VALID_REQUESTS: &[&str] = &[
    "00000032001200040000000100126b61666b612d707974686f6e2d70726f6265\
     000d6b61666b612d707974686f6e07332e302e313200",
    "000000460012000300000001000d72646b61666b612d70726f62650017636f6e\
     666c75656e742d6b61666b612d707974686f6e16322e31362e312d72646b61666b\
     612d322e31362e3000",
    "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00",
    "0000001c 0012 0004 00000007 000163 00 096b61666b612d7273 06302e312e30 00",
];

/// (API, version, frame)
const VALID_RESPONSES: &[(ApiKey, i16, &str)] = &[
    (
        ApiKey::PUSH_CONFIG,
        0,
        "0000000d 00000001 00 00000000 0000 00 00",
    ),
    (
        ApiKey::API_VERSIONS,
        4,
        "00000013 00000007 0000 02 0012 0000 0004 00 00000000 00",
    ),
    (
        ApiKey::API_VERSIONS,
        4,
        "00000010 00000007 0023 00000001 0012 0000 0004",
    ),
];

#[test]
fn every_truncation_of_valid_frames_is_an_error() {
    for frame in VALID_REQUESTS {
        let frame = hex(frame);
        request_frame(&frame).expect("the full frame decodes");
        let payload = &frame[4..];
        for n in 0..frame.len() {
            let e = request_frame(&frame[..n])
                .expect_err(&format!("prefix of {n} bytes of {}", to_hex(&frame)));
            assert!(e.offset() <= n, "{e} for a {n}-byte prefix");
            // The same prefix of the payload, with a size prefix that matches it.
            if n < payload.len() {
                let mut refit = (n as i32).to_be_bytes().to_vec();
                refit.extend_from_slice(&payload[..n]);
                let e = request_frame(&refit).expect_err(&format!(
                    "refitted prefix of {n} bytes of {}",
                    to_hex(&frame)
                ));
                assert!(e.offset() <= refit.len(), "{e}");
                let e = decode_request(&payload[..n], 4, &ProvisionalNumbers::default())
                    .expect_err("payload prefix");
                assert!(e.offset() <= n + 4, "{e}");
            }
        }
    }
    for (api, version, frame) in VALID_RESPONSES {
        let frame = hex(frame);
        decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, *api, *version)
            .expect("the full frame decodes");
        let payload = &frame[4..];
        for n in 0..frame.len() {
            let e = decode_response_frame(&frame[..n], DEFAULT_MAX_FRAME_SIZE, *api, *version)
                .expect_err("prefix");
            assert!(e.offset() <= n, "{e}");
            if n < payload.len() {
                let e = decode_response(&payload[..n], 4, *api, *version).expect_err(&format!(
                    "payload prefix of {n} bytes of {}",
                    to_hex(&frame)
                ));
                assert!(e.offset() <= n + 4, "{e}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Seeded random and mutated frames.
// ---------------------------------------------------------------------------------------

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

const SEED: u64 = 0x5eed_c0de_1324_1326;
const INPUTS: usize = 20_000;

/// Valid request frames to mutate: the vectors, plus the default body of every API at every
/// version.
fn request_corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = VALID_REQUESTS.iter().map(|h| hex(h)).collect();
    for info in RequestBody::KNOWN {
        for v in info.valid.iter() {
            let header = RequestHeader {
                request_api_key: info.api_key.0,
                request_api_version: v,
                correlation_id: 9,
                client_id: Some("k".into()),
                ..Default::default()
            };
            let body = RequestBody::default_for(info.api_key).expect("default");
            out.push(
                encode_request_frame(&header, &body, &ProvisionalNumbers::default())
                    .expect("default encodes"),
            );
        }
    }
    out
}

fn mutate(rng: &mut XorShift, base: &[u8]) -> Vec<u8> {
    let mut f = base.to_vec();
    for _ in 0..=rng.below(4) {
        match rng.below(5) {
            0 if !f.is_empty() => {
                let i = rng.below(f.len());
                f[i] ^= 1 << rng.below(8);
            }
            1 if !f.is_empty() => {
                let i = rng.below(f.len());
                f[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(f.len() + 1);
                let n = 1 + rng.below(4);
                let b = rng.bytes(n);
                f.splice(i..i, b);
            }
            3 if f.len() > 4 => {
                let i = 4 + rng.below(f.len() - 4);
                let n = 1 + rng.below((f.len() - i).min(4));
                f.drain(i..i + n);
            }
            _ => {
                let i = rng.below(f.len() + 1);
                f.insert(i, [0x00, 0x7f, 0x80, 0xff][rng.below(4)]);
            }
        }
    }
    // Usually keep the size prefix consistent so that the payload is what gets tested.
    if f.len() >= 4 && rng.below(4) != 0 {
        let size = (f.len() - 4) as i32;
        f[..4].copy_from_slice(&size.to_be_bytes());
    }
    f
}

fn sized(payload: Vec<u8>) -> Vec<u8> {
    let mut f = (payload.len() as i32).to_be_bytes().to_vec();
    f.extend(payload);
    f
}

#[test]
fn random_and_mutated_frames_never_panic() {
    let corpus = request_corpus();
    let numbers = ProvisionalNumbers::default();
    let mut rng = XorShift(SEED);
    let mut decoded = 0usize;
    let mut response_decoded = 0usize;
    for i in 0..INPUTS {
        let state = rng.0;
        let frame = match i % 4 {
            0 => {
                let n = rng.below(48);
                sized(rng.bytes(n))
            }
            1 => {
                // A plausible header for a known API, then random bytes.
                let info = &RequestBody::KNOWN[rng.below(RequestBody::KNOWN.len())];
                let v = info.valid.min - 1
                    + rng.below((info.valid.max - info.valid.min + 3) as usize) as i16;
                let mut p = info.api_key.0.to_be_bytes().to_vec();
                p.extend(v.to_be_bytes());
                let n = 4 + rng.below(40);
                p.extend(rng.bytes(n));
                sized(p)
            }
            _ => {
                let base = &corpus[rng.below(corpus.len())];
                mutate(&mut rng, base)
            }
        };
        let context = || {
            format!(
                "seed {SEED:#x}, input #{i} (rng state {state:#x}): {}",
                to_hex(&frame)
            )
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            decode_request_frame(&frame, DEFAULT_MAX_FRAME_SIZE, &numbers)
        }))
        .unwrap_or_else(|_| panic!("decode_request_frame panicked; {}", context()));
        match result {
            Ok(d) => {
                decoded += 1;
                // What decodes re-encodes, and the re-encoding decodes to the same value.
                let again = encode_request_frame(&d.header, &d.body, &numbers)
                    .unwrap_or_else(|e| panic!("re-encode failed: {e}; {}", context()));
                let d2 = decode_request_frame(&again, DEFAULT_MAX_FRAME_SIZE, &numbers)
                    .unwrap_or_else(|e| panic!("re-encoding does not decode: {e}; {}", context()));
                assert_eq!(d2, d, "{}", context());
            }
            Err(e) => assert!(e.offset() <= frame.len(), "{e}; {}", context()),
        }
        // The same bytes as a response of every API and version (plus one past each end).
        if i % 4 != 1 {
            for info in ResponseBody::KNOWN {
                for v in info.valid.min - 1..=info.valid.max + 1 {
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, info.api_key, v)
                    }))
                    .unwrap_or_else(|_| {
                        panic!(
                            "decode_response_frame({}, v{v}) panicked; {}",
                            info.name,
                            context()
                        )
                    });
                    match r {
                        Ok(_) => response_decoded += 1,
                        Err(e) => assert!(e.offset() <= frame.len(), "{e}; {}", context()),
                    }
                }
            }
        }
    }
    // The sweep must reach past the header: some inputs decode.
    assert!(
        decoded > 100,
        "only {decoded} requests decoded (seed {SEED:#x})"
    );
    assert!(
        response_decoded > 100,
        "only {response_decoded} responses decoded (seed {SEED:#x})"
    );
}

/// Record type and version are unsigned varints but `i16` in the codec; values above
/// `i16::MAX` are refused at the varint's offset, naming the value read.
#[test]
fn record_type_and_version_above_i16_are_refused() {
    let e = record(&hex("01 ffff03 00")).unwrap_err();
    assert_eq!(
        e.kind(),
        K::OutOfRange {
            what: "record type",
            value: 65535,
            max: 32767
        },
        "{e}"
    );
    assert_eq!((e.offset(), e.path()), (1, "record type".to_owned()));
    let e = record(&hex("01 00 c0b802 00")).unwrap_err();
    assert_eq!(
        e.kind(),
        K::OutOfRange {
            what: "record version",
            value: 40000,
            max: 32767
        },
        "{e}"
    );
    assert_eq!((e.offset(), e.path()), (2, "record version".to_owned()));
    let e = record(&hex("01 00")).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.path()),
        (
            K::Truncated {
                needed: 1,
                remaining: 0
            },
            2,
            "record version".to_owned()
        )
    );
    let e = record(&hex("01 00 00 00000001")).unwrap_err();
    // v0 has no IsMigratingZkBroker (v2+): the UUID comes next.
    assert_eq!(e.path(), "RegisterBrokerRecord.IncarnationId");
    assert_eq!(
        (e.kind(), e.offset()),
        (
            K::Truncated {
                needed: 16,
                remaining: 0
            },
            7
        )
    );
}
