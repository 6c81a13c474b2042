//! Rules as KataGo's clients write them, read once for both front ends:
//! one of KataGo's rule-set names ([`KataGoNamedRules`]), its compact form
//! (`koSIMPLEscoreAREAtaxNONEsui0whbN`), or its JSON (`{"ko":"SIMPLE",…}`,
//! as text or as a JSON object already parsed), read through serde_json and
//! [`KataGoFields`] as KataGo's `Rules::parseRules` reads them: fields not
//! given are Tromp-Taylor's.
//!
//! What tengen does not play — a tax other than its scoring's own, the
//! button — is left out and named in [`ReadRules::ignored`]; each front end
//! says so in its own way (the analysis engine as a warning field, GTP on
//! stderr), and plays the rest.

use crate::go::rules::{KataGoFields, KataGoNamedRules, Rules, Scoring};
use serde_json::{Map, Value};

/// Rules read, with the komi that goes with them.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadRules {
    pub rules: Rules,
    /// The JSON's `komi`, else KataGo's komi for such rules.
    pub komi: f64,
    /// The parts of the rules tengen does not play, in words.
    pub ignored: Vec<String>,
}

impl ReadRules {
    /// The message both front ends give for [`ReadRules::ignored`], or
    /// `None` when nothing was left out.
    pub fn ignored_message(&self) -> Option<String> {
        (!self.ignored.is_empty()).then(|| {
            format!(
                "tengen does not play these parts of the rules, using the rules without them: {}",
                self.ignored.join(", ")
            )
        })
    }
}

/// Whether JSON rules may carry a `komi` (KataGo's analysis queries may;
/// its GTP `kata-set-rules` may not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Komi {
    Allowed,
    Refused,
}

/// Reads rules from text: a name, the compact form, or JSON.
///
/// # Errors
/// Why the text is no rules, in words.
pub fn read_text(text: &str, komi: Komi) -> Result<ReadRules, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty rules".into());
    }
    if text.starts_with('{') {
        return match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => read_object(&o, komi),
            Ok(_) => Err("JSON rules must be an object".into()),
            Err(e) => Err(format!("cannot read JSON rules: {e}")),
        };
    }
    if let Some(named) = KataGoNamedRules::from_name(text) {
        let mut ignored = Vec::new();
        if named.tax_all {
            ignored.push("tax ALL".to_string());
        }
        if named.button {
            ignored.push("hasButton".to_string());
        }
        return Ok(ReadRules {
            rules: named.rules,
            komi: named.komi,
            ignored,
        });
    }
    let (rules, ignored) = KataGoFields::from_katago_compact(text)?.finish_playable();
    Ok(ReadRules {
        rules,
        komi: default_komi(rules.scoring, false),
        ignored,
    })
}

/// Reads KataGo's JSON rules: keys of [`KataGoFields::set`], plus `komi`
/// where allowed. Values may be strings, booleans or numbers.
///
/// # Errors
/// An unknown key or value, a value of another JSON type, or a refused or
/// unusual komi.
pub fn read_object(o: &Map<String, Value>, komi: Komi) -> Result<ReadRules, String> {
    let mut fields = KataGoFields::new();
    let mut komi_set = None;
    for (key, value) in o {
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            _ => return Err(format!("{key}: {value} is no rules value")),
        };
        if key == "komi" && komi == Komi::Allowed {
            let k = value
                .as_f64()
                .filter(|k| (-400.0..=400.0).contains(k) && (k * 2.0).fract() == 0.0)
                .ok_or("Komi value is not a half-integer or is too extreme")?;
            komi_set = Some(k);
        } else {
            fields.set(key, &text)?;
        }
    }
    let button = fields.has_button();
    let (rules, ignored) = fields.finish_playable();
    Ok(ReadRules {
        rules,
        komi: komi_set.unwrap_or(default_komi(rules.scoring, button)),
        ignored,
    })
}

/// KataGo's komi for rules given without one: 6.5 under territory scoring,
/// 7 with the button, else 7.5.
fn default_komi(scoring: Scoring, button: bool) -> f64 {
    match (scoring, button) {
        (Scoring::Territory, _) => 6.5,
        (_, true) => 7.0,
        _ => 7.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::rules::{KoRule, Preset};

    #[test]
    fn names_compact_forms_and_json_read_alike() {
        let json = read_text(
            r#"{"ko":"POSITIONAL","scoring":"AREA","tax":"NONE","suicide":false,"whiteHandicapBonus":"N"}"#,
            Komi::Refused,
        )
        .unwrap();
        let compact = read_text("koPOSITIONALscoreAREAtaxNONEsui0whbN", Komi::Refused).unwrap();
        assert_eq!(json, compact);
        assert!(json.ignored.is_empty());
        let japanese = read_text("Japanese", Komi::Refused).unwrap();
        assert_eq!(japanese.rules, Preset::Japanese.rules());
        assert_eq!(japanese.komi, 6.5);
        // KataGo's plain `chinese` is simple ko.
        assert_eq!(
            read_text("chinese", Komi::Refused).unwrap().rules.ko,
            KoRule::Simple
        );
    }

    #[test]
    fn what_tengen_does_not_play_is_left_out_and_named() {
        for (text, left_out) in [
            (r#"{"scoring":"AREA","tax":"ALL"}"#, "tax ALL"),
            (r#"{"scoring":"TERRITORY","tax":"NONE"}"#, "tax NONE"),
            (r#"{"hasButton":true}"#, "hasButton"),
            ("stone-scoring", "tax ALL"),
            ("aga-button", "hasButton"),
            ("koSIMPLEscoreAREAtaxALLsui0", "tax ALL"),
        ] {
            let read = read_text(text, Komi::Refused).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(read.ignored, [left_out], "{text}");
            assert!(read.ignored_message().unwrap().contains(left_out));
        }
        // A komi given wins over the button's own (7).
        let button = read_text(r#"{"hasButton":true,"komi":5.5}"#, Komi::Allowed).unwrap();
        assert_eq!(button.komi, 5.5);
        assert_eq!(
            read_text(r#"{"hasButton":true}"#, Komi::Allowed)
                .unwrap()
                .komi,
            7.0
        );
        assert!(read_text(r#"{"hasButton":false}"#, Komi::Refused)
            .unwrap()
            .ignored
            .is_empty());
    }

    #[test]
    fn malformed_rules_are_errors() {
        for bad in [
            "",
            "martian",
            r#"{"ko":"FOO"}"#,
            r#"{"colour":"red"}"#,
            r#"{"whiteHandicapBonus":"2"}"#,
            r#"{"tax":"SOME"}"#,
            r#"{"ko":["SIMPLE"]}"#,
            r#"{"ko":"SIMPLE""#,
            "[1]",
            "koSIMPLEscoreAREAtaxMANY",
        ] {
            assert!(read_text(bad, Komi::Allowed).is_err(), "{bad}");
        }
        assert!(read_text(r#"{"komi":7.5}"#, Komi::Refused).is_err());
        assert!(read_text(r#"{"komi":7.25}"#, Komi::Allowed).is_err());
        assert_eq!(
            read_text(r#"{"komi":5.5}"#, Komi::Allowed).unwrap().komi,
            5.5
        );
    }
}
