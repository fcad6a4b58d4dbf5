// Writes src/api/openapiConstants.ts from openapi.json: every schema's field defaults and enum
// values, and the constants a schema publishes as an `x-*` extension (Budget's budget lines, the
// specs' estimate overheads, the zero-code agent languages, the OTEL_* suggestions), so the UI
// starts from what the backend publishes instead of a copy. `--check` fails when the file is not what openapi.json generates (npm run check:api).

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "src/api/openapiConstants.ts");
const schemas = JSON.parse(readFileSync(join(root, "openapi.json"), "utf8")).components.schemas;

/** A default worth generating: a plain value (a null default is "not set", not a constant). */
function isConstant(value) {
  return value !== null && (typeof value !== "object" || Array.isArray(value));
}

/** The enum of a field, directly or as the one non-null branch of an `anyOf`. */
function enumOf(field) {
  if (Array.isArray(field.enum)) return field.enum;
  const branches = (field.anyOf ?? []).filter((branch) => Array.isArray(branch.enum));
  return branches.length === 1 ? branches[0].enum : null;
}

function collect() {
  const defaults = {};
  const enums = {};
  const extensions = {};
  for (const name of Object.keys(schemas).sort()) {
    for (const [key, value] of Object.entries(schemas[name])) {
      if (!key.startsWith("x-")) continue;
      extensions[name] ??= {};
      extensions[name][key] = value;
    }
    for (const [field, spec] of Object.entries(schemas[name].properties ?? {})) {
      if ("default" in spec && isConstant(spec.default)) {
        defaults[name] ??= {};
        defaults[name][field] = spec.default;
      }
      const values = enumOf(spec);
      if (values) {
        enums[name] ??= {};
        enums[name][field] = values;
      }
    }
  }
  return { defaults, enums, extensions };
}

function render({ defaults, enums, extensions }) {
  const json = (value) => JSON.stringify(value, null, 2);
  return [
    "// Generated from openapi.json by scripts/gen-constants.mjs (npm run gen:api): do not edit.",
    "// Each schema's field defaults, enum values and `x-*` constants, as the backend publishes them.",
    "",
    '/** Field defaults by schema (a default of null is left out: it means "not set"). */',
    `export const OPENAPI_DEFAULTS = ${json(defaults)} as const;`,
    "",
    "/** Enum values by schema and field, in the backend's order. */",
    `export const OPENAPI_ENUMS = ${json(enums)} as const;`,
    "",
    "/** The constants each schema publishes as `x-*` extensions, by schema and extension. */",
    `export const OPENAPI_EXTENSIONS = ${json(extensions)} as const;`,
    "",
  ].join("\n");
}

const text = render(collect());
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {
    // missing: reported below
  }
  if (current !== text) {
    console.error(
      "src/api/openapiConstants.ts is not what openapi.json generates: npm run gen:api",
    );
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
