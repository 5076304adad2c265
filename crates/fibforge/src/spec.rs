//! The algorithm specification grammar: `name` or `name:key=value,key=value`, and lists of
//! them (`poptrie:s=18,aggregate=off,dxr16`).

use crate::fib::BuildError;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// An algorithm name with options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlgoSpec {
    /// The algorithm's name.
    pub name: String,
    /// Options as given (`key=value`).
    pub options: BTreeMap<String, String>,
}

/// A malformed algorithm specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid algorithm '{text}': {reason}")]
pub struct SpecError {
    text: String,
    reason: String,
}

impl FromStr for AlgoSpec {
    type Err = SpecError;
    /// Strict: no whitespace anywhere, a non-empty name, and after a `:` one or more
    /// `key=value` options, each key once and neither side empty (a lenient parse let
    /// `"poptrie "`, `"poptrie:"` and `"poptrie:s=16,s=18"` through, the last one silently
    /// keeping one of the two values).
    fn from_str(text: &str) -> Result<Self, SpecError> {
        let err = |reason: String| SpecError { text: text.into(), reason };
        if let Some(at) = text.find(char::is_whitespace) {
            return Err(err(format!("whitespace at byte {at} (a spec has none)")));
        }
        let (name, opts) = match text.split_once(':') {
            Some((name, opts)) => (name, Some(opts)),
            None => (text, None),
        };
        if name.is_empty() {
            return Err(err("empty name".into()));
        }
        let options = match opts {
            None => BTreeMap::new(),
            Some("") => return Err(err("no options after ':' (drop the ':')".into())),
            Some(opts) => parse_options(opts).map_err(err)?,
        };
        Ok(AlgoSpec { name: name.to_string(), options })
    }
}

/// The `key=value,...` list after the name's `:`; the reason when malformed.
fn parse_options(opts: &str) -> Result<BTreeMap<String, String>, String> {
    let mut options = BTreeMap::new();
    for kv in opts.split(',') {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(match kv {
                "" => "empty option (two commas in a row, or a trailing comma)".into(),
                _ => format!("option `{kv}` is not key=value"),
            });
        };
        if k.is_empty() || v.is_empty() {
            return Err(format!("option `{kv}` has an empty key or value"));
        }
        if options.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("option `{k}` given twice"));
        }
    }
    Ok(options)
}

impl fmt::Display for AlgoSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

impl AlgoSpec {
    /// A spec without options.
    pub fn named(name: &str) -> Self {
        AlgoSpec { name: name.into(), options: BTreeMap::new() }
    }

    /// Adds or replaces an option.
    pub fn with(mut self, key: &str, value: impl ToString) -> Self {
        self.options.insert(key.into(), value.to_string());
        self
    }

    /// Errors on any option not in `known`.
    #[doc(hidden)]
    pub fn check_options(&self, algo: &'static str, known: &[&str]) -> Result<(), BuildError> {
        match self.options.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(BuildError::BadOption {
                algo,
                option: k.clone(),
                reason: format!("unknown option (known: {})", known.join(", ")),
            }),
        }
    }

    /// An unsigned option, or `default` when absent.
    #[doc(hidden)]
    pub fn get_u32(&self, algo: &'static str, key: &str, default: u32) -> Result<u32, BuildError> {
        match self.options.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| bad(algo, key, v, "expected an unsigned integer")),
        }
    }

    /// A float option, or `default` when absent.
    #[doc(hidden)]
    pub fn get_f64(&self, algo: &'static str, key: &str, default: f64) -> Result<f64, BuildError> {
        match self.options.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| bad(algo, key, v, "expected a number")),
        }
    }

    /// A boolean option (`on/off`, `true/false`, `1/0`, `yes/no`), or `default`.
    #[doc(hidden)]
    pub fn get_bool(
        &self,
        algo: &'static str,
        key: &str,
        default: bool,
    ) -> Result<bool, BuildError> {
        match self.options.get(key).map(|s| s.as_str()) {
            None => Ok(default),
            Some("on" | "true" | "1" | "yes") => Ok(true),
            Some("off" | "false" | "0" | "no") => Ok(false),
            Some(v) => Err(bad(algo, key, v, "expected on or off")),
        }
    }
}

impl AlgoSpec {
    /// Parses a comma-separated algorithm list (see [`split_list`]).
    pub fn parse_list(list: &str) -> Result<Vec<AlgoSpec>, SpecError> {
        split_list(list).iter().map(|p| p.parse()).collect()
    }
}

