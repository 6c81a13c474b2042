//! The GTP v2 engine front end: a session that owns the game, the clock and
//! an [`Engine`], reads commands on its own stdin thread and writes responses.
//!
//! Threads: a reader thread turns every input line into an `Event`; the
//! session handles commands one at a time in order. Thinking (`genmove` and its
//! variants, analysis) runs on a worker thread while the session keeps
//! watching the input:
//! - an analysis (`lz-analyze`, `kata-analyze`) stops at **any** input line,
//!   ends its response with the blank line, and the line is then handled;
//! - a `genmove` stops early only at a comment line (GoGui's `# interrupt`,
//!   which gets no response) and answers with the best move so far; other
//!   lines that arrive meanwhile wait their turn (Sabaki and gtp2ogs pipeline).
//!
//! Responses go to the output only from here (`=`/`?` framing in
//! [`protocol`]); diagnostics go to stderr, never to stdout.
//!
//! Layout: [`protocol`] (framing, no Go), [`options`] (the start-up
//! settings), [`session`] (the conversation: reading, thinking, writing),
//! [`commands`] (the command table and the handlers of play), [`setup`]
//! (clock, rules, handicap and SGF commands), [`network`] (the net's own
//! commands), [`args`] (the entry type, argument checks and reply helpers
//! those three share, so that they do not import each other), [`analysis`]
//! (analysis output formats).

pub mod analysis;
pub mod args;
pub mod commands;
pub mod network;
pub mod options;
pub mod params;
pub mod protocol;
pub mod session;
pub mod setup;

pub use options::{Networks, Options};
pub use session::{Reply, MAX_LINE_BYTES};

use crate::engine::Engine;
use std::io::{self, BufRead, Write};

/// Runs GTP on stdin/stdout until `quit` or end of input.
///
/// # Errors
/// Only if the reader thread cannot be started.
pub fn run(options: Options, engine: Box<dyn Engine>, networks: Networks) -> io::Result<()> {
    serve(
        io::BufReader::new(io::stdin()),
        Box::new(io::stdout()),
        options,
        engine,
        networks,
    )
}

/// Runs GTP over any input and output (tests use in-memory buffers).
///
/// # Errors
/// Only if the reader thread cannot be started.
pub fn serve<R>(
    input: R,
    output: Box<dyn Write + Send>,
    options: Options,
    engine: Box<dyn Engine>,
    networks: Networks,
) -> io::Result<()>
where
    R: BufRead + Send + 'static,
{
    session::serve_with(input, output, options, engine, networks, commands::find)
}

#[cfg(test)]
mod tests;
