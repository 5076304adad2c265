//! Export and import of the compiled arrays (`docs/reference/export-format.md`, algorithm `bloomfwd`).
//!
//! Layout: `p[0]` hash code, `p[1]` level count `n`, `p[2]` direct bits `D`, `p[3]` raw
//! default next hop; array 0 the direct array (`u32`), array 1 the level records
//! `{len, m, k, slot}` (four `u32`), then per level its filter words (`u64`) and its table
//! slots (8, 16 or 32 bytes by `slot`), written field by field with zero padding.
//!
//! The importer checks the header, the direct array and every level record before it reads a
//! filter or a table, then per level: filter word count and no bit at or above `m`; table
//! size a power of two with an empty slot, slot layout and padding, keys without bits beyond
//! the level's length; every key stored once and reachable from its home slot; every key's
//! filter bits set. The rebuilt structure takes its counters from the table keys (so updates
//! keep working), a plan whose groups end at the levels' lengths, and a configuration that a
//! full rebuild uses: `hash=` as exported, `fpr = 2^-k` (so the level keeps its `k` when its
//! filter grows), IPv4 with a direct array `cpe=on` else `cpe=off`, IPv6 `levels=n`.

use super::counting::CountingBloom;
use super::hash::{HashFn, Scheme};
use super::key_table::KeyTable;
use super::table::HopTable;
use super::*;
use crate::export::file::{Algorithm, Array, ExportError, ExportFile, PARAMS, ROUTES_PARAM};

const ALGO: &str = "bloomfwd";
/// Hash functions by their code in `p[0]`.
const HASHES: [HashFn; 3] = [HashFn::H2, HashFn::Murmur, HashFn::Knuth];
/// The most hashes per key a file may hold (a false-positive rate of 2^-64).
pub(crate) const MAX_K: u32 = 64;
/// The widest direct array a file may hold (2^24 entries, 64 MiB).
const MAX_DIRECT_BITS: u32 = 24;
/// Bytes of a level record and of a slot of each layout.
const RECORD_BYTES: usize = 16;
const SLOT_BYTES: [usize; 3] = [8, 16, 32];

fn invalid(array: &'static str, what: impl Into<String>) -> ExportError {
    ExportError::Invalid { algo: ALGO, array, what: what.into() }
}

/// The slot layout of a level of length `len` in a family of `bits` address bits.
fn slot_kind(bits: u32, len: u32) -> u32 {
    match (bits, len) {
        (32, _) => 0,
        (_, 0..=64) => 1,
        _ => 2,
    }
}

/// A level record as read: `{len, m, k, slot}`.
#[derive(Copy, Clone, Debug)]
struct Record {
    len: u32,
    m: u32,
    k: u32,
    slot: u32,
}

impl<A: BloomKey> BloomFib<A> {
    /// The compiled arrays as an export file (double hashing only: a structure with
    /// independent hashing, `bloom_naive` or `bloom_base` without `hash=`, has no export).
    /// The next-hop values are left empty for the caller to fill.
    #[doc(hidden)]
    pub fn to_export(&self) -> Result<ExportFile, ExportError> {
        let Scheme::Double(f) = self.scheme else {
            let what = "independent hashing (the format holds double hashing only)";
            return Err(ExportError::Unsupported(format!("{}: {what}", self.cfg.algo_name())));
        };
        if let Some(l) = self.levels.iter().find(|l| l.filter().k() > MAX_K) {
            let what = format!("level /{} has k = {} (at most {MAX_K})", l.len(), l.filter().k());
            return Err(ExportError::Unsupported(what));
        }
        let mut params = [0; PARAMS];
        params[0] = HASHES.iter().position(|&h| h == f).expect("every function has a code") as u64;
        params[1] = self.levels.len() as u64;
        params[2] = self.plan.direct_bits as u64;
        params[3] = self.default.map_or(0, NextHop::raw) as u64;
        let mut records = Vec::with_capacity(RECORD_BYTES * self.levels.len());
        let mut arrays = vec![Array::of(&self.direct)];
        let mut tables = Vec::with_capacity(2 * self.levels.len());
        for level in &self.levels {
            let (filter, (kind, slots)) = (level.filter(), slots_array(level.table()));
            for v in [level.len(), filter.m(), filter.k(), kind] {
                records.extend_from_slice(&v.to_le_bytes());
            }
            tables.push(Array::of(filter.words()));
            tables.push(slots);
        }
        arrays.push(Array { elem_bytes: RECORD_BYTES as u32, bytes: records });
        arrays.extend(tables);
        let family = if A::BITS == 32 { 4 } else { 6 };
        Ok(ExportFile { algorithm: Algorithm::Bloomfwd, family, params, arrays, hops: Vec::new() })
    }

