//! A map of one record kind (handoffs, threads, activity, mail messages, a thread's turn calls)
//! that holds the records written recently as values and the rest **sealed**: encoded once and
//! compressed, decoded on access. A long-lived workspace retains every closed handoff, and those
//! are rarely read; held as plain structs they cost their full width (a handoff's ~25 mostly empty
//! optional fields, its parameters, a thread's ~25 fields) — sealed, a tenth of that.
//!
//! What is sealed is never visible: every read gives the same record, equality and `Debug`
//! compare and print values, and which records are sealed depends only on the order of writes
//! and on the records themselves: a record its kind says is at rest ([`Sealable::at_rest`], a
//! closed handoff) is sealed [`AT_REST_WRITES`] writes after its last write, the others when
//! they leave the recent window.
//! The sealed form is memory only — never stored, never sent — so it may change freely between
//! builds. Sealing is the crate's `seal` feature (on by default); a build without it (the
//! console's) holds every record a value and links neither the sealer nor LZ4.
//!
//! The form: the record's JSON in its stored form (the serde form snapshots use, so every
//! record kind already round-trips exactly; `ground::stored` leaves its defaults out),
//! compressed with LZ4 (`lz4_flex`, pure Rust, so it builds for wasm32) against a per-kind
//! dictionary: a sample record of that kind, whose field names and usual values most of a
//! record repeats. A record whose JSON begins with its own id (its key in the map) is sealed
//! without it and given it back from the key when read. The benches' completed handoff is 723
//! bytes of JSON with every field, 402 in its stored form and 164 sealed. A kind's sealed
//! records are not allocations of their own: they are laid end to end in blocks ([`Arena`]),
//! and a slot names its record by a 32-bit place.
//!
//! Reads take `&self` and hand out references, like a `HashMap`: a sealed record read is
//! decoded once into its slot and kept there until the next write to the map (which takes
//! `&mut self`, so no reference can outlive it) drops those decoded copies again.
use serde::{de::DeserializeOwned, Serialize};
use std::borrow::Borrow;
use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

#[cfg(feature = "seal")]
use once_cell::race::OnceBox;
#[cfg(feature = "seal")]
use rustc_hash::FxHashMap as HashMap;
#[cfg(feature = "seal")]
use std::collections::VecDeque;
#[cfg(feature = "seal")]
use std::sync::Mutex;

use crate::ground::sharded::Sharded;

/// How many of the most recently written records of each kind stay values. Open handoffs and
/// their threads are written every few commands and stay in it; a record that has not been
/// written for this many writes of its kind is sealed.
pub const HOT_RECORDS: usize = 1024;

/// How many writes of its kind a record at rest ([`Sealable::at_rest`]) stays a value after
/// its last write before it is sealed: soon enough that its bytes are still in the caches
/// (sealing a record 1,024 writes old was mostly waiting for its cold loads), late enough that
/// what follows a handoff's close (its outcome read, its report) finds it a value.
pub const AT_REST_WRITES: u64 = 64;

/// A record kind that can be held sealed.
pub trait Sealable: Serialize + DeserializeOwned + Clone + PartialEq + fmt::Debug {
    /// The compression dictionary: a sample of this kind's JSON.
    const DICTIONARY: &'static [u8];
    /// The field that holds the record's own id, its key in the map, when the record's JSON
    /// begins with it: the sealed form leaves the id out and a read puts it back from the
    /// key (an id is random text that no dictionary shortens: about 17 bytes a record).
    const ID_FIELD: Option<&'static str> = None;

    /// Whether this record is unlikely to be written again soon (a closed handoff, a message
    /// handed over): it is then sealed [`AT_REST_WRITES`] writes after its last write, where
    /// the others stay values until they leave the recent window. Only a guess: a record at
    /// rest that is written again is decoded again, and reads the same either way.
    fn at_rest(&self) -> bool {
        false
    }
}

/// In a sealed form's length word (the JSON's length shifted left by one): the record's id was
/// left out ([`Sealable::ID_FIELD`]).
#[cfg(feature = "seal")]
const ID_LEFT_OUT: u64 = 1;

/// Where the id's text begins in JSON that begins with it: after `{"<field>":"`.
#[cfg(feature = "seal")]
fn id_at(field: &str) -> usize {
    2 + field.len() + 3
}

/// Where the record's id is in its JSON, when the JSON begins `{"<field>":"<key>"`: the
/// key's bytes as they are (an id that JSON escapes is never there, so it is kept).
#[cfg(feature = "seal")]
fn id_in(json: &[u8], field: &str, key: &[u8]) -> Option<std::ops::Range<usize>> {
    let at = id_at(field);
    let head = json.get(..at)?;
    let fits = head.starts_with(b"{\"") && &head[2..2 + field.len()] == field.as_bytes() && head.ends_with(b"\":\"");
    (fits && json.get(at..at + key.len())? == key && json.get(at + key.len()) == Some(&b'"'))
        .then_some(at..at + key.len())
}

/// One record: its value, or (outside the recent window, or at rest) the place of its sealed
/// form in the kind's [`Arena`], with the value decoded for reads since it was sealed or last
/// left the window. A record read while sealed keeps its decoded value until it leaves the
/// recent window again, or, at rest, until [`AT_REST_WRITES`] writes after the read (then only
/// the value is dropped — the sealed form is still right); a write makes it a value again
/// (the sealed form is then left behind in the arena). 16 bytes natively (a build without
/// sealing: 8), where the sealed bytes' own pointer made it 24 and, before that, a sealed form
/// and a lock-guarded value side by side 32: one slot per record, so it counts per retained
/// handoff four times over.
#[derive(Clone)]
enum Slot<T> {
    Value(Arc<T>),
    #[cfg(feature = "seal")]
    Sealed {
        /// Where the sealed form is in the arena ([`Arena::put`]); never zero, which lets a
        /// value's pointer sit beside it without a tag on wasm32.
        at: Place,
        /// Set once by the first read (a race lets only one decoded copy in).
        read: OnceBox<Arc<T>>,
    },
}

