//! What the binding unit tests share: a scenario and a manifest from text.

use std::path::Path;

use crate::adapter::manifest::{parse_manifest, TargetManifest};
use crate::scenario::{load_text, Scenario};

/// `text` loaded as the KIP-1294 scenario file its `id` names (a file is named by its id).
pub(super) fn scenario(text: &str) -> Scenario {
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap_or("bound");
    let path = format!("scenarios/kip1294/{}.yaml", id.trim());
    load_text(text, Path::new(&path), Path::new("scenarios")).unwrap()
}

/// `text` parsed as a target manifest.
pub(super) fn manifest(text: &str) -> TargetManifest {
    parse_manifest(text, Path::new("m.yaml")).unwrap()
}
