//! BrokerRegistration as the controller model handles it (KIP-1326 StaticConfigs, the
//! KIP-1294 registration audit) and the RegisterBrokerRecord it appends.

use std::collections::BTreeMap;

use super::ControllerModel;
use crate::events::Event;
use crate::profile::Reregistration;
use crate::time::Millis;
use kipcheck_codec::register_broker_record::{BrokerEndpoint, BrokerFeature, BrokerStaticConfig};
use kipcheck_codec::{
    BrokerRegistrationRequest, BrokerRegistrationResponse, MetadataRecordBody, RegisterBrokerRecord,
};

impl ControllerModel {
    /// MV-validator violations of broker static configs at `level`, as messages.
    pub(super) fn static_violations(
        &self,
        level: i16,
        configs: &BTreeMap<String, Option<String>>,
    ) -> Vec<String> {
        configs
            .iter()
            .filter_map(|(name, value)| {
                let key = self.defs.broker.get(name)?;
                let value = value.as_ref()?;
                self.check_mv(name, key, value, level)
                    .err()
                    .map(|e| e.to_string())
            })
            .collect()
    }

    /// BrokerRegistration (KIP-1326 + KIP-1294 registration audit).
    pub fn handle_broker_registration(
        &mut self,
        now: Millis,
        version: i16,
        req: &BrokerRegistrationRequest,
    ) -> BrokerRegistrationResponse {
        // Profile `reregistration: merge` starts from the list held for this broker.
        let mut statics = match self.profile.reregistration {
            Reregistration::Merge => self
                .brokers
                .get(&req.broker_id)
                .map(|b| b.static_configs.clone())
                .unwrap_or_default(),
            Reregistration::Replace => BTreeMap::new(),
        };
        if version >= self.profile.first_static_configs_version {
            for s in req.static_configs.iter().flatten() {
                let value = s.value.as_ref().map(|v| v.to_string());
                let default = self.defs.broker.get(s.name.as_str()).map(|k| &k.default);
                if !self.decisions.holds_reported_static_config(&value, default) {
                    continue;
                }
                statics.insert(s.name.to_string(), value);
            }
        }
        let audit = self
            .decisions
            .registration_audit_level(self.metadata_version(), req);
        let (level, violations) = match audit {
            Some(level) => (level, self.static_violations(level, &statics)),
            None => (self.metadata_version(), Vec::new()),
        };
        if !violations.is_empty() {
            let code = self
                .decisions
                .registration_refusal_code(self.profile.registration_rejection.code());
            let message = format!(
                "Broker {} static configs violate metadata.version {level}: {}",
                req.broker_id,
                violations.join("; ")
            );
            self.log_event(
                now,
                Event::RegistrationRejected {
                    broker_id: req.broker_id,
                    error_code: code,
                    message,
                },
            );
            if self.decisions.records_refused_registration() {
                self.append_registration(now, req, &statics);
            }
            return BrokerRegistrationResponse {
                error_code: code.0,
                // broker_epoch: -1, the field's default
                ..Default::default()
            };
        }
        let (epoch, persisted) = self.append_registration(now, req, &statics);
        // The record carries only what was persisted; the in-memory copy keeps everything.
        if let Some(b) = self.brokers.get_mut(&req.broker_id) {
            b.static_configs = statics.clone();
            b.static_configs_persisted = persisted;
        }
        self.log_event(
            now,
            Event::BrokerRegistered {
                broker_id: req.broker_id,
                epoch,
                static_configs: statics.len(),
                persisted,
            },
        );
        BrokerRegistrationResponse {
            broker_epoch: epoch,
            ..Default::default()
        }
    }

    /// Appends the (fenced) RegisterBrokerRecord of `req` with `statics` (persisted only from
    /// the enabling level): its epoch, and whether StaticConfigs went into it.
    pub(super) fn append_registration(
        &mut self,
        now: Millis,
        req: &BrokerRegistrationRequest,
        statics: &BTreeMap<String, Option<String>>,
    ) -> (i64, bool) {
        let persist = self.persists_static_configs();
        let record_version = if persist { 5 } else { 4 };
        let epoch = self.log.len() as i64;
        let record = RegisterBrokerRecord {
            broker_id: req.broker_id,
            incarnation_id: req.incarnation_id,
            broker_epoch: epoch,
            end_points: req
                .listeners
                .iter()
                .map(|l| BrokerEndpoint {
                    name: l.name.clone(),
                    host: l.host.clone(),
                    port: l.port,
                    security_protocol: l.security_protocol,
                    ..Default::default()
                })
                .collect(),
            features: req
                .features
                .iter()
                .map(|f| BrokerFeature {
                    name: f.name.clone(),
                    min_supported_version: f.min_supported_version,
                    max_supported_version: f.max_supported_version,
                    ..Default::default()
                })
                .collect(),
            rack: req.rack.clone(),
            // fenced: true, the field's default (a new registration is fenced)
            static_configs: if persist && !statics.is_empty() {
                Some(
                    statics
                        .iter()
                        .map(|(n, v)| BrokerStaticConfig {
                            name: n.as_str().into(),
                            value: v.as_deref().map(Into::into),
                            ..Default::default()
                        })
                        .collect(),
                )
            } else {
                None
            },
            ..Default::default()
        };
        let record = self
            .decisions
            .register_broker_record_as_written(record, record_version);
        let persisted = record.static_configs.is_some();
        self.append(
            now,
            record_version,
            MetadataRecordBody::RegisterBrokerRecord(record),
        );
        (epoch, persisted)
    }
}