// On wasm32 a slot is two 4-byte words: a place is never zero, so a value's pointer sits
// beside where it would be, without a tag (three words with the sealed bytes' own pointer,
// and three with a place that could be zero). Natively `a_slot_is_two_words` checks 16.
#[cfg(all(feature = "seal", target_pointer_width = "32"))]
const _: () = assert!(std::mem::size_of::<Slot<u8>>() == 8);

impl<T: Sealable> Slot<T> {
    #[cfg(feature = "seal")]
    fn decode(key: &str, (word, packed): (u64, &[u8])) -> Arc<T> {
        let mut json = vec![0; (word >> 1) as usize];
        lz4_flex::block::decompress_into_with_dict(packed, &mut json, T::DICTIONARY)
            .expect("a sealed record decompresses: this build sealed it");
        if word & ID_LEFT_OUT != 0 {
            let at = id_at(T::ID_FIELD.expect("only a kind with an id field leaves it out"));
            json.splice(at..at, key.bytes());
        }
        // Read as text, by the reader the log's lines go through: one reader per record type
        // in the console's wasm, not two.
        let text = std::str::from_utf8(&json).expect("a sealed record is JSON text: this build sealed it");
        Arc::new(serde_json::from_str(text).expect("a sealed record decodes: this build sealed it"))
    }
}

/// The sealed forms of one kind's records, end to end in blocks of [`BLOCK`] bytes, filled in
/// the order the records are sealed (a record larger than a block has a block of its own). A
/// form is its length word and its packed length (LEB128 varints, two bytes each for most
/// records) and then the packed bytes. Each sealed record was an allocation of its own before:
/// the allocator's header and rounding on each (about 16 bytes with glibc's malloc) and a
/// two-word pointer in its slot. A [`Place`] is 32 bits, so the blocks hold at most 4 GiB of
/// one kind's sealed records (65,535 blocks); past that, a record that leaves the recent window
/// stays a value.
///
/// A record written again after it was sealed leaves its form behind. When the forms left
/// behind outgrow those still held (and a block), [`Records`] writes the arena again with only
/// the held ones ([`Arena::compact`]); the work is paid for by the writes that left them.
///
/// Blocks are shared (`Arc`): a copy of the arena, which a snapshot's copy of the state
/// makes on the writer's path ([`crate::Engine::freeze`]), shares every block instead of
/// copying its bytes. Only the last block is ever written, and a shared last block is copied
/// (at most [`BLOCK`] bytes) at its next write.
#[cfg(feature = "seal")]
#[derive(Clone, Default)]
struct Arena {
    blocks: Vec<Arc<Vec<u8>>>,
    /// Bytes of the forms a slot still names.
    held: usize,
    /// Bytes of the forms none does.
    left: usize,
}

/// A sealed form's place: its block's number plus one (the high 16 bits, so never zero) and
/// its offset in the block.
#[cfg(feature = "seal")]
type Place = std::num::NonZeroU32;

/// A block's size: a place keeps 16 bits for the offset in its block.
#[cfg(feature = "seal")]
const BLOCK_BITS: u32 = 16;
#[cfg(feature = "seal")]
const BLOCK: usize = 1 << BLOCK_BITS;

/// Writes `n` at `out[*at..]` (at most ten bytes).
#[cfg(feature = "seal")]
fn put_varint(out: &mut [u8], at: &mut usize, mut n: u64) {
    while n >= 0x80 {
        out[*at] = n as u8 | 0x80;
        *at += 1;
        n >>= 7;
    }
    out[*at] = n as u8;
    *at += 1;
}

#[cfg(feature = "seal")]
fn read_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut n, mut shift) = (0, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        n |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return n;
        }
        shift += 7;
    }
}

#[cfg(feature = "seal")]
impl Arena {
    /// Keeps a sealed form (its length word and packed bytes); its place, or `None` when the
    /// blocks are full.
    fn put(&mut self, word: u64, packed: &[u8]) -> Option<Place> {
        let (mut head, mut h) = ([0; 20], 0);
        put_varint(&mut head, &mut h, word);
        put_varint(&mut head, &mut h, packed.len() as u64);
        let len = h + packed.len();
        // An oversized block (one record's alone) is longer than a block, so nothing joins it.
        if self.blocks.last().is_none_or(|b| b.len() + len > BLOCK) {
            if self.blocks.len() >= (1 << (32 - BLOCK_BITS)) - 1 {
                return None;
            }
            self.blocks.push(Arc::new(Vec::with_capacity(len.max(BLOCK))));
        }
        let n = self.blocks.len() - 1;
        let last = &mut self.blocks[n];
        if Arc::get_mut(last).is_none() {
            // Shared with a copy of the arena: copied once, with a whole block's room.
            let mut own = Vec::with_capacity((last.len() + len).max(BLOCK));
            own.extend_from_slice(last);
            *last = Arc::new(own);
        }
        let block = Arc::get_mut(last).expect("the last block is this arena's alone");
        let at = block.len();
        block.extend_from_slice(&head[..h]);
        block.extend_from_slice(packed);
        self.held += len;
        Place::new(((n + 1) as u32) << BLOCK_BITS | at as u32)
    }

