//! Rule sets: the ko rule, suicide, scoring method and default komi, with the
//! named presets that servers and SGF files use.
//!
//! `Rules` is a small `Copy` value passed in explicitly; nothing here knows
//! about boards. Komi is *not* part of `Rules` (GTP's `komi` must survive rule
//! changes); a preset only suggests a default.

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

/// A complete rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub ko: KoRule,
    /// Multi-stone suicide allowed. Single-stone suicide is never legal.
    pub suicide_allowed: bool,
    pub scoring: Scoring,
}

/// The named presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Positional superko, area scoring: Chinese rules as KGS and OGS implement them.
    Chinese,
    /// Simple ko, territory scoring.
    Japanese,
    /// Situational superko, area scoring.
    Aga,
    /// Situational superko, multi-stone suicide allowed, area scoring.
    NewZealand,
    /// Positional superko, multi-stone suicide allowed, area scoring.
    TrompTaylor,
}

impl Preset {
    pub const ALL: [Preset; 5] = [
        Preset::Chinese,
        Preset::Japanese,
        Preset::Aga,
        Preset::NewZealand,
        Preset::TrompTaylor,
    ];

    /// The rules of this preset.
    pub fn rules(self) -> Rules {
        let (ko, suicide_allowed, scoring) = match self {
            Preset::Chinese => (KoRule::Positional, false, Scoring::Area),
            Preset::Japanese => (KoRule::Simple, false, Scoring::Territory),
            Preset::Aga => (KoRule::Situational, false, Scoring::Area),
            Preset::NewZealand => (KoRule::Situational, true, Scoring::Area),
            Preset::TrompTaylor => (KoRule::Positional, true, Scoring::Area),
        };
        Rules {
            ko,
            suicide_allowed,
            scoring,
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
        }
    }

    /// Reads a rule-set name as written by people, servers and SGF `RU`:
    /// case-insensitive, with aliases (`nz`, `new_zealand`, `tt`, `korean`,
    /// `goe`/`ing` → Tromp-Taylor-like, `chinese-kgs`, `Japanese Rules`, …).
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
            "tromp-taylor" | "tt" | "tromptaylor" | "goe" | "ing" => Some(Preset::TrompTaylor),
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
                ("goe", Preset::TrompTaylor),
                ("ing", Preset::TrompTaylor),
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
    /// Chinese rules as servers use them: positional superko, area scoring.
    fn default() -> Rules {
        Preset::Chinese.rules()
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
        assert_eq!(Preset::from_name("GOE"), Some(Preset::TrompTaylor));
        assert_eq!(Preset::from_name("Korean"), Some(Preset::Japanese));
        assert_eq!(Preset::from_name("martian"), None);
        assert_eq!(Preset::from_name(""), None);
        for k in KoRule::ALL {
            assert_eq!(k.name().parse::<KoRule>(), Ok(k));
        }
    }
}
