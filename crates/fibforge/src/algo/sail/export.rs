//! Export and import of SAIL_L's arrays (`docs/reference/export-format.md`, algorithm `sail_l`).
//!
//! Layout in the file: `p[0]` the word size in bytes (2 or 4), `p[1]` the number of chunk
//! levels `L` (IPv4 2, IPv6 6); array 0 `top` (65,536 words), arrays 1..=L the chunk levels
//! (256 words per chunk). The next-hop values are left empty here: `export::export` knows
//! nothing of their text, the caller fills them.
//!
//! Import checks everything the lookup relies on before building: the word size, `L`, every
//! length, every chunk id below its level's chunk count, and no chunk id in the last level.
//! With those, `final_word` reads inside the arrays for every address and stops after at most
//! `L` chunk levels.

use super::entry::Entry;
use super::sail_l::{Core, Tables};
use super::{STRIDE, SailL, TOP, max_len};
use crate::addr::Address;
use crate::export::file::{Algorithm, Array, Element, ExportError, ExportFile, PARAMS};

const ALGO: &str = "sail_l";
/// Array names in errors: `top`, then each chunk level by the prefix length it resolves to.
const NAMES: [&str; 7] = ["top", "level24", "level32", "level40", "level48", "level56", "level64"];
/// Words per chunk.
const CHUNK: usize = 1 << STRIDE;

/// Chunk levels below `top`: 2 for IPv4 (24, 32), 6 for IPv6 (24 ... 64).
fn levels<A: Address>() -> usize {
    ((max_len::<A>() - TOP) / STRIDE) as usize
}

fn invalid(array: &'static str, what: impl Into<String>) -> ExportError {
    ExportError::Invalid { algo: ALGO, array, what: what.into() }
}

impl<A: Address, E: Entry + Element> Core<A, E> {
    fn arrays(&self) -> Vec<Array> {
        std::iter::once(Array::of(&self.top))
            .chain(self.levels.iter().map(|l| Array::of(l)))
            .collect()
    }

    /// The core the arrays hold, each checked before use (element sizes checked by the
    /// caller).
    fn from_arrays(arrays: &[Array]) -> Result<Self, ExportError> {
        let words = |i: usize| {
            arrays[i].values::<E>(NAMES[i]).map_err(|e| invalid(NAMES[i], e.to_string()))
        };
        let top = words(0)?;
        if top.len() != 1 << TOP {
            return Err(invalid("top", format!("{} words (expected {})", top.len(), 1 << TOP)));
        }
        let levels = (1..arrays.len()).map(words).collect::<Result<Vec<_>, _>>()?;
        for (k, level) in levels.iter().enumerate() {
            if level.len() % CHUNK != 0 {
                let what =
                    format!("{} words, not a whole number of {CHUNK}-word chunks", level.len());
                return Err(invalid(NAMES[k + 1], what));
            }
        }
        // Level `k`'s chunk ids name chunks of level `k + 1`; the last level names none.
        let parents = std::iter::once(&top).chain(&levels);
        for (k, words) in parents.enumerate() {
            let chunks = levels.get(k).map_or(0, |l| l.len() / CHUNK);
            if let Some((i, w)) = words
                .iter()
                .enumerate()
                .find(|(_, w)| w.is_chunk() && w.payload() as usize >= chunks)
            {
                let what = match levels.get(k) {
                    Some(_) => format!(
                        "word {i} names chunk {} of {} (which has {chunks})",
                        w.payload(),
                        NAMES[k + 1]
                    ),
                    None => format!("word {i} names chunk {} below the last level", w.payload()),
                };
                return Err(invalid(NAMES[k], what));
            }
        }
        Ok(Core::new(top, levels))
    }
}

impl<A: Address> SailL<A> {
    /// The compiled arrays as an export file (`docs/reference/export-format.md`), next-hop values empty.
    #[doc(hidden)]
    pub fn to_export(&self) -> Result<ExportFile, ExportError> {
        let mut params = [0u64; PARAMS];
        let arrays = match &self.tables {
            Tables::Narrow(t) => {
                params[0] = 2;
                t.arrays()
            }
            Tables::Wide(t) => {
                params[0] = 4;
                t.arrays()
            }
        };
        params[1] = levels::<A>() as u64;
        let family = if A::BITS == 32 { 4 } else { 6 };
        Ok(ExportFile { algorithm: Algorithm::SailL, family, params, arrays, hops: Vec::new() })
    }

    /// The structure an export file holds, every length and index checked first.
    #[doc(hidden)]
    pub fn from_export(file: &ExportFile) -> Result<Self, ExportError> {
        let family = if A::BITS == 32 { 4 } else { 6 };
        if file.algorithm != Algorithm::SailL {
            let what = format!("a {} file", file.algorithm.name());
            return Err(invalid("header", what));
        }
        if file.family != family {
            let what = format!("an IPv{} structure, read as IPv{family}", file.family);
            return Err(invalid("header", what));
        }
        let (word, l) = (file.params[0], file.params[1]);
        if word != 2 && word != 4 {
            return Err(invalid("header", format!("p[0] word size {word} (expected 2 or 4)")));
        }
        if l != levels::<A>() as u64 {
            let what = format!("p[1] = {l} chunk levels (IPv{family} has {})", levels::<A>());
            return Err(invalid("header", what));
        }
        let arrays = &file.arrays;
        if arrays.len() != 1 + levels::<A>() {
            let what = format!("{} arrays (expected {})", arrays.len(), 1 + levels::<A>());
            return Err(invalid("header", what));
        }
        for (i, a) in arrays.iter().enumerate() {
            if u64::from(a.elem_bytes) != word {
                let what = format!("{}-byte elements (p[0] says {word})", a.elem_bytes);
                return Err(invalid(NAMES[i], what));
            }
        }
        let tables = if word == 2 {
            Tables::Narrow(Core::from_arrays(arrays)?)
        } else {
            Tables::Wide(Core::from_arrays(arrays)?)
        };
        Ok(SailL::new(tables))
    }
}

#[cfg(test)]
mod tests;
