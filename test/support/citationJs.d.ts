// The part of citation-js (an untyped package) the export tests use: parse BibTeX, RIS or CSL-JSON, render a
// bibliography.
declare module "@citation-js/core" {
  export class Cite {
    constructor(data: unknown);
    data: Record<string, unknown>[];
    format(kind: "bibliography", options: { format: "text"; template: string }): string;
  }
}
declare module "@citation-js/plugin-bibtex";
declare module "@citation-js/plugin-ris";
declare module "@citation-js/plugin-csl";
