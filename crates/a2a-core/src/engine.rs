//! [`DefaultRequestHandler`]: the task engine.
//!
//! # Concurrency
//!
//! Every task with an execution in flight has one `Run` in a sharded map
//! keyed by task id (no global lock on the request path). A `Run` holds:
//!
//! - the task snapshot and its store version behind one async mutex: every
//!   change of the task (an executor event, a follow-up message, a cancel) is
//!   folded into the snapshot and written to the [`TaskStore`] while that
//!   mutex is held, so there is exactly one writer per task at a time;
//! - a bounded broadcast channel: the writer sends each event to it while
//!   still holding the mutex, so a subscriber that takes the snapshot and
//!   subscribes under the same mutex sees every later event exactly once
//!   (no gap, no duplicate);
//! - a cancellation token that `tasks/cancel` fires for the executions.
//!
//! Executions run in tasks of their own: a client that disconnects drops
//! only its receiver. A subscriber that falls behind the channel's capacity
//! is resynchronised with a fresh snapshot instead of blocking the executor
//! or growing memory. When the last execution of a task returns, its `Run`
//! is retired; the task lives on in the store, and the next message for it
//! creates a new `Run` from the stored snapshot.
//!
//! ```text
//!  adapter ── send_message ──▶ Run (snapshot, version) ◀── EventSink::publish ── AgentExecutor
//!                                 │  fold + TaskStore::save (under the run's mutex)
//!                                 └─▶ broadcast ──▶ streams, blocking waiters, resubscribers
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crate::Map;
use a2a_types::{
    A2aError, AgentCard, DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams, ListTaskPushNotificationConfigParams, Message,
    MessageSendParams, PushNotificationConfig, Role, SendMessageResult, StreamResponse, Task,
    TaskIdParams, TaskPushNotificationConfig, TaskQueryParams, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use async_trait::async_trait;
use futures::FutureExt;
use tokio::sync::{Mutex, OwnedMutexGuard, broadcast, watch};
use tokio_util::sync::CancellationToken;

use crate::cluster::{Cluster, ClusterMessage, ClusterTiming};
use crate::executor::{AgentExecutor, RequestContext};
use crate::handler::{CallContext, EventStream, RequestHandler};
use crate::push::PushSender;
use crate::retention::{Retention, Sweeper};
use crate::store::{
    InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore, StoreError, TaskStore, Version,
};

/// The default capacity of a task's event channel; see
/// [`DefaultRequestHandlerBuilder::event_capacity`].
pub const DEFAULT_EVENT_CAPACITY: usize = 64;

/// The engine: implements [`RequestHandler`] on top of an [`AgentExecutor`],
/// a [`TaskStore`], a [`PushConfigStore`] and an optional [`PushSender`].
///
/// It enforces the lifecycle rules of the spec: server-generated task and
/// context ids; `blocking` waits for a terminal or interrupted state (or for
/// the execution to return), non-blocking returns the task as soon as it
/// exists; `historyLength` trims history (0 or absent: all); follow-up
/// messages on a non-terminal task append to its history; terminal tasks
/// take no messages; artifact updates honour `append` and `lastChunk`.
///
/// ```no_run
/// # use std::sync::Arc;
/// # use a2a_core::{DefaultRequestHandler, AgentExecutor};
/// # fn card() -> a2a_types::AgentCard { unimplemented!() }
/// # fn agent() -> impl AgentExecutor { struct A; #[async_trait::async_trait] impl AgentExecutor for A {
/// #   async fn execute(&self, _: a2a_core::RequestContext, _: a2a_core::EventSink) -> Result<(), a2a_types::A2aError> { Ok(()) } } A }
/// let handler = DefaultRequestHandler::builder(card(), agent()).build();
/// ```
#[derive(Clone)]
pub struct DefaultRequestHandler {
    engine: Arc<Engine>,
}

impl std::fmt::Debug for DefaultRequestHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefaultRequestHandler")
            .field("agent", &self.engine.card.name)
            .field("running_tasks", &self.engine.runs.len())
            .finish_non_exhaustive()
    }
}

/// Builds a [`DefaultRequestHandler`].
pub struct DefaultRequestHandlerBuilder {
    card: AgentCard,
    extended_card: Option<AgentCard>,
    executor: Arc<dyn AgentExecutor>,
    tasks: Option<Arc<dyn TaskStore>>,
    push_configs: Option<Arc<dyn PushConfigStore>>,
    push_sender: Option<Arc<dyn PushSender>>,
    event_capacity: usize,
    retention: Retention,
    cluster: Option<Arc<dyn Cluster>>,
    cluster_timing: ClusterTiming,
}

impl std::fmt::Debug for DefaultRequestHandlerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefaultRequestHandlerBuilder")
            .field("agent", &self.card.name)
            .finish_non_exhaustive()
    }
}

impl DefaultRequestHandlerBuilder {
    /// The task store (default: [`InMemoryTaskStore`]).
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = Some(store);
        self
    }

    /// The push-config store (default: [`InMemoryPushConfigStore`]).
    #[must_use]
    pub fn push_config_store(mut self, store: Arc<dyn PushConfigStore>) -> Self {
        self.push_configs = Some(store);
        self
    }

    /// The push sender. Without one, the card declares
    /// `pushNotifications: false` and the push-config operations answer
    /// `PushNotificationNotSupportedError`.
    #[must_use]
    pub fn push_sender(mut self, sender: Arc<dyn PushSender>) -> Self {
        self.push_sender = Some(sender);
        self
    }

    /// The card returned by `agent/getAuthenticatedExtendedCard`; setting one
    /// declares `supportsAuthenticatedExtendedCard: true` on the public card.
    #[must_use]
    pub fn extended_agent_card(mut self, card: AgentCard) -> Self {
        self.extended_card = Some(card);
        self
    }

    /// How many events a subscriber may fall behind before it is
    /// resynchronised with a snapshot (default [`DEFAULT_EVENT_CAPACITY`]).
    #[must_use]
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.event_capacity = capacity.max(1);
        self
    }

    /// How long finished tasks are kept (default: all of them); see
    /// [`Retention`].
    #[must_use]
    pub fn retention(mut self, retention: Retention) -> Self {
        self.retention = retention;
        self
    }

    /// Joins a cluster of replicas sharing one store (see
    /// [`Cluster`](crate::Cluster)). [`build`](Self::build) must then be
    /// called inside a Tokio runtime: it starts the background work (the
    /// listener for other replicas' messages, lease renewal, and the sweep
    /// that fails tasks whose replica died).
    #[must_use]
    pub fn cluster(mut self, cluster: Arc<dyn Cluster>, timing: ClusterTiming) -> Self {
        self.cluster = Some(cluster);
        self.cluster_timing = timing;
        self
    }

    /// Builds the handler. The card's `capabilities.pushNotifications` is set
    /// from whether a push sender was configured, `streaming` defaults to
    /// true, and `supportsAuthenticatedExtendedCard` follows the extended card.
    #[must_use]
    pub fn build(self) -> DefaultRequestHandler {
        let mut card = self.card;
        card.capabilities.push_notifications = Some(self.push_sender.is_some());
        card.capabilities.streaming.get_or_insert(true);
        if self.extended_card.is_some() {
            card.supports_authenticated_extended_card = Some(true);
        }
        let mut extended_card = self.extended_card;
        if let Some(ext) = extended_card.as_mut() {
            ext.capabilities.push_notifications = card.capabilities.push_notifications;
            ext.capabilities.streaming = card.capabilities.streaming;
            ext.supports_authenticated_extended_card = Some(true);
        }
        let engine = Arc::new(Engine {
            card: Arc::new(card),
            extended_card,
            executor: self.executor,
            tasks: self
                .tasks
                .unwrap_or_else(|| Arc::new(InMemoryTaskStore::new())),
            push_configs: self
                .push_configs
                .unwrap_or_else(|| Arc::new(InMemoryPushConfigStore::new())),
            push_sender: self.push_sender,
            runs: Map::default(),
            event_capacity: self.event_capacity,
            retention: Sweeper::new(self.retention),
            cluster: self.cluster,
            timing: self.cluster_timing,
            remote: Map::default(),
        });
        if engine.cluster.is_some() {
            start_cluster_work(&engine);
        }
        DefaultRequestHandler { engine }
    }
}

