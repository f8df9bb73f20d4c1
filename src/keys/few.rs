//! Counting sort for slices that hold few distinct keys.
//!
//! Inputs with few distinct keys (enum-like codes, small categories, flags, all-equal data)
//! are common, and a radix sort pays its full number of passes on them. Counting the
//! distinct keys in a small hash table and writing each key's run once costs one read and
//! one write of the data instead. The table holds at most [`MAX_DISTINCT`] keys; the count
//! gives up as soon as one more turns up, which on random data happens within the first
//! few thousand keys, so trying costs a few microseconds where it does not pay. Only
//! key-only sorts use it: equal keys are indistinguishable, so the result is the sorted
//! slice whatever order equal keys came in (pairs need their values moved stably, which
//! counting alone does not give).

use rayon::prelude::*;

/// The most distinct keys the table counts before giving up.
///
/// Small enough that giving up on random keys costs little (the count stops after about
/// 260 keys), large enough for category-like data; the table (512 slots of key and count,
/// 8 KiB for `u64`) stays in L1 and the output is at most 256 runs, written at memory speed.
pub const MAX_DISTINCT: usize = 256;

/// Slots of the open-addressing table: twice [`MAX_DISTINCT`], so probes stay short.
const SLOTS: usize = 2 * MAX_DISTINCT;

/// Inputs of at least this many keys count on all rayon threads, one table per chunk.
const PARALLEL_MIN_LEN: usize = 1 << 18;

/// A key the table can hash.
pub(crate) trait CountKey: Copy + Eq + Ord + Send + Sync {
    /// The key's bits, for hashing.
    fn bits(self) -> u64;
}

impl CountKey for u32 {
    fn bits(self) -> u64 {
        self.into()
    }
}

impl CountKey for u64 {
    fn bits(self) -> u64 {
        self
    }
}

/// Distinct keys and how often each occurs.
struct Table<K> {
    keys: Vec<K>,
    counts: Vec<usize>,
    distinct: usize,
}

impl<K: CountKey> Table<K> {
    fn new(fill: K) -> Self {
        Table {
            keys: vec![fill; SLOTS],
            counts: vec![0; SLOTS],
            distinct: 0,
        }
    }

    /// Adds `count` occurrences of `key`; `false` if the key would be distinct key number
    /// `MAX_DISTINCT + 1` (then nothing is added).
    #[inline(always)]
    fn add(&mut self, key: K, count: usize) -> bool {
        // Fibonacci hashing: the top bits of the product mix every bit of the key.
        let mut slot =
            (key.bits().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.ilog2())) as usize;
        loop {
            if self.counts[slot] == 0 {
                if self.distinct == MAX_DISTINCT {
                    return false;
                }
                self.distinct += 1;
                self.keys[slot] = key;
                self.counts[slot] = count;
                return true;
            }
            if self.keys[slot] == key {
                self.counts[slot] += count;
                return true;
            }
            slot = (slot + 1) % SLOTS;
        }
    }

    /// Counts `keys` into the table; `false` if they hold more than `MAX_DISTINCT`
    /// distinct keys.
    fn count(&mut self, keys: &[K]) -> bool {
        let Some((&first, rest)) = keys.split_first() else {
            return true;
        };
        // Runs of one key (sorted or constant data) are counted in a register, not in the
        // table, whose same-slot increments would wait on each other.
        let (mut run_key, mut run) = (first, 1);
        for &k in rest {
            if k == run_key {
                run += 1;
            } else {
                if !self.add(run_key, run) {
                    return false;
                }
                (run_key, run) = (k, 1);
            }
        }
        self.add(run_key, run)
    }

    /// The (key, count) entries.
    fn entries(&self) -> impl Iterator<Item = (K, usize)> + '_ {
        self.keys
            .iter()
            .zip(&self.counts)
            .filter(|(_, &c)| c > 0)
            .map(|(&k, &c)| (k, c))
    }
}

/// Sorts `keys` ascending by `order(key)` (a bijection, as the key maps are) if they hold at
/// most [`MAX_DISTINCT`] distinct keys, and returns `true`; otherwise leaves them unchanged
/// and returns `false`.
pub(crate) fn sort_if_few<K: CountKey>(keys: &mut [K], order: impl Fn(K) -> K + Sync) -> bool {
    let Some(&fill) = keys.first() else {
        return true;
    };
    let entries: Vec<(K, usize)> =
        if keys.len() >= PARALLEL_MIN_LEN && rayon::current_num_threads() > 1 {
            let parts = rayon::current_num_threads();
            let chunk = keys.len().div_ceil(parts);
            let tables: Option<Vec<Table<K>>> = keys
                .par_chunks(chunk)
                .map(|c| {
                    let mut t = Table::new(fill);
                    t.count(c).then_some(t)
                })
                .collect();
            let Some(tables) = tables else {
                return false;
            };
            let mut merged = Table::new(fill);
            for t in &tables {
                for (k, c) in t.entries() {
                    if !merged.add(k, c) {
                        return false;
                    }
                }
            }
            merged.entries().collect()
        } else {
            let mut t = Table::new(fill);
            if !t.count(keys) {
                return false;
            }
            t.entries().collect()
        };
    let mut entries = entries;
    entries.sort_unstable_by_key(|&(k, _)| order(k));
    let mut at = 0;
    for (k, c) in entries {
        keys[at..at + c].fill(k);
        at += c;
    }
    debug_assert_eq!(at, keys.len());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        // xorshift64*
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    #[test]
    fn sorts_up_to_max_distinct_and_refuses_more() {
        let mut s = 7u64;
        for n in [0usize, 1, 2, 100, 5000, (1 << 18) + 3] {
            for distinct in [1u64, 2, 64, MAX_DISTINCT as u64, MAX_DISTINCT as u64 + 1] {
                let pool: Vec<u64> = (0..distinct).map(|_| rng(&mut s)).collect();
                let keys: Vec<u64> = (0..n)
                    .map(|i| {
                        // Every pool key occurs when n allows it.
                        if (i as u64) < distinct {
                            pool[i]
                        } else {
                            pool[(rng(&mut s) % distinct) as usize]
                        }
                    })
                    .collect();
                let mut want = keys.clone();
                want.sort_unstable();
                let seen = want.windows(2).filter(|w| w[0] != w[1]).count() + 1;
                let mut got = keys.clone();
                let sorted = sort_if_few(&mut got, |k| k);
                if n == 0 || seen <= MAX_DISTINCT {
                    assert!(sorted, "n={n} distinct={distinct}");
                    assert_eq!(got, want, "n={n} distinct={distinct}");
                } else {
                    assert!(!sorted, "n={n} distinct={distinct}");
                    assert_eq!(got, keys, "a refused input must stay as it was");
                }
            }
        }
    }

    #[test]
    fn orders_by_the_key_map() {
        // Signed order through the sign-flip map: negative keys first.
        let mut keys: Vec<u32> = [5i32, -3, 5, i32::MIN, 0, -3, i32::MAX]
            .iter()
            .map(|&k| k as u32)
            .collect();
        assert!(sort_if_few(&mut keys, |k| k ^ 0x8000_0000));
        let got: Vec<i32> = keys.iter().map(|&k| k as i32).collect();
        assert_eq!(got, [i32::MIN, -3, -3, 0, 5, 5, i32::MAX]);
    }
}
