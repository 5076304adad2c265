//! Export and import of the compiled arrays (`docs/export-format.md`, algorithm `sail_l`).

use super::*;
use crate::export::{ExportError, ExportFile};

impl<A: crate::addr::Address> SailL<A> {
    /// The compiled arrays as an export file.
    pub fn to_export(&self) -> Result<ExportFile, ExportError> {
        Err(ExportError::Unsupported("sail_l export is not written yet".into()))
    }

    /// The structure an export file holds, every length and index checked first.
    pub fn from_export(_file: &ExportFile) -> Result<Self, ExportError> {
        Err(ExportError::Unsupported("sail_l import is not written yet".into()))
    }
}
