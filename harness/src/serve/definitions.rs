//! The config definitions `kipcheck serve --role controller` validates with: the model's
//! default definitions (a subset of Kafka 4.x's real broker and topic configs) plus KIP-1294
//! MV validators on configs of every shape the controller scenarios inject (broker and topic;
//! INT, SHORT, LONG, DOUBLE, STRING, LIST; with and without a static validator; MV levels only
//! above the served level, or at two levels below it and two above), so that binding
//! (`adapter::binding`) finds a real config for as many scenarios as it can. Kafka has no MV
//! validators yet: these are made up, at levels chosen so that every served level from
//! [`LOW_LEVELS`]`.1` (30) to below [`HIGH_LEVELS`]`.0` (45) has the same layout: two levels at
//! or below it, two above (at 30 the floor is exact, which a `<`-for-`<=` bug gets wrong).
//! Data only; the manifest that declares them is generated from them ([`super::manifest`]),
//! never written by hand.

use crate::model::config_def::ConfigType;
use crate::model::{ServerConfigDefs, ServerConfigKey, Validator};

/// The default bootstrap level: the profile's default KIP-1326 persistence level, so a
/// default served controller persists StaticConfigs.
pub const DEFAULT_METADATA_VERSION: i16 = 35;

/// The two MV validator levels below every useful served level.
pub const LOW_LEVELS: (i16, i16) = (10, 30);
/// Two MV validator levels between the low served level and the default persistence level.
pub const MID_LEVELS: (i16, i16) = (32, 33);
/// The two MV validator levels above every useful served level.
pub const HIGH_LEVELS: (i16, i16) = (45, 50);

