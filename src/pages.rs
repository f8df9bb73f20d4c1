//! Large blocks straight from the operating system: page-aligned, zeroed on first touch,
//! growable without a copy, and handed back whole when freed.
//!
//! A mapping of our own costs memory only for the pages written into it, so a buffer sized
//! for the most input it may take costs what the input fills, and `mremap` grows it by moving
//! its pages, never its bytes. Freed, it goes back to the kernel at once, whatever the global
//! allocator does with the blocks it frees: glibc's `malloc` raises its mmap threshold to the
//! size of every mapped block it frees (up to 32 MiB) and serves later blocks of that size
//! from heaps that it trims only past a threshold, and other allocators keep freed memory for
//! reuse.
//!
//! Elsewhere than Linux the blocks come from the global allocator, zeroed, and a growth
//! copies.

use std::ptr::NonNull;

/// The alignment of every block: a page on every system the crate runs on.
pub(crate) const PAGE: usize = 4096;

/// A block of zeroed, page-aligned memory of a whole number of pages, owned like a `Vec`.
/// An empty block holds no memory.
pub(crate) struct Pages {
    ptr: NonNull<u8>,
    /// Bytes mapped: a multiple of [`PAGE`]; none for an empty block, whose `ptr` is a
    /// dangling, page-aligned address.
    len: usize,
    /// The alignment asked for ([`PAGE`] or more), which the allocator of systems other than
    /// Linux needs back.
    align: usize,
}

// SAFETY: a `Pages` owns its memory exclusively, like a `Vec<u8>`; it has no thread
// affinity (mappings and allocations may be freed on any thread).
unsafe impl Send for Pages {}
// SAFETY: `&Pages` hands out only the address and the length.
unsafe impl Sync for Pages {}

/// `bytes` rounded up to whole pages.
fn whole_pages(bytes: usize) -> usize {
    bytes
        .checked_next_multiple_of(PAGE)
        .expect("block size overflows usize")
}

/// The address of an empty block: aligned, never dereferenced.
fn dangling() -> NonNull<u8> {
    NonNull::new(std::ptr::without_provenance_mut(PAGE)).expect("PAGE is not zero")
}

impl Pages {
    /// At least `bytes` bytes of zeroed memory (rounded up to whole pages; none for 0).
    ///
    /// # Panics
    /// If the system has no memory for the block, as `Vec` aborts.
    pub(crate) fn zeroed(bytes: usize) -> Pages {
        let len = whole_pages(bytes);
        let ptr = if len == 0 { dangling() } else { sys::map(len) };
        Pages {
            ptr,
            len,
            align: PAGE,
        }
    }

    /// At least `bytes` bytes of zeroed memory starting on a multiple of `align` (a power of
    /// two of at least [`PAGE`]), e.g. a huge page's boundary.
    ///
    /// # Panics
    /// As [`zeroed`](Self::zeroed).
    pub(crate) fn zeroed_aligned(bytes: usize, align: usize) -> Pages {
        debug_assert!(align.is_power_of_two() && align >= PAGE);
        let len = whole_pages(bytes);
        let ptr = if len == 0 {
            dangling()
        } else {
            sys::map_aligned(len, align)
        };
        Pages { ptr, len, align }
    }

    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Bytes held (whole pages).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Grows the block to at least `bytes` bytes, keeping its contents; the new bytes are
    /// zero. The block may move, to a page boundary at least (a larger alignment asked of
    /// [`zeroed_aligned`](Self::zeroed_aligned) may be lost).
    /// Nothing happens when it already holds `bytes`.
    pub(crate) fn grow(&mut self, bytes: usize) {
        let len = whole_pages(bytes);
        if len > self.len {
            self.ptr = match self.len {
                0 => sys::map(len),
                old => sys::remap(self.ptr, old, self.align, len),
            };
            self.len = len;
        }
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        if self.len > 0 {
            sys::unmap(self.ptr, self.len, self.align);
        }
    }
}

#[cfg(target_os = "linux")]
mod sys {
    use std::ptr::NonNull;

    /// Aborts as the global allocator's failures do, naming the size.
    fn out_of_memory(len: usize) -> ! {
        let layout = std::alloc::Layout::from_size_align(len, super::PAGE)
            .unwrap_or(std::alloc::Layout::new::<u8>());
        std::alloc::handle_alloc_error(layout)
    }

