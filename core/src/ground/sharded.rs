//! A hash map split into [`SHARDS`] tables by its keys' hashes, for the maps that grow with the
//! workspace (records by id and the indexes beside them). A hash table grows by moving every
//! entry into a table twice its size, all inside the insert that crossed its load limit, and
//! the record maps grow in step: in one map each, the cycle that took a workspace past 229,376
//! handoffs took 160–173 ms, where the median cycle takes 28 µs (`cargo bench -p baton-core
//! --bench growth`; docs/PERFORMANCE.md). Split, a growth moves one shard's entries, and the
//! shards, of sizes spread over one doubling, cross their limits at different moments: the
//! slowest of 300,000 cycles took 1.5–2.1 ms. The total work is the same.
//!
//! Written here rather than taken from a crate: it is a router in front of hashbrown's
//! `HashTable` (the table std's map is made of), not a second hash table. Iteration visits the
//! shards in turn; like `HashMap`'s, its order is no promise.
//!
//! A key is hashed once for a lookup or an insert: the same hash picks the shard and the place
//! in the shard's table (std's map hashed it again inside). On 32-bit targets (the console's
//! wasm32) each entry also keeps its key's hash beside it, so a table that grows moves its
//! entries without hashing their keys again. There, applying 100,000 handoffs' records took
//! 14 % less with it, and no less with the key hashed once but not kept; natively keeping it
//! saved about 4 % of the instructions and would cost 8 bytes an entry (docs/PERFORMANCE.md,
//! "Each key hashed once").
use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};

use hashbrown::hash_table::{self, HashTable};
use rustc_hash::FxBuildHasher;

/// How many tables a map is split into.
pub(crate) const SHARDS: usize = 64;

/// One entry: the key, the value and, on 32-bit targets, the key's hash (all of Fx's hash
/// there).
#[derive(Clone)]
struct Kept<K, V> {
    key: K,
    value: V,
    #[cfg(not(target_pointer_width = "64"))]
    hash: u32,
}

impl<K: Hash, V> Kept<K, V> {
    /// The key's hash, for a table that grows.
    fn hash(&self) -> u64 {
        #[cfg(not(target_pointer_width = "64"))]
        return u64::from(self.hash);
        #[cfg(target_pointer_width = "64")]
        hash_of(&self.key)
    }
}

/// A map from `K` to `V` in [`SHARDS`] tables.
#[derive(Clone)]
pub struct Sharded<K, V> {
    shards: Box<[HashTable<Kept<K, V>>]>,
}

impl<K, V> Default for Sharded<K, V> {
    fn default() -> Self {
        Sharded { shards: (0..SHARDS).map(|_| HashTable::new()).collect() }
    }
}

/// Which shard each of 1,024 hash slices goes to: shard `i` takes a share in proportion to
/// `64 + i`, so the shards' sizes are spread over one doubling (from 11 slices to 21). Shards
/// of equal size would cross their load limits together, and their growths would come in one
/// burst of commands; spread like this, they come one at a time.
const SHARD_OF: [u8; 1024] = {
    let total = (SHARDS * SHARDS + SHARDS * (SHARDS - 1) / 2) as u64;
    let mut table = [0u8; 1024];
    let (mut shard, mut upto) = (0usize, 0u64);
    let mut slice = 0;
    while slice < 1024 {
        // The slices before shard `shard`'s end: its own weight and all before it.
        while (slice as u64) * total >= (upto + (SHARDS + shard) as u64) * 1024 {
            upto += (SHARDS + shard) as u64;
            shard += 1;
        }
        table[slice] = shard as u8;
        slice += 1;
    }
    table
};

/// A key's hash: Fx's, as wide as a pointer (on 32-bit targets, 32 bits).
fn hash_of<Q: Hash + ?Sized>(key: &Q) -> u64 {
    FxBuildHasher.hash_one(key) as usize as u64
}

/// The shard of a hash, from bits that do not decide where its shard's table places it.
fn shard_of(hash: u64) -> usize {
    SHARD_OF[slice_of(hash)] as usize
}

