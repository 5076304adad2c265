//! Many tables by name: [`PerTable`] over any registered structure.

use super::{AlgoSpec, RegistryFamily, build};
use crate::fib::BuildError;
use crate::multi::PerTable;
use crate::rib::Rib;

impl<A: RegistryFamily> PerTable<A> {
    /// Builds `spec` for every table.
    pub fn build(ribs: &[Rib<A>], spec: &AlgoSpec) -> Result<Self, BuildError> {
        let tables = ribs.iter().map(|r| build(spec, r)).collect::<Result<_, _>>()?;
        Ok(PerTable::from_lookups(tables))
    }
}
