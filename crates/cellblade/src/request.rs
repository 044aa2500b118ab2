//! The one path every request takes from a front to a program: the front gives the machine
//! choice and the request's fields as data, [`parse`] turns the fields into the program's typed
//! request (each program owns its type, defaults and limits beside it: `stats::StatsParams`,
//! `coll::request`, `affinity::request`, `calibrate`, `reproduce`, `bench`), [`answer`]
//! resolves the machine, runs the request and returns its output with the machine it ran on.
//!
//! A value that does not even parse (a negative count, text for a number, an unknown field) is
//! reported like a value the program refuses: the field, the value, what is allowed.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{config_err, field_err, field_msg, Error, Result};
use crate::machine::config::{self, MachineFile};

/// A program's typed request.
pub trait Request: DeserializeOwned {
    /// Its name in error messages ("coll run").
    const NAME: &'static str;
    /// Whether the output depends on the machine (the answer then carries the machine's TOML).
    const USES_MACHINE: bool = true;
    type Output: Serialize;

    /// What field `field` allows, in words (`1 to 16`), for values that do not parse; `None`
    /// falls back to the words for the field's type.
    fn allowed(field: &str) -> Option<String> {
        let _ = field;
        None
    }

    fn run(self, machine: &MachineFile) -> Result<Self::Output>;
}

/// The machine preset a request runs on when it names none.
pub const DEFAULT_PRESET: &str = "qs20";

/// Which machine a request runs on: a preset or the text of a machine file, never both, with
/// `section.key=value` overrides applied.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MachineChoice {
    /// A preset name ("qs20", "qs22"); [`DEFAULT_PRESET`] when neither this nor `toml` is given.
    pub preset: Option<String>,
    /// The text of a machine file.
    pub toml: Option<String>,
    /// Overrides, `section.key=value`.
    pub set: Vec<String>,
}

impl MachineChoice {
    pub fn resolve(&self) -> Result<MachineFile> {
        let text = match (&self.preset, &self.toml) {
            (Some(_), Some(_)) => return Err(config_err("choose a machine preset or a machine file, not both")),
            (_, Some(t)) => t.as_str(),
            (p, None) => config::preset_text(p.as_deref().unwrap_or(DEFAULT_PRESET))?,
        };
        config::load(text, &self.set)
    }
}

/// A request's output and the resolved machine file it ran on (None for outputs that do not
/// depend on the machine).
#[derive(Debug, Serialize)]
pub struct Answer<T> {
    pub result: T,
    pub machine_toml: Option<String>,
}

/// The typed request `R` from its fields.
pub fn parse<R: Request>(fields: Value) -> Result<R> {
    let shown = fields.clone();
    serde_path_to_error::deserialize(fields).map_err(|e| serde_error::<R>(&e, &shown))
}

/// Runs request `r` on the chosen machine.
pub fn answer<R: Request>(machine: &MachineChoice, r: R) -> Result<Answer<R::Output>> {
    let file = machine.resolve()?;
    let machine_toml = R::USES_MACHINE.then(|| file.to_toml());
    Ok(Answer { result: r.run(&file)?, machine_toml })
}

/// The error for a field value that did not parse: serde's words ("invalid value: integer
/// `-1`, expected u32") become the field's, the value and what the field allows.
fn serde_error<R: Request>(e: &serde_path_to_error::Error<serde_json::Error>, fields: &Value) -> Error {
    let inner = e.inner().to_string();
    let quoted = |s: &str| s.split('`').nth(1).map(str::to_string);
    if let Some(name) = inner.strip_prefix("unknown field ").and_then(quoted) {
        let allowed = inner.split_once(", expected ").map_or("none".to_string(), |(_, a)| a.replace("one of ", "").replace('`', ""));
        return field_msg(&name, format!("{name} is not a field of the {} request: allowed {allowed}", R::NAME));
    }
    if let Some(name) = inner.strip_prefix("missing field ").and_then(quoted) {
        return field_msg(&name, format!("{name} is missing: the {} request needs it", R::NAME));
    }
    let mut segments = e.path().iter();
    let Some(serde_path_to_error::Segment::Map { key: field }) = segments.next() else {
        return config_err(format!("{} request: {inner}", R::NAME));
    };
    let mut value = &fields[field.as_str()];
    for s in segments {
        value = match s {
            serde_path_to_error::Segment::Seq { index } => &value[*index],
            serde_path_to_error::Segment::Map { key } => &value[key.as_str()],
            _ => value,
        };
    }
    let expected = inner.rsplit_once(", expected ").map_or(inner.as_str(), |(_, x)| x);
    field_err(field, value, R::allowed(field).unwrap_or_else(|| type_words(expected)))
}

