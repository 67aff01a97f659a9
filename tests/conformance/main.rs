//! The conformance suite: every case is written once against the
//! [`harness::Driver`] trait and runs through JSON-RPC, gRPC, HTTP+JSON and
//! in process (as tonic's interop suite runs one case list against every
//! client and server), against one `DefaultRequestHandler` served by all
//! three adapters. A failure names its transport and its case, e.g.
//! `grpc::cancel_unknown_task_is_task_not_found`.
//!
//! ```text
//! cargo test --test conformance                  # everything
//! cargo test --test conformance rest::           # one transport
//! cargo test --test conformance stream_          # one family of cases
//! ```
//!
//! The drivers build their wire payloads from literals (JSON-RPC `json!`,
//! protobuf-JSON `json!`, protobuf structs field by field) and read the
//! answers by hand, so a bug in our own serde cannot hide on both sides of
//! the wire. `all_transports::scripted_scenario_gives_equal_results_on_every_transport`
//! runs one scenario through every transport and compares the transcripts.
//! See `docs/conformance.md`.

mod cases;
mod harness;

/// One test per case and transport: `jsonrpc::case`, `grpc::case`,
/// `rest::case`, `in_process::case`.
macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod jsonrpc {
            $(#[tokio::test] async fn $case() { crate::cases::$case(&crate::harness::jsonrpc().await).await })*
        }
        mod grpc {
            $(#[tokio::test] async fn $case() { crate::cases::$case(&crate::harness::grpc().await).await })*
        }
        mod rest {
            $(#[tokio::test] async fn $case() { crate::cases::$case(&crate::harness::rest().await).await })*
        }
        mod in_process {
            $(#[tokio::test] async fn $case() { crate::cases::$case(&crate::harness::in_process().await).await })*
        }
    };
}

conformance! {
    // Discovery.
    card_is_discovered_and_declares_every_interface,
    extended_card_is_served_when_configured,
    extended_card_not_configured,
    // message/send.
    blocking_send_returns_the_completed_task,
    send_returns_a_message,
    client_context_id_is_kept,
    non_blocking_send_returns_before_the_task_finishes,
    multi_turn_input_required_then_completed,
    follow_up_with_another_context_is_invalid_params,
    message_to_a_terminal_task_is_invalid_params,
    message_to_an_unknown_task_is_task_not_found,
    send_history_length_trims_the_returned_history,
    agent_failure_marks_the_task_failed,
    request_headers_reach_the_agent,
    non_blocking_send_of_a_message_reply_is_the_message,
    blocking_send_returns_when_the_task_is_canceled,
    dropping_a_stream_does_not_cancel_the_task,
    // tasks/get.
    get_returns_the_task_as_send_did,
    get_history_length_keeps_the_latest_messages,
    get_with_negative_history_length_is_invalid_params,
    get_unknown_task_is_task_not_found,
    task_reads_the_same_on_every_transport,
    // tasks/cancel.
    cancel_working_task_cancels_it,
    cancel_input_required_task_cancels_it,
    cancel_terminal_task_is_not_cancelable,
    cancel_unknown_task_is_task_not_found,
    // message/stream.
    stream_starts_with_the_task_and_ends_after_the_final_event,
    stream_fold_agrees_with_get,
    stream_of_a_message_reply_is_one_message,
    stream_ends_at_input_required,
    stream_to_an_unknown_task_is_task_not_found,
    stream_of_a_failing_agent_ends_failed,
    stream_error_before_any_event_is_the_call_error,
    streaming_unsupported_is_unsupported_operation,
    // tasks/resubscribe.
    resubscribe_gives_the_snapshot_then_live_events,
    two_subscribers_see_the_same_live_events,
    resubscribe_to_a_terminal_task_gives_the_snapshot_and_ends,
    resubscribe_to_an_unknown_task_is_task_not_found,
    resubscribe_to_an_interrupted_task_gives_the_snapshot_and_ends,
    // Artifacts, parts, metadata.
    artifact_chunks_append_and_replace,
    parts_and_metadata_arrive_unchanged,
    artifact_parts_arrive_unchanged,
    // Push-notification configs.
    push_config_create_get_list_delete,
    push_config_in_send_is_registered,
    push_config_errors,
    push_config_ids_may_hold_reserved_characters,
    push_not_supported_is_push_notification_not_supported,
    // Errors.
    every_error_code_reaches_the_wire,
    natural_errors_carry_the_transport_status,
    message_without_parts_is_invalid_params,
    unaccepted_output_modes_are_content_type_not_supported,
    invalid_agent_response_is_reported,
    framing_errors_map_to_the_transport_codes,
}

mod all_transports {
    #[tokio::test]
    async fn scripted_scenario_gives_equal_results_on_every_transport() {
        crate::cases::equivalence::scripted_scenario_gives_equal_results_on_every_transport().await;
    }
}
