//! The docs page rendered from the OpenAPI document (docs/api.md §7): every
//! operation with its parameters, responses and a form; only local assets; labelled
//! controls; anchors that resolve. The real-browser check is `.ci/steps/40-browser.sh`.

use std::collections::BTreeSet;

use serde_json::Value;

fn rendered() -> (String, Vec<(String, Vec<u8>)>) {
    let files = roost::docs::render(&roost::openapi::document_json().unwrap()).unwrap();
    let html = files
        .iter()
        .find(|(name, _)| name == "index.html")
        .map(|(_, bytes)| String::from_utf8(bytes.clone()).unwrap())
        .expect("index.html");
    (html, files)
}

/// Values of an attribute (`name="…"`) throughout the page.
fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// The HTML of the element with this id, up to the closing tag `</{tag}>`.
fn element<'a>(html: &'a str, id: &str, tag: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element #{id}"));
    let end = start + html[start..].find(&format!("</{tag}>")).unwrap();
    &html[start..end]
}

#[test]
fn the_folder_holds_the_page_and_its_own_assets() {
    let (html, files) = rendered();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["index.html", "docs.css", "docs.js"]);
    assert_eq!(files, rendered().1, "rendering is deterministic");
    for (name, bytes) in &files {
        assert!(!bytes.is_empty(), "{name} is empty");
    }
    // Nothing is loaded from elsewhere: every src and href is local.
    for url in attributes(&html, "src")
        .into_iter()
        .chain(attributes(&html, "href"))
    {
        assert!(
            !url.contains("//") && !url.starts_with("http"),
            "external reference {url}"
        );
    }
    assert!(html.contains("href=\"docs.css\"") && html.contains("src=\"docs.js\""));
    for (name, bytes) in &files[1..] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains("@import") && !text.contains("url(http"),
            "{name}"
        );
        assert!(
            !text.contains("https://") && !text.contains("http://"),
            "{name}"
        );
    }
}

#[test]
fn every_operation_is_listed_with_parameters_responses_example_and_a_form() {
    let (html, _) = rendered();
    let doc: Value = serde_json::from_slice(&roost::openapi::document_json().unwrap()).unwrap();
    let mut count = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let op = &item["get"];
        let id = op["operationId"].as_str().unwrap();
        count += 1;
        let article = element(&html, &format!("op-{id}"), "article");
        assert!(
            article.contains(&format!("<code class=\"path\">{path}</code>")),
            "{id}"
        );
        assert!(
            article.contains(&format!("data-path=\"{path}\"")),
            "{id}: no form for {path}"
        );
        for p in op["parameters"].as_array().unwrap() {
            let name = p["name"].as_str().unwrap();
            assert!(
                article.contains(&format!("<code>{name}</code>")),
                "{id}: {name} not described"
            );
            assert!(
                article.contains(&format!("name=\"{name}\"")),
                "{id}: no control for {name}"
            );
        }
        for status in op["responses"].as_object().unwrap().keys() {
            assert!(
                article.contains(&format!(">{status}</span>")),
                "{id}: {status}"
            );
        }
        // Without a tree, the example answer is made from the schema.
        assert!(article.contains(&format!("id=\"op-{id}-200\"")), "{id}");
        assert!(article.contains("made from the schema"), "{id}");
        // Searchable, deep-linkable, and the form lets the API judge the values.
        assert!(article.contains("data-search=\""), "{id}");
        assert!(article.contains(&format!("href=\"#op-{id}\"")), "{id}");
        assert!(article.contains("<form class=\"try\" novalidate"), "{id}");
        // The link to the 200 schema.
        let ok = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap();
        assert!(article.contains(&format!("href=\"#schema-{ok}\"")), "{id}");
    }
    assert_eq!(count, 30);
    assert_eq!(html.matches("<article class=\"op\"").count(), 30);
    assert_eq!(html.matches("<form class=\"try\"").count(), 30);
    // Grouped by tag, Community holding members, organizations and snapshots.
    let community = element(&html, "tag-community", "section");
    for id in ["list_members", "get_organization", "list_snapshot_issues"] {
        assert!(community.contains(&format!("id=\"op-{id}\"")), "{id}");
    }
}

