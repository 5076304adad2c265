//! LOOP's deferred hand-backs, on the library's one publication protocol (QSBR,
//! [`crate::sync::Grace`]): storage an update unlinks (arena words, chunk ids, PortMapTable
//! entries) goes back to the writer's allocator only once every reader online when it was
//! retired has reported a quiescent state or gone offline.
//!
//! The writer takes a [`Ticket`] with [`Grace::retire`] after the stores that unlink the
//! storage (or after publishing the structure that no longer names it), queues the hand-back
//! with that ticket ([`HandBacks::defer`]), and runs the queue before each update
//! ([`HandBacks::run`]). Nothing here waits for a reader: a silent online reader only keeps
//! storage queued.
//!
//! Written against `super::prim` (the library's types here; the same file compiled on loom's
//! primitives in `tests/loom_loop.rs`), so the model checks the code that ships.

use super::prim::{Arc, Grace, Mutex, Ticket};
use std::collections::VecDeque;

/// A hand-back to run once its grace period has passed.
type Job = Box<dyn FnOnce() + Send + Sync>;

/// The writer's queue of hand-backs, in ticket order.
pub(super) struct HandBacks {
    grace: Grace,
    queue: VecDeque<(Ticket, Job)>,
}

impl HandBacks {
    /// An empty queue over the readers of `grace`.
    pub(super) fn new(grace: Grace) -> Self {
        HandBacks { grace, queue: VecDeque::new() }
    }

    /// The readers' domain.
    pub(super) fn grace(&self) -> &Grace {
        &self.grace
    }

    /// Runs `job` once the grace period of `ticket` has passed. Tickets come from the same
    /// writer in increasing order, so the queue stays sorted.
    pub(super) fn defer(&mut self, ticket: Ticket, job: impl FnOnce() + Send + Sync + 'static) {
        self.queue.push_back((ticket, Box::new(job)));
    }

    /// Queues `items` to be appended to `to` (where the allocator takes reusable storage
    /// from) once the grace period of `ticket` has passed.
    pub(super) fn hand_back<T: Send + Sync + 'static>(
        &mut self,
        ticket: Ticket,
        to: &Arc<Mutex<Vec<T>>>,
        items: Vec<T>,
    ) {
        if items.is_empty() {
            return;
        }
        let to = to.clone();
        self.defer(ticket, move || to.lock().expect("hand-back lock").extend(items));
    }

    /// Runs the hand-backs whose grace period has passed, in order; how many still wait.
    pub(super) fn run(&mut self) -> usize {
        if self.queue.is_empty() {
            return 0;
        }
        let passed = self.grace.passed();
        while self.queue.front().is_some_and(|(t, _)| *t <= passed) {
            let (_, job) = self.queue.pop_front().expect("checked non-empty");
            job();
        }
        self.queue.len()
    }
}
