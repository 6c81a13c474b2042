//! KataGo's search limits — `maxVisits`, `maxPlayouts`, `maxTime` — read
//! with one precedence for both front ends (GTP's `kata-set-param`, the
//! analysis engine's config, `overrideSettings` and query fields).
//!
//! KataGo keeps the two visit limits apart and stops at whichever is reached
//! first; tengen counts one kind of visit (each a simulation of this
//! search), so the smaller of the two applies, whatever order they were
//! given in. KataGo's bounds (2^50 visits, 1e20 s) mean no limit.

use super::values::{integer, number, SettingError, MAX_TIME, MAX_VISITS};
use crate::engine::Limits;

/// The limits as given, each kept apart as KataGo keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SearchLimits {
    pub max_visits: Option<u64>,
    pub max_playouts: Option<u64>,
    /// Seconds.
    pub max_time: Option<f64>,
}

impl SearchLimits {
    /// What a command line's `--visits`/`--time` amount to.
    pub fn from_limits(limits: Limits) -> SearchLimits {
        SearchLimits {
            max_visits: limits.playouts,
            max_playouts: None,
            max_time: limits.time.map(|t| t.as_secs_f64()),
        }
    }

    /// Sets `key` to `value`; `Ok(false)` when `key` is no limit.
    ///
    /// # Errors
    /// A value out of range or unreadable, in KataGo's words.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<bool, SettingError> {
        match key {
            "maxVisits" => self.max_visits = Some(visits(key, value)?),
            "maxPlayouts" => self.max_playouts = Some(visits(key, value)?),
            "maxTime" => self.max_time = Some(number(key, value, 0.0, MAX_TIME)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The visits a search may make: the smaller limit; `None` for none.
    pub fn visits(&self) -> Option<u64> {
        [self.max_visits, self.max_playouts]
            .into_iter()
            .flatten()
            .filter(|&v| v < MAX_VISITS)
            .min()
    }

    /// The time a search may take; `None` for no limit.
    pub fn time(&self) -> Option<std::time::Duration> {
        self.max_time
            .filter(|&t| t < MAX_TIME)
            .map(crate::time::duration)
    }

    /// The engine's limits.
    pub fn limits(&self) -> Limits {
        Limits {
            playouts: self.visits(),
            time: self.time(),
        }
    }

    /// A limit's value as KataGo reports it (`kata-get-param`): its bound
    /// when none is set.
    pub fn reported(&self, key: &str) -> Option<f64> {
        let visits = |v: Option<u64>| v.unwrap_or(MAX_VISITS) as f64;
        Some(match key {
            "maxVisits" => visits(self.max_visits),
            "maxPlayouts" => visits(self.max_playouts),
            "maxTime" => self.max_time.unwrap_or(MAX_TIME),
            _ => return None,
        })
    }
}

fn visits(key: &str, value: &str) -> Result<u64, SettingError> {
    Ok(integer(key, value, 1, MAX_VISITS as i64)? as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_smaller_visit_limit_applies_in_any_order() {
        for order in [["maxPlayouts", "maxVisits"], ["maxVisits", "maxPlayouts"]] {
            let mut limits = SearchLimits::default();
            for key in order {
                let value = if key == "maxVisits" { "50" } else { "80" };
                assert!(limits.apply(key, value).unwrap());
            }
            assert_eq!(limits.visits(), Some(50), "{order:?}");
            assert!(limits.apply("maxVisits", "500").unwrap());
            assert_eq!(limits.visits(), Some(80), "{order:?}");
        }
    }

    #[test]
    fn katagos_bounds_mean_no_limit() {
        let mut limits = SearchLimits::default();
        limits.apply("maxVisits", &MAX_VISITS.to_string()).unwrap();
        limits.apply("maxTime", "1e20").unwrap();
        assert_eq!(limits.limits(), Limits::default());
        limits.apply("maxTime", "2.5").unwrap();
        assert_eq!(limits.time(), Some(Duration::from_millis(2500)));
        assert_eq!(limits.reported("maxPlayouts"), Some(MAX_VISITS as f64));
        assert!(limits.apply("maxVisits", "0").is_err());
        assert!(!limits.apply("maxNodes", "5").unwrap());
    }
}
