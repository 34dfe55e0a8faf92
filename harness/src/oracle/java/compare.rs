//! The comparison: every input through kipcheck's codec and Kafka's (one batch to the JVM),
//! requiring the same accept/reject decision, the same fields, the same bytes when each side
//! writes its decoded value again, and the same bytes when Kafka encodes our value from its
//! JSON. Collects [`Disagreement`]s; never panics on a disagreement.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{json, Value};

use super::body::AnyBody;
use super::normalise::{from_kafka_json, to_kafka_json, without_tagged};
use super::pair::Pair;
use super::{Answer, Input, InputSource, JavaCodec, OracleError};
use crate::codec::to_hex;
use crate::oracle::known::{self, KnownDifference};

/// Inputs per batch sent to the JVM.
const BATCH: usize = 2000;

/// The two codecs differ on one input.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// The message and version.
    pub pair: Pair,
    /// Where the input came from.
    pub source: InputSource,
    /// The input body, hex.
    pub input: String,
    /// What differs: `accept/reject`, `fields`, `json shape`, `re-encoding`, `encode`.
    pub category: &'static str,
    /// Details.
    pub what: String,
    /// kipcheck's side.
    pub ours: String,
    /// Kafka's side.
    pub kafka: String,
    /// The documented difference this is, if it is one.
    pub known: Option<KnownDifference>,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} (key {}) [{}] from {:?}: {}",
            self.pair, self.pair.api_key, self.category, self.source, self.what
        )?;
        if let Some(k) = self.known {
            writeln!(f, "  known difference: {k:?}")?;
        }
        writeln!(f, "  input: {}", self.input)?;
        writeln!(f, "  ours:  {}", self.ours)?;
        write!(f, "  kafka: {}", self.kafka)
    }
}

/// What a comparison run saw.
#[derive(Clone, Debug, Default)]
pub struct OracleReport {
    /// Inputs run.
    pub inputs: usize,
    /// Inputs both codecs accepted (fields, re-encoding and encoding compared).
    pub both_accepted: usize,
    /// Inputs both codecs rejected.
    pub both_rejected: usize,
    /// (message, version) pairs with at least one input both accepted.
    pub compared: BTreeSet<Pair>,
    /// Every disagreement.
    pub disagreements: Vec<Disagreement>,
}

impl OracleReport {
    /// Disagreements that are none of the [`KnownDifference`]s.
    pub fn unexplained(&self) -> impl Iterator<Item = &Disagreement> {
        self.disagreements.iter().filter(|d| d.known.is_none())
    }

    /// How often each known difference was seen.
    pub fn known_counts(&self) -> BTreeMap<KnownDifference, usize> {
        let mut m = BTreeMap::new();
        for k in self.disagreements.iter().filter_map(|d| d.known) {
            *m.entry(k).or_default() += 1;
        }
        m
    }
}

/// Differences between two JSON values as `path: ours != kafka` lines.
fn json_diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(a), Some(b)) => json_diff(&p, a, b, out),
                    (a, b) => out.push(format!("{p}: {a:?} != {b:?}")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                json_diff(&format!("{path}[{i}]"), a, b, out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} != {b}")),
        _ => {}
    }
}

/// A pending encode check: Kafka encodes our value from its JSON; we expect these bytes.
struct EncodeCheck {
    input: usize,
    expected: Vec<u8>,
    json: Value,
}

/// Runs every input through both codecs (see the module doc).
pub fn compare(
    java: &mut JavaCodec,
    pairs: &[Pair],
    inputs: &[Input],
) -> Result<OracleReport, OracleError> {
    let mut report = OracleReport::default();
    for chunk in inputs.chunks(BATCH) {
        compare_batch(java, pairs, chunk, &mut report)?;
    }
    Ok(report)
}

