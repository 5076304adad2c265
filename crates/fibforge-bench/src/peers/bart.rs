//! The Go `gaissmai/bart` peer (out of process): not wired yet.

use crate::family::BenchAddress;
use crate::report::{Row, Status};
use crate::runner::Log;
use crate::runner::measure::Ctx;
use crate::timing::Mode;

/// Rows of the bart peer for this table and family.
pub fn run<A: BenchAddress>(ctx: &Ctx<'_, A>, log: Log<'_>) -> Vec<Row> {
    log("  peer bart: not available: not yet wired");
    let mut r = ctx.row("bart", "bart", Mode::Single, ctx.first_traffic(), Status::NotAvailable);
    r.note = Some("not yet wired".into());
    vec![r]
}

/// Not wired yet.
pub fn availability() -> Result<String, String> {
    Err("not yet wired".into())
}
