// Lines past 120 characters: where they are (the check) and how to fold them (the codemod, scripts/reflow.ts).
// Comments are re-wrapped from the long line to the end of its paragraph; string literals and one-line template
// literals are split into `"…" +` concatenations, which Prettier then lays out. A line may stay long only for a
// reason listed in `exemption`: a URL, or test data (a file under test/fixtures, or a multi-line template literal in
// a test, such as an XML record whose line breaks are part of the value). Everything else is folded by hand where the
// codemod cannot: a test title is shortened, HTML and SQL are wrapped where whitespace does not matter, a long
// regular expression is built from String.raw parts.
import * as prettier from "prettier";
import ts from "typescript";

export const MAX_LINE = 120;

/** Code points, so a line of accented text counts what a reader sees. */
export const lineLength = (line: string): number => [...line].length;

export interface LongLine {
  line: number;
  length: number;
  text: string;
}

const URL = /\b(?:https?|file):\/\/\S/;
const DIRECTIVE = /^\s*(?:\/\/|\/\*)\s*(?:eslint-|@ts-|prettier-ignore|istanbul|c8 )/;

/** Files whose lines are test data as a whole. */
export const isFixtureFile = (path: string): boolean => /(^|\/)test\/fixtures\//.test(path);

/** What may stay long, by source span: a multi-line template literal in a test (test data). */
interface Kept {
  start: number;
  end: number;
  reason: string;
}

/** Files of tests and their helpers, whose multi-line template literals are test data. */
const isTestFile = (path: string): boolean => /(^|\/)test\//.test(path);

