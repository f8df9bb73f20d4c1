//! `vulkan-radix` against std's sort for every configuration of `radix_suite::cases` (the
//! shipped tuning and reduce-then-scan variants), and the look-back paths that the shipped
//! tuning takes only on other devices: the recount fallback, the four-word ballot match,
//! other look-back and histogram shapes.
#![cfg(feature = "gpu")]

mod common;
mod radix_suite;

use radix_suite::{backend_with, cases};
use sortnet::tuning::gpu::{self as tuning, PassScheme, RadixConfig};
use sortnet::{KeyWidth, SortBackend};

#[test]
fn every_variant_runs_reduce_then_scan_where_configured() {
    let Some(case) = cases().iter().find(|c| c.name.starts_with("reduce")) else {
        return;
    };
    let sorter = case.backend.sorter();
    for width in [KeyWidth::W32, KeyWidth::W64] {
        for pairs in [false, true] {
            for n in [0, 1, 1 << 20] {
                assert!(
                    tuning::reduces_then_scans(sorter, width, pairs, n).unwrap(),
                    "{width:?} {pairs} {n}"
                );
            }
        }
    }
}

/// The look-back's spin limit at zero: every tile that waits for an earlier tile recounts
/// it from the keys instead (the path taken when a driver does not run earlier
/// workgroups), with the general four-word ballot match that subgroups of more than 32
/// lanes need. The result must be the same sorted, stable order.
#[test]
fn recount_fallback_sorts_stably() {
    if cases().is_empty() {
        return;
    }
    let mut config = RadixConfig::default();
    config.spin_limit = Some(0);
    config.four_word_match = true;
    let b = backend_with(config);
    let b: &(dyn SortBackend + 'static) = &b;
    let sorter = backend_with(RadixConfig::default());
    let tile = tuning::tile_keys(sorter.sorter(), KeyWidth::W64, true).unwrap() as usize;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for n in [tile + 1, 9 * tile + 77] {
        let input: Vec<f64> = (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Few distinct values with both signs, so stability and the map both matter.
                ((state >> 40) % 97) as f64 - 48.5
            })
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&x, &y| input[x as usize].total_cmp(&input[y as usize]));
        let mut keys = input.clone();
        let mut values: Vec<u32> = (0..n as u32).collect();
        b.sort_pairs(&mut keys, &mut values).unwrap();
        assert_eq!(values, order, "n={n}");
        let mut keys32: Vec<u32> = input.iter().map(|x| x.to_bits() as u32).collect();
        let mut expected = keys32.clone();
        expected.sort_unstable();
        b.sort(&mut keys32).unwrap();
        assert_eq!(keys32, expected, "n={n}");
    }
}

/// Other look-back and histogram shapes than the shipped ones (one tile per look-back read,
/// four invocations per digit, an odd histogram batch and keys per invocation), every pass
/// by look-back: the result must be the same sorted, stable order.
#[test]
fn other_lookback_shapes_sort_stably() {
    if cases().is_empty() {
        return;
    }
    let mut config = RadixConfig::default();
    config.scheme = PassScheme::LookBack;
    config.lookahead = 1;
    config.lookback_lanes = 4;
    config.histogram_batch = Some(3);
    config.histogram_keys_per_invocation = 5;
    let b = backend_with(config);
    let b: &(dyn SortBackend + 'static) = &b;
    let sorter = backend_with(RadixConfig::default());
    let tile = tuning::tile_keys(sorter.sorter(), KeyWidth::W32, true).unwrap() as usize;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for n in [tile - 1, 2 * tile + 1, 13 * tile + 5] {
        let input: Vec<i32> = (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Few distinct values with both signs: stability and the map both matter.
                ((state >> 33) % 61) as i32 - 30
            })
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&i| input[i as usize]);
        let mut keys = input.clone();
        let mut values: Vec<u32> = (0..n as u32).collect();
        b.sort_pairs(&mut keys, &mut values).unwrap();
        assert_eq!(values, order, "pairs, n={n}");
        let mut wide: Vec<u64> = input.iter().map(|&x| (x as u64) << 20 ^ 0xabc).collect();
        let mut expected = wide.clone();
        expected.sort_unstable();
        b.sort(&mut wide).unwrap();
        assert_eq!(wide, expected, "u64 keys, n={n}");
    }
}

/// A software driver (lavapipe) ends every loop once one invocation has run 65535 loop
/// iterations, and a look-back walk over many unpublished tiles passed that: 2^22 pairs came
/// out wrong with two lavapipe threads. There the look-back takes only short sorts, whatever
/// the configured scheme, and 2^22 f32 pairs sort right (on a GPU the look-back runs).
#[test]
fn long_sorts_on_a_software_driver_sort_right_whatever_the_scheme() {
    if cases().is_empty() {
        return;
    }
    let mut config = RadixConfig::default();
    config.scheme = PassScheme::LookBack;
    let b = backend_with(config);
    let n = 1usize << 22;
    let software = b.sorter().context().is_software();
    assert_eq!(
        tuning::reduces_then_scans(b.sorter(), KeyWidth::W32, true, n as u64).unwrap(),
        software
    );
    let mut state = 0x853c_49e6_748f_ea9bu64;
    let input: Vec<f32> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Finite values of both signs; few enough distinct ones that stability matters.
            ((state >> 40) % 50_000) as f32 - 25_000.0
        })
        .collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&x, &y| input[x as usize].total_cmp(&input[y as usize]));
    let mut keys = input;
    let mut values: Vec<u32> = (0..n as u32).collect();
    let b: &(dyn SortBackend + 'static) = &b;
    b.sort_pairs(&mut keys, &mut values).unwrap();
    let wrong = values.iter().zip(&order).filter(|(a, b)| a != b).count();
    assert_eq!(
        wrong, 0,
        "{wrong} of {n} values out of place (software: {software})"
    );
}
