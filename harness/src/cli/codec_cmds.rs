//! `kipcheck decode` and `kipcheck encode`: the codec on the command line.

use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::Args;
use kipcheck::codec::{
    self, ApiKey, BodyInfo, DecodeError, ErrorCode, ProvisionalNumbers, Reader, RequestBody,
    RequestHeader, ResponseBody, ResponseHeader,
};
use serde::Serialize;

use super::input::{read_bytes, read_text};
use super::EXIT_FINDING;

/// Overrides for the numbers KIP-1324 leaves provisional.
#[derive(Debug, Args)]
pub(super) struct ProvisionalArgs {
    /// PushConfig's API key on the wire (provisional; default 95).
    #[arg(long, value_name = "N")]
    push_config_api_key: Option<i16>,
    /// CONFIG_TOO_LARGE's error code on the wire (provisional; default 137).
    #[arg(long, value_name = "N")]
    config_too_large_code: Option<i16>,
}

impl ProvisionalArgs {
    fn numbers(&self) -> ProvisionalNumbers {
        let mut n = ProvisionalNumbers::default();
        if let Some(k) = self.push_config_api_key {
            n.push_config_api_key = ApiKey(k);
        }
        if let Some(c) = self.config_too_large_code {
            n.config_too_large = ErrorCode(c);
        }
        n
    }
}

/// Arguments of `kipcheck decode`.
#[derive(Debug, Args)]
pub(crate) struct DecodeArgs {
    /// The bytes: hex text, @FILE (hex text or raw binary), or - for standard input.
    input: String,
    /// Decode a request (the default): a size-prefixed frame whose header names the API
    /// and version.
    #[arg(long, conflicts_with = "response")]
    request: bool,
    /// Decode a response to a request of --api at --version: a size-prefixed frame.
    #[arg(long)]
    response: bool,
    /// The input is a bare body: no size prefix, no header (needs --api and --version).
    #[arg(long)]
    body: bool,
    /// API name (ApiVersions, PushConfig, ...), message name or key number.
    #[arg(long, value_name = "NAME")]
    api: Option<String>,
    /// API version.
    #[arg(long, value_name = "N")]
    version: Option<i16>,
    /// Print JSON instead of YAML.
    #[arg(long)]
    json: bool,
    /// Largest accepted frame size in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = codec::limits::DEFAULT_MAX_FRAME_SIZE)]
    max_frame_size: usize,
    #[command(flatten)]
    provisional: ProvisionalArgs,
}

/// Arguments of `kipcheck encode`.
#[derive(Debug, Args)]
pub(crate) struct EncodeArgs {
    /// A YAML (or JSON) file holding the message body with Kafka's field names (the `body`
    /// part of what `kipcheck decode` prints), or - for standard input.
    file: String,
    /// API name (ApiVersions, PushConfig, ...), message name or key number.
    #[arg(long, value_name = "NAME")]
    api: String,
    /// API version.
    #[arg(long, value_name = "N")]
    version: i16,
    /// Encode a request (the default).
    #[arg(long, conflicts_with = "response")]
    request: bool,
    /// Encode a response.
    #[arg(long)]
    response: bool,
    /// Print only the body, without size prefix and header.
    #[arg(long)]
    body: bool,
    /// Correlation id for the header.
    #[arg(long, default_value_t = 1)]
    correlation_id: i32,
    /// Client id for a request header (omit for null).
    #[arg(long)]
    client_id: Option<String>,
    #[command(flatten)]
    provisional: ProvisionalArgs,
}

#[derive(Serialize)]
struct View<'a, H: Serialize, B: Serialize> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    frame_size: Option<usize>,
    api: &'static str,
    api_key: i16,
    version: i16,
    #[serde(skip_serializing_if = "Option::is_none")]
    header_version: Option<i16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    header: Option<&'a H>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    fallback_v0: bool,
    body: &'a B,
}

fn print<T: Serialize>(value: &T, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        print!(
            "{}",
            serde_saphyr::to_string(value).map_err(|e| anyhow!("rendering YAML: {e}"))?
        );
    }
    Ok(())
}

fn lookup(api: &str, response: bool) -> anyhow::Result<&'static BodyInfo> {
    let info = if response {
        ResponseBody::info_by_name(api)
    } else {
        RequestBody::info_by_name(api)
    };
    info.ok_or_else(|| {
        let known: Vec<&str> = RequestBody::KNOWN.iter().map(|i| i.name).collect();
        anyhow!("unknown API {api:?}; known: {}", known.join(", "))
    })
}

