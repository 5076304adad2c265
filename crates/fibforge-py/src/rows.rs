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
    /// Rows of `width` bytes, NUL-padded at the end (numpy `str_` / `bytes_`); 4-byte
    /// native-order characters when `ucs4`.
    Fixed { data: &'a [u8], width: usize, ucs4: bool },
    /// Arrow `string`: row `i` is `data[offsets[i]..offsets[i + 1]]`.
    Arrow32 { offsets: &'a [i32], data: &'a [u8] },
    /// Arrow `large_string`.
    Arrow64 { offsets: &'a [i64], data: &'a [u8] },
    /// One slice per row (texts borrowed from Python str objects: [`crate::in_place`]).
    Slices(&'a [&'a [u8]]),
    /// Rows of exactly `width` bytes (Arrow `fixed_size_binary`).
    Width { data: &'a [u8], width: usize },
    /// Arrow `string_view` / `binary_view`: 16-byte views, inline up to 12 bytes, else
    /// pointing into `buffers`.
    View { views: &'a [u128], buffers: &'a [arrow_buffer::Buffer] },
}

impl Rows<'_> {
    /// Calls `f(i, text)` for rows `start + i`, `i` in `0..len`, in order; `text` is None
    /// where Arrow offsets point outside the data. `scratch` holds UCS-4 rows as UTF-8.
    /// Every layout gives a row's whole text (fixed-width rows without their end padding),
    /// so that [`crate::parse_ip::address`] reads it as the single lookup reads that str.
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
                    let row = unpadded(row.unwrap_or_default(), if ucs4 { 4 } else { 1 });
                    if ucs4 {
                        utf8_of_ucs4(row, scratch);
                        f(i, Some(scratch))?;
                    } else {
                        f(i, Some(row))?;
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
            Rows::Width { data, width } => {
                for i in 0..len {
                    f(i, data.get((start + i) * width..(start + i + 1) * width))?;
                }
            }
            Rows::View { views, buffers } => {
                for (i, &view) in views[start..start + len].iter().enumerate() {
                    // The Arrow layout: length in the low 32 bits; up to 12 bytes inline
                    // after it, else buffer index (bits 64..96) and offset (bits 96..128).
                    let n = view as u32 as usize;
                    if n <= 12 {
                        f(i, Some(&view.to_le_bytes()[4..4 + n]))?;
                    } else {
                        let (buffer, at) = ((view >> 64) as u32 as usize, (view >> 96) as u32);
                        let at = at as usize;
                        f(i, buffers.get(buffer).and_then(|b| b.get(at..at + n)))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A numpy fixed-width row without its padding: the NUL characters (of `size` bytes) at its
/// end, which numpy itself drops when it reads an element (`array[i]`). A NUL followed by
/// anything else is part of the text, so the parser refuses it (issue 56: rows were cut at
/// their first NUL, and `"10.1.2.3\0junk"` was read as 10.1.2.3).
fn unpadded(row: &[u8], size: usize) -> &[u8] {
    let kept = row.chunks_exact(size).rposition(|c| c.iter().any(|&b| b != 0)).map_or(0, |k| k + 1);
    &row[..kept * size]
}

/// Replaces `out` with the UTF-8 form of UCS-4 (native order) text, as the str numpy gives
/// for the row would encode, so that a row is read as that str alone is (whitespace such as
/// U+00A0 included). A code point with no UTF-8 form (a lone surrogate) becomes the byte
/// 0xFF, which no address holds.
fn utf8_of_ucs4(text: &[u8], out: &mut Vec<u8>) {
    out.clear();
    for c in text.chunks_exact(4) {
        match char::from_u32(u32::from_ne_bytes(c.try_into().expect("4 bytes"))) {
            Some(c) if c.is_ascii() => out.push(c as u8),
            Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            None => out.push(0xFF),
        }
    }
}

/// The end of the line starting at `pos` (a newline, or the end of `bytes`).
fn line_end(bytes: &[u8], pos: usize) -> usize {
    memchr::memchr(b'\n', &bytes[pos.min(bytes.len())..]).map_or(bytes.len(), |k| pos + k)
}

fn arrow_row<O: TryInto<usize>>(data: &[u8], start: O, end: O) -> Option<&[u8]> {
    data.get(start.try_into().ok()?..end.try_into().ok()?)
}
