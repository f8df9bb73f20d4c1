//! Named crossover sizes for `auto`, each with the measurement behind it.
//!
//! `preference` turns them into an ordered list of backend names per workload and length;
//! `auto` takes the first one that is usable here. The CPU figures are best-of-N times of
//! one call on one thread, random keys, a fresh copy of the input in every call, on a 2-core
//! AMD EPYC Zen 4 VM with AVX-512 (1 MiB L2 per core, 32 MiB L3; BENCHMARKS.md, "Auto's
//! crossovers", which names the command). The key crossovers were measured again after the
//! quicksort's base case was unrolled into registers (`RAYON_NUM_THREADS=1 sortnet bench
//! --stat best`, the machine under load from other builds: best of the runs). Where the
//! radix sort's speed depends on the cache (32-bit keys past the L2), the pick follows the
//! L2 size of the [`Machine`] passed in ([`quicksort_beyond_cache`], with figures from two
//! and 16 threads of the Intel Xeon host of the GPU machine): `auto` passes this machine's,
//! the tests every machine class we meet. On CPUs that run AVX-512 at full width (the Intel
//! Xeon host) `avx512`'s quicksort takes keys at every length ([`WIDE_AVX512_KEYS`]).
//!
//! These rules are what `auto` follows unless a calibration profile measured on this machine
//! is saved (`sortnet calibrate`, `calibration`): for integer keys from 256 elements, such a
//! profile goes before the quicksort/radix crossovers below; float keys and the shortest
//! slices follow the rules always.

use super::sort_backend::Workload;
use crate::keys::key::{KeyMap, KeyWidth};

/// The facts about the machine that the built-in routes read. They are parameters of the
/// rules, not read inside them, so that the tests run each rule for every machine class
/// (`classes::ALL`: 512 KiB, 1 MiB and 2 MiB of L2) and not only for the one they run on.
/// Which ISAs exist needs no field (nor the GPU): that decides which backends exist, and
/// `auto` takes the first of a preference list that does; how wide AVX-512 runs does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Machine {
    /// Bytes of one core's private L2 cache.
    pub(crate) l2_bytes: usize,
    /// The CPU has AVX-512 and runs it on full 512-bit datapaths (Intel's AVX-512 cores,
    /// AMD's from Zen 5), where `avx512`'s quicksort leads radix at every length
    /// ([`WIDE_AVX512_KEYS`]); false without AVX-512 and on AMD Zen 4, which splits each
    /// 512-bit operation in two and where the crossovers below were measured.
    pub(crate) wide_avx512: bool,
}

impl Machine {
    /// This machine, as detected once per process (`keys::cache`, CPUID).
    pub(crate) fn here() -> Machine {
        Machine {
            l2_bytes: crate::keys::cache::l2_bytes(),
            wide_avx512: wide_avx512_here(),
        }
    }
}

/// Whether this CPU has AVX-512 at full width: every x86-64 CPU with AVX-512F but AMD's
/// family 19h (Zen 4; Zen 3, the same family, has no AVX-512).
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn wide_avx512_here() -> bool {
    use std::arch::x86_64::__cpuid;
    if !std::arch::is_x86_feature_detected!("avx512f") {
        return false;
    }
    // `__cpuid` is an unsafe function up to the stated MSRV and safe in newer Rust, where
    // the block is redundant.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86-64 CPU; leaves 0 and 1 always exist.
    let (vendor, signature) = unsafe {
        let v = __cpuid(0);
        ([v.ebx, v.edx, v.ecx], __cpuid(1).eax)
    };
    let amd = vendor == [0x6874_7541, 0x6974_6e65, 0x444d_4163]; // "AuthenticAMD"
    let family = ((signature >> 8) & 0xF) + ((signature >> 20) & 0xFF);
    !(amd && family == 0x19)
}

/// Not x86-64, or under Miri (no CPUID): no AVX-512.
#[cfg(any(not(target_arch = "x86_64"), miri))]
fn wide_avx512_here() -> bool {
    false
}

