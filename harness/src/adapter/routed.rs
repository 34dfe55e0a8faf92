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
//! as [`Fits`] (adapter code does not call the runner). The spec readings must be the same
//! for every target (the run has one `--profile`): the runner rebases a bound scenario onto
//! them. This module judges nothing and sends nothing itself.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;

use super::binding::Unbound;
use super::error::Crash;
use super::target::{AdapterError, Capabilities, Session, SessionConfig, Target};
use crate::scenario::Scenario;

/// Why a target with these capabilities cannot run the scenario (`None`: it can): the
/// runner's gate (`runner::gate`), as the caller builds the routed target.
pub type Fits = Box<dyn Fn(&Capabilities, &Scenario) -> Option<String> + Send + Sync>;

/// Targets that cannot be routed between.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// No target at all.
    #[error("a routed run needs at least one target")]
    NoTargets,
    /// Two targets follow different spec readings.
    #[error("{first} and {other} follow different spec readings; the targets of one run share one --profile")]
    Readings {
        /// The first target's name.
        first: String,
        /// The one that differs.
        other: String,
    },
}

/// Several targets as one: each scenario runs on the first that binds it.
pub struct Routed {
    targets: Vec<Arc<dyn Target>>,
    fits: Fits,
    /// Scenario id → the index of the target `bind` chose.
    routes: Mutex<BTreeMap<String, usize>>,
}

impl Routed {
    /// Routes between `targets`, in order; `fits` says why a target's capabilities do not
    /// cover a scenario.
    pub fn new(targets: Vec<Arc<dyn Target>>, fits: Fits) -> Result<Self, RouteError> {
        let first = targets.first().ok_or(RouteError::NoTargets)?;
        let readings = first.capabilities().readings;
        if let Some(other) = targets
            .iter()
            .find(|t| t.capabilities().readings != readings)
        {
            return Err(RouteError::Readings {
                first: first.name(),
                other: other.name(),
            });
        }
        Ok(Self {
            targets,
            fits,
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
            readings: self.targets[0].capabilities().readings,
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
            let bound = match t.bind(scenario) {
                Ok(b) => b,
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
                readings: Some(crate::model::SpecProfile::default()),
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
        });
        let r = Routed::new(vec![stub("tcp://a:1", &[], &[]), down], fits()).unwrap();
        assert_eq!(
            r.unreachable().as_deref(),
            Some("tcp://b:2: connection refused")
        );
    }

    #[test]
    fn targets_must_share_readings() {
        assert!(matches!(
            Routed::new(vec![], fits()),
            Err(RouteError::NoTargets)
        ));
        struct Other;
        #[async_trait::async_trait]
        impl Target for Other {
            fn name(&self) -> String {
                "exec:x".into()
            }
            fn capabilities(&self) -> Capabilities {
                Capabilities::default()
            }
            async fn open(&self, _: SessionConfig) -> Result<Box<dyn Session>, AdapterError> {
                unreachable!("never opened")
            }
        }
        let e = Routed::new(vec![stub("tcp://a:1", &[], &[]), Arc::new(Other)], fits())
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "tcp://a:1 and exec:x follow different spec readings; the targets of one run share one --profile"
        );
    }
}
