//! Cache sizes of the machine the sort runs on, read once at run time, so that the routes
//! that depend on them (the radix sort's switch to its MSD route, `auto`'s choice between
//! radix and the vectorised quicksort) follow this CPU rather than constants measured on
//! another one.

use std::sync::OnceLock;

/// Assumed where the CPU does not say: the 1 MiB private L2 of the AMD EPYC (Zen 4) build
/// machine; most x86-64 server cores of the last years have 1 to 2 MiB.
const FALLBACK_L2_BYTES: usize = 1 << 20;

/// Bytes of the private (per-core) level-2 cache.
///
/// On x86-64 from CPUID leaf `0x8000_0006` (ECX bits 31-16: L2 size in KiB), which AMD and
/// Intel CPUs both fill; elsewhere (and under Miri), or where it reads zero,
/// [`FALLBACK_L2_BYTES`].
pub(crate) fn l2_bytes() -> usize {
    static L2: OnceLock<usize> = OnceLock::new();
    *L2.get_or_init(|| match read_l2_kib() {
        Some(kib) if kib > 0 => kib << 10,
        _ => FALLBACK_L2_BYTES,
    })
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn read_l2_kib() -> Option<usize> {
    use std::arch::x86_64::__cpuid;
    // `__cpuid` is an unsafe function up to the stated MSRV and safe in newer Rust, where
    // the block is redundant.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86-64 CPU; leaf 0x8000_0000 gives the highest extended
    // leaf, checked before 0x8000_0006 is read.
    let ecx = unsafe {
        if __cpuid(0x8000_0000).eax < 0x8000_0006 {
            return None;
        }
        __cpuid(0x8000_0006).ecx
    };
    Some((ecx >> 16) as usize)
}

/// Not x86-64, or under Miri (which does not run CPUID).
#[cfg(any(not(target_arch = "x86_64"), miri))]
fn read_l2_kib() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn l2_is_a_plausible_size() {
        let l2 = super::l2_bytes();
        assert!((64 << 10..=64 << 20).contains(&l2), "L2 of {l2} bytes");
    }
}
