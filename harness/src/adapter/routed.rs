//! A run over several live targets at once (`kipcheck run|list --target tcp://A --target
//! tcp://B --role controller`): one [`Target`] that hands each scenario to the first of its
//! targets that can run it. A live controller runs at one `metadata.version`, so the KIP-1326
//! scenarios on the other side of its persistence level cannot be bound to it; with a second
//! controller at another level they run in the same run and land in one report.
//!
//! It owns the choice only: each target binds the scenario itself (its own manifest copy at
//! its own level, [`super::binding`]) and the first that binds, and whose own capabilities
//! the bound scenario's needs fit, runs it. The choice is kept by scenario id when `bind`
//! makes it, and [`Target::open`] opens that same target (a session for an id no target was
//! chosen for is an internal error, never a guess); [`Target::endpoint`] names it for the
//! report. A scenario no target binds is unbound with each target's reason, led by its name.
//!
//! Capabilities, for planning (`list`) and the runner's gate: the union of the targets'
//! roles and capabilities, so a scenario that one target can run is planned; whether *that*
//! target has what the scenario needs is checked in `bind` with the runner's gate, handed in
//! as [`Fits`] (adapter code does not call the runner). Targets may follow different spec
//! readings (`--profile` once per target): when they all follow the same ones, the routed
//! target declares them and the runner gates pins and rebases as for one target; when they
//! differ, it declares none, a target is chosen only if the scenario pins none of its readings
//! to another value, and the bound scenario is rebased here onto the chosen target's readings.
//! This module judges nothing and sends nothing itself.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;

use super::binding::Unbound;
use super::error::Crash;
use super::target::{AdapterError, Capabilities, Session, SessionConfig, Target};
use crate::model::SpecProfile;
use crate::scenario::{differing_pins, rebase, Scenario};

/// Why a target with these capabilities cannot run the scenario (`None`: it can): the
/// runner's gate (`runner::gate`), as the caller builds the routed target.
pub type Fits = Box<dyn Fn(&Capabilities, &Scenario) -> Option<String> + Send + Sync>;

/// Targets that cannot be routed between.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// No target at all.
    #[error("a routed run needs at least one target")]
    NoTargets,
}

/// Several targets as one: each scenario runs on the first that binds it.
pub struct Routed {
    targets: Vec<Arc<dyn Target>>,
    fits: Fits,
    /// The readings every target follows, when they all follow the same (`None` inside: they
    /// follow none, in-process); `None`: they differ, and `bind` routes by them.
    shared_readings: Option<Option<SpecProfile>>,
    /// Scenario id → the index of the target `bind` chose.
    routes: Mutex<BTreeMap<String, usize>>,
}

impl Routed {
    /// Routes between `targets`, in order; `fits` says why a target's capabilities do not
    /// cover a scenario.
    pub fn new(targets: Vec<Arc<dyn Target>>, fits: Fits) -> Result<Self, RouteError> {
        let first = targets.first().ok_or(RouteError::NoTargets)?;
        let readings = first.capabilities().readings;
        let shared_readings = targets
            .iter()
            .all(|t| t.capabilities().readings == readings)
            .then_some(readings);
        Ok(Self {
            targets,
            fits,
            shared_readings,
            routes: Mutex::default(),
        })
    }

    /// The targets, in routing order.
    pub fn targets(&self) -> &[Arc<dyn Target>] {
        &self.targets
    }

    fn routes(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, usize>> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The target chosen for scenario `id`, if `bind` chose one.
    fn chosen(&self, id: &str) -> Option<&Arc<dyn Target>> {
        let i = *self.routes().get(id)?;
        self.targets.get(i)
    }
}

/// `reason` per target, the targets with the same reason named together:
/// `tcp://A, tcp://B: why`.
fn grouped(reasons: Vec<(String, String)>) -> Vec<String> {
    let mut groups: Vec<(Vec<String>, String)> = Vec::new();
    for (name, why) in reasons {
        match groups.iter_mut().find(|(_, w)| *w == why) {
            Some((names, _)) => names.push(name),
            None => groups.push((vec![name], why)),
        }
    }
    groups
        .into_iter()
        .map(|(names, why)| format!("{}: {why}", names.join(", ")))
        .collect()
}

#[async_trait]
impl Target for Routed {
    /// `tcp://A + tcp://B (controllers)`: every target, and the role they share.
    fn name(&self) -> String {
        let names: Vec<String> = self.targets.iter().map(|t| t.name()).collect();
        let roles: Vec<_> = self
            .targets
            .iter()
            .map(|t| t.capabilities().roles)
            .collect();
        match roles.first() {
            Some(r) if r.len() == 1 && roles.iter().all(|x| x == r) => {
                format!("{} ({}s)", names.join(" + "), r[0].name())
            }
            _ => names.join(" + "),
        }
    }

