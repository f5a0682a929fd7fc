// The oracle of apismith's Swagger 2.0 load pass: swagger2openapi's conversion of a 2.0
// document (a JSON file, argv[2]) to OpenAPI 3.0, written as JSON to stdout. Test-time
// only: `npm ci` in this folder installs the pinned version (package-lock.json).
"use strict";
const fs = require("fs");
const s2o = require("swagger2openapi");

const doc = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
s2o.convertObj(doc, { patch: true, warnOnly: true }, (err, options) => {
  if (err) {
    process.stderr.write(String(err) + "\n");
    process.exit(1);
  }
  process.stdout.write(JSON.stringify(options.openapi, null, 1) + "\n");
});
