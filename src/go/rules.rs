//! Rule sets: the ko rule, suicide, scoring method, handicap compensation and
//! whether a friendly pass is fine, with the named presets that servers and
//! SGF files use, and KataGo's names for each field.
//!
//! `Rules` is a small `Copy` value passed in explicitly; nothing here knows
//! about boards. Komi is *not* part of `Rules` (GTP's `komi` must survive rule
//! changes); a preset only suggests a default. How many handicap stones a game
//! has is the game's business ([`crate::go::game::Game::handicap_stones`]);
//! the rules only say what White gets for them.

use std::fmt;
use std::str::FromStr;

/// Which repetitions are forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// Only the immediate recapture of a single-stone ko.
    Simple,
    /// A board play may not recreate any earlier board position.
    Positional,
    /// A board play may not recreate an earlier (board, player to move) situation;
    /// situations created by passes count.
    Situational,
    /// A board play may not recreate a position that the same player created
    /// with a board play; plus the simple-ko rule.
    NaturalSituational,
}

impl KoRule {
    /// Every ko rule, for tests and help texts.
    pub const ALL: [KoRule; 4] = [
        KoRule::Simple,
        KoRule::Positional,
        KoRule::Situational,
        KoRule::NaturalSituational,
    ];

    /// The command-line and GTP name.
    pub fn name(self) -> &'static str {
        match self {
            KoRule::Simple => "simple",
            KoRule::Positional => "positional",
            KoRule::Situational => "situational",
            KoRule::NaturalSituational => "natural-situational",
        }
    }
}

impl FromStr for KoRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().replace('_', "-").as_str() {
            "simple" | "simple-ko" => Ok(KoRule::Simple),
            "positional" | "psk" | "positional-superko" => Ok(KoRule::Positional),
            "situational" | "ssk" | "situational-superko" => Ok(KoRule::Situational),
            "natural-situational" | "nssk" | "natural" => Ok(KoRule::NaturalSituational),
            _ => Err(format!("unknown ko rule '{s}'")),
        }
    }
}

/// How the game is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// Stones plus surrounded empty points (Chinese, AGA, NZ, Tromp-Taylor).
    Area,
    /// Surrounded empty points plus prisoners (Japanese, Korean).
    Territory,
}

/// What White gets for Black's handicap stones: KataGo's `whiteHandicapBonus`.
/// The points are added to komi when the game is counted, under area and
/// territory scoring alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandicapBonus {
    /// Nothing (`0`): Japanese, Korean, New Zealand, Tromp-Taylor, GOE.
    Zero,
    /// One point per handicap stone but the first (`N-1`): AGA, BGA, French.
    NMinusOne,
    /// One point per handicap stone (`N`): Chinese.
    N,
}

impl HandicapBonus {
    pub const ALL: [HandicapBonus; 3] = [
        HandicapBonus::Zero,
        HandicapBonus::NMinusOne,
        HandicapBonus::N,
    ];

    /// KataGo's name: `0`, `N-1` or `N`.
    pub fn name(self) -> &'static str {
        match self {
            HandicapBonus::Zero => "0",
            HandicapBonus::NMinusOne => "N-1",
            HandicapBonus::N => "N",
        }
    }

    /// White's points for `stones` handicap stones, as KataGo's
    /// `computeWhiteHandicapBonus` gives them (`N-1` is never below 0). A game
    /// with fewer than two handicap stones has none (see
    /// [`crate::go::handicap::count_katago`]).
    pub fn points(self, stones: u32) -> u32 {
        match self {
            HandicapBonus::Zero => 0,
            HandicapBonus::NMinusOne => stones.saturating_sub(1),
            HandicapBonus::N => stones,
        }
    }
}

impl FromStr for HandicapBonus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_uppercase().as_str() {
            "0" => Ok(HandicapBonus::Zero),
            "N-1" => Ok(HandicapBonus::NMinusOne),
            "N" => Ok(HandicapBonus::N),
            _ => Err(format!("unknown white handicap bonus '{s}' (0, N-1 or N)")),
        }
    }
}

