//! Comparing a structure's answers with the RIB's on a set of probe addresses.

use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use rayon::prelude::*;

/// How many differences a [`Report`] keeps, readable.
#[doc(hidden)]
pub const EXAMPLES: usize = 10;

/// Addresses batched per parallel task (and per `lookup_batch` call).
const CHUNK: usize = 4096;

/// Addresses and the RIB's answer for each.
#[derive(Clone, Debug, Default)]
pub struct Probes<A> {
    /// The addresses, in the order they are looked up.
    pub addrs: Vec<A>,
    /// The oracle's answer for each address.
    pub expected: Vec<Option<NextHop>>,
}

impl<A: Address> Probes<A> {
    /// `addrs` with the RIB's answers (computed on all cores).
    pub fn new(rib: &Rib<A>, addrs: Vec<A>) -> Self {
        let expected = addrs.par_iter().map(|&a| rib.lookup(a)).collect();
        Probes { addrs, expected }
    }
}

/// The outcome of a check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Lookups compared (single and batch count separately).
    pub checked: u64,
    /// Lookups that differed from the oracle.
    pub mismatches: u64,
    /// The first [`EXAMPLES`] differences, readable.
    pub examples: Vec<String>,
}

impl Report {
    /// No mismatch.
    pub fn is_ok(&self) -> bool {
        self.mismatches == 0
    }

    /// Adds `other`'s counts and as many of its examples as there is room for.
    #[doc(hidden)]
    pub fn merge(&mut self, other: Report) {
        self.checked += other.checked;
        self.mismatches += other.mismatches;
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
    }

    /// Counts one difference, keeping it readable while there is room.
    #[doc(hidden)]
    pub fn note<A: Address>(
        &mut self,
        addr: A,
        how: &str,
        want: Option<NextHop>,
        got: Option<Option<NextHop>>,
    ) {
        self.mismatches += 1;
        if self.examples.len() < EXAMPLES {
            let index = |h: Option<NextHop>| h.map(|h| h.index());
            let shown = got.map_or("no answer".to_string(), |h| format!("{:?}", index(h)));
            self.examples.push(format!(
                "{} ({how}): expected {:?}, got {shown}",
                addr.to_std(),
                index(want)
            ));
        }
    }

    /// Panics naming `what`, the number of mismatches and the first ones, unless
    /// [`Report::is_ok`]: the form tests use.
    #[track_caller]
    pub fn assert_ok(&self, what: &str) {
        assert!(
            self.is_ok(),
            "{what}: {} of {} lookups differ from the RIB; first: {:#?}",
            self.mismatches,
            self.checked,
            self.examples
        );
    }
}

/// Checks `fib` against the oracle through `lookup` (if `single`) and `lookup_batch` (if
/// `batch`, in chunks of the probes' own order), on all cores.
pub fn check<A: Address, F: Lookup<A> + ?Sized>(
    fib: &F,
    probes: &Probes<A>,
    single: bool,
    batch: bool,
) -> Report {
    let mut r = Report::default();
    if single {
        let got: Vec<Option<NextHop>> = probes.addrs.par_iter().map(|&a| fib.lookup(a)).collect();
        r.merge(compare(&got, probes, "lookup"));
    }
    if batch {
        let mut got = vec![None; probes.addrs.len()];
        got.par_chunks_mut(CHUNK)
            .zip(probes.addrs.par_chunks(CHUNK))
            .for_each(|(out, addrs)| fib.lookup_batch(addrs, out));
        r.merge(compare(&got, probes, "lookup_batch"));
    }
    r
}

/// Compares answers given for `probes.addrs` (in order) with the oracle's. Missing answers
/// (a shorter `got`) count as mismatches: out-of-process peers hand back their answers here.
pub fn compare<A: Address>(got: &[Option<NextHop>], probes: &Probes<A>, how: &str) -> Report {
    let mut r = Report { checked: probes.addrs.len() as u64, ..Default::default() };
    for (i, (&a, &want)) in probes.addrs.iter().zip(&probes.expected).enumerate() {
        let answer = got.get(i).copied();
        if answer != Some(want) {
            r.note(a, how, want, answer);
        }
    }
    r
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo::radix::Radix;
    use crate::fib::Compile;

    pub(crate) fn rib() -> Rib<u32> {
        ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24"]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.parse().unwrap(), NextHop::from_index(i as u32)))
            .collect()
    }

    /// A structure that is wrong for one /16.
    pub(crate) struct Broken(pub(crate) Radix<u32>);
    impl Lookup<u32> for Broken {
        fn lookup(&self, a: u32) -> Option<NextHop> {
            if a >> 16 == 0x0A01 { None } else { self.0.lookup(a) }
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }

    #[test]
    fn correct_structures_pass_and_wrong_ones_are_caught() {
        let rib = rib();
        let probes = Probes::new(&rib, super::super::probes(&rib, 1, 1000, 1));
        let good = Radix::compile(&rib, &()).unwrap();
        let r = check(&good, &probes, true, true);
        assert_eq!(r, Report { checked: 2 * probes.addrs.len() as u64, ..Default::default() });
        let r = check(&Broken(good), &probes, true, true);
        assert!(r.mismatches > 0, "boundaries of 10.1.0.0/16 are probed");
        assert!(r.examples[0].contains("10.1."), "{:?}", r.examples);
        assert!(r.examples.len() <= EXAMPLES);
    }

    #[test]
    fn compare_counts_missing_and_wrong_answers() {
        let rib = rib();
        let probes = Probes::new(&rib, vec![0x0A01_0101, 0x0A02_0000, 0xC000_0201]);
        let right: Vec<_> = probes.expected.clone();
        assert_eq!(compare(&right, &probes, "x").mismatches, 0);
        let mut wrong = right.clone();
        wrong[1] = None;
        assert_eq!(compare(&wrong, &probes, "x").mismatches, 1);
        let short = compare(&right[..1], &probes, "x");
        assert_eq!(short.mismatches, 2);
        assert!(short.examples[0].contains("no answer"), "{:?}", short.examples);
    }
}
