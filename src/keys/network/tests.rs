//! Checks shared by the instantiations' unit tests (`x86_64::avx2`, `x86_64::avx512`,
//! `portable`): each calls these with its own vectors and sorts.

use super::KeyVector;
use crate::keys::key::KeyMap;

/// xorshift64*: deterministic test data.
pub(crate) fn rng(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

/// The lanes of `v`.
///
/// # Safety
/// The CPU supports `V`'s instructions.
unsafe fn lanes<V: KeyVector>(v: V) -> Vec<V::Key> {
    let mut out = vec![V::MAX; V::LANES];
    // SAFETY: `out` has `LANES` slots; the caller guarantees the CPU.
    unsafe { v.store(out.as_mut_ptr()) };
    out
}

/// `partition_store` on one vector for every below-pivot lane mask, with the two output
/// ranges apart and with them coinciding (the last write of a partition): the result
/// is right and nothing outside `left[..LANES]` and `right_end[-LANES..]` is written; and
/// `split`, the same in registers.
/// `key(lane, below)` makes a key below `pivot` when `below`, else one at or above it.
///
/// # Safety
/// The CPU supports `V`'s instructions.
pub(crate) unsafe fn check_partition_store<V: KeyVector>(
    pivot: V::Key,
    key: impl Fn(usize, bool) -> V::Key,
    guard: V::Key,
) where
    V::Key: std::fmt::Debug,
{
    let l = V::LANES;
    for mask in 0..1usize << l {
        let keys: Vec<V::Key> = (0..l).map(|i| key(i, mask & (1 << i) != 0)).collect();
        assert!(keys
            .iter()
            .enumerate()
            .all(|(i, &k)| (k < pivot) == (mask & (1 << i) != 0)));
        let below: Vec<V::Key> = keys.iter().copied().filter(|&k| k < pivot).collect();
        let rest: Vec<V::Key> = keys.iter().copied().filter(|&k| k >= pivot).collect();
        let c = below.len();
        // SAFETY: `keys` has `LANES` keys; the caller guarantees the CPU.
        let (v, p) = unsafe { (V::load(keys.as_ptr()), V::splat(pivot)) };

        // Apart: left = buf[0..], right_end = buf[3L]; buf[L..2L] must stay untouched.
        let mut buf = vec![guard; 3 * l];
        let at = buf.as_mut_ptr();
        // SAFETY: `left[..L]` and `right_end[-L..]` lie inside `buf`.
        let got = unsafe { v.partition_store(p, at, at.add(3 * l)) };
        assert_eq!(got, c, "mask {mask:b}");
        assert_eq!(buf[..c], below[..], "mask {mask:b}: left");
        assert_eq!(buf[3 * l - (l - c)..], rest[..], "mask {mask:b}: right");
        assert!(
            buf[l..2 * l].iter().all(|&k| k == guard),
            "mask {mask:b}: wrote between"
        );

        // Coinciding: left = buf[L..], right_end = buf[2L]; outside must stay untouched.
        let mut buf = vec![guard; 3 * l];
        let at = buf.as_mut_ptr();
        // SAFETY: both ranges are `buf[L..2L]`.
        let got = unsafe { v.partition_store(p, at.add(l), at.add(2 * l)) };
        assert_eq!(got, c);
        let want: Vec<V::Key> = below.iter().chain(&rest).copied().collect();
        assert_eq!(buf[l..2 * l], want[..], "mask {mask:b}: coinciding");
        assert!(buf[..l].iter().chain(&buf[2 * l..]).all(|&k| k == guard));

        // In registers.
        // SAFETY: the caller guarantees the CPU.
        let (low, high, got) = unsafe { v.split(p) };
        assert_eq!(got, c, "mask {mask:b}: split");
        // SAFETY: as above.
        let (low, high) = unsafe { (lanes(low), lanes(high)) };
        assert_eq!(low[..c], below[..], "mask {mask:b}: split, low");
        assert_eq!(high[..l - c], rest[..], "mask {mask:b}: split, high");
    }
}

/// Every lane operation against its scalar meaning, on keys from `key(random)` (with
/// equal keys in some lanes so that ties are covered).
///
/// # Safety
/// The CPU supports `V`'s instructions.
/// [`check_partition_store`] for `u32` lanes with the pivot at the top bit: keys below it
/// are small multiples of 3, the others just above it.
///
/// # Safety
/// As [`check_partition_store`].
pub(crate) unsafe fn check_partition_store32<V: KeyVector<Key = u32>>() {
    let key = |l: usize, below: bool| {
        if below {
            l as u32 * 3
        } else {
            0x8000_0000 + l as u32
        }
    };
    // SAFETY: forwarded from the caller.
    unsafe { check_partition_store::<V>(0x8000_0000, key, 0x5555_5555) }
}

/// [`check_partition_store`] for `u64` lanes with the pivot at the top bit: keys below it
/// just under it, the others at the very top.
///
/// # Safety
/// As [`check_partition_store`].
pub(crate) unsafe fn check_partition_store64<V: KeyVector<Key = u64>>() {
    let key = |l: usize, below: bool| {
        if below {
            (1 << 63) - 100 + l as u64 * 3
        } else {
            u64::MAX - l as u64
        }
    };
    // SAFETY: forwarded from the caller.
    unsafe { check_partition_store::<V>(1 << 63, key, 0x5555_5555) }
}

pub(crate) unsafe fn check_vector_ops<V: KeyVector>(key: impl Fn(u64) -> V::Key)
where
    V::Key: std::fmt::Debug,
{
    let l = V::LANES;
    let mut s = 0x1234_5678_9abc_def1u64;
    for round in 0..2000 {
        let a: Vec<V::Key> = (0..l).map(|_| key(rng(&mut s))).collect();
        let b: Vec<V::Key> = (0..l)
            .map(|i| {
                if (round + i) % 5 == 0 {
                    a[i]
                } else {
                    key(rng(&mut s))
                }
            })
            .collect();
        // SAFETY: `a` and `b` have `LANES` keys; the caller guarantees the CPU.
        unsafe {
            let (va, vb) = (V::load(a.as_ptr()), V::load(b.as_ptr()));
            let min: Vec<_> = a.iter().zip(&b).map(|(&x, &y)| x.min(y)).collect();
            let max: Vec<_> = a.iter().zip(&b).map(|(&x, &y)| x.max(y)).collect();
            assert_eq!(lanes(va.min(vb)), min);
            assert_eq!(lanes(va.max(vb)), max);
            for m in 0..l {
                let want: Vec<_> = (0..l).map(|i| a[i ^ m]).collect();
                assert_eq!(lanes(va.xor_permute(m)), want, "xor_permute {m}");
            }
            let mut bit = 1;
            while bit < l {
                let want: Vec<_> = (0..l)
                    .map(|i| if i & bit != 0 { b[i] } else { a[i] })
                    .collect();
                assert_eq!(lanes(V::blend_bit(va, vb, bit)), want, "blend_bit {bit}");
                bit *= 2;
            }
            for n in 0..l {
                let padded: Vec<_> = (0..l).map(|i| if i < n { a[i] } else { V::MAX }).collect();
                assert_eq!(
                    lanes(V::load_padded(a.as_ptr(), n)),
                    padded,
                    "load_padded {n}"
                );
                let mut out = b.clone();
                va.store_first(out.as_mut_ptr(), n);
                let want: Vec<_> = (0..l).map(|i| if i < n { a[i] } else { b[i] }).collect();
                assert_eq!(out, want, "store_first {n}");
            }
        }
    }
}

/// `partition` on slices that start at every offset from a vector boundary and end at
/// every remainder of a vector, with pivots that leave no key, few keys, half of them or all
/// below: the keys below the pivot come first, the returned split is their count, the
/// keys are the same (a permutation) and the keys around the slice are untouched. `key`
/// makes keys from random bits; `V` compares without an image.
///
/// # Safety
/// The CPU supports `V`'s instructions.
pub(crate) unsafe fn check_partition<V: KeyVector>(key: impl Fn(u64) -> V::Key)
where
    V::Key: std::fmt::Debug,
{
    assert!(!V::IMAGE, "pivots here are keys, not images");
    let l = V::LANES;
    let mut s = 0x0bad_cafe_f00d_1234u64;
    let lens = (0..=2 * l + 1)
        .map(|d| 8 * l + d)
        .chain([33 * l + 3, 64 * l + l - 1]);
    for len in lens {
        for offset in 0..l {
            for distinct in [u64::MAX, 3] {
                let pool: Vec<V::Key> = (0..len + 2 * l)
                    .map(|_| key(rng(&mut s) % distinct.max(1)))
                    .collect();
                let mut sorted = pool[offset..offset + len].to_vec();
                sorted.sort_unstable();
                let pivots = [
                    sorted[0],
                    sorted[len / 16],
                    sorted[len / 2],
                    sorted[len - 1],
                ];
                for pivot in pivots {
                    let mut buf = pool.clone();
                    let keys = &mut buf[offset..offset + len];
                    // SAFETY: the caller guarantees the CPU.
                    let b = unsafe { super::partition::<V>(keys, pivot) };
                    let below = sorted.iter().filter(|&&k| k < pivot).count();
                    assert_eq!(b, below, "len {len} offset {offset} pivot {pivot:?}");
                    assert!(
                        keys[..b].iter().all(|&k| k < pivot),
                        "len {len} offset {offset}"
                    );
                    assert!(
                        keys[b..].iter().all(|&k| k >= pivot),
                        "len {len} offset {offset}"
                    );
                    let mut got = keys.to_vec();
                    got.sort_unstable();
                    assert_eq!(got, sorted, "len {len} offset {offset}: not a permutation");
                    assert_eq!(buf[..offset], pool[..offset]);
                    assert_eq!(buf[offset + len..], pool[offset + len..]);
                }
            }
        }
    }
}

/// Input patterns for the sort tests.
pub(crate) fn inputs(n: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut s = seed | 1;
    vec![
        (0..n).map(|_| rng(&mut s)).collect(),
        (0..n as u64).collect(),
        (0..n as u64).rev().collect(),
        (0..n as u64).map(|i| i % 17).collect(),
        (0..n as u64).map(|i| i.min(n as u64 - i)).collect(),
        vec![7; n],
        (0..n).map(|_| rng(&mut s) % 5).collect(),
        (0..n)
            .map(|i| if i % 2 == 0 { u64::MAX } else { 0 })
            .collect(),
        // Sorted runs: four ascending runs, and two ascending halves interleaved.
        (0..n as u64).map(|i| i % (n as u64 / 4 + 1)).collect(),
        (0..n as u64)
            .map(|i| {
                if i % 2 == 0 {
                    i / 2
                } else {
                    n as u64 / 2 + i / 2
                }
            })
            .collect(),
    ]
}

fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    for k in 9..=16 {
        v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v
}

/// A 32-bit and a 64-bit sort under test: unsigned keys on std's patterns and every
/// length up to 300 plus powers of two up to 2^16, then float and signed keys through
/// their maps, then the adversarial input that sends ranges to the radix fallback.
pub(crate) fn check_sorts(
    sort32: impl Fn(&mut [u32], KeyMap),
    sort64: impl Fn(&mut [u64], KeyMap),
) {
    for n in lengths() {
        check_patterns(n, &sort32, &sort64, &[KeyMap::Unsigned]);
    }
    check_floats_and_signed(&sort32, &sort64);
    check_adversarial_pivots(&sort32);
}

/// The sorts on pools of four and three rayon threads, where ranges from
/// [`PARALLEL_SPLIT_MIN_LEN`](super::PARALLEL_SPLIT_MIN_LEN) keys are split over them
/// (whatever the test machine's cores) and the first partitions run in chunks (four, then
/// two; three of unequal length, then two): std's patterns, float and signed keys, and
/// adversarial pivots past the split's length.
pub(crate) fn check_sorts_on_threads(
    sort32: impl Fn(&mut [u32], KeyMap) + Sync,
    sort64: impl Fn(&mut [u64], KeyMap) + Sync,
) {
    for (threads, long) in [(4, (1 << 18) + 5), (3, (3 << 16) + 7)] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool of threads");
        pool.install(|| {
            for n in [super::PARALLEL_SPLIT_MIN_LEN, long] {
                let maps = [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float];
                check_patterns(n, &sort32, &sort64, &maps);
            }
            adversarial_pivots(&sort32, KeyMap::Unsigned, 1 << 17);
        });
    }
}

