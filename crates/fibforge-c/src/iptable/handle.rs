//! The objects behind `fibforge_iptable`, `fibforge_ipreader` and `fibforge_ipcursor`.
//!
//! A table is an [`IpTable<u32>`] plus the names of the next hops a loaded file used. A
//! reader is an [`IpReader<u32>`] and whether C put it online: an offline reader's lookup
//! goes online for that call only (the per-family readers do the same), where the Rust
//! reader would panic. A cursor holds the routes it walks, copied when it was made, so the
//! table may change or be freed while a cursor is read.

use super::types::{CPrefix, CRoute, net4, net6};
use crate::error::{Error, Status};
use crate::handle::{Ip6, MAX_NEXT_HOP, NO_ROUTE, c_name, hop_names, read_error};
use fibforge::{IpReader, IpTable, IpTableError, SnapshotError};
use fibforge_io::ReadConfig;
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::ffi::{CStr, CString};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;

/// A table of both families (`fibforge_iptable`).
pub struct IpTableHandle {
    table: IpTable<u32>,
    names: Vec<CString>,
}

/// A lookup handle for one thread at a time (`fibforge_ipreader`), created offline.
pub struct IpReaderHandle {
    reader: IpReader<u32>,
    online: bool,
}

/// Routes to hand out one by one (`fibforge_ipcursor`).
pub struct Cursor {
    routes: std::vec::IntoIter<CRoute>,
}

/// The answer of one lookup: the next hop (or `NO_ROUTE`) and the matched prefix's length
/// (0 when none matched).
pub type Answer = (u32, u8);

const MISS: Answer = (NO_ROUTE, 0);

/// A network type of the answers (`Ipv4Net`, `Ipv6Net`): its prefix length.
trait Matched: Copy {
    fn length(self) -> u8;
}

impl Matched for Ipv4Net {
    fn length(self) -> u8 {
        self.prefix_len()
    }
}

impl Matched for Ipv6Net {
    fn length(self) -> u8 {
        self.prefix_len()
    }
}

fn answer<N: Matched>(found: Option<(N, &u32)>) -> Answer {
    found.map_or(MISS, |(net, &hop)| (hop, net.length()))
}

