//! The CPU backends: each a capability token (built only where the CPU can run it) that
//! wires the nibble and key kernels of one instruction set to [`SortBackend`].

use super::{SortBackend, Workload};
use crate::error::Result;
use crate::keys::key::KeyMap;
use crate::keys::radix;
use crate::nibble;

/// The CPU backends usable on this machine.
pub(crate) fn backends() -> Vec<&'static dyn SortBackend> {
    vec![&Scalar, &Radix]
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

/// `radix`: stable LSD radix sort (MSD pass in front for large inputs, rayon above a size)
/// for every key type and for key/value pairs; runs everywhere. See [`radix`].
pub struct Radix;

impl SortBackend for Radix {
    fn name(&self) -> &'static str {
        "radix"
    }

    fn status(&self) -> String {
        format!(
            "8-bit LSD, MSD pass from {} keys, parallel from {} keys on {} threads",
            radix::MSD_MIN_LEN,
            radix::PARALLEL_MIN_LEN,
            rayon::current_num_threads()
        )
    }

    fn supports(&self, workload: Workload) -> bool {
        matches!(workload, Workload::Keys(_) | Workload::Pairs(_))
    }

    fn sort_keys32(&self, keys: &mut [u32], map: KeyMap) -> Result<()> {
        radix::sort32(keys, map);
        Ok(())
    }

    fn sort_keys64(&self, keys: &mut [u64], map: KeyMap) -> Result<()> {
        radix::sort64(keys, map);
        Ok(())
    }

    fn sort_pairs32(&self, keys: &mut [u32], values: &mut [u32], map: KeyMap) -> Result<()> {
        if keys.len() != values.len() {
            return Err(crate::Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        radix::sort_pairs32(keys, values, map);
        Ok(())
    }

    fn sort_pairs64(&self, keys: &mut [u64], values: &mut [u32], map: KeyMap) -> Result<()> {
        if keys.len() != values.len() {
            return Err(crate::Error::LengthMismatch {
                keys: keys.len(),
                values: values.len(),
            });
        }
        radix::sort_pairs64(keys, values, map);
        Ok(())
    }
}
