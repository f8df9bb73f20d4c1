//! # sortnet
//!
//! SIMD sorting networks on the CPU, Vulkan compute on the GPU, one API.
//!
//! Two workloads: **nibble sort** (the 16 four-bit nibbles inside every `u64` of a batch,
//! largest nibble on top) and **key sort** (`u8` to `u128`, `i8` to `i128`, `f32`, `f64`,
//! `usize`, `isize` keys, floats in IEEE-754 total order, ascending or descending; key/value
//! pairs with values of any type; records by a key; argsort; select and partial sort; byte
//! strings in byte order).
//!
//! ## Quick start
//!
//! ```
//! use sortnet::backend;
//!
//! let mut words = vec![0x42badc0ffeed00d5u64, 0x0badbeef];
//! backend::auto().sort_nibbles(&mut words)?;
//! assert_eq!(words, [0xffeedddcba542000, 0xfeedbba000000000]);
//!
//! let mut keys = vec![2.5f64, -0.0, f64::NEG_INFINITY, 0.0];
//! let mut ids = vec![0u32, 1, 2, 3];
//! backend::auto().sort_pairs(&mut keys, &mut ids)?;
//! assert_eq!(ids, [2, 1, 3, 0]);
//!
//! for b in backend::available() {
//!     println!("{}", b.name());
//! }
//! # Ok::<(), sortnet::Error>(())
//! ```
//!
//! Every call returns `Result<_, Error>`; on `Err` the data is untouched or fully sorted.
//!
//! ## The calls
//!
//! One example per call; each method's page says more (memory, stability, errors).
//!
//! ```
//! use sortnet::backend;
//!
//! let b = backend::auto();
//! // sort and sort_descending: any Key type; floats in total order, +NaN first descending.
//! let mut keys = vec![3.5f32, f32::NAN, -1.0, 0.0];
//! b.sort(&mut keys)?;
//! assert_eq!(keys[..3], [-1.0, 0.0, 3.5]);
//! b.sort_descending(&mut keys)?;
//! assert!(keys[0].is_nan() && keys[3] == -1.0);
//!
//! // sort_pairs: values of any Copy type follow their keys; stable.
//! let mut ages = vec![41u8, 29, 41, 18];
//! let mut names = vec!["ann", "bob", "cy", "di"];
//! b.sort_pairs(&mut ages, &mut names)?;
//! assert_eq!(names, ["di", "bob", "ann", "cy"]);
//!
//! // sort_by_key: records of any type by a key computed from each; stable.
//! struct Item { label: String, weight: f64 }
//! let mut items: Vec<Item> = [("b", 2.5), ("a", -1.0), ("c", 2.5)]
//!     .into_iter()
//!     .map(|(l, w)| Item { label: l.to_string(), weight: w })
//!     .collect();
//! b.sort_by_key(&mut items, |it| it.weight)?;
//! let labels: Vec<&str> = items.iter().map(|it| it.label.as_str()).collect();
//! assert_eq!(labels, ["a", "b", "c"]);
//!
//! // argsort: the sorting order, keys untouched; stable.
//! let order: Vec<usize> = b.argsort(&[30i64, -10, 20, -10])?;
//! assert_eq!(order, [1, 3, 2, 0]);
//!
//! // select_nth and partial_sort: no full sort.
//! let mut v: Vec<usize> = vec![9, 1, 8, 2, 7, 3];
//! b.select_nth(&mut v, 2)?;
//! assert_eq!(v[2], 3);
//! b.partial_sort(&mut v, 3)?;
//! assert_eq!(v[..3], [1, 2, 3]);
//! assert!(b.partial_sort(&mut v, 7).is_err()); // k > len: refused, v unchanged
//!
//! // u128 and i128 keys (decimals) take every call above, on the CPU backends.
//! let mut cents = vec![1999i128, -250, 7];
//! b.sort(&mut cents)?;
//! assert_eq!(cents, [-250, 7, 1999]);
//!
//! // sort_strings and argsort_strings: byte order, a prefix first; the argsort is stable.
//! let mut words = vec!["bob", "", "bo"];
//! b.sort_strings(&mut words)?;
//! assert_eq!(words, ["", "bo", "bob"]);
//! assert_eq!(b.argsort_strings(&["b", "a", "b"])?, [1, 0, 2]);
//! # Ok::<(), sortnet::Error>(())
//! ```
//!
//! ## Backends
//!
//! | name | where | nibbles | keys | pairs |
//! |---|---|---|---|---|
//! | `scalar` | everywhere | counting sort, packed 4-bit counters | | |
//! | `lut` | everywhere | lookup tables (count two nibbles per load, emit additively) | | |
//! | `portable` | everywhere (`wide`) | 16-input network, 16 words per block | vectorised quicksort over `wide` vectors | |
//! | `avx2` | x86-64 with AVX2 | 16-input network, 32 words per block | vectorised quicksort over register networks | |
//! | `avx512` | x86-64 with AVX-512 BW/VBMI | 16-input network, 64 words per block | vectorised quicksort over register networks | |
//! | `radix` | everywhere | | stable LSD radix, rayon for large slices | stable; 4- and 8-byte values move inside |
//! | `vulkan-bitonic` | a Vulkan device | GPU nibble kernel | bitonic merge sort | no (not stable) |
//! | `vulkan-radix` | a Vulkan device | GPU nibble kernel | LSD radix: look-back (Onesweep) or reduce-then-scan | stable |
//! | `auto` | always | picks per call from built-in rules (ISA, cache sizes) and a saved profile, if any | | stable backends only |
//!
//! [`backend::by_name`] returns a backend by its stable name; [`SortBackend::supports`] says
//! which workloads it does (others return [`Error::Unsupported`]). `auto` never picks a
//! software Vulkan driver (lavapipe), and falls back to the CPU when the GPU fails.
//!
//! `auto` follows built-in rules that read the ISA and the L2 size; it measures nothing and
//! writes nothing unless asked. `sortnet calibrate` times the backends on this machine and
//! saves a profile to `$XDG_CACHE_HOME/sortnet/profile-<key>.txt` (else
//! `$HOME/.cache/sortnet/...`; `<key>` names the CPU model, L2 size, thread count, sortnet
//! version and backends), which `auto` then follows ([`backend::ProfileChoice::Saved`], the
//! default). [`backend::ProfileChoice::MeasureOnce`] has `auto` measure a short profile
//! itself the first time it routes a call on a machine without one (1.3-2.5 s on the 2-core
//! Xeon build machine); [`backend::ProfileChoice::BuiltIn`] or `SORTNET_PROFILE=0` reads
//! none.
//!
//! ## Features and environment
//!
//! - `gpu` (default): the Vulkan backends (vulkano; the Vulkan loader is opened at run time,
//!   so building needs no Vulkan SDK). Without a loader or device they are simply absent.
//! - Without default features (`default-features = false`) the crate is the CPU backends
//!   alone: `wide`, `bytemuck` and `rayon`. The `sortnet` command-line tool is its own crate
//!   (`cli/` in the repository), so the library pulls none of its dependencies.
//! - Environment: five variables (`SORTNET_BACKEND`, `SORTNET_NO_GPU`, `SORTNET_NO_AVX512`,
//!   `SORTNET_PROFILE`, `SORTNET_GPU_MEMORY_CAP`), each a field of [`backend::Options`] and
//!   read in one place, [`backend::Options::from_env`], whose docs list them; a program sets
//!   the same without the environment with [`backend::Options`] and [`backend::configure`]
//!   or [`backend::Registry`].
//! - Memory: a call frees all it allocated before it returns. [`keys::CpuRadixSorter`] keeps the
//!   radix sort's scratch between calls, for programs that sort large slices again and again.
//!
//! ## The public API
//!
//! - [`backend`]: [`backend::auto`], [`backend::available`], [`backend::by_name`]; the
//!   [`SortBackend`] trait with its generic calls on
//!   `dyn SortBackend` ([`sort`](SortBackend#method.sort),
//!   [`sort_descending`](SortBackend#method.sort_descending),
//!   [`sort_pairs`](SortBackend#method.sort_pairs),
//!   [`sort_by_key`](SortBackend#method.sort_by_key), [`argsort`](SortBackend#method.argsort),
//!   [`select_nth`](SortBackend#method.select_nth),
//!   [`partial_sort`](SortBackend#method.partial_sort),
//!   [`sort_strings`](SortBackend#method.sort_strings),
//!   [`argsort_strings`](SortBackend#method.argsort_strings),
//!   [`supports_key`](SortBackend#method.supports_key),
//!   [`supports_strings`](SortBackend#method.supports_strings), `sort_nibbles`, `supports`,
//!   `name`);
//!   [`Workload`], [`Device`]; typed selection with [`backend::Options`] and
//!   [`backend::Registry`], and the calibration profile `auto` follows with
//!   [`backend::ProfileChoice`].
//! - [`Key`] (the key types), [`KeyMap`], [`KeyWidth`]; [`Error`] and [`Result`].
//! - [`keys::CpuRadixSorter`]: the radix sort with scratch kept between calls.
//! - [`nibble::reference`]: the nibble sort's plain definition, for tests and comparisons.
//! - [`file`](mod@file): files of keys, larger than memory too: [`file::sort_file`] sorts binary or
//!   text keys within a memory budget (runs on disk and a k-way merge past it).
//! - `gpu` (feature `gpu`): `gpu::vulkano` (the vulkano the crate is built with),
//!   `gpu::context` (the shared Vulkan context, or one on your own queue), `gpu::radix`
//!   (`RadixSorter`, `SortJob`, `Count`, `RadixScratch`), `gpu::bitonic` (`BitonicSorter`),
//!   `gpu::nibble::record`, `gpu::transfer::TransferConfig` and `gpu::HostBuffer`.
//!   `gpu::radix` and `gpu::bitonic` record their sort into your own vulkano command buffer
//!   for your buffers, with a query of the scratch memory they need.
//!
//! Everything else (kernels, thresholds, dispatch math) is private to the crate, except
//! what the `sortnet` tool, the benchmarks and the tests reach for (tuning values,
//! calibration, what a sorter decides on a device): that is in `tuning`, which is not part
//! of this API and may change in any release.

pub mod backend;
mod error;
pub mod file;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod keys;
pub mod nibble;
mod pages;
pub mod tuning;

pub use backend::{Device, SortBackend, Workload};
pub use error::{Error, Result};
pub use keys::key::{Key, KeyMap, KeyWidth};
