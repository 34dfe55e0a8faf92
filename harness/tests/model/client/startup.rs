//! Happy path, startup, client types.

use super::*;

#[test]
fn happy_path_through_the_codec() {
    let mut sim = sim(
        ClientType::Consumer,
        cfg(&[("group.id", "g")]),
        7,
        &[(1, true)],
    );
    sim.boot();
    assert_eq!(sim.client().state(), &HandshakeState::Completed { node: 1 });
    assert_eq!(sim.pushes(), vec![1]);
    assert_eq!(sim.broker(1).policy_invocations(), 1);
    let (_, key, _) = sim
        .sent
        .iter()
        .find(|(_, _, b)| matches!(b, RequestBody::PushConfig(_)))
        .unwrap();
    assert_eq!(*key, ApiKey(95));
}

#[test]
fn every_client_type_performs_the_handshake_when_it_has_keys() {
    for t in ClientType::ALL {
        // Producer and Streams have empty default lists (KIP elides them): they need an override.
        let user = match t {
            ClientType::Producer => cfg(&[("config.push.allowed.keys", "acks,linger.ms")]),
            ClientType::Streams => cfg(&[
                ("application.id", "app"),
                (
                    "config.push.allowed.keys",
                    "application.id,num.stream.threads",
                ),
            ]),
            _ => cfg(&[]),
        };
        let mut sim = Sim::new(t, user, &SpecProfile::default(), 3, &[(1, true)]);
        sim.boot();
        assert_eq!(
            sim.client().state(),
            &HandshakeState::Completed { node: 1 },
            "{t:?}"
        );
    }
}

#[test]
fn producer_and_streams_default_lists_are_empty_so_nothing_is_sent() {
    for t in [ClientType::Producer, ClientType::Streams] {
        let mut c = ClientModel::new(t, cfg(&[]), &SpecProfile::default(), 1).unwrap();
        let out = c.handle(Millis(0), ClientInput::Start);
        assert!(events(&out).contains(&Event::HandshakeSkipped {
            reason: SkipReason::NothingToSend
        }));
        assert!(c.selected_request().is_none());
    }
}

#[test]
fn disabled_client_skips_the_whole_handshake() {
    let mut sim = sim(
        ClientType::Consumer,
        cfg(&[("enable.config.push", "false")]),
        1,
        &[(1, true)],
    );
    sim.boot();
    assert_eq!(
        sim.client().state(),
        &HandshakeState::Skipped(SkipReason::Disabled)
    );
    assert!(sim.pushes().is_empty());
    assert!(!sim
        .client()
        .events()
        .iter()
        .any(|e| matches!(e.event, Event::KeySelected { .. })));
    sim.input(ClientInput::UserRequest { id: 1 });
    assert_eq!(sim.released, vec![1]);
}

#[test]
fn streams_pushes_once_and_embedded_clients_never() {
    let profile = SpecProfile::default();
    let mut app = Sim::new(
        ClientType::Streams,
        cfg(&[
            ("application.id", "a"),
            ("config.push.allowed.keys", "application.id"),
        ]),
        &profile,
        1,
        &[(1, true)],
    );
    app.boot();
    assert_eq!(app.pushes(), vec![1]);
    for t in [
        ClientType::Producer,
        ClientType::Consumer,
        ClientType::Admin,
    ] {
        let mut c = ClientModel::new_embedded(t, cfg(&[]), &profile, 1).unwrap();
        let mut out = c.handle(Millis(0), ClientInput::Start);
        out.extend(c.handle(Millis(0), ClientInput::Connected { node: 1 }));
        out.extend(c.handle(
            Millis(0),
            ClientInput::ApiVersionsResponse {
                node: 1,
                body: api_versions(true),
            },
        ));
        assert!(push_targets(&out).is_empty(), "{t:?}");
        assert_eq!(
            c.state(),
            &HandshakeState::Skipped(SkipReason::EmbeddedInStreams)
        );
    }
}

#[test]
fn each_client_type_sends_its_own_default_keys() {
    assert_eq!(
        keys(&consumer(&[("group.id", "g")])),
        [
            "auto.offset.reset",
            "client.id",
            "enable.auto.commit",
            "fetch.max.wait.ms",
            "fetch.min.bytes",
            "group.id",
            "isolation.level",
            "max.poll.interval.ms",
            "max.poll.records",
            "request.timeout.ms",
            "session.timeout.ms"
        ]
    );
    let admin = ClientModel::new(ClientType::Admin, cfg(&[]), &SpecProfile::default(), 1).unwrap();
    assert_eq!(keys(&admin), ["client.id", "request.timeout.ms", "retries"]);
    let share = ClientModel::new(
        ClientType::ShareConsumer,
        cfg(&[("group.id", "g")]),
        &SpecProfile::default(),
        1,
    )
    .unwrap();
    assert_eq!(
        keys(&share),
        [
            "client.id",
            "fetch.max.wait.ms",
            "fetch.min.bytes",
            "group.id",
            "max.poll.interval.ms",
            "max.poll.records",
            "share.acknowledgement.mode",
            "share.acquire.mode"
        ]
    );
}