    /// The structure an export file holds, every length and index checked first.
    #[doc(hidden)]
    pub fn from_export(file: &ExportFile) -> Result<Self, ExportError> {
        let family = if A::BITS == 32 { 4 } else { 6 };
        if file.algorithm != Algorithm::Bloomfwd || file.family != family {
            let what = format!(
                "a {} IPv{} file, read as IPv{family} bloomfwd",
                file.algorithm.name(),
                file.family
            );
            return Err(invalid("header", what));
        }
        let (f, n, d, default) = header(file)?;
        let direct = read_direct(&file.arrays[0], d)?;
        let records = read_records(&file.arrays[1], n, d, A::BITS)?;
        let scheme = Scheme::Double(f);
        let fpr_of = |k: u32| 0.5f64.powi(k as i32);
        let mut levels = Vec::with_capacity(n);
        for (i, r) in records.iter().enumerate() {
            let filter = read_filter(&file.arrays[2 + 2 * i], r, i)?;
            let table = read_table::<A>(&file.arrays[3 + 2 * i], r, i)?;
            let level = Level::from_parts(r.len, filter, table, scheme, fpr_of(r.k)).map_err(
                |(array, what)| invalid(array, format!("level {i} (/{}): {what}", r.len)),
            )?;
            levels.push(level);
        }
        let fpr = records.first().map_or(Config::default().fpr, |r| fpr_of(r.k));
        let expansion = match (A::BITS, d, n) {
            (32, 0, _) => Expansion::None,
            (32, _, _) => Expansion::Ipv4Groups,
            (_, _, 0) => Expansion::FamilyDefault,
            _ => Expansion::Levels(n),
        };
        let cfg = Config { fpr, hash: Some(f), expansion, ..Config::default() };
        // Any structure may expand a new route length into the next longer level: the levels'
        // groups partition the lengths above the direct array, whatever the original plan.
        let plan = Plan {
            direct_bits: d,
            levels: records.iter().rev().map(|r| r.len).collect(),
            expand_new: true,
        };
        let isa = Isa::resolve(cfg.algo_name(), cfg.isa)
            .map_err(|e| ExportError::Unsupported(e.to_string()))?;
        Ok(BloomFib { levels, direct, default, plan, scheme, isa, cfg })
    }
}

/// The table's slots in their layout, and the layout's code.
fn slots_array<A: BloomKey>(table: &KeyTable<A>) -> (u32, Array) {
    let mut bytes = Vec::new();
    let kind = match table {
        KeyTable::High(t) => {
            for (key, hop) in t.raw_slots() {
                bytes.extend_from_slice(&key.to_le_bytes());
                bytes.extend_from_slice(&hop.to_le_bytes());
                bytes.extend_from_slice(&[0; 4]);
            }
            1
        }
        KeyTable::Full(t) if A::BITS == 32 => {
            for (key, hop) in t.raw_slots() {
                bytes.extend_from_slice(&(key.to_u128() as u32).to_le_bytes());
                bytes.extend_from_slice(&hop.to_le_bytes());
            }
            0
        }
        KeyTable::Full(t) => {
            for (key, hop) in t.raw_slots() {
                let k = key.to_u128();
                bytes.extend_from_slice(&(k as u64).to_le_bytes());
                bytes.extend_from_slice(&((k >> 64) as u64).to_le_bytes());
                bytes.extend_from_slice(&hop.to_le_bytes());
                bytes.extend_from_slice(&[0; 12]);
            }
            2
        }
    };
    (kind, Array { elem_bytes: SLOT_BYTES[kind as usize] as u32, bytes })
}

/// The checked header: hash function, level count, direct bits and default next hop.
fn header(file: &ExportFile) -> Result<(HashFn, usize, u32, Option<NextHop>), ExportError> {
    let p = &file.params;
    let f = usize::try_from(p[0]).ok().and_then(|i| HASHES.get(i)).copied();
    let f = f.ok_or_else(|| invalid("header", format!("hash code p[0] = {} (0, 1 or 2)", p[0])))?;
    if let Some(i) = (4..ROUTES_PARAM).find(|&i| p[i] != 0) {
        return Err(invalid("header", format!("unused parameter p[{i}] = {} (expected 0)", p[i])));
    }
    let arrays = file.arrays.len();
    if arrays < 2 || !arrays.is_multiple_of(2) || ((arrays - 2) / 2) as u64 != p[1] {
        let what = format!("p[1] = {} levels but {arrays} arrays (expected 2 + 2 per level)", p[1]);
        return Err(invalid("header", what));
    }
    let d = u32::try_from(p[2]).ok().filter(|&d| d <= MAX_DIRECT_BITS);
    let d = d.ok_or_else(|| {
        invalid("header", format!("direct bits p[2] = {} (at most {MAX_DIRECT_BITS})", p[2]))
    })?;
    let default = u32::try_from(p[3]).ok().filter(|&h| d == 0 || h == 0).ok_or_else(|| {
        let what = format!("default next hop p[3] = {} with {d} direct bits", p[3]);
        invalid("header", what + " (a u32, and 0 beside a direct array)")
    })?;
    Ok((f, (arrays - 2) / 2, d, NextHop::from_raw(default)))
}

