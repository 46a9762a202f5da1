//! Baton's core: the handoff lifecycle between AI agents, sans-IO.
//!
//! The engine never reads a clock, randomness, the network or storage on its own: every
//! command takes `now`, ids come from an injected [`IdSource`], time rules run from
//! [`Engine::tick`], and every accepted command is one append to a [`Storage`].
//! Hosts drive it through one JSON entry point, [`Engine::call`], plus host inputs
//! ([`Engine::host`]) that report what agents did.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod coord;
mod engine;
mod ground;
mod handoff;
mod relay;
pub mod script;
mod sibling;
pub mod surface;
pub mod view;

pub use coord::ask::{Ask, AskStatus};
pub use coord::leg::{Leg, LegGroup, LegSession, LegStatus};
pub use coord::schedule::{Schedule, ScheduleStatus, Target};
pub use coord::todo::{Step, StepStatus, TodoPlan};
pub use engine::log::{Change, LogRecord, TraceContext, LOG_FORMAT_OLDEST, LOG_FORMAT_VERSION};
pub use engine::snapshot::{
    export_text, read_export, read_export_lines, Frozen, MovedEntry, Restore, Snapshot, SnapshotHeader,
    SNAPSHOT_FORMAT_OLDEST, SNAPSHOT_FORMAT_VERSION,
};
pub use engine::state::State;
pub use engine::storage::{CompactStorage, MemoryStorage, NoStorage, Storage};
pub use engine::{Caller, Engine, Prepared};
pub use ground::case::lower_for_ascii;
pub use ground::config::Config;
pub use ground::error::{CallError, ErrorCode, LoadError, StorageError};
pub use ground::ids::{
    GroupId, HandoffId, IdKind, IdSource, LegId, MessageId, MissionId, QuestionId, RelayThreadId, RowId, ScheduleId,
    SeededIds, SessionId, ThreadId,
};
pub use ground::machine::coverage as lifecycle_coverage;
pub use ground::records::{Records, Sealable, AT_REST_WRITES, HOT_RECORDS};
pub use ground::time::{Timestamp, DAY, HOUR, MINUTE, SECOND};
pub use handoff::agent::{Agent, ToolPolicy, PROJECT_MANAGER_TOOLS};
pub use handoff::blueprint::{BlueprintManifest, InputDecl, StageState};
pub use handoff::calls::{CallSnapshot, TurnCalls};
pub use handoff::effect::Effect;
pub use handoff::lifecycle::{transition, Event, TransitionError};
pub use handoff::live::Live;
pub use handoff::mailbox::{MailState, Message, MessageDelta};
pub use handoff::question::{Question, QuestionKind};
pub use handoff::thread::{
    Activity, ActivityDelta, BlueprintMode, JourneyContext, Owner, Thread, ThreadDelta, Visibility,
};
pub use handoff::usage::Usage;
pub use handoff::{Handoff, HandoffDelta, HandoffSpec, OnCompletion, Status, ThreadMode};
pub use relay::provenance;
pub use relay::trust::{TrustPolicy, TrustRules};
pub use relay::{Artifact, ArtifactType, Intent, ProposedAction, RelayMessage, RelayStatus, RelayThread, Teammate};
pub use script::{playback, scenario};
pub use sibling::{AuditEntry, Outcome, ReturnField, ReturnType, SessionStatus, SiblingSession};
pub use surface::command::Command;
pub use surface::host::{HostDef, HostScope, SetCallback, HOST_INPUTS};
#[cfg(feature = "schema")]
pub use surface::schemas::schemas;