impl DefaultRequestHandler {
    /// Starts building a handler for the agent described by `card`.
    pub fn builder(card: AgentCard, executor: impl AgentExecutor) -> DefaultRequestHandlerBuilder {
        Self::builder_shared(card, Arc::new(executor))
    }

    /// Like [`builder`](Self::builder), for an executor already shared.
    pub fn builder_shared(
        card: AgentCard,
        executor: Arc<dyn AgentExecutor>,
    ) -> DefaultRequestHandlerBuilder {
        DefaultRequestHandlerBuilder {
            card,
            extended_card: None,
            executor,
            tasks: None,
            push_configs: None,
            push_sender: None,
            event_capacity: DEFAULT_EVENT_CAPACITY,
            retention: Retention::default(),
            cluster: None,
            cluster_timing: ClusterTiming::default(),
        }
    }

    /// The task store.
    #[must_use]
    pub fn task_store(&self) -> &Arc<dyn TaskStore> {
        &self.engine.tasks
    }

    /// How many tasks have an execution in flight.
    #[must_use]
    pub fn running_tasks(&self) -> usize {
        self.engine.runs.len()
    }
}

struct Engine {
    card: Arc<AgentCard>,
    extended_card: Option<AgentCard>,
    executor: Arc<dyn AgentExecutor>,
    tasks: Arc<dyn TaskStore>,
    push_configs: Arc<dyn PushConfigStore>,
    push_sender: Option<Arc<dyn PushSender>>,
    runs: Map<String, Arc<Run>>,
    event_capacity: usize,
    retention: Option<Sweeper>,
    cluster: Option<Arc<dyn Cluster>>,
    timing: ClusterTiming,
    /// Feeds of tasks executing on other replicas, for local subscribers.
    remote: Map<String, broadcast::Sender<RemoteItem>>,
}

/// The live state of a task with executions in flight.
struct Run {
    task_id: String,
    state: Arc<Mutex<RunState>>,
    events: broadcast::Sender<RunEvent>,
    cancel: CancellationToken,
    next_exec: AtomicU64,
    /// Pokes the push worker with the latest stored version (see `notify`).
    push: OnceLock<watch::Sender<Version>>,
    /// The task may have push configs: set when the run starts with one (or
    /// in a cluster, where another replica may add one), when it is created
    /// for a stored task that has one, and by `store_push_config`. Until
    /// then no push worker is started and `notify` costs two atomics.
    push_wanted: AtomicBool,
    /// The last stored version `notify` saw (0: none yet), so a config set
    /// while a change was being committed still gets that change.
    last_version: AtomicU64,
}

struct RunState {
    /// The snapshot; `None` until the first task event of a new task. Shared
    /// (not copied) with the store when it keeps tasks in memory, and with
    /// the `Task` events announced to subscribers: a change builds a new
    /// snapshot, it never mutates a shared one.
    task: Option<Arc<Task>>,
    /// The store version of `task`.
    version: Option<Version>,
    /// The context id (known before the task exists).
    context_id: String,
    /// The message that created the task (history seed for a new task).
    first_message: Option<Message>,
    /// The snapshot was read from the store (or the task is new).
    loaded: bool,
    /// Removed from the map; callers holding it must look again.
    retired: bool,
    /// Executions in flight.
    active: usize,
    /// The agent answered with a Message; no more events are accepted.
    replied_with_message: bool,
}

#[derive(Clone, Debug)]
enum RunEvent {
    /// Shared by every receiver; each takes its own copy when it yields it.
    Event(Arc<StreamResponse>),
    /// A `Task` event: the snapshot itself, shared with the run (copied only
    /// by a receiver that yields it).
    Task(Arc<Task>),
    /// An execution returned; `error` is set when its caller must see it
    /// (boxed: it keeps every slot of the channel small).
    Done {
        exec: u64,
        error: Option<Box<A2aError>>,
    },
    /// No execution is in flight any more.
    Idle,
}

impl Run {
    fn new(task_id: String, state: RunState, capacity: usize, push_wanted: bool) -> Arc<Self> {
        let (events, _) = broadcast::channel(capacity);
        Arc::new(Self {
            task_id,
            state: Arc::new(Mutex::new(state)),
            events,
            cancel: CancellationToken::new(),
            next_exec: AtomicU64::new(1),
            push: OnceLock::new(),
            push_wanted: AtomicBool::new(push_wanted),
            last_version: AtomicU64::new(0),
        })
    }

    fn exec_id(&self) -> u64 {
        self.next_exec.fetch_add(1, Ordering::Relaxed)
    }
}

/// Where an execution publishes its events; see [`AgentExecutor`].
///
/// Cloning is cheap. Publishing waits until the event is folded into the
/// task and stored, which is the executor's backpressure.
#[derive(Clone)]
pub struct EventSink {
    engine: Arc<Engine>,
    run: Arc<Run>,
}

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventSink")
            .field("task_id", &self.run.task_id)
            .finish()
    }
}

impl EventSink {
    /// The task id this sink publishes for.
    #[must_use]
    pub fn task_id(&self) -> &str {
        &self.run.task_id
    }

    /// Publishes one event: a `Message` (only as the single reply of a new
    /// task), the `Task`, a status update or an artifact update.
    ///
    /// Fails with `InvalidAgentResponseError` when the event breaks the
    /// protocol (wrong task or context id, a message after task events,
    /// anything after a terminal state).
    pub async fn publish(&self, event: StreamResponse) -> Result<(), A2aError> {
        let mut st = self.run.state.lock().await;
        // Boxed: `apply` is a large future; boxing it keeps every executor
        // future that awaits `publish` small (cheap to move).
        Box::pin(self.engine.apply(&self.run, &mut st, event)).await
    }
}

/// What a task's remote feed carries to local subscribers.
#[derive(Clone, Debug)]
enum RemoteItem {
    Event(Version, Arc<StreamResponse>),
    Idle,
}