/// On a CPU with full-width AVX-512 ([`Machine::wide_avx512`]) keys of every type and
/// length go to `avx512`'s quicksort (after a hardware GPU in its window), for it led
/// `avx2` and `radix` at every power of two from 2^4 to 2^20 there. Intel Xeon host of the
/// GPU machine (2 MiB L2), one thread, ns per call, avx512 / radix (BENCHMARKS.md, "Every
/// key type against std"): u32 2^16 198 / 361 µs, 2^18 0.90 / 2.06 ms; u64 2^10 4.2 /
/// 6.7 µs, 2^20 8.1 / 11.0 ms; f64 2^16 0.43 / 0.69 ms; and at 16 / 64 32-bit keys 11 / 45 ns
/// against avx2's 14 / 75 (which goes first there on Zen 4: [`KEYS32_AVX512_MIN_LEN`]). The
/// Xeon host of the H100 machine measured the same order at every cell (2026-12-07). On the
/// 16 threads of the H200 machine's host `avx512` ran u64 2^20-2^26 at 619-942 M keys/s against
/// radix's 548-734 (BENCHMARKS.md, "16 threads against IPS²Ra").
pub(crate) const WIDE_AVX512_KEYS: &[&str] = &KEYS_SIMD;

/// 32-bit keys from which `radix` beats the vectorised quicksort of `avx512`: avx512 /
/// radix, M keys/s, 2^13 389 / 273, 2^14 360 / 325, 2^15 333 / 348, 2^16 308 / 346.
pub(crate) const KEYS32_RADIX_MIN_LEN: usize = 24 << 10;

/// 64-bit keys from which `radix` beats the vectorised quicksort of `avx512`: avx512 /
/// radix 256 keys 1.15 / 1.59 µs, 1000 keys 6.38 / 5.54 µs; radix skips the digits below
/// those that tell the keys apart, which is what brings it this low.
///
/// Measured again with the unrolled base case, M keys/s: 512 keys 219 / 175, 1024 keys
/// 214 / 236.
pub(crate) const KEYS64_RADIX_MIN_LEN: usize = 768;

/// `f32` keys from which `radix` beats the vectorised quicksort of `avx512`. Floats cost
/// radix one digit more than integers of the same length (their top digits, sign and
/// exponent, take few values): keys uniform in ±1e6, avx512 / radix 2^12 keys 19.3 /
/// 21.8 µs, 2^13 keys 41.9 / 39.6 µs (`u32` at 2^12: 18.8 / 12.6 µs).
///
/// With the unrolled base case avx512 wins further: 2^15 314 / 281, 2^16 301 / 279 M keys/s.
pub(crate) const KEYS32_FLOAT_RADIX_MIN_LEN: usize = 1 << 17;

/// `f64` keys from which `radix` beats the vectorised quicksort of `avx512`, as
/// [`KEYS32_FLOAT_RADIX_MIN_LEN`]. AMD EPYC (Zen 4), one thread, avx512 / radix, M keys/s
/// (2026-11-27, `sortnet bench --no-profile --stat best`, three rounds in one run): 2^13
/// 252 / 201-205, 2^14 240-241 / 226-232, 2^15 224-225 / 245-248. (With the quicksort of
/// a year before, radix passed it at 1024 keys.)
pub(crate) const KEYS64_FLOAT_RADIX_MIN_LEN: usize = 24 << 10;

/// 32-bit keys from which `radix` beats the vectorised quicksort of `avx2`, for CPUs
/// without AVX-512: avx2 / radix 512 keys 2.17 / 2.57 µs, 640 keys 2.95-3.08 / 2.86-2.89
/// µs, 768 keys 3.48-3.61 / 3.15 µs.
///
/// With the unrolled base case: 2^11 344 / 294, 2^12 311 / 312, 2^13 292 / 273 M keys/s.
pub(crate) const KEYS32_AVX2_RADIX_MIN_LEN: usize = 4096;

/// 64-bit keys from which `radix` beats the vectorised quicksort of `avx2`: avx2 / radix
/// 128 keys 884 / 1126 ns, 192 keys 1356-1399 / 1385-1396 ns (a tie), 256 keys 1831 /
/// 1598-1980 ns. Below [`KEYS64_SIMD_MIN_LEN`] radix's insertion sort wins again.
///
/// With the unrolled base case: 512 keys 180 / 175, 1024 keys 164 / 236 M keys/s.
pub(crate) const KEYS64_AVX2_RADIX_MIN_LEN: usize = 512;

