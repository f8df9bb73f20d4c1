//! The scratch buffer of the radix sort: `n` uninitialised elements, reused across calls.
//!
//! A fresh multi-megabyte allocation is a fresh `mmap` (glibc maps every block above 32 MiB
//! anew): every 4 KiB page faults on first touch and the kernel zeroes it. On the test
//! machine (a VM) the first touch of 64 MiB takes 50 to 120 ms (`memset` of a fresh block,
//! with or without `MADV_HUGEPAGE`), against 3 to 5 ms for a second touch, while the whole
//! sort of 2^24 `u32` keys should take well under 100 ms. So the largest scratch block of a
//! call is kept for the next one: [`Scratch`] takes it from a one-slot cache when it is big
//! enough and puts it back on drop. At most [`KEEP_MAX_BYTES`] stay allocated between
//! calls; a larger block is freed.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Mutex;

/// Blocks from this size on go through the cache; smaller ones come from the allocator's
/// heap, which reuses its pages across calls anyway.
const CACHE_MIN_BYTES: usize = 4 << 20;

/// The largest block kept allocated between calls: the scratch of 2^25 `u32` keys or of
/// 2^24 `u64` key/value pairs.
pub const KEEP_MAX_BYTES: usize = 256 << 20;

/// Alignment of cached blocks: a page, so that one block serves keys of any width.
const BLOCK_ALIGN: usize = 4096;

/// A raw block kept between calls.
struct Block {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: a `Block` is an owned allocation with no thread affinity.
unsafe impl Send for Block {}

/// The one cached block (the last one returned that was small enough to keep).
static CACHE: Mutex<Option<Block>> = Mutex::new(None);

/// A block of at least `bytes` bytes: the cached one if it is big enough, else a new one.
fn take_block(bytes: usize) -> Block {
    let cached = CACHE.lock().ok().and_then(|mut slot| {
        if slot.as_ref().is_some_and(|b| b.layout.size() >= bytes) {
            slot.take()
        } else {
            None
        }
    });
    if let Some(block) = cached {
        return block;
    }
    let layout = Layout::from_size_align(bytes, BLOCK_ALIGN).expect("scratch layout");
    // SAFETY: `bytes >= CACHE_MIN_BYTES > 0`.
    let raw = unsafe { alloc(layout) };
    let Some(ptr) = NonNull::new(raw) else {
        handle_alloc_error(layout)
    };
    Block { ptr, layout }
}

/// Keeps `block` for the next call if it is small enough and larger than the cached one;
/// frees whatever is not kept.
fn give_block(block: Block) {
    let mut keep = Some(block);
    if keep
        .as_ref()
        .is_some_and(|b| b.layout.size() <= KEEP_MAX_BYTES)
    {
        if let Ok(mut slot) = CACHE.lock() {
            let new_size = keep.as_ref().map_or(0, |b| b.layout.size());
            if !slot
                .as_ref()
                .is_some_and(|old| old.layout.size() >= new_size)
            {
                keep = slot.replace(keep.take().expect("block present"));
            }
        }
    }
    if let Some(b) = keep {
        // SAFETY: allocated by `take_block` with exactly this layout, and no longer used.
        unsafe { dealloc(b.ptr.as_ptr(), b.layout) };
    }
}

/// `len` uninitialised `T`s, freed (or kept for the next call) on drop. Zero-sized `T` or
/// `len == 0` allocates nothing.
pub(crate) struct Scratch<T> {
    ptr: NonNull<T>,
    backing: Backing,
    _owns: PhantomData<T>,
}

enum Backing {
    None,
    Heap(Layout),
    Cached(Block),
}

impl<T: Copy> Scratch<T> {
    /// Room for `len` elements (uninitialised).
    ///
    /// # Panics
    /// If `len` elements of `T` exceed `isize::MAX` bytes (as `Vec::with_capacity` does).
    pub(crate) fn new(len: usize) -> Self {
        let bytes = std::mem::size_of::<T>()
            .checked_mul(len)
            .expect("scratch size overflows usize");
        let (ptr, backing) = if bytes == 0 {
            (NonNull::dangling(), Backing::None)
        } else if bytes >= CACHE_MIN_BYTES && std::mem::align_of::<T>() <= BLOCK_ALIGN {
            let block = take_block(bytes);
            (block.ptr.cast::<T>(), Backing::Cached(block))
        } else {
            let layout = Layout::array::<T>(len).expect("scratch layout");
            // SAFETY: `layout` has a non-zero size (`bytes > 0`).
            let raw = unsafe { alloc(layout) };
            let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
                handle_alloc_error(layout)
            };
            (ptr, Backing::Heap(layout))
        };
        Scratch {
            ptr,
            backing,
            _owns: PhantomData,
        }
    }

    /// The first element's address.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }
}

impl<T> Drop for Scratch<T> {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.backing, Backing::None) {
            Backing::None => {}
            // SAFETY: allocated in `new` with exactly this layout, freed once.
            Backing::Heap(layout) => unsafe { dealloc(self.ptr.as_ptr().cast(), layout) },
            Backing::Cached(block) => give_block(block),
        }
    }
}

// SAFETY: `Scratch<T>` owns its block like a `Vec<T>` does.
unsafe impl<T: Send> Send for Scratch<T> {}
