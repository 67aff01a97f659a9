//! Push-notification configs: create, get, list, delete, and their errors.

use crate::harness::*;

fn spec(id: Option<&str>, url: &str, token: Option<&str>) -> PushSpec {
    PushSpec {
        id: id.map(str::to_owned),
        url: url.to_owned(),
        token: token.map(str::to_owned),
    }
}

pub(crate) async fn push_config_create_get_list_delete(t: &Target) {
    let task = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let a = t
        .set_push(
            &task.id,
            &spec(Some("cfg-a"), "http://127.0.0.1:9/a", Some("tok-a")),
        )
        .await
        .expect("create cfg-a");
    assert_eq!(
        a,
        PushView {
            task_id: task.id.clone(),
            id: "cfg-a".to_owned(),
            url: "http://127.0.0.1:9/a".to_owned(),
            token: Some("tok-a".to_owned()),
        }
    );
    // Without an id, the server assigns the task id.
    let default = t
        .set_push(&task.id, &spec(None, "http://127.0.0.1:9/default", None))
        .await
        .expect("create without an id");
    assert_eq!(default.id, task.id);
    assert_eq!(default.token, None);
    assert_eq!(t.get_push(&task.id, "cfg-a").await.expect("get cfg-a"), a);
    assert_eq!(
        t.get_push(&task.id, &task.id)
            .await
            .expect("get the default"),
        default
    );
    // Setting an existing id replaces it.
    let a2 = t
        .set_push(
            &task.id,
            &spec(Some("cfg-a"), "http://127.0.0.1:9/a2", None),
        )
        .await
        .expect("replace cfg-a");
    assert_eq!(t.get_push(&task.id, "cfg-a").await.expect("get cfg-a"), a2);

    let mut listed = t.list_push(&task.id).await.expect("list");
    listed.sort_by(|x, y| x.id.cmp(&y.id));
    let mut expected = vec![a2.clone(), default.clone()];
    expected.sort_by(|x, y| x.id.cmp(&y.id));
    assert_eq!(listed, expected);

    t.delete_push(&task.id, "cfg-a")
        .await
        .expect("delete cfg-a");
    assert_eq!(t.list_push(&task.id).await.expect("list"), [default]);
    assert_code(
        t.get_push(&task.id, "cfg-a").await,
        -32602,
        "get a deleted config",
    );
    assert_code(
        t.delete_push(&task.id, "cfg-a").await,
        -32602,
        "delete a deleted config",
    );
}

pub(crate) async fn push_config_in_send_is_registered(t: &Target) {
    let mut send = UserMessage::text("ask");
    send.push = Some(spec(Some("inline"), "http://127.0.0.1:9/inline", Some("t")));
    let task = t.send(&send).await.expect("send").task();
    let listed = t.list_push(&task.id).await.expect("list");
    assert_eq!(
        listed,
        [PushView {
            task_id: task.id.clone(),
            id: "inline".to_owned(),
            url: "http://127.0.0.1:9/inline".to_owned(),
            token: Some("t".to_owned()),
        }]
    );
}

pub(crate) async fn push_config_errors(t: &Target) {
    let unknown = fresh("no-such-task");
    let ok = spec(Some("c"), "http://127.0.0.1:9/c", None);
    assert_code(
        t.set_push(&unknown, &ok).await,
        -32001,
        "create on an unknown task",
    );
    assert_code(
        t.get_push(&unknown, "c").await,
        -32001,
        "get on an unknown task",
    );
    assert_code(
        t.list_push(&unknown).await,
        -32001,
        "list on an unknown task",
    );
    assert_code(
        t.delete_push(&unknown, "c").await,
        -32001,
        "delete on an unknown task",
    );
    let task = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    assert_code(
        t.set_push(&task.id, &spec(Some("c"), "ftp://127.0.0.1/c", None))
            .await,
        -32602,
        "a webhook that is not http(s)",
    );
    assert_code(
        t.get_push(&task.id, "nope").await,
        -32602,
        "get an unknown config",
    );
    assert_code(
        t.delete_push(&task.id, "nope").await,
        -32602,
        "delete an unknown config",
    );
    assert_eq!(t.list_push(&task.id).await.expect("list"), []);
}

pub(crate) async fn push_not_supported_is_push_notification_not_supported(t: &Target) {
    let b = &t.bare;
    let task = b
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let ok = spec(Some("c"), "http://127.0.0.1:9/c", None);
    assert_code(b.set_push(&task.id, &ok).await, -32003, "create");
    assert_code(b.get_push(&task.id, "c").await, -32003, "get");
    assert_code(b.list_push(&task.id).await, -32003, "list");
    assert_code(b.delete_push(&task.id, "c").await, -32003, "delete");
    let mut send = UserMessage::text("ask");
    send.push = Some(ok);
    assert_code(b.send(&send).await, -32003, "a send with a push config");
}

pub(crate) async fn push_config_ids_may_hold_reserved_characters(t: &Target) {
    let task = t
        .send(&UserMessage::text("ask"))
        .await
        .expect("send")
        .task();
    let id = "cfg:1 ü%?#";
    let set = t
        .set_push(&task.id, &spec(Some(id), "http://127.0.0.1:9/odd", None))
        .await
        .expect("create");
    assert_eq!(set.id, id);
    assert_eq!(t.get_push(&task.id, id).await.expect("get").id, id);
    assert_eq!(t.list_push(&task.id).await.expect("list"), [set]);
    t.delete_push(&task.id, id).await.expect("delete");
    assert_eq!(t.list_push(&task.id).await.expect("list"), []);
}