/// 32-bit keys from which `avx512`'s quicksort beats `avx2`'s where AVX-512 is split in two
/// (Zen 4; at full width `avx512` leads from 16 keys: [`WIDE_AVX512_KEYS`]): up to 64 keys
/// avx2's whole-slice register network is cheaper than avx512's 16-key rows and their merge. avx2 / avx512: 8 keys 18 / 53 ns, 64 keys 109 / 169 ns, 72 keys 290 /
/// 284 ns, 96 keys 336 / 296 ns.
pub(crate) const KEYS32_AVX512_MIN_LEN: usize = 65;

/// 64-bit keys from which `avx2`'s quicksort beats `radix`, which sorts slices this short
/// by insertion sort (`avx512` goes first at every length: on the Intel Xeon host, one
/// thread, 16 `u64` / `i64` / `f64` keys took 18 / 17 / 22 ns against radix's 81 / 87 / 91
/// and std's 59 / 44 / 62; BENCHMARKS.md, "Every key type against std"). AMD EPYC (Zen 4): avx2 / avx512 / radix 16 keys 72 / 65 / 49 ns, 20 keys 102 / 113 / 77
/// ns, 24 keys 105 / 113 / 101 ns, 32 keys 107 / 110 / 152 ns.
pub(crate) const KEYS64_SIMD_MIN_LEN: usize = 24;

/// `f32` keys from which `radix` beats the vectorised quicksort of `avx2`, for CPUs without
/// AVX-512: `avx2` compares floats by their signed image, as `avx512` does, and stays ahead
/// of radix as long. AMD EPYC (Zen 4), one thread, `SORTNET_NO_AVX512=1`, avx2 / radix, M
/// keys/s: 2^12 451 / 286, 2^15 381-387 / 286-289, 2^16 364-365 / 295-296, 2^17 341 /
/// 129-130 (2026-11-27, `sortnet bench --no-profile --stat best`); radix at 2^16 had been
/// `auto`'s pick there.
pub(crate) const KEYS32_FLOAT_AVX2_RADIX_MIN_LEN: usize = KEYS32_FLOAT_RADIX_MIN_LEN;

/// `f64` keys from which `radix` beats the vectorised quicksort of `avx2`: as long as it
/// beats `avx512`'s, since `avx2` sorts slices without NaN and -0.0 by float compares
/// (`vminpd`/`vmaxpd`), 1.4-1.6x as fast as by their integer image (Xeon build machine).
///
/// - Xeon host of the H200 machine, one thread, AVX-512 off, `sortnet bench --no-profile
///   --workload f64 --backends avx2,radix`, three rounds: avx2 1.0-1.47x radix at every
///   power of two from 2^10 to 2^24 (2026-11-28).
/// - AMD EPYC (Zen 4), by the integer image before the float compares: avx2 / radix 1024
///   keys 234 / 193-206, 1536 keys 226 / 226-227, 2048 keys 218 / 238 M keys/s. The float
///   compares were not timed there; at 1.4x, and 4% slower per doubling as by the image, they pass
///   radix's 245 M keys/s (2^15) near this length.
///
/// A calibration profile times `f64` keys where `avx2` is the widest quicksort
/// (`calibration`, the `floats64` row), and rules past this length where it has one.
pub(crate) const KEYS64_FLOAT_AVX2_RADIX_MIN_LEN: usize = KEYS64_FLOAT_RADIX_MIN_LEN;

// A narrower ISA never beats radix where a wider one does not: `preference` relies on it.
const _: () = assert!(KEYS32_AVX2_RADIX_MIN_LEN <= KEYS32_RADIX_MIN_LEN);
const _: () = assert!(KEYS64_AVX2_RADIX_MIN_LEN <= KEYS64_RADIX_MIN_LEN);
const _: () = assert!(KEYS32_FLOAT_AVX2_RADIX_MIN_LEN <= KEYS32_FLOAT_RADIX_MIN_LEN);
const _: () = assert!(KEYS64_FLOAT_AVX2_RADIX_MIN_LEN <= KEYS64_FLOAT_RADIX_MIN_LEN);
const _: () = assert!(KEYS32_RADIX_MIN_LEN <= KEYS32_FLOAT_RADIX_MIN_LEN);
const _: () = assert!(KEYS64_RADIX_MIN_LEN <= KEYS64_FLOAT_RADIX_MIN_LEN);

