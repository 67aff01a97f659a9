//! The in-process driver: `RequestHandler` called directly (on the servers'
//! runtime, as the adapters call it), with a2a-types values. The baseline
//! the three wires are compared with.

use std::sync::Arc;

use a2a_core::{CallContext, DefaultRequestHandler, RequestHandler};
use a2a_types::{
    A2aError, AgentCard, Artifact, DataPart, DeleteTaskPushNotificationConfigParams, FileContent,
    FilePart, FileWithBytes, FileWithUri, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams, Message, MessageSendConfiguration, MessageSendParams,
    Part, PushNotificationConfig, Role, SendMessageResult, StreamResponse, Task, TaskIdParams,
    TaskPushNotificationConfig, TaskQueryParams, TextPart,
};
use async_trait::async_trait;
use futures::StreamExt;

use super::model::*;
use super::{Driver, Kind};

pub(crate) struct InProcess {
    handler: Arc<DefaultRequestHandler>,
    runtime: tokio::runtime::Handle,
}

impl InProcess {
    pub(crate) fn new(
        handler: Arc<DefaultRequestHandler>,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        Self { handler, runtime }
    }

    /// Runs `f` with the handler on the servers' runtime.
    async fn run<T, F, Fut>(&self, ctx: CallContext, f: F) -> Result<T, WireError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<DefaultRequestHandler>, CallContext) -> Fut,
        Fut: Future<Output = Result<T, A2aError>> + Send + 'static,
    {
        let fut = f(Arc::clone(&self.handler), ctx);
        self.runtime
            .spawn(fut)
            .await
            .expect("the handler does not panic")
            .map_err(|e| error(&e))
    }

    /// A stream of the handler's events, forwarded from the servers'
    /// runtime.
    async fn events<F, Fut>(&self, ctx: CallContext, f: F) -> Result<Events, WireError>
    where
        F: FnOnce(Arc<DefaultRequestHandler>, CallContext) -> Fut,
        Fut: Future<Output = Result<a2a_core::EventStream, A2aError>> + Send + 'static,
    {
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let fut = f(Arc::clone(&self.handler), ctx);
        self.runtime.spawn(async move {
            match fut.await {
                Err(e) => {
                    let _ = tx.send(Err(error(&e))).await;
                }
                Ok(mut stream) => {
                    while let Some(item) = stream.next().await {
                        let item = item.map(|e| event(&e)).map_err(|e| error(&e));
                        if tx.send(item).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stream = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| (item, rx))
        });
        Events::open(stream.boxed()).await
    }
}

fn error(e: &A2aError) -> WireError {
    WireError {
        code: Some(e.code()),
        message: e.message().to_owned(),
        data: e.data().cloned(),
        evidence: Evidence::None,
    }
}

fn object(m: Option<&serde_json::Map<String, serde_json::Value>>) -> Option<serde_json::Value> {
    m.map(|m| serde_json::Value::Object(m.clone()))
}

fn part(p: &Part) -> PartView {
    match p {
        Part::Text(t) => PartView::Text {
            text: t.text.clone(),
            metadata: object(t.metadata.as_ref()),
        },
        Part::File(f) => {
            let (uri, bytes) = match &f.file {
                FileContent::Uri(u) => (Some(u.uri.clone()), None),
                FileContent::Bytes(b) => (None, Some(b.bytes.clone())),
            };
            PartView::File {
                name: f.file.name().map(str::to_owned),
                mime_type: f.file.mime_type().map(str::to_owned),
                uri,
                bytes,
                metadata: object(f.metadata.as_ref()),
            }
        }
        Part::Data(d) => PartView::Data {
            data: serde_json::Value::Object(d.data.clone()),
            metadata: object(d.metadata.as_ref()),
        },
    }
}

fn map(v: Option<&serde_json::Value>) -> Option<serde_json::Map<String, serde_json::Value>> {
    v.map(|v| v.as_object().expect("a JSON object").clone())
}

fn part_types(p: &PartView) -> Part {
    match p {
        PartView::Text { text, metadata } => Part::Text(TextPart {
            text: text.clone(),
            metadata: map(metadata.as_ref()),
        }),
        PartView::File {
            name,
            mime_type,
            uri,
            bytes,
            metadata,
        } => Part::File(FilePart {
            file: match (uri, bytes) {
                (Some(uri), _) => FileContent::Uri(FileWithUri {
                    uri: uri.clone(),
                    name: name.clone(),
                    mime_type: mime_type.clone(),
                }),
                (None, Some(bytes)) => FileContent::Bytes(FileWithBytes {
                    bytes: bytes.clone(),
                    name: name.clone(),
                    mime_type: mime_type.clone(),
                }),
                (None, None) => panic!("a file has a uri or bytes"),
            },
            metadata: map(metadata.as_ref()),
        }),
        PartView::Data { data, metadata } => Part::Data(DataPart {
            data: data.as_object().expect("a JSON object").clone(),
            metadata: map(metadata.as_ref()),
        }),
    }
}

fn message(m: &Message) -> MsgView {
    let role = match m.role {
        Role::User => "user",
        Role::Agent => "agent",
    };
    MsgView::new(
        role,
        m.parts.iter().map(part).collect(),
        object(m.metadata.as_ref()),
        m.message_id.clone(),
        m.task_id.clone(),
        m.context_id.clone(),
    )
}

fn artifact(a: &Artifact) -> ArtifactView {
    ArtifactView::new(
        a.artifact_id.clone(),
        a.name.clone(),
        a.parts.iter().map(part).collect(),
    )
}

fn task(t: &Task) -> TaskView {
    TaskView {
        id: t.id.clone(),
        context_id: t.context_id.clone(),
        state: t.status.state,
        status_text: t.status.message.as_ref().map(Message::text),
        timestamp: t.status.timestamp.clone(),
        history: t.history.iter().flatten().map(message).collect(),
        artifacts: t.artifacts.iter().flatten().map(artifact).collect(),
    }
}

fn event(e: &StreamResponse) -> Event {
    match e {
        StreamResponse::Task(t) => Event::Task(task(t)),
        StreamResponse::Message(m) => Event::Message(message(m)),
        StreamResponse::StatusUpdate(u) => Event::Status {
            task_id: u.task_id.clone(),
            context_id: u.context_id.clone(),
            state: u.status.state,
            text: u.status.message.as_ref().map(Message::text),
            is_final: u.is_final,
        },
        StreamResponse::ArtifactUpdate(u) => Event::Artifact {
            task_id: u.task_id.clone(),
            context_id: u.context_id.clone(),
            artifact: artifact(&u.artifact),
            append: u.append.unwrap_or(false),
            last_chunk: u.last_chunk.unwrap_or(false),
        },
    }
}

fn push(c: &TaskPushNotificationConfig) -> PushView {
    PushView {
        task_id: c.task_id.clone(),
        id: c
            .push_notification_config
            .id
            .clone()
            .expect("a stored config has an id"),
        url: c.push_notification_config.url.clone(),
        token: c.push_notification_config.token.clone(),
    }
}

fn card(c: &AgentCard) -> CardView {
    CardView {
        name: c.name.clone(),
        protocol_version: c.protocol_version.clone(),
        url: c.url.clone(),
        preferred_transport: c.preferred_transport.clone(),
        interfaces: c
            .additional_interfaces
            .iter()
            .flatten()
            .map(|i| (i.transport.clone(), i.url.clone()))
            .collect(),
        streaming: c.capabilities.streaming.unwrap_or(false),
        push_notifications: c.capabilities.push_notifications.unwrap_or(false),
        extended: c.supports_authenticated_extended_card.unwrap_or(false),
        skills: c.skills.iter().map(|s| s.id.clone()).collect(),
    }
}

fn push_config(p: &PushSpec) -> PushNotificationConfig {
    PushNotificationConfig {
        id: p.id.clone(),
        url: p.url.clone(),
        token: p.token.clone(),
        authentication: None,
    }
}

/// What an adapter puts in the call context: lower-case headers and the
/// requested extensions.
fn context(headers: &[(String, String)]) -> CallContext {
    let mut ctx = CallContext::default();
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        if name == "x-a2a-extensions" {
            ctx.add_requested_extensions(value);
        }
        ctx.headers_mut().insert(name, value.clone());
    }
    ctx
}

