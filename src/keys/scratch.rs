//! The scratch memory of the radix sort: `n` uninitialised elements per call.
//!
//! A plain call allocates its scratch and frees it before it returns, so a library call
//! gives back the memory it took, beyond at most [`CACHED_MAX_BYTES`] kept for the next
//! call. Blocks from [`MAPPED_MIN_BYTES`] on are mappings of their own
//! ([`Pages`](crate::pages::Pages)), unmapped when freed, so that what a call gives back
//! does not depend on the global allocator's thresholds (see `crate::pages`). A fresh
//! block's pages are zeroed by the
//! kernel (on all rayon threads at once, see [`populate_in_parallel`]); a program that sorts
//! large slices again and again can skip that cost by keeping the scratch in a [`Reserve`]
//! (through [`CpuRadixSorter`](super::CpuRadixSorter)), which grows to the largest call and frees
//! its block when dropped.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Mutex;

use crate::pages::Pages;

/// The most bytes the calls leave behind for the next one, in at most [`CACHED_BLOCKS`]
/// blocks: 8 MiB, the scratch of 2^21 u32 or 2^20 u64 keys, or of 2^20 u32 keys with u32
/// values. A fresh block faults in each of its pages on every call, which costs a sort of a
/// few MiB a noticeable share of its time (one-thread `radix` at 2^20 u32 keys ran at
/// 0.80-0.85x without a kept block on the 16-core Xeon host of the H200 machine;
/// BENCHMARKS.md, "CPU key sort, one thread"), while keeping 8 MiB at most is the small
/// cache a library may keep past a call.
const CACHED_MAX_BYTES: usize = 8 << 20;

/// Blocks kept between calls: two, the keys' and the values' scratch of a sort of pairs
/// (with one, every such call of a few MiB mapped and faulted in a fresh values block).
const CACHED_BLOCKS: usize = 2;

static CACHE: Mutex<[Option<Block>; CACHED_BLOCKS]> = Mutex::new([None, None]);

/// The smallest cached block that holds `layout` (taken out of the cache), if there is one
/// and no other thread holds the cache right now.
fn take_cached(layout: Layout) -> Option<Block> {
    let mut slots = CACHE.try_lock().ok()?;
    slots
        .iter_mut()
        .filter(|slot| slot.as_ref().is_some_and(|b| b.fits(layout)))
        .min_by_key(|slot| slot.as_ref().map_or(0, Block::size))
        .and_then(Option::take)
}

/// Keeps the largest of the cached blocks and `block` that fit [`CACHED_BLOCKS`] slots and
/// [`CACHED_MAX_BYTES`] together; frees the others (after the cache is unlocked).
fn give_back(block: Block) {
    let mut all: [Option<Block>; CACHED_BLOCKS + 1] = [Some(block), None, None];
    if let Ok(mut slots) = CACHE.try_lock() {
        for (to, from) in all[1..].iter_mut().zip(slots.iter_mut()) {
            *to = from.take();
        }
        all.sort_unstable_by_key(|c| std::cmp::Reverse(c.as_ref().map_or(0, Block::size)));
        let (mut kept, mut bytes) = (0, 0);
        for c in all.iter_mut() {
            let size = c.as_ref().map_or(0, Block::size);
            if c.is_some() && kept < CACHED_BLOCKS && bytes + size <= CACHED_MAX_BYTES {
                slots[kept] = c.take();
                kept += 1;
                bytes += size;
            }
        }
    }
    drop(all);
}

/// Blocks from this size on are page-aligned (any key width, whole cache lines for the
/// streaming stores); smaller ones take the element type's alignment.
const PAGE_ALIGN_MIN_BYTES: usize = 4 << 20;

/// Alignment of large blocks: a 2 MiB huge page, so that the whole block can be backed by
/// huge pages (see [`advise_huge_pages`]).
const BLOCK_ALIGN: usize = 2 << 20;

/// The layout of a block of `bytes > 0` bytes for elements aligned to `align`.
fn block_layout(bytes: usize, align: usize) -> Layout {
    let align = if bytes >= PAGE_ALIGN_MIN_BYTES {
        align.max(BLOCK_ALIGN)
    } else {
        align
    };
    Layout::from_size_align(bytes, align).expect("scratch size overflows isize")
}

