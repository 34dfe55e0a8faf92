//! Framing: the incremental [`FrameReader`] over a stream split at every boundary and at
//! seeded random ones; bad size prefixes reported as soon as their 4 bytes arrive, with
//! bounded buffering; [`split_frame`]; and the request/response header version rules.

use kipcheck::codec::limits::DEFAULT_MAX_FRAME_SIZE;
use kipcheck::codec::{
    from_hex, request_header_version, response_body_versions, response_header_version, split_frame,
    to_hex, ApiKey, DecodeErrorKind, FrameReader,
};

fn hex(s: &str) -> Vec<u8> {
    from_hex(s).expect("test hex")
}

/// Four frames: kafka-python and librdkafka ApiVersions, a PushConfig request, and an empty
/// payload.
fn frames() -> Vec<Vec<u8>> {
    [
        "00000032001200040000000100126b61666b612d707974686f6e2d70726f6265\
         000d6b61666b612d707974686f6e07332e302e313200",
        "000000460012000300000001000d72646b61666b612d70726f62650017636f6e\
         666c75656e742d6b61666b612d707974686f6e16322e31362e312d72646b61666b\
         612d322e31362e3000",
        "00000000",
        "0000001d 005f 0000 00000001 000163 00 02 0a636c69656e742e6964 0263 01 00 00 00",
    ]
    .iter()
    .map(|h| hex(h))
    .collect()
}

fn stream() -> (Vec<u8>, Vec<Vec<u8>>) {
    let frames = frames();
    let payloads = frames.iter().map(|f| f[4..].to_vec()).collect();
    (frames.concat(), payloads)
}

/// Feeds `chunks` one at a time, draining complete frames after each.
fn feed<'a>(max: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Vec<Vec<u8>> {
    let mut r = FrameReader::new(max);
    let mut out = Vec::new();
    for c in chunks {
        r.push(c);
        while let Some(f) = r.next_frame().expect("valid stream") {
            out.push(f);
        }
    }
    assert_eq!(r.buffered(), 0, "bytes left over");
    assert_eq!(r.next_frame().expect("empty"), None);
    out
}

#[test]
fn one_push_yields_every_frame() {
    let (bytes, payloads) = stream();
    assert_eq!(feed(DEFAULT_MAX_FRAME_SIZE, [bytes.as_slice()]), payloads);
}

#[test]
fn every_single_split_point_yields_the_same_frames() {
    let (bytes, payloads) = stream();
    for k in 0..=bytes.len() {
        let (a, b) = bytes.split_at(k);
        assert_eq!(
            feed(DEFAULT_MAX_FRAME_SIZE, [a, b]),
            payloads,
            "split at {k}"
        );
    }
}

#[test]
fn every_pair_of_split_points_yields_the_same_frames() {
    let (bytes, payloads) = stream();
    for i in 0..=bytes.len() {
        for j in i..=bytes.len() {
            let chunks = [&bytes[..i], &bytes[i..j], &bytes[j..]];
            assert_eq!(
                feed(DEFAULT_MAX_FRAME_SIZE, chunks),
                payloads,
                "splits at {i}, {j}"
            );
        }
    }
}

#[test]
fn byte_by_byte_yields_the_same_frames() {
    let (bytes, payloads) = stream();
    assert_eq!(feed(DEFAULT_MAX_FRAME_SIZE, bytes.chunks(1)), payloads);
    // The exact maximum is accepted.
    assert_eq!(feed(0x46, bytes.chunks(1)), payloads);
}

#[test]
fn seeded_random_splits_yield_the_same_frames() {
    const SEED: u64 = 0xf4a3_e5ee_d000_0001;
    let (bytes, payloads) = stream();
    let mut state = SEED;
    for round in 0..2000 {
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = (state % 24) as usize; // empty pushes included
            let end = (at + n).min(bytes.len());
            chunks.push(&bytes[at..end]);
            at = end;
        }
        let got = feed(DEFAULT_MAX_FRAME_SIZE, chunks.iter().copied());
        assert_eq!(got, payloads, "seed {SEED:#x}, round {round}");
    }
}

