//! Address texts to addresses, in parallel and without the GIL.
//!
//! [`parse`] reads the rows of [`Part`]s (each a run of rows of one layout, see
//! [`Rows`]) on up to `threads` threads. IPv4 rows go to one key per row (0 in IPv6 rows),
//! so an all-IPv4 column is looked up in place; IPv6 rows are listed with their row.
//!
//! Each row is read as std's `IpAddr` parser reads `str::trim`med text, by the library's
//! byte parser ([`fibforge::addr::parse_ip_ascii`]: std's grammar, tested against it, several
//! times faster). The first bad row (lowest row number) is the error, with its text.
//!
//! The one rule for address texts (issue 56), which [`address`] applies to single lookups
//! ([`crate::convert::address`]) and to the rows of every column type alike: whitespace
//! around the text is ignored (Unicode White_Space, as `str::trim`: space, tab, newlines,
//! U+00A0, U+2003, U+3000, ...), and the rest must be exactly an address in std's grammar.
//! Nothing else is removed: a NUL anywhere, a zone id (`%eth0`), a prefix length, brackets
//! or a leading zero make the text no address. A numpy fixed-width row is first the element
//! numpy gives for it, without its trailing NUL padding ([`crate::rows`]).

use crate::rows::Rows;
use fibforge::addr::parse_ip_ascii;
use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Rows `base..base + len` of a column, laid out as `rows` (rows `0..len` there).
pub struct Part<'a> {
    /// The first row's number in the column.
    pub base: usize,
    /// Number of rows.
    pub len: usize,
    /// Where the texts lie.
    pub rows: Rows<'a>,
    /// Arrow validity: null rows are no address and answer "no route".
    pub nulls: Option<&'a arrow_buffer::NullBuffer>,
    /// The rows are addresses in network byte order (4 or 16 bytes), not texts.
    pub packed: bool,
}

/// A parsed column.
#[derive(Default)]
pub struct Parsed {
    /// One IPv4 key per row (0 in IPv6 rows).
    pub v4: Vec<u32>,
    /// The IPv4 rows' count and first row.
    pub v4_rows: (usize, Option<usize>),
    /// The IPv6 rows, ascending, with their addresses.
    pub v6: Vec<(usize, u128)>,
    /// The null rows (Arrow nulls, None, NaN, NA), ascending: no address, no route.
    pub nulls: Vec<usize>,
}

/// The least rows a thread is given (fewer are parsed on the calling thread).
const MIN_PER_THREAD: usize = 4096;

/// Parses the `n` rows of `parts` (which cover `0..n` in order) on up to `threads` threads.
pub fn parse(parts: &[Part<'_>], n: usize, threads: usize) -> Result<Parsed, String> {
    let mut v4 = vec![0u32; n];
    let per = n.div_ceil(threads.max(1)).max(MIN_PER_THREAD);
    // Tasks of at most `per` rows, each with its own part of `v4`.
    let mut tasks = Vec::new();
    let mut rest = v4.as_mut_slice();
    for part in parts {
        let mut start = 0;
        while start < part.len {
            let len = per.min(part.len - start);
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(len);
            rest = tail;
            tasks.push(Mutex::new(Some((part, start, mine))));
            start += len;
        }
    }
    let run = |i: usize| {
        let (part, start, keys) = tasks[i].lock().expect("task").take().expect("task taken once");
        parse_task(part, start, keys)
    };
    let workers = threads.clamp(1, tasks.len().max(1));
    let results: Vec<Result<Found, String>> = if workers == 1 {
        (0..tasks.len()).map(run).collect()
    } else {
        let next = AtomicUsize::new(0);
        let done: Vec<Mutex<Option<Result<Found, String>>>> =
            tasks.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= tasks.len() {
                            break;
                        }
                        *done[i].lock().expect("result") = Some(run(i));
                    }
                });
            }
        });
        done.into_iter().map(|d| d.into_inner().expect("result").expect("every task ran")).collect()
    };
    let mut parsed = Parsed::default();
    for found in results {
        let found = found?;
        parsed.v4_rows.0 += found.v4_count;
        parsed.v4_rows.1 = parsed.v4_rows.1.or(found.v4_first);
        parsed.v6.extend(found.v6);
        parsed.nulls.extend(found.nulls);
    }
    parsed.v4 = v4;
    Ok(parsed)
}

/// What one task found besides the IPv4 keys.
struct Found {
    v4_count: usize,
    v4_first: Option<usize>,
    v6: Vec<(usize, u128)>,
    nulls: Vec<usize>,
}

/// Parses rows `start..start + keys.len()` of `part` into `keys` (IPv4) and the IPv6 list.
fn parse_task(part: &Part<'_>, start: usize, keys: &mut [u32]) -> Result<Found, String> {
    let mut found = Found { v4_count: 0, v4_first: None, v6: Vec::new(), nulls: Vec::new() };
    let mut scratch = Vec::new();
    part.rows.each(start, keys.len(), &mut scratch, |i, text| {
        let row = part.base + start + i;
        if part.nulls.is_some_and(|n| n.is_null(start + i)) {
            found.nulls.push(row);
            return Ok(());
        }
        let Some(text) = text else {
            return Err(format!("row {row}: its Arrow offsets point outside the data buffer"));
        };
        let parsed = if part.packed { packed(text) } else { address(text) };
        match parsed {
            Some(IpAddr::V4(a)) => {
                keys[i] = u32::from(a);
                found.v4_count += 1;
                found.v4_first.get_or_insert(row);
            }
            Some(IpAddr::V6(a)) => found.v6.push((row, u128::from(a))),
            None if part.packed => {
                return Err(format!(
                    "row {row}: {} bytes are not an IPv4 (4 bytes) or IPv6 (16 bytes) address",
                    text.len()
                ));
            }
            None => {
                return Err(format!(
                    "row {row}: {:?} is not an IPv4 or IPv6 address",
                    String::from_utf8_lossy(text)
                ));
            }
        }
        Ok(())
    })?;
    Ok(found)
}

/// The address of 4 or 16 bytes in network byte order.
fn packed(bytes: &[u8]) -> Option<IpAddr> {
    match bytes.len() {
        4 => Some(IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?)),
        16 => Some(IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?)),
        _ => None,
    }
}

/// One text's address, as `std::str::from_utf8(text)?.trim().parse::<IpAddr>()` reads it
/// (the rule in the module docs).
pub fn address(text: &[u8]) -> Option<IpAddr> {
    if let Some(a) = parse_ip_ascii(text.trim_ascii()) {
        return Some(a);
    }
    // Unicode whitespace around the address, which `str::trim` also removes.
    parse_ip_ascii(std::str::from_utf8(text).ok()?.trim().as_bytes())
}
