//! Deltas: what moved in a record since its previous version (log format v2). A record is
//! logged whole once, when it is created; every later change logs only the fields that moved.
//!
//! Written by hand as a small macro rather than with a patch-derive crate: the derive crates
//! either cannot tell "unchanged" from "set to none" on optional fields without extra
//! wrappers, or consume both versions to diff them, and the list below doubles as a compile
//! check — every field of the record is named, so a field added to a record and not here
//! does not build.

/// Reads a present field of a delta as `Some(value)` — including `null`, which clears an
/// optional field. (An absent field is `None` through `#[serde(default)]`.)
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Declares `$Delta`: one `Option` per field of `$Rec` (the key field left out); `Some` means
/// the field moved to that value. `between` builds it from two versions, `apply_to` moves a
/// record forward, `is_empty` tells a delta that moved nothing.
macro_rules! delta {
    (
        $(#[$meta:meta])*
        $Delta:ident for $Rec:ident { key: [$($key:ident),*], $($field:ident: $T:ty),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct $Delta {
            $(
                #[allow(missing_docs)]
                #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "crate::ground::delta::present")]
                pub $field: Option<$T>,
            )+
        }

        impl $Delta {
            /// The fields of `new` that differ from `old`.
            #[allow(clippy::needless_update)]
            pub(crate) fn between(old: &$Rec, new: &$Rec) -> $Delta {
                // Every field is named (no `..`): a record field missing here fails to build.
                let _exhaustive = |r: &$Rec| {
                    let $Rec { $($key: _,)* $($field: _,)+ } = r;
                };
                $Delta { $($field: (old.$field != new.$field).then(|| new.$field.clone()),)+ }
            }

            /// Moves `rec` forward by this delta.
            pub(crate) fn apply_to(self, rec: &mut $Rec) {
                $(if let Some(v) = self.$field { rec.$field = v; })+
            }

            /// The names of the fields that moved, in declaration order.
            pub fn moved(&self) -> Vec<&'static str> {
                let mut names = Vec::new();
                $(if self.$field.is_some() { names.push(stringify!($field)); })+
                names
            }

            /// Nothing moved.
            pub fn is_empty(&self) -> bool {
                true $(&& self.$field.is_none())+
            }
        }
    };
}
pub(crate) use delta;
