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

// After the macro: the rule tables use it.
mod random;
mod rules_structure;
mod rules_values;
mod truncation;

/// Every rejection rule: the value rules (`rules_values`), then the structural ones
/// (`rules_structure`).
fn rows() -> Vec<Row> {
    let mut rows = rules_values::rows();
    rows.extend(rules_structure::rows());
    rows
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