/// std's patterns of `n` keys ([`inputs`]) as `u32` and `u64` keys, sorted in the order of
/// each of `maps` and compared with std's sort. Unsigned `u32` keys fold both halves of the
/// pattern's 64-bit keys, so that patterns in their high bits show in the low ones.
fn check_patterns(
    n: usize,
    sort32: &impl Fn(&mut [u32], KeyMap),
    sort64: &impl Fn(&mut [u64], KeyMap),
    maps: &[KeyMap],
) {
    for (p, input) in inputs(n, n as u64).into_iter().enumerate() {
        for &map in maps {
            let narrow = |x: u64| match map {
                KeyMap::Unsigned => (x ^ (x >> 32)) as u32,
                _ => x as u32,
            };
            let mut a: Vec<u32> = input.iter().map(|&x| narrow(x)).collect();
            let mut want = a.clone();
            want.sort_unstable_by_key(|&k| map.encode32(k));
            sort32(&mut a, map);
            assert_eq!(a, want, "u32 {map:?} pattern {p} n={n}");
            let mut b = input.clone();
            let mut want = b.clone();
            want.sort_unstable_by_key(|&k| map.encode64(k));
            sort64(&mut b, map);
            assert_eq!(b, want, "u64 {map:?} pattern {p} n={n}");
        }
    }
}

