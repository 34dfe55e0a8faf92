//! `ApiKey(i16)`: an open newtype over Kafka API keys with a named constant for every key
//! Kafka defines. Unknown keys round-trip unchanged. Pure data; no I/O.

use serde::{Deserialize, Serialize};

/// A Kafka API key. Unknown values are kept as they are.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[serde(transparent)]
pub struct ApiKey(pub i16);

macro_rules! api_keys {
    ($( $(#[$doc:meta])* $name:ident = $key:expr, $display:expr; )*) => {
        impl ApiKey {
            $( $(#[$doc])* pub const $name: ApiKey = ApiKey($key); )*

            /// Every key this table names, ascending: (key, Kafka's API name).
            pub const TABLE: &'static [(ApiKey, &'static str)] = &[
                $( (ApiKey($key), $display), )*
            ];
        }
    };
}

api_keys! {
    /// Produce.
    PRODUCE = 0, "Produce";
    /// Fetch.
    FETCH = 1, "Fetch";
    /// ListOffsets.
    LIST_OFFSETS = 2, "ListOffsets";
    /// Metadata.
    METADATA = 3, "Metadata";
    /// LeaderAndIsr.
    LEADER_AND_ISR = 4, "LeaderAndIsr";
    /// StopReplica.
    STOP_REPLICA = 5, "StopReplica";
    /// UpdateMetadata.
    UPDATE_METADATA = 6, "UpdateMetadata";
    /// ControlledShutdown.
    CONTROLLED_SHUTDOWN = 7, "ControlledShutdown";
    /// OffsetCommit.
    OFFSET_COMMIT = 8, "OffsetCommit";
    /// OffsetFetch.
    OFFSET_FETCH = 9, "OffsetFetch";
    /// FindCoordinator.
    FIND_COORDINATOR = 10, "FindCoordinator";
    /// JoinGroup.
    JOIN_GROUP = 11, "JoinGroup";
    /// Heartbeat.
    HEARTBEAT = 12, "Heartbeat";
    /// LeaveGroup.
    LEAVE_GROUP = 13, "LeaveGroup";
    /// SyncGroup.
    SYNC_GROUP = 14, "SyncGroup";
    /// DescribeGroups.
    DESCRIBE_GROUPS = 15, "DescribeGroups";
    /// ListGroups.
    LIST_GROUPS = 16, "ListGroups";
    /// SaslHandshake.
    SASL_HANDSHAKE = 17, "SaslHandshake";
    /// ApiVersions.
    API_VERSIONS = 18, "ApiVersions";
    /// CreateTopics.
    CREATE_TOPICS = 19, "CreateTopics";
    /// DeleteTopics.
    DELETE_TOPICS = 20, "DeleteTopics";
    /// DeleteRecords.
    DELETE_RECORDS = 21, "DeleteRecords";
    /// InitProducerId.
    INIT_PRODUCER_ID = 22, "InitProducerId";
    /// OffsetForLeaderEpoch.
    OFFSET_FOR_LEADER_EPOCH = 23, "OffsetForLeaderEpoch";
    /// AddPartitionsToTxn.
    ADD_PARTITIONS_TO_TXN = 24, "AddPartitionsToTxn";
    /// AddOffsetsToTxn.
    ADD_OFFSETS_TO_TXN = 25, "AddOffsetsToTxn";
    /// EndTxn.
    END_TXN = 26, "EndTxn";
    /// WriteTxnMarkers.
    WRITE_TXN_MARKERS = 27, "WriteTxnMarkers";
    /// TxnOffsetCommit.
    TXN_OFFSET_COMMIT = 28, "TxnOffsetCommit";
    /// DescribeAcls.
    DESCRIBE_ACLS = 29, "DescribeAcls";
    /// CreateAcls.
    CREATE_ACLS = 30, "CreateAcls";
    /// DeleteAcls.
    DELETE_ACLS = 31, "DeleteAcls";
    /// DescribeConfigs.
    DESCRIBE_CONFIGS = 32, "DescribeConfigs";
    /// AlterConfigs.
    ALTER_CONFIGS = 33, "AlterConfigs";
    /// AlterReplicaLogDirs.
    ALTER_REPLICA_LOG_DIRS = 34, "AlterReplicaLogDirs";
    /// DescribeLogDirs.
    DESCRIBE_LOG_DIRS = 35, "DescribeLogDirs";
    /// SaslAuthenticate.
    SASL_AUTHENTICATE = 36, "SaslAuthenticate";
    /// CreatePartitions.
    CREATE_PARTITIONS = 37, "CreatePartitions";
    /// CreateDelegationToken.
    CREATE_DELEGATION_TOKEN = 38, "CreateDelegationToken";
    /// RenewDelegationToken.
    RENEW_DELEGATION_TOKEN = 39, "RenewDelegationToken";
    /// ExpireDelegationToken.
    EXPIRE_DELEGATION_TOKEN = 40, "ExpireDelegationToken";
    /// DescribeDelegationToken.
    DESCRIBE_DELEGATION_TOKEN = 41, "DescribeDelegationToken";
    /// DeleteGroups.
    DELETE_GROUPS = 42, "DeleteGroups";
    /// ElectLeaders.
    ELECT_LEADERS = 43, "ElectLeaders";
    /// IncrementalAlterConfigs.
    INCREMENTAL_ALTER_CONFIGS = 44, "IncrementalAlterConfigs";
    /// AlterPartitionReassignments.
    ALTER_PARTITION_REASSIGNMENTS = 45, "AlterPartitionReassignments";
    /// ListPartitionReassignments.
    LIST_PARTITION_REASSIGNMENTS = 46, "ListPartitionReassignments";
    /// OffsetDelete.
    OFFSET_DELETE = 47, "OffsetDelete";
    /// DescribeClientQuotas.
    DESCRIBE_CLIENT_QUOTAS = 48, "DescribeClientQuotas";
    /// AlterClientQuotas.
    ALTER_CLIENT_QUOTAS = 49, "AlterClientQuotas";
    /// DescribeUserScramCredentials.
    DESCRIBE_USER_SCRAM_CREDENTIALS = 50, "DescribeUserScramCredentials";
    /// AlterUserScramCredentials.
    ALTER_USER_SCRAM_CREDENTIALS = 51, "AlterUserScramCredentials";
    /// Vote.
    VOTE = 52, "Vote";
    /// BeginQuorumEpoch.
    BEGIN_QUORUM_EPOCH = 53, "BeginQuorumEpoch";
    /// EndQuorumEpoch.
    END_QUORUM_EPOCH = 54, "EndQuorumEpoch";
    /// DescribeQuorum.
    DESCRIBE_QUORUM = 55, "DescribeQuorum";
    /// AlterPartition.
    ALTER_PARTITION = 56, "AlterPartition";
    /// UpdateFeatures.
    UPDATE_FEATURES = 57, "UpdateFeatures";
    /// Envelope.
    ENVELOPE = 58, "Envelope";
    /// FetchSnapshot.
    FETCH_SNAPSHOT = 59, "FetchSnapshot";
    /// DescribeCluster.
    DESCRIBE_CLUSTER = 60, "DescribeCluster";
    /// DescribeProducers.
    DESCRIBE_PRODUCERS = 61, "DescribeProducers";
    /// BrokerRegistration.
    BROKER_REGISTRATION = 62, "BrokerRegistration";
    /// BrokerHeartbeat.
    BROKER_HEARTBEAT = 63, "BrokerHeartbeat";
    /// UnregisterBroker.
    UNREGISTER_BROKER = 64, "UnregisterBroker";
    /// DescribeTransactions.
    DESCRIBE_TRANSACTIONS = 65, "DescribeTransactions";
    /// ListTransactions.
    LIST_TRANSACTIONS = 66, "ListTransactions";
    /// AllocateProducerIds.
    ALLOCATE_PRODUCER_IDS = 67, "AllocateProducerIds";
    /// ConsumerGroupHeartbeat.
    CONSUMER_GROUP_HEARTBEAT = 68, "ConsumerGroupHeartbeat";
    /// ConsumerGroupDescribe.
    CONSUMER_GROUP_DESCRIBE = 69, "ConsumerGroupDescribe";
    /// ControllerRegistration.
    CONTROLLER_REGISTRATION = 70, "ControllerRegistration";
    /// GetTelemetrySubscriptions.
    GET_TELEMETRY_SUBSCRIPTIONS = 71, "GetTelemetrySubscriptions";
    /// PushTelemetry.
    PUSH_TELEMETRY = 72, "PushTelemetry";
    /// AssignReplicasToDirs.
    ASSIGN_REPLICAS_TO_DIRS = 73, "AssignReplicasToDirs";
    /// ListConfigResources (version 0 was ListClientMetricsResources; renamed by KIP-1142).
    LIST_CONFIG_RESOURCES = 74, "ListConfigResources";
    /// DescribeTopicPartitions.
    DESCRIBE_TOPIC_PARTITIONS = 75, "DescribeTopicPartitions";
    /// ShareGroupHeartbeat.
    SHARE_GROUP_HEARTBEAT = 76, "ShareGroupHeartbeat";
    /// ShareGroupDescribe.
    SHARE_GROUP_DESCRIBE = 77, "ShareGroupDescribe";
    /// ShareFetch.
    SHARE_FETCH = 78, "ShareFetch";
    /// ShareAcknowledge.
    SHARE_ACKNOWLEDGE = 79, "ShareAcknowledge";
    /// AddRaftVoter.
    ADD_RAFT_VOTER = 80, "AddRaftVoter";
    /// RemoveRaftVoter.
    REMOVE_RAFT_VOTER = 81, "RemoveRaftVoter";
    /// UpdateRaftVoter.
    UPDATE_RAFT_VOTER = 82, "UpdateRaftVoter";
    /// InitializeShareGroupState.
    INITIALIZE_SHARE_GROUP_STATE = 83, "InitializeShareGroupState";
    /// ReadShareGroupState.
    READ_SHARE_GROUP_STATE = 84, "ReadShareGroupState";
    /// WriteShareGroupState.
    WRITE_SHARE_GROUP_STATE = 85, "WriteShareGroupState";
    /// DeleteShareGroupState.
    DELETE_SHARE_GROUP_STATE = 86, "DeleteShareGroupState";
    /// ReadShareGroupStateSummary.
    READ_SHARE_GROUP_STATE_SUMMARY = 87, "ReadShareGroupStateSummary";
    /// StreamsGroupHeartbeat.
    STREAMS_GROUP_HEARTBEAT = 88, "StreamsGroupHeartbeat";
    /// StreamsGroupDescribe.
    STREAMS_GROUP_DESCRIBE = 89, "StreamsGroupDescribe";
    /// DescribeShareGroupOffsets.
    DESCRIBE_SHARE_GROUP_OFFSETS = 90, "DescribeShareGroupOffsets";
    /// AlterShareGroupOffsets.
    ALTER_SHARE_GROUP_OFFSETS = 91, "AlterShareGroupOffsets";
    /// DeleteShareGroupOffsets.
    DELETE_SHARE_GROUP_OFFSETS = 92, "DeleteShareGroupOffsets";
    /// StreamsGroupTopologyDescriptionUpdate (KIP-1331).
    STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE = 93, "StreamsGroupTopologyDescriptionUpdate";
    /// UnregisterController.
    UNREGISTER_CONTROLLER = 94, "UnregisterController";
    /// PROVISIONAL (KIP-1324 says NEXT; see [`ProvisionalNumbers`](super::ProvisionalNumbers)):
    /// PushConfig.
    PUSH_CONFIG = 95, "PushConfig";
}

super::open_enum::named_open_newtype!(ApiKey);

impl ApiKey {
    /// Looks a key up by Kafka's API name (`ApiVersions`) or the constant's name (`API_VERSIONS`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::TABLE
            .iter()
            .find(|(_, n)| {
                n.eq_ignore_ascii_case(name) || n.eq_ignore_ascii_case(&name.replace('_', ""))
            })
            .map(|(k, _)| *k)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::ApiKey;

    #[test]
    fn table_is_strictly_ascending_with_unique_names() {
        // name() binary-searches the table, so order is load-bearing.
        for pair in ApiKey::TABLE.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{:?} then {:?}", pair[0], pair[1]);
        }
        let mut names = HashSet::new();
        for (_, name) in ApiKey::TABLE {
            assert!(
                names.insert(name.to_ascii_lowercase()),
                "duplicate name {name}"
            );
        }
    }

    #[test]
    fn every_key_from_0_to_95_is_named() {
        for key in 0..=95 {
            assert!(ApiKey(key).name().is_some(), "key {key} has no name");
        }
        assert_eq!(ApiKey::TABLE.len(), 96);
    }

    #[test]
    fn exact_values() {
        assert_eq!(ApiKey::from_name("ApiVersions"), Some(ApiKey(18)));
        assert_eq!(ApiKey::from_name("API_VERSIONS"), Some(ApiKey(18)));
        assert_eq!(
            ApiKey::from_name("INCREMENTAL_ALTER_CONFIGS"),
            Some(ApiKey::INCREMENTAL_ALTER_CONFIGS)
        );
        assert_eq!(ApiKey::from_name("PushConfig"), Some(ApiKey(95)));
        assert_eq!(ApiKey::from_name("NoSuchApi"), None);
        assert_eq!(ApiKey(92).name(), Some("DeleteShareGroupOffsets"));
        assert_eq!(
            ApiKey(93).name(),
            Some("StreamsGroupTopologyDescriptionUpdate")
        );
        assert_eq!(ApiKey(94).name(), Some("UnregisterController"));
        assert_eq!(format!("{:?}", ApiKey(18)), "ApiVersions");
        assert_eq!(format!("{:?}", ApiKey(300)), "ApiKey(300)");
        assert_eq!(format!("{}", ApiKey(18)), "ApiVersions (18)");
    }

    #[test]
    fn every_constant_name_resolves_to_its_own_key() {
        // The constant names are the Kafka names in SCREAMING_SNAKE_CASE; from_name
        // accepts both spellings.
        for (key, name) in ApiKey::TABLE {
            let mut snake = String::new();
            for (i, ch) in name.chars().enumerate() {
                if ch.is_ascii_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(ch.to_ascii_uppercase());
            }
            assert_eq!(ApiKey::from_name(&snake), Some(*key), "{snake}");
        }
    }
}
