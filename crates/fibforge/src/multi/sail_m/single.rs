//! [`SailMFib`] (SAIL_M over one table) as an [`Incremental`] structure: each changed route
//! goes through the in-place update of `update.rs`, as [`SailMWriter`](super::SailMWriter)'s
//! do, against the caller's RIB (table 0). This is what `fibforge replay --algo sail_m` runs
//! (behind [`LeftRight`](crate::sync::LeftRight), like LOOP's one-table `loop`).
//!
//! The changed prefixes of one call are applied one after the other against the final RIB:
//! each rewrites the slots its route touches from that RIB, so the last one leaves every slot
//! any of them touches as the final RIB has it (the property tests in `tests_shared.rs`
//! check batches against a fresh build).

use super::writer::{apply_change, dispatch_book};
use super::{SailMFib, SailMStats};
use crate::addr::Address;
use crate::algo::sail;
use crate::algo::sail::max_len;
use crate::fib::{BuildError, Compile, Incremental};
use crate::prefix::Prefix;
use crate::rib::Rib;

impl<A: Address> SailMFib<A> {
    /// Storage counters (composites: all allocated ids, live or free).
    #[doc(hidden)]
    pub fn stats(&self) -> SailMStats {
        self.m.stats()
    }
}

impl<A: Address> Compile<A> for SailMFib<A> {
    type Config = sail::Config;
    fn compile(rib: &Rib<A>, cfg: &sail::Config) -> Result<Self, BuildError> {
        SailMFib::build(rib, cfg)
    }
}

impl<A: Address> Incremental<A> for SailMFib<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        // Refuse a too-long route before touching anything, as a build would.
        if let Some(p) = changed.iter().find(|p| p.len() > max_len::<A>()) {
            return Err(BuildError::Unsupported {
                algo: super::NAME,
                reason: format!(
                    "prefix {p} is longer than /{}: SAIL supports {} prefixes up to /{} only",
                    max_len::<A>(),
                    A::FAMILY,
                    max_len::<A>()
                ),
            });
        }
        let book = self.book.get_or_insert_with(|| dispatch_book(&self.m));
        let ribs = std::slice::from_ref(rib);
        let mut path = "unchanged";
        for p in changed {
            // An error is a 31-bit id overflow in 32-bit words (2^31 composites or chunks of
            // one level), which no table in memory reaches; it is passed on as a build's.
            let step = apply_change(&mut self.m, book, ribs, 0, p)?;
            if path != "rebuild" {
                path = step;
            }
        }
        self.last_path = path;
        Ok(())
    }

    fn last_update_path(&self) -> Option<&'static str> {
        Some(self.last_path)
    }
}
