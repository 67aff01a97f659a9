//! The A2A v0.3.0 protobuf contract for Rust: prost messages, proto-JSON
//! serde impls, the tonic `A2AService`, the embedded descriptor set, and the
//! conversions to and from [`a2a_types`].
//!
//! This crate is what the gRPC and HTTP+JSON (REST) bindings speak. The
//! messages are generated from the workspace's `proto/a2a.proto` (package
//! `a2a.v1`: the v0.3.0 wire facts plus the three additive post-release
//! fields `Part.metadata`, `FilePart.name` and `AgentCard.icon_url`; see
//! `proto/README.md`). The generated code is committed under
//! `src/generated/`, so this crate has no build script and needs no
//! `protoc`; the workspace test `tests/codegen.rs` keeps it in sync with the
//! proto.
//!
//! # Modules
//!
//! - [`v1`]: the curated re-export of package `a2a.v1`: every message and
//!   enum, the oneof modules (`part`, `file_part`, `security_scheme`,
//!   `o_auth_flows`, `send_message_response`, `stream_response`) and, behind
//!   features, the tonic service modules `a2a_service_server` and
//!   `a2a_service_client`.
//! - [`convert`]: `From` (a2a-types → pb) and `TryFrom` (pb → a2a-types,
//!   error [`a2a_types::A2aError`]) for every message, the resource-name
//!   helpers (`tasks/{id}`, `tasks/{id}/pushNotificationConfigs/{cid}`), and
//!   the Struct, Timestamp and file-bytes helpers. Its docs list where the
//!   two models differ.
//! - `grpc_status` (features `grpc-server` or `grpc-client`): the one
//!   [`a2a_types::A2aError`] ↔ `tonic::Status` table, both directions.
//! - [`FILE_DESCRIPTOR_SET`]: the encoded `google.protobuf.FileDescriptorSet`
//!   of `a2a.proto` and its imports, for gRPC server reflection.
//! - [`http_rules`] and [`google_api`]: the `google.api.http` rule of each
//!   RPC, read from the descriptor set (the REST route table as declared).
//!
//! Every message implements [`prost::Message`] (binary protobuf) and
//! `serde::{Serialize, Deserialize}` in the proto-JSON mapping (pbjson):
//! lowerCamelCase keys (the snake_case names are accepted too), enum names
//! as strings (integers accepted), default-valued fields omitted, `bytes` as
//! base64, and unknown keys ignored when parsing.
//!
//! # Features
//!
//! | Feature | Enables |
//! |---|---|
//! | *(none)* | messages, enums, proto-JSON serde, `convert`, [`FILE_DESCRIPTOR_SET`], [`http_rules`] |
//! | `grpc-server` | `v1::a2a_service_server` (tonic `A2aService` trait and `A2aServiceServer`), `grpc_status` |
//! | `grpc-client` | `v1::a2a_service_client` (tonic `A2aServiceClient`), `grpc_status` |
//!
//! # Example
//!
//! ```
//! use a2a_pb::v1::{part, Message, Part, Role};
//!
//! let msg = Message {
//!     message_id: "m-1".to_owned(),
//!     role: Role::User as i32,
//!     content: vec![Part { part: Some(part::Part::Text("hi".to_owned())), metadata: None }],
//!     ..Default::default()
//! };
//! let json = serde_json::to_string(&msg).unwrap();
//! assert_eq!(json, r#"{"messageId":"m-1","role":"ROLE_USER","content":[{"text":"hi"}]}"#);
//!
//! // The same message in the JSON-RPC data model, and back.
//! let types = a2a_types::Message::try_from(msg.clone()).unwrap();
//! assert_eq!(types.text(), "hi");
//! assert_eq!(Message::from(types), msg);
//! ```

pub mod convert;
#[cfg(any(feature = "grpc-server", feature = "grpc-client"))]
pub mod grpc_status;

/// The generated code, private: the public surface is [`v1`].
#[allow(
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    rust_2018_idioms,
    clippy::all,
    clippy::pedantic,
    clippy::nursery,
    clippy::restriction
)]
mod generated {
    pub(crate) mod a2a {
        pub(crate) mod v1 {
            #[rustfmt::skip]
            include!("generated/a2a.v1.rs");
            #[rustfmt::skip]
            include!("generated/a2a.v1.serde.rs");
        }
    }
    pub(crate) mod google {
        pub(crate) mod api {
            #[rustfmt::skip]
            include!("generated/google.api.rs");
        }
    }
}

/// The encoded `google.protobuf.FileDescriptorSet` of `a2a.proto` and every
/// file it imports (with source info), for gRPC server reflection, e.g.
/// `tonic_reflection`'s `register_encoded_file_descriptor_set`.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("generated/a2a_descriptor.bin");

