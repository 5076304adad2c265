//! The snapshot file (`docs/reference/snapshot-format.md`): the shared container
//! (`export/container.rs`) with magic `FIBFSNAP`, version 1, an XXH3-64 checksum, and ten
//! arrays:
//!
//! ```text
//!  0 IPv4 dir      u32 × 2^s4      Poptrie, export layout (algo/poptrie/export.rs)
//!  1 IPv4 nodes    24-byte records
//!  2 IPv4 leaves   1, 2 or 4 bytes
//!  3-5 the same for IPv6
//!  6 IPv4 routes   u64 per route      (routes.rs), sorted by address, then length
//!  7 IPv6 routes   3 × u64 per route
//!  8 value offsets u64 × (values + 1) into array 9
//!  9 value bytes   per id: 0 (a free id) or 1 and the value's postcard encoding
//! ```
//!
//! Parameters: `p[0..2]` IPv4 `s` and leaf bytes, `p[2..4]` IPv6's, `p[4]` the number of
//! value ids, `p[5]` the value encoding (1: postcard). The structures' next hops are the
//! table's (`hop.rs`: value id and prefix length).

use super::super::family::{Family, Mapped};
use super::super::routes::{List, Routes, id_and_len};
use super::super::values::{MAX_VALUES, Values};
use super::super::{IpTable, Structures};
use super::SnapshotError;
use crate::algo::poptrie::{self, AcceptHop, MappedArrays, Poptrie};
use crate::export::container::{self, ArrayView, Header, Kind, PARAMS};
use crate::export::{ExportError, ExportFile};
use crate::fib::Compile;
use crate::mapped::{Region, Slab};
use crate::nexthop::NextHop;
use crate::sync::{AnyKey, AnyTable, Structure};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// Snapshot files in the shared container.
pub(super) const SNAPSHOT: Kind = Kind {
    magic: super::MAGIC,
    version: 1,
    checksum: container::xxh3_64,
    name: "a fibforge snapshot",
};

/// The header's algorithm code: Poptrie arrays.
const POPTRIE: u32 = 1;
/// The header's family code: both families.
const BOTH: u32 = 0;
/// `p[5]`: values encoded by postcard.
const POSTCARD: u64 = 1;
const ARRAYS: usize = 10;

/// The bytes of `table`'s snapshot.
pub(super) fn encode<V: Serialize>(table: &IpTable<V>) -> Result<Vec<u8>, SnapshotError> {
    let v4 = family_export(&table.v4)?;
    let v6 = family_export(&table.v6)?;
    let (routes4, routes6) = (route_words(&table.v4), route_words(&table.v6));
    let (offsets, value_bytes) = encode_values(table.values.in_use())?;
    let mut params = [0u64; PARAMS];
    params[..4].copy_from_slice(&[v4.params[0], v4.params[1], v6.params[0], v6.params[1]]);
    params[4] = offsets.len() as u64 - 1;
    params[5] = POSTCARD;
    let words = |w: &[u64]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (r4, r6, offs) = (words(&routes4), words(&routes6), words(&offsets));
    let mut arrays: Vec<(u32, &[u8])> = Vec::with_capacity(ARRAYS);
    for f in [&v4, &v6] {
        arrays.extend(f.arrays.iter().map(|a| (a.elem_bytes, a.bytes.as_slice())));
    }
    arrays.extend([(8, &r4[..]), (24, &r6[..]), (8, &offs[..]), (1, &value_bytes[..])]);
    let header = Header { algorithm: POPTRIE, family: BOTH, params };
    Ok(container::assemble(&SNAPSHOT, &header, &arrays))
}

/// A family's Poptrie in the export layout: its own arrays when it has them, else a Poptrie
/// compiled from its routes (a B+-tree table, or Poptrie's basic layout).
fn family_export<A: AnyKey + Routes>(family: &Family<A>) -> Result<ExportFile, SnapshotError> {
    let file = match family {
        Family::Mapped(m) => m.fib.to_export(true),
        Family::Live(AnyTable::Poptrie(t)) if t.fib().config().leafvec => t.fib().to_export(),
        Family::Live(t) => {
            let cfg = poptrie::Config::for_family::<A>();
            Poptrie::compile(t.rib(), &cfg).map_err(SnapshotError::Build)?.to_export()
        }
    };
    file.map_err(|e| SnapshotError::Unsupported(e.to_string()))
}

/// A family's routes as words, sorted by address and length.
fn route_words<A: AnyKey + Routes>(family: &Family<A>) -> Vec<u64> {
    let mut routes: Vec<_> = family.rib().iter().collect();
    routes.sort_unstable_by_key(|(p, _)| (p.addr(), p.len()));
    let mut words = Vec::with_capacity(routes.len() * A::WORDS);
    for (prefix, hop) in routes {
        words.extend_from_slice(&A::words(prefix, id_and_len(hop).0)[..A::WORDS]);
    }
    words
}

