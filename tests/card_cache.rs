//! Card HTTP caching against the demo agent's real card endpoint (ETag + max-age): a fresh card is reused, a
//! refresh revalidates with If-None-Match and gets 304.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a_console::remote::card::CardFetcher;

#[tokio::test]
async fn fresh_cards_are_reused_and_refresh_revalidates_with_304() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let fetcher = CardFetcher::new(std::time::Duration::from_secs(5)).unwrap();
    let none = reqwest::header::HeaderMap::new();
    let first = fetcher.fetch(&demo.base_url(), &none).await.unwrap();
    assert!(!first.revalidated);
    assert!(first.etag.is_some(), "the demo agent sends an ETag");
    assert_eq!(first.max_age, Some(std::time::Duration::from_secs(60)));
    let again = fetcher.fetch(&demo.base_url(), &none).await.unwrap();
    assert!(
        !again.revalidated,
        "within max-age the cached card is used without asking"
    );
    let refreshed = fetcher
        .fetch_with(&demo.base_url(), &none, true)
        .await
        .unwrap();
    assert!(
        refreshed.revalidated,
        "a refresh asks with If-None-Match and gets 304"
    );
    assert_eq!(refreshed.raw, first.raw);
    demo.shutdown().await;
}