    /// The form at `at`: its length word and packed bytes, and its size in the arena.
    fn get(&self, at: Place) -> (u64, &[u8], usize) {
        let block = &self.blocks[(at.get() >> BLOCK_BITS) as usize - 1];
        let start = at.get() as usize & (BLOCK - 1);
        let mut i = start;
        let word = read_varint(block, &mut i);
        let len = read_varint(block, &mut i) as usize;
        (word, &block[i..i + len], i + len - start)
    }

    /// No slot names the form at `at` any more.
    fn leave(&mut self, at: Place) {
        let size = self.get(at).2;
        self.held -= size;
        self.left += size;
    }

    /// Whether the forms left behind are worth writing the arena again for.
    fn worth_compacting(&self) -> bool {
        self.left > self.held && self.left >= BLOCK
    }

    /// Writes the arena again with only the forms at `places`, and moves each place to its
    /// form's new one.
    fn compact<'a>(&mut self, places: impl Iterator<Item = &'a mut Place>) {
        let old = std::mem::take(self);
        for at in places {
            let (word, packed, _) = old.get(*at);
            // Fewer bytes than the blocks held, packed the same way: they fit.
            *at = self.put(word, packed).expect("the held forms fit where all of them did");
        }
    }
}

/// Buffers reused by every seal (a seal allocates nothing: its form goes into the arena).
/// `lz4_flex` is built without its `alloc` feature so that its 8 KB hash table lives on the
/// stack: on the heap, glibc's malloc consolidated its free lists for it at every seal, which
/// doubled the cycle's cost on a large heap.
#[cfg(feature = "seal")]
#[derive(Default)]
struct Scratch {
    json: Vec<u8>,
    packed: Vec<u8>,
}

#[cfg(feature = "seal")]
impl Scratch {
    /// The sealed form of `value`: its length word and packed bytes, to keep in an arena.
    fn seal<T: Sealable>(&mut self, key: &str, value: &T) -> (u64, &[u8]) {
        self.json.clear();
        crate::ground::stored::form(|| serde_json::to_writer(&mut self.json, value))
            .expect("records serialize (their snapshot form)");
        let mut flags = 0;
        if let Some(id) = T::ID_FIELD.and_then(|field| id_in(&self.json, field, key.as_bytes())) {
            self.json.drain(id);
            flags = ID_LEFT_OUT;
        }
        let len = self.json.len();
        self.packed.resize(lz4_flex::block::get_maximum_output_size(len), 0);
        let n = lz4_flex::block::compress_into_with_dict(&self.json, &mut self.packed, T::DICTIONARY)
            .expect("the buffer has the maximum compressed size");
        ((len as u64) << 1 | flags, &self.packed[..n])
    }
}

/// Records of one kind by id, the recent ones as values and the rest sealed.
pub struct Records<K, T> {
    map: Sharded<K, Slot<T>>,
    /// The recent window and the sealed forms: a build without sealing holds every record a
    /// value and keeps none of it (nor its code, which every record kind instantiates).
    #[cfg(feature = "seal")]
    seal: Sealing<K>,
}

/// What a build that seals keeps beside a kind's map.
#[cfg(feature = "seal")]
struct Sealing<K> {
    /// Write stamps of the records held as values.
    hot: HashMap<K, u64>,
    /// The last [`AT_REST_WRITES`] writes in order (key, stamp); an entry whose stamp is no
    /// longer the key's is stale.
    young: VecDeque<(K, u64)>,
    /// Older writes in order of the records not at rest when they left `young`: they are
    /// sealed when they leave the window.
    order: VecDeque<(K, u64)>,
    stamp: u64,
    /// How many recent records stay values.
    keep: usize,
    /// How many slots hold a sealed form (counted as they change: the window cannot tell, as
    /// a record past the arena's 4 GiB leaves it a value, and one read while sealed joins it).
    sealed: usize,
    /// Sealed records decoded for a read since the last write.
    decoded: Mutex<Vec<K>>,
    scratch: Scratch,
    arena: Arena,
}

#[cfg(feature = "seal")]
impl<K> Default for Sealing<K> {
    fn default() -> Self {
        Sealing {
            hot: HashMap::default(),
            young: VecDeque::new(),
            order: VecDeque::new(),
            stamp: 0,
            keep: HOT_RECORDS,
            sealed: 0,
            decoded: Mutex::new(Vec::new()),
            scratch: Scratch::default(),
            arena: Arena::default(),
        }
    }
}

#[cfg(feature = "seal")]
impl<K: Clone> Clone for Sealing<K> {
    fn clone(&self) -> Self {
        Sealing {
            hot: self.hot.clone(),
            young: self.young.clone(),
            order: self.order.clone(),
            stamp: self.stamp,
            keep: self.keep,
            sealed: self.sealed,
            decoded: Mutex::new(self.decoded.lock().map(|d| d.clone()).unwrap_or_default()),
            scratch: Scratch::default(),
            arena: self.arena.clone(),
        }
    }
}

impl<K, T> Default for Records<K, T> {
    fn default() -> Self {
        Records {
            map: Sharded::default(),
            #[cfg(feature = "seal")]
            seal: Sealing::default(),
        }
    }
}

impl<K: Clone, T: Clone> Clone for Records<K, T> {
    fn clone(&self) -> Self {
        Records {
            map: self.map.clone(),
            #[cfg(feature = "seal")]
            seal: self.seal.clone(),
        }
    }
}

