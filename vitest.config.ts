// Vitest configuration: tiers by file name. Unit files (*.unit.spec.ts) need no component and run in parallel;
// integration (*.int.spec.ts) and end-to-end (*.e2e.spec.ts) files share the real components globalSetup starts
// (TEST_COMPONENTS picks which) and run one file at a time, after the unit files. Shared files (*.shared.spec.ts)
// compare the shipped data with its originals in ../shared: they run last, only where ../shared exists, and a run
// without them says so at its end (test/setup/sharedTier.ts).
import type { Reporter } from "vitest/node";
import { defineConfig, type TestProjectConfiguration } from "vitest/config";
import { UNIT_PROJECT } from "./test/setup/componentSelection.js";
import { SHARED_FILES, SHARED_PROJECT, sharedTierPlan } from "./test/setup/sharedTier.js";

/** What every tier shares; each project repeats it (a project with `extends: true` would also inherit globalSetup). */
const common = { testTimeout: 60_000, hookTimeout: 240_000, pool: "forks" } as const;

const sharedTier = sharedTierPlan(process.env);

/** Where ../shared is missing: the shared tier's absence, said after the summary of a run that would have run it. */
function leftOutNote(note: string): Reporter {
  let filter: readonly string[] = [];
  return {
    onInit: (vitest) => {
      filter = vitest.config.project;
    },
    onTestRunEnd: () => {
      if (filter.length === 0 || filter.includes(SHARED_PROJECT)) console.warn(`\n${note}\n`);
    },
  };
}

const sharedProject: TestProjectConfiguration[] = sharedTier.run
  ? [
      {
        test: {
          ...common,
          name: SHARED_PROJECT,
          include: [SHARED_FILES],
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ]
  : [];

export default defineConfig({
  test: {
    // the components start once per run, for every tier that runs (none when the unit tier runs alone:
    // test/setup/global.ts)
    globalSetup: ["test/setup/global.ts"],
    reporters: sharedTier.run ? ["default"] : ["default", leftOutNote(sharedTier.note)],
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
          // one module graph per worker, not per file: importing src/ again for every file was two thirds of the
          // tier's time. Unit files keep no state between them (passing with the files in random order checks it:
          // npx vitest run --project unit --sequence.shuffle.files)
          isolate: false,
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
      ...sharedProject,
    ],
  },
});
