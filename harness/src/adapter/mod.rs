//! Adapters: the [`Target`] trait every implementation under test is driven through, and
//! the targets kipcheck ships (the in-process reference model first).

pub mod binding;
pub mod client_cmd;
pub mod declared;
pub mod error;
pub mod exec;
pub(crate) mod exec_process;
pub mod failover;
pub mod manifest;
pub mod metadata_log;
pub mod mutant;
pub mod observe;
pub mod policy_host;
pub mod recording;
pub mod reference;
pub mod registry;
pub mod routed;
pub mod target;
pub mod tcp;

pub use binding::{bind, Unbound};
pub use client_cmd::{ClientCmdSession, ClientCmdTarget, BOOTSTRAP_PLACEHOLDER};
pub use declared::Declared;
pub use error::{
    AdapterError, ClientFault, Crash, Moment, ProbeError, ProbeStage, ProcessEnd,
    ProtocolViolation, SetupError, Tails, TimedOut, Unsupported, Violation, Waiting,
};
pub use exec::{ExecSession, ExecTarget, FrameEncoding, PROTOCOL_VERSION};
pub use exec_process::ExecOptions;
pub use manifest::{
    load_manifest, parse_manifest, Downgrade, FeatureMoves, ManifestConfig, ManifestError,
    ManifestErrorKind, ManifestResource, MvLevels, MvMoves, TargetManifest, ValuePair,
};
pub use mutant::{MutantTarget, MUTANT_PREFIX};
pub use observe::Unobserved;
pub use policy_host::{PolicyHost, PolicyHostError, PolicyScope};
pub use recording::{RecordedFrame, RecordingTarget};
pub use reference::{ReferenceSession, ReferenceTarget};
pub use registry::{target_from_spec, TARGET_KINDS};
pub use routed::{Fits, RouteError, Routed};
pub use target::{
    unclaimable_live, Capabilities, ConnOutput, OutRequest, Outbound, PeerAction, Session,
    SessionConfig, Target, TargetOptions, EMULATED_CONTROLLER_NODE,
};
pub use tcp::{TcpSession, TcpTarget};
