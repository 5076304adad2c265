//! [`IpReader`]s on other threads while the table's owner inserts, replaces and removes routes
//! of both families: every answer must be one the table could have given (the value names
//! its network's label, the network contains the address, the value is intact, and the
//! default routes mean there always is an answer), and every value the table retired is
//! dropped exactly once, after the readers let it go.
//!
//! Values are shared by several networks (all networks of one label and generation carry the
//! same value, across both families), so a value is retired only when the last of them goes,
//! and it waits for both families' grace periods. The readers vary their use: bursts with
//! reports between, pinned bursts, batches, a long silent burst, going offline, and a clone
//! registered mid-run by a reader thread.

use fibforge::verify::rng::XorShift64 as Rng;
use fibforge::{IpReader, IpTable};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;

/// Labels a network's value can carry (several networks share each).
const LABELS: u32 = 64;
/// Generations of a label's value: replacing a route changes its generation.
const GENERATIONS: u32 = 4;

/// Every value made and dropped, by serial number.
#[derive(Default)]
struct Ledger {
    made: AtomicU64,
    dropped: Mutex<HashSet<u64>>,
}

/// A value: a label and a generation (what equality and hashing see), its own serial, and a
/// heap copy of the label and generation that a use after free would likely garble.
struct Hop {
    label: u32,
    generation: u32,
    tag: Box<[u32; 2]>,
    serial: u64,
    ledger: Arc<Ledger>,
}

impl Hop {
    fn new(label: u32, generation: u32, ledger: &Arc<Ledger>) -> Hop {
        let serial = ledger.made.fetch_add(1, Ordering::Relaxed);
        Hop {
            label,
            generation,
            tag: Box::new([label, generation]),
            serial,
            ledger: ledger.clone(),
        }
    }
}

impl Clone for Hop {
    fn clone(&self) -> Hop {
        Hop::new(self.label, self.generation, &self.ledger)
    }
}

impl PartialEq for Hop {
    fn eq(&self, other: &Hop) -> bool {
        (self.label, self.generation) == (other.label, other.generation)
    }
}

impl Eq for Hop {}

impl Hash for Hop {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.label, self.generation).hash(h);
    }
}

impl Drop for Hop {
    fn drop(&mut self) {
        let fresh = self.ledger.dropped.lock().unwrap().insert(self.serial);
        assert!(fresh, "value {} dropped twice", self.serial);
    }
}

/// The label of a network's value: from its address bits and length, the same rule in both
/// families (so IPv4 and IPv6 networks share values).
fn label(net: IpNet) -> u32 {
    let top = match net {
        IpNet::V4(n) => u32::from(n.network()) >> 24,
        IpNet::V6(n) => (u128::from(n.network()) >> 120) as u32,
    };
    (top + u32::from(net.prefix_len())) % LABELS
}

/// A random network in a small space (networks nest and repeat); `/0` only as the default
/// routes, inserted first and replaced but never removed.
fn random_net(rng: &mut Rng) -> IpNet {
    if rng.below(2) == 0 {
        let addr = Ipv4Addr::from((rng.below(8) as u32) << 29 | (rng.below(2) as u32) << 20);
        IpNet::V4(Ipv4Net::new(addr, 1 + rng.below(32) as u8).unwrap().trunc())
    } else {
        let addr = Ipv6Addr::from((rng.below(8) as u128) << 125 | (rng.below(2) as u128) << 100);
        IpNet::V6(Ipv6Net::new(addr, 4 + 4 * rng.below(32) as u8).unwrap().trunc())
    }
}

fn random_v4(rng: &mut Rng) -> Ipv4Addr {
    Ipv4Addr::from(
        (rng.below(16) as u32) << 28 | (rng.below(8) as u32) << 20 | rng.below(16) as u32,
    )
}

fn random_v6(rng: &mut Rng) -> Ipv6Addr {
    Ipv6Addr::from(
        (rng.below(16) as u128) << 124 | (rng.below(8) as u128) << 100 | rng.below(16) as u128,
    )
}

/// Checks one answer for `addr`: there is one (the default routes), its network contains the
/// address, and its value is intact and names the network's label.
fn check(addr: IpAddr, answer: Option<(IpNet, &Hop)>) {
    let (net, hop) =
        answer.unwrap_or_else(|| panic!("no answer for {addr}: a default route is always there"));
    assert!(net.contains(&addr), "{net} does not contain {addr}");
    assert_eq!(hop.label, label(net), "{addr}: {net} answered with another network's value");
    assert!(hop.generation < GENERATIONS, "{addr}: a garbled value");
    assert_eq!(*hop.tag, [hop.label, hop.generation], "{addr}: a value freed or overwritten");
}

/// What the writer shares with the readers.
struct Run {
    /// Set when the writer is done.
    stop: AtomicBool,
    /// The writer's changes so far.
    steps: AtomicU64,
    ledger: Arc<Ledger>,
}

