//! The one place that reads REST URLs: the `{name}:{verb}` segments under
//! `/v1/tasks/` (axum 0.8 cannot route a capture with a static suffix such as
//! `/v1/tasks/{id}:cancel`, so the router captures `/v1/tasks/{*rest}` and
//! this module parses the rest) and the `historyLength` query parameter.
//!
//! Segments are split on the *raw* (still percent-encoded) path, then each id
//! is percent-decoded: a task id `a:b` arrives as `a%3Ab` and is not taken for
//! a verb, and `%2F` cannot forge a segment.

use a2a_types::A2aError;
use axum::http::Method;

/// The resource segment of a push-notification config collection.
const CONFIGS: &str = "pushNotificationConfigs";

/// The operations served under `/v1/tasks/` (and the `/v1/task/` alias).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TaskOp {
    /// `GET /v1/tasks/{id}`.
    Get(String),
    /// `POST /v1/tasks/{id}:cancel`.
    Cancel(String),
    /// `GET` or `POST /v1/tasks/{id}:subscribe`.
    Subscribe(String),
    /// `POST /v1/tasks/{id}/pushNotificationConfigs`.
    CreateConfig(String),
    /// `GET /v1/tasks/{id}/pushNotificationConfigs`.
    ListConfigs(String),
    /// `GET /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    GetConfig(String, String),
    /// `DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}`.
    DeleteConfig(String, String),
}

/// The path below `/v1/tasks/`, as a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resource {
    /// `{id}`
    Task(String),
    /// `{id}:cancel`
    Cancel(String),
    /// `{id}:subscribe`
    Subscribe(String),
    /// `{id}/pushNotificationConfigs`
    Configs(String),
    /// `{id}/pushNotificationConfigs/{configId}`
    Config(String, String),
}

/// The operation of `method` on `path`, the request's whole path (for
/// example `/v1/tasks/t-1:cancel`; a prefix a user nested the router under
/// is skipped).
///
/// # Errors
///
/// `MethodNotFoundError` when no operation has this method and path;
/// `InvalidParamsError` when an id is not valid percent-encoded UTF-8.
pub(crate) fn task_op(method: &Method, path: &str) -> Result<TaskOp, A2aError> {
    let resource = parse(path)?;
    let op = match (method.as_str(), resource) {
        ("GET", Resource::Task(id)) => TaskOp::Get(id),
        ("POST", Resource::Cancel(id)) => TaskOp::Cancel(id),
        ("GET" | "POST", Resource::Subscribe(id)) => TaskOp::Subscribe(id),
        ("POST", Resource::Configs(id)) => TaskOp::CreateConfig(id),
        ("GET", Resource::Configs(id)) => TaskOp::ListConfigs(id),
        ("GET", Resource::Config(id, cid)) => TaskOp::GetConfig(id, cid),
        ("DELETE", Resource::Config(id, cid)) => TaskOp::DeleteConfig(id, cid),
        _ => return Err(no_route(method, path)),
    };
    Ok(op)
}

/// `MethodNotFoundError` naming the method and path.
pub(crate) fn no_route(method: &Method, path: &str) -> A2aError {
    let shown: String = path.chars().take(200).collect();
    A2aError::method_not_found(format!(
        "Method not found: no operation for {method} {shown}"
    ))
}

fn parse(path: &str) -> Result<Resource, A2aError> {
    let rest = ["/v1/tasks/", "/v1/task/"]
        .iter()
        .find_map(|prefix| path.find(prefix).map(|i| &path[i + prefix.len()..]))
        .ok_or_else(|| no_route(&Method::GET, path))?;
    let segments: Vec<&str> = rest.split('/').collect();
    let unknown = || {
        let shown: String = path.chars().take(200).collect();
        A2aError::method_not_found(format!("Method not found: no resource at {shown}"))
    };
    match segments.as_slice() {
        [name] => Ok(match name.rsplit_once(':') {
            Some((id, "cancel")) => Resource::Cancel(decode(id)?),
            Some((id, "subscribe")) => Resource::Subscribe(decode(id)?),
            _ => Resource::Task(decode(name)?),
        }),
        [id, CONFIGS] => Ok(Resource::Configs(decode(id)?)),
        [id, CONFIGS, cid] if !cid.is_empty() => Ok(Resource::Config(decode(id)?, decode(cid)?)),
        _ => Err(unknown()),
    }
}

/// Checks the `parent` of a create-config request body against the task of
/// the path. Accepted spellings: `tasks/{id}`, `task/{id}` and either with
/// `/pushNotificationConfigs` appended (the proto's fixed HTTP rule binds
/// `parent` to `tasks/*/pushNotificationConfigs`). An empty `parent` is fine.
///
/// # Errors
///
/// `InvalidParamsError` when `parent` names another task or is malformed.
pub(crate) fn check_parent(parent: &str, task_id: &str) -> Result<(), A2aError> {
    if parent.is_empty() {
        return Ok(());
    }
    let named = parent
        .strip_suffix("/pushNotificationConfigs")
        .unwrap_or(parent);
    let named = named
        .strip_prefix("tasks/")
        .or_else(|| named.strip_prefix("task/"));
    match named {
        Some(id) if id == task_id => Ok(()),
        _ => {
            let shown: String = parent.chars().take(200).collect();
            Err(A2aError::invalid_params(format!(
                "parent `{shown}` does not name the task of the path (`tasks/{task_id}`)"
            )))
        }
    }
}

