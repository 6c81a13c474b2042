//! In-process checks of the session loop; the wire-level tests that spawn the
//! binary are in `tests/gtp_*.rs`.

use super::*;
use crate::engine::RandomEngine;
use std::sync::Arc;

/// A writer whose bytes the test can read afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn transcript(input: &str) -> String {
    let out = Shared::default();
    serve(
        io::Cursor::new(input.as_bytes().to_vec()),
        Box::new(out.clone()),
        Options::default(),
        Box::new(RandomEngine::new(1)),
    )
    .unwrap();
    let bytes = out.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_short_session() {
    assert_eq!(
        transcript("1 name\r\n\n# comment\nboardsize 9\r\nplay b e5\nplay w E5\n2 undo\nundo\nquit\nname\n"),
        "=1 tengen\n\n= \n\n= \n\n? illegal move\n\n=2 \n\n? cannot undo\n\n= \n\n"
    );
}

#[test]
fn analysis_ends_at_end_of_input() {
    let t = transcript("lz-analyze b 1");
    assert!(t.starts_with("=\n") && t.ends_with("\n\n"), "{t:?}");
}