pub mod v1 {
    //! Package `a2a.v1`: the A2A v0.3.0 messages, enums and service.
    //!
    //! Type names follow prost: `APIKeySecurityScheme` is [`ApiKeySecurityScheme`]
    //! and `HTTPAuthSecurityScheme` is [`HttpAuthSecurityScheme`]; enum variants
    //! drop their prefix (`TASK_STATE_CANCELLED` is [`TaskState::Cancelled`]).
    //! Each oneof is an enum in the snake_case module of its message (for
    //! example [`part::Part`], [`stream_response::Payload`]).
    //!
    //! Enum-typed fields are `i32` in prost messages: use the generated
    //! accessors (`task_status.state()`, `message.role()`), which map unknown
    //! values to the `Unspecified` variant, and `set_state`/`set_role`.

    /// Re-exports the listed generated types and records their names, so a
    /// unit test can check the list against the descriptor set.
    macro_rules! reexport {
        ($($ty:ident),* $(,)?) => {
            pub use crate::generated::a2a::v1::{$($ty),*};

            /// The re-exported messages and enums, by Rust name.
            #[cfg(test)]
            pub(crate) const REEXPORTED: &[&str] = &[$(stringify!($ty)),*];
        };
    }

    reexport!(
        AgentCapabilities,
        AgentCard,
        AgentCardSignature,
        AgentExtension,
        AgentInterface,
        AgentProvider,
        AgentSkill,
        ApiKeySecurityScheme,
        Artifact,
        AuthenticationInfo,
        AuthorizationCodeOAuthFlow,
        CancelTaskRequest,
        ClientCredentialsOAuthFlow,
        CreateTaskPushNotificationConfigRequest,
        DataPart,
        DeleteTaskPushNotificationConfigRequest,
        FilePart,
        GetAgentCardRequest,
        GetTaskPushNotificationConfigRequest,
        GetTaskRequest,
        HttpAuthSecurityScheme,
        ImplicitOAuthFlow,
        ListTaskPushNotificationConfigRequest,
        ListTaskPushNotificationConfigResponse,
        Message,
        MutualTlsSecurityScheme,
        OAuth2SecurityScheme,
        OAuthFlows,
        OpenIdConnectSecurityScheme,
        Part,
        PasswordOAuthFlow,
        PushNotificationConfig,
        Role,
        Security,
        SecurityScheme,
        SendMessageConfiguration,
        SendMessageRequest,
        SendMessageResponse,
        StreamResponse,
        StringList,
        Task,
        TaskArtifactUpdateEvent,
        TaskPushNotificationConfig,
        TaskState,
        TaskStatus,
        TaskStatusUpdateEvent,
        TaskSubscriptionRequest,
    );

    pub use crate::generated::a2a::v1::{
        file_part, o_auth_flows, part, security_scheme, send_message_response, stream_response,
    };

    #[cfg(feature = "grpc-client")]
    pub use crate::generated::a2a::v1::a2a_service_client;
    #[cfg(feature = "grpc-server")]
    pub use crate::generated::a2a::v1::a2a_service_server;

    /// The fully qualified gRPC service name, `a2a.v1.A2AService`.
    pub const SERVICE_NAME: &str = "a2a.v1.A2AService";
}

/// The `google.api` option messages `a2a.proto` uses (`google/api/http.proto`
/// and `google/api/field_behavior.proto`), for reading the HTTP+JSON binding;
/// see [`http_rules`]. These types have prost impls only, no serde.
pub mod google_api {
    pub use crate::generated::google::api::{
        CustomHttpPattern, FieldBehavior, Http, HttpRule, http_rule,
    };
}

/// The `google.api.http` rule of each `A2AService` method, in declaration
/// order, as `(method name, rule)`, read from [`FILE_DESCRIPTOR_SET`].
///
/// This is the REST binding exactly as declared in `proto/a2a.proto`
/// (including additional bindings), for building or checking an HTTP+JSON
/// route table. Methods without a rule are left out.
///
/// ```
/// use a2a_pb::google_api::http_rule::Pattern;
///
/// let rules = a2a_pb::http_rules();
/// let (method, rule) = &rules[0];
/// assert_eq!(method, "SendMessage");
/// assert_eq!(rule.pattern, Some(Pattern::Post("/v1/message:send".to_owned())));
/// assert_eq!(rule.body, "*");
/// ```
#[must_use]
pub fn http_rules() -> Vec<(String, google_api::HttpRule)> {
    descriptor_options::http_rules(FILE_DESCRIPTOR_SET)
}

/// A view of the descriptor set that keeps the `google.api.http` method
/// option, which `prost_types::MethodOptions` drops as an unknown extension.
mod descriptor_options {
    use prost::Message as _;

    use crate::google_api::HttpRule;