/// Percent-decodes one path segment (`+` stays `+`).
fn decode(segment: &str) -> Result<String, A2aError> {
    percent_decode(segment, false).ok_or_else(|| {
        let shown: String = segment.chars().take(100).collect();
        A2aError::invalid_params(format!(
            "invalid path segment `{shown}`: not valid percent-encoded UTF-8"
        ))
    })
}

/// Percent-decodes `s`; with `plus_is_space`, `+` is a space (query strings).
/// `None` for a bad escape or bytes that are not UTF-8.
fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The history length asked for in the query string: `historyLength` or
/// `history_length` (the last one given wins); absent is 0, which means all.
///
/// # Errors
///
/// `InvalidParamsError` when the value is not a 32-bit integer.
pub(crate) fn history_length(query: Option<&str>) -> Result<i32, A2aError> {
    let mut found = None;
    for pair in query.unwrap_or_default().split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(key, true).unwrap_or_default();
        if key == "historyLength" || key == "history_length" {
            found = Some((key, percent_decode(value, true).unwrap_or_default()));
        }
    }
    match found {
        None => Ok(0),
        Some((key, value)) => value.trim().parse::<i32>().map_err(|_| {
            let shown: String = value.chars().take(50).collect();
            A2aError::invalid_params(format!("{key} must be an integer, got {shown:?}"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(method: Method, path: &str) -> Result<TaskOp, i32> {
        task_op(&method, path).map_err(|e| e.code())
    }

    #[test]
    fn names_and_verbs() {
        let s = String::from;
        assert_eq!(op(Method::GET, "/v1/tasks/t-1"), Ok(TaskOp::Get(s("t-1"))));
        assert_eq!(
            op(Method::POST, "/v1/tasks/t-1:cancel"),
            Ok(TaskOp::Cancel(s("t-1")))
        );
        assert_eq!(
            op(Method::GET, "/v1/tasks/t-1:subscribe"),
            Ok(TaskOp::Subscribe(s("t-1")))
        );
        assert_eq!(
            op(Method::POST, "/v1/tasks/t-1:subscribe"),
            Ok(TaskOp::Subscribe(s("t-1")))
        );
        assert_eq!(
            op(Method::POST, "/v1/task/t-1/pushNotificationConfigs"),
            Ok(TaskOp::CreateConfig(s("t-1")))
        );
        assert_eq!(
            op(Method::GET, "/v1/tasks/t-1/pushNotificationConfigs"),
            Ok(TaskOp::ListConfigs(s("t-1")))
        );
        assert_eq!(
            op(Method::GET, "/v1/tasks/t-1/pushNotificationConfigs/c-1"),
            Ok(TaskOp::GetConfig(s("t-1"), s("c-1")))
        );
        assert_eq!(
            op(
                Method::DELETE,
                "/prefix/v1/tasks/t-1/pushNotificationConfigs/c-1"
            ),
            Ok(TaskOp::DeleteConfig(s("t-1"), s("c-1")))
        );
        // An id with a colon, encoded, is not a verb; an unknown verb is part of the id.
        assert_eq!(
            op(Method::GET, "/v1/tasks/a%3Ab"),
            Ok(TaskOp::Get(s("a:b")))
        );
        assert_eq!(
            op(Method::POST, "/v1/tasks/a%3Ab:cancel"),
            Ok(TaskOp::Cancel(s("a:b")))
        );
        assert_eq!(op(Method::GET, "/v1/tasks/a:b"), Ok(TaskOp::Get(s("a:b"))));
        assert_eq!(
            op(Method::GET, "/v1/tasks/%E2%9C%93"),
            Ok(TaskOp::Get(s("✓")))
        );
    }

    #[test]
    fn unknown_routes_and_bad_ids() {
        assert_eq!(op(Method::DELETE, "/v1/tasks/t-1"), Err(-32601));
        assert_eq!(op(Method::GET, "/v1/tasks/t-1:cancel"), Err(-32601));
        assert_eq!(op(Method::GET, "/v1/tasks/t-1/other"), Err(-32601));
        assert_eq!(
            op(Method::GET, "/v1/tasks/t-1/pushNotificationConfigs/"),
            Err(-32601)
        );
        assert_eq!(
            op(Method::GET, "/v1/tasks/t/pushNotificationConfigs/c/x"),
            Err(-32601)
        );
        assert_eq!(op(Method::GET, "/v1/tasks/%zz"), Err(-32602));
        assert_eq!(op(Method::GET, "/v1/tasks/%ff"), Err(-32602));
    }

    #[test]
    fn parents() {
        for ok in ["", "tasks/t", "task/t", "tasks/t/pushNotificationConfigs"] {
            assert_eq!(check_parent(ok, "t"), Ok(()), "{ok}");
        }
        for bad in ["tasks/u", "t", "tasks/t/x", "tasks/"] {
            assert_eq!(
                check_parent(bad, "t").map_err(|e| e.code()),
                Err(-32602),
                "{bad}"
            );
        }
    }

    #[test]
    fn history_length_query() {
        assert_eq!(history_length(None), Ok(0));
        assert_eq!(history_length(Some("historyLength=3")), Ok(3));
        assert_eq!(history_length(Some("x=1&history_length=2")), Ok(2));
        assert_eq!(history_length(Some("historyLength=-1")), Ok(-1));
        assert_eq!(
            history_length(Some("historyLength=abc")).map_err(|e| e.code()),
            Err(-32602)
        );
        assert_eq!(history_length(Some("other=abc")), Ok(0));
    }
}
