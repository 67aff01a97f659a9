//! Property tests: random `a2a-types` values survive types → protobuf → types
//! unchanged, directly, through binary protobuf and through proto-JSON.
//!
//! The generators stay inside the overlap of the two models. What they
//! deliberately never produce, because the conversion is documented as lossy
//! there (see `a2a_pb::convert`):
//!
//! - `Some("")`, `Some(vec![])`, `Some(false)` in optional fields (read back as
//!   `None`), except `blocking`, which is always `Some` (its `None` is written
//!   as `true`);
//! - `history_length: Some(0)` (read back as `None`);
//! - `Message.reference_task_ids`, `AgentCapabilities.state_transition_history`
//!   and the `metadata` of the task-id / query / push-config params (no proto
//!   field);
//! - a push config without an id where a resource name is built (the id
//!   defaults to the task id), ids containing `/`;
//! - `OAuthFlows` with more than one flow (the proto keeps the first);
//! - an empty `preferred_transport` (read back as `"JSONRPC"`);
//! - timestamps not in the canonical UTC `Z` spelling, file bytes that are not
//!   base64 text, and metadata numbers that are integral doubles or integers
//!   beyond ±2^53.

use std::collections::BTreeMap;
use std::fmt::Debug;

use a2a_pb::v1;
use a2a_types as t;
use a2a_types::A2aError;
use base64::Engine as _;
use proptest::prelude::*;
use proptest::{collection, option};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

/// `x` → pb → `x`, through the value, the binary encoding and proto-JSON.
fn round_trips<T, P>(x: &T)
where
    T: Clone + PartialEq + Debug + TryFrom<P, Error = A2aError>,
    P: From<T> + Clone + prost::Message + Default + serde::Serialize + serde::de::DeserializeOwned,
{
    let pb = P::from(x.clone());

    let direct = T::try_from(pb.clone()).expect("pb -> types");
    assert_eq!(&direct, x, "direct");

    let decoded = P::decode(pb.encode_to_vec().as_slice()).expect("binary decode");
    assert_eq!(
        &T::try_from(decoded).expect("binary pb -> types"),
        x,
        "binary"
    );

    let json = serde_json::to_string(&pb).expect("proto-JSON encode");
    let parsed: P = serde_json::from_str(&json).expect("proto-JSON decode");
    assert_eq!(
        &T::try_from(parsed).expect("JSON pb -> types"),
        x,
        "proto-JSON: {json}"
    );
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

fn id() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.-]{1,12}"
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

fn some_text() -> impl Strategy<Value = Option<String>> {
    option::of("\\PC{1,12}")
}

fn strings() -> impl Strategy<Value = Vec<String>> {
    collection::vec(text(), 0..3)
}

fn some_strings() -> impl Strategy<Value = Option<Vec<String>>> {
    option::of(collection::vec(text(), 1..3))
}

fn some_true() -> impl Strategy<Value = Option<bool>> {
    prop_oneof![Just(None), Just(Some(true))]
}