/// Starts the cluster's background work; each loop holds only a weak
/// reference and stops when the handler is dropped.
fn start_cluster_work(engine: &Arc<Engine>) {
    let Some(cluster) = engine.cluster.clone() else {
        return;
    };
    let ttl = engine.timing.lease_ttl;
    // Messages from the other replicas.
    let weak = Arc::downgrade(engine);
    let mut messages = cluster.subscribe();
    tokio::spawn(async move {
        loop {
            let message = match messages.recv().await {
                Ok(m) => m,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(
                        skipped = n,
                        "cluster listener lagged; remote streams resynchronise"
                    );
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => break,
            };
            let Some(engine) = weak.upgrade() else { break };
            engine.on_cluster_message(message);
        }
    });
    // Lease renewal for the tasks executing here, and the sweep of tasks
    // whose replica died.
    let weak: Weak<Engine> = Arc::downgrade(engine);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval((ttl / 3).max(std::time::Duration::from_millis(50)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(engine) = weak.upgrade() else { break };
            let local: Vec<String> = engine.runs.iter().map(|r| r.key().clone()).collect();
            for task_id in &local {
                if let Err(e) = cluster.renew(task_id, ttl).await {
                    tracing::warn!(%task_id, error = %e, "could not renew the task's lease");
                }
            }
            match cluster.take_expired().await {
                Ok(expired) => {
                    for task_id in expired {
                        if engine.runs.contains_key(&task_id) {
                            let _ = cluster.renew(&task_id, ttl).await;
                        } else {
                            engine.fail_orphan(&task_id).await;
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "could not read expired leases"),
            }
        }
    });
}

impl Engine {
    fn on_cluster_message(self: Arc<Self>, message: ClusterMessage) {
        match message {
            ClusterMessage::Event {
                task_id,
                version,
                event,
            } => self.forward_remote(&task_id, || RemoteItem::Event(version, event)),
            ClusterMessage::Idle { task_id } => self.forward_remote(&task_id, || RemoteItem::Idle),
            ClusterMessage::Cancel { task_id } => {
                if self.runs.contains_key(&task_id) {
                    tokio::spawn(async move {
                        let params = TaskIdParams::new(&task_id);
                        if let Err(e) = self.cancel_local(&CallContext::default(), params).await {
                            tracing::info!(%task_id, error = %e, "remote cancel request not applied");
                        }
                    });
                }
            }
        }
    }

    /// Hands an item to this replica's subscribers that follow `task_id`
    /// through the cluster; `item` is only built when there are some.
    fn forward_remote(&self, task_id: &str, item: impl FnOnce() -> RemoteItem) {
        if let Some(feed) = self.remote.get(task_id)
            && feed.send(item()).is_err()
        {
            drop(feed);
            self.remote
                .remove_if(task_id, |_, f| f.receiver_count() == 0);
        }
    }

    /// Fails a task whose executing replica stopped renewing its lease.
    async fn fail_orphan(&self, task_id: &str) {
        let Ok((run, mut st)) = self.acquire(task_id).await else {
            return;
        };
        if let Some(task) = st.task.clone()
            && matches!(task.status.state, TaskState::Submitted | TaskState::Working)
        {
            let e = A2aError::internal(
                "the replica executing this task stopped responding (its lease expired)",
            );
            tracing::warn!(%task_id, "failing a task whose replica died");
            if let Err(e) = self.apply(&run, &mut st, failed_event(&task, &e)).await {
                tracing::warn!(%task_id, error = %e, "could not fail the orphaned task");
            }
        }
        self.release(&run, &mut st);
    }
}

fn invalid_agent(msg: impl Into<String>) -> A2aError {
    A2aError::invalid_agent_response(msg)
}

impl Engine {
    /// Folds one executor event into the run's task, stores it and fans it
    /// out. Called with the run's mutex held.
    async fn apply(
        &self,
        run: &Run,
        st: &mut RunState,
        event: StreamResponse,
    ) -> Result<(), A2aError> {
        if st.replied_with_message {
            return Err(invalid_agent(
                "the agent already replied with a message; no more events are accepted",
            ));
        }
        let check_ids = |task_id: &str, context_id: &str, st: &RunState| -> Result<(), A2aError> {
            if task_id != run.task_id {
                return Err(invalid_agent(format!(
                    "event for task {task_id} published on task {}",
                    run.task_id
                )));
            }
            if context_id != st.context_id {
                return Err(invalid_agent(format!(
                    "event context {context_id} differs from the task's {}",
                    st.context_id
                )));
            }
            if let Some(t) = &st.task
                && t.status.state.is_terminal()
            {
                return Err(invalid_agent(format!(
                    "task {} is {} and takes no more events",
                    t.id, t.status.state
                )));
            }
            Ok(())
        };
        match event {
            StreamResponse::Message(mut m) => {
                if st.task.is_some() {
                    return Err(invalid_agent(
                        "a Message can only be the single reply to a new task; publish a status update with a message instead",
                    ));
                }
                if m.role != Role::Agent {
                    return Err(invalid_agent("the agent's reply must have role \"agent\""));
                }
                m.context_id.get_or_insert_with(|| st.context_id.clone());
                st.replied_with_message = true;
                self.broadcast(run, Arc::new(StreamResponse::Message(m)));
                Ok(())
            }
            StreamResponse::Task(mut t) => {
                check_ids(&t.id, &t.context_id, st)?;
                if st.task.is_none() && t.history.as_ref().is_none_or(Vec::is_empty) {
                    t.history = st.first_message.take().map(|m| vec![m]);
                }
                t.status.timestamp.get_or_insert_with(crate::now_rfc3339);
                // The published task replaces the snapshot: nothing to announce first.
                let _ = self.ensure_task(run, st);
                let t = Arc::new(t);
                self.commit_with(st, |task| {
                    ensure_open(task)?;
                    Ok(Arc::clone(&t))
                })
                .await?;
                self.emit_task(run, st.version, t).await;
                self.notify(run, st);
                Ok(())
            }
            StreamResponse::StatusUpdate(mut e) => {
                check_ids(&e.task_id, &e.context_id, st)?;
                e.status.timestamp.get_or_insert_with(crate::now_rfc3339);
                e.is_final |= e.status.state.is_final();
                let announce = self.ensure_task(run, st);
                // Shared from here on: the future holds a pointer across its
                // awaits, and subscribers get the allocation without a move.
                let event = Arc::new(StreamResponse::StatusUpdate(e));
                let StreamResponse::StatusUpdate(e) = &*event else {
                    unreachable!("built above")
                };
                self.commit(st, |task| {
                    ensure_open(task)?;
                    archive_status_message(task);
                    task.status.clone_from(&e.status);
                    Ok(())
                })
                .await?;
                if let Some(t) = announce {
                    self.emit_task(run, st.version, t).await;
                }
                self.emit(run, st.version, event).await;
                self.notify(run, st);
                Ok(())
            }
            StreamResponse::ArtifactUpdate(e) => {
                check_ids(&e.task_id, &e.context_id, st)?;
                let announce = self.ensure_task(run, st);
                let event = Arc::new(StreamResponse::ArtifactUpdate(e));
                let StreamResponse::ArtifactUpdate(e) = &*event else {
                    unreachable!("built above")
                };
                self.commit(st, |task| {
                    ensure_open(task)?;
                    fold_artifact(task, e);
                    Ok(())
                })
                .await?;
                if let Some(t) = announce {
                    self.emit_task(run, st.version, t).await;
                }
                self.emit(run, st.version, event).await;
                self.notify(run, st);
                Ok(())
            }
        }
    }

    fn broadcast(&self, run: &Run, event: Arc<StreamResponse>) {
        let _ = run.events.send(RunEvent::Event(event));
    }

    /// Sends a stored change to local subscribers and, in a cluster, to the
    /// other replicas (under the run's mutex, so in commit order).
    async fn emit(&self, run: &Run, version: Option<Version>, event: Arc<StreamResponse>) {
        if let (Some(cluster), Some(version)) = (&self.cluster, version) {
            self.publish_remote(cluster, run, version, &event).await;
        }
        self.broadcast(run, event);
    }

    /// [`emit`](Self::emit) for a `Task` event: the snapshot is shared with
    /// the local subscribers, not copied.
    async fn emit_task(&self, run: &Run, version: Option<Version>, task: Arc<Task>) {
        if let (Some(cluster), Some(version)) = (&self.cluster, version) {
            let event = Arc::new(StreamResponse::Task(Task::clone(&task)));
            self.publish_remote(cluster, run, version, &event).await;
        }
        let _ = run.events.send(RunEvent::Task(task));
    }

    async fn publish_remote(
        &self,
        cluster: &Arc<dyn Cluster>,
        run: &Run,
        version: Version,
        event: &Arc<StreamResponse>,
    ) {
        // Subscribers on this replica that follow the task through the
        // cluster (its run started elsewhere: a lease sweep or a cancel that
        // gave up on the owner writes it here) never hear this replica's own
        // publication; hand them the event directly. They skip versions they
        // have seen, so a later echo is harmless.
        self.forward_remote(&run.task_id, || {
            RemoteItem::Event(version, Arc::clone(event))
        });
        let message = ClusterMessage::Event {
            task_id: run.task_id.clone(),
            version,
            event: Arc::clone(event),
        };
        if let Err(e) = cluster.publish(&message).await {
            tracing::warn!(task_id = %run.task_id, error = %e, "could not publish to the cluster");
        }
    }

    /// Makes sure the run has a snapshot to fold into: for a new task, a fresh
    /// `submitted` task holding the first message, not yet stored. Returns
    /// that fresh snapshot, which the caller announces to subscribers (before
    /// the event that created it) once the first write succeeded, so every
    /// stream starts with the `Task`.
    fn ensure_task(&self, run: &Run, st: &mut RunState) -> Option<Arc<Task>> {
        if st.task.is_some() {
            return None;
        }
        let mut task = Task::new(
            run.task_id.clone(),
            st.context_id.clone(),
            TaskState::Submitted,
        );
        task.status.timestamp = Some(crate::now_rfc3339());
        task.history = st.first_message.take().map(|m| vec![m]);
        let task = Arc::new(task);
        st.task = Some(Arc::clone(&task));
        st.version = None;
        Some(task)
    }

    /// Applies `fold` to the run's snapshot and stores the result (creating
    /// the task when it was never stored). When the store refuses the write
    /// because another writer, such as another replica, changed the task
    /// since it was read, the fresh snapshot is read back and `fold` applied
    /// again: no update is lost and none is applied twice. `fold` re-checks
    /// its preconditions on the fresh snapshot.
    async fn commit(
        &self,
        st: &mut RunState,
        fold: impl Fn(&mut Task) -> Result<(), A2aError>,
    ) -> Result<(), A2aError> {
        self.commit_with(st, |current| {
            // A new snapshot: the current one may be shared (store, events).
            let mut task = Task::clone(current);
            fold(&mut task)?;
            Ok(Arc::new(task))
        })
        .await
    }

    /// [`commit`](Self::commit) with a function from the current snapshot to
    /// the next one (which may be a task built elsewhere, not a copy).
    async fn commit_with(
        &self,
        st: &mut RunState,
        next: impl Fn(&Task) -> Result<Arc<Task>, A2aError>,
    ) -> Result<(), A2aError> {
        const ATTEMPTS: usize = 16;
        let mut task_id = String::new();
        for _ in 0..ATTEMPTS {
            let current = st
                .task
                .as_deref()
                .ok_or_else(|| A2aError::internal("no task to update"))?;
            let was_terminal = st.version.is_some() && current.status.state.is_terminal();
            let task = next(current)?;
            match self.tasks.save_shared(&task, st.version).await {
                Ok(version) => {
                    if task.status.state.is_terminal()
                        && !was_terminal
                        && let Some(sweeper) = &self.retention
                    {
                        sweeper
                            .finished(&task.id, &self.tasks, &self.push_configs)
                            .await;
                    }
                    st.version = Some(version);
                    st.task = Some(task);
                    return Ok(());
                }
                Err(StoreError::Conflict) => {
                    tracing::debug!(task_id = %task.id, "stale write refused; re-reading the task");
                    match self.tasks.get_shared(&task.id).await? {
                        Some((fresh, version)) => {
                            st.task = Some(fresh);
                            st.version = Some(version);
                        }
                        None => return Err(A2aError::task_not_found_id(&task.id)),
                    }
                    task_id.clone_from(&task.id);
                }
                Err(StoreError::Failed(e)) => return Err(e),
            }
        }
        Err(A2aError::internal(format!(
            "task {task_id} is changed too often by other writers; gave up after {ATTEMPTS} attempts"
        )))
    }

    /// Hands the task to the push sender for each of its configs.
    /// Tells the task's push worker that the task changed (no copy, no I/O
    /// here). The worker, started on the first change, delivers the latest
    /// stored snapshot to every config of the task, one delivery at a time:
    /// a webhook sees the task's states in order, never an older snapshot
    /// after a newer one, and a burst of changes during a slow delivery is
    /// coalesced into one (latest-wins), so memory stays bounded.
    ///
    /// Nothing happens until the task may have a push config
    /// (`Run::push_wanted`), so a task without one starts no worker.
    fn notify(&self, run: &Run, st: &RunState) {
        let (Some(_), Some(version)) = (&self.push_sender, st.version) else {
            return;
        };
        // Paired with `store_push_config` (SeqCst on both sides): either this
        // sees the flag, or that sees this version and pokes the worker.
        run.last_version.store(version, Ordering::SeqCst);
        if run.push_wanted.load(Ordering::SeqCst) {
            self.poke_push_worker(run, version);
        }
    }

    /// Starts the task's push worker if needed and hands it `version`.
    fn poke_push_worker(&self, run: &Run, version: Version) {
        let Some(sender) = &self.push_sender else {
            return;
        };
        let tx = run.push.get_or_init(|| {
            let (tx, rx) = watch::channel(0);
            tokio::spawn(push_worker(
                rx,
                run.task_id.clone(),
                Arc::clone(sender),
                Arc::clone(&self.tasks),
                Arc::clone(&self.push_configs),
            ));
            tx
        });
        tx.send_replace(version);
    }

    /// The run of an existing task, locked, with its snapshot loaded; creates
    /// the run from the store when no execution is in flight.
    async fn acquire(
        &self,
        task_id: &str,
    ) -> Result<(Arc<Run>, OwnedMutexGuard<RunState>), A2aError> {
        loop {
            let run = self
                .runs
                .entry(task_id.to_owned())
                .or_insert_with(|| {
                    Run::new(
                        task_id.to_owned(),
                        RunState {
                            task: None,
                            version: None,
                            context_id: String::new(),
                            first_message: None,
                            loaded: false,
                            retired: false,
                            active: 0,
                            replied_with_message: false,
                        },
                        self.event_capacity,
                        self.cluster.is_some(),
                    )
                })
                .clone();
            let mut st = Arc::clone(&run.state).lock_owned().await;
            if st.retired {
                continue;
            }
            if !st.loaded {
                match self.tasks.get_shared(task_id).await {
                    Ok(Some((task, version))) => {
                        st.context_id.clone_from(&task.context_id);
                        st.task = Some(task);
                        st.version = Some(version);
                        st.loaded = true;
                        self.load_push_wanted(&run).await;
                    }
                    Ok(None) => {
                        self.release(&run, &mut st);
                        return Err(A2aError::task_not_found_id(task_id));
                    }
                    Err(e) => {
                        self.release(&run, &mut st);
                        return Err(e);
                    }
                }
            }
            if st.task.is_none() {
                self.release(&run, &mut st);
                return Err(A2aError::task_not_found_id(task_id));
            }
            return Ok((run, st));
        }
    }

    /// Retires the run if no execution is in flight.
    fn release(&self, run: &Arc<Run>, st: &mut RunState) {
        if st.active == 0 && !st.retired {
            st.retired = true;
            self.runs
                .remove_if(&run.task_id, |_, v| Arc::ptr_eq(v, run));
        }
    }

    fn spawn_execution(self: &Arc<Self>, run: Arc<Run>, exec: u64, ctx: RequestContext) {
        let engine = Arc::clone(self);
        // Boxed: the task cell then holds a pointer, not the whole execution
        // future, which tokio would otherwise copy on spawn and on each stage
        // change.
        tokio::spawn(Box::pin(async move {
            if let Some(cluster) = &engine.cluster
                && let Err(e) = cluster.renew(&run.task_id, engine.timing.lease_ttl).await
            {
                tracing::warn!(task_id = %run.task_id, error = %e, "could not take the task's lease");
            }
            let sink = EventSink {
                engine: Arc::clone(&engine),
                run: Arc::clone(&run),
            };
            let result = std::panic::AssertUnwindSafe(engine.executor.execute(ctx, sink))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(A2aError::internal("the agent panicked")));
            engine.finish_execution(&run, exec, result).await;
        }));
    }

    async fn finish_execution(&self, run: &Arc<Run>, exec: u64, result: Result<(), A2aError>) {
        let mut st = Arc::clone(&run.state).lock_owned().await;
        let error = match (result, &st.task) {
            (Err(e), Some(task)) => {
                if !task.status.state.is_terminal() {
                    tracing::warn!(task_id = %run.task_id, error = %e, "execution failed; marking the task failed");
                    let event = failed_event(task, &e);
                    if let Err(e2) = Box::pin(self.apply(run, &mut st, event)).await {
                        tracing::error!(task_id = %run.task_id, error = %e2, "could not mark the task failed");
                    }
                }
                None
            }
            (Err(e), None) => (!st.replied_with_message).then(|| Box::new(e)),
            (Ok(()), None) if !st.replied_with_message => Some(Box::new(invalid_agent(
                "the agent finished without publishing a task or a message",
            ))),
            (Ok(()), _) => None,
        };
        st.active -= 1;
        let _ = run.events.send(RunEvent::Done { exec, error });
        if st.active == 0 {
            let _ = run.events.send(RunEvent::Idle);
            if let Some(cluster) = &self.cluster {
                let idle = ClusterMessage::Idle {
                    task_id: run.task_id.clone(),
                };
                if let Err(e) = cluster.publish(&idle).await {
                    tracing::warn!(task_id = %run.task_id, error = %e, "could not publish to the cluster");
                }
                if let Err(e) = cluster.release(&run.task_id).await {
                    tracing::warn!(task_id = %run.task_id, error = %e, "could not release the task's lease");
                }
            }
            self.release(run, &mut st);
        }
    }

    /// The feed of a task executing on another replica (subscribe before
    /// reading the snapshot).
    fn remote_feed(&self, task_id: &str) -> broadcast::Receiver<RemoteItem> {
        self.remote
            .entry(task_id.to_owned())
            .or_insert_with(|| broadcast::channel(self.event_capacity).0)
            .subscribe()
    }

    /// The replica that executes the task, when it is not this one.
    async fn remote_owner(&self, task_id: &str) -> Result<Option<String>, A2aError> {
        let Some(cluster) = &self.cluster else {
            return Ok(None);
        };
        if self.runs.contains_key(task_id) {
            return Ok(None);
        }
        Ok(cluster
            .owner(task_id)
            .await?
            .filter(|owner| owner != cluster.replica_id()))
    }

    /// Cancels a task this replica executes (or that nobody executes).
    async fn cancel_local(
        self: &Arc<Self>,
        ctx: &CallContext,
        params: TaskIdParams,
    ) -> Result<Task, A2aError> {
        let engine = self;
        let (run, mut st) = engine.acquire(&params.id).await?;
        let Some(task) = st.task.as_deref().cloned() else {
            engine.release(&run, &mut st);
            return Err(A2aError::task_not_found_id(&params.id));
        };
        if task.status.state.is_terminal() {
            engine.release(&run, &mut st);
            return Err(A2aError::task_not_cancelable(format!(
                "task {} is already {} and cannot be canceled",
                task.id, task.status.state
            )));
        }
        run.cancel.cancel();
        st.active += 1;
        drop(st);
        let exec = run.exec_id();
        let rctx = RequestContext {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            message: None,
            task: Some(task.clone()),
            configuration: None,
            metadata: params.metadata,
            call: ctx.clone(),
            cancellation: run.cancel.clone(),
        };
        let sink = EventSink {
            engine: Arc::clone(engine),
            run: Arc::clone(&run),
        };
        let result = std::panic::AssertUnwindSafe(engine.executor.cancel(rctx, sink))
            .catch_unwind()
            .await
            .unwrap_or_else(|_| Err(A2aError::internal("the agent panicked while canceling")));
        let outcome = match result {
            Ok(()) => {
                let mut st = run.state.lock().await;
                let current = st.task.as_deref().cloned().unwrap_or(task);
                if current.status.state.is_terminal() {
                    Ok(())
                } else {
                    let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                        task_id: current.id.clone(),
                        context_id: current.context_id.clone(),
                        status: TaskStatus {
                            state: TaskState::Canceled,
                            message: None,
                            timestamp: Some(crate::now_rfc3339()),
                        },
                        is_final: true,
                        metadata: None,
                    });
                    engine.apply(&run, &mut st, event).await
                }
            }
            Err(e) => Err(e),
        };
        engine.finish_execution(&run, exec, Ok(())).await;
        outcome?;
        let task = engine.require_task(&params.id).await?;
        if !task.status.state.is_terminal() {
            return Err(A2aError::task_not_cancelable(format!(
                "task {} could not be canceled",
                task.id
            )));
        }
        Ok(task)
    }

    fn validate_send(&self, params: &MessageSendParams) -> Result<(), A2aError> {
        let m = &params.message;
        if m.message_id.is_empty() {
            return Err(A2aError::invalid_params(
                "message.messageId must not be empty",
            ));
        }
        if m.parts.is_empty() {
            return Err(A2aError::invalid_params("message.parts must not be empty"));
        }
        if m.role != Role::User {
            return Err(A2aError::invalid_params("message.role must be \"user\""));
        }
        check_history_length(params.history_length())?;
        if let Some(modes) = params
            .configuration
            .as_ref()
            .and_then(|c| c.accepted_output_modes.as_ref())
        {
            let offered = &self.card.default_output_modes;
            if !modes.is_empty()
                && !offered.is_empty()
                && !modes
                    .iter()
                    .any(|m| offered.iter().any(|o| mime_matches(m, o)))
            {
                return Err(A2aError::content_type_not_supported(format!(
                    "none of the accepted output modes {modes:?} is produced by this agent ({offered:?})"
                )));
            }
        }
        if params
            .configuration
            .as_ref()
            .is_some_and(|c| c.push_notification_config.is_some())
            && self.push_sender.is_none()
        {
            return Err(A2aError::push_notification_not_supported(
                "this agent does not send push notifications",
            ));
        }
        Ok(())
    }

    /// Starts an execution for a send: a new task, or a follow-up message on
    /// an existing one. Returns the run, the execution id, a receiver
    /// subscribed before the execution started, and (for a follow-up) the
    /// task snapshot with the new message in its history.
    async fn begin(
        self: &Arc<Self>,
        call: &CallContext,
        params: MessageSendParams,
    ) -> Result<(Arc<Run>, u64, broadcast::Receiver<RunEvent>, Option<Task>), A2aError> {
        self.validate_send(&params)?;
        let MessageSendParams {
            mut message,
            configuration,
            metadata,
        } = params;
        match message.task_id.clone() {
            None => {
                let task_id = crate::new_id();
                let context_id = message.context_id.clone().unwrap_or_else(crate::new_id);
                message.task_id = Some(task_id.clone());
                message.context_id = Some(context_id.clone());
                let with_push = configuration
                    .as_ref()
                    .and_then(|c| c.push_notification_config.clone());
                let push_wanted = with_push.is_some() || self.cluster.is_some();
                if let Some(cfg) = with_push {
                    self.store_push_config(&task_id, cfg).await?;
                }
                let run = Run::new(
                    task_id.clone(),
                    RunState {
                        task: None,
                        version: None,
                        context_id: context_id.clone(),
                        first_message: Some(message.clone()),
                        loaded: true,
                        retired: false,
                        active: 1,
                        replied_with_message: false,
                    },
                    self.event_capacity,
                    push_wanted,
                );
                self.runs.insert(task_id.clone(), Arc::clone(&run));
                let rx = run.events.subscribe();
                let exec = run.exec_id();
                let ctx = RequestContext {
                    task_id,
                    context_id,
                    message: Some(message),
                    task: None,
                    configuration,
                    metadata,
                    call: call.clone(),
                    cancellation: run.cancel.child_token(),
                };
                self.spawn_execution(Arc::clone(&run), exec, ctx);
                Ok((run, exec, rx, None))
            }
            Some(task_id) => {
                let (run, mut st) = self.acquire(&task_id).await?;
                let checked = (|| {
                    let task = st
                        .task
                        .as_ref()
                        .ok_or_else(|| A2aError::task_not_found_id(&task_id))?;
                    if task.status.state.is_terminal() {
                        return Err(A2aError::invalid_params(format!(
                            "task {task_id} is in terminal state {} and takes no more messages",
                            task.status.state
                        )));
                    }
                    if message
                        .context_id
                        .as_ref()
                        .is_some_and(|c| *c != task.context_id)
                    {
                        return Err(A2aError::invalid_params(format!(
                            "contextId {} does not match the task's contextId {}",
                            message.context_id.as_deref().unwrap_or_default(),
                            task.context_id
                        )));
                    }
                    Ok(task.clone())
                })();
                let task = match checked {
                    Ok(t) => t,
                    Err(e) => {
                        self.release(&run, &mut st);
                        return Err(e);
                    }
                };
                if let Some(cfg) = configuration
                    .as_ref()
                    .and_then(|c| c.push_notification_config.clone())
                    && let Err(e) = self.store_push_config(&task_id, cfg).await
                {
                    self.release(&run, &mut st);
                    return Err(e);
                }
                message.context_id = Some(task.context_id.clone());
                let committed = self
                    .commit(&mut st, |task| {
                        ensure_open_for_messages(task)?;
                        archive_status_message(task);
                        task.history
                            .get_or_insert_with(Vec::new)
                            .push(message.clone());
                        // The answer ends the interruption: until the agent
                        // says more, the task is `submitted` (received, not yet
                        // worked on), so no reader mistakes the old
                        // `input-required` for the new outcome.
                        if task.status.state.is_interrupted() {
                            task.status = TaskStatus {
                                state: TaskState::Submitted,
                                message: None,
                                timestamp: Some(crate::now_rfc3339()),
                            };
                        }
                        Ok(())
                    })
                    .await;
                if let Err(e) = committed {
                    self.release(&run, &mut st);
                    return Err(e);
                }
                let task = Arc::unwrap_or_clone(st.task.clone().unwrap_or(task));
                st.active += 1;
                let rx = run.events.subscribe();
                drop(st);
                let exec = run.exec_id();
                let ctx = RequestContext {
                    task_id,
                    context_id: task.context_id.clone(),
                    message: Some(message),
                    task: Some(task.clone()),
                    configuration,
                    metadata,
                    call: call.clone(),
                    cancellation: run.cancel.child_token(),
                };
                self.spawn_execution(Arc::clone(&run), exec, ctx);
                Ok((run, exec, rx, Some(task)))
            }
        }
    }

    async fn store_push_config(
        &self,
        task_id: &str,
        mut cfg: PushNotificationConfig,
    ) -> Result<PushNotificationConfig, A2aError> {
        if self.push_sender.is_none() {
            return Err(A2aError::push_notification_not_supported(
                "this agent does not send push notifications",
            ));
        }
        if !(cfg.url.starts_with("http://") || cfg.url.starts_with("https://")) {
            return Err(A2aError::invalid_params(format!(
                "pushNotificationConfig.url must be an http(s) URL, got {:?}",
                cfg.url
            )));
        }
        if cfg.id.as_deref().is_none_or(str::is_empty) {
            cfg.id = Some(task_id.to_owned());
        }
        let before = self
            .runs
            .get(task_id)
            .map_or(0, |r| r.last_version.load(Ordering::SeqCst));
        self.push_configs.set(task_id, cfg.clone()).await?;
        // Looked up again: a run created meanwhile may have listed the
        // configs before this one was stored.
        let run = self.runs.get(task_id).map(|r| Arc::clone(r.value()));
        if let Some(run) = run {
            // Paired with `notify`: a change committed while the config was
            // being stored may have seen the flag still down; hand it over
            // (versions only grow, so an equal one means no such change).
            if !run.push_wanted.swap(true, Ordering::SeqCst) {
                let now = run.last_version.load(Ordering::SeqCst);
                if now != before {
                    self.poke_push_worker(&run, now);
                }
            }
        }
        Ok(cfg)
    }

    /// Raises `run.push_wanted` when its stored task already has a push
    /// config (a run created for a task stored earlier, maybe before a
    /// restart). A store error counts as "maybe": the worker then looks.
    async fn load_push_wanted(&self, run: &Run) {
        if self.push_sender.is_none() || run.push_wanted.load(Ordering::SeqCst) {
            return;
        }
        let wanted = self
            .push_configs
            .list(&run.task_id)
            .await
            .map_or(true, |c| !c.is_empty());
        if wanted {
            run.push_wanted.store(true, Ordering::SeqCst);
        }
    }

    async fn snapshot(&self, run: &Run) -> Option<Arc<Task>> {
        run.state.lock().await.task.clone()
    }

    async fn require_task(&self, task_id: &str) -> Result<Task, A2aError> {
        match self.tasks.get(task_id).await? {
            Some((t, _)) => Ok(t),
            None => Err(A2aError::task_not_found_id(task_id)),
        }
    }

    fn require_push(&self) -> Result<(), A2aError> {
        if self.push_sender.is_none() {
            return Err(A2aError::push_notification_not_supported(
                "this agent does not send push notifications",
            ));
        }
        Ok(())
    }
}