/// A complete rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub ko: KoRule,
    /// Multi-stone suicide allowed. Single-stone suicide is never legal.
    pub suicide_allowed: bool,
    pub scoring: Scoring,
    /// White's compensation for handicap stones (KataGo's `whiteHandicapBonus`).
    pub handicap_bonus: HandicapBonus,
    /// KataGo's `friendlyPassOk`: a player may pass with dead stones left on
    /// the board (they are removed by agreement). When false, as under
    /// Tromp-Taylor, a player should capture every dead stone before passing.
    /// tengen's game ends at two passes and its count removes the dead stones
    /// either way; this value reaches the network's inputs (whether the last
    /// pass is shown as ending the game) and `kata-get-rules`.
    pub friendly_pass_ok: bool,
}

/// The named presets. Each has KataGo's handicap bonus and friendly-pass
/// setting for the same name (`cpp/game/rules.cpp`, `parseRulesHelper`, v1.17.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Positional superko, area scoring, bonus N, friendly pass: Chinese rules
    /// as KGS and OGS implement them (KataGo's `chinese-kgs`/`chinese-ogs`;
    /// KataGo's plain `chinese` is simple ko).
    Chinese,
    /// Simple ko, territory scoring, no bonus, no friendly pass.
    Japanese,
    /// Situational superko, area scoring, bonus N-1, friendly pass.
    Aga,
    /// Situational superko, multi-stone suicide allowed, area scoring, no
    /// bonus, friendly pass.
    NewZealand,
    /// Positional superko, multi-stone suicide allowed, area scoring, no bonus,
    /// no friendly pass (dead stones must be captured).
    TrompTaylor,
    /// Ing / GOE as KataGo approximates them: Tromp-Taylor with a friendly pass.
    Goe,
}

impl Preset {
    pub const ALL: [Preset; 6] = [
        Preset::Chinese,
        Preset::Japanese,
        Preset::Aga,
        Preset::NewZealand,
        Preset::TrompTaylor,
        Preset::Goe,
    ];

    /// The rules of this preset.
    pub fn rules(self) -> Rules {
        use HandicapBonus::{NMinusOne, Zero, N};
        let (ko, suicide_allowed, scoring, handicap_bonus, friendly_pass_ok) = match self {
            Preset::Chinese => (KoRule::Positional, false, Scoring::Area, N, true),
            Preset::Japanese => (KoRule::Simple, false, Scoring::Territory, Zero, false),
            Preset::Aga => (KoRule::Situational, false, Scoring::Area, NMinusOne, true),
            Preset::NewZealand => (KoRule::Situational, true, Scoring::Area, Zero, true),
            Preset::TrompTaylor => (KoRule::Positional, true, Scoring::Area, Zero, false),
            Preset::Goe => (KoRule::Positional, true, Scoring::Area, Zero, true),
        };
        Rules {
            ko,
            suicide_allowed,
            scoring,
            handicap_bonus,
            friendly_pass_ok,
        }
    }

    /// The usual komi under this preset.
    pub fn default_komi(self) -> f64 {
        match self {
            Preset::Japanese => 6.5,
            Preset::NewZealand => 7.0,
            _ => 7.5,
        }
    }

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Chinese => "chinese",
            Preset::Japanese => "japanese",
            Preset::Aga => "aga",
            Preset::NewZealand => "new-zealand",
            Preset::TrompTaylor => "tromp-taylor",
            Preset::Goe => "goe",
        }
    }

    /// Reads a rule-set name as written by people, servers and SGF `RU`:
    /// case-insensitive, with aliases (`nz`, `new_zealand`, `tt`, `korean` →
    /// Japanese, `ing` → GOE, `chinese-kgs`, `Japanese Rules`, …).
    /// `None` when nothing matches.
    pub fn from_name(text: &str) -> Option<Preset> {
        let t: String = text
            .trim()
            .to_ascii_lowercase()
            .chars()
            .map(|c| {
                if c == '_' || c == ' ' || c == '/' {
                    '-'
                } else {
                    c
                }
            })
            .collect();
        let t = t.trim_matches('-');
        let exact = match t {
            "chinese" | "cn" | "chinese-kgs" | "chinese-ogs" => Some(Preset::Chinese),
            "japanese" | "jp" | "korean" | "kr" => Some(Preset::Japanese),
            "aga" | "bga" | "french" => Some(Preset::Aga),
            "nz" | "new-zealand" | "newzealand" => Some(Preset::NewZealand),
            "tromp-taylor" | "tt" | "tromptaylor" => Some(Preset::TrompTaylor),
            "goe" | "ing" => Some(Preset::Goe),
            _ => None,
        };
        exact.or_else(|| {
            [
                ("chinese", Preset::Chinese),
                ("japanese", Preset::Japanese),
                ("korean", Preset::Japanese),
                ("aga", Preset::Aga),
                ("american", Preset::Aga),
                ("british", Preset::Aga),
                ("new-zealand", Preset::NewZealand),
                ("nz", Preset::NewZealand),
                ("tromp", Preset::TrompTaylor),
                ("tt-", Preset::TrompTaylor),
                ("goe", Preset::Goe),
                ("ing", Preset::Goe),
            ]
            .into_iter()
            .find(|(prefix, _)| t.starts_with(prefix))
            .map(|(_, p)| p)
        })
    }
}

