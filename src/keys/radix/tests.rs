//! The radix sort against std's sort on every route, pattern and awkward length.

use super::lsd::*;
use super::msd::*;
use super::scatter::*;
use super::*;

fn rng(seed: &mut u64) -> u64 {
    // xorshift64*
    *seed ^= *seed >> 12;
    *seed ^= *seed << 25;
    *seed ^= *seed >> 27;
    seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

fn patterns(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
    let mut s = seed | 1;
    let random: Vec<u64> = (0..n).map(|_| rng(&mut s)).collect();
    let few: Vec<u64> = (0..n).map(|_| rng(&mut s) % 7).collect();
    vec![
        ("random", random),
        ("ascending", (0..n as u64).collect()),
        ("descending", (0..n as u64).rev().collect()),
        ("saw", (0..n as u64).map(|i| i % 17).collect()),
        (
            "organ",
            (0..n as u64).map(|i| i.min(n as u64 - i)).collect(),
        ),
        ("equal", vec![42; n]),
        ("few", few),
    ]
}

/// Every forced route, for tests that must cover each shape at every length.
const ROUTES: [Route; 5] = [
    Route::Msd,
    Route::Lsd { wide: false },
    Route::Lsd { wide: true },
    Route::ParallelLsd { wide: false },
    Route::ParallelLsd { wide: true },
];

fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    // The MSD shape starts at 2^16 and the parallel one at 2^17; the shared harness
    // (tests/backends.rs) goes on to 2^20.
    for k in 9..=18 {
        v.extend([(1 << k) - 1, 1 << k, (1 << k) + 1]);
    }
    v
}

fn specials_f32() -> Vec<u32> {
    [
        f32::from_bits(0xffc0_0000),
        -f32::NAN,
        f32::NEG_INFINITY,
        f32::MIN,
        -1.5,
        -f32::MIN_POSITIVE,
        -f32::from_bits(1),
        -0.0,
        0.0,
        f32::from_bits(1),
        f32::MIN_POSITIVE,
        2.5,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(0x7f80_0001),
    ]
    .iter()
    .map(|f| f.to_bits())
    .collect()
}

#[test]
fn u32_patterns_and_lengths() {
    for n in lengths() {
        for (name, v) in patterns(n, n as u64) {
            let a: Vec<u32> = v.iter().map(|&x| x as u32 ^ (x >> 32) as u32).collect();
            let mut want = a.clone();
            want.sort_unstable();
            let mut b = a.clone();
            sort32(&mut b, KeyMap::Unsigned);
            assert_eq!(b, want, "{name} n={n}");
            for route in ROUTES {
                let mut b = a.clone();
                sort_with_map(&mut b, &mut unit_values(n), KeyMap::Unsigned, route, None);
                assert_eq!(b, want, "{route:?} {name} n={n}");
            }
        }
    }
}

#[test]
fn u64_patterns_and_lengths() {
    for n in lengths() {
        for (name, a) in patterns(n, n as u64 + 7) {
            let mut want = a.clone();
            want.sort_unstable();
            let mut b = a.clone();
            sort64(&mut b, KeyMap::Unsigned);
            assert_eq!(b, want, "{name} n={n}");
            for route in ROUTES {
                let mut b = a.clone();
                sort_with_map(&mut b, &mut unit_values(n), KeyMap::Unsigned, route, None);
                assert_eq!(b, want, "{route:?} {name} n={n}");
            }
        }
    }
}

#[test]
fn signed_extremes() {
    for n in [0, 1, 5, 47, 48, 49, 300, 1 << 16, (1 << 17) + 3] {
        let mut s = 99u64 + n as u64;
        let mut a: Vec<i32> = (0..n)
            .map(|i| match i % 5 {
                0 => i32::MIN,
                1 => i32::MAX,
                2 => 0,
                3 => -1,
                _ => rng(&mut s) as i32,
            })
            .collect();
        let mut want = a.clone();
        want.sort_unstable();
        // SAFETY: test-only reinterpretation of i32 as u32 (same layout).
        let bits = unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast(), n) };
        sort32(bits, KeyMap::Signed);
        assert_eq!(a, want, "i32 n={n}");

        let mut b: Vec<i64> = (0..n)
            .map(|i| match i % 4 {
                0 => i64::MIN,
                1 => i64::MAX,
                2 => -1,
                _ => rng(&mut s) as i64 >> (i % 40),
            })
            .collect();
        let mut want = b.clone();
        want.sort_unstable();
        // SAFETY: as above, i64 as u64.
        let bits = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast(), n) };
        sort64(bits, KeyMap::Signed);
        assert_eq!(b, want, "i64 n={n}");
    }
}