impl<K: Hash + Eq + Clone + AsRef<str>, T: Sealable> Records<K, T> {
    /// How many recent records of this kind stay values (at least one; `usize::MAX`: never
    /// seal). Takes effect at the next write; set after `usize::MAX`, the records held then
    /// count as older than any written after, so that write seals those past the window. A
    /// build without the `seal` feature holds every record a value whatever this says.
    #[cfg_attr(not(feature = "seal"), allow(unused_variables))]
    pub fn keep_hot(&mut self, keep: usize) {
        #[cfg(feature = "seal")]
        {
            let w = &mut self.seal;
            if w.keep == usize::MAX && keep != usize::MAX {
                // Without a window no write was kept track of: the records held as values join
                // the older writes, so the next write seals those past the new window.
                for (k, slot) in self.map.iter() {
                    if matches!(slot, Slot::Value(_)) && !w.hot.contains_key(k) {
                        w.stamp += 1;
                        w.hot.insert(k.clone(), w.stamp);
                        w.order.push_back((k.clone(), w.stamp));
                    }
                }
            }
            w.keep = keep.max(1);
        }
    }

    /// How many records.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// How many are held sealed (a read may have decoded one for the time until it leaves the
    /// recent window; a record sealed before the window was lifted stays sealed).
    pub fn sealed_len(&self) -> usize {
        #[cfg(feature = "seal")]
        {
            self.seal.sealed
        }
        #[cfg(not(feature = "seal"))]
        0
    }

    /// Whether `key` has a record.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.contains_key(key)
    }

    /// The record of `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&Arc<T>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (k, slot) = self.map.get_key_value(key)?;
        Some(self.value_of(k, slot))
    }

    #[cfg_attr(not(feature = "seal"), allow(unused_variables))]
    fn value_of<'a>(&'a self, key: &K, slot: &'a Slot<T>) -> &'a Arc<T> {
        match slot {
            Slot::Value(v) => v,
            #[cfg(feature = "seal")]
            Slot::Sealed { at, read } => read.get_or_init(|| {
                if let Ok(mut d) = self.seal.decoded.lock() {
                    d.push(key.clone());
                }
                let (word, packed, _) = self.seal.arena.get(*at);
                Box::new(Slot::decode(key.as_ref(), (word, packed)))
            }),
        }
    }

    /// Every record, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &Arc<T>)> + '_ {
        self.map.iter().map(|(k, s)| (k, self.value_of(k, s)))
    }

    /// Every record's value, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &Arc<T>> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// Every id.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.map.keys()
    }

    /// Removes the record of `key`.
    pub fn remove<Q>(&mut self, key: &Q)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        #[cfg(feature = "seal")]
        {
            self.settle();
            // Its entries in the write queue are stale now, and skipped.
            self.seal.hot.remove(key);
            let old = self.map.remove(key);
            self.leave(old);
        }
        #[cfg(not(feature = "seal"))]
        self.map.remove(key);
    }

    /// Writes the record of `key`.
    pub fn insert(&mut self, key: K, value: Arc<T>) {
        self.write(key, value, |_, _| ());
    }

    /// Writes the record of `key`, and gives `before` the record it replaces, if any: what
    /// [`Records::get`] would have read first, for one lookup where the two took two.
    pub fn insert_after<R>(&mut self, key: K, value: Arc<T>, before: impl FnOnce(Option<&T>) -> R) -> R {
        #[cfg(feature = "seal")]
        let id = key.clone();
        #[cfg_attr(not(feature = "seal"), allow(unused_variables))]
        self.write(key, value, |records, old| match old {
            None => before(None),
            Some(Slot::Value(v)) => before(Some(v)),
            #[cfg(feature = "seal")]
            Some(Slot::Sealed { at, read }) => match read.get() {
                Some(v) => before(Some(v)),
                None => {
                    let (word, packed, _) = records.seal.arena.get(*at);
                    before(Some(&Slot::decode(id.as_ref(), (word, packed))))
                }
            },
        })
    }

    /// Writes the record of `key`, showing `old` the slot it replaces (a sealed one's form still
    /// in the arena) before that slot is let go.
    fn write<R>(&mut self, key: K, value: Arc<T>, old: impl FnOnce(&Self, Option<&Slot<T>>) -> R) -> R {
        #[cfg(feature = "seal")]
        {
            self.settle();
            let replaced = self.map.insert(key.clone(), Slot::Value(value));
            let seen = old(self, replaced.as_ref());
            self.leave(replaced);
            self.touch(key);
            seen
        }
        #[cfg(not(feature = "seal"))]
        {
            let replaced = self.map.insert(key, Slot::Value(value));
            old(self, replaced.as_ref())
        }
    }

    /// The record of `key`, to change in place (it counts as written).
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut Arc<T>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        #[cfg(feature = "seal")]
        {
            self.settle();
            let k = self.map.get_key_value(key)?.0.clone();
            // A write makes a sealed record a value again, before the window moves (it is the
            // newest record then, so the move cannot seal it).
            if let Some(slot) = self.map.get_mut(key) {
                if let Slot::Sealed { at, read } = slot {
                    let (word, packed, _) = self.seal.arena.get(*at);
                    let value = read.get().cloned().unwrap_or_else(|| Slot::decode(k.as_ref(), (word, packed)));
                    let old = std::mem::replace(slot, Slot::Value(value));
                    self.leave(Some(old));
                }
            }
            self.touch(k);
        }
        match self.map.get_mut(key)? {
            Slot::Value(v) => Some(v),
            #[cfg(feature = "seal")]
            Slot::Sealed { .. } => unreachable!("made a value above"),
        }
    }
}

#[cfg(feature = "seal")]
impl<K: Hash + Eq + Clone + AsRef<str>, T: Sealable> Records<K, T> {
    /// A slot taken out of the map: its sealed form, if it had one, is left behind in the
    /// arena, which is written again when enough are.
    fn leave(&mut self, old: Option<Slot<T>>) {
        if let Some(Slot::Sealed { at, .. }) = old {
            self.seal.sealed -= 1;
            self.seal.arena.leave(at);
            self.compact();
        }
    }

