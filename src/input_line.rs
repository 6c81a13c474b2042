//! Input lines of bounded length, for both front ends: a line longer than
//! the limit is consumed whole without being kept, so that no input can make
//! the engine hold more than the limit in memory.

use std::io::{self, BufRead};

/// What [`read_bounded`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A whole line (without its `\n`) is in the buffer.
    Line,
    /// A line longer than the limit was consumed; the buffer holds its first
    /// `max` bytes only (enough to find a GTP id).
    TooLong,
    /// The end of input, nothing read.
    End,
}

/// Reads one line (without its `\n`) into `line`, which it clears first,
/// keeping at most `max` bytes. A longer line is consumed to its end and
/// reported as [`LineRead::TooLong`]. The last line may lack its `\n`.
///
/// # Errors
/// Those of `input`, other than `Interrupted`.
pub fn read_bounded(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    line.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => LineRead::End,
                (true, true) => LineRead::TooLong,
                (true, false) => LineRead::Line,
            });
        }
        any = true;
        let (chunk, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            let room = max - line.len();
            if chunk.len() > room {
                too_long = true;
                line.extend_from_slice(&chunk[..room]);
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = end.unwrap_or(buf.len());
        input.consume(used);
        if end.is_some() {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_consumed_whole_and_only_their_start_kept() {
        let text = b"short\nthis line is far too long\n\nexactly10!\nlast";
        // A buffer smaller than the lines: each line arrives in pieces.
        let mut input = io::BufReader::with_capacity(4, &text[..]);
        let mut line = Vec::new();
        let mut seen = Vec::new();
        loop {
            let read = read_bounded(&mut input, &mut line, 10).unwrap();
            let text = String::from_utf8(line.clone()).unwrap();
            match read {
                LineRead::End => break,
                LineRead::TooLong => seen.push(format!("<too long: {text}>")),
                LineRead::Line => seen.push(text),
            }
        }
        assert_eq!(
            seen,
            ["short", "<too long: this line >", "", "exactly10!", "last"]
        );
    }

    #[test]
    fn a_long_last_line_without_its_end_is_too_long() {
        let mut input = io::Cursor::new(vec![b'x'; 100]);
        let mut line = Vec::new();
        assert_eq!(
            read_bounded(&mut input, &mut line, 8).unwrap(),
            LineRead::TooLong
        );
        assert_eq!(line.len(), 8);
        assert_eq!(
            read_bounded(&mut input, &mut line, 8).unwrap(),
            LineRead::End
        );
    }
}
