//! Every truncation of valid frames.

use super::*;

pub(super) const VALID_REQUESTS: &[&str] = &[
    "00000032001200040000000100126b61666b612d707974686f6e2d70726f6265\
     000d6b61666b612d707974686f6e07332e302e313200",
    "000000460012000300000001000d72646b61666b612d70726f62650017636f6e\
     666c75656e742d6b61666b612d707974686f6e16322e31362e312d72646b61666b\
     612d322e31362e3000",
    "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00",
    "0000001c 0012 0004 00000007 000163 00 096b61666b612d7273 06302e312e30 00",
];

/// (API, version, frame)
const VALID_RESPONSES: &[(ApiKey, i16, &str)] = &[
    (
        ApiKey::PUSH_CONFIG,
        0,
        "0000000d 00000001 00 00000000 0000 00 00",
    ),
    (
        ApiKey::API_VERSIONS,
        4,
        "00000013 00000007 0000 02 0012 0000 0004 00 00000000 00",
    ),
    (
        ApiKey::API_VERSIONS,
        4,
        "00000010 00000007 0023 00000001 0012 0000 0004",
    ),
];

#[test]
fn every_truncation_of_valid_frames_is_an_error() {
    for frame in VALID_REQUESTS {
        let frame = hex(frame);
        request_frame(&frame).expect("the full frame decodes");
        let payload = &frame[4..];
        for n in 0..frame.len() {
            let e = request_frame(&frame[..n])
                .expect_err(&format!("prefix of {n} bytes of {}", to_hex(&frame)));
            assert!(e.offset() <= n, "{e} for a {n}-byte prefix");
            // The same prefix of the payload, with a size prefix that matches it.
            if n < payload.len() {
                let mut refit = (n as i32).to_be_bytes().to_vec();
                refit.extend_from_slice(&payload[..n]);
                let e = request_frame(&refit).expect_err(&format!(
                    "refitted prefix of {n} bytes of {}",
                    to_hex(&frame)
                ));
                assert!(e.offset() <= refit.len(), "{e}");
                let e = decode_request(&payload[..n], 4, &ProvisionalNumbers::default())
                    .expect_err("payload prefix");
                assert!(e.offset() <= n + 4, "{e}");
            }
        }
    }
    for (api, version, frame) in VALID_RESPONSES {
        let frame = hex(frame);
        decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, *api, *version)
            .expect("the full frame decodes");
        let payload = &frame[4..];
        for n in 0..frame.len() {
            let e = decode_response_frame(&frame[..n], DEFAULT_MAX_FRAME_SIZE, *api, *version)
                .expect_err("prefix");
            assert!(e.offset() <= n, "{e}");
            if n < payload.len() {
                let e = decode_response(&payload[..n], 4, *api, *version).expect_err(&format!(
                    "payload prefix of {n} bytes of {}",
                    to_hex(&frame)
                ));
                assert!(e.offset() <= n + 4, "{e}");
            }
        }
    }
}