// `portable` sorts keys (any target, `wide` vectors) but comes after `radix` in every key
// list: built for baseline x86-64, `wide`'s u32 min/max and u64 compares are per-lane
// scalar code (they need SSE4.1/4.2), and it was 2 to 12 times slower than `radix` from 16
// to 4096 keys (BENCHMARKS.md, "CPU key sort, one thread"). It stays usable by name. Not
// measured on aarch64 (NEON), where `wide` has real 128-bit lanes.

// `vulkan-bitonic` is in no list: end to end from host slices (transfers included) it was
// slower than `radix` at every size measured on an NVIDIA H200 host (u32 keys 2^20 to
// 2^26), and its pair sort is not stable. It stays usable by name.

/// The window of lengths in which `auto` sends a key sort or a pair sort (either key width)
/// to `vulkan-radix` on a hardware GPU, end to end from a host slice (upload, sort,
/// download): from this many elements ...
///
/// On the NVIDIA H200 host (16 cores) `vulkan-radix` beat `radix` from 2^16 to 2^17
/// elements on (BENCHMARKS.md, "Auto's crossovers", with the command); the window starts
/// later because the 2-core build machine's `radix` is faster at small sizes than that
/// host's: 2^17 `u32` keys take 0.40 ms there against the GPU's 0.48 ms end to end, 2^18
/// keys 0.97 ms against 0.48 ms. Software drivers are never picked (`auto` checks).
pub(crate) const GPU_RADIX_MIN_KEYS: usize = 1 << 18;

/// ... up to (not including) this many elements: beyond 2^28 64-bit keys no longer fit one
/// storage buffer on NVIDIA (4 GiB), and no size past 2^28 was measured. (A sort the GPU
/// refuses, or fails, falls back to the CPU in `auto`.)
pub(crate) const GPU_RADIX_END: usize = 1 << 29;

const GPU_WINDOW: std::ops::Range<usize> = GPU_RADIX_MIN_KEYS..GPU_RADIX_END;

/// The backends whose pair sorts are stable, the only ones `auto` sends pairs to, whatever a
/// calibration profile says: `sort_pairs` through `auto` is stable by contract.
pub(crate) static STABLE_PAIRS: [&str; 2] = ["radix", "vulkan-radix"];

/// The preference lists, one static each so that `auto` can resolve every list once
/// ([`LISTS`]) instead of looking names up on every call.
static NIBBLES: [&str; 5] = ["avx512", "avx2", "portable", "lut", "scalar"];
static KEYS_TINY32: [&str; 4] = ["avx2", "avx512", "radix", "portable"];
static KEYS_TINY64: [&str; 4] = ["avx512", "radix", "avx2", "portable"];
static KEYS_SIMD: [&str; 4] = ["avx512", "avx2", "radix", "portable"];
static KEYS_AVX512_THEN_RADIX: [&str; 4] = ["avx512", "radix", "avx2", "portable"];
static KEYS_GPU: [&str; 5] = ["vulkan-radix", "radix", "avx512", "avx2", "portable"];
static KEYS_GPU_THEN_SIMD: [&str; 5] = ["vulkan-radix", "avx512", "avx2", "radix", "portable"];
static KEYS_RADIX: [&str; 4] = ["radix", "avx512", "avx2", "portable"];
static PAIRS: [&str; 1] = ["radix"];
static PAIRS_GPU: [&str; 2] = ["vulkan-radix", "radix"];