fn check_floats_and_signed(
    sort32: &impl Fn(&mut [u32], KeyMap),
    sort64: &impl Fn(&mut [u64], KeyMap),
) {
    let specials = [
        f64::from_bits(0xfff8_0000_0000_0000),
        f64::NEG_INFINITY,
        f64::MIN,
        -1.0,
        -f64::MIN_POSITIVE,
        -f64::from_bits(1),
        -0.0,
        0.0,
        f64::from_bits(1),
        1.5,
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
    ];
    for n in [0, 1, 13, 16, 17, 255, 256, 257, 1000, 5000] {
        let mut s = 3 + n as u64;
        let f: Vec<f64> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    specials[rng(&mut s) as usize % specials.len()]
                } else {
                    (rng(&mut s) as i64 as f64) * 1e-10
                }
            })
            .collect();
        let mut bits: Vec<u64> = f.iter().map(|x| x.to_bits()).collect();
        let mut want = f.clone();
        want.sort_by(f64::total_cmp);
        sort64(&mut bits, KeyMap::Float);
        let want_bits: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, want_bits, "f64 n={n}");

        let mut b32: Vec<u32> = f.iter().map(|&x| (x as f32).to_bits()).collect();
        let mut want: Vec<f32> = f.iter().map(|&x| x as f32).collect();
        want.sort_by(f32::total_cmp);
        sort32(&mut b32, KeyMap::Float);
        let want_bits: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
        assert_eq!(b32, want_bits, "f32 n={n}");

        let mut i: Vec<i32> = (0..n)
            .map(|k| match k % 4 {
                0 => i32::MIN,
                1 => i32::MAX,
                _ => rng(&mut s) as i32,
            })
            .collect();
        let mut want = i.clone();
        want.sort_unstable();
        let bits: &mut [u32] = crate::keys::key::as_bits32(&mut i).expect("i32 is 32-bit");
        sort32(bits, KeyMap::Signed);
        assert_eq!(i, want, "i32 n={n}");

        let mut i: Vec<i64> = (0..n)
            .map(|k| match k % 4 {
                0 => i64::MIN,
                1 => i64::MAX,
                _ => rng(&mut s) as i64,
            })
            .collect();
        let mut want = i.clone();
        want.sort_unstable();
        let bits: &mut [u64] = crate::keys::key::as_bits64(&mut i).expect("i64 is 64-bit");
        sort64(bits, KeyMap::Signed);
        assert_eq!(i, want, "i64 n={n}");
    }
}