/// What one reader thread does, by its number.
fn read(mut reader: IpReader<Hop>, me: u64, run: &Run) -> (IpReader<Hop>, u64) {
    let mut rng = Rng::new(1000 + me);
    let mut bursts = 0u64;
    let mut clone: Option<IpReader<Hop>> = None;
    while !run.stop.load(Ordering::Relaxed) || bursts < 20 {
        bursts += 1;
        match (me + bursts) % 4 {
            // Online, a burst of single lookups, a report.
            0 | 1 => {
                reader.online();
                for _ in 0..32 {
                    let (a4, a6) = (random_v4(&mut rng), random_v6(&mut rng));
                    check(a4.into(), reader.lookup(a4));
                    let (net, hop) = reader.lookup_v6(a6).expect("a default route");
                    check(a6.into(), Some((IpNet::V6(net), hop)));
                    let value = reader.lookup_value(a4).expect("a default route");
                    assert_eq!(*value.tag, [value.label, value.generation]);
                }
                reader.quiescent();
            }
            // A pinned burst of batches.
            2 => {
                let pinned = reader.pin();
                let a4: Vec<Ipv4Addr> = (0..40).map(|_| random_v4(&mut rng)).collect();
                let a6: Vec<Ipv6Addr> = (0..40).map(|_| random_v6(&mut rng)).collect();
                let (mut o4, mut o6) = (vec![None; 40], vec![None; 40]);
                pinned.lookup_batch_v4(&a4, &mut o4);
                pinned.lookup_batch_v6(&a6, &mut o6);
                for (a, o) in a4.iter().zip(&o4) {
                    check((*a).into(), o.map(|(n, v)| (IpNet::V4(n), v)));
                }
                for (a, o) in a6.iter().zip(&o6) {
                    check((*a).into(), o.map(|(n, v)| (IpNet::V6(n), v)));
                }
            }
            // Reader 0: a long burst holding one answer while the writer makes 20 changes
            // (it must keep the value, whatever they remove), then offline for a while. The
            // others: offline and a pause.
            _ => {
                reader.online();
                if me == 0 {
                    let a = random_v4(&mut rng);
                    let held = reader.lookup(a);
                    let until = run.steps.load(Ordering::Relaxed) + 20;
                    while run.steps.load(Ordering::Relaxed) < until
                        && !run.stop.load(Ordering::Relaxed)
                    {
                        let b = random_v6(&mut rng);
                        check(b.into(), reader.lookup(b));
                    }
                    check(a.into(), held);
                    let serial = held.expect("a default route").1.serial;
                    assert!(
                        !run.ledger.dropped.lock().unwrap().contains(&serial),
                        "a held value was dropped"
                    );
                }
                reader.offline();
                thread::yield_now();
            }
        }
        // Reader 1 registers a clone mid-run, uses it for a while, then drops it.
        if me == 1 {
            match (bursts % 50, &mut clone) {
                (10, None) => clone = Some(reader.clone()),
                (40, Some(_)) => clone = None,
                (_, Some(c)) => {
                    c.online();
                    let a = random_v4(&mut rng);
                    check(a.into(), c.lookup(a));
                    c.quiescent();
                }
                _ => {}
            }
        }
    }
    reader.offline();
    (reader, bursts)
}

#[test]
fn readers_on_other_threads_see_consistent_answers_and_every_value_is_dropped_once() {
    for structure in ["poptrie", "bplus"] {
        let ledger = Arc::new(Ledger::default());
        let mut table: IpTable<Hop> = IpTable::with_structure(structure).unwrap();
        let mut model = BTreeMap::new();
        for default in ["0.0.0.0/0", "::/0"] {
            let net: IpNet = default.parse().unwrap();
            table.insert(net, Hop::new(label(net), 0, &ledger));
            model.insert(net, 0);
        }
        let run = Arc::new(Run {
            stop: AtomicBool::new(false),
            steps: AtomicU64::new(0),
            ledger: ledger.clone(),
        });
        let readers: Vec<_> = (0..3)
            .map(|me| {
                let (reader, run) = (table.reader(), run.clone());
                thread::spawn(move || read(reader, me, &run))
            })
            .collect();

        let mut rng = Rng::new(54);
        for step in 0..5000 {
            let net = random_net(&mut rng);
            if rng.below(2) == 0 {
                let removed = table.remove(net);
                let want = model.remove(&net);
                assert_eq!(
                    removed.map(|h| h.generation),
                    want,
                    "{structure} step {step}: remove {net}"
                );
            } else {
                let generation = rng.below(GENERATIONS as u64) as u32;
                let old = table.insert(net, Hop::new(label(net), generation, &ledger));
                let want = model.insert(net, generation);
                assert_eq!(old.map(|h| h.generation), want, "{structure} step {step}: {net}");
            }
            run.steps.store(step + 1, Ordering::Relaxed);
            if step % 16 == 0 {
                thread::yield_now();
            }
        }
        run.stop.store(true, Ordering::Relaxed);
        let readers: Vec<IpReader<Hop>> = readers
            .into_iter()
            .map(|r| {
                let (reader, bursts) = r.join().expect("a reader's answers were all consistent");
                assert!(bursts >= 20);
                reader
            })
            .collect();

        // The readers are offline (still registered): a few more changes free every value
        // the table retired, and the values left are exactly those the routes carry.
        for i in 0..4u32 {
            let net = IpNet::V4(Ipv4Net::new(Ipv4Addr::new(192, 0, 2, 0), 24 + i as u8).unwrap());
            table.insert(net, Hop::new(label(net), 0, &ledger));
            table.remove(net);
        }
        table.remove("192.0.2.0/24".parse::<IpNet>().unwrap()); // absent: only reclaims
        assert_eq!(table.retired_values(), 0, "{structure}: offline readers hold nothing");
        assert_eq!(table.len(), model.len());
        let carried: HashSet<(u32, u32)> =
            table.iter().map(|(_, h)| (h.label, h.generation)).collect();
        let made = ledger.made.load(Ordering::Relaxed);
        let dropped = ledger.dropped.lock().unwrap().len() as u64;
        assert_eq!(
            made - dropped,
            carried.len() as u64,
            "{structure}: only the carried values live"
        );
        for (net, generation) in &model {
            assert_eq!(
                table.get(net).map(|h| h.generation),
                Some(*generation),
                "{structure}: {net}"
            );
        }
        drop(table);
        assert_eq!(
            ledger.dropped.lock().unwrap().len() as u64,
            made - carried.len() as u64,
            "{structure}: readers keep the slots, and with them the values"
        );
        drop(readers);
        assert_eq!(
            ledger.dropped.lock().unwrap().len() as u64,
            made,
            "{structure}: every value dropped once"
        );
    }
}

