//! `kipcheck oracle`: runs Kafka's own codec (the `interop/java-codec` jar) against ours on
//! every shared (message, version) and the fuzz corpus, and prints what differs.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use kipcheck::oracle::{
    compare, corpus_inputs, generated_inputs, JavaCodec, Pair, JAVA_CODEC_JAR_ENV,
    RANDOM_PER_VERSION,
};

use super::EXIT_FINDING;

/// Arguments of `kipcheck oracle`.
#[derive(Debug, Args)]
pub(super) struct OracleArgs {
    /// The Java codec jar (`mvn -q -B -f interop/java-codec/pom.xml package` builds
    /// `interop/java-codec/target/kipcheck-java-codec.jar`); default: $KIPCHECK_JAVA_CODEC_JAR.
    #[arg(long, value_name = "PATH")]
    jar: Option<PathBuf>,
    /// The fuzz corpus to replay (its `decode_request`, `decode_response`, `regressions`).
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    corpus: PathBuf,
    /// Seed of the generated values (random values need a build with `--features arbitrary`).
    #[arg(long, default_value_t = 0x6f72_6163_6c65)]
    seed: u64,
    /// Seconds allowed for each batch sent to the JVM (start-up included).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    timeout: u64,
    /// Print every disagreement, the documented ones too.
    #[arg(long)]
    all: bool,
}

/// Runs the comparison; exit 1 if any disagreement is not a documented difference.
pub(super) fn run(a: OracleArgs) -> anyhow::Result<ExitCode> {
    let jar = a
        .jar
        .or_else(|| std::env::var_os(JAVA_CODEC_JAR_ENV).map(PathBuf::from))
        .with_context(|| format!("--jar or {JAVA_CODEC_JAR_ENV} is needed"))?;
    let mut java = JavaCodec::spawn(&jar, Duration::from_secs(a.timeout))?;
    let pairs = Pair::shared(&mut java).context("asking Kafka's codec for its versions")?;
    let mut inputs = generated_inputs(&pairs, a.seed);
    let generated = inputs.len();
    if a.corpus.is_dir() {
        inputs.extend(corpus_inputs(&a.corpus, &pairs)?);
    }
    let report = compare(&mut java, &pairs, &inputs)?;
    let random = if cfg!(feature = "arbitrary") {
        format!(
            "{RANDOM_PER_VERSION} random values per version, seed {:#x}",
            a.seed
        )
    } else {
        "defaults only; build with --features arbitrary for random values".to_owned()
    };
    println!(
        "{} (message, version) pairs shared with Kafka's codec, {} compared",
        pairs.len(),
        report.compared.len()
    );
    println!(
        "{} inputs ({generated} generated: {random}; {} from {}): both accepted {}, both rejected {}",
        report.inputs,
        report.inputs - generated,
        a.corpus.display(),
        report.both_accepted,
        report.both_rejected
    );
    for (k, n) in report.known_counts() {
        println!("documented difference {k:?}: {n}");
    }
    if a.all {
        for d in report.disagreements.iter().filter(|d| d.known.is_some()) {
            println!("\n{d}");
        }
    }
    let unexplained: Vec<_> = report.unexplained().collect();
    for d in &unexplained {
        println!("\n{d}");
    }
    println!("{} unexplained disagreement(s)", unexplained.len());
    Ok(if unexplained.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FINDING)
    })
}