/// Sample positions hold the smallest keys: every pivot is near the minimum, so the
/// depth budget runs out and the radix fallback finishes; for unsigned keys, signed ones
/// and float bits (which the x86-64 tokens sort with signed vectors and fallback, and
/// AVX-512 as they are by their image).
fn check_adversarial_pivots(sort32: &impl Fn(&mut [u32], KeyMap)) {
    for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
        adversarial_pivots(sort32, map, 1 << 15);
    }
}

/// `n` keys that put the smallest keys at the pivot sample's places of the range and of
/// its first 7/8, 49/64, ...: each pivot is a minimum, each partition peels off a few keys.
fn adversarial_pivots(sort32: &impl Fn(&mut [u32], KeyMap), map: KeyMap, n: usize) {
    let samples = super::PIVOT_SAMPLE;
    let mut a: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let mut order: Vec<u32> = a.clone();
    order.sort_unstable_by_key(|&k| map.encode32(k));
    let mut small = order.iter();
    let mut len = n;
    while len > 256 {
        for i in 0..samples {
            let at = crate::keys::sampling::sample_position(len, samples, i);
            if let Some(&k) = small.next() {
                let j = a.iter().position(|&x| x == k).expect("present");
                a.swap(at, j);
            }
        }
        len -= len / 8;
    }
    let mut want = a.clone();
    want.sort_unstable_by_key(|&k| map.encode32(k));
    sort32(&mut a, map);
    assert_eq!(a, want, "{map:?}");
}

