//! GTP framing, knowing nothing about Go: input line cleanup, the optional
//! numeric id, splitting into a command name and arguments, and writing
//! `=`/`?` responses.
//!
//! Preprocessing follows GTP v2 §3.1 (and GNU Go's `gtp_main_loop`): control
//! characters other than HT and LF are dropped (so CRLF input works), anything
//! from `#` on is a comment, HT becomes a space, and a line left empty gets no
//! response at all.

use std::fmt;

/// One command line, cleaned up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The id as sent (digits only), echoed in the response.
    pub id: Option<String>,
    /// The command name, lower-cased (names are matched ignoring case).
    pub name: String,
    pub args: Vec<String>,
}

/// A failure response's message (one line, no `?`): `illegal move`,
/// `syntax error`, …
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GtpError(pub String);

impl GtpError {
    pub fn new(message: impl Into<String>) -> GtpError {
        GtpError(message.into())
    }

    /// `syntax error`: wrong number or form of arguments.
    pub fn syntax() -> GtpError {
        GtpError::new("syntax error")
    }
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Drops control characters except HT and LF (GTP v2 §3.1 step 1). Bytes that
/// are not ASCII are kept and decoded leniently (file names for `loadsgf`).
pub fn strip_controls(raw: &[u8]) -> String {
    let kept: Vec<u8> = raw
        .iter()
        .copied()
        .filter(|&b| b == b'\t' || b == b'\n' || (b >= 32 && b != 127))
        .collect();
    String::from_utf8_lossy(&kept).into_owned()
}

/// Cuts the comment and turns tabs into spaces (§3.1 steps 2–3), then trims.
/// An empty result means "no command: no response".
pub fn clean(line: &str) -> String {
    let line = line.split('#').next().unwrap_or("");
    line.replace(['\t', '\n'], " ")
        .trim_matches(' ')
        .to_string()
}

/// Whether a line is a comment line: GoGui's `# interrupt` and the like.
pub fn is_comment(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with('#')
}

/// Splits a cleaned, non-empty line into id, name and arguments. A line made of
/// an id alone gives an empty name.
pub fn parse(line: &str) -> Command {
    let mut words = line.split(' ').filter(|w| !w.is_empty());
    let mut first = words.next().unwrap_or("");
    let id = if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
        let id = first.to_string();
        first = words.next().unwrap_or("");
        Some(id)
    } else {
        None
    };
    Command {
        id,
        name: first.to_ascii_lowercase(),
        args: words.map(str::to_string).collect(),
    }
}

/// The `=id`/`?id` prefix, without the space.
fn prefix(status: char, id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{status}{id}"),
        None => status.to_string(),
    }
}

/// A complete success response: `=[id] result\n\n`. Blank lines inside the
/// result would end the response early for every client, so they are removed;
/// trailing newlines are dropped.
pub fn success(id: Option<&str>, result: &str) -> String {
    let body: Vec<&str> = result
        .trim_end_matches(['\n', '\r', ' '])
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let mut lines = Vec::with_capacity(body.len());
    for (i, l) in body.iter().enumerate() {
        if i == 0 || !l.trim().is_empty() {
            lines.push(*l);
        }
    }
    format!("{} {}\n\n", prefix('=', id), lines.join("\n"))
}

/// A complete failure response: `?[id] message\n\n`.
pub fn failure(id: Option<&str>, message: &str) -> String {
    let message = message.replace(['\n', '\r'], " ");
    format!("{} {}\n\n", prefix('?', id), message.trim())
}

/// The first line of a streamed response (analysis): `=` or `=id`, no space.
pub fn stream_header(id: Option<&str>) -> String {
    format!("{}\n", prefix('=', id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessing() {
        assert_eq!(strip_controls(b"play b d4\r\n"), "play b d4\n");
        assert_eq!(strip_controls(b"na\x01me\x7f"), "name");
        assert_eq!(clean("  genmove\tb  # a comment"), "genmove b");
        assert_eq!(clean("# interrupt"), "");
        assert_eq!(clean(" \t "), "");
        assert!(is_comment("  # interrupt"));
        assert!(!is_comment("name # x"));
    }

    #[test]
    fn ids_and_names() {
        assert_eq!(
            parse("12 PLAY b  D4"),
            Command {
                id: Some("12".into()),
                name: "play".into(),
                args: vec!["b".into(), "D4".into()]
            }
        );
        assert_eq!(parse("name").id, None);
        assert_eq!(parse("7").name, "");
        assert_eq!(parse("-3 name").name, "-3");
    }

    #[test]
    fn framing() {
        assert_eq!(success(None, ""), "= \n\n");
        assert_eq!(success(Some("4"), "C3"), "=4 C3\n\n");
        assert_eq!(success(None, "a\n\nb\n"), "= a\nb\n\n");
        assert_eq!(success(None, "\nrow\n"), "= \nrow\n\n");
        assert_eq!(failure(Some("5"), "illegal move"), "?5 illegal move\n\n");
        assert_eq!(stream_header(None), "=\n");
        assert_eq!(stream_header(Some("3")), "=3\n");
    }
}
