//! Body patterns are checked against the codec's message schema when a scenario loads: a
//! misspelt field, a field of another version, an unknown error-code or API name, a value
//! that can never match the field's type are load errors at the pattern key's own
//! `file:line:col`, with the source line and a caret. Each test asserts the exact message
//! and position.

use std::path::{Path, PathBuf};

use kipcheck::scenario::{load_file, LoadError, ScenarioBuilder};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("scenario_body_schema")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("area")).expect("mkdir");
    d
}

/// A broker scenario `id` whose steps (from line 7 on) are `steps`.
fn scenario(id: &str, roles: &str, steps: &str) -> String {
    format!("id: {id}\ntitle: t\nkip: KIP-1324\ngrade: MUST\nroles: [{roles}]\nsteps:\n{steps}")
}

fn load(id: &str, roles: &str, steps: &str) -> Result<kipcheck::scenario::Scenario, LoadError> {
    let root = dir(id);
    let p = root.join("area").join(format!("{id}.yaml"));
    std::fs::write(&p, scenario(id, roles, steps)).expect("write");
    load_file(&p, &root)
}

fn err(id: &str, roles: &str, steps: &str) -> LoadError {
    load(id, roles, steps).expect_err("must not load")
}

#[test]
fn a_misspelt_top_level_field_is_located_at_its_key_with_a_snippet() {
    let e = err(
        "top",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_response: { body: { ErrorCod: NONE } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ErrorCod: no such field in PushConfigResponse v0, the answer to \
         step 1; fields there: ThrottleTimeMs, ErrorCode, ErrorMessage"
    );
    assert_eq!((e.line, e.col), (8, 32), "{e}");
    assert_eq!(
        e.snippet.as_deref(),
        Some(
            " 8 |   - expect_response: { body: { ErrorCod: NONE } }\n   |                                ^"
        )
    );
    let shown = e.to_string();
    let (first, rest) = shown.split_once('\n').expect("two parts");
    assert!(
        first.ends_with(&format!(":8:32: {}", e.message())),
        "{shown}"
    );
    assert_eq!(Some(rest), e.snippet.as_deref());
}

#[test]
fn a_misspelt_field_of_an_array_element_names_the_element_struct_fields() {
    let e = err(
        "nested",
        "client",
        "  - start\n  - expect_request:\n      from: 1\n      api: PushConfig\n      version: 0\n      body:\n        Configs:\n          - { ConfigKey: client.id, ConfigValu: app }\n",
    );
    assert_eq!(
        e.message(),
        "expect_request: body.Configs[0].ConfigValu: no such field in PushConfigRequest v0; \
         fields there: ConfigKey, ConfigValue, ConfigType, IsDefault"
    );
    assert_eq!((e.line, e.col), (14, 37), "{e}");
}

#[test]
fn a_field_of_another_version_is_refused_unless_the_pattern_is_absent() {
    let steps = |p: &str| {
        format!("  - send: {{ api: ApiVersions, version: 0 }}\n  - expect_response: {{ body: {{ ErrorCode: NONE, ThrottleTimeMs: {p} }} }}\n")
    };
    let e = err("version", "broker", &steps("0"));
    assert_eq!(
        e.message(),
        "expect_response: body.ThrottleTimeMs: the field exists only in versions 1-5 of \
         ApiVersionsResponse; this response is version 0"
    );
    assert_eq!((e.line, e.col), (8, 49), "{e}");
    load("version-absent", "broker", &steps("$absent")).expect("$absent is allowed");
    load(
        "version-any-of-absent",
        "broker",
        &steps("{ $any_of: [$absent, 0] }"),
    )
    .expect("an alternative of $absent is allowed");
}

#[test]
fn an_unknown_error_code_name_is_refused_naming_the_field() {
    let e = err(
        "code",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_response:\n      body:\n        ErrorCode: CONFIG_TOO_BIG\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ErrorCode: unknown error code name \"CONFIG_TOO_BIG\" in \
         PushConfigResponse v0, the answer to step 1"
    );
    assert_eq!((e.line, e.col), (10, 9), "{e}");
}

#[test]
fn patterns_under_any_of_are_checked_at_the_same_position() {
    let e = err(
        "any-of",
        "broker",
        "  - send: { api: ApiVersions, version: 3 }\n  - expect_response:\n      body:\n        ApiKeys:\n          $each:\n            $any_of:\n              - { ApiKey: PushConfig }\n              - { ApiKey: Metadata, MaxVerison: 12 }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ApiKeys[*].MaxVerison: no such field in ApiVersionsResponse v3 \
         or v0, the answer to step 1; fields there: ApiKey, MinVersion, MaxVersion"
    );
    assert_eq!((e.line, e.col), (14, 37), "{e}");
}

#[test]
fn an_unknown_api_name_and_an_impossible_type_are_refused() {
    let e = err(
        "api-name",
        "broker",
        "  - send: { api: ApiVersions, version: 3 }\n  - expect_response: { body: { ApiKeys: { $contains: [ { ApiKey: PushConfigs } ] } } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ApiKeys[*].ApiKey: unknown API name \"PushConfigs\" in \
         ApiVersionsResponse v3 or v0, the answer to step 1"
    );
    assert_eq!((e.line, e.col), (8, 58), "{e}");
    let e = err(
        "type",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_response: { body: { ThrottleTimeMs: fast } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ThrottleTimeMs: \"fast\" never matches int32 (in \
         PushConfigResponse v0, the answer to step 1)"
    );
    let e = err(
        "not-nullable",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_response: { body: { ErrorCode: null } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ErrorCode: null never matches int16, not nullable (in \
         PushConfigResponse v0, the answer to step 1)"
    );
    let e = err(
        "range",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_response: { body: { ErrorMessage: { $range: [1, 2] } } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ErrorMessage: {\"$range\":[1,2]} never matches string (in \
         PushConfigResponse v0, the answer to step 1)"
    );
    assert_eq!((e.line, e.col), (8, 32), "{e}");
    load(
        "null-ok",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_response: { body: { ErrorMessage: null, _tagged: $absent } }\n",
    )
    .expect("ErrorMessage is nullable; _tagged is the unknown tagged fields");
}

#[test]
fn each_expectation_is_checked_against_the_request_it_answers() {
    // Two requests on conn 0, then on conn 1: answers pair oldest first, per connection;
    // an expect_close takes one too.
    let e = err(
        "pairing",
        "broker",
        "  - send: { api: ApiVersions, version: 3 }\n  - send: { api: PushConfig, version: 0 }\n  - send: { api: PushConfig, version: 0, conn: 1 }\n  - expect_close: { conn: 1 }\n  - expect_response: { body: { ApiKeys: $any } }\n  - expect_response: { body: { ApiKeys: $any } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ApiKeys: no such field in PushConfigResponse v0, the answer to \
         step 2; fields there: ThrottleTimeMs, ErrorCode, ErrorMessage"
    );
    assert_eq!((e.line, e.col), (12, 32), "{e}");
}

#[test]
fn expect_one_of_responses_are_checked() {
    let e = err(
        "one-of",
        "broker",
        "  - send: { api: PushConfig, version: 0 }\n  - expect_one_of:\n      - close: {}\n      - response: { body: { ErrorMesage: $any } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_one_of: body.ErrorMesage: no such field in PushConfigResponse v0, the answer to \
         step 1; fields there: ThrottleTimeMs, ErrorCode, ErrorMessage"
    );
    assert_eq!((e.line, e.col), (10, 29), "{e}");
}

#[test]
fn respond_bodies_are_checked_against_the_request_taken_for_that_node() {
    let e = err(
        "respond",
        "client",
        "  - start\n  - expect_request: { from: 1, api: ApiVersions }\n  - respond: { to: 1 }\n  - expect_request: { from: 1, api: PushConfig }\n  - respond: { to: 1, body: { ErrorCode: NONE, ThrottleMs: 5 } }\n",
    );
    assert_eq!(
        e.message(),
        "respond: body.ThrottleMs: no such field in PushConfigResponse v0, the answer to the \
         request of step 4; fields there: ThrottleTimeMs, ErrorCode, ErrorMessage"
    );
    assert_eq!((e.line, e.col), (11, 48), "{e}");
    let e = err(
        "respond-matcher",
        "client",
        "  - start\n  - expect_request: { from: 1, api: PushConfig }\n  - respond: { to: 1, body: { ErrorCode: $any } }\n",
    );
    assert_eq!(
        e.message(),
        "respond: body.ErrorCode: this body is sent as written, so it cannot hold the matcher $any"
    );
}

#[test]
fn the_kip511_fallback_layout_is_accepted_for_apiversions() {
    // A v127 request is answered in the v0 layout; a v3 one may be too.
    load(
        "fallback",
        "broker",
        "  - send_raw: { hex: \"0000000b 0012007f 00000001 ffff 00\", api: ApiVersions, version: 127 }\n  - expect_response: { body: { ErrorCode: UNSUPPORTED_VERSION, ApiKeys: { $contains: [ { ApiKey: ApiVersions } ] } } }\n",
    )
    .expect("v0 fields");
    let e = err(
        "fallback-v127",
        "broker",
        "  - send_raw: { hex: \"0000000b 0012007f 00000001 ffff 00\", api: ApiVersions, version: 127 }\n  - expect_response: { body: { ThrottleTimeMs: 0 } }\n",
    );
    assert_eq!(
        e.message(),
        "expect_response: body.ThrottleTimeMs: the field exists only in versions 1-5 of \
         ApiVersionsResponse; this response is version 0"
    );
}

#[test]
fn expect_request_versions_must_exist() {
    let e = err(
        "request-version",
        "client",
        "  - start\n  - expect_request: { from: 1, api: PushConfig, version: 1 }\n",
    );
    assert_eq!(
        e.message(),
        "expect_request: PushConfigRequest has versions 0, not 1"
    );
    assert_eq!((e.line, e.col), (8, 5), "{e}");
}

#[test]
fn scenarios_built_in_rust_are_checked_at_their_step() {
    let e = ScenarioBuilder::new("built", "t", "KIP-1324")
        .role(kipcheck::scenario::Role::Broker)
        .send("PushConfig", 0, serde_json::json!({}))
        .expect_response(serde_json::json!({ "Bogus": 1 }))
        .build()
        .expect_err("must not build");
    assert!(
        e.message()
            .starts_with("expect_response: body.Bogus: no such field in PushConfigResponse v0"),
        "{e}"
    );
    assert_eq!(e.snippet, None);
}

/// An Envelope's forwarded request body and the pattern for its forwarded answer are checked
/// against the inner API's messages (`inner.body`, `inner`), and `inner` is for Envelope only.
#[test]
fn an_envelopes_inner_request_and_answer_are_checked_against_the_inner_api() {
    let send = |inner_body: &str| {
        format!(
            "  - send:\n      api: Envelope\n      version: 0\n      body: {{ ClientHostAddress: \"7f000001\" }}\n      inner: {{ api: IncrementalAlterConfigs, version: 1, body: {inner_body} }}\n"
        )
    };
    let e = err("env-req", "controller", &send("{ ValidateOnlyy: false }"));
    assert_eq!(
        e.message(),
        "send: inner.body.ValidateOnlyy: no such field in IncrementalAlterConfigsRequest v1; \
         fields there: Resources, ValidateOnly"
    );
    assert_eq!((e.line, e.col), (11, 66), "{e}");
    let steps = format!(
        "{}  - expect_response: {{ body: {{ ErrorCode: NONE }}, inner: {{ Responses: [ {{ ErrorCod: NONE }} ] }} }}\n",
        send("{ ValidateOnly: false }")
    );
    let e = err("env-resp", "controller", &steps);
    assert_eq!(
        e.message(),
        "expect_response: inner.Responses[0].ErrorCod: no such field in \
         IncrementalAlterConfigsResponse v1, the answer to step 1; fields there: ErrorCode, \
         ErrorMessage, ResourceType, ResourceName"
    );
    let not_envelope = "  - send: { api: DescribeCluster, version: 0, inner: { api: IncrementalAlterConfigs, version: 1 } }\n";
    let e = err("env-only", "controller", not_envelope);
    assert_eq!(e.message(), "send: inner is for Envelope only");
    assert!(load(
        "env-ok",
        "controller",
        &format!(
            "{}  - expect_response: {{ inner: {{ Responses: [] }} }}\n",
            send("{ ValidateOnly: false }")
        )
    )
    .is_ok());
}
