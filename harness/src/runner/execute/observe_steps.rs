//! Observation steps: the target's own reports of what it decided (model events). They are
//! evidence only where the target reports events (the `events` capability); the step loop
//! skips them elsewhere and records them as not observed.

use serde_json::Value;

use super::failure::{StepFail, StepFailure};
use super::redact::yaml;
use super::scenario::Exec;
use crate::scenario::matcher::{compare_with, render};
use crate::scenario::{ExpectEventStep, MatchMode};

impl Exec<'_> {
    /// `expect_event`: the target reported matching model events.
    pub(super) async fn expect_event(&mut self, e: &ExpectEventStep) -> Result<(), StepFail> {
        self.session.refresh_events().await?;
        let events = self.session.events();
        let mut matched = Vec::new();
        for (i, ev) in events.iter().enumerate().skip(self.event_cursor) {
            if compare_with(
                &e.event,
                Some(ev),
                MatchMode::Subset,
                &self.numbers,
                "event",
                &mut self.captures,
            )
            .is_empty()
            {
                matched.push(i);
            }
        }
        let ok = match e.count {
            Some(n) => matched.len() == n,
            None => !matched.is_empty(),
        };
        if !ok {
            let kind = e.event.get("event").map(render).unwrap_or_default();
            let mut fail = StepFailure::msg(format!(
                "expected {} event(s) matching {}, found {}",
                e.count
                    .map_or("at least one".to_string(), |n| n.to_string()),
                render(&e.event),
                matched.len()
            ));
            fail.expected = Some(yaml(&e.event));
            let same_kind: Vec<&Value> = events
                .iter()
                .skip(self.event_cursor)
                .filter(|ev| ev.get("event").map(render) == Some(kind.clone()))
                .collect();
            fail.actual = Some(yaml(&same_kind));
            // The closest event of that kind, for a field-by-field diff.
            if let Some(first) = same_kind.first() {
                fail.mismatches = compare_with(
                    &e.event,
                    Some(first),
                    MatchMode::Subset,
                    &self.numbers,
                    "event",
                    &mut self.captures.clone(),
                );
            }
            return Err(fail);
        }
        if let Some(last) = matched.last() {
            self.event_cursor = last + 1;
        }
        Ok(())
    }
    /// `expect_no_event`: no model event matches.
    pub(super) async fn expect_no_event(&mut self, event: &Value) -> Result<(), StepFail> {
        self.session.refresh_events().await?;
        let events = self.session.events();
        if let Some(ev) = events.iter().find(|ev| {
            // Read only: a pattern of expect_no_event captures nothing.
            compare_with(
                event,
                Some(ev),
                MatchMode::Subset,
                &self.numbers,
                "event",
                &mut self.captures.clone(),
            )
            .is_empty()
        }) {
            let mut fail =
                StepFailure::msg(format!("an event matching {} occurred", render(event)));
            fail.expected = Some("no such event\n".into());
            fail.actual = Some(yaml(ev));
            return Err(fail);
        }
        Ok(())
    }
}