fn send_params(s: &UserMessage) -> MessageSendParams {
    let mut message = Message::new(
        Role::User,
        s.message_id.clone(),
        s.parts
            .iter()
            .map(Part::text)
            .chain(s.extra.iter().map(part_types))
            .collect(),
    );
    message.task_id.clone_from(&s.task_id);
    message.context_id.clone_from(&s.context_id);
    message.metadata = map(s.metadata.as_ref());
    let mut params = MessageSendParams::new(message);
    params.configuration = Some(MessageSendConfiguration {
        accepted_output_modes: (!s.accepted_output_modes.is_empty())
            .then(|| s.accepted_output_modes.clone()),
        history_length: s.history_length,
        push_notification_config: s.push.as_ref().map(push_config),
        blocking: Some(s.blocking),
    });
    params
}

#[async_trait]
impl Driver for InProcess {
    fn kind(&self) -> Kind {
        Kind::InProcess
    }

    fn url(&self) -> Option<String> {
        None
    }

    async fn card(&self) -> Result<CardView, WireError> {
        Ok(card(&self.handler.agent_card()))
    }

    async fn extended_card(&self) -> Result<CardView, WireError> {
        self.run(CallContext::default(), |h, ctx| async move {
            h.get_extended_agent_card(&ctx).await
        })
        .await
        .map(|c| card(&c))
    }

