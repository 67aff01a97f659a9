//! What is driven: a binding + operation ([`Kind`]), a URL and a reply
//! kind; its pre-serialised request body, its connections, and one request.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use a2a_pb::v1;
use a2a_pb::v1::a2a_service_client::A2aServiceClient;
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST};
use http::{HeaderValue, Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tonic::transport::Channel;

/// A binding and operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Kind {
    /// JSON-RPC `message/send` (`POST URL`).
    JsonrpcSend,
    /// JSON-RPC `message/stream` (`POST URL`, SSE answer).
    JsonrpcStream,
    /// REST `POST URL/v1/message:send`.
    RestSend,
    /// REST `POST URL/v1/message:stream` (SSE answer).
    RestStream,
    /// gRPC `SendMessage`.
    GrpcSend,
    /// gRPC `SendStreamingMessage`.
    GrpcStream,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::JsonrpcSend => "jsonrpc-send",
            Self::JsonrpcStream => "jsonrpc-stream",
            Self::RestSend => "rest-send",
            Self::RestStream => "rest-stream",
            Self::GrpcSend => "grpc-send",
            Self::GrpcStream => "grpc-stream",
        }
    }

    pub(crate) fn is_stream(self) -> bool {
        matches!(
            self,
            Self::JsonrpcStream | Self::RestStream | Self::GrpcStream
        )
    }

    pub(crate) fn is_grpc(self) -> bool {
        matches!(self, Self::GrpcSend | Self::GrpcStream)
    }
}

/// What the agent is asked to answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Reply {
    /// A (completed) task: the default.
    Task,
    /// A direct message: metadata `"reply": "message"` on the request.
    Message,
}

impl Reply {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Task => "task",
            Self::Message => "message",
        }
    }
}

/// The target flags (also the syntax of `--compare '…'`).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct TargetArgs {
    /// The binding and operation.
    #[arg(long, value_enum, default_value_t = Kind::JsonrpcSend)]
    pub(crate) target: Kind,
    /// JSON-RPC: the endpoint URL (`http://127.0.0.1:8080/`); REST: the
    /// base URL the `/v1/…` paths are appended to; gRPC: `http://HOST:PORT`.
    /// Loopback only.
    #[arg(long, default_value = "http://127.0.0.1:8080/")]
    pub(crate) url: String,
    /// Ask for a task (default) or a direct message.
    #[arg(long, value_enum, default_value_t = Reply::Task)]
    pub(crate) reply: Reply,
    /// The server's pid: its CPU time per request (and RSS) is reported.
    #[arg(long)]
    pub(crate) server_pid: Option<u32>,
    /// A name for the report (default: target, reply and URL).
    #[arg(long)]
    pub(crate) label: Option<String>,
    /// Ask the echo agent for a `working` status before its artifact
    /// (request metadata `"working": true`): a stream is then the Task,
    /// `working`, the artifact and `completed`.
    #[arg(long)]
    pub(crate) working: bool,
}

/// The message id placeholder in the body templates: 26 bytes, replaced by
/// `{run:08x}-{worker:04x}-{seq:012x}` per request.
const ID_PLACEHOLDER: &str = "@@@@@@@@@@@@@@@@@@@@@@@@@@";

/// A pre-serialised request body with a fixed-width message-id slot.
#[derive(Debug, Clone)]
pub(crate) struct Template {
    bytes: Vec<u8>,
    id_at: usize,
}

impl Template {
    fn new(body: &serde_json::Value) -> Self {
        let bytes = body.to_string().into_bytes();
        let id_at = memchr::memmem::find(&bytes, ID_PLACEHOLDER.as_bytes())
            .expect("the template has the id placeholder");
        Self { bytes, id_at }
    }

    /// The body with a fresh message id: one copy and 24 digit writes.
    pub(crate) fn render(&self, run: u32, worker: u32, seq: u64) -> Bytes {
        let mut b = self.bytes.clone();
        write_id(
            &mut b[self.id_at..self.id_at + ID_PLACEHOLDER.len()],
            run,
            worker,
            seq,
        );
        Bytes::from(b)
    }
}

/// Writes `{run:08x}-{worker:04x}-{seq:012x}` into `out` (26 bytes).
fn write_id(out: &mut [u8], run: u32, worker: u32, seq: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut put = |at: usize, width: usize, mut v: u64| {
        for i in (0..width).rev() {
            out[at + i] = HEX[(v & 0xf) as usize];
            v >>= 4;
        }
    };
    put(0, 8, u64::from(run));
    put(9, 4, u64::from(worker & 0xffff));
    put(14, 12, seq & 0xffff_ffff_ffff);
    out[8] = b'-';
    out[13] = b'-';
}

