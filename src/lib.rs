//! # sortnet
//!
//! SIMD sorting networks on the CPU, Vulkan compute on the GPU, one API.
//!
//! ```
//! use sortnet::backend;
//!
//! let mut words = vec![0x42badc0ffeed00d5u64, 0x0badbeef];
//! backend::auto().sort_nibbles(&mut words)?;
//! assert_eq!(words, [0xffeedddcba542000, 0xfeedbba000000000]);
//! for b in backend::available() {
//!     println!("{}", b.name());
//! }
//! # Ok::<(), sortnet::Error>(())
//! ```

pub mod backend;
mod error;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod keys;
pub mod nibble;

pub use backend::{Device, SortBackend, Workload};
pub use error::{Error, Result};
pub use keys::key::{Key, KeyMap, KeyWidth};
