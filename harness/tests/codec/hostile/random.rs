//! Seeded random and mutated frames.

use super::truncation::VALID_REQUESTS;
use super::*;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

const SEED: u64 = 0x5eed_c0de_1324_1326;
const INPUTS: usize = 20_000;

/// Valid request frames to mutate: the vectors, plus the default body of every API at every
/// version.
fn request_corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = VALID_REQUESTS.iter().map(|h| hex(h)).collect();
    for info in RequestBody::KNOWN {
        for v in info.valid.iter() {
            let header = RequestHeader {
                request_api_key: info.api_key.0,
                request_api_version: v,
                correlation_id: 9,
                client_id: Some("k".into()),
                ..Default::default()
            };
            let body = RequestBody::default_for(info.api_key).expect("default");
            out.push(
                encode_request_frame(&header, &body, &ProvisionalNumbers::default())
                    .expect("default encodes"),
            );
        }
    }
    out
}

fn mutate(rng: &mut XorShift, base: &[u8]) -> Vec<u8> {
    let mut f = base.to_vec();
    for _ in 0..=rng.below(4) {
        match rng.below(5) {
            0 if !f.is_empty() => {
                let i = rng.below(f.len());
                f[i] ^= 1 << rng.below(8);
            }
            1 if !f.is_empty() => {
                let i = rng.below(f.len());
                f[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(f.len() + 1);
                let n = 1 + rng.below(4);
                let b = rng.bytes(n);
                f.splice(i..i, b);
            }
            3 if f.len() > 4 => {
                let i = 4 + rng.below(f.len() - 4);
                let n = 1 + rng.below((f.len() - i).min(4));
                f.drain(i..i + n);
            }
            _ => {
                let i = rng.below(f.len() + 1);
                f.insert(i, [0x00, 0x7f, 0x80, 0xff][rng.below(4)]);
            }
        }
    }
    // Usually keep the size prefix consistent so that the payload is what gets tested.
    if f.len() >= 4 && rng.below(4) != 0 {
        let size = (f.len() - 4) as i32;
        f[..4].copy_from_slice(&size.to_be_bytes());
    }
    f
}

fn sized(payload: Vec<u8>) -> Vec<u8> {
    let mut f = (payload.len() as i32).to_be_bytes().to_vec();
    f.extend(payload);
    f
}

#[test]
fn random_and_mutated_frames_never_panic() {
    let corpus = request_corpus();
    let numbers = ProvisionalNumbers::default();
    let mut rng = XorShift(SEED);
    let mut decoded = 0usize;
    let mut response_decoded = 0usize;
    for i in 0..INPUTS {
        let state = rng.0;
        let frame = match i % 4 {
            0 => {
                let n = rng.below(48);
                sized(rng.bytes(n))
            }
            1 => {
                // A plausible header for a known API, then random bytes.
                let info = &RequestBody::KNOWN[rng.below(RequestBody::KNOWN.len())];
                let v = info.valid.min - 1
                    + rng.below((info.valid.max - info.valid.min + 3) as usize) as i16;
                let mut p = info.api_key.0.to_be_bytes().to_vec();
                p.extend(v.to_be_bytes());
                let n = 4 + rng.below(40);
                p.extend(rng.bytes(n));
                sized(p)
            }
            _ => {
                let base = &corpus[rng.below(corpus.len())];
                mutate(&mut rng, base)
            }
        };
        let context = || {
            format!(
                "seed {SEED:#x}, input #{i} (rng state {state:#x}): {}",
                to_hex(&frame)
            )
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            decode_request_frame(&frame, DEFAULT_MAX_FRAME_SIZE, &numbers)
        }))
        .unwrap_or_else(|_| panic!("decode_request_frame panicked; {}", context()));
        match result {
            Ok(d) => {
                decoded += 1;
                // What decodes re-encodes, and the re-encoding decodes to the same value.
                let again = encode_request_frame(&d.header, &d.body, &numbers)
                    .unwrap_or_else(|e| panic!("re-encode failed: {e}; {}", context()));
                let d2 = decode_request_frame(&again, DEFAULT_MAX_FRAME_SIZE, &numbers)
                    .unwrap_or_else(|e| panic!("re-encoding does not decode: {e}; {}", context()));
                assert_eq!(d2, d, "{}", context());
            }
            Err(e) => assert!(e.offset() <= frame.len(), "{e}; {}", context()),
        }
        // The same bytes as a response of every API and version (plus one past each end).
        if i % 4 != 1 {
            for info in ResponseBody::KNOWN {
                for v in info.valid.min - 1..=info.valid.max + 1 {
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        decode_response_frame(&frame, DEFAULT_MAX_FRAME_SIZE, info.api_key, v)
                    }))
                    .unwrap_or_else(|_| {
                        panic!(
                            "decode_response_frame({}, v{v}) panicked; {}",
                            info.name,
                            context()
                        )
                    });
                    match r {
                        Ok(_) => response_decoded += 1,
                        Err(e) => assert!(e.offset() <= frame.len(), "{e}; {}", context()),
                    }
                }
            }
        }
    }
    // The sweep must reach past the header: some inputs decode.
    assert!(
        decoded > 100,
        "only {decoded} requests decoded (seed {SEED:#x})"
    );
    assert!(
        response_decoded > 100,
        "only {response_decoded} responses decoded (seed {SEED:#x})"
    );
}