fn compare_batch(
    java: &mut JavaCodec,
    pairs: &[Pair],
    inputs: &[Input],
    report: &mut OracleReport,
) -> Result<(), OracleError> {
    let reqs: Vec<Value> = inputs
        .iter()
        .map(|i| {
            json!({"op": "decode", "kind": i.kind.as_str(), "apiKey": i.api_key,
                "version": i.version, "hex": to_hex(&i.bytes)})
        })
        .collect();
    let answers = java.call(&reqs)?;
    let pair_of = |i: &Input| {
        pairs
            .iter()
            .copied()
            .find(|p| p.kind == i.kind && p.api_key == i.api_key && p.version == i.version)
            .expect("inputs are built for shared pairs")
    };
    let mut encodes = Vec::new();
    for (n, (input, answer)) in inputs.iter().zip(&answers).enumerate() {
        report.inputs += 1;
        let pair = pair_of(input);
        let disagree = |category, what: String, ours: String, kafka: String| Disagreement {
            pair,
            source: input.source.clone(),
            input: to_hex(&input.bytes),
            category,
            what,
            ours,
            kafka,
            known: None,
        };
        let ours = AnyBody::decode(input.kind, input.api_key, &input.bytes, input.version);
        match (ours, answer) {
            (Err(_), Answer { ok: false, .. }) => report.both_rejected += 1,
            (
                Ok(o),
                Answer {
                    ok: false, error, ..
                },
            ) => report.disagreements.push(disagree(
                "accept/reject",
                "we accept, Kafka rejects".into(),
                o.to_json().to_string(),
                error.clone().unwrap_or_default(),
            )),
            (Err(e), Answer { ok: true, json, .. }) => {
                let kafka_json = json.clone().unwrap_or(Value::Null);
                report.disagreements.push(Disagreement {
                    known: known::kafka_accepts(&e.kind(), &kafka_json),
                    ..disagree(
                        "accept/reject",
                        "Kafka accepts, we reject".into(),
                        e.to_string(),
                        kafka_json.to_string(),
                    )
                })
            }
            (
                Ok(o),
                Answer {
                    ok: true,
                    json,
                    hex,
                    write_error,
                    ..
                },
            ) => {
                report.both_accepted += 1;
                report.compared.insert(pair);
                let kafka_json = json.clone().unwrap_or(Value::Null);
                let ours_json = without_tagged(&o.to_json());
                let theirs = AnyBody::from_json(
                    input.kind,
                    input.api_key,
                    from_kafka_json(&kafka_json, pair.message),
                );
                match theirs {
                    Err(e) => report.disagreements.push(disagree(
                        "json shape",
                        format!("Kafka's JSON does not read as our message: {e}"),
                        ours_json.to_string(),
                        kafka_json.to_string(),
                    )),
                    Ok(t) => {
                        let theirs_json = t.project(input.version).to_json();
                        let mut diffs = Vec::new();
                        json_diff(pair.message, &ours_json, &theirs_json, &mut diffs);
                        if !diffs.is_empty() {
                            report.disagreements.push(disagree(
                                "fields",
                                diffs.join("; "),
                                ours_json.to_string(),
                                kafka_json.to_string(),
                            ));
                        }
                    }
                }
                match (o.to_bytes(input.version), hex) {
                    (Ok(ob), None) => {
                        let err = write_error.clone().unwrap_or_default();
                        report.disagreements.push(Disagreement {
                            known: known::kafka_write_error(&err, &o.to_json(), &input.bytes, &ob),
                            ..disagree(
                                "re-encoding",
                                format!(
                                    "Kafka reads the bytes but cannot write its value again: {err}"
                                ),
                                to_hex(&ob),
                                String::new(),
                            )
                        })
                    }
                    (Ok(ob), Some(kafka_hex)) => {
                        let kafka_hex = kafka_hex.clone();
                        if to_hex(&ob) != kafka_hex {
                            report.disagreements.push(disagree(
                                "re-encoding",
                                "each side writes its decoded value again: different bytes".into(),
                                to_hex(&ob),
                                kafka_hex,
                            ));
                        }
                    }
                    (Err(e), _) => report.disagreements.push(disagree(
                        "re-encoding",
                        format!("we cannot re-encode what we decoded: {e}"),
                        String::new(),
                        hex.clone().unwrap_or_default(),
                    )),
                }
                // Kafka's JSON cannot carry unknown tagged fields: expect our bytes without them.
                let plain = AnyBody::from_json(input.kind, input.api_key, ours_json.clone())
                    .expect("our JSON without _tagged reads back");
                if let Ok(expected) = plain.to_bytes(input.version) {
                    encodes.push(EncodeCheck {
                        input: n,
                        expected,
                        json: to_kafka_json(&ours_json, pair.message),
                    });
                }
            }
        }
    }
    let reqs: Vec<Value> = encodes
        .iter()
        .map(|e| {
            let i = &inputs[e.input];
            json!({"op": "encode", "kind": i.kind.as_str(), "apiKey": i.api_key,
                "version": i.version, "json": e.json})
        })
        .collect();
    let answers = java.call(&reqs)?;
    for (e, a) in encodes.iter().zip(answers) {
        let input = &inputs[e.input];
        let expected = to_hex(&e.expected);
        let pair = pair_of(input);
        let (what, kafka, known) = match (a.ok, a.hex, a.error) {
            (true, Some(h), _) if h == expected => continue,
            (true, h, _) => {
                let h = h.unwrap_or_default();
                let same_value =
                    crate::codec::from_hex(&h).and_then(|b| {
                        AnyBody::decode(input.kind, input.api_key, &b, input.version).ok()
                    }) == AnyBody::decode(input.kind, input.api_key, &e.expected, input.version)
                        .ok();
                let ours_json =
                    AnyBody::decode(input.kind, input.api_key, &e.expected, input.version)
                        .map(|b| b.to_json())
                        .unwrap_or(Value::Null);
                let known = known::kafka_encodes_differently(
                    pair.message,
                    input.version,
                    &ours_json,
                    same_value,
                );
                (
                    "Kafka encodes our value (from its JSON) to different bytes",
                    h,
                    known,
                )
            }
            (false, _, err) => (
                "Kafka refuses to encode our value",
                err.unwrap_or_default(),
                None,
            ),
        };
        report.disagreements.push(Disagreement {
            known,
            pair,
            source: input.source.clone(),
            input: to_hex(&input.bytes),
            category: "encode",
            what: format!("{what}; JSON sent: {}", e.json),
            ours: expected,
            kafka,
        });
    }
    Ok(())
}
