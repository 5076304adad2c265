//! Compilation: walk the leaf-pushed trie of each level down to its cut, collecting heads
//! and their pointers (building next-level chunks for root heads first), then encode the
//! heads as codewords, base indexes or sparse positions.

use super::maptable::{MASK_BITS, MapTable};
use super::{CHUNK, Chunk, Kind, Level, Lulea, SIX_BITS};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

type Route = (Prefix<u32>, NextHop);

/// What a head points to, before chunks are built.
enum Target<'a> {
    /// A genuine head: this raw next hop (0 = no route).
    Hop(u32),
    /// A root head: the chunk of `node` (a /16 or /24), answered by `inherited` where none of
    /// `routes` (the routes strictly inside `node`, sorted) matches.
    Chunk { node: Prefix<u32>, inherited: u32, routes: &'a [Route] },
}

/// Compiles `rib` into the Lulea structure.
pub(super) fn build(rib: &Rib<u32>, map: &'static MapTable) -> Result<Lulea, BuildError> {
    let routes: Vec<Route> = rib.iter().collect();
    if let Some(&(_, h)) = routes.iter().find(|(_, h)| h.raw() >= CHUNK) {
        return Err(BuildError::LimitExceeded {
            algo: "lulea",
            what: "raw next-hop id",
            limit: (CHUNK - 1) as u64,
            found: h.raw() as u64,
        });
    }
    let mut b = Builder { map, l2: Level::default(), l3: Level::default() };
    let mut heads = Vec::new();
    walk(&routes, Prefix::DEFAULT_ROUTE, 0, 0, 16, &mut heads);
    let (positions, pointers) = b.resolve(heads, 2)?;
    let (codes, bases) = encode(map, &positions, 1 << 16, 4)?;
    let mut l = Lulea {
        codes: codes.into_boxed_slice(),
        bases: bases.into_boxed_slice(),
        pointers,
        l2: b.l2,
        l3: b.l3,
        map: &map.rows,
    };
    for level in [&mut l.l2, &mut l.l3] {
        level.chunks.shrink_to_fit();
        level.sparse.shrink_to_fit();
        level.codes.shrink_to_fit();
        level.pointers.shrink_to_fit();
    }
    Ok(l)
}

/// Appends to `out` the heads of the leaf-pushed trie below `node`, cut at depth `cut`, as
/// (position relative to depth `from`, target). `routes` are the routes inside `node`
/// (sorted), `inherited` the raw next hop of the longest route strictly covering it.
fn walk<'a>(
    routes: &'a [Route],
    node: Prefix<u32>,
    inherited: u32,
    from: u32,
    cut: u32,
    out: &mut Vec<(u32, Target<'a>)>,
) {
    let (inherited, inside) = match routes.first() {
        Some((p, h)) if p.len() == node.len() => (h.raw(), &routes[1..]),
        _ => (inherited, routes),
    };
    let pos = node.addr().bits(from, cut - from) as u32;
    if inside.is_empty() {
        out.push((pos, Target::Hop(inherited)));
    } else if node.len() == cut {
        out.push((pos, Target::Chunk { node, inherited, routes: inside }));
    } else {
        let [left, right] = node.children().expect("node is shorter than its cut");
        let split = inside.partition_point(|(p, _)| !p.bit(node.len()));
        walk(&inside[..split], left, inherited, from, cut, out);
        walk(&inside[split..], right, inherited, from, cut, out);
    }
}

/// The bit-mask codewords of `positions` (sorted head positions, the first 0) over `total`
/// positions, with one base index per `group` masks (the heads before the group).
fn encode(
    map: &MapTable,
    positions: &[u32],
    total: usize,
    group: usize,
) -> Result<(Vec<u16>, Vec<u16>), BuildError> {
    let mut masks = vec![0u16; total / MASK_BITS];
    for &p in positions {
        masks[p as usize / MASK_BITS] |= 0x8000 >> (p as usize % MASK_BITS);
    }
    let (mut codes, mut bases) = (Vec::with_capacity(masks.len()), Vec::new());
    let (mut before, mut in_group) = (0u32, 0u32);
    for (m, &mask) in masks.iter().enumerate() {
        if m % group == 0 {
            bases.push(before as u16);
            in_group = 0;
        }
        let row = map.row(mask).ok_or_else(|| BuildError::Unsupported {
            algo: "lulea",
            reason: format!("bit-mask {mask:#06x} is no cut of a leaf-pushed trie (a bug)"),
        })?;
        debug_assert!(in_group < 1 << SIX_BITS);
        codes.push(row << SIX_BITS | in_group as u16);
        in_group += mask.count_ones();
        before += mask.count_ones();
    }
    Ok((codes, bases))
}

struct Builder {
    map: &'static MapTable,
    l2: Level,
    l3: Level,
}

impl Builder {
    /// Head positions and pointers of `heads`, building the chunks of level `level` that
    /// root heads point to.
    fn resolve(
        &mut self,
        heads: Vec<(u32, Target)>,
        level: u32,
    ) -> Result<(Vec<u32>, Vec<u32>), BuildError> {
        let mut positions = Vec::with_capacity(heads.len());
        let mut pointers = Vec::with_capacity(heads.len());
        for (pos, target) in heads {
            positions.push(pos);
            pointers.push(match target {
                Target::Hop(h) => h,
                Target::Chunk { node, inherited, routes } => {
                    CHUNK | self.chunk(level, node, inherited, routes)?
                }
            });
        }
        Ok((positions, pointers))
    }

    /// Builds the level-`level` chunk of `node` and returns its index.
    fn chunk(
        &mut self,
        level: u32,
        node: Prefix<u32>,
        inherited: u32,
        routes: &[Route],
    ) -> Result<u32, BuildError> {
        let mut heads = Vec::new();
        walk(routes, node, inherited, node.len(), node.len() + 8, &mut heads);
        let (positions, pointers) = self.resolve(heads, level + 1)?;
        debug_assert!(level == 2 || pointers.iter().all(|&p| p & CHUNK == 0));
        let map = self.map;
        let lvl = if level == 2 { &mut self.l2 } else { &mut self.l3 };
        let index = lvl.chunks.len();
        let too_many = |what, found: usize| BuildError::LimitExceeded {
            algo: "lulea",
            what,
            limit: (CHUNK - 1) as u64,
            found: found as u64,
        };
        if index >= CHUNK as usize {
            return Err(too_many("chunks per level", index));
        }
        let first_pointer = u32::try_from(lvl.pointers.len())
            .map_err(|_| too_many("pointers per level", lvl.pointers.len()))?;
        let n = positions.len();
        let (kind, data) = if n <= 8 {
            let data = lvl.sparse.len();
            lvl.sparse.extend(positions.iter().map(|&p| p as u8));
            (Kind::Sparse, data)
        } else {
            let data = lvl.codes.len();
            // 64 heads could put 64 before the last mask, past `six`'s 6 bits.
            let (kind, group) = if n < 64 { (Kind::Dense, 16) } else { (Kind::VeryDense, 4) };
            let (codes, bases) = encode(map, &positions, 256, group)?;
            lvl.codes.extend_from_slice(&codes);
            if kind == Kind::VeryDense {
                lvl.codes.extend_from_slice(&bases);
            }
            (kind, data)
        };
        let data = u32::try_from(data).map_err(|_| too_many("chunk data words per level", data))?;
        lvl.pointers.extend_from_slice(&pointers);
        lvl.chunks.push(Chunk { kind, heads: n.min(8) as u8, data, pointers: first_pointer });
        Ok(index as u32)
    }
}
