//! A hash map split into [`SHARDS`] tables by its keys' hashes, for the maps that grow with the
//! workspace (records by id and the indexes beside them). A hash table grows by moving every
//! entry into a table twice its size, all inside the insert that crossed its load limit, and
//! the record maps grow in step: in one map each, the cycle that took a workspace past 229,376
//! handoffs took 160–173 ms, where the median cycle takes 28 µs (`cargo bench -p baton-core
//! --bench growth`; docs/PERFORMANCE.md). Split, a growth moves one shard's entries, and the
//! shards, of sizes spread over one doubling, cross their limits at different moments: the
//! slowest of 300,000 cycles took 1.5–2.1 ms. The total work is the same.
//!
//! Written here rather than taken from a crate: it is a router in front of std's map, not a
//! second hash table. Iteration visits the shards in turn; like `HashMap`'s, its order is no
//! promise.
use std::borrow::Borrow;
use std::collections::hash_map::Entry;
use std::fmt;
use std::hash::{BuildHasher, Hash};

use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};

/// How many tables a map is split into.
pub(crate) const SHARDS: usize = 64;

/// A map from `K` to `V` in [`SHARDS`] tables.
#[derive(Clone)]
pub struct Sharded<K, V> {
    shards: Box<[HashMap<K, V>]>,
}

impl<K, V> Default for Sharded<K, V> {
    fn default() -> Self {
        Sharded { shards: (0..SHARDS).map(|_| HashMap::default()).collect() }
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

/// The shard of a key, from bits that do not decide where its shard's table places it.
fn shard_of<Q: Hash + ?Sized>(key: &Q) -> usize {
    SHARD_OF[slice_of(FxBuildHasher.hash_one(key))] as usize
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
    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> &HashMap<K, V> {
        &self.shards[shard_of(key)]
    }

    fn shard_mut<Q: Hash + ?Sized>(&mut self, key: &Q) -> &mut HashMap<K, V> {
        &mut self.shards[shard_of(key)]
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.shards.iter().map(HashMap::len).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.shards.iter().all(HashMap::is_empty)
    }

    /// The value of `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard(key).get(key)
    }

    /// The stored key and value of `key`.
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard(key).get_key_value(key)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard_mut(key).get_mut(key)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard(key).contains_key(key)
    }

    /// Sets the value of `key`; the one it replaces, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.shard_mut(&key).insert(key, value)
    }

    /// Takes the value of `key` out.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.shard_mut(key).remove(key)
    }

    /// The entry of `key`, to fill or change in place.
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        self.shard_mut(&key).entry(key)
    }
}

impl<K, V> Sharded<K, V> {
    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.shards.iter().flat_map(|s| s.iter())
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
        self.shards.iter_mut().flat_map(|s| s.values_mut())
    }
}

impl<K: Hash + Eq, V: PartialEq> PartialEq for Sharded<K, V> {
    fn eq(&self, other: &Self) -> bool {
        // A key is in the same shard of both.
        self.shards.iter().zip(other.shards.iter()).all(|(a, b)| a == b)
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
        let mut plain: HashMap<String, u64> = HashMap::default();
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
            let hash = FxBuildHasher.hash_one(k.as_str());
            let s = shard_of(k.as_str());
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