    async fn send(&self, s: &UserMessage) -> Result<Reply, WireError> {
        let params = send_params(s);
        let result = self
            .run(context(&s.headers), |h, ctx| async move {
                h.send_message(&ctx, params).await
            })
            .await?;
        Ok(match result {
            SendMessageResult::Task(t) => Reply::Task(task(&t)),
            SendMessageResult::Message(m) => Reply::Message(message(&m)),
        })
    }

    async fn stream(&self, s: &UserMessage) -> Result<Events, WireError> {
        let params = send_params(s);
        self.events(context(&s.headers), |h, ctx| async move {
            h.send_message_stream(&ctx, params).await
        })
        .await
    }

    async fn get(&self, task_id: &str, history_length: Option<i32>) -> Result<TaskView, WireError> {
        let params = TaskQueryParams {
            id: task_id.to_owned(),
            history_length,
            metadata: None,
        };
        self.run(CallContext::default(), |h, ctx| async move {
            h.get_task(&ctx, params).await
        })
        .await
        .map(|t| task(&t))
    }

    async fn cancel(&self, task_id: &str) -> Result<TaskView, WireError> {
        let params = TaskIdParams::new(task_id);
        self.run(CallContext::default(), |h, ctx| async move {
            h.cancel_task(&ctx, params).await
        })
        .await
        .map(|t| task(&t))
    }

    async fn resubscribe(&self, task_id: &str) -> Result<Events, WireError> {
        let params = TaskIdParams::new(task_id);
        self.events(CallContext::default(), |h, ctx| async move {
            h.resubscribe_task(&ctx, params).await
        })
        .await
    }

    async fn set_push(&self, task_id: &str, p: &PushSpec) -> Result<PushView, WireError> {
        let params = TaskPushNotificationConfig {
            task_id: task_id.to_owned(),
            push_notification_config: push_config(p),
        };
        self.run(CallContext::default(), |h, ctx| async move {
            h.set_push_config(&ctx, params).await
        })
        .await
        .map(|c| push(&c))
    }

    async fn get_push(&self, task_id: &str, config_id: &str) -> Result<PushView, WireError> {
        let params = GetTaskPushNotificationConfigParams {
            id: task_id.to_owned(),
            push_notification_config_id: Some(config_id.to_owned()),
            metadata: None,
        };
        self.run(CallContext::default(), |h, ctx| async move {
            h.get_push_config(&ctx, params).await
        })
        .await
        .map(|c| push(&c))
    }

    async fn list_push(&self, task_id: &str) -> Result<Vec<PushView>, WireError> {
        let params = ListTaskPushNotificationConfigParams {
            id: task_id.to_owned(),
            metadata: None,
        };
        self.run(CallContext::default(), |h, ctx| async move {
            h.list_push_configs(&ctx, params).await
        })
        .await
        .map(|list| list.iter().map(push).collect())
    }

    async fn delete_push(&self, task_id: &str, config_id: &str) -> Result<(), WireError> {
        let params = DeleteTaskPushNotificationConfigParams {
            id: task_id.to_owned(),
            push_notification_config_id: config_id.to_owned(),
            metadata: None,
        };
        self.run(CallContext::default(), |h, ctx| async move {
            h.delete_push_config(&ctx, params).await
        })
        .await
    }

    async fn framing(&self, _framing: Framing) -> Option<WireError> {
        // No wire, no framing.
        None
    }
}
