//! The access log line of a request, as `roost serve` prints it on stderr: path and
//! query string, response bytes, user agent, and a request id (a trusted proxy's
//! `X-Request-Id`, else made) echoed in the response's `X-Request-Id`.

use crate::support::Serving;

#[tokio::test]
async fn lines_name_query_bytes_agent_and_a_request_id_echoed_in_the_response() {
    let client = reqwest::Client::new();
    // No trusted proxy: the client's X-Request-Id is not taken; a new id is made
    // and echoed.
    let served = Serving::start(&[]);
    let reply = client
        .get(served.url("/api/v0/projects/?type=tool&page_size=3"))
        .header("user-agent", "integration/1.0 (\"quoted\")")
        .header("x-request-id", "chosen-by-client")
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let echoed = reply.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body = reply.bytes().await.unwrap();
    let line = served.access_line();
    assert_eq!(line["method"], "GET");
    assert_eq!(line["status"], 200);
    assert_eq!(line["path"], "/api/v0/projects/");
    assert_eq!(line["query"], "type=tool&page_size=3");
    assert_eq!(line["bytes"], body.len());
    assert_eq!(line["user_agent"], "integration/1.0 (\"quoted\")");
    assert_eq!(line["client"], "127.0.0.1");
    let id = line["request_id"].as_str().unwrap();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert_eq!(echoed, id);

    // Each request its own id; no query or agent, no field.
    let again = client
        .get(served.url("/api/v0/chapters/london"))
        .send()
        .await
        .unwrap();
    let again_id = again.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    let again_body = again.bytes().await.unwrap();
    let line = served.access_line();
    assert_eq!(line["path"], "/api/v0/chapters/london");
    assert!(line.get("query").is_none(), "{line}");
    assert!(line.get("user_agent").is_none(), "{line}");
    assert_eq!(line["bytes"], again_body.len());
    assert_ne!(line["request_id"], id);
    assert_eq!(line["request_id"], again_id.as_str());
    drop(served);

    // Behind a trusted proxy: its id is kept, logged and echoed, and the forwarded
    // address is the client; a malformed id is replaced.
    let served = Serving::start(&["--trusted-proxy", "127.0.0.1/32"]);
    let proxied = client
        .get(served.url("/api/v0/chapters/?page=2"))
        .header("x-forwarded-for", "203.0.113.7")
        .header("x-request-id", "edge-42:a/b")
        .send()
        .await
        .unwrap();
    assert_eq!(proxied.headers()["x-request-id"], "edge-42:a/b");
    let line = served.access_line();
    assert_eq!(line["request_id"], "edge-42:a/b");
    assert_eq!(line["client"], "203.0.113.7");
    let malformed = client
        .get(served.url("/api/v0/no-such-thing"))
        .header("x-request-id", "a b")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), 404);
    let echoed = malformed.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body = malformed.bytes().await.unwrap();
    let line = served.access_line();
    assert_eq!(line["status"], 404);
    assert_eq!(line["bytes"], body.len());
    assert_eq!(line["request_id"].as_str().unwrap().len(), 32);
    assert_eq!(line["request_id"], echoed.as_str());
}
