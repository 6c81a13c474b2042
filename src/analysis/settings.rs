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
use crate::katago::limits::SearchLimits;
pub use crate::katago::values::SettingError;
use crate::katago::values::{boolean, integer, number};
use crate::nn::metadata::SgfMetadata;
use crate::nn::PrecisionChoice;

pub use crate::katago::values::MAX_VISITS;

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

/// The search parameters KataGo's analysis engine reads from its config and
/// from a query's `overrideSettings` (`Setup::loadSingleParams` and
/// `reportAnalysisWinratesAs`, v1.17.2). A key outside this list gets
/// KataGo's warning "Unknown config params"; a key in it that tengen does
/// not use is accepted without one, as KataGo accepts it.
pub const KATAGO_SEARCH_KEYS: &[&str] = &[
    "alwaysComputePassAliveUnderSuicideRules",
    "antiMirror",
    "avoidRepeatedPatternUtility",
    "chosenMovePrune",
    "chosenMoveSubtract",
    "chosenMoveTemperature",
    "chosenMoveTemperatureEarly",
    "chosenMoveTemperatureHalflife",
    "chosenMoveTemperatureOnlyBelowProb",
    "conservativePass",
    "cpuctExploration",
    "cpuctExplorationBase",
    "cpuctExplorationLog",
    "cpuctUtilityStdevPrior",
    "cpuctUtilityStdevPriorWeight",
    "cpuctUtilityStdevScale",
    "drawEquivalentWinsForWhite",
    "dynamicScoreCenterScale",
    "dynamicScoreCenterZeroWeight",
    "dynamicScoreUtilityFactor",
    "enableMorePassingHacks",
    "enablePassingHacks",
    "endgameTurnTimeDecay",
    "evalCacheMinVisits",
    "fillDameBeforePass",
    "fpuLossProp",
    "fpuParentWeight",
    "fpuParentWeightByVisitedPolicy",
    "fpuParentWeightByVisitedPolicyPow",
    "fpuReductionMax",
    "futileVisitsThreshold",
    "graphSearchCatchUpLeakProb",
    "graphSearchCatchUpProp",
    "graphSearchRepBound",
    "humanSLChosenMoveIgnorePass",
    "humanSLChosenMovePiklLambda",
    "humanSLChosenMoveProp",
    "humanSLCpuctExploration",
    "humanSLCpuctPermanent",
    "humanSLOppExploreProbWeightful",
    "humanSLOppExploreProbWeightless",
    "humanSLPlaExploreProbWeightful",
    "humanSLPlaExploreProbWeightless",
    "humanSLProfile",
    "humanSLRootExploreProbWeightful",
    "humanSLRootExploreProbWeightless",
    "ignoreAllHistory",
    "ignorePreRootHistory",
    "lagBuffer",
    "lcbStdevs",
    "maxPlayouts",
    "maxPlayoutsPondering",
    "maxTime",
    "maxTimePondering",
    "maxVisits",
    "maxVisitsPondering",
    "midgameTimeFactor",
    "midgameTurnPeakTime",
    "minPlayoutsPerThread",
    "minVisitPropForLCB",
    "nnPolicyTemperature",
    "noResultUtilityForWhite",
    "nodeTableShardsPowerOfTwo",
    "noisePruneUtilityScale",
    "noisePruningCap",
    "numBots",
    "numSearchThreads",
    "numVirtualLossesPerThread",
    "obviousMovesPolicyEntropyTolerance",
    "obviousMovesPolicySurpriseTolerance",
    "obviousMovesTimeFactor",
    "overallocateTimeFactor",
    "playoutDoublingAdvantage",
    "playoutDoublingAdvantagePla",
    "policyOptimism",
    "reportAnalysisWinratesAs",
    "rootDesiredPerChildVisitsCoeff",
    "rootDirichletNoiseTotalConcentration",
    "rootDirichletNoiseWeight",
    "rootEndingBonusPoints",
    "rootFpuLossProp",
    "rootFpuReductionMax",
    "rootNoiseEnabled",
    "rootNumSymmetriesToSample",
    "rootPolicyOptimism",
    "rootPolicyTemperature",
    "rootPolicyTemperatureEarly",
    "rootPruneUselessMoves",
    "rootSymmetryPruning",
    "searchFactorAfterOnePass",
    "searchFactorAfterTwoPass",
    "staticScoreUtilityFactor",
    "subtreeValueBiasFactor",
    "subtreeValueBiasFreeProp",
    "subtreeValueBiasWeightExponent",
    "treeReuseCarryOverTimeFactor",
    "uncertaintyCoeff",
    "uncertaintyExponent",
    "uncertaintyMaxWeight",
    "useEvalCache",
    "useGraphSearch",
    "useLcbForSelection",
    "useNoisePruning",
    "useNonBuggyLcb",
    "useUncertainty",
    "valueWeightExponent",
    "wideRootNoise",
    "winLossUtilityFactor",
];