/// Delivers a task's changes to its push configs, in order, until the task's
/// run is retired (its sender dropped) and the last change is delivered.
async fn push_worker(
    mut changes: watch::Receiver<Version>,
    task_id: String,
    sender: Arc<dyn PushSender>,
    tasks: Arc<dyn TaskStore>,
    push_configs: Arc<dyn PushConfigStore>,
) {
    let mut delivered: Version = 0;
    while changes.changed().await.is_ok() {
        let version = *changes.borrow_and_update();
        if version <= delivered {
            continue;
        }
        let configs = match push_configs.list(&task_id).await {
            Ok(c) if c.is_empty() => continue,
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(%task_id, error = %e, "could not read push configs");
                continue;
            }
        };
        let (task, version) = match tasks.get(&task_id).await {
            Ok(Some(found)) => found,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(%task_id, error = %e, "could not read the task for push");
                continue;
            }
        };
        for config in &configs {
            if let Err(e) = sender.send(config, &task).await {
                tracing::warn!(%task_id, url = %config.url, error = %e, "push notification failed");
            }
        }
        delivered = version;
    }
}

/// Refuses an agent event for a task that is already terminal.
fn ensure_open(task: &Task) -> Result<(), A2aError> {
    if task.status.state.is_terminal() {
        return Err(invalid_agent(format!(
            "task {} is {} and takes no more events",
            task.id, task.status.state
        )));
    }
    Ok(())
}

