//! KataGo's configuration values read and written as KataGo reads and
//! writes them (its `ConfigParser`): whole numbers, doubles and booleans with
//! KataGo's error words, and doubles printed as C++ prints them. Both front
//! ends use them: the JSON analysis engine's config and `overrideSettings`,
//! and GTP's `kata-set-param`.

/// A net as KataGo describes it in `kata-get-models` and the analysis
/// engine's `query_models`: `name` (the file it was given), `internalName`,
/// `maxBatchSize` (tengen's batch for it), `usesHumanSLProfile`, `version`,
/// and `usingFP16` (`"false"`: tengen's reduced kind is bf16, which KataGo's
/// field has no word for).
pub fn model_json(name: &str, net: &crate::nn::Network) -> serde_json::Value {
    serde_json::json!({
        "name": name,
        "internalName": net.name(),
        "maxBatchSize": crate::search::network::DEFAULT_BATCH,
        "usesHumanSLProfile": net.needs_metadata(),
        "version": net.version(),
        "usingFP16": "false",
    })
}

/// The models a front end runs, main net first, as `kata-get-models` and `query_models` list
/// them: each `(name, net)` with a net loaded.
pub fn model_list<'a>(
    nets: impl IntoIterator<Item = (String, Option<&'a crate::nn::Network>)>,
) -> Vec<serde_json::Value> {
    nets.into_iter()
        .filter_map(|(name, net)| net.map(|net| model_json(&name, net)))
        .collect()
}

/// KataGo's bound on visit counts (`maxVisits`, `maxPlayouts`): its "no
/// limit".
pub const MAX_VISITS: u64 = 1 << 50;

/// KataGo's bound on `maxTime`, in seconds: its "no limit".
pub const MAX_TIME: f64 = 1e20;

/// A setting KataGo's config parser refuses, in its words: a value out of
/// range or unreadable, whose message KataGo ends with the config file it
/// read (`… in config file F`), or an unknown choice, whose message it does
/// not.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingError {
    pub message: String,
    pub names_file: bool,
}

impl SettingError {
    pub fn in_file(message: String) -> SettingError {
        SettingError {
            message,
            names_file: true,
        }
    }

    pub fn plain(message: String) -> SettingError {
        SettingError {
            message,
            names_file: false,
        }
    }

    /// The message as KataGo words it when reading `file` (a path, or for a
    /// query's `overrideSettings` KataGo's "PATH and/or command-line and
    /// query overrides").
    pub fn describe(&self, file: &str) -> String {
        if self.names_file {
            format!("{} in config file {file}", self.message)
        } else {
            self.message.clone()
        }
    }
}

/// A whole number in `min..=max` (KataGo's `getInt64`).
pub fn integer(key: &str, value: &str, min: i64, max: i64) -> Result<i64, SettingError> {
    let v = value.trim().parse::<i64>().map_err(|_| {
        SettingError::in_file(format!(
            "Could not parse '{value}' as int64_t for key '{key}'"
        ))
    })?;
    if !(min..=max).contains(&v) {
        return Err(SettingError::in_file(format!(
            "Key '{key}' must be in the range {min} to {max}"
        )));
    }
    Ok(v)
}

/// A finite number in `min..=max` (KataGo's `getDouble`).
pub fn number(key: &str, value: &str, min: f64, max: f64) -> Result<f64, SettingError> {
    let v = value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            SettingError::in_file(format!(
                "Could not parse '{value}' as double for key '{key}'"
            ))
        })?;
    if !(min..=max).contains(&v) {
        return Err(SettingError::in_file(format!(
            "Key '{key}' must be in the range {} to {}",
            cpp_double(min),
            cpp_double(max)
        )));
    }
    Ok(v)
}

/// `x` as C++'s `ostream << double` writes it (KataGo's
/// `Global::doubleToString`): `%g` with 6 significant digits, so `0`,
/// `0.001`, `1e+20`.
pub fn cpp_double(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exponent = x.abs().log10().floor() as i32;
    let trim = |t: String| {
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t
        }
    };
    if (-4..6).contains(&exponent) {
        let decimals = (5 - exponent).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    } else {
        let scientific = format!("{x:.5e}");
        let (mantissa, exp) = scientific.split_once('e').unwrap_or((&scientific, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs())
    }
}

/// `true` or `false` (any case), as KataGo reads booleans.
pub fn boolean(key: &str, value: &str) -> Result<bool, SettingError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "1" | "yes" | "y" => Ok(true),
        "false" | "f" | "0" | "no" | "n" => Ok(false),
        _ => Err(SettingError::in_file(format!(
            "Could not parse '{value}' as bool for key '{key}'"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_are_written_as_cpp_writes_them() {
        for (x, text) in [
            (0.0, "0"),
            (1e20, "1e+20"),
            (0.001, "0.001"),
            (1e6, "1e+06"),
            (100000.0, "100000"),
            (2.0, "2"),
            (0.01, "0.01"),
            (-400.0, "-400"),
            (1.5e-5, "1.5e-05"),
            (123456.7, "123457"),
        ] {
            assert_eq!(cpp_double(x), text, "{x}");
        }
    }
}