/// The settings of one query's search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// `maxVisits`, `maxPlayouts` and `maxTime` ([`SearchLimits`]: the
    /// smaller visit limit applies).
    pub limits: SearchLimits,
    /// `reportAnalysisWinratesAs`: KataGo's analysis engine defaults to the
    /// side to move.
    pub perspective: Perspective,
    /// `humanSLProfile`: its name (empty for none) and its metadata.
    pub human_profile_name: String,
    pub human_profile: Option<SgfMetadata>,
    /// `ignorePreRootHistory`: the net is not shown the moves before the
    /// analysed position (KataGo's analysis engine's default, true).
    pub ignore_pre_root_history: bool,
    /// `rootSymmetryPruning`: search one of each set of moves a symmetry of
    /// the position makes equal ([`crate::engine::root_choices`]; KataGo's default, true).
    pub root_symmetry_pruning: bool,
    /// `rootPolicyTemperature` (also a query field): the root's priors are
    /// the policy raised to 1/T and renormalised.
    pub root_policy_temperature: f64,
    /// `policyOptimism`: the policy optimism below the root (KataGo's
    /// analysis default, 1).
    pub policy_optimism: f64,
    /// `rootPolicyOptimism`, if given; see [`SearchSettings::root_policy_optimism`].
    pub root_policy_optimism_set: Option<f64>,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            limits: SearchLimits::default(),
            perspective: Perspective::SideToMove,
            human_profile_name: String::new(),
            human_profile: None,
            ignore_pre_root_history: true,
            root_symmetry_pruning: true,
            root_policy_temperature: 1.0,
            policy_optimism: 1.0,
            root_policy_optimism_set: None,
        }
    }
}

impl SearchSettings {
    /// The policy optimism at the root: `rootPolicyOptimism` if given, else
    /// as KataGo defaults it, `policyOptimism` but at most 0.2
    /// ([`crate::nn::KATAGO_GTP_POLICY_OPTIMISM`], written here in f64 so
    /// that the config's numbers stay exact).
    pub fn root_policy_optimism(&self) -> f64 {
        self.root_policy_optimism_set
            .unwrap_or(self.policy_optimism.min(0.2))
    }

    /// Applies one key; `Ok(false)` when the key is not a search setting.
    ///
    /// # Errors
    /// A value out of range or unreadable, in KataGo's words.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<bool, SettingError> {
        match key {
            "maxVisits" | "maxPlayouts" | "maxTime" => {
                self.limits.apply(key, value)?;
            }
            "reportAnalysisWinratesAs" => {
                self.perspective = match value.to_ascii_lowercase().as_str() {
                    "b" | "black" => Perspective::Black,
                    "w" | "white" => Perspective::White,
                    "sidetomove" => Perspective::SideToMove,
                    _ => {
                        return Err(SettingError::plain(format!(
                            "Could not parse config value for reportAnalysisWinratesAs: {value}"
                        )))
                    }
                };
            }
            "ignorePreRootHistory" => {
                self.ignore_pre_root_history = boolean(key, value)?;
            }
            "rootPolicyTemperature" => {
                self.root_policy_temperature = number(key, value, 0.01, 100.0)?;
            }
            "rootSymmetryPruning" => {
                self.root_symmetry_pruning = boolean(key, value)?;
            }
            "policyOptimism" => {
                self.policy_optimism = number(key, value, 0.0, 1.0)?;
            }
            "rootPolicyOptimism" => {
                self.root_policy_optimism_set = Some(number(key, value, 0.0, 1.0)?);
            }
            "humanSLProfile" => {
                let profile = SgfMetadata::profile(value)
                    .map_err(|e| SettingError::plain(format!("humanSLProfile: {e}")))?;
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
    /// `precision`: the arithmetic of the net's large products, as
    /// `--precision` (a tengen extension; default fp32).
    pub precision: PrecisionChoice,
    /// The defaults of every query's search.
    pub search: SearchSettings,
    /// Keys of the configuration tengen does not use, in order.
    pub unused: Vec<String>,
    /// The config as KataGo's messages name it for a query's
    /// `overrideSettings` ("PATH and/or command-line and query overrides").
    pub overrides_file: String,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            analysis_threads: 1,
            search_threads: 1,
            analysis_pv_len: 15,
            warn_unused_fields: true,
            default_rules: None,
            precision: PrecisionChoice::default(),
            search: SearchSettings::default(),
            unused: Vec::new(),
            overrides_file: String::new(),
        }
    }
}

impl EngineSettings {
    /// The settings `config` gives.
    ///
    /// # Errors
    /// A value out of range or unreadable, in KataGo's words, naming `file`
    /// (the config's path, as KataGo names it in its messages).
    pub fn from_config(config: &KataGoConfig, file: &str) -> Result<EngineSettings, String> {
        EngineSettings::read(config).map_err(|e| e.describe(file))
    }