#[test]
fn parameters_show_types_enums_defaults_and_bounds() {
    let (html, _) = rendered();
    let projects = element(&html, "op-list_projects", "article");
    // Repeatable type: one checkbox per value; level: a select of the enum.
    for value in roost::vocab::ProjectType::VALUES {
        assert!(
            projects.contains(&format!(
                "type=\"checkbox\" name=\"type\" value=\"{value}\" data-in=\"query\""
            )),
            "{value}"
        );
    }
    for value in roost::vocab::Level::VALUES {
        assert!(
            projects.contains(&format!("<option value=\"{value}\">")),
            "{value}"
        );
    }
    assert!(projects.contains("maxlength=\"256\""));
    let chapters = element(&html, "op-list_chapters", "article");
    assert!(chapters.contains("default: <code>-created_at</code>"));
    assert!(chapters.contains("<option value=\"-latitude\">"));
    assert!(chapters.contains("min=\"1\" max=\"100\" placeholder=\"100\""));
    assert!(chapters.contains("maximum: <code>100</code>"));
    assert!(
        chapters.contains("step=\"any\""),
        "float filters take decimals"
    );
    let issue = element(&html, "op-get_issue", "article");
    assert!(issue.contains("data-in=\"path\" type=\"number\" step=\"1\""));
    assert!(issue.contains("required"));
    let events = element(&html, "op-list_events", "article");
    assert!(events.contains("<option value=\"\">(default: false)</option>"));
}

#[test]
fn controls_are_labelled_and_anchors_resolve() {
    let (html, _) = rendered();
    let ids: BTreeSet<&str> = attributes(&html, "id").into_iter().collect();
    assert_eq!(
        ids.len(),
        attributes(&html, "id").len(),
        "ids are unique on the page"
    );
    for target in attributes(&html, "for") {
        assert!(ids.contains(target), "label for a missing #{target}");
    }
    let labelled: BTreeSet<&str> = attributes(&html, "for").into_iter().collect();
    // Every text input and select has a label; checkboxes sit inside theirs.
    for tag in ["<input ", "<select "] {
        for (i, _) in html.match_indices(tag) {
            let end = i + html[i..].find('>').unwrap();
            let control = &html[i..end];
            if control.contains("type=\"checkbox\"") {
                assert!(html[..i].ends_with("<label class=\"check\">"), "{control}");
                continue;
            }
            let id = attributes(control, "id");
            assert!(
                id.first().is_some_and(|id| labelled.contains(id)),
                "unlabelled {control}"
            );
        }
    }
    for href in attributes(&html, "href") {
        if let Some(anchor) = href.strip_prefix('#') {
            assert!(ids.contains(anchor), "dangling link #{anchor}");
        }
    }
    assert!(html.contains("<html lang=\"en\">"));
    assert!(html.contains("name=\"viewport\""));
    assert!(html.contains("class=\"skip\" href=\"#main\""));
    assert!(html.contains("aria-live=\"polite\""));
    assert!(html.contains("id=\"api-key\""));
}

#[test]
fn the_script_remembers_the_key_and_sends_it_in_the_documented_header() {
    let js = roost::docs::JS;
    assert!(js.contains("localStorage"));
    assert!(js.contains("fetch("));
    let doc: Value = serde_json::from_slice(&roost::openapi::document_json().unwrap()).unwrap();
    let header = doc["components"]["securitySchemes"]["ApiKey"]["name"]
        .as_str()
        .unwrap();
    let (html, _) = rendered();
    assert!(html.contains(&format!("(sent as <code>{header}</code>)")));
}

#[test]
fn html_in_descriptions_is_shown_as_text_not_run() {
    let mut doc: Value = serde_json::from_slice(&roost::openapi::document_json().unwrap()).unwrap();
    doc["info"]["description"] =
        "Intro <script>alert(1)</script> with **bold**.\n\n<div onclick=\"x()\">block</div>".into();
    doc["tags"][0]["description"] =
        "[run](javascript:alert(1)) ![logo](https://example.org/a.png)".into();
    let param = &mut doc["paths"]["/api/v0/chapters/"]["get"]["parameters"][0];
    param["description"] = "A <img src=x onerror=alert(1)> filter.".into();
    let files = roost::docs::render(&serde_json::to_vec(&doc).unwrap()).unwrap();
    let html = String::from_utf8(files[0].1.clone()).unwrap();
    for raw in [
        "<script>alert",
        "<div onclick",
        "<img src=x",
        "javascript:",
        "example.org/a.png",
    ] {
        assert!(!html.contains(raw), "{raw} reached the page");
    }
    assert!(
        html.contains("Intro &lt;script&gt;alert(1)&lt;/script&gt; with <strong>bold</strong>.")
    );
    assert!(html.contains("&lt;div onclick=\"x()\"&gt;block&lt;/div&gt;"));
    assert!(html.contains("A &lt;img src=x onerror=alert(1)&gt; filter."));
    assert!(
        html.contains("<p>run logo</p>"),
        "links and images keep their text"
    );
}

