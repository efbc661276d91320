//! Requests to a router in-process (`tower::ServiceExt::oneshot`, no port) from a
//! test client address, the reply they get, and a shim on a real socket of 127.0.0.1.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::response::Response;
use http_body_util::BodyExt as _;
use roost::shim::AppState;
use tower::ServiceExt as _;

/// A whole response.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{} is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// `errors[0].extensions.code` of a GraphQL answer, or "".
    pub fn code(&self) -> String {
        self.json()["errors"][0]["extensions"]["code"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

/// Sends one request to `app` and reads the whole response.
pub async fn oneshot<S>(app: &S, request: Request<Body>) -> Reply
where
    S: tower::Service<Request<Body>, Response = Response, Error = Infallible> + Clone,
{
    let Ok(response) = app.clone().oneshot(request).await;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

/// A request builder with the test client's address set.
pub fn request(method: Method, uri: &str) -> axum::http::request::Builder {
    from(method, uri, "192.0.2.1")
}

/// A request from a given client address.
pub fn from(method: Method, uri: &str, ip: &str) -> axum::http::request::Builder {
    let addr: SocketAddr = format!("{ip}:40000").parse().unwrap();
    Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "api.example.test")
        .extension(ConnectInfo(addr))
}

/// Sends a request without a body.
pub async fn send<S>(app: &S, req: axum::http::request::Builder) -> Reply
where
    S: tower::Service<Request<Body>, Response = Response, Error = Infallible> + Clone,
{
    oneshot(app, req.body(Body::empty()).unwrap()).await
}

pub async fn get<S>(app: &S, uri: &str) -> Reply
where
    S: tower::Service<Request<Body>, Response = Response, Error = Infallible> + Clone,
{
    send(app, request(Method::GET, uri)).await
}

/// Asserts an error body is exactly `{"detail": detail}`.
#[track_caller]
pub fn assert_detail(r: &Reply, status: u16, detail: &str) {
    assert_eq!(r.status.as_u16(), status, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json(), serde_json::json!({ "detail": detail }));
}

/// A shim on an ephemeral port of 127.0.0.1; `stop` triggers the graceful shutdown.
pub struct Server {
    pub addr: SocketAddr,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Serves `state` on a new socket until `stop` is sent or dropped.
pub async fn serve(state: AppState) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(roost::shim::run(listener, state, async move {
        let _ = rx.await;
    }));
    Server {
        addr,
        stop: Some(tx),
        task,
    }
}