/// Float vectors (`F` of `f32` bits, `D` of `f64` bits): the image orders as `total_cmp`
/// (signed) incl. NaNs and ±0, is its own inverse, the vector form matches the scalar one,
/// and [`KeyVector::against_pivot`] orders keys against a pivot as their images do.
///
/// # Safety
/// The CPU supports `F`'s and `D`'s instructions.
pub(crate) unsafe fn check_float_images<F: KeyVector<Key = i32>, D: KeyVector<Key = i64>>() {
    assert!(F::IMAGE && D::IMAGE);
    let mut s = 7u64;
    let mut f: Vec<f32> = (0..4096)
        .map(|_| f32::from_bits(rng(&mut s) as u32))
        .collect();
    f.extend([
        -0.0,
        0.0,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ]);
    f.truncate(f.len() / 16 * 16);
    for w in f.windows(2) {
        let (a, b) = (w[0].to_bits() as i32, w[1].to_bits() as i32);
        let (ia, ib) = (F::flip_key(a), F::flip_key(b));
        assert_eq!(ia.cmp(&ib), w[0].total_cmp(&w[1]), "{:?} {:?}", w[0], w[1]);
        assert_eq!(F::flip_key(ia), a);
    }
    let d: Vec<i64> = (0..4096).map(|_| rng(&mut s) as i64).collect();
    for w in d.windows(2) {
        let (x, y) = (f64::from_bits(w[0] as u64), f64::from_bits(w[1] as u64));
        let (ia, ib) = (D::flip_key(w[0]), D::flip_key(w[1]));
        assert_eq!(ia.cmp(&ib), x.total_cmp(&y));
        assert_eq!(D::flip_key(ia), w[0]);
    }
    let bits: Vec<i32> = f.iter().map(|x| x.to_bits() as i32).collect();
    for (c, chunk) in bits.chunks(F::LANES).enumerate() {
        let mut out = [0i32; 16];
        // SAFETY: caller's guarantee; `chunk` holds `LANES` keys (the length is a
        // multiple of 16), `out` at least as many.
        unsafe { F::load(chunk.as_ptr()).flip().store(out.as_mut_ptr()) };
        let want: Vec<i32> = chunk.iter().map(|&k| F::flip_key(k)).collect();
        assert_eq!(out[..F::LANES], want[..], "chunk {c}");
    }
    for chunk in d.chunks(D::LANES) {
        let mut out = [0i64; 8];
        // SAFETY: as above.
        unsafe { D::load(chunk.as_ptr()).flip().store(out.as_mut_ptr()) };
        let want: Vec<i64> = chunk.iter().map(|&k| D::flip_key(k)).collect();
        assert_eq!(out[..D::LANES], want[..]);
    }
    // Against a pivot (an image), the partition's form orders as the images do.
    let pivots32 = [
        0,
        -1,
        1,
        i32::MIN,
        i32::MAX,
        F::flip_key(bits[7]),
        F::flip_key(bits[8]),
    ];
    let pivots64 = [0, -1, 1, i64::MIN, i64::MAX, D::flip_key(d[3])];
    // SAFETY: as above; both slices are whole vectors of `F` and `D`.
    unsafe {
        check_against_pivot::<F>(
            &bits,
            pivots32.into_iter().chain(bits.iter().step_by(97).copied()),
        );
        check_against_pivot::<D>(
            &d,
            pivots64.into_iter().chain(d.iter().step_by(97).copied()),
        );
    }
}

