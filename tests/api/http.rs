//! The shim's HTTP behaviour in-process (docs/api.md §2): tree or catalog, trailing
//! slashes, validation errors, 404 shapes, 405, HEAD, ETag and 304, path traversal
//! attempts, CORS, `nosniff`, docs and openapi.json, GraphiQL's files.

use axum::http::Method;
use roost::config::Env;
use serde_json::{json, Value};

use crate::support::*;

#[tokio::test]
async fn root_names_the_docs_with_an_absolute_url() {
    let app = local();
    for path in ["/api/v0/", "/api/v0"] {
        let r = get(&app, path).await;
        assert_eq!(r.status, 200);
        assert_eq!(
            r.json()["docs_url"],
            "http://api.example.test/api/v0/docs/",
            "{path}"
        );
        assert!(r.json()["message"].as_str().unwrap().contains("API v0"));
    }
    let app = shared().app(Env::Local, |c| {
        c.public_url = Some("https://api.example.org/".into())
    });
    assert_eq!(
        get(&app, "/api/v0/").await.json()["docs_url"],
        "https://api.example.org/api/v0/docs/"
    );
}

#[tokio::test]
async fn lists_are_served_from_the_tree_with_and_without_the_slash() {
    let app = local();
    let fx = shared();
    let file = fx.file("api/v0/chapters/index.json");
    for path in ["/api/v0/chapters/", "/api/v0/chapters"] {
        let r = get(&app, path).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.body, file, "{path}");
    }
    // Canonicalisation: parameter order, defaults and case of case-insensitive filters.
    let r = get(
        &app,
        "/api/v0/chapters/?page_size=100&country=UNITED+KINGDOM&page=1&utm=x",
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body,
        fx.file("api/v0/chapters/index@country=united%20kingdom.json")
    );
    let r = get(&app, "/api/v0/snapshots/2026-03/chapters/").await;
    assert_eq!(
        r.body,
        fx.file("api/v0/snapshots/2026-03/chapters/index.json")
    );
}

#[tokio::test]
async fn details_are_served_by_any_spelling_of_their_id() {
    let app = local();
    let file = shared().file("api/v0/chapters/london.json");
    for path in [
        "/api/v0/chapters/london",
        "/api/v0/chapters/London",
        "/api/v0/chapters/www-chapter-london",
        "/api/v0/chapters/WWW-Chapter-London",
    ] {
        let r = get(&app, path).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.body, file, "{path}");
    }
    // A release tag with a slash, encoded or not.
    let tag = shared().file("api/v0/releases/appsec-tools/zap-extensions/release%2F2.0.json");
    for path in [
        "/api/v0/releases/appsec-tools/zap-extensions/release%2F2.0",
        "/api/v0/releases/appsec-tools/zap-extensions/release/2.0",
        "/api/v0/releases/AppSec-Tools/Zap-Extensions/release%2f2.0",
    ] {
        let r = get(&app, path).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.body, tag);
    }
}

#[tokio::test]
async fn what_the_tree_cannot_hold_is_answered_live() {
    let app = local();
    // page_size other than 100
    let r = get(&app, "/api/v0/members/?page_size=7&page=2").await;
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["items"].as_array().unwrap().len(), 7);
    assert_eq!(v["current_page"], 2);
    // structured search
    let v = get(&app, "/api/v0/projects/?q=name:%22juice+shop%22")
        .await
        .json();
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert!(!names.is_empty());
    assert!(names
        .iter()
        .all(|n| n.to_lowercase().contains("juice shop")));
    let v = get(&app, "/api/v0/projects/?q=stars:%3E%3D1000+juice")
        .await
        .json();
    assert!(v["total_count"].as_u64().unwrap() >= 1);
    // coordinate ranges
    let v = get(&app, "/api/v0/chapters/?latitude_gte=50&latitude_lte=60")
        .await
        .json();
    for item in v["items"].as_array().unwrap() {
        let lat = item["latitude"].as_f64().unwrap();
        assert!((50.0..=60.0).contains(&lat));
    }
    // a filter value absent from the data: an empty page 1
    let r = get(&app, "/api/v0/chapters/?country=Atlantis").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!({"current_page": 1, "has_next": false, "has_previous": false,
               "items": [], "total_count": 0, "total_pages": 1})
    );
    // is_upcoming, answered for the app's day (the tree's file is for the same day)
    let r = get(&app, "/api/v0/events/?is_upcoming=TRUE").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body,
        shared().file("api/v0/events/index@is_upcoming=true.json")
    );
    for e in r.json()["items"].as_array().unwrap() {
        assert!(e["start_date"].as_str().unwrap() >= TODAY);
    }
    // ... and for another day when the app's day differs
    let later = shared().app(Env::Local, |c| c.today = Some("2099-01-01".into()));
    let v = get(&later, "/api/v0/events/?is_upcoming=true").await.json();
    assert_eq!(v["total_count"], 0);
}

