//! [`JavaCodec`]: one JVM running `interop/java-codec`'s jar, fed batches of JSON lines on
//! stdin and answering one JSON line each on stdout. Every wait is bounded: a batch that is
//! not answered in time kills the JVM. Knows the protocol, not what the answers mean.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::OracleError;

/// The environment variable naming the built jar (`.ci/run` sets it).
pub const JAVA_CODEC_JAR_ENV: &str = "KIPCHECK_JAVA_CODEC_JAR";

/// One answer line of the protocol (see `interop/java-codec/README.md`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Accepted (decode/encode) or known (versions).
    pub ok: bool,
    /// Why not, with the Java exception's class and message.
    #[serde(default)]
    pub error: Option<String>,
    /// The decoded message as Kafka's `*JsonConverter.write` prints it.
    #[serde(default)]
    pub json: Option<Value>,
    /// Bytes: what Kafka writes again after decoding, or what it encodes from JSON.
    #[serde(default)]
    pub hex: Option<String>,
    /// Kafka read the bytes but cannot write its value again (`decode`).
    #[serde(default, rename = "writeError")]
    pub write_error: Option<String>,
    /// Lowest supported version (`versions`).
    #[serde(default)]
    pub lowest: Option<i16>,
    /// Highest supported version (`versions`).
    #[serde(default)]
    pub highest: Option<i16>,
}

/// A running Java codec. Dropping it kills the JVM.
pub struct JavaCodec {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    timeout: Duration,
}

impl JavaCodec {
    /// Starts `java -jar JAR` (`java` from `$JAVA_HOME/bin` if set, else `PATH`). `timeout`
    /// bounds each [`call`](Self::call), JVM start-up included.
    pub fn spawn(jar: &Path, timeout: Duration) -> Result<Self, OracleError> {
        if !jar.is_file() {
            return Err(OracleError::JarMissing(jar.to_path_buf()));
        }
        let java = match std::env::var_os("JAVA_HOME") {
            Some(home) if Path::new(&home).join("bin/java").is_file() => {
                Path::new(&home).join("bin/java").display().to_string()
            }
            _ => "java".to_owned(),
        };
        let mut cmd = Command::new(&java);
        cmd.args([
            "-Xss4m",
            "-Xmx512m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-jar",
        ])
        .arg(jar);
        let (mut child, _) = crate::child::spawn_blocking(cmd, Stdio::piped(), Stdio::inherit())
            .map_err(|source| OracleError::Spawn { java, source })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Self {
            child,
            stdin,
            lines,
            timeout,
        })
    }

    /// Sends every request (one JSON line each) and returns the answers in order. A writer
    /// thread feeds stdin while this thread reads, so no pipe can fill up both ways.
    pub fn call(&mut self, requests: &[Value]) -> Result<Vec<Answer>, OracleError> {
        let mut text = String::new();
        for r in requests {
            text.push_str(&r.to_string());
            text.push('\n');
        }
        let deadline = Instant::now() + self.timeout;
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(OracleError::Exited {
                answered: 0,
                asked: requests.len(),
            });
        };
        let lines = &self.lines;
        let child = &mut self.child;
        let timeout = self.timeout;
        std::thread::scope(|s| {
            let writer = s.spawn(move || -> std::io::Result<()> {
                stdin.write_all(text.as_bytes())?;
                stdin.flush()
            });
            let mut answers = Vec::with_capacity(requests.len());
            let mut result = Ok(());
            while answers.len() < requests.len() {
                let left = deadline.saturating_duration_since(Instant::now());
                match lines.recv_timeout(left) {
                    Ok(Ok(line)) => match serde_json::from_str::<Answer>(&line) {
                        Ok(a) => answers.push(a),
                        Err(e) => {
                            result = Err(OracleError::Protocol(format!("{e}: {line}")));
                            break;
                        }
                    },
                    Ok(Err(e)) => {
                        result = Err(OracleError::Io(e));
                        break;
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        result = Err(OracleError::Timeout(timeout));
                        break;
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        result = Err(OracleError::Exited {
                            answered: answers.len(),
                            asked: requests.len(),
                        });
                        break;
                    }
                }
            }
            if result.is_err() {
                // Unblocks the writer (broken pipe) and makes the JVM unusable from now on.
                let _ = child.kill();
            }
            let written = writer.join().expect("the writer thread does not panic");
            result?;
            written?;
            Ok(answers)
        })
    }
}

impl Drop for JavaCodec {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
