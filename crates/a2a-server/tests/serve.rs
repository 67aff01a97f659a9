//! Startup, the card, stores, graceful shutdown: the library's `run` on
//! 127.0.0.1:0 listeners bound first.

mod common;

use std::time::{Duration, Instant};

use a2a_server::{Agent, Listeners, ServeConfig, ServeError, Server, StoreSpec};
use common::{TestServer, send_params, user_text};
use serde_json::json;
use tokio::net::TcpListener;

#[tokio::test]
async fn startup_announces_the_bound_port_and_the_card_declares_it() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = Server::new(ServeConfig::new(Agent::demo()), Listeners::new(listener))
        .await
        .unwrap();
    let mut out = Vec::new();
    server.announce(&mut out).unwrap();
    let url = format!("http://127.0.0.1:{port}/");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("listening jsonrpc {url}\n")
    );
    assert_eq!(server.card().url, url);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(server.run(async move {
        let _ = stopped.await;
    }));

    let http = reqwest::Client::new();
    let card: serde_json::Value = http
        .get(format!("{url}.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], url);
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(
        card["additionalInterfaces"],
        json!([{"transport": "JSONRPC", "url": url}])
    );
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    assert!(card["name"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(card["description"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(card["version"].as_str().is_some_and(|s| !s.is_empty()));
    let skills: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(skills, ["echo", "interview", "countdown"]);
    for s in card["skills"].as_array().unwrap() {
        assert!(s["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(s["examples"].as_array().is_some_and(|e| !e.is_empty()));
    }
    let inputs = card["defaultInputModes"].as_array().unwrap();
    for m in [
        "text/plain",
        "application/json",
        "application/pdf",
        "image/png",
    ] {
        assert!(
            inputs.contains(&json!(m)),
            "input modes lack {m}: {inputs:?}"
        );
    }
    assert_eq!(
        card["defaultOutputModes"],
        json!(["text/plain", "application/json"])
    );

    // The legacy card path answers the same card.
    let legacy: serde_json::Value = http
        .get(format!("{url}.well-known/agent.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(legacy, card);

    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(15), running)
        .await
        .expect("stopped in time")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn public_url_host_goes_into_the_card_and_the_line() {
    let mut config = ServeConfig::new(Agent::conformance());
    config.public_url_host = Some("agent.example".into());
    let server = TestServer::start_with(config).await;
    let port = server.url.rsplit(':').next().unwrap().trim_end_matches('/');
    let expected = format!("http://agent.example:{port}/");
    assert_eq!(server.url, expected);
    assert_eq!(server.announced, format!("listening jsonrpc {expected}\n"));
    // The card is still served on the bound address.
    let url = format!("http://127.0.0.1:{port}/.well-known/agent-card.json");
    let card: serde_json::Value = reqwest::get(url).await.unwrap().json().await.unwrap();
    assert_eq!(card["url"], expected);
    assert_eq!(card["additionalInterfaces"][0]["url"], expected);
    assert_eq!(card["skills"][0]["id"], "conformance");
}

#[tokio::test]
async fn listeners_bind_reports_the_address() {
    let taken = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut config = ServeConfig::ephemeral(Agent::demo());
    config.jsonrpc_addr = taken.local_addr().unwrap().to_string();
    let err = Listeners::bind(&config).await.unwrap_err().to_string();
    assert!(
        err.contains("jsonrpc") && err.contains(&config.jsonrpc_addr),
        "{err}"
    );

    config.jsonrpc_addr = "127.0.0.1:0".into();
    let listeners = Listeners::bind(&config).await.unwrap();
    assert_ne!(listeners.jsonrpc().local_addr().unwrap().port(), 0);
    assert_ne!(listeners.grpc().unwrap().local_addr().unwrap().port(), 0);
    assert_ne!(listeners.rest().unwrap().local_addr().unwrap().port(), 0);

    config.grpc_addr = None;
    config.rest_addr = None;
    let listeners = Listeners::bind(&config).await.unwrap();
    assert!(listeners.grpc().is_none() && listeners.rest().is_none());
}

#[tokio::test]
async fn stores_that_cannot_open_stop_the_start_without_the_password() {
    // A regular file where the SQLite file's directory should be.
    let file = std::env::temp_dir().join(format!(
        "a2a-server-serve-{}-{}",
        std::process::id(),
        a2a_core::new_id()
    ));
    std::fs::write(&file, b"not a directory").unwrap();
    let sqlite = format!("sqlite:{}", file.join("a.db").display());
    for (store, shown) in [
        (sqlite.as_str(), sqlite.as_str()),
        (
            "postgres://a2a:s3cret@localhost:notaport/a2a",
            "postgres://a2a@localhost:notaport/a2a",
        ),
    ] {
        let mut config = ServeConfig::new(Agent::demo());
        config.store = store.parse::<StoreSpec>().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let err = Server::new(config, Listeners::new(listener))
            .await
            .unwrap_err();
        assert!(matches!(err, ServeError::Store(_)), "{err:?}");
        let err = err.to_string();
        assert!(err.contains(&format!("--store {shown}")), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
    std::fs::remove_file(&file).unwrap();
}

#[tokio::test]
async fn graceful_shutdown_completes_with_idle_connections() {
    let server = TestServer::start(Agent::demo()).await;
    let url = server.url.clone();
    // Leaves a keep-alive connection open in the client's pool.
    let task = server
        .result("message/send", send_params(user_text("hello")))
        .await;
    assert_eq!(task["status"]["state"], "completed");
    let http = server.http().clone();
    let started = Instant::now();
    server.stop().await.expect("clean stop");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "idle connections held the shutdown for {:?}",
        started.elapsed()
    );
    // Nothing answers any more.
    let after = http
        .post(&url)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}}))
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    assert!(after.is_err(), "server still answers after shutdown");
}

#[tokio::test]
async fn graceful_shutdown_is_bounded_by_open_streams() {
    let mut config = ServeConfig::new(Agent::demo());
    config.shutdown_timeout = Duration::from_millis(500);
    let server = TestServer::start_with(config).await;
    // A stream that would stay open for 10 minutes.
    let mut sse = server
        .open_stream("message/stream", send_params(user_text("countdown 600")))
        .await;
    let first = sse.next().await.expect("first event");
    assert_eq!(first["result"]["kind"], "task");
    let started = Instant::now();
    server.stop().await.expect("clean stop");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "shutdown took {:?}",
        started.elapsed()
    );
}
