//! The gRPC driver: the generated tonic client of `a2a.v1.A2AService` with
//! request messages built field by field and answers read field by field
//! (no `a2a_pb::convert`), errors read from the status and its metadata
//! (`a2a-error-code`, `a2a-error-name`, `a2a-error-data-bin`) by hand, and
//! raw-bytes calls for what the generated client cannot send.

use a2a_pb::v1 as pb;
use a2a_pb::v1::a2a_service_client::A2aServiceClient;
use a2a_types::TaskState;
use async_trait::async_trait;
use bytes::{Buf, BufMut};
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::{Channel, Endpoint};

use super::model::*;
use super::{Driver, Kind};

pub(crate) struct Grpc {
    url: String,
    channel: Channel,
}

impl Grpc {
    pub(crate) async fn connect(url: &str) -> Self {
        let channel = Endpoint::from_shared(url.to_owned())
            .expect("a gRPC URL")
            .connect()
            .await
            .expect("the gRPC listener accepts");
        Self {
            url: url.to_owned(),
            channel,
        }
    }

    fn client(&self) -> A2aServiceClient<Channel> {
        A2aServiceClient::new(self.channel.clone())
    }

    /// A unary call with raw bytes as the request message.
    async fn raw(&self, path: &'static str, body: Vec<u8>) -> Status {
        let mut grpc = tonic::client::Grpc::new(self.channel.clone());
        grpc.ready().await.expect("the channel is ready");
        grpc.unary(
            tonic::Request::new(body),
            http::uri::PathAndQuery::from_static(path),
            RawCodec,
        )
        .await
        .expect_err("an error status")
    }
}

fn request<T>(message: T, headers: &[(String, String)]) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    for (name, value) in headers {
        request.metadata_mut().append(
            tonic::metadata::AsciiMetadataKey::from_bytes(name.to_ascii_lowercase().as_bytes())
                .expect("a metadata key"),
            value.parse().expect("an ASCII metadata value"),
        );
    }
    request
}

/// The error a status carries (our server's metadata: exact; anything
/// else: no A2A code).
fn status_error(s: &Status) -> WireError {
    let code = s
        .metadata()
        .get("a2a-error-code")
        .map(|v| v.to_str().expect("ASCII").parse().expect("an integer code"));
    let mut message = s.message().to_owned();
    if let Some(name) = s.metadata().get("a2a-error-name") {
        let name = name.to_str().expect("ASCII");
        let prefix = format!("{name}: ");
        assert!(
            message.starts_with(&prefix),
            "the status message is `<ErrorName>: <message>`: {message:?}"
        );
        message.drain(..prefix.len());
        let code = code.expect("a name comes with a code");
        assert_eq!(
            a2a_types::A2aError::from_code(code, "", None).name(),
            name,
            "the name matches the code"
        );
    }
    let data = s.metadata().get_bin("a2a-error-data-bin").map(|v| {
        let bytes = v.to_bytes().expect("base64 metadata");
        serde_json::from_slice(&bytes).expect("JSON error data")
    });
    WireError {
        code,
        message,
        data,
        evidence: Evidence::Grpc(s.code()),
    }
}

