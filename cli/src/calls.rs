//! The bench workloads of the calls beyond a plain sort: descending sort, argsort, records by
//! key, select and partial sort, each against what a Rust user writes instead with std (and
//! rayon where it has the call).

use rayon::slice::ParallelSliceMut;

use super::data::{
    copies_for, fingerprint, time_on_copies, time_runs, Contestant, Kind, Policy, Sample, ToolKey,
};

/// A 16-byte record: a `u32` key and the record's input index (to check the result).
#[derive(Clone, Copy)]
struct Record16 {
    key: u32,
    tag: u32,
    _rest: [u32; 2],
}

/// A 32-byte record: a `u64` key and the record's input index.
#[derive(Clone, Copy)]
struct Record32 {
    key: u64,
    tag: u64,
    _rest: [u64; 2],
}

/// Times `who` making `kind`'s call on copies of keys from `words`; `Err` if the call fails
/// or its result is wrong.
pub fn measure(
    kind: Kind,
    words: &[u64],
    who: Contestant,
    policy: Policy,
) -> Result<Sample, String> {
    let keys: Vec<u32> = words.iter().map(|&w| w as u32).collect();
    match kind {
        Kind::Descending => descending(&keys, who, policy),
        Kind::Argsort => argsort(&keys, who, policy),
        Kind::Records16 => {
            let items: Vec<Record16> = (0..keys.len())
                .map(|i| Record16 {
                    key: keys[i],
                    tag: i as u32,
                    _rest: [0; 2],
                })
                .collect();
            records(&items, |r| r.key, |r| r.tag as usize, who, policy)
        }
        Kind::Records32 => {
            let items: Vec<Record32> = (0..words.len())
                .map(|i| Record32 {
                    key: words[i],
                    tag: i as u64,
                    _rest: [0; 2],
                })
                .collect();
            records(&items, |r| r.key, |r| r.tag as usize, who, policy)
        }
        Kind::Select => select(&keys, who, policy, false),
        Kind::Select64 => select(words, who, policy, false),
        Kind::Partial => select(&keys, who, policy, true),
        _ => Err(format!("{kind:?} is not a call workload")),
    }
}

fn wrong(who: Contestant) -> String {
    format!("{} returned a wrong result", who.name())
}

fn descending(src: &[u32], who: Contestant, policy: Policy) -> Result<Sample, String> {
    time_on_copies(
        src,
        policy,
        |b| {
            match who {
                Contestant::Backend(be) => be.sort_descending(b).map_err(|e| e.to_string())?,
                Contestant::Std => b.sort_unstable_by(|x, y| y.cmp(x)),
                Contestant::Rayon => b.par_sort_unstable_by(|x, y| y.cmp(x)),
                Contestant::Reference => return Err("not a key sort".into()),
            }
            Ok(())
        },
        |out| {
            let good = out.windows(2).all(|w| w[0] >= w[1]) && fingerprint(out) == fingerprint(src);
            good.then_some(()).ok_or_else(|| wrong(who))
        },
    )
}

fn argsort(keys: &[u32], who: Contestant, policy: Policy) -> Result<Sample, String> {
    let copies = copies_for(keys.len());
    let mut orders: Vec<Vec<usize>> = vec![Vec::new(); copies];
    time_runs(
        &mut orders,
        keys.len() * copies,
        policy,
        |orders| orders.iter_mut().for_each(Vec::clear),
        |orders| {
            for order in orders.iter_mut() {
                *order = match who {
                    Contestant::Backend(b) => b.argsort(keys).map_err(|e| e.to_string())?,
                    Contestant::Std => {
                        let mut idx: Vec<usize> = (0..keys.len()).collect();
                        idx.sort_by_key(|&i| keys[i]);
                        idx
                    }
                    Contestant::Rayon => {
                        let mut idx: Vec<usize> = (0..keys.len()).collect();
                        idx.par_sort_by_key(|&i| keys[i]);
                        idx
                    }
                    Contestant::Reference => return Err("not a key sort".into()),
                };
            }
            Ok(())
        },
        |orders| {
            // Stable: equal keys keep their indices ascending.
            let order = &orders[0];
            let mut seen = vec![false; keys.len()];
            let permutation = order.len() == keys.len()
                && order
                    .iter()
                    .all(|&i| i < keys.len() && !std::mem::replace(&mut seen[i], true));
            let stable = permutation
                && order
                    .windows(2)
                    .all(|w| (keys[w[0]], w[0]) < (keys[w[1]], w[1]));
            stable.then_some(()).ok_or_else(|| wrong(who))
        },
    )
}

fn records<T, K>(
    src: &[T],
    key: impl Fn(&T) -> K + Sync + Copy,
    tag: impl Fn(&T) -> usize,
    who: Contestant,
    policy: Policy,
) -> Result<Sample, String>
where
    T: Copy + Send + Sync,
    K: sortnet::Key + Ord,
{
    time_on_copies(
        src,
        policy,
        |b| {
            match who {
                Contestant::Backend(be) => be.sort_by_key(b, key).map_err(|e| e.to_string())?,
                Contestant::Std => b.sort_by_key(key),
                Contestant::Rayon => b.par_sort_by_key(key),
                Contestant::Reference => return Err("not a key sort".into()),
            }
            Ok(())
        },
        |out| {
            // Stable, and every record once: (key, input index) strictly ascending.
            let mut seen = vec![false; src.len()];
            let whole = out
                .iter()
                .all(|r| tag(r) < src.len() && !std::mem::replace(&mut seen[tag(r)], true));
            let stable = out
                .windows(2)
                .all(|w| (key(&w[0]), tag(&w[0])) < (key(&w[1]), tag(&w[1])));
            (whole && stable).then_some(()).ok_or_else(|| wrong(who))
        },
    )
}

/// `select_nth` at n/2, or (`partial`) `partial_sort` of the n/100 smallest; std's peer is
/// `select_nth_unstable` (and a sort of the prefix before it).
fn select<K: ToolKey + Ord>(
    src: &[K],
    who: Contestant,
    policy: Policy,
    partial: bool,
) -> Result<Sample, String> {
    let at = if partial {
        src.len() / 100
    } else {
        src.len() / 2
    };
    time_on_copies(
        src,
        policy,
        |b| {
            match (who, partial) {
                (Contestant::Backend(be), false) => {
                    be.select_nth(b, at).map_err(|e| e.to_string())?
                }
                (Contestant::Backend(be), true) => {
                    be.partial_sort(b, at).map_err(|e| e.to_string())?
                }
                (Contestant::Std, false) => {
                    b.select_nth_unstable(at);
                }
                (Contestant::Std, true) => {
                    if at > 0 {
                        b.select_nth_unstable(at - 1);
                        b[..at - 1].sort_unstable();
                    }
                }
                _ => return Err(format!("{} does not select", who.name())),
            }
            Ok(())
        },
        |out| {
            let mut sorted = src.to_vec();
            sorted.sort_unstable();
            let good = if partial {
                out[..at] == sorted[..at]
            } else {
                out[at] == sorted[at]
                    && out[..at].iter().all(|&k| k <= out[at])
                    && out[at..].iter().all(|&k| k >= out[at])
            };
            (good && fingerprint(out) == fingerprint(src))
                .then_some(())
                .ok_or_else(|| wrong(who))
        },
    )
}
