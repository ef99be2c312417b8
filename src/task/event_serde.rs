//! Serde for the SDK's task and stream-event types (`StreamResponse`, `Task`, `Message`, `Artifact`, `Part`
//! and what they hold), reading and writing the same JSON as the SDK's own impls, in the SDK's own types,
//! in less time.
//!
//! Why: these run once per event on every stream (decode off the wire, `--json` printing, the store's rows),
//! and in a profile of a 100,000-event replay the SDK's impls were most of the CLI's time. Their `Part`
//! reads every part into a `HashMap<String, Value>` first and clones out of it; their `Role` and `TaskState`
//! allocate a `String` for each value; a timestamp is written through `collect_str`, a formatter call per
//! fragment. Here a part is read key by key, enum names are matched borrowed, and a timestamp is formatted
//! once. The structs are serde `remote` definitions of the SDK's structs, so the values are the SDK's and a
//! field the SDK adds is a compile error here rather than a silent loss; the SDK's data model is not
//! copied, only how it is (de)serialized. Each struct keeps the SDK's attributes, so the JSON is the same:
//! `tests` below compare both ways on the shapes the stream carries, and the `wire` fuzz target compares
//! the decoding with the SDK's ProtoJSON conversion.

use std::collections::HashMap;

use a2a::{
    Artifact, Message, Part, PartContent, Role, StreamResponse, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// One of the SDK's types with this module's serde.
pub trait Wired: Sized {
    fn put<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
    fn take<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

/// A value to serialize with this module's serde: `serde_json::to_string(&Out(&event))`.
pub struct Out<'a, T>(pub &'a T);

impl<T: Wired> Serialize for Out<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.put(s)
    }
}

/// A value deserialized with this module's serde: `serde_json::from_str::<In<Task>>(text)?.0`.
#[repr(transparent)]
pub struct In<T>(pub T);

impl<'de, T: Wired> Deserialize<'de> for In<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::take(d).map(In)
    }
}

/// `serde_json::to_string` with this module's serde.
pub fn to_json<T: Wired>(v: &T) -> serde_json::Result<String> {
    serde_json::to_string(&Out(v))
}

/// `serde_json::from_str` with this module's serde.
pub fn from_json<T: Wired>(s: &str) -> serde_json::Result<T> {
    serde_json::from_str::<In<T>>(s).map(|v| v.0)
}

/// `with` helpers for the fields that hold one of these types.
mod one {
    use super::*;
    pub fn serialize<T: Wired, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.put(s)
    }
    pub fn deserialize<'de, T: Wired, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::take(d)
    }
}

mod opt {
    use super::*;
    pub fn serialize<T: Wired, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(Out).serialize(s)
    }
    pub fn deserialize<'de, T: Wired, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
        Ok(Option::<In<T>>::deserialize(d)?.map(|v| v.0))
    }
}

mod list {
    use super::*;
    pub fn serialize<T: Wired, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(Out))
    }
    pub fn deserialize<'de, T: Wired, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        // `In<T>` has `T`'s layout, so this collect reuses the vector in place.
        Ok(Vec::<In<T>>::deserialize(d)?
            .into_iter()
            .map(|v| v.0)
            .collect())
    }
}

mod opt_list {
    use super::*;
    pub fn serialize<T: Wired, S: Serializer>(v: &Option<Vec<T>>, s: S) -> Result<S::Ok, S::Error> {
        struct Seq<'a, T>(&'a [T]);
        impl<T: Wired> Serialize for Seq<'_, T> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(Out))
            }
        }
        v.as_deref().map(Seq).serialize(s)
    }
    pub fn deserialize<'de, T: Wired, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<T>>, D::Error> {
        Ok(Option::<Vec<In<T>>>::deserialize(d)?.map(|v| v.into_iter().map(|v| v.0).collect()))
    }
}

/// The structs: serde `remote` definitions with the SDK's field attributes, and this module's serde for
/// the fields that hold one of these types.
macro_rules! wired_by_remote {
    ($($ty:ty => $def:ident),* $(,)?) => {$(
        impl Wired for $ty {
            fn put<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $def::serialize(self, s)
            }
            // Only from an object: the derived impl alone would also read an array of the field values
            // as the struct (see `wire::envelope::Obj`).
            fn take<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Only;
                impl<'de> Visitor<'de> for Only {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($ty), " object"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$ty, A::Error> {
                        $def::deserialize(de::value::MapAccessDeserializer::new(map))
                    }
                }
                d.deserialize_map(Only)
            }
        }
    )*};
}

