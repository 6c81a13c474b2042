//! What the configuration's keys mean to tengen's analysis engine: the
//! engine-wide settings (threads, PV length, warnings) and the per-query
//! search settings a query's `overrideSettings` may change (visits, time,
//! point of view, human-SL profile).
//!
//! Every other key is accepted and reported as unused, as KataGo's
//! `warnUnusedFields` does: KataGo's own search parameters
//! (`wideRootNoise`, `nnMaxBatchSize`, `conservativePass`, …) shape a search
//! tengen does not run, and files written for KaTrain carry them all.

use super::katago_config::KataGoConfig;
use crate::go::board::Color;
use crate::nn::metadata::SgfMetadata;

/// KataGo's bound on visit counts (`maxVisits`, `maxPlayouts`).
pub const MAX_VISITS: u64 = 1 << 50;

/// At most this many analysis threads are started, whatever the config asks
/// (KaTrain's config asks for 12): more searches at once than cores only
/// share the same cores.
pub const MAX_ANALYSIS_THREADS: usize = 64;

/// Whose point of view the win rates and scores are reported from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    Black,
    White,
    SideToMove,
}

impl Perspective {
    /// The colour the numbers are for when `to_move` is to play.
    pub fn color(self, to_move: Color) -> Color {
        match self {
            Perspective::Black => Color::Black,
            Perspective::White => Color::White,
            Perspective::SideToMove => to_move,
        }
    }
}

/// The settings of one query's search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// `maxVisits` (and `maxPlayouts`, the smaller wins): visits of this search.
    pub max_visits: Option<u64>,
    /// `maxTime`, in seconds.
    pub max_time: Option<f64>,
    /// `reportAnalysisWinratesAs`: KataGo's analysis engine defaults to the
    /// side to move.
    pub perspective: Perspective,
    /// `humanSLProfile`: its name (empty for none) and its metadata.
    pub human_profile_name: String,
    pub human_profile: Option<SgfMetadata>,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            max_visits: None,
            max_time: None,
            perspective: Perspective::SideToMove,
            human_profile_name: String::new(),
            human_profile: None,
        }
    }
}

impl SearchSettings {
    /// Applies one key; `Ok(false)` when the key is not a search setting.
    ///
    /// # Errors
    /// A value out of range or unreadable, in KataGo's words where it has them.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "maxVisits" | "maxPlayouts" => {
                let v = integer(key, value, 1, MAX_VISITS as i64)? as u64;
                self.max_visits = Some(self.max_visits.map_or(v, |old| {
                    // The two limits are separate in KataGo; tengen counts one
                    // kind of visit, so the smaller applies.
                    if key == "maxPlayouts" {
                        old.min(v)
                    } else {
                        v
                    }
                }));
            }
            "maxTime" => {
                let v = number(key, value, 0.0, 1e20)?;
                self.max_time = Some(v);
            }
            "reportAnalysisWinratesAs" => {
                self.perspective = match value.to_ascii_lowercase().as_str() {
                    "b" | "black" => Perspective::Black,
                    "w" | "white" => Perspective::White,
                    "sidetomove" => Perspective::SideToMove,
                    _ => {
                        return Err(format!(
                            "Could not parse config value for reportAnalysisWinratesAs: {value}"
                        ))
                    }
                };
            }
            "humanSLProfile" => {
                let profile =
                    SgfMetadata::profile(value).map_err(|e| format!("humanSLProfile: {e}"))?;
                self.human_profile_name = value.to_string();
                self.human_profile = profile;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The engine-wide settings of the configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// `numAnalysisThreads`, at most [`MAX_ANALYSIS_THREADS`].
    pub analysis_threads: usize,
    /// `numSearchThreads`: threads of each search.
    pub search_threads: usize,
    /// `analysisPVLen`: moves of each `pv` (KataGo's default 15).
    pub analysis_pv_len: usize,
    /// `warnUnusedFields`: warn about query fields tengen does not know.
    pub warn_unused_fields: bool,
    /// `rules`: for queries that give none (KataGo requires them; a tengen
    /// extension).
    pub default_rules: Option<String>,
    /// The defaults of every query's search.
    pub search: SearchSettings,
    /// Keys of the configuration tengen does not use, in order.
    pub unused: Vec<String>,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            analysis_threads: 1,
            search_threads: 1,
            analysis_pv_len: 15,
            warn_unused_fields: true,
            default_rules: None,
            search: SearchSettings::default(),
            unused: Vec::new(),
        }
    }
}

