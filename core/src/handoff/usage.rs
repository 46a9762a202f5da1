//! Token usage as a host reports it (rule A3): a leg's, and the sum a thread's activity keeps
//! of its legs.
use serde::{Deserialize, Serialize};

/// Token usage, as the host reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Input tokens.
    #[serde(rename = "in", default)]
    pub input: u64,
    /// Output tokens.
    #[serde(rename = "out", default)]
    pub output: u64,
    /// Cached input tokens.
    #[serde(default)]
    pub cached: u64,
    /// Cache-write tokens.
    #[serde(default)]
    pub write: u64,
}

impl Usage {
    /// Adds another usage.
    pub fn add(&mut self, o: Usage) {
        self.input += o.input;
        self.output += o.output;
        self.cached += o.cached;
        self.write += o.write;
    }
}
