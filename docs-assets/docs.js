// roost API reference: searches the operations and schemas, sends the "Try it" forms
// with fetch and shows the answer and the same request as curl, writes this page's
// origin into the example curl commands, copies code blocks, and opens what a link
// (#op-…, #schema-…) points to. Everything it needs is in the page (data-
// attributes); it loads nothing else.
(function () {
  "use strict";

  var KEY_STORE = "roost-docs:api-key";
  var BASE_STORE = "roost-docs:base-url";

  function load(name) {
    try { return window.localStorage.getItem(name) || ""; } catch (e) { return ""; }
  }
  function save(name, value) {
    try {
      if (value) { window.localStorage.setItem(name, value); } else { window.localStorage.removeItem(name); }
    } catch (e) { /* storage disabled: the field still works for this visit */ }
  }

  var keyInput = document.getElementById("api-key");
  var baseInput = document.getElementById("base-url");
  var showButton = document.getElementById("api-key-show");
  var forgetButton = document.getElementById("api-key-forget");
  var settings = document.getElementById("settings");
  var keyHeader = (keyInput && keyInput.closest(".field").querySelector("code").textContent) || "X-API-Key";

  keyInput.value = load(KEY_STORE);
  baseInput.value = load(BASE_STORE);
  keyInput.addEventListener("input", function () { save(KEY_STORE, keyInput.value.trim()); });
  baseInput.addEventListener("input", function () { save(BASE_STORE, baseInput.value.trim()); });
  settings.addEventListener("submit", function (event) { event.preventDefault(); });
  showButton.addEventListener("click", function () {
    var shown = keyInput.type === "text";
    keyInput.type = shown ? "password" : "text";
    showButton.textContent = shown ? "Show" : "Hide";
    showButton.setAttribute("aria-pressed", shown ? "false" : "true");
  });
  forgetButton.addEventListener("click", function () {
    keyInput.value = "";
    save(KEY_STORE, "");
    keyInput.focus();
  });

  // On a narrow screen the contents start folded, so the page opens on the reference.
  var toc = document.querySelector(".toc details");
  if (toc && window.matchMedia && window.matchMedia("(max-width: 60rem)").matches) {
    toc.open = false;
  }

  function origin() {
    var base = baseInput.value.trim().replace(/\/+$/, "");
    if (base) { return base; }
    if (window.location.protocol === "file:") { return null; }
    return window.location.origin;
  }

  // A word for a POSIX shell, in single quotes.
  function shellQuote(text) {
    return "'" + String(text).replace(/'/g, "'\\''") + "'";
  }

  // The example curl commands name the server this page is read from (or the base
  // URL chosen above).
  var curls = document.querySelectorAll("code.curl[data-path]");
  function writeCurls() {
    var base = origin();
    if (base === null) { return; }
    for (var i = 0; i < curls.length; i++) {
      curls[i].textContent = "curl -H \"" + keyHeader + ": $API_KEY\" " +
        shellQuote(base + curls[i].getAttribute("data-path"));
    }
  }
  writeCurls();
  baseInput.addEventListener("input", writeCurls);

  // Copy buttons: the text of the code block beside them.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button.copy");
    if (!button) { return; }
    var block = button.parentNode.querySelector("pre");
    var label = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", label);
    copyText(block ? block.textContent : "").then(function () {
      button.textContent = "Copied";
    }, function () {
      button.textContent = "Select and copy by hand";
    }).then(function () {
      window.setTimeout(function () { button.textContent = label; }, 1500);
    });
  });

  // Search: every word typed must appear in an operation's id, method, path, summary
  // or tag, or in a schema's name, description or fields. The rest is hidden.
  var search = document.getElementById("search");
  var searchCount = document.getElementById("search-count");
  var searchResults = document.getElementById("search-results");
  var entries = document.querySelectorAll("article[data-search]");
  var sections = document.querySelectorAll("section.tag, section.schemas");
  function runSearch() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var ops = 0;
    var schemas = 0;
    searchResults.textContent = "";
    for (var i = 0; i < entries.length; i++) {
      var entry = entries[i];
      var text = entry.getAttribute("data-search");
      var hit = words.every(function (w) { return text.indexOf(w) !== -1; });
      entry.hidden = !hit;
      if (!hit || !words.length) { continue; }
      var isOp = entry.classList.contains("op");
      if (isOp) { ops++; } else { schemas++; }
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = "#" + entry.id;
      if (isOp) {
        var path = entry.querySelector(".path");
        link.textContent = (entry.getAttribute("data-summary") || entry.id) + " ";
        var where = document.createElement("code");
        where.textContent = path ? path.textContent : "";
        link.appendChild(where);
      } else {
        link.textContent = "Schema " + entry.id.replace(/^schema-/, "");
      }
      item.appendChild(link);
      searchResults.appendChild(item);
    }
    for (var j = 0; j < sections.length; j++) {
      sections[j].hidden = words.length > 0 && !sections[j].querySelector("article[data-search]:not([hidden])");
    }
    document.body.classList.toggle("searching", words.length > 0);
    searchResults.hidden = !words.length;
    searchCount.textContent = words.length
      ? ops + (ops === 1 ? " operation" : " operations") + ", " + schemas + (schemas === 1 ? " schema" : " schemas")
      : "";
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { search.value = ""; runSearch(); }
  });
  document.addEventListener("keydown", function (event) {
    var typing = event.target.closest && event.target.closest("input, select, textarea");
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      search.focus();
    }
  });

  // Deep links: what the address names is shown (the search cleared if it hid it)
  // and opened (an example's folded box).
  function reveal() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    if (target.closest("[hidden]")) {
      search.value = "";
      runSearch();
    }
    if (target.tagName === "DETAILS") { target.open = true; }
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  if (window.location.hash) { reveal(); }

  // The request URL of a form: path parameters substituted, query parameters in order.
  function requestUrl(form) {
    var path = form.getAttribute("data-path");
    var query = [];
    var fields = form.querySelectorAll("[data-in]");
    for (var i = 0; i < fields.length; i++) {
      var field = fields[i];
      var where = field.getAttribute("data-in");
      if (field.type === "checkbox" && !field.checked) { continue; }
      var value = field.value.trim();
      if (where === "path") {
        path = path.replace("{" + field.name + "}", encodeURIComponent(value));
      } else if (where === "query" && value !== "") {
        query.push(encodeURIComponent(field.name) + "=" + encodeURIComponent(value));
      }
    }
    return path + (query.length ? "?" + query.join("&") : "");
  }

  // JSON text as spans (keys, strings, numbers, literals), built with textContent only.
  function highlight(target, text) {
    target.textContent = "";
    var token = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
    var last = 0;
    var match;
    while ((match = token.exec(text)) !== null) {
      if (match.index > last) { target.appendChild(document.createTextNode(text.slice(last, match.index))); }
      var span = document.createElement("span");
      if (match[1]) {
        span.className = match[2] ? "j-key" : "j-str";
        span.textContent = match[1];
        target.appendChild(span);
        if (match[2]) { target.appendChild(document.createTextNode(match[2])); }
      } else {
        span.className = match[3] ? "j-num" : "j-lit";
        span.textContent = match[0];
        target.appendChild(span);
      }
      last = token.lastIndex;
    }
    if (last < text.length) { target.appendChild(document.createTextNode(text.slice(last))); }
  }

  function show(form, status, statusClass, url, headers, body, isJson, curl) {
    var result = form.querySelector(".result");
    var statusLine = result.querySelector(".result-status");
    statusLine.textContent = status;
    statusLine.className = "result-status " + statusClass;
    result.querySelector(".result-url code").textContent = url;
    result.querySelector(".result-headers").textContent = headers;
    var bodyBox = result.querySelector(".result-body");
    if (isJson) { highlight(bodyBox, body); } else { bodyBox.textContent = body; }
    result.querySelector(".result-curl").textContent = curl || "";
    result.hidden = false;
  }

  function send(form) {
    var button = form.querySelector("button[type=submit]");
    var sent = form.querySelector(".sent");
    var base = origin();
    var path = requestUrl(form);
    if (base === null) {
      show(form, "Set a base URL above: this page was opened from a file.", "fail", path, "", "", false);
      return;
    }
    var url = base + path;
    var headers = { "Accept": "application/json" };
    var key = keyInput.value.trim();
    if (key) { headers[keyHeader] = key; }
    var curl = "curl";
    Object.keys(headers).forEach(function (name) { curl += " -H " + shellQuote(name + ": " + headers[name]); });
    curl += " " + shellQuote(url);
    button.disabled = true;
    sent.textContent = "Sending…";
    var started = Date.now();
    fetch(url, { method: form.getAttribute("data-method") || "GET", headers: headers, cache: "no-store", credentials: "omit" })
      .then(function (response) {
        return response.text().then(function (text) {
          var lines = [];
          response.headers.forEach(function (value, name) { lines.push(name + ": " + value); });
          lines.sort();
          var body = text;
          var isJson = false;
          try {
            body = JSON.stringify(JSON.parse(text), null, 2);
            isJson = true;
          } catch (e) { /* not JSON: shown as it came */ }
          var kind = response.status < 300 ? "ok" : response.status < 500 ? "client" : "fail";
          show(form, response.status + " " + (response.statusText || "") + " · " + (Date.now() - started) + " ms",
            kind, "GET " + url, lines.join("\n"), body || "(empty body)", isJson, curl);
        });
      })
      .catch(function (error) {
        show(form, "The request failed: " + error.message, "fail", "GET " + url, "",
          "No answer was received. Check the base URL, that the server is running and, for another origin, that it allows this page (CORS).", false, curl);
      })
      .then(function () {
        button.disabled = false;
        sent.textContent = "";
      });
  }

  var forms = document.querySelectorAll("form.try");
  for (var i = 0; i < forms.length; i++) {
    forms[i].addEventListener("submit", function (event) {
      event.preventDefault();
      send(event.currentTarget);
    });
  }
})();
