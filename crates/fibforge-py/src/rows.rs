//! A text column's rows as plain borrowed slices ([`Rows`]), walked row by row without the
//! GIL. Its own file, below both the readers that make rows ([`crate::texts`],
//! [`crate::arrow`]) and the parser that walks them ([`crate::parse_ip`]), so that none of
//! them imports another in a loop.

/// Rows between two remembered positions of a joined column.
pub(crate) const MARK: usize = 1024;

/// A column's rows as borrowed slices (no Python objects: usable without the GIL).
#[derive(Clone, Copy)]
pub enum Rows<'a> {
    /// Rows joined by newlines: row `k * MARK` starts at `marks[k]`.
    Lines { bytes: &'a [u8], marks: &'a [usize] },
    /// Rows copied one by one: row `i` ends at `ends[i]`.
    Packed { bytes: &'a [u8], ends: &'a [usize] },
    /// Rows of `width` bytes, NUL-padded; 4-byte native-order characters when `ucs4`.
    Fixed { data: &'a [u8], width: usize, ucs4: bool },
    /// Arrow `string`: row `i` is `data[offsets[i]..offsets[i + 1]]`.
    Arrow32 { offsets: &'a [i32], data: &'a [u8] },
    /// Arrow `large_string`.
    Arrow64 { offsets: &'a [i64], data: &'a [u8] },
    /// One slice per row (texts borrowed from Python str objects: [`crate::in_place`]).
    Slices(&'a [&'a [u8]]),
}

impl Rows<'_> {
    /// Calls `f(i, text)` for rows `start + i`, `i` in `0..len`, in order; `text` is None
    /// where Arrow offsets point outside the data. `scratch` holds UCS-4 rows as bytes.
    pub fn each(
        &self,
        start: usize,
        len: usize,
        scratch: &mut Vec<u8>,
        mut f: impl FnMut(usize, Option<&[u8]>) -> Result<(), String>,
    ) -> Result<(), String> {
        match *self {
            Rows::Lines { bytes, marks } => {
                let mut pos = marks[start / MARK];
                for _ in 0..start % MARK {
                    pos = line_end(bytes, pos) + 1;
                }
                for i in 0..len {
                    let end = line_end(bytes, pos);
                    f(i, Some(&bytes[pos..end]))?;
                    pos = end + 1;
                }
            }
            Rows::Packed { bytes, ends } => {
                for i in 0..len {
                    let row = start + i;
                    let first = if row == 0 { 0 } else { ends[row - 1] };
                    f(i, Some(&bytes[first..ends[row]]))?;
                }
            }
            Rows::Fixed { data, width, ucs4 } => {
                for i in 0..len {
                    // `fixed` made the view C-contiguous, so every row is in `data`.
                    let row = data.get((start + i) * width..(start + i + 1) * width);
                    let row = row.unwrap_or_default();
                    if ucs4 {
                        scratch.clear();
                        // Non-ASCII characters cannot be in an address: 0xFF makes the parser
                        // refuse them.
                        scratch.extend(
                            row.chunks_exact(4)
                                .map(|c| u32::from_ne_bytes(c.try_into().expect("4 bytes")))
                                .take_while(|&c| c != 0)
                                .map(|c| u8::try_from(c).unwrap_or(0xFF)),
                        );
                        f(i, Some(scratch))?;
                    } else {
                        let end = memchr::memchr(0, row).unwrap_or(width);
                        f(i, Some(&row[..end]))?;
                    }
                }
            }
            Rows::Arrow32 { offsets, data } => {
                for i in 0..len {
                    f(i, arrow_row(data, offsets[start + i], offsets[start + i + 1]))?;
                }
            }
            Rows::Arrow64 { offsets, data } => {
                for i in 0..len {
                    f(i, arrow_row(data, offsets[start + i], offsets[start + i + 1]))?;
                }
            }
            Rows::Slices(texts) => {
                for (i, &text) in texts[start..start + len].iter().enumerate() {
                    f(i, Some(text))?;
                }
            }
        }
        Ok(())
    }
}

/// The end of the line starting at `pos` (a newline, or the end of `bytes`).
fn line_end(bytes: &[u8], pos: usize) -> usize {
    memchr::memchr(b'\n', &bytes[pos.min(bytes.len())..]).map_or(bytes.len(), |k| pos + k)
}

fn arrow_row<O: TryInto<usize>>(data: &[u8], start: O, end: O) -> Option<&[u8]> {
    data.get(start.try_into().ok()?..end.try_into().ok()?)
}