/// The message id as a string (gRPC, where prost encodes per request).
pub(crate) fn message_id(run: u32, worker: u32, seq: u64) -> String {
    let mut b = [0u8; 26];
    write_id(&mut b, run, worker, seq);
    String::from_utf8_lossy(&b).into_owned()
}

/// The request metadata: `"reply": "message"` and/or `"working": true`.
fn metadata(message: bool, working: bool) -> Option<serde_json::Value> {
    let mut m = serde_json::Map::new();
    if message {
        m.insert("reply".to_owned(), "message".into());
    }
    if working {
        m.insert("working".to_owned(), true.into());
    }
    (!m.is_empty()).then_some(serde_json::Value::Object(m))
}

/// A resolved target, shared by its workers.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) kind: Kind,
    pub(crate) reply: Reply,
    pub(crate) url: String,
    pub(crate) label: String,
    pub(crate) server_pid: Option<u32>,
    pub(crate) addr: SocketAddr,
    host: HeaderValue,
    path: Uri,
    template: Template,
    text: String,
    working: bool,
    /// Distinguishes this run's message ids from earlier runs'.
    pub(crate) run: u32,
}

/// Resolves the URL's host (an IP literal or `localhost`) and refuses
/// anything that is not loopback.
pub(crate) fn loopback_addr(url: &str) -> Result<(SocketAddr, Uri), String> {
    let uri: Uri = url.parse().map_err(|e| format!("bad URL {url:?}: {e}"))?;
    let host = uri.host().ok_or_else(|| format!("no host in {url:?}"))?;
    let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| format!("{url}: the host must be a loopback IP or localhost"))?
    };
    if !ip.is_loopback() {
        return Err(format!(
            "{url}: loopback only (this tool never leaves 127.0.0.1)"
        ));
    }
    let port = uri.port_u16().unwrap_or(80);
    Ok((SocketAddr::new(ip, port), uri))
}

impl Target {
    pub(crate) fn new(args: &TargetArgs, text: &str, run: u32) -> Result<Self, String> {
        // A bare `HOST:PORT` (how the card may write a gRPC URL) is HTTP.
        let url = if args.url.contains("://") {
            args.url.clone()
        } else {
            format!("http://{}", args.url)
        };
        let (addr, uri) = loopback_addr(&url)?;
        let host = HeaderValue::from_str(uri.authority().map_or("", |a| a.as_str()))
            .map_err(|e| e.to_string())?;
        let base = uri.path().trim_end_matches('/');
        let path: Uri = match args.target {
            Kind::JsonrpcSend | Kind::JsonrpcStream => if uri.path().is_empty() {
                "/"
            } else {
                uri.path()
            }
            .parse(),
            Kind::RestSend => format!("{base}/v1/message:send").parse(),
            Kind::RestStream => format!("{base}/v1/message:stream").parse(),
            Kind::GrpcSend | Kind::GrpcStream => "/".parse(),
        }
        .map_err(|e| format!("bad path: {e}"))?;
        let message = args.reply == Reply::Message;
        let body = match args.target {
            Kind::JsonrpcSend | Kind::JsonrpcStream => {
                let mut params = serde_json::json!({"message": {
                    "kind": "message", "role": "user", "messageId": ID_PLACEHOLDER,
                    "parts": [{"kind": "text", "text": text}]
                }});
                if let Some(m) = metadata(message, args.working) {
                    params["metadata"] = m;
                }
                let method = if args.target == Kind::JsonrpcSend {
                    "message/send"
                } else {
                    "message/stream"
                };
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            }
            // The proto-JSON `SendMessageRequest` (also used for gRPC only
            // as a placeholder: gRPC requests are built per call).
            _ => {
                let mut body = serde_json::json!({"message": {
                    "messageId": ID_PLACEHOLDER, "role": "ROLE_USER",
                    "content": [{"text": text}]
                }});
                if let Some(m) = metadata(message, args.working) {
                    body["metadata"] = m;
                }
                body
            }
        };
        Ok(Self {
            kind: args.target,
            reply: args.reply,
            url,
            label: args.label.clone().unwrap_or_else(|| {
                format!(
                    "{} ({}) {}",
                    args.target.name(),
                    args.reply.name(),
                    args.url
                )
            }),
            server_pid: args.server_pid,
            addr,
            host,
            path,
            template: Template::new(&body),
            text: text.to_owned(),
            working: args.working,
            run,
        })
    }