    fn capabilities(&self) -> Capabilities {
        let mut union = Capabilities {
            readings: self.shared_readings.clone().flatten(),
            ..Capabilities::default()
        };
        for t in &self.targets {
            let c = t.capabilities();
            union.roles.extend(c.roles);
            union.capabilities.extend(c.capabilities);
        }
        union.roles.sort();
        union.roles.dedup();
        union.capabilities.sort();
        union.capabilities.dedup();
        union
    }

    fn time_scale(&self) -> f64 {
        self.targets[0].time_scale()
    }

    fn timing(&self) -> Option<crate::model::Timing> {
        self.targets[0].timing()
    }

    fn observed_events(&self) -> Vec<&'static str> {
        let mut kinds: Vec<&'static str> = self
            .targets
            .iter()
            .flat_map(|t| t.observed_events())
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// The first target that binds `scenario` and has what the bound scenario needs. When the
    /// scenario needs what no target has, capabilities do not route: the runner's gate names
    /// what is missing.
    fn bind(&self, scenario: &Scenario) -> Result<Option<Scenario>, Unbound> {
        let route_by_capabilities = (self.fits)(&self.capabilities(), scenario).is_none();
        let mut reasons = Vec::new();
        for (i, t) in self.targets.iter().enumerate() {
            // Readings that differ between targets route: only a target none of whose
            // readings the scenario pins otherwise runs it, rebased onto them.
            let own = match (&self.shared_readings, t.capabilities().readings) {
                (None, Some(fixed)) => Some(fixed),
                _ => None,
            };
            if let Some(fixed) = &own {
                let pins = differing_pins(fixed, scenario);
                if !pins.is_empty() {
                    let why: Vec<String> = pins
                        .iter()
                        .map(|(r, target, pinned)| {
                            format!("the target's {r} is {target}, the scenario pins {pinned}")
                        })
                        .collect();
                    reasons.push((t.name(), why.join("; ")));
                    continue;
                }
            }
            // Rebased onto the target's readings first: binding compares the scenario's
            // levels with the persistence level of the readings it will run under.
            let rebased = match &own {
                Some(fixed) => match rebase(scenario, fixed) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        reasons.push((
                            t.name(),
                            format!("the scenario does not compile under its readings: {e}"),
                        ));
                        continue;
                    }
                },
                None => None,
            };
            let bound = match t.bind(rebased.as_ref().unwrap_or(scenario)) {
                Ok(b) => b.or(rebased),
                Err(why) => {
                    reasons.push((t.name(), why.to_string()));
                    continue;
                }
            };
            if route_by_capabilities {
                if let Some(why) =
                    (self.fits)(&t.capabilities(), bound.as_ref().unwrap_or(scenario))
                {
                    reasons.push((t.name(), why));
                    continue;
                }
            }
            self.routes().insert(scenario.file.id.clone(), i);
            return Ok(bound);
        }
        self.routes().remove(&scenario.file.id);
        Err(Unbound::NoTarget(grouped(reasons)))
    }

    fn endpoint(&self, scenario_id: &str) -> Option<String> {
        self.chosen(scenario_id).map(|t| t.name())
    }

    async fn open(&self, config: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
        let Some(target) = self.chosen(&config.id).cloned() else {
            return Err(Crash::Internal {
                what: "a routed session for a scenario no target was chosen for (bind first)",
            }
            .into());
        };
        target.open(config).await
    }

    /// Every target that cannot be reached, by name.
    fn unreachable(&self) -> Option<String> {
        let down: Vec<String> = self
            .targets
            .iter()
            .filter_map(|t| t.unreachable().map(|why| format!("{}: {why}", t.name())))
            .collect();
        (!down.is_empty()).then(|| down.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Fits, RouteError, Routed};
    use crate::adapter::binding::Unbound;
    use crate::adapter::error::Unsupported;
    use crate::adapter::target::{AdapterError, Capabilities, Session, SessionConfig, Target};
    use crate::runner::{gate, UnsupportedCause};
    use crate::scenario::{Capability, Role, Scenario, ScenarioBuilder};

    /// A target that binds the scenario ids in `binds` (others: unbound with `why`), has
    /// `caps`, and whose `open` fails naming it (so a test sees which target opened).
    struct Stub {
        name: &'static str,
        binds: &'static [&'static str],
        caps: Vec<Capability>,
        down: bool,
        /// Its `static_config_persistence_level` reading.
        persistence: i16,
    }

    #[async_trait::async_trait]
    impl Target for Stub {
        fn name(&self) -> String {
            self.name.to_owned()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                roles: vec![Role::Controller],
                capabilities: self.caps.clone(),
                readings: Some(crate::model::SpecProfile {
                    static_config_persistence_level: self.persistence,
                    ..Default::default()
                }),
            }
        }
        fn bind(&self, s: &Scenario) -> Result<Option<Scenario>, Unbound> {
            if self.binds.contains(&s.file.id.as_str()) {
                Ok(None)
            } else {
                Err(Unbound::NoClusterId(format!("{} is elsewhere", s.file.id)))
            }
        }
        async fn open(&self, _: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
            Err(Unsupported::Setup {
                reason: format!("opened {}", self.name),
            }
            .into())
        }
        fn unreachable(&self) -> Option<String> {
            self.down.then(|| "connection refused".to_owned())
        }
    }

    fn stub(
        name: &'static str,
        binds: &'static [&'static str],
        caps: &[Capability],
    ) -> Arc<dyn Target> {
        Arc::new(Stub {
            name,
            binds,
            caps: caps.to_vec(),
            down: false,
            persistence: 35,
        })
    }

    fn fits() -> Fits {
        Box::new(|caps, s| {
            let causes = gate(caps, s);
            (!causes.is_empty()).then(|| UnsupportedCause::sentence(&causes))
        })
    }

    fn scenario(id: &str, needs: Option<Capability>) -> Scenario {
        let mut b = ScenarioBuilder::new(id, "t", "KIP-1326")
            .role(Role::Controller)
            .send("ApiVersions", 3, serde_json::json!({}))
            .expect_response(serde_json::json!({"ErrorCode": "NONE"}));
        if let Some(c) = needs {
            b = b.requires(c);
        }
        b.build().unwrap()
    }

    fn config(id: &str) -> SessionConfig {
        let s = scenario(id, None);
        SessionConfig {
            id: id.to_owned(),
            setup: s.file.setup.clone(),
            profile: s.profile.clone(),
            seed: 1,
            roles: vec![Role::Controller],
        }
    }

    async fn opened(r: &Routed, id: &str) -> String {
        match r.open(config(id)).await {
            Err(e) => e.to_string(),
            Ok(_) => "a session".to_owned(),
        }
    }

    #[tokio::test]
    async fn each_scenario_opens_on_the_first_target_that_binds_it() {
        let r = Routed::new(
            vec![
                stub("tcp://a:1", &["below", "both"], &[]),
                stub("tcp://b:2", &["at", "both"], &[]),
            ],
            fits(),
        )
        .unwrap();
        for (id, endpoint) in [
            ("below", "tcp://a:1"),
            ("at", "tcp://b:2"),
            ("both", "tcp://a:1"),
        ] {
            assert_eq!(r.bind(&scenario(id, None)).unwrap(), None, "{id}");
            assert_eq!(r.endpoint(id).as_deref(), Some(endpoint), "{id}");
            assert_eq!(
                opened(&r, id).await,
                format!("not supported by the target: opened {endpoint}"),
                "{id}"
            );
        }
        assert_eq!(r.name(), "tcp://a:1 + tcp://b:2 (controllers)");
    }

    #[tokio::test]
    async fn a_scenario_no_target_binds_names_each_reason_and_opens_nowhere() {
        let r = Routed::new(
            vec![stub("tcp://a:1", &[], &[]), stub("tcp://b:2", &[], &[])],
            fits(),
        )
        .unwrap();
        let e = r.bind(&scenario("x", None)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no target runs it: tcp://a:1, tcp://b:2: the scenario sends BrokerRegistration, but the controller's cluster id is unknown (x is elsewhere); the manifest's cluster_id declares it"
        );
        assert_eq!(r.endpoint("x"), None);
        assert!(
            opened(&r, "x").await.contains("no target was chosen"),
            "{}",
            opened(&r, "x").await
        );
    }

    #[test]
    fn a_scenario_goes_to_a_target_with_what_it_needs() {
        let r = Routed::new(
            vec![
                stub("tcp://a:1", &["log"], &[]),
                stub("tcp://b:2", &["log"], &[Capability::MetadataLog]),
            ],
            fits(),
        )
        .unwrap();
        assert_eq!(
            r.bind(&scenario("log", Some(Capability::MetadataLog)))
                .unwrap(),
            None
        );
        assert_eq!(r.endpoint("log").as_deref(), Some("tcp://b:2"));
        // Planning sees the union: the scenario is planned, and runs on b.
        assert_eq!(r.capabilities().capabilities, vec![Capability::MetadataLog]);
        assert!(gate(
            &r.capabilities(),
            &scenario("log", Some(Capability::MetadataLog))
        )
        .is_empty());
    }

    #[test]
    fn what_no_target_has_is_left_to_the_gate() {
        let r = Routed::new(
            vec![
                stub("tcp://a:1", &["ev"], &[]),
                stub("tcp://b:2", &["ev"], &[]),
            ],
            fits(),
        )
        .unwrap();
        let s = scenario("ev", Some(Capability::Events));
        assert_eq!(r.bind(&s).unwrap(), None);
        assert_eq!(
            gate(&r.capabilities(), &s),
            vec![UnsupportedCause::MissingCapability(Capability::Events)]
        );
    }

    #[test]
    fn an_unreachable_target_is_named() {
        let down = Arc::new(Stub {
            name: "tcp://b:2",
            binds: &[],
            caps: vec![],
            down: true,
            persistence: 35,
        });
        let r = Routed::new(vec![stub("tcp://a:1", &[], &[]), down], fits()).unwrap();
        assert_eq!(
            r.unreachable().as_deref(),
            Some("tcp://b:2: connection refused")
        );
    }

    #[tokio::test]
    async fn targets_with_other_readings_take_the_scenarios_that_pin_theirs() {
        let at = |name, persistence| {
            Arc::new(Stub {
                name,
                binds: &["pinned", "plain"],
                caps: Vec::new(),
                down: false,
                persistence,
            }) as Arc<dyn Target>
        };
        let r = Routed::new(vec![at("tcp://a:1", 35), at("tcp://b:2", 20)], fits()).unwrap();
        // Readings differ: the routed target declares none, and routes by them.
        assert_eq!(r.capabilities().readings, None);
        let pinned = {
            let mut b = ScenarioBuilder::new("pinned", "t", "KIP-1326")
                .role(Role::Controller)
                .profile(serde_json::json!({ "static_config_persistence_level": 20 }));
            b = b
                .send("ApiVersions", 3, serde_json::json!({}))
                .expect_response(serde_json::json!({"ErrorCode": "NONE"}));
            b.build().unwrap()
        };
        let bound = r.bind(&pinned).unwrap().expect("rebased onto b's readings");
        assert_eq!(bound.profile.static_config_persistence_level, 20);
        assert_eq!(r.endpoint("pinned").as_deref(), Some("tcp://b:2"));
        // An unpinned scenario goes to the first, under its readings.
        let plain = r.bind(&scenario("plain", None)).unwrap().expect("rebased");
        assert_eq!(plain.profile.static_config_persistence_level, 35);
        assert_eq!(r.endpoint("plain").as_deref(), Some("tcp://a:1"));
        // A pin no target follows: each target's reason.
        let other = {
            let b = ScenarioBuilder::new("pinned", "t", "KIP-1326")
                .role(Role::Controller)
                .profile(serde_json::json!({ "static_config_persistence_level": 7 }))
                .send("ApiVersions", 3, serde_json::json!({}))
                .expect_response(serde_json::json!({"ErrorCode": "NONE"}));
            b.build().unwrap()
        };
        assert_eq!(
            r.bind(&other).unwrap_err().to_string(),
            Unbound::NoTarget(vec![
                "tcp://a:1: the target's static_config_persistence_level is 35, the scenario pins 7".into(),
                "tcp://b:2: the target's static_config_persistence_level is 20, the scenario pins 7".into(),
            ])
            .to_string()
        );
        // The same readings everywhere: declared, and the runner rebases.
        let same = Routed::new(vec![at("tcp://a:1", 35), at("tcp://b:2", 35)], fits()).unwrap();
        assert_eq!(
            same.capabilities()
                .readings
                .map(|p| p.static_config_persistence_level),
            Some(35)
        );
        assert_eq!(same.bind(&scenario("plain", None)).unwrap(), None);
    }

    #[test]
    fn no_targets_cannot_be_routed() {
        assert!(matches!(
            Routed::new(vec![], fits()),
            Err(RouteError::NoTargets)
        ));
    }
}