    /// Writes the arena again without the sealed forms left behind, when they outgrow the
    /// ones held.
    fn compact(&mut self) {
        if self.seal.arena.worth_compacting() {
            let places = self.map.values_mut().filter_map(|s| match s {
                Slot::Sealed { at, .. } => Some(at),
                Slot::Value(_) => None,
            });
            self.seal.arena.compact(places);
        }
    }

    /// The records decoded for reads since the last write join the recent window, decoded
    /// (a record read every command, never written, stays a value).
    fn settle(&mut self) {
        let decoded = std::mem::take(self.seal.decoded.get_mut().unwrap_or_else(|e| e.into_inner()));
        for k in decoded {
            if self.map.contains_key(&k) {
                self.touch(k);
            }
        }
    }

    /// Marks `key` as just used, and seals the records at rest that have not been written for
    /// [`AT_REST_WRITES`] writes and those that left the recent window.
    fn touch(&mut self, key: K) {
        let w = &mut self.seal;
        if w.keep == usize::MAX {
            // Nothing is ever sealed: no window to keep.
            if !w.hot.is_empty() || !w.young.is_empty() || !w.order.is_empty() {
                w.hot = HashMap::default();
                w.young = VecDeque::new();
                w.order = VecDeque::new();
            }
            return;
        }
        w.stamp += 1;
        w.hot.insert(key.clone(), w.stamp);
        w.young.push_back((key, w.stamp));
        while w.young.front().is_some_and(|&(_, s)| w.stamp - s >= AT_REST_WRITES) {
            let Some((k, s)) = w.young.pop_front() else { break };
            if w.hot.get(&k) != Some(&s) {
                continue;
            }
            let Some(slot) = self.map.get_mut(&k) else {
                w.hot.remove(&k);
                continue;
            };
            let at_rest = match slot {
                Slot::Value(v) => v.at_rest(),
                Slot::Sealed { read, .. } => read.get().is_none_or(|v| v.at_rest()),
            };
            if at_rest {
                w.hot.remove(&k);
                Self::seal(w, &k, slot);
            } else {
                w.order.push_back((k, s));
            }
        }
        while w.hot.len() > w.keep {
            let Some((k, s)) = w.order.pop_front().or_else(|| w.young.pop_front()) else { break };
            if w.hot.get(&k) != Some(&s) {
                continue;
            }
            w.hot.remove(&k);
            if let Some(slot) = self.map.get_mut(&k) {
                Self::seal(w, &k, slot);
            }
        }
        // Stale entries of records used again and again: keep the queue near the window.
        if w.order.len() > 2 * w.keep.min(1 << 20) + 64 {
            let hot = &w.hot;
            w.order.retain(|(k, s)| hot.get(k) == Some(s));
        }
    }

    /// Seals the record in `slot`, which has just left the window.
    fn seal(w: &mut Sealing<K>, key: &K, slot: &mut Slot<T>) {
        match slot {
            Slot::Value(v) => {
                let (word, packed) = w.scratch.seal(key.as_ref(), &**v);
                // Past the arena's 4 GiB the record stays a value.
                if let Some(at) = w.arena.put(word, packed) {
                    *slot = Slot::Sealed { at, read: OnceBox::new() };
                    w.sealed += 1;
                }
            }
            // Read while sealed: the sealed form is still right; the decoded copy goes.
            Slot::Sealed { read, .. } => *read = OnceBox::new(),
        }
    }
}

impl<K: Hash + Eq + Clone + AsRef<str>, T: Sealable> PartialEq for Records<K, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k).is_some_and(|o| **o == **v))
    }
}

impl<K: Hash + Eq + Clone + AsRef<str> + fmt::Debug, T: Sealable> fmt::Debug for Records<K, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a, K: Hash + Eq + Clone + AsRef<str>, T: Sealable> IntoIterator for &'a Records<K, T> {
    type Item = (&'a K, &'a Arc<T>);
    type IntoIter = Box<dyn Iterator<Item = Self::Item> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<K: Hash + Eq + Clone + AsRef<str> + Borrow<Q>, Q: Hash + Eq + ?Sized, T: Sealable> std::ops::Index<&Q>
    for Records<K, T>
{
    type Output = Arc<T>;
    fn index(&self, key: &Q) -> &Arc<T> {
        self.get(key).expect("no record with this id")
    }
}