wired_by_remote! {
    Message => MessageDef,
    TaskStatus => TaskStatusDef,
    Artifact => ArtifactDef,
    Task => TaskDef,
    TaskStatusUpdateEvent => StatusUpdateDef,
    TaskArtifactUpdateEvent => ArtifactUpdateDef,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Message", rename_all = "camelCase")]
struct MessageDef {
    message_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    #[serde(with = "one")]
    role: Role,
    #[serde(with = "list")]
    parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<HashMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extensions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reference_task_ids: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "TaskStatus", rename_all = "camelCase")]
struct TaskStatusDef {
    #[serde(with = "one")]
    state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt")]
    message: Option<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt")]
    timestamp: Option<DateTime<Utc>>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Artifact", rename_all = "camelCase")]
struct ArtifactDef {
    artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(with = "list")]
    parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<HashMap<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extensions: Option<Vec<String>>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "Task", rename_all = "camelCase")]
struct TaskDef {
    id: String,
    context_id: String,
    #[serde(with = "one")]
    status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_list")]
    artifacts: Option<Vec<Artifact>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_list")]
    history: Option<Vec<Message>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<HashMap<String, Value>>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "TaskStatusUpdateEvent", rename_all = "camelCase")]
struct StatusUpdateDef {
    task_id: String,
    context_id: String,
    #[serde(with = "one")]
    status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<HashMap<String, Value>>,
}

#[derive(Serialize, Deserialize)]
#[serde(remote = "TaskArtifactUpdateEvent", rename_all = "camelCase")]
struct ArtifactUpdateDef {
    task_id: String,
    context_id: String,
    #[serde(with = "one")]
    artifact: Artifact,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    append: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_chunk: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<HashMap<String, Value>>,
}

/// The field-presence union, read key by key: the one member of `task`, `message`, `statusUpdate` and
/// `artifactUpdate` (other keys are skipped). More than one member is refused rather than picked from (the
/// SDK's own impl takes the first of its order; the ProtoJSON fallback in `wire::envelope` judges those).
impl Wired for StreamResponse {
    fn put<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match self {
            StreamResponse::Task(t) => map.serialize_entry("task", &Out(t))?,
            StreamResponse::Message(m) => map.serialize_entry("message", &Out(m))?,
            StreamResponse::StatusUpdate(u) => map.serialize_entry("statusUpdate", &Out(u))?,
            StreamResponse::ArtifactUpdate(u) => map.serialize_entry("artifactUpdate", &Out(u))?,
        }
        map.end()
    }

    fn take<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "camelCase")]
        enum Member {
            Task,
            Message,
            StatusUpdate,
            ArtifactUpdate,
            #[serde(other)]
            Other,
        }
        struct Union;
        impl<'de> Visitor<'de> for Union {
            type Value = StreamResponse;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a StreamResponse object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StreamResponse, A::Error> {
                use StreamResponse as S;
                let mut found = None;
                while let Some(key) = map.next_key::<Member>()? {
                    let ev = match key {
                        Member::Task => S::Task(map.next_value::<In<_>>()?.0),
                        Member::Message => S::Message(map.next_value::<In<_>>()?.0),
                        Member::StatusUpdate => S::StatusUpdate(map.next_value::<In<_>>()?.0),
                        Member::ArtifactUpdate => S::ArtifactUpdate(map.next_value::<In<_>>()?.0),
                        Member::Other => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if found.is_some() {
                        return Err(de::Error::custom("more than one StreamResponse member"));
                    }
                    found = Some(ev);
                }
                found.ok_or_else(|| de::Error::custom("no StreamResponse member"))
            }
        }
        d.deserialize_map(Union)
    }
}