fn err(s: Status) -> WireError {
    status_error(&s)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn state(state: i32) -> TaskState {
    match pb::TaskState::try_from(state) {
        Ok(pb::TaskState::Submitted) => TaskState::Submitted,
        Ok(pb::TaskState::Working) => TaskState::Working,
        Ok(pb::TaskState::InputRequired) => TaskState::InputRequired,
        Ok(pb::TaskState::Completed) => TaskState::Completed,
        Ok(pb::TaskState::Cancelled) => TaskState::Canceled,
        Ok(pb::TaskState::Failed) => TaskState::Failed,
        Ok(pb::TaskState::Rejected) => TaskState::Rejected,
        Ok(pb::TaskState::AuthRequired) => TaskState::AuthRequired,
        Ok(pb::TaskState::Unspecified) => TaskState::Unknown,
        Err(_) => panic!("not a TaskState number: {state}"),
    }
}

/// A JSON object as a `google.protobuf.Struct`, by hand.
fn to_struct(v: &serde_json::Value) -> pbjson_types::Struct {
    let map = v.as_object().expect("a JSON object");
    pbjson_types::Struct {
        fields: map.iter().map(|(k, v)| (k.clone(), to_value(v))).collect(),
    }
}

fn to_value(v: &serde_json::Value) -> pbjson_types::Value {
    use pbjson_types::value::Kind;
    use serde_json::Value as J;
    let kind = match v {
        J::Null => Kind::NullValue(0),
        J::Bool(b) => Kind::BoolValue(*b),
        J::Number(n) => Kind::NumberValue(n.as_f64().expect("a number")),
        J::String(s) => Kind::StringValue(s.clone()),
        J::Array(a) => Kind::ListValue(pbjson_types::ListValue {
            values: a.iter().map(to_value).collect(),
        }),
        J::Object(_) => Kind::StructValue(to_struct(v)),
    };
    pbjson_types::Value { kind: Some(kind) }
}

/// A `google.protobuf.Struct` as JSON, by hand; integral doubles read as
/// integers (JSON-RPC peers write integers).
fn from_struct(s: &pbjson_types::Struct) -> serde_json::Value {
    serde_json::Value::Object(
        s.fields
            .iter()
            .map(|(k, v)| (k.clone(), from_value(v)))
            .collect(),
    )
}

#[allow(clippy::cast_possible_truncation)] // integral and small: exact
fn from_value(v: &pbjson_types::Value) -> serde_json::Value {
    use pbjson_types::value::Kind;
    use serde_json::Value as J;
    match v.kind.as_ref() {
        None | Some(Kind::NullValue(_)) => J::Null,
        Some(Kind::BoolValue(b)) => J::Bool(*b),
        Some(Kind::NumberValue(n)) if n.fract() == 0.0 && n.abs() < 9e15 => J::from(*n as i64),
        Some(Kind::NumberValue(n)) => J::from(*n),
        Some(Kind::StringValue(s)) => J::String(s.clone()),
        Some(Kind::ListValue(l)) => J::Array(l.values.iter().map(from_value).collect()),
        Some(Kind::StructValue(s)) => from_struct(s),
    }
}

fn part(p: &pb::Part) -> PartView {
    let metadata = p.metadata.as_ref().map(from_struct);
    match p.part.as_ref().expect("a part has content") {
        pb::part::Part::Text(t) => PartView::Text {
            text: t.clone(),
            metadata,
        },
        pb::part::Part::File(f) => {
            let (uri, bytes) = match f.file.as_ref().expect("a file") {
                pb::file_part::File::FileWithUri(u) => (Some(u.clone()), None),
                // Our convention (the Python SDK's): the ASCII of the base64 text.
                pb::file_part::File::FileWithBytes(b) => (
                    None,
                    Some(String::from_utf8(b.clone()).expect("base64 text")),
                ),
            };
            PartView::File {
                name: non_empty(&f.name),
                mime_type: non_empty(&f.mime_type),
                uri,
                bytes,
                metadata,
            }
        }
        pb::part::Part::Data(d) => PartView::Data {
            data: d.data.as_ref().map_or(serde_json::json!({}), from_struct),
            metadata,
        },
    }
}

fn part_pb(p: &PartView) -> pb::Part {
    let (part, metadata) = match p {
        PartView::Text { text, metadata } => (pb::part::Part::Text(text.clone()), metadata),
        PartView::File {
            name,
            mime_type,
            uri,
            bytes,
            metadata,
        } => {
            let file = match (uri, bytes) {
                (Some(u), _) => pb::file_part::File::FileWithUri(u.clone()),
                (None, Some(b)) => pb::file_part::File::FileWithBytes(b.as_bytes().to_vec()),
                (None, None) => panic!("a file has a uri or bytes"),
            };
            (
                pb::part::Part::File(pb::FilePart {
                    mime_type: mime_type.clone().unwrap_or_default(),
                    name: name.clone().unwrap_or_default(),
                    file: Some(file),
                }),
                metadata,
            )
        }
        PartView::Data { data, metadata } => (
            pb::part::Part::Data(pb::DataPart {
                data: Some(to_struct(data)),
            }),
            metadata,
        ),
    };
    pb::Part {
        part: Some(part),
        metadata: metadata.as_ref().map(to_struct),
    }
}

fn message(m: &pb::Message) -> MsgView {
    let role = match pb::Role::try_from(m.role) {
        Ok(pb::Role::User) => "user",
        Ok(pb::Role::Agent) => "agent",
        other => panic!("not a role: {other:?}"),
    };
    MsgView::new(
        role,
        m.content.iter().map(part).collect(),
        m.metadata.as_ref().map(from_struct),
        m.message_id.clone(),
        non_empty(&m.task_id),
        non_empty(&m.context_id),
    )
}

fn artifact(a: &pb::Artifact) -> ArtifactView {
    ArtifactView::new(
        a.artifact_id.clone(),
        non_empty(&a.name),
        a.parts.iter().map(part).collect(),
    )
}

fn task(t: &pb::Task) -> TaskView {
    let status = t.status.as_ref().expect("a task has a status");
    TaskView {
        id: t.id.clone(),
        context_id: t.context_id.clone(),
        state: state(status.state),
        status_text: status.update.as_ref().map(|m| message(m).text),
        timestamp: status
            .timestamp
            .as_ref()
            .map(|ts| format!("{}.{:09}", ts.seconds, ts.nanos)),
        history: t.history.iter().map(message).collect(),
        artifacts: t.artifacts.iter().map(artifact).collect(),
    }
}

fn event(r: pb::StreamResponse) -> Event {
    match r.payload.expect("a StreamResponse has a payload") {
        pb::stream_response::Payload::Task(t) => Event::Task(task(&t)),
        pb::stream_response::Payload::Msg(m) => Event::Message(message(&m)),
        pb::stream_response::Payload::StatusUpdate(e) => {
            let status = e.status.expect("a status update has a status");
            Event::Status {
                task_id: e.task_id,
                context_id: e.context_id,
                state: state(status.state),
                text: status.update.as_ref().map(|m| message(m).text),
                is_final: e.r#final,
            }
        }
        pb::stream_response::Payload::ArtifactUpdate(e) => Event::Artifact {
            task_id: e.task_id,
            context_id: e.context_id,
            artifact: artifact(
                e.artifact
                    .as_ref()
                    .expect("an artifact update has an artifact"),
            ),
            append: e.append,
            last_chunk: e.last_chunk,
        },
    }
}

fn push(c: &pb::TaskPushNotificationConfig) -> PushView {
    let rest = c
        .name
        .strip_prefix("tasks/")
        .unwrap_or_else(|| panic!("a config name: {}", c.name));
    let (task_id, id) = rest
        .split_once("/pushNotificationConfigs/")
        .unwrap_or_else(|| panic!("a config name: {}", c.name));
    let config = c
        .push_notification_config
        .as_ref()
        .expect("a push notification config");
    if !config.id.is_empty() {
        assert_eq!(config.id, id, "the name and the config agree");
    }
    PushView {
        task_id: task_id.to_owned(),
        id: id.to_owned(),
        url: config.url.clone(),
        token: non_empty(&config.token),
    }
}

fn card(c: &pb::AgentCard) -> CardView {
    let capabilities = c.capabilities.clone().unwrap_or_default();
    CardView {
        name: c.name.clone(),
        protocol_version: c.protocol_version.clone(),
        url: c.url.clone(),
        preferred_transport: c.preferred_transport.clone(),
        interfaces: c
            .additional_interfaces
            .iter()
            .map(|i| (i.transport.clone(), i.url.clone()))
            .collect(),
        streaming: capabilities.streaming,
        push_notifications: capabilities.push_notifications,
        extended: c.supports_authenticated_extended_card,
        skills: c.skills.iter().map(|s| s.id.clone()).collect(),
    }
}

fn push_config(p: &PushSpec) -> pb::PushNotificationConfig {
    pb::PushNotificationConfig {
        id: p.id.clone().unwrap_or_default(),
        url: p.url.clone(),
        token: p.token.clone().unwrap_or_default(),
        authentication: None,
    }
}

fn send_request(s: &UserMessage) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        request: Some(pb::Message {
            message_id: s.message_id.clone(),
            context_id: s.context_id.clone().unwrap_or_default(),
            task_id: s.task_id.clone().unwrap_or_default(),
            role: pb::Role::User as i32,
            content: s
                .parts
                .iter()
                .map(|t| pb::Part {
                    part: Some(pb::part::Part::Text(t.clone())),
                    metadata: None,
                })
                .chain(s.extra.iter().map(part_pb))
                .collect(),
            metadata: s.metadata.as_ref().map(to_struct),
            extensions: Vec::new(),
        }),
        configuration: Some(pb::SendMessageConfiguration {
            accepted_output_modes: s.accepted_output_modes.clone(),
            push_notification: s.push.as_ref().map(push_config),
            history_length: s.history_length.unwrap_or(0),
            blocking: s.blocking,
        }),
        metadata: None,
    }
}