fn json_value() -> impl Strategy<Value = Value> {
    const MAX_SAFE: i64 = 1 << 53;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-MAX_SAFE..=MAX_SAFE).prop_map(Value::from),
        // Non-integral doubles, exactly representable.
        any::<i32>().prop_map(|n| Value::from(f64::from(n) + 0.25)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            collection::btree_map(text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = Map<String, Value>> {
    collection::btree_map(text(), json_value(), 0..4).prop_map(|m| m.into_iter().collect())
}

fn metadata() -> impl Strategy<Value = Option<t::Metadata>> {
    option::of(json_object())
}

fn timestamp() -> impl Strategy<Value = Option<String>> {
    // Years 1..=9999, in the canonical spelling `rfc3339_from_timestamp` writes.
    option::of(
        (-62_135_596_800_i64..=253_402_300_799, 0_u32..1_000_000_000).prop_map(|(s, n)| {
            chrono::DateTime::from_timestamp(s, n)
                .expect("in range")
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        }),
    )
}

fn role() -> impl Strategy<Value = t::Role> {
    prop_oneof![Just(t::Role::User), Just(t::Role::Agent)]
}

fn task_state() -> impl Strategy<Value = t::TaskState> {
    prop_oneof![
        Just(t::TaskState::Submitted),
        Just(t::TaskState::Working),
        Just(t::TaskState::InputRequired),
        Just(t::TaskState::Completed),
        Just(t::TaskState::Canceled),
        Just(t::TaskState::Failed),
        Just(t::TaskState::Rejected),
        Just(t::TaskState::AuthRequired),
        Just(t::TaskState::Unknown),
    ]
}

fn file_content() -> impl Strategy<Value = t::FileContent> {
    let b64 = collection::vec(any::<u8>(), 0..16)
        .prop_map(|b| base64::engine::general_purpose::STANDARD.encode(b));
    prop_oneof![
        (b64, some_text(), some_text()).prop_map(|(bytes, name, mime_type)| {
            t::FileContent::Bytes(t::FileWithBytes {
                bytes,
                name,
                mime_type,
            })
        }),
        (text(), some_text(), some_text()).prop_map(|(uri, name, mime_type)| {
            t::FileContent::Uri(t::FileWithUri {
                uri,
                name,
                mime_type,
            })
        }),
    ]
}

fn part() -> impl Strategy<Value = t::Part> {
    prop_oneof![
        (text(), metadata())
            .prop_map(|(text, metadata)| t::Part::Text(t::TextPart { text, metadata })),
        (file_content(), metadata())
            .prop_map(|(file, metadata)| t::Part::File(t::FilePart { file, metadata })),
        (json_object(), metadata())
            .prop_map(|(data, metadata)| t::Part::Data(t::DataPart { data, metadata })),
    ]
}

fn parts() -> impl Strategy<Value = Vec<t::Part>> {
    collection::vec(part(), 0..3)
}

fn message() -> impl Strategy<Value = t::Message> {
    (
        role(),
        parts(),
        text(),
        option::of(id()),
        option::of(id()),
        some_strings(),
        metadata(),
    )
        .prop_map(
            |(role, parts, message_id, task_id, context_id, extensions, metadata)| t::Message {
                role,
                parts,
                message_id,
                task_id,
                context_id,
                reference_task_ids: None,
                extensions,
                metadata,
            },
        )
}

fn task_status() -> impl Strategy<Value = t::TaskStatus> {
    (task_state(), option::of(message()), timestamp()).prop_map(|(state, message, timestamp)| {
        t::TaskStatus {
            state,
            message,
            timestamp,
        }
    })
}

fn artifact() -> impl Strategy<Value = t::Artifact> {
    (
        text(),
        some_text(),
        some_text(),
        parts(),
        metadata(),
        some_strings(),
    )
        .prop_map(
            |(artifact_id, name, description, parts, metadata, extensions)| t::Artifact {
                artifact_id,
                name,
                description,
                parts,
                metadata,
                extensions,
            },
        )
}

fn task() -> impl Strategy<Value = t::Task> {
    (
        id(),
        id(),
        task_status(),
        option::of(collection::vec(message(), 1..3)),
        option::of(collection::vec(artifact(), 1..3)),
        metadata(),
    )
        .prop_map(
            |(id, context_id, status, history, artifacts, metadata)| t::Task {
                id,
                context_id,
                status,
                history,
                artifacts,
                metadata,
            },
        )
}

fn status_update() -> impl Strategy<Value = t::TaskStatusUpdateEvent> {
    (id(), id(), task_status(), any::<bool>(), metadata()).prop_map(
        |(task_id, context_id, status, is_final, metadata)| t::TaskStatusUpdateEvent {
            task_id,
            context_id,
            status,
            is_final,
            metadata,
        },
    )
}

fn artifact_update() -> impl Strategy<Value = t::TaskArtifactUpdateEvent> {
    (id(), id(), artifact(), some_true(), some_true(), metadata()).prop_map(
        |(task_id, context_id, artifact, append, last_chunk, metadata)| {
            t::TaskArtifactUpdateEvent {
                task_id,
                context_id,
                artifact,
                append,
                last_chunk,
                metadata,
            }
        },
    )
}

fn push_config(
    id_strategy: BoxedStrategy<Option<String>>,
) -> impl Strategy<Value = t::PushNotificationConfig> {
    (
        id_strategy,
        text(),
        some_text(),
        option::of((strings(), some_text()).prop_map(|(schemes, credentials)| {
            t::PushNotificationAuthenticationInfo {
                schemes,
                credentials,
            }
        })),
    )
        .prop_map(
            |(id, url, token, authentication)| t::PushNotificationConfig {
                id,
                url,
                token,
                authentication,
            },
        )
}

fn task_push_config() -> impl Strategy<Value = t::TaskPushNotificationConfig> {
    (id(), push_config(id().prop_map(Some).boxed())).prop_map(
        |(task_id, push_notification_config)| t::TaskPushNotificationConfig {
            task_id,
            push_notification_config,
        },
    )
}

fn send_params() -> impl Strategy<Value = t::MessageSendParams> {
    let configuration = (
        some_strings(),
        option::of(1..1000_i32),
        option::of(push_config(option::of(id()).boxed())),
        any::<bool>(),
    )
        .prop_map(
            |(accepted_output_modes, history_length, push_notification_config, blocking)| {
                t::MessageSendConfiguration {
                    accepted_output_modes,
                    history_length,
                    push_notification_config,
                    blocking: Some(blocking),
                }
            },
        );
    (message(), option::of(configuration), metadata()).prop_map(
        |(message, configuration, metadata)| t::MessageSendParams {
            message,
            configuration,
            metadata,
        },
    )
}

fn scopes() -> impl Strategy<Value = BTreeMap<String, String>> {
    collection::btree_map(text(), text(), 0..3)
}

fn oauth_flows() -> impl Strategy<Value = t::OAuthFlows> {
    prop_oneof![
        Just(t::OAuthFlows::default()),
        (text(), text(), some_text(), scopes()).prop_map(|(a, tk, r, s)| t::OAuthFlows {
            authorization_code: Some(t::AuthorizationCodeOAuthFlow {
                authorization_url: a,
                token_url: tk,
                refresh_url: r,
                scopes: s,
            }),
            ..Default::default()
        }),
        (text(), some_text(), scopes()).prop_map(|(tk, r, s)| t::OAuthFlows {
            client_credentials: Some(t::ClientCredentialsOAuthFlow {
                token_url: tk,
                refresh_url: r,
                scopes: s,
            }),
            ..Default::default()
        }),
        (text(), some_text(), scopes()).prop_map(|(a, r, s)| t::OAuthFlows {
            implicit: Some(t::ImplicitOAuthFlow {
                authorization_url: a,
                refresh_url: r,
                scopes: s,
            }),
            ..Default::default()
        }),
        (text(), some_text(), scopes()).prop_map(|(tk, r, s)| t::OAuthFlows {
            password: Some(t::PasswordOAuthFlow {
                token_url: tk,
                refresh_url: r,
                scopes: s,
            }),
            ..Default::default()
        }),
    ]
}

fn security_scheme() -> impl Strategy<Value = t::SecurityScheme> {
    prop_oneof![
        (text(), text(), some_text()).prop_map(|(location, name, description)| {
            t::SecurityScheme::ApiKey(t::ApiKeySecurityScheme {
                location,
                name,
                description,
            })
        }),
        (text(), some_text(), some_text()).prop_map(|(scheme, bearer_format, description)| {
            t::SecurityScheme::Http(t::HttpAuthSecurityScheme {
                scheme,
                bearer_format,
                description,
            })
        }),
        (oauth_flows(), some_text(), some_text()).prop_map(
            |(flows, oauth2_metadata_url, description)| {
                t::SecurityScheme::OAuth2(t::OAuth2SecurityScheme {
                    flows,
                    oauth2_metadata_url,
                    description,
                })
            }
        ),
        (text(), some_text()).prop_map(|(open_id_connect_url, description)| {
            t::SecurityScheme::OpenIdConnect(t::OpenIdConnectSecurityScheme {
                open_id_connect_url,
                description,
            })
        }),
        some_text().prop_map(|description| {
            t::SecurityScheme::MutualTls(t::MutualTlsSecurityScheme { description })
        }),
    ]
}

fn security() -> impl Strategy<Value = Option<Vec<BTreeMap<String, Vec<String>>>>> {
    option::of(collection::vec(
        collection::btree_map(text(), strings(), 0..3),
        1..3,
    ))
}

fn skill() -> impl Strategy<Value = t::AgentSkill> {
    (
        text(),
        text(),
        text(),
        strings(),
        some_strings(),
        some_strings(),
        some_strings(),
        security(),
    )
        .prop_map(
            |(id, name, description, tags, examples, input_modes, output_modes, security)| {
                t::AgentSkill {
                    id,
                    name,
                    description,
                    tags,
                    examples,
                    input_modes,
                    output_modes,
                    security,
                }
            },
        )
}

fn capabilities() -> impl Strategy<Value = t::AgentCapabilities> {
    let extension = (text(), some_text(), some_true(), metadata()).prop_map(
        |(uri, description, required, params)| t::AgentExtension {
            uri,
            description,
            required,
            params,
        },
    );
    (
        some_true(),
        some_true(),
        option::of(collection::vec(extension, 1..3)),
    )
        .prop_map(
            |(streaming, push_notifications, extensions)| t::AgentCapabilities {
                streaming,
                push_notifications,
                state_transition_history: None,
                extensions,
            },
        )
}

fn agent_card() -> impl Strategy<Value = t::AgentCard> {
    let interface =
        (text(), text()).prop_map(|(transport, url)| t::AgentInterface { transport, url });
    let provider =
        (text(), text()).prop_map(|(organization, url)| t::AgentProvider { organization, url });
    let signature = (text(), text(), metadata()).prop_map(|(protected, signature, header)| {
        t::AgentCardSignature {
            protected,
            signature,
            header,
        }
    });
    let head = (
        text(),
        text(),
        text(),
        text(),
        "\\PC{1,10}",
        option::of(collection::vec(interface, 1..3)),
        some_text(),
        option::of(provider),
        text(),
        some_text(),
    );
    let tail = (
        capabilities(),
        option::of(collection::btree_map(text(), security_scheme(), 1..3)),
        security(),
        strings(),
        strings(),
        collection::vec(skill(), 0..3),
        some_true(),
        option::of(collection::vec(signature, 1..3)),
    );
    (head, tail).prop_map(
        |(
            (
                protocol_version,
                name,
                description,
                url,
                preferred_transport,
                additional_interfaces,
                icon_url,
                provider,
                version,
                documentation_url,
            ),
            (
                capabilities,
                security_schemes,
                security,
                default_input_modes,
                default_output_modes,
                skills,
                supports_authenticated_extended_card,
                signatures,
            ),
        )| t::AgentCard {
            protocol_version,
            name,
            description,
            url,
            preferred_transport,
            additional_interfaces,
            icon_url,
            provider,
            version,
            documentation_url,
            capabilities,
            security_schemes,
            security,
            default_input_modes,
            default_output_modes,
            skills,
            supports_authenticated_extended_card,
            signatures,
        },
    )
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn parts_round_trip(x in part()) {
        round_trips::<t::Part, v1::Part>(&x);
    }

    #[test]
    fn messages_round_trip(x in message()) {
        round_trips::<t::Message, v1::Message>(&x);
    }

    #[test]
    fn tasks_round_trip(x in task()) {
        round_trips::<t::Task, v1::Task>(&x);
    }

    #[test]
    fn status_updates_round_trip(x in status_update()) {
        round_trips::<t::TaskStatusUpdateEvent, v1::TaskStatusUpdateEvent>(&x);
    }

    #[test]
    fn artifact_updates_round_trip(x in artifact_update()) {
        round_trips::<t::TaskArtifactUpdateEvent, v1::TaskArtifactUpdateEvent>(&x);
    }

    #[test]
    fn send_message_results_round_trip(x in prop_oneof![
        task().prop_map(t::SendMessageResult::Task),
        message().prop_map(t::SendMessageResult::Message),
    ]) {
        round_trips::<t::SendMessageResult, v1::SendMessageResponse>(&x);
    }

    #[test]
    fn stream_responses_round_trip(x in prop_oneof![
        task().prop_map(t::StreamResponse::Task),
        message().prop_map(t::StreamResponse::Message),
        status_update().prop_map(t::StreamResponse::StatusUpdate),
        artifact_update().prop_map(t::StreamResponse::ArtifactUpdate),
    ]) {
        round_trips::<t::StreamResponse, v1::StreamResponse>(&x);
    }

    #[test]
    fn agent_cards_round_trip(x in agent_card()) {
        round_trips::<t::AgentCard, v1::AgentCard>(&x);
    }

    #[test]
    fn send_message_params_round_trip(x in send_params()) {
        round_trips::<t::MessageSendParams, v1::SendMessageRequest>(&x);
    }

    #[test]
    fn task_push_configs_round_trip(x in task_push_config()) {
        round_trips::<t::TaskPushNotificationConfig, v1::TaskPushNotificationConfig>(&x);
        round_trips::<t::TaskPushNotificationConfig, v1::CreateTaskPushNotificationConfigRequest>(&x);
    }

    #[test]
    fn push_config_lists_round_trip(x in collection::vec(task_push_config(), 0..4)) {
        round_trips::<Vec<t::TaskPushNotificationConfig>, v1::ListTaskPushNotificationConfigResponse>(&x);
    }

    #[test]
    fn task_requests_round_trip(task_id in id(), history_length in option::of(1..1000_i32)) {
        round_trips::<t::TaskQueryParams, v1::GetTaskRequest>(&t::TaskQueryParams {
            id: task_id.clone(),
            history_length,
            metadata: None,
        });
        round_trips::<t::TaskIdParams, v1::CancelTaskRequest>(&t::TaskIdParams::new(task_id.clone()));
        round_trips::<t::TaskIdParams, v1::TaskSubscriptionRequest>(&t::TaskIdParams::new(task_id));
    }

    #[test]
    fn push_config_requests_round_trip(task_id in id(), config_id in id()) {
        round_trips::<t::GetTaskPushNotificationConfigParams, v1::GetTaskPushNotificationConfigRequest>(
            &t::GetTaskPushNotificationConfigParams {
                id: task_id.clone(),
                push_notification_config_id: Some(config_id.clone()),
                metadata: None,
            },
        );
        round_trips::<t::ListTaskPushNotificationConfigParams, v1::ListTaskPushNotificationConfigRequest>(
            &t::ListTaskPushNotificationConfigParams { id: task_id.clone(), metadata: None },
        );
        round_trips::<t::DeleteTaskPushNotificationConfigParams, v1::DeleteTaskPushNotificationConfigRequest>(
            &t::DeleteTaskPushNotificationConfigParams {
                id: task_id,
                push_notification_config_id: config_id,
                metadata: None,
            },
        );
    }

    #[test]
    fn arbitrary_protobuf_never_panics(bytes in collection::vec(any::<u8>(), 0..256)) {
        use prost::Message as _;
        if let Ok(pb) = v1::StreamResponse::decode(bytes.as_slice()) {
            let _ = t::StreamResponse::try_from(pb);
        }
        if let Ok(pb) = v1::SendMessageRequest::decode(bytes.as_slice()) {
            let _ = t::MessageSendParams::try_from(pb);
        }
        if let Ok(pb) = v1::AgentCard::decode(bytes.as_slice()) {
            let _ = t::AgentCard::try_from(pb);
        }
        if let Ok(pb) = v1::CreateTaskPushNotificationConfigRequest::decode(bytes.as_slice()) {
            let _ = t::TaskPushNotificationConfig::try_from(pb);
        }
    }
}
