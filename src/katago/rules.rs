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
    /// Whether the text gave a komi (JSON only).
    pub komi_given: bool,
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
            komi_given: false,
            ignored,
        });
    }
    let (rules, ignored) = read_compact(text)?;
    Ok(ReadRules {
        rules,
        komi: default_komi(rules.scoring, false),
        komi_given: false,
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
    let mut tax = None;
    let mut button = false;
    for (key, value) in o {
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            _ => return Err(format!("{key}: {value} is no rules value")),
        };
        match key.as_str() {
            "komi" if komi == Komi::Allowed => {
                let k = value
                    .as_f64()
                    .filter(|k| (-400.0..=400.0).contains(k) && (k * 2.0).fract() == 0.0)
                    .ok_or("Komi value is not a half-integer or is too extreme")?;
                komi_set = Some(k);
            }
            "tax" => {
                // Checked here, applied once the scoring is known.
                KataGoFields::new().set("tax", &text)?;
                tax = Some(text.to_ascii_uppercase());
            }
            "hasButton" => {
                let mut probe = KataGoFields::new();
                probe.set("hasButton", &text)?;
                button = probe.finish().is_err();
            }
            _ => fields.set(key, &text)?,
        }
    }
    let (rules, ignored) = finish(fields, tax, button)?;
    Ok(ReadRules {
        rules,
        komi: komi_set.unwrap_or(default_komi(rules.scoring, button)),
        komi_given: komi_set.is_some(),
        ignored,
    })
}

/// Reads KataGo's compact form, leaving out a tax or button tengen does not
/// play (each is cut from the text before the rest is read).
fn read_compact(text: &str) -> Result<(Rules, Vec<String>), String> {
    let mut rest = text.trim().to_ascii_lowercase();
    let mut cut = |field: &str, values: &[&str]| -> Option<String> {
        let at = rest.find(field)?;
        let after = &rest[at + field.len()..];
        let value = values.iter().find(|v| after.starts_with(*v))?.to_string();
        rest.replace_range(at..at + field.len() + value.len(), "");
        Some(value)
    };
    let tax = cut("tax", &["none", "seki", "all"]);
    let button = cut("button", &["1", "0"]).is_some_and(|b| b == "1");
    let mut fields = KataGoFields::new();
    if !rest.is_empty() {
        fields = KataGoFields::from_rules(Rules::from_katago_compact(&rest)?);
    }
    finish(fields, tax.map(|t| t.to_ascii_uppercase()), button)
}

/// The rules `fields` hold, the tax and button left out where tengen does
/// not play them.
fn finish(
    fields: KataGoFields,
    tax: Option<String>,
    button: bool,
) -> Result<(Rules, Vec<String>), String> {
    let rules = fields.finish()?;
    let mut ignored = Vec::new();
    if let Some(tax) = tax {
        if tax != rules.katago_tax() {
            ignored.push(format!("tax {tax}"));
        }
    }
    if button {
        ignored.push("hasButton".to_string());
    }
    Ok((rules, ignored))
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
        let button = read_text(r#"{"hasButton":true,"komi":7}"#, Komi::Allowed).unwrap();
        assert_eq!((button.komi, button.komi_given), (7.0, true));
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
