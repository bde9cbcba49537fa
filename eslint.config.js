// ESLint (flat config): the recommended JavaScript and typescript-eslint rules over every source, script, test and
// bench file. Prettier owns the layout; ESLint owns what Prettier cannot see (unused code, unsafe patterns, long
// comments and strings). `npm run lint` runs both.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      "data/",
      "demo-data/",
      "coverage/",
      "test-artifacts/",
      "scripts/opensearch-launcher/",
      "scripts/temporal-test-server/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: { console: "readonly", process: "readonly", URL: "readonly", Buffer: "readonly" },
    },
    rules: {
      // A leading underscore marks a value left unused on purpose: a rest-destructure that drops a field
      // (`const { _id, ...rest } = doc`), a parameter a signature requires.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true },
      ],
      // `let server; const stop = () => server?.close(); server = listen()`: a closure reads it before its one
      // assignment, so it cannot be const.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The dashboard's one script runs in the browser.
    files: ["src/http/dashboard/assets/*.js"],
    languageOptions: { globals: { document: "readonly", window: "readonly", navigator: "readonly" } },
  },
  {
    // Tests and benchmarks read JSON answers over HTTP and MCP whose shape is what they assert; typing each answer
    // would restate the OpenAPI document in every test.
    files: ["test/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
