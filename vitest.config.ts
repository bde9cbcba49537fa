// Vitest configuration: three tiers by file name. Unit files (*.unit.spec.ts) need no component and run in parallel;
// integration (*.int.spec.ts) and end-to-end (*.e2e.spec.ts) files share the real components globalSetup starts
// (TEST_COMPONENTS picks which) and run one file at a time, after the unit files.
import { defineConfig } from "vitest/config";
import { UNIT_PROJECT } from "./test/setup/componentSelection.js";

/** What every tier shares; each project repeats it (a project with `extends: true` would also inherit globalSetup). */
const common = { testTimeout: 60_000, hookTimeout: 240_000, pool: "forks" } as const;

export default defineConfig({
  test: {
    // the components start once per run, for every tier that runs (none when the unit tier runs alone:
    // test/setup/global.ts)
    globalSetup: ["test/setup/global.ts"],
    reporters: ["default"],
    projects: [
      // 2 workers even on 2 cores: a unit file waits on module loading as much as it computes
      {
        test: {
          ...common,
          name: UNIT_PROJECT,
          include: ["test/**/*.unit.spec.ts"],
          // no ../shared reads, no processes: the unit tier stays pure
          setupFiles: ["test/setup/pureUnit.ts"],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...common,
          name: "int",
          include: ["test/**/*.int.spec.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...common,
          name: "e2e",
          include: ["test/**/*.e2e.spec.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
