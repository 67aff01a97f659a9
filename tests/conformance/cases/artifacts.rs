//! Artifact chunking: `append` and `lastChunk`, replacement by id.

use a2a_types::TaskState;

use crate::harness::*;

pub(crate) async fn artifact_chunks_append_and_replace(t: &Target) {
    let events = t
        .stream(&UserMessage::text("artifacts"))
        .await
        .expect("stream")
        .all()
        .await;
    let shapes: Vec<String> = events.iter().map(Event::shape).collect();
    assert_eq!(
        shapes,
        [
            "task:submitted",
            "status:working",
            "artifact:a-1",
            "artifact:a-1:append",
            "artifact:a-1:append:last",
            "artifact:a-2:last",
            "artifact:a-2:last",
            "status:completed:final",
        ]
    );
    let chunks: Vec<(String, Option<String>)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Artifact { artifact, .. } => {
                Some((artifact.text.clone(), artifact.name.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        chunks,
        [
            ("Hel".to_owned(), Some("greeting".to_owned())),
            ("lo".to_owned(), None),
            (" world".to_owned(), None),
            ("draft".to_owned(), Some("draft".to_owned())),
            ("final".to_owned(), Some("final".to_owned())),
        ]
    );
    let task = t.get(&fold(&events).id, None).await.expect("get");
    assert_eq!(task.state, TaskState::Completed);
    let artifacts: Vec<(&str, Option<&str>, &str)> = task
        .artifacts
        .iter()
        .map(|a| (a.id.as_str(), a.name.as_deref(), a.text.as_str()))
        .collect();
    assert_eq!(
        artifacts,
        [
            ("a-1", Some("greeting"), "Hello world"),
            ("a-2", Some("final"), "final"),
        ]
    );
    // Appended chunks are kept as parts.
    assert_eq!(task.artifact("a-1").parts.len(), 3);
    // A blocking send folds the same.
    let sent = t
        .send(&UserMessage::text("artifacts"))
        .await
        .expect("send")
        .task();
    assert_eq!(sent.artifacts, task.artifacts);
}
