//! Running the built `kipcheck` binary from the CLI tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test, colours off.
pub(crate) fn kipcheck() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kipcheck"));
    c.env("NO_COLOR", "1");
    c
}

/// Output bytes as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The exit code (-1 if killed by a signal).
pub(crate) fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// A fresh folder `<test tmp>/<group>/<name>` with `scenarios/area/<id>.yaml` for each file
/// (`id: <id>` is prepended).
pub(crate) fn suite(group: &str, name: &str, files: &[(&str, String)]) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    let area = d.join("scenarios/area");
    std::fs::create_dir_all(&area).expect("mkdir");
    for (id, body) in files {
        std::fs::write(area.join(format!("{id}.yaml")), format!("id: {id}\n{body}")).unwrap();
    }
    d
}
