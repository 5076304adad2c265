//! The `iptable` rows (issue 54): the default structure through [`fibforge::IpTable`], as a
//! program embedding the library calls it. Its lookup answers the value and the matched
//! network (`IpTable::lookup`, an `IpAddr` in, an `IpNet` out; batches through
//! `lookup_batch_v4`/`_v6`), where the bare rows answer a next-hop id; built from the same
//! routes with the routes' next hops as values, and checked against the RIB (network and
//! value) before it is timed.

use super::api::rust_rows;
use super::measure::Ctx;
use crate::family::BenchAddress;
use crate::report::{Row, Status};
use crate::timing::{Mode, Probe};
use fibforge::{Address, IpTable, NextHop, Prefix};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

/// Addresses a batch converts to `std::net` types at a time (on the stack).
const CHUNK: usize = 256;

/// A family as [`IpTable`] takes it.
pub trait IpTableFamily: BenchAddress {
    /// The `ipnet` network of a prefix.
    fn net(p: Prefix<Self>) -> IpNet;
    /// `IpTable::lookup` of one address; the network is handed to [`black_box`] so that it is
    /// computed as for a user who reads it.
    fn one(t: &IpTable<NextHop>, addr: Self) -> Option<(IpNet, NextHop)>;
    /// The family's batch lookup, answers' networks handed to [`black_box`] per chunk.
    fn many(t: &IpTable<NextHop>, addrs: &[Self], out: &mut [Option<NextHop>]);
}

impl IpTableFamily for u32 {
    fn net(p: Prefix<u32>) -> IpNet {
        IpNet::V4(Ipv4Net::new(p.addr().to_std(), p.len() as u8).expect("a valid length"))
    }
    #[inline]
    fn one(t: &IpTable<NextHop>, addr: u32) -> Option<(IpNet, NextHop)> {
        t.lookup(IpAddr::V4(Ipv4Addr::from(addr))).map(|(n, v)| (n, *v))
    }
    fn many(t: &IpTable<NextHop>, addrs: &[u32], out: &mut [Option<NextHop>]) {
        let (mut std, mut answers) = ([Ipv4Addr::UNSPECIFIED; CHUNK], [None; CHUNK]);
        for (addrs, out) in addrs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            let (std, answers) = (&mut std[..addrs.len()], &mut answers[..addrs.len()]);
            std.iter_mut().zip(addrs).for_each(|(s, &a)| *s = Ipv4Addr::from(a));
            t.lookup_batch_v4(std, answers);
            black_box(&answers);
            out.iter_mut().zip(answers.iter()).for_each(|(o, a)| *o = a.map(|(_, v)| *v));
        }
    }
}

impl IpTableFamily for u128 {
    fn net(p: Prefix<u128>) -> IpNet {
        IpNet::V6(Ipv6Net::new(p.addr().to_std(), p.len() as u8).expect("a valid length"))
    }
    #[inline]
    fn one(t: &IpTable<NextHop>, addr: u128) -> Option<(IpNet, NextHop)> {
        t.lookup(IpAddr::V6(Ipv6Addr::from(addr))).map(|(n, v)| (n, *v))
    }
    fn many(t: &IpTable<NextHop>, addrs: &[u128], out: &mut [Option<NextHop>]) {
        let (mut std, mut answers) = ([Ipv6Addr::UNSPECIFIED; CHUNK], [None; CHUNK]);
        for (addrs, out) in addrs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            let (std, answers) = (&mut std[..addrs.len()], &mut answers[..addrs.len()]);
            std.iter_mut().zip(addrs).for_each(|(s, &a)| *s = Ipv6Addr::from(a));
            t.lookup_batch_v6(std, answers);
            black_box(&answers);
            out.iter_mut().zip(answers.iter()).for_each(|(o, a)| *o = a.map(|(_, v)| *v));
        }
    }
}

/// An [`IpTable`] as a timing probe.
struct Table(IpTable<NextHop>);

impl<A: IpTableFamily> Probe<A> for Table {
    #[inline]
    fn one(&mut self, addr: A) -> Option<NextHop> {
        let (net, hop) = A::one(&self.0, addr)?;
        black_box(net);
        Some(hop)
    }
    fn many(&mut self, addrs: &[A], out: &mut [Option<NextHop>]) {
        A::many(&self.0, addrs, out)
    }
}

/// The `iptable` rows of `ctx`'s first traffic pattern, or one error row when the table
/// does not build or answers differently from the RIB.
///
/// Memory is the heap growth of the build, as for the Rust crate peers (the routes, the
/// compiled structure and the values: all the table holds), with
/// [`IpTable::memory_bytes`] (structure and value slots only) in the note; null without the
/// counting allocator ([`crate::alloc`]).
pub fn iptable_rows<A: IpTableFamily>(ctx: &Ctx<'_, A>) -> Vec<Row> {
    let routes = ctx.rib.iter().map(|(p, hop)| (A::net(p), hop));
    let heap0 = crate::alloc::live_bytes();
    let t0 = Instant::now();
    let mut table = Table(IpTable::new());
    if let Err(e) = table.0.try_extend(routes) {
        return vec![error_row(ctx, format!("IpTable build failed: {e}"))];
    }
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    let heap = heap0.zip(crate::alloc::live_bytes()).map(|(a, b)| b.saturating_sub(a) as u64);
    if let Some(wrong) = first_wrong(ctx, &table.0) {
        return vec![error_row(ctx, wrong)];
    }
    let compiled = table.0.memory_bytes();
    let mut rows = rust_rows(ctx, "iptable", &mut table);
    for r in &mut rows {
        r.note = Some(format!(
            "IpTable::lookup: value and matched network (IpAddr in, IpNet out); memory: heap \
             growth of the build (memory_bytes(): {compiled})"
        ));
        (r.memory_bytes, r.compile_ms) = (heap, Some(compile_ms));
    }
    rows
}

/// The first verification address whose network or value differs from the RIB's.
fn first_wrong<A: IpTableFamily>(ctx: &Ctx<'_, A>, table: &IpTable<NextHop>) -> Option<String> {
    ctx.probes.addrs.iter().find_map(|&addr| {
        let want = ctx.rib.longest_match(addr).map(|(p, hop)| (A::net(p), hop));
        let got = A::one(table, addr);
        (got != want).then(|| format!("IpTable answers {got:?} for {addr:?}, the RIB {want:?}"))
    })
}

fn error_row<A: BenchAddress>(ctx: &Ctx<'_, A>, why: String) -> Row {
    let mut r = ctx.row(
        fibforge::registry::DEFAULT,
        "iptable",
        Mode::Single,
        ctx.first_traffic(),
        Status::Error,
    );
    r.note = Some(why);
    r
}
