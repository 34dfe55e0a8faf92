//! metadata.version on a live controller: a scenario that sends UpdateFeatures is bound onto
//! the levels the manifest declares (metadata_version.moves), and when its session ends
//! kipcheck sets the level back to the manifest's finalized one; when it cannot, the next
//! scenarios are errored with the reason. Against an in-process fake controller that applies
//! UpdateFeatures and reports its level in ApiVersions' FinalizedFeatures.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::fake_controller;
use kipcheck::adapter::Target;
use kipcheck::codec::api_versions_response::FinalizedFeatureKey;
use kipcheck::codec::update_features_response::UpdatableFeatureResult;
use kipcheck::codec::{
    ApiKey, ApiVersionsResponse, ErrorCode, RequestBody, ResponseBody, UpdateFeaturesResponse,
};
use kipcheck::runner::{execute, Verdict};
use kipcheck::scenario::{load_text, Scenario};

/// The fake controller: its metadata.version, how many more downgrades it refuses, and
/// every UpdateFeatures it applied as (level, UpgradeType).
struct Fake {
    level: i16,
    refuse_downgrades: u32,
    updates: Vec<(i16, i8)>,
}

fn answer(fake: &Mutex<Fake>, body: &RequestBody) -> ResponseBody {
    let mut f = fake.lock().unwrap();
    match body {
        RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(ApiVersionsResponse {
            api_keys: fake_controller::api_keys(&[
                (ApiKey::API_VERSIONS, 0, 3),
                (ApiKey::UPDATE_FEATURES, 0, 1),
            ]),
            finalized_features_epoch: Some(1),
            finalized_features: Some(vec![FinalizedFeatureKey {
                name: "metadata.version".into(),
                max_version_level: f.level,
                min_version_level: 1,
                ..Default::default()
            }]),
            ..Default::default()
        }),
        RequestBody::UpdateFeatures(u) => {
            let up = &u.feature_updates[0];
            let kind = up.upgrade_type.unwrap_or(1);
            let down = up.max_version_level < f.level;
            let refused = down && (kind == 1 || f.refuse_downgrades > 0);
            if down && kind != 1 && f.refuse_downgrades > 0 {
                f.refuse_downgrades -= 1;
            }
            let code = if refused {
                ErrorCode::INVALID_UPDATE_VERSION
            } else {
                f.level = up.max_version_level;
                f.updates.push((up.max_version_level, kind));
                ErrorCode::NONE
            };
            ResponseBody::UpdateFeatures(UpdateFeaturesResponse {
                error_code: code.0,
                error_message: refused.then(|| "scripted refusal".into()),
                results: Some(vec![UpdatableFeatureResult {
                    feature: up.feature.clone(),
                    ..Default::default()
                }]),
                ..Default::default()
            })
        }
        other => panic!("unexpected request {other:?}"),
    }
}

async fn fake(level: i16) -> (String, Arc<Mutex<Fake>>) {
    let state = Arc::new(Mutex::new(Fake {
        level,
        refuse_downgrades: 0,
        updates: Vec::new(),
    }));
    let shared = state.clone();
    let addr = fake_controller::start(move |body| answer(&shared, body));
    (addr, state)
}

/// A controller at 30 that can move to 31 and be moved down safely.
const MANIFEST: &str = "software: Fake 1\nmetadata_version: { min: 7, max: 40, finalized: 30, moves: { levels: [31], downgrade: safe } }\ncluster_id: fake-cluster\n";

async fn controller(addr: &str) -> Arc<dyn Target> {
    fake_controller::target(addr, Some(MANIFEST)).await
}

/// A scenario at MV 10 that reads the level, then (with `upgrade`) upgrades to 20 and
/// reads 20 back.
fn scenario(upgrade: bool) -> Scenario {
    let read = |level: i16| {
        format!(
            "  - send: {{ api: ApiVersions, version: 3, body: {{ ClientSoftwareName: kipcheck, ClientSoftwareVersion: \"0.1.0\" }} }}\n  - expect_response: {{ body: {{ ErrorCode: NONE, FinalizedFeatures: {{ $contains: [ {{ Name: metadata.version, MaxVersionLevel: {level} }} ] }} }} }}\n"
        )
    };
    let mut text = "id: levels\ntitle: levels\nkip: KIP-1294\ngrade: MUST\nroles: [controller]\nrequires: [metadata_version]\nsetup:\n  controller:\n    metadata_version: 10\nsteps:\n".to_owned();
    text += &read(10);
    if upgrade {
        text += "  - send:\n      api: UpdateFeatures\n      version: 1\n      body:\n        timeoutMs: 60000\n        FeatureUpdates: [ { Feature: metadata.version, MaxVersionLevel: 20, UpgradeType: 1 } ]\n        ValidateOnly: false\n  - expect_response: { body: { ErrorCode: NONE } }\n";
        text += &read(20);
    }
    load_text(
        &text,
        Path::new("scenarios/kip1294/levels.yaml"),
        Path::new("scenarios"),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_level_is_set_back_after_a_scenario_that_moved_it() {
    let (addr, state) = fake(30).await;
    let t = controller(&addr).await;
    // 10 -> 20 binds to 30 -> 31 (the report shows the bound levels).
    let out = execute(t.as_ref(), &scenario(true), 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    // The scenario's upgrade, then kipcheck's safe downgrade back to 30.
    assert_eq!(state.lock().unwrap().updates, [(31, 1), (30, 2)]);
    assert_eq!(state.lock().unwrap().level, 30);
    // The next scenario runs at the finalized level.
    let out = execute(t.as_ref(), &scenario(false), 2).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    // A scenario that sends no UpdateFeatures sets nothing.
    assert_eq!(state.lock().unwrap().updates.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_level_that_cannot_be_set_back_errors_the_next_scenarios_until_it_is() {
    let (addr, state) = fake(30).await;
    let t = controller(&addr).await;
    // The session's own restore and the next session's retry are refused.
    state.lock().unwrap().refuse_downgrades = 2;
    let out = execute(t.as_ref(), &scenario(true), 1).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    assert_eq!(state.lock().unwrap().level, 31);
    let out = execute(t.as_ref(), &scenario(false), 2).await;
    assert_eq!(out.verdict, Verdict::Errored);
    let message = out.failure.unwrap().message;
    assert!(
        message.contains(
            "an earlier scenario changed metadata.version and kipcheck could not set it back \
             to 30 (the manifest's finalized level): it is 31; UpdateFeatures to 30 \
             (UpgradeType 2) answered INVALID_UPDATE_VERSION (95): scripted refusal"
        ),
        "{message}"
    );
    // Never run at the wrong level: the scenario sent nothing of its own.
    assert_eq!(state.lock().unwrap().updates, [(31, 1)]);
    // The controller accepts the downgrade again: the next session restores, then runs.
    let out = execute(t.as_ref(), &scenario(false), 3).await;
    assert_eq!(out.verdict, Verdict::Passed, "{:?}", out.failure);
    assert_eq!(state.lock().unwrap().updates, [(31, 1), (30, 2)]);
}