    /// The gRPC request with a fresh message id.
    fn grpc_request(&self, worker: u32, seq: u64) -> v1::SendMessageRequest {
        v1::SendMessageRequest {
            request: Some(v1::Message {
                message_id: message_id(self.run, worker, seq),
                role: v1::Role::User.into(),
                content: vec![v1::Part {
                    part: Some(v1::part::Part::Text(self.text.clone())),
                    metadata: None,
                }],
                ..Default::default()
            }),
            configuration: None,
            metadata: metadata(self.reply == Reply::Message, self.working).map(|m| {
                let serde_json::Value::Object(m) = m else {
                    return pbjson_types::Struct::default();
                };
                m.into_iter()
                    .map(|(k, v)| {
                        let v = match v {
                            serde_json::Value::Bool(b) => pbjson_types::Value::from(b),
                            v => {
                                pbjson_types::Value::from(v.as_str().unwrap_or_default().to_owned())
                            }
                        };
                        (k, v)
                    })
                    .collect()
            }),
        }
    }

    /// One HTTP/1.1 keep-alive connection (TCP_NODELAY).
    pub(crate) async fn connect_http(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        self.connect_http_from(None).await
    }

    /// One HTTP/1.1 keep-alive connection from the local address `src`
    /// (a loopback IP, port chosen by the kernel): many connections spread
    /// over several source IPs do not exhaust one IP's ephemeral ports.
    pub(crate) async fn connect_http_from(
        &self,
        src: Option<IpAddr>,
    ) -> Result<SendRequest<Full<Bytes>>, String> {
        let tcp = match src {
            None => TcpStream::connect(self.addr).await,
            Some(ip) => {
                let sock = if ip.is_ipv4() {
                    tokio::net::TcpSocket::new_v4()
                } else {
                    tokio::net::TcpSocket::new_v6()
                }
                .map_err(|e| format!("socket: {e}"))?;
                sock.bind(SocketAddr::new(ip, 0))
                    .map_err(|e| format!("bind {ip}: {e}"))?;
                sock.connect(self.addr).await
            }
        }
        .map_err(|e| format!("connect {}: {e}", self.addr))?;
        let _ = tcp.set_nodelay(true);
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(sender)
    }

    /// `channels` HTTP/2 connections for the gRPC workers to share.
    pub(crate) async fn connect_grpc(&self, channels: usize) -> Result<Vec<Channel>, String> {
        let mut out = Vec::with_capacity(channels);
        for _ in 0..channels.max(1) {
            let ch = tonic::transport::Endpoint::from_shared(self.url.clone())
                .map_err(|e| e.to_string())?
                .tcp_nodelay(true)
                .connect_timeout(Duration::from_secs(5))
                .connect()
                .await
                .map_err(|e| format!("gRPC connect {}: {e}", self.url))?;
            out.push(ch);
        }
        Ok(out)
    }

    /// The HTTP request with a fresh message id.
    pub(crate) fn http_request(&self, worker: u32, seq: u64) -> Request<Full<Bytes>> {
        let mut req = Request::new(Full::new(self.template.render(self.run, worker, seq)));
        *req.method_mut() = Method::POST;
        *req.uri_mut() = self.path.clone();
        let h = req.headers_mut();
        h.insert(HOST, self.host.clone());
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if self.kind.is_stream() {
            h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        }
        req
    }

    /// One request on `conn`, read to its end. `Ok(events)`: the number of
    /// stream events (1 for a unary call).
    pub(crate) async fn call(&self, conn: &mut Conn, worker: u32, seq: u64) -> Result<u64, String> {
        match conn {
            Conn::Http(sender) => {
                sender
                    .ready()
                    .await
                    .map_err(|e| format!("connection: {e}"))?;
                let resp = sender
                    .send_request(self.http_request(worker, seq))
                    .await
                    .map_err(|e| format!("request: {e}"))?;
                let status = resp.status();
                let mut body = resp.into_body();
                if self.kind.is_stream() {
                    let mut counter = a2a_bench::sse::SseCounter::default();
                    let mut error = None;
                    while let Some(frame) = body.frame().await {
                        let frame = frame.map_err(|e| format!("body: {e}"))?;
                        if let Some(d) = frame.data_ref() {
                            counter.feed(d);
                            if error.is_none() && memchr::memmem::find(d, b"\"error\"").is_some() {
                                error = Some(String::from_utf8_lossy(d).into_owned());
                            }
                        }
                    }
                    if !status.is_success() {
                        return Err(format!("HTTP {status}"));
                    }
                    if let Some(e) = error {
                        return Err(format!("error event: {}", e.trim()));
                    }
                    if counter.events == 0 {
                        return Err("empty stream".to_owned());
                    }
                    Ok(counter.events)
                } else {
                    let bytes = body
                        .collect()
                        .await
                        .map_err(|e| format!("body: {e}"))?
                        .to_bytes();
                    if !status.is_success() {
                        return Err(format!(
                            "HTTP {status}: {}",
                            String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
                        ));
                    }
                    if self.kind == Kind::JsonrpcSend
                        && memchr::memmem::find(&bytes, b"\"result\"").is_none()
                    {
                        return Err(
                            String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned()
                        );
                    }
                    Ok(1)
                }
            }
            Conn::Grpc(client) => {
                let req = self.grpc_request(worker, seq);
                if self.kind == Kind::GrpcStream {
                    let mut stream = client
                        .send_streaming_message(req)
                        .await
                        .map_err(|s| format!("gRPC {:?}: {}", s.code(), s.message()))?
                        .into_inner();
                    let mut n = 0;
                    while stream
                        .message()
                        .await
                        .map_err(|s| format!("gRPC {:?}: {}", s.code(), s.message()))?
                        .is_some()
                    {
                        n += 1;
                    }
                    if n == 0 {
                        return Err("empty stream".to_owned());
                    }
                    Ok(n)
                } else {
                    let resp = client
                        .send_message(req)
                        .await
                        .map_err(|s| format!("gRPC {:?}: {}", s.code(), s.message()))?;
                    if resp.get_ref().payload.is_none() {
                        return Err("empty SendMessageResponse".to_owned());
                    }
                    Ok(1)
                }
            }
        }
    }