/// Refuses a client message for a task that is already terminal.
fn ensure_open_for_messages(task: &Task) -> Result<(), A2aError> {
    if task.status.state.is_terminal() {
        return Err(A2aError::invalid_params(format!(
            "task {} is in terminal state {} and takes no more messages",
            task.id, task.status.state
        )));
    }
    Ok(())
}

/// Moves the current status message (if any) into the history, so that the
/// history keeps the agent's questions in order before the next change.
fn archive_status_message(task: &mut Task) {
    if let Some(m) = task.status.message.take() {
        let history = task.history.get_or_insert_with(Vec::new);
        if !history.iter().any(|h| h.message_id == m.message_id) {
            history.push(m);
        }
    }
}

/// Applies an artifact update: `append` extends the artifact with the same
/// id, otherwise the artifact replaces the one with the same id or is added.
fn fold_artifact(task: &mut Task, e: &a2a_types::TaskArtifactUpdateEvent) {
    let artifacts = task.artifacts.get_or_insert_with(Vec::new);
    let existing = artifacts
        .iter_mut()
        .find(|a| a.artifact_id == e.artifact.artifact_id);
    match (existing, e.append.unwrap_or(false)) {
        (Some(a), true) => {
            a.parts.extend(e.artifact.parts.iter().cloned());
            if e.artifact.name.is_some() {
                a.name.clone_from(&e.artifact.name);
            }
            if e.artifact.description.is_some() {
                a.description.clone_from(&e.artifact.description);
            }
            if let Some(m) = &e.artifact.metadata {
                a.metadata
                    .get_or_insert_with(Default::default)
                    .extend(m.clone());
            }
        }
        (Some(a), false) => *a = e.artifact.clone(),
        (None, _) => artifacts.push(e.artifact.clone()),
    }
}