function keptSpans(source: ts.SourceFile, path: string): Kept[] {
  const spans: Kept[] = [];
  if (!isTestFile(path)) return spans;
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const start = node.getStart(source);
      if (source.text.slice(start, node.end).includes("\n")) spans.push({ start, end: node.end, reason: "test data" });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

/** Why a long line may stay long, or undefined when it must be folded: a URL, or test data reaching past the limit. */
function exemption(line: string, offset: number, kept: Kept[]): string | undefined {
  if (URL.test(line)) return "url";
  const end = offset + line.length;
  const limit = offset + MAX_LINE - 1 - (line.length - lineLength(line));
  return kept.find((k) => k.start < end && k.end > limit)?.reason;
}

/** The lines of one file past MAX_LINE that no exemption covers. */
export function longLines(path: string, text: string): LongLine[] {
  if (isFixtureFile(path)) return [];
  const lines = text.split("\n");
  // most files have no long line, or only URLs: they need no parse
  if (!lines.some((line) => lineLength(line) > MAX_LINE && !URL.test(line))) return [];
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const kept = keptSpans(source, path);
  const starts = lineStarts(text);
  const found: LongLine[] = [];
  lines.forEach((line, index) => {
    if (lineLength(line) <= MAX_LINE) return;
    if (exemption(line, starts[index], kept)) return;
    found.push({ line: index + 1, length: lineLength(line), text: line });
  });
  return found;
}

export function scriptKind(path: string): ts.ScriptKind {
  return /\.(mjs|js|cjs)$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

// ---------------------------------------------------------------------------------------------------------------
// Folding

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A comment line cut into what stays the same on every line of its paragraph and its words. */
interface CommentLine {
  indent: string;
  /** "// ", " * ", "/** ", "/* " or "" (a line inside a block comment without a star) */
  marker: string;
  body: string;
  /** "*\/" when the block comment closes on this line */
  close: string;
}

function parseCommentLine(line: string): CommentLine | undefined {
  if (/^\s*\*\/\s*$/.test(line)) return undefined; // a block comment's closing line ends every paragraph
  const match = /^(\s*)(\/\/+ ?|\/\*\*? ?|\* ?)(.*?)(\s*\*\/)?$/.exec(line);
  if (!match) return undefined;
  if (match[2].startsWith("//"))
    return { indent: match[1], marker: match[2], body: match[3] + (match[4] ?? ""), close: "" };
  return { indent: match[1], marker: match[2], body: match[3], close: match[4] ? " */" : "" };
}

/** A line that starts a new paragraph or is not prose: blank, a list item, a table row, indented code, a tag. */
const breaksParagraph = (body: string): boolean =>
  body.trim() === "" || /^(\s|[-*•|>#]\s|\d+[.)]\s|@|```|<)/.test(body);

/** Greedy word wrap of `words` into lines of at most `width` characters (a word longer than that stands alone). */
function wrapWords(words: string[], firstWidth: number, width: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const word of words) {
    const limit = out.length === 0 ? firstWidth : width;
    if (current === "") current = word;
    else if (lineLength(current) + 1 + lineLength(word) <= limit) current += ` ${word}`;
    else {
      out.push(current);
      current = word;
    }
  }
  if (current !== "") out.push(current);
  return out;
}

/** Refolds a long comment line and the rest of its paragraph; returns the replaced line range and its new lines. */
function foldCommentLines(lines: string[], index: number): { from: number; to: number; lines: string[] } | undefined {
  const first = parseCommentLine(lines[index]);
  if (!first || first.body.trim() === "") return undefined;
  const firstPrefix = first.indent + first.marker;
  // the prefix of the lines that continue this one: "// ", or " * " inside a block comment
  const contPrefix = first.marker.startsWith("//")
    ? firstPrefix
    : first.marker.startsWith("/*")
      ? `${first.indent} * `
      : firstPrefix;
  // a list item's continuation lines line up with its text
  const item = /^([-*•]\s|\d+[.)]\s)/.exec(first.body);
  const hang = item ? " ".repeat(item[0].length) : "";
  let to = index;
  const words = first.body.split(/\s+/).filter(Boolean);
  let close = first.close;
  while (!close && to + 1 < lines.length) {
    const next = parseCommentLine(lines[to + 1]);
    if (!next || (next.indent + next.marker).trimEnd() !== contPrefix.trimEnd()) break;
    if (DIRECTIVE.test(lines[to + 1])) break;
    if (hang && !next.body.startsWith(hang)) break;
    const body = next.body.slice(hang.length);
    if (breaksParagraph(body)) break;
    words.push(...body.split(/\s+/).filter(Boolean));
    close = next.close;
    to++;
  }
  const restPrefix = contPrefix + hang;
  if (close && first.marker.startsWith("/*") && to === index) {
    // a one-line block comment too long for its line becomes a block of lines
    const width = MAX_LINE - lineLength(restPrefix);
    const body = wrapWords(words, width, width).map((text) => restPrefix + text);
    return { from: index, to, lines: [first.indent + first.marker.trimEnd(), ...body, `${first.indent} */`] };
  }
  const wrapped = wrapWords(words, MAX_LINE - lineLength(firstPrefix), MAX_LINE - lineLength(restPrefix));
  const out = wrapped.map((text, i) => (i === 0 ? firstPrefix : restPrefix) + text);
  if (close) {
    const last = out.length - 1;
    if (lineLength(out[last] + close) <= MAX_LINE) out[last] += close;
    else out.push(`${contPrefix.replace(/\* $/, "")}*/`);
  }
  return { from: index, to, lines: out };
}

/** A trailing `// comment` after code on a long line moves above that line. */
function liftTrailingComment(line: string, commentStart: number): string[] | undefined {
  const code = line.slice(0, commentStart).trimEnd();
  if (code.trim() === "") return undefined;
  const indent = /^\s*/.exec(line)![0];
  const comment = line.slice(commentStart);
  if (DIRECTIVE.test(comment)) return undefined;
  const words = comment
    .replace(/^\/\/+\s?/, "")
    .split(/\s+/)
    .filter(Boolean);
  const width = MAX_LINE - indent.length - 3;
  return [...wrapWords(words, width, width).map((text) => `${indent}// ${text}`), code];
}

/** Cuts the raw text of a string literal (without its quotes) into pieces of at most `width`, after spaces. */
export function cutRaw(raw: string, width: number): string[] {
  // units never split: an escape sequence, a code point
  const units: string[] = [];
  for (let i = 0; i < raw.length;) {
    if (raw[i] === "\\") {
      const rest = raw.slice(i);
      const escape = /^\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/.exec(rest)![0];
      units.push(escape);
      i += escape.length;
    } else {
      const codePoint = String.fromCodePoint(raw.codePointAt(i)!);
      units.push(codePoint);
      i += codePoint.length;
    }
  }
  const pieces: string[] = [];
  let start = 0;
  while (start < units.length) {
    let length = 0;
    let end = start;
    let lastSpace = -1;
    while (end < units.length && length + units[end].length <= width) {
      length += units[end].length;
      if (units[end] === " " && end > start) lastSpace = end;
      end++;
    }
    // break after the last space that leaves a reasonable first piece; else at the width
    if (end < units.length && lastSpace > start + width / 3) end = lastSpace + 1;
    if (end === start) end = start + 1;
    pieces.push(units.slice(start, end).join(""));
    start = end;
  }
  return pieces;
}

const TEST_CALL = /^(it|test|describe)(\.\w+)*$/;

/**
 * Nodes whose string literal may not become an expression; a test's title is among them, since a concatenated title
 * reads worse than a shorter one (the check reports it for a person to shorten).
 */
function literalMustStay(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) && parent.arguments[0] === node && TEST_CALL.test(parent.expression.getText()))
    return true;
  return (
    ts.isImportDeclaration(parent) ||
    ts.isExportDeclaration(parent) ||
    ts.isExternalModuleReference(parent) ||
    ts.isLiteralTypeNode(parent) ||
    ts.isImportTypeNode(parent) ||
    (ts.isPropertyAssignment(parent) && parent.name === node) ||
    (ts.isPropertySignature(parent) && parent.name === node) ||
    (ts.isPropertyDeclaration(parent) && parent.name === node) ||
    (ts.isMethodDeclaration(parent) && parent.name === node) ||
    (ts.isEnumMember(parent) && parent.name === node) ||
    ts.isTaggedTemplateExpression(parent) ||
    (ts.isExpressionStatement(parent) && ts.isSourceFile(parent.parent)) ||
    ts.isModuleDeclaration(parent) ||
    ts.isImportAttribute?.(parent)
  );
}

