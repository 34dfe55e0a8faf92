//! SASL: the push after authentication (KIP-1324 "after authentication (if any)").

use super::*;

/// The requests among outputs as (API key, version).
fn sent(out: &[ClientOutput]) -> Vec<(ApiKey, i16)> {
    out.iter()
        .filter_map(|o| match o {
            ClientOutput::Send {
                api_key,
                api_version,
                ..
            } => Some((*api_key, *api_version)),
            _ => None,
        })
        .collect()
}

fn sasl_consumer(password: &str) -> ClientModel {
    let jaas = format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"{password}\";"
    );
    consumer(&[
        ("group.id", "g"),
        ("security.protocol", "sasl_plaintext"),
        ("sasl.mechanism", "PLAIN"),
        ("sasl.jaas.config", &jaas),
    ])
}

#[test]
fn a_sasl_client_pushes_only_once_its_connection_authenticated() {
    use kipcheck::codec::{SaslAuthenticateResponse, SaslHandshakeResponse};
    let mut c = sasl_consumer("s3cret");
    let t = Millis(0);
    c.handle(t, ClientInput::Start);
    assert_eq!(
        sent(&c.handle(t, ClientInput::Connected { node: 1 })),
        [(ApiKey::API_VERSIONS, 3)]
    );
    let av = kipcheck::emulate::emulated_api_versions(Some(ApiKey(95)), true);
    let out = c.handle(t, ClientInput::ApiVersionsResponse { node: 1, body: av });
    let handshake = out.iter().find_map(|o| match o {
        ClientOutput::Send {
            body: RequestBody::SaslHandshake(h),
            ..
        } => Some(h.mechanism.to_string()),
        _ => None,
    });
    assert_eq!(sent(&out), [(ApiKey::SASL_HANDSHAKE, 1)]);
    assert_eq!(handshake.as_deref(), Some("PLAIN"));
    let enabled = kipcheck::emulate::sasl_handshake_answer();
    let out = c.handle(
        t,
        ClientInput::SaslHandshakeResponse {
            node: 1,
            body: enabled,
        },
    );
    let token = out.iter().find_map(|o| match o {
        ClientOutput::Send {
            body: RequestBody::SaslAuthenticate(a),
            ..
        } => Some(a.auth_bytes.0.clone()),
        _ => None,
    });
    assert_eq!(sent(&out), [(ApiKey::SASL_AUTHENTICATE, 2)]);
    assert_eq!(token.as_deref(), Some(&b"\0alice\0s3cret"[..]));
    let ok = kipcheck::emulate::sasl_authenticate_answer();
    let out = c.handle(
        t,
        ClientInput::SaslAuthenticateResponse { node: 1, body: ok },
    );
    assert_eq!(sent(&out), [(ApiKey(95), 0)]);
    assert!(events(&out).contains(&Event::Authenticated { node: 1 }));
    // No sasl.* / security.* key among what is pushed.
    assert!(keys(&c)
        .iter()
        .all(|k| !k.starts_with("sasl.") && !k.starts_with("security.")));

    // Refused credentials: the connection closes, nothing is pushed; an unlisted mechanism
    // counts as a failed authentication too.
    for (mechanisms, auth_error, code) in [
        (
            vec!["PLAIN"],
            ErrorCode::SASL_AUTHENTICATION_FAILED,
            ErrorCode::SASL_AUTHENTICATION_FAILED,
        ),
        (
            vec!["SCRAM-SHA-512"],
            ErrorCode::NONE,
            ErrorCode::UNSUPPORTED_SASL_MECHANISM,
        ),
    ] {
        let mut c = sasl_consumer("wrong");
        c.handle(t, ClientInput::Start);
        c.handle(t, ClientInput::Connected { node: 1 });
        let av = kipcheck::emulate::emulated_api_versions(Some(ApiKey(95)), true);
        c.handle(t, ClientInput::ApiVersionsResponse { node: 1, body: av });
        let body = SaslHandshakeResponse {
            error_code: 0,
            mechanisms: mechanisms.into_iter().map(Into::into).collect(),
        };
        let mut out = c.handle(t, ClientInput::SaslHandshakeResponse { node: 1, body });
        if code == ErrorCode::SASL_AUTHENTICATION_FAILED {
            let body = SaslAuthenticateResponse {
                error_code: auth_error.0,
                error_message: Some("Authentication failed".into()),
                ..Default::default()
            };
            out = c.handle(t, ClientInput::SaslAuthenticateResponse { node: 1, body });
        }
        assert!(push_targets(&out).is_empty(), "{out:?}");
        assert!(events(&out).contains(&Event::AuthenticationFailed {
            node: 1,
            error_code: code
        }));
        let later = c.handle(Millis(5000), ClientInput::Tick);
        assert!(push_targets(&later).is_empty());
        assert_eq!(c.attempts(), 0);
    }
}
