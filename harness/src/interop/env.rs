//! Which real peers are available, read from the variables `interop/start.sh` exports in
//! `target/interop/env.sh` (`KIPCHECK_KAFKA`, `KIPCHECK_CLIENT_FRANZ_GO`, ...). Pure parsing: the
//! variables come in through a lookup function; nothing here connects or starts anything.

/// The role a server peer is probed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerRole {
    /// A broker listener (clients' side).
    Broker,
    /// A KRaft controller listener (brokers' side).
    Controller,
}

impl ServerRole {
    /// `broker` or `controller`, as the matrix names suites.
    pub fn suite(self) -> &'static str {
        match self {
            ServerRole::Broker => "broker",
            ServerRole::Controller => "controller",
        }
    }
}

/// A started server peer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerPeer {
    /// Short name (`kafka`, `kafka-controller`, `kfake`, `rdkafka-mock`, `tansu`).
    pub name: &'static str,
    /// What it is, with its version, for the report.
    pub software: String,
    /// `HOST:PORT` on loopback.
    pub addr: String,
    /// The role it is probed in.
    pub role: ServerRole,
    /// True for Apache Kafka itself: the facts only the real thing must satisfy (KRaft
    /// registration, metadata.version updates, config validation) are checked against it.
    pub is_apache_kafka: bool,
}

/// A real client program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientPeer {
    /// Short name (`java-producer`, `franz-go`, ...).
    pub name: &'static str,
    /// What it is, with its version, for the report.
    pub software: String,
    /// The command, `{bootstrap}` standing for the address to bootstrap against.
    pub command: String,
}

/// Every peer the environment names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerEnv {
    /// Server peers, in a fixed order.
    pub servers: Vec<ServerPeer>,
    /// Client programs (their one-shot form), in a fixed order.
    pub clients: Vec<ClientPeer>,
    /// Client programs in their live form (`client-cmd:`, docs/live-clients.md): the command
    /// takes `{config}` (and `{profile}`) and builds the client type the scenario names, so
    /// one program stands for a library's every client type. Read from
    /// `KIPCHECK_LIVE_CLIENT_<NAME>`; the YAML live-client suite runs through these.
    pub live_clients: Vec<ClientPeer>,
}

const SERVERS: &[(&str, &str, &str, &str, ServerRole, bool)] = &[
    (
        "kafka",
        "KIPCHECK_KAFKA",
        "KIPCHECK_KAFKA_VERSION",
        "Apache Kafka",
        ServerRole::Broker,
        true,
    ),
    (
        "kafka-controller",
        "KIPCHECK_KAFKA_CONTROLLER",
        "KIPCHECK_KAFKA_VERSION",
        "Apache Kafka KRaft controller",
        ServerRole::Controller,
        true,
    ),
    (
        "kfake",
        "KIPCHECK_KFAKE",
        "KIPCHECK_KFAKE_VERSION",
        "franz-go kfake",
        ServerRole::Broker,
        false,
    ),
    (
        "rdkafka-mock",
        "KIPCHECK_RDKAFKA_MOCK",
        "KIPCHECK_RDKAFKA_VERSION",
        "librdkafka mock cluster",
        ServerRole::Broker,
        false,
    ),
    (
        "tansu",
        "KIPCHECK_TANSU",
        "KIPCHECK_TANSU_VERSION",
        "tansu",
        ServerRole::Broker,
        false,
    ),
];

const CLIENTS: &[(&str, &str, &str)] = &[
    (
        "java-producer",
        "JAVA_PRODUCER",
        "Apache Kafka Java KafkaProducer",
    ),
    (
        "java-consumer",
        "JAVA_CONSUMER",
        "Apache Kafka Java KafkaConsumer",
    ),
    ("java-admin", "JAVA_ADMIN", "Apache Kafka Java Admin"),
    ("java-streams", "JAVA_STREAMS", "Apache Kafka Streams"),
    ("franz-go", "FRANZ_GO", "franz-go"),
    ("librdkafka", "LIBRDKAFKA", "librdkafka (confluent-kafka)"),
    ("kafka-python", "KAFKA_PYTHON", "kafka-python"),
    ("aiokafka", "AIOKAFKA", "aiokafka"),
];

