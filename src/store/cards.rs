//! Cached agent cards: the body byte for byte (signature checks need it) with its ETag, so the console shows
//! a card at once and revalidates it with `If-None-Match`.

use super::*;

/// A card as last fetched, so the console can show it at once and revalidate with `If-None-Match`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedCard {
    pub card_url: String,
    /// The body byte for byte (signature checks need it).
    pub raw_json: String,
    pub etag: Option<String>,
    pub fetched_at: DateTime<Utc>,
}

impl Store {
    pub fn save_card(
        &self,
        agent_url: &str,
        card_url: &str,
        raw_json: &str,
        etag: Option<&str>,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO cards (agent_url, card_url, raw_json, etag, fetched_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (agent_url) DO UPDATE SET
                   card_url = excluded.card_url, raw_json = excluded.raw_json,
                   etag = excluded.etag, fetched_at = excluded.fetched_at",
                params![agent_url, card_url, raw_json, etag, ts(&Utc::now())],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    pub fn load_card(&self, agent_url: &str) -> Result<Option<CachedCard>, StoreError> {
        self.conn
            .query_row(
                "SELECT card_url, raw_json, etag, fetched_at FROM cards WHERE agent_url = ?1",
                [agent_url],
                |r| {
                    Ok(CachedCard {
                        card_url: r.get(0)?,
                        raw_json: r.get(1)?,
                        etag: r.get(2)?,
                        fetched_at: parse_ts(3, r.get(3)?)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}
