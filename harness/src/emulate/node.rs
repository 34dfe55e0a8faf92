//! The emulated node: what kipcheck answers in place when it plays a broker for a client under
//! test (`kipcheck serve`, the `client-cmd:` listeners), and the ApiVersions list the runner's
//! client steps and the fuzz targets answer with. Test machinery of the harness, not the KIP
//! reference (`model`), which it builds on; the simulated world's driver is
//! [`cluster`](super::cluster), not here. One place for each piece:
//!
//! - the request header, read once from a frame as [`net`](crate::net) hands it on
//!   ([`read_request`]);
//! - the ApiVersions list ([`emulated_api_versions`]; [`advertise_metadata`] adds the Metadata
//!   range to any list, e.g. the reference [`BrokerModel`](crate::model::BrokerModel)'s under
//!   `serve`), built on the reference broker's own entries
//!   ([`handshake_api_versions`](crate::model::handshake_api_versions));
//! - the KIP-511 answer to an ApiVersions version the node does not speak (the reference
//!   broker's [`api_versions_unsupported`](crate::model::api_versions_unsupported), framed by
//!   [`Request::answer_unspoken_api_versions`]);
//! - the Metadata answer ([`metadata_answer`]; framed by [`Request::answer_metadata`]);
//! - the SASL answers to a client that authenticates ([`sasl_handshake_answer`],
//!   [`sasl_authenticate_answer`]: PLAIN enabled, every token accepted).
//!
//! Pure and synchronous: the callers own the sockets. It decides nothing about PushConfig.

use crate::codec::api_versions_response::ApiVersion;
use crate::codec::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use crate::codec::{
    decode_request_header, encode_response_frame, smallvec, ApiKey, ApiVersionsRequest,
    ApiVersionsResponse, DecodeError, EncodeError, ErrorCode, Message, MetadataRequest,
    MetadataResponse, ProvisionalNumbers, Reader, RequestHeader, ResponseBody, ResponseHeader,
    SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
    SmallVec, Uuid, VersionRange,
};

use crate::hash::Fnv1a64;
use crate::model::{api_version_range as range, api_versions_unsupported, handshake_api_versions};

/// The Metadata versions an emulated node advertises: v4-13, as Kafka 4.4 brokers (KIP-896
/// removed v0-3). It answers every version the codec decodes all the same.
pub const METADATA_VERSIONS: VersionRange = VersionRange::new(4, 13);

/// The SASL mechanism an emulated broker enables (the one its SaslHandshake answer lists).
pub const SASL_MECHANISM: &str = "PLAIN";

/// The ApiVersions answer of an emulated broker: Metadata at [`METADATA_VERSIONS`] and
/// ApiVersions v0-5 (as Kafka 4.4 brokers; the codec's range), plus PushConfig v0 under
/// `push_config` (its provisional api key) when the broker supports it, and with `sasl` (a SASL
/// listener: the client under test [`uses_sasl`](crate::model::uses_sasl)) SaslHandshake v0-1
/// and SaslAuthenticate v0-2. Keys are sorted, as Kafka sends them.
pub fn emulated_api_versions(push_config: Option<ApiKey>, sasl: bool) -> ApiVersionsResponse {
    let mut keys = handshake_api_versions(push_config);
    advertise_metadata(&mut keys);
    if sasl {
        keys.push(range(
            ApiKey::SASL_HANDSHAKE,
            SaslHandshakeRequest::VALID_VERSIONS,
        ));
        keys.push(range(
            ApiKey::SASL_AUTHENTICATE,
            SaslAuthenticateRequest::VALID_VERSIONS,
        ));
        keys.sort_by_key(|k| k.api_key);
    }
    ApiVersionsResponse {
        api_keys: keys,
        throttle_time_ms: Some(0),
        ..Default::default()
    }
}

