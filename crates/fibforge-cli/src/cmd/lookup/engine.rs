//! What answers the queries of one address family.
//!
//! The next hop comes from the chosen algorithm: for `poptrie` (the default) the concurrent
//! [`fibforge::Table`], as applications use it; otherwise the registry's structure. Compiled
//! structures keep next hops, not prefixes, so the matching route comes from a [`RouteIndex`]:
//! a Poptrie over the same routes whose "next hops" are route numbers (a walk of the RIB's
//! radix tree per address would cost far more than the lookup itself, and `lookup` must keep
//! up with millions of lines a second). The algorithm's next hop is checked against the
//! index's route for every address: a difference is reported as an internal error (a bug),
//! never printed. Prefix queries are answered by the RIB itself (longest covering route).
//! A structure imported from an export file answers alone: it comes without routes, so
//! without prefixes and without the check.

use fibforge::algo::poptrie;
use fibforge::algo::poptrie::{Key, Poptrie};
use fibforge::registry::{self, AlgoSpec, RegistryFamily, StructureId, build};
use fibforge::{Compile, Family, Lookup, NextHop, Prefix, Rib};

/// The routes, numbered, and a Poptrie answering route numbers.
pub struct RouteIndex<A: Key> {
    routes: Vec<(Prefix<A>, NextHop)>,
    trie: Poptrie<A>,
}

impl<A: Key> RouteIndex<A> {
    /// Numbers the routes of `rib` and compiles the index.
    pub fn build(rib: &Rib<A>) -> anyhow::Result<Self> {
        let routes: Vec<(Prefix<A>, NextHop)> = rib.iter().collect();
        let mut numbered = Rib::with_capacity(routes.len());
        for (i, (p, _)) in routes.iter().enumerate() {
            let id = u32::try_from(i).map_err(|_| anyhow::anyhow!("too many routes to index"))?;
            numbered.insert(*p, NextHop::from_index(id));
        }
        let trie = Poptrie::compile(&numbered, &Default::default())?;
        Ok(RouteIndex { routes, trie })
    }

    /// The longest route containing `addr`.
    #[cfg(test)]
    pub fn longest_match(&self, addr: A) -> Option<(Prefix<A>, NextHop)> {
        self.trie.lookup(addr).map(|id| self.routes[id.index() as usize])
    }
}

/// Buffers of [`Engine::longest_match_batch`], kept between calls.
#[derive(Default)]
pub struct Scratch {
    got: Vec<Option<NextHop>>,
    ids: Vec<Option<NextHop>>,
}

/// What answers one family: a concurrent table (owning the RIB), a compiled structure, or an
/// imported one (no RIB).
enum Answerer<A: Key> {
    Table(Box<fibforge::Table<A>>),
    Compiled(Box<dyn Lookup<A>>, Rib<A>),
    Exported(Box<dyn Lookup<A>>),
}

/// One family's algorithm, its route index and its RIB (neither for an export).
pub struct Engine<A: Key> {
    answerer: Answerer<A>,
    index: Option<RouteIndex<A>>,
}

impl<A: Key> Engine<A> {
    /// Builds the engine for `spec` on `rib` (taken over); `Ok(Err(why))` when the algorithm
    /// does not handle this family, `Ok(Ok(None))` when the family has no routes.
    pub fn new(
        spec: &AlgoSpec,
        rib: &mut Rib<A>,
        family: Family,
    ) -> anyhow::Result<Result<Option<Self>, String>>
    where
        A: RegistryFamily,
    {
        if rib.is_empty() {
            return Ok(Ok(None));
        }
        if registry::info(&spec.name).is_some_and(|i| !i.supports(family)) {
            return Ok(Err(format!(
                "algorithm '{}' does not handle {family} (the table's {family} routes need an \
                 algorithm of both families, such as poptrie)",
                spec.name
            )));
        }
        let index = RouteIndex::build(rib)?;
        let poptrie = registry::info(&spec.name).is_some_and(|r| r.id == StructureId::Poptrie);
        let answerer = if poptrie {
            let (_, resolved) = registry::resolve(spec)?;
            let cfg = poptrie::Config::from_spec::<A>(&resolved)?;
            let t = fibforge::Table::with_config(std::mem::take(rib), &cfg)?;
            Answerer::Table(Box::new(t))
        } else {
            Answerer::Compiled(build(spec, rib)?, std::mem::take(rib))
        };
        Ok(Ok(Some(Engine { answerer, index: Some(index) })))
    }

    /// The engine of a structure imported from an export file.
    pub fn exported(fib: Box<dyn Lookup<A>>) -> Self {
        Engine { answerer: Answerer::Exported(fib), index: None }
    }

    /// The longest route containing each address of `addrs`, with its next hop as the
    /// algorithm answers it, into `out` (cleared first); the prefix is `None` for an export.
    /// Batch lookups overlap the cache misses that dominate single ones.
    pub fn longest_match_batch(
        &self,
        addrs: &[A],
        out: &mut Vec<super::Answer<A>>,
        scratch: &mut Scratch,
    ) -> anyhow::Result<()> {
        let (got, ids) = (&mut scratch.got, &mut scratch.ids);
        got.clear();
        got.resize(addrs.len(), None);
        ids.clear();
        ids.resize(addrs.len(), None);
        match &self.answerer {
            Answerer::Table(t) => t.fib().lookup_batch(addrs, got),
            Answerer::Compiled(c, _) | Answerer::Exported(c) => c.lookup_batch(addrs, got),
        }
        out.clear();
        let Some(index) = &self.index else {
            out.extend(got.iter().map(|g| g.map(|h| (None, h))));
            return Ok(());
        };
        index.trie.lookup_batch(addrs, ids);
        out.extend(ids.iter().map(|id| {
            id.map(|id| {
                let (p, h) = index.routes[id.index() as usize];
                (Some(p), h)
            })
        }));
        for ((a, g), w) in addrs.iter().zip(got.iter()).zip(out.iter()) {
            if *g != w.map(|(_, h)| h) {
                anyhow::bail!("internal error: algorithm answered {g:?} for {a:?}, the RIB {w:?}");
            }
        }
        Ok(())
    }

    /// The longest route covering `prefix` (itself included).
    /// (`None` for an export, which holds no routes; `Run::push` refuses such queries.)
    pub fn longest_covering(&self, prefix: &Prefix<A>) -> Option<(Prefix<A>, NextHop)> {
        let rib = match &self.answerer {
            Answerer::Table(t) => t.rib(),
            Answerer::Compiled(_, rib) => rib,
            Answerer::Exported(_) => return None,
        };
        rib.longest_covering(prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_answers_the_rib_longest_match() {
        let mut rib = Rib::<u32>::new();
        let routes = [("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.0.0/16", 3), ("10.1.2.3/32", 4)];
        for (p, h) in routes {
            rib.insert(p.parse().unwrap(), NextHop::from_index(h));
        }
        let index = RouteIndex::build(&rib).unwrap();
        let mut rng = fibforge::verify::rng::XorShift64::new(0x9e37_79b9);
        for probe in [0x0a01_0203, 0x0a01_0204, 0x0a02_0000, 0x0b00_0000, 0, u32::MAX] {
            assert_eq!(index.longest_match(probe), rib.longest_match(probe), "{probe:#x}");
        }
        for _ in 0..10_000 {
            let x = rng.next_u64() as u32;
            let a = if x & 1 == 0 { x } else { 0x0a00_0000 | (x & 0x00ff_ffff) };
            assert_eq!(index.longest_match(a), rib.longest_match(a), "{a:#x}");
        }
    }
}