fn failed_event(task: &Task, e: &A2aError) -> StreamResponse {
    let mut msg = Message::agent_text(
        crate::new_id(),
        format!("The agent failed: {}", e.message()),
    );
    msg.task_id = Some(task.id.clone());
    msg.context_id = Some(task.context_id.clone());
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: TaskStatus {
            state: TaskState::Failed,
            message: Some(msg),
            timestamp: Some(crate::now_rfc3339()),
        },
        is_final: true,
        metadata: None,
    })
}

/// `text/*` matches `text/plain`; `*/*` matches anything.
fn mime_matches(accepted: &str, offered: &str) -> bool {
    let (a, o) = (accepted.trim(), offered.trim());
    if a == "*/*" || o == "*/*" || a.eq_ignore_ascii_case(o) {
        return true;
    }
    match (a.split_once('/'), o.split_once('/')) {
        (Some((at, "*")), Some((ot, _))) | (Some((at, _)), Some((ot, "*"))) => {
            at.eq_ignore_ascii_case(ot)
        }
        _ => false,
    }
}

fn check_history_length(n: Option<i32>) -> Result<(), A2aError> {
    match n {
        Some(n) if n < 0 => Err(A2aError::invalid_params(format!(
            "historyLength must not be negative, got {n}"
        ))),
        _ => Ok(()),
    }
}

