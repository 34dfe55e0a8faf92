//! The rejection rules of single values: truncation per primitive, trailing bytes, nulls,
//! string limits and negative lengths.

use super::*;

pub(super) fn rows() -> Vec<Row> {
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
    ]
}
