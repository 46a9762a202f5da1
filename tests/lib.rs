//! Conformance suite crate: the tests live in `tests/*.rs`, the data in `scenarios/`.
