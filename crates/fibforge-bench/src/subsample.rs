//! Random subsamples of a table (Bloomfwd Fig. 5: one table cut to 1/2 … 1/16 of its routes,
//! so that table size varies while the route mix stays the same).
//!
//! `FILE#subK` keeps each route with probability 1/K (seeded, so a run is repeatable); the
//! default route is always kept so that every table answers every address.

use crate::rng::XorShift64;
use fibforge::{Address, Rib};

/// Parses the `K` of a `subK` suffix (2 to 1024).
pub fn parse(suffix: &str) -> Result<u32, String> {
    let k = suffix
        .strip_prefix("sub")
        .and_then(|k| k.parse::<u32>().ok())
        .ok_or_else(|| format!("'{suffix}': expected subK with K a whole number"))?;
    if !(2..=1024).contains(&k) {
        return Err(format!("'{suffix}': K must be 2 to 1024"));
    }
    Ok(k)
}

/// The routes of `rib` kept with probability `1/k` (the default route always).
pub fn subsample<A: Address>(rib: &Rib<A>, k: u32, seed: u64) -> Rib<A> {
    let mut rng = XorShift64::new(seed ^ u64::from(k));
    let mut out = Rib::new();
    for (p, h) in rib.iter() {
        if p.len() == 0 || rng.below(u64::from(k)) == 0 {
            out.insert(p, h);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{NextHop, Prefix};

    #[test]
    fn keeps_about_one_in_k_and_the_default_route() {
        let mut rib = Rib::<u32>::new();
        rib.insert("0.0.0.0/0".parse::<Prefix<u32>>().unwrap(), NextHop::from_index(0));
        for i in 0..8000u32 {
            rib.insert(Prefix::new(i << 8, 24).unwrap(), NextHop::from_index(i % 5));
        }
        let sub = subsample(&rib, 4, 1);
        assert!((1700..2300).contains(&sub.len()), "{}", sub.len());
        assert!(sub.get(&"0.0.0.0/0".parse().unwrap()).is_some());
        assert!(sub.iter().all(|(p, h)| rib.get(&p) == Some(h)));
        assert_eq!(parse("sub8"), Ok(8));
        assert!(parse("sub1").is_err() && parse("subx").is_err() && parse("syn1").is_err());
    }
}
