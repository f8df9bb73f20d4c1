//! Direct I/O for the runs and the output: buffered writes of gigabytes go through the page
//! cache's write-back, which on a virtual disk sustains a fraction of what the disk takes
//! with `O_DIRECT` (about 220 MB/s against 650 MB/s-1.2 GB/s on the build machine), and
//! leave gigabytes of dirty pages that stall every later write. Large aligned writes
//! straight from the key buffers avoid both and cost no copy.
//!
//! `O_DIRECT` needs the buffer, the file offset and the length aligned to the device's
//! logical block; [`ALIGN`] covers every common one. A file system that refuses `O_DIRECT`
//! (at open, as older tmpfs does, or at the first write) gets ordinary buffered writes, and
//! so does everything after the first unaligned write (the tail of a run, text output).

use std::fs::File;
use std::io::{self, Read, Write};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use crate::pages::Pages;
use crate::Key;

/// The alignment of buffers, offsets and lengths for direct I/O: a page, a multiple of the
/// 512- and 4096-byte logical blocks of disks.
pub(crate) const ALIGN: usize = crate::pages::PAGE;

/// Rounds `bytes` down to a multiple of [`ALIGN`], keeping at least one `ALIGN`.
pub(crate) fn align_down(bytes: usize) -> usize {
    (bytes & !(ALIGN - 1)).max(ALIGN)
}

/// A zeroed buffer of keys whose memory starts on an [`ALIGN`] boundary, so that it can be
/// written with direct I/O. It grows as input arrives ([`grow`](Self::grow)): its pages come
/// from the system untouched, so a buffer costs the memory of the keys written into it, not
/// of its length.
pub(crate) struct AlignedBuf<K: Key> {
    pages: Pages,
    len: usize,
    _keys: PhantomData<K>,
}

impl<K: Key> AlignedBuf<K> {
    /// `len` zeroed keys (zero is a valid key of every key type).
    pub(crate) fn zeroed(len: usize) -> Self {
        AlignedBuf {
            pages: Pages::zeroed(Self::bytes(len)),
            len,
            _keys: PhantomData,
        }
    }

    /// Lengthens the buffer to `len` keys, keeping its keys; the new ones are zero. The
    /// memory may move.
    pub(crate) fn grow(&mut self, len: usize) {
        self.pages.grow(Self::bytes(len));
        self.len = self.len.max(len);
    }

    fn bytes(len: usize) -> usize {
        len.checked_mul(std::mem::size_of::<K>())
            .expect("buffer size overflows")
    }
}

impl<K: Key> Deref for AlignedBuf<K> {
    type Target = [K];
    fn deref(&self) -> &[K] {
        // SAFETY: the pages hold at least `len` keys' bytes, aligned to a page (more than any
        // key's alignment), initialised (zeroed, then written only as keys), owned by `self`
        // for the borrow's lifetime.
        unsafe { std::slice::from_raw_parts(self.pages.as_ptr().cast::<K>(), self.len) }
    }
}

impl<K: Key> DerefMut for AlignedBuf<K> {
    fn deref_mut(&mut self) -> &mut [K] {
        // SAFETY: as in `deref`, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.pages.as_ptr().cast::<K>(), self.len) }
    }
}

/// A file read or written with direct I/O while the calls allow it (see the module docs),
/// through the page cache from then on. Sync and metadata go through [`DirectFile::file`].
pub(crate) struct DirectFile {
    file: File,
    direct: bool,
    /// Bytes written so far: the offset of the next write.
    offset: u64,
}

impl DirectFile {
    /// Creates (or truncates) `path` for writing, with direct I/O where the file system
    /// takes it.
    pub(crate) fn create(path: &Path) -> io::Result<DirectFile> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        Self::open_with(path, options)
    }

    /// Opens `path` for reading, with direct I/O where the file system takes it: reads of
    /// whole aligned blocks then cost no copy and leave the page cache alone.
    pub(crate) fn open(path: &Path) -> io::Result<DirectFile> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        Self::open_with(path, options)
    }

    fn open_with(path: &Path, options: std::fs::OpenOptions) -> io::Result<DirectFile> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let mut direct = options.clone();
            direct.custom_flags(libc::O_DIRECT);
            match direct.open(path) {
                Ok(file) => {
                    return Ok(DirectFile {
                        file,
                        direct: true,
                        offset: 0,
                    })
                }
                // EINVAL: the file system has no direct I/O; anything else fails below too.
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(DirectFile::buffered(options.open(path)?))
    }

    /// An already open file, read or written through the page cache.
    pub(crate) fn buffered(file: File) -> DirectFile {
        DirectFile {
            file,
            direct: false,
            offset: 0,
        }
    }

    /// Whether the next aligned write goes around the page cache.
    #[cfg(test)]
    pub(crate) fn is_direct(&self) -> bool {
        self.direct
    }

    /// The file, for syncing and metadata.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Turns direct I/O off for the rest of the file.
    fn stop_direct(&mut self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let fd = self.file.as_raw_fd();
            // SAFETY: fcntl on a descriptor this struct owns, with integer arguments only.
            let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
            // SAFETY: as above.
            if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT) } < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        self.direct = false;
        Ok(())
    }

    /// Whether a call on `len` bytes at `ptr` may go direct: a direct file, and the buffer,
    /// the offset and the length all aligned (the length rounded down to whole units).
    fn direct_len(&self, ptr: *const u8, len: usize) -> Option<usize> {
        let aligned =
            (ptr as usize).is_multiple_of(ALIGN) && self.offset.is_multiple_of(ALIGN as u64);
        (self.direct && aligned && len >= ALIGN).then_some(len & !(ALIGN - 1))
    }
}