impl FromStr for Preset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Preset::from_name(s).ok_or_else(|| format!("unknown rules '{s}'"))
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for Rules {
    /// Chinese rules as servers use them: positional superko, area scoring,
    /// White gets a point per handicap stone.
    fn default() -> Rules {
        Preset::Chinese.rules()
    }
}

/// A rule-set name read as KataGo's own parser reads it (`Rules::parseRules`
/// in `cpp/game/rules.cpp`, v1.17.2: the name trimmed and lowercased, then compared with
/// its fixed list): the rules, KataGo's komi for them, and the tax and button
/// KataGo would play, which tengen does not. It differs from tengen's
/// people-facing [`Preset::from_name`] where KataGo's names do: KataGo's
/// plain `chinese` is simple ko (its `chinese-kgs`/`chinese-ogs` are
/// positional superko), and it reads no prefixes or free text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KataGoNamedRules {
    pub rules: Rules,
    pub komi: f64,
    /// KataGo's tax rule is `ALL` (stone scoring, the ancient rules).
    pub tax_all: bool,
    /// KataGo's `aga-button`.
    pub button: bool,
}

impl KataGoNamedRules {
    /// `None` when KataGo has no rule set by that name.
    pub fn from_name(name: &str) -> Option<KataGoNamedRules> {
        use HandicapBonus::{NMinusOne, Zero, N};
        use KoRule::{Positional, Simple, Situational};
        let lower = name.trim().to_ascii_lowercase();
        let one_of = |names: &[&str]| names.contains(&lower.as_str());
        let spellings = |base: &[&str]| {
            base.iter().any(|b| {
                [" ", "-", "_", ""]
                    .iter()
                    .any(|sep| b.replace('~', sep) == lower)
            })
        };
        // (ko, suicide, scoring, bonus, friendly pass, komi, tax ALL, button)
        let (ko, suicide_allowed, scoring, handicap_bonus, friendly_pass_ok, komi, tax_all, button) =
            if one_of(&["japanese", "korean"]) {
                (
                    Simple,
                    false,
                    Scoring::Territory,
                    Zero,
                    false,
                    6.5,
                    false,
                    false,
                )
            } else if lower == "chinese" {
                (Simple, false, Scoring::Area, N, true, 7.5, false, false)
            } else if one_of(&[
                "chineseogs",
                "chinese_ogs",
                "chinese-ogs",
                "chinesekgs",
                "chinese_kgs",
                "chinese-kgs",
            ]) {
                (Positional, false, Scoring::Area, N, true, 7.5, false, false)
            } else if spellings(&["ancient~area", "stone~scoring"]) {
                (Simple, false, Scoring::Area, Zero, true, 7.5, true, false)
            } else if spellings(&["ancient~territory"]) {
                (
                    Simple,
                    false,
                    Scoring::Territory,
                    Zero,
                    false,
                    6.5,
                    true,
                    false,
                )
            } else if spellings(&["aga~button"]) {
                (
                    Situational,
                    false,
                    Scoring::Area,
                    NMinusOne,
                    true,
                    7.0,
                    false,
                    true,
                )
            } else if one_of(&["aga", "bga", "french"]) {
                (
                    Situational,
                    false,
                    Scoring::Area,
                    NMinusOne,
                    true,
                    7.5,
                    false,
                    false,
                )
            } else if lower == "nz" || spellings(&["new~zealand"]) {
                (
                    Situational,
                    true,
                    Scoring::Area,
                    Zero,
                    true,
                    7.0,
                    false,
                    false,
                )
            } else if one_of(&[
                "tromp-taylor",
                "tromp_taylor",
                "tromp taylor",
                "tromptaylor",
            ]) {
                (
                    Positional,
                    true,
                    Scoring::Area,
                    Zero,
                    false,
                    7.5,
                    false,
                    false,
                )
            } else if one_of(&["goe", "ing"]) {
                (
                    Positional,
                    true,
                    Scoring::Area,
                    Zero,
                    true,
                    7.5,
                    false,
                    false,
                )
            } else {
                return None;
            };
        Some(KataGoNamedRules {
            rules: Rules {
                ko,
                suicide_allowed,
                scoring,
                handicap_bonus,
                friendly_pass_ok,
            },
            komi,
            tax_all,
            button,
        })
    }
}