/// As the SDK reads a part: the content is the first of `text`, `raw`, `url` (each only when a string) and
/// `data`; `raw` is standard base64; `metadata` that is not an object is dropped; a repeated key keeps its
/// last value; other keys are ignored. Written as the SDK writes it, metadata only when not empty.
impl Wired for Part {
    fn put<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match &self.content {
            PartContent::Text(t) => map.serialize_entry("text", t)?,
            PartContent::Raw(r) => map.serialize_entry("raw", &BASE64.encode(r))?,
            PartContent::Url(u) => map.serialize_entry("url", u)?,
            PartContent::Data(d) => map.serialize_entry("data", d)?,
        }
        if let Some(f) = &self.filename {
            map.serialize_entry("filename", f)?;
        }
        if let Some(m) = &self.media_type {
            map.serialize_entry("mediaType", m)?;
        }
        if let Some(meta) = self.metadata.as_ref().filter(|m| !m.is_empty()) {
            map.serialize_entry("metadata", meta)?;
        }
        map.end()
    }

    fn take<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "camelCase")]
        enum Key {
            Text,
            Raw,
            Url,
            Data,
            Filename,
            MediaType,
            Metadata,
            #[serde(other)]
            Other,
        }
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Part;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a Part object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
                let mut v: [Option<Value>; 7] = Default::default();
                while let Some(key) = map.next_key::<Key>()? {
                    let slot = match key {
                        Key::Text => 0,
                        Key::Raw => 1,
                        Key::Url => 2,
                        Key::Data => 3,
                        Key::Filename => 4,
                        Key::MediaType => 5,
                        Key::Metadata => 6,
                        Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    if let Some(place) = v.get_mut(slot) {
                        *place = Some(map.next_value()?);
                    }
                }
                let [text, raw, url, data, filename, media_type, metadata] = v;
                let content = match (text, raw, url, data) {
                    (Some(Value::String(t)), ..) => PartContent::Text(t),
                    (_, Some(Value::String(r)), ..) => {
                        PartContent::Raw(BASE64.decode(r).map_err(de::Error::custom)?)
                    }
                    (_, _, Some(Value::String(u)), _) => PartContent::Url(u),
                    (_, _, _, Some(d)) => PartContent::Data(d),
                    _ => {
                        return Err(de::Error::custom(
                            "Part must have one of: text, raw, url, data",
                        ));
                    }
                };
                let string = |v: Option<Value>| match v {
                    Some(Value::String(s)) => Some(s),
                    _ => None,
                };
                Ok(Part {
                    content,
                    filename: string(filename),
                    media_type: string(media_type),
                    metadata: match metadata {
                        Some(Value::Object(m)) => Some(m.into_iter().collect()),
                        _ => None,
                    },
                })
            }
        }
        d.deserialize_map(Fields)
    }
}

/// The SDK's enum names, matched without allocating (its impls read each into a `String` first).
macro_rules! wired_by_name {
    ($ty:ty, $what:literal, [$($name:literal $(| $alt:literal)* => $variant:expr),* $(,)?]) => {
        impl Wired for $ty {
            fn put<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.serialize(s)
            }
            fn take<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Name;
                impl<'de> Visitor<'de> for Name {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        match s {
                            $($name $(| $alt)* => Ok($variant),)*
                            other => Err(E::unknown_variant(other, &[$($name),*])),
                        }
                    }
                }
                d.deserialize_str(Name)
            }
        }
    };
}

wired_by_name!(Role, "a role name", [
    "ROLE_USER" => Role::User,
    "ROLE_AGENT" => Role::Agent,
    "ROLE_UNSPECIFIED" | "" => Role::Unspecified,
]);

wired_by_name!(TaskState, "a task state name", [
    "TASK_STATE_SUBMITTED" => TaskState::Submitted,
    "TASK_STATE_WORKING" => TaskState::Working,
    "TASK_STATE_COMPLETED" => TaskState::Completed,
    "TASK_STATE_FAILED" => TaskState::Failed,
    "TASK_STATE_CANCELED" => TaskState::Canceled,
    "TASK_STATE_INPUT_REQUIRED" => TaskState::InputRequired,
    "TASK_STATE_REJECTED" => TaskState::Rejected,
    "TASK_STATE_AUTH_REQUIRED" => TaskState::AuthRequired,
    "TASK_STATE_UNSPECIFIED" | "" => TaskState::Unspecified,
]);

/// Read as chrono reads it; written as chrono writes it (RFC 3339, `Z`, as many fraction digits as needed in
/// groups of three), formatted once into a string rather than through `collect_str`.
impl Wired for DateTime<Utc> {
    fn put<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }
    fn take<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Stamp;
        impl<'de> Visitor<'de> for Stamp {
            type Value = DateTime<Utc>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an RFC 3339 timestamp")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<DateTime<Utc>, E> {
                if let Some(t) = utc_stamp(s) {
                    return Ok(t);
                }
                // Everything else (offsets, lower-case separators, leap seconds, odd lengths) as chrono's
                // own serde reads it, errors included.
                s.parse::<DateTime<chrono::FixedOffset>>()
                    .map(|t| t.with_timezone(&Utc))
                    .map_err(E::custom)
            }
        }
        d.deserialize_str(Stamp)
    }
}

