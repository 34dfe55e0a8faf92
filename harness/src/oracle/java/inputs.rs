//! The inputs fed to both codecs: valid messages built per (message, version) — the default
//! value and, with the `arbitrary` feature, seeded random values — and the fuzz corpus
//! replayed (`corpus/decode_request`, `corpus/decode_response`: frames whose header names the
//! API and version; `corpus/regressions`: bodies tried against every pair). Deterministic:
//! same seed, same files, same inputs.

use std::path::{Path, PathBuf};

use super::body::AnyBody;
use super::normalise::without_tagged;
use super::pair::Pair;
use super::{Kind, OracleError};
use crate::codec::{
    peek_request, request_header_version, response_header_version, split_frame, Message, Reader,
    RequestHeader, ResponseHeader,
};

/// Random values tried per (message, version) when the `arbitrary` feature is on.
pub const RANDOM_PER_VERSION: usize = 60;

/// Where an input came from (printed with a disagreement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSource {
    /// The message's default value.
    Default,
    /// The n-th random value of the seed.
    Random(u64, usize),
    /// A corpus file.
    Corpus(PathBuf),
}

/// One body to decode with both codecs.
#[derive(Clone, Debug)]
pub struct Input {
    /// Request, response or record.
    pub kind: Kind,
    /// Canonical API key (record type).
    pub api_key: i16,
    /// Version.
    pub version: i16,
    /// The body bytes.
    pub bytes: Vec<u8>,
    /// Where it came from.
    pub source: InputSource,
}

/// Bodies our encoder writes for every pair: the default value, and (with the `arbitrary`
/// feature) [`RANDOM_PER_VERSION`] random values from `seed`, projected onto the version,
/// without unknown tagged fields in non-flexible versions. Values our encoder refuses are
/// skipped (the round-trip tests cover our encoder; here the question is Kafka's reading).
pub fn generated_inputs(pairs: &[Pair], seed: u64) -> Vec<Input> {
    let mut out = Vec::new();
    for p in pairs {
        let mut push = |body: AnyBody, source: InputSource| {
            let mut body = body.project(p.version);
            if !p.flexible {
                let json = without_tagged(&body.to_json());
                body = AnyBody::from_json(p.kind, p.api_key, json)
                    .expect("our JSON without _tagged reads back");
            }
            if let Ok(bytes) = body.to_bytes(p.version) {
                out.push(Input {
                    kind: p.kind,
                    api_key: p.api_key,
                    version: p.version,
                    bytes,
                    source,
                });
            }
        };
        if let Some(d) = AnyBody::default_for(p.kind, p.api_key) {
            push(d, InputSource::Default);
        }
        random_values(p, seed, &mut push);
    }
    out
}

#[cfg(feature = "arbitrary")]
fn random_values(p: &Pair, seed: u64, push: &mut dyn FnMut(AnyBody, InputSource)) {
    use crate::model::ModelRng;
    // One stream per pair, so a disagreement reproduces on its own.
    let salt = (p.kind as u64) << 40 | (p.api_key as u16 as u64) << 16 | p.version as u16 as u64;
    let mut rng = ModelRng::new(seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for n in 0..RANDOM_PER_VERSION {
        let len = rng.below(1025) as usize;
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if let Some(b) = AnyBody::arbitrary(p.kind, p.api_key, &data) {
            push(b, InputSource::Random(seed, n));
        }
    }
}

#[cfg(not(feature = "arbitrary"))]
fn random_values(_: &Pair, _: u64, _: &mut dyn FnMut(AnyBody, InputSource)) {}

fn files(dir: &Path) -> Result<Vec<PathBuf>, OracleError> {
    let err = |source| OracleError::Corpus {
        path: dir.to_path_buf(),
        source,
    };
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(err)? {
        let e = e.map_err(err)?;
        let path = e.path();
        if path.is_file() {
            out.push(path);
        } else if path.is_dir() {
            out.extend(files(&path)?);
        }
    }
    out.sort();
    Ok(out)
}

fn read(path: &Path) -> Result<Vec<u8>, OracleError> {
    std::fs::read(path).map_err(|source| OracleError::Corpus {
        path: path.to_path_buf(),
        source,
    })
}

/// The body of a framed request (as in `corpus/decode_request`): the header (whose version
/// follows from its API key and version) is decoded with our codec, the rest is the body.
/// `None` if the frame or the header does not decode: then there is no body to compare.
fn request_body(frame: &[u8]) -> Option<(i16, i16, Vec<u8>)> {
    let (payload, _) = split_frame(frame, usize::MAX).ok()?;
    let peek = peek_request(payload);
    let (key, version) = (peek.api_key?, peek.api_version?);
    let mut r = Reader::new(payload);
    RequestHeader::decode(&mut r, request_header_version(key, version)).ok()?;
    Some((key.0, version, r.rest().to_vec()))
}

/// The body of a `corpus/decode_response` input: the first byte picks the API, the second
/// the version (as the `decode_response` fuzz target reads them), the rest is the frame.
fn response_body(data: &[u8]) -> Option<(i16, i16, Vec<u8>)> {
    let (key, version, frame) = crate::codec::pick_response(data)?;
    let (payload, _) = split_frame(frame, usize::MAX).ok()?;
    let mut r = Reader::new(payload);
    ResponseHeader::decode(&mut r, response_header_version(key, version)).ok()?;
    Some((key.0, version, r.rest().to_vec()))
}

/// The fuzz corpus under `corpus_dir` as inputs for the `pairs` both codecs know: request
/// and response frames by their own API and version; every regression file as the body of
/// every pair.
pub fn corpus_inputs(corpus_dir: &Path, pairs: &[Pair]) -> Result<Vec<Input>, OracleError> {
    let mut out = Vec::new();
    let known = |kind: Kind, key: i16, version: i16| {
        pairs
            .iter()
            .any(|p| p.kind == kind && p.api_key == key && p.version == version)
    };
    type Split = fn(&[u8]) -> Option<(i16, i16, Vec<u8>)>;
    let framed: [(&str, Kind, Split); 2] = [
        ("decode_request", Kind::Request, request_body),
        ("decode_response", Kind::Response, response_body),
    ];
    for (dir, kind, split) in framed {
        let dir = corpus_dir.join(dir);
        if !dir.is_dir() {
            continue;
        }
        for path in files(&dir)? {
            if let Some((api_key, version, bytes)) = split(&read(&path)?) {
                if known(kind, api_key, version) {
                    out.push(Input {
                        kind,
                        api_key,
                        version,
                        bytes,
                        source: InputSource::Corpus(path),
                    });
                }
            }
        }
    }
    let regressions = corpus_dir.join("regressions");
    if regressions.is_dir() {
        for path in files(&regressions)? {
            let bytes = read(&path)?;
            for p in pairs {
                out.push(Input {
                    kind: p.kind,
                    api_key: p.api_key,
                    version: p.version,
                    bytes: bytes.clone(),
                    source: InputSource::Corpus(path.clone()),
                });
            }
        }
    }
    Ok(out)
}
