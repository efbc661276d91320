/*
 * edge/worker.js: roost's tree behind a fetch-style edge function (Cloudflare
 * Workers, Deno Deploy, Node 20), with the API's own URLs.
 *
 *   env.ORIGIN  base URL of a static host serving the site folder that
 *               `roost generate` writes (object storage, Pages, any web server)
 *   env.SHIM    base URL of `roost serve`, which answers what the tree does not
 *
 * A GET or HEAD whose answer is pre-rendered (edge/canonical.js gives its file) is
 * read from the origin and returned as JSON with caching headers; everything else
 * (searches, other page sizes, coordinate ranges, is_upcoming, invalid queries, the
 * root, openapi.json, the docs, other methods) and any file the origin does not have
 * goes to the shim with the request's method, headers and body.
 */
import canonical from "./canonical.js";

/* How long shared caches may keep a tree file before asking again (the tree changes
 * when it is regenerated). */
var CACHE_CONTROL = "public, max-age=300";

function trimSlash(base) {
  return String(base).replace(/\/+$/, "");
}

/* The origin URL of a tree file: each segment percent-encoded, so that `%`, `@`,
 * `&` and `=` in canonical names reach the static host as characters of the name. */
function originUrl(base, file) {
  var segments = file.split("/");
  for (var i = 0; i < segments.length; i++) {
    segments[i] = encodeURIComponent(segments[i]);
  }
  return trimSlash(base) + "/" + segments.join("/");
}

function fromTree(request, origin) {
  var headers = new Headers();
  headers.set("Content-Type", "application/json");
  headers.set("Cache-Control", CACHE_CONTROL);
  headers.set("X-Content-Type-Options", "nosniff");
  var validators = ["ETag", "Last-Modified"];
  for (var i = 0; i < validators.length; i++) {
    var value = origin.headers.get(validators[i]);
    if (value !== null) {
      headers.set(validators[i], value);
    }
  }
  // The origin's stream is taken over at once (piped through): Node's fetch cancels
  // an untaken body when the Response that carried it is collected, which happened
  // between this return and the client's read.
  var body = request.method === "HEAD" || origin.status === 304 || origin.body === null
    ? null
    : origin.body.pipeThrough(new TransformStream());
  return new Response(body, { status: origin.status, headers: headers });
}

/* The request as it came (method, headers, body), to the shim. */
async function toShim(request, env, url) {
  var headers = new Headers(request.headers);
  headers.delete("Host");
  var init = { method: request.method, headers: headers, redirect: "manual" };
  if (request.method !== "GET" && request.method !== "HEAD") {
    init.body = request.body;
    init.duplex = "half";
  }
  return fetch(trimSlash(env.SHIM) + url.pathname + url.search, init);
}

export default {
  async fetch(request, env) {
    var url = new URL(request.url);
    if (request.method === "GET" || request.method === "HEAD") {
      var file = canonical.route(url.pathname + url.search);
      if (file !== null) {
        var conditional = new Headers();
        var inm = request.headers.get("If-None-Match");
        if (inm !== null) {
          conditional.set("If-None-Match", inm);
        }
        var origin = await fetch(originUrl(env.ORIGIN, file), {
          method: request.method,
          headers: conditional,
        });
        if (origin.status === 200 || origin.status === 304) {
          return fromTree(request, origin);
        }
        // A page or record the tree does not hold (or an origin in trouble): the
        // shim answers it live.
        if (origin.body) {
          await origin.body.cancel();
        }
      }
    }
    return toShim(request, env, url);
  },
};
