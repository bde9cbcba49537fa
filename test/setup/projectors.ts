// Every tier's setup: the features' projectors installed, as the composition root installs them where it opens an
// event store (tests that open one by hand, or project events in memory, run the same projectors).
import { installFeatureProjectors } from "../../src/app/projectors.js";

installFeatureProjectors();
