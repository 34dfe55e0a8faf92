//! The emulated controller: a [`ControllerModel`] (the KIP reference) plus the Kafka controller
//! APIs the KIPs leave alone, answered over the model's state so scenarios can set a target up
//! and read it back: ApiVersions and DescribeConfigs ([`describe`]), CreateTopics and
//! DeleteTopics ([`topics`]), DescribeCluster and UnregisterBroker (here). [`handle_request`]
//! is the ONE dispatch for every in-process controller: the simulated
//! [`Cluster`](super::Cluster) (the reference target), `kipcheck serve --role controller` and
//! an Envelope's inner request all go through it, so they answer byte for byte alike; every
//! other API is the model's ([`ControllerModel::handle_request`]).
//!
//! Test machinery of the harness, not the KIP reference: it writes records only through the
//! model's public API ([`ControllerModel::append_record`], `write_configs`) and must not judge
//! anything a KIP says (config validation, registration, metadata.version stay the model's).
//! Pure, synchronous and sans-IO.

pub mod describe;
pub mod topics;

pub use describe::{api_versions, config_source, describe_configs, describe_topic_configs};
pub use topics::{create_topics, delete_topics, with_topics};

use crate::codec::describe_cluster_response::DescribeClusterBroker;
use crate::codec::{
    ApiKey, DescribeClusterRequest, DescribeClusterResponse, ErrorCode, Message,
    MetadataRecordBody, RequestBody, ResponseBody, UnregisterBrokerRecord, UnregisterBrokerRequest,
    UnregisterBrokerResponse,
};
use crate::model::controller::envelope::CONTROLLER_APIS as MODEL_APIS;
use crate::model::{ControllerModel, Millis};

/// The APIs the emulated controller answers on top of the model's and advertises in
/// ApiVersions with them. It answers DeleteTopics too, unadvertised and never routed by the
/// reference target; `kipcheck serve --role controller` lists it (a live session prepares its
/// topics with it).
pub const EMULATED_APIS: [ApiKey; 4] = [
    ApiKey::DESCRIBE_CONFIGS,
    ApiKey::CREATE_TOPICS,
    ApiKey::DESCRIBE_CLUSTER,
    ApiKey::UNREGISTER_BROKER,
];

/// The cluster id the emulated controller reports in DescribeCluster.
pub const CLUSTER_ID: &str = "kipcheck-cluster";

/// The controller listener the emulated controller reports in DescribeCluster.
pub const CONTROLLER_LISTENER: (&str, i32) = ("localhost", 9093);

/// `DescribeClusterRequest.EndpointType`: 1 = brokers, 2 = controllers.
pub mod endpoint_type {
    /// Brokers.
    pub const BROKERS: i8 = 1;
    /// Controllers.
    pub const CONTROLLERS: i8 = 2;
}

/// True for an API a controller answers (besides ApiVersions): the model's and the emulated
/// ones. What a target with both roles routes to its controller.
pub fn is_controller_api(key: ApiKey) -> bool {
    MODEL_APIS.contains(&key) || EMULATED_APIS.contains(&key)
}

/// Handles one controller request at `version`: the answer, or `None` for an API no
/// controller here serves. ApiVersions, DescribeConfigs, CreateTopics, DeleteTopics,
/// DescribeCluster and UnregisterBroker are emulated, an Envelope's inner request comes back
/// through this dispatch, and everything else is the model's.
pub fn handle_request(
    model: &mut ControllerModel,
    now: Millis,
    version: i16,
    request: &RequestBody,
) -> Option<ResponseBody> {
    Some(match request {
        RequestBody::CreateTopics(r) => {
            ResponseBody::CreateTopics(create_topics(model, now, version, r))
        }
        RequestBody::DeleteTopics(r) => {
            ResponseBody::DeleteTopics(delete_topics(model, now, version, r))
        }
        RequestBody::DescribeCluster(r) => {
            ResponseBody::DescribeCluster(describe_cluster(model, version, r))
        }
        RequestBody::UnregisterBroker(r) => {
            ResponseBody::UnregisterBroker(unregister_broker(model, now, version, r))
        }
        RequestBody::Envelope(r) => {
            ResponseBody::Envelope(model.handle_envelope_with(now, r, handle_request))
        }
        RequestBody::ApiVersions(_) => ResponseBody::ApiVersions(api_versions(model)),
        RequestBody::DescribeConfigs(r) => {
            ResponseBody::DescribeConfigs(describe_configs(model, version, r))
        }
        other => return model.handle_request(now, version, other),
    })
}