    #[derive(Clone, PartialEq, prost::Message)]
    struct FileDescriptorSet {
        #[prost(message, repeated, tag = "1")]
        file: Vec<FileDescriptorProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    struct FileDescriptorProto {
        #[prost(string, tag = "2")]
        package: String,
        #[prost(message, repeated, tag = "6")]
        service: Vec<ServiceDescriptorProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    struct ServiceDescriptorProto {
        #[prost(string, tag = "1")]
        name: String,
        #[prost(message, repeated, tag = "2")]
        method: Vec<MethodDescriptorProto>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    struct MethodDescriptorProto {
        #[prost(string, tag = "1")]
        name: String,
        #[prost(message, optional, tag = "4")]
        options: Option<MethodOptions>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    struct MethodOptions {
        /// The `(google.api.http)` extension.
        #[prost(message, optional, tag = "72295728")]
        http: Option<HttpRule>,
    }

    /// The rules of `a2a.v1.A2AService`; empty if the set does not decode.
    pub(crate) fn http_rules(encoded: &[u8]) -> Vec<(String, HttpRule)> {
        let Ok(fds) = FileDescriptorSet::decode(encoded) else {
            return Vec::new();
        };
        fds.file
            .into_iter()
            .filter(|f| f.package == "a2a.v1")
            .flat_map(|f| f.service)
            .filter(|s| s.name == "A2AService")
            .flat_map(|s| s.method)
            .filter_map(|m| Some((m.name, m.options?.http?)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;
    use prost_types::FileDescriptorSet;

    fn a2a_file() -> prost_types::FileDescriptorProto {
        let fds = FileDescriptorSet::decode(crate::FILE_DESCRIPTOR_SET)
            .expect("the committed descriptor set decodes");
        fds.file
            .into_iter()
            .find(|f| f.package() == "a2a.v1")
            .expect("the descriptor set holds package a2a.v1")
    }

    #[test]
    fn descriptor_set_has_the_a2a_service_with_its_ten_methods() {
        let file = a2a_file();
        let service = file
            .service
            .iter()
            .find(|s| format!("{}.{}", file.package(), s.name()) == crate::v1::SERVICE_NAME)
            .expect("service a2a.v1.A2AService");
        let methods: Vec<&str> = service.method.iter().map(|m| m.name()).collect();
        assert_eq!(
            methods,
            [
                "SendMessage",
                "SendStreamingMessage",
                "GetTask",
                "CancelTask",
                "TaskSubscription",
                "CreateTaskPushNotificationConfig",
                "GetTaskPushNotificationConfig",
                "ListTaskPushNotificationConfig",
                "GetAgentCard",
                "DeleteTaskPushNotificationConfig",
            ]
        );
        let streaming: Vec<&str> = service
            .method
            .iter()
            .filter(|m| m.server_streaming())
            .map(|m| m.name())
            .collect();
        assert_eq!(streaming, ["SendStreamingMessage", "TaskSubscription"]);
    }

    #[test]
    fn v1_reexports_every_message_and_enum_of_the_package() {
        let file = a2a_file();
        // prost only changes the case of acronyms (`APIKey` -> `ApiKey`).
        let mut declared: Vec<String> = file
            .message_type
            .iter()
            .map(|m| m.name().to_ascii_lowercase())
            .chain(file.enum_type.iter().map(|e| e.name().to_ascii_lowercase()))
            .collect();
        declared.sort_unstable();
        let mut reexported: Vec<String> = crate::v1::REEXPORTED
            .iter()
            .map(|n| n.to_ascii_lowercase())
            .collect();
        reexported.sort_unstable();
        assert_eq!(declared, reexported);
    }

    #[test]
    fn http_rules_match_the_rest_binding() {
        use crate::google_api::http_rule::Pattern;

        let rules: Vec<(String, Option<Pattern>, String, usize)> = crate::http_rules()
            .into_iter()
            .map(|(m, r)| (m, r.pattern, r.body, r.additional_bindings.len()))
            .collect();
        let get = |p: &str| Some(Pattern::Get(p.to_owned()));
        let post = |p: &str| Some(Pattern::Post(p.to_owned()));
        let expected = vec![
            ("SendMessage", post("/v1/message:send"), "*", 0),
            ("SendStreamingMessage", post("/v1/message:stream"), "*", 0),
            ("GetTask", get("/v1/{name=tasks/*}"), "", 0),
            ("CancelTask", post("/v1/{name=tasks/*}:cancel"), "*", 0),
            (
                "TaskSubscription",
                get("/v1/{name=tasks/*}:subscribe"),
                "",
                0,
            ),
            (
                "CreateTaskPushNotificationConfig",
                post("/v1/{parent=tasks/*/pushNotificationConfigs}"),
                "config",
                1,
            ),
            (
                "GetTaskPushNotificationConfig",
                get("/v1/{name=tasks/*/pushNotificationConfigs/*}"),
                "",
                0,
            ),
            (
                "ListTaskPushNotificationConfig",
                get("/v1/{parent=tasks/*}/pushNotificationConfigs"),
                "",
                0,
            ),
            ("GetAgentCard", get("/v1/card"), "", 0),
            (
                "DeleteTaskPushNotificationConfig",
                Some(Pattern::Delete(
                    "/v1/{name=tasks/*/pushNotificationConfigs/*}".to_owned(),
                )),
                "",
                0,
            ),
        ];
        let expected: Vec<(String, Option<Pattern>, String, usize)> = expected
            .into_iter()
            .map(|(m, p, b, n)| (m.to_owned(), p, b.to_owned(), n))
            .collect();
        assert_eq!(rules, expected);

        let create = &crate::http_rules()[5].1;
        let typo = &create.additional_bindings[0];
        assert_eq!(
            typo.pattern,
            post("/v1/{parent=task/*/pushNotificationConfigs}")
        );
        assert_eq!(typo.body, "config");
    }
}