#[test]
fn floats_total_order() {
    let sp = specials_f32();
    for n in [
        0,
        2,
        16,
        48,
        49,
        255,
        256,
        257,
        4097,
        1 << 16,
        (1 << 17) + 1,
    ] {
        let mut s = 5u64 + n as u64;
        let mut a: Vec<u32> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    sp[rng(&mut s) as usize % sp.len()]
                } else {
                    rng(&mut s) as u32
                }
            })
            .collect();
        let mut want: Vec<f32> = a.iter().map(|&b| f32::from_bits(b)).collect();
        want.sort_by(f32::total_cmp);
        sort32(&mut a, KeyMap::Float);
        let got: Vec<u32> = a.clone();
        let want: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
        assert_eq!(got, want, "f32 n={n}");
        for route in ROUTES {
            let mut c: Vec<u32> = a.iter().rev().copied().collect();
            sort_with_map(&mut c, &mut unit_values(n), KeyMap::Float, route, None);
            assert_eq!(c, want, "{route:?} f32 n={n}");
        }

        let mut b: Vec<u64> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    (f32::from_bits(sp[rng(&mut s) as usize % sp.len()]) as f64).to_bits()
                } else {
                    rng(&mut s)
                }
            })
            .collect();
        let mut want: Vec<f64> = b.iter().map(|&x| f64::from_bits(x)).collect();
        want.sort_by(f64::total_cmp);
        sort64(&mut b, KeyMap::Float);
        let want: Vec<u64> = want.iter().map(|f| f.to_bits()).collect();
        assert_eq!(b, want, "f64 n={n}");
    }
}

#[test]
fn pairs_are_stable() {
    for n in [0, 1, 30, 48, 49, 300, 1000, 1 << 16, (1 << 17) + 5, 1 << 19] {
        for modulus in [1u64, 3, 256, 1 << 20] {
            let mut s = 1234 + n as u64;
            let keys: Vec<u64> = (0..n).map(|_| rng(&mut s) % modulus).collect();
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
            want.sort_by_key(|p| p.0);

            for route in std::iter::once(Route::BySize).chain(ROUTES) {
                let mut k64 = keys.clone();
                let mut v: Vec<u32> = (0..n as u32).collect();
                sort_with_map(&mut k64, &mut v, KeyMap::Unsigned, route, None);
                let got: Vec<(u64, u32)> = k64.into_iter().zip(v).collect();
                assert_eq!(got, want, "u64 pairs n={n} mod={modulus}");
            }

            // Signed 32-bit keys with negative values, still stable.
            let k32: Vec<u32> = keys.iter().map(|&k| (k as i32 - 100) as u32).collect();
            let mut want32: Vec<(i32, u32)> =
                k32.iter().map(|&k| k as i32).zip(0..n as u32).collect();
            want32.sort_by_key(|p| p.0);
            for route in std::iter::once(Route::BySize).chain(ROUTES) {
                let mut k = k32.clone();
                let mut v: Vec<u32> = (0..n as u32).collect();
                sort_with_map(&mut k, &mut v, KeyMap::Signed, route, None);
                let got: Vec<(i32, u32)> = k.into_iter().map(|k| k as i32).zip(v).collect();
                assert_eq!(got, want32, "i32 pairs n={n} mod={modulus}");
            }
        }
    }
}

#[test]
fn streaming_sizes() {
    // Above STREAM_MIN_BYTES: the MSD scatter and the buckets' last passes stream.
    let n = (STREAM_MIN_BYTES / 4) + 77;
    let mut s = 4242u64;
    let mut a: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32).collect();
    let mut want = a.clone();
    want.sort_unstable();
    // Forced MSD route: the size alone takes it only from MSD_MIN_BYTES.
    sort_with_map(
        &mut a,
        &mut unit_values(n),
        KeyMap::Unsigned,
        Route::Msd,
        None,
    );
    assert!(a == want, "u32 n={n}");

    let n = (STREAM_MIN_BYTES / 8) + 5;
    let mut k: Vec<u64> = (0..n).map(|_| rng(&mut s) % (1 << 40)).collect();
    let mut want: Vec<(u64, u32)> = k.iter().copied().zip(0..n as u32).collect();
    want.sort_by_key(|p| p.0);
    let mut v: Vec<u32> = (0..n as u32).collect();
    sort_with_map(&mut k, &mut v, KeyMap::Unsigned, Route::Msd, None);
    assert!(k.iter().copied().zip(v).eq(want), "u64 pairs n={n}");

    // Buckets far smaller than a write-combining block (odd top bytes, about 8 keys
    // each) between large ones (even top bytes): blocks that start and end inside a
    // bucket, partial blocks at both ends of the large ones.
    let n = (STREAM_MIN_BYTES / 4) + 11;
    let mut a: Vec<u32> = (0..n)
        .map(|i| {
            let low = rng(&mut s) as u32 & 0x00ff_ffff;
            let top = if i % 4096 == 7 {
                1 + 2 * (i % 128)
            } else {
                2 * (i % 128)
            };
            (top as u32) << 24 | low
        })
        .collect();
    let mut want = a.clone();
    want.sort_unstable();
    sort_with_map(
        &mut a,
        &mut unit_values(n),
        KeyMap::Unsigned,
        Route::Msd,
        None,
    );
    assert!(a == want, "tiny buckets n={n}");

    // Sixteen distinct signed keys, each with a top byte of its own: every bucket (1 MiB,
    // below BUCKET_MSD_MIN_BYTES) is constant below its top digit, so its LSD sort runs
    // no pass and only decodes before the streaming copy.
    let n = (STREAM_MIN_BYTES / 4) + 3;
    let distinct: Vec<i32> = (0..16).map(|i| ((i - 8) << 27) | 0x123).collect();
    let mut a: Vec<u32> = (0..n).map(|i| distinct[(i * 7) % 16] as u32).collect();
    let mut want = a.clone();
    want.sort_unstable_by_key(|&b| b as i32);
    sort_with_map(
        &mut a,
        &mut unit_values(n),
        KeyMap::Signed,
        Route::Msd,
        None,
    );
    assert!(a == want, "sixteen signed keys n={n}");
}