/// DescribeCluster as a KRaft controller answers it (`AuthHelper.computeDescribeClusterResponse`
/// with `EndpointType.CONTROLLER`): only EndpointType 2 is served, listing the controllers
/// (this one, at [`CONTROLLER_LISTENER`] in cluster [`CLUSTER_ID`]) with itself as
/// `ControllerId`; EndpointType 1 (brokers, also v0's implicit value) is
/// MISMATCHED_ENDPOINT_TYPE (INVALID_REQUEST at v0), any other type UNSUPPORTED_ENDPOINT_TYPE
/// (INVALID_REQUEST at v0). A controller never lists brokers.
pub fn describe_cluster(
    model: &ControllerModel,
    version: i16,
    req: &DescribeClusterRequest,
) -> DescribeClusterResponse {
    let requested = req.endpoint_type.unwrap_or(endpoint_type::BROKERS);
    let refusal = match requested {
        endpoint_type::CONTROLLERS => None,
        endpoint_type::BROKERS => Some((
            ErrorCode::MISMATCHED_ENDPOINT_TYPE,
            "The request was sent to an endpoint of type CONTROLLER, but we wanted an \
             endpoint of type BROKER",
        )),
        _ => Some((
            ErrorCode::UNSUPPORTED_ENDPOINT_TYPE,
            "Unsupported endpoint type",
        )),
    };
    if let Some((code, message)) = refusal {
        let code = if version == 0 {
            ErrorCode::INVALID_REQUEST
        } else {
            code
        };
        return DescribeClusterResponse {
            error_code: code.0,
            error_message: Some(format!("{message} {requested}").into()),
            ..DescribeClusterResponse::default().project(version)
        };
    }
    let (host, port) = CONTROLLER_LISTENER;
    DescribeClusterResponse {
        endpoint_type: (version >= 1).then_some(endpoint_type::CONTROLLERS),
        cluster_id: CLUSTER_ID.into(),
        controller_id: model.node_id(),
        brokers: vec![DescribeClusterBroker {
            broker_id: model.node_id(),
            host: host.into(),
            port,
            rack: None,
            is_fenced: (version >= 2).then_some(false),
            ..Default::default()
        }],
        ..DescribeClusterResponse::default().project(version)
    }
}

/// UnregisterBroker (`ReplicationControlManager.unregisterBroker`): an id with no
/// registration is BROKER_ID_NOT_REGISTERED and changes nothing; a registered broker is
/// removed by an `UnregisterBrokerRecord` carrying its epoch.
pub fn unregister_broker(
    model: &mut ControllerModel,
    now: Millis,
    _version: i16,
    req: &UnregisterBrokerRequest,
) -> UnregisterBrokerResponse {
    let Some(epoch) = model.brokers().get(&req.broker_id).map(|b| b.epoch) else {
        return UnregisterBrokerResponse {
            error_code: ErrorCode::BROKER_ID_NOT_REGISTERED.0,
            ..Default::default()
        };
    };
    model.append_record(
        now,
        MetadataRecordBody::UnregisterBrokerRecord(UnregisterBrokerRecord {
            broker_id: req.broker_id,
            broker_epoch: epoch,
            ..Default::default()
        }),
    );
    UnregisterBrokerResponse::default()
}
