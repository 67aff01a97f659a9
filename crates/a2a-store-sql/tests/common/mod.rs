//! Setup shared by the test suites.

/// The PostgreSQL URL from `A2A_TEST_POSTGRES_URL`, or `None` (after
/// printing `SKIPPED {suite}::{test}`) when it is unset outside CI; under
/// `CI=true` an unset URL fails the test.
pub(crate) fn postgres_url(suite: &str, test: &str) -> Option<String> {
    match std::env::var("A2A_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!(
            "A2A_TEST_POSTGRES_URL is not set and CI=true: start a server with \
             `export A2A_TEST_POSTGRES_URL=\"$(bash tests/postgres/start.sh | tail -n1)\"`"
        ),
        _ => {
            // Straight to stderr, not `eprintln!`: the harness would hide it.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {suite}::{test}: A2A_TEST_POSTGRES_URL is not set \
                 (tests/postgres/start.sh prints one)"
            );
            None
        }
    }
}
