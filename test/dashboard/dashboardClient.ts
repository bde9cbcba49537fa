// A client of the dashboard as a browser or a script meets it: its own cookie jar, redirects not followed (tests look
// at them), forms or JSON, and the address it claims through X-Forwarded-For when the service trusts one proxy.
export interface DashboardAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  /** Set-Cookie lines of this answer */
  cookies: string[];
}

export interface DashboardClientOptions {
  /** answers as a browser wants them: pages and redirects (Accept: text/html) */
  browser?: boolean;
  /** sent as X-Forwarded-For (the service must run with TRUST_PROXY=1 for it to count) */
  address?: string;
}

export function dashboardClient(baseUrl: string, options: DashboardClientOptions = {}) {
  const jar = new Map<string, string>();
  const client = {
    jar,
    options,
    async send(
      method: string,
      path: string,
      init: {
        form?: Record<string, string>;
        json?: unknown;
        headers?: Record<string, string>;
        raw?: string;
        contentType?: string;
      } = {},
    ): Promise<DashboardAnswer> {
      const headers: Record<string, string> = {
        Accept: options.browser ? "text/html,application/xhtml+xml,*/*;q=0.8" : "application/json",
        ...(options.address ? { "X-Forwarded-For": options.address } : {}),
        ...(init.headers ?? {}),
      };
      if (jar.size) headers.Cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      let body: string | undefined;
      if (init.form) {
        headers["Content-Type"] = "application/x-www-form-urlencoded";
        body = new URLSearchParams(init.form).toString();
      } else if (init.json !== undefined) {
        headers["Content-Type"] = "application/json";
        body = JSON.stringify(init.json);
      } else if (init.raw !== undefined) {
        headers["Content-Type"] = init.contentType ?? "text/plain";
        body = init.raw;
      }
      const res = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: "manual" });
      const cookies = res.headers.getSetCookie();
      for (const line of cookies) {
        const [pair, ...attrs] = line.split(";");
        const [name, ...value] = pair!.split("=");
        const maxAge = attrs.find((a) => /^\s*max-age=/i.test(a));
        if (maxAge && Number(maxAge.split("=")[1]) <= 0) jar.delete(name!.trim());
        else jar.set(name!.trim(), value.join("="));
      }
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json, cookies };
    },
    /** The value of the form's `_csrf` field on a page. */
    csrfIn(page: string): string {
      const m = /name="_csrf" value="([^"]+)"/.exec(page);
      if (!m) throw new Error("no _csrf field on the page");
      return m[1]!;
    },
  };
  return client;
}

export type DashboardClient = ReturnType<typeof dashboardClient>;