#[tokio::test]
async fn every_bad_parameter_is_a_400_naming_it() {
    let app = local();
    let cases: &[(&str, &str, &str)] = &[
        ("/api/v0/chapters/?page=0", "page", "0"),
        ("/api/v0/chapters/?page=abc", "page", "abc"),
        ("/api/v0/chapters/?page=-1", "page", "-1"),
        ("/api/v0/chapters/?page_size=0", "page_size", "0"),
        ("/api/v0/chapters/?page_size=101", "page_size", "101"),
        ("/api/v0/chapters/?page_size=ten", "page_size", "ten"),
        ("/api/v0/chapters/?ordering=name", "ordering", "name"),
        ("/api/v0/chapters/?ordering=-bogus", "ordering", "-bogus"),
        (
            "/api/v0/chapters/?latitude_gte=north",
            "latitude_gte",
            "north",
        ),
        (
            "/api/v0/chapters/?longitude_lte=NaN",
            "longitude_lte",
            "NaN",
        ),
        ("/api/v0/projects/?level=legendary", "level", "legendary"),
        ("/api/v0/projects/?type=code&type=game", "type", "game"),
        ("/api/v0/issues/?state=OPEN", "state", "OPEN"),
        ("/api/v0/events/?category=party", "category", "party"),
        ("/api/v0/events/?is_upcoming=maybe", "is_upcoming", "maybe"),
        ("/api/v0/sponsors/?is_member=yes", "is_member", "yes"),
        ("/api/v0/sponsors/?member_type=gold", "member_type", "gold"),
        ("/api/v0/projects/?q=owner:me", "q", "owner:me"),
        ("/api/v0/projects/?q=stars:many", "q", "stars:many"),
        ("/api/v0/projects/?q=stars:%3E1.5", "q", "stars:>1.5"),
        ("/api/v0/projects/?q=name:%22juice", "q", "name:\"juice"),
        ("/api/v0/projects/?q=name:%3Ejuice", "q", "name:>juice"),
        ("/api/v0/snapshots/2026-03/issues/?page=x", "page", "x"),
    ];
    for (path, param, value) in cases {
        let r = get(&app, path).await;
        assert_eq!(r.status, 400, "{path}: {}", r.text());
        assert_eq!(r.header("content-type"), Some("application/json"));
        let v = r.json();
        assert_eq!(v["message"], "Invalid request", "{path}");
        assert!(
            r.text()
                .starts_with(r#"{"message":"Invalid request","errors":[{"loc":["query","#),
            "{path}: keys in order: {}",
            r.text()
        );
        let errors = v["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "{path}: {v}");
        let e = &errors[0];
        assert_eq!(e["loc"], json!(["query", param]), "{path}");
        let msg = e["msg"].as_str().unwrap();
        assert!(msg.contains(value), "{path}: msg {msg:?} names the value");
        assert!(
            msg.contains(param),
            "{path}: msg {msg:?} names the parameter"
        );
        assert!(!e["type"].as_str().unwrap().is_empty());
    }
    let long = "a".repeat(257);
    let r = get(&app, &format!("/api/v0/projects/?q={long}")).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["errors"][0]["loc"], json!(["query", "q"]));
    assert!(r.json()["errors"][0]["msg"]
        .as_str()
        .unwrap()
        .contains("256"));
    // Several bad parameters: one entry each.
    let r = get(&app, "/api/v0/projects/?page=0&page_size=500&level=x").await;
    let locs: Vec<Value> = r.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["loc"][1].clone())
        .collect();
    assert_eq!(locs, [json!("page"), json!("page_size"), json!("level")]);
    // A value that is not UTF-8 once decoded is a 400 too; an unknown parameter is ignored.
    let r = get(&app, "/api/v0/chapters/?country=%FF").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["errors"][0]["loc"], json!(["query", "country"]));
    assert_eq!(
        get(&app, "/api/v0/chapters/?whatever=%FF").await.status,
        200
    );
}