/// Events of one subscription: `initial` first (if any), then the live
/// events until a final one, the subscriber's own execution ending (`exec`),
/// or no execution being in flight. A lagging subscriber is resynchronised
/// with a fresh snapshot.
/// Events of a task executing on another replica: the snapshot, then every
/// remote event newer than it, until a final event or the owner going idle.
/// A subscriber that lags re-reads the snapshot from the store.
fn remote_subscription(
    engine: Arc<Engine>,
    mut feed: broadcast::Receiver<RemoteItem>,
    snapshot: Task,
    mut version: Version,
) -> EventStream {
    Box::pin(async_stream::stream! {
        let task_id = snapshot.id.clone();
        yield Ok(StreamResponse::Task(snapshot));
        loop {
            match feed.recv().await {
                Ok(RemoteItem::Event(v, ev)) => {
                    // Events are delivered in commit order; those at or below
                    // the snapshot's version are already folded into it.
                    if v <= version {
                        continue;
                    }
                    let fin = ev.is_final();
                    yield Ok(Arc::unwrap_or_clone(ev));
                    if fin { break; }
                }
                Ok(RemoteItem::Idle) | Err(broadcast::error::RecvError::Closed) => break,
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    match engine.tasks.get(&task_id).await {
                        Ok(Some((task, v))) => {
                            version = v;
                            let fin = task.status.state.is_final();
                            yield Ok(StreamResponse::Task(task));
                            if fin { break; }
                        }
                        Ok(None) => break,
                        Err(e) => { yield Err(e); break; }
                    }
                }
            }
        }
    })
}

fn subscription(
    engine: Arc<Engine>,
    run: Arc<Run>,
    mut rx: broadcast::Receiver<RunEvent>,
    initial: Option<Task>,
    exec: Option<u64>,
) -> EventStream {
    Box::pin(async_stream::stream! {
        let _engine = engine;
        if let Some(t) = initial {
            yield Ok(StreamResponse::Task(t));
        }
        loop {
            match rx.recv().await {
                Ok(RunEvent::Event(ev)) => {
                    let fin = ev.is_final();
                    yield Ok(Arc::unwrap_or_clone(ev));
                    if fin { break; }
                }
                Ok(RunEvent::Task(t)) => {
                    let fin = t.status.state.is_final();
                    yield Ok(StreamResponse::Task(Arc::unwrap_or_clone(t)));
                    if fin { break; }
                }
                Ok(RunEvent::Done { exec: done, error }) => {
                    if Some(done) == exec {
                        if let Some(e) = error { yield Err(*e); }
                        break;
                    }
                }
                Ok(RunEvent::Idle) | Err(broadcast::error::RecvError::Closed) => break,
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::debug!(task_id = %run.task_id, skipped = n, "subscriber lagged; resynchronising");
                    let st = run.state.lock().await;
                    rx = run.events.subscribe();
                    let snapshot = st.task.clone();
                    let idle = st.active == 0;
                    drop(st);
                    match snapshot {
                        Some(t) => {
                            let fin = t.status.state.is_final();
                            yield Ok(StreamResponse::Task(Arc::unwrap_or_clone(t)));
                            if fin || idle { break; }
                        }
                        None if idle => break,
                        None => {}
                    }
                }
            }
        }
    })
}

#[async_trait]
impl RequestHandler for DefaultRequestHandler {
    fn agent_card(&self) -> Arc<AgentCard> {
        Arc::clone(&self.engine.card)
    }

