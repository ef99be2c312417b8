//! The reports of `check`, as the JSON `check --json` prints, one row per run: the console compares a new run
//! with the last one ("2 new failures") and shows each agent's last verdict after a restart. Only the last
//! [`KEEP_PER_AGENT`] runs of an agent are kept.

use super::*;

/// One run as kept: the report and the verdict the agent list shows for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptCheck {
    /// The `--json` object.
    pub report: String,
    pub badge: String,
    pub must_failed: bool,
}

/// Runs kept per agent.
pub const KEEP_PER_AGENT: i64 = 20;

impl Store {
    /// Keep a check's report (its `--json` object) for the agent at `agent_url`, with its verdict.
    pub fn save_check(&self, agent_url: &str, kept: &KeptCheck) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO checks (agent_url, at, badge, must_failed, report) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![agent_url, ts(&Utc::now()), kept.badge, kept.must_failed, kept.report],
            )
            .map_err(|e| self.err(e))?;
        self.conn
            .execute(
                "DELETE FROM checks WHERE agent_url = ?1 AND id NOT IN
                   (SELECT id FROM checks WHERE agent_url = ?1 ORDER BY id DESC LIMIT ?2)",
                params![agent_url, KEEP_PER_AGENT],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// The last report kept for the agent at `agent_url`, with when it ran.
    pub fn last_check(
        &self,
        agent_url: &str,
    ) -> Result<Option<(DateTime<Utc>, String)>, StoreError> {
        self.conn
            .query_row(
                "SELECT at, report FROM checks WHERE agent_url = ?1 ORDER BY id DESC LIMIT 1",
                [agent_url],
                |r| Ok((parse_ts(0, r.get(0)?)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Every agent's last verdict: `(agent_url, badge, a MUST failed)` (the reports stay unread).
    pub fn last_checks(&self) -> Result<Vec<(String, String, bool)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT agent_url, badge, must_failed FROM checks WHERE id IN
                   (SELECT MAX(id) FROM checks GROUP BY agent_url)",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_runs_per_agent_and_finds_the_newest() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.last_check("http://a").unwrap(), None);
        let kept = |report: String, badge: &str, must_failed| KeptCheck {
            report,
            badge: badge.into(),
            must_failed,
        };
        for i in 0..25 {
            let k = kept(format!("{{\"run\":{i}}}"), "check 1/1 ✓", false);
            store.save_check("http://a", &k).unwrap();
        }
        let b = kept("{\"run\":\"b\"}".into(), "check 1 MUST ✗", true);
        store.save_check("http://b", &b).unwrap();
        let (_, last) = store.last_check("http://a").unwrap().unwrap();
        assert_eq!(last, "{\"run\":24}");
        let n: i64 = store
            .conn
            .query_row(
                "SELECT COUNT(*) FROM checks WHERE agent_url = 'http://a'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, KEEP_PER_AGENT);
        let mut all = store.last_checks().unwrap();
        all.sort();
        assert_eq!(
            all,
            vec![
                ("http://a".to_string(), "check 1/1 ✓".to_string(), false),
                ("http://b".to_string(), "check 1 MUST ✗".to_string(), true)
            ]
        );
    }
}
