//! The Rust objects behind the C handles, and their safe operations.
//!
//! A `fibforge_table4` / `fibforge_table6` is a [`TableHandle`]: the concurrent table
//! ([`AnyTable`]: Poptrie by default, or the interval B+-tree, chosen by name when created)
//! plus the names of the next hops a loaded file used. A `fibforge_reader4` /
//! `fibforge_reader6` is a [`ReaderHandle`]: an [`AnyReader`], which keeps the published
//! structure alive by itself, so readers and the table may be freed in any order. Each call
//! dispatches on the structure once, then runs that structure's own lookup.
//!
//! Next hops cross the ABI as `u32` values `0..=u32::MAX - 1` and are stored as the
//! [`NextHop`] whose index is that value; [`NO_ROUTE`] (`u32::MAX`) means "no route".
//! Both structures hold values up to [`MAX_NEXT_HOP`].

use crate::error::{Error, Status};
use fibforge::sync::{AnyKey, AnyReader, AnyTable, Structure};
use fibforge::{NextHop, Prefix, Rib};
use fibforge_io::{ReadConfig, ReadError};
use std::ffi::{CStr, CString};
use std::path::Path;
use std::sync::Mutex;

/// The value a lookup returns when no route matches (`FIBFORGE_NO_ROUTE`).
pub const NO_ROUTE: u32 = u32::MAX;

/// The largest next hop a table holds (`FIBFORGE_MAX_NEXT_HOP`); larger values are
/// refused with a limit error.
pub const MAX_NEXT_HOP: u32 = 0x7FFF_FFFE;

/// An IPv6 address as C passes it: 16 bytes in network order (like `struct in6_addr`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Ip6 {
    /// The address bytes, most significant first.
    pub bytes: [u8; 16],
}

/// An address family as the ABI sees it: its C address type and its routes in a loaded file.
pub trait Side: AnyKey {
    /// How C passes one address.
    type C: Copy + Default;
    /// The library's address from the C one.
    fn from_c(c: Self::C) -> Self;
    /// This family's routes of a loaded file.
    fn routes(table: fibforge_io::LoadedTable) -> Rib<Self>;
}

impl Side for u32 {
    type C = u32;
    fn from_c(c: u32) -> u32 {
        c
    }
    fn routes(table: fibforge_io::LoadedTable) -> Rib<u32> {
        table.v4
    }
}

impl Side for u128 {
    type C = Ip6;
    fn from_c(c: Ip6) -> u128 {
        u128::from_be_bytes(c.bytes)
    }
    fn routes(table: fibforge_io::LoadedTable) -> Rib<u128> {
        table.v6
    }
}

/// The C value of a lookup result.
#[inline]
pub fn hop_out(hop: Option<NextHop>) -> u32 {
    hop.map_or(NO_ROUTE, NextHop::index)
}

/// The next hop for a C value; `NO_ROUTE` is not a next hop.
pub fn hop_in(value: u32) -> Result<NextHop, Error> {
    if value > NextHop::MAX_INDEX {
        return Err(Error::new(
            Status::Invalid,
            format!("next hop {value} is FIBFORGE_NO_ROUTE; next hops are 0..={MAX_NEXT_HOP}"),
        ));
    }
    Ok(NextHop::from_index(value))
}

/// A table of one family (`fibforge_table4` / `fibforge_table6`).
pub struct TableHandle<A: Side> {
    table: AnyTable<A>,
    names: Vec<CString>,
}

/// A lookup handle for one thread at a time (`fibforge_reader4` / `fibforge_reader6`),
/// created offline (see [`fibforge::Reader`]).
pub struct ReaderHandle<A: Side> {
    /// The library's reader.
    pub reader: AnyReader<A>,
}

impl<A: Side> TableHandle<A> {
    /// An empty table of `structure`.
    pub fn new(structure: &Structure) -> Result<Self, Error> {
        Self::from_rib_with(Rib::new(), structure)
    }

    /// A Poptrie table of `rib`'s routes (next hops by index, no names).
    pub fn from_rib(rib: Rib<A>) -> Result<Self, Error> {
        Self::from_rib_with(rib, &Structure::default_for::<A>())
    }

    /// A table of `structure` from `rib`'s routes (next hops by index, no names).
    pub fn from_rib_with(rib: Rib<A>, structure: &Structure) -> Result<Self, Error> {
        Ok(TableHandle { table: AnyTable::new(rib, structure)?, names: Vec::new() })
    }

