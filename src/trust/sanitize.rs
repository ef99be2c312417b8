//! TEMP stub
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Provenance {
    pub agent: String,
    pub task: Option<String>,
    pub field: String,
}
pub struct Flag {
    pub reason: String,
}
#[derive(Default)]
pub struct Findings {
    pub flags: Vec<Flag>,
}
pub struct Untrusted {
    text: String,
    pub provenance: Provenance,
    pub findings: Findings,
}
impl Untrusted {
    pub fn new(raw: &str, provenance: Provenance) -> Self {
        Self {
            text: sanitize_text(raw).0,
            provenance,
            findings: Findings::default(),
        }
    }
    pub fn as_str(&self) -> &str {
        &self.text
    }
}
pub fn sanitize_text(raw: &str) -> (String, Findings) {
    (
        raw.chars()
            .filter(|c| !c.is_control() || *c == '\n')
            .collect(),
        Findings::default(),
    )
}
pub fn sanitize_line(raw: &str) -> (String, Findings) {
    (
        raw.chars().filter(|c| !c.is_control()).collect(),
        Findings::default(),
    )
}
