//! The progress callback shared by the runner and the peers it drives: its own file, so that a
//! peer can report progress without importing the runner that imports the peers.

/// Progress messages.
pub type Log<'a> = &'a mut dyn FnMut(&str);