impl Read for DirectFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(whole) = self.direct_len(buf.as_ptr(), buf.len()) {
            match self.file.read(&mut buf[..whole]) {
                Ok(n) => {
                    self.offset += n as u64;
                    return Ok(n);
                }
                #[cfg(target_os = "linux")]
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => self.stop_direct()?,
                Err(e) => return Err(e),
            }
        } else if self.direct {
            self.stop_direct()?;
        }
        let n = self.file.read(buf)?;
        self.offset += n as u64;
        Ok(n)
    }
}

impl Write for DirectFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.direct {
            if let Some(whole) = self.direct_len(buf.as_ptr(), buf.len()) {
                match self.file.write(&buf[..whole]) {
                    Ok(n) => {
                        self.offset += n as u64;
                        return Ok(n);
                    }
                    // A file system that opened the file with O_DIRECT but refuses the write:
                    // nothing was written, so write it buffered below.
                    #[cfg(target_os = "linux")]
                    Err(e) if e.raw_os_error() == Some(libc::EINVAL) => self.stop_direct()?,
                    Err(e) => return Err(e),
                }
            } else {
                self.stop_direct()?;
            }
        }
        let n = self.file.write(buf)?;
        self.offset += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Tells the kernel that `file` will be read sequentially from start to end, so that its
/// read-ahead grows (a merge reads many runs in turn, each sequentially).
pub(crate) fn advise_sequential(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: posix_fadvise on a descriptor `file` owns, with integer arguments; the
        // advice is a hint and its failure changes nothing.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// The bytes of `keys` as the writer above takes them: aligned when the buffer is.
pub(crate) fn write_keys_direct<K: Key>(out: &mut DirectFile, keys: &[K]) -> io::Result<()> {
    out.write_all(super::codec::key_bytes(keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("sortnet-direct-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn aligned_buffers_start_on_the_boundary_and_are_zeroed() {
        for len in [0, 1, 511, 512, 513, 100_000] {
            let buf = AlignedBuf::<u64>::zeroed(len);
            assert!((buf.as_ptr() as usize).is_multiple_of(ALIGN));
            assert_eq!(buf.len(), len);
            assert!(buf.iter().all(|&k| k == 0));
        }
    }

    /// Aligned and unaligned writes, a tail shorter than a block and writes after it all
    /// land in order, direct or not.
    #[test]
    fn mixed_writes_keep_every_byte() {
        let dir = scratch("mixed");
        let path = dir.join("out");
        let mut keys = AlignedBuf::<u64>::zeroed(3 * ALIGN / 8 + 5);
        for (i, k) in keys.iter_mut().enumerate() {
            *k = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        let mut expected = Vec::new();
        let mut out = DirectFile::create(&path).unwrap();
        let bytes = super::super::codec::key_bytes(&keys);
        out.write_all(&bytes[..2 * ALIGN]).unwrap();
        expected.extend_from_slice(&bytes[..2 * ALIGN]);
        out.write_all(&bytes[2 * ALIGN..]).unwrap(); // aligned start, ragged end
        expected.extend_from_slice(&bytes[2 * ALIGN..]);
        assert!(!out.is_direct(), "the ragged tail ends direct I/O");
        out.write_all(b"tail").unwrap();
        expected.extend_from_slice(b"tail");
        out.file().sync_all().unwrap();
        drop(out);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// procfs refuses O_DIRECT at open: the file is read through the page cache.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_file_refusing_direct_io_is_read_buffered() {
        let mut file = DirectFile::open(Path::new("/proc/self/stat")).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        // procfs refuses O_DIRECT at open; under qemu-user (the aarch64 CI step) the file
        // is qemu's own copy, which accepts it, and the unaligned `String` buffer makes the
        // first read fall back instead. Either way the file ends buffered with the content.
        assert!(!file.is_direct());
        assert!(
            text.starts_with(&format!("{} (", std::process::id())),
            "{text}"
        );
    }

    /// Whole aligned blocks are read direct, a ragged tail through the page cache.
    #[test]
    fn direct_reads_stop_at_the_ragged_tail() {
        let dir = scratch("read");
        let path = dir.join("in");
        let bytes: Vec<u8> = (0..3 * ALIGN + 100).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut file = DirectFile::open(&path).unwrap();
        let mut keys = AlignedBuf::<u32>::zeroed(bytes.len().div_ceil(4));
        let got = super::super::codec::key_bytes_mut(&mut keys);
        file.read_exact(&mut got[..2 * ALIGN]).unwrap();
        file.read_exact(&mut got[2 * ALIGN..bytes.len()]).unwrap();
        assert!(!file.is_direct());
        assert_eq!(&got[..bytes.len()], &bytes[..]);
        assert_eq!(file.read(&mut [0; 8]).unwrap(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// tmpfs takes O_DIRECT since Linux 6.6 and refused it before; either way the file must
    /// come out whole.
    #[test]
    fn a_file_on_tmpfs_comes_out_whole() {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            let d = shm.join(format!("sortnet-direct-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            d
        } else {
            scratch("shm")
        };
        let path = dir.join("out");
        let keys = AlignedBuf::<u32>::zeroed(ALIGN);
        let mut out = DirectFile::create(&path).unwrap();
        write_keys_direct(&mut out, &keys).unwrap();
        write_keys_direct(&mut out, &keys[..3]).unwrap();
        drop(out);
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            (ALIGN + 3) as u64 * 4
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
