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

mod agent;
mod ask;
mod blueprint;
mod config;
mod dispatch;
mod effect;
mod engine;
mod error;
mod flow;
mod handoff;
mod host;
mod ids;
mod leg;
mod legflow;
mod lifecycle;
mod limits;
mod live;
mod log;
mod mailbox;
pub mod playback;
pub mod provenance;
mod relay;
mod relay_lifecycle;
pub mod scenario;
mod schedule;
mod sibling;
mod state;
mod thread;
mod time;
mod timers;
mod todo;
pub mod tools;
mod trust;
pub mod view;

pub use agent::{Agent, ToolPolicy, PROJECT_MANAGER_TOOLS};
pub use ask::{Ask, AskStatus, CallSnapshot, Question, QuestionKind};
pub use blueprint::{BlueprintManifest, InputDecl, StageState};
pub use config::Config;
pub use effect::Effect;
pub use engine::{Caller, Engine, Prepared};
pub use error::{CallError, ErrorCode, LoadError, StorageError};
pub use handoff::{Handoff, HandoffSpec, OnCompletion, Status, ThreadMode};
pub use host::{HostDef, HOST_INPUTS};
pub use ids::{IdKind, IdSource, SeededIds};
pub use leg::{Leg, LegGroup, LegSession, LegStatus, Usage};
pub use lifecycle::{transition, Event, TransitionError};
pub use live::Live;
pub use log::{Change, LogRecord, MemoryStorage, NoStorage, Storage, LOG_FORMAT_VERSION};
pub use mailbox::{MailState, Message};
pub use relay::{Artifact, ArtifactType, Intent, ProposedAction, RelayMessage, RelayStatus, RelayThread, Teammate};
pub use schedule::{Schedule, ScheduleStatus, Target};
pub use sibling::{AuditEntry, Outcome, ReturnField, ReturnType, SessionStatus, SiblingSession};
pub use state::State;
pub use thread::{Activity, BlueprintMode, JourneyContext, Owner, Thread, Visibility};
pub use time::{Timestamp, DAY, HOUR, MINUTE, SECOND};
pub use todo::{Step, StepStatus, TodoPlan};
pub use trust::{TrustPolicy, TrustRules};
