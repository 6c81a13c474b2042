//! What every command handler shares: the argument checks (count, numbers, seconds, a colour) and the reply
//! helpers. The handler rooms ([`super::commands`], [`super::setup`],
//! [`super::network`]) depend on this one and not on each other's helpers.

use super::protocol::{Command, GtpError};
use super::session::Reply;
use crate::go::board::Color;
use crate::go::vertex;

pub fn text(s: impl Into<String>) -> Result<Reply, GtpError> {
    Ok(Reply::Text(s.into()))
}

pub fn empty() -> Result<Reply, GtpError> {
    text("")
}

/// Fails with `syntax error` unless there are exactly `n` arguments.
pub fn arity(cmd: &Command, n: usize) -> Result<(), GtpError> {
    if cmd.args.len() == n {
        Ok(())
    } else {
        Err(GtpError::syntax())
    }
}

pub fn number<T: std::str::FromStr>(text: &str) -> Result<T, GtpError> {
    text.parse().map_err(|_| GtpError::syntax())
}

/// A finite, non-negative number of seconds (integers per the spec; KataGo
/// also accepts fractions, so do we), clamped to a year.
pub fn seconds(text: &str) -> Result<f64, GtpError> {
    crate::time::checked_seconds(number(text)?).ok_or_else(|| invalid_time(text))
}

/// The failure for a time that is a number but not a usable one.
pub fn invalid_time(text: &str) -> GtpError {
    GtpError::new(format!(
        "invalid time {text}: seconds must be a finite number, 0 or more"
    ))
}

/// The parse of a colour argument shared by many handlers.
pub fn color_arg(text: Option<&String>) -> Result<Color, GtpError> {
    text.and_then(|t| vertex::parse_color(t))
        .ok_or_else(GtpError::syntax)
}
