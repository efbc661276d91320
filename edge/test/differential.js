/*
 * The differential test of edge/canonical.js: reads the JSON Lines corpus written by
 * `cargo run --example edge_corpus -- corpus FILE` (each line a request URL and the
 * file roost's Rust code maps it to, or null) and fails on any URL for which
 * `route()` answers otherwise, printing the first few. Runs under Node
 * (`node edge/test/differential.js FILE`) and njs (`njs edge/test/differential.js FILE`).
 */
import canonical from "../canonical.js";
import fs from "fs";

function main(path) {
  var lines = fs.readFileSync(path, "utf8").split("\n");
  var total = 0;
  var files = 0;
  var wrong = [];
  for (var i = 0; i < lines.length; i++) {
    if (lines[i] === "") {
      continue;
    }
    var entry = JSON.parse(lines[i]);
    var got = canonical.route(entry.url);
    total++;
    if (entry.file !== null) {
      files++;
    }
    if (got !== entry.file) {
      wrong.push({ url: entry.url, rust: entry.file, js: got });
    }
  }
  var runtime = typeof njs === "object" ? "njs " + njs.version : "node " + process.version;
  console.log(runtime + ": " + total + " requests (" + files + " pre-rendered), " +
    wrong.length + " disagreements");
  for (var k = 0; k < wrong.length && k < 10; k++) {
    console.log("  " + JSON.stringify(wrong[k]));
  }
  return total > 0 && wrong.length === 0;
}

if (!main(process.argv[2])) {
  if (typeof process.exit === "function") {
    process.exit(1);
  }
  throw new Error("edge/canonical.js disagrees with the Rust canonicaliser");
}
