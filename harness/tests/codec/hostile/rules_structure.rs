//! The rejection rules of structure: array counts, tagged fields, UTF-8, versions and API
//! keys, varints, frames and metadata-record framing.

use super::*;

pub(super) fn rows() -> Vec<Row> {
    vec![
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
