//! Traits shared by every lookup structure (FIB).
//!
//! A FIB is compiled from a [`Rib`] and answers longest-prefix-match lookups with next-hop ids.
//! `lookup_batch` exists so that structures can overlap the memory latency of several lookups
//! (interleaving, prefetching, SIMD); its default is a plain loop.

use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// Why a structure could not be built or updated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The table exceeds a structural limit of the algorithm.
    #[error("{algo}: {what} exceeds the limit of {limit} (found {found})")]
    LimitExceeded {
        /// The algorithm's name.
        algo: &'static str,
        /// What is counted (routes, next hops, nodes, ...).
        what: &'static str,
        /// The most the algorithm can hold.
        limit: u64,
        /// How many the table needs.
        found: u64,
    },
    /// The table holds something the algorithm cannot represent.
    #[error("{algo}: {reason}")]
    Unsupported {
        /// The algorithm's name.
        algo: &'static str,
        /// What it cannot represent.
        reason: String,
    },
    /// A configuration value is invalid.
    #[error("{algo}: invalid option {option}: {reason}")]
    BadOption {
        /// The algorithm's name.
        algo: &'static str,
        /// The option as given (`key=value`, or the key).
        option: String,
        /// Why it is refused.
        reason: String,
    },
}

/// Longest-prefix-match lookups.
pub trait Lookup<A: Address>: Send + Sync {
    /// The next hop of the longest matching prefix, or `None` when no route matches.
    fn lookup(&self, addr: A) -> Option<NextHop>;

    /// Looks up every address of `addrs` into the same position of `out`.
    ///
    /// # Panics
    /// When `out` is shorter than `addrs`.
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        for (o, &a) in out.iter_mut().zip(addrs) {
            *o = self.lookup(a);
        }
    }

    /// Heap and inline bytes of every array the structure owns.
    fn memory_bytes(&self) -> usize;

    /// One line on the structure's shape for reports (levels, widths, instruction set), or
    /// `None` when it has nothing to add to its name and memory.
    #[doc(hidden)]
    fn describe(&self) -> Option<String> {
        None
    }
}

/// Structures compiled from a RIB.
pub trait Compile<A: Address>: Lookup<A> + Sized {
    /// Build parameters; `Default` gives the recommended configuration.
    type Config: Default + Clone;

    /// Compiles the routes of `rib`.
    fn compile(rib: &Rib<A>, cfg: &Self::Config) -> Result<Self, BuildError>;
}

/// Structures that can follow RIB changes without a full rebuild.
pub trait Incremental<A: Address>: Compile<A> {
    /// Brings the structure up to date after the routes in `changed` changed in `rib`
    /// (already applied to `rib`). Afterwards the structure answers like a fresh compile.
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError>;

    /// How the last [`Incremental::apply_changes`] brought the structure up to date, for
    /// structures with several update paths (e.g. `"in place"`, `"side table"`,
    /// `"rebuild"`); `None` when there is one path.
    #[doc(hidden)]
    fn last_update_path(&self) -> Option<&'static str> {
        None
    }
}

impl<A: Address, T: Lookup<A> + ?Sized> Lookup<A> for Box<T> {
    fn lookup(&self, addr: A) -> Option<NextHop> {
        (**self).lookup(addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        (**self).lookup_batch(addrs, out)
    }
    fn memory_bytes(&self) -> usize {
        (**self).memory_bytes()
    }
    fn describe(&self) -> Option<String> {
        (**self).describe()
    }
}

impl<A: Address, T: Lookup<A> + ?Sized> Lookup<A> for std::sync::Arc<T> {
    fn lookup(&self, addr: A) -> Option<NextHop> {
        (**self).lookup(addr)
    }
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        (**self).lookup_batch(addrs, out)
    }
    fn memory_bytes(&self) -> usize {
        (**self).memory_bytes()
    }
    fn describe(&self) -> Option<String> {
        (**self).describe()
    }
}