/// Blocks from this size on are mappings of their own; smaller ones come from the global
/// allocator. 128 KiB is glibc's initial mmap threshold: the blocks below it come from its
/// heaps and leave the threshold where it is.
const MAPPED_MIN_BYTES: usize = 128 << 10;

/// A block of scratch: at least the size and alignment of the layout it was made for.
enum Block {
    /// Below [`MAPPED_MIN_BYTES`]: the global allocator's, with the layout to free it with.
    Heap(NonNull<u8>, Layout),
    /// From [`MAPPED_MIN_BYTES`] on: a mapping of its own.
    Mapped(Pages),
}

// SAFETY: a block is owned by one `Block` alone (no pointer to it outlives the `Scratch`
// that hands it out) and has no thread affinity.
unsafe impl Send for Block {}
// SAFETY: `&Block` hands out only the address and the size.
unsafe impl Sync for Block {}

impl Block {
    /// A new block for `layout` (non-zero size).
    fn new(layout: Layout) -> Block {
        debug_assert!(layout.size() > 0);
        if layout.size() < MAPPED_MIN_BYTES {
            // SAFETY: every caller passes a layout of non-zero size.
            let raw = unsafe { alloc(layout) };
            let ptr = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout));
            return Block::Heap(ptr, layout);
        }
        let align = layout.align().max(crate::pages::PAGE);
        let block = Block::Mapped(Pages::zeroed_aligned(layout.size(), align));
        if layout.size() >= PAGE_ALIGN_MIN_BYTES {
            advise_huge_pages(block.ptr(), block.size());
            populate_in_parallel(block.ptr(), block.size());
        }
        block
    }

    fn ptr(&self) -> NonNull<u8> {
        match self {
            Block::Heap(ptr, _) => *ptr,
            Block::Mapped(pages) => NonNull::new(pages.as_ptr()).expect("mapped at non-zero"),
        }
    }

    /// Bytes usable.
    fn size(&self) -> usize {
        match self {
            Block::Heap(_, layout) => layout.size(),
            Block::Mapped(pages) => pages.len(),
        }
    }

    /// Whether the block holds `layout`.
    fn fits(&self, layout: Layout) -> bool {
        let aligned = (self.ptr().as_ptr() as usize).is_multiple_of(layout.align());
        self.size() >= layout.size() && aligned
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        if let Block::Heap(ptr, layout) = *self {
            // SAFETY: allocated in `Block::new` with exactly this layout, owned by this block
            // alone and freed once, here. A mapped block unmaps itself.
            unsafe { dealloc(ptr.as_ptr(), layout) };
        }
    }
}

/// Faults in the pages of a fresh large block before the sort touches them, one piece per
/// rayon thread, so that the kernel zeroes the pages on every thread at once and in whole
/// pieces rather than one page per trap in the middle of a scatter. On the 16-core Xeon host
/// of the H200 machine (transparent huge pages on `madvise`) this lifted plain 16-thread
/// `radix` calls from 0.70-0.88x to 0.83-0.94x of calls with kept scratch at 2^21-2^25 keys;
/// without huge pages the same calls ran at 0.55-0.74x. What remains is the kernel zeroing
/// fresh memory, which only keeping the memory ([`CpuRadixSorter`](super::CpuRadixSorter)) avoids.
/// A hint (`MADV_POPULATE_WRITE`, Linux 5.14): an error leaves the pages to fault on first
/// touch as before.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn populate_in_parallel(ptr: NonNull<u8>, len: usize) {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads().max(1);
    // Whole huge pages per piece, so that no two threads fault in the same one.
    let piece = (len / threads)
        .next_multiple_of(BLOCK_ALIGN)
        .max(BLOCK_ALIGN);
    let base = ptr.as_ptr() as usize;
    (0..len.div_ceil(piece)).into_par_iter().for_each(|i| {
        let start = base + i * piece;
        let end = (start + piece).min(base + len);
        // SAFETY: `start..end` lies inside the block this module just allocated and owns
        // (`i * piece < len`); populating writes zeroes into uninitialised memory that
        // nothing has read or written yet.
        unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            )
        };
    });
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn populate_in_parallel(_ptr: NonNull<u8>, _len: usize) {}

