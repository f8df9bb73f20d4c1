//! What the bench and calibrate commands sort: the workloads, reproducible random inputs,
//! the contestants (backends and the std/rayon peers) and the timing loop.

use std::fmt::Display;
use std::str::FromStr;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use rayon::slice::ParallelSliceMut;
use sortnet::backend::{self, Device};
use sortnet::{Key, KeyMap, KeyWidth, SortBackend, Workload};

/// A key type as the tool handles it: parse, print, and build from random bits.
pub trait ToolKey: Key + Default + FromStr<Err: Display> + std::fmt::Debug {
    /// The key from the low bits of a random word.
    fn from_random(bits: u64) -> Self;
}

macro_rules! tool_key {
    ($($t:ty => |$b:ident| $make:expr),* $(,)?) => {
        $(impl ToolKey for $t {
            fn from_random($b: u64) -> Self {
                $make
            }
        })*
    };
}

// Floats from random bits, but no NaN (a NaN's top exponent bit is cleared, which leaves a
// finite float): real data seldom holds NaNs, and with them the AVX2 sort of `f64` keys takes
// its slower path for NaN and -0.0 (`keys::x86_64::avx2`), one random key in 2048 a NaN.
tool_key! {
    u8 => |b| b as u8,
    u16 => |b| b as u16,
    u32 => |b| b as u32,
    i32 => |b| b as i32,
    f32 => |b| {
        let x = f32::from_bits(b as u32);
        if x.is_nan() { f32::from_bits(b as u32 & !(1 << 30)) } else { x }
    },
    u64 => |b| b,
    i64 => |b| b as i64,
    f64 => |b| {
        let x = f64::from_bits(b);
        if x.is_nan() { f64::from_bits(b & !(1 << 62)) } else { x }
    },
}

/// A workload as `sortnet bench` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// 64-bit words whose 16 nibbles are sorted.
    Nibbles,
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
    /// `u32` keys with `u32` values.
    Pairs,
    /// `u64` keys with `u32` values.
    Pairs64,
    /// `u8` keys.
    U8,
    /// `u16` keys.
    U16,
    /// `u32` keys sorted descending (`sort_descending`).
    Descending,
    /// `u32` keys with `u64` values.
    PairsU64v,
    /// The stable sorting permutation of `u32` keys (`argsort`).
    Argsort,
    /// 16-byte records sorted by their `u32` key (`sort_by_key`).
    Records16,
    /// 32-byte records sorted by their `u64` key (`sort_by_key`).
    Records32,
    /// `select_nth` at n/2 of `u32` keys.
    Select,
    /// `select_nth` at n/2 of `u64` keys.
    Select64,
    /// `partial_sort` of the n/100 smallest `u32` keys.
    Partial,
}

impl Kind {
    /// Every workload, in table order.
    pub const ALL: [Kind; 19] = [
        Kind::Nibbles,
        Kind::U32,
        Kind::I32,
        Kind::F32,
        Kind::U64,
        Kind::I64,
        Kind::F64,
        Kind::Pairs,
        Kind::Pairs64,
        Kind::U8,
        Kind::U16,
        Kind::Descending,
        Kind::PairsU64v,
        Kind::Argsort,
        Kind::Records16,
        Kind::Records32,
        Kind::Select,
        Kind::Select64,
        Kind::Partial,
    ];

    /// The library's name for this kind of call.
    pub fn workload(self) -> Workload {
        match self {
            Kind::Nibbles => Workload::Nibbles,
            Kind::U32 | Kind::I32 | Kind::F32 | Kind::U8 | Kind::U16 | Kind::Descending => {
                Workload::Keys(KeyWidth::W32)
            }
            Kind::Select | Kind::Partial => Workload::Keys(KeyWidth::W32),
            Kind::U64 | Kind::I64 | Kind::F64 | Kind::Select64 => Workload::Keys(KeyWidth::W64),
            Kind::Pairs | Kind::PairsU64v | Kind::Argsort | Kind::Records16 => {
                Workload::Pairs(KeyWidth::W32)
            }
            Kind::Pairs64 | Kind::Records32 => Workload::Pairs(KeyWidth::W64),
        }
    }