impl EngineSettings {
    /// The settings `config` gives.
    ///
    /// # Errors
    /// A value out of range or unreadable; the message names the key.
    pub fn from_config(config: &KataGoConfig) -> Result<EngineSettings, String> {
        let mut s = EngineSettings::default();
        for (key, value) in &config.values {
            let used = match key.as_str() {
                "numAnalysisThreads" => {
                    s.analysis_threads = integer(key, value, 1, 16384)? as usize;
                    true
                }
                // KataGo's analysis engine also reads the longer name (katagoanal's
                // bundled config uses it).
                "numSearchThreads" | "numSearchThreadsPerAnalysisThread" => {
                    s.search_threads = integer(key, value, 1, 4096)? as usize;
                    true
                }
                "analysisPVLen" => {
                    s.analysis_pv_len = integer(key, value, 1, 100)? as usize;
                    true
                }
                "warnUnusedFields" => {
                    s.warn_unused_fields = boolean(key, value)?;
                    true
                }
                "rules" => {
                    s.default_rules = Some(value.clone());
                    true
                }
                _ => s.search.apply(key, value)?,
            };
            if !used {
                s.unused.push(key.clone());
            }
        }
        Ok(s)
    }
}

/// A whole number in `min..=max`.
fn integer(key: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    match value.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "{key} must be an integer from {min} to {max}, not '{value}'"
        )),
    }
}

/// A finite number in `min..=max`.
fn number(key: &str, value: &str, min: f64, max: f64) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "{key} must be a number from {min} to {max}, not '{value}'"
        )),
    }
}

/// `true` or `false` (any case), as KataGo reads booleans.
fn boolean(key: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "1" | "yes" | "y" => Ok(true),
        "false" | "f" | "0" | "no" | "n" => Ok(false),
        _ => Err(format!("{key} must be true or false, not '{value}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> KataGoConfig {
        KataGoConfig {
            values: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn katrain_config_reads_with_its_unused_keys_listed() {
        let c = config(&[
            ("reportAnalysisWinratesAs", "BLACK"),
            ("conservativePass", "true"),
            ("maxVisits", "500"),
            ("numAnalysisThreads", "12"),
            ("numSearchThreads", "8"),
            ("nnMaxBatchSize", "96"),
            ("nnCacheSizePowerOfTwo", "20"),
            ("homeDataDir", "~/.katrain"),
        ]);
        let s = EngineSettings::from_config(&c).unwrap();
        assert_eq!(s.search.perspective, Perspective::Black);
        assert_eq!(s.search.max_visits, Some(500));
        assert_eq!((s.analysis_threads, s.search_threads), (12, 8));
        assert_eq!(
            s.unused,
            [
                "conservativePass",
                "homeDataDir",
                "nnCacheSizePowerOfTwo",
                "nnMaxBatchSize"
            ]
        );
    }

    #[test]
    fn bad_values_are_errors_naming_the_key() {
        for (k, v) in [
            ("maxVisits", "0"),
            ("maxVisits", "1e3"),
            ("maxTime", "-1"),
            ("maxTime", "nan"),
            ("numSearchThreads", "0"),
            ("reportAnalysisWinratesAs", "RED"),
            ("humanSLProfile", "rank_99k"),
            ("warnUnusedFields", "maybe"),
        ] {
            let e = EngineSettings::from_config(&config(&[(k, v)])).unwrap_err();
            assert!(e.contains(k), "{k}={v}: {e}");
        }
        let mut s = SearchSettings::default();
        assert!(s.apply("maxPlayouts", "100").unwrap());
        assert!(s.apply("maxVisits", "50").unwrap());
        assert!(s.apply("maxPlayouts", "80").unwrap());
        assert_eq!(s.max_visits, Some(50));
        assert!(!s.apply("wideRootNoise", "0.04").unwrap());
        assert!(s.apply("humanSLProfile", "rank_5k").unwrap());
        assert!(s.human_profile.is_some());
    }

    #[test]
    fn the_per_analysis_thread_name_sets_the_search_threads() {
        let c = config(&[("numSearchThreadsPerAnalysisThread", "3")]);
        let s = EngineSettings::from_config(&c).unwrap();
        assert_eq!(s.search_threads, 3);
        assert!(s.unused.is_empty(), "{:?}", s.unused);
    }
}
