//! Select and partial sort, portable: the keys are mapped to their unsigned images once,
//! std's introselect (`select_nth_unstable`, median-of-medians fallback, linear in the
//! worst case) places the n-th key, and a partial sort then sorts only the prefix with the
//! crate's radix sort (insertion and std's sort for short prefixes). Never a full sort.
//!
//! The AVX-512 and AVX2 key tokens provide vectorised versions with the same signatures;
//! these serve every other CPU backend. The callers have checked `n < len` and `k <= len`.

use super::key::KeyMap;
use super::radix;

/// Prefixes of at least this many keys are radix-sorted, shorter ones by std's sort: radix
/// beats comparison sorts from a few hundred keys (`radix::INSERTION_MAX_LEN` and the
/// backend crossovers near 800 keys), and a prefix is usually short.
const PREFIX_RADIX_MIN_LEN: usize = 1 << 10;

/// Puts the `n`-th smallest 32-bit key (by `map.encode32`) at `keys[n]`, smaller or equal
/// keys before it and greater or equal ones after it.
pub(crate) fn select_nth32(keys: &mut [u32], n: usize, map: KeyMap) {
    debug_assert!(n < keys.len());
    map.encode_slice32(keys);
    keys.select_nth_unstable(n);
    map.decode_slice32(keys);
}

/// [`select_nth32`] for 64-bit keys.
pub(crate) fn select_nth64(keys: &mut [u64], n: usize, map: KeyMap) {
    debug_assert!(n < keys.len());
    map.encode_slice64(keys);
    keys.select_nth_unstable(n);
    map.decode_slice64(keys);
}

/// Puts the `k` smallest 32-bit keys, ascending, in `keys[..k]`; the rest in any order.
pub(crate) fn partial_sort32(keys: &mut [u32], k: usize, map: KeyMap) {
    debug_assert!(k <= keys.len());
    if k == 0 {
        return;
    }
    if k == keys.len() {
        radix::sort32(keys, map);
        return;
    }
    map.encode_slice32(keys);
    keys.select_nth_unstable(k - 1);
    let prefix = &mut keys[..k - 1];
    if prefix.len() >= PREFIX_RADIX_MIN_LEN {
        radix::sort32(prefix, KeyMap::Unsigned);
    } else {
        prefix.sort_unstable();
    }
    map.decode_slice32(keys);
}

/// [`partial_sort32`] for 64-bit keys.
pub(crate) fn partial_sort64(keys: &mut [u64], k: usize, map: KeyMap) {
    debug_assert!(k <= keys.len());
    if k == 0 {
        return;
    }
    if k == keys.len() {
        radix::sort64(keys, map);
        return;
    }
    map.encode_slice64(keys);
    keys.select_nth_unstable(k - 1);
    let prefix = &mut keys[..k - 1];
    if prefix.len() >= PREFIX_RADIX_MIN_LEN {
        radix::sort64(prefix, KeyMap::Unsigned);
    } else {
        prefix.sort_unstable();
    }
    map.decode_slice64(keys);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_and_partial_sort_match_a_full_sort() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for len in [1usize, 2, 3, 10, 100, 1500, 5000] {
            let keys: Vec<u64> = (0..len)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s % 1000
                })
                .collect();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            for at in [0, len / 3, len - 1, len] {
                let mut k = keys.clone();
                partial_sort64(&mut k, at, KeyMap::Unsigned);
                assert_eq!(k[..at], sorted[..at], "len {len} k {at}");
                let mut w: Vec<u32> = keys.iter().map(|&x| x as u32).collect();
                partial_sort32(&mut w, at, KeyMap::Signed);
                assert!(w[..at]
                    .iter()
                    .zip(&sorted)
                    .all(|(a, b)| u64::from(*a) == *b));
                if at < len {
                    let mut k = keys.clone();
                    select_nth64(&mut k, at, KeyMap::Unsigned);
                    assert_eq!(k[at], sorted[at]);
                    assert!(k[..at].iter().all(|&x| x <= k[at]));
                    assert!(k[at..].iter().all(|&x| x >= k[at]));
                    let mut w: Vec<u32> = keys.iter().map(|&x| x as u32).collect();
                    select_nth32(&mut w, at, KeyMap::Float);
                    assert_eq!(u64::from(w[at]), sorted[at]);
                }
            }
        }
    }
}