    /// One request whose whole answer is returned: the fixture the
    /// ceilings serve (`--mode capture`).
    pub(crate) async fn capture(&self, grpc: Option<Channel>) -> Result<Vec<u8>, String> {
        use prost::Message as _;
        if let Some(ch) = grpc {
            let mut client = A2aServiceClient::new(ch);
            let req = self.grpc_request(0, 0);
            let status = |s: tonic::Status| format!("gRPC {:?}: {}", s.code(), s.message());
            return if self.kind == Kind::GrpcStream {
                let mut stream = client
                    .send_streaming_message(req)
                    .await
                    .map_err(status)?
                    .into_inner();
                let mut items = Vec::new();
                while let Some(m) = stream.message().await.map_err(status)? {
                    items.push(m);
                }
                Ok(a2a_bench::fixtures::encode_delimited(&items))
            } else {
                Ok(client
                    .send_message(req)
                    .await
                    .map_err(status)?
                    .into_inner()
                    .encode_to_vec())
            };
        }
        let mut sender = self.connect_http().await?;
        sender.ready().await.map_err(|e| e.to_string())?;
        let resp = sender
            .send_request(self.http_request(0, 0))
            .await
            .map_err(|e| e.to_string())?;
        let status = resp.status();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        if !status.is_success() {
            return Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        Ok(bytes.to_vec())
    }
}

/// One worker's connection.
#[derive(Debug)]
pub(crate) enum Conn {
    /// An HTTP/1.1 keep-alive connection of its own.
    Http(SendRequest<Full<Bytes>>),
    /// A client on a channel shared with other workers (HTTP/2 multiplexed).
    Grpc(A2aServiceClient<Channel>),
}

/// Opens `n` worker connections: one HTTP/1.1 connection each, or `n` gRPC
/// clients spread over `grpc_channels` HTTP/2 connections.
pub(crate) async fn open_conns(
    target: &Arc<Target>,
    n: usize,
    grpc_channels: usize,
) -> Result<Vec<Conn>, String> {
    if target.kind.is_grpc() {
        let channels = target.connect_grpc(grpc_channels.min(n)).await?;
        return Ok((0..n)
            .map(|i| Conn::Grpc(A2aServiceClient::new(channels[i % channels.len()].clone())))
            .collect());
    }
    let opened = futures::future::join_all((0..n).map(|_| target.connect_http())).await;
    opened.into_iter().map(|r| r.map(Conn::Http)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fixed_width() {
        assert_eq!(message_id(0xdead_beef, 3, 42), "deadbeef-0003-00000000002a");
        let args = TargetArgs {
            target: Kind::JsonrpcSend,
            url: "http://127.0.0.1:9/".to_owned(),
            reply: Reply::Message,
            server_pid: None,
            label: None,
            working: false,
        };
        let t = Target::new(&args, "hi", 1).unwrap();
        let body = t.template.render(1, 2, 3);
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v["params"]["message"]["messageId"],
            "00000001-0002-000000000003"
        );
        assert_eq!(v["params"]["metadata"]["reply"], "message");
    }

    #[test]
    fn refuses_non_loopback() {
        assert!(loopback_addr("http://10.0.0.1:80/").is_err());
        assert!(loopback_addr("http://example.com/").is_err());
        assert!(loopback_addr("http://localhost:1/").is_ok());
        assert!(loopback_addr("http://[::1]:1").is_ok());
    }
}
