//! Test helpers: an executor scripted with closures.

use std::sync::Arc;

use a2a_types::A2aError;
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
