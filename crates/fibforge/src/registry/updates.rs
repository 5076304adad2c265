//! Updates by name: [`run_incremental`] finds the structure a spec names and hands its
//! concrete type to an [`IncrementalJob`] (`fibforge replay`'s harness), so the job runs
//! monomorphised code, the reader loop included. The dispatch matches on [`StructureId`],
//! the lists ([`replay_all`]) come from the descriptors' capabilities.

use super::{AlgoSpec, RegistryFamily, ReplayAll, StructureId as Id, info, resolve};
use crate::addr::Address;
use crate::algo::{bloom, bplus, dir24_8, dxr, miht, multibit, poptrie, radix, sail, treebitmap};
use crate::fib::{BuildError, Incremental};
use crate::multi::MultiWriter;
use crate::multi::loop_;
use crate::multi::loop_::{Loop, LoopFib};
use crate::multi::sail_m::{SailMFib, SailMWriter};
use crate::qsbr::Concurrent;

/// What to do with an updatable structure, given its type: the visitor of
/// [`run_incremental`].
#[doc(hidden)]
pub trait IncrementalJob<A: Address> {
    /// The job's result.
    type Output;
    /// A structure readers share as it is updated ([`Concurrent`]: Poptrie, the B+-tree).
    fn concurrent<F: Concurrent<A>>(self, cfg: &F::Config) -> Self::Output;
    /// Any other updatable structure (readers need two copies, `sync::LeftRight`).
    fn left_right<F: Incremental<A> + 'static>(self, cfg: &F::Config) -> Self::Output
    where
        F::Config: Send + Sync;
    /// A many-table structure `W` whose one-table form is `S` (LOOP, SAIL_M).
    fn many_tables<W, S>(self, cfg: W::Config) -> Self::Output
    where
        W: MultiWriter<A>,
        S: Incremental<A, Config = W::Config> + 'static;
}

/// What a family-specific dispatch returns: the job's result, or the job back (not here).
type Here<J, O> = Result<Result<O, BuildError>, J>;

/// The address families [`run_incremental`] dispatches for: every updatable structure's key.
#[doc(hidden)]
pub trait IncrementalFamily: RegistryFamily + poptrie::Key + bplus::Key + bloom::BloomKey {
    /// Runs `job` with a structure of this family only (IPv4: DIR-24-8, SAIL_B, SAIL_U); the
    /// job back for another id.
    #[doc(hidden)]
    fn only_here<J: IncrementalJob<Self>>(id: Id, spec: &AlgoSpec, job: J) -> Here<J, J::Output>;
}

impl IncrementalFamily for u32 {
    fn only_here<J: IncrementalJob<u32>>(id: Id, spec: &AlgoSpec, job: J) -> Here<J, J::Output> {
        let sail = || sail::Config::from_spec(spec);
        Ok(match id {
            Id::Dir24_8 => Ok(job.left_right::<dir24_8::Dir24_8>(&())),
            Id::SailB => sail().map(|cfg| job.left_right::<sail::SailB>(&cfg)),
            Id::SailU => sail().map(|cfg| job.left_right::<sail::SailU>(&cfg)),
            _ => return Err(job),
        })
    }
}

impl IncrementalFamily for u128 {
    fn only_here<J: IncrementalJob<u128>>(_: Id, _: &AlgoSpec, job: J) -> Here<J, J::Output> {
        Err(job)
    }
}

/// Runs `job` with the structure `spec` names: `Ok(None)` when the name is unknown or the
/// structure has no updates in family `A`; an error for a bad option (or a configuration
/// without updates: a leaf-pushed CPE trie).
#[doc(hidden)]
pub fn run_incremental<A: IncrementalFamily, J: IncrementalJob<A>>(
    spec: &AlgoSpec,
    job: J,
) -> Result<Option<J::Output>, BuildError> {
    let Some(row) = info(&spec.name) else { return Ok(None) };
    if !row.caps.incremental() || !row.supports(A::FAMILY) {
        return Ok(None);
    }
    let (row, spec) = resolve(spec)?;
    let job = match A::only_here(row.id, &spec, job) {
        Ok(done) => return done.map(Some),
        Err(job) => job,
    };
    both(row.id, row.name, &spec, job)
}

/// The updatable structures of both families.
fn both<A: IncrementalFamily, J: IncrementalJob<A>>(
    id: Id,
    name: &'static str,
    spec: &AlgoSpec,
    job: J,
) -> Result<Option<J::Output>, BuildError> {
    let out = match id {
        Id::Poptrie => {
            job.concurrent::<poptrie::Poptrie<A>>(&poptrie::Config::from_spec::<A>(spec)?)
        }
        Id::BPlus => job.concurrent::<bplus::BPlus<A>>(&bplus::Config::from_spec(spec)?),
        Id::Radix => job.left_right::<radix::Radix<A>>(&()),
        Id::Loop => job.many_tables::<Loop<A>, LoopFib<A>>(loop_::Config::from_spec(spec)?),
        Id::Bloom => job.left_right::<bloom::BloomFib<A>>(&bloom::Config::from_spec(spec)?),
        Id::Miht => job.left_right::<miht::Miht<A>>(&miht::Config::from_spec(spec)?),
        Id::TreeBitmap4 => job.left_right::<treebitmap::TreeBitmap4<A>>(&()),
        Id::TreeBitmap6 => job.left_right::<treebitmap::TreeBitmap6<A>>(&()),
        Id::Dxr => job.left_right::<dxr::Dxr<A>>(&dxr::Config::from_spec(spec)?),
        Id::SailL => job.left_right::<sail::SailL<A>>(&sail::Config::from_spec(spec)?),
        Id::SailM => job.many_tables::<SailMWriter<A>, SailMFib<A>>(sail::Config::from_spec(spec)?),
        Id::Cpe => {
            let cfg = multibit::Config::from_spec(spec)?;
            if cfg.leaf_pushed {
                let reason = "the leaf-pushed trie has no updates; replay it with leafpush=off";
                return Err(BuildError::Unsupported { algo: name, reason: reason.into() });
            }
            job.left_right::<multibit::UpdatableTrie<A>>(&cfg)
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// The specs `fibforge replay --algo all` runs, in report order: the updatable structures
/// (with their replay options), then, when `ipv4_only`, those replayed for IPv4 only; each
/// list on its own when `ipv4_only` selects it alone.
#[doc(hidden)]
pub fn replay_all(ipv4_only: bool) -> Vec<String> {
    let mut rows: Vec<(ReplayAll, &str)> = super::ALGORITHMS
        .iter()
        .filter_map(|r| r.caps.replay_all.map(|p| (p, r.name)))
        .filter(|(p, _)| p.ipv4_only == ipv4_only)
        .collect();
    rows.sort_by_key(|(p, _)| p.rank);
    rows.iter()
        .map(|(p, name)| match p.options {
            "" => name.to_string(),
            options => format!("{name}:{options}"),
        })
        .collect()
}
