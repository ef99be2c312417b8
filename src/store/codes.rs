//! The small numbers an event row keeps instead of text (schema 5): the kind and the verdict as codes, and the
//! time as microseconds since the epoch. The codes are the ones `MIGRATION_5` and the `events` view use; a
//! kind or verdict without a code (written by a newer console, or a v1 row of an unknown kind) is stored as
//! its text and comes back as it was.

use chrono::{DateTime, Utc};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};

use super::kind;

const KINDS: [&str; 7] = [
    kind::USER,
    kind::MESSAGE,
    kind::TASK,
    kind::STATUS,
    kind::ARTIFACT,
    kind::NOTE,
    kind::PACK,
];

const VERDICTS: [&str; 4] = ["applied", "duplicate", "stale", "illegal"];

fn code_of(names: &[&str], name: &str) -> ToSqlOutput<'static> {
    match names.iter().position(|n| *n == name) {
        Some(i) => ToSqlOutput::Owned(Value::Integer(i as i64)),
        None => ToSqlOutput::Owned(Value::Text(name.to_string())),
    }
}

fn name_of(names: &[&str], v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Integer(i) => usize::try_from(i)
            .ok()
            .and_then(|i| names.get(i))
            .map(|n| (*n).to_string()),
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    }
}

/// What a kind is stored as.
pub(super) fn kind_code(name: &str) -> ToSqlOutput<'static> {
    code_of(&KINDS, name)
}

/// A stored kind back as its name (`""` for a value no console writes).
pub(super) fn kind_name(v: ValueRef<'_>) -> String {
    name_of(&KINDS, v).unwrap_or_default()
}

/// A kind's code as a pack keeps it (`None`: the kind has no code, so its event is not packed).
pub(super) fn kind_index(name: &str) -> Option<u8> {
    KINDS
        .iter()
        .position(|n| *n == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// A verdict's code as a pack keeps it (`None`: no code, so the event is not packed).
pub(super) fn verdict_index(name: &str) -> Option<u8> {
    VERDICTS
        .iter()
        .position(|n| *n == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// A packed kind's name (`""` for a code no console writes).
pub(super) fn kind_of_index(i: u8) -> String {
    kind_name(ValueRef::Integer(i.into()))
}

/// A packed verdict's name.
pub(super) fn verdict_of_index(i: u8) -> Option<String> {
    name_of(&VERDICTS, ValueRef::Integer(i.into()))
}

/// What a verdict is stored as (`None`: the row has none, as the user's messages and notes).
pub(super) fn verdict_code(name: Option<&str>) -> ToSqlOutput<'static> {
    match name {
        Some(n) => code_of(&VERDICTS, n),
        None => ToSqlOutput::Owned(Value::Null),
    }
}

/// A stored verdict back as its name (`None`: the row has none).
pub(super) fn verdict_name(v: ValueRef<'_>) -> Option<String> {
    name_of(&VERDICTS, v)
}

/// A time as stored: microseconds since the epoch, what [`super::ts`] keeps of it.
pub(super) fn micros(at: &DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

/// A stored time back (a value no console writes is reported as a conversion error of column `idx`).
pub(super) fn from_micros(idx: usize, us: i64) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            idx,
            rusqlite::types::Type::Integer,
            format!("{us} µs is not a time").into(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_names_stay_text() {
        for k in KINDS {
            let ToSqlOutput::Owned(v) = kind_code(k) else {
                panic!("owned")
            };
            assert!(matches!(v, Value::Integer(_)), "{k}");
            assert_eq!(kind_name(ValueRef::from(&v)), k);
        }
        let ToSqlOutput::Owned(v) = kind_code("fromTheFuture") else {
            panic!("owned")
        };
        assert_eq!(kind_name(ValueRef::from(&v)), "fromTheFuture");
        let at = DateTime::parse_from_rfc3339("2026-12-03T15:22:27.123456Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(from_micros(0, micros(&at)).unwrap(), at);
        assert_eq!(
            super::super::ts(&from_micros(0, micros(&at)).unwrap()),
            "2026-12-03T15:22:27.123456Z"
        );
    }
}