#[test]
fn prefix_split_finishes_long_runs() {
    // The top three wide digits each hold one varying bit: the LSD sort keeps them (they
    // span enough nominal bits) and leaves runs of about n / 8 keys that agree on all
    // three to `finish_runs`, which sorts them on the 32 low bits.
    let mut s = 31u64;
    for n in [5000usize, 1 << 16, (1 << 18) + 9] {
        let keys: Vec<u64> = (0..n)
            .map(|_| {
                let r = rng(&mut s);
                (r & 1) << 63 | (r >> 1 & 1) << 50 | (r >> 2 & 1) << 40 | (r >> 32)
            })
            .collect();
        let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| p.0);
        for route in ROUTES {
            let mut k = keys.clone();
            let mut v: Vec<u32> = (0..n as u32).collect();
            sort_with_map(&mut k, &mut v, KeyMap::Unsigned, route, None);
            assert!(
                k.iter().copied().zip(v).eq(want.iter().copied()),
                "{route:?} n={n}"
            );
        }
    }
}

#[test]
fn skewed_prefixes_sort_on_every_digit() {
    // Floats over a few binades: their top digits span many bits but take few values,
    // so `prefixes_tell_apart` refuses the skip and the LSD sorts sort one digit more
    // (2^12 keys, 8-bit digits) or every digit (11-bit digits).
    let mut s = 3u64;
    for n in [1usize << 12, 1 << 14, 1 << 16, (1 << 18) + 5] {
        let keys: Vec<u32> = (0..n)
            .map(|_| ((rng(&mut s) >> 11) as f64 / (1u64 << 53) as f64 * 2e6 - 1e6) as f32)
            .map(f32::to_bits)
            .collect();
        let mut want: Vec<f32> = keys.iter().map(|&b| f32::from_bits(b)).collect();
        want.sort_by(f32::total_cmp);
        let want: Vec<u32> = want.into_iter().map(f32::to_bits).collect();
        for route in std::iter::once(Route::BySize).chain(ROUTES) {
            let mut k = keys.clone();
            sort_with_map(&mut k, &mut unit_values(n), KeyMap::Float, route, None);
            assert!(k == want, "{route:?} n={n}");
        }
    }
}

#[test]
fn lower_first_digit_steps_down_once_then_to_every_digit() {
    let n = 4096;
    let uniform = vec![n / 256; 256];
    let mut skewed = vec![0; 256];
    (skewed[0], skewed[1]) = (n / 2, n / 2);
    let mut asked = Vec::new();
    let count_as = |h: &Vec<usize>, a: usize, b: usize, asked: &mut Vec<(usize, usize)>| {
        asked.push((a, b));
        vec![h.clone(); b - a]
    };
    // Two uniform digits tell 4096 keys apart: nothing more is counted.
    let kept = [uniform.clone(), uniform.clone()];
    let got = lower_first_digit(n, 2, &kept, |a, b| count_as(&uniform, a, b, &mut asked));
    assert_eq!((got.0, asked.len()), (2, 0));
    // A skewed top digit: one uniform digit more is enough.
    let kept = [uniform.clone(), skewed.clone()];
    let got = lower_first_digit(n, 2, &kept, |a, b| count_as(&uniform, a, b, &mut asked));
    assert_eq!(
        (got, &asked[..]),
        ((1, vec![uniform.clone()]), &[(1, 2)][..])
    );
    // Skewed everywhere: every digit, the one below first.
    asked.clear();
    let kept = [skewed.clone(), skewed.clone()];
    let got = lower_first_digit(n, 3, &kept, |a, b| count_as(&skewed, a, b, &mut asked));
    assert_eq!(
        (got, &asked[..]),
        ((0, vec![skewed.clone(); 3]), &[(2, 3), (0, 2)][..])
    );
}

#[test]
fn skewed_buckets_recurse() {
    // 90% of the keys share their top 13 bits: one MSD bucket of over
    // BUCKET_MSD_MIN_BYTES even after the wide split, which takes the MSD route again.
    let n = 1 << 20;
    assert!(n * 9 / 10 * 4 >= BUCKET_MSD_MIN_BYTES);
    assert!(0x0007_ffff_u32.leading_zeros() >= WIDE_MSD_BITS);
    let mut s = 77u64;
    let mut a: Vec<u32> = (0..n)
        .map(|i| {
            let r = rng(&mut s) as u32;
            if i % 10 == 0 {
                r
            } else {
                0x4200_0000 | (r & 0x0007_ffff)
            }
        })
        .collect();
    let mut want = a.clone();
    want.sort_unstable();
    sort_with_map(
        &mut a,
        &mut unit_values(n),
        KeyMap::Unsigned,
        Route::Msd,
        None,
    );
    assert_eq!(a, want);
}