#[test]
fn a_silent_online_reader_delays_freeing_and_its_report_releases() {
    let ledger = Arc::new(Ledger::default());
    let mut table: IpTable<Hop> = IpTable::new();
    let mut reader = table.reader();
    let net: IpNet = "10.0.0.0/8".parse().unwrap();
    table.insert(net, Hop::new(1, 0, &ledger));
    let worker = thread::spawn(move || {
        reader.online();
        let a: IpAddr = "10.1.2.3".parse().unwrap();
        assert_eq!(reader.lookup(a).map(|(_, h)| *h.tag), Some([1, 0]));
        reader
    });
    let mut reader = worker.join().unwrap(); // online and silent
    for generation in 1..3 {
        table.insert(net, Hop::new(1, generation, &ledger));
    }
    assert_eq!(table.retired_values(), 2, "kept while the reader is silent");
    let dropped = ledger.dropped.lock().unwrap().len();
    assert_eq!(dropped, 2, "only the clones insert handed back");
    reader.quiescent();
    table.remove(net);
    assert_eq!(table.retired_values(), 1, "the two freed, the last one retired");
    assert_eq!(ledger.dropped.lock().unwrap().len(), 5);
    drop(reader);
    table.insert(net, Hop::new(1, 0, &ledger));
    assert_eq!(table.retired_values(), 0, "no reader left");
    drop(table);
    assert_eq!(ledger.dropped.lock().unwrap().len() as u64, ledger.made.load(Ordering::Relaxed));
}

#[test]
fn an_answer_held_on_another_thread_outlives_the_removal_of_its_route() {
    let ledger = Arc::new(Ledger::default());
    let mut table: IpTable<Hop> = IpTable::new();
    let net: IpNet = "10.0.0.0/8".parse().unwrap();
    table.insert(net, Hop::new(7, 0, &ledger));
    let mut reader = table.reader();
    let (to_writer, from_reader) = mpsc::channel();
    let (to_reader, from_writer) = mpsc::channel::<()>();
    let seen = ledger.clone();
    let worker = thread::spawn(move || {
        reader.online();
        let (_, held) = reader.lookup("10.1.2.3".parse::<IpAddr>().unwrap()).unwrap();
        to_writer.send(held.serial).unwrap();
        from_writer.recv().unwrap(); // the route is gone, and new values were stored since
        assert_eq!(*held.tag, [7, 0], "the held value is intact");
        assert!(!seen.dropped.lock().unwrap().contains(&held.serial), "and not dropped");
        reader.quiescent();
        to_writer.send(0).unwrap();
        from_writer.recv().unwrap();
        reader
    });
    let serial = from_reader.recv().unwrap();
    assert_eq!(table.remove(net).map(|h| h.label), Some(7));
    for i in 0..10u8 {
        let other = IpNet::V4(Ipv4Net::new(Ipv4Addr::new(192, 0, 2, 0), 24 + i % 8).unwrap());
        table.insert(other, Hop::new(8 + u32::from(i), 0, &ledger));
        table.remove(other);
    }
    assert!(table.retired_values() >= 1);
    assert!(!ledger.dropped.lock().unwrap().contains(&serial), "kept for the reader");
    to_reader.send(()).unwrap();
    from_reader.recv().unwrap(); // the reader has reported
    table.remove(net); // absent: only reclaims
    assert!(ledger.dropped.lock().unwrap().contains(&serial), "freed after the report");
    to_reader.send(()).unwrap();
    let reader = worker.join().unwrap();
    drop((table, reader));
    assert_eq!(ledger.dropped.lock().unwrap().len() as u64, ledger.made.load(Ordering::Relaxed));
}
