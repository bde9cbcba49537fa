// The dashboard's pages, rendered on the server: one layout (skip link, labelled navigation, sign-out form), then one
// file per page. Forms post to the same origin and carry the session's CSRF token; nothing here reads a request.
export * from "./layout.js";
export * from "./signedOutPages.js";
export * from "./overviewPage.js";
export * from "./keysPage.js";
export * from "./usagePage.js";
export * from "./ledgerPage.js";
export * from "./queriesPage.js";
export * from "./playgroundPage.js";
export * from "./membersPage.js";
export * from "./accountPage.js";
export * from "./operatorPages.js";
export * from "./workPage.js";
