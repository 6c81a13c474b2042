//! KataGo's run-time parameters over GTP: `kata-list-params`,
//! `kata-get-param`, `kata-get-params`, `kata-set-param` and
//! `kata-set-params`, for the parameters tengen's GTP engine has (visits,
//! time, resignation, pondering, root symmetry pruning, the human-SL
//! profile). Values are read as KataGo's config parser reads them and
//! written as KataGo writes them; a change applies from the next command on.

use super::args::text;
use super::protocol::{Command, GtpError};
use super::session::{Entry, Reply, Session};
use crate::katago::limits::SearchLimits;
use crate::katago::values::{boolean, cpp_double};
use crate::nn::metadata::SgfMetadata;

pub static PARAM_COMMANDS: &[Entry] = &[
    Entry {
        name: "kata-list-params",
        handler: cmd_kata_list_params,
    },
    Entry {
        name: "kata-get-param",
        handler: cmd_kata_get_param,
    },
    Entry {
        name: "kata-get-params",
        handler: cmd_kata_get_params,
    },
    Entry {
        name: "kata-set-param",
        handler: cmd_kata_set_param,
    },
    Entry {
        name: "kata-set-params",
        handler: cmd_kata_set_params,
    },
];

/// Every parameter, in KataGo's listing order (its own ones first, then the
/// search's).
const NAMES: &[&str] = &[
    "humanSLProfile",
    "allowResignation",
    "ponderingEnabled",
    "maxPlayouts",
    "maxTime",
    "maxVisits",
    "rootSymmetryPruning",
];

/// One parameter's new value, read and checked.
#[derive(Clone, Debug, PartialEq)]
enum Setting {
    HumanProfile(String, Option<SgfMetadata>),
    AllowResignation(bool),
    Pondering(bool),
    /// `maxVisits`, `maxPlayouts` or `maxTime` (checked), read by
    /// [`SearchLimits`] as the analysis engine reads them.
    Limit(String, String),
    RootSymmetryPruning(bool),
}

impl Setting {
    /// Reads `value` for `key`, in KataGo's words when it cannot.
    fn read(key: &str, value: &str) -> Result<Setting, String> {
        let message = |e: crate::katago::values::SettingError| e.message;
        Ok(match key {
            "humanSLProfile" => Setting::HumanProfile(
                value.to_string(),
                SgfMetadata::profile(value).map_err(|e| format!("humanSLProfile: {e}"))?,
            ),
            "allowResignation" => Setting::AllowResignation(boolean(key, value).map_err(message)?),
            "ponderingEnabled" => Setting::Pondering(boolean(key, value).map_err(message)?),
            "maxVisits" | "maxPlayouts" | "maxTime" => {
                SearchLimits::default().apply(key, value).map_err(message)?;
                Setting::Limit(key.to_string(), value.to_string())
            }
            "rootSymmetryPruning" => {
                Setting::RootSymmetryPruning(boolean(key, value).map_err(message)?)
            }
            _ => {
                return Err(format!(
                    "Unrecognized or non-overridable parameter in kata-set-params: {key}"
                ))
            }
        })
    }

    fn apply(self, s: &mut Session) -> Result<(), String> {
        match self {
            Setting::HumanProfile(name, profile) => {
                for evaluator in [s.network.as_mut(), s.human_network.as_mut()]
                    .into_iter()
                    .flatten()
                {
                    evaluator.set_metadata(profile);
                }
                s.engine.set_human_profile(profile)?;
                s.options.human_profile = name;
            }
            Setting::AllowResignation(on) => s.options.allow_resignation = on,
            Setting::Pondering(on) => s.options.ponder = on,
            Setting::Limit(key, value) => {
                s.search_limits.apply(&key, &value).map_err(|e| e.message)?;
            }
            Setting::RootSymmetryPruning(on) => s.options.root_symmetry_pruning = on,
        }
        Ok(())
    }
}

/// A parameter's value as JSON text, as KataGo's `kata-get-params` gives it:
/// its own parameters as strings, the search's as numbers and booleans.
fn json_value(s: &Session, key: &str) -> Option<String> {
    let quoted = |v: &str| serde_json::Value::from(v).to_string();
    let flag = |on: bool| if on { "true" } else { "false" };
    Some(match key {
        "humanSLProfile" => quoted(&s.options.human_profile),
        "allowResignation" => quoted(flag(s.options.allow_resignation)),
        "ponderingEnabled" => quoted(flag(s.options.ponder)),
        "maxVisits" | "maxPlayouts" => (s.search_limits.reported(key)? as u64).to_string(),
        "maxTime" => cpp_double(s.search_limits.reported(key)?),
        "rootSymmetryPruning" => flag(s.options.root_symmetry_pruning).to_string(),
        _ => return None,
    })
}