/// The live forms: one program per library.
const LIVE_CLIENTS: &[(&str, &str, &str)] = &[
    ("java-clients", "JAVA", "Apache Kafka Java clients"),
    ("franz-go", "FRANZ_GO", "franz-go"),
    ("librdkafka", "LIBRDKAFKA", "librdkafka (confluent-kafka)"),
    ("kafka-python", "KAFKA_PYTHON", "kafka-python"),
    ("aiokafka", "AIOKAFKA", "aiokafka"),
];

impl PeerEnv {
    /// Reads the peers from `lookup` (e.g. `|k| std::env::var(k).ok()`); unset or empty
    /// variables leave their peer out.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |k: &str| lookup(k).filter(|v| !v.trim().is_empty());
        let version = |k: &str| get(k).unwrap_or_else(|| "unknown version".to_string());
        let servers = SERVERS
            .iter()
            .filter_map(|&(name, var, ver, what, role, is_apache_kafka)| {
                get(var).map(|addr| ServerPeer {
                    name,
                    software: format!("{what} {}", version(ver)),
                    addr: addr.trim().to_string(),
                    role,
                    is_apache_kafka,
                })
            })
            .collect();
        let programs = |list: &[(&'static str, &str, &str)], prefix: &str| -> Vec<ClientPeer> {
            list.iter()
                .filter_map(|&(name, var, what)| {
                    get(&format!("{prefix}{var}")).map(|command| ClientPeer {
                        name,
                        software: format!("{what} {}", version(&format!("{prefix}{var}_VERSION"))),
                        command,
                    })
                })
                .collect()
        };
        let clients = programs(CLIENTS, "KIPCHECK_CLIENT_");
        let live_clients = programs(LIVE_CLIENTS, "KIPCHECK_LIVE_CLIENT_");
        PeerEnv {
            servers,
            clients,
            live_clients,
        }
    }

    /// True when no peer at all is named (the environment file was not sourced).
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty() && self.clients.is_empty() && self.live_clients.is_empty()
    }

    /// The server peer named `name`, if present.
    pub fn server(&self, name: &str) -> Option<&ServerPeer> {
        self.servers.iter().find(|s| s.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn reads_servers_and_clients_and_skips_empty() {
        let vars: BTreeMap<&str, &str> = [
            ("KIPCHECK_KAFKA", "127.0.0.1:9092"),
            ("KIPCHECK_KAFKA_VERSION", "4.4.0"),
            ("KIPCHECK_TANSU", ""),
            ("KIPCHECK_CLIENT_FRANZ_GO", "/bin/client {bootstrap}"),
            ("KIPCHECK_CLIENT_FRANZ_GO_VERSION", "v1.22.3"),
            (
                "KIPCHECK_LIVE_CLIENT_JAVA",
                "java LiveClient --config {config}",
            ),
            ("KIPCHECK_LIVE_CLIENT_JAVA_VERSION", "4.4.0"),
            ("KIPCHECK_LIVE_CLIENT_AIOKAFKA", " "),
        ]
        .into_iter()
        .collect();
        let env = PeerEnv::from_lookup(|k| vars.get(k).map(|v| v.to_string()));
        assert_eq!(
            env.servers,
            vec![ServerPeer {
                name: "kafka",
                software: "Apache Kafka 4.4.0".into(),
                addr: "127.0.0.1:9092".into(),
                role: ServerRole::Broker,
                is_apache_kafka: true,
            }]
        );
        assert_eq!(
            env.clients,
            vec![ClientPeer {
                name: "franz-go",
                software: "franz-go v1.22.3".into(),
                command: "/bin/client {bootstrap}".into(),
            }]
        );
        assert_eq!(
            env.live_clients,
            vec![ClientPeer {
                name: "java-clients",
                software: "Apache Kafka Java clients 4.4.0".into(),
                command: "java LiveClient --config {config}".into(),
            }]
        );
        assert!(PeerEnv::from_lookup(|_| None).is_empty());
    }
}
