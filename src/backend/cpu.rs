//! The CPU backends: each a capability token (built only where the CPU can run it) that
//! wires the nibble and key kernels of one instruction set to [`SortBackend`].

use super::{SortBackend, Workload};
use crate::error::Result;
use crate::nibble;

/// The CPU backends usable on this machine.
pub(crate) fn backends() -> Vec<&'static dyn SortBackend> {
    vec![&Scalar]
}

/// `scalar`: counting sort with packed counters; runs everywhere.
pub struct Scalar;

impl SortBackend for Scalar {
    fn name(&self) -> &'static str {
        "scalar"
    }

    fn supports(&self, workload: Workload) -> bool {
        workload == Workload::Nibbles
    }

    fn sort_nibbles(&self, words: &mut [u64]) -> Result<()> {
        nibble::scalar::sort_words(words);
        Ok(())
    }
}