/// Lists Metadata at [`METADATA_VERSIONS`] among `keys` (an entry already there is replaced),
/// keys sorted.
pub fn advertise_metadata(keys: &mut Vec<ApiVersion>) {
    keys.retain(|k| k.api_key != ApiKey::METADATA.0);
    keys.push(range(ApiKey::METADATA, METADATA_VERSIONS));
    keys.sort_by_key(|k| k.api_key);
}

/// An emulated broker's SaslHandshake answer: no error, [`SASL_MECHANISM`] enabled.
pub fn sasl_handshake_answer() -> SaslHandshakeResponse {
    SaslHandshakeResponse {
        error_code: ErrorCode::NONE.0,
        mechanisms: vec![SASL_MECHANISM.into()],
    }
}

/// An emulated broker's SaslAuthenticate answer: the token is accepted (no error, a null
/// message, no server token, no session lifetime). A scenario that wants authentication to
/// fail answers SASL_AUTHENTICATION_FAILED itself.
pub fn sasl_authenticate_answer() -> SaslAuthenticateResponse {
    SaslAuthenticateResponse {
        error_code: ErrorCode::NONE.0,
        error_message: None,
        session_lifetime_ms: Some(0),
        ..Default::default()
    }
}

/// Why an emulated node cannot read or answer a request in place (its connection ends).
#[derive(Debug, thiserror::Error)]
pub enum InPlaceError {
    /// The request header does not decode.
    #[error("request header does not decode: {source}")]
    Header {
        /// The codec's error.
        #[source]
        source: DecodeError,
    },
    /// A Metadata version the codec does not have.
    #[error("Metadata version {version} unsupported")]
    MetadataVersion {
        /// The version asked.
        version: i16,
    },
    /// A Metadata request body that does not decode.
    #[error("Metadata request does not decode: {source}")]
    Metadata {
        /// The request's version.
        version: i16,
        /// The codec's error.
        #[source]
        source: DecodeError,
    },
    /// kipcheck cannot encode its own answer.
    #[error("cannot encode the {answer}: {source}")]
    Encode {
        /// Which answer (`ApiVersions fallback`, `Metadata answer`).
        answer: &'static str,
        /// The codec's error.
        #[source]
        source: EncodeError,
    },
}

/// A request frame's header, read once, and its still-encoded body.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The header (its `RequestApiKey` as sent on the wire).
    pub header: RequestHeader,
    /// The canonical API key (a provisional wire key translated).
    pub api_key: ApiKey,
    /// The body, positioned for decoding (error offsets count from the frame's first byte).
    pub body: Reader<'a>,
}

/// Reads the header of a request frame (size prefix included, as the `net` readers hand it on;
/// the prefix itself is not checked again).
pub fn read_request<'a>(
    frame: &'a [u8],
    numbers: &ProvisionalNumbers,
) -> Result<Request<'a>, InPlaceError> {
    let payload = frame.get(4..).unwrap_or_default();
    let (_, header, api_key, body) = decode_request_header(payload, 4, numbers)
        .map_err(|source| InPlaceError::Header { source })?;
    Ok(Request {
        header,
        api_key,
        body,
    })
}

