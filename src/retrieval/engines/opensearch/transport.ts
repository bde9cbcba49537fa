// The HTTP client of the OpenSearch adapter: JSON requests to one node, and the statuses a caller handles itself.
import { Client } from "@opensearch-project/opensearch";

/** A request to the node: its parsed body and status; a status in `ignore` answers instead of throwing. */
export type Call = <T>(
  method: string,
  path: string,
  body?: unknown,
  ignore?: number[],
) => Promise<{ body: T; statusCode: number }>;

export interface BulkResponseBody {
  errors: boolean;
  items: Array<
    Record<string, { _id: string; status: number; result?: string; error?: { type: string; reason: string } }>
  >;
}

export interface Transport {
  call: Call;
  /** a _bulk request of action and document lines */
  bulk(lines: unknown[]): Promise<BulkResponseBody>;
  close(): Promise<void>;
}

export function createTransport(url: string): Transport {
  const client = new Client({ node: url });
  return {
    async call<T>(
      method: string,
      path: string,
      body?: unknown,
      ignore: number[] = [],
    ): Promise<{ body: T; statusCode: number }> {
      const response = await client.transport.request(
        body === undefined ? { method, path } : { method, path, body: body as Record<string, unknown> },
        { ignore },
      );
      return { body: response.body as T, statusCode: response.statusCode ?? 0 };
    },
    async bulk(lines) {
      const response = await client.transport.request({
        method: "POST",
        path: "/_bulk",
        bulkBody: lines as Record<string, unknown>[],
      });
      return response.body as BulkResponseBody;
    },
    close: () => client.close(),
  };
}