/// Whether 32-bit keys of `len` go to the vectorised quicksort although they are past
/// radix's crossover: once the keys are larger than the `machine`'s L2, the
/// radix sort's passes leave it (an MSD pass, or LSD passes from L3) while the quicksort's
/// partitions shrink into it.
///
/// - One thread on the AMD EPYC (1 MiB L2), avx512 / radix, M keys/s: 2^18 280 / 176, 2^19
///   251 / 184, 2^20 234 / 168, 2^22 148-171 / 126-143, 2^24 108 / 95; `u64` keys stay with
///   radix (2^19 116 / 162, 2^22 66 / 85).
/// - Several threads, where the quicksort splits its ranges over them as radix does its
///   buckets: two threads of the Xeon host of the H200 machine (2 MiB L2), 2^22 / 2^24
///   340-342 / 254-268 against 141-159 / 137-153, and 16 threads, 2^20 / 2^22 / 2^24
///   940-1029 / 1130-1285 / 984-1112 against 631-804 / 804-829 / 854-908 (2^26 701-762
///   against 759-796, within 8%). On two threads of the AMD EPYC the quicksort on one of
///   them already beat radix on both at 2^24 (1.3x in three runs). `avx2`'s quicksort
///   splits its ranges the same way; on several threads without AVX-512 it was not timed.
///
/// A calibration profile overrides this rule where it times one thread past the
/// L2 (`calibration::ONE_THREAD_PROBE`), and on several threads up to
/// `calibration::THREADS_PROBE`.
pub(crate) fn quicksort_beyond_cache(width: KeyWidth, len: usize, machine: Machine) -> bool {
    width == KeyWidth::W32 && len.saturating_mul(4) >= machine.l2_bytes
}

/// Every list [`preference`] returns.
pub(crate) static LISTS: [&[&str]; 10] = [
    &NIBBLES,
    &KEYS_TINY32,
    &KEYS_TINY64,
    &KEYS_SIMD,
    &KEYS_AVX512_THEN_RADIX,
    &KEYS_GPU,
    &KEYS_GPU_THEN_SIMD,
    &KEYS_RADIX,
    &PAIRS,
    &PAIRS_GPU,
];

/// Backends `auto` tries for `workload` at `len` elements whose keys map to unsigned order
/// by `map` on `machine`, best first: one of [`LISTS`].
pub(crate) fn preference(
    workload: Workload,
    len: usize,
    map: KeyMap,
    machine: Machine,
) -> &'static [&'static str] {
    match workload {
        // The same order at every length (auto resolves it once, see `Auto::nibbles_cpu`): each
        // SIMD kernel sorts its own short inputs and tails (a few words by `lut`, short ones
        // by narrower blocks), so a wider kernel is within a few percent of a narrower one
        // at every length (BENCHMARKS.md, "CPU nibble sort").
        Workload::Nibbles => &NIBBLES,
        Workload::Keys(_) if machine.wide_avx512 => {
            if GPU_WINDOW.contains(&len) {
                &KEYS_GPU_THEN_SIMD
            } else {
                WIDE_AVX512_KEYS
            }
        }
        Workload::Keys(width) => {
            let float = map == KeyMap::Float;
            let (avx512_to, avx2_to) = match (width, float) {
                (KeyWidth::W32, false) => (KEYS32_RADIX_MIN_LEN, KEYS32_AVX2_RADIX_MIN_LEN),
                (KeyWidth::W32, true) => {
                    (KEYS32_FLOAT_RADIX_MIN_LEN, KEYS32_FLOAT_AVX2_RADIX_MIN_LEN)
                }
                (KeyWidth::W64, false) => (KEYS64_RADIX_MIN_LEN, KEYS64_AVX2_RADIX_MIN_LEN),
                (KeyWidth::W64, true) => {
                    (KEYS64_FLOAT_RADIX_MIN_LEN, KEYS64_FLOAT_AVX2_RADIX_MIN_LEN)
                }
            };
            if width == KeyWidth::W32 && len < KEYS32_AVX512_MIN_LEN {
                &KEYS_TINY32
            } else if width == KeyWidth::W64 && len < KEYS64_SIMD_MIN_LEN {
                &KEYS_TINY64
            } else if len < avx2_to {
                &KEYS_SIMD
            } else if quicksort_beyond_cache(width, len, machine) {
                // Either quicksort before radix (AVX2 f32 at 2^20 one thread: avx2 163 /
                // radix 68 M keys/s), after a hardware GPU (which beat radix on all 16
                // threads of the H200 host 1.6-3.3x in the window; radix's lead over the
                // quicksort there is at most 1.3x).
                if GPU_WINDOW.contains(&len) {
                    &KEYS_GPU_THEN_SIMD
                } else {
                    &KEYS_SIMD
                }
            } else if len < avx512_to {
                // On a CPU without AVX-512 radix goes first from here.
                &KEYS_AVX512_THEN_RADIX
            } else if GPU_WINDOW.contains(&len) {
                &KEYS_GPU
            } else {
                &KEYS_RADIX
            }
        }
        // Only radix sorts pairs on the CPU (stable, values follow their keys).
        Workload::Pairs(_) if GPU_WINDOW.contains(&len) => &PAIRS_GPU,
        Workload::Pairs(_) => &PAIRS,
    }
}

