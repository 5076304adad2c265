use super::*;

fn base() -> Vec<Update<u32>> {
    let h = NextHop::from_index;
    let p = |s: &str| s.parse::<Prefix<u32>>().unwrap();
    vec![
        (p("10.0.0.0/8"), Some(h(1))),
        (p("10.1.0.0/16"), Some(h(2))),
        (p("10.1.2.0/24"), Some(h(3))),
        (p("10.1.0.0/16"), None),
        (p("192.168.0.0/16"), Some(h(1))),
        (p("10.1.2.0/24"), None),
    ]
}

#[test]
fn the_first_round_is_the_stream_and_later_rounds_perturb_it() {
    let base = base();
    let hops: Vec<_> = (1..=3).map(NextHop::from_index).collect();
    for (i, u) in base.iter().enumerate() {
        assert_eq!(perturbed(&base, &hops, i as u64), *u);
    }
    let later: Vec<_> = (0..6000).map(|i| perturbed(&base, &hops, i)).collect();
    assert!(later.iter().any(|(p, _)| !base.iter().any(|(q, _)| q == p)), "no sibling moves");
    assert!(later.iter().all(|(p, _)| [8, 16, 24].contains(&p.len())));
    assert_eq!(later, (0..6000).map(|i| perturbed(&base, &hops, i)).collect::<Vec<_>>());
}

#[test]
fn a_short_soak_checks_answers_and_finds_no_violation() {
    let mut table = Table::new(Rib::new()).unwrap();
    let progress = Some(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)));
    let s = SoakSettings { updates: 20_000, readers: 2, samples: 4, seed: 7, progress };
    let r = soak(&mut table, base(), &s).unwrap();
    assert_eq!((r.updates, r.violations), (20_000, 0), "{:?}", r.examples);
    assert!(r.checks > 0);
    assert_eq!(r.memory.len(), 6);
    let done = s.progress.as_ref().unwrap().load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(done, 20_000, "the progress counter ends at the updates applied");
    let mut fresh = Rib::new();
    for i in 0..s.updates {
        let hops: Vec<_> = (1..=3).map(NextHop::from_index).collect();
        match perturbed(&base(), &hops, i) {
            (p, Some(h)) => fresh.insert(p, h),
            (p, None) => fresh.remove(&p),
        };
    }
    assert_eq!(table.rib().iter().collect::<Vec<_>>(), fresh.iter().collect::<Vec<_>>());
}