fn events(
    call: Result<tonic::Response<tonic::Streaming<pb::StreamResponse>>, Status>,
) -> futures::stream::BoxStream<'static, Result<Event, WireError>> {
    use futures::StreamExt;
    match call {
        Err(s) => futures::stream::once(async move { Err(err(s)) }).boxed(),
        Ok(response) => {
            let stream = response.into_inner();
            futures::stream::unfold(Some(stream), |state| async move {
                let mut stream = state?;
                match stream.message().await {
                    Ok(Some(r)) => Some((Ok(event(r)), Some(stream))),
                    Ok(None) => None,
                    Err(s) => Some((Err(err(s)), None)),
                }
            })
            .boxed()
        }
    }
}

#[async_trait]
impl Driver for Grpc {
    fn kind(&self) -> Kind {
        Kind::Grpc
    }

    fn url(&self) -> Option<String> {
        Some(self.url.clone())
    }

    async fn card(&self) -> Result<CardView, WireError> {
        self.client()
            .get_agent_card(pb::GetAgentCardRequest {})
            .await
            .map(|r| card(r.get_ref()))
            .map_err(err)
    }

    async fn extended_card(&self) -> Result<CardView, WireError> {
        // v0.3.0 has one card RPC.
        self.card().await
    }

    async fn send(&self, s: &UserMessage) -> Result<Reply, WireError> {
        let reply = self
            .client()
            .send_message(request(send_request(s), &s.headers))
            .await
            .map_err(err)?
            .into_inner();
        match reply.payload.expect("a SendMessageResponse has a payload") {
            pb::send_message_response::Payload::Task(t) => Ok(Reply::Task(task(&t))),
            pb::send_message_response::Payload::Msg(m) => Ok(Reply::Message(message(&m))),
        }
    }

