//! LOOP: Layer-based Overlay and Optimized Polymerization for multiple virtual tables
//! (Z. Mi, T. Yang et al.; `papers/loop-mi-yang.txt`).
//!
//! **Structure** (§III-A to §III-C, §IV). The address is cut into layers (partition mode
//! `[16-8-8]` for IPv4 by default, configurable as in Fig. 11). Layer 1 is one chunk stored as
//! `2^16` uncompressed lookup entries. Every lower chunk (a subtree confined to one layer) is
//! split into groups of `G` elements (64 by default; 32 and 128 allowed, Table IV); each group
//! stores eight-element codewords (an 8-bit slice of the overlay bitmap plus the count of ones
//! before it) and one lookup entry per range head. The entry of an element is found with the
//! codeword's `before` count plus a population count (`count_ones`, a single instruction here,
//! replacing the paper's 128-byte IndexTable: the same answer with one memory access fewer).
//! Chunks whose routes (and next-layer pointers) are at most `K` relative prefixes (3 by
//! default) are stored as sparse chunks (Optimization 2).
//!
//! **Many tables** (§III-C). All tables share one structure: each element's value is the
//! composite of every table's FPA value at that element (the Multiplexed FPA), so the overlay
//! bitmap is the OR of the tables' bitmaps; lookup entries index a PortMapTable that stores each
//! distinct composite once. The PortMapTable is stored as one column per table (see
//! `pmt/`): a lookup reads `column[vrf][index]`, one dependent access after the
//! chunk walk, as with the paper's row table. With `compress_pmt` it is bitmap-compressed rows
//! instead (§V-B, `S_pmt2`): smaller when tables share next hops, at two more dependent
//! accesses per lookup and with table insertion/deletion rewriting every row.
//!
//! **Updates** (§III-E): see `update.rs`. Readers never block: the writer
//! regenerates groups into fresh storage and swaps one pointer; retired storage is reused
//! after a grace period of the library's one publication protocol (QSBR, as `crate::sync`;
//! see `writer.rs`, `grace.rs`, `reader.rs`). Table insertion and deletion (§III-D, Table II)
//! are incremental: see `merge.rs`. One walk over the current structure next to
//! the added table's own FPA yields every element's new entry. With the column layout the
//! live arrays are patched copy-on-write (`merge_patch.rs`): only groups
//! holding a divided or merged entry or a changed next-layer pointer are written, into spare
//! storage, and published by atomic pointer replacement as route updates are; then a new
//! `Core` sharing the same arrays with the edited PortMapTable columns is swapped in. No
//! other table's column is copied, and subtrees where the added table has no route of its
//! own (on a deletion: all of them) are walked by their range heads only, so the work follows
//! the added table's routes and the entries it divides, not the number of tables present
//! (`fibforge bench --preset loop-fig14` measures it). When the reserved room runs out, or with packed
//! rows, the walk builds fresh arrays instead (one pointer swap).
//!
//! **VRF ids** are table slots. `build` numbers the tables `0..n`; `remove_table(v)` frees
//! slot `v` (lookups in it find no route, its memory is released after the readers' grace
//! period); `add_table` takes the lowest free slot, else `n`. Free slots at the end are
//! dropped, so [`vrfs`](crate::multi::MultiLookup::vrfs) is one more than the highest live id.
//!
//! **IPv6** (beyond the paper, which is IPv4 only): partition `[16, 8 × 14]` — one uncompressed
//! 16-bit root (real IPv6 tables spread over 2000::/3 at /16–/48) and byte-sized lower layers, so
//! groups, codewords and sparse chunks work unchanged down to /128.
//!
//! **Limits**: lookup entries carry 30-bit payloads (PortMapTable indices, chunk ids, arena
//! offsets); exceeding them is a `BuildError::LimitExceeded`. PortMapTable cells are one byte
//! per table while the table has at most 255 next hops (the paper's 8-bit ports), two bytes up
//! to 65,535 and four beyond, so there is no next-hop cap; a route update that brings a
//! table's next hops past its cells' width widens that table's column (`pmt/cells.rs`).
//! After updates the answers equal a fresh build's; the memory layout may differ (a chunk
//! is not converted between sparse and grouped forms in place). PortMapTable entries that
//! fall out of use through updates are found by a periodic sweep and reused after the grace
//! period (see `sweep.rs`); with packed rows they are kept until a rebuild (when
//! reserved room runs out).
//!
//! **Layout**: `config.rs` (parameters, counters), `writer.rs` ([`Loop`]: RIBs, route
//! updates, publication), `tables.rs` (table insertion and deletion), `reader.rs`
//! ([`LoopReader`], [`LoopView`]), `grace.rs` (storage handed back after its grace period),
//! `assemble.rs` (built vectors into live arrays), `build.rs` / `encode.rs` / `layout.rs`
//! (the structure), `update.rs`, `merge.rs`, `merge_patch.rs`, `sweep.rs` (its changes),
//! `batch.rs` (interleaved lookups), `pmt/` (the PortMapTable), `words.rs` (the payload limit
//! and atomic word arrays every part shares), `single.rs` (one table as a
//! [`Lookup`](crate::fib::Lookup) structure).

mod assemble;
mod batch;
mod build;
mod config;
mod encode;
mod grace;
mod layout;
mod merge;
mod merge_patch;
mod pmt;
mod reader;
mod single;
mod sweep;
mod tables;
mod update;
mod words;
mod writer;

/// The types `grace.rs` is written against (loom's primitives and the same `sync` files in
/// `tests/loom_loop.rs`).
mod prim {
    pub(super) use crate::qsbr::{Grace, Ticket};
    pub(super) use std::sync::{Arc, Mutex};
}

pub use config::{Config, LoopStats};
pub use reader::{LoopReader, LoopView};
pub use single::LoopFib;
pub use writer::Loop;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cells;
#[cfg(test)]
mod tests_tables;
