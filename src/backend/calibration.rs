//! Timing backends against each other on this machine to find `auto`'s crossovers: the short
//! measurement `auto` runs once per machine ([`Plan::quick`]) and the full one of `sortnet
//! calibrate` ([`Plan::full`]) go through the same [`measure`].
//!
//! The short measurement times only what the detected ISA and caches leave open: which of the
//! vectorised quicksorts and the radix sort is fastest for 32- and 64-bit integer keys, and for
//! `f64` keys where the widest quicksort is `avx2` (which sorts them by float compares, see
//! [`FLOAT_ROWS`](super::profile::FLOAT_ROWS)), on the threads the process sorts with, at every
//! power of two from 16 to 2^20 keys (to [`THREADS_TOP`] on several threads), then each row once
//! more at a larger size: on one thread 32-bit keys at [`ONE_THREAD_PROBE`] and 64-bit keys at
//! [`ONE_THREAD_PROBE_64`], on several at [`THREADS_PROBE`] and [`THREADS_PROBE_64`]; those
//! winners go on for longer slices. Zen 4 and the Xeon host disagree even on 16 keys (avx2, radix
//! and avx512 each win somewhere), and radix's speed has dips that depend on the caches, so no
//! step wider than 2 is safe. The GPU window (timing the GPU would start its driver), other float
//! keys and the nibble and pair routes (one candidate each on the CPU) stay built in.
//!
//! It takes 1.3 s on one thread of the 2-core Xeon build machine and 1.4 s on both (120 and 165
//! MB at the peak, the probes' keys and scratch), 2.2 and 2.5 s with AVX-512 off, where the
//! `f64` row is timed too (2026-11-28, `/usr/bin/time sortnet backends` with an empty cache
//! folder). On the 2-core AMD EPYC (Zen 4) under load it took 0.8-1.2 s on one thread with the
//! 32-bit probe, about 0.2 s more with the 64-bit one (BENCHMARKS.md, "Auto's crossovers").

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::profile::{machine_key, rows, Profile, Row, State, BUILT_IN};
use super::sort_backend::{Device, SortBackend, Workload};
use super::thresholds::STABLE_PAIRS;
use crate::keys::key::{KeyMap, KeyWidth};

/// The size at which the short measurement times 32-bit keys once more when the process
/// sorts on one thread. Past the L2 the order of the quicksort and the radix sort depends on
/// the L3 and the memory behind it, which the built-in rule (`quicksort_beyond_cache`) does not
/// see: one thread, avx512 / radix at 2^24, M keys/s, 108 / 95 on the AMD EPYC (Zen 4, 32 MiB
/// L3) but 104 / 121 on the 16-core Xeon host of the GPU machine, where radix passes avx512
/// from 2^23 (BENCHMARKS.md, "Auto's crossovers"). 2^23 keys take about 0.1 s per candidate.
pub const ONE_THREAD_PROBE: usize = 1 << 23;

/// The size at which the short measurement times 64-bit keys once more when the process
/// sorts on one thread, for the same reason as [`ONE_THREAD_PROBE`]: past the L2 the two
/// machines disagree. One thread, avx512 / radix, M keys/s: on the AMD EPYC (Zen 4) radix
/// goes first (2^19 116 / 162, 2^22 66 / 85), on the 16-core Xeon host of the GPU machine the
/// quicksort does once the column base case is in (2^22 84 / 71, 2^24 75 / 55; 2026-11-27,
/// `numpy_reference.py --backends auto,avx512`, auto then radix). Floats follow a measured
/// quicksort win (`Auto`'s routes). 2^22 keys (32 MiB) take about 0.05 s per candidate.
pub const ONE_THREAD_PROBE_64: usize = 1 << 22;

/// The largest size of the short measurement's ladder when the process sorts on several
/// threads (2^20 on one): from 2^20 the order of the quicksort and the radix sort depends on
/// the machine, and the built-in radix lost on both. Two threads, avx512 / radix, M keys/s
/// (2026-11-27, single-threaded quicksort, `sortnet bench --stat best`; BENCHMARKS.md,
/// "Auto's crossovers"): `u32` on the Xeon host (2 MiB L2) 2^20 220-226 / 199-204, 2^21
/// 158-209 / 147-178, 2^22 131-196 / 132-187; on the AMD EPYC (Zen 4, 1 MiB L2, under load)
/// 2^21 106-179 / 96-102, 2^22 130-208 / 112-116; `u64` on the Xeon host 2^21 81-86 / 98-114.
/// Past it, [`THREADS_PROBE`] and [`THREADS_PROBE_64`].
pub const THREADS_TOP: usize = 1 << 21;

