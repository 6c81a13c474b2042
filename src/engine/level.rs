//! How strong the engine plays: full strength, or a rank from 20 kyu to
//! 9 dan, as front ends name it (`max`, `20k` … `1k`, `1d` … `9d`). What a
//! rank plays is the search's business ([`crate::search::levels`]).

use std::fmt;
use std::str::FromStr;

/// How strong the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Level {
    /// Full strength: the search's move.
    #[default]
    Max,
    /// A rank: kyu ranks are positive, 1 dan is 0, 2 dan is -1 … 9 dan is
    /// -8 (KaTrain's scale).
    Rank(i32),
}

/// The weakest rank.
pub const WEAKEST_KYU: i32 = 20;
/// The strongest dan rank.
pub const STRONGEST_DAN: i32 = 9;

impl Level {
    /// The rank on KaTrain's kyu scale, `None` at full strength.
    pub fn kyu(self) -> Option<f64> {
        match self {
            Level::Max => None,
            Level::Rank(k) => Some(k as f64),
        }
    }
}

impl FromStr for Level {
    type Err = String;

    /// `max`, `20k` … `1k`, `1d` … `9d` (case-insensitive).
    fn from_str(text: &str) -> Result<Level, String> {
        let lower = text.trim().to_ascii_lowercase();
        if lower == "max" {
            return Ok(Level::Max);
        }
        let bad = || format!("unknown level {text:?}: max, 20k … 1k or 1d … 9d");
        if lower.len() < 2 || !lower.is_ascii() {
            return Err(bad());
        }
        let (digits, unit) = lower.split_at(lower.len() - 1);
        let n: i32 = digits.parse().map_err(|_| bad())?;
        match unit {
            "k" if (1..=WEAKEST_KYU).contains(&n) => Ok(Level::Rank(n)),
            "d" if (1..=STRONGEST_DAN).contains(&n) => Ok(Level::Rank(1 - n)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Level::Max => write!(f, "max"),
            Level::Rank(k) if k > 0 => write!(f, "{k}k"),
            Level::Rank(k) => write!(f, "{}d", 1 - k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_parse_and_print() {
        assert_eq!("max".parse::<Level>(), Ok(Level::Max));
        assert_eq!("20k".parse::<Level>(), Ok(Level::Rank(20)));
        assert_eq!("1K".parse::<Level>(), Ok(Level::Rank(1)));
        assert_eq!("1d".parse::<Level>(), Ok(Level::Rank(0)));
        assert_eq!("9d".parse::<Level>(), Ok(Level::Rank(-8)));
        for bad in [
            "", "k", "0k", "21k", "10d", "0d", "3p", "-1k", "3 k", "ｋ", "1dd",
        ] {
            assert!(bad.parse::<Level>().is_err(), "{bad:?}");
        }
        for text in ["max", "20k", "1k", "1d", "9d"] {
            assert_eq!(text.parse::<Level>().unwrap().to_string(), text);
        }
    }
}