    pub(super) fn map(len: usize) -> NonNull<u8> {
        // SAFETY: an anonymous private mapping at an address the kernel picks: it overlaps
        // nothing of the process's, and the arguments are plain integers.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            out_of_memory(len);
        }
        NonNull::new(raw.cast()).unwrap_or_else(|| out_of_memory(len))
    }

    /// `len` bytes starting on a multiple of `align`: a mapping `align - PAGE` longer, whose
    /// pages before the boundary and after the block go back at once.
    pub(super) fn map_aligned(len: usize, align: usize) -> NonNull<u8> {
        if align <= super::PAGE {
            return map(len);
        }
        let extra = align - super::PAGE;
        let total = len.checked_add(extra).unwrap_or_else(|| out_of_memory(len));
        let start = map(total).as_ptr();
        let head = (start as usize).next_multiple_of(align) - start as usize;
        let tail = extra - head;
        // SAFETY: `start..start + total` is the mapping just made and owned here alone; the
        // head `start..start + head` and the tail after `start + head + len` lie inside it,
        // around the block that is kept. Unmapping whole pages of a private mapping cannot
        // fail.
        unsafe {
            if head > 0 {
                libc::munmap(start.cast(), head);
            }
            if tail > 0 {
                libc::munmap(start.add(head + len).cast(), tail);
            }
        }
        NonNull::new(start.wrapping_add(head)).unwrap_or_else(|| out_of_memory(len))
    }

    pub(super) fn remap(ptr: NonNull<u8>, old: usize, _align: usize, new: usize) -> NonNull<u8> {
        // SAFETY: `ptr..ptr + old` is a whole mapping made by `map` (or an earlier `remap`)
        // and owned by the caller's `Pages`, which takes the returned address in its place.
        let raw = unsafe { libc::mremap(ptr.as_ptr().cast(), old, new, libc::MREMAP_MAYMOVE) };
        if raw == libc::MAP_FAILED {
            out_of_memory(new);
        }
        NonNull::new(raw.cast()).unwrap_or_else(|| out_of_memory(new))
    }

    pub(super) fn unmap(ptr: NonNull<u8>, len: usize, _align: usize) {
        // SAFETY: `ptr..ptr + len` is a whole mapping owned by the `Pages` being dropped;
        // nothing refers to it afterwards. A failure (impossible for a valid mapping) would
        // only leave the pages mapped.
        unsafe { libc::munmap(ptr.as_ptr().cast(), len) };
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use std::alloc::{alloc_zeroed, dealloc, handle_alloc_error, realloc, Layout};
    use std::ptr::NonNull;

    fn layout(len: usize, align: usize) -> Layout {
        Layout::from_size_align(len, align).expect("block size overflows isize")
    }

    pub(super) fn map(len: usize) -> NonNull<u8> {
        map_aligned(len, super::PAGE)
    }

    pub(super) fn map_aligned(len: usize, align: usize) -> NonNull<u8> {
        let layout = layout(len, align);
        // SAFETY: `len` is at least one page, never zero.
        let raw = unsafe { alloc_zeroed(layout) };
        NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout))
    }

    pub(super) fn remap(ptr: NonNull<u8>, old: usize, align: usize, new: usize) -> NonNull<u8> {
        let grown = layout(new, align);
        // SAFETY: `ptr` was allocated by `map_aligned` (or an earlier `remap`) with
        // `layout(old, align)`, and `new` is a non-zero size that fits `isize` at this
        // alignment (`grown`).
        let raw = unsafe { realloc(ptr.as_ptr(), layout(old, align), new) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(grown));
        // SAFETY: `old..new` lies inside the block just grown to `new` bytes.
        unsafe { ptr.as_ptr().add(old).write_bytes(0, new - old) };
        ptr
    }

    pub(super) fn unmap(ptr: NonNull<u8>, len: usize, align: usize) {
        // SAFETY: allocated by `map_aligned` or `remap` with `layout(len, align)`, freed once
        // by its owner.
        unsafe { dealloc(ptr.as_ptr(), layout(len, align)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_zeroed_and_keep_their_bytes_when_grown() {
        let mut empty = Pages::zeroed(0);
        assert_eq!(empty.len(), 0);
        empty.grow(1);
        assert_eq!(empty.len(), PAGE);
        let mut block = Pages::zeroed(10_000);
        assert_eq!(block.len(), 3 * PAGE);
        assert!((block.as_ptr() as usize).is_multiple_of(PAGE));
        // SAFETY: the block holds `len()` bytes, initialised (zero) and ours alone.
        let bytes = unsafe { std::slice::from_raw_parts_mut(block.as_ptr(), block.len()) };
        assert!(bytes.iter().all(|&b| b == 0));
        bytes.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
        block.grow(1 << 20);
        assert_eq!(block.len(), 1 << 20);
        block.grow(PAGE); // never shrinks
        assert_eq!(block.len(), 1 << 20);
        // SAFETY: as above, at the new length.
        let bytes = unsafe { std::slice::from_raw_parts(block.as_ptr(), block.len()) };
        assert!((0..3 * PAGE).all(|i| bytes[i] == i as u8));
        assert!(bytes[3 * PAGE..].iter().all(|&b| b == 0));
    }
}
