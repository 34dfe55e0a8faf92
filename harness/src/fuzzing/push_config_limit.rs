//! The `push_config_limit` target: arbitrary PushConfig requests (entries and unknown tagged
//! fields) against the broker model at an arbitrary `client.config.max.bytes`, under both
//! size measures of the profile, through the broker's one entry point (`handle_request` with
//! the encoded body, as a frame reaches it).
//!
//! Oracle, with the size computed here independently of the model's `measure`:
//! - the response carries the profile's wire code for CONFIG_TOO_LARGE (canonical
//!   [`ErrorCode::CONFIG_TOO_LARGE`]) iff the measured size exceeds the maximum;
//! - when too large, the policy is not invoked (`policy_invocations()` unchanged, no
//!   `PolicyInvoked` event after the push's `PushConfigReceived`);
//! - `PushConfigReceived` logs exactly that size and maximum;
//! - a successful response means the policy was invoked exactly once for it;
//! - the broker's invariants hold after every push.

use arbitrary::{Arbitrary, Unstructured};

use crate::codec::{ErrorCode, Message, PushConfigRequest, ResponseBody};
use crate::model::{
    BrokerModel, BrokerReply, BrokerRequest, BrokerSettings, Event, Millis, PolicyVerdict,
    SizeMeasure,
};

/// Runs one broker and up to four pushes chosen by `data`.
pub fn push_config_limit(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
}

/// The size of the encoded `body` of `req` under `measure`: the whole body, the body
/// without its top-level tagged-field section (the body with no unknown tags is the
/// `Configs` array plus a one-byte empty tag section), or the UTF-8 bytes of the keys and
/// values, each key counted once.
fn expected_size(measure: SizeMeasure, req: &PushConfigRequest, body: &[u8]) -> usize {
    match measure {
        SizeMeasure::RequestBody => body.len(),
        SizeMeasure::ConfigsArray => {
            let untagged = PushConfigRequest {
                configs: req.configs.clone(),
                ..Default::default()
            };
            let len = untagged.to_bytes(0).expect("re-encodes").len();
            assert!(body.len() >= len, "tags cannot shrink the body");
            len - 1
        }
        // Computed apart from the broker's own measure: the last value of each key.
        SizeMeasure::KeyValueBytes => {
            let mut sizes: Vec<(&str, usize)> = Vec::new();
            for c in &req.configs {
                let (k, v) = (c.config_key.as_str(), c.config_value.as_str());
                match sizes.iter_mut().find(|(key, _)| *key == k) {
                    Some(slot) => slot.1 = k.len() + v.len(),
                    None => sizes.push((k, k.len() + v.len())),
                }
            }
            let size: usize = sizes.iter().map(|(_, n)| n).sum();
            assert!(
                size <= body.len(),
                "key and value bytes are part of the body"
            );
            size
        }
    }
}

fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let mut profile = super::profile::arbitrary_readings(u)?;
    profile.defaults.client_config_max_bytes = u.int_in_range(0..=20_000)?;
    let mut settings = BrokerSettings::new(1);
    settings.policy = Some(if bool::arbitrary(u)? {
        PolicyVerdict::Accept
    } else {
        PolicyVerdict::Reject {
            message: "policy says no".into(),
        }
    });
    // Mostly small limits, so both sides of the boundary are reached.
    settings.client_config_max_bytes = match u.int_in_range(0..=3)? {
        0 => None,
        1 => Some(u32::arbitrary(u)?),
        _ => Some(u.int_in_range(0..=600)?),
    };
    let mut broker = BrokerModel::new(settings, &profile).expect("no server.properties");
    let max = broker.max_bytes() as usize;
    let too_large_wire = profile
        .provisional
        .wire_error(ErrorCode::CONFIG_TOO_LARGE)
        .0;
    let pushes = u.int_in_range(1..=4)?;
    for i in 0..pushes {
        let req = PushConfigRequest::arbitrary(u)?;
        let Ok(body) = req.to_bytes(0) else {
            continue;
        };
        // What the broker sees on the wire is the decoded form of `body`.
        let req = PushConfigRequest::from_bytes(&body, 0).expect("what we encode decodes");
        let size = expected_size(profile.size_measure, &req, &body);
        let too_large = size > max;
        let calls_before = broker.policy_invocations();
        let events_before = broker.events().len();
        let now = Millis(i);
        let reply = broker.handle_request(
            now,
            &BrokerRequest {
                api_key: profile.provisional.push_config_api_key,
                api_version: 0,
                body: body.clone(),
            },
        );
        let resp = match reply {
            BrokerReply::Response {
                api_key,
                body: ResponseBody::PushConfig(r),
                ..
            } => {
                assert_eq!(api_key, profile.provisional.push_config_api_key);
                r
            }
            other => panic!("a well-formed PushConfig got {other:?}"),
        };
        assert_eq!(
            resp.error_code == too_large_wire,
            too_large,
            "size {size} ({:?}), max {max}: response error {} (CONFIG_TOO_LARGE is {too_large_wire} on the wire)",
            profile.size_measure,
            resp.error_code
        );
        let new_events = &broker.events()[events_before..];
        assert!(
            matches!(
                new_events.first().map(|e| &e.event),
                Some(Event::PushConfigReceived { size: s, max_bytes: m }) if *s == size && *m as usize == max
            ),
            "expected PushConfigReceived {{ size: {size}, max_bytes: {max} }}, got {new_events:?}"
        );
        let invoked = new_events
            .iter()
            .filter(|e| matches!(e.event, Event::PolicyInvoked { .. }))
            .count() as u64;
        assert_eq!(
            broker.policy_invocations() - calls_before,
            invoked,
            "policy_invocations() disagrees with the events"
        );
        if too_large {
            assert_eq!(
                invoked, 0,
                "policy invoked for a request of {size} > {max} bytes"
            );
        }
        if resp.error_code == 0 {
            assert_eq!(invoked, 1, "accepted without invoking the policy");
        }
        if let Err(v) = broker.check_invariants() {
            panic!("{v}");
        }
    }
    Ok(())
}