/// [`KeyVector::against_pivot`] of each vector of `keys` (a whole number of vectors) against
/// each of `pivots` (images): below the pivot exactly where the key's image is.
///
/// # Safety
/// The CPU supports `V`'s instructions.
unsafe fn check_against_pivot<V: KeyVector>(keys: &[V::Key], pivots: impl Iterator<Item = V::Key>)
where
    V::Key: std::fmt::Debug,
{
    for pivot in pivots {
        for chunk in keys.chunks(V::LANES) {
            let mut out = chunk.to_vec();
            // SAFETY: caller's guarantee; `chunk` and `out` hold `LANES` keys.
            unsafe {
                let v = V::load(chunk.as_ptr()).against_pivot(V::splat(pivot));
                v.store(out.as_mut_ptr());
            }
            for (&x, &o) in chunk.iter().zip(&out) {
                assert_eq!(o < pivot, V::flip_key(x) < pivot, "{x:?} against {pivot:?}");
            }
        }
    }
}

#[test]
fn the_sample_turns_away_few_long_runs_not_one_run() {
    let n = 1 << 12;
    let ascending: Vec<u32> = (0..n).map(|i| i / 3).collect();
    let descending: Vec<u32> = ascending.iter().rev().copied().collect();
    let monotonic = |keys: &[u32]| crate::keys::sampling::sample_is_monotonic(keys, |k| k);
    assert!(monotonic(&ascending) && monotonic(&descending));
    assert!(monotonic(&[0u32; 100]), "equal keys go either way");
    assert!(
        monotonic(&[3, 1, 2]),
        "too short to sample: the scans decide"
    );
    let halves: Vec<u32> = ascending[..n as usize / 2].repeat(2);
    let pipe: Vec<u32> = ascending
        .iter()
        .step_by(2)
        .chain(descending.iter().step_by(2))
        .copied()
        .collect();
    assert!(!monotonic(&halves) && !monotonic(&pipe));
    // Reversed by the order it is given.
    assert!(monotonic(
        &ascending.iter().map(|&k| !k).collect::<Vec<_>>()
    ));
}
