//! `tasks/resubscribe`: the snapshot, then live events.

use a2a_types::TaskState;

use crate::harness::*;

pub(crate) async fn resubscribe_gives_the_snapshot_then_live_events(t: &Target) {
    let gate = fresh("gate");
    let task = t
        .send(&UserMessage::text(&format!("wait {gate}")).non_blocking())
        .await
        .expect("send")
        .task();
    wait_for_state(&**t, &task.id, TaskState::Working).await;
    let mut events = t.resubscribe(&task.id).await.expect("resubscribe");
    match events.expect_event().await {
        Event::Task(snapshot) => {
            assert_eq!(snapshot.id, task.id);
            assert_eq!(snapshot.state, TaskState::Working);
        }
        other => panic!("the snapshot comes first, got {other:?}"),
    }
    open_gate(&gate);
    let live: Vec<String> = events.all().await.iter().map(Event::shape).collect();
    assert_eq!(live, ["artifact:late:last", "status:completed:final"]);
}

pub(crate) async fn two_subscribers_see_the_same_live_events(t: &Target) {
    let gate = fresh("gate");
    let task = t
        .send(&UserMessage::text(&format!("wait {gate}")).non_blocking())
        .await
        .expect("send")
        .task();
    wait_for_state(&**t, &task.id, TaskState::Working).await;
    let mut a = t.resubscribe(&task.id).await.expect("resubscribe a");
    let mut b = t.resubscribe(&task.id).await.expect("resubscribe b");
    assert!(matches!(a.expect_event().await, Event::Task(_)));
    assert!(matches!(b.expect_event().await, Event::Task(_)));
    open_gate(&gate);
    let a = a.all().await;
    let b = b.all().await;
    assert_eq!(a, b);
    assert_eq!(a.len(), 2, "{a:?}");
}

pub(crate) async fn resubscribe_to_a_terminal_task_gives_the_snapshot_and_ends(t: &Target) {
    let done = t
        .send(&UserMessage::text("echo x"))
        .await
        .expect("send")
        .task();
    let events = t
        .resubscribe(&done.id)
        .await
        .expect("resubscribe")
        .all()
        .await;
    assert_eq!(events, [Event::Task(done)]);
}

pub(crate) async fn resubscribe_to_an_unknown_task_is_task_not_found(t: &Target) {
    assert_code(
        t.resubscribe(&fresh("no-such-task")).await,
        -32001,
        "resubscribe",
    );
}

pub(crate) async fn resubscribe_to_an_interrupted_task_gives_the_snapshot_and_ends(t: &Target) {
    let asked = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let events = t
        .resubscribe(&asked.id)
        .await
        .expect("resubscribe")
        .all()
        .await;
    assert_eq!(events, [Event::Task(asked)]);
}
