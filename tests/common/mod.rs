//! Inputs shared by the integration tests: a small deterministic generator, std's pattern
//! set and the lengths DESIGN.md asks for.
#![allow(dead_code)]

use sortnet::Key;

/// xorshift64*: deterministic, dependency-free, good enough to make test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// std's pattern set (as in `slice::sort`'s tests and benches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    Random,
    Ascending,
    Descending,
    Saw,
    PipeOrgan,
    AllEqual,
    FewDistinct,
    /// Ascending, then one key in a hundred (at least one) swapped to a random place.
    NearlySorted,
}

pub const PATTERNS: [Pattern; 8] = [
    Pattern::Random,
    Pattern::Ascending,
    Pattern::Descending,
    Pattern::Saw,
    Pattern::PipeOrgan,
    Pattern::AllEqual,
    Pattern::FewDistinct,
    Pattern::NearlySorted,
];

/// Every length 0..=300, then 2^k - 1, 2^k, 2^k + 1 for 2^9..=2^max_log2.
pub fn lengths(max_log2: u32) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    for k in 9..=max_log2 {
        let p = 1usize << k;
        v.extend([p - 1, p, p + 1]);
    }
    v
}

/// A key type with a way to draw random values (edge values included) and to compare
/// results bit for bit.
pub trait TestKey: Key + std::fmt::Debug {
    fn random(rng: &mut Rng) -> Self;
    fn bits(self) -> u64;
}

macro_rules! int_key {
    ($t:ty) => {
        impl TestKey for $t {
            fn random(rng: &mut Rng) -> Self {
                match rng.below(16) {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => 0 as $t,
                    _ => rng.next_u64() as $t,
                }
            }
            fn bits(self) -> u64 {
                self as u64
            }
        }
    };
}
int_key!(u32);
int_key!(i32);
int_key!(u64);
int_key!(i64);
int_key!(u8);
int_key!(i8);
int_key!(u16);
int_key!(i16);
int_key!(usize);
int_key!(isize);

impl TestKey for f32 {
    fn random(rng: &mut Rng) -> Self {
        const SPECIAL: [u32; 12] = [
            0x7fc0_0000, // +NaN
            0xffc0_0000, // -NaN
            0x7f80_0001, // +sNaN payload
            0x7f80_0000, // +inf
            0xff80_0000, // -inf
            0x0000_0000, // +0
            0x8000_0000, // -0
            0x0000_0001, // +subnormal
            0x8000_0001, // -subnormal
            0x7f7f_ffff, // MAX
            0xff7f_ffff, // MIN
            0x3f80_0000, // 1.0
        ];
        match rng.below(8) {
            0 => f32::from_bits(SPECIAL[rng.below(SPECIAL.len() as u64) as usize]),
            1 => f32::from_bits(rng.next_u64() as u32), // any bit pattern
            _ => (rng.next_u64() as i32 as f32) / 65536.0,
        }
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl TestKey for f64 {
    fn random(rng: &mut Rng) -> Self {
        const SPECIAL: [u64; 10] = [
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0,
            0x8000_0000_0000_0000,
            1,
            0x8000_0000_0000_0001,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
        ];
        match rng.below(8) {
            0 => f64::from_bits(SPECIAL[rng.below(SPECIAL.len() as u64) as usize]),
            1 => f64::from_bits(rng.next_u64()),
            _ => (rng.next_u64() as i64 as f64) / 4096.0,
        }
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// `len` keys in `pattern`, drawn with `seed`.
pub fn keys<K: TestKey>(pattern: Pattern, len: usize, seed: u64) -> Vec<K> {
    let mut rng = Rng::new(seed ^ (len as u64) << 20);
    let mut v: Vec<K> = (0..len).map(|_| K::random(&mut rng)).collect();
    let sort = |s: &mut [K]| s.sort_by(|a, b| a.key_cmp(b));
    match pattern {
        Pattern::Random => {}
        Pattern::Ascending => sort(&mut v),
        Pattern::Descending => {
            sort(&mut v);
            v.reverse();
        }
        Pattern::Saw => {
            let run = (len as f64).sqrt().max(1.0) as usize;
            v.chunks_mut(run).for_each(sort);
        }
        Pattern::PipeOrgan => {
            let half = len / 2;
            sort(&mut v[..half]);
            sort(&mut v[half..]);
            v[half..].reverse();
        }
        Pattern::AllEqual => {
            if let Some(&first) = v.first() {
                v.iter_mut().for_each(|x| *x = first);
            }
        }
        Pattern::FewDistinct => {
            let distinct: Vec<K> = (0..4).map(|_| K::random(&mut rng)).collect();
            v.iter_mut()
                .for_each(|x| *x = distinct[rng.below(4) as usize]);
        }
        Pattern::NearlySorted => {
            sort(&mut v);
            if len > 1 {
                for _ in 0..(len / 100).max(1) {
                    let (i, j) = (rng.below(len as u64), rng.below(len as u64));
                    v.swap(i as usize, j as usize);
                }
            }
        }
    }
    v
}

/// Nibble words: every key pattern plus the nibble-specific hard cases.
pub fn nibble_words(pattern: Pattern, len: usize, seed: u64) -> Vec<u64> {
    keys::<u64>(pattern, len, seed)
}

/// The contest's "pathological" buffer: every byte of word i equals i mod 256.
pub fn pathological_words(len: usize) -> Vec<u64> {
    (0..len)
        .map(|i| (i % 256) as u64 * 0x0101_0101_0101_0101)
        .collect()
}

/// Words whose 16 nibbles are equal, and words with 15 equal nibbles and one other.
pub fn equal_nibble_words() -> Vec<u64> {
    let mut v = Vec::new();
    for a in 0..16u64 {
        v.push(a * 0x1111_1111_1111_1111);
        for b in 0..16u64 {
            for pos in 0..16 {
                let w = a * 0x1111_1111_1111_1111;
                v.push(w & !(0xf << (4 * pos)) | b << (4 * pos));
            }
        }
    }
    v
}

/// Whether `SORTNET_REQUIRE_GPU` asks for a missing Vulkan device to fail the tests rather
/// than skip them (CI sets it: lavapipe must be there).
pub fn gpu_required() -> bool {
    std::env::var("SORTNET_REQUIRE_GPU").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `found`, or `None` (the caller skips) when it is missing and no GPU is required; fails
/// the test when it is missing and `SORTNET_REQUIRE_GPU` is set. `what` names it.
pub fn gpu_or_skip<T>(found: Option<T>, what: &str) -> Option<T> {
    if found.is_none() {
        assert!(
            !gpu_required(),
            "SORTNET_REQUIRE_GPU=1 but {what} is not usable"
        );
        eprintln!("{what} is not usable here: skipping");
    }
    found
}

/// Buffers of the tests' own for the GPU tests (data on the GPU, as a caller would hold it).
#[cfg(feature = "gpu")]
pub mod gpu;