#[tokio::test]
async fn not_found_shapes() {
    let app = local();
    for path in [
        "/api/v0/nothing/",
        "/api/v0/nothing",
        "/api/v01",
        "/api/v0/labels/red",
        "/api/v0/issues/o/r/not-a-number",
        "/api/v0/issues/o/r",
        "/api/v0/snapshots/2026-03/nothing/",
        "/",
        "/favicon.ico",
        "/api",
    ] {
        assert_detail(&get(&app, path).await, 404, "Not Found");
    }
    let r = get(&app, "/api/v0/chapters/atlantis").await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json(), json!({"message": "Chapter not found"}));
    let r = get(&app, "/api/v0/issues/o/r/12").await;
    assert_eq!(r.json(), json!({"message": "Issue not found"}));
    let r = get(&app, "/api/v0/snapshots/1999-01/issues/").await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json(), json!({"message": "Snapshot not found"}));
    // An uncompleted snapshot does not exist for the API.
    let r = get(&app, "/api/v0/snapshots/2026-09/issues/").await;
    assert_eq!(r.json(), json!({"message": "Snapshot not found"}));
    let total = get(&app, "/api/v0/members/").await.json()["total_pages"]
        .as_u64()
        .unwrap();
    let r = get(&app, "/api/v0/members/?page=99").await;
    assert_detail(
        &r,
        404,
        &format!("Page 99 not found. Valid pages are 1 to {total}."),
    );
    let r = get(&app, "/api/v0/members/?page=99&page_size=3").await;
    assert_eq!(r.status, 404);
    assert!(r.json()["detail"]
        .as_str()
        .unwrap()
        .starts_with("Page 99 not found."));
    // The largest page a client may send is a 404 too, never an overflow.
    let total = get(&app, "/api/v0/members/?page_size=7").await.json()["total_pages"]
        .as_u64()
        .unwrap();
    let r = get(
        &app,
        "/api/v0/members/?page=9223372036854775807&page_size=7",
    )
    .await;
    assert_detail(
        &r,
        404,
        &format!("Page 9223372036854775807 not found. Valid pages are 1 to {total}."),
    );
}

#[tokio::test]
async fn only_get_and_head() {
    let app = local();
    for method in [
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
        Method::TRACE,
    ] {
        for path in [
            "/api/v0/chapters/",
            "/api/v0/",
            "/api/v0/nothing",
            "/api/v0/openapi.json",
        ] {
            let r = send(&app, request(method.clone(), path)).await;
            assert_detail(&r, 405, "Method Not Allowed");
            assert_eq!(r.header("allow"), Some("GET, HEAD"), "{method} {path}");
        }
    }
}

#[tokio::test]
async fn head_is_get_without_a_body() {
    let app = local();
    for path in [
        "/api/v0/chapters/",
        "/api/v0/members/?page_size=3",
        "/api/v0/chapters/london",
        "/api/v0/chapters/atlantis",
        "/api/v0/nothing",
        "/api/v0/chapters/?page=0",
    ] {
        let g = get(&app, path).await;
        let h = send(&app, request(Method::HEAD, path)).await;
        assert_eq!(h.status, g.status, "{path}");
        assert!(h.body.is_empty(), "{path}");
        assert_eq!(
            h.header("content-length"),
            Some(g.body.len().to_string().as_str()),
            "{path}"
        );
        assert_eq!(h.header("etag"), g.header("etag"), "{path}");
        assert_eq!(h.header("content-type"), g.header("content-type"));
    }
}

