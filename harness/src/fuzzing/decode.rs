//! Decoder targets: any bytes as a framed request or response. Oracle: whatever decodes
//! re-encodes, and the re-encoding decodes to the same message (checked by decoding it
//! unless the re-encoding is the input itself, which decoded to that message already).

use crate::codec::{self, pick_response, ProvisionalNumbers};

/// Largest frame the fuzz entry points accept: bounds memory per input.
pub use crate::codec::limits::PEER_MAX_FRAME_SIZE as FUZZ_MAX_FRAME;

/// Any bytes as a framed request (the header picks API and version). Oracle: whatever
/// decodes re-encodes, and the re-encoding decodes to the same request.
pub fn decode_request(data: &[u8]) {
    let numbers = ProvisionalNumbers::default();
    let Ok(first) = codec::decode_request_frame(data, FUZZ_MAX_FRAME, &numbers) else {
        return;
    };
    let again = codec::encode_request_frame(&first.header, &first.body, &numbers)
        .expect("a decoded request must re-encode");
    if again == data {
        // Canonical input: decoding the re-encoding would decode these very bytes again.
        return;
    }
    let second = codec::decode_request_frame(&again, usize::MAX, &numbers)
        .expect("a re-encoded request must decode");
    assert_eq!(first, second, "decode(encode(decode(x))) != decode(x)");
}

/// Any bytes as a framed response: the first byte picks the API, the second the version,
/// the rest is the frame. Oracle as for [`decode_request`].
pub fn decode_response(data: &[u8]) {
    let Some((api_key, version, frame)) = pick_response(data) else {
        return;
    };
    let Ok(first) = codec::decode_response_frame(frame, FUZZ_MAX_FRAME, api_key, version) else {
        return;
    };
    let again = codec::encode_response_frame(&first.header, &first.body, first.version)
        .expect("a decoded response must re-encode");
    if again == frame {
        // Canonical input: decoding the re-encoding would decode these very bytes again.
        return;
    }
    let second = codec::decode_response_frame(&again, usize::MAX, api_key, first.version)
        .expect("a re-encoded response must decode");
    assert_eq!(
        first.body, second.body,
        "response body changed across re-encoding"
    );
    assert_eq!(
        first.header, second.header,
        "response header changed across re-encoding"
    );
}