    /// Whether `auto` sends this call where [`workload`](Self::workload) goes (a select or
    /// a partial sort goes to the CPU's vectorised partition instead; small keys to the
    /// counting sort), so that tables can mark its pick.
    pub fn follows_auto_pick(self) -> bool {
        !matches!(
            self,
            Kind::Select | Kind::Select64 | Kind::Partial | Kind::U8 | Kind::U16
        )
    }

    /// How the keys map to unsigned order (`auto` routes floats differently).
    pub fn map(self) -> KeyMap {
        match self {
            Kind::F32 | Kind::F64 => KeyMap::Float,
            Kind::I32 | Kind::I64 => KeyMap::Signed,
            _ => KeyMap::Unsigned,
        }
    }

    /// A title for tables and plots.
    pub fn title(self) -> &'static str {
        match self {
            Kind::Nibbles => "nibbles (u64 words)",
            Kind::U32 => "u32 keys",
            Kind::I32 => "i32 keys",
            Kind::F32 => "f32 keys (total order)",
            Kind::U64 => "u64 keys",
            Kind::I64 => "i64 keys",
            Kind::F64 => "f64 keys (total order)",
            Kind::Pairs => "u32 keys + u32 values",
            Kind::Pairs64 => "u64 keys + u32 values",
            Kind::U8 => "u8 keys",
            Kind::U16 => "u16 keys",
            Kind::Descending => "u32 keys, descending",
            Kind::PairsU64v => "u32 keys + u64 values",
            Kind::Argsort => "argsort of u32 keys",
            Kind::Records16 => "16-byte records by u32 key",
            Kind::Records32 => "32-byte records by u64 key",
            Kind::Select => "select_nth(n/2) of u32 keys",
            Kind::Select64 => "select_nth(n/2) of u64 keys",
            Kind::Partial => "partial_sort(n/100) of u32 keys",
        }
    }

    /// The peers timed next to the backends; the first is the base of the ratios.
    pub fn peers(self) -> &'static [Contestant] {
        match self {
            Kind::Nibbles => &[Contestant::Reference],
            // std's select_nth_unstable (and a sort of the prefix); rayon has no select.
            Kind::Select | Kind::Select64 | Kind::Partial => &[Contestant::Std],
            _ => &[Contestant::Std, Contestant::Rayon],
        }
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast generator with good statistics, so
/// that every backend sorts the same reproducible data without a `rand` dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// One input, generated once per workload and size and copied before every run.
pub enum Data {
    Nibbles(Vec<u64>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Pairs32(Vec<u32>, Vec<u32>),
    Pairs64(Vec<u64>, Vec<u32>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    PairsU64v(Vec<u32>, Vec<u64>),
    /// Keys for a call other than a plain sort ([`Kind::Descending`], [`Kind::Argsort`],
    /// records, select, partial sort): see `calls`.
    Call(Kind, Vec<u64>),
}

fn random_keys<K: ToolKey>(len: usize, rng: &mut Rng) -> Vec<K> {
    (0..len).map(|_| K::from_random(rng.next_u64())).collect()
}

/// Values 0..len, so that a result can be checked: key `i` must be the input key at
/// `values[i]`.
fn index_values(len: usize) -> Vec<u32> {
    (0..len as u32).collect()
}

impl Data {
    /// Uniformly random bits (floats include some NaNs and infinities), the same for a
    /// given kind, length and seed.
    pub fn random(kind: Kind, len: usize, seed: u64) -> Data {
        let mut rng = Rng::new(seed ^ (len as u64).rotate_left(32) ^ kind as u64);
        match kind {
            Kind::Nibbles => Data::Nibbles(random_keys(len, &mut rng)),
            Kind::U32 => Data::U32(random_keys(len, &mut rng)),
            Kind::I32 => Data::I32(random_keys(len, &mut rng)),
            Kind::F32 => Data::F32(random_keys(len, &mut rng)),
            Kind::U64 => Data::U64(random_keys(len, &mut rng)),
            Kind::I64 => Data::I64(random_keys(len, &mut rng)),
            Kind::F64 => Data::F64(random_keys(len, &mut rng)),
            Kind::Pairs => Data::Pairs32(random_keys(len, &mut rng), index_values(len)),
            Kind::Pairs64 => Data::Pairs64(random_keys(len, &mut rng), index_values(len)),
            Kind::U8 => Data::U8(random_keys(len, &mut rng)),
            Kind::U16 => Data::U16(random_keys(len, &mut rng)),
            Kind::PairsU64v => {
                Data::PairsU64v(random_keys(len, &mut rng), (0..len as u64).collect())
            }
            Kind::Descending
            | Kind::Argsort
            | Kind::Records16
            | Kind::Records32
            | Kind::Select
            | Kind::Select64
            | Kind::Partial => Data::Call(kind, random_keys(len, &mut rng)),
        }
    }
}

/// Who sorts: a backend, or a peer a user would pick instead.
#[derive(Clone, Copy)]
pub enum Contestant {
    Backend(&'static dyn SortBackend),
    /// `slice::sort_unstable_by(total order)`; for pairs, zip + sort by key + unzip.
    Std,
    /// rayon's `par_sort_unstable_by`, likewise.
    Rayon,
    /// `sortnet::nibble::reference` on every word (extract, sort, repack).
    Reference,
}

impl Contestant {
    pub fn name(&self) -> &'static str {
        match self {
            Contestant::Backend(b) => b.name(),
            Contestant::Std => "std",
            Contestant::Rayon => "rayon",
            Contestant::Reference => "reference",
        }
    }
}

/// The contestants for `kind`: the backends that do it, then the peers; when `names` is
/// not empty, only those named (software GPU drivers only then). `Err` names an unknown
/// backend.
pub fn contestants(kind: Kind, names: &[String]) -> Result<Vec<Contestant>, String> {
    let usable = backend::available();
    let peers = ["std", "rayon", "reference"];
    for name in names {
        if !peers.contains(&name.as_str()) && !usable.iter().any(|b| b.name() == name) {
            let known: Vec<&str> = usable.iter().map(|b| b.name()).chain(peers).collect();
            return Err(format!(
                "`{name}` is not a backend usable here; choose from {}",
                known.join(", ")
            ));
        }
    }
    let named = |name: &str| names.iter().any(|n| n == name);
    let mut list: Vec<Contestant> = usable
        .into_iter()
        .filter(|b| b.supports(kind.workload()))
        .filter(|b| {
            if names.is_empty() {
                b.device() != (Device::Gpu { software: true })
            } else {
                named(b.name())
            }
        })
        .map(Contestant::Backend)
        .collect();
    for peer in kind.peers() {
        if names.is_empty() || named(peer.name()) {
            list.push(*peer);
        }
    }
    Ok(list)
}

/// How long to time one contestant at one size.
#[derive(Clone, Copy)]
pub struct Policy {
    /// At least this many timed runs...
    pub min_reps: usize,
    /// ...and more, up to `max_reps`, while the total stays under `budget`.
    pub max_reps: usize,
    pub budget: Duration,
}

/// Small inputs are timed in batches of copies covering at least this many elements, so
/// that one timed sample is long enough for the clock (tens of microseconds and up).
const BATCH_ELEMENTS: usize = 1 << 16;

/// The timings of one contestant at one size.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Fastest run, in seconds per element.
    pub best: f64,
    /// Median run, in seconds per element.
    pub median: f64,
}

impl Sample {
    fn new(mut times: Vec<Duration>, elements: usize) -> Sample {
        times.sort_unstable();
        let per = |d: Duration| d.as_secs_f64() / elements.max(1) as f64;
        Sample {
            best: per(times[0]),
            median: per(times[times.len() / 2]),
        }
    }
}

/// Times `who` sorting copies of `data`; `Err` if the call fails or sorts wrongly.
pub fn measure(data: &Data, who: Contestant, policy: Policy) -> Result<Sample, String> {
    match data {
        Data::Nibbles(words) => measure_nibbles(words, who, policy),
        Data::U32(k) => measure_keys(k, who, policy),
        Data::I32(k) => measure_keys(k, who, policy),
        Data::F32(k) => measure_keys(k, who, policy),
        Data::U64(k) => measure_keys(k, who, policy),
        Data::I64(k) => measure_keys(k, who, policy),
        Data::F64(k) => measure_keys(k, who, policy),
        Data::Pairs32(k, v) => measure_pairs(k, v, who, policy),
        Data::Pairs64(k, v) => measure_pairs(k, v, who, policy),
        Data::U8(k) => measure_keys(k, who, policy),
        Data::U16(k) => measure_keys(k, who, policy),
        Data::PairsU64v(k, v) => measure_pairs(k, v, who, policy),
        Data::Call(kind, words) => super::calls::measure(*kind, words, who, policy),
    }
}

/// The timing loop shared by every workload: `reset` copies the input into the buffers in
/// `state` (not timed), `run` sorts them all (timed), `check` looks at the first result.
pub fn time_runs<S>(
    state: &mut S,
    elements: usize,
    policy: Policy,
    reset: impl Fn(&mut S),
    mut run: impl FnMut(&mut S) -> Result<(), String>,
    check: impl FnOnce(&S) -> Result<(), String>,
) -> Result<Sample, String> {
    let mut times = Vec::new();
    let start = Instant::now();
    let mut check = Some(check);
    while times.len() < policy.min_reps
        || (times.len() < policy.max_reps && start.elapsed() < policy.budget)
    {
        reset(state);
        let t = Instant::now();
        run(state)?;
        times.push(t.elapsed());
        if let Some(check) = check.take() {
            check(state)?;
        }
    }
    Ok(Sample::new(times, elements))
}

/// The frame of most workloads: each run makes `call` on every one of
/// [`copies_for`]`(src.len())` copies of `src`, all reset to `src` before the run (not timed);
/// `check` looks at the first copy after the first run.
pub fn time_on_copies<T: Copy>(
    src: &[T],
    policy: Policy,
    mut call: impl FnMut(&mut [T]) -> Result<(), String>,
    check: impl FnOnce(&[T]) -> Result<(), String>,
) -> Result<Sample, String> {
    let mut bufs = vec![src.to_vec(); copies_for(src.len())];
    let elements = src.len() * bufs.len();
    time_runs(
        &mut bufs,
        elements,
        policy,
        |bufs| bufs.iter_mut().for_each(|b| b.copy_from_slice(src)),
        |bufs| bufs.iter_mut().try_for_each(|b| call(b)),
        |bufs| check(&bufs[0]),
    )
}

pub fn copies_for(len: usize) -> usize {
    (BATCH_ELEMENTS / len.max(1)).max(1)
}

fn measure_nibbles(src: &[u64], who: Contestant, policy: Policy) -> Result<Sample, String> {
    time_on_copies(
        src,
        policy,
        |b| {
            match who {
                Contestant::Backend(be) => be.sort_nibbles(b).map_err(|e| e.to_string())?,
                Contestant::Reference => b
                    .iter_mut()
                    .for_each(|w| *w = sortnet::nibble::reference(*w)),
                Contestant::Std | Contestant::Rayon => {
                    return Err("std and rayon do not sort nibbles".into())
                }
            }
            Ok(())
        },
        |out| {
            let good = src
                .iter()
                .zip(out)
                .all(|(&w, &out)| sortnet::nibble::reference(w) == out);
            good.then_some(())
                .ok_or_else(|| format!("{} sorted some words wrongly", who.name()))
        },
    )
}

fn sort_with<K: ToolKey>(who: Contestant, keys: &mut [K]) -> Result<(), String> {
    match who {
        Contestant::Backend(b) => b.sort(keys).map_err(|e| e.to_string()),
        Contestant::Std => {
            keys.sort_unstable_by(K::key_cmp);
            Ok(())
        }
        Contestant::Rayon => {
            keys.par_sort_unstable_by(K::key_cmp);
            Ok(())
        }
        Contestant::Reference => Err("the nibble reference does not sort keys".into()),
    }
}

/// The bits of a key (every key type is 4 or 8 bytes of plain data).
fn bits_of<K: ToolKey>(k: &K) -> u64 {
    let bytes = super::io::key_bytes(std::slice::from_ref(k));
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// An order-independent fingerprint of a multiset of keys (sum and xor of mixed bits), to
/// catch a result that is sorted but lost or invented keys.
pub fn fingerprint<K: ToolKey>(keys: &[K]) -> (u64, u64) {
    keys.iter().fold((0u64, 0u64), |(sum, xor), k| {
        let h = bits_of(k).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (sum.wrapping_add(h), xor ^ h.rotate_left(17))
    })
}

fn measure_keys<K: ToolKey>(src: &[K], who: Contestant, policy: Policy) -> Result<Sample, String> {
    time_on_copies(
        src,
        policy,
        |b| sort_with(who, b),
        |out| {
            let sorted = out.windows(2).all(|w| w[0].key_cmp(&w[1]).is_le());
            if sorted && fingerprint(out) == fingerprint(src) {
                Ok(())
            } else {
                Err(format!(
                    "{} returned keys that are not the input sorted",
                    who.name()
                ))
            }
        },
    )
}

/// A value type the pair workloads carry: the input index, so that a result can be checked.
pub trait ToolValue: Copy + Send + Sync {
    fn index(self) -> usize;
}

impl ToolValue for u32 {
    fn index(self) -> usize {
        self as usize
    }
}

impl ToolValue for u64 {
    fn index(self) -> usize {
        self as usize
    }
}

/// The buffers of one pairs measurement: copies of keys and values, and the peers' scratch
/// vector of zipped pairs.
struct PairBufs<K, V> {
    copies: Vec<(Vec<K>, Vec<V>)>,
    zipped: Vec<(K, V)>,
}

/// Keys zipped with their values, as the peers sort pairs.
type Zipped<K, V> = [(K, V)];

fn sort_pairs_with<K: ToolKey, V: ToolValue>(
    who: Contestant,
    keys: &mut [K],
    values: &mut [V],
    zipped: &mut Vec<(K, V)>,
) -> Result<(), String> {
    // The peers get the same two slices a backend gets: zip, sort by key, unzip (timed).
    let mut peer = |sort: &dyn Fn(&mut Zipped<K, V>)| {
        zipped.clear();
        zipped.extend(keys.iter().copied().zip(values.iter().copied()));
        sort(zipped);
        for ((k, v), &(zk, zv)) in keys.iter_mut().zip(values.iter_mut()).zip(zipped.iter()) {
            *k = zk;
            *v = zv;
        }
    };
    match who {
        Contestant::Backend(b) => b.sort_pairs(keys, values).map_err(|e| e.to_string())?,
        Contestant::Std => peer(&|z| z.sort_unstable_by(|a, b| a.0.key_cmp(&b.0))),
        Contestant::Rayon => peer(&|z| z.par_sort_unstable_by(|a, b| a.0.key_cmp(&b.0))),
        Contestant::Reference => return Err("the nibble reference does not sort pairs".into()),
    }
    Ok(())
}

fn measure_pairs<K: ToolKey, V: ToolValue>(
    keys: &[K],
    values: &[V],
    who: Contestant,
    policy: Policy,
) -> Result<Sample, String> {
    let copies = copies_for(keys.len());
    let mut bufs = PairBufs {
        copies: vec![(keys.to_vec(), values.to_vec()); copies],
        zipped: Vec::with_capacity(keys.len()),
    };
    time_runs(
        &mut bufs,
        keys.len() * copies,
        policy,
        |bufs| {
            for (k, v) in bufs.copies.iter_mut() {
                k.copy_from_slice(keys);
                v.copy_from_slice(values);
            }
        },
        |bufs| {
            let PairBufs { copies, zipped } = bufs;
            copies
                .iter_mut()
                .try_for_each(|(k, v)| sort_pairs_with(who, k, v, zipped))
        },
        |bufs| {
            let (out_k, out_v) = &bufs.copies[0];
            // Values are the input indices: each must appear once and carry its own key.
            let mut seen = vec![false; keys.len()];
            let paired = out_k.iter().zip(out_v).all(|(k, &v)| {
                let i = v.index();
                i < keys.len()
                    && !std::mem::replace(&mut seen[i], true)
                    && bits_of(&keys[i]) == bits_of(k)
            });
            let sorted = out_k.windows(2).all(|w| w[0].key_cmp(&w[1]).is_le());
            (paired && sorted).then_some(()).ok_or_else(|| {
                format!(
                    "{} returned pairs that are not the input sorted",
                    who.name()
                )
            })
        },
    )
}