/// The size at which the short measurement times 32-bit keys once more when the process
/// sorts on several threads; the winner goes on for longer slices. With the quicksort split
/// over the threads (`keys::network::PARALLEL_SPLIT_MIN_LEN`) radix does not win past
/// the ladder on every machine: two threads of the Xeon host, avx512 / radix, M keys/s
/// (2026-11-28, `sortnet bench --stat best`, two rounds): 2^22 340-342 / 141-159, 2^24
/// 254-268 / 137-153; 16 threads 2^24 984-1112 / 854-908, 2^26 701-762 / 759-796.
pub const THREADS_PROBE: usize = 1 << 23;

/// [`THREADS_PROBE`] for 64-bit keys, a size smaller for the memory it takes (32 MiB of keys
/// and as much scratch while it runs): two threads of the Xeon host, avx512 / radix, M
/// keys/s, 2^22 164-189 / 95-108, 2^24 135-152 / 99-100; 16 threads 2^24 471-516 / 501-641.
/// With both probes (and the ladder to 2^21) the measurement took 1.34 s and 162 MB at its
/// peak on both threads of the 2-core Xeon build machine; without them (the ladder to 2^22)
/// 1.03-1.33 s and 137-161 MB.
pub const THREADS_PROBE_64: usize = 1 << 22;

/// What to time: which workloads, at which sizes, for how long.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The profile rows measured (others keep the built-in thresholds).
    pub rows: Vec<Row>,
    /// The sizes timed, ascending; a change of winner between two of them is placed at their
    /// geometric middle.
    pub sizes: Vec<usize>,
    /// The profile's first entry for a workload starts here: shorter slices keep the
    /// built-in thresholds (0: the measurement decides every length).
    pub from: usize,
    /// Rounds over all candidates per size; a burst of load from other processes then slows
    /// one round of every backend instead of every run of one.
    pub rounds: usize,
    /// Timed runs per candidate per round: at least `min_reps`, more up to `max_reps` while
    /// the round's `budget` lasts. The best run counts.
    pub min_reps: usize,
    pub max_reps: usize,
    pub budget: Duration,
    /// Short slices are sorted in batches of copies covering at least this many elements per
    /// timed run, so that one run is long enough for the clock.
    pub batch_elements: usize,
    /// Only CPU backends (the short measurement), or GPU ones on hardware too.
    pub cpu_only: bool,
    /// Hand lengths past the largest size of a workload without probes back to the built-in
    /// thresholds (one noisy winner at its largest size must not rule every longer slice),
    /// instead of letting that size's winner go on.
    pub built_in_beyond: bool,
    /// Larger sizes timed for one row only, after `sizes`; the winner at the last of them
    /// goes on for every longer slice (no hand-back to the built-in thresholds).
    pub probes: Vec<(Row, usize)>,
}

