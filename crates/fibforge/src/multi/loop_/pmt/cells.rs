//! One PortMapTable column at the paper's cell width (LOOP §V-B: `S_pmt = t × fq × 1` byte,
//! "1 byte can support up to 256 next-hops").
//!
//! The paper's cells hold port numbers, local to a router. Our next hops are dense ids shared by
//! every table of a set (a set of 9 routers may use 273 of them while each uses at most 70), so
//! a column holds *codes*: positions in its own table's port list, `ports[code]` being the raw
//! next hop and code 0 "no route". The cell is as wide as the list needs:
//!
//! - up to 255 ports: one byte per cell ([`Column::Byte`], a 256-entry list, 1 KiB);
//! - up to 65,535 ports: two bytes ([`Column::Half`], a 65,536-entry list, 256 KiB allocated);
//! - more: four bytes holding the raw next hop itself ([`Column::Word`], no list). A removed
//!   table's slot is an empty `Word` column (every read gives "no route").
//!
//! A lookup reads the cell, then the port list at its code: the one dependent miss is still the
//! cell (a byte column's list stays in cache), and the list is as long as the code space, so
//! reading it needs no bounds check. The list costs one more dependent load, a cache hit, per
//! lookup (history and figures: `docs/lab/loop.md`).
//!
//! **Invariants.** Codes are never reassigned: a port stays listed after its last route goes,
//! until the column is built again. A port is appended to the list before any cell holds its
//! code, and the cells are published by the release store of the lookup entry naming them, so
//! a reader never meets a code whose port it cannot see. A column's list holds every next hop
//! of its table's RIB (it is made from the RIB, and a route update admits its next hop before
//! the structure changes; see `Loop::insert`), so interning a composite meets a new port only
//! if that invariant was broken, and then fails with a "reserved" limit error (the writer
//! rebuilds). When the list is full, [`Column::widened`] copies the column into wider cells;
//! readers of the current structure keep the narrow copy, so the writer publishes the wide one
//! in a structure of its own (`Loop::admit_port`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A table's port list of code space `N`: code → raw next hop (`raw[0] = 0`), and the writer's
/// reverse map. The list is as long as the code space, so a code indexes it without a check.
#[derive(Clone)]
pub(in crate::multi::loop_) struct Ports<const N: usize> {
    raw: Arc<[AtomicU32; N]>,
    /// Raw next hop → code; only the writer uses it (a mutex because columns are shared with
    /// the readers' structure, never contended).
    codes: Arc<Mutex<HashMap<u32, u32>>>,
}

/// `N` zero words (built on the heap: a 256 KiB array would not fit a thread's stack).
fn zeros<const N: usize>() -> Arc<[AtomicU32; N]> {
    let words: Arc<[AtomicU32]> = (0..N).map(|_| AtomicU32::new(0)).collect();
    words.try_into().unwrap_or_else(|_| unreachable!("N words"))
}

impl<const N: usize> Ports<N> {
    /// A list with room for `N - 1` ports holding `hops` (non-zero raw next hops).
    fn new(hops: &[u32]) -> Ports<N> {
        let p = Ports { raw: zeros(), codes: Arc::default() };
        for &h in hops {
            p.admit(h);
        }
        p
    }

    /// The code of `hop` (0 for "no route"), appending it when new and there is room.
    fn admit(&self, hop: u32) -> Option<u32> {
        if hop == 0 {
            return Some(0);
        }
        let mut codes = self.codes.lock().expect("port list lock");
        if let Some(&c) = codes.get(&hop) {
            return Some(c);
        }
        let c = codes.len() as u32 + 1;
        let slot = self.raw.get(c as usize)?;
        slot.store(hop, Ordering::Relaxed);
        codes.insert(hop, c);
        Some(c)
    }

    /// Ports listed.
    fn len(&self) -> usize {
        self.codes.lock().expect("port list lock").len()
    }