/// KataGo's names for the rule fields (`kata-get-rules`, `kata-set-rules`, the
/// compact form of SGF `RU`). KataGo also has a tax rule and the button, which
/// tengen plays at one value only: tax `NONE` under area scoring and `SEKI`
/// under territory scoring (KataGo's `japanese`), no button.
impl Rules {
    /// KataGo's ko name (`NATURAL-SITUATIONAL` is tengen's own).
    pub fn katago_ko(self) -> &'static str {
        match self.ko {
            KoRule::Simple => "SIMPLE",
            KoRule::Positional => "POSITIONAL",
            KoRule::Situational => "SITUATIONAL",
            KoRule::NaturalSituational => "NATURAL-SITUATIONAL",
        }
    }

    /// KataGo's scoring name: `AREA` or `TERRITORY`.
    pub fn katago_scoring(self) -> &'static str {
        match self.scoring {
            Scoring::Area => "AREA",
            Scoring::Territory => "TERRITORY",
        }
    }

    /// KataGo's tax rule that these rules amount to: `NONE` (area) or `SEKI`
    /// (territory).
    pub fn katago_tax(self) -> &'static str {
        match self.scoring {
            Scoring::Area => "NONE",
            Scoring::Territory => "SEKI",
        }
    }

    /// The rules as `kata-get-rules` answers them: KataGo's
    /// `toJsonStringNoKomi`, every field, keys in its (alphabetical) order:
    /// `{"friendlyPassOk":true,"hasButton":false,"ko":"POSITIONAL",
    /// "scoring":"AREA","suicide":false,"tax":"NONE","whiteHandicapBonus":"N"}`.
    pub fn to_katago_json(self) -> String {
        format!(
            "{{\"friendlyPassOk\":{},\"hasButton\":false,\"ko\":\"{}\",\"scoring\":\"{}\",\
             \"suicide\":{},\"tax\":\"{}\",\"whiteHandicapBonus\":\"{}\"}}",
            self.friendly_pass_ok,
            self.katago_ko(),
            self.katago_scoring(),
            self.suicide_allowed,
            self.katago_tax(),
            self.handicap_bonus.name()
        )
    }

    /// KataGo's compact form, as its `toStringNoKomi` writes it:
    /// `koPOSITIONALscoreAREAtaxNONEsui1`, then `whbN`/`whbN-1` unless the
    /// bonus is 0 and `fpok1` if a friendly pass is fine. tengen's own
    /// natural situational superko is `koNATURALSITUATIONAL`.
    pub fn to_katago_compact(self) -> String {
        let mut s = format!(
            "ko{}score{}tax{}sui{}",
            self.katago_ko().replace('-', ""),
            self.katago_scoring(),
            self.katago_tax(),
            u8::from(self.suicide_allowed)
        );
        if self.handicap_bonus != HandicapBonus::Zero {
            s.push_str("whb");
            s.push_str(self.handicap_bonus.name());
        }
        if self.friendly_pass_ok {
            s.push_str("fpok1");
        }
        s
    }

    /// Reads KataGo's compact form (`koSIMPLEscoreTERRITORYtaxSEKIsui0`,
    /// fields in any order, case-insensitive), as KataGo's `parseRules` does:
    /// fields not given are Tromp-Taylor's.
    ///
    /// # Errors
    /// An unknown field or value, `komi` (komi is not part of the rules here),
    /// or a tax or button tengen does not play.
    pub fn from_katago_compact(text: &str) -> Result<Rules, String> {
        KataGoFields::from_katago_compact(text)?.finish()
    }
}