#[tokio::test]
async fn strong_etags_and_304() {
    let app = local();
    for path in [
        "/api/v0/chapters/",
        "/api/v0/members/?page_size=3",
        "/api/v0/chapters/london",
        "/api/v0/",
        "/api/v0/openapi.json",
    ] {
        let r = get(&app, path).await;
        let etag = r.header("etag").unwrap().to_string();
        assert!(
            etag.starts_with('"') && etag.ends_with('"') && etag.len() > 20,
            "{etag}"
        );
        for inm in [
            etag.clone(),
            format!("W/{etag}"),
            "*".into(),
            format!("\"x\", {etag}"),
        ] {
            let r = send(
                &app,
                request(Method::GET, path).header("if-none-match", &inm),
            )
            .await;
            assert_eq!(r.status, 304, "{path} {inm}");
            assert!(r.body.is_empty());
            assert_eq!(r.header("etag"), Some(etag.as_str()));
            assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
        }
        let r = send(
            &app,
            request(Method::GET, path).header("if-none-match", "\"other\""),
        )
        .await;
        assert_eq!(r.status, 200);
        let h = send(
            &app,
            request(Method::HEAD, path).header("if-none-match", &etag),
        )
        .await;
        assert_eq!(h.status, 304);
    }
    // The same body has the same tag from the tree and from the catalog.
    let tree = get(&app, "/api/v0/chapters/").await;
    let live = get(
        &shared().app(Env::Local, |c| c.site = None),
        "/api/v0/chapters/",
    )
    .await;
    assert_eq!(tree.header("etag"), live.header("etag"));
    // Errors carry no ETag and are never 304.
    let r = send(
        &app,
        request(Method::GET, "/api/v0/chapters/atlantis").header("if-none-match", "*"),
    )
    .await;
    assert_eq!(r.status, 404);
    assert!(r.header("etag").is_none());
}

#[tokio::test]
async fn no_path_leaves_the_tree() {
    let app = local();
    let manifest = String::from_utf8(shared().file("manifest.json")).unwrap();
    let long = "x".repeat(300);
    let paths = [
        "/api/v0/../manifest.json".to_string(),
        "/api/v0/../../etc/passwd".to_string(),
        "/api/v0/%2e%2e/manifest.json".to_string(),
        "/api/v0/%2E%2E/%2E%2E/etc/passwd".to_string(),
        "/api/v0/chapters/..".to_string(),
        "/api/v0/chapters/%2e%2e".to_string(),
        "/api/v0/chapters/..%2F..%2F..%2Fmanifest".to_string(),
        "/api/v0/chapters/%2e%2e%2f%2e%2e%2fmanifest".to_string(),
        "/api/v0/members/..%2f..%2f..%2f..%2fetc%2fpasswd".to_string(),
        "/api/v0/releases/a/b/..%2F..%2F..%2F..%2Fmanifest".to_string(),
        "/api/v0/releases/..%2F../..%2F../index".to_string(),
        "/api/v0/snapshots/..%2F..%2F/chapters/".to_string(),
        "/api/v0/snapshots/%2e%2e/chapters/".to_string(),
        "/api/v0/docs/../manifest.json".to_string(),
        "/api/v0/docs/%2e%2e/%2e%2e/manifest.json".to_string(),
        "/api/v0/docs/..%2F..%2F..%2Fmanifest.json".to_string(),
        "/api/v0/docs/%2e%2e%2f%2e%2e%2f%2e%2e%2fmanifest.json".to_string(),
        "/api/v0/docs/.hidden".to_string(),
        "/api/v0/docs/%00".to_string(),
        "/api/v0/members/%00".to_string(),
        "/api/v0/members/a%00b".to_string(),
        "/api/v0/chapters/%00/".to_string(),
        "/api/v0/members/%FF".to_string(),
        "/api/v0/members/%C3%28".to_string(),
        "/api/v0/docs/%FF".to_string(),
        "/api/v0/%FF/".to_string(),
        "/api/v0/members/%".to_string(),
        "/api/v0/members/%2".to_string(),
        format!("/api/v0/members/{long}"),
        format!("/api/v0/chapters/{long}"),
        format!("/api/v0/releases/o/r/{long}%2F{long}"),
        format!("/api/v0/snapshots/{long}/issues/"),
        format!("/api/v0/docs/{long}"),
        format!("/api/v0/{long}/"),
        "/api/v0/members/index".to_string(),
        "/api/v0/members/%69ndex".to_string(),
        "/api/v0/members/index@page=2".to_string(),
        "/api/v0/chapters/index".to_string(),
        "/api/v0/chapters/.json".to_string(),
        "/api/v0/chapters//london".to_string(),
        "//api/v0/chapters/".to_string(),
        "/api/v0/chapters/?page=1%00".to_string(),
        format!("/api/v0/projects/?q={long}&type={long}"),
        format!("/api/v0/releases/?tag_name={long}{long}"),
    ];
    for path in &paths {
        let r = get(&app, path).await;
        assert!(
            matches!(r.status.as_u16(), 200 | 400 | 404),
            "{path}: {} {}",
            r.status,
            r.text()
        );
        let v = r.json();
        assert!(
            !r.text().contains("\"files\""),
            "{path} leaked the manifest"
        );
        assert!(!r.text().contains("root:"), "{path}");
        assert!(!manifest.is_empty());
        if r.status == 200 {
            // Only a well-formed list answer, never a file from elsewhere.
            assert!(v.get("items").is_some(), "{path}: {v}");
        }
    }
    // A member whose login is `index` would be the file `%69ndex.json`, never the list.
    let r = get(&app, "/api/v0/members/index").await;
    assert_eq!(r.json(), json!({"message": "Member not found"}));
}

