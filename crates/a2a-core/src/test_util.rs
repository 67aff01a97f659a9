//! Test helpers: an executor scripted with closures, an echo agent for
//! benchmarks, and an in-process cluster.

use std::sync::Arc;

use a2a_types::{A2aError, AgentCard, Message, Part, StreamResponse};
use async_trait::async_trait;
use futures::future::BoxFuture;

use crate::{AgentExecutor, EventSink, RequestContext};

type Script = Arc<
    dyn Fn(RequestContext, EventSink) -> BoxFuture<'static, Result<(), A2aError>> + Send + Sync,
>;

/// An [`AgentExecutor`] whose behaviour is given by closures, so each test
/// scripts its agent inline.
#[derive(Clone)]
pub struct ScriptedExecutor {
    execute: Script,
    cancel: Option<Script>,
}

impl std::fmt::Debug for ScriptedExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedExecutor").finish_non_exhaustive()
    }
}

impl ScriptedExecutor {
    /// An executor running `execute` for every message.
    pub fn new<F, Fut>(execute: F) -> Self
    where
        F: Fn(RequestContext, EventSink) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), A2aError>> + Send + 'static,
    {
        Self {
            execute: Arc::new(move |c, e| Box::pin(execute(c, e))),
            cancel: None,
        }
    }

    /// Adds a `cancel` script (default: publish nothing).
    #[must_use]
    pub fn on_cancel<F, Fut>(mut self, cancel: F) -> Self
    where
        F: Fn(RequestContext, EventSink) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), A2aError>> + Send + 'static,
    {
        self.cancel = Some(Arc::new(move |c, e| Box::pin(cancel(c, e))));
        self
    }
}

#[async_trait]
impl AgentExecutor for ScriptedExecutor {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        (self.execute)(ctx, events).await
    }

    async fn cancel(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        match &self.cancel {
            Some(c) => c(ctx, events).await,
            None => Ok(()),
        }
    }
}

/// The echo agent of `a2a serve --agent echo`, for the adapters' in-process
/// benches: one artifact update with the user's text, then `completed`; a
/// single `Message` instead when the request metadata says
/// `"reply": "message"` (on a new task).
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoExecutor;

#[async_trait]
impl AgentExecutor for EchoExecutor {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        let text = ctx.user_text();
        let wants_message = ctx
            .metadata
            .as_ref()
            .is_some_and(|m| m.get("reply").and_then(|v| v.as_str()) == Some("message"));
        if ctx.task.is_none() && wants_message {
            let mut reply = Message::agent_text(crate::new_id(), text);
            reply.context_id = Some(ctx.context_id.clone());
            return events.publish(StreamResponse::Message(reply)).await;
        }
        let task = ctx.updater(events);
        task.add_artifact(vec![Part::text(text)], "echo", Some("echo"), false, true)
            .await?;
        task.complete(None).await
    }
}

/// The agent card of an [`EchoExecutor`]: skill `echo`, streaming.
#[must_use]
pub fn echo_card() -> AgentCard {
    serde_json::from_value(serde_json::json!({
        "protocolVersion": "0.3.0",
        "name": "bench",
        "description": "echo",
        "url": "http://127.0.0.1/",
        "preferredTransport": "JSONRPC",
        "version": "1.0.0",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
    }))
    .expect("a valid card")
}

/// The requests each adapter's `hotpath` bench sends before it measures.
const HOTPATH_WARM_UP: u64 = 200;

/// The loop of the adapters' in-process `hotpath` benches (against an
/// [`EchoExecutor`]), on a current-thread runtime.
///
/// The arguments are read from the command line: a scenario (`send-task`,
/// `send-message` or `stream-task`; default: all three) and the number of
/// measured requests (default 20), which follow 200 warm-up ones. For each
/// request `call(scenario, i)` builds the request and
/// returns the future that answers it; only awaiting that future is timed.
/// `check` then asserts the answer is a success; its flag asks it to print
/// the answer (the first request, when `HOTPATH_PRINT` is set). Prints
/// `{transport} {scenario}: N requests, … ns/request` per scenario.
pub fn hotpath<T, Fut>(
    transport: &str,
    mut call: impl FnMut(&str, u64) -> Fut,
    check: impl Fn(&T, bool),
) where
    Fut: std::future::Future<Output = T>,
{
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let scenario = args.next();
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let scenarios: Vec<String> = match scenario {
        Some(s) => vec![s],
        None => ["send-task", "send-message", "stream-task"]
            .map(str::to_owned)
            .to_vec(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        for scenario in &scenarios {
            let mut total = std::time::Duration::ZERO;
            for i in 0..HOTPATH_WARM_UP + n {
                let answer = call(scenario, i);
                let started = std::time::Instant::now();
                let answer = answer.await;
                if i >= HOTPATH_WARM_UP {
                    total += started.elapsed();
                }
                check(
                    &answer,
                    i == 0 && std::env::var_os("HOTPATH_PRINT").is_some(),
                );
            }
            let per = total.as_nanos() / u128::from(n.max(1));
            println!("{transport} {scenario}: {n} requests, {per} ns/request");
        }
    });
}