impl KataGoFields {
    /// KataGo's compact form read field by field ([`Rules::from_katago_compact`]),
    /// not yet finished.
    ///
    /// # Errors
    /// An unknown field or value, or `komi`.
    pub fn from_katago_compact(text: &str) -> Result<KataGoFields, String> {
        let lower = text.trim().to_ascii_lowercase();
        let mut rest = lower.as_str();
        if rest.is_empty() {
            return Err("empty rules".into());
        }
        let bad = || format!("cannot read rules '{}'", text.trim());
        let mut fields = KataGoFields::new();
        // (field prefix, KataGo key, its possible values), longer prefixes and
        // values first where one starts another.
        const FIELDS: [(&str, &str, &[&str]); 9] = [
            ("komi", "komi", &[]),
            (
                "ko",
                "ko",
                &[
                    "simple",
                    "positional",
                    "situational",
                    "naturalsituational",
                    "spight",
                ],
            ),
            ("scoring", "scoring", &["area", "territory"]),
            ("score", "scoring", &["area", "territory"]),
            ("tax", "tax", &["none", "seki", "all"]),
            ("sui", "suicide", &["1", "0"]),
            ("button", "hasButton", &["1", "0"]),
            ("whb", "whiteHandicapBonus", &["0", "n-1", "n"]),
            ("fpok", "friendlyPassOk", &["1", "0"]),
        ];
        while !rest.is_empty() {
            let (prefix, key, values) = FIELDS
                .iter()
                .find(|(prefix, _, _)| rest.starts_with(prefix))
                .ok_or_else(bad)?;
            rest = rest[prefix.len()..].trim_start();
            let value = values
                .iter()
                .find(|v| rest.starts_with(*v))
                .ok_or_else(bad)?;
            rest = rest[value.len()..].trim_start();
            let value = match *value {
                "1" => "true",
                "0" if *key != "whiteHandicapBonus" => "false",
                "naturalsituational" => "natural-situational",
                v => v,
            };
            fields.set(key, value)?;
        }
        Ok(fields)
    }
}

/// KataGo's rule fields read one at a time, by KataGo's keys and values, from
/// KataGo's defaults for fields not given (Tromp-Taylor), as KataGo's
/// `parseRules` reads JSON and the compact form.
#[derive(Clone, Copy, Debug)]
pub struct KataGoFields {
    rules: Rules,
    tax: Option<&'static str>,
    button: bool,
}

impl Default for KataGoFields {
    fn default() -> KataGoFields {
        KataGoFields::new()
    }
}

impl KataGoFields {
    /// Tromp-Taylor, KataGo's default for fields not given.
    pub fn new() -> KataGoFields {
        KataGoFields::from_rules(Preset::TrompTaylor.rules())
    }

    /// `rules` with no field given yet: KataGo's `kata-set-rule`, which changes
    /// one field of the rules in force.
    pub fn from_rules(rules: Rules) -> KataGoFields {
        KataGoFields {
            rules,
            tax: None,
            button: false,
        }
    }