#[tokio::test]
async fn every_response_says_nosniff() {
    let app = local();
    for path in [
        "/api/v0/chapters/",
        "/api/v0/nothing",
        "/",
        "/api/v0/chapters/?page=0",
        "/api/v0/docs/",
        "/api/v0/openapi.json",
    ] {
        let r = get(&app, path).await;
        assert_eq!(
            r.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
    let r = send(&app, request(Method::POST, "/api/v0/")).await;
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
}

#[tokio::test]
async fn openapi_and_docs_are_served_with_their_types() {
    let app = local();
    let r = get(&app, "/api/v0/openapi.json").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    // The environment's own servers entry (docs/api.md §1).
    assert_eq!(
        doc["servers"],
        json!([{"url": "/", "description": "Local"}])
    );
    let app_prod = shared().app(Env::Production, |c| {
        c.public_url = Some("https://api.example.org".into())
    });
    let doc = get(&app_prod, "/api/v0/openapi.json").await.json();
    assert_eq!(
        doc["servers"],
        json!([{"url": "https://api.example.org", "description": "Production"}])
    );
    let r = get(&app, "/api/v0/docs/").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert!(r.text().contains("<html"));
    // Its examples are the answers of the tree the shim serves (docs/api.md §7).
    let page: serde_json::Value =
        serde_json::from_slice(&shared().file("api/v0/chapters/index.json")).unwrap();
    let html = r.text();
    assert!(html.contains(&format!("&#34;total_count&#34;: {},", page["total_count"])));
    assert!(html.contains("id=\"op-get_chapter-404\""));
    assert!(!html.contains("made from the schema"));
    assert_eq!(get(&app, "/api/v0/docs/index.html").await.body, r.body);
    let css = get(&app, "/api/v0/docs/docs.css").await;
    assert_eq!(css.status, 200);
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    let js = get(&app, "/api/v0/docs/docs.js").await;
    assert_eq!(
        js.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    let r = get(&app, "/api/v0/docs").await;
    assert_eq!(r.status, 308);
    assert_eq!(r.header("location"), Some("/api/v0/docs/"));
    assert_detail(
        &get(&app, "/api/v0/docs/nothing.js").await,
        404,
        "Not Found",
    );
    assert_detail(
        &get(&app, "/api/v0/docs/docs.css/x").await,
        404,
        "Not Found",
    );
}

/// `openapi.json` and the docs page, kept in memory, are answered in each coding the
/// request accepts, the same bytes and tag every time, each tag its coding's.
#[tokio::test]
async fn openapi_and_docs_are_answered_alike_in_every_coding() {
    let app = local();
    for path in ["/api/v0/openapi.json", "/api/v0/docs/"] {
        let plain = get(&app, path).await;
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        let plain_tag = plain.header("etag").unwrap().to_string();
        for (coding, suffix) in [("gzip", "-gz\""), ("br", "-br\"")] {
            let ask = || request(Method::GET, path).header("accept-encoding", coding);
            let first = send(&app, ask()).await;
            let again = send(&app, ask()).await;
            assert_eq!(first.status, 200, "{path} {coding}");
            assert_eq!(first.header("content-encoding"), Some(coding), "{path}");
            let tag = first.header("etag").unwrap().to_string();
            assert!(tag.ends_with(suffix), "{path} {tag}");
            assert_eq!(
                tag.trim_end_matches(suffix),
                plain_tag.trim_end_matches('"')
            );
            assert_eq!(again.body, first.body, "{path} {coding}");
            assert_eq!(again.header("etag"), Some(tag.as_str()));
            let decoded = match coding {
                "gzip" => gunzip(&first.body),
                _ => unbrotli(&first.body),
            };
            assert_eq!(decoded, plain.body, "{path} {coding}");
            let r = send(&app, ask().header("if-none-match", &tag)).await;
            assert_eq!(r.status, 304, "{path} {coding}");
        }
    }
}

#[tokio::test]
async fn cors_preflight_and_simple_requests() {
    for env in [Env::Local, Env::Production] {
        let app = shared().app(env, |c| {
            c.cors_origins = vec!["https://app.example.org".into()]
        });
        let r = send(
            &app,
            request(Method::OPTIONS, "/api/v0/chapters/")
                .header("origin", "https://app.example.org")
                .header("access-control-request-method", "GET")
                .header("access-control-request-headers", "x-api-key"),
        )
        .await;
        assert!(r.status.is_success(), "{env:?}: {}", r.status);
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("https://app.example.org")
        );
        let headers = r
            .header("access-control-allow-headers")
            .unwrap()
            .to_lowercase();
        assert!(headers.contains("x-api-key"), "{headers}");
        let methods = r.header("access-control-allow-methods").unwrap();
        assert!(
            methods.contains("GET") && methods.contains("HEAD"),
            "{methods}"
        );
        // Another origin gets no grant.
        let r = send(
            &app,
            request(Method::OPTIONS, "/api/v0/chapters/")
                .header("origin", "https://evil.example")
                .header("access-control-request-method", "GET"),
        )
        .await;
        assert!(r.header("access-control-allow-origin").is_none());
    }
    let app = shared().app(Env::Local, |c| c.cors_origins = vec!["*".into()]);
    let r = send(
        &app,
        request(Method::GET, "/api/v0/chapters/").header("origin", "https://any.example"),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let exposed = r
        .header("access-control-expose-headers")
        .unwrap()
        .to_lowercase();
    assert!(exposed.contains("etag") && exposed.contains("retry-after"));
}

#[tokio::test]
async fn a_missing_dataset_is_a_bare_500() {
    let dir = tempfile::tempdir().unwrap();
    let fx = shared();
    let app = roost::shim::app(
        roost::shim::AppState::new({
            let mut c = roost::shim::ShimConfig::new(
                Env::Local,
                &dir.path().join("missing.db"),
                None,
                &dir.path().join("auth.db"),
            );
            c.today = Some(TODAY.into());
            c
        })
        .unwrap(),
    );
    let r = get(&app, "/api/v0/chapters/").await;
    assert_detail(&r, 500, "Internal server error");
    assert!(!r.text().contains("missing.db"));
    // The tree alone still answers what it holds.
    let app = roost::shim::app(
        roost::shim::AppState::new(roost::shim::ShimConfig::new(
            Env::Local,
            &dir.path().join("missing.db"),
            Some(&fx.site),
            &dir.path().join("auth.db"),
        ))
        .unwrap(),
    );
    assert_eq!(get(&app, "/api/v0/chapters/").await.status, 200);
}

#[test]
fn non_json_errors_from_other_layers_become_json() {
    use axum::response::IntoResponse;
    let plain = (
        axum::http::StatusCode::PAYLOAD_TOO_LARGE,
        [("allow", "GET")],
        "Failed to buffer the request body: length limit exceeded",
    )
        .into_response();
    let r = roost::shim::respond::json_error(plain);
    assert_eq!(r.status(), 413);
    assert_eq!(r.headers()["content-type"], "application/json");
    assert_eq!(r.headers()["allow"], "GET");
    let ok = roost::shim::respond::json_error("fine".into_response());
    assert_eq!(ok.headers()["content-type"], "text/plain; charset=utf-8");
}

#[tokio::test]
async fn graphiql_files_are_served_in_local_and_e2e_only() {
    for env in [Env::Local, Env::E2e] {
        let app = shared().app(env, |_| {});
        // Content type, ETag and revalidation, compression.
        for (path, kind) in [
            ("/graphql/graphiql.js", "text/javascript"),
            ("/graphql/graphiql.css", "text/css"),
            ("/graphql/editor.worker.js", "text/javascript"),
            ("/graphql/json.worker.js", "text/javascript"),
            ("/graphql/graphql.worker.js", "text/javascript"),
            ("/graphql/examples.json", "application/json"),
        ] {
            let r = get(&app, path).await;
            assert_eq!(r.status, 200, "{path}");
            assert!(
                r.header("content-type")
                    .is_some_and(|t| t.starts_with(kind)),
                "{path}"
            );
            assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
            let etag = r.header("etag").unwrap().to_string();
            let again = send(
                &app,
                request(Method::GET, path).header("if-none-match", &etag),
            )
            .await;
            assert_eq!(again.status, 304, "{path}");
            let gzip = send(
                &app,
                request(Method::GET, path).header("accept-encoding", "gzip"),
            )
            .await;
            assert_eq!(gzip.header("content-encoding"), Some("gzip"), "{path}");
            assert_ne!(gzip.header("etag"), Some(etag.as_str()), "{path}");
        }
        // The stylesheet's fonts are files beside it, served as fonts.
        let css = get(&app, "/graphql/graphiql.css").await.text();
        let font = css
            .split("url(fonts/")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap();
        let r = get(&app, &format!("/graphql/fonts/{font}")).await;
        assert_eq!(r.status, 200, "{font}");
        assert!(r.header("content-type").unwrap().starts_with("font/"));
        assert_detail(&get(&app, "/graphql/nosuch.js").await, 404, "Not Found");
        // The examples are the web frontend's page queries with their variables, and
        // they run.
        let examples = get(&app, "/graphql/examples.json").await.json();
        let home = examples
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["operation"] == "HomePage")
            .unwrap();
        assert_eq!(home["variables"], json!({"distinct": true}));
        let body = json!({"query": home["query"], "variables": home["variables"]});
        let r = oneshot(
            &app,
            request(Method::POST, "/graphql/")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body.to_string()))
                .unwrap(),
        )
        .await;
        assert_eq!(r.status, 200);
        assert!(r.json()["errors"].is_null(), "{}", r.text());
        assert!(
            r.json()["data"]["statsOverview"]["activeChaptersStats"]
                .as_i64()
                .unwrap()
                > 0
        );
    }
    for env in [Env::Production, Env::Staging] {
        let app = shared().app(env, |_| {});
        for path in ["/graphql/graphiql.js", "/graphql/examples.json"] {
            assert_detail(&get(&app, path).await, 404, "Not Found");
        }
    }
}

