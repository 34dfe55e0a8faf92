//! Kafka's own generated codec (kafka-clients and kafka-metadata 4.4.0, driven by the Java
//! program in `interop/java-codec/`) as a differential oracle for kipcheck's codec.
//!
//! Declarations and re-exports only: [`jvm`] runs the JVM and speaks its JSON-lines protocol,
//! [`normalise`] maps between Kafka's JSON and ours, [`pair`] lists the (message, version)
//! pairs both codecs know, [`inputs`] builds the inputs (valid messages per version, the fuzz
//! corpus), [`compare`] runs them through both codecs and collects disagreements, classified
//! by [`super::known`]. Imports run one way: compare -> inputs -> pair -> jvm/body/normalise.

mod body;
mod compare;
mod error;
mod inputs;
mod jvm;
mod normalise;
mod pair;

pub use compare::{compare, Disagreement, OracleReport};
pub use error::OracleError;
pub use inputs::{corpus_inputs, generated_inputs, Input, InputSource, RANDOM_PER_VERSION};
pub use jvm::{Answer, JavaCodec, JAVA_CODEC_JAR_ENV};
pub use normalise::{from_kafka_json, to_kafka_json, Kind, BYTES_FIELDS, LOWER_CASE_NAMES};
pub use pair::{Pair, NOT_COMPARED};