impl Request<'_> {
    /// The request's version.
    pub fn version(&self) -> i16 {
        self.header.request_api_version
    }

    /// An ApiVersions request at a version newer than the codec speaks (KIP-511: the node
    /// answers it in place, in the v0 layout).
    pub fn is_unspoken_api_versions(&self) -> bool {
        self.api_key == ApiKey::API_VERSIONS
            && !ApiVersionsRequest::VALID_VERSIONS.contains(self.version())
    }

    /// The KIP-511 answer frame: UNSUPPORTED_VERSION with `advertised`'s ranges
    /// ([`api_versions_unsupported`]), encoded at v0 under the request's correlation id.
    pub fn answer_unspoken_api_versions(
        &self,
        advertised: ApiVersionsResponse,
    ) -> Result<Vec<u8>, InPlaceError> {
        let body = ResponseBody::ApiVersions(api_versions_unsupported(advertised));
        self.answer(&body, 0, "ApiVersions fallback")
    }

    /// The Metadata answer frame ([`metadata_answer`] for `brokers` and `catalog`) at the
    /// request's version. Metadata is scaffolding (it lets a client bootstrap), not what a
    /// scenario judges: bytes after a well-formed body are left alone (librdkafka 2.16 sends
    /// three after its Metadata v13 body).
    pub fn answer_metadata(
        &self,
        brokers: &[MetadataBroker],
        catalog: &TopicCatalog<'_>,
    ) -> Result<Vec<u8>, InPlaceError> {
        let version = self.version();
        if !MetadataRequest::VALID_VERSIONS.contains(version) {
            return Err(InPlaceError::MetadataVersion { version });
        }
        let req = MetadataRequest::decode(&mut self.body.clone(), version)
            .map_err(|source| InPlaceError::Metadata { version, source })?;
        let body = ResponseBody::Metadata(metadata_answer(brokers, catalog, &req));
        self.answer(&body, version, "Metadata answer")
    }

    fn answer(
        &self,
        body: &ResponseBody,
        version: i16,
        answer: &'static str,
    ) -> Result<Vec<u8>, InPlaceError> {
        let h = ResponseHeader {
            correlation_id: self.header.correlation_id,
            ..Default::default()
        };
        encode_response_frame(&h, body, version)
            .map_err(|source| InPlaceError::Encode { answer, source })
    }
}

/// One broker a Metadata answer lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataBroker {
    /// Node id.
    pub node_id: i32,
    /// Host clients connect to.
    pub host: String,
    /// Port clients connect to.
    pub port: i32,
}

/// The topics an emulated cluster answers Metadata with.
#[derive(Clone, Copy, Debug)]
pub struct TopicCatalog<'a> {
    /// Topics that exist (one partition each).
    pub known: &'a [String],
    /// A requested topic that does not exist is created on the spot when the request allows
    /// auto-creation and the name is a valid topic name (Kafka's default broker behaviour).
    pub auto_create: bool,
}

/// Kafka's topic-name rule: 1 to 249 characters of `[a-zA-Z0-9._-]`, and neither `.` nor `..`.
pub fn is_valid_topic_name(name: &str) -> bool {
    (1..=249).contains(&name.len())
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// How a requested topic is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TopicState {
    /// Exists (or was just auto-created): one partition led by the first broker.
    Present,
    /// UNKNOWN_TOPIC_OR_PARTITION.
    Unknown,
    /// INVALID_TOPIC_EXCEPTION: the name can never be a topic.
    Invalid,
}