/// `/api/v0` is answered without routing, unless CORS wraps it (then through the
/// router): both ways give the same status, headers and bytes (CORS's own headers
/// aside), for files, live answers, errors, HEAD and conditional requests.
#[tokio::test]
async fn the_rest_api_answers_the_same_with_and_without_routing() {
    let direct = local();
    let routed = shared().app(Env::Local, |c| {
        c.cors_origins = vec!["https://app.example.org".into()]
    });
    let etag = get(&direct, "/api/v0/chapters/")
        .await
        .header("etag")
        .unwrap()
        .to_string();
    let requests = || {
        [
            request(Method::GET, "/api/v0/chapters/"),
            request(Method::GET, "/api/v0/chapters/?page_size=3&page=2"),
            request(Method::GET, "/api/v0/chapters/").header("accept-encoding", "gzip"),
            request(Method::HEAD, "/api/v0/issues/"),
            request(Method::GET, "/api/v0/chapters/").header("if-none-match", &etag),
            request(Method::GET, "/api/v0/nothing"),
            request(Method::GET, "/api/v0"),
            request(Method::GET, "/api/v0/"),
            request(Method::GET, "/api/v0x"),
            request(Method::POST, "/api/v0/"),
            request(Method::GET, "/api/v0/openapi.json"),
        ]
    };
    for (a, b) in requests().into_iter().zip(requests()) {
        let what = format!("{:?}", a.uri_ref());
        let (a, b) = (send(&direct, a).await, send(&routed, b).await);
        assert_eq!(a.status, b.status, "{what}");
        assert_eq!(a.body, b.body, "{what}");
        let headers = |r: &Reply| {
            let mut h: Vec<(String, String)> = r
                .headers
                .iter()
                .filter(|(name, _)| {
                    let name = name.as_str();
                    !(name == "vary"
                        || name == "x-request-id"
                        || name.starts_with("access-control-"))
                })
                .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_string()))
                .collect();
            h.sort();
            h
        };
        assert_eq!(headers(&a), headers(&b), "{what}");
        assert!(a.header("x-request-id").is_some(), "{what}");
    }
}