/// A chunk of answers (at most [`CHUNK`](super::batch::CHUNK)): `lookup` fills the table's or
/// reader's answers for `addrs`, written to `out` as C reads them.
fn batch<'t, K, N: Matched>(
    addrs: &[K],
    out: &mut [Answer],
    lookup: impl FnOnce(&[K], &mut [Option<(N, &'t u32)>]),
) {
    let mut found = [None; super::batch::CHUNK];
    let found = &mut found[..addrs.len()];
    lookup(addrs, found);
    for (o, &f) in out.iter_mut().zip(found.iter()) {
        *o = answer(f);
    }
}

impl IpTableHandle {
    /// An empty table on `algo` (`None`: the default structure).
    pub fn new(algo: Option<&str>) -> Result<Self, Error> {
        let table = match algo {
            Some(spec) => IpTable::with_structure(spec).map_err(table_error)?,
            None => IpTable::new(),
        };
        Ok(IpTableHandle { table, names: Vec::new() })
    }

    /// Both families' routes of a text table or MRT dump, on `algo`; next hops numbered in
    /// the order the file first names them, their text kept as names.
    pub fn load(path: &Path, algo: Option<&str>) -> Result<Self, Error> {
        let mut handle = Self::new(algo)?;
        let loaded = fibforge_io::read_table(path, &ReadConfig::default())
            .map_err(|e| read_error(&e.error))?;
        if let Some(note) = loaded.no_routes(&path.display().to_string()) {
            return Err(Error::new(Status::Parse, note));
        }
        let v4 = loaded.v4.iter().map(|(p, h)| {
            let net = Ipv4Net::new(Ipv4Addr::from(p.addr()), p.len() as u8);
            (IpNet::V4(net.expect("a RIB prefix is valid")), h.index())
        });
        let v6 = loaded.v6.iter().map(|(p, h)| {
            let net = Ipv6Net::new(Ipv6Addr::from(p.addr()), p.len() as u8);
            (IpNet::V6(net.expect("a RIB prefix is valid")), h.index())
        });
        handle.table.try_extend(v4.chain(v6)).map_err(table_error)?;
        handle.names = hop_names(&loaded);
        Ok(handle)
    }

    /// A snapshot file mapped into memory ([`IpTable::open`]).
    pub fn open(path: &Path) -> Result<Self, Error> {
        let table = IpTable::open(path).map_err(snapshot_error)?;
        Ok(IpTableHandle { table, names: Vec::new() })
    }

    /// Writes the table to `path` as a snapshot, replacing the file whole.
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        self.table.save(path).map_err(snapshot_error)
    }

    /// Inserts or replaces a route; returns the former next hop or `NO_ROUTE`.
    pub fn insert(&mut self, net: IpNet, hop: u32) -> Result<u32, Error> {
        if hop > MAX_NEXT_HOP {
            let message = if hop == NO_ROUTE {
                format!("next hop {hop} is FIBFORGE_NO_ROUTE; next hops are 0..={MAX_NEXT_HOP}")
            } else {
                format!("next hop {hop} exceeds the limit FIBFORGE_MAX_NEXT_HOP ({MAX_NEXT_HOP})")
            };
            let status = if hop == NO_ROUTE { Status::Invalid } else { Status::Limit };
            return Err(Error::new(status, message));
        }
        let old = self.table.try_insert(net, hop).map_err(table_error)?;
        Ok(old.unwrap_or(NO_ROUTE))
    }

    /// Withdraws a route; returns its next hop or `NO_ROUTE` when it was absent.
    pub fn remove(&mut self, net: IpNet) -> Result<u32, Error> {
        Ok(self.table.try_remove(net).map_err(table_error)?.unwrap_or(NO_ROUTE))
    }

    /// The next hop of exactly `net`, or `NO_ROUTE`.
    pub fn get(&self, net: IpNet) -> u32 {
        self.table.get(net).copied().unwrap_or(NO_ROUTE)
    }

    /// The longest match of an IPv4 address (host byte order).
    #[inline]
    pub fn lookup4(&self, addr: u32) -> Answer {
        answer(self.table.lookup_v4(Ipv4Addr::from(addr)))
    }

    /// The longest match of an IPv6 address.
    #[inline]
    pub fn lookup6(&self, addr: Ip6) -> Answer {
        answer(self.table.lookup_v6(Ipv6Addr::from(addr.bytes)))
    }

    /// Batch lookups of IPv4 addresses into `out` (one answer per address).
    pub fn lookup4_batch(&self, addrs: &[Ipv4Addr], out: &mut [Answer]) {
        batch(addrs, out, |a, f| self.table.lookup_batch_v4(a, f));
    }

    /// Batch lookups of IPv6 addresses into `out` (one answer per address).
    pub fn lookup6_batch(&self, addrs: &[Ipv6Addr], out: &mut [Answer]) {
        batch(addrs, out, |a, f| self.table.lookup_batch_v6(a, f));
    }

    /// The number of routes of both families.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when the table has no route.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// True while a family looks up in a snapshot's pages ([`IpTable::is_mapped`]).
    pub fn is_mapped(&self) -> bool {
        self.table.is_mapped()
    }

    /// The structure's name, NUL-terminated for C.
    pub fn structure(&self) -> &'static CStr {
        c_name(self.table.structure())
    }

    /// The name a loaded file gave next hop `id`.
    pub fn name(&self, id: u32) -> Option<&CStr> {
        self.names.get(id as usize).map(CString::as_c_str)
    }

    /// A cursor over every route: IPv4 first, each family in prefix order.
    pub fn routes(&self) -> Cursor {
        Cursor::of(self.table.iter())
    }

    /// A cursor over the routes that contain `net` (itself included), shortest first.
    pub fn covering(&self, net: IpNet) -> Cursor {
        Cursor::of(self.table.covering(net))
    }

    /// A cursor over the routes inside `net` (itself included), in prefix order.
    pub fn covered(&self, net: IpNet) -> Cursor {
        Cursor::of(self.table.covered(net))
    }

    /// A new reader, offline.
    pub fn reader(&self) -> IpReaderHandle {
        IpReaderHandle { reader: self.table.reader(), online: false }
    }
}