/// The Metadata answer of an emulated cluster: `brokers` (the first is the controller and
/// leads every partition) and the topics of `catalog` (all of them for a null topic list, else
/// the requested ones: known or auto-created ones present, others with
/// UNKNOWN_TOPIC_OR_PARTITION or INVALID_TOPIC_EXCEPTION); [`Request::answer_metadata`] frames it.
pub fn metadata_answer(
    brokers: &[MetadataBroker],
    catalog: &TopicCatalog<'_>,
    req: &MetadataRequest,
) -> MetadataResponse {
    let node = brokers.first().map_or(-1, |b| b.node_id);
    let names: Vec<(String, TopicState)> = match &req.topics {
        None => catalog
            .known
            .iter()
            .map(|t| (t.clone(), TopicState::Present))
            .collect(),
        Some(ts) => ts
            .iter()
            .filter_map(|t| t.name.as_ref().map(|n| n.to_string()))
            .map(|n| {
                let state = if catalog.known.contains(&n) {
                    TopicState::Present
                } else if !is_valid_topic_name(&n) {
                    TopicState::Invalid
                } else if catalog.auto_create && req.allow_auto_topic_creation.unwrap_or(true) {
                    TopicState::Present
                } else {
                    TopicState::Unknown
                };
                (n, state)
            })
            .collect(),
    };
    let topics = names
        .into_iter()
        .map(|(name, state)| MetadataResponseTopic {
            error_code: match state {
                TopicState::Present => ErrorCode::NONE.0,
                TopicState::Unknown => ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.0,
                TopicState::Invalid => ErrorCode::INVALID_TOPIC_EXCEPTION.0,
            },
            topic_id: Some(if state == TopicState::Present {
                topic_id(&name)
            } else {
                Uuid([0; 16])
            }),
            name: Some(name.into()),
            partitions: if state == TopicState::Present {
                vec![MetadataResponsePartition {
                    partition_index: 0,
                    leader_id: node,
                    leader_epoch: Some(0),
                    replica_nodes: smallvec![node],
                    isr_nodes: smallvec![node],
                    offline_replicas: Some(SmallVec::new()),
                    ..Default::default()
                }]
            } else {
                Vec::new()
            },
            ..Default::default()
        })
        .collect();
    MetadataResponse {
        brokers: brokers
            .iter()
            .map(|b| MetadataResponseBroker {
                node_id: b.node_id,
                host: b.host.clone().into(),
                port: b.port,
                ..Default::default()
            })
            .collect(),
        cluster_id: Some(Some("kipcheck-cluster".into())),
        controller_id: Some(node),
        topics,
        ..Default::default()
    }
}

