//! The `roundtrip` target: an arbitrary typed message and version. Oracles: encoding then
//! decoding gives the value projected onto the version; the encoded bytes are canonical
//! (decoding and re-encoding them reproduces them); `encoded_len` is exact.

use arbitrary::{Arbitrary, Unstructured};

use crate::codec::{
    Message, MetadataRecordBody, Reader, RequestBody, RequestHeader, ResponseBody, ResponseHeader,
    VersionRange,
};

fn pick_version(u: &mut Unstructured<'_>, valid: VersionRange) -> arbitrary::Result<i16> {
    u.int_in_range(valid.min..=valid.max)
}

macro_rules! check_body {
    ($enum:ident, $value:expr, $version:expr) => {{
        let value: $enum = $value;
        let version: i16 = $version;
        if let Ok(bytes) = value.to_bytes(version) {
            let key = value.api_key();
            let mut r = Reader::new(&bytes);
            let decoded = $enum::decode(key, &mut r, version).unwrap_or_else(|e| {
                panic!(
                    "{} v{version}: own encoding does not decode: {e}",
                    value.message_name()
                )
            });
            assert_eq!(
                r.remaining(),
                0,
                "{} v{version}: trailing bytes",
                value.message_name()
            );
            assert_eq!(
                decoded,
                value.project(version),
                "{} v{version}: decode(encode(x)) != project(x)",
                value.message_name()
            );
            let again = decoded
                .to_bytes(version)
                .expect("a decoded value re-encodes");
            assert_eq!(
                again,
                bytes,
                "{} v{version}: encoding is not canonical",
                value.message_name()
            );
        }
    }};
}

fn check_message<T: Message>(value: T, version: i16) {
    if let Ok(bytes) = value.to_bytes(version) {
        assert_eq!(
            value.encoded_len(version).ok(),
            Some(bytes.len()),
            "{} v{version}: encoded_len",
            T::NAME
        );
        let decoded = T::from_bytes(&bytes, version).unwrap_or_else(|e| {
            panic!("{} v{version}: own encoding does not decode: {e}", T::NAME)
        });
        assert_eq!(
            decoded,
            value.project(version),
            "{} v{version}: decode(encode(x)) != project(x)",
            T::NAME
        );
        assert_eq!(
            decoded.to_bytes(version).ok(),
            Some(bytes),
            "{} v{version}: not canonical",
            T::NAME
        );
    }
}

/// Runs one round trip chosen by `data`.
pub fn roundtrip(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    match u.int_in_range(0..=4u8)? {
        0 => {
            let body = RequestBody::arbitrary(u)?;
            let info = RequestBody::info(body.api_key()).expect("known");
            let v = pick_version(u, info.valid)?;
            check_body!(RequestBody, body, v);
        }
        1 => {
            let body = ResponseBody::arbitrary(u)?;
            let info = ResponseBody::info(body.api_key()).expect("known");
            let v = pick_version(u, info.valid)?;
            check_body!(ResponseBody, body, v);
        }
        2 => {
            let body = MetadataRecordBody::arbitrary(u)?;
            let info = MetadataRecordBody::info(body.api_key()).expect("known");
            let v = pick_version(u, info.valid)?;
            check_body!(MetadataRecordBody, body, v);
        }
        3 => {
            let h = RequestHeader::arbitrary(u)?;
            let v = pick_version(u, RequestHeader::VALID_VERSIONS)?;
            check_message(h, v);
        }
        _ => {
            let h = ResponseHeader::arbitrary(u)?;
            let v = pick_version(u, ResponseHeader::VALID_VERSIONS)?;
            check_message(h, v);
        }
    }
    Ok(())
}