    async fn stream(&self, s: &UserMessage) -> Result<Events, WireError> {
        let call = self
            .client()
            .send_streaming_message(request(send_request(s), &s.headers))
            .await;
        Events::open(events(call)).await
    }

    async fn get(&self, task_id: &str, history_length: Option<i32>) -> Result<TaskView, WireError> {
        let r = pb::GetTaskRequest {
            name: format!("tasks/{task_id}"),
            history_length: history_length.unwrap_or(0),
        };
        self.client()
            .get_task(r)
            .await
            .map(|r| task(r.get_ref()))
            .map_err(err)
    }

    async fn cancel(&self, task_id: &str) -> Result<TaskView, WireError> {
        let r = pb::CancelTaskRequest {
            name: format!("tasks/{task_id}"),
        };
        self.client()
            .cancel_task(r)
            .await
            .map(|r| task(r.get_ref()))
            .map_err(err)
    }

    async fn resubscribe(&self, task_id: &str) -> Result<Events, WireError> {
        let r = pb::TaskSubscriptionRequest {
            name: format!("tasks/{task_id}"),
        };
        let call = self.client().task_subscription(r).await;
        Events::open(events(call)).await
    }

    async fn set_push(&self, task_id: &str, p: &PushSpec) -> Result<PushView, WireError> {
        let r = pb::CreateTaskPushNotificationConfigRequest {
            parent: format!("tasks/{task_id}"),
            config_id: p.id.clone().unwrap_or_default(),
            config: Some(pb::TaskPushNotificationConfig {
                name: p
                    .id
                    .as_ref()
                    .map(|id| format!("tasks/{task_id}/pushNotificationConfigs/{id}"))
                    .unwrap_or_default(),
                push_notification_config: Some(push_config(p)),
            }),
        };
        self.client()
            .create_task_push_notification_config(r)
            .await
            .map(|r| push(r.get_ref()))
            .map_err(err)
    }