/// A stable, non-zero topic id derived from the name (FNV-1a, both halves).
fn topic_id(name: &str) -> Uuid {
    let mut h = Fnv1a64::new();
    let mut bytes = [0u8; 16];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        h.write(name.as_bytes());
        h.write(&[i as u8]);
        chunk.copy_from_slice(&h.finish().to_be_bytes());
    }
    Uuid(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{self, RequestBody};

    fn numbers() -> ProvisionalNumbers {
        ProvisionalNumbers::default()
    }

    fn request_frame(api_key: ApiKey, version: i16, body: RequestBody) -> Vec<u8> {
        let header = RequestHeader {
            request_api_key: api_key.0,
            request_api_version: version,
            correlation_id: 7,
            client_id: Some("t".into()),
            ..Default::default()
        };
        codec::encode_request_frame(&header, &body, &numbers()).unwrap()
    }

    fn keys(av: &ApiVersionsResponse) -> Vec<(i16, i16, i16)> {
        av.api_keys
            .iter()
            .map(|k| (k.api_key, k.min_version, k.max_version))
            .collect()
    }

    #[test]
    fn the_list_has_metadata_4_to_13_api_versions_0_to_5_and_push_config_when_supported() {
        assert_eq!(
            keys(&emulated_api_versions(Some(ApiKey(95)), false)),
            [(3, 4, 13), (18, 0, 5), (95, 0, 0)]
        );
        assert_eq!(
            keys(&emulated_api_versions(None, false)),
            [(3, 4, 13), (18, 0, 5)]
        );
        assert_eq!(
            keys(&emulated_api_versions(Some(ApiKey(95)), true)),
            [(3, 4, 13), (17, 0, 1), (18, 0, 5), (36, 0, 2), (95, 0, 0)]
        );
        let mut listed = vec![range(ApiKey::METADATA, VersionRange::new(0, 1))];
        advertise_metadata(&mut listed);
        assert_eq!(
            listed
                .iter()
                .map(|k| (k.min_version, k.max_version))
                .collect::<Vec<_>>(),
            [(4, 13)]
        );
    }

    #[test]
    fn an_unspoken_api_versions_version_is_answered_in_the_v0_layout() {
        // ApiVersions v6 (one past the codec), header v2: key, version, correlation id 9, a
        // null client id, no tagged fields.
        let frame = codec::frame(b"\0\x12\0\x06\0\0\0\x09\xff\xff\0").unwrap();
        let req = read_request(&frame, &numbers()).unwrap();
        assert!(req.is_unspoken_api_versions());
        let answer = req
            .answer_unspoken_api_versions(emulated_api_versions(None, false))
            .unwrap();
        let d =
            codec::decode_response_frame(&answer, answer.len(), ApiKey::API_VERSIONS, 6).unwrap();
        assert_eq!((d.fallback_v0, d.header.correlation_id), (true, 9));
        let ResponseBody::ApiVersions(av) = d.body else {
            panic!("not ApiVersions: {:?}", d.body)
        };
        assert_eq!(av.error_code, ErrorCode::UNSUPPORTED_VERSION.0);
        assert_eq!(keys(&av), [(3, 4, 13), (18, 0, 5)]);
        let spoken = request_frame(
            ApiKey::API_VERSIONS,
            5,
            RequestBody::ApiVersions(ApiVersionsRequest::default()),
        );
        assert!(!read_request(&spoken, &numbers())
            .unwrap()
            .is_unspoken_api_versions());
    }

    #[test]
    fn metadata_is_answered_with_bytes_after_its_body_left_alone() {
        let body = RequestBody::Metadata(MetadataRequest {
            topics: None,
            ..Default::default()
        });
        let mut payload = request_frame(ApiKey::METADATA, 13, body)[4..].to_vec();
        payload.extend_from_slice(b"xyz");
        let frame = codec::frame(&payload).unwrap();
        let brokers = [MetadataBroker {
            node_id: 2,
            host: "h".into(),
            port: 9,
        }];
        let known = ["t1".to_owned()];
        let catalog = TopicCatalog {
            known: &known,
            auto_create: false,
        };
        let answer = read_request(&frame, &numbers())
            .unwrap()
            .answer_metadata(&brokers, &catalog)
            .unwrap();
        let d = codec::decode_response_frame(&answer, answer.len(), ApiKey::METADATA, 13).unwrap();
        assert_eq!(d.header.correlation_id, 7);
        let ResponseBody::Metadata(m) = d.body else {
            panic!("not Metadata: {:?}", d.body)
        };
        let listed: Vec<(i32, String, i32)> = m
            .brokers
            .iter()
            .map(|b| (b.node_id, b.host.to_string(), b.port))
            .collect();
        assert_eq!(listed, [(2, "h".to_owned(), 9)]);
        let topics: Vec<(String, i16, usize)> = m
            .topics
            .iter()
            .map(|t| {
                let name = t.name.as_ref().map(ToString::to_string);
                (name.unwrap_or_default(), t.error_code, t.partitions.len())
            })
            .collect();
        assert_eq!(topics, [("t1".to_owned(), 0, 1)]);
        assert_eq!(m.controller_id, Some(2));
    }

    #[test]
    fn what_cannot_be_read_or_answered_is_a_typed_error() {
        let short = codec::frame(b"\0\x03\0").unwrap();
        let e = read_request(&short, &numbers()).unwrap_err();
        assert!(matches!(e, InPlaceError::Header { .. }), "{e:?}");
        // Metadata v14 (past the codec), header v2 with a null client id.
        let v14 = codec::frame(b"\0\x03\0\x0e\0\0\0\x01\xff\xff\0").unwrap();
        let brokers: [MetadataBroker; 0] = [];
        let catalog = TopicCatalog {
            known: &[],
            auto_create: false,
        };
        let e = read_request(&v14, &numbers())
            .unwrap()
            .answer_metadata(&brokers, &catalog)
            .unwrap_err();
        assert_eq!(e.to_string(), "Metadata version 14 unsupported");
        let cut = codec::frame(b"\0\x03\0\x0d\0\0\0\x01\xff\xff\0\x05").unwrap();
        let e = read_request(&cut, &numbers())
            .unwrap()
            .answer_metadata(&brokers, &catalog)
            .unwrap_err();
        assert!(
            matches!(e, InPlaceError::Metadata { version: 13, .. }),
            "{e:?}"
        );
    }
}