/// Which of the 1,024 hash slices a hash falls in. A table places a key by its hash's low bits
/// (the bucket) and its top seven (the tag). A 64-bit hash's high half is neither: the slice
/// is ten of its bits. On a 32-bit target (the console's wasm32) Fx hashes to 32 bits and the
/// high half is zero, which put every key in one shard; there the hash is multiplied by an odd
/// constant (a bijection) and the product's top ten bits taken, which depend on every bit of
/// the hash, so the keys of one slice still spread over a table's buckets and tags.
fn slice_of(hash: u64) -> usize {
    if cfg!(target_pointer_width = "64") {
        (hash >> 32) as usize % 1024
    } else {
        ((hash as u32).wrapping_mul(0x9E37_79B9) >> 22) as usize
    }
}

impl<K: Hash + Eq, V> Sharded<K, V> {
    /// The shard of a key and the key's hash.
    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> (&HashTable<Kept<K, V>>, u64) {
        let hash = hash_of(key);
        (&self.shards[shard_of(hash)], hash)
    }

    fn shard_mut<Q: Hash + ?Sized>(&mut self, key: &Q) -> (&mut HashTable<Kept<K, V>>, u64) {
        let hash = hash_of(key);
        (&mut self.shards[shard_of(hash)], hash)
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.shards.iter().map(HashTable::len).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.shards.iter().all(HashTable::is_empty)
    }

    /// The value of `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.get_key_value(key).map(|(_, v)| v)
    }

    /// The stored key and value of `key`.
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, hash) = self.shard(key);
        shard.find(hash, |e| e.key.borrow() == key).map(|e| (&e.key, &e.value))
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, hash) = self.shard_mut(key);
        shard.find_mut(hash, |e| e.key.borrow() == key).map(|e| &mut e.value)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.get_key_value(key).is_some()
    }

    /// Sets the value of `key`; the one it replaces, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.entry(key) {
            Entry::Occupied(mut e) => Some(std::mem::replace(&mut e.0.get_mut().value, value)),
            Entry::Vacant(e) => {
                e.insert(value);
                None
            }
        }
    }

    /// Takes the value of `key` out.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, hash) = self.shard_mut(key);
        match shard.find_entry(hash, |e| e.key.borrow() == key) {
            Ok(found) => Some(found.remove().0.value),
            Err(_) => None,
        }
    }

    /// The entry of `key`, to fill or change in place.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let (shard, hash) = self.shard_mut(&key);
        match shard.entry(hash, |e| e.key == key, Kept::hash) {
            hash_table::Entry::Occupied(e) => Entry::Occupied(OccupiedEntry(e)),
            hash_table::Entry::Vacant(e) => Entry::Vacant(VacantEntry {
                entry: e,
                key,
                #[cfg(not(target_pointer_width = "64"))]
                hash,
            }),
        }
    }
}

/// A key's place in a [`Sharded`] map, as [`Sharded::entry`] finds it.
pub enum Entry<'a, K, V> {
    /// The key has a value.
    Occupied(OccupiedEntry<'a, K, V>),
    /// It has none.
    Vacant(VacantEntry<'a, K, V>),
}

/// A key's value, found.
pub struct OccupiedEntry<'a, K, V>(hash_table::OccupiedEntry<'a, Kept<K, V>>);

/// The place for a key with no value, and the key.
pub struct VacantEntry<'a, K, V> {
    entry: hash_table::VacantEntry<'a, Kept<K, V>>,
    key: K,
    #[cfg(not(target_pointer_width = "64"))]
    hash: u64,
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    fn insert(self, value: V) -> &'a mut V {
        #[cfg(not(target_pointer_width = "64"))]
        let kept = Kept { key: self.key, value, hash: self.hash as u32 };
        #[cfg(target_pointer_width = "64")]
        let kept = Kept { key: self.key, value };
        &mut self.entry.insert(kept).into_mut().value
    }
}

impl<'a, K, V> Entry<'a, K, V> {
    /// The value, set to `make()` first if there is none.
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(e) => &mut e.0.into_mut().value,
            Entry::Vacant(e) => e.insert(make()),
        }
    }

    /// The value, set to its default first if there is none.
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    /// Changes the value if there is one.
    pub fn and_modify(mut self, change: impl FnOnce(&mut V)) -> Self {
        if let Entry::Occupied(e) = &mut self {
            change(&mut e.0.get_mut().value);
        }
        self
    }
}