/// The text of an element's first `<pre>` after `id`, unescaped.
fn pre_after(html: &str, id: &str) -> String {
    let block = element(html, id, "details");
    let start = block.find("<pre><code>").unwrap() + "<pre><code>".len();
    let end = block.find("</code></pre>").unwrap();
    block[start..end]
        .replace("&#34;", "\"")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn the_tree_page_shows_real_answers_per_status() {
    let sample = crate::support::Sample::new();
    let site = sample.dir.path().join("site");
    crate::support::generate(&sample.db, &site, false);
    let html = std::fs::read_to_string(site.join("api/v0/docs/index.html")).unwrap();

    // The 200 of a list is the tree's first page, two items kept, the totals real.
    let page: Value =
        serde_json::from_slice(&std::fs::read(site.join("api/v0/chapters/index.json")).unwrap())
            .unwrap();
    let shown: Value = serde_json::from_str(&pre_after(&html, "op-list_chapters-200")).unwrap();
    assert_eq!(shown["total_count"], page["total_count"]);
    assert!(shown["total_count"].as_u64().unwrap() > 2);
    assert_eq!(
        shown["items"].as_array().unwrap()[..],
        page["items"].as_array().unwrap()[..2]
    );
    assert!(element(&html, "op-list_chapters-200", "summary").contains("2 of the page"));

    // The error answers are the shim's own bodies, for real requests.
    let bad: Value = serde_json::from_str(&pre_after(&html, "op-list_chapters-400")).unwrap();
    assert_eq!(bad["message"], "Invalid request");
    assert_eq!(
        bad["errors"][0]["loc"],
        serde_json::json!(["query", "page"])
    );
    assert!(element(&html, "op-list_chapters-400", "summary").contains("?page=0"));
    let unauthorized: Value =
        serde_json::from_str(&pre_after(&html, "op-list_chapters-401")).unwrap();
    assert_eq!(
        unauthorized["detail"],
        "Missing or invalid API key in 'X-API-Key' header"
    );
    let pages = page["total_pages"].as_u64().unwrap();
    let beyond: Value = serde_json::from_str(&pre_after(&html, "op-list_chapters-404")).unwrap();
    assert_eq!(
        beyond["detail"],
        format!(
            "Page {} not found. Valid pages are 1 to {pages}.",
            pages + 1
        )
    );
    let limited: Value = serde_json::from_str(&pre_after(&html, "op-list_chapters-429")).unwrap();
    assert_eq!(limited["detail"], "Too many requests.");

    // A detail's 200 is a record of the tree, named in the request and the curl.
    let chapter: Value = serde_json::from_str(&pre_after(&html, "op-get_chapter-200")).unwrap();
    let id = chapter["key"]
        .as_str()
        .unwrap()
        .trim_start_matches("www-chapter-");
    let file: Value = serde_json::from_slice(
        &std::fs::read(site.join(format!("api/v0/chapters/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(chapter, file);
    assert!(element(&html, "op-get_chapter-200", "summary")
        .contains(&format!("GET /api/v0/chapters/{id}</code>")));
    assert!(element(&html, "op-get_chapter-curl", "details")
        .contains(&format!("data-path=\"/api/v0/chapters/{id}\"")));
    let input = &html[html.find("id=\"get_chapter--chapter_id\"").unwrap()..];
    assert!(input[..input.find('>').unwrap()].contains(&format!("placeholder=\"{id}\"")));
    let missing: Value = serde_json::from_str(&pre_after(&html, "op-get_chapter-404")).unwrap();
    assert_eq!(missing, serde_json::json!({"message": "Chapter not found"}));

    // Every operation has its answers: 200, 401, 404, 429, and 400 for lists.
    let doc: Value = serde_json::from_slice(&roost::openapi::document_json().unwrap()).unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let id = item["get"]["operationId"].as_str().unwrap();
        let mut statuses = vec!["200", "401", "404", "429"];
        if path.ends_with('/') {
            statuses.push("400");
        }
        for status in statuses {
            assert!(
                html.contains(&format!("id=\"op-{id}-{status}\"")),
                "{id}: no {status} example"
            );
        }
    }
}