#[test]
fn wide_split_only_for_skewed_top_digits() {
    // u32 keys whose top digit (24..32) leaves a bucket of 2 MiB, a quarter of the keys:
    // the 13 bits from 19 up.
    let big = BUCKET_MSD_MIN_BYTES / 4;
    let len = 4 * big;
    assert_eq!(
        wide_split::<u32, ()>(3, big, len),
        Some(Split {
            shift: 32 - WIDE_MSD_BITS,
            bits: WIDE_MSD_BITS
        })
    );
    assert_eq!(wide_split::<u32, ()>(3, big - 1, len), None);
    // u64 keys count 8 bytes each; a top digit of 1 (bits 8..16) is wide enough.
    assert_eq!(
        wide_split::<u64, ()>(1, big / 2, len / 2),
        Some(Split {
            shift: 16 - WIDE_MSD_BITS,
            bits: WIDE_MSD_BITS
        })
    );
    // The lowest digit has only 8 bits: no wide field fits.
    assert_eq!(wide_split::<u64, ()>(0, big, len), None);
    // Uniform keys: buckets of 2 MiB, but no larger than the mean (2^26 `u64` keys, or
    // pairs of `u32`s), and at most twice it, keep the narrow digit.
    let mean = 1 << 18;
    assert_eq!(wide_split::<u64, ()>(3, mean + 600, 256 * mean), None);
    assert_eq!(wide_split::<u32, u32>(3, mean + 600, 256 * mean), None);
    assert_eq!(wide_split::<u32, ()>(3, 2 * big - 1, 256 * big), None);
}

#[test]
fn large_buckets_are_large_and_skewed() {
    let min = BUCKET_MSD_MIN_BYTES;
    // Skewed: a quarter of 16 MiB.
    assert!(large_bucket(min * 2, min * 8, 256));
    // Below the size, however skewed.
    assert!(!large_bucket(min - 1, min * 2, 256));
    // As large as the size but as every other bucket (uniform keys of 512 MiB, 1 GiB).
    assert!(!large_bucket(min, min * 256, 256));
    assert!(!large_bucket(2 * min + 1, min * 512, 256));
    // Twice the mean and large: skewed enough.
    assert!(large_bucket(2 * min, min * 256, 256));
}