/// An error of a name parser about value `value` of field `field`: an unknown name ("unknown
/// dtype 'x': allowed a, b") becomes the field's error ("dtype x is not allowed: one of a, b");
/// any other error passes unchanged.
pub fn within(field: &str, value: &str, e: Error) -> Error {
    match (&e, e.message().split_once(": allowed ")) {
        (Error::Config(m), Some((_, allowed))) if m.starts_with("unknown ") => field_err(field, value, format!("one of {allowed}")),
        _ => e,
    }
}

/// What a Rust type allows, in words.
pub fn type_words(expected: &str) -> String {
    let whole = |max: u64| format!("a whole number from 0 to {max}");
    match expected {
        "u8" => whole(u8::MAX.into()),
        "u16" => whole(u16::MAX.into()),
        "u32" => whole(u32::MAX.into()),
        "u64" | "usize" => whole(u64::MAX),
        "a boolean" => "true or false".into(),
        "f64" | "f32" => "a number".into(),
        "a sequence" => "a list".into(),
        other => other.into(),
    }
}

/// "all", a comma-separated string of names, or a list of names.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NameList {
    Text(String),
    Names(Vec<String>),
}

impl NameList {
    pub fn all() -> NameList {
        NameList::Text("all".into())
    }

    /// The names given, or None for "all".
    pub fn names(&self) -> Option<Vec<String>> {
        match self {
            NameList::Text(s) if s == "all" => None,
            NameList::Text(s) => Some(s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()),
            NameList::Names(v) if v.len() == 1 && v[0] == "all" => None,
            NameList::Names(v) => Some(v.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        spes: usize,
        #[serde(default, rename = "sizes")]
        _sizes: Vec<u32>,
    }

    impl Request for Probe {
        const NAME: &'static str = "probe";
        type Output = usize;
        fn allowed(field: &str) -> Option<String> {
            (field == "spes").then(|| "1 to 16".to_string())
        }
        fn run(self, _: &MachineFile) -> Result<usize> {
            Ok(self.spes)
        }
    }

    fn err(v: Value) -> Error {
        parse::<Probe>(v).unwrap_err()
    }

    #[test]
    fn a_value_that_does_not_parse_names_field_value_and_range() {
        let e = err(json!({"spes": -1}));
        assert_eq!((e.field(), e.message()), (Some("spes"), "spes -1 is not allowed: 1 to 16"));
        let e = err(json!({"spes": 1, "sizes": [16, "16k"]}));
        assert_eq!((e.field(), e.message()), (Some("sizes"), "sizes \"16k\" is not allowed: a whole number from 0 to 4294967295"));
        let e = err(json!({"spes": 1, "sizes": [4294967296u64]}));
        assert_eq!(e.message(), "sizes 4294967296 is not allowed: a whole number from 0 to 4294967295");
    }

    #[test]
    fn unknown_and_missing_fields_are_named() {
        let e = err(json!({"spes": 1, "spe": 2}));
        assert_eq!((e.field(), e.message()), (Some("spe"), "spe is not a field of the probe request: allowed spes or sizes"));
        let e = err(json!({}));
        assert_eq!((e.field(), e.message()), (Some("spes"), "spes is missing: the probe request needs it"));
    }

    #[test]
    fn unknown_names_become_the_fields_errors() {
        let e = within("dtype", "int8", config_err("unknown dtype 'int8': allowed int32, float64"));
        assert_eq!((e.field(), e.message()), (Some("dtype"), "dtype int8 is not allowed: one of int32, float64"));
        let other = config_err("size 0 is not allowed");
        assert_eq!(within("dtype", "x", other.clone()), other);
    }

    #[test]
    fn the_machine_is_a_preset_or_a_file_never_both() {
        let both = MachineChoice { preset: Some("qs20".into()), toml: Some(String::new()), set: vec![] };
        assert_eq!(both.resolve().unwrap_err().message(), "choose a machine preset or a machine file, not both");
        let a = answer(&MachineChoice::default(), Probe { spes: 3, _sizes: vec![] }).unwrap();
        assert_eq!(a.result, 3);
        assert_eq!(
            a.machine_toml.unwrap(),
            MachineChoice { preset: Some("qs20".into()), ..Default::default() }.resolve().unwrap().to_toml()
        );
    }
}
