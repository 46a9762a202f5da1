//! The stored form of a record: what the log's lines, snapshots and sealed records hold. It
//! leaves out the fields of a thread, its activity, a handoff, its parameters and a mail
//! message that are at their defaults (most of a new record: a thread written by `handoff`
//! carries twelve such fields, its parameters eleven), and a reader puts them back. Answers,
//! effects and every other JSON a host reads keep every field, so the hosts' types say each
//! one is there.
//!
//! Which form is written is a mode of the writer, not of the types: [`form`] runs a closure
//! with the stored form on, and the fields' `skip_serializing_if` predicates here read it.
//! Why a mode: serde gives a field one serializer, and a second set of record types for the
//! stored form would declare every field twice. Why a thread's own flag: the writers are
//! synchronous and serialize on the thread that asked, and a snapshot built on a thread of
//! its own turns it on there.
//!
//! Each record type lists its fields that the stored form leaves out ([`Omitted`]), so that
//! the schemas keep calling them required (answers always hold them) and a test checks the
//! list against what the stored form leaves out.
use std::cell::Cell;

thread_local! {
    static STORED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the stored form on (on this thread), as it was again afterwards.
pub(crate) fn form<T>(f: impl FnOnce() -> T) -> T {
    struct Again(bool);
    impl Drop for Again {
        fn drop(&mut self) {
            STORED.with(|s| s.set(self.0));
        }
    }
    let _again = Again(STORED.with(|s| s.replace(true)));
    f()
}

/// Whether the stored form is being written (on this thread).
pub(crate) fn storing() -> bool {
    STORED.with(Cell::get)
}

/// Left out of the stored form when at its type's default.
pub(crate) fn at_default<T: Default + PartialEq>(v: &T) -> bool {
    storing() && *v == T::default()
}

/// Left out of the stored form when true (a flag whose default is on).
pub(crate) fn at_true(v: &bool) -> bool {
    storing() && *v
}

/// The default of a flag that is on unless said otherwise.
pub(crate) fn yes() -> bool {
    true
}

/// The fields of a record type that the stored form leaves out at their defaults.
#[cfg_attr(not(any(test, feature = "schema")), allow(dead_code))]
pub(crate) trait Omitted {
    const OMITTED: &'static [&'static str];
}

/// A record type's schema with the fields it lists in [`Omitted::OMITTED`] required again:
/// their `skip_serializing_if` makes the schema generator call them optional, but only the
/// stored form leaves them out, and no schema describes the stored form.
#[cfg(feature = "schema")]
pub(crate) fn required_again<T: Omitted>(schema: &mut schemars::Schema) {
    let Some(object) = schema.as_object_mut() else { return };
    let required = object.entry("required").or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let serde_json::Value::Array(names) = required {
        for field in T::OMITTED {
            if !names.iter().any(|n| n == field) {
                names.push(serde_json::Value::from(*field));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_stored_form_is_on_only_inside_form_and_nests() {
        assert!(!storing());
        form(|| {
            assert!(storing() && at_default(&0u64) && at_true(&true) && !at_true(&false));
            form(|| assert!(storing()));
            assert!(storing(), "an inner form leaves the outer one on");
        });
        assert!(!storing() && !at_default(&0u64) && !at_true(&true));
    }

    /// wasm32 aborts on a panic, so only a native build can see this.
    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_panic_inside_the_stored_form_turns_it_off_again() {
        let caught = std::panic::catch_unwind(|| form(|| panic!("a writer that fails")));
        assert!(caught.is_err());
        assert!(!storing());
    }
}
