//! Assembly of a structure: built vectors become live arrays with room for updates
//! ([`assemble`]), with the writer's allocator over them ([`Store`]).

use super::Config;
use super::build::{Emitter, VecSink};
use super::layout::{Core, Shape};
use super::pmt;
use super::update::Store;
use super::words::{atomic_vec, filled};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A fresh structure from the RIBs (VRF id = position; `None` marks a free slot).
pub(super) fn build_core<A: Address>(
    ribs: &[Option<Rib<A>>],
    shape: &Shape,
    cfg: &Config,
) -> Result<(Core, Store), BuildError> {
    let em = Emitter { ribs, shape, sparse_limit: cfg.sparse_limit };
    let mut sink = VecSink { chunk_stride: shape.chunk_stride(), ..Default::default() };
    let defaults = vec![0u32; ribs.len()];
    let (root, _) = em.element_entries(0, Prefix::DEFAULT_ROUTE, &defaults, &mut sink)?;
    let slots = ribs.iter().map(|r| r.as_ref().map(rib_hops)).collect();
    assemble(&root, sink, PmtSource::Rows(slots), shape, cfg)
}

/// The distinct raw next hops of `rib`: the ports its PortMapTable column lists.
pub(super) fn rib_hops<A: Address>(rib: &Rib<A>) -> Vec<u32> {
    let mut hops: Vec<u32> = rib.iter().map(|(_, h)| h.raw()).collect();
    hops.sort_unstable();
    hops.dedup();
    hops
}

/// Where a new structure's PortMapTable comes from.
pub(super) enum PmtSource {
    /// The sink's rows (a fresh build, or a packed-rows table insertion/deletion), one value
    /// per slot; per slot the next hops of its RIB, `None` for a free slot.
    Rows(Vec<Option<Vec<u32>>>),
    /// Columns edited by a table insertion/deletion.
    Edited(pmt::columns::Columns, pmt::columns::Book),
}

/// Turns built vectors into live arrays (with update headroom) and their allocator.
pub(super) fn assemble(
    root: &[u32],
    mut sink: VecSink,
    source: PmtSource,
    shape: &Shape,
    cfg: &Config,
) -> Result<(Core, Store), BuildError> {
    let spare = |n: usize, min: usize| n + (n as f64 * cfg.headroom) as usize + min;
    let (pmt, pmt_words, book) = match source {
        PmtSource::Rows(slots) => {
            let entries = sink.book.top as usize;
            let room = spare(entries, 1024) - entries;
            let (p, w) = pmt::Pmt::new(&sink.pmt, (&slots, entries), cfg.compress_pmt, room)?;
            (p, w, std::mem::take(&mut sink.book))
        }
        PmtSource::Edited(cols, book) => (pmt::Pmt::Columns(cols), 0, book),
    };
    let core = Core {
        shape: shape.clone(),
        vrfs: pmt.width() as u32,
        root: filled(root, root.len()).into(),
        chunk_groups: filled(&sink.chunk_groups, spare(sink.chunk_groups.len(), 64 * 4)).into(),
        arena: filled(&sink.arena, spare(sink.arena.len(), 1 << 14)).into(),
        pmt,
    };
    let store = Store {
        arena_top: sink.arena.len() as u32,
        chunk_top: sink.chunks,
        pmt: book,
        pmt_words,
        free_words: Default::default(),
        free_chunks: Vec::new(),
        reclaimed: Arc::new(Mutex::new(Vec::new())),
        retiring: Vec::new(),
        modified_pointers: 0,
    };
    Ok((core, store))
}

/// A copy of `from` with room for `capacity` words.
pub(super) fn copied(from: &[AtomicU32], capacity: usize) -> Arc<[AtomicU32]> {
    let v = atomic_vec(capacity.max(from.len()));
    for (to, x) in v.iter().zip(from) {
        to.store(x.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    v.into()
}