/// An in-process [`Cluster`](crate::Cluster) hub: replicas created from one
/// hub see each other's messages and leases, as replicas sharing a database
/// would. [`partition`](Self::partition) cuts a replica off (its messages and
/// lease renewals are dropped), which is how a test makes a replica "die".
#[derive(Debug, Default)]
pub struct LocalClusterHub {
    replicas: std::sync::Mutex<
        Vec<(
            String,
            tokio::sync::broadcast::Sender<crate::ClusterMessage>,
        )>,
    >,
    leases: std::sync::Mutex<std::collections::HashMap<String, (String, tokio::time::Instant)>>,
    partitioned: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl LocalClusterHub {
    /// A new hub.
    #[must_use]
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// A replica joined to this hub.
    pub fn replica(self: &Arc<Self>, id: &str) -> Arc<LocalReplica> {
        let (tx, _) = tokio::sync::broadcast::channel(1024);
        self.replicas
            .lock()
            .expect("hub lock")
            .push((id.to_owned(), tx.clone()));
        Arc::new(LocalReplica {
            id: id.to_owned(),
            hub: Arc::clone(self),
            tx,
        })
    }

    /// Cuts a replica off from the others.
    pub fn partition(&self, id: &str) {
        self.partitioned
            .lock()
            .expect("hub lock")
            .insert(id.to_owned());
    }

    fn is_partitioned(&self, id: &str) -> bool {
        self.partitioned.lock().expect("hub lock").contains(id)
    }
}

/// One replica of a [`LocalClusterHub`].
#[derive(Debug)]
pub struct LocalReplica {
    id: String,
    hub: Arc<LocalClusterHub>,
    tx: tokio::sync::broadcast::Sender<crate::ClusterMessage>,
}

#[async_trait]
impl crate::Cluster for LocalReplica {
    fn replica_id(&self) -> &str {
        &self.id
    }

    async fn publish(&self, message: &crate::ClusterMessage) -> Result<(), A2aError> {
        if self.hub.is_partitioned(&self.id) {
            return Ok(());
        }
        for (id, tx) in self.hub.replicas.lock().expect("hub lock").iter() {
            if *id != self.id && !self.hub.is_partitioned(id) {
                let _ = tx.send(message.clone());
            }
        }
        Ok(())
    }

    fn subscribe(&self) -> tokio::sync::broadcast::Receiver<crate::ClusterMessage> {
        self.tx.subscribe()
    }

    async fn renew(&self, task_id: &str, ttl: std::time::Duration) -> Result<(), A2aError> {
        if !self.hub.is_partitioned(&self.id) {
            let expires = tokio::time::Instant::now() + ttl;
            self.hub
                .leases
                .lock()
                .expect("hub lock")
                .insert(task_id.to_owned(), (self.id.clone(), expires));
        }
        Ok(())
    }

    async fn release(&self, task_id: &str) -> Result<(), A2aError> {
        let mut leases = self.hub.leases.lock().expect("hub lock");
        if leases
            .get(task_id)
            .is_some_and(|(owner, _)| *owner == self.id)
        {
            leases.remove(task_id);
        }
        Ok(())
    }

    async fn owner(&self, task_id: &str) -> Result<Option<String>, A2aError> {
        let now = tokio::time::Instant::now();
        Ok(self
            .hub
            .leases
            .lock()
            .expect("hub lock")
            .get(task_id)
            .filter(|(_, expires)| *expires > now)
            .map(|(owner, _)| owner.clone()))
    }

    async fn take_expired(&self) -> Result<Vec<String>, A2aError> {
        if self.hub.is_partitioned(&self.id) {
            return Ok(Vec::new());
        }
        let now = tokio::time::Instant::now();
        let mut leases = self.hub.leases.lock().expect("hub lock");
        let expired: Vec<String> = leases
            .iter()
            .filter(|(_, (_, e))| *e <= now)
            .map(|(t, _)| t.clone())
            .collect();
        for t in &expired {
            leases.remove(t);
        }
        Ok(expired)
    }
}