/** Whether `a + b` in place of the literal needs parentheses to keep its meaning. */
function needsParens(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) return parent.expression === node;
  if (ts.isCallExpression(parent)) return parent.expression === node;
  if (ts.isPrefixUnaryExpression(parent) || ts.isTypeOfExpression(parent) || ts.isSpreadElement(parent)) return false;
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind;
    return (
      op === ts.SyntaxKind.AsteriskToken ||
      op === ts.SyntaxKind.SlashToken ||
      op === ts.SyntaxKind.PercentToken ||
      op === ts.SyntaxKind.AsteriskAsteriskToken ||
      (op === ts.SyntaxKind.MinusToken && parent.right === node) ||
      (op === ts.SyntaxKind.PlusToken && parent.right === node)
    );
  }
  return ts.isAsExpression(parent) || ts.isSatisfiesExpression(parent) || ts.isNonNullExpression(parent);
}

/** The concatenation replacing a string or template literal `node` whose source is too long. */
function splitLiteral(node: ts.Node, source: ts.SourceFile, indent: number): string | undefined {
  const start = node.getStart(source);
  const text = source.text.slice(start, node.end);
  if (text.includes("\n")) return undefined;
  const quote = text[0];
  // the pieces land on their own lines, a few columns right of the statement
  let width = Math.max(40, MAX_LINE - indent - 6 - 4);
  // a literal that would fit on a line of its own but not after what precedes it: cut in two
  if (lineLength(text) <= width + 2) width = Math.max(20, Math.ceil(lineLength(text) / 2) + 4);
  let pieces: string[];
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    const raw = text.slice(1, -1);
    if (lineLength(raw) <= width) return undefined;
    pieces = cutRaw(raw, width).map((piece) => quote + piece + quote);
  } else if (ts.isTemplateExpression(node)) {
    pieces = cutTemplate(node, source, width);
    if (pieces.length < 2) return undefined;
  } else return undefined;
  if (pieces.length < 2) return undefined;
  const joined = pieces.join(" + ");
  return needsParens(node) ? `(${joined})` : joined;
}

