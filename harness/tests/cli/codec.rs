//! `kipcheck decode` and `kipcheck encode` end to end: the built binary is run on real
//! client frames and the spec notes' byte examples; output, exit codes and error text are
//! checked exactly.

use std::path::PathBuf;
use std::process::{Command, Output};

const KAFKA_PYTHON: &str = "00000032001200040000000100126b61666b612d707974686f6e2d70726f6265\
                            000d6b61666b612d707974686f6e07332e302e313200";

/// kip-notes.md §1.5: PushConfig request, correlation id 1, client id "c".
const PUSH_CONFIG_FRAME: &str =
    "0000001d005f00000000000100016300020a636c69656e742e6964026301000000";
const PUSH_CONFIG_BODY: &str = "020a636c69656e742e6964026301000000";

const PUSH_CONFIG_YAML: &str = "\
Configs:
  - ConfigKey: client.id
    ConfigValue: c
    ConfigType: 1
    IsDefault: false
";

fn kipcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kipcheck"))
        .args(args)
        .output()
        .expect("run kipcheck")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 stderr")
}

/// A scratch file that is removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("kipcheck-cli-codec-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("write temp file");
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn decode_prints_yaml_with_kafka_field_names() {
    let o = kipcheck(&["decode", KAFKA_PYTHON]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    for line in [
        "ClientId: kafka-python-probe",
        "ClientSoftwareName: kafka-python",
        "ClientSoftwareVersion: \"3.0.12\"",
        "header_version: 2",
        "api: ApiVersions",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    assert_eq!(
        out,
        "kind: request\nframe_size: 50\napi: ApiVersions\napi_key: 18\nversion: 4\n\
         header_version: 2\nheader:\n  RequestApiKey: 18\n  RequestApiVersion: 4\n  \
         CorrelationId: 1\n  ClientId: kafka-python-probe\nbody:\n  ClientSoftwareName: \
         kafka-python\n  ClientSoftwareVersion: \"3.0.12\"\n"
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn decode_json_parses_as_json() {
    let o = kipcheck(&["decode", "--json", KAFKA_PYTHON]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["kind"], "request");
    assert_eq!(v["api_key"], 18);
    assert_eq!(v["version"], 4);
    assert_eq!(v["header_version"], 2);
    assert_eq!(v["header"]["ClientId"], "kafka-python-probe");
    assert_eq!(v["header"]["CorrelationId"], 1);
    assert_eq!(v["body"]["ClientSoftwareName"], "kafka-python");
    assert_eq!(v["body"]["ClientSoftwareVersion"], "3.0.12");
}

#[test]
fn malformed_frame_exits_1_with_the_typed_error() {
    // §1.5 with the ConfigValue length varint corrupted (0x02 -> 0x82).
    let bad = PUSH_CONFIG_FRAME.replace("6964026301", "6964826301");
    let o = kipcheck(&["decode", &bad]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "");
    assert_eq!(
        stderr(&o),
        "decode error: PushConfigRequest.Configs[0].ConfigValue at byte 27: string length \
         12673 exceeds the 4 remaining bytes\n"
    );
    // A bad size prefix.
    let o = kipcheck(&["decode", "7fffffff00"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "decode error: frame size at byte 0: frame size 2147483647 exceeds the maximum of \
         104857600\n"
    );
    // --max-frame-size applies.
    let o = kipcheck(&["decode", "--max-frame-size", "16", KAFKA_PYTHON]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "decode error: frame size at byte 0: frame size 50 exceeds the maximum of 16\n"
    );
}

#[test]
fn input_that_is_not_hex_is_a_usage_error() {
    let o = kipcheck(&["decode", "zz"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "kipcheck: \"zz\" is not hex (use @FILE for a binary file, or - for standard input)\n"
    );
}

#[test]
fn encode_reproduces_the_push_config_example() {
    let yaml = TempFile::new("push-config.yaml", PUSH_CONFIG_YAML);
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        yaml.path(),
        "--client-id",
        "c",
        "--correlation-id",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), format!("{PUSH_CONFIG_FRAME}\n"));
    // --body prints the body only.
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        yaml.path(),
        "--body",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), format!("{PUSH_CONFIG_BODY}\n"));
}

#[test]
fn decode_then_encode_round_trips_the_body() {
    // Bare body in, YAML out.
    let o = kipcheck(&[
        "decode",
        "--body",
        "--api",
        "PushConfig",
        "--version",
        "0",
        PUSH_CONFIG_BODY,
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let view: serde_json::Value = serde_saphyr::from_str(&stdout(&o)).expect("YAML view");
    assert_eq!(view["kind"], "request body");
    assert_eq!(view["api"], "PushConfig");
    assert_eq!(view["api_key"], 95);
    assert_eq!(view["body"]["Configs"][0]["ConfigKey"], "client.id");
    assert_eq!(view["body"]["Configs"][0]["ConfigType"], 1);
    // The body part back in, same bytes out.
    let body_yaml = serde_saphyr::to_string(&view["body"]).expect("YAML");
    let file = TempFile::new("round-trip.yaml", &body_yaml);
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        "--body",
        file.path(),
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), format!("{PUSH_CONFIG_BODY}\n"));
    // The same through a whole frame and JSON.
    let o = kipcheck(&["decode", "--json", PUSH_CONFIG_FRAME]);
    let view: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let file = TempFile::new("round-trip.json", &view["body"].to_string());
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        file.path(),
        "--client-id",
        "c",
    ]);
    assert_eq!(stdout(&o), format!("{PUSH_CONFIG_FRAME}\n"));
}