/// The shape every SDK writes, `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`, read without chrono's general parser (it
/// was a visible part of decoding a stream); `None` for anything else, which chrono then reads.
fn utc_stamp(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let num = |at: usize, len: usize| -> Option<u32> {
        b.get(at..at + len)?.iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let sep = |at: usize, c: u8| b.get(at) == Some(&c);
    if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let (nanos, zone) = if sep(19, b'.') {
        let digits = b
            .get(20..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        (num(20, digits)? * 10u32.pow(9 - digits as u32), 20 + digits)
    } else {
        (0, 19)
    };
    if b.get(zone..) != Some(b"Z") || second > 59 {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    Some(
        date.and_hms_nano_opt(hour, minute, second, nanos)?
            .and_utc(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Events of every kind with every optional field, and the odd shapes the SDK's reader accepts.
    fn samples() -> Vec<Value> {
        let message = json!({
            "messageId": "m1", "contextId": "c1", "taskId": "t1", "role": "ROLE_AGENT",
            "parts": [
                {"text": "hi \u{1b}[2J", "mediaType": "text/plain", "metadata": {"k": 1}},
                {"raw": "AAEC/w==", "filename": "b.bin"},
                {"url": "https://example.test/x", "filename": "x"},
                {"data": {"a": [1, 2, {"b": null}]}},
                {"text": 5, "url": "u"},
                {"text": "wins", "raw": "not base64!"},
                {"data": null, "metadata": "not an object", "extra": [1]},
                {"text": "first", "text": "last"}
            ],
            "metadata": {"m": true}, "extensions": ["e"], "referenceTaskIds": ["t0"]
        });
        let status = json!({"state": "TASK_STATE_INPUT_REQUIRED", "message": message,
                            "timestamp": "2026-12-01T16:28:36.930730809Z"});
        let artifact = json!({"artifactId": "a1", "name": "n", "description": "d",
                              "parts": [{"text": "x"}], "metadata": {}, "extensions": []});
        vec![
            json!({"task": {"id": "t1", "contextId": "c1", "status": status,
                            "artifacts": [artifact], "history": [message], "metadata": {"x": 1}}}),
            json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
            json!({"message": message}),
            json!({"message": {"messageId": "m", "role": "", "parts": []}}),
            json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {
                "state": "TASK_STATE_WORKING", "timestamp": "2026-12-01T16:28:36Z"}, "metadata": {}}}),
            json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {
                "state": "", "message": null, "timestamp": "2026-12-01T17:28:36.5+01:00"}}}),
            json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1", "artifact": artifact,
                                      "append": true, "lastChunk": false}}),
            json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1", "artifact": artifact},
                   "kind": "ignored"}),
        ]
    }

    #[test]
    fn reads_what_the_sdk_reads_and_writes_what_it_writes() {
        for sample in samples() {
            let text = sample.to_string();
            let sdk: StreamResponse = serde_json::from_str(&text).unwrap();
            let ours = serde_json::from_str::<In<StreamResponse>>(&text).unwrap().0;
            assert_eq!(ours, sdk, "{text}");
            assert_eq!(
                serde_json::to_string(&Out(&ours)).unwrap(),
                serde_json::to_string(&sdk).unwrap(),
                "{text}"
            );
        }
    }

    #[test]
    fn refuses_what_the_sdk_refuses() {
        for bad in [
            r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_DONE"}}}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_BOT","parts":[]}}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"%%"}]}}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"filename":"f"}]}}"#,
            r#"{"message":{"role":"ROLE_USER","parts":[]}}"#,
            r#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"yesterday"}}}"#,
        ] {
            assert!(
                serde_json::from_str::<StreamResponse>(bad).is_err(),
                "{bad}"
            );
            assert!(
                serde_json::from_str::<In<StreamResponse>>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn timestamps_read_as_chrono_reads_them() {
        let chrono_reads = |s: &str| serde_json::from_value::<DateTime<Utc>>(json!(s)).ok();
        let ours = |s: &str| {
            serde_json::from_value::<In<DateTime<Utc>>>(json!(s))
                .ok()
                .map(|t| t.0)
        };
        for s in [
            "2026-12-01T16:28:36.930730809Z",
            "2026-12-01T16:28:36Z",
            "2026-12-01T16:28:36.5Z",
            "2026-12-01T16:28:36.123456Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z",
            "2024-02-29T12:00:00Z",
            "2023-02-29T12:00:00Z",
            "2026-12-01T24:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-12-01T23:59:60Z",
            "2016-12-31T23:59:60.5Z",
            "2026-12-01T16:28:36.1234567891Z",
            "2026-12-01T16:28:36.Z",
            "2026-12-01t16:28:36z",
            "2026-12-01 16:28:36Z",
            "2026-12-01T17:28:36.5+01:00",
            "2026-12-01T16:28:36Z ",
            "+2026-12-01T16:28:36Z",
            "2026-12-01T16:28:36",
            "",
            "yesterday",
        ] {
            assert_eq!(ours(s), chrono_reads(s), "{s:?}");
        }
    }

    #[test]
    fn one_member_exactly() {
        for bad in [
            r#"{}"#,
            r#"{"kind":"task"}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[]},"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#,
        ] {
            assert!(
                serde_json::from_str::<In<StreamResponse>>(bad).is_err(),
                "{bad}"
            );
        }
    }
}