impl<K, V> Sharded<K, V> {
    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.shards.iter().flat_map(|s| s.iter()).map(|e| (&e.key, &e.value))
    }

    /// Every key.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Every value.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// Every value, to change in place.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.shards.iter_mut().flat_map(|s| s.iter_mut()).map(|e| &mut e.value)
    }
}

impl<K: Hash + Eq, V: PartialEq> PartialEq for Sharded<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for Sharded<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn every_shard_takes_a_share_of_the_hashes_growing_with_its_index() {
        let mut slices = [0usize; SHARDS];
        for s in SHARD_OF {
            slices[s as usize] += 1;
        }
        assert_eq!(slices.iter().sum::<usize>(), 1024);
        let total = (SHARDS * SHARDS + SHARDS * (SHARDS - 1) / 2) as f64;
        for (i, n) in slices.iter().enumerate() {
            let share = 1024.0 * (SHARDS + i) as f64 / total;
            assert!((*n as f64 - share).abs() <= 1.0, "shard {i}: {n} slices for a share of {share:.1}");
        }
    }

    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn a_sharded_map_reads_and_writes_as_one_map() {
        let mut m: Sharded<String, u64> = Sharded::default();
        let mut plain: rustc_hash::FxHashMap<String, u64> = Default::default();
        for i in 0..5_000u64 {
            let k = format!("th_{i:x}");
            assert_eq!(m.insert(k.clone(), i), plain.insert(k, i));
        }
        for i in (0..5_000u64).step_by(3) {
            let k = format!("th_{i:x}");
            assert_eq!(m.remove(k.as_str()), plain.remove(k.as_str()));
        }
        *m.entry("th_1".into()).or_default() += 10;
        *plain.entry("th_1".into()).or_default() += 10;
        *m.get_mut("th_2").unwrap() += 1;
        *plain.get_mut("th_2").unwrap() += 1;
        // A key with a value is changed, one without is filled; neither both.
        for k in ["th_4", "th_3"] {
            m.entry(k.into()).and_modify(|v| *v += 100).or_insert_with(|| 7);
            plain.entry(k.into()).and_modify(|v| *v += 100).or_insert_with(|| 7);
        }
        assert_eq!((m.get("th_4"), m.get("th_3")), (Some(&104), Some(&7)));
        assert_eq!(m.insert("th_3".into(), 8), Some(7));
        plain.insert("th_3".into(), 8);
        assert_eq!(m.remove("th_3"), Some(8));
        assert_eq!(m.remove("th_3"), None);
        plain.remove("th_3");
        assert_eq!(m.get_key_value("th_4").map(|(k, _)| k.as_str()), Some("th_4"));
        assert_eq!(m.len(), plain.len());
        for (k, v) in &plain {
            assert_eq!(m.get(k.as_str()), Some(v));
            assert!(m.contains_key(k.as_str()));
        }
        assert_eq!(m.iter().count(), plain.len());
        let used = m.shards.iter().filter(|s| !s.is_empty()).count();
        assert_eq!(used, SHARDS, "every shard holds some of 5,000 keys");
        let (first, last) = (m.shards[0].len(), m.shards[SHARDS - 1].len());
        assert!(last > first * 3 / 2, "the shards' sizes are spread: {first} and {last}");
        let mut again: Sharded<String, u64> = Sharded::default();
        for (k, v) in plain {
            again.insert(k, v);
        }
        assert_eq!(m, again);
    }

    /// On this target's width: every shard takes keys, and the keys of each shard still cover
    /// every value of the low bits its table places them by (so a shard is not a table of
    /// crowded buckets).
    #[test]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn the_keys_of_each_shard_spread_over_its_tables_buckets() {
        let mut low = vec![[false; 64]; SHARDS];
        let mut sizes = [0usize; SHARDS];
        for i in 0..50_000u64 {
            let k = format!("chat_{i:016x}");
            let hash = hash_of(k.as_str());
            let s = shard_of(hash);
            sizes[s] += 1;
            low[s][hash as usize % 64] = true;
        }
        for (s, seen) in low.iter().enumerate() {
            let missing = seen.iter().filter(|b| !**b).count();
            assert_eq!(missing, 0, "shard {s} ({} keys) misses {missing} of 64 low-bit values", sizes[s]);
        }
        let (least, most) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(*least > 400 && *most < 1_200, "shard sizes from {least} to {most}");
    }
}
