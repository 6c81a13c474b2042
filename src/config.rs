//! Command-line options shared by the subcommands: the rule flags that both the
//! engine and `tengen check` take, and how they resolve to [`Rules`].

use crate::go::rules::{KoRule, Preset, Rules};
use clap::{Args, ValueEnum};

/// `--suicide` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuicideArg {
    Allowed,
    Forbidden,
}

/// `--ko` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KoArg {
    Simple,
    Positional,
    Situational,
    NaturalSituational,
}

impl From<KoArg> for KoRule {
    fn from(k: KoArg) -> KoRule {
        match k {
            KoArg::Simple => KoRule::Simple,
            KoArg::Positional => KoRule::Positional,
            KoArg::Situational => KoRule::Situational,
            KoArg::NaturalSituational => KoRule::NaturalSituational,
        }
    }
}

/// `--rules` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesArg {
    Chinese,
    Japanese,
    Aga,
    NewZealand,
    TrompTaylor,
    Goe,
}

impl From<RulesArg> for Preset {
    fn from(r: RulesArg) -> Preset {
        match r {
            RulesArg::Chinese => Preset::Chinese,
            RulesArg::Japanese => Preset::Japanese,
            RulesArg::Aga => Preset::Aga,
            RulesArg::NewZealand => Preset::NewZealand,
            RulesArg::TrompTaylor => Preset::TrompTaylor,
            RulesArg::Goe => Preset::Goe,
        }
    }
}

/// The rule flags: a preset, and overrides of its parts.
#[derive(Args, Clone, Debug, Default)]
pub struct RuleArgs {
    /// Rule preset: chinese (positional superko, area, White gets N points
    /// for N handicap stones), japanese (simple ko, territory), aga
    /// (situational superko, area, N-1 points), new-zealand (situational,
    /// suicide allowed), tromp-taylor (positional, suicide allowed, dead
    /// stones must be captured), goe (tromp-taylor with a friendly pass).
    #[arg(long, value_enum)]
    pub rules: Option<RulesArg>,
    /// Override the preset's ko rule.
    #[arg(long, value_enum)]
    pub ko: Option<KoArg>,
    /// Override the preset's multi-stone suicide rule (single-stone suicide is never legal).
    #[arg(long, value_enum)]
    pub suicide: Option<SuicideArg>,
}

impl RuleArgs {
    /// Whether `--rules` was given (for `check`: it then overrides SGF `RU`).
    pub fn preset(&self) -> Option<Preset> {
        self.rules.map(Preset::from)
    }

    /// Applies the `--ko` and `--suicide` overrides to `rules`.
    pub fn apply_overrides(&self, mut rules: Rules) -> Rules {
        if let Some(k) = self.ko {
            rules.ko = k.into();
        }
        if let Some(s) = self.suicide {
            rules.suicide_allowed = s == SuicideArg::Allowed;
        }
        rules
    }

    /// The rules these flags give, starting from `default` when no preset is named.
    pub fn resolve(&self, default: Preset) -> Rules {
        self.apply_overrides(self.preset().unwrap_or(default).rules())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::Scoring;

    #[test]
    fn overrides_apply_to_the_preset() {
        let args = RuleArgs {
            rules: Some(RulesArg::Japanese),
            ko: Some(KoArg::Situational),
            suicide: Some(SuicideArg::Allowed),
        };
        let r = args.resolve(Preset::Chinese);
        assert_eq!(r.ko, KoRule::Situational);
        assert!(r.suicide_allowed);
        assert_eq!(r.scoring, Scoring::Territory);
        assert_eq!(
            RuleArgs::default().resolve(Preset::Chinese),
            Preset::Chinese.rules()
        );
    }
}