/// Checks `a` holds elements of `elem` bytes, a whole number of them.
fn elements(a: &Array, elem: usize, name: &'static str) -> Result<usize, ExportError> {
    if a.elem_bytes as usize != elem || !a.bytes.len().is_multiple_of(elem) {
        let what =
            format!("{} bytes in elements of {} (expected {elem})", a.bytes.len(), a.elem_bytes);
        return Err(invalid(name, what));
    }
    Ok(a.bytes.len() / elem)
}

fn read_direct(a: &Array, d: u32) -> Result<Vec<u32>, ExportError> {
    let n = elements(a, 4, "direct")?;
    let want = if d == 0 { 0 } else { 1usize << d };
    if n != want {
        return Err(invalid(
            "direct",
            format!("{n} entries for {d} direct bits (expected {want})"),
        ));
    }
    let mut direct = crate::algo::huge::zeroed(n);
    for (v, b) in direct.iter_mut().zip(a.bytes.chunks_exact(4)) {
        *v = u32::from_le_bytes(b.try_into().expect("4 bytes"));
    }
    Ok(direct)
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The level records, checked: strictly decreasing lengths in `(d, bits]`, filter shape in
/// range, slot layout that of the family and length.
fn read_records(a: &Array, n: usize, d: u32, bits: u32) -> Result<Vec<Record>, ExportError> {
    if elements(a, RECORD_BYTES, "levels")? != n {
        return Err(invalid("levels", format!("{} records for {n} levels", a.len())));
    }
    let mut out: Vec<Record> = Vec::with_capacity(n);
    for (i, b) in a.bytes.chunks_exact(RECORD_BYTES).enumerate() {
        let r = Record { len: le32(b, 0), m: le32(b, 4), k: le32(b, 8), slot: le32(b, 12) };
        let above = out.last().map_or(bits + 1, |p| p.len);
        let problem = if r.len <= d || r.len > bits {
            Some(format!("length {} outside ({d}, {bits}]", r.len))
        } else if r.len >= above {
            Some(format!("length {} after {above} (lengths must strictly decrease)", r.len))
        } else if r.m < 64 {
            Some(format!("m = {} (at least 64)", r.m))
        } else if !(1..=MAX_K).contains(&r.k) {
            Some(format!("k = {} (1 to {MAX_K})", r.k))
        } else if r.slot != slot_kind(bits, r.len) {
            Some(format!("slot layout {} (expected {})", r.slot, slot_kind(bits, r.len)))
        } else {
            None
        };
        if let Some(what) = problem {
            return Err(invalid("levels", format!("level {i}: {what}")));
        }
        out.push(r);
    }
    Ok(out)
}

fn read_filter(a: &Array, r: &Record, i: usize) -> Result<CountingBloom, ExportError> {
    let n = elements(a, 8, "filter")?;
    let want = (r.m as usize).div_ceil(64);
    if n != want {
        return Err(invalid(
            "filter",
            format!("level {i}: {n} words for m = {} (expected {want})", r.m),
        ));
    }
    let words: Vec<u64> = a.bytes.chunks_exact(8).map(|b| le64(b, 0)).collect();
    CountingBloom::from_words(words, r.m, r.k)
        .ok_or_else(|| invalid("filter", format!("level {i}: bits set at or above m = {}", r.m)))
}

/// The level's table, each slot's layout, padding and key checked (not yet where keys sit).
fn read_table<A: BloomKey>(a: &Array, r: &Record, i: usize) -> Result<KeyTable<A>, ExportError> {
    let size = SLOT_BYTES[r.slot as usize];
    let n = elements(a, size, "table")?;
    let mask = A::netmask(r.len);
    let bad = |s: usize, what: &str| invalid("table", format!("level {i}, slot {s}: {what}"));
    let mut full = Vec::new();
    let mut high = Vec::new();
    for (s, b) in a.bytes.chunks_exact(size).enumerate() {
        let (key, hop, pad) = match r.slot {
            0 => (le32(b, 0) as u128, le32(b, 4), &b[8..]),
            1 => ((le64(b, 0) as u128) << 64, le32(b, 8), &b[12..]),
            _ => (le64(b, 0) as u128 | (le64(b, 8) as u128) << 64, le32(b, 16), &b[20..]),
        };
        let key = A::from_u128(key);
        if pad.iter().any(|&x| x != 0) {
            return Err(bad(s, "non-zero padding"));
        }
        if hop == 0 && key != A::ZERO {
            return Err(bad(s, "an empty slot with a key"));
        }
        if key.and(mask) != key {
            return Err(bad(s, &format!("key {} has bits beyond /{}", key.to_std(), r.len)));
        }
        match r.slot {
            1 => high.push((key.high64(), hop)),
            _ => full.push((key, hop)),
        }
    }
    let table = match r.slot {
        1 => HopTable::from_raw_slots(&high).map(KeyTable::High),
        _ => HopTable::from_raw_slots(&full).map(KeyTable::Full),
    };
    table.ok_or_else(|| {
        let what = format!("level {i}: {n} slots (a power of two, 4 to 2^32, with an empty one)");
        invalid("table", what)
    })
}
