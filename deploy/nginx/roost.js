/*
 * nginx's side of the edge canonicaliser: `js_set $roost_file roost.file;` gives the
 * tree file answering the request (relative to the site root), or "" when the answer
 * is not pre-rendered. The mapping itself is edge/canonical.js, shared with the
 * fetch-style edge function.
 */
import canonical from "canonical.js";

function file(r) {
  try {
    // The request target as sent, read as UTF-8 (r.variables gives its bytes one
    // by one when it holds raw non-ASCII characters).
    var path = canonical.route(r.rawVariables.request_uri.toString("utf8"));
    return path === null ? "" : path;
  } catch (e) {
    // Never expected; the shim answers whatever this cannot.
    r.error("roost canonical.route: " + e);
    return "";
  }
}

export default { file: file };
