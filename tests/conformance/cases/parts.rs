//! Every kind of part, part and message metadata, unchanged by every wire.

use serde_json::json;

use crate::harness::*;

pub(crate) fn rich_parts() -> Vec<PartView> {
    vec![
        PartView::Text {
            text: "with metadata ✓".to_owned(),
            metadata: Some(json!({"lang": "en", "weight": 2})),
        },
        PartView::File {
            name: Some("report.pdf".to_owned()),
            mime_type: Some("application/pdf".to_owned()),
            uri: Some("https://files.example/report.pdf".to_owned()),
            bytes: None,
            metadata: None,
        },
        PartView::File {
            name: Some("hello.txt".to_owned()),
            mime_type: Some("text/plain".to_owned()),
            uri: None,
            // base64 of "hello, wörld"
            bytes: Some("aGVsbG8sIHfDtnJsZA==".to_owned()),
            metadata: None,
        },
        PartView::Data {
            data: json!({
                "int": 3, "negative": -7, "float": 1.5, "bool": true, "null": null,
                "text": "ünïcode", "list": [1, "two", false, null, {"deep": [0.25]}],
                "object": {"empty": {}, "nested": {"k": "v"}}
            }),
            metadata: Some(json!({"schema": "urn:example:schema"})),
        },
    ]
}

pub(crate) fn metadata() -> serde_json::Value {
    json!({"trace": "abc", "n": 42, "tags": ["x", "y"], "nested": {"ok": true}})
}

pub(crate) async fn parts_and_metadata_arrive_unchanged(t: &Target) {
    let mut send = UserMessage::text("parts");
    send.extra = rich_parts();
    send.metadata = Some(metadata());
    let reply = t.send(&send).await.expect("send").message();
    assert_eq!(reply.parts, rich_parts());
    assert_eq!(reply.metadata, Some(metadata()));
}

pub(crate) async fn artifact_parts_arrive_unchanged(t: &Target) {
    let mut send = UserMessage::text("parts task");
    send.extra = rich_parts();
    let task = t.send(&send).await.expect("send").task();
    assert_eq!(task.artifact("copy").parts, rich_parts());
    // The user's message, as stored, keeps its parts too.
    let mut expected = vec![PartView::Text {
        text: "parts task".to_owned(),
        metadata: None,
    }];
    expected.extend(rich_parts());
    assert_eq!(task.history[0].parts, expected);
    let got = t.get(&task.id, None).await.expect("get");
    assert_eq!(got.artifact("copy").parts, rich_parts());
}