fn at_least(n: f64) -> Validator {
    Validator::AtLeast(n)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Sets `key`'s MV validators (level → validator).
fn mv(key: &mut ServerConfigKey, levels: Vec<(i16, Validator)>) {
    key.mv_validators.0 = levels.into_iter().collect();
}

/// Kafka's index size configs (`log.index.size.max.bytes`, `segment.index.bytes`: INT,
/// default 10 MiB, at least 4) with a level that relaxes the one below it: L.0 allows
/// 1–12 MiB, L.1 8–64 MiB, so 12 MiB + 1 is refused below L.1 and accepted from it (the
/// manifest's `relaxed`). A scenario whose value only its higher level accepts (a downgrade
/// audit finding a value set while the higher level was in force) binds here; a controller
/// that applies every MV validator up to the level instead of the one in force refuses it.
/// The default passes every level.
fn relaxing_index_bytes() -> ServerConfigKey {
    const MIB: f64 = 1_048_576.0;
    let mut k = ServerConfigKey::new(ConfigType::Int, Some("10485760"), Some(at_least(4.0)));
    mv(
        &mut k,
        vec![
            (LOW_LEVELS.0, Validator::Between(MIB, 12.0 * MIB)),
            (LOW_LEVELS.1, Validator::Between(8.0 * MIB, 64.0 * MIB)),
        ],
    );
    k
}

/// The served definitions. Layouts (L = [`LOW_LEVELS`], H = [`HIGH_LEVELS`]):
///
/// | resource | config | type | static | MV levels |
/// |---|---|---|---|---|
/// | broker | `log.segment.bytes` | INT | yes | L + H |
/// | broker | `message.max.bytes` | INT | yes | H |
/// | broker | `queued.max.requests` | INT | yes | M.1 (M = [`MID_LEVELS`]) |
/// | broker | `num.io.threads` | INT | yes | M |
/// | broker | `background.threads` | INT | yes | M.1, refusing its own default |
/// | broker | `num.network.threads` | INT | yes | L.1 |
/// | broker | `log.index.size.max.bytes` | INT | yes | L, the upper relaxing the lower |
/// | broker | `num.partitions`, `min.insync.replicas`, ... | INT | yes | none |
/// | broker | `offsets.topic.replication.factor` | SHORT | yes | L.1 + H.0 |
/// | broker | `log.dirs` | STRING | no | L.1 |
/// | broker | `log.cleaner.io.max.bytes.per.second` | DOUBLE | no | L.1 |
/// | topic | `segment.bytes` | INT | yes | L + H |
/// | topic | `segment.index.bytes` | INT | yes | L, the upper relaxing the lower |
/// | topic | `max.message.bytes` | INT | yes | H |
/// | topic | `retention.ms` | LONG | yes | L + H |
/// | topic | `compression.type` | STRING | yes | L + H |
/// | topic | `cleanup.policy` | LIST | yes | L.1 + H.0 |
pub fn served_definitions() -> ServerConfigDefs {
    let (l1, l2) = LOW_LEVELS;
    let (h1, h2) = HIGH_LEVELS;
    let mut d = ServerConfigDefs::default();
    let b = &mut d.broker;
    if let Some(k) = b.get_mut("log.segment.bytes") {
        mv(
            k,
            vec![
                (l1, at_least(2_097_152.0)),
                (l2, at_least(4_194_304.0)),
                (h1, at_least(8_388_608.0)),
                (h2, at_least(16_777_216.0)),
            ],
        );
    }
    if let Some(k) = b.get_mut("message.max.bytes") {
        mv(k, vec![(h1, at_least(1024.0)), (h2, at_least(2048.0))]);
    }
    // Between the low served level (30) and the persistence level (35): a scenario that
    // registers below the persistence level and upgrades across an MV level stays below it.
    // Defaults well above what the validators refuse: a refused value is never the default,
    // so a read-back can tell "not stored" from "stored".
    let mut queued = ServerConfigKey::new(ConfigType::Int, Some("500"), Some(at_least(1.0)));
    mv(&mut queued, vec![(MID_LEVELS.1, at_least(2.0))]);
    b.insert("queued.max.requests".into(), queued);
    // A reported default that a level above the served one refuses: its MV validator's
    // violating value (the manifest's, one below the minimum) is the default, so a scenario
    // reporting a config at its default over a higher level's limit binds to it.
    let mut background = ServerConfigKey::new(ConfigType::Int, Some("10"), Some(at_least(1.0)));
    mv(&mut background, vec![(MID_LEVELS.1, at_least(11.0))]);
    b.insert("background.threads".into(), background);
    if let Some(k) = b.get_mut("num.io.threads") {
        mv(
            k,
            vec![(MID_LEVELS.0, at_least(2.0)), (MID_LEVELS.1, at_least(3.0))],
        );
    }
    // One level only, at the lower floor.
    if let Some(k) = b.get_mut("num.network.threads") {
        mv(k, vec![(l2, at_least(2.0))]);
    }
    if let Some(k) = b.get_mut("log.dirs") {
        mv(k, vec![(l2, Validator::NonEmptyString)]);
    }
    let mut rf = ServerConfigKey::new(ConfigType::Short, Some("3"), Some(at_least(1.0)));
    mv(&mut rf, vec![(l2, at_least(2.0)), (h1, at_least(3.0))]);
    b.insert("offsets.topic.replication.factor".into(), rf);
    let mut io = ServerConfigKey::new(ConfigType::Double, Some("1.7976931348623157E308"), None);
    mv(&mut io, vec![(l2, at_least(0.0))]);
    b.insert("log.cleaner.io.max.bytes.per.second".into(), io);
    b.insert("log.index.size.max.bytes".into(), relaxing_index_bytes());
    let t = &mut d.topic;
    t.insert("segment.index.bytes".into(), relaxing_index_bytes());
    if let Some(k) = t.get_mut("segment.bytes") {
        mv(
            k,
            vec![
                (l1, at_least(1_048_576.0)),
                (l2, at_least(2_097_152.0)),
                (h1, at_least(4_194_304.0)),
                (h2, at_least(8_388_608.0)),
            ],
        );
    }
    if let Some(k) = t.get_mut("max.message.bytes") {
        mv(k, vec![(h1, at_least(1024.0)), (h2, at_least(2048.0))]);
    }
    if let Some(k) = t.get_mut("retention.ms") {
        mv(
            k,
            vec![
                (l1, at_least(60_000.0)),
                (l2, at_least(3_600_000.0)),
                (h1, at_least(86_400_000.0)),
                (h2, at_least(604_800_000.0)),
            ],
        );
    }
    if let Some(k) = t.get_mut("compression.type") {
        let vs = |v: &[&str]| Validator::ValidString(strings(v));
        mv(
            k,
            vec![
                (l1, vs(&["zstd", "lz4", "snappy", "gzip", "producer"])),
                (l2, vs(&["zstd", "lz4", "producer"])),
                (h1, vs(&["zstd", "lz4"])),
                (h2, vs(&["zstd"])),
            ],
        );
    }
    if let Some(k) = t.get_mut("cleanup.policy") {
        let list = |v: &[&str]| Validator::ValidList {
            valid: strings(v),
            allow_empty: false,
        };
        mv(
            k,
            vec![(l2, list(&["delete", "compact"])), (h1, list(&["delete"]))],
        );
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layouts_are_as_documented() {
        let d = served_definitions();
        let levels = |k: &ServerConfigKey| k.mv_validators.0.keys().copied().collect::<Vec<_>>();
        assert_eq!(levels(&d.broker["log.segment.bytes"]), [10, 30, 45, 50]);
        assert_eq!(levels(&d.broker["message.max.bytes"]), [45, 50]);
        assert_eq!(levels(&d.broker["num.partitions"]), Vec::<i16>::new());
        assert_eq!(levels(&d.broker["queued.max.requests"]), [33]);
        assert_eq!(levels(&d.broker["num.io.threads"]), [32, 33]);
        assert_eq!(levels(&d.broker["background.threads"]), [33]);
        assert_eq!(levels(&d.broker["num.network.threads"]), [30]);
        assert_eq!(levels(&d.topic["segment.bytes"]), [10, 30, 45, 50]);
        assert_eq!(levels(&d.topic["cleanup.policy"]), [30, 45]);
        assert_eq!(levels(&d.topic["segment.index.bytes"]), [10, 30]);
        assert_eq!(levels(&d.broker["log.index.size.max.bytes"]), [10, 30]);
        assert_eq!(d.broker["log.dirs"].validator, None);
        assert_eq!(
            d.broker["offsets.topic.replication.factor"].ty,
            ConfigType::Short
        );
    }
}
