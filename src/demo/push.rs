//! Push-notification config store for the demo: the SDK's in-memory store, restricted to loopback
//! webhooks.
//!
//! The SDK sender's SSRF guard refuses loopback URLs outright, which would make push unusable with
//! the console's local receiver, so the demo turns that guard off (see `mod.rs`) and applies the
//! inverse policy here: an agent that only listens on 127.0.0.1 only ever posts to 127.0.0.1 / ::1
//! / localhost.

use a2a::{A2AError, TaskPushNotificationConfig};
use a2a_server::{InMemoryPushConfigStore, PushConfigStore};
use async_trait::async_trait;

/// [`InMemoryPushConfigStore`] that refuses any webhook URL not on the loopback interface.
#[derive(Default)]
pub(crate) struct LoopbackPushStore {
    inner: InMemoryPushConfigStore,
}

/// Whether `url` is an http(s) URL whose host is a loopback address or `localhost`.
pub(crate) fn is_loopback_webhook(url: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return false;
    }
    match parsed.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

#[async_trait]
impl PushConfigStore for LoopbackPushStore {
    async fn save(
        &self,
        config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        if !is_loopback_webhook(&config.url) {
            return Err(A2AError::invalid_params(
                "the demo agent only delivers push notifications to loopback webhooks \
                 (http://127.0.0.1:…, http://[::1]:… or http://localhost:…)",
            ));
        }
        self.inner.save(config).await
    }

    async fn get(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.inner.get(task_id, config_id).await
    }

    async fn list(&self, task_id: &str) -> Result<Vec<TaskPushNotificationConfig>, A2AError> {
        self.inner.list(task_id).await
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<(), A2AError> {
        self.inner.delete(task_id, config_id).await
    }

    async fn delete_all(&self, task_id: &str) -> Result<(), A2AError> {
        self.inner.delete_all(task_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_http_urls_pass() {
        assert!(is_loopback_webhook("http://127.0.0.1:8080/hook"));
        assert!(is_loopback_webhook("http://127.1.2.3/hook"));
        assert!(is_loopback_webhook("https://[::1]:9/hook"));
        assert!(is_loopback_webhook("http://LOCALHOST:1/x"));
        assert!(!is_loopback_webhook("http://10.0.0.1/hook"));
        assert!(!is_loopback_webhook("http://example.com/hook"));
        assert!(!is_loopback_webhook("http://localhost.example.com/hook"));
        assert!(!is_loopback_webhook("file:///etc/passwd"));
        assert!(!is_loopback_webhook("not a url"));
    }

    #[tokio::test]
    async fn save_refuses_remote_webhooks() {
        let store = LoopbackPushStore::default();
        let config = |url: &str| TaskPushNotificationConfig {
            url: url.into(),
            id: None,
            task_id: "t1".into(),
            token: None,
            authentication: None,
            tenant: None,
        };
        assert!(store.save(config("http://192.168.1.1/hook")).await.is_err());
        assert!(store.save(config("http://127.0.0.1:9/hook")).await.is_ok());
    }
}