/// The offsets and bytes of the value array.
fn encode_values<'v, V: Serialize + 'v>(
    slots: impl ExactSizeIterator<Item = Option<&'v V>>,
) -> Result<(Vec<u64>, Vec<u8>), SnapshotError> {
    let mut offsets = Vec::with_capacity(slots.len() + 1);
    let mut bytes = Vec::new();
    for (id, slot) in slots.enumerate() {
        offsets.push(bytes.len() as u64);
        match slot {
            None => bytes.push(0),
            Some(value) => {
                bytes.push(1);
                bytes = postcard::to_extend(value, bytes).map_err(|e| SnapshotError::Value {
                    id: id as u32,
                    what: format!("cannot be encoded: {e}"),
                })?;
            }
        }
    }
    offsets.push(bytes.len() as u64);
    Ok((offsets, bytes))
}

/// The table a snapshot in `region` holds, every part checked; lookups walk the region.
///
/// The checksum, the values and routes, and each family's structure are checked side by side
/// (rayon): each check is sound on any bytes, so none waits for the checksum, and a damaged
/// or cut file reports that (the checksum's error) whatever else failed.
pub(super) fn decode<V: DeserializeOwned + Send>(
    region: &Arc<Region>,
) -> Result<IpTable<V>, SnapshotError> {
    let bytes = region.bytes();
    // The decode first: `join` runs it on this thread, so the values are allocated here.
    let (table, sum) =
        rayon::join(|| decode_unverified(region), || container::verify(&SNAPSHOT, bytes));
    sum?;
    table
}

/// [`decode`] without the checksum.
fn decode_unverified<V: DeserializeOwned + Send>(
    region: &Arc<Region>,
) -> Result<IpTable<V>, SnapshotError> {
    let view = container::layout(&SNAPSHOT, region.bytes())?;
    let p = check_header(&view.header, view.arrays.len())?;
    let a = &view.arrays;
    let values_and_routes = || -> Result<_, SnapshotError> {
        let slots: Vec<Option<V>> = decode_values(&a[8], &a[9], p[4])?;
        let stored: Vec<bool> = slots.iter().map(Option::is_some).collect();
        let mut counts = vec![0u32; slots.len()];
        let routes4 = route_list::<u32>(region, &a[6], &stored, &mut counts)?;
        let routes6 = route_list::<u128>(region, &a[7], &stored, &mut counts)?;
        Ok((slots, counts, routes4, routes6))
    };
    let n = p[4].min(usize::MAX as u64) as usize;
    let v4 = || mapped_family::<u32>(region, [&a[0], &a[1], &a[2]], [p[0], p[1]], n);
    let v6 = || mapped_family::<u128>(region, [&a[3], &a[4], &a[5]], [p[2], p[3]], n);
    let (values_and_routes, (v4, v6)) = rayon::join(values_and_routes, || rayon::join(v4, v6));
    let (slots, counts, routes4, routes6) = values_and_routes?;
    Ok(IpTable {
        v4: Family::Mapped(Mapped::new(v4?, routes4)),
        v6: Family::Mapped(Mapped::new(v6?, routes6)),
        structures: Structures {
            v4: Structure::default_for::<u32>(),
            v6: Structure::default_for::<u128>(),
        },
        values: Values::from_snapshot(slots, counts),
    })
}

/// The parameters of a snapshot header with `arrays` arrays.
fn check_header(h: &Header, arrays: usize) -> Result<[u64; PARAMS], SnapshotError> {
    let bad = |what: String| Err(SnapshotError::Malformed { what, at: "header".into() });
    if h.algorithm != POPTRIE || h.family != BOTH {
        return bad(format!("structure {} of family {} (expected 1 of 0)", h.algorithm, h.family));
    }
    if arrays != ARRAYS {
        return bad(format!("{arrays} arrays (expected {ARRAYS})"));
    }
    if h.params[4] > u64::from(MAX_VALUES) {
        return bad(format!("{} values (at most {MAX_VALUES})", h.params[4]));
    }
    if h.params[5] != POSTCARD {
        return bad(format!("value encoding {} (this reads {POSTCARD}: postcard)", h.params[5]));
    }
    Ok(h.params)
}

/// The values of the offset and byte arrays (`n` ids).
fn decode_values<V: DeserializeOwned>(
    offsets: &ArrayView<'_>,
    bytes: &ArrayView<'_>,
    n: u64,
) -> Result<Vec<Option<V>>, SnapshotError> {
    let malformed = |what: String| SnapshotError::Malformed { what, at: "value offsets".into() };
    if offsets.elem_bytes != 8 || offsets.len() as u64 != n.saturating_add(1) {
        return Err(malformed(format!("{} offsets for {n} values", offsets.len())));
    }
    let at = |i: usize| u64::from_le_bytes(offsets.bytes[8 * i..8 * i + 8].try_into().unwrap());
    if at(0) != 0 || at(n as usize) != bytes.bytes.len() as u64 {
        return Err(malformed("offsets do not span the value bytes".into()));
    }
    let mut values = Vec::with_capacity(n as usize);
    for id in 0..n as usize {
        let (start, end) = (at(id), at(id + 1));
        if end <= start || end > bytes.bytes.len() as u64 {
            return Err(malformed(format!("value {id}: bytes {start}..{end}")));
        }
        let value = &bytes.bytes[start as usize..end as usize];
        values.push(decode_value(id as u32, value)?);
    }
    Ok(values)
}