/// Asks Linux to back a fresh large block with transparent huge pages where the system
/// leaves that to the program (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`):
/// its first touch then faults once per 2 MiB instead of once per 4 KiB. A hint; an error
/// changes nothing.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn advise_huge_pages(ptr: NonNull<u8>, len: usize) {
    // SAFETY: `ptr..ptr + len` is a block this module just allocated and owns; the advice
    // changes how its pages are backed, never their contents (they are uninitialised).
    unsafe { libc::madvise(ptr.as_ptr().cast(), len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn advise_huge_pages(_ptr: NonNull<u8>, _len: usize) {}

/// Bytes of `len` elements of `T`.
///
/// # Panics
/// If they exceed `usize` (as `Vec::with_capacity` does).
fn bytes_of<T>(len: usize) -> usize {
    std::mem::size_of::<T>()
        .checked_mul(len)
        .expect("scratch size overflows usize")
}

/// `len` uninitialised `T`s for one call: owned (freed on drop) or borrowed from a
/// [`Reserve`]. Zero-sized `T` or `len == 0` allocates nothing.
pub(crate) struct Scratch<'a, T> {
    ptr: NonNull<T>,
    /// The block to give back on drop; `None` when nothing was allocated or the block is a
    /// reserve's.
    owned: Option<Block>,
    _borrows: PhantomData<(&'a mut (), T)>,
}

impl<T: Copy> Scratch<'static, T> {
    /// Room for `len` elements (uninitialised), freed on drop.
    ///
    /// # Panics
    /// If `len` elements of `T` exceed `isize::MAX` bytes.
    pub(crate) fn new(len: usize) -> Self {
        let bytes = bytes_of::<T>(len);
        if bytes == 0 {
            return Scratch {
                ptr: NonNull::dangling(),
                owned: None,
                _borrows: PhantomData,
            };
        }
        let layout = block_layout(bytes, std::mem::align_of::<T>());
        let block = take_cached(layout).unwrap_or_else(|| Block::new(layout));
        Scratch {
            ptr: block.ptr().cast(),
            owned: Some(block),
            _borrows: PhantomData,
        }
    }
}

impl<T> Scratch<'_, T> {
    /// The first element's address.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }
}

impl<T> Drop for Scratch<'_, T> {
    fn drop(&mut self) {
        if let Some(block) = self.owned.take() {
            give_back(block);
        }
    }
}

// SAFETY: `Scratch<T>` owns (or exclusively borrows) its block like a `Vec<T>` does.
unsafe impl<T: Send> Send for Scratch<'_, T> {}

/// A block kept between calls, grown to the largest call; freed on drop or by
/// [`release`](Self::release).
#[derive(Default)]
pub(crate) struct Reserve {
    block: Option<Block>,
}

impl Reserve {
    /// Room for `len` elements of `T` (uninitialised) in the kept block, which is replaced by
    /// a larger one first if it is too small (no copy: scratch holds nothing between calls).
    ///
    /// # Panics
    /// If `len` elements of `T` exceed `isize::MAX` bytes.
    pub(crate) fn take<T: Copy>(&mut self, len: usize) -> Scratch<'_, T> {
        let bytes = bytes_of::<T>(len);
        if bytes == 0 {
            return Scratch {
                ptr: NonNull::dangling(),
                owned: None,
                _borrows: PhantomData,
            };
        }
        let layout = block_layout(bytes, std::mem::align_of::<T>());
        if !self.block.as_ref().is_some_and(|b| b.fits(layout)) {
            // The old block goes before the new one is made, so that the two never add up.
            self.release();
            self.block = Some(Block::new(layout));
        }
        let block = self.block.as_ref().expect("a block was just ensured");
        Scratch {
            ptr: block.ptr().cast(),
            owned: None,
            _borrows: PhantomData,
        }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.block.as_ref().map_or(0, Block::size)
    }

    /// Frees the block now.
    pub(crate) fn release(&mut self) {
        self.block = None;
    }
}