    /// Sets one field: `ko` (`SIMPLE`, `POSITIONAL`, `SITUATIONAL`, `SPIGHT`
    /// read as simple, tengen's `NATURAL-SITUATIONAL`), `score`/`scoring`
    /// (`AREA`, `TERRITORY`), `tax` (`NONE`, `SEKI`, `ALL`), `suicide`,
    /// `hasButton`, `friendlyPassOk` (`true`/`false`), `whiteHandicapBonus`
    /// (`0`, `N-1`, `N`). Also tengen's older `koRule`, `scoringRule`,
    /// `multiStoneSuicideLegal`. Case-insensitive values.
    ///
    /// # Errors
    /// An unknown key or value, or `komi`, which `kata-set-rules` does not take
    /// (KataGo: "Unknown rules option").
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        let flag = || match value.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(format!("{key} must be true or false, not '{value}'")),
        };
        let r = &mut self.rules;
        match key.trim() {
            "ko" | "koRule" => {
                r.ko = match value.to_ascii_uppercase().as_str() {
                    "SPIGHT" => KoRule::Simple,
                    _ => value.parse()?,
                }
            }
            "score" | "scoring" | "scoringRule" => {
                r.scoring = match value.to_ascii_uppercase().as_str() {
                    "AREA" => Scoring::Area,
                    "TERRITORY" => Scoring::Territory,
                    _ => return Err(format!("unknown scoring rule '{value}'")),
                }
            }
            "tax" => {
                self.tax = Some(match value.to_ascii_uppercase().as_str() {
                    "NONE" => "NONE",
                    "SEKI" => "SEKI",
                    "ALL" => "ALL",
                    _ => return Err(format!("unknown tax rule '{value}'")),
                })
            }
            "suicide" | "multiStoneSuicideLegal" => r.suicide_allowed = flag()?,
            "hasButton" => self.button = flag()?,
            "whiteHandicapBonus" => r.handicap_bonus = value.parse()?,
            "friendlyPassOk" => r.friendly_pass_ok = flag()?,
            other => return Err(format!("unknown rules option '{other}'")),
        }
        Ok(())
    }

    /// The rules read.
    ///
    /// # Errors
    /// The button, or a tax other than the one tengen's scoring amounts to
    /// ([`Rules::katago_tax`]): tengen does not play them.
    pub fn finish(self) -> Result<Rules, String> {
        if self.button {
            return Err("tengen does not play button go (hasButton)".into());
        }
        match self.tax {
            Some(tax) if tax != self.rules.katago_tax() => Err(format!(
                "tengen does not play tax {tax} with {} scoring",
                self.rules.katago_scoring()
            )),
            _ => Ok(self.rules),
        }
    }

    /// Whether the button was asked for (`hasButton`).
    pub fn has_button(&self) -> bool {
        self.button
    }

    /// The rules read, leaving out what [`KataGoFields::finish`] refuses (a
    /// tax other than the scoring's own, the button), each named: tengen
    /// plays the rest.
    pub fn finish_playable(self) -> (Rules, Vec<String>) {
        let mut left_out = Vec::new();
        if let Some(tax) = self.tax.filter(|&tax| tax != self.rules.katago_tax()) {
            left_out.push(format!("tax {tax}"));
        }
        if self.button {
            left_out.push("hasButton".to_string());
        }
        (self.rules, left_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_design() {
        let c = Preset::Chinese.rules();
        assert_eq!(
            (c.ko, c.suicide_allowed, c.scoring),
            (KoRule::Positional, false, Scoring::Area)
        );
        let j = Preset::Japanese.rules();
        assert_eq!((j.ko, j.scoring), (KoRule::Simple, Scoring::Territory));
        assert_eq!(Preset::Aga.rules().ko, KoRule::Situational);
        let nz = Preset::NewZealand.rules();
        assert!(nz.suicide_allowed && nz.ko == KoRule::Situational);
        let tt = Preset::TrompTaylor.rules();
        assert!(tt.suicide_allowed && tt.ko == KoRule::Positional);
    }

    /// Each preset's handicap bonus and friendly pass are KataGo's for the
    /// same name (KataGo v1.17.2 `cpp/game/rules.cpp`, `parseRulesHelper`:
    /// `chinese-kgs` for tengen's positional-superko Chinese; its `chinese`,
    /// simple ko, has the same two values).
    #[test]
    fn handicap_bonus_and_friendly_pass_per_preset() {
        use HandicapBonus::{NMinusOne, Zero, N};
        for (preset, bonus, friendly) in [
            (Preset::Chinese, N, true),
            (Preset::Japanese, Zero, false),
            (Preset::Aga, NMinusOne, true),
            (Preset::NewZealand, Zero, true),
            (Preset::TrompTaylor, Zero, false),
            (Preset::Goe, Zero, true),
        ] {
            let r = preset.rules();
            assert_eq!(r.handicap_bonus, bonus, "{preset}");
            assert_eq!(r.friendly_pass_ok, friendly, "{preset}");
        }
        assert_eq!(Rules::default().handicap_bonus, N);
        // Korean is Japanese, BGA and French are AGA, as in KataGo.
        for name in ["korean", "bga", "french", "chinese-ogs", "ing"] {
            let p = Preset::from_name(name).unwrap();
            assert_ne!(p, Preset::TrompTaylor, "{name}");
        }
        let goe = Preset::Goe.rules();
        assert_eq!(
            Rules {
                friendly_pass_ok: false,
                ..goe
            },
            Preset::TrompTaylor.rules(),
            "GOE is Tromp-Taylor with a friendly pass"
        );
    }

    #[test]
    fn handicap_bonus_points() {
        for stones in [0, 1, 2, 9] {
            assert_eq!(HandicapBonus::Zero.points(stones), 0);
            assert_eq!(HandicapBonus::N.points(stones), stones);
            assert_eq!(
                HandicapBonus::NMinusOne.points(stones),
                stones.saturating_sub(1)
            );
        }
        for b in HandicapBonus::ALL {
            assert_eq!(b.name().parse::<HandicapBonus>(), Ok(b));
        }
        assert_eq!("n-1".parse::<HandicapBonus>(), Ok(HandicapBonus::NMinusOne));
        assert!("2".parse::<HandicapBonus>().is_err());
    }

    #[test]
    fn katago_json_and_compact_forms() {
        assert_eq!(
            Preset::Chinese.rules().to_katago_json(),
            "{\"friendlyPassOk\":true,\"hasButton\":false,\"ko\":\"POSITIONAL\",\"scoring\":\"AREA\",\
             \"suicide\":false,\"tax\":\"NONE\",\"whiteHandicapBonus\":\"N\"}"
        );
        assert_eq!(
            Preset::Japanese.rules().to_katago_json(),
            "{\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"SIMPLE\",\"scoring\":\"TERRITORY\",\
             \"suicide\":false,\"tax\":\"SEKI\",\"whiteHandicapBonus\":\"0\"}"
        );
        assert_eq!(
            Preset::Aga.rules().to_katago_compact(),
            "koSITUATIONALscoreAREAtaxNONEsui0whbN-1fpok1"
        );
        for p in Preset::ALL {
            let r = p.rules();
            assert_eq!(
                Rules::from_katago_compact(&r.to_katago_compact()),
                Ok(r),
                "{p}"
            );
        }
        // Fields not given are Tromp-Taylor's, in any order, either case.
        assert_eq!(
            Rules::from_katago_compact("scoreTERRITORYkoSIMPLEsui0"),
            Ok(Rules {
                ko: KoRule::Simple,
                suicide_allowed: false,
                scoring: Scoring::Territory,
                ..Preset::TrompTaylor.rules()
            })
        );
        assert_eq!(
            Rules::from_katago_compact("kopositionalscoringareabutton0whbnfpok1"),
            Ok(Rules {
                handicap_bonus: HandicapBonus::N,
                friendly_pass_ok: true,
                ..Preset::TrompTaylor.rules()
            })
        );
        // What tengen does not play, and what is not rules.
        for bad in [
            "koSIMPLEscoreAREAtaxALL",
            "koSIMPLEscoreAREAtaxSEKI",
            "scoreTERRITORYtaxNONE",
            "button1",
            "komi7.5",
            "koFOO",
            "whb2",
            "martian",
            "",
        ] {
            assert!(Rules::from_katago_compact(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn katago_fields_one_by_one() {
        let mut f = KataGoFields::new();
        f.set("ko", "SIMPLE").unwrap();
        f.set("scoring", "TERRITORY").unwrap();
        f.set("tax", "SEKI").unwrap();
        f.set("suicide", "false").unwrap();
        f.set("hasButton", "false").unwrap();
        f.set("whiteHandicapBonus", "N-1").unwrap();
        f.set("friendlyPassOk", "true").unwrap();
        assert_eq!(
            f.finish(),
            Ok(Rules {
                handicap_bonus: HandicapBonus::NMinusOne,
                friendly_pass_ok: true,
                ..Preset::Japanese.rules()
            })
        );
        assert_eq!(
            KataGoFields::new().finish(),
            Ok(Preset::TrompTaylor.rules())
        );
        let mut f = KataGoFields::new();
        assert!(f.set("komi", "7.5").is_err());
        assert!(f.set("color", "red").is_err());
        assert!(f.set("suicide", "maybe").is_err());
        assert!(f.set("whiteHandicapBonus", "N+1").is_err());
        f.set("hasButton", "true").unwrap();
        assert!(f.finish().is_err(), "no button go");
    }

    #[test]
    fn katago_names_are_katagos_presets() {
        let named = |n: &str| KataGoNamedRules::from_name(n).map(|k| k.rules);
        // KataGo's plain chinese is simple ko; its -kgs and -ogs are positional.
        assert_eq!(named("chinese").unwrap().ko, KoRule::Simple);
        assert_eq!(named("Chinese").unwrap().ko, KoRule::Simple);
        assert_eq!(named("chinese-kgs"), Some(Preset::Chinese.rules()));
        assert_eq!(named("CHINESE_OGS"), Some(Preset::Chinese.rules()));
        for (name, preset) in [
            ("japanese", Preset::Japanese),
            ("korean", Preset::Japanese),
            ("aga", Preset::Aga),
            ("bga", Preset::Aga),
            ("french", Preset::Aga),
            ("nz", Preset::NewZealand),
            ("new zealand", Preset::NewZealand),
            ("new_zealand", Preset::NewZealand),
            ("tromp-taylor", Preset::TrompTaylor),
            ("tromptaylor", Preset::TrompTaylor),
            ("goe", Preset::Goe),
            ("ing", Preset::Goe),
        ] {
            assert_eq!(named(name), Some(preset.rules()), "{name}");
        }
        let stone = KataGoNamedRules::from_name("stone-scoring").unwrap();
        assert!(stone.tax_all && !stone.button && stone.rules.ko == KoRule::Simple);
        let button = KataGoNamedRules::from_name("aga button").unwrap();
        assert!(button.button && button.komi == 7.0);
        assert_eq!(
            KataGoNamedRules::from_name("new zealand").unwrap().komi,
            7.0
        );
        assert_eq!(KataGoNamedRules::from_name("korean").unwrap().komi, 6.5);
        // No prefixes or free text, unlike tengen's own names.
        assert_eq!(named(" Japanese "), Some(Preset::Japanese.rules()));
        for bad in [
            "Japanese Rules",
            "cn",
            "tt",
            "chinese, pair go",
            "",
            "new  zealand",
        ] {
            assert_eq!(named(bad), None, "{bad}");
        }
    }

    #[test]
    fn names_and_aliases() {
        for p in Preset::ALL {
            assert_eq!(Preset::from_name(p.name()), Some(p));
        }
        assert_eq!(Preset::from_name("Japanese Rules"), Some(Preset::Japanese));
        assert_eq!(Preset::from_name("new_zealand"), Some(Preset::NewZealand));
        assert_eq!(Preset::from_name("NZ"), Some(Preset::NewZealand));
        assert_eq!(Preset::from_name("Tromp/Taylor"), Some(Preset::TrompTaylor));
        assert_eq!(Preset::from_name("TT--"), Some(Preset::TrompTaylor));
        assert_eq!(Preset::from_name("Chinese, pair go"), Some(Preset::Chinese));
        assert_eq!(Preset::from_name("GOE"), Some(Preset::Goe));
        assert_eq!(Preset::from_name("Ing"), Some(Preset::Goe));
        assert_eq!(Preset::from_name("chinese-kgs"), Some(Preset::Chinese));
        assert_eq!(Preset::from_name("bga"), Some(Preset::Aga));
        assert_eq!(Preset::from_name("Korean"), Some(Preset::Japanese));
        assert_eq!(Preset::from_name("martian"), None);
        assert_eq!(Preset::from_name(""), None);
        for k in KoRule::ALL {
            assert_eq!(k.name().parse::<KoRule>(), Ok(k));
        }
    }
}
