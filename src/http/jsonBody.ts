// Reads bounded JSON request bodies; a malformed or oversized body is 422 VALIDATION_ERROR before any handler runs.
import type { Context, Next } from 'koa';
import { ApiError } from './errors.js';

/** Reads a JSON body up to `limitBytes`; malformed or oversized bodies are 422 VALIDATION_ERROR. */
export function jsonBody(limitBytes: number) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'DELETE') return next();
    const declared = Number(ctx.get('Content-Length') || '0');
    if (declared > limitBytes) throw new ApiError(422, 'VALIDATION_ERROR', `request body is larger than ${limitBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limitBytes) throw new ApiError(422, 'VALIDATION_ERROR', `request body is larger than ${limitBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    if (raw.trim() === '') {
      ctx.request.body = undefined;
    } else {
      try {
        ctx.request.body = JSON.parse(raw);
      } catch (err) {
        throw new ApiError(422, 'VALIDATION_ERROR', `request body is not valid JSON: ${(err as Error).message}`);
      }
    }
    return next();
  };
}
