//! Host configuration that rules depend on; changed only through the `configure` host input.
use serde::{Deserialize, Serialize};

/// Engine settings. Part of the state (and the log), so a replay sees the same values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Agent slots: the delivery sweep wakes a thread only while fewer turns run (M5).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub agent_slots: u32,
    /// Authentication is on: a thread owned by the system default owner wakes with no identity (M6).
    pub auth_enabled: bool,
    /// The system default owner's user id.
    pub system_default_owner: Option<String>,
    /// Notices a mid-turn thread may hold before mail falls back to normal delivery (M4).
    pub undelivered_wake_limit: u32,
    /// Threads an agent may hold open; at the limit a new child cannot be created (G18).
    pub max_threads_per_agent: Option<u32>,
    /// The host's local offset from UTC in minutes, for schedule times (A6).
    #[cfg_attr(feature = "schema", schemars(range(min = -840, max = 840)))]
    pub utc_offset_minutes: i32,
    /// CPU cores of the host: max(3, cores / 2) foreground legs run at once, and as many
    /// background legs per session (A2, A5).
    pub cores: u32,
    /// Models a leg may name (A4).
    pub models: Vec<String>,
    /// The dispatcher's pick for `model: "auto"` (A4).
    pub auto_model: Option<String>,
}

impl Config {
    /// Leg slots: max(3, cores / 2).
    pub fn leg_slots(&self) -> usize {
        (self.cores as usize / 2).max(3)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            agent_slots: 4,
            auth_enabled: false,
            system_default_owner: None,
            undelivered_wake_limit: 3,
            max_threads_per_agent: None,
            utc_offset_minutes: 0,
            cores: 4,
            models: Vec::new(),
            auto_model: None,
        }
    }
}
