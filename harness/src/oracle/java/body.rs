//! [`AnyBody`]: a request, response or metadata-record body behind one type, so the oracle
//! handles all three dispatch tables with one piece of code.

use serde_json::Value;

use super::Kind;
use crate::codec::{
    ApiKey, BodyInfo, DecodeError, EncodeError, MetadataRecordBody, Reader, RequestBody,
    ResponseBody,
};

/// A decoded body of any kind.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum AnyBody {
    Request(RequestBody),
    Response(ResponseBody),
    Record(MetadataRecordBody),
}

/// Runs `$e` on the inner body `$b`, whatever its kind.
macro_rules! each {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            AnyBody::Request($b) => $e,
            AnyBody::Response($b) => $e,
            AnyBody::Record($b) => $e,
        }
    };
}

/// Wraps `$e` (a result of one concrete body type) back into [`AnyBody`] by `$kind`.
macro_rules! by_kind {
    ($kind:expr, $T:ident => $e:expr) => {
        match $kind {
            Kind::Request => {
                type $T = RequestBody;
                $e.map(AnyBody::Request)
            }
            Kind::Response => {
                type $T = ResponseBody;
                $e.map(AnyBody::Response)
            }
            Kind::Record => {
                type $T = MetadataRecordBody;
                $e.map(AnyBody::Record)
            }
        }
    };
}

impl AnyBody {
    /// What the codec knows of `kind`.
    pub(crate) fn known(kind: Kind) -> &'static [BodyInfo] {
        match kind {
            Kind::Request => RequestBody::KNOWN,
            Kind::Response => ResponseBody::KNOWN,
            Kind::Record => MetadataRecordBody::KNOWN,
        }
    }

    /// Decodes all of `bytes`; trailing bytes are an error, as in `Message::from_bytes`.
    pub(crate) fn decode(
        kind: Kind,
        api_key: i16,
        bytes: &[u8],
        version: i16,
    ) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let body = by_kind!(kind, T => T::decode(ApiKey(api_key), &mut r, version))?;
        r.expect_end()?;
        Ok(body)
    }

    /// Our serde form with Kafka's field names.
    pub(crate) fn from_json(kind: Kind, api_key: i16, v: Value) -> Result<Self, serde_json::Error> {
        by_kind!(kind, T => T::deserialize_for(ApiKey(api_key), v))
    }

    /// The default body.
    pub(crate) fn default_for(kind: Kind, api_key: i16) -> Option<Self> {
        by_kind!(kind, T => T::default_for(ApiKey(api_key)))
    }

    /// A random body of `api_key` from `u` (the enum's variant is picked by the first four
    /// bytes, as `#[derive(Arbitrary)]` does, so they are set to pick `api_key`'s).
    #[cfg(feature = "arbitrary")]
    pub(crate) fn arbitrary(kind: Kind, api_key: i16, data: &[u8]) -> Option<Self> {
        use arbitrary::{Arbitrary, Unstructured};
        let known = Self::known(kind);
        let i = known.iter().position(|k| k.api_key.0 == api_key)? as u64;
        let n = known.len() as u64;
        let pick = u32::try_from((i << 32).div_ceil(n)).ok()?;
        let mut buf = pick.to_le_bytes().to_vec();
        buf.extend_from_slice(data);
        let u = &mut Unstructured::new(&buf);
        let body = by_kind!(kind, T => T::arbitrary(u)).ok()?;
        (body.api_key() == api_key).then_some(body)
    }

    /// The canonical API key (record type).
    #[cfg(feature = "arbitrary")]
    pub(crate) fn api_key(&self) -> i16 {
        each!(self, b => b.api_key().0)
    }

    /// Encodes at `version`.
    pub(crate) fn to_bytes(&self, version: i16) -> Result<Vec<u8>, EncodeError> {
        each!(self, b => b.to_bytes(version))
    }

    /// The projection onto `version`.
    pub(crate) fn project(&self, version: i16) -> Self {
        match self {
            AnyBody::Request(b) => AnyBody::Request(b.project(version)),
            AnyBody::Response(b) => AnyBody::Response(b.project(version)),
            AnyBody::Record(b) => AnyBody::Record(b.project(version)),
        }
    }

    /// Our serde form.
    pub(crate) fn to_json(&self) -> Value {
        each!(self, b => serde_json::to_value(b).expect("bodies serialize"))
    }
}
