//! Binding a scenario's BrokerRegistration requests to a live controller's cluster id
//! (learnt from DescribeCluster or the manifest): pure, scenario in, scenario out.

use serde_json::Value;

use super::Unbound;
use crate::scenario::{validate, Scenario, Step};

/// The cluster id the scenarios' BrokerRegistration requests carry: the reference
/// controller's.
pub const SCENARIO_CLUSTER_ID: &str = crate::emulate::controller::CLUSTER_ID;

/// `scenario` with the live controller's `cluster_id` (or why it is not known) in every
/// BrokerRegistration it sends, directly or inside an Envelope, where it wrote
/// [`SCENARIO_CLUSTER_ID`] or left `ClusterId` out (a scenario that names another id on
/// purpose keeps it): `Ok(None)` when nothing changes, `Ok(Some(bound))` otherwise, so the
/// report shows the id that was sent. A controller formatted with a real cluster id refuses
/// a registration carrying another (INCONSISTENT_CLUSTER_ID).
pub fn bind_cluster_id(
    scenario: &Scenario,
    cluster_id: Result<&str, &str>,
) -> Result<Option<Scenario>, Unbound> {
    fn fix(body: &mut Option<Value>, id: &str) -> bool {
        let Some(Value::Object(o)) = body else {
            return false;
        };
        match o.get("ClusterId") {
            Some(Value::String(s)) if s == SCENARIO_CLUSTER_ID && s != id => {}
            None => {}
            _ => return false,
        }
        o.insert("ClusterId".into(), Value::String(id.to_owned()));
        true
    }
    let registers = |api: &str| api == "BrokerRegistration";
    let sends = scenario.file.steps.iter().any(|s| {
        matches!(&s.value, Step::Send(x)
            if registers(&x.api) || x.inner.as_ref().is_some_and(|i| registers(&i.api)))
    });
    if !sends {
        return Ok(None);
    }
    let id = cluster_id.map_err(|why| Unbound::NoClusterId(why.to_owned()))?;
    let mut file = scenario.file.clone();
    let mut changed = false;
    for step in &mut file.steps {
        if let Step::Send(x) = &mut step.value {
            if registers(&x.api) {
                changed |= fix(&mut x.body, id);
            }
            if let Some(inner) = x.inner.as_mut().filter(|i| registers(&i.api)) {
                changed |= fix(&mut inner.body, id);
            }
        }
    }
    if !changed {
        return Ok(None);
    }
    validate(file, &scenario.path, &scenario.area)
        .map(Some)
        .map_err(|e| Unbound::Invalid(Box::new(e)))
}