/// The machine classes the routing tests run every rule for: the L2 sizes, ISAs and GPUs
/// of the machines sortnet is built, tested and measured on (AMD Zen 3 with AVX2 only and
/// 512 KiB of L2, AMD Zen 4 with AVX-512 and 1 MiB, the Intel Xeon hosts of the GPU machines
/// with 2 MiB), crossed with every CPU backend set and with and without a hardware GPU.
#[cfg(test)]
pub(crate) mod classes {
    use super::Machine;

    /// One simulated machine: its facts, and the key backends it has.
    #[derive(Clone, Debug)]
    pub(crate) struct Class {
        pub(crate) machine: Machine,
        /// The CPU key backends present, best ISA first.
        pub(crate) cpu: &'static [&'static str],
        pub(crate) gpu: bool,
    }

    impl Class {
        /// Every key backend of the class, the GPU's included.
        pub(crate) fn names(&self) -> Vec<&'static str> {
            let mut names = self.cpu.to_vec();
            if self.gpu {
                names.push("vulkan-radix");
            }
            names
        }

        /// Its widest vectorised quicksort, if it has one.
        pub(crate) fn quicksort(&self) -> Option<&'static str> {
            self.cpu
                .iter()
                .copied()
                .find(|n| ["avx512", "avx2"].contains(n))
        }
    }

    pub(crate) const L2_BYTES: [usize; 3] = [512 << 10, 1 << 20, 2 << 20];
    pub(crate) const AVX512: &[&str] = &["avx512", "avx2", "portable", "radix"];
    pub(crate) const AVX2: &[&str] = &["avx2", "portable", "radix"];
    /// aarch64, or x86-64 without AVX2.
    pub(crate) const NO_SIMD_SORT: &[&str] = &["portable", "radix"];

    /// Every class: 3 L2 sizes x 4 CPUs (AVX-512 at full width, AVX-512 split in two,
    /// AVX2 only, no SIMD sort) x GPU or not.
    pub(crate) fn all() -> Vec<Class> {
        let mut all = Vec::new();
        for l2_bytes in L2_BYTES {
            for (cpu, wide_avx512) in [
                (AVX512, true),
                (AVX512, false),
                (AVX2, false),
                (NO_SIMD_SORT, false),
            ] {
                for gpu in [false, true] {
                    all.push(Class {
                        machine: Machine {
                            l2_bytes,
                            wide_avx512,
                        },
                        cpu,
                        gpu,
                    });
                }
            }
        }
        all
    }
}

#[cfg(test)]
mod key_tests {
    use super::classes::{self, Class};
    use super::*;

