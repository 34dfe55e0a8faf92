//! The `frame_reader` target: the input decides a list of frames, a maximum size and how
//! the resulting byte stream is cut into reads. Oracles: [`FrameReader`] yields exactly the
//! frames, in order; a size prefix over the maximum is an error before its payload is
//! buffered, so the buffer never holds more than the maximum plus one read.

use arbitrary::Unstructured;

use crate::codec::FrameReader;

/// Runs one stream chosen by `data`.
pub fn frame_reader(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let max: usize = u.int_in_range(0..=512)?;
    let count: usize = u.int_in_range(0..=8)?;
    let mut frames: Vec<Vec<u8>> = Vec::new();
    let mut stream = Vec::new();
    let mut oversize_at = None;
    for i in 0..count {
        let len: usize = u.int_in_range(0..=600)?;
        let payload: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
        stream.extend_from_slice(&(len as i32).to_be_bytes());
        stream.extend_from_slice(&payload);
        if len > max && oversize_at.is_none() {
            oversize_at = Some(frames.len());
        }
        frames.push(payload);
    }
    let mut reader = FrameReader::new(max);
    let mut got = Vec::new();
    let mut failed = false;
    let mut pos = 0;
    while pos < stream.len() && !failed {
        let step: usize = u.int_in_range(1..=64).unwrap_or(64);
        let end = (pos + step).min(stream.len());
        reader.push(&stream[pos..end]);
        pos = end;
        loop {
            match reader.next_frame() {
                Ok(Some(f)) => got.push(f),
                Ok(None) => break,
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        assert!(
            reader.buffered() <= max + 4 + 64,
            "buffer grew to {} with max {max}",
            reader.buffered()
        );
    }
    match oversize_at {
        Some(i) => {
            assert!(failed, "oversize frame {i} not rejected");
            assert_eq!(got, frames[..i], "frames before the oversize one");
        }
        None => {
            assert!(!failed, "valid stream rejected");
            assert_eq!(got, frames, "frames differ");
        }
    }
    Ok(())
}