    fn read(config: &KataGoConfig) -> Result<EngineSettings, SettingError> {
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
                "precision" => {
                    s.precision = PrecisionChoice::parse(value.trim()).ok_or_else(|| {
                        SettingError::in_file(format!(
                            "Key 'precision' must be one of {}, not '{value}'",
                            PrecisionChoice::NAMES
                        ))
                    })?;
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
        let s = EngineSettings::from_config(&c, "test.cfg").unwrap();
        assert_eq!(s.search.perspective, Perspective::Black);
        assert_eq!(s.search.limits.visits(), Some(500));
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
    fn precision_is_read_and_fp32_by_default() {
        let read = |v: &str| {
            EngineSettings::from_config(&config(&[("precision", v)]), "test.cfg")
                .map(|s| (s.precision, s.unused.is_empty()))
        };
        use crate::nn::Precision;
        assert_eq!(
            read("bf16"),
            Ok((PrecisionChoice::Kind(Precision::Bf16), true))
        );
        assert_eq!(
            read(" INT8 "),
            Ok((PrecisionChoice::Kind(Precision::Int8), true))
        );
        assert_eq!(read("auto"), Ok((PrecisionChoice::Auto, true)));
        let default = EngineSettings::from_config(&config(&[]), "test.cfg").unwrap();
        assert_eq!(default.precision, PrecisionChoice::Kind(Precision::Fp32));
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
            ("policyOptimism", "1.5"),
            ("rootPolicyOptimism", "-0.1"),
            ("precision", "fp8"),
        ] {
            let e = EngineSettings::from_config(&config(&[(k, v)]), "test.cfg").unwrap_err();
            assert!(e.contains(k), "{k}={v}: {e}");
        }
        // KataGo's words (`ConfigParser`), the file named where KataGo names it.
        let words = |k: &str, v: &str| {
            EngineSettings::from_config(&config(&[(k, v)]), "test.cfg").unwrap_err()
        };
        assert_eq!(
            words("maxTime", "-1"),
            "Key 'maxTime' must be in the range 0 to 1e+20 in config file test.cfg"
        );
        assert_eq!(
            words("maxVisits", "0"),
            "Key 'maxVisits' must be in the range 1 to 1125899906842624 in config file test.cfg"
        );
        assert_eq!(
            words("maxTime", "soon"),
            "Could not parse 'soon' as double for key 'maxTime' in config file test.cfg"
        );
        assert_eq!(
            words("warnUnusedFields", "maybe"),
            "Could not parse 'maybe' as bool for key 'warnUnusedFields' in config file test.cfg"
        );
        assert_eq!(
            words("reportAnalysisWinratesAs", "RED"),
            "Could not parse config value for reportAnalysisWinratesAs: RED"
        );
        let mut s = SearchSettings::default();
        assert!(s.apply("maxPlayouts", "100").unwrap());
        assert!(s.apply("maxVisits", "50").unwrap());
        assert!(s.apply("maxPlayouts", "80").unwrap());
        assert_eq!(s.limits.visits(), Some(50));
        assert!(s.apply("maxVisits", "500").unwrap());
        assert_eq!(
            s.limits.visits(),
            Some(80),
            "the smaller limit, in any order"
        );
        assert!(!s.apply("wideRootNoise", "0.04").unwrap());
        assert!(s.apply("humanSLProfile", "rank_5k").unwrap());
        assert!(s.human_profile.is_some());
    }

    #[test]
    fn the_per_analysis_thread_name_sets_the_search_threads() {
        let c = config(&[("numSearchThreadsPerAnalysisThread", "3")]);
        let s = EngineSettings::from_config(&c, "test.cfg").unwrap();
        assert_eq!(s.search_threads, 3);
        assert!(s.unused.is_empty(), "{:?}", s.unused);
    }

    /// KataGo's defaults: optimism 1 below the root, at the root the smaller
    /// of that and 0.2 unless `rootPolicyOptimism` is given.
    #[test]
    fn policy_optimism_defaults_as_katago_and_follows_the_config() {
        let optimism = |pairs: &[(&str, &str)]| {
            let s = EngineSettings::from_config(&config(pairs), "test.cfg").unwrap();
            assert!(s.unused.is_empty(), "{:?}", s.unused);
            (s.search.policy_optimism, s.search.root_policy_optimism())
        };
        assert_eq!(optimism(&[]), (1.0, 0.2));
        assert_eq!(optimism(&[("policyOptimism", "0.1")]), (0.1, 0.1));
        assert_eq!(optimism(&[("policyOptimism", "0")]), (0.0, 0.0));
        assert_eq!(
            optimism(&[("policyOptimism", "0"), ("rootPolicyOptimism", "0.7")]),
            (0.0, 0.7)
        );
    }
}