/// One value: a free id (`0`), or `1` and its postcard encoding, nothing after it.
fn decode_value<V: DeserializeOwned>(id: u32, b: &[u8]) -> Result<Option<V>, SnapshotError> {
    let bad = |what: String| SnapshotError::Value { id, what };
    match b {
        [0] => Ok(None),
        [1, rest @ ..] => match postcard::take_from_bytes::<V>(rest) {
            Ok((value, [])) => Ok(Some(value)),
            Ok((_, extra)) => Err(bad(format!("{} bytes after the value", extra.len()))),
            Err(e) => Err(bad(format!("cannot be decoded as this table's value type: {e}"))),
        },
        _ => Err(bad(format!("bad tag in {} bytes", b.len()))),
    }
}

/// A family's route list, each route checked (length, host bits, a value id that `stored`
/// holds, strictly increasing order) and counted in `counts`.
fn route_list<A: AnyKey + Routes>(
    region: &Arc<Region>,
    array: &ArrayView<'_>,
    stored: &[bool],
    counts: &mut [u32],
) -> Result<List, SnapshotError> {
    let name = if A::BITS == 32 { "IPv4 routes" } else { "IPv6 routes" };
    let bad = |what: String| SnapshotError::Malformed { what, at: name.into() };
    let list: Slab<u64> = Slab::in_region(region, array.range())
        .filter(|l| array.elem_bytes as usize == 8 * A::WORDS && l.len() % A::WORDS == 0)
        .ok_or_else(|| bad(format!("element size {}", array.elem_bytes)))?;
    let mut last = None;
    for (i, words) in list.chunks_exact(A::WORDS).enumerate() {
        let (order, id) = A::check(words).map_err(|why| bad(format!("route {i}: {why}")))?;
        let route = || {
            let (addr, len, _) = A::get(words);
            crate::prefix::Prefix::new(addr, len).map_or_else(|e| e.to_string(), |p| p.to_string())
        };
        if !stored.get(id as usize).copied().unwrap_or(false) {
            return Err(bad(format!("route {i} ({}): value {id} is not stored", route())));
        }
        if last.is_some_and(|l| l >= order) {
            return Err(bad(format!("route {i} ({}): out of order or repeated", route())));
        }
        last = Some(order);
        counts[id as usize] += 1;
    }
    Ok(list)
}

/// A family's Poptrie mapped from arrays `[dir, nodes, leaves]` with `[s, leaf bytes]`, every
/// next hop naming one of `values` ids and a length the family allows.
fn mapped_family<A: AnyKey>(
    region: &Arc<Region>,
    arrays: [&ArrayView<'_>; 3],
    params: [u64; 2],
    values: usize,
) -> Result<poptrie::Fib<A>, SnapshotError> {
    let family = if A::BITS == 32 { "IPv4" } else { "IPv6" };
    let [dir, nodes, leaves] = arrays;
    let sizes = [(dir, 4, "dir"), (nodes, 24, "nodes"), (leaves, params[1], "leaves")];
    for (a, size, name) in sizes {
        if u64::from(a.elem_bytes) != size {
            let what = format!("element size {} (expected {size})", a.elem_bytes);
            return Err(SnapshotError::Malformed { what, at: format!("{family} {name}") });
        }
    }
    let arrays = MappedArrays {
        s: u32::try_from(params[0]).unwrap_or(u32::MAX),
        leaf_bytes: params[1] as u32,
        dir: dir.range(),
        nodes: nodes.range(),
        leaves: leaves.range(),
    };
    let hop = TableHops { family, bits: A::BITS, values: values as u32 };
    poptrie::Fib::in_region(region, &arrays, &hop).map_err(|e| match e {
        ExportError::Invalid { array, what, .. } => {
            SnapshotError::Invalid { part: format!("{family} {array}"), what }
        }
        other => SnapshotError::Invalid { part: family.into(), what: other.to_string() },
    })
}

/// The next hops a table's structure may hold (`hop.rs`): `(id << 8 | length) + 1` with an id
/// of one of `values` and a length the family has.
struct TableHops {
    family: &'static str,
    bits: u32,
    values: u32,
}

impl AcceptHop for TableHops {
    #[inline(always)]
    fn accepts(&self, raw: u32) -> bool {
        let index = raw.wrapping_sub(1);
        (index >> 8) < self.values && (index & 0xff) <= self.bits
    }

    fn why(&self, raw: u32) -> String {
        let (id, len) = id_and_len(NextHop::from_raw(raw).expect("not 0"));
        match len > self.bits {
            true => format!("prefix length {len} in an {} table", self.family),
            false => format!("value {id} of {}", self.values),
        }
    }
}