fn report(err: &DecodeError) -> ExitCode {
    eprintln!("decode error: {err}");
    ExitCode::from(EXIT_FINDING)
}

/// Runs `kipcheck decode`.
pub(super) fn decode(a: DecodeArgs) -> anyhow::Result<ExitCode> {
    let bytes = read_bytes(&a.input)?;
    let numbers = a.provisional.numbers();
    if a.body {
        let (Some(api), Some(version)) = (&a.api, a.version) else {
            bail!("--body needs --api and --version");
        };
        let info = lookup(api, a.response)?;
        let mut r = Reader::new(&bytes);
        let kind = if a.response {
            "response body"
        } else {
            "request body"
        };
        let result = if a.response {
            ResponseBody::decode(info.api_key, &mut r, version).map(Body::Response)
        } else {
            RequestBody::decode(info.api_key, &mut r, version).map(Body::Request)
        };
        let body = match result
            .and_then(|b| r.expect_end().map(|_| b).map_err(|e| e.root(info.message)))
        {
            Ok(b) => b,
            Err(e) => return Ok(report(&e)),
        };
        print(
            &View::<(), _> {
                kind,
                frame_size: None,
                api: info.name,
                api_key: numbers.wire_api_key(info.api_key).0,
                version,
                header_version: None,
                header: None,
                fallback_v0: false,
                body: &body,
            },
            a.json,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.response {
        let (Some(api), Some(version)) = (&a.api, a.version) else {
            bail!("--response needs --api and --version (a response header does not name its API)");
        };
        let info = lookup(api, true)?;
        let d = match codec::decode_response_frame(&bytes, a.max_frame_size, info.api_key, version)
        {
            Ok(d) => d,
            Err(e) => return Ok(report(&e)),
        };
        print(
            &View {
                kind: "response",
                frame_size: Some(bytes.len() - 4),
                api: info.name,
                api_key: numbers.wire_api_key(info.api_key).0,
                version: d.version,
                header_version: Some(d.header_version),
                header: Some(&d.header),
                fallback_v0: d.fallback_v0,
                body: &d.body,
            },
            a.json,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.api.is_some() || a.version.is_some() {
        bail!("a framed request names its own API and version; --api/--version go with --response or --body");
    }
    let d = match codec::decode_request_frame(&bytes, a.max_frame_size, &numbers) {
        Ok(d) => d,
        Err(e) => return Ok(report(&e)),
    };
    let info = RequestBody::info(d.api_key).context("decoded API has no info")?;
    print(
        &View {
            kind: "request",
            frame_size: Some(bytes.len() - 4),
            api: info.name,
            api_key: d.header.request_api_key,
            version: d.header.request_api_version,
            header_version: Some(d.header_version),
            header: Some(&d.header),
            fallback_v0: false,
            body: &d.body,
        },
        a.json,
    )?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
#[serde(untagged)]
enum Body {
    Request(RequestBody),
    Response(ResponseBody),
}

/// Runs `kipcheck encode`.
pub(super) fn encode(a: EncodeArgs) -> anyhow::Result<ExitCode> {
    let numbers = a.provisional.numbers();
    let info = lookup(&a.api, a.response)?;
    if !info.valid.contains(a.version) {
        bail!(
            "{} has versions {}, not {}",
            info.message,
            info.valid,
            a.version
        );
    }
    let text = read_text(&a.file)?;
    let out = if a.response {
        let body = serde_saphyr::with_deserializer_from_str(&text, |d| {
            ResponseBody::deserialize_for(info.api_key, d)
        })
        .map_err(|e| anyhow!("{}: {e}", a.file))?;
        if a.body {
            body.to_bytes(a.version)?
        } else {
            let header = ResponseHeader {
                correlation_id: a.correlation_id,
                ..Default::default()
            };
            codec::encode_response_frame(&header, &body, a.version)?
        }
    } else {
        let body = serde_saphyr::with_deserializer_from_str(&text, |d| {
            RequestBody::deserialize_for(info.api_key, d)
        })
        .map_err(|e| anyhow!("{}: {e}", a.file))?;
        if a.body {
            body.to_bytes(a.version)?
        } else {
            let header = RequestHeader {
                request_api_key: numbers.wire_api_key(info.api_key).0,
                request_api_version: a.version,
                correlation_id: a.correlation_id,
                client_id: a.client_id.as_deref().map(Into::into),
                ..Default::default()
            };
            codec::encode_request_frame(&header, &body, &numbers)?
        }
    };
    println!("{}", codec::to_hex(&out));
    Ok(ExitCode::SUCCESS)
}