/// The error of an option value that does not parse.
pub(crate) fn bad(algo: &'static str, key: &str, value: &str, why: &str) -> BuildError {
    BuildError::BadOption { algo, option: format!("{key}={value}"), reason: why.into() }
}

/// Splits a comma-separated algorithm list; a `key=value` piece without a name continues the
/// options of the algorithm before it (`poptrie:s=18,aggregate=off,dxr16` is two algorithms,
/// `loop:pmt=packed,build=incremental` one). Whitespace around a piece and empty pieces are
/// list formatting and dropped (`"poptrie, dxr16"`); each piece then parses strictly as an
/// [`AlgoSpec`].
#[doc(hidden)]
pub fn split_list(list: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match pieces.last_mut() {
            Some(last) if piece.contains('=') && !piece.contains(':') && last.contains(':') => {
                last.push(',');
                last.push_str(piece);
            }
            _ => pieces.push(piece.to_string()),
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        let s: AlgoSpec = "poptrie:s=18,aggregate=off".parse().unwrap();
        assert_eq!(s.name, "poptrie");
        assert_eq!(s.get_u32("poptrie", "s", 16).unwrap(), 18);
        assert!(!s.get_bool("poptrie", "aggregate", true).unwrap());
        assert_eq!(s.to_string(), "poptrie:aggregate=off,s=18");
        assert!("poptrie:s".parse::<AlgoSpec>().is_err());
        assert!("".parse::<AlgoSpec>().is_err());
        assert!(s.check_options("poptrie", &["s"]).is_err());
    }

    #[test]
    fn options_after_a_comma_stay_with_their_algorithm() {
        let got = split_list("loop:pmt=packed,build=incremental,sail_m,per_table:algo=dxr16");
        assert_eq!(got, ["loop:pmt=packed,build=incremental", "sail_m", "per_table:algo=dxr16"]);
        assert_eq!(
            split_list("poptrie:s=18,aggregate=off,dxr16"),
            ["poptrie:s=18,aggregate=off", "dxr16"]
        );
        assert_eq!(split_list("loop"), ["loop"]);
        assert!(split_list(" , ").is_empty());
        let list = AlgoSpec::parse_list("poptrie:s=18, aggregate=off ,dxr16").unwrap();
        assert_eq!(list, ["poptrie:s=18,aggregate=off".parse().unwrap(), AlgoSpec::named("dxr16")]);
        let e = AlgoSpec::parse_list("poptrie:s=16,s=18,dxr16").unwrap_err().to_string();
        assert!(e.contains("option `s` given twice"), "{e}");
    }

    #[test]
    fn malformed_specs_are_refused_naming_the_problem() {
        for (bad, why) in [
            ("poptrie ", "whitespace at byte 7"),
            (" poptrie", "whitespace at byte 0"),
            ("poptrie: s=16", "whitespace"),
            ("poptrie:s =16", "whitespace"),
            ("poptrie:s=16\t", "whitespace"),
            ("poptrie:", "no options after ':'"),
            (":s=16", "empty name"),
            ("poptrie:s=16,,aggregate=off", "empty option"),
            ("poptrie:s=16,", "empty option"),
            ("poptrie:,s=16", "empty option"),
            ("poptrie:s", "option `s` is not key=value"),
            ("poptrie:s=16,aggregate", "option `aggregate` is not key=value"),
            ("poptrie:=16", "empty key or value"),
            ("poptrie:s=", "empty key or value"),
            ("poptrie:s=16,s=18", "option `s` given twice"),
            ("poptrie:s=16,s=16", "option `s` given twice"),
        ] {
            let e = bad.parse::<AlgoSpec>().expect_err(bad).to_string();
            assert!(e.contains(why), "{bad:?}: {e}");
            assert!(e.contains(&format!("'{bad}'")), "{bad:?}: the message quotes the spec: {e}");
        }
    }

    #[test]
    fn well_formed_specs_still_parse() {
        for good in ["poptrie", "poptrie:s=16", "bplus:dir=off,delta=64", "a:k=v=w", "p:k=a:b"] {
            let spec: AlgoSpec = good.parse().unwrap_or_else(|e| panic!("{good}: {e}"));
            assert_eq!(spec.to_string().parse::<AlgoSpec>(), Ok(spec), "{good}");
        }
    }
}
