//! Why a file sort failed: the file and the reason, in words a user can act on.
//!
//! A type of its own rather than a variant of [`crate::Error`]: that one is `Clone + Eq` and
//! describes calls on slices, while these carry an [`io::Error`] and a path.

use std::fmt;
use std::io;

/// Why [`super::sort_file`] did not sort. On every `Err` the output is left as it was (a
/// regular file is replaced only once complete) and the temporary runs are removed.
#[derive(Debug)]
#[non_exhaustive]
pub enum FileSortError {
    /// Reading or writing a file failed (a missing input, a full disk, an unusable temporary
    /// folder).
    Io {
        /// The file or folder, as the user named it (`<stdin>`, `<stdout>` for the streams).
        path: String,
        /// What was being done, e.g. `"read"`, `"write"`, `"create a run in"`.
        action: &'static str,
        /// The system's reason.
        source: io::Error,
    },
    /// The input is not keys of the stated type and format: a binary length that is not a
    /// whole number of keys, a text line that is not a number.
    Input {
        /// The input, as the user named it.
        path: String,
        /// The 1-based line of a text input, when the problem is a line.
        line: Option<u64>,
        /// What is wrong.
        reason: String,
    },
    /// The sort backend refused or failed.
    Sort {
        /// The input, as the user named it.
        path: String,
        /// The backend's error.
        source: crate::Error,
    },
}

impl FileSortError {
    pub(crate) fn io(path: impl Into<String>, action: &'static str, source: io::Error) -> Self {
        FileSortError::Io {
            path: path.into(),
            action,
            source,
        }
    }

    /// The kind of the underlying I/O error, if this is one (e.g. to treat a closed pipe on
    /// stdout as the reader's choice rather than a failure).
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            FileSortError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

impl fmt::Display for FileSortError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileSortError::Io {
                path,
                action,
                source,
            } => write!(f, "{path}: cannot {action}: {source}"),
            FileSortError::Input {
                path,
                line: Some(line),
                reason,
            } => write!(f, "{path}:{line}: {reason}; nothing was written"),
            FileSortError::Input {
                path,
                line: None,
                reason,
            } => write!(f, "{path}: {reason}; nothing was written"),
            FileSortError::Sort { path, source } => write!(f, "{path}: sorting failed: {source}"),
        }
    }
}

impl std::error::Error for FileSortError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileSortError::Io { source, .. } => Some(source),
            FileSortError::Sort { source, .. } => Some(source),
            FileSortError::Input { .. } => None,
        }
    }
}