impl IpReaderHandle {
    /// Goes online (see `fibforge.h`).
    pub fn online(&mut self) {
        self.reader.online();
        self.online = true;
    }

    /// Goes offline.
    pub fn offline(&mut self) {
        self.reader.offline();
        self.online = false;
    }

    /// Reports a quiescent state.
    pub fn quiescent(&mut self) {
        self.reader.quiescent();
    }

    /// Runs `f` with the reader online: as it is, or online for this call only.
    #[inline]
    pub fn with_online<T>(&mut self, f: impl FnOnce(&IpReader<u32>) -> T) -> T {
        if self.online { f(&self.reader) } else { f(&self.reader.pin()) }
    }

    /// The longest match of an IPv4 address.
    #[inline]
    pub fn lookup4(&mut self, addr: u32) -> Answer {
        self.with_online(|r| answer(r.lookup_v4(Ipv4Addr::from(addr))))
    }

    /// The longest match of an IPv6 address.
    #[inline]
    pub fn lookup6(&mut self, addr: Ip6) -> Answer {
        self.with_online(|r| answer(r.lookup_v6(Ipv6Addr::from(addr.bytes))))
    }
}

/// Batch lookups through an online reader (the `IpReader` twins of the table's).
pub fn reader_lookup4_batch(r: &IpReader<u32>, addrs: &[Ipv4Addr], out: &mut [Answer]) {
    batch(addrs, out, |a, f| r.lookup_batch_v4(a, f));
}

/// As [`reader_lookup4_batch`], IPv6.
pub fn reader_lookup6_batch(r: &IpReader<u32>, addrs: &[Ipv6Addr], out: &mut [Answer]) {
    batch(addrs, out, |a, f| r.lookup_batch_v6(a, f));
}

impl Cursor {
    fn of<'t>(routes: impl Iterator<Item = (IpNet, &'t u32)>) -> Self {
        let routes: Vec<CRoute> =
            routes.map(|(net, &hop)| CRoute { prefix: CPrefix::of(net), next_hop: hop }).collect();
        Cursor { routes: routes.into_iter() }
    }

    /// The next route, or `None` at the end.
    pub fn next_route(&mut self) -> Option<CRoute> {
        self.routes.next()
    }
}

/// The network of an IPv4 route argument.
pub fn route4(addr: u32, len: u8) -> Result<IpNet, Error> {
    net4(addr, len).map(IpNet::V4)
}

/// The network of an IPv6 route argument.
pub fn route6(addr: Ip6, len: u8) -> Result<IpNet, Error> {
    net6(addr, len).map(IpNet::V6)
}

fn table_error(e: IpTableError) -> Error {
    let status = match e {
        IpTableError::Structure(_) => Status::Invalid,
        IpTableError::Build(fibforge::BuildError::BadOption { .. }) => Status::Invalid,
        _ => Status::Limit,
    };
    Error::new(status, e.to_string())
}

fn snapshot_error(e: SnapshotError) -> Error {
    let status = match root_cause(&e) {
        SnapshotError::Io(_) => Status::Io,
        SnapshotError::Unsupported(_) => Status::Unsupported,
        SnapshotError::Build(_) => Status::Limit,
        _ => Status::Parse,
    };
    Error::new(status, e.to_string())
}

fn root_cause(e: &SnapshotError) -> &SnapshotError {
    match e {
        SnapshotError::File { error, .. } => root_cause(error),
        other => other,
    }
}