#[test]
fn frames_are_returned_one_at_a_time_and_only_when_complete() {
    let (bytes, payloads) = stream();
    let mut r = FrameReader::new(DEFAULT_MAX_FRAME_SIZE);
    r.push(&bytes[..3]);
    assert_eq!(r.next_frame(), Ok(None));
    assert_eq!(r.buffered(), 3);
    r.push(&bytes[3..10]);
    assert_eq!(r.next_frame(), Ok(None));
    assert_eq!(r.buffered(), 10);
    r.push(&bytes[10..]);
    for p in &payloads {
        assert_eq!(r.next_frame(), Ok(Some(p.clone())));
    }
    assert_eq!(r.next_frame(), Ok(None));
    assert_eq!(r.buffered(), 0);
}

#[test]
fn oversize_prefix_is_reported_before_the_payload_arrives() {
    let mut r = FrameReader::new(16);
    r.push(&hex("000000"));
    assert_eq!(r.next_frame(), Ok(None));
    r.push(&hex("11"));
    let e = r.next_frame().unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::FrameTooLarge { size: 17, max: 16 }
    );
    assert_eq!(e.offset(), 0);
    assert_eq!(e.path(), "frame size");
    assert_eq!(r.buffered(), 4);
    // The stream stays failed and does not buffer what follows.
    for _ in 0..100 {
        r.push(&[0xaa; 1000]);
        assert!(r.buffered() <= 4 + 1000);
        let e = r.next_frame().unwrap_err();
        assert_eq!(
            e.kind(),
            DecodeErrorKind::FrameTooLarge { size: 17, max: 16 }
        );
        assert_eq!(r.buffered(), 4);
    }
}

#[test]
fn two_gib_prefix_is_refused_at_once() {
    let mut r = FrameReader::new(DEFAULT_MAX_FRAME_SIZE);
    r.push(&hex("7fffffff"));
    let e = r.next_frame().unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::FrameTooLarge {
            size: 0x7fff_ffff,
            max: DEFAULT_MAX_FRAME_SIZE
        }
    );
    assert_eq!(r.buffered(), 4);
}

#[test]
fn a_frame_of_exactly_the_maximum_waits_without_buffering_ahead() {
    let mut r = FrameReader::new(DEFAULT_MAX_FRAME_SIZE);
    r.push(&(DEFAULT_MAX_FRAME_SIZE as i32).to_be_bytes());
    assert_eq!(r.next_frame(), Ok(None));
    assert_eq!(r.buffered(), 4);
}

#[test]
fn negative_prefix_is_reported_as_soon_as_its_four_bytes_arrive() {
    let mut r = FrameReader::new(DEFAULT_MAX_FRAME_SIZE);
    for b in hex("ff ff ff") {
        r.push(&[b]);
        assert_eq!(r.next_frame(), Ok(None));
    }
    r.push(&[0xfe]);
    let e = r.next_frame().unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::NegativeFrameSize { size: -2 });
    assert_eq!((e.offset(), e.path()), (0, "frame size".to_owned()));
    assert_eq!(r.buffered(), 4);
}

#[test]
fn a_bad_prefix_after_good_frames_reports_its_stream_offset() {
    let (mut bytes, payloads) = stream();
    let good = bytes.len();
    bytes.extend(hex("80000000 0102030405"));
    let mut r = FrameReader::new(DEFAULT_MAX_FRAME_SIZE);
    r.push(&bytes);
    for p in &payloads {
        assert_eq!(r.next_frame(), Ok(Some(p.clone())));
    }
    let e = r.next_frame().unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::NegativeFrameSize { size: i32::MIN }
    );
    assert_eq!(e.offset(), good);
    assert_eq!(r.buffered(), 4);
    let e = r.next_frame().unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::NegativeFrameSize { size: i32::MIN }
    );
}

#[test]
fn split_frame_takes_one_frame_off_the_front() {
    let (bytes, payloads) = stream();
    let mut rest = bytes.as_slice();
    for p in &payloads {
        let (payload, used) = split_frame(rest, DEFAULT_MAX_FRAME_SIZE).expect("frame");
        assert_eq!(payload, p.as_slice(), "at {}", to_hex(rest));
        assert_eq!(used, p.len() + 4);
        rest = &rest[used..];
    }
    assert!(rest.is_empty());
    assert_eq!(split_frame(&hex("00000000 ffff"), 0), Ok((&[][..], 4)));
}

