//! Progress bars with a counter and ETA for the long subcommands (`bench`, `verify
//! --exhaustive`, `replay`, `soak`).
//!
//! Drawn on stderr only when stderr is a terminal: a pipe, a file or a `--json` consumer
//! never sees an escape code. The work publishes its progress in an atomic counter (the
//! libraries know nothing of terminals); [`follow`] polls it from a display thread ten times
//! a second while the work runs on the calling thread. Messages printed meanwhile go through
//! [`ProgressBar::suspend`] so that the bar does not garble them.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// How often the display thread reads the counter.
const POLL: Duration = Duration::from_millis(100);

/// Whether bars are drawn: stderr is a terminal.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar over `len` units (`what` before it), hidden unless stderr is a terminal.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    if !enabled() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{msg} [{bar:30}] {human_pos}/{human_len} ({percent}%) {elapsed} ETA {eta}",
    )
    .expect("valid template")
    .progress_chars("=> ");
    ProgressBar::new(len).with_style(style).with_message(what.to_string())
}

/// Runs `work` with a bar (from [`bar`]) that follows `counter` (units done of `len`), then
/// clears the bar. `work` gets the bar to print messages through [`ProgressBar::suspend`].
pub fn follow<T>(
    len: u64,
    what: &str,
    counter: &AtomicU64,
    work: impl FnOnce(&ProgressBar) -> T,
) -> T {
    let bar = bar(len, what);
    if bar.is_hidden() {
        return work(&bar);
    }
    let stop = AtomicBool::new(false);
    let out = std::thread::scope(|s| {
        let display = s.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                bar.set_position(counter.load(Ordering::Relaxed));
                std::thread::park_timeout(POLL);
            }
        });
        let out = work(&bar);
        stop.store(true, Ordering::Relaxed);
        // Wakes the display thread now rather than at its next poll.
        display.thread().unpark();
        out
    });
    bar.finish_and_clear();
    out
}