/** Cuts a one-line template expression between its substitutions' text, after spaces, into templates. */
function cutTemplate(node: ts.TemplateExpression, source: ts.SourceFile, width: number): string[] {
  const start = node.getStart(source);
  const text = source.text.slice(start, node.end);
  // offsets (within text) where a cut may fall: after a space that is template text, not a substitution
  const literalRanges: [number, number][] = [];
  const rangeOf = (literal: ts.Node, open: number, close: number): void => {
    literalRanges.push([literal.getStart(source) - start + open, literal.end - start - close]);
  };
  rangeOf(node.head, 1, 2);
  node.templateSpans.forEach((span) => rangeOf(span.literal, 1, ts.isTemplateTail(span.literal) ? 1 : 2));
  const cuts: number[] = [];
  for (const [from, to] of literalRanges) {
    for (let i = from; i < to; i++) if (text[i] === " " && text[i - 1] !== "\\") cuts.push(i + 1);
    // before a substitution and after one: `a${x}b` may become `a` + `${x}b` or `a${x}` + `b`
    if (from > 1) cuts.push(from);
    if (to < text.length - 1) cuts.push(to);
  }
  cuts.sort((a, b) => a - b);
  const pieces: string[] = [];
  let begin = 0;
  while (lineLength(text.slice(begin)) > width + 2) {
    const fitting = cuts.filter((cut) => cut > begin + 1 && cut - begin <= width);
    const cut = fitting.length ? fitting[fitting.length - 1] : cuts.find((c) => c > begin + 1);
    if (cut === undefined || cut >= text.length - 1) break;
    pieces.push(text.slice(begin, cut));
    begin = cut;
  }
  pieces.push(text.slice(begin));
  // each piece but the first opens a template, each but the last closes one; one without substitution is a string
  return pieces
    .map((piece, i) => (i === 0 ? "" : "`") + piece + (i === pieces.length - 1 ? "" : "`"))
    .map((piece) => (/^`[^`"\\$]*`$/.test(piece) ? `"${piece.slice(1, -1)}"` : piece));
}

/** One pass over a file: every long line that can be folded is; returns the new text (Prettier lays it out next). */
export function foldLongLines(path: string, text: string): string {
  if (isFixtureFile(path)) return text;
  const lines = text.split("\n");
  if (!lines.some((line) => lineLength(line) > MAX_LINE)) return text;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const kept = keptSpans(source, path);
  const starts = lineStarts(text);
  const comments = commentRanges(source);
  const edits: Edit[] = [];
  const literalsByLine = literalNodes(source);

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    // a lint directive cannot be cut: the check reports it, to be shortened by hand
    if (lineLength(line) <= MAX_LINE || exemption(line, starts[index], kept) || DIRECTIVE.test(line)) continue;
    const lineStart = starts[index];
    const lineEnd = lineStart + line.length;
    // a comment that runs past the limit on this line
    const comment = comments.find(([start, end]) => start < lineEnd && end > lineStart + MAX_LINE - 1);
    if (comment) {
      const startsLine = line.slice(0, Math.max(0, comment[0] - lineStart)).trim() === "";
      if (startsLine || comment[0] < lineStart) {
        const folded = foldCommentLines(lines, index);
        if (folded) {
          edits.push({
            start: starts[folded.from],
            end: starts[folded.to] + lines[folded.to].length,
            text: folded.lines.join("\n"),
          });
          index = folded.to;
        }
      } else if (text.startsWith("//", comment[0])) {
        const lifted = liftTrailingComment(line, comment[0] - lineStart);
        if (lifted) edits.push({ start: lineStart, end: lineEnd, text: lifted.join("\n") });
      }
      continue;
    }
    // the longest literal on the line
    const indent = /^\s*/.exec(line)![0].length;
    const candidates = (literalsByLine.get(index) ?? []).filter((node) => !literalMustStay(node));
    candidates.sort((a, b) => b.end - b.getStart(source) - (a.end - a.getStart(source)));
    for (const node of candidates) {
      const replacement = splitLiteral(node, source, indent);
      if (replacement) {
        edits.push({ start: node.getStart(source), end: node.end, text: replacement });
        break;
      }
    }
  }
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  let floor = Infinity;
  for (const edit of edits) {
    if (edit.end > floor) continue; // overlapping: the next pass takes it
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    floor = edit.start;
  }
  return out;
}

function commentRanges(source: ts.SourceFile): [number, number][] {
  const seen = new Map<number, number>();
  const text = source.text;
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const range of ranges ?? []) seen.set(range.pos, range.end);
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...seen.entries()].sort((a, b) => a[0] - b[0]);
}

/** String and template literals (not tagged) that lie on one line, by that line's index. */
function literalNodes(source: ts.SourceFile): Map<number, ts.Node[]> {
  const byLine = new Map<number, ts.Node[]>();
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const from = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const to = source.getLineAndCharacterOfPosition(node.end).line;
      if (from === to) byLine.set(from, [...(byLine.get(from) ?? []), node]);
      if (ts.isTemplateExpression(node)) {
        node.templateSpans.forEach((span) => visit(span.expression));
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return byLine;
}

/** Folds and lets Prettier lay out, until nothing changes (a cut literal may need a second cut at its new indent). */
export async function reflowText(path: string, text: string, options: prettier.Options = {}): Promise<string> {
  for (let pass = 0; pass < 6; pass++) {
    const folded = foldLongLines(path, text);
    if (folded === text) break;
    text = await prettier.format(folded, { ...options, filepath: path });
  }
  return text;
}
