//! The one error type every call returns.

use std::fmt;

/// Why a sort call did not sort.
///
/// On `Err` the slices passed in hold either their original contents or the fully sorted
/// result: no call leaves data half-sorted or truncated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The backend does not do this workload; pick another with `backend::by_name` or use
    /// `backend::auto()`, which only routes to backends that do.
    Unsupported {
        /// The backend's stable name.
        backend: &'static str,
        /// The workload asked for, e.g. `"u64 keys"`.
        workload: String,
    },
    /// `sort_pairs` got key and value slices of different lengths; neither was changed.
    LengthMismatch {
        /// Length of the key slice.
        keys: usize,
        /// Length of the value slice.
        values: usize,
    },
    /// `select_nth` got `n >= len`; the keys were not changed.
    SelectOutOfRange {
        /// The position asked for.
        n: usize,
        /// Length of the key slice.
        len: usize,
    },
    /// `partial_sort` got `k > len`; the keys were not changed.
    PartialSortOutOfRange {
        /// The number of smallest keys asked for.
        k: usize,
        /// Length of the key slice.
        len: usize,
    },
    /// The slice is larger than this backend can take in one call.
    TooLarge {
        /// The backend's stable name.
        backend: &'static str,
        /// Elements asked for.
        len: usize,
        /// The most elements this backend takes.
        max: usize,
    },
    /// The GPU failed (allocation, submission, device lost); the data was left as it was.
    Gpu(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported { backend, workload } => write!(
                f,
                "backend `{backend}` does not sort {workload}; use backend::auto() or a backend \
                 listed by `sortnet backends` that does"
            ),
            Error::LengthMismatch { keys, values } => write!(
                f,
                "sort_pairs needs as many values as keys, got {keys} keys and {values} values; \
                 nothing was changed"
            ),
            Error::SelectOutOfRange { n, len } => write!(
                f,
                "select_nth needs n < len, got n = {n} for {len} keys; pass a position below \
                 the length (nothing was changed)"
            ),
            Error::PartialSortOutOfRange { k, len } => write!(
                f,
                "partial_sort needs k <= len, got k = {k} for {len} keys; pass at most the \
                 length, or call sort for all of them (nothing was changed)"
            ),
            Error::TooLarge { backend, len, max } => write!(
                f,
                "backend `{backend}` takes at most {max} elements per call, got {len}; split the \
                 slice or use backend::auto()"
            ),
            Error::Gpu(msg) => write!(
                f,
                "GPU error: {msg}; the data is unchanged (set SORTNET_NO_GPU=1 to sort on the CPU)"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand used across the crate.
pub type Result<T> = std::result::Result<T, Error>;
