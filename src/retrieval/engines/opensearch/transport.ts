// The HTTP client of the OpenSearch adapter: JSON requests to one node or a cluster's nodes, and the statuses a caller
// handles itself.
import { Client } from "@opensearch-project/opensearch";

/** A request to the node: its parsed body and status; a status in `ignore` answers instead of throwing. */
export type Call = <T>(
  method: string,
  path: string,
  body?: unknown,
  ignore?: number[],
) => Promise<{ body: T; statusCode: number }>;

interface BulkResponseBody {
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

/**
 * A request that cannot reach a node (refused, reset, timed out) or that a node answers 502, 503 or 504 is sent again
 * to the next node, up to this many times; the node that failed is left out until a ping finds it back. Retrying is
 * safe: every write names its document's id.
 */
const NODE_RETRIES = 3;

/**
 * Requests go round the nodes listed; the client never sniffs (asks the cluster for its nodes' published addresses,
 * which behind a load balancer or container network need not be reachable from here).
 */
export function createTransport(url: string | readonly string[]): Transport {
  const client = new Client({
    nodes: typeof url === "string" ? url : [...url],
    maxRetries: NODE_RETRIES,
    sniffOnStart: false,
    sniffInterval: false,
    sniffOnConnectionFault: false,
    resurrectStrategy: "ping",
  });
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