#[cfg(all(test, feature = "seal"))]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Rec {
        id: String,
        n: u64,
        note: Option<String>,
    }
    impl Sealable for Rec {
        const DICTIONARY: &'static [u8] = br#"{"id":"","n":0,"note":null}"#;
        const ID_FIELD: Option<&'static str> = Some("id");
    }

    fn rec(i: u64) -> Arc<Rec> {
        Arc::new(Rec { id: format!("r_{i}"), n: i, note: i.is_multiple_of(3).then(|| "a note".repeat(i as usize % 7)) })
    }

    /// Records `r_0` to `r_{n-1}`, written in that order, with a window of `keep`.
    fn written(keep: usize, n: u64) -> Records<String, Rec> {
        let mut r = Records::default();
        r.keep_hot(keep);
        for i in 0..n {
            r.insert(format!("r_{i}"), rec(i));
        }
        r
    }

    #[test]
    fn sealed_records_read_back_identical_and_writes_unseal() {
        let mut r = written(4, 100);
        assert_eq!(r.len(), 100);
        assert_eq!(r.sealed_len(), 96, "all but the last four written are sealed");
        for i in 0..100 {
            assert_eq!(r.get(format!("r_{i}").as_str()), Some(&rec(i)));
        }
        assert_eq!(r.values().count(), 100);
        // A write to a sealed record unseals it and changes only it.
        assert_eq!(r.seal.decoded.lock().unwrap().len(), 96, "reads decoded the sealed ones");
        Arc::make_mut(r.get_mut("r_7").unwrap()).n = 700;
        assert!(r.seal.decoded.lock().unwrap().is_empty(), "the write settled the values decoded for reads");
        assert_eq!(r.seal.hot.len(), 4, "the reads joined the recent window, which stays at its size");
        let held = |s: &Slot<Rec>| match s {
            Slot::Value(_) => true,
            Slot::Sealed { read, .. } => read.get().is_some(),
        };
        assert_eq!(r.map.values().filter(|s| held(s)).count(), 4, "only the window holds values");
        assert!(
            matches!(r.map.get("r_7").unwrap(), Slot::Value(_)),
            "a written record's sealed form is dropped (stale)"
        );
        assert_eq!(r["r_7"].n, 700);
        assert_eq!(r["r_8"].n, 8);
        // The same records written in another order (so sealed differently) are equal.
        let mut other: Records<String, Rec> = Records::default();
        for i in (0..100).rev() {
            other.insert(format!("r_{i}"), rec(i));
        }
        assert_ne!(r, other);
        other.insert("r_7".into(), Arc::new(Rec { n: 700, ..(*rec(7)).clone() }));
        assert_eq!(r, other);
    }

    #[test]
    fn a_write_tells_what_it_replaces_whether_sealed_read_held_or_absent() {
        let mut r = written(2, 10);
        let _ = r.get("r_3"); // sealed, and decoded for this read
        let replaced = |r: &mut Records<String, Rec>, i: u64| {
            r.insert_after(format!("r_{i}"), Arc::new(Rec { n: 100 + i, ..(*rec(i)).clone() }), |o| o.cloned())
        };
        assert_eq!(replaced(&mut r, 0), Some((*rec(0)).clone()), "a sealed one, never read");
        assert_eq!(replaced(&mut r, 3), Some((*rec(3)).clone()), "a sealed one read before");
        assert_eq!(replaced(&mut r, 9), Some((*rec(9)).clone()), "one held as a value");
        assert!(r.insert_after("r_10".into(), rec(10), |o| o.is_none()), "a new one");
        assert_eq!(r.len(), 11);
        for i in [0, 3, 9] {
            assert_eq!(r[format!("r_{i}").as_str()].n, 100 + i, "r_{i} is written");
        }
        assert_eq!(r["r_1"], rec(1));
        // As written with `insert`: the same records, sealed alike.
        let mut plain = written(2, 10);
        let _ = plain.get("r_3");
        for i in [0, 3, 9] {
            plain.insert(format!("r_{i}"), Arc::new(Rec { n: 100 + i, ..(*rec(i)).clone() }));
        }
        plain.insert("r_10".into(), rec(10));
        assert_eq!(r, plain);
        assert_eq!(r.sealed_len(), plain.sealed_len());
    }

    #[test]
    fn a_sealed_record_leaves_out_only_an_id_its_key_gives_back() {
        let mut r: Records<String, Rec> = Records::default();
        r.keep_hot(1);
        let with = |id: &str| Arc::new(Rec { id: id.into(), n: 1, note: None });
        // key and id agree; disagree; agree but JSON escapes the id; the key a prefix of the id
        let cases = [("r_1", "r_1"), ("r_2", "other"), ("q\"uote", "q\"uote"), ("r_4", "r_45"), ("", "")];
        for (key, id) in cases {
            r.insert(key.into(), with(id));
        }
        r.insert("last".into(), with("last"));
        assert_eq!(r.sealed_len(), cases.len());
        for (key, id) in cases {
            let left_out = match r.map.get(key).unwrap() {
                Slot::Sealed { at, .. } => r.seal.arena.get(*at).0 & ID_LEFT_OUT != 0,
                Slot::Value(_) => panic!("{key} is sealed"),
            };
            assert_eq!(
                left_out,
                key == id && !key.contains('"'),
                "{key}: the id is left out only when it is the key as it is"
            );
            assert_eq!(r[key], with(id), "{key} reads back whole");
            assert_eq!(Arc::make_mut(r.get_mut(key).unwrap()).id, id, "{key} unseals whole for a write");
        }
    }

    #[test]
    fn a_removed_record_is_gone_from_the_window_and_the_sealed_ones() {
        let mut r = written(2, 6);
        r.remove("r_0"); // sealed
        r.remove("r_5"); // in the window
        r.remove("r_9"); // never there
        assert_eq!((r.len(), r.sealed_len()), (4, 3));
        assert!(r.get("r_0").is_none() && r.get("r_5").is_none());
        r.insert("r_0".into(), rec(0));
        for i in 6..9 {
            r.insert(format!("r_{i}"), rec(i));
        }
        assert_eq!((r.len(), r.sealed_len()), (8, 6), "the window holds the last two written");
        assert_eq!(r["r_0"], rec(0));
    }

    /// A copy (what a snapshot's frozen state holds) shares the sealed blocks; records sealed
    /// and written after it, in the original, leave the copy as it was.
    #[test]
    fn a_copy_shares_the_sealed_blocks_and_keeps_its_records_when_the_original_goes_on() {
        let mut r = written(4, 5_000);
        let copy = r.clone();
        let shared = |r: &Records<String, Rec>, c: &Records<String, Rec>| {
            r.seal.arena.blocks.iter().zip(&c.seal.arena.blocks).filter(|(a, b)| Arc::ptr_eq(a, b)).count()
        };
        let blocks = copy.seal.arena.blocks.len();
        assert!(blocks >= 2, "several blocks ({blocks})");
        assert_eq!(shared(&r, &copy), blocks, "every block shared, none copied");
        for i in 5_000..6_000 {
            r.insert(format!("r_{i}"), rec(i));
        }
        for i in 0..100 {
            Arc::make_mut(r.get_mut(format!("r_{i}").as_str()).unwrap()).n = i + 10_000;
        }
        assert_eq!(shared(&r, &copy), blocks - 1, "the last block was copied at its next write");
        assert!(r.seal.arena.blocks.last().is_some_and(|b| b.capacity() >= BLOCK), "with a whole block's room");
        assert_eq!((copy.len(), copy.sealed_len()), (5_000, 4_996));
        for i in 0..5_000 {
            assert_eq!(copy.get(format!("r_{i}").as_str()), Some(&rec(i)), "r_{i} in the copy");
        }
        for i in 0..6_000 {
            let n = if i < 100 { i + 10_000 } else { i };
            assert_eq!(r.get(format!("r_{i}").as_str()).map(|x| x.n), Some(n), "r_{i} in the original");
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_slot_is_two_words() {
        assert_eq!(std::mem::size_of::<Slot<Rec>>(), 16);
    }

    #[test]
    fn sealed_forms_left_behind_by_writes_are_compacted_away() {
        let n = 20_000;
        let mut r = written(4, n);
        let blocks = r.seal.arena.blocks.len();
        assert!(blocks >= 4, "enough sealed records for several blocks ({blocks})");
        // What the arena counts as held is what the slots name.
        let held = |r: &Records<String, Rec>| -> usize {
            r.map
                .values()
                .filter_map(|s| if let Slot::Sealed { at, .. } = s { Some(r.seal.arena.get(*at).2) } else { None })
                .sum()
        };
        // Every record written again, in place (rounds 1 and 3) or replaced (round 2): each
        // leaves its sealed form behind, then is sealed anew.
        for round in 1..=3 {
            for i in 0..n {
                let key = format!("r_{i}");
                if round == 2 {
                    r.insert(key, Arc::new(Rec { n: i + round * n, ..(*rec(i)).clone() }));
                } else {
                    Arc::make_mut(r.get_mut(key.as_str()).unwrap()).n = i + round * n;
                }
            }
            assert_eq!(r.seal.arena.held, held(&r), "round {round}: the held bytes are those the slots name");
            assert!(r.seal.arena.left <= r.seal.arena.held.max(BLOCK), "round {round}: compacted as it went");
            assert!(r.seal.arena.blocks.len() <= 2 * blocks + 1, "round {round}: the blocks stay bounded");
        }
        for i in 0..n {
            assert_eq!(r[format!("r_{i}").as_str()].n, i + 3 * n, "r_{i} reads back its last write");
        }
        assert_eq!(r.sealed_len(), n as usize - 4);
        // Removed, sealed or not, their forms go too.
        for i in (0..n).step_by(2) {
            r.remove(format!("r_{i}").as_str());
        }
        assert_eq!(r.seal.arena.held, held(&r));
        assert_eq!(r.len(), n as usize / 2);
        for i in (1..n).step_by(2) {
            assert_eq!(r[format!("r_{i}").as_str()].n, i + 3 * n);
        }
    }

    #[test]
    fn a_sealed_record_larger_than_a_block_has_one_of_its_own() {
        let mut r: Records<String, Rec> = Records::default();
        r.keep_hot(1);
        // Text LZ4 cannot shorten: 3 * 64 KiB of letters from a linear congruential sequence.
        let mut x: u32 = 7;
        let noise: String = (0..3 * BLOCK)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                char::from(b'a' + (x >> 16) as u8 % 26)
            })
            .collect();
        let big = |i: u64| Arc::new(Rec { id: format!("r_{i}"), n: i, note: Some(noise.clone()) });
        for i in 0..3 {
            r.insert(format!("r_{i}"), rec(i));
            r.insert(format!("big_{i}"), big(i));
        }
        r.insert("last".into(), rec(99));
        assert_eq!(r.sealed_len(), 6);
        for i in 0..3 {
            assert_eq!(r[format!("r_{i}").as_str()], rec(i));
            assert_eq!(r[format!("big_{i}").as_str()], big(i));
        }
        assert!(r.seal.arena.blocks.iter().filter(|b| b.len() > BLOCK).count() == 3, "each large one alone");
    }

    #[test]
    fn a_record_rewritten_often_keeps_the_write_queue_bounded() {
        let mut r: Records<String, Rec> = Records::default();
        r.keep_hot(8);
        for i in 0..10_000 {
            r.insert("same".into(), rec(i));
        }
        assert!(r.seal.order.len() <= 2 * 8 + 64);
        assert!(r.seal.young.len() <= AT_REST_WRITES as usize);
        assert_eq!(r["same"].n, 9_999);
    }

    /// Sealed slots, counted from the map itself.
    fn sealed_slots<T>(r: &Records<String, T>) -> usize {
        r.map.values().filter(|s| matches!(s, Slot::Sealed { .. })).count()
    }

    /// Random writes, rewrites, removals, reads, copies and window changes, checked against a
    /// plain map after every step: every read gives the last write; the count of sealed
    /// records is what the slots say; after a write, no more values than the window holds
    /// (the decoded copies of reads join it); a copy keeps its records while both go on.
    /// Seeded, so a failure names the seed and step that show it again.
    #[test]
    fn random_steps_read_back_as_a_plain_map_would() {
        use std::collections::HashMap as Plain;
        struct Side {
            r: Records<String, Job>,
            model: Plain<String, Arc<Job>>,
            keep: usize,
        }
        fn check(side: &Side, seed: u64, step: usize, after_write: bool) {
            let Side { r, model, keep } = side;
            let at = format!("seed {seed}, step {step}");
            assert_eq!(r.len(), model.len(), "{at}: len");
            assert_eq!(r.sealed_len(), sealed_slots(r), "{at}: sealed_len counts the sealed slots");
            if after_write && *keep != usize::MAX {
                let held = r.len() - r.sealed_len();
                assert!(held <= *keep, "{at}: {held} values held with a window of {keep}");
            }
        }
        for seed in 1..=40u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let fresh = |keep: usize| {
                let mut r = Records::default();
                r.keep_hot(keep);
                Side { r, model: Plain::new(), keep }
            };
            let mut sides = vec![fresh(1 + next(6) as usize)];
            for step in 0..2_500 {
                let copies = sides.len();
                let which = next(copies as u64) as usize;
                let key = format!("j_{}", next(40));
                // One record in ten carries 3,000 letters LZ4 cannot shorten, so the forms
                // left behind soon fill blocks and the arena is compacted.
                let long = next(10) == 0;
                let mut letters = || char::from(b'a' + next(26) as u8);
                let tail: String = if long { (0..3_000).map(|_| letters()).collect() } else { String::new() };
                let side = &mut sides[which];
                let job = |n: u64, done: bool| Arc::new(Job { id: format!("{key}#{n}{tail}"), done });
                let mut wrote = true;
                match next(100) {
                    0..=34 => {
                        let v = job(next(1_000), next(2) == 0);
                        side.r.insert(key.clone(), v.clone());
                        side.model.insert(key.clone(), v);
                    }
                    35..=54 => match side.r.get_mut(key.as_str()) {
                        Some(v) => {
                            let done = next(2) == 0;
                            Arc::make_mut(v).done = done;
                            Arc::make_mut(side.model.get_mut(&key).expect("in the model too")).done = done;
                        }
                        None => {
                            wrote = false;
                            assert!(!side.model.contains_key(&key), "seed {seed}, step {step}: {key} lost");
                        }
                    },
                    55..=64 => {
                        // A removal moves no window (a smaller one waits for the next write).
                        wrote = false;
                        side.r.remove(key.as_str());
                        side.model.remove(&key);
                    }
                    65..=94 => {
                        wrote = false;
                        assert_eq!(side.r.get(key.as_str()), side.model.get(&key), "seed {seed}, step {step}: {key}");
                    }
                    95..=97 => {
                        side.keep = match next(4) {
                            0 => usize::MAX,
                            n => n as usize * 2,
                        };
                        side.r.keep_hot(side.keep);
                        wrote = false;
                    }
                    _ => {
                        wrote = false;
                        if copies < 4 {
                            let copy = Side { r: side.r.clone(), model: side.model.clone(), keep: side.keep };
                            sides.push(copy);
                        }
                    }
                }
                check(&sides[which], seed, step, wrote);
            }
            for (i, side) in sides.iter().enumerate() {
                for (k, v) in &side.model {
                    assert_eq!(side.r.get(k.as_str()), Some(v), "seed {seed}, copy {i}: {k} at the end");
                }
                assert_eq!(side.r.iter().count(), side.model.len(), "seed {seed}, copy {i}");
            }
        }
    }

    /// A record at rest when it is done.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Job {
        id: String,
        done: bool,
    }
    impl Sealable for Job {
        const DICTIONARY: &'static [u8] = br#"{"id":"","done":false}"#;
        fn at_rest(&self) -> bool {
            self.done
        }
    }

    #[test]
    fn a_record_at_rest_is_sealed_soon_after_its_last_write_the_others_when_they_leave_the_window() {
        let job = |i: u64, done: bool| Arc::new(Job { id: format!("j_{i}"), done });
        let sealed = |r: &Records<String, Job>, i: u64| {
            matches!(r.map.get(format!("j_{i}").as_str()), Some(Slot::Sealed { .. }))
        };
        let mut r: Records<String, Job> = Records::default();
        // Ten open, ten done, then as many open ones as a record at rest waits for.
        for i in 0..20 {
            r.insert(format!("j_{i}"), job(i, i >= 10));
        }
        let n = 20 + AT_REST_WRITES;
        for i in 20..n - 1 {
            r.insert(format!("j_{i}"), job(i, false));
        }
        assert!(sealed(&r, 10) && !sealed(&r, 19), "j_19 was written {} writes ago", AT_REST_WRITES - 1);
        assert_eq!(r.sealed_len(), 9);
        r.insert(format!("j_{}", n - 1), job(n - 1, false));
        assert_eq!(r.sealed_len(), 10);
        for i in 0..n {
            assert_eq!(sealed(&r, i), (10..20).contains(&i), "j_{i}");
        }
        // A done one written open again is a value and stays one; one read is decoded, and
        // sealed again once it has been at rest as long.
        Arc::make_mut(r.get_mut("j_12").unwrap()).done = false;
        assert_eq!(r["j_13"], job(13, true));
        for i in n..n + AT_REST_WRITES {
            r.insert(format!("j_{i}"), job(i, false));
        }
        assert!(!sealed(&r, 12) && sealed(&r, 13));
        assert_eq!(r.sealed_len(), 9);
        assert!(r.seal.decoded.lock().unwrap().is_empty());
        // The open ones are sealed in the order they were written once the window is full.
        r.keep_hot(8);
        r.insert("last".into(), job(0, false));
        assert_eq!(r.len() - r.sealed_len(), 8);
        for i in 0..20 {
            assert!(sealed(&r, i), "j_{i}");
            assert_eq!(r[format!("j_{i}").as_str()], job(i, i >= 10 && i != 12));
        }
        assert!(!sealed(&r, n + AT_REST_WRITES - 1));
    }
}
