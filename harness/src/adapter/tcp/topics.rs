//! `setup.controller.topics` on a live controller ([`prepare_topics`]): every listed topic is
//! deleted and created fresh when a controller session opens, over one connection of its
//! own, NOT_CONTROLLER retried. It must not judge the controller: a refusal is a setup
//! failure (the scenario is errored), never a finding.

use std::time::Instant;

use super::controller::{until_active, Link};
use super::probe::{common_version, Probe};
use super::{IO_TIMEOUT, TOPIC_PREPARE_TIMEOUT};
use crate::adapter::error::{AdapterError, CallError, Crash, SetupError, Unsupported};
use crate::codec::create_topics_request::CreatableTopic;
use crate::codec::delete_topics_request::DeleteTopicState;
use crate::codec::{
    ApiKey, CreateTopicsRequest, DeleteTopicsRequest, ErrorCode, ProvisionalNumbers, RequestBody,
    ResponseBody, Uuid,
};

/// The `TimeoutMs` those requests carry (below [`TOPIC_PREPARE_TIMEOUT`]).
const TOPIC_REQUEST_TIMEOUT_MS: i32 = 20_000;

/// Puts a live controller in the state `setup.controller.topics` declares: every listed
/// topic is deleted if it exists (DeleteTopics: success or UNKNOWN_TOPIC_OR_PARTITION) and
/// created fresh (CreateTopics: 1 partition, default replication factor; success or
/// TOPIC_ALREADY_EXISTS), so values a previous scenario stored do not leak in. Any other
/// answer is a setup failure naming the topic, code and message: the scenario is errored,
/// not failed.
pub async fn prepare_topics(
    addr: &str,
    probe: &Probe,
    numbers: &ProvisionalNumbers,
    topics: &[String],
) -> Result<(), AdapterError> {
    if topics.is_empty() {
        return Ok(());
    }
    let (Some(delete_v), Some(create_v)) = (
        common_version(probe, ApiKey::DELETE_TOPICS),
        common_version(probe, ApiKey::CREATE_TOPICS),
    ) else {
        return Err(Unsupported::NoTopicApis.into());
    };
    let (addr, numbers, topics) = (addr.to_owned(), *numbers, topics.to_vec());
    tokio::task::spawn_blocking(move || {
        prepare_blocking(&addr, &numbers, &topics, delete_v, create_v)
    })
    .await
    .map_err(|_| Crash::Internal {
        what: "the topic setup task",
    })?
}

/// [`prepare_topics`] on one blocking connection: DeleteTopics then CreateTopics of every
/// topic, each retried while the controller answers NOT_CONTROLLER (so a scenario starts on
/// the active controller), all within [`TOPIC_PREPARE_TIMEOUT`].
fn prepare_blocking(
    addr: &str,
    numbers: &ProvisionalNumbers,
    topics: &[String],
    delete_v: i16,
    create_v: i16,
) -> Result<(), AdapterError> {
    let deadline = Instant::now() + TOPIC_PREPARE_TIMEOUT;
    let mut link =
        Link::open(addr, numbers, "DeleteTopics", IO_TIMEOUT).map_err(SetupError::from)?;
    let mut ask = |version, body: &RequestBody| {
        until_active(deadline, || link.call(version, body, TOPIC_PREPARE_TIMEOUT))
            .map_err(|e| AdapterError::from(SetupError::from(e)))
    };
    let delete = RequestBody::DeleteTopics(DeleteTopicsRequest {
        topics: (delete_v >= 6).then(|| {
            topics
                .iter()
                .map(|t| DeleteTopicState {
                    name: Some(t.as_str().into()),
                    topic_id: Uuid::ZERO,
                    ..Default::default()
                })
                .collect()
        }),
        topic_names: (delete_v < 6).then(|| topics.iter().map(|t| t.as_str().into()).collect()),
        timeout_ms: TOPIC_REQUEST_TIMEOUT_MS,
        ..Default::default()
    });
    let ResponseBody::DeleteTopics(deleted) = ask(delete_v, &delete)? else {
        return Err(other_api("DeleteTopics"));
    };
    check_topic_results(
        "DeleteTopics",
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
        deleted.responses.iter().map(|r| {
            let message = r.error_message.as_ref().and_then(|m| m.as_deref());
            (r.name.as_deref().unwrap_or("?"), r.error_code, message)
        }),
    )?;
    let create = RequestBody::CreateTopics(CreateTopicsRequest {
        topics: topics
            .iter()
            .map(|t| CreatableTopic {
                name: t.as_str().into(),
                num_partitions: 1,
                replication_factor: -1,
                ..Default::default()
            })
            .collect(),
        timeout_ms: TOPIC_REQUEST_TIMEOUT_MS,
        validate_only: false,
        ..Default::default()
    });
    let ResponseBody::CreateTopics(created) = ask(create_v, &create)? else {
        return Err(other_api("CreateTopics"));
    };
    check_topic_results(
        "CreateTopics",
        ErrorCode::TOPIC_ALREADY_EXISTS,
        created
            .topics
            .iter()
            .map(|r| (r.name.as_str(), r.error_code, r.error_message.as_deref())),
    )
}

fn other_api(api: &'static str) -> AdapterError {
    SetupError::from(CallError::OtherApi { api }).into()
}

/// Every per-topic answer (name, code, message) of `api` is success or `also_fine`; else a
/// setup error naming the first other (NOT_CONTROLLER too, once its retries ran out).
fn check_topic_results<'a>(
    api: &'static str,
    also_fine: ErrorCode,
    results: impl Iterator<Item = (&'a str, i16, Option<&'a str>)>,
) -> Result<(), AdapterError> {
    for (topic, code, message) in results {
        let code = ErrorCode(code);
        if code != ErrorCode::NONE && code != also_fine {
            return Err(SetupError::Topic {
                api,
                topic: topic.to_owned(),
                code,
                message: message.map(str::to_owned),
            }
            .into());
        }
    }
    Ok(())
}