impl Plan {
    /// The short measurement `auto` runs once per machine over `backends` (see the module
    /// docs).
    pub fn quick(backends: &[&'static dyn SortBackend]) -> Plan {
        let keys32 = Row::integers(Workload::Keys(KeyWidth::W32));
        let keys64 = Row::integers(Workload::Keys(KeyWidth::W64));
        let floats64 = Row::floats(Workload::Keys(KeyWidth::W64));
        let has = |name: &str| backends.iter().any(|b| b.name() == name);
        let mut rows = vec![keys32, keys64];
        if has("avx2") && !has("avx512") {
            rows.push(floats64);
        }
        let one_thread = rayon::current_num_threads() == 1;
        let probe = |row: &Row| match (row.workload, one_thread) {
            (Workload::Keys(KeyWidth::W32), true) => ONE_THREAD_PROBE,
            (_, true) => ONE_THREAD_PROBE_64,
            (Workload::Keys(KeyWidth::W32), false) => THREADS_PROBE,
            (_, false) => THREADS_PROBE_64,
        };
        Plan {
            probes: rows.iter().map(|row| (*row, probe(row))).collect(),
            rows,
            sizes: (4..)
                .map(|k| 1usize << k)
                .take_while(|&size| size <= if one_thread { 1 << 20 } else { THREADS_TOP })
                .collect(),
            from: 0,
            rounds: 2,
            min_reps: 1,
            max_reps: 8,
            budget: Duration::from_millis(1),
            batch_elements: 1 << 14,
            cpu_only: true,
            built_in_beyond: true,
        }
    }

    /// The full measurement of `sortnet calibrate`: every row on the ladder 16, 64,
    /// 256, ... up to `max_size`, about `seconds` per backend and size.
    pub fn full(max_size: usize, seconds: f64) -> Plan {
        let rounds = 3;
        Plan {
            rows: rows().map(|(row, _)| row).collect(),
            sizes: std::iter::successors(Some(16usize), |s| s.checked_mul(4))
                .take_while(|&s| s <= max_size)
                .collect(),
            from: 0,
            rounds,
            min_reps: 1,
            max_reps: 17,
            budget: Duration::from_secs_f64(seconds.max(0.0) / rounds as f64),
            batch_elements: 1 << 16,
            cpu_only: false,
            built_in_beyond: false,
            probes: Vec::new(),
        }
    }

    /// The backends of `backends` timed for `workload` at `size` elements: those `auto`
    /// could send it to (no software GPU driver; for pairs, stable sorts only). The quick
    /// plan leaves out what the ISA decides: `avx2` where `avx512` is there, past 128 keys
    /// (it only wins below 65 keys on Zen 4, nowhere on the Xeon host), and `portable` (2 to
    /// 12 times slower than radix on x86-64; where it is the only vector sort, as on
    /// aarch64, nothing is measured and the built-in order stands).
    pub fn candidates(
        &self,
        backends: &[&'static dyn SortBackend],
        workload: Workload,
        size: usize,
    ) -> Vec<&'static dyn SortBackend> {
        let has = |name: &str| backends.iter().any(|b| b.name() == name);
        backends
            .iter()
            .copied()
            .filter(|b| b.supports(workload) && b.device() != (Device::Gpu { software: true }))
            .filter(|b| !matches!(workload, Workload::Pairs(_)) || STABLE_PAIRS.contains(&b.name()))
            .filter(|b| !self.cpu_only || b.device() == Device::Cpu)
            .filter(|b| {
                !self.cpu_only
                    || match b.name() {
                        "avx2" => !has("avx512") || size <= 128,
                        "portable" => false,
                        _ => true,
                    }
            })
            .collect()
    }
}

/// The timings of the candidates for one row at one size: seconds per element of the best
/// run, or why the backend failed.
#[derive(Debug, Clone)]
pub struct Cell {
    pub row: Row,
    pub size: usize,
    pub times: Vec<(&'static str, Result<f64, String>)>,
}

impl Cell {
    /// The fastest backend that did not fail, and its time.
    pub fn winner(&self) -> Option<(&'static str, f64)> {
        self.times
            .iter()
            .filter_map(|(name, t)| Some((*name, *t.as_ref().ok()?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Times the candidates of `plan` among `backends` (without `auto`) and returns the profile
/// of the winners; `report` sees every cell as it is measured. Rows with fewer than two
/// candidates get no entries (or one, from `plan.from`, when there is exactly one and the
/// plan decides every length).
pub fn measure(
    backends: &[&'static dyn SortBackend],
    plan: &Plan,
    report: &mut dyn FnMut(&Cell),
) -> Profile {
    let mut timed: Vec<String> = Vec::new();
    let mut entries = Vec::new();
    for &row in &plan.rows {
        let all = plan.candidates(backends, row.workload, 0);
        for b in &all {
            if !timed.iter().any(|t| t == b.name()) {
                timed.push(b.name().to_string());
            }
        }
        if all.len() < 2 {
            if let (Some(only), 0) = (all.first(), plan.from) {
                entries.push((row, 0, only.name().to_string()));
            }
            continue;
        }
        let mut winners: Vec<(usize, &'static str)> = Vec::new();
        let probes = plan.probes.iter().filter(|(r, _)| *r == row);
        let probed = probes.clone().count() > 0;
        let sizes = plan
            .sizes
            .iter()
            .copied()
            .chain(probes.map(|&(_, size)| size));
        for (i, size) in sizes.enumerate() {
            let who = plan.candidates(backends, row.workload, size);
            let seed = 0xca11_b4a7_e000 ^ (size as u64).rotate_left(32) ^ i as u64;
            let cell = time_cell(&who, row, size, seed, plan);
            report(&cell);
            if let Some((name, _)) = cell.winner() {
                winners.push((size, name));
            }
        }
        for (from, name) in crossovers(&winners, plan.from) {
            entries.push((row, from, name.to_string()));
        }
        if let (true, false, Some(&(top, _))) = (plan.built_in_beyond, probed, winners.last()) {
            entries.push((row, boundary(top, 2 * top), BUILT_IN.to_string()));
        }
    }
    Profile {
        machine: Some(machine_key()),
        backends: backends.iter().map(|b| b.name().to_string()).collect(),
        timed,
        entries,
    }
}

/// Measures the quick plan and saves it at `path` (atomically, see [`Profile::save`]); a
/// failure to save is reported on stderr once and in the state, never to the sort.
pub(crate) fn measure_once(path: PathBuf, backends: &[&'static dyn SortBackend]) -> State {
    let profile = measure(backends, &Plan::quick(backends), &mut |_| {});
    let saved = profile.save(&path).map_err(|e| e.to_string());
    if let Err(why) = &saved {
        eprintln!(
            "sortnet: warning: could not save the measured profile to {}: {why}; the next \
             process measures again (ProfileChoice::BuiltIn or SORTNET_PROFILE=0 skip it)",
            path.display()
        );
    }
    State::Measured(path, profile, saved)
}

/// Where a switch from one winner to the next is placed: the geometric middle of the two
/// sizes, since throughput curves are smooth in log(size).
pub fn boundary(below: usize, above: usize) -> usize {
    ((below as f64 * above as f64).sqrt().round() as usize).clamp(below + 1, above)
}

/// The profile entries for one workload from the winner at each size: one entry per change
/// of winner, the first from `from`.
pub fn crossovers<'a>(winners: &[(usize, &'a str)], from: usize) -> Vec<(usize, &'a str)> {
    let mut entries: Vec<(usize, &str)> = Vec::new();
    for (i, &(size, name)) in winners.iter().enumerate() {
        match entries.last() {
            None => entries.push((from.min(size), name)),
            Some(&(_, current)) if current != name => {
                entries.push((boundary(winners[i - 1].0, size), name))
            }
            _ => {}
        }
    }
    entries
}

/// SplitMix64: reproducible random keys without a dependency.
fn random_words(len: usize, mut state: u64) -> Vec<u64> {
    (0..len)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

/// One input of a row and its copies: keys (and values 0..len for pairs).
enum Input {
    Words(Vec<u64>),
    Keys32(Vec<u32>),
    Pairs32(Vec<u32>),
    Pairs64(Vec<u64>),
}

fn time_cell(
    who: &[&'static dyn SortBackend],
    row: Row,
    size: usize,
    seed: u64,
    plan: &Plan,
) -> Cell {
    let mut words = random_words(size, seed);
    if row.keys == KeyMap::Float {
        // Floats without NaN, as users' data mostly is: with one, `avx2` sorts `f64` by
        // their integer image, which the integer row times already.
        for w in &mut words {
            if f64::from_bits(*w).is_nan() {
                *w &= !(1 << 62);
            }
        }
    }
    let input = match row.workload {
        Workload::Nibbles | Workload::Keys(KeyWidth::W64) => Input::Words(words),
        Workload::Keys(KeyWidth::W32) => {
            Input::Keys32(words.into_iter().map(|w| w as u32).collect())
        }
        Workload::Pairs(KeyWidth::W32) => {
            Input::Pairs32(words.into_iter().map(|w| w as u32).collect())
        }
        Workload::Pairs(KeyWidth::W64) => Input::Pairs64(words),
    };
    let copies = (plan.batch_elements / size.max(1)).max(1);
    let mut best: Vec<Result<f64, String>> = vec![Ok(f64::INFINITY); who.len()];
    for _ in 0..plan.rounds {
        for (i, &b) in who.iter().enumerate() {
            if best[i].is_err() {
                continue;
            }
            let t = time_runs(b, row, &input, copies, plan);
            best[i] = match (&best[i], t) {
                (Ok(old), Ok(new)) => Ok(old.min(new / (size * copies).max(1) as f64)),
                (_, Err(why)) => Err(why),
                (Err(why), _) => Err(why.clone()),
            };
        }
    }
    Cell {
        row,
        size,
        times: who.iter().map(|b| b.name()).zip(best).collect(),
    }
}

/// The best of the plan's runs of `b` sorting `copies` fresh copies of `input`, in seconds;
/// `Err` when the call fails or the first result is not sorted.
fn time_runs(
    b: &dyn SortBackend,
    row: Row,
    input: &Input,
    copies: usize,
    plan: &Plan,
) -> Result<f64, String> {
    let start = Instant::now();
    let mut best = f64::INFINITY;
    let mut reps = 0;
    let fail = |e: crate::Error| format!("{} failed: {e}", b.name());
    let (workload, map) = (row.workload, row.keys);
    while reps < plan.min_reps || (reps < plan.max_reps && start.elapsed() < plan.budget) {
        let (secs, sorted) = match input {
            Input::Words(src) => time_copies(
                src,
                copies,
                |buf| match workload {
                    Workload::Nibbles => b.sort_nibbles(buf),
                    _ => b.sort_keys64(buf, map),
                },
                |buf| workload == Workload::Nibbles || ascending64(buf, map),
            ),
            Input::Keys32(src) => time_copies(
                src,
                copies,
                |buf| b.sort_keys32(buf, map),
                |buf| ascending32(buf, map),
            ),
            Input::Pairs32(src) => time_copies(
                &(src.clone(), (0..src.len() as u32).collect::<Vec<_>>()),
                copies,
                |(k, v)| b.sort_pairs32(k, v, map),
                |(k, _)| ascending32(k, map),
            ),
            Input::Pairs64(src) => time_copies(
                &(src.clone(), (0..src.len() as u32).collect::<Vec<_>>()),
                copies,
                |(k, v)| b.sort_pairs64(k, v, map),
                |(k, _)| ascending64(k, map),
            ),
        }
        .map_err(fail)?;
        best = best.min(secs);
        if !sorted {
            return Err(format!("{} returned unsorted keys", b.name()));
        }
        reps += 1;
    }
    Ok(best)
}

/// Sorts `copies` fresh clones of `src` with `sort`: the seconds the sorts took, and whether
/// the first copy came out sorted by `check`.
fn time_copies<T: Clone>(
    src: &T,
    copies: usize,
    mut sort: impl FnMut(&mut T) -> crate::Result<()>,
    check: impl Fn(&T) -> bool,
) -> crate::Result<(f64, bool)> {
    let mut bufs = vec![src.clone(); copies];
    let t = Instant::now();
    for buf in &mut bufs {
        sort(buf)?;
    }
    let secs = t.elapsed().as_secs_f64();
    Ok((secs, check(&bufs[0])))
}

fn ascending32(keys: &[u32], map: KeyMap) -> bool {
    keys.windows(2)
        .all(|w| map.encode32(w[0]) <= map.encode32(w[1]))
}

fn ascending64(keys: &[u64], map: KeyMap) -> bool {
    keys.windows(2)
        .all(|w| map.encode64(w[0]) <= map.encode64(w[1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossovers_keep_one_entry_per_change_of_winner() {
        assert_eq!(crossovers(&[], 0), []);
        assert_eq!(crossovers(&[(16, "a"), (64, "a")], 0), [(0, "a")]);
        assert_eq!(
            crossovers(&[(16, "a"), (64, "b"), (256, "b"), (1024, "a")], 0),
            [(0, "a"), (32, "b"), (512, "a")]
        );
        // The quick plan leaves the shortest slices to the built-in thresholds.
        assert_eq!(
            crossovers(&[(512, "a"), (2048, "b")], 256),
            [(256, "a"), (1024, "b")]
        );
    }

    #[test]
    fn a_probed_workload_keeps_its_last_winner_for_longer_slices() {
        let backends = super::super::cpu::backends(true);
        let k32 = Row::integers(Workload::Keys(KeyWidth::W32));
        let k64 = Row::integers(Workload::Keys(KeyWidth::W64));
        let plan = Plan {
            sizes: vec![16, 64],
            probes: vec![(k32, 1024)],
            ..Plan::quick(&backends)
        };
        let mut sizes = Vec::new();
        let profile = measure(&backends, &plan, &mut |cell| {
            sizes.push((cell.row, cell.size))
        });
        // Rows with fewer than two candidates (aarch64: only `portable`) time nothing.
        let k32_open = plan.candidates(&backends, k32.workload, 0).len() >= 2;
        assert_eq!(sizes.contains(&(k32, 1024)), k32_open, "{sizes:?}");
        assert!(!sizes.contains(&(k64, 1024)), "{sizes:?}");
        if k32_open {
            assert!(profile.fastest(k32, 1 << 30).is_some());
        }
        if plan.candidates(&backends, k64.workload, 0).len() >= 2 {
            assert_eq!(profile.fastest(k64, 1 << 30), None);
        }
    }

    #[test]
    fn boundaries_sit_between_the_sizes() {
        assert_eq!(boundary(16, 64), 32);
        assert_eq!(boundary(1 << 20, 1 << 22), 1 << 21);
        assert_eq!(boundary(1, 2), 2);
    }

    #[test]
    fn every_row_is_probed_past_the_ladder_on_any_thread_count() {
        let k32 = Row::integers(Workload::Keys(KeyWidth::W32));
        let k64 = Row::integers(Workload::Keys(KeyWidth::W64));
        let f64s = Row::floats(Workload::Keys(KeyWidth::W64));
        let on = |threads, avx512| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            pool.install(|| Plan::quick(&super::super::cpu::backends(avx512)))
        };
        let with_avx2 = super::super::cpu::backends(false)
            .iter()
            .any(|b| b.name() == "avx2");
        let with_avx512 = super::super::cpu::backends(true)
            .iter()
            .any(|b| b.name() == "avx512");
        for avx512 in [false, true] {
            // `f64` keys get a row of their own where `avx2` is the widest quicksort.
            let floats = with_avx2 && !(avx512 && with_avx512);
            let one = on(1, avx512);
            let two = on(2, avx512);
            let mut expect_one = vec![(k32, ONE_THREAD_PROBE), (k64, ONE_THREAD_PROBE_64)];
            let mut expect_two = vec![(k32, THREADS_PROBE), (k64, THREADS_PROBE_64)];
            if floats {
                expect_one.push((f64s, ONE_THREAD_PROBE_64));
                expect_two.push((f64s, THREADS_PROBE_64));
            }
            assert_eq!(one.probes, expect_one);
            assert_eq!(two.probes, expect_two);
            assert_eq!(one.rows, expect_one.iter().map(|p| p.0).collect::<Vec<_>>());
            assert_eq!(one.sizes.last().copied(), Some(1 << 20));
            assert_eq!(two.sizes.last().copied(), Some(THREADS_TOP));
        }
    }

    #[test]
    fn the_quick_plan_times_only_the_open_crossovers_on_the_cpu() {
        for avx512 in [true, false] {
            quick_plan_times_only_the_open_crossovers(&super::super::cpu::backends(avx512));
        }
    }

    fn quick_plan_times_only_the_open_crossovers(backends: &[&'static dyn SortBackend]) {
        let plan = Plan::quick(backends);
        let mut cells = 0;
        let profile = measure(backends, &plan, &mut |cell| {
            cells += 1;
            assert!(cell.times.iter().all(|(_, t)| t.is_ok()), "{cell:?}");
        });
        let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
        let has = |n| names.contains(&n);
        // Every entry is a timed CPU key backend, none below the plan's start; avx2 only
        // for the shortest slices where avx512 is there.
        for (row, from, name) in &profile.entries {
            assert!(matches!(row.workload, Workload::Keys(_)), "{row:?}");
            assert!(*from >= plan.from, "{from}");
            assert!(profile.timed.contains(name) || name == BUILT_IN, "{name}");
        }
        // Past the largest size the built-in thresholds decide, unless a probe measured
        // beyond it.
        for &row in &plan.rows {
            if plan.candidates(backends, row.workload, 0).len() < 2 {
                continue;
            }
            let top = *plan.sizes.last().unwrap();
            let probed = plan.probes.iter().any(|(r, _)| *r == row);
            assert_eq!(profile.fastest(row, 64 * top).is_some(), probed, "{row:?}");
            assert!(profile.fastest(row, top).is_some(), "{row:?}");
        }
        // Float keys are timed only where `avx2` is the widest quicksort.
        let floats = plan
            .rows
            .contains(&Row::floats(Workload::Keys(KeyWidth::W64)));
        assert_eq!(floats, has("avx2") && !has("avx512"));
        assert!(!profile
            .timed
            .iter()
            .any(|t| t == "portable" || t == "scalar"));
        if has("avx512") {
            assert!(plan
                .candidates(backends, Workload::Keys(KeyWidth::W32), 256)
                .iter()
                .all(|b| b.name() != "avx2"));
        }
        let open = plan
            .rows
            .iter()
            .filter(|r| plan.candidates(backends, r.workload, 0).len() >= 2)
            .count();
        let probes = plan
            .probes
            .iter()
            .filter(|(r, _)| plan.candidates(backends, r.workload, 0).len() >= 2)
            .count();
        assert_eq!(cells, open * plan.sizes.len() + probes);
        assert_eq!(profile.machine, Some(machine_key()));
        // It reads back from its text.
        assert_eq!(Profile::parse(&profile.to_text()).as_ref(), Ok(&profile));
    }
}
