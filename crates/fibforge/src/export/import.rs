//! From a RIB to an export, and from an export to a structure that answers lookups.

use super::{Algorithm, ExportError, ExportFile, ROUTES_PARAM};
use crate::algo::bloom;
use crate::algo::bloom::{BloomFib, BloomKey};
use crate::algo::poptrie::{self, Key, Poptrie};
use crate::algo::sail;
use crate::algo::sail::SailL;
use crate::fib::{Compile, Lookup};
use crate::registry;
use crate::rib::Rib;
use crate::spec::AlgoSpec;

/// Address families an export can hold: both, through the traits of the three structures.
#[doc(hidden)]
pub trait ExportKey: Key + BloomKey {}
impl<A: Key + BloomKey> ExportKey for A {}

/// Compiles `rib` as `spec` names (a registry row with an export format: `sail_l`,
/// `poptrie*` or `bloomfwd`, with options) and returns its export.
pub fn export<A: ExportKey>(spec: &AlgoSpec, rib: &Rib<A>) -> Result<ExportFile, ExportError> {
    let unsupported = || {
        let reason = format!("`{}` has no export ({} do)", spec.name, registry::exporters());
        ExportError::Unsupported(reason)
    };
    let algo = registry::export_format(&spec.name).ok_or_else(unsupported)?;
    let build = |e: crate::BuildError| ExportError::Unsupported(e.to_string());
    let (_, spec) = registry::resolve(spec).map_err(build)?;
    let mut file = match algo {
        Algorithm::SailL => {
            let cfg = sail::Config::from_spec(&spec).map_err(build)?;
            SailL::compile(rib, &cfg).map_err(build)?.to_export()?
        }
        Algorithm::Poptrie => {
            let cfg = poptrie::Config::from_spec::<A>(&spec).map_err(build)?;
            Poptrie::compile(rib, &cfg).map_err(build)?.to_export()?
        }
        Algorithm::Bloomfwd => {
            let cfg = bloom::Config::from_spec(&spec).map_err(build)?;
            BloomFib::compile(rib, &cfg).map_err(build)?.to_export()?
        }
    };
    file.params[ROUTES_PARAM] = rib.len() as u64;
    Ok(file)
}

/// The structure an export holds, checked index by index, ready for lookups in family `A`.
pub fn import<A: ExportKey>(file: &ExportFile) -> Result<Box<dyn Lookup<A>>, ExportError> {
    let family = if A::BITS == 32 { 4 } else { 6 };
    if file.family != family {
        let what = format!("an IPv{} structure, read as IPv{family}", file.family);
        return Err(super::malformed(what, "header"));
    }
    Ok(match file.algorithm {
        Algorithm::SailL => Box::new(SailL::<A>::from_export(file)?),
        Algorithm::Poptrie => Box::new(Poptrie::<A>::from_export(file)?),
        Algorithm::Bloomfwd => Box::new(BloomFib::<A>::from_export(file)?),
    })
}
