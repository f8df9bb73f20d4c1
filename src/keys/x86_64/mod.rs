//! x86-64 key kernels: the shared vectorised sort (`keys::network`) over AVX2
//! and AVX-512 vectors.

/// The entry points of one key token: `#[target_feature]` kernels that instantiate the
/// shared sort, select and partial sort for the token's 32-bit and 64-bit vectors (so that
/// the generic code inlines into code built for that instruction set), and the token's
/// public methods, which encode the keys, call a kernel and decode them again.
///
/// The sort kernel, `quicksort_kernel::<V>`, is generic: the token module's own
/// `fn quicksort<V>(self, keys)` calls it, with `V` itself or (AVX-512) `V` with the
/// partition store the token chose for the CPU.
///
/// `$v32`/`$v64` are the vector types; `$encoded64` is the token module's
/// `fn(&mut [u64], KeyMap, impl FnOnce(&mut [$k64]))`, which brings 64-bit keys into the
/// form `$v64` compares (and back) around the kernel. `$s32` (and `$s64` where given) are
/// vectors that compare signed: `sort32`/`sort64` sort `KeyMap::Signed` keys with them as
/// they are, without the two passes of the key map; `$f32`/`$f64` (where given) sort
/// `KeyMap::Float` keys as they are, compared by their image (`KeyVector::IMAGE`);
/// `$v64f` (where given) sorts `f64` keys instead where the token's `unsafe fn $values(&[i64])
/// -> bool` finds that float compares order them.
macro_rules! key_token {
    (
        $token:ty, $features:literal, $v32:ty, $v64:ty, $k64:ty, $encoded64:ident,
        $s32:ty $(, $s64:ty)? $(; floats $f32:ty, $f64:ty $(, values $v64f:ty where $values:ident)?)?
    ) => {
        key_token!(@kernels select_32, partial_32, $features, $v32, u32);
        key_token!(@kernels select_64, partial_64, $features, $v64, $k64);

        /// The shared quicksort over vector `V`, compiled with the token's features, on
        /// rayon's threads where there are several.
        ///
        /// # Safety
        /// The CPU has the features (only the token, which checked them, calls this).
        #[target_feature(enable = $features)]
        unsafe fn quicksort_kernel<V: $crate::keys::network::KeyVector>(keys: &mut [V::Key])
        where
            V::Key: $crate::keys::network::VecKey,
        {
            let steps = $crate::keys::network::Steps {
                split: split_kernel::<V>,
                pivot: pivot_kernel::<V>,
                partition: partition_kernel::<V>,
                sort: partition_down_kernel::<V>,
            };
            // SAFETY: the features are enabled here; caller's guarantee for the CPU.
            unsafe { $crate::keys::network::quicksort_on_threads::<V>(keys, Some(steps)) }
        }

        /// `network::split_step` compiled with the token's features.
        ///
        /// # Safety
        /// As [`quicksort_kernel`]; `keys` is longer than a block.
        #[target_feature(enable = $features)]
        unsafe fn split_kernel<V: $crate::keys::network::KeyVector>(
            keys: &mut [V::Key],
        ) -> Option<(usize, usize)>
        where
            V::Key: $crate::keys::network::VecKey,
        {
            // SAFETY: the features are enabled here; caller's guarantee for the rest.
            unsafe { $crate::keys::network::split_step::<V>(keys) }
        }

        /// `network::pick_pivot` compiled with the token's features.
        ///
        /// # Safety
        /// As [`quicksort_kernel`]; `keys` is longer than a block.
        #[target_feature(enable = $features)]
        unsafe fn pivot_kernel<V: $crate::keys::network::KeyVector>(keys: &[V::Key]) -> V::Key
        where
            V::Key: $crate::keys::network::VecKey,
        {
            // SAFETY: the features are enabled here; caller's guarantee for the rest.
            unsafe { $crate::keys::network::pick_pivot::<V>(keys) }
        }

        /// `network::partition` compiled with the token's features.
        ///
        /// # Safety
        /// As [`quicksort_kernel`].
        #[target_feature(enable = $features)]
        unsafe fn partition_kernel<V: $crate::keys::network::KeyVector>(
            keys: &mut [V::Key],
            pivot: V::Key,
        ) -> usize
        where
            V::Key: $crate::keys::network::VecKey,
        {
            // SAFETY: the features are enabled here; caller's guarantee for the CPU.
            unsafe { $crate::keys::network::partition::<V>(keys, pivot) }
        }

        /// `network::partition_down` compiled with the token's features.
        ///
        /// # Safety
        /// As [`quicksort_kernel`].
        #[target_feature(enable = $features)]
        unsafe fn partition_down_kernel<V: $crate::keys::network::KeyVector>(keys: &mut [V::Key])
        where
            V::Key: $crate::keys::network::VecKey,
        {
            // SAFETY: the features are enabled here; caller's guarantee for the CPU.
            unsafe { $crate::keys::network::partition_down::<V>(keys) }
        }
        impl $token {
            /// Sorts 32-bit keys ascending by `map.encode32(key)`.
            #[inline]
            pub fn sort32(self, keys: &mut [u32], map: KeyMap) {
                if map == KeyMap::Signed {
                    self.quicksort::<$s32>(bytemuck::cast_slice_mut(keys));
                    return;
                }
                $(
                    if map == KeyMap::Float {
                        self.quicksort::<$f32>(bytemuck::cast_slice_mut(keys));
                        return;
                    }
                )?
                map.encode_slice32(keys);
                self.quicksort::<$v32>(keys);
                map.decode_slice32(keys);
            }

            /// Sorts 64-bit keys ascending by `map.encode64(key)`.
            #[inline]
            pub fn sort64(self, keys: &mut [u64], map: KeyMap) {
                $(
                    if map == KeyMap::Float {
                        let keys: &mut [i64] = bytemuck::cast_slice_mut(keys);
                        $(
                            // SAFETY: the token exists only where the CPU has its features.
                            if unsafe { $values(keys) } {
                                self.quicksort::<$v64f>(keys);
                                return;
                            }
                        )?
                        self.quicksort::<$f64>(keys);
                        return;
                    }
                )?
                $(
                    if map == KeyMap::Signed {
                        self.quicksort::<$s64>(bytemuck::cast_slice_mut(keys));
                        return;
                    }
                )?
                $encoded64(keys, map, |k| self.quicksort::<$v64>(k));
            }

            /// Reorders 32-bit keys so that `keys[n]` is where a sort by `map` puts it,
            /// with no larger key before it and no smaller one after (`n < keys.len()`).
            pub fn select_nth32(self, keys: &mut [u32], n: usize, map: KeyMap) {
                map.encode_slice32(keys);
                // SAFETY: the token exists only where the CPU has the kernels' features.
                unsafe { select_32(keys, n) };
                map.decode_slice32(keys);
            }

            /// [`select_nth32`](Self::select_nth32) for 64-bit keys.
            pub fn select_nth64(self, keys: &mut [u64], n: usize, map: KeyMap) {
                // SAFETY: as in `select_nth32`.
                $encoded64(keys, map, |k| unsafe { select_64(k, n) });
            }

            /// Puts the `k` smallest 32-bit keys by `map`, sorted, in `keys[..k]`
            /// (`k <= keys.len()`); the rest are left in no particular order.
            pub fn partial_sort32(self, keys: &mut [u32], k: usize, map: KeyMap) {
                map.encode_slice32(keys);
                // SAFETY: as in `select_nth32`.
                unsafe { partial_32(keys, k) };
                map.decode_slice32(keys);
            }

            /// [`partial_sort32`](Self::partial_sort32) for 64-bit keys.
            pub fn partial_sort64(self, keys: &mut [u64], k: usize, map: KeyMap) {
                // SAFETY: as in `select_nth32`.
                $encoded64(keys, map, |x| unsafe { partial_64(x, k) });
            }
        }
    };
    // The select and partial sort kernels over one vector type of key `$k`.
    (@kernels $select:ident, $partial:ident, $features:literal, $v:ty, $k:ty) => {
        #[target_feature(enable = $features)]
        unsafe fn $select(keys: &mut [$k], n: usize) {
            // SAFETY: the features are enabled here; only the token (which checked that
            // the CPU has them) calls this.
            unsafe { $crate::keys::select::select_nth::<$v>(keys, n) }
        }

        #[target_feature(enable = $features)]
        unsafe fn $partial(keys: &mut [$k], k: usize) {
            // SAFETY: as in the select kernel.
            unsafe { $crate::keys::select::partial_sort::<$v>(keys, k) }
        }
    };
}

/// `unsafe fn $name(keys: &mut [$k])`: the block sort of `keys::network` for vector `$v`,
/// compiled with `$features`, for `KeyVector::sort_block`.
macro_rules! block_kernel {
    ($name:ident, $features:literal, $v:ty, $k:ty) => {
        #[target_feature(enable = $features)]
        #[inline]
        unsafe fn $name(keys: &mut [$k]) {
            // SAFETY: the features are enabled here; only `KeyVector` methods, whose
            // callers guarantee the CPU has them, call this.
            unsafe { $crate::keys::bitonic::sort_block_in_registers::<$v>(keys) }
        }
    };
}

pub mod avx2;
pub mod avx512;