    async fn send_message(
        &self,
        ctx: &CallContext,
        params: MessageSendParams,
    ) -> Result<SendMessageResult, A2aError> {
        let engine = &self.engine;
        let blocking = params.blocking();
        let history_length = params.history_length();
        let (run, exec, mut rx, initial) = engine.begin(ctx, params).await?;
        let finish = |mut t: Task| {
            t.trim_history(history_length);
            Ok(SendMessageResult::Task(t))
        };
        if !blocking && let Some(t) = initial {
            return finish(t);
        }
        loop {
            match rx.recv().await {
                Ok(RunEvent::Event(ev)) if matches!(*ev, StreamResponse::Message(_)) => {
                    if let StreamResponse::Message(m) = Arc::unwrap_or_clone(ev) {
                        return Ok(SendMessageResult::Message(m));
                    }
                }
                Ok(RunEvent::Event(ev)) => {
                    if !blocking || ev.is_final() {
                        break;
                    }
                }
                Ok(RunEvent::Task(t)) => {
                    if !blocking || t.status.state.is_final() {
                        break;
                    }
                }
                Ok(RunEvent::Done { exec: done, error }) if done == exec => {
                    if let Some(e) = error {
                        return Err(*e);
                    }
                    break;
                }
                Ok(RunEvent::Done { .. }) => {}
                Ok(RunEvent::Idle) | Err(broadcast::error::RecvError::Closed) => break,
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let st = run.state.lock().await;
                    if st
                        .task
                        .as_ref()
                        .is_some_and(|t| !blocking || t.status.state.is_final())
                    {
                        break;
                    }
                    rx = run.events.subscribe();
                }
            }
        }
        match engine.snapshot(&run).await {
            Some(t) => finish(Arc::unwrap_or_clone(t)),
            None => Err(invalid_agent(
                "the agent finished without publishing a task or a message",
            )),
        }
    }

    async fn send_message_stream(
        &self,
        ctx: &CallContext,
        params: MessageSendParams,
    ) -> Result<EventStream, A2aError> {
        if self.engine.card.capabilities.streaming == Some(false) {
            return Err(A2aError::unsupported_operation(
                "this agent does not support streaming",
            ));
        }
        let (run, exec, rx, initial) = self.engine.begin(ctx, params).await?;
        Ok(subscription(
            Arc::clone(&self.engine),
            run,
            rx,
            initial,
            Some(exec),
        ))
    }

    async fn get_task(
        &self,
        _ctx: &CallContext,
        params: TaskQueryParams,
    ) -> Result<Task, A2aError> {
        check_history_length(params.history_length)?;
        let mut task = self.engine.require_task(&params.id).await?;
        task.trim_history(params.history_length);
        Ok(task)
    }

    async fn cancel_task(&self, ctx: &CallContext, params: TaskIdParams) -> Result<Task, A2aError> {
        let engine = &self.engine;
        if let (Some(cluster), Some(owner)) =
            (&engine.cluster, engine.remote_owner(&params.id).await?)
        {
            // Another replica runs the task: ask it, and wait for the outcome.
            let mut feed = engine.remote_feed(&params.id);
            let task = engine.require_task(&params.id).await?;
            if task.status.state.is_terminal() {
                return Err(A2aError::task_not_cancelable(format!(
                    "task {} is already {} and cannot be canceled",
                    task.id, task.status.state
                )));
            }
            tracing::debug!(task_id = %params.id, %owner, "asking the owning replica to cancel");
            cluster
                .publish(&ClusterMessage::Cancel {
                    task_id: params.id.clone(),
                })
                .await?;
            let waited = tokio::time::timeout(engine.timing.cancel_wait, async {
                loop {
                    match feed.recv().await {
                        Ok(RemoteItem::Event(_, ev)) if matches!(&*ev, StreamResponse::StatusUpdate(s) if s.status.state.is_terminal()) => break,
                        Ok(RemoteItem::Idle) | Err(broadcast::error::RecvError::Closed) => break,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    }
                }
            })
            .await;
            let task = engine.require_task(&params.id).await?;
            if task.status.state.is_terminal() {
                return Ok(task);
            }
            tracing::warn!(task_id = %params.id, %owner, timed_out = waited.is_err(), "the owning replica did not cancel; canceling here");
        }
        engine.cancel_local(ctx, params).await
    }

    async fn resubscribe_task(
        &self,
        _ctx: &CallContext,
        params: TaskIdParams,
    ) -> Result<EventStream, A2aError> {
        let engine = &self.engine;
        if engine.card.capabilities.streaming == Some(false) {
            return Err(A2aError::unsupported_operation(
                "this agent does not support streaming",
            ));
        }
        let run = engine.runs.get(&params.id).map(|r| Arc::clone(r.value()));
        if let Some(run) = run {
            let st = run.state.lock().await;
            if !st.retired
                && let Some(task) = st.task.as_deref().cloned()
            {
                let rx = run.events.subscribe();
                let idle = st.active == 0;
                drop(st);
                if !idle && !task.status.state.is_final() {
                    return Ok(subscription(Arc::clone(engine), run, rx, Some(task), None));
                }
                return Ok(Box::pin(futures::stream::once(async move {
                    Ok(StreamResponse::Task(task))
                })));
            }
        }
        if engine.remote_owner(&params.id).await?.is_some() {
            // Executing on another replica: its events come through the cluster.
            let feed = engine.remote_feed(&params.id);
            if let Some((task, version)) = engine.tasks.get(&params.id).await?
                && !task.status.state.is_final()
            {
                return Ok(remote_subscription(Arc::clone(engine), feed, task, version));
            }
        }
        let task = engine.require_task(&params.id).await?;
        Ok(Box::pin(futures::stream::once(async move {
            Ok(StreamResponse::Task(task))
        })))
    }

    async fn set_push_config(
        &self,
        _ctx: &CallContext,
        params: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        self.engine.require_push()?;
        self.engine.require_task(&params.task_id).await?;
        let cfg = self
            .engine
            .store_push_config(&params.task_id, params.push_notification_config)
            .await?;
        Ok(TaskPushNotificationConfig {
            task_id: params.task_id,
            push_notification_config: cfg,
        })
    }

    async fn get_push_config(
        &self,
        _ctx: &CallContext,
        params: GetTaskPushNotificationConfigParams,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        self.engine.require_push()?;
        self.engine.require_task(&params.id).await?;
        let store = &self.engine.push_configs;
        let found = match params
            .push_notification_config_id
            .as_deref()
            .filter(|s| !s.is_empty())
        {
            Some(cid) => store.get(&params.id, cid).await?,
            None => match store.get(&params.id, &params.id).await? {
                Some(c) => Some(c),
                None => store.list(&params.id).await?.into_iter().next(),
            },
        };
        match found {
            Some(cfg) => Ok(TaskPushNotificationConfig {
                task_id: params.id,
                push_notification_config: cfg,
            }),
            None => Err(A2aError::invalid_params(format!(
                "push notification config {} not found for task {}",
                params
                    .push_notification_config_id
                    .as_deref()
                    .unwrap_or("(default)"),
                params.id
            ))),
        }
    }

    async fn list_push_configs(
        &self,
        _ctx: &CallContext,
        params: ListTaskPushNotificationConfigParams,
    ) -> Result<Vec<TaskPushNotificationConfig>, A2aError> {
        self.engine.require_push()?;
        self.engine.require_task(&params.id).await?;
        let configs = self.engine.push_configs.list(&params.id).await?;
        Ok(configs
            .into_iter()
            .map(|c| TaskPushNotificationConfig {
                task_id: params.id.clone(),
                push_notification_config: c,
            })
            .collect())
    }

    async fn delete_push_config(
        &self,
        _ctx: &CallContext,
        params: DeleteTaskPushNotificationConfigParams,
    ) -> Result<(), A2aError> {
        self.engine.require_push()?;
        self.engine.require_task(&params.id).await?;
        if self
            .engine
            .push_configs
            .delete(&params.id, &params.push_notification_config_id)
            .await?
        {
            Ok(())
        } else {
            Err(A2aError::invalid_params(format!(
                "push notification config {} not found for task {}",
                params.push_notification_config_id, params.id
            )))
        }
    }

    async fn get_extended_agent_card(&self, _ctx: &CallContext) -> Result<AgentCard, A2aError> {
        self.engine.extended_card.clone().ok_or_else(|| {
            A2aError::extended_card_not_configured("this agent has no authenticated extended card")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_matching() {
        assert!(mime_matches("text/plain", "text/plain"));
        assert!(mime_matches("text/*", "text/plain"));
        assert!(mime_matches("*/*", "image/png"));
        assert!(!mime_matches("image/png", "text/plain"));
    }
}