#[test]
fn floats_over_few_binades_take_the_wide_split_stably() {
    // f32 uniform in ±1e6: the top digit (sign and high exponent bits) takes a handful
    // of values, and the largest bucket (about a quarter of the keys) is over
    // BUCKET_MSD_MIN_BYTES, so the MSD pass takes the wide split. Pairs stay stable:
    // the keys are rounded to few distinct values, each repeated many times.
    let n = 1 << 22;
    assert!(n / 4 * 4 >= BUCKET_MSD_MIN_BYTES);
    let mut s = 99u64;
    let keys: Vec<u32> = (0..n)
        .map(|_| {
            let u = (rng(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
            (((u * 2e6 - 1e6) as f32 / 64.0).round() * 64.0).to_bits()
        })
        .collect();
    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
    want.sort_by(|a, b| f32::from_bits(a.0).total_cmp(&f32::from_bits(b.0)));
    let mut k = keys.clone();
    let mut v: Vec<u32> = (0..n as u32).collect();
    sort_with_map(&mut k, &mut v, KeyMap::Float, Route::Msd, None);
    let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
    assert!(got == want, "f32 pairs n={n}");
}

#[test]
fn a_sorter_keeps_its_scratch_and_sorts_alike() {
    let mut sorter = CpuRadixSorter::new();
    // Every route by size: insertion sort, one-thread LSD, split LSD, MSD (2^22 u32 keys).
    for (i, n) in [10usize, 5000, 1 << 18, 1 << 22, 1000]
        .into_iter()
        .enumerate()
    {
        let mut seed = i as u64 + 7;
        let keys: Vec<u32> = (0..n).map(|_| rng(&mut seed) as u32).collect();
        let mut a = keys.clone();
        let mut b = keys.clone();
        sort32(&mut a, KeyMap::Unsigned);
        sorter.sort(&mut b);
        assert_eq!(a, b, "n={n}");
        let mut k: Vec<i64> = keys.iter().map(|&x| (x % 97) as i64 - 48).collect();
        let mut v: Vec<u32> = (0..n as u32).collect();
        sorter.sort_pairs(&mut k, &mut v).unwrap();
        assert!(k
            .windows(2)
            .zip(v.windows(2))
            .all(|(k, v)| k[0] < k[1] || (k[0] == k[1] && v[0] < v[1])));
    }
    // The largest call's scratch stays: 2^22 keys of 4 bytes (pairs of 2^22 i64 keys: 8 +
    // 4 bytes).
    assert!(
        sorter.scratch_bytes() >= (1 << 22) * 12,
        "{}",
        sorter.scratch_bytes()
    );
    assert!(sorter.sort_pairs(&mut [1u32, 2], &mut [0]).is_err());
    sorter.release();
    assert_eq!(sorter.scratch_bytes(), 0);
}

#[test]
fn ordered_inputs_take_the_scan_and_stay_stable() {
    // Descending with ties: keys only are reversed; pairs must not be (equal keys would swap
    // their values), so they take the sort and keep the input order of equal keys.
    let n = 5000u32;
    let desc: Vec<u32> = (0..n).map(|i| (n - i) / 3).collect();
    let mut keys = desc.clone();
    sort32(&mut keys, KeyMap::Unsigned);
    let mut want = desc.clone();
    want.sort_unstable();
    assert_eq!(keys, want);
    let mut keys = desc.clone();
    let mut values: Vec<u32> = (0..n).collect();
    sort_pairs32(&mut keys, &mut values, KeyMap::Unsigned);
    let mut want: Vec<(u32, u32)> = desc.iter().copied().zip(0..n).collect();
    want.sort_by_key(|&(k, _)| k); // stable
    assert_eq!(keys.iter().copied().zip(values).collect::<Vec<_>>(), want);
    // Strictly descending pairs are reversed; ascending ones left alone; signed order.
    let mut keys: Vec<u32> = (0..n).rev().collect();
    let mut values: Vec<u32> = (0..n).map(|i| i * 7).collect();
    sort_pairs32(&mut keys, &mut values, KeyMap::Unsigned);
    assert!(keys.iter().copied().eq(0..n));
    assert!(values.iter().copied().eq((0..n).rev().map(|i| i * 7)));
    let mut signed: Vec<u32> = [-3i32, -1, 0, 2, 9].iter().map(|&x| x as u32).collect();
    let before = signed.clone();
    sort32(&mut signed, KeyMap::Signed);
    assert_eq!(signed, before);
}

#[test]
fn write_combining_blocks_weigh_the_values() {
    // Keys alone: 1 KiB per bucket for 256 buckets, one line each for 8192.
    assert_eq!(wc_block_len::<u32, ()>(256), 256);
    assert_eq!(wc_block_len::<u64, ()>(256), 128);
    assert_eq!(wc_block_len::<u32, ()>(1 << 13), LINE_BYTES / 4);
    // Pairs and records share the same budget, in whole lines of keys.
    for (len, elem, key) in [
        (wc_block_len::<u32, u32>(256), 8, 4),
        (wc_block_len::<u32, [u8; 16]>(256), 20, 4),
        (wc_block_len::<u64, [u8; 32]>(256), 40, 8),
    ] {
        assert!(len.is_power_of_two() && len * key >= LINE_BYTES, "{len}");
        assert!(256 * len * elem <= WC_BUFFER_BYTES, "{len} x {elem}");
    }
}

#[test]
fn records_through_the_msd_route_are_stable() {
    // 16- and 32-byte values (records moved whole), around and above the streaming size.
    for n in [(1 << 17) + 3, STREAM_MIN_BYTES / 20 + 11] {
        let mut s = 99 + n as u64;
        let keys: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32 % 50_000).collect();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| p.0);
        let mut k = keys.clone();
        let mut v: Vec<[u32; 4]> = (0..n as u32).map(|i| [i, !i, i, 7]).collect();
        sort_with_map(&mut k, &mut v, KeyMap::Unsigned, Route::Msd, None);
        let got: Vec<(u32, u32)> = k.iter().copied().zip(v.iter().map(|r| r[0])).collect();
        assert!(got == want, "16-byte records n={n}");
        assert!(
            v.iter().all(|r| r[1] == !r[0] && r[3] == 7),
            "records moved whole"
        );

        let keys: Vec<u64> = keys.iter().map(|&k| (k as u64) << 30 | 5).collect();
        let mut k = keys.clone();
        let mut v: Vec<[u64; 4]> = (0..n as u64).map(|i| [i, !i, i, 7]).collect();
        sort_with_map(&mut k, &mut v, KeyMap::Unsigned, Route::BySize, None);
        let got: Vec<(u64, u32)> = k
            .iter()
            .copied()
            .zip(v.iter().map(|r| r[0] as u32))
            .collect();
        let want64: Vec<(u64, u32)> = want
            .iter()
            .map(|&(k, i)| ((k as u64) << 30 | 5, i))
            .collect();
        assert!(got == want64, "32-byte records n={n}");
        assert!(
            v.iter().all(|r| r[1] == !r[0] && r[3] == 7),
            "records moved whole"
        );
    }
}

