//! An export file (`fibforge export`) in place of a table: its structure, imported with every
//! index checked, answers the lookups; values come from the file's next-hop text (the raw id
//! when the file has none).

use super::Engines;
use super::engine::Engine;
use anyhow::{Context, bail};
use fibforge::NextHop;
use fibforge::export::{ExportFile, import};
use fibforge::registry::AlgoSpec;
use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

/// True when `path` is a file that starts like an export (anything else is read as a table,
/// which reports its own errors).
pub fn sniff(path: &Path) -> bool {
    let mut head = [0u8; 8];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok() && ExportFile::sniff(&head)
}

/// Reads and checks the export at `path`, as a structure and its next-hop values. `algo`
/// (the `--algo` given, if any) must name the export's algorithm.
pub fn load(path: &Path, algo: Option<&AlgoSpec>) -> anyhow::Result<(Engines, Vec<String>)> {
    let file = read(path)?;
    if let Some(spec) = algo
        && fibforge::registry::export_format(&spec.name) != Some(file.algorithm)
    {
        bail!(
            "--algo {spec}: {} is a {} export; leave --algo out or name {}",
            path.display(),
            file.algorithm.name(),
            file.algorithm.name()
        );
    }
    let name = path.display();
    let engines = if file.family == 4 {
        let fib = import::<u32>(&file).with_context(|| name.to_string())?;
        let v6 = Err(format!("{name} is an IPv4 export"));
        Engines { v4: Ok(Some(Engine::exported(fib))), v6 }
    } else {
        let fib = import::<u128>(&file).with_context(|| name.to_string())?;
        let v4 = Err(format!("{name} is an IPv6 export"));
        Engines { v4, v6: Ok(Some(Engine::exported(fib))) }
    };
    Ok((engines, file.hops))
}

/// Reads and checks an export file's container (the structure is checked on import).
pub fn read(path: &Path) -> anyhow::Result<ExportFile> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    ExportFile::from_bytes(&bytes).with_context(|| path.display().to_string())
}

/// Where answer values come from: the table's next hops, or an export's text values.
pub enum Values<'a> {
    /// The loaded table.
    Table(&'a fibforge_io::LoadedTable),
    /// An export's values, `hops[raw - 1]`; raw ids as text when empty.
    Hops(Vec<String>),
}

impl Values<'_> {
    /// The text of next hop `h`; an error when an export names a hop it has no value for.
    pub fn text(&self, h: NextHop) -> anyhow::Result<Cow<'_, str>> {
        match self {
            Values::Table(t) => Ok(Cow::Borrowed(t.hop_value(h))),
            Values::Hops(hops) if hops.is_empty() => Ok(Cow::Owned(h.raw().to_string())),
            Values::Hops(hops) => match hops.get(h.index() as usize) {
                Some(v) => Ok(Cow::Borrowed(v)),
                None => bail!(
                    "export file: the structure answers next hop {} but the file lists {} values",
                    h.raw(),
                    hops.len()
                ),
            },
        }
    }

    /// True for an export's values.
    pub fn is_export(&self) -> bool {
        matches!(self, Values::Hops(_))
    }
}
