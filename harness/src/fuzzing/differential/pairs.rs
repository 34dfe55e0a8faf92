//! The message pairs both codecs know, each with a field-by-field comparison for a version
//! and a field-by-field mapping of our value to kafka-protocol's. Moved here from
//! `harness/tests/differential_kafka_protocol.rs` so the test and the `differential_codec`
//! fuzz target share one implementation.

use kafka_protocol::messages as kp;

use super::{from_ids, ids, ktags, ku, osb, ost, otn, sb, st, Cmp, Pair};
use crate::codec as ours;

// ---------------------------------------------------------------------------------------
// ApiVersions (key 18): v0-4 in both.

/// ApiVersions request: kipcheck's `ApiVersionsRequest` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct ApiVersionsReq;
impl Pair for ApiVersionsReq {
    type Ours = ours::ApiVersionsRequest;
    type Theirs = kp::ApiVersionsRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "ApiVersionsRequest";
        if v >= 3 {
            if let Some(x) = c.present(&format!("{p}.ClientSoftwareName"), &o.client_software_name)
            {
                c.eq(
                    &format!("{p}.ClientSoftwareName"),
                    x.as_str(),
                    st(&t.client_software_name),
                );
            }
            if let Some(x) = c.present(
                &format!("{p}.ClientSoftwareVersion"),
                &o.client_software_version,
            ) {
                c.eq(
                    &format!("{p}.ClientSoftwareVersion"),
                    x.as_str(),
                    st(&t.client_software_version),
                );
            }
        } else {
            c.absent(&format!("{p}.ClientSoftwareName"), &o.client_software_name);
            c.absent(
                &format!("{p}.ClientSoftwareVersion"),
                &o.client_software_version,
            );
        }
        c.tags(
            p,
            v >= 3,
            &o.unknown_tagged_fields,
            &t.unknown_tagged_fields,
        );
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        let mut t = Self::Theirs::default();
        t.client_software_name = o
            .client_software_name
            .as_deref()
            .map(sb)
            .unwrap_or_default();
        t.client_software_version = o
            .client_software_version
            .as_deref()
            .map(sb)
            .unwrap_or_default();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

/// ApiVersions response: kipcheck's `ApiVersionsResponse` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct ApiVersionsResp;
impl Pair for ApiVersionsResp {
    type Ours = ours::ApiVersionsResponse;
    type Theirs = kp::ApiVersionsResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "ApiVersionsResponse";
        let flex = v >= 3;
        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
        c.list(
            &format!("{p}.ApiKeys"),
            &o.api_keys,
            &t.api_keys,
            |c, p, o, t| {
                c.eq(&format!("{p}.ApiKey"), o.api_key, t.api_key);
                c.eq(&format!("{p}.MinVersion"), o.min_version, t.min_version);
                c.eq(&format!("{p}.MaxVersion"), o.max_version, t.max_version);
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ThrottleTimeMs");
        if let Some(x) = c.versioned(&f, v >= 1, &o.throttle_time_ms) {
            c.eq(&f, *x, t.throttle_time_ms);
        }
        if v >= 3 {
            let f = format!("{p}.SupportedFeatures");
            if let Some(x) = c.present(&f, &o.supported_features) {
                c.list(&f, x, &t.supported_features, |c, p, o, t| {
                    c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                    c.eq(&format!("{p}.MinVersion"), o.min_version, t.min_version);
                    c.eq(&format!("{p}.MaxVersion"), o.max_version, t.max_version);
                    c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                });
            }
            let f = format!("{p}.FinalizedFeaturesEpoch");
            if let Some(x) = c.present(&f, &o.finalized_features_epoch) {
                c.eq(&f, *x, t.finalized_features_epoch);
            }
            let f = format!("{p}.FinalizedFeatures");
            if let Some(x) = c.present(&f, &o.finalized_features) {
                c.list(&f, x, &t.finalized_features, |c, p, o, t| {
                    c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                    c.eq(
                        &format!("{p}.MaxVersionLevel"),
                        o.max_version_level,
                        t.max_version_level,
                    );
                    c.eq(
                        &format!("{p}.MinVersionLevel"),
                        o.min_version_level,
                        t.min_version_level,
                    );
                    c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                });
            }
            let f = format!("{p}.ZkMigrationReady");
            if let Some(x) = c.present(&f, &o.zk_migration_ready) {
                c.eq(&f, *x, t.zk_migration_ready);
            }
        } else {
            c.absent(&format!("{p}.SupportedFeatures"), &o.supported_features);
            c.absent(
                &format!("{p}.FinalizedFeaturesEpoch"),
                &o.finalized_features_epoch,
            );
            c.absent(&format!("{p}.FinalizedFeatures"), &o.finalized_features);
            c.absent(&format!("{p}.ZkMigrationReady"), &o.zk_migration_ready);
        }
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::api_versions_response as m;
        let mut t = Self::Theirs::default();
        t.error_code = o.error_code;
        t.api_keys = o
            .api_keys
            .iter()
            .map(|k| {
                m::ApiVersion::default()
                    .with_api_key(k.api_key)
                    .with_min_version(k.min_version)
                    .with_max_version(k.max_version)
                    .with_unknown_tagged_fields(ktags(&k.unknown_tagged_fields))
            })
            .collect();
        t.throttle_time_ms = o.throttle_time_ms.unwrap_or(0);
        t.supported_features = o
            .supported_features
            .iter()
            .flatten()
            .map(|f| {
                m::SupportedFeatureKey::default()
                    .with_name(sb(&f.name))
                    .with_min_version(f.min_version)
                    .with_max_version(f.max_version)
                    .with_unknown_tagged_fields(ktags(&f.unknown_tagged_fields))
            })
            .collect();
        t.finalized_features_epoch = o.finalized_features_epoch.unwrap_or(-1);
        t.finalized_features = o
            .finalized_features
            .iter()
            .flatten()
            .map(|f| {
                m::FinalizedFeatureKey::default()
                    .with_name(sb(&f.name))
                    .with_max_version_level(f.max_version_level)
                    .with_min_version_level(f.min_version_level)
                    .with_unknown_tagged_fields(ktags(&f.unknown_tagged_fields))
            })
            .collect();
        t.zk_migration_ready = o.zk_migration_ready.unwrap_or(false);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// Metadata (key 3): v0-13 in both.

/// Metadata request: kipcheck's `MetadataRequest` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct MetadataReq;
impl Pair for MetadataReq {
    type Ours = ours::MetadataRequest;
    type Theirs = kp::MetadataRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=13;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "MetadataRequest";
        let flex = v >= 9;
        let f = format!("{p}.Topics");
        match (&o.topics, &t.topics) {
            (Some(o), Some(t)) => c.list(&f, o, t, |c, p, o, t| {
                let f = format!("{p}.TopicId");
                if let Some(x) = c.versioned(&f, v >= 10, &o.topic_id) {
                    c.eq(&f, x.0, *t.topic_id.as_bytes());
                }
                c.eq(&format!("{p}.Name"), o.name.as_deref(), otn(&t.name));
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            }),
            (o, t) => c.eq(&format!("{f} is null"), o.is_none(), t.is_none()),
        }
        let f = format!("{p}.AllowAutoTopicCreation");
        if let Some(x) = c.versioned(&f, v >= 4, &o.allow_auto_topic_creation) {
            c.eq(&f, *x, t.allow_auto_topic_creation);
        }
        let f = format!("{p}.IncludeClusterAuthorizedOperations");
        if let Some(x) = c.versioned(
            &f,
            (8..=10).contains(&v),
            &o.include_cluster_authorized_operations,
        ) {
            c.eq(&f, *x, t.include_cluster_authorized_operations);
        }
        let f = format!("{p}.IncludeTopicAuthorizedOperations");
        if let Some(x) = c.versioned(&f, v >= 8, &o.include_topic_authorized_operations) {
            c.eq(&f, *x, t.include_topic_authorized_operations);
        }
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        let mut t = Self::Theirs::default();
        t.topics = o.topics.as_ref().map(|ts| {
            ts.iter()
                .map(|x| {
                    let mut k = kp::metadata_request::MetadataRequestTopic::default();
                    if let Some(id) = &x.topic_id {
                        k.topic_id = ku(id);
                    }
                    k.name = x.name.as_deref().map(|n| kp::TopicName(sb(n)));
                    k.unknown_tagged_fields = ktags(&x.unknown_tagged_fields);
                    k
                })
                .collect()
        });
        t.allow_auto_topic_creation = o.allow_auto_topic_creation.unwrap_or(true);
        t.include_cluster_authorized_operations =
            o.include_cluster_authorized_operations.unwrap_or(false);
        t.include_topic_authorized_operations =
            o.include_topic_authorized_operations.unwrap_or(false);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

/// Metadata response: kipcheck's `MetadataResponse` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct MetadataResp;
impl Pair for MetadataResp {
    type Ours = ours::MetadataResponse;
    type Theirs = kp::MetadataResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=13;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "MetadataResponse";
        let flex = v >= 9;
        let f = format!("{p}.ThrottleTimeMs");
        if let Some(x) = c.versioned(&f, v >= 3, &o.throttle_time_ms) {
            c.eq(&f, *x, t.throttle_time_ms);
        }
        c.list(
            &format!("{p}.Brokers"),
            &o.brokers,
            &t.brokers,
            |c, p, o, t| {
                c.eq(&format!("{p}.NodeId"), o.node_id, t.node_id.0);
                c.eq(&format!("{p}.Host"), o.host.as_str(), st(&t.host));
                c.eq(&format!("{p}.Port"), o.port, t.port);
                let f = format!("{p}.Rack");
                if let Some(x) = c.versioned(&f, v >= 1, &o.rack) {
                    c.eq(&f, x.as_deref(), ost(&t.rack));
                }
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ClusterId");
        if let Some(x) = c.versioned(&f, v >= 2, &o.cluster_id) {
            c.eq(&f, x.as_deref(), ost(&t.cluster_id));
        }
        let f = format!("{p}.ControllerId");
        if let Some(x) = c.versioned(&f, v >= 1, &o.controller_id) {
            c.eq(&f, *x, t.controller_id.0);
        }
        c.list(
            &format!("{p}.Topics"),
            &o.topics,
            &t.topics,
            |c, p, o, t| {
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(&format!("{p}.Name"), o.name.as_deref(), otn(&t.name));
                let f = format!("{p}.TopicId");
                if let Some(x) = c.versioned(&f, v >= 10, &o.topic_id) {
                    c.eq(&f, x.0, *t.topic_id.as_bytes());
                }
                let f = format!("{p}.IsInternal");
                if let Some(x) = c.versioned(&f, v >= 1, &o.is_internal) {
                    c.eq(&f, *x, t.is_internal);
                }
                c.list(
                    &format!("{p}.Partitions"),
                    &o.partitions,
                    &t.partitions,
                    |c, p, o, t| {
                        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                        c.eq(
                            &format!("{p}.PartitionIndex"),
                            o.partition_index,
                            t.partition_index,
                        );
                        c.eq(&format!("{p}.LeaderId"), o.leader_id, t.leader_id.0);
                        let f = format!("{p}.LeaderEpoch");
                        if let Some(x) = c.versioned(&f, v >= 7, &o.leader_epoch) {
                            c.eq(&f, *x, t.leader_epoch);
                        }
                        c.eq(
                            &format!("{p}.ReplicaNodes"),
                            o.replica_nodes.clone(),
                            from_ids(&t.replica_nodes),
                        );
                        c.eq(
                            &format!("{p}.IsrNodes"),
                            o.isr_nodes.clone(),
                            from_ids(&t.isr_nodes),
                        );
                        let f = format!("{p}.OfflineReplicas");
                        if let Some(x) = c.versioned(&f, v >= 5, &o.offline_replicas) {
                            c.eq(&f, x.clone(), from_ids(&t.offline_replicas));
                        }
                        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                    },
                );
                let f = format!("{p}.TopicAuthorizedOperations");
                if let Some(x) = c.versioned(&f, v >= 8, &o.topic_authorized_operations) {
                    c.eq(&f, *x, t.topic_authorized_operations);
                }
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ClusterAuthorizedOperations");
        if let Some(x) = c.versioned(&f, (8..=10).contains(&v), &o.cluster_authorized_operations) {
            c.eq(&f, *x, t.cluster_authorized_operations);
        }
        let f = format!("{p}.ErrorCode");
        if let Some(x) = c.versioned(&f, v >= 13, &o.error_code) {
            c.eq(&f, *x, t.error_code);
        }
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::metadata_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms.unwrap_or(0);
        t.brokers = o
            .brokers
            .iter()
            .map(|b| {
                m::MetadataResponseBroker::default()
                    .with_node_id(kp::BrokerId(b.node_id))
                    .with_host(sb(&b.host))
                    .with_port(b.port)
                    .with_rack(osb(&b.rack.clone().flatten()))
                    .with_unknown_tagged_fields(ktags(&b.unknown_tagged_fields))
            })
            .collect();
        t.cluster_id = osb(&o.cluster_id.clone().flatten());
        t.controller_id = kp::BrokerId(o.controller_id.unwrap_or(-1));
        t.topics = o
            .topics
            .iter()
            .map(|x| {
                let mut k = m::MetadataResponseTopic::default();
                k.error_code = x.error_code;
                k.name = x.name.as_deref().map(|n| kp::TopicName(sb(n)));
                if let Some(id) = &x.topic_id {
                    k.topic_id = ku(id);
                }
                k.is_internal = x.is_internal.unwrap_or(false);
                k.partitions = x
                    .partitions
                    .iter()
                    .map(|q| {
                        m::MetadataResponsePartition::default()
                            .with_error_code(q.error_code)
                            .with_partition_index(q.partition_index)
                            .with_leader_id(kp::BrokerId(q.leader_id))
                            .with_leader_epoch(q.leader_epoch.unwrap_or(-1))
                            .with_replica_nodes(ids(&q.replica_nodes))
                            .with_isr_nodes(ids(&q.isr_nodes))
                            .with_offline_replicas(ids(q
                                .offline_replicas
                                .as_deref()
                                .unwrap_or(&[])))
                            .with_unknown_tagged_fields(ktags(&q.unknown_tagged_fields))
                    })
                    .collect();
                k.topic_authorized_operations = x.topic_authorized_operations.unwrap_or(i32::MIN);
                k.unknown_tagged_fields = ktags(&x.unknown_tagged_fields);
                k
            })
            .collect();
        t.cluster_authorized_operations = o.cluster_authorized_operations.unwrap_or(i32::MIN);
        t.error_code = o.error_code.unwrap_or(0);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// AlterConfigs (key 33): v0-2 in both, flexible 2+.

/// AlterConfigs request: kipcheck's `AlterConfigsRequest` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct AlterConfigsReq;
impl Pair for AlterConfigsReq {
    type Ours = ours::AlterConfigsRequest;
    type Theirs = kp::AlterConfigsRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "AlterConfigsRequest";
        let flex = v >= 2;
        c.list(
            &format!("{p}.Resources"),
            &o.resources,
            &t.resources,
            |c, p, o, t| {
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.list(
                    &format!("{p}.Configs"),
                    &o.configs,
                    &t.configs,
                    |c, p, o, t| {
                        c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                        c.eq(&format!("{p}.Value"), o.value.as_deref(), ost(&t.value));
                        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                    },
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(
            &format!("{p}.ValidateOnly"),
            o.validate_only,
            t.validate_only,
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::alter_configs_request as m;
        let mut t = Self::Theirs::default();
        t.resources = o
            .resources
            .iter()
            .map(|r| {
                m::AlterConfigsResource::default()
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_configs(
                        r.configs
                            .iter()
                            .map(|x| {
                                m::AlterableConfig::default()
                                    .with_name(sb(&x.name))
                                    .with_value(osb(&x.value))
                                    .with_unknown_tagged_fields(ktags(&x.unknown_tagged_fields))
                            })
                            .collect(),
                    )
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.validate_only = o.validate_only;
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

/// AlterConfigs response: kipcheck's `AlterConfigsResponse` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct AlterConfigsResp;
impl Pair for AlterConfigsResp {
    type Ours = ours::AlterConfigsResponse;
    type Theirs = kp::AlterConfigsResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "AlterConfigsResponse";
        let flex = v >= 2;
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.list(
            &format!("{p}.Responses"),
            &o.responses,
            &t.responses,
            |c, p, o, t| {
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(
                    &format!("{p}.ErrorMessage"),
                    o.error_message.as_deref(),
                    ost(&t.error_message),
                );
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::alter_configs_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.responses = o
            .responses
            .iter()
            .map(|r| {
                m::AlterConfigsResourceResponse::default()
                    .with_error_code(r.error_code)
                    .with_error_message(osb(&r.error_message))
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// IncrementalAlterConfigs (key 44): v0-1 in both, flexible 1+.

/// IncrementalAlterConfigs request: kipcheck's `IncrementalAlterConfigsRequest` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct IncrementalAlterConfigsReq;
impl Pair for IncrementalAlterConfigsReq {
    type Ours = ours::IncrementalAlterConfigsRequest;
    type Theirs = kp::IncrementalAlterConfigsRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=1;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "IncrementalAlterConfigsRequest";
        let flex = v >= 1;
        c.list(
            &format!("{p}.Resources"),
            &o.resources,
            &t.resources,
            |c, p, o, t| {
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.list(
                    &format!("{p}.Configs"),
                    &o.configs,
                    &t.configs,
                    |c, p, o, t| {
                        c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                        c.eq(
                            &format!("{p}.ConfigOperation"),
                            o.config_operation,
                            t.config_operation,
                        );
                        c.eq(&format!("{p}.Value"), o.value.as_deref(), ost(&t.value));
                        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
                    },
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(
            &format!("{p}.ValidateOnly"),
            o.validate_only,
            t.validate_only,
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::incremental_alter_configs_request as m;
        let mut t = Self::Theirs::default();
        t.resources = o
            .resources
            .iter()
            .map(|r| {
                m::AlterConfigsResource::default()
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_configs(
                        r.configs
                            .iter()
                            .map(|x| {
                                m::AlterableConfig::default()
                                    .with_name(sb(&x.name))
                                    .with_config_operation(x.config_operation)
                                    .with_value(osb(&x.value))
                                    .with_unknown_tagged_fields(ktags(&x.unknown_tagged_fields))
                            })
                            .collect(),
                    )
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.validate_only = o.validate_only;
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

/// IncrementalAlterConfigs response: kipcheck's `IncrementalAlterConfigsResponse` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct IncrementalAlterConfigsResp;
impl Pair for IncrementalAlterConfigsResp {
    type Ours = ours::IncrementalAlterConfigsResponse;
    type Theirs = kp::IncrementalAlterConfigsResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=1;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "IncrementalAlterConfigsResponse";
        let flex = v >= 1;
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.list(
            &format!("{p}.Responses"),
            &o.responses,
            &t.responses,
            |c, p, o, t| {
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(
                    &format!("{p}.ErrorMessage"),
                    o.error_message.as_deref(),
                    ost(&t.error_message),
                );
                c.eq(
                    &format!("{p}.ResourceType"),
                    o.resource_type,
                    t.resource_type,
                );
                c.eq(
                    &format!("{p}.ResourceName"),
                    o.resource_name.as_str(),
                    st(&t.resource_name),
                );
                c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.tags(p, flex, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::incremental_alter_configs_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.responses = o
            .responses
            .iter()
            .map(|r| {
                m::AlterConfigsResourceResponse::default()
                    .with_error_code(r.error_code)
                    .with_error_message(osb(&r.error_message))
                    .with_resource_type(r.resource_type)
                    .with_resource_name(sb(&r.resource_name))
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// UpdateFeatures (key 57): v0-2 in both, all flexible.

/// UpdateFeatures request: kipcheck's `UpdateFeaturesRequest` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct UpdateFeaturesReq;
impl Pair for UpdateFeaturesReq {
    type Ours = ours::UpdateFeaturesRequest;
    type Theirs = kp::UpdateFeaturesRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "UpdateFeaturesRequest";
        c.eq(&format!("{p}.TimeoutMs"), o.timeout_ms, t.timeout_ms);
        c.list(
            &format!("{p}.FeatureUpdates"),
            &o.feature_updates,
            &t.feature_updates,
            |c, p, o, t| {
                c.eq(&format!("{p}.Feature"), o.feature.as_str(), st(&t.feature));
                c.eq(
                    &format!("{p}.MaxVersionLevel"),
                    o.max_version_level,
                    t.max_version_level,
                );
                let f = format!("{p}.AllowDowngrade");
                if let Some(x) = c.versioned(&f, v == 0, &o.allow_downgrade) {
                    c.eq(&f, *x, t.allow_downgrade);
                }
                let f = format!("{p}.UpgradeType");
                if let Some(x) = c.versioned(&f, v >= 1, &o.upgrade_type) {
                    c.eq(&f, *x, t.upgrade_type);
                }
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        let f = format!("{p}.ValidateOnly");
        if let Some(x) = c.versioned(&f, v >= 1, &o.validate_only) {
            c.eq(&f, *x, t.validate_only);
        }
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::update_features_request as m;
        let mut t = Self::Theirs::default();
        t.timeout_ms = o.timeout_ms;
        t.feature_updates = o
            .feature_updates
            .iter()
            .map(|u| {
                m::FeatureUpdateKey::default()
                    .with_feature(sb(&u.feature))
                    .with_max_version_level(u.max_version_level)
                    .with_allow_downgrade(u.allow_downgrade.unwrap_or(false))
                    .with_upgrade_type(u.upgrade_type.unwrap_or(1))
                    .with_unknown_tagged_fields(ktags(&u.unknown_tagged_fields))
            })
            .collect();
        t.validate_only = o.validate_only.unwrap_or(false);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

/// UpdateFeatures response: kipcheck's `UpdateFeaturesResponse` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct UpdateFeaturesResp;
impl Pair for UpdateFeaturesResp {
    type Ours = ours::UpdateFeaturesResponse;
    type Theirs = kp::UpdateFeaturesResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=2;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "UpdateFeaturesResponse";
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
        c.eq(
            &format!("{p}.ErrorMessage"),
            o.error_message.as_deref(),
            ost(&t.error_message),
        );
        let f = format!("{p}.Results");
        if let Some(x) = c.versioned(&f, v <= 1, &o.results) {
            c.list(&f, x, &t.results, |c, p, o, t| {
                c.eq(&format!("{p}.Feature"), o.feature.as_str(), st(&t.feature));
                c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
                c.eq(
                    &format!("{p}.ErrorMessage"),
                    o.error_message.as_deref(),
                    ost(&t.error_message),
                );
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            });
        }
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::update_features_response as m;
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.error_code = o.error_code;
        t.error_message = osb(&o.error_message);
        t.results = o
            .results
            .iter()
            .flatten()
            .map(|r| {
                m::UpdatableFeatureResult::default()
                    .with_feature(sb(&r.feature))
                    .with_error_code(r.error_code)
                    .with_error_message(osb(&r.error_message))
                    .with_unknown_tagged_fields(ktags(&r.unknown_tagged_fields))
            })
            .collect();
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

// ---------------------------------------------------------------------------------------
// BrokerRegistration (key 62): kafka-protocol v0-4, ours v0-6; all flexible.

/// BrokerRegistration request: kipcheck's `BrokerRegistrationRequest` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct BrokerRegistrationReq;
impl Pair for BrokerRegistrationReq {
    type Ours = ours::BrokerRegistrationRequest;
    type Theirs = kp::BrokerRegistrationRequest;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, v: i16) {
        let p = "BrokerRegistrationRequest";
        c.eq(&format!("{p}.BrokerId"), o.broker_id, t.broker_id.0);
        c.eq(
            &format!("{p}.ClusterId"),
            o.cluster_id.as_str(),
            st(&t.cluster_id),
        );
        c.eq(
            &format!("{p}.IncarnationId"),
            o.incarnation_id.0,
            *t.incarnation_id.as_bytes(),
        );
        c.list(
            &format!("{p}.Listeners"),
            &o.listeners,
            &t.listeners,
            |c, p, o, t| {
                c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                c.eq(&format!("{p}.Host"), o.host.as_str(), st(&t.host));
                c.eq(&format!("{p}.Port"), o.port, t.port);
                c.eq(
                    &format!("{p}.SecurityProtocol"),
                    o.security_protocol,
                    t.security_protocol,
                );
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.list(
            &format!("{p}.Features"),
            &o.features,
            &t.features,
            |c, p, o, t| {
                c.eq(&format!("{p}.Name"), o.name.as_str(), st(&t.name));
                c.eq(
                    &format!("{p}.MinSupportedVersion"),
                    o.min_supported_version,
                    t.min_supported_version,
                );
                c.eq(
                    &format!("{p}.MaxSupportedVersion"),
                    o.max_supported_version,
                    t.max_supported_version,
                );
                c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
            },
        );
        c.eq(&format!("{p}.Rack"), o.rack.as_deref(), ost(&t.rack));
        let f = format!("{p}.IsMigratingZkBroker");
        if let Some(x) = c.versioned(&f, v >= 1, &o.is_migrating_zk_broker) {
            c.eq(&f, *x, t.is_migrating_zk_broker);
        }
        let f = format!("{p}.LogDirs");
        if let Some(x) = c.versioned(&f, v >= 2, &o.log_dirs) {
            c.list(&f, x, &t.log_dirs, |c, p, o, t| c.eq(p, o.0, *t.as_bytes()));
        }
        let f = format!("{p}.PreviousBrokerEpoch");
        if let Some(x) = c.versioned(&f, v >= 3, &o.previous_broker_epoch) {
            c.eq(&f, *x, t.previous_broker_epoch);
        }
        // Versions 5-6 only (not compared: kafka-protocol stops at v4).
        c.absent(&format!("{p}.CordonedLogDirs"), &o.cordoned_log_dirs);
        c.absent(&format!("{p}.StaticConfigs"), &o.static_configs);
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        use kp::broker_registration_request as m;
        let mut t = Self::Theirs::default();
        t.broker_id = kp::BrokerId(o.broker_id);
        t.cluster_id = sb(&o.cluster_id);
        t.incarnation_id = ku(&o.incarnation_id);
        t.listeners = o
            .listeners
            .iter()
            .map(|l| {
                m::Listener::default()
                    .with_name(sb(&l.name))
                    .with_host(sb(&l.host))
                    .with_port(l.port)
                    .with_security_protocol(l.security_protocol)
                    .with_unknown_tagged_fields(ktags(&l.unknown_tagged_fields))
            })
            .collect();
        t.features = o
            .features
            .iter()
            .map(|f| {
                m::Feature::default()
                    .with_name(sb(&f.name))
                    .with_min_supported_version(f.min_supported_version)
                    .with_max_supported_version(f.max_supported_version)
                    .with_unknown_tagged_fields(ktags(&f.unknown_tagged_fields))
            })
            .collect();
        t.rack = osb(&o.rack);
        t.is_migrating_zk_broker = o.is_migrating_zk_broker.unwrap_or(false);
        t.log_dirs = o.log_dirs.iter().flatten().map(ku).collect();
        t.previous_broker_epoch = o.previous_broker_epoch.unwrap_or(-1);
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}

/// BrokerRegistration response: kipcheck's `BrokerRegistrationResponse` and kafka-protocol's.
#[derive(Clone, Copy, Debug)]
pub struct BrokerRegistrationResp;
impl Pair for BrokerRegistrationResp {
    type Ours = ours::BrokerRegistrationResponse;
    type Theirs = kp::BrokerRegistrationResponse;
    const VERSIONS: std::ops::RangeInclusive<i16> = 0..=4;
    fn compare(c: &mut Cmp, o: &Self::Ours, t: &Self::Theirs, _v: i16) {
        let p = "BrokerRegistrationResponse";
        c.eq(
            &format!("{p}.ThrottleTimeMs"),
            o.throttle_time_ms,
            t.throttle_time_ms,
        );
        c.eq(&format!("{p}.ErrorCode"), o.error_code, t.error_code);
        c.eq(&format!("{p}.BrokerEpoch"), o.broker_epoch, t.broker_epoch);
        c.tags(p, true, &o.unknown_tagged_fields, &t.unknown_tagged_fields);
    }
    fn to_theirs(o: &Self::Ours, _v: i16) -> Self::Theirs {
        let mut t = Self::Theirs::default();
        t.throttle_time_ms = o.throttle_time_ms;
        t.error_code = o.error_code;
        t.broker_epoch = o.broker_epoch;
        t.unknown_tagged_fields = ktags(&o.unknown_tagged_fields);
        t
    }
}