#[test]
fn split_frame_errors() {
    let e = split_frame(&hex("000000"), 100).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.path()),
        (
            DecodeErrorKind::Truncated {
                needed: 4,
                remaining: 3
            },
            0,
            "frame size".to_owned()
        )
    );
    let e = split_frame(&hex("00000005 0102"), 100).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.path()),
        (
            DecodeErrorKind::Truncated {
                needed: 5,
                remaining: 2
            },
            4,
            "frame".to_owned()
        )
    );
    let e = split_frame(&hex("00000065"), 100).unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::FrameTooLarge {
            size: 101,
            max: 100
        }
    );
    let e = split_frame(&hex("ffffffff"), 100).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::NegativeFrameSize { size: -1 });
}

#[test]
fn request_header_versions() {
    // ApiVersions: flexible from v3.
    for v in 0..=2 {
        assert_eq!(request_header_version(ApiKey::API_VERSIONS, v), 1, "v{v}");
    }
    for v in 3..=4 {
        assert_eq!(request_header_version(ApiKey::API_VERSIONS, v), 2, "v{v}");
    }
    // PushConfig v0 is flexible.
    assert_eq!(request_header_version(ApiKey::PUSH_CONFIG, 0), 2);
    // AlterConfigs: flexible from v2.
    assert_eq!(request_header_version(ApiKey::ALTER_CONFIGS, 0), 1);
    assert_eq!(request_header_version(ApiKey::ALTER_CONFIGS, 1), 1);
    assert_eq!(request_header_version(ApiKey::ALTER_CONFIGS, 2), 2);
    // Metadata: flexible from v9.
    assert_eq!(request_header_version(ApiKey::METADATA, 8), 1);
    assert_eq!(request_header_version(ApiKey::METADATA, 9), 2);
    assert_eq!(
        request_header_version(ApiKey::INCREMENTAL_ALTER_CONFIGS, 0),
        1
    );
    assert_eq!(
        request_header_version(ApiKey::INCREMENTAL_ALTER_CONFIGS, 1),
        2
    );
    assert_eq!(request_header_version(ApiKey::BROKER_REGISTRATION, 0), 2);
    assert_eq!(request_header_version(ApiKey::BROKER_REGISTRATION, 6), 2);
    // An API the codec does not know: v1 (key, version and correlation id still readable).
    assert_eq!(request_header_version(ApiKey::PRODUCE, 9), 1);
    assert_eq!(request_header_version(ApiKey(1000), 0), 1);
}

#[test]
fn response_header_versions() {
    // ApiVersions responses always use header v0 (KIP-511), flexible or not.
    for v in -1..=5 {
        assert_eq!(response_header_version(ApiKey::API_VERSIONS, v), 0, "v{v}");
    }
    assert_eq!(response_header_version(ApiKey::PUSH_CONFIG, 0), 1);
    assert_eq!(response_header_version(ApiKey::ALTER_CONFIGS, 0), 0);
    assert_eq!(response_header_version(ApiKey::ALTER_CONFIGS, 1), 0);
    assert_eq!(response_header_version(ApiKey::ALTER_CONFIGS, 2), 1);
    assert_eq!(response_header_version(ApiKey::METADATA, 8), 0);
    assert_eq!(response_header_version(ApiKey::METADATA, 9), 1);
    assert_eq!(
        response_header_version(ApiKey::GET_TELEMETRY_SUBSCRIPTIONS, 0),
        1
    );
    assert_eq!(response_header_version(ApiKey::PUSH_TELEMETRY, 0), 1);
    assert_eq!(response_header_version(ApiKey(1000), 0), 0);
}

#[test]
fn answers_decode_at_the_request_version_and_apiversions_also_at_v0() {
    assert_eq!(response_body_versions(ApiKey::API_VERSIONS, 3), [3, 0]);
    assert_eq!(response_body_versions(ApiKey::API_VERSIONS, 0), [0]);
    // An unknown version is only ever read in the KIP-511 v0 layout.
    assert_eq!(response_body_versions(ApiKey::API_VERSIONS, 127), [0]);
    assert_eq!(response_body_versions(ApiKey::METADATA, 12), [12]);
    assert_eq!(
        response_body_versions(ApiKey::METADATA, 99),
        Vec::<i16>::new()
    );
    assert_eq!(response_body_versions(ApiKey(-5), 0), Vec::<i16>::new());
}
