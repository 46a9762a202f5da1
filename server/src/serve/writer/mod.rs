//! The writers: one thread per workspace owning its engine ([`actor`]), the leases that say
//! which node writes a workspace ([`cluster`]), and the callbacks a writer's effects ask for
//! ([`callbacks`]). A writer knows no protocol: it runs commands and jobs.
pub mod actor;
pub mod callbacks;
pub mod cluster;
pub mod registry;
