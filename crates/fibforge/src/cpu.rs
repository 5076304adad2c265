//! One CPU dispatch for every structure with SIMD kernels (Poptrie, Bloomfwd, the B+-tree):
//! the instruction-set levels, detected once per process, and the one override.
//!
//! A structure picks an [`Isa`] when it is built — the `isa=` option when given (an error
//! when this CPU lacks it), otherwise [`Isa::detect`] — and keeps it; its lookups then run
//! that level's kernels. Each structure keeps its own kernels; only the choice lives here,
//! as DPDK's `rte_fib_select_lookup` does it.
//!
//! The levels are cumulative subsets of the x86-64 micro-architecture levels, holding every
//! feature some kernel enables with `#[target_feature]`, so that a kernel entered under a
//! level never meets an unsupported instruction:
//! - [`Isa::Avx2`]: AVX2, POPCNT, BMI1 and BMI2 (x86-64-v3 CPUs have them all);
//! - [`Isa::Avx512`]: the above plus AVX-512F and AVX-512DQ (x86-64-v4).
//!
//! `FIBFORGE_ISA=portable|avx2|avx512` caps [`Isa::detect`] at that level (a bench or a user
//! forcing a path); a level above what the CPU has, or an unknown value, leaves the
//! detection as it is (the latter with one warning on stderr).

use crate::fib::BuildError;
use std::io::Write;
use std::sync::OnceLock;

/// An instruction-set level, ordered from the narrowest to the widest.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// No SIMD (any CPU).
    Portable,
    /// x86-64 with AVX2, POPCNT, BMI1 and BMI2.
    Avx2,
    /// x86-64 with the above plus AVX-512F and AVX-512DQ.
    Avx512,
}

/// The environment variable that caps [`Isa::detect`].
pub const ENV: &str = "FIBFORGE_ISA";

impl Isa {
    /// Every level, narrowest first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// The level structures use unless told otherwise: the widest this CPU has, capped by
    /// `FIBFORGE_ISA` (read once per process).
    pub fn detect() -> Isa {
        static CHOSEN: OnceLock<Isa> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let env = std::env::var(ENV).ok();
            let (isa, warning) = Isa::capped(Isa::best(), env.as_deref());
            if let Some(w) = warning {
                // Not `eprintln!`: a closed standard error must not panic the embedding program.
                let _ = writeln!(std::io::stderr(), "fibforge: {w}");
            }
            isa
        })
    }

    /// The widest level this CPU has (detected once per process).
    pub fn best() -> Isa {
        static BEST: OnceLock<Isa> = OnceLock::new();
        *BEST.get_or_init(probe)
    }

    /// True when this CPU can run `self`'s kernels.
    pub fn available(self) -> bool {
        self <= Isa::best()
    }

    /// The CPU's `best` level capped by an override `env` (`FIBFORGE_ISA`'s value), and a
    /// warning when the value names no level.
    pub fn capped(best: Isa, env: Option<&str>) -> (Isa, Option<String>) {
        match env.map(str::trim) {
            None | Some("") | Some("auto") => (best, None),
            Some(v) => match Isa::parse(v) {
                Some(cap) => (cap.min(best), None),
                None => {
                    (best, Some(format!("{ENV}={v:?} ignored: expected portable, avx2 or avx512")))
                }
            },
        }
    }

    /// The level an option value names (`portable`, `avx2`, `avx512`).
    pub fn parse(name: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|i| i.name() == name)
    }

    /// The name used in options, `FIBFORGE_ISA` and reports.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The `isa=` option of `algo`'s `spec`: `None` for absent or `auto`, an error for an
    /// unknown name or a level this CPU lacks.
    pub fn from_option(
        algo: &'static str,
        spec: &crate::spec::AlgoSpec,
    ) -> Result<Option<Isa>, BuildError> {
        let requested = match spec.options.get("isa").map(String::as_str) {
            None | Some("auto") => None,
            Some(v) => Some(Isa::parse(v).ok_or_else(|| {
                crate::spec::bad(algo, "isa", v, "expected auto, portable, avx2 or avx512")
            })?),
        };
        Isa::resolve(algo, requested)?;
        Ok(requested)
    }

    /// The level a structure of `algo` runs with: `requested`, or [`Isa::detect`] for
    /// `None`; an error when this CPU lacks the requested level.
    pub fn resolve(algo: &'static str, requested: Option<Isa>) -> Result<Isa, BuildError> {
        match requested {
            None => Ok(Isa::detect()),
            Some(i) if i.available() => Ok(i),
            Some(i) => Err(BuildError::BadOption {
                algo,
                option: format!("isa={}", i.name()),
                reason: "this CPU does not have it".into(),
            }),
        }
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Asks the CPU which levels it has.
fn probe() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let v3 = has!("avx2") && has!("popcnt") && has!("bmi1") && has!("bmi2");
        if v3 && has!("avx512f") && has!("avx512dq") {
            return Isa::Avx512;
        }
        if v3 {
            return Isa::Avx2;
        }
    }
    Isa::Portable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn override_caps_never_raises() {
        for best in Isa::ALL {
            assert_eq!(Isa::capped(best, None), (best, None));
            assert_eq!(Isa::capped(best, Some("auto")), (best, None));
            for cap in Isa::ALL {
                assert_eq!(Isa::capped(best, Some(cap.name())).0, cap.min(best));
            }
            let (isa, warning) = Isa::capped(best, Some("sse9"));
            assert_eq!(isa, best);
            assert!(warning.unwrap().contains("sse9"));
        }
    }

    #[test]
    fn names_round_trip_and_detection_is_available() {
        for isa in Isa::ALL {
            assert_eq!(Isa::parse(isa.name()), Some(isa));
        }
        assert_eq!(Isa::parse("AVX2"), None);
        assert!(Isa::detect().available() && Isa::Portable.available());
        assert!(Isa::detect() <= Isa::best());
    }

    #[test]
    fn resolve_refuses_what_the_cpu_lacks() {
        for isa in Isa::ALL {
            assert_eq!(Isa::resolve("x", Some(isa)).is_ok(), isa.available());
        }
        assert_eq!(Isa::resolve("x", None).unwrap(), Isa::detect());
    }
}
