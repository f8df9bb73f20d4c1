//! x86-64 key kernels: the shared vectorised sort (`keys::network`) over AVX2
//! and AVX-512 vectors.

/// The entry points of one key token: `#[target_feature]` kernels that instantiate the
/// shared sort, select and partial sort for the token's 32-bit and 64-bit vectors (so that
/// the generic code inlines into code built for that instruction set), and the token's
/// public methods, which encode the keys, call a kernel and decode them again.
///
/// `$v32`/`$v64` are the vector types; `$encoded64` is the token module's
/// `fn(&mut [u64], KeyMap, impl FnOnce(&mut [$k64]))`, which brings 64-bit keys into the
/// form `$v64` compares (and back) around the kernel. An optional second 32-bit vector type
/// `$alt32` gets kernels of its own, taken where the token's `alt32()` says so.
macro_rules! key_token {
    ($token:ty, $features:literal, $v32:ty, $v64:ty, $k64:ty, $encoded64:ident) => {
        key_token!(@kernels32 sort_32, select_32, partial_32, $features, $v32);
        // Never taken (`alt` is false): they exist so that the methods compile alike.
        unsafe fn sort_32_alt(keys: &mut [u32]) {
            // SAFETY: the caller's, forwarded.
            unsafe { sort_32(keys) }
        }
        unsafe fn select_32_alt(keys: &mut [u32], n: usize) {
            // SAFETY: the caller's, forwarded.
            unsafe { select_32(keys, n) }
        }
        unsafe fn partial_32_alt(keys: &mut [u32], k: usize) {
            // SAFETY: the caller's, forwarded.
            unsafe { partial_32(keys, k) }
        }
        key_token!(@methods $token, $features, $v64, $k64, $encoded64, |_t| false);
    };
    // `alt` picks the `_alt` kernel.
    (@call $alt:ident, $main:ident, $other:ident, $($arg:expr),*) => {
        if $alt {
            $other($($arg),*)
        } else {
            $main($($arg),*)
        }
    };
    (
        $token:ty, $features:literal, $v32:ty, $v64:ty, $k64:ty, $encoded64:ident,
        $alt32:ty
    ) => {
        key_token!(@kernels32 sort_32, select_32, partial_32, $features, $v32);
        key_token!(@kernels32 sort_32_alt, select_32_alt, partial_32_alt, $features, $alt32);
        key_token!(@methods $token, $features, $v64, $k64, $encoded64, |t: $token| t.alt32());
    };
    // The three 32-bit kernels over one vector type.
    (@kernels32 $sort:ident, $select:ident, $partial:ident, $features:literal, $v32:ty) => {
        #[target_feature(enable = $features)]
        unsafe fn $sort(keys: &mut [u32]) {
            // SAFETY: the features are enabled here; only the token (which checked that
            // the CPU has them) calls this.
            unsafe { $crate::keys::network::quicksort::<$v32>(keys) }
        }

        #[target_feature(enable = $features)]
        unsafe fn $select(keys: &mut [u32], n: usize) {
            // SAFETY: as in the sort kernel.
            unsafe { $crate::keys::select::select_nth::<$v32>(keys, n) }
        }

        #[target_feature(enable = $features)]
        unsafe fn $partial(keys: &mut [u32], k: usize) {
            // SAFETY: as in the sort kernel.
            unsafe { $crate::keys::select::partial_sort::<$v32>(keys, k) }
        }
    };
    // The 64-bit kernels and the public methods; `$alt` says whether a call takes the
    // `_alt` 32-bit kernels (which exist only where it can return true).
    (@methods $token:ty, $features:literal, $v64:ty, $k64:ty, $encoded64:ident, $alt:expr) => {
        #[target_feature(enable = $features)]
        unsafe fn sort_64(keys: &mut [$k64]) {
            // SAFETY: as in `sort_32`.
            unsafe { $crate::keys::network::quicksort::<$v64>(keys) }
        }

        #[target_feature(enable = $features)]
        unsafe fn select_64(keys: &mut [$k64], n: usize) {
            // SAFETY: as in `sort_32`.
            unsafe { $crate::keys::select::select_nth::<$v64>(keys, n) }
        }

        #[target_feature(enable = $features)]
        unsafe fn partial_64(keys: &mut [$k64], k: usize) {
            // SAFETY: as in `sort_32`.
            unsafe { $crate::keys::select::partial_sort::<$v64>(keys, k) }
        }

        impl $token {
            /// Sorts 32-bit keys ascending by `map.encode32(key)`.
            pub fn sort32(self, keys: &mut [u32], map: KeyMap) {
                map.encode_slice32(keys);
                #[allow(clippy::redundant_closure_call)]
                let alt = ($alt)(self);
                // SAFETY: the token exists only where the CPU has the kernels' features;
                // `alt` holds only where the `_alt` kernels exist.
                unsafe { key_token!(@call alt, sort_32, sort_32_alt, keys) };
                map.decode_slice32(keys);
            }

            /// Sorts 64-bit keys ascending by `map.encode64(key)`.
            pub fn sort64(self, keys: &mut [u64], map: KeyMap) {
                // SAFETY: as in `sort32`.
                $encoded64(keys, map, |k| unsafe { sort_64(k) });
            }

            /// Reorders 32-bit keys so that `keys[n]` is where a sort by `map` puts it,
            /// with no larger key before it and no smaller one after (`n < keys.len()`).
            pub fn select_nth32(self, keys: &mut [u32], n: usize, map: KeyMap) {
                map.encode_slice32(keys);
                #[allow(clippy::redundant_closure_call)]
                let alt = ($alt)(self);
                // SAFETY: as in `sort32`.
                unsafe { key_token!(@call alt, select_32, select_32_alt, keys, n) };
                map.decode_slice32(keys);
            }

            /// [`select_nth32`](Self::select_nth32) for 64-bit keys.
            pub fn select_nth64(self, keys: &mut [u64], n: usize, map: KeyMap) {
                // SAFETY: as in `sort32`.
                $encoded64(keys, map, |k| unsafe { select_64(k, n) });
            }

            /// Puts the `k` smallest 32-bit keys by `map`, sorted, in `keys[..k]`
            /// (`k <= keys.len()`); the rest are left in no particular order.
            pub fn partial_sort32(self, keys: &mut [u32], k: usize, map: KeyMap) {
                map.encode_slice32(keys);
                #[allow(clippy::redundant_closure_call)]
                let alt = ($alt)(self);
                // SAFETY: as in `sort32`.
                unsafe { key_token!(@call alt, partial_32, partial_32_alt, keys, k) };
                map.decode_slice32(keys);
            }

            /// [`partial_sort32`](Self::partial_sort32) for 64-bit keys.
            pub fn partial_sort64(self, keys: &mut [u64], k: usize, map: KeyMap) {
                // SAFETY: as in `sort32`.
                $encoded64(keys, map, |x| unsafe { partial_64(x, k) });
            }
        }
    };
}

pub mod avx2;
pub mod avx512;
