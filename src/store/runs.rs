//! Suite runs, one row per run: the report as the suite module writes it (JSON: every case, its checks and
//! what was seen), with its suite files and counts beside it so `runs` lists them without parsing reports.
//! The last [`KEEP_RUNS`] runs are kept.

use super::*;

/// One run as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptRun {
    pub id: i64,
    pub at: DateTime<Utc>,
    /// The suite files, comma-separated.
    pub suites: String,
    pub passed: i64,
    pub failed: i64,
}

/// Runs kept in all.
pub const KEEP_RUNS: i64 = 200;

impl Store {
    /// Keep a suite run; returns its id. Older runs past [`KEEP_RUNS`] go.
    pub fn keep_run(&self, run: &crate::suite::report::RunReport) -> Result<i64, StoreError> {
        let json = serde_json::to_string(run).map_err(|e| StoreError::Other(e.to_string()))?;
        self.save_run(&run.suites.join(", "), run.passed, run.failed, &json)
    }

    /// A kept run's report, with its id (`None`: no such run).
    pub fn kept_run(&self, id: i64) -> Result<Option<crate::suite::report::RunReport>, StoreError> {
        let Some(json) = self.run_report(id)? else {
            return Ok(None);
        };
        let mut run: crate::suite::report::RunReport =
            serde_json::from_str(&json).map_err(|e| {
                StoreError::Other(format!("run {id}: its kept report cannot be read: {e}"))
            })?;
        // The report was written before the store gave it its id.
        run.id = id;
        Ok(Some(run))
    }

    fn save_run(
        &self,
        suites: &str,
        passed: usize,
        failed: usize,
        report: &str,
    ) -> Result<i64, StoreError> {
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        self.conn
            .execute(
                "INSERT INTO runs (at, suites, passed, failed, report) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    ts(&Utc::now()),
                    suites,
                    count(passed),
                    count(failed),
                    report
                ],
            )
            .map_err(|e| self.err(e))?;
        let id = self.conn.last_insert_rowid();
        self.conn
            .execute(
                "DELETE FROM runs WHERE id NOT IN (SELECT id FROM runs ORDER BY id DESC LIMIT ?1)",
                [KEEP_RUNS],
            )
            .map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// The kept runs, newest first.
    pub fn runs(&self, limit: usize) -> Result<Vec<KeptRun>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, at, suites, passed, failed FROM runs ORDER BY id DESC LIMIT ?1")
            .map_err(|e| self.err(e))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map([limit], |r| {
                Ok(KeptRun {
                    id: r.get(0)?,
                    at: parse_ts(1, r.get(1)?)?,
                    suites: r.get(2)?,
                    passed: r.get(3)?,
                    failed: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }

    /// One run's report, as kept.
    fn run_report(&self, id: i64) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT report FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_listed_newest_first_and_read_back() {
        let store = Store::open_in_memory().unwrap();
        let a = store.save_run("a.toml", 2, 0, "{\"a\":1}").unwrap();
        let b = store.save_run("b.toml", 1, 1, "{\"b\":1}").unwrap();
        let runs = store.runs(10).unwrap();
        assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), [b, a]);
        assert_eq!((runs[0].passed, runs[0].failed), (1, 1));
        assert_eq!(store.run_report(a).unwrap().as_deref(), Some("{\"a\":1}"));
        assert_eq!(store.run_report(999).unwrap(), None);
    }
}
