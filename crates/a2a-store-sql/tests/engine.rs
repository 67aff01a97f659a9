//! The engine on a SQLite store: a task it ran is in the file after the
//! store is reopened, and a follow-up message continues it from there.

use std::sync::Arc;

use a2a_core::{
    AgentExecutor, CallContext, DefaultRequestHandler, EventSink, PushConfigStore, RequestContext,
    RequestHandler, TaskStore,
};
use a2a_store_sql::SqliteStore;
use a2a_types::{
    A2aError, AgentCard, Message, MessageSendParams, Part, SendMessageResult, TaskState,
};

struct Echo;

#[async_trait::async_trait]
impl AgentExecutor for Echo {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let task = ctx.updater(events);
        task.add_artifact(
            vec![Part::text(ctx.user_text())],
            "echo",
            Some("echo"),
            false,
            true,
        )
        .await?;
        task.complete(None).await
    }
}

fn card() -> AgentCard {
    serde_json::from_value(serde_json::json!({
        "protocolVersion": "0.3.0", "name": "echo", "description": "echo",
        "url": "http://127.0.0.1/", "version": "1", "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    }))
    .unwrap()
}

fn handler(store: &Arc<SqliteStore>) -> DefaultRequestHandler {
    let tasks: Arc<dyn TaskStore> = store.clone();
    let push_configs: Arc<dyn PushConfigStore> = store.clone();
    DefaultRequestHandler::builder(card(), Echo)
        .task_store(tasks)
        .push_config_store(push_configs)
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_run_by_the_engine_survives_a_reopen() {
    let dir = std::env::temp_dir().join(format!("a2a-store-sql-engine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("a2a.db");

    let task_id = {
        let store = Arc::new(SqliteStore::open(&path).await.unwrap());
        let reply = handler(&store)
            .send_message(
                &CallContext::default(),
                MessageSendParams::new(Message::user_text("m-1", "hello")),
            )
            .await
            .unwrap();
        let SendMessageResult::Task(task) = reply else {
            panic!("expected a task")
        };
        assert_eq!(task.status.state, TaskState::Completed);
        store.close().await;
        task.id
    };

    let store = Arc::new(SqliteStore::open(&path).await.unwrap());
    let (task, version) = TaskStore::get(&*store, &task_id).await.unwrap().unwrap();
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts.as_ref().unwrap()[0].text(), "hello");
    assert_eq!(task.history.as_ref().unwrap()[0].text(), "hello");
    assert!(version >= 2, "version {version}");

    // The engine reads it back through the store (no run is in memory).
    let handler = handler(&store);
    let got = handler
        .get_task(
            &CallContext::default(),
            serde_json::from_value(serde_json::json!({ "id": task_id })).unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(got.status.state, TaskState::Completed);

    store.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