    async fn get_push(&self, task_id: &str, config_id: &str) -> Result<PushView, WireError> {
        let r = pb::GetTaskPushNotificationConfigRequest {
            name: format!("tasks/{task_id}/pushNotificationConfigs/{config_id}"),
        };
        self.client()
            .get_task_push_notification_config(r)
            .await
            .map(|r| push(r.get_ref()))
            .map_err(err)
    }

    async fn list_push(&self, task_id: &str) -> Result<Vec<PushView>, WireError> {
        let r = pb::ListTaskPushNotificationConfigRequest {
            parent: format!("tasks/{task_id}"),
            page_size: 0,
            page_token: String::new(),
        };
        let reply = self
            .client()
            .list_task_push_notification_config(r)
            .await
            .map_err(err)?
            .into_inner();
        assert_eq!(reply.next_page_token, "", "one page");
        Ok(reply.configs.iter().map(push).collect())
    }

    async fn delete_push(&self, task_id: &str, config_id: &str) -> Result<(), WireError> {
        let r = pb::DeleteTaskPushNotificationConfigRequest {
            name: format!("tasks/{task_id}/pushNotificationConfigs/{config_id}"),
        };
        self.client()
            .delete_task_push_notification_config(r)
            .await
            .map(|_| ())
            .map_err(err)
    }

    async fn framing(&self, framing: Framing) -> Option<WireError> {
        let status = match framing {
            // Field 31 with wire type 7: not protobuf.
            Framing::MalformedPayload => {
                self.raw("/a2a.v1.A2AService/SendMessage", vec![0xff, 0xff, 0xff])
                    .await
            }
            Framing::UnknownMethod => self.raw("/a2a.v1.A2AService/Frobnicate", Vec::new()).await,
            // Any bytes are some protobuf message or none at all.
            Framing::InvalidRequest => return None,
            Framing::MissingMessage => self
                .client()
                .send_message(pb::SendMessageRequest {
                    request: None,
                    configuration: Some(pb::SendMessageConfiguration {
                        blocking: true,
                        ..Default::default()
                    }),
                    metadata: None,
                })
                .await
                .expect_err("a send without a message"),
        };
        Some(status_error(&status))
    }
}

/// Raw bytes in, raw bytes out.
struct RawCodec;

struct RawEncoder;

struct RawDecoder;

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        RawEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        RawDecoder
    }
}

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawDecoder {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let bytes = src.copy_to_bytes(src.remaining());
        Ok(Some(bytes.to_vec()))
    }
}
