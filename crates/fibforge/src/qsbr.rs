//! Reclamation primitives of the concurrent structures: the QSBR grace-period domain
//! ([`Grace`], [`Ticket`]), the published view pointer with its replaced views
//! (`publish.rs`), a reader's session (`session.rs`) and the [`Concurrent`] trait an
//! updatable structure implements to share its views with readers on other threads.
//!
//! A layer below the structures (see the crate's layer map): Poptrie, the B+-tree, LOOP and
//! SAIL_M use these directly; [`crate::sync`] builds the table on them and re-exports the
//! public items. `prim.rs` holds the primitives, swapped for loom's by the models in
//! `tests/loom_sync.rs` and `tests/loom_loop.rs`, which compile `grace.rs` and `publish.rs`.

mod grace;
mod prim;
mod publish;
mod session;

pub use grace::{Grace, Registration, Ticket};
pub(crate) use publish::Published;
pub(crate) use session::Session;

use crate::addr::Address;
use crate::fib::{Incremental, Lookup};
use std::sync::Arc;

/// An updatable FIB whose arrays readers on other threads can use while it is updated.
#[doc(hidden)]
pub trait Concurrent<A: Address>: Incremental<A> {
    /// What readers look up in.
    #[doc(hidden)]
    type View: Lookup<A> + 'static;
    /// The current view; a different `Arc` after an update means the view was replaced.
    #[doc(hidden)]
    fn view(&self) -> &Arc<Self::View>;
    /// From now on the readers of `grace` share the view: memory an update unlinks from a
    /// view may be reused only after its grace period (take a ticket with [`Grace::retire`]
    /// after the unlinking stores; reuse once [`Grace::passed`] reaches it). Views replaced
    /// as a whole need nothing here: the table retires them itself. The default does nothing
    /// (for structures that never reuse memory a reader can reach).
    #[doc(hidden)]
    fn share(&mut self, grace: &Grace) {
        let _ = grace;
    }
    /// True when the structure writes the views it replaced ([`LeftRight`](crate::sync::LeftRight)): before each
    /// update the table then waits (for at most [`SETTLE_WAIT`]) until every replaced view
    /// has passed its grace period and been dropped. The default is false (the writer never
    /// waits).
    #[doc(hidden)]
    fn settle_before_update(&self) -> bool {
        false
    }
    /// Memory an update unlinked inside the current view and that waits for its grace
    /// period: (batches or objects, bytes). Views replaced as a whole are not counted here
    /// (the table counts those). The default is none.
    #[doc(hidden)]
    fn retired_inside(&self) -> (usize, usize) {
        (0, 0)
    }
}

/// The longest a table waits for its readers before an update of a structure that asks for
/// it ([`Concurrent::settle_before_update`]); past it the structure copes without (a
/// [`LeftRight`](crate::sync::LeftRight) rebuilds its spare, which costs a full compile), so a silent reader never
/// blocks the writer for good. Generous because a reader descheduled on a loaded machine
/// is not silent, only late, and a rebuild per update costs far more than the wait.
#[doc(hidden)]
pub const SETTLE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);