    /// This family's routes of a text table or MRT dump (plain, gzip or bzip2), in a table
    /// of `structure`. Next hops are numbered in the order the file first names them; their
    /// text is kept as names.
    pub fn load(path: &Path, structure: &Structure) -> Result<Self, Error> {
        let cfg = ReadConfig { family: Some(A::FAMILY), ..ReadConfig::default() };
        let loaded = fibforge_io::read_table(path, &cfg).map_err(|e| read_error(&e.error))?;
        if let Some(note) = loaded.no_routes(&path.display().to_string()) {
            // C has no warnings: an empty table from a non-empty file is refused.
            return Err(Error::new(Status::Parse, note));
        }
        let total = loaded.len();
        let names = hop_names(&loaded);
        let routes = A::routes(loaded);
        if routes.is_empty() && total > 0 {
            // A file of the other family would load as an empty table without this.
            let message = format!(
                "{}: holds {total} routes, none of them {} (load it as the other family)",
                path.display(),
                A::FAMILY
            );
            return Err(Error::new(Status::Parse, message));
        }
        Ok(TableHandle { table: AnyTable::new(routes, structure)?, names })
    }

    /// Inserts or replaces a route; returns the previous next hop of the prefix or `NO_ROUTE`.
    pub fn insert(&mut self, addr: A, len: u8, hop: u32) -> Result<u32, Error> {
        let hop = hop_in(hop)?;
        if hop.index() > MAX_NEXT_HOP {
            // Checked here so that the limit is the same whatever the structure.
            let message = format!(
                "next hop {} exceeds the limit FIBFORGE_MAX_NEXT_HOP ({MAX_NEXT_HOP})",
                hop.index()
            );
            return Err(Error::new(Status::Limit, message));
        }
        Ok(hop_out(self.table.insert(prefix(addr, len)?, hop)?))
    }

    /// Withdraws a route; returns its next hop or `NO_ROUTE` when it was absent.
    pub fn remove(&mut self, addr: A, len: u8) -> Result<u32, Error> {
        Ok(hop_out(self.table.remove(&prefix(addr, len)?)?))
    }

    /// One lookup from the writer's thread.
    #[inline]
    pub fn lookup(&self, addr: A) -> u32 {
        hop_out(self.table.lookup(addr))
    }

    /// A batch of lookups on the writer's thread.
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.table.lookup_batch(addrs, out)
    }

    /// The structure's name (the registry's: `"poptrie"` or `"bplus"`), NUL-terminated for C.
    pub fn structure(&self) -> &'static CStr {
        c_name(self.table.structure())
    }

    /// Number of routes.
    pub fn len(&self) -> usize {
        self.table.rib().len()
    }

    /// True when the table has no route.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A new reader.
    pub fn reader(&self) -> ReaderHandle<A> {
        ReaderHandle { reader: self.table.reader() }
    }

    /// Retired memory not yet freed (see [`fibforge::sync::PendingReclaim`]).
    pub fn pending_reclaim(&self) -> fibforge::sync::PendingReclaim {
        self.table.pending_reclaim()
    }

    /// The name a loaded file gave next hop `id`.
    pub fn name(&self, id: u32) -> Option<&CStr> {
        self.names.get(id as usize).map(CString::as_c_str)
    }
}

/// The structure a C string names (NULL: an error; see `fibforge.h`).
///
/// # Safety
/// `algo` is NULL or a valid NUL-terminated string.
pub unsafe fn structure<A: Side>(algo: *const std::ffi::c_char) -> Result<Structure, Error> {
    // SAFETY: forwarded contract on `algo`.
    let text = unsafe { crate::ptr::text(algo, "algo") }?;
    Ok(Structure::parse::<A>(text)?)
}

fn prefix<A: Side>(addr: A, len: u8) -> Result<Prefix<A>, Error> {
    Prefix::new(addr, len.into()).map_err(|e| Error::new(Status::Invalid, e.to_string()))
}

/// The text of each next hop a loaded file named, by id, for `*_next_hop_name` (an interior
/// NUL cannot cross into C: it is shown as `\0`).
pub(crate) fn hop_names(loaded: &fibforge_io::LoadedTable) -> Vec<CString> {
    let escaped = |n: &String| CString::new(n.replace('\0', "\\0")).unwrap_or_default();
    loaded.hops.values().iter().map(escaped).collect()
}

/// The C status and message of a failed read.
pub(crate) fn read_error(e: &ReadError) -> Error {
    let status = match e {
        ReadError::Io { .. } => Status::Io,
        _ => Status::Parse,
    };
    Error::new(status, e.to_string())
}

/// `name` NUL-terminated, for the life of the process: one leaked copy per structure name
/// (a handful), so the C side gets the static string `fibforge.h` promises.
pub(crate) fn c_name(name: &'static str) -> &'static CStr {
    static NAMES: Mutex<Vec<(&'static str, &'static CStr)>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&(_, c)) = names.iter().find(|(n, _)| *n == name) {
        return c;
    }
    let c: &'static CStr =
        Box::leak(CString::new(name).expect("no NUL in a name").into_boxed_c_str());
    names.push((name, c));
    c
}
