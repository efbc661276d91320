// roost API reference: sends the "Try it" forms with fetch and shows the answer.
// Everything it needs is in the page (data- attributes); it loads nothing else.
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

  function show(form, status, statusClass, url, headers, body, isJson) {
    var result = form.querySelector(".result");
    var statusLine = result.querySelector(".result-status");
    statusLine.textContent = status;
    statusLine.className = "result-status " + statusClass;
    result.querySelector(".result-url code").textContent = url;
    result.querySelector(".result-headers").textContent = headers;
    var bodyBox = result.querySelector(".result-body");
    if (isJson) { highlight(bodyBox, body); } else { bodyBox.textContent = body; }
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
            kind, "GET " + url, lines.join("\n"), body || "(empty body)", isJson);
        });
      })
      .catch(function (error) {
        show(form, "The request failed: " + error.message, "fail", "GET " + url, "",
          "No answer was received. Check the base URL, that the server is running and, for another origin, that it allows this page (CORS).", false);
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