    /// The first backend of `class` in the preference at `len` for keys mapped by `map`.
    fn first(class: &Class, width: KeyWidth, len: usize, map: KeyMap) -> &'static str {
        preference(Workload::Keys(width), len, map, class.machine)
            .iter()
            .copied()
            .find(|n| class.names().contains(n))
            .expect("a key list names every CPU key backend")
    }

    /// The integer and float crossovers of `width` to radix: (avx512's, avx2's) for each.
    fn crossovers(width: KeyWidth, map: KeyMap) -> (usize, usize) {
        match (width, map == KeyMap::Float) {
            (KeyWidth::W32, false) => (KEYS32_RADIX_MIN_LEN, KEYS32_AVX2_RADIX_MIN_LEN),
            (KeyWidth::W32, true) => (KEYS32_FLOAT_RADIX_MIN_LEN, KEYS32_FLOAT_AVX2_RADIX_MIN_LEN),
            (KeyWidth::W64, false) => (KEYS64_RADIX_MIN_LEN, KEYS64_AVX2_RADIX_MIN_LEN),
            (KeyWidth::W64, true) => (KEYS64_FLOAT_RADIX_MIN_LEN, KEYS64_FLOAT_AVX2_RADIX_MIN_LEN),
        }
    }

    /// Below their crossover keys go to the widest quicksort, from it to radix (the GPU's
    /// window starts far later); without a quicksort, radix at every length (portable is
    /// slower, see above). 32-bit keys larger than the L2 are the exception, below.
    #[test]
    fn every_machine_class_sends_keys_to_the_quicksort_until_its_crossover() {
        for class in classes::all()
            .into_iter()
            .filter(|c| !c.machine.wide_avx512)
        {
            for width in [KeyWidth::W32, KeyWidth::W64] {
                for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
                    let (avx512_to, avx2_to) = crossovers(width, map);
                    let to = match class.quicksort() {
                        Some("avx512") => avx512_to,
                        _ => avx2_to,
                    };
                    let case = format!("{class:?} {width:?} {map:?}");
                    let Some(quicksort) = class.quicksort() else {
                        for len in [0, 1, 100, to, GPU_RADIX_MIN_KEYS - 1] {
                            assert_eq!(first(&class, width, len, map), "radix", "{case} {len}");
                        }
                        continue;
                    };
                    let past = if width == KeyWidth::W32 && to * 4 >= class.machine.l2_bytes {
                        quicksort
                    } else {
                        "radix"
                    };
                    assert_eq!(first(&class, width, 100, map), quicksort, "{case}");
                    assert_eq!(first(&class, width, to - 1, map), quicksort, "{case}");
                    assert_eq!(first(&class, width, to, map), past, "{case}");
                }
            }
        }
    }

    /// Full-width AVX-512: `avx512` at every length, but inside a hardware GPU's window.
    #[test]
    fn every_machine_class_with_wide_avx512_sends_keys_to_avx512_at_every_length() {
        for class in classes::all().into_iter().filter(|c| c.machine.wide_avx512) {
            for width in [KeyWidth::W32, KeyWidth::W64] {
                for map in [KeyMap::Unsigned, KeyMap::Signed, KeyMap::Float] {
                    let case = format!("{class:?} {width:?} {map:?}");
                    let (avx512_to, _) = crossovers(width, map);
                    for len in [
                        0,
                        16,
                        KEYS32_AVX512_MIN_LEN - 1,
                        KEYS64_SIMD_MIN_LEN - 1,
                        avx512_to,
                        class.machine.l2_bytes,
                        GPU_RADIX_MIN_KEYS,
                        GPU_RADIX_END,
                        1 << 30,
                    ] {
                        let want = if class.gpu && GPU_WINDOW.contains(&len) {
                            "vulkan-radix"
                        } else {
                            "avx512"
                        };
                        assert_eq!(first(&class, width, len, map), want, "{case} {len}");
                    }
                }
            }
        }
    }

    /// The stated exception: 32-bit keys as large as the L2 or larger go to the quicksort
    /// (after a hardware GPU inside its window), 64-bit keys stay with radix.
    #[test]
    fn every_machine_class_sends_32_bit_keys_past_its_l2_to_the_quicksort() {
        for class in classes::all()
            .into_iter()
            .filter(|c| !c.machine.wide_avx512)
        {
            let Some(quicksort) = class.quicksort() else {
                continue;
            };
            let l2_keys = class.machine.l2_bytes / 4;
            for map in [KeyMap::Unsigned, KeyMap::Float] {
                let case = format!("{class:?} {map:?}");
                let (avx512_to, avx2_to) = crossovers(KeyWidth::W32, map);
                let to = if quicksort == "avx512" {
                    avx512_to
                } else {
                    avx2_to
                };
                if l2_keys > to {
                    let want = if class.gpu && GPU_WINDOW.contains(&(l2_keys - 1)) {
                        "vulkan-radix"
                    } else {
                        "radix"
                    };
                    assert_eq!(
                        first(&class, KeyWidth::W32, l2_keys - 1, map),
                        want,
                        "{case}"
                    );
                }
                for len in [l2_keys, 4 * l2_keys, GPU_RADIX_END] {
                    let want = if class.gpu && GPU_WINDOW.contains(&len) {
                        "vulkan-radix"
                    } else {
                        quicksort
                    };
                    assert_eq!(first(&class, KeyWidth::W32, len, map), want, "{case} {len}");
                }
                for len in [l2_keys, 4 * l2_keys] {
                    let want = if class.gpu && GPU_WINDOW.contains(&len) {
                        "vulkan-radix"
                    } else {
                        "radix"
                    };
                    assert_eq!(first(&class, KeyWidth::W64, len, map), want, "{case} {len}");
                }
            }
        }
        // The classes' expectations in figures: 2^17 `f32` keys (512 KiB) are radix's on a
        // 1 MiB L2 and the quicksort's on 512 KiB.
        let f32_radix = |l2_bytes| {
            let class = Class {
                machine: Machine {
                    l2_bytes,
                    wide_avx512: false,
                },
                cpu: classes::AVX2,
                gpu: false,
            };
            first(
                &class,
                KeyWidth::W32,
                KEYS32_FLOAT_RADIX_MIN_LEN,
                KeyMap::Float,
            )
        };
        assert_eq!(f32_radix(512 << 10), "avx2");
        assert_eq!(f32_radix(1 << 20), "radix");
    }

    #[test]
    fn every_machine_class_sends_the_shortest_slices_to_the_cheapest_small_sort() {
        for class in classes::all()
            .into_iter()
            .filter(|c| !c.machine.wide_avx512)
        {
            let case = format!("{class:?}");
            let w32 = |len| first(&class, KeyWidth::W32, len, KeyMap::Unsigned);
            let w64 = |len| first(&class, KeyWidth::W64, len, KeyMap::Unsigned);
            match class.quicksort() {
                Some(quicksort) => {
                    // avx2's whole-slice register network is the cheapest up to 64 keys,
                    // even where avx512 exists; below 24 64-bit keys avx512, else radix's
                    // insertion sort.
                    assert_eq!(w32(0), "avx2", "{case}");
                    assert_eq!(w32(KEYS32_AVX512_MIN_LEN - 1), "avx2", "{case}");
                    assert_eq!(w32(KEYS32_AVX512_MIN_LEN), quicksort, "{case}");
                    let tiny64 = if quicksort == "avx512" {
                        "avx512"
                    } else {
                        "radix"
                    };
                    assert_eq!(w64(KEYS64_SIMD_MIN_LEN - 1), tiny64, "{case}");
                    assert_eq!(w64(KEYS64_SIMD_MIN_LEN), quicksort, "{case}");
                }
                None => {
                    for len in [0, 1, KEYS32_AVX512_MIN_LEN, KEYS64_SIMD_MIN_LEN] {
                        assert_eq!((w32(len), w64(len)), ("radix", "radix"), "{case}");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod gpu_radix_tests {
    use super::classes;
    use super::*;

    #[test]
    fn every_machine_class_sends_sorts_to_the_gpu_radix_only_inside_the_measured_window() {
        let workloads = [
            Workload::Keys(KeyWidth::W32),
            Workload::Keys(KeyWidth::W64),
            Workload::Pairs(KeyWidth::W32),
            Workload::Pairs(KeyWidth::W64),
        ];
        let machines = classes::L2_BYTES.into_iter().flat_map(|l2_bytes| {
            [false, true].map(|wide_avx512| Machine {
                l2_bytes,
                wide_avx512,
            })
        });
        for machine in machines {
            for workload in workloads {
                // 32-bit keys past the L2 (2^18 keys are 1 MiB) go to the quicksort when the
                // GPU does not take them, and every key on full-width AVX-512.
                let cpu_first = match workload {
                    Workload::Keys(_) if machine.wide_avx512 => "avx512",
                    Workload::Keys(KeyWidth::W32) if machine.l2_bytes <= 1 << 20 => "avx512",
                    _ => "radix",
                };
                for map in [KeyMap::Unsigned, KeyMap::Float] {
                    let case = format!("{machine:?} {workload:?} {map:?}");
                    let list = |len| preference(workload, len, map, machine);
                    let gpu = |len| list(len).contains(&"vulkan-radix");
                    assert_eq!(list(GPU_RADIX_MIN_KEYS)[0], "vulkan-radix", "{case}");
                    assert_eq!(list(GPU_RADIX_END - 1)[0], "vulkan-radix", "{case}");
                    assert!(!gpu(GPU_RADIX_MIN_KEYS - 1), "{case}");
                    assert!(!gpu(GPU_RADIX_END) && !gpu(1 << 30), "{case}");
                    // The CPU's first comes next, for a GPU that refuses or fails the sort.
                    assert_eq!(list(GPU_RADIX_MIN_KEYS)[1], cpu_first, "{case}");
                }
            }
        }
    }
}
