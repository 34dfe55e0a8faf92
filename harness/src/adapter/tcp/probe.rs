//! A live target's ApiVersions probe ([`probe`], run once when a `tcp://` target is built)
//! and what it learnt ([`Probe`]): the APIs and versions the target advertises, the
//! metadata.version it finalizes, and the highest version of an API both sides speak
//! ([`common_version`]). Blocking and bounded; it must not judge the answer (a target that
//! does not answer is unreachable, every scenario then errors with the reason).

use std::io::Write;
use std::net::ToSocketAddrs;
use std::sync::Arc;

use super::level::finalized_metadata_version;
use super::IO_TIMEOUT;
use crate::adapter::error::{ProbeError, ProbeStage};
use crate::codec::{
    self,
    limits::{DEFAULT_MAX_FRAME_SIZE, PEER_MAX_FRAME_SIZE},
    ApiKey, ApiVersionsRequest, ProvisionalNumbers, RequestBody, RequestHeader, ResponseBody,
};
use crate::net::{BlockingFrames, NetError};

/// One API the target advertised: key (wire), min and max version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdvertisedApi {
    /// API key on the wire.
    pub api_key: i16,
    /// Lowest version.
    pub min_version: i16,
    /// Highest version.
    pub max_version: i16,
}

/// What the probe learned from the target's ApiVersions answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The ApiVersions version the answer was read at.
    pub version: i16,
    /// Every advertised API.
    pub apis: Vec<AdvertisedApi>,
    /// The `metadata.version` level the answer says is finalized (ApiVersions v3+
    /// `FinalizedFeatures`, valid only with `FinalizedFeaturesEpoch` >= 0): the level a live
    /// controller runs at, which overrides its manifest's `finalized`.
    pub finalized_metadata_version: Option<i16>,
}

impl Probe {
    /// The advertised range of `wire_key`, if any.
    pub fn range(&self, wire_key: ApiKey) -> Option<AdvertisedApi> {
        self.apis.iter().copied().find(|a| a.api_key == wire_key.0)
    }
}

/// Asks the target at `addr` for its ApiVersions (v3, then v0 after a KIP-511 fallback),
/// blocking, every step bounded by [`IO_TIMEOUT`].
pub fn probe(addr: &str, numbers: &ProvisionalNumbers) -> Result<Probe, ProbeError> {
    let at = || addr.to_owned();
    let sock = addr
        .to_socket_addrs()
        .map_err(|e| ProbeError::Resolve {
            addr: at(),
            source: Arc::new(e),
        })?
        .next()
        .ok_or_else(|| ProbeError::NoAddress { addr: at() })?;
    let io = |stage, e| ProbeError::Io {
        stage,
        addr: at(),
        source: Arc::new(e),
    };
    let mut version = 3;
    loop {
        let mut s = std::net::TcpStream::connect_timeout(&sock, IO_TIMEOUT)
            .map_err(|e| io(ProbeStage::Connect, e))?;
        s.set_read_timeout(Some(IO_TIMEOUT))
            .map_err(|e| io(ProbeStage::Socket, e))?;
        s.set_write_timeout(Some(IO_TIMEOUT))
            .map_err(|e| io(ProbeStage::Socket, e))?;
        let body = RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: Some("kipcheck".into()),
            client_software_version: Some(env!("CARGO_PKG_VERSION").into()),
            ..Default::default()
        });
        let header = RequestHeader {
            request_api_key: ApiKey::API_VERSIONS.0,
            request_api_version: version,
            correlation_id: 1,
            client_id: Some("kipcheck-probe".into()),
            ..Default::default()
        };
        let frame =
            codec::encode_request_frame(&header, &body, numbers).map_err(ProbeError::Encode)?;
        s.write_all(&frame).map_err(|e| io(ProbeStage::Write, e))?;
        let resp = BlockingFrames::new(s, at(), PEER_MAX_FRAME_SIZE)
            .next(IO_TIMEOUT)
            .map_err(|source| match source {
                NetError::OverCap { claimed, .. } => ProbeError::Oversize {
                    addr: at(),
                    claimed,
                },
                e if e.mid_frame() => ProbeError::CutShort {
                    addr: at(),
                    source: e,
                },
                e => ProbeError::NoAnswer {
                    addr: at(),
                    source: e,
                },
            })?;
        let decoded = codec::decode_response_frame(
            &resp,
            DEFAULT_MAX_FRAME_SIZE,
            ApiKey::API_VERSIONS,
            version,
        )
        .map_err(|source| ProbeError::Decode { addr: at(), source })?;
        let ResponseBody::ApiVersions(av) = decoded.body else {
            return Err(ProbeError::OtherApi);
        };
        if decoded.fallback_v0 && version > 0 {
            version = 0;
            continue;
        }
        if av.error_code != 0 {
            return Err(ProbeError::ErrorCode {
                error_code: av.error_code,
            });
        }
        return Ok(Probe {
            version,
            apis: av
                .api_keys
                .iter()
                .map(|k| AdvertisedApi {
                    api_key: k.api_key,
                    min_version: k.min_version,
                    max_version: k.max_version,
                })
                .collect(),
            finalized_metadata_version: finalized_metadata_version(&av),
        });
    }
}

/// The highest version of `key` both kipcheck's codec and the target speak.
pub(super) fn common_version(probe: &Probe, key: ApiKey) -> Option<i16> {
    let ours = RequestBody::info(key)?.valid;
    let theirs = probe.range(key)?;
    let v = ours.max.min(theirs.max_version);
    (v >= ours.min.max(theirs.min_version)).then_some(v)
}