    /// A copy with the code space `M` (> `N`).
    fn widened<const M: usize>(&self) -> Ports<M> {
        let raw = zeros::<M>();
        for (to, from) in raw.iter().zip(self.raw.iter()) {
            to.store(from.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        let codes = self.codes.lock().expect("port list lock").clone();
        Ports { raw, codes: Arc::new(Mutex::new(codes)) }
    }
}

impl Ports<256> {
    #[inline]
    fn hop(&self, code: u8) -> u32 {
        self.raw[code as usize].load(Ordering::Relaxed)
    }
}

impl Ports<65536> {
    #[inline]
    fn hop(&self, code: u16) -> u32 {
        self.raw[code as usize].load(Ordering::Relaxed)
    }
}

/// One table's cells (see the module doc).
#[derive(Clone)]
pub(in crate::multi::loop_) enum Column {
    /// One byte per cell: a code into at most 255 ports.
    Byte(Arc<[AtomicU8]>, Ports<256>),
    /// Two bytes per cell: a code into at most 65,535 ports.
    Half(Arc<[AtomicU16]>, Ports<65536>),
    /// Four bytes per cell: the raw next hop.
    Word(Arc<[AtomicU32]>),
}

fn cells<T>(len: usize, zero: impl Fn() -> T) -> Arc<[T]> {
    (0..len).map(|_| zero()).collect()
}

impl Column {
    /// A removed table's slot: no cells.
    pub(in crate::multi::loop_) fn empty() -> Column {
        Column::Word(Arc::new([]))
    }

    /// `len` cells of "no route" for a table whose RIB uses the next hops `hops` (distinct,
    /// non-zero), as narrow as their number allows.
    pub(in crate::multi::loop_) fn new(hops: &[u32], len: usize) -> Column {
        match hops.len() {
            n if n < 1 << 8 => Column::Byte(cells(len, || AtomicU8::new(0)), Ports::new(hops)),
            n if n < 1 << 16 => Column::Half(cells(len, || AtomicU16::new(0)), Ports::new(hops)),
            _ => Column::Word(cells(len, || AtomicU32::new(0))),
        }
    }

    /// Cells.
    pub(in crate::multi::loop_) fn len(&self) -> usize {
        match self {
            Column::Byte(c, _) => c.len(),
            Column::Half(c, _) => c.len(),
            Column::Word(c) => c.len(),
        }
    }

    pub(in crate::multi::loop_) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per cell.
    pub(in crate::multi::loop_) fn cell_bytes(&self) -> usize {
        match self {
            Column::Byte(..) => 1,
            Column::Half(..) => 2,
            Column::Word(_) => 4,
        }
    }

    /// The raw next hop of cell `i` (0 = no route, also past the end).
    #[inline]
    pub(in crate::multi::loop_) fn get(&self, i: u32) -> u32 {
        let i = i as usize;
        match self {
            Column::Byte(c, p) => c.get(i).map_or(0, |x| p.hop(x.load(Ordering::Relaxed))),
            Column::Half(c, p) => c.get(i).map_or(0, |x| p.hop(x.load(Ordering::Relaxed))),
            Column::Word(c) => c.get(i).map_or(0, |x| x.load(Ordering::Relaxed)),
        }
    }

    /// The stored code of cell `i` (< len): equal codes mean equal next hops.
    #[inline]
    pub(in crate::multi::loop_) fn code(&self, i: usize) -> u32 {
        match self {
            Column::Byte(c, _) => c[i].load(Ordering::Relaxed) as u32,
            Column::Half(c, _) => c[i].load(Ordering::Relaxed) as u32,
            Column::Word(c) => c[i].load(Ordering::Relaxed),
        }
    }

    /// Stores `code` (from [`code`](Self::code) of this column) into cell `i` (< len).
    #[inline]
    pub(in crate::multi::loop_) fn set_code(&self, i: usize, code: u32) {
        match self {
            Column::Byte(c, _) => c[i].store(code as u8, Ordering::Relaxed),
            Column::Half(c, _) => c[i].store(code as u16, Ordering::Relaxed),
            Column::Word(c) => c[i].store(code, Ordering::Relaxed),
        }
    }

    /// The code of raw next hop `hop`, listing it when new; `None` when the list is full.
    pub(in crate::multi::loop_) fn encode(&self, hop: u32) -> Option<u32> {
        match self {
            Column::Byte(_, p) => p.admit(hop),
            Column::Half(_, p) => p.admit(hop),
            Column::Word(_) => Some(hop),
        }
    }

    /// Stores raw next hop `hop` into cell `i` (nothing past the end); `None` when the port
    /// list is full.
    pub(in crate::multi::loop_) fn set(&self, i: usize, hop: u32) -> Option<()> {
        if i < self.len() {
            let code = self.encode(hop)?;
            self.set_code(i, code);
        }
        Some(())
    }

    /// Hints that cell `i` is read soon.
    #[inline]
    pub(in crate::multi::loop_) fn prefetch(&self, i: u32) {
        let i = i as usize;
        match self {
            Column::Byte(c, _) if i < c.len() => crate::algo::prefetch::read(c, i),
            Column::Half(c, _) if i < c.len() => crate::algo::prefetch::read(c, i),
            Column::Word(c) if i < c.len() => crate::algo::prefetch::read(c, i),
            _ => {}
        }
    }

    /// The same column with room for `len` cells (the same port list, shared).
    pub(in crate::multi::loop_) fn resized(&self, len: usize) -> Column {
        let out = match self {
            Column::Byte(_, p) => Column::Byte(cells(len, || AtomicU8::new(0)), p.clone()),
            Column::Half(_, p) => Column::Half(cells(len, || AtomicU16::new(0)), p.clone()),
            Column::Word(_) => Column::Word(cells(len, || AtomicU32::new(0))),
        };
        for i in 0..self.len().min(len) {
            out.set_code(i, self.code(i));
        }
        out
    }

    /// The column one width wider (same length and next hops), for a full port list.
    pub(in crate::multi::loop_) fn widened(&self) -> Column {
        let len = self.len();
        let out = match self {
            Column::Byte(_, p) => Column::Half(cells(len, || AtomicU16::new(0)), p.widened()),
            _ => Column::Word(cells(len, || AtomicU32::new(0))),
        };
        for i in 0..len {
            match &out {
                Column::Word(c) => c[i].store(self.get(i as u32), Ordering::Relaxed),
                _ => out.set_code(i, self.code(i)),
            }
        }
        out
    }

    /// Bytes of `entries` cells and of the ports listed.
    pub(in crate::multi::loop_) fn used_bytes(&self, entries: usize) -> usize {
        let ports = match self {
            Column::Byte(_, p) => p.len(),
            Column::Half(_, p) => p.len(),
            Column::Word(_) => 0,
        };
        entries * self.cell_bytes() + 4 * ports
    }

    /// Bytes allocated: every cell and the whole port list.
    pub(in crate::multi::loop_) fn allocated_bytes(&self) -> usize {
        let list = match self {
            Column::Byte(..) => 1 << 8,
            Column::Half(..) => 1 << 16,
            Column::Word(_) => 0,
        };
        self.len() * self.cell_bytes() + 4 * list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_port_count_and_widening_keeps_every_cell() {
        let hops: Vec<u32> = (1..=255).map(|h| h * 1000).collect();
        let col = Column::new(&hops, 4);
        assert_eq!(col.cell_bytes(), 1);
        col.set(0, 255_000).unwrap();
        col.set(1, 1000).unwrap();
        assert_eq!((col.get(0), col.get(1), col.get(2), col.get(9)), (255_000, 1000, 0, 0));
        assert_eq!(col.encode(7), None, "the byte list is full");
        let half = col.widened();
        assert_eq!(half.cell_bytes(), 2);
        half.set(2, 7).unwrap();
        assert_eq!((half.get(0), half.get(1), half.get(2)), (255_000, 1000, 7));
        assert_eq!(col.get(2), 0, "the narrow copy is unchanged");
        let word = half.widened();
        assert_eq!((word.cell_bytes(), word.get(0), word.get(2)), (4, 255_000, 7));
        assert_eq!(Column::new(&(1..=300).collect::<Vec<_>>(), 1).cell_bytes(), 2);
        assert_eq!(half.resized(8).get(2), 7);
        assert_eq!(col.used_bytes(10), 10 + 4 * 255);
        assert!(Column::empty().is_empty() && Column::empty().get(0) == 0);
    }
}