#[test]
fn few_runs_are_merged_stably() {
    // Inputs of 2 to 5 runs (5 takes the radix passes): ascending and descending pieces
    // with many ties, keys only and pairs (whose descending runs must be strict), short and
    // long enough for the merge on all threads.
    for n in [70usize, 5000, (1 << 17) + 3] {
        for pieces in 2..=5usize {
            let mut s = n as u64 * 31 + pieces as u64;
            let mut keys: Vec<u32> = Vec::with_capacity(n);
            for p in 0..pieces {
                let len = n * (p + 1) / pieces - n * p / pieces;
                let mut piece: Vec<u32> = (0..len).map(|_| (rng(&mut s) % 1000) as u32).collect();
                piece.sort_unstable();
                if p % 2 == 1 {
                    piece.reverse();
                }
                keys.extend(piece);
            }
            let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
            want.sort_by_key(|p| p.0);
            let mut k = keys.clone();
            let mut v: Vec<u32> = (0..n as u32).collect();
            sort_with_map(&mut k, &mut v, KeyMap::Unsigned, Route::BySize, None);
            let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
            assert_eq!(got, want, "pairs n={n} pieces={pieces}");
            let mut k = keys.clone();
            sort32(&mut k, KeyMap::Unsigned);
            assert!(
                k.iter().copied().eq(want.iter().map(|p| p.0)),
                "n={n} pieces={pieces}"
            );
            // Signed order: runs are found on the encoded keys.
            let mut k: Vec<u32> = keys.iter().map(|&x| (x as i32 - 500) as u32).collect();
            sort32_descending(&mut k, KeyMap::Signed);
            assert!(k.windows(2).all(|w| w[0] as i32 >= w[1] as i32), "n={n}");
        }
    }
    let runs = |keys: &[u32], keys_only| {
        runs::find_runs::<u32, Unsigned>(keys, keys_only).map(|r| r.count)
    };
    assert_eq!(runs(&[], true), Some(0));
    assert_eq!(runs(&[3, 3, 2, 2, 1], true), Some(1));
    assert_eq!(runs(&[3, 3, 2, 2, 1], false), Some(3));
    assert_eq!(runs(&[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2], true), Some(4));
    assert_eq!(runs(&[1, 2, 1, 2, 1, 2, 1, 2, 1, 2], true), None);
    // Long slices are scanned in pieces on all threads, with the serial scan's runs.
    let ascending: Vec<u32> = (0..1u32 << 19).map(|i| i / 3).collect();
    let descending: Vec<u32> = ascending.iter().rev().copied().collect();
    let pipe: Vec<u32> = ascending.iter().chain(&descending).copied().collect();
    assert_eq!(runs(&ascending, false), Some(1));
    assert_eq!(runs(&descending, true), Some(1));
    assert_eq!(runs(&descending, false), None, "ties end strict runs");
    assert_eq!(runs(&pipe, true), Some(2));
    let mut k = pipe.clone();
    sort32(&mut k, KeyMap::Unsigned);
    let mut want = pipe.clone();
    want.sort_unstable();
    assert_eq!(k, want);
    // The quicksorts' check: one run only, several long runs turned away by the sample.
    let one = |keys: &[u32]| runs::find_one_run::<u32, Unsigned>(keys).map(|r| r.count);
    assert_eq!(one(&ascending), Some(1));
    assert_eq!(one(&descending), Some(1));
    assert_eq!(one(&pipe), None);
    let halves: Vec<u32> = ascending.iter().chain(&ascending).copied().collect();
    assert_eq!(one(&halves), None);
    // One key out of order between two sampled keys passes the sample, not the scan.
    let mut bump = ascending.clone();
    let (n, m) = (bump.len(), bump.len() / 2 + 1);
    bump[m] = u32::MAX;
    assert_eq!(one(&bump), None);
    let mut k = bump.clone();
    assert!(!sort32_if_monotonic(&mut k, KeyMap::Unsigned));
    assert_eq!(k, bump, "a slice not in order is left as it was");
    let mut k = descending.clone();
    assert!(sort32_if_monotonic(&mut k, KeyMap::Unsigned));
    assert_eq!(k, ascending);
    assert_eq!(
        one(&descending[n - 100..]),
        Some(1),
        "short slices: the scan alone"
    );
}

/// Every combination of digit widths.
fn configs() -> Vec<DigitWidths> {
    let widths = [DigitWidth::Bits8, DigitWidth::Bits11];
    widths
        .iter()
        .flat_map(|&lsd_digits| {
            widths.iter().map(move |&bucket_digits| DigitWidths {
                lsd_digits,
                bucket_digits,
            })
        })
        .collect()
}

