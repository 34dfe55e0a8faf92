//! KIP-1326: RegisterBrokerRecord v5 with StaticConfigs (tag 2).

use super::*;

/// The record body before its tagged-field section, the same in v4 and v5 (kip-notes §2.3).
const RECORD_FIXED: &str = "\
    00000001\
    00\
    000102030405060708090a0b0c0d0e0f\
    0000000000000007\
    02 0a504c41494e54455854 0a6c6f63616c686f7374 2384 0000 00\
    02 116d657461646174612e76657273696f6e 0001 001b 00\
    00\
    01\
    00";

/// Tag 2, 46 bytes: a compact array of two BrokerStaticConfig entries.
const RECORD_STATIC_CONFIGS: &str = "\
    01 02 2e\
    03\
    096c6f672e64697273 0b2f746d702f6b72616674 00\
    1673736c2e6b657973746f72652e70617373776f7264 00 00";

fn register_broker_record(version: i16) -> RegisterBrokerRecord {
    RegisterBrokerRecord {
        broker_id: 1,
        is_migrating_zk_broker: Some(false),
        incarnation_id: Uuid([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
        broker_epoch: 7,
        end_points: vec![BrokerEndpoint {
            name: "PLAINTEXT".into(),
            host: "localhost".into(),
            port: 9092,
            security_protocol: 0,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        features: vec![BrokerFeature {
            name: "metadata.version".into(),
            min_supported_version: 1,
            max_supported_version: 27,
            unknown_tagged_fields: TaggedFields::default(),
        }],
        rack: None,
        fenced: true,
        in_controlled_shutdown: Some(false),
        log_dirs: Some(Vec::new()),
        cordoned_log_dirs: Some(Vec::new()),
        static_configs: (version >= 5).then(|| {
            vec![
                BrokerStaticConfig {
                    name: "log.dirs".into(),
                    value: Some("/tmp/kraft".into()),
                    unknown_tagged_fields: TaggedFields::default(),
                },
                BrokerStaticConfig {
                    name: "ssl.keystore.password".into(),
                    value: None,
                    unknown_tagged_fields: TaggedFields::default(),
                },
            ]
        }),
        unknown_tagged_fields: TaggedFields::default(),
    }
}

#[test]
fn register_broker_record_v5_with_static_configs() {
    let body = hex(&format!("{RECORD_FIXED} {RECORD_STATIC_CONFIGS}"));
    let framed = hex(&format!("01 00 05 {RECORD_FIXED} {RECORD_STATIC_CONFIGS}"));
    let rec = register_broker_record(5);
    assert_eq!(RegisterBrokerRecord::from_bytes(&body, 5), Ok(rec.clone()));
    assert_eq!(rec.to_bytes(5), Ok(body));
    let m = MetadataRecord {
        version: 5,
        body: MetadataRecordBody::RegisterBrokerRecord(rec),
    };
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(m.clone()));
    assert_eq!(m.to_bytes(), Ok(framed));
}

#[test]
fn register_broker_record_v4_has_no_static_configs() {
    let body = hex(&format!("{RECORD_FIXED} 00"));
    let rec = register_broker_record(4);
    assert_eq!(rec.static_configs, None);
    assert_eq!(RegisterBrokerRecord::from_bytes(&body, 4), Ok(rec.clone()));
    assert_eq!(rec.to_bytes(4), Ok(body.clone()));
    let framed = hex(&format!("01 00 04 {RECORD_FIXED} 00"));
    let m = MetadataRecord {
        version: 4,
        body: MetadataRecordBody::RegisterBrokerRecord(rec),
    };
    assert_eq!(MetadataRecord::from_bytes(&framed), Ok(m.clone()));
    assert_eq!(m.to_bytes(), Ok(framed));
    // StaticConfigs is not ignorable: a v5 value does not encode at v4.
    assert_eq!(
        register_broker_record(5).to_bytes(4),
        Err(EncodeError::FieldNotAvailable {
            field: "RegisterBrokerRecord.StaticConfigs".into(),
            version: 4,
        })
    );
    // A v4 reader keeps the v5 tag 2 as an unknown tagged field, and writes it back.
    let v5 = hex(&format!("{RECORD_FIXED} {RECORD_STATIC_CONFIGS}"));
    let old = RegisterBrokerRecord::from_bytes(&v5, 4).expect("v4 reads v5 bytes");
    assert_eq!(old.static_configs, None);
    let raw = hex(RECORD_STATIC_CONFIGS);
    assert_eq!(
        old.unknown_tagged_fields.0.get(&2).map(|b| b.0.as_slice()),
        Some(&raw[3..])
    );
    assert_eq!(old.to_bytes(4), Ok(v5));
}
