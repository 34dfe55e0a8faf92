//! [`OracleError`]: what can go wrong running Kafka's codec. A disagreement between the two
//! codecs is not an error (it is a [`Disagreement`](super::Disagreement)); these are
//! failures to run the oracle at all.

use std::path::PathBuf;

/// The Java codec could not be run or did not answer as its protocol says.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The jar does not exist.
    #[error(
        "Java codec jar {0} not found (build it: mvn -q -B -f interop/java-codec/pom.xml package)"
    )]
    JarMissing(PathBuf),
    /// `java` could not be started.
    #[error("cannot start `{java}`: {source}")]
    Spawn {
        /// The java command.
        java: String,
        /// Why.
        source: std::io::Error,
    },
    /// Writing to or reading from the JVM failed.
    #[error("talking to the Java codec: {0}")]
    Io(#[from] std::io::Error),
    /// No answer within the time allowed (the JVM was killed).
    #[error("the Java codec did not answer within {0:?} (killed)")]
    Timeout(std::time::Duration),
    /// The JVM closed its output before answering everything.
    #[error("the Java codec exited after {answered} of {asked} answers")]
    Exited {
        /// Answers received.
        answered: usize,
        /// Requests sent.
        asked: usize,
    },
    /// An answer line is not the protocol's JSON.
    #[error("malformed answer from the Java codec: {0}")]
    Protocol(String),
    /// Reading a corpus directory failed.
    #[error("reading corpus {path}: {source}")]
    Corpus {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