#[test]
fn every_digit_width_sorts_stably_on_every_route() {
    // Lengths around the wide-digit threshold, and MSD buckets past it: keys whose top byte
    // takes two values leave two buckets of about n/2, which sort on wide digits when the
    // configuration says so.
    for config in configs() {
        for n in [
            WIDE_DIGITS_MIN_LEN32 - 1,
            WIDE_DIGITS_MIN_LEN32,
            (1 << 15) + 7,
            (1 << 17) + 3,
        ] {
            let mut s = n as u64 ^ 0x5eed;
            let keys: Vec<u64> = (0..n)
                .map(|i| ((rng(&mut s) >> 9) % 90_000) | ((i as u64 & 1) << 63))
                .collect();
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
            want.sort_by_key(|p| p.0);
            for route in [Route::BySize, Route::Msd] {
                let mut sorter = CpuRadixSorter::with_config(config);
                let (mut k, mut v): (Vec<u64>, Vec<u32>) = (keys.clone(), (0..n as u32).collect());
                sort_with_map(&mut k, &mut v, KeyMap::Unsigned, route, Some(&mut sorter));
                let got: Vec<(u64, u32)> = k.into_iter().zip(v).collect();
                assert!(got == want, "u64 pairs {config:?} n={n} {route:?}");
                let mut k32: Vec<u32> = keys.iter().map(|&k| (k >> 32) as u32 | k as u32).collect();
                let mut want32 = k32.clone();
                want32.sort_unstable();
                let values = &mut unit_values(n);
                sort_with_map(&mut k32, values, KeyMap::Signed, route, Some(&mut sorter));
                want32.sort_by_key(|&k| k as i32);
                assert!(k32 == want32, "i32 keys {config:?} n={n} {route:?}");
            }
        }
        let mut sorter = CpuRadixSorter::with_config(config);
        assert_eq!(sorter.config(), config);
        let mut f: Vec<f32> = (0..40_000)
            .map(|i| ((i * 7919) % 40_009) as f32 - 2e4)
            .collect();
        sorter.sort_descending(&mut f);
        assert!(f.windows(2).all(|w| w[0] >= w[1]), "{config:?}");
    }
}

#[test]
fn the_machine_probe_gives_one_answer_per_process() {
    // Whatever it finds, it finds it once: every later call agrees.
    let first = DigitWidths::machine();
    assert_eq!(DigitWidths::default(), first);
    assert_eq!(CpuRadixSorter::new().config(), first);
    assert_eq!(first.bucket_digits, DigitWidth::Bits8);
}

/// The packed route of pairs of 4-byte keys and values (`msd_packed`).
mod packed {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Sorts `keys` with values `0..n` on `route` (through a kept scratch when `sorter`) and
    /// checks the result against std's stable sort by `map`'s order.
    fn check(keys: &[u32], map: KeyMap, route: Route, sorter: Option<&mut CpuRadixSorter>) {
        let n = keys.len();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| map.encode32(p.0));
        let (mut k, mut v) = (keys.to_vec(), (0..n as u32).collect::<Vec<_>>());
        sort_with_map(&mut k, &mut v, map, route, sorter);
        let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want, "{map:?} {route:?} n={n}");
    }

    #[test]
    fn packed_pairs_are_sorted_stably_on_every_shape() {
        let mut s = 0x9e37_79b9u64;
        for n in [(1 << 17) - 1, 1 << 17, (1 << 18) + 13] {
            let random: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32).collect();
            let shapes: Vec<Vec<u32>> = vec![
                random.clone(),
                vec![7; n],
                random.iter().map(|&r| r % 5).collect(),
                (0..n as u32).map(|i| i.min(n as u32 - i)).collect(),
                (0..n as u32)
                    .map(|i| i.wrapping_mul(0x0100_0193) & 0xff00_00ff)
                    .collect(),
                random.iter().map(|&r| r >> 24).collect(),
            ];
            for keys in &shapes {
                for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
                    check(keys, map, Route::Msd, None);
                }
                check(keys, KeyMap::Unsigned, Route::BySize, None);
                check(
                    keys,
                    KeyMap::Signed,
                    Route::Msd,
                    Some(&mut CpuRadixSorter::new()),
                );
            }
        }
    }

    #[test]
    fn packed_skewed_buckets_take_an_msd_pass_of_their_own() {
        // 90% of the keys share their top 13 bits: a bucket of more than
        // BUCKET_MSD_MIN_BYTES even after the wide split, which is unpacked and sorted by
        // `msd_lsd` in its own words' room; few distinct low bits keep many equal keys.
        let n = 1 << 19;
        assert!(n * 9 / 10 * 8 >= BUCKET_MSD_MIN_BYTES);
        let mut s = 5u64;
        let keys: Vec<u32> = (0..n)
            .map(|i| {
                let r = rng(&mut s) as u32;
                if i % 10 == 0 {
                    r
                } else {
                    0x4200_0000 | (r & 0x0007_f00f)
                }
            })
            .collect();
        check(&keys, KeyMap::Unsigned, Route::Msd, None);
        check(&keys, KeyMap::Float, Route::Msd, None);
    }

    #[test]
    fn packed_streaming_sizes_with_unaligned_byte_values() {
        // Above STREAM_MIN_BYTES (the scatter and the unpacking stream), the values 4-byte
        // arrays that start one byte into an allocation, so no line of them is aligned to
        // their size: they take plain stores.
        let n = STREAM_MIN_BYTES / 8 + 21;
        let mut s = 11u64;
        let keys: Vec<u32> = (0..n).map(|_| rng(&mut s) as u32 % 1_000_003).collect();
        let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| p.0);
        let mut raw = vec![0u8; 4 * n + 1];
        for (i, chunk) in raw[1..].chunks_exact_mut(4).enumerate() {
            chunk.copy_from_slice(&(i as u32).to_le_bytes());
        }
        // SAFETY: `raw[1..]` holds `4n` bytes, which are `n` arrays of 4 bytes (align 1).
        let values: &mut [[u8; 4]] =
            unsafe { std::slice::from_raw_parts_mut(raw.as_mut_ptr().add(1).cast(), n) };
        let mut k = keys.clone();
        sort_with_map(&mut k, values, KeyMap::Unsigned, Route::BySize, None);
        let got: Vec<(u32, u32)> = k
            .into_iter()
            .zip(values.iter().map(|b| u32::from_le_bytes(*b)))
            .collect();
        assert!(got == want, "byte values n={n}");
        check(&keys, KeyMap::Signed, Route::Msd, None);
    }
}