/// `kata-list-params` → the parameters, space-separated.
fn cmd_kata_list_params(_: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    text(NAMES.join(" "))
}

/// `kata-get-param KEY` → its value (strings without quotes).
fn cmd_kata_get_param(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let [key] = cmd.args.as_slice() else {
        return Err(GtpError::new(format!(
            "Expected one arguments for kata-get-param but got '{}'",
            cmd.args.join(" ")
        )));
    };
    let value =
        json_value(s, key).ok_or_else(|| GtpError::new(format!("Invalid parameter: {key}")))?;
    let plain = serde_json::from_str::<String>(&value).unwrap_or(value);
    text(plain)
}

/// `kata-get-params` → every parameter in one JSON object, keys sorted.
fn cmd_kata_get_params(s: &mut Session, _: &Command) -> Result<Reply, GtpError> {
    let mut keys = NAMES.to_vec();
    keys.sort_unstable();
    let fields: Vec<String> = keys
        .iter()
        .filter_map(|k| json_value(s, k).map(|v| format!("\"{k}\":{v}")))
        .collect();
    text(format!("{{{}}}", fields.join(",")))
}

/// `kata-set-param KEY [VALUE]` (no value: empty, which clears the
/// human-SL profile).
fn cmd_kata_set_param(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    let (key, value) = match cmd.args.as_slice() {
        [key] => (key.as_str(), ""),
        [key, value] => (key.as_str(), value.as_str()),
        _ => {
            return Err(GtpError::new(format!(
                "Expected one or two arguments for kata-set-param but got '{}'",
                cmd.args.join(" ")
            )))
        }
    };
    set_all(s, &[(key.to_string(), value.to_string())])
}

/// `kata-set-params {"KEY": VALUE, …}`: all or none.
fn cmd_kata_set_params(s: &mut Session, cmd: &Command) -> Result<Reply, GtpError> {
    if cmd.args.is_empty() {
        return Err(GtpError::new(
            "Expected argument for kata-set-param but got ''",
        ));
    }
    let object: serde_json::Value = serde_json::from_str(&cmd.args.join(" "))
        .map_err(|e| GtpError::new(format!("Could not set params: {e}")))?;
    let Some(object) = object.as_object() else {
        return Err(GtpError::new(
            "Could not set params: Argument to kata-set-params must be a json object",
        ));
    };
    let pairs: Vec<(String, String)> = object
        .iter()
        .map(|(k, v)| {
            let value = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            (k.clone(), value)
        })
        .collect();
    set_all(s, &pairs)
}

/// Reads every pair first and applies them only when all are good.
fn set_all(s: &mut Session, pairs: &[(String, String)]) -> Result<Reply, GtpError> {
    let fail = |e: String| GtpError::new(format!("Could not set params: {e}"));
    let settings = pairs
        .iter()
        .map(|(k, v)| Setting::read(k, v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    for setting in settings {
        setting.apply(s).map_err(fail)?;
    }
    text("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_as_katago_reads_them() {
        assert_eq!(
            Setting::read("maxVisits", "400"),
            Ok(Setting::Limit("maxVisits".into(), "400".into()))
        );
        assert!(Setting::read("maxTime", "-1").is_err());
        assert_eq!(
            Setting::read("allowResignation", "FALSE"),
            Ok(Setting::AllowResignation(false))
        );
        assert_eq!(
            Setting::read("rootSymmetryPruning", "maybe"),
            Err("Could not parse 'maybe' as bool for key 'rootSymmetryPruning'".into())
        );
        assert_eq!(
            Setting::read("maxVisits", "0"),
            Err("Key 'maxVisits' must be in the range 1 to 1125899906842624".into())
        );
        assert_eq!(
            Setting::read("wideRootNoise", "0.04"),
            Err(
                "Unrecognized or non-overridable parameter in kata-set-params: wideRootNoise"
                    .into()
            )
        );
        assert!(Setting::read("humanSLProfile", "rank_99x").is_err());
        assert_eq!(
            Setting::read("humanSLProfile", ""),
            Ok(Setting::HumanProfile(String::new(), None))
        );
    }
}