#[test]
fn kafka_python_frame_round_trips_through_the_cli() {
    let o = kipcheck(&["decode", "--json", KAFKA_PYTHON]);
    let view: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let file = TempFile::new("api-versions.json", &view["body"].to_string());
    let o = kipcheck(&[
        "encode",
        "--api",
        "ApiVersions",
        "--version",
        "4",
        file.path(),
        "--client-id",
        "kafka-python-probe",
        "--correlation-id",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), format!("{KAFKA_PYTHON}\n"));
}

#[test]
fn bad_yaml_reports_file_line_and_column() {
    // A misspelt field on line 5.
    let yaml = TempFile::new(
        "misspelt.yaml",
        "Configs:\n  - ConfigKey: client.id\n    ConfigValue: c\n    ConfigType: 1\n    \
         IsDefualt: false\n",
    );
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        yaml.path(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    let first = err.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "kipcheck: {}: error: line 5 column 5: unknown field `IsDefualt`, expected one of \
             ConfigKey, ConfigValue, ConfigType, IsDefault, _tagged",
            yaml.path()
        )
    );
    assert!(err.contains(":5:5"), "{err}");
    // A YAML syntax error (bad indentation) on line 3.
    let yaml = TempFile::new(
        "indent.yaml",
        "Configs:\n  - ConfigKey: a\n   ConfigValue: b\n",
    );
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        yaml.path(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "kipcheck: {}: error: line 3 column 4: ",
            yaml.path()
        )),
        "{err}"
    );
    assert!(err.contains(":3:4"), "{err}");
    // A value that does not fit the wire type, on line 4.
    let yaml = TempFile::new(
        "range.yaml",
        "Configs:\n  - ConfigKey: a\n    ConfigValue: b\n    ConfigType: 300\n",
    );
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        yaml.path(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!(
            "kipcheck: {}: error: line 4 column 17: invalid i8",
            yaml.path()
        )),
        "{err}"
    );
}

#[test]
fn encode_refuses_fields_the_version_lacks() {
    let yaml = TempFile::new(
        "broker-registration.yaml",
        "BrokerId: 1\nClusterId: c\nStaticConfigs:\n  - Name: log.dirs\n    Value: /tmp\n",
    );
    let o = kipcheck(&[
        "encode",
        "--api",
        "BrokerRegistration",
        "--version",
        "5",
        yaml.path(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "kipcheck: BrokerRegistrationRequest.StaticConfigs is set to a non-default value but \
         does not exist in version 5\n"
    );
    let o = kipcheck(&[
        "encode",
        "--api",
        "BrokerRegistration",
        "--version",
        "6",
        "--body",
        yaml.path(),
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
}

#[test]
fn push_config_api_key_override() {
    let frame99 = PUSH_CONFIG_FRAME.replacen("005f", "0063", 1);
    // Decoding key 99 needs the override.
    let o = kipcheck(&["decode", "--push-config-api-key", "99", &frame99]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("api: PushConfig\napi_key: 99\n"), "{out}");
    assert!(out.contains("RequestApiKey: 99\n"), "{out}");
    assert!(out.contains("ConfigKey: client.id\n"), "{out}");
    let o = kipcheck(&["decode", &frame99]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "decode error: RequestHeader.RequestApiKey at byte 4: unknown API key 99\n"
    );
    // Under the override, 95 is unknown.
    let o = kipcheck(&["decode", "--push-config-api-key", "99", PUSH_CONFIG_FRAME]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "decode error: RequestHeader.RequestApiKey at byte 4: unknown API key 95\n"
    );
    // Encoding writes the override.
    let yaml = TempFile::new("push-config-99.yaml", PUSH_CONFIG_YAML);
    let o = kipcheck(&[
        "encode",
        "--api",
        "PushConfig",
        "--version",
        "0",
        yaml.path(),
        "--client-id",
        "c",
        "--push-config-api-key",
        "99",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), format!("{frame99}\n"));
}

#[test]
fn decode_response_and_fallback() {
    let o = kipcheck(&[
        "decode",
        "--response",
        "--api",
        "PushConfig",
        "--version",
        "0",
        "0000000d 00000001 00 00000000 0000 00 00",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("kind: response\n"), "{out}");
    assert!(out.contains("header_version: 1\n"), "{out}");
    assert!(out.contains("ErrorMessage: null\n"), "{out}");
    // ApiVersions v4 asked, v0 UNSUPPORTED_VERSION answered.
    let o = kipcheck(&[
        "decode",
        "--json",
        "--response",
        "--api",
        "ApiVersions",
        "--version",
        "4",
        "00000010000000070023000000010012000000040",
    ]);
    // Odd-length hex is not hex: a usage error.
    assert_eq!(o.status.code(), Some(2));
    let o = kipcheck(&[
        "decode",
        "--json",
        "--response",
        "--api",
        "ApiVersions",
        "--version",
        "4",
        "00000010000000070023000000010012 00000004",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["version"], 0);
    assert_eq!(v["fallback_v0"], true);
    assert_eq!(v["body"]["ErrorCode"], 35);
}