/// The wide field at the top from the start (`wide_from_the_start`: many threads and inputs
/// too large for a test), forced on smaller ones: keys, pairs and packed pairs, every
/// pattern, stably, a skewed bucket with an MSD pass of its own included.
#[test]
fn the_wide_start_sorts_every_pattern_stably() {
    tests_force::WIDE_START.with(|f| f.set(true));
    let mut s = 99u64;
    let skewed: Vec<u64> = (0..1 << 19)
        .map(|i| {
            let r = rng(&mut s);
            if i % 10 == 0 {
                r
            } else {
                0x4200_0000_0000_0000 | (r & 0x0000_00ff_f00f_0f0f)
            }
        })
        .collect();
    let mut inputs = patterns((1 << 17) + 3, 7);
    inputs.extend(patterns(1 << 18, 8));
    inputs.push(("skewed", skewed));
    for (name, keys) in inputs {
        let n = keys.len();
        // The plan splits on the surveyed wide field wherever the top digit varies.
        let (mut k, mut units) = (keys.clone(), vec![(); n]);
        let (parallel, chunks) = msd_chunks(n);
        let buf = Buf {
            k: k.as_mut_ptr(),
            v: units.as_mut_ptr(),
        };
        // SAFETY: `k` and `units` hold `n` elements; `chunks` cut `0..n`.
        let plan = unsafe { plan::<u64, (), Unsigned>(buf, n, 8, false, parallel, &chunks) };
        let top_varies = keys.iter().any(|&x| x >> 56 != keys[0] >> 56);
        if let (Some(plan), true) = (plan, top_varies) {
            assert_eq!(plan.split.bits, WIDE_START_BITS, "{name}");
        }
        // `u64` pairs and signed keys.
        let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| p.0);
        let mut v: Vec<u32> = (0..n as u32).collect();
        sort_with_map(&mut k, &mut v, KeyMap::Unsigned, Route::Msd, None);
        let got: Vec<(u64, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want, "u64 pairs {name} n={n}");
        let mut k = keys.clone();
        sort_with_map(&mut k, &mut vec![(); n], KeyMap::Signed, Route::Msd, None);
        let mut want: Vec<i64> = keys.iter().map(|&x| x as i64).collect();
        want.sort_unstable();
        assert!(k.iter().map(|&x| x as i64).eq(want), "i64 {name} n={n}");
        // Packed pairs of `u32` keys (the high halves: the skew stays at the top).
        let k32: Vec<u32> = keys.iter().map(|&x| (x >> 32) as u32).collect();
        let mut want: Vec<(u32, u32)> = k32.iter().copied().zip(0..n as u32).collect();
        want.sort_by_key(|p| KeyMap::Float.encode32(p.0));
        let (mut k, mut v) = (k32, (0..n as u32).collect::<Vec<_>>());
        sort_with_map(&mut k, &mut v, KeyMap::Float, Route::Msd, None);
        let got: Vec<(u32, u32)> = k.into_iter().zip(v).collect();
        assert!(got == want, "packed f32 pairs {name} n={n}");
    }
    tests_force::WIDE_START.with(|f| f.set(false));
}

/// `count_field` gives std's counts whether it spreads neighbours over four tables (narrow
/// fields, long slices) or tests for four equal fields (wide fields, short slices): every
/// pattern, lengths around the spread's minimum and the quads' remainder.
#[test]
fn counting_matches_a_plain_count_on_every_shape() {
    for bits in [8u32, 11] {
        let buckets = 1usize << bits;
        for n in [0, 1, 3, 4, 5, 1023, 1024, 1025, 1027, 4096, 5003] {
            for (name, keys) in patterns(n, n as u64 + 3) {
                let field = |k: u64| (k >> 3) as usize & (buckets - 1);
                let mut want = vec![0u32; buckets];
                keys.iter().for_each(|&k| want[field(k)] += 1);
                // Counts already in the table are added to, not replaced.
                let mut got = vec![1u32; buckets];
                // SAFETY: `field` masks to below `buckets`, the table's length.
                unsafe { super::count::count_field(&keys, got.as_mut_ptr(), buckets, field) };
                let got: Vec<u32> = got.iter().map(|c| c - 1).collect();
                assert_eq!(got, want, "{bits}-bit field, {name}, n = {n}");
            }
        }
    }
}
