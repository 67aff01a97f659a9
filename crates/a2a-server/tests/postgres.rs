//! `--store postgres://…`: `StoreSpec::Postgres(url).open()` and a served
//! task that a second server on the same database still has.
//!
//! Needs `A2A_TEST_POSTGRES_URL` (e.g. from `bash tests/postgres/start.sh |
//! tail -n1`); without it the test prints SKIPPED, and fails when `CI=true`.

mod common;

use a2a_server::{Agent, ServeConfig, StoreSpec};
use a2a_types::{Task, TaskState};
use common::{TestServer, postgres_url, send_params, user_text};
use serde_json::json;

#[tokio::test]
async fn postgres_store_opens_and_a_task_round_trips() {
    let Some(url) = postgres_url("postgres_store_opens_and_a_task_round_trips") else {
        return;
    };
    let spec: StoreSpec = url.parse().expect("a postgres:// URL");
    assert_eq!(spec, StoreSpec::Postgres(url.clone()));

    // The stores themselves.
    let stores = spec.open().await.expect("PostgreSQL opens");
    let id = format!("server-pg-{}", a2a_core::new_id());
    let task = Task::new(id.clone(), "ctx-pg", TaskState::Working);
    let version = stores.tasks.save(&task, None).await.expect("save");
    let (stored, stored_version) = stores.tasks.get(&id).await.unwrap().expect("saved task");
    assert_eq!(
        (stored.status.state, stored_version),
        (TaskState::Working, version)
    );
    assert!(stores.tasks.delete(&id).await.unwrap());

    // Served: a task completed by one server is there for the next one.
    let mut config = ServeConfig::new(Agent::echo());
    config.store = spec.clone();
    let first = TestServer::start_with(config.clone()).await;
    let sent = first
        .result("message/send", send_params(user_text("kept in postgres")))
        .await;
    assert_eq!(sent["status"]["state"], "completed");
    first.stop().await.expect("clean stop");

    let second = TestServer::start_with(config).await;
    let got = second.result("tasks/get", json!({"id": sent["id"]})).await;
    assert_eq!(got["status"]["state"], "completed");
    assert_eq!(got["history"], sent["history"]);
    assert_eq!(got["artifacts"], sent["artifacts"]);
    assert_eq!(got["artifacts"][0]["parts"][0]["text"], "kept in postgres");
    second.stop().await.expect("clean stop");
}
